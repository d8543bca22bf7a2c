"""The public Python API: load a puzzle, solve, count, enumerate, compare, export, take apart, draw.

Everything here is importable from `cpsolve` itself (`cpsolve.__all__` lists it) and is what the
command line does, one function per thing, built on the stages below (this module only strings
them together, as the command line, `cpsolve/cli/`, does). Errors are raised as `CpsolveError`
(bad input: `exit_code` 2; a failure while running: 1); nothing here prints, and notices stay
`CpsolveNotice` warnings.

>>> import cpsolve
>>> soma = cpsolve.load("soma")
>>> cpsolve.count(soma)
Counts(total=11520, unique_rotation=480, unique_symmetry=240)

In a notebook, puzzles, solutions and results show themselves: a solution as its picture
(`_repr_png_`) and as the 3-D page (`_repr_html_`, self-contained, in an iframe), a puzzle as its
pieces, a result or a comparison as a small table. `Puzzle` lives in stage 1, which cannot import
the pictures of stage 5: importing this module *injects* its two display methods into the class
(`_install_display`), so a puzzle shows itself once `cpsolve` has handed one out.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import json
import math
import os
import re
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Literal, NamedTuple, overload

from .errors import CpsolveError, CpsolveNotice
from .limits import check_drawing, check_timeout
from .output.text import markup
from .puzzle.geometry import Cell
from .puzzle.model import Puzzle

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .analysis.compare import CompareRow
    from .analysis.disassembly import Disassembly, PlacedDisassembler
    from .analysis.explain import Report as ExplainReport
    from .analysis.explain.counting import ColourArgument, Scheme
    from .analysis.report import ReportRow
    from .problem.placements import ExactCoverProblem
    from .puzzle.burrtools import BurrFile
    from .search.backends import Backend
    from .search.enumeration import JournalPlan, Prepared
    from .search.estimate import SolutionEstimate
    from .search.journal import Summary as JournalSummary
    from .search.parallel import Pipeline
    from .search.result import EnumerationResult, Progress, SolutionClass

__all__ = [
    "ApproxCounts", "BackendInfo", "Comparison", "Counts", "CpsolveError", "CpsolveNotice", "Decoded",
    "Enumeration", "Estimate", "Explanation", "Imported", "Puzzle", "Report", "Result", "Solution", "Source",
    "Suggestion", "UniqueDesign", "backends", "compare", "count", "count_approx", "decode", "design_pieces",
    "design_snakes", "design_unique", "disassemble", "draw", "enumerate", "estimate", "explain", "export",
    "import_xmpuzzle", "load", "models", "page", "printable", "puzzle_from_dict", "puzzle_from_xmpuzzle",
    "puzzle_from_yaml", "read_journal", "read_solutions", "report", "run", "sample", "schema", "solve",
    "source", "stored_solutions",
]

PathLike = str | os.PathLike[str]

TIMEOUT_EXIT = 3
"""The `exit_code` of the error a timeout raises (`solve`, `count`): the command line's exit status for a run
its --timeout cut short, distinct from 1 (a failure) and 2 (bad input)."""


# --- puzzles --------------------------------------------------------------------------------------


def models() -> list[str]:
    """The names of the built-in models (what `cpsolve list` shows).

    >>> "soma" in cpsolve.models()
    True
    """
    from .puzzle.catalog import builtin_names

    return builtin_names()


def load(model: PathLike, problem: int | None = None) -> Puzzle:
    """A built-in model by name, or a puzzle file: YAML, or BurrTools (problem `problem`, 0 by default),
    told apart by their content (`source`).

    The file is read again on every call (the command line's loader keeps what it read, which in a
    notebook would hide an edit to the file); errors name the file and the field. A solutions file is
    not a puzzle: the error names the puzzle it holds solutions of.

    >>> soma = cpsolve.load("soma")
    >>> soma.name, soma.n_pieces, len(soma.container)
    ('soma', 7, 27)
    >>> cpsolve.load("no-such-model.yaml")
    Traceback (most recent call last):
    cpsolve.errors.CpsolveError: no-such-model.yaml: no such puzzle file
    """
    return source(model, problem).require_puzzle()


SourceKind = Literal["model", "puzzle", "xmpuzzle", "solutions"]
_KINDS: dict[str, str] = {"model": "a built-in model", "puzzle": "a puzzle file", "xmpuzzle": "a BurrTools file",
                          "solutions": "a solutions file"}


def source(text: PathLike, problem: int | None = None) -> Source:
    """What a command's MODEL or FILE argument names: a built-in model, a YAML puzzle file, a BurrTools
    file (its problem `problem`, 0 by default) or a solutions file (JSON lines of `cpsolve enumerate`),
    recognised by its content, never by its name: gzip or XML is BurrTools, a first line that is a
    solution line is solutions, anything else is read as YAML. A bare built-in name means the model,
    even where a file of that name exists here (a notice says `./NAME` means the file). Every command
    reads its argument through this one function.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> bar = "name: bar\\ncontainer: {box: [3, 1, 1]}\\npieces: {I: {layers: [['###']]}}"
    >>> _ = (folder / "bar.yaml").write_text(bar)
    >>> with open(folder / "found.txt", "w") as out:
    ...     r = cpsolve.run(cpsolve.load(folder / "bar.yaml"), lambda s: print(s.as_line(), file=out))
    >>> [cpsolve.source(x).kind for x in ("soma", folder / "bar.yaml", folder / "found.txt")]
    ['model', 'puzzle', 'solutions']
    >>> cpsolve.load(folder / "found.txt")
    Traceback (most recent call last):
    cpsolve.errors.CpsolveError: .../found.txt: is a solutions file, not a puzzle (this file names puzzle bar)
    >>> cpsolve.source("soma", problem=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    cpsolve.errors.CpsolveError: problem: soma is a built-in model, not a BurrTools file: ...
    """
    from .puzzle.catalog import models_dir, resolve

    given = os.fspath(text)
    found = resolve(given)
    kind: SourceKind = "model" if found == models_dir() / f"{given}.yaml" else _kind_of(Path(str(found)))
    if problem is not None and kind != "xmpuzzle":
        raise CpsolveError(f"{given} is {_KINDS[kind]}, not a BurrTools file: only BurrTools files hold several "
                           "problems", field="problem")
    if problem is not None and problem < 0:
        raise CpsolveError(f"must be 0 or more, not {problem}", field="problem")
    return Source(given, kind, problem if kind != "xmpuzzle" else problem or 0)


def _kind_of(path: Path) -> SourceKind:
    """A file's kind from its first bytes (see `source`)."""
    from .errors import unreadable

    try:
        with path.open("rb") as fh:
            head = fh.read(2)
            if head == b"\x1f\x8b":
                return "xmpuzzle"
            first = head + fh.readline(SNIFF_BYTES)
    except OSError as exc:
        raise unreadable(path, exc) from None
    text = first.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        return "xmpuzzle"
    if text.startswith(b"{"):
        from .output.solutions import is_solution_line  # the solutions' reader and checks: for a JSON line only

        if is_solution_line(first):
            return "solutions"
    if len(first) > SNIFF_BYTES and re.match(rb'\{\s*"(puzzle|class|pieces)"\s*:', text):
        return "solutions"  # a first line too long to read whole, begun as enumerate begins its lines
    if not text and path.suffix == ".jsonl":  # an empty solutions file: the content cannot tell
        return "solutions"
    return "puzzle"


SNIFF_BYTES = 64 << 20
"""How much of a file's first line `source` reads to tell a solutions line (a 20,000-cell puzzle's line
is about 300 KB) from a puzzle file."""


@dataclass(frozen=True)
class Source:
    """A command's MODEL or FILE argument, recognised (`source`): what it is, its puzzle, its solutions."""

    given: str
    """The name or path as given."""
    kind: SourceKind
    """"model" (built in), "puzzle" (a YAML file), "xmpuzzle" (BurrTools) or "solutions" (JSON lines)."""
    problem: int | None = None
    """The BurrTools file's problem (0-based); None for the other kinds."""

    @property
    def what(self) -> str:
        """The kind in words: "a built-in model", "a puzzle file", "a BurrTools file", "a solutions file"."""
        return _KINDS[self.kind]

    @property
    def path(self) -> Path | None:
        return None if self.kind == "model" else Path(self.given)

    @cached_property
    def puzzle(self) -> Puzzle | None:
        """The puzzle; for a solutions file the one its lines name, when that loads (a built-in model, a
        path), else None."""
        if self.kind == "solutions":
            name = self.named
            if name is None:
                return None
            try:
                return load(name)
            except CpsolveError:
                return None
        if self.kind == "xmpuzzle":
            from .puzzle.burrtools import puzzle_of

            return puzzle_of(self._burrtools, self.problem or 0)
        from .puzzle.catalog import read

        return read(self.given)

    @cached_property
    def _burrtools(self) -> BurrFile:
        """A BurrTools file as read, once for its puzzle and its stored assemblies."""
        from .puzzle.burrtools import parse_xmpuzzle

        return parse_xmpuzzle(Path(self.given))

    @cached_property
    def named(self) -> str | None:
        """The puzzle's name: the one a solutions file's first line gives (None for an empty file)."""
        if self.kind != "solutions":
            puzzle = self.puzzle
            return None if puzzle is None else puzzle.name
        from .output.solutions import read_solutions as read_lines

        try:
            return str(read_lines(Path(self.given), 1)[0][1].get("puzzle", "")) or None
        except CpsolveError:
            return None

    def require_puzzle(self, command: str | None = None) -> Puzzle:
        """The puzzle; for a solutions file, one line saying that `command` (or this) takes a puzzle."""
        if self.kind == "solutions":
            needs = f"; {command} takes a puzzle" if command else ", not a puzzle"
            names = "" if self.named is None else f" (this file names puzzle {self.named})"
            raise CpsolveError(f"is a solutions file{needs}{names}", where=self.given)
        puzzle = self.puzzle
        assert puzzle is not None
        return puzzle

    def stored(self, limit: int = 0, *, start: int = 0) -> list[Solution]:
        """What the file holds, from `start` (the first `limit` when > 0): a solutions file's lines, a
        BurrTools file's stored assemblies; none for a model or a YAML file."""
        if self.kind == "solutions":
            return read_solutions(Path(self.given), limit, start=start)
        if self.kind == "xmpuzzle":
            return _stored(self._burrtools, self.problem or 0, limit, start, self.puzzle)
        return []

    def each(self) -> Iterator[Solution]:
        """Everything `stored()` gives, one at a time: a solutions file is read line by line, so that a
        file of any length is exported in the memory of one line (`cpsolve export --with-solutions`)."""
        if self.kind == "solutions":
            return _each_solution(Path(self.given))
        return iter(self.stored())

    def solutions(self, limit: int = 0, *, start: int = 0) -> list[Solution]:
        """The solutions from `start` (the first `limit` when > 0): those the file holds (`stored`), else
        the puzzle's classes in the order one worker finds them (`enumerate`)."""
        held = self.stored(limit, start=start)
        if held or self.kind == "solutions":
            return held
        found = list(enumerate(self.require_puzzle(), limit=start + limit if limit else 0))
        if len(found) <= start:
            if not found:
                raise CpsolveError("has no solution", where=self.given, exit_code=1)
            classes = "1 solution class (index 0)" if len(found) == 1 else \
                f"{len(found)} solution classes (indices 0 to {len(found) - 1})"
            raise CpsolveError(f"has {classes}; there is no index {start}", where=self.given)
        return found[start:]

    def solution(self, index: int | None = None, *, id: str | None = None) -> Solution:
        """Solution `index` (0-based) of `solutions`; None: the first there is, which for a puzzle with
        none stored is the first the search finds (`solve`), not its class 0. With `id`, the one solution
        whose id starts with it (4 to 16 hex digits), wherever it stands: among those the file holds, else
        among the puzzle's classes (all of them are found to make sure the prefix is unique)."""
        if id is not None:
            if index is not None:
                raise CpsolveError("give an index or an id, not both", field="id")
            return self._by_id(id)
        if index is not None:
            return self.solutions(1, start=index)[0]
        held = self.stored(1)
        if held:
            return held[0]
        found = solve(self.require_puzzle())
        if found is None:
            raise CpsolveError("has no solution", where=self.given, exit_code=1)
        return found

    def _by_id(self, prefix: str) -> Solution:
        from .problem.canonical import ID_DIGITS

        wanted = prefix.strip().lower()
        if not re.fullmatch(f"[0-9a-f]{{4,{ID_DIGITS}}}", wanted):
            raise CpsolveError(f"an id is 4 to {ID_DIGITS} hex digits (the start of a solution's id), not {prefix!r}",
                               field="id")
        held = self.stored()
        if not held and self.kind != "solutions":
            held = self.solutions()
        if any(s.id is None for s in held):  # a file from before ids, a BurrTools file's stored assemblies
            held = _with_ids(self.puzzle, held, self.given)
        matches = [s for s in held if s.id is not None and s.id.startswith(wanted)]
        if not matches:
            raise CpsolveError(f"no solution's id starts with {wanted}", where=self.given)
        if len({s.id for s in matches}) > 1:
            shown = ", ".join(sorted({str(s.id) for s in matches})[:3])
            raise CpsolveError(f"{wanted} starts the ids of {len(matches)} solutions ({shown}...): give more digits",
                               where=self.given)
        return matches[0]


def _with_ids(puzzle: Puzzle | None, solutions: Sequence[Solution], where: str) -> list[Solution]:
    """The solutions with their class ids (`Solution.id`), worked out from the puzzle where they are missing."""
    from .output.solutions import rows_of
    from .problem.canonical import class_id
    from .search.enumeration import prepare

    if puzzle is None:
        raise CpsolveError("its lines have no ids and the puzzle they name cannot be loaded to work them out",
                           where=where)
    prepared = prepare(puzzle)
    out = []
    for s in solutions:
        rows = None if s.id is not None else rows_of(prepared.problem, s.pieces)
        key = None if rows is None else prepared.canonicalizer.forms(prepared.problem, rows).symmetry_key
        out.append(s if key is None else replace(s, id=class_id(key)))
    return out


def puzzle_from_yaml(text: str, where: str = "<yaml>") -> Puzzle:
    """A puzzle from the text of a puzzle file, validated exactly as a file is (limits included).

    >>> p = cpsolve.puzzle_from_yaml('''
    ... name: bar
    ... container: {box: [3, 1, 1]}
    ... pieces: {I: {cells: [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}}
    ... ''')
    >>> p.name, [piece.name for piece in p.pieces]
    ('bar', ['I'])
    """
    from .puzzle.loader import parse_puzzle_text
    from .puzzle.model import to_puzzle

    spec = parse_puzzle_text(text, where)
    try:
        return to_puzzle(spec)
    except CpsolveError as exc:
        raise exc.located(where) from None


def puzzle_from_dict(data: Mapping[str, object], where: str = "<dict>") -> Puzzle:
    """A puzzle built in code: the same keys as a puzzle file (`docs` of `cpsolve schema`).

    Pieces from `cells` or drawings (`layers`), containers from `box`, `layers` or `union`. The
    mapping goes through the file reader as JSON (which is YAML), so that it meets exactly the same
    checks and limits as a file; tuples count as lists.

    >>> two_by_two = cpsolve.puzzle_from_dict({
    ...     "name": "2x2x2",
    ...     "container": {"box": [2, 2, 2]},
    ...     "pieces": {"L": {"cells": [(0, 0, 0), (1, 0, 0), (0, 1, 0)], "count": 2},
    ...                "D": {"layers": [["##"]]}},
    ... })
    >>> cpsolve.count(two_by_two)
    Counts(total=36, unique_rotation=3, unique_symmetry=2)
    >>> cpsolve.puzzle_from_dict({"name": "x", "container": {"box": [2, 1, 1]}, "pieces": {}})
    Traceback (most recent call last):
    cpsolve.errors.CpsolveError: <dict>: a 'pieces' puzzle needs a non-empty 'pieces' mapping
    """
    try:
        text = json.dumps(data, default=str)
    except (TypeError, ValueError, RecursionError) as exc:
        raise CpsolveError(f"not a puzzle mapping: {exc}", where=where) from None
    return puzzle_from_yaml(text, where)


def puzzle_from_xmpuzzle(path: PathLike, problem: int = 0) -> Puzzle:
    """Problem `problem` (0-based) of a BurrTools file, as `cpsolve import` reads it."""
    from .puzzle.burrtools import read_xmpuzzle

    return read_xmpuzzle(Path(path), problem)


# --- solutions and results ------------------------------------------------------------------------


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

    @property
    def pieces(self) -> Mapping[str, tuple[Cell, ...]]:
        """Label -> cells, in the order the pieces are listed."""
        return MappingProxyType(dict(self.placed))

    def as_line(self, extra: Mapping[str, object] | None = None) -> str:
        """The solution as a line of the JSON-lines file `cpsolve enumerate` writes (`extra`: more keys)."""
        from .output.solutions import class_line

        if self.index is None or self.assemblies is None or self.mirror_distinct is None:
            raise CpsolveError("only a solution class (from enumerate or run) is a line of a solutions file",
                               where=self.name)
        pieces = {k: list(v) for k, v in self.pieces.items()}
        return class_line(self.name, self.index, self.assemblies, self.mirror_distinct, pieces,
                          dict(extra) if extra else None, self.id)

    def __str__(self) -> str:
        """The solution as z-layers of letters, one letter per piece (what `cpsolve solve` prints)."""
        from .output.text import draw as layers

        return layers(self.pieces)

    def _repr_png_(self) -> bytes:
        return draw(self, "png")

    def _repr_html_(self) -> str:
        return _iframe(page(self), height=520)


def _solution(puzzle: Puzzle, prepared: Prepared, cls: SolutionClass) -> Solution:
    from .output.solutions import labelled

    return Solution(prepared.name, _frozen(labelled(prepared.problem, cls.placements)), cls.index, cls.assemblies,
                    cls.mirror_distinct, puzzle, id=cls.id)


def _frozen(pieces: Mapping[str, Iterable[Sequence[int]]]) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    return tuple((k, tuple((int(c[0]), int(c[1]), int(c[2])) for c in cells)) for k, cells in pieces.items())


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


# --- solving and counting -------------------------------------------------------------------------


def _prepare(puzzle: Puzzle, backend: str, symmetry_breaking: bool, workers: int = 1) -> tuple[Prepared, Backend]:
    """Placements, symmetry, canonical forms and the backend: what every command does first (the key
    choice on `workers` processes)."""
    from .search.backends import for_problem

    prepared = _prepared(puzzle, symmetry_breaking, workers)
    return prepared, for_problem(backend, prepared.problem)


def _prepared(puzzle: Puzzle, symmetry_breaking: bool, workers: int = 1) -> Prepared:
    """`_prepare` without a backend (ApproxMC and UniGen take the CNF)."""
    from .search.enumeration import prepare

    if not isinstance(puzzle, Puzzle):
        raise CpsolveError(f"expected a Puzzle (from cpsolve.load and the like), not {type(puzzle).__name__}")
    return prepare(puzzle, symmetry_breaking, max(workers, 1))


def solve(puzzle: Puzzle, backend: str = "auto", *, timeout: float | None = None,
          symmetry_breaking: bool = True, on_start: Callable[[], object] | None = None) -> Solution | None:
    """The first solution the backend finds, or None when the puzzle has none.

    A `timeout` (seconds, counted from the call: preparing the puzzle is part of it) that passes first
    raises `CpsolveError` (exit code 3): None always means "no solution". `print(solution)` draws it as
    z-layers, one letter per piece. `on_start` is called once the puzzle is prepared, as the search
    starts.

    >>> s = cpsolve.solve(cpsolve.load("slothouber-graatsma"))
    >>> print(s)
    z=0  z=1  z=2
    ADD  ADD  BBI
    AEE  AHF  BBF
    GEE  CCF  CCF
    <BLANKLINE>
    A B C D E F = block (6 copies)
    G H I = unit (3 copies)
    >>> s.pieces["unit#1"], s.assemblies, s.found_by
    (((0, 2, 0),), 8, 'dlx')
    """
    from .output.solutions import labelled, rows_as_placements
    from .problem.canonical import class_id
    from .search.backends import Status
    from .search.enumeration import first_solution

    began = time.perf_counter()
    prepared, engine = _prepare(puzzle, backend, symmetry_breaking)
    if on_start is not None:
        on_start()
    left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
    rows, stats = first_solution(prepared, engine, left)
    if rows is None:
        if stats.status is Status.INTERRUPTED:
            raise KeyboardInterrupt
        if stats.status is Status.TIMEOUT:
            raise CpsolveError(f"timed out before finding a solution ({stats.backend}, {stats.seconds:.2f} s)",
                               where=prepared.name, field="timeout", exit_code=TIMEOUT_EXIT)
        return None
    problem = prepared.broken.problem
    forms = prepared.canonicalizer.forms(problem, rows)
    return Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), None,
                    forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                    stats.backend, stats.seconds, id=class_id(forms.symmetry_key))


