/** A tournament's page, for its organizer (/t/ID?admin), its players and its
spectators (/t/ID): what is happening now (a countdown to the next round, the
round being played, the code of the round just over), registration, the
organizer's controls, the current round's leaderboard and boards, the rounds
with their codes, results and replays, the standings and the players.

A player's round itself is played on the race screen (main.js switches to
it); this page is where they are between rounds. */

import { h, setAttr, setText, show, toggle } from '../dom.js';
import { state, changed, phaseAt } from '../state.js';
import * as tournament from '../tournament.js';
import * as storage from '../storage.js';
import { clockTime, serverNow } from '../clock.js';
import { duration, money, ordinal } from '../format.js';
import { say } from '../messages.js';
import { createBoardsGrid } from './boards.js';
import { createLeaderboard, statusText } from './leaderboard.js';
import { createOrganizer } from './organizer.js';
import { createRounds, modeOf } from './rounds.js';
import { createReplay } from './replay.js';
import { createStandings } from './standings.js';

const BOARDS_WHEN = { live: 'live', after: 'after the round' };

function settingsText(t) {
  const s = t.settings;
  const modes = [...new Set(s.modes)].map(modeOf).join(' / ');
  return [`${s.rounds} round${s.rounds === 1 ? '' : 's'}`, modes, `${duration(s.time_limit * 1000)} a round`,
    `up to ${s.max_players} players`, `undo ${s.undo ? 'on' : 'off'}`, `hints ${s.hints ? 'on' : 'off'}`,
    `spectators see the boards ${BOARDS_WHEN[s.boards] ?? `${s.delay} s late`}`].join(' · ');
}

