/** The card faces and the back, drawn here as SVG (the project's own art).

A face is an SVG image of 250 × 350 units (the card's 1 : 1.4), used as the
background of its card element (CSS draws the paper, the border and the
rounded corners), so it is sharp at any size, from a phone to a 4K screen.

- The index, rank and suit side by side in the top strip, is what a fanned
  column or the draw-three fan shows of a card, so it is large, and the same
  on every pile.
- Number cards carry their pips in the classic layouts (the pips of the
  lower half upside down, as on printed cards); aces one large pip.
- Jacks, queens and kings are double-ended figures in a frame: a cap with a
  feather, a tiara, a crown; a staff, a flower, a sword; the robe in the
  colour of the suit, its symbol on the chest.
- The four suits are four shapes, never only two colours.

`mini` faces, for a spectator's small boards, are the index alone, larger,
over one big pip: at 30 pixels wide nothing else would read.
*/

const W = 250;
const H = 350;
const INDEX_SIZE = 64;
/** The height of the index's letters as a share of the card's width (a phone test reads it). */
export const INDEX_EM = INDEX_SIZE / W;
const INK = { S: '#15171a', C: '#15171a', H: '#c0142b', D: '#c0142b' };
const ROBE = { S: '#27408b', H: '#b3261e', D: '#b8621b', C: '#2d6a3e' };
const RANK_TEXT = { T: '10' };
// the advance of each rank in the index's font, in ems (bold sans): the suit follows it
const RANK_W = { A: 0.77, J: 0.42, Q: 0.8, K: 0.78, T: 1.1 };
const FONT = "'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif";

/** The suits, each in a 100 × 100 box. */
const SUIT_PATHS = {
  H: 'M50 90C22 68 4 51 4 31C4 16 15 6 28 6C38 6 46 12 50 22C54 12 62 6 72 6C85 6 96 16 96 31C96 51 78 68 50 90Z',
  D: 'M50 3Q68 29 89 50Q68 71 50 97Q32 71 11 50Q32 29 50 3Z',
  S: 'M50 5C63 25 94 40 94 61C94 75 84 83 72 83C63 83 57 78 53 72C54 83 58 91 67 96L33 96C42 91 46 83 47 72C43 78 37 83 '
    + '28 83C16 83 6 75 6 61C6 40 37 25 50 5Z',
  C: 'M32.9 38.4A20 20 0 1 1 67.1 38.4A20 20 0 1 1 54 68.5C54 82 58 90 66 96L34 96C42 90 46 82 46 68.5A20 20 0 1 1 32.9 38.4Z',
};

// pip layouts on a grid of 3 columns (x) and rows 0..6 (y), rows below 3 upside down
const COLS = [68, 125, 182];
const ROW0 = 124;
const ROW_STEP = 32;
const SIDES = (rows) => rows.flatMap((r) => [[0, r], [2, r]]);
const LAYOUTS = {
  2: [[1, 0], [1, 6]],
  3: [[1, 0], [1, 3], [1, 6]],
  4: SIDES([0, 6]),
  5: [...SIDES([0, 6]), [1, 3]],
  6: SIDES([0, 3, 6]),
  7: [...SIDES([0, 3, 6]), [1, 1.5]],
  8: [...SIDES([0, 3, 6]), [1, 1.5], [1, 4.5]],
  9: [...SIDES([0, 2, 4, 6]), [1, 3]],
  10: [...SIDES([0, 2, 4, 6]), [1, 1], [1, 5]],
};
const PIP = 54;

const svg = (body, { width = W, height = H } = {}) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" `
  + `width="${width}" height="${height}">${body}</svg>`;

const url = (markup) => `url("data:image/svg+xml,${encodeURIComponent(markup)}")`;

function defs(suit) {
  return `<defs><symbol id="s" viewBox="0 0 100 100"><path d="${SUIT_PATHS[suit]}"/></symbol></defs>`;
}

/** A pip of `size` centred on (x, y), upside down when `flip`. */
function pip(x, y, size, flip = false) {
  const at = `x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"`;
  return `<use href="#s" ${at}${flip ? ` transform="rotate(180 ${x} ${y})"` : ''}/>`;
}

/** The index: the rank and the suit side by side at the top left. */
function index(rank, { size = INDEX_SIZE, x = 16, top = 10 } = {}) {
  const text = RANK_TEXT[rank] ?? rank;
  const wide = text.length > 1;
  const fontSize = wide ? size * 0.86 : size;
  const textW = size * (RANK_W[rank] ?? 0.7);
  const base = top + size * 0.86;
  const suitSize = size * 0.7;
  const suitX = x + textW + size * 0.06;
  return `<text x="${x}" y="${base}" font-family="${FONT}" font-weight="700" font-size="${fontSize}"`
    + (wide ? ` textLength="${textW}" lengthAdjust="spacingAndGlyphs"` : '') + `>${text}</text>`
    + `<use href="#s" x="${suitX}" y="${base - suitSize * 0.95}" width="${suitSize}" height="${suitSize}"/>`;
}

function pips(rank) {
  const n = rank === 'A' ? 1 : RANK_TEXT[rank] ? 10 : Number(rank);
  if (n === 1) return pip(125, 218, 118);
  return LAYOUTS[n].map(([c, r]) => pip(COLS[c], ROW0 + r * ROW_STEP, PIP, r > 3)).join('');
}

