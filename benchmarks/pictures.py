"""How long a solution's picture takes to draw; writes results/pictures.md.

    python benchmarks/pictures.py

For each model, the first solution the dlx engine finds is drawn as `cpsolve draw` draws it (scene,
painter's order, legend) and encoded as SVG and as PNG, assembled and exploded. Wall-clock
milliseconds, the lowest of 5 runs each after one warm-up run (Pillow's fonts are loaded once per
process). The drawing is the part a user waits for after a search; the test suite checks what is
drawn (pixels and shapes), this table how long it takes.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from cpsolve.output import pictures
from cpsolve.output.solutions import labelled, rows_as_placements
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends import for_problem
from cpsolve.search.enumeration import first_solution, prepare

MODELS = ["soma", "bedlam", "conway-5x5x5", "t-tetracube-6x6x6"]
OUT = Path(__file__).resolve().parent.parent / "results" / "pictures.md"
COMMAND = "python benchmarks/pictures.py"


def first_pieces(model: str) -> tuple[dict[str, list[tuple[int, int, int]]], dict[str, str | None], int]:
    """The first solution of `model` as `{label: cells}`, the pieces' colours, and its cell count."""
    puzzle = load(model)
    prepared = prepare(puzzle)
    rows, _ = first_solution(prepared, for_problem("dlx", prepared.problem))
    if rows is None:
        raise SystemExit(f"{model}: no solution")
    problem = prepared.broken.problem
    pieces = labelled(problem, rows_as_placements(problem, rows))
    colors = {p.name: p.color for p in puzzle.pieces}
    return pieces, colors, sum(len(cells) for cells in pieces.values())


def draw(pieces: dict[str, list[tuple[int, int, int]]], colors: dict[str, str | None], title: str, explode: bool,
         fmt: str) -> bytes:
    return pictures.encode(pictures.draw_solution(pieces, colors, explode=explode, title=title), fmt)


def lowest_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm-up: fonts, imports
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return 1000 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = []
    for model in MODELS:
        pieces, colors, cells = first_pieces(model)
        timings = []
        for explode in (False, True):
            for fmt in ("svg", "png"):
                timings.append(lowest_ms(partial(draw, pieces, colors, model, explode, fmt), args.runs))
        rows.append((model, len(pieces), cells, timings))
        print(model, " ".join(f"{t:.1f}" for t in timings), flush=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Pictures: time to draw one solution",
        "",
        f"Regenerate with `{COMMAND}` (written {stamp}; {platform.machine()}, Python {platform.python_version()}).",
        "",
        f"The first solution the dlx engine finds, drawn as `cpsolve draw` draws it; wall-clock ms, the lowest of "
        f"{args.runs} runs after a warm-up run.",
        "",
        "| model | pieces | cells | SVG ms | PNG ms | exploded SVG ms | exploded PNG ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {m} | {n} | {c} | " + " | ".join(f"{t:.1f}" for t in ts) + " |" for m, n, c, ts in rows]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
