"""BurrTools' placements: its numbering of a piece's turns on each grid, and the assemblies a file stores.

A BurrTools file stores an assembly as one placement per piece: a position and a transformation number
(x, y, z, t) in BurrTools' own numbering, which differs by grid: the 48 cube isometries in its order
(`TRANSFORMS`), the prism grid's 24 maps (`grid.PRISM_MAPS`), and on the sphere grid 240 of which
cpsolve knows the cube's 24 by a rule (`sphere_turn`); the others are found from the pieces' positions
(`sphere_assembly`). `burr_offsets` and `placed_cells` turn a placement into cells, `assembly_pieces`
and `stored_solutions` a stored assembly into `{label: cells}`; the writer (`output/burrtools.py`)
numbers the placements of the solutions it stores the same way (`burr_offsets`, `known_rotations`).

Why apart from the reader (`burrtools.py`): reading a file into a puzzle turns no piece; only the stored
assemblies (and the writer) need BurrTools' numbering of the turns, its anchoring by hotspot and the
search for the sphere grid's unnamed turns. This module builds on the reader's parsed file
(`BurrFile`, `select_problem`, `piece_names`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import CpsolveError
from .burrtools import BurrFile, BurrShape, StoredAssembly, parse_xmpuzzle, piece_names, select_problem
from .geometry import Cell
from .grid import BY_BURR_TYPE, PRISM_MAPS, GridMap

GRIDS = {0: "cubes", 1: "triangular prisms", 2: "spheres", 3: "rhombic dodecahedra", 4: "tetrahedra-octahedra"}
"""BurrTools' grid types (`<gridType type=N>`), each one of cpsolve's grids (`grid.BY_BURR_TYPE`)."""

Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]


def _mul(a: Matrix, b: Matrix) -> Matrix:
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))  # type: ignore[return-value]


def _burr_transforms() -> tuple[Matrix, ...]:
    """BurrTools' 48 placement transformations, in its numbering.

    Number 4a + k is F_a · Rx^k: k quarter turns about x after one of six "face" rotations
    F = (identity, Ry, Ry², Ry³, Rz, Rz³); number 24 + i is number i after mirroring x. Checked
    against the assemblies stored in BurrTools' own example files (tests/test_burrtools.py).
    """
    eye: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    rx: Matrix = ((1, 0, 0), (0, 0, -1), (0, 1, 0))
    ry: Matrix = ((0, 0, -1), (0, 1, 0), (1, 0, 0))
    rz: Matrix = ((0, -1, 0), (1, 0, 0), (0, 0, 1))
    ry2 = _mul(ry, ry)
    rz3 = _mul(rz, _mul(rz, rz))
    faces = (eye, ry, ry2, _mul(ry2, ry), rz, rz3)
    rotations = []
    for f in faces:
        m = f
        for _ in range(4):
            rotations.append(m)
            m = _mul(m, rx)
    flip: Matrix = ((-1, 0, 0), (0, 1, 0), (0, 0, 1))
    return tuple(rotations) + tuple(_mul(m, flip) for m in rotations)


TRANSFORMS = _burr_transforms()


def _sphere_cube_turns() -> tuple[Matrix, ...]:
    """BurrTools' numbers 0-23 on the sphere grid: the cube's rotations, in the order of a rule.

    Number 8a + 2k + b is Rz^k · B_a · H^b: H the half turn about (1, 0, 1), B_0 the identity, B_1 the
    third of a turn x -> y -> z -> x about (1, 1, 1), B_2 the quarter turn about y that takes z to x. So
    B_a carries the neighbour direction (1, 0, 1) into the ring of neighbours at height 1, 0 or -1,
    Rz^k goes a quarter of the way round that ring k times, and H^b keeps it. Checked against the
    assemblies BurrTools' example files store and against burrTxt's drawings of assemblies cpsolve
    writes (tests/test_grids.py). The numbers 24-119 (the 96 turns that carry a triangular layer
    onto another) follow no rule cpsolve knows, and cpsolve does not copy BurrTools' list of them
    (it is GPL): `sphere_assembly` finds those turns from the pieces' positions, and the writer
    stores no solution that needs one.
    """
    eye: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    rz: Matrix = ((0, -1, 0), (1, 0, 0), (0, 0, 1))
    third: Matrix = ((0, 0, 1), (1, 0, 0), (0, 1, 0))
    quarter: Matrix = ((0, 0, 1), (0, 1, 0), (-1, 0, 0))
    half: Matrix = ((0, 0, 1), (0, -1, 0), (1, 0, 0))
    out = []
    for base in (eye, third, quarter):
        turn = eye
        for _ in range(4):
            out += [_mul(turn, base), _mul(_mul(turn, base), half)]
            turn = _mul(rz, turn)
    return tuple(out)


SPHERE_CUBE_TURNS = _sphere_cube_turns()


def sphere_turn(t: int) -> GridMap | None:
    """BurrTools' sphere-grid transformation number t when cpsolve knows it (`_sphere_cube_turns`): 0-23,
    and 120 + i, which is number i after mirroring x; None for the turns of a triangular layer (24-119,
    144-239)."""
    flip: Matrix = ((-1, 0, 0), (0, 1, 0), (0, 0, 1))
    if 0 <= t < 24:
        return GridMap(SPHERE_CUBE_TURNS[t], 1, False)
    if 120 <= t < 144:
        return GridMap(_mul(SPHERE_CUBE_TURNS[t - 120], flip), 1, True)
    return None


def apply(m: Matrix, p: Cell) -> Cell:
    return (m[0][0] * p[0] + m[0][1] * p[1] + m[0][2] * p[2],
            m[1][0] * p[0] + m[1][1] * p[1] + m[1][2] * p[2],
            m[2][0] * p[0] + m[2][1] * p[1] + m[2][2] * p[2])


# ------------------------------------------------------------------------------------------ stored assemblies


def turns_of(grid: int) -> int:
    """How many placement transformations BurrTools numbers on a grid (the first half are rotations)."""
    return {1: 24, 2: 240}.get(grid, 48)


def known_rotations(grid: int) -> range:
    """The numbers of the rotations whose matrix cpsolve knows on a grid: all of them, but on the sphere grid
    only the cube's 24 (`_sphere_cube_turns`)."""
    return range(24) if grid == 2 else range(turns_of(grid) // 2)


def burr_offsets(grid: int, t: int, cells: Sequence[Cell], hotspot: Cell = (0, 0, 0)) -> list[Cell] | None:
    """Where BurrTools' transformation t puts each of a shape's `cells` (in its box's index order),
    relative to the placement position: a placement (x, y, z, t) covers (x, y, z) + offset. None when
    the transformation fails for the shape (spheres: a turn that carries some ball off the lattice).
    On the sphere grid only the numbers `sphere_turn` knows (ValueError for the others).

    BurrTools turns a shape and its hotspot the same way and puts the turned hotspot at (x, y, z), so
    any shift of the turned box cancels: cubes, rhombic and tetra-octa turn the voxel coordinates by
    its cube matrix t (rhombic and tetra-octa pad the box first, which the shift absorbs); prisms turn
    the triangles' centroids and snap back to cells; spheres as `sphere_offsets` says.
    """
    if grid == 2:
        g = sphere_turn(t)
        if g is None:
            raise ValueError(f"BurrTools' sphere turn {t} is one whose number cpsolve does not know")
        return sphere_offsets(g, cells, hotspot)
    if not cells:
        return []
    if grid in (0, 3, 4):
        m = TRANSFORMS[t]
        return [apply(m, (p[0] - hotspot[0], p[1] - hotspot[1], p[2] - hotspot[2])) for p in cells]
    prism = PRISM_MAPS[t]
    prisms = BY_BURR_TYPE[1]

    def turned(q: Cell) -> Cell:
        got = prism.apply(prisms.centroid(q))
        cell = None if got is None else prisms.cell_at(got)
        assert cell is not None, "a prism map carries triangles onto triangles"
        return cell

    h = turned(hotspot)
    return [(c[0] - h[0], c[1] - h[1], c[2] - h[2]) for c in map(turned, cells)]


def sphere_offsets(g: GridMap, cells: Sequence[Cell], hotspot: Cell = (0, 0, 0)) -> list[Cell] | None:
    """Where a sphere-grid map `g` puts each of a shape's `cells` (in its box's index order) relative to a
    BurrTools placement position, by BurrTools' anchoring: the balls turn about the first one (the first
    filled in x-fastest order), and the turned hotspot, rounded half away from zero (it need not be a
    lattice point), goes to the position. None when `g` carries some ball off the lattice."""
    if not cells:
        return []
    p0 = cells[0]
    out = []
    for p in cells:
        q = g.apply((p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]))
        if q is None or sum(q) % 2:
            return None
        out.append(q)
    h = _rounded(g, (hotspot[0] - p0[0], hotspot[1] - p0[1], hotspot[2] - p0[2]))
    return [(q[0] - h[0], q[1] - h[1], q[2] - h[2]) for q in out]


