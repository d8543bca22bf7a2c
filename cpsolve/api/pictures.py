"""Solutions for people: taken apart (`disassemble`), drawn (`draw`, PNG or SVG) and as the self-contained
3-D page (`page`).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from ..errors import CpsolveError
from ..limits import check_drawing
from ..puzzle.model import Puzzle
from .common import _grid
from .results import Solution

if TYPE_CHECKING:
    from ..analysis.trees import Disassembly
    from ..output.steps import Step


def disassemble(solution: Solution, *, max_states: int | None = None, rotations: bool = False,
                rotation_clearance: float | str = 0) -> Disassembly:
    """Take the assembly apart by sliding pieces: `.level_text()` ("5", "1.2", ...) and `.moves()`
    when it comes apart, `.stuck` when it does not (`cpsolve disassemble`). Pieces of one of the
    puzzle's groups may stay together. Past `max_states` states it raises (exit code 1).
    `rotations=True` also turns pieces by quarter turns (levels like "1R1": slides R turns), each cube
    shrunk by `rotation_clearance` (from 0 up to 0.5, "1/20" too) on each side in the sweep test.

    >>> found = cpsolve.disassemble(cpsolve.solve(cpsolve.load("six-piece-burr")))
    >>> found.ok, found.level_text()
    (True, '1')
    """
    from ..analysis.disassembly import TooManyStates, check_grid, puzzle_groups
    from ..analysis.disassembly import disassemble as take_apart

    if solution.puzzle is not None and solution.puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=solution.name)
    try:
        check_grid(_grid(solution.puzzle))
        if rotations or rotation_clearance:
            from ..analysis.disassembly import check_rotations
            from ..analysis.turning import disassemble_turning

            check_rotations(rotations, rotation_clearance, _grid(solution.puzzle))
            return disassemble_turning(solution.pieces, puzzle_groups(solution.puzzle), max_states=max_states,
                                       rotation_clearance=rotation_clearance)
        return take_apart(solution.pieces, puzzle_groups(solution.puzzle), max_states=max_states,
                          grid=_grid(solution.puzzle))
    except TooManyStates as exc:
        raise CpsolveError(str(exc), where=solution.name, field="max_states", exit_code=1) from None
    except CpsolveError as exc:
        raise exc.located(solution.name) from None


def draw(
    what: Solution | Puzzle | Sequence[Solution],
    format: Literal["png", "svg"] = "png",
    *,
    view: str = "front-right",
    exploded: bool = False,
    title: bool | str = True,
    size: int | None = None,
    step: int | None = None,
    rotations: bool = False,
    rotation_clearance: float | str = 0,
) -> bytes:
    """A picture (`cpsolve draw`): a solution as shaded cubes; a puzzle as its pieces, each named
    (a chain unfolded); a sequence of solutions as a contact sheet, each picture with its own
    pieces (and its own legend where the solutions' pieces differ). `view` is front-right,
    front-left, back-right, back-left, or below-... of these; `title` True writes the usual one;
    `size` is the picture's longer side in pixels (the whole picture, text included, is scaled to
    it; None: cubes of 44 pixels, 22 on a sheet). `step` N draws a solution as it is after the first
    N moves of its disassembly (`disassemble`, with `rotations` and `rotation_clearance` as there):
    a turned piece in its turned pose, a part taken out just clear of the rest (as the 3-D page shows
    it); 0 is the assembly.

    >>> png = cpsolve.draw(cpsolve.solve(cpsolve.load("soma")))
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> cpsolve.draw(cpsolve.load("soma"), "svg", size=300)[:40]
    b'<svg xmlns="http://www.w3.org/2000/svg" '
    """
    from ..output import pictures
    from ..output.scene import VIEWS, constraint_marks

    if format not in ("png", "svg"):
        raise CpsolveError(f"unknown picture format {format!r} (known: png, svg)", field="format")
    if view not in VIEWS:
        raise CpsolveError(f"unknown view {view!r} (known: {', '.join(VIEWS)})", field="view")
    if size is not None and (type(size) is not int or not 16 <= size <= 20_000):
        raise CpsolveError(f"the picture's size must be a whole number of pixels from 16 to 20000, not {size!r}",
                           field="size")

    def heading(default: str) -> str | None:
        return default if title is True else (title or None)

    for shown in [what] if isinstance(what, Solution) else what if not isinstance(what, Puzzle) else []:
        _check_drawable(shown)
    if step is not None and not isinstance(what, Solution):
        raise CpsolveError("a step of a disassembly is drawn for one solution", field="step")
    if isinstance(what, Solution):
        which = f"solution {what.index}" if what.index is not None else "a solution"
        placed: Mapping[str, Sequence[tuple[int, int, int]]] = what.pieces
        after = ""
        if step is not None:
            placed, after = _after_moves(what, step, rotations, rotation_clearance)
        drawing = pictures.draw_solution(placed, _colors(what.puzzle), view=view, explode=exploded,
                                         title=heading(f"{what.name}, {which}{after}"),
                                         marks=constraint_marks(what.puzzle, placed), grid=_grid(what.puzzle))
    elif isinstance(what, Puzzle):
        if what.kind == "chain":
            assert what.chain is not None
            drawing = pictures.chain_drawing(pictures.unfolded_chain(what.chain), view=view, unit=34, spread=1.5,
                                             title=heading(f"{what.name}: a chain of {what.chain.n} cubes"))
        else:
            shapes = [(p.name if p.count == 1 else f"{p.name} ({p.count})", p.shape, p.color) for p in what.pieces]
            drawing = pictures.pieces_drawing(shapes, view=view, title=heading(f"{what.name}: the pieces"),
                                              grid=what.grid)
    else:
        sheet = list(what)
        if not sheet or not all(isinstance(s, Solution) for s in sheet):
            raise CpsolveError("draw takes a Solution, a Puzzle, or a non-empty sequence of Solutions")
        puzzle = sheet[0].puzzle
        drawing = pictures.draw_sheet(
            [(f"#{s.index if s.index is not None else i}", s.pieces) for i, s in builtins.enumerate(sheet)],
            _colors(puzzle), [p.name for p in puzzle.pieces] if puzzle is not None else (), view=view,
            explode=exploded, title=heading(f"{sheet[0].name}: {len(sheet)} solutions"),
            marks=[constraint_marks(s.puzzle, s.pieces) for s in sheet], grid=_grid(puzzle))
    if size is not None:
        drawing = pictures.fitted(drawing, size)
    return pictures.encode(drawing, format)


def _after_moves(solution: Solution, step: int, rotations: bool,
                 rotation_clearance: float | str) -> tuple[dict[str, list[tuple[int, int, int]]], str]:
    """The solution's pieces after the first `step` moves of its disassembly, and the title's words for it.
    The cells come from the same replay as the 3-D page's steps (`steps.played_disassembly`)."""
    from ..output.steps import played_disassembly

    if type(step) is not int or step < 0:
        raise CpsolveError(f"the step is a number of moves from 0, not {step!r}", field="step")
    found = disassemble(solution, rotations=rotations, rotation_clearance=rotation_clearance)
    if found.separation is None:
        how = "sliding or turning" if rotations else "sliding"
        raise CpsolveError(f"it does not come apart by {how} pieces: no steps to draw", where=solution.name,
                           field="step")
    played = played_disassembly(solution.pieces, found.separation, _grid(solution.puzzle))
    if step > len(played):
        raise CpsolveError(f"its disassembly has {len(played)} moves, not {step}", where=solution.name, field="step")
    if step == 0:
        return {k: [(int(c[0]), int(c[1]), int(c[2])) for c in v] for k, v in solution.pieces.items()}, ", assembled"
    move = found.moves()[step - 1]
    return played[step - 1][1], f", after move {step} of {len(played)} ({move.text()})"


