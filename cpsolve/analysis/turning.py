"""Disassembly with quarter turns as well as slides (`disassemble(..., rotations=True)`): the search in
Python, the sweep test in C (`_turns.c`, with its twin in turns.py).

Without `rotations` nothing here runs: the C search and its twin in `disassembly.py` take assemblies
apart by slides alone, exactly as BurrTools does. With it, this breadth-first search (a subclass of
the twin, `_Search`, whose slides, removals and level rules it keeps) also tries, from every state
that has no removal, turning a set of pieces by a quarter turn (`turns.Turn`):

- **Which sets.** Every single piece, and every set the slides of that state move (the closures
  under "would hit" that `_Search.analyse` finds, at most half the pieces): the sets that can move
  at all. A set that can slide nowhere is held on every side, and a larger set made of it and its
  neighbours would be one of those closures.
- **Which turns.** About a line parallel to x, y or z, both senses, through every pivot where turned
  cells land on the grid (a cell centre or corner in the plane of the turn) within the set's in-plane
  bounding box grown by one cell on every side. What that misses: turns about a line farther away,
  which swing the set through a wide arc; within the bound are all turns about a line through the
  set or touching it, which is how puzzles turn (a piece about its own cell, a set about the corner
  where it meets the rest).
- **Which are allowed.** The turned cells must be free, and no moving cube may pass through a static
  one on the way: the exact sweep test of `turns.py` (with `clearance` for rounded pieces), compiled
  where it is built.
- **States.** A piece's *pose* is an orientation R (one of the 24 rotations) and a translation t: its
  cells are R c + t for its cells c as assembled. Two states are the same when, after turning the
  whole part so that its first piece has its first orientation, every piece covers the same cells
  relative to the first piece: the key is each piece's shape (its cells up to translation, so a
  symmetric piece turned onto itself is not a new state) and its origin relative to the first
  piece's. Whole-part rotations are then one state, and a set and its complement turned the other
  way lead to the same state.
- **Counting.** A quarter turn is one move, as a slide is (a half turn is two). The level counts
  turns with slides and writes them apart (`Separation.figures`, `format_level`: `3R1` is 3 slides
  and 1 turn before the first part comes free, as BurrTools' rotation fork writes it).

It is slow compared with slides alone (every state tries up to sets x 3 axes x 2 senses x pivots
turns): meant for small assemblies and single puzzles, not for the stuck states of a whole census.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from ..puzzle.geometry import IDENTITY, Cell, Transform
from .disassembly import (
    TooManyStates,
    _Search,
    _TooMany,
    check_grid,
    check_pieces,
    check_rotations,
    easiest,
)
from .placed import PlacedDisassembler, Placement, Taken
from .tables import INF, _shapes_for_calls
from .trees import Disassembly, LevelTally, Move, Separation, Stuck
from .turns import Scene, Turn, allowed_turns

if TYPE_CHECKING:
    from ..problem.placements import ExactCoverProblem

Pose = tuple[Transform, Cell]
"""A piece's orientation R and translation t: its cells are R c + t for its cells c as assembled."""

Step = tuple[int, int, int | Turn | None]
"""One move of a path: (direction, bitmask, amount) for a slide (amount None: the removal), or
(-1, bitmask, turn) for a quarter turn."""

TurnCandidate = tuple[list[Step], list[Pose]]


def compose(a: Transform, b: Transform) -> Transform:
    """a after b: p -> a(b(p))."""
    axes = tuple(b.axes[a.axes[i]] for i in range(3))
    signs = tuple(a.signs[i] * b.signs[a.axes[i]] for i in range(3))
    return Transform((axes[0], axes[1], axes[2]), (signs[0], signs[1], signs[2]))


def invert(a: Transform) -> Transform:
    """The inverse rotation (a signed permutation's inverse is its transpose)."""
    axes = [0, 0, 0]
    signs = [1, 1, 1]
    for i in range(3):
        axes[a.axes[i]] = i
        signs[a.axes[i]] = a.signs[i]
    return Transform((axes[0], axes[1], axes[2]), (signs[0], signs[1], signs[2]))


