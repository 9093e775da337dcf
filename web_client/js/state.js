/** The client's state: one plain object, changed in place, drawn once per
animation frame however many changes came in between. */

export const state = {
  route: { name: 'home', room: '' }, // from the address: home, room (/r/ID), watch (/r/ID?watch), tournament (/t/ID)
  conn: 'connecting', // connecting, open, reconnecting, taken (seat opened elsewhere)
  entering: null, // the command entering a room, while its answer is awaited
  formError: '', // the last refusal of an entering command

  role: null, // "player" or "spectator" once in a room
  roomId: '',
  seat: -1,
  token: '',
  v: 0, // highest room event version seen
  room: null, // the room as anyone may see it
  entries: [], // leaderboard lines, ranked

  race: 0, // the race of `view`
  view: null, // own game, as the server last sent it
  done: false, // own race over (won or resigned)
  seq: 0, // last sequence number used in this race
  pending: [], // game commands sent and not yet answered: [{t, d: {s, ...}}]

  boards: {}, // spectators: seat → public view
  field: freshField(), // a big room's frames (field.js): its tick, the own place, pages, the followed player
  ownCode: '', // a solo game's code when the player typed it (the player's own: shown at the table)
  afterEnd: null, // what to do with the code once the race ends (a solo game's "same deal again")

  tour: null, // the tournament this page follows (tournament.js), kept across its rounds' rooms
  tcreate: { busy: false, error: '' }, // the lobby's tournament form: awaiting t_created, or its refusal

  ui: {
    focus: 'stock', // the pile with the keyboard focus
    selected: null, // {from, count}: cards picked, waiting for a target
    panel: null, // {from, count}: the sequence chooser of a column
    hint: null, // {m, from, count, to}
    ghost: false, // dropped cards stay where they fell until the answer
    completing: null, // {moves, i}: auto-complete in progress
    stuckHidden: false,
    resultsHidden: false,
    confirmResign: false,
    bigSeat: null, // spectators: the board shown large
    queued: 0, // intents waiting for an answer (input.js)
    justWon: false, // the last answer won the game: the table celebrates
  },
};

/** What a big room's frames say (docs/protocol.md, "Big rooms"); empty in a small room. */
export function freshField() {
  return {
    top: null, // the latest tick: {n, top: [LINE], off: [seat], hist: [53 counts], status, ready}
    place: null, // the player's own place: {rank, of, above, line, below}
    page: null, // the page of the ranking shown last: {first, of, lines}
    asked: 0, // the first rank of the page asked for (0: none awaited)
    found: null, // the answer to the last look-up: {seat, rank, line}, or {missing: nickname}
    follow: null, // spectators: the player followed, {seat, rank, of, above, line, below}
    followName: '', // and their nickname (followed again after a reconnect)
    ready: false, // the own ready flag in a big room's lobby (the server announces none)
  };
}

const listeners = [];
let frame = 0;

export function subscribe(fn) {
  listeners.push(fn);
}

/** Ask for a redraw; all changes before the next frame are drawn together. */
export function changed() {
  if (!frame) frame = requestAnimationFrame(flush);
}

function flush() {
  frame = 0;
  for (const fn of listeners) fn(state);
}

/** Forget the room (left, kicked, gone). */
export function resetRoom() {
  Object.assign(state, {
    role: null, roomId: '', seat: -1, token: '', v: 0, room: null, entries: [],
    race: 0, view: null, done: false, seq: 0, pending: [], boards: {}, ownCode: '', afterEnd: null,
    field: freshField(),
  });
  resetUi();
}

export function resetUi() {
  Object.assign(state.ui, {
    selected: null, panel: null, hint: null, ghost: false, completing: null,
    stuckHidden: false, resultsHidden: false, confirmResign: false, bigSeat: null, justWon: false,
  });
}

/** The room's phase now: "countdown" turns into "racing" at start_at. */
export function phaseAt(room, now) {
  if (!room) return null;
  if (room.phase === 'countdown' && room.start_at != null && now >= room.start_at) return 'racing';
  return room.phase;
}
