/** The how-to-play page drawn from its text (howto/en.js, …): its Markdown
as DOM nodes (markdown.js), with its two diagrams of the table drawn in
HTML and CSS from the game's own card faces (faces.js): no image file, no
build step. help.js shows it in the rules dialog. */

import { h } from '../dom.js';
import { render } from '../markdown.js';
import { faceUrl, markUrl } from '../faces.js';
import { SUITS } from '../cards.js';

const DIAGRAM = /^\{\{(\w+)\}\}$/;
/** The face-up card of each column in the picture of a deal. */
const DEALT = ['KS', '4D', '9C', 'QH', '7S', '2D', 'JC'];

/** A card of a diagram: a face (`"7H"`), the back (`null`), or an empty pile
with a suit's mark (`{empty: "S"}`) or none (`{empty: ""}`). */
function card(which) {
  const el = h('span', { class: 'hcard' });
  if (which && typeof which === 'object') {
    el.classList.add('empty');
    if (which.empty) el.style.backgroundImage = markUrl(which.empty);
  } else {
    el.style.backgroundImage = faceUrl(which);
    if (!which) el.classList.add('down');
  }
  return el;
}

function pile(cards, { fan = '' } = {}) {
  return h('span', { class: `hpile${fan ? ` fan-${fan}` : ''}` }, ...cards.map(card));
}

/** The table as a game starts: stock and waste, the foundations, seven columns. */
function tableDiagram(labels) {
  const stock = pile([null]);
  stock.append(h('span', { class: 'hcount', text: '24' }));
  const columns = DEALT.map((up, i) => pile([...Array(i).fill(null), up], { fan: 'down' }));
  return h('figure', { class: 'howto-figure', role: 'img', 'aria-label': labels.tableFigure },
    h('div', { class: 'howto-table' },
      h('span', { class: 'hlabel', text: labels.stock }),
      h('span', { class: 'hlabel', text: labels.waste }),
      h('span', { class: 'hlabel wide', text: labels.foundations }),
      stock, pile([{ empty: '' }]), h('span'),
      ...SUITS.map((s) => pile([{ empty: s }])),
      ...columns,
      h('span', { class: 'hlabel all', text: labels.columns })));
}

/** Building: a column down in alternating colours, a foundation up in one suit. */
function buildingDiagram(labels) {
  return h('figure', { class: 'howto-figure', role: 'img', 'aria-label': labels.buildingFigure },
    h('div', { class: 'howto-building' },
      h('div', {}, pile(['KS', 'QH', 'JC', 'TD', '9S'], { fan: 'down' }), h('span', { class: 'hlabel', text: labels.column })),
      h('div', {}, pile(['AH', '2H', '3H', '4H'], { fan: 'right' }), h('span', { class: 'hlabel', text: labels.foundation }))));
}

const DIAGRAMS = { table: tableDiagram, building: buildingDiagram };

/** The page's nodes: its text, a diagram wherever a paragraph names one. */
export function howtoNodes(page) {
  return render(page.text, { prefix: 'howto-' }).map((node) => {
    const m = node.tagName === 'P' && node.textContent.trim().match(DIAGRAM);
    const draw = m && DIAGRAMS[m[1]];
    return draw ? draw(page.labels) : node;
  });
}
