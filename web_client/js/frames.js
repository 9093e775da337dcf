/** What each frame of a room does to the state (docs/protocol.md): entered,
left, the room's snapshot and events with their versions, the leaderboard,
the own board and the answers to our commands, refusals, hints, spectators'
boards. A big room's own frames are field.js's; a tournament's are
tournament.js's (app.js sends each frame to its owner).

After every frame: the input queue gets its chance (an answer may have made
room for the next command), finishes are announced, and the page redraws.
*/

import { resetRoom, resetUi } from './state.js';
import * as storage from './storage.js';
import { go, watchAddress } from './navigation.js';
import { say } from './messages.js';
import { TEXT, reasonText } from './text.js';
import { finishText, newFinishes } from './ranking.js';
import { nextStep, resendLater, resendPending, startCompleting, stopCompleting } from './commands.js';
import { onLeft } from './rooms.js';
import * as field from './field.js';
import * as challenge from './challenge.js';
import * as player from './player.js';

/** A frame of the room's protocol (or a big room's, or a challenge's). */
export function onFrame(app, msg) {
  const handler = HANDLERS[msg.t] || field.HANDLERS[msg.t] || challenge.HANDLERS[msg.t];
  if (handler) handler(app, msg.d || {});
  for (const fn of app.settled) fn();
  announce(app);
  app.changed();
}

/** "Alice finished 1st in 4:22", to everyone in the room, as it happens (the
finisher's own table celebrates instead; a solo game has nobody to tell).
A big room's are the finishes its top lines show: the first finishers, never
one per finisher of the whole field. */
function announce(app) {
  const s = app.state;
  if (!s.room || s.room.settings.solo) return;
  const lines = field.isBig(s.room) ? field.topLines(s.field) : s.entries;
  for (const line of newFinishes(s.finishes, `${s.room.id}/${s.room.race}`, lines)) {
    if (s.role === 'player' && line.seat === s.seat) continue;
    say(finishText(line), { tone: 'win' });
  }
}

/** An ack's `change` applied to the view it follows: each column and
foundation it names replaced, anything else whole (docs/protocol.md, `ack`). */
function applyChange(view, change) {
  const next = { ...view, ...change };
  if (change.tableau) {
    next.tableau = view.tableau.slice();
    for (const [i, column] of Object.entries(change.tableau)) next.tableau[Number(i)] = column;
  }
  if (change.foundations) next.foundations = { ...view.foundations, ...change.foundations };
  return next;
}

/** A notice put aside comes back once its cause has gone and returns; the
"can no longer be won" notice, opened only when asked, closes with its cause. */
function noticesAfter(s, view) {
  if (view.winnable !== 'no') s.ui.lostOpen = false;
  if (!view.no_progress) s.ui.idleHidden = false;
}

