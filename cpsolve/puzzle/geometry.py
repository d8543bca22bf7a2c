"""The cubic lattice: points, the 48 isometries that fix the origin, and shapes made of unit cells.

Everything here is pure and works on plain tuples so that shapes can be hashed, compared and used
as dictionary keys; the orientation of a piece is just another shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product

Cell = tuple[int, int, int]
Shape = tuple[Cell, ...]
"""A shape is a sorted tuple of distinct cells; `normalize` makes one."""

FACE_STEPS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@dataclass(frozen=True, order=True)
class Transform:
    """A signed permutation of the axes: point p maps to q with q[i] = signs[i] * p[axes[i]].

    These are exactly the 48 linear isometries of the cubic lattice; `det` is +1 for the 24 proper
    rotations and -1 for rotations composed with a reflection.
    """

    axes: tuple[int, int, int]
    signs: tuple[int, int, int]

    def apply(self, p: Cell) -> Cell:
        a, s = self.axes, self.signs
        return (s[0] * p[a[0]], s[1] * p[a[1]], s[2] * p[a[2]])

    @property
    def matrix(self) -> tuple[Cell, Cell, Cell]:
        """The 3x3 signed permutation matrix (rows), for checks against linear algebra."""
        def row(i: int) -> Cell:
            return (self.signs[i] if self.axes[i] == 0 else 0, self.signs[i] if self.axes[i] == 1 else 0,
                    self.signs[i] if self.axes[i] == 2 else 0)

        return (row(0), row(1), row(2))

    @property
    def det(self) -> int:
        return _permutation_sign(self.axes) * self.signs[0] * self.signs[1] * self.signs[2]

    @property
    def is_reflection(self) -> bool:
        return self.det < 0


def _permutation_sign(perm: tuple[int, ...]) -> int:
    inversions = sum(1 for i in range(len(perm)) for j in range(i + 1, len(perm)) if perm[i] > perm[j])
    return -1 if inversions % 2 else 1


IDENTITY = Transform((0, 1, 2), (1, 1, 1))
ALL_TRANSFORMS: tuple[Transform, ...] = tuple(
    sorted(Transform((a, b, c), (x, y, z))
           for a, b, c in permutations(range(3)) for x, y, z in product((1, -1), repeat=3))
)
"""The full octahedral group O_h: 24 rotations and 24 improper elements."""
ROTATIONS: tuple[Transform, ...] = tuple(t for t in ALL_TRANSFORMS if not t.is_reflection)
MIRROR_X = Transform((0, 1, 2), (-1, 1, 1))


def normalize(cells: Iterable[Cell]) -> Shape:
    """Translate so that the minimum coordinate on each axis is 0, and sort: a translation-free key."""
    pts = list(cells)
    if not pts:
        return ()
    mins = tuple(min(p[i] for p in pts) for i in range(3))
    return tuple(sorted((p[0] - mins[0], p[1] - mins[1], p[2] - mins[2]) for p in pts))


def transform_shape(t: Transform, shape: Iterable[Cell]) -> Shape:
    return normalize(t.apply(p) for p in shape)


@cache
def orientations(shape: Shape) -> tuple[Shape, ...]:
    """The distinct orientations a rigid piece can take (rotations only: pieces cannot be mirrored)."""
    return tuple(sorted({transform_shape(t, shape) for t in ROTATIONS}))


def rotation_key(shape: Iterable[Cell]) -> Shape:
    """A canonical representative of a shape up to rotation and translation."""
    return min(orientations(normalize(shape)))


def mirror(shape: Iterable[Cell]) -> Shape:
    return transform_shape(MIRROR_X, shape)


def is_chiral(shape: Iterable[Cell]) -> bool:
    """True when no rotation maps the shape onto its mirror image."""
    s = normalize(shape)
    return rotation_key(mirror(s)) != rotation_key(s)


def is_face_connected(cells: Iterable[Cell]) -> bool:
    return is_connected(cells, lambda c: FACE_STEPS)


def is_connected(cells: Iterable[Cell], steps: Callable[[Cell], Iterable[Cell]]) -> bool:
    """The cells form one lump, stepping from a cell c by the offsets `steps(c)` (a grid's face neighbours)."""
    pts = set(cells)
    if not pts:
        return False
    start = next(iter(pts))
    seen, todo = {start}, [start]
    while todo:
        x, y, z = c = todo.pop()
        for dx, dy, dz in steps(c):
            q = (x + dx, y + dy, z + dz)
            if q in pts and q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen) == len(pts)


def box_cells(size: tuple[int, int, int], origin: Cell = (0, 0, 0)) -> Shape:
    """The cells of an axis-aligned box, sorted."""
    ox, oy, oz = origin
    return tuple(
        sorted((ox + x, oy + y, oz + z) for x in range(size[0]) for y in range(size[1]) for z in range(size[2]))
    )


def bounding_size(cells: Iterable[Cell]) -> tuple[int, int, int]:
    pts = list(cells)
    return tuple(max(p[i] for p in pts) - min(p[i] for p in pts) + 1 for i in range(3))  # type: ignore[return-value]


def are_adjacent(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) == 1
