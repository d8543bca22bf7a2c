"""The template for a new backend, and a working one: exact cover in plain Python (`--backend python`).

Copy this file to start a backend: keep the class attributes, `supported`, `version`,
`unsupported_reason` and the shape of `_search` (each solution as a sorted row tuple to `run.emit`,
stop when it returns True; `run.expired()` on the deadline; Ctrl-C propagates as
KeyboardInterrupt), then register it with one line in `backends/__init__.py`. Its search is the textbook one: fill the
empty cell with the fewest fitting placements. It is slow (Python per node) and is meant as the
readable reference the fast engines are checked against, not for large puzzles.

With optional cells and piece ranges (see `problem/placements.py`) it branches on required cells
only; once they are all covered it emits the set if every piece is within its range, then adds
further placements (which can only lie in optional cells) in increasing row order, so each
solution is generated exactly once. The C engine does the same.
"""

from __future__ import annotations

import contextlib

from ...problem.placements import ExactCoverProblem
from .base import ExactCoverBackend, SearchRun


class _Stop(Exception):
    """Unwinds the recursion when the callback, the limit or the deadline ends the search."""


class PythonBackend(ExactCoverBackend):
    name = "python"
    description = "exact cover in plain Python: the readable reference and the template for new backends"
    install_hint = "nothing to install"
    parts_per_worker = 16

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        left = list(problem.piece_counts)  # copies that may still be placed
        need = list(problem.piece_low)  # copies that must still be placed (may go below 0)
        filled: set[int] = set()
        for r in forced:
            row = problem.rows[r]
            if left[row.piece] == 0 or filled.intersection(row.cells):
                return
            left[row.piece] -= 1
            need[row.piece] -= 1
            filled.update(row.cells)
        required = problem.required

        def place(r: int, chosen: list[int]) -> None:
            row = problem.rows[r]
            left[row.piece] -= 1
            need[row.piece] -= 1
            filled.update(row.cells)
            chosen.append(r)

        def unplace(r: int, chosen: list[int]) -> None:
            row = problem.rows[r]
            chosen.pop()
            filled.difference_update(row.cells)
            need[row.piece] += 1
            left[row.piece] += 1

        def emit_if_complete(chosen: list[int]) -> None:
            if all(n <= 0 for n in need) and run.emit(tuple(sorted(chosen))):
                raise _Stop

        def fill(chosen: list[int]) -> None:
            """Cover the required cells: each solution covers the emptiest one exactly once."""
            if run.expired():
                raise _Stop
            empty = [c for c in required if c not in filled]
            if not empty:
                if problem.optional:
                    extend(chosen, 0)
                else:
                    emit_if_complete(chosen)
                return
            fits = {c: [r for r in problem.rows_by_cell[c] if _fits(problem, r, filled, left)] for c in empty}
            for r in min(fits.values(), key=len):
                place(r, chosen)
                fill(chosen)
                unplace(r, chosen)

        def extend(chosen: list[int], start: int) -> None:
            """Required cells are covered: the solutions are this set plus any set of further
            placements (in optional cells only) that keeps the counts in range; each such set is
            generated once, its rows in increasing order."""
            if run.expired():
                raise _Stop
            emit_if_complete(chosen)
            for r in range(start, len(problem.rows)):
                if _fits(problem, r, filled, left):
                    place(r, chosen)
                    extend(chosen, r + 1)
                    unplace(r, chosen)

        with contextlib.suppress(_Stop):
            fill(list(forced))


def _fits(problem: ExactCoverProblem, r: int, filled: set[int], left: list[int]) -> bool:
    row = problem.rows[r]
    return left[row.piece] > 0 and filled.isdisjoint(row.cells)