def _check_drawable(solution: object) -> None:
    """A picture, a page are sized by the solution's bounding box (`--max-drawing`), not by its cells."""
    if isinstance(solution, Solution):
        try:
            check_drawing([c for cells in solution.pieces.values() for c in cells])
        except CpsolveError as exc:
            raise exc.located(solution.name) from None


def _colors(puzzle: Puzzle | None) -> dict[str, str | None]:
    return {p.name: p.color for p in puzzle.pieces} if puzzle is not None else {}


def page(solutions: Solution | Sequence[Solution], *, title: str | None = None, rotations: bool = False,
         rotation_clearance: float | str = 0) -> str:
    """The 3-D page (`cpsolve view`): one self-contained HTML file to turn the solutions around,
    pull them apart and watch them assembled; nothing is loaded from anywhere. With `rotations`, the
    interlocking solutions it takes apart may turn pieces too (as `disassemble`): the page animates
    each quarter turn.

    >>> html = cpsolve.page(cpsolve.solve(cpsolve.load("soma")))
    >>> html.startswith("<!DOCTYPE html>"), "http" in html
    (True, False)
    """
    from ..output.page import page_html

    chosen = _shown(solutions)
    _check_turns(chosen[0].puzzle, rotations, rotation_clearance)
    records = [{"puzzle": s.name, "pieces": s.pieces} for s in chosen]
    return page_html(records, chosen[0].puzzle, title=chosen[0].name if title is None else title,
                     rotations=rotations, rotation_clearance=rotation_clearance)


