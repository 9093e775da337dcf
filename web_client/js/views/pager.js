/** The pager of a ranking shown a page at a time (a big room's field, a big
tournament's standings): Previous, "Ranks 26–50 of 4 212", Next, Top and
My place. It asks for pages through `ask(first)`; what came is drawn by
`render(page)`, `page` being `{first, of, lines}` or null while awaited.
Beside it, the nickname search form both rankings have. */

import { h, setText, show } from '../dom.js';
import { count } from '../format.js';
import { TEXT } from '../text.js';

const P = TEXT.pager;

/** size: lines in a page; ask(first): ask for the page from rank `first`;
mine(): the viewer's own rank, or null (no "My place"); label: the nav's name. */
export function createPager({ size, ask, mine, label }) {
  let shown = null;
  const turn = (step) => {
    const from = shown ? shown.first + step * size : 1;
    if (from >= 1 && (!shown || from <= shown.of)) ask(from);
  };
  const prev = h('button', { class: 'btn small', type: 'button', text: P.previous, onclick: () => turn(-1) });
  const next = h('button', { class: 'btn small', type: 'button', text: P.next, onclick: () => turn(1) });
  const top = h('button', { class: 'btn small ghost', type: 'button', text: P.top, onclick: () => ask(1) });
  const own = h('button', { class: 'btn small ghost', type: 'button', text: P.mine, onclick: () => {
    const rank = mine();
    if (rank) ask(Math.floor((rank - 1) / size) * size + 1);
  } });
  const where = h('span', { class: 'field-where', 'aria-live': 'polite' });
  const el = h('nav', { class: 'field-pager', 'aria-label': label }, prev, where, next, top, own);

  function render(page) {
    shown = page;
    const lines = page ? page.lines : [];
    const last = page ? Math.min(page.of, page.first + lines.length - 1) : 0;
    setText(where, page ? (lines.length ? P.ranks(count(page.first), count(last), count(page.of))
      : P.none(count(page.first), count(page.of))) : P.loading);
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
    placeholder: P.nickname, 'aria-label': label, enterKeyHint: 'search' });
  const form = h('form', { class: 'field-find', role: 'search' },
    input, h('button', { class: 'btn primary', type: 'submit', text: P.find }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    find(input.value);
  });
  return { form, input };
}
