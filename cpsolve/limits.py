"""Size limits checked *before* anything big is allocated, each with the option that raises it.

A puzzle file of a few bytes can ask for a billion cells (`box: [1000, 1000, 1000]`), a chain of a
billion cubes, placements by the hundred million, or (through YAML aliases) gigabytes of drawing.
Each of those is estimated here from plain numbers, before the structure is built, and refused in
one line that names the limit and the option that raises it. The defaults keep a file under 1 MB
well under about 1 GB of memory: the largest built-in model uses 216 cells and about 6,000
placements, so the defaults leave two orders of magnitude of room.

This module is at the bottom of the stages (beside `errors.py`) so that the loader, the model and
the placement generator can all call it; it knows nothing about puzzles, only numbers and cells.
The command line sets the active limits once (`configure`), from its global options.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .errors import CpsolveError

MAX_WORKERS = 256
"""`--workers` above this is a typo, not a machine: each worker is a process."""
MAX_TIMEOUT = 1e9
"""Seconds (about 31 years): a longer `--timeout` is a typo, and the system's interval timer cannot hold
one above about 1e9 s (`setitimer` fails with OverflowError)."""


@dataclass(frozen=True)
class Limits:
    max_cells: int = 20_000
    """Container cells (a chain's cubes fill the container, so this bounds chains too)."""
    max_placements: int = 500_000
    """Estimated placements (pieces x orientations x translations) before they are generated; each
    costs about 1 KB in Python (55k rows of 1x1x3 rods in a 27-cube: 59 MB), so this keeps them
    within about half a gigabyte."""
    max_file_bytes: int = 1_000_000
    """Size of a puzzle file, read no further."""
    max_yaml_nodes: int = 2_000_000
    """YAML nodes and scalar characters after aliases are expanded (the "billion laughs" guard)."""
    max_yaml_depth: int = 64
    """Nesting of YAML collections; a puzzle file needs 5."""
    max_drawing: int = 1_000_000
    """The bounding box (in cells) of anything drawn or written cell by cell: a solution shown as text
    (`show`, `solve`), drawn (`draw`), put on a page (`view`) or read from a solutions file, and a
    container written as BurrTools voxels. Pictures, pages and voxel strings are sized by it, not by
    the cells: two cells a billion apart asked for gigabytes."""
    max_pixels: int = 16_000_000
    """Pixels of a PNG picture (`draw`), checked before it is painted: 12 bytes each while painting
    (twice the size, for smooth edges), so about 200 MB at this limit; a contact sheet of every
    Bedlam solution would need 300 million."""
    max_literals: int = 4_000_000
    """Literals of the clauses of a SAT model (the cardinality encodings and a chain's joints),
    estimated from the sizes of the groups before they are built: about 160 bytes each until the
    solver holds them (an 8x8x8 box of T-tetracubes, 5.2 million: 870 MB), so about 650 MB at this
    limit. The largest built-in model needs 0.8 million; the 27x27x27 box of rods asked pysat for
    some 17 billion, and C++'s std::bad_alloc ended the process."""
    max_disassembly_pieces: int = 256
    """Pieces of an assembly taken apart (`disassemble`, `enumerate --disassemble`): every position of
    the search holds a table of every pair of pieces (3,000 pieces: 1.7 GB before the first move)."""


OPTIONS = {
    "max_cells": "--max-cells",
    "max_placements": "--max-placements",
    "max_file_bytes": "--max-file-bytes",
    "max_yaml_nodes": "--max-yaml-nodes",
    "max_yaml_depth": "--max-yaml-depth",
    "max_drawing": "--max-drawing",
    "max_pixels": "--max-pixels",
    "max_literals": "--max-literals",
    "max_disassembly_pieces": "--max-disassembly-pieces",
}
"""The global option (`cpsolve --max-cells N enumerate ...`) that sets each limit."""

_active = Limits()


def configure(**changes: int | None) -> Limits:
    """Set the limits for this process (None keeps a default); returns them. Called by the CLI."""
    global _active
    given = {k: v for k, v in changes.items() if v is not None}
    for name, value in given.items():
        if name not in OPTIONS:
            raise TypeError(f"unknown limit {name}")
        if value <= 0:
            raise CpsolveError(f"must be > 0, not {value}", field=OPTIONS[name])
    _active = replace(Limits(), **given)
    return _active


def active() -> Limits:
    return _active


def exceeded(name: str, what: str, value: int | None) -> CpsolveError:
    """The one-line error for a limit: what was asked (None: more, unknown how much, as a line read no
    further than the limit), the limit, and the option that raises it."""
    limit = getattr(_active, name)
    asked = "is over" if value is None else f"is {value:,}, over"
    return CpsolveError(f"{what} {asked} the limit of {limit:,} (raise it with cpsolve {OPTIONS[name]} N)")


def check(name: str, what: str, value: int, field: str | None = None) -> None:
    """Refuse `value` when it is over the limit `name`; `field` names the place in the file."""
    if value > getattr(_active, name):
        err = exceeded(name, what, value)
        raise CpsolveError(err.message, field=field)


def check_timeout(value: float | None, field: str = "timeout") -> float | None:
    """A timeout is a finite number of seconds > 0 and at most MAX_TIMEOUT (nan, inf, 0, 1e300 are typos).

    The one check of every timeout: the command line's `--timeout`, the API's and the search's."""
    if value is not None and not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise CpsolveError(f"must be a finite number of seconds > 0 and at most {MAX_TIMEOUT:g}, not {value:g}",
                           field=field)
    return value


def usable_cores() -> int:
    """The cores this process may use (its CPU affinity, which a container's limit sets), at least 1."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def box_volume(size: Sequence[int]) -> int:
    return math.prod(int(v) for v in size)


def check_container(box: Sequence[int] | None, union_sizes: Iterable[Sequence[int]] | None) -> None:
    """Before a container's cells are listed: its volume from the box, or the union's summed volumes.

    A union's summed volume is an upper bound on its cells (boxes may overlap), so it is what is
    checked: it is also what listing the union costs. A drawn container is as large as its text,
    which the file and YAML limits already bound.
    """
    if box is not None:
        check("max_cells", "the container's volume", box_volume(box), "container.box")
    if union_sizes is not None:
        check("max_cells", "the union's summed volume", sum(box_volume(s) for s in union_sizes), "container.union")


def check_chain(segments: Sequence[int] | None) -> None:
    """Before a chain of segments is built: its number of cubes, 1 + sum(s - 1)."""
    if segments is not None:
        check("max_cells", "the chain's length in cubes", 1 + sum(int(s) - 1 for s in segments), "chain.segments")


Cells = Sequence[Sequence[int]]


def extent(cells: Cells) -> tuple[int, int, int]:
    """The bounding box's size along x, y, z (0, 0, 0 for no cells)."""
    if not cells:
        return (0, 0, 0)
    xs, ys, zs = zip(*cells, strict=True)  # one pass to split, then min and max in C
    return (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1, max(zs) - min(zs) + 1)


def placements_bound(container: Cells, shapes: Iterable[Cells]) -> int:
    """An upper bound on the placements of the shapes in the container, from bounding boxes alone.

    A rigid piece has at most 24 orientations; each maps its bounding box (a, b, c) onto one of
    the 6 permutations of the axes, 4 orientations per permutation, and an orientation fits in at
    most (X - a + 1)(Y - b + 1)(Z - c + 1) positions of the container's bounding box (X, Y, Z), and
    in no more positions than the container has cells.
    """
    box = extent(container)
    n = len(container)
    total = 0
    for shape in shapes:
        a, b, c = extent(shape)
        for p in ((a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)):
            fits = math.prod(max(0, box[i] - p[i] + 1) for i in range(3))
            total += 4 * min(fits, n)
    return total


def check_placements(container: Cells, shapes: Iterable[Cells]) -> None:
    """Before placements are generated: their estimated number (`placements_bound`)."""
    check("max_placements", "the estimated number of placements", placements_bound(container, list(shapes)),
          "pieces")


def check_drawing(cells: Cells) -> None:
    """Before a solution is drawn: the characters its bounding box needs."""
    x, y, z = extent(cells)
    check("max_drawing", f"the drawing of a {x}x{y}x{z} bounding box", x * y * z)
