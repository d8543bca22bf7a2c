"""Puzzles and where they come from: the built-in `models`, `load`, `source` (what a command's argument
names, told by content), puzzles built from text or a mapping, the puzzle file's `schema`, and the
solutions files that `cpsolve enumerate` writes (`read_solutions`).
"""

from __future__ import annotations

import builtins
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from .burrtools import _stored
from .common import TIMEOUT_EXIT, PathLike, _frozen
from .iteration import enumerate
from .results import Solution
from .solving import solve

if TYPE_CHECKING:
    from ..puzzle.burrtools import BurrFile


def models() -> list[str]:
    """The names of the built-in models (what `cpsolve list` shows).

    >>> "soma" in cpsolve.models()
    True
    """
    from ..puzzle.catalog import builtin_names

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
    from ..puzzle.catalog import models_dir, resolve

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
    from ..errors import unreadable

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
        from ..output.solutions import is_solution_line  # the solutions' reader and checks: for a JSON line only

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
        """The puzzle; for a solutions file the one its lines name (`origin`: the file it was read from,
        found beside the solutions file or from here, and checked against its digest; a built-in model
        by its name), else None, with a notice saying why."""
        if self.kind == "solutions":
            from ..output.solutions import read_solutions as read_lines

            try:
                first = read_lines(Path(self.given), 1)[0][1]
            except CpsolveError:
                return None
            return _line_puzzle(first, Path(self.given), self._known)
        if self.kind == "xmpuzzle":
            from ..puzzle.burrtools import puzzle_of

            return puzzle_of(self._burrtools, self.problem or 0)
        from ..puzzle.catalog import read

        return read(self.given)

    @property
    def problems(self) -> list[str]:
        """A BurrTools file's problems by their names in the file ("problem N" for one without), in order;
        [] for the other kinds (the workbench lists them to choose from)."""
        if self.kind != "xmpuzzle":
            return []
        return [p.name or f"problem {k}" for k, p in builtins.enumerate(self._burrtools.problems)]

    @cached_property
    def _known(self) -> dict[str, Puzzle | None]:
        """The puzzles a solutions file's lines name, each loaded once for all its readers (`_line_puzzle`)."""
        return {}

    @cached_property
    def _burrtools(self) -> BurrFile:
        """A BurrTools file as read, once for its puzzle and its stored assemblies."""
        from ..puzzle.burrtools import parse_xmpuzzle

        return parse_xmpuzzle(Path(self.given))

    @cached_property
    def named(self) -> str | None:
        """The puzzle's name: the one a solutions file's first line gives (None for an empty file)."""
        if self.kind != "solutions":
            puzzle = self.puzzle
            return None if puzzle is None else puzzle.name
        from ..output.solutions import read_solutions as read_lines

        try:
            return str(read_lines(Path(self.given), 1)[0][1].get("puzzle", "")) or None
        except CpsolveError:
            return None

    def output_name(self, suffix: str) -> Path:
        """The file a command writes when it is given no `-o`: `NAME.SUFFIX` in the current folder, NAME the
        puzzle's name made a safe file name as `enumerate` makes its solutions file's (a name comes from a
        file: `name: ../x` must not write elsewhere), else the given file's own stem.

        >>> cpsolve.source("soma").output_name(".png")
        PosixPath('soma.png')
        """
        from ..puzzle.names import safe_stem

        return Path(f"{safe_stem(self.named or Path(self.given).stem)}{suffix}")

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
            return _read_solutions(Path(self.given), limit, start, self._known)
        if self.kind == "xmpuzzle":
            return _stored(self._burrtools, self.problem or 0, limit, start, self.puzzle)
        return []

    def each(self) -> Iterator[Solution]:
        """Everything `stored()` gives, one at a time: a solutions file is read line by line, so that a
        file of any length is exported in the memory of one line (`cpsolve export --with-solutions`)."""
        if self.kind == "solutions":
            return _each_solution(Path(self.given), self._known)
        return iter(self.stored())

    def solutions(self, limit: int = 0, *, start: int = 0, timeout: float | None = None) -> list[Solution]:
        """The solutions from `start` (the first `limit` when > 0): those the file holds (`stored`), else
        the puzzle's classes in the order one worker finds them (`enumerate`), of which only those from
        `start` are kept. A `timeout` (seconds) that passes before they are found raises `CpsolveError`
        (exit code 3); Ctrl-C raises KeyboardInterrupt: only a complete search says how many there are."""
        held = self.stored(limit, start=start)
        if held or self.kind == "solutions":
            return held
        found: list[Solution] = []
        with enumerate(self.require_puzzle(), limit=start + limit if limit else 0, timeout=timeout) as run:
            for solution in run:
                if solution.index is not None and solution.index >= start:
                    found.append(solution)
        status, seen = run.result.status, run.result.counts.unique_symmetry
        if status == "interrupted":
            raise KeyboardInterrupt
        if status == "timeout" and (limit == 0 or len(found) < limit):
            raise CpsolveError(f"the deadline passed after {seen} solution classes, before "
                               f"{'every one was found' if limit == 0 else f'class {start + len(found)}'}",
                               where=self.given, exit_code=TIMEOUT_EXIT)
        if not found:
            if not seen:
                raise CpsolveError("has no solution", where=self.given, exit_code=1)
            classes = "1 solution class (index 0)" if seen == 1 else \
                f"{seen} solution classes (indices 0 to {seen - 1})"
            raise CpsolveError(f"has {classes}; there is no index {start}", where=self.given)
        return found

    def solution(self, index: int | None = None, *, id: str | None = None, timeout: float | None = None
                 ) -> Solution:
        """Solution `index` (0-based) of `solutions`; None: the first there is, which for a puzzle with
        none stored is the first the search finds (`solve`), not its class 0. With `id`, the one solution
        whose id starts with it (4 to 16 hex digits), wherever it stands: among those the file holds (a
        line whose id is not its solution's is refused), else among the puzzle's classes (all of them
        are found to make sure the prefix is unique, unless it is a whole id). `timeout`: as `solutions`."""
        if id is not None:
            if index is not None:
                raise CpsolveError("give an index or an id, not both", field="id")
            return self._by_id(id, timeout)
        if index is not None:
            return self.solutions(1, start=index, timeout=timeout)[0]
        held = self.stored(1)
        if held:
            return held[0]
        found = solve(self.require_puzzle(), timeout=timeout)
        if found is None:
            raise CpsolveError("has no solution", where=self.given, exit_code=1)
        return found

    def _by_id(self, prefix: str, timeout: float | None) -> Solution:
        """The one solution whose id starts with `prefix`, held in memory alone: the file is read line by line,
        the puzzle's classes are looked at as they are found (its 2.5 GB of t-tetracube-6x6x6 classes
        were all held first). Two lines that match are ambiguous even with the same id (a line twice)."""
        from ..problem.canonical import ID_DIGITS

        wanted = prefix.strip().lower()
        if not re.fullmatch(f"[0-9a-f]{{4,{ID_DIGITS}}}", wanted):
            raise CpsolveError(f"an id is 4 to {ID_DIGITS} hex digits (the start of a solution's id), not {prefix!r}",
                               field="id")
        if self.kind in ("model", "puzzle") or (self.kind == "xmpuzzle" and not self.stored(1)):
            return self._class_by_id(wanted, timeout)
        matches: list[tuple[int, Solution]] = []
        ids: _Ids | None = None
        for n, solution in builtins.enumerate(self.each()):
            if solution.id is None:  # a file from before ids, a BurrTools file's stored assemblies
                ids = ids or _Ids(self.puzzle, self.given)
                solution = replace(solution, id=ids.of(solution))
            if solution.id is not None and solution.id.startswith(wanted):
                matches.append((n, solution))
                if len(matches) > 1:
                    break
        if not matches:
            raise CpsolveError(f"no solution's id starts with {wanted}", where=self.given)
        if len(matches) > 1:
            (a, first), (b, second) = matches
            same = "the same id" if first.id == second.id else f"ids {first.id} and {second.id}"
            raise CpsolveError(f"{wanted} starts the ids of solutions {a} and {b} ({same}): give more digits, or "
                               "--index", where=self.given)
        n, found = matches[0]
        held_id = found.id
        if found.puzzle is not None and held_id is not None:
            real = (ids or _Ids(self.puzzle, self.given)).of(replace(found, id=None))
            if real is not None and real != held_id:
                raise CpsolveError(f"solution {n} holds id {held_id}, but its solution's id is {real} (the file was "
                                   "edited): not taken", where=self.given)
        return found

    def _class_by_id(self, wanted: str, timeout: float | None) -> Solution:
        """The puzzle's class whose id starts with `wanted`, looked for as the classes are found: a whole id is
        taken as soon as it is met, a prefix once every class has been seen (or as soon as a second matches)."""
        from ..problem.canonical import ID_DIGITS

        found: dict[str, Solution] = {}
        with enumerate(self.require_puzzle(), timeout=timeout) as run:
            for solution in run:
                if solution.id is not None and solution.id.startswith(wanted):
                    found.setdefault(solution.id, solution)
                    if len(found) > 1 or len(wanted) == ID_DIGITS:
                        break
        status, seen = run.result.status, run.result.counts.unique_symmetry
        if len(found) > 1:
            shown = ", ".join(sorted(found))
            raise CpsolveError(f"{wanted} starts the ids of several solutions ({shown}...): give more digits",
                               where=self.given)
        if status == "interrupted":
            raise KeyboardInterrupt
        if found and (status == "complete" or len(wanted) == ID_DIGITS):
            return next(iter(found.values()))
        if status == "timeout":
            which = "one match was found, not yet shown to be the only one" if found else "none matched"
            raise CpsolveError(f"the deadline passed after {seen} solution classes, before every class was seen "
                               f"({which}): give a longer timeout, or the whole id", where=self.given,
                               exit_code=TIMEOUT_EXIT)
        raise CpsolveError(f"no solution's id starts with {wanted}", where=self.given)


