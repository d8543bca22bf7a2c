"""Exact-cover search compiled in C (`cpsolve.search._xcover`): bitboards, fewest-candidates cell, region pruning.

Why a C extension rather than numba: it is built once at install by the compiler every Python
platform already needs, starts in milliseconds (numba's JIT took 6-15 s on first use), and keeps no
Python in the search loop. The engine is described in `cpsolve/search/_xcover.c`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...problem.placements import ExactCoverProblem
from .base import ExactCoverBackend, SearchRun


class DlxBackend(ExactCoverBackend):
    name = "dlx"
    description = "exact cover in C: bitboards, fewest-candidates cell first, arrival test, transposed below 512 rows"
    parts_per_worker = 16  # biggest first, 16 a worker leave no idle tail; 64 cost Bedlam 1 ms a part (1.6x, not 1.95x)
    gives_back = True
    install_hint = "the compiled engine cpsolve.search._xcover is missing (reinstall cpsolve where a C compiler exists)"
    requires = ("cpsolve.search._xcover", "cpsolve")
    max_cells: ClassVar[int] = 512
    """The engine's bitboards are at most 8 words (MAXW in _xcover.c)."""

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        if problem.n_cells > self.max_cells:
            return (f"dlx handles containers of up to {self.max_cells} cells, this one has {problem.n_cells} "
                    "(use cpsat or sat)")
        return super().unsupported_reason(problem)

    def engine(self, problem: ExactCoverProblem) -> Any:
        """The compiled engine for `problem`, built once and reused across its subproblems."""
        return self.kept_for(problem, build_engine)

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        out = self.engine(problem).search(run.emit, forced=forced, timeout=run.remaining(), budget=run.budget)
        if out["status"] == "timeout":
            run.timed_out()
        run.stats.details = {"nodes": out["nodes"], "dead": out["dead"], "scanned": out["scanned"]}
        run.stats.rest = tuple(out["rest"])


def build_engine(problem: ExactCoverProblem, engine_class: Any = None) -> Any:
    """The compiled engine over the problem's rows, with face neighbours for region pruning, the pieces'
    low bounds (ranges) and the optional cells (the engine turns region pruning off with those).
    `engine_class` is another build's `Engine` (benchmarks/engine_ab.py compares two builds)."""
    from .._xcover import Engine

    make = Engine if engine_class is None else engine_class

    return make(
        problem.n_cells,
        problem.piece_counts,
        [row.piece for row in problem.rows],
        [row.cells for row in problem.rows],
        [list(around) for around in problem.neighbours],
        piece_low=problem.piece_low,
        optional=problem.optional,
    )