const HEADGEAR = {
  // a cap with a feather
  J: '<path d="M101 131Q104 110 125 108Q146 110 149 131Z" fill="#2b2f6b"/>'
    + '<path d="M142 114Q160 92 176 96Q162 102 149 121Z" fill="#d9a400" stroke="#15171a" stroke-width="2"/>',
  // a tiara of three rounded arches with pearls
  Q: '<path d="M100 132L104 114Q112 124 116 112Q125 100 134 112Q138 124 146 114L150 132Z" fill="#e3b53b" '
    + 'stroke="#15171a" stroke-width="2.5"/><circle cx="104" cy="113" r="4" fill="#fff" stroke="#15171a"/>'
    + '<circle cx="125" cy="103" r="4.5" fill="#fff" stroke="#15171a"/><circle cx="146" cy="113" r="4" fill="#fff" stroke="#15171a"/>',
  // a crown of five points
  K: '<path d="M99 133L99 106L111 120L118 100L125 116L132 100L139 120L151 106L151 133Z" fill="#e3b53b" '
    + 'stroke="#15171a" stroke-width="2.5"/><rect x="99" y="127" width="52" height="6" fill="#b3261e"/>',
};

const ATTRIBUTE = {
  // a staff with a lozenge head
  J: '<path d="M82 214L82 140" stroke="#6b4a1e" stroke-width="5"/>'
    + '<path d="M82 124L90 138L82 152L74 138Z" fill="#c7ccd6" stroke="#15171a" stroke-width="2"/>',
  // a flower
  Q: '<path d="M84 214Q80 184 88 164" stroke="#2d6a3e" stroke-width="4" fill="none"/>'
    + '<circle cx="88" cy="158" r="11" fill="#e86a8a" stroke="#15171a" stroke-width="2"/><circle cx="88" cy="158" r="4" fill="#f6d04d"/>',
  // a sword
  K: '<path d="M166 214L166 128" stroke="#c7ccd6" stroke-width="6"/><path d="M166 128L166 120" stroke="#15171a" stroke-width="6"/>'
    + '<path d="M154 196L178 196" stroke="#6b4a1e" stroke-width="6" stroke-linecap="round"/>',
};

/** One half of a court figure (the card shows it twice, head to foot). */
function figureHalf(rank, suit) {
  const robe = ROBE[suit];
  return `${ATTRIBUTE[rank]}`
    + `<path d="M80 215L92 180Q125 162 158 180L170 215Z" fill="${robe}" stroke="#15171a" stroke-width="2.5"/>`
    + '<path d="M112 172L125 190L138 172" fill="none" stroke="#f3e3b5" stroke-width="3"/>'
    + '<circle cx="125" cy="146" r="19" fill="#f3d6b3" stroke="#15171a" stroke-width="2.5"/>'
    + '<path d="M117 150Q125 156 133 150" fill="none" stroke="#15171a" stroke-width="2"/>'
    + '<circle cx="118" cy="142" r="2.2" fill="#15171a"/><circle cx="132" cy="142" r="2.2" fill="#15171a"/>'
    + HEADGEAR[rank]
    + `<use href="#s" x="114" y="190" width="22" height="22" fill="#fff" stroke="#15171a" stroke-width="5"/>`;
}

function court(rank, suit) {
  const half = figureHalf(rank, suit);
  const grow = 'translate(125 215) scale(1.16 1.05) translate(-125 -215)';
  return '<rect x="34" y="90" width="182" height="250" rx="12" fill="#fbf4e4" stroke="currentColor" stroke-width="3"/>'
    + `<g transform="${grow}">${half}</g><g transform="rotate(180 125 215) ${grow}">${half}</g>`
    + '<path d="M38 215L212 215" stroke="currentColor" stroke-width="2"/>'
    + `${pip(54, 110, 26)}${pip(196, 320, 26, true)}`;
}

/** The SVG of a face: "7H", "KS", …; `mini` for a small board. */
export function faceSvg(card, { mini = false } = {}) {
  const rank = card[0];
  const suit = card[1];
  const ink = INK[suit];
  if (mini) {
    return svg(`${defs(suit)}<g fill="${ink}" color="${ink}">${index(rank, { size: 118, x: 12, top: 4 })}`
      + `${pip(125, 255, 130)}</g>`);
  }
  const body = 'JQK'.includes(rank) ? court(rank, suit) : pips(rank);
  return svg(`${defs(suit)}<g fill="${ink}" color="${ink}">${index(rank)}${body}</g>`);
}

/** The back: a lattice in two blues inside a white border, a spade in the middle. */
export function backSvg() {
  return svg('<defs><pattern id="p" width="22" height="22" patternUnits="userSpaceOnUse">'
    + '<rect width="22" height="22" fill="#1f4fa0"/><path d="M11 1L21 11L11 21L1 11Z" fill="#2f67c9"/>'
    + `<circle cx="11" cy="11" r="2.2" fill="#9fc0f5"/></pattern><symbol id="s" viewBox="0 0 100 100"><path d="${SUIT_PATHS.S}"/></symbol></defs>`
    + '<rect x="14" y="14" width="222" height="322" rx="14" fill="url(#p)" stroke="#fff" stroke-width="6"/>'
    + '<circle cx="125" cy="175" r="46" fill="#173d80" stroke="#ffc940" stroke-width="5"/>'
    + '<use href="#s" x="95" y="145" width="60" height="60" fill="#ffc940"/>');
}

/** An empty pile's mark: the suit of a foundation, faint, as a CSS url(). */
export function markUrl(suit) {
  return url(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="${SUIT_PATHS[suit]}" `
    + 'fill="none" stroke="#fff" stroke-opacity=".45" stroke-width="5"/></svg>');
}

const cache = new Map();

/** The CSS url() of a face (or of the back, for `null`), made once. */
export function faceUrl(card, { mini = false } = {}) {
  const key = `${card ?? 'back'}${mini ? '~' : ''}`;
  let value = cache.get(key);
  if (!value) {
    value = url(card ? faceSvg(card, { mini }) : backSvg());
    cache.set(key, value);
  }
  return value;
}
