"""Notebook display: puzzles and solutions show themselves as a picture and as the 3-D page. Their classes
live below the pictures, so the methods are given to them here (`_install_display`, run when the API
is imported).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from ..output.text import markup
from ..puzzle.model import Puzzle
from .common import _iframe
from .pictures import draw, page
from .results import Solution

if TYPE_CHECKING:
    pass


def _puzzle_png(puzzle: Puzzle) -> bytes:
    return draw(puzzle, "png")


def _puzzle_html(puzzle: Puzzle) -> str:
    what = f"a chain of {puzzle.n_pieces} cubes" if puzzle.kind == "chain" else f"{puzzle.n_pieces} pieces"
    facts = [("puzzle", puzzle.name), ("what", f"{what}, {len(puzzle.container)} cells")]
    facts += [(k, " ".join(v.split())) for k, v in (("description", puzzle.description), ("source", puzzle.source))
              if v]
    picture = base64.b64encode(_puzzle_png(puzzle)).decode("ascii")
    rows = "".join(f"<tr><th>{markup(k)}</th><td>{markup(v)}</td></tr>" for k, v in facts)
    return f'<table>{rows}</table><img src="data:image/png;base64,{picture}" alt="the pieces of {markup(puzzle.name)}">'


def _solution_png(solution: Solution) -> bytes:
    return draw(solution, "png")


def _solution_html(solution: Solution) -> str:
    return _iframe(page(solution), height=520)


def _install_display() -> None:
    """Give `Puzzle` (stage 1, which may not import the pictures) and `Solution` (whose module the pictures
    import) their notebook display methods: a picture and the 3-D page."""
    for cls, methods in ((Puzzle, (("_repr_png_", _puzzle_png), ("_repr_html_", _puzzle_html))),
                         (Solution, (("_repr_png_", _solution_png), ("_repr_html_", _solution_html)))):
        for name, method in methods:
            if name not in vars(cls):
                setattr(cls, name, method)
