/** A player's page (/p/ID): what anyone may see of a player (nickname,
games, wins, games finished, the best time of each mode, the daily streak:
`GET /api/players/ID`), with its address to share; and on the player's own
page their games a page at a time (each with its deal's code once public,
and "Play it" to play that deal alone), a new nickname, playing on another
device (a one-time code and link made here, or a code from the other device
typed here) and "Forget me". */

import { h, setText, show } from '../dom.js';
import * as player from '../player.js';
import * as rooms from '../rooms.js';
import * as storage from '../storage.js';
import { go } from '../navigation.js';
import { count, duration, money, placeOf } from '../format.js';
import { copy } from './room.js';
import { modeOf } from './rounds.js';
import { createConfirm } from './confirm.js';
import { createRatingChart } from './ratingchart.js';
import { TEXT } from '../text.js';

const P = TEXT.profile;

const MODES = ['D1N', 'D3N', 'D1V', 'D3V'];

function link(text, path, props = {}) {
  return h('a', { href: path, text, ...props, onclick: (e) => { e.preventDefault(); go(path); } });
}

/** A figure of the record: its number, and its label in the number's plural (`label(n)`). */
function figure(label) {
  const value = h('strong', { class: 'p-figure-value' });
  const name = h('span');
  const el = h('div', { class: 'p-figure' }, value, name);
  return {
    el,
    set(n) {
      setText(value, count(n));
      setText(name, label(n));
    },
  };
}

/** What a game was: "Race", "Solo game", "Tournament round 2", "Daily deal 2030-01-02". */
function gameText(r) {
  if (r.kind === 'tournament') return r.round ? P.tournamentRound(r.round) : P.tournament;
  if (r.kind === 'daily') return P.daily(r.day);
  return P.kinds[r.kind] || r.kind;
}

/** How it went: "2nd of 8 · Finished in 4:22 · +$12". */
function outcomeText(r) {
  // a daily attempt's place before the day's close is only so far (no win yet)
  const place = r.place && r.of > 1 ? (r.so_far ? P.soFar(placeOf(r.place, r.of)) : placeOf(r.place, r.of)) : '';
  const how = r.finished && r.time_ms != null ? P.finishedIn(duration(r.time_ms)) : P.status[r.status] || r.status;
  const score = r.mode[2] === 'V' ? money(r.vegas) : TEXT.format.points(r.points ?? 0);
  return [place, how, score].filter(Boolean).join(' · ');
}

