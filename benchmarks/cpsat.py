"""CP-SAT against dlx, both with two workers and to the end; writes results/cpsat.md.

    python benchmarks/cpsat.py                 # Bedlam, the Tetris Cube and three small models, ~15 min
    python benchmarks/cpsat.py --models soma   # any models (names or paths)

Every timed run is `cpsolve enumerate MODEL --backend B --workers 2 --json --quiet --no-save` as a
user runs it (a fresh process), dlx then cpsat, one after another. Wall seconds are the process's;
CPU seconds the process's and its workers' (rusage of children). The counts of the two must agree.

The "where the time goes" section runs CP-SAT in this process on a few of Bedlam's subproblems (the
same split as `--workers 2`): dlx's nodes against CP-SAT's branches and conflicts, the time per
conflict, the time CP-SAT spends before its search starts (copying and presolving the model), and
the cost of reading one solution in the callback, the old way (iterating over the response's
values) and the current one (`cpsat._rows_reader`).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import scaling  # benchmarks/scaling.py: the runner of `cpsolve enumerate` processes
from scaling import counts

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("bedlam", "tetris-cube", "soma", "conway-5x5x5", "y-pentacube-5x5x5")
SAMPLE_PARTS = 3
"""How many of Bedlam's smallest subproblems the in-process section runs (each a few seconds)."""


def run(model: str, backend: str) -> dict[str, Any]:
    """One `cpsolve enumerate` run with two workers: its JSON, wall and CPU seconds (scaling.py's runner)."""
    return scaling.run([model, "--backend", backend, "--workers", "2"], ROOT)


def timed_section(models: list[str]) -> list[str]:
    lines = ["## To the end, two workers", "",
             "`ratio` = cpsat / dlx, of wall seconds (the goal's measure) and of CPU seconds. `enumeration s` is "
             "the run's own figure (`seconds` in `--json`: the search, counting and writing, not the start of the "
             "process nor the preparation of the puzzle).", "",
             "| model | backend | wall s | CPU s | enumeration s | subproblems | counts | ratio wall | ratio CPU |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|"]
    for model in models:
        dlx, cpsat = run(model, "dlx"), run(model, "cpsat")
        if counts(dlx) != counts(cpsat):
            raise SystemExit(f"{model}: counts differ, dlx {counts(dlx)} against cpsat {counts(cpsat)}")
        for name, r in (("dlx", dlx), ("cpsat", cpsat)):
            ratios = (f"{cpsat['wall'] / dlx['wall']:.1f} | {cpsat['cpu'] / dlx['cpu']:.1f}" if name == "cpsat"
                      else " | ")
            lines.append(f"| {model} | {name} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['seconds']:.2f} | "
                         f"{r['subproblems']} | {counts(r)} | {ratios} |")
        print("\n".join(lines[-2:]), file=sys.stderr)
    return lines


