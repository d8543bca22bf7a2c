"""How big is the search? Knuth's estimate of the search tree by random probes.

D. E. Knuth, "Estimating the efficiency of backtrack programs", Mathematics of Computation 29
(1975) 121-136: walk from the root choosing one child uniformly at random at every node, and add up
the products of the branching degrees met on the way; the mean over many walks is an unbiased
estimate of the number of nodes of the tree. The tree is the one the dlx engine searches (the required
cell with the fewest candidates, or a needed single-copy piece with fewer; pieces held to their
ranges; with optional cells, the extension phase once the required cells are covered), so the
estimate predicts its work on designers' puzzles too.

It serves three purposes: `cpsolve estimate MODEL` (size and time before a long run), choosing the
key piece (the one whose restricted tree is smallest, not merely the one with fewest
representatives: on the Tetris Cube those differ by a factor of 2.3 in nodes), and ordering work.
The walks run in C (`_estimate.c`); `python_probe` is the readable twin, tested to give the same
numbers with the same random sequence.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from ..problem.placements import ExactCoverProblem
from ..problem.symmetry import BrokenProblem, KeyChoice, apply_key
from .moments import Moments, Scaled, add_scaled, as_float, normal, sqrt_scaled, stratified

_MASK64 = (1 << 64) - 1
DEFAULT_SEED = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class Estimate:
    """The estimated number of search nodes, with the standard error of that mean. `nodes` and `stderr`
    are inf past a double's range (a 27x27x27 box of rods); `scaled` and `scaled_stderr` hold them
    whatever their size (`moments.Scaled`)."""

    nodes: float
    stderr: float
    probes: int
    scaled: Scaled = (0.0, 0)
    scaled_stderr: Scaled = (0.0, 0)

    @property
    def relative_error(self) -> float:
        (v, k), (e, j) = normal(self.scaled), normal(self.scaled_stderr)
        if v == 0.0:
            return 0.0
        return math.ldexp(e / v, max(j - k, -1100))


def _next_random(state: list[int]) -> int:
    """xorshift64* (Vigna), exactly as `_estimate.c` computes it."""
    x = state[0]
    x ^= x >> 12
    x ^= (x << 25) & _MASK64
    x ^= x >> 27
    state[0] = x
    return (x * 2685821657736338717) & _MASK64


SCALE_STEP = 512
"""A walk divides its weight and total by 2^SCALE_STEP whenever the weight passes it (as `_estimate.c`
does: exact, a power of two), so that products of degrees past a double's range stay numbers."""


class _Walk:
    """A random walk's state in the readable twin: copies of each piece left and still needed, filled cells,
    uncovered required cells, live rows (of a piece with copies left, clear of the filled cells)."""

    def __init__(self, problem: ExactCoverProblem, forced: Sequence[int]):
        self.problem = problem
        self.rem = list(problem.piece_counts)
        self.need = list(problem.piece_low)
        self.filled: set[int] = set()
        self.clash = False
        for r in forced:
            row = problem.rows[r]
            if self.filled.intersection(row.cells):
                self.clash = True
            self.filled.update(row.cells)
            self.rem[row.piece] -= 1
            self.need[row.piece] -= 1
            if self.rem[row.piece] < 0:
                self.clash = True
        self.required = [c for c in problem.required if c not in self.filled]
        self.live = [r for r in range(len(problem.rows)) if self.fits(r)]

    def fits(self, r: int) -> bool:
        return self.rem[self.problem.rows[r].piece] > 0 and self.filled.isdisjoint(self.problem.rows[r].cells)

    def children(self) -> list[int]:
        """The engine's branching: the uncovered required cell with the fewest live rows, or a needed
        single-copy piece with fewer; [] when the node is dead."""
        problem, rem, need = self.problem, self.rem, self.need
        count = [0] * problem.n_cells
        pcount = [0] * problem.n_pieces
        for r in self.live:
            pcount[problem.rows[r].piece] += 1
            for c in problem.rows[r].cells:
                count[c] += 1
        best_n, best = min((count[c], c) for c in self.required)
        best_piece, dead = -1, best_n == 0
        for p in range(problem.n_pieces):
            if dead or rem[p] == 0:
                continue
            if pcount[p] < need[p]:
                dead = True
            elif rem[p] == 1 and need[p] == 1 and pcount[p] < best_n:
                best_n, best_piece = pcount[p], p
        if dead:
            return []
        if best_piece >= 0:
            return [r for r in self.live if problem.rows[r].piece == best_piece]
        return [r for r in self.live if best in problem.rows[r].cells]

    def take(self, r: int) -> None:
        chosen = self.problem.rows[r]
        self.filled.update(chosen.cells)
        self.rem[chosen.piece] -= 1
        self.need[chosen.piece] -= 1
        self.required = [c for c in self.required if c not in self.filled]
        self.live = [x for x in self.live if self.fits(x)]


