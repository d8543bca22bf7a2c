"""Where the dlx engine spends its work on one model: nodes, dead ends, list entries scanned, per key piece.

    python benchmarks/profile_engine.py bedlam            # writes results/engine-profile-bedlam.md

For the key piece cpsolve uses (the model file's `key_piece`, else the automatic one: the smallest
estimated tree) it also runs with region pruning (off by default); then it tries every other single-copy piece as
the key (`--all-keys`, the default) to show how much the key choice matters, each row with the
nodes Knuth's estimator predicted (`cpsolve.search.estimate`, 50 walks per kept key placement). CPU seconds
are one run each (this is a profile, not a benchmark: see benchmarks/run.py for medians).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cpsolve.problem.placements import ExactCoverProblem
from cpsolve.problem.symmetry import KeyChoice, apply_key, choose_key, container_group
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import DlxBackend, build_engine
from cpsolve.search.enumeration import build_problem
from cpsolve.search.estimate import smallest_tree_key, subtree_estimate
from cpsolve.search.parts import plan


def profile(problem: ExactCoverProblem, key: KeyChoice, region_pruning: bool = False,
            workers: int = 1) -> dict[str, float]:
    """Search every part `--workers` would run (one per kept key placement when serial), one after
    the other; add up the engine's counters. With workers > 1 this shows whether splitting adds search."""
    broken = apply_key(problem, key)
    engine = build_engine(broken.problem)
    total: dict[str, float] = {"solutions": 0, "nodes": 0, "dead": 0, "scanned": 0}
    start = time.process_time()
    for forced in plan(broken, workers, DlxBackend.parts_per_worker):
        out = engine.search(None, forced=forced, region_pruning=region_pruning)
        for k in total:
            total[k] += out[k]
    total["cpu_seconds"] = round(time.process_time() - start, 2)
    total["estimated"] = subtree_estimate(problem, key)
    total["kept"] = len(broken.key_rows)
    total["parts"] = len(plan(broken, workers, DlxBackend.parts_per_worker))
    return total


def row(label: str, p: dict[str, float]) -> str:
    dead = p["dead"] / p["nodes"] if p["nodes"] else 0
    per = p["scanned"] / p["nodes"] if p["nodes"] else 0
    return (f"| {label} | {p['kept']} | {p['solutions']} | {p['nodes']:,} | {p['estimated']:,.0f} | {dead:.0%} "
            f"| {p['scanned']:,} | {per:.0f} | {p['cpu_seconds']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--no-all-keys", dest="all_keys", action="store_false")
    parser.add_argument("--out-dir", type=Path, default=Path("results"))
    args = parser.parse_args()
    puzzle = load(args.model)
    problem = build_problem(puzzle)
    group = container_group(problem.cells)
    auto = choose_key(problem, group, puzzle.key_piece, smallest_tree_key(problem))
    automatic = choose_key(problem, group)  # the fewest-representatives rule alone
    header = [("| run | key placements kept | solutions found | nodes | estimated nodes | dead on arrival "
               "| entries scanned | scanned per node | CPU s |"), "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    source = "the model file's key_piece" if puzzle.key_piece else "automatic: smallest estimated tree"
    lines = [row(f"{auto.describe()} ({source})", profile(problem, auto)),
             row(f"{auto.describe()}, with region pruning", profile(problem, auto, region_pruning=True))]
    split = profile(problem, auto, workers=2)
    lines.append(row(f"{auto.describe()}, its {split['parts']} parts for --workers 2, one after another", split))
    print("\n".join(header + lines), flush=True)
    if args.all_keys:
        for p, name in enumerate(problem.piece_names):
            if problem.piece_counts[p] == 1 and name != auto.name:
                label = f"key piece {name}" + (" (fewest representatives)"
                                               if name == automatic.name != auto.name else "")
                lines.append(row(label, profile(problem, choose_key(problem, group, name))))
                print(lines[-1], flush=True)
    command = "python benchmarks/profile_engine.py " + " ".join(sys.argv[1:])
    text = "\n".join([f"# dlx engine profile: {args.model}", "", f"Regenerate with `{command.strip()}`.", "",
                      "Nodes = search calls; dead on arrival = nodes that found an empty cell or a piece with no",
                      "placement left; entries scanned = placements filtered while building children's lists.",
                      "Solutions found can exceed the classes when a key's placements have non-trivial",
                      "stabilisers (the canonicalizer dedupes them). The parts row searches, one after",
                      "another, the subproblems --workers 2 hands out: nodes beyond the first row's (less",
                      "the prefixes the planner expanded itself) would be search that splitting adds.", "",
                      *header, *lines]) + "\n"
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / f"engine-profile-{args.model}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
