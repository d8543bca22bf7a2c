"""`cpsolve design`: search for puzzles with exactly one solution (issue 17): snake cubes (snake),
piece sets (pieces) and the changes that make a puzzle unique (unique), a sub-app of `app`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .common import (
    BackendOpt,
    ClearanceOpt,
    ModelArg,
    ProblemOpt,
    RotationsOpt,
    WorkersOpt,
    _check_timeout,
    app,
    default_workers,
    puzzle_of,
)

design_app = typer.Typer(help="Design puzzles with exactly one solution: snake cubes, piece sets, pieces to fix.",
                         no_args_is_help=True, rich_markup_mode=None)
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
        "--out", "-o", show_default="snake-AxBxC.census.jsonl",
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
    from .. import api

    show = _DesignProgress(quiet)
    try:
        summary = api.design_snakes(box, out=out, puzzles=puzzles, max_files=max_files, sample=sample, seed=seed,
                                        max_nodes=max_nodes, workers=workers or default_workers(), progress=show)
    finally:
        show.close()
    _echo_summary(summary, as_json)


def _echo_summary(summary: dict[str, Any], as_json: bool) -> None:
    """A design run's summary: one JSON object (null for a figure there is none of), or one `key: value` line per
    figure ("first unique seconds: none" when no design was unique, not Python's "None")."""
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        for key, value in summary.items():
            typer.echo(f"{key.replace('_', ' ')}: {'none' if value is None else value}")


@design_app.command("pieces")
def design_pieces(
    box: Annotated[str, typer.Option(help="Boxes, comma-separated AxBxC (e.g. 3x3x3 or 1x4x5,2x2x5).")] = "3x3x3",
    pool: Annotated[str, typer.Option(help="Pools of one grid, comma-separated: monocubes, dicubes, tricubes, "
                                           "tetracubes, pentacubes, pentominoes (cubes); moniamonds, diamonds, "
                                           "triamonds, tetriamonds, pentiamonds, hexiamonds, heptiamonds (prisms); "
                                           "square-balls-N, triangular-balls-N, N = 1 to 5 (spheres: flat pieces "
                                           "of balls).")] = "tricubes,tetracubes",
    pool_file: Annotated[Path | None, typer.Option(
        help="Take the pool from this puzzle file's pieces instead.")] = None,
    copies: Annotated[int, typer.Option(min=1, help="At most this many copies of a pool piece per set.")] = 1,
    backend: BackendOpt = "auto",
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", show_default="pieces.design.jsonl", help="JSON lines, one per candidate.")] = None,
    puzzles: Annotated[Path | None, typer.Option(help="Write the unique designs here as puzzle files.")] = None,
    max_files: Annotated[int, typer.Option(min=0, help="At most this many puzzle files.")] = 20,
    timeout: Annotated[float | None, typer.Option(help="Per candidate, in seconds.",
                                                  callback=lambda v: _check_timeout(v))] = None,
    workers: WorkersOpt = None,
    min_level: Annotated[str | None, typer.Option(
        help="Keep only unique designs whose solution comes apart at this level or above (2, 1.2, 1R1 with "
             "--rotations); the others count as below level.")] = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Piece sets from a pool that fill a box in exactly one way (up to rotation and reflection).

    Every multiset of pool pieces with the box's volume is a candidate; a piece that fits nowhere
    drops it at once, and the search stops at the second solution class. The box holds the cells of
    the pool's grid (on spheres, the balls of its checkerboard).
    """
    from .. import api

    show = _DesignProgress(quiet)
    try:
        pooled = puzzle_of(str(pool_file), None, "--pool-file") if pool_file else pool
        summary = api.design_pieces(box, pooled, copies=copies, backend=backend, out=out, puzzles=puzzles,
                                    max_files=max_files, timeout=timeout, workers=workers or default_workers(),
                                    progress=show, min_level=min_level, rotations=rotations,
                                    rotation_clearance=rotation_clearance or 0)
    finally:
        show.close()
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
    problem: ProblemOpt = None,
) -> None:
    """The fewest changes (one, else two) that leave exactly one assembly: fixed pieces, colour marks or holes.

    One enumeration counts every possible change; each suggestion is written as a puzzle file and
    proved by enumerating that file: total 1.
    """
    from .. import api

    found = api.design_unique(puzzle_of(model, problem, "design unique"), change, backend=backend, limit=limit,
                              puzzles=puzzles, source=f"cpsolve design unique {model} --change {change}")
    if as_json:
        typer.echo(json.dumps(found.as_json()))
        return
    typer.echo(api.printable(found.headline))
    for c in found.suggestions:
        typer.echo(api.printable(f"  {c.text} (x{c.orbit} by rotation): {c.file or 'the changed puzzle'} "
                                     f"enumerates to {c.verified_total}"))
    if not found.suggestions:
        raise typer.Exit(1)
