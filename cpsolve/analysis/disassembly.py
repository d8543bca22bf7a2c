"""Can an assembly be taken apart by sliding pieces, and how hard is it? (BurrTools' disassembler, rewritten)

An assembly is a *solution* of an interlocking puzzle only when it comes apart. The rules are the
ones of Andreas Röver's BurrTools (https://github.com/burr-tools/burr-tools, GPL; this is an
independent implementation of its documented behaviour, not a copy of its code), which follow Bill
Cutler's analysis of six-piece burrs ("Computer Analysis of All 6 Piece Burrs", 1994):

- A **move** translates one piece, or a set of pieces together, along +x, -x, +y, -y, +z or -z by
  one or more units, every piece of the set by the same amount, without any two pieces overlapping
  at any point of the way. Pieces that move the same way by the same amount count as one move even
  when they are not touching, and shifting a set is the same move as shifting the rest the other
  way: a state is the pieces' positions relative to the first piece. Rotations are not moves
  (quarter turns are, when asked for, in `turning.py`: a Python search built on this one).
- A part **comes free** when a set of at most half the pieces can slide away for ever; the move
  that takes it out is counted.
- The search is breadth-first, so the first separation found needs the fewest moves. The two
  parts are then taken apart in turn from their positions just before the separating move. Pieces
  declared as one group may stay together.
- The **level** is the number of moves until the first part comes free, then, in BurrTools' `a.b.c`
  notation, the same figure for each sub-assembly whose own tree needs more than one move in some
  step: the part left behind first, then the part removed.

Where cpsolve differs from BurrTools, and why. Several ways often reach the first separation in the
fewest moves, leaving the pieces in different positions, and the later figures depend on which one
is taken. BurrTools keeps the first way its search meets (and calls the assembly stuck when one of
that way's parts is), so its later figures, and rarely whether the assembly comes apart at all,
depend on how the assembly is turned and on the order of its pieces: PelikanBurr's stored solution
is 98.2.4.2 as BurrTools stores it, 98.2.4 turned another way; the one solution of Alfons Eyckmans'
Aracna is 13.1.3 or 13.1.3.1.3 in BurrTools depending on how it is turned, and five levels from 13.1.2
to 13.2.3.1.3 when the first way is kept in this module's search order. cpsolve tries
every shortest way (every state at that depth with every set that can slide out of it) and keeps
the one whose parts come apart most easily: the part left behind is compared first, then the part
removed; a part that comes apart one move per step (or is a single piece or a group) is easiest,
otherwise parts compare by their own first figure, then, the same way, by their own two parts
(`_rank`). A way whose parts are stuck loses to any that comes apart. The level (Aracna: 13,
PelikanBurr: 98.2.4) is then a property of the assembly, the same in any orientation and piece
order; `disassemble(..., first_found=True)` gives BurrTools' figure instead.

How the moves are found (Cutler's method): for each pair of pieces and each direction, how far one
can slide before it hits the other, from the pair's relative offset. Those distances come from the
pair's *collision offsets* (the offsets at which the two shapes overlap) sorted along lines, and
are cached per offset, since a search revisits the same pairs in the same relative positions many
times. A piece pushing on another drags it along: the smallest set containing a piece that can move
k units is the closure of "would hit", computed on bitmasks; sets moving together in one direction
by the same amount are merged into one move. The breadth-first search of one part runs in C
(`_disassemble.c`, the same search on dense distance tables: PelikanBurr's 7,022 positions in 0.03 s
instead of 3 s) when it is built and the part has at most 64 pieces; `_Search._separate_states`
below is its readable twin, which runs otherwise, and tests check that both give the same moves,
levels, state counts and stuck reports.

A piece is a *shape* (its cells up to translation, numbered by `Shapes`) and an origin, as BurrTools'
start node is (shape, orientation, position); tables are kept per pair of shapes for the whole run.
`disassemble` takes one assembly given as cells. An enumeration's classes go to `PlacedDisassembler`
instead, one per puzzle (and per worker): each placement is mapped to its shape and origin once, a
batch of classes goes to C in one call with a status per class out, and trees, levels and moves are
built only for the classes that come apart (most do not: Gargamel 7,679 of 7,680 assemblies).

What the search answers (`Move`, `Separation`, `Stuck`, `Disassembly`), levels as text and their tally over
an enumeration are in `trees.py`; this module is how the trees are found.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..errors import CpsolveError
from ..limits import check
from ..puzzle.geometry import Cell
from .tables import (
    INF,
    NATIVE_MAX_PIECES,
    Shapes,
    _native,
    _PairTable,
    _shapes_for_calls,
    _SteppedPairTable,
)
from .trees import Disassembly, Move, Separation, Stuck

# ----------------------------------------------------------------------------- the search


@dataclass
class _Search:
    """The breadth-first search over one assembly's parts; pair tables from `shapes`, for the whole run."""

    placed: Sequence[tuple[int, Cell]]
    """Each piece's shape id (in `shapes`) and origin: its cells are the shape's moved by the origin."""
    names: Sequence[str]
    shapes: Shapes
    groups: Sequence[frozenset[str]] = ()
    max_states: int | None = None
    native: bool = True
    """Search in C when it is built (False: always the Python twin)."""
    tables: dict[tuple[int, int], tuple[_PairTable | _SteppedPairTable, Cell]] = field(default_factory=dict)
    visited: int = 0
    best: bool = True
    """Choose between equally short first separations (`take_apart`); False: the first found, as BurrTools."""
    memo: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[Separation | Stuck, Cell]] = field(default_factory=dict)
    """Parts already taken apart in this assembly, by pieces and relative positions (with the start used)."""

    @property
    def directions(self) -> tuple[Cell, ...]:
        """The moves, in pairs of opposite ways: the grid's, as `shapes` holds them (the C search knows the
        cube's six; the prism grid's eight run in the twin)."""
        return self.shapes.directions

    def table(self, i: int, j: int) -> tuple[_PairTable | _SteppedPairTable, Cell]:
        """The pair's table (the twin's) and the shift to subtract from o_j - o_i before a lookup: tables
        are per pair of shapes, kept by `shapes` for the whole run (a burr census meets the same sticks in
        the same orientations in many assemblies)."""
        (si, li), (sj, lj) = self.placed[i], self.placed[j]
        return self.shapes.table(si, sj), (li[0] - lj[0], li[1] - lj[1], li[2] - lj[2])

    def in_one_group(self, part: Sequence[int]) -> bool:
        names = {self.names[p].split("#")[0] for p in part}
        return any(names <= g for g in self.groups)

    # -- moves out of one state ---------------------------------------------------------------

    def free_matrix(self, part: Sequence[int], pos: Sequence[Cell]) -> list[list[int]]:
        """Per direction d, a flat n*n list: [d][a*n + b] = how far the a-th piece can slide along d with
        the b-th fixed."""
        n = len(part)
        nd = len(self.directions)
        F = [[INF] * (n * n) for _ in range(nd)]
        tables = self.tables
        for a in range(n):
            pa = pos[a]
            ia = part[a]
            for b in range(a + 1, n):
                pb = pos[b]
                got = tables.get((ia, part[b]))
                if got is None:
                    got = tables[(ia, part[b])] = self.table(ia, part[b])
                t, sh = got
                f = t.free((pb[0] - pa[0] - sh[0], pb[1] - pa[1] - sh[1], pb[2] - pa[2] - sh[2]))
                # f: b slides with a fixed; a sliding along d is b sliding along -d
                ab, ba = a * n + b, b * n + a
                for d in range(nd):
                    F[d][ba] = f[d]
                    F[d ^ 1][ab] = f[d]
        return F

    def analyse(self, Fd: tuple[int, ...], n: int) -> _DirectionMoves:
        """Removals and moves along one direction, given that direction's free distances."""
        half = n // 2
        full = (1 << n) - 1
        rows = [Fd[j * n: j * n + n] for j in range(n)]
        finite = [sum(1 << i for i in range(n) if i != j and rows[j][i] < INF) for j in range(n)]
        single = 0
        group = 0
        removals: list[int] = []
        for p in range(n):
            m = _reach(finite, p)
            size = m.bit_count()
            if size == 1 and not single:
                single = m
            if size <= half:
                if not group:
                    group = m
                if m not in removals:
                    removals.append(m)
        moves: list[tuple[int, int]] = []
        if not group:
            found: dict[int, list[int]] = {}  # amount -> sets already emitted
            for p in range(n):
                members = [p]
                m = 1 << p
                k = 1
                while len(members) <= half:
                    # the set keeps moving until one of its pieces would hit a piece outside it
                    limit = min(rows[j][i] for j in members for i in range(n) if not m >> i & 1)
                    for amount in range(k, limit + 1):
                        sets = found.setdefault(amount, [])
                        if m in sets:
                            continue
                        merged = [m]
                        for s in sets:
                            u = s | m
                            if u != s and u != full and u not in sets and u not in merged:
                                merged.append(u)
                        sets.extend(merged)
                        moves.extend((s, amount) for s in merged)
                    k = limit + 1  # one more unit drags every piece that would be hit, and whatever those hit
                    todo = list(members)
                    while todo:
                        row = rows[todo.pop()]
                        for i in range(n):
                            if not m >> i & 1 and row[i] < k:
                                m |= 1 << i
                                members.append(i)
                                todo.append(i)
        return _DirectionMoves(single, group, tuple(moves), tuple(removals))

    # -- breadth-first search over one part ------------------------------------------------------

    def separate(self, part: Sequence[int], start: Sequence[Cell], every: bool = False) -> list[_Candidate] | Stuck:
        """The fewest moves until the part splits: the first way found (the removal BurrTools' order meets
        first), or with `every` each state at that depth with each set that can slide out of it, the
        first way first; or a Stuck report. In C when it can, else in Python."""
        context = self.shapes.context
        if self.native and context is not None and len(part) <= NATIVE_MAX_PIECES:
            got = self._separate_native(context, part, start, every)
            if got is not None:
                return got
        return self._separate_states(part, start, every)

    def _separate_native(self, context: _native.Disassembler, part: Sequence[int], start: Sequence[Cell],
                         every: bool) -> list[_Candidate] | Stuck | None:
        """`_separate_states` in C (`Disassembler.separate`); None when a pair's table would be too big or
        the pieces lie too far apart for its 32-bit positions."""
        placed = self.placed
        x0, y0, z0 = placed[part[0]][1]  # only differences count: pieces far from the origin but close together
        origins = [v for p in part for v in (placed[p][1][0] - x0, placed[p][1][1] - y0, placed[p][1][2] - z0)]
        try:
            got = context.separate([placed[p][0] for p in part], origins, [v for c in start for v in c],
                                   _c_budget(self.max_states), every)
        except (ValueError, OverflowError):  # coordinates beyond the C search's range (2**20): the twin has none
            return None
        if got is None:
            return None
        states, found, locked = got
        if found is not None:
            self.visited += states
            return [(list(path), list(before)) for path, before in found]
        if locked is not None:
            self.visited += states
            return Stuck(tuple(self.names[p] for p in part), states,
                         tuple(tuple(self.names[part[i]] for i in cls) for cls in locked))
        raise _TooMany(states)

    def _separate_states(self, part: Sequence[int], start: Sequence[Cell],
                         every: bool = False) -> list[_Candidate] | Stuck:
        n = len(part)
        start_t = tuple(start)
        key0 = _key(start_t)
        parent: dict[tuple[int, ...], tuple[tuple[int, ...] | None, tuple[int, int, int] | None]] = {key0: (None, None)}
        frontier: list[tuple[Cell, ...]] = [start_t]
        found: list[_Candidate] = []
        while frontier:
            nxt: list[tuple[Cell, ...]] = []
            for pos in frontier:
                F = self.free_matrix(part, pos)
                per_dir = [self.analyse(tuple(Fd), n) for Fd in F]
                key = _key(pos)
                if every:  # singles first (direction by direction), then sets, as the first way has it
                    removals = [(d, m) for d, r in enumerate(per_dir) for m in r.removals if m.bit_count() == 1]
                    removals += [(d, m) for d, r in enumerate(per_dir) for m in r.removals if m.bit_count() > 1]
                else:
                    rem = next(((d, r.single) for d, r in enumerate(per_dir) if r.single), None) or next(
                        ((d, r.group) for d, r in enumerate(per_dir) if r.group), None)
                    removals = [] if rem is None else [rem]
                if removals:
                    path = _path_to(parent, key)
                    found += [([*path, (d, m, None)], list(pos)) for d, m in removals]
                    if not every:
                        break
                if found:  # the rest of this depth is only looked at for more removals
                    continue
                for d, r in enumerate(per_dir):
                    ux, uy, uz = self.directions[d]
                    for m, amount in r.moves:
                        dx, dy, dz = ux * amount, uy * amount, uz * amount
                        new = tuple((c[0] + dx, c[1] + dy, c[2] + dz) if m >> i & 1 else c for i, c in enumerate(pos))
                        nk = _key(new)
                        if nk in parent:
                            continue
                        parent[nk] = (key, (d, m, amount))
                        nxt.append(new)
                if self.max_states is not None and len(parent) > self.max_states:
                    raise _TooMany(len(parent))
            if found:
                self.visited += len(parent)
                return found
            frontier = nxt
        self.visited += len(parent)
        return Stuck(tuple(self.names[p] for p in part), len(parent), _locked(self.names, part, parent))

    def take_apart(self, part: Sequence[int], start: Sequence[Cell],
                   found: list[_Candidate] | Stuck | None = None) -> Separation | Stuck:
        """The part's tree. With `best` (the default), every shortest first separation is tried and the
        one whose parts come apart most easily is kept (`_rank`), so the tree, and so the level, does not
        depend on how the assembly is turned or its pieces ordered; else the first one found, as
        BurrTools keeps it (its parts stuck: the whole is stuck). `found`: the part's own search, when
        it was made already (`PlacedDisassembler`'s batches)."""
        memo_key = (tuple(part), _key(start))
        known = self.memo.get(memo_key)
        if known is not None:
            got, at = known
            delta = (start[0][0] - at[0], start[0][1] - at[1], start[0][2] - at[2])
            if delta == (0, 0, 0):
                return got
            if isinstance(got, Stuck):  # the same part met again, shifted as a whole: so is where it began
                moved = tuple((x + delta[0], y + delta[1], z + delta[2]) for x, y, z in got.start)
                return replace(got, start=moved)
            return _shifted(got, delta)
        if found is None:
            found = self.separate(part, start, self.best)
        result: Separation | Stuck
        if isinstance(found, Stuck):
            result = replace(found, start=tuple(start))
        else:
            result = easiest(self._tree(part, start, path, before) for path, before in found)
        self.memo[memo_key] = (result, start[0])
        return result

    def _tree(self, part: Sequence[int], start: Sequence[Cell], path: list[tuple[int, int, int | None]],
              before: Sequence[Cell]) -> Separation | Stuck:
        """The tree that begins with `path` (ending in a removal from positions `before`), its two parts
        taken apart in turn: the part left behind first, then the removed part (BurrTools' order)."""
        names = tuple(self.names[p] for p in part)
        moves = tuple(Move(tuple(names[i] for i in range(len(part)) if m >> i & 1), self.directions[d], amount)
                      for d, m, amount in path)
        removed = path[-1][1]
        sub: list[Separation | None] = []
        for keep in (False, True):
            idx = [i for i in range(len(part)) if bool(removed >> i & 1) == keep]
            if len(idx) == 1 or self.in_one_group([part[i] for i in idx]):
                sub.append(None)
                continue
            got = self.take_apart([part[i] for i in idx], [before[i] for i in idx])
            if isinstance(got, Stuck):
                return got
            sub.append(got)
        return Separation(names, dict(zip(names, start, strict=True)), moves, sub[0], sub[1])


