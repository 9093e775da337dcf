/** A challenge's page, for a player who has not begun their game (docs/
protocol.md, "Challenges"): how long it stays open, "Start my game" (and,
near the close, that the game would end with it), the link to share, and
who has played (each with their status: not started yet, playing,
finished and their time, resigned, out of time). Once the window has
closed: the results, the deal's code, every replay and "Play it again"
(alone, unranked). A daily deal is one: its page says so. */

import { h, setText, show, timedScreen } from '../dom.js';
import * as rooms from '../rooms.js';
import * as challenge from '../challenge.js';
import * as field from '../field.js';
import { count, duration, modeText, timeLeft, windowText } from '../format.js';
import * as storage from '../storage.js';
import { standing } from '../ranking.js';
import { createInvite } from './room.js';
import { createLeaderboard } from './leaderboard.js';
import { createReplayList } from './replaylist.js';
import { TEXT } from '../text.js';

const H = TEXT.challenge;

export function createChallenge(root, app) {
  const clock = app.clock;
  const title = h('h1', { id: 'challenge-title' });
  const open = h('p', { class: 'challenge-open', role: 'timer', 'aria-live': 'off' });
  const how = h('p', { class: 'challenge-how' });
  const beginBtn = h('button', { class: 'btn primary big', type: 'button', text: H.start,
    onclick: () => challenge.begin(app) });
  const warn = h('p', { class: 'challenge-warn', role: 'note' });
  const code = h('p', { class: 'challenge-code' });
  const again = h('button', { class: 'btn small', type: 'button', text: TEXT.daily.againAlone,
    onclick: () => rooms.solo(app, { nickname: storage.nickname() || app.state.player.nickname || 'player',
      code: app.state.room.code }) });
  const invite = createInvite();
  const fieldBtn = h('button', { class: 'btn small', type: 'button',
    onclick: () => app.dialogs.field.open({ me: app.state.seat }) });
  const played = h('div', { class: 'panel challenge-played' });
  const el = h('section', { class: 'screen challenge panel-page', 'aria-labelledby': 'challenge-title' },
    title,
    h('div', { class: 'panel challenge-game' },
      h('h2', { text: H.yourGame }), open, how, warn,
      h('div', { class: 'buttons' }, beginBtn,
        h('button', { class: 'btn ghost', type: 'button', text: H.leave, onclick: () => rooms.leave(app) })),
      code, again),
    invite.el,
    played);
  root.append(el);
  const board = createLeaderboard(played, { title: H.played });
  played.append(fieldBtn);
  const replays = createReplayList(played, app);

  function tick() {
    const room = app.state.room;
    if (!room) return;
    const now = clock.now();
    const closed = room.phase === 'ended';
    setText(open, closed ? H.closedOn(clock.dayAndTime(room.ended_at ?? room.deadline))
      : H.openUntil(clock.dayAndTime(room.deadline), timeLeft(room.deadline - now)));
    const limit = room.settings.time_limit * 1000;
    const short = !closed && limit && room.deadline - now < limit;
    setText(warn, short ? H.closesIn(duration(room.deadline - now)) : '');
    show(warn, Boolean(short));
  }

  function render(s) {
    const room = s.room;
    const settings = room.settings;
    const closed = room.phase === 'ended';
    const day = settings.daily;
    setText(title, day ? TEXT.daily.dayTitle(day, modeText(settings)) : H.title(room.id));
    app.title.screen(day ? TEXT.daily.dayPage(day) : H.page(room.id));
    setText(how, closed ? H.resultsIn
      : day ? TEXT.daily.dayHow(Math.round(settings.time_limit / 60))
        : H.how(windowText(settings.window), settings.time_limit ? Math.round(settings.time_limit / 60) : 0));
    show(beginBtn, !closed);
    show(invite.el, !closed);
    invite.render(room);
    setText(code, closed && room.code ? H.dealWas(room.code) : '');
    show(code, closed);
    show(again, closed && Boolean(room.code));

    const big = field.isBig(room);
    const lines = closed && room.results ? room.results
      : big ? field.topLines(s.field) : s.entries;
    const ranking = standing(lines, { me: s.seat, total: big ? field.total(s.field) : null });
    board.render(ranking.lines, { me: s.seat, total: ranking.total, scoring: settings.scoring,
      phase: room.phase, challenge: true,
      title: closed ? H.results : H.whoPlayed(count(ranking.total)) });
    show(fieldBtn, big);
    setText(fieldBtn, H.findPlayer(count(ranking.total)));
    replays.render(s, ranking.lines);
    tick();
  }

  return timedScreen(el, { render, tick, every: 500 });
}
