"""Which cardinality encoding and which pysat solver the `sat` backend should use by default.

    python benchmarks/sat_encodings.py                 # the full table, under 10 minutes on 2 cores
    python benchmarks/sat_encodings.py --solvers cadical195 glucose4 --encodings seqcounter ladder

For every encoding x solver: the CNF's size, the time to the first solution of soma, bedlam and
tetris-cube (symmetry-broken problem, first key placement's subproblem), and the time to enumerate
soma and cubissimo completely (their counts are checked against 11520/480/240 and 6624/276/138).
Each cell runs alone in a forked process with a `--timeout` in seconds; a cell that hits it shows
"> T". Encoding time is reported apart from solving time, since the CNF is built once per problem.
The ranking sums every time (a timeout counts as the timeout) and the best pair is the default.
Measured (`python benchmarks/sat_encodings.py --timeout 2`, 2 cpus, 4.5 min): bitwise + glucose4 best
(sum 5.0 s), bitwise + cadical195 next (5.9 s); the giant encodings (pairwise, totalizer, sortnetwrk:
1.8-5.5 M clauses on bedlam) are slowest. These are the defaults in cpsolve.problem.cnf / backends.sat.
Writes results/sat-encodings.md and results/sat-encodings.json with this command line, the machine
and the versions.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cpsolve.problem.cnf import ENCODINGS
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.sat import SatBackend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.settings import RunSettings

FIRST = ["soma", "bedlam", "tetris-cube"]
ENUMERATE = {"soma": (11520, 480, 240), "cubissimo": (6624, 276, 138)}
SOLVERS = ["cadical195", "glucose4", "minisat22", "maplechrono"]


def first_cell(model: str, encoding: str, solver: str, timeout: float) -> dict[str, object]:
    """Size of the CNF and time to a first solution of the first key placement's subproblem."""
    prepared = prepare(load(model))
    problem = prepared.broken.problem
    backend = SatBackend(solver, encoding=encoding)
    t = time.perf_counter()
    cnf = backend.cnf(problem)
    encode_s = time.perf_counter() - t
    forced = prepared.broken.key_rows[:1]
    stats = backend.search(problem, lambda rows: True, forced=forced, limit=1, timeout=timeout)
    ok = stats.solutions == 1
    return {"vars": cnf.n_vars, "clauses": len(cnf.clauses), "encode_s": encode_s,
            "seconds": stats.seconds if ok else None, "status": stats.status.value}


def enum_cell(model: str, encoding: str, solver: str, timeout: float) -> dict[str, object]:
    """Time to enumerate every solution (CNF built beforehand); the three counts are checked."""
    prepared = prepare(load(model))
    backend = SatBackend(solver, encoding=encoding)
    backend.cnf(prepared.broken.problem)
    result = enumerate_classes(prepared, RunSettings(backend, timeout=timeout))
    counts = tuple(result.counts().values())
    complete = result.status.value == "complete"
    if complete and counts != ENUMERATE[model]:
        raise SystemExit(f"{model} {encoding} {solver}: wrong counts {counts}, want {ENUMERATE[model]}")
    return {"seconds": result.seconds if complete else None, "status": result.status.value, "counts": counts}


def run_cell(task: tuple[str, str, str, str, float]) -> dict[str, object]:
    kind, model, encoding, solver, timeout = task
    cell = (first_cell if kind == "first" else enum_cell)(model, encoding, solver, timeout)
    return {"kind": kind, "model": model, "encoding": encoding, "solver": solver, **cell}


def tasks(encodings: list[str], solvers: list[str], timeout: float) -> list[tuple[str, str, str, str, float]]:
    out = [("first", m, e, s, timeout) for m in FIRST for e in encodings for s in solvers]
    return out + [("enumerate", m, e, s, timeout) for m in ENUMERATE for e in encodings for s in solvers]


def score(cells: list[dict[str, Any]], encoding: str, solver: str, timeout: float) -> float:
    """Sum of all times of one pair, a timeout counting as the timeout (lower is better)."""
    mine = [c for c in cells if c["encoding"] == encoding and c["solver"] == solver]
    return sum(timeout if c["seconds"] is None else c["seconds"] for c in mine)


def fmt(cell: dict[str, Any] | None, timeout: float) -> str:
    if cell is None:
        return "-"
    return f"> {timeout:g}" if cell["seconds"] is None else f"{cell['seconds']:.2f}"


def markdown(cells: list[dict[str, Any]], encodings: list[str], solvers: list[str], timeout: float,
             meta: dict[str, Any]) -> str:
    index = {(c["kind"], c["model"], c["encoding"], c["solver"]): c for c in cells}
    cols = [f"first {m}" for m in FIRST] + [f"all {m}" for m in ENUMERATE]
    lines = ["# SAT encodings and solvers", "", f"`{meta['command']}`", "",
             f"{meta['machine']}; {meta['versions']}; {meta['date']}", "",
             "Times in seconds (solving only; CNF built beforehand). bedlam clauses/vars shown.", "",
             "| encoding | solver | bedlam vars | bedlam clauses | encode bedlam (s) | "
             + " | ".join(cols) + " | sum |",
             "|" + "---|" * (len(cols) + 6)]
    ranked = sorted((score(cells, e, s, timeout), e, s) for e in encodings for s in solvers)
    for total, e, s in ranked:
        size = index.get(("first", "bedlam", e, s)) or {}
        vals = [fmt(index.get(("first", m, e, s)), timeout) for m in FIRST]
        vals += [fmt(index.get(("enumerate", m, e, s)), timeout) for m in ENUMERATE]
        enc = f"{size['encode_s']:.2f}" if size else "-"
        lines.append(f"| {e} | {s} | {size.get('vars', '-')} | {size.get('clauses', '-')} | {enc} | "
                     + " | ".join(vals) + f" | {total:.1f} |")
    best = ranked[0]
    lines += ["", f"Best (lowest sum): encoding **{best[1]}**, solver **{best[2]}**."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--encodings", nargs="+", default=list(ENCODINGS), choices=ENCODINGS)
    parser.add_argument("--solvers", nargs="+", default=SOLVERS)
    parser.add_argument("--timeout", type=float, default=6.0, help="per cell, in seconds")
    parser.add_argument("--jobs", type=int, default=2, help="cells run at once (one process each)")
    parser.add_argument("--out-dir", type=Path, default=Path("results"))
    args = parser.parse_args()
    import pysat

    meta = {"command": "python " + " ".join(sys.argv), "machine": f"{platform.machine()} {platform.processor()} "
            f"{platform.system()} {platform.release()}, {multiprocessing.cpu_count()} cpus",
            "versions": f"python {platform.python_version()}, python-sat {pysat.__version__}",
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "timeout": args.timeout,
            "jobs": args.jobs}
    work = tasks(args.encodings, args.solvers, args.timeout)
    with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=1) as pool:
        cells = []
        for cell in pool.imap_unordered(run_cell, work):
            cells.append(cell)
            print(f"{cell['kind']} {cell['model']} {cell['encoding']} {cell['solver']}: "
                  f"{fmt(cell, args.timeout)}", file=sys.stderr)
    text = markdown(cells, args.encodings, args.solvers, args.timeout, meta)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "sat-encodings.md").write_text(text, encoding="utf-8")
    (args.out_dir / "sat-encodings.json").write_text(json.dumps({**meta, "cells": cells}, indent=1), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
