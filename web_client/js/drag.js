/** Pointer gestures on the table (mouse, touch, pen): drag and drop, tap, long press.

A press that moves more than a few pixels drags the picked cards (the card
under the pointer and every card on top of it); a press released in place is
a tap; a press held still is a long press. What a gesture means is decided by
the handlers (input.js): this file only follows the pointer and finds the
pile under the dropped cards.

Each pointer has a gesture of its own, so two thumbs tapping in turn are two
taps even when the second lands before the first lifts; one drag at a time.

handlers: pick(pile, index) → {from, count} | null, targets(pick) → Set of
piles, drop(pick, pile) → "sent" | "queued" | "illegal" | "same", tap(pile, index),
longPress(pile, index) → bool (handled), dragging(on).
*/

import { flipFrom } from './flip.js';

const SLOP = 6; // pixels a press may wander and still be a tap
const LONG_PRESS = 450; // ms

export function attachDrag(board, handlers) {
  const root = board.el;
  const gestures = new Map(); // pointerId → the gesture of that pointer (two thumbs tap at once)
  const draggingNow = () => [...gestures.values()].some((x) => x.dragging);

  root.addEventListener('pointerdown', (e) => {
    if (gestures.has(e.pointerId) || (e.pointerType === 'mouse' && e.button !== 0)) return;
    const pileEl = e.target.closest('.pile');
    if (!pileEl || !root.contains(pileEl)) return;
    const pile = pileEl.dataset.pile;
    const cardEl = e.target.closest('.card');
    const index = cardEl && cardEl.dataset.index != null ? Number(cardEl.dataset.index) : -1;
    const g = { id: e.pointerId, x: e.clientX, y: e.clientY, pile, index, dragging: false, long: false, done: false };
    gestures.set(e.pointerId, g);
    document.body.dataset.input = e.pointerType === 'touch' ? 'touch' : 'pointer';
    if (e.pointerType === 'mouse') e.preventDefault(); // no text selection, no focus jump
    try {
      root.setPointerCapture(e.pointerId);
    } catch {
      /* the pointer is already gone */
    }
    g.timer = setTimeout(() => {
      if (gestures.get(g.id) === g && !g.dragging && !g.done) g.long = handlers.longPress(pile, index);
    }, LONG_PRESS);
  });

  root.addEventListener('pointermove', (e) => {
    const g = gestures.get(e.pointerId);
    if (!g || g.done) return;
    const dx = e.clientX - g.x;
    const dy = e.clientY - g.y;
    if (!g.dragging) {
      if (g.long || Math.hypot(dx, dy) < SLOP) return;
      clearTimeout(g.timer);
      const pick = draggingNow() ? null : handlers.pick(g.pile, g.index);
      const els = pick ? board.pickEls(pick) : [];
      if (!pick || !els.length) {
        g.done = true; // not a card that can move: neither a drag nor a tap
        return;
      }
      g.dragging = true;
      g.pick = pick;
      g.els = els;
      g.targets = handlers.targets(pick);
      for (const el of els) el.classList.add('dragging');
      handlers.dragging(true, pick, g.targets);
    }
    for (const el of g.els) el.style.translate = `${dx}px ${dy}px`;
    e.preventDefault();
  });

  const finish = (e, cancelled) => {
    const gesture = gestures.get(e.pointerId);
    if (!gesture) return;
    gestures.delete(e.pointerId);
    clearTimeout(gesture.timer);
    if (!gesture.dragging) {
      if (!cancelled && !gesture.long && !gesture.done) handlers.tap(gesture.pile, gesture.index);
      return;
    }
    const pile = cancelled ? null : dropPile(board, gesture, e);
    for (const el of gesture.els) el.classList.remove('dragging');
    const result = pile ? handlers.drop(gesture.pick, pile) : 'same';
    handlers.dragging(false, gesture.pick, null, result === 'sent');
    if (result !== 'sent') {
      for (const el of gesture.els) {
        const rect = el.getBoundingClientRect();
        el.style.translate = '';
        flipFrom(el, rect, { lift: 'moving' });
      }
    }
  };
  root.addEventListener('pointerup', (e) => finish(e, false));
  root.addEventListener('pointercancel', (e) => finish(e, true));
  root.addEventListener('lostpointercapture', (e) => {
    const g = gestures.get(e.pointerId);
    if (g && g.dragging) finish(e, true);
  });
  root.addEventListener('contextmenu', (e) => {
    if (e.target.closest('.card')) e.preventDefault(); // a long press is ours, not a menu
  });
}

/** The pile the cards were dropped on: the one under the pointer if it takes
them, else the one that takes them and overlaps the lead card most, else the
one under the pointer (an illegal drop), else none. */
function dropPile(board, gesture, e) {
  const under = pileAt(board, e.clientX, e.clientY);
  if (under && gesture.targets.has(under)) return under;
  const lead = gesture.els[0].getBoundingClientRect();
  let best = null;
  let bestArea = 0.15 * lead.width * lead.height;
  for (const pile of gesture.targets) {
    const area = overlap(lead, dropRect(board, pile));
    if (area > bestArea) {
      best = pile;
      bestArea = area;
    }
  }
  return best || under;
}

function pileAt(board, x, y) {
  for (const el of document.elementsFromPoint(x, y)) {
    if (el.classList.contains('dragging')) continue;
    const pileEl = el.closest('.pile');
    if (pileEl && board.el.contains(pileEl)) return pileEl.dataset.pile;
  }
  return null;
}

function dropRect(board, pile) {
  const el = board.pileEl(pile);
  const rect = el.getBoundingClientRect();
  let bottom = rect.top + (board.size ? board.size.cardH : rect.height);
  for (const card of el.querySelectorAll('.card:not(.dragging)')) {
    bottom = Math.max(bottom, card.getBoundingClientRect().bottom);
  }
  return { left: rect.left, right: rect.right, top: rect.top, bottom };
}

function overlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}
