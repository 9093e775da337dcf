/** Tournaments on the client side (docs/protocol.md, "Tournaments"): the
tournament this connection follows besides its room, the organizer's and the
players' commands, and which round's room the connection should be in.

A round is a room. A seated player resumes it with the tournament token, so
the race screen and the room's modules (rooms.js, frames.js, commands.js)
play it as any race (the seat kept per room in storage, resends and all);
the organizer and spectators watch it for its leaderboard and boards. When
the room to be in changes (a new round, a withdrawal), the connection is
opened afresh and enters the new one: a player never sends `leave` to a
round's room.

The organizer's key and the player's token are kept in localStorage per
tournament (storage.js), never in the address: the link to share is /t/ID.
The key moves to another device by a one-time code (`t_handoff`), opened
there as /t/ID?admin#claim=CODE or typed in (`t_claim`). A big tournament's
own frames (the player's place, pages of the standings) are tournamentfield.js's.

Everything lands in `state.tour`; every function that acts takes the app.
*/

import { resetRoom } from './state.js';
import * as storage from './storage.js';
import { go } from './navigation.js';
import { enterRoom, watchRoom } from './rooms.js';
import * as tournamentField from './tournamentfield.js';
import { say } from './messages.js';
import { TEXT, reasonText } from './text.js';

/** Follow tournament `id` on this page: as its organizer (`admin`, with the
key kept here), as the player this browser registered, or as a spectator. */
export function open(s, id, admin) {
  s.tour = {
    id, admin: '', token: '', player: -1, as: 'spectator', adminView: false,
    v: 0, t: null, // the tournament as anyone may see it (t_sync, t_event)
    error: '', // the tournament cannot be shown (unknown id)
    formError: '', // the last refusal of a registration
    busy: '', // a command awaiting its answer: "register"
    page: false, // a player looks at the tournament page during their round
    refused: '', // a room the server refused to let us enter
    sent: '', // the room this connection was asked to enter: "player:ROOM" or "spectator:ROOM"
    field: tournamentField.freshField(), // a big tournament's place, pages and look-ups (tournamentfield.js)
    handoff: null, // the organizer's one-time code for another device: {code, until}
    claiming: '', // a handoff code sent, awaiting its answer
    nickname: '', // the player's, as registered here (a big tournament lists nobody)
  };
  setView(s.tour, admin);
}

/** The organizer's page or the player's/spectator's page of the same tournament. */
export function setView(tour, admin) {
  const keys = storage.loadTournament(tour.id);
  Object.assign(tour, {
    adminView: admin, admin: keys.admin || '', token: keys.token || '',
    player: Number.isInteger(keys.player) ? keys.player : -1, nickname: keys.nickname || '',
  });
  tour.as = admin ? (tour.admin ? 'admin' : 'spectator') : (tour.token ? 'player' : 'spectator');
}

export function close(s) {
  s.tour = null;
}

// ------------------------------------------------------------------ the connection

/** After `hello`: follow the tournament, and enter the round's room we are in. */
export function onOpen(app) {
  const tour = app.state.tour;
  if (!tour) return;
  tour.sent = '';
  if (tour.token) app.socket.send('t_resume', { id: tour.id, token: tour.token });
  else app.socket.send('t_watch', { id: tour.id });
  if (tour.claiming) app.socket.send('t_claim', { id: tour.id, code: tour.claiming });
  reconcile(app);
}

function roomKey(s) {
  if (!s.roomId) return '';
  return `${s.token ? 'player' : 'spectator'}:${s.roomId}`;
}

/** The room to be in now: the running round's, as a player if seated in it. */
function wanted(tour) {
  const t = tour.t;
  const round = t && t.rounds.find((r) => r.status === 'running' && r.room);
  if (!round) return '';
  return `${tournamentField.playsRound(tour, round) ? 'player' : 'spectator'}:${round.room}`;
}

