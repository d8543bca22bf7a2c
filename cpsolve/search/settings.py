"""How a run goes, decided once and passed down whole.

The caller (the API's `run`, `count` and `enumerate`, the reports, comparisons and design searches)
chooses the backend, the workers or the cluster, the limit, the deadline, the journal and the
progress display once, as one frozen `RunSettings`. The enumeration reads what it needs from it, and
hands its runner (this process, the forked pool, a Dask cluster) one `Work`: the judged problem, the
parts in their order, the deadline, the budgets and where results go. Before these two, the same
eleven parameters travelled through every level (`enumerate_classes`, `run_cluster`, `run_parallel`,
`_run_serial`), each list a chance to pass one on in the wrong place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..problem.canonical import Judge
    from .backends import Backend
    from .result import Collect, EnumerationResult, Finished, Progress

Budget = Callable[[int, Sequence[int]], int]
"""(part, the parts still waiting) -> the part's node budget (0: none)."""


def no_budget(part: int, waiting: Sequence[int]) -> int:
    """Every part searched to its end (0: no node budget)."""
    return 0


@dataclass(frozen=True)
class JournalPlan:
    """Where to journal a run, and whether to continue the run that file holds."""

    path: Path
    resume: bool = False
    argv: tuple[str, ...] = ()
    """The command, as its words: `cpsolve journal` shows it, quoted, as the way to continue the run."""
    others: tuple[tuple[Path, str], ...] = ()
    """Files the journal must not be, each with what it is: the solutions file, the puzzle file."""


@dataclass(frozen=True)
class RunSettings:
    """One enumeration's choices (`enumerate_classes`)."""

    backend: Backend
    workers: int = 1
    """Forked worker processes; with more than one (or a `timeout`) the parts run in them."""
    limit: int = 0
    """Stop after this many classes up to rotation and reflection (0: none)."""
    timeout: float | None = None
    """Seconds, finite and > 0: the run ends with status TIMEOUT within a fraction of a second of it."""
    cluster: str | None = None
    """A Dask cluster ("tcp://HOST:PORT" or "local:N") to send the parts to, instead of `workers`."""
    journal: JournalPlan | None = None
    progress: Progress | None = None
    """Called with the running record about five times a second."""

    @property
    def shared(self) -> bool:
        """Whether the parts are shared out (a pool of several workers, or a cluster): then they run the
        biggest first, and a part that overruns its estimate gives work back."""
        return self.workers > 1 or self.cluster is not None


@dataclass(frozen=True)
class Work:
    """What a runner runs: the parts of one enumeration, in `order`, each judged where it runs (`judge`:
    only counts and new classes travel back), searched for at most `budget_of(part, waiting)` nodes, its
    stretches of solutions to `collect(part, stretch)` and `finished(part, stats, rest_sizes)` once it is
    complete; the runner stops at `deadline` (a `time.time()` value) and says how it ended in `result`.
    `parts` grows by the parts `finished` makes of what a part gave back."""

    judge: Judge
    backend: Backend
    parts: Sequence[tuple[int, ...]]
    order: Sequence[int]
    deadline: float | None
    collect: Collect
    finished: Finished
    result: EnumerationResult
    budget_of: Budget = no_budget
