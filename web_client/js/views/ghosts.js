/** A challenge's ghosts at the table: the player's own line and, beside it,
where each of those who played before was at the same moment of their own
game (cards home, dollars, finished or not), moving with the own clock
(challenge.js reads them from the `ghosts` frames). */

import { h, setAttr, setText, toggle } from '../dom.js';
import { duration, money } from '../format.js';
import { flipList } from '../flip.js';
import { TEXT } from '../text.js';

const G = TEXT.ghosts;

function endText(end) {
  if (!end) return '';
  return end.status === 'finished' ? G.finished(duration(end.ms)) : G.ended[end.status] || end.status;
}

export function createGhosts(host) {
  const heading = h('h2', { class: 'lb-title', id: 'ghosts-title', text: G.title });
  const note = h('p', { class: 'ghost-note' });
  const list = h('ol', { class: 'ghost-list', 'aria-label': G.label });
  const el = h('section', { class: 'ghosts', 'aria-labelledby': 'ghosts-title' }, heading, note, list);
  host.append(el);
  const rows = new Map();
  let order = '';

  function row(key) {
    let r = rows.get(key);
    if (r) return r;
    r = {
      li: h('li', { class: 'ghost-row', dataset: { ghost: key } }),
      name: h('span', { class: 'ghost-name' }),
      bar: h('span', { class: 'lb-bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '52' }),
      fill: h('span', { class: 'lb-fill' }),
      cards: h('span', { class: 'ghost-cards' }),
      money: h('span', { class: 'ghost-money' }),
      status: h('span', { class: 'ghost-status' }),
    };
    r.bar.append(r.fill);
    r.li.append(r.name, r.bar, r.cards, r.money, r.status);
    rows.set(key, r);
    return r;
  }

  function fill(r, name, foundation, dollars, status) {
    setText(r.name, name);
    r.fill.style.width = `${(foundation / 52) * 100}%`;
    setAttr(r.bar, 'aria-valuenow', foundation);
    setAttr(r.bar, 'aria-label', G.bar(name, foundation));
    setText(r.cards, `${foundation}/52`);
    setText(r.money, money(dollars));
    setText(r.status, status);
  }

  /**
   * own: the player's figures now {foundation, vegas, done}; ghosts: as
   * challenge.ghostsAt gives them, best first; ms: the own clock; alone:
   * nobody has played before; scoring: the deal's ("N": no dollars shown,
   * a ghost's line carries dollars only, and points are the unit there).
   */
  function render({ own, ghosts, ms, scoring = 'V' }) {
    toggle(el, 'no-money', scoring !== 'V');
    setText(note, ghosts.length ? G.at(duration(ms)) : G.first);
    const lines = [...ghosts.map((g) => ({ key: `g${g.seat}`, ...g })),
      { key: 'me', nickname: G.you, foundation: own.foundation, dollars: own.vegas, end: null, me: true }];
    lines.sort((a, b) => {
      const done = (x) => (x.end && x.end.status === 'finished' ? x.end.ms : x.me && own.foundation === 52 ? ms : Infinity);
      return done(a) - done(b) || b.foundation - a.foundation || b.dollars - a.dollars || (a.me ? -1 : b.me ? 1 : 0);
    });
    const seen = new Set();
    for (const line of lines) {
      const r = row(line.key);
      seen.add(line.key);
      fill(r, line.nickname, line.foundation, line.dollars, line.me ? '' : endText(line.end));
      toggle(r.li, 'me', Boolean(line.me));
      toggle(r.li, 'over', Boolean(line.end));
    }
    for (const [key, r] of rows) {
      if (!seen.has(key)) {
        r.li.remove();
        rows.delete(key);
      }
    }
    const next = lines.map((x) => x.key).join(',');
    if (next !== order) {
      order = next;
      flipList(list, () => {
        for (const line of lines) list.append(rows.get(line.key).li);
      });
    }
  }

  return { el, render };
}
