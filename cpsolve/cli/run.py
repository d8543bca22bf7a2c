"""The commands that run a model and report on it: list, schema, enumerate, solve, show, backends,
compare, report, with their helpers (the journal of a run, the summary, `enumerate --disassemble`).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import limits
from ..errors import CpsolveError
from ..search.backends.base import Status
from . import common  # common.STARTED, read when used: main() resets it for a later run in this process
from .common import (
    BackendOpt,
    ModelArg,
    TimeoutOpt,
    WorkersOpt,
    _alarm_at_deadline,
    _alarm_off,
    _check_timeout,
    _open_output,
    _remaining,
    _table,
    app,
    default_workers,
)

if TYPE_CHECKING:
    from ..analysis.compare import CompareRow
    from ..analysis.report import ReportRow
    from ..search.enumeration import JournalPlan
    from ..search.result import EnumerationResult, SolutionClass


@app.command("list")
def list_models() -> None:
    """The built-in models with their piece count, volume and source."""
    from ..puzzle.catalog import builtin_names, load

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
    from ..puzzle.schema import PuzzleFile

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
    disassemble: Annotated[bool, typer.Option(
        "--disassemble",
        help="Take each solution apart: assemblies vs solutions, levels (see `cpsolve disassemble`).")] = False,
    min_level: Annotated[str | None, typer.Option(
        help="With --disassemble: write only solutions at this level or above (5, 1.2, ...).")] = None,
    journal: Annotated[Path | None, typer.Option(
        show_default="SOLUTIONS_FILE.journal, removed once the run is complete",
        help="SQLite journal of finished subproblems, to --resume a run after a crash or a stop.")] = None,
    no_journal: Annotated[bool, typer.Option("--no-journal", help="Keep no journal (a run cannot be resumed).")
                          ] = False,
    resume: Annotated[bool, typer.Option(
        help="Continue the run the journal holds: skip its finished subproblems, keep its solutions.")] = False,
    cluster: Annotated[str | None, typer.Option(
        help="Run the subproblems on a Dask cluster: tcp://HOST:8786, or local:N for N local worker processes "
             "(pip install 'cpsolve[cluster]').")] = None,
) -> None:
    """Find every solution and count them: in all, up to rotation, and up to rotation and reflection."""
    from ..output.progress import make_progress
    from ..output.solutions import LineWriter, SolutionsFile, check_destination, default_solutions_path, labelled
    from ..output.text import printable
    from ..puzzle.catalog import load
    from ..search.backends import for_problem
    from ..search.enumeration import enumerate_classes, prepare
    from ..search.journal import remove

    _alarm_at_deadline(timeout)
    began = time.perf_counter()
    puzzle = load(model)
    apart = _Disassembling(puzzle, min_level) if disassemble or min_level is not None else None
    if apart is not None and puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", field="--disassemble")
    n_workers = workers or default_workers()
    prepared = prepare(puzzle, symmetry_breaking, n_workers)
    engine = for_problem(backend, prepared.problem)
    _alarm_off()
    prepare_seconds = time.perf_counter() - began
    path = (out or default_solutions_path(puzzle.name)) if save else None
    source = Path(puzzle.origin) if puzzle.origin and Path(puzzle.origin).is_file() else None
    if path is not None:
        check_destination(path, source)
    book = _journal_plan(journal, not no_journal, resume, path, source)
    sink: SolutionsFile | None = None
    problem = prepared.problem
    lines = LineWriter(prepared.name, problem)

    def ready(resumed: bool) -> None:
        """The journal is sound and open: only now is the solutions file emptied (or, resumed, kept)."""
        nonlocal sink
        if path is not None:
            sink = SolutionsFile(path, keep=resumed)

    def on_class(cls: SolutionClass) -> None:
        extra = None if apart is None else apart.add(labelled(problem, cls.placements), cls)
        if sink is not None and (apart is None or extra is not None):
            sink.write(lines.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, extra))

    progress = None if quiet else make_progress()
    try:
        result = enumerate_classes(
            prepared, engine, limit=limit, timeout=_remaining(timeout), workers=n_workers,
            on_class=on_class, progress=progress, journal=book, cluster=cluster, on_ready=ready,
        )
    except BaseException:
        if sink is not None:  # the first error is the one to report, not a second one from closing
            with contextlib.suppress(CpsolveError):
                sink.close()
        raise
    finally:
        if progress is not None:
            progress.close()
    if sink is not None:
        sink.close()
    complete = result.status is Status.COMPLETE
    if book is not None and complete and journal is None:
        remove(book.path)  # the default journal has served its purpose
    if as_json:
        more: dict[str, object] = {} if apart is None else {"disassembly": apart.tally.as_json()}
        if book is not None:
            more["journal"] = None if complete and journal is None else str(book.path)
        typer.echo(json.dumps({**result.as_json(), "prepare_seconds": round(prepare_seconds, 4),
                               "solutions_file": str(path) if path else None, **more}))
    else:
        _print_summary(result, path)
        if book is not None and not complete:
            typer.echo(f"journal {printable(str(book.path))}: {result.subproblems_done} of {result.subproblems} "
                       "subproblems done; the same command with --resume continues the run")
        if (puzzle.origin or "").lower().endswith(".xmpuzzle"):
            c = result.counts()
            typer.echo(f"BurrTools counts assemblies up to rotation and, unless 'Keep Mirror Solutions' is on, "
                       f"reflection: compare {c['unique_symmetry']} (burrTxt) or {c['unique_rotation']} (kept mirrors)")
        if apart is not None:
            apart.print_summary()
    if result.status is Status.INTERRUPTED:
        raise typer.Exit(130)


def _journal_plan(path: Path | None, use: bool, resume: bool, solutions: Path | None,
                  puzzle: Path | None) -> JournalPlan | None:
    """Where the run is journalled: --journal PATH, else beside the solutions file (unless that is a device
    or a pipe); none with --no-journal (or --no-save and no --journal)."""
    from ..search.enumeration import JournalPlan
    from ..search.journal import default_journal

    if not use:
        if resume:
            raise CpsolveError("needs a journal: leave out --no-journal", field="--resume")
        return None
    where = path or (None if solutions is None else default_journal(solutions))
    if where is None:
        if resume:
            why = "with --no-save" if solutions is None else "the solutions go to a device or a pipe"
            raise CpsolveError(f"{why}, name the journal with --journal PATH", field="--resume")
        return None
    others = [(p, what) for p, what in ((solutions, "the solutions file (--out)"), (puzzle, "the puzzle file"))
              if p is not None]
    return JournalPlan(where, resume, ("cpsolve", *sys.argv[1:]), tuple(others))


def _print_summary(result: EnumerationResult, path: Path | None) -> None:
    from ..output.text import printable

    c = result.counts()
    complete = result.status is Status.COMPLETE
    head = "" if complete else f"{result.status.value.upper()} (counts so far, incomplete): "
    typer.echo(
        f"{printable(result.puzzle)}: {head}{c['total']} solutions in all, {c['unique_rotation']} up to rotation, "
        f"{c['unique_symmetry']} up to rotation and reflection"
    )
    why = f" (chosen by auto: {result.backend_reason})" if result.backend_reason else ""
    typer.echo(f"backend {result.backend}{why}; {result.key}; {result.seconds:.2f} s")
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
    from ..output.solutions import labelled, rows_as_placements
    from ..output.text import draw, printable
    from ..puzzle.catalog import load
    from ..search.backends import for_problem
    from ..search.enumeration import first_solution, prepare

    _alarm_at_deadline(timeout)
    prepared = prepare(load(model), symmetry_breaking)
    engine = for_problem(backend, prepared.problem)
    _alarm_off()
    rows, stats = first_solution(prepared, engine, _remaining(timeout))
    problem = prepared.broken.problem
    if rows is None:
        what = "timed out before finding a solution" if stats.status is Status.TIMEOUT else "has no solution"
        typer.echo(f"{printable(prepared.name)}: {what} ({stats.backend}, {stats.seconds:.2f} s)")
        raise typer.Exit(1)
    typer.echo(draw(labelled(problem, rows_as_placements(problem, rows))))
    typer.echo(f"\nfound by {stats.backend} in {stats.seconds:.2f} s")


@app.command()
def show(
    file: Annotated[Path, typer.Argument(help="A JSON-lines file written by `cpsolve enumerate`.")],
    index: Annotated[int, typer.Option(min=0, help="Which solution (0-based).")] = 0,
) -> None:
    """Draw one solution of an earlier enumeration."""
    from ..output.solutions import read_solution_line
    from ..output.text import draw, printable

    record = read_solution_line(file, index)
    try:
        picture = draw(record["pieces"])
    except CpsolveError as exc:
        raise exc.located(f"{file}:{index + 1}") from None
    name, assemblies = str(record.get("puzzle", file.name)), record.get("assemblies", "?")
    typer.echo(printable(f"{name}, solution {index} (assemblies: {assemblies})"))
    typer.echo(picture)


@app.command("backends")
def list_backends() -> None:
    """The solver backends, whether they work here, and their versions."""
    from ..search.backends import backend_class, names

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
    timeout: Annotated[float | None, typer.Option(help="Per backend and per run, in seconds.",
                                                  callback=lambda v: _check_timeout(v))] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, max=limits.MAX_WORKERS,
                                         help="Processes per backend.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
    out: Annotated[Path | None, typer.Option(help="Append the rows, one JSON object per line.")] = None,
) -> None:
    """Run one model on several backends; the counts must agree (exit 1 names the one that does not).

    Each backend runs alone in a child process: time to first solution, time for all, CPU seconds
    and peak memory are its own. One worker by default, so the figures compare engines core for core.
    """
    from .. import api
    from ..puzzle.catalog import load
    from ..search.backends import BackendUnavailable

    puzzle = load(model)
    sink = _open_output(out, "a")
    write_error: str | None = None

    def show(row: CompareRow) -> None:
        nonlocal write_error
        if not as_json:
            typer.echo(f"{row.backend}: {row.status} ({row.all_seconds or 0:.2f} s)", err=True)
        if sink is not None and write_error is None:
            try:  # each row as soon as it is measured: an interrupted comparison keeps what it finished
                sink.write(json.dumps(row.as_json()) + "\n")
                sink.flush()
            except OSError as exc:
                write_error = f"cannot write the file: {exc.strerror or exc} (the rows are printed above)"

    try:
        try:
            result = api.compare(puzzle, backends.split(","), timeout=timeout, workers=workers, on_row=show)
        except BackendUnavailable as exc:  # an unknown name or a misplaced option, before anything ran
            raise CpsolveError(exc.message, field="--backends") from None
    finally:
        if sink is not None:
            try:
                sink.close()
            except OSError as exc:
                write_error = write_error or f"cannot write the file: {exc.strerror or exc}"
    rows = list(result.rows)
    if as_json:
        typer.echo(json.dumps([r.as_json() for r in rows]))
    else:
        _compare_table(rows)
    if write_error is not None:
        raise CpsolveError(write_error, where=str(out), exit_code=1)
    result.check()
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
    timeout: Annotated[float | None, typer.Option(help="Per model, in seconds.",
                                                  callback=lambda v: _check_timeout(v))] = None,
    out_dir: Annotated[Path | None, typer.Option(
        show_default="results, when every built-in model ran to the end",
        help="Where counts.md and counts.json are written.")] = None,
) -> None:
    """Run every built-in model and write the counts table (results/counts.md and .json).

    The tracked table in results/ is only replaced by a full, finished run; a subset of models, a
    run cut short by --timeout or Ctrl-C, prints its table instead (or writes it to the --out-dir you
    name). Exit status 1 only when a finished run disagrees with its reference counts.
    """
    from ..analysis.report import run_report
    from ..output.tables import render_json, render_markdown
    from ..problem.canonical import counts_text
    from ..puzzle.catalog import builtin_names

    names = models or builtin_names()
    n_workers = workers or default_workers()
    if out_dir is not None:
        _check_out_dir(out_dir)
    shown_dir = out_dir or Path("results")
    command = " ".join(["cpsolve report", *(models or []), f"--backend {backend}", f"--workers {n_workers}",
                        *([f"--timeout {timeout:g}"] if timeout else []), f"--out-dir {shown_dir}"])

    def show(row: ReportRow) -> None:
        counts = (counts_text((row.total, row.unique_rotation, row.unique_symmetry)) if row.mode == "enumerate"
                  else "solved" if row.matches else f"not solved ({row.status})")
        verdict = "ok" if row.matches else "MISMATCH" if row.finished else f"incomplete ({row.status})"
        typer.echo(f"{row.model}: {counts} ({row.seconds:.2f} s) {verdict}", err=True)

    rows = run_report(names, backend, timeout, n_workers, show, started=common.STARTED)
    everything = not models and len(rows) == len(names) and all(r.finished for r in rows)
    markdown, as_json = render_markdown(rows, command), render_json(rows, command)
    if out_dir is None and not everything:
        typer.echo(markdown)
        typer.echo("not written: only a finished run of every built-in model replaces results/; "
                   "--out-dir DIR writes this one",
                   err=True)
    else:
        target = out_dir or Path("results")
        try:
            target.mkdir(parents=True, exist_ok=True)
            (target / "counts.md").write_text(markdown, encoding="utf-8")
            (target / "counts.json").write_text(as_json, encoding="utf-8")
        except OSError as exc:
            typer.echo(markdown)  # the finished results are not lost
            raise CpsolveError(f"cannot write the table: {exc.strerror or exc} (printed above instead)",
                               where=str(target), exit_code=1) from None
        typer.echo(f"wrote {target / 'counts.md'} and {target / 'counts.json'}")
    if any(r.finished and not r.matches for r in rows):
        raise typer.Exit(1)
    if any(r.status == Status.INTERRUPTED.value for r in rows):
        raise typer.Exit(130)


def _check_out_dir(path: Path) -> None:
    """A destination folder is checked before a long run, not after it (when the results would be lost)."""
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise CpsolveError(f"cannot write there: {exc.strerror or exc}", where=str(path), field="--out-dir") from None


class _Disassembling:
    """`enumerate --disassemble`: takes each new solution class apart in this process, as it streams in,
    and keeps the tally of assemblies against solutions and levels."""

    def __init__(self, puzzle: object, min_level: str | None) -> None:
        from ..analysis.disassembly import LevelTally, parse_level, puzzle_groups

        try:
            self.min_level = None if min_level is None else parse_level(min_level)
        except ValueError as exc:
            raise CpsolveError(str(exc), field="--min-level") from None
        self.groups = puzzle_groups(puzzle)
        self.tally = LevelTally()
        self.kept = 0

    def add(self, pieces: dict[str, list[tuple[int, int, int]]], cls: SolutionClass) -> dict[str, object] | None:
        """Disassemble one class; the extra keys of its solutions-file line, or None to leave it out."""
        from ..analysis.disassembly import disassemble

        found = disassemble(pieces, self.groups)
        level = found.level()
        self.tally.add(cls.assemblies, cls.mirror_distinct, level)
        if self.min_level is not None and (level is None or level < self.min_level):
            return None
        self.kept += 1
        return {"level": found.level_text(), "moves": [m.as_json() for m in found.moves()]}

    def print_summary(self) -> None:
        from ..analysis.disassembly import format_level
        from ..problem.canonical import counts_text

        t = self.tally
        typer.echo(f"assemblies (in all / up to rotation / and reflection): {counts_text(t.assemblies)}")
        typer.echo(f"solutions, i.e. assemblies that come apart:             {counts_text(t.solutions)}")
        if t.levels:
            typer.echo("levels (solutions up to rotation and reflection):")
            for level, n in sorted(t.levels.items()):
                typer.echo(f"  {format_level(level):>12}  {n:>6}  {'#' * min(n, 60)}")
            hi = t.highest()
            typer.echo(f"highest level: {format_level(hi) if hi else '-'}")
        if self.min_level is not None:
            typer.echo(f"--min-level {format_level(self.min_level)}: only the {self.kept} solution classes at that "
                       "level or above went into the solutions file")
