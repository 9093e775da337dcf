/** The organizer's controls of a tournament: close registration, start the
next round now or at a time, end the round being played (for no-shows), and
organize from another device (a one-time code, `t_handoff`, opened there as
a link or typed in). Each is one command; what happened comes back as the
tournament's events. Removing a player is done from their line in the
standings (bigstandings.js in a big tournament, the players' list in a small
one). */

import { h, setText, show, toggle } from '../dom.js';
import * as tournament from '../tournament.js';
import { count } from '../format.js';
import * as tournamentField from '../tournamentfield.js';
import { copy } from './room.js';
import { modeOf } from './rounds.js';
import { createSchedule } from './schedule.js';
import { TEXT } from '../text.js';

const O = TEXT.organizer;

export function createOrganizer(host, app) {
  const clock = app.clock;
  const regText = h('p', { class: 't-admin-line' });
  const closeBtn = h('button', { class: 'btn', type: 'button', text: O.closeReg,
    onclick: () => tournament.closeRegistration(app) });
  const nextText = h('p', { class: 't-admin-line' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', onclick: () => tournament.startRound(app, 0) });
  const schedule = createSchedule({ id: 't-start-at', className: 't-schedule', clock, onAt: (at) => tournament.startRound(app, at) });
  const atForm = schedule.el;
  const atBtn = schedule.button;
  const curText = h('p', { class: 't-admin-line' });
  const endBtn = h('button', { class: 'btn', type: 'button', onclick: () => end() });
  const handText = h('p', { class: 't-admin-line', text: O.handText });
  const handBtn = h('button', { class: 'btn', type: 'button', text: O.makeCode, onclick: () => tournament.handoff(app) });
  const handCode = h('code', { class: 't-handoff-code' });
  const handLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': O.handLink });
  const handWhen = h('p', { class: 't-note' });
  const handOut = h('div', { class: 't-handoff', hidden: true },
    h('p', {}, O.code, handCode),
    h('div', { class: 'share' }, handLink,
      h('button', { class: 'btn small', type: 'button', text: O.copyLink, onclick: () => copy(handLink, O.copied) })),
    handWhen);
  const el = h('section', { class: 'panel t-admin', 'aria-labelledby': 't-admin-title' },
    h('h2', { id: 't-admin-title', text: O.title }),
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
    const big = tournamentField.isBig(t);
    const active = big ? t.field.players - t.field.withdrawn : t.players.filter((p) => !p.withdrawn).length;
    const late = t.settings.late_until > 1 ? O.untilRound(t.settings.late_until) : '';
    setText(regText, t.registration
      ? O.open(late, count(active), count(t.settings.max_players))
      : O.closed(active, count(active)));
    show(closeBtn, t.registration);

    current = t.rounds.find((r) => r.status === 'starting' || r.status === 'running') || null;
    const next = t.rounds.find((r) => r.status === 'pending');
    if (next) {
      setText(nextText, O.next(next.n, t.rounds.length, modeOf(t.settings.modes[next.n - 1])));
      setText(startBtn, O.startNow(next.n));
    } else {
      setText(nextText, O.allPlayed);
    }
    const canStart = Boolean(next && !current && active > 0);
    show(startBtn, Boolean(next));
    show(atForm, Boolean(next));
    startBtn.disabled = !canStart;
    atBtn.disabled = !canStart;
    if (next && !current && !active) setText(nextText, O.needPlayer(next.n));

    if (current) {
      const now = clock.now();
      const top = big && s.field.top && s.room && s.room.settings.round === current.n ? s.field.top : null;
      const racing = top ? top.status.racing || 0
        : entries.filter((e) => e.status === 'racing' || e.status === 'disconnected').length;
      const known = top ? top.n > 0 : entries.length > 0;
      const playing = big && top ? O.bigPlaying(count(racing), count(top.n), count(current.players ?? top.n))
        : known ? O.playing(racing) : '';
      setText(curText, current.start_at > now
        ? O.startsAt(current.n, clock.timeOfDay(current.start_at))
        : O.beingPlayed(current.n, playing));
      setText(endBtn, confirmEnd === current.n ? O.reallyEnd(current.n) : O.end(current.n));
      toggle(endBtn, 'danger', confirmEnd === current.n);
    } else {
      setText(curText, O.noRound);
    }
    show(endBtn, Boolean(current && current.status === 'running'));

    const hand = s.tour.handoff;
    const live = Boolean(hand && hand.until > clock.now());
    show(handOut, live);
    setText(handBtn, live ? O.newCode : O.makeCode);
    if (live) {
      setText(handCode, hand.code);
      // the code goes after '#': a fragment never leaves the browser that opens it (no server log holds it)
      const url = `${location.origin}/t/${t.id}?admin#claim=${hand.code}`;
      if (handLink.value !== url) handLink.value = url;
      setText(handWhen, O.handWhen(clock.timeOfDay(hand.until)));
    }
  }

  /** s: the state; entries: the leaderboard of the round's room this page is in (a small one's). */
  function render(s, entries) {
    last = { s, entries };
    paint();
  }

  return { el, render };
}
