"""What an enumeration produces: its result record, the solution classes it streams, and the merge
of one subproblem's stats into the result. Below both the serial loop and the process pool, which
fill the same record the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..problem.canonical import Stretch, Tally
from .backends import SearchStats, Status


@dataclass(frozen=True)
class SolutionClass:
    """One class of solutions up to rotation and reflection, in canonical position."""

    index: int
    assemblies: int
    """All assemblies in the class, rotated and mirrored copies distinct."""
    mirror_distinct: bool
    placements: tuple[tuple[int, tuple[int, ...]], ...]
    """(piece index, sorted cell indices) of each placement, in the problem's terms."""
    id: str = ""
    """The class's stable id (`problem.canonical.class_id`): the same in every run of the puzzle."""


@dataclass
class EnumerationResult:
    puzzle: str
    backend: str
    key: str
    status: Status = Status.COMPLETE
    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    first_solution_seconds: float | None = None
    subproblems: int = 1
    subproblems_done: int = 0
    details: dict[str, float] = field(default_factory=dict)
    work: float = 0.0
    """Estimated search nodes of all the subproblems (their number when not estimated): for the ETA."""
    work_done: float = 0.0
    """Search nodes of the subproblems finished so far, those of a resumed run included."""
    resumed_work: float = 0.0
    """Search nodes of the subproblems a journal said were finished before this run started."""
    resumed_found: int = 0
    """Solutions those subproblems had found."""
    backend_reason: str | None = None
    """Why `auto` took this backend rather than dlx (None: dlx, or a backend asked for by name)."""

    def eta(self, elapsed: float) -> float | None:
        """Seconds left, taking this run's share of the estimated work done as its clock."""
        fresh = self.work_done - self.resumed_work
        if self.work <= self.work_done or fresh <= 0 or elapsed <= 0:
            return None  # nothing measured yet, or the estimate was too low: no honest figure
        return elapsed * (self.work - self.work_done) / fresh

    def counts(self) -> dict[str, int]:
        return {
            "total": self.tally.total,
            "unique_rotation": self.tally.unique_rotation,
            "unique_symmetry": self.tally.unique_symmetry,
        }

    def as_json(self) -> dict[str, object]:
        return {
            "puzzle": self.puzzle,
            "backend": self.backend,
            "backend_reason": self.backend_reason,
            **self.counts(),
            "seconds": round(self.seconds, 4),
            "status": self.status.value,
            "complete": self.status == Status.COMPLETE,
            "solutions_found": self.tally.found,
            "symmetry_breaking": self.key,
            "first_solution_seconds": None
            if self.first_solution_seconds is None
            else round(self.first_solution_seconds, 4),
            "subproblems": self.subproblems,
            "subproblems_done": self.subproblems_done,
            **({"idle_tail_seconds": round(self.details["idle_tail"], 4)} if "idle_tail" in self.details else {}),
        }


Progress = Callable[[EnumerationResult], None]
Collect = Callable[[int, Stretch], bool]
"""A runner hands its solutions over as (subproblem index, stretch), judged where they were found (see
`problem.canonical.Judge`): every solution of a part in exactly one stretch; True means stop the run."""
Finished = Callable[[int, SearchStats, Sequence[float]], Sequence[int]]
"""A runner reports each subproblem it completed, once, with its search stats and the estimated size
of each prefix in `stats.rest` (what the part gave back unsearched). It returns the indices those
prefixes now have as parts of the run, for the runner to schedule."""


def merge_stats(result: EnumerationResult, stats: SearchStats, start: float) -> None:
    """Fold one subproblem's stats into the result: the first solution's time, summed details."""
    if stats.first_solution_seconds is not None and result.first_solution_seconds is None:
        result.first_solution_seconds = time.perf_counter() - start - stats.seconds + stats.first_solution_seconds
    for k, v in stats.details.items():
        if isinstance(v, (int, float)):
            result.details[k] = result.details.get(k, 0) + v
