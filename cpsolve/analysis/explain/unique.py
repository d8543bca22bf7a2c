"""Why a puzzle has one solution, or why not: the placements its solutions share and those they differ on.

For a designer (the explanation side of `cpsolve design unique`, which finds the change that makes a
puzzle unique):

- **several solutions**: the classes found are each turned (by the container's rotations, and its
  reflections when mirror images count as the same) to agree with the first on as many placements
  as possible; the placements every one of them shares are the *backbone*, the pieces that move are
  what makes the solutions differ, and each class is listed with the pieces where it differs.
- **one solution**: with the key piece where it lies in that solution (every assembly can be turned
  to put it there), which placements follow by elimination alone: a cell that only one placement can
  still cover, a piece with only one place left, a placement that leads at once to a dead end
  (failed-literal probing). When elimination places every piece, that *is* why the puzzle is unique.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ...problem.placements import ExactCoverProblem
from ...problem.symmetry import SymmetryElement
from ...puzzle.geometry import Cell

Placement = tuple[int, tuple[int, ...]]
"""(piece index, sorted cell indices), as the enumeration's solution classes hold them."""
MAX_LISTED = 10


@dataclass(frozen=True)
class Uniqueness:
    """The solution classes found, what they share, and (one class) what elimination forces."""

    case: str
    """'unique' or 'several'."""
    classes: int
    complete: bool
    """All classes were enumerated (False: stopped at a limit or the deadline)."""
    assemblies: int
    """Assemblies in the classes found (rotated and mirrored copies distinct)."""
    backbone: tuple[tuple[str, tuple[Cell, ...]], ...]
    """Placements (piece, cells) that every class, turned to agree with the first, shares."""
    moving: tuple[tuple[str, int], ...]
    """Pieces not in the backbone, with how many different placements they take over the classes."""
    differences: tuple[tuple[int, tuple[str, ...]], ...]
    """(class, the pieces it places differently from class 0) for the first few classes."""
    key: str | None = None
    forced: tuple[tuple[str, tuple[Cell, ...], str], ...] = ()
    """One class: (piece, cells, why) for each placement elimination forces, in order."""
    eliminated: int = 0
    """Placements ruled out by probing on the way."""
    forced_all: bool = False
    solution: tuple[tuple[str, tuple[Cell, ...]], ...] = ()
    """Solution 0, as (label, cells): what the pictures draw."""

    kind: ClassVar[str] = "backbone"

    @property
    def size(self) -> int:
        return len(self.backbone) if self.case == "several" else len(self.forced)

    def lines(self) -> list[str]:
        if self.case == "unique":
            out = [f"One solution class ({self.assemblies} assemblies, its rotated and mirrored copies)."]
            if self.key is not None:
                forced = f"{len(self.forced)} placement{'s' if len(self.forced) != 1 else ''}"
                probing = f", ruling out {self.eliminated} others by probing" if self.eliminated else ""
                out.append(f"With {self.key} where it lies (every assembly can be turned to put it there), "
                           f"elimination alone forces {forced}{probing}:")
                for piece, _, why in self.forced[:40]:
                    out.append(f"  {piece}: {why}")
                out.append("  every piece is placed: that is why the puzzle is unique." if self.forced_all else
                           "  the rest takes search: elimination stalls before every piece is placed.")
            return out
        more = "" if self.complete else " (at least: the enumeration stopped there)"
        out = [f"{self.classes} solution classes{more}, {self.assemblies} assemblies."]
        if self.backbone:
            shared = Counter(p for p, _ in self.backbone)
            out.append(f"Turned to agree with solution 0 as far as they can, all share {len(self.backbone)} "
                       f"placement{'s' if len(self.backbone) != 1 else ''} (the backbone): "
                       + ", ".join(p if k == 1 else f"{p} ({k} copies)" for p, k in shared.items()) + ".")
        else:
            out.append("Turned to agree with solution 0 as far as they can, they share no placement.")
        if self.moving:
            out.append("The solutions differ in " + ", ".join(f"{p} ({n} places)" for p, n in self.moving) + ".")
        for index, pieces in self.differences[:MAX_LISTED]:
            out.append(f"  solution {index} differs from solution 0 in {' '.join(pieces)}")
        out.append("`cpsolve design unique` finds the smallest change (a piece fixed, a mark, a hole) that leaves one.")
        return out

    def as_json(self) -> dict[str, object]:
        return {"classes": self.classes, "complete": self.complete, "assemblies": self.assemblies,
                "backbone": [{"piece": p, "cells": [list(c) for c in cells]} for p, cells in self.backbone],
                "moving": [{"piece": p, "placements": n} for p, n in self.moving],
                "differences": [{"solution": i, "pieces": list(p)} for i, p in self.differences],
                "key": self.key,
                "forced": [{"piece": p, "cells": [list(c) for c in cells], "why": w} for p, cells, w in self.forced],
                "eliminated": self.eliminated, "forced_all": self.forced_all}


