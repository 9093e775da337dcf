"""A quick proof that a position is lost: an optimistic relaxation.

:func:`hopeless` asks, of every card, whether it could *ever* reach its
foundation if every obstacle but the most basic ones were waived: talon cards
count as reachable whenever wanted (in a single pass, a waste card only once
the card above it has left the talon), foundation cards may come back at any
time, and nothing is ever in another card's way twice. What it keeps are
necessary conditions:

- a face-down card is uncovered only if the card lying on it moves (as the
  head of a run);
- a face-up card becomes a column's bottom card only if the card on it leaves:
  to its foundation, or onto the twin of the card it lies on (the other card
  of the same rank and colour), which must be a bottom card then;
- a card goes to its foundation only after the card below it in its suit, and
  from a column only as a bottom card;
- a card moves onto a column only onto a bottom card one rank higher of the
  other colour, or, a king, into an empty column; a column is emptied only if
  its deepest card moves (a king there only by going home).

The facts are propagated to a fixed point. A winning line satisfies every one
of them the first time each card moves, so a card the fixed point leaves
unable to go home means that no line wins: the position is lost. The converse
does not hold (the relaxation ignores that two cards may need one place at
once), which is why the search still runs.

Sets of cards are 52-bit ints (bit ``c`` for card ``c``, 13 bits per suit), so
the rules that follow suits and ranks are a few shifts each.
"""

from __future__ import annotations

from typing import Final

from .cards import RANK, RED

_M13: Final = (1 << 13) - 1
_ALL: Final = (1 << 52) - 1
_KINGS: Final = 1 << 12 | 1 << 25 | 1 << 38 | 1 << 51
_BIT: Final = tuple(1 << c for c in range(52))
_TWIN_BIT: Final = tuple(
    1 << next(x for x in range(52) if x != c and RANK[x] == RANK[c] and RED[x] == RED[c])
    for c in range(52)
)


def hopeless(cols: list[list[int]], down: list[int], talon: list[int], p: int, *,
             recycle: bool) -> bool:
    """``True`` when the relaxation proves that some card can never go home.

    The arguments are the search's position (see :mod:`.search`; the
    foundations hold the cards found nowhere else).
    """
    bit, twin_bit = _BIT, _TWIN_BIT
    # face-up cards: the card on it, the card, the card's twin; face-down
    # cards: the card on it, the card; each bottom up, as parallel lists of
    # bits (plain ints, which the compiled build keeps unboxed)
    up_above: list[int] = []
    up_card: list[int] = []
    up_twin: list[int] = []
    down_above: list[int] = []
    down_card: list[int] = []
    tableau = bottoms = exposed = 0
    deepest: list[int] = []
    empty = False
    for s in range(7):
        col = cols[s]
        if not col:
            empty = True
            continue
        d = down[s]
        deepest.append(bit[col[0]])
        for i in range(len(col) - 2, -1, -1):
            if i >= d:
                c = col[i]
                up_above.append(bit[col[i + 1]])
                up_card.append(bit[c])
                up_twin.append(twin_bit[c])
            else:
                down_above.append(bit[col[i + 1]])
                down_card.append(bit[col[i]])
        bottoms |= bit[col[-1]]
        for i, c in enumerate(col):
            tableau |= bit[c]
            if i >= d:
                exposed |= bit[c]
    in_talon = 0
    for c in talon:
        in_talon |= bit[c]
    reach = in_talon
    # in a single pass: each waste card under the top one, and the card above it
    buried_above: list[int] = []
    buried_card: list[int] = []
    if not recycle and p > 1:
        for j in range(p - 1):
            buried_above.append(bit[talon[j + 1]])
            buried_card.append(bit[talon[j]])
            reach &= ~bit[talon[j]]
    home = _ALL & ~tableau & ~in_talon
    H = home  # can go home
    B = bottoms  # can be a column's bottom card
    M = 0  # a tableau card that can move as the head of a run
    n_up = len(up_card)
    n_down = len(down_card)
    n_buried = len(buried_card)
    while True:
        before = (H, B, M, reach, empty)
        # talon cards placed and foundation cards brought back, rank after rank
        # down from the kings: a card can be placed if a card one rank higher of
        # the other colour can be a bottom card
        placeable = reach | home
        red_p = ((placeable >> 13) | (placeable >> 26)) & _M13
        black_p = (placeable | (placeable >> 39)) & _M13
        red_b = ((B >> 13) | (B >> 26)) & _M13
        black_b = (B | (B >> 39)) & _M13
        king = 1 << 12 if empty else 0
        while True:
            r = red_b | (red_p & ((black_b >> 1) | king))
            k = black_b | (black_p & ((red_b >> 1) | king))
            if r == red_b and k == black_b:
                break
            red_b, black_b = r, k
        onto_red = (black_b >> 1) | king
        onto_black = (red_b >> 1) | king
        onto = onto_black | onto_black << 39 | onto_red << 13 | onto_red << 26
        B |= placeable & onto
        # a pair whose card is settled (a bottom card, or uncovered) is dropped
        if n_up:  # face up: the card on it leaves, home or onto the twin
            k = 0
            for j in range(n_up):
                c = up_card[j]
                if H & up_above[j] or B & up_twin[j]:
                    B |= c
                elif not B & c:  # kept: compacted in place
                    up_above[k] = up_above[j]
                    up_card[k] = c
                    up_twin[k] = up_twin[j]
                    k += 1
            n_up = k
        if n_down and M:  # face down: uncovered when the card on it moves
            k = 0
            ho = H | onto
            for j in range(n_down):
                c = down_card[j]
                if M & down_above[j]:
                    B |= c
                    exposed |= c
                    if ho & c:
                        M |= c
                else:
                    down_above[k] = down_above[j]
                    down_card[k] = c
                    k += 1
            n_down = k
        # each suit's home cards are a prefix: extend it
        hc = H | (B & tableau) | reach
        x = hc & _M13
        home_now = ((x + 1) & ~x) - 1
        x = (hc >> 13) & _M13
        home_now |= (((x + 1) & ~x) - 1) << 13
        x = (hc >> 26) & _M13
        home_now |= (((x + 1) & ~x) - 1) << 26
        x = hc >> 39
        home_now |= (((x + 1) & ~x) - 1) << 39
        H = home_now
        if H == _ALL:  # the fixed point can only hold more
            return False
        # cards that can move as a run's head: onto a bottom card, or home
        red = ((B >> 13) | (B >> 26)) & _M13
        black = (B | (B >> 39)) & _M13
        onto_b = ((red >> 1) * (1 | 1 << 39)) | ((black >> 1) * (1 << 13 | 1 << 26))
        if empty:
            onto_b |= _KINGS
        M = exposed & tableau & (H | onto_b)
        if not empty:
            for c in deepest:
                if H & c or (M & c and not c & _KINGS):
                    empty = True
                    break
        if n_buried:
            hb = H | B
            for j in range(n_buried):
                if buried_above[j] & hb:
                    reach |= buried_card[j]
        if (H, B, M, reach, empty) == before:
            return True
