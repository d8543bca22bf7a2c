"""The one small interface every solver backend implements, and the record they all report.

A backend receives the *same* `ExactCoverProblem` (rows = placements, items = cells and pieces,
optional side clauses) and streams each solution, as the sorted tuple of chosen row indices, to a
callback. Everything else — symmetry breaking, canonical forms, counting, output — happens outside
the backend, so that backends can only differ in speed, never in what they count.

Adding a backend (copy `template.py`, itself a working pure-Python backend): subclass `Backend`, set `name`, implement `supported`,
`version` and `search`, and register the class in `backends/__init__.py`. Count each solution with
`SearchStats.found`; build what a problem needs once (a model, an engine) with `Backend.kept_for`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, TypeVar

from ..errors import CpsolveError
from ..placements import ExactCoverProblem

OnSolution = Callable[[tuple[int, ...]], bool | None]
"""Called once per solution with its sorted row indices; a truthy return value stops the search."""
Built = TypeVar("Built")


class Status(str, Enum):
    COMPLETE = "complete"
    """The whole search space was explored: the counts are exact."""
    STOPPED = "stopped"
    """The callback or a solution limit stopped the search early."""
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"


@dataclass
class SearchStats:
    """What one `search` call reports; the same fields for every backend."""

    backend: str
    status: Status = Status.COMPLETE
    solutions: int = 0
    seconds: float = 0.0
    first_solution_seconds: float | None = None
    details: dict[str, object] = field(default_factory=dict)
    """Backend-specific figures (nodes, conflicts, clauses) for benchmarks; never needed for counting."""

    def found(self, start: float, limit: int = 0) -> bool:
        """Count one solution, timing the first from `start`; True once `limit` (> 0) is reached."""
        if self.first_solution_seconds is None:
            self.first_solution_seconds = time.perf_counter() - start
        self.solutions += 1
        return bool(limit) and self.solutions >= limit


class BackendUnavailable(CpsolveError):
    """The backend's optional dependency is missing, or it cannot express this problem."""


class Backend:
    """Base class of all backends: a name, an availability check, a version, and `search`."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    install_hint: ClassVar[str] = "its dependency is not installed"
    """What `supported()` being False means, in words a user can act on."""
    parts_per_worker: ClassVar[int] = 4
    """How finely `--workers` splits the search: each part costs a backend a fresh model (CP-SAT,
    SAT), so few parts suit them; an engine that starts a part in microseconds wants many."""

    def __init__(self, options: str | None = None):
        """`options` is the text after a colon in `--backend name:options` (e.g. a SAT solver name)."""
        self.options = options
        self._kept: tuple[ExactCoverProblem, object] | None = None

    @classmethod
    def supported(cls) -> bool:
        """True when the backend's dependencies import on this machine."""
        raise NotImplementedError

    @classmethod
    def version(cls) -> str:
        raise NotImplementedError

    def kept_for(self, problem: ExactCoverProblem, build: Callable[[ExactCoverProblem], Built]) -> Built:
        """`build(problem)`, made once and kept while the same problem comes back: an enumeration
        calls `search` once per subproblem, always with the same problem and other forced rows."""
        if self._kept is None or self._kept[0] is not problem:
            self._kept = (problem, build(problem))
        return self._kept[1]  # type: ignore[return-value] - built by `build` for this very problem

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        """Why this backend cannot solve `problem`, or None. Overridden by limited backends."""
        return None

    @property
    def label(self) -> str:
        return f"{self.name}:{self.options}" if self.options else self.name

    def search(
        self,
        problem: ExactCoverProblem,
        on_solution: OnSolution,
        *,
        forced: Sequence[int] = (),
        limit: int = 0,
        timeout: float | None = None,
    ) -> SearchStats:
        """Stream every solution containing the `forced` rows; stop after `limit` (> 0) solutions.

        `timeout` is in seconds of wall time for this call. KeyboardInterrupt propagates.
        """
        raise NotImplementedError


class ExactCoverBackend(Backend):
    """A backend for pure exact cover: it cannot express a chain's joint clauses and says so."""

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        if problem.side_clauses:
            return f"{self.name} solves pure exact cover; chain puzzles need joint constraints (use cpsat or sat)"
        return None
