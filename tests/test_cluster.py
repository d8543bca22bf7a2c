"""Subproblems on a Dask cluster: the same solutions as a serial run, each once, whatever happens.

Most tests share one local cluster of two worker processes, reached by its tcp:// address as a remote
scheduler would be; the lost-worker test starts its own with `local:2`, as `--cluster local:2` does,
and kills one of its worker processes while that worker is inside a part.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import distributed
import pytest
from conftest import children

from cpsolve.errors import CpsolveError
from cpsolve.problem.canonical import Judge, Stretch
from cpsolve.puzzle.catalog import load
from cpsolve.search import cluster
from cpsolve.search.backends import SearchStats, Status, for_problem
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.enumeration import Prepared, enumerate_classes, prepare
from cpsolve.search.parts import plan
from cpsolve.search.result import EnumerationResult
from cpsolve.search.settings import RunSettings, Work

SOMA = (11520, 480, 240)


@pytest.fixture(scope="module", autouse=True)
def _no_child_left() -> Iterator[None]:
    """Spawning workers starts multiprocessing's resource tracker, a child of this process that would
    outlive the module; other tests check that a run leaves no child process behind."""
    yield
    cluster._stop_tracker()


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a running scheduler with two single-threaded worker processes."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as running:
        yield running.scheduler_address


def workers_here() -> set[int]:
    """The Dask worker processes that are children of this process (spawned by their nannies)."""
    found = set()
    for kid in children():
        try:
            if "spawn_main" in Path(f"/proc/{kid}/cmdline").read_text():
                found.add(kid)
        except OSError:
            continue
    return found


class Run:
    """A caller of `run_cluster`: counts like an enumeration and records what it was handed."""

    def __init__(self, prepared: Prepared, limit: int = 0):
        self.prepared, self.limit = prepared, limit
        self.result = EnumerationResult(prepared.name, "dlx", "")
        self.rows: dict[int, tuple[int, list[str]]] = {}
        """Part -> solutions handed over from it, and the ids of the classes they opened."""
        self.finished: list[int] = []
        self.stats: dict[int, SearchStats] = {}
        self.after_stop = 0
        self.stopped = False

    def collect(self, part: int, stretch: Stretch) -> bool:
        if self.stopped:
            self.after_stop += 1
        found, ids = self.rows.get(part, (0, []))
        self.rows[part] = (found + stretch.found, ids + ([stretch.opened.id] if stretch.opened else []))
        self.result.tally.add(stretch)
        self.stopped = bool(self.limit) and self.result.tally.unique_symmetry >= self.limit
        return self.stopped

    def done(self, part: int, stats: SearchStats, rest_sizes: Sequence[float] = ()) -> list[int]:
        assert not stats.rest and not rest_sizes  # `go` passes no budget: nothing is given back
        self.finished.append(part)
        self.stats[part] = stats
        return []

    def counts(self) -> tuple[int, int, int]:
        tally = self.result.tally
        return tally.total, tally.unique_rotation, tally.unique_symmetry


def go(run: Run, parts: list[tuple[int, ...]], order: list[int], address: str, backend: object = None,
       deadline: float | None = None) -> None:
    chosen = for_problem("dlx", run.prepared.broken.problem) if backend is None else backend
    cluster.run_cluster(Work(judge_of(run.prepared), chosen, parts, order, deadline, run.collect, run.done,
                             run.result), address)


def judge_of(prepared: Prepared) -> Judge:
    return Judge(prepared.canonicalizer, prepared.broken)


def serial_rows(prepared: Prepared, parts: list[tuple[int, ...]]) -> dict[int, tuple[int, list[str]]]:
    """Each part's solutions (how many) and the ids of the classes they open, searched here one part after the
    other."""
    out: dict[int, tuple[int, list[str]]] = {}
    backend = DlxBackend()
    judge = judge_of(prepared)
    for i, forced in enumerate(parts):
        found: list[tuple[int, ...]] = []
        backend.search(prepared.broken.problem, found.append, forced=forced)
        if found:
            opened = [v.opened.id for v in map(judge, found) if v.opened is not None]
            out[i] = (len(found), opened)
    return out


def serial_counts(prepared: Prepared) -> tuple[int, int, int]:
    result = enumerate_classes(prepared, RunSettings(DlxBackend(), workers=1))
    return result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry


def test_every_part_once_and_the_serial_counts(scheduler):
    prepared = prepare(load("soma"))
    parts = plan(prepared.broken, 2, 64)  # many small parts: each must come back exactly once
    assert len(parts) > 100
    order = list(range(len(parts)))[::-1]
    run = Run(prepared)
    go(run, parts, order, scheduler)
    assert run.result.status is Status.COMPLETE
    assert run.counts() == serial_counts(prepared) == SOMA
    assert sorted(run.finished) == list(range(len(parts)))  # each part finished once
    assert all(run.stats[i].status is Status.COMPLETE and run.stats[i].solutions == run.rows.get(i, (0, []))[0]
               for i in order)
    reference = serial_rows(prepared, parts)
    assert {i: (n, sorted(r)) for i, (n, r) in run.rows.items() if n} == \
        {i: (n, sorted(r)) for i, (n, r) in reference.items()}


@pytest.mark.slow
def test_parts_that_overrun_are_split_again_on_the_cluster(scheduler, monkeypatch):
    """With a budget of a few hundred nodes, parts searched on the cluster hand back what they had not
    searched; the new parts run there too: many more subproblems than planned, each finished once,
    and the reference counts (a given-back prefix searched twice, or lost, would change them)."""
    from cpsolve.search import enumeration

    monkeypatch.setattr(enumeration, "MIN_BUDGET", 300)
    monkeypatch.setattr(enumeration, "OVERRUN", 0.5)
    prepared = prepare(load("conway-5x5x5"))
    engine = for_problem("dlx", prepared.problem)
    planned = len(plan(prepared.broken, 2, engine.parts_per_worker))
    result = enumerate_classes(prepared, RunSettings(engine, workers=2, cluster=scheduler))
    assert result.status is Status.COMPLETE
    assert (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry) == (27456, 1144, 572)
    assert result.subproblems == result.subproblems_done > 2 * planned


def test_a_resumed_run_runs_only_the_parts_it_is_given(scheduler):
    prepared = prepare(load("soma"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    left = [i for i in range(len(parts)) if i % 3 == 1]
    run = Run(prepared)
    go(run, parts, left, scheduler)
    assert run.result.status is Status.COMPLETE
    assert sorted(run.finished) == left
    reference = serial_rows(prepared, parts)
    assert {i: (n, sorted(r)) for i, (n, r) in run.rows.items() if n} == \
        {i: (reference[i][0], sorted(reference[i][1])) for i in left if i in reference}


def test_the_collector_stops_the_run(scheduler):
    prepared = prepare(load("soma"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    run = Run(prepared, limit=25)
    go(run, parts, list(range(len(parts))), scheduler)
    assert run.result.status is Status.STOPPED
    assert run.result.tally.unique_symmetry == 25
    assert run.after_stop == 0  # nothing handed over once the collector said stop
    assert len(run.finished) < len(parts)


@pytest.mark.slow
def test_the_deadline_ends_the_run_promptly(scheduler):
    # The 6x6x6 box of T-tetracubes runs for minutes and streams solutions the whole time.
    prepared = prepare(load("t-tetracube-6x6x6"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    run = Run(prepared)
    deadline = time.time() + 2.0
    go(run, parts, list(range(len(parts))), scheduler, deadline=deadline)
    late = time.time() - deadline
    assert run.result.status is Status.TIMEOUT
    assert -0.01 < late < 1.0, late
    assert len(run.finished) < len(parts)


class Deaf(DlxBackend):
    """A backend that ignores its deadline (as a solver stuck loading its clauses may)."""

    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        time.sleep(60)


@pytest.mark.slow
def test_the_deadline_holds_even_when_a_part_ignores_it():
    # The run returns on time and `local:1` kills its worker, still inside the part, on the way out.
    prepared = prepare(load("soma"))
    before = workers_here()
    run = Run(prepared)
    deadline = time.time() + 4.0
    go(run, [()], [0], "local:1", backend=Deaf(), deadline=deadline)
    late = time.time() - deadline
    assert run.result.status is Status.TIMEOUT and run.finished == []
    assert -0.01 < late < 1.0, late
    assert workers_here() - before == set()


class TracedDlx(DlxBackend):
    """dlx that leaves a file named after its process and part when it starts one, and waits inside `slow`
    until the test has killed that worker (it writes `released`; then the part's second run goes on): a worker
    is killed while it is inside that part however long the other parts take, where a fixed second of
    sleep could end first on a busy machine. Not a registered class: it travels pickled."""

    def __init__(self, trace: Path, slow: tuple[int, ...]):
        super().__init__()
        self.trace, self.slow = trace, slow

    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        (self.trace / f"{os.getpid()}-{'.'.join(map(str, forced))}").touch()
        end = time.monotonic() + 120
        while forced == self.slow and not (self.trace / "released").exists() and time.monotonic() < end:
            time.sleep(0.01)
        super()._search(problem, forced, run)
        run.stats.details["pid"] = os.getpid()


@pytest.mark.slow
def test_a_lost_workers_part_is_redone_and_counted_once(tmp_path):
    prepared = prepare(load("conway-5x5x5"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    order = list(range(len(parts)))
    slow = order[0]  # first in line: it starts at once, on one of the two workers
    tag = ".".join(map(str, parts[slow]))
    before = workers_here()
    killed: list[int] = []
    run = Run(prepared)

    def done(part: int, stats: SearchStats, rest_sizes: Sequence[float] = ()) -> list[int]:
        run.done(part, stats, rest_sizes)
        if not killed:  # the other worker reports parts while this one sleeps inside `slow`
            inside = [int(f.name.split("-")[0]) for f in tmp_path.glob(f"*-{tag}")]
            if inside:
                assert inside[0] in workers_here() - before
                os.kill(inside[0], signal.SIGKILL)
                killed.append(inside[0])
                (tmp_path / "released").touch()
        return []

    cluster.run_cluster(Work(judge_of(prepared), TracedDlx(tmp_path, parts[slow]), parts, order, None, run.collect,
                             done, run.result), "local:2")
    assert killed, "no worker was killed"
    assert run.result.status is Status.COMPLETE
    # The slow part ran twice, the second time on another worker, whose stats alone were handed over.
    ran_on = {int(f.name.split("-")[0]) for f in tmp_path.glob(f"*-{tag}")}
    assert killed[0] in ran_on and len(ran_on) == 2
    assert run.stats[slow].details["pid"] != killed[0]
    assert Counter(run.finished) == Counter(order)
    assert run.counts() == serial_counts(prepared)
    assert run.result.tally.found == sum(n for n, _ in serial_rows(prepared, parts).values())
    assert workers_here() - before == set()  # the local cluster's workers are gone


class Failing(DlxBackend):
    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        raise RuntimeError(f"no room for {forced}")


def test_a_part_that_raises_is_one_line_naming_it(scheduler):
    prepared = prepare(load("soma"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    with pytest.raises(CpsolveError) as err:
        go(Run(prepared), parts, [7], scheduler, backend=Failing())
    assert err.value.exit_code == 1
    assert str(err.value) == f"a worker failed on subproblem 8 of {len(parts)}: RuntimeError: no room for {parts[7]}"


class Fatal(DlxBackend):
    """Kills its own worker process (SIGKILL, as the kernel's out-of-memory killer would) on every part."""

    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.slow
def test_a_part_that_kills_every_worker_it_meets_is_one_line_naming_it():
    prepared = prepare(load("soma"))
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    before = workers_here()
    with pytest.raises(CpsolveError) as err:
        go(Run(prepared), parts, [4], "local:1", backend=Fatal())
    assert err.value.exit_code == 1
    assert str(err.value) == f"subproblem 5 of {len(parts)} failed: its worker died 3 times"
    assert workers_here() - before == set()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_an_error_naming_it(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    prepared = prepare(load("soma"))
    began = time.perf_counter()
    with pytest.raises(CpsolveError) as err:
        go(Run(prepared), [()], [0], address)
    assert time.perf_counter() - began < 1.0 + 2
    assert err.value.field == "cluster" and err.value.exit_code == 1
    assert str(err.value).startswith(f"cluster: cannot reach the Dask scheduler at {address}: ")


def test_a_scheduler_without_workers_is_an_error_or_a_timeout(monkeypatch):
    prepared = prepare(load("soma"))
    monkeypatch.setattr(cluster, "WORKER_WAIT", 0.5)
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=":0",
                                  silence_logs=logging.ERROR) as empty:
        with pytest.raises(CpsolveError) as err:
            go(Run(prepared), [()], [0], empty.scheduler_address)
        assert err.value.exit_code == 1
        assert f"the Dask scheduler at {empty.scheduler_address} has no worker" in str(err.value)
        run = Run(prepared)
        go(run, [()], [0], empty.scheduler_address, deadline=time.time() + 0.2)
        assert run.result.status is Status.TIMEOUT and run.finished == []


def test_stopping_the_tracker_leaves_no_semaphore_to_fail_at_exit():
    """A process that still holds spawn-context semaphores when the run stops the resource tracker (a
    nanny's queue for a restarted worker) must exit without FileNotFoundError tracebacks: the tracker
    unlinks what is still registered, so the owners' own cleanup must have run first."""
    script = ("import multiprocessing as mp\n"
              "from cpsolve.search import cluster\n"
              "queue = mp.get_context('spawn').Queue()\n"  # named semaphores, registered with the tracker
              "queue.put(1); assert queue.get() == 1\n"
              "cluster._stop_tracker()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.parametrize("address", ["scheduler:8786", "foo://scheduler:8786", "tcp://", "local:0", "local:two",
                                     "local:"])
def test_a_malformed_address_is_bad_input(address):
    with pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], address)
    assert err.value.field == "cluster" and err.value.exit_code == 2


