"""The commands beyond enumeration: count (exact, or --approx: ApproxMC's count with its guarantee and
Knuth's estimate with its error bar) and sample (near-uniform random assemblies as a solutions file).

Everything here goes through the public API (`cpsolve.count`, `count_approx`, `sample`); the module
imports nothing below it but `cpsolve.errors` and `cpsolve.limits` (issue 27: the command line on the
API), and the shared option types and helpers of `common`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from .. import limits
from ..errors import CpsolveError
from .common import (
    ModelArg,
    ProblemOpt,
    TimeoutOpt,
    WorkersOpt,
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
    approx: Annotated[bool, typer.Option("--approx", help="Estimate instead of enumerating: ApproxMC's count "
                                         "with a guarantee, and Knuth's estimate with its standard error.")] = False,
    epsilon: Annotated[float, typer.Option(help="--approx: the count within a factor 1 + EPSILON ...")] = 0.8,
    delta: Annotated[float, typer.Option(help="--approx: ... with probability at least 1 - DELTA.")] = 0.2,
    seed: SeedOpt = 1,
    walks: Annotated[int, typer.Option(min=0, max=10**9, help="--approx: Knuth's random walks (0: none).")] = 100_000,
    walk_seconds: Annotated[float | None, typer.Option(help="--approx: stop the walks after this many seconds.")]
    = None,
    approxmc: Annotated[bool, typer.Option(help="--approx: run ApproxMC (--no-approxmc: Knuth's walks only).")]
    = True,
    workers: WorkersOpt = None,
    timeout: TimeoutOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    problem: ProblemOpt = None,
) -> None:
    """Count the solutions: exactly (the three counts, by enumeration), or with --approx without
    enumerating, for puzzles far beyond it.

    --approx: ApproxMC counts the sat backend's CNF projected on the placement variables (one solution,
    one assembly) and guarantees its interval with probability 1 - DELTA; --timeout bounds it. Knuth's
    walks of the search tree give an unbiased estimate with one standard error, on --workers
    processes (ApproxMC runs on one core). The counts up to rotation and reflection are derived as
    total / (the container's symmetries): exact only when no assembly is symmetric.
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

    def progress(line: str) -> None:
        if not quiet:
            print(f"cpsolve: {line}", file=sys.stderr, flush=True)

    try:
        found = api.count_approx(puzzle, epsilon=epsilon, delta=delta, seed=seed, walks=walks, timeout=timeout,
                                 knuth_seconds=walk_seconds, workers=workers or default_workers(),
                                 approxmc=approxmc, progress=progress)
    except KeyboardInterrupt:
        _interrupted("count --approx", "nothing counted")
    if as_json:
        typer.echo(json.dumps(found.as_json()))
        return
    typer.echo(summary(found))


def _interrupted(command: str, what: str) -> NoReturn:
    """Ctrl-C (or SIGTERM, SIGHUP) while a tool ran: one line saying so, then the usual exit status."""
    print(f"cpsolve: {command}: interrupted, {what}", file=sys.stderr, flush=True)
    raise KeyboardInterrupt


def summary(found: ApproxCounts) -> str:
    """The lines `count --approx` prints: each estimate with its guarantee or error bar and time, the
    derived counts and how they were derived."""
    from ..api import printable

    lines = [f"{printable(found.puzzle)}: approximate counts"]
    if found.total is not None and found.interval is not None and found.seconds is not None:
        low, high = found.interval
        guarantee = ("exact (ApproxMC needed no random cut)" if found.exact else
                     f"in [{low:,.0f}, {high:,.0f}] with probability >= {1 - found.delta:g} "
                     f"(epsilon {found.epsilon:g}, delta {found.delta:g}, seed {found.seed})")
        lines.append(f"  ApproxMC: {found.total:,} solutions in all, {guarantee}; {found.seconds:.1f} s")
    if found.knuth is not None and found.knuth_seconds is not None:
        lines.append(f"  Knuth:    {found.knuth:,.0f} ± {found.knuth_stderr or 0:,.0f} (one standard error, "
                     f"{found.knuth_walks:,} walks, seed {found.seed}); {found.knuth_seconds:.1f} s")
    lines += [f"  note: {note}" for note in found.notes]
    if found.unique_rotation is not None and found.unique_symmetry is not None:
        lines.append(f"  derived: about {found.unique_rotation:,.1f} up to rotation (total / {found.rotations}), "
                     f"{found.unique_symmetry:,.1f} up to rotation and reflection (total / {found.symmetries}); "
                     "exact only when no assembly is symmetric, otherwise more")
    return "\n".join(lines)


@app.command()
def sample(
    model: ModelArg,
    n: Annotated[int, typer.Option("-n", min=1, max=1_000_000, help="How many random solutions.")] = 10,
    seed: SeedOpt = 1,
    out: Annotated[Path | None, typer.Option("--out", "-o", show_default="stdout",
                                             help="Write the solutions file here.")] = None,
    timeout: TimeoutOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary on stderr.")] = False,
    problem: ProblemOpt = None,
) -> None:
    """Draw N near-uniform random solutions (UniGen), written as a solutions file (one JSON line each,
    the format of `enumerate --out`) that show, draw, view and disassemble read.

    Each line is the assembly as drawn; its `class` numbers its class up to rotation and reflection
    in the order the sample meets it, so repeats of a class share it. Draws are independent: an
    assembly may come twice.
    """
    from .. import api

    src = api.source(model, problem)
    puzzle = src.require_puzzle("sample")
    inputs = inputs_of(src)
    if out is not None:  # refused before the sampling, which can take long; written whole once it is done
        api.check_output(out, inputs)
    try:
        drawn = api.sample(puzzle, n, seed=seed, timeout=timeout)
    except KeyboardInterrupt:
        _interrupted("sample", "nothing written")
    if not drawn:
        raise CpsolveError("has no assembly to sample", where=puzzle.name, exit_code=1)
    lines = [solution.as_line({"sample": k}) for k, solution in enumerate(drawn)]
    if out is None:
        for line in lines:
            typer.echo(line)
    else:
        api.write_output(out, "".join(line + "\n" for line in lines), inputs)
    if not quiet:
        classes = len({s.index for s in drawn})
        where = f" to {api.printable(str(out))}" if out is not None else ""
        print(f"cpsolve: {counted(len(drawn), 'random solution')} of "
              f"{api.printable(puzzle.name)}{where}, {counted(classes, 'distinct class', 'distinct classes')} up to "
              "rotation and reflection", file=sys.stderr)