def run(
    puzzle: Puzzle,
    on_solution: Callable[[Solution], object] | None = None,
    *,
    backend: str = "auto",
    workers: int = 1,
    limit: int = 0,
    timeout: float | None = None,
    symmetry_breaking: bool = True,
    progress: Progress | bool | None = None,
    out: PathLike | bool | None = None,
    journal: PathLike | bool = True,
    resume: bool = False,
    cluster: str | None = None,
    disassemble: bool = False,
    min_level: str | None = None,
    command: Sequence[str] = (),
    on_start: Callable[[], object] | None = None,
    sort: bool = False,
) -> Result:
    """Enumerate in this process, calling `on_solution` with each new class as soon as it is found.

    This is `cpsolve enumerate`: `limit` stops after that many classes, `timeout` (seconds, counted
    from the call: preparing the puzzle is part of it) ends the run with status "timeout", `workers`
    > 1 splits it over forked processes (solutions still reach `on_solution` here), `cluster`
    ("tcp://HOST:8786", "local:N") runs the parts on a Dask cluster. Ctrl-C ends it with status
    "interrupted", never between a class being counted and `on_solution` returning, so the counts
    never run ahead of what it was given. `progress` receives the running record about five times a
    second; True shows the command line's progress on stderr (a bar on a terminal, else a line every
    5 s). For an iterator, see `enumerate`.

    `out` writes the solutions file as the command line does (one JSON line per class, flushed as it
    is found; True: `NAME.solutions.jsonl` here), refused before the search if it cannot be written or
    would replace the puzzle or a journal. With it, `journal` (True: `OUT.journal`, removed once the
    run is complete; a path: kept; False: none) records each finished subproblem, and `resume`
    continues the run a journal holds; `command` is the command line the journal shows to resume it.
    `disassemble` takes each class apart as it comes (`result.disassembly`, each solution's `level`);
    `min_level` ("5", "1.2") writes only the solutions at that level or above. `sort` rewrites the
    file of a complete run in the order of the classes' ids (`Solution.id`), each line's `class` its
    rank in that order: two complete runs of a puzzle then write the same bytes, whatever their backend
    and workers. `on_start` is called once the puzzle is prepared, as the search starts (the command
    line ends its preparation deadline there).

    >>> names = []
    >>> r = cpsolve.run(cpsolve.load("soma"), lambda s: names.append(s.index), limit=3)
    >>> names, r.status
    ([0, 1, 2], 'stopped')
    """
    from .output.solutions import (
        LineWriter,
        SolutionsFile,
        check_destination,
        default_solutions_path,
        labelled,
        sort_by_id,
    )
    from .search.enumeration import enumerate_classes

    began = time.perf_counter()
    apart = _Disassembling(puzzle, min_level) if disassemble or min_level is not None else None
    if apart is not None and puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=puzzle.name, field="disassemble")
    prepared, engine = _prepare(puzzle, backend, symmetry_breaking, workers)
    if apart is not None:
        apart.start(prepared.problem)
    if on_start is not None:
        on_start()
    prepare_seconds = time.perf_counter() - began
    path = None if out is None or out is False else default_solutions_path(puzzle.name) if out is True else Path(out)
    origin = Path(puzzle.origin) if puzzle.origin and Path(puzzle.origin).is_file() else None
    if path is not None:
        check_destination(path, origin)
    book = _journal_plan(journal, resume, path, origin, command)
    sink: SolutionsFile | None = None
    problem = prepared.problem
    lines = LineWriter(prepared.name, problem)

    def ready(resumed: bool) -> None:
        """The journal is sound and open: only now is the solutions file emptied (or, resumed, kept)."""
        nonlocal sink
        if path is not None:
            sink = SolutionsFile(path, keep=resumed)

    ids: list[str] = []

    def emit(cls: SolutionClass, pieces: Mapping[str, Sequence[Cell]] | None, taken: _TakenApart | None) -> None:
        """One class to the file and the caller, after it was taken apart (`taken`) if it was to be."""
        extra = None if apart is None or taken is None else apart.record(cls, taken)
        if sort:
            ids.append(cls.id)
        if sink is not None and (apart is None or extra is not None):
            sink.write(lines.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, extra, cls.id))
        if on_solution is not None and pieces is not None:
            on_solution(Solution(prepared.name, _frozen(pieces), cls.index, cls.assemblies, cls.mirror_distinct,
                                 puzzle, level=None if taken is None else taken[1], id=cls.id))

    # With workers, the classes are taken apart on as many forked processes while the search goes on, in
    # the order found, PIPELINE_BATCH at a time (one class is too little work to pay for the trip); after a
    # pause of PIPELINE_GAP the classes held and those sent off are seen to at once, so a slow stream is
    # written as it comes.
    pipeline: Pipeline[_Job, list[_TakenApart]] | None = None
    held: list[tuple[SolutionClass, Mapping[str, Sequence[Cell]] | None]] = []
    waiting: deque[list[tuple[SolutionClass, Mapping[str, Sequence[Cell]] | None]]] = deque()
    moves = path is not None  # the moves are written to the solutions file, and only there
    last_class = 0.0

    def emit_ready(results: list[list[_TakenApart]]) -> None:
        for batch in results:
            for (cls, pieces), taken in zip(waiting.popleft(), batch, strict=True):
                emit(cls, pieces, taken)

    def send_held() -> None:
        assert pipeline is not None and apart is not None
        if held:
            waiting.append(held[:])
            job = (apart.disassembler, [cls.placements for cls, _ in held], moves)
            held.clear()
            emit_ready(pipeline.put(job))

    def on_class(cls: SolutionClass) -> None:
        nonlocal last_class
        pieces = labelled(problem, cls.placements) if on_solution is not None else None
        if apart is None:
            emit(cls, pieces, None)
            return
        if pipeline is None:
            emit(cls, pieces, _take_apart((apart.disassembler, [cls.placements], moves))[0])
            return
        now = time.perf_counter()
        gap, last_class = now - last_class, now
        held.append((cls, pieces))
        if len(held) >= PIPELINE_BATCH or gap > PIPELINE_GAP:
            send_held()
        if gap > PIPELINE_GAP:
            emit_ready(pipeline.finish())

    shown = _progress_display() if progress is True else progress or None
    left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
    try:
        with contextlib.ExitStack() as stack:
            if apart is not None and workers > 1 and cluster is None:
                from .search.parallel import Pipeline, forked_pool

                pipeline = Pipeline(stack.enter_context(forked_pool(workers)), _take_apart)
            raw = enumerate_classes(prepared, engine, limit=limit, timeout=left, workers=workers,
                                    on_class=on_class, progress=shown, journal=book, cluster=cluster,
                                    on_ready=ready)
            if pipeline is not None:
                send_held()
                emit_ready(pipeline.finish())
    except BaseException:
        if sink is not None:  # the first error is the one to report, not a second one from closing
            with contextlib.suppress(CpsolveError):
                sink.close()
        raise
    finally:
        if shown is not None and progress is True:
            shown.close()  # type: ignore[attr-defined]
    if sink is not None:
        sink.close()
    complete = raw.status.value == "complete"
    if sort and complete and path is not None and path.is_file():
        sort_by_id(path, ids)
    kept = book is not None and not (complete and journal is True)
    if book is not None and not kept:
        from .search.journal import remove  # here: a run without a journal loads no journal code

        remove(book.path)  # the default journal has served its purpose
    return _result(raw, prepare_seconds=prepare_seconds, solutions_file=None if path is None else str(path),
                   journal=str(book.path) if book is not None and kept else None,
                   disassembly=None if apart is None else apart.tally.as_json())


