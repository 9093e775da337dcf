/** The table drawn from a view: stock, waste, foundations S H D C, seven columns.

Elements are kept between draws and updated in place: a face-up card is one
element for as long as it is on the table (keyed by its name), so a move just
places it somewhere else and it slides there from where it was (FLIP).
Face-down cards are only "a card at this depth of that column": the view
never names them, so neither does the page.

The faces are SVG images (faces.js) set as the cards' backgrounds. What
moves is animated (unless the player asks for reduced motion): a moved card
slides from where it was; a drawn card slides from the stock turning face
up; a card turned up in a column turns over; a recycled waste goes back to
the stock face down.
*/

import { h, setAttr, setText, toggle } from './dom.js';
import { SUITS, cardLabel, foundationOf, isRed, suitName } from './cards.js';
import { cards } from './format.js';
import { TEXT } from './text.js';
import { flipFrom, animationsOn, shake, turnOver } from './flip.js';
import { fan, fanStep, measure } from './layout.js';
import { faceUrl, markUrl } from './faces.js';

export const PILES = ['stock', 'w', 'fs', 'fh', 'fd', 'fc', 't1', 't2', 't3', 't4', 't5', 't6', 't7'];
const COLUMNS = PILES.slice(6);

function kindOf(pile) {
  if (pile === 'stock') return 'stock';
  if (pile === 'w') return 'waste';
  return pile[0] === 'f' ? 'foundation' : 'column';
}

/** The cards a pick moves: {from, count} → card names (first is the lead). */
export function pickedCards(view, pick) {
  if (!view || !pick) return [];
  if (pick.from === 'w') return view.waste.slice(-1);
  if (pick.from[0] === 'f') {
    const top = view.foundations[pick.from[1].toUpperCase()];
    return top ? [top] : [];
  }
  const column = view.tableau[Number(pick.from.slice(1)) - 1];
  return column ? column.up.slice(column.up.length - pick.count) : [];
}

/** The top card of a pile, or null. */
export function topCard(view, pile) {
  if (!view) return null;
  if (pile === 'w') return view.waste.at(-1) ?? null;
  if (pile === 'stock') return null;
  if (pile[0] === 'f') return view.foundations[pile[1].toUpperCase()] ?? null;
  const column = view.tableau[Number(pile.slice(1)) - 1];
  return column.up.at(-1) ?? null;
}

/** What a pile is, in words (its accessible name). */
function pileLabel(view, pile) {
  if (pile === 'stock') {
    const base = view.stock ? TEXT.board.stock(cards(view.stock)) : TEXT.board.stockEmpty;
    return view.legal && view.legal.includes('recycle') ? `${base}, ${TEXT.board.turnOver}` : base;
  }
  if (pile === 'w') {
    const top = view.waste.at(-1);
    return top ? TEXT.board.waste(cardLabel(top), cards(view.waste_count)) : TEXT.board.wasteEmpty;
  }
  if (pile[0] === 'f') {
    const suit = pile[1].toUpperCase();
    const top = view.foundations[suit];
    return TEXT.board.foundation(suitName(suit), top ? cardLabel(top) : TEXT.board.empty);
  }
  const n = Number(pile.slice(1));
  const column = view.tableau[n - 1];
  const parts = [TEXT.board.column(n)];
  if (column.down) parts.push(TEXT.board.faceDownCards(column.down));
  if (column.up.length > 1) parts.push(TEXT.board.faceUpCards(column.up.length));
  if (column.up.length) parts.push(TEXT.board.onTop(cardLabel(column.up.at(-1))));
  if (!column.down && !column.up.length) parts.push(TEXT.board.empty);
  return parts.join(', ');
}

function makeCard(card, mini) {
  if (card === 'under') return h('div', { class: 'card under', 'aria-hidden': 'true' });
  if (!card) return h('div', { class: 'card down', role: 'img', 'aria-label': TEXT.board.faceDown });
  const el = h('div', {
    class: isRed(card) ? 'card red' : 'card', role: 'img', 'aria-label': cardLabel(card), dataset: { card },
  });
  el.style.backgroundImage = faceUrl(card, { mini });
  return el;
}

/** The mark of an empty stock: turn the waste over, or no more passes. */
function stockMark(view) {
  if (view.stock > 0 || !view.waste_count) return '';
  if (view.legal) return view.legal.includes('recycle') ? '↻' : '✕';
  return view.scoring === 'N' ? '↻' : '✕'; // a spectator's view: Vegas has one pass, Normal any number
}