export function createProfile(root, app) {
  const confirm = createConfirm();
  // ---------------------------------------------------------------- anyone's
  const title = h('h1', { id: 'p-title' });
  const sub = h('p', { class: 't-sub' });
  const games = figure(P.games);
  const wins = figure(P.wins);
  const finished = figure(P.finished);
  const streak = figure(P.streak);
  const bestList = h('ul', { class: 'p-best' });
  const shareLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': P.address });
  const missing = h('p', { class: 't-problem', role: 'alert' });
  const stats = h('section', { class: 'panel p-stats', 'aria-labelledby': 'p-stats-title' },
    h('h2', { id: 'p-stats-title', text: P.record }),
    h('div', { class: 'p-figures' }, games.el, wins.el, finished.el, streak.el),
    h('h3', { text: P.best }), bestList,
    h('div', { class: 'share' }, shareLink,
      h('button', { class: 'btn small', type: 'button', text: P.copyLink, onclick: () => copy(shareLink, P.pageLinkCopied) })));

  const rating = createRatingChart();

  // ---------------------------------------------------------------- the own page: games
  const historyList = h('ol', { class: 'p-history', 'aria-labelledby': 'p-history-title' });
  const historyNote = h('p', { class: 't-note' });
  const newer = h('button', { class: 'btn small', type: 'button', text: P.newer, onclick: () => page(-1) });
  const older = h('button', { class: 'btn small', type: 'button', text: P.older, onclick: () => page(1) });
  const historyPanel = h('section', { class: 'panel p-games', 'aria-labelledby': 'p-history-title' },
    h('h2', { id: 'p-history-title', text: P.yourGames }), historyNote, historyList,
    h('div', { class: 'buttons' }, newer, older));

  // ---------------------------------------------------------------- the own page: you
  const nick = h('input', { type: 'text', id: 'p-nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname', required: true });
  const renameForm = h('form', { class: 'p-rename' },
    h('label', { class: 'field' }, h('span', { text: P.yourNick }), nick),
    h('button', { class: 'btn', type: 'submit', text: P.save }));
  renameForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (nick.value.trim()) player.rename(app, nick.value.trim());
  });
  const error = h('p', { class: 'panel form-error p-error', role: 'alert', hidden: true });
  const moveBtn = h('button', { class: 'btn', type: 'button', text: P.makeCode, onclick: () => player.offerMove(app) });
  const moveCode = h('code', { class: 't-handoff-code' });
  const moveLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': P.otherLink });
  const moveWhen = h('p', { class: 't-note' });
  const moveOut = h('div', { class: 't-handoff', hidden: true },
    h('p', {}, P.code, moveCode),
    h('div', { class: 'share' }, moveLink,
      h('button', { class: 'btn small', type: 'button', text: P.copyLink, onclick: () => copy(moveLink, P.otherLinkCopied) })),
    moveWhen);
  const claimInput = h('input', { type: 'text', id: 'p-claim-code', name: 'code', maxLength: 20, autocomplete: 'off', spellcheck: false });
  const claimForm = h('form', { class: 'p-claim' },
    h('label', { for: 'p-claim-code', text: P.claim }),
    h('div', { class: 'share' }, claimInput, h('button', { class: 'btn', type: 'submit', text: P.useCode })));
  claimForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (claimInput.value.trim()) player.claim(app, claimInput.value);
  });
  const forgetBtn = h('button', { class: 'btn danger', type: 'button', text: P.forgetMe, onclick: () => forget() });
  const youPanel = h('section', { class: 'panel p-you', 'aria-labelledby': 'p-you-title' },
    h('h2', { id: 'p-you-title', text: P.you }),
    h('p', { class: 't-note', text: P.noPassword }),
    renameForm,
    h('h3', { text: P.otherDevice }),
    h('p', { class: 't-note', text: P.otherNote }),
    moveBtn, moveOut, claimForm,
    h('h3', { text: P.forgetMe }),
    h('p', { class: 't-note', text: P.forgetNote }),
    forgetBtn);

  const el = h('section', { class: 'screen profile', 'aria-labelledby': 'p-title' },
    h('header', { class: 'topbar' }, link(TEXT.title, '/', { class: 'brand' }), h('span', { class: 't-spacer' }),
      link(P.backToLobby, '/', { class: 'btn small ghost' })),
    h('div', { class: 't-page p-page' },
      h('header', { class: 't-hero' }, title, sub),
      missing, error,
      h('div', { class: 'p-grid' }, h('div', { class: 'p-main' }, stats, rating.el, historyPanel), youPanel)));
  root.append(el);

  function page(step) {
    const hist = app.state.player.history;
    if (!hist) return;
    player.askHistory(app, Math.max(1, hist.first + step * player.PAGE));
  }

  async function forget() {
    const ok = await confirm.confirm({
      title: P.forgetQ, yes: P.forgetMe, no: P.keepMe,
      text: P.forgetText,
    });
    if (ok) player.forget(app);
  }

  function playAgain(code) {
    rooms.solo(app, { nickname: storage.nickname() || app.state.player.nickname, code });
  }

  function drawBest(best) {
    const items = MODES.filter((m) => best[m] != null)
      .map((m) => h('li', {}, h('span', { text: modeOf(m) }), h('strong', { text: duration(best[m]) })));
    redrawList(bestList, JSON.stringify(best), () => (items.length ? items : [h('li', { class: 't-note', text: P.noneFinished })]));
  }

  function drawHistory(hist) {
    redrawList(historyList, hist ? `${hist.first}/${hist.of}/${hist.results.map((r) => r.ref + r.code).join()}` : '', () => (hist ? hist.results.map((r) => {
      const when = new Date(r.at || (r.day ? `${r.day}T00:00:00Z` : 0)); // (a daily game recorded without its time: its day)
      const code = r.code
        ? h('span', {}, h('code', { class: 't-code', text: r.code }), ' ',
          h('button', { class: 'btn small', type: 'button', text: P.playIt, onclick: () => playAgain(r.code) }))
        : h('span', { class: 't-note', text: r.kind === 'daily' ? P.secretDaily : P.secret });
      return h('li', { class: `p-game${r.won ? ' won' : ''}` },
        h('div', { class: 'p-game-head' },
          h('strong', { text: gameText(r) }),
          h('span', { class: 't-note', text: modeOf(r.mode) }),
          h('time', { dateTime: when.toISOString(), text: when.toLocaleString() })),
        h('div', { class: 'p-game-outcome', text: outcomeText(r) }),
        h('div', { class: 'p-game-deal' }, code));
    }) : []));
  }

  /** Replace a list's children only when what it shows changed. */
  function redrawList(list, key, make) {
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.replaceChildren(...make());
  }

  function render(s) {
    const p = s.player;
    const pid = s.route.pid;
    const own = player.ownPage(s);
    const shown = p.profile && p.profile.id === pid ? p.profile : null;
    const data = shown && shown.found ? shown.data : null;
    setText(title, data ? data.nickname : (shown ? P.noSuch : P.player(pid)));
    setText(sub, own ? P.isYou : P.player(pid));
    app.title.screen(data ? P.page(data.nickname) : TEXT.title);
    setText(missing, shown && !shown.found ? P.missing(pid) : '');
    show(missing, Boolean(shown && !shown.found));
    show(stats, Boolean(data));
    show(rating.el, Boolean(data && data.ratings));
    if (data && data.ratings) rating.render(data);
    if (data) {
      games.set(data.games);
      wins.set(data.wins);
      finished.set(data.finished);
      streak.set(data.streak.days);
      streak.el.title = P.streakTitle(data.streak.best);
      drawBest(data.best);
      const url = `${location.origin}/p/${pid}`;
      if (shareLink.value !== url) shareLink.value = url;
    }
    setText(error, p.error || '');
    show(error, Boolean(p.error));
    show(historyPanel, own);
    show(youPanel, own);
    if (!own) return;
    const hist = p.history;
    drawHistory(hist);
    if (!hist) setText(historyNote, P.loading);
    else if (!hist.of) setText(historyNote, P.noGame);
    else setText(historyNote, P.range(count(hist.first), count(hist.first + hist.results.length - 1), count(hist.of)));
    newer.disabled = !hist || hist.first <= 1 || Boolean(p.asked);
    older.disabled = !hist || hist.first + hist.results.length > hist.of || Boolean(p.asked);
    if (document.activeElement !== nick) nick.value = p.nickname;
    const move = p.move && p.move.until > app.clock.now() ? p.move : null;
    show(moveOut, Boolean(move));
    setText(moveBtn, move ? P.newCode : P.makeCode);
    if (move) {
      setText(moveCode, move.code);
      // after '#': a fragment never leaves the browser that opens it (no server log holds the code)
      const url = `${location.origin}/p/${p.id}#claim=${move.code}`;
      if (moveLink.value !== url) moveLink.value = url;
      setText(moveWhen, P.worksOnce(app.clock.timeOfDay(move.until)));
    }
  }

  return {
    el,
    show() { el.hidden = false; },
    hide() { el.hidden = true; },
    render,
  };
}
