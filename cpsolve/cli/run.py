"""The commands that run a model and report on it: list, schema, enumerate, solve, show, backends,
compare, report, with their helpers (the journal of a run, the summary, `enumerate --disassemble`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .. import limits
from ..errors import CpsolveError
from . import common  # common.STARTED, read when used: main() resets it for a later run in this process
from .common import (
    TIMEOUT_EXIT,
    BackendOpt,
    ClearanceOpt,
    FindTimeoutOpt,
    IdOpt,
    ModelArg,
    ProblemOpt,
    RotationsOpt,
    TimeoutOpt,
    WorkersOpt,
    _alarm_at_deadline,
    _check_timeout,
    _open_to_append,
    _remaining,
    _table,
    _which,
    app,
    default_workers,
    inputs_of,
    puzzle_of,
    search_begins,
    three_counts,
)

if TYPE_CHECKING:
    from ..api import Result


@app.command("list")
def list_models() -> None:
    """The built-in models: pieces, volume and what each is, in the terminal's width."""
    import shutil

    from .. import api

    rows = []
    for name in api.models():
        puzzle = api.load(name)
        pieces = str(puzzle.n_pieces) if puzzle.kind == "pieces" else f"chain of {puzzle.n_pieces}"
        rows.append((name, pieces, str(len(puzzle.container)), _first_sentence(puzzle.description)))
    _table(("model", "pieces", "volume", "what"), rows, width=shutil.get_terminal_size().columns)


def _first_sentence(text: str) -> str:
    """A description's first sentence, on one line (the description goes on; `cpsolve.load(NAME)` has it)."""
    words = " ".join(text.split())
    end = words.find(". ")
    return words if end < 0 else words[:end + 1]


@app.command()
def schema() -> None:
    """Print the JSON Schema of puzzle files."""
    from .. import api

    typer.echo(json.dumps(api.schema(), indent=2))


@app.command("enumerate")
def enumerate_cmd(
    model: ModelArg,
    backend: BackendOpt = "auto",
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object with the counts on stdout.")] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", show_default="NAME.solutions.jsonl in the current folder, NAME the puzzle's",
                     help="JSON-lines file for the canonical solutions."),
    ] = None,
    save: Annotated[bool, typer.Option(help="Write the canonical solutions to a file.")] = True,
    limit: Annotated[int, typer.Option(min=0, help="Stop after this many solutions up to symmetry (0 = all).")] = 0,
    symmetry_breaking: Annotated[bool, typer.Option(help="Fix a key piece to one placement per orbit.")] = True,
    timeout: TimeoutOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    disassemble: Annotated[bool, typer.Option(
        "--disassemble",
        help="Take each solution apart: those that come apart, levels (see `cpsolve disassemble`).")] = False,
    min_level: Annotated[str | None, typer.Option(
        help="With --disassemble: write only solutions at this level or above (5, 1.2, ...).")] = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
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
    problem: ProblemOpt = None,
    sort: Annotated[bool, typer.Option(
        "--sort", help="Once the run is complete, rewrite the solutions file in the order of the classes' ids: "
                       "the same bytes from any two complete runs.")] = False,
) -> None:
    """Find every solution and count them: in all, up to rotation, and up to rotation and reflection."""
    from .. import api

    _alarm_at_deadline(timeout)
    src = api.source(model, problem)
    puzzle = src.require_puzzle("enumerate")
    result = api.run(
        puzzle, backend=backend, workers=workers or default_workers(), limit=limit, timeout=_remaining(timeout),
        symmetry_breaking=symmetry_breaking, progress=not quiet, out=(out or True) if save else None,
        journal=False if no_journal else journal or True, resume=resume, cluster=cluster,
        disassemble=disassemble, min_level=min_level, command=resume_words(sys.argv[1:]), on_start=search_begins,
        sort=sort, rotations=rotations, rotation_clearance=rotation_clearance or 0,
    )
    if as_json:
        typer.echo(json.dumps(result.as_json()))
    else:
        _print_summary(result, sort, min_level)
        if result.journal is not None and not result.complete:
            typer.echo(f"journal {api.shell_command([result.journal])}: {result.subproblems_done} of "
                       f"{result.subproblems} subproblems done; continue with: "
                       f"{api.shell_command([*resume_words(sys.argv[1:]), '--resume'])}")
        if src.kind == "xmpuzzle":
            c = result.counts
            typer.echo(f"BurrTools counts assemblies up to rotation and, unless 'Keep Mirror Solutions' is on, "
                       f"reflection: compare {c.unique_symmetry} (burrTxt) or {c.unique_rotation} (kept mirrors)")
        if result.disassembly is not None:
            _print_levels(result.disassembly, min_level)
    if result.status == "interrupted":
        raise typer.Exit(130)
    if result.status == "timeout":
        raise typer.Exit(TIMEOUT_EXIT)


