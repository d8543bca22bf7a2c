"""The template for a new backend, and a working one: exact cover in plain Python (`--backend python`).

Copy this file to start a backend: keep the class attributes, `supported`, `version`,
`unsupported_reason` and the shape of `_search` (each solution as a sorted row tuple to `run.emit`,
stop when it returns True; `run.expired()` on the deadline; Ctrl-C propagates as
KeyboardInterrupt), then register it with one line in `backends/__init__.py`. Its search is the textbook one: fill the
empty cell with the fewest fitting placements. It is slow (Python per node) and is meant as the
readable reference the fast engines are checked against, not for large puzzles.
"""

from __future__ import annotations

from ...problem.placements import ExactCoverProblem
from .base import ExactCoverBackend, SearchRun


class _Stop(Exception):
    """Unwinds the recursion when the callback, the limit or the deadline ends the search."""


class PythonBackend(ExactCoverBackend):
    name = "python"
    description = "exact cover in plain Python: the readable reference and the template for new backends"
    install_hint = "nothing to install"
    parts_per_worker = 16

    @classmethod
    def supported(cls) -> bool:
        return True

    @classmethod
    def version(cls) -> str:
        from ... import __version__

        return f"cpsolve {__version__}"

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        left = list(problem.piece_counts)
        filled: set[int] = set()
        for r in forced:
            row = problem.rows[r]
            if left[row.piece] == 0 or filled.intersection(row.cells):
                return
            left[row.piece] -= 1
            filled.update(row.cells)

        def fill(chosen: list[int]) -> None:
            if run.expired():
                raise _Stop
            if len(filled) == problem.n_cells:
                if run.emit(tuple(sorted(chosen))):
                    raise _Stop
                return
            fits = {c: [r for r in problem.rows_by_cell[c] if _fits(problem, r, filled, left)]
                    for c in range(problem.n_cells) if c not in filled}
            for r in min(fits.values(), key=len):
                row = problem.rows[r]
                left[row.piece] -= 1
                filled.update(row.cells)
                chosen.append(r)
                fill(chosen)
                chosen.pop()
                filled.difference_update(row.cells)
                left[row.piece] += 1

        try:
            fill(list(forced))
        except _Stop:
            pass


def _fits(problem: ExactCoverProblem, r: int, filled: set[int], left: list[int]) -> bool:
    row = problem.rows[r]
    return left[row.piece] > 0 and filled.isdisjoint(row.cells)
