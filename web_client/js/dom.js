/** Small DOM helpers: elements are built with h() and updated in place. */

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child != null && child !== false) el.append(child);
  }
  return el;
}

/** Set text only when it changed (no needless layout work). */
export function setText(el, text) {
  const value = String(text);
  if (el.textContent !== value) el.textContent = value;
}

/** Set or remove an attribute only when it changed. */
export function setAttr(el, name, value) {
  if (value == null || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
    return;
  }
  const text = value === true ? '' : String(value);
  if (el.getAttribute(name) !== text) el.setAttribute(name, text);
}

export function toggle(el, className, on) {
  if (el.classList.contains(className) !== Boolean(on)) el.classList.toggle(className, Boolean(on));
}

export function show(el, on) {
  if (el.hidden === Boolean(on)) el.hidden = !on;
}

/** Whether the keyboard event comes from a place that types text. */
export function typing(event) {
  const t = event.target;
  return t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
}

/** A click on a modal <dialog>'s backdrop (pressed and let go outside its box)
calls `onOutside`, by default closing the dialog as Escape does: the light
dismiss of `closedby="any"`, done here for the browsers without it. */
export function closeOnBackdrop(dialog, onOutside = () => dialog.close()) {
  const outside = (e) => {
    if (e.target !== dialog) return false; // a click in the dialog's content
    const r = dialog.getBoundingClientRect();
    return e.clientX < r.left || e.clientX >= r.right || e.clientY < r.top || e.clientY >= r.bottom;
  };
  let pressed = false; // a selection dragged out of the dialog is not a click outside it
  dialog.addEventListener('pointerdown', (e) => { pressed = outside(e); });
  dialog.addEventListener('click', (e) => {
    if (pressed && outside(e)) onOutside();
    pressed = false;
  });
}

/** The page's title, one per page (app.title): each screen says its own
(`screen`), a dialog over the screens may hold the page's title while it is
open (`cover`, then `uncover`), and the screen's latest comes back then.
Screens are drawn often (every frame, every second): while a dialog holds
the title they do not take it back. */
export function createTitle() {
  let screen = document.title;
  let covered = false;
  return {
    screen(text) {
      screen = text;
      if (!covered && document.title !== text) document.title = text;
    },
    cover(text) {
      covered = true;
      document.title = text;
    },
    uncover() {
      covered = false;
      document.title = screen;
    },
  };
}

/** A screen as main.js shows it (`{el, show, hide, render}`): while it shows,
`tick` runs every `every` ms (its clocks and countdowns move between two
frames); `hidden` runs when it hides. */
export function timedScreen(el, { render, tick, every, hidden = null }) {
  let timer = 0;
  return {
    el,
    show() {
      el.hidden = false;
      clearInterval(timer);
      timer = setInterval(tick, every);
    },
    hide() {
      el.hidden = true;
      clearInterval(timer);
      timer = 0;
      if (hidden) hidden();
    },
    render,
  };
}
