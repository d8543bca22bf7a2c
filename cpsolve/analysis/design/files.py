"""A packing puzzle written back as a cpsolve puzzle file, every feature kept, and the file proved.

`design unique` changes a puzzle (a piece fixed, cells marked with colours, a hole) and must hand
the designer a file that says exactly that puzzle: optional cells, ranges of copies, constraint
colours and their rules, groups and the key piece all survive the round trip, so that enumerating
the file is an independent proof of the change (`total_of_text` reads it back through the loader,
as `cpsolve enumerate` would, rather than trusting the in-memory puzzle it came from).

Coordinates: the container is drawn over the bounding box of `frame` (the original puzzle's
container), shifted so that its lowest corner is (0, 0, 0) (on the other grids, by the legal
translation nearest that: `origin_of`); colours and optional cells are shifted alike, so a cell of
the file is the original's cell minus that corner (the same cell whenever the original starts at
the origin, as boxes do).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...puzzle.geometry import Cell
from ...puzzle.grid import GRIDS
from ...puzzle.model import Puzzle
from ...puzzle.writer import Line, LineMap, drawing, puzzle_text


def origin_of(frame: Sequence[Cell], grid: str = "cubes") -> Cell:
    """What every file coordinate is measured from: the lowest corner of the frame's bounding box, or on a
    grid whose translations are not all legal (prisms, spheres, rhombic, tetra-octa) the corner that the
    grid's normal form moves to the origin (`Grid.shift_of`), so that a cell keeps its kind in the file."""
    dx, dy, dz = GRIDS[grid].shift_of(frame)
    return (-dx, -dy, -dz)


def shifted(cell: Cell, origin: Cell) -> list[int]:
    """A container cell in the file's coordinates."""
    return [cell[0] - origin[0], cell[1] - origin[1], cell[2] - origin[2]]


def puzzle_yaml(puzzle: Puzzle, frame: Sequence[Cell], source: str, total: int | None = None) -> str:
    """The puzzle as a file: container drawn (`#` required, `+` optional), pieces as cell lists.

    `total` (when known, > 0) is written as the reference, so `cpsolve report`-style checks and a
    reader see what enumeration proved.
    """
    lo = origin_of(frame, puzzle.grid)
    hi = tuple(max(c[i] for c in frame) for i in range(3))
    cells = set(puzzle.container)
    maybe = set(puzzle.optional)

    def mark(c: Cell) -> str:
        return "+" if c in maybe else "#" if c in cells else "."

    layers = [["".join(mark((x, y, z)) for x in range(lo[0], hi[0] + 1)) for y in range(lo[1], hi[1] + 1)]
              for z in range(lo[2], hi[2] + 1)]
    data: dict[str, object] = {"name": puzzle.name}
    if puzzle.description:
        data["description"] = puzzle.description
    data["source"] = source
    if puzzle.grid != "cubes":
        data["grid"] = puzzle.grid
    container: dict[str, object] = {"layers": drawing(layers)}
    if puzzle.container_colors:
        by_colour: dict[str, list[list[int]]] = {}
        for c, k in puzzle.container_colors:
            by_colour.setdefault(k, []).append(shifted(c, lo))
        container["cell_colors"] = LineMap(by_colour)
    data["container"] = container
    pieces: dict[str, LineMap] = {}
    for p in puzzle.pieces:
        spec = LineMap(cells=[list(c) for c in p.shape])
        if p.has_range:
            spec["count"] = {"min": p.low, "max": p.count}
        elif p.count != 1:
            spec["count"] = p.count
        if p.color:
            spec["color"] = p.color
        if p.colors:
            paint: dict[str, list[list[int]]] = {}
            for c, k in p.colors:
                paint.setdefault(k, []).append(list(c))
            spec["cell_colors"] = paint
        pieces[p.name] = spec
    data["pieces"] = pieces
    if puzzle.color_rules:
        rules: dict[str, list[str]] = {}
        for a, b in sorted(puzzle.color_rules):
            rules.setdefault(a, []).append(b)
        data["color_rules"] = LineMap(rules)
    if puzzle.groups:
        data["groups"] = Line(sorted(g) for g in puzzle.groups)
    if puzzle.key_piece is not None:
        data["key_piece"] = puzzle.key_piece
    if total:
        data["reference"] = {"total": total, "source": source}
    return puzzle_text(data)


def total_of_text(text: str, where: str, backend: str = "auto") -> int:
    """Assemblies of the puzzle a file describes, by the normal path: loader, `prepare`, `enumerate_classes`."""
    from ...puzzle.loader import parse_puzzle_text
    from ...puzzle.model import to_puzzle
    from ...search.backends import for_problem
    from ...search.enumeration import enumerate_classes, prepare
    from ...search.settings import RunSettings

    puzzle = to_puzzle(parse_puzzle_text(text, where), origin=where)
    prepared = prepare(puzzle)
    result = enumerate_classes(prepared, RunSettings(for_problem(backend, prepared.problem)))
    return int(result.tally.total)
