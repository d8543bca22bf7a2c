"""Pieces as printable solids: the outer faces of each piece's unit cubes as a closed STL mesh.

Each outer unit face becomes two triangles, wound counter-clockwise seen from outside (the STL
convention); faces inside the piece are left out, so the mesh is the piece's surface only. A
clearance shrinks the solid: every face moves inwards by half of it (pieces printed this way
leave a gap of `clearance` between neighbours); each lattice point of the surface moves once,
with the faces through it, and every face uses the moved point, so the mesh stays closed.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

from ..puzzle.geometry import Cell
from ..puzzle.names import safe_stem, unique_stems
from .scene import Vec, face_corners, outer_faces
from .text import printable

Triangle = tuple[Vec, Vec, Vec]
FLOAT32_MAX = 3.4028234663852886e38
"""The largest number an STL file holds (IEEE single precision, what `binary_stl` packs)."""

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
