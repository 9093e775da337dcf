/** The lobby: today's daily deals, create a room, join one by link or id,
watch, or play solo. A room link without a seat of ours shows the join card
for that room. The player this browser is has a link to their page (their
games and record). */

import { h, setText, show } from '../dom.js';
import { count } from '../format.js';
import * as rooms from '../rooms.js';
import * as storage from '../storage.js';
import * as player from '../player.js';
import { go } from '../navigation.js';
import { createTournamentForm, tournamentFromText } from './tcreate.js';
import { BOARDS_NOTE } from './help.js';
import { createChallengeOption } from './challengeform.js';
import { createRaces } from './races.js';
import { createDaily } from './daily.js';

const ROOM_ID = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;
const SMALL_ROOM = 16; // above this many seats a room is big (docs/protocol.md, "Big rooms")
const BIG_SIZES = [50, 100, 500, 1000, 5000, 10000];

/** A room id from an id or a link ("…/r/V62WEAFY?watch"); null if there is none. */
export function roomFromText(text) {
  const t = text.trim().toUpperCase();
  const m = t.match(/\/R\/([A-Z0-9]{8})(?:[/?#]|$)/) || t.match(/^([A-Z0-9]{8})$/);
  return m && ROOM_ID.test(m[1]) ? m[1] : null;
}

function radios(name, options, checked) {
  return h('div', { class: 'choices' }, ...options.map(([value, label]) => h('label', {},
    h('input', { type: 'radio', name, value, checked: value === checked }), label)));
}

function field(label, control) {
  return h('label', { class: 'field' }, h('span', { text: label }), control);
}

/** The assists a room offers (docs/protocol.md, "assists"). */
const ASSISTS = [['off', 'None'], ['basic', 'Hints'], ['solver', 'Hints and “can it still be won?”']];

function assistsField(name) {
  return field('Assists', h('select', { name },
    ...ASSISTS.map(([v, t]) => h('option', { value: v, text: t, selected: v === 'basic' }))));
}

function value(form, name) {
  const el = form.elements[name];
  return el ? el.value : '';
}

export function createLobby(root, app) {
  const help = app.dialogs.help;
  const nick = h('input', {
    type: 'text', id: 'nickname', name: 'nickname', maxLength: 20, autocomplete: 'nickname',
    placeholder: 'Your name in the race', required: true, value: storage.nickname(),
  });
  nick.addEventListener('input', () => storage.saveNickname(nick.value.trim()));
  const error = h('p', { class: 'form-error', role: 'alert' });

  // ---------------------------------------------------------------- create
  const createForm = h('form', { class: 'panel create', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title', text: 'Create a room' }),
    h('fieldset', {}, h('legend', { text: 'Deal' }),
      radios('deal', [['random', 'Random'], ['winnable', 'Random, winnable'], ['code', 'A code']], 'random'),
      h('input', { type: 'text', name: 'code', placeholder: 'KL1-D1N-AAAAAAG', 'aria-label': 'Deal code',
        autocomplete: 'off', spellcheck: false, hidden: true })),
    h('fieldset', { class: 'mode' }, h('legend', { text: 'Draw' }), radios('draw', [['1', 'One'], ['3', 'Three']], '1')),
    h('fieldset', { class: 'mode' }, h('legend', { text: 'Scoring' }), radios('scoring', [['N', 'Normal'], ['V', 'Vegas']], 'N')),
    h('div', { class: 'row' },
      field('Players', h('select', { name: 'max_players' },
        ...[2, 3, 4, 5, 6, 7, 8, 1].map((n) => h('option', { value: String(n), text: String(n), selected: n === 8 })),
        h('optgroup', { label: 'A big race' },
          ...BIG_SIZES.map((n) => h('option', { value: String(n), text: `up to ${count(n)}` }))))),
      field('Time limit', h('select', { name: 'time_limit' },
        ...[[0, 'None'], [300, '5 min'], [600, '10 min'], [900, '15 min'], [1800, '30 min'], [3600, '1 hour']]
          .map(([v, t]) => h('option', { value: String(v), text: t }))))),
    h('fieldset', {}, h('legend', { text: 'Allow' }),
      h('div', { class: 'choices' },
        h('label', {}, h('input', { type: 'checkbox', name: 'undo', checked: true }), 'Undo')),
      assistsField('assists')),
    h('fieldset', { class: 'big-only', hidden: true }, h('legend', { text: 'A big race' }),
      field('Leaderboard shows the top', h('select', { name: 'top' },
        ...[5, 10, 20, 50].map((n) => h('option', { value: String(n), text: String(n), selected: n === 10 })))),
      h('p', { class: 'field-note', text: 'Arriving once the race has started:' }),
      radios('late', [['refuse', 'not allowed'], ['admit', 'races on their own clock']], 'refuse')),
    h('fieldset', {}, h('legend', { text: 'Spectators see the boards' }),
      radios('boards', [['live', 'Live'], ['delayed', 'Delayed'], ['after', 'After the race']], 'after'),
      h('label', { class: 'delay', hidden: true },
        h('input', { type: 'number', name: 'delay', min: 1, max: 600, value: 10 }), ' seconds late'),
      h('p', { class: 'boards-note', text: BOARDS_NOTE })),
    h('fieldset', { class: 'visibility' }, h('legend', { text: 'Who can find it' }),
      h('label', {}, h('input', { type: 'checkbox', name: 'public' }), 'Public: listed in the lobby, anyone may join or watch'),
      h('p', { class: 'field-note', text: 'Private rooms are found only by their link.' })),
    h('button', { class: 'btn primary', type: 'submit', text: 'Create room' }));
  const challenge = createChallengeOption(createForm, createForm.querySelector('.mode'),
    createForm.querySelector('button[type="submit"]'));
  createForm.addEventListener('change', () => {
    createForm.elements.code.hidden = value(createForm, 'deal') !== 'code';
    createForm.querySelector('.delay').hidden = value(createForm, 'boards') !== 'delayed';
    createForm.querySelector('.big-only').hidden = Number(value(createForm, 'max_players')) <= SMALL_ROOM;
    for (const fs of createForm.querySelectorAll('.mode')) fs.disabled = value(createForm, 'deal') === 'code';
  });
  createForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!checkNick()) return;
    const f = createForm;
    const settings = {
      max_players: Number(value(f, 'max_players')),
      undo: f.elements.undo.checked,
      assists: value(f, 'assists'),
      time_limit: Number(value(f, 'time_limit')),
      boards: value(f, 'boards'),
    };
    if (settings.boards === 'delayed') settings.delay = Number(value(f, 'delay')) || 0;
    if (f.elements.public.checked) settings.public = true;
    if (settings.max_players > SMALL_ROOM) {
      settings.top = Number(value(f, 'top'));
      settings.late = value(f, 'late');
    }
    if (value(f, 'deal') === 'code') settings.code = value(f, 'code').trim();
    else {
      settings.draw = Number(value(f, 'draw'));
      settings.scoring = value(f, 'scoring');
      if (value(f, 'deal') === 'winnable') settings.deal = 'winnable';
    }
    rooms.enter(app, 'create', { nickname: nick.value.trim(), settings: challenge.apply(settings) });
  });

  // ---------------------------------------------------------------- join
  const joinText = h('input', { type: 'text', name: 'room', placeholder: 'Room link or id', autocomplete: 'off',
    spellcheck: false, 'aria-label': 'Room link or id' });
  const joinForm = h('form', { class: 'panel join', 'aria-labelledby': 'join-title' },
    h('h2', { id: 'join-title', text: 'Join a room' }),
    joinText,
    h('div', { class: 'buttons' },
      h('button', { class: 'btn primary', type: 'submit', text: 'Join' }),
      h('button', { class: 'btn', type: 'button', text: 'Watch', onclick: () => watch(joinText.value) })));
  joinForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const tid = tournamentFromText(joinText.value);
    if (tid) {
      go(`/t/${tid}`);
      return;
    }
    const room = roomFromText(joinText.value);
    if (!room) {
      fail('A room id is 8 letters and digits, like V62WEAFY (or paste the room link).');
      return;
    }
    if (checkNick()) rooms.enter(app, 'join', { room, nickname: nick.value.trim() });
  });

  // ---------------------------------------------------------------- solo
  const soloForm = h('form', { class: 'panel solo', 'aria-labelledby': 'solo-title' },
    h('h2', { id: 'solo-title', text: 'Play solo' }),
    h('fieldset', {}, h('legend', { text: 'Deal' }),
      radios('sdeal', [['random', 'Random'], ['winnable', 'Random, winnable'], ['code', 'A code']], 'random'),
      h('input', { type: 'text', name: 'scode', placeholder: 'KL1-D1N-AAAAAAG', 'aria-label': 'Solo deal code',
        autocomplete: 'off', spellcheck: false, hidden: true })),
    h('fieldset', { class: 'mode' }, h('legend', { text: 'Draw' }), radios('sdraw', [['1', 'One'], ['3', 'Three']], '1')),
    h('fieldset', { class: 'mode' }, h('legend', { text: 'Scoring' }), radios('sscoring', [['N', 'Normal'], ['V', 'Vegas']], 'N')),
    assistsField('sassists'),
    h('button', { class: 'btn accent', type: 'submit', text: 'Play solo' }));
  soloForm.addEventListener('change', () => {
    soloForm.elements.scode.hidden = value(soloForm, 'sdeal') !== 'code';
    for (const fs of soloForm.querySelectorAll('.mode')) fs.disabled = value(soloForm, 'sdeal') === 'code';
  });
  soloForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!checkNick()) return;
    const d = { nickname: nick.value.trim(), assists: value(soloForm, 'sassists') };
    if (value(soloForm, 'sdeal') === 'code') d.code = value(soloForm, 'scode').trim();
    else {
      d.draw = Number(value(soloForm, 'sdraw'));
      d.scoring = value(soloForm, 'sscoring');
      if (value(soloForm, 'sdeal') === 'winnable') d.deal = 'winnable';
    }
    rooms.enter(app, 'solo', d);
  });

  // ---------------------------------------------------------------- a room link
  const linkTitle = h('h2', { id: 'link-title' });
  const linkCard = h('form', { class: 'panel link', 'aria-labelledby': 'link-title' },
    linkTitle,
    h('p', { text: 'Pick a nickname and join the race, or just watch.' }),
    h('div', { class: 'buttons' },
      h('button', { class: 'btn primary', type: 'submit', text: 'Join the race' }),
      h('button', { class: 'btn', type: 'button', text: 'Watch', onclick: () => watch(app.state.route.room) }),
      h('a', { class: 'btn ghost', href: '/', text: 'Back to the lobby', onclick: (e) => { e.preventDefault(); go('/'); } })));
  linkCard.addEventListener('submit', (e) => {
    e.preventDefault();
    if (checkNick()) rooms.enter(app, 'join', { room: app.state.route.room, nickname: nick.value.trim() });
  });

  const playerLink = h('a', { href: '/', onclick: (e) => { e.preventDefault(); go(playerLink.getAttribute('href')); } });
  const playerLine = h('p', { class: 'player-line', hidden: true }, 'Your games and record: ', playerLink);

  const resumeText = h('span');
  const resume = h('div', { class: 'panel resume', role: 'region', 'aria-label': 'Your last room' },
    resumeText,
    h('button', { class: 'btn primary small', type: 'button', text: 'Go back', onclick: () => goBack() }),
    h('button', { class: 'btn small', type: 'button', text: 'Forget it', onclick: () => forget() }));

  const races = createRaces(app, { nickname: () => nick.value.trim(), checkNick: () => checkNick() });
  const today = createDaily(app, () => (checkNick() ? nick.value.trim() : ''));

  const el = h('section', { class: 'screen lobby', 'aria-labelledby': 'lobby-title' },
    h('header', { class: 'hero' },
      h('h1', { id: 'lobby-title', text: 'Klondike Race' }),
      h('p', { class: 'tagline', text: 'Everyone plays the same deal. First to put all 52 cards home wins.' }),
      h('p', { class: 'lobby-help' },
        h('button', { class: 'linklike', type: 'button', text: 'How a race works', onclick: () => help.openIntro() }),
        help.rulesLink())),
    h('div', { class: 'panel nick' }, field('Nickname', nick), error, playerLine),
    resume,
    linkCard,
    today.el,
    races.el,
    h('div', { class: 'lobby-grid' }, createForm, joinForm, soloForm));
  const tournamentForm = createTournamentForm(el.querySelector('.lobby-grid'), app);
  root.append(el);

  function checkNick() {
    const name = nick.value.trim();
    if (!name) {
      fail('Choose a nickname first.');
      nick.focus();
      return false;
    }
    storage.saveNickname(name);
    player.adopt(app, name);
    return true;
  }

  function fail(text) {
    app.state.formError = text;
    app.changed();
  }

  function watch(text) {
    const room = roomFromText(text || '');
    if (!room) {
      fail('Which room? Paste its link or id.');
      return;
    }
    rooms.enter(app, 'watch', rooms.watchRequest(app.state, room, 0));
  }

  function goBack() {
    const seat = storage.lastSeat();
    if (seat) go(seat.tournament ? `/t/${seat.tournament}` : `/r/${seat.room}`);
  }

  function forget() {
    const seat = storage.lastSeat();
    if (seat) storage.dropSeat(seat.room);
    app.changed();
  }

  let ticking = 0; // the races' times move on between two lists

  function render(s) {
    const linkMode = s.route.name === 'room';
    show(linkCard, linkMode);
    show(el.querySelector('.lobby-grid'), !linkMode);
    show(races.el, !linkMode);
    rooms.followLobby(app, !linkMode && !el.hidden);
    if (!linkMode) races.render(s);
    setText(linkTitle, `Room ${s.route.room}`);
    app.title.screen(linkMode ? `Klondike Race — join room ${s.route.room}` : 'Klondike Race');
    setText(error, s.formError || '');
    const busy = Boolean(s.entering);
    for (const b of el.querySelectorAll('button')) b.disabled = busy;
    const seat = !linkMode && storage.lastSeat();
    show(resume, Boolean(seat));
    if (seat) setText(resumeText, seat.tournament ? `You play in tournament ${seat.tournament}.` : `You have a seat in room ${seat.room}.`);
    tournamentForm.render(s);
    if (!linkMode) today.render(s);
    else show(today.el, false);
    show(playerLine, Boolean(s.player.id));
    if (s.player.id) {
      playerLink.setAttribute('href', `/p/${s.player.id}`);
      setText(playerLink, `${s.player.nickname}'s page`);
    }
  }

  return {
    el,
    show() {
      el.hidden = false;
      if (!ticking) ticking = setInterval(() => app.changed(), 1000);
      today.start();
    },
    hide() {
      el.hidden = true;
      clearInterval(ticking);
      ticking = 0;
      today.stop();
      rooms.followLobby(app, false);
    },
    render,
  };
}
