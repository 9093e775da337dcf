/** The protocol (docs/protocol.md) on the client side: entering rooms, room
events and versions, the own game's commands with their sequence numbers,
resends after a reconnect, and what the server refused.

Everything the server says lands in `state`; views draw it. Game commands
go one at a time: the next waits for the answer to the one before, whose
view lists the moves that are legal then.
*/

import { state, changed, resetRoom, resetUi, phaseAt } from './state.js';
import * as storage from './storage.js';
import { say } from './messages.js';
import { serverNow } from './clock.js';
import { finishText, finishWatcher } from './ranking.js';
import * as field from './field.js';

let socket = null;
let after = null; // what to do once the current room is left: {t, d}
let completeTimer = 0;
let undoTimer = 0; // the next undo of an undoBack
let retryTimer = 0;

export function init(sock) {
  socket = sock;
}

// ------------------------------------------------------------------ entering

/** Take back a seat kept from before a reload. */
export function restoreSeat(saved) {
  Object.assign(state, {
    roomId: saved.room, seat: saved.seat, token: saved.token, race: saved.race || 0,
    seq: saved.s || 0, pending: Array.isArray(saved.pending) ? saved.pending : [],
    v: saved.room_state ? saved.v || 0 : 0, room: saved.room_state || null,
    entries: saved.entries || [], ownCode: saved.own_code || '',
  });
  state.field.ready = Boolean(saved.ready);
}

export function watchRoom(room) {
  state.roomId = room;
  state.role = 'spectator';
}

/** A `watch`, with the seat token this browser keeps for the room (on a
tournament's page, its player token), so that the server can tell one of
the room's racers, who is refused (`own_race`): a racer's spectator view would
show the others' boards, and so the cards face down on the racer's own. */
export function watchRequest(room, since) {
  const seat = storage.loadSeat(room);
  const token = (seat && seat.token) || (state.tour && state.tour.token) || '';
  return token ? { room, since, token } : { room, since };
}

/** Create, join, solo or watch: sent now if connected, else once greeted. */
export function enter(t, d) {
  state.formError = '';
  state.entering = { t, d, sent: false };
  if (socket.ready) sendEntering();
  else socket.connect();
  changed();
}

function sendEntering() {
  const e = state.entering;
  if (!e || e.sent) return;
  e.sent = socket.send(e.t, e.d);
}

/** After `hello`: say which room this connection is for. */
export function onOpen() {
  if (!enterRoom() && state.entering) sendEntering();
  changed();
}

/** Resume our seat or watch the room the state names; false if it names none. */
export function enterRoom() {
  if (state.token && state.roomId) {
    return socket.send('resume', { room: state.roomId, token: state.token, since: state.room ? state.v : 0 });
  }
  if (state.role === 'spectator' && state.roomId) {
    return socket.send('watch', watchRequest(state.roomId, state.room ? state.v : 0));
  }
  return false;
}

export function onClose(code) {
  clearTimeout(completeTimer);
  state.ui.completing = null; // the player asks again once back
  if (state.entering && state.entering.sent) {
    state.entering = null;
    state.formError = 'The connection was lost: try again.';
  }
  if (code === 4000) {
    state.conn = 'taken';
  } else if ((code === 4001 || code === 4002) && state.tour) {
    forgetSeat(); // a tournament's round: its page stays, and says why (tournament.js)
    socket.connect();
  } else if (code === 4001 || code === 4002) {
    const kicked = code === 4001;
    forgetSeat();
    go('/');
    say(kicked ? 'The host removed you from the room.' : 'You left the room.', { bad: kicked });
    socket.connect();
  }
  changed();
}

export function onFrame(msg) {
  const handler = HANDLERS[msg.t] || field.HANDLERS[msg.t];
  if (handler) handler(msg.d || {});
  for (const fn of settled) fn();
  announce();
  changed();
}

const lookAtFinishes = finishWatcher();

