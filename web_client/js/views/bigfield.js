/** A big room's field as its page shows it, one view for a big room's
watchers (watch.js) and a big tournament's round (roundlive.js): the
field's progress picture (the followed player's cards marked for a
watcher, the viewer's own for a player), the button that opens the whole
field a page at a time, the player a watcher follows by nickname, and the
top players' boards in the server's rank order with the followed one's.
The parts are field.js's, histogram.js's, follow.js's and boards.js's; the
caller places them (`hist.el`, `follow.el`, `fieldBtn`) and its own
leaderboard of the top lines (`lines` of what `render` returns). */

import { h, setText, show } from '../dom.js';
import * as field from '../field.js';
import { count } from '../format.js';
import { createFollow } from './follow.js';
import { createHistogram } from './histogram.js';
import { TEXT } from '../text.js';

export function createBigField(app) {
  const holder = h('div'); // the parts are made here, then placed by the caller
  const hist = createHistogram(holder);
  const follow = createFollow(holder, app);
  const fieldBtn = h('button', { class: 'btn small field-open', type: 'button' });
  let options = { me: -1, spectator: true };
  fieldBtn.addEventListener('click', () => app.dialogs.field.open(options));

  /** s: the state in the big room; me: the viewer's seat (-1: a watcher);
  spectator: whether the viewer watches (a follow box, and the boards);
  grid: the boards' grid (boards.js); boardsWhen: "live", "10 s late", ….
  The top lines, and how many boards the grid shows. */
  function render(s, { me = -1, spectator, phase, scoring, boardsWhen, grid }) {
    options = { me, spectator };
    const top = s.field.top;
    const racing = phase === 'racing' || phase === 'ended';
    show(hist.el, Boolean(top) && racing);
    const followed = spectator && s.field.follow ? s.field.follow.line : null;
    if (top && racing) {
      const own = spectator ? followed : field.ownLine(s.field);
      hist.render(top.hist, { status: top.status, mark: own ? own.foundation : null,
        who: spectator && own ? own.nickname : null });
    }
    setText(fieldBtn, TEXT.roundLive.browse(count(top ? top.n : 0)));
    show(follow.el, spectator);
    if (spectator) follow.render(s, { scoring, phase, boardsWhen });
    const lines = field.topLines(s.field);
    const shown = grid.render(spectator ? field.gridBoards(s.field, s.boards) : {}, {
      names: field.names(s.field), entries: followed ? [...lines, followed] : lines,
      bigSeat: s.ui.bigSeat, phase, order: lines.map((x) => x.seat) });
    return { lines, shown };
  }

  return { hist, follow, fieldBtn, render };
}
