/** The pager of a ranking shown a page at a time (a big room's field, a big
tournament's standings): Previous, "Ranks 26–50 of 4 212", Next, Top and
My place. It asks for pages through `ask(first)`; what came is drawn by
`render(page)`, `page` being `{first, of, lines}` or null while awaited.
Beside it, the nickname search form both rankings have. */

import { h, setText, show } from '../dom.js';
import { count } from '../format.js';

/** size: lines in a page; ask(first): ask for the page from rank `first`;
mine(): the viewer's own rank, or null (no "My place"); label: the nav's name. */
export function createPager({ size, ask, mine, label }) {
  let shown = null;
  const turn = (step) => {
    const from = shown ? shown.first + step * size : 1;
    if (from >= 1 && (!shown || from <= shown.of)) ask(from);
  };
  const prev = h('button', { class: 'btn small', type: 'button', text: '‹ Previous', onclick: () => turn(-1) });
  const next = h('button', { class: 'btn small', type: 'button', text: 'Next ›', onclick: () => turn(1) });
  const top = h('button', { class: 'btn small ghost', type: 'button', text: 'Top', onclick: () => ask(1) });
  const own = h('button', { class: 'btn small ghost', type: 'button', text: 'My place', onclick: () => {
    const rank = mine();
    if (rank) ask(Math.floor((rank - 1) / size) * size + 1);
  } });
  const where = h('span', { class: 'field-where', 'aria-live': 'polite' });
  const el = h('nav', { class: 'field-pager', 'aria-label': label }, prev, where, next, top, own);

  function render(page) {
    shown = page;
    const lines = page ? page.lines : [];
    const last = page ? Math.min(page.of, page.first + lines.length - 1) : 0;
    setText(where, page ? (lines.length ? `Ranks ${count(page.first)}–${count(last)} of ${count(page.of)}`
      : `No ranks from ${count(page.first)} on (${count(page.of)} in all)`) : 'Loading…');
    prev.disabled = !page || page.first <= 1;
    next.disabled = !page || last >= page.of;
    top.disabled = !page || page.first === 1;
    show(own, Boolean(mine()));
  }

  return { el, render };
}

/** The search form beside such a ranking: a nickname box and Find, which
calls `find(nickname)`. name: the box's form name; label: its accessible name. */
export function createFindForm({ name, label, find }) {
  const input = h('input', { type: 'search', name, maxLength: 20, autocomplete: 'off', spellcheck: false,
    placeholder: 'Nickname', 'aria-label': label, enterKeyHint: 'search' });
  const form = h('form', { class: 'field-find', role: 'search' },
    input, h('button', { class: 'btn primary', type: 'submit', text: 'Find' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    find(input.value);
  });
  return { form, input };
}
