/** Asking before something that cannot be taken back (leaving a race, a new
deal over a game in progress): a modal <dialog> with the question, what it
costs, and two buttons; Escape, "Stay" or a click outside it says no. The race screen makes one
(`createConfirm`); its dialog is built the first time it asks. */

import { closeOnBackdrop, h, setText } from '../dom.js';

export function createConfirm() {
  let dialog = null;
  let answer = null; // the open question's resolve

  function build() {
    const title = h('h2', { id: 'confirm-title' });
    const text = h('p', { class: 'confirm-text' });
    const yes = h('button', { class: 'btn danger', type: 'button', onclick: () => done(true) });
    const no = h('button', { class: 'btn primary', type: 'button', onclick: () => done(false) });
    const el = h('dialog', { class: 'dialog confirm', 'aria-labelledby': 'confirm-title' },
      title, text, h('div', { class: 'dialog-actions' }, yes, no));
    // Escape: no. The event comes a moment after the closing, by which time a
    // key may have asked a new question (N, "Keep playing", N): that one stands.
    el.addEventListener('close', () => {
      if (!el.open) done(false);
    });
    closeOnBackdrop(el, () => done(false));
    document.body.append(el);
    return { el, title, text, yes, no };
  }

  function done(ok) {
    const resolve = answer;
    answer = null;
    if (dialog && dialog.el.open) dialog.el.close();
    if (resolve) resolve(ok);
  }

  /** Resolves to true if the player confirms. The safe choice has the focus. */
  function confirm({ title, text = '', yes, no = 'Stay' }) {
    if (!dialog) dialog = build();
    if (answer) done(false);
    setText(dialog.title, title);
    setText(dialog.text, text);
    dialog.text.hidden = !text;
    setText(dialog.yes, yes);
    setText(dialog.no, no);
    return new Promise((resolve) => {
      answer = resolve;
      dialog.el.showModal();
      dialog.no.focus();
    });
  }

  /** Whether a question is open (the table's keys wait meanwhile). */
  function asking() {
    return Boolean(dialog && dialog.el.open);
  }

  return { confirm, asking };
}
