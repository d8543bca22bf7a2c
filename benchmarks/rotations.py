"""Which assemblies come apart with quarter turns that do not by slides; writes results/rotations.md.

    python benchmarks/rotations.py [--files DIR] [--max-states 3000] [--seconds 60]

It fetches nothing. DIR is a folder of `.xmpuzzle` files (the public files of docs/disassembly-speed.md:
github.com/aaron-siegel/puzzlecad and github.com/kgeusens/burr-data-go); the library's burrs
(`six-piece-burr`, `cutler-burr-305`) and the turning lock of benchmarks/puzzles are always measured.

For each puzzle, its solution classes as the enumeration finds them, until `--seconds` have gone on the
puzzle: each is taken apart by slides (the C search, as `enumerate --disassemble`), and each that is
stuck again with quarter turns (`turning.disassemble_turning`, Python, at most `--max-states`
states per search). The table gives the classes looked at, those stuck by slides, those that come
apart with turns (and their levels), those still stuck, those past the state budget, and the CPU
seconds of the slides and of the turning searches. Stuck assemblies are the costly case: the turning
search has to exhaust every position and turn before it says so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cpsolve  # noqa: E402
from cpsolve.analysis.disassembly import TooManyStates, disassemble, puzzle_groups  # noqa: E402
from cpsolve.analysis.turning import disassemble_turning  # noqa: E402


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
    complete: bool = True
    """Every class of the puzzle was looked at within the time given."""


def measure(name: str, puzzle: cpsolve.Puzzle, max_states: int, seconds: float) -> Row:
    """One puzzle's row: its classes taken apart by slides, the stuck ones again with turns."""
    row = Row(name)
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
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=Path, action="append", default=[])
    parser.add_argument("--max-states", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "rotations.md")
    args = parser.parse_args()
    puzzles: list[tuple[str, cpsolve.Puzzle]] = [
        (n, cpsolve.load(n)) for n in ("six-piece-burr", "cutler-burr-305")]
    puzzles.append(("turning-lock", cpsolve.load(str(ROOT / "benchmarks" / "puzzles" / "turning-lock.yaml"))))
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
    rows = []
    for name, puzzle in puzzles:
        row = measure(name, puzzle, args.max_states, args.seconds)
        print(f"{name}: {row}", file=sys.stderr, flush=True)
        rows.append(row)
    load = os.getloadavg()[0]
    lines = [
        "# Quarter turns in disassembly: which assemblies they open",
        "",
        f"Made by `python benchmarks/rotations.py{' --files DIR' if args.files else ''} --max-states "
        f"{args.max_states} --seconds {args.seconds:g}` (its docstring says what is measured) on a shared 2-CPU "
        f"machine, load {load:.1f}. CPU seconds in this process; the turning search is Python.",
        "",
        "| puzzle | classes | stuck by slides | apart with turns (levels) | still stuck | past the budget "
        "| slides (s) | turns (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        levels = ", ".join(f"{n} at {lv}" for lv, n in sorted(r.apart.items())) or "0"
        classes = f"{r.classes}" + ("" if r.complete else " (time up)")
        lines.append(f"| {r.name} | {classes} | {r.stuck} | {levels} | {r.still_stuck} | {r.over} "
                     f"| {r.slide_seconds:.2f} | {r.turn_seconds:.2f} |")
    lines += ["", "A class is a solution up to rotation and reflection, as the solutions file has it.", ""]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
