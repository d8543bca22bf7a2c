"""The `sat` backend counts what the other backends count, with every pysat solver, and stops on time."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from conftest import cpu_seconds, run_cli, run_json, wait_until

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.backends.sat import SatBackend
from cpsolve.search.enumeration import prepare
from cpsolve.search.parts import split

TINY = """\
name: tiny
source: test
container: {box: [3, 2, 2]}
pieces:
  L: {cells: [[0,0,0], [1,0,0], [0,1,0]]}
  I: {cells: [[0,0,0], [1,0,0], [2,0,0]]}
  T: {cells: [[0,0,0], [1,0,0], [2,0,0], [1,1,0]]}
  D: {cells: [[0,0,0], [1,0,0]]}
"""


def counts(data: dict) -> tuple[int, int, int]:
    return data["total"], data["unique_rotation"], data["unique_symmetry"]


def test_soma_counts_with_sat() -> None:
    data = run_json("enumerate", "soma", "--backend", "sat", "--no-save", "-q", "-w", "1")
    assert data["complete"] and counts(data) == (11520, 480, 240)
    assert data["backend"] == "sat"


def test_cubissimo_counts_with_sat_in_parallel() -> None:
    data = run_json("enumerate", "cubissimo", "--backend", "sat", "--no-save", "-q", "-w", "2")
    assert data["complete"] and counts(data) == (6624, 276, 138)


def test_snake_counts_with_sat() -> None:
    data = run_json("enumerate", "snake-27", "--backend", "sat:glucose4", "--no-save", "-q", "-w", "1")
    assert data["complete"] and counts(data) == (48, 2, 1)


def built_solvers() -> tuple[list[str], list[str]]:
    from pysat.solvers import NoSuchSolverError, Solver

    from cpsolve.search.backends.sat import solver_names

    built, missing = [], []
    for name in sorted(set(solver_names().values())):
        try:
            Solver(name=name).delete()
            built.append(name)
        except NoSuchSolverError:
            missing.append(name)
    return built, missing


@pytest.mark.slow
def test_every_solver_name_counts_the_same(write_puzzle) -> None:
    path = str(write_puzzle(TINY))
    want = counts(run_json("enumerate", path, "--backend", "cpsat", "--no-save", "-q", "-w", "1"))
    assert want[0] > 0
    built, missing = built_solvers()
    assert "cadical195" in built and "glucose4" in built and "kissat404" in built
    for name in built:
        data = run_json("enumerate", path, "--backend", f"sat:{name}", "--no-save", "-q", "-w", "1")
        assert counts(data) == want, name
    for name in missing:
        proc = run_cli("enumerate", path, "--backend", f"sat:{name}", "--no-save", "-q")
        assert proc.returncode == 2 and "not built into this python-sat" in proc.stderr


def test_aliases_are_accepted(write_puzzle) -> None:
    path = str(write_puzzle(TINY))
    data = run_json("enumerate", path, "--backend", "sat:G4", "--no-save", "-q", "-w", "1")
    assert data["backend"] == "sat:G4" and data["complete"]


def test_unknown_solver_is_one_line_exit_2() -> None:
    proc = run_cli("enumerate", "soma", "--backend", "sat:nosuchsolver", "--no-save")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown SAT solver 'nosuchsolver'" in lines[0] and "glucose4" in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("solver", ["cadical195", "glucose4"])
@pytest.mark.slow
def test_timeout_is_honoured(solver: str) -> None:
    start = time.perf_counter()
    data = run_json("enumerate", "bedlam", "--backend", f"sat:{solver}", "--timeout", "2", "--no-save", "-q",
                    "-w", "1", status=3)
    assert data["status"] == "timeout" and not data["complete"]
    assert time.perf_counter() - start < 15


@pytest.mark.slow
def test_ctrl_c_stops_promptly() -> None:
    # A shell job may start us with SIGINT ignored, which a child inherits; give it Python's handler back.
    child = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "sys.argv = ['cpsolve', *sys.argv[1:]]; runpy.run_module('cpsolve', run_name='__main__')")
    proc = subprocess.Popen(
        [sys.executable, "-c", child, "enumerate", "bedlam", "--backend", "sat", "--no-save", "-q",
         "-w", "1", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    # Into the SAT search, whatever the load: four CPU seconds (loading, preparing and the CNF take about one;
    # a fixed 4 s of wall time could end inside pysat's CNF building on a busy machine).
    assert wait_until(lambda: cpu_seconds(proc.pid) >= 4.0 or proc.poll() is not None, within=120)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert time.perf_counter() - sent < 3, "Ctrl-C took too long to stop the SAT search"
    assert proc.returncode == 130, err
    assert json.loads(out)["status"] == "interrupted"


@pytest.mark.parametrize("model, depth", [("bedlam", 4), ("tetris-cube", 3)])
@pytest.mark.slow
def test_sat_and_dlx_find_the_same_solutions_on_sampled_subproblems(model: str, depth: int) -> None:
    """A full Bedlam or Tetris Cube run on sat takes hours. Instead: follow one dlx solution down the
    pool's split for `depth` levels below the key, and require both engines to find the same solution
    sets in every sibling subproblem there (one of them holds that solution, so the check cannot be
    vacuous). The depth is where the siblings are cheapest for sat: Bedlam's 15 siblings at depth 4
    (2 solutions) take 4.9 s, its 13 at depth 3 (5 solutions) 8.8 s; the Tetris Cube's 6 at depth 3
    take 4.0 s, its 19 at depth 4 5.6 s (measured one after another, load 4.8 on 2 cores)."""
    broken = prepare(load(model)).broken
    problem = broken.problem
    first: list[tuple[int, ...]] = []
    DlxBackend().search(problem, first.append, forced=(broken.key_rows[0],), limit=1)
    solution = set(first[0])
    forced: tuple[int, ...] = (broken.key_rows[0],)
    for _ in range(depth):
        forced = next(p for p in split(problem, forced) if p[-1] in solution)
    siblings = split(problem, forced)
    assert len(siblings) >= 2
    total = 0
    for part in siblings:
        by_dlx: list[tuple[int, ...]] = []
        by_sat: list[tuple[int, ...]] = []
        DlxBackend().search(problem, by_dlx.append, forced=part)
        SatBackend().search(problem, by_sat.append, forced=part)
        assert sorted(by_sat) == sorted(by_dlx)
        total += len(by_dlx)
    assert total >= 1
