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
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    from .analysis.disassembly import Disassembly
    from .analysis.explain import Report
    from .analysis.explain.counting import ColourArgument, Scheme
    from .search.backends import Backend
    from .search.enumeration import Prepared
    from .search.result import EnumerationResult, Progress, SolutionClass

__all__ = [
    "Comparison", "Counts", "CpsolveError", "CpsolveNotice", "Enumeration", "Explanation", "Puzzle", "Result",
    "Solution", "compare", "count", "disassemble", "draw", "enumerate", "explain", "export", "load", "models", "page",
    "puzzle_from_dict", "puzzle_from_xmpuzzle", "puzzle_from_yaml", "read_solutions", "run", "solve",
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
    from .search.enumeration import prepare

    if not isinstance(puzzle, Puzzle):
        raise CpsolveError(f"expected a Puzzle (from cpsolve.load and the like), not {type(puzzle).__name__}")
    prepared = prepare(puzzle, symmetry_breaking, max(workers, 1))
    return prepared, for_problem(backend, prepared.problem)


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
        check_timeout(timeout)
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


def read_solutions(path: PathLike, limit: int = 0) -> list[Solution]:
    """The solutions of a JSON-lines file written by `cpsolve enumerate` (the first `limit` when > 0),
    each with its puzzle when the name in the file can be loaded (a built-in model, a path), and
    checked against it: a line that is not a solution of the puzzle it names is refused, as is one
    that cannot be a solution of any (a cell in two pieces, a bounding box past `--max-drawing`).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with open(folder / "soma.jsonl", "w") as out:
    ...     r = cpsolve.run(cpsolve.load("soma"), lambda s: print(s.as_line(), file=out), limit=2)
    >>> [(s.index, s.assemblies, s.puzzle.name) for s in cpsolve.read_solutions(folder / "soma.jsonl")]
    [(0, 48, 'soma'), (1, 48, 'soma')]
    """
    from .output.solutions import read_solutions as read_lines

    known: dict[str, Puzzle | None] = {}
    return [_solution_of(record, Path(path), n, known) for n, record in read_lines(Path(path), limit)]


def solution_at(path: PathLike, index: int) -> Solution:
    """The `index`-th (0-based) solution of a JSON-lines file, read and checked as `read_solutions` reads
    each, without parsing the lines before it (`cpsolve show` and `disassemble` want one line)."""
    from .output.solutions import read_solution_line

    return _solution_of(read_solution_line(Path(path), index), Path(path), index + 1, {})


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
    if puzzle is not None and (why := check_solution(puzzle, pieces)) is not None:
        raise CpsolveError(f"not a solution of the puzzle it names ({name}): {why}",
                           where=f"{path}:{line}")
    index, assemblies, mirror = record.get("class"), record.get("assemblies"), record.get("mirror_distinct")
    return Solution(name, _frozen(pieces), index if type(index) is int else None,
                    assemblies if type(assemblies) is int else None, mirror if isinstance(mirror, bool) else None,
                    puzzle)


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
    _report: Report | None = field(default=None, repr=False, compare=False)
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


def _explanation(report: Report, puzzle: Puzzle | None, index: int | None) -> Explanation:
    from .analysis.explain import CoreArgument

    finding = report.finding
    return Explanation(report.puzzle, report.case, report.argument, None if finding is None else finding.size,
                       finding.minimal if isinstance(finding, CoreArgument) else None, report.seconds, report.tried,
                       tuple(report.lines()), index, report, puzzle)


def _explained_source(source: PathLike, index: int | None) -> Puzzle | Solution:
    """A path as explain reads it: a `.jsonl` file's solution, a BurrTools file's stored assembly (with
    `index`), or a puzzle read without its volume check (a built-in name, YAML, BurrTools)."""
    from .puzzle.burrtools import stored_solutions
    from .puzzle.catalog import is_burrtools
    from .puzzle.catalog import load as load_cached

    path = os.fspath(source)
    if Path(path).suffix == ".jsonl":
        n = index or 0
        found = read_solutions(path, n + 1)
        if len(found) <= n:
            raise CpsolveError(f"there is no solution {n}: the file has {len(found)}", where=path, field="index")
        return found[n]
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
