"""The readable twin of the compiled exact-cover engine (`cpsolve/search/_xcover.c`), in plain Python.

Why it exists: the C engine takes every shortcut that pays (bitboards, bit-sliced counts, an arrival
test before a child's list is written, a transposed search for short lists). This module makes the
same choices in the plainest way, so that a test can hold the C engine to it on small problems:
the same solutions in the same order, and the same counts of nodes, dead ends and list entries
scanned. The engine's three layouts (bitboards up to 512 cells, wide bitboards, dancing links) all
make these choices; a change to the engine's rules must be made here too, a change to its speed
must not show.

The rules, shared with the C engine:

- A node has a list of live placements (rows that fit the filled cells, piece not used up), in row
  order. It branches on the empty required cell with the fewest live placements (the first such
  cell), unless a piece with one copy left and needed has strictly fewer; each way, in list order.
- A node is dead (counted in `dead`) when some empty required cell has no live placement, or some
  piece has fewer than the copies it still needs. A child is tested on arrival and, when dead,
  counted as a node and a dead end without being searched.
- With face neighbours (and no optional cells, and every row face-connected), the empty cells'
  regions must each have a size that the remaining pieces can sum to.
- Once every required cell is covered, the set is a solution when every piece has met its low
  bound; with optional cells, further placements are added in list order, each set once.
- `scanned` grows by the parent's list length for every child that is not a finished cover.
- With a `budget`, a search node entered once that many nodes have been counted is not searched but
  given back, with every way not yet tried on the path back to the root: each as the rows leading
  to it, deepest level first (`rest`). The extension phase (optional cells) is never cut: the next
  search node gives back. The search and the given-back prefixes, each searched as a part of its
  own, partition the solutions and meet the same nodes.

It is slow (Python per node) and meant for problems of a few thousand nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class TwinResult:
    """What one search found, in the C engine's terms."""

    solutions: list[tuple[int, ...]] = field(default_factory=list)
    nodes: int = 0
    dead: int = 0
    scanned: int = 0
    stopped: bool = False
    rest: list[tuple[int, ...]] = field(default_factory=list)
    """Prefixes given back unsearched (only with a budget)."""


class _Stop(Exception):
    """Unwinds the recursion when the callback asks to stop."""


def _rows_connected(row_cells: Sequence[Sequence[int]], neighbors: Sequence[Sequence[int]]) -> bool:
    """Whether every row's cells are face-connected: region sizes mean something only then."""
    for cells in row_cells:
        inside = set(cells)
        seen = {cells[0]}
        todo = [cells[0]]
        while todo:
            for q in neighbors[todo.pop()]:
                if q in inside and q not in seen:
                    seen.add(q)
                    todo.append(q)
        if len(seen) != len(inside):
            return False
    return True


