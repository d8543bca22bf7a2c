"""From a loaded puzzle to counted solution classes: symmetry breaking, backend, canonicalizer.

The search is split into one subproblem per kept key placement; that gives progress that means
something ("3 of 41 subproblems done") and a natural unit for interruption and parallel work.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from ..errors import CpsolveError
from ..problem.canonical import Canonicalizer, Forms
from ..problem.chains import chain_problem
from ..problem.placements import ExactCoverProblem, packing_problem
from ..problem.symmetry import (
    BrokenProblem,
    SymmetryElement,
    apply_key,
    choose_key,
    container_group,
    no_key,
)
from ..puzzle.model import Puzzle
from .backends import Backend, SearchStats, Status
from .estimate import smallest_tree_key
from .parallel import run_parallel
from .result import EnumerationResult, Progress, SolutionClass, merge_stats


@dataclass(frozen=True)
class Prepared:
    """Everything about a puzzle that does not depend on the backend."""

    name: str
    problem: ExactCoverProblem
    """The full problem (no symmetry breaking): the reference for checking and drawing."""
    group: tuple[SymmetryElement, ...]
    broken: BrokenProblem
    canonicalizer: Canonicalizer


def build_problem(puzzle: Puzzle) -> ExactCoverProblem:
    """The exact-cover problem of any puzzle; an error found here names the puzzle's file."""
    try:
        return chain_problem(puzzle) if puzzle.kind == "chain" else packing_problem(puzzle)
    except CpsolveError as exc:
        raise exc.located(puzzle.origin or puzzle.name) from None


def prepare(puzzle: Puzzle, symmetry_breaking: bool = True) -> Prepared:
    """Placements, the container's symmetry group, the key restriction and the canonicalizer."""
    problem = build_problem(puzzle)
    group = container_group(problem.cells, problem.cell_classes)
    pick = smallest_tree_key(problem) if problem.kind != "chain" else None
    key = choose_key(problem, group, puzzle.key_piece, pick) if symmetry_breaking else no_key()
    return Prepared(puzzle.name, problem, group, apply_key(problem, key), Canonicalizer(problem, group))


