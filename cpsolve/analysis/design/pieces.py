"""Piece-set design: which sets of pieces from a pool fill a box in exactly one way?

A candidate is a multiset of pool pieces whose volume equals the box's. Most candidates are
settled long before a full enumeration: the search stops at the second solution class (up to
rotation and reflection, `enumerate_classes(limit=2)`) on the dlx engine, so a candidate costs about
as much as finding two solutions. Before any search a candidate is dropped when one of its pieces
fits nowhere in the box (the "obvious impossibility" check; the volume is matched by construction).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ...errors import CpsolveError
from ...limits import check, placements_bound
from ...puzzle.geometry import FACE_STEPS, Shape, bounding_size, box_cells, normalize, orientations, rotation_key
from ...puzzle.model import Piece, Puzzle
from ...puzzle.writer import Line, LineMap
from ...puzzle.writer import puzzle_text as write_puzzle


def polycubes(size: int) -> tuple[Shape, ...]:
    """Every polycube of `size` cells up to rotation (mirror images are different pieces), sorted."""
    shapes: set[Shape] = {((0, 0, 0),)}
    for _ in range(size - 1):
        grown: set[Shape] = set()
        for shape in shapes:
            cells = set(shape)
            for x, y, z in shape:
                for dx, dy, dz in FACE_STEPS:
                    q = (x + dx, y + dy, z + dz)
                    if q not in cells:
                        grown.add(rotation_key((*shape, q)))
        shapes = grown
    return tuple(sorted(shapes, key=lambda s: (bounding_size(s)[::-1], s)))


_PENTOMINOES = {
    "F": [".##", "##.", ".#."], "I": ["#####"], "L": ["####", "#..."], "N": ["###.", "..##"],
    "P": ["###", "##."], "T": ["###", ".#.", ".#."], "U": ["#.#", "###"], "V": ["###", "#..", "#.."],
    "W": ["#..", "##.", ".##"], "X": [".#.", "###", ".#."], "Y": ["####", ".#.."], "Z": ["##.", ".#.", ".##"],
}
"""The twelve pentominoes by their usual letters (Golomb, "Polyominoes", 1965), drawn row by row."""


def pentominoes() -> dict[str, Shape]:
    return {name: rotation_key((x, y, 0) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "#")
            for name, rows in _PENTOMINOES.items()}


def named_polycubes(size: int) -> dict[str, Shape]:
    """Polycubes of one size with short names: the size and a letter in a fixed order (4a, 4b, ...)."""
    return {f"{size}{chr(ord('a') + i)}": s for i, s in enumerate(polycubes(size))}


POOLS: dict[str, Callable[[], dict[str, Shape]]] = {
    "monocubes": lambda: named_polycubes(1),
    "dicubes": lambda: named_polycubes(2),
    "tricubes": lambda: named_polycubes(3),
    "tetracubes": lambda: named_polycubes(4),
    "pentacubes": lambda: named_polycubes(5),
    "pentominoes": pentominoes,
}


def pool_from(names: str) -> dict[str, Shape]:
    """A comma-separated list of pool names, e.g. `tricubes,tetracubes`."""
    pool: dict[str, Shape] = {}
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name not in POOLS:
            raise CpsolveError(f"unknown pool {name!r} (known: {', '.join(POOLS)})", field="--pool")
        pool.update(POOLS[name]())
    if not pool:
        raise CpsolveError("the pool is empty", field="--pool")
    return pool


def fits(shape: Shape, size: tuple[int, int, int]) -> bool:
    """Whether some orientation of the shape fits inside the box."""
    return any(all(b <= s for b, s in zip(sorted(bounding_size(o)), sorted(size), strict=True))
               for o in orientations(normalize(shape)))


def candidates(pool: dict[str, Shape], volume: int, copies: int = 1,
               pieces: tuple[int, int] | None = None) -> Iterator[tuple[tuple[str, int], ...]]:
    """Multisets of pool pieces (name, copies) whose volume is `volume`, in a fixed order.

    `pieces` bounds the number of pieces (copies counted) when given.
    """
    names = sorted(pool)
    sizes = [len(pool[n]) for n in names]
    # What pieces i.. can still add at most, and the step their volumes move by: a branch that cannot
    # reach `left` is cut at once (a 30x30x30 box with copies of tricubes spun for minutes without a
    # single candidate: every multiset was tried and fell short).
    most = [sum(min(copies, volume // z) * z for z in sizes[i:]) for i in range(len(names) + 1)]
    step = [math.gcd(*sizes[i:]) if sizes[i:] else 0 for i in range(len(names) + 1)]

    def rec(i: int, left: int, chosen: list[tuple[str, int]], count: int) -> Iterator[tuple[tuple[str, int], ...]]:
        if left == 0:
            if pieces is None or pieces[0] <= count <= pieces[1]:
                yield tuple(chosen)
            return
        if i == len(names) or (pieces is not None and count >= pieces[1]) or most[i] < left or left % step[i]:
            return
        for k in range(min(copies, left // sizes[i]), -1, -1):
            if k:
                chosen.append((names[i], k))
            yield from rec(i + 1, left - k * sizes[i], chosen, count + k)
            if k:
                chosen.pop()

    yield from rec(0, volume, [], 0)


def check_limits(boxes: Sequence[tuple[int, int, int]], pool: dict[str, Shape]) -> None:
    """Refuse, before any candidate is made, a box over `--max-cells` or a pool whose placements in it could
    pass `--max-placements` (no candidate of the pool can have more), as `enumerate` refuses a file."""
    for box in boxes:
        label = "x".join(map(str, box))
        check("max_cells", f"the box {label}'s volume", box[0] * box[1] * box[2], "--box")
        check("max_placements", f"the estimated number of placements of the pool in the box {label}",
              placements_bound(box_cells(box), pool.values()), "--pool")


@dataclass(frozen=True)
class Verdict:
    """What the search says about one candidate."""

    box: tuple[int, int, int]
    pieces: tuple[tuple[str, int], ...]
    status: str
    """'unique', 'several' (stopped at the second class), 'none', 'pruned' (a piece fits nowhere)
    or 'timeout'."""
    seconds: float
    counts: tuple[int, int, int] | None = None
    """(total, up to rotation, up to symmetry) when the search ran to the end (status unique/none)."""

    def as_json(self) -> dict[str, object]:
        return {"box": "x".join(map(str, self.box)), "pieces": dict(self.pieces), "status": self.status,
                "seconds": round(self.seconds, 4),
                **({} if self.counts is None else dict(zip(("total", "unique_rotation", "unique_symmetry"),
                                                           self.counts, strict=True)))}


def puzzle_of(box: tuple[int, int, int], pieces: Sequence[tuple[str, int]], pool: dict[str, Shape],
              name: str = "design") -> Puzzle:
    return Puzzle(name, box_cells(box), tuple(Piece(n, pool[n], k) for n, k in pieces), source="cpsolve design pieces")


def judge(box: tuple[int, int, int], pieces: Sequence[tuple[str, int]], pool: dict[str, Shape],
          backend: str = "auto", timeout: float | None = None) -> Verdict:
    """Unique, several or none: the search stops at the second solution class."""
    from ...search.backends import Status, for_problem
    from ...search.enumeration import enumerate_classes, prepare
    from ...search.settings import RunSettings

    start = time.perf_counter()
    if not all(fits(pool[n], box) for n, _ in pieces):
        return Verdict(box, tuple(pieces), "pruned", time.perf_counter() - start)
    prepared = prepare(puzzle_of(box, pieces, pool))
    result = enumerate_classes(prepared, RunSettings(for_problem(backend, prepared.problem), limit=2, timeout=timeout))
    c = result.counts()
    counts = (c["total"], c["unique_rotation"], c["unique_symmetry"])
    if result.status is Status.TIMEOUT:
        status, counts_kept = "timeout", None
    elif result.status is Status.STOPPED or c["unique_symmetry"] >= 2:
        status, counts_kept = "several", None
    else:
        status, counts_kept = ("unique" if c["unique_symmetry"] == 1 else "none"), counts
    return Verdict(box, tuple(pieces), status, time.perf_counter() - start, counts_kept)


@dataclass(frozen=True)
class Job:
    box: tuple[int, int, int]
    pieces: tuple[tuple[str, int], ...]


def jobs(boxes: Sequence[tuple[int, int, int]], pool: dict[str, Shape], copies: int = 1,
         pieces: tuple[int, int] | None = None) -> Iterator[Job]:
    for box in boxes:
        for chosen in candidates(pool, box[0] * box[1] * box[2], copies, pieces):
            yield Job(box, chosen)


def search(work: Iterable[Job], pool: dict[str, Shape], *, backend: str = "auto", workers: int = 1,
           timeout: float | None = None) -> Iterator[Verdict]:
    """Judge every candidate, in order; with workers > 1 in a forked process pool."""
    if workers <= 1:
        for job in work:
            yield judge(job.box, job.pieces, pool, backend, timeout)
        return
    from ...search.pool import forked_pool

    with forked_pool(workers) as pool_:
        args = ((job.box, job.pieces, pool, backend, timeout) for job in work)
        yield from pool_.imap(_judge_args, args)


def _judge_args(args: tuple[tuple[int, int, int], tuple[tuple[str, int], ...], dict[str, Shape], str,
                            float | None]) -> Verdict:
    return judge(*args)


def puzzle_text(verdict: Verdict, pool: dict[str, Shape], name: str, source: str) -> str:
    """A packing puzzle file for a unique design, with its counts as the reference."""
    pieces: dict[str, LineMap] = {}
    for piece, k in verdict.pieces:
        pieces[piece] = LineMap(cells=[list(c) for c in pool[piece]], **({"count": k} if k > 1 else {}))
    data: dict[str, object] = {"name": name, "description": _describe(verdict), "source": source,
                               "container": {"box": Line(verdict.box)}, "pieces": pieces}
    if verdict.counts is not None:
        total, rot, sym = verdict.counts
        data["reference"] = {"total": total, "unique_rotation": rot, "unique_symmetry": sym, "source": source}
    return write_puzzle(data)


def _describe(verdict: Verdict) -> str:
    parts = [f"{k} x {n}" if k > 1 else n for n, k in verdict.pieces]
    return f"{', '.join(parts)} fill the {'x'.join(map(str, verdict.box))} box in exactly one way"


def boxes_of_volume(volumes: Iterable[int], flat: bool | None = None) -> list[tuple[int, int, int]]:
    """Boxes a <= b <= c of the given volumes; flat=True only a == 1, False only a >= 2."""
    out = []
    for v in volumes:
        for a, b in itertools.product(range(1, v + 1), repeat=2):
            if a <= b and v % (a * b) == 0 and b <= v // (a * b) and (flat is None or (a == 1) == flat):
                out.append((a, b, v // (a * b)))
    return out