class _Ids:
    """Class ids worked out from the puzzle (`Solution.id`): for a file from before ids, a BurrTools file's
    stored assemblies, and to check an id a line holds. The puzzle is prepared once, when first asked."""

    def __init__(self, puzzle: Puzzle | None, where: str):
        if puzzle is None:
            raise CpsolveError("its lines have no ids and the puzzle they name cannot be loaded to work them out",
                               where=where)
        from ..search.enumeration import prepare

        self.prepared = prepare(puzzle)

    def of(self, solution: Solution) -> str | None:
        """The solution's id: the one it holds, else its class's (None: not a placement of the puzzle's)."""
        from ..output.solutions import rows_of
        from ..problem.canonical import class_id

        if solution.id is not None:
            return solution.id
        problem = self.prepared.problem
        rows = rows_of(problem, solution.pieces)
        return None if rows is None else class_id(self.prepared.canonicalizer.forms(problem, rows).symmetry_key)


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
    from ..puzzle.loader import parse_puzzle_text
    from ..puzzle.model import to_puzzle

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
    from ..puzzle.burrtools import read_xmpuzzle

    return read_xmpuzzle(Path(path), problem)


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
    return _read_solutions(Path(path), limit, start, {})


def _read_solutions(path: Path, limit: int, start: int, known: dict[str, Puzzle | None]) -> list[Solution]:
    from ..output.solutions import read_solutions as read_lines

    return [_solution_of(record, path, n, known) for n, record in read_lines(path, limit, start)]


