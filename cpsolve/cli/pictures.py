"""The commands that show a solution: draw (a PNG or SVG picture), view (a 3-D HTML page) and
disassemble (the moves that take an assembly apart), with the helpers that find the solution to show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import CpsolveError
from .common import (
    ClearanceOpt,
    FindTimeoutOpt,
    IdOpt,
    OldOutputOpt,
    ProblemOpt,
    RotationsOpt,
    _remaining,
    _which,
    app,
    counted,
    inputs_of,
    out_given,
)

if TYPE_CHECKING:
    from ..api import Solution


SourceArg = Annotated[str, typer.Argument(
    help="A solutions file of `cpsolve enumerate`, a BurrTools file (its stored assemblies; --problem N), or a model "
         "or puzzle file (solved first).")]
IndexOpt = Annotated[int | None, typer.Option(
    min=0, show_default="0; a puzzle with none stored: the first solution found",
    help="Which solution (0-based): of the file, else the puzzle's N-th class as one worker finds them.")]
ViewOpt = Annotated[str, typer.Option(help="Where the eye is: front-right, front-left, back-right, back-left "
                                           "(and below-… for the same from underneath).")]


def _heading(solution: Solution, index: int | None, id: str | None) -> str:
    return f"{solution.name}, {_which(solution, index, id)}"


@app.command("draw")
def draw_cmd(
    source: SourceArg,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", show_default="NAME.png in the current folder, NAME the puzzle's",
        help="FILE.png or FILE.svg.")] = None,
    index: IndexOpt = None,
    id: IdOpt = None,
    view: ViewOpt = "front-right",
    exploded: Annotated[bool, typer.Option("--exploded", help="Pull the pieces apart so each is seen.")] = False,
    pieces: Annotated[bool, typer.Option("--pieces", help="The puzzle's pieces alone, each named (unsolved).")] = False,
    sheet: Annotated[int, typer.Option(min=0, help="The first N solutions (of the file, else the puzzle's first "
                                                   "N classes) on one contact sheet.")] = 0,
    title: Annotated[bool, typer.Option(help="A title line above the picture.")] = True,
    size: Annotated[int | None, typer.Option(min=16, max=20_000, metavar="PIXELS", show_default="as drawn",
                                             help="The picture's longer side; all of it, text included, is "
                                                  "scaled to it.")] = None,
    step: Annotated[int | None, typer.Option(
        min=0, metavar="N", help="The solution after the first N moves of its disassembly (as `disassemble` finds "
                                 "it; 0: assembled): turned pieces turned, parts taken out just clear.")] = None,
    problem: ProblemOpt = None,
    timeout: FindTimeoutOpt = None,
    output: OldOutputOpt = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
) -> None:
    """Draw a solution as shaded cubes (PNG or SVG): colours, piece outlines, a legend."""
    from .. import api

    given = out_given(out, output)
    fmt = "png" if given is None else given.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise CpsolveError("the picture's file name must end in .png or .svg", field="--out")
    if sheet and pieces:
        raise CpsolveError("a contact sheet of solutions, or the pieces: not both (--pieces)", field="--sheet")
    if sheet and id is not None:
        raise CpsolveError("a contact sheet starts at an --index, not at an --id", field="--sheet")
    if step is not None and (sheet or pieces):
        raise CpsolveError("a step of a disassembly is drawn for one solution (not with --sheet or --pieces)",
                           field="--step")
    src = api.source(source, problem)
    target = given or src.output_name(".png")
    inputs = inputs_of(src)
    api.check_output(target, inputs, "--out")
    what: api.Solution | api.Puzzle | list[api.Solution]
    heading: bool | str
    if pieces:
        puzzle = src.puzzle
        if puzzle is None:
            raise CpsolveError("--pieces needs the puzzle: the file names none that can be loaded", where=source)
        what, heading = puzzle, True
    elif sheet:
        what = src.solutions(sheet, start=index or 0, timeout=_remaining(timeout))
        first = index or 0
        heading = f"{what[0].name}: solutions {first}-{first + len(what) - 1}"
    else:
        what = src.solution(index, id=id, timeout=_remaining(timeout))
        heading = _heading(what, index, id)
    if step is not None:
        heading = True  # the title says which move
    data = api.draw(what, fmt, view=view, exploded=exploded, title=heading if title else False,  # type: ignore[arg-type]
                    size=size, step=step, rotations=rotations, rotation_clearance=rotation_clearance or 0)
    api.write_output(target, data, inputs, "--out")
    typer.echo(f"wrote {api.printable(str(target))} ({_picture_size(data)})", err=True)


def _picture_size(data: bytes) -> str:
    """"WxH" of a PNG (its IHDR chunk) or an SVG (its width and height attributes)."""
    if data.startswith(b"\x89PNG"):
        return f"{int.from_bytes(data[16:20], 'big')}x{int.from_bytes(data[20:24], 'big')}"
    import re

    found = re.search(rb'width="([\d.]+)"[^>]*height="([\d.]+)"', data[:400])
    return f"{float(found[1]):g}x{float(found[2]):g}" if found else f"{len(data)} bytes"


@app.command("view")
def view_cmd(
    source: SourceArg,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", show_default="NAME.html in the current folder, NAME the puzzle's",
        help="The HTML file to write.")] = None,
    limit: Annotated[int | None, typer.Option(
        min=0, show_default="all of a file; a puzzle with none stored: the first solution found",
        help="At most this many solutions (0 = all; of a puzzle, its first N classes).")] = None,
    id: Annotated[str | None, typer.Option("--id", help="Only the solution whose id starts with this.")] = None,
    problem: ProblemOpt = None,
    timeout: FindTimeoutOpt = None,
    output: OldOutputOpt = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
) -> None:
    """Write one self-contained HTML page to turn a solution around in 3-D and watch it assembled."""
    from .. import api

    given = out_given(out, output)
    src = api.source(source, problem)
    target = given or src.output_name(".html")
    inputs = inputs_of(src)
    api.check_output(target, inputs, "--out")
    held = src.kind == "solutions" or (src.kind == "xmpuzzle" and bool(src.stored(1)))
    left = _remaining(timeout)
    if id is not None:
        chosen = [src.solution(id=id, timeout=left)]
    else:
        chosen = src.solutions(limit or 0, timeout=left) if held or limit else [src.solution(timeout=left)]
    html = api.page(chosen, title=chosen[0].name, rotations=rotations, rotation_clearance=rotation_clearance or 0)
    api.write_output(target, html, inputs, "--out")
    n = len(chosen)
    typer.echo(f"wrote {api.printable(str(target))}: {counted(n, 'solution')}, {len(html.encode()) / 1e6:.2f} MB",
               err=True)


@app.command("disassemble")
def disassemble_cmd(
    source: Annotated[str, typer.Argument(
        help="A solutions file of `cpsolve enumerate`, a BurrTools file (its stored assemblies; --problem N), "
             "or a model or puzzle file (its N-th solution class is found first).")],
    index: Annotated[int | None, typer.Option(min=0, show_default="0", help="Which solution (0-based).")] = None,
    id: IdOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the steps as one JSON object.")] = False,
    max_states: Annotated[int | None, typer.Option(min=1, help="Give up after this many states (exit 1).")] = None,
    problem: ProblemOpt = None,
    timeout: FindTimeoutOpt = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
) -> None:
    """Take one assembly apart by sliding pieces: the shortest way, its level (a.b.c), or where it is stuck."""
    from .. import api
    from ..api import printable

    src = api.source(source, problem)
    if src.puzzle is not None and src.puzzle.kind == "chain":  # said before any search
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=source)
    solution = src.solution(index if index is not None or id is not None else 0, id=id, timeout=_remaining(timeout))
    name, burrtools = solution.name, solution.burrtools_level
    which = _which(solution, index, id) if id is not None else f"solution {index or 0}"
    shown_index = solution.index if id is not None else index or 0
    try:
        found = api.disassemble(solution, max_states=max_states, rotations=rotations,
                                rotation_clearance=rotation_clearance or 0)
    except CpsolveError as exc:
        if exc.field != "max_states":
            raise
        raise CpsolveError(f"{exc.message} (--max-states)", where=source, exit_code=1) from None
    if as_json:
        typer.echo(json.dumps({"puzzle": name, "index": shown_index, "id": solution.id, **found.as_json(),
                               "burrtools_level": burrtools}))
        return

    def say(line: str) -> None:  # names come from the solutions file: each line shown escaped
        typer.echo(printable(line))

    if found.separation is None:
        stuck = found.stuck
        assert stuck is not None
        say(f"{name}, {which}: does not come apart by sliding {'or turning ' if rotations else ''}pieces")
        say(f"  stuck: {' '.join(stuck.pieces)} ({counted(stuck.states, 'state')} reached, none separates them)")
        for g in stuck.locked:
            say(f"  locked together in every state reached: {' '.join(g)}")
        return
    sep = found.separation
    say(f"{name}, {which}: comes apart, level {found.level_text()} "
        f"({counted(sep.total_moves(), 'move')} in all, {counted(found.states, 'state')} searched)")
    if burrtools is not None and burrtools != found.level_text():
        say(f"BurrTools stored level {burrtools} with this assembly: it keeps the first shortest way its "
            "search meets, which depends on how the assembly is turned; cpsolve keeps the way whose parts "
            "come apart most easily (the same in any orientation)")
    number = 0
    for step in sep.steps():
        say(f"{' '.join(step.pieces)}: {counted(len(step.moves), 'move')}")
        for m in step.moves:
            number += 1
            say(f"  {number:>4}. {m.text()}")
