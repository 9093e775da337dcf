/** A player's ratings on their page: each family's rating ("1563", "1500?"
while provisional) and a small chart of their last rated races, drawn here
as SVG from the figures the server sent (`ratings`, `rated` of the public
profile): no image is fetched. */

import { h } from '../dom.js';
import { TEXT } from '../text.js';
import { ratingText } from './results.js';

const R = TEXT.ratings;
const NS = 'http://www.w3.org/2000/svg';
const W = 300;
const H = 80;
export const FAMILIES = ['d1', 'd3']; // the rating families (docs/protocol.md, "Ratings")

function svg(tag, attrs) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The points of one family's line, oldest first, in the chart's box. */
function chartPoints(ratings, width = W, height = H) {
  if (!ratings.length) return [];
  const low = Math.min(...ratings) - 10;
  const high = Math.max(...ratings) + 10;
  const step = ratings.length > 1 ? width / (ratings.length - 1) : 0;
  return ratings.map((r, i) => [Math.round(i * step), Math.round(height - ((r - low) / (high - low)) * height)]);
}

export function createRatingChart() {
  const figures = h('div', { class: 'p-figures p-ratings' });
  const charts = h('div', { class: 'p-rating-charts' });
  const note = h('p', { class: 't-note' });
  const el = h('section', { class: 'panel p-rating', 'aria-labelledby': 'p-rating-title' },
    h('h2', { id: 'p-rating-title', text: R.title }), figures, charts, note);
  let drawn = '';

  function render(data) {
    const key = JSON.stringify([data.ratings, data.rated]);
    if (key === drawn) return;
    drawn = key;
    const ratings = data.ratings || {};
    const rated = (data.rated || []).slice().reverse(); // oldest first
    figures.replaceChildren(...FAMILIES.filter((f) => ratings[f]).map((f) => h('div', { class: 'p-figure' },
      h('strong', { class: 'p-figure-value', text: ratingText(ratings[f]) }),
      h('span', { text: R.family[f] }))));
    charts.replaceChildren(...FAMILIES.map((f) => {
      const line = rated.filter((r) => r.family === f).map((r) => r.rating);
      if (line.length < 2) return null;
      const chart = svg('svg', { viewBox: `-4 -4 ${W + 8} ${H + 8}`, class: 'p-rating-chart',
        role: 'img', 'aria-label': R.chart(R.family[f], line[0], line[line.length - 1], line.length) });
      chart.append(svg('polyline', { points: chartPoints(line).map((p) => p.join(',')).join(' ') }));
      return chart;
    }).filter(Boolean));
    note.textContent = rated.length ? '' : R.none;
  }

  return { el, render };
}