const HANDLERS = {
  /** The lobby's list of public races (docs/protocol.md, "Races to find"). */
  rooms(app, d) {
    app.state.lobby.list = d;
  },

  joined(app, d) {
    const s = app.state;
    const same = d.room === s.roomId && d.seat === s.seat;
    const typed = s.entering && s.entering.t === 'solo' ? s.entering.d.code : null;
    if (!same) resetRoom(s);
    Object.assign(s, { role: 'player', roomId: d.room, seat: d.seat, token: d.token });
    if (typed) s.ownCode = typed.trim().toUpperCase(); // the player's own code: theirs to see
    s.entering = null;
    storage.saveSeat(s);
    if (!s.tour) go(`/r/${d.room}`); // a tournament's round stays on the tournament's page
  },

  watching(app, d) {
    const s = app.state;
    s.entering = null;
    s.role = 'spectator';
    s.roomId = d.room;
    field.followAgain(app); // a new connection follows nobody yet
    if (!s.tour && !watchAddress(d.room)) go(`/r/${d.room}?watch`);
  },

  left(app) {
    if (app.state.tour) { // never asked for on a tournament's page: its rounds' rooms are switched by reconnecting
      resetRoom(app.state);
      return;
    }
    onLeft(app);
  },

  sync(app, d) {
    const s = app.state;
    if (d.reason === 'rollback') { // the server has less than we saw: its board comes next
      s.pending = [];
      say(TEXT.rollback, { bad: true });
    }
    s.v = d.v;
    s.room = d.room;
    s.entries = d.entries || [];
    field.onSync(s, d);
    if (s.role === 'spectator' && d.room.phase === 'lobby') s.boards = {};
    storage.saveSeat(s);
  },

  event(app, d) {
    const s = app.state;
    if (d.v <= s.v) return;
    s.v = d.v;
    applyEvent(app, d, true);
    storage.saveSeat(s);
  },

  events(app, d) {
    const s = app.state;
    for (const e of d.events || []) {
      if (e.v > s.v) {
        s.v = e.v;
        applyEvent(app, e, false);
      }
    }
    s.v = Math.max(s.v, d.to || 0);
    storage.saveSeat(s);
  },

  lb(app, d) {
    const s = app.state;
    s.v = Math.max(s.v, d.v || 0);
    s.entries = d.entries || [];
    storage.saveSeat(s);
  },

  board(app, d) {
    const s = app.state;
    if (d.race !== s.race) {
      s.race = d.race;
      s.seq = d.s;
      s.pending = [];
      resetUi(s);
    } else {
      s.pending = s.pending.filter((c) => c.d.s > d.s);
      s.seq = Math.max(s.seq, d.s, ...s.pending.map((c) => c.d.s));
    }
    s.view = d.view;
    s.viewSeq = d.s;
    s.done = d.done;
    s.started = d.started ?? null;
    noticesAfter(s, d.view);
    Object.assign(s.ui, { ghost: false, selected: null, refused: null, panel: null });
    storage.saveSeat(s);
    resendPending(app);
  },

  ack(app, d) {
    const s = app.state;
    if (!d.view && !s.view) { // a change with nothing to apply it to: the resume's board is whole
      app.socket.restart();
      return;
    }
    const i = s.pending.findIndex((c) => c.d.s === d.s);
    const cmd = i >= 0 ? s.pending[i] : null;
    if (i >= 0) s.pending.splice(0, i + 1);
    const view = d.view || applyChange(s.view, d.change);
    if (view.state === 'won' && s.view && s.view.state !== 'won') s.ui.justWon = true;
    s.view = view;
    s.viewSeq = d.s;
    s.done = s.done || view.state === 'won' || (cmd != null && cmd.t === 'resign');
    Object.assign(s.ui, { ghost: false, selected: null, refused: null, panel: null, hint: null, stuckHidden: false,
      confirmResign: false });
    noticesAfter(s, view);
    field.onAck(s, d);
    storage.saveSeat(s);
    nextStep(app);
  },

  /** What was judged of the position after command `s` once we paused: the
  solver's word (`winnable`, `back`), or `no_progress`; only the fields it has. */
  status(app, d) {
    const s = app.state;
    if (!s.view || d.s !== s.viewSeq) return; // about a position we have left
    const { s: _, ...judged } = d;
    s.view = { ...s.view, lost: null, ...judged };
    noticesAfter(s, s.view);
  },

  reject(app, d) {
    const s = app.state;
    if (d.s != null) {
      const cmd = s.pending.find((c) => c.d.s === d.s);
      if (d.code === 'unavailable' && cmd) {
        resendLater(app, 1000);
        say(reasonText(d), { bad: true });
        return;
      }
      s.pending = s.pending.filter((c) => c.d.s !== d.s);
      s.ui.ghost = false;
      s.ui.completing = null;
      s.ui.undoing = 0;
      storage.saveSeat(s);
      if (d.code === 'stale') {
        app.socket.restart(); // the resume's board says where the seat really is
        return;
      }
      if (d.code === 'not_playing') s.done = true;
      say(reasonText(d), { bad: true });
      return;
    }
    if (d.code === 'flood') {
      resendLater(app, 1500);
      return;
    }
    if (d.code === 'already_in_room') return; // asked twice on one connection: the first answer stands
    if (field.onReject(s, d)) return;
    if ((d.cmd === 'resume' || d.cmd === 'watch') && (d.code === 'unavailable' || d.code === 'internal')) {
      say(reasonText(d), { bad: true });
      app.timers.after('retry', 2000, () => app.socket.restart()); // the seat is still ours: ask again
      return;
    }
    if (d.cmd === 'watch' && d.code === 'own_race') { // our seat races there: play it, don't watch it
      const room = s.roomId;
      resetRoom(s);
      s.formError = TEXT.ownRace(room);
      go('/');
      return;
    }
    if (d.cmd === 'resume' || d.cmd === 'watch') {
      const room = s.roomId;
      storage.dropSeat(room);
      resetRoom(s);
      s.formError = d.code === 'unknown_room' ? TEXT.roomGone(room) : TEXT.seatLost;
      go(d.code === 'unknown_room' ? '/' : `/r/${room}`);
      return;
    }
    if (s.entering && d.cmd === s.entering.t) {
      s.entering = null;
      s.formError = reasonText(d);
      return;
    }
    if (d.cmd === 'complete') s.ui.completing = null;
    say(reasonText(d), { bad: true });
  },

  hint(app, d) {
    const s = app.state;
    if (d.s != null && d.s !== s.viewSeq) return; // asked before the last move: stale
    if (!d.m) {
      s.ui.hint = null;
      say(TEXT.noUsefulMove);
      return;
    }
    const [from, to] = d.m === 'draw' || d.m === 'recycle' ? ['stock', 'stock'] : d.m.split('>');
    const [pile, n] = from.split(':');
    s.ui.hint = { m: d.m, from: pile, count: n ? Number(n) : 1, to };
    s.ui.selected = null;
  },

  complete(app, d) {
    startCompleting(app, d.moves || []);
  },

  boards(app, d) {
    const s = app.state;
    s.v = Math.max(s.v, d.v || 0);
    s.boards = { ...s.boards, ...(d.boards || {}) };
  },
};

