"""BurrTools' five grids: which integer triples are cells, which translations and turns keep the grid.

Every grid stores its cells as integer triples (x, y, z), as BurrTools stores every grid in the same
box of voxels, x fastest; the grids differ in which triples are real cells, which translations carry
the grid onto itself, which turns (and mirror images) a piece may take, and which cells touch.
Those facts are BurrTools' (its `voxel_N` classes, described in ../shared/reference/grids.md); the
way they are computed here is cpsolve's own:

- A turn is an exact integer matrix acting on each cell's *centroid*, written in a scaled integer
  lattice of the grid's own (`Grid.centroid`); the image is looked up as a cell (`Grid.cell_at`),
  and a turn whose image of some cell is no cell *fails* for that shape. On the sphere grid most of
  the 240 turns fail for shapes that are not flat in one triangular layer, as they do in BurrTools,
  so every orientation list tolerates failures.
- A translation is legal when it keeps every cell's kind (an up triangle stays an up triangle, a
  rhombic cell keeps its place in its 5x5x5 block): two cells differ by a legal translation exactly
  when they have the same `kind`. A shape is normalized by the legal translation that brings its
  bounding box nearest the origin (BurrTools' `minimizePiece`).

The cube grid is the grid cpsolve always had; its hot paths (`geometry.orientations`, the 48 signed
permutations) are used as they are, so nothing on cubes is slower for the others being here.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from itertools import permutations, product

from . import geometry
from .geometry import Cell, Shape

Matrix = tuple[Cell, Cell, Cell]
"""A 3x3 integer matrix by rows."""


@dataclass(frozen=True, order=True)
class GridMap:
    """One turn (or mirror image) of a grid: `matrix / scale` applied to the grid's centroid coordinates.

    `is_reflection` marks the mirror images (determinant -1), which pieces may not take."""

    matrix: Matrix
    scale: int = 1
    is_reflection: bool = False

    def apply(self, p: Cell) -> Cell | None:
        """The image of centroid `p`, or None when it is not a lattice point (the turn fails there)."""
        m, s = self.matrix, self.scale
        x = m[0][0] * p[0] + m[0][1] * p[1] + m[0][2] * p[2]
        y = m[1][0] * p[0] + m[1][1] * p[1] + m[1][2] * p[2]
        z = m[2][0] * p[0] + m[2][1] * p[1] + m[2][2] * p[2]
        if s == 1:
            return (x, y, z)
        if x % s or y % s or z % s:
            return None
        return (x // s, y // s, z // s)


def _mul(a: Matrix, b: Matrix) -> Matrix:
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))  # type: ignore[return-value]


def _det(m: Matrix) -> int:
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def _signed_permutations() -> tuple[GridMap, ...]:
    """The 48 isometries of the cube lattice, rotations first."""
    out = []
    for axes in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            rows = tuple(tuple(signs[i] if axes[i] == j else 0 for j in range(3)) for i in range(3))
            out.append(GridMap(rows, 1, _det(rows) < 0))  # type: ignore[arg-type]
    eye = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    return tuple(sorted(out, key=lambda g: (g.is_reflection, g.matrix != eye, g.matrix)))


class Grid:
    """A grid: its cells, legal translations, turns, neighbours. Subclasses give the facts; the
    methods here compute shapes' orientations and normal forms from them."""

    name: str = ""
    burr_type: int = -1
    title: str = ""
    density: Fraction = Fraction(1)
    """The share of the triples in a large box that are cells (rhombic: 24 of each 125)."""
    pivot: bool = False
    """Turn a shape about its first cell (spheres: the 96 turns that are not cube turns map only some
    lattice points to lattice points, so they are applied to differences of cells)."""

    # ---- facts, per grid
    def is_cell(self, c: Cell) -> bool:
        return True

    def kind(self, c: Cell) -> Hashable:
        """Two cells differ by a legal translation exactly when their kinds are equal."""
        return 0

    def shift_for(self, low: Cell) -> Cell:
        """The legal translation that moves a shape whose bounding box starts at `low` nearest the origin
        (every coordinate of the moved box >= 0)."""
        return (-low[0], -low[1], -low[2])

    def centroid(self, c: Cell) -> Cell:
        """The cell's centroid in the grid's scaled integer lattice (where the turns are integer)."""
        return c

    def cell_at(self, p: Cell) -> Cell | None:
        """The cell whose centroid is `p`, or None."""
        return p

    @property
    def maps(self) -> tuple[GridMap, ...]:
        """Every turn and mirror image, rotations first; the first is the identity."""
        raise NotImplementedError

    def steps(self, c: Cell) -> tuple[Cell, ...]:
        """Offsets from cell `c` to the cells sharing a face with it (spheres: touching balls)."""
        raise NotImplementedError

    # ---- derived
    @cached_property
    def rotations(self) -> tuple[GridMap, ...]:
        return tuple(g for g in self.maps if not g.is_reflection)

    @cached_property
    def mirror_map(self) -> GridMap:
        return next(g for g in self.maps if g.is_reflection)

    @cached_property
    def period(self) -> tuple[int, int, int]:
        """The smallest shift along each axis that carries every cell onto a cell of its kind: the box
        [0, period) holds one cell of every kind (what drawing every kind of cell, or every face
        direction, needs)."""
        box = list(product(range(12), range(12), range(12)))
        out = []
        for axis in range(3):
            for p in range(1, 13):
                dx, dy, dz = p * (axis == 0), p * (axis == 1), p * (axis == 2)
                if all(self.is_cell(c) == self.is_cell(m) and (not self.is_cell(c) or self.kind(c) == self.kind(m))
                       for c in box for m in [(c[0] + dx, c[1] + dy, c[2] + dz)]):
                    out.append(p)
                    break
        return out[0], out[1], out[2]

    def shift_of(self, cells: Sequence[Cell]) -> Cell:
        """The translation `normalize` applies to `cells`."""
        return self.shift_for((min(c[0] for c in cells), min(c[1] for c in cells), min(c[2] for c in cells)))

    def normalize(self, cells: Iterable[Cell]) -> Shape:
        """The shape moved by a legal translation so its bounding box sits at the origin, sorted."""
        pts = list(cells)
        if not pts:
            return ()
        dx, dy, dz = self.shift_of(pts)
        return tuple(sorted((x + dx, y + dy, z + dz) for x, y, z in pts))

    def moved(self, g: GridMap, cells: Sequence[Cell]) -> list[Cell] | None:
        """The cells turned by `g` (not normalized, same order), or None when the turn fails."""
        base = self.centroid(cells[0]) if self.pivot and cells else (0, 0, 0)
        out = []
        for c in cells:
            p = self.centroid(c)
            q = g.apply((p[0] - base[0], p[1] - base[1], p[2] - base[2]))
            cell = None if q is None else self.cell_at(q)
            if cell is None:
                return None
            out.append(cell)
        return out

    def transform_shape(self, g: GridMap, shape: Sequence[Cell]) -> Shape | None:
        out = self.moved(g, shape)
        return None if out is None else self.normalize(out)

    def orientations(self, shape: Shape) -> tuple[Shape, ...]:
        """The distinct orientations a piece can take (rotations only; failing turns skipped)."""
        return _orientations(self.name, shape)

    def turned(self, shape: Sequence[Cell]) -> list[list[Cell]]:
        """The shape under each rotation that succeeds, normalized, its cells in the shape's order (so
        that a colour or a label follows its cell): one list per rotation, repeats kept."""
        out = []
        for g in self.rotations:
            cells = self.moved(g, shape)
            if cells is not None:
                dx, dy, dz = self.shift_of(cells)
                out.append([(x + dx, y + dy, z + dz) for x, y, z in cells])
        return out

    def rotation_key(self, shape: Iterable[Cell]) -> Shape:
        return min(self.orientations(self.normalize(shape)))

    def mirror(self, shape: Sequence[Cell]) -> Shape:
        out = self.transform_shape(self.mirror_map, tuple(shape))
        assert out is not None, "a grid's mirror map never fails"
        return out

    def is_chiral(self, shape: Sequence[Cell]) -> bool:
        s = self.normalize(shape)
        return self.rotation_key(self.mirror(s)) != self.rotation_key(s)

    def neighbours(self, c: Cell) -> list[Cell]:
        x, y, z = c
        return [(x + dx, y + dy, z + dz) for dx, dy, dz in self.steps(c)]

    def is_connected(self, cells: Iterable[Cell]) -> bool:
        """The cells form one lump through shared faces (touching balls)."""
        return geometry.is_connected(cells, self.steps)

    def check_cells(self, cells: Iterable[Cell]) -> Cell | None:
        """The first triple that is not a cell of this grid, or None."""
        return next((c for c in cells if not self.is_cell(c)), None)

    def box(self, size: tuple[int, int, int]) -> Shape:
        """The grid's cells in the box [0, size)."""
        return tuple(c for c in geometry.box_cells(size) if self.is_cell(c))


