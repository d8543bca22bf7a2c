"""Colour marks: paint a container cell and one cube of a piece alike, so that cube must sit there.

**What a mark means, and why this one.** BurrTools' colour rule (cpsolve's `cell_colors` and
`color_rules`) lets an uncoloured cell, of a piece or of the container, match anything. So painting
one cell c and one cube q of piece P the colour `mark` forces nothing by itself: q may still sit on
any uncoloured cell, and any uncoloured cube on c. The file states "cube q of P sits on cell c"
exactly when every *other* container cell carries a colour that `mark` may not sit on: all
uncoloured cells become `unmarked` and the only rule for `mark` is `mark: [mark]`. q then has one
cell to go to, and c is covered by q, so nothing else. ("P covers c, with any cube" would need every
other piece painted instead; it is the union of the marks (c, P, q) over P's cubes, so the finer
mark always needs as few marks or fewer, and it is what a designer prints: one painted cube, one
painted spot.) A colour a piece already carries gets `unmarked` added to its rule, so it may still
sit wherever it could before; cells and cubes that already carry a colour are never marked.

**Which cube.** A row of the exact-cover problem is a set of cells; when P has symmetries, several
of its orientations cover the same cells and put different cubes on c. The mark (c, P, q) holds
for an assembly when *some* colour-allowed orientation of the row covering c puts q there, which
is exactly when the marked file admits that placement. Cubes exchanged by a symmetry of P (its
colours included) give the same puzzle, so one representative per orbit is kept.

**Copies.** The marked cube is on one copy: a piece with k copies becomes a marked piece (one
copy) and the same piece with k - 1 copies (a range loses one copy at both ends, never below 0).
Since exactly one copy covers c, each assembly of the original that satisfies the mark is exactly
one assembly of the marked file: the count is the same.

**Pairs.** Two marks either sit on two copies (of one piece or of two pieces: two marked pieces)
or on one copy (two cubes of one piece, which holds when one orientation puts both cubes on their
cells). Each marked cube has its own colour (`mark1`, `mark2`): with one colour, two cubes of one
copy could trade cells, a different (weaker) mark. Both kinds are counted.

**Counting.** As for fixes: one pass over every assembly of the unbroken problem, counting for each
mark (or pair) the assemblies that satisfy it; a count of 1 means the marked file has exactly one
assembly, which is then proved by enumerating that file.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ...errors import CpsolveError
from ...problem.placements import ExactCoverProblem
from ...problem.symmetry import rotations_of
from ...puzzle.geometry import Cell
from ...puzzle.grid import CUBES, Grid
from ...puzzle.model import Piece, Puzzle
from .changes import Change, ChangeReport, assemblies_of, prove
from .files import origin_of, shifted

Assign = tuple[tuple[int, int], ...]
"""(cube index in the piece's shape, container cell index) pairs, sorted: the marks on one copy."""
Copy = tuple[int, Assign]
"""A marked copy: piece index and its marks."""
Design = tuple[Copy, ...]
"""A set of marked copies, sorted: one suggestion."""

MAX_PAIR_WORK = 20_000_000
"""Pairs of marks counted over all assemblies at most (PelikanBurr: 12.6 M, 15 s, 340 MB); more is refused."""


@dataclass(frozen=True)
class MarkedCopy:
    """One copy of a piece with some of its cubes painted: (cube, container cell) pairs, file coordinates
    for the cell, the piece's own (normalized) coordinates for the cube."""

    piece: str
    cubes: tuple[tuple[Cell, Cell], ...]


def piece_orientations(piece: Piece, grid: Grid = CUBES) -> list[tuple[Cell, ...]]:
    """Each distinct rotation of the piece on its grid as the moved position of every cube (same order as
    the shape), in the grid's normal form (`Grid.turned`)."""
    out: list[tuple[Cell, ...]] = []
    for moved in grid.turned(piece.shape):
        pos = tuple(moved)
        if pos not in out:
            out.append(pos)
    return out


def piece_symmetries(piece: Piece, grid: Grid = CUBES) -> list[tuple[int, ...]]:
    """The rotations that map the (coloured) piece onto itself, as permutations of its cube indices."""
    index = {c: i for i, c in enumerate(piece.shape)}
    paint = dict(piece.colors)
    out = []
    for pos in piece_orientations(piece, grid):
        if set(pos) == set(piece.shape) and all(paint.get(pos[i]) == paint.get(c) for i, c in enumerate(piece.shape)):
            out.append(tuple(index[pos[i]] for i in range(len(pos))))
    return out


class MarkCounter:
    """Which marks each placement (row) of a puzzle satisfies, and the counts over assemblies."""

    def __init__(self, puzzle: Puzzle, problem: ExactCoverProblem) -> None:
        self.puzzle, self.problem = puzzle, problem
        index = {c: i for i, c in enumerate(problem.cells)}
        paint = dict(puzzle.container_colors)
        self.markable_cell = [c not in paint for c in problem.cells]
        grid = puzzle.lattice
        self.syms = [piece_symmetries(p, grid) for p in puzzle.pieces]
        orients = [piece_orientations(p, grid) for p in puzzle.pieces]
        self.maps: list[list[tuple[int, ...]]] = []
        """Per row: each colour-allowed orientation as cube index -> container cell index."""
        for row in problem.rows:
            piece = puzzle.pieces[row.piece]
            cube_paint = dict(piece.colors)
            target = sorted(problem.cells[c] for c in row.cells)
            there = grid.shift_of(target)  # the orientations are in normal form: moved back by it
            found: list[tuple[int, ...]] = []
            for pos in orients[row.piece]:
                placed = [(x - there[0], y - there[1], z - there[2]) for x, y, z in pos]
                if sorted(placed) != target:
                    continue
                if not all(puzzle.color_allows(cube_paint.get(src), paint.get(dst))
                           for src, dst in zip(piece.shape, placed, strict=True)):
                    continue
                cube_to_cell = tuple(index[c] for c in placed)
                if cube_to_cell not in found:
                    found.append(cube_to_cell)
            self.maps.append(found)
        self.markable_cube = [[c not in dict(p.colors) for c in p.shape] for p in puzzle.pieces]

    def canon(self, piece: int, assign: Iterable[tuple[int, int]]) -> Assign:
        """The marks on one copy, up to the piece's own symmetries (the smallest relabelling of the cubes)."""
        pairs = list(assign)
        return min(tuple(sorted((s[q], c) for q, c in pairs)) for s in self.syms[piece])

    def singles(self, r: int) -> set[Copy]:
        """The one-cube marks that row r satisfies."""
        p = self.problem.rows[r].piece
        ok = self.markable_cube[p]
        return {(p, self.canon(p, [(q, m[q])])) for m in self.maps[r] for q in range(len(m))
                if ok[q] and self.markable_cell[m[q]]}

    def doubles(self, r: int) -> set[Copy]:
        """Two cubes of one copy marked: the pairs that one orientation of row r puts on their cells."""
        p = self.problem.rows[r].piece
        ok = self.markable_cube[p]
        out = set()
        for m in self.maps[r]:
            cubes = [q for q in range(len(m)) if ok[q] and self.markable_cell[m[q]]]
            for q1, q2 in itertools.combinations(cubes, 2):
                out.add((p, self.canon(p, [(q1, m[q1]), (q2, m[q2])])))
        return out

    def count(self, assemblies: Sequence[tuple[int, ...]], size: int) -> Counter[Design]:
        """For each design of `size` marks, the number of assemblies that satisfy it.

        A mark names its cell, which one row of an assembly covers, so the marks an assembly
        satisfies are distinct across its rows: single marks and one-copy pairs are counted per
        row (times the row's number of assemblies). Two-copy pairs are all pairs of the assembly's
        marks (`combinations`, in C, over small integer ids) minus the pairs that come from one row.
        """
        uses = Counter(r for rows in assemblies for r in rows)
        tally: Counter[Design] = Counter()
        single_of = {r: self.singles(r) for r in uses}
        if size == 1:
            for r, n in uses.items():
                for m in single_of[r]:
                    tally[(m,)] += n
            return tally
        ids: dict[Copy, int] = {}
        row_ids = {r: sorted(ids.setdefault(m, len(ids)) for m in single_of[r]) for r in uses}
        work = sum(math.comb(sum(len(row_ids[r]) for r in rows), 2) for rows in assemblies)
        if work > MAX_PAIR_WORK:
            raise CpsolveError(f"{work:,} pairs of marks to count over {len(assemblies)} assemblies (more than "
                               f"{MAX_PAIR_WORK:,}): too many to count in memory", where=self.puzzle.name, exit_code=1)
        pairs: Counter[tuple[int, int]] = Counter()
        for rows in assemblies:
            pairs.update(itertools.combinations(sorted(i for r in rows for i in row_ids[r]), 2))
        for r, n in uses.items():
            for pair in itertools.combinations(row_ids[r], 2):
                pairs[pair] -= n
        copies = list(ids)
        for (a, b), n in pairs.items():
            if n:
                tally[tuple(sorted((copies[a], copies[b])))] = n
        for r, n in uses.items():
            for m in self.doubles(r):
                tally[(m,)] += n
        return tally

    def moved(self, design: Design, perm: Sequence[int]) -> Design:
        """The design carried by a container symmetry (a permutation of cell indices)."""
        return tuple(sorted((p, self.canon(p, [(q, perm[c]) for q, c in assign])) for p, assign in design))

    def marked_copies(self, design: Design) -> tuple[MarkedCopy, ...]:
        """The design with piece names, cube coordinates and container cells (file coordinates)."""
        lo = origin_of(self.puzzle.container, self.puzzle.grid)
        out = []
        for p, assign in design:
            piece = self.puzzle.pieces[p]
            out.append(MarkedCopy(piece.name, tuple(
                (piece.shape[q], tuple(shifted(self.problem.cells[c], lo))) for q, c in assign)))  # type: ignore[misc]
        return tuple(out)


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


def marked(puzzle: Puzzle, copies: Sequence[MarkedCopy], name: str) -> Puzzle:
    """The puzzle with each marked copy split off its piece, its cubes and cells painted (see the module)."""
    lo = origin_of(puzzle.container, puzzle.grid)
    colour_names = ({k for _, k in puzzle.container_colors} | {k for p in puzzle.pieces for _, k in p.colors}
                    | {x for rule in puzzle.color_rules for x in rule})
    piece_names = {p.name for p in puzzle.pieces}
    plain = _fresh("unmarked", colour_names)
    paint = dict(puzzle.container_colors)
    rules = set(puzzle.color_rules) | {(k, plain) for p in puzzle.pieces for _, k in p.colors}
    extra: dict[str, list[Piece]] = {}
    marked_names: dict[str, list[str]] = {}
    used = Counter(m.piece for m in copies)
    by_name = {p.name: p for p in puzzle.pieces}
    n_marks = sum(len(m.cubes) for m in copies)
    k = 0
    for i, m in enumerate(copies):
        piece = by_name[m.piece]
        painted = []
        for q, cell in m.cubes:  # a colour per cube: two cubes of one copy must not trade cells
            k += 1
            colour = _fresh(f"mark{k}" if n_marks > 1 else "mark", colour_names)
            rules.add((colour, colour))
            paint[(cell[0] + lo[0], cell[1] + lo[1], cell[2] + lo[2])] = colour
            painted.append((q, colour))
        if used[m.piece] == piece.count == 1:  # the piece itself, nothing split off: it keeps its name
            base = m.piece
            piece_names.discard(base)
        else:
            base = f"{m.piece}-marked" + (f"-{sum(1 for x in copies[:i] if x.piece == m.piece) + 1}"
                                          if used[m.piece] > 1 else "")
        new = Piece(_fresh(base, piece_names), piece.shape, 1, piece.color, None,
                    tuple(sorted(piece.colors + tuple(painted))))
        extra.setdefault(m.piece, []).append(new)
        marked_names.setdefault(m.piece, []).append(new.name)
    for c in puzzle.container:
        paint.setdefault(c, plain)
    pieces: list[Piece] = []
    for p in puzzle.pieces:
        if used[p.name] < p.count:
            count, low = p.count - used[p.name], max(p.low - used[p.name], 0)
            pieces.append(replace(p, count=count, min_count=None if low == count else low))
        pieces += extra.get(p.name, [])
    names = {p.name for p in pieces}
    groups = tuple(frozenset(g | {n for old in g for n in marked_names.get(old, [])}) & names for g in puzzle.groups)
    unit = UNIT.get(puzzle.grid, "cell")
    words = "; ".join(f"{unit} {list(q)} of {m.piece} on cell {list(c)}" for m in copies for q, c in m.cubes)
    return replace(puzzle, name=name, pieces=tuple(pieces), container_colors=tuple(sorted(paint.items())),
                   color_rules=frozenset(rules), groups=tuple(g for g in groups if g),
                   key_piece=puzzle.key_piece if puzzle.key_piece in names else None, reference=None, origin=None,
                   description=f"{puzzle.name} with {words} (each marked {unit} painted like its cell; every other "
                               f"cell painted {plain!r}, so a painted {unit} must sit on its painted cell)")


UNIT = {"cubes": "cube", "prisms": "triangle", "spheres": "ball"}
"""What a piece's cell is called in a mark's words, by grid (else "cell")."""


def describe(copies: Sequence[MarkedCopy], grid: str = "cubes") -> str:
    parts = []
    for m in copies:
        cubes = " and ".join(f"{UNIT.get(grid, 'cell')} {list(q)} on cell {list(c)}" for q, c in m.cubes)
        parts.append(f"{m.piece}: {cubes}")
    return "mark " + "; ".join(parts)


def suggest_marks(puzzle: Puzzle, backend: str = "auto", limit: int = 5, verify: bool = True,
                  max_assemblies: int = 500_000, source: str = "cpsolve design unique --change mark") -> ChangeReport:
    """The fewest colour marks (one, else two) that leave exactly one assembly, one per rotation orbit."""
    from ...search.enumeration import Prepared

    prepared, found = assemblies_of(puzzle, backend, max_assemblies)
    assert isinstance(prepared, Prepared)
    counter = MarkCounter(puzzle, prepared.problem)
    rotations = rotations_of(prepared.group)
    size, once = 0, []
    for k in (1, 2):
        once = sorted(d for d, n in counter.count(found, k).items() if n == 1)
        if once:
            size = k
            break
    seen: set[Design] = set()
    orbits: list[tuple[Design, int]] = []
    for design in once:
        if design in seen:
            continue
        orbit = {counter.moved(design, g.perm) for g in rotations}
        seen |= orbit
        orbits.append((design, len(orbit)))
    changes = []
    for i, (design, orbit_size) in enumerate(orbits[:limit]):
        copies = counter.marked_copies(design)
        name = f"{puzzle.name}-marked-{i + 1}"
        text, total = prove(puzzle, marked(puzzle, copies, name), source, backend, verify)
        detail: dict[str, object] = {"marks": [{"piece": m.piece, "cube": list(q), "cell": list(c)}
                                               for m in copies for q, c in m.cubes],
                                     "copies": len(copies)}
        changes.append(Change("mark", describe(copies, puzzle.grid), detail, name, text, orbit_size, total))
    return ChangeReport(puzzle.name, "mark", len(found), size, len(once), tuple(changes))
