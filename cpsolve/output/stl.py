"""Pieces as printable solids: the outer faces of each piece's unit cubes as a closed STL mesh (on the other
grids, `piece_triangles`: balls joined by rods, or the cells' solids, shrunk by `shrunk_triangles`).

Each outer unit face becomes two triangles, wound counter-clockwise seen from outside (the STL
convention); faces inside the piece are left out, so the mesh is the piece's surface only. A
clearance shrinks the solid: every face moves inwards by half of it (pieces printed this way
leave a gap of `clearance` between neighbours); each lattice point of the surface moves once,
with the faces through it, and every face uses the moved point, so the mesh stays closed.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from functools import cache

from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.grid import GRIDS
from ..puzzle.names import safe_stem, unique_stems
from . import solids
from .scene import Vec, face_corners, outer_faces
from .text import printable

Triangle = tuple[Vec, Vec, Vec]
FLOAT32_MAX = 3.4028234663852886e38
"""The largest number an STL file holds (IEEE single precision, what `binary_stl` packs)."""

def piece_triangles(grid: str, cells: Iterable[Cell], unit: float = 10.0, clearance: float = 0.0,
                    name: str = "") -> list[Triangle]:
    """The surface of a piece on its grid, in millimetres: cubes (`triangles`), joined balls (`ball_triangles`)
    or the outer faces of the other grids' solids, each fanned into triangles (`unit` per triangle edge,
    per cube of a rhombic or tetra-octa block), shrunk by `clearance` (`shrunk_triangles`)."""
    if grid == "cubes":
        return triangles(cells, unit, clearance)
    if grid == "spheres":
        return ball_triangles(cells, unit, clearance)
    if clearance > 0:
        return shrunk_triangles(grid, list(cells), unit, clearance, name)
    out: list[Triangle] = []
    for pts, _, _ in solids.outer_faces(grid, list(cells)):
        q = [(p[0] * unit, p[1] * unit, p[2] * unit) for p in pts]
        out += [(q[0], q[i], q[i + 1]) for i in range(1, len(q) - 1)]
    return out


def shrunk_triangles(grid: str, cells: Sequence[Cell], unit: float, clearance: float, name: str = "") -> list[Triangle]:
    """A piece of the prism, rhombic or tetra-octa grid shrunk towards its own interior: every face moved
    inwards by exactly half of `clearance`, so that two pieces that touched print `clearance` apart face to
    face, and farther at edges and corners.

    Moving faces one by one does not close up on these grids (a vertex where four or more face planes meet,
    as at a rhombic dodecahedron's, splits when they move), so the piece is eroded as a whole: its cells'
    union minus the Minkowski sum of its outside with K, the polytope whose faces lie at clearance / 2 from
    the centre in every direction a face of the grid faces (`_face_directions`: a hexagonal prism on the
    prism grid). A face then moves by exactly clearance / 2, an edge or corner at least as far. The
    geometry is Manifold's (manifold3d: exact and closed), imported only here.
    """
    try:
        import manifold3d as mf
    except ImportError:
        raise CpsolveError(f"a clearance on the {grid} grid needs the manifold3d package (pip install "
                           "'cpsolve[stl]'), which shrinks these pieces exactly", field="clearance") from None
    import numpy as np

    half = clearance / 2
    body = mf.Manifold.batch_boolean(
        [mf.Manifold.hull_points(np.array([p for f in solids.faces(grid, c) for p in f[0]]) * unit) for c in cells],
        mf.OpType.Add)
    tool = mf.Manifold.cube([4 * half] * 3, center=True)
    for n in _face_directions(grid):
        tool = tool.trim_by_plane([-n[0], -n[1], -n[2]], -half)  # keep n . y <= clearance / 2
    shrunk = body.minkowski_difference(tool)
    if shrunk.is_empty() or len(shrunk.decompose()) > len(body.decompose()):
        what = "leaves nothing of" if shrunk.is_empty() else "cuts in two"
        raise CpsolveError(f"clearance {clearance:g} mm {what} piece {name} (at {unit:g} mm a cell): give a smaller "
                           "clearance, or a larger --unit", field="clearance")
    mesh = shrunk.to_mesh()
    v = np.asarray(mesh.vert_properties, dtype=float)[:, :3]
    corner = [(float(p[0]), float(p[1]), float(p[2])) for p in v]
    return [(corner[a], corner[b], corner[c]) for a, b, c in np.asarray(mesh.tri_verts).tolist()]


@cache
def _face_directions(grid: str) -> tuple[Vec, ...]:
    """The outward normals of every face of every kind of cell of a grid (one period of its cells)."""
    from itertools import product

    g = GRIDS[grid]
    px, py, pz = g.period
    found = {(round(n[0], 9) + 0.0, round(n[1], 9) + 0.0, round(n[2], 9) + 0.0)
             for c in product(range(px), range(py), range(pz)) if g.is_cell(c)
             for _, n, _ in solids.faces(grid, c)}
    return tuple(sorted(found))


BALL_SEGMENTS = 16
"""Segments around a printed ball (and half as many rings from pole to pole), and around a rod."""
ROD = 0.3
"""A rod's radius, in ball diameters: the rods join touching balls of a piece, as BurrTools draws them."""


def ball_triangles(cells: Iterable[Cell], unit: float = 10.0, clearance: float = 0.0) -> list[Triangle]:
    """A piece of balls as closed shells: each ball (diameter `unit`, less `clearance`) and a rod between
    each two touching balls of the piece, so that it prints as one piece (slicers join shells that overlap)."""
    own = sorted(set(cells))
    r = (unit - clearance) / 2
    out: list[Triangle] = []
    for c in own:
        out += _ball(_scaled(solids.ball_centre(c), unit), r)
    for a, b in ((a, b) for i, a in enumerate(own) for b in own[i + 1:]
                 if sum(abs(a[k] - b[k]) for k in range(3)) == 2 and max(abs(a[k] - b[k]) for k in range(3)) == 1):
        out += _rod(_scaled(solids.ball_centre(a), unit), _scaled(solids.ball_centre(b), unit), ROD * unit)
    return out


def _scaled(v: Vec, k: float) -> Vec:
    return (v[0] * k, v[1] * k, v[2] * k)


def _ball(c: Vec, r: float) -> list[Triangle]:
    """A latitude-longitude ball, wound counter-clockwise from outside."""
    n, m = BALL_SEGMENTS, BALL_SEGMENTS // 2

    def at(i: int, j: int) -> Vec:
        th, ph = math.pi * i / m, 2 * math.pi * j / n
        return (c[0] + r * math.sin(th) * math.cos(ph), c[1] + r * math.sin(th) * math.sin(ph), c[2] + r * math.cos(th))

    out: list[Triangle] = []
    for i in range(m):
        for j in range(n):
            a, b, cc, d = at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)
            if i > 0:
                out.append((a, b, d))
            if i < m - 1:
                out.append((b, cc, d))
    return out


