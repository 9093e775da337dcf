/** A big room's side of the protocol (docs/protocol.md, "Big rooms"): a room
of more than 16 seats sends no player list and no `lb`, but a shared `top`
tick (the top lines, the field's progress, counts), each player's own place
(`me`, and the rank in every `ack`), and on request pages of its ranking
(`lb_page`), a nickname's line (`lb_found`) and, to a spectator, the player
they follow (`following`, then `follow` frames each tick).

Everything lands in `state.field` (state.js, freshField); the screens read
it through the functions at the end. Nothing here grows with the field: a
page is at most PAGE lines, the rest stays on the server.
*/

import { keepFollow } from './navigation.js';
import { say } from './messages.js';
import { TEXT, reasonText } from './text.js';
import * as paging from './paging.js';

export const BOARDS_SHOWN = 8; // spectators get the boards of this many of the top lines (server/app/rooms/tick_spectators.py)

/** Whether the room is a big one (its frames are this module's). */
export function isBig(room) {
  return Boolean(room && room.settings && room.settings.big);
}

// ------------------------------------------------------------------ frames

export const HANDLERS = {
  top(app, d) {
    app.state.field.top = d;
  },

  me(app, d) {
    app.state.field.place = d;
  },

  lb_page(app, d) {
    paging.takePage(app.state.field, d);
  },

  lb_found(app, d) {
    const f = app.state.field;
    if (f.mineSeat >= 0 && d.seat === f.mineSeat) { // the own line, asked for by findMine
      f.mine = d;
      f.mineSeat = -1;
      return;
    }
    f.found = d;
    if (d.rank > 0) askPage(app, paging.pageOf(d.rank)); // the page the player is on
  },

  following(app, d) {
    const s = app.state;
    const f = s.field;
    if (d.seat == null) {
      f.follow = null;
      f.followName = '';
      return;
    }
    f.followName = d.line ? d.line.nickname : f.followName;
    f.follow = { seat: d.seat, rank: d.rank, of: f.top ? f.top.n : null, above: null, line: d.line, below: null };
    keepFollow(s.roomId, f.followName);
  },

  follow(app, d) {
    const f = app.state.field;
    if (f.followName) f.follow = d;
  },
};

/** `sync`: a big room's carries its latest tick instead of lines. */
export function onSync(s, d) {
  if ('top' in d) s.field.top = d.top;
}

/** An `ack`'s rank: the own place moved. The neighbours come with the next
`me`; until then only the own line is shown if the rank changed. */
export function onAck(s, d) {
  if (d.rank == null) return;
  const f = s.field;
  const place = f.place;
  if (!place) {
    f.place = { rank: d.rank, of: d.of, above: null, line: null, below: null };
  } else if (place.rank !== d.rank) {
    f.place = { ...place, rank: d.rank, of: d.of, above: null, below: null };
  } else {
    f.place = { ...place, of: d.of };
  }
}

/** A room event: a new race forgets the places of the one before. */
export function onRoomEvent(s, kind) {
  const f = s.field;
  if (kind === 'start' || kind === 'rematch') {
    f.place = null;
    f.page = null;
    f.found = null;
    if (f.follow) f.follow = { ...f.follow, above: null, below: null };
  }
  if (kind === 'rematch') f.ready = false;
}

/** A refusal of one of this module's commands; true if it was one. */
export function onReject(s, d) {
  const f = s.field;
  if (d.cmd === 'lb_find' && f.mineSeat >= 0) { // the own line not found (a nickname changed since): shown none
    f.mineSeat = -1;
    f.mine = { seat: -1, rank: 0, line: null };
    return true;
  }
  if (paging.onReject(f, d, { find: 'lb_find', page: 'lb_page' })) return true;
  if (d.cmd === 'follow') {
    say(d.code === 'unknown_seat' ? TEXT.nobodyInRoom(f.lastFollow) : reasonText(d), { bad: true });
    // the server still follows whom it followed
    f.followName = f.follow && f.follow.line ? f.follow.line.nickname : '';
    keepFollow(s.roomId, f.followName);
    return true;
  }
  return false;
}

// ------------------------------------------------------------------ commands

