"""The geometry every picture of a puzzle shares: coloured unit cubes, their visible faces, views.

The PNG/SVG pictures (`pictures.py`) and the 3-D page (`page.py`) both start here, so a piece looks
the same everywhere: same colour, same outline, same exploded position (the same assembly order too:
`steps.py`, which moves the pieces of this geometry).

Hidden faces are handled by the painter's algorithm over unit cubes: in an orthographic view along
v, two translates of the unit cube whose pictures overlap are ordered by the depth of their
centres (`c . v`), so drawing cubes far to near (and only each cube's faces that look towards the
viewer) is exact for cells of the integer lattice. That is why every arrangement drawn from Python
keeps cells on the lattice: exploded views and piece sets are shifted by whole cells.

Everything here is pure: plain tuples and frozen dataclasses in, the same out.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import CpsolveError
from ..puzzle.colors import css_color
from ..puzzle.geometry import ALL_TRANSFORMS, FACE_STEPS, ROTATIONS, Cell, bounding_size, normalize, orientations
from ..puzzle.grid import GRIDS, Grid
from ..puzzle.model import Puzzle

Vec = tuple[float, float, float]
Point = tuple[float, float]

PALETTE: tuple[str, ...] = (
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6",
    "#bfef45", "#fabed4", "#469990", "#dcbeff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
    "#808000", "#ffd8b1", "#000075", "#a9a9a9",
)
"""Colours for pieces without `color:`: Sasha Trubetskoy, "List of 20 Simple, Distinct Colors"
(2017, https://sashamaps.net/docs/resources/20-colors/), chosen to stay apart from one another."""

SHADE = {0: 0.80, 1: 0.80, 2: 0.66, 3: 0.66, 4: 1.0, 5: 0.55}
"""Brightness per face normal (index into FACE_STEPS: +x, -x, +y, -y, +z, -z): light from above."""

VIEWS: dict[str, Vec] = {
    "front-right": (1.0, -1.0, 1.0),
    "front-left": (-1.0, -1.0, 1.0),
    "back-right": (1.0, 1.0, 1.0),
    "back-left": (-1.0, 1.0, 1.0),
    "below-front-right": (1.0, -1.0, -1.0),
    "below-front-left": (-1.0, -1.0, -1.0),
    "below-back-right": (1.0, 1.0, -1.0),
    "below-back-left": (-1.0, 1.0, -1.0),
}
"""Isometric views, named by where the eye is: front is -y, right is +x, above is +z."""
DEFAULT_VIEW = "front-right"


@dataclass(frozen=True)
class Part:
    """One placed piece: what the legend calls it, its colour and its cells (already shifted).

    `marks` are the constraint colours on some of its cells: (cell, colour name, colour drawn)."""

    label: str
    name: str
    color: str
    cells: tuple[Cell, ...]
    marks: tuple[tuple[Cell, str, str], ...] = ()
    offset: Vec = (0.0, 0.0, 0.0)
    """Where it is drawn moved to, in space (the grids other than cubes explode this way: a shift of their
    cells would change their kind)."""


@dataclass(frozen=True)
class Face:
    """A visible unit square of a part: its cell, its normal (index into FACE_STEPS), its outline.

    `strong[i]` says whether edge i (from corner i to corner i+1) is a real edge of the piece — a
    fold, the piece's border, or a border with another piece — rather than the seam between two
    cubes of one flat side, which is drawn faintly so the cubes can still be counted.
    """

    part: int
    cell: Cell
    normal: int
    strong: tuple[bool, bool, bool, bool]

    def corners(self) -> tuple[Vec, Vec, Vec, Vec]:
        return face_corners(self.cell, self.normal)


@dataclass(frozen=True)
class Projection:
    """An orthographic camera: screen right, screen up and the direction towards the eye."""

    right: Vec
    up: Vec
    toward: Vec

    def point(self, p: Sequence[float]) -> Point:
        """Screen coordinates in cube units, y growing downwards as on images."""
        return (_dot(p, self.right), -_dot(p, self.up))

    def depth(self, p: Sequence[float]) -> float:
        """Larger is nearer the eye."""
        return _dot(p, self.toward)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _unit(a: Sequence[float]) -> Vec:
    n = math.sqrt(_dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


def _cross(a: Sequence[float], b: Sequence[float]) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def projection(view: str | Sequence[float]) -> Projection:
    """The camera looking from `view` (a name in VIEWS or a direction) at the origin, z up."""
    toward = _unit(VIEWS[view] if isinstance(view, str) else view)
    forward = (-toward[0], -toward[1], -toward[2])
    side = _cross(forward, (0.0, 0.0, 1.0))
    right = _unit(side) if _dot(side, side) > 1e-12 else (1.0, 0.0, 0.0)
    return Projection(right, _cross(right, forward), toward)


def hex_rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))


