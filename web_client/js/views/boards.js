/** The players' boards as the server sends them to spectators (`boards`
frames): small in a grid, one large on click or Enter. Used by the
spectator's screen of a room and by a tournament's page. */

import { h, setText, show, toggle } from '../dom.js';
import { score } from '../format.js';
import { Board } from '../render.js';
import { statusText } from './leaderboard.js';
import { plural } from '../cards.js';

export function createBoardsGrid(host, app) {
  const el = h('div', { class: 'boards-grid' });
  host.append(el);
  const tiles = new Map(); // seat → {fig, caption, board}

  function tile(seat) {
    let t = tiles.get(seat);
    if (t) return t;
    const caption = h('figcaption', { class: 'tile-caption' });
    const boardHost = h('div', { class: 'tile-board' });
    const fig = h('figure', { class: 'tile', tabindex: '0', role: 'button', 'aria-expanded': 'false', dataset: { seat: String(seat) } },
      caption, boardHost);
    const board = new Board(boardHost, { interactive: false, mini: true, label: `board of seat ${seat}` });
    const toggleBig = () => {
      const ui = app.state.ui;
      ui.bigSeat = ui.bigSeat === seat ? null : seat;
      app.changed();
    };
    fig.addEventListener('click', toggleBig);
    fig.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        toggleBig();
      }
    });
    t = { fig, caption, board };
    tiles.set(seat, t);
    return t;
  }

  /** boards: seat → public view; names: seat → nickname; entries: leaderboard lines; phase: the room's;
  order: seats in the order to show them (a big room's, by rank), else by seat. */
  function render(boards, { names, entries, bigSeat, phase = null, order = null }) {
    const place = order ? new Map(order.map((seat, i) => [seat, i])) : null;
    const seats = Object.keys(boards).map(Number)
      .sort(place ? (a, b) => (place.get(a) ?? 1e9) - (place.get(b) ?? 1e9) : (a, b) => a - b);
    const lines = new Map(entries.map((e) => [e.seat, e]));
    for (const seat of seats) {
      const t = tile(seat);
      const view = boards[seat];
      const name = names.get(seat) ?? `seat ${seat}`;
      const line = lines.get(seat);
      const status = line ? statusText(line, { phase, stuck: view.state === 'stuck' }) : '';
      const odds = view.winnable === 'yes' ? ' · winnable' : view.winnable === 'no' ? ' · not winnable' : '';
      setText(t.caption, `${name} · ${view.foundation_cards}/52 · ${score(view, view.scoring)} · ${plural(view.moves, 'move')}`
        + (status && status !== 'racing' ? ` · ${status}` : '') + odds); // odds: rooms with solver assists
      t.board.el.setAttribute('aria-label', `${name}'s table`);
      const big = bigSeat === seat;
      toggle(t.fig, 'big', big);
      t.fig.setAttribute('aria-expanded', String(big));
      t.board.setMini(!big); // the large board has full faces
      t.board.update(view, {});
    }
    const figs = seats.map((seat) => tiles.get(seat).fig);
    if (figs.some((fig, i) => el.children[i] !== fig)) el.append(...figs);
    for (const [seat, t] of tiles) {
      if (!(seat in boards)) {
        t.board.destroy();
        t.fig.remove();
        tiles.delete(seat);
      }
    }
    show(el, seats.length > 0);
    return seats.length;
  }

  return { el, render };
}