/** Be in the room `wanted` says (called after every frame). Between rounds
the room of the round before stays: nothing to do there, nothing to leave. */
export function reconcile(app) {
  const s = app.state;
  const tour = s.tour;
  if (!tour || !tour.t) return;
  const want = wanted(tour);
  if (want && want !== roomKey(s) && want !== tour.refused) {
    const [as, room] = want.split(':');
    const busy = tour.sent !== '';
    resetRoom(s);
    tour.page = false;
    if (as === 'player') {
      const saved = storage.loadSeat(room);
      const seat = saved && saved.token === tour.token ? saved : { room, seat: tour.player, token: tour.token };
      storage.restoreSeat(s, seat);
    } else {
      watchRoom(s, room);
    }
    if (busy) {
      tour.sent = '';
      app.socket.restart({ fresh: true }); // its hello comes back to onOpen
      return;
    }
  }
  const key = roomKey(s);
  if (key && key !== tour.sent && app.socket.ready && enterRoom(app)) tour.sent = key;
}

// ------------------------------------------------------------------ frames

/** Whether a frame is this module's: tournament frames, refusals of tournament
commands, and (on a tournament page) refusals to enter a round's room. */
export function owns(s, msg) {
  if (msg.t.startsWith('t_')) return true;
  if (msg.t !== 'reject' || !msg.d) return false;
  const cmd = msg.d.cmd || '';
  return cmd.startsWith('t_') || (s.tour != null && (cmd === 'resume' || cmd === 'watch'));
}

export function onFrame(app, msg) {
  const handler = HANDLERS[msg.t] || tournamentField.HANDLERS[msg.t];
  if (handler) handler(app, msg.d || {});
  app.changed();
}

const HANDLERS = {
  t_created(app, d) {
    const s = app.state;
    storage.saveTournament(d.id, { admin: d.admin, invite: d.invite }); // the invite code is given this once
    const then = s.tournamentForm.then;
    s.tournamentForm = { busy: false, error: '', then: null };
    if (then) then(d.id);
    go(`/t/${d.id}?admin`);
  },

  t_registered(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id) return;
    storage.saveTournament(d.id, { token: d.token, player: d.player, nickname: tour.nickname || undefined });
    Object.assign(tour, { token: d.token, player: d.player, busy: '', formError: '' });
    if (!tour.adminView) tour.as = 'player';
  },

  t_sync(app, d) {
    const tour = app.state.tour;
    if (!tour || !d.tournament || d.tournament.id !== tour.id) return;
    tour.v = d.v;
    tour.t = d.tournament;
    tour.error = '';
  },

  t_event(app, d) {
    const tour = app.state.tour;
    if (!tour || !d.tournament || d.tournament.id !== tour.id || d.v <= tour.v) return;
    tour.v = d.v;
    tour.t = d.tournament;
    switch (d.kind) {
      case 'round_ended':
        tour.page = false;
        if (tournamentField.isBig(d.tournament)) tournamentField.onRoundEnded(app);
        break;
      case 'withdrawn':
        if (d.player === tour.player && tour.as === 'player') say(TEXT.withdrawn);
        break;
      case 'kicked':
        if (d.player === tour.player && tour.as === 'player') kickedOut(app);
        else if (tour.field.found && tour.field.found.player === d.player) tour.field.found = null;
        break;
      default:
        break;
    }
  },

  t_standings() {},

  t_handoff(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id) return;
    tour.handoff = { code: d.code, until: d.until };
  },

  t_claimed(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id) return;
    storage.saveTournament(d.id, { admin: d.admin });
    tour.claiming = '';
    setView(tour, tour.adminView);
    say(TEXT.holdsOrganizerKey);
  },

  reject(app, d) {
    const s = app.state;
    const tour = s.tour;
    if (tour && tournamentField.onReject(tour, d)) return;
    if (d.cmd === 't_create') {
      s.tournamentForm = { busy: false, error: reasonText(d), then: null };
      return;
    }
    if (!tour) return;
    if (d.cmd === 'resume' || d.cmd === 'watch') {
      if (d.code === 'unavailable' || d.code === 'internal') {
        say(reasonText(d), { bad: true });
        app.timers.after('tournament.retry', 2000, () => {
          if (s.tour) s.tour.sent = '';
          app.socket.restart();
        });
        return;
      }
      tour.refused = roomKey(s);
      if (d.cmd === 'resume') storage.dropSeat(s.roomId);
      resetRoom(s);
      tour.sent = '';
      say(reasonText(d), { bad: true });
      return;
    }
    if (d.cmd === 't_resume' && d.code === 'bad_token') {
      storage.saveTournament(tour.id, { token: '', player: null });
      setView(tour, tour.adminView);
      app.socket.send('t_watch', { id: tour.id });
      say(TEXT.noLongerRegistered, { bad: true });
      return;
    }
    if ((d.cmd === 't_watch' || d.cmd === 't_resume') && d.code === 'unknown_room') {
      tour.error = TEXT.noTournament(tour.id);
      return;
    }
    if (d.cmd === 't_register') {
      tour.busy = '';
      tour.formError = reasonText(d);
      return;
    }
    if (d.cmd === 't_claim') {
      tour.claiming = '';
      tour.formError = d.code === 'bad_handoff' ? TEXT.badHandoff : reasonText(d);
      return;
    }
    say(reasonText(d), { bad: true });
  },
};