def _each_solution(path: Path, known: dict[str, Puzzle | None]) -> Iterator[Solution]:
    """`read_solutions`, one line at a time: what an export of a file of any length reads."""
    from ..output.solutions import iter_solutions

    for n, record in iter_solutions(path):
        yield _solution_of(record, path, n, known)


def _line_puzzle(record: Mapping[str, object], path: Path, known: dict[str, Puzzle | None]) -> Puzzle | None:
    """The puzzle a line of the solutions file `path` names, found once per file and identity (`known`).

    A line written since solutions files keep their puzzle's `origin` (`output.solutions.origin_record`)
    is matched by the puzzle's digest: its file (`path`) is looked for from the solutions file's folder,
    then from here (each problem of a BurrTools file), a built-in model by its name. A file of the same
    name that is another puzzle, or none at all, is not taken: a notice says the puzzle cannot be found
    and where it was looked for, and the lines are read without it (unchecked, the pieces' colours by
    default). An older line, without
    `origin`, names its puzzle by its name alone: a built-in model or a path, as before."""
    import json
    import warnings

    from ..errors import CpsolveNotice

    name = str(record.get("puzzle", path.name))
    origin = record.get("origin")
    key = json.dumps([name, origin], sort_keys=True, default=str)
    if key in known:
        return known[key]
    if not isinstance(origin, Mapping) or not isinstance(origin.get("sha256"), str):
        try:
            found: Puzzle | None = load(name)
        except CpsolveError:
            found = None
        known[key] = found
        return found
    found, tried = _find_puzzle(name, origin, path)
    if found is None:
        looked = f": {', '.join(tried)}" if tried else ": no file of it is named and no built-in model has its name"
        warnings.warn(CpsolveNotice(
            f"{path}: the puzzle its solutions are of cannot be found (puzzle {name}, digest {origin['sha256']}"
            f"{looked}); its solutions are read without it: unchecked, in default colours"), stacklevel=2)
    known[key] = found
    return found


