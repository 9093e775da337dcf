/** The lobby's races to find (docs/protocol.md, "Races to find"): Quick race
in a chosen mode, and the public races, waiting to start (Join) or running
(Watch), each one tap away, kept current by the server's `rooms` frames
while the lobby shows. A race this browser keeps a seat in offers the seat
back instead: its racer may not watch it (`own_race`). A rated race says so. */

import { h, setText, show } from '../dom.js';
import { duration, modeText } from '../format.js';
import * as storage from '../storage.js';
import { go } from '../navigation.js';
import * as rooms from '../rooms.js';
import { TEXT } from '../text.js';

const Q = TEXT.races;

const MODES = ['1N', '3N', '1V', '3V'];

/** When a listed race starts or started, read on our clock ("starts in 0:12", "racing for 3:05"). */
function timeText(r, now) {
  if (r.phase === 'lobby') {
    if (r.start_at != null) return Q.startsIn(duration(r.start_at - now));
    return r.quick ? Q.secondPlayer : Q.waitingHost;
  }
  if (r.phase === 'countdown' || (r.start_at != null && r.start_at > now)) return Q.startsIn(duration(r.start_at - now));
  const limit = r.time_limit ? Q.ofMin(Math.round(r.time_limit / 60)) : '';
  return Q.racingFor(duration(now - r.start_at), limit);
}

function modeOf(r) {
  return modeText({ draw: Number(r.mode[1]), scoring: r.mode[2] });
}

/** A listed room (`rooms`' item, or a room's card: `GET /api/rooms/{id}/card`)
in words: who (a quick race, or its host's room), its mode, and its players
and time ("2 of 8 players · waiting for the host"), read at `now` on our clock. */
export function describe(r, now) {
  return { who: r.quick ? Q.quickRace : Q.hostRoom(r.host), mode: modeOf(r),
    meta: Q.meta(Q.players(r.players, r.max), timeText(r, now)) };
}

/** `createRaces(app, {nickname, checkNick})`: the panel, drawn by `render(state)`. */
export function createRaces(app, { nickname, checkNick }) {
  const mode = h('select', { name: 'qmode', 'aria-label': Q.quickMode },
    ...MODES.map((v) => h('option', { value: v, text: modeText({ draw: Number(v[0]), scoring: v[1] }) })));
  const quickForm = h('form', { class: 'quick' },
    h('label', { class: 'field' }, h('span', { text: Q.quickRace }), mode),
    h('button', { class: 'btn accent', type: 'submit', text: Q.quickRace }));
  quickForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!checkNick()) return;
    rooms.quick(app, nickname(), Number(mode.value[0]), mode.value[1]);
  });
  const waiting = h('ul', { class: 'race-list', 'aria-label': Q.waiting });
  const running = h('ul', { class: 'race-list', 'aria-label': Q.running });
  const waitingHead = h('h3', { text: Q.waiting });
  const runningHead = h('h3', { text: Q.running });
  const empty = h('p', { class: 'race-empty' });
  const el = h('section', { class: 'panel races', 'aria-labelledby': 'races-title' },
    h('h2', { id: 'races-title', text: Q.title }),
    h('p', { class: 'field-note', text: Q.note }),
    quickForm, empty, waitingHead, waiting, runningHead, running);

  function join(room) {
    if (!checkNick()) return;
    rooms.enter(app, 'join', { room, nickname: nickname() });
  }

  function watch(room) {
    rooms.enter(app, 'watch', rooms.watchRequest(app.state, room, 0));
  }

  function row(r, now) {
    const mine = storage.loadSeat(r.id); // our own seat: back to it, never watched
    const { who, mode, meta } = describe(r, now);
    let button;
    if (mine) {
      button = h('button', { class: 'btn small primary', type: 'button', text: Q.yourSeat, onclick: () => go(`/r/${r.id}`) });
    } else if (r.phase === 'lobby') {
      button = h('button', { class: 'btn small primary', type: 'button', text: Q.join, 'aria-label': Q.joinLabel(who), onclick: () => join(r.id) });
    } else {
      button = h('button', { class: 'btn small', type: 'button', text: Q.watch, 'aria-label': Q.watchLabel(who), onclick: () => watch(r.id) });
    }
    return h('li', { class: 'race-item', 'data-room': r.id },
      h('span', { class: 'race-main' },
        h('strong', { text: who }), ' ', h('span', { class: 'race-mode', text: mode }),
        r.rated ? h('span', { class: 'race-rated', text: Q.rated }) : null),
      h('span', { class: 'race-meta', text: meta }),
      button);
  }

  let drawn = '';
  function render(s) {
    const list = s.lobby.list;
    const shown = list ? list.rooms : [];
    const now = app.clock.now();
    const key = JSON.stringify([shown, Math.floor(now / 1000), shown.map((r) => Boolean(storage.loadSeat(r.id)))]);
    const busy = Boolean(s.entering);
    for (const b of el.querySelectorAll('button')) b.disabled = busy;
    if (key === drawn) return;
    drawn = key;
    const w = shown.filter((r) => r.phase === 'lobby');
    const r = shown.filter((x) => x.phase !== 'lobby');
    waiting.replaceChildren(...w.map((x) => row(x, now)));
    running.replaceChildren(...r.map((x) => row(x, now)));
    show(waitingHead, w.length > 0);
    show(runningHead, r.length > 0);
    show(empty, !shown.length);
    setText(empty, list ? Q.none : Q.looking);
    for (const b of el.querySelectorAll('button')) b.disabled = busy;
  }

  return { el, render };
}
