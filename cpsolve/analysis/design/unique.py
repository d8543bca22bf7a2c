"""Making a puzzle unique: the smallest change that leaves exactly one way to assemble it.

Three kinds of change (`suggest_changes`), each found by counting over one pass of the assemblies
and each proved by enumerating the changed puzzle's own file:

- **fix** (here): a piece glued in place. Fixing it at placement p leaves the assemblies that use
  p, and nothing else; no symmetry is left to divide by except what fixes p, which maps a unique
  completion onto itself. So "fixing p makes the puzzle unique" is the statement "exactly one
  assembly uses p", which a single pass over all assemblies (the unbroken problem, every rotated
  copy) answers for every placement at once: count how often each row occurs. When no single
  placement occurs exactly once, the same count over pairs of rows of one assembly finds the pairs.
- **mark** (`marks.py`): a container cell and one cube of a piece painted the same colour.
- **hole** (`holes.py`): a cell taken out of the container (it must stay empty).

Every suggestion is written as a puzzle file (`files.puzzle_yaml`) and that file, read back by the
loader, is enumerated by the normal code path: its total must be 1.

A CP-SAT model ("minimise the change subject to exactly one solution") is not used: "exactly
one" quantifies over all solutions, which a single CP-SAT model cannot state without enumerating
them; the counting pass here is exact and takes one enumeration.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...errors import CpsolveError
from ...problem.symmetry import rotations_of, row_orbits
from ...puzzle.geometry import Cell
from ...puzzle.model import Puzzle
from .changes import Change, ChangeReport, assemblies_of, prove
from .files import origin_of, puzzle_yaml, shifted, total_of_text
from .holes import suggest_holes
from .marks import suggest_marks


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
        total = (total_of_text(puzzle_text(puzzle, Fix(fixed, orbit_size), puzzle.name + "-fixed", "suggest"),
                               puzzle.name + "-fixed", backend) if verify else None)
        out.append(Fix(fixed, orbit_size, total))
    return UniqueReport(puzzle.name, len(found), tuple(out), size, candidates)


def reduced(puzzle: Puzzle, fixed: Sequence[tuple[str, Sequence[Cell]]], name: str | None = None) -> Puzzle:
    """The puzzle with the fixed pieces taken out and their cells removed from the container.

    Everything else is kept (optional cells, colours and their rules, ranges, groups): the reduced
    puzzle's assemblies are then exactly the original's assemblies that use the fixed placements.
    A range loses as many copies at both ends as were fixed (never below 0 at the low end).
    """
    taken = {c for _, cells in fixed for c in cells}
    used = Counter(n for n, _ in fixed)
    pieces = []
    for p in puzzle.pieces:
        if p.count <= used[p.name]:
            continue
        count, low = p.count - used[p.name], max(p.low - used[p.name], 0)
        pieces.append(replace(p, count=count, min_count=None if low == count else low))
    names = {p.name for p in pieces}
    return replace(
        puzzle, name=name or f"{puzzle.name}-fixed",
        container=tuple(c for c in puzzle.container if c not in taken), pieces=tuple(pieces),
        optional=tuple(c for c in puzzle.optional if c not in taken),
        container_colors=tuple((c, k) for c, k in puzzle.container_colors if c not in taken),
        key_piece=puzzle.key_piece if puzzle.key_piece in names else None,
        groups=tuple(g & names for g in puzzle.groups if g & names), reference=None, origin=None)


def _where(cells: Sequence[Cell], origin: Cell) -> str:
    return json.dumps([shifted(c, origin) for c in cells])


def fix_words(puzzle: Puzzle, fix: Fix) -> str:
    """'T at [[...]]; L at [[...]]', cells in the file's coordinates."""
    lo = origin_of(puzzle.container, puzzle.grid)
    return "; ".join(f"{n} at {_where(cells, lo)}" for n, cells in fix.pieces)


def fixed_puzzle(puzzle: Puzzle, fix: Fix, name: str) -> Puzzle:
    """The reduced puzzle, saying in its description what was fixed."""
    return replace(reduced(puzzle, fix.pieces, name),
                   description=f"{puzzle.name} with {fix_words(puzzle, fix)} fixed in place (its cells left out)")


def puzzle_text(puzzle: Puzzle, fix: Fix, name: str, source: str) -> str:
    """The reduced puzzle as a file: the container drawn with the fixed pieces' cells left out."""
    return puzzle_yaml(fixed_puzzle(puzzle, fix, name), puzzle.container, source, fix.verified_total)


# ------------------------------------------------------------------------------ every kind of change

KINDS = ("fix", "mark", "hole")


def suggest_changes(puzzle: Puzzle, kind: str = "fix", backend: str = "auto", limit: int = 5,
                    verify: bool = True, max_assemblies: int = 500_000, source: str | None = None) -> ChangeReport:
    """The fewest changes of one kind (one, else two) that leave exactly one assembly, each proved.

    `source` goes into each file (default: the command that makes it).
    """
    if kind not in KINDS:
        raise CpsolveError(f"unknown change {kind!r} (one of {', '.join(KINDS)})", field="change")
    source = source or f"cpsolve design unique {puzzle.name} --change {kind}"
    if kind == "mark":
        return suggest_marks(puzzle, backend, limit, verify, max_assemblies, source)
    if kind == "hole":
        return suggest_holes(puzzle, backend, limit, verify, max_assemblies, source)
    report = suggest(puzzle, backend, limit, verify=False, max_assemblies=max_assemblies)
    lo = origin_of(puzzle.container, puzzle.grid)
    changes = []
    for i, fix in enumerate(report.fixes):
        name = f"{puzzle.name}-fixed-{i + 1}"
        text, total = prove(puzzle, fixed_puzzle(puzzle, fix, name), source, backend, verify)
        detail: dict[str, object] = {"fixed": [{"piece": n, "cells": [shifted(c, lo) for c in cells]}
                                               for n, cells in fix.pieces]}
        changes.append(Change("fix", f"fix {fix_words(puzzle, fix)}", detail, name, text, fix.orbit, total))
    return ChangeReport(puzzle.name, "fix", report.assemblies, report.size, report.candidates, tuple(changes))
