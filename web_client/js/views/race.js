/** The race screen: status bar, the table, the controls, the leaderboard beside
it, and the notices (countdown, stuck, finished) and results over it. */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { state, changed } from '../state.js';
import * as session from '../session.js';
import * as tournament from '../tournament.js';
import { serverNow } from '../clock.js';
import { duration, modeText, ordinal, score } from '../format.js';
import { Board, pickedCards } from '../render.js';
import { cardShort, SUIT_NAMES } from '../cards.js';
import { say } from '../messages.js';
import { attachDrag } from '../drag.js';
import { createInput, targetsOf } from '../input.js';
import { createLeaderboard } from './leaderboard.js';
import { createResults } from './results.js';
import { createSeqPanel } from './seqpanel.js';
import * as storage from '../storage.js';

function stat(label) {
  const value = h('b', { class: 'stat-value' });
  const el = h('span', { class: 'stat' }, h('span', { class: 'stat-label', text: label }), value);
  return { el, value };
}

export function createRace(root) {
  const roomLabel = h('span', { class: 'room-label' });
  // in a tournament's round the seat is kept: the button shows the tournament's page instead
  const leaveBtn = h('button', { class: 'btn small ghost', type: 'button', text: 'Leave',
    onclick: () => (state.tour ? tournament.showPage(true) : session.leave()) });
  const stats = {
    score: stat('Score'), moves: stat('Moves'), passes: stat('Passes'), cards: stat('Cards'),
    clock: stat('Time'), rank: stat('Rank'),
  };
  const statusBar = h('div', { class: 'statusbar', role: 'group', 'aria-label': 'Your game' },
    ...Object.values(stats).map((s) => s.el));

  const tableEl = h('div', { class: 'table' });
  const boardHost = h('div', { class: 'board-host' });
  tableEl.append(boardHost);
  const board = new Board(boardHost, { interactive: true, label: 'Your table' });
  const input = createInput(board);
  attachDrag(board, input.handlers);
  board.el.addEventListener('focusin', (e) => {
    const pile = e.target.closest('.pile');
    if (pile && state.ui.focus !== pile.dataset.pile) {
      state.ui.focus = pile.dataset.pile;
      changed();
    }
  });

  const countdownNumber = h('b');
  const countdown = h('div', { class: 'notice countdown', 'aria-live': 'assertive' },
    h('span', { text: 'Starting in' }), countdownNumber);
  const stuckText = h('p', { text: 'No moves left.' });
  const stuckUndo = h('button', { class: 'btn primary', type: 'button', text: 'Undo', onclick: () => session.undo() });
  const stuck = h('div', { class: 'notice stuck', role: 'alert' },
    stuckText,
    h('div', { class: 'notice-actions' },
      stuckUndo,
      h('button', { class: 'btn', type: 'button', text: 'View the board', onclick: () => { state.ui.stuckHidden = true; changed(); } }),
      h('button', { class: 'btn danger', type: 'button', text: 'Resign', onclick: () => session.resign() })));
  const doneText = h('p');
  const done = h('div', { class: 'notice done', role: 'status' }, doneText);
  const waiting = h('div', { class: 'notice waiting', text: 'Dealing…' });
  tableEl.append(countdown, stuck, done, waiting);
  const panel = createSeqPanel(tableEl, input);

  const undoBtn = h('button', { class: 'btn', type: 'button', onclick: () => session.undo() }, 'Undo', h('kbd', { text: 'U' }));
  const hintBtn = h('button', { class: 'btn', type: 'button', onclick: () => session.hint() }, 'Hint', h('kbd', { text: 'H' }));
  const completeLabel = h('span', { text: 'Complete' });
  const completeBtn = h('button', { class: 'btn accent', type: 'button', onclick: () => session.complete() },
    completeLabel, h('kbd', { text: 'F' }));
  const resignBtn = h('button', { class: 'btn ghost', type: 'button', onclick: () => resign() }, 'Resign');
  const resultsBtn = h('button', { class: 'btn primary', type: 'button', text: 'Results',
    onclick: () => { state.ui.resultsHidden = false; changed(); } });
  const keys = h('details', { class: 'keys' },
    h('summary', { text: 'Keys' }),
    h('p', { text: '←/→ move between piles · 1–7 columns · Enter pick up / put down · ↑/↓ choose cards in a column · '
      + 'Space draw · U undo · H hint (twice: play it) · F complete · Esc cancel' }));
  const controls = h('div', { class: 'controls' }, undoBtn, hintBtn, completeBtn, resignBtn, resultsBtn, keys);

  const side = h('aside', { class: 'side' });
  const leaderboard = createLeaderboard(side);

  const results = createResults(root, {
    rematch: () => session.rematch(),
    solo: (code) => session.solo({ nickname: storage.nickname() || session.nicknameOf(state.seat) || 'player', code }),
    fresh: () => session.solo({
      nickname: storage.nickname() || session.nicknameOf(state.seat) || 'player',
      draw: state.room.settings.draw, scoring: state.room.settings.scoring,
    }),
    hide: () => { state.ui.resultsHidden = true; changed(); },
    leave: () => session.leave(),
  });

  const el = h('section', { class: 'screen race', 'aria-label': 'Race' },
    h('header', { class: 'topbar' }, h('h1', { class: 'brand', text: 'Klondike Race' }), roomLabel, leaveBtn),
    statusBar,
    h('div', { class: 'race-body' }, h('div', { class: 'table-col' }, tableEl, controls), side),
    results.el);
  root.append(el);

  function resign() {
    if (!state.ui.confirmResign) {
      state.ui.confirmResign = true;
      changed();
      setTimeout(() => { state.ui.confirmResign = false; changed(); }, 4000);
      return;
    }
    state.ui.confirmResign = false;
    session.resign();
  }

  const onKey = (e) => input.keydown(e);
  let timer = 0;

  function tick() {
    const room = state.room;
    if (!room) return;
    const now = serverNow();
    const phase = session.phase();
    if (phase === 'countdown') {
      const left = Math.max(0, room.start_at - now);
      setText(countdownNumber, String(Math.ceil(left / 1000)));
    }
    if (phase !== lastPhase) changed();
    const me = state.entries.find((e) => e.seat === state.seat);
    if (me && me.status === 'finished') setText(stats.clock.value, duration(me.finish_ms));
    else if (phase === 'racing' && room.start_at) {
      setText(stats.clock.value, room.deadline ? `${duration(room.deadline - now)} left` : duration(now - room.start_at));
    } else if (phase === 'ended' && room.start_at) {
      setText(stats.clock.value, duration((room.ended_at ?? now) - room.start_at));
    } else setText(stats.clock.value, '0:00');
  }
  let lastPhase = null;
  let lastHint = null;

  function hintText(view, hint) {
    if (hint.m === 'draw') return 'Hint: draw from the stock';
    if (hint.m === 'recycle') return 'Hint: turn the waste over';
    const cards = pickedCards(view, hint);
    const what = cards.length > 1 ? `${cardShort(cards[0])} and the cards on it` : cardShort(cards[0]);
    const where = hint.to === 'f' ? `to the ${SUIT_NAMES[cards[0][1]]} foundation` : `onto column ${hint.to.slice(1)}`;
    return `Hint: ${what} ${where} (H again plays it)`;
  }

  function render(s) {
    const room = s.room;
    const view = s.view;
    const phase = session.phase();
    lastPhase = phase;
    const settings = room.settings;
    const tour = settings.tournament && s.tour && s.tour.t && s.tour.id === settings.tournament ? s.tour.t : null;
    setText(roomLabel, settings.solo ? `Solo · ${modeText(settings)}`
      : tour ? `${tour.name} · round ${settings.round} of ${tour.rounds.length} · ${modeText(settings)}`
        : `Room ${room.id} · ${modeText(settings)}`);
    setText(leaveBtn, tour ? 'Tournament' : 'Leave');
    setAttr(leaveBtn, 'aria-label', tour ? 'Tournament page' : null);
    document.title = settings.solo ? 'Klondike Race — solo'
      : tour ? `Klondike Race — ${tour.name}, round ${settings.round}` : `Klondike Race — room ${room.id}`;

    const ui = s.ui;
    const pick = ui.selected || ui.panel;
    board.update(view, {
      selected: ui.selected, panel: ui.panel, hint: ui.hint, focus: ui.focus, ghost: ui.ghost,
      targets: pick ? targetsOf(view, pick) : null,
    });
    panel.render(view, ui.panel);
    if (ui.hint !== lastHint) {
      lastHint = ui.hint;
      if (ui.hint && view) say(hintText(view, ui.hint));
    }

    if (view) {
      setText(stats.score.value, score(view, view.scoring));
      setText(stats.moves.value, view.moves);
      setText(stats.passes.value, view.recycles);
      setText(stats.cards.value, `${view.foundation_cards}/52`);
    }
    const mine = s.entries.find((e) => e.seat === s.seat);
    const racers = s.entries.length;
    setText(stats.rank.value, mine && mine.rank ? `${ordinal(mine.rank)} of ${racers}` : '–');
    show(stats.rank.el, racers > 1);
    tick();

    show(countdown, phase === 'countdown');
    show(waiting, phase === 'racing' && !view);
    const isStuck = Boolean(view && view.state === 'stuck' && !s.done && phase === 'racing');
    show(stuck, isStuck && !ui.stuckHidden);
    show(stuckUndo, Boolean(settings.undo && view && view.undo > 0));
    const finished = mine && mine.status === 'finished';
    const over = s.done && phase === 'racing';
    show(done, Boolean(over));
    if (over) {
      setText(doneText, finished ? `You finished in ${duration(mine.finish_ms)}! Waiting for the others…`
        : view && view.state === 'won' ? 'You finished! Waiting for the others…' : 'Your race is over. Waiting for the others…');
    }

    const playing = session.canPlay() || s.pending.length > 0;
    const live = phase === 'racing' && !s.done;
    show(undoBtn, Boolean(settings.undo));
    undoBtn.disabled = !playing || !view || view.undo === 0;
    show(hintBtn, Boolean(settings.hints));
    hintBtn.disabled = !playing;
    show(completeBtn, Boolean(live && view && (view.autocomplete || ui.completing)));
    setText(completeLabel, ui.completing ? 'Stop' : 'Complete');
    show(resignBtn, live);
    resignBtn.firstChild.textContent = ui.confirmResign ? 'Really resign?' : 'Resign';
    toggle(resignBtn, 'danger', ui.confirmResign);
    show(resultsBtn, phase === 'ended' && ui.resultsHidden);
    toggle(el, 'busy', s.pending.length > 0);

    leaderboard.render(s.entries, { me: s.seat });
    results.render(room, { me: s.seat, visible: !ui.resultsHidden });
  }

  return {
    el,
    show() {
      el.hidden = false;
      document.addEventListener('keydown', onKey);
      timer = setInterval(tick, 250);
    },
    hide() {
      el.hidden = true;
      document.removeEventListener('keydown', onKey);
      clearInterval(timer);
    },
    render,
  };
}
