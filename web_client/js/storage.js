/** What survives a reload, in localStorage: the seat (room, token, race, last
sequence number, unacknowledged commands, last event version and the room
as last seen), the nickname, and per tournament the organizer's key and the
player's token. Tokens live here only, never in an address. */

const SEAT = 'kr.seat.';
const LAST = 'kr.last';
const NICK = 'kr.nickname';
const TOUR = 'kr.tour.';

function read(key) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* private mode or full: the game goes on without it */
  }
}

function remove(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    /* nothing to do */
  }
}

export function loadSeat(room) {
  const seat = read(SEAT + room);
  return seat && seat.token ? seat : null;
}

export function saveSeat(seat) {
  write(SEAT + seat.room, seat);
  write(LAST, seat.room);
}

export function dropSeat(room) {
  remove(SEAT + room);
  if (read(LAST) === room) remove(LAST);
}

/** The seat of the room played last, if it is still kept. */
export function lastSeat() {
  const room = read(LAST);
  return room ? loadSeat(room) : null;
}

export function nickname() {
  return read(NICK) || '';
}

export function saveNickname(name) {
  write(NICK, name);
}

/** A tournament's keys kept by this browser: {admin, token, player}; {} if none. */
export function loadTournament(id) {
  const keys = read(TOUR + id);
  return keys && typeof keys === 'object' ? keys : {};
}

export function saveTournament(id, keys) {
  const merged = { ...loadTournament(id), ...keys };
  for (const [k, v] of Object.entries(merged)) {
    if (v == null || v === '') delete merged[k];
  }
  write(TOUR + id, merged);
}
