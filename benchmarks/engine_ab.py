"""A/B speed of two builds of the dlx engine on the same problems, interleaved in one process.

    cp cpsolve/search/_xcover*.so /tmp/old_xcover.so          # before changing the engine
    ... change and rebuild ...
    taskset -c 0 python benchmarks/engine_ab.py --old /tmp/old_xcover.so --repeats 3

Why interleaved and in one process: the machine is shared and its speed drifts by tens of percent
over minutes, so absolute seconds from different runs do not compare; the ratio of two builds run
one after the other, alternating, on the same core does. Each model is searched exactly as
`cpsolve enumerate MODEL --workers 1` searches it (the same key restriction, one search per kept key
placement), without the per-solution Python work (callback None), so the figure is the engine's.
Writes the table to results/engine-ab.md (`--out`), with the command that made it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import build_engine
from cpsolve.search.enumeration import prepare, subproblems

REPO = Path(__file__).resolve().parent.parent
PUZZLES = REPO / "benchmarks" / "puzzles"
MODELS: list[tuple[str, bool]] = [  # (model, symmetry breaking)
    ("bedlam", True),
    ("tetris-cube", True),
    ("y-pentacube-5x5x5", True),
    ("conway-5x5x5", True),
    ("conway-5x5x5", False),
    ("pentominoes-6x10", True),
    ("pentominoes-3x4x5", True),
    ("l-tetracube-3x4x4", True),
    ("t-tetracube-6x6x2", True),
    ("soma", True),
]


def load_module(path: Path) -> ModuleType:
    """A compiled `_xcover` from another file: imported under a private package name (the init
    function is found by the last part of the name, so it must stay `_xcover`)."""
    spec = importlib.util.spec_from_file_location("engine_ab_old._xcover", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_path(name: str) -> str:
    local = PUZZLES / f"{name}.yaml"
    return str(local) if local.exists() else name


def run(engine: Any, parts: list[tuple[int, ...]]) -> tuple[float, int, int]:
    """CPU seconds, solutions and nodes of every part searched one after another."""
    start = time.process_time()
    solutions = nodes = 0
    for forced in parts:
        out = engine.search(None, forced=forced)
        solutions += out["solutions"]
        nodes += out["nodes"]
    return time.process_time() - start, solutions, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other build of _xcover (.so)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", nargs="*", help="labels or model names (default: all)")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "engine-ab.md")
    args = parser.parse_args()
    old_module = load_module(args.old)
    lines = ["| model | old CPU s | new CPU s | new / old | solutions | old nodes | new nodes |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, sym in MODELS:
        label = name + ("" if sym else " --no-symmetry-breaking")
        if args.models and label not in args.models and name not in args.models:
            continue
        prepared = prepare(load(model_path(name)), symmetry_breaking=sym)
        problem = prepared.broken.problem
        parts = subproblems(prepared.broken)
        new = build_engine(problem)
        old = build_engine(problem, old_module.Engine)
        times: dict[str, list[float]] = {"old": [], "new": []}
        seen: dict[str, tuple[int, int]] = {}
        for _ in range(args.repeats):
            for tag, engine in (("old", old), ("new", new)):
                seconds, solutions, nodes = run(engine, parts)
                times[tag].append(seconds)
                seen[tag] = (solutions, nodes)
        if seen["old"][0] != seen["new"][0]:
            raise SystemExit(f"{label}: solutions differ: old {seen['old'][0]}, new {seen['new'][0]}")
        t_old, t_new = min(times["old"]), min(times["new"])
        lines.append(f"| {label} | {t_old:.2f} | {t_new:.2f} | {t_new / t_old:.2f} | {seen['new'][0]} "
                     f"| {seen['old'][1]:,} | {seen['new'][1]:,} |")
        print(lines[-1], flush=True)
    command = "taskset -c 0 python benchmarks/engine_ab.py " + " ".join(sys.argv[1:])
    text = "\n".join([
        "# dlx engine: A/B against the previous build", "",
        f"Regenerate with `{command.strip()}` (OLD: the previous `_xcover` build copied aside).", "",
        "CPU seconds of the search alone (every kept key placement, no per-solution Python work), the lower of",
        f"{args.repeats} runs, old and new build alternating in one process on one core: only the ratio is",
        "meaningful on a shared machine. Solutions must agree (the script stops otherwise); node counts may",
        "differ where the engines prune differently.", "", *lines]) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
