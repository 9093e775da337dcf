/** The lobby: first, four big choices that play at once with the last
choices made (Quick race, Play with friends, Play solo, Today's deal), each
with "More options" one tap further down: today's daily deals, the races to
find, create a room, join one by link or id, watch, or play solo. A form's
refusal shows beside the form that was sent, scrolled into view. A room link without a seat of ours shows the join card
for that room. The player this browser is has a link to their page (their
games and record), and beside the nickname their rating in each family, as
the server sent it ("1514?" while provisional), with the top lists' link. */

import { h, setText, show } from '../dom.js';
import { count } from '../format.js';
import * as rooms from '../rooms.js';
import * as storage from '../storage.js';
import * as player from '../player.js';
import { go } from '../navigation.js';
import { createTournamentForm, tournamentFromText } from './tournamentform.js';
import { createChallengeOption } from './challengeform.js';
import { createRaces, describe } from './races.js';
import { createDaily } from './dailydeals.js';
import { languageSwitch } from './language.js';
import { remember } from './remember.js';
import { field, radios } from './formparts.js';
import { ratingText } from './results.js';
import { FAMILIES } from './ratingchart.js';
import { TEXT } from '../text.js';

const L = TEXT.lobby;

const ROOM_ID = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;
const SMALL_ROOM = 16; // above this many seats a room is big (docs/protocol.md, "Big rooms")
const BIG_SIZES = [50, 100, 500, 1000, 5000, 10000];

