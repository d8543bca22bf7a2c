"""The `cpsolve` command line: the only place that prints, reads options and picks exit codes."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import signal
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

STARTED = time.time()
"""When this command started (before its imports): `--timeout` is a deadline counted from here."""


def _quiet_exit(signum: int, _frame: object) -> None:
    """Ctrl-C, SIGTERM or SIGHUP while cpsolve is still importing: nothing to tidy, no traceback."""
    os._exit(128 + signum)


_ARGV0 = Path(sys.argv[0])
if _ARGV0.name == "cpsolve" or _ARGV0.parts[-2:] == ("cpsolve", "__main__.py"):  # the program, not a test's import
    for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(_sig, _quiet_exit)

import typer  # noqa: E402 - after the handlers above, so that an early Ctrl-C prints no traceback
from typer import Abort  # noqa: E402
from typer._click.exceptions import ClickException, NoArgsIsHelpError  # noqa: E402

from . import limits  # noqa: E402
from .errors import CpsolveError, CpsolveNotice  # noqa: E402
from .search.backends.base import Status  # noqa: E402

if TYPE_CHECKING:
    from .analysis.compare import CompareRow
    from .analysis.report import ReportRow
    from .api import Solution
    from .puzzle.model import Puzzle
    from .search.enumeration import JournalPlan
    from .search.result import EnumerationResult, SolutionClass

app = typer.Typer(
    help="Solve, count, take apart, draw and design polycube packing, burr and snake-cube puzzles; compare solver "
    "backends on the same model.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

ModelArg = Annotated[str, typer.Argument(help="A built-in model name (see `cpsolve list`) or a puzzle file path.")]
BackendOpt = Annotated[
    str,
    typer.Option("--backend", "-b",
                 help="Solver backend; auto = dlx for packings, sat for chains (`cpsolve backends`)."),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", "-w", min=1, max=limits.MAX_WORKERS, show_default="all cores",
                 help="Processes to split the search over."),
]
TimeoutOpt = Annotated[
    float | None, typer.Option(help="Give up after this many seconds.", callback=lambda v: _check_timeout(v))
]


OPTION_NAMES = {"backend": "--backend", "backends": "--backends", "encoding": "--encoding", "format": "--format",
                "timeout": "--timeout", "unit": "--unit", "clearance": "--clearance", "solutions": "--with-solutions",
                "view": "--view", "cluster": "--cluster"}
"""Core errors name a concept; on the command line it is the option that sets it."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_stopped_by: list[int] = []
"""The stop signals received, so that the exit status says which (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM and SIGHUP end a run exactly like Ctrl-C: incomplete summary, consistent file, no orphans."""
    _stopped_by.append(signum)
    raise KeyboardInterrupt


_runs: list[float] = []
"""When each `main()` of this process started."""


def _notice(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
    """Warnings from the stages below (which never print) as one line on stderr."""
    label = "note" if issubclass(category, CpsolveNotice) else "warning"
    print(f"cpsolve: {label}: {message}", file=sys.stderr)


def _exit_status(code: int) -> int:
    return 128 + _stopped_by[-1] if code == 130 and _stopped_by else code


def main() -> None:
    """Run the command line; every failure is one line on stderr and an exit status, never a traceback.

    2: bad input (a file, an option); 1: a failure while running; 130/143/129: stopped by Ctrl-C,
    SIGTERM, SIGHUP. Set CPSOLVE_DEBUG=1 to see the traceback of an unexpected error.
    """
    global STARTED
    if _runs:  # a later run in the same process (tests): its deadline counts from now, not from the import
        STARTED = time.time()
    _runs.append(STARTED)
    if sys.stdout is None:  # started with stdout closed (`>&-`): every command's answer would be lost
        print("cpsolve: error: standard output is closed", file=sys.stderr)
        sys.exit(1)
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop)
    warnings.showwarning = _notice
    try:
        try:
            code = app(standalone_mode=False)
        finally:
            _alarm_off()
        _flush_stdout()
    except CpsolveError as exc:
        if exc.where is None and exc.field in OPTION_NAMES:
            exc = CpsolveError(exc.message, field=OPTION_NAMES[exc.field], exit_code=exc.exit_code)
        _fail(str(exc), exc.exit_code)
    except NoArgsIsHelpError as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except ClickException as exc:
        _fail(" ".join(exc.format_message().split()), exc.exit_code)
    except Abort:
        _fail("aborted", 1)
    except _PreparationDeadline as exc:
        _fail(str(exc), 1)
    except KeyboardInterrupt:
        sys.exit(_exit_status(130))
    except MemoryError:
        _fail("out of memory (a smaller puzzle, or the --max-* limits, keep a run within the machine's memory)", 1)
    except OSError as exc:
        if os.environ.get("CPSOLVE_DEBUG"):
            raise
        output = "cannot write the output: " if exc.errno in _OUTPUT_ERRORS else ""
        where = f"{exc.filename}: " if exc.filename else output
        _fail(f"{where}{exc.strerror or exc}", 1)
    except Exception as exc:
        if os.environ.get("CPSOLVE_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (CPSOLVE_DEBUG=1 shows where)", 1)
    sys.exit(_exit_status(code if isinstance(code, int) else 0))