@cache
def _orientations(grid: str, shape: Shape) -> tuple[Shape, ...]:
    g = GRIDS[grid]
    return tuple(sorted({o for m in g.rotations if (o := g.transform_shape(m, shape)) is not None}))


# ------------------------------------------------------------------------------------------ cubes


class Cubes(Grid):
    """The cube grid: every triple a cell, every translation legal, the 48 signed permutations."""

    name, burr_type, title = "cubes", 0, "cubes"

    @cached_property
    def maps(self) -> tuple[GridMap, ...]:
        return _signed_permutations()

    def steps(self, c: Cell) -> tuple[Cell, ...]:
        return geometry.FACE_STEPS

    # The hot paths of the cube grid, as they always were.
    def normalize(self, cells: Iterable[Cell]) -> Shape:
        return geometry.normalize(cells)

    def orientations(self, shape: Shape) -> tuple[Shape, ...]:
        return geometry.orientations(shape)

    def is_connected(self, cells: Iterable[Cell]) -> bool:
        return geometry.is_face_connected(cells)

    def turned(self, shape: Sequence[Cell]) -> list[list[Cell]]:
        out = []
        for t in geometry.ROTATIONS:
            moved = [t.apply(c) for c in shape]
            lo = tuple(min(m[i] for m in moved) for i in range(3))
            out.append([(m[0] - lo[0], m[1] - lo[1], m[2] - lo[2]) for m in moved])
        return out


