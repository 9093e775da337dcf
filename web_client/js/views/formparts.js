/** The parts the lobby's forms are made of (the create, solo and tournament
forms): a row of radio buttons and a labelled field. */

import { h } from '../dom.js';

/** Radio buttons `name`, one per [value, label] of `options`, `checked` chosen. */
export function radios(name, options, checked) {
  return h('div', { class: 'choices' }, ...options.map(([value, label]) => h('label', {},
    h('input', { type: 'radio', name, value, checked: value === checked }), label)));
}

/** A control with its label above it. */
export function field(label, control) {
  return h('label', { class: 'field' }, h('span', { text: label }), control);
}