def _progress_display() -> Progress:
    """The command line's progress on stderr: rich's bar on a terminal, a plain line every 5 s elsewhere."""
    from .output.progress import make_progress

    return make_progress()


def _journal_plan(journal: PathLike | bool, resume: bool, solutions: Path | None, puzzle: Path | None,
                  command: Sequence[str]) -> JournalPlan | None:
    """Where the run is journalled: the path given, else beside the solutions file (unless that is a device
    or a pipe); none with journal=False, or without a solutions file and no path."""
    from .search.enumeration import JournalPlan

    if journal is False:
        if resume:
            raise CpsolveError("needs a journal: leave out --no-journal", field="resume")
        return None
    if journal is True and solutions is not None:
        from .search.journal import default_journal

        where = default_journal(solutions)
    else:
        where = None if journal is True else Path(journal)
    if where is None:
        if resume:
            why = "with --no-save" if solutions is None else "the solutions go to a device or a pipe"
            raise CpsolveError(f"{why}, name the journal with --journal PATH", field="resume")
        return None
    others = [(p, what) for p, what in ((solutions, "the solutions file (--out)"), (puzzle, "the puzzle file"))
              if p is not None]
    return JournalPlan(where, resume, tuple(command), tuple(others))


class _Disassembling:
    """`run(disassemble=True)`: takes each new solution class apart in this process, as it streams in,
    and keeps the tally of assemblies against solutions and levels."""

    def __init__(self, puzzle: Puzzle, min_level: str | None) -> None:
        from .analysis.disassembly import LevelTally, check_pieces, parse_level, puzzle_groups

        try:
            check_pieces(puzzle.n_pieces)
        except CpsolveError as exc:
            raise exc.located(puzzle.origin or puzzle.name) from None
        try:
            self.min_level = None if min_level is None else parse_level(min_level)
        except ValueError as exc:
            raise CpsolveError(str(exc), field="min_level") from None
        self.groups = puzzle_groups(puzzle)
        self.tally = LevelTally()
        self.disassembler: PlacedDisassembler | None = None

    def start(self, problem: ExactCoverProblem) -> None:
        """The puzzle is prepared: one disassembler for its placements (before any worker is forked)."""
        from .analysis.disassembly import PlacedDisassembler

        self.disassembler = PlacedDisassembler(problem, self.groups)

    def record(self, cls: SolutionClass, taken: _TakenApart) -> dict[str, object] | None:
        """A class taken apart (`_take_apart`) into the tally; the extra keys of its solutions-file line, or
        None to leave it out."""
        level, text, moves = taken
        self.tally.add(cls.assemblies, cls.mirror_distinct, level)
        if self.min_level is not None and (level is None or level < self.min_level):
            return None
        return {"level": text, "moves": moves}


_TakenApart = tuple[tuple[int, ...] | None, str | None, list[dict[str, object]]]
"""A class taken apart: its level (None: it does not come apart), the level as text, its moves as JSON
(`disassembly.Taken`)."""

_Job = tuple["PlacedDisassembler | None", list[tuple[tuple[int, tuple[int, ...]], ...]], bool]
"""Classes to take apart: the run's disassembler, their placements, whether their moves are wanted."""

PIPELINE_GAP = 0.02
"""Seconds between two classes past which `enumerate --disassemble` on workers sees to the classes held
and sent off before going on (see `run`): a fast stream is pipelined, a slow one written as it comes."""

PIPELINE_BATCH = 32
"""Classes sent to a worker together: taking one apart can take 0.1 ms, less than its trip to a worker."""


def _take_apart(job: _Job) -> list[_TakenApart]:
    """Take classes apart (a module-level function: the workers are sent it by name, and the disassembler
    as a number that names their own copy of it)."""
    disassembler, batch, moves = job
    assert disassembler is not None
    return disassembler.take_apart(batch, moves)


def count(puzzle: Puzzle, *, backend: str = "auto", workers: int = 1, timeout: float | None = None,
          symmetry_breaking: bool = True) -> Counts:
    """The three counts, exact: a run that does not finish raises instead of returning part of them
    (a timeout: `CpsolveError` with exit code 3; Ctrl-C: KeyboardInterrupt). `run` and
    `enumerate` report incomplete counts with their status.

    >>> cpsolve.count(cpsolve.load("t-tetracube-6x6x2"), workers=2)
    Counts(total=136, unique_rotation=20, unique_symmetry=10)
    """
    result = run(puzzle, backend=backend, workers=workers, timeout=timeout, symmetry_breaking=symmetry_breaking)
    if result.status == "interrupted":
        raise KeyboardInterrupt
    if not result.complete:
        from .problem.canonical import counts_text

        raise CpsolveError(f"{result.status} after {result.seconds:.2f} s: the counts so far "
                           f"({counts_text(result.counts)}) are incomplete", where=result.puzzle,
                           exit_code=TIMEOUT_EXIT if result.status == "timeout" else 1)
    return result.counts


class Enumeration(Iterator[Solution]):
    """An enumeration as an iterator of `Solution`s, one per class up to rotation and reflection.

    `enumerate` returns it. Iterate it to the end, or stop early (`break`, `close()`, or leaving a
    `with` block): the search stops at once and leaves no process behind. `result` then holds the
    counts and the status; when the caller stopped first ("stopped", or "interrupted" by Ctrl-C), the
    counts of the classes it was given, not of those the search process had found meanwhile.

    Why a process: the search is callback-driven (the engine calls back with each solution, deep
    inside its own loop), so to hand solutions out one at a time it runs somewhere else and sends
    them here. A thread would be the obvious choice, but it cannot be stopped when it is not calling
    back (a long stretch without a new class, a SAT solver holding the interpreter lock), and Python
    delivers Ctrl-C only to the main thread. A forked process is stopped like the command line is,
    by a signal (SIGINT, which the engines all honour within milliseconds: the run's workers are
    stopped and the counts so far sent back), and killed if it does not answer within `GRACE`
    seconds. It starts on the first `next()`, inherits the prepared puzzle (nothing is pickled but
    the solutions), and blocks when the caller is not reading (the pipe fills), so a paused loop
    costs no CPU. `timeout` counts from that first `next()`.

    Ctrl-C while waiting for the next solution ends the iteration (status "interrupted"), as it
    ends `cpsolve enumerate`.
    """

    GRACE = 5.0
    """Seconds the search process has to stop on SIGINT before it is killed."""

    def __init__(self, puzzle: Puzzle, prepared: Prepared, engine: Backend, limit: int, timeout: float | None,
                 workers: int):
        check_timeout(timeout)
        self.puzzle = puzzle
        self._prepared, self._engine = prepared, engine
        self._limit, self._timeout, self._workers = limit, timeout, workers
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._received: list[tuple[int, bool]] = []
        """(assemblies, mirror_distinct) of each class handed to the caller."""
        self._result: Result | None = None
        self._owner = os.getpid()

    @property
    def result(self) -> Result:
        """The counts and status, once the run has ended (iterated to the end, or closed)."""
        if self._result is None:
            raise CpsolveError("the run has not ended yet: iterate it to the end, or close() it first",
                               where=self._prepared.name, exit_code=1)
        return self._result

    @property
    def running(self) -> bool:
        return self._pid is not None

    def __iter__(self) -> Enumeration:
        return self

    def __enter__(self) -> Enumeration:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop("interrupted" if kind is KeyboardInterrupt else "stopped")

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def close(self) -> None:
        """Stop the search (if it still runs); `result` then holds the counts so far."""
        self._stop("stopped")

    def __next__(self) -> Solution:
        if self._result is not None:
            raise StopIteration
        if self._conn is None:
            self._start()
        assert self._conn is not None
        try:
            kind, payload = self._conn.recv()
        except KeyboardInterrupt:
            self._stop("interrupted")
            raise StopIteration from None
        except (EOFError, OSError):
            self._reap()
            self._result = self._empty("interrupted")
            raise CpsolveError("the search process ended without a word", where=self._prepared.name,
                               exit_code=1) from None
        if kind == "class":
            self._received.append((payload.assemblies, payload.mirror_distinct))
            return _solution(self.puzzle, self._prepared, payload)
        self._reap()
        if kind == "error":
            self._result = self._empty("interrupted")
            raise payload
        self._result = payload
        raise StopIteration

    def _start(self) -> None:
        from multiprocessing import Pipe

        reader, writer = Pipe(duplex=False)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the search process: never returns
            code = 0
            try:
                reader.close()
                self._host(writer, parent)
            except BaseException:  # noqa: BLE001 - never run the caller's code after fork
                code = 1
            os._exit(code)
        writer.close()
        self._pid, self._conn = pid, reader

    def _host(self, conn: Connection, parent: int) -> None:
        """In the search process: SIGINT is the caller's request to stop (KeyboardInterrupt, which
        ends the enumeration with the counts so far); the answer is ("done", Result) or ("error", exc)."""
        from .search.enumeration import enumerate_classes
        from .search.parallel import die_with_parent, forked_child_signals

        forked_child_signals()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        die_with_parent(parent)
        try:
            raw = enumerate_classes(self._prepared, self._engine, limit=self._limit, timeout=self._timeout,
                                    workers=self._workers, on_class=lambda cls: conn.send(("class", cls)))
            conn.send(("done", _result(raw)))
        except (BrokenPipeError, EOFError):
            return
        except Exception as exc:  # noqa: BLE001 - the caller raises it
            error = exc if isinstance(exc, CpsolveError) else CpsolveError(
                f"internal error: {type(exc).__name__}: {exc}", exit_code=1)
            conn.send(("error", error))

    def _stop(self, status: str) -> None:
        """Ask the search process to stop, read what it still sends until its final counts, reap it."""
        if self._result is not None or os.getpid() != self._owner:
            return
        if self._pid is None:
            self._result = self._empty(status)
            return
        assert self._conn is not None
        final: Result | None = None
        try:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGINT)
            end = time.monotonic() + self.GRACE
            while (left := end - time.monotonic()) > 0 and self._conn.poll(left):
                kind, payload = self._conn.recv()
                if kind == "done":
                    final = payload
                    break
                if kind == "error":
                    break
        except (EOFError, OSError):
            pass
        finally:
            self._reap()
            self._result = self._handed_out(final or self._empty(status), status)

    def _handed_out(self, final: Result, status: str) -> Result:
        """The caller stopped before the end: the counts of the classes it was given (each class whole: its
        assemblies, 2 rotation classes where its mirror image is another), not of the ones the search process
        had found meanwhile, which can be hundreds more (the pipe holds them); status `status`."""
        got = self._received
        counts = Counts(sum(a for a, _ in got), sum(2 if m else 1 for _, m in got), len(got))
        return replace(_relabel(final, status), counts=counts,
                       _json={**final._json, "status": status, "complete": False, **counts._asdict()})

    def _reap(self) -> None:
        pid, self._pid = self._pid, None
        if self._conn is not None:
            self._conn.close()
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)

    def _empty(self, status: str) -> Result:
        """The result of a run that never started (or whose process was lost): no counts."""
        from .search.backends import Status
        from .search.result import EnumerationResult

        raw = EnumerationResult(self._prepared.name, self._engine.label, self._prepared.broken.key.describe(),
                                status=Status(status), backend_reason=self._engine.reason)
        return _result(raw)

    def _repr_html_(self) -> str:
        if self._result is None:
            return f"<p>{markup(self._prepared.name)}: {'running' if self.running else 'not started'}</p>"
        return self._result._repr_html_()


