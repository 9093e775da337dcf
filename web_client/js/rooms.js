/** Which room this connection is in (docs/protocol.md, "Entering a room",
"In the lobby"): entering one (create, join, solo, watch, or resuming a kept
seat), the room's own commands (ready, start, remove a player, rematch),
leaving it, and what a closed connection means for the seat.

Every function that acts takes the app (app.js); the answers come back as
frames (frames.js).
*/

import { resetRoom } from './state.js';
import * as storage from './storage.js';
import { go } from './navigation.js';
import { say } from './messages.js';
import { TEXT } from './text.js';
import { stopCompleting } from './commands.js';
import * as field from './field.js';

// ------------------------------------------------------------------ entering

/** Watch `room` on this page (the address says so, or a tournament's round). */
export function watchRoom(s, room) {
  s.roomId = room;
  s.role = 'spectator';
}

/** A `watch`, with the seat token this browser keeps for the room (on a
tournament's page, its player token), so that the server can tell one of
the room's racers, who is refused (`own_race`): a racer's spectator view would
show the others' boards, and so the cards face down on the racer's own. */
export function watchRequest(s, room, since) {
  const seat = storage.loadSeat(room);
  const token = (seat && seat.token) || (s.tour && s.tour.token) || '';
  return token ? { room, since, token } : { room, since };
}

/** Create, join, solo or watch: sent now if connected, else once greeted. */
export function enter(app, t, d) {
  const s = app.state;
  s.formError = '';
  s.entering = { t, d, sent: false };
  if (app.socket.ready) sendEntering(app);
  else app.socket.connect();
  app.changed();
}

function sendEntering(app) {
  const e = app.state.entering;
  if (!e || e.sent) return;
  e.sent = app.socket.send(e.t, e.d);
}

/** After `hello`: say which room this connection is for (or, in the lobby,
ask again for the list of public races). */
export function onOpen(app) {
  const s = app.state;
  if (!enterRoom(app)) {
    if (s.lobby.on) app.socket.send('lobby', { on: true });
    if (s.entering) sendEntering(app);
  }
  app.changed();
}

/** Follow the lobby's list of public races while the lobby shows (`on`), or
stop; the server sends a new list when it changes, every few seconds at most. */
export function followLobby(app, on) {
  const s = app.state;
  if (s.lobby.on === on) return;
  s.lobby.on = on;
  if (!on) s.lobby.list = null;
  if (app.socket.ready && (!on || !s.roomId)) app.socket.send('lobby', { on });
}

/** A quick race of this mode: the next one that starts soon, or a new one. */
export function quick(app, nickname, draw, scoring) {
  enter(app, 'quick', { nickname, draw, scoring });
}

/** Resume our seat or watch the room the state names; false if it names none. */
export function enterRoom(app) {
  const s = app.state;
  if (s.token && s.roomId) {
    return app.socket.send('resume', { room: s.roomId, token: s.token, since: s.room ? s.v : 0 });
  }
  if (s.role === 'spectator' && s.roomId) {
    return app.socket.send('watch', watchRequest(s, s.roomId, s.room ? s.v : 0));
  }
  return false;
}

/** The connection closed: 4000, the seat was opened elsewhere; 4001, the
host removed us; 4002, we left (another tab of ours did). */
export function onClose(app, code) {
  const s = app.state;
  stopCompleting(app); // the player asks again once back
  if (s.entering && s.entering.sent) {
    s.entering = null;
    s.formError = TEXT.lostWhileEntering;
  }
  if (code === 4000) {
    s.conn = 'taken';
  } else if ((code === 4001 || code === 4002) && s.tour) {
    forgetSeat(s); // a tournament's round: its page stays, and says why (tournament.js)
    app.socket.connect();
  } else if (code === 4001 || code === 4002) {
    const kicked = code === 4001;
    forgetSeat(s);
    go('/');
    say(kicked ? TEXT.removedByHost : TEXT.leftRoom, { bad: kicked });
    app.socket.connect();
  }
  app.changed();
}

/** Take a seat back after it was opened elsewhere (close code 4000). */
export function takeBack(app) {
  app.state.conn = 'connecting';
  app.socket.connect();
  app.changed();
}

// ------------------------------------------------------------------ the room's commands

export function ready(app, on) {
  const s = app.state;
  if (!app.socket.send('ready', { ready: on })) return offline();
  if (field.isBig(s.room)) { // announced to nobody: the flag is ours to remember
    s.field.ready = on;
    storage.saveSeat(s);
    app.changed();
  }
  return true;
}

export const start = (app) => app.socket.send('start') || offline();
/** A big room's host sets the race's start time (server time, ms). */
export const startAt = (app, at) => app.socket.send('start', { at }) || offline();
export const kick = (app, seat) => app.socket.send('kick', { seat }) || offline();
export const rematch = (app) => app.socket.send('rematch') || offline();

function offline() {
  say(TEXT.offline, { bad: true });
  return false;
}

// ------------------------------------------------------------------ leaving

/** Leave the room (as a racer: marked "left"), then maybe enter another. */
export function leave(app, next = null) {
  const s = app.state;
  s.after = next;
  if (s.roomId && app.socket.ready && (s.role === 'player' || s.role === 'spectator')) {
    app.socket.send('leave');
    return;
  }
  if (s.roomId && s.role !== 'spectator') storage.dropSeat(s.roomId);
  resetRoom(s);
  s.after = null;
  if (next) {
    app.socket.restart();
    enter(app, next.t, next.d);
  } else {
    go('/');
  }
}

/** The server said we left: on to what was asked next, else the lobby. */
export function onLeft(app) {
  const s = app.state;
  if (s.roomId) storage.dropSeat(s.roomId);
  resetRoom(s);
  const next = s.after;
  s.after = null;
  if (next) enter(app, next.t, next.d);
  else go('/');
}

/** Play alone: `d` is {nickname, code} or {nickname, draw, scoring}; leaves the room first. */
export function solo(app, d) {
  const next = { t: 'solo', d };
  if (app.state.roomId) leave(app, next);
  else enter(app, next.t, next.d);
}

/** The deal of this game again, alone: the code is known when the player typed
it, or public once the race is over; else this solo game is resigned first and
the code the server then reveals is played again (a race's code is never
asked for before its end: the server would not tell, and we do not try). */
export function sameDealAgain(app, nickname, resignNow) {
  const s = app.state;
  const room = s.room;
  const assists = keptAssists(room);
  if (s.ownCode) return solo(app, { nickname, code: s.ownCode, assists });
  if (room && room.phase === 'ended' && room.code) return solo(app, { nickname, code: room.code, assists });
  if (!room || !room.settings.solo) return false;
  s.afterEnd = (code) => solo(app, { nickname, code, assists });
  resignNow();
  return true;
}

/** The assists a solo game played again keeps: the room's (older servers: from its hints). */
export function keptAssists(room) {
  const settings = room ? room.settings : {};
  return settings.assists || (settings.hints === false ? 'off' : 'basic');
}

/** Forget the current room without telling the server (another address). */
export function detach(app) {
  resetRoom(app.state);
  app.state.entering = null;
  app.socket.restart();
}

/** Forget the room and the seat kept for it (removed, left, refused). */
function forgetSeat(s) {
  if (s.roomId) storage.dropSeat(s.roomId);
  resetRoom(s);
}

/** A seat's nickname, in a small room (its players) or a big one (the lines at hand). */
export function nicknameOf(s, seat) {
  if (field.isBig(s.room)) return field.names(s.field).get(seat) || '';
  const p = s.room && s.room.players.find((x) => x.seat === seat);
  return p ? p.nickname : '';
}
