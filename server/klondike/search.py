"""The solver's search: depth first over a compact position, with a
transposition table on classes of equivalent positions, forced safe
foundation moves, stock macros, and moves pruned only where a winning line is
sure to remain. docs/engine.md ("The solver") says why each rule is sound.

The position is plain lists of ints, changed in place and restored on the way
back (no copies in the inner loop):

- ``cols[i]``: column ``i``, deepest card first, its first ``down[i]`` cards
  face down; ``cols[i][down[i]]`` is the column's *head*;
- ``found[s]``: how many cards the foundation of suit ``s`` holds;
- ``talon``: the waste and the stock as one list in drawing order (the
  waste's bottom card first, the stock's top card after the waste's top), and
  ``p`` the number of waste cards: ``talon[p - 1]`` is the waste's top card;
- ``where[c]``: ``column << 5 | index`` of a face-up tableau card, else −1.

The table holds one key per class: the face-down cards and the head of each
column (in any order of the columns), the foundations and the talon. Which of
two *twins* (cards of the same rank and colour) a run lies on does not count:
positions that differ only there can play the same games (one move of the run
onto the other twin turns one into the other whenever it matters).

A move is a *step*, one int packing its kind and its fields (:func:`step`;
the compiled build keeps such ints unboxed, where a tuple is an allocation),
read back as a tuple by :func:`step_tuple`, whose first item is its kind and
whose last is the card it moves:

- ``(CF, s, c)``                the bottom card of column ``s`` to its foundation;
- ``(UF, s, i, t, n, c)``       the run of ``n`` cards at index ``i`` of column ``s``
  onto column ``t`` (onto the twin of the card under it), then that card
  (``cols[s][i - 1]``, ``c`` here) to its foundation;
- ``(CC, s, i, t, n, c)``       the ``n`` cards of column ``s`` from its head (index
  ``i``) onto column ``t``;
- ``(TF, i, c)``                talon card ``i`` to its foundation, after the draws
  (and recycles) that bring it to the waste's top: a *stock macro*;
- ``(TC, i, t, c)``             talon card ``i`` onto column ``t``, the same way;
- ``(FC, s, t, c)``             the top card of foundation ``s`` onto column ``t``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from .cards import RANK, RED, SUIT
from .relax import hopeless

CF: Final = 0
UF: Final = 1
CC: Final = 2
TF: Final = 3
TC: Final = 4
FC: Final = 5

SearchStep = tuple[int, ...]

#: a step's fields: kind (bits 0-2), ``s`` (3-5: a column or a suit), ``i``
#: (8-12: an index in a column or the talon), ``t`` (13-15), ``n`` (16-20),
#: the card (21-26); a line's entry adds what undoes it (27 up)
_INFO: Final = 27
_STEP: Final = (1 << _INFO) - 1


def step(kind: int, s: int, i: int, t: int, n: int, c: int) -> int:
    """One step as an int (the fields a kind does not use are 0)."""
    return kind | s << 3 | i << 8 | t << 13 | n << 16 | c << 21


def step_tuple(m: int) -> SearchStep:
    """A step as the tuple of the module's docstring."""
    kind, s, i, t, n, c = m & 7, m >> 3 & 7, m >> 8 & 31, m >> 13 & 7, m >> 16 & 31, m >> 21 & 63
    if kind == CF:
        return (CF, s, c)
    if kind in (UF, CC):
        return (kind, s, i, t, n, c)
    if kind == TF:
        return (TF, i, c)
    if kind == TC:
        return (TC, i, t, c)
    return (FC, s, t, c)

_R0: Final = tuple(r - 1 for r in RANK)  # 0 for an ace … 12 for a king
_KINGS: Final = tuple(s * 13 + 12 for s in range(4))
#: the two cards ``c`` may lie on in a column: one rank higher, the other colour
_PARENTS: Final = tuple(
    tuple(x for x in range(52) if RED[x] != RED[c] and _R0[x] == _R0[c] + 1) for c in range(52)
)
#: the two cards that may lie on ``c``
_CHILDREN: Final = tuple(
    tuple(x for x in range(52) if RED[x] != RED[c] and _R0[x] + 1 == _R0[c]) for c in range(52)
)
#: the other card of the same rank and colour
_TWIN: Final = tuple(
    next(x for x in range(52) if x != c and _R0[x] == _R0[c] and RED[x] == RED[c])
    for c in range(52)
)
#: the two suits of the other colour, and the other suit of the same colour
_OPPOSITE: Final = tuple((1, 2) if not RED[c] else (0, 3) for c in range(52))
_SAME_OTHER: Final = tuple((3, 2, 1, 0)[SUIT[c]] for c in range(52))

