/** A big tournament's round as its page shows it (the page is in the
round's room: the organizer and spectators watch it, a player looks at the
page during their round): the round's field as a big room's watchers see it
(bigfield.js: its progress picture, the whole field a page at a time, for
spectators one player followed by nickname and the top players' boards in
rank order), the top lines of the round's race and the player's own place
pinned. This only puts the parts together on the page. */

import { h, setText, show } from '../dom.js';
import * as field from '../field.js';
import { placeOf } from '../format.js';
import { createBigField } from './bigfield.js';
import { createBoardsGrid } from './boards.js';
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
  const parts = createBigField(app);
  picture.append(parts.hist.el);
  const leaderboard = createLeaderboard(tops, { title: V.top });
  const place = createLeaderboard(tops, { title: V.place, kind: 'lb-place' });
  tops.append(parts.fieldBtn);
  const note = h('p', { class: 't-note' });
  el.append(parts.follow.el, note);
  const grid = createBoardsGrid(el, app);

  /** s: the state (in the round's room); me: our seat, -1 for a spectator;
  phase: the room's; boardsWhen: "live", "10 s late", "after the round". */
  function render(s, { me: seat, phase, boardsWhen }) {
    const spectator = s.role === 'spectator';
    const room = s.room;
    const scoring = room.settings.scoring;
    const { lines, shown } = parts.render(s, { me: seat, spectator, phase, scoring, boardsWhen, grid });
    const top = s.field.top;
    leaderboard.render(lines, { me: seat, total: top ? top.n : 0, scoring, phase });
    const own = spectator ? null : field.ownLine(s.field);
    const mine = own ? paging.around(s.field.place, own) : [];
    show(place.el, mine.length > 0);
    if (mine.length) {
      place.render(mine, { me: seat, scoring, phase,
        title: V.you(placeOf(s.field.place.rank, field.total(s.field))) });
    }
    const n = Math.min(field.BOARDS_SHOWN, room.settings.top);
    setText(note, !spectator ? V.ownOnly : shown ? TEXT.common.boardsShown(n, boardsWhen) : TEXT.common.boardsNoneYet(n, boardsWhen));
  }

  return { el, render };
}
