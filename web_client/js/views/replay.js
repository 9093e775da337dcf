/** A player's round, step by step: the replay endpoint sends the public view
after each stored command, and the table renderer draws it. Nothing is
computed here; ←/→ (or the buttons, or the slider) walk through the steps. */

import { h, setText, show } from '../dom.js';
import { Board } from '../render.js';

const STEP_WORDS = { draw: 'draw from the stock', recycle: 'turn the waste over', undo: 'undo', resign: 'resign' };

export function createReplay(host) {
  const heading = h('h2', { id: 'replay-title' });
  const status = h('p', { class: 'replay-step', role: 'status' });
  const boardHost = h('div', { class: 'replay-board' });
  const slider = h('input', { type: 'range', min: 0, max: 0, value: 0, 'aria-label': 'Step' });
  const first = h('button', { class: 'btn small', type: 'button', text: '⏮', 'aria-label': 'First step', onclick: () => go(0) });
  const back = h('button', { class: 'btn small', type: 'button', text: '◀', 'aria-label': 'Step back', onclick: () => go(i - 1) });
  const next = h('button', { class: 'btn small', type: 'button', text: '▶', 'aria-label': 'Next step', onclick: () => go(i + 1) });
  const last = h('button', { class: 'btn small', type: 'button', text: '⏭', 'aria-label': 'Last step', onclick: () => go(steps.length - 1) });
  const play = h('button', { class: 'btn small primary', type: 'button', text: 'Play', onclick: () => toggle() });
  const closeBtn = h('button', { class: 'btn small ghost', type: 'button', text: 'Close', onclick: () => close() });
  const el = h('section', { class: 'replay', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'replay-title', hidden: true },
    h('div', { class: 'replay-head' }, heading, closeBtn),
    boardHost,
    status,
    h('div', { class: 'replay-controls' }, first, back, play, next, last, slider));
  host.append(el);
  const board = new Board(boardHost, { interactive: false, label: 'Replayed table' });
  let steps = [];
  let i = 0;
  let timer = 0;
  let opener = null;
  let asked = 0;

  slider.addEventListener('input', () => go(Number(slider.value)));
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') close();
    else if (e.key === 'ArrowRight' && e.target !== slider) go(i + 1);
    else if (e.key === 'ArrowLeft' && e.target !== slider) go(i - 1);
    else return;
    e.preventDefault();
  });

  function go(n) {
    if (!steps.length) return;
    i = Math.max(0, Math.min(steps.length - 1, n));
    const step = steps[i];
    board.update(step.view, {});
    slider.value = String(i);
    const what = step.command == null ? 'the deal' : (STEP_WORDS[step.command] ?? step.command);
    setText(status, `Step ${i} of ${steps.length - 1}: ${what} · ${step.view.foundation_cards}/52 cards · ${step.view.moves} moves`);
    first.disabled = back.disabled = i === 0;
    next.disabled = last.disabled = i === steps.length - 1;
    if (i === steps.length - 1) stop();
  }

  function stop() {
    clearInterval(timer);
    timer = 0;
    setText(play, 'Play');
  }

  function toggle() {
    if (timer) {
      stop();
      return;
    }
    if (i === steps.length - 1) go(0);
    setText(play, 'Pause');
    timer = setInterval(() => go(i + 1), 350);
  }

  /** Fetch and show `url` (a replay JSON; a room's comes a page at a time:
  every page is read); `title` names it; `token`: a seat token that opens
  a challenge's replay before its close (sent as `Authorization`). */
  async function open(url, title, { token = '' } = {}) {
    opener = document.activeElement;
    const ticket = ++asked;
    steps = [];
    stop();
    setText(heading, title);
    setText(status, 'Loading the replay…');
    show(el, true);
    closeBtn.focus();
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    try {
      let read = [];
      for (;;) {
        const page = read.length ? `${url}${url.includes('?') ? '&' : '?'}first=${read.length}` : url;
        const reply = await fetch(page, { headers });
        if (!reply.ok) throw new Error(await reply.text());
        const data = await reply.json();
        if (ticket !== asked) return;
        read = read.concat(data.steps || []);
        if (data.of == null || read.length >= data.of || !(data.steps || []).length) break;
      }
      steps = read;
      slider.max = String(Math.max(0, steps.length - 1));
      go(0);
    } catch {
      if (ticket === asked) setText(status, 'The replay could not be loaded.');
    }
  }

  function close() {
    if (el.hidden) return;
    stop();
    asked += 1;
    show(el, false);
    if (opener && opener.isConnected) opener.focus();
  }

  return { el, open, close };
}
