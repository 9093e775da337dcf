/** "How to play" in English: the page a player opens with Rules (views/howto.js
draws it). Its text is Markdown of the subset markdown.js reads; a paragraph
that is only `{{table}}` or `{{building}}` is replaced by that diagram of the
table, drawn with the game's own card faces and labelled with `labels`.

A translation is a file like this one beside it (`es.js`, …) with the same
names and the same two diagrams, listed in howto/index.js. Card codes in
`labels` stay as they are (`7H`): the diagrams draw them.
*/

export default {
  lang: 'en',
  title: 'How to play',
  back: 'How to play', // the button that goes back from the rule book
  ruleBook: 'The full rule book',
  labels: {
    tableFigure: 'The table at the start of a game: the stock and the waste at the top left, '
      + 'the four foundations at the top right, the seven columns below.',
    stock: 'Stock',
    waste: 'Waste',
    foundations: 'Foundations',
    columns: 'Columns 1 to 7',
    buildingFigure: 'Building: a column goes down in alternating colours, from a king; '
      + 'a foundation goes up in one suit, from the ace.',
    column: 'A column: down, red on black, black on red',
    foundation: 'A foundation: up, one suit',
  },
  text: `Klondike is the classic patience with seven columns. Klondike Race plays it as a race:
everyone in a room gets the same deal at the same moment, and the first to put all 52 cards
home wins.

## The deal

{{table}}

- **The columns**: 28 cards dealt in seven columns, one card in the first up to seven in the
  last. Only the bottom card of each column lies face up.
- **The stock**: the other 24 cards, face down, top left. The **waste** beside it takes the
  cards you draw, face up.
- **The foundations**: four empty piles, top right, one per suit.

## The moves

{{building}}

- **Home**: each foundation is built **up in one suit**, ace first, then 2, 3 and so on to the
  king. A card goes home from the top of the waste or from the bottom of a column.
- **On the columns**: a card goes on a card **one rank higher of the other colour**: a red 7
  on a black 8, a black queen on a red king.
- **Several cards at once**: any face-up card of a column moves together with the cards lying
  on it; only that first card has to fit.
- **An empty column** takes a king only (alone, or leading a run of cards).
- **Turning up**: when a move uncovers a face-down card at the bottom of a column, it turns
  face up by itself.
- A card on a foundation may come back down onto a column when it fits there.

## The stock and passes

- **Draw one**: each tap on the stock turns one card onto the waste. **Draw three**: three
  cards at a time, and only the top one of the three can be played.
- When the stock is empty, a tap turns the whole waste over to make the stock again: one more
  **pass**. In **Normal** scoring you may go through the stock as often as you like; in
  **Vegas** only once.
- No move left at all? The game is **stuck**: undo (if the room allows it), or resign.

## Scoring

Each card scores the first time it reaches its foundation; taking it back and putting it home
again scores nothing more.

| Normal (points, never below 0) | |
|---|---|
| a card home | +10 |
| a card from the waste onto a column | +5 |
| a face-down card turned up | +5 |
| a new pass through the stock | −100 |

**Vegas** (dollars): the game starts at **−$52**, as if you had paid $52 for the deal, and
each card home earns **+$5**. A won game ends at **+$208**; the figure turns positive with the
11th card home.

**In a race** the finishers come first, fastest first; everyone else is ranked by Vegas
dollars, then by cards home, then by fewer moves. The deal's code stays secret until the race
is over; then you may play the same deal again alone.

## Buttons and keys

- **Tap** a card: it goes home if it can, else to the one place it fits; if it fits in
  several places it is picked up and those places light up: tap one. **Double tap**: onto a
  column. Or **drag** it where you want.
- **Undo** takes back your last move, **Hint** shows a good move (press it again to play it),
  **Complete** finishes a game whose cards are all face up. **Resign** gives up the game.
- In a solo game, **New deal** deals again. The room chooses whether undo and hints are
  allowed.

| key | what it does |
|---|---|
| ← → | move between the piles |
| 1 – 7 | go to a column |
| Enter | pick up, then put down |
| ↑ ↓ | choose how many cards of a column to take |
| Space | draw from the stock |
| U · H · F | undo · hint · complete |
| N | new deal (solo) |
| Esc | put the cards back, close a window |
`,
};
