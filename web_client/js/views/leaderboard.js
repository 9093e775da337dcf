/** The live leaderboard: rank, nickname, progress to 52 cards, the score in
the deal's scoring, status. Rows are keyed by seat and slide to their new
place (FLIP). It draws a standing (ranking.js): the ranked lines, and the
viewer's own line after them when it is not among them (a big room's top
lines). In a rated race each name has its player's rating beside it, as the
room's document has it from the server (`ratingsOf`). */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { count, duration, score } from '../format.js';
import { flipList } from '../flip.js';
import { TEXT } from '../text.js';

const B = TEXT.leaderboard;

/** A line's status in words; `phase`: the room's ("countdown": nobody races yet),
`stuck`: the line's game has no move left (known from its board); `challenge`:
each plays on their own clock (a line in the lobby has not begun, one
unfinished ran out of time). */
export function statusText(entry, { phase = null, stuck = false, challenge = false } = {}) {
  if (entry.status === 'finished') return B.finished(duration(entry.finish_ms ?? 0));
  if (challenge) {
    const begun = entry.started != null;
    if (entry.status === 'lobby' || (entry.status === 'disconnected' && !begun)) return B.challenge.notStarted;
    if (entry.status === 'disconnected') return B.challenge.away;
    if (entry.status === 'racing' && !stuck) return phase === 'ended' ? B.status.unfinished : B.challenge.playing;
    if (entry.status === 'unfinished') return B.challenge.outOfTime;
  }
  if (entry.status === 'racing' && phase === 'countdown') return B.atStart;
  if (entry.status === 'racing' && stuck) return B.stuck;
  if (entry.status === 'racing' && entry.late) return B.late; // on a clock of their own
  return B.status[entry.status] ?? entry.status;
}

/** The rating beside each seat of a rated room ("1514?"), as the server
keeps it in the room's players (docs/protocol.md, "Ratings"); null when the
room is not rated. */
export function ratingsOf(room) {
  if (!room || !room.settings || !room.settings.rated || !room.players) return null;
  return new Map(room.players.filter((p) => p.rating).map((p) => [p.seat, p.rating]));
}

/** `kind`: the section's class ("leaderboard"; a big room's own place is an "lb-place"). */
export function createLeaderboard(host, { title = B.title, kind = 'leaderboard' } = {}) {
  const list = h('ol', { class: 'lb-list', 'aria-label': title });
  const more = h('p', { class: 'lb-more', hidden: true });
  const heading = h('h2', { class: 'lb-title', text: title });
  const el = h('section', { class: kind, 'aria-label': title }, heading, list, more);
  host.append(el);
  const rows = new Map();
  let order = '';

  function row(seat) {
    let r = rows.get(seat);
    if (r) return r;
    r = {
      li: h('li', { class: 'lb-row', dataset: { seat: String(seat) } }),
      rank: h('span', { class: 'lb-rank' }),
      name: h('span', { class: 'lb-name' }),
      nick: h('span'),
      rating: h('span', { class: 'lb-rating' }),
      bar: h('span', { class: 'lb-bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '52' }),
      fill: h('span', { class: 'lb-fill' }),
      cards: h('span', { class: 'lb-cards' }),
      money: h('span', { class: 'lb-money' }),
      status: h('span', { class: 'lb-status' }),
    };
    r.bar.append(r.fill);
    r.name.append(r.nick, r.rating);
    r.li.append(r.rank, r.name, r.bar, r.cards, r.money, r.status);
    rows.set(seat, r);
    return r;
  }

  /**
   * lines: ranked lines; me: the viewer's seat; mine: the viewer's line when
   * `lines` may not hold it; total: how many race; scoring: "N" or "V" (the
   * figure shown); phase: the room's; stuck: seats whose game is stuck;
   * title: the heading, when it says more than the section's name; marked:
   * a seat to highlight besides the viewer's (a followed player); challenge:
   * the room is a challenge (statusText); ratings: each seat's rating in a
   * rated race (`ratingsOf`), or null.
   */
  function render(lines, { me = -1, mine = null, total = null, scoring = 'V', phase = null, stuck = null,
    title: text = null, marked = -1, challenge = false, ratings = null } = {}) {
    if (text != null) setText(heading, text);
    const shown = mine && !lines.some((x) => x.seat === mine.seat) ? [...lines, mine] : lines;
    const seen = new Set();
    for (const entry of shown) {
      const r = row(entry.seat);
      seen.add(entry.seat);
      setText(r.rank, entry.rank ?? '');
      setText(r.nick, entry.seat === me ? TEXT.common.you(entry.nickname) : entry.nickname);
      const rating = ratings ? ratings.get(entry.seat) : null;
      setText(r.rating, rating || '');
      if (rating) setAttr(r.rating, 'aria-label', B.rating(rating));
      const n = entry.foundation ?? 0;
      r.fill.style.width = `${(n / 52) * 100}%`;
      setAttr(r.bar, 'aria-valuenow', n);
      setAttr(r.bar, 'aria-label', B.bar(entry.nickname, n));
      // a challenge's game not over shows no figures (docs/protocol.md, "Challenges")
      const unseen = entry.vegas === undefined && entry.status !== 'finished';
      setText(r.cards, unseen ? '—' : `${n}/52`);
      setText(r.money, unseen ? '—' : score({ vegas: entry.vegas, points: entry.points ?? 0 }, scoring));
      setText(r.status, statusText(entry, { phase, stuck: Boolean(stuck && stuck.has(entry.seat)), challenge }));
      r.li.dataset.status = entry.status;
      toggle(r.li, 'me', entry.seat === me || entry.seat === marked);
      toggle(r.li, 'apart', entry === mine && shown !== lines);
    }
    for (const [seat, r] of rows) {
      if (!seen.has(seat)) {
        r.li.remove();
        rows.delete(seat);
      }
    }
    const next = shown.map((e) => e.seat).join(',');
    if (next !== order || list.children.length !== shown.length) {
      order = next;
      flipList(list, () => {
        for (const entry of shown) list.append(rows.get(entry.seat).li);
      });
    }
    const hidden = (total ?? shown.length) - shown.length;
    show(more, hidden > 0);
    if (hidden > 0) setText(more, B.more(count(hidden)));
  }

  return { el, render };
}
