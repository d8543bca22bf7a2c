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

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from ..errors import CpsolveError
from ..problem.canonical import Judge, Stretches
from ..problem.placements import ExactCoverProblem
from .backends import Backend, SearchStats, Status
from .estimate import part_sizes
from .pool import Worker, describe, fork, reap, tasks
from .result import Collect, Finished
from .settings import Budget, Work

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
    for part, forced, budget, skip, expect in tasks(conn):
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


def _spawn(judge: Judge, backend: Backend, deadline: float | None, others: list[Worker]) -> Worker:
    return fork(lambda conn: _serve(conn, judge, backend, deadline), others)


def run_parallel(work: Work, workers: int) -> None:
    """Run the parts `work.order` lists on `workers` processes, in that order (the biggest first).

    Each part's solutions go to `work.collect(part, stretch)`, judged by the workers with `work.judge`,
    in arrival order, once even when the part is run again on a fresh worker; `work.finished(part, stats,
    rest_sizes)` once the part is complete. A part is searched for at most `work.budget_of(part, waiting)`
    nodes (0: no limit; `waiting` are the parts not yet handed out when it is); the parts `finished` makes
    of what it gave back (`work.parts` grows by them) run next. Returns with `work.result.status`
    COMPLETE, STOPPED (the collector said so) or TIMEOUT (the deadline passed); KeyboardInterrupt
    propagates. Every worker is gone when it returns or raises.
    """
    judge, backend, parts, deadline = work.judge, work.backend, work.parts, work.deadline
    collect, finished, result, budget_of = work.collect, work.finished, work.result, work.budget_of
    todo: deque[int] = deque(work.order)
    flights: dict[int, _Flight] = {}
    pool: list[Worker] = []

    def replace(dead: Worker) -> None:
        """A worker died (its pipe closed): reap it, put its parts back first in line, start another."""
        status = reap(dead, kill=True)
        pool.remove(dead)
        if dead.queued:
            part = dead.queued[0]  # the one it was running; the next had not started
            flights[part].attempts += 1
            if flights[part].attempts >= ATTEMPTS:
                raise CpsolveError(
                    f"subproblem {part + 1} of {len(parts)} failed: its worker died {ATTEMPTS} times "
                    f"(last {describe(status)})",
                    exit_code=1,
                )
            todo.extendleft(reversed(dead.queued))
        if todo:
            fresh = _spawn(judge, backend, deadline, pool)
            pool.append(fresh)
            give(fresh)

    idle_since: dict[int, float] = {}
    """Worker pid -> when it found nothing left to take: the run's idle tail, which balancing shrinks."""

    def give(w: Worker) -> None:
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
            reap(w, kill=True)


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.time() >= deadline


def _assign(w: Worker, todo: deque[int], parts: Sequence[tuple[int, ...]], flights: dict[int, _Flight],
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


def _drain(w: Worker, flights: dict[int, _Flight], collect: Collect, finished: Finished,
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
