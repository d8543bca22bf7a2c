"""Random assemblies (`cpsolve sample`): exactly uniform from an enumeration where the search is small
enough, by walks split on the key piece where it is not, by UniGen on request.

Uniform over assemblies from the symmetry-broken search: a solution s of the broken problem stands for
w(s) assemblies (its key placement's orbit), and for every class up to rotation the weights of its
members in the broken search add up to the class's size (`problem.symmetry`). So drawing s with
probability in proportion to w(s) and turning it by a rotation of the container chosen uniformly gives
every assembly the same probability: the class comes with probability |class| / total, and the rotation
makes every member of the class as likely.

- "enumeration": every solution of the broken problem in memory (their rows, packed), when the search
  fits in the time given (`estimate.estimate_run`: tree x the engine's rate) and the rows in STORE_INTS;
  exact.
- "walks": the strata of the count (`walks.plan_walks`, refined by a few seconds of walks) give each
  stratum's estimated count; a stratum is chosen in proportion to weight x that count (an estimate: the
  one approximation), then a solution of it uniformly by rejection: a walk reaches a tail with
  probability 1/W, a solution of the tail is taken uniformly (1/c), and the proposal is kept with
  probability W x c / M, M the largest walk value the stratum's estimate met. Every solution of the stratum
  is then kept with probability 1/M per proposal: uniform, as long as no proposal passes M (the bound is
  raised when one does, and the count of those is reported). A stratum counted whole is drawn from its
  solutions exactly.
- "unigen": UniGen3 on the CNF projected on the placement variables (its near-uniformity guarantee), in
  batches, so that memory stays bounded by the batch.
"""

from __future__ import annotations

import bisect
import random
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ..errors import CpsolveError
from ..problem.placements import ExactCoverProblem
from .enumeration import Prepared
from .moments import Scaled, as_float, normal
from .walks import Context

SAMPLE_ENUMERATE_SECONDS = 20.0
"""Without a timeout, a search estimated to take at most this long (one core) is enumerated for an exact
draw; with one, half of it."""
STORE_INTS = 1 << 25
"""Rows kept in memory for the exact draw at most (128 MB); a puzzle with more solutions is drawn by walks."""
ESTIMATE_SECONDS = 5.0
"""Seconds of walks (after their plan) that size the strata before the draws by walks."""
UNIGEN_BATCH = 64
"""Draws per UniGen call: memory for the draws stays that of one batch."""
TAIL_STORE = 1 << 20
"""Solutions of one tail kept to draw from (a larger tail is a rejected proposal)."""


@dataclass(frozen=True)
class Draw:
    """One random assembly: `rows` of the prepared (unbroken) problem, `placements` as (piece, cells) of
    the assembly as drawn (turned by a random rotation), and the method that drew it."""

    rows: tuple[int, ...]
    placements: list[tuple[int, tuple[int, ...]]]
    method: str


class Turner:
    """Broken solutions into assemblies: rows of the broken problem turned by a random rotation, as rows of
    the full problem."""

    def __init__(self, prepared: Prepared, rng: random.Random):
        self.prepared, self.rng = prepared, rng
        self.broken = prepared.broken.problem
        self.full = {(row.piece, row.cells): i for i, row in enumerate(prepared.problem.rows)}

    def draw(self, rows: Sequence[int], method: str) -> Draw:
        canon = self.prepared.canonicalizer
        element = self.rng.randrange(max(1, canon.n_rotations))
        placed = canon.transform_rows(self.broken, rows, element)
        return Draw(tuple(sorted(self.full[p] for p in placed)), list(placed), method)


def draws(prepared: Prepared, n: int, seed: int, deadline: float | None, workers: int = 1, guarantee: bool = False,
          progress: Callable[[str], object] | None = None) -> Iterator[Draw]:
    """`n` independent random assemblies (see the module's note for the methods)."""
    rng = random.Random(seed)
    problem = prepared.broken.problem
    if guarantee or problem.side_clauses:
        if problem.side_clauses and progress is not None and not guarantee:
            progress("a chain: drawn by UniGen (the exact draw and the walks take exact cover only)")
        yield from _unigen(prepared, n, seed, deadline, progress)
        return
    turner = Turner(prepared, rng)
    stored = _enumerated(prepared, deadline, progress)
    if stored is not None:
        yield from _from_stored(stored, n, turner, "enumeration", deadline, progress)
        return
    yield from _by_walks(prepared, n, rng, turner, seed, deadline, workers, progress)


