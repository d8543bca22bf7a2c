"""Long runs before and after: the size of a search before it runs (`estimate`) and where a journalled run
stands (`read_journal`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import PathLike

if TYPE_CHECKING:
    from ..search.journal_file import Summary as JournalSummary


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
    log10_nodes: float | None = None
    """log10 of `nodes`, finite however large the tree: `nodes` (and `stderr`, `seconds`) are inf past a
    double's range (1.8e308: a 12x12x12 box of dominoes, a 27x27x27 box of rods)."""
    log10_stderr: float | None = None

    @property
    def seconds(self) -> float | None:
        return None if not self.nodes_per_second else self.nodes / self.nodes_per_second

    @property
    def seconds_spread(self) -> float | None:
        return None if not self.nodes_per_second else self.stderr / self.nodes_per_second

    def as_json(self) -> dict[str, object]:
        """A number past a double's range is null, its logarithm given beside it (JSON has no inf)."""
        def finite(v: float | None) -> float | None:
            return v if v is None or math.isfinite(v) else None

        return {"puzzle": self.puzzle, "backend": self.backend, "nodes": finite(self.nodes),
                "stderr": finite(self.stderr), "log10_nodes": self.log10_nodes, "log10_stderr": self.log10_stderr,
                "walks": self.walks, "symmetry_breaking": self.symmetry_breaking,
                "nodes_per_second": self.nodes_per_second, "seconds": finite(self.seconds),
                "seconds_spread": finite(self.seconds_spread)}

    def __str__(self) -> str:
        """What `cpsolve estimate` prints: the tree, then the time (long ones in days or years, past a double's
        range as a power of ten)."""
        from ..output.text import big_number, duration, printable

        nodes, spread = big_number(self.nodes, self.log10_nodes), big_number(self.stderr, self.log10_stderr)
        tree = (f"{printable(self.puzzle)}: about {nodes} search nodes (± {spread}, one standard "
                f"error, {self.walks:,} walks); {self.symmetry_breaking}")
        if self.seconds is None or self.nodes_per_second is None:
            return f"{tree}\nno time estimate: the dlx engine is not built here"
        rate = math.log10(self.nodes_per_second)
        took = duration(self.seconds, None if self.log10_nodes is None else self.log10_nodes - rate)
        spread_took = duration(self.seconds_spread or 0.0,
                               None if self.log10_stderr is None else self.log10_stderr - rate)
        return (f"{tree}\nabout {took} on one core (± {spread_took}) at the "
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
    from ..search.moments import log10_of

    found = estimate_run(prepared.broken.problem, subproblems(prepared.broken), probes)
    tree = found.tree
    return Estimate(prepared.name, tree.nodes, tree.stderr, tree.probes, prepared.broken.key.describe(),
                    found.nodes_per_second, log10_nodes=log10_of(tree.scaled),
                    log10_stderr=log10_of(tree.scaled_stderr))


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
