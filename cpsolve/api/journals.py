"""Long runs before and after: the size of a search before it runs (`estimate`) and where a journalled run
stands (`read_journal`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import PathLike

if TYPE_CHECKING:
    from ..search.journal import Summary as JournalSummary


@dataclass(frozen=True)
class Estimate:
    """The size of a search before it runs (`cpsolve estimate`): Knuth's random-walk estimate of the
    search tree, and its time on one core at the dlx engine's speed on this puzzle."""

    puzzle: str
    nodes: float
    """Estimated nodes of the search tree (the mean of the walks' products of branching degrees)."""
    stderr: float
    """One standard error of `nodes`."""
    walks: int
    symmetry_breaking: str
    nodes_per_second: float | None
    """The dlx engine's speed on this puzzle, sampled on a short stretch of its own search (None: the
    engine is not built here)."""
    backend: str = "dlx"

    @property
    def seconds(self) -> float | None:
        return None if not self.nodes_per_second else self.nodes / self.nodes_per_second

    @property
    def seconds_spread(self) -> float | None:
        return None if not self.nodes_per_second else self.stderr / self.nodes_per_second

    def as_json(self) -> dict[str, object]:
        return {"puzzle": self.puzzle, "backend": self.backend, "nodes": self.nodes, "stderr": self.stderr,
                "walks": self.walks, "symmetry_breaking": self.symmetry_breaking,
                "nodes_per_second": self.nodes_per_second, "seconds": self.seconds,
                "seconds_spread": self.seconds_spread}

    def __str__(self) -> str:
        """What `cpsolve estimate` prints: the tree, then the time (long ones in days or years)."""
        from ..output.text import duration, printable

        tree = (f"{printable(self.puzzle)}: about {self.nodes:,.0f} search nodes (± {self.stderr:,.0f}, one standard "
                f"error, {self.walks:,} walks); {self.symmetry_breaking}")
        if self.seconds is None or self.nodes_per_second is None:
            return f"{tree}\nno time estimate: the dlx engine is not built here"
        return (f"{tree}\nabout {duration(self.seconds)} on one core (± {duration(self.seconds_spread or 0.0)}) at the "
                f"dlx engine's {self.nodes_per_second:,.0f} nodes/s on this puzzle")


def estimate(puzzle: Puzzle, *, probes: int = 4000, symmetry_breaking: bool = True, backend: str = "auto") -> Estimate:
    """How big the search is and how long it takes on one core, before running it (`cpsolve estimate`).

    The walks model the dlx engine's search (Knuth's estimate of its exact-cover tree), so the estimate is
    of a run on dlx: a puzzle that would run on another backend (`backend`, and `auto`'s choice for
    chains, which dlx does not take) is refused with the reason, exit code 1.

    >>> e = cpsolve.estimate(cpsolve.load("soma"), probes=400)
    >>> 100 < e.nodes < 10_000, e.walks
    (True, 400)
    """
    from ..search.backends import for_problem
    from ..search.enumeration import prepare
    from ..search.estimate import estimate_run
    from ..search.parts import subproblems

    prepared = prepare(puzzle, symmetry_breaking)
    engine = for_problem(backend, prepared.problem)
    if engine.name != "dlx":
        why = f" ({engine.reason})" if engine.reason else ""
        raise CpsolveError(f"the estimate is of the dlx engine's search, and this puzzle runs on {engine.label}{why}",
                           where=prepared.name, field="backend", exit_code=1)
    found = estimate_run(prepared.broken.problem, subproblems(prepared.broken), probes)
    return Estimate(prepared.name, found.tree.nodes, found.tree.stderr, found.tree.probes,
                    prepared.broken.key.describe(), found.nodes_per_second)


def read_journal(path: PathLike) -> JournalSummary:
    """Where the run journalled in `path` stands (`cpsolve journal`): subproblems done, what was found,
    the command that resumes it. Checked as a resume would check it (a damaged journal raises);
    read-only, so it is safe while the run writes it.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> r = cpsolve.run(cpsolve.load("soma"), out=folder / "soma.jsonl", journal=folder / "soma.journal")
    >>> j = cpsolve.read_journal(folder / "soma.journal")
    >>> j.complete, j.parts_done == j.parts, j.classes
    (True, True, 240)"""
    from ..search.journal import summary

    return summary(Path(path))