# --- exact: every solution in memory ------------------------------------------------------------------------


@dataclass
class Stored:
    """Solutions packed: the rows of solution i are rows[offsets[i]:offsets[i + 1]]; cumulative[i] is the
    weight of solutions 0..i."""

    rows: array[int]
    offsets: array[int]
    cumulative: list[int]

    def solution(self, i: int) -> tuple[int, ...]:
        return tuple(self.rows[self.offsets[i]:self.offsets[i + 1]])

    def pick(self, rng: random.Random) -> int:
        return bisect.bisect_right(self.cumulative, rng.randrange(self.cumulative[-1]))


def _enumerated(prepared: Prepared, deadline: float | None, progress: Callable[[str], object] | None
                ) -> Stored | None:
    """Every solution of the broken problem with its weight, when the search fits the time (None otherwise:
    estimated too long, or found too long or too many while it ran)."""
    from .backends.dlx import build_engine
    from .estimate import estimate_run

    broken = prepared.broken
    found = estimate_run(broken.problem, broken.starts, probes=400, sample_seconds=0.05)
    left = None if deadline is None else deadline - time.time()
    budget = SAMPLE_ENUMERATE_SECONDS if left is None else left / 2
    if found.seconds is None or found.seconds > budget:
        return None
    if progress is not None:
        progress(f"the search is about {found.tree.nodes:,.0f} nodes: every solution enumerated, for an exact draw")
    engine = build_engine(broken.problem)
    rows, offsets, weights = array("i"), array("q", [0]), []
    stop_at = time.time() + budget
    too_many = False

    def keep(solution: tuple[int, ...]) -> bool:
        nonlocal too_many
        rows.extend(solution)
        offsets.append(len(rows))
        if len(rows) > STORE_INTS:
            too_many = True
        return too_many

    for start, weight in zip(broken.starts, broken.weights or (1,), strict=True):
        before = len(offsets)
        out = engine.search(keep, forced=tuple(start), timeout=max(stop_at - time.time(), 1e-3))
        if out["status"] != "complete" or too_many:
            if progress is not None:
                progress("the enumeration is larger than estimated: drawn by walks instead")
            return None
        weights.extend([weight] * (len(offsets) - before))
    cumulative, total = [], 0
    for w in weights:
        total += w
        cumulative.append(total)
    if not cumulative:
        return Stored(rows, offsets, [])
    return Stored(rows, offsets, cumulative)


def _from_stored(stored: Stored, n: int, turner: Turner, method: str, deadline: float | None,
                 progress: Callable[[str], object] | None) -> Iterator[Draw]:
    if not stored.cumulative:
        return
    for k in range(n):
        if deadline is not None and k % 256 == 0 and time.time() >= deadline:
            raise _late(k)
        yield turner.draw(stored.solution(stored.pick(turner.rng)), method)


def _late(done: int) -> CpsolveError:
    from .approx import TIMEOUT_EXIT

    return CpsolveError(f"the deadline passed after {done} draws", field="timeout", exit_code=TIMEOUT_EXIT)


# --- walks: a stratum by its estimated count, then a solution of it by rejection ---------------------------