_OUTPUT_ERRORS = {errno.EPIPE, errno.ENOSPC, errno.EIO}
"""stdout (or stderr) closed early, or on a full or failing device."""


def _flush_stdout() -> None:
    """Write what is buffered for stdout now, while a failure (a closed pipe, a full disk) can still be
    reported in one line, rather than by the interpreter's shutdown."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _fail(message: str, code: int) -> None:
    # A file can put anything in a name or a key ("\r", "\n", escape sequences): shown escaped, so
    # that the message stays one line and cannot rewrite the terminal.
    message = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)
    try:
        sys.stderr.write(f"cpsolve: error: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        _flush_stdout()
    except (OSError, ValueError):
        # stdout is closed or full: what it still holds cannot be written; point it at /dev/null so
        # that the interpreter's final flush does not print a traceback of its own.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    sys.exit(_exit_status(code))


@app.callback()
def _limits(
    max_cells: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_CELLS", show_default=str(
        limits.Limits.max_cells), help="Largest container (cells; a chain's cubes).")] = None,
    max_placements: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_PLACEMENTS", show_default=str(
        limits.Limits.max_placements), help="Most placements, estimated before they are generated.")] = None,
    max_file_bytes: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_FILE_BYTES", show_default=str(
        limits.Limits.max_file_bytes), help="Largest puzzle file.")] = None,
    max_yaml_nodes: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_YAML_NODES", show_default=str(
        limits.Limits.max_yaml_nodes), help="Largest YAML document, aliases expanded (nodes + characters).")] = None,
    max_yaml_depth: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_YAML_DEPTH", show_default=str(
        limits.Limits.max_yaml_depth), help="Deepest YAML nesting.")] = None,
    max_drawing: Annotated[int | None, typer.Option(min=1, envvar="CPSOLVE_MAX_DRAWING", show_default=str(
        limits.Limits.max_drawing), help="Largest drawing (bounding-box cells) for solve and show.")] = None,
) -> None:
    """Solve, count and compare solvers on polycube packing and snake-cube puzzles.

    The --max-* options bound what a puzzle file may ask for, checked before anything is built.
    """
    limits.configure(max_cells=max_cells, max_placements=max_placements, max_file_bytes=max_file_bytes,
                     max_yaml_nodes=max_yaml_nodes, max_yaml_depth=max_yaml_depth, max_drawing=max_drawing)


def _check_timeout(value: float | None) -> float | None:
    """`--timeout` is a deadline: a finite number of seconds > 0 (nan, inf, 0 are typos)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise CpsolveError(f"must be a finite number of seconds > 0, not {value:g}", field="--timeout")
    return value


class _PreparationDeadline(Exception):
    """Not a CpsolveError, so that no layer on the way adds a file name to it: the file is not at fault."""


def _alarm_at_deadline(timeout: float | None) -> None:
    """Loading and preparing a big puzzle (placements, symmetry) can outlast `--timeout` before any
    search starts; an alarm at the deadline ends that in one line. `_alarm_off` once the search begins.

    The alarm rings again every ALARM_REPEAT seconds after the deadline: an exception raised by a
    signal handler while Python runs a destructor or a weakref callback is printed and dropped, and a
    single alarm that landed there let a 27x27x27 preparation run on for minutes (seen once in a few
    runs of tests/test_deadline.py)."""
    if timeout is None:
        return

    def ring(_signum: int, _frame: object) -> None:
        raise _PreparationDeadline(f"--timeout: the deadline ({timeout:g} s) passed while preparing the puzzle, "
                                   "before the search began")

    signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, _remaining(timeout) or 1e-3, ALARM_REPEAT)


ALARM_REPEAT = 0.2
"""Seconds between the preparation deadline's alarms once it has passed."""


def _alarm_off() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)


