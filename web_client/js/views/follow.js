/** A big room's spectator follows one player by nickname (`follow`): a
search box, then that player's place (their line with the lines just above
and below, "37th of 4 212") and their board, large with full faces, as the
room's `boards` setting allows. From `state.field.follow` (field.js) and the
`boards` frames, where the server adds the followed player's board. */

import { h, setText, show } from '../dom.js';
import * as field from '../field.js';
import { placeOf } from '../format.js';
import { Board } from '../render.js';
import { createLeaderboard } from './leaderboard.js';
import { TEXT } from '../text.js';
import * as paging from '../paging.js';

const F = TEXT.follow;

export function createFollow(host, app) {
  const input = h('input', { type: 'search', name: 'follow', maxLength: 20, autocomplete: 'off', spellcheck: false,
    placeholder: F.nickname, 'aria-label': F.toFollow, enterKeyHint: 'go' });
  const form = h('form', { class: 'follow-find', role: 'search' },
    h('label', { class: 'follow-label', for: 'follow-name', text: F.followPlayer }), input,
    h('button', { class: 'btn primary', type: 'submit', text: F.follow }));
  input.id = 'follow-name';
  const stop = h('button', { class: 'btn small', type: 'button', text: F.stop, onclick: () => field.follow(app, null) });
  const title = h('h2', { class: 'follow-title' });
  const note = h('p', { class: 'follow-note' });
  const boardHost = h('div', { class: 'follow-board' });
  const card = h('section', { class: 'follow-card', 'aria-labelledby': 'follow-title', hidden: true },
    h('div', { class: 'follow-head' }, title, stop));
  title.id = 'follow-title';
  const el = h('div', { class: 'follow' }, form, card);
  host.append(el);
  const place = createLeaderboard(card, { title: F.theirPlace, kind: 'lb-place' });
  card.append(note, boardHost);
  let board = null;
  let seat = null;

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    field.follow(app, input.value);
    input.blur(); // a phone's keyboard goes away: the board shows
  });

  /** s: the state; boardsWhen: "live", "10 s late", "after the race". */
  function render(s, { scoring, phase, boardsWhen }) {
    const f = s.field.follow;
    show(card, Boolean(f));
    if (!f) {
      if (board) board.destroy();
      board = null;
      seat = null;
      return;
    }
    const line = f.line;
    const name = line ? line.nickname : s.field.followName;
    setText(title, f.rank ? F.followingAt(name, placeOf(f.rank, f.of ?? field.total(s.field))) : F.following(name));
    place.render(paging.around(f), { scoring, phase, title: F.theirPlace, marked: f.seat });
    const view = s.boards[f.seat];
    if (seat !== f.seat && board) {
      board.destroy();
      board = null;
    }
    seat = f.seat;
    if (view) {
      if (!board) board = new Board(boardHost, { interactive: false, mini: false, label: F.table(name) });
      board.el.setAttribute('aria-label', F.table(name));
      board.update(view, {});
    }
    show(boardHost, Boolean(view));
    setText(note, view ? F.board(name, boardsWhen) : F.notYet(name, boardsWhen));
  }

  return { el, render };
}
