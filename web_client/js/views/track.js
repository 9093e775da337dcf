/** A race as its watchers see it while its boards are kept from them (a
quick race's, and a room's that shows them after the race: every racer
plays one deal, so an opponent's board would show a racer's second tab
their own face-down cards; docs/protocol.md, "What each client may see"):
one lane per racer, in the room's order, with their progress to 52 cards,
score, moves and status, live from the leaderboard's lines, which name no
card. */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { score } from '../format.js';
import { statusText } from './leaderboard.js';
import { TEXT } from '../text.js';

const T = TEXT.track;

export function createTrack(host) {
  const list = h('ol', { class: 'track-list' });
  const el = h('section', { class: 'track', 'aria-label': T.label }, h('h2', { class: 'track-title', text: T.title }), list);
  host.append(el);
  const lanes = new Map();

  function lane(seat) {
    let l = lanes.get(seat);
    if (l) return l;
    l = {
      li: h('li', { class: 'track-lane', dataset: { seat: String(seat) } }),
      name: h('span', { class: 'track-name' }),
      bar: h('span', { class: 'track-bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '52' }),
      fill: h('span', { class: 'track-fill' }),
      figures: h('span', { class: 'track-figures' }),
    };
    l.bar.append(l.fill);
    l.li.append(l.name, l.bar, l.figures);
    lanes.set(seat, l);
    return l;
  }

  /** lines: the room's ranked lines; scoring: "N" or "V"; phase: the room's;
  visible: whether the lanes are shown (no board is). */
  function render(lines, { scoring, phase, visible }) {
    show(el, visible && lines.length > 0);
    if (el.hidden) return;
    const seen = new Set();
    lines.forEach((line, i) => {
      const l = lane(line.seat);
      seen.add(line.seat);
      const n = line.foundation ?? 0;
      setText(l.name, `${line.rank ?? ''}. ${line.nickname}`);
      l.fill.style.width = `${(n / 52) * 100}%`;
      setAttr(l.bar, 'aria-valuenow', n);
      setAttr(l.bar, 'aria-label', T.bar(line.nickname, n));
      // a challenge's game not over shows no figures (docs/protocol.md, "Challenges")
      const unseen = line.vegas === undefined && line.status !== 'finished';
      setText(l.figures, (unseen ? [] : [`${n}/52`, score({ vegas: line.vegas, points: line.points ?? 0 }, scoring),
        TEXT.boards.moves(line.moves ?? 0)]).concat(statusText(line, { phase })).join(' · '));
      toggle(l.li, 'done', line.status !== 'racing');
      if (list.children[i] !== l.li) list.insertBefore(l.li, list.children[i] ?? null);
    });
    for (const [seat, l] of lanes) {
      if (!seen.has(seat)) {
        l.li.remove();
        lanes.delete(seat);
      }
    }
  }

  return { el, render };
}