def enumerate(
    puzzle: Puzzle,
    *,
    backend: str = "auto",
    workers: int = 1,
    limit: int = 0,
    timeout: float | None = None,
    symmetry_breaking: bool = True,
) -> Enumeration:
    """Every solution class, as an iterator (an `Enumeration`) that can be stopped early; `run.result` has
    the counts once it has ended. Preparing the puzzle happens now (bad input raises here); the
    search starts on the first `next()`.

    >>> from itertools import islice
    >>> with cpsolve.enumerate(cpsolve.load("soma")) as run:
    ...     firsts = [s.index for s in islice(run, 2)]
    >>> firsts, run.result.status
    ([0, 1], 'stopped')
    >>> run = cpsolve.enumerate(cpsolve.load("soma"), workers=2)
    >>> sum(s.assemblies for s in run), run.result.counts
    (11520, Counts(total=11520, unique_rotation=480, unique_symmetry=240))
    """
    prepared, engine = _prepare(puzzle, backend, symmetry_breaking, workers)
    return Enumeration(puzzle, prepared, engine, limit, timeout, workers)


# --- beyond enumeration: approximate counts and random solutions ----------------------------------


@dataclass(frozen=True)
class ApproxCounts:
    """The total number of assemblies estimated two ways (`cpsolve count --approx`), and the counts
    up to symmetry derived from it.

    ApproxMC (`total`, `interval`): with probability at least 1 - `delta`, the true total lies in
    `interval`, which is [total / (1 + epsilon), total x (1 + epsilon)]; when `exact` no random cut
    was needed and the total is exact. Knuth's walks (`knuth`, `knuth_stderr`): an unbiased estimate
    with its standard error (no guarantee: rare big branches can hide from every walk, and then the
    error bar is too small too). Either is None when it did not run or did not finish (`notes` says
    why).

    The derived counts: by Burnside's lemma the classes up to rotation number (1 / |R|) x the sum over
    the container's rotations g of the assemblies g leaves unchanged; the identity leaves every one,
    so the classes are total / |R| (`rotations`) exactly when no assembly is symmetric, and more when
    some are. `unique_rotation` and `unique_symmetry` (over `symmetries` elements: the reflections
    count only when the piece set is closed under mirroring) are those lower estimates, approximations
    whenever the total is one, and a fraction shows that symmetric assemblies exist.
    """

    puzzle: str
    total: int | None
    interval: tuple[float, float] | None
    exact: bool
    epsilon: float
    delta: float
    seed: int
    seconds: float | None
    """ApproxMC's time (wall), its preprocessing included."""
    knuth: float | None
    knuth_stderr: float | None
    knuth_walks: int
    knuth_seconds: float | None
    rotations: int
    symmetries: int
    notes: tuple[str, ...] = ()
    knuth_reached: int = 0
    """Walks that reached a solution (the others are worth 0): with few, the error bar is unreliable too."""

    @property
    def best(self) -> float | None:
        """ApproxMC's total when there is one, else Knuth's estimate."""
        return float(self.total) if self.total is not None else self.knuth

    @property
    def unique_rotation(self) -> float | None:
        return None if self.best is None else self.best / self.rotations

    @property
    def unique_symmetry(self) -> float | None:
        return None if self.best is None else self.best / self.symmetries

    def as_json(self) -> dict[str, object]:
        """What `cpsolve count --approx --json` prints."""
        return {
            "puzzle": self.puzzle, "total": self.total, "interval": list(self.interval) if self.interval else None,
            "exact": self.exact, "epsilon": self.epsilon, "delta": self.delta, "seed": self.seed,
            "seconds": self.seconds,
            "knuth": {"total": self.knuth, "stderr": self.knuth_stderr, "walks": self.knuth_walks,
                      "reached": self.knuth_reached, "seconds": self.knuth_seconds},
            "derived": {"unique_rotation": self.unique_rotation, "unique_symmetry": self.unique_symmetry,
                        "rotations": self.rotations, "symmetries": self.symmetries,
                        "how": "total / rotations and total / symmetries: exact only when no assembly is "
                               "symmetric (Burnside), otherwise the true counts are larger"},
            "notes": list(self.notes),
        }

    def _repr_html_(self) -> str:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.4g}"

        low, high = self.interval or (None, None)
        return _table(("total (ApproxMC)", "interval", "δ", "Knuth", "± (1 s.e.)", "up to rotation ≈",
                       "up to rotation and reflection ≈"),
                      [(num(self.total), f"{num(low)} - {num(high)}", f"{self.delta:g}", num(self.knuth),
                        num(self.knuth_stderr), num(self.unique_rotation), num(self.unique_symmetry))])


def count_approx(
    puzzle: Puzzle,
    *,
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 1,
    walks: int = 100_000,
    timeout: float | None = None,
    knuth_seconds: float | None = None,
    workers: int = 1,
    approxmc: bool = True,
    progress: Callable[[str], object] | None = None,
) -> ApproxCounts:
    """The total number of assemblies without enumerating them: ApproxMC's count of the sat backend's
    CNF projected on the placement variables (within a factor 1 + `epsilon` with probability at least
    1 - `delta`; `seed` makes it reproducible), and Knuth's estimate from `walks` random walks of the
    dlx engine's tree (stratified over the key piece's placements, each weighted by its orbit), with
    its standard error. Needs the extra `cpsolve[approx]` for ApproxMC (`approxmc=False` skips it).

    `timeout` (seconds) bounds ApproxMC (then `total` is None and `notes` says so); `knuth_seconds`
    bounds the walks (they stop after the batch that passes it). ApproxMC runs on one core: `workers`
    > 1 shares the walks among forked processes. `progress` receives one-line reports. A chain has no
    walks (its joints are not exact cover). See `ApproxCounts` for the derived counts.

    >>> a = cpsolve.count_approx(cpsolve.load("slothouber-graatsma"), walks=4000)
    >>> a.total, a.exact, a.interval, a.delta
    (8, True, (8.0, 8.0), 0.2)
    >>> 7 < a.knuth < 9, a.rotations
    (True, 24)
    """
    from .search.approx import check_parameters
    from .search.estimate import estimate_solutions

    check_parameters(epsilon, delta)
    check_timeout(timeout)
    check_timeout(knuth_seconds, "knuth_seconds")
    if walks < 0:
        raise CpsolveError(f"must be >= 0, not {walks}", field="walks")
    prepared = _prepared(puzzle, True, workers)
    problem, broken = prepared.problem, prepared.broken
    numberings = 1 + len(problem.label_symmetries)
    notes: list[str] = []
    total = interval = seconds = None
    exact = False
    if approxmc:
        from .search.approx import part_cnfs, split_count

        weights = broken.weights or (1,)

        def part_done(done: int, of: int) -> None:
            if progress is not None:
                progress(f"ApproxMC: {done} of {of} parts counted")

        try:
            cnfs = part_cnfs(broken.problem, broken.starts)
            if progress is not None:
                progress(f"ApproxMC: counting {len(cnfs)} part(s) (the key's placements), each CNF projected on "
                         "the placement variables")
            found = split_count(list(zip(cnfs, weights, strict=True)), epsilon, delta, seed, timeout, workers,
                                part_done)
        except CpsolveError as exc:  # past the timeout, not installed, a CNF past --max-literals: Knuth answers
            if not walks or exc.where is not None or exc.field not in ("timeout", "approx", None):
                raise
            notes.append(f"ApproxMC: {exc.message}")
        else:
            total, exact, seconds = found.count // numberings, found.is_exact, found.seconds
            low, high = found.interval
            interval = (low / numberings, high / numberings)
    knuth = knuth_stderr = knuth_seconds_taken = None
    knuth_walks = knuth_reached = 0
    if walks and problem.side_clauses:
        notes.append("Knuth: no walks for a chain (its joints are not exact cover)")
    elif walks:
        if progress is not None:
            progress(f"Knuth: {walks} random walks of the search tree")

        def report(e: SolutionEstimate) -> None:
            if progress is not None:
                progress(f"Knuth: {e.walks} walks, {e.solutions / numberings:.4g} ± {e.stderr / numberings:.2g}")

        estimate = estimate_solutions(broken.problem, broken.starts, broken.weights or (1,), walks, seed=seed,
                                      seconds=knuth_seconds, workers=workers, on_batch=report)
        knuth, knuth_stderr = estimate.solutions / numberings, estimate.stderr / numberings
        knuth_walks, knuth_seconds_taken, knuth_reached = estimate.walks, estimate.seconds, estimate.reached
        if estimate.reached == 0:
            notes.append(f"Knuth: none of {estimate.walks} walks reached a solution (0 is no estimate: more walks)")
    canon = prepared.canonicalizer
    return ApproxCounts(prepared.name, total, interval, exact, epsilon, delta, seed, seconds, knuth, knuth_stderr,
                        knuth_walks, knuth_seconds_taken, canon.n_rotations, len(canon.elements), tuple(notes),
                        knuth_reached)


def sample(puzzle: Puzzle, n: int, *, seed: int = 1, timeout: float | None = None) -> list[Solution]:
    """`n` near-uniform random assemblies (UniGen on the sat backend's CNF projected on the placement
    variables; `seed` makes them reproducible; `timeout` in seconds raises, exit code 1). Each is the
    assembly as drawn; its `index` numbers its class (up to rotation and reflection) in the order the
    sample first meets it, `id` is the class's stable id (as `enumerate` gives it), and `assemblies` and
    `mirror_distinct` describe that class, so `as_line()`
    writes the solutions file `cpsolve sample` writes. Draws are independent: an assembly may repeat.
    Needs the extra `cpsolve[approx]`.

    >>> drawn = cpsolve.sample(cpsolve.load("slothouber-graatsma"), 3, seed=2)
    >>> len(drawn), {s.index for s in drawn}, drawn[0].assemblies
    (3, {0}, 8)
    """
    from .output.solutions import labelled, rows_as_placements
    from .problem.canonical import class_id
    from .problem.cnf import encode
    from .search.approx import APPROX_ENCODING, uniform_rows

    prepared = _prepared(puzzle, False)
    problem = prepared.problem
    classes: dict[bytes, int] = {}
    out = []
    for rows in uniform_rows(encode(problem, APPROX_ENCODING), n, seed, timeout):
        forms = prepared.canonicalizer.forms(problem, rows)
        index = classes.setdefault(forms.symmetry_key, len(classes))
        out.append(Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), index,
                            forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                            id=class_id(forms.symmetry_key)))
    return out


# --- comparing backends ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Backends side by side on one puzzle (`cpsolve compare`): one row per backend."""

    puzzle: str
    rows: tuple[CompareRow, ...]
    reference: tuple[int | None, int | None, int | None] | None = None
    """The puzzle's published counts, when its file has them."""

    @property
    def disagreement(self) -> str | None:
        """Why the finished rows' counts are inconsistent (naming the backend at fault), or None."""
        from .analysis.compare import disagreement

        return disagreement(list(self.rows), self.reference)

    def check(self) -> None:
        """Raise `CpsolveError` (exit code 1) when counts disagree or a backend failed."""
        if (problem := self.disagreement) is not None:
            raise CpsolveError(problem, where=self.puzzle, exit_code=1)
        failed = [f"{r.backend}: {r.note}" for r in self.rows if r.status == "failed"]
        if failed:
            raise CpsolveError("; ".join(failed), where=self.puzzle, exit_code=1)

    def _repr_html_(self) -> str:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"

        return _table(
            ("backend", "status", "first (s)", "all (s)", "cpu (s)", "peak MB", "total", "up to rotation",
             "up to rotation and reflection"),
            [(r.backend, r.status if not r.note else f"{r.status}: {r.note}", num(r.first_seconds),
              num(r.all_seconds), num(r.cpu_seconds), "-" if r.peak_mb is None else f"{r.peak_mb:.0f}",
              *("-" if c is None else str(c) for c in r.counts)) for r in self.rows])


