"""BurrTools' other grids against the cube grid; writes results/grids.md.

    python benchmarks/grids.py                      # before = the commit before the grids work
    python benchmarks/grids.py --before REF --repeats 3

Two questions, each answered in one run on this machine:

1. Did making the cube grid one grid among five slow it down? The same `cpsolve enumerate MODEL
   --no-save -q -w 1` of Bedlam and the Tetris Cube runs on `--before` (a commit unpacked with `git
   archive` into a temporary folder, its C extensions built there) and on this working tree,
   alternately, `--repeats` times each; the figure is the CPU seconds of the whole process (user +
   system, from `wait4`), the lower of the repeats.
2. Does a search node cost more on the sphere grid (12 neighbours a cell) than on cubes? The dlx
   engine alone searches each puzzle's symmetry-broken subproblems (no canonical forms, no files), in
   this process; the figure is CPU microseconds per search node, the lower of the repeats.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "results" / "grids.md"
BEFORE = "eb887ab"
"""The commit the grids work started from (main at the time)."""
MODELS = ["bedlam", "tetris-cube"]
PER_NODE = [  # (label, model or file, grid, symmetry breaking)
    ("kanoodle-pyramid", "kanoodle-pyramid", "spheres", True),
    ("kanoodle-pyramid, no symmetry breaking", "kanoodle-pyramid", "spheres", False),
    ("hexiamonds-6x6", "hexiamonds-6x6", "prisms", True),
    ("hexiamonds-6x6, no symmetry breaking", "hexiamonds-6x6", "prisms", False),
    ("pentominoes-6x10", str(REPO / "benchmarks" / "puzzles" / "pentominoes-6x10.yaml"), "cubes", True),
    ("soma, no symmetry breaking", "soma", "cubes", False),
    ("conway-5x5x5", "conway-5x5x5", "cubes", True),
    ("tetris-cube", "tetris-cube", "cubes", True),
]


def run_timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """CPU seconds of one child (wait4 on it), its output."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out[-500:]}")
    return usage.ru_utime + usage.ru_stime, out


def unpack(ref: str, into: Path) -> None:
    """The tree of commit `ref` in `into`, its C extensions built in place."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=into, check=True,
                   capture_output=True)


def cube_rows(before: str, repeats: int) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        unpack(before, old)
        trees = {"before": old, "after": REPO}
        best: dict[tuple[str, str], float] = {}
        counts: dict[tuple[str, str], str] = {}
        for _ in range(repeats):
            for model in MODELS:
                for label, tree in trees.items():
                    env = {**os.environ, "PYTHONPATH": str(tree)}
                    cpu, out = run_timed([sys.executable, "-m", "cpsolve", "enumerate", model, "--no-save", "-q",
                                          "-w", "1"], env)
                    best[(model, label)] = min(best.get((model, label), cpu), cpu)
                    counts[(model, label)] = out.splitlines()[0].split(": ", 1)[1]
        for model in MODELS:
            b, a = best[(model, "before")], best[(model, "after")]
            same = "yes" if counts[(model, "before")] == counts[(model, "after")] else "NO"
            rows.append(f"| {model} | {b:.2f} | {a:.2f} | {a / b:.3f} | {same}: {counts[(model, 'after')]} |")
    return rows


def per_node_rows(repeats: int) -> list[str]:
    from cpsolve.puzzle.catalog import load
    from cpsolve.search.backends.dlx import build_engine
    from cpsolve.search.enumeration import prepare

    rows = []
    per_node: dict[str, list[float]] = {}
    for label, model, grid, breaking in PER_NODE:
        prepared = prepare(load(model), symmetry_breaking=breaking)
        problem = prepared.broken.problem
        engine = build_engine(problem)
        best = float("inf")
        nodes = 0
        for _ in range(repeats):
            start = time.process_time()
            nodes = 0
            for forced in prepared.broken.starts:
                out = engine.search(lambda rows: False, forced=forced)
                nodes += out["nodes"]
            best = min(best, time.process_time() - start)
        faces = problem.faces
        per_node.setdefault(grid, []).append(best / nodes * 1e6)
        rows.append(f"| {label} | {grid} | {faces} | {problem.n_cells} | {len(problem.rows)} | {nodes:,} | "
                    f"{best:.3f} | {best / nodes * 1e6:.3f} |")
    cubes = sorted(per_node["cubes"])
    middle = cubes[len(cubes) // 2] if len(cubes) % 2 else (cubes[len(cubes) // 2 - 1] + cubes[len(cubes) // 2]) / 2
    rows.append("")
    for grid in ("spheres", "prisms"):
        worst = max(per_node[grid])
        rows.append(f"{grid}: at most {worst:.3f} µs a node, {worst / middle:.2f} x the cube puzzles' median "
                    f"({middle:.3f} µs; {worst / cubes[0]:.2f} x their fastest, {cubes[0]:.3f} µs).")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default=BEFORE, help="the commit to compare the cube grid with")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    nodes = per_node_rows(args.repeats)  # first: quick, and a slip here should not cost the long part
    cubes = cube_rows(args.before, args.repeats)
    lines = [
        "# The grids: the cube grid before and after, and the cost of a search node on each grid",
        "",
        f"Regenerate with `python benchmarks/grids.py --before {args.before} --repeats {args.repeats}` "
        f"(written {started}; {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average {load:.1f} at the start: the machine is shared, only ratios measured side by side mean much).",
        "",
        "## The cube grid, before and after the grid abstraction",
        "",
        f"CPU seconds of `cpsolve enumerate MODEL --no-save -q -w 1` (the whole process), the lower of "
        f"{args.repeats}, before (`{args.before}`) and after (this tree), run alternately.",
        "",
        "| model | before s | after s | after / before | same counts |",
        "|---|---:|---:|---:|---|",
        *cubes,
        "",
        "## CPU per search node, by grid",
        "",
        "The dlx engine alone on each puzzle's symmetry-broken subproblems (every solution found, nothing",
        f"done with it), in one process, the lower of {args.repeats}. `faces`: face neighbours a cell has",
        "(region pruning looks at them).",
        "",
        "| puzzle | grid | faces | cells | rows | nodes | CPU s | µs per node |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        *nodes,
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
