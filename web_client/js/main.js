/** Start the client: make the app (app.js), its dialogs and screens, follow
the address (router.js, navigation.js), open the socket, and draw: the
connection's banner and the screen the state calls for. */

import { createApp } from './app.js';
import { attachTaps } from './taps.js';
import { route, screenOf } from './router.js';
import { takeBack } from './rooms.js';
import { h, setText, show } from './dom.js';
import { say } from './messages.js';
import { LANG, TEXT } from './text.js';
import { createHelp } from './views/help.js';
import { createFieldPanel } from './views/fieldpanel.js';
import { createLobby } from './views/lobby.js';
import { createRoom } from './views/room.js';
import { createBigRoom } from './views/bigroom.js';
import { createRace } from './views/race.js';
import { createWatch } from './views/watch.js';
import { createTournament } from './views/tournamentpage.js';
import { createProfile } from './views/profile.js';
import { createChallenge } from './views/challengepage.js';
import { createTopList } from './views/toplist.js';

const SCREENS = {
  lobby: createLobby, room: createRoom, bigroom: createBigRoom, race: createRace, watch: createWatch,
  tournament: createTournament, profile: createProfile, challenge: createChallenge, ratings: createTopList,
};

/** The screens, each made the first time it shows; one shows at a time. */
function createScreens(root, app) {
  const made = {};
  let current = null;
  const loading = h('p', { class: 'boot', role: 'status' });
  root.append(loading);

  function screen(name) {
    if (!made[name]) {
      made[name] = SCREENS[name](root, app);
      made[name].el.hidden = true;
    }
    return made[name];
  }

  function render(s) {
    const name = screenOf(app);
    if (name !== current) {
      if (current) made[current].hide();
      current = name;
      if (name) screen(name).show();
    }
    show(loading, !name);
    if (!name) {
      const what = s.route.name === 'tournament' ? TEXT.openingTournament : TEXT.joiningRoom;
      setText(loading, s.conn === 'open' ? what : TEXT.connecting);
      return;
    }
    made[name].render(s);
  }

  return { render };
}

/** The connection's banner: reconnecting, or the seat taken by another tab. */
function createBanner(el, app) {
  const text = h('span');
  const button = h('button', { class: 'btn small', type: 'button', text: TEXT.playHere, onclick: () => takeBack(app) });
  el.append(text, button);

  return {
    render(s) {
      const inRoom = Boolean(s.roomId || s.tour);
      let said = '';
      if (s.conn === 'taken') said = TEXT.taken;
      else if (s.conn === 'reconnecting' && inRoom) said = TEXT.reconnecting;
      show(el, Boolean(said));
      el.classList.toggle('bad', s.conn === 'taken');
      setText(text, said);
      show(button, s.conn === 'taken');
      document.body.dataset.conn = s.conn;
    },
  };
}

function start() {
  document.documentElement.lang = LANG;
  document.title = TEXT.title;
  attachTaps(document);
  const root = document.getElementById('app');
  root.replaceChildren();
  const app = createApp();
  app.dialogs = { help: createHelp(app.title), field: createFieldPanel(app) };
  const banner = createBanner(document.getElementById('banner'), app);
  const screens = createScreens(root, app);

  // a bug of ours must not leave a dead page without a word
  // (and it is logged, so that it shows in the console and fails the browser tests)
  const oops = (event) => {
    console.error('klondike-race: unexpected error:', event.message || event.reason || event);
    say(TEXT.oops, { bad: true });
  };
  window.addEventListener('error', oops);
  window.addEventListener('unhandledrejection', oops);

  app.subscribe((s) => {
    banner.render(s);
    screens.render(s);
  });
  window.addEventListener('popstate', () => route(app));
  route(app);
  app.socket.connect();
  // a newcomer (no seat anywhere, never here before) first sees how a race works
  if (!app.dialogs.help.seenIntro() && !app.state.token && !app.state.route.rules) app.dialogs.help.openIntro();
}

start();
