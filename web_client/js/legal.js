/** Look-ups in the server's list of legal moves (docs/rules.md notation).

The client decides nothing about the rules: a move is possible exactly when
its notation is in `view.legal`. Piles are named as in the notation:
"stock", "w" (waste), "fs" "fh" "fd" "fc" (foundations), "t1" … "t7";
a target "f" means "the foundation of the moving card's suit".
*/

const cache = new Map();

/** "t2:3>t5" → {m, from: "t2", count: 3, to: "t5"}; draw and recycle too. */
export function parse(m) {
  let move = cache.get(m);
  if (move) return move;
  if (m === 'draw') move = { m, from: 'stock', count: 1, to: 'w', stock: true };
  else if (m === 'recycle') move = { m, from: 'w', count: 1, to: 'stock', stock: true };
  else {
    const [source, to] = m.split('>');
    const [from, n] = source.split(':');
    move = { m, from, count: n ? Number(n) : 1, to, stock: false };
  }
  cache.set(m, move);
  return move;
}

/** The notation of moving `count` cards from `from` onto `to`. */
export function notation(from, count, to) {
  return `${from}${count > 1 ? ':' + count : ''}>${to}`;
}

/** Card moves (not draw/recycle) that take `count` cards from `from`. */
export function movesFrom(legal, from, count) {
  return (legal || []).map(parse).filter((x) => !x.stock && x.from === from && x.count === count);
}

/** The legal notation for this move, or null. */
export function find(legal, from, count, to) {
  const m = notation(from, count, to);
  return legal && legal.includes(m) ? m : null;
}

/** The stock action the server allows now: "draw", "recycle" or null. */
export function stockMove(legal) {
  if (!legal) return null;
  if (legal.includes('draw')) return 'draw';
  if (legal.includes('recycle')) return 'recycle';
  return null;
}