def turned_pose(pose: Pose, turn: Turn) -> Pose:
    """The pose after `turn`: R c + t -> turn's rotation (R c + t) + its shift."""
    r, t = pose
    q = turn.rotation
    tt, s = q.apply(t), turn.shift
    return compose(q, r), (tt[0] + s[0], tt[1] + s[1], tt[2] + s[2])


@dataclass
class TurningSearch(_Search):
    """`_Search` with quarter turns. `placed` is each piece as assembled (shape id, origin); `assembled`
    its cells; `clearance` shrinks every cube by that much on each side in the sweep test."""

    assembled: Sequence[tuple[Cell, ...]] = ()
    clearance: Fraction = Fraction(0)
    sweep_native: bool = True
    """The sweep test in C where it is built (`turns.Scene`); False: its Python twin (the search itself
    is Python either way)."""
    oriented: dict[tuple[int, Transform], tuple[int, Cell]] = field(default_factory=dict)
    """(piece, orientation) -> the shape id and origin of R c over its assembled cells c."""
    turn_memo: dict[tuple[tuple[int, ...], tuple[Pose, ...]], Separation | Stuck] = field(default_factory=dict)

    def placed_at(self, piece: int, pose: Pose) -> tuple[int, Cell]:
        """The piece's shape id and origin in `pose`."""
        r, t = pose
        got = self.oriented.get((piece, r))
        if got is None:
            got = self.oriented[(piece, r)] = self.shapes.of([r.apply(c) for c in self.assembled[piece]])
        sid, o = got
        return sid, (o[0] + t[0], o[1] + t[1], o[2] + t[2])

    def cells(self, piece: int, pose: Pose) -> list[Cell]:
        sid, (x, y, z) = self.placed_at(piece, pose)
        return [(x + a, y + b, z + c) for a, b, c in self.shapes.cells[sid]]

    def key(self, part: Sequence[int], poses: Sequence[Pose]) -> tuple[int, ...]:
        """The state: turned so that the anchor (`anchor`) has its first orientation, each piece's shape id
        and origin relative to the anchor's. The anchor never turns, so the turning back is only a
        safeguard: whole-part rotations are one state either way."""
        a = self.anchor(part)
        back = invert(poses[a][0])
        norm = poses if back == IDENTITY else [(compose(back, r), back.apply(t)) for r, t in poses]
        placed = [self.placed_at(p, pose) for p, pose in zip(part, norm, strict=True)]
        (_, (x0, y0, z0)) = placed[a]
        out: list[int] = []
        for sid, (x, y, z) in placed:
            out += (sid, x - x0, y - y0, z - z0)
        return tuple(out)

    def turn_free_matrix(self, placed: Sequence[tuple[int, Cell]]) -> list[list[int]]:
        """`free_matrix` for pieces given as (shape id, origin), as turned."""
        n = len(placed)
        F = [[INF] * (n * n) for _ in range(6)]
        for a in range(n):
            sa, oa = placed[a]
            for b in range(a + 1, n):
                sb, ob = placed[b]
                f = self.shapes.table(sa, sb).free((ob[0] - oa[0], ob[1] - oa[1], ob[2] - oa[2]))
                ab, ba = a * n + b, b * n + a
                for d in range(6):
                    F[d][ba] = f[d]
                    F[d ^ 1][ab] = f[d]
        return F

    def anchor(self, part: Sequence[int]) -> int:
        """The index in `part` of the piece that never turns: the one with most cells (the first such). A
        set holding it turns as its complement turning the other way, the same relative move (the sweep
        test depends only on how the two sets move relative to each other), so the move list shows the
        smaller pieces turning in the larger ones, as one turns them by hand."""
        sizes = [len(self.assembled[p]) for p in part]
        return sizes.index(max(sizes))

    def turns(self, part: Sequence[int], poses: Sequence[Pose], sets: Sequence[int]) -> list[tuple[int, Turn]]:
        """The allowed quarter turns of each set (bitmask over `part`), in order: set, axis, pivot, sense. A
        set holding the anchor turns as its complement (the same relative move, turned the other way:
        both senses are tried), its pivots bounded by the complement's box."""
        cells = [self.cells(p, pose) for p, pose in zip(part, poses, strict=True)]
        full = (1 << len(part)) - 1
        anchor = 1 << self.anchor(part)
        movers: list[int] = []
        for m in sets:
            m = full ^ m if m & anchor else m
            if m not in movers:
                movers.append(m)
        out: list[tuple[int, Turn]] = []
        for m in movers:
            moving = [c for i, cs in enumerate(cells) if m >> i & 1 for c in cs]
            scene = Scene({c for i, cs in enumerate(cells) if not m >> i & 1 for c in cs}, self.sweep_native)
            out += [(m, turn) for turn in allowed_turns(moving, scene, self.clearance)]
        return out

    def separate_turning(self, part: Sequence[int], start: Sequence[Pose], every: bool) -> list[TurnCandidate] | Stuck:
        """`_separate_states` with turns: the fewest moves (slides and quarter turns) until the part splits."""
        n = len(part)
        half = n // 2
        start_t = tuple(start)
        key0 = self.key(part, start_t)
        parent: dict[tuple[int, ...], tuple[tuple[int, ...] | None, Step | None]] = {key0: (None, None)}
        frontier: list[tuple[Pose, ...]] = [start_t]
        found: list[TurnCandidate] = []
        while frontier:
            nxt: list[tuple[Pose, ...]] = []
            for poses in frontier:
                placed = [self.placed_at(p, pose) for p, pose in zip(part, poses, strict=True)]
                F = self.turn_free_matrix(placed)
                per_dir = [self.analyse(tuple(Fd), n) for Fd in F]
                key = self.key(part, poses)
                if every:
                    removals = [(d, m) for d, r in enumerate(per_dir) for m in r.removals if m.bit_count() == 1]
                    removals += [(d, m) for d, r in enumerate(per_dir) for m in r.removals if m.bit_count() > 1]
                else:
                    rem = next(((d, r.single) for d, r in enumerate(per_dir) if r.single), None) or next(
                        ((d, r.group) for d, r in enumerate(per_dir) if r.group), None)
                    removals = [] if rem is None else [rem]
                if removals:
                    path = _turn_path(parent, key)
                    found += [([*path, (d, m, None)], list(poses)) for d, m in removals]
                    if not every:
                        break
                if found:
                    continue

                sets: list[int] = [1 << i for i in range(n)]
                succ: list[tuple[tuple[Pose, ...], Step]] = []
                for d, r in enumerate(per_dir):
                    ux, uy, uz = self.directions[d]
                    for m, amount in r.moves:
                        if m not in sets and m.bit_count() <= half:
                            sets.append(m)
                        dx, dy, dz = ux * amount, uy * amount, uz * amount
                        succ.append((tuple((pose[0], (pose[1][0] + dx, pose[1][1] + dy, pose[1][2] + dz))
                                           if m >> i & 1 else pose for i, pose in enumerate(poses)), (d, m, amount)))
                for m, turn in self.turns(part, poses, sets):
                    succ.append((tuple(turned_pose(pose, turn) if m >> i & 1 else pose for i, pose in enumerate(poses)),
                                 (-1, m, turn)))
                for new, step in succ:
                    nk = self.key(part, new)
                    if nk not in parent:
                        parent[nk] = (key, step)
                        nxt.append(new)
                if self.max_states is not None and len(parent) > self.max_states:
                    raise _TooMany(len(parent))
            if found:
                self.visited += len(parent)
                return found
            frontier = nxt
        self.visited += len(parent)
        return Stuck(tuple(self.names[p] for p in part), len(parent), _locked_poses(self.names, part, list(parent)))

    def take_apart_turning(self, part: Sequence[int], start: Sequence[Pose]) -> Separation | Stuck:
        """`take_apart` with turns: every shortest first separation tried (with `best`), the easiest kept."""
        memo_key = (tuple(part), tuple(start))
        known = self.turn_memo.get(memo_key)
        if known is not None:
            return known
        found = self.separate_turning(part, start, self.best)
        result: Separation | Stuck
        if isinstance(found, Stuck):
            result = found
        else:
            result = easiest(self._turn_tree(part, start, path, before) for path, before in found)
        self.turn_memo[memo_key] = result
        return result

    def _turn_tree(self, part: Sequence[int], start: Sequence[Pose], path: list[Step],
                   before: Sequence[Pose]) -> Separation | Stuck:
        names = tuple(self.names[p] for p in part)
        moves = []
        for d, m, how in path:
            pieces = tuple(names[i] for i in range(len(part)) if m >> i & 1)
            if isinstance(how, Turn):
                moves.append(Move(pieces, (0, 0, 0), 1, how))
            else:
                moves.append(Move(pieces, self.directions[d], how))
        removed = path[-1][1]
        sub: list[Separation | None] = []
        for keep in (False, True):
            idx = [i for i in range(len(part)) if bool(removed >> i & 1) == keep]
            if len(idx) == 1 or self.in_one_group([part[i] for i in idx]):
                sub.append(None)
                continue
            got = self.take_apart_turning([part[i] for i in idx], [before[i] for i in idx])
            if isinstance(got, Stuck):
                return got
            sub.append(got)
        orient = {nm: pose[0] for nm, pose in zip(names, start, strict=True) if pose[0] != IDENTITY}
        return Separation(names, {nm: pose[1] for nm, pose in zip(names, start, strict=True)}, tuple(moves),
                          sub[0], sub[1], orient)


