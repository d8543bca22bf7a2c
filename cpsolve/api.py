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
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Literal, NamedTuple, overload

from .errors import CpsolveError, CpsolveNotice
from .output.text import markup
from .puzzle.geometry import Cell
from .puzzle.model import Puzzle

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .analysis.compare import CompareRow
    from .analysis.disassembly import Disassembly
    from .search.backends import Backend
    from .search.enumeration import Prepared
    from .search.estimate import SolutionEstimate
    from .search.result import EnumerationResult, Progress, SolutionClass

__all__ = [
    "ApproxCounts", "Comparison", "Counts", "CpsolveError", "CpsolveNotice", "Enumeration", "Puzzle", "Result",
    "Solution", "compare", "count", "count_approx", "disassemble", "draw", "enumerate", "export", "load",
    "models", "page", "puzzle_from_dict", "puzzle_from_xmpuzzle", "puzzle_from_yaml", "read_solutions", "run",
    "sample", "solve",
]

PathLike = str | os.PathLike[str]


# --- puzzles --------------------------------------------------------------------------------------


def models() -> list[str]:
    """The names of the built-in models (what `cpsolve list` shows).

    >>> "soma" in cpsolve.models()
    True
    """
    from .puzzle.catalog import builtin_names

    return builtin_names()


def load(model: PathLike) -> Puzzle:
    """A built-in model by name, or a puzzle file (YAML, or a BurrTools `.xmpuzzle`, its first problem).

    The file is read again on every call (the command line's loader keeps what it read, which in a
    notebook would hide an edit to the file); errors name the file and the field.

    >>> soma = cpsolve.load("soma")
    >>> soma.name, soma.n_pieces, len(soma.container)
    ('soma', 7, 27)
    >>> cpsolve.load("no-such-model.yaml")
    Traceback (most recent call last):
    cpsolve.errors.CpsolveError: no-such-model.yaml: no such puzzle file
    """
    from .puzzle.catalog import load as load_cached

    return load_cached.__wrapped__(os.fspath(model))


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
                          dict(extra) if extra else None)

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
                    cls.mirror_distinct, puzzle)


def _frozen(pieces: Mapping[str, Iterable[Sequence[int]]]) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    return tuple((k, tuple((int(c[0]), int(c[1]), int(c[2])) for c in cells)) for k, cells in pieces.items())


class Counts(NamedTuple):
    """The three numbers: every assembly, up to rotation, up to rotation and reflection."""

    total: int
    unique_rotation: int
    unique_symmetry: int

    def _repr_html_(self) -> str:
        return _table(("total", "up to rotation", "up to rotation and reflection"), [tuple(map(str, self))])


@dataclass(frozen=True)
class Result:
    """What an enumeration reports: its counts and how it ended.

    `status` is "complete" (the counts are exact), "stopped" (a limit, or the caller stopped
    iterating), "timeout" or "interrupted" (Ctrl-C); then the counts are those of the assemblies
    visited so far. `as_json()` is the object `cpsolve enumerate --json` prints (less its file).
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

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def as_json(self) -> dict[str, object]:
        return dict(self._json)

    def _repr_html_(self) -> str:
        rows = [(self.puzzle, self.backend, self.status, *map(str, self.counts), f"{self.seconds:.2f}")]
        return _table(("puzzle", "backend", "status", "total", "up to rotation", "up to rotation and reflection",
                       "seconds"), rows)


def _result(raw: EnumerationResult) -> Result:
    return Result(raw.puzzle, raw.backend, raw.status.value, Counts(**raw.counts()), raw.seconds,
                  raw.first_solution_seconds, raw.key, raw.tally.found, raw.as_json(), raw.backend_reason)


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
          symmetry_breaking: bool = True) -> Solution | None:
    """The first solution the backend finds, or None when the puzzle has none.

    A `timeout` (seconds) that passes first raises `CpsolveError` (exit code 1): None always means
    "no solution". `print(solution)` draws it as z-layers, one letter per piece.

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
    from .search.backends import Status
    from .search.enumeration import first_solution

    prepared, engine = _prepare(puzzle, backend, symmetry_breaking)
    rows, stats = first_solution(prepared, engine, timeout)
    if rows is None:
        if stats.status is Status.INTERRUPTED:
            raise KeyboardInterrupt
        if stats.status is Status.TIMEOUT:
            raise CpsolveError(f"timed out before finding a solution ({stats.backend}, {stats.seconds:.2f} s)",
                               where=prepared.name, field="timeout", exit_code=1)
        return None
    problem = prepared.broken.problem
    forms = prepared.canonicalizer.forms(problem, rows)
    return Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), None,
                    forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                    stats.backend, stats.seconds)