def _rounded(g: GridMap, p: Cell) -> Cell:
    """`g` applied to `p`, each coordinate rounded half away from zero (BurrTools' rounding)."""
    m, s = g.matrix, g.scale
    out = []
    for row in m:
        v = row[0] * p[0] + row[1] * p[1] + row[2] * p[2]
        q, r = divmod(abs(v), s)
        out.append((q + (2 * r >= s)) * (1 if v >= 0 else -1))
    return (out[0], out[1], out[2])


def placed_cells(shape: BurrShape, placement: tuple[int, int, int, int], grid: int = 0) -> list[Cell]:
    """The result cells a shape covers at BurrTools placement (x, y, z, t) on grid `grid` (`burr_offsets`;
    on the sphere grid a turn of a triangular layer is found by `sphere_assembly` instead): on cubes,
    BurrTools turns the shape's whole box by matrix t, shifts it back to the origin and puts the turned
    hotspot at (x, y, z); the shift cancels, so a cell p lands at (x, y, z) + M·(p - hotspot)."""
    x, y, z, t = placement
    if t >= turns_of(grid):
        raise CpsolveError(f"transformation {t} does not exist on the {GRIDS[grid]} grid", field="solutions")
    offsets = burr_offsets(grid, t, shape.filled(), shape.hotspot)
    if offsets is None:
        raise CpsolveError(f"transformation {t} cannot turn shape {shape.name or ''} on the sphere grid",
                           field="solutions")
    return sorted((x + q[0], y + q[1], z + q[2]) for q in offsets)


