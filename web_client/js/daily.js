/** The daily deal's side of the protocol (docs/protocol.md, "The daily
deal"): today's deals (`daily`: each mode's room, how many played, when the
day ends; the player's place in each and their streak; the past days kept,
with their codes), asked when the lobby shows and every minute while it
does; a seat in one (`daily_play`, sent by the lobby as any entering command:
everything after it is a challenge's, challenge.js).

`daily` lands in `state.daily`; the lobby reads it through the functions
below. A browser without a player (its storage refused) sees the deals and
is told that playing them needs one.
*/

import * as storage from './storage.js';

const REFRESH_MS = 60000; // the lobby asks again this often: counts and places move

export function freshDaily() {
  return { view: null, asked: 0 }; // the last `daily` frame; when it was asked (clock ms)
}

/** Whether a frame is the daily deal's (its answer, or the refusal of it). */
export function owns(msg) {
  return msg.t === 'daily' || (msg.t === 'reject' && msg.d && msg.d.cmd === 'daily');
}

export function onFrame(app, msg) {
  if (msg.t === 'daily') app.state.daily.view = msg.d;
  app.changed();
}

/** Ask for today's deals (after `identify`: the answer has the player's places). */
export function ask(app) {
  if (app.socket.ready && app.socket.send('daily')) app.state.daily.asked = app.clock.now();
}

/** Ask again if the last answer is older than a minute (the lobby's timer). */
export function refresh(app) {
  if (app.clock.now() - app.state.daily.asked >= REFRESH_MS) ask(app);
}

/** Whether this browser holds a seat in the room (taken, maybe not begun yet). */
export function seated(room) {
  return Boolean(room && storage.loadSeat(room));
}
