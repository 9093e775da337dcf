/** The player this browser is (docs/protocol.md, "Players"): a key kept in
localStorage (storage.js), presented with `identify` first on every
connection, so that every seat taken from then on counts for the player; on
a first visit the server makes the player and sends the key, once. Then the
player's page's commands: a page of the history (`p_history`), a new
nickname (`p_rename`), a one-time code for another device (`p_move`), the
code from another device (`p_claim`, typed or opened as /p/ID#claim=CODE),
forgetting the player (`p_forget`); and the public profile of any player
(`p_profile`: what `GET /api/players/ID` answers, read on the socket the
page has anyway).

Everything lands in `state.player`; every function that acts takes the app.
*/

import * as storage from './storage.js';
import { go } from './navigation.js';
import { say } from './messages.js';
import { TEXT, reasonText } from './text.js';

export const PAGE = 10; // results on a page of the history
const NICKNAME = /^[\p{L}\p{N} _.'-]{1,20}$/u; // a nickname the server takes (it checks more)
const NEW_PLAYER = 'player'; // a new player's nickname when none was given

export function freshPlayer() {
  return {
    id: '', nickname: '', // who this browser is, once the server said so
    ratings: null, // the player's own rating per family, as the server sent it: {d1: {rating, provisional, races}, d3}
    history: null, // the page of the history shown: {first, of, results}
    asked: 0, // the first result of the page awaited (0: none)
    move: null, // a one-time code for another device: {code, until}
    claiming: '', // a device code to send, or sent and awaiting its answer
    identifying: false, // an identify sent, its answer awaited (it comes before a claim's)
    error: '', // the last refusal of a command of the player's page
    profile: null, // the public profile shown (/p/ID): {id, found, data}
    profileAsked: '', // the id whose profile was asked last
  };
}

/** After `hello`, before anything else: say who we are, or ask to be
someone (a browser opening a device code's link becomes that player: no
new player is made for it first). A browser that cannot keep a key asks
for none: it plays as every browser did before players, remembered by
nobody. */
export function onOpen(app) {
  const p = app.state.player;
  const kept = storage.loadPlayer();
  if (kept) identify(app, { key: kept.key });
  else if (!p.claiming && storage.canKeep()) identifyAnew(app);
  if (p.claiming) app.socket.send('p_claim', { code: p.claiming });
  if (app.state.route.name === 'player') loadProfile(app, app.state.route.pid);
}

function identify(app, d) {
  if (app.socket.send('identify', d)) app.state.player.identifying = true;
}

function identifyAnew(app) {
  const name = storage.nickname();
  identify(app, NICKNAME.test(name) ? { nickname: name } : {});
}

/** Whether a frame is the player protocol's. */
export function owns(msg) {
  if (['player', 'p_history', 'p_profile', 'p_move', 'p_forgotten'].includes(msg.t)) return true;
  const cmd = (msg.t === 'reject' && msg.d && msg.d.cmd) || '';
  return cmd === 'identify' || cmd.startsWith('p_');
}

export function onFrame(app, msg) {
  const handler = HANDLERS[msg.t];
  if (handler) handler(app, msg.d || {});
  app.changed();
}

/** A rated race's `rated` event (docs/protocol.md, "Ratings"): the own
seat's rating in the room's family, as the server computed it, becomes the
one the lobby shows. */
export function onRated(s, e) {
  const mine = s.role === 'player' && e.ratings && e.ratings[String(s.seat)];
  const p = s.player;
  if (!mine || !p.id || !s.room) return;
  const { rating, provisional, races } = mine;
  p.ratings = { ...(p.ratings || {}), [`d${s.room.settings.draw}`]: { rating, provisional, races } };
}

/** Whether the page shown is the player's own. */
export function ownPage(s) {
  return s.route.name === 'player' && Boolean(s.player.id) && s.route.pid === s.player.id;
}

const HANDLERS = {
  player(app, d) {
    const s = app.state;
    const p = s.player;
    const kept = storage.loadPlayer();
    const key = d.key || (kept && kept.id === d.id ? kept.key : '');
    if (key) storage.savePlayer({ key, id: d.id, nickname: d.nickname });
    if (!storage.nickname() && d.nickname !== NEW_PLAYER) storage.saveNickname(d.nickname);
    const claimed = Boolean(p.claiming && d.key && !p.identifying);
    p.identifying = false;
    const other = p.id !== d.id;
    Object.assign(p, { id: d.id, nickname: d.nickname });
    if (d.ratings) p.ratings = d.ratings;
    if (other) Object.assign(p, { history: null, asked: 0, move: null });
    if (claimed) { // the device code's answer: this browser is that player now
      p.claiming = '';
      say(TEXT.playerMovedHere(d.nickname), { tone: 'win' });
      go(`/p/${d.id}`);
    }
    if (ownPage(s)) {
      loadProfile(app, d.id);
      if (!p.history && !p.asked) askHistory(app, 1);
    }
  },

  p_history(app, d) {
    const p = app.state.player;
    if (p.asked && d.first !== p.asked) return; // an older question's answer
    p.asked = 0;
    p.history = { first: d.first, of: d.of, results: d.results };
  },

  p_profile(app, d) {
    app.state.player.profile = { id: d.id, found: true, data: d };
  },

  p_move(app, d) {
    app.state.player.move = { code: d.code, until: d.until };
  },

  p_forgotten(app) {
    const s = app.state;
    storage.dropPlayer();
    s.player = freshPlayer();
    say(TEXT.playerForgotten);
    go('/');
  },

  reject(app, d) {
    const p = app.state.player;
    if (d.cmd === 'identify') {
      p.identifying = false;
      if (d.code === 'unknown_player') { // forgotten elsewhere, or expired: a new player
        storage.dropPlayer();
        if (!p.claiming) identifyAnew(app); // (a claim makes this browser another player anyway)
      } else if (d.code === 'bad_nickname') {
        identify(app, {});
      } // else (too many, storage trouble): this connection plays without a player, as before
      return;
    }
    if (d.cmd === 'p_profile') {
      p.profile = { id: p.profileAsked, found: false, data: null };
      return;
    }
    if (d.cmd === 'p_claim') {
      p.claiming = '';
      if (!p.id && storage.canKeep()) identifyAnew(app); // came for the code alone: a player of its own now
    }
    if (d.cmd === 'p_history') p.asked = 0;
    p.error = d.code === 'bad_handoff' ? TEXT.badDeviceCode : reasonText(d);
  },
};

// ------------------------------------------------------------------ commands of the player's page

export function askHistory(app, first) {
  const p = app.state.player;
  if (!p.id || !app.socket.send('p_history', { first, count: PAGE })) return;
  p.asked = first;
}

/** The nickname a player races under becomes their profile's, if it still
has a new player's (they never chose one). */
export function adopt(app, nickname) {
  const p = app.state.player;
  if (p.id && p.nickname === NEW_PLAYER && nickname !== NEW_PLAYER && NICKNAME.test(nickname)) {
    app.socket.send('p_rename', { nickname });
  }
}

export function rename(app, nickname) {
  app.state.player.error = '';
  if (!app.socket.send('p_rename', { nickname })) say(TEXT.offline, { bad: true });
}

export function offerMove(app) {
  app.state.player.error = '';
  if (!app.socket.send('p_move')) say(TEXT.offline, { bad: true });
}

/** Become the player of a code made on another device (sent once identified). */
export function claim(app, code) {
  const p = app.state.player;
  p.error = '';
  p.claiming = code.trim();
  if (app.socket.ready) app.socket.send('p_claim', { code: p.claiming });
  app.changed();
}

export function forget(app) {
  if (!app.socket.send('p_forget')) say(TEXT.offline, { bad: true });
}

/** The public profile of player `id` (anyone's): asked now, or once connected. */
export function loadProfile(app, id) {
  const p = app.state.player;
  p.profileAsked = id;
  if (app.socket.ready) app.socket.send('p_profile', { id });
}
