/** The field's progress as a picture: one bar per number of cards on the
foundations (0 to 52), as tall as how many players have that many, from a
big room's tick (`top.hist`, counted over the whole field by the server).
The bar of the viewer's own count (or the followed player's) is marked.

Bars are drawn on a square-root scale, so that the few players far ahead
still show beside the crowd at the start; each bar's count is in its label
(a tap or a hover shows it in the caption). */

import { h, setAttr, setText, toggle } from '../dom.js';
import { count } from '../format.js';
import { TEXT } from '../text.js';

const T = TEXT.histogram;

const BINS = 53;
const STATUSES = ['racing', 'finished', 'resigned', 'left', 'unfinished'];

function players(n) {
  return T.players(n, count(n));
}

/** "4 100 racing · 12 finished · 90 resigned" from a tick's status counts. */
function statusCounts(status) {
  return STATUSES.filter((key) => status && status[key] > 0)
    .map((key) => T.status[key](count(status[key]))).join(' · ');
}

export function createHistogram(host, { title = T.title } = {}) {
  const bars = [];
  const chart = h('div', { class: 'hist-bars', role: 'img' });
  for (let k = 0; k < BINS; k += 1) {
    const bar = h('span', { class: 'hist-bar', dataset: { k: String(k), count: '0' } });
    bars.push(bar);
    chart.append(bar);
  }
  const axis = h('div', { class: 'hist-axis', 'aria-hidden': 'true' },
    ...[0, 13, 26, 39, 52].map((k) => h('span', { text: String(k) })));
  const caption = h('p', { class: 'hist-caption' });
  const counts = h('p', { class: 'hist-status' });
  const el = h('section', { class: 'histogram', 'aria-label': title },
    h('h2', { class: 'hist-title', text: title }), chart, axis, caption, counts);
  host.append(el);

  let last = null; // what the caption says when no bar is pointed at
  let pointed = -1;
  const point = (e) => {
    const bar = e.target.closest('.hist-bar');
    pointed = bar ? Number(bar.dataset.k) : -1;
    paintCaption();
  };
  chart.addEventListener('pointerover', point);
  chart.addEventListener('pointerdown', point);
  chart.addEventListener('pointerleave', () => { pointed = -1; paintCaption(); });

  function paintCaption() {
    if (!last) return;
    if (pointed >= 0) {
      setText(caption, T.bar(pointed, players(last.hist[pointed] || 0)));
      return;
    }
    setText(caption, last.text);
  }

  /**
   * hist: 53 counts; status: the tick's status counts; mark: the cards home
   * of the one to mark (null: none) and who it is (null: you, or a nickname).
   */
  function render(hist, { status = null, mark = null, who = null } = {}) {
    const values = Array.from({ length: BINS }, (_, k) => Math.max(0, Number((hist || [])[k]) || 0));
    const total = values.reduce((a, b) => a + b, 0);
    const top = Math.max(1, ...values);
    for (let k = 0; k < BINS; k += 1) {
      const bar = bars[k];
      const n = values[k];
      bar.style.height = n ? `${Math.max(4, Math.sqrt(n / top) * 100)}%` : '0';
      if (bar.dataset.count !== String(n)) bar.dataset.count = String(n);
      setAttr(bar, 'title', T.bar(k, players(n)));
      toggle(bar, 'mark', mark === k);
    }
    let text;
    if (mark != null && total) {
      const ahead = values.slice(mark + 1).reduce((a, b) => a + b, 0);
      const behind = values.slice(0, mark).reduce((a, b) => a + b, 0);
      text = who == null ? T.youHave(mark, count(ahead), count(behind)) : T.theyHave(who, mark, count(ahead), count(behind));
    } else {
      text = total ? T.byCards(players(total)) : T.nobody;
    }
    last = { hist: values, text };
    setAttr(chart, 'aria-label', T.chart(players(total),
      values.map((n, k) => (n ? T.bin(k, count(n)) : '')).filter(Boolean).join('; ')));
    paintCaption();
    setText(counts, statusCounts(status));
  }

  return { el, render };
}
