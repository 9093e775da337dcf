/** The live leaderboard: rank, nickname, progress to 52 cards, Vegas dollars,
status. Rows are keyed by seat and slide to their new place (FLIP). */

import { h, setAttr, setText, toggle } from '../dom.js';
import { duration, money } from '../format.js';
import { flipList } from '../flip.js';

const STATUS = {
  lobby: 'in the lobby', racing: 'racing', resigned: 'resigned', left: 'left', disconnected: 'disconnected',
};

export function statusText(entry) {
  if (entry.status === 'finished') return `finished ${duration(entry.finish_ms ?? 0)}`;
  return STATUS[entry.status] ?? entry.status;
}

export function createLeaderboard(host, { title = 'Leaderboard' } = {}) {
  const list = h('ol', { class: 'lb-list', 'aria-label': title });
  const el = h('section', { class: 'leaderboard', 'aria-label': title }, h('h2', { class: 'lb-title', text: title }), list);
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
      bar: h('span', { class: 'lb-bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '52' }),
      fill: h('span', { class: 'lb-fill' }),
      cards: h('span', { class: 'lb-cards' }),
      money: h('span', { class: 'lb-money' }),
      status: h('span', { class: 'lb-status' }),
    };
    r.bar.append(r.fill);
    r.li.append(r.rank, r.name, r.bar, r.cards, r.money, r.status);
    rows.set(seat, r);
    return r;
  }

  function render(entries, { me = -1 } = {}) {
    const seen = new Set();
    for (const entry of entries) {
      const r = row(entry.seat);
      seen.add(entry.seat);
      setText(r.rank, entry.rank ?? '');
      setText(r.name, entry.nickname + (entry.seat === me ? ' (you)' : ''));
      const n = entry.foundation ?? 0;
      r.fill.style.width = `${(n / 52) * 100}%`;
      setAttr(r.bar, 'aria-valuenow', n);
      setAttr(r.bar, 'aria-label', `${entry.nickname}: ${n} of 52 cards on the foundations`);
      setText(r.cards, `${n}/52`);
      setText(r.money, money(entry.vegas ?? -52));
      setText(r.status, statusText(entry));
      r.li.dataset.status = entry.status;
      toggle(r.li, 'me', entry.seat === me);
    }
    for (const [seat, r] of rows) {
      if (!seen.has(seat)) {
        r.li.remove();
        rows.delete(seat);
      }
    }
    const next = entries.map((e) => e.seat).join(',');
    if (next !== order || list.children.length !== entries.length) {
      order = next;
      flipList(list, () => {
        for (const entry of entries) list.append(rows.get(entry.seat).li);
      });
    }
  }

  return { el, render };
}