def compare(
    puzzle: Puzzle,
    backends: Sequence[str] = ("cpsat", "sat", "dlx"),
    *,
    timeout: float | None = None,
    workers: int = 1,
    on_row: Callable[[CompareRow], object] | None = None,
) -> Comparison:
    """Run the puzzle on each backend, alone in a child process: time to the first and to all
    solutions, CPU, peak memory, counts. Unknown names raise before anything runs; a backend that
    cannot run here is a row saying so. `on_row` sees each row as soon as it is measured. Call
    `check()` on the result to raise when the counts disagree.

    >>> c = cpsolve.compare(cpsolve.load("slothouber-graatsma"), ["dlx", "python"])
    >>> [(r.backend, r.status, r.counts) for r in c.rows]
    [('dlx', 'complete', (8, 1, 1)), ('python', 'complete', (8, 1, 1))]
    >>> c.check()
    >>> cpsolve.compare(cpsolve.load("soma"), ["dlx", "nope"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    cpsolve.search.backends.base.BackendUnavailable: backend: unknown backend 'nope' (known: auto, ...)
    """
    from .analysis.compare import measure
    from .search.backends import backend_class, get_backend

    specs = [b.strip() for b in backends if b.strip()]
    if not specs:
        raise CpsolveError("give at least one backend (known: see `cpsolve backends`)", field="backends")
    for spec in specs:  # checked before anything runs, by the rules of `backend=`
        if backend_class(spec.partition(":")[0]).supported():
            get_backend(spec)
    rows: list[CompareRow] = []
    for spec in specs:
        row = measure(puzzle, spec, timeout, workers)
        rows.append(row)
        if on_row is not None:
            on_row(row)
        if row.status == "interrupted":
            break
    ref = puzzle.reference
    return Comparison(puzzle.name, tuple(rows), ref.counts() if ref else None)


# --- export ---------------------------------------------------------------------------------------

ExportFormat = Literal["dimacs", "xcc", "xmpuzzle", "stl"]


