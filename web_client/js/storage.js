/** What survives a reload, in localStorage: the seat (room, token, race, last
sequence number, unacknowledged commands, last event version and the room
as last seen), the nickname, the hand a phone is held in, per tournament the
organizer's key and the player's token, and the player this browser is
(their key, id and nickname). Tokens and keys live here only, never in an
address.

The seat is written from the state after every change that matters (a
command sent, an answer, a room event: `saveSeat`) and read back into it
when the page opens the room again (`restoreSeat`). */

const SEAT = 'kr.seat.';
const LAST = 'kr.last';
const NICK = 'kr.nickname';
const HAND = 'kr.hand';
const TOUR = 'kr.tour.';
const PLAYER = 'kr.player';

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

/** Keep the seat of the state's room (a player's only: a spectator has none). */
export function saveSeat(s) {
  if (s.role !== 'player' || !s.token) return;
  write(SEAT + s.roomId, {
    room: s.roomId, seat: s.seat, token: s.token, race: s.race, s: s.seq,
    pending: s.pending, v: s.v, room_state: s.room, entries: s.entries,
    own_code: s.ownCode || undefined, ready: s.field.ready || undefined,
    tournament: (s.room && s.room.settings.tournament) || (s.tour && s.tour.id) || undefined,
  });
  write(LAST, s.roomId);
}

/** Take back a seat kept from before a reload (`loadSeat`), or a tournament's round seat. */
export function restoreSeat(s, saved) {
  Object.assign(s, {
    roomId: saved.room, seat: saved.seat, token: saved.token, race: saved.race || 0,
    seq: saved.s || 0, pending: Array.isArray(saved.pending) ? saved.pending : [],
    v: saved.room_state ? saved.v || 0 : 0, room: saved.room_state || null,
    entries: saved.entries || [], ownCode: saved.own_code || '',
  });
  s.field.ready = Boolean(saved.ready);
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

/** The hand the player holds a phone in, "right" (by default) or "left":
the table's draw button goes under that thumb. */
export function hand() {
  return read(HAND) === 'left' ? 'left' : 'right';
}

export function saveHand(side) {
  write(HAND, side);
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

/** Whether this browser keeps what is written here (not in a private mode
that refuses it, not full): a player's key is asked for only where it can be kept. */
export function canKeep() {
  try {
    localStorage.setItem('kr.probe', '1');
    localStorage.removeItem('kr.probe');
    return true;
  } catch {
    return false;
  }
}

/** The player this browser is: {key, id, nickname}, or null (none yet). */
export function loadPlayer() {
  const p = read(PLAYER);
  return p && typeof p.key === 'string' && p.key ? p : null;
}

export function savePlayer(p) {
  write(PLAYER, { key: p.key, id: p.id, nickname: p.nickname });
}

export function dropPlayer() {
  remove(PLAYER);
}

const LANGUAGE = 'kr.language';

/** The language the player chose ("en", "es"), or '' for the browser's. */
export function language() {
  return read(LANGUAGE) || '';
}

export function saveLanguage(lang) {
  write(LANGUAGE, lang);
}

const FORM = 'kr.form.';

/** A lobby form's last choices (its radios, checkboxes and selects, by name),
as it was last sent; null if never. Typed text (a code) is not kept. */
export function formChoices(name) {
  return read(FORM + name);
}

export function saveFormChoices(name, values) {
  write(FORM + name, values);
}
