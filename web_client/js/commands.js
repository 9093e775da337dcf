/** The own game's commands (docs/protocol.md, "Playing"): each has a
sequence number `s` and waits in `state.pending` until its answer; the next
one goes only once the one before is answered, since that answer's view
lists what is legal then. After a reconnect the unanswered ones are sent
again with the same `s` (the server answers a repeat, never applies it
twice). Hint, "undo back" and auto-complete are built on them.

Every function takes the app (app.js): its state, socket, clock and timers.
*/

import { phaseAt } from './state.js';
import * as storage from './storage.js';

const COMPLETE_STEP = 140; // ms between the moves of an auto-complete
const UNDO_STEP = 60; // ms between the undos of "undo back"

/** The room's phase now; our own board's arrival also says the race has begun
(whatever our estimate of the server's clock says). */
export function phase(app) {
  const s = app.state;
  const now = phaseAt(s.room, app.clock.now());
  if (now === 'countdown' && s.view && s.room && s.race === s.room.race) return 'racing';
  return now;
}

/** Whether our game is on: racing, with a board, and not over for us. */
export function playing(app) {
  const s = app.state;
  return s.role === 'player' && s.view != null && !s.done && phase(app) === 'racing';
}

/** Whether a game command may go now (playing, and nothing awaiting an answer). */
export function canPlay(app) {
  return playing(app) && app.state.pending.length === 0;
}

function send(app, t, d) {
  if (!canPlay(app)) return false;
  const s = app.state;
  const cmd = { t, d: { ...d, s: ++s.seq } };
  s.pending.push(cmd);
  storage.saveSeat(s);
  app.socket.send(t, cmd.d);
  app.changed();
  return true;
}

export const move = (app, m) => send(app, 'move', { m });
export const undo = (app) => send(app, 'undo', {});
export const resign = (app) => send(app, 'resign', {});

/** Ask for a hint; asked again while it shows, play it. */
export function hint(app) {
  const s = app.state;
  if (!canPlay(app)) return;
  if (s.ui.hint && s.view.legal.includes(s.ui.hint.m)) {
    move(app, s.ui.hint.m);
    return;
  }
  app.socket.send('hint');
}

/** Undo `n` moves, one per answer (the last winnable position, as the solver said). */
export function undoBack(app, n) {
  app.state.ui.undoing = n;
  undoStep(app);
}

function undoStep(app) {
  const ui = app.state.ui;
  if (!ui.undoing || app.state.pending.length) return;
  ui.undoing -= 1;
  if (!undo(app)) ui.undoing = 0;
}

/** Auto-complete: ask for the moves (frames.js starts them), then play them
one by one; asked again, stop. */
export function complete(app) {
  const s = app.state;
  if (s.ui.completing) {
    stopCompleting(app);
    app.changed();
    return;
  }
  if (canPlay(app) && s.view.autocomplete) app.socket.send('complete');
}

/** The auto-complete's moves have come: play them one by one. */
export function startCompleting(app, moves) {
  app.state.ui.completing = { moves, i: 0 };
  completeStep(app);
}

export function stopCompleting(app) {
  app.state.ui.completing = null;
  app.timers.cancel('complete');
}

function completeStep(app) {
  const s = app.state;
  const run = s.ui.completing;
  if (!run || s.pending.length) return;
  const m = run.moves[run.i];
  if (m == null || !s.view || !s.view.legal.includes(m)) {
    s.ui.completing = null;
    app.changed();
    return;
  }
  run.i += 1;
  if (!move(app, m)) s.ui.completing = null;
}

/** An answer has come: the next step of an auto-complete or an "undo back". */
export function nextStep(app) {
  const ui = app.state.ui;
  if (ui.completing) app.timers.after('complete', COMPLETE_STEP, () => completeStep(app));
  if (ui.undoing) app.timers.after('undo', UNDO_STEP, () => undoStep(app));
}

/** Send every unanswered command again (after a reconnect, or a "not now"). */
export function resendPending(app) {
  for (const cmd of app.state.pending) app.socket.send(cmd.t, cmd.d);
}

/** Send them again after `ms` (the server was busy: `unavailable`, `flood`). */
export function resendLater(app, ms) {
  app.timers.after('retry', ms, () => resendPending(app));
}
