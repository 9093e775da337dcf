/** The sequence chooser: which card of a column a move starts from.
Opened by a long press or by arrow up/down on a column; up/down (or the
buttons) change the start card, Enter or "Take" confirms, Escape cancels. */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { cardLabel, cardShort, isRed, plural } from '../cards.js';

export function createSeqPanel(host, input) {
  const title = h('p', { class: 'seq-title', id: 'seq-title' });
  const list = h('ol', { class: 'seq-list', role: 'listbox', 'aria-labelledby': 'seq-title' });
  const el = h('div', { class: 'seqpanel', role: 'dialog', 'aria-labelledby': 'seq-title', hidden: true },
    title,
    list,
    h('div', { class: 'seq-buttons' },
      h('button', { class: 'btn small', type: 'button', text: '▲ More', onclick: () => input.panelStep(1) }),
      h('button', { class: 'btn small', type: 'button', text: '▼ Fewer', onclick: () => input.panelStep(-1) }),
      h('button', { class: 'btn small primary', type: 'button', text: 'Take', onclick: () => input.confirmPanel() }),
      h('button', { class: 'btn small', type: 'button', text: 'Cancel', onclick: () => input.cancel() })),
    h('p', { class: 'seq-keys', text: '↑ ↓ choose · Enter take · Esc cancel' }));
  host.append(el);
  let shown = '';

  function render(view, panel) {
    show(el, Boolean(view && panel));
    if (!view || !panel) {
      shown = '';
      return;
    }
    const n = Number(panel.from.slice(1));
    const up = view.tableau[n - 1].up;
    const key = `${panel.from}:${up.join(',')}`;
    if (key !== shown) {
      shown = key;
      list.replaceChildren(...up.map((card, i) => h('li', {
        role: 'option', class: isRed(card) ? 'red' : '', 'aria-label': cardLabel(card), text: cardShort(card),
        onclick: () => input.panelPick(up.length - i),
      })));
    }
    const start = up.length - panel.count;
    [...list.children].forEach((li, i) => {
      toggle(li, 'on', i >= start);
      setAttr(li, 'aria-selected', i === start ? 'true' : 'false');
    });
    setText(title, `Column ${n}: move ${plural(panel.count, 'card')} from ${cardShort(up[start])}`);
  }

  return { el, render };
}
