/** The podium: the first three to finish, filling as they come in (2nd on
the left, 1st in the middle, 3rd on the right, as podiums stand). It draws
the ranked lines of a standing (ranking.js); an empty step waits with "…". */

import { h, setText, toggle } from '../dom.js';
import { duration } from '../format.js';
import { TEXT } from '../text.js';

const D = TEXT.podium;
import { finishers } from '../ranking.js';

const STEPS = [1, 2, 3]; // in reading order; the CSS stands them 2, 1, 3

export function createPodium(host, { label = D.label } = {}) {
  const steps = STEPS.map((place) => {
    const name = h('span', { class: 'podium-name' });
    const time = h('span', { class: 'podium-time' });
    const el = h('li', { class: `podium-step p${place}`, dataset: { place: String(place) } },
      name, time, h('span', { class: 'podium-block', text: String(place) }));
    return { place, el, name, time };
  });
  const el = h('section', { class: 'podium', 'aria-label': label, hidden: true },
    h('ol', { class: 'podium-steps' }, ...steps.map((s) => s.el)));
  host.append(el);

  /** lines: ranked lines; me: the viewer's seat; visible: whether to show at all. */
  function render(lines, { me = -1, visible = true } = {}) {
    const top = finishers(lines).slice(0, 3);
    el.hidden = !visible || !top.length;
    for (const step of steps) {
      const line = top[step.place - 1];
      setText(step.name, line ? (line.seat === me ? TEXT.common.you(line.nickname) : line.nickname) : '…');
      setText(step.time, line ? duration(line.finish_ms ?? 0) : '');
      toggle(step.el, 'filled', Boolean(line));
      toggle(step.el, 'me', Boolean(line && line.seat === me));
      step.el.setAttribute('aria-label', line
        ? `${step.place}: ${line.nickname}, ${duration(line.finish_ms ?? 0)}` : D.nobody(step.place));
    }
  }

  return { el, render };
}
