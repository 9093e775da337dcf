/** A challenge's replays that may be seen now (challenge.js): everyone's
once the window has closed, before that those of the games over, to a
player who won their own. One button per player opens the replay viewer. */

import { h, show } from '../dom.js';
import * as challenge from '../challenge.js';
import { createReplay } from './replay.js';

export function createReplayList(host, app) {
  const list = h('ul', { class: 'replay-list' });
  const el = h('section', { class: 'replays', 'aria-labelledby': 'replays-title', hidden: true },
    h('h2', { class: 'lb-title', id: 'replays-title', text: 'Replays' }), list);
  host.append(el);
  let viewer = null;
  let drawn = '';

  function open(seat, nickname) {
    if (!viewer) viewer = createReplay(document.body);
    const { url, token } = challenge.replaySource(app.state, seat);
    viewer.open(url, `${nickname}'s game`, { token });
  }

  /** lines: the room's lines (or results) this page has. */
  function render(s, lines) {
    const open_ = challenge.replayable(s, lines);
    show(el, open_.length > 0);
    const key = JSON.stringify(open_.map((x) => [x.seat, x.nickname]));
    if (key === drawn) return;
    drawn = key;
    list.replaceChildren(...open_.map((x) => h('li', {},
      h('button', { class: 'btn small', type: 'button', text: x.seat === s.seat ? 'Your game' : x.nickname,
        'aria-label': `Replay of ${x.seat === s.seat ? 'your game' : `${x.nickname}'s game`}`,
        onclick: () => open(x.seat, x.nickname) }))));
  }

  return { el, render };
}
