"""The disassembler's moves and pair tables: how far one piece can slide along each move's direction while
another stays, as a function of their offset, and the shapes a run has met with their tables.

Why apart from the search (`disassembly`): these are the data BurrTools keeps in its movement cache, made
once per pair of shapes and reused for a whole run; the search only looks distances up. The C search
(`_disassemble.c`) holds its own copy of the same tables (`Shapes.context`); the Python twin's are here.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from ..puzzle.geometry import Cell

try:
    from . import _disassemble
except ImportError:  # built without a C compiler: the Python twin runs
    _disassemble = None  # type: ignore[assignment]
_native = _disassemble
"""The compiled search (`_disassemble.c`), or None: the disassembler and its run-wide form use it alike."""

DIRECTIONS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
"""+x, -x, +y, -y, +z, -z: the order in which moves are tried (BurrTools' order)."""
DIRECTION_NAMES = ("+x", "-x", "+y", "-y", "+z", "-z")
PRISM_DIRECTIONS: tuple[Cell, ...] = ((0, 0, 1), (0, 0, -1), (2, 0, 0), (-2, 0, 0), (1, 1, 0), (-1, -1, 0),
                                      (-1, 1, 0), (1, -1, 0))
"""The triangular prism grid's moves, in pairs of opposite ways: along z, and along the three directions
of the triangles' edges, one edge length a step (BurrTools' four prism axes, `movementcache_1.cpp`:
(0,0,1), (2,0,0), (1,1,0), (-1,1,0) in its cell coordinates)."""
PRISM_DIRECTION_NAMES = ("+z", "-z", "+x", "-x", "+60", "-60", "+120", "-120")
"""A prism move along x, or along the edges at 60 and 120 degrees from x."""
MOVE_NAMES = dict(zip(DIRECTIONS + PRISM_DIRECTIONS, DIRECTION_NAMES + PRISM_DIRECTION_NAMES, strict=True))
"""Each move's direction -> its name, on either grid (`trees.Move.text`)."""
PRISM_SWEPT: dict[Cell, tuple[Cell, Cell]] = {
    (0, 0, 1): ((0, 0, 0), (0, 0, 0)), (2, 0, 0): ((1, 0, 0), (1, 0, 0)),
    (1, 1, 0): ((1, 0, 0), (0, 1, 0)), (-1, 1, 0): ((-1, 0, 0), (0, 1, 0)),
}
"""A triangle sliding one edge along an edge direction passes over the triangle between its start and
its end (a prism sliding up passes over none): that cell's offset, for an up and for a down triangle
(BurrTools' `movementcache_1.cpp` checks the same cells). (0, 0, 0): no cell between."""


def directions_of(grid: str) -> tuple[Cell, ...]:
    """The moves of a grid's disassembler (`check_grid` refuses the grids that have none)."""
    return PRISM_DIRECTIONS if grid == "prisms" else DIRECTIONS
INF = 1 << 30
"""A free distance that never ends: the piece can slide away for ever."""
NATIVE_MAX_PIECES = 64
"""The C search keeps a set of pieces in one 64-bit mask: parts up to this size (bigger ones run in Python)."""


# ----------------------------------------------------------------------------- pairwise distances


class _PairTable:
    """How far piece j can slide in each direction while piece i stays, as a function of their offset.

    `C` holds every offset o_j - o_i at which the two shapes overlap (a - b for a in i, b in j). Along
    each axis the offsets are grouped by line (the other two coordinates) and sorted, so the free
    distance from an offset is the gap to the next collision on its line, found by bisection.
    """

    __slots__ = ("lines", "cache")

    def __init__(self, a: Iterable[Cell], b: Iterable[Cell]) -> None:
        bs = list(b)
        coll = {(p[0] - q[0], p[1] - q[1], p[2] - q[2]) for p in a for q in bs}
        self.lines: list[dict[tuple[int, int], list[int]]] = []
        for axis in range(3):
            u, v = [k for k in range(3) if k != axis]
            lines: dict[tuple[int, int], list[int]] = {}
            for c in coll:
                lines.setdefault((c[u], c[v]), []).append(c[axis])
            for vals in lines.values():
                vals.sort()
            self.lines.append(lines)
        self.cache: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def free(self, d: tuple[int, int, int]) -> tuple[int, ...]:
        """Six distances (+x, -x, +y, -y, +z, -z) that j can slide from offset d = o_j - o_i."""
        got = self.cache.get(d)
        if got is not None:
            return got
        out: list[int] = []
        for axis, (u, v) in enumerate(((1, 2), (0, 2), (0, 1))):
            vals = self.lines[axis].get((d[u], d[v]))
            if vals is None:
                out += (INF, INF)
                continue
            t = d[axis]
            k = bisect.bisect_right(vals, t)
            out.append(vals[k] - t - 1 if k < len(vals) else INF)
            out.append(t - vals[k - 1] - 1 if k > 0 else INF)
        res = tuple(out)
        self.cache[d] = res
        return res


class _SteppedPairTable:
    """`_PairTable` for moves along any directions (the prism grid's): for each positive direction v, the
    collision offsets on each line o + k v, by their step number t along it (o = key + t v, t counted on
    v's first positive coordinate), sorted; the distances come in the directions' order, v then -v."""

    __slots__ = ("axes", "lines", "cache")

    def __init__(self, a: Iterable[Cell], b: Iterable[Cell], directions: Sequence[Cell]) -> None:
        """`a` fixed, `b` sliding; both in place (their cells' kinds matter: up and down triangles)."""
        a_cells, bs = list(a), list(b)
        coll = {(p[0] - q[0], p[1] - q[1], p[2] - q[2]) for p in a_cells for q in bs}
        self.axes = [(v, next(i for i in range(3) if v[i] > 0)) for v in directions[0::2]]
        self.lines: list[dict[Cell, list[int]]] = []
        for v, i in self.axes:
            # On a doubled line: 2t where b at step t overlaps a, 2t + 1 where the cells b passes over
            # between steps t and t + 1 do.
            up, down = PRISM_SWEPT[v]
            swept = [(q[0] + w[0], q[1] + w[1], q[2] + w[2]) for q in bs
                     for w in [up if (q[0] + q[1]) % 2 == 0 else down] if w != (0, 0, 0)]
            passed = {(p[0] - q[0], p[1] - q[1], p[2] - q[2]) for p in a_cells for q in swept}
            lines: dict[Cell, list[int]] = {}
            for half, offsets in ((0, coll), (1, passed)):
                for c in offsets:
                    t = c[i] // v[i]
                    lines.setdefault((c[0] - t * v[0], c[1] - t * v[1], c[2] - t * v[2]), []).append(2 * t + half)
            for vals in lines.values():
                vals.sort()
            self.lines.append(lines)
        self.cache: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def free(self, d: tuple[int, int, int]) -> tuple[int, ...]:
        """The distances (in steps) that j can slide from offset d = o_j - o_i, along each direction."""
        got = self.cache.get(d)
        if got is not None:
            return got
        out: list[int] = []
        for (v, i), lines in zip(self.axes, self.lines, strict=True):
            t = d[i] // v[i]
            vals = lines.get((d[0] - t * v[0], d[1] - t * v[1], d[2] - t * v[2]))
            if vals is None:
                out += (INF, INF)
                continue
            k = bisect.bisect_right(vals, 2 * t)
            out.append((vals[k] - 2 * t + 1) // 2 - 1 if k < len(vals) else INF)
            out.append((2 * t - vals[k - 1] + 1) // 2 - 1 if k > 0 else INF)
        res = tuple(out)
        self.cache[d] = res
        return res


class Shapes:
    """The shapes one disassembler has met (a piece's cells up to translation, numbered from 0), and
    their pair tables, kept for the whole run: BurrTools' movement cache, made once per pair of shapes.

    A piece in an assembly is then (shape id, origin). In C (`context`, when it is built) the shapes,
    the tables and the search's buffers live in one `_disassemble.Disassembler`; the Python twin's
    tables (`_PairTable`) are kept here, up to _TABLE_BYTES (then they start again).
    """

    def __init__(self, native: bool = True, directions: tuple[Cell, ...] = DIRECTIONS) -> None:
        self.directions = directions
        """The grid's moves (`directions_of`): on the prism grid, up and down triangles stay what they are
        (a shape's origin moves by a translation of the grid) and the tables are stepped; C has the cube's."""
        self.ids: dict[tuple[Cell, ...], int] = {}
        self.cells: list[tuple[Cell, ...]] = []
        cubes = directions is DIRECTIONS
        self.context = _native.Disassembler(_TABLE_BYTES) if native and _native is not None and cubes else None
        self.twin: dict[tuple[int, int], _PairTable | _SteppedPairTable] = {}
        self.twin_bytes = 0

    def of(self, cells: Iterable[Cell]) -> tuple[int, Cell]:
        """The shape id of `cells` (made the first time) and their origin (least x, y and z)."""
        listed = list(cells)
        xs, ys, zs = zip(*listed, strict=True)
        lx, ly, lz = min(xs), min(ys), min(zs)
        if self.directions is not DIRECTIONS and (lx + ly) % 2:  # prisms: an up triangle stays up
            lx -= 1
        key = tuple(sorted((x - lx, y - ly, z - lz) for x, y, z in listed))
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.cells)
            self.cells.append(key)
            if self.context is not None:
                flat = [v for c in key for v in c]
                # a shape beyond the C search's coordinates is left empty there: its searches run in the twin
                self.context.add_shape(flat if max(flat) < _C_COORD else [])
        return sid, (lx, ly, lz)

    def table(self, a: int, b: int) -> _PairTable | _SteppedPairTable:
        """The twin's table of shape b against shape a."""
        t = self.twin.get((a, b))
        if t is None:
            if self.twin_bytes > _TABLE_BYTES:  # a search holds the tables it uses: dropping these is safe
                self.twin.clear()
                self.twin_bytes = 0
            t = self.twin[(a, b)] = (_PairTable(self.cells[a], self.cells[b]) if self.directions is DIRECTIONS
                                     else _SteppedPairTable(self.cells[a], self.cells[b], self.directions))
            self.twin_bytes += len(self.cells[a]) * len(self.cells[b]) * 64  # about what its lines and cache take
        return t


_C_COORD = 1 << 20
"""The C search's coordinate bound (`COORD` in _disassemble.c): beyond it, the twin."""
_SHAPE_CACHE = 1024
_TABLE_BYTES = 64 << 20
"""Shapes kept between calls of `disassemble` (then the registry starts again), and bytes of pair tables
kept by one registry (then its tables do)."""
_DEFAULT: list[Shapes] = []


def _shapes_for_calls(native: bool, grid: str = "cubes") -> Shapes:
    """The registry `disassemble` and `explore` share between calls (one with C, one without, per grid),
    made again past _SHAPE_CACHE shapes: bounded memory over a long session of unrelated assemblies."""
    directions = directions_of(grid)
    cubes = directions is DIRECTIONS
    for shapes in _DEFAULT:
        if shapes.directions is directions and (shapes.context is not None) == (native and _native is not None
                                                                               and cubes):
            if len(shapes.cells) < _SHAPE_CACHE:
                return shapes
            _DEFAULT.remove(shapes)
            break
    shapes = Shapes(native, directions)
    _DEFAULT.append(shapes)
    return shapes