function applyEvent(app, e, live) {
  const s = app.state;
  if (e.kind === 'progress') {
    upsertEntries(s, [e.entry]);
    if (e.board && s.role === 'spectator') s.boards = { ...s.boards, [e.seat]: e.board };
    return;
  }
  if (e.kind === 'presence') return;
  if (e.room) s.room = e.room;
  if (e.reset) s.entries = [];
  if (e.entries) upsertEntries(s, e.entries);
  if (e.dropped) s.entries = s.entries.filter((x) => !e.dropped.includes(x.seat));
  field.onRoomEvent(s, e.kind);
  switch (e.kind) {
    case 'start':
      if (s.race !== e.race) {
        s.race = e.race;
        s.seq = 0;
        s.pending = [];
        s.view = null;
        s.done = false;
        resetUi(s);
      }
      if (s.role === 'spectator') s.boards = {};
      break;
    case 'ended':
      stopCompleting(app);
      s.ui.resultsHidden = false;
      if (live && s.afterEnd && s.room.code) {
        const next = s.afterEnd;
        s.afterEnd = null;
        next(s.room.code);
      }
      break;
    case 'rematch':
      s.view = null;
      s.done = false;
      s.boards = {};
      s.ghosts = null;
      resetUi(s);
      if (live) say(TEXT.rematch);
      break;
    case 'rated':
      player.onRated(s, e);
      break;
    case 'left':
      if (live && e.host === s.seat && e.seat !== s.seat) say(TEXT.youAreHost);
      break;
    case 'host': // a big room's new host
      if (live && e.seat === s.seat && s.role === 'player') say(TEXT.youAreHost);
      break;
    default:
      break;
  }
}

function upsertEntries(s, lines) {
  const bySeat = new Map(s.entries.map((x) => [x.seat, x]));
  for (const line of lines) bySeat.set(line.seat, { ...bySeat.get(line.seat), ...line });
  s.entries = [...bySeat.values()].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99));
}