/** A room id from an id or a link ("…/r/V62WEAFY?watch"); null if there is none. */
function roomFromText(text) {
  const t = text.trim().toUpperCase();
  const m = t.match(/\/R\/([A-Z0-9]{8})(?:[/?#]|$)/) || t.match(/^([A-Z0-9]{8})$/);
  return m && ROOM_ID.test(m[1]) ? m[1] : null;
}

/** The assists a room offers (docs/protocol.md, "Entering a room": the settings' `assists`). */
const ASSISTS = [['off', L.assistsNone], ['basic', L.hints], ['solver', L.hintsAndSolver]];

function assistsField(name) {
  return field(L.assists, h('select', { name },
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
    placeholder: L.nickPlaceholder, required: true, value: storage.nickname(),
  });
  nick.addEventListener('input', () => storage.saveNickname(nick.value.trim()));
  const error = h('p', { class: 'form-error', role: 'alert' });
  let errorAt = null; // where the next refusal shows: beside the form that was sent (null: the nickname's)

  // ---------------------------------------------------------------- create
  const createForm = h('form', { class: 'panel create', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title', text: L.createTitle }),
    h('fieldset', {}, h('legend', { text: L.deal }),
      radios('deal', [['random', L.random], ['winnable', L.randomWinnable], ['code', L.aCode]], 'random'),
      h('input', { type: 'text', name: 'code', placeholder: 'KL1-D1N-AAAAAAG', 'aria-label': L.dealCode,
        autocomplete: 'off', spellcheck: false, hidden: true })),
    h('fieldset', { class: 'mode' }, h('legend', { text: L.draw }), radios('draw', [['1', L.one], ['3', L.three]], '1')),
    h('fieldset', { class: 'mode' }, h('legend', { text: L.scoring }), radios('scoring', [['N', L.normal], ['V', L.vegas]], 'N')),
    h('div', { class: 'row' },
      field(L.players, h('select', { name: 'max_players' },
        ...[2, 3, 4, 5, 6, 7, 8, 1].map((n) => h('option', { value: String(n), text: String(n), selected: n === 8 })),
        h('optgroup', { label: L.bigRace },
          ...BIG_SIZES.map((n) => h('option', { value: String(n), text: L.upTo(count(n)) }))))),
      field(L.timeLimit, h('select', { name: 'time_limit' },
        ...[[0, L.assistsNone], [300, L.min5], [600, L.min10], [900, L.min15], [1800, L.min30], [3600, L.hour1]]
          .map(([v, t]) => h('option', { value: String(v), text: t }))))),
    h('fieldset', {}, h('legend', { text: L.allow }),
      h('div', { class: 'choices' },
        h('label', {}, h('input', { type: 'checkbox', name: 'undo', checked: true }), L.undo)),
      assistsField('assists')),
    h('fieldset', { class: 'big-only', hidden: true }, h('legend', { text: L.bigRace }),
      field(L.top, h('select', { name: 'top' },
        ...[5, 10, 20, 50].map((n) => h('option', { value: String(n), text: String(n), selected: n === 10 })))),
      h('p', { class: 'field-note', text: L.late }),
      radios('late', [['refuse', L.lateRefuse], ['admit', L.lateAdmit]], 'refuse')),
    h('fieldset', {}, h('legend', { text: L.boards }),
      radios('boards', [['live', L.live], ['delayed', L.delayed], ['after', L.after]], 'after'),
      h('label', { class: 'delay', hidden: true },
        h('input', { type: 'number', name: 'delay', min: 1, max: 600, value: 10 }), L.secondsLate),
      h('p', { class: 'boards-note', text: TEXT.common.boardsNote })),
    h('fieldset', { class: 'visibility' }, h('legend', { text: L.visibility }),
      h('label', {}, h('input', { type: 'checkbox', name: 'public' }), L.public),
      h('label', { class: 'rated-choice' }, h('input', { type: 'checkbox', name: 'rated', disabled: true }), L.rated),
      h('p', { class: 'field-note', text: L.private })),
    h('button', { class: 'btn primary', type: 'submit', text: L.createRoom }));
  const challenge = createChallengeOption(createForm, createForm.querySelector('.mode'),
    createForm.querySelector('button[type="submit"]'));
  createForm.addEventListener('change', () => {
    createForm.elements.code.hidden = value(createForm, 'deal') !== 'code';
    createForm.querySelector('.delay').hidden = value(createForm, 'boards') !== 'delayed';
    createForm.querySelector('.big-only').hidden = Number(value(createForm, 'max_players')) <= SMALL_ROOM;
    for (const fs of createForm.querySelectorAll('.mode')) fs.disabled = value(createForm, 'deal') === 'code';
    // rated: a public race of at most 16 seats dealt by the server (docs/protocol.md, "Ratings")
    createForm.elements.rated.disabled = !createForm.elements.public.checked || value(createForm, 'deal') === 'code'
      || Number(value(createForm, 'max_players')) > SMALL_ROOM;
  });
  createForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (errorAt !== choicesEl) errorAt = createForm;
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
    if (settings.public && f.elements.rated.checked && !f.elements.rated.disabled) settings.rated = true;
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
  const joinText = h('input', { type: 'text', name: 'room', placeholder: L.roomLinkOrId, autocomplete: 'off',
    spellcheck: false, 'aria-label': L.roomLinkOrId });
  const joinForm = h('form', { class: 'panel join', 'aria-labelledby': 'join-title' },
    h('h2', { id: 'join-title', text: L.joinTitle }),
    joinText,
    h('div', { class: 'buttons' },
      h('button', { class: 'btn primary', type: 'submit', text: L.join }),
      h('button', { class: 'btn', type: 'button', text: L.watch, onclick: () => watch(joinText.value) })));
  joinForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (errorAt !== choicesEl) errorAt = joinForm;
    const tid = tournamentFromText(joinText.value);
    if (tid) {
      go(`/t/${tid}`);
      return;
    }
    const room = roomFromText(joinText.value);
    if (!room) {
      fail(L.badRoomId);
      return;
    }
    if (checkNick()) rooms.enter(app, 'join', { room, nickname: nick.value.trim() });
  });

  // ---------------------------------------------------------------- solo
  const soloForm = h('form', { class: 'panel solo', 'aria-labelledby': 'solo-title' },
    h('h2', { id: 'solo-title', text: L.soloTitle }),
    h('fieldset', {}, h('legend', { text: L.deal }),
      radios('sdeal', [['random', L.random], ['winnable', L.randomWinnable], ['code', L.aCode]], 'random'),
      h('input', { type: 'text', name: 'scode', placeholder: 'KL1-D1N-AAAAAAG', 'aria-label': L.soloDealCode,
        autocomplete: 'off', spellcheck: false, hidden: true })),
    h('fieldset', { class: 'mode' }, h('legend', { text: L.draw }), radios('sdraw', [['1', L.one], ['3', L.three]], '1')),
    h('fieldset', { class: 'mode' }, h('legend', { text: L.scoring }), radios('sscoring', [['N', L.normal], ['V', L.vegas]], 'N')),
    assistsField('sassists'),
    h('button', { class: 'btn accent', type: 'submit', text: L.soloTitle }));
  soloForm.addEventListener('change', () => {
    soloForm.elements.scode.hidden = value(soloForm, 'sdeal') !== 'code';
    for (const fs of soloForm.querySelectorAll('.mode')) fs.disabled = value(soloForm, 'sdeal') === 'code';
  });
  soloForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (errorAt !== choicesEl) errorAt = soloForm;
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
  const linkWho = h('p', { class: 'link-who', hidden: true }); // "ann's room · Draw one · Normal"
  const linkMeta = h('p', { class: 'link-meta', hidden: true }); // "2 of 8 players · waiting for the host"
  const linkNote = h('p', { text: L.linkNote });
  const linkJoin = h('button', { class: 'btn primary', type: 'submit', text: L.joinRace });
  const linkWatch = h('button', { class: 'btn', type: 'button', text: L.watch, onclick: () => watch(app.state.route.room) });
  const linkCard = h('form', { class: 'panel link', 'aria-labelledby': 'link-title' },
    linkTitle, linkWho, linkMeta, linkNote,
    h('div', { class: 'buttons' }, linkJoin, linkWatch,
      h('a', { class: 'btn ghost', href: '/', text: L.backToLobby, onclick: (e) => { e.preventDefault(); go('/'); } })));
  linkCard.addEventListener('submit', (e) => {
    e.preventDefault();
    errorAt = null;
    if (checkNick()) rooms.enter(app, 'join', { room: app.state.route.room, nickname: nick.value.trim() });
  });

  const playerLink = h('a', { href: '/', onclick: (e) => { e.preventDefault(); go(playerLink.getAttribute('href')); } });
  const playerLine = h('p', { class: 'player-line', hidden: true }, L.yourRecord, playerLink);
  const ratingFigures = FAMILIES.map((f) => h('span', { class: 'rating-figure', dataset: { family: f } }));
  const ratingLine = h('p', { class: 'rating-line', hidden: true, title: L.provisional },
    L.yourRating, ratingFigures[0], ' · ', ratingFigures[1], ' · ',
    h('a', { class: 'top-link', href: '/ratings', text: L.topPlayers,
      onclick: (e) => { e.preventDefault(); go('/ratings'); } }));

  const resumeText = h('span');
  const resume = h('div', { class: 'panel resume', role: 'region', 'aria-label': L.lastRoom },
    resumeText,
    h('button', { class: 'btn primary small', type: 'button', text: L.goBack, onclick: () => goBack() }),
    h('button', { class: 'btn small', type: 'button', text: L.forget, onclick: () => forget() }));

  const races = createRaces(app, { nickname: () => nick.value.trim(), checkNick: () => checkNick() });
  const today = createDaily(app, () => (checkNick() ? nick.value.trim() : ''));

  // ---------------------------------------------------------------- the four choices
  const choice = (kind, label, note, act, more) => h('div', { class: `choice choice-${kind}` },
    h('button', { class: 'btn choice-play', type: 'button', onclick: () => { errorAt = choicesEl; act(); } },
      h('strong', { text: label }), h('span', { class: 'choice-note', text: note })),
    h('button', { class: 'linklike choice-more', type: 'button', text: L.moreOptions,
      'aria-label': L.moreOptionsFor(label), onclick: () => reveal(more) }));
  const choicesEl = h('div', { class: 'choices-grid', role: 'group', 'aria-label': L.choicesLabel },
    choice('quick', L.choiceQuick, L.choiceQuickNote, () => races.el.querySelector('form.quick').requestSubmit(), races.el),
    choice('friends', L.choiceFriends, L.choiceFriendsNote, () => createForm.requestSubmit(), createForm),
    choice('solo', L.choiceSolo, L.choiceSoloNote, () => soloForm.requestSubmit(), soloForm),
    choice('daily', L.choiceDaily, L.choiceDailyNote, () => playToday(), today.el));

  const el = h('section', { class: 'screen lobby', 'aria-labelledby': 'lobby-title' },
    h('header', { class: 'hero' },
      languageSwitch(),
      h('h1', { id: 'lobby-title', text: TEXT.title }),
      h('p', { class: 'tagline', text: L.tagline }),
      h('p', { class: 'lobby-help' },
        h('button', { class: 'linklike', type: 'button', text: L.howRaceWorks, onclick: () => help.openIntro() }),
        help.rulesLink())),
    resume,
    linkCard,
    h('div', { class: 'panel nick' }, field(L.nickname, nick), ratingLine, error, playerLine, choicesEl),
    today.el,
    races.el,
    h('div', { class: 'lobby-grid' }, createForm, joinForm, soloForm));
  const tournamentForm = createTournamentForm(el.querySelector('.lobby-grid'), app);
  const nickPanel = el.querySelector('.panel.nick');
  remember(createForm, 'create');
  remember(soloForm, 'solo');
  remember(races.el.querySelector('form.quick'), 'quick');
  root.append(el);

  /** "More options": the panel of a choice's settings, scrolled to and its first control focused. */
  function reveal(panel) {
    panel.scrollIntoView({ block: 'start', behavior: 'smooth' });
    const first = panel.querySelector('input:not([hidden]), select, button');
    if (first) first.focus({ preventScroll: true });
  }

  /** Today's deal: the first of the day's deals this player can still play (or go back to); else its panel. */
  function playToday() {
    const play = today.el.querySelector('.daily-modes button:not(:disabled)');
    if (play) play.click();
    else reveal(today.el);
  }

  /** The refusal beside the form that was sent, and in view. */
  function placeError(text) {
    const host = errorAt && !errorAt.hidden ? errorAt : null;
    const want = host || nickPanel;
    if (host && host.tagName === 'FORM') {
      const submit = host.querySelector('button[type="submit"]');
      if (error.nextSibling !== submit) host.insertBefore(error, submit);
    } else if (host) {
      if (error.parentNode !== host) host.append(error);
    } else if (error.parentNode !== want) {
      want.insertBefore(error, playerLine);
    }
    const was = error.textContent;
    setText(error, text);
    if (text && text !== was) error.scrollIntoView({ block: 'nearest' });
  }

  function checkNick() {
    const name = nick.value.trim();
    if (!name) {
      fail(L.chooseNick);
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
      fail(L.whichRoom);
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

  // the room's card (host, mode, players), asked once per link shown;
  // `gone`: the server has no such room (it ended and was cleared, or the
  // link is mistyped), so there is nothing to join or watch
  let card = { room: '', r: null, gone: false };
  async function askCard(room) {
    card = { room, r: null, gone: false };
    try {
      const reply = await fetch(`/api/rooms/${encodeURIComponent(room)}/card`);
      if (card.room !== room) return;
      if (reply.ok) card = { room, r: await reply.json(), gone: false };
      else if (reply.status === 404) card = { room, r: null, gone: true };
    } catch {
      return; // no card: the link's room id alone, as before
    }
    app.changed();
  }

  function renderCard(room) {
    if (card.room !== room) askCard(room);
    const r = card.room === room ? card.r : null;
    const gone = card.room === room && card.gone;
    show(linkWho, Boolean(r) || gone);
    show(linkMeta, Boolean(r));
    for (const e of [linkNote, linkJoin, linkWatch]) show(e, !gone);
    if (gone) setText(linkWho, L.noSuchRoom);
    if (!r) return;
    const d = describe(r, app.clock.now());
    setText(linkWho, `${d.who} · ${d.mode}`);
    setText(linkMeta, d.meta);
  }

  function render(s) {
    const linkMode = s.route.name === 'room';
    show(linkCard, linkMode);
    show(el.querySelector('.lobby-grid'), !linkMode);
    show(races.el, !linkMode);
    show(choicesEl, !linkMode); // a room's link: its join card is the choice
    rooms.followLobby(app, !linkMode && !el.hidden);
    if (!linkMode) races.render(s);
    setText(linkTitle, L.roomTitle(s.route.room));
    if (linkMode) renderCard(s.route.room);
    app.title.screen(linkMode ? L.pageTitle(s.route.room) : TEXT.title);
    placeError(s.formError || '');
    const busy = Boolean(s.entering);
    for (const b of el.querySelectorAll('button')) b.disabled = busy;
    const seat = !linkMode && storage.lastSeat();
    show(resume, Boolean(seat));
    if (seat) setText(resumeText, seat.tournament ? L.youPlayTournament(seat.tournament) : L.youHaveSeat(seat.room));
    tournamentForm.render(s);
    if (!linkMode) today.render(s);
    else show(today.el, false);
    show(playerLine, Boolean(s.player.id));
    if (s.player.id) {
      playerLink.setAttribute('href', `/p/${s.player.id}`);
      // a new player is named "player" until they race (docs/web_client.md): their page, unnamed, in every language
      setText(playerLink, s.player.nickname && s.player.nickname !== 'player' ? L.playerPage(s.player.nickname) : L.ownPage);
    }
    const ratings = s.player.id && s.player.ratings;
    show(ratingLine, Boolean(ratings));
    if (ratings) {
      FAMILIES.forEach((f, i) => setText(ratingFigures[i],
        ratings[f] ? L.ratingOf(TEXT.ratings.family[f], ratingText(ratings[f])) : ''));
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
