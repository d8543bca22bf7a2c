"""Making a puzzle unique: which pieces, fixed in place, leave exactly one way to finish it?

A piece fixed at placement p (the designer glues it in, or prints it on the box) leaves the
assemblies that use p, and nothing else; no symmetry is left to divide by except what fixes p,
which maps a unique completion onto itself. So "fixing p makes the puzzle unique" is the statement
"exactly one assembly uses p", which a single pass over all assemblies (the unbroken problem, every
rotated copy) answers for every placement at once: count how often each row occurs. When no single
placement occurs exactly once, the same count over pairs of rows of one assembly finds the pairs.

Every suggestion is then proved by an independent enumeration of the reduced puzzle (the fixed
pieces taken out, their cells removed from the container): its total must be 1.

A CP-SAT model ("minimise the fixed pieces subject to exactly one solution") is not used: "exactly
one" quantifies over all solutions, which a single CP-SAT model cannot state without enumerating
them; the counting pass here is exact and takes one enumeration.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import CpsolveError
from ...problem.symmetry import rotations_of, row_orbits
from ...puzzle.geometry import Cell
from ...puzzle.model import Piece, Puzzle


@dataclass(frozen=True)
class Fix:
    """Some pieces fixed at given cells, and what the reduced puzzle's enumeration says."""

    pieces: tuple[tuple[str, tuple[Cell, ...]], ...]
    orbit: int
    """How many placements (of the first piece) are equivalent to this one under the container's rotations."""
    verified_total: int | None = None


@dataclass(frozen=True)
class UniqueReport:
    puzzle: str
    assemblies: int
    fixes: tuple[Fix, ...]
    """One per orbit of placements (or pairs) that make the puzzle unique, at most `limit`."""
    size: int
    """How many pieces each fix fixes (1 or 2; 0 when none was found)."""
    candidates: int
    """How many placements (or pairs) occur in exactly one assembly, before grouping by orbit."""


def assemblies_of(puzzle: Puzzle, backend: str = "auto",
                  max_assemblies: int = 500_000) -> tuple[object, list[tuple[int, ...]]]:
    """Every assembly of the puzzle (rows of its unbroken problem), or an error when there are too many."""
    from ...search.backends import for_problem
    from ...search.enumeration import prepare

    if puzzle.kind != "pieces":
        raise CpsolveError("design unique works on packings (fixing a cube of a chain is not a piece change)",
                           where=puzzle.origin or puzzle.name, field="kind")
    prepared = prepare(puzzle, symmetry_breaking=False)
    found: list[tuple[int, ...]] = []

    def keep(rows: tuple[int, ...]) -> bool:
        found.append(rows)
        return len(found) > max_assemblies

    engine = for_problem(backend, prepared.problem)
    engine.search(prepared.problem, keep)
    if len(found) > max_assemblies:
        raise CpsolveError(f"more than {max_assemblies} assemblies: too many to count placements over",
                           where=puzzle.name, exit_code=1)
    return prepared, found


def suggest(puzzle: Puzzle, backend: str = "auto", limit: int = 10, verify: bool = True,
            max_assemblies: int = 500_000) -> UniqueReport:
    """Fixes of one piece (else two) that leave exactly one assembly, one per orbit, each verified."""
    from ...search.enumeration import Prepared

    prepared, found = assemblies_of(puzzle, backend, max_assemblies)
    assert isinstance(prepared, Prepared)
    problem = prepared.problem
    usable = set(range(len(problem.rows)))  # a copy of a repeated piece can be fixed as well
    rotations = rotations_of(prepared.group)
    once = [r for r, k in Counter(r for rows in found for r in rows if r in usable).items() if k == 1]
    fixes: list[tuple[tuple[int, ...], int]] = []
    if once:
        fixes = [((o[0],), len(o)) for o in row_orbits(problem, sorted(once), rotations)]
        size, candidates = 1, len(once)
    else:
        pairs = Counter(pair for rows in found
                        for pair in itertools.combinations(sorted(r for r in rows if r in usable), 2))
        unique_pairs = sorted(p for p, k in pairs.items() if k == 1)
        lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}

        def moved(r: int, perm: Sequence[int]) -> int:
            return lookup[(problem.rows[r].piece, tuple(sorted(perm[c] for c in problem.rows[r].cells)))]

        seen: set[tuple[int, ...]] = set()
        for pair in unique_pairs:
            if pair in seen:
                continue
            orbit = {tuple(sorted(moved(r, g.perm) for r in pair)) for g in rotations}
            seen |= orbit
            fixes.append((pair, len(orbit)))
        size, candidates = (2, len(unique_pairs)) if unique_pairs else (0, 0)
    out = []
    for rows, orbit_size in fixes[:limit]:
        fixed = tuple((problem.piece_names[problem.rows[r].piece],
                       tuple(problem.cells[c] for c in problem.rows[r].cells)) for r in rows)
        total = reduced_total(puzzle, fixed, backend) if verify else None
        out.append(Fix(fixed, orbit_size, total))
    return UniqueReport(puzzle.name, len(found), tuple(out), size, candidates)


def reduced(puzzle: Puzzle, fixed: Sequence[tuple[str, Sequence[Cell]]], name: str | None = None) -> Puzzle:
    """The puzzle with the fixed pieces taken out and their cells removed from the container."""
    taken = {c for _, cells in fixed for c in cells}
    used = Counter(n for n, _ in fixed)
    container = tuple(c for c in puzzle.container if c not in taken)
    pieces = tuple(Piece(p.name, p.shape, p.count - used[p.name], p.color) for p in puzzle.pieces
                   if p.count > used[p.name])
    return Puzzle(name or f"{puzzle.name}-fixed", container, pieces, source=puzzle.source)


def reduced_total(puzzle: Puzzle, fixed: Sequence[tuple[str, Sequence[Cell]]], backend: str = "auto") -> int:
    """Assemblies of the reduced puzzle: 1 proves the fix makes the puzzle unique."""
    from ...search.backends import for_problem
    from ...search.enumeration import enumerate_classes, prepare

    prepared = prepare(reduced(puzzle, fixed))
    result = enumerate_classes(prepared, for_problem(backend, prepared.problem))
    return int(result.tally.total)


def puzzle_text(puzzle: Puzzle, fix: Fix, name: str, source: str) -> str:
    """The reduced puzzle as a file: the container drawn with the fixed pieces' cells left out."""
    import json

    small = reduced(puzzle, fix.pieces, name)
    xs, ys, zs = (range(min(c[i] for c in puzzle.container), max(c[i] for c in puzzle.container) + 1)
                  for i in range(3))
    cells = set(small.container)
    layers = [["".join("#" if (x, y, z) in cells else "." for x in xs) for y in ys] for z in zs]
    fixed = "; ".join(f"{n} at {json.dumps([list(c) for c in cells_])}" for n, cells_ in fix.pieces)
    lines = [f"name: {name}",
             f"description: {json.dumps(f'{puzzle.name} with {fixed} fixed in place (its cells left out)')}",
             f"source: {json.dumps(source)}",
             "container:",
             "  layers:"]
    lines += [f"    - {json.dumps(layer)}" for layer in layers]
    lines.append("pieces:")
    for p in small.pieces:
        lines.append(f"  {json.dumps(p.name)}: {{cells: {json.dumps([list(c) for c in p.shape])}"
                     + (f", count: {p.count}" if p.count > 1 else "") + "}")
    if fix.verified_total is not None:
        lines += ["reference:", f"  total: {fix.verified_total}", f"  source: {json.dumps(source)}"]
    return "\n".join(lines) + "\n"