def subproblems(broken: BrokenProblem) -> list[tuple[int, ...]]:
    """Forced-row prefixes that partition the search: one per kept key placement, or the whole."""
    return [(r,) for r in broken.key_rows] or [()]


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C, `kill PID` and a closed terminal: each ends a run the same orderly way (the command line
turns SIGTERM and SIGHUP into KeyboardInterrupt; left at their defaults they end the process)."""


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C (and SIGTERM, SIGHUP) while one solution is counted and written, then deliver it.

    A KeyboardInterrupt raised between counting a class and writing it would leave the summary one
    class ahead of the file (seen with --workers 2, where the parent does both while workers run).
    Signal handlers can only be set on the main thread; elsewhere Ctrl-C reaches the main thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        caught.append(signum)

    previous = [(sig, signal.signal(sig, hold)) for sig in STOP_SIGNALS]
    try:
        yield
    finally:
        for sig, handler in previous:
            # None: a handler set outside Python (a solver library); put back Python's default.
            default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
            signal.signal(sig, default if handler is None else handler)
    for signum in dict.fromkeys(caught):
        signal.raise_signal(signum)


class _Collector:
    """Receives raw solutions from a backend; canonicalizes, counts, and reports new classes."""

    def __init__(self, prepared: Prepared, result: EnumerationResult, limit: int,
                 on_class: Callable[[SolutionClass], None] | None, progress: Progress | None):
        self.prepared, self.result, self.limit = prepared, result, limit
        self.on_class, self.progress = on_class, progress
        self.last_progress = 0.0

    def __call__(self, rows: tuple[int, ...]) -> bool:
        p = self.prepared
        forms = p.canonicalizer.forms(p.broken.problem, rows)  # pure: nothing to protect yet
        if forms.symmetry_key in self.result.tally.symmetry_keys:
            # Not a new class: nothing is written, so the summary cannot get ahead of the file, and the
            # signal handlers need not be swapped (six signal() calls, the costliest step per solution
            # once the canonical form is compiled; most solutions of a big run land here).
            return self._collect(rows, forms)
        with _ctrl_c_held():
            return self._collect(rows, forms)

    def _collect(self, rows: tuple[int, ...], forms: Forms) -> bool:
        p = self.prepared
        tally = self.result.tally
        if tally.add(forms, p.broken.weight_of(rows)) and self.on_class is not None:
            self.on_class(self._solution_class(rows, forms))
        now = time.perf_counter()
        if self.progress is not None and now - self.last_progress > 0.2:
            self.last_progress = now
            self.progress(self.result)
        return bool(self.limit) and tally.unique_symmetry >= self.limit

    def _solution_class(self, rows: Sequence[int], forms: Forms) -> SolutionClass:
        p = self.prepared
        placements = p.canonicalizer.transform_rows(p.broken.problem, rows, forms.element)
        return SolutionClass(
            index=self.result.tally.unique_symmetry - 1,
            assemblies=forms.orbit * (2 if forms.mirror_distinct else 1),
            mirror_distinct=forms.mirror_distinct,
            placements=tuple(placements),
        )


def enumerate_classes(
    prepared: Prepared,
    backend: Backend,
    *,
    limit: int = 0,
    timeout: float | None = None,
    workers: int = 1,
    on_class: Callable[[SolutionClass], None] | None = None,
    progress: Progress | None = None,
) -> EnumerationResult:
    """Enumerate every solution, streaming each new class; Ctrl-C ends it with status INTERRUPTED.

    `limit` stops after that many classes (up to rotation and reflection). `timeout` (seconds, finite
    and > 0) is a deadline: the run ends with status TIMEOUT within a fraction of a second of it.
    With `workers` > 1, or with a timeout, the subproblems run in worker processes and their
    solutions are merged here, in this process, so counting and output are the same code either way.
    """
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise CpsolveError(f"must be a finite number of seconds > 0, not {timeout}", field="timeout")
    result = EnumerationResult(prepared.name, backend.label, prepared.broken.key.describe())
    result.tally.numberings = 1 + len(prepared.problem.label_symmetries)
    collect = _Collector(prepared, result, limit, on_class, progress)
    parts = plan(prepared.broken, workers, backend.parts_per_worker)
    result.subproblems = len(parts)
    start = time.perf_counter()
    deadline = None if timeout is None else time.time() + timeout
    try:
        # With a deadline even one worker runs in a child process, which the parent kills on time: a
        # backend cannot always be stopped promptly (a SAT solver loading its clauses holds the GIL).
        if (workers > 1 and len(parts) > 1) or deadline is not None:
            run_parallel(prepared.broken.problem, backend, parts, workers, deadline, collect, result, start)
        else:
            _run_serial(prepared.broken.problem, backend, parts, deadline, collect, result, start)
    except KeyboardInterrupt:
        result.status = Status.INTERRUPTED
    result.seconds = time.perf_counter() - start
    if result.status is Status.COMPLETE:
        result.tally.check(result.puzzle)
    return result


def _run_serial(problem: ExactCoverProblem, backend: Backend, parts: Sequence[tuple[int, ...]],
                deadline: float | None, collect: _Collector, result: EnumerationResult, start: float) -> None:
    for forced in parts:
        remaining = None if deadline is None else deadline - time.time()
        if remaining is not None and remaining <= 0:
            result.status = Status.TIMEOUT
            return
        stats = backend.search(problem, collect, forced=forced, timeout=remaining)
        merge_stats(result, stats, start)
        if stats.status != Status.COMPLETE:
            result.status = stats.status
            return
        result.subproblems_done += 1


def plan(broken: BrokenProblem, workers: int, per_worker: int = 64) -> list[tuple[int, ...]]:
    """The subproblems to run: one per key placement, split further until a pool has enough to share.

    Parts differ in size by orders of magnitude, so a pool needs several per worker to stay busy to
    the end (`per_worker`, the backend's `parts_per_worker`); a serial run keeps the coarse split
    (its progress is just as useful).
    """
    parts = subproblems(broken)
    if workers <= 1:
        return parts
    for _ in range(3):
        if len(parts) >= per_worker * workers:
            break
        parts = [deeper for forced in parts for deeper in split(broken.problem, forced)]
    return parts


def split(problem: ExactCoverProblem, forced: tuple[int, ...]) -> list[tuple[int, ...]]:
    """`forced` extended by each placement that can cover its most constrained free cell.

    Every solution containing `forced` covers that cell with exactly one of these placements, so
    the parts partition the solutions: no solution is lost or found twice. A dead prefix yields [].
    """
    covered = {c for r in forced for c in problem.rows[r].cells}
    if covered.issuperset(problem.required):  # optional cells may stay empty: no cell to split on
        return [forced]
    left = list(problem.piece_counts)
    for r in forced:
        left[problem.rows[r].piece] -= 1
    live = [r for r, row in enumerate(problem.rows) if left[row.piece] > 0 and covered.isdisjoint(row.cells)]
    candidates: dict[int, list[int]] = {c: [] for c in problem.required if c not in covered}
    for r in live:
        for c in problem.rows[r].cells:
            if c in candidates:
                candidates[c].append(r)
    fewest = min(candidates.values(), key=len)
    return [(*forced, r) for r in fewest]


def first_solution(
    prepared: Prepared, backend: Backend, timeout: float | None = None
) -> tuple[tuple[int, ...] | None, SearchStats]:
    """The first solution the backend finds (rows of the *broken* problem), or None if there is none."""
    found: list[tuple[int, ...]] = []

    def keep(rows: tuple[int, ...]) -> bool:
        found.append(rows)
        return True

    stats = backend.search(prepared.broken.problem, keep, limit=1, timeout=timeout)
    return (found[0] if found else None), stats
