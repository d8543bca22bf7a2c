"""The forked pool behind the key choice, part sizing and the design searches: results in order,
a job's exception raised in the caller, a dead worker reported in one line, no process left behind."""

from __future__ import annotations

import os
import signal
import time

import pytest
from conftest import children

from cpsolve.errors import CpsolveError
from cpsolve.search.pool import forked_pool


def _square_slowly(n: int) -> tuple[int, int]:
    time.sleep(0.002 * (n % 4))  # uneven jobs: results arrive out of order
    return n * n, os.getpid()


def _fail_on_three(n: int) -> int:
    if n == 3:
        raise CpsolveError("three is not allowed", field="n")
    return n


def _die_on_two(n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def _sleep(n: int) -> int:
    time.sleep(n)
    return n


def test_results_come_in_the_jobs_order_from_several_workers():
    before = set(children())
    with forked_pool(2) as pool:
        out = pool.map(_square_slowly, range(30))
        lazy = list(pool.imap(_square_slowly, iter(range(7))))
    assert [v for v, _ in out] == [n * n for n in range(30)]
    assert [v for v, _ in lazy] == [n * n for n in range(7)]
    pids = {pid for _, pid in out}
    assert len(pids) == 2 and os.getpid() not in pids  # the work really ran in two other processes
    assert set(children()) == before


def test_a_jobs_exception_is_raised_in_the_caller_and_the_workers_end():
    before = set(children())
    with pytest.raises(CpsolveError, match="three is not allowed"), forked_pool(2) as pool:
        pool.map(_fail_on_three, range(8))
    assert set(children()) == before


def test_a_killed_worker_is_reported_not_waited_for():
    before = set(children())
    with pytest.raises(CpsolveError, match="killed by SIGKILL") as caught, forked_pool(2) as pool:
        pool.map(_die_on_two, range(6))
    assert caught.value.exit_code == 1
    assert set(children()) == before


def test_leaving_imap_early_kills_the_busy_workers_at_once():
    before = set(children())
    began = time.perf_counter()
    with forked_pool(2) as pool:
        for n in pool.imap(_sleep, [0, 30, 30, 30]):
            assert n == 0
            break
    assert time.perf_counter() - began < 10  # not the 30 s jobs still running
    assert set(children()) == before


def test_a_pipeline_gives_results_in_the_order_put_at_most_one_job_per_worker_in_flight():
    """`Pipeline`: jobs handed over one at a time (enumerate --disassemble's classes, as the search finds
    them), results back in their order whatever order the workers finish in."""
    from cpsolve.search.pool import Pipeline

    before = set(children())
    got: list[tuple[int, int]] = []
    with forked_pool(2) as pool:
        line = Pipeline(pool, _square_slowly)
        for n in range(40):
            got += line.put(n)
            assert line.pending <= 4  # put waits for a free worker and a short queue: nothing grows without bound
        got += line.finish()
        assert line.pending == 0 and line.finish() == []
    assert [v for v, _ in got] == [n * n for n in range(40)]
    assert len({pid for _, pid in got}) == 2
    assert set(children()) == before


def test_a_pipeline_reports_a_dead_worker_in_one_line():
    from cpsolve.search.pool import Pipeline

    before = set(children())
    with pytest.raises(CpsolveError, match="killed by SIGKILL"), forked_pool(2) as pool:
        line = Pipeline(pool, _die_on_two)
        for n in range(6):
            line.put(n)
        line.finish()
    assert set(children()) == before


def test_a_part_estimated_beyond_measure_has_no_budget() -> None:
    """The walks' estimate of a 27x27x27 box of rods overflows to infinity; its budget was int(inf), and two
    workers stopped with "internal error: OverflowError" before searching (found measuring issue 39)."""
    from cpsolve.search.enumeration import MIN_BUDGET, overrun_budget

    assert overrun_budget(float("inf")) == 0 and overrun_budget(1.0, float("inf")) == 0
    assert overrun_budget(1e30) == 0  # past a 64-bit node count: none either
    assert overrun_budget(10.0) == MIN_BUDGET
