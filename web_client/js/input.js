/** What the player's taps, drags and keys mean, decided from the server's
`legal` list only: the client never judges a move, it looks it up.

- tap on a card: to its foundation if that is legal; else to its only legal
  target; else, if it has legal moves, it is picked up, for a tap on the
  target; a card with no legal move shakes and stays where it is;
- double tap (a second tap on the same card, as the table showed it, within
  300 ms of a tap that touched it): where the card goes best, home first,
  else onto the longest column that takes it (an empty one last), never a
  second card: when the first tap has moved the card already, the second one
  is part of it; a second tap on the card shown there since (the 2♥ the A♥
  sent home uncovered) is a tap of its own;
- drag and drop anywhere; a drop where it cannot go puts it back;
- long press on a column (or arrow up/down on it) opens the sequence chooser;
- keys: U undo, H hint (twice: play it), F complete, space draws, left/right
  move between piles, 1-7 jump to a column, Enter picks and drops, Escape.

No input is ever lost. Every gesture, key and button that acts on the game
is an *intent* in one queue, acted on in the order it came: at once when
nothing awaits an answer, else as soon as the answer (the new view) is in,
and looked up in that view. A tap is judged against the board the player
saw when tapping: it names the card it touched, and a card that an earlier
intent has moved away since takes the tap with it (a tap on an empty spot
means the pile). A tap acts at once, never waiting to see whether a second
one follows: the first tap of a double tap has done its part (moved the
card, or picked it up) when the second comes.
*/

import * as commands from './commands.js';
import { find, movesFrom, stockMove } from './legal.js';
import { cardShort, foundationOf, suitName } from './cards.js';
import { PILES, pickedCards, topCard } from './render.js';
import { say } from './messages.js';
import { TEXT } from './text.js';
import { typing } from './dom.js';

const DOUBLE_TAP = 300; // ms between the taps of a double tap
const QUEUE_MAX = 40; // intents waiting for answers (a long-lost connection)

/** {from, count} for a press on `index` of `pile`, or null if nothing moves from there. */
function pickAt(view, pile, index) {
  if (!view) return null;
  if (pile === 'w') return view.waste.length ? { from: 'w', count: 1 } : null;
  if (pile === 'stock') return null;
  if (pile[0] === 'f') return view.foundations[pile[1].toUpperCase()] ? { from: pile, count: 1 } : null;
  const column = view.tableau[Number(pile.slice(1)) - 1];
  if (!column.up.length) return null;
  const total = column.down + column.up.length;
  if (index < 0 || index >= total) return { from: pile, count: 1 };
  if (index < column.down) return null;
  return { from: pile, count: total - index };
}

/** Where a face-up card is in a view: {pile, index}, or null. */
function locate(view, card) {
  if (!view || !card) return null;
  const w = view.waste.indexOf(card);
  if (w >= 0) return w === view.waste.length - 1 ? { pile: 'w', index: -1 } : null;
  for (const suit of Object.keys(view.foundations)) {
    if (view.foundations[suit] === card) return { pile: 'f' + suit.toLowerCase(), index: -1 };
  }
  for (let c = 0; c < view.tableau.length; c++) {
    const column = view.tableau[c];
    const j = column.up.indexOf(card);
    if (j >= 0) return { pile: `t${c + 1}`, index: column.down + j };
  }
  return null;
}

/** The notation's target for a drop of `pick` on `pile`: "f" for the lead card's foundation. */
function targetName(view, pick, pile) {
  if (pile[0] === 't') return pile;
  if (pile[0] === 'f') {
    const lead = pickedCards(view, pick)[0];
    return lead && foundationOf(lead) === pile ? 'f' : null;
  }
  return null;
}

/** The piles that would take `pick`, as the legal list says. */
export function targetsOf(view, pick) {
  const out = new Set();
  if (!view || !pick) return out;
  const lead = pickedCards(view, pick)[0];
  for (const move of movesFrom(view.legal, pick.from, pick.count)) {
    out.add(move.to === 'f' ? foundationOf(lead) : move.to);
  }
  return out;
}

