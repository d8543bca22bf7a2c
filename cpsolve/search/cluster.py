"""Subproblems on a Dask distributed cluster: many machines, or `local:N` worker processes here.

The third runner beside the serial loop and the forked pool (`parallel.py`), with the same contract:
the caller's `collect(i, stretch)` sees every solution of part i exactly once (judged on the worker,
see `problem.canonical.Judge`: counts and the classes opened travel, not every solution), `finished(i, stats)` is
told when part i is done (the caller merges, counts and journals), and counting and writing stay in
this process. What differs is where the search runs and how a lost worker is handled.

Why a part's solutions come back with the part, not one by one: a task returns the part's rows and
its stats together, so a part whose worker is lost (killed, out of memory, its machine gone) is simply
recomputed by Dask on another worker, and nothing of the lost attempt ever reached `collect`: no
digest bookkeeping as in the pool is needed to avoid counting twice. The price is that a part's
solutions reach the caller when the part ends, which the split into many small parts keeps short,
and that at the deadline the parts still running are dropped: a cluster run cut short by `--timeout`
counts the solutions of the parts it finished, where the pool also counts those streamed so far.

A part that meets its node budget (`enumeration.OVERRUN` times its estimate) ends there and gives
back its unsearched rest, sized on the worker, as new parts: they are submitted at once, with
priorities above every part still waiting, so a giant the walks missed is shared out on the cluster
as in the pool. The budget leaves out the pool's SHARE rule: every part is submitted at once, and
which ones are still waiting is the scheduler's knowledge, not this process's.

The problem (with its canonicalizer: the `Judge`) is sent to each worker once, as the result of a task
every part depends on (see `_share`); a worker deserializes it once and a backend keeps its engine for it across parts
(`Backend.kept_for` compares the problem by identity). A backend registered under its name travels
as its spec (`dlx`, `sat:glucose4`) and is built once per worker process; any other backend (a
subclass made for a test) is pickled, also once.

Dask cannot stop a task that is running. At the deadline every task stops itself (it received the
deadline and passes the time left to the backend); when the collector says stop, or on Ctrl-C, the
client cancels what has not started, and a `local:N` cluster is torn down by killing its worker
processes (closing them politely waits for their running parts). On a remote cluster a part that is
already running finishes there and its result is dropped. The deadline is a `time.time()` value read
on the workers' clocks: machines whose clocks disagree stop early or late by the difference.

Dask is an optional dependency (`pip install 'cpsolve[cluster]'`), imported only here, lazily.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import pickle
import re
import signal
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import resource_tracker
from typing import Any

from ..errors import CpsolveError
from ..limits import MAX_WORKERS, usable_cores
from ..problem.canonical import Judge, Stretch, Stretches
from .backends import Backend, BackendUnavailable, SearchStats, Status, backend_class, get_backend
from .parallel import given_back_sizes
from .result import Collect, Finished
from .settings import Work

POLL = 0.05
"""Longest sleep between looks at finished parts and at the clock."""
CHECK_EVERY = 256
"""Solutions handed to `collect` between two looks at the clock (a part may bring many at once)."""
CONNECT_TIMEOUT = 5.0
"""Seconds to reach a scheduler before giving up with an error naming it."""
WORKER_WAIT = 60.0
"""Seconds to wait for a scheduler to have at least one worker (e.g. started just after it)."""
QUIET = logging.CRITICAL + 1
"""Above every level: Dask's log lines (a lost worker, a closed connection, with tracebacks) are not shown
while a run uses the cluster; the run reports what matters as one line."""
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
"""Dask's network protocols (a client given another scheme fails slowly and noisily, so it is refused here)."""
INSTALL_HINT = "the cluster runner needs Dask: pip install 'cpsolve[cluster]'"

PartResult = tuple[list[Stretch], SearchStats, list[float]]
"""A part's solutions (judged, as stretches), its stats, and the sizes of the prefixes it gave back."""


