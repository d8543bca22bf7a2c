"""Piece-set design: which sets of pieces from a pool fill a box in exactly one way?

A candidate is a multiset of pool pieces whose volume equals the box's. Most candidates are
settled long before a full enumeration: the search stops at the second solution class (up to
rotation and reflection, `enumerate_classes(limit=2)`) on the dlx engine, so a candidate costs about
as much as finding two solutions. Before any search a candidate is dropped when one of its pieces
fits nowhere in the box (the "obvious impossibility" check; the volume is matched by construction).

With a minimum level (`LevelRule`, `design pieces --min-level`), a unique design's one solution class
is also taken apart (by slides, the C disassembler; with turns when asked), and a design whose class
does not come apart, or comes apart below the level, is "below-level": a designer who wants an
interlocking puzzle keeps only those that need that many moves.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING

from ...errors import CpsolveError
from ...limits import check, placements_bound
from ...puzzle.geometry import FACE_STEPS, Cell, Shape, bounding_size, box_cells, normalize, orientations, rotation_key
from ...puzzle.grid import GRIDS
from ...puzzle.model import Piece, Puzzle
from ...puzzle.writer import Line, LineMap
from ...puzzle.writer import puzzle_text as write_puzzle

if TYPE_CHECKING:
    from ...problem.placements import ExactCoverProblem
    from ...search.result import SolutionClass


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


LAYERS: dict[str, tuple[str, Cell]] = {
    "iamonds": ("prisms", (0, 0, 1)),
    "square-balls": ("spheres", (0, 0, 1)),
    "triangular-balls": ("spheres", (1, -1, -1)),
}
"""Flat pieces of the other grids: their grid, and the normal of the layer they lie in (polyiamonds: one
layer of triangular prisms; balls in a square layer, as Kanoodle's and IQ Puzzler's pieces, or in a
triangular layer). The layers are those a puzzle file draws flat pieces in (`layers:` one z at a time,
`square:` at z = 0, `triangular:` at x - y - z = 0: `schema.flat_balls`), so that a library piece taken
into the workbench is written back as such a drawing."""


def flat_polyforms(kind: str, size: int) -> tuple[Shape, ...]:
    """Every flat piece of `size` cells of a LAYERS kind up to its grid's rotations (which turn a flat piece
    over, so a piece and its mirror image are one), grown cell by cell through the grid's face (or touching)
    neighbours that stay in the layer; each one as it lies in that layer (normalized), in the order of
    their rotation keys."""
    grid_name, normal = LAYERS[kind]
    grid = GRIDS[grid_name]

    def level(c: Cell) -> int:
        return c[0] * normal[0] + c[1] * normal[1] + c[2] * normal[2]

    shapes: dict[Shape, Shape] = {((0, 0, 0),): ((0, 0, 0),)}  # each shape's key: one of it in the layer
    for _ in range(size - 1):
        grown: dict[Shape, Shape] = {}
        for shape in shapes.values():
            cells = set(shape)
            for c in shape:
                for q in grid.neighbours(c):
                    if q not in cells and level(q) == level(c):
                        bigger = tuple(sorted((*shape, q)))
                        grown.setdefault(grid.rotation_key(bigger), bigger)
        shapes = grown
    return tuple(grid.normalize(shapes[k]) for k in sorted(shapes))


def named_flat(kind: str, size: int, prefix: str) -> dict[str, Shape]:
    """Flat pieces of one size with short names: a prefix (so that pools of one grid mixed keep their
    pieces apart: t for polyiamonds, s and b for balls in a square or a triangular layer), the size and a
    letter (t4a, t4b, ...)."""
    return {f"{prefix}{size}{chr(ord('a') + i)}": s for i, s in enumerate(flat_polyforms(kind, size))}


IAMONDS = ("moniamonds", "diamonds", "triamonds", "tetriamonds", "pentiamonds", "hexiamonds", "heptiamonds")
"""Polyiamonds of 1 to 7 triangles by name (1, 1, 1, 3, 4, 12 and 24 of them)."""

POOLS: dict[str, tuple[str, Callable[[], dict[str, Shape]]]] = {
    "monocubes": ("cubes", lambda: named_polycubes(1)),
    "dicubes": ("cubes", lambda: named_polycubes(2)),
    "tricubes": ("cubes", lambda: named_polycubes(3)),
    "tetracubes": ("cubes", lambda: named_polycubes(4)),
    "pentacubes": ("cubes", lambda: named_polycubes(5)),
    "pentominoes": ("cubes", pentominoes),
    **{name: ("prisms", partial(named_flat, "iamonds", k, "t")) for k, name in enumerate(IAMONDS, start=1)},
    **{f"square-balls-{k}": ("spheres", partial(named_flat, "square-balls", k, "s")) for k in range(1, 6)},
    **{f"triangular-balls-{k}": ("spheres", partial(named_flat, "triangular-balls", k, "b")) for k in range(1, 6)},
}
"""Pools (and the shape libraries of `cpsolve.shapes`) by name, each with its grid: polycubes and
pentominoes (cubes), polyiamonds (one layer of the prism grid), flat ball pieces of 1 to 5 balls in a
square or a triangular layer (spheres)."""


def pool_from(names: str) -> tuple[dict[str, Shape], str]:
    """A comma-separated list of pool names, e.g. `tricubes,tetracubes`, and the grid they are on (one)."""
    pool: dict[str, Shape] = {}
    grids: list[str] = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name not in POOLS:
            raise CpsolveError(f"unknown pool {name!r} (known: {', '.join(POOLS)})", field="--pool")
        grid, make = POOLS[name]
        grids.append(grid)
        pool.update(make())
    if not pool:
        raise CpsolveError("the pool is empty", field="--pool")
    if len(set(grids)) > 1:
        raise CpsolveError(f"the pools are on different grids ({', '.join(dict.fromkeys(grids))}): a set is built "
                           "on one", field="--pool")
    return pool, grids[0]


def container_of(box: tuple[int, int, int], grid: str = "cubes") -> Shape:
    """The cells of the grid in the box (on cubes, all of it)."""
    return box_cells(box) if grid == "cubes" else GRIDS[grid].box(box)


def fits(shape: Shape, size: tuple[int, int, int], grid: str = "cubes") -> bool:
    """Whether some orientation of the shape fits inside the box (on another grid: some turn and legal
    translation of it, among the box's cells)."""
    if grid == "cubes":
        return any(all(b <= s for b, s in zip(sorted(bounding_size(o)), sorted(size), strict=True))
                   for o in orientations(normalize(shape)))
    g = GRIDS[grid]
    cells = set(container_of(size, grid))
    for o in g.orientations(g.normalize(shape)):
        for anchor in cells:
            d = (anchor[0] - o[0][0], anchor[1] - o[0][1], anchor[2] - o[0][2])
            if g.kind(anchor) == g.kind(o[0]) and all((c[0] + d[0], c[1] + d[1], c[2] + d[2]) in cells for c in o):
                return True
    return False


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


def check_limits(boxes: Sequence[tuple[int, int, int]], pool: dict[str, Shape], grid: str = "cubes") -> None:
    """Refuse, before any candidate is made, a box over `--max-cells` or a pool whose placements in it could
    pass `--max-placements` (no candidate of the pool can have more), as `enumerate` refuses a file (on
    another grid: each turn of each piece at each cell)."""
    for box in boxes:
        label = "x".join(map(str, box))
        check("max_cells", f"the box {label}'s volume", box[0] * box[1] * box[2], "--box")
        cells = container_of(box, grid)
        bound = (placements_bound(cells, pool.values()) if grid == "cubes" else
                 len(cells) * sum(len(GRIDS[grid].orientations(GRIDS[grid].normalize(s))) for s in pool.values()))
        check("max_placements", f"the estimated number of placements of the pool in the box {label}", bound, "--pool")


@dataclass(frozen=True)
class LevelRule:
    """The level a unique design must reach (`design pieces --min-level`): its one solution class taken
    apart, by slides, or with quarter turns too (`rotations`, each cube shrunk by `clearance` in the
    sweep test)."""

    minimum: tuple[int, ...]
    """`disassembly.parse_level` of the level asked: moves per figure, turns counted as moves."""
    rotations: bool = False
    clearance: Fraction = Fraction(0)


@dataclass(frozen=True)
class Verdict:
    """What the search says about one candidate."""

    box: tuple[int, int, int]
    pieces: tuple[tuple[str, int], ...]
    status: str
    """'unique', 'several' (stopped at the second class), 'none', 'pruned' (a piece fits nowhere),
    'timeout', or with a `LevelRule` 'below-level' (unique, but stuck or below the level)."""
    seconds: float
    counts: tuple[int, int, int] | None = None
    """(total, up to rotation, up to symmetry) when the search ran to the end (status unique/none)."""
    level: str | None = None
    """With a `LevelRule`, a unique design's level ('stuck' when it does not come apart)."""

    def as_json(self) -> dict[str, object]:
        return {"box": "x".join(map(str, self.box)), "pieces": dict(self.pieces), "status": self.status,
                "seconds": round(self.seconds, 4),
                **({} if self.counts is None else dict(zip(("total", "unique_rotation", "unique_symmetry"),
                                                           self.counts, strict=True))),
                **({} if self.level is None else {"level": self.level})}


def puzzle_of(box: tuple[int, int, int], pieces: Sequence[tuple[str, int]], pool: dict[str, Shape],
              name: str = "design", grid: str = "cubes") -> Puzzle:
    return Puzzle(name, container_of(box, grid), tuple(Piece(n, pool[n], k) for n, k in pieces),
                  source="cpsolve design pieces", grid=grid)


def judge(box: tuple[int, int, int], pieces: Sequence[tuple[str, int]], pool: dict[str, Shape],
          backend: str = "auto", timeout: float | None = None, grid: str = "cubes",
          levels: LevelRule | None = None) -> Verdict:
    """Unique, several or none: the search stops at the second solution class. With `levels`, a unique
    design's class is taken apart too: below the level (or stuck), 'below-level'."""
    from ...search.backends import Status, for_problem
    from ...search.enumeration import enumerate_classes, prepare
    from ...search.settings import RunSettings

    start = time.perf_counter()
    if not all(fits(pool[n], box, grid) for n, _ in pieces):
        return Verdict(box, tuple(pieces), "pruned", time.perf_counter() - start)
    prepared = prepare(puzzle_of(box, pieces, pool, grid=grid))
    found: list[SolutionClass] = []
    result = enumerate_classes(prepared, RunSettings(for_problem(backend, prepared.problem), limit=2, timeout=timeout),
                               on_class=found.append if levels is not None else None)
    c = result.counts()
    counts = (c["total"], c["unique_rotation"], c["unique_symmetry"])
    level = None
    if result.status is Status.TIMEOUT:
        status, counts_kept = "timeout", None
    elif result.status is Status.STOPPED or c["unique_symmetry"] >= 2:
        status, counts_kept = "several", None
    else:
        status, counts_kept = ("unique" if c["unique_symmetry"] == 1 else "none"), counts
        if status == "unique" and levels is not None:
            reached, level = _level_of(prepared.problem, found[0], levels, grid)
            if reached is None or reached < levels.minimum:
                status = "below-level"
    return Verdict(box, tuple(pieces), status, time.perf_counter() - start, counts_kept, level)


def _level_of(problem: ExactCoverProblem, cls: SolutionClass, levels: LevelRule,
              grid: str) -> tuple[tuple[int, ...] | None, str]:
    """The class taken apart as `enumerate --disassemble` takes classes apart: its level (None: stuck) and
    the level's text ('stuck')."""
    from ..turning import placed_disassembler

    disassembler = placed_disassembler(problem, grid=grid, rotations=levels.rotations,
                                       rotation_clearance=levels.clearance)
    reached, text, _ = disassembler.take_apart([cls.placements])[0]
    return reached, text if reached is not None and text is not None else "stuck"


@dataclass(frozen=True)
class Job:
    box: tuple[int, int, int]
    pieces: tuple[tuple[str, int], ...]


def jobs(boxes: Sequence[tuple[int, int, int]], pool: dict[str, Shape], copies: int = 1,
         pieces: tuple[int, int] | None = None, grid: str = "cubes") -> Iterator[Job]:
    for box in boxes:
        for chosen in candidates(pool, len(container_of(box, grid)), copies, pieces):
            yield Job(box, chosen)


def search(work: Iterable[Job], pool: dict[str, Shape], *, backend: str = "auto", workers: int = 1,
           timeout: float | None = None, grid: str = "cubes", levels: LevelRule | None = None) -> Iterator[Verdict]:
    """Judge every candidate, in order; with workers > 1 in a forked process pool."""
    if workers <= 1:
        for job in work:
            yield judge(job.box, job.pieces, pool, backend, timeout, grid, levels)
        return
    from ...search.pool import forked_pool

    with forked_pool(workers) as pool_:
        args = ((job.box, job.pieces, pool, backend, timeout, grid, levels) for job in work)
        yield from pool_.imap(_judge_args, args)


def _judge_args(args: tuple[tuple[int, int, int], tuple[tuple[str, int], ...], dict[str, Shape], str,
                            float | None, str, LevelRule | None]) -> Verdict:
    return judge(*args)


def puzzle_text(verdict: Verdict, pool: dict[str, Shape], name: str, source: str, grid: str = "cubes") -> str:
    """A packing puzzle file for a unique design, with its counts as the reference."""
    pieces: dict[str, LineMap] = {}
    for piece, k in verdict.pieces:
        pieces[piece] = LineMap(cells=[list(c) for c in pool[piece]], **({"count": k} if k > 1 else {}))
    data: dict[str, object] = {"name": name, "description": _describe(verdict), "source": source,
                               **({"grid": grid} if grid != "cubes" else {}),
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
