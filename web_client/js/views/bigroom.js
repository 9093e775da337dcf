/** A big room's lobby (more than 16 seats): no list of players but their
counts, live from the room's ticks (`top.n` players, `top.ready` of them
ready); the host, who starts when they choose (ready flags are counted,
never waited for) or sets a time; and that time's countdown, the same for
everyone on the server's clock. Players may join until the race starts. */

import { h, setText, show, toggle } from '../dom.js';
import * as rooms from '../rooms.js';
import * as field from '../field.js';
import { count, duration } from '../format.js';
import { createInvite } from './room.js';
import { createSchedule } from './schedule.js';

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
  const startBtn = h('button', { class: 'btn primary', type: 'button', text: 'Start the race now', onclick: () => rooms.start(app) });
  const schedule = createSchedule({ id: 'bigroom-at', className: 'field-schedule', clock, onAt: (at) => rooms.startAt(app, at) });
  const el = h('section', { class: 'screen room bigroom panel-page', 'aria-labelledby': 'bigroom-title' },
    title,
    invite.el,
    h('div', { class: 'panel' },
      h('h2', { text: 'Players' }),
      counts, hostText, some, when,
      h('div', { class: 'buttons' }, readyBtn, startBtn, schedule.el,
        h('button', { class: 'btn ghost', type: 'button', text: 'Leave the room', onclick: () => rooms.leave(app) }))));
  root.append(el);
  let ready = false;
  let timer = 0;

  /** The scheduled start and its countdown, on the server's clock. */
  function tick() {
    const room = app.state.room;
    if (!room) return;
    const at = room.start_at;
    show(when, Boolean(at));
    if (at) {
      const left = at - clock.now();
      setText(when, left > 0 ? `The race starts at ${clock.timeOfDay(at)}, in ${duration(left + 999)}.` : 'The race is starting…');
    }
  }

  function render(s) {
    const room = s.room;
    const host = room.host === s.seat;
    setText(title, `Room ${room.id}`);
    app.title.screen(`Klondike Race — room ${room.id}`);
    invite.render(room);

    const n = field.lobbyCounts(room, s.field);
    setText(counts, `${count(n.players)} player${n.players === 1 ? '' : 's'} of at most `
      + `${count(room.settings.max_players)} · ${count(n.ready)} ready`);
    setText(hostText, host
      ? 'You are the host: start the race when you like, now or at a set time. Ready or not, everyone in the room races.'
      : `${room.host_name || 'The host'} is the host and starts the race, now or at a set time: ready or not, you race.`);
    const names = field.topLines(s.field).map((x) => x.nickname + (x.seat === s.seat ? ' (you)' : ''));
    const others = n.players - Math.min(names.length, SOME);
    setText(some, names.length ? `In the room: ${names.slice(0, SOME).join(', ')}${others > 0 ? ` and ${count(others)} more` : ''}.` : '');
    show(some, names.length > 0);

    ready = s.field.ready;
    show(readyBtn, !host);
    setText(readyBtn, ready ? 'Not ready after all' : "I'm ready");
    toggle(readyBtn, 'primary', !ready);
    const scheduled = Boolean(room.start_at);
    show(startBtn, host && !scheduled);
    show(schedule.el, host);
    setText(schedule.label, scheduled ? 'Another time:' : 'or at');
    setText(schedule.button, scheduled ? 'Change' : 'Schedule');
    tick();
  }

  return {
    el,
    show() {
      el.hidden = false;
      timer = setInterval(tick, 250);
    },
    hide() {
      el.hidden = true;
      clearInterval(timer);
    },
    render,
  };
}
