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

from .common import ModelArg, ProblemOpt, app, puzzle_of


@app.command()
def estimate(
    model: ModelArg,
    probes: Annotated[int, typer.Option(min=10, max=10_000_000, help="Random walks through the search tree.")] = 4000,
    symmetry_breaking: Annotated[bool, typer.Option(help="Estimate the symmetry-broken search.")] = True,
    problem: ProblemOpt = None,
) -> None:
    """Estimate the size of the search and its time on the dlx engine before running it.

    Knuth's estimator: random walks from the root, each adding the product of the branching degrees
    it meets; the mean is an unbiased estimate of the number of nodes. The time divides that by the
    engine's node rate on this puzzle, measured on a short sample of its own search.
    """
    from .. import api

    found = api.estimate(puzzle_of(model, problem, "estimate"), probes=probes, symmetry_breaking=symmetry_breaking)
    typer.echo(f"{api.printable(found.puzzle)}: about {found.nodes:,.0f} search nodes (± {found.stderr:,.0f}, "
               f"one standard error, {found.walks} walks); {found.symmetry_breaking}")
    if found.seconds is None or found.nodes_per_second is None:
        typer.echo("no time estimate: the dlx engine is not built here")
    else:
        typer.echo(f"about {found.seconds:,.1f} s on one core (± {found.seconds_spread or 0:,.1f} s) at the dlx "
                   f"engine's {found.nodes_per_second:,.0f} nodes/s on this puzzle")


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
    typer.echo(f"{printable(s.puzzle)}: {state} run; {s.parts_done} of {s.parts} subproblems done{share}")
    typer.echo(f"{s.found} solutions found in the finished subproblems; {s.classes} classes up to rotation and "
               f"reflection and {s.rotation_classes} up to rotation recorded")
    stamp = "%Y-%m-%d %H:%M:%S"
    typer.echo(f"started {time.strftime(stamp, time.localtime(s.started))}, last recorded "
               f"{time.strftime(stamp, time.localtime(s.updated))}; fingerprint {s.fingerprint}")
    if not s.complete and s.argv:
        typer.echo(f"continue with: {printable(s.resume_command)}")
