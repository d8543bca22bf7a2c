"""Subproblems on forked worker processes, solutions sent back within 50 ms of being found.

Workers are forked, so they inherit the prepared problem and the backend without pickling or
reloading (starting a fresh interpreter and importing OR-Tools costs about 0.5 s each). Each worker
has its own two-way pipe: the parent sends it parts, the one to run and the next (PREFETCH), and it
sends back what it finds (in batches of up to 256 solutions, none held more than 50 ms), then "done"
for each part. A worker judges its own solutions (`problem.canonical.Judge`: which ones open a class,
remembering none) and sends counts and the new classes only; the parent counts and writes, so a
Ctrl-C or a timeout loses nothing it had already counted.

Why not `multiprocessing.Pool` (what this module used before): a pool cannot tell that a worker
died (the kernel's out-of-memory killer, a `kill -9`), so the parent waited for ever for its part;
and one queue shared by all workers gave the parent no way to check the deadline while solutions
kept arriving. Here the parent waits on the pipes at most `POLL` seconds at a time and looks at the
clock before every message, so `--timeout` is a deadline however fast solutions stream; a closed
pipe means a dead worker, whose part is run again on a fresh worker.

A part that runs far longer than estimated is split again: the parent sends each part with a budget
of search nodes (`budget_of`), a backend that `gives_back` stops there and returns what it had not
searched as prefixes, the worker sizes them with a few walks each, and the parent puts them first in
line as parts of their own (`finished` registers them, in the journal too). The few giant parts that
the estimate missed are so shared out instead of running alone at the end.

Rerunning a part must not count its solutions twice: while a part is in flight the parent keeps how
many solutions it received from it, and a running hash of them (the worker's); a rerun is given the
same node budget and skips that many, since a backend lists a part's solutions in the same order every
time (`Backend.search`), and it checks the hash of those it skipped: a backend that breaks that
promise stops the run with one line rather than miscount. Nothing grows with the solutions found (the
digest of every solution the parent kept before cost memory without bound on a long part). A part
whose worker dies twice stops the run with one line naming the part (a part that kills its worker
once will likely do it again, e.g. out of memory).

Workers ignore SIGINT (the terminal sends Ctrl-C to the whole process group; the parent decides when
to stop) and are killed with SIGKILL when the parent is done with them. They ask the kernel to kill
them when the parent dies (Linux `PR_SET_PDEATHSIG`), so a `kill -9` of the parent leaves no orphan.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import pickle
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from ..errors import CpsolveError
from ..problem.canonical import Judge, Stretches
from ..problem.placements import ExactCoverProblem
from .backends import Backend, SearchStats, Status
from .estimate import part_sizes
from .result import Collect, EnumerationResult, Finished

POLL = 0.1
"""Longest wait on the workers' pipes before the parent looks at the clock and at its workers again."""
BURST = 64
"""Messages read from one worker before the others get their turn (so none of them starves)."""
BATCH = 256
"""Solutions a worker sends in one message at most."""
FLUSH = 0.05
"""Seconds a worker holds a solution before sending what it has."""
ATTEMPTS = 2
"""How many workers may die on one part before the run stops with an error."""
PREFETCH = 2
"""Parts a worker holds at most: the one it runs and the next (see `give` in `run_parallel`)."""
REST_PROBES = 8
"""Walks a worker spends sizing each prefix a part gave back (they only order the queue and feed the ETA)."""
REST_SECONDS = 0.05
"""CPU seconds that sizing may take at most, however many prefixes came back."""
_PR_SET_PDEATHSIG = 1
Budget = Callable[[int, Sequence[int]], int]
"""(part, the parts still waiting) -> the part's node budget (0: none)."""
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
    reset here: a worker has nothing to tidy up.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