def run(
    puzzle: Puzzle,
    on_solution: Callable[[Solution], object] | None = None,
    *,
    backend: str = "auto",
    workers: int = 1,
    limit: int = 0,
    timeout: float | None = None,
    symmetry_breaking: bool = True,
    progress: Progress | None = None,
) -> Result:
    """Enumerate in this process, calling `on_solution` with each new class as soon as it is found.

    This is `cpsolve enumerate`: `limit` stops after that many classes, `timeout` (seconds) ends the
    run with status "timeout", `workers` > 1 splits it over forked processes (solutions still reach
    `on_solution` here). Ctrl-C ends it with status "interrupted", never between a class being
    counted and `on_solution` returning, so the counts never run ahead of what it was given.
    `progress` receives the running record about five times a second (the command line's
    progress line). For an iterator, see `enumerate`.

    >>> names = []
    >>> r = cpsolve.run(cpsolve.load("soma"), lambda s: names.append(s.index), limit=3)
    >>> names, r.status
    ([0, 1, 2], 'stopped')
    """
    from .search.enumeration import enumerate_classes

    prepared, engine = _prepare(puzzle, backend, symmetry_breaking, workers)

    def on_class(cls: SolutionClass) -> None:
        assert on_solution is not None
        on_solution(_solution(puzzle, prepared, cls))

    raw = enumerate_classes(prepared, engine, limit=limit, timeout=timeout, workers=workers,
                            on_class=on_class if on_solution is not None else None, progress=progress)
    return _result(raw)


def count(puzzle: Puzzle, *, backend: str = "auto", workers: int = 1, timeout: float | None = None,
          symmetry_breaking: bool = True) -> Counts:
    """The three counts, exact: a run that does not finish raises instead of returning part of them
    (a timeout: `CpsolveError` with exit code 1; Ctrl-C: KeyboardInterrupt). `run` and
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
                           f"({counts_text(result.counts)}) are incomplete", where=result.puzzle, exit_code=1)
    return result.counts


class Enumeration(Iterator[Solution]):
    """An enumeration as an iterator of `Solution`s, one per class up to rotation and reflection.

    `enumerate` returns it. Iterate it to the end, or stop early (`break`, `close()`, or leaving a
    `with` block): the search stops at once and leaves no process behind. `result` then holds the
    counts and the status ("stopped" when the caller stopped first).

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
        if timeout is not None and not (timeout > 0 and timeout < float("inf")):
            raise CpsolveError(f"must be a finite number of seconds > 0, not {timeout}", field="timeout")
        self.puzzle = puzzle
        self._prepared, self._engine = prepared, engine
        self._limit, self._timeout, self._workers = limit, timeout, workers
        self._pid: int | None = None
        self._conn: Connection | None = None
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
            if final is None:
                self._result = self._empty(status)
            else:  # a run that ended by itself keeps its status; one stopped by us says why
                self._result = _relabel(final, status) if final.status == "interrupted" else final

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
                      "seconds": self.knuth_seconds},
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
    from .search.approx import check_parameters, projected_count
    from .search.estimate import estimate_solutions

    check_parameters(epsilon, delta)
    if walks < 0:
        raise CpsolveError(f"must be >= 0, not {walks}", field="walks")
    prepared = _prepared(puzzle, True, workers)
    problem, broken = prepared.problem, prepared.broken
    numberings = 1 + len(problem.label_symmetries)
    notes: list[str] = []
    total = interval = seconds = None
    exact = False
    if approxmc:
        from .problem.cnf import encode
        from .search.approx import INSTALL_HINT

        if progress is not None:
            progress("ApproxMC: counting the CNF projected on the placement variables")
        try:
            found = projected_count(encode(problem), epsilon, delta, seed, timeout)
        except CpsolveError as exc:
            if exc.field not in ("timeout", "approx") and exc.exit_code != 1:
                raise
            if exc.message == INSTALL_HINT and not walks:
                raise
            notes.append(f"ApproxMC: {exc.message}")
        else:
            total, exact, seconds = found.count // numberings, found.exact, found.seconds
            low, high = found.interval
            interval = (low / numberings, high / numberings)
    knuth = knuth_stderr = knuth_seconds_taken = None
    knuth_walks = 0
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
        knuth_walks, knuth_seconds_taken = estimate.walks, estimate.seconds
        if estimate.reached == 0:
            notes.append(f"Knuth: none of {estimate.walks} walks reached a solution (0 is no estimate: more walks)")
    canon = prepared.canonicalizer
    return ApproxCounts(prepared.name, total, interval, exact, epsilon, delta, seed, seconds, knuth, knuth_stderr,
                        knuth_walks, knuth_seconds_taken, canon.n_rotations, len(canon.elements), tuple(notes))