def run_cluster(work: Work, address: str) -> None:
    """Run the parts `work.order` names (in that order of priority) on the Dask cluster at `address`.

    A part is searched for at most `work.budget_of(part, ())` nodes (0: no limit; every part is submitted
    at once, so no part is known to be waiting behind another); the parts `finished` makes of what it
    gave back are submitted at once, ahead of every part not yet started.

    `address` is `tcp://HOST:PORT` (any Dask address with a scheme) of a running scheduler, or
    `local:N` for N single-threaded worker processes on this machine, started here and closed again
    on return. Returns with `work.result.status` COMPLETE, STOPPED (`work.collect` returned True), TIMEOUT
    (`work.deadline` passed) or a part's own non-complete status; KeyboardInterrupt
    propagates. Every future is cancelled, and whatever was started is closed, on return or raise.
    """
    local = parse_address(address)
    distributed = _import_distributed()
    with distributed.utils.silence_logging_cmgr(QUIET), _client(distributed, address, local) as client:
        if not _has_workers(client, address, work.deadline):
            work.result.status = Status.TIMEOUT
            return
        _run(client, distributed, work)


def parse_address(address: str) -> int | None:
    """N for `local:N`, None for a scheduler's address; anything else is bad input (exit 2), refused
    before Dask is imported: `tcp://HOST:notaport` reached Dask's own parser ("internal error")."""
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise CpsolveError(f"local:N needs a number of workers N >= 1, not {count!r}", field="cluster")
        most = min(MAX_WORKERS, usable_cores())
        if int(count) > most:
            raise CpsolveError(f"local:{count}: at most local:{most} here, the cores this process may use (each "
                               "worker is a process of about 100 MB; more than the cores only take turns)",
                               field="cluster")
        return int(count)
    scheme, sep, rest = address.partition("://")
    if not (sep and scheme in SCHEMES and rest):
        raise CpsolveError(f"{address!r} is neither a scheduler address (tcp://HOST:PORT) nor local:N",
                           field="cluster")
    found = HOST_PORT.fullmatch(rest)
    if found is None or not 1 <= int(found["port"]) <= 65535:
        raise CpsolveError(f"{address!r}: a scheduler's address is {scheme}://HOST:PORT, PORT from 1 to 65535",
                           field="cluster")
    return None


HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]@]+):(?P<port>[0-9]{1,5})")
"""HOST:PORT of a scheduler's address (an IPv6 host in brackets)."""


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise CpsolveError(INSTALL_HINT, field="cluster") from None
    return distributed


