/** The public top lists of ratings (/ratings, /ratings/d3): for each rating
family, the players no longer provisional, best first, a page of 50 at a
time, read from `GET /api/ratings/{family}?first=&count=` (docs/protocol.md,
"Ratings"). Every figure is the server's; each name links to the player's
page. */

import { h, setText, show } from '../dom.js';
import { go } from '../navigation.js';
import { count } from '../format.js';
import { FAMILIES } from './ratingchart.js';
import { createPager } from './pager.js';
import { TEXT } from '../text.js';

const R = TEXT.ratings;
const PAGE = 50;

function link(text, path, props = {}) {
  return h('a', { href: path, text, ...props, onclick: (e) => { e.preventDefault(); go(path); } });
}

export function createTopList(root, app) {
  const tabs = FAMILIES.map((f) => link(R.family[f], `/ratings/${f}`, { class: 'btn small', dataset: { family: f } }));
  const body = h('tbody');
  const table = h('table', { class: 'r-table' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'r-place', text: R.place }),
      h('th', { scope: 'col', text: R.player }),
      h('th', { scope: 'col', class: 'r-rating', text: R.rating }))),
    body);
  const empty = h('p', { class: 't-note r-empty', hidden: true, text: R.empty });
  const failed = h('p', { class: 't-problem', role: 'alert', hidden: true, text: R.failed });
  const pager = createPager({ size: PAGE, ask: (first) => load(family, first), mine: () => null, label: R.pages });
  const heading = h('h2', { id: 'r-list-title' });
  const el = h('section', { class: 'screen ratings', 'aria-labelledby': 'r-title' },
    h('header', { class: 'topbar' }, link(TEXT.title, '/', { class: 'brand' }), h('span', { class: 't-spacer' }),
      link(R.back, '/', { class: 'btn small ghost' })),
    h('div', { class: 't-page r-page' },
      h('header', { class: 't-hero' }, h('h1', { id: 'r-title', text: R.pageTitle }),
        h('p', { class: 't-sub', text: R.listNote })),
      h('nav', { class: 'r-tabs buttons', 'aria-label': R.tabs }, ...tabs),
      h('section', { class: 'panel r-list', 'aria-labelledby': 'r-list-title' },
        heading, failed, table, empty, pager.el)));
  root.append(el);

  let family = '';
  let asked = ''; // the page asked last ("d1/51"): an older answer is dropped
  let page = null; // {family, first, of, lines}

  async function load(f, first) {
    const want = `${f}/${first}`;
    asked = want;
    page = null;
    app.changed();
    let got = null;
    try {
      const res = await fetch(`/api/ratings/${f}?first=${first}&count=${PAGE}`);
      got = res.ok ? await res.json() : null;
    } catch {
      got = null;
    }
    if (asked !== want) return;
    page = got || { family: f, first, of: 0, lines: [], failed: true };
    app.changed();
  }

  function row(line) {
    return h('tr', { dataset: { player: line.id } },
      h('td', { class: 'r-place', text: count(line.place) }),
      h('td', {}, link(line.nickname, `/p/${line.id}`)),
      h('td', { class: 'r-rating', text: String(line.rating) }));
  }

  let drawn = null;
  function render(s) {
    const want = FAMILIES.includes(s.route.family) ? s.route.family : FAMILIES[0];
    if (want !== family) {
      family = want;
      load(family, 1);
    }
    app.title.screen(`${R.pageTitle} · ${R.family[family]}`);
    setText(heading, R.family[family]);
    for (const tab of tabs) {
      const on = tab.dataset.family === family;
      tab.classList.toggle('primary', on);
      if (on) tab.setAttribute('aria-current', 'page');
      else tab.removeAttribute('aria-current');
    }
    if (drawn === page) return;
    drawn = page;
    show(failed, Boolean(page && page.failed));
    body.replaceChildren(...(page ? page.lines.map(row) : []));
    show(table, Boolean(page && page.lines.length));
    show(empty, Boolean(page && !page.failed && page.of === 0));
    pager.render(page && !page.failed && page.of ? page : null);
    show(pager.el, Boolean(page && page.of > PAGE));
  }

  return {
    el,
    show() {
      el.hidden = false;
      family = ''; // read afresh each time the page shows
    },
    hide() {
      el.hidden = true;
    },
    render,
  };
}