STOPS_AGAIN = ("--limit", "--timeout")
"""enumerate's options that would end a resumed run where the first one ended: left out of the command the
journal keeps and the summary suggests (the resume of `--limit 5` stopped at once again)."""


def resume_words(args: Sequence[str]) -> tuple[str, ...]:
    """`cpsolve` and the command's words, without --limit N and --timeout S (and without --resume: the
    journal's resume command adds it)."""
    words: list[str] = ["cpsolve"]
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in STOPS_AGAIN:
            skip = True
        elif not arg.startswith(tuple(f"{option}=" for option in STOPS_AGAIN)) and arg != "--resume":
            words.append(arg)
    return tuple(words)


def _print_summary(result: Result, sort: bool = False, min_level: str | None = None) -> None:
    from ..api import printable

    c = result.counts
    head = "" if result.complete else f"{result.status.upper()} (counts so far, incomplete): "
    typer.echo(f"{printable(result.puzzle)}: {head}{three_counts(c.total, c.unique_rotation, c.unique_symmetry)}")
    why = f" (chosen by auto: {result.backend_reason})" if result.backend_reason else ""
    typer.echo(f"backend {result.backend}{why}; {result.symmetry_breaking}; {result.seconds:.2f} s")
    if result.solutions_file is not None:
        written = c.unique_symmetry if min_level is None else _kept(result.disassembly, min_level)
        typer.echo(f"{written} canonical solutions written to {printable(result.solutions_file)}")
        if sort:
            typer.echo("sorted by id" if result.complete else "not sorted: the run is incomplete (--resume it; a "
                       "complete run is sorted)")


BAR = 60
"""The longest bar of `enumerate --disassemble`'s histogram of levels, in characters."""


def _counts(counts: object) -> str:
    """Total / up to rotation / up to rotation and reflection, as every table and message writes them."""
    assert isinstance(counts, dict)
    return " / ".join(str(counts[k]) for k in ("total", "unique_rotation", "unique_symmetry"))


def _print_levels(tally: object, min_level: str | None) -> None:
    """`enumerate --disassemble`'s summary: the solutions, those that come apart (what BurrTools calls solutions,
    its assemblies being cpsolve's solutions), the levels' histogram, the highest."""
    assert isinstance(tally, dict)
    typer.echo(f"solutions (in all / up to rotation / and reflection): {_counts(tally['assemblies'])}")
    typer.echo(f"of which come apart (BurrTools' solutions):           {_counts(tally['solutions'])}")
    levels: dict[str, int] = tally["levels"]
    if levels:
        typer.echo("levels (of those that come apart, up to rotation and reflection):")
        top = max(levels.values())
        for level, n in levels.items():  # one # per class, or the longest bar BAR wide and the others to scale
            bar = n if top <= BAR else max(1, round(n * BAR / top))
            typer.echo(f"  {level:>12}  {n:>6}  {'#' * bar}")
        typer.echo(f"highest level: {tally['highest_level'] or '-'}")
    if min_level is not None:
        kept = _kept(tally, min_level)
        typer.echo(f"--min-level {min_level}: only the {kept} solution classes at that level or above went into "
                   "the solutions file")


def _kept(tally: object, min_level: str) -> int:
    """The solution classes `--min-level` lets into the solutions file: those that come apart at that level or
    above (the summary said every class found was written)."""
    assert isinstance(tally, dict)
    levels: dict[str, int] = tally["levels"]
    from ..api import level_key

    return sum(n for level, n in levels.items() if level_key(level) >= level_key(min_level))


@app.command()
def solve(
    model: ModelArg,
    backend: BackendOpt = "auto",
    timeout: TimeoutOpt = None,
    symmetry_breaking: Annotated[bool, typer.Option(help="Fix a key piece to one placement per orbit.")] = True,
    problem: ProblemOpt = None,
) -> None:
    """Find one solution and draw it as z-layers, one letter per piece."""
    from .. import api

    _alarm_at_deadline(timeout)
    puzzle = puzzle_of(model, problem, "solve")
    found = api.solve(puzzle, backend, timeout=_remaining(timeout), symmetry_breaking=symmetry_breaking,
                          on_start=search_begins)
    if found is None:
        typer.echo(f"{api.printable(puzzle.name)}: has no solution")
        raise typer.Exit(1)
    typer.echo(str(found))
    why = f" (chosen by auto: {found.backend_reason})" if found.backend_reason else ""
    typer.echo(f"\nfound by {found.found_by}{why} in {found.seconds or 0:.2f} s")


