/** The spectator's screen: the leaderboard, and the players' boards exactly as
the server sends them (`boards` frames) — small in a grid, one large on click.
Before the server sends any, a line says when boards will come. */

import { h, setText, show } from '../dom.js';
import { state, changed, phaseAt } from '../state.js';
import * as session from '../session.js';
import { serverNow } from '../clock.js';
import { duration, modeText } from '../format.js';
import { createBoardsGrid } from './boards.js';
import { createLeaderboard } from './leaderboard.js';
import { createPodium } from './podium.js';
import { createResults } from './results.js';
import { standing } from '../ranking.js';
import * as storage from '../storage.js';

export function createWatch(root) {
  const title = h('h1', { class: 'watch-title' });
  const phaseText = h('p', { class: 'watch-phase', role: 'status' });
  const note = h('p', { class: 'watch-note' });
  const main = h('div', { class: 'watch-main' }, note);
  const grid = createBoardsGrid(main);
  const side = h('aside', { class: 'side' });
  const resultsBtn = h('button', { class: 'btn small primary', type: 'button', text: 'Results',
    onclick: () => { state.ui.resultsHidden = false; changed(); } });
  const podium = createPodium(side);
  const leaderboard = createLeaderboard(side);
  const results = createResults(root, {
    rematch: () => {},
    solo: (code) => session.solo({ nickname: storage.nickname() || 'player', code }),
    fresh: () => {},
    hide: () => { state.ui.resultsHidden = true; changed(); },
    leave: () => session.leave(),
  });
  const el = h('section', { class: 'screen watch', 'aria-label': 'Watching a race' },
    h('header', { class: 'topbar' },
      h('span', { class: 'brand', text: 'Klondike Race' }),
      title,
      resultsBtn,
      h('button', { class: 'btn small ghost', type: 'button', text: 'Stop watching', onclick: () => session.leave() })),
    phaseText,
    h('div', { class: 'watch-body' }, main, side),
    results.el);
  root.append(el);

  let timer = 0;

  function tick() {
    const room = state.room;
    if (!room) return;
    const now = serverNow();
    const phase = phaseAt(room, now);
    if (phase === 'countdown') setText(phaseText, `Starting in ${Math.ceil(Math.max(0, room.start_at - now) / 1000)}`);
    else if (phase === 'racing') setText(phaseText, `Racing · ${duration(now - room.start_at)}`);
    else if (phase === 'ended') setText(phaseText, 'The race is over');
    else setText(phaseText, 'In the lobby: waiting for the host to start');
  }

  function render(s) {
    const room = s.room;
    if (!room) {
      setText(title, `Room ${s.roomId}`);
      return;
    }
    setText(title, `Watching room ${room.id} · ${modeText(room.settings)}`);
    document.title = `Klondike Race — watching ${room.id}`;
    tick();
    const phase = phaseAt(room, serverNow());
    const mode = room.settings.boards;
    const seats = Object.keys(s.boards).map(Number).sort((a, b) => a - b);
    const when = mode === 'live' ? 'live' : mode === 'delayed' ? `${room.settings.delay} s late` : 'after the race';
    setText(note, seats.length ? `Boards are shown ${when}. Click a board to enlarge it.`
      : phase === 'lobby' ? `Boards will be shown ${when}.` : `Boards are shown ${when}: none yet.`);

    const names = new Map(room.players.map((p) => [p.seat, p.nickname]));
    grid.render(s.boards, { names, entries: s.entries, bigSeat: s.ui.bigSeat, phase });
    show(resultsBtn, phase === 'ended' && s.ui.resultsHidden);
    const ranking = standing(s.entries);
    const stuck = new Set(seats.filter((seat) => s.boards[seat].state === 'stuck'));
    podium.render(ranking.lines, { visible: ranking.total > 1 && phase !== 'ended' });
    leaderboard.render(ranking.lines, { total: ranking.total, scoring: room.settings.scoring, phase, stuck });
    results.render(room, { me: -1, visible: !s.ui.resultsHidden });
  }

  return {
    el,
    show() {
      el.hidden = false;
      timer = setInterval(tick, 500);
    },
    hide() {
      el.hidden = true;
      clearInterval(timer);
    },
    render,
  };
}
