"""One disassembler per puzzle for the classes an enumeration finds (`enumerate --disassemble`): placements
(piece index, cell indices) in, a level per class out, in batches through the C search.

Why apart from `disassembly`: that module takes one assembly apart from its cells (the search and its
twin); this one serves a whole run, where what a class costs around the search is what counts (see
`PlacedDisassembler`).
"""

from __future__ import annotations

import itertools
import weakref
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..puzzle.geometry import Cell
from .disassembly import (
    TooManyStates,
    _c_budget,
    _Candidate,
    _Search,
    _TooMany,
    check_grid,
)
from .tables import _C_COORD, NATIVE_MAX_PIECES, Shapes, _native, directions_of
from .trees import Stuck, format_level

if TYPE_CHECKING:
    from ..problem.placements import ExactCoverProblem

Taken = tuple[tuple[int, ...] | None, str | None, list[dict[str, object]]]
"""A class taken apart by `PlacedDisassembler.take_apart`: its level (None: it does not come apart), the
level as text, and its moves as JSON (empty unless asked for)."""

Placement = tuple[int, tuple[int, ...]]
"""A piece placed in the container, as an enumeration's class holds it: (piece index, cell indices)."""

STUCK, FOUND, TOO_MANY, TWIN = range(4)
"""What `_disassemble.Disassembler.classify` (and `PlacedDisassembler.classify`) says of one assembly:
it does not come apart, it does (the first separations follow), the search passed its budget, or the C
search cannot take it (a table too big, coordinates too far: the twin runs)."""

Classified = tuple[bytes, list[int], dict[int, list[_Candidate]]]
"""`classify`'s answer for a batch: a status per assembly, the states each search reached, and the first
separations of those that come apart (by their index in the batch)."""


