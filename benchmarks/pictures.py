"""How long a solution's picture takes to draw; writes results/pictures.md.

    python benchmarks/pictures.py

For each model, the first solution the dlx engine finds (`cpsolve.solve`) is drawn by `cpsolve.draw`,
what `cpsolve draw` runs (scene, painter's order, legend, title), as SVG and as PNG, assembled and
exploded. CPU milliseconds of this process (drawing uses one core), the lowest of 15 runs each after
one warm-up run (Pillow's fonts are loaded once per process): on a machine shared with other jobs,
wall-clock time measured their load as much as the drawing. The drawing is the part a user waits
for after a search; the test suite checks what is drawn (pixels and shapes), this table how long it
takes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import cpsolve
from cpsolve.output.tables import stamp

MODELS = ["soma", "bedlam", "conway-5x5x5", "t-tetracube-6x6x6"]
OUT = Path(__file__).resolve().parent.parent / "results" / "pictures.md"
COMMAND = "python benchmarks/pictures.py"


def lowest_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm-up: fonts, imports
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return 1000 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = []
    for model in MODELS:
        solution = cpsolve.solve(cpsolve.load(model), "dlx")
        if solution is None:
            raise SystemExit(f"{model}: no solution")
        timings = [lowest_ms(partial(cpsolve.draw, solution, fmt, exploded=exploded), args.runs)
                   for exploded in (False, True) for fmt in ("svg", "png")]
        cells = sum(len(c) for c in solution.pieces.values())
        rows.append((model, len(solution.pieces), cells, timings))
        print(model, " ".join(f"{t:.1f}" for t in timings), flush=True)
    lines = [
        "# Pictures: time to draw one solution",
        "",
        f"Regenerate with `{COMMAND}` (written {stamp()}).",
        "",
        f"The first solution the dlx engine finds, drawn by `cpsolve.draw` (what `cpsolve draw` runs); "
        f"CPU ms, the lowest of {args.runs} runs after a warm-up run.",
        "",
        "| model | pieces | cells | SVG ms | PNG ms | exploded SVG ms | exploded PNG ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {m} | {n} | {c} | " + " | ".join(f"{t:.1f}" for t in ts) + " |" for m, n, c, ts in rows]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
