"""Why an assembly does not come apart: what blocks what, how far it can be opened, what to remove.

From the disassembler's own search (`analysis/disassembly.py`): the part that no sequence of moves
splits, and where it started. Then, for that part:

- **blocking**: for each piece and direction, the pieces it runs into when it alone moves one step
  (a test checks each one geometrically: the moved piece overlaps the blocker); with quarter turns
  also, for each piece, how many of the quarter turns the search tries for it alone are free at the
  start, and which pieces stop the others (the owner of the first static cube each turn meets);
- **states**: every position the moves reach, and the most open one (the most piece-and-direction
  pairs free to take a step; then the farthest from the start);
- **locked groups**: pieces whose relative position is the same in every state reached: they move
  only together;
- **the smallest removal**: the fewest pieces whose removal by magic lets the rest come apart, each
  candidate set proved by taking the rest apart.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ...puzzle.geometry import Cell
from ..disassembly import TooManyStates, check_rotations, disassemble, explore
from ..tables import DIRECTION_NAMES, DIRECTIONS
from ..trees import Disassembly
from ..turning import disassemble_turning
from ..turns import Scene, candidate_turns

MAX_REMOVED = 3
"""Sets of at most this many pieces are tried for the smallest removal."""
MAX_LISTED = 12


@dataclass(frozen=True)
class Blocked:
    """An assembly (or a part of it) that does not come apart, explained."""

    kind: ClassVar[str] = "blocking"
    pieces: tuple[str, ...]
    """The part that does not come apart (all the pieces, unless an earlier separation split some off)."""
    start: tuple[tuple[str, tuple[Cell, ...]], ...]
    """Each piece of the part with its cells where the stuck search began."""
    blocking: tuple[tuple[str, str, tuple[str, ...]], ...]
    """(piece, direction, the pieces it runs into one step that way), for every piece and direction."""
    states: int
    deepest: int
    """The most moves any state reached needs from the start."""
    open_state: tuple[tuple[str, tuple[Cell, ...]], ...]
    """The most open state reached: each piece with its cells there."""
    open_moves: int
    open_free: int
    start_free: int
    locked: tuple[tuple[str, ...], ...]
    removal: tuple[tuple[str, ...], ...]
    """The smallest sets of pieces whose removal lets the rest come apart (empty: none of up to
    MAX_REMOVED pieces, or not searched to the end)."""
    removal_levels: tuple[str, ...]
    """The level at which the rest comes apart, for each set in `removal`."""
    removal_complete: bool
    """Every set up to the size found (or MAX_REMOVED) was tried."""
    separated: tuple[str, ...] = ()
    """Pieces an earlier separation took away before this part got stuck."""
    turning: tuple[tuple[str, int, int, tuple[str, ...]], ...] | None = None
    """With quarter turns: (piece, turns free, turns tried, the pieces the others run into) at the start,
    each piece turned alone (`turn_blocking`); None when turns were not asked for."""
    turn_states: int = 0
    """With quarter turns: the states the search with slides and turns reached (`states` counts the
    slides' alone, as `open_state` and `locked` do)."""

    @property
    def size(self) -> int:
        return len(self.removal[0]) if self.removal else len(self.pieces)

    def blockers(self) -> tuple[str, ...]:
        """The pieces marked as blockers in pictures and on the page: those of the first smallest removal."""
        return self.removal[0] if self.removal else ()

    def lines(self) -> list[str]:
        out = []
        if self.separated:
            out.append(f"{' '.join(self.separated)} {'comes' if len(self.separated) == 1 else 'come'} away first; "
                       f"then {' '.join(self.pieces)} are stuck.")
        states = f"{self.states} state{'s' if self.states != 1 else ''}"
        moves = f"{self.deepest} move{'s' if self.deepest != 1 else ''}"
        if self.turning is None:
            out.append(f"{' '.join(self.pieces)} do not come apart by sliding pieces: the moves reach {states} (at "
                       f"most {moves} from the start), and in none can a part slide out.")
        else:
            turned = f"{self.turn_states} state{'s' if self.turn_states != 1 else ''}"
            out.append(f"{' '.join(self.pieces)} do not come apart by sliding or turning pieces: slides and quarter "
                       f"turns reach {turned}, and in none can a part slide out. Slides alone reach {states} (at most "
                       f"{moves} from the start).")
        out.append("Blocking at the start (a piece moved alone one step runs into):")
        by_piece: dict[str, list[str]] = {}
        for piece, d, hit in self.blocking:
            by_piece.setdefault(piece, []).append(f"{d} {','.join(hit) if hit else 'free'}")
        width = max(len(p) for p in by_piece)
        out += [f"  {p.ljust(width)}  {'  '.join(v)}" for p, v in by_piece.items()]
        if self.turning is not None:
            out.append("Turning at the start (a piece turned alone a quarter turn about a line through it or beside "
                       "it: free turns of those tried; the others run into):")
            out += [f"  {p.ljust(width)}  {free} of {tried} free" + (f"; blocked by {','.join(hit)}" if hit else "")
                    for p, free, tried, hit in self.turning]
        if self.open_moves:
            out.append(f"Most open state: {self.open_moves} move{'s' if self.open_moves != 1 else ''} from the start, "
                       f"{self.open_free} free piece-and-direction steps (the start has {self.start_free}).")
        else:
            out.append(f"No state is more open than the start ({self.start_free} free piece-and-direction steps).")
        for group in self.locked:
            out.append(f"Locked together in every state: {' '.join(group)}.")
        if self.removal:
            k = len(self.removal[0])
            sets = "; ".join(f"{' '.join(s)} (the rest: level {lv})"
                             for s, lv in zip(self.removal[:MAX_LISTED], self.removal_levels, strict=False))
            out.append(f"Smallest removal that frees the rest: {k} piece{'s' if k != 1 else ''}: {sets}.")
        elif self.removal_complete:
            out.append(f"No set of up to {MAX_REMOVED} pieces frees the rest when removed.")
        return out

    def as_json(self) -> dict[str, object]:
        return {
            "pieces": list(self.pieces), "separated": list(self.separated),
            "start": {k: [list(c) for c in v] for k, v in self.start},
            "blocking": [{"piece": p, "direction": d, "blockers": list(b)} for p, d, b in self.blocking],
            "states": self.states, "deepest": self.deepest,
            "most_open": {"moves": self.open_moves, "free": self.open_free, "start_free": self.start_free,
                          "pieces": {k: [list(c) for c in v] for k, v in self.open_state}},
            "locked": [list(g) for g in self.locked],
            "removal": [{"pieces": list(s), "level": lv} for s, lv in zip(self.removal, self.removal_levels,
                                                                          strict=True)],
            "removal_complete": self.removal_complete,
            **({} if self.turning is None else {
                "turn_states": self.turn_states,
                "turning": [{"piece": p, "free": free, "tried": tried, "blockers": list(hit)}
                            for p, free, tried, hit in self.turning]}),
        }


def shifted(cells: Sequence[Cell], by: Cell) -> tuple[Cell, ...]:
    return tuple((x + by[0], y + by[1], z + by[2]) for x, y, z in cells)


def blocking(pieces: Mapping[str, Sequence[Cell]]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """For each piece and direction, the pieces it overlaps after one step that way, alone."""
    sets = {k: set(v) for k, v in pieces.items()}
    out = []
    for name, cells in pieces.items():
        for d, label in zip(DIRECTIONS, DIRECTION_NAMES, strict=True):
            moved = set(shifted(cells, d))
            out.append((name, label, tuple(o for o in pieces if o != name and moved & sets[o])))
    return tuple(out)


def turn_blocking(pieces: Mapping[str, Sequence[Cell]], rotation_clearance: float | str = 0
                  ) -> tuple[tuple[str, int, int, tuple[str, ...]], ...]:
    """For each piece turned alone, the turns the search would try for it (`turns.candidate_turns`): how
    many are free, how many were tried, and the pieces the others run into (the owner of the static
    cube each blocked turn meets first, end cells before sweeps), in the pieces' order."""
    clearance = check_rotations(True, rotation_clearance)
    owner = {c: k for k, cells in pieces.items() for c in cells}
    out = []
    for name, cells in pieces.items():
        moving = list(cells)
        scene = Scene({c for c in owner if owner[c] != name})
        flat = scene.flat_cells(moving)
        free = tried = 0
        hit: set[str] = set()
        for turn in candidate_turns(moving):
            tried += 1
            got = scene.blocking(moving, turn, clearance, flat)
            if got is None:
                free += 1
            else:
                hit.add(owner[got[1]])
        out.append((name, free, tried, tuple(k for k in pieces if k in hit)))
    return tuple(out)


def free_steps(pieces: Mapping[str, Sequence[Cell]]) -> int:
    return sum(1 for _, _, hit in blocking(pieces) if not hit)


def explain_stuck(pieces: Mapping[str, Sequence[Cell]], result: Disassembly, groups: Sequence[frozenset[str]] = (),
                  max_states: int | None = None, deadline: float | None = None, rotations: bool = False,
                  rotation_clearance: float | str = 0, turned: Disassembly | None = None) -> Blocked:
    """Explain `result`, the disassembly of `pieces` (label -> assembled cells) by slides, which must be
    stuck; with `rotations`, `turned` is the stuck search with turns too (its states are counted, and
    the turns at the start are accounted for piece by piece)."""
    stuck = result.stuck
    assert stuck is not None and result.separation is None
    part = list(stuck.pieces)
    offsets = dict(zip(part, stuck.start or [(0, 0, 0)] * len(part), strict=True))
    start = {k: shifted(pieces[k], offsets[k]) for k in part}
    states = explore({k: pieces[k] for k in part}, offsets, max_states)
    if len(states) != stuck.states:  # the Python twin's states against the search's own count
        raise AssertionError(f"explore reached {len(states)} states, the disassembler {stuck.states}")
    start_free = free_steps(start)
    best = (start_free, 0, 0)
    best_state = start
    for i, (pos, _) in enumerate(states):
        here = {k: shifted(pieces[k], off) for k, off in zip(part, pos, strict=True)}
        free = free_steps(here)
        spread = sum(abs(a - b) for off, base in zip(pos, (offsets[k] for k in part), strict=True)
                     for a, b in zip(off, base, strict=True))
        if (free, spread) > best[:2]:
            best, best_state = (free, spread, i), here
    open_moves = states[best[2]][1]
    removal, levels, complete = smallest_removal(start, groups, max_states, deadline, rotations, rotation_clearance)
    turning = turn_blocking(start, rotation_clearance) if rotations else None
    turn_states = turned.stuck.states if turned is not None and turned.stuck is not None else 0
    return Blocked(tuple(part), tuple((k, start[k]) for k in part), blocking(start), len(states),
                   max(d for _, d in states), tuple((k, best_state[k]) for k in part), open_moves, best[0], start_free,
                   stuck.locked, removal, levels, complete, tuple(k for k in pieces if k not in offsets), turning,
                   turn_states)


def smallest_removal(pieces: Mapping[str, Sequence[Cell]], groups: Sequence[frozenset[str]] = (),
                     max_states: int | None = None, deadline: float | None = None, rotations: bool = False,
                     rotation_clearance: float | str = 0) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], bool]:
    """The smallest sets of pieces whose removal lets the rest come apart (each set proved by taking
    the rest apart, with quarter turns when `rotations`), their rest's levels, and whether the search
    was complete."""
    names = list(pieces)
    for k in range(1, min(MAX_REMOVED, len(names) - 1) + 1):
        found: list[tuple[str, ...]] = []
        levels: list[str] = []
        for removed in itertools.combinations(names, k):
            if deadline is not None and time.perf_counter() > deadline:
                return tuple(found), tuple(levels), False
            rest = {n: pieces[n] for n in names if n not in removed}
            if len(rest) == 1:
                found.append(removed)
                levels.append("-")
                continue
            try:
                got = (disassemble_turning(rest, groups, max_states, rotation_clearance=rotation_clearance) if rotations
                       else disassemble(rest, groups, max_states))
            except TooManyStates:
                continue
            if got.ok:
                found.append(removed)
                levels.append(got.level_text() or "")
        if found:
            return tuple(found), tuple(levels), True
    return (), (), True
