"""Validation and figures for `cpsolve count --approx` (issue 29): ApproxMC's interval and Knuth's
estimate against every built-in model's known exact total, then the puzzles beyond enumeration.

    python benchmarks/approx.py --workers 2 --approxmc-timeout 60 --walk-seconds 20

For each model: ApproxMC's count (epsilon 0.8, delta 0.2, seed 1: the parts split on the key piece, each
part's CNF projected on the placement variables, `workers` parts at a time), whether its interval
holds the exact total, its wall time; Knuth's estimate with one standard error (seed 1, up to
--walks walks or --walk-seconds, on `workers` processes), how many walks reached a solution, whether
the exact total lies within 3 standard errors. A model whose ApproxMC run passes --approxmc-timeout
says so (those are the measured reasons for the rows without a count). Chains have no walks (their
joints are not exact cover). Seeds are fixed: the counts reproduce; the times are of a shared 2-core
machine. Writes results/approx.md (`--out`), with this command at the top.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import cpsolve  # noqa: E402

KNOWN = ["slothouber-graatsma", "cutler-burr-305", "six-piece-burr", "screws-3x3x3", "snake-3x3x3-unique",
         "snake-27", "t-tetracube-6x6x2", "cubissimo", "soma", "conway-5x5x5", "y-pentacube-5x5x5", "tetris-cube",
         "bedlam"]
"""Every built-in model with a published exact total, smallest first."""
UNKNOWN = ["t-tetracube-6x6x6"]
"""Beyond enumeration: no published count."""


def fmt(v: float | None) -> str:
    """Whole numbers with separators; three significant digits below 100 (an error bar) or from 1e9."""
    if v is None:
        return "-"
    if v and abs(v) < 100 and v != int(v):
        return f"{v:.3g}"
    return f"{v:,.0f}" if abs(v) < 1e9 else f"{v:.3e}"


def row(name: str, args: argparse.Namespace) -> tuple[str, ...]:
    puzzle = cpsolve.load(name)
    exact = puzzle.reference.counts()[0] if puzzle.reference is not None else None
    began = time.perf_counter()
    found = cpsolve.count_approx(puzzle, seed=1, walks=args.walks, timeout=args.approxmc_timeout,
                                 knuth_seconds=args.walk_seconds, workers=args.workers)
    wall = time.perf_counter() - began
    if found.total is not None and found.interval is not None:
        low, high = found.interval
        inside = "-" if exact is None else ("yes" if low <= exact <= high else "**no**")
        approx = (f"{fmt(found.total)}", f"{fmt(low)} - {fmt(high)}", inside, f"{found.seconds:.1f}")
    else:
        approx = ("-", "did not finish in " f"{args.approxmc_timeout:g} s", "-", "-")
    if found.knuth is not None and found.knuth_stderr is not None:
        within = "-" if exact is None else ("yes" if abs(found.knuth - exact) <= 3 * found.knuth_stderr else "**no**")
        knuth = (f"{fmt(found.knuth)} ± {fmt(found.knuth_stderr)}", f"{found.knuth_walks:,}",
                 f"{found.knuth_reached:,}", within, f"{found.knuth_seconds:.1f}")
    else:
        knuth = ("- (chain)", "-", "-", "-", "-")
    print(f"{name}: {approx} {knuth} {wall:.1f} s", file=sys.stderr, flush=True)
    return (name, fmt(exact) if exact is not None else "unknown", *approx, *knuth)


HEADER = ("model", "exact total", "ApproxMC", "interval (δ 0.2)", "holds exact", "ApproxMC s", "Knuth ± 1 s.e.",
          "walks", "reached", "within 3 s.e.", "Knuth s")


def table(rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--approxmc-timeout", type=float, default=60.0)
    parser.add_argument("--walks", type=int, default=1_000_000)
    parser.add_argument("--walk-seconds", type=float, default=20.0)
    parser.add_argument("--models", nargs="*", default=None, help="Only these (default: all).")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "approx.md")
    args = parser.parse_args()
    command = "python benchmarks/approx.py " + " ".join(sys.argv[1:])
    known = [m for m in KNOWN if args.models is None or m in args.models]
    unknown = [m for m in UNKNOWN if args.models is None or m in args.models]
    began = time.perf_counter()
    first = [row(m, args) for m in known]
    second = [row(m, args) for m in unknown]
    total = time.perf_counter() - began
    text = f"""# Approximate counts: validation and the unknowns (issue 29)

`{command}` ({total / 60:.1f} min of wall time on a shared 2-core machine)

ApproxMC (pyapproxmc 4.1.24; epsilon 0.8, delta 0.2, seed 1) counts the sat backend's CNF (pairwise
encoding) projected on the placement variables, split on the key piece: one part per kept key
placement, weighted by its orbit, each part with delta / parts (so the interval holds with probability
at least 0.8). Knuth: the unbiased estimate of the assemblies from random walks of the dlx engine's
tree, stratified over the same parts (seed 1), with one standard error; "reached" counts the walks that
reached a solution (the others are worth 0: with few, the error bar itself is unreliable).

## Models with a known total

{table(first)}

## Beyond enumeration

{table(second)}
"""
    args.out.write_text(text)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