@overload
def export(puzzle: Puzzle, format: Literal["dimacs", "xcc"] = ..., *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> str: ...
@overload
def export(puzzle: Puzzle, format: Literal["xmpuzzle"], *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> bytes: ...
@overload
def export(puzzle: Puzzle, format: Literal["stl"], *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> dict[str, bytes]: ...
def export(
    puzzle: Puzzle,
    format: ExportFormat = "dimacs",
    *,
    symmetry_breaking: bool = True,
    encoding: str | None = None,
    solutions: Iterable[Solution] = (),
    unit: float = 10.0,
    clearance: float = 0.0,
) -> str | bytes | dict[str, bytes]:
    """The puzzle for another program: "dimacs" (CNF for any SAT solver; `encoding` is pysat's
    cardinality encoding) or "xcc" (Knuth's DLX programs), as text, of the symmetry-broken problem
    unless told otherwise; "xmpuzzle" (BurrTools, gzip bytes, with `solutions` stored in it); "stl"
    (one binary STL per piece, `{file name: bytes}`, `unit` mm cubes, `clearance` mm between pieces).

    >>> cnf = cpsolve.export(cpsolve.load("soma"))
    >>> cnf.splitlines()[0]
    'c cpsolve export'
    >>> cpsolve.export(cpsolve.load("soma"), "xcc").count("\\n") > 72
    True
    >>> sorted(cpsolve.export(cpsolve.load("soma"), "stl"))[:2]
    ['A.stl', 'B.stl']
    """
    if format == "stl":
        return _stl(puzzle, unit, clearance)
    if format == "xmpuzzle":
        from .output.burrtools import write_xmpuzzle

        return write_xmpuzzle(puzzle, ({k: list(v) for k, v in s.pieces.items()} for s in solutions))
    if format not in ("dimacs", "xcc"):
        raise CpsolveError(f"unknown format {format!r} (known: dimacs, xcc, xmpuzzle, stl)", field="format")
    if tuple(solutions):
        raise CpsolveError("only the xmpuzzle format stores solutions", field="solutions")
    from .output.exchange import write_dimacs, write_xcc
    from .problem.cnf import DEFAULT_ENCODING, encode
    from .search.enumeration import prepare

    prepared = prepare(puzzle)
    problem = prepared.broken.problem if symmetry_breaking else prepared.problem
    if format == "xcc":
        return write_xcc(problem)
    meta = {"puzzle": prepared.name, "symmetry-breaking": "on" if symmetry_breaking else "off"}
    return write_dimacs(encode(problem, encoding or DEFAULT_ENCODING), problem, meta)


def _stl(puzzle: Puzzle, unit: float, clearance: float) -> dict[str, bytes]:
    """One binary STL per distinct piece (`output.stl.file_names`: a piece used k times is `NAME-xk.stl`)."""
    from .output.stl import FLOAT32_MAX, binary_stl, file_names, triangles
    from .puzzle.geometry import bounding_size

    if puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no separate pieces to print", where=puzzle.name, field="format")
    if not (math.isfinite(unit) and unit > 0):
        raise CpsolveError(f"the cube size must be a finite number of mm > 0, not {unit:g}", field="unit")
    if not (math.isfinite(clearance) and 0 <= clearance * 2 < unit):
        raise CpsolveError(f"clearance {clearance:g} mm does not fit a {unit:g} mm cube", field="clearance")
    longest = max(max(bounding_size(p.shape)) for p in puzzle.pieces) * unit
    if longest > FLOAT32_MAX:  # STL writes 32-bit floats: struct.pack would overflow
        raise CpsolveError(f"{unit:g} mm cubes make a piece {longest:g} mm long, beyond the {FLOAT32_MAX:.3g} mm "
                           "that STL's 32-bit numbers hold", field="unit")
    names = file_names([(p.name, p.count) for p in puzzle.pieces])
    return {file: binary_stl(p.name, triangles(p.shape, unit, clearance), p.count)
            for file, p in zip(names, puzzle.pieces, strict=True)}


# --- solutions: taking apart, pictures, the page, files --------------------------------------------


def disassemble(solution: Solution, *, max_states: int | None = None) -> Disassembly:
    """Take the assembly apart by sliding pieces: `.level_text()` ("5", "1.2", ...) and `.moves()`
    when it comes apart, `.stuck` when it does not (`cpsolve disassemble`). Pieces of one of the
    puzzle's groups may stay together. Past `max_states` states it raises (exit code 1).

    >>> found = cpsolve.disassemble(cpsolve.solve(cpsolve.load("six-piece-burr")))
    >>> found.ok, found.level_text()
    (True, '1')
    """
    from .analysis.disassembly import TooManyStates, puzzle_groups
    from .analysis.disassembly import disassemble as take_apart

    if solution.puzzle is not None and solution.puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=solution.name)
    try:
        return take_apart(solution.pieces, puzzle_groups(solution.puzzle), max_states=max_states)
    except TooManyStates as exc:
        raise CpsolveError(str(exc), where=solution.name, field="max_states", exit_code=1) from None
    except CpsolveError as exc:
        raise exc.located(solution.name) from None


def draw(
    what: Solution | Puzzle | Sequence[Solution],
    format: Literal["png", "svg"] = "png",
    *,
    view: str = "front-right",
    exploded: bool = False,
    title: bool | str = True,
    size: int | None = None,
) -> bytes:
    """A picture (`cpsolve draw`): a solution as shaded cubes; a puzzle as its pieces, each named
    (a chain unfolded); a sequence of solutions as a contact sheet, each picture with its own
    pieces (and its own legend where the solutions' pieces differ). `view` is front-right,
    front-left, back-right, back-left, or below-... of these; `title` True writes the usual one;
    `size` is the picture's longer side in pixels (the whole picture, text included, is scaled to
    it; None: cubes of 44 pixels, 22 on a sheet).

    >>> png = cpsolve.draw(cpsolve.solve(cpsolve.load("soma")))
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> cpsolve.draw(cpsolve.load("soma"), "svg", size=300)[:40]
    b'<svg xmlns="http://www.w3.org/2000/svg" '
    """
    from .output import pictures
    from .output.scene import VIEWS, constraint_marks

    if format not in ("png", "svg"):
        raise CpsolveError(f"unknown picture format {format!r} (known: png, svg)", field="format")
    if view not in VIEWS:
        raise CpsolveError(f"unknown view {view!r} (known: {', '.join(VIEWS)})", field="view")
    if size is not None and (type(size) is not int or not 16 <= size <= 20_000):
        raise CpsolveError(f"the picture's size must be a whole number of pixels from 16 to 20000, not {size!r}",
                           field="size")

    def heading(default: str) -> str | None:
        return default if title is True else (title or None)

    for shown in [what] if isinstance(what, Solution) else what if not isinstance(what, Puzzle) else []:
        _check_drawable(shown)
    if isinstance(what, Solution):
        which = f"solution {what.index}" if what.index is not None else "a solution"
        drawing = pictures.draw_solution(what.pieces, _colors(what.puzzle), view=view, explode=exploded,
                                         title=heading(f"{what.name}, {which}"),
                                         marks=constraint_marks(what.puzzle, what.pieces))
    elif isinstance(what, Puzzle):
        if what.kind == "chain":
            assert what.chain is not None
            drawing = pictures.chain_drawing(pictures.unfolded_chain(what.chain), view=view, unit=34, spread=1.5,
                                             title=heading(f"{what.name}: a chain of {what.chain.n} cubes"))
        else:
            shapes = [(p.name if p.count == 1 else f"{p.name} ({p.count})", p.shape, p.color) for p in what.pieces]
            drawing = pictures.pieces_drawing(shapes, view=view, title=heading(f"{what.name}: the pieces"))
    else:
        sheet = list(what)
        if not sheet or not all(isinstance(s, Solution) for s in sheet):
            raise CpsolveError("draw takes a Solution, a Puzzle, or a non-empty sequence of Solutions")
        puzzle = sheet[0].puzzle
        drawing = pictures.draw_sheet(
            [(f"#{s.index if s.index is not None else i}", s.pieces) for i, s in builtins.enumerate(sheet)],
            _colors(puzzle), [p.name for p in puzzle.pieces] if puzzle is not None else (), view=view,
            explode=exploded, title=heading(f"{sheet[0].name}: {len(sheet)} solutions"),
            marks=[constraint_marks(s.puzzle, s.pieces) for s in sheet])
    if size is not None:
        drawing = pictures.fitted(drawing, size)
    return pictures.encode(drawing, format)


def _check_drawable(solution: object) -> None:
    """A picture, a page are sized by the solution's bounding box (`--max-drawing`), not by its cells."""
    if isinstance(solution, Solution):
        try:
            check_drawing([c for cells in solution.pieces.values() for c in cells])
        except CpsolveError as exc:
            raise exc.located(solution.name) from None


def _colors(puzzle: Puzzle | None) -> dict[str, str | None]:
    return {p.name: p.color for p in puzzle.pieces} if puzzle is not None else {}


def page(solutions: Solution | Sequence[Solution], *, title: str | None = None) -> str:
    """The 3-D page (`cpsolve view`): one self-contained HTML file to turn the solutions around,
    pull them apart and watch them assembled; nothing is loaded from anywhere.

    >>> html = cpsolve.page(cpsolve.solve(cpsolve.load("soma")))
    >>> html.startswith("<!DOCTYPE html>"), "http" in html
    (True, False)
    """
    from .output.page import page_html

    chosen = [solutions] if isinstance(solutions, Solution) else list(solutions)
    if not chosen:
        raise CpsolveError("no solutions to show")
    for shown in chosen:
        _check_drawable(shown)
    records = [{"puzzle": s.name, "pieces": s.pieces} for s in chosen]
    return page_html(records, chosen[0].puzzle, title=chosen[0].name if title is None else title)


def read_solutions(path: PathLike, limit: int = 0, *, start: int = 0) -> list[Solution]:
    """The solutions of a JSON-lines file written by `cpsolve enumerate` from line `start` (0-based; the
    first `limit` when > 0), each with its puzzle when the name in the file can be loaded (a built-in
    model, a path), and checked against it: a line that is not a solution of the puzzle it names is
    refused, as is one that cannot be a solution of any (a cell in two pieces, a bounding box past
    `--max-drawing`).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with open(folder / "soma.jsonl", "w") as out:
    ...     r = cpsolve.run(cpsolve.load("soma"), lambda s: print(s.as_line(), file=out), limit=2)
    >>> [(s.index, s.assemblies, s.puzzle.name) for s in cpsolve.read_solutions(folder / "soma.jsonl")]
    [(0, 48, 'soma'), (1, 48, 'soma')]
    """
    from .output.solutions import read_solutions as read_lines

    known: dict[str, Puzzle | None] = {}
    return [_solution_of(record, Path(path), n, known) for n, record in read_lines(Path(path), limit, start)]


def _each_solution(path: Path) -> Iterator[Solution]:
    """`read_solutions`, one line at a time: what an export of a file of any length reads."""
    from .output.solutions import iter_solutions

    known: dict[str, Puzzle | None] = {}
    for n, record in iter_solutions(path):
        yield _solution_of(record, path, n, known)


def _solution_of(record: Mapping[str, object], path: Path, line: int, known: dict[str, Puzzle | None]) -> Solution:
    """A line's record as a Solution, with the puzzle its name loads (kept in `known`), checked against it."""
    from .puzzle.assembly import check_solution

    name = str(record.get("puzzle", path.name))
    if name not in known:
        try:
            known[name] = load(name)
        except CpsolveError:
            known[name] = None
    puzzle = known[name]
    pieces: Mapping[str, list[Cell]] = record["pieces"]  # type: ignore[assignment] # checked by the reader
    if puzzle is not None and (why := check_solution(puzzle, pieces, cells_checked=True)) is not None:
        raise CpsolveError(f"not a solution of the puzzle it names ({name}): {why}",
                           where=f"{path}:{line}")
    index, assemblies, mirror = record.get("class"), record.get("assemblies"), record.get("mirror_distinct")
    level, found_id = record.get("level"), record.get("id")
    return Solution(name, _frozen(pieces), index if type(index) is int else None,
                    assemblies if type(assemblies) is int else None, mirror if isinstance(mirror, bool) else None,
                    puzzle, level=level if isinstance(level, str) else None,
                    id=found_id if isinstance(found_id, str) else None)


# --- explaining -----------------------------------------------------------------------------------

_HEADLINES = {"no-assembly": "no assembly", "stuck": "does not come apart", "comes-apart": "comes apart",
              "unique": "one solution", "several": "several solutions", "unknown": "no explanation found"}


@dataclass(frozen=True)
class Explanation:
    """Why not (`cpsolve explain`): why a puzzle has no assembly, why an assembly does not come apart,
    or what the solutions of a puzzle share and where they differ.

    `case` is "no-assembly", "stuck", "comes-apart", "unique", "several" or "unknown" (the deadline
    passed first); `argument` names what was found: "volume", "no-placement", "unreachable-cell",
    "colouring" or "core" (no assembly), "blocking" (stuck), "backbone" (unique, several),
    "comes-apart", or "none". Every claim was checked again before it was reported; `minimal` is
    True only for a core checked to be minimal. `str()` is the text `cpsolve explain` prints,
    `as_json()` its `--json` object, `picture()` and `page()` its drawings.
    """

    puzzle: str
    case: str
    argument: str
    size: int | None
    """How big the argument is: a core's parts, a colouring's colours weighed, the pieces to remove..."""
    minimal: bool | None
    seconds: float
    tried: tuple[str, ...]
    """The arguments tried, cheapest first; the last one is the argument found."""
    lines: tuple[str, ...]
    """The explanation in words, one line each (what `str()` prints below its heading)."""
    index: int | None = None
    """The solution explained (an assembly), when there is one."""
    _report: ExplainReport | None = field(default=None, repr=False, compare=False)
    _puzzle: Puzzle | None = field(default=None, repr=False, compare=False)

    @property
    def _finding(self) -> object:
        return None if self._report is None else self._report.finding

    def as_json(self) -> dict[str, object]:
        finding = self._report.finding if self._report is not None else None
        return {"puzzle": self.puzzle, "index": self.index, "case": self.case, "argument": self.argument,
                "size": self.size, "minimal": self.minimal, "seconds": round(self.seconds, 3),
                "tried": list(self.tried), "text": list(self.lines),
                "detail": finding.as_json() if finding is not None else None}

    def __str__(self) -> str:
        """The text `cpsolve explain` prints: names from files shown as a terminal should (`printable`)."""
        from .output.text import printable

        which = f", solution {self.index}" if self.index is not None else ""
        out = [f"{self.puzzle}{which}: {_HEADLINES.get(self.case, self.case)}", *self.lines]
        drawing = self._drawing()
        return "\n".join([printable(line) for line in out] + (["", drawing] if drawing else [])) + "\n"

    def _drawing(self) -> str | None:
        """The cells an argument names, drawn as z-layers (a core's, a colouring's, unreachable ones)."""
        from .analysis.explain import CoreArgument
        from .analysis.explain.counting import ColourArgument, Uncovered
        from .output.text import draw as layers

        finding = self._finding
        container = self._puzzle.container if self._puzzle is not None else ()
        if not container or len(container) > 512:  # a drawing of more cells than that helps no one read it
            return None
        if isinstance(finding, CoreArgument) and (finding.fill or len(finding.apart) < len(container)):
            marked = {**{c: "o" for c in finding.apart}, **{c: "X" for c in finding.fill}}
            legend = "X: must be covered (no overlap)   o: no overlap   .: free (pieces may overlap, or leave it empty)"
        elif isinstance(finding, Uncovered):
            marked = {c: "X" for c in finding.cells}
            legend = "X: no piece reaches it"
        elif isinstance(finding, ColourArgument):
            scheme = _scheme(finding)
            colours = sorted({scheme.colour(c) for c in container})
            symbols = "wb" if len(colours) == 2 else "0123456789"
            marked = {c: symbols[colours.index(scheme.colour(c))] for c in container}
            legend = "   ".join(f"{symbols[i]}: {name}" for i, name in builtins.enumerate(finding.colours))
        else:
            return None
        kinds: dict[str, list[Cell]] = {}
        for c in container:
            kinds.setdefault(marked.get(c, "."), []).append(c)
        legend = "   ".join(item for item in legend.split("   ") if item[0] in kinds)
        return layers(kinds, " ", {k: k for k in kinds}) + "\n" + legend

    def picture(self, format: Literal["png", "svg"] = "png", *, view: str = "front-right") -> bytes:
        """The explanation as a picture: the cells an argument names (container whole, then layer by
        layer) with the pieces it names; an assembly with its blockers (or its moving pieces) in red."""
        from .analysis.explain import ComesApart, CoreArgument
        from .analysis.explain.counting import ColourArgument, NoPlacement, Uncovered, Volume
        from .analysis.explain.stuck import Blocked
        from .analysis.explain.unique import Uniqueness
        from .output import pictures
        from .output.explain import cells_drawing, labels, marked_drawing
        from .output.scene import VIEWS

        if format not in ("png", "svg"):
            raise CpsolveError(f"unknown picture format {format!r} (known: png, svg)", field="format")
        if view not in VIEWS:
            raise CpsolveError(f"unknown view {view!r} (known: {', '.join(VIEWS)})", field="view")
        finding = self._finding
        title = f"{self.puzzle}: {_HEADLINES.get(self.case, self.case)}"
        puzzle = self._puzzle
        container = list(puzzle.container) if puzzle is not None else []
        shapes = {p.name: p.shape for p in puzzle.pieces} if puzzle is not None else {}
        if isinstance(finding, Volume) and puzzle is not None:
            return draw(puzzle, format, view=view, title=f"{title} (volume)")
        if isinstance(finding, NoPlacement):
            drawing = cells_drawing([("container", container)], [(finding.piece, shapes[finding.piece])], view=view,
                                    title=f"{title}: {finding.piece} fits nowhere", layers=False)
        elif isinstance(finding, Uncovered):
            rest = [c for c in container if c not in set(finding.cells)]
            drawing = cells_drawing([("unreachable", finding.cells), ("container", rest)], view=view, title=title)
        elif isinstance(finding, ColourArgument):
            scheme = _scheme(finding)
            colours = sorted({scheme.colour(c) for c in container})
            kinds = [(name, [c for c in container if scheme.colour(c) == v])
                     for name, v in zip(finding.colours, colours, strict=True)]
            drawing = cells_drawing(kinds, view=view, title=f"{title}: {finding.scheme}")
        elif isinstance(finding, CoreArgument):
            used = set(finding.fill) | set(finding.apart)
            kinds = [("must be covered", list(finding.fill)), ("kept apart", list(finding.apart)),
                     ("free", [c for c in container if c not in used])]
            drawing = cells_drawing(kinds, [(n, shapes[n]) for n, _ in finding.pieces if n in shapes], view=view,
                                    title=f"{title}: a core of {finding.size} parts")
        elif isinstance(finding, Blocked):
            states = [("start", finding.start)] + ([("most open state", finding.open_state)] if finding.open_moves
                                                   else [])
            red = f"{title}; red: {' '.join(finding.blockers())}" if finding.blockers() else title
            drawing = marked_drawing(states, finding.blockers(), view=view, title=red)
        elif isinstance(finding, ComesApart):
            drawing = marked_drawing([("assembled", finding.pieces)], (), view=view, title=title)
        elif isinstance(finding, Uniqueness):
            marked = [p for p, _ in finding.moving] if finding.case == "several" else [finding.key or ""]
            which = "the pieces that move" if finding.case == "several" else "the key"
            drawing = marked_drawing([("solution 0", labels(finding.solution))], marked, view=view,
                                     title=f"{title}; red: {which}")
        else:
            raise CpsolveError("nothing to draw: no explanation was found", where=self.puzzle, exit_code=1)
        return pictures.encode(drawing, format)

    def page(self) -> str:
        """The 3-D page (`cpsolve view`'s) of a stuck assembly in its most open state (the start when
        nothing moves), the blockers (the smallest set whose removal frees the rest) in red. One state:
        the page holds states of one set of cells, and an opened state has moved some out."""
        from .analysis.explain.stuck import Blocked
        from .output.explain import MARK, QUIET
        from .output.page import page_html

        finding = self._finding
        if not isinstance(finding, Blocked):
            raise CpsolveError("only a stuck assembly has a page to show", where=self.puzzle, exit_code=1)
        state = finding.open_state if finding.open_moves else finding.start
        colors = {label: MARK if label in finding.blockers() else QUIET[i % len(QUIET)]
                  for i, (label, _) in builtins.enumerate(finding.start)}
        which = f"its most open state, {finding.open_moves} moves in" if finding.open_moves else "nothing moves"
        marked = f"; red: {' '.join(finding.blockers())}" if finding.blockers() else ""
        return page_html([{"puzzle": self.puzzle, "pieces": dict(state)}], self._puzzle,
                         title=f"{self.puzzle}: stuck ({which}){marked}", recolor=colors)

    def _repr_html_(self) -> str:
        return "<pre>" + markup(str(self)) + "</pre>"


def _scheme(found: ColourArgument) -> Scheme:
    """The colouring an argument names."""
    from .analysis.explain.counting import schemes

    return next(s for s in schemes() if s.name == found.scheme and s.rule == found.rule)


def explain(
    what: Puzzle | Solution | PathLike,
    *,
    index: int | None = None,
    backend: str = "sat",
    timeout: float | None = None,
    max_states: int | None = None,
) -> Explanation:
    """Why not? (`cpsolve explain`.) A puzzle with no assembly: the cheapest reason that holds (volume, a
    piece with no placement, a cell no piece reaches, a colouring, else a minimal unsatisfiable core
    found by `backend`, "sat" or "cpsat", and re-checked by dlx). An assembly (a `Solution`, the
    `index`-th solution of a puzzle or of a `.jsonl` file, or an assembly stored in a BurrTools file)
    that does not come apart: what blocks what, how far it opens, what to remove. A puzzle with
    solutions: what they share and where they differ. A file is read without the volume check, so
    that a puzzle whose pieces do not fill it can be explained too.

    >>> print(cpsolve.explain(cpsolve.puzzle_from_yaml('''
    ... name: mutilated
    ... container: {layers: [[".#######", "########", "########", "########",
    ...                       "########", "########", "########", "#######."]]}
    ... pieces: {D: {cells: [[0, 0, 0], [1, 0, 0]], count: 31}}
    ... ''')).lines[0])
    Colouring (checkerboard: x+y+z even: white, odd: black); count white cells.
    >>> e = cpsolve.explain(cpsolve.load("slothouber-graatsma"))
    >>> e.case, e.argument
    ('unique', 'backbone')
    """
    from .analysis.explain import explain_assembly, explain_puzzle

    if timeout is not None and not (timeout > 0 and timeout < float("inf")):
        raise CpsolveError(f"must be a finite number of seconds > 0, not {timeout}", field="timeout")
    if index is not None and index < 0:
        raise CpsolveError(f"must be 0 or more, not {index}", field="index")
    began = time.perf_counter()
    if not isinstance(what, (Puzzle, Solution)):
        what = _explained_source(what, index)
    if isinstance(what, Puzzle) and index is not None:
        what = _nth_class(what, index)
    if isinstance(what, Solution):
        puzzle = what.puzzle
        if puzzle is not None and puzzle.kind == "chain":
            raise CpsolveError("a chain puzzle has no pieces to slide apart", where=what.name)
        left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
        report = explain_assembly(what.name, what.pieces, tuple(puzzle.groups) if puzzle is not None else (),
                                  timeout=left, max_states=max_states)
        return _explanation(report, puzzle, what.index)
    return _explanation(explain_puzzle(what, backend=backend, timeout=timeout), what, None)


def _explanation(report: ExplainReport, puzzle: Puzzle | None, index: int | None) -> Explanation:
    from .analysis.explain import CoreArgument

    finding = report.finding
    return Explanation(report.puzzle, report.case, report.argument, None if finding is None else finding.size,
                       finding.minimal if isinstance(finding, CoreArgument) else None, report.seconds, report.tried,
                       tuple(report.lines()), index, report, puzzle)


def _explained_source(source: PathLike, index: int | None) -> Puzzle | Solution:
    """A path as explain reads it: a solutions file's solution (told by content, as every command tells it:
    `source`), a BurrTools file's stored assembly (with `index`), or a puzzle read without its volume check
    (a built-in name, YAML, BurrTools)."""
    from .puzzle.burrtools import stored_solutions
    from .puzzle.catalog import is_burrtools
    from .puzzle.catalog import load as load_cached

    path = os.fspath(source)
    if Path(path).is_file() and _kind_of(Path(path)) == "solutions":
        return read_solutions(path, 1, start=index or 0)[0]
    puzzle: Puzzle = load_cached.__wrapped__(path, strict=False)
    if index is not None and Path(path).is_file() and is_burrtools(Path(path)):
        stored = stored_solutions(path)
        if stored:
            if index >= len(stored):
                raise CpsolveError(f"stores {len(stored)} assemblies (indices 0 to {len(stored) - 1}); there is no "
                                   f"index {index}", where=path, field="index")
            return Solution(puzzle.name, _frozen(stored[index]), index, puzzle=puzzle)
    return puzzle


def _nth_class(puzzle: Puzzle, index: int) -> Solution:
    """The `index`-th solution class of the puzzle, found as `cpsolve disassemble MODEL --index N` finds it."""
    found: list[Solution] = []
    run(puzzle, found.append, limit=index + 1)
    if len(found) <= index:
        raise CpsolveError(f"has {len(found)} solution classes (indices 0 to {len(found) - 1}); there is no index "
                           f"{index}", where=puzzle.name, field="index")
    return found[index]


# --- the puzzle file format, journals, estimates ---------------------------------------------------


def schema() -> dict[str, object]:
    """The JSON Schema of puzzle files (`cpsolve schema`).

    >>> sorted(cpsolve.schema()["required"])
    ['container', 'name']
    """
    from .puzzle.schema import PuzzleFile

    return PuzzleFile.model_json_schema()


def printable(text: str) -> str:
    """`text` (a name, a key, a line from a file) as a terminal should show it: every character that is
    not seen as text (line breaks, ESC, NUL, right-to-left overrides, ...) written as its Python escape,
    so that it stays on its line and cannot send the terminal a command. What the command line prints
    from files goes through it.

    >>> print(cpsolve.printable("A\\x1b[2Jb"))
    A\\x1b[2Jb
    """
    from .output.text import printable as shown

    return shown(text)


@dataclass(frozen=True)
class Estimate:
    """The size of a search before it runs (`cpsolve estimate`): Knuth's random-walk estimate of the
    search tree, and its time on one core at the dlx engine's speed on this puzzle."""

    puzzle: str
    nodes: float
    """Estimated nodes of the search tree (the mean of the walks' products of branching degrees)."""
    stderr: float
    """One standard error of `nodes`."""
    walks: int
    symmetry_breaking: str
    nodes_per_second: float | None
    """The dlx engine's speed on this puzzle, sampled on a short stretch of its own search (None: the
    engine is not built here)."""
    backend: str = "dlx"

    @property
    def seconds(self) -> float | None:
        return None if not self.nodes_per_second else self.nodes / self.nodes_per_second

    @property
    def seconds_spread(self) -> float | None:
        return None if not self.nodes_per_second else self.stderr / self.nodes_per_second

    def as_json(self) -> dict[str, object]:
        return {"puzzle": self.puzzle, "backend": self.backend, "nodes": self.nodes, "stderr": self.stderr,
                "walks": self.walks, "symmetry_breaking": self.symmetry_breaking,
                "nodes_per_second": self.nodes_per_second, "seconds": self.seconds,
                "seconds_spread": self.seconds_spread}

    def __str__(self) -> str:
        """What `cpsolve estimate` prints: the tree, then the time (long ones in days or years)."""
        from .output.text import duration, printable

        tree = (f"{printable(self.puzzle)}: about {self.nodes:,.0f} search nodes (± {self.stderr:,.0f}, one standard "
                f"error, {self.walks:,} walks); {self.symmetry_breaking}")
        if self.seconds is None or self.nodes_per_second is None:
            return f"{tree}\nno time estimate: the dlx engine is not built here"
        return (f"{tree}\nabout {duration(self.seconds)} on one core (± {duration(self.seconds_spread or 0.0)}) at the "
                f"dlx engine's {self.nodes_per_second:,.0f} nodes/s on this puzzle")


def estimate(puzzle: Puzzle, *, probes: int = 4000, symmetry_breaking: bool = True, backend: str = "auto") -> Estimate:
    """How big the search is and how long it takes on one core, before running it (`cpsolve estimate`).

    The walks model the dlx engine's search (Knuth's estimate of its exact-cover tree), so the estimate is
    of a run on dlx: a puzzle that would run on another backend (`backend`, and `auto`'s choice for
    chains, which dlx does not take) is refused with the reason, exit code 1.

    >>> e = cpsolve.estimate(cpsolve.load("soma"), probes=400)
    >>> 100 < e.nodes < 10_000, e.walks
    (True, 400)
    """
    from .search.backends import for_problem
    from .search.enumeration import prepare, subproblems
    from .search.estimate import estimate_run

    prepared = prepare(puzzle, symmetry_breaking)
    engine = for_problem(backend, prepared.problem)
    if engine.name != "dlx":
        why = f" ({engine.reason})" if engine.reason else ""
        raise CpsolveError(f"the estimate is of the dlx engine's search, and this puzzle runs on {engine.label}{why}",
                           where=prepared.name, field="backend", exit_code=1)
    found = estimate_run(prepared.broken.problem, subproblems(prepared.broken), probes)
    return Estimate(prepared.name, found.tree.nodes, found.tree.stderr, found.tree.probes,
                    prepared.broken.key.describe(), found.nodes_per_second)


def read_journal(path: PathLike) -> JournalSummary:
    """Where the run journalled in `path` stands (`cpsolve journal`): subproblems done, what was found,
    the command that resumes it. Checked as a resume would check it (a damaged journal raises);
    read-only, so it is safe while the run writes it.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> r = cpsolve.run(cpsolve.load("soma"), out=folder / "soma.jsonl", journal=folder / "soma.journal")
    >>> j = cpsolve.read_journal(folder / "soma.journal")
    >>> j.complete, j.parts_done == j.parts, j.classes
    (True, True, 240)"""
    from .search.journal import summary

    return summary(Path(path))


# --- BurrTools files, external solvers, backends ---------------------------------------------------


@dataclass(frozen=True)
class Imported:
    """A problem of a BurrTools file as cpsolve reads it (`cpsolve import`)."""

    puzzle: Puzzle
    yaml: str
    """The equivalent cpsolve puzzle file."""
    stated_assemblies: int | None
    stated_solutions: int | None
    """The counts the file says BurrTools found (None: not stated)."""
    stored: int
    """Assemblies stored in the file."""
    path: str = field(repr=False)
    problem: int = field(default=0, repr=False)

    def check(self) -> None:
        """Raise `CpsolveError` (exit code 1) at the first stored assembly that is not a solution of the
        puzzle (each must cover the result exactly, colours and groups included)."""
        from .puzzle.assembly import check_solution
        from .puzzle.burrtools import assembly_pieces, parse_xmpuzzle

        bf = parse_xmpuzzle(self.path)
        for k, assembly in builtins.enumerate(bf.problems[self.problem].stored):
            if (why := check_solution(self.puzzle, assembly_pieces(bf, self.problem, assembly))) is not None:
                raise CpsolveError(f"stored assembly {k} is not a solution: {why}", where=self.path,
                                   field=f"problems.{self.problem}.solutions", exit_code=1)


def import_xmpuzzle(path: PathLike, problem: int = 0) -> Imported:
    """Problem `problem` of a BurrTools file as a cpsolve puzzle and its puzzle file (`cpsolve import`).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "soma.xmpuzzle"
    >>> soma = cpsolve.load("soma")
    >>> _ = path.write_bytes(cpsolve.export(soma, "xmpuzzle", solutions=[cpsolve.solve(soma)]))
    >>> imported = cpsolve.import_xmpuzzle(path)
    >>> imported.puzzle.n_pieces, imported.stored, imported.yaml.splitlines()[0]
    (7, 1, 'name: soma')
    >>> imported.check()"""
    from .puzzle.burrtools import parse_xmpuzzle, puzzle_data, puzzle_of
    from .puzzle.writer import puzzle_text

    bf = parse_xmpuzzle(Path(path))
    puzzle = puzzle_of(bf, problem)
    found = bf.problems[problem]
    return Imported(puzzle, puzzle_text(puzzle_data(bf, problem)), found.assemblies, found.solutions,
                    len(found.stored), os.fspath(path), problem)


def stored_solutions(path: PathLike, problem: int = 0) -> list[Solution]:
    """The assemblies stored in problem `problem` of a BurrTools file, as solutions of its puzzle, each
    with the level BurrTools stored with it (`burrtools_level`) when there is one.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "soma.xmpuzzle"
    >>> soma = cpsolve.load("soma")
    >>> first = cpsolve.solve(soma)
    >>> _ = path.write_bytes(cpsolve.export(soma, "xmpuzzle", solutions=[first]))
    >>> [sorted(s.pieces) == sorted(first.pieces) for s in cpsolve.stored_solutions(path)]
    [True]
    """
    from .puzzle.burrtools import parse_xmpuzzle

    return _stored(parse_xmpuzzle(Path(path)), problem)


def _stored(bf: BurrFile, problem: int, limit: int = 0, start: int = 0, puzzle: Puzzle | None = None
            ) -> list[Solution]:
    """The assemblies stored in problem `problem` of a read BurrTools file (`puzzle`: its puzzle, if built)."""
    from .analysis.disassembly import format_level
    from .puzzle.burrtools import assembly_pieces, puzzle_of, select_problem

    puzzle = puzzle_of(bf, problem) if puzzle is None else puzzle
    held = select_problem(bf, problem).stored
    if held and start >= len(held):
        raise CpsolveError(f"stores {len(held)} assemblies (indices 0 to {len(held) - 1}); there is no index "
                           f"{start}", where=bf.where)
    chosen = held[start:start + limit] if limit else held[start:]
    return [Solution(puzzle.name, _frozen(assembly_pieces(bf, problem, a)), puzzle=puzzle,
                     burrtools_level=None if a.level is None else format_level(a.level)) for a in chosen]


@dataclass(frozen=True)
class Decoded:
    """An external SAT solver's answer to an exported CNF (`cpsolve decode`)."""

    status: str
    """SATISFIABLE, UNSATISFIABLE or UNKNOWN, as the solver said."""
    solution: Solution | None
    """The solution it found, checked against every clause and the puzzle (None unless SATISFIABLE)."""


def decode(puzzle: Puzzle, cnf: PathLike, answer: PathLike) -> Decoded:
    """Check a SAT solver's `answer` (its s and v lines) to the `cnf` that `export` wrote for `puzzle`.

    A CNF of another puzzle or other options, an edited CNF, malformed output or an assignment that
    breaks a clause or is not a solution raises `CpsolveError` naming the file.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> soma = cpsolve.load("soma")
    >>> _ = (folder / "soma.cnf").write_text(cpsolve.export(soma))
    >>> _ = (folder / "answer.txt").write_text("s UNSATISFIABLE\\n")
    >>> cpsolve.decode(soma, folder / "soma.cnf", folder / "answer.txt")
    Decoded(status='UNSATISFIABLE', solution=None)"""
    from .output.exchange import decode as decode_answer
    from .output.solutions import labelled, rows_as_placements
    from .puzzle.loader import read_text
    from .search.enumeration import prepare

    prepared = prepare(puzzle)
    cnf_path, answer_path = Path(cnf), Path(answer)
    found = decode_answer(prepared, read_text(cnf_path), str(cnf_path), read_text(answer_path), str(answer_path))
    if found.problem is None:
        return Decoded(found.status, None)
    pieces = labelled(found.problem, rows_as_placements(found.problem, found.rows))
    return Decoded(found.status, Solution(prepared.name, _frozen(pieces), puzzle=puzzle))


@dataclass(frozen=True)
class BackendInfo:
    """A solver backend (`cpsolve backends`): whether it works here, and its version or how to install it."""

    name: str
    available: bool
    version: str | None
    install_hint: str
    description: str


def backends() -> list[BackendInfo]:
    """Every solver backend, whether it works here, its version.

    >>> [b.name for b in cpsolve.backends()]
    ['cpsat', 'dlx', 'python', 'sat']
    """
    from .search.backends import backend_class, names

    out = []
    for name in names():
        cls = backend_class(name)
        ok = cls.supported()
        out.append(BackendInfo(name, ok, cls.version() if ok else None, cls.install_hint, cls.description))
    return out


# --- the report of every built-in model ------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """Built-in models run and set beside their published counts (`cpsolve report`)."""

    rows: tuple[ReportRow, ...]
    models: tuple[str, ...]
    """The models asked for."""
    everything: bool
    """Every built-in model was asked for and each row ran to the end: only such a report replaces the
    tracked table `results/counts.md`."""

    @property
    def mismatches(self) -> list[ReportRow]:
        """Finished rows whose counts differ from the reference: a wrong count somewhere."""
        return [r for r in self.rows if r.finished and not r.matches]

    def markdown(self, command: str) -> str:
        from .output.tables import render_markdown

        return render_markdown(list(self.rows), command)

    def json(self, command: str) -> str:
        from .output.tables import render_json

        return render_json(list(self.rows), command)


def report(models: Sequence[str] = (), *, backend: str = "auto", workers: int = 1, timeout: float | None = None,
           on_row: Callable[[ReportRow], object] | None = None, started: float | None = None) -> Report:
    """Run the built-in `models` (all of them when none is named) and compare each with its reference
    counts; `timeout` (seconds) is per model, the first counted from `started` (a `time.time()`, default
    now). Ctrl-C ends the report after the row it interrupted.

    >>> done = cpsolve.report(["soma", "slothouber-graatsma"])
    >>> [(r.model, r.total, r.matches) for r in done.rows], done.everything
    ([('soma', 11520, True), ('slothouber-graatsma', 8, True)], False)"""
    from .analysis.report import run_report
    from .puzzle.catalog import builtin_names

    names = list(models) or builtin_names()
    rows = run_report(names, backend, timeout, workers, on_row, started=started)  # type: ignore[arg-type]
    everything = not models and len(rows) == len(names) and all(r.finished for r in rows)
    return Report(tuple(rows), tuple(names), everything)


# --- designing puzzles -----------------------------------------------------------------------------


def design_snakes(box: str = "3x3x3", *, out: PathLike | None = None, puzzles: PathLike | None = None,
                  max_files: int = 20, sample: int = 0, seed: int = 1, max_nodes: int = 20_000_000,
                  workers: int = 1, progress: Callable[[str], object] | None = None) -> dict[str, object]:
    """Every chain that folds into the box (`cpsolve design snake`), with its foldings up to rotation and
    reflection, one JSON line each in `out` (default `snake-AxBxC.census.jsonl`); the chains with one
    folding as puzzle files in the folder `puzzles` (at most `max_files`). `sample` > 0 draws that many
    random foldable chains instead and keeps those with exactly one folding (`max_nodes`: search nodes
    per chain part before giving up on one). Returns the summary (`--json`); `progress` gets a line of
    text now and then.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> found = cpsolve.design_snakes("2x2x3", out=folder / "census.jsonl", puzzles=folder, max_files=1)
    >>> found["chains"], found["unique_chains"], found["puzzle_files"]
    (17, 10, 1)
    """
    import random

    from .analysis.design import snake

    size = snake.parse_box(box)
    label = "x".join(map(str, size))
    path = Path(out) if out is not None else Path(f"snake-{label}.{'sample' if sample else 'census'}.jsonl")
    folder = None if puzzles is None else Path(puzzles)
    start = time.perf_counter()
    graph = snake.box_graph(size)
    source = f"cpsolve design snake --box {label}" + (f" --sample {sample} --seed {seed}" if sample else "")
    written = 0

    def say(text: str) -> None:
        if progress is not None:
            progress(text)

    def write_puzzle(chain: snake.ChainCount) -> None:
        nonlocal written
        if folder is None or written >= max_files:
            return
        folder.mkdir(parents=True, exist_ok=True)
        name = f"snake-{label}-{chain.sequence:x}"
        (folder / f"{name}.yaml").write_text(snake.chain_puzzle_text(size, chain, name, source), encoding="utf-8")
        written += 1

    summary: dict[str, object]
    if sample:
        rng = random.Random(seed)
        tally = {"drawn": 0, "unique": 0, "several": 0, "undecided": 0}
        first_unique: float | None = None
        with path.open("w", encoding="utf-8") as sink:
            for i, draw in builtins.enumerate(snake.sample(graph, sample, rng, max_nodes, workers)):
                tally["drawn"] += 1
                tally[draw.verdict] += 1
                if draw.chain is not None:
                    first_unique = first_unique or time.perf_counter() - start
                    sink.write(json.dumps(draw.chain.as_json()) + "\n")
                    sink.flush()
                    write_puzzle(draw.chain)
                say(f"{label}: sample {i + 1}/{sample}: {tally}, {time.perf_counter() - start:.1f} s")
        seconds = time.perf_counter() - start
        summary = {"box": label, "sampled": sample, **tally, "seconds": round(seconds, 2),
                   "unique_per_hour": round(tally["unique"] * 3600 / seconds, 1),
                   "first_unique_seconds": None if first_unique is None else round(first_unique, 3)}
    else:
        def parts(done: int, total: int) -> None:
            say(f"{label}: part {done}/{total} of the census, {time.perf_counter() - start:.1f} s")

        result = snake.census(size, workers=workers, progress=parts)
        with path.open("w", encoding="utf-8") as sink:
            sink.writelines(json.dumps(c.as_json()) + "\n" for c in result.chains)
        for chain in result.chains:
            if chain.foldings == 1:
                write_puzzle(chain)
        summary = {**result.summary(), "seconds": round(time.perf_counter() - start, 2)}
    summary.update({"file": str(path), "puzzle_files": written})
    return summary


def design_pieces(box: str = "3x3x3", pool: str | Puzzle = "tricubes,tetracubes", *, copies: int = 1,
                  backend: str = "auto", out: PathLike | None = None, puzzles: PathLike | None = None,
                  max_files: int = 20, timeout: float | None = None, workers: int = 1,
                  progress: Callable[[str], object] | None = None) -> dict[str, object]:
    """Piece sets from a pool that fill a box (or each of several, "3x3x3,2x2x5") in exactly one way
    (`cpsolve design pieces`). `pool` names pools (monocubes, dicubes, tricubes, tetracubes, pentacubes,
    pentominoes) or is a puzzle whose pieces make the pool. One JSON line per candidate set in
    `out` (default `pieces.design.jsonl`), the unique ones as puzzle files in `puzzles`; `timeout` is
    per candidate. Returns the summary (`--json`).

    >>> import tempfile, pathlib
    >>> found = cpsolve.design_pieces("2x2x3", out=pathlib.Path(tempfile.mkdtemp()) / "sets.jsonl")
    >>> found["candidates"], found["unique"]
    (56, 5)"""
    from .analysis.design import pieces as design
    from .analysis.design.snake import parse_box

    boxes = [parse_box(b, max_cells=None) for b in box.split(",") if b.strip()]
    shapes = design.pool_from(pool) if isinstance(pool, str) else {p.name: p.shape for p in pool.pieces}
    design.check_limits(boxes, shapes)
    pool_text = pool if isinstance(pool, str) else pool.origin or pool.name
    path = Path(out) if out is not None else Path("pieces.design.jsonl")
    folder = None if puzzles is None else Path(puzzles)
    start = time.perf_counter()
    counts: dict[str, int] = {"candidates": 0, "unique": 0, "several": 0, "none": 0, "pruned": 0, "timeout": 0}
    first_unique: float | None = None
    written = 0
    with path.open("w", encoding="utf-8") as sink:
        for verdict in design.search(design.jobs(boxes, shapes, copies), shapes, backend=backend, workers=workers,
                                     timeout=timeout):
            counts["candidates"] += 1
            counts[verdict.status] += 1
            sink.write(json.dumps(verdict.as_json()) + "\n")
            if verdict.status == "unique":
                first_unique = first_unique or time.perf_counter() - start
                if folder is not None and written < max_files:
                    folder.mkdir(parents=True, exist_ok=True)
                    name = f"unique-{'x'.join(map(str, verdict.box))}-{counts['unique']}"
                    source = f"cpsolve design pieces --box {box} --pool {pool_text} --copies {copies}"
                    (folder / f"{name}.yaml").write_text(design.puzzle_text(verdict, shapes, name, source),
                                                         encoding="utf-8")
                    written += 1
            if progress is not None:
                progress(", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {time.perf_counter() - start:.1f} s")
    seconds = time.perf_counter() - start
    return {
        "boxes": ",".join("x".join(map(str, b)) for b in boxes), **counts, "seconds": round(seconds, 2),
        "candidates_per_second": round(counts["candidates"] / seconds, 1) if seconds else None,
        "first_unique_seconds": None if first_unique is None else round(first_unique, 3),
        "file": str(path), "puzzle_files": written,
    }


@dataclass(frozen=True)
class Suggestion:
    """One change that leaves exactly one assembly (`design_unique`)."""

    text: str
    """The change in words."""
    detail: Mapping[str, object]
    orbit: int
    """How many changes of the same kind it stands for, by the container's rotations."""
    verified_total: int | None
    """The total count of the changed puzzle, enumerated again to prove it (1)."""
    file_text: str
    """The changed puzzle as a puzzle file."""
    file: str | None = None
    """Where it was written (`puzzles=`), if it was."""

    def as_json(self) -> dict[str, object]:
        return {"change": self.text, **self.detail, "orbit": self.orbit, "verified_total": self.verified_total,
                "file": self.file}


@dataclass(frozen=True)
class UniqueDesign:
    """What `design_unique` found (`cpsolve design unique`)."""

    puzzle: str
    change: str
    assemblies: int
    size: int
    candidates: int
    note: str
    seconds: float
    suggestions: tuple[Suggestion, ...]
    headline: str
    """The summary line the command line prints first."""

    def as_json(self) -> dict[str, object]:
        return {"puzzle": self.puzzle, "change": self.change, "assemblies": self.assemblies, "size": self.size,
                "candidates": self.candidates, "note": self.note or None, "seconds": round(self.seconds, 2),
                "suggestions": [s.as_json() for s in self.suggestions]}


def design_unique(puzzle: Puzzle, change: str = "fix", *, backend: str = "auto", limit: int = 5,
                  puzzles: PathLike | None = None, source: str | None = None) -> UniqueDesign:
    """The fewest changes (one, else two) that leave the puzzle exactly one assembly (`cpsolve design
    unique`): pieces glued in place ("fix"), a cell and one cube of a piece painted alike ("mark"), or a
    cell left empty ("hole"). Each suggestion is proved by enumerating the changed puzzle, and written as
    a puzzle file in the folder `puzzles` when given; `source` is what those files say made them.

    >>> found = cpsolve.design_unique(cpsolve.load("slothouber-graatsma"), "fix", limit=2)
    >>> found.assemblies, [(s.orbit > 0, s.verified_total) for s in found.suggestions]
    (8, [(True, 1), (True, 1)])"""
    from .analysis.design import unique

    if change not in unique.KINDS:
        raise CpsolveError(f"unknown change {change!r} (one of {', '.join(unique.KINDS)})", field="change")
    start = time.perf_counter()
    found = unique.suggest_changes(puzzle, change, backend, limit,
                                   source=source or f"cpsolve design unique {puzzle.name} --change {change}")
    seconds = time.perf_counter() - start
    out = []
    for c, file_name in zip(found.changes, found.file_names(), strict=True):
        path = None if puzzles is None else Path(puzzles) / file_name
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(c.file_text, encoding="utf-8")
            except OSError as exc:
                raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path),
                                   exit_code=1) from None
        out.append(Suggestion(c.text, MappingProxyType(dict(c.detail)), c.orbit, c.verified_total, c.file_text,
                              None if path is None else str(path)))
    return UniqueDesign(found.puzzle, found.kind, found.assemblies, found.size, found.candidates, found.note,
                        seconds, tuple(out), found.headline(seconds))


