"""The work per solution: the canonical form, compiled against its numpy twin; writes results/canonical.md.

    python benchmarks/canonical.py

For each model, the first 300 solutions the dlx engine finds are canonicalized by both
implementations (CPU microseconds per solution, the lower of 3 passes; each pass after a warm-up
call, so building the compiled tables is not counted). Both must give the same bytes.
"""

from __future__ import annotations

import platform
import time
from datetime import UTC, datetime
from pathlib import Path

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.enumeration import prepare

MODELS = ["soma", "bedlam", "tetris-cube", "t-tetracube-6x6x2", "conway-5x5x5", "y-pentacube-5x5x5"]
OUT = Path(__file__).resolve().parent.parent / "results" / "canonical.md"


def per_solution(fn, solutions) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for rows in solutions:
            fn(rows)
        best = min(best, time.process_time() - start)
    return 1e6 * best / len(solutions)


def main() -> None:
    lines = ["# Canonical forms: work per solution", "",
             f"Regenerate with `python benchmarks/canonical.py` (written {datetime.now(UTC):%Y-%m-%d %H:%M UTC};"
             f" {platform.machine()}, Python {platform.python_version()}).", "",
             "CPU microseconds per solution, the lower of 3 passes over the first 300 solutions the dlx engine",
             "finds; `compiled` is `cpsolve/problem/_canon.c`, `numpy` its twin `Canonicalizer.python_forms`.", "",
             "| model | cells | symmetries | identical copies | compiled µs | numpy µs | same bytes |",
             "|---|---:|---:|:-:|---:|---:|:-:|"]
    for model in MODELS:
        prepared = prepare(load(model))
        problem = prepared.broken.problem
        found: list[tuple[int, ...]] = []
        DlxBackend().search(problem, lambda rows: found.append(rows) or len(found) >= 300)  # noqa: B023
        canon = prepared.canonicalizer
        canon.forms(problem, found[0])
        fast = per_solution(lambda rows: canon.forms(problem, rows), found)  # noqa: B023
        slow = per_solution(lambda rows: canon.python_forms(problem, rows), found)  # noqa: B023
        same = all(canon.forms(problem, r) == canon.python_forms(problem, r) for r in found)
        copies = "yes" if any(k > 1 for k in problem.piece_counts) else "no"
        lines.append(f"| {model} | {problem.n_cells} | {len(canon.elements)} | {copies} | {fast:.1f} | {slow:.1f} "
                     f"| {'yes' if same else '**NO**'} |")
        print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
