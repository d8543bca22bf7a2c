"""Writing BurrTools puzzle files (`.xmpuzzle`, gzip-compressed XML, version 2), with solutions.

A designer can open what cpsolve solved in BurrTools (Andreas Röver's burr-tools, GPL; this writer
follows the file format's description and shares no code with it). Each piece becomes a shape in
its own tight box, the container becomes the result shape (`+` for optional cells), counts and
ranges become the problem's parts, colours become constraint colours with the allowed pairs, and
groups become group numbers, the grid its `gridType`. Solutions are written as assemblies in
BurrTools' placement convention on the puzzle's grid (`puzzle.burrtools_placements.burr_offsets`: on
cubes the shape's cell p lands at position + M·p for the transformation M numbered t; each grid numbers
its turns its own way), so BurrTools shows them; a piece copy that a solution leaves out is written as
`x`. On the sphere grid cpsolve knows the numbers of the cube's 24 turns only
(`puzzle.burrtools_placements.known_rotations`): a solution that turns a piece by one of the other 96 is
refused in one line.
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterable, Sequence

from ..errors import CpsolveError
from ..limits import check_drawing
from ..puzzle.assembly import check_solution
from ..puzzle.burrtools_placements import burr_offsets, known_rotations
from ..puzzle.geometry import Cell
from ..puzzle.grid import GRIDS, Grid
from ..puzzle.model import Puzzle
from .text import markup

_PALETTE = ((230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
            (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (170, 110, 40))
"""Display colours for the constraint colours (BurrTools stores an RGB triple per colour)."""


def color_names(puzzle: Puzzle) -> list[str]:
    """Every constraint colour the puzzle uses, in a fixed order: BurrTools numbers them 1, 2, ..."""
    names = {k for _, k in puzzle.container_colors} | {k for p in puzzle.pieces for _, k in p.colors}
    names |= {a for a, _ in puzzle.color_rules} | {b for _, b in puzzle.color_rules}
    return sorted(names)


def _voxel(cells: dict[Cell, str], size: tuple[int, int, int], name: str | None, extra: str = "") -> str:
    sx, sy, sz = size
    run = "".join(cells.get((x, y, z), "_") for z in range(sz) for y in range(sy) for x in range(sx))
    named = f' name="{markup(name)}"' if name else ""
    return f'    <voxel x="{sx}" y="{sy}" z="{sz}" type="0"{named}{extra}>{run}</voxel>'


def _box(cells: Sequence[Cell], grid: Grid) -> tuple[Cell, tuple[int, int, int]]:
    """The box BurrTools stores cells in: from the legal translation that brings them nearest the origin
    (`Grid.shift_of`: a sphere shape may start one column in) to their far corner; the corner is the
    translation's opposite, so that cell c sits at c - corner in the box."""
    dx, dy, dz = grid.shift_of(cells)
    hi = tuple(max(c[i] for c in cells) for i in range(3))
    return (-dx, -dy, -dz), (hi[0] + dx + 1, hi[1] + dy + 1, hi[2] + dz + 1)


def placement_of(shape: Sequence[Cell], cells: Sequence[Cell], grid: int = 0) -> tuple[int, int, int, int] | None:
    """BurrTools' (x, y, z, t) that puts `shape` (in its box, hotspot at the origin) on `cells`, on BurrTools'
    grid number `grid`; t a rotation (mirror images are never needed: pieces are not mirrored)."""
    return _placements(tuple(shape), grid).get(_normal(cells))


def _normal(cells: Sequence[Cell]) -> tuple[tuple[int, int, int], tuple[Cell, ...]]:
    """Cells as (their least corner, the cells moved there, sorted): equal for equal shapes at any place."""
    lo = (min(c[0] for c in cells), min(c[1] for c in cells), min(c[2] for c in cells))
    return lo, tuple(sorted((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]) for c in cells))


class _Placements:
    """Where BurrTools' rotations put one shape: the rotation (and shift) for each turned form.

    Built once per piece, so that a solution's placement is one lookup instead of 24 turns and sorts
    (exporting Bedlam's 19,186 solutions took 89 s that way)."""

    def __init__(self, shape: tuple[Cell, ...], grid: int) -> None:
        self.by_form: dict[tuple[Cell, ...], tuple[int, tuple[int, int, int]]] = {}
        ordered = sorted(shape, key=lambda c: (c[2], c[1], c[0]))  # the box's index order, x fastest
        for t in known_rotations(grid):
            offsets = burr_offsets(grid, t, ordered)
            if offsets is not None:
                lo, form = _normal(offsets)
                self.by_form.setdefault(form, (t, lo))

    def get(self, target: tuple[tuple[int, int, int], tuple[Cell, ...]]) -> tuple[int, int, int, int] | None:
        lo_t, form = target
        found = self.by_form.get(form)
        if found is None:
            return None
        t, lo = found
        return lo_t[0] - lo[0], lo_t[1] - lo[1], lo_t[2] - lo[2], t


@functools.lru_cache(maxsize=256)
def _placements(shape: tuple[Cell, ...], grid: int = 0) -> _Placements:
    return _Placements(shape, grid)