_Candidate = tuple[list[tuple[int, int, int | None]], list[Cell]]
"""One way to the first separation: the moves (direction, bitmask, amount; None = the removal) and the
positions just before the removal."""


def _path_to(parent: Mapping[tuple[int, ...], tuple[tuple[int, ...] | None, tuple[int, int, int] | None]],
             key: tuple[int, ...]) -> list[tuple[int, int, int | None]]:
    """The moves from the start to the state `key`, by the breadth-first search's parent links."""
    path: list[tuple[int, int, int | None]] = []
    while True:
        prev, mv = parent[key]
        if prev is None or mv is None:
            break
        path.append(mv)
        key = prev
    path.reverse()
    return path


def _rank(sep: Separation | None) -> tuple[object, ...]:
    """How hard a part is to take apart, for choosing between equally short first separations: a part
    that comes apart one move per step (or needs nothing) ranks lowest, (0,); otherwise (1, its first
    figure, its left part's rank, its removed part's rank), compared in that order."""
    if sep is None or not sep.has_multi_moves():
        return (0,)
    return (1, len(sep.moves), _rank(sep.left), _rank(sep.removed_part))


_EASIEST = ((0,), (0,))
"""Both parts come apart one move per step: no other separation can do better."""


def easiest(trees: Iterable[Separation | Stuck]) -> Separation | Stuck:
    """The tree whose parts come apart most easily (`_rank`) among the trees of a part's shortest first
    separations, made lazily and left at the first that cannot be beaten (`_EASIEST`); when every one has
    a stuck part, the first such report. The choice of `_Search.take_apart` and of the search with turns."""
    best: Separation | None = None
    best_rank: tuple[object, ...] = ()
    stuck: Stuck | None = None
    for tree in trees:
        if isinstance(tree, Stuck):
            stuck = stuck or tree
            continue
        rank = (_rank(tree.left), _rank(tree.removed_part))
        if best is None or rank < best_rank:
            best, best_rank = tree, rank
        if rank == _EASIEST:
            break
    if best is not None:
        return best
    assert stuck is not None  # every way was tried: each had a stuck part
    return stuck