def python_probe(problem: ExactCoverProblem, forced: Sequence[int], state: list[int], solutions: bool = False
                 ) -> Scaled:
    """One random walk from the node `forced`: 1 + d1 + d1*d2 + ... (the readable twin of `walk`).
    With `solutions`, the walk's estimate of the solutions instead: the product of the degrees at each
    solution node it passes (the leaf it reaches, or nodes of the extension phase), 0 when it dies.
    The value comes as (v, k), standing for v x 2^k (see SCALE_STEP).

    The engine's tree (`_Walk.children`); once the required cells are covered (and there are optional
    cells), the extension phase: a node with n live placements in row order has n children, the i-th
    keeping only the placements after it, and none when more copies are needed than placements are left."""
    walk = _Walk(problem, forced)
    if walk.clash:
        return (0.0 if solutions else 1.0), 0
    weight, total, found, shift = 1.0, 1.0, 0.0, 0

    def step(degree: int) -> None:
        nonlocal weight, total, found, shift
        weight *= degree
        total += weight
        if weight > 2.0 ** SCALE_STEP:
            weight, total = math.ldexp(weight, -SCALE_STEP), math.ldexp(total, -SCALE_STEP)
            found, shift = math.ldexp(found, -SCALE_STEP), shift + SCALE_STEP

    while walk.required:
        cands = walk.children()
        if not cands:
            return (0.0, 0) if solutions else (total, shift)
        step(len(cands))
        walk.take(cands[_next_random(state) % len(cands)])
    found = weight if all(n <= 0 for n in walk.need) else 0.0
    if not problem.optional:
        return (found, shift) if solutions else (total, shift)
    live, need = walk.live, walk.need
    while live and sum(n for n in need if n > 0) <= len(live):
        step(len(live))
        i = _next_random(state) % len(live)
        chosen = problem.rows[live[i]]
        walk.filled.update(chosen.cells)
        walk.rem[chosen.piece] -= 1
        need[chosen.piece] -= 1
        live = [r for r in live[i + 1:] if walk.fits(r)]
        if all(n <= 0 for n in need):
            found += weight
    return (found, shift) if solutions else (total, shift)


def python_descend(problem: ExactCoverProblem, forced: Sequence[int], state: list[int], depth: int,
                   levels: list[float] | None = None) -> tuple[float, int, tuple[int, ...]] | None:
    """The readable twin of `Walker.descend` (one walk): from `forced`, choose children at random until the
    walk holds `depth` rows or covers every required cell; (weight, shift, rows), the product of the
    degrees being weight x 2^shift, or None when it died. `levels` receives log2 of the weight at each row
    chosen (`Walker.levels`)."""
    walk = _Walk(problem, forced)
    if walk.clash:
        return None
    rows = list(forced)
    weight, shift = 1.0, 0
    while walk.required and len(rows) < depth:
        cands = walk.children()
        if not cands:
            return None
        weight *= len(cands)
        if weight > 2.0 ** SCALE_STEP:
            weight, shift = math.ldexp(weight, -SCALE_STEP), shift + SCALE_STEP
        r = cands[_next_random(state) % len(cands)]
        walk.take(r)
        rows.append(r)
        if levels is not None:
            levels.append(math.log2(weight) + shift)
    return weight, shift, tuple(rows)


