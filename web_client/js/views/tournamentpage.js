/** A tournament's page, for its organizer (/t/ID?admin), its players and its
spectators (/t/ID): what is happening now (a countdown to the next round, the
round being played, the code of the round just over), registration, the
organizer's controls, the current round's leaderboard and boards, the rounds
with their codes, results and replays, the standings and the players.

A player's round itself is played on the race screen (main.js switches to
it); this page is where they are between rounds.

A big tournament (more than 16 players) lists nobody: its page shows the
field's counts, the top of the standings with the viewer's own line pinned
and a browser of the rest (bigstandings.js), and the round as a big room's
spectator sees it (roundlive.js). */

import { h, setAttr, setText, show, timedScreen, toggle } from '../dom.js';
import { phaseAt } from '../state.js';
import * as tournament from '../tournament.js';
import * as player from '../player.js';
import * as tournamentField from '../tournamentfield.js';
import * as field from '../field.js';
import * as storage from '../storage.js';
import { go } from '../navigation.js';
import { count, duration, money, ordinal, placeOf } from '../format.js';
import { createBoardsGrid } from './boards.js';
import { createLeaderboard, statusText } from './leaderboard.js';
import { createOrganizer } from './organizer.js';
import { copy } from './room.js';
import { createRounds, modeOf } from './rounds.js';
import { createReplay } from './replay.js';
import { createStandings } from './standings.js';
import { createBigStandings } from './bigstandings.js';
import { createBigLive } from './roundlive.js';
import { TEXT } from '../text.js';
import { createKick } from './kick.js';

const [U, C] = [TEXT.tournament, TEXT.common];

/** When spectators see a round's boards: "live", "after the round", "30 s late". */
function boardsWhen(settings) {
  if (settings.boards === 'live') return C.whenLive;
  return settings.boards === 'after' ? C.whenAfterRound : C.whenDelayed(settings.delay);
}

function settingsText(t) {
  const s = t.settings;
  const modes = [...new Set(s.modes)].map(modeOf).join(' / ');
  return [U.rounds(s.rounds), modes, U.perRound(duration(s.time_limit * 1000)),
    TEXT.room.upTo(s.max_players), s.undo ? TEXT.room.undoOn : TEXT.room.undoOff,
    s.hints ? TEXT.room.hintsOn : TEXT.room.hintsOff, U.boards(boardsWhen(s)),
    s.interval ? U.interval(duration(s.interval * 1000)) : '',
    s.late_until > 1 ? U.lateUntil(s.late_until) : '', s.invite ? U.byInvitation : '']
    .filter(Boolean).join(' · ');
}

function link(text, path, props = {}) {
  return h('a', { href: path, text, ...props, onclick: (e) => { e.preventDefault(); go(path); } });
}

