/** The lobby's "Tournament" panel: organize one (a name; codes one per line,
or a number of random deals of a draw and scoring, any or certified winnable;
the time per round, the players, undo, assists and what spectators see; how
rounds follow each other, late registration and an invite code; above 16
players, how many lines of the standings everyone sees), or open one by its link.
The server checks everything; its refusal is shown under the form. */

import { h, setText } from '../dom.js';
import { count } from '../format.js';
import * as tournament from '../tournament.js';
import { field, radios } from './formparts.js';
import { TEXT } from '../text.js';

const [T, L] = [TEXT.tournamentForm, TEXT.lobby];

const TOUR_ID = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;
const SMALL = 16; // above this many players a tournament is big (docs/protocol.md, "Big tournaments")
const BIG_SIZES = [50, 100, 500, 1000, 5000, 10000];

/** A tournament id from a link ("…/t/F7R7P3H7"); null if there is none. */
export function tournamentFromText(text) {
  const m = text.trim().toUpperCase().match(/\/T\/([A-Z0-9]{8})(?:[/?#]|$)/);
  return m && TOUR_ID.test(m[1]) ? m[1] : null;
}

export function createTournamentForm(host, app) {
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { class: 'btn primary', type: 'submit', text: T.create });
  const form = h('form', { class: 'panel tournament-form', 'aria-labelledby': 'tournament-form-title' },
    h('h2', { id: 'tournament-form-title', text: T.title }),
    h('p', { class: 't-note', text: T.note }),
    field(T.name, h('input', { type: 'text', name: 'tname', maxLength: 60, required: true,
      placeholder: T.namePlaceholder, autocomplete: 'off' })),
    h('fieldset', {}, h('legend', { text: T.deals }),
      radios('tdeals', [['random', L.random], ['winnable', L.randomWinnable], ['codes', T.codes]], 'random'),
      h('div', { class: 'row t-random' },
        field(T.rounds, h('input', { type: 'number', name: 'rounds', min: 1, max: 20, value: 3 })),
        field(L.draw, h('select', { name: 'tdraw' }, h('option', { value: '1', text: L.one }), h('option', { value: '3', text: L.three }))),
        field(L.scoring, h('select', { name: 'tscoring' }, h('option', { value: 'V', text: L.vegas }), h('option', { value: 'N', text: L.normal })))),
      h('label', { class: 'field t-codes', hidden: true }, h('span', { text: T.codesLabel }),
        h('textarea', { name: 'codes', rows: 3, spellcheck: false, autocomplete: 'off', placeholder: 'KL2-D1N-AAAAAAAAAAAAG' })),
      h('p', { class: 't-note t-codes', hidden: true,
        text: T.kl1 })),
    h('div', { class: 'row' },
      field(T.time, h('select', { name: 'ttime' },
        ...[[60, T.min1], [120, T.min2], [300, L.min5], [600, L.min10], [900, L.min15], [1200, T.min20], [1800, L.min30], [3600, L.hour1]]
          .map(([v, t]) => h('option', { value: String(v), text: t, selected: v === 600 })))),
      field(L.players, h('select', { name: 'tmax' },
        ...[8, 7, 6, 5, 4, 3, 2, 1].map((n) => h('option', { value: String(n), text: String(n) })),
        h('optgroup', { label: T.big },
          ...BIG_SIZES.map((n) => h('option', { value: String(n), text: L.upTo(count(n)) })))))),
    h('fieldset', { class: 't-big-only', hidden: true }, h('legend', { text: T.big }),
      field(T.top, h('select', { name: 'ttop' },
        ...[5, 10, 20, 50].map((n) => h('option', { value: String(n), text: String(n), selected: n === 10 }))))),
    h('fieldset', {}, h('legend', { text: T.registration }),
      field(T.interval, h('select', { name: 'tinterval' },
        ...[[0, T.whenI], [60, T.after1], [120, T.after2],
          [300, T.after5], [600, T.after10], [1800, T.after30]]
          .map(([v, t]) => h('option', { value: String(v), text: t })))),
      field(T.lateUntil, h('input', { type: 'number', name: 'tlate', min: 1, max: 20, value: 1,
        title: T.latePenalty })),
      h('label', {}, h('input', { type: 'checkbox', name: 'tinvite' }), T.invite)),
    h('fieldset', {}, h('legend', { text: L.allow }),
      h('div', { class: 'choices' },
        h('label', {}, h('input', { type: 'checkbox', name: 'tundo', checked: true }), L.undo)),
      field(L.assists, h('select', { name: 'tassists' },
        ...[['off', L.assistsNone], ['basic', L.hints], ['solver', L.hintsAndSolver]]
          .map(([v, t]) => h('option', { value: v, text: t }))))),
    h('fieldset', {}, h('legend', { text: L.boards }),
      radios('tboards', [['live', L.live], ['delayed', L.delayed], ['after', T.afterRound]], 'after'),
      h('label', { class: 'delay', hidden: true },
        h('input', { type: 'number', name: 'tdelay', min: 1, max: 600, value: 30, 'aria-label': T.delay }), L.secondsLate),
      h('p', { class: 'boards-note', text: TEXT.common.boardsNote })),
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
        fail(T.giveCodes);
        return;
      }
    } else {
      settings.rounds = Number(els.rounds.value);
      settings.draw = Number(els.tdraw.value);
      settings.scoring = els.tscoring.value;
      if (els.tdeals.value === 'winnable') settings.deal = 'winnable';
    }
    if (!name) {
      fail(T.giveName);
      return;
    }
    tournament.create(app, name, settings, () => { // the codes leave the page: secret until played
      form.reset();
      form.dispatchEvent(new Event('change'));
    });
  });

  function fail(text) {
    app.state.tournamentForm = { busy: false, error: text, then: null };
    app.changed();
  }

  function render(s) {
    const c = s.tournamentForm;
    setText(error, c.error || '');
    submit.disabled = Boolean(c.busy);
  }

  return { el: form, render };
}