def sphere_assembly(bf: BurrFile, problem: int, number: int) -> list[list[Cell] | None]:
    """The cells of each entry of stored assembly `number` of a sphere-grid problem (None: unplaced).

    A stored entry is (x, y, z, t), t a number in BurrTools' own list of the 240 sphere maps. cpsolve knows
    the numbers of the cube's turns by a rule (`sphere_turn`), not those of the 96 turns that carry a
    triangular layer onto another (BurrTools lists them in an order of its own, which cpsolve does not
    copy). So an entry with a cube turn is placed as it says; for an entry with another turn, every one
    of the grid's 96 (`Spheres.maps`, made by rule; their mirror images for t >= 144) is placed at
    (x, y, z) by BurrTools' anchoring (`sphere_offsets`), and those that stay inside the result as a turn of
    the piece are its candidates. An exact cover then picks one candidate per entry so that the pieces fill
    the result (every `#` cell once, a `+` cell at most once). Exactly one assembly must fit: none, or two
    that differ, is refused in one line naming the file, the problem and the assembly. (The positions
    alone do not always decide: in BallRoom's third problem, two three-ball pieces can trade places at the
    positions stored for them; the cube turns' numbers tell them apart.)
    """
    prob = select_problem(bf, problem)
    where, field_ = bf.where, f"problems.{problem}.solutions"
    result = bf.shapes[prob.result]
    inside = {c for c, _, _ in result.cells}
    required = {c for c, state, _ in result.cells if state != "+"}
    spheres = BY_BURR_TYPE[2]
    shapes = [bf.shapes[part.shape] for part in prob.parts for _ in range(max(part.high, 0))]
    spots = prob.stored[number].placements
    what = f"stored assembly {number}"
    if len(spots) != len(shapes):
        raise CpsolveError(f"{what} has {len(spots)} entries, the parts {len(shapes)}", where=where, field=field_)
    candidates: list[list[frozenset[Cell]]] = []
    for k, (shape, spot) in enumerate(zip(shapes, spots, strict=True)):
        if spot is None:
            candidates.append([])
            continue
        x, y, z, t = spot
        if not 0 <= t < 240:
            raise CpsolveError(f"{what}: transformation {t} does not exist on the spheres grid", where=where,
                               field=field_)
        known = sphere_turn(t)
        if known is not None:
            offsets = sphere_offsets(known, shape.filled(), shape.hotspot)
            if offsets is None:
                raise CpsolveError(f"{what}: transformation {t} cannot turn shape {shape.name or k} on the sphere "
                                   "grid", where=where, field=field_)
            candidates.append([frozenset((x + q[0], y + q[1], z + q[2]) for q in offsets)])
            continue
        turns = set(spheres.orientations(spheres.normalize(shape.filled())))
        found: set[frozenset[Cell]] = set()
        for g in spheres.maps:
            if g.scale == 1 or g.is_reflection != (t >= 120):
                continue  # a cube turn, or not the mirror kind t names
            offsets = sphere_offsets(g, shape.filled(), shape.hotspot)
            if offsets is not None:
                cells = frozenset((x + q[0], y + q[1], z + q[2]) for q in offsets)
                if cells <= inside and spheres.normalize(cells) in turns:  # a mirror map: only if a turn too
                    found.add(cells)
        candidates.append(sorted(found, key=sorted))
    part_of = [i for i, part in enumerate(prob.parts) for _ in range(max(part.high, 0))]
    placed = [k for k, spot in enumerate(spots) if spot is not None]
    order = sorted(placed, key=lambda k: len(candidates[k]))
    covers: dict[tuple[tuple[int, tuple[Cell, ...]], ...], dict[int, frozenset[Cell]]] = {}
    chosen: dict[int, frozenset[Cell]] = {}

    def cover(i: int, used: frozenset[Cell]) -> None:
        if len(covers) > 1:
            return
        if i == len(order):
            if required <= used:  # copies of one shape that trade places are the same assembly
                key = tuple(sorted((part_of[k], tuple(sorted(cells))) for k, cells in chosen.items()))
                covers.setdefault(key, dict(chosen))
            return
        k = order[i]
        for cells in candidates[k]:
            if not cells & used:
                chosen[k] = cells
                cover(i + 1, used | cells)
        chosen.pop(k, None)

    cover(0, frozenset())
    if not covers:
        raise CpsolveError(f"{what}: no turn of its pieces at their stored positions fills the result",
                           where=where, field=field_)
    if len(covers) > 1:
        raise CpsolveError(f"{what}: its pieces' stored positions fit two different assemblies (the numbers of "
                           "BurrTools' turns of a triangular layer, which cpsolve does not know, would tell them "
                           "apart)", where=where, field=field_)
    (fit,) = covers.values()
    return [sorted(fit[k]) if k in fit else None for k in range(len(spots))]


