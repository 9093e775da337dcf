/** A table that folds when it would not fit its box (a phone, a narrow side
column): the columns that matter stay, the cells marked `extra` go, and each
row's name cell says what they said in a line under the name, on demand (a
toggle above the table): its `data-sub`, drawn by CSS, so the cell's text
stays the name. Never a sideways scroll inside a panel.

`wrap` is the table's box (its width is what the table must fit), `table`
the table, `label` the toggle's (a toggle button: its label stays, its
`aria-pressed` says whether the line shows); the caller puts the toggle
(`button`) where it reads best, above the table. The fold is measured again whenever the box changes size, and
`fit()` after the rows changed. */

import { h, setAttr, show, toggle } from '../dom.js';

export function createFold(wrap, table, label) {
  let open = false;
  const button = h('button', { class: 'btn small fold-toggle', type: 'button', hidden: true, 'aria-pressed': 'false',
    text: label, onclick: () => { open = !open; draw(); } });
  let pending = 0;
  const observer = new ResizeObserver(() => {
    if (!pending) pending = requestAnimationFrame(() => { pending = 0; fit(); });
  });
  observer.observe(wrap);

  function draw() {
    toggle(table, 'all', open);
    setAttr(button, 'aria-pressed', open ? 'true' : 'false');
  }

  /** Fold the table if its columns are wider than its box. */
  function fit() {
    if (!wrap.clientWidth) return; // hidden: measured when it shows (the observer)
    table.classList.remove('folded');
    const folded = wrap.scrollWidth > wrap.clientWidth + 1;
    toggle(table, 'folded', folded);
    show(button, folded);
    draw();
  }

  return { button, fit };
}

/** The line under a row's name that says its `extra` cells when folded
(the name cell's `data-sub`). */
export function foldSub(parts) {
  return parts.filter(Boolean).join(' · ');
}
