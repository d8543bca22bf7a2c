"""Counting solutions beyond enumeration: Knuth's random walks, each finished by an exact count of the
small subtree where it stops.

Knuth (Math. Comp. 29, 1975) estimates a backtrack tree by walking from the root, choosing each child
uniformly at random: the product W of the degrees met is the inverse of the probability of the path,
so W times anything found at its end is an unbiased estimate of the sum of that thing over the tree.
Walked to the leaves this counts solutions too (a walk is worth W when it reaches one, 0 when it dies),
but on the puzzles that need it almost every walk dies: 1 in 438,000 reached a solution of Conway's
5x5x5, none of the T-tetracube 6x6x6 box in 10 s. As Knuth's paper suggests for backtrack programs
(and Purdom's partial backtracking does), a walk here descends at random only until the subtree under
it is small, `depth` rows deep, and the dlx engine then counts that subtree exactly: the walk is worth
W x (its exact count), still unbiased, and far more walks find something. (A tail that passes the
engine's node budget is finished the same way one level down: the engine gives back the branches it
did not search, one of them is counted in turn with a factor of their number, which stays unbiased.)

The walks are stratified (`plan`): the search is cut into strata, the key piece's kept placements split
by the engine's own first choices (`parts.split`), each weighted by its orbit as enumeration weights
them, and every stratum gets its own walks; the estimate is the weighted sum of the strata's means, its
variance the weighted sum of theirs. A stratum at or below the tail depth is counted exactly once and
has no variance. How many walks each stratum gets (`Stratum.share`) is fixed from a pilot of a few walks
per stratum, in proportion to its weight x spread / sqrt(cost) (Neyman's allocation) with a floor; the
pilot's own walks then give the first, quick answer, and stand for a stratum only until it has two of
its own (an i.i.d. sample of it too, drawn before any decision). Measured
(prototype, `benchmarks/approx.py`): re-deciding the shares from the walks themselves as they came made
the estimate biased low by several standard errors on the Y-pentacube box and Bedlam (a stratum whose
first walks found nothing got few more, and a stratum's mean is then mostly too low); shares fixed
beforehand keep every stratum's walks an i.i.d. sample.

The work is a stream of units (a few hundred walks of one stratum, with their own seed), the same on
any number of workers and in any order: a forked pool, a Dask cluster or this process only change how
fast they come back. A unit cut by the deadline counts for nothing (so a unit's walks are all there or
none is). What comes back is summed per stratum (`moments.Moments`, exact past a double's range).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import CpsolveError
from ..problem.placements import ExactCoverProblem
from ..problem.symmetry import BrokenProblem
from .moments import Moments, Scaled, add_scaled, as_float, log10_of, normal, order, sqrt_scaled, stratified, times
from .parts import split

TAIL_NODES = 2000.0
"""The mean size (engine nodes) of the subtree a walk counts exactly. Measured with 10 s of walks at each
depth (relative standard error x sqrt(seconds), lower is better): Conway's 5x5x5 0.20-0.25 with tails of
48-4,000 nodes, worse with smaller; the T-tetracube 6x6x6 0.75 at 1,100 nodes, 0.98 at 76, 1.9 at 46,000;
Bedlam 0.13 at 4,500, 0.17 at 400. About where a tail costs what the walk to it does (20-60 us)."""
TAIL_BUDGET = 1 << 18
"""Nodes a tail may take before the engine gives back what it has not searched (see the module's note)."""
EXACT_NODES = 2_000_000.0
"""A search estimated below this many nodes (a tenth of a second) is counted exactly, not estimated."""
EXACT_BUDGET = 1 << 22
"""Nodes a stratum at or below the tail depth may take to be counted whole; past them it is walked."""
STRATA = 64
"""Strata to aim for: the key's parts are split by the engine's first choices until there are this many,
at most SPLIT_LEVELS levels deep. More strata remove more of the walks' variance at the top of the tree
(Conway's 5x5x5: relative error x sqrt(seconds) 0.17 with its 4 key parts, 0.06 with 199 strata), and
each needs enough walks for its own variance to mean something."""
SPLIT_LEVELS = 2
MAX_STRATA = 1024
"""...and a split that would pass this many is not made (each stratum's pilot walks come before the
first answer). Bedlam, 15 s of walks, seeds 1 and 2: 2.7 and 1.1 standard errors from the total with its
41 parts split once, 0.6 and 1.0 with the 698 of a second split (relative errors alike)."""
PROFILE_WALKS = 256
"""Walks to the leaves that estimate the tree's size at each depth, from which the tail depth is chosen..."""
PROFILE_SECONDS = 0.5
"""...one per stratum at least, and no more once this time has passed."""
DEPTH_PROBES = 48
"""Walks whose tails are counted to check a tail depth (moved one level while their mean is off by 4)."""
PILOT_WALKS = 16
"""Walks per stratum in the pilot that fixes the strata's shares..."""
PILOT_TOTAL = 8192
"""...fewer where there are many strata, so that the pilot stays this size, but MIN_PILOT at least each;
the first FIRST_PILOT of each give the first answer, the rest follow. Measured on the Y-pentacube box
(15 s of walks, seeds 1 and 2, relative standard error): 0.16 and 0.10 with a pilot of 2,048 walks and
no SHRINK, 0.059 and 0.068 with 8,192 and SHRINK 8, 0.076 and 0.069 with SHRINK alone."""
MIN_PILOT = 8
FIRST_PILOT = 4
SHRINK = 8.0
"""Pseudo-walks of the strata's pooled variance added to each stratum's own, in the shares: a pilot that
found nothing in a stratum (a few walks of a heavy tail) must not starve it."""
FLOOR = 0.25
"""The share of the walks every stratum gets whatever its pilot said (a pilot that found nothing in a
stratum is no proof that it holds little)."""
WALK_COST = 1500.0
"""A walk's fixed cost in engine nodes (the descent and the engine's start: 20-60 us), added to its tail's
nodes when the shares weigh the strata's costs."""
ROUND_WALKS = 4096
"""Walks of one round (at least one per stratum): the units of round r are all issued before round r+1's."""
UNIT_NODES = 4_000_000.0
"""About how many engine nodes a unit costs (0.05-0.2 s): the deadline and a stop wait at most for one."""
MIN_INTERVAL_REACHED = 100
"""A confidence interval is given only when at least this many walks found solutions..."""
MAX_WALK_SHARE = 0.05
"""...no single walk carries more than this share of the estimate (a walk that does is a sign of the
heavy tail that also makes the standard error too small)..."""
MAX_INTERVAL_ERROR = 0.2
"""...and the relative standard error is at most this (the normal approximation needs many walks)."""
Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the normal distribution."""


@dataclass(frozen=True)
class Stratum:
    """Part of the search: the solutions through `prefix` (rows of the broken problem), each standing for
    `weight` assemblies. Walks from it stop at `depth` rows; `exact` is its count when it was counted
    whole (no walks then), `share` its fraction of each round's walks."""

    prefix: tuple[int, ...]
    weight: int
    depth: int
    exact: int | None = None
    share: float = 0.0


@dataclass(frozen=True)
class WalkPlan:
    """How the walks go: the strata, the tail depth, the seed, and what planning learnt."""

    strata: tuple[Stratum, ...]
    depth: int
    seed: int
    pilot: tuple[tuple[int, int, int, int, float, float, float], ...] = ()
    """Each stratum's pilot walks (`Moments.as_tuple`): the first answer, and the shares' source."""
    tree_nodes: float = 0.0
    """The whole search's estimated nodes (Knuth's estimate, from the profile walks)."""

    @property
    def exact(self) -> bool:
        """Every stratum was counted whole: the total is exact."""
        return all(s.exact is not None for s in self.strata)


@dataclass(frozen=True)
class WalkEstimate:
    """The estimated number of solutions (assemblies, each stratum weighted by its orbit), with what tells
    how far to trust it.

    `total` and `variance` are in scaled form (past a double's range on large boxes); `solutions`,
    `stderr` are floats (inf past it). `interval` is a 95 % confidence interval, given only when the walks
    support the normal approximation (`why_no_interval` says which test failed otherwise). `pilot` marks
    the first, quick answer (the pilot's walks, before the main walks have two in every stratum)."""

    total: Scaled
    variance: Scaled
    walks: int
    reached: int
    nodes: int
    strata: int
    exact_strata: int
    depth: int
    seconds: float
    exact: bool = False
    pilot: bool = False
    interval: tuple[Scaled, Scaled] | None = None
    why_no_interval: str | None = None
    status: str = "complete"
    """complete (the walks, seconds or precision asked for), timeout, or interrupted."""
    parts: tuple[tuple[tuple[int, ...], float], ...] = ()
    """Each key part's estimated solutions (unweighted: the part's own), by its prefix (one row, or none):
    what ApproxMC's cost is predicted from."""
    strata_means: tuple[Scaled, ...] = ()
    """Each stratum's estimated solutions (unweighted; its exact count where it was counted whole)."""
    strata_tops: tuple[Scaled, ...] = ()
    """Each stratum's largest walk (0 for an exact one): the bound the sampler's rejection step uses."""

    @property
    def solutions(self) -> float:
        return as_float(self.total)

    @property
    def stderr(self) -> float:
        return as_float(sqrt_scaled(self.variance))

    @property
    def stderr_scaled(self) -> Scaled:
        return sqrt_scaled(self.variance)

    @property
    def log10(self) -> float | None:
        return log10_of(self.total)

    @property
    def relative_error(self) -> float:
        (v, k), (e, j) = normal(self.total), normal(self.stderr_scaled)
        return 0.0 if v == 0.0 else math.ldexp(e / v, max(j - k, -1100))

    def per(self, factor: float) -> WalkEstimate:
        """The estimate divided by `factor` (a chain's numberings; the counts up to symmetry)."""
        interval = None if self.interval is None else (times(self.interval[0], 1 / factor),
                                                       times(self.interval[1], 1 / factor))
        return replace(self, total=times(self.total, 1 / factor), variance=times(self.variance, 1 / factor ** 2),
                       interval=interval)


# --- the walks themselves (run in workers) --------------------------------------------------------


class Late(Exception):
    """A unit met the deadline: it counts for nothing."""


@dataclass
class Context:
    """What a process walks with: the problem converted once for the walks and for the engine."""

    problem: ExactCoverProblem
    walker: Any
    engine: Any


def context(problem: ExactCoverProblem) -> Context:
    """The walker and the engine for `problem` (each a C object over its rows, made once per process)."""
    from ._estimate import Walker
    from .backends.dlx import build_engine

    return Context(problem, Walker(problem.n_cells, list(problem.piece_counts), [r.piece for r in problem.rows],
                                   [r.cells for r in problem.rows], list(problem.piece_low), list(problem.optional)),
                   build_engine(problem))


def tail_count(ctx: Context, prefix: tuple[int, ...], rng: random.Random, deadline: float | None,
               budget: int = TAIL_BUDGET) -> tuple[float, int]:
    """The solutions under `prefix` (an unbiased estimate when the engine gives work back: see the module's
    note) and the engine nodes spent. Raises Late at the deadline (a `time.time()` value)."""
    found, factor, nodes, forced = 0.0, 1.0, 0, prefix
    while True:
        left = None if deadline is None else deadline - time.time()
        if left is not None and left <= 0:
            raise Late
        out = ctx.engine.search(None, forced=forced, budget=budget, timeout=left)
        nodes += out["nodes"]
        if out["status"] == "timeout":
            raise Late
        found += factor * out["solutions"]
        rest = out["rest"]
        if not rest:
            return found, nodes
        factor *= len(rest)
        forced = rest[rng.randrange(len(rest))]


def unit_seed(seed: int, round_: int, stratum: int, chunk: int) -> int:
    """A unit's own seed (splitmix64 of its coordinates): the same unit draws the same walks anywhere."""
    x = (seed * 0x9E3779B97F4A7C15 + round_ * 0xBF58476D1CE4E5B9 + stratum * 0x94D049BB133111EB + chunk + 1)
    x &= (1 << 64) - 1
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & ((1 << 64) - 1)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & ((1 << 64) - 1)
    return (x ^ (x >> 31)) or 1


def walk_stratum(ctx: Context, prefix: tuple[int, ...], depth: int, n: int, seed: int,
                 deadline: float | None = None) -> Moments:
    """`n` walks from `prefix`, each descending at random to `depth` rows and counting its tail exactly."""
    found = Moments()
    rng = random.Random(seed)
    state = seed
    for lo in range(0, n, DESCENT_BATCH):
        _check(deadline)
        batch = ctx.walker.descend(prefix, min(DESCENT_BATCH, n - lo), state, depth)
        state = rng.getrandbits(64) or 1
        for item in batch:
            if item is None:
                found.add(0.0)
                continue
            weight, shift, rows = item
            count, nodes = tail_count(ctx, rows, rng, deadline)
            found.add(weight * count, shift, nodes)
    return found


DESCENT_BATCH = 32
"""Descents per call of the compiled walker: between calls the deadline is looked at (a descent through
thousands of pieces takes a good part of a second)."""
Unit = tuple[int, int, int, int]
"""(round, stratum, chunk, walks): round -1 is the pilot."""


_CONTEXT: tuple[WalkPlan, Context] | None = None
"""What forked walkers use (inherited at fork): the plan and the problem, converted."""


def run_unit(unit: Unit, plan: WalkPlan, ctx: Context, deadline: float | None) -> tuple[Unit, Moments | None]:
    """One unit's walks; None when it met the deadline."""
    round_, j, chunk, n = unit
    stratum = plan.strata[j]
    try:
        return unit, walk_stratum(ctx, stratum.prefix, stratum.depth, n, unit_seed(plan.seed, round_, j, chunk),
                                  deadline)
    except Late:
        return unit, None


def _forked_unit(job: tuple[Unit, float | None]) -> tuple[Unit, tuple[int, int, int, int, float, float, float] | None]:
    assert _CONTEXT is not None, "set before the workers were forked"
    unit, found = run_unit(job[0], _CONTEXT[0], _CONTEXT[1], job[1])
    return unit, None if found is None else found.as_tuple()


# --- planning ------------------------------------------------------------------------------------------


def strata_of(broken: BrokenProblem, target: int | None = None, levels: int | None = None
              ) -> list[tuple[tuple[int, ...], int]]:
    """The strata's prefixes and weights: the key's parts, split by the engine's first choice (`parts.split`,
    dead branches dropped) while fewer than `target` (STRATA), at most `levels` (SPLIT_LEVELS) times."""
    target = STRATA if target is None else target
    levels = SPLIT_LEVELS if levels is None else levels
    weights = broken.weights or (1,) * len(broken.starts)
    out = [(tuple(s), w) for s, w in zip(broken.starts, weights, strict=True)]
    for _ in range(levels):
        if len(out) >= target:
            break
        deeper = [(d, w) for p, w in out for d in split(broken.problem, p)]
        if [d for d, _ in deeper] == [p for p, _ in out] or len(deeper) > MAX_STRATA:
            break
        out = deeper
    return out


def _profile(ctx: Context, prefixes: Sequence[tuple[int, ...]], seed: int, deadline: float | None = None
             ) -> dict[int, float]:
    """log2 of the estimated nodes at each depth (rows chosen, the prefix's included) below the strata, from
    PROFILE_WALKS walks to the leaves (every stratum at least once), or as many as PROFILE_SECONDS allow
    (a walk through 6,561 rods takes a tenth of a second)."""
    per = max(1, -(-PROFILE_WALKS // len(prefixes)))
    sums: dict[int, list[float]] = {}
    stop = time.monotonic() + PROFILE_SECONDS
    for j, prefix in enumerate(prefixes):
        _check(deadline)
        for k in range(per):
            if k and time.monotonic() > stop:
                break
            for walk in ctx.walker.levels(prefix, 1, unit_seed(seed, -2, j, k)):
                for i, level in enumerate(walk):
                    sums.setdefault(len(prefix) + i + 1, []).append(level - math.log2(per))
    return {d: _log2_sum(v) for d, v in sums.items()}


def _check(deadline: float | None) -> None:
    if deadline is not None and time.time() >= deadline:
        raise Late


def _log2_sum(logs: Sequence[float]) -> float:
    top = max(logs)
    return top + math.log2(math.fsum(2.0 ** (x - top) for x in logs))


def _tail_sizes(profile: dict[int, float], roots: float) -> dict[int, float]:
    """log2 of the mean subtree below a node at each depth: (the nodes at and below it) / (the nodes at it)."""
    out: dict[int, float] = {}
    below: list[float] = []
    for d in sorted(profile, reverse=True):
        below.append(profile[d])
        out[d] = _log2_sum(below) - profile[d]
    return out


def _mean_tail(ctx: Context, prefixes: Sequence[tuple[int, ...]], depth: int, seed: int, deadline: float | None
               ) -> float:
    """The mean nodes of DEPTH_PROBES tails at `depth`, walks dealt out to the strata in turn."""
    nodes, walks = 0, 0
    rng = random.Random(seed)
    per = max(1, DEPTH_PROBES // len(prefixes))
    for j, prefix in enumerate(prefixes[:DEPTH_PROBES]):
        for item in ctx.walker.descend(prefix, per, unit_seed(seed, -3, j, depth), max(depth, len(prefix))):
            walks += 1
            if item is not None:
                nodes += tail_count(ctx, item[2], rng, deadline)[1]
    return nodes / max(walks, 1)


def tree_log2(profile: dict[int, float], roots: int) -> float:
    """log2 of the search's estimated nodes (the roots, one per stratum, and every depth below)."""
    return _log2_sum([*profile.values(), math.log2(roots)])


def choose_depth(ctx: Context, prefixes: Sequence[tuple[int, ...]], seed: int, deadline: float | None,
                 profile: dict[int, float]) -> int:
    """The tail depth (rows). The `profile`'s mean subtree sizes name the first depth whose tails are about
    TAIL_NODES; real tails then move it a level at a time while their mean is off by more than a factor 4
    (the profile averages over nodes, a walk meets them otherwise)."""
    shallow = min(len(p) for p in prefixes)
    if not profile:
        return shallow
    tails = _tail_sizes(profile, math.log2(len(prefixes)))
    target = math.log2(TAIL_NODES)
    fitting = [d for d in tails if tails[d] <= target]
    depth = max(min(fitting) if fitting else max(tails), shallow)
    moved: set[int] = set()
    for _ in range(6):
        mean = _mean_tail(ctx, prefixes, depth, seed, deadline)
        if mean > 4 * TAIL_NODES and depth + 1 in tails and depth + 1 not in moved:
            moved.add(depth)
            depth += 1
        elif mean < TAIL_NODES / 4 and depth - 1 >= shallow and depth - 1 not in moved:
            moved.add(depth)
            depth -= 1
        else:
            break
    return depth


def shares(strata: Sequence[Stratum], pilot: Sequence[Moments]) -> list[float]:
    """Neyman's allocation from the pilot: a stratum's share of the walks is FLOOR spread evenly plus the
    rest in proportion to weight x spread / sqrt(cost per walk); exact strata get none."""
    walked = [j for j, s in enumerate(strata) if s.exact is None]
    if not walked:
        return [0.0] * len(strata)
    scores: dict[int, float] = {}
    spreads = [sqrt_scaled(pilot[j].variance_of_mean()) for j in walked]
    top = max((normal(x)[1] for x in spreads if x[0] > 0), default=0)
    variances = {j: (math.ldexp(spread[0], spread[1] - top) ** 2) * max(pilot[j].n, 1)
                 for j, spread in zip(walked, spreads, strict=True)}
    counted = sum(pilot[j].n for j in walked)
    pooled = math.fsum(variances[j] * pilot[j].n for j in walked) / counted if counted else 0.0
    for j in walked:
        m = pilot[j]
        # shrunk towards the strata's pooled variance: a pilot that found nothing in a stratum starves it less
        sd = math.sqrt((m.n * variances[j] + SHRINK * pooled) / (m.n + SHRINK))
        cost = m.nodes / max(m.n, 1) + WALK_COST
        scores[j] = strata[j].weight * sd / math.sqrt(cost)
    total = math.fsum(scores.values())
    out = [0.0] * len(strata)
    for j in walked:
        out[j] = FLOOR / len(walked) + ((1 - FLOOR) * scores[j] / total if total > 0 else (1 - FLOOR) / len(walked))
    return out


# --- running -------------------------------------------------------------------------------------------


Runner = Callable[[WalkPlan, Context, Iterator[Unit], float | None],
                  Iterator[tuple[Unit, Moments | None]]]
"""Runs units (pulled from the iterator only as there is room) and yields each unit with its walks."""


def serial_runner(plan: WalkPlan, ctx: Context, units: Iterator[Unit], deadline: float | None
                  ) -> Iterator[tuple[Unit, Moments | None]]:
    for unit in units:
        yield run_unit(unit, plan, ctx, deadline)


def forked_runner(workers: int) -> Runner:
    """Units on `workers` forked processes (the pool's imap: a free worker takes the next unit at once)."""
    def run(plan: WalkPlan, ctx: Context, units: Iterator[Unit], deadline: float | None
            ) -> Iterator[tuple[Unit, Moments | None]]:
        global _CONTEXT
        from .pool import forked_pool

        _CONTEXT = (plan, ctx)
        try:
            with forked_pool(workers) as pool:  # leaving early (deadline, precision, Ctrl-C) kills the workers
                for unit, found in pool.imap(_forked_unit, ((u, deadline) for u in units)):
                    yield unit, None if found is None else Moments.from_tuple(found)
        finally:
            _CONTEXT = None

    return run


def _units(plan: WalkPlan, first_round: int, done: frozenset[tuple[int, int, int]]) -> Iterator[Unit]:
    """The main walks' units, round after round for ever (the caller stops): each stratum's share of
    ROUND_WALKS (one at least), cut into chunks of about UNIT_NODES."""
    walked = [(j, s) for j, s in enumerate(plan.strata) if s.exact is None]
    if not walked:
        return
    size = max(ROUND_WALKS, len(walked))
    pilot = [Moments.from_tuple(t) for t in plan.pilot] if plan.pilot else [Moments() for _ in plan.strata]
    round_ = first_round
    while True:
        for j, s in walked:
            n = max(1, round(size * s.share))
            cost = pilot[j].nodes / max(pilot[j].n, 1) + WALK_COST
            chunk = max(1, min(n, int(UNIT_NODES / cost)))
            for k, lo in enumerate(range(0, n, chunk)):
                if (round_, j, k) not in done:
                    yield round_, j, k, min(chunk, n - lo)
        round_ += 1


def _pilot_units(strata: Sequence[Stratum], part: int) -> list[Unit]:
    """The pilot's units: part 0, FIRST_PILOT walks of each stratum (the first answer), part 1 the rest."""
    walked = [j for j, s in enumerate(strata) if s.exact is None]
    per = max(MIN_PILOT, min(PILOT_WALKS, PILOT_TOTAL // max(1, len(walked))))
    return [(-1, j, part, FIRST_PILOT if part == 0 else per - FIRST_PILOT) for j in walked]


@dataclass
class Tally:
    """The walks so far, per stratum, and what the estimate needs from them."""

    plan: WalkPlan
    main: list[Moments]
    done: set[tuple[int, int, int]] = field(default_factory=set)
    began: float = field(default_factory=time.perf_counter)
    earlier_seconds: float = 0.0

    rounds: dict[int, int] = field(default_factory=dict)
    """Units done per round."""

    def add(self, unit: Unit, found: Moments) -> None:
        self.main[unit[1]].merge(found)
        self.done.add(unit[:3])
        self.rounds[unit[0]] = self.rounds.get(unit[0], 0) + 1

    def estimate(self, status: str = "complete") -> WalkEstimate:
        """The estimate from every stratum's main walks, or its pilot walks while it has fewer than two main
        ones (all pilot: the first answer)."""
        plan = self.plan
        walked = [j for j, s in enumerate(plan.strata) if s.exact is None]
        pilot = [Moments.from_tuple(t) for t in plan.pilot] if plan.pilot else [Moments() for _ in plan.strata]
        # a stratum's main walks once it has two (the shares were fixed from the pilot, not from them), its
        # pilot walks until then (an i.i.d. sample of it too, drawn before any decision): the first answer is
        # all pilot
        sample = [self.main[j] if self.main[j].n >= 2 else pilot[j] for j in range(len(plan.strata))]
        use_pilot = all(self.main[j].n < 2 for j in walked)
        exact_part = add_scaled((float(s.weight * s.exact), 0) for s in plan.strata if s.exact is not None)
        mean, variance = stratified((plan.strata[j].weight, sample[j]) for j in walked)
        total = add_scaled([mean, exact_part])
        walks = sum(sample[j].n for j in walked)
        reached = sum(sample[j].reached for j in walked)
        nodes = sum(m.nodes for m in pilot) + sum(m.nodes for m in self.main)
        interval, why = self._interval(total, variance, sample, walked, reached, use_pilot)
        parts: dict[tuple[int, ...], list[Scaled]] = {}
        means: list[Scaled] = []
        for j, s in enumerate(plan.strata):
            means.append((float(s.exact), 0) if s.exact is not None else sample[j].mean())
            parts.setdefault(s.prefix[:1], []).append(means[-1])
        tops = tuple((0.0, 0) if s.exact is not None else max(pilot[j].largest(), self.main[j].largest(),
                                                                key=order)
                     for j, s in enumerate(plan.strata))
        return WalkEstimate(total, variance, walks, reached, nodes, len(plan.strata),
                            len(plan.strata) - len(walked), plan.depth,
                            self.earlier_seconds + time.perf_counter() - self.began, plan.exact, use_pilot,
                            interval, why, status, tuple((k, as_float(add_scaled(v))) for k, v in parts.items()),
                            tuple(means), tops)

    def _interval(self, total: Scaled, variance: Scaled, sample: Sequence[Moments], walked: Sequence[int],
                  reached: int, pilot: bool) -> tuple[tuple[Scaled, Scaled] | None, str | None]:
        if not walked:
            return (total, total), None
        if pilot:
            return None, "the first answer (pilot walks): the interval waits for the main walks"
        if reached < MIN_INTERVAL_REACHED:
            return None, f"only {reached} walks found solutions (an interval needs {MIN_INTERVAL_REACHED})"
        spread = sqrt_scaled(variance)
        (v, k), (e, j) = normal(total), normal(spread)
        relative = 0.0 if v == 0 else math.ldexp(e / v, max(j - k, -1100))
        if relative > MAX_INTERVAL_ERROR:
            return None, f"the relative standard error is {relative:.0%} (an interval needs {MAX_INTERVAL_ERROR:.0%})"
        heaviest = normal(max((times(sample[i].largest(), self.plan.strata[i].weight / max(sample[i].n, 1))
                               for i in walked), key=order))
        share = 0.0 if v == 0 else math.ldexp(heaviest[0] / v, max(heaviest[1] - k, -1100))
        if share > MAX_WALK_SHARE:
            return None, (f"one walk carries {share:.0%} of the estimate (a heavy tail: the standard error may be too "
                          "small)")
        half = times(spread, Z95)
        return (_minus(total, half), add_scaled([total, half])), None


def _minus(a: Scaled, b: Scaled) -> Scaled:
    """a - b, floored at 0 (the lower end of an interval)."""
    (x, k), (y, j) = normal(a), normal(b)
    if x == 0:
        return 0.0, 0
    return max(x - math.ldexp(y, j - k), 0.0), k


def plan_walks(problem: ExactCoverProblem, broken: BrokenProblem, seed: int, deadline: float | None = None,
               runner: Runner = serial_runner, ctx: Context | None = None,
               progress: Callable[[str], object] | None = None, exact_nodes: float | None = None,
               on_first: Callable[[WalkPlan], object] | None = None) -> WalkPlan:
    """Strata, tail depth, exact strata and the pilot (whose walks fix the shares): everything the main walks
    need, the same for the same problem and seed. A search estimated below `exact_nodes` is counted exactly
    instead (`benchmarks/approx.py` sets it to 0 to test the walks on the models with a known total).
    `on_first` is shown the plan with the pilot's first walks, for a first answer."""
    if problem.side_clauses:
        raise CpsolveError("Knuth's walks do not see side clauses (a chain's joints)", field="walks", exit_code=1)
    ctx = ctx or context(problem)
    exact_nodes = EXACT_NODES if exact_nodes is None else exact_nodes
    pairs = strata_of(broken)
    if not pairs:  # every branch of the key dead: no solution
        return WalkPlan((), 0, seed)
    profile = _profile(ctx, [p for p, _ in pairs], seed, deadline)
    tree = 2.0 ** min(1023.0, tree_log2(profile, len(pairs)))
    if tree <= exact_nodes:
        if progress is not None:
            progress(f"the whole search is about {tree:,.0f} nodes: counted exactly")
        strata = [Stratum(p, w, len(p), exact_count(ctx, p, 0, deadline)) for p, w in strata_of(broken, levels=0)]
        return WalkPlan(tuple(strata), 0, seed, tree_nodes=tree)
    depth = choose_depth(ctx, [p for p, _ in pairs], seed, deadline, profile)
    if progress is not None:
        progress(f"the search is about {tree:.3g} nodes; {len(pairs)} strata, each walk counting its subtree exactly "
                 f"from {depth} pieces placed")
    strata = []
    for prefix, weight in pairs:
        count = exact_count(ctx, prefix, EXACT_BUDGET, deadline) if len(prefix) >= depth else None
        strata.append(Stratum(prefix, weight, max(depth, len(prefix) + (count is None)), count))
    plan = WalkPlan(tuple(strata), depth, seed, tree_nodes=tree)
    pilot = [Moments() for _ in strata]
    for part in (0, 1):
        for unit, found in runner(plan, ctx, iter(_pilot_units(strata, part)), deadline):
            if found is None:
                raise Late
            pilot[unit[1]].merge(found)
        if part == 0 and on_first is not None:
            on_first(replace(plan, pilot=tuple(m.as_tuple() for m in pilot)))
    fixed = [replace(s, share=a) for s, a in zip(strata, shares(strata, pilot), strict=True)]
    return replace(plan, strata=tuple(fixed), pilot=tuple(m.as_tuple() for m in pilot))


def exact_count(ctx: Context, prefix: tuple[int, ...], budget: int, deadline: float | None) -> int | None:
    """The solutions under `prefix`, or None when the engine met `budget` nodes (0: none) first."""
    left = None if deadline is None else deadline - time.time()
    if left is not None and left <= 0:
        raise Late
    out = ctx.engine.search(None, forced=prefix, budget=budget, timeout=left)
    if out["status"] == "timeout":
        raise Late
    return None if out["rest"] else int(out["solutions"])


@dataclass(frozen=True)
class Stop:
    """When the main walks stop: after `walks` walks, `seconds` of walking, a relative standard error of
    `precision` (looked at when a round ends), or at `deadline` (a `time.time()` value: the units then
    running count for nothing), whichever comes first; None: no such limit."""

    walks: int | None = None
    seconds: float | None = None
    precision: float | None = None
    deadline: float | None = None


Record = Callable[[Unit, Moments], object]
"""Told of each unit done (a journal records it)."""


def estimate_walks(problem: ExactCoverProblem, broken: BrokenProblem, seed: int = 1, stop: Stop = Stop(),
                   runner: Runner = serial_runner, on_update: Callable[[WalkEstimate], object] | None = None,
                   progress: Callable[[str], object] | None = None, plan: WalkPlan | None = None,
                   restored: Sequence[tuple[Unit, Moments]] = (), earlier_seconds: float = 0.0,
                   on_plan: Callable[[WalkPlan], object] | None = None, record: Record | None = None,
                   exact_nodes: float | None = None) -> WalkEstimate:
    """The number of solutions of `broken` (assemblies: strata weighted by their orbits), by walks with
    exact tails, refined until `stop`.

    `on_update` sees each new estimate (the pilot's first, then one per unit: a caller prints a few);
    `progress` gets one-line reports of the planning. A journal resumes a run by passing the `plan` it
    recorded (`on_plan` is told of a new one) and the units it holds (`restored`, with the seconds they
    took); `record` is told of each unit done. Ctrl-C ends the walks with the estimate so far (status
    "interrupted"); so does the deadline (status "timeout")."""
    ctx = context(problem)
    began = time.perf_counter()
    early: list[Tally] = []
    try:
        if plan is None:
            def first(pilot: WalkPlan) -> None:
                early.append(Tally(pilot, [Moments() for _ in pilot.strata], began=began))
                if on_update is not None:
                    on_update(early[0].estimate())

            plan = plan_walks(problem, broken, seed, stop.deadline, runner, ctx, progress, exact_nodes, first)
            if on_plan is not None:
                on_plan(plan)
    except Late:
        if early:  # the first answer is there: it is the answer
            return early[0].estimate("timeout")
        raise CpsolveError("the deadline passed while the walks were being planned", field="timeout",
                           exit_code=3) from None
    except KeyboardInterrupt:
        if early:
            return early[0].estimate("interrupted")
        raise
    tally = Tally(plan, [Moments() for _ in plan.strata], earlier_seconds=earlier_seconds)
    tally.began = began
    for unit, kept in restored:
        tally.add(unit, kept)
    if plan.exact or not plan.strata:
        return tally.estimate()
    status = "complete"
    issued = sum(m.n for m in tally.main)
    per_round = _round_units(plan)
    first_round = 0  # a unit of an earlier round may be missing (units end in any order on a cluster)

    def units() -> Iterator[Unit]:
        nonlocal issued
        for unit in _units(plan, first_round, frozenset(tally.done)):
            if stop.walks is not None and issued >= stop.walks:
                return
            issued += unit[3]
            yield unit

    try:
        if on_update is not None:
            on_update(tally.estimate())  # the first answer (the pilot's), or where a journal left off
        for unit, found in runner(plan, ctx, units(), stop.deadline):
            if found is None:
                status = "timeout"
                break
            tally.add(unit, found)
            if record is not None:
                record(unit, found)
            now = tally.estimate()
            if on_update is not None:
                on_update(now)
            if stop.deadline is not None and time.time() >= stop.deadline:
                status = "timeout"
                break
            if stop.seconds is not None and time.perf_counter() - began >= stop.seconds:
                break
            if (stop.precision is not None and not now.pilot and _round_done(tally, unit[0], per_round)
                    and now.relative_error <= stop.precision):
                break
    except KeyboardInterrupt:
        status = "interrupted"
    return tally.estimate(status)


def _round_units(plan: WalkPlan) -> int:
    """How many units make one round (the same for every round)."""
    return sum(1 for _ in itertools.takewhile(lambda u: u[0] == 0, _units(plan, 0, frozenset())))


def _round_done(tally: Tally, round_: int, per_round: int) -> bool:
    return tally.rounds.get(round_, 0) >= per_round


_ON_WORKER: dict[int, tuple[object, Context]] = {}
"""On a Dask worker: the context made for each problem received (kept with it, so that its id stays its own)."""


def walk_task(shared: tuple[ExactCoverProblem, WalkPlan], unit: Unit, deadline: float | None
              ) -> tuple[Unit, tuple[int, int, int, int, float, float, float] | None]:
    """One unit on a Dask worker (`cluster.walk_runner`): the problem converted once per worker."""
    problem, plan = shared
    kept = _ON_WORKER.get(id(shared))
    if kept is None:
        _ON_WORKER.clear()
        kept = _ON_WORKER[id(shared)] = (shared, context(problem))
    found = run_unit(unit, plan, kept[1], deadline)[1]
    return unit, None if found is None else found.as_tuple()
