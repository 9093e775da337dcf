/** A ranking shown a page at a time, whichever holds it (a big room's field,
field.js; a big tournament's standings, tournamentfield.js): the pages asked
for and the one awaited, the own place with its neighbours, a nickname
looked up. Each keeps `{place, page, asked, found, lastFind}` in its state;
the server keeps the rest of the ranking. */

import { say } from './messages.js';
import { reasonText } from './text.js';

export const PAGE = 25; // lines in a page (the server allows 50)

/** The first rank of the page that holds `rank`. */
export function pageOf(rank) {
  return Math.floor((Math.max(1, rank) - 1) / PAGE) * PAGE + 1;
}

/** Ask for the page from rank `first` on: `send(from, count)` sends the
command; the page is awaited if it went. */
export function askPage(f, first, send) {
  const from = Math.max(1, first);
  if (send(from, PAGE)) f.asked = from;
}

/** A page came: kept if it is the one awaited (an answer to a page asked
before it is dropped); true if kept. */
export function takePage(f, d) {
  if (d.first !== f.asked) return false;
  f.asked = 0;
  f.page = d;
  return true;
}

/** A nickname to look up, trimmed ('' : nothing to ask); its refusal will name it. */
export function toFind(f, nickname) {
  const name = nickname.trim();
  if (name) f.lastFind = name;
  return name;
}

/** A refusal of the ranking's look-up (`find`) or page (`page`) command; true if it was one. */
export function onReject(f, d, { find, page }) {
  if (d.cmd === find && d.code === 'unknown_seat') {
    f.found = { missing: f.lastFind };
    return true;
  }
  if (d.cmd === page) {
    f.asked = 0;
    say(reasonText(d), { bad: true });
    return true;
  }
  return false;
}

/** A place's lines in rank order: above, the own line (`line`, else the
place's), below, each with its rank. */
export function around(place, line = null) {
  if (!place) return [];
  const own = line || (place.line ? { ...place.line, rank: place.rank } : null);
  return [
    place.above ? { ...place.above, rank: place.rank - 1 } : null,
    own,
    place.below ? { ...place.below, rank: place.rank + 1 } : null,
  ].filter(Boolean);
}