export class Board {
  /**
   * @param host where the board goes
   * @param options interactive: focusable piles (the player's own table);
   *   mini: a spectator's small board; label: its accessible name
   */
  constructor(host, { interactive = true, mini = false, label = TEXT.board.table } = {}) {
    this.interactive = interactive;
    this.mini = mini;
    this.el = h('div', {
      class: mini ? 'board mini' : 'board',
      role: interactive ? 'application' : 'group',
      'aria-roledescription': TEXT.board.roleDescription,
      'aria-label': label,
    });
    this.el.style.setProperty('--back', faceUrl(null));
    this.piles = {};
    for (const id of PILES) {
      const kind = kindOf(id);
      const el = h('div', { class: `pile ${kind}`, role: 'group', dataset: { pile: id } });
      if (interactive) el.tabIndex = -1;
      if (kind === 'foundation') el.style.setProperty('--mark', markUrl(id[1].toUpperCase()));
      this.piles[id] = el;
      this.el.append(el);
    }
    this.count = h('span', { class: 'stock-count', 'aria-hidden': 'true' });
    this.piles.stock.append(this.count);
    this.cards = new Map(); // key → element
    this.view = null;
    this.marks = {};
    this.shaken = null; // the refusal shaken last (marks.refused)
    this.size = null;
    // resizing changes the table's own size: do it on the next frame, not
    // inside the observer (that loop is an error event in the browser)
    this.pendingResize = 0;
    this.observer = new ResizeObserver(() => {
      if (this.pendingResize) return;
      this.pendingResize = requestAnimationFrame(() => {
        this.pendingResize = 0;
        this.resize();
      });
    });
    this.observer.observe(this.el);
    host.append(this.el);
  }

  destroy() {
    this.observer.disconnect();
    cancelAnimationFrame(this.pendingResize);
    this.el.remove();
  }

  resize() {
    if (this.measure()) this.draw(false);
  }

  /** A spectator's board shown small (index-only faces) or large (full faces). */
  setMini(on) {
    if (this.mini === on) return;
    this.mini = on;
    toggle(this.el, 'mini', on);
    for (const el of this.cards.values()) {
      if (el.dataset.card) el.style.backgroundImage = faceUrl(el.dataset.card, { mini: on });
    }
    this.size = null;
    if (this.measure()) this.draw(false);
  }

  /** Size the table from its box; false while it has none (hidden). */
  measure() {
    const size = measure(this.el, { mini: this.mini });
    if (!size) return false;
    const old = this.size;
    this.size = size;
    if (!old || old.cardW !== size.cardW || old.gap !== size.gap) {
      this.el.style.setProperty('--card-w', `${size.cardW}px`);
      this.el.style.setProperty('--card-h', `${size.cardH}px`);
      this.el.style.setProperty('--gap', `${size.gap}px`);
    }
    return true;
  }

  /** Draw `view` with `marks` ({selected, refused, panel, targets, hint, focus, ghost}). */
  update(view, marks = {}) {
    const same = view === this.view && sameMarks(marks, this.marks);
    const landed = Boolean(this.marks.ghost && !marks.ghost); // dropped cards go home
    const animate = this.view != null && view != null && (view !== this.view || landed);
    this.marks = marks;
    if (same) return;
    this.view = view;
    this.draw(animate);
  }

