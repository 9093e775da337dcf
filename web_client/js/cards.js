/** Card names for people: "7H" → "7♥", "7 of hearts". Presentation only. */

export const SUITS = ['S', 'H', 'D', 'C'];
export const SUIT_NAMES = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
export const SUIT_SYMBOLS = { S: '♠', H: '♥', D: '♦', C: '♣' };
const RANK_WORDS = { A: 'ace', T: '10', J: 'jack', Q: 'queen', K: 'king' };
const RANK_SHOWN = { T: '10' };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const isRed = (card) => card[1] === 'H' || card[1] === 'D';
export const rankShown = (card) => RANK_SHOWN[card[0]] ?? card[0];

/** "7 of hearts", "queen of spades", "10 of diamonds". */
export function cardLabel(card) {
  return `${RANK_WORDS[card[0]] ?? card[0]} of ${SUIT_NAMES[card[1]]}`;
}

/** "7♥", "10♦". */
export function cardShort(card) {
  return `${rankShown(card)}${SUIT_SYMBOLS[card[1]]}`;
}

/** The foundation pile of a card's suit: "7H" → "fh". */
export const foundationOf = (card) => 'f' + card[1].toLowerCase();

export function plural(n, one, many = one + 's') {
  return `${n} ${n === 1 ? one : many}`;
}