def _remaining(timeout: float | None) -> float | None:
    """What is left of `--timeout` after importing, loading and preparing: the deadline counts from
    the command's start, so that `--timeout S` ends the whole command within S + about a second."""
    return None if timeout is None else max(timeout - (time.time() - STARTED), 1e-3)


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
    from .output.progress import make_progress
    from .output.solutions import LineWriter, default_solutions_path, labelled
    from .puzzle.catalog import load
    from .search.backends import for_problem
    from .search.enumeration import enumerate_classes, prepare
    from .search.journal import remove

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
    book = _journal_plan(journal, not no_journal, resume, path)
    sink = _open_output(path)
    problem = prepared.problem
    lines = LineWriter(prepared.name, problem)

    def on_class(cls: SolutionClass) -> None:
        extra = None if apart is None else apart.add(labelled(problem, cls.placements), cls)
        if sink is not None and (apart is None or extra is not None):
            try:
                sink.write(lines.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, extra) + "\n")
                sink.flush()
            except OSError as exc:
                raise CpsolveError(f"cannot write the solutions file: {exc.strerror or exc}", where=str(path),
                                   exit_code=1) from None

    progress = None if quiet else make_progress()
    try:
        result = enumerate_classes(
            prepared, engine, limit=limit, timeout=_remaining(timeout), workers=n_workers,
            on_class=on_class, progress=progress, journal=book, cluster=cluster,
        )
    except BaseException:
        if sink is not None:  # the first error is the one to report, not a second one from closing
            with contextlib.suppress(OSError):
                sink.close()
        raise
    finally:
        if progress is not None:
            progress.close()
    if sink is not None:
        _close_output(sink, path)
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
            typer.echo(f"journal {book.path}: {result.subproblems_done} of {result.subproblems} subproblems done; "
                       "the same command with --resume continues the run")
        if (puzzle.origin or "").lower().endswith(".xmpuzzle"):
            c = result.counts()
            typer.echo(f"BurrTools counts assemblies up to rotation and, unless 'Keep Mirror Solutions' is on, "
                       f"reflection: compare {c['unique_symmetry']} (burrTxt) or {c['unique_rotation']} (kept mirrors)")
        if apart is not None:
            apart.print_summary()
    if result.status is Status.INTERRUPTED:
        raise typer.Exit(130)


def _journal_plan(path: Path | None, use: bool, resume: bool, solutions: Path | None) -> JournalPlan | None:
    """Where the run is journalled: --journal PATH, else beside the solutions file; none with --no-journal
    (or --no-save and no --journal)."""
    from .search.enumeration import JournalPlan

    if not use:
        if resume:
            raise CpsolveError("needs a journal: leave out --no-journal", field="--resume")
        return None
    where = path or (None if solutions is None else solutions.with_name(solutions.name + ".journal"))
    if where is None:
        if resume:
            raise CpsolveError("with --no-save, name the journal with --journal PATH", field="--resume")
        return None
    return JournalPlan(where, resume, " ".join(["cpsolve", *sys.argv[1:]]))


