/** Help for newcomers: "How a race works" on one screen (shown once, on the
first visit; again from the lobby and the table's "?"), and the rules
dialog, which shows one of two pages:

- **how to play** (what Rules opens, in the lobby and at the table): the
  game in a player's words, with diagrams of the table (howto/en.js, drawn
  by howto.js), in the browser's language when we have it;
- **the rule book**, one link further: the project's rule book itself,
  docs/rules.md, served as /rules.md and drawn by markdown.js.

Both dialogs are modal <dialog>s: above everything, the focus kept inside,
Escape closes, and so does a click outside. Each page also has an address
of its own, /how-to-play and /rules. One help per page (main.js makes it,
app.dialogs.help); its dialogs are built the first time one opens. Whoever
opens one may say what happens once it is closed (`then`: the table takes
its keyboard back).
*/

import { closeOnBackdrop, h, show } from '../dom.js';
import { render } from '../markdown.js';
import { howtoPage } from '../howto/index.js';
import { howtoNodes } from './howto.js';

const SEEN = 'kr.intro';

/** What live and delayed boards let a racer see, under the create forms' choice
(docs/protocol.md, "What each client may see"). */
export const BOARDS_NOTE = 'Live or delayed, a racer could watch in a second tab: with everyone on the same '
  + "deal, the others' boards show cards still face down on the racer's own table.";

const STEPS = [
  ['Same deal for everyone', 'Everyone in the room gets the same cards, dealt at the same moment after a short countdown.'],
  ['Put all 52 cards home', 'Build the four foundations up by suit, ace to king. On the table, build columns down in '
    + 'alternating colours; an empty column takes a king.'],
  ['First to finish wins', 'The others are ranked by Vegas dollars, then by cards home. The leaderboard shows '
    + 'everyone as it happens.'],
  ['Play your way', 'Tap a card to send it where it fits (twice: onto a column), drag it anywhere, or play with the '
    + 'keys. Undo and hints are there when the room allows them.'],
  ['Stuck?', 'Undo, or resign. The deal\'s code is secret until the race ends; then you can play it again alone.'],
];

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

const TITLE = 'Klondike Race — rules';

export function createHelp(pageTitle) {
  let dialogs = null; // built the first time one opens
  const howto = howtoPage();
  const onClose = { intro: null, rules: null };

  function build() {
    const introTitle = h('h2', { id: 'intro-title', text: 'How a race works' });
    const rulesBtn = h('button', { class: 'btn', type: 'button', text: 'Read the rules', onclick: () => openRules() });
    const intro = h('dialog', { class: 'dialog intro', 'aria-labelledby': 'intro-title' },
      introTitle,
      h('ol', { class: 'intro-steps' }, ...STEPS.map(([title, text], i) => h('li', {},
        h('span', { class: 'intro-n', 'aria-hidden': 'true', text: String(i + 1) }),
        h('div', {}, h('strong', { text: title }), h('p', { text }))))),
      // Play is the default (it has the focus as the dialog opens): Enter plays, never opens the rule book
      h('div', { class: 'dialog-actions' }, rulesBtn,
        h('button', { class: 'btn primary', type: 'button', text: "Let's play", autofocus: true,
          onclick: () => intro.close() })));
    intro.addEventListener('close', () => {
      remember();
      after('intro');
    });

    const title = h('h2', { id: 'rules-title' });
    const back = h('button', { class: 'btn small ghost', type: 'button', text: `← ${howto.back}`, onclick: () => showPage('howto') });
    const bookLink = h('a', { class: 'rules-book-link', href: '/rules', text: howto.ruleBook,
      onclick: (e) => { e.preventDefault(); showPage('book'); } });
    const body = h('div', { class: 'rules-body', lang: howto.lang });
    const rules = h('dialog', { class: 'dialog rules', 'aria-labelledby': 'rules-title' },
      h('div', { class: 'dialog-head' }, title,
        h('span', { class: 'dialog-tools' }, back, bookLink,
          h('button', { class: 'btn small', type: 'button', text: 'Close', onclick: () => rules.close() }))),
      body);
    rules.addEventListener('close', () => {
      if (rules.open) return; // opened again before this event came
      if (location.pathname === '/rules' || location.pathname === '/how-to-play') history.replaceState(null, '', '/');
      pageTitle.uncover();
      after('rules');
    });
    for (const d of [intro, rules]) closeOnBackdrop(d);
    document.body.append(intro, rules);
    return { intro, rules, body, title, back, bookLink, book: null, page: '' };
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

  /** The rules dialog, open on `page` (`howto` or `book`); `then` runs once
  it is closed (the table takes its keyboard focus back). */
  function openDialog(page, then) {
    const d = ensure();
    if (d.intro.open) {
      onClose.rules = onClose.intro; // from the introduction: back where it was opened from
      onClose.intro = null;
      d.intro.close();
    }
    if (then) onClose.rules = then;
    if (!d.rules.open) d.rules.showModal();
    showPage(page);
  }

  /** Rules as a player opens them: how to play, the rule book one link further. */
  function openRules({ then = null } = {}) {
    openDialog('howto', then);
  }

  /** The rule book itself (its address, /rules, or the link of how to play). */
  function openRuleBook({ then = null } = {}) {
    openDialog('book', then);
  }

  function showPage(page) {
    const d = ensure();
    if (d.page === page) return;
    d.page = page;
    show(d.back, page === 'book');
    show(d.bookLink, page === 'howto');
    if (page === 'howto') {
      d.title.textContent = howto.title;
      d.body.lang = howto.lang;
      d.body.replaceChildren(...howtoNodes(howto));
    } else {
      d.title.textContent = d.book ? d.book.title : 'Rules';
      d.body.lang = 'en';
      d.body.replaceChildren(...(d.book ? d.book.nodes : [h('p', { class: 'rules-loading', text: 'Loading the rules…' })]));
      if (!d.book) loadBook();
    }
    pageTitle.cover(`Klondike Race — ${d.title.textContent}`);
    d.body.scrollTop = 0;
    d.rules.scrollTop = 0;
  }

  /** The rule book, fetched once (revalidated by its ETag, so a second visit costs a 304). */
  async function loadBook() {
    const d = dialogs;
    try {
      const res = await fetch('/rules.md');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const nodes = render(await res.text(), { prefix: 'rules-' });
      // the book's own title becomes the dialog's
      const heading = nodes[0] && nodes[0].tagName === 'H1' ? nodes.shift().textContent : 'Rules';
      d.book = { title: heading, nodes };
      if (d.page === 'book') {
        d.page = '';
        showPage('book');
      }
    } catch {
      if (d.page === 'book') d.body.replaceChildren(h('p', { class: 'form-error', text: 'The rules could not be loaded: try again in a moment.' }));
    }
  }

  /** A "Rules" link for a page: how to play (/how-to-play), opened over the page. */
  function rulesLink(props = {}) {
    return h('a', { href: '/how-to-play', text: 'Rules', ...props, onclick: (e) => { e.preventDefault(); openRules(); } });
  }

  function closeAll() {
    if (!dialogs) return;
    for (const d of [dialogs.intro, dialogs.rules]) if (d.open) d.close();
  }

  return { seenIntro, openIntro, openRules, openRuleBook, rulesLink, closeAll };
}