@contextlib.contextmanager
def _client(distributed: Any, address: str, local: int | None) -> Iterator[Any]:
    """A client of the scheduler at `address`, or of a local cluster started for the run and torn
    down (its worker processes killed) when the run ends, however it ends."""
    cluster = None
    client = None
    tracked = _tracker_running()
    try:
        if local is not None:
            try:
                with _stop_signals_held():
                    cluster = distributed.LocalCluster(
                        n_workers=local, threads_per_worker=1, processes=True, dashboard_address=":0",
                        silence_logs=QUIET,
                    )
            except (OSError, RuntimeError, TimeoutError) as exc:
                # Workers are spawned: they import the main module, so a script needs `if __name__ == ...`.
                raise CpsolveError(f"cannot start {local} local Dask workers: {exc}", field="cluster",
                                   exit_code=1) from None
            client = distributed.Client(cluster, set_as_default=False)
        else:
            security = _security(distributed, address)
            _probe(distributed, address, security)
            try:
                client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False,
                                            security=security)
            except (OSError, TimeoutError) as exc:
                raise CpsolveError(f"cannot reach the Dask scheduler at {address}: {exc}", field="cluster",
                                   exit_code=1) from None
        yield client
    finally:
        if client is not None:
            client.close()  # first: the scheduler forgets the run's data before its workers go
        if cluster is not None:
            _kill_workers(cluster)
            cluster.close()
            if not tracked:
                _stop_tracker()


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while a local cluster starts, and delivered as soon as it has
    (the run then stops as usual, and `_client` closes the cluster).

    A stop in the middle of `LocalCluster(...)` left a half-started cluster that no one closed: Dask's
    exit handler failed on it (`AssertionError: Status.init`) and its log lines reached stderr. Blocking
    the signals would not do: another thread (Dask's) may receive them, and Python runs the handler on
    the main thread whatever the main thread blocks; so the handler only records them meanwhile. (The
    worker processes Dask spawns meanwhile are its own: a Ctrl-C at the terminal, sent to the whole
    process group, can still make one print its traceback while it is starting.)"""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, _frame: received.append(signum)) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            signal.raise_signal(received[0])


def _security(distributed: Any, address: str) -> Any:
    """Dask's TLS settings from its configuration (`distributed.comm.tls.*`), which a `tls://` or `wss://`
    scheduler needs: without them Dask failed with a TypeError ("internal error")."""
    security = distributed.Security()
    if address.startswith(("tls://", "wss://")) and security.get_connection_args("client")["ssl_context"] is None:
        raise CpsolveError(f"{address}: a TLS scheduler needs Dask's TLS settings (distributed.comm.tls.ca-file, "
                           ".client.cert and .client.key in Dask's configuration, or DASK_DISTRIBUTED__COMM__TLS__* "
                           "variables); none are set", field="cluster")
    return security


def _probe(distributed: Any, address: str, security: Any) -> None:
    """Greet the scheduler, within CONNECT_TIMEOUT, before a Client does: a Client waits for ever on a
    server that accepts and never answers (its own timeout covers the connection only), and turns a
    server that answers garbage into a traceback. One line, exit 1, for either."""
    import asyncio

    async def hello() -> object:
        comm = await distributed.comm.connect(address, timeout=CONNECT_TIMEOUT,
                                              **security.get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def failed(why: str) -> CpsolveError:
        return CpsolveError(f"cannot reach the Dask scheduler at {address}: {why}", field="cluster", exit_code=1)

    try:
        reply = asyncio.run(asyncio.wait_for(hello(), CONNECT_TIMEOUT))
    except TimeoutError:
        raise failed(f"no answer within {CONNECT_TIMEOUT:g} s") from None
    except OSError as exc:
        raise failed(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - whatever the bytes that came back made Dask's decoder raise
        raise failed(f"it does not answer as a Dask scheduler ({type(exc).__name__}: {exc})") from None
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        raise failed("it does not answer as a Dask scheduler")


def _tracker_running() -> bool:
    """Whether multiprocessing's resource tracker runs: spawning the first worker process starts it,
    as a child of this process that outlives the cluster unless stopped."""
    return getattr(resource_tracker._resource_tracker, "_pid", None) is not None


def _stop_tracker() -> None:
    """Stop the resource tracker this run started, so that the run leaves no child process behind.

    A tracker that stops unlinks every semaphore still registered with it, and the owners' own
    finalizers then fail at interpreter exit, printing FileNotFoundError tracebacks (seen after a
    nanny had restarted a dead worker: the queue it made for the new one outlives the cluster). Those
    finalizers are run first, which unlinks and unregisters the same semaphores quietly."""
    from multiprocessing import util

    registry = getattr(util, "_finalizer_registry", {})  # private, like `_stop`: if it is gone, skip this
    for finalizer in list(registry.values()):
        if getattr(getattr(finalizer, "_callback", None), "__qualname__", "") == "SemLock._cleanup":
            with contextlib.suppress(OSError):
                finalizer()
    stop = getattr(resource_tracker._resource_tracker, "_stop", None)  # private: if it is gone, nothing stops
    if stop is not None:
        with contextlib.suppress(Exception):
            stop()


def _kill_workers(cluster: Any) -> None:
    """Stop a local cluster's worker processes at once: a polite close waits for running parts."""
    for nanny in list(cluster.workers.values()):
        with contextlib.suppress(Exception):
            nanny.close_gracefully()  # the nanny must not start a new worker in the dead one's place
            if nanny.pid:
                os.kill(nanny.pid, signal.SIGKILL)


def _has_workers(client: Any, address: str, deadline: float | None) -> bool:
    """Wait for a first worker; False if the deadline came first, an error after WORKER_WAIT."""
    wait = WORKER_WAIT if deadline is None else min(WORKER_WAIT, deadline - time.time())
    try:
        client.wait_for_workers(1, timeout=max(wait, 0.001))
    except TimeoutError:
        if deadline is not None and time.time() >= deadline:
            return False
        raise CpsolveError(f"the Dask scheduler at {address} has no worker (start them with "
                           f"`dask worker {address} --nthreads 1 --nworkers N`)", field="cluster",
                           exit_code=1) from None
    return True


def _portable(backend: Backend) -> str | bytes:
    """The backend as it travels: its spec when its name's registered class is what it is (rebuilt on
    the worker), else pickled without the engine it keeps. Bytes, not the object: a worker that joins
    later copies its data from a peer, whose backend by then holds an engine (a C object, unpicklable).
    """
    with contextlib.suppress(BackendUnavailable):
        if type(backend) is backend_class(backend.name):
            return backend.label
    import cloudpickle  # Dask's own dependency: pickles a class defined in a script, too

    clone = copy.copy(backend)
    clone._kept = None
    data: bytes = cloudpickle.dumps(clone)
    return data


_ON_WORKER: dict[str | bytes, Backend] = {}
"""Backends built on this worker process, by spec or pickle: one engine per problem across its parts."""


def _run_part(judge: Judge, backend: str | bytes, forced: tuple[int, ...],
              deadline: float | None, budget: int = 0) -> PartResult:
    """The task: every solution of one part judged (counts and the classes opened), its stats, and the sizes
    of what it gave back if it met its node `budget` (runs on a worker)."""
    if backend not in _ON_WORKER:
        _ON_WORKER[backend] = get_backend(backend) if isinstance(backend, str) else pickle.loads(backend)
    built = _ON_WORKER[backend]
    found = Stretches()
    remaining = None if deadline is None else deadline - time.time()
    if remaining is not None and remaining <= 0:
        return [], SearchStats(built.label, Status.TIMEOUT), []

    def add(rows: tuple[int, ...]) -> None:
        found.add(judge(rows))

    stats = built.search(judge.problem, add, forced=forced, timeout=remaining, budget=budget)
    return found.take(), stats, given_back_sizes(judge.problem, stats.rest)


def _share(client: Any, value: object, key: str) -> Any:
    """`value` as a task's result that every part depends on: each worker gets it once (from a peer
    that has it) and its tasks share that one object. Not `scatter`: scattered data lost with the
    last worker holding it cannot be recovered, and every part waiting on it is cancelled; a task's
    result is simply computed again."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dask warns of "large objects" in a graph from about 10 MB
        return client.submit(_same, value, key=key, pure=False)


def _same(value: object) -> object:
    return value


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.time() >= deadline


def _run(client: Any, distributed: Any, work: Work) -> None:
    judge, backend, parts, order, deadline = work.judge, work.backend, work.parts, work.order, work.deadline
    collect, finished, result, budget_of = work.collect, work.finished, work.result, work.budget_of
    run = uuid.uuid4().hex
    spec = _portable(backend)
    futures: dict[Any, int] = {}
    top = 0
    """The highest priority given so far: what a part gives back goes above it."""
    try:
        shared = _share(client, judge, f"cpsolve-judge-{run}")
        sent = spec if isinstance(spec, str) else _share(client, spec, f"cpsolve-backend-{run}")

        def submit(i: int, priority: int) -> Any:
            future = client.submit(_run_part, shared, sent, parts[i], deadline, budget_of(i, ()),
                                   key=f"cpsolve-part-{i}-{run}", priority=priority, retries=0)
            futures[future] = i
            return future

        # Earlier in `order` means a higher priority: the scheduler starts the largest parts first.
        for rank, i in enumerate(order):
            submit(i, len(order) - rank)
        top = len(order)
        arrived = distributed.as_completed(list(futures), loop=client.loop)
        for batch in _arrivals(arrived, deadline, lambda future: _failure(future, futures[future], len(parts))):
            # One request for the whole batch: fetching each result on its own costs a round trip each.
            for future, outcome in zip(batch, client.gather(batch), strict=True):
                status, fresh = _take(futures[future], outcome, deadline, collect, finished)
                if status is not None:
                    result.status = status
                    return
                top += len(fresh)
                for j, i in enumerate(fresh):  # given back: ahead of every waiting part, the first first
                    arrived.add(submit(i, top - j))
        if not arrived.is_empty():  # the deadline came first
            result.status = Status.TIMEOUT
    finally:
        client.cancel(list(futures), force=True)


def _arrivals(arrived: Any, deadline: float | None, failed: Callable[[Any], CpsolveError]) -> Iterator[list[Any]]:
    """Batches of finished futures as they come, until none is left or the deadline passes (the caller then
    finds `arrived` not empty); a future that did not finish raises `failed(future)`."""
    while not arrived.is_empty():
        if _expired(deadline):
            return
        batch = arrived.next_batch(block=False)
        if not batch:
            time.sleep(POLL if deadline is None else max(0.0, min(POLL, deadline - time.time())))
            continue
        for future in batch:
            if future.status != "finished":
                raise failed(future)
        yield batch


def _take(i: int, outcome: PartResult, deadline: float | None, collect: Collect,
          finished: Finished) -> tuple[Status | None, Sequence[int]]:
    """Hand one finished part to the caller: (None, the new parts made of what it gave back) to go on,
    or (the status the run ends with, ())."""
    stretches, stats, rest_sizes = outcome
    for n, stretch in enumerate(stretches, 1):
        if collect(i, stretch):
            return Status.STOPPED, ()
        if n % CHECK_EVERY == 0 and _expired(deadline):
            return Status.TIMEOUT, ()
    if stats.status != Status.COMPLETE:
        return stats.status, ()
    return None, finished(i, stats, rest_sizes)


def _failure(future: Any, i: int, total: int) -> CpsolveError:
    """The one-line error for a part that did not finish: it killed its workers, raised, or was lost."""
    where = f"subproblem {i + 1} of {total}"
    if future.status == "error":
        exc = future.exception()
        if type(exc).__name__ == "KilledWorker":  # allowed-failures workers died running it
            return CpsolveError(f"{where} failed: its worker died {exc.args[2]} times", exit_code=1)
        return CpsolveError(f"a worker failed on {where}: {type(exc).__name__}: {exc}", exit_code=1)
    return CpsolveError(f"{where} was cancelled by the Dask cluster (its scheduler lost or restarted)", exit_code=1)


WINDOW_PER_WORKER = 4
"""Units of walks in flight per worker: enough to hide a round trip, few enough to stop at once."""


def walk_runner(address: str) -> Any:
    """A runner of walks (`walks.Runner`) on the Dask cluster at `address` (as `run_cluster` takes it): the
    plan and the problem are sent once, each unit of walks is a task (a few hundred walks, its own seed),
    WINDOW_PER_WORKER per worker in flight, results as they come. At the deadline the units still running
    count for nothing and are cancelled; leaving early (the estimate is precise enough, Ctrl-C) cancels
    them too, and a `local:N` cluster is torn down."""
    local = parse_address(address)

    def run(plan: Any, ctx: Any, units: Iterator[Any], deadline: float | None) -> Iterator[tuple[Any, Any]]:
        from .moments import Moments
        from .walks import walk_task

        distributed = _import_distributed()
        with distributed.utils.silence_logging_cmgr(QUIET), _client(distributed, address, local) as client:
            if not _has_workers(client, address, deadline):  # the deadline came first
                first = next(units, None)
                if first is not None:
                    yield first, None
                return
            run_id = uuid.uuid4().hex
            shared = _share(client, (ctx.problem, plan), f"cpsolve-walks-{run_id}")
            arrived = distributed.as_completed(loop=client.loop)
            futures: dict[Any, Any] = {}
            window = WINDOW_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {})))

            def submit() -> None:
                unit = next(units, None)
                if unit is not None:
                    future = client.submit(walk_task, shared, unit, deadline, key=f"cpsolve-walks-{run_id}-{unit}",
                                           pure=False, retries=0)
                    futures[future] = unit
                    arrived.add(future)

            try:
                for _ in range(window):
                    submit()
                for batch in _arrivals(arrived, deadline, lambda future: _failure(future, 0, 1)):
                    for future, (unit, found) in zip(batch, client.gather(batch), strict=True):
                        futures.pop(future, None)
                        yield unit, None if found is None else Moments.from_tuple(found)
                        submit()
                if not arrived.is_empty():  # the deadline: what still runs counts for nothing
                    yield next(iter(futures.values())), None
            finally:
                client.cancel(list(futures), force=True)

    return run
