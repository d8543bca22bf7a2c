"""The commands that show a solution: draw (a PNG or SVG picture), view (a 3-D HTML page) and
disassemble (the moves that take an assembly apart), with the helpers that find the solution to show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import CpsolveError
from .common import app

if TYPE_CHECKING:
    from ..api import Puzzle, Solution


def _solutions_source(source: str) -> tuple[Path | None, str]:
    """A solutions file (`.jsonl`, or any existing file that is not a puzzle file) or a model name/path."""
    path = Path(source)
    if path.suffix == ".jsonl" or (path.is_file() and path.suffix not in (".yaml", ".yml")):
        return path, path.name
    return None, source


def _solutions_of(source: str, index: int = 0, limit: int | None = None) -> tuple[list[Solution], Puzzle | None, str]:
    """The solutions a picture or page shows: a model's first solution (solved now), or solutions of a
    file (the `index`-th; with `limit`, the first `limit`, 0 = all), each with its puzzle when the file
    names one that loads."""
    from .. import api

    path, name = _solutions_source(source)
    puzzle: Puzzle | None
    if path is None:
        puzzle = api.load(source)
        found = api.solve(puzzle)
        if found is None:
            raise CpsolveError("no solution found", where=puzzle.name, exit_code=1)
        return [found], puzzle, puzzle.name
    chosen = api.read_solutions(path, index + 1 if limit is None else limit)
    if limit is None:
        if len(chosen) <= index:
            raise CpsolveError(f"there is no solution {index}: the file has {len(chosen)}", where=str(path),
                               field="--index")
        chosen = chosen[index:]
    puzzle = chosen[0].puzzle if chosen else None
    return chosen, puzzle, puzzle.name if puzzle is not None else name


SourceArg = Annotated[str, typer.Argument(help="A model (solved first) or a JSON-lines file from `cpsolve enumerate`.")]
ViewOpt = Annotated[str, typer.Option(help="Where the eye is: front-right, front-left, back-right, back-left "
                                           "(and below-… for the same from underneath).")]


@app.command("draw")
def draw_cmd(
    source: SourceArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="FILE.png or FILE.svg.")],
    index: Annotated[int, typer.Option(min=0, help="Which solution of the file (0-based).")] = 0,
    view: ViewOpt = "front-right",
    exploded: Annotated[bool, typer.Option("--exploded", help="Pull the pieces apart so each is seen.")] = False,
    pieces: Annotated[bool, typer.Option("--pieces", help="The puzzle's pieces alone, each named (unsolved).")] = False,
    sheet: Annotated[int, typer.Option(min=0, help="The first N solutions of the file on one contact sheet.")] = 0,
    title: Annotated[bool, typer.Option(help="A title line above the picture.")] = True,
) -> None:
    """Draw a solution as shaded cubes (PNG or SVG): colours, piece outlines, a legend."""
    from .. import api

    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise CpsolveError("the picture's file name must end in .png or .svg", field="--output")
    what: api.Solution | api.Puzzle | list[api.Solution]
    heading: bool | str
    if pieces:
        path, name = _solutions_source(source)
        puzzle = api.load(source) if path is None else _solutions_of(source, index)[1]
        if puzzle is None:
            raise CpsolveError("--pieces needs the puzzle: the file names none that can be loaded", where=name)
        what, heading = puzzle, True
    elif sheet:
        if _solutions_source(source)[0] is None:
            raise CpsolveError("--sheet needs a solutions file (cpsolve enumerate MODEL --out FILE.jsonl)",
                               field="--sheet")
        what, _, label = _solutions_of(source, limit=sheet)
        heading = f"{label}: solutions 0-{len(what) - 1}"
    else:
        (what, *_), _, label = _solutions_of(source, index)
        which = f"solution {index}" if _solutions_source(source)[0] is not None else "a solution"
        heading = f"{label}, {which}"
    data = api.draw(what, fmt, view=view, exploded=exploded, title=heading if title else False)  # type: ignore[arg-type]
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise CpsolveError(f"cannot write the picture: {exc.strerror}", where=str(output)) from None
    typer.echo(f"wrote {output} ({_picture_size(data)})", err=True)


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
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")],
    limit: Annotated[int, typer.Option(min=0, help="At most this many solutions of the file (0 = all).")] = 0,
) -> None:
    """Write one self-contained HTML page to turn a solution around in 3-D and watch it assembled."""
    from .. import api

    chosen, _, label = _solutions_of(source, limit=limit) if _solutions_source(source)[0] else _solutions_of(source)
    html = api.page(chosen, title=label)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the page: {exc.strerror}", where=str(output)) from None
    n = len(chosen)
    typer.echo(f"wrote {output}: {n} solution{'s' if n != 1 else ''}, {len(html.encode()) / 1e6:.2f} MB", err=True)


@app.command("disassemble")
def disassemble_cmd(
    source: Annotated[str, typer.Argument(
        help="A JSON-lines file written by `cpsolve enumerate`, a BurrTools file (its stored assemblies), "
             "or a model (its N-th solution class is found first).")],
    index: Annotated[int, typer.Option(min=0, help="Which solution (0-based).")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the steps as one JSON object.")] = False,
    max_states: Annotated[int | None, typer.Option(min=1, help="Give up after this many states (exit 1).")] = None,
) -> None:
    """Take one assembly apart by sliding pieces: the shortest way, its level (a.b.c), or where it is stuck."""
    from .. import api
    from ..api import printable

    solution = _assembly_to_disassemble(source, index)
    name, burrtools = solution.name, solution.burrtools_level
    try:
        found = api.disassemble(solution, max_states=max_states)
    except CpsolveError as exc:
        if exc.field != "max_states":
            raise
        raise CpsolveError(f"{exc.message} (--max-states)", where=source, exit_code=1) from None
    if as_json:
        typer.echo(json.dumps({"puzzle": name, "index": index, **found.as_json(), "burrtools_level": burrtools}))
        return

    def say(line: str) -> None:  # names come from the solutions file: each line shown escaped
        typer.echo(printable(line))

    if found.separation is None:
        stuck = found.stuck
        assert stuck is not None
        say(f"{name}, solution {index}: does not come apart by sliding pieces")
        say(f"  stuck: {' '.join(stuck.pieces)} ({stuck.states} states reached, none separates them)")
        for g in stuck.locked:
            say(f"  locked together in every state reached: {' '.join(g)}")
        return
    sep = found.separation
    say(f"{name}, solution {index}: comes apart, level {found.level_text()} "
        f"({sep.total_moves()} moves in all, {found.states} states searched)")
    if burrtools is not None and burrtools != found.level_text():
        say(f"BurrTools stored level {burrtools} with this assembly: it keeps the first shortest way its "
            "search meets, which depends on how the assembly is turned; cpsolve keeps the way whose parts "
            "come apart most easily (the same in any orientation)")
    number = 0
    for step in sep.steps():
        say(f"{' '.join(step.pieces)}: {len(step.moves)} move{'s' if len(step.moves) != 1 else ''}")
        for m in step.moves:
            number += 1
            say(f"  {number:>4}. {m.text()}")


def _assembly_to_disassemble(source: str, index: int) -> Solution:
    """The assembly to take apart: a solutions file's line, a BurrTools file's stored assembly (with the
    level BurrTools stored), or a model's N-th class."""
    from .. import api

    path = Path(source)
    if path.suffix == ".jsonl":
        (found,) = api.read_solutions(path, 1, start=index)
        return found
    puzzle = api.load(source)
    if puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=source)
    if path.suffix == ".xmpuzzle":  # BurrTools keeps its solutions in the file: take those as they are
        stored = api.stored_solutions(path)
        if stored:
            if index >= len(stored):
                raise CpsolveError(f"stores {len(stored)} assemblies (indices 0 to {len(stored) - 1}); there is no "
                                   f"index {index}", where=source)
            return stored[index]
    classes = list(api.enumerate(puzzle, limit=index + 1))
    if len(classes) <= index:
        raise CpsolveError(f"has {len(classes)} solution classes (indices 0 to {len(classes) - 1}); there is no "
                           f"index {index}", where=source)
    return classes[index]
