"""Every way each piece fits in the container, as one exact-cover problem that all backends consume.

Rows are placements; items are the container's cells (each covered exactly once) and the pieces
(piece p used exactly `count[p]` times). Optional `side_clauses` carry constraints that are not
exact cover (a chain's joints); backends that cannot express them say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..errors import CpsolveError
from ..puzzle.geometry import Cell, Shape, orientations
from ..puzzle.model import Puzzle


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

    def check_solution(self, rows: Sequence[int]) -> str | None:
        """Why `rows` is not a solution of this problem, or None if it is one."""
        if any(not 0 <= r < len(self.rows) for r in rows):
            return "a row index is out of range"
        covered = [0] * self.n_cells
        used = [0] * self.n_pieces
        for r in rows:
            used[self.rows[r].piece] += 1
            for c in self.rows[r].cells:
                covered[c] += 1
        if (bad := next((i for i, n in enumerate(covered) if n != 1), None)) is not None:
            return f"cell {list(self.cells[bad])} is covered {covered[bad]} times"
        for p, (n, want) in enumerate(zip(used, self.piece_counts)):
            if n != want:
                return f"piece {self.piece_names[p]} is used {n} times instead of {want}"
        chosen = {r + 1 for r in rows}
        for clause in self.side_clauses:
            if not any((lit in chosen) if lit > 0 else (-lit not in chosen) for lit in clause):
                return f"side constraint {list(clause)} is violated"
        return None


def piece_placements(shape: Shape, container: Shape) -> list[tuple[Cell, ...]]:
    """All distinct placements of a rigid piece inside the container, as cell tuples.

    Orientations are deduplicated as shapes, so a symmetric piece yields each cell set once.
    """
    inside = set(container)
    seen: set[tuple[Cell, ...]] = set()
    out = []
    for orient in orientations(shape):
        ax, ay, az = orient[0]
        for cx, cy, cz in container:
            dx, dy, dz = cx - ax, cy - ay, cz - az
            cells = tuple((x + dx, y + dy, z + dz) for x, y, z in orient)
            if all(c in inside for c in cells) and cells not in seen:
                seen.add(cells)
                out.append(cells)
    return out


def packing_problem(puzzle: Puzzle) -> ExactCoverProblem:
    """The exact-cover problem of a packing puzzle; a piece that fits nowhere is a file error."""
    index = {c: i for i, c in enumerate(puzzle.container)}
    rows: list[Row] = []
    for p, piece in enumerate(puzzle.pieces):
        found = piece_placements(piece.shape, puzzle.container)
        if not found:
            raise CpsolveError("fits nowhere in the container", field=f"pieces.{piece.name}")
        rows.extend(Row(p, tuple(sorted(index[c] for c in cells))) for cells in found)
    return ExactCoverProblem(
        name=puzzle.name,
        cells=puzzle.container,
        piece_names=tuple(p.name for p in puzzle.pieces),
        piece_counts=tuple(p.count for p in puzzle.pieces),
        rows=tuple(rows),
        mirror_labels=puzzle.mirror_partners(),
    )
