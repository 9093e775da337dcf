/** A big tournament's side of the protocol (docs/protocol.md, "Big
tournaments"): its `t_sync` holds a header, counts and the top of the
standings, never a list of players; the rest comes on request or a frame of
its own: the player's own place (`t_me`), the counts (`t_field`), pages of
the standings (`t_page`) and a nickname's line (`t_found`).

Everything lands in `state.tour.field` (fresh per tournament); the page's
views read it through the functions at the end, which also answer for a
small tournament where that is the same question (who am I, what did I do
in round n), so that the page asks once whatever the size.
*/

import { say } from './messages.js';
import { TEXT } from './text.js';
import * as paging from './paging.js';


export function freshField() {
  return {
    place: null, // t_me: {rank, of, above, line, below} (lines without rank)
    page: null, // the page shown: {first, of, lines}
    asked: 0, // the first rank of the page awaited (0: none)
    browsing: false, // the standings' browser is open: its page follows the rounds
    found: null, // the line picked (a look-up, or a line of a page): {player, rank, line}, or {missing}
    lastFind: '', // the nickname looked up last (its refusal names it)
    withdrawn: false, // this browser's player withdrew (a big tournament announces no withdrawal)
  };
}

/** Whether a tournament (as `t_sync` shows it) is a big one. */
export function isBig(t) {
  return Boolean(t && t.settings && t.settings.big);
}

/** Whether every round has been played: the standings are final (nobody is
removed from them any more). */
export function isOver(t) {
  return t.rounds.length > 0 && t.rounds.every((r) => r.status === 'ended');
}

// ------------------------------------------------------------------ frames

export const HANDLERS = {
  t_me(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id) return;
    tour.field.place = d;
    const found = tour.field.found;
    if (found && found.player === tour.player && d.line) tour.field.found = { player: tour.player, rank: d.rank, line: d.line };
  },

  t_field(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id || !tour.t) return;
    tour.t = { ...tour.t, field: d.field };
  },

  t_page(app, d) {
    const tour = app.state.tour;
    if (tour && d.id === tour.id) paging.takePage(tour.field, d);
  },

  t_found(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id) return;
    tour.field.found = { player: d.player, rank: d.rank, line: d.line };
    if (tour.field.browsing && d.rank > 0) askPage(app, paging.pageOf(d.rank));
  },

  t_withdrawn(app, d) {
    const tour = app.state.tour;
    if (!tour || d.id !== tour.id || d.player !== tour.player) return;
    tour.field.withdrawn = true;
    say(TEXT.withdrawn);
  },
};

/** A refusal of one of this module's commands; true if it was one. */
export function onReject(tour, d) {
  return paging.onReject(tour.field, d, { find: 't_find', page: 't_page' });
}

/** A round has ended: the standings moved, so the page shown is asked again. */
export function onRoundEnded(app) {
  const f = app.state.tour.field;
  if (f.browsing && f.page) askPage(app, f.page.first);
  if (f.found && f.found.line) find(app, f.found.line.nickname);
}

// ------------------------------------------------------------------ commands

export function askPage(app, first) {
  const tour = app.state.tour;
  paging.askPage(tour.field, first, (from, count) => app.socket.send('t_page', { id: tour.id, first: from, count }));
}

/** Open (or close) the standings' browser: the page of the own place, else the first. */
export function browse(app, on) {
  const f = app.state.tour.field;
  f.browsing = on;
  if (on && !f.page && !f.asked) askPage(app, f.place ? paging.pageOf(f.place.rank) : 1);
}

export function find(app, nickname) {
  const tour = app.state.tour;
  const name = paging.toFind(tour.field, nickname);
  if (name) app.socket.send('t_find', { id: tour.id, nickname: name });
}

/** Pick a line already at hand (a page's): it shows with its rounds and actions. */
export function pick(tour, line) {
  tour.field.found = line ? { player: line.player, rank: line.rank, line } : null;
}

// ------------------------------------------------------------------ reading

/** This browser's player, in a small tournament or a big one:
{player, nickname, withdrawn}, or null for the organizer and spectators. */
export function me(tour) {
  if (tour.as !== 'player' || !tour.t) return null;
  if (!isBig(tour.t)) return tour.t.players.find((p) => p.player === tour.player) || null;
  const line = tour.field.place && tour.field.place.line;
  return {
    player: tour.player,
    nickname: (line && line.nickname) || tour.nickname || '',
    withdrawn: Boolean(tour.field.withdrawn || (line && line.withdrawn)),
  };
}

/** Whether this browser's player may play round `r` (it has started): a big
round's players are those registered before it started, numbers 0 to
`players` - 1; a small round's, its seats. */
export function playsRound(tour, r) {
  const mine = me(tour);
  if (!mine || mine.withdrawn) return false;
  if (isBig(tour.t)) return r.players == null ? r.status === 'starting' : mine.player < r.players;
  return Boolean(r.seats && r.seats.includes(mine.player));
}

const ROUND_FIELDS = ['status', 'vegas', 'foundation', 'finish_ms', 'moves', 'rank'];

/** A standing line's rounds as a small tournament's are: [{round, played,
status, vegas, foundation, finish_ms, moves, rank}], from a big one's arrays
`[status, vegas, foundation, finish_ms, moves, rank]`. */
export function roundsOf(line) {
  return (line.rounds || []).map((item, i) => {
    if (!Array.isArray(item)) return item;
    const out = Object.fromEntries(ROUND_FIELDS.map((k, j) => [k, item[j]]));
    return { round: i + 1, played: out.status !== 'missed', ...out };
  });
}

/** This browser's player's result in round `n`, from their own place (`t_me`). */
export function roundOf(tour, n) {
  const place = tour.field.place;
  return place && place.line ? roundsOf(place.line)[n - 1] || null : null;
}

/** How many are ranked: the own place's count, a page's, else the field's. */
export function ranked(tour) {
  const f = tour.field;
  if (f.place) return f.place.of;
  if (f.page) return f.page.of;
  const t = tour.t;
  return t && t.field ? t.field.players : 0;
}
