/** Help for newcomers: "How a race works" on one screen (shown once, on the
first visit; again from the lobby and the table's "?"), and the rules page,
which is the project's rule book itself: docs/rules.md, served as
/rules.md and drawn by markdown.js (one source of truth: nothing here
restates a rule).

Both are modal <dialog>s: above everything, the focus kept inside, Escape
closes, and so does a click outside. The rules also have an address of their
own, /rules. One help per page (main.js makes it, app.dialogs.help); its
dialogs are built the first time one opens. Whoever opens one may say what
happens once it is closed (`then`: the table takes its keyboard back).
*/

import { closeOnBackdrop, h } from '../dom.js';
import { render } from '../markdown.js';
import { TEXT } from '../text.js';

const E = TEXT.help;

const SEEN = 'kr.intro';


/** Whether this browser has seen the introduction. */
function seenIntro() {
  try {
    return localStorage.getItem(SEEN) === '1';
  } catch {
    return true;
  }
}

function remember() {
  try {
    localStorage.setItem(SEEN, '1');
  } catch {
    /* private mode: it shows again next time */
  }
}

const TITLE = E.page;

export function createHelp() {
  let dialogs = null; // built the first time one opens
  let before = ''; // the page's title while the rules show
  const onClose = { intro: null, rules: null };

  function build() {
    const introTitle = h('h2', { id: 'intro-title', text: E.introTitle });
    const rulesBtn = h('button', { class: 'btn', type: 'button', text: E.readRules, onclick: () => openRules() });
    const intro = h('dialog', { class: 'dialog intro', 'aria-labelledby': 'intro-title' },
      introTitle,
      h('ol', { class: 'intro-steps' }, ...E.steps.map(([title, text], i) => h('li', {},
        h('span', { class: 'intro-n', 'aria-hidden': 'true', text: String(i + 1) }),
        h('div', {}, h('strong', { text: title }), h('p', { text }))))),
      // Play is the default (it has the focus as the dialog opens): Enter plays, never opens the rule book
      h('div', { class: 'dialog-actions' }, rulesBtn,
        h('button', { class: 'btn primary', type: 'button', text: E.play, autofocus: true,
          onclick: () => intro.close() })));
    intro.addEventListener('close', () => {
      remember();
      after('intro');
    });

    const body = h('div', { class: 'rules-body' }, h('p', { class: 'rules-loading', text: E.loading }));
    const rules = h('dialog', { class: 'dialog rules', 'aria-labelledby': 'rules-title' },
      h('div', { class: 'dialog-head' },
        h('h2', { id: 'rules-title', text: E.rules }),
        h('button', { class: 'btn small', type: 'button', text: E.close, onclick: () => rules.close() })),
      body);
    rules.addEventListener('close', () => {
      if (rules.open) return; // opened again before this event came
      if (location.pathname === '/rules') history.replaceState(null, '', '/');
      document.title = before || document.title;
      after('rules');
    });
    for (const d of [intro, rules]) closeOnBackdrop(d);
    document.body.append(intro, rules);
    return { intro, rules, body, loaded: false };
  }

  function after(which) {
    const fn = onClose[which];
    onClose[which] = null;
    if (fn) fn();
  }

  function ensure() {
    if (!dialogs) dialogs = build();
    return dialogs;
  }

  /** `then` runs once it is closed (the table takes its keyboard focus back). */
  function openIntro({ then = null } = {}) {
    const d = ensure();
    onClose.intro = then;
    if (!d.intro.open) d.intro.showModal();
  }

  /** The rules, fetched once (revalidated by its ETag, so a second visit costs a 304). */
  async function openRules({ then = null } = {}) {
    const d = ensure();
    if (d.intro.open) {
      onClose.rules = onClose.intro; // from the introduction: back where it was opened from
      onClose.intro = null;
      d.intro.close();
    }
    if (then) onClose.rules = then;
    if (document.title !== TITLE) before = document.title;
    document.title = TITLE;
    if (!d.rules.open) d.rules.showModal();
    if (d.loaded) return;
    try {
      const res = await fetch('/rules.md');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const text = await res.text();
      const nodes = render(text, { prefix: 'rules-' });
      // the book's own title becomes the dialog's
      if (nodes[0] && nodes[0].tagName === 'H1') d.rules.querySelector('#rules-title').textContent = nodes.shift().textContent;
      d.body.replaceChildren(...nodes);
      d.loaded = true;
    } catch {
      d.body.replaceChildren(h('p', { class: 'form-error', text: E.failed }));
    }
  }

  /** A "Rules" link for a page: /rules, opened over the page. */
  function rulesLink(props = {}) {
    return h('a', { href: '/rules', text: E.rules, ...props, onclick: (e) => { e.preventDefault(); openRules(); } });
  }

  function closeAll() {
    if (!dialogs) return;
    for (const d of [dialogs.intro, dialogs.rules]) if (d.open) d.close();
  }

  return { seenIntro, openIntro, openRules, rulesLink, closeAll };
}