/** The table's input: `board` the table (render.js), `app` the app (app.js). */
export function createInput(board, app) {
  const queue = [];
  // the tap acted on last: {pile, card (the one it touched, if any), at, picked (it picked that card up)}
  let lastTap = null;

  const state = app.state;
  const view = () => state.view;
  const ui = state.ui;
  const changed = app.changed;

  // ---------------------------------------------------------------- the queue

  /** Act on an intent now if nothing awaits an answer, else once the answers are in. */
  function push(intent) {
    if (!commands.playing(app)) return false;
    if (queue.length >= QUEUE_MAX) {
      say(TEXT.queueFull, { bad: true });
      return false;
    }
    queue.push(intent);
    pump();
    return true;
  }

  function pump() {
    while (queue.length && commands.canPlay(app)) run(queue.shift());
    if (queue.length && !commands.playing(app)) queue.length = 0; // the race is over for us
    ui.queued = queue.length;
  }
  app.settled.push(pump);

  function run(intent) {
    switch (intent.k) {
      case 'tap': tap(intent); break;
      case 'drop': dropLater(intent); break;
      case 'long': openPanel(intent); break;
      case 'stock': stockAction(); break;
      case 'enter': enterKey(intent.pile); break;
      case 'escape': clearMarks(); break;
      case 'step': panelStep(intent.pile, intent.delta); break;
      case 'take': confirmPanel(intent.count); break;
      case 'undo': ui.hint = null; commands.undo(app); break; // the hint was for the position undone
      case 'hint': commands.hint(app); break;
      case 'complete': commands.complete(app); break;
      case 'resign': commands.resign(app); break;
      default: break;
    }
  }

  // ---------------------------------------------------------------- moves

  function clearMarks() {
    ui.selected = null;
    ui.panel = null;
    ui.hint = null;
    ui.refused = null;
    changed();
  }

  /** The cards of `pick` cannot go anywhere: they shake where they are. */
  function refuse(pick) {
    ui.selected = null;
    ui.panel = null;
    ui.hint = null;
    ui.refused = { from: pick.from, count: pick.count, n: (ui.refused ? ui.refused.n : 0) + 1 };
    changed();
  }

  function tell(pick, pile) {
    const lead = pickedCards(view(), pick)[0];
    if (!lead) return;
    let where = TEXT.there;
    if (pile[0] === 'f') where = TEXT.toFoundation(suitName(pile[1].toUpperCase()));
    else if (pile[0] === 't') {
      const top = topCard(view(), pile);
      const column = view().tableau[Number(pile.slice(1)) - 1];
      where = top ? TEXT.onCard(cardShort(top)) : column.down ? TEXT.there : TEXT.onEmptyColumn;
    }
    say(TEXT.cannotGo(cardShort(lead), where));
  }

  /** Try `pick` onto `pile`: "sent", "same" (its own pile) or "illegal". */
  function drop(pick, pile) {
    if (pile === pick.from) return 'same';
    const v = view();
    const to = targetName(v, pick, pile);
    const m = to && find(v.legal, pick.from, pick.count, to);
    if (m && commands.move(app, m)) {
      ui.ghost = true;
      ui.selected = null;
      ui.panel = null;
      ui.hint = null;
      ui.refused = null;
      changed();
      return 'sent';
    }
    if (!m && pile !== 'stock' && pile !== 'w') tell(pick, pile);
    return 'illegal';
  }

  /** A drop made while an answer was awaited: the same cards, if they are still there. */
  function dropLater({ pick, pile, lead }) {
    if (pickedCards(view(), pick)[0] !== lead) return;
    drop(pick, pile);
  }

  function stockAction() {
    const m = stockMove(view() && view().legal);
    clearMarks();
    if (m) commands.move(app, m);
    else if (view()) say(view().stock || view().waste_count ? TEXT.noMorePasses : TEXT.nothingToDraw);
  }

  /** What a single tap does to `pick` (a foundation card is only picked up:
  taking one back is rare and never done by a stray tap). */
  function singleMove(pick) {
    if (pick.from[0] === 'f') return null;
    const moves = movesFrom(view().legal, pick.from, pick.count);
    const home = moves.find((x) => x.to === 'f');
    if (home) return home.m;
    return moves.length === 1 ? moves[0].m : null;
  }

  /** Where `pick` goes best (a double tap): home, else onto the longest
  column that takes it (an empty one last); null if nowhere. */
  function bestMove(pick) {
    const v = view();
    const moves = movesFrom(v.legal, pick.from, pick.count);
    const home = moves.find((x) => x.to === 'f');
    if (home) return home.m;
    const size = (m) => {
      const column = v.tableau[Number(m.to.slice(1)) - 1];
      return column.down + column.up.length;
    };
    const columns = moves.filter((x) => x.to[0] === 't').sort((a, b) => size(b) - size(a));
    return columns.length ? columns[0].m : null;
  }

  /** The cards under the pointer: a press beside a column's cards picks nothing. */
  function pressed(pile, index) {
    return pile[0] === 't' && index < 0 ? null : pickAt(view(), pile, index);
  }

  /** Where a tap lands in the view of now: on the card it touched, where that
  card is now if it is still in the same pile; null if an earlier intent has
  moved it away (the tap was for that card, not for what lies there now). A
  tap on no face-up card (an empty waste, a face-down card) stays where it was. */
  function landing({ pile, index, card }) {
    if (!card) return { pile, index };
    const at = locate(view(), card);
    return at && at.pile === pile ? at : null;
  }

  /** Whether `intent` is the second tap of a double tap: on the card the tap
  before touched, as the table showed it (the same pile, the same card),
  within DOUBLE_TAP. */
  function secondTap(prev, intent) {
    return Boolean(prev && prev.card && prev.card === intent.card && prev.pile === intent.pile
      && intent.at - prev.at < DOUBLE_TAP);
  }

  function tap(intent) {
    const prev = lastTap;
    const { pile } = intent;
    lastTap = { pile, card: intent.card, at: intent.at, picked: false };
    ui.focus = pile;
    if (pile === 'stock') {
      stockAction();
      return;
    }
    if (secondTap(prev, intent)) {
      lastTap = null; // a third tap is a tap of its own
      if (prev.picked && ui.selected) doubleTap(ui.selected);
      else if (!prev.picked) { // the first tap moved the card (or shook it): this one was part of it
        ui.selected = null;
        changed();
      }
      return;
    }
    const spot = landing(intent);
    if (!spot) { // its card has gone where an earlier tap sent it
      ui.selected = null;
      changed();
      return;
    }
    const { index } = spot;
    const sel = ui.selected || ui.panel; // a chooser's cards go where the next tap says
    if (sel) {
      const again = pressed(pile, index);
      if (pile === sel.from && (!again || again.count === sel.count || pile[0] !== 't')) {
        clearMarks();
        return;
      }
      if (pile === sel.from && again) {
        lastTap.picked = pickUp(again);
        return;
      }
      if (drop(sel, pile) !== 'sent') clearMarks();
      return;
    }
    const pick = pressed(pile, index);
    if (!pick) {
      clearMarks();
      return;
    }
    ui.hint = null;
    const m = singleMove(pick);
    if (m) {
      ui.refused = null;
      commands.move(app, m);
      return;
    }
    lastTap.picked = pickUp(pick);
  }

  /** Pick `pick` up for a tap on its target, if it has one; else it shakes. */
  function pickUp(pick) {
    if (!movesFrom(view().legal, pick.from, pick.count).length) {
      refuse(pick);
      return false;
    }
    ui.panel = null;
    ui.refused = null;
    ui.selected = pick;
    changed();
    return true;
  }

  function doubleTap(pick) {
    const m = bestMove(pick);
    clearMarks();
    if (m) commands.move(app, m);
    else refuse(pick);
  }

  function openPanel({ pile, index }) {
    const pick = pressed(pile, index);
    if (!pick) return;
    ui.focus = pile;
    ui.hint = null;
    if (pile[0] === 't') {
      ui.selected = null;
      ui.panel = pick;
    } else {
      ui.selected = pick;
    }
    changed();
  }

  // ---------------------------------------------------------------- gestures (drag.js)

  /** The face-up card a press touched, as the table showed it: in a column
  the card under the pointer; on the waste or a foundation its top card
  (a press anywhere on those piles means it); null if none showed there. */
  function cardAt(pile, index) {
    if (pile[0] !== 't') return topCard(board.view, pile);
    const el = board.pileEl(pile).querySelector(`.card[data-index="${index}"]`);
    return el && el.dataset.card ? el.dataset.card : null;
  }

  const handlers = {
    pick: (pile, index) => (commands.playing(app) ? pressed(pile, index) : null),
    targets: (pick) => targetsOf(view(), pick),
    drop(pick, pile) {
      if (commands.canPlay(app) && !queue.length) return drop(pick, pile);
      const lead = pickedCards(view(), pick)[0];
      return push({ k: 'drop', pick, pile, lead }) ? 'queued' : 'illegal';
    },
    tap(pile, index) {
      if (!commands.playing(app)) return;
      push({ k: 'tap', pile, index, card: cardAt(pile, index), at: performance.now() });
    },
    longPress(pile, index) {
      if (!commands.playing(app) || !pressed(pile, index)) return false;
      return push({ k: 'long', pile, index });
    },
    dragging(on, pick, targets, sent) {
      if (on) {
        ui.selected = null;
        ui.panel = null;
        for (const t of targets) board.pileEl(t).classList.add('target');
        board.pileEl(pick.from).classList.add('drag-source');
      } else {
        for (const id of PILES) board.pileEl(id).classList.remove('target', 'drag-source');
        if (!sent) changed();
      }
    },
  };

  // ---------------------------------------------------------------- keyboard

  function moveFocus(delta) {
    const i = PILES.indexOf(ui.focus);
    focusTo(PILES[(i + delta + PILES.length) % PILES.length]);
  }

  function focusTo(pile) {
    ui.focus = pile;
    board.focusPile(pile);
    changed();
  }

  function panelStep(pile, delta) {
    const v = view();
    if (ui.panel && (!pile || ui.panel.from === pile)) {
      const column = v.tableau[Number(ui.panel.from.slice(1)) - 1];
      ui.panel = { from: ui.panel.from, count: Math.max(1, Math.min(column.up.length, ui.panel.count + delta)) };
      changed();
      return;
    }
    if (!pile || pile[0] !== 't') return;
    const column = v.tableau[Number(pile.slice(1)) - 1];
    if (!column.up.length) return;
    ui.selected = null;
    ui.panel = { from: pile, count: Math.min(column.up.length, delta > 0 ? 2 : 1) };
    changed();
  }

  function confirmPanel(count) {
    if (!ui.panel) return;
    ui.selected = count ? { from: ui.panel.from, count } : ui.panel;
    ui.panel = null;
    changed();
  }

  function enterKey(pile) {
    if (ui.panel) {
      confirmPanel();
      return;
    }
    if (ui.selected) {
      if (pile === ui.selected.from) {
        clearMarks();
        return;
      }
      drop(ui.selected, pile); // an illegal drop keeps the pick: move on and try again
      return;
    }
    if (pile === 'stock') {
      stockAction();
      return;
    }
    const pick = pickAt(view(), pile, -1);
    if (!pick) {
      say(TEXT.nothingToPick);
      return;
    }
    ui.hint = null;
    if (!pickUp(pick)) say(TEXT.noMove(cardShort(pickedCards(view(), pick)[0])));
  }

  /** The table's keys act whatever has the focus (a control clicked last
  gives it back to the table anyway), except Enter, which presses a focused
  button; and Space and the arrows only while the game is on (else a focused
  button's Space is its own). */
  function keydown(e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return false;
    if (state.role !== 'player' || !state.view) return false;
    const inBoard = board.el.contains(document.activeElement);
    const free = inBoard || document.activeElement === document.body || !document.activeElement
      || commands.playing(app);
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const settings = state.room ? state.room.settings : {};
    switch (key) {
      case 'u':
        if (settings.undo) push({ k: 'undo' });
        break;
      case 'h':
        if (settings.hints) push({ k: 'hint' });
        break;
      case 'f':
        act('complete');
        break;
      case ' ':
        if (!free) return false;
        push({ k: 'stock' });
        break;
      case 'ArrowLeft':
        moveFocus(-1);
        break;
      case 'ArrowRight':
        moveFocus(1);
        break;
      case 'ArrowUp':
      case 'ArrowDown':
        if (!free) return false;
        push({ k: 'step', pile: ui.focus, delta: key === 'ArrowUp' ? 1 : -1 });
        break;
      case 'Enter':
        if (!inBoard && document.activeElement && document.activeElement !== document.body) return false;
        if (!inBoard) board.focusPile(ui.focus);
        push({ k: 'enter', pile: ui.focus });
        break;
      case 'Escape':
        if (!ui.selected && !ui.panel && !ui.hint && !queue.length) return false;
        push({ k: 'escape' });
        break;
      default:
        if (/^[1-7]$/.test(key)) {
          focusTo(`t${key}`);
          break;
        }
        return false;
    }
    e.preventDefault();
    return true;
  }

  /** A button's command (undo, hint, complete, resign, stock), in turn with the rest.
  Stopping an auto-complete acts at once. */
  function act(what) {
    if (what === 'complete' && ui.completing) {
      commands.complete(app);
      return;
    }
    push({ k: what });
  }

  return {
    handlers,
    keydown,
    act,
    panelStep: (delta) => push({ k: 'step', pile: null, delta }),
    panelPick: (count) => push({ k: 'take', count }),
    confirmPanel: () => push({ k: 'take', count: 0 }),
    cancel: () => push({ k: 'escape' }),
    waiting: () => queue.length,
  };
}
