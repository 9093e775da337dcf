/** What the player's taps, drags and keys mean, decided from the server's
`legal` list only: the client never judges a move, it looks it up.

- tap on a card: to its foundation if that is legal; else to its only legal
  target; else it is picked up, for a tap on the target;
- double tap: onto a column (the longest that takes it, else an empty one);
- drag and drop anywhere; a drop where it cannot go puts it back;
- long press on a column (or arrow up/down on it) opens the sequence chooser;
- keys: U undo, H hint (twice: play it), F complete, space draws, left/right
  move between piles, 1-7 jump to a column, Enter picks and drops, Escape.
*/

import { state, changed } from './state.js';
import * as session from './session.js';
import { find, movesFrom, stockMove } from './legal.js';
import { cardShort, foundationOf, SUIT_NAMES } from './cards.js';
import { PILES, pickedCards, topCard } from './render.js';
import { say } from './messages.js';
import { typing } from './dom.js';

const DOUBLE_TAP = 300; // ms

/** {from, count} for a press on `index` of `pile`, or null if nothing moves from there. */
export function pickAt(view, pile, index) {
  if (!view) return null;
  if (pile === 'w') return view.waste.length ? { from: 'w', count: 1 } : null;
  if (pile === 'stock') return null;
  if (pile[0] === 'f') return view.foundations[pile[1].toUpperCase()] ? { from: pile, count: 1 } : null;
  const column = view.tableau[Number(pile.slice(1)) - 1];
  if (!column.up.length) return null;
  const total = column.down + column.up.length;
  if (index < 0) return { from: pile, count: 1 };
  if (index < column.down) return null;
  return { from: pile, count: total - index };
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

export function createInput(board) {
  let lastTap = null; // {pile, index, at, timer, acted}

  const view = () => state.view;
  const ui = state.ui;

  function clearMarks() {
    ui.selected = null;
    ui.panel = null;
    ui.hint = null;
    changed();
  }

  function tell(pick, pile) {
    const lead = pickedCards(view(), pick)[0];
    if (!lead) return;
    let where = 'there';
    if (pile[0] === 'f') where = `to the ${SUIT_NAMES[pile[1].toUpperCase()]} foundation`;
    else if (pile[0] === 't') {
      const top = topCard(view(), pile);
      const column = view().tableau[Number(pile.slice(1)) - 1];
      where = top ? `on ${cardShort(top)}` : column.down ? 'there' : 'on an empty column';
    }
    say(`${cardShort(lead)} can't go ${where}.`);
  }

  /** Try `pick` onto `pile`: "sent", "same" (its own pile), "illegal" or "busy". */
  function drop(pick, pile) {
    if (pile === pick.from) return 'same';
    const v = view();
    const to = targetName(v, pick, pile);
    const m = to && find(v.legal, pick.from, pick.count, to);
    if (m) {
      if (session.move(m)) {
        ui.ghost = true;
        ui.selected = null;
        ui.panel = null;
        ui.hint = null;
        changed();
        return 'sent';
      }
      return 'busy';
    }
    if (pile !== 'stock' && pile !== 'w') tell(pick, pile);
    return 'illegal';
  }

  function stockAction() {
    const m = stockMove(view() && view().legal);
    clearMarks();
    if (m) session.move(m);
    else if (view()) say(view().stock || view().waste_count ? 'No more passes through the stock.' : 'Nothing left to draw.');
  }

  /** What a single tap does to `pick` (a foundation card is only picked up:
  taking one back is rare and never done by a stray tap), and what a double tap would do. */
  function singleMove(pick) {
    if (pick.from[0] === 'f') return null;
    const moves = movesFrom(view().legal, pick.from, pick.count);
    const home = moves.find((x) => x.to === 'f');
    if (home) return home.m;
    return moves.length === 1 ? moves[0].m : null;
  }

  function doubleMove(pick) {
    const v = view();
    const columns = movesFrom(v.legal, pick.from, pick.count).filter((x) => x.to[0] === 't');
    const size = (m) => {
      const column = v.tableau[Number(m.to.slice(1)) - 1];
      return column.down + column.up.length;
    };
    columns.sort((a, b) => size(b) - size(a));
    return columns.length ? columns[0].m : null;
  }

  /** The cards under the pointer: a press beside a column's cards picks nothing. */
  function pressed(pile, index) {
    return pile[0] === 't' && index < 0 ? null : pickAt(view(), pile, index);
  }

  function tapNow(pile, index) {
    if (pile === 'stock') {
      stockAction();
      return;
    }
    const sel = ui.selected || ui.panel; // a chooser's cards go where the next tap says
    if (sel) {
      const again = pressed(pile, index);
      if (pile === sel.from && (!again || again.count === sel.count || pile[0] !== 't')) {
        clearMarks();
        return;
      }
      if (pile === sel.from && again) {
        ui.panel = null;
        ui.selected = again;
        changed();
        return;
      }
      const result = drop(sel, pile);
      if (result !== 'sent') clearMarks();
      return;
    }
    const pick = pressed(pile, index);
    if (!pick) {
      clearMarks();
      return;
    }
    const m = singleMove(pick);
    if (m) {
      ui.hint = null;
      session.move(m);
      return;
    }
    ui.hint = null;
    ui.panel = null;
    ui.selected = pick;
    changed();
  }

  function doubleTap(pile, index) {
    const pick = pressed(pile, index);
    if (!pick) return;
    const m = doubleMove(pick);
    if (m) {
      clearMarks();
      session.move(m);
      return;
    }
    const lead = pickedCards(view(), pick)[0];
    say(`No column takes ${cardShort(lead)}.`);
  }

  function tap(pile, index) {
    if (!session.canPlay()) return;
    const now = performance.now();
    ui.focus = pile;
    if (lastTap && lastTap.pile === pile && lastTap.index === index && now - lastTap.at < DOUBLE_TAP) {
      const prev = lastTap;
      lastTap = null;
      clearTimeout(prev.timer);
      if (!prev.acted) doubleTap(pile, index);
      return;
    }
    lastTap = null;
    // a tap waits for a possible second one only when the two would differ
    const pick = !ui.selected && !ui.panel && pile !== 'stock' ? pressed(pile, index) : null;
    const single = pick && singleMove(pick);
    const double = pick && doubleMove(pick);
    if (pick && double && double !== single) {
      lastTap = { pile, index, at: now, acted: false };
      lastTap.timer = setTimeout(() => {
        if (lastTap && lastTap.pile === pile) lastTap.acted = true;
        if (session.canPlay()) tapNow(pile, index);
      }, DOUBLE_TAP);
      return;
    }
    lastTap = { pile, index, at: now, acted: true };
    tapNow(pile, index);
  }

  function longPress(pile, index) {
    if (!session.canPlay()) return false;
    const pick = pressed(pile, index);
    if (!pick) return false;
    ui.focus = pile;
    ui.hint = null;
    if (pile[0] === 't') {
      ui.selected = null;
      ui.panel = pick;
    } else {
      ui.selected = pick;
    }
    changed();
    return true;
  }

  function pick(pile, index) {
    return session.canPlay() ? pressed(pile, index) : null;
  }

  function dragging(on, pick, targets, sent) {
    if (on) {
      ui.selected = null;
      ui.panel = null;
      for (const t of targets) board.pileEl(t).classList.add('target');
      board.pileEl(pick.from).classList.add('drag-source');
    } else {
      for (const id of PILES) board.pileEl(id).classList.remove('target', 'drag-source');
      if (!sent) changed();
    }
  }

  // ---------------------------------------------------------------- keyboard

  function moveFocus(delta) {
    const i = PILES.indexOf(ui.focus);
    ui.focus = PILES[(i + delta + PILES.length) % PILES.length];
    board.focusPile(ui.focus);
    changed();
  }

  function focusTo(pile) {
    ui.focus = pile;
    board.focusPile(pile);
    changed();
  }

  function panelStep(delta) {
    const v = view();
    const pile = ui.focus;
    if (pile[0] !== 't') return;
    const column = v.tableau[Number(pile.slice(1)) - 1];
    if (!column.up.length) return;
    if (!ui.panel || ui.panel.from !== pile) {
      ui.selected = null;
      ui.panel = { from: pile, count: Math.min(column.up.length, delta > 0 ? 2 : 1) };
    } else {
      const count = Math.max(1, Math.min(column.up.length, ui.panel.count + delta));
      ui.panel = { from: pile, count };
    }
    changed();
  }

  function confirmPanel() {
    ui.selected = ui.panel;
    ui.panel = null;
    changed();
  }

  function enterKey() {
    const pile = ui.focus;
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
      say('Nothing to pick up there.');
      return;
    }
    ui.hint = null;
    ui.selected = pick;
    changed();
  }

  function keydown(e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (state.role !== 'player' || !state.view) return;
    const inBoard = board.el.contains(document.activeElement);
    const free = inBoard || document.activeElement === document.body || !document.activeElement;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const settings = state.room ? state.room.settings : {};
    switch (key) {
      case 'u':
        if (settings.undo) session.undo();
        break;
      case 'h':
        if (settings.hints) session.hint();
        break;
      case 'f':
        session.complete();
        break;
      case ' ':
        if (!free) return;
        if (session.canPlay()) stockAction();
        break;
      case 'ArrowLeft':
        moveFocus(-1);
        break;
      case 'ArrowRight':
        moveFocus(1);
        break;
      case 'ArrowUp':
      case 'ArrowDown':
        if (!free || !session.canPlay()) return;
        panelStep(key === 'ArrowUp' ? 1 : -1);
        break;
      case 'Enter':
        if (!free) return;
        if (!inBoard) board.focusPile(ui.focus);
        if (session.canPlay()) enterKey();
        break;
      case 'Escape':
        if (!ui.selected && !ui.panel && !ui.hint) return;
        clearMarks();
        break;
      default:
        if (/^[1-7]$/.test(key)) {
          focusTo(`t${key}`);
          break;
        }
        return;
    }
    e.preventDefault();
  }

  return {
    handlers: { pick, targets: (p) => targetsOf(view(), p), drop, tap, longPress, dragging },
    keydown,
    panelStep: (delta) => {
      if (ui.panel) {
        const column = view().tableau[Number(ui.panel.from.slice(1)) - 1];
        ui.panel = { from: ui.panel.from, count: Math.max(1, Math.min(column.up.length, ui.panel.count + delta)) };
        changed();
      }
    },
    panelPick: (count) => {
      if (ui.panel) {
        ui.panel = { from: ui.panel.from, count };
        confirmPanel();
      }
    },
    confirmPanel,
    cancel: clearMarks,
  };
}