def _find_puzzle(name: str, origin: Mapping[str, object], path: Path) -> tuple[Puzzle | None, list[str]]:
    """The puzzle whose digest `origin` keeps, and where else it was looked for (see `_line_puzzle`)."""
    from ..puzzle.catalog import builtin_names
    from ..puzzle.model import digest

    want = origin["sha256"]
    given = origin.get("path")
    places = [path.parent / given, Path(given)] if isinstance(given, str) else []
    tried: list[str] = []
    for place in dict.fromkeys(os.path.normpath(p) for p in places):
        if not os.path.isfile(place):
            tried.append(f"{place} (no such file)")
            continue
        for puzzle in _puzzles_in(place if os.path.isabs(place) or os.sep in place else f".{os.sep}{place}"):
            if digest(puzzle) == want:
                return puzzle, tried
        tried.append(f"{place} (another puzzle)")
    if not places and name in builtin_names():
        puzzle = load(name)
        if digest(puzzle) == want:
            return puzzle, tried
        tried.append(f"the built-in model {name} (another puzzle)")
    return None, tried


def _puzzles_in(place: str) -> Iterator[Puzzle]:
    """The puzzles a file holds: a YAML file's one, each problem of a BurrTools file; those that do not load
    are passed over (the caller says the puzzle cannot be found)."""
    try:
        src = source(place)
        if src.kind != "xmpuzzle":
            if src.kind == "puzzle":
                yield src.require_puzzle()
            return
        from ..puzzle.burrtools import puzzle_of

        problems = len(src._burrtools.problems)
    except CpsolveError:
        return
    for k in range(problems):
        try:
            yield puzzle_of(src._burrtools, k)
        except CpsolveError:
            continue


def _solution_of(record: Mapping[str, object], path: Path, line: int, known: dict[str, Puzzle | None]) -> Solution:
    """A line's record as a Solution, with the puzzle it names (`_line_puzzle`), checked against it."""
    from ..puzzle.assembly import check_solution

    name = str(record.get("puzzle", path.name))
    puzzle = _line_puzzle(record, path, known)
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


