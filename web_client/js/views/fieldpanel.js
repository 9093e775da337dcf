/** The whole field of a big room, a page at a time: a modal dialog with a
search box (a nickname's line and rank, `lb_find`, and the page it is on)
and pages of the ranking (`lb_page`, PAGE lines each) to go through, from the
top or from the viewer's own place. A spectator can follow anyone found or
listed. The dialog draws `state.field` (field.js) whenever the state changes
while it is open; the server keeps the rest of the field. One per page
(main.js makes it, app.dialogs.field); built the first time it opens. */

import { closeOnBackdrop, h, setText, toggle } from '../dom.js';
import { phaseAt } from '../state.js';
import * as field from '../field.js';
import { count, score } from '../format.js';
import { statusText } from './leaderboard.js';
import { createFindForm, createPager } from './pager.js';
import { TEXT } from '../text.js';
import * as paging from '../paging.js';

const G = TEXT.fieldpanel;

function lineItem(line, { me, scoring, phase, spectator, foundSeat, follow, challenge }) {
  const li = h('li', { class: 'field-line', dataset: { seat: String(line.seat), rank: String(line.rank) } },
    h('span', { class: 'field-rank', text: line.rank ? String(line.rank) : '–' }),
    h('span', { class: 'field-name', text: line.seat === me ? TEXT.common.you(line.nickname) : line.nickname }),
    h('span', { class: 'field-cards', text: `${line.foundation ?? 0}/52` }),
    h('span', { class: 'field-score', text: score({ vegas: line.vegas ?? -52, points: line.points ?? 0 }, scoring) }),
    h('span', { class: 'field-status', text: statusText(line, { phase, challenge }) }),
    spectator ? h('button', { class: 'btn small', type: 'button', text: G.follow, 'aria-label': G.followName(line.nickname),
      onclick: () => follow(line.nickname) }) : null);
  toggle(li, 'me', line.seat === me);
  toggle(li, 'found', line.seat === foundSeat);
  return li;
}

export function createFieldPanel(app) {
  let panel = null; // built the first time it opens
  let options = { me: -1, spectator: false, then: null };

  function build() {
    const title = h('h2', { id: 'field-title', text: TEXT.histogram.title });
    const size = h('p', { class: 'field-size' });
    const { form, input } = createFindForm({ name: 'nickname', label: G.toFind,
      find: (nickname) => field.find(app, nickname) });
    const found = h('div', { class: 'field-found', role: 'status' });
    const pager = createPager({ size: paging.PAGE, ask: (from) => field.askPage(app, from), label: G.pages,
      mine: () => (app.state.field.place ? app.state.field.place.rank : null) });
    const list = h('ol', { class: 'field-lines', 'aria-label': G.ranking });
    const el = h('dialog', { class: 'dialog field-panel', 'aria-labelledby': 'field-title' },
      h('div', { class: 'dialog-head' }, h('div', {}, title, size),
        h('button', { class: 'btn small', type: 'button', text: G.close, onclick: () => el.close() })),
      form, found,
      pager.el,
      list);
    el.addEventListener('close', () => {
      if (options.then) options.then();
    });
    closeOnBackdrop(el);
    document.body.append(el);
    app.subscribe((s) => {
      if (el.open) draw(s);
    });
    return { el, size, input, found, pager, list, drawn: '' };
  }

  function follow(nickname) {
    field.follow(app, nickname);
    panel.el.close();
  }

  function draw(s) {
    const f = s.field;
    const room = s.room;
    if (!room) return;
    const scoring = room.settings.scoring;
    const phase = phaseAt(room, app.clock.now());
    const total = f.top ? f.top.n : field.total(f);
    setText(panel.size, TEXT.histogram.players(total, count(total)));
    const found = f.found;
    const foundSeat = found && !found.missing ? found.seat : -1;
    const spectator = options.spectator;
    const ctx = { me: options.me, scoring, phase, spectator, foundSeat, follow,
      challenge: Boolean(room.settings.window) };

    const page = f.page;
    const key = JSON.stringify([found, page, options.me, spectator, scoring, phase, total]);
    if (key === panel.drawn) return;
    panel.drawn = key;
    if (!found) {
      panel.found.replaceChildren();
    } else if (found.missing) {
      panel.found.replaceChildren(h('p', { class: 'field-missing', text: TEXT.nobodyInRoom(found.missing) }));
    } else {
      const line = { ...(found.line || { seat: found.seat, nickname: '' }), rank: found.rank };
      panel.found.replaceChildren(h('ol', { class: 'field-lines', 'aria-label': G.found }, lineItem(line, ctx)));
    }
    const lines = page ? page.lines : [];
    panel.list.replaceChildren(...lines.map((line) => lineItem(line, ctx)));
    panel.pager.render(page);
  }

  /** Open the field: `me` the viewer's seat (-1: a spectator); `spectator`
  offers Follow; `then` runs when it closes (its button, Escape, a click
  outside: the table takes its keys back). */
  function open({ me = -1, spectator = false, then = null } = {}) {
    if (!panel) panel = build();
    options = { me, spectator, then };
    panel.drawn = '';
    const s = app.state;
    const place = s.field.place;
    field.askPage(app, place && !spectator ? paging.pageOf(place.rank) : 1);
    s.field.found = null;
    draw(s);
    panel.el.showModal();
    if (!matchMedia('(pointer: coarse)').matches) panel.input.focus(); // (a phone's keyboard waits for a tap)
  }

  return { open };
}
