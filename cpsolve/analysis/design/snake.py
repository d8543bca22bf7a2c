"""Snake-cube census: every chain that folds into a box, with its number of foldings.

Solving each of the 2^(n-2) straight/turn sequences as its own puzzle would take 2^25 searches for
the 3x3x3 cube. The census turns the question around: a folding *is* a Hamiltonian path of the
box's grid graph, and a path determines its chain (straight or turn at every inner cube). So the
paths are enumerated once, and each is filed under its chain's sequence.

Symmetry: the box's isometries act freely on directed Hamiltonian paths (an isometry fixing a
directed path fixes every cell, so it is the identity on the box), and the turn sequence is
invariant under them. The search therefore starts only from one representative of each orbit of
first steps (cell, next cell) and weights what it finds by the orbit's size: the number N(s) of
directed paths with sequence s comes out exact, and N(s)/|G| is the number of foldings of the
ordered chain s up to rotation and reflection. A chain and its reverse are one physical chain
(reversing a path maps one set bijectively onto the other). A palindromic chain is folded the same
way when read from either end, so its foldings are the orbits of the group G x {forward, reverse};
Burnside's lemma counts them from the paths P with g(P) = reverse(P), counted by `reverse_fixed`.
These are the conventions of `cpsolve enumerate` on a chain file, which the tests check.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...problem.symmetry import container_group
from ...puzzle.geometry import FACE_STEPS, Cell, box_cells

# A chain is held as an int bit string, its turn sequence: bit i-1 is 1 when inner cube i
# (1 <= i <= n-2) is a turn; the two ends are neither straight nor turns.


@dataclass(frozen=True)
class BoxGraph:
    """The grid graph of a box, with the cell permutations of its symmetry group."""

    size: tuple[int, int, int]
    cells: tuple[Cell, ...]
    neighbours: tuple[tuple[int, ...], ...]
    """neighbours[c][d] is the cell one step from c along FACE_STEPS[d], or -1 outside the box."""
    perms: tuple[tuple[int, ...], ...]
    """The box's isometries as distinct permutations of cell indices (identity included)."""
    rotation: tuple[bool, ...]
    """rotation[k] is True when perms[k] is realised by a proper rotation."""

    @property
    def n(self) -> int:
        return len(self.cells)

    @cached_property
    def start_parity_ok(self) -> tuple[bool, ...]:
        """Cells a Hamiltonian path can start at: on an odd box both ends lie on the majority colour."""
        colour = [sum(c) % 2 for c in self.cells]
        if self.n % 2 == 0:
            return (True,) * self.n
        majority = 0 if colour.count(0) > colour.count(1) else 1
        return tuple(col == majority for col in colour)


def box_graph(size: tuple[int, int, int]) -> BoxGraph:
    cells = box_cells(size)
    index = {c: i for i, c in enumerate(cells)}
    neighbours = tuple(
        tuple(index.get((c[0] + s[0], c[1] + s[1], c[2] + s[2]), -1) for s in FACE_STEPS) for c in cells
    )
    perms: dict[tuple[int, ...], bool] = {}
    for g in container_group(cells):  # a flat box's mirror in its own plane moves no cell: keep one
        perms[g.perm] = perms.get(g.perm, False) or not g.is_reflection
    ordered = sorted(perms)
    return BoxGraph(size, cells, neighbours, tuple(ordered), tuple(perms[p] for p in ordered))


def starts(graph: BoxGraph) -> list[tuple[tuple[int, int], int]]:
    """One (first cell, second cell) per orbit of first steps, with the orbit's size."""
    seen: set[tuple[int, int]] = set()
    reps = []
    for a in range(graph.n):
        if not graph.start_parity_ok[a]:
            continue
        for b in graph.neighbours[a]:
            if b < 0 or (a, b) in seen:
                continue
            orbit = {(p[a], p[b]) for p in graph.perms}
            seen |= orbit
            reps.append(((a, b), len(orbit)))
    return reps


@dataclass
class Tally:
    """Per turn sequence: directed paths N(s), and for palindromes the Burnside terms."""

    paths: dict[int, int] = field(default_factory=dict)
    reverse_fixed: dict[int, int] = field(default_factory=dict)
    """Sum over directed paths P of #{g in G: g(P) = reverse(P)} (palindromic sequences only)."""
    reverse_fixed_rot: dict[int, int] = field(default_factory=dict)
    """The same with g restricted to rotations."""
    complete: bool = True
    """False when a node budget ended the search early (the counts are then lower bounds)."""

    def merge(self, other: Tally, weight: int = 1) -> None:
        for mine, theirs in ((self.paths, other.paths), (self.reverse_fixed, other.reverse_fixed),
                             (self.reverse_fixed_rot, other.reverse_fixed_rot)):
            for s, k in theirs.items():
                mine[s] = mine.get(s, 0) + k * weight
        self.complete = self.complete and other.complete


