"""`enumerate`: an enumeration as an iterator that can be stopped at any moment, the search running in a
forked process so that a `break` or Ctrl-C stops it at once (`Enumeration` says why a process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..limits import check_timeout
from ..output.text import markup
from ..puzzle.model import Puzzle
from ..search.settings import RunSettings
from .results import Counts, Result, Solution, _relabel, _result, _solution
from .solving import _prepare

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from ..search.enumeration import Prepared


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

    def __init__(self, puzzle: Puzzle, prepared: Prepared, settings: RunSettings):
        check_timeout(settings.timeout)
        self.puzzle = puzzle
        self._prepared, self._settings = prepared, settings
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
        from ..search.enumeration import enumerate_classes
        from ..search.pool import die_with_parent, forked_child_signals

        forked_child_signals()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        die_with_parent(parent)
        try:
            raw = enumerate_classes(self._prepared, self._settings, on_class=lambda cls: conn.send(("class", cls)))
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
        from ..search.backends import Status
        from ..search.result import EnumerationResult

        engine = self._settings.backend
        raw = EnumerationResult(self._prepared.name, engine.label, self._prepared.broken.key.describe(),
                                status=Status(status), backend_reason=engine.reason)
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
    return Enumeration(puzzle, prepared, RunSettings(engine, workers=workers, limit=limit, timeout=timeout))
