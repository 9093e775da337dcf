/** The spectator's screen: the leaderboard, and the players' boards exactly as
the server sends them (`boards` frames) — small in a grid, one large on click.
Before the server sends any, a line says when boards will come. */

import { h, setText, show, toggle } from '../dom.js';
import { state, changed, phaseAt } from '../state.js';
import * as session from '../session.js';
import { serverNow } from '../clock.js';
import { duration, modeText, score } from '../format.js';
import { Board } from '../render.js';
import { createLeaderboard } from './leaderboard.js';
import { createResults } from './results.js';
import * as storage from '../storage.js';

export function createWatch(root) {
  const title = h('h1', { class: 'watch-title' });
  const phaseText = h('p', { class: 'watch-phase', role: 'status' });
  const note = h('p', { class: 'watch-note' });
  const grid = h('div', { class: 'boards-grid' });
  const side = h('aside', { class: 'side' });
  const resultsBtn = h('button', { class: 'btn small primary', type: 'button', text: 'Results',
    onclick: () => { state.ui.resultsHidden = false; changed(); } });
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
    h('div', { class: 'watch-body' }, h('div', { class: 'watch-main' }, note, grid), side),
    results.el);
  root.append(el);

  const tiles = new Map(); // seat → {fig, caption, board}
  let timer = 0;

  function tile(seat) {
    let t = tiles.get(seat);
    if (t) return t;
    const caption = h('figcaption', { class: 'tile-caption' });
    const host = h('div', { class: 'tile-board' });
    const fig = h('figure', { class: 'tile', tabindex: '0', role: 'button', 'aria-expanded': 'false', dataset: { seat: String(seat) } },
      caption, host);
    const board = new Board(host, { interactive: false, mini: true, label: `board of seat ${seat}` });
    const toggleBig = () => {
      state.ui.bigSeat = state.ui.bigSeat === seat ? null : seat;
      changed();
    };
    fig.addEventListener('click', toggleBig);
    fig.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        toggleBig();
      }
    });
    t = { fig, caption, board };
    tiles.set(seat, t);
    return t;
  }

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
    const lines = new Map(s.entries.map((e) => [e.seat, e]));
    for (const seat of seats) {
      const t = tile(seat);
      const view = s.boards[seat];
      const name = names.get(seat) ?? `seat ${seat}`;
      setText(t.caption, `${name} · ${view.foundation_cards}/52 · ${score(view, view.scoring)} · ${view.moves} moves`
        + (lines.get(seat) && lines.get(seat).status !== 'racing' ? ` · ${lines.get(seat).status}` : ''));
      t.board.el.setAttribute('aria-label', `${name}'s table`);
      const big = s.ui.bigSeat === seat;
      toggle(t.fig, 'big', big);
      t.fig.setAttribute('aria-expanded', String(big));
      t.board.update(view, {});
    }
    const figs = seats.map((seat) => tiles.get(seat).fig);
    if (figs.some((fig, i) => grid.children[i] !== fig)) grid.append(...figs);
    for (const [seat, t] of tiles) {
      if (!(seat in s.boards)) {
        t.board.destroy();
        t.fig.remove();
        tiles.delete(seat);
      }
    }
    show(grid, seats.length > 0);
    show(resultsBtn, phase === 'ended' && s.ui.resultsHidden);
    leaderboard.render(s.entries, {});
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
