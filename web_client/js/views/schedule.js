/** "or at [20:30:05] Schedule": a start time typed as a time of day on our
clock, handed over as server time (ms). The tournament's organizer starts a
round with it, a big room's host the race. */

import { h } from '../dom.js';
import { say } from '../messages.js';

/** id: the input's id; className: the form's; clock: the page's (clock.js);
onAt(ms): a time was chosen. */
export function createSchedule({ id, className, clock, onAt }) {
  const input = h('input', { type: 'time', step: 1, name: 'start_at', id, 'aria-label': 'Start time (your clock)' });
  const label = h('label', { for: id, text: 'or at' });
  const button = h('button', { class: 'btn', type: 'submit', text: 'Schedule' });
  const el = h('form', { class: className }, label, input, button);
  el.addEventListener('submit', (e) => {
    e.preventDefault();
    const at = clock.fromTimeOfDay(input.value);
    if (at == null) {
      say('Pick a time first (hours, minutes, seconds).', { bad: true });
      input.focus();
      return;
    }
    onAt(at);
  });
  return { el, input, label, button };
}
