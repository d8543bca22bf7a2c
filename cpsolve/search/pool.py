"""Forked worker processes: the pool that independent jobs run on (the key choice's estimates, part
sizing, the design searches, taking classes apart while a search goes on) and the primitives that
every part of cpsolve that forks shares (`fork`, `reap`, the signals a worker takes).

Workers are forked, so they inherit what the parent prepared without pickling or reloading. Each has
its own two-way pipe, so the death of one closes its pipe alone and the parent sees it at once.
Workers ignore SIGINT (the terminal sends Ctrl-C to the whole process group; the parent decides when
to stop) and are killed with SIGKILL when the parent is done with them. They ask the kernel to kill
them when the parent dies (Linux `PR_SET_PDEATHSIG`), so a `kill -9` of the parent leaves no orphan.

This module knows nothing of searches: `parallel` (the enumeration's workers) and `estimate` build on
it, neither on the other.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import pickle
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from ..errors import CpsolveError

_PR_SET_PDEATHSIG = 1
A = TypeVar("A")
R = TypeVar("R")


def die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies; exit at once if it already has.

    Elsewhere (no prctl) workers still end when they next write to the closed pipe.
    """
    # The running program's own symbols include libc's (ctypes.util.find_library would start a subprocess).
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died between fork and prctl
        os._exit(1)


def forked_child_signals() -> None:
    """In a forked worker: Ctrl-C is the parent's business; SIGTERM/SIGHUP end the worker at once.

    The parent's handlers (which turn SIGTERM into an orderly stop) are inherited by fork and are
    reset here: a worker has nothing to tidy up. Then the stop signals are let through again (a parent
    that forks holds them back: `stop_signals_held`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back (blocked, then delivered on leaving): what forks a worker and
    records it must not be cut between the two."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def forked_pool(workers: int) -> Iterator[ForkedPool]:
    """Forked workers for independent jobs (the key choice's estimates, part sizing, the design
    searches): `pool.map(fn, jobs)` and `pool.imap(fn, jobs)` give fn's results in the jobs' order.

    Why not `multiprocessing.Pool` (what this used before): starting and joining one cost 25 ms
    (its three handler threads, its queues and their locks), a tenth of the key choice it served on
    Bedlam and serial in every run; and a worker killed by the kernel left `map` waiting for ever.
    These are the run's own workers (`fork`): a pipe each, SIGINT ignored, killed with their parent.
    A pool that ran to the end is told to stop; one left early (an exception, a consumer that stopped
    reading `imap`) is killed.
    """
    pool = ForkedPool(workers)
    try:
        yield pool
    except BaseException:
        pool.close(kill=True)
        raise
    else:
        pool.close(kill=False)


def tasks(conn: Connection) -> Iterator[tuple[Any, ...]]:
    """What a worker is sent, one task at a time, until it is told to stop (None) or the parent is gone."""
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        yield task


def _serve_jobs(conn: Connection) -> None:
    """A pool worker's loop: receive (job number, function, argument), send back the result, or the
    exception the function raised (made picklable), until told to stop."""
    for index, fn, arg in tasks(conn):
        try:
            out: tuple[str, int, object] = ("ok", index, fn(arg))
        except Exception as exc:  # noqa: BLE001 - raised again in the parent
            out = ("error", index, _picklable(exc))
        try:
            conn.send(out)
        except (BrokenPipeError, EOFError, ConnectionResetError):
            return


def _picklable(exc: Exception) -> Exception:
    """`exc` if it survives pickling (CpsolveError does), else its text as a RuntimeError."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure to pickle means: send the text instead
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class ForkedPool:
    """What `forked_pool` yields: `workers` forked processes, each given one job at a time."""

    def __init__(self, workers: int):
        self.workers: list[Worker] = []
        try:
            with stop_signals_held():  # a stop between a fork and its registration would leave a worker no one kills
                for _ in range(max(1, workers)):
                    self.workers.append(fork(_serve_jobs, self.workers))
        except BaseException:
            self.close(kill=True)
            raise

    def map(self, fn: Callable[[A], R], jobs: Iterable[A]) -> list[R]:
        """fn(job) for every job, in order."""
        return list(self.imap(fn, jobs))

    def imap(self, fn: Callable[[A], R], jobs: Iterable[A]) -> Iterator[R]:
        """fn(job) for every job, in the jobs' order, as they are done; an idle worker takes the next job
        at once (jobs are read from `jobs` only as workers become free)."""
        source = iter(jobs)
        done: dict[int, R] = {}
        sent = yielded = 0
        exhausted = False

        def give(w: Worker) -> None:
            nonlocal sent, exhausted
            if exhausted:
                return
            try:
                job = next(source)
            except StopIteration:
                exhausted = True
                return
            w.part = sent
            sent += 1
            w.conn.send((w.part, fn, job))

        for w in self.workers:
            give(w)
        while True:
            while yielded in done:
                yielded += 1
                yield done.pop(yielded - 1)
            busy = [w for w in self.workers if w.part is not None]
            if not busy:  # every job sent has come back, and none is left to send
                return
            for conn in wait([w.conn for w in busy]):
                w = next(w for w in busy if w.conn is conn)
                index, payload = self._answer(w)
                done[index] = payload  # fn(job), sent back as it was
                give(w)

    def _answer(self, w: Worker) -> tuple[int, Any]:
        """A busy worker's result (it has one ready), the worker idle again; its error raised here."""
        try:
            kind, index, payload = w.conn.recv()
        except (EOFError, OSError):
            status = reap(w, kill=True)
            raise CpsolveError(f"a worker process died ({describe(status)})", exit_code=1) from None
        if kind == "error":
            assert isinstance(payload, BaseException)
            raise payload
        w.part = None
        return index, payload

    def close(self, kill: bool) -> None:
        """Stop the workers: idle ones are told to end, busy ones (and all, with `kill`) are killed. A stop
        while waiting for one to end kills the rest (none is left behind)."""
        left = list(self.workers)
        self.workers = []
        try:
            while left:
                w = left[0]
                if not kill and w.part is None:
                    with contextlib.suppress(OSError):
                        w.conn.send(None)
                    reap(w, kill=False)
                else:
                    reap(w, kill=True)
                left.pop(0)
        except BaseException:
            for w in left:
                reap(w, kill=True)
            raise