def _turn_path(parent: dict[tuple[int, ...], tuple[tuple[int, ...] | None, Step | None]],
               key: tuple[int, ...]) -> list[Step]:
    path: list[Step] = []
    while True:
        prev, mv = parent[key]
        if prev is None or mv is None:
            break
        path.append(mv)
        key = prev
    path.reverse()
    return path


def _locked_poses(names: Sequence[str], part: Sequence[int],
                  keys: Iterable[tuple[int, ...]]) -> tuple[tuple[str, ...], ...]:
    """Pieces whose shapes and offsets relative to each other are the same in every reached state."""
    n = len(part)
    rows = [[k[4 * i: 4 * i + 4] for i in range(n)] for k in keys]
    classes: list[list[int]] = []
    for i in range(n):
        for cls in classes:
            j = cls[0]

            first = _relative(rows[0], i, j)
            if all(_relative(o, i, j) == first for o in rows):
                cls.append(i)
                break
        else:
            classes.append([i])
    return tuple(tuple(names[part[i]] for i in cls) for cls in classes if len(cls) > 1)


def _relative(row: Sequence[tuple[int, ...]], i: int, j: int) -> tuple[int, ...]:
    """Piece i against piece j in one state: both shapes and the offset between their origins."""
    return (row[i][0], row[j][0], *(a - b for a, b in zip(row[i][1:], row[j][1:], strict=True)))


