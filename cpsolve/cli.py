"""The `cpsolve` command line: the only place that prints, reads options and picks exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .errors import CpsolveError
from .search.backends.base import Status

if TYPE_CHECKING:
    from .analysis.compare import CompareRow
    from .analysis.report import ReportRow
    from .search.result import EnumerationResult, SolutionClass

app = typer.Typer(
    help="Solve, count and compare solvers on polycube packing and snake-cube puzzles.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

ModelArg = Annotated[str, typer.Argument(help="A built-in model name (see `cpsolve list`) or a puzzle file path.")]
BackendOpt = Annotated[
    str, typer.Option("--backend", "-b", help="Solver backend; auto = dlx for packings, sat for chains (`cpsolve backends`).")
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", "-w", min=1, show_default="all cores", help="Processes to split the search over."),
]
TimeoutOpt = Annotated[float | None, typer.Option(help="Give up after this many seconds.")]


OPTION_NAMES = {"backend": "--backend", "encoding": "--encoding", "format": "--format", "timeout": "--timeout"}
"""Core errors name a concept; on the command line it is the option that sets it."""


def main() -> None:
    try:
        app()
    except CpsolveError as exc:
        if exc.where is None and exc.field in OPTION_NAMES:
            exc = CpsolveError(exc.message, field=OPTION_NAMES[exc.field], exit_code=exc.exit_code)
        typer.echo(f"cpsolve: error: {exc}", err=True)
        sys.exit(exc.exit_code)


@app.command("list")
def list_models() -> None:
    """The built-in models with their piece count, volume and source."""
    from .puzzle.catalog import builtin_names, load

    rows = []
    for name in builtin_names():
        puzzle = load(name)
        pieces = str(puzzle.n_pieces) if puzzle.kind == "pieces" else f"chain of {puzzle.n_pieces}"
        source = " ".join(puzzle.source.split())
        rows.append((name, pieces, str(len(puzzle.container)), source if len(source) <= 70 else source[:69] + "…"))
    _table(("model", "pieces", "volume", "source"), rows)


@app.command()
def schema() -> None:
    """Print the JSON Schema of puzzle files."""
    from .puzzle.schema import PuzzleFile

    typer.echo(json.dumps(PuzzleFile.model_json_schema(), indent=2))


@app.command("enumerate")
def enumerate_cmd(
    model: ModelArg,
    backend: BackendOpt = "auto",
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object with the counts on stdout.")] = False,
    out: Annotated[
        Path | None,
        typer.Option(show_default="NAME.solutions.jsonl, NAME from the puzzle file",
                     help="JSON-lines file for the canonical solutions."),
    ] = None,
    save: Annotated[bool, typer.Option(help="Write the canonical solutions to a file.")] = True,
    limit: Annotated[int, typer.Option(min=0, help="Stop after this many solutions up to symmetry (0 = all).")] = 0,
    symmetry_breaking: Annotated[bool, typer.Option(help="Fix a key piece to one placement per orbit.")] = True,
    timeout: TimeoutOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Find every solution and count them: in all, up to rotation, and up to rotation and reflection."""
    from .output.progress import StderrProgress
    from .output.solutions import class_line, labelled
    from .puzzle.catalog import load
    from .search.backends import for_problem
    from .search.enumeration import enumerate_classes, prepare

    puzzle = load(model)
    prepared = prepare(puzzle, symmetry_breaking)
    engine = for_problem(backend, prepared.problem)
    path = (out or Path(f"{puzzle.name}.solutions.jsonl")) if save else None
    sink = _open_output(path)
    problem = prepared.problem

    def on_class(cls: SolutionClass) -> None:
        if sink is not None:
            pieces = labelled(problem, cls.placements)
            sink.write(class_line(prepared.name, cls.index, cls.assemblies, cls.mirror_distinct, pieces) + "\n")
            sink.flush()

    progress = None if quiet else StderrProgress()
    try:
        result = enumerate_classes(
            prepared, engine, limit=limit, timeout=timeout, workers=workers or default_workers(),
            on_class=on_class, progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()
        if sink is not None:
            sink.close()
    if as_json:
        typer.echo(json.dumps({**result.as_json(), "solutions_file": str(path) if path else None}))
    else:
        _print_summary(result, path)
    if result.status is Status.INTERRUPTED:
        raise typer.Exit(130)


def default_workers() -> int:
    """All cores this process may use (cgroup/affinity aware where the platform says)."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _open_output(path: Path | None):
    if path is None:
        return None
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the solutions file: {exc.strerror}", where=str(path)) from None


def _print_summary(result: EnumerationResult, path: Path | None) -> None:
    c = result.counts()
    complete = result.status is Status.COMPLETE
    head = "" if complete else f"{result.status.value.upper()} (counts so far, incomplete): "
    typer.echo(
        f"{result.puzzle}: {head}{c['total']} solutions in all, {c['unique_rotation']} up to rotation, "
        f"{c['unique_symmetry']} up to rotation and reflection"
    )
    typer.echo(f"backend {result.backend}; {result.key}; {result.seconds:.2f} s")
    if path is not None:
        typer.echo(f"{c['unique_symmetry']} canonical solutions written to {path}")


@app.command()
def solve(
    model: ModelArg,
    backend: BackendOpt = "auto",
    timeout: TimeoutOpt = None,
    symmetry_breaking: Annotated[bool, typer.Option(help="Fix a key piece to one placement per orbit.")] = True,
) -> None:
    """Find one solution and draw it as z-layers, one letter per piece."""
    from .output.solutions import labelled, rows_as_placements
    from .output.text import draw
    from .puzzle.catalog import load
    from .search.backends import for_problem
    from .search.enumeration import first_solution, prepare

    prepared = prepare(load(model), symmetry_breaking)
    rows, stats = first_solution(prepared, for_problem(backend, prepared.problem), timeout)
    problem = prepared.broken.problem
    if rows is None:
        what = "timed out before finding a solution" if stats.status is Status.TIMEOUT else "has no solution"
        typer.echo(f"{prepared.name}: {what} ({stats.backend}, {stats.seconds:.2f} s)")
        raise typer.Exit(1)
    typer.echo(draw(labelled(problem, rows_as_placements(problem, rows))))
    typer.echo(f"\nfound by {stats.backend} in {stats.seconds:.2f} s")


@app.command()
def show(
    file: Annotated[Path, typer.Argument(help="A JSON-lines file written by `cpsolve enumerate`.")],
    index: Annotated[int, typer.Option(min=0, help="Which solution (0-based).")] = 0,
) -> None:
    """Draw one solution of an earlier enumeration."""
    from .output.solutions import read_solution_line
    from .output.text import draw

    record = read_solution_line(file, index)
    typer.echo(f"{record.get('puzzle', file.name)}, solution {index} (assemblies: {record.get('assemblies', '?')})")
    typer.echo(draw(record["pieces"]))


@app.command("backends")
def list_backends() -> None:
    """The solver backends, whether they work here, and their versions."""
    from .search.backends import backend_class, names

    rows = []
    for name in names():
        cls = backend_class(name)
        ok = cls.supported()
        rows.append((name, "yes" if ok else "no", cls.version() if ok else cls.install_hint, cls.description))
    _table(("backend", "available", "version", "what"), rows)


@app.command()
def compare(
    model: ModelArg,
    backends: Annotated[str, typer.Option(help="Comma-separated backends to run.")] = "cpsat,sat,dlx",
    timeout: Annotated[float | None, typer.Option(help="Per backend and per run, in seconds.")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Processes per backend.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
    out: Annotated[Path | None, typer.Option(help="Append the rows, one JSON object per line.")] = None,
) -> None:
    """Run one model on several backends; the counts must agree (exit 1 names the one that does not).

    Each backend runs alone in a child process: time to first solution, time for all, CPU seconds
    and peak memory are its own. One worker by default, so the figures compare engines core for core.
    """
    from .analysis.compare import disagreement, measure
    from .puzzle.catalog import load

    puzzle = load(model)
    rows = []
    for spec in [b.strip() for b in backends.split(",") if b.strip()]:
        row = measure(puzzle, spec, timeout, workers)
        rows.append(row)
        if not as_json:
            typer.echo(f"{row.backend}: {row.status} ({row.all_seconds or 0:.2f} s)", err=True)
        if row.status == "interrupted":
            break
    if out is not None:
        with out.open("a", encoding="utf-8") as sink:
            sink.writelines(json.dumps(r.as_json()) + "\n" for r in rows)
    if as_json:
        typer.echo(json.dumps([r.as_json() for r in rows]))
    else:
        _compare_table(rows)
    ref = puzzle.reference
    problem = disagreement(rows, ref.counts() if ref else None)
    if problem is not None:
        raise CpsolveError(problem, where=puzzle.name, exit_code=1)
    if any(r.status == "interrupted" for r in rows):
        raise typer.Exit(130)


def _compare_table(rows: list[CompareRow]) -> None:
    def num(v: float | None, unit: str = "") -> str:
        return "-" if v is None else f"{v:.3f}{unit}" if v < 10 else f"{v:.1f}{unit}"

    _table(
        ("backend", "status", "first (s)", "all (s)", "cpu (s)", "peak MB", "total", "rotation", "symmetry"),
        [(r.backend, r.status if not r.note else f"{r.status}: {r.note}", num(r.first_seconds), num(r.all_seconds),
          num(r.cpu_seconds), "-" if r.peak_mb is None else f"{r.peak_mb:.0f}",
          *("-" if c is None else str(c) for c in r.counts)) for r in rows],
    )


@app.command()
def report(
    models: Annotated[
        list[str] | None, typer.Argument(show_default="every built-in model", help="Models to run.")
    ] = None,
    backend: BackendOpt = "auto",
    workers: WorkersOpt = None,
    timeout: Annotated[float | None, typer.Option(help="Per model, in seconds.")] = None,
    out_dir: Annotated[Path, typer.Option(help="Where counts.md and counts.json are written.")] = Path("results"),
) -> None:
    """Run every built-in model and write the counts table (results/counts.md and .json)."""
    from .analysis.report import run_report
    from .output.tables import render_json, render_markdown
    from .problem.canonical import counts_text
    from .puzzle.catalog import builtin_names

    names = models or builtin_names()
    n_workers = workers or default_workers()
    command = " ".join(["cpsolve report", *(models or []), f"--backend {backend}", f"--workers {n_workers}",
                        *([f"--timeout {timeout:g}"] if timeout else []), f"--out-dir {out_dir}"])

    def show(row: ReportRow) -> None:
        counts = (counts_text((row.total, row.unique_rotation, row.unique_symmetry)) if row.mode == "enumerate"
                  else "solved" if row.matches else f"not solved ({row.status})")
        typer.echo(f"{row.model}: {counts} ({row.seconds:.2f} s) {'ok' if row.matches else 'MISMATCH'}", err=True)

    rows = run_report(names, backend, timeout, n_workers, show)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "counts.md").write_text(render_markdown(rows, command), encoding="utf-8")
    (out_dir / "counts.json").write_text(render_json(rows, command), encoding="utf-8")
    typer.echo(f"wrote {out_dir / 'counts.md'} and {out_dir / 'counts.json'}")
    if not all(r.matches for r in rows):
        raise typer.Exit(1)


@app.command("export")
def export_cmd(
    model: ModelArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The file to write.")],
    fmt: Annotated[str, typer.Option("--format", help="dimacs (CNF, any SAT solver) or xcc (Knuth's DLX).")] = "dimacs",
    encoding: Annotated[str | None, typer.Option(help="Cardinality encoding of the CNF (pysat's names).")] = None,
    symmetry_breaking: Annotated[bool, typer.Option(help="Export the symmetry-broken problem.")] = True,
) -> None:
    """Write the puzzle for an external solver: DIMACS CNF (decode the answer with `cpsolve decode`) or XCC."""
    from .output.exchange import write_dimacs, write_xcc
    from .problem.cnf import DEFAULT_ENCODING, encode
    from .puzzle.catalog import load
    from .search.enumeration import prepare

    if fmt not in ("dimacs", "xcc"):
        raise CpsolveError(f"unknown format {fmt!r} (known: dimacs, xcc)", field="--format")
    prepared = prepare(load(model))
    problem = prepared.broken.problem if symmetry_breaking else prepared.problem
    if fmt == "xcc":
        text = write_xcc(problem)
    else:
        meta = {"puzzle": prepared.name, "symmetry-breaking": "on" if symmetry_breaking else "off"}
        text = write_dimacs(encode(problem, encoding or DEFAULT_ENCODING), problem, meta)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror}", where=str(output)) from None
    typer.echo(f"{prepared.name}: {len(problem.rows)} placements written to {output} ({fmt})", err=True)


@app.command()
def decode(
    model: ModelArg,
    cnf_file: Annotated[Path, typer.Argument(help="The CNF written by `cpsolve export --format dimacs`.")],
    solver_output: Annotated[Path, typer.Argument(help="The SAT solver's output (s and v lines).")],
) -> None:
    """Check a SAT solver's answer to an exported CNF and draw the solution.

    Exit 0: a verified solution (drawn). Exit 1: the solver said UNSATISFIABLE or UNKNOWN. Exit 2: the
    files were rejected (another model or options, edited CNF, malformed output, a wrong assignment).
    """
    from .output.exchange import decode as decode_answer
    from .output.solutions import labelled, rows_as_placements
    from .output.text import draw
    from .puzzle.catalog import load
    from .puzzle.loader import read_text
    from .search.enumeration import prepare

    prepared = prepare(load(model))
    result = decode_answer(prepared, read_text(cnf_file), str(cnf_file), read_text(solver_output), str(solver_output))
    if result.problem is None:
        typer.echo(result.status)
        raise typer.Exit(1)
    typer.echo(draw(labelled(result.problem, rows_as_placements(result.problem, result.rows))))


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        typer.echo("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