def _shifted(sep: Separation, delta: Cell) -> Separation:
    """The same tree from a start moved by `delta` (the moves do not change, only where each step starts)."""
    def move(c: Cell) -> Cell:
        return (c[0] + delta[0], c[1] + delta[1], c[2] + delta[2])

    return replace(sep, start={k: move(v) for k, v in sep.start.items()},
                   left=None if sep.left is None else _shifted(sep.left, delta),
                   removed_part=None if sep.removed_part is None else _shifted(sep.removed_part, delta))


@dataclass(frozen=True)
class _DirectionMoves:
    """What one direction offers in one state: a single piece that slides out (bitmask, 0 if none), a
    set of at most half the pieces that slides out, and the finite moves (bitmask, amount) in order."""

    single: int
    group: int
    moves: tuple[tuple[int, int], ...]
    removals: tuple[int, ...] = ()
    """Every distinct set of at most half the pieces that slides out (one piece's closure each), in piece order."""


class _TooMany(Exception):
    def __init__(self, states: int) -> None:
        super().__init__(states)
        self.states = states


def _reach(masks: Sequence[int], p: int) -> int:
    """Everything reachable from piece p when piece j drags along the pieces in masks[j] (bitmasks)."""
    m = 1 << p
    while True:
        new = m
        x = m
        while x:
            low = x & -x
            new |= masks[low.bit_length() - 1]
            x ^= low
        if new == m:
            return m
        m = new


