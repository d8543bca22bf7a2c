"""The geometry every picture of a puzzle shares: coloured unit cubes, their visible faces, views.

The PNG/SVG pictures (`pictures.py`) and the 3-D page (`page.py`) both start here, so a piece looks
the same everywhere: same colour, same outline, same exploded position, same assembly order.

Hidden faces are handled by the painter's algorithm over unit cubes: in an orthographic view along
v, two translates of the unit cube whose pictures overlap are ordered by the depth of their
centres (`c . v`), so drawing cubes far to near (and only each cube's faces that look towards the
viewer) is exact for cells of the integer lattice. That is why every arrangement drawn from Python
keeps cells on the lattice: exploded views and piece sets are shifted by whole cells.

Everything here is pure: plain tuples and frozen dataclasses in, the same out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..errors import CpsolveError
from ..puzzle.colors import css_color
from ..puzzle.geometry import FACE_STEPS, Cell, normalize, orientations

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
    """One placed piece: what the legend calls it, its colour and its cells (already shifted)."""

    label: str
    name: str
    color: str
    cells: tuple[Cell, ...]


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


def piece_colors(labels: Iterable[str], colors: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """A colour per label: the piece's own `color:`, else the next palette colour unused by others.

    Copies of a piece without a colour each take the next palette colour, so that 25 identical
    pieces read as 25 pieces; copies of a coloured piece keep its hue with slightly different
    lightness (the puzzle's own colours matter more), and their outlines separate them anyway.
    Colours are made #rrggbb here as the loader makes them, for a puzzle built in code.
    """
    colors = {name: _own_color(name, c) for name, c in (colors or {}).items() if c}
    taken = {c.lower() for c in colors.values() if c}
    free = [c for c in PALETTE if c not in taken] or list(PALETTE)
    copies: dict[str, int] = {}
    out: dict[str, str] = {}
    next_free = 0
    for label in labels:
        name = base_name(label)
        own = colors.get(name)
        k = copies[name] = copies.get(name, -1) + 1
        if not own:
            out[label] = free[next_free % len(free)]
            next_free += 1
            continue
        tint = (0.0, 0.18, -0.18, 0.09, -0.09)[k % 5]
        out[label] = own if tint == 0 else mix(own, "#ffffff" if tint > 0 else "#000000", abs(tint))
    return out


def _own_color(name: str, color: str) -> str:
    try:
        return css_color(color)
    except ValueError as exc:
        raise CpsolveError(str(exc), field=f"pieces.{name}.color") from None


def parts_of(
    pieces: Mapping[str, Sequence[Sequence[int]]], colors: Mapping[str, str | None] | None = None
) -> tuple[Part, ...]:
    """A solution `{label: cells}` (as in the solutions file) as coloured parts, in the given order."""
    palette = piece_colors(pieces, colors)
    return tuple(
        Part(label, base_name(label), palette[label], tuple(sorted(tuple(int(v) for v in c) for c in cells)))  # type: ignore[misc]
        for label, cells in pieces.items()
    )


def shifted(part: Part, by: Cell) -> Part:
    return Part(part.label, part.name, part.color, tuple((x + by[0], y + by[1], z + by[2]) for x, y, z in part.cells))


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


def exploded(parts: Sequence[Part], spread: float = 1.0) -> tuple[Part, ...]:
    """The parts pulled apart from the centre by whole cells, until no two of them touch.

    The scale grows from `spread` until every pair of parts has at least one empty cell between
    them, so each part shows all its sides; a part at the very centre stays put and is seen through
    the gaps.
    """
    directions = explode_directions(parts)
    scale = spread
    for _ in range(40):
        moved = tuple(
            shifted(p, (round(d[0] * scale), round(d[1] * scale), round(d[2] * scale)))
            for p, d in zip(parts, directions, strict=True)
        )
        if _apart(moved):
            return moved
        scale += 0.5
    return tuple(parts)


def _apart(parts: Sequence[Part]) -> bool:
    owner: dict[Cell, int] = {}
    for i, p in enumerate(parts):
        for c in p.cells:
            owner[c] = i
    for i, p in enumerate(parts):
        for c in p.cells:
            for step in FACE_STEPS:
                j = owner.get(_add(c, step))
                if j is not None and j != i:
                    return False
    return True


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


# -- assembly -------------------------------------------------------------------------------

DIRECTIONS: tuple[Cell, ...] = ((0, 0, 1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, -1))
"""Directions in which a piece may leave (disassembly), in order of preference: lifting it out first."""


@dataclass(frozen=True)
class Step:
    """One move of a disassembly: these pieces together move by `move` (whole cells).

    `part` names the pieces of the (sub-)assembly the move happens in, when that is more than
    the pieces still in place: played backwards, those pieces are on show while the move is made.
    """

    pieces: tuple[str, ...]
    move: Cell
    part: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"pieces": list(self.pieces), "move": list(self.move)}
        if self.part:
            out["part"] = list(self.part)
        return out


def removal_order(pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[tuple[str, Cell]] | None:
    """A disassembly one piece at a time, each sliding out along an axis without hitting the others.

    Greedy is complete here: taking a piece out never blocks another, so if any such order exists,
    removing whichever piece can go first never leads to a dead end. Among the pieces that can go,
    the highest one lifted straight up is preferred, so that the assembly (this order reversed) is
    built from the bottom up by dropping pieces in where it can. None when the pieces interlock
    (a burr needs moves of several pieces at once).
    """
    labels = list(pieces)
    cells = {k: [tuple(int(v) for v in c) for c in pieces[k]] for k in labels}
    allc = [c for cs in cells.values() for c in cs]
    lo = [min(c[i] for c in allc) for i in range(3)]
    size = [max(c[i] for c in allc) - lo[i] + 1 for i in range(3)]
    # Bits: x + X*(y + Y*z) with room on x and y, so that shifting by up to a whole side never wraps.
    big_x, big_y = 2 * size[0] + 1, 2 * size[1] + 1
    stride = (1, big_x, big_x * big_y)
    mask = {}
    for k in labels:
        m = 0
        for c in cells[k]:
            m |= 1 << ((c[0] - lo[0]) + big_x * ((c[1] - lo[1]) + big_y * (c[2] - lo[2])))
        mask[k] = m
    offset = big_x * big_y * (size[2] + 1)  # room below z = 0, so that moving down is a left shift too

    def sweep(k: str, d: Cell) -> int:
        axis = next(i for i in range(3) if d[i])
        s = stride[axis] * d[axis]
        base = mask[k] << offset
        out = 0
        for t in range(1, size[axis] + 1):
            out |= (base << (s * t)) if s > 0 else (base >> (-s * t))
        return out >> offset

    sweeps: dict[tuple[str, Cell], int] = {}  # filled on demand: most pieces leave upwards, the first tried
    top = {k: (max(c[2] for c in cells[k]), i) for i, k in enumerate(labels)}
    remaining = set(labels)
    everything = 0
    for k in labels:
        everything |= mask[k]
    order: list[tuple[str, Cell]] = []
    while remaining:
        best: tuple[tuple[int, int, int], str, Cell] | None = None
        for k in remaining:
            others = everything & ~mask[k]
            for rank, d in enumerate(DIRECTIONS):
                path = sweeps.get((k, d))
                if path is None:
                    path = sweeps[(k, d)] = sweep(k, d)
                if path & others == 0:
                    key = (rank, -top[k][0], top[k][1])
                    if best is None or key < best[0]:
                        best = (key, k, d)
                    break
        if best is None:
            return None
        _, k, d = best
        order.append((k, d))
        remaining.discard(k)
        everything &= ~mask[k]
    return order


def assembly_steps(pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[Step] | None:
    """The removal order as disassembly steps: each piece slides out far enough to be clear of the rest.

    Steps use the same form as a disassembly found elsewhere (`pieces`, `move`), so the page plays
    both the same way: backwards, as an assembly.
    """
    order = removal_order(pieces)
    if order is None:
        return None
    allc = [c for cs in pieces.values() for c in cs]
    reach = max(max(c[i] for c in allc) - min(c[i] for c in allc) + 1 for i in range(3)) + 1
    return [Step((k,), (d[0] * reach, d[1] * reach, d[2] * reach)) for k, d in order]


def touching_pairs(parts: Sequence[Part]) -> set[tuple[int, int]]:
    """Pairs of parts that share a face (used by tests and by the exploded layout's checks)."""
    owner = {c: i for i, p in enumerate(parts) for c in p.cells}
    out = set()
    for i, j in combinations(range(len(parts)), 2):
        if any(owner.get(_add(c, s)) == j for c in parts[i].cells for s in FACE_STEPS):
            out.add((i, j))
    return out
