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
    # face-up cards: (card on it, card, the card's twin); face-down cards:
    # (card on it, card); each bottom up
    ups: list[tuple[int, int, int]] = []
    downs: list[tuple[int, int]] = []
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
                ups.append((bit[col[i + 1]], bit[c], twin_bit[c]))
            else:
                downs.append((bit[col[i + 1]], bit[col[i]]))
        bottoms |= bit[col[-1]]
        for i, c in enumerate(col):
            tableau |= bit[c]
            if i >= d:
                exposed |= bit[c]
    in_talon = 0
    for c in talon:
        in_talon |= bit[c]
    reach = in_talon
    buried: list[tuple[int, int]] = []  # (card above, buried card) in a single pass
    if not recycle and p > 1:
        for j in range(p - 1):
            buried.append((bit[talon[j + 1]], bit[talon[j]]))
            reach &= ~bit[talon[j]]
    home = _ALL & ~tableau & ~in_talon
    H = home  # can go home
    B = bottoms  # can be a column's bottom card
    M = 0  # a tableau card that can move as the head of a run
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
        if ups:  # face up: the card on it leaves, home or onto the twin
            left = []
            for pair in ups:
                above, c, tw = pair
                if H & above or B & tw:
                    B |= c
                elif not B & c:
                    left.append(pair)
            ups = left
        if downs and M:  # face down: uncovered when the card on it moves
            left2 = []
            ho = H | onto
            for under in downs:
                above, c = under
                if M & above:
                    B |= c
                    exposed |= c
                    if ho & c:
                        M |= c
                else:
                    left2.append(under)
            downs = left2
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
        if buried:
            hb = H | B
            for above, c in buried:
                if above & hb:
                    reach |= c
        if (H, B, M, reach, empty) == before:
            return True
