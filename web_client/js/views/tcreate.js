/** The lobby's "Tournament" panel: organize one (a name; codes one per line,
or a number of random deals of a draw and scoring, any or certified winnable;
the time per round, the players, undo, assists and what spectators see; how
rounds follow each other, late registration and an invite code; above 16
players, how many lines of the standings everyone sees), or open one by its link.
The server checks everything; its refusal is shown under the form. */

import { h, setText } from '../dom.js';
import { count } from '../format.js';
import { BOARDS_NOTE } from './help.js';
import * as tournament from '../tournament.js';

const TOUR_ID = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;
const SMALL = 16; // above this many players a tournament is big (docs/protocol.md, "Big tournaments")
const BIG_SIZES = [50, 100, 500, 1000, 5000, 10000];

/** A tournament id from a link ("…/t/F7R7P3H7"); null if there is none. */
export function tournamentFromText(text) {
  const m = text.trim().toUpperCase().match(/\/T\/([A-Z0-9]{8})(?:[/?#]|$)/);
  return m && TOUR_ID.test(m[1]) ? m[1] : null;
}

function radios(name, options, checked) {
  return h('div', { class: 'choices' }, ...options.map(([value, label]) => h('label', {},
    h('input', { type: 'radio', name, value, checked: value === checked }), label)));
}

function field(label, control) {
  return h('label', { class: 'field' }, h('span', { text: label }), control);
}

export function createTournamentForm(host, app) {
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { class: 'btn primary', type: 'submit', text: 'Create tournament' });
  const form = h('form', { class: 'panel tournament-form', 'aria-labelledby': 'tcreate-title' },
    h('h2', { id: 'tcreate-title', text: 'Tournament' }),
    h('p', { class: 't-note', text: 'Rounds on the same deals for everyone, standings in Vegas dollars.' }),
    field('Tournament name', h('input', { type: 'text', name: 'tname', maxLength: 60, required: true,
      placeholder: 'Club night', autocomplete: 'off' })),
    h('fieldset', {}, h('legend', { text: 'Deals' }),
      radios('tdeals', [['random', 'Random'], ['winnable', 'Random, winnable'], ['codes', 'Deal codes']], 'random'),
      h('div', { class: 'row t-random' },
        field('Rounds', h('input', { type: 'number', name: 'rounds', min: 1, max: 20, value: 3 })),
        field('Draw', h('select', { name: 'tdraw' }, h('option', { value: '1', text: 'One' }), h('option', { value: '3', text: 'Three' }))),
        field('Scoring', h('select', { name: 'tscoring' }, h('option', { value: 'V', text: 'Vegas' }), h('option', { value: 'N', text: 'Normal' })))),
      h('label', { class: 'field t-codes', hidden: true }, h('span', { text: 'Codes, one per line (one round each)' }),
        h('textarea', { name: 'codes', rows: 3, spellcheck: false, autocomplete: 'off', placeholder: 'KL2-D1N-AAAAAAAAAAAAG' })),
      h('p', { class: 't-note t-codes', hidden: true,
        text: 'For a prize, avoid KL1 codes: anyone can work out a KL1 deal from its first face-up cards by a brute force. Random deals are safe.' })),
    h('div', { class: 'row' },
      field('Time per round', h('select', { name: 'ttime' },
        ...[[60, '1 min'], [120, '2 min'], [300, '5 min'], [600, '10 min'], [900, '15 min'], [1200, '20 min'], [1800, '30 min'], [3600, '1 hour']]
          .map(([v, t]) => h('option', { value: String(v), text: t, selected: v === 600 })))),
      field('Players', h('select', { name: 'tmax' },
        ...[8, 7, 6, 5, 4, 3, 2, 1].map((n) => h('option', { value: String(n), text: String(n) })),
        h('optgroup', { label: 'A big tournament' },
          ...BIG_SIZES.map((n) => h('option', { value: String(n), text: `up to ${count(n)}` })))))),
    h('fieldset', { class: 't-big-only', hidden: true }, h('legend', { text: 'A big tournament' }),
      field('Standings show the top', h('select', { name: 'ttop' },
        ...[5, 10, 20, 50].map((n) => h('option', { value: String(n), text: String(n), selected: n === 10 }))))),
    h('fieldset', {}, h('legend', { text: 'Rounds and registration' }),
      field('The next round starts', h('select', { name: 'tinterval' },
        ...[[0, 'when I start it'], [60, '1 min after the last one'], [120, '2 min after the last one'],
          [300, '5 min after the last one'], [600, '10 min after the last one'], [1800, '30 min after the last one']]
          .map(([v, t]) => h('option', { value: String(v), text: t })))),
      field('Registration open until round', h('input', { type: 'number', name: 'tlate', min: 1, max: 20, value: 1,
        title: 'Late players count -$52 for each round they missed' })),
      h('label', {}, h('input', { type: 'checkbox', name: 'tinvite' }), 'Registering needs an invite code')),
    h('fieldset', {}, h('legend', { text: 'Allow' }),
      h('div', { class: 'choices' },
        h('label', {}, h('input', { type: 'checkbox', name: 'tundo', checked: true }), 'Undo')),
      field('Assists', h('select', { name: 'tassists' },
        ...[['off', 'None'], ['basic', 'Hints'], ['solver', 'Hints and “can it still be won?”']]
          .map(([v, t]) => h('option', { value: v, text: t }))))),
    h('fieldset', {}, h('legend', { text: 'Spectators see the boards' }),
      radios('tboards', [['live', 'Live'], ['delayed', 'Delayed'], ['after', 'After the round']], 'after'),
      h('label', { class: 'delay', hidden: true },
        h('input', { type: 'number', name: 'tdelay', min: 1, max: 600, value: 30, 'aria-label': 'Delay in seconds' }), ' seconds late'),
      h('p', { class: 'boards-note', text: BOARDS_NOTE })),
    error,
    submit);
  host.append(form);
  const els = form.elements;

  form.addEventListener('change', () => {
    const codes = els.tdeals.value === 'codes';
    form.querySelector('.t-random').hidden = codes;
    for (const el of form.querySelectorAll('.t-codes')) el.hidden = !codes;
    form.querySelector('.delay').hidden = els.tboards.value !== 'delayed';
    form.querySelector('.t-big-only').hidden = Number(els.tmax.value) <= SMALL;
  });

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = els.tname.value.trim();
    const settings = {
      time_limit: Number(els.ttime.value),
      max_players: Number(els.tmax.value),
      undo: els.tundo.checked,
      assists: els.tassists.value,
      boards: els.tboards.value,
    };
    if (settings.boards === 'delayed') settings.delay = Number(els.tdelay.value) || 0;
    if (settings.max_players > SMALL) settings.top = Number(els.ttop.value);
    if (Number(els.tinterval.value)) settings.interval = Number(els.tinterval.value);
    if (Number(els.tlate.value) > 1) settings.late_until = Number(els.tlate.value);
    if (els.tinvite.checked) settings.invite = true;
    if (els.tdeals.value === 'codes') {
      settings.codes = els.codes.value.split(/[\s,]+/).filter(Boolean);
      if (!settings.codes.length) {
        fail('Give one deal code per round, one per line.');
        return;
      }
    } else {
      settings.rounds = Number(els.rounds.value);
      settings.draw = Number(els.tdraw.value);
      settings.scoring = els.tscoring.value;
      if (els.tdeals.value === 'winnable') settings.deal = 'winnable';
    }
    if (!name) {
      fail('Give the tournament a name.');
      return;
    }
    tournament.create(app, name, settings, () => { // the codes leave the page: secret until played
      form.reset();
      form.dispatchEvent(new Event('change'));
    });
  });

  function fail(text) {
    app.state.tcreate = { busy: false, error: text, then: null };
    app.changed();
  }

  function render(s) {
    const c = s.tcreate;
    setText(error, c.error || '');
    submit.disabled = Boolean(c.busy);
  }

  return { el: form, render };
}