class PlacedDisassembler:
    """Takes apart the assemblies of one puzzle as its enumeration finds them: placements (piece index,
    cell indices), not cells. One per run and per worker process, as BurrTools keeps one disassembler per
    problem (its `burrTxt.cpp:main`).

    Why: most assemblies of a designer's file do not come apart, after a search of 2 to 49 states
    (Gargamel: 7,679 of 7,680), so what a class costs around the search is what counts. Each placement
    is mapped once to its shape and origin (`Shapes`), and packed as the 4 ints the C search reads; a
    batch of classes then goes to C in one call (`classify`), which answers with a status per class.
    Labels, trees, levels and moves are built only for the classes that come apart (and moves only
    when asked), in the order `labelled` gives: copies numbered in the order of their cells. Nothing is
    kept per class. The twin (`native=False`) takes the same path in Python.

    It can be sent to a worker forked after it was made (`enumerate --disassemble --workers N`): it is
    pickled as a number, and the worker finds its own copy, with its tables and buffers, by it.
    """

    LIMIT = 250_000
    """Placements whose shape and origin are kept (then the store starts again): bounded memory."""

    _made = itertools.count()
    _alive: weakref.WeakValueDictionary[int, PlacedDisassembler] = weakref.WeakValueDictionary()

    def __init__(self, problem: ExactCoverProblem, groups: Sequence[frozenset[str]] = (), *,
                 max_states: int | None = None, native: bool = True, best: bool = True, grid: str = "cubes") -> None:
        check_grid(grid)
        self.problem = problem
        self.groups = tuple(groups)
        self.max_states = max_states
        self.native = native and _native is not None and grid == "cubes"
        """C when it is built, on cubes (the prism grid's moves run in the twin)."""
        self.best = best
        self.shapes = Shapes(self.native, directions_of(grid))
        self.placed: dict[Placement, tuple[int, Cell, bytes]] = {}
        """Placement -> its shape id, origin, and the 5 C ints `classify` and `levels` read: shape id,
        origin, and the piece's groups, a bit each."""
        self.group_bits = [sum(1 << g for g, names in enumerate(self.groups) if name in names)
                           for name in problem.piece_names]
        self.c_trees = len(self.groups) < 32
        """Whole trees in C (`levels`) when the groups fit in a C int's bits."""
        self.base = tuple(min(c[k] for c in problem.cells) for k in range(3)) if problem.cells else (0, 0, 0)
        """The container's least corner: C reads origins from there (only differences count), so a
        container far from the origin is searched in C like any other."""
        self.token = next(PlacedDisassembler._made)
        PlacedDisassembler._alive[self.token] = self

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return _placed_disassembler, (self.token,)

    def _place(self, placement: Placement) -> tuple[int, Cell, bytes]:
        """A placement's shape id, origin and packed ints, made the first time it is met."""
        if len(self.placed) >= self.LIMIT:
            self.placed = {}
        at = self.problem.cells
        sid, origin = self.shapes.of([at[c] for c in placement[1]])
        # beyond the C search's range it says TWIN: a container wider than that is taken apart in Python
        clamp = [max(-_C_COORD, min(_C_COORD, v - b)) for v, b in zip(origin, self.base, strict=True)]
        groups = self.group_bits[placement[0]] if self.c_trees else 0
        got = self.placed[placement] = (sid, origin, array("i", [sid, *clamp, groups]).tobytes())
        return got

    def labels(self, placements: Sequence[Placement]) -> list[str]:
        """The pieces' labels, as `labelled` writes them for `placements` in the order a class holds them
        (sorted): the piece's name, `NAME#k` for copy k of a piece with several."""
        names, counts = self.problem.piece_names, self.problem.piece_counts
        copy: dict[int, int] = {}
        out = []
        for piece, _ in placements:
            if counts[piece] > 1:
                copy[piece] = copy.get(piece, 0) + 1
                out.append(f"{names[piece]}#{copy[piece]}")
            else:
                out.append(names[piece])
        return out

    def classify(self, classes: Sequence[Sequence[Placement]]) -> Classified:
        """Each class (all with the same number of pieces, 2 to NATIVE_MAX_PIECES) searched from where it
        is assembled, the first search alone: `_disassemble.Disassembler.classify`, or its twin, a loop
        of `_separate_states`."""
        placed = self.placed
        if self.shapes.context is not None:
            n = len(classes[0])
            batch = b"".join([(placed.get(p) or self._place(p))[2] for cls in classes for p in cls])
            return self.shapes.context.classify(batch, n, _c_budget(self.max_states), self.best)
        status = bytearray()
        states: list[int] = []
        found: dict[int, list[_Candidate]] = {}
        for i, cls in enumerate(classes):
            one = [(placed.get(p) or self._place(p))[:2] for p in cls]
            search = _Search(one, [""] * len(one), self.shapes, max_states=self.max_states, native=False,
                             best=self.best)
            try:
                got = search._separate_states(range(len(one)), [(0, 0, 0)] * len(one), self.best)
            except _TooMany as exc:
                status.append(TOO_MANY)
                states.append(exc.states)
                continue
            status.append(STUCK if isinstance(got, Stuck) else FOUND)
            states.append(search.visited)
            if not isinstance(got, Stuck):
                found[i] = got
        return bytes(status), states, found

    def levels(self, classes: Sequence[Sequence[Placement]]) -> tuple[bytes, list[tuple[int, ...] | int | None]]:
        """Each class (all with the same number of pieces, 2 to NATIVE_MAX_PIECES) taken apart whole in C,
        for its level alone (`_disassemble.Disassembler.levels`): a status per class (STUCK, FOUND,
        TOO_MANY, TWIN) and its level, or the states of the search that passed `max_states`. The twin is
        `_tree` (`_Search.take_apart`); only for a disassembler with C and fewer than 32 groups."""
        assert self.shapes.context is not None and self.c_trees
        placed = self.placed
        batch = b"".join([(placed.get(p) or self._place(p))[2] for cls in classes for p in cls])
        return self.shapes.context.levels(batch, len(classes[0]), _c_budget(self.max_states), self.best)

    def take_apart(self, classes: Sequence[Sequence[Placement]], moves: bool = False) -> list[Taken]:
        """Each class's level, its text and, with `moves`, its moves as JSON; (None, None, []) for a
        class that does not come apart. Past `max_states` states in one search: TooManyStates. In C as a
        whole (`levels`); the moves of a class that comes apart are its tree's, built in Python (`_tree`);
        without C, or with 32 groups or more, the first search (`classify`) and the trees in Python."""
        out: list[Taken] = [(None, None, [])] * len(classes)
        by_size: dict[int, list[int]] = {}
        for i, cls in enumerate(classes):
            by_size.setdefault(len(cls), []).append(i)
        for n, which in by_size.items():
            if n < 2:
                continue
            if n > NATIVE_MAX_PIECES:
                for i in which:
                    out[i] = self._tree(classes[i], None, moves)
                continue
            if self.c_trees and self.shapes.context is not None:
                done, levels = self.levels([classes[i] for i in which])
                for k, i in enumerate(which):
                    level = levels[k]
                    if done[k] == FOUND and isinstance(level, tuple):  # the moves: that one class's tree again
                        out[i] = self._tree(classes[i], None, True) if moves else (level, format_level(level), [])
                    elif done[k] == TOO_MANY:
                        raise TooManyStates(int(level))  # type: ignore[arg-type]
                    elif done[k] == TWIN:
                        out[i] = self._tree(classes[i], None, moves)
                continue
            status, states, found = self.classify([classes[i] for i in which])
            for k, i in enumerate(which):
                if status[k] == FOUND:
                    out[i] = self._tree(classes[i], found[k], moves)
                elif status[k] == TOO_MANY:
                    raise TooManyStates(states[k])
                elif status[k] == TWIN:
                    out[i] = self._tree(classes[i], None, moves)
        return out

    def _tree(self, cls: Sequence[Placement], found: list[_Candidate] | None, moves: bool) -> Taken:
        """The whole tree of one class (its first search `found` already made, or None), as `Taken`."""
        placed = self.placed
        one = [(placed.get(p) or self._place(p))[:2] for p in cls]
        search = _Search(one, self.labels(cls), self.shapes, self.groups, self.max_states, self.native,
                         best=self.best)
        try:
            got = search.take_apart(list(range(len(one))), [(0, 0, 0)] * len(one), found)
        except _TooMany as exc:
            raise TooManyStates(exc.states) from None
        if isinstance(got, Stuck):
            return None, None, []
        level = got.level()
        return level, format_level(level), [m.as_json() for s in got.steps() for m in s.moves] if moves else []


def _placed_disassembler(token: int) -> PlacedDisassembler:
    """The disassembler a job names (`PlacedDisassembler.__reduce__`): this process's copy of it."""
    got = PlacedDisassembler._alive.get(token)
    if got is None:
        raise RuntimeError("a PlacedDisassembler goes only to processes forked after it was made")
    return got
