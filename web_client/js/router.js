/** Following the address (navigation.js): enter the room or follow the
tournament it names, show a player's page or the top lists, or go back to the lobby; and
which screen the state calls for. main.js calls `route` at start and on
every change of address. */

import { resetRoom } from './state.js';
import * as storage from './storage.js';
import { parseRoute } from './navigation.js';
import { phase } from './commands.js';
import * as rooms from './rooms.js';
import * as tournament from './tournament.js';
import * as field from './field.js';
import * as player from './player.js';
import * as challenge from './challenge.js';

/** Follow the address: enter the room it names, or go back to the lobby. */
export function route(app) {
  const s = app.state;
  const r = parseRoute();
  s.route = r;
  if (r.rules === 'book') app.dialogs.help.openRuleBook();
  else if (r.rules) app.dialogs.help.openRules();
  if (r.name === 'tournament') {
    routeTournament(app, r);
    return;
  }
  if (r.room && r.room === s.roomId && s.role && !s.tour) {
    app.changed();
    return; // already there
  }
  if (s.roomId || s.tour) rooms.detach(app); // keep the seat, leave this connection's room
  tournament.close(s);
  resetRoom(s);
  if (r.name === 'player') routePlayer(app, r);
  if (r.name === 'room') {
    const saved = storage.loadSeat(r.room);
    if (saved && saved.tournament) { // a round's seat is played from its tournament's page
      history.replaceState(null, '', `/t/${saved.tournament}`);
      route(app);
      return;
    }
    if (saved) storage.restoreSeat(s, saved);
  } else if (r.name === 'watch') {
    rooms.watchRoom(s, r.room);
    s.field.followName = r.follow; // a big room's player to follow (the address keeps it across a reload)
  }
  if (app.socket.ready) rooms.onOpen(app);
  app.changed();
}

/** A player's page: their public profile, read afresh (and the own history
from its first page); /p/ID#claim=CODE makes this browser that player. */
function routePlayer(app, r) {
  const p = app.state.player;
  const claim = new URLSearchParams(location.hash.slice(1)).get('claim');
  if (claim) {
    history.replaceState(null, '', location.pathname); // the code stays out of the history
    player.claim(app, claim);
  }
  if (!p.profile || p.profile.id !== r.pid) p.profile = null;
  player.loadProfile(app, r.pid);
  if (r.pid === p.id) player.askHistory(app, 1);
}

function routeTournament(app, r) {
  const s = app.state;
  if (s.tour && s.tour.id === r.tid) {
    if (s.tour.adminView !== r.admin) tournament.setView(s.tour, r.admin);
    tournament.reconcile(app);
    app.changed();
    return;
  }
  const busy = Boolean(s.roomId || s.tour);
  if (busy) rooms.detach(app); // its hello brings us back to onOpen
  resetRoom(s);
  tournament.close(s);
  tournament.open(s, r.tid, r.admin);
  // /t/ID?admin#claim=CODE: the organizer's key, moved here from another device (the fragment stays in the browser)
  const claim = new URLSearchParams(location.hash.slice(1)).get('claim');
  if (claim) {
    history.replaceState(null, '', location.pathname + location.search);
    s.tour.claiming = claim;
  }
  if (!busy && app.socket.ready) tournament.onOpen(app);
  app.changed();
}

/** A tournament's player goes to the round's table for its last seconds of
countdown and the race; the rest of the time the tournament's page shows. */
function tournamentScreen(app) {
  const s = app.state;
  const tour = s.tour;
  if (!tour || (!tour.t && !tour.error)) return null;
  const round = s.room && s.room.settings.tournament === tour.id;
  if (tour.as === 'player' && s.role === 'player' && round && !tour.page) {
    const now = phase(app);
    if (now === 'racing') return 'race';
    if (now === 'countdown' && s.room.start_at - app.clock.now() <= 5000) return 'race';
  }
  return 'tournament';
}

/** The screen the state calls for (null: still joining or opening). */
export function screenOf(app) {
  const s = app.state;
  if (s.route.name === 'tournament') return tournamentScreen(app);
  if (s.route.name === 'player') return 'profile';
  if (s.route.name === 'ratings') return 'ratings';
  if (s.role === 'spectator' || (s.route.name === 'watch' && s.roomId)) return s.room ? 'watch' : null;
  if (s.token && s.roomId) {
    if (!s.room) return null;
    // a challenge's player who has not begun: its page (the link, who has played, "Start my game")
    if (challenge.isChallenge(s.room) && !challenge.begun(s)) return 'challenge';
    if (s.room.phase !== 'lobby') return 'race';
    return field.isBig(s.room) ? 'bigroom' : 'room';
  }
  return 'lobby';
}