def default_workers() -> int:
    """All cores this process may use (cgroup/affinity aware where the platform says)."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _open_output(path: Path | None, mode: str = "w") -> IO[str] | None:
    """Open an output file before the run, so that a bad destination fails before any work is done."""
    if path is None:
        return None
    try:
        return path.open(mode, encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path)) from None


def _close_output(sink: IO[str], path: Path | None) -> None:
    try:
        sink.close()
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path), exit_code=1) from None


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

    _alarm_at_deadline(timeout)
    prepared = prepare(load(model), symmetry_breaking)
    engine = for_problem(backend, prepared.problem)
    _alarm_off()
    rows, stats = first_solution(prepared, engine, _remaining(timeout))
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
    try:
        picture = draw(record["pieces"])
    except CpsolveError as exc:
        raise exc.located(f"{file}:{index + 1}") from None
    typer.echo(f"{record.get('puzzle', file.name)}, solution {index} (assemblies: {record.get('assemblies', '?')})")
    typer.echo(picture)


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
    from . import api
    from .puzzle.catalog import load
    from .search.backends import BackendUnavailable

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
    from .analysis.report import run_report
    from .output.tables import render_json, render_markdown
    from .problem.canonical import counts_text
    from .puzzle.catalog import builtin_names

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

    rows = run_report(names, backend, timeout, n_workers, show, started=STARTED)
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


@app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="A BurrTools .xmpuzzle file (gzip or plain XML).")],
    problem: Annotated[int, typer.Option("--problem", min=0, help="Which problem of the file (0-based).")] = 0,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The YAML file to write (default: stdout).")]
    = None,
    check: Annotated[bool, typer.Option("--check", help="Check every assembly stored in the file.")] = False,
) -> None:
    """Convert a problem of a BurrTools file to a cpsolve puzzle file (cube grid only); with --check,
    verify that each stored assembly covers the result exactly."""
    from .puzzle.burrtools import (
        assembly_pieces,
        check_assembly,
        parse_xmpuzzle,
        puzzle_data,
        read_xmpuzzle,
        to_yaml,
    )

    puzzle = read_xmpuzzle(file, problem)
    bf = parse_xmpuzzle(file)
    text = to_yaml(puzzle_data(bf, problem))
    if output is None:
        typer.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror}", where=str(output)) from None
    prob = bf.problems[problem]
    counts = ", ".join(f"{n} {what}" for n, what in ((prob.assemblies, "assemblies"), (prob.solutions, "solutions"))
                       if n is not None)
    stored = f"; BurrTools stored {counts}" if counts else ""
    where = f"written to {output}" if output else "written to stdout"
    typer.echo(f"{puzzle.name}: {len(puzzle.pieces)} pieces, {len(puzzle.container)} cells "
               f"({len(puzzle.optional)} optional){stored}; {where}", err=True)
    if check:
        for k, assembly in enumerate(prob.stored):
            if (why := check_assembly(puzzle, assembly_pieces(bf, problem, assembly))) is not None:
                raise CpsolveError(f"stored assembly {k} is not a solution: {why}", where=str(file),
                                   field=f"problems.{problem}.solutions", exit_code=1)
        typer.echo(f"{len(prob.stored)} stored assemblies checked: each covers the result exactly", err=True)


@app.command("export")
def export_cmd(
    model: ModelArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The file to write.")],
    fmt: Annotated[
        str, typer.Option("--format", help="dimacs (CNF, any SAT solver), xcc (Knuth's DLX), xmpuzzle (BurrTools) "
                          "or stl (pieces to print).")
    ] = "dimacs",
    with_solutions: Annotated[
        Path | None, typer.Option(help="xmpuzzle: also store these solutions (a JSON-lines file of `enumerate`).")
    ] = None,
    encoding: Annotated[str | None, typer.Option(help="Cardinality encoding of the CNF (pysat's names).")] = None,
    symmetry_breaking: Annotated[bool, typer.Option(help="Export the symmetry-broken problem.")] = True,
    unit: Annotated[float, typer.Option("--unit", min=0.1, help="stl: cube size in millimetres.")] = 10.0,
    clearance: Annotated[float, typer.Option(min=0.0, help="stl: gap between printed pieces, in millimetres.")] = 0.0,
) -> None:
    """Write the puzzle for an external solver: DIMACS CNF (decode the answer with `cpsolve decode`) or XCC;
    or its pieces as STL solids for a 3-D printer (-o names a folder; one file per piece)."""
    from . import api
    from .puzzle.catalog import load

    if with_solutions is not None and fmt != "xmpuzzle":
        raise CpsolveError("only the xmpuzzle format stores solutions", field="--with-solutions")
    puzzle = load(model)
    solutions = api.read_solutions(with_solutions) if with_solutions is not None else []
    data = api.export(puzzle, fmt, symmetry_breaking=symmetry_breaking, encoding=encoding,  # type: ignore[call-overload]
                      solutions=solutions, unit=unit, clearance=clearance)
    try:
        if isinstance(data, dict):  # stl: one file per piece in the folder -o names
            output.mkdir(parents=True, exist_ok=True)
            for name, solid in data.items():
                (output / name).write_bytes(solid)
        elif isinstance(data, bytes):
            output.write_bytes(data)
        else:
            output.write_text(data, encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(exc.filename or output)) from None
    if fmt == "stl":
        copies = sum(p.count for p in puzzle.pieces)
        what = (f"{len(data)} STL files written to {output} ({copies} pieces to print, {unit:g} mm cubes, "
                f"clearance {clearance:g} mm)")
    elif fmt == "xmpuzzle":
        what = f"{len(puzzle.pieces)} pieces and {len(solutions)} solutions written to {output} (BurrTools xmpuzzle)"
    else:
        what = f"{'symmetry-broken ' if symmetry_breaking else ''}problem written to {output} ({fmt})"
    typer.echo(f"{puzzle.name}: {what}", err=True)


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
    typer.echo(f"\nverified: the answer satisfies every clause of {cnf_file} and is a solution of {prepared.name}",
               err=True)


@app.command()
def estimate(
    model: ModelArg,
    probes: Annotated[int, typer.Option(min=10, max=10_000_000, help="Random walks through the search tree.")] = 4000,
    symmetry_breaking: Annotated[bool, typer.Option(help="Estimate the symmetry-broken search.")] = True,
) -> None:
    """Estimate the size of the search and its time on the dlx engine before running it.

    Knuth's estimator: random walks from the root, each adding the product of the branching degrees
    it meets; the mean is an unbiased estimate of the number of nodes. The time divides that by the
    engine's node rate on this puzzle, measured on a short sample of its own search.
    """
    from .puzzle.catalog import load
    from .search.enumeration import prepare, subproblems
    from .search.estimate import estimate_run, modelled

    prepared = prepare(load(model), symmetry_breaking)
    if not modelled(prepared.problem):
        raise CpsolveError("the estimate does not model optional cells or piece ranges yet", where=prepared.name,
                           exit_code=1)
    run = estimate_run(prepared.broken.problem, subproblems(prepared.broken), probes)
    tree = run.tree
    typer.echo(f"{prepared.name}: about {tree.nodes:,.0f} search nodes (± {tree.stderr:,.0f}, one standard error, "
               f"{tree.probes} walks); {prepared.broken.key.describe()}")
    if run.seconds is None or run.nodes_per_second is None:
        typer.echo("no time estimate: the dlx engine is not built here")
    else:
        typer.echo(f"about {run.seconds:,.1f} s on one core (± {run.seconds_spread:,.1f} s) at the dlx engine's "
                   f"{run.nodes_per_second:,.0f} nodes/s on this puzzle")


@app.command("journal")
def journal_cmd(
    file: Annotated[Path, typer.Argument(help="A run's journal (enumerate --journal, or SOLUTIONS_FILE.journal).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show where a journalled run stands: subproblems done, solutions so far, how to resume it."""
    from .search.journal import summary

    s = summary(file)
    if as_json:
        typer.echo(json.dumps(s.as_json()))
        return
    share = f" ({100 * s.size_done / s.size:.1f} % of the estimated work)" if s.size else ""
    state = "complete" if s.complete else "unfinished"
    typer.echo(f"{s.puzzle}: {state} run; {s.parts_done} of {s.parts} subproblems done{share}")
    typer.echo(f"{s.found} solutions found in the finished subproblems; {s.classes} classes up to rotation and "
               f"reflection and {s.rotation_classes} up to rotation recorded")
    stamp = "%Y-%m-%d %H:%M:%S"
    typer.echo(f"started {time.strftime(stamp, time.localtime(s.started))}, last recorded "
               f"{time.strftime(stamp, time.localtime(s.updated))}; fingerprint {s.fingerprint}")
    if not s.complete and s.command:
        resume = s.command if "--resume" in s.command.split() else f"{s.command} --resume"
        typer.echo(f"continue with: {resume}")


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        typer.echo("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


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
    from . import api
    from .puzzle.catalog import load

    path, name = _solutions_source(source)
    puzzle: Puzzle | None
    if path is None:
        puzzle = load(source)
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
    from . import api
    from .puzzle.catalog import load

    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise CpsolveError("the picture's file name must end in .png or .svg", field="--output")
    what: api.Solution | api.Puzzle | list[api.Solution]
    heading: bool | str
    if pieces:
        path, name = _solutions_source(source)
        puzzle = load(source) if path is None else _solutions_of(source, index)[1]
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
    from . import api

    chosen, _, label = _solutions_of(source, limit=limit) if _solutions_source(source)[0] else _solutions_of(source)
    html = api.page(chosen, title=label)
    try:
        output.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the page: {exc.strerror}", where=str(output)) from None
    n = len(chosen)
    typer.echo(f"wrote {output}: {n} solution{'s' if n != 1 else ''}, {len(html.encode()) / 1e6:.2f} MB", err=True)


class _Disassembling:
    """`enumerate --disassemble`: takes each new solution class apart in this process, as it streams in,
    and keeps the tally of assemblies against solutions and levels."""

    def __init__(self, puzzle: object, min_level: str | None) -> None:
        from .analysis.disassembly import LevelTally, parse_level, puzzle_groups

        try:
            self.min_level = None if min_level is None else parse_level(min_level)
        except ValueError as exc:
            raise CpsolveError(str(exc), field="--min-level") from None
        self.groups = puzzle_groups(puzzle)
        self.tally = LevelTally()
        self.kept = 0

    def add(self, pieces: dict[str, list[tuple[int, int, int]]], cls: SolutionClass) -> dict[str, object] | None:
        """Disassemble one class; the extra keys of its solutions-file line, or None to leave it out."""
        from .analysis.disassembly import disassemble

        found = disassemble(pieces, self.groups)
        level = found.level()
        self.tally.add(cls.assemblies, cls.mirror_distinct, level)
        if self.min_level is not None and (level is None or level < self.min_level):
            return None
        self.kept += 1
        return {"level": found.level_text(), "moves": [m.as_json() for m in found.moves()]}

    def print_summary(self) -> None:
        from .analysis.disassembly import format_level
        from .problem.canonical import counts_text

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
    from .analysis.disassembly import TooManyStates, disassemble, disassembly_json

    name, pieces, groups = _assembly_to_disassemble(source, index)
    try:
        found = disassemble(pieces, groups, max_states=max_states)
    except TooManyStates as exc:
        raise CpsolveError(f"{exc} (--max-states)", where=source, exit_code=1) from None
    if as_json:
        typer.echo(json.dumps({"puzzle": name, "index": index, **disassembly_json(found)}))
        return
    if found.separation is None:
        stuck = found.stuck
        assert stuck is not None
        typer.echo(f"{name}, solution {index}: does not come apart by sliding pieces")
        typer.echo(f"  stuck: {' '.join(stuck.pieces)} ({stuck.states} states reached, none separates them)")
        for g in stuck.locked:
            typer.echo(f"  locked together in every state reached: {' '.join(g)}")
        return
    sep = found.separation
    typer.echo(f"{name}, solution {index}: comes apart, level {found.level_text()} "
               f"({sep.total_moves()} moves in all, {found.states} states searched)")
    number = 0
    for step in sep.steps():
        typer.echo(f"{' '.join(step.pieces)}: {len(step.moves)} move{'s' if len(step.moves) != 1 else ''}")
        for m in step.moves:
            number += 1
            typer.echo(f"  {number:>4}. {m.text()}")


def _assembly_to_disassemble(
    source: str, index: int
) -> tuple[str, dict[str, list[tuple[int, int, int]]], tuple[frozenset[str], ...]]:
    """(puzzle name, {label: cells}, groups) from a solutions file line, or from a model's N-th class."""
    from .analysis.disassembly import puzzle_groups

    path = Path(source)
    if path.suffix == ".jsonl":
        from .output.solutions import read_solution_line
        from .puzzle.catalog import load

        record = read_solution_line(path, index)
        name = str(record.get("puzzle", path.name))
        try:  # the puzzle's groups, when the file names a puzzle that can be found
            groups = puzzle_groups(load(name))
        except CpsolveError:
            groups = ()
        return name, record["pieces"], groups
    from .output.solutions import labelled
    from .puzzle.catalog import load
    from .search.backends import for_problem
    from .search.enumeration import enumerate_classes, prepare

    puzzle = load(source)
    if puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=source)
    if path.suffix == ".xmpuzzle":  # BurrTools keeps its solutions in the file: take those as they are
        from .puzzle.burrtools import stored_solutions

        stored = stored_solutions(path)
        if stored:
            if index >= len(stored):
                raise CpsolveError(f"stores {len(stored)} assemblies (indices 0 to {len(stored) - 1}); there is no "
                                   f"index {index}", where=source)
            return puzzle.name, stored[index], puzzle_groups(puzzle)
    prepared = prepare(puzzle, True)
    engine = for_problem("auto", prepared.problem)
    classes: list[SolutionClass] = []
    enumerate_classes(prepared, engine, limit=index + 1, workers=1, on_class=classes.append)
    if len(classes) <= index:
        raise CpsolveError(f"has {len(classes)} solution classes (indices 0 to {len(classes) - 1}); there is no "
                           f"index {index}", where=source)
    return puzzle.name, labelled(prepared.problem, classes[index].placements), puzzle_groups(puzzle)