def take_apart_with_turns(search: TurningSearch) -> Separation | Stuck:
    """The whole assembly of `search`, every piece in its assembled pose, taken apart with turns."""
    n = len(search.placed)
    return search.take_apart_turning(list(range(n)), [(IDENTITY, (0, 0, 0))] * n)



def disassemble_turning(pieces: Mapping[str, Iterable[Cell]], groups: Sequence[frozenset[str]] = (),
                        max_states: int | None = None, first_found: bool = False,
                        rotation_clearance: Fraction | float | str = 0, native: bool = True) -> Disassembly:
    """`disassembly.disassemble` with quarter turns as moves too (the search in Python, the sweep test in
    C where built: `native=False` runs its twin), each cube shrunk by `rotation_clearance` on every side
    in the sweep test (0: exact cubes). Past `max_states` states in one search: TooManyStates."""
    clearance = check_rotations(True, rotation_clearance)
    names = list(pieces)
    check_pieces(len(names))
    cells = {nm: tuple(pieces[nm]) for nm in names}
    if len(names) < 2:
        return Disassembly(None, Stuck(tuple(names), 0, ()), 0)
    shapes = _shapes_for_calls(False)
    search = TurningSearch([shapes.of(cells[nm]) for nm in names], names, shapes, tuple(groups), max_states,
                           False, best=not first_found, assembled=[cells[nm] for nm in names], clearance=clearance,
                           sweep_native=native)
    try:
        got = take_apart_with_turns(search)
    except _TooMany as exc:
        raise TooManyStates(exc.states) from None
    if isinstance(got, Stuck):
        return Disassembly(None, got, search.visited)
    return Disassembly(got, None, search.visited)


