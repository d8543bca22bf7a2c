"""From a loaded puzzle to counted solution classes: symmetry breaking, backend, canonicalizer.

The search is split into one subproblem per kept key placement; that gives progress that means
something ("3 of 41 subproblems done") and a natural unit for interruption and parallel work.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from ..errors import CpsolveError, CpsolveNotice
from ..limits import check_timeout
from ..problem.canonical import Canonicalizer, Judge, Stretch
from ..problem.chains import chain_problem
from ..problem.placements import ExactCoverProblem, packing_problem
from ..problem.symmetry import (
    BrokenProblem,
    SymmetryElement,
    apply_key,
    choose_key,
    container_group,
    no_key,
)
from ..puzzle.grid import GRIDS
from ..puzzle.model import Puzzle
from .backends import Backend, SearchStats, Status
from .estimate import part_sizes, smallest_tree_key
from .parts import plan
from .result import EnumerationResult, Progress, SolutionClass, merge_stats
from .settings import JournalPlan, RunSettings, Work

if TYPE_CHECKING:  # loaded when a run has a journal, or workers: a short run on one worker does without
    from .journal import Held, Journal
    from .journal_file import PartCounts, Restored


@dataclass(frozen=True)
class Prepared:
    """Everything about a puzzle that does not depend on the backend."""

    name: str
    problem: ExactCoverProblem
    """The full problem (no symmetry breaking): the reference for checking and drawing."""
    group: tuple[SymmetryElement, ...]
    broken: BrokenProblem
    canonicalizer: Canonicalizer


def build_problem(puzzle: Puzzle) -> ExactCoverProblem:
    """The exact-cover problem of any puzzle; an error found here names the puzzle's file."""
    try:
        return chain_problem(puzzle) if puzzle.kind == "chain" else packing_problem(puzzle)
    except CpsolveError as exc:
        raise exc.located(puzzle.origin or puzzle.name) from None


