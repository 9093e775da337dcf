/** The organizer's controls of a tournament: close registration, start the
next round now or at a time, end the round being played (for no-shows), and
organize from another device (a one-time code, `t_handoff`, opened there as
a link or typed in). Each is one command; what happened comes back as the
tournament's events. Removing a player is done from their line in the
standings (tstandings.js in a big tournament, the players' list in a small
one). */

import { h, setText, show, toggle } from '../dom.js';
import * as tournament from '../tournament.js';
import { count } from '../format.js';
import * as tfield from '../tfield.js';
import { copy } from './room.js';
import { modeOf } from './rounds.js';
import { createSchedule } from './schedule.js';

export function createOrganizer(host, app) {
  const clock = app.clock;
  const regText = h('p', { class: 't-admin-line' });
  const closeBtn = h('button', { class: 'btn', type: 'button', text: 'Close registration',
    onclick: () => tournament.closeRegistration(app) });
  const nextText = h('p', { class: 't-admin-line' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', onclick: () => tournament.startRound(app, 0) });
  const schedule = createSchedule({ id: 't-start-at', className: 't-schedule', clock, onAt: (at) => tournament.startRound(app, at) });
  const atForm = schedule.el;
  const atBtn = schedule.button;
  const curText = h('p', { class: 't-admin-line' });
  const endBtn = h('button', { class: 'btn', type: 'button', onclick: () => end() });
  const handText = h('p', { class: 't-admin-line', text: 'Organize from another device too (a phone, a second screen):' });
  const handBtn = h('button', { class: 'btn', type: 'button', text: 'Make a one-time code', onclick: () => tournament.handoff(app) });
  const handCode = h('code', { class: 't-handoff-code' });
  const handLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Organizer\'s link for the other device' });
  const handWhen = h('p', { class: 't-note' });
  const handOut = h('div', { class: 't-handoff', hidden: true },
    h('p', {}, 'Code: ', handCode),
    h('div', { class: 'share' }, handLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copy(handLink, 'The organizer\'s link') })),
    handWhen);
  const el = h('section', { class: 'panel t-admin', 'aria-labelledby': 't-admin-title' },
    h('h2', { id: 't-admin-title', text: 'Organizer' }),
    h('div', { class: 't-admin-row' }, regText, closeBtn),
    h('div', { class: 't-admin-row' }, nextText, h('div', { class: 't-admin-buttons' }, startBtn, atForm)),
    h('div', { class: 't-admin-row' }, curText, endBtn),
    h('div', { class: 't-admin-row' }, handText, handBtn),
    handOut);
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
    tournament.endRound(app);
    paint();
  }

  let last = null;
  function paint() {
    if (!last) return;
    const { s, entries } = last;
    const t = s.tour.t;
    const big = tfield.isBig(t);
    const active = big ? t.field.players - t.field.withdrawn : t.players.filter((p) => !p.withdrawn).length;
    const late = t.settings.late_until > 1 ? ` until round ${t.settings.late_until} starts` : '';
    setText(regText, t.registration
      ? `Registration is open${late}: ${count(active)} of at most ${count(t.settings.max_players)} players.`
      : `Registration is closed: ${count(active)} player${active === 1 ? '' : 's'}.`);
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
      const now = clock.now();
      const top = big && s.field.top && s.room && s.room.settings.round === current.n ? s.field.top : null;
      const racing = top ? top.status.racing || 0
        : entries.filter((e) => e.status === 'racing' || e.status === 'disconnected').length;
      const known = top ? top.n > 0 : entries.length > 0;
      const playing = big && top ? `: ${count(racing)} still playing, ${count(top.n)} came of ${count(current.players ?? top.n)}`
        : known ? `: ${racing} still playing` : '';
      setText(curText, current.start_at > now
        ? `Round ${current.n} starts at ${clock.timeOfDay(current.start_at)}.`
        : `Round ${current.n} is being played${playing}.`);
      setText(endBtn, confirmEnd === current.n ? `Really end round ${current.n}?` : `End round ${current.n}`);
      toggle(endBtn, 'danger', confirmEnd === current.n);
    } else {
      setText(curText, 'No round is being played.');
    }
    show(endBtn, Boolean(current && current.status === 'running'));

    const hand = s.tour.handoff;
    const live = Boolean(hand && hand.until > clock.now());
    show(handOut, live);
    setText(handBtn, live ? 'Make a new code' : 'Make a one-time code');
    if (live) {
      setText(handCode, hand.code);
      // the code goes after '#': a fragment never leaves the browser that opens it (no server log holds it)
      const url = `${location.origin}/t/${t.id}?admin#claim=${hand.code}`;
      if (handLink.value !== url) handLink.value = url;
      setText(handWhen, `Open the link on the other device, or type the code on its organizer's page, `
        + `before ${clock.timeOfDay(hand.until)}. It works once; a new one replaces it.`);
    }
  }

  /** s: the state; entries: the leaderboard of the round's room this page is in (a small one's). */
  function render(s, entries) {
    last = { s, entries };
    paint();
  }

  return { el, render };
}