def search(
    n_cells: int,
    piece_counts: Sequence[int],
    row_piece: Sequence[int],
    row_cells: Sequence[Sequence[int]],
    neighbors: Sequence[Sequence[int]] | None = None,
    piece_low: Sequence[int] | None = None,
    optional: Sequence[int] | None = None,
    *,
    forced: Sequence[int] = (),
    region_pruning: bool = False,
    on_solution: Callable[[tuple[int, ...]], object] | None = None,
    budget: int = 0,
) -> TwinResult:
    """Every solution containing the `forced` rows, as `cpsolve._xcover.Engine(...).search` finds them."""
    result = TwinResult()
    n_pieces = len(piece_counts)
    low = list(piece_low) if piece_low is not None else list(piece_counts)
    optional_cells = set(optional or ())
    required = frozenset(range(n_cells)) - optional_cells
    cells_of = [frozenset(cells) for cells in row_cells]
    size_of = [0] * n_pieces
    for r, p in enumerate(row_piece):
        size_of[p] = len(row_cells[r])
    pruning = (region_pruning and neighbors is not None and not optional_cells
               and _rows_connected(row_cells, neighbors))
    rem = list(piece_counts)
    need = list(low)
    chosen: list[int] = []
    filled: set[int] = set()
    ok = True
    for r in forced:
        ok = ok and not (filled & cells_of[r]) and rem[row_piece[r]] > 0
        filled |= cells_of[r]
        rem[row_piece[r]] -= 1
        need[row_piece[r]] -= 1
        chosen.append(r)
    if not ok:
        return result
    short = [sum(n for n in need if n > 0)]  # copies still missing below the low bounds

    def report() -> None:
        solution = tuple(sorted(chosen))
        result.solutions.append(solution)
        if on_solution is not None and on_solution(solution):
            result.stopped = True
            raise _Stop

    def choose(r: int) -> None:
        p = row_piece[r]
        chosen.append(r)
        rem[p] -= 1
        short[0] -= need[p] > 0
        need[p] -= 1

    def unchoose(r: int) -> None:
        p = row_piece[r]
        need[p] += 1
        short[0] += need[p] > 0
        rem[p] += 1
        chosen.pop()

    def fits(r: int, occ: frozenset[int]) -> bool:
        return rem[row_piece[r]] > 0 and not (cells_of[r] & occ)

    def regions_ok(occ: frozenset[int]) -> bool:
        empty = set(range(n_cells)) - occ
        sizes: list[int] = []
        while empty:
            start = min(empty)
            region = {start}
            todo = [start]
            while todo:
                for q in neighbors[todo.pop()]:  # type: ignore[index] # pruning implies neighbors
                    if q in empty and q not in region:
                        region.add(q)
                        todo.append(q)
            if not sizes and len(region) == len(empty):
                return True  # one region: its size is the pieces' volume
            sizes.append(len(region))
            empty -= region
        sums = {0}
        for p in range(n_pieces):
            for _ in range(rem[p]):
                sums |= {s + size_of[p] for s in sums}
        return all(s in sums for s in sizes)

    giving_back = [False]

    def node(live: list[int], occ: frozenset[int]) -> None:
        if budget and result.nodes >= budget:
            result.rest.append(tuple(chosen))
            giving_back[0] = True
            return
        result.nodes += 1
        empty = [c for c in sorted(required - occ)]
        count = {c: 0 for c in empty}
        per_piece = [0] * n_pieces
        for r in live:
            per_piece[row_piece[r]] += 1
            for c in cells_of[r]:
                if c in count:
                    count[c] += 1
        best = min(empty, key=lambda c: (count[c], c))
        best_count = count[best]
        if best_count == 0:
            result.dead += 1
            return
        best_piece = -1
        for p in range(n_pieces):
            if rem[p] == 0:
                continue
            if per_piece[p] < need[p]:
                result.dead += 1
                return
            if rem[p] == 1 and need[p] == 1 and per_piece[p] < best_count:
                best_count, best_piece = per_piece[p], p
        if pruning and not regions_ok(occ):
            return
        ways = [r for r in live if (row_piece[r] == best_piece if best_piece >= 0 else best in cells_of[r])]
        for i, r in enumerate(ways):
            nocc = occ | cells_of[r]
            choose(r)
            if required <= nocc:
                if optional_cells:
                    extend([q for q in live if fits(q, nocc)], nocc)
                elif short[0] == 0:
                    report()
            else:
                result.scanned += len(live)
                child = [q for q in live if fits(q, nocc)]
                covered = {c for q in child for c in cells_of[q]}
                pieces_left = {row_piece[q] for q in child}
                if (required - nocc) - covered or any(need[p] > 0 and p not in pieces_left for p in range(n_pieces)):
                    result.nodes += 1
                    result.dead += 1
                else:
                    node(child, nocc)
            unchoose(r)
            if giving_back[0]:
                result.rest.extend((*chosen, q) for q in ways[i + 1:])
                return

    def extend(live: list[int], occ: frozenset[int]) -> None:
        """Required cells covered: this set, then each further placement in list order."""
        result.nodes += 1
        if short[0] == 0:
            report()
        if short[0] > len(live):
            return
        for i, r in enumerate(live):
            nocc = occ | cells_of[r]
            choose(r)
            extend([q for q in live[i + 1:] if fits(q, nocc)], nocc)
            unchoose(r)

    occ0 = frozenset(filled)
    live0 = [r for r in range(len(row_piece)) if fits(r, occ0)]
    try:
        if required <= occ0:
            if optional_cells:
                extend(live0, occ0)
            elif short[0] == 0:
                report()
        else:
            node(live0, occ0)
    except _Stop:
        pass
    return result