def _c_budget(max_states: int | None) -> int:
    """The state budget as the C search takes it (a C long; -1: none). A budget past 2**62 states is no
    budget: no search gets near it, and a larger number does not fit (`--max-states 1e20`)."""
    return -1 if max_states is None or max_states >= 1 << 62 else max_states


def _key(pos: Sequence[Cell]) -> tuple[int, ...]:
    """A state: every piece's offset relative to the first piece (shifting everything changes nothing)."""
    x0, y0, z0 = pos[0]
    out: list[int] = []
    for x, y, z in pos[1:]:
        out += (x - x0, y - y0, z - z0)
    return tuple(out)


def _locked(names: Sequence[str], part: Sequence[int],
            states: Iterable[tuple[int, ...]]) -> tuple[tuple[str, ...], ...]:
    """Pieces whose offsets relative to each other never change over the reached states."""
    n = len(part)
    keys = list(states)
    offsets = [[(0, 0, 0)] + [k[3 * i: 3 * i + 3] for i in range(n - 1)] for k in keys]
    classes: list[list[int]] = []
    for i in range(n):
        for cls in classes:
            j = cls[0]
            first = tuple(a - b for a, b in zip(offsets[0][i], offsets[0][j], strict=True))
            if all(tuple(a - b for a, b in zip(o[i], o[j], strict=True)) == first for o in offsets):
                cls.append(i)
                break
        else:
            classes.append([i])
    return tuple(tuple(names[part[i]] for i in cls) for cls in classes if len(cls) > 1)


