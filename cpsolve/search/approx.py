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
from dataclasses import dataclass, replace
from typing import Any

from ..errors import CpsolveError
from ..limits import check_timeout
from ..problem.cnf import DEFAULT_ENCODING, Cnf, encode
from ..problem.placements import ExactCoverProblem
from .isolate import ChildDied, Overrun, run_isolated

INSTALL_HINT = "pyapproxmc and pyunigen are not installed (pip install 'cpsolve[approx]')"
APPROX_ENCODING = "pairwise"
"""The cardinality encoding of the CNFs ApproxMC counts: no auxiliary variables for "exactly one"
(pairwise clauses), and the fastest of bitwise, seqcounter, ladder, totalizer and pairwise on the
Soma cube's symmetry-broken problem (72 s; totalizer 99 s; the others past 120 s, on a loaded machine).
Quadratic in a cell's placements: a part past the literal limit (`--max-literals`; the Tetris Cube's)
takes the default, compact encoding instead."""
DEFAULT_EPSILON = 0.8
DEFAULT_DELTA = 0.2
"""ApproxMC's own defaults: the count within a factor 1.8 with probability at least 0.8."""


@dataclass(frozen=True)
class ApproxCount:
    """ApproxMC's count over one or more parts (the weighted sum: see `split_count`).

    A part whose count came back with no XOR cut (`hashes` 0) was enumerated in full: it is exact and
    takes no share of the failure probability. `exact` is the sum of those, `approx` of the others."""

    exact: int
    approx: int
    epsilon: float
    delta: float
    seed: int
    seconds: float
    parts: int = 1
    most_hashes: int = 0
    """The most XOR constraints a part needed (0: every part exact)."""

    @property
    def count(self) -> int:
        return self.exact + self.approx

    @property
    def is_exact(self) -> bool:
        """No part needed a random cut: ApproxMC enumerated every solution, so the count is exact."""
        return self.approx == 0 and self.most_hashes == 0

    @property
    def interval(self) -> tuple[float, float]:
        """Where the true count lies with probability at least 1 - delta: each inexact part within a
        factor 1 + epsilon (probability 1 - delta / parts each, so all at once with 1 - delta at least)."""
        return self.exact + self.approx / (1 + self.epsilon), self.exact + self.approx * (1 + self.epsilon)


def check_parameters(epsilon: float, delta: float) -> None:
    """ApproxMC's ranges: epsilon > 0 and 0 < delta < 1; one line naming the field otherwise."""
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise CpsolveError(f"must be a number > 0, not {epsilon}", field="epsilon")
    if not 0 < delta < 1:
        raise CpsolveError(f"must be between 0 and 1 (exclusive), not {delta}", field="delta")


MISCOUNTING = ("4.2", "4.3", "4.4")
"""pyapproxmc releases found to miscount: 4.3.4 and 4.4.0 return 1 (exactly, no XOR cut) for a CNF
with 2 solutions, a part of the Soma cube (tests/test_approx.py keeps it), with every encoding but the
totalizer; 4.1.24 counts it right, and all 40 parts of a deeper split of the Soma cube. 4.2 was not
tried; refused with the others."""


def _tools_installed() -> None:
    """The tools are there, and not a release known to miscount (one line naming the fix otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import pyapproxmc  # noqa: F401
        import pyunigen  # noqa: F401
    except ImportError:
        raise CpsolveError(INSTALL_HINT, field="approx", exit_code=1) from None
    try:
        release = version("pyapproxmc")
    except PackageNotFoundError:
        return
    if release.startswith(MISCOUNTING):
        raise CpsolveError(f"pyapproxmc {release} miscounts small formulas (see cpsolve/search/approx.py): "
                           "pip install 'pyapproxmc==4.1.24'", field="approx", exit_code=1)


TIMEOUT_EXIT = 3
"""The exit status of a run cut short by its timeout, as everywhere (`api.TIMEOUT_EXIT`)."""


def _isolated(call: Callable[[], Any], limit: float | None, what: str, timeout: float | None) -> Any:
    """`call()` in a forked child stopped after `limit` seconds (what is left of `timeout`; asked by
    SIGINT, killed GRACE seconds later); running past it is a one-line error (exit 3), Ctrl-C a
    KeyboardInterrupt."""
    try:
        value, _ = run_isolated(call, limit)
    except Overrun:
        raise CpsolveError(f"{what} did not finish within {timeout:g} s", field="timeout",
                           exit_code=TIMEOUT_EXIT) from None
    except ChildDied as exc:
        raise CpsolveError(f"{what} failed: {exc}", exit_code=1) from None
    return value


def _quiet_stdout() -> None:
    """In the forked child: the tools print a few lines to stdout on some inputs (UniGen: "The input
    formula is unsatisfiable"), which would land in the solutions `cpsolve sample` writes there."""
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)