def test_without_dask_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # an import of it now fails
    with pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], "local:1")
    assert "pip install 'cpsolve[cluster]'" in str(err.value)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:notaport", "tcp://127.0.0.1:0", "tcp://127.0.0.1:70000",
                                     "tcp://:8786", "tcp://127.0.0.1", "ws://host:port/x"])
def test_an_address_dask_cannot_parse_is_bad_input_before_dask(address, monkeypatch):
    """`tcp://127.0.0.1:notaport` reached Dask's parser: "internal error: ValueError" and a Client's
    traceback at exit."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # refused before Dask is imported
    with pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], address)
    assert err.value.field == "cluster" and err.value.exit_code == 2
    assert "a scheduler's address is " in str(err.value)


def test_a_tls_scheduler_without_tls_settings_is_bad_input():
    """tls:// without Dask's TLS configuration was "internal error: TypeError: TLS expects a ssl_context"."""
    with pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], f"tls://127.0.0.1:{free_port()}")
    assert err.value.field == "cluster" and err.value.exit_code == 2
    assert "a TLS scheduler needs Dask's TLS settings" in str(err.value)


def test_local_workers_are_bounded_by_the_cores():
    """`--cluster local:1000` spawned without bound (89 processes, 3 GB in 25 s)."""
    before = workers_here()
    cores = len(os.sched_getaffinity(0))
    with pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], f"local:{cores + 1}")
    assert err.value.field == "cluster" and err.value.exit_code == 2
    assert f"at most local:{cores} here" in str(err.value)
    assert workers_here() == before