export function createTournament(root, app) {
  const clock = app.clock;
  const kick = createKick(app);
  // ---------------------------------------------------------------- top
  const roleBadge = h('span', { class: 'badge t-role' });
  const otherView = h('a', { class: 'btn small ghost' });
  otherView.addEventListener('click', (e) => {
    e.preventDefault();
    go(otherView.getAttribute('href'));
  });
  const title = h('h1', { id: 't-title' });
  const sub = h('p', { class: 't-sub' });
  const problemText = h('p', { role: 'alert' });
  const claimInput = h('input', { type: 'text', name: 'claim', maxLength: 20, autocomplete: 'off', spellcheck: false,
    'aria-label': U.claimLabel, placeholder: U.code });
  const claimError = h('p', { class: 'form-error', role: 'alert' });
  const claimForm = h('form', { class: 't-claim' },
    h('label', { for: 't-claim-code', text: U.claimText }),
    claimInput, h('button', { class: 'btn', type: 'submit', text: U.useCode }), claimError);
  claimInput.id = 't-claim-code';
  claimForm.addEventListener('submit', (e) => {
    e.preventDefault();
    tournament.claim(app, claimInput.value);
  });
  const problem = h('div', { class: 'panel t-problem' }, problemText, claimForm);

  // ---------------------------------------------------------------- now
  const headline = h('h2', { class: 't-headline', id: 't-now-title' });
  const detail = h('p', { class: 't-detail' });
  const backBtn = h('button', { class: 'btn primary', type: 'button', text: U.back,
    onclick: () => tournament.showPage(app, false) });
  // read out when what is happening changes, not at each second of a countdown
  const announce = h('p', { class: 'visually-hidden', role: 'status' });
  const now = h('section', { class: 'panel t-now', 'aria-labelledby': 't-now-title' },
    headline, detail, h('div', { class: 'buttons' }, backBtn), announce);

  // ---------------------------------------------------------------- register
  const nick = h('input', { type: 'text', id: 't-nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname',
    required: true, placeholder: U.nickPlaceholder, value: storage.nickname() });
  const invite = h('input', { type: 'text', id: 't-invite', name: 'invite', maxLength: 20, autocomplete: 'off',
    spellcheck: false, placeholder: U.invitePlaceholder });
  const inviteField = h('label', { class: 'field', hidden: true }, h('span', { text: U.inviteCode }), invite);
  const regError = h('p', { class: 'form-error', role: 'alert' });
  const regBtn = h('button', { class: 'btn primary', type: 'submit', text: U.register });
  const register = h('form', { class: 'panel t-register', 'aria-labelledby': 't-register-title' },
    h('h2', { id: 't-register-title', text: U.play }),
    h('label', { class: 'field' }, h('span', { text: U.nickname }), nick),
    inviteField,
    regError,
    h('div', { class: 'buttons' }, regBtn),
    h('p', { class: 't-note', text: U.justWatch }));
  register.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = nick.value.trim();
    if (!name) {
      app.state.tour.formError = U.chooseNick;
      app.changed();
      nick.focus();
      return;
    }
    player.adopt(app, name);
    tournament.register(app, name, invite.value.trim());
  });

  // ---------------------------------------------------------------- columns
  const main = h('div', { class: 't-main' });
  const side = h('aside', { class: 't-side' });
  main.append(register);
  const organizer = createOrganizer(main, app);

  const liveTitle = h('h2', { id: 't-live-title' });
  const liveNote = h('p', { class: 't-note' });
  const live = h('section', { class: 'panel t-live', 'aria-labelledby': 't-live-title' }, liveTitle);
  const leaderboard = createLeaderboard(live, { title: U.leaderboard });
  live.append(liveNote);
  const grid = createBoardsGrid(live, app);
  main.append(live);
  let bigLive = null; // a big round's parts, made when one is shown

  const replay = createReplay(root);
  const rounds = createRounds(main, { clock, replay: (n, player, nickname) => openReplay(n, player, nickname) });

  const standings = createStandings(side);
  const openReplay = (n, player, nickname) => replay.open(`/api/tournaments/${app.state.tour.id}/rounds/${n}/replay/${player}`,
    U.replayTitle(n, nickname));
  let bigStandings = null; // a big tournament's, made when one is shown
  const players = h('ul', { class: 'players t-players', 'aria-labelledby': 't-players-title' });
  const fieldCounts = h('p', { class: 't-field-counts' });
  side.append(h('section', { class: 'panel', 'aria-labelledby': 't-players-title' },
    h('h2', { id: 't-players-title', text: U.players }), players, fieldCounts));

  const youText = h('p');
  const withdrawBtn = h('button', { class: 'btn ghost', type: 'button', onclick: () => withdraw() });
  const you = h('section', { class: 'panel t-you', 'aria-labelledby': 't-you-title' },
    h('h2', { id: 't-you-title', text: U.you }), youText, withdrawBtn);
  side.append(you);

  const shareLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': U.link });
  const jsonLink = h('a', { text: U.json });
  const csvLink = h('a', { text: U.csv });
  const adminNote = h('p', { class: 't-note', text: U.adminNote });
  const inviteNote = h('p', { class: 't-invite' });
  side.append(h('section', { class: 'panel t-share', 'aria-labelledby': 't-share-title' },
    h('h2', { id: 't-share-title', text: U.invite }),
    h('div', { class: 'share' }, shareLink,
      h('button', { class: 'btn small', type: 'button', text: U.copyLink, onclick: () => copy(shareLink, U.linkCopied) })),
    adminNote, inviteNote,
    h('p', { class: 't-links' }, jsonLink, ' · ', csvLink)));

  const el = h('section', { class: 'screen tournament', 'aria-labelledby': 't-title' },
    h('header', { class: 'topbar' },
      link(TEXT.title, '/', { class: 'brand' }), roleBadge, h('span', { class: 't-spacer' }), otherView),
    h('div', { class: 't-page' },
      h('header', { class: 't-hero' }, title, sub),
      problem,
      now,
      h('div', { class: 't-grid' }, main, side)),
    replay.el);
  root.append(el);

  let confirmWithdraw = false;
  let withdrawTimer = 0;
  function withdraw() {
    if (!confirmWithdraw) {
      confirmWithdraw = true;
      clearTimeout(withdrawTimer);
      withdrawTimer = setTimeout(() => { confirmWithdraw = false; app.changed(); }, 4000);
      app.changed();
      return;
    }
    confirmWithdraw = false;
    tournament.withdraw(app);
    app.changed();
  }

  // ---------------------------------------------------------------- what is happening now

  /** Our player: {player, nickname, withdrawn}, or null. */
  function mine(tour) {
    return tournamentField.me(tour);
  }

  function roundEntries(s, n) {
    const room = s.room;
    return room && room.settings.tournament === s.tour.id && room.settings.round === n ? s.entries : [];
  }

  /** Our line in round `n`'s race while this page is in its room: a small
  room's entry, a big room's own place. */
  function ownEntry(s, n, me) {
    if (!me) return null;
    if (!tournamentField.isBig(s.tour.t)) return roundEntries(s, n).find((e) => e.seat === me.player) || null;
    const room = s.room;
    const here = room && room.settings.tournament === s.tour.id && room.settings.round === n;
    return here ? field.ownLine(s.field) : null;
  }

  /** When round `next` starts by itself, if it does: a set time, or an interval after the last one ended
  ("at 20:30:00"); null when the organizer starts it. */
  function nextStart(t, next, last) {
    const starts = t.settings.starts || [];
    if (starts[next.n - 1]) return U.atTime(clock.timeOfDay(starts[next.n - 1]));
    if (t.settings.interval && last && last.ended_at) return U.atLater(clock.timeOfDay(last.ended_at + t.settings.interval * 1000));
    return null; // when the organizer starts it
  }

  function paintNow(s) {
    const tour = s.tour;
    const t = tour.t;
    const at = clock.now();
    const me = mine(tour);
    const big = tournamentField.isBig(t);
    const current = t.rounds.find((r) => r.status === 'starting' || r.status === 'running');
    const ended = t.rounds.filter((r) => r.status === 'ended');
    const last = ended.at(-1);
    const next = t.rounds.find((r) => r.status === 'pending');
    const seated = Boolean(current && tournamentField.playsRound(tour, current));
    let head = '';
    let news = ''; // the headline without a countdown's seconds: read out when it changes
    let parts = [];
    let back = false;
    if (current && current.start_at && current.start_at > at) {
      head = U.startsIn(current.n, duration(current.start_at - at + 999));
      news = U.startsSoon(current.n);
      parts.push(U.startsDetail(clock.timeOfDay(current.start_at), modeOf(t.settings.modes[current.n - 1]), duration(t.settings.time_limit * 1000)));
      if (seated) parts.push(U.opensSoon);
      else if (me && me.withdrawn) parts.push(U.followHere);
    } else if (current) {
      const entry = ownEntry(s, current.n, me);
      const left = current.start_at ? current.start_at + t.settings.time_limit * 1000 - at : 0;
      head = U.played(current.n);
      if (seated && entry && entry.status !== 'racing' && entry.status !== 'disconnected') {
        head = U.yourOver(current.n);
        parts.push(U.waitingOthers(statusText(entry)));
      } else if (seated) {
        back = true;
      }
      if (left > 0) parts.push(U.leftAtMost(duration(left)));
    } else if (!next && last) {
      head = U.over;
      const winner = (big ? t.top : t.standings)[0];
      if (winner) parts.push(U.winner(winner.nickname, money(winner.vegas)));
      const place = big ? tour.field.place : null;
      const line = !me ? null : big ? place && place.line && { ...place.line, rank: place.rank }
        : t.standings.find((x) => x.player === me.player);
      const of = big ? tournamentField.ranked(tour) : t.standings.length;
      if (line) parts.push(U.youFinished(placeOf(line.rank, of), money(line.vegas)));
    } else if (last) {
      head = U.roundOver(last.n);
      const entry = me && (big ? tournamentField.roundOf(tour, last.n) : (last.results || []).find((e) => e.seat === me.player));
      if (entry && entry.played === false) parts.push(U.didNotPlay(money(entry.vegas)));
      else if (entry) parts.push(U.yourRound(ordinal(entry.rank), statusText(entry), money(entry.vegas)));
      parts.push(U.next(next.n, t.rounds.length, nextStart(t, next, last) || U.whenOrganizer));
    } else if (t.registration) {
      head = U.regOpen;
      const first = t.rounds[0];
      const when = nextStart(t, first, null);
      if (me) parts.push(U.youAreIn(me.nickname, when || U.whenOrganizerSays));
      else if (tour.as === 'admin') parts.push(U.shareAdmin);
      else parts.push(U.registerOrWatch);
      if (t.settings.late_until > 1) parts.push(U.lateOpen(t.settings.late_until));
    } else {
      head = U.regClosed;
      parts.push(U.organizerSays);
    }
    if (me && me.withdrawn && !(current && current.start_at > at)) parts.push(U.withdrawnNote);
    setText(headline, head);
    news = news || head;
    if (announce.dataset.news !== news) {
      announce.dataset.news = news;
      setText(announce, head);
    }
    const key = JSON.stringify([parts, last && !current && last.code]);
    if (detail.dataset.key !== key) {
      detail.dataset.key = key;
      detail.replaceChildren(parts.join(' '));
      if (last && !current && next !== undefined) {
        detail.append(h('span', { class: 't-deal' }, U.dealWas(last.n),
          h('code', { class: 't-code', text: last.code }), '.'));
      }
    }
    show(backBtn, back && tour.page);
    return Boolean(current && current.start_at && current.start_at > at - 1000);
  }

  // ---------------------------------------------------------------- players

  let playersKey = '';
  function paintPlayers(s) {
    const t = s.tour.t;
    const big = tournamentField.isBig(t);
    show(players, !big);
    show(fieldCounts, big);
    if (big) {
      const n = t.field || { players: 0, withdrawn: 0, kicked: 0 };
      setText(fieldCounts, U.fieldCounts(count(n.players), n.withdrawn ? count(n.withdrawn) : '', n.kicked ? count(n.kicked) : ''));
      return;
    }
    const current = t.rounds.find((r) => r.status === 'running') || t.rounds.filter((r) => r.status === 'ended').at(-1);
    const entries = current ? roundEntries(s, current.n) : [];
    const byPlayer = new Map(entries.map((e) => [e.seat, e]));
    const me = mine(s.tour);
    const admin = s.tour.as === 'admin' && !tournamentField.isOver(t); // once over, the standings are final
    const key = JSON.stringify([t.players, entries, current && current.n, current && current.status, me && me.player,
      admin, kick.pending()]);
    if (key === playersKey) return;
    playersKey = key;
    players.replaceChildren(...t.players.map((p) => {
      if (p.kicked) {
        return h('li', { class: U.withdrawn, dataset: { player: String(p.player), status: 'kicked' } },
          h('span', { class: 'player-name', text: p.nickname }), h('span', { class: 'player-ready', text: U.kicked }));
      }
      const e = byPlayer.get(p.player);
      let status = p.withdrawn ? U.withdrawn : U.registered;
      if (e) status = `${p.withdrawn && e.status === 'left' ? U.withdrawn : statusText(e)} · ${e.foundation ?? 0}/52 · ${money(e.vegas ?? -52)}`;
      else if (current && current.status === 'running' && !current.seats.includes(p.player)) status = p.withdrawn ? U.withdrawn : U.notThisRound;
      return h('li', { class: p.withdrawn ? U.withdrawn : e && e.status === 'finished' ? 'ready' : '', dataset: { player: String(p.player), status: e ? e.status : p.withdrawn ? U.withdrawn : U.registered } },
        h('span', { class: 'player-name', text: me && me.player === p.player ? C.you(p.nickname) : p.nickname }),
        h('span', { class: 'player-ready', text: status }),
        admin ? kick.buttons(p, { short: true }) : null);
    }));
    if (!t.players.length) players.append(h('li', { class: 't-empty', text: U.nobody }));
  }

  // ---------------------------------------------------------------- render

  let ticking = false;

  function render(s) {
    const tour = s.tour;
    const t = tour.t;
    const keyless = tour.adminView && !tour.admin;
    show(problem, Boolean(tour.error || keyless));
    setText(problemText, tour.error || U.noKey);
    show(claimForm, !tour.error && keyless);
    setText(claimError, tour.adminView ? tour.formError || '' : '');
    if (!t) {
      setText(title, U.title(tour.id));
      for (const part of [now, main, side]) show(part, false);
      return;
    }
    for (const part of [now, main, side]) show(part, true);
    const big = tournamentField.isBig(t);
    setText(title, t.name);
    app.title.screen(tour.as === 'admin' ? U.pageOrganizer(t.name) : U.page(t.name));
    setText(sub, U.sub(settingsText(t)));
    const me = mine(tour);
    setText(roleBadge, tour.as === 'admin' ? U.organizer : me ? U.playingAs(me.nickname) : U.spectator);
    const keys = storage.loadTournament(tour.id);
    const other = tour.adminView ? `/t/${t.id}` : keys.admin ? `/t/${t.id}?admin` : '';
    show(otherView, Boolean(other));
    if (other) {
      setAttr(otherView, 'href', other);
      setText(otherView, tour.adminView ? U.playerPage : U.organizerPage);
    }

    ticking = paintNow(s);

    show(register, tour.as === 'spectator' && !tour.adminView && t.registration);
    show(inviteField, Boolean(t.settings.invite));
    invite.required = Boolean(t.settings.invite);
    setText(regError, tour.adminView ? '' : tour.formError || '');
    regBtn.disabled = tour.busy === 'register';

    show(organizer.el, tour.as === 'admin');
    const inRound = s.room && s.room.settings.tournament === t.id ? s.room : null;
    if (tour.as === 'admin') organizer.render(s, inRound ? s.entries : []);

    // the round's room, as this page is in it: its leaderboard, and boards for spectators
    show(live, Boolean(inRound));
    if (inRound) {
      const phase = phaseAt(inRound, clock.now());
      const n = inRound.settings.round;
      const when = boardsWhen(inRound.settings);
      setText(liveTitle, phase === 'ended' ? U.liveEnded(n) : U.live(n));
      const roomBig = field.isBig(inRound);
      if (roomBig && !bigLive) bigLive = createBigLive(live, app);
      for (const part of [leaderboard.el, liveNote, grid.el]) show(part, !roomBig);
      if (bigLive) show(bigLive.el, roomBig);
      if (roomBig) {
        bigLive.render(s, { me: s.role === 'player' ? s.seat : -1, phase, boardsWhen: when });
      } else {
        leaderboard.render(s.entries, { me: me ? me.player : -1 });
        const names = new Map(inRound.players.map((p) => [p.seat, p.nickname]));
        const shown = s.role === 'spectator' ? grid.render(s.boards, { names, entries: s.entries, bigSeat: s.ui.bigSeat }) : 0;
        if (s.role !== 'spectator') grid.render({}, { names, entries: [], bigSeat: null });
        setText(liveNote, s.role !== 'spectator' ? TEXT.roundLive.ownOnly
          : shown ? C.boardsShown(0, when) : C.boardsNoneYet(0, when));
      }
    }

    rounds.render(t);
    if (big && !bigStandings) {
      bigStandings = createBigStandings(side, app, { replay: openReplay, kick });
      side.prepend(bigStandings.el); // first on the side, as the small standings are
    }
    show(standings.el, !big);
    if (bigStandings) show(bigStandings.el, big);
    if (big) {
      bigStandings.render(s, { me: me ? me.player : -1, admin: tour.as === 'admin' });
    } else {
      standings.render(t, me ? me.player : -1);
    }
    paintPlayers(s);

    const over = !t.rounds.some((r) => r.status !== 'ended');
    show(you, Boolean(me));
    if (me) {
      setText(youText, me.withdrawn ? U.playedWithdrawn(me.nickname)
        : U.playAs(me.nickname));
      show(withdrawBtn, !me.withdrawn && !over);
      setText(withdrawBtn, confirmWithdraw ? U.reallyWithdraw : U.withdraw);
      toggle(withdrawBtn, 'danger', confirmWithdraw);
    }

    const url = `${location.origin}/t/${t.id}`;
    if (shareLink.value !== url) shareLink.value = url;
    show(adminNote, tour.as === 'admin');
    const code = tour.as === 'admin' && t.settings.invite ? keys.invite : '';
    show(inviteNote, Boolean(tour.as === 'admin' && t.settings.invite));
    setText(inviteNote, code ? U.inviteCodeIs(code)
      : U.inviteElsewhere);
    const page = big ? '?first=1&count=1000' : '';
    setAttr(jsonLink, 'href', `/api/tournaments/${t.id}/results${page}`);
    setAttr(csvLink, 'href', `/api/tournaments/${t.id}/results.csv${page}`);
    setText(jsonLink, big ? U.jsonPages : U.json);
    setText(csvLink, big ? U.csvPages : U.csv);
  }

  function tick() {
    const s = app.state;
    if (!s.tour || !s.tour.t) return;
    if (ticking) app.changed(); // a countdown runs: redraw it (and the table opens in time)
    else if (s.tour.t.rounds.some((r) => r.status === 'running')) paintNow(s);
  }

  return timedScreen(el, { render, tick, every: 250, hidden: () => replay.close() });
}
