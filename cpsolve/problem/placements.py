"""Every way each piece fits in the container, as one exact-cover problem that all backends consume.

Rows are placements; items are the container's cells (each covered exactly once) and the pieces
(piece p used exactly `count[p]` times). Optional `side_clauses` carry constraints that are not
exact cover (a chain's joints); backends that cannot express them say so.

Designers' puzzles add two generalisations (Knuth's XCC with multiplicities, TAOCP 7.2.2.1):
*optional* cells are secondary items (covered at most once), and a piece may carry a *range*
`[low, count]` of copies. A solution is then any set of disjoint placements that covers every
required cell and uses each piece between its bounds. Colour constraints never reach the problem:
they only remove placements.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..errors import CpsolveError
from ..limits import check_placements
from ..puzzle.geometry import Cell, Shape
from ..puzzle.grid import CUBES, GRIDS, Grid
from ..puzzle.model import Piece, Puzzle


@dataclass(frozen=True)
class Row:
    """One placement: piece index, the sorted container cell indices it covers."""

    piece: int
    cells: tuple[int, ...]


@dataclass(frozen=True)
class ExactCoverProblem:
    name: str
    cells: tuple[Cell, ...]
    """Container cells; a cell's position in this tuple is its item index."""
    piece_names: tuple[str, ...]
    piece_counts: tuple[int, ...]
    rows: tuple[Row, ...]
    side_clauses: tuple[tuple[int, ...], ...] = ()
    """Extra CNF clauses over row literals: +(r+1) means row r is chosen, -(r+1) that it is not."""
    kind: str = "pieces"
    mirror_labels: tuple[int, ...] | None = None
    """Piece index -> its mirror partner's index, or None when the piece set is not closed under mirroring."""
    label_symmetries: tuple[tuple[int, ...], ...] = field(default=())
    """Relabellings of pieces that give the same physical assembly (a palindromic chain read backwards)."""
    optional: tuple[int, ...] = ()
    """Sorted indices of the cells that may stay empty (secondary items); every other cell is required."""
    piece_minimums: tuple[int, ...] = ()
    """The fewest copies of each piece a solution uses; empty means exactly `piece_counts`."""
    cell_classes: tuple[int, ...] = ()
    """A class per cell (required or optional, and colour) that container symmetries must preserve;
    empty when all cells are alike."""
    grid: str = "cubes"
    """The grid of the cells (`puzzle.grid.GRIDS`): their neighbours and the container's symmetries."""

    @property
    def piece_low(self) -> tuple[int, ...]:
        """The fewest copies of each piece (equal to `piece_counts` without ranges)."""
        return self.piece_minimums or self.piece_counts

    @property
    def has_ranges(self) -> bool:
        return self.piece_low != self.piece_counts

    @cached_property
    def optional_set(self) -> frozenset[int]:
        return frozenset(self.optional)

    @cached_property
    def required(self) -> tuple[int, ...]:
        """Indices of the cells every solution covers."""
        return tuple(c for c in range(self.n_cells) if c not in self.optional_set)

    def features(self) -> tuple[str, ...]:
        """The generalisations of plain exact cover this problem uses (for backends that lack some)."""
        return tuple(name for name, used in (("optional cells", bool(self.optional)),
                                             ("piece ranges", self.has_ranges)) if used)

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def n_pieces(self) -> int:
        return len(self.piece_names)

    @cached_property
    def cell_index(self) -> dict[Cell, int]:
        return {c: i for i, c in enumerate(self.cells)}

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Each cell's face neighbours inside the container (cell indices, in the grid's order of steps;
        balls: the touching ones): the engine's region pruning and CP-SAT's cell order both look at pockets."""
        index = self.cell_index
        grid = GRIDS[self.grid]
        return tuple(tuple(index[q] for dx, dy, dz in grid.steps(c) if (q := (c[0] + dx, c[1] + dy, c[2] + dz))
                           in index) for c in self.cells)

    @property
    def faces(self) -> int:
        """How many face neighbours a cell of the grid has (6 for cubes, 12 touching balls)."""
        grid = GRIDS[self.grid]
        return max((len(grid.steps(c)) for c in self.cells[:1]), default=6)

    @cached_property
    def rows_by_cell(self) -> tuple[tuple[int, ...], ...]:
        by_cell: list[list[int]] = [[] for _ in self.cells]
        for r, row in enumerate(self.rows):
            for c in row.cells:
                by_cell[c].append(r)
        return tuple(tuple(rs) for rs in by_cell)

    @cached_property
    def rows_by_piece(self) -> tuple[tuple[int, ...], ...]:
        by_piece: list[list[int]] = [[] for _ in self.piece_names]
        for r, row in enumerate(self.rows):
            by_piece[row.piece].append(r)
        return tuple(tuple(rs) for rs in by_piece)

    @cached_property
    def cell_row_bits(self) -> tuple[int, ...]:
        """Each cell's rows as one integer (bit r set: row r covers the cell). Splitting a run into parts
        counts every cell's live placements; a few big-integer ANDs do that for all rows at once,
        where a pass over the rows took 1 ms a part (the Tetris Cube's 3,804 rows)."""
        return tuple(_bitset(rs) for rs in self.rows_by_cell)

    @cached_property
    def piece_row_bits(self) -> tuple[int, ...]:
        """Each piece's rows as one integer, as `cell_row_bits`."""
        return tuple(_bitset(rs) for rs in self.rows_by_piece)

    def with_rows(self, keep: Sequence[int]) -> ExactCoverProblem:
        """The same problem restricted to a subset of rows (used by symmetry breaking).

        Side clauses mention rows by index, so they are renumbered; a clause that contains a literal
        "row r is not chosen" for a dropped row r is satisfied and dropped, a literal "row r is chosen"
        for a dropped row is false and removed from its clause.
        """
        new_index = {old: new for new, old in enumerate(keep)}
        clauses = []
        for clause in self.side_clauses:
            lits, satisfied = [], False
            for lit in clause:
                r = abs(lit) - 1
                if r in new_index:
                    lits.append((new_index[r] + 1) * (1 if lit > 0 else -1))
                elif lit < 0:
                    satisfied = True
                    break
            if not satisfied:
                clauses.append(tuple(lits))
        return replace(self, rows=tuple(self.rows[r] for r in keep), side_clauses=tuple(clauses))

    def solution_grid(self, rows: Sequence[int]) -> tuple[int, ...]:
        """The labelled cell grid of a solution: for each cell, the index of the piece covering it."""
        grid = [-1] * self.n_cells
        for r in rows:
            row = self.rows[r]
            for c in row.cells:
                grid[c] = row.piece
        return tuple(grid)

    def copy_grid(self, rows: Sequence[int]) -> tuple[int, ...]:
        """For each cell, which placement of the solution covers it (its position in `rows`)."""
        grid = [-1] * self.n_cells
        for k, r in enumerate(rows):
            for c in self.rows[r].cells:
                grid[c] = k
        return tuple(grid)

    def usage(self, rows: Sequence[int]) -> tuple[list[int], list[int]]:
        """How often the rows cover each cell, and use each piece."""
        covered = [0] * self.n_cells
        used = [0] * self.n_pieces
        for r in rows:
            used[self.rows[r].piece] += 1
            for c in self.rows[r].cells:
                covered[c] += 1
        return covered, used

    def check_solution(self, rows: Sequence[int]) -> str | None:
        """Why `rows` is not a solution of this problem, or None if it is one."""
        if any(not 0 <= r < len(self.rows) for r in rows):
            return "a row index is out of range"
        covered, used = self.usage(rows)
        optional = self.optional_set
        wrong = (i for i, n in enumerate(covered) if n > 1 or (n == 0 and i not in optional))
        if (bad := next(wrong, None)) is not None:
            return f"cell {list(self.cells[bad])} is covered {covered[bad]} times"
        for p, (n, low, high) in enumerate(zip(used, self.piece_low, self.piece_counts, strict=True)):
            if not low <= n <= high:
                want = str(high) if low == high else f"{low}..{high}"
                return f"piece {self.piece_names[p]} is used {n} times instead of {want}"
        chosen = {r + 1 for r in rows}
        for clause in self.side_clauses:
            if not any((lit in chosen) if lit > 0 else (-lit not in chosen) for lit in clause):
                return f"side constraint {list(clause)} is violated"
        return None


class _Box:
    """Where a shape fits in the container, for every orientation of every piece.

    The container's bounding box is one integer, a bit per cell (x fastest): `outside` has the box's
    cells that are not the container's. A shape moved within the box fits when its bits miss
    `outside`: one shift and one AND instead of a lookup per cell (Pelikan's 200-cell cage in an 8x8x8
    box: 6x faster). A box past BITSET_CELLS cells (or 64 per container cell) looks cells up instead,
    in memory proportional to the container's cells (`lookup`). On a grid with several kinds of cell (up
    and down triangles...) an anchor goes only to container cells of its own kind: the translations that
    keep the grid.
    """

    def __init__(self, container: Shape, lookup: bool | None = None, grid: Grid = CUBES) -> None:
        self.container = container
        self.grid = grid
        self.low = [min(c[i] for c in container) for i in range(3)]
        self.high = [max(c[i] for c in container) for i in range(3)]
        size = math.prod(self.high[i] - self.low[i] + 1 for i in range(3))
        self.lookup = size > max(BITSET_CELLS, 64 * len(container)) if lookup is None else lookup
        self.inside = set(container) if self.lookup else set()
        low = self.low
        self.nx, self.ny = self.high[0] - low[0] + 1, self.high[1] - low[1] + 1
        self.outside = 0
        self.at: dict[object, list[tuple[int, int, int, int]]] = {}  # container cells with their bits, by kind
        if not self.lookup:
            outside = (1 << size) - 1
            for x, y, z in container:
                bit = x - low[0] + self.nx * (y - low[1] + self.ny * (z - low[2]))
                outside &= ~(1 << bit)
                self.at.setdefault(grid.kind((x, y, z)), []).append((x, y, z, bit))
            self.outside = outside

    def mask(self, cells: set[Cell]) -> int | set[Cell]:
        """Container cells for `offsets`' `avoid`: their bits in the box (as `outside`), or themselves."""
        if self.lookup:
            return cells
        low, nx, ny = self.low, self.nx, self.ny
        return sum(1 << (x - low[0] + nx * (y - low[1] + ny * (z - low[2]))) for x, y, z in cells)

    def offsets(self, orient: Sequence[Cell], anchor: Cell,
                avoid: Sequence[tuple[Sequence[Cell], int | set[Cell]]] = ()) -> Iterator[Cell]:
        """Every move c - anchor, c a container cell in the container's order, that puts `orient` inside it,
        each (cells, mask) of `avoid` with its cells (some of orient's) on none of the mask's (`mask`)."""
        ax, ay, az = anchor
        grid = self.grid
        kind = grid.kind(anchor)
        if self.lookup:
            inside = self.inside
            for cx, cy, cz in self.container:
                if grid is not CUBES and grid.kind((cx, cy, cz)) != kind:
                    continue
                dx, dy, dz = cx - ax, cy - ay, cz - az
                if all((x + dx, y + dy, z + dz) in inside for x, y, z in orient) and not any(
                        (x + dx, y + dy, z + dz) in cells for some, cells in avoid for x, y, z in some):  # type: ignore[operator]
                    yield dx, dy, dz
            return
        low, high, nx, ny = self.low, self.high, self.nx, self.ny
        # Where the anchor may go so that the orientation stays in the container's bounding box: a cell
        # outside these ranges is skipped with three comparisons (most of them, in a big box), and inside
        # the box no bit wraps to the next row.
        (xl, xh), (yl, yh), (zl, zh) = ((min(c[i] for c in orient), max(c[i] for c in orient)) for i in range(3))
        xa, xb = low[0] + ax - xl, high[0] + ax - xh
        ya, yb = low[1] + ay - yl, high[1] + ay - yh
        za, zb = low[2] + az - zl, high[2] + az - zh

        def bits(cells: Iterable[Cell]) -> int:
            return sum(1 << (x - xl + nx * (y - yl + ny * (z - zl))) for x, y, z in cells)

        # the orientation must miss the cells outside the container, each part of it its own mask
        tests = [(bits(orient), self.outside), *((bits(some), mask) for some, mask in avoid)]
        corner = ax - xl + nx * (ay - yl + ny * (az - zl))  # the anchor's bit in `bits`
        for cx, cy, cz, bit in self.at.get(kind, ()):
            if xa <= cx <= xb and ya <= cy <= yb and za <= cz <= zb and not any(
                    (b << (bit - corner)) & m for b, m in tests):  # type: ignore[operator]
                yield cx - ax, cy - ay, cz - az


def piece_placements(shape: Shape, container: Shape, grid: Grid = CUBES,
                     lookup: bool | None = None) -> list[tuple[Cell, ...]]:
    """All distinct placements of a rigid piece inside the container, as cell tuples.

    Orientations are deduplicated as shapes, so a symmetric piece yields each cell set once. `lookup`:
    the sparse containers' path, whatever the container (see `_Box`).
    """
    seen: set[tuple[Cell, ...]] = set()
    out = []
    box = _Box(container, lookup, grid)
    for orient in grid.orientations(shape):
        for dx, dy, dz in box.offsets(orient, orient[0]):
            cells = tuple((x + dx, y + dy, z + dz) for x, y, z in orient)
            if cells not in seen:
                seen.add(cells)
                out.append(cells)
    return out


BITSET_CELLS = 1 << 20
"""`piece_placements` holds the container's bounding box as one integer of a bit per cell up to this
many cells (or 64 per container cell): two cells a billion apart made it a 125 MB integer, and the
shifts around it took 560 MB. A box beyond both is searched by looking cells up instead."""


def _placements_by_lookup(shape: Shape, container: Shape, grid: Grid = CUBES) -> list[tuple[Cell, ...]]:
    """`piece_placements` (the same placements in the same order) by a set lookup per cell, in memory
    proportional to the container's cells whatever its bounding box."""
    return piece_placements(shape, container, grid, lookup=True)


def colored_placements(piece: Piece, puzzle: Puzzle) -> list[tuple[Cell, ...]]:
    """The placements of a piece whose colours all sit on allowed container colours (BurrTools' rule).

    A placement is a set of cells. When the piece's own symmetry can put two different colourings on
    the same cells and both are allowed, they are different assemblies that a cell grid cannot tell
    apart: refused, naming the piece, rather than counted wrong. Where each turned piece fits comes
    from `_Box` (the BurrTools files with colours took 0.1 s here, a lookup per cell: most of a short run).
    """
    grid = puzzle.lattice
    if not piece.colors and not puzzle.container_colors:
        return piece_placements(piece.shape, puzzle.container, grid)
    box = _Box(puzzle.container, grid=grid)
    paint = dict(puzzle.container_colors)
    colours = dict(piece.colors)
    # the container cells each colour of the piece may not sit on, and the piece's cells of that colour
    refused = {c: box.mask({cell for cell, dst in paint.items() if not puzzle.color_allows(c, dst)})
               for c in sorted(set(colours.values())) if c}
    painted = [(c, [k for k, src in enumerate(piece.shape) if colours.get(src) == c]) for c, m in refused.items() if m]
    allowed: dict[tuple[Cell, ...], tuple[str, ...]] = {}
    out = []
    for moved in grid.turned(piece.shape):  # each turn normalized by a translation of the grid
        # a move keeps the cells' order: the placement's sorted cells and their colours, once per turn
        order = sorted(range(len(moved)), key=moved.__getitem__)
        ordered = [moved[k] for k in order]
        colouring = tuple(colours.get(piece.shape[k], "") for k in order)
        avoid = [([moved[k] for k in cells], refused[c]) for c, cells in painted]
        for dx, dy, dz in box.offsets(moved, ordered[0], avoid):
            key = tuple((x + dx, y + dy, z + dz) for x, y, z in ordered)
            if key in allowed:
                if allowed[key] != colouring:
                    raise CpsolveError(
                        "two colourings of this piece fit the same cells (its shape is symmetric, its colours "
                        "are not); cpsolve counts placements as cell sets and cannot tell them apart",
                        field=f"pieces.{piece.name}.cell_colors")
                continue
            allowed[key] = colouring
            out.append(key)
    return out


def packing_problem(puzzle: Puzzle) -> ExactCoverProblem:
    """The exact-cover problem of a packing puzzle; a piece that must be used but fits nowhere is a file error."""
    index = {c: i for i, c in enumerate(puzzle.container)}
    check_placements(puzzle.container, [piece.shape for piece in puzzle.pieces])
    rows: list[Row] = []
    for p, piece in enumerate(puzzle.pieces):
        found = colored_placements(piece, puzzle)
        if not found and piece.low > 0:
            raise CpsolveError("fits nowhere in the container", field=f"pieces.{piece.name}")
        rows.extend(Row(p, tuple(sorted(index[c] for c in cells))) for cells in found)
    optional = set(puzzle.optional)
    paint = dict(puzzle.container_colors)
    kinds = [(c in optional, paint.get(c, "")) for c in puzzle.container]
    distinct = sorted(set(kinds))
    low = tuple(p.low for p in puzzle.pieces)
    high = tuple(p.count for p in puzzle.pieces)
    return ExactCoverProblem(
        name=puzzle.name,
        cells=puzzle.container,
        piece_names=tuple(p.name for p in puzzle.pieces),
        piece_counts=high,
        rows=tuple(rows),
        mirror_labels=puzzle.mirror_partners(),
        optional=tuple(i for i, c in enumerate(puzzle.container) if c in optional),
        piece_minimums=low if low != high else (),
        cell_classes=tuple(distinct.index(k) for k in kinds) if len(distinct) > 1 else (),
        grid=puzzle.grid,
    )


def _bitset(indices: Sequence[int]) -> int:
    """The integer with exactly the bits `indices` set."""
    if not indices:
        return 0
    flags = bytearray(max(indices) // 8 + 1)
    for i in indices:
        flags[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(flags, "little")


def bit_indices(bits: int) -> list[int]:
    """The positions of the set bits of `bits`, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out
