/** The spectator's screen: the leaderboard, and the players' boards exactly as
the server sends them (`boards` frames) — small in a grid, one large on click.
Before the server sends any, a line says when boards will come, and the race
itself is drawn instead, each racer's lane live (track.js).

A big room's: the top lines, and its field as bigfield.js shows it (a big
tournament's round shows it the same way): the field's progress picture, the
whole field a page at a time, one player followed by nickname, their place
and board shown first, and the top players' boards (the server sends the top 8). */

import { h, setText, show, timedScreen, toggle } from '../dom.js';
import { phaseAt } from '../state.js';
import * as rooms from '../rooms.js';
import { count, duration, modeText, placeOf } from '../format.js';
import * as field from '../field.js';
import { createBigField } from './bigfield.js';
import { createBoardsGrid } from './boards.js';
import { createTrack } from './track.js';
import { createLeaderboard, ratingsOf } from './leaderboard.js';
import { createPodium } from './podium.js';
import { createResults } from './results.js';
import { standing } from '../ranking.js';
import { TEXT } from '../text.js';

const A = TEXT.watch;
import * as storage from '../storage.js';

export function createWatch(root, app) {
  const clock = app.clock;
  const openField = (options) => app.dialogs.field.open(options);
  const title = h('h1', { class: 'watch-title' });
  const phaseText = h('p', { class: 'watch-phase', role: 'status' });
  const note = h('p', { class: 'watch-note' });
  const main = h('div', { class: 'watch-main' }, note);
  const track = createTrack(main);
  const grid = createBoardsGrid(main, app);
  const side = h('aside', { class: 'side' });
  const resultsBtn = h('button', { class: 'btn small primary', type: 'button', text: A.results,
    onclick: () => { app.state.ui.resultsHidden = false; app.changed(); } });
  const podium = createPodium(side);
  const leaderboard = createLeaderboard(side);
  const results = createResults(root, {
    field: () => openField({ spectator: true }),
    rematch: () => {},
    solo: (code) => rooms.solo(app, { nickname: storage.nickname() || 'player', code }),
    fresh: () => {},
    hide: () => { app.state.ui.resultsHidden = true; app.changed(); },
    leave: () => rooms.leave(app),
  });
  const el = h('section', { class: 'screen watch', 'aria-label': A.label },
    h('header', { class: 'topbar' },
      h('span', { class: 'brand', text: TEXT.title }),
      title,
      resultsBtn,
      h('button', { class: 'btn small ghost', type: 'button', text: A.stop, onclick: () => rooms.leave(app) })),
    phaseText,
    h('div', { class: 'watch-body' }, main, side),
    results.el);
  root.append(el);

  let bigField = null; // a big room's field, made when one is shown
  let mine = null; // a daily deal's ranked page: the viewer's own line, if they played (made when shown)

  function makeBig() {
    const parts = createBigField(app);
    main.prepend(parts.follow.el); // the followed player comes first
    side.insertBefore(parts.hist.el, leaderboard.el); // a glance at the field, then its top
    side.append(parts.fieldBtn);
    return parts;
  }

  function tick() {
    const room = app.state.room;
    if (!room) return;
    const now = clock.now();
    const phase = phaseAt(room, now);
    if (phase === 'countdown') setText(phaseText, A.startingIn(Math.ceil(Math.max(0, room.start_at - now) / 1000)));
    else if (phase === 'racing') setText(phaseText, A.racing(duration(now - room.start_at)));
    else if (phase === 'ended') setText(phaseText, A.over);
    else if (field.isBig(room)) setText(phaseText, bigLobbyText(room, now));
    else setText(phaseText, A.lobby);
  }

  function bigLobbyText(room, now) {
    const n = field.lobbyCounts(room, app.state.field);
    const who = A.inLobby(n.players, count(n.players), count(n.ready));
    if (room.start_at && room.start_at > now) {
      return A.startsAt(who, clock.timeOfDay(room.start_at), duration(room.start_at - now + 999));
    }
    return A.waitingHost(who);
  }

  function render(s) {
    const room = s.room;
    if (!room) {
      setText(title, TEXT.common.room(s.roomId));
      return;
    }
    const day = room.settings.daily;
    // a daily deal's watchers see its ranking, wide, as a page of its own (its boards come after the day)
    toggle(el, 'ranked', Boolean(day));
    setText(title, day ? (room.phase === 'ended' ? TEXT.daily.dayTitle(day, modeText(room.settings))
      : TEXT.daily.todayTitle(modeText(room.settings))) : A.title(room.id, modeText(room.settings)));
    app.title.screen(day ? TEXT.daily.dayPage(day) : A.page(room.id));
    tick();
    const phase = phaseAt(room, clock.now());
    const mode = room.settings.boards;
    const big = field.isBig(room);
    const C = TEXT.common;
    const when = mode === 'live' ? C.whenLive : mode === 'delayed' ? C.whenDelayed(room.settings.delay) : C.whenAfterRace;
    const scoring = room.settings.scoring;
    if (big && !bigField) bigField = makeBig();
    if (bigField) {
      show(bigField.follow.el, big);
      show(bigField.fieldBtn, big);
      if (!big) show(bigField.hist.el, false);
    }
    let ranking;
    let shown;
    if (big) {
      const drawn = bigField.render(s, { spectator: true, phase, scoring, boardsWhen: when, grid });
      ranking = standing(drawn.lines, { total: field.total(s.field) });
      shown = drawn.shown;
    } else {
      ranking = standing(s.entries);
      shown = grid.render(s.boards, { names: new Map(room.players.map((p) => [p.seat, p.nickname])),
        entries: s.entries, bigSeat: s.ui.bigSeat, phase });
    }
    // the race drawn while no board is shown (a big room has its field's picture)
    track.render(s.entries, { scoring, phase, visible: !big && !day && !shown && phase !== 'lobby' });
    const top = big ? Math.min(field.BOARDS_SHOWN, room.settings.top) : 0;
    setText(note, shown ? C.boardsShown(top, when)
      : phase === 'lobby' ? C.boardsLater(top, when) : C.boardsNoneYet(top, when));
    show(resultsBtn, phase === 'ended' && s.ui.resultsHidden);
    const stuck = new Set(Object.keys(s.boards).map(Number).filter((seat) => s.boards[seat].state === 'stuck'));
    podium.render(ranking.lines, { visible: ranking.total > 1 && phase !== 'ended' });
    leaderboard.render(ranking.lines, { total: big && s.field.top ? s.field.top.n : ranking.total, scoring, phase, stuck,
      challenge: Boolean(day), ratings: ratingsOf(room) });
    results.render(room, { me: -1, visible: !s.ui.resultsHidden, field: big ? { mine: null, total: ranking.total } : null });
    renderMine(s, { day, big, scoring, phase });
  }

  /** On a daily deal's ranked page, the line of the player this browser is,
  if it played there (the seat it keeps), wherever it ranks: "You: 4 012th
  of 9 870". */
  function renderMine(s, { day, big, scoring, phase }) {
    const kept = day && big ? storage.loadSeat(s.room.id) : null;
    if (kept && s.field.top) field.findMine(app, kept.seat, s.player.nickname || storage.nickname());
    const found = kept && s.field.mine && s.field.mine.line ? s.field.mine : null;
    if (found && !mine) {
      mine = createLeaderboard(side, { title: TEXT.race.yourPlace, kind: 'lb-place' });
      mine.el.classList.add('mine');
    }
    if (!mine) return;
    show(mine.el, Boolean(found));
    if (!found) return;
    const of = s.field.top ? s.field.top.n : found.rank;
    mine.render([{ ...found.line, rank: found.rank }], { me: found.seat, scoring, phase, challenge: true,
      title: TEXT.race.you(placeOf(found.rank, of)) });
  }

  return timedScreen(el, { render, tick, every: 500 });
}