# --- `cpsolve design`: search for puzzles with exactly one solution (issue 17) -------------------

design_app = typer.Typer(help="Design puzzles with exactly one solution: snake cubes, piece sets, pieces to fix.",
                         no_args_is_help=True)
app.add_typer(design_app, name="design")


class _DesignProgress:
    """One live line on a terminal; in a log, a line every 10 s (stdout stays for results)."""

    def __init__(self, quiet: bool) -> None:
        import time

        self.quiet, self.live, self.last, self.shown = quiet, sys.stderr.isatty(), time.monotonic(), False

    def __call__(self, text: str) -> None:
        import time

        now = time.monotonic()
        if self.quiet or (not self.live and now - self.last < 10.0) or (self.live and now - self.last < 0.2):
            return
        self.last = now
        if self.live:
            self.shown = True
        typer.echo(("\r\x1b[2K" + text) if self.live else text, err=True, nl=not self.live)

    def close(self) -> None:
        if self.live and self.shown:
            typer.echo("\r\x1b[2K", err=True, nl=False)


@design_app.command("snake")
def design_snake(
    box: Annotated[str, typer.Option(help="The box, AxBxC (at most 64 cells).")] = "3x3x3",
    out: Annotated[Path | None, typer.Option(
        show_default="snake-AxBxC.census.jsonl",
        help="JSON lines: one per chain (the census) or per unique find (--sample).")] = None,
    puzzles: Annotated[Path | None, typer.Option(
        help="Write the chains with exactly one folding here as puzzle files.")] = None,
    max_files: Annotated[int, typer.Option(min=0, help="At most this many puzzle files.")] = 20,
    sample: Annotated[int, typer.Option(
        min=0, help="Draw this many random foldable chains instead of the census.")] = 0,
    seed: Annotated[int, typer.Option(help="Random seed for --sample.")] = 1,
    max_nodes: Annotated[int, typer.Option(
        min=0, help="--sample: search nodes per chain part before giving up (0 = never).")] = 20_000_000,
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Every chain that folds into the box, with its foldings up to rotation and reflection.

    The foldings (Hamiltonian paths of the box) are enumerated once and grouped by their straight/turn
    sequence; a chain and its reverse are one chain. --sample N draws random foldable chains (for
    boxes too large for the census, like 4x4x4) and keeps those with exactly one folding.
    """
    import random
    import time

    from .analysis.design import snake

    size = snake.parse_box(box)
    label = "x".join(map(str, size))
    path = out or Path(f"snake-{label}.{'sample' if sample else 'census'}.jsonl")
    n_workers = workers or default_workers()
    start = time.perf_counter()
    graph = snake.box_graph(size)
    source = f"cpsolve design snake --box {label}" + (f" --sample {sample} --seed {seed}" if sample else "")
    written = 0
    show = _DesignProgress(quiet)

    def write_puzzle(chain: snake.ChainCount) -> None:
        nonlocal written
        if puzzles is None or written >= max_files:
            return
        puzzles.mkdir(parents=True, exist_ok=True)
        name = f"snake-{label}-{chain.sequence:x}"
        (puzzles / f"{name}.yaml").write_text(snake.chain_puzzle_text(size, chain, name, source), encoding="utf-8")
        written += 1

    if sample:
        rng = random.Random(seed)
        tally = {"drawn": 0, "unique": 0, "several": 0, "undecided": 0}
        first_unique: float | None = None
        with path.open("w", encoding="utf-8") as sink:
            for i, draw in enumerate(snake.sample(graph, sample, rng, max_nodes, n_workers)):
                tally["drawn"] += 1
                tally[draw.verdict] += 1
                if draw.chain is not None:
                    first_unique = first_unique or time.perf_counter() - start
                    sink.write(json.dumps(draw.chain.as_json()) + "\n")
                    sink.flush()
                    write_puzzle(draw.chain)
                show(f"{label}: sample {i + 1}/{sample}: {tally}, {time.perf_counter() - start:.1f} s")
        seconds = time.perf_counter() - start
        summary: dict[str, object] = {"box": label, "sampled": sample, **tally, "seconds": round(seconds, 2),
                                      "unique_per_hour": round(tally["unique"] * 3600 / seconds, 1),
                                      "first_unique_seconds": None if first_unique is None else round(first_unique, 3)}
    else:
        def progress(done: int, parts: int) -> None:
            show(f"{label}: part {done}/{parts} of the census, {time.perf_counter() - start:.1f} s")

        result = snake.census(size, workers=n_workers, progress=progress)
        show.close()
        with path.open("w", encoding="utf-8") as sink:
            sink.writelines(json.dumps(c.as_json()) + "\n" for c in result.chains)
        for chain in result.chains:
            if chain.foldings == 1:
                write_puzzle(chain)
        summary = {**result.summary(), "seconds": round(time.perf_counter() - start, 2)}
    summary.update({"file": str(path), "puzzle_files": written})
    _echo_summary(summary, as_json)


def _echo_summary(summary: dict[str, Any], as_json: bool) -> None:
    """A design run's summary: one JSON object, or one `key: value` line per figure."""
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        for key, value in summary.items():
            typer.echo(f"{key.replace('_', ' ')}: {value}")


@design_app.command("pieces")
def design_pieces(
    box: Annotated[str, typer.Option(help="Boxes, comma-separated AxBxC (e.g. 3x3x3 or 1x4x5,2x2x5).")] = "3x3x3",
    pool: Annotated[str, typer.Option(help="Pools, comma-separated: monocubes, dicubes, tricubes, tetracubes, "
                                           "pentacubes, pentominoes.")] = "tricubes,tetracubes",
    pool_file: Annotated[Path | None, typer.Option(
        help="Take the pool from this puzzle file's pieces instead.")] = None,
    copies: Annotated[int, typer.Option(min=1, help="At most this many copies of a pool piece per set.")] = 1,
    backend: BackendOpt = "auto",
    out: Annotated[Path | None, typer.Option(
        show_default="pieces.design.jsonl", help="JSON lines, one per candidate.")] = None,
    puzzles: Annotated[Path | None, typer.Option(help="Write the unique designs here as puzzle files.")] = None,
    max_files: Annotated[int, typer.Option(min=0, help="At most this many puzzle files.")] = 20,
    timeout: Annotated[float | None, typer.Option(help="Per candidate, in seconds.")] = None,
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Piece sets from a pool that fill a box in exactly one way (up to rotation and reflection).

    Every multiset of pool pieces with the box's volume is a candidate; a piece that fits nowhere
    drops it at once, and the search stops at the second solution class.
    """
    import time

    from .analysis.design import pieces as design
    from .analysis.design.snake import parse_box
    from .puzzle.catalog import load

    boxes = [parse_box(b, max_cells=None) for b in box.split(",") if b.strip()]
    shapes = {p.name: p.shape for p in load(str(pool_file)).pieces} if pool_file else design.pool_from(pool)
    path = out or Path("pieces.design.jsonl")
    start = time.perf_counter()
    counts: dict[str, int] = {"candidates": 0, "unique": 0, "several": 0, "none": 0, "pruned": 0, "timeout": 0}
    first_unique: float | None = None
    written = 0
    show = _DesignProgress(quiet)
    with path.open("w", encoding="utf-8") as sink:
        for verdict in design.search(design.jobs(boxes, shapes, copies), shapes, backend=backend,
                                     workers=workers or default_workers(), timeout=timeout):
            counts["candidates"] += 1
            counts[verdict.status] += 1
            sink.write(json.dumps(verdict.as_json()) + "\n")
            if verdict.status == "unique":
                first_unique = first_unique or time.perf_counter() - start
                if puzzles is not None and written < max_files:
                    puzzles.mkdir(parents=True, exist_ok=True)
                    name = f"unique-{'x'.join(map(str, verdict.box))}-{counts['unique']}"
                    source = f"cpsolve design pieces --box {box} --pool {pool_file or pool} --copies {copies}"
                    (puzzles / f"{name}.yaml").write_text(design.puzzle_text(verdict, shapes, name, source),
                                                          encoding="utf-8")
                    written += 1
            show(", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {time.perf_counter() - start:.1f} s")
    show.close()
    seconds = time.perf_counter() - start
    summary: dict[str, object] = {
        "boxes": ",".join("x".join(map(str, b)) for b in boxes), **counts, "seconds": round(seconds, 2),
        "candidates_per_second": round(counts["candidates"] / seconds, 1) if seconds else None,
        "first_unique_seconds": None if first_unique is None else round(first_unique, 3),
        "file": str(path), "puzzle_files": written,
    }
    _echo_summary(summary, as_json)


@design_app.command("unique")
def design_unique(
    model: ModelArg,
    change: Annotated[str, typer.Option(help="fix: pieces glued in place; mark: a cell and one cube of a piece "
                                        "painted alike (the cube must sit there); hole: a cell left empty.")] = "fix",
    backend: BackendOpt = "auto",
    limit: Annotated[int, typer.Option(min=1, help="At most this many suggestions (one per orbit).")] = 5,
    puzzles: Annotated[Path | None, typer.Option(help="Write each suggestion as a puzzle file here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """The fewest changes (one, else two) that leave exactly one assembly: fixed pieces, colour marks or holes.

    One enumeration counts every possible change; each suggestion is written as a puzzle file and
    proved by enumerating that file: total 1.
    """
    import time

    from .analysis.design import unique
    from .puzzle.catalog import load

    if change not in unique.KINDS:
        raise CpsolveError(f"unknown change {change!r} (one of {', '.join(unique.KINDS)})", field="--change")
    puzzle = load(model)
    start = time.perf_counter()
    report = unique.suggest_changes(puzzle, change, backend, limit,
                                    source=f"cpsolve design unique {model} --change {change}")
    seconds = time.perf_counter() - start
    files: list[str | None] = []
    for c in report.changes:
        path = None if puzzles is None else puzzles / f"{c.name}.yaml"
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(c.file_text, encoding="utf-8")
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path), exit_code=1) from None
        files.append(None if path is None else str(path))
    rows = list(zip(report.changes, files, strict=True))
    if as_json:
        typer.echo(json.dumps({
            "puzzle": report.puzzle, "change": report.kind, "assemblies": report.assemblies, "size": report.size,
            "candidates": report.candidates, "note": report.note or None, "seconds": round(seconds, 2),
            "suggestions": [{"change": c.text, **c.detail, "orbit": c.orbit, "verified_total": c.verified_total,
                             "file": f} for c, f in rows]}))
        return
    typer.echo(report.headline(seconds))
    for c, f in rows:
        typer.echo(f"  {c.text} (x{c.orbit} by rotation): {f or 'the changed puzzle'} enumerates to {c.verified_total}")
    if not report.changes:
        raise typer.Exit(1)