def _by_walks(prepared: Prepared, n: int, rng: random.Random, turner: Turner, seed: int, deadline: float | None,
              workers: int, progress: Callable[[str], object] | None) -> Iterator[Draw]:
    from . import walks

    broken = prepared.broken
    runner = walks.forked_runner(workers) if workers > 1 else walks.serial_runner
    left = None if deadline is None else deadline - time.time()
    sizing = ESTIMATE_SECONDS if left is None else min(ESTIMATE_SECONDS, left / 4)
    plans: list[walks.WalkPlan] = []
    found = walks.estimate_walks(broken.problem, broken, seed, walks.Stop(seconds=sizing, precision=0.02,
                                                                          deadline=deadline),
                                 runner, progress=progress, on_plan=plans.append)
    if found.status == "interrupted":
        raise KeyboardInterrupt
    if found.solutions == 0 or not plans:
        return
    strata = plans[0].strata
    if progress is not None:
        progress(f"about {as_float(found.total):.4g} assemblies ({found.walks:,} walks): each draw takes a stratum "
                 "by its estimated count, then a uniform solution of it by rejection from walks")
    ctx = walks.context(broken.problem)
    cumulative, total = [], 0.0
    for mean, s in zip(found.strata_means, strata, strict=True):
        total += as_float(mean) * s.weight
        cumulative.append(total)
    bounds = list(found.strata_tops)
    whole: dict[int, list[tuple[int, ...]]] = {}
    tried = passed = 0
    began = time.monotonic()
    for k in range(n):
        j = min(bisect.bisect_right(cumulative, rng.random() * total), len(cumulative) - 1)
        stratum = strata[j]
        while True:
            if deadline is not None and time.time() >= deadline:
                raise _late(k)
            if stratum.exact is not None:  # counted whole: drawn from its solutions exactly
                if j not in whole:
                    whole[j] = _tail_solutions(ctx, stratum.prefix) or []
                if whole[j]:
                    yield turner.draw(rng.choice(whole[j]), "walks")
                break
            tried += 1
            item = ctx.walker.descend(stratum.prefix, 1, rng.getrandbits(64) or 1, stratum.depth)[0]
            sols = None if item is None else _tail_solutions(ctx, item[2])
            if item is None or not sols:
                continue
            value = (item[0] * len(sols), item[1])
            ratio = _ratio(value, bounds[j])
            if ratio > 1.0:
                passed += 1
                bounds[j] = normal(value)
            if rng.random() < ratio:
                yield turner.draw(rng.choice(sols), "walks")
                break
        if progress is not None and time.monotonic() - began > 5 and k % 100 == 99:
            progress(f"{k + 1:,} of {n:,} drawn ({tried:,} walks tried)")
    if passed and progress is not None:
        progress(f"{passed} of {tried:,} walks passed the bound their stratum's estimate set (each was drawn as if "
                 "at the bound: slightly less likely than uniform)")


def _ratio(value: Scaled, bound: Scaled) -> float:
    (v, k), (b, j) = normal(value), normal(bound)
    if b == 0.0:
        return 2.0
    return (v / b) * 2.0 ** max(min(k - j, 60), -1100)


def _tail_solutions(ctx: Context, rows: tuple[int, ...]) -> list[tuple[int, ...]] | None:
    """Every solution under `rows` (None when there are more than TAIL_STORE or the engine gives work back)."""
    from .walks import TAIL_BUDGET

    found: list[tuple[int, ...]] = []

    def keep(solution: tuple[int, ...]) -> bool:
        found.append(solution)
        return len(found) > TAIL_STORE

    out = ctx.engine.search(keep, forced=rows, budget=TAIL_BUDGET * 16)
    if out["rest"] or out["status"] != "complete":
        return None
    return found


# --- UniGen ------------------------------------------------------------------------------------------------


def _unigen(prepared: Prepared, n: int, seed: int, deadline: float | None,
            progress: Callable[[str], object] | None) -> Iterator[Draw]:
    from ..problem.cnf import encode
    from .approx import APPROX_ENCODING, uniform_rows

    problem: ExactCoverProblem = prepared.problem
    cnf = encode(problem, APPROX_ENCODING)
    done = 0
    batch = 0
    while done < n:
        left = None if deadline is None else deadline - time.time()
        if left is not None and left <= 0:
            raise _late(done)
        rows = uniform_rows(cnf, min(UNIGEN_BATCH, n - done), seed + batch, left)
        if not rows:
            return
        for r in rows:
            yield Draw(r, [(problem.rows[i].piece, problem.rows[i].cells) for i in r], "unigen")
        done += len(rows)
        batch += 1
        if progress is not None and batch % 4 == 0:
            progress(f"UniGen: {done:,} of {n:,} drawn")
