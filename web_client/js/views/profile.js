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

const MODES = ['D1N', 'D3N', 'D1V', 'D3V'];
const STATUS = { finished: 'Finished', resigned: 'Resigned', left: 'Left', unfinished: 'Unfinished' };

function link(text, path, props = {}) {
  return h('a', { href: path, text, ...props, onclick: (e) => { e.preventDefault(); go(path); } });
}

function figure(label) {
  const value = h('strong', { class: 'p-figure-value' });
  const el = h('div', { class: 'p-figure' }, value, h('span', { text: label }));
  return { el, value };
}

/** What a game was: "Race", "Solo game", "Tournament round 2", "Daily deal 2030-01-02". */
function gameText(r) {
  if (r.kind === 'tournament') return r.round ? `Tournament round ${r.round}` : 'Tournament';
  if (r.kind === 'daily') return `Daily deal ${r.day}`;
  return { race: 'Race', solo: 'Solo game', challenge: 'Challenge' }[r.kind] || r.kind;
}

/** How it went: "2nd of 8 · Finished in 4:22 · +$12". */
function outcomeText(r) {
  const place = r.place && r.of > 1 ? placeOf(r.place, r.of) : '';
  const how = r.finished && r.time_ms != null ? `Finished in ${duration(r.time_ms)}` : STATUS[r.status] || r.status;
  const score = r.mode[2] === 'V' ? money(r.vegas) : `${r.points ?? 0} pts`;
  return [place, how, score].filter(Boolean).join(' · ');
}