# --- notebook display -----------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    head = "".join(f"<th>{markup(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{markup(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _iframe(document: str, height: int) -> str:
    """A whole HTML page inside notebook output: an iframe, so that its script runs and its style
    and element ids stay its own (two solutions in one notebook would otherwise share them)."""
    return (f'<iframe srcdoc="{markup(document)}" style="width:100%;height:{height}px;border:0" '
            'sandbox="allow-scripts"></iframe>')


def _puzzle_png(puzzle: Puzzle) -> bytes:
    return draw(puzzle, "png")


def _puzzle_html(puzzle: Puzzle) -> str:
    what = f"a chain of {puzzle.n_pieces} cubes" if puzzle.kind == "chain" else f"{puzzle.n_pieces} pieces"
    facts = [("puzzle", puzzle.name), ("what", f"{what}, {len(puzzle.container)} cells")]
    facts += [(k, " ".join(v.split())) for k, v in (("description", puzzle.description), ("source", puzzle.source))
              if v]
    picture = base64.b64encode(_puzzle_png(puzzle)).decode("ascii")
    rows = "".join(f"<tr><th>{markup(k)}</th><td>{markup(v)}</td></tr>" for k, v in facts)
    return f'<table>{rows}</table><img src="data:image/png;base64,{picture}" alt="the pieces of {markup(puzzle.name)}">'


def _install_display() -> None:
    """Give `Puzzle` (stage 1, which may not import the pictures) its notebook display methods."""
    for name, method in (("_repr_png_", _puzzle_png), ("_repr_html_", _puzzle_html)):
        if name not in vars(Puzzle):
            setattr(Puzzle, name, method)


_install_display()