def reverse_bits(s: int, width: int) -> int:
    return int(format(s, f"0{width}b")[::-1], 2) if width else 0


def _direction(graph: BoxGraph, a: int, b: int) -> int:
    return graph.neighbours[a].index(b)


def walk(graph: BoxGraph, prefix: Sequence[int], target: int | None = None, limit: int = 0,
         max_nodes: int = 0) -> Tally:
    """Every Hamiltonian path that begins with `prefix`, filed by turn sequence (the readable search).

    A depth-first search over a visited bitmask; `_snakes.walk` in C is the same search, and a test
    checks that the two agree. With `target` only paths with that turn sequence are followed (the
    foldings of one chain), `limit` stops after that many paths (enough to tell one from two), and
    `max_nodes` gives up after that many search nodes (the tally is then marked incomplete).
    """
    n, nb = graph.n, graph.neighbours
    width = n - 2
    tally = Tally()
    path = list(prefix)
    visited = 0
    for c in path:
        visited |= 1 << c
    seq = 0
    for i in range(1, len(path) - 1):
        if _direction(graph, path[i - 1], path[i]) != _direction(graph, path[i], path[i + 1]):
            seq |= 1 << (i - 1)
    full = (1 << n) - 1
    found, nodes = [0], [0]
    if target is not None and len(path) > 2 and (seq ^ target) & ((1 << (len(path) - 2)) - 1):
        return tally

    def record(s: int) -> None:
        found[0] += 1
        tally.paths[s] = tally.paths.get(s, 0) + 1
        if reverse_bits(s, width) == s:
            fixed_all, fixed_rot = _reverse_symmetries(graph, path)
            if fixed_all:  # only non-zero entries, as in C
                tally.reverse_fixed[s] = tally.reverse_fixed.get(s, 0) + fixed_all
            if fixed_rot:
                tally.reverse_fixed_rot[s] = tally.reverse_fixed_rot.get(s, 0) + fixed_rot

    def extend(cell: int, heading: int, depth: int, visited: int, s: int) -> None:
        # depth = number of cells placed; `cell` is the last, reached along `heading`
        if visited == full:
            record(s)
            return
        if (limit and found[0] >= limit) or not tally.complete:
            return
        nodes[0] += 1
        if max_nodes and nodes[0] > max_nodes:
            tally.complete = False
            return
        for d in range(6):
            nxt = nb[cell][d]
            if nxt < 0 or visited >> nxt & 1:
                continue
            turn = int(d != heading)
            if target is not None and turn != target >> (depth - 2) & 1:
                continue
            path.append(nxt)
            extend(nxt, d, depth + 1, visited | 1 << nxt, s | (turn << (depth - 2)))
            path.pop()

    if len(path) == 1:
        for d in range(6):
            nxt = nb[path[0]][d]
            if nxt >= 0:
                path.append(nxt)
                extend(nxt, d, 2, visited | 1 << nxt, 0)
                path.pop()
    else:
        extend(path[-1], _direction(graph, path[-2], path[-1]), len(path), visited, seq)
    return tally


def _reverse_symmetries(graph: BoxGraph, path: Sequence[int]) -> tuple[int, int]:
    """How many isometries (all, rotations only) carry the path onto its own reverse."""
    n = len(path)
    hits = [k for k, p in enumerate(graph.perms) if all(p[path[i]] == path[n - 1 - i] for i in range(n))]
    return len(hits), sum(1 for k in hits if graph.rotation[k])


@dataclass(frozen=True)
class ChainCount:
    """One physical chain of the census and its foldings."""

    sequence: int
    """The smaller of the two readings (as bit strings) of the chain."""
    n: int
    foldings: int
    """Foldings up to rotation and reflection (cpsolve's `unique_symmetry`)."""
    up_to_rotation: int
    total: int
    """Foldings in a fixed box, rotated copies distinct (cpsolve's `total`)."""
    palindrome: bool

    @property
    def segments(self) -> list[int]:
        return segments_of(self.sequence, self.n)

    def as_json(self) -> dict[str, object]:
        return {"segments": self.segments, "turns": turns_text(self.sequence, self.n), "foldings": self.foldings,
                "up_to_rotation": self.up_to_rotation, "total": self.total, "palindrome": self.palindrome}