export function createProfile(root, app) {
  const confirm = createConfirm();
  // ---------------------------------------------------------------- anyone's
  const title = h('h1', { id: 'p-title' });
  const sub = h('p', { class: 't-sub' });
  const games = figure('games');
  const wins = figure('wins');
  const finished = figure('finished');
  const streak = figure('daily streak');
  const bestList = h('ul', { class: 'p-best' });
  const shareLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Address of this page' });
  const missing = h('p', { class: 't-problem', role: 'alert' });
  const stats = h('section', { class: 'panel p-stats', 'aria-labelledby': 'p-stats-title' },
    h('h2', { id: 'p-stats-title', text: 'Record' }),
    h('div', { class: 'p-figures' }, games.el, wins.el, finished.el, streak.el),
    h('h3', { text: 'Best times' }), bestList,
    h('div', { class: 'share' }, shareLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copy(shareLink, 'The page\'s link') })));

  // ---------------------------------------------------------------- the own page: games
  const historyList = h('ol', { class: 'p-history', 'aria-labelledby': 'p-history-title' });
  const historyNote = h('p', { class: 't-note' });
  const newer = h('button', { class: 'btn small', type: 'button', text: 'Newer', onclick: () => page(-1) });
  const older = h('button', { class: 'btn small', type: 'button', text: 'Older', onclick: () => page(1) });
  const historyPanel = h('section', { class: 'panel p-games', 'aria-labelledby': 'p-history-title' },
    h('h2', { id: 'p-history-title', text: 'Your games' }), historyNote, historyList,
    h('div', { class: 'buttons' }, newer, older));

  // ---------------------------------------------------------------- the own page: you
  const nick = h('input', { type: 'text', id: 'p-nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname', required: true });
  const renameForm = h('form', { class: 'p-rename' },
    h('label', { class: 'field' }, h('span', { text: 'Your nickname' }), nick),
    h('button', { class: 'btn', type: 'submit', text: 'Save' }));
  renameForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (nick.value.trim()) player.rename(app, nick.value.trim());
  });
  const error = h('p', { class: 'panel form-error p-error', role: 'alert', hidden: true });
  const moveBtn = h('button', { class: 'btn', type: 'button', text: 'Make a one-time code', onclick: () => player.offerMove(app) });
  const moveCode = h('code', { class: 't-handoff-code' });
  const moveLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Link for the other device' });
  const moveWhen = h('p', { class: 't-note' });
  const moveOut = h('div', { class: 't-handoff', hidden: true },
    h('p', {}, 'Code: ', moveCode),
    h('div', { class: 'share' }, moveLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copy(moveLink, 'The link for the other device') })),
    moveWhen);
  const claimInput = h('input', { type: 'text', id: 'p-claim-code', name: 'code', maxLength: 20, autocomplete: 'off', spellcheck: false });
  const claimForm = h('form', { class: 'p-claim' },
    h('label', { for: 'p-claim-code', text: 'Or type here a code made on your other device:' }),
    h('div', { class: 'share' }, claimInput, h('button', { class: 'btn', type: 'submit', text: 'Use the code' })));
  claimForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (claimInput.value.trim()) player.claim(app, claimInput.value);
  });
  const forgetBtn = h('button', { class: 'btn danger', type: 'button', text: 'Forget me', onclick: () => forget() });
  const youPanel = h('section', { class: 'panel p-you', 'aria-labelledby': 'p-you-title' },
    h('h2', { id: 'p-you-title', text: 'You' }),
    h('p', { class: 't-note', text: 'No password: this browser keeps your key. Your games, nickname and streak hang on it.' }),
    renameForm,
    h('h3', { text: 'Play on another device' }),
    h('p', { class: 't-note', text: 'Open the link on your phone or another computer (or type the code there, on your page): it plays as you from then on.' }),
    moveBtn, moveOut, claimForm,
    h('h3', { text: 'Forget me' }),
    h('p', { class: 't-note', text: 'Deletes your profile, your history and your key, on every device. Your results stay in the rooms and tournaments you played, under the nickname you had there.' }),
    forgetBtn);

  const el = h('section', { class: 'screen profile', 'aria-labelledby': 'p-title' },
    h('header', { class: 'topbar' }, link('Klondike Race', '/', { class: 'brand' }), h('span', { class: 't-spacer' }),
      link('Back to the lobby', '/', { class: 'btn small ghost' })),
    h('div', { class: 't-page p-page' },
      h('header', { class: 't-hero' }, title, sub),
      missing, error,
      h('div', { class: 'p-grid' }, h('div', { class: 'p-main' }, stats, historyPanel), youPanel)));
  root.append(el);

  function page(step) {
    const hist = app.state.player.history;
    if (!hist) return;
    player.askHistory(app, Math.max(1, hist.first + step * player.PAGE));
  }

  async function forget() {
    const ok = await confirm.confirm({
      title: 'Forget you?', yes: 'Forget me', no: 'Keep me',
      text: 'Your profile, your history and your key are deleted on every device. This cannot be undone.',
    });
    if (ok) player.forget(app);
  }

  function playAgain(code) {
    rooms.solo(app, { nickname: storage.nickname() || app.state.player.nickname, code });
  }

  function drawBest(best) {
    const items = MODES.filter((m) => best[m] != null)
      .map((m) => h('li', {}, h('span', { text: modeOf(m) }), h('strong', { text: duration(best[m]) })));
    redrawList(bestList, JSON.stringify(best), () => (items.length ? items : [h('li', { class: 't-note', text: 'No game finished yet.' })]));
  }

  function drawHistory(hist) {
    redrawList(historyList, hist ? `${hist.first}/${hist.of}/${hist.results.map((r) => r.ref + r.code).join()}` : '', () => (hist ? hist.results.map((r) => {
      const when = new Date(r.at);
      const code = r.code
        ? h('span', {}, h('code', { class: 't-code', text: r.code }), ' ',
          h('button', { class: 'btn small', type: 'button', text: 'Play it', onclick: () => playAgain(r.code) }))
        : h('span', { class: 't-note', text: 'deal secret until the game is over' });
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
    setText(title, data ? data.nickname : (shown ? 'No such player' : `Player ${pid}`));
    setText(sub, own ? 'This is you.' : `Player ${pid}`);
    app.title.screen(data ? `${data.nickname} — Klondike Race` : 'Klondike Race');
    setText(missing, shown && !shown.found ? `There is no player ${pid}: the address is wrong, or they asked to be forgotten.` : '');
    show(missing, Boolean(shown && !shown.found));
    show(stats, Boolean(data));
    if (data) {
      setText(games.value, count(data.games));
      setText(wins.value, count(data.wins));
      setText(finished.value, count(data.finished));
      setText(streak.value, count(data.streak.days));
      streak.el.title = `Daily deals finished on days in a row; best ${data.streak.best}`;
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
    if (!hist) setText(historyNote, 'Loading your games…');
    else if (!hist.of) setText(historyNote, 'No game yet: every race, solo game and tournament round you play from this browser will be here once it is over.');
    else setText(historyNote, `${count(hist.first)}–${count(hist.first + hist.results.length - 1)} of ${count(hist.of)}, newest first.`);
    newer.disabled = !hist || hist.first <= 1 || Boolean(p.asked);
    older.disabled = !hist || hist.first + hist.results.length > hist.of || Boolean(p.asked);
    if (document.activeElement !== nick) nick.value = p.nickname;
    const move = p.move && p.move.until > app.clock.now() ? p.move : null;
    show(moveOut, Boolean(move));
    setText(moveBtn, move ? 'Make a new code' : 'Make a one-time code');
    if (move) {
      setText(moveCode, move.code);
      // after '#': a fragment never leaves the browser that opens it (no server log holds the code)
      const url = `${location.origin}/p/${p.id}#claim=${move.code}`;
      if (moveLink.value !== url) moveLink.value = url;
      setText(moveWhen, `It works once, until ${app.clock.timeOfDay(move.until)}; a new one replaces it.`);
    }
  }

  return {
    el,
    show() { el.hidden = false; },
    hide() { el.hidden = true; },
    render,
  };
}