def _approxmc(cnf: Cnf, epsilon: float, delta: float, seed: int, over: Sequence[int]) -> tuple[int, int]:
    """ApproxMC in this process: (cells, hashes), the count being cells x 2**hashes."""
    import pyapproxmc

    if any(not c for c in cnf.clauses):  # an empty clause: no solution, and ApproxMC need not see it
        return 0, 0
    _quiet_stdout()
    counter = pyapproxmc.Counter(seed=seed, epsilon=epsilon, delta=delta)
    counter.add_clauses([list(c) for c in cnf.clauses])
    cells, hashes = counter.count(list(over))
    return int(cells), int(hashes)


def projected_count(cnf: Cnf, epsilon: float = DEFAULT_EPSILON, delta: float = DEFAULT_DELTA, seed: int = 1,
                    timeout: float | None = None, projection: Sequence[int] | None = None) -> ApproxCount:
    """ApproxMC's count of one CNF projected on its placement variables (or on `projection`: the tests
    count over every variable to show that the projection matters), in a forked child."""
    return split_count([(cnf, 1)], epsilon, delta, seed, timeout, projection=projection)


def part_cnf(problem: ExactCoverProblem, forced: Sequence[int], encoding: str = APPROX_ENCODING) -> Cnf:
    """The CNF of one subproblem: `problem` with the rows `forced` (as unit clauses) and the rows they
    exclude (a shared cell, another placement of a piece used once) left out.

    Why split: ApproxMC's preprocessing (Arjun's oracle-based simplification) grows fast with the
    formula; on the Soma cube's symmetry-broken problem it took 70-300 s here, its three key parts
    10 + 2 + 9 s (benchmarks/approx.py)."""
    cells = {c for r in forced for c in problem.rows[r].cells}
    used = {problem.rows[r].piece for r in forced if problem.piece_counts[problem.rows[r].piece] == 1}
    keep = [r for r, row in enumerate(problem.rows)
            if r in forced or (row.piece not in used and cells.isdisjoint(row.cells))]
    index = {old: new for new, old in enumerate(keep)}
    part = problem.with_rows(keep)
    try:
        cnf = encode(part, encoding)
    except CpsolveError:  # pairwise is quadratic: past --max-literals, the compact bitwise encoding
        cnf = encode(part, DEFAULT_ENCODING)
    return replace(cnf, clauses=cnf.clauses + tuple((index[r] + 1,) for r in forced))


def part_cnfs(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], encoding: str = APPROX_ENCODING
              ) -> list[Cnf]:
    """The CNF of each subproblem (`part_cnf`): all at once, for the tests and small puzzles; a count
    builds each where it is counted, one at a time (SolidSixPieceBurrs' 176 parts at once took 3.9 GB)."""
    return [part_cnf(problem, forced, encoding) for forced in starts]


Part = tuple[Cnf | Callable[[], Cnf], int]
"""A part to count: its CNF (or what builds it, in the process that counts it) and its weight."""
_PARTS: tuple[Sequence[Part], float, float, int, Sequence[int] | None] | None = None
"""What the forked counters read (inherited at fork): the parts, epsilon, delta per part, seed, projection."""


def _count_part(j: int) -> tuple[int, int]:
    """ApproxMC on part j, with its share of delta and seed + j; its CNF built here if it is not yet."""
    assert _PARTS is not None, "set before the counters were forked"
    parts, epsilon, share, seed, projection = _PARTS
    made = parts[j][0]
    cnf = made if isinstance(made, Cnf) else made()
    over = list(projection) if projection is not None else list(range(1, cnf.n_rows + 1))
    return _approxmc(cnf, epsilon, share, seed + j, over)