def prepare(puzzle: Puzzle, symmetry_breaking: bool = True, workers: int = 1) -> Prepared:
    """Placements, the container's symmetry group, the key restriction and the canonicalizer.

    `workers` > 1 lets the key choice estimate its candidates on that many forked processes."""
    problem = build_problem(puzzle)
    group = container_group(problem.cells, problem.cell_classes, GRIDS[problem.grid])
    pick = smallest_tree_key(problem, workers) if problem.kind != "chain" else None
    key = choose_key(problem, group, puzzle.key_piece, pick) if symmetry_breaking else no_key()
    return Prepared(puzzle.name, problem, group, apply_key(problem, key), Canonicalizer(problem, group))


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C, `kill PID` and a closed terminal: each ends a run the same orderly way (the command line
turns SIGTERM and SIGHUP into KeyboardInterrupt; left at their defaults they end the process)."""


class _SignalGate:
    """Stop signals (Ctrl-C, SIGTERM, SIGHUP) during a run: delivered at once, except while a class is
    being counted and written, when they are held and delivered right after.

    A KeyboardInterrupt raised between counting a class and writing it would leave the summary one
    class ahead of the file (seen with --workers 2, where the parent does both while workers run).
    The gate's handlers are installed once per run and holding is a flag: swapping the handlers
    around every new class cost six signal() calls each, 0.9 s of Bedlam's 19,186 classes. Handlers
    can only be set on the main thread; elsewhere Ctrl-C reaches the main thread and the gate is idle.
    """

    def __init__(self) -> None:
        self.holding = False
        self.caught: list[int] = []
        self.previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.caught.append(signum)
        else:
            self._deliver(signum, frame)

    def _deliver(self, signum: int, frame: FrameType | None) -> None:
        """What the handler in place before the run would have done."""
        before = self.previous.get(signum)
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_IGN:
            return
        elif signum == signal.SIGINT:  # the default, or a handler set outside Python
            raise KeyboardInterrupt
        else:  # the default action of SIGTERM/SIGHUP: end the process, as without the gate
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self.previous = {sig: signal.signal(sig, self._handle) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in self.previous.items():
                # None: a handler set outside Python (a solver library); put back Python's default.
                default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
                signal.signal(sig, default if handler is None else handler)

    def held(self) -> _SignalGate:
        """`with gate.held():` — signals wait until the block ends. The gate is its own context
        manager (not a generator one): it is entered once per new class, 2 µs saved each time."""
        return self

    def __enter__(self) -> None:
        self.holding = True

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        self.holding = False
        if self.caught:
            caught, self.caught = self.caught, []
            if exc_type is None:  # a block that failed carries its own exception out
                for signum in dict.fromkeys(caught):
                    self._deliver(signum, None)


COMMIT_SECONDS = 1.0
"""With a journal, new classes wait for the next finished subproblem's commit to be handed on (and
written to the solutions file), but never longer than this: a subproblem can run for hours."""

COMMIT_CLASSES = 64
"""Nor more classes than this: a fast stream would otherwise put a whole second's classes (thousands,
on a big box) into one transaction, so that a full disk or a kill loses all of them at once, and
whether anything was kept would depend on the machine's speed rather than on the run. It also bounds
what the parent holds (and the journal's tail): at most this many classes, whatever the run's length."""


class _Collector:
    """Receives a runner's stretches (see `Stretch`: counts, and the classes their representatives opened),
    counts them, numbers and hands on the classes. It remembers no class: each is opened exactly once by
    its representative, wherever that was met (problem/canonical.py).

    With a journal it also keeps each subproblem's own counts (written when it finishes) and the classes
    opened since the last commit; a new class is handed to `on_class` only once the journal holds it, so a
    solutions file written from `on_class` is always a prefix of the classes the journal counts as written.
    Before each commit `written()` makes sure every class handed on is in the file and gives its size,
    which the journal records: a resume keeps the file to there and hands the journal's last commit on
    again (see journal.py).
    """

    def __init__(self, prepared: Prepared, result: EnumerationResult, limit: int,
                 on_class: Callable[[SolutionClass], None] | None, progress: Progress | None, start: float):
        self.prepared, self.result, self.limit = prepared, result, limit
        self.on_class, self.progress, self.start = on_class, progress, start
        self.last_progress = 0.0
        self.per_part: dict[int, list[int]] = {}
        """Subproblem -> its counts so far (PartCounts' order), with a journal."""
        self.book: Journal | None = None
        self.written: Callable[[], int] | None = None
        self.index = 0
        """The next class's index: classes handed on so far (a resumed run's included)."""
        self.look_up = False
        """After a resume whose unfinished parts had written classes: each class opened is looked up."""
        self.last_commit = start
        self.held: list[Held] = []
        """With a journal: the classes opened since its last commit, numbered, not yet handed on."""
        self.claimed: list[tuple[bytes, int]] = []
        """Classes found again that the journal says were written before the resume (digest, part)."""
        self.gate = _SignalGate()

    def __call__(self, part: int, stretch: Stretch) -> bool:
        if stretch.opened is None:  # nothing is written: the summary cannot get ahead of the file
            self._count(part, stretch)
        else:
            with self.gate.held():
                self._count(part, stretch)
                self._open(part, stretch)
        now = time.perf_counter()
        if self.progress is not None and now - self.last_progress > 0.2:
            self.last_progress = now
            self.progress(self.result)
        return bool(self.limit) and self.result.tally.unique_symmetry >= self.limit

    def _count(self, part: int, stretch: Stretch) -> None:
        result = self.result
        if result.first_solution_seconds is None and stretch.found:
            result.first_solution_seconds = time.perf_counter() - self.start
        result.tally.add(stretch)
        if self.book is not None:
            counts = self.per_part.get(part) or self.per_part.setdefault(part, [0] * 7)
            counts[0] += stretch.weighted
            counts[1] += stretch.found
            counts[2] += stretch.rotations
            counts[3] += stretch.orbits
            if stretch.opened is not None:
                counts[4] += 1
                counts[5] += stretch.opened.assemblies
                counts[6] += stretch.opened.mirror_distinct

    def _open(self, part: int, stretch: Stretch) -> None:
        opened = stretch.opened
        assert opened is not None
        book = self.book
        if self.look_up and book is not None and book.was_written(opened.digest):
            self.claimed.append((opened.digest, part))  # counted above; its line is in the file already
            return
        cls = SolutionClass(self.index, opened.assemblies, opened.mirror_distinct, opened.placements, opened.id)
        self.index += 1
        if book is None:
            if self.on_class is not None:
                self.on_class(cls)
            return
        self.held.append((opened.digest, part, cls))
        if len(self.held) >= COMMIT_CLASSES or time.perf_counter() - self.last_commit > COMMIT_SECONDS:
            self.settle()

    def out_bytes(self) -> int:
        """Everything handed on is in the output: its size (0 without one)."""
        return self.written() if self.written is not None else 0

    def settle(self) -> None:
        """Commit the classes opened since the last commit (if any) and hand them on."""
        if self.book is not None and (self.held or self.claimed):
            self.book.record(self.held, self.claimed, self.out_bytes())
            self._hand_on()

    def salvage(self) -> None:
        """The run is failing: keep what can be kept, quietly (the failure is what the user must see): the
        held classes into the journal if it can still be written, and to `on_class` whatever happens, so
        that the solutions file has every class found (a resume cuts what the journal does not hold)."""
        with contextlib.suppress(Exception):
            self.settle()
        held, self.held, self.claimed = self.held, [], []
        with contextlib.suppress(Exception):
            for _, _, cls in held:
                if self.on_class is not None:
                    self.on_class(cls)

    def _hand_on(self) -> None:
        """The journal has just committed the held classes: on to `on_class`, in the order found."""
        held, self.held, self.claimed = self.held, [], []
        self.last_commit = time.perf_counter()
        if self.on_class is not None:
            for _, _, cls in held:
                self.on_class(cls)

    def finished(self, part: int, stats: SearchStats, rest_sizes: Sequence[float], parts: list[tuple[int, ...]],
                 sizes: list[float], journal: Journal | None) -> list[int]:
        """A subproblem is complete: fold in its stats and, with a journal, commit it with every class
        opened since the last commit (one transaction; see journal.py for why that is enough). What it
        gave back becomes new parts (appended to `parts` and `sizes`, committed in the same
        transaction); their indices are returned for the runner to schedule."""
        result = self.result
        merge_stats(result, stats, self.start)
        nodes = stats.counter("nodes")
        fresh = list(range(len(parts), len(parts) + len(stats.rest)))
        parts.extend(stats.rest)
        sizes.extend(rest_sizes)
        if journal is not None:
            counts = self.per_part.pop(part, [0] * 7)
            with self.gate.held():
                journal.part_done(part, _part_counts(counts), stats.seconds, nodes, self.held, self.claimed,
                                  self.out_bytes(), [(i, parts[i], sizes[i]) for i in fresh])
                self._hand_on()
        result.subproblems_done += 1
        result.subproblems += len(fresh)
        # The nodes it really took where the backend counts them: single parts' estimates are noisy (a few
        # walks each, enough to order them), the sum over all parts is the figure to measure against.
        result.work_done += nodes or sizes[part]
        if fresh:  # its estimate was too low: what it searched, and the estimates of what it gave back
            result.work += nodes - sizes[part] + math.fsum(rest_sizes)
        if self.progress is not None:
            self.progress(result)
        return fresh


def _part_counts(counts: Sequence[int]) -> PartCounts:
    weighted, found, rotations, orbits, classes, assemblies, mirrors = counts
    return weighted, found, rotations, orbits, classes, assemblies, mirrors


def enumerate_classes(
    prepared: Prepared,
    settings: RunSettings,
    *,
    on_class: Callable[[SolutionClass], None] | None = None,
    on_ready: Callable[[int | None], None] | None = None,
    written: Callable[[], int] | None = None,
    on_start: Callable[[], object] | None = None,
) -> EnumerationResult:
    """Enumerate every solution as `settings` say, streaming each new class; Ctrl-C ends it with status
    INTERRUPTED.

    `settings.limit` stops after that many classes (up to rotation and reflection). `settings.timeout`
    (seconds, finite and > 0) is a deadline: the run ends with status TIMEOUT within a fraction of a
    second of it. With `settings.workers` > 1, or with a timeout, the subproblems run in worker
    processes and their solutions are merged here, in this process, so counting and output are the same
    code either way; `settings.cluster` ("tcp://HOST:PORT" or "local:N") sends them to a Dask cluster.

    `settings.journal` records each finished subproblem in an SQLite file; with `journal.resume` the run
    starts from what the file holds: its finished subproblems are skipped, the classes of its last
    commit are handed to `on_class` first (a solutions file that lacks them gets them; see journal.py).
    With a journal, each new class reaches `on_class` once the journal holds it (see `_Collector`),
    and `written()`, called before each commit, must make sure that every class handed on is in the
    output and return its size (in bytes; default 0).

    `on_ready(keep)` is called once the journal has been checked and opened (or made), before the
    first class reaches `on_class`: the moment a caller may empty its output file (keep None: a fresh
    run), or cut it back to the `keep` bytes the resumed journal recorded; not earlier, so that a run
    refused for its journal leaves the file as it was. If it raises, the run ends there (a journal
    made for it is removed again). `on_start()` is called just before, once the plan is made: the parts
    sized (walks that can take seconds on a big puzzle, before any deadline check of the search), the
    moment the search begins (the command line's preparation deadline ends there; it may raise too).
    """
    backend, workers, limit, timeout = settings.backend, settings.workers, settings.limit, settings.timeout
    journal, progress = settings.journal, settings.progress
    check_timeout(timeout)
    start = time.perf_counter()
    deadline = None if timeout is None else time.time() + timeout
    result = EnumerationResult(prepared.name, backend.label, prepared.broken.key.describe(),
                               backend_reason=backend.reason)
    result.tally.numberings = 1 + len(prepared.problem.label_symmetries)
    collect = _Collector(prepared, result, limit, on_class, progress, start)
    # Sizes order a pool's work and clock the progress bar; a quiet run on one worker needs neither.
    sized = settings.shared or progress is not None or journal is not None
    book, planned, planned_sizes, done, restored = _open_journal(journal, prepared, workers, backend.parts_per_worker,
                                                                 sized, on_ready, on_start)
    collect.book, collect.written = book, written
    judge = Judge(prepared.canonicalizer, prepared.broken, digests=book is not None)
    prepared.canonicalizer.prepare_judging(prepared.broken)  # once, here: forked workers share the tables
    parts, sizes = list(planned), list(planned_sizes)  # both grow when a part gives work back
    order = [i for i in range(len(parts)) if i not in done]
    if settings.shared:  # the biggest first, so that no worker is left with one at the end
        order.sort(key=lambda i: -sizes[i])
    result.subproblems = len(parts)
    result.work = sum(sizes) if sized or book is not None else 0.0

    def finished(part: int, stats: SearchStats, rest_sizes: Sequence[float]) -> list[int]:
        return collect.finished(part, stats, rest_sizes, parts, sizes, book)

    def budget_of(part: int, waiting: Sequence[int]) -> int:
        if not (sized and backend.gives_back and settings.shared):
            return 0
        others = math.fsum(sizes[i] for i in waiting) / (workers - 1) if workers > 1 and waiting else 0.0
        return overrun_budget(sizes[part], others)

    complete = False
    try:
        with collect.gate.installed():
            try:
                if book is not None and restored is not None:
                    _restore(collect, book, restored)
                if progress is not None:
                    progress(result)
                _run(Work(judge, backend, parts, order, deadline, collect, finished, result, budget_of), settings)
            except KeyboardInterrupt:
                result.status = Status.INTERRUPTED
            except BaseException:
                collect.salvage()
                raise
            # The classes opened since the last commit, into the journal, then on: at most COMMIT_CLASSES of
            # them (one small transaction and as many lines), so that the file holds what the summary counts;
            # at the deadline too, where a second's classes (thousands) once took a journalled run 1.15 s past
            # its `--timeout` (issue 39).
            with collect.gate.held():
                collect.settle()
        if result.status is Status.COMPLETE:  # checked before the journal is marked complete
            _check_counts(result, None if restored is None or journal is None else journal.path)
        complete = result.status is Status.COMPLETE and result.subproblems_done == len(parts)
    except KeyboardInterrupt:  # a stop signal held while they were settled
        result.status = Status.INTERRUPTED
    finally:
        if book is not None:
            book.finish(complete)
    result.seconds = time.perf_counter() - start
    return result


def _check_counts(result: EnumerationResult, resumed: Path | None) -> None:
    """The two routes to the total agree at the end of a complete run (`Tally.check`). When they do not in a run
    resumed from a journal, the journal is at fault, not cpsolve: a subproblem marked done by hand (its digest
    made again) passes every check a journal can make alone, and only the end of the run shows it."""
    try:
        result.tally.check(result.puzzle)
    except CpsolveError:
        if resumed is None:
            raise
        tally = result.tally
        raise CpsolveError(f"damaged journal: at the end of the resumed run the weights give {tally.total} "
                           f"solutions and the rotation classes {tally.orbit_total}: a subproblem it holds as done "
                           "was not searched (edited by hand?); it is left unfinished: delete it to start over",
                           where=str(resumed)) from None


OVERRUN = 4.0
"""A part on a pool is given back once it has met this many times the nodes it was estimated at: a
few walks each size the parts, enough to put the big ones first but not to catch every giant."""
MIN_BUDGET = 1 << 20
"""...and never before this many nodes (about 0.2 s of the engine on Bedlam): splitting small parts
only adds messages."""
SHARE = 1.0
"""...nor before it has met this fraction of the work still waiting, shared among the other workers:
until then they have enough to do without it, and splitting it only costs the walks that size what
it gives back and the messages of the new parts. Bedlam's walks underestimate six of its 41 parts
fourfold; split at once, they became 294 parts and cost 0.05 s of a 2.6 s run on two workers, with
no shorter idle tail. A giant met near the end, when little is waiting, is split as before."""


NO_BUDGET = float(1 << 62)
"""Budgets from here up are none: the engine counts nodes in 64-bit integers."""


def overrun_budget(size: float, others: float = 0.0) -> int:
    """The node budget of a part estimated at `size` nodes when the other workers have `others` nodes of
    work each still waiting (see OVERRUN, MIN_BUDGET and SHARE); 0 (none) past what the engine counts to:
    a part estimated beyond measure (the walks' product overflowed to infinity on a 27x27x27 box of rods,
    and `int(inf)` stopped the run) is never met anyway."""
    budget = max(MIN_BUDGET, OVERRUN * size, SHARE * others)
    return int(budget) if budget < NO_BUDGET else 0


def _run(work: Work, settings: RunSettings) -> None:
    """The subproblems on the runner that fits: a Dask cluster, the forked pool, or this process. Wherever
    they run, `work.judge` turns their solutions into stretches there: only counts and new classes travel."""
    if settings.cluster is not None:
        from .cluster import run_cluster

        run_cluster(work, settings.cluster)
    # With a deadline even one worker runs in a child process, which the parent kills on time: a
    # backend cannot always be stopped promptly (a SAT solver loading its clauses holds the GIL).
    elif (settings.workers > 1 and len(work.order) > 1) or work.deadline is not None:
        from .parallel import run_parallel

        run_parallel(work, settings.workers)
    else:
        _run_serial(work)


Planned = tuple["Journal | None", tuple[tuple[int, ...], ...], list[float], frozenset[int], "Restored | None"]


def _open_journal(plan_: JournalPlan | None, prepared: Prepared, workers: int, per_worker: int,
                  sized: bool = True, on_ready: Callable[[int | None], None] | None = None,
                  on_start: Callable[[], object] | None = None) -> Planned:
    """The run's subproblems, their estimated sizes and those already done, from a journal being resumed
    (with what it restores) or from a new plan (recorded in a new journal); `on_start`, then `on_ready`
    (see `enumerate_classes`) called once the plan is made and the journal is known to be usable: a resumed
    one before its first write, so that a run refused there (a solutions file shorter than the journal says,
    a deadline) leaves it as it was; a new one is removed again if either raises."""
    if plan_ is not None:
        from .journal import Journal  # here: a run without a journal loads no journal code
    if plan_ is not None and plan_.resume:
        def ready(restored: Restored) -> None:
            if on_start is not None:
                on_start()
            if on_ready is not None:
                on_ready(restored.out_bytes)

        opened = Journal.resume(plan_.path, prepared.broken, plan_.others, ready=ready)
        if opened is not None:
            return opened[0], opened[1].parts, list(opened[1].sizes), opened[1].done, opened[1]
        warnings.warn(f"{plan_.path}: no run to resume there; starting from the beginning", CpsolveNotice,
                      stacklevel=2)

    made: list[tuple[tuple[tuple[int, ...], ...], list[float]]] = []

    def new_plan() -> tuple[tuple[tuple[int, ...], ...], list[float]]:
        """Asked for by a new journal once its path has passed its checks: sizing takes a few walks."""
        parts = tuple(plan(prepared.broken, workers, per_worker))
        sizes = (part_sizes(prepared.broken.problem, parts, workers=workers) if sized else None) or [1.0] * len(parts)
        made.append((parts, sizes))
        return parts, sizes

    book = None if plan_ is None else Journal.start(plan_.path, prepared.broken, prepared.name, plan_.argv, new_plan,
                                                    plan_.others)
    parts, sizes = made[0] if made else new_plan()
    try:
        if on_start is not None:
            on_start()
        if on_ready is not None:
            on_ready(None)
    except BaseException:
        if book is not None:
            book.abandon()
        raise
    return book, parts, sizes, frozenset(), None


def _restore(collect: _Collector, book: Journal, restored: Restored) -> None:
    """A resumed journal's counts into the tally, and the classes of its last commit to `on_class` again (a
    solutions file passes over those it has)."""
    result = collect.result
    tally = result.tally
    tally.weighted, tally.found, tally.unique_rotation, tally.orbit_total, tally.unique_symmetry = \
        restored.counts[:5]
    collect.index = restored.written
    collect.look_up = restored.pending > 0
    if collect.on_class is not None:
        for cls in book.tail():
            collect.on_class(cls)
    result.subproblems_done = len(restored.done)
    result.work_done = result.resumed_work = restored.work_done
    result.resumed_found = restored.found


def _run_serial(work: Work) -> None:
    judge, collect = work.judge, work.collect
    for part in work.order:
        def keep(rows: tuple[int, ...], part: int = part) -> bool:
            weight, orbit, opened = judge(rows)
            return collect(part, Stretch(1, weight, orbit > 0, orbit, opened))

        stats = work.backend.search(judge.problem, keep, forced=work.parts[part])
        if stats.status != Status.COMPLETE:
            work.result.status = stats.status
            return
        work.finished(part, stats, ())  # no budget: nothing given back


def first_solution(
    prepared: Prepared, backend: Backend, timeout: float | None = None
) -> tuple[tuple[int, ...] | None, SearchStats]:
    """The first solution the backend finds (rows of the *broken* problem), or None if there is none."""
    found: list[tuple[int, ...]] = []

    def keep(rows: tuple[int, ...]) -> bool:
        found.append(rows)
        return True

    stats = backend.search(prepared.broken.problem, keep, limit=1, timeout=timeout)
    return (found[0] if found else None), stats