# ------------------------------------------------------------------------------------------ spheres

SPHERE_STEPS: tuple[Cell, ...] = tuple(
    (a, b, c) for a, b, c in product((-1, 0, 1), repeat=3) if abs(a) + abs(b) + abs(c) == 2)
"""The 12 touching neighbours of a ball in the face-centred cubic packing."""


def _turn(axis: Cell, cos: Fraction, sin_over_axis: Fraction) -> tuple[Matrix, int]:
    """The rotation by the angle with cosine `cos` about `axis` (right-handed), exactly, as (scale x matrix,
    scale), by Rodrigues' formula R = c I + s [u]x + (1 - c) u u^T; `sin_over_axis` is sin / |axis|, so that
    every term is rational for the turns used here."""
    n = sum(a * a for a in axis)
    assert sin_over_axis * sin_over_axis == (1 - cos * cos) / n, "sin / |axis| must match the cosine"
    a = axis
    cross = ((0, -a[2], a[1]), (a[2], 0, -a[0]), (-a[1], a[0], 0))
    exact = [[cos * (i == j) + sin_over_axis * cross[i][j] + (1 - cos) * a[i] * a[j] / n for j in range(3)]
             for i in range(3)]
    scale = max(v.denominator for row in exact for v in row)
    assert all(scale % v.denominator == 0 for row in exact for v in row)
    rows = tuple(tuple(int(v * scale) for v in row) for row in exact)
    return rows, scale  # type: ignore[return-value]


def _sphere_maps() -> tuple[GridMap, ...]:
    """The sphere grid's 240 maps, generated by the rule that defines them (grids.md): the cube's 24
    rotations, then the 96 turns of the double coset O r O, r a 60 degree turn about [111] (each carries
    one triangular {111} layer of balls onto another), then each of those 120 after mirroring x.

    The order is cpsolve's own (cube turns first, the identity first, the others by matrix): BurrTools
    numbers the same 240 by a list of its own, which cpsolve does not copy (it is GPL). So an assembly a
    BurrTools file stores is read by its pieces' positions alone (`puzzle.burrtools_placements.sphere_assembly`), and
    cpsolve writes no sphere assemblies."""
    cube = [g.matrix for g in _signed_permutations() if not g.is_reflection]
    r, scale = _turn((1, 1, 1), Fraction(1, 2), Fraction(1, 2))  # cos 60 = 1/2, sin 60 / sqrt 3 = 1/2
    coset = sorted({_mul(_mul(a, r), b) for a in cube for b in cube})
    assert len(coset) == 96 and scale == 3, "O r O has 24 x 24 / 6 elements (O and r O r^-1 share 6)"
    rotations = [GridMap(m, 1, False) for m in cube] + [GridMap(m, scale, False) for m in coset]
    flip: Matrix = ((-1, 0, 0), (0, 1, 0), (0, 0, 1))
    return tuple(rotations) + tuple(GridMap(_mul(g.matrix, flip), g.scale, True) for g in rotations)