/** "Alice finished 1st in 4:22", to everyone in the room, as it happens (the
finisher's own table celebrates instead; a solo game has nobody to tell).
A big room's are the finishes its top lines show: the first finishers, never
one per finisher of the whole field. */
function announce() {
  if (!state.room || state.room.settings.solo) return;
  const lines = field.isBig(state.room) ? field.topLines(state.field) : state.entries;
  const fresh = lookAtFinishes(`${state.room.id}/${state.room.race}`, lines);
  for (const line of fresh) {
    if (state.role === 'player' && line.seat === state.seat) continue;
    say(finishText(line), { tone: 'win' });
  }
}

const settled = [];
/** `fn` runs after every frame: an answer may have made room for the next command. */
export function onSettled(fn) {
  settled.push(fn);
}

// ------------------------------------------------------------------ frames

const HANDLERS = {
  joined(d) {
    const same = d.room === state.roomId && d.seat === state.seat;
    const typed = state.entering && state.entering.t === 'solo' ? state.entering.d.code : null;
    if (!same) resetRoom();
    Object.assign(state, { role: 'player', roomId: d.room, seat: d.seat, token: d.token });
    if (typed) state.ownCode = typed.trim().toUpperCase(); // the player's own code: theirs to see
    state.entering = null;
    persist();
    if (!state.tour) go(`/r/${d.room}`); // a tournament's round stays on the tournament's page
  },

  watching(d) {
    state.entering = null;
    state.role = 'spectator';
    state.roomId = d.room;
    field.followAgain(); // a new connection follows nobody yet
    if (!state.tour && !field.watchAddress(d.room)) go(`/r/${d.room}?watch`);
  },

  left() {
    if (state.tour) { // never asked for on a tournament's page: its rounds' rooms are switched by reconnecting
      resetRoom();
      return;
    }
    if (state.roomId) storage.dropSeat(state.roomId);
    resetRoom();
    const next = after;
    after = null;
    if (next) enter(next.t, next.d);
    else go('/');
  },

  sync(d) {
    if (d.reason === 'rollback') { // the server has less than we saw: its board comes next
      state.pending = [];
      say('The server lost its latest moves: the race goes on from where it stands.', { bad: true });
    }
    state.v = d.v;
    state.room = d.room;
    state.entries = d.entries || [];
    field.onSync(d);
    if (state.role === 'spectator' && d.room.phase === 'lobby') state.boards = {};
    persist();
  },

  event(d) {
    if (d.v <= state.v) return;
    state.v = d.v;
    applyEvent(d, true);
    persist();
  },

  events(d) {
    for (const e of d.events || []) {
      if (e.v > state.v) {
        state.v = e.v;
        applyEvent(e, false);
      }
    }
    state.v = Math.max(state.v, d.to || 0);
    persist();
  },

  lb(d) {
    state.v = Math.max(state.v, d.v || 0);
    state.entries = d.entries || [];
    persist();
  },

  board(d) {
    if (d.race !== state.race) {
      state.race = d.race;
      state.seq = d.s;
      state.pending = [];
      resetUi();
    } else {
      state.pending = state.pending.filter((c) => c.d.s > d.s);
      state.seq = Math.max(state.seq, d.s, ...state.pending.map((c) => c.d.s));
    }
    state.view = d.view;
    state.viewSeq = d.s;
    state.done = d.done;
    noticesAfter(d.view);
    state.ui.ghost = false;
    state.ui.selected = null;
    state.ui.panel = null;
    persist();
    resendPending();
  },

  ack(d) {
    const i = state.pending.findIndex((c) => c.d.s === d.s);
    const cmd = i >= 0 ? state.pending[i] : null;
    if (i >= 0) state.pending.splice(0, i + 1);
    if (d.view.state === 'won' && state.view && state.view.state !== 'won') state.ui.justWon = true;
    state.view = d.view;
    state.viewSeq = d.s;
    state.done = state.done || d.view.state === 'won' || (cmd != null && cmd.t === 'resign');
    Object.assign(state.ui, { ghost: false, selected: null, panel: null, hint: null, stuckHidden: false,
      confirmResign: false });
    noticesAfter(d.view);
    field.onAck(d);
    persist();
    if (state.ui.completing) completeTimer = setTimeout(completeStep, 140);
    if (state.ui.undoing) undoTimer = setTimeout(undoStep, 60);
  },

  /** The solver's word on the position after command `s` (rooms with solver assists). */
  status(d) {
    if (!state.view || d.s !== state.viewSeq) return; // about a position we have left
    state.view = { ...state.view, winnable: d.winnable, back: d.back };
    noticesAfter(state.view);
  },

  reject(d) {
    if (d.s != null) {
      const cmd = state.pending.find((c) => c.d.s === d.s);
      if (d.code === 'unavailable' && cmd) {
        clearTimeout(retryTimer);
        retryTimer = setTimeout(resendPending, 1000);
        say(d.msg, { bad: true });
        return;
      }
      state.pending = state.pending.filter((c) => c.d.s !== d.s);
      state.ui.ghost = false;
      state.ui.completing = null;
      state.ui.undoing = 0;
      persist();
      if (d.code === 'stale') {
        socket.restart(); // the resume's board says where the seat really is
        return;
      }
      if (d.code === 'not_playing') state.done = true;
      say(d.msg, { bad: true });
      return;
    }
    if (d.code === 'flood') {
      clearTimeout(retryTimer);
      retryTimer = setTimeout(resendPending, 1500);
      return;
    }
    if (d.code === 'already_in_room') return; // asked twice on one connection: the first answer stands
    if (field.onReject(d)) return;
    if ((d.cmd === 'resume' || d.cmd === 'watch') && (d.code === 'unavailable' || d.code === 'internal')) {
      say(d.msg, { bad: true });
      clearTimeout(retryTimer);
      retryTimer = setTimeout(() => socket.restart(), 2000); // the seat is still ours: ask again
      return;
    }
    if (d.cmd === 'watch' && d.code === 'own_race') { // our seat races there: play it, don't watch it
      const room = state.roomId;
      resetRoom();
      state.formError = `You race in room ${room}: watching it would show you your own face-down cards. `
        + 'Go back to your table, or watch once the race is over.';
      go('/');
      return;
    }
    if (d.cmd === 'resume' || d.cmd === 'watch') {
      const room = state.roomId;
      storage.dropSeat(room);
      resetRoom();
      state.formError = d.code === 'unknown_room'
        ? `Room ${room} is gone (or never was).`
        : 'That seat is no longer yours: join the room again.';
      go(d.code === 'unknown_room' ? '/' : `/r/${room}`);
      return;
    }
    if (state.entering && d.cmd === state.entering.t) {
      state.entering = null;
      state.formError = d.msg;
      return;
    }
    if (d.cmd === 'complete') state.ui.completing = null;
    say(d.msg, { bad: true });
  },

  hint(d) {
    if (d.s != null && d.s !== state.viewSeq) return; // asked before the last move: stale
    if (!d.m) {
      state.ui.hint = null;
      say('No useful move: draw, undo or resign.');
      return;
    }
    const [from, to] = d.m === 'draw' || d.m === 'recycle' ? ['stock', 'stock'] : d.m.split('>');
    const [pile, n] = from.split(':');
    state.ui.hint = { m: d.m, from: pile, count: n ? Number(n) : 1, to };
    state.ui.selected = null;
  },

  complete(d) {
    state.ui.completing = { moves: d.moves || [], i: 0 };
    completeStep();
  },

  boards(d) {
    state.v = Math.max(state.v, d.v || 0);
    state.boards = { ...state.boards, ...(d.boards || {}) };
  },
};

