/** A lobby form that remembers its last choices (storage.js formChoices):
its radios, checkboxes and selects come back as they were last sent, so a
returning player's Quick race, Play with friends and Play solo start as
they did last time. Typed text (a deal code, a name) is never kept. */

import * as storage from '../storage.js';

function choices(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.type === 'text' || el.type === 'number') continue;
    if (el.type === 'radio') { if (el.checked && el.value !== 'code') out[el.name] = el.value; } // a code is typed anew
    else if (el.type === 'checkbox') out[el.name] = el.checked;
    else if (el.tagName === 'SELECT') out[el.name] = el.value;
  }
  return out;
}

/** Restore `form`'s last choices now (then a change event, so that the form
shows what goes with them), and keep them each time it is sent. */
export function remember(form, name) {
  const saved = storage.formChoices(name);
  if (saved) {
    for (const el of form.elements) {
      if (!el.name || !(el.name in saved)) continue;
      if (el.type === 'radio') el.checked = el.value === saved[el.name];
      else if (el.type === 'checkbox') el.checked = Boolean(saved[el.name]);
      else if (el.tagName === 'SELECT' && [...el.options].some((o) => o.value === saved[el.name])) el.value = saved[el.name];
    }
    form.dispatchEvent(new Event('change'));
  }
  form.addEventListener('submit', () => storage.saveFormChoices(name, choices(form)), true);
}