def _rod(a: Vec, b: Vec, r: float) -> list[Triangle]:
    """A closed cylinder of radius r from a to b."""
    axis = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    length = math.sqrt(sum(v * v for v in axis))
    w = (axis[0] / length, axis[1] / length, axis[2] / length)
    other = (1.0, 0.0, 0.0) if abs(w[0]) < 0.9 else (0.0, 1.0, 0.0)
    u = _unit(_cross(w, other))
    v = _cross(w, u)
    n = BALL_SEGMENTS

    def ring(p: Vec, j: int) -> Vec:
        cos, sin = math.cos(2 * math.pi * j / n), math.sin(2 * math.pi * j / n)
        return (p[0] + r * (cos * u[0] + sin * v[0]), p[1] + r * (cos * u[1] + sin * v[1]),
                p[2] + r * (cos * u[2] + sin * v[2]))

    out: list[Triangle] = []
    for j in range(n):
        p0, p1, q0, q1 = ring(a, j), ring(a, j + 1), ring(b, j), ring(b, j + 1)
        out += [(p0, p1, q1), (p0, q1, q0), (a, p1, p0), (b, q0, q1)]
    return out


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(a: Vec) -> Vec:
    k = math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    return (a[0] / k, a[1] / k, a[2] / k)


def triangles(cells: Iterable[Cell], unit: float = 10.0, clearance: float = 0.0) -> list[Triangle]:
    """The surface of the piece in millimetres: `unit` per cube, shrunk by `clearance` overall."""
    own = set(cells)
    inset = clearance / 2 / unit
    shift: dict[Cell, Vec] = {}
    out: list[Triangle] = []
    for cell, n, _ in outer_faces(own):
        moved = []
        for corner in face_corners(cell, n):
            v = (round(corner[0]), round(corner[1]), round(corner[2]))
            if v not in shift:
                shift[v] = _corner_shift(own, v, inset)
            d = shift[v]
            moved.append(((v[0] + d[0]) * unit, (v[1] + d[1]) * unit, (v[2] + d[2]) * unit))
        a, b, c, e = moved
        out.append((a, b, c))
        out.append((a, c, e))
    return out