  draw(animate) {
    const view = this.view;
    if (!view) {
      for (const el of this.cards.values()) el.remove();
      this.cards.clear();
      setText(this.count, '');
      return;
    }
    if (!this.size && !this.measure()) return;
    const before = new Map();
    let stockRect = null;
    let wasteRect = null;
    if (animate && animationsOn()) {
      for (const [key, el] of this.cards) before.set(key, el.getBoundingClientRect());
      stockRect = this.piles.stock.getBoundingClientRect();
      wasteRect = this.piles.w.getBoundingClientRect();
    }
    const last = this.drawn;
    const drew = last != null && view.stock < last.stock;
    const recycled = last != null && view.stock > last.stock && view.waste_count < last.waste;
    this.drawn = { stock: view.stock, waste: view.waste_count };
    if (!this.marks.ghost) {
      for (const el of this.cards.values()) if (el.style.translate) el.style.translate = '';
    }
    const placed = new Map();
    const put = (key, card, pile, index, x, y) => {
      let el = this.cards.get(key);
      if (!el) {
        el = makeCard(card, this.mini);
        this.cards.set(key, el);
      }
      const pileEl = this.piles[pile];
      if (el.parentNode !== pileEl) pileEl.insertBefore(el, pile === 'stock' ? this.count : null);
      el.style.left = `${x}px`;
      el.style.top = `${y}px`;
      el.style.zIndex = String(index + 1);
      el.dataset.in = pile;
      el.dataset.index = String(index);
      placed.set(key, el);
      return el;
    };

    // stock: a back while it has cards (the count says how many)
    if (view.stock > 0) put('stock~', null, 'stock', 0, 0, 0);
    setText(this.count, view.stock > 0 ? view.stock : '');
    this.piles.stock.dataset.mark = stockMark(view);

    // waste: the playable card, in draw three the rest of the latest fan
    const under = view.waste_count > view.waste.length;
    if (under) put('waste~under', 'under', 'w', 0, 0, 0);
    const step = view.draw === 3 ? fanStep(this.size) : 0;
    view.waste.forEach((card, i) => put(card, card, 'w', i + 1, i * step, 0));

    // foundations: the top card of each suit
    for (const suit of SUITS) {
      const top = view.foundations[suit];
      if (top) put(top, top, 'f' + suit.toLowerCase(), 0, 0, 0);
    }

    // columns
    const dropY = {};
    view.tableau.forEach((column, c) => {
      const pile = COLUMNS[c];
      const { tops, next } = fan(column.down, column.up.length, this.size, { mini: this.mini });
      for (let i = 0; i < column.down; i++) put(`${pile}~${i}`, null, pile, i, 0, tops[i]);
      column.up.forEach((card, j) => put(card, card, pile, column.down + j, 0, tops[column.down + j]));
      dropY[pile] = next;
    });

    for (const [key, el] of this.cards) {
      if (!placed.has(key)) {
        el.remove();
        this.cards.delete(key);
      }
    }

    this.decorate(view, dropY);

    if (animate && before.size) {
      let drawnCards = 0;
      for (const [key, el] of placed) {
        const old = before.get(key);
        if (old) {
          flipFrom(el, old, { lift: 'moving' });
        } else if (key === 'stock~' && recycled) {
          flipFrom(el, wasteRect, { lift: 'moving', duration: 260 });
        } else if (!key.includes('~')) {
          if (el.dataset.in === 'w') {
            if (drew) { // from the stock, turning face up (a draw-three fan one after the other)
              const delay = 50 * drawnCards++;
              flipFrom(el, stockRect, { lift: 'moving', duration: 240, delay });
              turnOver(el, { duration: 240, delay });
            }
          } else if (el.dataset.in[0] === 't') {
            turnOver(el); // a card turned up in its column (or one coming back with an undo)
          }
        }
      }
    }
  }

  decorate(view, dropY) {
    const { selected, refused, panel, targets, hint, focus } = this.marks;
    const lifted = new Set(pickedCards(view, selected || panel));
    const stuck = new Set(pickedCards(view, refused));
    const shakeNow = refused && refused !== this.shaken; // each refusal shakes once
    this.shaken = refused;
    const hinted = new Set(hint ? pickedCards(view, hint) : []);
    let hintTo = null;
    if (hint) {
      if (hint.from === 'stock') hintTo = 'stock';
      else if (hint.to === 'f') hintTo = hinted.size ? foundationOf([...hinted][0]) : null;
      else hintTo = hint.to;
    }
    for (const [key, el] of this.cards) {
      toggle(el, 'picked', selected && lifted.has(key));
      toggle(el, 'preview', panel && lifted.has(key));
      toggle(el, 'hint-from', hinted.has(key));
      toggle(el, 'refused', stuck.has(key));
      if (shakeNow && stuck.has(key)) shake(el);
    }
    for (const id of PILES) {
      const el = this.piles[id];
      const isTarget = Boolean(targets && targets.has(id));
      toggle(el, 'target', isTarget);
      toggle(el, 'hint-to', hintTo === id);
      if (dropY[id] != null) el.style.setProperty('--drop-y', `${dropY[id]}px`);
      let label = pileLabel(view, id);
      if (selected && selected.from === id) label += `, ${TEXT.board.picked(cards(selected.count))}`;
      if (isTarget) label += `, ${TEXT.board.canTake}`;
      setAttr(el, 'aria-label', label);
      if (this.interactive) {
        const tab = id === focus ? 0 : -1;
        if (el.tabIndex !== tab) el.tabIndex = tab;
      }
    }
  }

  pileEl(id) {
    return this.piles[id];
  }

  /** The elements of the cards a pick moves (lead first). */
  pickEls(pick) {
    return pickedCards(this.view, pick).map((card) => this.cards.get(card)).filter(Boolean);
  }

  focusPile(id) {
    const el = this.piles[id];
    if (el && document.activeElement !== el) el.focus();
  }
}

function sameMarks(a, b) {
  return a.selected === b.selected && a.refused === b.refused && a.panel === b.panel && a.hint === b.hint
    && a.focus === b.focus
    && a.ghost === b.ghost && sameSet(a.targets, b.targets);
}

function sameSet(a, b) {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
