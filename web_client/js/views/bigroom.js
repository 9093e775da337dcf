/** A big room's lobby (more than 16 seats): no list of players but their
counts, live from the room's ticks (`top.n` players, `top.ready` of them
ready); the host, who starts when they choose (ready flags are counted,
never waited for) or sets a time; and that time's countdown, the same for
everyone on the server's clock. Players may join until the race starts. */

import { h, setText, show, timedScreen, toggle } from '../dom.js';
import * as rooms from '../rooms.js';
import * as field from '../field.js';
import { count, duration } from '../format.js';
import { createInvite } from './room.js';
import { createSchedule } from './schedule.js';
import { TEXT } from '../text.js';

const [B, C] = [TEXT.bigroom, TEXT.common];

const SOME = 6; // names shown of the players in the lobby

export function createBigRoom(root, app) {
  const clock = app.clock;
  const title = h('h1', { id: 'bigroom-title' });
  const invite = createInvite();
  const counts = h('p', { class: 'field-counts', role: 'status' });
  const hostText = h('p', { class: 'field-host' });
  const some = h('p', { class: 'field-some' });
  const when = h('p', { class: 'field-when', role: 'timer', 'aria-live': 'off' });
  const readyBtn = h('button', { class: 'btn primary', type: 'button', onclick: () => rooms.ready(app, !ready) });
  const startBtn = h('button', { class: 'btn primary', type: 'button', text: B.startNow, onclick: () => rooms.start(app) });
  const schedule = createSchedule({ id: 'bigroom-at', className: 'field-schedule', clock, onAt: (at) => rooms.startAt(app, at) });
  const el = h('section', { class: 'screen room bigroom panel-page', 'aria-labelledby': 'bigroom-title' },
    title,
    invite.el,
    h('div', { class: 'panel' },
      h('h2', { text: B.players }),
      counts, hostText, some, when,
      h('div', { class: 'buttons' }, readyBtn, startBtn, schedule.el,
        h('button', { class: 'btn ghost', type: 'button', text: B.leave, onclick: () => rooms.leave(app) }))));
  root.append(el);
  let ready = false;

  /** The scheduled start and its countdown, on the server's clock. */
  function tick() {
    const room = app.state.room;
    if (!room) return;
    const at = room.start_at;
    show(when, Boolean(at));
    if (at) {
      const left = at - clock.now();
      setText(when, left > 0 ? B.startsAt(clock.timeOfDay(at), duration(left + 999)) : B.starting);
    }
  }

  function render(s) {
    const room = s.room;
    const host = room.host === s.seat;
    setText(title, C.room(room.id));
    app.title.screen(C.pageRoom(room.id));
    invite.render(room);

    const n = field.lobbyCounts(room, s.field);
    setText(counts, B.counts(n.players, count(n.players), count(room.settings.max_players), count(n.ready)));
    setText(hostText, host
      ? B.youHost
      : B.otherHost(room.host_name || B.theHost));
    const names = field.topLines(s.field).map((x) => x.seat === s.seat ? C.you(x.nickname) : x.nickname);
    const others = n.players - Math.min(names.length, SOME);
    setText(some, names.length ? B.inRoom(names.slice(0, SOME).join(', '), others > 0 ? count(others) : '') : '');
    show(some, names.length > 0);

    ready = s.field.ready;
    show(readyBtn, !host);
    setText(readyBtn, ready ? B.notReady : B.ready);
    toggle(readyBtn, 'primary', !ready);
    const scheduled = Boolean(room.start_at);
    show(startBtn, host && !scheduled);
    show(schedule.el, host);
    setText(schedule.label, scheduled ? B.anotherTime : B.orAt);
    setText(schedule.button, scheduled ? B.change : B.schedule);
    tick();
  }

  return timedScreen(el, { render, tick, every: 250 });
}