def _corner_shift(own: set[Cell], v: Cell, inset: float) -> Vec:
    """How far the lattice point v moves when every face moves `inset` inwards.

    Per axis k, look at the faces through v that are perpendicular to k (where the cell on one
    side of v is in the piece and the cell on the other side is not): if they all face +k, v moves
    -k with them; all -k, it moves +k; none or both (a saddle), it stays. Every face uses the same
    moved point, so the mesh keeps its connectivity and stays closed.
    """
    out = [0.0, 0.0, 0.0]
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3
        plus = minus = False
        for oi in (-1, 0):
            for oj in (-1, 0):
                below = [0, 0, 0]
                below[i], below[j], below[k] = v[i] + oi, v[j] + oj, v[k] - 1
                above = list(below)
                above[k] = v[k]
                a, b = tuple(below) in own, tuple(above) in own
                plus |= a and not b
                minus |= b and not a
        if plus != minus:
            out[k] = -inset if plus else inset
    return (out[0], out[1], out[2])


def _normal(t: Triangle) -> Vec:
    a, b, c = t
    u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
    v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    length = (n[0] ** 2 + n[1] ** 2 + n[2] ** 2) ** 0.5 or 1.0
    return (n[0] / length, n[1] / length, n[2] / length)


def file_names(pieces: Sequence[tuple[str, int]]) -> list[str]:
    """A file name per (piece name, copies): `NAME.stl`, or `NAME-xK.stl` for a piece to be printed K
    times; NAME made safe (`safe_stem`) and the names made distinct, so that no file overwrites
    another (`x.y` and `x/y` were once both `x_y.stl`, one file for two pieces)."""
    stems = [safe_stem(name, "piece") + (f"-x{count}" if count > 1 else "") for name, count in pieces]
    return [f"{stem}.stl" for stem in unique_stems(stems)]


def binary_stl(name: str, tris: Sequence[Triangle], count: int = 1) -> bytes:
    """Binary STL: an 80-byte header (the piece's name, printable ASCII; how many to print), the
    count, then per triangle its normal and three corners."""
    label = printable(name) + (f" (print {count})" if count > 1 else "")
    header = f"cpsolve piece {label}".encode("ascii", "backslashreplace")[:80].ljust(80, b" ")
    parts = [header, struct.pack("<I", len(tris))]
    for t in tris:
        parts.append(struct.pack("<12fH", *_normal(t), *t[0], *t[1], *t[2], 0))
    return b"".join(parts)


def read_binary_stl(data: bytes) -> list[Triangle]:
    """The triangles of a binary STL (for checking what was written)."""
    (count,) = struct.unpack_from("<I", data, 80)
    out = []
    for i in range(count):
        v = struct.unpack_from("<12f", data, 84 + 50 * i)
        out.append(((v[3], v[4], v[5]), (v[6], v[7], v[8]), (v[9], v[10], v[11])))
    return out


def volume(tris: Iterable[Triangle]) -> float:
    """The enclosed volume (divergence theorem: signed tetrahedra from the origin)."""
    total = 0.0
    for a, b, c in tris:
        total += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                  + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0
    return total


def open_edges(tris: Iterable[Triangle], digits: int = 6) -> int:
    """Directed edges without a matching reverse edge: 0 for a closed, consistently wound surface."""
    count: dict[tuple[tuple[float, ...], tuple[float, ...]], int] = {}
    for t in tris:
        pts = [tuple(round(v, digits) for v in p) for p in t]
        for i in range(3):
            a, b = pts[i], pts[(i + 1) % 3]
            if count.get((b, a), 0) > 0:
                count[(b, a)] -= 1
            else:
                count[(a, b)] = count.get((a, b), 0) + 1
    return sum(count.values())