def schema() -> dict[str, object]:
    """The JSON Schema of puzzle files (`cpsolve schema`).

    >>> sorted(cpsolve.schema()["required"])
    ['container', 'name']
    """
    from ..puzzle.schema import PuzzleFile

    return PuzzleFile.model_json_schema()


def puzzle_yaml(data: Mapping[str, object]) -> str:
    """A puzzle file's data (the schema's keys, as `yaml.safe_load` gives them) as the YAML text cpsolve
    writes (`cpsolve import`): drawings one layer per line (a flat ball piece's `square:` or `triangular:`
    rows on one line), cell lists and pieces on one line. Nothing is checked here: `puzzle_from_yaml` of
    the text checks it as any file.

    >>> print(cpsolve.puzzle_yaml({"name": "bar", "container": {"box": [3, 1, 1]},
    ...                            "pieces": {"I": {"layers": [["###"]]}}}), end="")
    name: bar
    container:
      box: [3, 1, 1]
    pieces:
      I:
        layers:
        - ["###"]
    """
    from ..puzzle.writer import Line, Row, drawing, puzzle_text

    def shaped(value: object, key: str = "") -> object:
        if isinstance(value, Mapping):
            return {k: shaped(v, str(k)) for k, v in value.items()}
        if key == "layers" and isinstance(value, list) and all(isinstance(layer, list) for layer in value):
            return drawing(value)
        if key in ("square", "triangular") and isinstance(value, list) and all(isinstance(r, str) for r in value):
            return Line(Row(row) for row in value)  # a flat ball piece's rows, quoted alike as a layer's
        if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            return Line(value)
        if isinstance(value, list):
            return [shaped(v) for v in value]
        return value

    shown = shaped(dict(data))
    assert isinstance(shown, dict)
    return puzzle_text(shown)


def shapes(library: str, *, grid: str = "cubes") -> dict[str, tuple[Cell, ...]]:
    """Named shapes of a library, for drawing pieces from: "monocubes" to "pentacubes" (every polycube
    of that size up to rotation and reflection, named 4a, 4b, ...), "pentominoes" (Golomb's letters),
    or "kaenel:N,M,..." (six-piece burr sticks by their Kaenel numbers, 1 the solid stick).

    On another `grid`: "moniamonds" to "heptiamonds" (polyiamonds, one layer of prisms), "square-balls-N" and
    "triangular-balls-N", N = 1 to 5 (flat ball pieces in a square or a triangular layer of spheres), or on
    the rhombic and tetra-octa grids the cube libraries with each cube made the block of cells it becomes,
    as BurrTools' converter makes it (`shape_libraries(grid)` lists them). They are the pools of `cpsolve
    design pieces`.

    >>> len(cpsolve.shapes("tetracubes")), len(cpsolve.shapes("pentacubes"))
    (8, 29)
    >>> len(cpsolve.shapes("kaenel:1")["kaenel-1"])
    24
    >>> len(cpsolve.shapes("hexiamonds", grid="prisms")), len(cpsolve.shapes("square-balls-5", grid="spheres"))
    (12, 12)
    >>> len(cpsolve.shapes("tricubes", grid="rhombic")["3a"])  # 3 cubes of 24 rhombic cells
    72
    """
    from ..puzzle.kaenel import kaenel_stick
    from .grids import grid_shapes

    if grid == "cubes" and library.startswith("kaenel:"):
        out: dict[str, tuple[Cell, ...]] = {}
        for text in library.removeprefix("kaenel:").split(","):
            try:
                out[f"kaenel-{int(text)}"] = kaenel_stick(int(text))
            except ValueError as exc:
                raise CpsolveError(str(exc) if text.strip().lstrip("-").isdigit() else
                                   f"a Kaenel number is a whole number, not {text!r}", field="library") from None
        return out
    return grid_shapes(library, grid, shapes)