function applyEvent(e, live) {
  if (e.kind === 'progress') {
    upsertEntries([e.entry]);
    if (e.board && state.role === 'spectator') state.boards = { ...state.boards, [e.seat]: e.board };
    return;
  }
  if (e.kind === 'presence') return;
  if (e.room) state.room = e.room;
  if (e.reset) state.entries = [];
  if (e.entries) upsertEntries(e.entries);
  if (e.dropped) state.entries = state.entries.filter((x) => !e.dropped.includes(x.seat));
  field.onRoomEvent(e.kind);
  switch (e.kind) {
    case 'start':
      if (state.race !== e.race) {
        state.race = e.race;
        state.seq = 0;
        state.pending = [];
        state.view = null;
        state.done = false;
        resetUi();
      }
      if (state.role === 'spectator') state.boards = {};
      break;
    case 'ended':
      state.ui.completing = null;
      state.ui.resultsHidden = false;
      if (live && state.afterEnd && state.room.code) {
        const next = state.afterEnd;
        state.afterEnd = null;
        next(state.room.code);
      }
      break;
    case 'rematch':
      state.view = null;
      state.done = false;
      state.boards = {};
      resetUi();
      if (live) say('Rematch! A new deal is waiting.');
      break;
    case 'left':
      if (live && e.host === state.seat && e.seat !== state.seat) say('You are the host now.');
      break;
    case 'host': // a big room's new host
      if (live && e.seat === state.seat && state.role === 'player') say('You are the host now.');
      break;
    default:
      break;
  }
}

