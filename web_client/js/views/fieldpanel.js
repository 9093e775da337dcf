/** The whole field of a big room, a page at a time: a modal dialog with a
search box (a nickname's line and rank, `lb_find`, and the page it is on)
and pages of the ranking (`lb_page`, PAGE lines each) to go through, from the
top or from the viewer's own place. A spectator can follow anyone found or
listed. The dialog draws `state.field` (field.js) whenever the state changes
while it is open; the server keeps the rest of the field. */

import { closeOnBackdrop, h, setText, toggle } from '../dom.js';
import { state, subscribe, phaseAt } from '../state.js';
import { serverNow } from '../clock.js';
import * as field from '../field.js';
import { count, score } from '../format.js';
import { statusText } from './leaderboard.js';
import { createFindForm, createPager } from './pager.js';

let panel = null;
let options = { me: -1, spectator: false };

function build() {
  const title = h('h2', { id: 'field-title', text: 'The field' });
  const size = h('p', { class: 'field-size' });
  const { form, input } = createFindForm({ name: 'nickname', label: 'Nickname to find',
    find: (nickname) => field.find(nickname) });
  const found = h('div', { class: 'field-found', role: 'status' });
  const pager = createPager({ size: field.PAGE, ask: (from) => field.askPage(from), label: 'Pages of the ranking',
    mine: () => (state.field.place ? state.field.place.rank : null) });
  const list = h('ol', { class: 'field-lines', 'aria-label': 'Ranking' });
  const el = h('dialog', { class: 'dialog field-panel', 'aria-labelledby': 'field-title' },
    h('div', { class: 'dialog-head' }, h('div', {}, title, size),
      h('button', { class: 'btn small', type: 'button', text: 'Close', onclick: () => el.close() })),
    form, found,
    pager.el,
    list);
  closeOnBackdrop(el);
  document.body.append(el);
  subscribe((s) => {
    if (el.open) draw(s);
  });
  return { el, size, input, found, pager, list, drawn: '' };
}

function followButton(line) {
  return h('button', { class: 'btn small', type: 'button', text: 'Follow', 'aria-label': `Follow ${line.nickname}`,
    onclick: () => {
      field.follow(line.nickname);
      panel.el.close();
    } });
}

function lineItem(line, { me, scoring, phase, spectator, foundSeat }) {
  const li = h('li', { class: 'field-line', dataset: { seat: String(line.seat), rank: String(line.rank) } },
    h('span', { class: 'field-rank', text: line.rank ? String(line.rank) : '–' }),
    h('span', { class: 'field-name', text: line.nickname + (line.seat === me ? ' (you)' : '') }),
    h('span', { class: 'field-cards', text: `${line.foundation ?? 0}/52` }),
    h('span', { class: 'field-score', text: score({ vegas: line.vegas ?? -52, points: line.points ?? 0 }, scoring) }),
    h('span', { class: 'field-status', text: statusText(line, { phase }) }),
    spectator ? followButton(line) : null);
  toggle(li, 'me', line.seat === me);
  toggle(li, 'found', line.seat === foundSeat);
  return li;
}

function draw(s) {
  const f = s.field;
  const room = s.room;
  if (!room) return;
  const scoring = room.settings.scoring;
  const phase = phaseAt(room, serverNow());
  const total = f.top ? f.top.n : field.total(f);
  setText(panel.size, `${count(total)} player${total === 1 ? '' : 's'}`);
  const found = f.found;
  const foundSeat = found && !found.missing ? found.seat : -1;
  const spectator = options.spectator;
  const ctx = { me: options.me, scoring, phase, spectator, foundSeat };

  const page = f.page;
  const key = JSON.stringify([found, page, options.me, spectator, scoring, phase, total]);
  if (key === panel.drawn) return;
  panel.drawn = key;
  if (!found) {
    panel.found.replaceChildren();
  } else if (found.missing) {
    panel.found.replaceChildren(h('p', { class: 'field-missing', text: `Nobody is called ${found.missing} in this room.` }));
  } else {
    const line = { ...(found.line || { seat: found.seat, nickname: '' }), rank: found.rank };
    panel.found.replaceChildren(h('ol', { class: 'field-lines', 'aria-label': 'Found' }, lineItem(line, ctx)));
  }
  const lines = page ? page.lines : [];
  panel.list.replaceChildren(...lines.map((line) => lineItem(line, ctx)));
  panel.pager.render(page);
}

/** Open the field: `me` the viewer's seat (-1: a spectator); `spectator`
offers Follow. Closed (its button, Escape, a click outside), the focus goes
back to what had it when it opened. */
export function openField({ me = -1, spectator = false } = {}) {
  if (!panel) panel = build();
  options = { me, spectator };
  panel.drawn = '';
  const place = state.field.place;
  field.askPage(place && !spectator ? field.pageOf(place.rank) : 1);
  state.field.found = null;
  draw(state);
  panel.el.showModal();
  if (!matchMedia('(pointer: coarse)').matches) panel.input.focus(); // (a phone's keyboard waits for a tap)
}

/** Whether the field is open (the table's keys wait meanwhile). */
export function fieldOpen() {
  return Boolean(panel && panel.el.open);
}
