"""`cpsolve design`: search for puzzles with exactly one solution (issue 17): snake cubes (snake),
piece sets (pieces) and the changes that make a puzzle unique (unique), a sub-app of `app`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import CpsolveError
from .common import BackendOpt, ModelArg, WorkersOpt, app, default_workers

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

    from ..analysis.design import snake

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

    from ..analysis.design import pieces as design
    from ..analysis.design.snake import parse_box
    from ..puzzle.catalog import load

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

    from ..analysis.design import unique
    from ..output.text import printable
    from ..puzzle.catalog import load

    if change not in unique.KINDS:
        raise CpsolveError(f"unknown change {change!r} (one of {', '.join(unique.KINDS)})", field="--change")
    puzzle = load(model)
    start = time.perf_counter()
    report = unique.suggest_changes(puzzle, change, backend, limit,
                                    source=f"cpsolve design unique {model} --change {change}")
    seconds = time.perf_counter() - start
    files: list[str | None] = []
    for c, file_name in zip(report.changes, report.file_names(), strict=True):
        path = None if puzzles is None else puzzles / file_name
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
    typer.echo(printable(report.headline(seconds)))
    for c, f in rows:
        typer.echo(printable(f"  {c.text} (x{c.orbit} by rotation): {f or 'the changed puzzle'} enumerates to "
                             f"{c.verified_total}"))
    if not report.changes:
        raise typer.Exit(1)
