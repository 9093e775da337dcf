/** The app: one page's state and what works on it, made once by main.js and
passed to every module that reads or changes the state (as chessground
passes its state to render). Nothing else holds state: no module keeps a
variable of its own between calls.

  app.state      the state (state.js): plain data, changed in place
  app.changed()  ask for a redraw; app.subscribe(fn) draws (state.js)
  app.clock      the server's clock (clock.js)
  app.timers     the protocol's timers by name (timers.js)
  app.socket     the websocket (socket.js)
  app.settled    what runs after every frame (the input queue: an answer
                 may have made room for the next command)
  app.dialogs    the page's shared dialogs, set by main.js: {help, field}
  app.title      the page's title (dom.js createTitle): the screens', or a dialog's

Each frame goes to its owner: the player's to player.js, the daily deal's
to daily.js, a tournament's to
tournament.js, the rest to frames.js (a room's, and field.js's for a big
room). A connection says who the player is (player.js) before it enters
anything.
*/

import { createState, createRedraw } from './state.js';
import { createClock } from './clock.js';
import { createTimers } from './timers.js';
import { createTitle } from './dom.js';
import { Socket } from './socket.js';
import * as rooms from './rooms.js';
import * as frames from './frames.js';
import * as tournament from './tournament.js';
import * as player from './player.js';
import * as daily from './daily.js';

export function createApp() {
  const state = createState();
  const { changed, subscribe } = createRedraw(state);
  const app = {
    state, changed, subscribe, clock: createClock(), timers: createTimers(), socket: null, settled: [], dialogs: null,
    title: createTitle(),
  };
  app.socket = new Socket({
    clock: app.clock,
    onOpen: () => {
      player.onOpen(app);
      if (state.route.name === 'home') daily.ask(app);
      if (state.tour) tournament.onOpen(app);
      else rooms.onOpen(app);
    },
    onFrame: (msg) => {
      if (player.owns(msg)) player.onFrame(app, msg);
      else if (daily.owns(msg)) daily.onFrame(app, msg);
      else if (tournament.owns(state, msg)) tournament.onFrame(app, msg);
      else frames.onFrame(app, msg);
      tournament.reconcile(app);
    },
    onClose: (code) => {
      if (code === 4001 && state.tour) tournament.kickedOut(app); // out of a round: out of its tournament
      rooms.onClose(app, code);
    },
    onStatus: (status) => {
      if (state.conn !== 'taken' || status === 'open') state.conn = status;
      changed();
    },
  });
  return app;
}
