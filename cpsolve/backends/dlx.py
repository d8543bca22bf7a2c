"""Exact-cover search compiled in C (`cpsolve._xcover`): bitboards, fewest-candidates cell, region pruning.

Why a C extension rather than numba: it is built once at install by the compiler every Python
platform already needs, starts in milliseconds (numba's JIT took 6-15 s on first use), and keeps no
Python in the search loop. The engine is described in `cpsolve/_xcover.c`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib.util import find_spec

from ..geometry import FACE_STEPS
from ..placements import ExactCoverProblem
from .base import ExactCoverBackend, OnSolution, SearchStats, Status

_STATUS = {"complete": Status.COMPLETE, "stopped": Status.STOPPED, "timeout": Status.TIMEOUT}


class DlxBackend(ExactCoverBackend):
    name = "dlx"
    description = "exact cover in C: bitboards, fewest-candidates cell first, dead-region pruning"
    parts_per_worker = 64  # a part starts in microseconds; many parts keep both cores busy to the end
    install_hint = "the compiled engine cpsolve._xcover is missing (reinstall cpsolve where a C compiler exists)"

    @classmethod
    def supported(cls) -> bool:
        return find_spec("cpsolve._xcover") is not None

    @classmethod
    def version(cls) -> str:
        from .. import __version__

        return f"cpsolve._xcover {__version__}"

    def engine(self, problem: ExactCoverProblem):
        """The compiled engine for `problem`, built once and reused across its subproblems."""
        return self.kept_for(problem, build_engine)

    def search(
        self,
        problem: ExactCoverProblem,
        on_solution: OnSolution,
        *,
        forced: Sequence[int] = (),
        limit: int = 0,
        timeout: float | None = None,
    ) -> SearchStats:
        engine = self.engine(problem)
        stats = SearchStats(self.label)
        start = time.perf_counter()

        def relay(rows: tuple[int, ...]) -> bool:
            stats.found(start)  # times the first solution; the engine's own count replaces the tally
            return bool(on_solution(rows))

        out = engine.search(relay, forced=tuple(forced), max_solutions=limit, timeout=timeout)
        stats.seconds = time.perf_counter() - start
        stats.solutions = out["solutions"]
        stats.status = _STATUS[out["status"]]
        stats.details = {"nodes": out["nodes"], "dead": out["dead"], "scanned": out["scanned"]}
        return stats


def build_engine(problem: ExactCoverProblem):
    from .._xcover import Engine

    index = problem.cell_index
    neighbors = [
        [index[q] for dx, dy, dz in FACE_STEPS if (q := (x + dx, y + dy, z + dz)) in index]
        for x, y, z in problem.cells
    ]
    return Engine(
        problem.n_cells,
        problem.piece_counts,
        [row.piece for row in problem.rows],
        [row.cells for row in problem.rows],
        neighbors,
    )

