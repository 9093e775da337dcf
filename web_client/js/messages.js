/** Short messages for the player (toasts), read out by screen readers.

They show where the screen shown keeps a place for them (`.toasts` in it:
the race's, at the bottom of the table, over the felt: never over the
figures, the buttons or the leaderboard), else at the top of the page; taps
go through them (except on their own button); at most two at a time, the
newest replacing the oldest. `tone`: "bad" for a refusal, "win" for a
finish. */

import { h } from './dom.js';

const MAX = 2;

/** The shown screen's place for messages, else the page's. */
function place() {
  return document.querySelector('.screen:not([hidden]) .toasts') || document.getElementById('toasts');
}

export function say(text, { bad = false, tone = bad ? 'bad' : '', ms = 3000, action = null } = {}) {
  const host = place();
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

/** Take back the message `text` if it still shows (it no longer holds: a hint after an undo). */
export function unsay(text) {
  const host = place();
  if (!host || !text) return;
  for (const old of [...host.children]) {
    if (old.dataset.text === text) old.remove();
  }
}
