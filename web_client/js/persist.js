/** The seat as it survives a reload: written to storage.js after every
change that matters (a command sent, an answer, a room event), read back
into the state when the page opens the room again. */

import * as storage from './storage.js';

/** Keep the seat of the state's room (a player's only: a spectator has none). */
export function saveSeat(s) {
  if (s.role !== 'player' || !s.token) return;
  storage.saveSeat({
    room: s.roomId, seat: s.seat, token: s.token, race: s.race, s: s.seq,
    pending: s.pending, v: s.v, room_state: s.room, entries: s.entries,
    own_code: s.ownCode || undefined, ready: s.field.ready || undefined,
    tournament: (s.room && s.room.settings.tournament) || (s.tour && s.tour.id) || undefined,
  });
}

/** Take back a seat kept from before a reload (or a tournament's round seat). */
export function restoreSeat(s, saved) {
  Object.assign(s, {
    roomId: saved.room, seat: saved.seat, token: saved.token, race: saved.race || 0,
    seq: saved.s || 0, pending: Array.isArray(saved.pending) ? saved.pending : [],
    v: saved.room_state ? saved.v || 0 : 0, room: saved.room_state || null,
    entries: saved.entries || [], ownCode: saved.own_code || '',
  });
  s.field.ready = Boolean(saved.ready);
}