class TurningPlacedDisassembler(PlacedDisassembler):
    """`PlacedDisassembler` with quarter turns (`enumerate --disassemble --rotations`): each class is taken
    apart whole by `disassemble_turning`, in Python; the level text marks turns."""

    def __init__(self, problem: ExactCoverProblem, groups: Sequence[frozenset[str]] = (), *,
                 max_states: int | None = None, best: bool = True, grid: str = "cubes",
                 rotation_clearance: Fraction | float | str = 0) -> None:
        check_grid(grid)
        self.clearance = check_rotations(True, rotation_clearance, grid)
        super().__init__(problem, groups, max_states=max_states, native=False, best=best, grid=grid)

    def take_apart(self, classes: Sequence[Sequence[Placement]], moves: bool = False) -> list[Taken]:
        return [self._turned(cls, moves) for cls in classes]

    def _turned(self, cls: Sequence[Placement], moves: bool) -> Taken:
        if len(cls) < 2:
            return None, None, []
        at = self.problem.cells
        names = self.labels(cls)
        got = disassemble_turning({nm: tuple(at[c] for c in placement[1]) for nm, placement in zip(names, cls,
                                                                                                 strict=True)},
                                  self.groups, self.max_states, not self.best, self.clearance)
        if got.separation is None:
            return None, None, []
        return got.separation.level(), got.level_text(), [m.as_json() for m in got.moves()] if moves else []


class TurningLevelTally(LevelTally):
    """`LevelTally` for `enumerate --disassemble --rotations`: levels with the same moves per figure but
    another split into slides and turns (`2R1` and `1R2`, both 3 moves) are apart, as they are different
    ways to come apart. Each level is keyed by its figures as (moves, turns) pairs laid end to end, so
    levels still sort by moves first (then, at equal moves, by turns) and the highest is the most moves.
    Used only with rotations, so the tally (and its output) of a run without turns is untouched."""

    def add(self, assemblies: int, mirror_distinct: bool, level: tuple[int, ...] | None,
            text: str | None = None) -> None:
        if level is not None and text is not None:
            key = split_key(text)
            self.texts.setdefault(key, text)
            level = key
        super().add(assemblies, mirror_distinct, level, None)


def split_key(text: str) -> tuple[int, ...]:
    """`2R1.3` -> (3, 1, 3, 0): each figure's moves (turns counted) and turns, for `TurningLevelTally`."""
    out: list[int] = []
    for figure in text.split("."):
        slides, _, turns = figure.partition("R")
        out += (int(slides) + int(turns or 0), int(turns or 0))
    return tuple(out)



def placed_disassembler(problem: ExactCoverProblem, groups: Sequence[frozenset[str]] = (), *, grid: str = "cubes",
                        rotations: bool = False, rotation_clearance: Fraction | float | str = 0) -> PlacedDisassembler:
    """The disassembler of a run's classes (`enumerate --disassemble`, `design pieces --min-level`): by
    slides in C batches, or with `rotations` the search with turns, each cube shrunk by `rotation_clearance`
    in the sweep test."""
    if rotations:
        return TurningPlacedDisassembler(problem, groups, grid=grid, rotation_clearance=rotation_clearance)
    return PlacedDisassembler(problem, groups, grid=grid)