function go(path) {
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

function link(text, path, props = {}) {
  return h('a', { href: path, text, ...props, onclick: (e) => { e.preventDefault(); go(path); } });
}

export function createTournament(root) {
  // ---------------------------------------------------------------- top
  const roleBadge = h('span', { class: 'badge t-role' });
  const otherView = h('a', { class: 'btn small ghost' });
  otherView.addEventListener('click', (e) => {
    e.preventDefault();
    go(otherView.getAttribute('href'));
  });
  const title = h('h1', { id: 't-title' });
  const sub = h('p', { class: 't-sub' });
  const problem = h('p', { class: 'panel t-problem', role: 'alert' });

  // ---------------------------------------------------------------- now
  const headline = h('h2', { class: 't-headline', id: 't-now-title' });
  const detail = h('p', { class: 't-detail' });
  const backBtn = h('button', { class: 'btn primary', type: 'button', text: 'Back to your table',
    onclick: () => tournament.showPage(false) });
  // read out when what is happening changes, not at each second of a countdown
  const announce = h('p', { class: 'visually-hidden', role: 'status' });
  const now = h('section', { class: 'panel t-now', 'aria-labelledby': 't-now-title' },
    headline, detail, h('div', { class: 'buttons' }, backBtn), announce);

  // ---------------------------------------------------------------- register
  const nick = h('input', { type: 'text', id: 't-nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname',
    required: true, placeholder: 'Your name in the tournament', value: storage.nickname() });
  const regError = h('p', { class: 'form-error', role: 'alert' });
  const regBtn = h('button', { class: 'btn primary', type: 'submit', text: 'Register' });
  const register = h('form', { class: 'panel t-register', 'aria-labelledby': 't-register-title' },
    h('h2', { id: 't-register-title', text: 'Play in this tournament' }),
    h('label', { class: 'field' }, h('span', { text: 'Nickname' }), nick),
    regError,
    h('div', { class: 'buttons' }, regBtn),
    h('p', { class: 't-note', text: 'Or just watch: this page follows the tournament, its rounds and standings.' }));
  register.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = nick.value.trim();
    if (!name) {
      state.tour.formError = 'Choose a nickname first.';
      changed();
      nick.focus();
      return;
    }
    tournament.register(name);
  });

  // ---------------------------------------------------------------- columns
  const main = h('div', { class: 't-main' });
  const side = h('aside', { class: 't-side' });
  main.append(register);
  const organizer = createOrganizer(main);

  const liveTitle = h('h2', { id: 't-live-title' });
  const liveNote = h('p', { class: 't-note' });
  const live = h('section', { class: 'panel t-live', 'aria-labelledby': 't-live-title' }, liveTitle);
  const leaderboard = createLeaderboard(live, { title: 'Leaderboard of the round' });
  live.append(liveNote);
  const grid = createBoardsGrid(live);
  main.append(live);

  const replay = createReplay(root);
  const rounds = createRounds(main, {
    replay: (n, player, nickname) => replay.open(`/api/tournaments/${state.tour.id}/rounds/${n}/replay/${player}`,
      `Round ${n} · ${nickname}`),
  });

  const standings = createStandings(side);
  const players = h('ul', { class: 'players t-players', 'aria-labelledby': 't-players-title' });
  side.append(h('section', { class: 'panel', 'aria-labelledby': 't-players-title' },
    h('h2', { id: 't-players-title', text: 'Players' }), players));

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
  side.append(h('section', { class: 'panel t-share', 'aria-labelledby': 't-share-title' },
    h('h2', { id: 't-share-title', text: 'Invite' }),
    h('div', { class: 'share' }, shareLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copyLink() })),
    adminNote,
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
      withdrawTimer = setTimeout(() => { confirmWithdraw = false; changed(); }, 4000);
      changed();
      return;
    }
    confirmWithdraw = false;
    tournament.withdraw();
    changed();
  }

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(shareLink.value);
      say('Tournament link copied.');
    } catch {
      shareLink.select();
      say('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  // ---------------------------------------------------------------- what is happening now

  /** Our player line, and whether we play the round `r`. */
  function mine(tour, t) {
    const me = tour.as === 'player' ? t.players.find((p) => p.player === tour.player) : null;
    return me || null;
  }

  function roundEntries(s, n) {
    const room = s.room;
    return room && room.settings.tournament === s.tour.id && room.settings.round === n ? s.entries : [];
  }

  function paintNow(s) {
    const tour = s.tour;
    const t = tour.t;
    const at = serverNow();
    const me = mine(tour, t);
    const current = t.rounds.find((r) => r.status === 'starting' || r.status === 'running');
    const ended = t.rounds.filter((r) => r.status === 'ended');
    const last = ended.at(-1);
    const next = t.rounds.find((r) => r.status === 'pending');
    const seated = Boolean(me && !me.withdrawn && current && current.seats.includes(me.player));
    let head = '';
    let parts = [];
    let back = false;
    if (current && current.start_at && current.start_at > at) {
      head = `Round ${current.n} starts in ${duration(current.start_at - at + 999)}`;
      parts.push(`at ${clockTime(current.start_at)} · ${modeOf(t.settings.modes[current.n - 1])}`
        + ` · ${duration(t.settings.time_limit * 1000)} to play`);
      if (seated) parts.push('Your table opens 5 seconds before the start.');
      else if (me && me.withdrawn) parts.push('You have withdrawn: you can follow the round here.');
    } else if (current) {
      const entry = roundEntries(s, current.n).find((e) => e.seat === (me ? me.player : -1));
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
      const winner = t.standings[0];
      if (winner) parts.push(`Winner: ${winner.nickname} with ${money(winner.vegas)}.`);
      const line = me && t.standings.find((x) => x.player === me.player);
      if (line) parts.push(`You finished ${ordinal(line.rank)} of ${t.standings.length} with ${money(line.vegas)}.`);
    } else if (last) {
      head = `Round ${last.n} is over`;
      const entry = me && (last.results || []).find((e) => e.seat === me.player);
      if (entry) parts.push(`You: ${ordinal(entry.rank)}, ${statusText(entry)}, ${money(entry.vegas)}.`);
      parts.push(`Next: round ${next.n} of ${t.rounds.length}, when the organizer starts it.`);
    } else if (t.registration) {
      head = 'Registration is open';
      if (me) parts.push(`You are in as ${me.nickname}. Round 1 starts when the organizer says so.`);
      else if (tour.as === 'admin') parts.push('Share the link; close registration or start round 1 when everyone is in.');
      else parts.push('Register to play, or watch from here.');
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
    const current = t.rounds.find((r) => r.status === 'running') || t.rounds.filter((r) => r.status === 'ended').at(-1);
    const entries = current ? roundEntries(s, current.n) : [];
    const byPlayer = new Map(entries.map((e) => [e.seat, e]));
    const me = mine(s.tour, t);
    const key = JSON.stringify([t.players, entries, current && current.n, current && current.status, me && me.player]);
    if (key === playersKey) return;
    playersKey = key;
    players.replaceChildren(...t.players.map((p) => {
      const e = byPlayer.get(p.player);
      let status = p.withdrawn ? 'withdrawn' : 'registered';
      if (e) status = `${p.withdrawn && e.status === 'left' ? 'withdrawn' : statusText(e)} · ${e.foundation ?? 0}/52 · ${money(e.vegas ?? -52)}`;
      else if (current && current.status === 'running' && !current.seats.includes(p.player)) status = p.withdrawn ? 'withdrawn' : 'not in this round';
      return h('li', { class: p.withdrawn ? 'withdrawn' : e && e.status === 'finished' ? 'ready' : '', dataset: { player: String(p.player), status: e ? e.status : p.withdrawn ? 'withdrawn' : 'registered' } },
        h('span', { class: 'player-name', text: p.nickname + (me && me.player === p.player ? ' (you)' : '') }),
        h('span', { class: 'player-ready', text: status }));
    }));
    if (!t.players.length) players.append(h('li', { class: 't-empty', text: 'Nobody has registered yet.' }));
  }

  // ---------------------------------------------------------------- render

  let timer = 0;
  let ticking = false;

  function render(s) {
    const tour = s.tour;
    const t = tour.t;
    show(problem, Boolean(tour.error || (tour.adminView && !tour.admin)));
    setText(problem, tour.error || 'This browser does not hold the organizer\'s key of this tournament: '
      + 'you see what spectators see.');
    if (!t) {
      setText(title, `Tournament ${tour.id}`);
      for (const part of [now, main, side]) show(part, false);
      return;
    }
    for (const part of [now, main, side]) show(part, true);
    setText(title, t.name);
    document.title = `Klondike Race — ${t.name}${tour.as === 'admin' ? ' (organizer)' : ''}`;
    setText(sub, `Tournament · ${settingsText(t)}`);
    const me = mine(tour, t);
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
    setText(regError, tour.formError || '');
    regBtn.disabled = tour.busy === 'register';

    show(organizer.el, tour.as === 'admin');
    const inRound = s.room && s.room.settings.tournament === t.id ? s.room : null;
    if (tour.as === 'admin') organizer.render(t, inRound ? s.entries : []);

    // the round's room, as this page is in it: its leaderboard, and boards for spectators
    show(live, Boolean(inRound));
    if (inRound) {
      const phase = phaseAt(inRound, serverNow());
      const n = inRound.settings.round;
      setText(liveTitle, phase === 'ended' ? `Round ${n}: how it ended` : `Round ${n}: live`);
      leaderboard.render(s.entries, { me: me ? me.player : -1 });
      const names = new Map(inRound.players.map((p) => [p.seat, p.nickname]));
      const shown = s.role === 'spectator' ? grid.render(s.boards, { names, entries: s.entries, bigSeat: s.ui.bigSeat }) : 0;
      if (s.role !== 'spectator') grid.render({}, { names, entries: [], bigSeat: null });
      const mode = inRound.settings.boards;
      const when = BOARDS_WHEN[mode] ?? `${inRound.settings.delay} s late`;
      setText(liveNote, s.role !== 'spectator' ? 'Players see only their own board during the round.'
        : shown ? `Boards are shown ${when}. Click a board to enlarge it.` : `Boards are shown ${when}: none yet.`);
    }

    rounds.render(t);
    standings.render(t, me ? me.player : -1);
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
    setAttr(jsonLink, 'href', `/api/tournaments/${t.id}/results`);
    setAttr(csvLink, 'href', `/api/tournaments/${t.id}/results.csv`);
  }

  function tick() {
    if (!state.tour || !state.tour.t) return;
    if (ticking) changed(); // a countdown runs: redraw it (and the table opens in time)
    else if (state.tour.t.rounds.some((r) => r.status === 'running')) paintNow(state);
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
