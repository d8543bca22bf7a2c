"""BurrTools' five grids for front ends: a grid's object by name (`lattice`), one period of its cells as
solids in space (`grid_solids`, what a browser needs to draw and click any cell), and the shape
libraries of each grid (`grid_shapes`, behind `shapes(library, grid=...)`, `shape_libraries`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from itertools import product

from ..errors import CpsolveError
from ..puzzle.geometry import FACE_STEPS, Cell
from ..puzzle.grid import GRIDS, Grid

GRID_NAMES = tuple(GRIDS)
"""The grids by the names puzzle files use (`grid: spheres`): cubes, prisms, spheres, rhombic, tetra-octa."""
BLOCK = {"rhombic": 5, "tetra-octa": 3}
"""How many cells along each axis one cube of the cube grid becomes, on the grids that cut cubes into
cells (BurrTools' converter: a cube is a 5x5x5 block of 24 rhombic cells, a 3x3x3 block of 5
tetra-octa cells); 1 on the others."""


def lattice(grid: str) -> Grid:
    """The grid object of a grid name, as `Puzzle.lattice` gives a puzzle's: which triples are cells
    (`is_cell`), how a shape is moved to the origin by a translation that keeps the grid (`normalize`),
    its turns (`orientations`), the cells touching a cell (`neighbours`).

    >>> cpsolve.lattice("spheres").is_cell((1, 1, 0)), cpsolve.lattice("spheres").is_cell((1, 0, 0))
    (True, False)
    >>> cpsolve.lattice("prisms").normalize([(1, 0, 0), (2, 0, 0)])  # a down and an up triangle stay so
    ((1, 0, 0), (2, 0, 0))
    """
    if grid not in GRIDS:
        raise CpsolveError(f"unknown grid {grid!r} (known: {', '.join(GRIDS)})", field="grid")
    return GRIDS[grid]


def grid_solids(grid: str) -> dict[str, object]:
    """One period of a grid's cells as solids in space, JSON-ready: what a browser needs to draw any cell
    of the grid and to find the cell across each face it shows (the workbench's editor).

    The cells repeat every `period[i]` cells along axis i, and a cell moved by `period[i]` has its solid
    moved by `span[i]` in space (a unit: one cube, one triangle's edge and one layer, one ball's
    diameter). `cells` maps "x,y,z" for each cell of the box [0, period) to its `faces` (each: its
    corners in space, counter-clockwise seen from outside; its outward normal; the offset to the cell
    across it, or None where no cell is) or, on the sphere grid, its ball's `centre` (diameter 1).
    `steps` (spheres) are the offsets to the 12 touching balls; `block` the cells along each axis of
    one cube of the cube grid (`BLOCK`).

    >>> solids = cpsolve.grid_solids("prisms")
    >>> solids["period"], len(solids["cells"]["0,0,0"]["faces"])  # an up and a down triangle per period
    ([2, 2, 1], 5)
    """
    return _grid_solids(lattice(grid).name)


@cache
def _grid_solids(grid: str) -> dict[str, object]:
    from ..output.solids import ball_centre, faces

    g = GRIDS[grid]
    period = g.period
    cells: dict[str, object] = {}
    for x, y, z in product(range(period[0]), range(period[1]), range(period[2])):
        c = (x, y, z)
        if not g.is_cell(c):
            continue
        if grid == "spheres":
            cells[_key(c)] = {"centre": _round(ball_centre(c))}
            continue
        found = _cube_faces(c) if grid == "cubes" else faces(grid, c)
        cells[_key(c)] = {"faces": [[[_round(p) for p in pts], _round(n),
                                     None if other is None else [other[i] - c[i] for i in range(3)]]
                                    for pts, n, other in found]}
    base = next(c for c in product(range(period[0]), range(period[1]), range(period[2])) if g.is_cell(c))
    span = []
    for axis in range(3):
        moved = (base[0] + period[0] * (axis == 0), base[1] + period[1] * (axis == 1),
                 base[2] + period[2] * (axis == 2))
        span.append(round(_centre(grid, moved)[axis] - _centre(grid, base)[axis], 6))
    return {"grid": grid, "title": g.title, "period": list(period), "span": span, "cells": cells,
            "block": BLOCK.get(grid, 1), "steps": [list(s) for s in g.steps((0, 0, 0))] if grid == "spheres" else None}


def _centre(grid: str, c: Cell) -> tuple[float, float, float]:
    from ..output.solids import ball_centre, centre

    if grid == "cubes":
        return (c[0] + 0.5, c[1] + 0.5, c[2] + 0.5)
    return ball_centre(c) if grid == "spheres" else centre(grid, [c])


def _cube_faces(c: Cell) -> list[tuple[tuple[tuple[float, float, float], ...], tuple[float, float, float], Cell]]:
    """A unit cube's six faces as the other grids' solids give theirs."""
    out = []
    for s in FACE_STEPS:
        a = next(i for i in range(3) if s[i])
        u, w = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
        u[(a + 1) % 3], w[(a + 2) % 3] = 1.0, 1.0
        if s[a] < 0:
            u, w = w, u
        mid = [c[i] + 0.5 + 0.5 * s[i] for i in range(3)]
        pts = tuple((mid[0] + (i * u[0] + j * w[0]) / 2, mid[1] + (i * u[1] + j * w[1]) / 2,
                     mid[2] + (i * u[2] + j * w[2]) / 2) for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1)))
        out.append((pts, (float(s[0]), float(s[1]), float(s[2])), (c[0] + s[0], c[1] + s[1], c[2] + s[2])))
    return out


def _key(c: Iterable[int]) -> str:
    return ",".join(str(v) for v in c)


def _round(v: Iterable[float]) -> list[float]:
    return [round(x, 6) + 0.0 for x in v]


# --- shape libraries on each grid ---------------------------------------------------------------------------

def shape_libraries(grid: str = "cubes") -> tuple[str, ...]:
    """The shape libraries `shapes(library, grid=grid)` knows on a grid (besides kaenel:N on the grids of
    cubes and blocks of cubes): the pools `cpsolve design pieces` builds sets from on that grid
    (`analysis.design.pieces.POOLS`, one table for both, so a piece drawn from a library is one a design
    can use), on the rhombic and tetra-octa grids the cube grid's, each cube made its block.

    >>> cpsolve.shape_libraries("prisms")
    ('moniamonds', 'diamonds', 'triamonds', 'tetriamonds', 'pentiamonds', 'hexiamonds', 'heptiamonds')
    """
    from ..analysis.design.pieces import POOLS

    lattice(grid)
    on = "cubes" if grid in BLOCK else grid
    return tuple(name for name, (pool_grid, _) in POOLS.items() if pool_grid == on)


def grid_shapes(library: str, grid: str, cube_shapes: Callable[[str], dict[str, tuple[Cell, ...]]]
                ) -> dict[str, tuple[Cell, ...]]:
    """A library on a grid: a pool of the grid (polycubes, polyiamonds, flat ball pieces), or a cube
    library (from `cube_shapes`, which knows the Kaenel sticks too) with each cube made the block of cells it
    becomes (rhombic, tetra-octa)."""
    from ..analysis.design.pieces import pool_from

    g = lattice(grid)
    if grid in BLOCK:
        return {name: _blocks(g, shape) for name, shape in cube_shapes(library).items()}
    if library in shape_libraries(grid):
        return {name: tuple(shape) for name, shape in pool_from(library)[0].items()}
    known = ", ".join(shape_libraries(grid))
    raise CpsolveError(f"no library {library!r} on the {grid} grid (known there: {known})", field="library")


def _blocks(g: Grid, shape: Iterable[Cell]) -> tuple[Cell, ...]:
    """Each cube of a cube-grid shape as the cells of its block (BurrTools' converter)."""
    b = BLOCK[g.name]
    cells = [(x * b + i, y * b + j, z * b + k) for x, y, z in shape for i in range(b) for j in range(b)
             for k in range(b)]
    return g.normalize(c for c in cells if g.is_cell(c))
