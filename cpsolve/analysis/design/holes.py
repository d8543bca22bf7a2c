"""Holes: a container cell declared empty (taken out of the container) so that one assembly is left.

A hole only makes sense where the puzzle has spare volume: optional cells, or pieces with ranges
whose smallest choice leaves room. In an exact-volume puzzle every assembly fills every cell, so a
hole leaves none; `suggest_holes` says so in one line instead of searching.

**Counting in one pass.** A hole at c is the same as a monocube fixed at c: the puzzle with the
cell removed has exactly the assemblies of the puzzle with an extra "hole" monocube that are
assemblies with that monocube at c (the monocube covers c, so the real pieces cover the rest: the
required cells exactly, the optional ones at most once). This holds for every cell, required or
optional: a required cell made a hole turns into a puzzle whose assemblies the original never had
(the pieces' volume must then drop by one, which ranges or optional cells allow). So one
enumeration of the puzzle with h hole monocubes (h = 1, then 2) counts, for every set of h cells,
the assemblies of the holed puzzle: the sets counted once are the answers. Identical hole
monocubes are interchangeable copies, so each set of cells is counted once per assembly.

Each answer is written as the original file with the hole cells left out of the drawing and proved
by enumerating that file.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ...errors import CpsolveError
from ...problem.symmetry import rotations_of
from ...puzzle.geometry import Cell
from ...puzzle.model import Piece, Puzzle
from .changes import Change, ChangeReport, assemblies_of, prove
from .files import origin_of, shifted

if TYPE_CHECKING:
    from ...search.enumeration import Prepared


def spare_volume(puzzle: Puzzle) -> int:
    """Container cells minus the smallest volume the pieces can have: how many holes can exist at most."""
    return len(puzzle.container) - sum(p.size * p.low for p in puzzle.pieces)


def holed(puzzle: Puzzle, holes: Sequence[Cell], name: str) -> Puzzle:
    """The puzzle with `holes` (its own coordinates) taken out of the container; everything else kept."""
    out = set(holes)
    lo = origin_of(puzzle.container, puzzle.grid)
    words = " and ".join(json.dumps(shifted(c, lo)) for c in holes)
    return replace(puzzle, name=name, container=tuple(c for c in puzzle.container if c not in out),
                   optional=tuple(c for c in puzzle.optional if c not in out),
                   container_colors=tuple((c, k) for c, k in puzzle.container_colors if c not in out),
                   reference=None, origin=None,
                   description=f"{puzzle.name} with cell{'s' if len(holes) > 1 else ''} {words} made a hole "
                               f"(taken out of the container)")


def hole_shape(puzzle: Puzzle) -> tuple[Cell, ...]:
    """The one-cell piece that stands for a hole: a cell of the puzzle's grid, in normal form, whose turns
    reach every kind of cell of the grid (a cube; a triangle, up or down; a ball; any of the 24 rhombic
    tetrahedra). The tetra-octa grid has two shapes of cell (a regular tetrahedron, a quarter octahedron):
    no one piece stands for every hole there, and holes are refused in one line."""
    grid = puzzle.lattice
    if grid.name == "tetra-octa":
        raise CpsolveError("holes are not searched on the tetra-octa grid: its cells have two shapes (a regular "
                           "tetrahedron and a quarter octahedron), so no one hole piece stands for every cell; "
                           "fix or mark instead", field="change")
    return grid.normalize(grid.box((5, 5, 5))[:1])


def hole_counts(puzzle: Puzzle, h: int, backend: str = "auto",
                max_assemblies: int = 500_000) -> tuple[Prepared, Counter[tuple[int, ...]]]:
    """For every set of h cells (container cell indices), the assemblies of the puzzle with those holes.

    One enumeration of the puzzle with h extra hole monocubes (see the module).
    """
    from ...search.enumeration import Prepared

    names = {p.name for p in puzzle.pieces}
    hole = next(n for n in ("hole", *(f"hole-{k}" for k in range(2, len(names) + 3))) if n not in names)
    augmented = replace(puzzle, pieces=(*puzzle.pieces, Piece(hole, hole_shape(puzzle), h)), key_piece=None)
    prepared, found = assemblies_of(augmented, backend, max_assemblies)
    assert isinstance(prepared, Prepared)
    rows = prepared.problem.rows
    ours = len(puzzle.pieces)
    return prepared, Counter(tuple(sorted(rows[r].cells[0] for r in one if rows[r].piece == ours)) for one in found)


def suggest_holes(puzzle: Puzzle, backend: str = "auto", limit: int = 5, verify: bool = True,
                  max_assemblies: int = 500_000, source: str = "cpsolve design unique --change hole") -> ChangeReport:
    """The fewest holes (one, else two) that leave exactly one assembly, one per rotation orbit."""
    spare = spare_volume(puzzle) if puzzle.kind == "pieces" else 0
    if puzzle.kind == "pieces" and spare < 1:
        cells = len(puzzle.container)
        return ChangeReport(puzzle.name, "hole", 0, 0, 0, (), note=(
            f"holes cannot apply: the pieces fill all {cells} cells in every assembly (their volume is {cells}, no "
            f"optional cells or ranges to spare), so any hole leaves no assembly"))
    once: list[tuple[int, ...]] = []
    size, assemblies = 0, 0
    prepared: Prepared | None = None
    for h in (1, 2):
        if h > spare and puzzle.kind == "pieces":
            break
        prepared, tally = hole_counts(puzzle, h, backend, max_assemblies)
        assemblies = sum(tally.values())
        once = sorted(k for k, n in tally.items() if n == 1)
        if once:
            size = h
            break
    changes = []
    if once and prepared is not None:
        rotations = rotations_of(prepared.group)
        seen: set[tuple[int, ...]] = set()
        orbits: list[tuple[tuple[int, ...], int]] = []
        for cells_ in once:
            if cells_ in seen:
                continue
            orbit = {tuple(sorted(g.perm[c] for c in cells_)) for g in rotations}
            seen |= orbit
            orbits.append((cells_, len(orbit)))
        lo = origin_of(puzzle.container, puzzle.grid)
        for i, (cells_, orbit_size) in enumerate(orbits[:limit]):
            where = [prepared.problem.cells[c] for c in cells_]
            name = f"{puzzle.name}-hole-{i + 1}"
            text, total = prove(puzzle, holed(puzzle, where, name), source, backend, verify)
            file_cells = [shifted(c, lo) for c in where]
            words = " and ".join(json.dumps(c) for c in file_cells)
            changes.append(Change("hole", f"hole{'s' if len(where) > 1 else ''} at {words}", {"holes": file_cells},
                                  name, text, orbit_size, total))
    return ChangeReport(puzzle.name, "hole", assemblies, size, len(once), tuple(changes))
