"""The 3-D page: one HTML file with its own renderer and the solutions as compact JSON inside it.

Nothing is loaded from elsewhere: the page's script and style (`output/page/`, written for it) are
inlined, so the file opens from disk with no network. The data is built here from the scene
(`scene.py`), like the PNG/SVG pictures: piece labels and colours, the cells once, then each
solution as one character per cell (which piece fills it, a space for an empty optional cell),
and its assembly order as triples of characters (piece, direction index into `scene.DIRECTIONS`,
how far it slides). That keeps all 19,186 Bedlam solutions in about 2 MB.

Solutions need not share their pieces or cells (piece ranges, optional cells): the page lists
every label and cell that any of them uses, and each solution names only its own. Past
len(ALPHABET) labels, a piece takes two characters (`width`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any

from ..analysis.disassembly import TAKEN_APART
from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from . import solids
from .pictures import CHAIN_COLORS, STRING, is_chain
from .scene import DIRECTIONS, constraint_marks, mark_colors, ordered_labels, solution_colors
from .steps import PRISM_LEAVE, PRISM_WAYS, Step, assembly_steps, played_disassembly, prism_assembly_steps
from .text import markup

ALPHABET = "".join(chr(c) for c in range(33, 127) if chr(c) not in "\"\\<>&'")
"""One character per piece in a solution string: printable ASCII that needs no escaping in HTML or JSON."""
EMPTY = " "
"""A cell no piece fills in this solution (an optional cell left empty, or a cell of another solution)."""


def page_data(
    records: Sequence[Mapping[str, Any]],
    puzzle: Puzzle | None = None,
    title: str = "",
    steps: Mapping[int, Sequence[Step | Mapping[str, Any]]] | None = None,
    recolor: Mapping[str, str] | None = None,
    rotations: bool = False,
    rotation_clearance: float | str = 0,
) -> dict[str, Any]:
    """What the page shows, as JSON-ready data.

    `steps` maps a solution's index to a disassembly (moves of groups of pieces, first move first),
    for example one found by the disassembly analysis; the page plays it backwards. Solutions
    without one get the assembly order of `steps.removal_order` (a chain: cube by cube, along its
    string), or for the first INTERLOCKED that have none, the disassembly analysis's moves. `recolor`
    (label -> colour) overrides the pieces' colours: `cpsolve explain` marks a stuck assembly's
    blockers that way. `rotations` lets that analysis turn pieces too (`interlocked_steps`).
    """
    solved = [{str(k): [(int(c[0]), int(c[1]), int(c[2])) for c in v] for k, v in r["pieces"].items()}
              for r in records]
    if not solved:
        raise CpsolveError("no solutions to show", where=title or None)
    chain = puzzle.kind == "chain" if puzzle is not None else all(is_chain(p) for p in solved)
    chain = chain and (puzzle is None or puzzle.grid == "cubes")
    names = [p.name for p in puzzle.pieces] if puzzle is not None else []
    labels = sorted({k for p in solved for k in p}, key=int) if chain else ordered_labels(solved, names)
    width = 1 if len(labels) <= len(ALPHABET) else 2
    if len(labels) > len(ALPHABET) ** 2:
        raise CpsolveError(f"{len(labels)} pieces: the page holds at most {len(ALPHABET) ** 2}", where=title or None)
    symbol = {k: _symbol(i, width) for i, k in enumerate(labels)}
    cells = sorted({c for p in solved for cs in p.values() for c in cs})
    where = {c: i for i, c in enumerate(cells)}
    data: dict[str, Any] = {"title": title, "chain": chain, "alphabet": ALPHABET, "width": width, "string": STRING}
    if chain:
        data["pieces"] = [{"label": k, "color": CHAIN_COLORS[int(k) % 2]} for k in labels]
    else:
        colors = {p.name: p.color for p in puzzle.pieces} if puzzle is not None else {}
        palettes = [{k: (recolor or {}).get(k, c) for k, c in palette.items()}
                    for palette in solution_colors(solved, colors, names)]
        data.update(_colors(labels, palettes))
    lattice = puzzle.grid if puzzle is not None else "cubes"
    solutions, assembly = [], []
    found: dict[int, Sequence[Step | Mapping[str, Any]]] = dict(steps or {})
    interlocked = 0
    directions = PRISM_LEAVE if lattice == "prisms" else DIRECTIONS
    for n, pieces_n in enumerate(solved):
        grid = [EMPTY * width] * len(cells)
        for label, cs in pieces_n.items():
            for c in cs:
                grid[where[c]] = symbol[label]
        solutions.append("".join(grid))
        if lattice not in TAKEN_APART:  # no disassembler: the page lets the pieces drop in from above
            assembly.append("")
            continue
        if lattice == "prisms":
            moves = prism_assembly_steps(pieces_n)
        else:
            order = [(k, DIRECTIONS[0]) for k in sorted(pieces_n, key=int, reverse=True)] if chain else None
            moves = assembly_steps(pieces_n, order)
        assembly.append("".join(_step_code(s, symbol, directions) for s in moves) if moves else "")
        if moves is None and interlocked < INTERLOCKED and n not in found:
            interlocked += 1
            taken_apart = interlocked_steps(pieces_n, lattice, rotations=rotations,
                                           rotation_clearance=rotation_clearance)
            if taken_apart:
                found[n] = taken_apart
    data["cells"] = [list(c) for c in cells]
    if lattice != "cubes":
        data.update(_solids(lattice, cells, where))
    if lattice == "prisms":  # the page's moves in space, and their words
        data["dirs"] = [{"v": _in_space(lattice, d), "side": side, "way": way, "unit": unit}
                        for d, (side, way, unit) in zip(PRISM_LEAVE, PRISM_WAYS, strict=True)]
    data["solutions"] = solutions
    data["assembly"] = assembly
    if puzzle is not None and not chain and (puzzle.container_colors or any(p.colors for p in puzzle.pieces)):
        data["marks"] = _marks(puzzle, solved, where)
    if found:
        data["steps"] = {str(i): [_step_json(s, lattice) for s in seq] for i, seq in found.items()}
    return data


def _in_space(grid: str, move: Sequence[int]) -> list[float]:
    """A move of cells (a legal translation of the grid) as a vector in the page's space (`solids.to_space`):
    on the prism grid (dx, dy, dz) is dx / 2 edges along x, dy rows of triangles, dz layers."""
    if grid != "prisms":
        return [float(v) for v in move]
    return [round(move[0] / 2, 4), round(move[1] * solids.HEIGHT, 4), float(move[2])]


def _step_json(step: Step | Mapping[str, Any], grid: str) -> dict[str, Any]:
    """A disassembly step as the page reads it: its move in space (given steps as they are)."""
    if not isinstance(step, Step):
        return dict(step)
    out = step.as_json()
    if grid == "prisms":
        out["move"] = _in_space(grid, step.move)
    return out


def _solids(grid: str, cells: Sequence[Cell], where: Mapping[Cell, int]) -> dict[str, Any]:
    """The cells' shapes in space for the page (`solids.py`): a ball's centre, or each face's corners,
    the cell across it (its index, -1 for none of the page's) and its outward normal, rounded to 1/10,000."""
    def r(v: Sequence[float]) -> list[float]:
        return [round(x, 4) for x in v]

    if grid == "spheres":
        return {"grid": grid, "balls": [r(solids.ball_centre(c)) for c in cells]}
    return {"grid": grid, "solids": [[[[r(q) for q in pts], where.get(other, -1) if other else -1, r(n)]
                                      for pts, n, other in solids.faces(grid, c)] for c in cells],
            "light": r(solids.LIGHT)}


def _symbol(i: int, width: int) -> str:
    return ALPHABET[i] if width == 1 else ALPHABET[i // len(ALPHABET)] + ALPHABET[i % len(ALPHABET)]


def _step_code(step: Step, symbol: Mapping[str, str], directions: Sequence[Cell] = DIRECTIONS) -> str:
    """A one-piece step as characters: the piece, its direction (a digit: an index into `directions`,
    the page's DIRS), how far in steps of that direction (an ALPHABET index)."""
    m = step.move
    k, far = next((k, _dot(m, d) // _dot(d, d)) for k, d in enumerate(directions)
                  if _dot(m, d) > 0 and _dot(m, d) * _dot(m, d) == _dot(m, m) * _dot(d, d))
    return symbol[step.pieces[0]] + str(k) + ALPHABET[min(far, len(ALPHABET) - 1)]


def _dot(a: Sequence[int], b: Sequence[int]) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _colors(labels: Sequence[str], palettes: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The pieces with their colours; where a label's colour differs between solutions (more pieces
    than the palette has colours: each solution coloured on its own), a colour string per solution."""
    shared: dict[str, str] = {}
    if all(shared.setdefault(label, color) == color for palette in palettes for label, color in palette.items()):
        return {"pieces": [{"label": k, "color": shared[k]} for k in labels]}
    distinct = sorted({c for palette in palettes for c in palette.values()})
    if len(distinct) > len(ALPHABET):
        raise CpsolveError(f"{len(distinct)} piece colours: the page holds at most {len(ALPHABET)}")
    index = {c: ALPHABET[i] for i, c in enumerate(distinct)}
    return {
        "pieces": [{"label": k, "color": next(p[k] for p in palettes if k in p)} for k in labels],
        "palette": distinct,
        "colors": ["".join(index[p[k]] if k in p else EMPTY for k in labels) for p in palettes],
    }


def _marks(puzzle: Puzzle, solved: Sequence[Mapping[str, Sequence[Cell]]], where: Mapping[Cell, int]) -> dict[str, Any]:
    """The constraint colours on the pieces' cells (`scene.constraint_marks`): the colours' names and
    colours drawn, then per solution one character per cell (an index into them, or EMPTY)."""
    drawn = mark_colors(puzzle)
    names = list(drawn)
    out = []
    for pieces in solved:
        grid = [EMPTY] * len(where)
        for cells in constraint_marks(puzzle, pieces).values():
            for c, (name, _) in cells.items():
                grid[where[c]] = ALPHABET[names.index(name)]
        out.append("".join(grid))
    return {"names": names, "colors": [drawn[n] for n in names], "solutions": out}


INTERLOCKED = 20
"""Interlocking solutions (no piece slides out alone) per page that get a full disassembly search."""
MAX_STATES = 200_000
"""Beyond this many states the disassembly search gives up and the page shows pieces dropping in."""


def interlocked_steps(pieces: Mapping[str, Sequence[Sequence[int]]], grid: str = "cubes", *, rotations: bool = False,
                      rotation_clearance: float | str = 0) -> list[Step] | None:
    """Moves that take an interlocking assembly apart (the disassembly analysis on `grid`), as page steps.

    The analysis moves groups of pieces by whole cells (on the prism grid, by steps along its four
    axes), and with `rotations` turns them by quarter turns too (the page animates the turn); a part
    that comes free goes just far enough out to be seen apart (`steps.played_disassembly`).
    """
    from ..analysis.disassembly import TooManyStates, disassemble

    cells: dict[str, list[Cell]] = {k: [(int(c[0]), int(c[1]), int(c[2])) for c in cs] for k, cs in pieces.items()}
    try:
        if rotations:
            from ..analysis.turning import disassemble_turning

            result = disassemble_turning(cells, max_states=MAX_STATES, rotation_clearance=rotation_clearance)
        else:
            result = disassemble(cells, max_states=MAX_STATES, grid=grid)
    except TooManyStates:
        return None
    if result.separation is None:
        return None
    return [step for step, _ in played_disassembly(cells, result.separation, grid)]


def _asset(name: str) -> str:
    return (files("cpsolve") / "output" / "page" / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON to put inside a script element: `<`, `>` and `&` as JSON escapes, so that no name can
    close the element (`</script>`) or start what HTML parses inside scripts (`<!--`, `<script`)."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def page_html(
    records: Sequence[Mapping[str, Any]],
    puzzle: Puzzle | None = None,
    title: str = "",
    steps: Mapping[int, Sequence[Step | Mapping[str, Any]]] | None = None,
    recolor: Mapping[str, str] | None = None,
    rotations: bool = False,
    rotation_clearance: float | str = 0,
) -> str:
    """The whole page: markup, style, the data and the renderer, in one string."""
    shown = page_data(records, puzzle, title, steps, recolor, rotations, rotation_clearance)
    chain = shown["chain"]
    data = script_json(shown)
    n = len(records)
    what = f"{n} solutions" if n > 1 else "a solution"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{markup(title)} — cpsolve</title>
<style>{_asset("viewer.css")}</style>
</head><body>
<header><h1>{markup(title)}</h1><span>{what}</span><span id="which"></span></header>
<div id="wrap">
<div id="stage">
<canvas id="view" aria-label="the puzzle in 3-D: drag to turn, wheel to zoom"></canvas>
<p id="step" aria-live="polite"></p>
<div class="controls">
<label>explode <input id="explode" type="range" min="0" max="100" value="0"></label>
<label>assembly <input id="assembly" type="range" min="0" max="100" value="100"></label>
<button id="play" type="button">play</button>
<span id="nav"><button id="prev" type="button">&larr; previous</button>
<button id="next" type="button">next &rarr;</button>
<label>go to <input id="jump" type="number" min="0" max="{max(0, n - 1)}" value="0"></label></span>
</div>
<div class="hint">Drag to turn, wheel to zoom{"" if chain else "; click a piece in the legend to hide or show it"}.
The address follows what you see: copy it to show someone the same view.</div>
<output id="status" hidden></output>
</div>
<aside><h2>Pieces</h2><ul id="legend"></ul></aside>
</div>
<script type="application/json" id="data">{data}</script>
<script>{_asset("viewer.js")}</script>
</body></html>
"""
