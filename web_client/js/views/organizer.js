/** The organizer's controls of a tournament: close registration, start the
next round now or at a time, end the round being played (for no-shows).
Each is one command; what happened comes back as the tournament's events. */

import { h, setText, show, toggle } from '../dom.js';
import * as tournament from '../tournament.js';
import { clockTime, serverNow } from '../clock.js';
import { modeOf } from './rounds.js';
import { createSchedule } from './schedule.js';

export function createOrganizer(host) {
  const regText = h('p', { class: 't-admin-line' });
  const closeBtn = h('button', { class: 'btn', type: 'button', text: 'Close registration',
    onclick: () => tournament.closeRegistration() });
  const nextText = h('p', { class: 't-admin-line' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', onclick: () => tournament.startRound(0) });
  const schedule = createSchedule({ id: 't-start-at', className: 't-schedule', onAt: (at) => tournament.startRound(at) });
  const atForm = schedule.el;
  const atBtn = schedule.button;
  const curText = h('p', { class: 't-admin-line' });
  const endBtn = h('button', { class: 'btn', type: 'button', onclick: () => end() });
  const el = h('section', { class: 'panel t-admin', 'aria-labelledby': 't-admin-title' },
    h('h2', { id: 't-admin-title', text: 'Organizer' }),
    h('div', { class: 't-admin-row' }, regText, closeBtn),
    h('div', { class: 't-admin-row' }, nextText, h('div', { class: 't-admin-buttons' }, startBtn, atForm)),
    h('div', { class: 't-admin-row' }, curText, endBtn));
  host.append(el);
  let confirmEnd = 0; // the round whose end awaits a second press
  let confirmTimer = 0;

  let current = null;
  function end() {
    if (!current) return;
    if (confirmEnd !== current.n) {
      confirmEnd = current.n;
      clearTimeout(confirmTimer);
      confirmTimer = setTimeout(() => { confirmEnd = 0; paint(); }, 4000);
      paint();
      return;
    }
    confirmEnd = 0;
    tournament.endRound();
    paint();
  }

  let last = null;
  function paint() {
    if (!last) return;
    const { t, entries } = last;
    const active = t.players.filter((p) => !p.withdrawn).length;
    setText(regText, t.registration
      ? `Registration is open: ${active} of at most ${t.settings.max_players} players.`
      : `Registration is closed: ${active} player${active === 1 ? '' : 's'}.`);
    show(closeBtn, t.registration);

    current = t.rounds.find((r) => r.status === 'starting' || r.status === 'running') || null;
    const next = t.rounds.find((r) => r.status === 'pending');
    if (next) {
      setText(nextText, `Next: round ${next.n} of ${t.rounds.length} (${modeOf(t.settings.modes[next.n - 1])}).`);
      setText(startBtn, `Start round ${next.n} now`);
    } else {
      setText(nextText, 'Every round has been played.');
    }
    const canStart = Boolean(next && !current && active > 0);
    show(startBtn, Boolean(next));
    show(atForm, Boolean(next));
    startBtn.disabled = !canStart;
    atBtn.disabled = !canStart;
    if (next && !current && !active) setText(nextText, `Round ${next.n} can start once a player has registered.`);

    if (current) {
      const now = serverNow();
      const racing = entries.filter((e) => e.status === 'racing' || e.status === 'disconnected').length;
      setText(curText, current.start_at > now
        ? `Round ${current.n} starts at ${clockTime(current.start_at)}.`
        : `Round ${current.n} is being played${entries.length ? `: ${racing} still playing` : ''}.`);
      setText(endBtn, confirmEnd === current.n ? `Really end round ${current.n}?` : `End round ${current.n}`);
      toggle(endBtn, 'danger', confirmEnd === current.n);
    } else {
      setText(curText, 'No round is being played.');
    }
    show(endBtn, Boolean(current && current.status === 'running'));
  }

  function render(t, entries) {
    last = { t, entries };
    paint();
  }

  return { el, render };
}