function upsertEntries(lines) {
  const bySeat = new Map(state.entries.map((x) => [x.seat, x]));
  for (const line of lines) bySeat.set(line.seat, { ...bySeat.get(line.seat), ...line });
  state.entries = [...bySeat.values()].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99));
}

// ------------------------------------------------------------------ the own game

/** The room's phase now; our own board's arrival also says the race has begun
(whatever our estimate of the server's clock says). */
export function phase() {
  const now = phaseAt(state.room, serverNow());
  if (now === 'countdown' && state.view && state.room && state.race === state.room.race) return 'racing';
  return now;
}

/** Whether our game is on: racing, with a board, and not over for us. */
export function playing() {
  return state.role === 'player' && state.view != null && !state.done && phase() === 'racing';
}

/** Whether a game command may go now (playing, and nothing awaiting an answer). */
export function canPlay() {
  return playing() && state.pending.length === 0;
}

function game(t, d) {
  if (!canPlay()) return false;
  const cmd = { t, d: { ...d, s: ++state.seq } };
  state.pending.push(cmd);
  persist();
  socket.send(t, cmd.d);
  changed();
  return true;
}

/** A notice put aside comes back once its cause has gone and returns. */
function noticesAfter(view) {
  if (view.winnable !== 'no') state.ui.lostHidden = false;
  if (!view.no_progress) state.ui.idleHidden = false;
}

export const move = (m) => game('move', { m });
export const undo = () => game('undo', {});
export const resign = () => game('resign', {});

export function hint() {
  if (!canPlay()) return;
  if (state.ui.hint && state.view.legal.includes(state.ui.hint.m)) {
    move(state.ui.hint.m); // asked twice: play it
    return;
  }
  socket.send('hint');
}

/** Undo `n` moves, one per answer (the last winnable position, as the solver said). */
export function undoBack(n) {
  state.ui.undoing = n;
  undoStep();
}

function undoStep() {
  if (!state.ui.undoing || state.pending.length) return;
  state.ui.undoing -= 1;
  if (!undo()) state.ui.undoing = 0;
}

/** Auto-complete: ask for the moves, then play them one by one; again stops it. */
export function complete() {
  if (state.ui.completing) {
    state.ui.completing = null;
    clearTimeout(completeTimer);
    changed();
    return;
  }
  if (canPlay() && state.view.autocomplete) socket.send('complete');
}

function completeStep() {
  const run = state.ui.completing;
  if (!run || state.pending.length) return;
  const m = run.moves[run.i];
  if (m == null || !state.view || !state.view.legal.includes(m)) {
    state.ui.completing = null;
    changed();
    return;
  }
  run.i += 1;
  if (!move(m)) state.ui.completing = null;
}