def _check_turns(puzzle: Puzzle | None, rotations: bool, rotation_clearance: float | str) -> None:
    """The rotation options of a page, checked before any search (as `disassemble` checks them)."""
    if rotations or rotation_clearance:
        from ..analysis.disassembly import check_rotations

        check_rotations(rotations, rotation_clearance, _grid(puzzle))


def _shown(solutions: Solution | Sequence[Solution]) -> list[Solution]:
    """The solutions a page shows, each checked to fit a drawing (`--max-drawing`); at least one."""
    chosen = [solutions] if isinstance(solutions, Solution) else list(solutions)
    if not chosen:
        raise CpsolveError("no solutions to show")
    for shown in chosen:
        _check_drawable(shown)
    return chosen


def view_data(solutions: Solution | Sequence[Solution], *, title: str | None = None,
              disassembly: bool = False, rotations: bool = False,
              rotation_clearance: float | str = 0) -> dict[str, object]:
    """What the 3-D page shows (`page`), as JSON-ready data: the workbench (`cpsolve app`) hands it to the
    page's own viewer script rather than building a page per solution. With `disassembly`, every
    solution that comes apart is played with the moves of the disassembly analysis (`disassemble`)
    rather than piece by piece (the page does that for the first interlocking ones only); with
    `rotations` those moves may be quarter turns (a step's "turn": axis 0-2, sense, pivot).

    >>> data = cpsolve.view_data(cpsolve.solve(cpsolve.load("soma")))
    >>> len(data["cells"]), len(data["pieces"])
    (27, 7)
    """
    from ..analysis.disassembly import TAKEN_APART
    from ..output.page import interlocked_steps, page_data

    chosen = _shown(solutions)
    records = [{"puzzle": s.name, "pieces": s.pieces} for s in chosen]
    puzzle = chosen[0].puzzle
    grid = _grid(puzzle)
    _check_turns(puzzle, rotations, rotation_clearance)
    steps: dict[int, list[Step]] = {}
    if disassembly and (puzzle is None or puzzle.kind != "chain") and grid in TAKEN_APART:
        for i, s in builtins.enumerate(chosen):  # elsewhere there is no disassembler: the page drops pieces in
            found = interlocked_steps(s.pieces, grid, rotations=rotations, rotation_clearance=rotation_clearance)
            if found:
                steps[i] = found
    return page_data(records, puzzle, title=chosen[0].name if title is None else title, steps=steps,
                     rotations=rotations, rotation_clearance=rotation_clearance)


def assembly_stl(solution: Solution, *, unit: float = 10.0, clearance: float = 0.0) -> bytes:
    """The assembled solution as one binary STL (every piece where the solution puts it, each shrunk by
    `clearance` so that they print apart): `export(puzzle, "stl")` gives the pieces one by one.

    >>> stl = cpsolve.assembly_stl(cpsolve.solve(cpsolve.load("soma")))
    >>> int.from_bytes(stl[80:84], "little")  # triangles: 2 per outer face, 14 faces for V, 18 for the others
    244
    """
    from ..output.stl import binary_stl, piece_triangles

    if not (math.isfinite(unit) and unit > 0):
        raise CpsolveError(f"the cube size must be a finite number of mm > 0, not {unit:g}", field="unit")
    if not (math.isfinite(clearance) and 0 <= clearance * 2 < unit):
        raise CpsolveError(f"clearance {clearance:g} mm does not fit a {unit:g} mm cube", field="clearance")
    _check_drawable(solution)
    grid = _grid(solution.puzzle)
    tris = [t for label, cells in solution.pieces.items() for t in piece_triangles(grid, cells, unit, clearance, label)]
    return binary_stl(f"{solution.name} assembled", tris)
