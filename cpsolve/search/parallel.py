"""Subproblems in a process pool, every solution sent back as soon as a worker finds it.

Workers are forked, so they inherit the prepared problem and the backend without pickling or
reloading (starting a fresh interpreter and importing OR-Tools costs about 0.5 s each). They send
each solution through a queue the moment they find it; the parent canonicalizes, counts and writes
them, so a Ctrl-C or a timeout loses nothing a worker had already found. Workers ignore SIGINT: the
parent decides when to stop and terminates the pool.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..problem.placements import ExactCoverProblem
from .backends import Backend, SearchStats, Status
from .result import EnumerationResult, merge_stats

_state: dict[str, Any] = {}
"""What a forked worker inherited: problem, backend, result queue."""


def _init_worker(problem: ExactCoverProblem, backend: Backend, results: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _state.update(problem=problem, backend=backend, results=results)


def _solve_part(task: tuple[int, tuple[int, ...], float | None]) -> None:
    part, forced, deadline = task
    results = _state["results"]
    try:
        remaining = None if deadline is None else deadline - time.time()
        if remaining is not None and remaining <= 0:
            results.put(("done", part, SearchStats(_state["backend"].label, Status.TIMEOUT)))
            return
        stats = _state["backend"].search(
            _state["problem"], lambda rows: results.put(("solution", part, rows)), forced=forced, timeout=remaining
        )
        results.put(("done", part, stats))
    except Exception as exc:  # noqa: BLE001 - the parent re-raises it with the worker's message
        results.put(("error", part, f"{type(exc).__name__}: {exc}"))


def run_parallel(
    problem: ExactCoverProblem,
    backend: Backend,
    parts: Sequence[tuple[int, ...]],
    workers: int,
    deadline: float | None,
    collect: Callable[[tuple[int, ...]], bool],
    result: EnumerationResult,
    start: float,
) -> None:
    """Run every part on `workers` processes, feeding solutions to `collect` in arrival order."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    pool = context.Pool(workers, initializer=_init_worker, initargs=(problem, backend, results))
    try:
        pool.map_async(_solve_part, [(i, forced, deadline) for i, forced in enumerate(parts)], chunksize=1)
        pending = len(parts)
        while pending:
            wait = None if deadline is None else max(deadline - time.time(), 0) + 1.0
            try:
                kind, _part, payload = results.get(timeout=wait)
            except queue.Empty:
                result.status = Status.TIMEOUT
                return
            if kind == "error":
                raise RuntimeError(f"a worker failed: {payload}")
            if kind == "solution":
                if result.first_solution_seconds is None:
                    result.first_solution_seconds = time.perf_counter() - start
                if collect(payload):
                    result.status = Status.STOPPED
                    return
                continue
            merge_stats(result, payload, start)
            if payload.status != Status.COMPLETE:
                result.status = payload.status
                return
            result.subproblems_done += 1
            pending -= 1
    finally:
        pool.terminate()
        pool.join()