@contextlib.contextmanager
def forked_pool(workers: int) -> Iterator[ForkedPool]:
    """Forked workers for independent jobs (the key choice's estimates, part sizing, the design
    searches): `pool.map(fn, jobs)` and `pool.imap(fn, jobs)` give fn's results in the jobs' order.

    Why not `multiprocessing.Pool` (what this used before): starting and joining one cost 25 ms
    (its three handler threads, its queues and their locks), a tenth of the key choice it served on
    Bedlam and serial in every run; and a worker killed by the kernel left `map` waiting for ever.
    These are the run's own workers (`_fork`): a pipe each, SIGINT ignored, killed with their parent.
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


def _tasks(conn: Connection) -> Iterator[tuple[Any, ...]]:
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
    for index, fn, arg in _tasks(conn):
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
        self.workers: list[_Worker] = []
        for _ in range(max(1, workers)):
            self.workers.append(_fork(_serve_jobs, self.workers))

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

        def give(w: _Worker) -> None:
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

    def _answer(self, w: _Worker) -> tuple[int, Any]:
        """A busy worker's result (it has one ready), the worker idle again; its error raised here."""
        try:
            kind, index, payload = w.conn.recv()
        except (EOFError, OSError):
            status = _reap(w, kill=True)
            raise CpsolveError(f"a worker process died ({_describe(status)})", exit_code=1) from None
        if kind == "error":
            assert isinstance(payload, BaseException)
            raise payload
        w.part = None
        return index, payload

    def close(self, kill: bool) -> None:
        """Stop the workers: idle ones are told to end, busy ones (and all, with `kill`) are killed."""
        for w in self.workers:
            if not kill and w.part is None:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
                _reap(w, kill=False)
            else:
                _reap(w, kill=True)
        self.workers = []


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
class _Worker:
    pid: int
    conn: Connection
    part: int | None = None
    """A pool worker's job in hand."""
    queued: deque[int] = field(default_factory=deque)
    """An enumeration worker's parts sent and not yet done, in the order it runs them (the first is
    running, the next waits in its pipe)."""


@dataclass
class _Flight:
    """What the parent has counted from one part, so that a rerun counts none twice: the solutions
    received, the running hash of them, and the node budget the part was sent with."""

    received: int = 0
    hashed: int = 0
    budget: int | None = None
    attempts: int = 0


def running_hash(hashed: int, rows: tuple[int, ...]) -> int:
    """The running hash after one more solution: the same in every process (a tuple of ints hashes the same
    wherever it is hashed: PYTHONHASHSEED salts strings and bytes only)."""
    return hash((hashed, rows))


class _Batch:
    """A worker's solutions, judged and sent in batches: one pipe message per solution cost the parent
    more than the canonical form of it (Conway without symmetry breaking, 27,456 solutions: two workers
    were slower than one process). A batch goes when it holds BATCH solutions or classes or is FLUSH
    seconds old, so the parent still sees solutions within a fraction of a second.

    A rerun skips the first `skip` solutions (the parent counted them from the run before) and checks
    that their running hash is `expect`."""

    def __init__(self, conn: Connection, part: int, judge: Judge, skip: int = 0, expect: int = 0):
        self.conn, self.part, self.judge = conn, part, judge
        self.stretches = Stretches()
        self.since = 0.0
        self.seen = 0
        self.hashed = 0
        self.skip, self.expect = skip, expect

    def add(self, rows: tuple[int, ...]) -> None:
        self.hashed = running_hash(self.hashed, rows)
        self.seen += 1
        if self.seen <= self.skip:
            if self.seen == self.skip and self.hashed != self.expect:
                raise RerunDiffers(f"the backend listed other solutions when subproblem {self.part + 1} was run "
                                   "again after its worker died; the run stops rather than count them wrong")
            return
        if not self.stretches.held:
            self.since = time.monotonic()
        self.stretches.add(self.judge(rows))
        if self.stretches.held >= BATCH or time.monotonic() - self.since > FLUSH:
            self.flush()

    def flush(self) -> None:
        if self.stretches.held:
            self.conn.send(("solutions", self.part, (self.stretches.take(), self.seen, self.hashed)))


class RerunDiffers(Exception):
    """A part run again did not list the same first solutions as the run before."""


