"""The cost of running subproblems on a Dask cluster instead of the forked pool; writes results/cluster.md.

    python benchmarks/cluster.py [--rounds 3]

Conway's 5x5x5 without symmetry breaking (27,456 assemblies, a few CPU seconds, 572 parts) and the
Soma cube (380 parts of microseconds each, so its time is nearly all per-part overhead), each run
through `enumerate_classes` with the same split: on one process, on the forked pool of two workers,
on a running local Dask cluster of two single-threaded worker processes (reached by its tcp://
address, as a remote scheduler is), and with `local:2` (the cluster started and torn down by the run,
its start-up included). The variants alternate within each round, so that the other load on a
shared machine falls on all of them alike; the table gives the median wall-clock seconds over the
rounds, and the ratio to the pool.
"""

from __future__ import annotations

import argparse
import logging
import platform
import statistics
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

import distributed

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.enumeration import Prepared, enumerate_classes, prepare
from cpsolve.search.parts import plan
from cpsolve.search.settings import RunSettings

OUT = Path(__file__).resolve().parent.parent / "results" / "cluster.md"
NOTES = [
    "Reading: Soma's parts take microseconds, so its Dask rows are the cost per part: about",
    "(running cluster - pool) / 380 parts, a few milliseconds each, spent in the scheduler, the client and",
    "the workers' messaging. Conway without symmetry breaking is bound by the parent, which computes the",
    "canonical form of each of 27,456 solutions, so two workers do not beat one process there; Dask adds",
    "its per-part cost, and `local:2` about a second more to start and stop its worker processes. On a",
    "run of hours split into parts of seconds, both costs vanish; Dask is for many machines, the pool",
    "stays the default on one.",
    "",
]
MODELS = [("conway-5x5x5", False, (27456, 1144, 572)), ("soma", True, (11520, 480, 240))]


def timed(prepared: Prepared, expected: tuple[int, int, int], workers: int, cluster: str | None) -> tuple[float, float]:
    """Wall-clock seconds of one enumeration, and the CPU seconds of this process (all its threads)."""
    began, cpu = time.perf_counter(), time.process_time()
    result = enumerate_classes(prepared, RunSettings(DlxBackend(), workers=workers, cluster=cluster))
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    counts = (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry)
    assert result.status.value == "complete" and counts == expected, (cluster, result.status, counts)
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                                  dashboard_address=":0", silence_logs=logging.ERROR) as running:
        warm = running.scheduler_address
        variants = [("1 process", 1, None), ("pool, 2 workers", 2, None), ("Dask, running local cluster of 2", 2, warm),
                    ("Dask, `local:2` (start-up included)", 2, "local:2")]
        rows = []
        for model, breaking, expected in MODELS:
            prepared = prepare(load(model), symmetry_breaking=breaking)
            times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in variants}
            for _ in range(rounds):
                for name, workers, cluster in variants:
                    times[name].append(timed(prepared, expected, workers, cluster))
            parts = len(plan(prepared.broken, 2, DlxBackend.parts_per_worker))
            pool = statistics.median(t for t, _ in times["pool, 2 workers"])
            for name, _, _ in variants:
                seconds = statistics.median(t for t, _ in times[name])
                cpu = statistics.median(c for _, c in times[name])
                label = f"{model}{'' if breaking else ' (no symmetry breaking)'}"
                rows.append(f"| {label} | {parts} | {name} | {seconds:.2f} | {seconds / pool:.2f} | {cpu:.2f} |")
                print(rows[-1], flush=True)
    lines = ["# Subproblems on a Dask cluster against the forked pool", "",
             f"Regenerate with `python benchmarks/cluster.py --rounds {rounds}` (written "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}; {platform.machine()}, Python {platform.python_version()}, "
             f"dask {version('distributed')}; a shared 2-vCPU machine).", "",
             "Median wall-clock seconds of `enumerate_classes` over the rounds, the variants alternating in",
             "each round; every run checked to give the reference counts. `ratio` is to the pool of 2;",
             "`parent CPU s` is this process's CPU time (all its threads: counting every solution's canonical",
             "form, and for Dask the client and the local scheduler, which run here).", "",
             "| model | parts | runner | seconds | ratio | parent CPU s |", "|---|---:|---|---:|---:|---:|", *rows, "",
             *NOTES]
    OUT.write_text("\n".join(lines))
    print(f"written {OUT}")


if __name__ == "__main__":
    main()
