"""Why a packing has no assembly, when counting already says so: volume, placements, colourings.

These are the cheap arguments, tried before any search and stated the way puzzlers state them:

- **volume**: what the pieces can fill (with ranges, every total a choice of copies gives) against
  what the container needs (its required cells, up to all of its cells);
- **no placement**: a piece that must be used but fits nowhere (too long for the box, or its colours
  allowed nowhere);
- **a cell no piece reaches**: a required cell that no placement of any piece covers;
- **colourings**: colour the cells (checkerboard, stripes, the parity of each coordinate, diagonals
  mod 3 or 4, layers) and compare, for a weighting of the colours, what the container needs with
  what the pieces can supply. Wherever a piece lies, it covers one of a few colour counts (a small
  set, from its placements), so the sums the pieces can make are a small set too: the mutilated
  chessboard's 31 dominoes cover 31 white cells wherever they lie, and the board has 30.

Each weighting is one linear certificate (a Farkas-style combination of the colour counts), checked
exactly over the integers: the set of totals is computed, not only its bounds, so parity arguments
count too. A system with several colours that no single weighting refutes is not tried (the core
search below catches what is left). Why colourings at all: the mutilated chessboard is a famous
case where resolution-based SAT solvers need exponential time; counting settles it at once.

Every argument found is re-derived before it is reported (`recheck`): from the puzzle's pieces and
container rather than the placements' rows, with sums made by a second method (shifted bit sets
instead of sets of totals).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ...problem.placements import ExactCoverProblem, colored_placements, piece_placements
from ...puzzle.geometry import Cell, bounding_size
from ...puzzle.model import Puzzle

MAX_SUMS = 200_000
"""A weighting whose set of totals grows past this many values is left alone (never on the models)."""


def cells_text(cells: Iterable[Cell]) -> str:
    return " ".join(f"[{x},{y},{z}]" for x, y, z in cells)


def values_text(values: Sequence[int]) -> str:
    """A set of totals in words: all of them when few, else its range and step."""
    if len(values) <= 6:
        return ", ".join(map(str, values)) if len(values) > 1 else str(values[0])
    steps = {b - a for a, b in itertools.pairwise(values)}
    if len(steps) == 1:
        return f"{values[0]} to {values[-1]} in steps of {steps.pop()}"
    return f"{len(values)} values from {values[0]} to {values[-1]}"


# --------------------------------------------------------------------------- volume


@dataclass(frozen=True)
class Volume:
    """The pieces cannot fill what the container needs."""

    kind: ClassVar[str] = "volume"
    pieces: tuple[tuple[str, int, int, int], ...]
    """(name, size, fewest copies, most copies) of each piece."""
    required: int
    optional: int
    totals: tuple[int, ...]
    """Every volume a choice of copies gives (one value without ranges)."""

    @property
    def size(self) -> int:
        return 1

    def lines(self) -> list[str]:
        need = str(self.required) if not self.optional else f"{self.required} to {self.required + self.optional}"
        cells = "cells" if self.optional or self.required != 1 else "cell"
        if len(self.totals) == 1:
            terms = " + ".join(f"{hi}x{size}" if hi > 1 else str(size) for _, size, _, hi in self.pieces)
            return [f"Volume: the pieces fill {self.totals[0]} cells ({terms}); the container needs {need} {cells}."]
        return [f"Volume: the pieces, with their ranges of copies, fill {values_text(self.totals)} cells; "
                f"the container needs {need} {cells}."]

    def as_json(self) -> dict[str, object]:
        return {"pieces": [{"name": n, "size": s, "low": lo, "high": hi} for n, s, lo, hi in self.pieces],
                "required": self.required, "optional": self.optional, "totals": list(self.totals)}


def volume(puzzle: Puzzle) -> Volume | None:
    """The volume argument, when the pieces' possible volumes miss the container's needs (never tried when a
    piece's range of copies alone has more than MAX_SUMS values: the totals would not be listed anyway)."""
    pieces = tuple((p.name, p.size, p.low, p.count) for p in puzzle.pieces)
    if any(hi - lo >= MAX_SUMS for _, _, lo, hi in pieces):
        return None
    totals = _sums([[size * k for k in range(lo, hi + 1)] for _, size, lo, hi in pieces])
    required = len(puzzle.required)
    optional = len(puzzle.optional)
    if totals is None or any(required <= t <= required + optional for t in totals):
        return None
    return Volume(pieces, required, optional, tuple(totals))


# --------------------------------------------------------------------------- placements and cells


@dataclass(frozen=True)
class NoPlacement:
    """A piece that must be used fits nowhere."""

    kind: ClassVar[str] = "no-placement"
    piece: str
    extent: tuple[int, int, int]
    """The piece's bounding box, smallest side first."""
    container: tuple[int, int, int]
    colours: bool
    """It fits somewhere by shape, but nowhere that its colours are allowed."""

    @property
    def size(self) -> int:
        return 1

    def lines(self) -> list[str]:
        if self.colours:
            return [f"Piece {self.piece} fits in the container only where its colours are not allowed: "
                    "it has no placement."]
        box = "x".join(map(str, self.container))
        piece = "x".join(map(str, self.extent))
        return [f"Piece {self.piece} ({piece} at its smallest) fits nowhere in the container ({box}): "
                "in every orientation, somewhere it sticks out."]

    def as_json(self) -> dict[str, object]:
        return {"piece": self.piece, "extent": list(self.extent), "container": list(self.container),
                "colours": self.colours}


def no_placement(puzzle: Puzzle) -> NoPlacement | None:
    """The first piece that must be used and has no placement."""
    for piece in puzzle.pieces:
        if piece.low > 0 and not colored_placements(piece, puzzle):
            fits = bool(piece_placements(piece.shape, puzzle.container, puzzle.lattice))
            extent = tuple(sorted(bounding_size(piece.shape)))
            return NoPlacement(piece.name, extent, bounding_size(puzzle.container), fits)  # type: ignore[arg-type]
    return None


@dataclass(frozen=True)
class Uncovered:
    """Required cells that no placement of any piece covers."""

    kind: ClassVar[str] = "unreachable-cell"
    cells: tuple[Cell, ...]

    @property
    def size(self) -> int:
        return len(self.cells)

    def lines(self) -> list[str]:
        one = len(self.cells) == 1
        which = "cell" if one else f"{len(self.cells)} cells"
        return [f"No piece can reach {which} {cells_text(self.cells[:12])}{' ...' if len(self.cells) > 12 else ''}: "
                f"no placement of any piece covers {'it' if one else 'them'}, yet {'it' if one else 'they'} must be "
                "filled."]

    def as_json(self) -> dict[str, object]:
        return {"cells": [list(c) for c in self.cells]}


def uncovered(problem: ExactCoverProblem) -> Uncovered | None:
    optional = problem.optional_set
    cells = tuple(problem.cells[c] for c, rows in enumerate(problem.rows_by_cell) if not rows and c not in optional)
    return Uncovered(cells) if cells else None


# --------------------------------------------------------------------------- colourings


@dataclass(frozen=True)
class Scheme:
    """A colouring of the grid by linear rules: each part (a, b, c, m) is (a*x + b*y + c*z) mod m (m = 0:
    the value itself, a layer), and a cell's colour is the tuple of its parts' values."""

    name: str
    rule: str
    parts: tuple[tuple[int, int, int, int], ...]
    names: tuple[str, ...] = ()
    """Names for the colours 0, 1 of a two-colour scheme ("white", "black"); else they are described."""

    def value(self, cell: Cell) -> tuple[int, ...]:
        out = []
        for a, b, c, m in self.parts:
            v = a * cell[0] + b * cell[1] + c * cell[2]
            out.append(v % m if m else v)
        return tuple(out)

    def colour(self, cell: Cell) -> int:
        """The colour as one number (parts weighed by the moduli before them; a layer is its value)."""
        code, scale = 0, 1
        for v, (_, _, _, m) in zip(self.value(cell), self.parts, strict=True):
            code += v * scale
            scale *= m or 1
        return code

    def label(self, cell: Cell) -> str:
        v = self.value(cell)
        if self.names:
            return self.names[v[0]]
        if all(m == 2 for *_, m in self.parts):
            pairs = zip(self.parts, v, strict=True)
            return "(" + ", ".join(f"{_axis(p)} {'odd' if x else 'even'}" for p, x in pairs) + ")"
        return ", ".join(f"{_term(p)} = {x}" for p, x in zip(self.parts, v, strict=True))


def _term(part: tuple[int, int, int, int]) -> str:
    text = "".join(f"{'+' if k > 0 else '-'}{a}" for k, a in zip(part[:3], "xyz", strict=True) if k).lstrip("+")
    return f"({text}) mod {part[3]}" if part[3] and len(text) > 1 else f"{text} mod {part[3]}" if part[3] else text


def _axis(part: tuple[int, int, int, int]) -> str:
    return "xyz"[[abs(k) for k in part[:3]].index(1)]


def schemes() -> tuple[Scheme, ...]:
    """The colourings tried, the classic ones first (puzzle literature's: Conway's and the
    Slothouber-Graatsma puzzles are analysed with the parity of each coordinate)."""
    axes = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    out = [Scheme("checkerboard", "x+y+z even: white, odd: black", ((1, 1, 1, 2),), ("white", "black"))]
    out += [Scheme(f"stripes across {a}", f"{a} even: white, odd: black", ((*e, 2),), ("white", "black"))
            for a, e in zip("xyz", axes, strict=True)]
    out.append(Scheme("parity of every coordinate", "(x mod 2, y mod 2, z mod 2)", tuple((*e, 2) for e in axes)))
    for i, j in ((0, 1), (0, 2), (1, 2)):
        a, b = "xyz"[i], "xyz"[j]
        out.append(Scheme(f"parity of {a} and {b}", f"({a} mod 2, {b} mod 2)", ((*axes[i], 2), (*axes[j], 2))))
    for k in (3, 4):
        for signs in ((1, 1, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1)):
            part = (*signs, k)
            out.append(Scheme(f"diagonals mod {k}", _term(part), (part,)))
    named = list(zip("xyz", axes, strict=True))
    out += [Scheme(f"stripes of {k} across {a}", f"{a} mod {k}", ((*e, k),)) for k in (3, 4) for a, e in named]
    out += [Scheme(f"layers across {a}", f"each {a} its own colour", ((*e, 0),)) for a, e in named]
    return tuple(out)


@dataclass(frozen=True)
class ColourArgument:
    """Under a colouring and a weighting of its colours, the pieces' possible totals miss the container's."""

    kind: ClassVar[str] = "colouring"
    scheme: str
    rule: str
    colours: tuple[str, ...]
    """The colours the container has, by name, in the order of `weights` and the counts."""
    weights: tuple[int, ...]
    required: tuple[int, ...]
    """Required cells of each colour."""
    optional: tuple[int, ...]
    need: tuple[int, int]
    """The weighted count the container needs (lowest, highest: optional cells may stay empty)."""
    pieces: tuple[tuple[str, int, int, tuple[int, ...]], ...]
    """(name, fewest copies, most copies, the weighted counts one copy can cover wherever it lies)."""
    totals: tuple[int, ...]
    """Every weighted count the pieces together can cover."""

    @property
    def size(self) -> int:
        return sum(1 for w in self.weights if w)

    def measure(self) -> str:
        """What is counted, in words: 'white cells', or 'white cells minus black cells'."""
        terms: list[str] = []
        for name, w in zip(self.colours, self.weights, strict=True):
            if w:
                unit = f"{name} cells" if name in ("white", "black") else f"cells with {name}"
                sign = "" if not terms and w > 0 else (" minus " if w < 0 else " plus ")
                terms.append(f"{sign}{abs(w) if abs(w) != 1 else ''}{'x ' if abs(w) != 1 else ''}{unit}")
        return "".join(terms)

    def lines(self) -> list[str]:
        what = self.measure()
        counts = ", ".join(f"{n} {name}" for name, n in zip(self.colours, self.required, strict=True))
        extra = (", plus optional: " + ", ".join(f"{n} {name}" for name, n in zip(self.colours, self.optional,
                                                                                     strict=True) if n)
                 if any(self.optional) else "")
        need = str(self.need[0]) if self.need[0] == self.need[1] else f"{self.need[0]} to {self.need[1]}"
        out = [f"Colouring ({self.scheme}: {self.rule}); count {what}.",
               f"  The container has {counts}{extra}: it needs {need}."]
        for name, lo, hi, values in self.pieces:
            copies = "" if lo == hi == 1 else (f" ({hi} copies)" if lo == hi else f" ({lo} to {hi} copies)")
            where = "wherever it lies" if len(values) == 1 else "depending on where it lies"
            out.append(f"  each {name}{copies}: {values_text(values)}, {where}")
        out.append(f"  Together the pieces cover {values_text(self.totals)}, never {need}: no assembly.")
        return out

    def as_json(self) -> dict[str, object]:
        return {"scheme": self.scheme, "rule": self.rule, "colours": list(self.colours),
                "weights": list(self.weights), "required": list(self.required), "optional": list(self.optional),
                "need": list(self.need),
                "pieces": [{"name": n, "low": lo, "high": hi, "values": list(v)} for n, lo, hi, v in self.pieces],
                "totals": list(self.totals)}


def _weightings(k: int) -> list[tuple[int, ...]]:
    """The weightings tried for k colours: each colour alone, then (few colours) every +-1 combination,
    (many) every difference of two; never all colours alike (that is the volume)."""
    units = [tuple(int(i == j) for j in range(k)) for i in range(k)]
    if k <= 4:
        signed = [w for w in itertools.product((0, 1, -1), repeat=k)
                  if any(w) and next(x for x in w if x) > 0 and len(set(w)) > 1 and w not in units]
    else:
        signed = [tuple(1 if j == a else -1 if j == b else 0 for j in range(k)) for a, b in itertools.combinations(
            range(k), 2)]
    return units + signed


class Deadline(Exception):
    """The deadline passed while the colourings were tried (`colouring`)."""


def colouring(puzzle: Puzzle, problem: ExactCoverProblem, deadline: float | None = None) -> ColourArgument | None:
    """The first colouring and weighting (in `schemes()` order) that refutes the puzzle, or None. Raises
    `Deadline` once `deadline` (a `time.perf_counter()` value) has passed: on a large box of many copies
    (a 12x12x12 box of dominoes) the colourings alone took 90 s."""
    optional = problem.optional_set
    for scheme in schemes():
        _check(deadline)
        raw = [scheme.colour(c) for c in problem.cells]
        present = sorted(set(raw))
        names = {scheme.colour(c): scheme.label(c) for c in problem.cells}
        if len(present) < 2 or len(present) > 8:
            continue
        slot = {v: i for i, v in enumerate(present)}
        colour_of = [slot[v] for v in raw]
        k = len(present)
        required = [0] * k
        spare = [0] * k
        for c, col in enumerate(colour_of):
            (spare if c in optional else required)[col] += 1
        vectors: list[set[tuple[int, ...]]] = []
        for rows in problem.rows_by_piece:
            _check(deadline)
            seen: set[tuple[int, ...]] = set()
            for r in rows:
                v = [0] * k
                for c in problem.rows[r].cells:
                    v[colour_of[c]] += 1
                seen.add(tuple(v))
            vectors.append(seen)
        for w in _weightings(k):
            found = _refutes(problem, vectors, required, spare, w, deadline)
            if found is not None:
                need, values, totals = found
                return ColourArgument(
                    scheme.name, scheme.rule, tuple(names[v] for v in present), w, tuple(required),
                    tuple(spare), need,
                    tuple((problem.piece_names[p], problem.piece_low[p], problem.piece_counts[p], values[p])
                          for p in range(problem.n_pieces)), totals)
    return None


def _refutes(problem: ExactCoverProblem, vectors: Sequence[set[tuple[int, ...]]], required: Sequence[int],
             spare: Sequence[int], w: Sequence[int], deadline: float | None = None
             ) -> tuple[tuple[int, int], list[tuple[int, ...]], tuple[int, ...]] | None:
    need = _need(required, spare, w)
    values = [tuple(sorted({sum(a * b for a, b in zip(w, v, strict=True)) for v in vs})) for vs in vectors]
    choices = []
    for p, vals in enumerate(values):
        lo, hi = problem.piece_low[p], problem.piece_counts[p]
        if not vals:
            if lo:
                return None  # a piece without placements: the argument for that comes earlier
            continue
        fit = fitting(hi, lo, len(problem.rows[problem.rows_by_piece[p][0]].cells), problem.n_cells)
        if fit is None:
            return None  # more copies must be used than fit: the volume's argument, not a colouring's
        per_copy = list(vals)
        for copy in range(fit):
            choices.append(per_copy if copy < lo else [0, *per_copy])
    totals = _sums(choices, deadline)
    if totals is None or any(need[0] <= t <= need[1] for t in totals):
        return None
    return need, values, tuple(totals)


def _need(required: Sequence[int], spare: Sequence[int], w: Sequence[int]) -> tuple[int, int]:
    """The weighted count of the cells a solution covers: every required cell, any optional ones."""
    lo = sum(wi * r + min(0, wi * s) for wi, r, s in zip(w, required, spare, strict=True))
    hi = sum(wi * r + max(0, wi * s) for wi, r, s in zip(w, required, spare, strict=True))
    return lo, hi


def _check(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise Deadline


def fitting(count: int, low: int, size: int, cells: int) -> int | None:
    """The copies of a piece a colouring counts: at most `count`, and no more than fit in `cells` (a piece
    given a billion copies contributes the few that can lie in the container); None when more than fit
    must be used (no colouring is needed to say there is no assembly)."""
    fit = cells // size
    return None if low > fit else min(count, fit)


def _sums(choices: Sequence[Sequence[int]], deadline: float | None = None) -> list[int] | None:
    """Every total of one value from each list (None when the set grows past MAX_SUMS); raises `Deadline` once
    `deadline` has passed."""
    totals = {0}
    for options in choices:
        _check(deadline)
        totals = {t + v for t in totals for v in set(options)}
        if len(totals) > MAX_SUMS:
            return None
    return sorted(totals)


# --------------------------------------------------------------------------- re-checks


Argument = Volume | NoPlacement | Uncovered | ColourArgument


def recheck(puzzle: Puzzle, found: Argument) -> str | None:
    """Re-derive an argument from the puzzle itself, by other means; None when it holds, else why not.

    Volume: from the pieces' sizes and ranges. A piece without placement: every rotation and every
    shift that puts one of its cells on a container cell is tried. An unreachable cell: every
    rotation of every piece, with each of its cells put on that cell. A colouring: each piece's
    placements generated from the puzzle (not the problem's rows), totals as shifted bit sets.
    """
    if isinstance(found, Volume):
        return _recheck_volume(puzzle, found)
    if isinstance(found, NoPlacement):
        piece = next(p for p in puzzle.pieces if p.name == found.piece)
        return None if not _placements_through(puzzle, piece.shape, None, piece) else "it has a placement"
    if isinstance(found, Uncovered):
        for cell in found.cells:
            for piece in puzzle.pieces:
                if _placements_through(puzzle, piece.shape, cell, piece):
                    return f"piece {piece.name} covers {list(cell)}"
        return None
    return _recheck_colouring(puzzle, found)


def _recheck_volume(puzzle: Puzzle, found: Volume) -> str | None:
    """Every total volume as bits of one number, each past the container's size saturated into the bit
    `over`: a total past the container fills nothing more than another, so a billion copies cost no more
    than the few that fit (they made a 2,000,000,000-bit number, 40 s)."""
    over = len(puzzle.container) + 1
    low_bits = (1 << over) - 1

    def saturated(bits: int) -> int:
        return (bits & low_bits) | ((bits >> over != 0) << over)

    possible = 1  # bit t set: total volume t can be made (bit `over`: `over` or more)
    for piece in puzzle.pieces:
        step = 0
        for k in range(piece.low, piece.count + 1):
            step |= saturated(possible << min(piece.size * k, over))
            if piece.size * k >= over:  # every further copy is past the container too
                break
        possible = step
    need = range(len(puzzle.required), len(puzzle.container) + 1)
    if any(possible >> t & 1 for t in need):
        return "a choice of copies fills the container"
    made = tuple(t for t in range(over + 1) if possible >> t & 1)
    claimed = tuple(sorted({min(t, over) for t in found.totals}))
    return None if made == claimed else f"the totals are {made}, not {found.totals}"


def _placements_through(puzzle: Puzzle, shape: Sequence[Cell], cell: Cell | None, piece: object) -> bool:
    """Whether some rotation and shift of `shape` lies in the container (and through `cell`, when
    given) with the piece's colours allowed: every rotation, every cell of the shape on every
    container cell (or on `cell`)."""
    inside = set(puzzle.container)
    paint = dict(puzzle.container_colors)
    colours = dict(getattr(piece, "colors", ()))
    targets = [cell] if cell is not None else list(puzzle.container)
    grid = puzzle.lattice
    for moved in grid.turned(shape):  # the grid's rotations; a shift only where it keeps the cells' kinds
        for anchor in moved:
            for target in targets:
                if grid.kind(anchor) != grid.kind(target):
                    continue
                d = (target[0] - anchor[0], target[1] - anchor[1], target[2] - anchor[2])
                placed = [(m[0] + d[0], m[1] + d[1], m[2] + d[2]) for m in moved]
                if all(q in inside for q in placed) and all(
                        puzzle.color_allows(colours.get(s), paint.get(q)) for s, q in zip(shape, placed, strict=True)):
                    return True
    return False


def _recheck_colouring(puzzle: Puzzle, found: ColourArgument) -> str | None:
    scheme = next(s for s in schemes() if s.name == found.scheme and s.rule == found.rule)
    names = {scheme.colour(c): scheme.label(c) for c in puzzle.container}
    present = sorted(names)
    if tuple(names[v] for v in present) != found.colours:
        return "the container's colours differ"
    weight = {v: w for v, w in zip(present, found.weights, strict=True)}
    optional = set(puzzle.optional)
    req = sum(weight[scheme.colour(c)] for c in puzzle.container if c not in optional)
    lo = req + sum(min(0, weight[scheme.colour(c)]) for c in optional)
    hi = req + sum(max(0, weight[scheme.colour(c)]) for c in optional)
    if (lo, hi) != found.need:
        return f"the container needs {lo} to {hi}, not {found.need}"
    cells = len(puzzle.container)
    copies = {p.name: fitting(p.count, p.low, p.size, cells) or 0 for p in puzzle.pieces}
    offset = sum(p.size * copies[p.name] for p in puzzle.pieces) * max(map(abs, found.weights))
    possible = 1 << offset  # bit offset + t set: weighted total t can be made
    for piece in puzzle.pieces:
        values = {sum(weight[scheme.colour(c)] for c in cells) for cells in colored_placements(piece, puzzle)}
        for copy in range(copies[piece.name]):
            step = possible if copy >= piece.low else 0
            for v in values:
                step |= possible << v if v >= 0 else possible >> -v
            possible = step
    made = tuple(t - offset for t in range(possible.bit_length()) if possible >> t & 1)
    if any(lo <= t <= hi for t in made):
        return "the pieces can cover what the container needs"
    return None if made == found.totals else f"the totals are {made[:5]}..., not {found.totals[:5]}..."

