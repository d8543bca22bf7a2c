"""The cells of the non-cube grids as solids in space: what pictures, the 3-D page and STL files draw.

Each grid's cells are exact corner points (`puzzle.grid.solid`, in the grid's own lattice); here they
become floating-point corners in space, with a unit of one triangle edge and one layer (prisms), one
cube per block (rhombic, tetra-octa) or one ball diameter (spheres, BurrTools' centres (x, y, z)/sqrt 2),
and each solid's faces are listed with the cell across each face, so that the faces between two cells
of one piece are left out and the piece is drawn as one solid (BurrTools draws its other grids this way).
Balls are not polyhedra: they are drawn as shaded balls, touching their neighbours.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations

from ..puzzle.geometry import Cell
from ..puzzle.grid import GRIDS, solid

Vec = tuple[float, float, float]

ROOT_HALF = math.sqrt(0.5)
HEIGHT = math.sqrt(0.75)
"""A triangle's height for a unit edge."""


def to_space(grid: str, p: Sequence[Fraction]) -> Vec:
    """A point of `solid` in space: the prism lattice (u, v) made Cartesian, balls scaled by sqrt(1/2)."""
    if grid == "prisms":
        return (float(p[0] + p[1] / 2), float(p[1]) * HEIGHT, float(p[2]))
    if grid == "spheres":
        return (float(p[0]) * ROOT_HALF, float(p[1]) * ROOT_HALF, float(p[2]) * ROOT_HALF)
    return (float(p[0]), float(p[1]), float(p[2]))


def ball_centre(c: Cell) -> Vec:
    """A ball's centre in space (diameter 1)."""
    return (c[0] * ROOT_HALF, c[1] * ROOT_HALF, c[2] * ROOT_HALF)


Face = tuple[tuple[Vec, ...], Vec, Cell | None]
"""A face of a cell's solid: its corners (counter-clockwise seen from outside), its outward unit
normal, and the cell across it (None when no cell of the grid is there)."""


def faces(grid: str, c: Cell) -> list[Face]:
    """The faces of the solid of cell `c` (not for spheres): those of its kind's cell near the origin,
    moved (cells of one kind differ by a legal translation, so their faces do too)."""
    base, d, (sx, sy, sz) = _base_of(grid, c)
    return [(tuple((p[0] + sx, p[1] + sy, p[2] + sz) for p in pts), n,
             None if other is None else (other[0] + d[0], other[1] + d[1], other[2] + d[2]))
            for pts, n, other in _faces(grid, base)]


def _base_of(grid: str, c: Cell) -> tuple[Cell, Cell, Vec]:
    """The cell of c's kind near the origin, the translation from it to c, and that translation in space."""
    if grid == "prisms":
        base = ((c[0] + c[1]) % 2, 0, 0)
        d = (c[0] - base[0], c[1], c[2])  # dx + dy even: a legal translation, (dx - dy) / 2 edges along a
        return base, d, to_space(grid, (Fraction(d[0] - d[1], 2), Fraction(d[1]), Fraction(d[2])))
    period = 5 if grid == "rhombic" else 6  # tetra-octa: two blocks, so that block parities match
    base = (c[0] % period, c[1] % period, c[2] % period)
    d = (c[0] - base[0], c[1] - base[1], c[2] - base[2])
    per = 5 if grid == "rhombic" else 3
    return base, d, (d[0] / per, d[1] / per, d[2] / per)


@cache
def _faces(grid: str, c: Cell) -> list[Face]:
    g = GRIDS[grid]
    exact = solid(grid, c)
    pts = [to_space(grid, p) for p in exact]
    mid = tuple(sum(p[i] for p in pts) / len(pts) for i in range(3))
    if grid == "prisms":
        groups = [(0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)]
    else:
        groups = list(combinations(range(4), 3))
    around = [(q, set(solid(grid, q))) for q in g.neighbours(c)]
    out: list[Face] = []
    for idx in groups:
        corners = [pts[i] for i in idx]
        n = _normal(corners)
        centre = tuple(sum(p[i] for p in corners) / len(corners) for i in range(3))
        if sum((centre[i] - mid[i]) * n[i] for i in range(3)) < 0:  # make it point outwards
            corners.reverse()
            n = (-n[0], -n[1], -n[2])
        shared = {exact[i] for i in idx}
        other = next((q for q, s in around if shared <= s), None)
        out.append((tuple(corners), n, other))
    return out


def _normal(pts: Sequence[Vec]) -> Vec:
    a, b, c = pts[0], pts[1], pts[2]
    u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    k = math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
    return (n[0] / k, n[1] / k, n[2] / k)


def outer_faces(grid: str, cells: Iterable[Cell]) -> list[Face]:
    """The faces of a piece's cells that are on its surface (the cell across is not the piece's)."""
    own = set(cells)
    return [f for c in sorted(own) for f in faces(grid, c) if f[2] not in own]


def points(grid: str, cells: Iterable[Cell]) -> list[Vec]:
    """Every corner of the cells' solids (a ball: the six points of its bounding octahedron's axes)."""
    if grid == "spheres":
        return [(x + dx, y + dy, z + dz) for c in cells for x, y, z in [ball_centre(c)]
                for dx, dy, dz in ((0.5, 0, 0), (-0.5, 0, 0), (0, 0.5, 0), (0, -0.5, 0), (0, 0, 0.5), (0, 0, -0.5))]
    return [p for c in cells for f in faces(grid, c) for p in f[0]]


def centre(grid: str, cells: Iterable[Cell]) -> Vec:
    """The mean of the cells' centres in space."""
    pts = [ball_centre(c) if grid == "spheres" else _cell_centre(grid, c) for c in cells]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts), sum(p[2] for p in pts) / len(pts))


def _cell_centre(grid: str, c: Cell) -> Vec:
    corners = [p for f in faces(grid, c) for p in f[0]]
    return (sum(p[0] for p in corners) / len(corners), sum(p[1] for p in corners) / len(corners),
            sum(p[2] for p in corners) / len(corners))


LIGHT: Vec = (-0.35, -0.55, 0.76)
"""Where the light comes from (above, front, left), as for the cubes' SHADE."""


def lit(normal: Sequence[float]) -> float:
    """A face's brightness from its outward normal: 0.55 facing away from the light, 1.0 facing it."""
    d = normal[0] * LIGHT[0] + normal[1] * LIGHT[1] + normal[2] * LIGHT[2]
    return 0.55 + 0.45 * max(0.0, d / math.sqrt(sum(v * v for v in LIGHT)))