def rgb_hex(rgb: Sequence[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v))):02x}" for v in rgb)


def shade(color: str, factor: float) -> str:
    """The colour lit by `factor` (1 = as given); a darker side of a cube."""
    return rgb_hex([v * factor for v in hex_rgb(color)])


def mix(color: str, other: str, t: float) -> str:
    a, b = hex_rgb(color), hex_rgb(other)
    return rgb_hex([a[i] * (1 - t) + b[i] * t for i in range(3)])


def base_name(label: str) -> str:
    """`T#2` (the second copy of T) is a T."""
    return label.split("#")[0]


def piece_colors(
    labels: Iterable[str],
    colors: Mapping[str, str | None] | None = None,
    touching: Iterable[tuple[str, str]] = (),
    near: Iterable[tuple[str, str]] = (),
) -> dict[str, str]:
    """A colour per label: the piece's own `color:`, else a palette colour.

    While the palette (less the puzzle's own colours) has a colour for each uncoloured label, each
    takes the next one, so that 25 identical pieces of a small set read as 25 pieces and a piece
    keeps its colour from one solution to the next. With more labels than colours, colours must
    repeat; then they are chosen by a greedy colouring of the contact graph (`touching`: pairs of
    labels whose pieces share a face), so that pieces that touch differ: each label, in order,
    takes a colour none of its neighbours has, if it can one that no piece `near` it has either
    (pairs that meet along an edge: side by side in a picture too), then the least used (palette
    order breaks ties); when every colour is taken by a neighbour, the one fewest neighbours have.
    Copies of a coloured piece keep its hue with slightly different lightness (the puzzle's own
    colours matter more), and their outlines separate them anyway. Colours are made #rrggbb here
    as the loader makes them, for a puzzle built in code.
    """
    labels = list(labels)
    own_colors = {name: _own_color(name, c) for name, c in (colors or {}).items() if c}
    free = _free_palette(own_colors)
    plain = [label for label in labels if base_name(label) not in own_colors]
    out: dict[str, str] = {}
    if _all_distinct(labels, own_colors):
        out.update(zip(plain, free, strict=False))
    else:
        neighbours = _graph(labels, touching)
        close = _graph(labels, near)
        used = dict.fromkeys(free, 0)
        for label in plain:
            beside = [out[n] for n in neighbours[label] if n in out]
            by_edge = {out[n] for n in close[label] if n in out}
            choice = min(free, key=lambda c: (c in beside, beside.count(c), c in by_edge, used[c], free.index(c)))
            out[label] = choice
            used[choice] += 1
    copies: dict[str, int] = {}
    for label in labels:
        name = base_name(label)
        own = own_colors.get(name)
        k = copies[name] = copies.get(name, -1) + 1
        if own:
            tint = (0.0, 0.18, -0.18, 0.09, -0.09)[k % 5]
            out[label] = own if tint == 0 else mix(own, "#ffffff" if tint > 0 else "#000000", abs(tint))
    return {label: out[label] for label in labels}


