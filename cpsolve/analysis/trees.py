"""What the disassembler answers: moves, the tree of separations, stuck reports, levels and their tally.

`disassembly.py` (slides) and `turning.py` (slides and quarter turns) search; both answer in these
records: a `Disassembly` holds the tree of `Separation`s (each a list of `Move`s to the point where
a part comes free, and the trees of the two parts) or the `Stuck` report of the part that does not
come apart. Levels are read from the tree (`Separation.level`, `figures`), written and read as
text (`format_level`, `format_figures`, `parse_level`: `5`, `1.2`, `3R1.2`), given as JSON
(`disassembly_json`, what `cpsolve disassemble --json` prints) and tallied over an enumeration's
classes (`LevelTally`).

Why apart from the search: these are plain frozen records and their formatting, read by the front
ends, the page and the analyses of stuck assemblies, none of which needs the search itself; the
search module keeps only how the trees are found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..puzzle.geometry import Cell, Transform
from .tables import MOVE_NAMES
from .turns import AXIS_NAMES, Turn


@dataclass(frozen=True)
class Move:
    """`pieces` slide `amount` units along `direction` (one of DIRECTIONS); amount None = out for good.
    With `turn` (only with `rotations=True`): the pieces make that quarter turn instead (`direction`
    (0, 0, 0), `amount` 1)."""

    pieces: tuple[str, ...]
    direction: Cell
    amount: int | None
    turn: Turn | None = None

    @property
    def removes(self) -> bool:
        return self.amount is None

    def text(self) -> str:
        if self.turn is not None:
            return f"{' '.join(self.pieces)} {self.turn.text()}"
        how = "out" if self.amount is None else str(self.amount)
        return f"{' '.join(self.pieces)} {MOVE_NAMES[self.direction]} {how}"

    def as_json(self) -> dict[str, object]:
        if self.turn is not None:
            t = self.turn
            return {"pieces": list(self.pieces), "turn": {"axis": AXIS_NAMES[t.axis], "sense": t.sense,
                                                          "pivot": {k: float(v) for k, v in t.pivot().items()}}}
        return {"pieces": list(self.pieces), "direction": list(self.direction), "amount": self.amount}


@dataclass(frozen=True)
class Separation:
    """How one (sub-)assembly falls into two parts, and how each part is taken apart in turn.

    `moves` lead from `start` to the separation, the last one taking `removed` out; `left` and
    `removed_part` are the trees of the two parts (None for a single piece or a declared group).
    """

    pieces: tuple[str, ...]
    start: Mapping[str, Cell]
    moves: tuple[Move, ...]
    left: Separation | None
    removed_part: Separation | None
    orientations: Mapping[str, Transform] = field(default_factory=dict)
    """With turns: the pieces of `start` not in their assembled orientation (cells R c + start offset)."""

    @property
    def removed(self) -> tuple[str, ...]:
        return self.moves[-1].pieces

    def has_multi_moves(self) -> bool:
        """True when this step, or any step below it, needs more than one move (BurrTools' rule)."""
        return len(self.moves) > 1 or any(p is not None and p.has_multi_moves() for p in (self.left, self.removed_part))

    def level(self) -> tuple[int, ...]:
        """Moves to the first separation, then the levels of the parts that are not one-move-per-step."""
        out: list[int] = [len(self.moves)]
        for part in (self.left, self.removed_part):
            if part is not None and part.has_multi_moves():
                out.extend(part.level())
        return tuple(out)

    def figures(self) -> tuple[tuple[int, int], ...]:
        """`level()` with each figure split into (slides, quarter turns); turns only with `rotations`."""
        turns = sum(m.turn is not None for m in self.moves)
        out: list[tuple[int, int]] = [(len(self.moves) - turns, turns)]
        for part in (self.left, self.removed_part):
            if part is not None and part.has_multi_moves():
                out.extend(part.figures())
        return tuple(out)

    def total_moves(self) -> int:
        return len(self.moves) + sum(p.total_moves() for p in (self.left, self.removed_part) if p is not None)

    def steps(self) -> list[Separation]:
        """Every separation of the tree in the order the pieces come apart: this one, left part, removed part."""
        out = [self]
        for part in (self.left, self.removed_part):
            if part is not None:
                out.extend(part.steps())
        return out

    def positions(self) -> list[dict[str, Cell]]:
        """The offset of every piece of this part after each move (start first); a removed part is left out."""
        where = dict(self.start)
        out = [dict(where)]
        for m in self.moves:
            if m.turn is not None:  # the translation part of each turned piece's pose
                s = m.turn.shift
                for p in m.pieces:
                    r = m.turn.rotation.apply(where[p])
                    where[p] = (r[0] + s[0], r[1] + s[1], r[2] + s[2])
            elif m.amount is None:
                for p in m.pieces:
                    where.pop(p)
            else:
                for p in m.pieces:
                    x, y, z = where[p]
                    where[p] = (x + m.direction[0] * m.amount, y + m.direction[1] * m.amount,
                                z + m.direction[2] * m.amount)
            out.append(dict(where))
        return out


@dataclass(frozen=True)
class Stuck:
    """Where the search got stuck: a part no sequence of moves splits, how much of it was explored."""

    pieces: tuple[str, ...]
    states: int
    """How many distinct states (positions relative to the first piece) were reached."""
    locked: tuple[tuple[str, ...], ...]
    """Sets of pieces whose relative positions are the same in every reached state: they lock each other."""
    start: tuple[Cell, ...] = ()
    """Each piece's offset from its assembled position when the stuck search began (as `pieces`): all
    zero when the whole assembly is stuck, else where an earlier separation left this part."""


@dataclass(frozen=True)
class Disassembly:
    """The result for one assembly: its tree when it comes apart, else where it got stuck."""

    separation: Separation | None
    stuck: Stuck | None = None
    states: int = 0
    """States visited in all the searches (a measure of work)."""

    @property
    def ok(self) -> bool:
        return self.separation is not None

    def level(self) -> tuple[int, ...] | None:
        return None if self.separation is None else self.separation.level()

    def level_text(self) -> str | None:
        """`5`, `1.2`; with turns, each figure that has some as slides R turns (`3R1.2`)."""
        return None if self.separation is None else format_figures(self.separation.figures())

    def moves(self) -> list[Move]:
        """Every move of the whole tree, in the order the steps are listed."""
        if self.separation is None:
            return []
        return [m for s in self.separation.steps() for m in s.moves]

    def as_json(self) -> dict[str, object]:
        """What `cpsolve disassemble --json` prints about the assembly (apart from its name)."""
        return disassembly_json(self)


def format_level(level: Sequence[int]) -> str:
    return ".".join(str(v) for v in level)


def format_figures(figures: Sequence[tuple[int, int]]) -> str:
    """A level whose figures are (slides, quarter turns): a figure without turns as its moves (`5`, the
    same text as `format_level`), one with turns as slides `R` turns (`3R1`: 4 moves, one a turn, as
    BurrTools' rotation fork writes it)."""
    return ".".join(str(a) if not b else f"{a}R{b}" for a, b in figures)


_FIGURE = re.compile(r"(\d+)(?:R(\d+))?")


def parse_level(text: str) -> tuple[int, ...]:
    """`5`, `1.2`, `98.2.4.2`, and with turns `3R1.1R1` (slides R turns; BurrTools' rotation fork's
    `3R0` too) -> the moves of each figure, turns counted as moves, as a tuple compared
    lexicographically; ValueError when malformed."""
    parts = [_FIGURE.fullmatch(p) for p in text.strip().split(".")]
    if not parts or not all(parts):
        raise ValueError(f"a level is written like 5 or 1.2 or 98.2.4.2 (with turns 3R1.2), not {text!r}")
    out = tuple(int(m.group(1)) + int(m.group(2) or 0) for m in parts if m is not None)
    if out[0] < 1:
        raise ValueError(f"a level is written like 5 or 1.2 or 98.2.4.2 (with turns 3R1.2), not {text!r}")
    return out


# ----------------------------------------------------------------------------- for the command line


def separation_json(sep: Separation) -> list[dict[str, object]]:
    """The tree as a list of steps, in the order the pieces come apart: each step's pieces, their
    offsets (from the assembled position) when the step starts, and its moves."""
    return [
        {
            "pieces": list(s.pieces),
            "start": {k: list(v) for k, v in s.start.items()},
            "moves": [m.as_json() for m in s.moves],
            "removed": list(s.removed),
        }
        for s in sep.steps()
    ]


def disassembly_json(result: Disassembly) -> dict[str, object]:
    """Everything `cpsolve disassemble --json` prints about one assembly (apart from its name)."""
    out: dict[str, object] = {
        "disassemblable": result.ok,
        "level": result.level_text(),
        "moves_total": None if result.separation is None else result.separation.total_moves(),
        "states": result.states,
        "steps": [] if result.separation is None else separation_json(result.separation),
        "stuck": None,
    }
    if result.stuck is not None:
        out["stuck"] = {"pieces": list(result.stuck.pieces), "states": result.stuck.states,
                        "locked": [list(g) for g in result.stuck.locked]}
    return out


@dataclass
class LevelTally:
    """Assemblies against solutions (assemblies that come apart), in the three counts, and the levels.

    Fed one solution class at a time (its assemblies, whether its mirror image is another rotation
    class, and its level or None): a class and its rotated and mirrored copies come apart alike,
    since a rotation or reflection maps moves along the axes to moves along the axes.
    """

    assemblies: list[int] = field(default_factory=lambda: [0, 0, 0])
    solutions: list[int] = field(default_factory=lambda: [0, 0, 0])
    levels: dict[tuple[int, ...], int] = field(default_factory=dict)
    """Level -> number of solution classes (up to rotation and reflection) at that level."""
    texts: dict[tuple[int, ...], str] = field(default_factory=dict)
    """With turns: how a level was written (`3R1`); levels with the same moves per figure are one entry,
    shown as the first met."""

    def add(self, assemblies: int, mirror_distinct: bool, level: tuple[int, ...] | None,
            text: str | None = None) -> None:
        row = (assemblies, 2 if mirror_distinct else 1, 1)
        for i, v in enumerate(row):
            self.assemblies[i] += v
            if level is not None:
                self.solutions[i] += v
        if level is not None:
            self.levels[level] = self.levels.get(level, 0) + 1
            if text is not None and "R" in text:
                self.texts.setdefault(level, text)

    def text(self, level: tuple[int, ...]) -> str:
        return self.texts.get(level) or format_level(level)

    def highest(self) -> tuple[int, ...] | None:
        return max(self.levels) if self.levels else None

    def as_json(self) -> dict[str, object]:
        keys = ("total", "unique_rotation", "unique_symmetry")
        hi = self.highest()
        return {
            "assemblies": dict(zip(keys, self.assemblies, strict=True)),
            "solutions": dict(zip(keys, self.solutions, strict=True)),
            "levels": {self.text(k): v for k, v in sorted(self.levels.items())},
            "highest_level": None if hi is None else self.text(hi),
        }
