"""The commands beyond enumeration: count (exact, or --approx: ApproxMC's count with its guarantee and
Knuth's estimate with its error bar) and sample (near-uniform random assemblies as a solutions file).

Everything here goes through the public API (`cpsolve.count`, `count_approx`, `sample`); the module
imports nothing below it but `cpsolve.errors` and `cpsolve.limits` (issue 27: the command line on the
API), and the shared option types and helpers of `common`.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO

import typer

from .. import limits
from ..errors import CpsolveError
from .common import (
    TIMEOUT_EXIT,
    ModelArg,
    ProblemOpt,
    TimeoutOpt,
    WorkersOpt,
    _remaining,
    app,
    counted,
    default_workers,
    inputs_of,
    puzzle_of,
    three_counts,
)

if TYPE_CHECKING:
    from ..api import ApproxCounts

SeedOpt = Annotated[int, typer.Option(min=0, max=2**31 - 1, help="Random seed: the same seed, the same answer.")]


@app.command()
def count(
    model: ModelArg,
    approx: Annotated[bool, typer.Option("--approx", help="Estimate instead of enumerating: Knuth's random walks, "
                                         "each finished by an exact count of the small subtree where it stops; a "
                                         "first answer at once, refined while it runs.")] = False,
    seed: SeedOpt = 1,
    walks: Annotated[int | None, typer.Option(min=0, max=10**12, help="--approx: stop after this many walks.")]
    = None,
    walk_seconds: Annotated[float | None, typer.Option(help="--approx: stop the walks after this many seconds.")]
    = None,
    precision: Annotated[float, typer.Option(help="--approx: stop once the relative standard error is at most "
                                             "this.")] = 0.01,
    guarantee: Annotated[bool, typer.Option("--guarantee", help="--approx: add ApproxMC's count with its "
                                            "guaranteed interval (its time is predicted and stated first; refused "
                                            "past --timeout).")] = False,
    epsilon: Annotated[float, typer.Option(help="--guarantee: the count within a factor 1 + EPSILON ...")] = 0.8,
    delta: Annotated[float, typer.Option(help="--guarantee: ... with probability at least 1 - DELTA.")] = 0.2,
    workers: WorkersOpt = None,
    cluster: Annotated[str | None, typer.Option(
        help="--approx: walk on a Dask cluster: tcp://HOST:8786, or local:N (pip install 'cpsolve[cluster]').")]
    = None,
    journal: Annotated[Path | None, typer.Option(
        help="--approx: keep the plan and the walks in this new SQLite file, to --resume the estimate.")] = None,
    resume: Annotated[bool, typer.Option(help="--approx: go on with the estimate --journal holds.")] = False,
    timeout: TimeoutOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    problem: ProblemOpt = None,
) -> None:
    """Count the solutions: exactly (the three counts, by enumeration), or with --approx without
    enumerating, for puzzles far beyond it.

    --approx: Knuth's random walks of the search tree, each descending at random until the subtree under
    it is small and then counting that subtree exactly (unbiased), stratified over the key piece's
    placements; a first answer within a second or so, refined until the relative standard error reaches
    --precision (or --walks, --walk-seconds, --timeout, Ctrl-C: each ends with the estimate so far). A
    95 % confidence interval is printed only where the walks support it. A small search is counted
    exactly. On a terminal a live line shows the estimate; in a log, a line every few seconds.
    --guarantee adds ApproxMC's count with its guaranteed interval. The counts up to rotation and
    reflection are derived as total / (the container's symmetries): exact only when no assembly is
    symmetric. See docs/approximate.md.
    """
    from .. import api

    puzzle = puzzle_of(model, problem, "count")
    if not approx:
        counts = api.count(puzzle, workers=workers or default_workers(), timeout=timeout)
        if as_json:
            typer.echo(json.dumps({"puzzle": puzzle.name, **counts._asdict()}))
        else:
            typer.echo(f"{api.printable(puzzle.name)}: {three_counts(*counts)}")
        return
    limits.check_timeout(walk_seconds, "walk_seconds")
    if resume and journal is None:
        raise CpsolveError("--resume needs the --journal to go on with", field="journal")
    live = None if quiet else Live(sys.stderr)

    def progress(line: str) -> None:
        if live is not None:
            live.line(line)

    try:
        found = api.count_approx(puzzle, seed=seed, walks=walks, seconds=walk_seconds, precision=precision,
                                 timeout=_remaining(timeout), workers=workers or default_workers(), cluster=cluster,
                                 journal=journal, resume=resume, guarantee=guarantee, epsilon=epsilon, delta=delta,
                                 progress=progress, on_estimate=None if live is None else live.estimate)
    except KeyboardInterrupt:
        if live is not None:
            live.close()
        _interrupted("count --approx", "nothing counted")
    if live is not None:
        live.close()
    typer.echo(json.dumps(found.as_json()) if as_json else str(found))
    if journal is not None and found.status != "complete" and not quiet:
        print(f"cpsolve: journal {api.printable(str(journal))}: the same command with --resume goes on",
              file=sys.stderr)
    if found.status == "interrupted":
        raise KeyboardInterrupt
    if found.status == "timeout":
        raise typer.Exit(TIMEOUT_EXIT)


class Live:
    """Progress of an estimate on stderr: on a terminal one line rewritten in place (at most REDRAW times a
    second), in a log one line every LOG_SECONDS (and the first answer at once); one-off reports (the plan)
    as lines of their own."""

    REDRAW = 4.0
    LOG_SECONDS = 5.0

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.tty = stream.isatty()
        self.last = -math.inf
        self.shown = False
        self.began = time.monotonic()
        self.pending = ""

    def line(self, text: str) -> None:
        from ..api import printable

        self._clear()
        print(f"cpsolve: {printable(text)}", file=self.stream, flush=True)

    def estimate(self, found: ApproxCounts) -> None:
        if found.exact:
            return
        now = time.monotonic()
        first = not self.shown
        if not first and now - self.last < (1 / self.REDRAW if self.tty else self.LOG_SECONDS):
            return
        self.last, self.shown = now, True
        text = f"cpsolve: {found.progress_line()}"
        if self.tty:
            self.stream.write(f"\r\x1b[K{text[: _columns() - 1]}")
            self.stream.flush()
            self.pending = text
        else:
            print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        if self.tty and self.pending:
            self.stream.write("\r\x1b[K")
            self.pending = ""

    def close(self) -> None:
        self._clear()
        self.stream.flush()


def _columns() -> int:
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


def _interrupted(command: str, what: str) -> NoReturn:
    """Ctrl-C (or SIGTERM, SIGHUP) while a tool ran: one line saying so, then the usual exit status."""
    print(f"cpsolve: {command}: interrupted, {what}", file=sys.stderr, flush=True)
    raise KeyboardInterrupt


@app.command()
def sample(
    model: ModelArg,
    n: Annotated[int, typer.Option("-n", min=1, max=1_000_000, help="How many random solutions.")] = 10,
    seed: SeedOpt = 1,
    out: Annotated[Path | None, typer.Option("--out", "-o", show_default="stdout",
                                             help="Write the solutions file here.")] = None,
    guarantee: Annotated[bool, typer.Option("--guarantee", help="Draw with UniGen (near-uniform with its "
                                            "guarantee; slow beyond small puzzles).")] = False,
    workers: WorkersOpt = None,
    timeout: TimeoutOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")] = False,
    problem: ProblemOpt = None,
) -> None:
    """Draw N random solutions, written as a solutions file (one JSON line each, the format of
    `enumerate --out`) that show, draw, view and disassemble read.

    Exactly uniform from an enumeration when the search fits in the time given; otherwise a key part
    chosen in proportion to its estimated count and a uniform solution of it by rejection from walks;
    with --guarantee, UniGen. Each line says its `method`. Its `class` numbers its class up to rotation and
    reflection in the order the sample meets it, so repeats of a class share it. Draws are independent:
    an assembly may come twice. Lines are written as they are drawn; a file given with -o is checked
    before the sampling and emptied only when the first draw is made.
    """
    from .. import api

    src = api.source(model, problem)
    puzzle = src.require_puzzle("sample")
    # refused before the sampling, which can take long; emptied only when the first draw is made
    writer = None if out is None else api.line_output(out, inputs_of(src))
    methods: dict[str, int] = {}
    classes: set[int] = set()
    drawn = 0

    def progress(line: str) -> None:
        if not quiet:
            print(f"cpsolve: {api.printable(line)}", file=sys.stderr, flush=True)

    try:
        for solution in api.sample(puzzle, n, seed=seed, timeout=_remaining(timeout),
                                   workers=workers or default_workers(), guarantee=guarantee, progress=progress):
            method = solution.found_by or "?"
            line = solution.as_line({"sample": drawn, "method": method})
            if writer is None:
                typer.echo(line)
            else:
                writer.write(line + "\n")
            drawn += 1
            methods[method] = methods.get(method, 0) + 1
            classes.add(solution.index or 0)
    except KeyboardInterrupt:
        _interrupted("sample", f"{drawn} drawn" + (" and written" if drawn else ""))
    finally:
        if writer is not None:  # every line written is whole: what was drawn is kept, whatever ended the run
            writer.close()
    if not drawn:
        raise CpsolveError("has no assembly to sample", where=puzzle.name, exit_code=1)
    if not quiet:
        where = f" to {api.printable(str(out))}" if out is not None else ""
        how = ", ".join(f"{k} by {m}" for m, k in methods.items())
        distinct = counted(len(classes), "distinct class", "distinct classes")
        print(f"cpsolve: {counted(drawn, 'random solution')} of "
              f"{api.printable(puzzle.name)}{where} ({how}), {distinct} up to rotation and reflection", file=sys.stderr)

