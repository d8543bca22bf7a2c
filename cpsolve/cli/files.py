"""The commands that convert files: import (BurrTools to a puzzle file), export (for an external
solver, BurrTools or a 3-D printer) and decode (a SAT solver's answer to an exported CNF).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import CpsolveError
from .common import ModelArg, OldOutputOpt, ProblemOpt, app, counted, inputs_of, out_given, puzzle_of

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..api import Solution


@app.command("import")
def import_cmd(
    file: Annotated[str, typer.Argument(help="A BurrTools .xmpuzzle file (gzip or plain XML).")],
    problem: ProblemOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", show_default="stdout", help="The YAML file to write.")]
    = None,
    check: Annotated[bool, typer.Option("--check", help="Check every assembly stored in the file.")] = False,
    output: OldOutputOpt = None,
) -> None:
    """Convert a problem of a BurrTools file to a cpsolve puzzle file (cube grid only); with --check,
    verify that each stored assembly covers the result exactly."""
    from .. import api

    output = out_given(out, output)
    src = api.source(file, problem)
    if src.kind != "xmpuzzle":
        raise CpsolveError(f"is {src.what}; import takes a BurrTools file (.xmpuzzle)", where=file)
    inputs = inputs_of(src)
    if output is not None:
        api.check_output(output, inputs, "--out")
    found = api.import_xmpuzzle(file, src.problem or 0)
    if output is None:
        typer.echo(found.yaml, nl=False)
    else:
        api.write_output(output, found.yaml, inputs, "--out")
    stated = ((found.stated_assemblies, "assembly", "assemblies"), (found.stated_solutions, "solution", None))
    counts = ", ".join(counted(n, noun, nouns) for n, noun, nouns in stated if n is not None)
    stored = f"; BurrTools stored {counts}" if counts else ""
    where = f"written to {output}" if output else "written to stdout"
    puzzle = found.puzzle
    typer.echo(api.printable(f"{puzzle.name}: {counted(len(puzzle.pieces), 'piece')}, "
                             f"{counted(len(puzzle.container), 'cell')} ({len(puzzle.optional)} optional){stored}; "
                             f"{where}"), err=True)
    if check:
        found.check()
        typer.echo(f"{counted(found.stored, 'stored assembly', 'stored assemblies')} checked: "
                   f"{'each covers' if found.stored != 1 else 'it covers'} the result exactly", err=True)


@app.command("export")
def export_cmd(
    model: ModelArg,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The file to write (required).")] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="dimacs (CNF, any SAT solver), xcc (Knuth's DLX), xmpuzzle (BurrTools) "
                          "or stl (pieces to print).")
    ] = "dimacs",
    with_solutions: Annotated[
        str | None, typer.Option(help="xmpuzzle: also store these solutions (a solutions file of `enumerate`, or a "
                                      "BurrTools file's stored assemblies).")
    ] = None,
    encoding: Annotated[str | None, typer.Option(help="Cardinality encoding of the CNF (pysat's names).")] = None,
    symmetry_breaking: Annotated[bool, typer.Option(help="Export the symmetry-broken problem.")] = True,
    unit: Annotated[float, typer.Option("--unit", min=0.1, help="stl: cube size in millimetres.")] = 10.0,
    clearance: Annotated[float, typer.Option(min=0.0, help="stl: gap between printed pieces, in millimetres.")] = 0.0,
    problem: ProblemOpt = None,
    output: OldOutputOpt = None,
) -> None:
    """Write the puzzle for an external solver: DIMACS CNF (decode the answer with `cpsolve decode`) or XCC;
    or its pieces as STL solids for a 3-D printer (-o names a folder, or a .zip: one file per piece, NAME-xK.stl
    for a piece to print K times)."""
    from .. import api

    output = out_given(out, output)
    if output is None:
        raise CpsolveError("required: the file to write (-o FILE)", field="--out")
    if with_solutions is not None and fmt != "xmpuzzle":
        raise CpsolveError("only the xmpuzzle format stores solutions", field="--with-solutions")
    if fmt == "stl" and output.suffix.lower() not in ("", ".zip"):
        raise CpsolveError(f"{output}: the STL export is one file per piece: name a folder (no suffix) or a .zip",
                           field="--out")
    src = api.source(model, problem)
    puzzle = src.require_puzzle("export")
    inputs = inputs_of(src, *([] if with_solutions is None else [(with_solutions, "the --with-solutions file")]))
    if fmt != "stl" or output.suffix.lower() == ".zip":
        api.check_output(output, inputs, "--out")
    held = 0

    def counted_as_read(solutions: Iterator[Solution]) -> Iterator[Solution]:
        nonlocal held
        for solution in solutions:
            held += 1
            yield solution

    solutions = counted_as_read(_held(with_solutions)) if with_solutions is not None else iter(())
    data = api.export(puzzle, fmt, symmetry_breaking=symmetry_breaking, encoding=encoding,  # type: ignore[call-overload]
                      solutions=solutions, unit=unit, clearance=clearance)
    if isinstance(data, dict) and output.suffix.lower() == ".zip":  # stl: one file per piece, zipped
        import io
        import zipfile

        zipped = io.BytesIO()
        with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, solid in data.items():
                archive.writestr(name, solid)
        api.write_output(output, zipped.getvalue(), inputs, "--out")
    elif isinstance(data, dict):  # stl: one file per piece in the folder -o names
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CpsolveError(f"cannot make the folder: {exc.strerror or exc}", where=str(output),
                               exit_code=1) from None
        for name in data:
            api.check_output(output / name, inputs, "--out")
        for name, solid in data.items():
            api.write_output(output / name, solid, inputs, "--out")
    else:
        api.write_output(output, data, inputs, "--out")
    if fmt == "stl":
        copies = sum(p.count for p in puzzle.pieces)
        what = (f"{counted(len(data), 'STL file')} written to {output} ({counted(copies, 'piece')} to print: "
                f"NAME-xK.stl K times, {unit:g} mm cubes, clearance {clearance:g} mm)")
    elif fmt == "xmpuzzle":
        what = (f"{counted(len(puzzle.pieces), 'piece')} and {counted(held, 'solution')} written to {output} "
                "(BurrTools xmpuzzle)")
    else:
        what = f"{'symmetry-broken ' if symmetry_breaking else ''}problem written to {output} ({fmt})"
    typer.echo(api.printable(f"{puzzle.name}: {what}"), err=True)


def _held(text: str) -> Iterator[Solution]:
    """The solutions `--with-solutions` names, one at a time: a solutions file's (read as they are written
    out), or those a BurrTools file stores."""
    from .. import api

    src = api.source(text)
    if src.kind not in ("solutions", "xmpuzzle"):
        raise CpsolveError(f"{text} is {src.what}: give a solutions file (or a BurrTools file with stored "
                           "assemblies)", field="--with-solutions")
    return src.each()


@app.command()
def decode(
    model: ModelArg,
    cnf_file: Annotated[Path, typer.Argument(help="The CNF written by `cpsolve export --format dimacs`.")],
    solver_output: Annotated[Path, typer.Argument(help="The SAT solver's output (s and v lines).")],
    problem: ProblemOpt = None,
) -> None:
    """Check a SAT solver's answer to an exported CNF and draw the solution.

    Exit 0: a verified solution (drawn). Exit 1: the solver said UNSATISFIABLE or UNKNOWN. Exit 2: the
    files were rejected (another model or options, edited CNF, malformed output, a wrong assignment).
    """
    from .. import api

    puzzle = puzzle_of(model, problem, "decode")
    found = api.decode(puzzle, cnf_file, solver_output)
    if found.solution is None:
        typer.echo(found.status)
        raise typer.Exit(1)
    typer.echo(str(found.solution))
    typer.echo(f"\nverified: the answer satisfies every clause of {api.printable(str(cnf_file))} and is a solution of "
               f"{api.printable(puzzle.name)}",
               err=True)
