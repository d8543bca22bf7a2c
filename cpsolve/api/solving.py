"""Preparing a puzzle (placements, symmetry, canonical forms, a backend) and `solve`: the first solution.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import TIMEOUT_EXIT, _frozen
from .results import Solution

if TYPE_CHECKING:
    from ..search.backends import Backend
    from ..search.enumeration import Prepared


def _prepare(puzzle: Puzzle, backend: str, symmetry_breaking: bool, workers: int = 1) -> tuple[Prepared, Backend]:
    """Placements, symmetry, canonical forms and the backend: what every command does first (the key
    choice on `workers` processes)."""
    from ..search.backends import for_problem

    prepared = _prepared(puzzle, symmetry_breaking, workers)
    return prepared, for_problem(backend, prepared.problem)


def _prepared(puzzle: Puzzle, symmetry_breaking: bool, workers: int = 1) -> Prepared:
    """`_prepare` without a backend (ApproxMC and UniGen take the CNF)."""
    from ..search.enumeration import prepare

    if not isinstance(puzzle, Puzzle):
        raise CpsolveError(f"expected a Puzzle (from cpsolve.load and the like), not {type(puzzle).__name__}")
    return prepare(puzzle, symmetry_breaking, max(workers, 1))


def solve(puzzle: Puzzle, backend: str = "auto", *, timeout: float | None = None,
          symmetry_breaking: bool = True, on_start: Callable[[], object] | None = None) -> Solution | None:
    """The first solution the backend finds, or None when the puzzle has none.

    A `timeout` (seconds, counted from the call: preparing the puzzle is part of it) that passes first
    raises `CpsolveError` (exit code 3): None always means "no solution". `print(solution)` draws it as
    z-layers, one letter per piece. `on_start` is called once the puzzle is prepared, as the search
    starts.

    >>> s = cpsolve.solve(cpsolve.load("slothouber-graatsma"))
    >>> print(s)
    z=0  z=1  z=2
    ADD  ADD  BBI
    AEE  AHF  BBF
    GEE  CCF  CCF
    <BLANKLINE>
    A B C D E F = block (6 copies)
    G H I = unit (3 copies)
    >>> s.pieces["unit#1"], s.assemblies, s.found_by
    (((0, 2, 0),), 8, 'dlx')
    """
    from ..output.solutions import labelled, rows_as_placements
    from ..problem.canonical import class_id
    from ..search.backends import Status
    from ..search.enumeration import first_solution

    began = time.perf_counter()
    prepared, engine = _prepare(puzzle, backend, symmetry_breaking)
    if on_start is not None:
        on_start()
    left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
    rows, stats = first_solution(prepared, engine, left)
    if rows is None:
        if stats.status is Status.INTERRUPTED:
            raise KeyboardInterrupt
        if stats.status is Status.TIMEOUT:
            why = f", chosen by auto: {engine.reason}" if engine.reason else ""
            raise CpsolveError(f"timed out before finding a solution ({stats.backend}{why}, {stats.seconds:.2f} s)",
                               where=prepared.name, field="timeout", exit_code=TIMEOUT_EXIT)
        return None
    problem = prepared.broken.problem
    forms = prepared.canonicalizer.forms(problem, rows)
    return Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), None,
                    forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                    stats.backend, stats.seconds, id=class_id(forms.symmetry_key), backend_reason=engine.reason)
