/** A player's game (a tournament's round, a room's race, a challenge's),
step by step: the replay endpoint sends the public view after each stored
command, a page of steps at a time (`first`, `of`: the steps in all), and
the table renderer draws it. Nothing is computed here; ←/→ (or the buttons,
or the slider) walk through the steps, and a page is fetched when a step of
it is first shown (the next one a little ahead). */

import { h, setText, show } from '../dom.js';
import { Board } from '../render.js';
import { plural } from '../cards.js';

const STEP_WORDS = { draw: 'draw from the stock', recycle: 'turn the waste over', undo: 'undo', resign: 'resign' };
const PAGE = 100; // steps the server sends at most at once

export function createReplay(host) {
  const heading = h('h2', { id: 'replay-title' });
  const status = h('p', { class: 'replay-step', role: 'status' });
  const boardHost = h('div', { class: 'replay-board' });
  const slider = h('input', { type: 'range', min: 0, max: 0, value: 0, 'aria-label': 'Step' });
  const first = h('button', { class: 'btn small', type: 'button', text: '⏮', 'aria-label': 'First step', onclick: () => go(0) });
  const back = h('button', { class: 'btn small', type: 'button', text: '◀', 'aria-label': 'Step back', onclick: () => go(i - 1) });
  const next = h('button', { class: 'btn small', type: 'button', text: '▶', 'aria-label': 'Next step', onclick: () => go(i + 1) });
  const last = h('button', { class: 'btn small', type: 'button', text: '⏭', 'aria-label': 'Last step', onclick: () => go(total - 1) });
  const play = h('button', { class: 'btn small primary', type: 'button', text: 'Play', onclick: () => toggle() });
  const closeBtn = h('button', { class: 'btn small ghost', type: 'button', text: 'Close', onclick: () => close() });
  const el = h('section', { class: 'replay', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'replay-title', hidden: true },
    h('div', { class: 'replay-head' }, heading, closeBtn),
    boardHost,
    status,
    h('div', { class: 'replay-controls' }, first, back, play, next, last, slider));
  host.append(el);
  const board = new Board(boardHost, { interactive: false, label: 'Replayed table' });
  let steps = []; // every step, once its page came (a hole until then)
  let total = 0;
  let pages = new Map(); // first step of a page -> its fetch
  let source = '';
  let headers = {}; // a challenge's seat token, if the replay needs one
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
    if (!total) return;
    i = Math.max(0, Math.min(total - 1, n));
    slider.value = String(i);
    first.disabled = back.disabled = i === 0;
    next.disabled = last.disabled = i === total - 1;
    if (i === total - 1) stop();
    if (i + PAGE / 4 < total) page(i + PAGE / 4); // ahead of a player walking forward
    const step = steps[i];
    if (!step) {
      setText(status, `Step ${i} of ${total - 1}: loading…`);
      const wanted = i;
      page(i).then(() => { if (i === wanted && steps[i]) go(i); });
      return;
    }
    board.update(step.view, {});
    const what = step.command == null ? 'the deal' : (STEP_WORDS[step.command] ?? step.command);
    setText(status, `Step ${i} of ${total - 1}: ${what} · ${step.view.foundation_cards}/52 cards · ${plural(step.view.moves, 'move')}`);
  }

  /** The page holding step `n`, fetched once; resolves when its steps are in. */
  function page(n) {
    const at = n - (n % PAGE);
    if (!pages.has(at)) {
      const ticket = asked;
      pages.set(at, fetchPage(at).then((data) => {
        if (ticket !== asked) return;
        (data.steps || []).forEach((s, k) => { steps[at + k] = s; });
      }).catch(() => { pages.delete(at); }));
    }
    return pages.get(at);
  }

  async function fetchPage(at) {
    const reply = await fetch(`${source}?first=${at}&count=${PAGE}`, { headers });
    if (!reply.ok) throw new Error(await reply.text());
    return reply.json();
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
    if (i === total - 1) go(0);
    setText(play, 'Pause');
    timer = setInterval(() => { if (steps[i]) go(i + 1); }, 350); // waits for a page on its way
  }

  /** Fetch and show `url` (a replay's address, without a query: its pages
  are asked for as they are needed); `title` names it; `token`: a seat token
  that opens a challenge's replay before its close (sent as `Authorization`
  with every page). */
  async function open(url, title, { token = '' } = {}) {
    opener = document.activeElement;
    const ticket = ++asked;
    steps = [];
    total = 0;
    pages = new Map();
    source = url;
    stop();
    setText(heading, title);
    setText(status, 'Loading the replay…');
    show(el, true);
    closeBtn.focus();
    headers = token ? { Authorization: `Bearer ${token}` } : {};
    try {
      const data = await fetchPage(0);
      if (ticket !== asked) return;
      (data.steps || []).forEach((s, k) => { steps[k] = s; });
      pages.set(0, Promise.resolve());
      total = data.of ?? steps.length;
      slider.max = String(Math.max(0, total - 1));
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