def _serve(conn: Connection, judge: Judge, backend: Backend, deadline: float | None) -> None:
    """The worker's loop: receive (part, forced rows, node budget, solutions to skip, their hash), stream its
    judged solutions, report its stats with the sizes of what it gave back."""
    problem = judge.problem
    for part, forced, budget, skip, expect in _tasks(conn):
        try:
            remaining = None if deadline is None else deadline - time.time()
            rest_sizes: list[float] = []
            if remaining is not None and remaining <= 0:
                stats = SearchStats(backend.label, Status.TIMEOUT)
            else:
                batch = _Batch(conn, part, judge, skip, expect)
                stats = backend.search(problem, batch.add, forced=forced, timeout=remaining, budget=budget)
                if batch.seen < skip and stats.status == Status.COMPLETE:
                    batch.skip = batch.seen  # fewer solutions than the run before: the check below fails
                    raise RerunDiffers(f"the backend listed fewer solutions when subproblem {part + 1} was run "
                                       "again after its worker died; the run stops rather than count them wrong")
                batch.flush()
                rest_sizes = given_back_sizes(problem, stats.rest)
            conn.send(("done", part, (stats, rest_sizes)))
        except (BrokenPipeError, EOFError, ConnectionResetError):
            return
        except Exception as exc:  # noqa: BLE001 - the parent reports it with the worker's message
            conn.send(("error", part, str(exc) if isinstance(exc, RerunDiffers) else f"{type(exc).__name__}: {exc}"))


def given_back_sizes(problem: ExactCoverProblem, rest: Sequence[tuple[int, ...]]) -> list[float]:
    """Estimated nodes of the prefixes a part gave back, measured where the part ran (a worker has the
    problem at hand, and the parent must not spend its time on walks): a few walks each, only to
    order the queue and feed the ETA."""
    if not rest:
        return []
    return part_sizes(problem, rest, probes=REST_PROBES * len(rest), seconds=REST_SECONDS) or [0.0] * len(rest)


def _fork(serve: Callable[[Connection], None], others: Sequence[_Worker]) -> _Worker:
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
    return _Worker(pid, parent_end)


