"""A/B speed of two builds of the dlx engine on the same problems, interleaved in one process; the
engine's layouts on containers of more than 512 cells; and whole runs of large BurrTools files.

    cp cpsolve/search/_xcover*.so /tmp/old_xcover.so          # before changing the engine
    cp cpsolve/search/_estimate*.so /tmp/old_estimate.so      # (and the estimator, to compare its walks)
    ... change and rebuild ...
    taskset -c 0 python benchmarks/engine_ab.py --old /tmp/old_xcover.so --old-estimate /tmp/old_estimate.so \
        --big --versus moiras-cube.xmpuzzle --peers ../peers/bin --repeats 3

Why interleaved and in one process: the machine is shared and its speed drifts by tens of percent
over minutes, so absolute seconds from different runs do not compare; the ratio of two builds run
one after the other, alternating, on the same core does. Each model is searched exactly as
`cpsolve enumerate MODEL --workers 1` searches it (the same key restriction, one search per kept key
placement), without the per-solution Python work (callback None), so the figure is the engine's.

`--old-estimate` times the key choice's walks (every candidate key, every kept placement, as
`subtree_estimates` makes them) on both builds of `_estimate`, which must give the same walks.
`--big` times the two layouts that containers of more than 512 cells can get (`dlx.layout`: wide
bitboards from `_xcover_wide`, or dancing links), which search the same tree node for node: whole
searches where they end soon, else the first nodes (a node budget). `--versus FILE...` runs each file
as a user would, `cpsolve enumerate FILE --disassemble -w 1` (the dlx engine, which `auto` takes) and
with `-b sat` (what `auto` took for containers of more than 512 cells before the engine held them),
against BurrTools' `burrTxt -d` (`--peers`: its folder; ../shared/tools/build-peers.sh builds it):
CPU seconds of each whole process, and the counts must agree. The files are not in this repository:
Moira's Cube is `src/main/scad/alfons-eyckmans/moiras-cube/eyckmans.moiras-cube.xmpuzzle` of
https://github.com/aaron-siegel/puzzlecad.
Writes the tables to results/engine-ab.md (`--out`), with the command that made them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from peers import timed

from cpsolve.problem.symmetry import BrokenProblem, KeyChoice, apply_key, choose_key, container_group
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import box_cells
from cpsolve.puzzle.model import Piece, Puzzle
from cpsolve.search.backends.dlx import build_engine, layout
from cpsolve.search.enumeration import Prepared, build_problem, prepare
from cpsolve.search.parts import subproblems

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
KEY_MODELS = ("bedlam", "tetris-cube", "pentominoes-3x4x5")
"""Models whose key choice compares several candidates (the walks `--old-estimate` times)."""
BUDGET = 30_000
"""Nodes searched, on each layout, of a big puzzle whose whole search is out of reach."""


def load_module(path: Path, name: str = "_xcover") -> ModuleType:
    """A compiled module from another file: imported under a private package name (the init function
    is found by the last part of the name, so it must stay the module's own)."""
    spec = importlib.util.spec_from_file_location(f"engine_ab_old.{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def model_path(name: str) -> str:
    local = PUZZLES / f"{name}.yaml"
    return str(local) if local.exists() else name


def run(engine: Any, parts: list[tuple[int, ...]], budget: int = 0) -> tuple[float, int, int]:
    """CPU seconds, solutions and nodes of every part searched one after another (with a budget: until
    the first part that gives work back)."""
    start = time.process_time()
    solutions = nodes = 0
    for forced in parts:
        out = engine.search(None, forced=forced, budget=budget)
        solutions += out["solutions"]
        nodes += out["nodes"]
        if out["rest"]:
            break
    return time.process_time() - start, solutions, nodes


def interleaved(runs: dict[str, Callable[[], tuple[float, Any]]],
                repeats: int) -> tuple[dict[str, float], dict[str, Any]]:
    """The lowest CPU seconds of each run over `repeats` rounds, the runs alternating; and what each returned."""
    times: dict[str, list[float]] = {tag: [] for tag in runs}
    seen: dict[str, Any] = {}
    for _ in range(repeats):
        for tag, go in runs.items():
            seconds, seen[tag] = go()
            times[tag].append(seconds)
    return {tag: min(t) for tag, t in times.items()}, seen


def searches(engines: dict[str, Any], parts: list[tuple[int, ...]], repeats: int,
             budget: int = 0) -> tuple[dict[str, float], dict[str, tuple[int, int]]]:
    """`run` of each engine, interleaved: the lowest CPU seconds and (solutions, nodes) of each."""
    def runner(engine: Any) -> Callable[[], tuple[float, tuple[int, int]]]:
        def go() -> tuple[float, tuple[int, int]]:
            seconds, solutions, nodes = run(engine, parts, budget)
            return seconds, (solutions, nodes)
        return go

    return interleaved({tag: runner(engine) for tag, engine in engines.items()}, repeats)


def builds_table(old_module: ModuleType, repeats: int, only: list[str] | None) -> list[str]:
    lines = ["| model | old CPU s | new CPU s | new / old | solutions | old nodes | new nodes |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, sym in MODELS:
        label = name + ("" if sym else " --no-symmetry-breaking")
        if only and label not in only and name not in only:
            continue
        prepared = prepare(load(model_path(name)), symmetry_breaking=sym)
        problem = prepared.broken.problem
        parts = subproblems(prepared.broken)
        new = build_engine(problem)
        old = build_engine(problem, old_module.Engine)
        best, seen = searches({"old": old, "new": new}, parts, repeats)
        if seen["old"][0] != seen["new"][0]:
            raise SystemExit(f"{label}: solutions differ: old {seen['old'][0]}, new {seen['new'][0]}")
        lines.append(f"| {label} | {best['old']:.2f} | {best['new']:.2f} | {best['new'] / best['old']:.2f} "
                     f"| {seen['new'][0]} | {seen['old'][1]:,} | {seen['new'][1]:,} |")
        print(lines[-1], flush=True)
    return lines


def key_walks(module: ModuleType, keys: list[BrokenProblem]) -> tuple[float, list[list[float]]]:
    """CPU seconds and values of 50 walks per kept placement of each key, on `module`'s `probes`."""
    start = time.process_time()
    out = [module.probes(b.problem.n_cells, list(b.problem.piece_counts), [r.piece for r in b.problem.rows],
                         [r.cells for r in b.problem.rows], b.starts, 50, 7, True, True) for b in keys]
    return time.process_time() - start, out


def walks_table(old_estimate: ModuleType, repeats: int) -> list[str]:
    """The key choice's walks (50 per kept placement of every candidate key) on both estimator builds."""
    from cpsolve.search import _estimate as new_estimate

    lines = ["| model | candidate keys | walks | old CPU s | new CPU s | new / old |", "|---|---:|---:|---:|---:|---:|"]
    for name in KEY_MODELS:
        problem = build_problem(load(model_path(name)))
        seen: list[Sequence[KeyChoice]] = []

        def keep(candidates: Sequence[KeyChoice], seen: list[Sequence[KeyChoice]] = seen) -> KeyChoice:
            seen.append(candidates)
            return candidates[0]

        choose_key(problem, container_group(problem.cells, problem.cell_classes), None, keep)
        keys = [apply_key(problem, key) for key in seen[0]]
        best, values = interleaved({"old": partial(key_walks, old_estimate, keys),
                                    "new": partial(key_walks, new_estimate, keys)}, repeats)
        if values["old"] != values["new"]:
            raise SystemExit(f"{name}: the two estimators' walks differ")
        n_walks = 50 * sum(len(b.starts) for b in keys)
        lines.append(f"| {name} | {len(keys)} | {n_walks:,} | {best['old']:.2f} | {best['new']:.2f} "
                     f"| {best['new'] / best['old']:.2f} |")
        print(lines[-1], flush=True)
    return lines


def random_designer(size: tuple[int, int, int], shapes: int, copies: int, seed: int) -> Puzzle:
    """A box cut into `shapes` random face-connected pieces (grown cell by cell from random seeds,
    seeded), each used `copies` times in a box `copies` times as large along z: a designer-like
    puzzle with a known solution."""
    rng = random.Random(seed)
    cells = list(box_cells(size))
    inside = set(cells)
    owner = {c: i for i, c in enumerate(rng.sample(cells, shapes))}
    while len(owner) < len(cells):
        x, y, z = rng.choice(list(owner))
        dx, dy, dz = rng.choice(((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)))
        q = (x + dx, y + dy, z + dz)
        if q in inside and q not in owner:
            owner[q] = owner[(x, y, z)]
    pieces = []
    for i in range(shapes):
        part = [c for c, o in owner.items() if o == i]
        low = [min(c[a] for c in part) for a in range(3)]
        pieces.append(Piece(f"P{i}", tuple(sorted((c[0] - low[0], c[1] - low[1], c[2] - low[2]) for c in part)),
                            copies))
    container = (size[0], size[1], size[2] * copies)
    return Puzzle(f"random-{container[0]}x{container[1]}x{container[2]}-{shapes}x{copies}", box_cells(container),
                  tuple(pieces))


def big_puzzles(files: list[Path]) -> list[tuple[str, Prepared, int]]:
    """(label, prepared puzzle, node budget: 0 for the whole search) for the layouts table."""
    out: list[tuple[str, Prepared, int]] = []
    for path in files:
        out.append((path.stem, prepare(load(str(path))), 0))
    out.append(("box-10x8x8-cubes", prepare(load(model_path("box-10x8x8-cubes"))), 0))
    for name in ("y-pentacube-8x8x10", "yl-pentacube-8x8x10"):
        out.append((name, prepare(load(model_path(name))), BUDGET))
    for size, shapes, copies, seed in (((9, 9, 9), 24, 1, 1), ((8, 8, 5), 20, 2, 1), ((8, 4, 5), 10, 4, 2),
                                       ((4, 4, 5), 10, 8, 3), ((9, 9, 3), 27, 3, 4)):
        puzzle = random_designer(size, shapes, copies, seed)
        out.append((puzzle.name, prepare(puzzle, symmetry_breaking=False), 3000))
    return out


def layouts_table(files: list[Path], repeats: int) -> list[str]:
    lines = ["| puzzle | cells | placements | copies a piece | layout taken | wide bitboards CPU s | links CPU s "
             "| wide / links | nodes | solutions |", "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for label, prepared, budget in big_puzzles(files):
        problem = prepared.broken.problem
        parts = subproblems(prepared.broken)
        engines = {kind: build_engine(problem, chosen=kind) for kind in ("wide", "links")}
        best, seen = searches(engines, parts, repeats, budget)
        if seen["wide"] != seen["links"]:
            raise SystemExit(f"{label}: the layouts differ: {seen}")
        solutions, nodes = seen["links"]
        copies = sum(problem.piece_counts) / problem.n_pieces
        what = f"{nodes:,}" + (f" (the first {budget:,})" if budget else "")
        lines.append(f"| {label} | {problem.n_cells} | {len(problem.rows):,} | {copies:.1f} | {layout(problem)} "
                     f"| {best['wide']:.3f} | {best['links']:.3f} | {best['wide'] / best['links']:.2f} | {what} "
                     f"| {solutions:,} |")
        print(lines[-1], flush=True)
    return lines


def versus_table(files: list[Path], peers: Path, timeout: float) -> list[str]:
    """Whole processes, one after another: cpsolve with dlx and with sat, and burrTxt -d."""
    lines = ["| file | cells | program | CPU s | assemblies | solutions (come apart) |",
             "|---|---:|---|---:|---:|---:|"]
    for path in files:
        cells = build_problem(load(str(path))).n_cells
        counts = set()
        for label, extra in (("cpsolve, dlx (auto)", ()), ("cpsolve -b sat", ("-b", "sat"))):
            cmd = [sys.executable, "-m", "cpsolve", "enumerate", str(path), "--disassemble", "-w", "1", "--json",
                   "--no-save", "-q", *extra]
            status, cpu, out, err = timed(cmd, timeout)
            if status != 0:
                lines.append(f"| {path.stem} | {cells} | {label} | {'> ' if status is None else ''}{cpu:.1f} | "
                             f"{'timeout' if status is None else 'failed: ' + err.strip()[-60:]} | |")
                continue
            data = json.loads(out)
            found = (data["unique_symmetry"], data["disassembly"]["solutions"]["unique_symmetry"])
            counts.add(found)
            lines.append(f"| {path.stem} | {cells} | {label}: {data['backend']} | {cpu:.1f} | {found[0]:,} "
                         f"| {found[1]:,} |")
            print(lines[-1], flush=True)
        status, cpu, out, _ = timed([str(peers / "burrTxt"), "-d", "-q", str(path)], timeout)
        match = re.search(r"(\d+) assemblies and (\d+) solutions", out)
        if status == 0 and match:
            counts.add((int(match.group(1)), int(match.group(2))))
            lines.append(f"| {path.stem} | {cells} | burrTxt -d | {cpu:.1f} | {int(match.group(1)):,} "
                         f"| {int(match.group(2)):,} |")
        else:
            lines.append(f"| {path.stem} | {cells} | burrTxt -d | {'> ' if status is None else ''}{cpu:.1f} | "
                         f"{'timeout' if status is None else 'failed'} | |")
        print(lines[-1], flush=True)
        if len(counts) > 1:
            raise SystemExit(f"{path}: the programs' counts differ: {sorted(counts)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other build of _xcover (.so)")
    parser.add_argument("--old-estimate", type=Path, help="the other build of _estimate (.so): compare the walks")
    parser.add_argument("--big", action="store_true", help="compare the layouts of containers over 512 cells")
    parser.add_argument("--big-files", nargs="*", type=Path, default=[], help="more puzzles for --big")
    parser.add_argument("--versus", nargs="*", type=Path, default=[], help="files to run whole against burrTxt -d")
    parser.add_argument("--peers", type=Path, help="the folder holding burrTxt (for --versus)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per program in --versus")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", nargs="*", help="labels or model names (default: all)")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "engine-ab.md")
    args = parser.parse_args()
    command = "taskset -c 0 python benchmarks/engine_ab.py " + " ".join(sys.argv[1:])
    text = ["# dlx engine: A/B against the previous build", "",
            f"Regenerate with `{command.strip()}` (OLD: the previous builds copied aside).", "",
            "## Containers of up to 512 cells: the previous build and this one", "",
            "CPU seconds of the search alone (every kept key placement, no per-solution Python work), the lower of",
            f"{args.repeats} runs, old and new build alternating in one process on one core: only the ratio is",
            "meaningful on a shared machine. Solutions must agree (the script stops otherwise); node counts may",
            "differ where the engines prune differently.", "",
            *builds_table(load_module(args.old), args.repeats, args.models)]
    if args.old_estimate:
        text += ["", "## The key choice's walks: the previous estimator and this one", "",
                 "CPU seconds of 50 walks per kept placement of every candidate key (what the key choice's second",
                 "round makes), old and new `_estimate` alternating, the lower of", f"{args.repeats} runs; the walks",
                 "must be the same, number for number.", "",
                 *walks_table(load_module(args.old_estimate, "_estimate"), args.repeats)]
    if args.big:
        text += ["", "## Containers of more than 512 cells: wide bitboards and dancing links", "",
                 "The same search on the two layouts (the same nodes, checked), CPU seconds, the lower of",
                 f"{args.repeats} runs alternating; `layout taken` is what `dlx.layout` gives the puzzle. Where the",
                 "whole search is out of reach, the first nodes (a node budget). The random puzzles are boxes cut",
                 "into random pieces (`random_designer`), each piece used `copies a piece` times.", "",
                 *layouts_table(args.big_files, args.repeats)]
    if args.versus:
        if args.peers is None:
            raise SystemExit("--versus needs --peers")
        text += ["", "## Whole runs against BurrTools", "",
                 "`cpsolve enumerate FILE --disassemble -w 1` on the dlx engine, the same with `-b sat` (what `auto`",
                 "took before the engine held more than 512 cells), and `burrTxt -d FILE`: CPU seconds of each whole",
                 "process, one after another; assemblies up to rotation and reflection, and those that come apart",
                 "(the programs must agree).", "", *versus_table(args.versus, args.peers, args.timeout)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
