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
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from ..problem.placements import ExactCoverProblem
from ..problem.symmetry import BrokenProblem, KeyChoice, apply_key

_MASK64 = (1 << 64) - 1
DEFAULT_SEED = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class Estimate:
    """The estimated number of search nodes, with the standard error of that mean."""

    nodes: float
    stderr: float
    probes: int

    @property
    def relative_error(self) -> float:
        return self.stderr / self.nodes if self.nodes else 0.0


def _next_random(state: list[int]) -> int:
    """xorshift64* (Vigna), exactly as `_estimate.c` computes it."""
    x = state[0]
    x ^= x >> 12
    x ^= (x << 25) & _MASK64
    x ^= x >> 27
    state[0] = x
    return (x * 2685821657736338717) & _MASK64


def python_probe(problem: ExactCoverProblem, forced: Sequence[int], state: list[int], solutions: bool = False) -> float:
    """One random walk from the node `forced`: 1 + d1 + d1*d2 + ... (the readable twin of `walk`).
    With `solutions`, the walk's estimate of the solutions instead: the product of the degrees at each
    solution node it passes (the leaf it reaches, or nodes of the extension phase), 0 when it dies.

    The engine's tree: branch on the uncovered required cell with the fewest live placements, or on a
    needed single-copy piece with fewer; dead when a required cell has none or a piece has fewer than
    the copies it still needs. Once the required cells are covered (and there are optional cells), the
    extension phase: a node with n live placements in row order has n children, the i-th keeping only
    the placements after it, and none when more copies are needed than placements are left."""
    rem = list(problem.piece_counts)
    need = list(problem.piece_low)
    filled: set[int] = set()
    for r in forced:
        row = problem.rows[r]
        if filled.intersection(row.cells):
            return 0.0 if solutions else 1.0
        filled.update(row.cells)
        rem[row.piece] -= 1
        need[row.piece] -= 1
        if rem[row.piece] < 0:
            return 0.0 if solutions else 1.0
    required = [c for c in problem.required if c not in filled]

    def fits(r: int) -> bool:
        return rem[problem.rows[r].piece] > 0 and filled.isdisjoint(problem.rows[r].cells)

    live = [r for r in range(len(problem.rows)) if fits(r)]
    weight, total = 1.0, 1.0
    while required:
        count = [0] * problem.n_cells
        pcount = [0] * problem.n_pieces
        for r in live:
            pcount[problem.rows[r].piece] += 1
            for c in problem.rows[r].cells:
                count[c] += 1
        best_n, best = min((count[c], c) for c in required)
        best_piece, dead = -1, best_n == 0
        for p in range(problem.n_pieces):
            if dead or rem[p] == 0:
                continue
            if pcount[p] < need[p]:
                dead = True
            elif rem[p] == 1 and need[p] == 1 and pcount[p] < best_n:
                best_n, best_piece = pcount[p], p
        if dead:
            return 0.0 if solutions else total
        if best_piece >= 0:
            cands = [r for r in live if problem.rows[r].piece == best_piece]
        else:
            cands = [r for r in live if best in problem.rows[r].cells]
        weight *= len(cands)
        total += weight
        chosen = problem.rows[cands[_next_random(state) % len(cands)]]
        filled.update(chosen.cells)
        rem[chosen.piece] -= 1
        need[chosen.piece] -= 1
        required = [c for c in required if c not in filled]
        live = [r for r in live if fits(r)]
    found = weight if all(n <= 0 for n in need) else 0.0
    if not problem.optional:
        return found if solutions else total
    while live and sum(n for n in need if n > 0) <= len(live):
        weight *= len(live)
        total += weight
        i = _next_random(state) % len(live)
        chosen = problem.rows[live[i]]
        filled.update(chosen.cells)
        rem[chosen.piece] -= 1
        need[chosen.piece] -= 1
        live = [r for r in live[i + 1:] if fits(r)]
        if all(n <= 0 for n in need):
            found += weight
    return found if solutions else total