CHECK_EVERY: Final = 256  # nodes between two looks at the clock
#: Positions searched before each new one is also tried with the relaxation
#: (:mod:`.relax`): most winnable deals are won before, where it costs more
#: than it saves.
RELAX_AFTER: Final = 300
#: The moves after which the relaxation is worth asking: those that cover a
#: card or (in a single pass) bury talon cards. After a card goes home, or
#: comes back from its foundation, it almost never finds anything.
_RELAX_AFTER_KIND: Final = (False, False, True, True, True, False)


class BudgetSpent(Exception):
    """The search ran out of nodes or time before it could answer."""


class Search:
    """One search from one position: :meth:`run` answers once.

    ``max_nodes`` bounds the positions visited, ``deadline`` (a value of
    ``clock``) the time; :meth:`run` raises :class:`BudgetSpent` when either
    runs out.

    With ``progress=True`` the goal is not the win but the first move that
    turns a card face up or puts a card home whose bit is not set in
    ``credited`` (see :mod:`.progress`): every rule of the search keeps such a
    move within reach as it keeps the win, and the search stops at it, so
    which face-down card it would turn up never counts.
    """

    def __init__(self, cols: list[list[int]], down: list[int], found: list[int],
                 talon: list[int], p: int, *, draw: int, recycle: bool,
                 max_nodes: int | None = None, deadline: float | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 progress: bool = False, credited: int = 0) -> None:
        self.cols = [list(c) for c in cols]
        self.down = list(down)
        self.found = list(found)
        self.talon = list(talon)
        self.p = p
        self.draw = draw
        self.recycle = recycle
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.clock = clock
        self.nodes = 0
        self.dead = 0
        self.relax_after = RELAX_AFTER
        self.progress = progress
        self.credited = credited
        self.where = [-1] * 52
        for i, col in enumerate(self.cols):
            for j in range(self.down[i], len(col)):
                self.where[col[j]] = i << 5 | j
        self.ckey = [self._colkey(i) for i in range(7)]
        self.tkey = self._talon_key()
        self.seen: set[bytes] = set()
        #: the steps played from the start, each with what undoes it
        #: (``step | info << 27``)
        self.line: list[int] = []

    # ------------------------------------------------------------------ keys

    def _colkey(self, i: int) -> bytes:
        """A column's part of the key: its face-down cards and its head."""
        d = self.down[i]
        return bytes((d, *self.cols[i][:d + 1]))

    def _talon_key(self) -> bytes:
        """What the stock moves can still reach. Draw one with recycles reaches
        every card from anywhere, so where the waste ends does not count; draw
        three with recycles reaches the same cards from every position a recycle
        leads to (a multiple of three, or the end), which count as one."""
        p, n = self.p, len(self.talon)
        if self.recycle and (self.draw == 1 or p % self.draw == 0 or p == n):
            p = 255
        return bytes((p, *self.talon))

    def key(self) -> bytes:
        """The class of the position (see the module's docstring)."""
        return b"".join(sorted(self.ckey)) + bytes(self.found) + self.tkey

    # ------------------------------------------------------------------ the talon

    def reachable(self) -> dict[int, int]:
        """The talon cards that stock moves alone bring to the waste's top,
        with their index in ``talon``."""
        talon, p, n = self.talon, self.p, len(self.talon)
        if not n:
            return {}
        if self.draw == 1 and self.recycle:
            return {c: i for i, c in enumerate(talon)}
        out: dict[int, int] = {}
        if p:
            out[talon[p - 1]] = p - 1
        d = self.draw
        k = p
        while k < n:
            k = min(k + d, n)
            out[talon[k - 1]] = k - 1
        if self.recycle:  # draw three: after a recycle
            k = 0
            while k < n:
                k = min(k + d, n)
                out[talon[k - 1]] = k - 1
        return out

    # ------------------------------------------------------------------ questions

    def safe(self, c: int) -> bool:
        """``c`` (next on its foundation) can go up now without losing a win:
        an ace or a two, or both foundations of the other colour hold its rank
        minus one and the other of its colour its rank minus two."""
        r = _R0[c]
        if r <= 1:
            return True
        found = self.found
        o1, o2 = _OPPOSITE[c]
        return found[o1] >= r and found[o2] >= r and found[_SAME_OTHER[c]] >= r - 1

    def _bottom(self, c: int) -> int:
        """The column whose bottom card is ``c``, or −1."""
        w = self.where[c]
        if w >= 0 and (w & 31) == len(self.cols[w >> 5]) - 1:
            return w >> 5
        return -1

    def _home(self, c: int) -> int:
        """The step that puts ``c`` (face up in a column, next on its
        foundation) home: from the bottom, or after moving the run on it onto
        its twin when the twin is a bottom; −1 when there is none."""
        w = self.where[c]
        s, i = w >> 5, w & 31
        col = self.cols[s]
        if i == len(col) - 1:
            return step(CF, s, 0, 0, 0, c)
        t = self._bottom(_TWIN[c])
        if t < 0:
            return -1
        return step(UF, s, i + 1, t, len(col) - i - 1, c)

    # ------------------------------------------------------------------ doing and undoing

    def do(self, m: int) -> int:
        """Play step ``m``; return what :meth:`undo` needs: 1 if a card turned
        face up, or for a stock macro the number of waste cards before it."""
        kind = m & 7
        c = m >> 21 & 63
        if kind == CC:
            return self._move_run(m >> 3 & 7, m >> 8 & 31, m >> 13 & 7)
        if kind == CF:
            return self._to_foundation(m >> 3 & 7, c)
        if kind == UF:
            self._move_run(m >> 3 & 7, m >> 8 & 31, m >> 13 & 7)
            return self._to_foundation(m >> 3 & 7, c)
        cols, down, where = self.cols, self.down, self.where
        t = m >> 13 & 7
        if kind == FC:
            self.found[m >> 3 & 7] -= 1
            dst = cols[t]
            where[c] = t << 5 | len(dst)
            dst.append(c)
            if len(dst) == down[t] + 1:
                self.ckey[t] = bytes((down[t], *dst))
            return 0
        # TF, TC
        old = self.p
        i = m >> 8 & 31
        del self.talon[i]
        self.p = i
        self.tkey = self._talon_key()
        if kind == TF:
            self.found[c // 13] += 1
        else:
            dst = cols[t]
            where[c] = t << 5 | len(dst)
            dst.append(c)
            if len(dst) == down[t] + 1:
                self.ckey[t] = bytes((down[t], *dst))
        return old

    def _move_run(self, s: int, i: int, t: int) -> int:
        cols, down, where = self.cols, self.down, self.where
        src, dst = cols[s], cols[t]
        head = i == down[s]
        run = src[i:]
        del src[i:]
        tt = t << 5
        for k, c in enumerate(run, len(dst)):
            where[c] = tt | k
        dst.extend(run)
        flipped = 0
        if src and len(src) == down[s]:
            down[s] -= 1
            where[src[-1]] = s << 5 | (len(src) - 1)
            flipped = 1
        if head:  # a new head, maybe a card turned up, maybe an empty column
            self.ckey[s] = bytes((down[s], *src[:down[s] + 1]))
        if len(dst) == len(run):  # onto an empty column: a new head
            self.ckey[t] = bytes((0, run[0]))
        return flipped

    def _unmove_run(self, s: int, t: int, n: int, flipped: int) -> None:
        cols, down, where = self.cols, self.down, self.where
        src, dst = cols[s], cols[t]
        if flipped:
            where[src[-1]] = -1
            down[s] += 1
        run = dst[-n:]
        del dst[-n:]
        ss = s << 5
        for k, c in enumerate(run, len(src)):
            where[c] = ss | k
        i = len(src)
        src.extend(run)
        if i <= down[s]:
            self.ckey[s] = bytes((down[s], *src[:down[s] + 1]))
        if not dst:
            self.ckey[t] = b"\x00"

    def _to_foundation(self, s: int, c: int) -> int:
        cols, down, where = self.cols, self.down, self.where
        src = cols[s]
        src.pop()
        where[c] = -1
        self.found[c // 13] += 1
        flipped = 0
        if src and len(src) == down[s]:
            down[s] -= 1
            where[src[-1]] = s << 5 | (len(src) - 1)
            flipped = 1
        if len(src) <= down[s] + 1:
            self.ckey[s] = bytes((down[s], *src))
        return flipped

    def _from_foundation(self, s: int, c: int, flipped: int) -> None:
        cols, down, where = self.cols, self.down, self.where
        src = cols[s]
        if flipped:
            where[src[-1]] = -1
            down[s] += 1
        self.found[c // 13] -= 1
        where[c] = s << 5 | len(src)
        src.append(c)
        if len(src) <= down[s] + 1:
            self.ckey[s] = bytes((down[s], *src))

    def undo(self, m: int, info: int) -> None:
        kind = m & 7
        c = m >> 21 & 63
        if kind == CC:
            self._unmove_run(m >> 3 & 7, m >> 13 & 7, m >> 16 & 31, info)
            return
        if kind == CF:
            self._from_foundation(m >> 3 & 7, c, info)
            return
        if kind == UF:
            self._from_foundation(m >> 3 & 7, c, info)
            self._unmove_run(m >> 3 & 7, m >> 13 & 7, m >> 16 & 31, 0)
            return
        cols, down, where = self.cols, self.down, self.where
        t = m >> 13 & 7
        if kind == FC:
            dst = cols[t]
            dst.pop()
            where[c] = -1
            self.found[m >> 3 & 7] += 1
            if len(dst) == down[t]:
                self.ckey[t] = bytes((down[t], *dst))
            return
        if kind == TF:
            self.found[c // 13] -= 1
        else:
            dst = cols[t]
            dst.pop()
            where[c] = -1
            if len(dst) == down[t]:
                self.ckey[t] = bytes((down[t], *dst))
        self.talon.insert(m >> 8 & 31, c)
        self.p = info
        self.tkey = self._talon_key()

    # ------------------------------------------------------------------ the search

    def run(self) -> bool:
        """``True`` with :attr:`line` holding a win, ``False`` when no line from
        here wins; raises :class:`BudgetSpent`."""
        return self._dfs(-1)

    def steps(self) -> list[SearchStep]:
        """The steps of :attr:`line`, as tuples."""
        return [step_tuple(entry & _STEP) for entry in self.line]

    def _dfs(self, last: int) -> bool:
        """``last``: the line's entry of the step that led here, −1 at the root."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check_budget()
        line = self.line
        mark = len(line)
        if self._forced() or (not self.progress and self._sure_win()):
            if not self.progress:
                self._finish()
            return True
        key = b"".join(sorted(self.ckey)) + bytes(self.found) + self.tkey
        seen = self.seen
        if key in seen:
            self._unwind(mark)
            return False
        seen.add(key)
        if not self.progress and (last < 0 or (
                self.nodes > self.relax_after and _RELAX_AFTER_KIND[last & 7]
                and ((last & 7) != TF or not self.recycle))) and hopeless(
                self.cols, self.down, self.talon, self.p, recycle=self.recycle):
            self.dead += 1
            self._unwind(mark)
            return False
        if len(line) > mark:
            last = line[-1]
        for m in self._moves(last):
            info = self.do(m)
            entry = m | info << _INFO
            line.append(entry)
            if (self.progress and self._event(m, info)) or self._dfs(entry):
                return True
            line.pop()
            self.undo(m, info)
        self._unwind(mark)
        return False

    def _check_budget(self) -> None:
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise BudgetSpent
        if self.deadline is not None and self.clock() > self.deadline:
            raise BudgetSpent

    def _unwind(self, mark: int) -> None:
        line = self.line
        while len(line) > mark:
            entry = line.pop()
            self.undo(entry & _STEP, entry >> _INFO)

    def _event(self, m: int, info: int) -> bool:
        """Step ``m`` (just played, ``info`` what :meth:`do` returned) turned a
        card face up or put home a card not credited yet."""
        kind = m & 7
        if kind == CC:
            return info != 0
        if kind in (CF, UF, TF):
            return (info != 0 and kind != TF) or not self.credited >> (m >> 21 & 63) & 1
        return False

    def _forced(self) -> bool:
        """Play every safe foundation move there is: where one exists no other
        move needs trying. ``True`` if one was the goal of a progress search."""
        found, where = self.found, self.where
        talon_ok = self.draw == 1
        again = True
        while again:
            again = False
            for suit in range(4):
                f = found[suit]
                if f == 13:
                    continue
                c = suit * 13 + f
                if not self.safe(c):
                    continue
                m = -1
                if where[c] >= 0:
                    m = self._home(c)
                elif talon_ok and c in self.talon:
                    i = self.talon.index(c)
                    if self.recycle or i == self.p - 1:
                        m = step(TF, 0, i, 0, 0, c)
                if m >= 0:
                    info = self.do(m)
                    self.line.append(m | info << _INFO)
                    if self.progress and self._event(m, info):
                        return True
                    again = True
        return False

    def _sure_win(self) -> bool:
        """Every tableau card face up, and every talon card reachable whenever
        needed: the lowest card not home can then always go home."""
        return (not any(self.down)
                and (len(self.talon) <= 1 or (self.draw == 1 and self.recycle)))

    def _finish(self) -> None:
        """Play the win out. The lowest card not home is a column's bottom
        (every card on it would be lower) or a reachable talon card."""
        found, where = self.found, self.where
        while sum(found) < 52:
            suit = min((s for s in range(4) if found[s] < 13), key=found.__getitem__)
            c = suit * 13 + found[suit]
            if where[c] >= 0:
                m = step(CF, where[c] >> 5, 0, 0, 0, c)
            else:
                m = step(TF, 0, self.reachable()[c], 0, 0, c)
            self.line.append(m | self.do(m) << _INFO)

    def _target(self, c: int, empty: int) -> int:
        """A column ``c`` can go onto: the bottom of either card it fits (the
        two give equivalent positions), or for a king an empty column; −1."""
        if _R0[c] == 12:
            return empty
        a, b = _PARENTS[c]
        t = self._bottom(a)
        return t if t >= 0 else self._bottom(b)

    def _moves(self, last: int) -> list[int]:
        """The steps worth trying here, most promising first; ``last`` as
        :meth:`_dfs` has it."""
        cols, down, found, where = self.cols, self.down, self.found, self.where
        reach = self.reachable()
        empty = -1
        for t in range(7):
            if not cols[t]:
                empty = t
                break
        # the moves that turn a card up, by priority (then in the order found):
        # ``priority << 40 | (63 - order) << 32 | step``, sorted high to low
        flips: list[int] = []
        home: list[int] = []
        talon: list[int] = []
        shifts: list[int] = []
        backs: list[int] = []
        # to the foundations (the safe moves were forced already)
        for suit in range(4):
            f = found[suit]
            if f == 13:
                continue
            c = suit * 13 + f
            if where[c] >= 0:
                m = self._home(c)
                if m >= 0:
                    s = m >> 3 & 7
                    if m & 7 == CF and down[s] and down[s] == len(cols[s]) - 1:
                        flips.append((100 + down[s]) << 40 | (63 - len(flips)) << 32 | m)
                    else:
                        home.append(m)
            elif c in reach:
                home.append(step(TF, 0, reach[c], 0, 0, c))
        # the heads of the columns
        king_ok: bool | None = None
        for s in range(7):
            col = cols[s]
            if not col:
                continue
            i = down[s]
            c = col[i]
            if i == 0 and _R0[c] == 12:
                continue  # a king already at the top of its column
            t = self._target(c, empty)
            if t < 0:
                continue
            if i:
                flips.append(i << 40 | (63 - len(flips)) << 32 | step(CC, s, i, t, len(col) - i, c))
            else:  # empties the column: only worth it for a king to fill it
                if king_ok is None:
                    king_ok = self._king_waits(reach)
                if king_ok:
                    shifts.append(step(CC, s, 0, t, len(col), c))
        # the talon
        restrict = self.draw == 1 and self.recycle
        for c, i in reach.items():
            t = self._target(c, empty)
            if t >= 0 and (not restrict or self._child_waits(c, reach)):
                talon.append(step(TC, 0, i, t, 0, c))
        # the foundations' top cards back to a column: only for a card to go on
        # it, or for the card under it to come back too
        for suit in range(4):
            f = found[suit]
            if f:
                c = suit * 13 + f - 1
                if not self.safe(c):
                    t = self._target(c, empty)
                    if t >= 0 and (self._child_waits(c, reach)
                                   or (f > 1 and self._target(c - 1, empty) >= 0)):
                        backs.append(step(FC, suit, 0, t, 0, c))
        flips.sort(reverse=True)
        out = [m & _STEP for m in flips]
        out += home
        out += talon
        out += shifts
        out += backs
        if last >= 0 and not last >> _INFO:  # a card home and straight back, or back and home
            kind, card = last & 7, last >> 21 & 63
            if kind == CF:
                out = [m for m in out if not (m & 7 == FC and m >> 21 & 63 == card)]
            elif kind == FC:
                out = [m for m in out if not ((m & 7 == CF or m & 7 == UF) and m >> 21 & 63 == card)]
        return out

    def _king_waits(self, reach: dict[int, int]) -> bool:
        """A king could fill an empty column: a head above face-down cards, a
        reachable talon card, or a foundation's top card."""
        where, down = self.where, self.down
        for c in _KINGS:
            w = where[c]
            if w >= 0:
                if (w & 31) and (w & 31) == down[w >> 5]:
                    return True
            elif c in reach or (self.found[c // 13] == 13 and not self.safe(c)):
                return True
        return False

    def _child_waits(self, c: int, reach: dict[int, int]) -> bool:
        """A card that could go on ``c`` once it lies in a column can move there
        right after: a column's head, another reachable talon card, or a
        foundation's top card."""
        where, down = self.where, self.down
        for x in _CHILDREN[c]:
            w = where[x]
            if w >= 0:
                if (w & 31) == down[w >> 5]:
                    return True
            elif (x in reach and x != c) or (self.found[x // 13] == _R0[x] + 1 and not self.safe(x)):
                return True
        return False

