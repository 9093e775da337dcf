/** Short messages for the player (toasts), read out by screen readers. */

import { h } from './dom.js';

const MAX = 3;

export function say(text, { bad = false, ms = 3500, action = null } = {}) {
  const host = document.getElementById('toasts');
  if (!host || !text) return;
  for (const old of host.children) {
    if (old.dataset.text === text) old.remove();
  }
  const toast = h('div', { class: bad ? 'toast bad' : 'toast', dataset: { text } }, h('span', { text }));
  if (action) {
    toast.append(h('button', {
      class: 'btn small accent', type: 'button', text: action.label,
      onclick: () => { toast.remove(); action.run(); },
    }));
  }
  host.append(toast);
  while (host.children.length > MAX) host.firstElementChild.remove();
  setTimeout(() => toast.remove(), action ? ms * 1.6 : ms);
}
