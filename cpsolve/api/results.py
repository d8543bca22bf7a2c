"""What a run hands back: a `Solution` (one assembly, or a class's representative), the three `Counts`,
and the `Result` of an enumeration with the JSON object `cpsolve enumerate --json` prints.

`Solution` shows itself in a notebook, but its picture and page live above it (`pictures`, which takes
solutions): `display` gives it those methods once the API is imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from .common import _frozen, _grid, _table

if TYPE_CHECKING:
    from ..search.enumeration import Prepared
    from ..search.result import EnumerationResult, SolutionClass


@dataclass(frozen=True)
class Solution:
    """One solution: which cells each piece fills (`NAME#k` for the k-th copy of a piece; a chain's
    cubes are numbered), with the puzzle it solves and what is known of its class.

    From `enumerate`/`run` it is its class's canonical representative (`index` counts the classes
    up to rotation and reflection, from 0); from `solve` it is the assembly as found (`index` None).
    """

    name: str
    """The puzzle's name."""
    placed: tuple[tuple[str, tuple[Cell, ...]], ...]
    """(label, cells) of each piece; `pieces` is the same as a read-only mapping."""
    index: int | None = None
    assemblies: int | None = None
    """Assemblies in the class, rotated and mirrored copies counted apart (None: unknown)."""
    mirror_distinct: bool | None = None
    """Whether the mirror image is a different class up to rotation (None: unknown)."""
    puzzle: Puzzle | None = field(default=None, repr=False, compare=False)
    """The puzzle (colours, groups), when known: a solutions file names it but may not find it."""
    found_by: str | None = field(default=None, repr=False, compare=False)
    seconds: float | None = field(default=None, repr=False, compare=False)
    """From `solve`: the backend and the time it took to find this solution."""
    level: str | None = field(default=None, repr=False, compare=False)
    """Its disassembly level, when it was taken apart as it was found (`run(disassemble=True)`, a solutions
    file of `enumerate --disassemble`); None: not known, or it does not come apart."""
    burrtools_level: str | None = field(default=None, repr=False, compare=False)
    """The level BurrTools stored with this assembly (`stored_solutions` of a `.xmpuzzle` file), if any."""
    id: str | None = field(default=None, compare=False)
    """The class's stable id: 16 hex digits of a digest of its canonical form, the same in every run of
    the puzzle whatever the backend or the workers (`Source.solution(id=...)` takes a unique prefix);
    None where it is not known (a line of an older solutions file, a BurrTools file's stored assembly
    until `with_ids`)."""
    backend_reason: str | None = field(default=None, repr=False, compare=False)
    """From `solve`: why `auto` took `found_by` rather than dlx (None: dlx, or a backend named)."""

    @property
    def pieces(self) -> Mapping[str, tuple[Cell, ...]]:
        """Label -> cells, in the order the pieces are listed."""
        return MappingProxyType(dict(self.placed))

    def as_line(self, extra: Mapping[str, object] | None = None) -> str:
        """The solution as a line of the JSON-lines file `cpsolve enumerate` writes (`extra`: more keys)."""
        from ..output.solutions import class_line, origin_record

        if self.index is None or self.assemblies is None or self.mirror_distinct is None:
            raise CpsolveError("only a solution class (from enumerate or run) is a line of a solutions file",
                               where=self.name)
        pieces = {k: list(v) for k, v in self.pieces.items()}
        origin = None if self.puzzle is None else origin_record(self.puzzle)
        return class_line(self.name, self.index, self.assemblies, self.mirror_distinct, pieces,
                          dict(extra) if extra else None, self.id, origin)

    def __str__(self) -> str:
        """The solution as z-layers of letters, one letter per piece (what `cpsolve solve` prints)."""
        from ..output.text import draw as layers

        return layers(self.pieces, lattice=_grid(self.puzzle))


