/** Short messages for the player (toasts), read out by screen readers.

They show at the top of the screen, over the bar of figures, never over the
buttons or the leaderboard, and let taps through (except on their own
button); at most two at a time, the newest replacing the oldest. `tone`:
"bad" for a refusal, "win" for a finish. */

import { h } from './dom.js';

const MAX = 2;

export function say(text, { bad = false, tone = bad ? 'bad' : '', ms = 3000, action = null } = {}) {
  const host = document.getElementById('toasts');
  if (!host || !text) return;
  for (const old of host.children) {
    if (old.dataset.text === text) old.remove();
  }
  const toast = h('div', { class: tone ? `toast ${tone}` : 'toast', dataset: { text } }, h('span', { text }));
  if (action) {
    toast.append(h('button', {
      class: 'btn small accent', type: 'button', text: action.label,
      onclick: () => { toast.remove(); action.run(); },
    }));
  }
  host.append(toast);
  while (host.children.length > MAX) host.firstElementChild.remove();
  setTimeout(() => toast.remove(), tone === 'win' ? ms * 2 : action ? ms * 1.6 : ms); // a finish is news
}
