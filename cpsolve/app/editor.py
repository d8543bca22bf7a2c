"""The editor's model of a puzzle, both ways: a loaded puzzle as the lists the page draws, and back to a file.

The workbench's page edits a puzzle as plain lists (its grid, the container's cells, optional cells and
colours, each piece's cells, count and colours; `editor_model`); `file_data` turns them back into the
data of a puzzle file drawn as a person reads it (z-layers of rows, or on the sphere grid a pyramid,
a tetrahedron or a flat drawing of balls), which `cpsolve.puzzle_yaml` writes. `whole_number` and
`cell_list` check what the page sends, for these and for the routes.

Why apart from `server.py`: this is pure conversion on the public API, with no web framework in it
(the server's routes only call it in a thread), so it can be read, and tested, on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cpsolve
from cpsolve import limits

from ..errors import CpsolveError

GRIDS = ("cubes", "prisms", "spheres", "rhombic", "tetra-octa")
"""The grids the editor draws: every grid cpsolve solves (BurrTools' five). What the page needs to draw a
grid's cells comes from `cpsolve.grid_solids` (/api/grid)."""


def editor_model(puzzle: cpsolve.Puzzle, data: Mapping[str, Any]) -> dict[str, Any]:
    """The editor's model of a puzzle: its grid, the container's cells (optional ones, colours) and each
    piece's cells (count or range, colour, cell colours) as lists, and what the editor does not draw
    (`keep`: description, source, reference, rules, groups...) to be written back as it was."""
    if puzzle.kind == "chain":  # not drawn: its file is kept whole (edited in the YAML pane)
        whole = {k: v for k, v in data.items() if k not in ("name", "grid")}
        return {"grid": puzzle.grid, "name": puzzle.name, "kind": "chain", "container": None, "pieces": [],
                "keep": whole}
    keep = {k: v for k, v in data.items() if k not in ("name", "container", "pieces", "grid")}
    return {
        "grid": puzzle.grid,
        "name": puzzle.name,
        "kind": "pieces",
        "container": {"cells": [list(c) for c in puzzle.container], "optional": [list(c) for c in puzzle.optional],
                      "colors": [[list(c), name] for c, name in puzzle.container_colors]},
        "pieces": [{"name": p.name, "cells": [list(c) for c in p.shape], "count": p.count, "min": p.min_count,
                    "color": p.color, "colors": [[list(c), name] for c, name in p.colors]} for p in puzzle.pieces],
        "keep": keep,
    }


def file_data(model: Mapping[str, Any]) -> dict[str, Any]:
    """The editor's model as a puzzle file's data, drawn as a person reads it on its grid: z-layers of
    rows (`#`, `+` optional, `.`); on the sphere grid a square pyramid or a tetrahedron of balls by its
    size, and a flat piece as the `square:` or `triangular:` drawing of its layer."""
    grid = str(model.get("grid") or "cubes")
    if grid not in GRIDS:
        raise CpsolveError(f"unknown grid {grid[:40]!r} (known: {', '.join(GRIDS)})", field="grid")
    lattice = cpsolve.lattice(grid)
    keep = dict(model.get("keep") or {})
    data: dict[str, Any] = {"name": str(model.get("name") or "untitled")}
    for k in ("description", "source", "kind"):
        if k in keep:
            data[k] = keep.pop(k)
    if grid != "cubes":
        data["grid"] = grid
    if model.get("kind") == "chain":
        return {**data, **keep}
    container = model.get("container") or {}
    cells = cell_list(container.get("cells"), "container")
    optional = set(cell_list(container.get("optional"), "container.optional")) & set(cells)
    colours = _colour_lists(container.get("colors"), "container.colors")
    spec: dict[str, Any] = {}
    if grid == "spheres" and not optional and not colours:
        spec = _ball_pyramid(cells)
    if not spec:
        low = [min((c[a] for c in cells), default=0) for a in range(3)]
        dx, dy, dz = lattice.shift_for((min(low[0], 0), min(low[1], 0), min(low[2], 0))) if min(low) < 0 else (0, 0, 0)
        drawn = {(c[0] + dx, c[1] + dy, c[2] + dz): "+" if c in optional else "#" for c in cells}
        spec = {"layers": _drawing(drawn)}
        if colours:
            spec["cell_colors"] = {k: [[c[0] + dx, c[1] + dy, c[2] + dz] for c in cs] for k, cs in colours.items()}
    data["container"] = spec
    pieces: dict[str, Any] = {}
    for i, piece in enumerate(model.get("pieces") or []):
        name = str(piece.get("name") or f"P{i + 1}")
        if name in pieces:
            raise CpsolveError(f"two pieces are named {name!r}", field="pieces")
        shape = cell_list(piece.get("cells"), f"pieces.{name}")
        dx, dy, dz = lattice.shift_of(shape) if shape else (0, 0, 0)  # a translation that keeps the grid
        moved = sorted((c[0] + dx, c[1] + dy, c[2] + dz) for c in shape)
        marks = {name_: [[c[0] + dx, c[1] + dy, c[2] + dz] for c in cs]
                 for name_, cs in _colour_lists(piece.get("colors"), f"pieces.{name}.colors").items()}
        entry: dict[str, Any] = (_flat_balls(moved) if grid == "spheres" and not marks else {}) or \
            {"layers": _drawing(dict.fromkeys(moved, "#"))}
        low, high = piece.get("min"), whole_number(piece.get("count") or 1, f"pieces.{name}.count")
        if low is not None and whole_number(low, f"pieces.{name}.min") != high:
            entry["count"] = {"min": int(low), "max": high}
        elif high != 1:
            entry["count"] = high
        if piece.get("color"):
            entry["color"] = str(piece["color"])
        if marks:
            entry["cell_colors"] = marks
        pieces[name] = entry
    data["pieces"] = pieces
    return {**data, **keep}


def _ball_pyramid(cells: list[tuple[int, int, int]]) -> dict[str, Any]:
    """`pyramid: n` or `tetrahedron: n` when the balls are exactly those the loader builds for it (where it
    builds them: a container keeps its place), else nothing."""
    count = len(cells)
    for form in ("pyramid", "tetrahedron"):
        n = next((k for k in range(1, 40) if _balls_in(form, k) >= count), 0)
        if n and _balls_in(form, n) == count:
            built = cpsolve.puzzle_from_dict({"name": "probe", "grid": "spheres", "container": {form: n},
                                              "pieces": {"A": {"cells": [[0, 0, 0]], "count": count}}})
            if set(built.container) == set(cells):
                return {form: n}
    return {}


def _balls_in(form: str, n: int) -> int:
    """The balls of a square pyramid n x n at the base, or of a tetrahedron n on each edge."""
    return n * (n + 1) * (2 * n + 1) // 6 if form == "pyramid" else n * (n + 1) * (n + 2) // 6


def _flat_balls(cells: list[tuple[int, int, int]]) -> dict[str, Any]:
    """A sphere-grid piece lying in one square layer (z constant) as its `square:` drawing, or in the
    triangular layer x - y - z = constant as its `triangular:` one (the loader's own reading of them:
    column c of row r is the ball (c + r, c - r, 0), resp. (a + r, a, r) for column t = 2a + r); else
    nothing (the piece is drawn in layers). The translations used keep the grid (even sums)."""
    if not cells:
        return {}
    if len({c[2] for c in cells}) == 1:
        spots = {((c[0] + c[1]) // 2, (c[0] - c[1]) // 2) for c in cells}  # (column, row); x + y is even here
    elif len({c[0] - c[1] - c[2] for c in cells}) == 1:
        spots = {(2 * c[1] + c[2], c[2]) for c in cells}  # (column t, row r)
        low_r = min(r for _, r in spots)
        low_t = min(t - low_r for t, r in spots)
        low_t -= low_t % 2  # whole steps of (1, 1, 0): columns move by 2
        spots = {(t - low_t - low_r, r - low_r) for t, r in spots}
        return {"triangular": _ball_rows(spots, " ")}
    else:
        return {}
    low_c, low_r = min(c for c, _ in spots), min(r for _, r in spots)
    return {"square": _ball_rows({(c - low_c, r - low_r) for c, r in spots}, ".")}


def _ball_rows(spots: set[tuple[int, int]], blank: str) -> list[str]:
    width, height = max(c for c, _ in spots) + 1, max(r for _, r in spots) + 1
    return ["".join("#" if (c, r) in spots else blank for c in range(width)).rstrip() or blank
            for r in range(height)]


def whole_number(value: object, where: str) -> int:
    """A whole number the page sent (an int, or a string of one), else a one-line error naming `where`."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise CpsolveError(f"not a whole number: {str(value)[:40]!r}", field=where)
    try:
        return int(value)
    except ValueError:
        raise CpsolveError(f"not a whole number: {str(value)[:40]!r}", field=where) from None


def cell_list(value: object, where: str) -> list[tuple[int, int, int]]:
    """Cells the page sent ([x, y, z] lists of whole numbers; None: none), held to --max-drawing."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise CpsolveError("not a list of cells", field=where)
    out = []
    for c in value:
        if not isinstance(c, list) or len(c) != 3 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in c):
            raise CpsolveError(f"not a cell [x, y, z]: {str(c)[:40]}", field=where)
        out.append((c[0], c[1], c[2]))
    limits.check_drawing(out)  # the drawing's box, as any file's (--max-drawing)
    return out


def _colour_lists(value: object, where: str) -> dict[str, list[list[int]]]:
    out: dict[str, list[list[int]]] = {}
    for item in value or []:  # type: ignore[attr-defined]
        if not isinstance(item, list) or len(item) != 2:
            raise CpsolveError("not a [cell, colour] pair", field=where)
        cell = cell_list([item[0]], where)[0]
        out.setdefault(str(item[1]), []).append(list(cell))
    return out


def _drawing(cells: Mapping[tuple[int, int, int], str]) -> list[list[str]]:
    """z-layers of rows of x (`#`, `+`, `.`) from (0, 0, 0): the cells are where the drawing puts them (on
    the other grids, a drawing that started at the cells' lowest corner would move them by a translation
    that need not keep the grid: an up triangle made a down one)."""
    if not cells:
        return [["."]]
    hi = [max(c[a] for c in cells) for a in range(3)]
    return [["".join(cells.get((x, y, z), ".") for x in range(hi[0] + 1)) for y in range(hi[1] + 1)]
            for z in range(hi[2] + 1)]