/** Ask for the page of the ranking from `first` on. */
export function askPage(app, first) {
  paging.askPage(app.state.field, first, (from, count) => app.socket.send('lb_page', { first: from, count }));
}

/** Look a nickname up: its line and rank, and the page it is on. */
export function find(app, nickname) {
  const f = app.state.field;
  const name = paging.toFind(f, nickname);
  if (!name) return;
  f.found = null;
  app.socket.send('lb_find', { nickname: name });
}

/** A watcher who played in the room (the seat this browser keeps there):
their own line and rank, looked up by nickname once (`mine`), for a daily
deal's ranked page to show it wherever it ranks. */
export function findMine(app, seat, nickname) {
  const f = app.state.field;
  const name = (nickname || '').trim();
  if (!name || f.mineSeat >= 0 || f.mine) return;
  f.mineSeat = seat;
  app.socket.send('lb_find', { nickname: name });
}

/** A spectator follows a player by nickname (null: stop following). */
export function follow(app, nickname) {
  const name = nickname == null ? null : nickname.trim();
  if (name === '') return;
  const s = app.state;
  s.field.lastFollow = name || '';
  if (name == null) {
    s.field.follow = null;
    s.field.followName = '';
    keepFollow(s.roomId, '');
  }
  app.socket.send('follow', { nickname: name });
}

/** After a reconnect: the new connection follows the same player again. */
export function followAgain(app) {
  const f = app.state.field;
  if (f.followName) {
    f.lastFollow = f.followName;
    app.socket.send('follow', { nickname: f.followName });
  }
}

// ------------------------------------------------------------------ reading

/** The tick's top lines, ranked, a racer without an open connection shown
as disconnected (as a small room's lines say). */
export function topLines(field) {
  const top = field.top;
  if (!top) return [];
  const off = new Set(top.off || []);
  return (top.top || []).map((line, i) => ({
    ...line, rank: i + 1,
    ...(off.has(line.seat) && (line.status === 'racing' || line.status === 'lobby') ? { status: 'disconnected' } : {}),
  }));
}

/** The own line with its rank, its figures from the own view when that is
newer (each ack's view is the game as stored, the line comes with the tick). */
export function ownLine(field, view = null) {
  const place = field.place;
  if (!place || !place.line) return null;
  const line = { ...place.line, rank: place.rank };
  if (view && view.moves >= (line.moves ?? 0)) {
    Object.assign(line, { foundation: view.foundation_cards, vegas: view.vegas, moves: view.moves,
      ...(view.scoring === 'N' ? { points: view.points } : {}) });
  }
  return line;
}

/** How many are in the field now: the place's count, else the tick's. */
export function total(field) {
  if (field.place && field.place.of != null) return field.place.of;
  return field.top ? field.top.n : 0;
}

/** The seats whose boards a spectator is shown: the top players' and the followed one. */
function shownSeats(field) {
  const seats = new Set(topLines(field).slice(0, BOARDS_SHOWN).map((x) => x.seat));
  if (field.follow) seats.add(field.follow.seat);
  return seats;
}

/** The boards a big room's spectator is shown in the grid: the top
players' (the server sends those of the top 8) but the followed one's,
which stands apart (follow.js). */
export function gridBoards(field, boards) {
  const shown = shownSeats(field);
  const followed = field.follow ? field.follow.seat : null;
  return Object.fromEntries(Object.entries(boards).filter(([seat]) => shown.has(Number(seat)) && Number(seat) !== followed));
}

/** Nicknames by seat, from the lines this client has (the top, the own place, the followed). */
export function names(field) {
  const out = new Map();
  const add = (line) => line && out.set(line.seat, line.nickname);
  for (const line of field.top ? field.top.top || [] : []) add(line);
  for (const p of [field.place, field.follow]) {
    if (p) [p.above, p.line, p.below].forEach(add);
  }
  return out;
}

/** The lobby's counts: players (the tick's, live) and how many are ready. */
export function lobbyCounts(room, field) {
  const counts = room.field || {};
  const top = field.top;
  return {
    players: top ? top.n : counts.players ?? 0,
    ready: top && top.ready != null ? top.ready : counts.ready ?? 0,
  };
}
