"""Chain (snake) puzzles as an exact-cover problem with side clauses.

A chain of n unit cubes must fill the container. Each cube is a "piece" with one copy whose
placements are the container's cells, so "one cell per cube, one cube per cell" is exactly the
exact-cover structure every backend already solves; the chain's joints become CNF side clauses
over those placements (x[i, a] means cube i sits in cell a):

- TOUCH i j:          x[i, a] -> OR of x[j, b] over the cells b adjacent to a;
- ALIGNED j k at i:   x[j, a] & x[k, b] -> x[i, 2b - a]  (cube k is the midpoint of j and i);
- NOT_ALIGNED j k at i: x[j, a] & x[k, b] -> not x[i, 2b - a].
"""

from __future__ import annotations

from collections.abc import Sequence

from ..limits import check
from ..puzzle.chain import Chain, is_reversible
from ..puzzle.geometry import FACE_STEPS, Cell, are_adjacent
from ..puzzle.model import Puzzle
from .placements import ExactCoverProblem, Row


def chain_problem(puzzle: Puzzle) -> ExactCoverProblem:
    """The exact-cover problem of a chain puzzle: one-cell "pieces" (the cubes) and joint clauses."""
    chain = puzzle.chain
    assert chain is not None
    cells = puzzle.container
    n_cells = len(cells)
    # Checked before anything is built: a chain's placements grow as its cubes times its cells, and
    # its joint clauses faster (a 40 KB chain of 13,000 cubes asked for 169 million rows: 3.85 GB).
    check("max_placements", "the chain's placements (cubes x cells)", chain.n * n_cells, "chain")
    check("max_literals", "the chain joints' estimated size in literals", joints_bound(chain, n_cells), "chain")
    rows = tuple(Row(i, (a,)) for i in range(chain.n) for a in range(n_cells))
    reverse = tuple(chain.n - 1 - i for i in range(chain.n))
    return ExactCoverProblem(
        name=puzzle.name,
        cells=cells,
        piece_names=tuple(str(i) for i in range(chain.n)),
        piece_counts=(1,) * chain.n,
        rows=rows,
        side_clauses=tuple(joint_clauses(chain, cells)),
        kind="chain",
        mirror_labels=puzzle.mirror_partners(),
        label_symmetries=(reverse,) if is_reversible(chain) else (),
    )


def _touching(chain: Chain) -> set[frozenset[int]]:
    """The pairs of cubes that a TOUCH joint makes neighbours."""
    return {frozenset((j.cube, j.others[0])) for j in chain.joints if j.kind == "TOUCH"}


def joints_bound(chain: Chain, n_cells: int) -> int:
    """An upper bound on the literals of `joint_clauses`, from the joints and the number of cells: per
    cell, a TOUCH clause of at most 7 literals; an [NOT_]ALIGNED joint of two neighbours a clause of 3
    per neighbouring cell (6), of two cubes that may be apart one per pair of cells."""
    touching = _touching(chain)
    total = 0
    for joint in chain.joints:
        if joint.kind == "TOUCH":
            total += 7 * n_cells
        else:
            total += 3 * n_cells * (len(FACE_STEPS) if frozenset(joint.others) in touching else n_cells)
    return total


def joint_clauses(chain: Chain, cells: Sequence[Cell]) -> list[tuple[int, ...]]:
    n_cells = len(cells)
    index = {c: i for i, c in enumerate(cells)}

    def lit(cube: int, cell: int) -> int:
        return cube * n_cells + cell + 1

    touching = _touching(chain)
    clauses: list[tuple[int, ...]] = []
    for joint in chain.joints:
        if joint.kind == "TOUCH":
            other = joint.others[0]
            for a, ca in enumerate(cells):
                near = [lit(other, b) for b, cb in enumerate(cells) if are_adjacent(ca, cb)]
                clauses.append((-lit(joint.cube, a), *near))
            continue
        j, k = joint.others
        adjacent_only = frozenset((j, k)) in touching
        for a, ca in enumerate(cells):
            for b, cb in enumerate(cells):
                if a == b or (adjacent_only and not are_adjacent(ca, cb)):
                    continue
                far = index.get(tuple(2 * cb[t] - ca[t] for t in range(3)))  # type: ignore[arg-type]
                head = (-lit(j, a), -lit(k, b))
                if joint.kind == "ALIGNED":
                    clauses.append((*head, lit(joint.cube, far)) if far is not None else head)
                elif far is not None:
                    clauses.append((*head, -lit(joint.cube, far)))
    return clauses