// ------------------------------------------------------------------ commands

function send(app, t, d) {
  if (app.socket.send(t, d)) return true;
  say(TEXT.offline, { bad: true });
  return false;
}

/** Organize a tournament (from the lobby); the answer opens its organizer page
(after `then(id)`: the form forgets its codes). */
export function create(app, name, settings, then = null) {
  const s = app.state;
  s.tournamentForm.then = then;
  if (send(app, 't_create', { name, settings })) s.tournamentForm = { busy: true, error: '', then };
  app.changed();
}

/** Register as `nickname`; `invite`: the tournament's invite code, when it asks for one. */
export function register(app, nickname, invite = '') {
  const tour = app.state.tour;
  tour.formError = '';
  tour.nickname = nickname;
  const d = { id: tour.id, nickname, ...(tour.t && tour.t.settings.invite ? { invite } : {}) };
  if (send(app, 't_register', d)) tour.busy = 'register';
  storage.saveNickname(nickname);
  app.changed();
}

export function withdraw(app) {
  const tour = app.state.tour;
  send(app, 't_withdraw', { id: tour.id, token: tour.token });
}

export function closeRegistration(app) {
  const tour = app.state.tour;
  send(app, 't_close', { id: tour.id, admin: tour.admin });
}

/** The next round: now (after the countdown), or at `at` on the server's clock (ms). */
export function startRound(app, at = 0) {
  const tour = app.state.tour;
  send(app, 't_start', { id: tour.id, admin: tour.admin, at: Math.round(at) });
}

export function endRound(app) {
  const tour = app.state.tour;
  send(app, 't_end', { id: tour.id, admin: tour.admin });
}

/** Take player `player` out of the tournament; `ban`: their nickname too. */
export function kick(app, player, ban) {
  const tour = app.state.tour;
  send(app, 't_kick', { id: tour.id, admin: tour.admin, player, ban });
}

/** A one-time code that gives another device the organizer's key. */
export function handoff(app) {
  const tour = app.state.tour;
  send(app, 't_handoff', { id: tour.id, admin: tour.admin });
}

/** This device takes the organizer's key with a code from the other one. */
export function claim(app, code) {
  const tour = app.state.tour;
  const text = code.trim();
  if (!text) return;
  tour.formError = '';
  tour.claiming = text;
  if (!app.socket.ready) return; // sent once connected (onOpen)
  send(app, 't_claim', { id: tour.id, code: text });
  app.changed();
}

/** The organizer took this player out (the event, or the round's room
closing with 4001): the token no longer works; the page goes on as a
spectator's. */
export function kickedOut(app) {
  const tour = app.state.tour;
  if (!tour || tour.as !== 'player') return;
  storage.saveTournament(tour.id, { token: '', player: null });
  // the seats the token held in the rounds' rooms are void too: a watch that
  // named one would be taken for a racer's and refused (own_race)
  for (const r of tour.t ? tour.t.rounds : []) if (r.room) storage.dropSeat(r.room);
  setView(tour, tour.adminView);
  say(TEXT.removedByOrganizer, { bad: true });
  app.changed();
}

/** A player looks at the tournament page during their round, or goes back to the table. */
export function showPage(app, on) {
  if (!app.state.tour) return;
  app.state.tour.page = on;
  app.changed();
}