# ----------------------------------------------------------------------------- entry point


def native_available() -> bool:
    """Whether the C search (`_disassemble.c`) is built here; without it the Python twin runs."""
    return _native is not None


class TooManyStates(Exception):
    """The search passed `max_states` states without an answer."""

    def __init__(self, states: int) -> None:
        super().__init__(f"gave up after {states} states")
        self.states = states


TAKEN_APART: tuple[str, ...] = ("cubes", "prisms")
"""The grids with a disassembler: BurrTools has one only for cubes and triangular prisms
(`gridType_c::getCapabilities`), and so has cpsolve; on the others assemblies are counted, not taken apart
(the page drops their pieces in, the workbench says why)."""


def check_grid(grid: str) -> None:
    """Refuse, in one line, to take apart an assembly on a grid without a disassembler (not in TAKEN_APART)."""
    if grid in TAKEN_APART:
        return
    raise CpsolveError(f"BurrTools has no disassembler for the {grid} grid either: assemblies there are counted, "
                       "not taken apart", field="grid")


def check_pieces(n: int) -> None:
    """Refuse to take apart more pieces than `--max-disassembly-pieces`: every position holds a table of
    every pair (3,000 pieces took 1.7 GB before the first move), and `enumerate --disassemble` checks
    the puzzle's pieces with it before it searches."""
    check("max_disassembly_pieces", "the number of pieces to take apart", n)


