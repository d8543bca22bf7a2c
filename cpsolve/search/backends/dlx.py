"""Exact-cover search compiled in C (`cpsolve.search._xcover`): bitboards, fewest-candidates cell, region pruning.

Why a C extension rather than numba: it is built once at install by the compiler every Python
platform already needs, starts in milliseconds (numba's JIT took 6-15 s on first use), and keeps no
Python in the search loop. The engine is described in `cpsolve/search/_xcover.c`.

One engine, three layouts of the same search (the same tree, node for node: `layout` picks one):
bitboards compiled for up to 512 cells (`_xcover`, every built-in model); the same code compiled
for up to 2048 cells (`_xcover_wide`); and dancing links, for any size, whose memory is that of the
placements alone. Which of the last two is faster depends on the pieces, not the cells: bitboard
lists shrink as pieces run out, so with a few copies of each piece (designers' puzzles) they win,
and with many copies they stay long for many levels while links pay only for the placements that
conflict (`python benchmarks/engine_ab.py --big`, results/engine-ab.md: Moira's Cube, 729 cells and
2.2 copies a piece, 0.30 of the links' time on wide bitboards; 128 Y-pentacubes in an 8x8x10 box,
3.3 times the links' time).
"""

from __future__ import annotations

from typing import Any

from ...problem.placements import ExactCoverProblem
from .base import ExactCoverBackend, SearchRun

BITBOARD_CELLS = 512
"""The cells `_xcover`'s bitboards hold (MAXW 8 words in _xcover.c)."""
WIDE_CELLS = 2048
"""The cells `_xcover_wide`'s bitboards hold (the same source with MAXW 32, see setup.py)."""
BITBOARD_BYTES = 1 << 29
"""The most the bitboards' lists may take (one list of rows x (W + 2) words per level, allocated when
a search starts): beyond it, links, whose memory does not grow with the depth. No built-in model comes
near it (Bedlam: 0.5 MB)."""
WIDE_COPIES = 2.5
"""Wide bitboards while pieces have at most this many copies on average, links beyond (measured on
containers of 640-729 cells: results/engine-ab.md)."""


def bitboard_bytes(problem: ExactCoverProblem) -> int:
    """What the bitboard search allocates for its lists of live placements (_xcover.c, ctx_start)."""
    levels = min(sum(problem.piece_counts), problem.n_cells) + 2
    return 8 * levels * (len(problem.rows) + 1) * (-(-problem.n_cells // 64) + 2)


def layout(problem: ExactCoverProblem) -> str:
    """"bitboards", "wide" or "links": the engine layout that searches `problem` fastest (see above),
    within BITBOARD_BYTES."""
    if bitboard_bytes(problem) > BITBOARD_BYTES:
        return "links"
    if problem.n_cells <= BITBOARD_CELLS:
        return "bitboards"
    few_copies = sum(problem.piece_counts) <= WIDE_COPIES * problem.n_pieces
    return "wide" if problem.n_cells <= WIDE_CELLS and few_copies else "links"


class DlxBackend(ExactCoverBackend):
    name = "dlx"
    description = ("exact cover in C: bitboards (dancing links for large containers of many copies), "
                   "fewest-candidates cell first, arrival test, transposed below 512 rows")
    parts_per_worker = 16  # biggest first, 16 a worker leave no idle tail; 64 cost Bedlam 1 ms a part (1.6x, not 1.95x)
    gives_back = True
    install_hint = "the compiled engine cpsolve.search._xcover is missing (reinstall cpsolve where a C compiler exists)"
    requires = ("cpsolve.search._xcover", "cpsolve")

    def engine(self, problem: ExactCoverProblem) -> Any:
        """The compiled engine for `problem`, built once and reused across its subproblems."""
        return self.kept_for(problem, build_engine)

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        out = self.engine(problem).search(run.emit, forced=forced, timeout=run.remaining(), budget=run.budget)
        if out["status"] == "timeout":
            run.timed_out()
        run.stats.details = {"nodes": out["nodes"], "dead": out["dead"], "scanned": out["scanned"]}
        run.stats.rest = tuple(out["rest"])


def build_engine(problem: ExactCoverProblem, engine_class: Any = None, chosen: str | None = None) -> Any:
    """The compiled engine over the problem's rows, with face neighbours for region pruning, the pieces'
    low bounds (ranges) and the optional cells (the engine turns region pruning off with those).
    `engine_class` is another build's `Engine` (benchmarks/engine_ab.py compares two builds); `chosen`
    overrides `layout(problem)` (benchmarks compare the layouts)."""
    kind = chosen or layout(problem)
    if engine_class is not None:
        make = engine_class
    elif kind == "wide":
        try:
            from .._xcover_wide import Engine as make
        except ImportError:  # not built here: the links serve every size
            from .._xcover import Engine as make

            kind = "links"
    else:
        from .._xcover import Engine as make

    return make(
        problem.n_cells,
        problem.piece_counts,
        [row.piece for row in problem.rows],
        [row.cells for row in problem.rows],
        [list(around) for around in problem.neighbours],
        piece_low=problem.piece_low,
        optional=problem.optional,
        **({"links": True} if kind == "links" else {}),
    )
