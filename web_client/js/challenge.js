/** A challenge's side of the protocol (docs/protocol.md, "Challenges",
"Ghosts", "Replays"): a room open for a window (`settings.window`), each
player beginning their own game when they choose (`start`, answered with
their board), on their own clock (their line's `started`); the `ghosts`
frames of those who played before, a stretch of the own clock at a time;
and the replays, open to everyone once the window has closed and, before,
to a player who won their own game.

`ghosts` lands in `state.ghosts`; the screens read it through the
functions below. Nothing here grows with the field: a frame holds at most
seven ghosts.
*/

import { say } from './messages.js';
import { TEXT } from './text.js';
import * as field from './field.js';

/** Whether the room is a challenge. */
export function isChallenge(room) {
  return Boolean(room && room.settings && room.settings.window > 0);
}

export const HANDLERS = {
  ghosts(app, d) {
    app.state.ghosts = d;
  },
};

/** The player's own line (a room of a few: its lines; a big one: the own place). */
export function ownLine(s) {
  if (field.isBig(s.room)) return field.ownLine(s.field);
  return s.entries.find((e) => e.seat === s.seat) || null;
}

/** Whether the player's own game has begun: its board came, or the line raced. */
export function begun(s) {
  if (s.view) return true;
  const mine = ownLine(s);
  return Boolean(mine && mine.status !== 'lobby' && mine.status !== 'disconnected');
}

/** When a game begun at `started` ends: its time limit, or the window's close. */
export function ownEnd(room, started) {
  const limit = (room.settings.time_limit || 0) * 1000;
  return limit ? Math.min(started + limit, room.deadline) : room.deadline;
}

/** Begin the own game now (the board comes as the answer). */
export function begin(app) {
  if (!app.socket.send('start')) say(TEXT.offline, { bad: true });
}

/** The ghosts at `ms` of the own clock, best first (finished by time, then
cards home, then dollars): `{seat, nickname, foundation, dollars, end}`,
`end` ({ms, status}) once the ghost's game has ended by then. */
export function ghostsAt(ghosts, ms) {
  if (!ghosts) return [];
  const second = Math.floor(ms / 1000);
  const out = ghosts.lines.map((line) => {
    let point = line.p[0];
    for (const p of line.p) {
      if (p[0] > second) break;
      point = p;
    }
    const end = line.end && line.end.ms <= ms ? line.end : null;
    return { seat: line.seat, nickname: line.nickname, foundation: point[1], dollars: point[2], end };
  });
  const done = (g) => (g.end && g.end.status === 'finished' ? g.end.ms : Infinity);
  return out.sort((a, b) => done(a) - done(b) || b.foundation - a.foundation || b.dollars - a.dollars);
}

/** Whether this page may see the others' replays now: everyone once the
window has closed; before, a player who won their own game. */
function replaysOpen(s) {
  if (!isChallenge(s.room)) return false;
  if (s.room.phase === 'ended') return true;
  const mine = s.role === 'player' ? ownLine(s) : null;
  return Boolean(mine && mine.status === 'finished');
}

/** The lines whose replay may be seen now: every game over (the window
open: finished, resigned or out of time; closed: everyone who began). */
export function replayable(s, lines) {
  if (!replaysOpen(s)) return [];
  const over = s.room.phase === 'ended'
    ? (x) => x.status !== 'lobby'
    : (x) => x.status === 'finished' || x.status === 'resigned' || x.status === 'unfinished';
  return lines.filter(over);
}

/** Where a seat's replay is read (a page at a time), and the token that
opens it before the close. */
export function replaySource(s, seat) {
  return { url: `/api/rooms/${s.roomId}/replay/${seat}`, token: s.role === 'player' ? s.token : '' };
}