def split_count(parts: Sequence[Part], epsilon: float = DEFAULT_EPSILON, delta: float = DEFAULT_DELTA,
                seed: int = 1, timeout: float | None = None, workers: int = 1,
                on_part: Callable[[int, int], object] | None = None,
                projection: Sequence[int] | None = None) -> ApproxCount:
    """The sum over `parts` (CNF or its maker, weight) of weight x ApproxMC's projected count of the CNF.

    Each part runs with delta / len(parts) (the union bound: all parts within their factor at once
    with probability at least 1 - delta) and seed + its index. All of it runs in one forked child
    (`isolate.run_isolated`: stopped from outside at `timeout` or on Ctrl-C, since ApproxMC holds the
    interpreter in C and notices no signal; the child is asked to stop GRACE seconds before `timeout`
    and killed at it), which counts the parts itself or, with `workers` > 1, on a pool of forked
    counters that die with it. A part's CNF is made by the process that counts it, when it does: at most
    one per worker is in memory. `on_part(done, of)` after each part (in the child: it may print, not
    keep state)."""
    check_parameters(epsilon, delta)
    check_timeout(timeout)
    _tools_installed()
    began = time.perf_counter()

    def count_all() -> list[tuple[int, int]]:
        global _PARTS
        _PARTS = (parts, epsilon, delta / max(1, len(parts)), seed, projection)
        answers: list[tuple[int, int]] = []
        if workers > 1 and len(parts) > 1:
            from .pool import forked_pool

            with forked_pool(min(workers, len(parts))) as pool:
                for answer in pool.imap(_count_part, range(len(parts))):
                    answers.append(answer)
                    if on_part is not None:
                        on_part(len(answers), len(parts))
        else:
            for j in range(len(parts)):
                answers.append(_count_part(j))
                if on_part is not None:
                    on_part(len(answers), len(parts))
        return answers

    from .isolate import GRACE

    limit = None if timeout is None else max(timeout - GRACE, 1e-3)
    answers: list[tuple[int, int]] = _isolated(count_all, limit, "ApproxMC", timeout)
    exact = sum(w * cells for (_, w), (cells, hashes) in zip(parts, answers, strict=True) if hashes == 0)
    approx = sum(w * (cells << hashes) for (_, w), (cells, hashes) in zip(parts, answers, strict=True) if hashes)
    return ApproxCount(exact, approx, epsilon, delta, seed, time.perf_counter() - began, len(parts),
                       max((h for _, h in answers), default=0))


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
        from pysat.solvers import Solver

        with Solver(name="glucose4", bootstrap_with=[list(c) for c in cnf.clauses]) as solver:
            if not solver.solve():  # UniGen prints to stdout and fails on an unsatisfiable formula
                return []
        _quiet_stdout()
        sampler = pyunigen.Sampler(seed=seed)
        for clause in cnf.clauses:
            sampler.add_clause(list(clause))
        _, _, samples = sampler.sample(num=n, sampling_set=over)
        return [tuple(sorted(lit - 1 for lit in s if 0 < lit <= cnf.n_rows)) for s in samples]

    check_timeout(timeout)
    rows: list[tuple[int, ...]] = _isolated(draw, timeout, "UniGen", timeout)
    return rows


APPROXMC_SECONDS = 2.7e-4
"""Seconds per unit of `part_cost` (pyapproxmc 4.1.24 on one core of the 2-core machine results/approx.md was
measured on: the 6x6x2 T-tetracube box's part 10.5 s predicted 8.4; Cubissimo's two large parts 12.8 s
against 14; the Soma cube's 19 s against 24)."""
EXACT_PART_SECONDS = 0.2
"""A part with at most `threshold` solutions is enumerated by ApproxMC, no random cut: 0.01-0.7 s measured."""


def threshold(epsilon: float) -> float:
    """ApproxMC's cell size: a part with at most this many solutions is counted exactly (about 73 at 0.8)."""
    return 1 + 9.84 * (1 + epsilon / (1 + epsilon)) * (1 + 1 / epsilon) ** 2


def iterations(delta: float) -> int:
    """ApproxMC's repetitions for a failure probability `delta` (the median of this many counts)."""
    return math.ceil(17 * math.log2(3 / delta))


def literals(problem: ExactCoverProblem, forced: Sequence[int]) -> int:
    """About the literals of the part's pairwise CNF (`part_cnf`) without making it: n + n(n - 1) for each
    cell and each single piece covered by n of the part's rows."""
    cells = {c for r in forced for c in problem.rows[r].cells}
    used = {problem.rows[r].piece for r in forced if problem.piece_counts[problem.rows[r].piece] == 1}
    per_cell: dict[int, int] = {}
    per_piece: dict[int, int] = {}
    for row in problem.rows:
        if row.piece in used or not cells.isdisjoint(row.cells):
            continue
        per_piece[row.piece] = per_piece.get(row.piece, 0) + 1
        for c in row.cells:
            per_cell[c] = per_cell.get(c, 0) + 1
    return sum(n * n for n in per_cell.values()) + sum(n * n for n in per_piece.values())


def predicted_seconds(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], counts: Sequence[float | None],
                      epsilon: float = DEFAULT_EPSILON, delta: float = DEFAULT_DELTA, workers: int = 1) -> float:
    """ApproxMC's time over the parts `starts` whose solutions are about `counts` (the walks'; None: unknown,
    taken as large as the largest known), on `workers` at once. A model fitted to the measured runs (see
    APPROXMC_SECONDS): a part of at most `threshold` solutions costs EXACT_PART_SECONDS; a larger one
    sqrt(literals) x iterations(delta per part) x (1 + log2(count / threshold)) units (the square root:
    larger formulas were cheaper per literal). Rough: within a factor 2 where ApproxMC needed random cuts
    (results/approx.md, section 4)."""
    known = [c for c in counts if c is not None]
    top = max(known, default=1e6)
    cell = threshold(epsilon)
    reps = iterations(delta / max(1, len(starts)))
    costs = []
    for forced, count in zip(starts, counts, strict=True):
        n = top if count is None else count
        if n <= cell:
            costs.append(EXACT_PART_SECONDS)
        else:
            costs.append(APPROXMC_SECONDS * math.sqrt(literals(problem, forced)) * reps * (1 + math.log2(n / cell)))
    return max(max(costs, default=0.0), sum(costs) / max(1, min(workers, len(costs))))