def segments_of(sequence: int, n: int) -> list[int]:
    """Segment lengths (consecutive segments share their end cube) of a turn sequence."""
    corners = [i for i in range(1, n - 1) if sequence >> (i - 1) & 1]
    ends = [0, *corners, n - 1]
    return [ends[k + 1] - ends[k] + 1 for k in range(len(ends) - 1)]


def sequence_of(segments: Sequence[int]) -> int:
    s, at = 0, 0
    for length in segments[:-1]:
        at += length - 1
        s |= 1 << (at - 1)
    return s


def turns_text(sequence: int, n: int) -> str:
    """The chain as letters, one per cube: E end, S straight, T turn."""
    return "E" + "".join("T" if sequence >> i & 1 else "S" for i in range(n - 2)) + "E"


def chains(graph: BoxGraph, tally: Tally) -> list[ChainCount]:
    """Group ordered sequences into physical chains and count their foldings (see the module doc)."""
    g = len(graph.perms)
    r = sum(graph.rotation)
    width = graph.n - 2
    out = []
    for s, paths in tally.paths.items():
        rev = reverse_bits(s, width)
        if rev < s:
            continue
        if rev == s:
            fixed, fixed_rot = tally.reverse_fixed.get(s, 0), tally.reverse_fixed_rot.get(s, 0)
            sym, rot, total = _exact(paths + fixed, 2 * g), _exact(paths + fixed_rot, 2 * r), _exact(paths, 2)
        else:
            sym, rot, total = _exact(paths, g), _exact(paths, r), paths
        out.append(ChainCount(s, graph.n, sym, rot, total, rev == s))
    return sorted(out, key=lambda c: (c.foldings, c.sequence))


def _exact(a: int, b: int) -> int:
    q, rem = divmod(a, b)
    assert rem == 0, f"{a} is not a multiple of {b}: the orbit count is wrong"
    return q


@dataclass(frozen=True)
class Census:
    size: tuple[int, int, int]
    chains: tuple[ChainCount, ...]
    ordered: int
    """Distinct turn sequences read in one direction (a chain and its reverse counted twice)."""
    foldings: int
    """Foldings of all chains up to symmetry (= undirected Hamiltonian paths up to symmetry)."""

    def summary(self) -> dict[str, Any]:
        """The census's headline figures (JSON-ready: the box as text, the rest integers)."""
        unique = [c for c in self.chains if c.foldings == 1]
        return {
            "box": "x".join(map(str, self.size)),
            "ordered_chains": self.ordered,
            "chains": len(self.chains),
            "palindromic_chains": sum(c.palindrome for c in self.chains),
            "unique_chains": len(unique),
            "max_foldings": max((c.foldings for c in self.chains), default=0),
            "foldings": self.foldings,
        }


def prefixes(graph: BoxGraph, depth: int) -> list[tuple[tuple[int, ...], int]]:
    """The search split into parts: representative first steps extended to `depth` cells, with weights.

    The weight of a part is the orbit size of its first step, so that sum(weight * paths) = N(s).
    """
    parts: list[tuple[tuple[int, ...], int]] = []
    for (a, b), weight in starts(graph):
        frontier: list[tuple[int, ...]] = [(a, b)]
        for _ in range(depth - 2):
            frontier = [(*p, c) for p in frontier for c in graph.neighbours[p[-1]] if c >= 0 and c not in p]
        parts.extend((p, weight) for p in frontier)
    return parts


Walker = Callable[..., Tally]
"""walk(graph, prefix, target=None, limit=0) -> Tally: the Python search or its C twin."""


def census(size: tuple[int, int, int], walker: Walker | None = None, *, workers: int = 1,
           progress: Callable[[int, int], None] | None = None) -> Census:
    """The exact census of a box: every chain that folds into it and its foldings."""
    graph = box_graph(size)
    walker = walker or best_walker()
    parts = prefixes(graph, min(graph.n, 5 if workers > 1 else 2))
    tally = Tally()
    for done, (part, weight) in enumerate(_map_parts(graph, parts, walker, workers), 1):
        tally.merge(part, weight)
        if progress is not None:
            progress(done, len(parts))
    found = chains(graph, tally)
    return Census(size, tuple(found), len(tally.paths), sum(c.foldings for c in found))