def assembly_pieces(bf: BurrFile, problem: int, assembly: StoredAssembly, *, as_placed: bool = False
                    ) -> dict[str, list[Cell]]:
    """A stored assembly as `{label: cells}` in the puzzle's coordinates (copies `NAME#k`, k in cell order;
    `as_placed`: k in the assembly's order, the pieces in BurrTools' own order, which its first-found
    disassembly depends on); on the sphere grid found from the pieces' positions (`sphere_assembly`)."""
    prob = select_problem(bf, problem)
    names = piece_names(bf, prob)
    expected = sum(max(p.high, 0) for p in prob.parts)
    if len(assembly.placements) != expected:
        raise CpsolveError(f"a stored assembly has {len(assembly.placements)} entries, the parts {expected}",
                           where=bf.where, field=f"problems.{problem}.solutions")
    if bf.grid == 2:
        number = next(k for k, a in enumerate(prob.stored) if a is assembly)
        entries = sphere_assembly(bf, problem, number)
    else:
        entries = []
        k = 0
        for part in prob.parts:
            for _ in range(max(part.high, 0)):
                spot = assembly.placements[k]
                k += 1
                entries.append(None if spot is None else placed_cells(bf.shapes[part.shape], spot, bf.grid))
    out: dict[str, list[Cell]] = {}
    k = 0
    for name, part in zip(names, prob.parts, strict=True):
        placed = []
        for _ in range(max(part.high, 0)):
            cells = entries[k]
            k += 1
            if cells is not None:
                placed.append(cells)
        if not as_placed:
            placed.sort()
        for i, cells in enumerate(placed, start=1):
            out[f"{name}#{i}" if part.high > 1 else name] = cells
    return out


def stored_solutions(path: str | Path, problem: int = 0) -> list[dict[str, list[Cell]]]:
    """The assemblies stored in a problem of the file, each as `{label: cells}` (see `assembly_pieces`)."""
    bf = parse_xmpuzzle(path)
    prob = select_problem(bf, problem)
    return [assembly_pieces(bf, problem, a) for a in prob.stored]
