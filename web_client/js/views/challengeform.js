/** The create form's challenge option (docs/protocol.md, "Challenges"):
everyone together (a live race, the host starts it), or a challenge open
for a while, each player starting their own game when they like. It adds
its fieldset to the form, keeps the form's other choices consistent with
it (a challenge shows the boards after it closes and has no late
arrivals) and puts `window` in the settings. */

import { h } from '../dom.js';

const WINDOWS = [[600, '10 minutes'], [1800, '30 minutes'], [3600, '1 hour'], [3 * 3600, '3 hours'],
  [12 * 3600, '12 hours'], [86400, '1 day'], [3 * 86400, '3 days'], [7 * 86400, '7 days']];
const DEFAULT_WINDOW = 86400;

export const CHALLENGE_NOTE = 'Each player plays the same deal when they like, on their own clock, '
  + 'beside the ghosts of those who played before. The code and the replays are revealed when it closes.';

/** The option, placed in `form` before `before`; `submit` is the form's button. */
export function createChallengeOption(form, before, submit) {
  const windowSelect = h('select', { name: 'window', 'aria-label': 'Open for', disabled: true },
    ...WINDOWS.map(([v, t]) => h('option', { value: String(v), text: t, selected: v === DEFAULT_WINDOW })));
  const note = h('p', { class: 'field-note challenge-note', text: CHALLENGE_NOTE, hidden: true });
  const el = h('fieldset', { class: 'when' }, h('legend', { text: 'When' }),
    h('div', { class: 'choices' },
      h('label', {}, h('input', { type: 'radio', name: 'when', value: 'together', checked: true }),
        'Together: the host starts the race'),
      h('label', {}, h('input', { type: 'radio', name: 'when', value: 'challenge' }),
        'A challenge: each plays when they like, for')),
    windowSelect,
    note);
  form.insertBefore(el, before);
  const label = submit.textContent;

  function on() {
    return form.elements.when.value === 'challenge';
  }

  function sync() {
    const challenge = on();
    windowSelect.disabled = !challenge;
    note.hidden = !challenge;
    submit.textContent = challenge ? 'Create the challenge' : label;
    // a challenge shows the boards once it closes, and everyone starts on their own clock
    for (const radio of form.querySelectorAll('input[name="boards"]')) {
      radio.disabled = challenge && radio.value !== 'after';
      if (challenge && radio.value === 'after') radio.checked = true;
    }
    for (const radio of form.querySelectorAll('input[name="late"]')) radio.disabled = challenge;
  }

  form.addEventListener('change', sync);
  sync();

  return {
    el,
    /** The settings of the form, with the challenge's window when one is chosen. */
    apply(settings) {
      if (!on()) return settings;
      const out = { ...settings, window: Number(windowSelect.value), boards: 'after' };
      delete out.late;
      delete out.delay;
      return out;
    },
  };
}