def _map_parts(graph: BoxGraph, parts: list[tuple[tuple[int, ...], int]], walker: Walker,
               workers: int) -> Iterable[tuple[Tally, int]]:
    if workers <= 1 or len(parts) <= 1:
        for prefix, weight in parts:
            yield walker(graph, prefix), weight
        return
    from ...search.pool import forked_pool

    with forked_pool(workers) as pool:
        jobs = [(graph, prefix, walker) for prefix, _ in parts]
        for (_, weight), tally in zip(parts, pool.imap(_run_part, jobs), strict=True):
            yield tally, weight


def _run_part(job: tuple[BoxGraph, tuple[int, ...], Walker]) -> Tally:
    graph, prefix, walker = job
    return walker(graph, prefix)


def c_walk(graph: BoxGraph, prefix: Sequence[int], target: int | None = None, limit: int = 0,
           max_nodes: int = 0) -> Tally:
    """`walk` in C (`_snakes.c`): the same search, about 50 times faster."""
    from ._snakes import walk as native

    paths, fixed, fixed_rot, complete = native(graph.neighbours, graph.perms, graph.rotation, tuple(prefix),
                                               target, limit, max_nodes)
    return Tally(paths, fixed, fixed_rot, complete)


def native_available() -> bool:
    try:
        from . import _snakes  # noqa: F401
    except ImportError:
        return False
    return True


def best_walker() -> Walker:
    """The C search when it is built, else the Python one (same results, tested)."""
    return c_walk if native_available() else walk


class Undecided(Exception):
    """The node budget ran out before the chain's foldings were counted."""


def foldings_of(graph: BoxGraph, sequence: int, walker: Walker | None = None, stop_above: int = 0,
                max_nodes: int = 0) -> ChainCount | None:
    """The foldings of one chain (its turn sequence), or None when it has more than `stop_above`.

    The same orbit counting as the census, restricted to one sequence; with `stop_above` the search
    ends as soon as the chain is known to have more foldings than that (a directed path count above
    2 * stop_above * |G| proves it), which is what a search for unique chains needs; a count just
    above `stop_above` may still come back in full, so callers compare `foldings`. `max_nodes`
    bounds each part of the search; running out raises `Undecided`.
    """
    walker = walker or best_walker()
    width = graph.n - 2
    rev = reverse_bits(sequence, width)
    budget = 2 * stop_above * len(graph.perms) + 1 if stop_above else 0
    tally = Tally()
    for prefix, weight in prefixes(graph, 2):
        part = walker(graph, prefix, sequence, budget, max_nodes)
        tally.merge(part, weight)
        if budget and tally.paths.get(sequence, 0) >= budget:
            return None
        if not tally.complete:
            raise Undecided(turns_text(sequence, graph.n))
    if sequence not in tally.paths:
        return ChainCount(min(sequence, rev), graph.n, 0, 0, 0, rev == sequence)
    if rev != sequence:
        tally.paths[rev] = tally.paths[sequence]
    return chains(graph, tally)[0]


def serpentine(graph: BoxGraph) -> list[int]:
    """A Hamiltonian path of any box: back and forth along x, row by row, layer by layer."""
    a, b, c = graph.size
    layer = [(x if y % 2 == 0 else a - 1 - x, y) for y in range(b) for x in range(a)]
    index = {cell: i for i, cell in enumerate(graph.cells)}
    return [index[(x, y, z)] for z in range(c) for x, y in (layer if z % 2 == 0 else layer[::-1])]


def random_foldings(graph: BoxGraph, rng: random.Random, moves: int = 0) -> Iterator[list[int]]:
    """An endless stream of random Hamiltonian paths: the backbite Markov chain.

    A backbite move joins one end of the path to a random grid neighbour v further along the path
    and reverses the part in between, so the cell before v becomes the new end; the chain's
    stationary distribution is uniform over the box's Hamiltonian paths (Mansfield, "Monte Carlo
    simulation of compact polymers", 2006). `moves` (default 10 n^2) moves separate two draws; the
    start is a serpentine. Uniform over *foldings* means a chain with k foldings is drawn k times as
    often as a chain with one, so a sample under-represents the unique chains.
    """
    n, nb = graph.n, graph.neighbours
    path = serpentine(graph)
    moves = moves or 10 * n * n
    while True:
        for _ in range(moves):
            if rng.random() < 0.5:
                path.reverse()
            v = rng.choice([c for c in nb[path[0]] if c >= 0])
            i = path.index(v)
            if i > 1:
                path[:i] = path[i - 1::-1]
        yield list(path)


