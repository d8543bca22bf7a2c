"""Symmetries of a container, and symmetry breaking by a key piece.

Symmetry breaking keeps one placement per orbit of a key piece under the container's rotations.
Every rotation class of solutions still has a member among the solutions left, and the number of
all assemblies is recovered exactly as the sum, over the solutions found, of the orbit size of the
key placement they use (its `weight`): solutions with the key at placement p are in bijection with
those at any g(p).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..errors import CpsolveError
from ..puzzle.geometry import ALL_TRANSFORMS, Cell, Transform
from ..puzzle.grid import CUBES, Grid, GridMap
from .placements import ExactCoverProblem


@dataclass(frozen=True)
class SymmetryElement:
    """An isometry mapping the container onto itself, as a permutation of its cell indices."""

    transform: Transform | GridMap | None
    """The turn (None: a product of two turns the grid's list lacks, see `container_group`)."""
    perm: tuple[int, ...]
    """perm[i] is the index of the cell that cell i is carried to."""
    reflection: bool | None = None
    """Whether it mirrors, when `transform` cannot say."""

    @property
    def is_reflection(self) -> bool:
        if self.transform is None:
            return bool(self.reflection)
        return self.transform.is_reflection


def container_group(cells: Sequence[Cell], classes: Sequence[int] = (), grid: Grid = CUBES
                    ) -> tuple[SymmetryElement, ...]:
    """All turns and mirror images of the grid (with the translation that realigns the shape) that map
    `cells` onto itself.

    With `classes` (one per cell: required or optional, and colour), only the elements that map every
    cell onto a cell of the same class are kept: a turn that swaps an optional cell with a required
    one, or a red cell with a blue one, turns a solution into something that is not a solution.
    The sphere grid's 240 maps are not a group (BurrTools lists only the turns connected shapes meet):
    the self-maps of a container are closed under products here, so that orbits are orbits.
    """
    if grid is not CUBES:
        return _grid_group(cells, classes, grid)
    index = {c: i for i, c in enumerate(cells)}
    get = index.get
    lo = tuple(min(c[i] for c in cells) for i in range(3))
    group = []
    for t in ALL_TRANSFORMS:
        moved = [t.apply(c) for c in cells]
        mlo = tuple(min(c[i] for c in moved) for i in range(3))
        sx, sy, sz = (lo[i] - mlo[i] for i in range(3))
        # A symmetry iff every moved cell, realigned, is a cell (distinct cells, as many: then a permutation).
        # Looked up directly, without normalising (sorting) the moved shape: 0.45 s of CPU on a 27x27x27 box
        # where the sort took 0.8.
        found = [get((m[0] + sx, m[1] + sy, m[2] + sz)) for m in moved]
        if None in found:
            continue
        perm = tuple(j for j in found if j is not None)
        if classes and any(classes[perm[i]] != classes[i] for i in range(len(perm))):
            continue
        group.append(SymmetryElement(t, perm))
    return tuple(group)


def _grid_group(cells: Sequence[Cell], classes: Sequence[int], grid: Grid) -> tuple[SymmetryElement, ...]:
    index = {c: i for i, c in enumerate(cells)}
    target = grid.normalize(cells)
    back = grid.shift_of(list(cells))
    found: dict[tuple[int, ...], SymmetryElement] = {}
    for g in grid.maps:
        moved = grid.moved(g, list(cells))
        if moved is None or grid.normalize(moved) != target:
            continue
        s = grid.shift_of(moved)
        shift = (s[0] - back[0], s[1] - back[1], s[2] - back[2])
        perm = tuple(index[(m[0] + shift[0], m[1] + shift[1], m[2] + shift[2])] for m in moved)
        if classes and any(classes[perm[i]] != classes[i] for i in range(len(perm))):
            continue
        found.setdefault(perm, SymmetryElement(g, perm))
    todo = list(found.values())
    while todo:  # close under products
        a = todo.pop()
        for b in list(found.values()):
            for x, y in ((a, b), (b, a)):
                perm = tuple(y.perm[x.perm[i]] for i in range(len(cells)))
                if perm not in found:
                    found[perm] = SymmetryElement(None, perm, x.is_reflection != y.is_reflection)
                    todo.append(found[perm])
    return tuple(sorted(found.values(), key=lambda e: (e.is_reflection, e.perm)))


def rotations_of(group: Sequence[SymmetryElement]) -> tuple[SymmetryElement, ...]:
    return tuple(g for g in group if not g.is_reflection)


@dataclass(frozen=True)
class KeyChoice:
    """The outcome of symmetry breaking: which rows of the key survive and what each one weighs.

    Every solution uses exactly one of the key's rows: the key piece's placement, or for a key
    *cell* (puzzles whose pieces all have several copies) the placement covering that cell.
    """

    kind: str
    """'piece', 'cube' (of a chain), 'cell' or 'none'."""
    name: str | None
    placements: int
    """How many placements the key had before breaking."""
    rows: tuple[int, ...]
    """Row indices (in the *unbroken* problem) of the key placements that are kept."""
    weights: tuple[int, ...]
    """Orbit size of each kept row: the number of assemblies each solution through it stands for."""
    all_rows: tuple[int, ...] = ()
    """Every row of the key before breaking (the rows not kept are dropped from the problem)."""

    def describe(self) -> str:
        if self.kind == "none":
            return "no symmetry breaking"
        return f"key {self.kind} {self.name}: {len(self.rows)} of {self.placements} placements kept"


def row_orbits(problem: ExactCoverProblem, rows: Sequence[int], group: Sequence[SymmetryElement]) -> list[list[int]]:
    """Partition `rows` into orbits under `group` (rows are mapped by moving their cells)."""
    lookup = {(problem.rows[r].piece, problem.rows[r].cells): r for r in rows}
    seen: set[int] = set()
    orbits = []
    for r in rows:
        if r in seen:
            continue
        piece, cells = problem.rows[r].piece, problem.rows[r].cells
        orbit = {lookup[(piece, tuple(sorted(g.perm[c] for c in cells)))] for g in group}
        seen |= orbit
        orbits.append(sorted(orbit))
    return orbits


def _key(kind: str, name: str, rows: Sequence[int], orbits: list[list[int]]) -> KeyChoice:
    return KeyChoice(
        kind, name, len(rows), tuple(o[0] for o in orbits), tuple(len(o) for o in orbits), tuple(rows)
    )


def _piece_key(problem: ExactCoverProblem, p: int, rotations: Sequence[SymmetryElement]) -> KeyChoice:
    rows = problem.rows_by_piece[p]
    kind = "cube" if problem.kind == "chain" else "piece"
    return _key(kind, problem.piece_names[p], rows, row_orbits(problem, rows, rotations))


def _cell_key(problem: ExactCoverProblem, c: int, rotations: Sequence[SymmetryElement]) -> KeyChoice:
    """Break by the placement covering cell c, up to the rotations that fix c."""
    stabiliser = [g for g in rotations if g.perm[c] == c]
    rows = problem.rows_by_cell[c]
    return _key("cell", str(list(problem.cells[c])), rows, row_orbits(problem, rows, stabiliser))


def _trivial_stabilisers(choice: KeyChoice, n_rotations: int) -> bool:
    return all(w == n_rotations for w in choice.weights)


def choose_key(
    problem: ExactCoverProblem,
    group: Sequence[SymmetryElement],
    key_piece: str | None = None,
    pick: Callable[[Sequence[KeyChoice]], KeyChoice] | None = None,
) -> KeyChoice:
    """The key piece that leaves the fewest representatives (ties: trivial stabilisers, then order).

    `pick`, when given, chooses among all the candidate pieces instead (they come ordered by that
    rule, best first): the search stage passes one that compares estimated search-tree sizes,
    which the number of representatives predicts poorly (the Tetris Cube's fewest-representatives
    key searches 2.3 times the nodes of the best one).

    Only pieces used exactly once can be keys: restricting one of k identical copies would not
    partition the solutions, and a piece that may be absent (a range with minimum 0) leaves the
    solutions without it unrestricted and unweighted. When no piece qualifies, the key is the
    *required* cell whose stabiliser is largest (the centre of an odd cube: all 24 rotations), if
    that stabiliser is not trivial; an optional cell may stay empty, so it cannot be a key.
    """
    rotations = rotations_of(group)
    if key_piece is not None:
        if key_piece not in problem.piece_names:
            raise CpsolveError(f"unknown piece {key_piece!r}", field="key_piece")
        p = problem.piece_names.index(key_piece)
        if problem.piece_counts[p] != 1 or problem.piece_low[p] != 1:
            raise CpsolveError(f"piece {key_piece!r} is not used exactly once and cannot be the key",
                               field="key_piece")
        return _piece_key(problem, p, rotations)
    if len(rotations) <= 1:
        return no_key()
    unique = [p for p in range(problem.n_pieces) if problem.piece_counts[p] == 1 and problem.piece_low[p] == 1
              and problem.rows_by_piece[p]]
    if unique:
        candidates = sorted(
            (_piece_key(problem, p, rotations) for p in unique),
            key=lambda c: (len(c.rows), not _trivial_stabilisers(c, len(rotations)), unique.index(
                problem.piece_names.index(c.name))),
        )
        return candidates[0] if pick is None or len(candidates) == 1 else pick(candidates)
    if not problem.required:
        return no_key()
    stab = {c: sum(1 for g in rotations if g.perm[c] == c) for c in problem.required}
    best = max(problem.required, key=lambda c: (stab[c], -c))
    return _cell_key(problem, best, rotations) if stab[best] > 1 else no_key()


def no_key() -> KeyChoice:
    return KeyChoice("none", None, 0, (), ())


@dataclass(frozen=True)
class BrokenProblem:
    """A problem after symmetry breaking, with the key rows and weights renumbered to match it."""

    problem: ExactCoverProblem
    key: KeyChoice
    key_rows: tuple[int, ...]
    """Indices in `problem.rows` of the kept key placements (empty without a key)."""
    weights: tuple[int, ...]

    @property
    def starts(self) -> list[tuple[int, ...]]:
        """Forced-row prefixes that partition the search: one per kept key placement, or the whole
        problem. The run's subproblems and the key choice's estimates both start from these."""
        return [(r,) for r in self.key_rows] or [()]

    def weight_of(self, solution_rows: Sequence[int]) -> int:
        """How many assemblies (rotated copies distinct) the solution stands for."""
        if not self.key_rows:
            return 1
        table = self._weight_table
        for r in solution_rows:  # called once per solution found: a plain loop over a list, no generator
            if weight := table[r]:
                return weight
        raise ValueError("the solution holds no key placement")

    @cached_property
    def _weight_table(self) -> list[int]:
        """Row -> its weight if it is a kept key placement, else 0 (weights are >= 1)."""
        table = [0] * len(self.problem.rows)
        for r, w in zip(self.key_rows, self.weights, strict=True):
            table[r] = w
        return table


def apply_key(problem: ExactCoverProblem, key: KeyChoice) -> BrokenProblem:
    """The problem with the key's non-representative placements removed."""
    if key.kind == "none":
        return BrokenProblem(problem, key, (), ())
    dropped = set(key.all_rows) - set(key.rows)
    keep = [r for r in range(len(problem.rows)) if r not in dropped]
    new_index = {old: new for new, old in enumerate(keep)}
    return BrokenProblem(problem.with_rows(keep), key, tuple(new_index[r] for r in key.rows), key.weights)
