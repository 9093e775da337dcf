/** The race screen: top bar, status bar, the table, the controls, the podium
and the leaderboard beside it, and the notices (countdown, stuck, finished),
the winner's cascade and the results over it. */

import { h, setAttr, setText, show, toggle, typing } from '../dom.js';
import * as commands from '../commands.js';
import * as rooms from '../rooms.js';
import * as tournament from '../tournament.js';
import { count, duration, modeShort, modeText, ordinal, placeOf, score, timeLeft } from '../format.js';
import { Board, pickedCards } from '../render.js';
import { cardShort, suitName } from '../cards.js';
import { cards as cardCount } from '../format.js';
import { say, unsay } from '../messages.js';
import { attachDrag } from '../drag.js';
import { createInput, targetsOf } from '../input.js';
import { stockMove } from '../legal.js';
import { cascade } from '../cascade.js';
import { finishText, standing } from '../ranking.js';
import * as field from '../field.js';
import * as challenge from '../challenge.js';
import { createLeaderboard, ratingsOf } from './leaderboard.js';
import { createGhosts } from './ghosts.js';
import { createReplayList } from './replaylist.js';
import { createHistogram } from './histogram.js';
import { createPodium } from './podium.js';
import { createResults } from './results.js';
import { createSeqPanel } from './seqpanel.js';
import { createConfirm } from './confirm.js';
import * as storage from '../storage.js';
import { languageSwitch } from './language.js';
import { TEXT } from '../text.js';
import * as paging from '../paging.js';

const R = TEXT.race;

/** A figure of the status bar: `key` names it in the catalogue (TEXT.race.stats) and in `data-stat`. */
function stat(key) {
  const label = R.stats[key];
  const value = h('b', { class: 'stat-value' });
  const el = h('span', { class: 'stat', dataset: { stat: key } },
    h('span', { class: 'stat-label', 'aria-hidden': 'true', text: label }),
    h('span', { class: 'visually-hidden', text: `${label} ` }),
    value);
  return { el, value };
}

/** Which notice the view calls for: "stuck" (no legal move), "idle" (no line
of play makes progress: nothing left to gain), "lost" (the solver proved it
cannot be won; shown only when the player asks), or null. */
function noticeKind(view) {
  if (!view || view.state !== 'playing' && view.state !== 'stuck') return null;
  if (view.state === 'stuck') return 'stuck';
  if (view.no_progress) return 'idle';
  if (view.winnable === 'no') return 'lost';
  return null;
}

/** The badge's key, words and title for the solver's word on the view: for
a lost game, why (the deal, or a move some undos back). */
function badgeOf(view) {
  const status = view.winnable == null ? 'pending' : view.winnable;
  if (status === 'no' && view.lost === 'deal') return { key: 'no', text: R.badges.deal, title: R.badgeTitles.deal };
  if (status === 'no' && view.back) return { key: 'no', text: R.backBadge(view.back), title: R.backTitle(view.back) };
  return { key: status, text: R.badges[status] || '', title: R.badgeTitles[status] || null };
}

/** The mode of a typed code: "KL1-D3V-…" or "KL2-D3V-…" → {draw: 3, scoring: "V"}. */
function modeOfCode(code) {
  const m = /^KL[12]-D([13])([NV])-/.exec(code || '');
  return m ? { draw: Number(m[1]), scoring: m[2] } : null;
}

