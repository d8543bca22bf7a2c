"""Which assemblies come apart with quarter turns that do not by slides; writes results/rotations.md.

    python benchmarks/rotations.py [--files DIR] [--max-states 3000] [--seconds 60] [--pairs 2000]

It fetches nothing. DIR is a folder of `.xmpuzzle` files (the public files of docs/disassembly-speed.md:
github.com/aaron-siegel/puzzlecad and github.com/kgeusens/burr-data-go); the library's burrs
(`six-piece-burr`, `cutler-burr-305`) and the turning lock and the twist cube of benchmarks/puzzles are
always measured.

For each puzzle, its solution classes as the enumeration finds them, until `--seconds` have gone on the
puzzle: each is taken apart by slides (the C search, as `enumerate --disassemble`), and each that is
stuck again with quarter turns (`turning.disassemble_turning`, Python, at most `--max-states`
states per search). The table gives the classes looked at, those stuck by slides, those that come
apart with turns (and their levels), those still stuck, those past the state budget, and the CPU
seconds of the slides and of the turning searches, the sweep test in C (`_turns.c`) and then, on the
same stuck classes, its Python twin (`native=False`). Stuck assemblies are the costly case: the turning
search has to exhaust every position and turn before it says so.

Before the table, the sweep test of one pair of squares alone: `--pairs` random pairs (doubled corners
within 10 of the pivot, clearance 0 and 1/10), each decided by the C and by the twin (its cache cleared).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cpsolve  # noqa: E402
from cpsolve.analysis.disassembly import TooManyStates, disassemble, puzzle_groups  # noqa: E402
from cpsolve.analysis.turning import disassemble_turning  # noqa: E402
from cpsolve.analysis.turns import native_available, sweep_hits, sweep_hits_twin  # noqa: E402


@dataclass
class Row:
    name: str
    classes: int = 0
    stuck: int = 0
    apart: Counter[str] = field(default_factory=Counter)
    still_stuck: int = 0
    over: int = 0
    slide_seconds: float = 0.0
    turn_seconds: float = 0.0
    """The turning searches with the sweep test in C."""
    twin_seconds: float = 0.0
    """The same searches with the sweep test's Python twin."""
    complete: bool = True
    """Every class of the puzzle was looked at within the time given."""


def measure(name: str, puzzle: cpsolve.Puzzle, max_states: int, seconds: float) -> Row:
    """One puzzle's row: its classes taken apart by slides, the stuck ones again with turns."""
    row = Row(name)
    stuck: list[dict[str, tuple[tuple[int, int, int], ...]]] = []
    groups = puzzle_groups(puzzle)
    began = time.process_time()
    with cpsolve.enumerate(puzzle, timeout=seconds) as found:
        for solution in found:
            if time.process_time() - began > seconds:
                row.complete = False
                break
            row.classes += 1
            t = time.process_time()
            slid = disassemble(solution.pieces, groups)
            row.slide_seconds += time.process_time() - t
            if slid.ok:
                continue
            row.stuck += 1
            stuck.append(solution.pieces)
            t = time.process_time()
            try:
                turned = disassemble_turning(solution.pieces, groups, max_states=max_states)
            except TooManyStates:
                row.over += 1
            else:
                if turned.ok:
                    row.apart[turned.level_text() or ""] += 1
                else:
                    row.still_stuck += 1
            row.turn_seconds += time.process_time() - t
    for pieces in stuck:  # the same searches with the twin (same answers: the tests check it)
        t = time.process_time()
        with contextlib.suppress(TooManyStates):
            disassemble_turning(pieces, groups, max_states=max_states, native=False)
        row.twin_seconds += time.process_time() - t
    return row


def pair_times(pairs: int, seed: int = 1) -> tuple[float, float]:
    """Microseconds per pair of squares: the C's sweep test and the twin's, on the same random pairs
    (the twin's cache cleared first, so that each pair is computed)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(pairs):
        odd = rng.randint(0, 1)
        a2 = (2 * rng.randint(-5, 4) + odd, 2 * rng.randint(-5, 4) + odd)
        b2 = (2 * rng.randint(-5, 4) + odd, 2 * rng.randint(-5, 4) + odd)
        cases.append((a2, b2, Fraction(rng.choice([0, 0, 1]), 10)))
    sweep_hits_twin.cache_clear()
    t = time.process_time()
    twin = [sweep_hits_twin(a, b, c) for a, b, c in cases]
    twin_us = (time.process_time() - t) / pairs * 1e6
    t = time.process_time()
    native = [sweep_hits(a, b, c) for a, b, c in cases]
    native_us = (time.process_time() - t) / pairs * 1e6
    assert native == twin, "the C and the twin disagree"
    return native_us, twin_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, action="append", default=[])
    parser.add_argument("--max-states", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "rotations.md")
    args = parser.parse_args()
    puzzles: list[tuple[str, cpsolve.Puzzle]] = [
        (n, cpsolve.load(n)) for n in ("six-piece-burr", "cutler-burr-305")]
    for made in ("turning-lock", "twist-cube"):
        puzzles.append((made, cpsolve.load(str(ROOT / "benchmarks" / "puzzles" / f"{made}.yaml"))))
    for folder in args.files:
        for path in sorted(folder.glob("*.xmpuzzle")):
            try:
                src = cpsolve.source(str(path))
                puzzle = src.require_puzzle("enumerate")
            except cpsolve.CpsolveError as exc:
                print(f"{path.name}: left out ({exc})", file=sys.stderr)
                continue
            if puzzle.grid != "cubes":
                continue
            puzzles.append((path.stem, puzzle))
    if not native_available():
        parser.error("the sweep test is not compiled here (python setup.py build_ext --inplace)")
    native_us, twin_us = pair_times(args.pairs)
    print(f"one pair: C {native_us:.2f} us, twin {twin_us:.1f} us", file=sys.stderr)
    rows = []
    for name, puzzle in puzzles:
        row = measure(name, puzzle, args.max_states, args.seconds)
        print(f"{name}: {row}", file=sys.stderr, flush=True)
        rows.append(row)
    load = os.getloadavg()
    lines = [
        "# Quarter turns in disassembly: which assemblies they open",
        "",
        f"Made by `python benchmarks/rotations.py{' --files DIR' if args.files else ''} --max-states "
        f"{args.max_states} --seconds {args.seconds:g} --pairs {args.pairs}` (its docstring says what is "
        f"measured) on a shared 2-CPU machine, load {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} (`uptime`, at the "
        "end). CPU seconds in this process; the turning search is Python, its sweep test C (`turns (s)`) or "
        "the Python twin (`twin (s)`, the same classes).",
        "",
        f"The sweep test of one pair of squares: {native_us:.2f} us in C, {twin_us:.0f} us in the twin "
        f"({twin_us / native_us:.0f} times), {args.pairs} random pairs.",
        "",
        "| puzzle | classes | stuck by slides | apart with turns (levels) | still stuck | past the budget "
        "| slides (s) | turns (s) | twin (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        levels = ", ".join(f"{n} at {lv}" for lv, n in sorted(r.apart.items())) or "0"
        classes = f"{r.classes}" + ("" if r.complete else " (time up)")
        lines.append(f"| {r.name} | {classes} | {r.stuck} | {levels} | {r.still_stuck} | {r.over} "
                     f"| {r.slide_seconds:.2f} | {r.turn_seconds:.2f} | {r.twin_seconds:.2f} |")
    lines += ["", "A class is a solution up to rotation and reflection, as the solutions file has it.", ""]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