def sequence_of_path(graph: BoxGraph, path: Sequence[int]) -> int:
    s = 0
    for i in range(1, len(path) - 1):
        if _direction(graph, path[i - 1], path[i]) != _direction(graph, path[i], path[i + 1]):
            s |= 1 << (i - 1)
    return s


def chain_puzzle_text(size: tuple[int, int, int], chain: ChainCount, name: str, source: str) -> str:
    """A `kind: chain` puzzle file for one chain of the census, its counts as the reference.

    The counts come from the census; `cpsolve enumerate FILE` recomputes them with the chain model
    (joint clauses on a SAT or CP-SAT backend) and `cpsolve report FILE` checks them.
    """
    import json

    return "\n".join([
        f"name: {name}",
        f"description: a {len(chain.segments)}-segment chain of {chain.n} cubes that folds into the "
        f"{'x'.join(map(str, size))} box in {chain.foldings} way(s) up to rotation and reflection"
        f" ({turns_text(chain.sequence, chain.n)})",
        f"source: {json.dumps(source)}",
        "kind: chain",
        f"container: {{box: {json.dumps(list(size))}}}",
        f"chain: {{segments: {json.dumps(chain.segments)}}}",
        "reference:",
        f"  total: {chain.total}",
        f"  unique_rotation: {chain.up_to_rotation}",
        f"  unique_symmetry: {chain.foldings}",
        f"  source: {json.dumps(source)}",
        "",
    ])


def parse_box(text: str, max_cells: int | None = 64) -> tuple[int, int, int]:
    """`AxBxC` as three positive integers (the snake search needs 3 to 64 cells: a bitmask)."""
    from ...errors import CpsolveError

    parts = text.strip().lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise CpsolveError(f"{text!r} is not a box like 3x3x3", field="--box")
    size = (int(parts[0]), int(parts[1]), int(parts[2]))
    if max_cells is not None and not 3 <= size[0] * size[1] * size[2] <= max_cells:
        raise CpsolveError(f"{text}: the snake search handles boxes of 3 to {max_cells} cells", field="--box")
    return size


def enumerate_chain(size: tuple[int, int, int], segments: Sequence[int], backend: str = "auto") -> tuple[int, int, int]:
    """(total, up to rotation, up to symmetry) of one chain by cpsolve's own chain model.

    This is the independent count the census is checked against: placements, joint clauses,
    symmetry breaking by a key cube, a SAT backend and the canonicalizer — none of the census's code.
    """
    from ...puzzle.model import to_puzzle
    from ...puzzle.schema import PuzzleFile
    from ...search.backends import for_problem
    from ...search.enumeration import enumerate_classes, prepare
    from ...search.settings import RunSettings

    spec = PuzzleFile.model_validate({"name": "chain", "source": "census cross-check", "kind": "chain",
                                      "container": {"box": list(size)}, "chain": {"segments": list(segments)}})
    prepared = prepare(to_puzzle(spec))
    result = enumerate_classes(prepared, RunSettings(for_problem(backend, prepared.problem)))
    c = result.counts()
    return int(c["total"]), int(c["unique_rotation"]), int(c["unique_symmetry"])


@dataclass(frozen=True)
class Draw:
    """One sampled chain and what folding it in every way said."""

    sequence: int
    verdict: str
    """'unique', 'several' or 'undecided' (the node budget ran out)."""
    chain: ChainCount | None = None
    """The chain and its counts when it is unique."""


def judge_chain(graph: BoxGraph, sequence: int, max_nodes: int = 0) -> Draw:
    """Exactly one folding, more, or undecided within the node budget."""
    try:
        chain = foldings_of(graph, sequence, stop_above=1, max_nodes=max_nodes)
    except Undecided:
        return Draw(sequence, "undecided")
    if chain is not None and chain.foldings == 1:
        return Draw(sequence, "unique", chain)
    return Draw(sequence, "several")


def sample(graph: BoxGraph, count: int, rng: random.Random, max_nodes: int = 0, workers: int = 1) -> Iterator[Draw]:
    """`count` chains drawn by the backbite chain (in this process), judged in `workers` processes."""
    stream = random_foldings(graph, rng)
    sequences = (sequence_of_path(graph, next(stream)) for _ in range(count))
    if workers <= 1:
        for s in sequences:
            yield judge_chain(graph, s, max_nodes)
        return
    from ...search.pool import forked_pool

    with forked_pool(workers) as pool:
        yield from pool.imap(_judge_job, ((graph, s, max_nodes) for s in sequences))


def _judge_job(job: tuple[BoxGraph, int, int]) -> Draw:
    return judge_chain(*job)