class Pipeline(Generic[A, R]):
    """`fn` on a pool's workers for jobs handed over one at a time (`put`), each result given back in the
    order of the jobs as soon as it and every one before it are done.

    Why not `imap`: its jobs are pulled from an iterator, and the caller here is itself called back by the
    search (`enumerate --disassemble` takes each new class apart on the workers while the search goes on)
    and must return between classes. At most one job per worker is in flight, and at most two per worker
    wait for their turn to be given back (behind a slow one): `put` waits until both hold, so a fast
    stream is slowed to the workers' pace instead of queueing without bound.
    """

    def __init__(self, pool: ForkedPool, fn: Callable[[A], R]):
        self.pool, self.fn = pool, fn
        self.sent = 0
        self.given = 0
        self.done: dict[int, R] = {}
        """Results back before one sent earlier: held until it is back too."""
        self.out: list[R] = []
        """Results in order, to be returned by the next `put` or `finish`."""

    def put(self, job: A) -> list[R]:
        """Send `job` (once a worker is free); the results now ready, in order."""
        limit = 2 * len(self.pool.workers)
        while not any(w.part is None for w in self.pool.workers) or self.pending >= limit:
            self._receive(None)
        w = next(w for w in self.pool.workers if w.part is None)
        w.part = self.sent
        self.sent += 1
        w.conn.send((w.part, self.fn, job))
        self._receive(0)
        out, self.out = self.out, []
        return out

    @property
    def pending(self) -> int:
        """Jobs sent whose results are not in order yet (in flight, or back before an earlier one)."""
        return self.sent - self.given

    def finish(self) -> list[R]:
        """Wait for every job sent; their results not given back yet, in order."""
        while any(w.part is not None for w in self.pool.workers):
            self._receive(None)
        out, self.out = self.out, []
        return out

    def _receive(self, timeout: float | None) -> None:
        """What the busy workers have sent back (waiting up to `timeout`), results in order moved to `out`."""
        busy = [w for w in self.pool.workers if w.part is not None]
        if busy:
            for conn in wait([w.conn for w in busy], timeout):
                index, payload = self.pool._answer(next(w for w in busy if w.conn is conn))
                self.done[index] = payload
        while self.given in self.done:
            self.out.append(self.done.pop(self.given))
            self.given += 1


@dataclass
class Worker:
    pid: int
    conn: Connection
    part: int | None = None
    """A pool worker's job in hand."""
    queued: deque[int] = field(default_factory=deque)
    """An enumeration worker's parts sent and not yet done, in the order it runs them (the first is
    running, the next waits in its pipe)."""


def fork(serve: Callable[[Connection], None], others: Sequence[Worker]) -> Worker:
    """A forked worker running `serve` on its end of a new pipe. The child closes the parent's end and
    the other workers' pipes (so a worker's death closes its own pipe only) and never returns."""
    parent_end, child_end = Pipe()
    parent = os.getpid()
    gc.freeze()  # the child's collector must not walk (and so copy) every page the parent had
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            forked_child_signals()
            die_with_parent(parent)
            parent_end.close()
            for w in others:
                w.conn.close()
            serve(child_end)
        except BaseException:  # noqa: BLE001 - a worker must never run the parent's code after fork
            code = 1
        os._exit(code)
    gc.unfreeze()
    child_end.close()
    return Worker(pid, parent_end)


def describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def reap(worker: Worker, kill: bool) -> int:
    """Kill (if asked) and reap a worker; its wait status (0 if it was already gone)."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.pid, signal.SIGKILL)
    worker.conn.close()
    try:
        return os.waitpid(worker.pid, 0)[1]
    except ChildProcessError:
        return 0
