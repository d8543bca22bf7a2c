"""How a search is cut into parts: one per kept placement of the key piece (`subproblems`), split further
by the engine's own first choice (`split`) until a pool of workers has enough to share (`plan`); and the
check that a journal's parts still partition the search (`tiles`).

Every solution lies under exactly one part, so parts can run anywhere, in any order, and be counted
apart: the enumeration, its journal, the workers and a Dask cluster all take their parts from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..problem.placements import ExactCoverProblem, bit_indices
from ..problem.symmetry import BrokenProblem


def subproblems(broken: BrokenProblem) -> list[tuple[int, ...]]:
    """Forced-row prefixes that partition the search: one per kept key placement, or the whole."""
    return broken.starts


def plan(broken: BrokenProblem, workers: int, per_worker: int = 64) -> list[tuple[int, ...]]:
    """The subproblems to run: one per key placement, split further until a pool has enough to share.

    Parts differ in size by orders of magnitude, so a pool needs several per worker to stay busy to
    the end (`per_worker`, the backend's `parts_per_worker`); a serial run keeps the coarse split
    (its progress is just as useful).
    """
    parts = subproblems(broken)
    if workers <= 1:
        return parts
    for _ in range(3):
        if len(parts) >= per_worker * workers:
            break
        parts = [deeper for forced in parts for deeper in split(broken.problem, forced)]
    return parts


def split(problem: ExactCoverProblem, forced: tuple[int, ...]) -> list[tuple[int, ...]]:
    """`forced` extended by each placement of the engine's own first choice below it.

    The choice is the engine's (see `xcover_twin`): the free required cell with the fewest live
    placements, unless a piece with one copy left, and needed, has strictly fewer. Every solution
    containing `forced` uses exactly one of those placements, so the parts partition the solutions
    (none lost or found twice); and being the engine's choice, the parts' trees together are the
    serial search's tree (a cell chosen instead of the engine's piece made Bedlam without symmetry
    breaking search 40 % more on two workers). A dead prefix yields [].
    """
    covered = {c for r in forced for c in problem.rows[r].cells}
    if covered.issuperset(problem.required):  # optional cells may stay empty: no cell to split on
        return [forced]
    left = list(problem.piece_counts)
    need = list(problem.piece_low)
    for r in forced:
        left[problem.rows[r].piece] -= 1
        need[problem.rows[r].piece] -= 1
    by_cell, by_piece = problem.cell_row_bits, problem.piece_row_bits
    live = 0  # the rows still possible: of a piece with copies left, clear of the covered cells
    for p, k in enumerate(left):
        if k > 0:
            live |= by_piece[p]
    for c in covered:
        live &= ~by_cell[c]
    fewest, n_fewest = 0, math.inf  # always replaced: a free required cell exists (checked above)
    for c in problem.required:  # the first cell with the fewest live rows, in the engine's order
        if c not in covered and (n := (by_cell[c] & live).bit_count()) < n_fewest:
            fewest, n_fewest = by_cell[c] & live, n
    for p in range(problem.n_pieces):
        if left[p] == 1 and need[p] == 1 and (n := (by_piece[p] & live).bit_count()) < n_fewest:
            fewest, n_fewest = by_piece[p] & live, n
    return [(*forced, r) for r in bit_indices(fewest)]


def tiles(broken: BrokenProblem, parts: Sequence[tuple[int, ...]]) -> bool:
    """Whether `parts` partition the search as `plan` splits it: they are the leaves of a tree grown from
    the key's starts by `split`, each reached once (dead branches, which `split` drops, aside). A
    journal's planned parts must, or the counts it adds up mean nothing."""
    left = set(parts)
    if len(left) != len(parts):
        return False
    inner = {p[:k] for p in parts for k in range(len(p))}
    todo = list(subproblems(broken))
    while todo:
        p = todo.pop()
        if p in left:
            left.remove(p)
            continue
        below = split(broken.problem, p)
        if p not in inner:
            if below:  # solutions no part covers
                return False
            continue
        if below == [p]:
            return False
        todo.extend(below)
    return not left
