/** Start the client: read the address, open the socket, pick the screen.

/            the lobby
/r/ROOMID    the room: our seat if we kept one (resume), else the join card
/r/ROOMID?watch  watch the room as a spectator
/t/TOURID    a tournament: the player's page (register, play each round) or the spectator's
/t/TOURID?admin  the organizer's page (with the organizer's key kept in this browser)
*/

import { state, subscribe, changed, resetRoom } from './state.js';
import { Socket } from './socket.js';
import * as session from './session.js';
import * as tournament from './tournament.js';
import * as field from './field.js';
import { serverNow } from './clock.js';
import * as storage from './storage.js';
import { h, setText, show } from './dom.js';
import { say } from './messages.js';
import { createLobby } from './views/lobby.js';
import { createRoom } from './views/room.js';
import { createBigRoom } from './views/bigroom.js';
import { createRace } from './views/race.js';
import { createWatch } from './views/watch.js';
import { createTournament } from './views/tournament.js';
import { openIntro, openRules, seenIntro } from './views/help.js';

const app = document.getElementById('app');
app.replaceChildren();

const socket = new Socket({
  onOpen: () => (state.tour ? tournament.onOpen() : session.onOpen()),
  onFrame: (msg) => {
    if (tournament.owns(msg)) tournament.onFrame(msg);
    else session.onFrame(msg);
    tournament.reconcile();
  },
  onClose: session.onClose,
  onStatus: (status) => {
    if (state.conn !== 'taken' || status === 'open') state.conn = status;
    changed();
  },
});
session.init(socket);
field.init(socket);
tournament.init(socket);

const screens = {};
let current = null;
const loading = h('p', { class: 'boot', role: 'status' });
app.append(loading);

function screen(name) {
  if (!screens[name]) {
    const make = {
      lobby: createLobby, room: createRoom, bigroom: createBigRoom, race: createRace, watch: createWatch,
      tournament: createTournament,
    }[name];
    screens[name] = make(app);
    screens[name].el.hidden = true;
  }
  return screens[name];
}

function parseRoute() {
  if (location.pathname === '/rules') return { name: 'home', room: '', rules: true };
  const t = location.pathname.match(/^\/t\/([A-Za-z0-9]{8})\/?$/);
  if (t) return { name: 'tournament', room: '', tid: t[1].toUpperCase(), admin: new URLSearchParams(location.search).has('admin') };
  const m = location.pathname.match(/^\/r\/([A-Za-z0-9]{8})\/?$/);
  if (!m) return { name: 'home', room: '' };
  const room = m[1].toUpperCase();
  const params = new URLSearchParams(location.search);
  return { name: params.has('watch') ? 'watch' : 'room', room, follow: params.get('follow') || '' };
}

/** Follow the address: enter the room it names, or go back to the lobby. */
function route() {
  const r = parseRoute();
  state.route = r;
  if (r.rules) openRules();
  if (r.name === 'tournament') {
    routeTournament(r);
    return;
  }
  if (r.room && r.room === state.roomId && state.role && !state.tour) {
    changed();
    return; // already there
  }
  if (state.roomId || state.tour) session.detach(); // keep the seat, leave this connection's room
  tournament.close();
  resetRoom();
  if (r.name === 'room') {
    const saved = storage.loadSeat(r.room);
    if (saved && saved.tournament) { // a round's seat is played from its tournament's page
      history.replaceState(null, '', `/t/${saved.tournament}`);
      route();
      return;
    }
    if (saved) session.restoreSeat(saved);
  } else if (r.name === 'watch') {
    session.watchRoom(r.room);
    state.field.followName = r.follow; // a big room's player to follow (the address keeps it across a reload)
  }
  if (socket.ready) session.onOpen();
  changed();
}

function routeTournament(r) {
  if (state.tour && state.tour.id === r.tid) {
    if (state.tour.adminView !== r.admin) tournament.setView(r.admin);
    tournament.reconcile();
    changed();
    return;
  }
  const busy = Boolean(state.roomId || state.tour);
  if (busy) session.detach(); // its hello brings us back to onOpen
  resetRoom();
  tournament.close();
  tournament.open(r.tid, r.admin);
  if (!busy && socket.ready) tournament.onOpen();
  changed();
}

/** A tournament's player goes to the round's table for its last seconds of
countdown and the race; the rest of the time the tournament's page shows. */
function tournamentScreen(s) {
  const tour = s.tour;
  if (!tour || (!tour.t && !tour.error)) return null;
  const round = s.room && s.room.settings.tournament === tour.id;
  if (tour.as === 'player' && s.role === 'player' && round && !tour.page) {
    const phase = session.phase();
    if (phase === 'racing') return 'race';
    if (phase === 'countdown' && s.room.start_at - serverNow() <= 5000) return 'race';
  }
  return 'tournament';
}

function choose(s) {
  if (s.route.name === 'tournament') return tournamentScreen(s);
  if (s.role === 'spectator' || (s.route.name === 'watch' && s.roomId)) return s.room ? 'watch' : null;
  if (s.token && s.roomId) {
    if (!s.room) return null;
    if (s.room.phase !== 'lobby') return 'race';
    return field.isBig(s.room) ? 'bigroom' : 'room';
  }
  return 'lobby';
}

const banner = document.getElementById('banner');
const bannerText = h('span');
const bannerButton = h('button', { class: 'btn small', type: 'button', text: 'Play here', onclick: () => session.takeBack() });
banner.append(bannerText, bannerButton);

function renderBanner(s) {
  const inRoom = Boolean(s.roomId || s.tour);
  let text = '';
  if (s.conn === 'taken') text = 'This seat was opened in another tab or device.';
  else if (s.conn === 'reconnecting' && inRoom) text = 'Connection lost: reconnecting…';
  show(banner, Boolean(text));
  banner.classList.toggle('bad', s.conn === 'taken');
  setText(bannerText, text);
  show(bannerButton, s.conn === 'taken');
  document.body.dataset.conn = s.conn;
}

function render(s) {
  renderBanner(s);
  const name = choose(s);
  if (name !== current) {
    if (current) screens[current].hide();
    current = name;
    if (name) screen(name).show();
  }
  show(loading, !name);
  if (!name) {
    const what = s.route.name === 'tournament' ? 'Opening the tournament…' : 'Joining the room…';
    setText(loading, s.conn === 'open' ? what : 'Connecting…');
    return;
  }
  screens[name].render(s);
}

// a bug of ours must not leave a dead page without a word
// (and it is logged, so that it shows in the console and fails the browser tests)
const oops = (event) => {
  console.error('klondike-race: unexpected error:', event.message || event.reason || event);
  say('Something went wrong on this page: if the table looks wrong, reload it.', { bad: true });
};
window.addEventListener('error', oops);
window.addEventListener('unhandledrejection', oops);

subscribe(render);
session.onNavigate(route);
window.addEventListener('popstate', route);
route();
socket.connect();
// a newcomer (no seat anywhere, never here before) first sees how a race works
if (!seenIntro() && !state.token && !state.route.rules) openIntro();