SPHERE_MAPS = _sphere_maps()
"""The sphere grid's 240 maps (`_sphere_maps`), rotations first."""


class Spheres(Grid):
    """Balls in the face-centred cubic packing, BurrTools' embedding: (x, y, z) is a ball iff x + y + z
    is even (a 3-D checkerboard of the cube grid), ball centres (x, y, z)/sqrt(2) apart, diameter 1."""

    name, burr_type, title = "spheres", 2, "spheres"
    density = Fraction(1, 2)
    pivot = True

    def is_cell(self, c: Cell) -> bool:
        return (c[0] + c[1] + c[2]) % 2 == 0

    def shift_for(self, low: Cell) -> Cell:
        odd = (low[0] + low[1] + low[2]) % 2
        return (-low[0] + odd, -low[1], -low[2])

    def cell_at(self, p: Cell) -> Cell | None:
        return p if (p[0] + p[1] + p[2]) % 2 == 0 else None

    @property
    def maps(self) -> tuple[GridMap, ...]:
        return SPHERE_MAPS

    def steps(self, c: Cell) -> tuple[Cell, ...]:
        return SPHERE_STEPS


# ------------------------------------------------------------------------------------------ prisms

_R60: Matrix = ((0, -1, 0), (1, 1, 0), (0, 0, 1))
"""A 60 degree turn about z in the prism grid's lattice coordinates (u, v): a = (1, 0) goes to
b = (1/2, sqrt(3)/2), b to b - a."""
_FLIP_X: Matrix = ((-1, -1, 0), (0, 1, 0), (0, 0, 1))
"""x -> -x in the same coordinates: u a + v b goes to (-u - v) a + v b."""
_FLIP_Z: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, -1))


def _prism_maps() -> tuple[GridMap, ...]:
    """BurrTools' 24 prism maps in its numbering: number 6a + k is a turn by 60k degrees about z after
    B_a, with B = (identity, a half turn about y, mirror x, mirror z)."""
    eye: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    bases = (eye, _mul(_FLIP_X, _FLIP_Z), _FLIP_X, _FLIP_Z)
    out = []
    for a, b in enumerate(bases):
        turn = eye
        for _ in range(6):
            out.append(GridMap(_mul(turn, b), 1, a >= 2))
            turn = _mul(_R60, turn)
    return tuple(out)


PRISM_MAPS = _prism_maps()


