/** Card names for people: "7H" → "7♥", "7 of hearts" ("7 de corazones"):
the words are the catalogue's (text.js), the short names the same in every
language. Presentation only. */

import { TEXT } from './text.js';

export const SUITS = ['S', 'H', 'D', 'C'];
const SUIT_SYMBOLS = { S: '♠', H: '♥', D: '♦', C: '♣' };
const RANK_SHOWN = { T: '10' };

export const isRed = (card) => card[1] === 'H' || card[1] === 'D';
const rankShown = (card) => RANK_SHOWN[card[0]] ?? card[0];

/** A suit's name: "S" → "spades" ("picas"). */
export const suitName = (suit) => TEXT.cards[suit];

/** "7 of hearts", "queen of spades", "10 of diamonds" ("7 de corazones", …). */
export function cardLabel(card) {
  return TEXT.cards.card(TEXT.cards[card[0]] ?? rankShown(card), suitName(card[1]));
}

/** "7♥", "10♦". */
export function cardShort(card) {
  return `${rankShown(card)}${SUIT_SYMBOLS[card[1]]}`;
}

/** The foundation pile of a card's suit: "7H" → "fh". */
export const foundationOf = (card) => 'f' + card[1].toLowerCase();
