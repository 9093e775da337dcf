/** A big tournament's round as its page shows it (the page is in the
round's room: the organizer and spectators watch it, a player looks at the
page during their round): the field's progress picture, the top lines of
the round's race, the player's own place pinned, and for spectators the
top players' boards in rank order and one player followed by nickname.
The parts are a big room's (field.js, histogram.js, leaderboard.js,
follow.js, boards.js); this only puts them together on the page. */

import { h, setText, show } from '../dom.js';
import * as field from '../field.js';
import { count, placeOf } from '../format.js';
import { createBoardsGrid } from './boards.js';
import { createFollow } from './follow.js';
import { createHistogram } from './histogram.js';
import { createLeaderboard } from './leaderboard.js';
import { TEXT } from '../text.js';
import * as paging from '../paging.js';

const V = TEXT.roundLive;

export function createBigLive(host, app) {
  const el = h('div', { class: 't-biglive' });
  host.append(el);
  const cols = h('div', { class: 't-biglive-cols' });
  const picture = h('div', { class: 't-biglive-field' });
  const tops = h('div', { class: 't-biglive-top' });
  cols.append(picture, tops);
  el.append(cols);
  const hist = createHistogram(picture);
  const leaderboard = createLeaderboard(tops, { title: V.top });
  const place = createLeaderboard(tops, { title: V.place, kind: 'lb-place' });
  const fieldBtn = h('button', { class: 'btn small field-open', type: 'button' });
  tops.append(fieldBtn);
  const note = h('p', { class: 't-note' });
  const follow = createFollow(el, app);
  el.append(note);
  const grid = createBoardsGrid(el, app);
  let spectator = false;
  let me = -1;
  fieldBtn.addEventListener('click', () => app.dialogs.field.open({ me, spectator }));

  /** s: the state (in the round's room); me: our seat, -1 for a spectator;
  phase: the room's; boardsWhen: "live", "10 s late", "after the round". */
  function render(s, { me: seat, phase, boardsWhen }) {
    me = seat;
    spectator = s.role === 'spectator';
    const room = s.room;
    const scoring = room.settings.scoring;
    const top = s.field.top;
    const racing = phase === 'racing' || phase === 'ended';
    show(hist.el, Boolean(top) && racing);
    const f = spectator ? s.field.follow : null;
    if (top && racing) {
      const own = spectator ? (f && f.line) : field.ownLine(s.field);
      hist.render(top.hist, { status: top.status, mark: own ? own.foundation : null,
        who: spectator && own ? own.nickname : null });
    }
    const lines = field.topLines(s.field);
    leaderboard.render(lines, { me: seat, total: top ? top.n : 0, scoring, phase });
    const own = spectator ? null : field.ownLine(s.field);
    const mine = own ? paging.around(s.field.place, own) : [];
    show(place.el, mine.length > 0);
    if (mine.length) {
      place.render(mine, { me: seat, scoring, phase,
        title: V.you(placeOf(s.field.place.rank, field.total(s.field))) });
    }
    setText(fieldBtn, V.browse(count(top ? top.n : 0)));

    show(follow.el, spectator);
    if (spectator) follow.render(s, { scoring, phase, boardsWhen });
    const boards = spectator ? field.gridBoards(s.field, s.boards) : {};
    const shown = grid.render(boards, { names: field.names(s.field), entries: f && f.line ? [...lines, f.line] : lines,
      bigSeat: s.ui.bigSeat, phase, order: lines.map((x) => x.seat) });
    const n = Math.min(field.BOARDS_SHOWN, room.settings.top);
    setText(note, !spectator ? V.ownOnly : shown ? TEXT.common.boardsShown(n, boardsWhen) : TEXT.common.boardsNoneYet(n, boardsWhen));
  }

  return { el, render };
}
