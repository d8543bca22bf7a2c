"""The commands that gauge a search without running it: estimate (how big it will be, before it
starts) and journal (how far a journalled run has got, and how to resume it). A module of their
own, imported after `files`, because `cpsolve --help` lists them after decode (see the package).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from .common import ModelArg, ProblemOpt, app, counted, puzzle_of, three_counts


@app.command()
def estimate(
    model: ModelArg,
    probes: Annotated[int, typer.Option(min=10, max=10_000_000, help="Random walks through the search tree.")] = 4000,
    symmetry_breaking: Annotated[bool, typer.Option(help="Estimate the symmetry-broken search.")] = True,
    backend: Annotated[str, typer.Option("--backend", "-b", help="The backend the run would use: only dlx's "
                                         "search is estimated (auto: dlx for packings).")] = "auto",
    problem: ProblemOpt = None,
) -> None:
    """Estimate the size of the search and its time on the dlx engine before running it.

    Knuth's estimator: random walks from the root, each adding the product of the branching degrees
    it meets; the mean is an unbiased estimate of the number of nodes. The time divides that by the
    engine's node rate on this puzzle, measured on a short sample of its own search.
    """
    from .. import api

    found = api.estimate(puzzle_of(model, problem, "estimate"), probes=probes, symmetry_breaking=symmetry_breaking,
                         backend=backend)
    typer.echo(str(found))


@app.command("journal")
def journal_cmd(
    file: Annotated[Path, typer.Argument(help="A run's journal (enumerate --journal, or SOLUTIONS_FILE.journal).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show where a journalled run stands: subproblems done, solutions so far, how to resume it.

    The journal is checked as a resume would check it (a damaged one is one line, exit 2); its strings
    are shown escaped and the command quoted for the shell: a journal can come from anyone."""
    from .. import api
    from ..api import printable

    s = api.read_journal(file)
    if as_json:
        typer.echo(json.dumps(s.as_json()))
        return
    share = f" ({100 * s.size_done / s.size:.1f} % of the estimated work)" if s.size else ""
    state = "complete" if s.complete else "unfinished"
    typer.echo(f"{printable(s.puzzle)}: {state} run; {s.parts_done} of {counted(s.parts, 'subproblem')} done{share}")
    if s.complete:  # the run's own summary line
        typer.echo(three_counts(s.total, s.rotation_classes, s.classes))
    else:  # the same three numbers, each as far as the journal knows it
        typer.echo(f"so far {s.classes} up to rotation and reflection written (the lines of the solutions file); in "
                   f"the finished subproblems {s.total} solutions in all, {s.rotation_classes} up to rotation (the "
                   "others are searched again on --resume)")
    stamp = "%Y-%m-%d %H:%M:%S"
    typer.echo(f"started {time.strftime(stamp, time.localtime(s.started))}, last recorded "
               f"{time.strftime(stamp, time.localtime(s.updated))}; fingerprint {s.fingerprint}")
    if not s.complete and s.argv:
        typer.echo(f"continue with: {api.shell_command([*s.argv, *([] if '--resume' in s.argv else ['--resume'])])}")
