/** The client's state: one plain object per page, made by `createState()`
and passed to whatever reads or changes it (as chessground passes its state
to render), never imported. `createRedraw` draws it once per animation
frame, however many changes came in between. */

import { freshPlayer } from './player.js';
import { freshDaily } from './daily.js';

export function createState() {
  return {
    player: freshPlayer(), // the player this browser is, and the player's page (player.js)
    daily: freshDaily(), // today's daily deals, as the server last said (daily.js)
    route: { name: 'home', room: '' }, // from the address (navigation.js): home, room, watch, tournament
    conn: 'connecting', // connecting, open, reconnecting, taken (seat opened elsewhere)
    entering: null, // the command entering a room, while its answer is awaited: {t, d, sent}
    formError: '', // the last refusal of an entering command
    after: null, // what to do once the current room is left: {t, d}

    ...freshRoom(), // the room this page is in (forgotten by resetRoom)
    finishes: { race: null, known: null }, // the finishes already announced (ranking.js, newFinishes)

    lobby: { on: false, list: null }, // the lobby's public races (rooms.js followLobby): the last `rooms` frame
    tour: null, // the tournament this page follows (tournament.js), kept across its rounds' rooms
    tournamentForm: { busy: false, error: '', then: null }, // the lobby's tournament form: awaiting t_created, or its refusal

    ui: { focus: 'stock', queued: 0, ...freshUi() }, // focus: the pile with the keyboard focus; queued: intents waiting for an answer (input.js)
  };
}

/** What a big room's frames say (docs/protocol.md, "Big rooms"); empty in a small room. */
function freshField() {
  return {
    top: null, // the latest tick: {n, top: [LINE], off: [seat], hist: [53 counts], status, ready}
    place: null, // the player's own place: {rank, of, above, line, below}
    page: null, // the page of the ranking shown last: {first, of, lines}
    asked: 0, // the first rank of the page asked for (0: none awaited)
    found: null, // the answer to the last look-up: {seat, rank, line}, or {missing: nickname}
    lastFind: '', // the nickname looked up last (its refusal names it)
    follow: null, // spectators: the player followed, {seat, rank, of, above, line, below}
    followName: '', // and their nickname (followed again after a reconnect)
    lastFollow: '', // the nickname asked to follow last (its refusal names it)
    ready: false, // the own ready flag in a big room's lobby (the server announces none)
    mine: null, // a watcher's own line where this browser played (a daily deal's ranked page): {seat, rank, line}
    mineSeat: -1, // and the seat asked for (-1: none)
  };
}

/** Redraws merged per animation frame: `changed()` asks for one, and every
`subscribe`d function draws the state then. */
export function createRedraw(state) {
  const listeners = [];
  let frame = 0;
  const flush = () => {
    frame = 0;
    for (const fn of listeners) fn(state);
  };
  return {
    changed() {
      if (!frame) frame = requestAnimationFrame(flush);
    },
    subscribe(fn) {
      listeners.push(fn);
    },
  };
}

/** Forget the room (left, kicked, gone). */
export function resetRoom(s) {
  Object.assign(s, freshRoom());
  resetUi(s);
}

/** Forget what the table showed of the game before (a new race, a rematch). */
export function resetUi(s) {
  Object.assign(s.ui, freshUi());
}

/** What a page knows of the room it is in: empty until it enters one, and again once it leaves. */
function freshRoom() {
  return {
    role: null, // "player" or "spectator" once in a room
    roomId: '',
    seat: -1,
    token: '',
    v: 0, // highest room event version seen
    room: null, // the room as anyone may see it
    entries: [], // leaderboard lines, ranked

    race: 0, // the race of `view`
    view: null, // own game, as the server last sent it
    started: null, // when the own clock started, on a clock of one's own (a challenge, came late)
    done: false, // own race over (won or resigned)
    seq: 0, // last sequence number used in this race
    viewSeq: 0, // the command the view answers (its ack's or board's s): statuses and hints name it
    pending: [], // game commands sent and not yet answered: [{t, d: {s, ...}}]

    boards: {}, // spectators: seat → public view
    ghosts: null, // a challenge's: the ghosts of the own clock's current stretch (challenge.js)
    field: freshField(), // a big room's frames (field.js): its tick, the own place, pages, the followed player
    ownCode: '', // a solo game's code when the player typed it (the player's own: shown at the table)
    afterEnd: null, // what to do with the code once the race ends (a solo game's "same deal again")
  };
}

/** What the table shows of the game besides the game itself (a selection, a hint, a notice put aside). */
function freshUi() {
  return {
    selected: null, // {from, count}: cards picked, waiting for a target
    refused: null, // {from, count, n}: cards tapped that have no legal move: they shake (n: the how-many-th time)
    panel: null, // {from, count}: the sequence chooser of a column
    hint: null, // {m, from, count, to}
    ghost: false, // dropped cards stay where they fell until the answer
    completing: null, // {moves, i}: auto-complete in progress
    stuckHidden: false,
    lostOpen: false, // the player asked for the "can no longer be won" notice (it never opens by itself)
    idleHidden: false, // the "no useful move" notice put aside (until a move makes progress again)
    undoing: 0, // undos still to send, one per answer: back to the last winnable position
    resultsHidden: false,
    confirmResign: false,
    bigSeat: null, // spectators: the board shown large
    justWon: false, // the last answer won the game: the table celebrates
  };
}

/** The room's phase now: "countdown" turns into "racing" at start_at. */
export function phaseAt(room, now) {
  if (!room) return null;
  if (room.phase === 'countdown' && room.start_at != null && now >= room.start_at) return 'racing';
  return room.phase;
}