def probe_values(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int,
                 seed: int = DEFAULT_SEED, compiled: bool = True, each: bool = False,
                 reseed: bool = False, solutions: bool = False) -> list[float]:
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
            values: list[float] = c_probes(problem.n_cells, list(problem.piece_counts),
                                           [row.piece for row in problem.rows], [row.cells for row in problem.rows],
                                           [tuple(s) for s in starts], probes, seed, each, reseed,
                                           list(problem.piece_low), list(problem.optional), solutions)
            return values
    state = [seed or DEFAULT_SEED]
    out = []
    for i in range(probes * len(starts) if each else probes):
        if each and reseed:
            if i % probes == 0:
                state = [(seed + i // probes) or DEFAULT_SEED]
            _next_random(state)  # a call for this start alone draws one to pick it (of one): so must this
        which = starts[i // probes] if each else starts[_next_random(state) % len(starts)]
        out.append((1 if each else len(starts)) * python_probe(problem, which, state, solutions))
    return out


def walks_per_start(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int,
                    seed: int = DEFAULT_SEED) -> list[list[float]]:
    """`probes` walks of each start, start j's with seed + j (stratified: each kept key placement, or
    each subproblem, gets its share and its own random numbers, so a start's walks do not depend on
    which other starts share the call). One call for all of them: converting the problem costs as much
    as a few walks."""
    flat = probe_values(problem, starts, probes, seed, each=True, reseed=True) if probes > 0 else []
    return [flat[j * probes:(j + 1) * probes] for j in range(len(starts))]


def estimate(problem: ExactCoverProblem, starts: Sequence[Sequence[int]] = ((),), probes: int = 1000,
             seed: int = DEFAULT_SEED) -> Estimate:
    """Knuth's estimate of the nodes the engine visits over all of `starts` (default: the whole tree)."""
    values = probe_values(problem, starts, probes, seed)
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return Estimate(mean, spread, len(values))


SMALL_TREE = 2_000_000.0
"""Below this many estimated nodes the whole search takes a second or two: the key the cheap rule
picks is kept, and no time is spent comparing keys (on the 6x10 pentomino box, 0.9 M nodes, the
comparison cost 0.9 s against a 0.6 s search: `python benchmarks/peers.py`)."""
PROBES_PER_PLACEMENT = 50
"""Walks per kept key placement (stratified: every subproblem gets its share, which removes the
variance of picking among them). 50 ranked the Tetris Cube's twelve keys with the best first, in
about 0.7 s of CPU (estimated against real nodes per key: `python benchmarks/profile_engine.py
tetris-cube`, results/engine-profile-tetris-cube.md)."""


def subtree_estimate(problem: ExactCoverProblem, key: KeyChoice, probes_per_start: int = PROBES_PER_PLACEMENT,
                     seed: int = DEFAULT_SEED) -> float:
    """Estimated nodes of the search restricted by `key`: the sum over its kept placements."""
    broken = apply_key(problem, key)
    return sum(statistics.fmean(v) for v in walks_per_start(broken.problem, broken.starts, probes_per_start, seed))


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
    """
    def pick(candidates: Sequence[KeyChoice]) -> KeyChoice:
        first = subtree_estimate(problem, candidates[0], RACE_PROBES)  # a few ms: not worth a fork
        if first < SMALL_TREE:
            return candidates[0]
        with _estimator(problem, candidates, workers) as estimates:
            sizes = [first, *estimates(range(1, len(candidates)), RACE_PROBES, DEFAULT_SEED)]
            close = [i for i, size in enumerate(sizes) if size <= RACE_MARGIN * min(sizes)]
            if len(close) > 1:
                more = estimates(close, PROBES_PER_PLACEMENT, DEFAULT_SEED + 1_000_003)
                for i, size in zip(close, more, strict=True):  # the mean of all their walks, start by start
                    sizes[i] = ((RACE_PROBES * sizes[i] + PROBES_PER_PLACEMENT * size)
                                / (RACE_PROBES + PROBES_PER_PLACEMENT))
        return candidates[min(close, key=lambda i: (sizes[i], i))]

    return pick


_SHARED: tuple[ExactCoverProblem, Sequence[KeyChoice]] | None = None
"""What forked estimators read (inherited, not pickled: a problem is thousands of rows)."""
_BROKEN: dict[int, BrokenProblem] = {}
"""In a forked estimator: the candidates it has restricted the problem by so far (kept across rounds)."""
JOBS_PER_WORKER = 6
"""Jobs of one round per worker: enough that the last ones are short, few enough that the messages
cost nothing (each job is a few kept placements of one candidate)."""
Estimates = Callable[[Sequence[int], int, int], list[float]]
"""(candidate indices, walks per start, seed) -> `subtree_estimate` of each of those candidates."""


def _estimate_shared(job: tuple[int, range, int, int]) -> list[float]:
    """The mean walk of each of a candidate's starts in `places`, as `subtree_estimate` computes it."""
    assert _SHARED is not None, "set before the workers were forked"
    problem, candidates = _SHARED
    which, places, probes, seed = job
    broken = _BROKEN.get(which)
    if broken is None:
        broken = _BROKEN[which] = apply_key(problem, candidates[which])
    starts = broken.starts
    return [statistics.fmean(v) for v in
            walks_per_start(broken.problem, [starts[i] for i in places], probes, seed + places.start)]


@contextmanager
def _estimator(problem: ExactCoverProblem, candidates: Sequence[KeyChoice], workers: int) -> Iterator[Estimates]:
    """`subtree_estimate` of chosen candidates, round after round: in this process, or with `workers`
    > 1 on one set of forked processes kept for every round.

    Why forked: before a run can start, the key is chosen by estimating every candidate's tree, which
    one process does alone while the other cores wait (Bedlam: 14 candidates, 0.65 s of walks, the
    largest part of a two-worker run's serial start). One set of processes serves every round (the
    Tetris Cube's choice took 0.13 s on two workers with a `multiprocessing` pool per round, 0.12 s
    so, 0.10 s once each job's walks became one call). A job is a few kept placements of one candidate, not
    a whole candidate: candidates differ tenfold in walks, and whole ones left one worker finishing
    alone (the second round: five candidates on two workers). The walks and their seeds are
    `subtree_estimate`'s, so the figures are the same on any number of workers."""
    if workers <= 1 or len(candidates) < 2:
        yield lambda which, probes, seed: [subtree_estimate(problem, candidates[i], probes, seed) for i in which]
        return
    global _SHARED
    from .pool import forked_pool

    counts = [max(1, len(c.rows)) for c in candidates]

    def estimates(which: Sequence[int], probes: int, seed: int) -> list[float]:
        step = max(1, -(-sum(counts[i] for i in which) // (JOBS_PER_WORKER * workers)))
        jobs = [(i, range(lo, min(lo + step, counts[i])), probes, seed) for i in which
                for lo in range(0, counts[i], step)]
        per: dict[int, list[float]] = {i: [] for i in which}
        for job, means in zip(jobs, pool.map(_estimate_shared, jobs), strict=True):
            per[job[0]].extend(means)
        return [sum(per[i]) for i in which]  # summed in start order, as subtree_estimate does: the same float

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
        return estimates(range(len(candidates)), probes_per_start, seed)


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


def estimate_run(problem: ExactCoverProblem, starts: Sequence[Sequence[int]], probes: int = 2000,
                 sample_seconds: float = 0.3, seed: int = DEFAULT_SEED) -> RunEstimate:
    """The tree over the subproblems `starts` (stratified: every subproblem gets its share of the
    walks) and the dlx engine's node rate, sampled by searching the subproblems for `sample_seconds`."""
    # Exactly `probes` walks (each start gets its share, the first `extra` one more), but two at least per
    # start, for a variance.
    per, extra = divmod(probes, len(starts))
    if per < 2:
        per, extra = 2, 0
    samples = walks_per_start(problem, starts, per + (extra > 0), seed)
    samples = [v if j < extra else v[:per] for j, v in enumerate(samples)]
    tree = Estimate(sum(statistics.fmean(v) for v in samples),
                    math.sqrt(sum(statistics.variance(v) / len(v) for v in samples)), sum(map(len, samples)))
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


def part_sizes(problem: ExactCoverProblem, parts: Sequence[Sequence[int]], probes: int = PART_PROBES,
               seconds: float = PART_SECONDS, seed: int = DEFAULT_SEED, workers: int = 1) -> list[float] | None:
    """Estimated nodes of each subproblem: the pool runs the biggest first and the progress bar's ETA
    measures nodes against their sum. None where only the slow Python twin is there (sizing would then
    cost more than it saves).

    Walks go in rounds (FIRST_ROUND per part, then twice as many each round) until `probes` walks or
    `seconds` are spent; the first round always completes, so every part has a size. With `workers` > 1 the
    parts are dealt out to that many forked processes (every `workers`-th part to one), each with its
    share of the walks: sizing is done before a pool's first part can start, so it would otherwise
    run on one core while the others wait (the Tetris Cube's 289 parts: 0.04 s)."""
    if not parts:
        return None
    try:
        from ._estimate import probes as _compiled  # noqa: F401 - only asking whether it is built
    except ImportError:
        return None
    if workers > 1 and len(parts) >= 2 * workers:
        return _sizes_forked(problem, parts, probes, seconds, seed, workers)
    began = time.process_time()
    sums, each, per, rounds = [0.0] * len(parts), 0, min(FIRST_ROUND, max(1, probes // len(parts))), 0
    while per > 0:
        flat = probe_values(problem, parts, per, seed + rounds, each=True)
        sums = [v + math.fsum(flat[i * per:(i + 1) * per]) for i, v in enumerate(sums)]
        each, rounds = each + per, rounds + 1
        if time.process_time() - began >= seconds:
            break
        per = min(2 * per, (probes - each * len(parts)) // len(parts))  # double, within the budget
    return [v / each for v in sums]


_SIZING: tuple[ExactCoverProblem, Sequence[Sequence[int]], int, float, int, int] | None = None
"""What forked sizers read (inherited at fork): the problem, the parts, walks, seconds, seed, workers."""


def _size_share(k: int) -> list[float]:
    """Sizes of every `workers`-th part from the k-th: one forked sizer's share."""
    assert _SIZING is not None, "set before the workers were forked"
    problem, parts, probes, seconds, seed, workers = _SIZING
    share = parts[k::workers]
    return part_sizes(problem, share, probes * len(share) // len(parts), seconds, seed + k) or [0.0] * len(share)


def _sizes_forked(problem: ExactCoverProblem, parts: Sequence[Sequence[int]], probes: int, seconds: float, seed: int,
                  workers: int) -> list[float]:
    global _SIZING
    from .pool import forked_pool

    _SIZING = (problem, parts, probes, seconds, seed, workers)
    try:
        with forked_pool(workers) as pool:
            shares = pool.map(_size_share, range(workers))
    finally:
        _SIZING = None
    sizes = [0.0] * len(parts)
    for k, share in enumerate(shares):
        sizes[k::workers] = share
    return sizes


@dataclass(frozen=True)
class SolutionEstimate:
    """Knuth's unbiased estimate of the number of solutions (exact covers), with its standard error."""

    solutions: float
    stderr: float
    walks: int
    seconds: float
    reached: int
    """Walks that reached a solution (the others contribute 0): few means a wide error bar."""


SOLUTION_BATCH = 2000
"""Walks per batch of `estimate_solutions` (shared among the starts): batch k uses seed + k, so the
walks, and the estimate, are the same on any number of workers; the deadline is checked between
batches."""

Moments = tuple[list[float], list[float], list[int], int]
"""Per start: the sum and the sum of squares of its walks' values, their number; and the walks that
reached a solution."""

_WALKING: tuple[ExactCoverProblem, Sequence[Sequence[int]]] | None = None
"""What forked walkers read (inherited at fork): the problem and its starts."""


def _solution_batch(job: tuple[int, int]) -> Moments:
    """One batch: `per` walks of each start, seeded `seed`."""
    assert _WALKING is not None, "set before the workers were forked"
    problem, starts = _WALKING
    seed, per = job
    flat = probe_values(problem, starts, per, seed, each=True, solutions=True)
    chunks = [flat[j * per:(j + 1) * per] for j in range(len(starts))]
    return ([math.fsum(c) for c in chunks], [math.fsum(v * v for v in c) for c in chunks], [per] * len(starts),
            sum(1 for v in flat if v > 0))


def estimate_solutions(problem: ExactCoverProblem, starts: Sequence[Sequence[int]] = ((),),
                       weights: Sequence[int] = (1,), walks: int = 100_000, seed: int = DEFAULT_SEED,
                       seconds: float | None = None, workers: int = 1,
                       on_batch: Callable[[SolutionEstimate], object] | None = None) -> SolutionEstimate:
    """Knuth's estimate of sum_j weights[j] x (the exact covers of `problem` through start j).

    A walk of the engine's tree is worth the product of its branching degrees when it reaches a
    solution, 0 when it dies: the mean is unbiased and the spread of the walks gives the standard
    error. Given a symmetry-broken problem's starts (one per kept key placement) and weights (its
    orbit size), the sum is exactly the number of assemblies (`problem.symmetry`: solutions through a
    key placement p are in bijection with those through any rotation of p); stratified, every start
    gets its share of the walks, which removes the variance of picking among them. Up to `walks`
    walks; after `seconds` (wall) it stops at the end of a batch. `on_batch` sees the estimate so far.

    A chain's joints are side clauses the walks do not see: they would count covers that are not
    chains, so chains raise ValueError (the caller says so)."""
    global _WALKING
    if problem.side_clauses:
        raise ValueError("Knuth's walks do not see side clauses (a chain's joints)")
    began = time.perf_counter()
    n = len(starts)
    per = max(1, SOLUTION_BATCH // n)
    jobs = [(seed + k, per) for k in range(max(1, -(-walks // (per * n))))]
    sums, squares, counts, reached = [0.0] * n, [0.0] * n, [0] * n, 0

    def current() -> SolutionEstimate:
        mean = math.fsum(w * s / c for w, s, c in zip(weights, sums, counts, strict=True))
        var = math.fsum(w * w * max(q / c - (s / c) ** 2, 0.0) / (c - 1)
                        for w, s, q, c in zip(weights, sums, squares, counts, strict=True) if c > 1)
        return SolutionEstimate(mean, math.sqrt(var), sum(counts), time.perf_counter() - began, reached)

    def batches() -> Iterator[Moments]:
        if workers > 1 and len(jobs) > 1:
            from .pool import forked_pool

            with forked_pool(workers) as pool:  # leaving early (the deadline) kills the workers
                yield from pool.imap(_solution_batch, jobs)
        else:
            yield from map(_solution_batch, jobs)

    _WALKING = (problem, starts)
    try:
        for b_sums, b_squares, b_counts, b_reached in batches():
            sums = [a + b for a, b in zip(sums, b_sums, strict=True)]
            squares = [a + b for a, b in zip(squares, b_squares, strict=True)]
            counts = [a + b for a, b in zip(counts, b_counts, strict=True)]
            reached += b_reached
            if on_batch is not None:
                on_batch(current())
            if seconds is not None and time.perf_counter() - began >= seconds:
                break
    finally:
        _WALKING = None
    return current()