function resendPending() {
  for (const cmd of state.pending) socket.send(cmd.t, cmd.d);
}

// ------------------------------------------------------------------ the room

export function ready(on) {
  if (!socket.send('ready', { ready: on })) return offline();
  if (field.isBig(state.room)) { // announced to nobody: the flag is ours to remember
    state.field.ready = on;
    persist();
    changed();
  }
  return true;
}
export const start = () => socket.send('start') || offline();
/** A big room's host sets the race's start time (server time, ms). */
export const startAt = (at) => socket.send('start', { at }) || offline();
export const kick = (seat) => socket.send('kick', { seat }) || offline();
export const rematch = () => socket.send('rematch') || offline();

function offline() {
  say('Not connected: wait a moment and try again.', { bad: true });
  return false;
}

/** Leave the room (as a racer: marked "left"), then maybe enter another. */
export function leave(next = null) {
  after = next;
  if (state.roomId && socket.ready && (state.role === 'player' || state.role === 'spectator')) {
    socket.send('leave');
    return;
  }
  if (state.roomId && state.role !== 'spectator') storage.dropSeat(state.roomId);
  resetRoom();
  after = null;
  if (next) {
    socket.restart();
    enter(next.t, next.d);
  } else {
    go('/');
  }
}

/** Play alone: `d` is {nickname, code} or {nickname, draw, scoring}; leaves the room first. */
export function solo(d) {
  const next = { t: 'solo', d };
  if (state.roomId) leave(next);
  else enter(next.t, next.d);
}

/** The deal of this game again, alone: the code is known when the player typed
it, or public once the race is over; else this solo game is resigned first and
the code the server then reveals is played again (a race's code is never
asked for before its end: the server would not tell, and we do not try). */
export function sameDealAgain(nickname, resignNow) {
  const room = state.room;
  const assists = keptAssists(room);
  if (state.ownCode) return solo({ nickname, code: state.ownCode, assists });
  if (room && room.phase === 'ended' && room.code) return solo({ nickname, code: room.code, assists });
  if (!room || !room.settings.solo) return false;
  state.afterEnd = (code) => solo({ nickname, code, assists });
  resignNow();
  return true;
}

/** The assists a solo game played again keeps: the room's (older servers: from its hints). */
export function keptAssists(room) {
  const s = room ? room.settings : {};
  return s.assists || (s.hints === false ? 'off' : 'basic');
}

/** Take a seat back after it was opened elsewhere (close code 4000). */
export function takeBack() {
  state.conn = 'connecting';
  socket.connect();
  changed();
}

/** Forget the current room without telling the server (back to the lobby). */
export function detach() {
  resetRoom();
  state.entering = null;
  socket.restart();
}

function forgetSeat() {
  if (state.roomId) storage.dropSeat(state.roomId);
  resetRoom();
}

export function nicknameOf(seat) {
  if (field.isBig(state.room)) return field.names(state.field).get(seat) || '';
  const p = state.room && state.room.players.find((x) => x.seat === seat);
  return p ? p.nickname : '';
}

function persist() {
  if (state.role !== 'player' || !state.token) return;
  storage.saveSeat({
    room: state.roomId, seat: state.seat, token: state.token, race: state.race, s: state.seq,
    pending: state.pending, v: state.v, room_state: state.room, entries: state.entries,
    own_code: state.ownCode || undefined, ready: state.field.ready || undefined,
    tournament: (state.room && state.room.settings.tournament) || (state.tour && state.tour.id) || undefined,
  });
}

/** Change the address; main.js listens and routes. */
let navigate = () => {};
export function onNavigate(fn) {
  navigate = fn;
}
export function go(path) {
  if (location.pathname + location.search !== path) {
    history.pushState(null, '', path);
    navigate();
  }
}