def disassemble(pieces: Mapping[str, Iterable[Cell]], groups: Sequence[frozenset[str]] = (),
                max_states: int | None = None, native: bool = True, first_found: bool = False,
                grid: str = "cubes") -> Disassembly:
    """Take an assembly apart: `pieces` maps each piece's label to its cells as assembled.

    Labels of copies (`NAME#2`) belong to the groups that name `NAME`. Where several ways reach the
    first separation in the fewest moves, each is tried and the one whose parts come apart most
    easily is kept (`_rank`): the level is then a property of the assembly, the same however it is
    turned or its pieces are listed. `first_found=True` keeps the first way met instead, trying pieces
    in the mapping's order and directions in BurrTools' order, as BurrTools does: its later figures
    (and, rarely, whether it comes apart at all) can then depend on the orientation.
    `native=False` runs the Python twin of the compiled search (the same result, for the tests). On the
    prism grid (`grid="prisms"`) pieces slide along BurrTools' four prism axes (`PRISM_DIRECTIONS`), in
    the Python search.

    With quarter turns as well: `turning.disassemble_turning` (Python).
    """
    check_grid(grid)
    names = list(pieces)
    check_pieces(len(names))
    if len(names) < 2:
        return Disassembly(None, Stuck(tuple(names), 0, ()), 0)
    shapes = _shapes_for_calls(native, grid)
    search = _Search([shapes.of(pieces[nm]) for nm in names], names, shapes, tuple(groups), max_states, native,
                     best=not first_found)
    origin = [(0, 0, 0)] * len(names)
    try:
        got = search.take_apart(list(range(len(names))), origin)
    except _TooMany as exc:
        raise TooManyStates(exc.states) from None
    if isinstance(got, Stuck):
        return Disassembly(None, got, search.visited)
    return Disassembly(got, None, search.visited)