def moved(problem: ExactCoverProblem, placements: Sequence[Placement], g: SymmetryElement) -> set[Placement]:
    """Placements moved by a symmetry (a reflection swaps each chiral piece with its mirror partner)."""
    mirror = problem.mirror_labels if g.is_reflection and problem.mirror_labels is not None else None
    return {((mirror[p] if mirror is not None else p), tuple(sorted(g.perm[c] for c in cells)))
            for p, cells in placements}


def compare(problem: ExactCoverProblem, group: Sequence[SymmetryElement], classes: Sequence[Sequence[Placement]],
            assemblies: int, complete: bool) -> Uniqueness:
    """What several solution classes share, each turned to agree most with the first."""
    use = [g for g in group if not g.is_reflection or problem.mirror_labels is not None]
    first = set(classes[0])
    aligned = [first]
    for cls in classes[1:]:
        aligned.append(max((moved(problem, cls, g) for g in use), key=lambda s: len(s & first)))
    shared = set.intersection(*aligned)
    backbone = tuple(sorted((problem.piece_names[p], tuple(problem.cells[c] for c in cells)) for p, cells in shared))
    places: dict[str, set[tuple[int, ...]]] = {}
    for s in aligned:
        for p, cells in s - shared:
            places.setdefault(problem.piece_names[p], set()).add(cells)
    moving = tuple(sorted(((name, len(v)) for name, v in places.items()), key=lambda t: (-t[1], t[0])))
    differences = tuple((i, tuple(sorted(problem.piece_names[p] for p, _ in s - first)))
                        for i, s in enumerate(aligned[1:MAX_LISTED + 1], start=1))
    return Uniqueness("several", len(classes), complete, assemblies, backbone, moving, differences)


def forced_by_elimination(problem: ExactCoverProblem, start: Sequence[Placement], why: str,
                          deadline: float | None = None) -> tuple[tuple[tuple[int, str], ...], int, bool]:
    """From the `start` placements (the key's, in the one solution), the rows forced by elimination, in
    order, each with why; the number of rows probing ruled out; and whether every piece got placed.

    Elimination: a required cell with one live row left, or a piece with as many live rows left as
    copies still to place, forces those rows; with nothing forced, each live row is tried alone and
    dropped when that leads straight to a dead end (a cell or piece with nothing left)."""
    index = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    state = _State.initial(problem)
    trace: list[tuple[int, str]] = []
    for placement in start:
        r = index[placement]
        state.choose(r)
        trace.append((r, why))
    eliminated = 0
    while not state.done():
        if deadline is not None and time.perf_counter() > deadline:
            break
        step = state.unit()
        if step is None:
            return tuple(trace), eliminated, False  # cannot happen on a solvable puzzle from its own placement
        if step:
            trace += step
            continue
        dropped = [r for r in sorted(state.live) if state.fails_with(r)]
        if not dropped:
            break
        eliminated += len(dropped)
        state.live.difference_update(dropped)
    return tuple(trace), eliminated, state.done()


class _State:
    """Chosen rows, covered cells, copies left, and the rows still possible (elimination's state)."""

    def __init__(self, problem: ExactCoverProblem, live: set[int], covered: set[int], left: list[int],
                 need: list[int]):
        self.problem, self.live, self.covered, self.left, self.need = problem, live, covered, left, need

    @staticmethod
    def initial(problem: ExactCoverProblem) -> _State:
        return _State(problem, set(range(len(problem.rows))), set(), list(problem.piece_counts),
                      list(problem.piece_low))

    def copy(self) -> _State:
        return _State(self.problem, set(self.live), set(self.covered), list(self.left), list(self.need))

    def done(self) -> bool:
        return not any(self.need) and self.covered.issuperset(self.problem.required)

    def choose(self, r: int) -> None:
        row = self.problem.rows[r]
        self.covered.update(row.cells)
        self.left[row.piece] -= 1
        self.need[row.piece] = max(0, self.need[row.piece] - 1)
        self.live.discard(r)
        by_cell = self.problem.rows_by_cell
        for c in row.cells:
            self.live.difference_update(by_cell[c])
        if self.left[row.piece] == 0:
            self.live.difference_update(self.problem.rows_by_piece[row.piece])

    def unit(self) -> list[tuple[int, str]] | None:
        """Rows forced right now (with why), [] when none, None at a dead end."""
        problem = self.problem
        for c in problem.required:
            if c in self.covered:
                continue
            rows = [r for r in problem.rows_by_cell[c] if r in self.live]
            if not rows:
                return None
            if len(rows) == 1:
                self.choose(rows[0])
                return [(rows[0], f"the only way left to cover [{','.join(map(str, problem.cells[c]))}]")]
        for p, need in enumerate(self.need):
            if need:
                rows = [r for r in problem.rows_by_piece[p] if r in self.live]
                if len(rows) < need:
                    return None
                if len(rows) == need:
                    for r in rows:
                        self.choose(r)
                    return [(r, f"the only place left for {problem.piece_names[p]}") for r in rows]
        return []

    def fails_with(self, r: int) -> bool:
        """Whether choosing row r leads, by forced rows alone, to a dead end."""
        trial = self.copy()
        trial.choose(r)
        while not trial.done():
            step = trial.unit()
            if step is None:
                return True
            if not step:
                return False
        return False