@contextlib.contextmanager
def fake_scheduler(answer: bytes | None) -> Iterator[str]:
    """A server on 127.0.0.1 that accepts every connection and then sends `answer`, or nothing at all."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if answer is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in [*held, server]:
            conn.close()


GARBAGE = b"\xff" * 64 + b"HTTP/1.1 200 OK\r\n\r\nnot a scheduler" * 10


def test_a_server_that_answers_garbage_is_an_error_naming_it(monkeypatch):
    """Garbage from a server was "internal error: ValueError: Maximum allowed dimension exceeded"."""
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2.0)
    with fake_scheduler(GARBAGE) as address, pytest.raises(CpsolveError) as err:
        go(Run(prepare(load("soma"))), [()], [0], address)
    assert err.value.field == "cluster" and err.value.exit_code == 1
    assert str(err.value).startswith(f"cluster: cannot reach the Dask scheduler at {address}: it does not answer as "
                                     "a Dask scheduler")


@pytest.mark.parametrize("answer", [None, GARBAGE], ids=["silent", "garbage"])
@pytest.mark.slow
def test_a_server_that_never_answers_ends_the_command_in_one_line(answer, tmp_path):
    """A server that accepts and never answers hung cpsolve for ever (a Client waits for the scheduler's
    reply without a timeout); now: one line, exit 1, within the connection timeout, no Dask log line."""
    with fake_scheduler(answer) as address:
        began = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "cpsolve", "enumerate", "soma", "--cluster", address,
                               "--no-save", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        seconds = time.perf_counter() - began
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(f"cpsolve: error: --cluster: cannot reach the Dask scheduler at {address}: ")
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    assert seconds < cluster.CONNECT_TIMEOUT + 20


SIGNAL_WHILE_STARTING = """
import os, signal, sys, threading
import distributed