def _spawn(judge: Judge, backend: Backend, deadline: float | None, others: list[_Worker]) -> _Worker:
    return _fork(lambda conn: _serve(conn, judge, backend, deadline), others)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def _reap(worker: _Worker, kill: bool) -> int:
    """Kill (if asked) and reap a worker; its wait status (0 if it was already gone)."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.pid, signal.SIGKILL)
    worker.conn.close()
    try:
        return os.waitpid(worker.pid, 0)[1]
    except ChildProcessError:
        return 0


def run_parallel(
    judge: Judge,
    backend: Backend,
    parts: Sequence[tuple[int, ...]],
    order: Sequence[int],
    workers: int,
    deadline: float | None,
    collect: Collect,
    finished: Finished,
    result: EnumerationResult,
    budget_of: Budget = lambda part, waiting: 0,
) -> None:
    """Run the parts listed in `order` on `workers` processes, in that order (the biggest first).

    Each part's solutions go to `collect(part, stretch)`, judged by the workers with `judge`, in arrival
    order, once even when the part is run again on a fresh worker; `finished(part, stats, rest_sizes)`
    once the part is complete. A part
    is searched for at most `budget_of(part, waiting)` nodes (0: no limit; `waiting` are the parts not
    yet handed out when it is); the parts `finished` makes of what it gave back (`parts` grows by
    them) run next. Returns with
    `result.status` COMPLETE, STOPPED (the collector said so) or TIMEOUT (the deadline, a
    `time.time()` value, passed); KeyboardInterrupt propagates. Every worker is gone when it returns
    or raises.
    """
    todo: deque[int] = deque(order)
    flights: dict[int, _Flight] = {}
    pool: list[_Worker] = []

    def replace(dead: _Worker) -> None:
        """A worker died (its pipe closed): reap it, put its parts back first in line, start another."""
        status = _reap(dead, kill=True)
        pool.remove(dead)
        if dead.queued:
            part = dead.queued[0]  # the one it was running; the next had not started
            flights[part].attempts += 1
            if flights[part].attempts >= ATTEMPTS:
                raise CpsolveError(
                    f"subproblem {part + 1} of {len(parts)} failed: its worker died {ATTEMPTS} times "
                    f"(last {_describe(status)})",
                    exit_code=1,
                )
            todo.extendleft(reversed(dead.queued))
        if todo:
            fresh = _spawn(judge, backend, deadline, pool)
            pool.append(fresh)
            give(fresh)

    idle_since: dict[int, float] = {}
    """Worker pid -> when it found nothing left to take: the run's idle tail, which balancing shrinks."""

    def give(w: _Worker) -> None:
        """Top up a worker's queue: a part to run and, while there are more parts than workers, the next
        one. The next part waits in the worker's pipe, so the worker starts it the moment it is done
        with the one before, without waiting for this process: the parent is often busy counting a
        batch of solutions (4 ms for 256 on Bedlam), and workers waiting for it between parts lost
        0.08 s of the Tetris Cube's 2.5 s on two workers."""
        while len(w.queued) < PREFETCH and todo and (not w.queued or len(todo) > len(pool)):
            if not _assign(w, todo, parts, flights, budget_of):
                replace(w)
                return
        if not w.queued:
            idle_since.setdefault(w.pid, time.perf_counter())

    try:
        for _ in range(min(workers, len(todo))):
            pool.append(_spawn(judge, backend, deadline, pool))
        for w in list(pool):
            give(w)
        while busy := [w for w in pool if w.queued]:
            if _expired(deadline):
                result.status = Status.TIMEOUT
                return
            wait_for = POLL if deadline is None else max(0.0, min(POLL, deadline - time.time()))
            ready = wait([w.conn for w in busy], timeout=wait_for)
            for w in [w for w in busy if w.conn in ready]:
                outcome = _drain(w, flights, collect, finished, deadline, todo)
                if outcome == "dead":
                    replace(w)
                elif isinstance(outcome, Status):
                    result.status = outcome
                    return
                elif len(w.queued) < PREFETCH:
                    give(w)
        end = time.perf_counter()
        result.details["idle_tail"] = sum(end - t for t in idle_since.values())
    finally:
        for w in pool:
            _reap(w, kill=True)


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.time() >= deadline


def _assign(w: _Worker, todo: deque[int], parts: Sequence[tuple[int, ...]], flights: dict[int, _Flight],
            budget_of: Budget) -> bool:
    """Send the next part to a worker; False if the worker turns out to be dead."""
    part = todo.popleft()
    flight = flights.setdefault(part, _Flight())
    if flight.budget is None:  # a rerun keeps the first run's budget: the same search, node for node
        flight.budget = budget_of(part, todo)
    w.queued.append(part)
    try:
        w.conn.send((part, parts[part], flight.budget, flight.received, flight.hashed))
    except OSError:
        return False
    return True


def _drain(w: _Worker, flights: dict[int, _Flight], collect: Collect, finished: Finished,
           deadline: float | None, todo: deque[int]) -> Status | str | None:
    """Handle up to BURST messages of one worker: None to go on, "dead", or the run's final status."""
    for _ in range(BURST):
        try:
            kind, part, payload = w.conn.recv()
        except (EOFError, OSError):
            return "dead"
        if kind == "error":
            raise CpsolveError(f"a worker failed on subproblem {part + 1}: {payload}", exit_code=1)
        flight = flights[part]
        if kind == "solutions":
            stretches, flight.received, flight.hashed = payload
            for n, stretch in enumerate(stretches, 1):
                if collect(part, stretch):
                    return Status.STOPPED
                if n % 16 == 0 and _expired(deadline):
                    return Status.TIMEOUT
        else:
            stats: SearchStats
            stats, rest_sizes = payload
            if stats.status != Status.COMPLETE:
                return stats.status
            del flights[part]
            w.queued.remove(part)
            todo.extendleft(reversed(finished(part, stats, rest_sizes)))  # given back: next in line
            return None
        if _expired(deadline):
            return Status.TIMEOUT
        if not w.conn.poll():
            return None
    return None