def probe_values(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int,
                 seed: int = DEFAULT_SEED, compiled: bool = True, each: bool = False,
                 reseed: bool = False, solutions: bool = False) -> list[float]:
    """The walks' values as floats (inf past a double's range): see `scaled_values`."""
    return [as_float(v) for v in scaled_values(problem, starts, probes, seed, compiled, each, reseed, solutions)]


def scaled_values(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int,
                  seed: int = DEFAULT_SEED, compiled: bool = True, each: bool = False,
                  reseed: bool = False, solutions: bool = False) -> list[Scaled]:
    """The estimate of each walk over the subproblems `starts` (each walk picks one uniformly).

    With `each`, every start gets `probes` walks in turn (start 0's first), each an estimate of that
    subproblem alone: one call sizes all the parts of a run. With `reseed` too, start j's walks use
    seed + j, the same walks as a call for that start alone with that seed (see `walks_per_start`).
    With `solutions`, each value estimates the solutions rather than the nodes (`python_probe`)."""
    if compiled:
        try:
            from ._estimate import probes as c_probes
        except ImportError:
            compiled = False
        else:
            values: list[Scaled] = c_probes(problem.n_cells, list(problem.piece_counts),
                                            [row.piece for row in problem.rows], [row.cells for row in problem.rows],
                                            [tuple(s) for s in starts], probes, seed, each, reseed,
                                            list(problem.piece_low), list(problem.optional), solutions, True)
            return values
    state = [seed or DEFAULT_SEED]
    out: list[Scaled] = []
    for i in range(probes * len(starts) if each else probes):
        if each and reseed:
            if i % probes == 0:
                state = [(seed + i // probes) or DEFAULT_SEED]
            _next_random(state)  # a call for this start alone draws one to pick it (of one): so must this
        which = starts[i // probes] if each else starts[_next_random(state) % len(starts)]
        value = python_probe(problem, which, state, solutions)
        out.append(((1 if each else len(starts)) * value[0], value[1]))
    return out


def walks_per_start(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int,
                    seed: int = DEFAULT_SEED) -> list[list[Scaled]]:
    """`probes` walks of each start, start j's with seed + j (stratified: each kept key placement, or
    each subproblem, gets its share and its own random numbers, so a start's walks do not depend on
    which other starts share the call). One call for all of them: converting the problem costs as much
    as a few walks."""
    flat = scaled_values(problem, starts, probes, seed, each=True, reseed=True) if probes > 0 else []
    return [flat[j * probes:(j + 1) * probes] for j in range(len(starts))]


def moments_of(values: Sequence[Scaled]) -> Moments:
    """The walks' running sums (`moments.Moments`), whatever the size of their values."""
    m = Moments()
    for v, k in values:
        m.add(v, k)
    return m


def estimate(problem: ExactCoverProblem, starts: Sequence[Sequence[int]] = ((),), probes: int = 1000,
             seed: int = DEFAULT_SEED) -> Estimate:
    """Knuth's estimate of the nodes the engine visits over all of `starts` (default: the whole tree)."""
    found = moments_of(scaled_values(problem, starts, probes, seed))
    return _estimate_of(found.mean(), found.variance_of_mean(), found.n)


def _estimate_of(mean: Scaled, variance: Scaled, probes: int) -> Estimate:
    spread = sqrt_scaled(variance)
    return Estimate(as_float(mean), as_float(spread), probes, normal(mean), spread)


def log2_of(x: Scaled) -> float:
    """log2 of a positive number in scaled form (-inf for 0): how the key choice compares trees too large
    for a double."""
    return math.log2(x[0]) + x[1] if x[0] > 0 else -math.inf


SMALL_TREE = 2_000_000.0
"""Below this many estimated nodes the whole search takes a second or two: the key the cheap rule
picks is kept, and no time is spent comparing keys (on the 6x10 pentomino box, 0.9 M nodes, the
comparison cost 0.9 s against a 0.6 s search: `python benchmarks/peers.py`)."""
PROBES_PER_PLACEMENT = 50
"""Walks per kept key placement (stratified: every subproblem gets its share, which removes the
variance of picking among them). 50 ranked the Tetris Cube's twelve keys with the best first, in
about 0.7 s of CPU (estimated against real nodes per key: `python benchmarks/profile_engine.py
tetris-cube`, results/engine-profile-tetris-cube.md)."""


def subtree_scaled(problem: ExactCoverProblem, key: KeyChoice, probes_per_start: int = PROBES_PER_PLACEMENT,
                   seed: int = DEFAULT_SEED) -> Scaled:
    """Estimated nodes of the search restricted by `key`: the sum over its kept placements (in scaled form)."""
    broken = apply_key(problem, key)
    return add_scaled(moments_of(v).mean() for v in walks_per_start(broken.problem, broken.starts, probes_per_start,
                                                                     seed))


def subtree_estimate(problem: ExactCoverProblem, key: KeyChoice, probes_per_start: int = PROBES_PER_PLACEMENT,
                     seed: int = DEFAULT_SEED) -> float:
    """Estimated nodes of the search restricted by `key` (inf past a double's range)."""
    return as_float(subtree_scaled(problem, key, probes_per_start, seed))


RACE_PROBES = 10
"""Walks per kept key placement in the first round of the key choice, where every candidate runs."""
RACE_MARGIN = 2.0
"""Candidates whose first-round estimate is within this factor of the smallest go on to the second
round (PROBES_PER_PLACEMENT more walks each); the others are dropped. On Bedlam the rule's own key
is estimated at a quarter of any other and the choice ends after the first round (0.65 s of walks
down to 0.11 s on one worker, 0.07 s on two); the Tetris Cube's twelve keys span 26 M to 148 M nodes,
and five go on (0.16 s on one worker, 0.10 s on two)."""


def smallest_tree_key(problem: ExactCoverProblem, workers: int = 1) -> Callable[[Sequence[KeyChoice]], KeyChoice]:
    """A `pick` for `choose_key`: the candidate whose restricted search tree is estimated smallest.

    The first candidate (the fewest-representatives rule's choice) is estimated first; when its tree
    is small the comparison would cost more than it can save, and it is kept. Otherwise the candidates
    race: a few walks each, then many more for those that came close to the best (a key that merely
    comes second costs speed, never counts, so a short first round is worth its risk). With `workers`
    > 1 every round runs on one set of that many forked processes (the same walks, the same choice).
    Sizes are compared as logarithms: a tree past a double's range (1e308 nodes) still has a size.
    """
    def pick(candidates: Sequence[KeyChoice]) -> KeyChoice:
        first = subtree_scaled(problem, candidates[0], RACE_PROBES)  # a few ms: not worth a fork
        if as_float(first) < SMALL_TREE:
            return candidates[0]
        with _estimator(problem, candidates, workers) as estimates:
            sizes = [log2_of(first), *map(log2_of, estimates(range(1, len(candidates)), RACE_PROBES, DEFAULT_SEED))]
            close = [i for i, size in enumerate(sizes) if size <= math.log2(RACE_MARGIN) + min(sizes)]
            if len(close) > 1:
                more = estimates(close, PROBES_PER_PLACEMENT, DEFAULT_SEED + 1_000_003)
                for i, size in zip(close, more, strict=True):  # the mean of all their walks, start by start
                    a, b = sizes[i], log2_of(size)
                    top = max(a, b)
                    mixed = RACE_PROBES * 2.0 ** (a - top) + PROBES_PER_PLACEMENT * 2.0 ** (b - top)
                    sizes[i] = top + math.log2(mixed / (RACE_PROBES + PROBES_PER_PLACEMENT))
        return candidates[min(close, key=lambda i: (sizes[i], i))]

    return pick


_SHARED: tuple[ExactCoverProblem, Sequence[KeyChoice]] | None = None
"""What forked estimators read (inherited, not pickled: a problem is thousands of rows)."""
_BROKEN: dict[int, BrokenProblem] = {}
"""In a forked estimator: the candidates it has restricted the problem by so far (kept across rounds)."""
JOBS_PER_WORKER = 6
"""Jobs of one round per worker: enough that the last ones are short, few enough that the messages
cost nothing (each job is a few kept placements of one candidate)."""
Estimates = Callable[[Sequence[int], int, int], list[Scaled]]
"""(candidate indices, walks per start, seed) -> `subtree_scaled` of each of those candidates."""


def _estimate_shared(job: tuple[int, range, int, int]) -> list[Scaled]:
    """The mean walk of each of a candidate's starts in `places`, as `subtree_scaled` computes it."""
    assert _SHARED is not None, "set before the workers were forked"
    problem, candidates = _SHARED
    which, places, probes, seed = job
    broken = _BROKEN.get(which)
    if broken is None:
        broken = _BROKEN[which] = apply_key(problem, candidates[which])
    starts = broken.starts
    return [moments_of(v).mean() for v in
            walks_per_start(broken.problem, [starts[i] for i in places], probes, seed + places.start)]


@contextmanager
def _estimator(problem: ExactCoverProblem, candidates: Sequence[KeyChoice], workers: int) -> Iterator[Estimates]:
    """`subtree_scaled` of chosen candidates, round after round: in this process, or with `workers`
    > 1 on one set of forked processes kept for every round.

    Why forked: before a run can start, the key is chosen by estimating every candidate's tree, which
    one process does alone while the other cores wait (Bedlam: 14 candidates, 0.65 s of walks, the
    largest part of a two-worker run's serial start). One set of processes serves every round (the
    Tetris Cube's choice took 0.13 s on two workers with a `multiprocessing` pool per round, 0.12 s
    so, 0.10 s once each job's walks became one call). A job is a few kept placements of one candidate, not
    a whole candidate: candidates differ tenfold in walks, and whole ones left one worker finishing
    alone (the second round: five candidates on two workers). The walks and their seeds are
    `subtree_scaled`'s, so the figures are the same on any number of workers."""
    if workers <= 1 or len(candidates) < 2:
        yield lambda which, probes, seed: [subtree_scaled(problem, candidates[i], probes, seed) for i in which]
        return
    global _SHARED
    from .pool import forked_pool

    counts = [max(1, len(c.rows)) for c in candidates]

    def estimates(which: Sequence[int], probes: int, seed: int) -> list[Scaled]:
        step = max(1, -(-sum(counts[i] for i in which) // (JOBS_PER_WORKER * workers)))
        jobs = [(i, range(lo, min(lo + step, counts[i])), probes, seed) for i in which
                for lo in range(0, counts[i], step)]
        per: dict[int, list[Scaled]] = {i: [] for i in which}
        for job, means in zip(jobs, pool.map(_estimate_shared, jobs), strict=True):
            per[job[0]].extend(means)
        return [add_scaled(per[i]) for i in which]  # an exact sum (fsum): the same as subtree_scaled's

    _SHARED = (problem, candidates)
    try:
        with forked_pool(workers) as pool:
            yield estimates
    finally:
        _SHARED = None


def subtree_estimates(problem: ExactCoverProblem, candidates: Sequence[KeyChoice], workers: int = 1,
                      probes_per_start: int = PROBES_PER_PLACEMENT, seed: int = DEFAULT_SEED) -> list[float]:
    """`subtree_estimate` of each candidate key, on `workers` forked processes when there are several."""
    with _estimator(problem, candidates, workers) as estimates:
        return [as_float(x) for x in estimates(range(len(candidates)), probes_per_start, seed)]


@dataclass(frozen=True)
class RunEstimate:
    """What `cpsolve estimate` reports: the tree, and the time it should take on the dlx engine."""

    tree: Estimate
    nodes_per_second: float | None
    """The dlx engine's speed on this problem, measured on a short sample of its own search."""

    @property
    def seconds(self) -> float | None:
        return None if not self.nodes_per_second else self.tree.nodes / self.nodes_per_second

    @property
    def seconds_spread(self) -> float | None:
        return None if not self.nodes_per_second else self.tree.stderr / self.nodes_per_second


CHUNK_WALKS = 1 << 16
"""Walks per call of the compiled walks in `estimate_run`: `--probes 10000000` keeps this many values at
a time, not ten million (a list of 240 MB)."""


def estimate_run(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int = 2000,
                 sample_seconds: float = 0.3, seed: int = DEFAULT_SEED) -> RunEstimate:
    """The tree over the subproblems `starts` (stratified: every subproblem gets its share of the
    walks) and the dlx engine's node rate, sampled by searching the subproblems for `sample_seconds`.
    The walks run in chunks of CHUNK_WALKS, start j's k-th chunk with seed + j + k x len(starts) (the first
    chunk is `walks_per_start`'s), their sums kept scaled (`moments`): a tree past 1e308 nodes is estimated
    as well as any."""
    # Exactly `probes` walks (each start gets its share, the first `extra` one more), but two at least per
    # start, for a variance.
    per, extra = divmod(probes, len(starts))
    if per < 2:
        per, extra = 2, 0
    sums = [Moments() for _ in starts]
    step = max(1, CHUNK_WALKS // len(starts))
    for k, lo in enumerate(range(0, per + (extra > 0), step)):
        n = min(step, per + (extra > 0) - lo)
        for j, values in enumerate(walks_per_start(problem, starts, n, seed + k * len(starts))):
            keep = max(0, min(n, (per if j >= extra else per + 1) - lo))
            sums[j].merge(moments_of(values[:keep]))
    mean, variance = stratified((1.0, m) for m in sums)
    tree = _estimate_of(mean, variance, sum(m.n for m in sums))
    try:
        from .backends.dlx import build_engine

        engine = build_engine(problem)
    except ImportError:  # the compiled engine is not built here: no speed to measure
        return RunEstimate(tree, None)
    nodes, began = 0, time.process_time()  # CPU time: the rate of one core, whatever else runs
    for s in starts:
        left = sample_seconds - (time.process_time() - began)
        if left <= 0:
            break
        nodes += engine.search(None, forced=tuple(s), timeout=left)["nodes"]
    spent = time.process_time() - began
    return RunEstimate(tree, nodes / spent if nodes and spent > 0 else None)


PART_PROBES = 600
"""Walks shared among a run's subproblems to size them: enough to put the few giant parts first,
which is what keeps every worker busy to the end (Bedlam's 41 parts: 0.03 s); a giant the walks miss is split
again when it overruns (`enumeration.OVERRUN`)."""
FIRST_ROUND = 4
"""Walks per part in sizing's first round, fewer when `probes` would not cover that many: with many
parts the budget holds (the Tetris Cube's 289 parts on two workers: 2 walks each, 0.014 s of walks
instead of 0.028 s before the pool's first part can start); parts the walks underestimate are split
again when they overrun."""
PART_SECONDS = 0.25
"""CPU seconds sizing may take: walks in big, deep trees (54 pieces) are slow, and sizing only orders work."""
SIZE_CAP = float(1 << 62)
"""The largest size `part_sizes` gives: a search of 4.6e18 nodes takes millennia on any machine, and the
sizes feed node budgets (a C long long) and sums. Past it all sizes are scaled down together, so the
biggest parts still come first."""


def part_sizes(problem: ExactCoverProblem, parts: Sequence[Sequence[int]], probes: int = PART_PROBES,
               seconds: float = PART_SECONDS, seed: int = DEFAULT_SEED, workers: int = 1) -> list[float] | None:
    """Estimated nodes of each subproblem: the pool runs the biggest first and the progress bar's ETA
    measures nodes against their sum. None where only the slow Python twin is there (sizing would then
    cost more than it saves). Past SIZE_CAP (a 12x12x12 box of dominoes: 1e260 nodes and more) the sizes
    are scaled down together to that cap: the order holds, and the ETA says millennia.

    Walks go in rounds (FIRST_ROUND per part, then twice as many each round) until `probes` walks or
    `seconds` are spent; the first round always completes, so every part has a size. With `workers` > 1 the
    parts are dealt out to that many forked processes (every `workers`-th part to one), each with its
    share of the walks: sizing is done before a pool's first part can start, so it would otherwise
    run on one core while the others wait (the Tetris Cube's 289 parts: 0.04 s)."""
    sizes = scaled_part_sizes(problem, parts, probes, seconds, seed, workers)
    return None if sizes is None else capped(sizes)


def capped(sizes: Sequence[Scaled]) -> list[float]:
    """Sizes as floats, all scaled down together when the largest passes SIZE_CAP."""
    top = max((log2_of(x) for x in sizes), default=-math.inf)
    over = top - math.log2(SIZE_CAP) if top > math.log2(SIZE_CAP) else 0.0
    return [0.0 if x[0] == 0 else min(SIZE_CAP, 2.0 ** (log2_of(x) - over)) for x in sizes]


def scaled_part_sizes(problem: ExactCoverProblem, parts: Sequence[Sequence[int]], probes: int = PART_PROBES,
                      seconds: float = PART_SECONDS, seed: int = DEFAULT_SEED, workers: int = 1
                      ) -> list[Scaled] | None:
    """`part_sizes` before the cap, in scaled form."""
    if not parts:
        return None
    try:
        from ._estimate import probes as _compiled  # noqa: F401 - only asking whether it is built
    except ImportError:
        return None
    if workers > 1 and len(parts) >= 2 * workers:
        return _sizes_forked(problem, parts, probes, seconds, seed, workers)
    began = time.process_time()
    sums, per, rounds = [Moments() for _ in parts], min(FIRST_ROUND, max(1, probes // len(parts))), 0
    each = 0
    while per > 0:
        flat = scaled_values(problem, parts, per, seed + rounds, each=True)
        for i, m in enumerate(sums):
            m.merge(moments_of(flat[i * per:(i + 1) * per]))
        each, rounds = each + per, rounds + 1
        if time.process_time() - began >= seconds:
            break
        per = min(2 * per, (probes - each * len(parts)) // len(parts))  # double, within the budget
    return [m.mean() for m in sums]


_SIZING: tuple[ExactCoverProblem, Sequence[Sequence[int]], int, float, int, int] | None = None
"""What forked sizers read (inherited at fork): the problem, the parts, walks, seconds, seed, workers."""


def _size_share(k: int) -> list[Scaled]:
    """Sizes of every `workers`-th part from the k-th: one forked sizer's share."""
    assert _SIZING is not None, "set before the workers were forked"
    problem, parts, probes, seconds, seed, workers = _SIZING
    share = parts[k::workers]
    return (scaled_part_sizes(problem, share, probes * len(share) // len(parts), seconds, seed + k)
            or [(0.0, 0)] * len(share))


def _sizes_forked(problem: ExactCoverProblem, parts: Sequence[Sequence[int]], probes: int, seconds: float, seed: int,
                  workers: int) -> list[Scaled]:
    global _SIZING
    from .pool import forked_pool

    _SIZING = (problem, parts, probes, seconds, seed, workers)
    try:
        with forked_pool(workers) as pool:
            shares = pool.map(_size_share, range(workers))
    finally:
        _SIZING = None
    sizes: list[Scaled] = [(0.0, 0)] * len(parts)
    for k, share in enumerate(shares):
        sizes[k::workers] = share
    return sizes