start = distributed.LocalCluster.__init__
delay, stop = float(sys.argv[1]), int(sys.argv[2])


def interrupted(self, *args, **kwargs):
    timer = threading.Timer(delay, os.kill, (os.getpid(), stop))
    timer.start()
    start(self, *args, **kwargs)
    timer.join()  # a cluster that started before the delay has not returned yet when the signal is sent


distributed.LocalCluster.__init__ = interrupted
sys.argv = ["cpsolve", "enumerate", "soma", "--cluster", "local:2", "--no-save", "-q"]
from cpsolve.cli import main

main()
"""


@pytest.mark.slow
def test_a_stop_while_the_local_cluster_starts_is_quiet(tmp_path):
    """Ctrl-C (or SIGTERM, SIGHUP) while `--cluster local:N` started its workers left a half-started cluster:
    Dask's exit handler failed on it (`AssertionError: Status.init`) and its log lines reached stderr.
    The signal is sent from inside the cluster's start, after seeded delays (starting takes a second or
    more), and the run must stop as any run does: its status, nothing on stderr, no worker left. A cluster
    that has started before the delay waits in its start for the signal: the run once finished first on
    a loaded machine, and the stop then came during the shutdown, which was not what this tests."""
    rng = random.Random(17)
    stops = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGINT]
    for stop in stops:
        delay = round(rng.uniform(0.05, 0.9), 2)
        proc = subprocess.Popen([sys.executable, "-c", SIGNAL_WHILE_STARTING, str(delay), str(int(stop))], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + stop, (delay, stop.name, err[-3000:])
        assert err == "", (delay, stop.name, err[-3000:])
        assert children(proc.pid, zombies=True) == []


def test_walks_on_the_cluster_give_the_serial_estimate(scheduler, monkeypatch):
    """Knuth's walks with exact tails (issue 41): each unit of walks is a task with its own seed, so the
    cluster's estimate is the serial one, walk for walk, whatever order the units come back in."""
    from cpsolve.search import walks

    monkeypatch.setattr(walks, "TAIL_NODES", 20.0)
    monkeypatch.setattr(walks, "STRATA", 1)
    broken = prepare(load("cubissimo")).broken
    stop = walks.Stop(walks=5000)
    here = walks.estimate_walks(broken.problem, broken, 4, stop, exact_nodes=0)
    there = walks.estimate_walks(broken.problem, broken, 4, stop, cluster.walk_runner(scheduler), exact_nodes=0)
    assert (there.walks, there.reached, there.nodes) == (here.walks, here.reached, here.nodes)
    assert there.solutions == pytest.approx(here.solutions, rel=1e-12)
    assert abs(here.solutions - 6624) <= 3 * here.stderr