def _graph(labels: Iterable[str], pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {label: set() for label in labels}
    for a, b in pairs:
        if a in out and b in out:
            out[a].add(b)
            out[b].add(a)
    return out


def _free_palette(own: Mapping[str, str]) -> list[str]:
    """The palette less the puzzle's own colours (all of it if they take every colour)."""
    taken = set(own.values())
    return [c for c in PALETTE if c not in taken] or list(PALETTE)


def _all_distinct(labels: Iterable[str], own: Mapping[str, str]) -> bool:
    """Whether the free palette has a colour for each label without a colour of its own."""
    return sum(1 for label in labels if base_name(label) not in own) <= len(_free_palette(own))


def contacts(pieces: Mapping[str, Iterable[Sequence[int]]], steps: Sequence[Cell] = FACE_STEPS[0::2]
             ) -> set[tuple[str, str]]:
    """Pairs of labels whose pieces share a face: the contact graph that colours are chosen on
    (with `steps` EDGE_STEPS, those that meet along an edge)."""
    owner: dict[Cell, str] = {}
    for label, cells in pieces.items():
        for c in cells:
            owner[(int(c[0]), int(c[1]), int(c[2]))] = label
    out: set[tuple[str, str]] = set()
    for cell, label in owner.items():
        for step in steps:  # one of each opposite pair: each pair of cells is met once
            other = owner.get(_add(cell, step))
            if other is not None and other != label:
                out.add((label, other) if label < other else (other, label))
    return out


EDGE_STEPS: tuple[Cell, ...] = ((1, 1, 0), (1, -1, 0), (1, 0, 1), (1, 0, -1), (0, 1, 1), (0, 1, -1))
"""From a cell to the cells that meet it along an edge, one of each opposite pair."""


def _colored(pieces: Mapping[str, Iterable[Sequence[int]]], colors: Mapping[str, str | None] | None
             ) -> dict[str, str]:
    """`piece_colors` on this solution's contact graph."""
    return piece_colors(pieces, colors, contacts(pieces), contacts(pieces, EDGE_STEPS))


def ordered_labels(solutions: Sequence[Mapping[str, object]], names: Sequence[str] = ()) -> list[str]:
    """Every label of several solutions, once: by piece, in the order of the puzzle's piece `names`
    when given (else as the pieces first appear), then by copy number."""
    seen = dict.fromkeys(label for s in solutions for label in s)
    rank = {n: i for i, n in enumerate(dict.fromkeys([*names, *(base_name(label) for label in seen)]))}

    def order(label: str) -> tuple[int, int, str]:
        _, _, copy = label.partition("#")
        return (rank[base_name(label)], int(copy) if copy.isdigit() else 0, label)

    return sorted(seen, key=order)


def solution_colors(
    solutions: Sequence[Mapping[str, Iterable[Sequence[int]]]],
    colors: Mapping[str, str | None] | None = None,
    names: Sequence[str] = (),
) -> list[dict[str, str]]:
    """The colour of each label in each of several solutions shown together (a sheet, a page).

    When the palette has a colour for each label of them all (`ordered_labels`), a label has the
    same colour in every solution, so that the same piece reads the same across a sheet;
    otherwise each solution is coloured on its own contact graph (`piece_colors`).
    """
    every = ordered_labels(solutions, names)
    if _all_distinct(every, {name: _own_color(name, c) for name, c in (colors or {}).items() if c}):
        shared = piece_colors(every, colors)
        return [{label: shared[label] for label in s} for s in solutions]
    return [_colored(s, colors) for s in solutions]


def _own_color(name: str, color: str) -> str:
    try:
        return css_color(color)
    except ValueError as exc:
        raise CpsolveError(str(exc), field=f"pieces.{name}.color") from None


def parts_of(
    pieces: Mapping[str, Sequence[Sequence[int]]],
    colors: Mapping[str, str | None] | None = None,
    palette: Mapping[str, str] | None = None,
    marks: Mapping[str, Mapping[Cell, tuple[str, str]]] | None = None,
) -> tuple[Part, ...]:
    """A solution `{label: cells}` (as in the solutions file) as coloured parts, in the given order.

    `palette` gives each label's colour when it was chosen already (`solution_colors`, for
    solutions shown together); else the colours come from `piece_colors` on this solution's
    contact graph, so that touching pieces differ even where colours must repeat. `marks` are the
    constraint colours on the pieces' cells (`constraint_marks`).
    """
    if palette is None:
        palette = _colored(pieces, colors)
    return tuple(
        Part(label, base_name(label), palette[label], tuple(sorted(tuple(int(v) for v in c) for c in cells)),  # type: ignore[misc]
             tuple((c, k, drawn) for c, (k, drawn) in sorted((marks or {}).get(label, {}).items())))
        for label, cells in pieces.items()
    )


def shifted(part: Part, by: Cell) -> Part:
    return Part(part.label, part.name, part.color, tuple(_add(c, by) for c in part.cells),
                tuple((_add(c, by), name, color) for c, name, color in part.marks))


MARK_PALETTE = ("#1a1a1a", "#f2f2f2", "#8c8c8c", "#d4a017", "#1f5fbf", "#b22222", "#2e8b57", "#7b3f9e")
"""Colours drawn for constraint colours whose names are no colour (BurrTools' c1, c2, ...): black
and white first, the usual pair (a checkerboard), then others far from them."""


def mark_colors(puzzle: Puzzle) -> dict[str, str]:
    """The colour drawn for each of the puzzle's constraint colours: itself where its name is a
    colour (red, #a0522d), else the next of MARK_PALETTE not taken (in the order of the names, so
    that a colour is drawn the same in every solution)."""
    names = sorted({k for _, k in puzzle.container_colors} | {k for p in puzzle.pieces for _, k in p.colors})
    out: dict[str, str] = {}
    for name in names:
        with contextlib.suppress(ValueError):
            out[name] = css_color(name)
    free = iter([c for c in MARK_PALETTE if c not in out.values()])
    for name in names:
        if name not in out:
            out[name] = next(free, MARK_PALETTE[len(out) % len(MARK_PALETTE)])
    return out


def constraint_marks(puzzle: Puzzle | None, pieces: Mapping[str, Iterable[Sequence[int]]]
                     ) -> dict[str, dict[Cell, tuple[str, str]]]:
    """Which constraint colour (name, colour drawn) sits on each cell of each placed piece that has some.

    A solution records cells, not how a piece was turned, so the turn is found again: the first
    isometry (rotations first: a class's representative may be a mirror image) that maps the
    piece onto its cells with every colour allowed where it lands. The puzzle refuses pieces
    whose symmetry would make two such colourings possible.
    """
    coloured = {p.name: p for p in puzzle.pieces if p.colors} if puzzle is not None else {}
    if not coloured:
        return {}
    assert puzzle is not None
    ground = dict(puzzle.container_colors)
    drawn = mark_colors(puzzle)
    grid = GRIDS[puzzle.grid]
    out: dict[str, dict[Cell, tuple[str, str]]] = {}
    for label, cells in pieces.items():
        piece = coloured.get(base_name(label))
        if piece is None:
            continue
        target = {(int(c[0]), int(c[1]), int(c[2])) for c in cells}
        colour_of = dict(piece.colors)
        paint = [colour_of.get(c, "") for c in piece.shape]
        for moved in _turned_on(grid, piece.shape, target):
            placed = dict(zip(moved, paint, strict=True))
            if placed.keys() == target and all(puzzle.color_allows(k, ground.get(c)) for c, k in placed.items()):
                out[label] = {c: (k, drawn[k]) for c, k in placed.items() if k}
                break
    return out


def _turned_on(grid: Grid, shape: Sequence[Cell], target: set[Cell]) -> Iterable[list[Cell]]:
    """The shape's cells (in its order) under each of the grid's maps, rotations first, then mirror images,
    moved by the legal translation that puts them where `target` is (when they are its shape)."""
    if grid.name == "cubes":  # the 48 signed permutations, and a plain shift of the least corner
        low = tuple(min(c[i] for c in target) for i in range(3))
        for t in (*ROTATIONS, *(t for t in ALL_TRANSFORMS if t.is_reflection)):
            moved = [t.apply(c) for c in shape]
            by = tuple(low[i] - min(c[i] for c in moved) for i in range(3))
            yield [_add(c, by) for c in moved]
        return
    there = grid.shift_of(sorted(target))
    for g in grid.maps:
        turned = grid.moved(g, shape)
        if turned is not None:
            here = grid.shift_of(turned)
            yield [(c[0] + here[0] - there[0], c[1] + here[1] - there[1], c[2] + here[2] - there[2]) for c in turned]


# -- faces and outlines ------------------------------------------------------------------------

def _in_plane(normal: int) -> tuple[Cell, Cell]:
    """Two unit vectors spanning a face, ordered so that its corners run counter-clockwise seen from outside."""
    step = FACE_STEPS[normal]
    axis = next(i for i in range(3) if step[i])
    u = tuple(1 if i == (axis + 1) % 3 else 0 for i in range(3))
    w = tuple(1 if i == (axis + 2) % 3 else 0 for i in range(3))
    pair = (u, w) if step[axis] > 0 else (w, u)
    return pair  # type: ignore[return-value]


_IN_PLANE: dict[int, tuple[Cell, Cell]] = {n: _in_plane(n) for n in range(6)}


def face_corners(cell: Sequence[float], normal: int) -> tuple[Vec, Vec, Vec, Vec]:
    """The four corners of a cube's face, counter-clockwise seen from outside the cube."""
    step = FACE_STEPS[normal]
    u, w = _IN_PLANE[normal]
    c = [cell[i] + 0.5 + step[i] * 0.5 for i in range(3)]
    out = []
    for a, b in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
        out.append((c[0] + a * u[0] + b * w[0], c[1] + a * u[1] + b * w[1], c[2] + a * u[2] + b * w[2]))
    return out[0], out[1], out[2], out[3]


def _edge_dirs(normal: int) -> tuple[Cell, Cell, Cell, Cell]:
    u, w = _IN_PLANE[normal]
    return ((-w[0], -w[1], -w[2]), u, w, (-u[0], -u[1], -u[2]))


EDGE_DIRS: dict[int, tuple[Cell, Cell, Cell, Cell]] = {n: _edge_dirs(n) for n in range(6)}
"""For each normal, the in-plane direction that points across edge i (corner i to corner i+1)."""


def outer_faces(cells: Iterable[Cell]) -> list[tuple[Cell, int, tuple[bool, bool, bool, bool]]]:
    """The faces of a piece that are on its surface, with which of their edges are real edges.

    An edge is a seam (not strong) when the face continues flat into the neighbouring cube of the
    same piece: that cube exists and the cell beyond both faces is empty.
    """
    own = set(cells)
    out = []
    for cell in sorted(own):
        for n, step in enumerate(FACE_STEPS):
            if _add(cell, step) in own:
                continue
            strong = []
            for d in EDGE_DIRS[n]:
                side = _add(cell, d)
                strong.append(not (side in own and _add(side, step) not in own))
            out.append((cell, n, (strong[0], strong[1], strong[2], strong[3])))
    return out


def _minus(a: Sequence[float], b: Sequence[float]) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _scaled(a: Sequence[float], k: float) -> Vec:
    return (a[0] * k, a[1] * k, a[2] * k)


def _add(a: Sequence[int], b: Sequence[int]) -> Cell:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def visible_faces(parts: Sequence[Part], view: str | Sequence[float]) -> list[Face]:
    """The faces to paint, far to near: the painter's order that makes hidden faces hidden.

    A face is skipped when it looks away from the eye or when another cube sits right against it
    (it could never be seen). Cubes are sorted by the depth of their centres, ties broken by cell
    so that the output is deterministic; on the lattice, cubes of equal depth never overlap.
    """
    toward = projection(view).toward
    occupied = {c for p in parts for c in p.cells}
    items: list[tuple[float, Cell, int, Face]] = []
    for i, part in enumerate(parts):
        for cell, n, strong in outer_faces(part.cells):
            step = FACE_STEPS[n]
            if _dot(step, toward) <= 1e-9 or _add(cell, step) in occupied:
                continue
            depth = _dot((cell[0] + 0.5, cell[1] + 0.5, cell[2] + 0.5), toward)
            items.append((depth, cell, n, Face(i, cell, n, strong)))
    items.sort(key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in items]


# -- arrangements ---------------------------------------------------------------------------


def centre(cells: Iterable[Sequence[int]]) -> Vec:
    pts = list(cells)
    n = len(pts)
    return (sum(p[0] for p in pts) / n + 0.5, sum(p[1] for p in pts) / n + 0.5, sum(p[2] for p in pts) / n + 0.5)


def explode_directions(parts: Sequence[Part]) -> list[Vec]:
    """How far from the centre of the whole each part's own centre lies (the direction it flies off)."""
    whole = centre([c for p in parts for c in p.cells])
    out = []
    for p in parts:
        c = centre(p.cells)
        out.append((c[0] - whole[0], c[1] - whole[1], c[2] - whole[2]))
    return out


def exploded(parts: Sequence[Part], view: str | Sequence[float] = DEFAULT_VIEW) -> tuple[Part, ...]:
    """The parts pulled apart for a picture seen from `view`: no two of them overlap in the picture.

    Each part moves along its own direction from the centre of the whole (`explode_directions`),
    by whole cells, just far enough that its picture keeps a gap to the parts placed before it;
    parts are placed from the centre outwards, so the inner ones stay near where they are and the
    picture stays compact (a common scale for all, as before, left wide empty spaces between the
    outer parts while two parts flying off the same way still overlapped). A part at the centre
    (no direction of its own) tries the six axes and takes the nearest free place. Whole cells
    keep the painter's order exact; the overlap test is exact too (`_Lattice`).
    """
    lattice = _Lattice(view)
    toward = projection(view).toward
    # Only the part of a direction across the line of sight shows: moving along the rest is wasted.
    directions = [_minus(d, _scaled(toward, _dot(d, toward))) for d in explode_directions(parts)]
    order = sorted(range(len(parts)), key=lambda i: (_dot(directions[i], directions[i]), i))
    size = max(bounding_size([c for p in parts for c in p.cells]))
    blocked: set[tuple[int, int]] = set()
    out: list[Part | None] = [None] * len(parts)
    axes: list[Vec] = [(float(a[0]), float(a[1]), float(a[2])) for a in DIRECTIONS]
    for i in order:
        d = directions[i]
        length = math.sqrt(_dot(d, d))
        # its own direction first, then others turned a little from it about the line of sight (a way
        # past a part in front); each costs a little more than its own, so a part keeps it when it can
        own = [(_unit(_turned(d, toward, a)), 1 + abs(a) / 2) for a in ANGLES] if length > 0.3 else []
        by = _nearest_free(parts[i].cells, own, lattice, blocked, 8 * size) if own else None
        if by is None:  # no direction of its own, or one along the line of sight: the nearest axis that works
            by = _nearest_free(parts[i].cells, [(a, 1.0) for a in axes], lattice, blocked, 8 * size) or (0, 0, 0)
        out[i] = shifted(parts[i], by)
        blocked |= lattice.cover(parts[i].cells, by, grown=True)
    return tuple(p for p in out if p is not None)


ANGLES = (0.0, 0.3, -0.3, 0.6, -0.6)
"""Turns (radians) of an exploding part's direction that `exploded` tries, its own first."""


def _turned(d: Vec, axis: Vec, angle: float) -> Vec:
    """d turned by `angle` about the unit `axis` (Rodrigues), for a d square to the axis."""
    c, s = math.cos(angle), math.sin(angle)
    k = _cross(axis, d)
    return (d[0] * c + k[0] * s, d[1] * c + k[1] * s, d[2] * c + k[2] * s)


def _nearest_free(
    cells: Sequence[Cell], ways: Sequence[tuple[Vec, float]], lattice: _Lattice, blocked: set[tuple[int, int]],
    limit: float,
) -> Cell | None:
    """The cheapest shift along one of `ways` (unit direction, cost per cell), in whole cells found
    in half-cell steps, that puts the cells' picture clear of `blocked`; None within `limit` cells
    (a way that runs along the line of sight hardly moves the picture)."""
    best: tuple[float, Cell] | None = None
    base = lattice.cover(cells)
    for way, cost in ways:
        t = 0.0
        while t <= limit and (best is None or t * cost < best[0]):
            by = (round(way[0] * t), round(way[1] * t), round(way[2] * t))
            i, j = lattice.centre(by)  # linear: the picture of the cells moved by `by` is theirs moved by this
            if not any((x + 3 * i, y + 3 * j) in blocked for x, y in base):
                best = (t * cost, by)
                break
            t += 0.5
    return None if best is None else best[1]


class _Lattice:
    """Where cubes land in an isometric picture, exactly, as triangles of the picture's lattice.

    Seen along (sx, sy, sz) (each ±1), a point p of the cube lattice projects to the lattice point
    (p0 - sx*sz*p2, p1 - sy*sz*p2) of the plane (integer coordinates: moving along the view does
    not change them). A unit cube projects to a hexagon around the image of its corner nearest the
    eye, made of six triangles of that lattice; a triangle is named by three times its centroid.
    Two sets of cubes overlap in the picture exactly when their triangle sets meet.
    """

    def __init__(self, view: str | Sequence[float]) -> None:
        v = VIEWS[view] if isinstance(view, str) else tuple(view)
        if any(abs(abs(x) - 1) > 1e-9 for x in v):
            raise ValueError(f"an exploded picture needs an isometric view (each component ±1), not {v}")
        self.s = (1 if v[0] > 0 else -1, 1 if v[1] > 0 else -1, 1 if v[2] > 0 else -1)
        a, b = self.s[0], self.s[1]
        ring = [(a, 0), (a, b), (0, b), (-a, 0), (-a, -b), (0, -b)]  # the six neighbours, in turn
        self.hexagon = [(ring[k][0] + ring[(k + 1) % 6][0], ring[k][1] + ring[(k + 1) % 6][1]) for k in range(6)]
        # a hexagon and the ring of triangles around it: cubes apart by this much leave a gap between them
        self.grown = sorted({(3 * m[0] + t[0], 3 * m[1] + t[1]) for m in [(0, 0), *ring] for t in self.hexagon})

    def centre(self, p: Sequence[int]) -> tuple[int, int]:
        """Where the lattice point p lands (linear in p)."""
        sx, sy, sz = self.s
        return (p[0] - sx * sz * p[2], p[1] - sy * sz * p[2])

    def near_corner(self, cell: Sequence[int]) -> Cell:
        """The cube's corner nearest the eye, which lands in the middle of the cube's hexagon."""
        return (cell[0] + (1 + self.s[0]) // 2, cell[1] + (1 + self.s[1]) // 2, cell[2] + (1 + self.s[2]) // 2)

    def cover(self, cells: Iterable[Sequence[int]], by: Sequence[int] = (0, 0, 0), grown: bool = False
              ) -> set[tuple[int, int]]:
        """The triangles the cubes cover in the picture (with `grown`, and a ring of triangles around them)."""
        shape = self.grown if grown else self.hexagon
        out: set[tuple[int, int]] = set()
        for c in cells:
            i, j = self.centre(self.near_corner((c[0] + by[0], c[1] + by[1], c[2] + by[2])))
            out.update((3 * i + t[0], 3 * j + t[1]) for t in shape)
        return out


def flat_orientation(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """The piece as it would lie on a table: lowest, then longest from left to right, then deepest."""
    def key(shape: tuple[Cell, ...]) -> tuple[int, int, int, tuple[Cell, ...]]:
        size = [max(c[i] for c in shape) + 1 for i in range(3)]
        bottom = sum(1 for c in shape if c[2] == 0)
        return (size[2], -size[0], -bottom, shape)

    return min(orientations(normalize(cells)), key=key)


def piece_set(pieces: Sequence[tuple[str, Sequence[Cell], str | None]], per_row: int | None = None) -> tuple[Part, ...]:
    """The puzzle before it is solved: each piece (name, cells, colour) lying flat, in rows, two cells apart.

    Rows are laid out along x and stacked along -y, so that in the default view they read left to
    right and front to back; all positions are whole cells so the picture stays exact.
    """
    colors = piece_colors([name for name, _, _ in pieces], {name: color for name, _, color in pieces})
    shapes = [flat_orientation(cells) for _, cells, _ in pieces]
    per_row = per_row or max(1, math.ceil(math.sqrt(len(pieces))))
    out: list[Part] = []
    y = 0
    for start in range(0, len(pieces), per_row):
        row = range(start, min(start + per_row, len(pieces)))
        depth = max(max(c[1] for c in shapes[i]) + 1 for i in row)
        x = 0
        for i in row:
            name = pieces[i][0]
            cells = tuple((cx + x, cy + y, cz) for cx, cy, cz in shapes[i])
            out.append(Part(name, base_name(name), colors[name], cells))
            x += max(c[0] for c in shapes[i]) + 2
        y -= depth + 1
    return tuple(out)


# -- the ways out (the assembly order that uses them: `steps.py`) ---------------------------

DIRECTIONS: tuple[Cell, ...] = ((0, 0, 1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, -1))
"""Directions in which a piece may leave (disassembly), in order of preference: lifting it out first."""