export function createRace(root, app) {
  const state = app.state;
  const changed = app.changed;
  const clock = app.clock;
  const help = app.dialogs.help;
  const openField = (options) => app.dialogs.field.open(options);
  const { confirm, asking } = createConfirm();
  const roomLabel = h('span', { class: 'room-label' });
  const codeLabel = h('code', { class: 'room-code', title: R.soloCode });
  const modeLabel = h('span', { class: 'room-mode' }); // a phone's bar: the mode first, never cut
  const backToTable = () => board.focusPile(state.ui.focus); // keys go to the table again
  // A modal dialog gives the focus back, as it closes, to what had it when it
  // opened: the table, so the next key plays (a closing's own event comes too
  // late for that: a key pressed at once would beat it to the opener's button).
  const overTable = (open) => () => {
    backToTable();
    open();
  };
  const helpBtn = h('button', { class: 'btn small ghost icon', type: 'button', text: '?', 'aria-label': R.howToPlay,
    onclick: overTable(() => help.openIntro()) });
  const rulesBtn = h('button', { class: 'btn small ghost', type: 'button', text: R.rules,
    onclick: overTable(() => help.openRules()) });
  // in a tournament's round the seat is kept: the button shows the tournament's page instead
  const leaveBtn = h('button', { class: 'btn small ghost', type: 'button', text: R.leave, onclick: () => leave() });
  const stats = {
    score: stat('score'), moves: stat('moves'), passes: stat('passes'), cards: stat('cards'),
    clock: stat('clock'), rank: stat('rank'),
  };
  const statusBar = h('div', { class: 'statusbar', role: 'group', 'aria-label': R.yourGame },
    ...Object.values(stats).map((s) => s.el));

  const tableEl = h('div', { class: 'table' });
  const boardHost = h('div', { class: 'board-host' });
  tableEl.append(boardHost);
  const board = new Board(boardHost, { interactive: true, label: TEXT.board.table });
  const input = createInput(board, app);
  attachDrag(board, input.handlers);
  board.el.addEventListener('focusin', (e) => {
    const pile = e.target.closest('.pile');
    if (pile && state.ui.focus !== pile.dataset.pile) {
      state.ui.focus = pile.dataset.pile;
      changed();
    }
  });

  // ---------------------------------------------------------------- notices
  const countdownNumber = h('b');
  const countdown = h('div', { class: 'notice countdown', 'aria-live': 'assertive' },
    h('span', { text: R.startingIn }), countdownNumber);

  const stuckUndo = h('button', { class: 'btn primary', type: 'button', text: R.undo, onclick: () => input.act('undo') });
  // the "no longer winnable" notice: back to the last position the solver found winnable
  const stuckBack = h('button', { class: 'btn primary', type: 'button',
    onclick: () => { if (state.view && state.view.back) commands.undoBack(app, state.view.back); } });
  const stuckTitle = h('p', { id: 'stuck-title', class: 'notice-title', text: R.noticeTitles.stuck });
  const stuckNew = h('button', { class: 'btn', type: 'button', text: R.newDeal2, onclick: () => newDeal() });
  const stuckAgain = h('button', { class: 'btn', type: 'button', text: R.sameAgain, onclick: () => sameAgain() });
  const stuckNote = h('p', { class: 'notice-note' });
  const stuck = h('div', { class: 'notice stuck', role: 'alertdialog', 'aria-labelledby': 'stuck-title' },
    stuckTitle,
    stuckNote,
    h('div', { class: 'notice-actions' },
      stuckBack, stuckUndo, stuckNew, stuckAgain,
      h('button', { class: 'btn', type: 'button', text: R.viewBoard, onclick: () => hideNotice() }),
      h('button', { class: 'btn danger', type: 'button', text: R.resign, onclick: () => input.act('resign') })));

  const doneTitle = h('p', { class: 'notice-title' });
  const doneText = h('p', { class: 'notice-note' });
  const doneHide = h('button', { class: 'btn', type: 'button', text: R.viewBoard, onclick: () => hideDone() });
  const doneLeave = h('button', { class: 'btn ghost', type: 'button', text: R.backToLobby, onclick: () => leave() });
  const done = h('div', { class: 'notice done', role: 'status', 'aria-labelledby': 'done-title' },
    h('div', { id: 'done-title' }, doneTitle), doneText);
  const donePodium = createPodium(done, { label: R.podiumSoFar });
  done.append(h('div', { class: 'notice-actions' }, doneHide, doneLeave));
  let doneHidden = false;

  const waiting = h('div', { class: 'notice waiting', text: R.dealing });
  // the table's foot: the messages' place at the table (messages.js: over the
  // felt, never over the figures), and under them the sequence chooser
  const foot = h('div', { class: 'table-foot' }, h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' }));
  tableEl.append(countdown, stuck, done, waiting, foot);
  const panel = createSeqPanel(foot, input);

  // ---------------------------------------------------------------- controls
  const undoBtn = h('button', { class: 'btn', type: 'button', onclick: () => input.act('undo') }, R.undo, h('kbd', { text: 'U' }));
  const hintBtn = h('button', { class: 'btn', type: 'button', onclick: () => input.act('hint') }, R.hint, h('kbd', { text: 'H' }));
  const completeLabel = h('span', { text: R.complete });
  const completeBtn = h('button', { class: 'btn accent', type: 'button', onclick: () => input.act('complete') },
    completeLabel, h('kbd', { text: 'F' }));
  const stuckBtn = h('button', { class: 'btn primary', type: 'button', text: R.noticeButtons.stuck,
    onclick: () => { Object.assign(state.ui, { stuckHidden: false, lostOpen: true, idleHidden: false }); changed(); } });
  // the solver's word on the position (rooms with solver assists): winnable, not, or not known
  const badge = h('span', { class: 'winnable-badge', role: 'status', 'aria-live': 'polite' });
  // on a phone the stock is out of the thumb's reach: a draw button under it
  // (the right thumb's, or the left's: remembered)
  const drawLabel = h('span');
  const drawCount = h('span', { class: 'draw-count' });
  const drawBtn = h('button', { class: 'btn draw-pad', type: 'button', onclick: () => input.act('stock') },
    drawLabel, drawCount);
  let hand = storage.hand();
  const handBtn = h('button', { class: 'btn ghost hand', type: 'button', text: '⇆', 'aria-label': R.leftHanded,
    title: R.otherSide, onclick: () => { hand = hand === 'left' ? 'right' : 'left';
      storage.saveHand(hand); changed(); } });
  const newBtn = h('button', { class: 'btn', type: 'button', onclick: () => newDeal() }, R.newDeal, h('kbd', { text: 'N' }));
  const resignBtn = h('button', { class: 'btn ghost', type: 'button', onclick: () => resign() }, R.resign);
  const resultsBtn = h('button', { class: 'btn primary', type: 'button', text: R.results,
    onclick: () => { state.ui.resultsHidden = false; changed(); } });
  const finishedBtn = h('button', { class: 'btn primary', type: 'button', text: R.yourFinish,
    onclick: () => { doneHidden = false; changed(); } });
  // the list of keys, a reference to play by: opening or closing it leaves the keys with the table
  const keysSummary = h('summary', { text: R.keys,
    onclick: (e) => {
      e.preventDefault();
      keys.open = !keys.open;
      backToTable();
    } });
  const keys = h('details', { class: 'keys' },
    keysSummary,
    h('p', { text: R.keysText }));
  const controls = h('div', { class: 'controls' },
    undoBtn, hintBtn, badge, completeBtn, stuckBtn, newBtn, resignBtn, resultsBtn, finishedBtn, keys,
    h('span', { class: 'thumb' }, drawBtn, handBtn));

  const side = h('aside', { class: 'side' });
  const podium = createPodium(side);
  const leaderboard = createLeaderboard(side);
  let bigSide = null; // a big room's parts, made when one is shown

  /** A big room's side: the field's picture, the way to the whole field, and
  the own place last, pinned to the bottom of the side as it scrolls. */
  function makeBigSide() {
    const hist = createHistogram(side);
    side.insertBefore(hist.el, leaderboard.el); // a glance at the field, then its top
    const fieldBtn = h('button', { class: 'btn small field-open', type: 'button',
      onclick: overTable(() => openField({ me: state.seat })) });
    side.append(fieldBtn);
    const place = createLeaderboard(side, { title: R.yourPlace, kind: 'lb-place' });
    return { hist, fieldBtn, place };
  }

  let challengeSide = null; // a challenge's parts, made when one is shown

  /** A challenge's side: the ghosts first, beside the own line; the
  replays that may be seen, last. */
  function makeChallengeSide() {
    const ghosts = createGhosts(side);
    side.insertBefore(ghosts.el, side.firstChild);
    const replays = createReplayList(side, app);
    return { ghosts, replays };
  }

  /** When the own clock started: the board says (a challenge, came late),
  else the own line, else the race's start. */
  function ownStart(room, me) {
    if (state.started != null) return state.started;
    return me && me.started ? me.started : room.start_at;
  }

  /** The ghosts at the own clock's moment, and the own figures beside them. */
  function renderGhosts(s, now) {
    if (!challengeSide) return;
    const room = s.room;
    const me = challenge.ownLine(s);
    const started = ownStart(room, me);
    const over = s.done || (me && me.status !== 'racing' && me.status !== 'disconnected');
    const ms = Math.max(0, (over && me && me.status === 'finished' ? me.finish_ms : now - started) || 0);
    const view = s.view;
    show(challengeSide.ghosts.el, Boolean(view) && room.phase !== 'ended');
    if (!view) return;
    challengeSide.ghosts.render({ own: { foundation: view.foundation_cards, vegas: view.vegas },
      ghosts: challenge.ghostsAt(s.ghosts, ms), ms, scoring: view.scoring });
  }

  const nickname = () => storage.nickname() || rooms.nicknameOf(state, state.seat) || 'player';
  const results = createResults(root, {
    field: () => openField({ me: state.seat }),
    rematch: () => rooms.rematch(app),
    solo: (code) => rooms.solo(app, { nickname: nickname(), code, assists: rooms.keptAssists(state.room) }),
    fresh: () => freshSolo(),
    hide: () => hideResults(),
    leave: () => rooms.leave(app),
  });
  // A layer's button gives the keys back to the table before it acts: after
  // "View the board" Space draws (the button, hidden only at the next frame,
  // would take it), and a dialog a button opens gives the focus back there.
  for (const layer of [stuck, done, panel.el, results.el]) {
    layer.addEventListener('click', (e) => {
      if (e.target.closest('button') && !e.target.closest('.results-deal')) backToTable(); // "Copy code" stays
    }, true);
  }

  const el = h('section', { class: 'screen race', 'aria-label': R.label },
    h('header', { class: 'topbar' },
      h('h1', { class: 'brand' }, h('span', { class: 'brand-long', text: TEXT.title })),
      h('span', { class: 'room-info' }, modeLabel, roomLabel, codeLabel), languageSwitch({ short: true }), helpBtn, rulesBtn, leaveBtn),
    statusBar,
    h('div', { class: 'race-body' }, h('div', { class: 'table-col' }, tableEl, controls), side),
    results.el);
  root.append(el);
  // A control hands the keys back to the table before it acts: the next key
  // plays (Space draws rather than pressing Undo again), and a dialog it
  // opens gives the focus back there when it closes. Two keep it: "Copy
  // code", and Resign's first press (Enter again confirms).
  el.addEventListener('click', (e) => {
    const control = e.target.closest('button, summary');
    if (!control || board.el.contains(control) || control.closest('.results-deal')) return;
    if (control === resignBtn && !state.ui.confirmResign) return;
    backToTable();
  }, true);

  // ---------------------------------------------------------------- actions

  function resign() {
    if (!state.ui.confirmResign) {
      state.ui.confirmResign = true;
      changed();
      setTimeout(() => { state.ui.confirmResign = false; changed(); }, 4000);
      return;
    }
    state.ui.confirmResign = false;
    input.act('resign');
  }

  /** Leave asks first while the race is on: the seat is given up for good. */
  async function leave() {
    const room = state.room;
    if (state.tour) {
      tournament.showPage(app, true);
      return;
    }
    const phase = commands.phase(app);
    const on = phase === 'countdown' || phase === 'racing';
    if (on) {
      const solo = room && room.settings.solo;
      backToTable(); // where the focus goes back to if the player stays
      const ok = await confirm(state.done
        ? { title: solo ? R.leaveGameQ : R.leaveRaceQ,
          text: solo ? R.overSolo
            : R.overRace,
          yes: solo ? R.leave : R.leaveRace }
        : { title: solo ? R.leaveGameQ : R.leaveRaceQ,
          text: solo ? R.endsSolo
            : R.endsRace,
          yes: solo ? R.leaveGame : R.leaveRace });
      if (!ok) return;
    }
    rooms.leave(app);
  }

  function freshSolo() {
    const s = state.room.settings;
    const mode = modeOfCode(state.ownCode) || { draw: s.draw, scoring: s.scoring };
    const d = { nickname: nickname(), draw: mode.draw, scoring: mode.scoring, assists: rooms.keptAssists(state.room) };
    if (s.deal === 'winnable' && !state.ownCode) d.deal = 'winnable'; // a new deal of the same kind
    rooms.solo(app, d);
  }

  function inProgress() {
    return Boolean(state.view && state.view.moves > 0 && !state.done && commands.phase(app) === 'racing');
  }

  /** N, or the stuck notice's "A new deal": in a solo game, a new random deal of
  the same mode (asked first over a game in progress); a race is dealt again by
  its host after it ends (Rematch). */
  async function newDeal() {
    const room = state.room;
    if (!room) return;
    if (!room.settings.solo) {
      if (room.phase === 'ended' && room.host === state.seat) rooms.rematch(app);
      else if (room.phase === 'ended') say(R.hostDeals);
      else say(R.dealtAfter);
      return;
    }
    if (inProgress() && !noticeKind(state.view)) {
      backToTable(); // where the focus goes back to if the player keeps playing
      const ok = await confirm({ title: R.newDealQ, text: R.endsUnfinished, yes: R.newDeal,
        no: R.keepPlaying });
      if (!ok) return;
    }
    freshSolo();
  }

  function hideResults() {
    state.ui.resultsHidden = true;
    changed();
  }

  function hideDone() {
    doneHidden = true;
    changed();
  }

  /** What Escape puts aside, the top layer over the table, as its own button
  would; null if none shows. */
  function topLayer() {
    if (keys.open) return () => { keys.open = false; };
    if (!results.el.hidden) return hideResults;
    if (!stuck.hidden) return hideNotice;
    if (!done.hidden) return hideDone;
    return null;
  }

  /** A press outside the keys list closes it, as for a dialog the player
  opened; the press goes on to do what it does. (The notices and the results
  came unasked, often mid-play: a press on the table is play, not an answer.) */
  function onPress(e) {
    if (keys.open && !keys.contains(e.target)) keys.open = false;
  }

  /** "View the board": the notice showing now is put aside. */
  function hideNotice() {
    const kind = noticeKind(state.view);
    if (kind === 'stuck') state.ui.stuckHidden = true;
    else if (kind === 'lost') state.ui.lostOpen = false;
    else if (kind === 'idle') state.ui.idleHidden = true;
    changed();
  }

  /** The stuck notice's "The same deal again" (solo only: see rooms.sameDealAgain). */
  function sameAgain() {
    rooms.sameDealAgain(app, nickname(), () => input.act('resign'));
  }

  function onKey(e) {
    if (asking() || document.querySelector('dialog[open]')) return;
    if (input.keydown(e)) { // (Escape first puts back what is picked up, chosen or hinted)
      document.body.dataset.input = 'keys';
      return;
    }
    const putAside = e.key === 'Escape' ? topLayer() : null;
    if (putAside) {
      e.preventDefault();
      putAside();
      backToTable();
      return;
    }
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (key === 'n' && !e.ctrlKey && !e.metaKey && !e.altKey && state.role === 'player'
        && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      newDeal();
    }
  }

  // ---------------------------------------------------------------- drawing

  let timer = 0;
  let lastPhase = null;
  let lastHint = null;
  let hintSaid = ''; // the hint's message shown last
  let wonKey = null; // the race whose win was celebrated
  let focusedGame = null; // the game whose table was given the focus when it was dealt
  let toldLost = null; // the game whose loss was said, and why (the deal, a move): said once
  let stopCascade = null;

  function tick() {
    const room = state.room;
    if (!room) return;
    const now = clock.now();
    const phase = commands.phase(app);
    if (phase === 'countdown') {
      const left = Math.max(0, room.start_at - now);
      setText(countdownNumber, String(Math.ceil(left / 1000)));
    }
    if (phase !== lastPhase) changed();
    renderGhosts(state, now);
    const me = field.isBig(room) ? field.ownLine(state.field) : state.entries.find((e) => e.seat === state.seat);
    const started = ownStart(room, me); // a late arrival's, a challenge's own clock
    const ends = challenge.isChallenge(room) ? challenge.ownEnd(room, started) : room.deadline;
    if (me && me.status === 'finished') setText(stats.clock.value, duration(me.finish_ms));
    else if (phase === 'countdown' && room.start_at) {
      setText(stats.clock.value, R.startsIn(Math.ceil(Math.max(0, room.start_at - now) / 1000)));
    } else if (phase === 'racing' && room.start_at && state.done && challenge.isChallenge(room)) {
      setText(stats.clock.value, R.over);
    } else if (phase === 'racing' && room.start_at) {
      setText(stats.clock.value, ends && room.settings.time_limit
        ? R.timeLeft(duration(ends - now)) : duration(now - started));
    } else if (phase === 'ended' && room.start_at && challenge.isChallenge(room)) {
      setText(stats.clock.value, me && me.finish_ms != null ? duration(me.finish_ms) : R.over);
    } else if (phase === 'ended' && room.start_at) {
      setText(stats.clock.value, duration((room.ended_at ?? now) - room.start_at));
    } else setText(stats.clock.value, '0:00');
  }

  function hintText(view, hint) {
    if (hint.m === 'draw') return R.hintDraw;
    if (hint.m === 'recycle') return R.hintRecycle;
    const cards = pickedCards(view, hint);
    const what = cards.length > 1 ? R.hintRun(cardShort(cards[0])) : R.hintCard(cardShort(cards[0]));
    const where = hint.to === 'f' ? R.hintHome(suitName(cards[0][1])) : R.hintColumn(hint.to.slice(1));
    return document.body.dataset.input === 'touch' ? R.hintTextTap(what, where) : R.hintText(what, where);
  }

  /** The winner's moment: the cascade on the table, once per race won. */
  function celebrate(s) {
    const key = `${s.roomId}/${s.race}`;
    if (!s.view || s.view.state !== 'won') return;
    if (wonKey === key) return;
    wonKey = key;
    if (!s.ui.justWon) return; // a reload of a game won earlier: no cascade again
    s.ui.justWon = false;
    if (stopCascade) stopCascade();
    tableEl.classList.add('celebrating');
    stopCascade = cascade(tableEl, board, {
      skip: document.body.dataset.input === 'touch' ? R.skipTap : R.skipKey,
      onDone: () => {
        stopCascade = null;
        tableEl.classList.remove('celebrating');
        changed(); // the results wait for the cascade
      },
    });
  }

  function render(s) {
    const room = s.room;
    const view = s.view;
    const phase = commands.phase(app);
    if (phase !== lastPhase && phase === 'racing') doneHidden = false;
    lastPhase = phase;
    const settings = room.settings;
    const tour = settings.tournament && s.tour && s.tour.t && s.tour.id === settings.tournament ? s.tour.t : null;
    const solo = Boolean(settings.solo);
    const code = solo ? s.ownCode || (phase === 'ended' ? room.code || '' : '') : '';
    setText(roomLabel, solo ? (code ? R.solo : R.soloMode(modeText(settings)))
      : tour ? R.roundMode(tour.name, settings.round, tour.rounds.length, modeText(settings))
        : settings.daily ? R.dailyMode(modeText(settings))
          : challenge.isChallenge(room) ? R.challengeMode(room.id, modeText(settings)) : R.roomMode(room.id, modeText(settings)));
    setText(modeLabel, modeShort(settings));
    setText(codeLabel, code);
    setAttr(codeLabel, 'title', code ? `${R.soloCode}: ${code}` : R.soloCode);
    show(codeLabel, Boolean(code));
    toggle(codeLabel.parentNode, 'has-code', Boolean(code));
    setText(leaveBtn, tour ? R.tournament : R.leave);
    setAttr(leaveBtn, 'aria-label', tour ? R.tournamentPage : null);
    app.title.screen(solo ? R.pageSolo
      : tour ? R.pageRound(tour.name, settings.round) : TEXT.common.pageRoom(room.id));

    const ui = s.ui;
    const pick = ui.selected || ui.panel;
    board.update(view, {
      selected: ui.selected, refused: ui.refused, panel: ui.panel, hint: ui.hint, focus: ui.focus, ghost: ui.ghost,
      targets: pick ? targetsOf(view, pick) : null,
    });
    panel.render(view, ui.panel);
    if (ui.hint !== lastHint) {
      lastHint = ui.hint;
      if (hintSaid) unsay(hintSaid); // a hint holds for the position it was given in only
      hintSaid = ui.hint && view ? hintText(view, ui.hint) : '';
      say(hintSaid);
    }
    celebrate(s);
    // a game just dealt has the keys: the first arrow key moves on the table
    const game = view ? `${s.roomId}/${s.race}` : null;
    if (game && game !== focusedGame && !document.querySelector('dialog[open]')) {
      focusedGame = game;
      if (!typing({ target: document.activeElement })) backToTable();
    }

    const scoring = view ? view.scoring : settings.scoring;
    if (view) {
      setText(stats.score.value, score(view, view.scoring));
      setText(stats.moves.value, view.moves);
      setText(stats.passes.value, view.recycles);
      setText(stats.cards.value, `${view.foundation_cards}/52`);
    } else { // the countdown: the figures every game starts from
      setText(stats.score.value, score({ vegas: -52, points: 0 }, scoring));
      setText(stats.moves.value, 0);
      setText(stats.passes.value, 0);
      setText(stats.cards.value, '0/52');
    }
    const big = field.isBig(room);
    toggle(el, 'big', big);
    const ranking = big
      ? standing(field.topLines(s.field), { mine: field.ownLine(s.field, view), total: field.total(s.field) })
      : standing(s.entries, { me: s.seat });
    const mine = ranking.mine;
    const rank = big ? s.field.place && s.field.place.rank : mine && mine.rank;
    setText(stats.rank.value, rank && phase !== 'countdown' ? `${ordinal(rank)}/${count(ranking.total)}` : '–');
    show(stats.rank.el, ranking.total > 1);
    tick();

    show(countdown, phase === 'countdown');
    show(waiting, phase === 'racing' && !view);
    // one notice at a time: no legal move, then no useful move, then no longer
    // winnable (solver: only when asked, so that nothing stands between the
    // player and the cards or dollars still to be had)
    const kind = !s.done && phase === 'racing' ? noticeKind(view) : null;
    const hidden = kind === 'stuck' ? ui.stuckHidden : kind === 'lost' ? !ui.lostOpen : ui.idleHidden;
    const canUndo = Boolean(settings.undo && view && view.undo > 0);
    const lostDeal = Boolean(view && view.winnable === 'no' && view.lost === 'deal');
    const back = kind && view.winnable === 'no' && settings.undo && view.back ? view.back : 0;
    if (view && phase === 'racing' && !s.done && 'winnable' in view) tellLost(s, view, back);
    show(stuck, Boolean(kind) && !hidden);
    setText(stuckTitle, R.noticeTitles[kind === 'lost' && lostDeal ? 'deal' : kind] || R.noticeTitles.stuck);
    setText(stuckBack, R.undoBack(back));
    show(stuckBack, back > 0);
    show(stuckUndo, canUndo && back === 0 && !(kind === 'lost' && lostDeal)); // no undo helps a lost deal
    show(stuckNew, solo);
    show(stuckAgain, solo); // a race's code is secret until it ends: its results offer the deal again
    const way = back ? 'back' : canUndo && !lostDeal ? 'undo' : 'none';
    setText(stuckNote, kind === 'lost' && lostDeal ? R.lostDealNote(view.scoring === 'V', solo)
      : R.stuckNotes[solo ? 'solo' : 'race'][way]);
    show(stuckBtn, Boolean(kind) && hidden);
    setText(stuckBtn, R.noticeButtons[kind] || R.noticeButtons.stuck);
    toggle(stuckBtn, 'primary', kind !== 'lost'); // a lost game plays on: its ways out wait quietly
    const judged = Boolean(view && 'winnable' in view && phase === 'racing' && !s.done);
    show(badge, judged);
    if (judged) {
      const word = badgeOf(view);
      badge.dataset.winnable = word.key;
      badge.dataset.lost = view.lost || '';
      setText(badge, word.text);
      setAttr(badge, 'title', word.title);
    }

    const finished = mine && mine.status === 'finished';
    const over = s.done && phase === 'racing';
    show(done, Boolean(over) && !doneHidden);
    show(finishedBtn, Boolean(over) && doneHidden);
    if (over) {
      setText(doneTitle, finished ? R.finishedTitle(finishText(mine, { mine: true }))
        : view && view.state === 'won' ? R.youFinished : R.raceOver);
      const left = room.deadline && settings.time_limit ? R.endsAtLatest(duration(room.deadline - clock.now())) : '';
      setText(doneText, challenge.isChallenge(room)
        ? R.challengeOpen(clock.dayAndTime(room.deadline), timeLeft(room.deadline - clock.now()))
        : R.waitingOthers(left));
      donePodium.render(ranking.lines, { me: s.seat, visible: ranking.total > 1 });
    }

    const playing = commands.playing(app);
    const live = phase === 'racing' && !s.done;
    show(undoBtn, Boolean(settings.undo));
    undoBtn.disabled = !playing || !view || view.undo === 0;
    show(hintBtn, Boolean(settings.hints));
    hintBtn.disabled = !playing;
    show(completeBtn, Boolean(live && view && (view.autocomplete || ui.completing)));
    setText(completeLabel, ui.completing ? R.stop : R.complete);
    show(newBtn, solo);
    const recycle = Boolean(view && stockMove(view.legal) === 'recycle');
    show(drawBtn, live && Boolean(view));
    show(handBtn, live && Boolean(view));
    drawBtn.disabled = !playing; // with nothing to draw, a press says why, as the stock does
    setText(drawLabel, recycle ? R.turnOver : R.draw);
    setText(drawCount, view ? String(view.stock) : '');
    setAttr(drawBtn, 'aria-label', view ? R.drawPad(recycle, TEXT.board.stock(cardCount(view.stock))) : null);
    toggle(el, 'left-hand', hand === 'left');
    setAttr(handBtn, 'aria-pressed', hand === 'left' ? 'true' : 'false');
    show(resignBtn, live);
    resignBtn.firstChild.textContent = ui.confirmResign ? R.reallyResign : R.resign;
    toggle(resignBtn, 'danger', ui.confirmResign);
    show(resultsBtn, phase === 'ended' && ui.resultsHidden);
    toggle(el, 'busy', s.pending.length > 0);

    const stuckSeats = kind === 'stuck' ? new Set([s.seat]) : null;
    podium.render(ranking.lines, { me: s.seat, visible: ranking.total > 1 && phase !== 'ended' });
    const isChallenge = challenge.isChallenge(room);
    if (big) renderBig(s, { ranking, scoring, phase, stuck: stuckSeats, challenge: isChallenge });
    else {
      leaderboard.render(ranking.lines, { me: s.seat, mine, total: ranking.total, scoring, phase, stuck: stuckSeats,
        challenge: isChallenge, ratings: ratingsOf(room) });
    }
    if (isChallenge && !challengeSide) challengeSide = makeChallengeSide();
    if (challengeSide) {
      show(challengeSide.ghosts.el, isChallenge);
      challengeSide.replays.render(s, isChallenge ? (phase === 'ended' && room.results ? room.results : ranking.lines) : []);
      if (isChallenge) renderGhosts(s, clock.now());
    }
    if (bigSide) for (const part of [bigSide.hist, bigSide.place]) show(part.el, big && part.el.dataset.on === '1');
    if (bigSide) show(bigSide.fieldBtn, big);
    results.render(room, { me: s.seat, visible: !ui.resultsHidden && !stopCascade,
      field: big ? { mine: ranking.mine, total: ranking.total } : null });
  }

  /** Say once, quietly (a message, no notice over the board), that the
  solver found the deal never winnable, or that a move lost the game and how
  many undos back it can still be won. */
  function tellLost(s, view, back) {
    if (view.winnable !== 'no') {
      toldLost = null;
      return;
    }
    if (!view.lost || (view.lost === 'move' && !back)) return;
    const told = `${s.roomId}/${s.race}/${view.lost}`;
    if (toldLost === told) return; // until it is winnable again (never, for a lost deal)
    toldLost = told;
    say(view.lost === 'deal' ? R.dealLost(view.scoring === 'V') : R.moveLost(back));
  }

  /** A big room's side: the top lines, the field's picture, the own place
  with the lines just above and below it ("37th of 4 212"). */
  function renderBig(s, { ranking, scoring, phase, stuck, challenge: isChallenge }) {
    if (!bigSide) bigSide = makeBigSide();
    const f = s.field;
    const top = f.top;
    leaderboard.render(ranking.lines, { me: s.seat, total: top ? top.n : ranking.total, scoring, phase, stuck,
      title: TEXT.leaderboard.title, challenge: isChallenge });
    const racing = phase === 'racing' || phase === 'ended';
    bigSide.hist.el.dataset.on = top && racing ? '1' : '';
    if (top && racing) {
      bigSide.hist.render(top.hist, { status: top.status, mark: s.view ? s.view.foundation_cards : null });
    }
    const place = f.place;
    bigSide.place.el.dataset.on = place && racing ? '1' : '';
    if (place && racing) {
      bigSide.place.render(paging.around(place, ranking.mine), { me: s.seat, scoring, phase, stuck,
        title: R.you(placeOf(place.rank, place.of)), challenge: isChallenge });
    }
    setText(bigSide.fieldBtn, R.findPlayer(count(top ? top.n : ranking.total)));
  }

  return {
    el,
    show() {
      el.hidden = false;
      document.addEventListener('keydown', onKey);
      document.addEventListener('pointerdown', onPress, true);
      timer = setInterval(tick, 250);
    },
    hide() {
      el.hidden = true;
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPress, true);
      clearInterval(timer);
      if (stopCascade) stopCascade();
    },
    render,
  };
}