def sample(puzzle: Puzzle, n: int, *, seed: int = 1, timeout: float | None = None) -> list[Solution]:
    """`n` near-uniform random assemblies (UniGen on the sat backend's CNF projected on the placement
    variables; `seed` makes them reproducible; `timeout` in seconds raises, exit code 1). Each is the
    assembly as drawn; its `index` numbers its class (up to rotation and reflection) in the order the
    sample first meets it, and `assemblies` and `mirror_distinct` describe that class, so `as_line()`
    writes the solutions file `cpsolve sample` writes. Draws are independent: an assembly may repeat.
    Needs the extra `cpsolve[approx]`.

    >>> drawn = cpsolve.sample(cpsolve.load("slothouber-graatsma"), 3, seed=2)
    >>> len(drawn), {s.index for s in drawn}, drawn[0].assemblies
    (3, {0}, 8)
    """
    from .output.solutions import labelled, rows_as_placements
    from .problem.cnf import encode
    from .search.approx import uniform_rows

    prepared = _prepared(puzzle, False)
    problem = prepared.problem
    classes: dict[bytes, int] = {}
    out = []
    for rows in uniform_rows(encode(problem), n, seed, timeout):
        forms = prepared.canonicalizer.forms(problem, rows)
        index = classes.setdefault(forms.symmetry_key, len(classes))
        out.append(Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), index,
                            forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle))
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

        return write_xmpuzzle(puzzle, [{k: list(v) for k, v in s.pieces.items()} for s in solutions])
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
    from .output.stl import binary_stl, file_names, triangles

    if puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no separate pieces to print", where=puzzle.name, field="format")
    if not unit > 0:
        raise CpsolveError(f"the cube size must be > 0 mm, not {unit:g}", field="unit")
    if clearance < 0 or clearance * 2 >= unit:
        raise CpsolveError(f"clearance {clearance:g} mm does not fit a {unit:g} mm cube", field="clearance")
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


def draw(
    what: Solution | Puzzle | Sequence[Solution],
    format: Literal["png", "svg"] = "png",
    *,
    view: str = "front-right",
    exploded: bool = False,
    title: bool | str = True,
) -> bytes:
    """A picture (`cpsolve draw`): a solution as shaded cubes; a puzzle as its pieces, each named
    (a chain unfolded); a sequence of solutions as a contact sheet. `view` is front-right,
    front-left, back-right, back-left, or below-... of these; `title` True writes the usual one.

    >>> png = cpsolve.draw(cpsolve.solve(cpsolve.load("soma")))
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> cpsolve.draw(cpsolve.load("soma"), "svg")[:5]
    b'<svg '
    """
    from .output import pictures
    from .output.scene import VIEWS, parts_of

    if format not in ("png", "svg"):
        raise CpsolveError(f"unknown picture format {format!r} (known: png, svg)", field="format")
    if view not in VIEWS:
        raise CpsolveError(f"unknown view {view!r} (known: {', '.join(VIEWS)})", field="view")

    def heading(default: str) -> str | None:
        return default if title is True else (title or None)

    if isinstance(what, Solution):
        which = f"solution {what.index}" if what.index is not None else "a solution"
        drawing = pictures.draw_solution(what.pieces, _colors(what.puzzle), view=view, explode=exploded,
                                         title=heading(f"{what.name}, {which}"))
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
        colors = _colors(sheet[0].puzzle)
        drawing = pictures.sheet_drawing(
            [(f"#{s.index if s.index is not None else i}", parts_of(s.pieces, colors))
             for i, s in builtins.enumerate(sheet)],
            view=view, title=heading(f"{sheet[0].name}: {len(sheet)} solutions"))
    return pictures.encode(drawing, format)


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
    records = [{"puzzle": s.name, "pieces": s.pieces} for s in chosen]
    return page_html(records, chosen[0].puzzle, title=chosen[0].name if title is None else title)


def read_solutions(path: PathLike, limit: int = 0) -> list[Solution]:
    """The solutions of a JSON-lines file written by `cpsolve enumerate` (the first `limit` when > 0),
    each with its puzzle when the name in the file can be loaded (a built-in model, a path).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with open(folder / "soma.jsonl", "w") as out:
    ...     r = cpsolve.run(cpsolve.load("soma"), lambda s: print(s.as_line(), file=out), limit=2)
    >>> [(s.index, s.assemblies, s.puzzle.name) for s in cpsolve.read_solutions(folder / "soma.jsonl")]
    [(0, 48, 'soma'), (1, 48, 'soma')]
    """
    from .output.solutions import read_solutions as read_lines

    records = read_lines(Path(path), limit)
    known: dict[str, Puzzle | None] = {}
    out = []
    for record in records:
        name = str(record.get("puzzle", Path(path).name))
        if name not in known:
            try:
                known[name] = load(name)
            except CpsolveError:
                known[name] = None
        index, assemblies, mirror = record.get("class"), record.get("assemblies"), record.get("mirror_distinct")
        out.append(Solution(name, _frozen(record["pieces"]), index if type(index) is int else None,
                            assemblies if type(assemblies) is int else None,
                            mirror if isinstance(mirror, bool) else None, known[name]))
    return out


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
