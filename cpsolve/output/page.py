"""The 3-D page: one HTML file with its own renderer and the solutions as compact JSON inside it.

Nothing is loaded from elsewhere: the page's script and style (`output/page/`, written for it) are
inlined, so the file opens from disk with no network. The data is built here from the scene
(`scene.py`), like the PNG/SVG pictures: piece labels and colours, the container's cells once, then
each solution as one character per cell (which piece fills it), and its assembly order as pairs
of characters (piece, direction index into `scene.DIRECTIONS`). That keeps all 19,186 Bedlam
solutions in about 2 MB.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any

from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from .pictures import CHAIN_COLORS, STRING
from .scene import DIRECTIONS, Step, parts_of, removal_order
from .text import markup

ALPHABET = "".join(chr(c) for c in range(33, 127) if chr(c) not in "\"\\<>&'")
"""One character per piece in a solution string: printable ASCII that needs no escaping in HTML or JSON."""


def page_data(
    records: Sequence[Mapping[str, Any]],
    puzzle: Puzzle | None = None,
    title: str = "",
    steps: Mapping[int, Sequence[Step | Mapping[str, Any]]] | None = None,
    recolor: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What the page shows, as JSON-ready data.

    `steps` maps a solution's index to a disassembly (moves of groups of pieces, first move first),
    for example one found by the disassembly analysis; the page plays it backwards. Solutions
    without one get the assembly order of `scene.removal_order`. `recolor` (label -> colour)
    overrides the pieces' colours: `cpsolve explain` marks a stuck assembly's blockers that way.
    """
    first = records[0]["pieces"]
    labels = list(first)
    colors = {p.name: p.color for p in puzzle.pieces} if puzzle is not None else {}
    chain = puzzle.kind == "chain" if puzzle is not None else all(k.isdigit() and len(v) == 1 for k, v in first.items())
    parts = parts_of(first, colors)
    if chain:
        pieces = [{"label": k, "color": CHAIN_COLORS[int(k) % 2]} for k in labels]
    else:
        pieces = [{"label": p.label, "color": (recolor or {}).get(p.label, p.color)} for p in parts]
    if len(labels) > len(ALPHABET):
        raise CpsolveError(f"{len(labels)} pieces: the page holds at most {len(ALPHABET)}", where=title or None)
    cells = sorted(tuple(c) for cs in first.values() for c in cs)
    where = {c: i for i, c in enumerate(cells)}
    symbol = {k: ALPHABET[i] for i, k in enumerate(labels)}
    solutions, assembly = [], []
    found: dict[int, Sequence[Step | Mapping[str, Any]]] = dict(steps or {})
    interlocked = 0
    for n, record in enumerate(records):
        grid = [""] * len(cells)
        pieces_n = record["pieces"]
        if set(pieces_n) != set(labels):
            raise CpsolveError("its pieces differ from the first solution's", where=f"solution {n}")
        for label, cs in pieces_n.items():
            for c in cs:
                i = where.get(tuple(c))
                if i is None:
                    raise CpsolveError(f"cell {list(c)} is outside the first solution's cells", where=f"solution {n}")
                grid[i] = symbol[label]
        solutions.append("".join(grid))
        order = None if chain else removal_order(pieces_n)
        assembly.append("".join(symbol[k] + str(DIRECTIONS.index(d)) for k, d in order) if order else "")
        if order is None and not chain and interlocked < INTERLOCKED and n not in found:
            interlocked += 1
            moves = interlocked_steps(pieces_n)
            if moves:
                found[n] = moves
    data: dict[str, Any] = {
        "title": title,
        "chain": chain,
        "alphabet": ALPHABET,
        "pieces": pieces,
        "cells": [list(c) for c in cells],
        "solutions": solutions,
        "assembly": assembly,
        "string": STRING,
    }
    if found:
        data["steps"] = {str(i): [s.as_json() if isinstance(s, Step) else dict(s) for s in seq]
                         for i, seq in found.items()}
    return data


INTERLOCKED = 20
"""Interlocking solutions (no piece slides out alone) per page that get a full disassembly search."""
MAX_STATES = 200_000
"""Beyond this many states the disassembly search gives up and the page shows pieces dropping in."""


def interlocked_steps(pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[Step] | None:
    """Moves that take an interlocking assembly apart (the disassembly analysis), as page steps.

    The analysis moves groups of pieces by whole cells; a part that comes free goes "out", which
    here means far enough to clear everything: the assembly's size plus every move made before.
    """
    from ..analysis.disassembly import TooManyStates, disassemble

    try:
        cells: dict[str, list[Cell]] = {k: [(int(c[0]), int(c[1]), int(c[2])) for c in cs] for k, cs in pieces.items()}
        result = disassemble(cells, max_states=MAX_STATES)
    except TooManyStates:
        return None
    if result.separation is None:
        return None
    separations = result.separation.steps()
    every = [c for cs in pieces.values() for c in cs]
    extent = max(max(c[i] for c in every) - min(c[i] for c in every) + 1 for i in range(3))
    far = extent + 1 + sum(m.amount for s in separations for m in s.moves if m.amount is not None)
    out = []
    for s in separations:
        for m in s.moves:
            amount = far if m.amount is None else m.amount
            d = m.direction
            out.append(Step(tuple(m.pieces), (d[0] * amount, d[1] * amount, d[2] * amount), tuple(s.pieces)))
    return out


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
) -> str:
    """The whole page: markup, style, the data and the renderer, in one string."""
    data = script_json(page_data(records, puzzle, title, steps, recolor))
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
<div class="controls">
<label>explode <input id="explode" type="range" min="0" max="100" value="0"></label>
<label>assembly <input id="assembly" type="range" min="0" max="100" value="100"></label>
<button id="play" type="button">play</button>
<span class="hint" id="order"></span>
<span id="nav"><button id="prev" type="button">&larr; previous</button>
<button id="next" type="button">next &rarr;</button>
<label>go to <input id="jump" type="number" min="0" max="{max(0, n - 1)}" value="0"></label></span>
</div>
<div class="hint">Drag to turn, wheel to zoom; click a piece in the legend to hide or show it.</div>
<output id="status">loading…</output>
</div>
<aside><h2>Pieces</h2><ul id="legend"></ul></aside>
</div>
<script type="application/json" id="data">{data}</script>
<script>{_asset("viewer.js")}</script>
</body></html>
"""