def _solution(puzzle: Puzzle, prepared: Prepared, cls: SolutionClass) -> Solution:
    from ..output.solutions import labelled

    return Solution(prepared.name, _frozen(labelled(prepared.problem, cls.placements)), cls.index, cls.assemblies,
                    cls.mirror_distinct, puzzle, id=cls.id)


class Counts(NamedTuple):
    """The three numbers: every assembly, up to rotation, up to rotation and reflection."""

    total: int
    unique_rotation: int
    unique_symmetry: int

    def _repr_html_(self) -> str:
        return _table(("total", "up to rotation", "up to rotation and reflection"), [tuple(map(str, self))])


JSON_KEYS = ("puzzle", "backend", "backend_reason", "total", "unique_rotation", "unique_symmetry", "seconds", "status",
             "complete", "solutions_found", "symmetry_breaking", "first_solution_seconds", "subproblems",
             "subproblems_done", "idle_tail_seconds", "prepare_seconds", "solutions_file", "journal", "disassembly")
"""The keys of `Result.as_json()` (`cpsolve enumerate --json`), in order: always all of them."""


@dataclass(frozen=True)
class Result:
    """What an enumeration reports: its counts and how it ended.

    `status` is "complete" (the counts are exact), "stopped" (a limit, or the caller stopped
    iterating), "timeout" or "interrupted" (Ctrl-C); then the counts are those of the assemblies
    visited so far. `as_json()` is the object `cpsolve enumerate --json` prints.
    """

    puzzle: str
    backend: str
    status: str
    counts: Counts
    seconds: float
    first_solution_seconds: float | None
    symmetry_breaking: str
    solutions_found: int
    """Solutions the backend reported (one per kept key placement with symmetry breaking)."""
    _json: dict[str, object] = field(repr=False, compare=False)
    backend_reason: str | None = None
    """Why the default backend ("auto") took `backend` rather than dlx, the fastest (a chain puzzle:
    sat); None when it is dlx or was asked for by name."""
    subproblems: int = 1
    subproblems_done: int = 0
    prepare_seconds: float | None = None
    """Loading aside, the time to prepare the puzzle (placements, symmetry, the key choice) before
    `seconds` began: `run` measures it; `enumerate`'s iterator prepares at the call."""
    solutions_file: str | None = None
    """Where `run(out=...)` wrote the solutions."""
    journal: str | None = None
    """The journal of `run(out=..., journal=...)` while it is kept (None once a default journal has been
    removed, its run complete)."""
    disassembly: Mapping[str, object] | None = field(default=None, compare=False)
    """With `run(disassemble=True)`: assemblies against solutions (those that come apart) in the three
    counts, the levels and the highest (`enumerate --disassemble`)."""

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def as_json(self) -> dict[str, object]:
        """The same keys whatever the options (JSON_KEYS), null where one does not apply."""
        more = {"prepare_seconds": None if self.prepare_seconds is None else round(self.prepare_seconds, 4),
                "solutions_file": self.solutions_file, "journal": self.journal,
                "disassembly": None if self.disassembly is None else dict(self.disassembly)}
        out = {**self._json, **more}
        return {key: out.get(key) for key in JSON_KEYS}

    def _repr_html_(self) -> str:
        rows = [(self.puzzle, self.backend, self.status, *map(str, self.counts), f"{self.seconds:.2f}")]
        return _table(("puzzle", "backend", "status", "total", "up to rotation", "up to rotation and reflection",
                       "seconds"), rows)


def _result(raw: EnumerationResult, **more: object) -> Result:
    return Result(raw.puzzle, raw.backend, raw.status.value, Counts(**raw.counts()), raw.seconds,
                  raw.first_solution_seconds, raw.key, raw.tally.found, raw.as_json(), raw.backend_reason,
                  raw.subproblems, raw.subproblems_done, **more)  # type: ignore[arg-type]


def _relabel(result: Result, status: str) -> Result:
    return replace(result, status=status,
                   _json={**result._json, "status": status, "complete": status == "complete"})