@app.command()
def show(
    file: Annotated[str, typer.Argument(help="A solutions file of `cpsolve enumerate`, a BurrTools file (its stored "
                                             "assemblies), or a model (solved first).")],
    index: Annotated[int | None, typer.Option(min=0, show_default="0; a model: the first solution found",
                                              help="Which solution (0-based).")] = None,
    id: IdOpt = None,
    problem: ProblemOpt = None,
    timeout: FindTimeoutOpt = None,
) -> None:
    """Draw one solution as z-layers: of an earlier enumeration, stored in a BurrTools file, or found now."""
    from .. import api

    src = api.source(file, problem)
    solution = src.solution(index, id=id, timeout=_remaining(timeout))
    try:
        picture = str(solution)
    except CpsolveError as exc:
        raise exc.located(f"{file}:{(index or 0) + 1}" if src.kind == "solutions" and id is None else file) from None
    which = _which(solution, index, id)
    size = "?" if solution.assemblies is None else solution.assemblies
    named = "" if solution.id is None else f"id {solution.id}; "
    typer.echo(api.printable(f"{solution.name}, {which} ({named}its class: {size} solutions in all)"))
    typer.echo(picture)


@app.command("backends")
def list_backends() -> None:
    """The solver backends, whether they work here, and their versions."""
    from .. import api

    _table(("backend", "available", "version", "what"),
           [(b.name, "yes" if b.available else "no", b.version or b.install_hint, b.description)
            for b in api.backends()])


@app.command()
def compare(
    model: ModelArg,
    backends: Annotated[str, typer.Option(help="Comma-separated backends to run.")] = "cpsat,sat,dlx",
    timeout: Annotated[float | None, typer.Option(help="Per backend and per run, in seconds.",
                                                  callback=lambda v: _check_timeout(v))] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, max=limits.MAX_WORKERS,
                                         help="Processes per backend.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Append the rows, one JSON object per line.")]
    = None,
    problem: ProblemOpt = None,
) -> None:
    """Run one model on several backends; the counts must agree (exit 1 names the one that does not).

    Each backend runs alone in a child process: time to first solution, time for all, CPU seconds
    and peak memory are its own. One worker by default, so the figures compare engines core for core.
    """
    from .. import api

    src = api.source(model, problem)
    puzzle = src.require_puzzle("compare")
    sink = _open_to_append(out, inputs_of(src))
    write_error: str | None = None

    def show(row: Any) -> None:
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
        except CpsolveError as exc:  # an unknown name or a misplaced option, before anything ran
            if exc.field != "backend":
                raise
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
    if any(r.status == "timeout" for r in rows):
        raise typer.Exit(TIMEOUT_EXIT)


def _compare_table(rows: Sequence[Any]) -> None:
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
    from .. import api

    n_workers = workers or default_workers()
    if out_dir is not None:
        _check_out_dir(out_dir)
        for name in ("counts.md", "counts.json"):
            api.check_output(out_dir / name, option="--out-dir")
    shown_dir = out_dir or Path("results")
    command = " ".join(["cpsolve report", *(models or []), f"--backend {backend}", f"--workers {n_workers}",
                        *([f"--timeout {timeout:g}"] if timeout else []), f"--out-dir {shown_dir}"])

    def show(row: Any) -> None:
        counts = (f"{row.total} / {row.unique_rotation} / {row.unique_symmetry}" if row.mode == "enumerate"
                  else "solved" if row.matches else f"not solved ({row.status})")
        verdict = "ok" if row.matches else "MISMATCH" if row.finished else f"incomplete ({row.status})"
        typer.echo(f"{row.model}: {counts} ({row.seconds:.2f} s) {verdict}", err=True)

    done = api.report(models or (), backend=backend, workers=n_workers, timeout=timeout, on_row=show,
                          started=common.STARTED)
    markdown, as_json = done.markdown(command), done.json(command)
    if out_dir is None and not done.everything:
        typer.echo(markdown)
        typer.echo("not written: only a finished run of every built-in model replaces results/; "
                   "--out-dir DIR writes this one",
                   err=True)
    else:
        target = out_dir or Path("results")
        try:
            target.mkdir(parents=True, exist_ok=True)
            api.write_output(target / "counts.md", markdown, option="--out-dir")
            api.write_output(target / "counts.json", as_json, option="--out-dir")
        except (OSError, CpsolveError) as exc:
            typer.echo(markdown)  # the finished results are not lost
            if isinstance(exc, CpsolveError):
                raise CpsolveError(f"{exc.message} (printed above instead)", where=exc.where or str(target),
                                   exit_code=1) from None
            raise CpsolveError(f"cannot write the table: {exc.strerror or exc} (printed above instead)",
                               where=str(target), exit_code=1) from None
        typer.echo(f"wrote {api.printable(str(target / 'counts.md'))} and {api.printable(str(target / 'counts.json'))}")
    if done.mismatches:
        raise typer.Exit(1)
    if any(r.status == "interrupted" for r in done.rows):
        raise typer.Exit(130)
    if any(r.status == "timeout" for r in done.rows):
        raise typer.Exit(TIMEOUT_EXIT)


def _check_out_dir(path: Path) -> None:
    """A destination folder is checked before a long run, not after it (when the results would be lost)."""
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise CpsolveError(f"cannot write there: {exc.strerror or exc}", where=str(path), field="--out-dir") from None