def check_rotations(rotations: bool, clearance: object, grid: str = "cubes") -> Fraction:
    """The rotation options, checked: the clearance as a Fraction from 0 up to (not including) 1/2 (a
    cube shrunk by 1/2 on each side is nothing); turns on cubes only. CpsolveError, one line."""
    if type(clearance) is bool or not isinstance(clearance, (int, float, Fraction, str)):
        raise CpsolveError(f"the rotation clearance is a number from 0 to 0.5, not {clearance!r}",
                           field="rotation_clearance")
    try:
        value = Fraction(str(clearance)) if isinstance(clearance, float) else Fraction(clearance)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise CpsolveError(f"the rotation clearance is a number from 0 to 0.5, not {clearance!r}",
                           field="rotation_clearance") from None
    if not 0 <= value < Fraction(1, 2):
        raise CpsolveError(f"the rotation clearance is a number from 0 up to (not including) 0.5, not {clearance}",
                           field="rotation_clearance")
    if value and not rotations:
        raise CpsolveError("a rotation clearance needs rotations (--rotations)", field="rotation_clearance")
    if rotations and grid != "cubes":
        raise CpsolveError(f"quarter turns are taken on cubes only, not on the {grid} grid", field="rotations")
    return value


def explore(pieces: Mapping[str, Iterable[Cell]], start: Mapping[str, Cell] | None = None,
            max_states: int | None = None, grid: str = "cubes") -> tuple[tuple[tuple[Cell, ...], int], ...]:
    """Every state reachable from `start` (offsets from the assembled cells; all zero by default) by the
    moves of the search above, breadth first: (each piece's offset, in the mapping's order; moves
    from the start). For a part that does not come apart: what "stuck" means, state by state.

    A state from which a part could slide out for good is listed too, but not left: a stuck part
    has none. Runs the Python twin (the C search keeps no states); past `max_states` states,
    TooManyStates."""
    names = list(pieces)
    shapes = _shapes_for_calls(False, grid)
    search = _Search([shapes.of(pieces[nm]) for nm in names], names, shapes, native=False)
    part = list(range(len(names)))
    first = tuple((start or {}).get(nm, (0, 0, 0)) for nm in names)
    seen = {_key(first)}
    out: list[tuple[tuple[Cell, ...], int]] = [(first, 0)]
    frontier = [first]
    depth = 0
    while frontier:
        depth += 1
        nxt: list[tuple[Cell, ...]] = []
        for pos in frontier:
            F = search.free_matrix(part, pos)
            for d, Fd in enumerate(F):
                ux, uy, uz = search.directions[d]
                for m, amount in search.analyse(tuple(Fd), len(names)).moves:
                    new = tuple((c[0] + ux * amount, c[1] + uy * amount, c[2] + uz * amount) if m >> i & 1 else c
                                for i, c in enumerate(pos))
                    if (k := _key(new)) not in seen:
                        seen.add(k)
                        out.append((new, depth))
                        nxt.append(new)
                        if max_states is not None and len(out) > max_states:
                            raise TooManyStates(len(out))
        frontier = nxt
    return tuple(out)


# ----------------------------------------------------------------------------- for the command line


def puzzle_groups(puzzle: object) -> tuple[frozenset[str], ...]:
    """The puzzle's declared groups (piece names that may stay together), or none."""
    return tuple(getattr(puzzle, "groups", ()) or ())