def write_xmpuzzle(puzzle: Puzzle, solutions: Iterable[dict[str, list[Cell]]] = ()) -> bytes:
    """The puzzle (and optionally solutions, as `{label: cells}` with copies `NAME#k`) as a gzip file.
    `solutions` is read once, each checked and turned into its line as it comes: an iterator over a long
    solutions file is written in the memory of its lines, not of its solutions (55,575 of them: 2.1 GB)."""
    if puzzle.kind != "pieces":
        raise CpsolveError("a chain puzzle cannot be written as a BurrTools file (BurrTools has no chains)",
                           field="format")
    try:  # the result shape is written a character per cell of its bounding box
        check_drawing(puzzle.container)
    except CpsolveError as exc:
        raise exc.located(puzzle.origin or puzzle.name) from None
    colours = color_names(puzzle)
    number = {name: i + 1 for i, name in enumerate(colours)}
    grid = GRIDS[puzzle.grid]
    shapes = []
    for piece in puzzle.pieces:
        paint = dict(piece.colors)
        cells = {c: "#" + (str(number[paint[c]]) if c in paint else "") for c in piece.shape}
        shapes.append(_voxel(cells, _box(piece.shape, grid)[1], piece.name))
    origin, size = _box(puzzle.container, grid)
    optional = set(puzzle.optional)
    paint = dict(puzzle.container_colors)

    def moved(c: Cell) -> Cell:
        return (c[0] - origin[0], c[1] - origin[1], c[2] - origin[2])

    result = {moved(c): ("+" if c in optional else "#") + (str(number[paint[c]]) if c in paint else "")
              for c in puzzle.container}
    shapes.append(_voxel(result, size, "container"))
    group_of: dict[str, list[int]] = {}
    for g, members in enumerate(puzzle.groups, start=1):
        for name in sorted(members):
            group_of.setdefault(name, []).append(g)
    parts = []
    for i, piece in enumerate(puzzle.pieces):
        count = f'count="{piece.count}"' if not piece.has_range else f'min="{piece.low}" max="{piece.count}"'
        groups = group_of.get(piece.name, [])
        if len(groups) == 1:
            parts.append(f'        <shape id="{i}" {count} group="{groups[0]}"/>')
        elif groups:
            nested = "".join(f'<group group="{g}" count="{piece.count}"/>' for g in groups)
            parts.append(f'        <shape id="{i}" {count}>{nested}</shape>')
        else:
            parts.append(f'        <shape id="{i}" {count}/>')
    pairs = [f'<pair piece="{number[a] - 1}" result="{number[b] - 1}"/>' for a, b in sorted(puzzle.color_rules)]
    bitmap = f"      <bitmap>{''.join(pairs)}</bitmap>" if pairs else "      <bitmap/>"
    placers = {piece.name: _placements(grid.normalize(piece.shape), grid.burr_type) for piece in puzzle.pieces}
    stored = []
    for k, sol in enumerate(solutions):
        if (why := check_solution(puzzle, sol)) is not None:
            raise CpsolveError(f"solution {k} is not a solution of {puzzle.name}: {why}", field="solutions")
        stored.append(_assembly(puzzle, placers, sol, origin, k))
    state = f' state="2" assemblies="{len(stored)}"' if stored else ' state="0"'
    lines = [
        '<?xml version="1.0"?>',
        '<puzzle version="2">',
        f'  <gridType type="{grid.burr_type}"/>',
        "  <colors>" + "".join('<color red="{}" green="{}" blue="{}"/>'.format(*_PALETTE[i % len(_PALETTE)])
                               for i in range(len(colours))) + "</colors>" if colours else "  <colors/>",
        "  <shapes>", *shapes, "  </shapes>",
        "  <problems>",
        f'    <problem name="{markup(puzzle.name)}"{state}>',
        "      <shapes>", *parts, "      </shapes>",
        f'      <result id="{len(puzzle.pieces)}"/>',
        bitmap,
    ]
    if stored:
        lines += ["      <solutions>",
                  *(f"        <solution><assembly>{a}</assembly></solution>" for a in stored),
                  "      </solutions>"]
    lines += ["    </problem>", "  </problems>",
              f"  <comment>{markup(puzzle.description or puzzle.name)}</comment>", "</puzzle>", ""]
    return gzip.compress("\n".join(lines).encode("utf-8"), mtime=0)


def _assembly(puzzle: Puzzle, placers: dict[str, _Placements], solution: dict[str, list[Cell]], origin: Cell,
              number: int) -> str:
    """Stored assembly `number` (a solution `check_solution` passed): for every piece, `count` entries in
    cell order, `x y z t` or `x`."""
    by_piece: dict[str, list[list[Cell]]] = {}
    names = {p.name for p in puzzle.pieces}
    for label, cells in solution.items():
        name = label if label in names else label.rsplit("#", 1)[0]
        by_piece.setdefault(name, []).append(sorted(cells))
    out = []
    for piece in puzzle.pieces:
        placed = sorted(by_piece.get(piece.name, []))
        for cells in placed:
            local = [(c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]) for c in cells]
            spot = placers[piece.name].get(_normal(local))
            if spot is None:  # check_solution found the piece's shape turned: by a turn with no known number
                assert puzzle.grid == "spheres", "every turn of the other grids has its BurrTools number"
                raise CpsolveError(
                    f"solution {number} turns piece {piece.name} by a turn of a triangular layer of balls, "
                    "whose number in BurrTools' own list cpsolve does not copy (BurrTools is GPL): only sphere "
                    "solutions whose pieces take the cube's 24 turns can be stored (export without the solutions)",
                    field="solutions")
            out.append(" ".join(map(str, spot)))
        out += ["x"] * (piece.count - len(placed))
    return " ".join(out)