class Prisms(Grid):
    """Layers of equilateral triangles stacked along z. Cell (x, y, z): triangle column x of row y in
    layer z; (x + y) even is an up triangle (its base below), odd a down one (BurrTools' grid 1)."""

    name, burr_type, title = "prisms", 1, "triangular prisms"

    def kind(self, c: Cell) -> Hashable:
        return (c[0] + c[1]) % 2

    def shift_for(self, low: Cell) -> Cell:
        return (-low[0] + (low[0] + low[1]) % 2, -low[1], -low[2])

    def centroid(self, c: Cell) -> Cell:
        """3 x the centroid in the lattice basis a = (1, 0), b = (1/2, sqrt(3)/2); z as it is."""
        x, y, z = c
        if (x + y) % 2 == 0:
            return ((3 * (x - y) + 2) // 2, 3 * y + 1, z)
        return ((3 * (x - y) + 1) // 2, 3 * y + 2, z)

    def cell_at(self, p: Cell) -> Cell | None:
        u, v, z = p
        y, r = divmod(v, 3)
        if r == 0:
            return None
        up = r == 1
        twice = 2 * u - (2 if up else 1)
        if twice % 3:
            return None
        x = y + twice // 3
        if ((x + y) % 2 == 0) != up:
            return None
        return (x, y, z)

    @property
    def maps(self) -> tuple[GridMap, ...]:
        return tuple(sorted(PRISM_MAPS, key=lambda g: g.is_reflection))

    def steps(self, c: Cell) -> tuple[Cell, ...]:
        t = 1 if (c[0] + c[1]) % 2 == 0 else -1
        return ((-1, 0, 0), (1, 0, 0), (0, 0, -1), (0, 0, 1), (0, -t, 0))


# ------------------------------------------------------------------------------------------ rhombic


def _fold(c: int) -> int:
    r = c % 5
    return min(r, 4 - r)


class _Blocks(Grid):
    """A grid that cuts each cube into cells of a block of the cube array, turned as the cube is."""

    @cached_property
    def maps(self) -> tuple[GridMap, ...]:
        return _signed_permutations()

    def steps(self, c: Cell) -> tuple[Cell, ...]:
        return _face_steps(self.name, self.kind(c))


class Rhombic(_Blocks):
    """Each unit cube cut by its six diagonal planes into 24 congruent tetrahedra, stored as a 5x5x5
    block whose 24 cells are those whose folded coordinates (c mod 5 folded about 2) are 0, 1 and 2 in
    some order (BurrTools' grid 3, from which rhombic dodecahedra are built)."""

    name, burr_type, title = "rhombic", 3, "rhombic tetrahedra"
    density = Fraction(24, 125)

    def is_cell(self, c: Cell) -> bool:
        return sorted(map(_fold, c)) == [0, 1, 2]

    def kind(self, c: Cell) -> Hashable:
        return (c[0] % 5, c[1] % 5, c[2] % 5)

    def shift_for(self, low: Cell) -> Cell:
        return (-5 * (low[0] // 5), -5 * (low[1] // 5), -5 * (low[2] // 5))

    def centroid(self, c: Cell) -> Cell:
        return (c[0] - 2, c[1] - 2, c[2] - 2)  # turns about the centre of a block

    def cell_at(self, p: Cell) -> Cell | None:
        c = (p[0] + 2, p[1] + 2, p[2] + 2)
        return c if self.is_cell(c) else None


# ------------------------------------------------------------------------------------------ tetra-octa


class TetraOcta(_Blocks):
    """Each cube one regular tetrahedron (the centre cell of a 3x3x3 block) and four corner tetrahedra
    (quarter octahedra), the two ways of cutting alternating in a checkerboard of blocks: corner cells
    (2,0,0), (0,2,0), (2,2,2), (0,0,2) of blocks with an even sum of block coordinates, (0,0,0),
    (2,2,0), (0,2,2), (2,0,2) of odd ones (BurrTools' grid 4)."""

    name, burr_type, title = "tetra-octa", 4, "tetrahedra and octahedra"
    density = Fraction(5, 27)

    def is_cell(self, c: Cell) -> bool:
        r = (c[0] % 3, c[1] % 3, c[2] % 3)
        if r == (1, 1, 1):
            return True
        if 1 in r:
            return False
        odd = (c[0] // 3 + c[1] // 3 + c[2] // 3) % 2
        # corners: even blocks take those with an odd count of 2s... (2,0,0): one 2; (2,2,2): three
        twos = sum(1 for v in r if v == 2) % 2
        return twos != odd

    def kind(self, c: Cell) -> Hashable:
        return (c[0] % 3, c[1] % 3, c[2] % 3, (c[0] // 3 + c[1] // 3 + c[2] // 3) % 2)

    def shift_for(self, low: Cell) -> Cell:
        d = [-3 * (low[i] // 3) for i in range(3)]
        if (d[0] // 3 + d[1] // 3 + d[2] // 3) % 2:
            d[0] += 3
        return (d[0], d[1], d[2])

    def centroid(self, c: Cell) -> Cell:
        return (2 * c[0] + 1, 2 * c[1] + 1, 2 * c[2] + 1)  # turns about a block corner

    def cell_at(self, p: Cell) -> Cell | None:
        c = ((p[0] - 1) // 2, (p[1] - 1) // 2, (p[2] - 1) // 2)
        return c if self.is_cell(c) else None


# ------------------------------------------------------------------------------------------ solids

Point = tuple[Fraction, Fraction, Fraction]


def solid(grid: str, c: Cell) -> tuple[Point, ...]:
    """The corners of a cell's solid in space (unit edge per cube, ball or triangle): what pictures,
    the 3-D page and STL draw, and what decides which cells share a face. A ball has its centre alone."""
    x, y, z = c
    F = Fraction
    if grid == "cubes":
        return tuple((F(x + a), F(y + b), F(z + d)) for a in (0, 1) for b in (0, 1) for d in (0, 1))
    if grid == "spheres":
        return ((F(x), F(y), F(z)),)  # scaled by sqrt(1/2) when drawn
    if grid == "prisms":
        # in the lattice basis (u, v): up triangle (x, y) has corners (k, y), (k+1, y), (k, y+1) with k = (x-y)/2
        if (x + y) % 2 == 0:
            k = (x - y) // 2
            tri = ((k, y), (k + 1, y), (k, y + 1))
        else:
            k = (x - y + 1) // 2
            tri = ((k, y + 1), (k - 1, y + 1), (k, y))
        return tuple((F(u), F(v), F(h)) for h in (z, z + 1) for u, v in tri)
    if grid == "rhombic":
        b = (x // 5, y // 5, z // 5)
        r = (x % 5, y % 5, z % 5)
        f = [min(v, 4 - v) for v in r]
        face = f.index(0)
        side = f.index(1)
        along = f.index(2)
        centre = [F(b[i]) + F(1, 2) for i in range(3)]
        fc = list(centre)
        fc[face] = F(b[face] + (0 if r[face] == 0 else 1))
        points = [centre, fc]
        for end in (0, 1):
            p = list(fc)
            p[side] = F(b[side] + (0 if r[side] == 1 else 1))
            p[along] = F(b[along] + end)
            points.append(p)
        return tuple((p[0], p[1], p[2]) for p in points)
    if grid == "tetra-octa":
        bx, by, bz = x // 3, y // 3, z // 3
        rx, ry, rz = x % 3, y % 3, z % 3
        if (rx, ry, rz) == (1, 1, 1):  # the regular tetrahedron: the cube's corners that no corner cell takes
            odd_block = (bx + by + bz) % 2
            keep = [(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1) if (i + j + k) % 2 == odd_block]
            return tuple((F(bx + i), F(by + j), F(bz + k)) for i, j, k in keep)
        kx, ky, kz = bx + rx // 2, by + ry // 2, bz + rz // 2  # the cube corner of this corner cell
        sx, sy, sz = (1 if rx == 0 else -1), (1 if ry == 0 else -1), (1 if rz == 0 else -1)  # towards the cube
        near = ((kx, ky, kz), (kx + sx, ky, kz), (kx, ky + sy, kz), (kx, ky, kz + sz))
        return tuple((F(a), F(b), F(c)) for a, b, c in near)
    raise ValueError(grid)


@cache
def _face_steps(grid: str, kind: Hashable) -> tuple[Cell, ...]:
    """Offsets to the cells sharing a face (three corners) with a cell of this kind, from the solids."""
    g = GRIDS[grid]
    period = 5 if grid == "rhombic" else 6
    base = next((a, b, c) for a, b, c in product(range(period), repeat=3) if g.is_cell((a, b, c))
                and g.kind((a, b, c)) == kind)
    mine = set(solid(grid, base))
    out: list[Cell] = []
    for dx, dy, dz in product(range(-period, period + 1), repeat=3):
        q = (base[0] + dx, base[1] + dy, base[2] + dz)
        if (dx, dy, dz) != (0, 0, 0) and g.is_cell(q) and len(mine & set(solid(grid, q))) >= 3:
            out.append((dx, dy, dz))
    return tuple(out)


CUBES = Cubes()
GRIDS: dict[str, Grid] = {g.name: g for g in (CUBES, Prisms(), Spheres(), Rhombic(), TetraOcta())}
"""Every grid by the name puzzle files use (`grid: spheres`)."""
BY_BURR_TYPE: dict[int, Grid] = {g.burr_type: g for g in GRIDS.values()}


def grid_of(name: str) -> Grid:
    return GRIDS[name]
