"""Counts beyond enumeration: ApproxMC's count with a guarantee, and UniGen's near-uniform solutions.

Both tools (Chakraborty, Meel, Soos: `pyapproxmc`, `pyunigen`, the optional extra `cpsolve[approx]`)
work on the sat backend's CNF (`problem.cnf.encode`), *projected* on the placement variables 1..n_rows:
the auxiliary variables of the cardinality encodings are not always fixed by the placements (a
bitwise "at most one" with no placement chosen, a sequential counter's partial sums), so an
unprojected count counts assignments, not assemblies. Projected, one solution is one set of
placements, that is one exact cover, and for a packing puzzle one assembly.

ApproxMC's guarantee: with probability at least 1 - delta the count c satisfies
total / (1 + epsilon) <= c <= total * (1 + epsilon). It cuts the solution space with random XOR
constraints over the projection variables until a cell holds few enough solutions to enumerate, so
its work grows with the size of those cells (about 73 solutions at epsilon 0.8) and with the number
of calls (more for a smaller delta), not with the number of solutions.

Each call runs in a forked child (`isolate.run_isolated`): the tools hold the interpreter lock in C
and cannot be interrupted, so a timeout or Ctrl-C stops the child from outside. Neither tool runs on
several cores; `count_approx` in the API puts the other workers on Knuth's walks instead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CpsolveError
from ..limits import check_timeout
from ..problem.cnf import Cnf
from .isolate import ChildDied, Overrun, run_isolated

INSTALL_HINT = "pyapproxmc and pyunigen are not installed (pip install 'cpsolve[approx]')"
DEFAULT_EPSILON = 0.8
DEFAULT_DELTA = 0.2
"""ApproxMC's own defaults: the count within a factor 1.8 with probability at least 0.8."""


@dataclass(frozen=True)
class ApproxCount:
    """ApproxMC's answer: `cells` solutions in one cell of 2**`hashes` cells, so about cells * 2**hashes."""

    cells: int
    hashes: int
    epsilon: float
    delta: float
    seed: int
    seconds: float

    @property
    def count(self) -> int:
        return self.cells << self.hashes

    @property
    def exact(self) -> bool:
        """No XOR was needed: ApproxMC enumerated every solution, so the count is exact."""
        return self.hashes == 0

    @property
    def interval(self) -> tuple[float, float]:
        """Where the true count lies with probability at least 1 - delta (the count itself when exact)."""
        if self.exact:
            return float(self.count), float(self.count)
        return self.count / (1 + self.epsilon), self.count * (1 + self.epsilon)


def check_parameters(epsilon: float, delta: float) -> None:
    """ApproxMC's ranges: epsilon > 0 and 0 < delta < 1; one line naming the field otherwise."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise CpsolveError(f"must be a number > 0, not {epsilon}", field="epsilon")
    if not 0 < delta < 1:
        raise CpsolveError(f"must be between 0 and 1 (exclusive), not {delta}", field="delta")


def _tools_installed() -> None:
    try:
        import pyapproxmc  # noqa: F401
        import pyunigen  # noqa: F401
    except ImportError:
        raise CpsolveError(INSTALL_HINT, field="approx", exit_code=1) from None


TIMEOUT_EXIT = 3
"""The exit status of a run cut short by its timeout, as everywhere (`api.TIMEOUT_EXIT`)."""


def _isolated(call: Callable[[], Any], timeout: float | None, what: str) -> Any:
    """`call()` in a forked child; a timeout is a one-line error (exit 3), Ctrl-C a KeyboardInterrupt."""
    check_timeout(timeout)
    try:
        value, _ = run_isolated(call, timeout)
    except Overrun:
        raise CpsolveError(f"{what} did not finish within {timeout:g} s", field="timeout",
                           exit_code=TIMEOUT_EXIT) from None
    except ChildDied as exc:
        raise CpsolveError(f"{what} failed: {exc}", exit_code=1) from None
    return value


def projected_count(cnf: Cnf, epsilon: float = DEFAULT_EPSILON, delta: float = DEFAULT_DELTA, seed: int = 1,
                    timeout: float | None = None, projection: Sequence[int] | None = None) -> ApproxCount:
    """ApproxMC's count of `cnf` projected on its placement variables (or on `projection`: the tests
    count over every variable to show that the projection matters)."""
    check_parameters(epsilon, delta)
    _tools_installed()
    began = time.perf_counter()
    if any(not c for c in cnf.clauses):  # an empty clause: no solution, and ApproxMC need not see it
        return ApproxCount(0, 0, epsilon, delta, seed, 0.0)
    over = list(projection) if projection is not None else list(range(1, cnf.n_rows + 1))

    def count() -> tuple[int, int]:
        import pyapproxmc

        counter = pyapproxmc.Counter(seed=seed, epsilon=epsilon, delta=delta)
        counter.add_clauses([list(c) for c in cnf.clauses])
        cells, hashes = counter.count(over)
        return int(cells), int(hashes)

    cells, hashes = _isolated(count, timeout, "ApproxMC")
    return ApproxCount(cells, hashes, epsilon, delta, seed, time.perf_counter() - began)


def uniform_rows(cnf: Cnf, n: int, seed: int = 1, timeout: float | None = None) -> list[tuple[int, ...]]:
    """`n` near-uniform solutions of `cnf` (UniGen3, projected on the placement variables), each as the
    sorted rows it chooses. Solutions may repeat: they are drawn independently."""
    if n < 1:
        raise CpsolveError(f"must be at least 1, not {n}", field="n")
    _tools_installed()
    if any(not c for c in cnf.clauses):
        return []
    over = list(range(1, cnf.n_rows + 1))

    def draw() -> list[tuple[int, ...]]:
        import pyunigen

        sampler = pyunigen.Sampler(seed=seed)
        for clause in cnf.clauses:
            sampler.add_clause(list(clause))
        _, _, samples = sampler.sample(num=n, sampling_set=over)
        return [tuple(sorted(lit - 1 for lit in s if 0 < lit <= cnf.n_rows)) for s in samples]

    rows: list[tuple[int, ...]] = _isolated(draw, timeout, "UniGen")
    return rows
