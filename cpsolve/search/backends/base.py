"""The one small interface every solver backend implements, and the record they all report.

A backend receives the *same* `ExactCoverProblem` (rows = placements, items = cells and pieces,
optional side clauses) and streams each solution, as the sorted tuple of chosen row indices, to a
callback. Everything else — symmetry breaking, canonical forms, counting, output — happens outside
the backend, so that backends can only differ in speed, never in what they count.

Adding a backend (copy `template.py`, itself a working pure-Python backend): subclass `Backend`, set
`name`, implement `supported`, `version` and `_search`, and register the class in
`backends/__init__.py`. `Backend.search` does the bookkeeping every backend shares (the stats
record, timing, the first solution, the limit, the deadline) once, through a `SearchRun`; a backend
builds what a problem needs once (a model, an engine) with `Backend.kept_for`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib.util import find_spec
from typing import ClassVar, TypeVar

from ...errors import CpsolveError
from ...limits import check_timeout
from ...problem.placements import ExactCoverProblem

OnSolution = Callable[[tuple[int, ...]], bool | None]
"""Called once per solution with its sorted row indices; a truthy return value stops the search."""
Built = TypeVar("Built")


class Status(StrEnum):
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
    rest: tuple[tuple[int, ...], ...] = ()
    """Subproblems given back unsearched (a `budget` ran out; status still COMPLETE): the search
    covered everything containing `forced` except the solutions containing one of these prefixes."""

    def counter(self, name: str) -> int:
        """A whole-number figure of `details` (nodes, branches, conflicts); 0 where this backend does
        not keep it, so callers that add them up need not ask which backend ran."""
        value = self.details.get(name)
        return int(value) if isinstance(value, (int, float)) else 0


class SearchRun:
    """The bookkeeping of one `Backend.search` call, the same for every backend.

    A backend hands each solution to `emit` (which counts it, times the first, passes it on and says
    whether to stop) and asks `remaining` / `expired` about the deadline; it never touches the
    stats' counters or the clock itself, so that every backend counts and times alike.
    """

    def __init__(self, stats: SearchStats, on_solution: OnSolution, limit: int, timeout: float | None,
                 budget: int = 0):
        self.stats = stats
        self.on_solution = on_solution
        self.limit = limit
        self.budget = budget
        """Search nodes after which a backend that `gives_back` returns the rest in `stats.rest` (0: never)."""
        self.start = time.perf_counter()
        self.deadline = None if timeout is None else self.start + timeout

    def emit(self, rows: tuple[int, ...]) -> bool:
        """Count one solution and pass it on; True (status STOPPED) when the search must stop."""
        stats = self.stats
        if stats.first_solution_seconds is None:
            stats.first_solution_seconds = time.perf_counter() - self.start
        stats.solutions += 1
        stop = bool(self.on_solution(rows)) or (self.limit > 0 and stats.solutions >= self.limit)
        if stop:
            stats.status = Status.STOPPED
        return stop

    def remaining(self) -> float | None:
        """Seconds left before the deadline (never below a microsecond), or None without one."""
        return None if self.deadline is None else max(self.deadline - time.perf_counter(), 1e-6)

    def expired(self) -> bool:
        """True (status TIMEOUT) once the deadline has passed."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            self.stats.status = Status.TIMEOUT
            return True
        return False

    def timed_out(self) -> None:
        """The backend's own clock ran out (an engine or solver reported it)."""
        self.stats.status = Status.TIMEOUT


class BackendUnavailable(CpsolveError):
    """The backend's optional dependency is missing, or it cannot express this problem.

    Its field is the concept "backend"; the command line reports it as the option `--backend`.
    """

    def __init__(self, message: str):
        super().__init__(message, field="backend")


class Backend(ABC):
    """Base class of all backends: a name, an availability check, a version, and `_search`."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    install_hint: ClassVar[str] = "its dependency is not installed"
    """What `supported()` being False means, in words a user can act on."""
    takes_options: ClassVar[bool] = False
    """Whether `--backend name:options` means something to this backend (sat:NAME does)."""
    parts_per_worker: ClassVar[int] = 4
    gives_back: ClassVar[bool] = False
    """Whether `search(budget=N)` hands the unsearched rest back after about N nodes (the pool splits a
    part that runs far longer than estimated that way); the others ignore the budget."""
    """How finely `--workers` splits the search: each part costs a backend a fresh search (CP-SAT,
    SAT), so few parts suit them; an engine that starts a part in microseconds wants many."""

    def __init__(self, options: str | None = None):
        """`options` is the text after a colon in `--backend name:options` (e.g. a SAT solver name)."""
        self.options = options
        self._kept: tuple[ExactCoverProblem, object] | None = None
        self.reason: str | None = None
        """Why `auto` took this backend and not dlx, the fastest (`for_problem` sets it; None when the
        backend was named, or is dlx): an enumeration's summary and its JSON say it."""

    requires: ClassVar[tuple[str, str] | None] = None
    """(module that must import, distribution whose version `version()` reports), or None when the
    backend needs nothing beyond cpsolve itself."""

    @classmethod
    def supported(cls) -> bool:
        """True when the backend's dependency can be imported on this machine (without importing it:
        `cpsolve backends` should not pay OR-Tools' half second)."""
        return cls.requires is None or find_spec(cls.requires[0]) is not None

    @classmethod
    def version(cls) -> str:
        """The version of what does the work: `requires[1]`'s distribution, or cpsolve's own."""
        from importlib import metadata  # reads the installed packages' records: only `cpsolve backends` asks

        from ... import __version__

        if cls.requires is None:
            return f"cpsolve {__version__}"
        module, distribution = cls.requires
        found = __version__ if distribution == "cpsolve" else metadata.version(distribution)
        return f"{module} {found}" if distribution == "cpsolve" else f"{distribution} {found}"

    def kept_for(self, problem: ExactCoverProblem, build: Callable[[ExactCoverProblem], Built]) -> Built:
        """`build(problem)`, made once and kept while the same problem comes back: an enumeration
        calls `search` once per subproblem, always with the same problem and other forced rows."""
        if self._kept is None or self._kept[0] is not problem:
            self._kept = (problem, build(problem))
        return self._kept[1]  # type: ignore[return-value] # built by `build` for this very problem

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        """Why this backend cannot solve `problem`, or None. Overridden by limited backends. The reason
        alone: `for_problem` adds the backends that can."""
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
        budget: int = 0,
    ) -> SearchStats:
        """Stream every solution containing the `forced` rows; stop after `limit` (> 0) solutions.

        `timeout` is in seconds of wall time for this call (finite and > 0). KeyboardInterrupt
        propagates; solutions already passed to `on_solution` are never lost. A backend that
        `gives_back` stops after `budget` (> 0) search nodes and returns what it did not search as
        prefixes in `rest`.
        """
        check_timeout(timeout)
        run = SearchRun(SearchStats(self.label), on_solution, limit, timeout, budget)
        try:
            self._search(problem, tuple(forced), run)
        finally:
            run.stats.seconds = time.perf_counter() - run.start
        return run.stats

    @abstractmethod
    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        """Find the solutions containing `forced`, each handed to `run.emit` (stop when it says so).

        Set the status through `run` when the deadline passes (`run.expired()` or `run.timed_out()`);
        leave it COMPLETE when the whole space was searched. Record figures in `run.stats.details`.
        """


class ExactCoverBackend(Backend):
    """A backend for pure exact cover: it cannot express a chain's joint clauses and says so."""

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        if problem.side_clauses:
            return f"{self.name} solves pure exact cover, and the joints of a chain puzzle are not exact cover"
        return None
