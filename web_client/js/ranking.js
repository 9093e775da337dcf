/** A race's ranking for the screens, from leaderboard lines as the server
ranks them (docs/protocol.md, `lb`): finished players first, by time, then
the others. Pure functions of plain data, shared by the leaderboard, the
podium, the finish announcements and the results' headline.

The data interface is a *standing*: `{lines, mine, total}`, where `lines`
are ranked lines (each with `seat`, `nickname`, `status`, `rank`,
`finish_ms`, figures), `mine` the viewer's own line or null, and `total`
how many race. A room of up to eight sends every line, so `lines` is all
of them; a big room's frames would carry its top lines and the viewer's
own, and the same screens draw that.
*/

import { duration, ordinal } from './format.js';

/** The standing of a room from its lines (in rank order; a line without a
`rank` gets its place, as a big room's top lines come) and the viewer's seat
(-1: a spectator). */
export function standing(lines, { me = -1, mine = null, total = null } = {}) {
  const ranked = lines.every((x) => x.rank != null) ? lines : lines.map((x, i) => ({ ...x, rank: x.rank ?? i + 1 }));
  const own = mine ?? ranked.find((x) => x.seat === me) ?? null;
  return { lines: ranked, mine: own, total: total ?? ranked.length };
}

/** The lines that finished, by rank (the podium's first three are these). */
export function finishers(lines) {
  return lines.filter((x) => x.status === 'finished').sort((a, b) => a.rank - b.rank);
}

/** "Alice finished 1st in 4:22" (or "You finished …" for the viewer's own line). */
export function finishText(line, { mine = false } = {}) {
  const who = mine ? 'You' : line.nickname;
  return `${who} finished ${ordinal(line.rank)} in ${duration(line.finish_ms ?? 0)}`;
}

/** The results' headline: "You won the race!", "You placed 2nd of 5", … */
export function placeText(line, total, { solo = false } = {}) {
  if (!line) return 'The race is over';
  if (solo) return line.status === 'finished' ? 'Solved!' : 'Game over';
  if (line.status === 'finished' && line.rank === 1) return total > 1 ? 'You won the race!' : 'You finished!';
  return `You placed ${ordinal(line.rank)} of ${total}`;
}

/** The lines that finished since the last look at race `raceId`, by rank.
`seen` ({race, known}, kept in the state) remembers each line's status; the
first look at a race only learns (a reload must not announce old finishes
again). */
export function newFinishes(seen, raceId, lines) {
  if (raceId !== seen.race || seen.known == null) {
    seen.race = raceId;
    seen.known = new Map(lines.map((x) => [x.seat, x.status]));
    return [];
  }
  const fresh = [];
  for (const line of lines) {
    const before = seen.known.get(line.seat);
    if (line.status === 'finished' && before !== 'finished') fresh.push(line);
    seen.known.set(line.seat, line.status);
  }
  return fresh.sort((a, b) => a.rank - b.rank);
}