def where_section() -> list[str]:
    """CP-SAT on a few Bedlam subproblems in this process, beside dlx on the same ones."""
    from ortools.sat.python import cp_model

    from cpsolve.puzzle.catalog import load
    from cpsolve.search.backends.cpsat import SEARCH_PARAMETERS, CpSatBackend, _rows_reader, build_model
    from cpsolve.search.backends.dlx import DlxBackend
    from cpsolve.search.enumeration import prepare
    from cpsolve.search.parts import plan

    prepared = prepare(load("bedlam"), workers=2)
    problem = prepared.broken.problem
    parts = plan(prepared.broken, 2, CpSatBackend.parts_per_worker)
    dlx, cpsat = DlxBackend(), CpSatBackend()
    began = time.process_time()
    build_model(problem)
    build = time.process_time() - began
    sized = []
    for forced in parts:
        stats = dlx.search(problem, lambda rows: None, forced=forced)
        sized.append((stats.counter("nodes"), stats.seconds, forced))
    sized.sort(key=lambda s: s[0])
    lines = ["## Where the time goes (Bedlam subproblems, one process)", "",
             f"Bedlam with `--workers 2` is {len(parts)} subproblems; these are its {SAMPLE_PARTS} smallest. "
             f"Building the CP-SAT model (once per puzzle) took {build:.2f} s of CPU.", "",
             "| subproblem | solutions | dlx nodes | dlx s | cpsat s | branches | conflicts | conflicts / dlx nodes "
             "| µs per conflict | s before the search |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for nodes, dlx_seconds, forced in sized[:SAMPLE_PARTS]:
        found: list[tuple[int, ...]] = []
        stats = cpsat.search(problem, found.append, forced=forced)
        branches, conflicts = stats.counter("branches"), stats.counter("conflicts")
        lines.append(f"| {forced} | {len(found)} | {nodes:,} | {dlx_seconds:.3f} | {stats.seconds:.2f} | {branches:,} "
                     f"| {conflicts:,} | {conflicts / nodes:.2f} | {1e6 * stats.seconds / max(conflicts, 1):.0f} "
                     f"| {_presolve_seconds(problem, forced):.2f} |")
        print(lines[-1], file=sys.stderr)

    # The per-solution read, both ways, on every solution of the smallest subproblem.
    model, variables = build_model(problem)
    model.add_assumptions([variables[r] for r in sized[0][2]])
    read = _rows_reader(len(variables))
    spent = {"old": 0.0, "new": 0.0}

    class Timed(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def on_solution_callback(self) -> None:
            self.n += 1
            t = time.perf_counter()
            old = tuple(i for i, v in enumerate(self.response_proto.solution) if v)
            spent["old"] += time.perf_counter() - t
            t = time.perf_counter()
            new = read(self)
            spent["new"] += time.perf_counter() - t
            assert old == new

    solver = cp_model.CpSolver()
    for key, value in SEARCH_PARAMETERS.items():
        setattr(solver.parameters, key, value)
    solver.parameters.search_branching = cp_model.FIXED_SEARCH
    timed = Timed()
    solver.solve(model, timed)
    old, new = (1e6 * spent[k] / max(timed.n, 1) for k in ("old", "new"))
    lines += ["", f"Reading one solution's rows in the callback ({timed.n} solutions, {len(variables):,} placement "
              f"variables): {old:.0f} µs iterating over `response_proto.solution`, {new:.0f} µs from its text "
              f"(`_rows_reader`); over Bedlam's 19,186 solutions {19186 * old / 1e6:.1f} s against "
              f"{19186 * new / 1e6:.1f} s."]
    print(lines[-1], file=sys.stderr)
    return lines


def _presolve_seconds(problem: Any, forced: tuple[int, ...]) -> float:
    """Seconds from CP-SAT's start to its search (model copy, presolve, loading), read from its log."""
    from ortools.sat.python import cp_model

    from cpsolve.search.backends.cpsat import SEARCH_PARAMETERS, build_model

    model, variables = build_model(problem)
    model.add_assumptions([variables[r] for r in forced])
    solver = cp_model.CpSolver()
    for key, value in SEARCH_PARAMETERS.items():
        setattr(solver.parameters, key, value)
    solver.parameters.search_branching = cp_model.FIXED_SEARCH
    solver.parameters.log_search_progress = True
    solver.parameters.log_to_stdout = False
    solver.parameters.max_number_of_conflicts = 0
    log: list[str] = []
    solver.log_callback = log.append
    solver.solve(model)
    for line in log:
        found = re.search(r"Starting search at ([0-9.]+)s", line)
        if found:
            return float(found.group(1))
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=list(MODELS), help="models to run (names or paths)")
    ap.add_argument("--no-where", action="store_true", help="leave out the in-process section")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "cpsat.md")
    opts = ap.parse_args()
    from importlib.metadata import version

    ortools_version = version("ortools")

    stamp = (f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.machine()}, {os.cpu_count()} logical CPUs, "
             f"Python {platform.python_version()}, OR-Tools {ortools_version}")
    chosen = "" if opts.models == list(MODELS) else " --models " + " ".join(opts.models)
    command = f"python benchmarks/cpsat.py{chosen}{' --no-where' if opts.no_where else ''}"
    lines = ["# CP-SAT against dlx", "",
             f"Regenerate with `{command}` (written {stamp}). Every timed row is one "
             "`cpsolve enumerate MODEL --backend B --workers 2 --json --quiet --no-save` process, one after another; "
             "CPU = the process and its workers.", "", *timed_section(opts.models), ""]
    if not opts.no_where:
        lines += [*where_section(), ""]
    opts.out.write_text("\n".join(lines))
    print(f"wrote {opts.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
