/** A tournament's page, for its organizer (/t/ID?admin), its players and its
spectators (/t/ID): what is happening now (a countdown to the next round, the
round being played, the code of the round just over), registration, the
organizer's controls, the current round's leaderboard and boards, the rounds
with their codes, results and replays, the standings and the players.

A player's round itself is played on the race screen (main.js switches to
it); this page is where they are between rounds.

A big tournament (more than 16 players) lists nobody: its page shows the
field's counts, the top of the standings with the viewer's own line pinned
and a browser of the rest (tstandings.js), and the round as a big room's
spectator sees it (tlive.js). */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { phaseAt } from '../state.js';
import * as tournament from '../tournament.js';
import * as player from '../player.js';
import * as tfield from '../tfield.js';
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
import { createBigStandings } from './tstandings.js';
import { createBigLive } from './tlive.js';
import { createKick } from './kick.js';

const BOARDS_WHEN = { live: 'live', after: 'after the round' };

function settingsText(t) {
  const s = t.settings;
  const modes = [...new Set(s.modes)].map(modeOf).join(' / ');
  return [`${s.rounds} round${s.rounds === 1 ? '' : 's'}`, modes, `${duration(s.time_limit * 1000)} a round`,
    `up to ${s.max_players} players`, `undo ${s.undo ? 'on' : 'off'}`, `hints ${s.hints ? 'on' : 'off'}`,
    `spectators see the boards ${BOARDS_WHEN[s.boards] ?? `${s.delay} s late`}`,
    s.interval ? `each next round ${duration(s.interval * 1000)} after the last one` : '',
    s.late_until > 1 ? `registration until round ${s.late_until}` : '', s.invite ? 'by invitation' : '']
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
    'aria-label': 'Code from the organizer\'s other device', placeholder: 'Code' });
  const claimError = h('p', { class: 'form-error', role: 'alert' });
  const claimForm = h('form', { class: 't-claim' },
    h('label', { for: 't-claim-code', text: 'Organizing from this device? Type the code made on the other one:' }),
    claimInput, h('button', { class: 'btn', type: 'submit', text: 'Use the code' }), claimError);
  claimInput.id = 't-claim-code';
  claimForm.addEventListener('submit', (e) => {
    e.preventDefault();
    tournament.claim(app, claimInput.value);
  });
  const problem = h('div', { class: 'panel t-problem' }, problemText, claimForm);

  // ---------------------------------------------------------------- now
  const headline = h('h2', { class: 't-headline', id: 't-now-title' });
  const detail = h('p', { class: 't-detail' });
  const backBtn = h('button', { class: 'btn primary', type: 'button', text: 'Back to your table',
    onclick: () => tournament.showPage(app, false) });
  // read out when what is happening changes, not at each second of a countdown
  const announce = h('p', { class: 'visually-hidden', role: 'status' });
  const now = h('section', { class: 'panel t-now', 'aria-labelledby': 't-now-title' },
    headline, detail, h('div', { class: 'buttons' }, backBtn), announce);

  // ---------------------------------------------------------------- register
  const nick = h('input', { type: 'text', id: 't-nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname',
    required: true, placeholder: 'Your name in the tournament', value: storage.nickname() });
  const invite = h('input', { type: 'text', id: 't-invite', name: 'invite', maxLength: 20, autocomplete: 'off',
    spellcheck: false, placeholder: 'From the organizer' });
  const inviteField = h('label', { class: 'field', hidden: true }, h('span', { text: 'Invite code' }), invite);
  const regError = h('p', { class: 'form-error', role: 'alert' });
  const regBtn = h('button', { class: 'btn primary', type: 'submit', text: 'Register' });
  const register = h('form', { class: 'panel t-register', 'aria-labelledby': 't-register-title' },
    h('h2', { id: 't-register-title', text: 'Play in this tournament' }),
    h('label', { class: 'field' }, h('span', { text: 'Nickname' }), nick),
    inviteField,
    regError,
    h('div', { class: 'buttons' }, regBtn),
    h('p', { class: 't-note', text: 'Or just watch: this page follows the tournament, its rounds and standings.' }));
  register.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = nick.value.trim();
    if (!name) {
      app.state.tour.formError = 'Choose a nickname first.';
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
  const leaderboard = createLeaderboard(live, { title: 'Leaderboard of the round' });
  live.append(liveNote);
  const grid = createBoardsGrid(live, app);
  main.append(live);
  let bigLive = null; // a big round's parts, made when one is shown

  const replay = createReplay(root);
  const rounds = createRounds(main, { clock, replay: (n, player, nickname) => openReplay(n, player, nickname) });

  const standings = createStandings(side);
  const openReplay = (n, player, nickname) => replay.open(`/api/tournaments/${app.state.tour.id}/rounds/${n}/replay/${player}`,
    `Round ${n} · ${nickname}`);
  let bigStandings = null; // a big tournament's, made when one is shown
  const players = h('ul', { class: 'players t-players', 'aria-labelledby': 't-players-title' });
  const fieldCounts = h('p', { class: 't-field-counts' });
  side.append(h('section', { class: 'panel', 'aria-labelledby': 't-players-title' },
    h('h2', { id: 't-players-title', text: 'Players' }), players, fieldCounts));

  const youText = h('p');
  const withdrawBtn = h('button', { class: 'btn ghost', type: 'button', onclick: () => withdraw() });
  const you = h('section', { class: 'panel t-you', 'aria-labelledby': 't-you-title' },
    h('h2', { id: 't-you-title', text: 'You' }), youText, withdrawBtn);
  side.append(you);

  const shareLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Tournament link' });
  const jsonLink = h('a', { text: 'Results (JSON)' });
  const csvLink = h('a', { text: 'Results (CSV)' });
  const adminNote = h('p', { class: 't-note', text: 'The organizer\'s key is kept in this browser only: '
    + 'the link above is for players and spectators.' });
  const inviteNote = h('p', { class: 't-invite' });
  side.append(h('section', { class: 'panel t-share', 'aria-labelledby': 't-share-title' },
    h('h2', { id: 't-share-title', text: 'Invite' }),
    h('div', { class: 'share' }, shareLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copy(shareLink, 'Tournament link') })),
    adminNote, inviteNote,
    h('p', { class: 't-links' }, jsonLink, ' · ', csvLink)));

  const el = h('section', { class: 'screen tournament', 'aria-labelledby': 't-title' },
    h('header', { class: 'topbar' },
      link('Klondike Race', '/', { class: 'brand' }), roleBadge, h('span', { class: 't-spacer' }), otherView),
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
    return tfield.me(tour);
  }

  function roundEntries(s, n) {
    const room = s.room;
    return room && room.settings.tournament === s.tour.id && room.settings.round === n ? s.entries : [];
  }

  /** Our line in round `n`'s race while this page is in its room: a small
  room's entry, a big room's own place. */
  function ownEntry(s, n, me) {
    if (!me) return null;
    if (!tfield.isBig(s.tour.t)) return roundEntries(s, n).find((e) => e.seat === me.player) || null;
    const room = s.room;
    const here = room && room.settings.tournament === s.tour.id && room.settings.round === n;
    return here ? field.ownLine(s.field) : null;
  }

  /** When round `next` starts by itself, if it does: a set time, or an interval after the last one ended. */
  function nextStart(t, next, last) {
    const starts = t.settings.starts || [];
    if (starts[next.n - 1]) return `at ${clock.timeOfDay(starts[next.n - 1])}`;
    if (t.settings.interval && last && last.ended_at) return `at ${clock.timeOfDay(last.ended_at + t.settings.interval * 1000)}`;
    return 'when the organizer starts it';
  }

  function paintNow(s) {
    const tour = s.tour;
    const t = tour.t;
    const at = clock.now();
    const me = mine(tour);
    const big = tfield.isBig(t);
    const current = t.rounds.find((r) => r.status === 'starting' || r.status === 'running');
    const ended = t.rounds.filter((r) => r.status === 'ended');
    const last = ended.at(-1);
    const next = t.rounds.find((r) => r.status === 'pending');
    const seated = Boolean(current && tfield.playsRound(tour, current));
    let head = '';
    let parts = [];
    let back = false;
    if (current && current.start_at && current.start_at > at) {
      head = `Round ${current.n} starts in ${duration(current.start_at - at + 999)}`;
      parts.push(`at ${clock.timeOfDay(current.start_at)} · ${modeOf(t.settings.modes[current.n - 1])}`
        + ` · ${duration(t.settings.time_limit * 1000)} to play`);
      if (seated) parts.push('Your table opens 5 seconds before the start.');
      else if (me && me.withdrawn) parts.push('You have withdrawn: you can follow the round here.');
    } else if (current) {
      const entry = ownEntry(s, current.n, me);
      const left = current.start_at ? current.start_at + t.settings.time_limit * 1000 - at : 0;
      head = `Round ${current.n} is being played`;
      if (seated && entry && entry.status !== 'racing' && entry.status !== 'disconnected') {
        head = `Your round ${current.n} is over`;
        parts.push(`${statusText(entry)} · waiting for the others.`);
      } else if (seated) {
        back = true;
      }
      if (left > 0) parts.push(`${duration(left)} left at most.`);
    } else if (!next && last) {
      head = 'The tournament is over';
      const winner = (big ? t.top : t.standings)[0];
      if (winner) parts.push(`Winner: ${winner.nickname} with ${money(winner.vegas)}.`);
      const place = big ? tour.field.place : null;
      const line = !me ? null : big ? place && place.line && { ...place.line, rank: place.rank }
        : t.standings.find((x) => x.player === me.player);
      const of = big ? tfield.ranked(tour) : t.standings.length;
      if (line) parts.push(`You finished ${placeOf(line.rank, of)} with ${money(line.vegas)}.`);
    } else if (last) {
      head = `Round ${last.n} is over`;
      const entry = me && (big ? tfield.roundOf(tour, last.n) : (last.results || []).find((e) => e.seat === me.player));
      if (entry && entry.played === false) parts.push(`You did not play it: ${money(entry.vegas)}.`);
      else if (entry) parts.push(`You: ${ordinal(entry.rank)}, ${statusText(entry)}, ${money(entry.vegas)}.`);
      parts.push(`Next: round ${next.n} of ${t.rounds.length}, ${nextStart(t, next, last)}.`);
    } else if (t.registration) {
      head = 'Registration is open';
      const first = t.rounds[0];
      const when = nextStart(t, first, null);
      if (me) parts.push(`You are in as ${me.nickname}. Round 1 starts ${when === 'when the organizer starts it' ? 'when the organizer says so' : when}.`);
      else if (tour.as === 'admin') parts.push('Share the link; close registration or start round 1 when everyone is in.');
      else parts.push('Register to play, or watch from here.');
      if (t.settings.late_until > 1) parts.push(`Registration stays open until round ${t.settings.late_until} starts; a round missed counts -$52.`);
    } else {
      head = 'Registration is closed';
      parts.push('Round 1 starts when the organizer says so.');
    }
    if (me && me.withdrawn && !(current && current.start_at > at)) parts.push('You have withdrawn from the tournament.');
    setText(headline, head);
    const news = head.replace(/ in [\d:]+$/, '');
    if (announce.dataset.news !== news) {
      announce.dataset.news = news;
      setText(announce, head);
    }
    const key = JSON.stringify([parts, last && !current && last.code]);
    if (detail.dataset.key !== key) {
      detail.dataset.key = key;
      detail.replaceChildren(parts.join(' '));
      if (last && !current && next !== undefined) {
        detail.append(h('span', { class: 't-deal' }, ` The deal of round ${last.n} was `,
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
    const big = tfield.isBig(t);
    show(players, !big);
    show(fieldCounts, big);
    if (big) {
      const n = t.field || { players: 0, withdrawn: 0, kicked: 0 };
      setText(fieldCounts, `${count(n.players)} registered`
        + `${n.withdrawn ? ` · ${count(n.withdrawn)} withdrawn` : ''}${n.kicked ? ` · ${count(n.kicked)} removed` : ''}`
        + ' · find anyone in the standings.');
      return;
    }
    const current = t.rounds.find((r) => r.status === 'running') || t.rounds.filter((r) => r.status === 'ended').at(-1);
    const entries = current ? roundEntries(s, current.n) : [];
    const byPlayer = new Map(entries.map((e) => [e.seat, e]));
    const me = mine(s.tour);
    const admin = s.tour.as === 'admin' && !tfield.isOver(t); // once over, the standings are final
    const key = JSON.stringify([t.players, entries, current && current.n, current && current.status, me && me.player,
      admin, kick.pending()]);
    if (key === playersKey) return;
    playersKey = key;
    players.replaceChildren(...t.players.map((p) => {
      if (p.kicked) {
        return h('li', { class: 'withdrawn', dataset: { player: String(p.player), status: 'kicked' } },
          h('span', { class: 'player-name', text: p.nickname }), h('span', { class: 'player-ready', text: 'removed' }));
      }
      const e = byPlayer.get(p.player);
      let status = p.withdrawn ? 'withdrawn' : 'registered';
      if (e) status = `${p.withdrawn && e.status === 'left' ? 'withdrawn' : statusText(e)} · ${e.foundation ?? 0}/52 · ${money(e.vegas ?? -52)}`;
      else if (current && current.status === 'running' && !current.seats.includes(p.player)) status = p.withdrawn ? 'withdrawn' : 'not in this round';
      return h('li', { class: p.withdrawn ? 'withdrawn' : e && e.status === 'finished' ? 'ready' : '', dataset: { player: String(p.player), status: e ? e.status : p.withdrawn ? 'withdrawn' : 'registered' } },
        h('span', { class: 'player-name', text: p.nickname + (me && me.player === p.player ? ' (you)' : '') }),
        h('span', { class: 'player-ready', text: status }),
        admin ? kick.buttons(p, { short: true }) : null);
    }));
    if (!t.players.length) players.append(h('li', { class: 't-empty', text: 'Nobody has registered yet.' }));
  }

  // ---------------------------------------------------------------- render

  let timer = 0;
  let ticking = false;

  function render(s) {
    const tour = s.tour;
    const t = tour.t;
    const keyless = tour.adminView && !tour.admin;
    show(problem, Boolean(tour.error || keyless));
    setText(problemText, tour.error || 'This browser does not hold the organizer\'s key of this tournament: '
      + 'you see what spectators see.');
    show(claimForm, !tour.error && keyless);
    setText(claimError, tour.adminView ? tour.formError || '' : '');
    if (!t) {
      setText(title, `Tournament ${tour.id}`);
      for (const part of [now, main, side]) show(part, false);
      return;
    }
    for (const part of [now, main, side]) show(part, true);
    const big = tfield.isBig(t);
    setText(title, t.name);
    app.title.screen(`Klondike Race — ${t.name}${tour.as === 'admin' ? ' (organizer)' : ''}`);
    setText(sub, `Tournament · ${settingsText(t)}`);
    const me = mine(tour);
    setText(roleBadge, tour.as === 'admin' ? 'Organizer' : me ? `Playing as ${me.nickname}` : 'Spectator');
    const keys = storage.loadTournament(tour.id);
    const other = tour.adminView ? `/t/${t.id}` : keys.admin ? `/t/${t.id}?admin` : '';
    show(otherView, Boolean(other));
    if (other) {
      setAttr(otherView, 'href', other);
      setText(otherView, tour.adminView ? 'Player\'s page' : 'Organizer\'s page');
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
      const mode = inRound.settings.boards;
      const when = BOARDS_WHEN[mode] ?? `${inRound.settings.delay} s late`;
      setText(liveTitle, phase === 'ended' ? `Round ${n}: how it ended` : `Round ${n}: live`);
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
        setText(liveNote, s.role !== 'spectator' ? 'Players see only their own board during the round.'
          : shown ? `Boards are shown ${when}. Click a board to enlarge it.` : `Boards are shown ${when}: none yet.`);
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
      setText(youText, me.withdrawn ? `You played as ${me.nickname} and have withdrawn.`
        : `You play as ${me.nickname}.`);
      show(withdrawBtn, !me.withdrawn && !over);
      setText(withdrawBtn, confirmWithdraw ? 'Really withdraw? You cannot come back' : 'Withdraw from the tournament');
      toggle(withdrawBtn, 'danger', confirmWithdraw);
    }

    const url = `${location.origin}/t/${t.id}`;
    if (shareLink.value !== url) shareLink.value = url;
    show(adminNote, tour.as === 'admin');
    const code = tour.as === 'admin' && t.settings.invite ? keys.invite : '';
    show(inviteNote, Boolean(tour.as === 'admin' && t.settings.invite));
    setText(inviteNote, code ? `Invite code: ${code} (players type it when they register; keep it off the link).`
      : 'Registering needs the invite code, given when the tournament was created (on the device that created it).');
    const page = big ? '?first=1&count=1000' : '';
    setAttr(jsonLink, 'href', `/api/tournaments/${t.id}/results${page}`);
    setAttr(csvLink, 'href', `/api/tournaments/${t.id}/results.csv${page}`);
    setText(jsonLink, big ? 'Results (JSON, 1 000 a page)' : 'Results (JSON)');
    setText(csvLink, big ? 'Results (CSV, 1 000 a page)' : 'Results (CSV)');
  }

  function tick() {
    const s = app.state;
    if (!s.tour || !s.tour.t) return;
    if (ticking) app.changed(); // a countdown runs: redraw it (and the table opens in time)
    else if (s.tour.t.rounds.some((r) => r.status === 'running')) paintNow(s);
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
      replay.close();
    },
    render,
  };
}
