/** "Today's deal" in the lobby (docs/web_client.md, "The daily deal"): each
daily mode with how many played and finished, the time left in the UTC day,
the player's place ("1 204th of 38 112") or Play (Continue for a seat this
browser took and has not finished with), the leaderboard (the day's room,
watched), the streak; and the past days kept, each with its results and
"Play it again" (a solo game of its code, unranked). */

import { h, setText, show } from '../dom.js';
import * as daily from '../daily.js';
import * as rooms from '../rooms.js';
import { go } from '../navigation.js';
import { count, duration, placeOf, timeLeft } from '../format.js';
import { modeOf } from './rounds.js';
import { TEXT } from '../text.js';

const D = TEXT.daily;

const DAY_NAME = { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' };

/** Play today's deal of `mode`: a seat as this browser's player; a seat
of that room this browser kept is taken back instead. */
function play(app, m, nickname) {
  if (daily.seated(m.room)) go(`/r/${m.room}`); // the kept seat: resumed
  else rooms.enter(app, 'daily_play', { mode: m.mode, nickname });
}

function dayText(day) {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString([], DAY_NAME);
}

/** What a line of the field says of its game: "finished in 3:21", "resigned". */
function outcome(line) {
  if (!line) return '';
  if (line.status === 'finished') return D.finishedIn(duration(line.finish_ms));
  if (line.status === 'racing') return D.playing;
  return { resigned: D.resigned, unfinished: D.unfinished, left: D.gone }[line.status] || line.status;
}

/** The panel; `nickname()` is the lobby's checked nickname ('' when none). */
export function createDaily(app, nickname) {
  const left = h('p', { class: 'daily-left', role: 'timer', 'aria-live': 'off' });
  const streak = h('p', { class: 'daily-streak' });
  const modes = h('ul', { class: 'daily-modes' });
  const noPlayer = h('p', { class: 't-note', hidden: true,
    text: D.noPlayer });
  const pastList = h('ul', { class: 'daily-past' });
  const past = h('details', { class: 'daily-past-days' }, h('summary', { text: D.pastDays }), pastList);
  const el = h('section', { class: 'panel daily', 'aria-labelledby': 'daily-title' },
    h('h2', { id: 'daily-title', text: D.title }),
    h('p', { class: 'daily-how', text: D.how }),
    left, streak, modes, noPlayer, past);
  let timer = 0;
  let drawn = '';

  function tick() {
    const view = app.state.daily.view;
    if (!view) {
      setText(left, D.coming);
      return;
    }
    const ms = view.ends_at - app.clock.now();
    setText(left, ms > 0 ? D.left(dayText(view.day), timeLeft(ms)) : D.over);
    daily.refresh(app);
  }

  function modeRow(m, s) {
    const mine = m.mine;
    const seated = daily.seated(m.room);
    const head = h('div', { class: 'daily-mode-head' },
      h('strong', { text: modeOf(m.mode) }),
      h('span', { class: 't-note', text: m.room ? D.counts(count(m.played), count(m.finished)) : D.opening }));
    const place = mine && mine.rank
      ? h('p', { class: 'daily-place', text: D.you(placeOf(mine.rank, mine.of), outcome(mine.line)) })
      : null;
    const buttons = h('div', { class: 'buttons' });
    if (!mine && m.room) {
      buttons.append(h('button', { class: 'btn primary small', type: 'button', text: seated ? D.continue : D.play,
        disabled: !s.player.id || Boolean(s.entering),
        onclick: () => {
          const name = nickname();
          if (name) play(app, m, name);
        } }));
    }
    if (mine && mine.line && mine.line.status === 'racing' && seated) {
      buttons.append(h('button', { class: 'btn primary small', type: 'button', text: D.continue,
        onclick: () => go(`/r/${m.room}`) }));
    }
    if (m.room) { // a seat whose game is on: its table, with the ranking beside it (a racer may not
      // watch it); once the game is over, the ranked page as anyone sees it
      const over = mine && mine.line && !['racing', 'lobby'].includes(mine.line.status);
      const to = seated && !over ? `/r/${m.room}` : `/r/${m.room}?watch`;
      buttons.append(h('a', { class: 'btn small', href: to, text: D.leaderboard,
        onclick: (e) => { e.preventDefault(); go(to); } }));
    }
    return h('li', { class: 'daily-mode' }, head, place, buttons);
  }

  function pastRow(d) {
    return h('li', {}, h('span', { class: 'daily-past-day', text: dayText(d.day) }),
      ...d.modes.map((m) => h('span', { class: 'daily-past-mode' },
        h('a', { href: `/r/${m.room}?watch`, text: modeOf(m.mode),
          onclick: (e) => { e.preventDefault(); go(`/r/${m.room}?watch`); } }),
        m.code ? h('button', { class: 'btn small', type: 'button', text: D.again,
          onclick: () => {
            const name = nickname();
            if (name) rooms.solo(app, { nickname: name, code: m.code });
          } }) : null)));
  }

  function render(s) {
    const view = s.daily.view;
    show(el, !view || view.modes.length > 0);
    show(noPlayer, Boolean(view) && !s.player.id);
    const st = view && view.streak;
    show(streak, Boolean(st));
    if (st) {
      setText(streak, st.days ? D.streak(st.days, st.best) : D.noStreak(st.best));
    }
    const key = JSON.stringify([view && view.modes, view && view.past, s.player.id, Boolean(s.entering)]);
    if (key !== drawn) { // redrawn only when what it shows changed
      drawn = key;
      modes.replaceChildren(...(view ? view.modes.map((m) => modeRow(m, s)) : []));
      const days = (view && view.past) || [];
      pastList.replaceChildren(...days.map(pastRow));
      show(past, days.length > 0);
    }
    tick();
  }

  return {
    el,
    start() {
      daily.ask(app);
      clearInterval(timer);
      timer = setInterval(tick, 1000);
    },
    stop() { clearInterval(timer); },
    render,
  };
}
