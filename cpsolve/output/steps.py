"""The assembly order and the disassembly as it is played: `Step`s, one move of some pieces each.

Both pictures of the steps (`pictures.py`) and the 3-D page (`page.py`) show a puzzle coming apart, or
going together, move by move from here, so they agree on how far a part goes out and in which order the
pieces come in: `played_disassembly` replays a disassembly the search found, `removal_order` and
`assembly_steps` (cubes) and `prism_assembly_steps` (the prism grid) find an order for pieces that
come apart one at a time.

Why apart from `scene.py`: that module is the still geometry every picture shares (colours, faces,
views, exploded positions); this one is about motion, and takes from the scene only the directions a
piece may leave by (`scene.DIRECTIONS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.turns import Turn
from ..puzzle.geometry import Cell
from .scene import DIRECTIONS

if TYPE_CHECKING:
    from ..analysis.trees import Separation


@dataclass(frozen=True)
class Step:
    """One move of a disassembly: these pieces together move by `move` (whole cells).

    `part` names the pieces of the (sub-)assembly the move happens in, when that is more than
    the pieces still in place: played backwards, those pieces are on show while the move is made.
    `out` says the move takes the pieces out of it (played backwards: they come in from outside).
    """

    pieces: tuple[str, ...]
    move: Cell
    part: tuple[str, ...] = ()
    out: bool = False
    turn: Turn | None = None
    """With turns (`--rotations`): the pieces make this quarter turn instead (`move` (0, 0, 0)), its pivot
    where the pieces are drawn (a part taken out earlier has moved on from where the search left it)."""

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"pieces": list(self.pieces), "move": list(self.move)}
        if self.part:
            out["part"] = list(self.part)
        if self.out:
            out["out"] = True
        if self.turn is not None:  # the page turns the pieces about this line, right-handed for sense +1
            out["turn"] = {"axis": self.turn.axis, "sense": self.turn.sense,
                           "pivot": [v / 2 for v in self.turn.pivot2]}
        return out


def played_disassembly(pieces: Mapping[str, Sequence[Sequence[int]]], separation: Separation,
                       grid: str = "cubes") -> list[tuple[Step, dict[str, list[Cell]]]]:
    """A disassembly as it is shown, move by move: each move as a `Step` and every piece's cells after it.

    The search's "out" is here just far enough that the part is clear of the rest of the (sub-)assembly
    it leaves (`clearance`, `prism_clearance`), and farther if it would land on a piece already out
    there. The search keeps a removed part where it was before that move and takes it apart from
    there, so each piece carries the shift by which it is shown away from the search's frame, and a
    later turn of it turns about its pivot shifted as much (a slide is the same move in either frame).
    The pictures of the steps and the page's animation both come from here, so they agree.
    """
    at = {k: [(int(c[0]), int(c[1]), int(c[2])) for c in cs] for k, cs in pieces.items()}
    shift: dict[str, Cell] = {k: (0, 0, 0) for k in at}
    out: list[tuple[Step, dict[str, list[Cell]]]] = []
    for s in separation.steps():
        for m in s.moves:
            if m.turn is not None:
                sx, sy, sz = shift[m.pieces[0]]
                p2 = [m.turn.pivot2[0] + 2 * sx, m.turn.pivot2[1] + 2 * sy, m.turn.pivot2[2] + 2 * sz]
                p2[m.turn.axis] = 0
                turn = Turn(m.turn.axis, (p2[0], p2[1], p2[2]), m.turn.sense)
                for p in m.pieces:
                    at[p] = [turn.cell(c) for c in at[p]]
                out.append((Step(tuple(m.pieces), (0, 0, 0), tuple(s.pieces), False, turn),
                            {k: list(v) for k, v in at.items()}))
                continue
            d = m.direction
            if m.amount is None:
                group = [c for p in m.pieces for c in at[p]]
                rest = [c for p in s.pieces if p not in m.pieces for c in at[p]]
                others = {c for p, cs in at.items() if p not in m.pieces for c in cs}
                amount = clearance(group, rest, d) if grid != "prisms" else prism_clearance(group, rest, d) or 1
                while any((c[0] + d[0] * amount, c[1] + d[1] * amount, c[2] + d[2] * amount) in others for c in group):
                    amount += 1
                for p in m.pieces:
                    x, y, z = shift[p]
                    shift[p] = (x + d[0] * amount, y + d[1] * amount, z + d[2] * amount)
            else:
                amount = m.amount
            for p in m.pieces:
                at[p] = [(c[0] + d[0] * amount, c[1] + d[1] * amount, c[2] + d[2] * amount) for c in at[p]]
            out.append((Step(tuple(m.pieces), (d[0] * amount, d[1] * amount, d[2] * amount), tuple(s.pieces),
                             m.amount is None), {k: list(v) for k, v in at.items()}))
    return out


def clearance(moving: Iterable[Sequence[int]], rest: Iterable[Sequence[int]], direction: Sequence[int],
              gap: int = 1) -> int:
    """How far cells sliding along an axis go until their bounding box is `gap` cells clear of the rest's.

    That is as far as a part taken out needs to go to be seen apart, and no farther, so that an
    assembly played backwards stays within a view not much larger than the puzzle.
    """
    axis = next(i for i in range(3) if direction[i])
    ours = [c[axis] for c in moving]
    theirs = [c[axis] for c in rest]
    if not theirs:
        return max(ours) - min(ours) + 1 + gap
    ahead = max(theirs) - min(ours) + 1 if direction[axis] > 0 else max(ours) - min(theirs) + 1
    return max(ahead, 0) + gap


def removal_order(pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[tuple[str, Cell]] | None:
    """A disassembly one piece at a time, each sliding out along an axis without hitting the others.

    Greedy is complete here: taking a piece out never blocks another, so if any such order exists,
    removing whichever piece can go first never leads to a dead end. Among the pieces that can go,
    the highest one lifted straight up is preferred, so that the assembly (this order reversed) is
    built from the bottom up by dropping pieces in where it can. None when the pieces interlock
    (a burr needs moves of several pieces at once).
    """
    labels = list(pieces)
    cells = {k: [tuple(int(v) for v in c) for c in pieces[k]] for k in labels}
    allc = [c for cs in cells.values() for c in cs]
    lo = [min(c[i] for c in allc) for i in range(3)]
    size = [max(c[i] for c in allc) - lo[i] + 1 for i in range(3)]
    # Bits: x + X*(y + Y*z) with room on x and y, so that shifting by up to a whole side never wraps.
    big_x, big_y = 2 * size[0] + 1, 2 * size[1] + 1
    stride = (1, big_x, big_x * big_y)
    mask = {}
    for k in labels:
        m = 0
        for c in cells[k]:
            m |= 1 << ((c[0] - lo[0]) + big_x * ((c[1] - lo[1]) + big_y * (c[2] - lo[2])))
        mask[k] = m
    offset = big_x * big_y * (size[2] + 1)  # room below z = 0, so that moving down is a left shift too

    def sweep(k: str, d: Cell) -> int:
        axis = next(i for i in range(3) if d[i])
        s = stride[axis] * d[axis]
        base = mask[k] << offset
        out = 0
        for t in range(1, size[axis] + 1):
            out |= (base << (s * t)) if s > 0 else (base >> (-s * t))
        return out >> offset

    sweeps: dict[tuple[str, Cell], int] = {}  # filled on demand: most pieces leave upwards, the first tried
    top = {k: (max(c[2] for c in cells[k]), i) for i, k in enumerate(labels)}
    remaining = set(labels)
    everything = 0
    for k in labels:
        everything |= mask[k]
    order: list[tuple[str, Cell]] = []
    while remaining:
        best: tuple[tuple[int, int, int], str, Cell] | None = None
        for k in remaining:
            others = everything & ~mask[k]
            for rank, d in enumerate(DIRECTIONS):
                path = sweeps.get((k, d))
                if path is None:
                    path = sweeps[(k, d)] = sweep(k, d)
                if path & others == 0:
                    key = (rank, -top[k][0], top[k][1])
                    if best is None or key < best[0]:
                        best = (key, k, d)
                    break
        if best is None:
            return None
        _, k, d = best
        order.append((k, d))
        remaining.discard(k)
        everything &= ~mask[k]
    return order


def assembly_steps(
    pieces: Mapping[str, Sequence[Sequence[int]]], order: Sequence[tuple[str, Cell]] | None = None
) -> list[Step] | None:
    """A removal order (`removal_order`'s unless given) as disassembly steps: each piece slides out
    just clear of the pieces left; None when the pieces interlock.

    Steps use the same form as a disassembly found elsewhere (`pieces`, `move`), so the page plays
    both the same way: backwards, as an assembly.
    """
    if order is None:
        order = removal_order(pieces)
    if order is None:
        return None
    # a piece's bounding box (two corners) says as much as its cells about how far it must go
    left = {k: [(min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))]
            for k, (xs, ys, zs) in ((k, tuple(zip(*cs, strict=True))) for k, cs in pieces.items())}
    out = []
    for k, d in order:
        moving = left.pop(k)
        far = clearance(moving, [c for box in left.values() for c in box], d)
        out.append(Step((k,), (d[0] * far, d[1] * far, d[2] * far), out=True))
    return out


# -- the assembly on the prism grid ---------------------------------------------------------------

PRISM_LEAVE: tuple[Cell, ...] = ((0, 0, 1), (2, 0, 0), (-2, 0, 0), (1, 1, 0), (-1, -1, 0), (-1, 1, 0), (1, -1, 0),
                                 (0, 0, -1))
"""The prism grid's moves (BurrTools' four prism axes, both ways: `analysis.tables.PRISM_DIRECTIONS`)
in the order a piece may leave: lifting it out first, as on cubes, down last."""
PRISM_WAYS: tuple[tuple[str, str, str], ...] = (
    ("above", "up", "layer"), ("the right", "to the right", "edge"), ("the left", "to the left", "edge"),
    ("the back right", "back and to the right", "edge"), ("the front left", "forward and to the left", "edge"),
    ("the back left", "back and to the left", "edge"), ("the front right", "forward and to the right", "edge"),
    ("below", "down", "layer"))
"""For each of PRISM_LEAVE: where it leads, the way it goes, and its unit (a layer, or a triangle's edge)."""


def prism_swept(c: Cell, d: Cell) -> Cell | None:
    """The cell a triangle passes over sliding one step from `c` along `d` (between its start and its end,
    `analysis.tables.PRISM_SWEPT`), or None (a step up or down passes over none)."""
    from ..analysis.tables import PRISM_SWEPT

    key = d if d in PRISM_SWEPT else (-d[0], -d[1], -d[2])
    w = PRISM_SWEPT[key][(c[0] + c[1]) % 2]  # an up triangle's offset, or a down one's
    if w == (0, 0, 0):
        return None
    start = c if key == d else (c[0] + d[0], c[1] + d[1], c[2] + d[2])  # the same kind as c
    return (start[0] + w[0], start[1] + w[1], start[2] + w[2])


def _ahead(c: Sequence[int], d: Cell) -> int:
    """How far a cell is along d (c . d): it grows by |d|^2 a step, and the cell a triangle passes over
    lies strictly between its start and its end."""
    return c[0] * d[0] + c[1] * d[1] + c[2] * d[2]


def prism_clearance(moving: Sequence[Cell], rest: Iterable[Cell], d: Cell, gap: int = 1) -> int | None:
    """How many steps cells of the prism grid slide along `d` until every one is ahead of all of `rest`
    (then nothing can meet them farther on; with no rest, ahead of where they were), and `gap` steps
    more; None when they meet a cell of `rest`, or pass over one, on the way."""
    blocked = set(rest)
    far = max(_ahead(c, d) for c in (blocked or moving))  # alone: until clear of where it was
    step = _ahead(d, d)
    t = 0
    while min(_ahead(c, d) for c in moving) + t * step <= far:
        for c in moving:
            at = (c[0] + t * d[0], c[1] + t * d[1], c[2] + t * d[2])
            nxt = (at[0] + d[0], at[1] + d[1], at[2] + d[2])
            if nxt in blocked or prism_swept(at, d) in blocked:
                return None
        t += 1
    return t + gap


def prism_assembly_steps(pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[Step] | None:
    """`assembly_steps` on the prism grid: one piece at a time slides out along one of the grid's moves
    (PRISM_LEAVE) without meeting or passing over the pieces left, the highest lifted first; None when
    the pieces interlock. Greedy is complete here as on cubes: taking a piece out never blocks another."""
    cells = {k: [(int(c[0]), int(c[1]), int(c[2])) for c in cs] for k, cs in pieces.items()}
    order = list(cells)
    out = []
    while cells:
        best: tuple[tuple[int, int, int], str, Cell, int] | None = None
        for i, k in enumerate(order):
            if k not in cells:
                continue
            rest = [c for j, cs in cells.items() if j != k for c in cs]
            for rank, d in enumerate(PRISM_LEAVE):
                far = prism_clearance(cells[k], rest, d)
                if far is not None:
                    key = (rank, -max(c[2] for c in cells[k]), i)
                    if best is None or key < best[0]:
                        best = (key, k, d, far)
                    break
        if best is None:
            return None
        _, k, d, far = best
        del cells[k]
        out.append(Step((k,), (d[0] * far, d[1] * far, d[2] * far), out=True))
    return out
