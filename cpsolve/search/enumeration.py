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
from ..problem.canonical import Canonicalizer, Forms, class_id
from ..problem.chains import chain_problem
from ..problem.placements import ExactCoverProblem, bit_indices, packing_problem
from ..problem.symmetry import (
    BrokenProblem,
    SymmetryElement,
    apply_key,
    choose_key,
    container_group,
    no_key,
)
from ..puzzle.model import Puzzle
from .backends import Backend, SearchStats, Status
from .estimate import part_sizes, smallest_tree_key
from .result import Collect, EnumerationResult, Finished, Progress, SolutionClass, merge_stats

if TYPE_CHECKING:  # loaded when a run has a journal, or workers: a short run on one worker does without
    from .journal import Journal, Restored
    from .parallel import Budget


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
    group = container_group(problem.cells, problem.cell_classes)
    pick = smallest_tree_key(problem, workers) if problem.kind != "chain" else None
    key = choose_key(problem, group, puzzle.key_piece, pick) if symmetry_breaking else no_key()
    return Prepared(puzzle.name, problem, group, apply_key(problem, key), Canonicalizer(problem, group))


def subproblems(broken: BrokenProblem) -> list[tuple[int, ...]]:
    """Forced-row prefixes that partition the search: one per kept key placement, or the whole."""
    return broken.starts


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
whether anything was kept would depend on the machine's speed rather than on the run."""


class _Collector:
    """Receives raw solutions from a runner; canonicalizes, counts, and reports new classes.

    It also keeps what a journal needs: each subproblem's own counts (written when it finishes) and
    the classes found since the last commit. With a journal, a new class is handed to `on_class` only
    once the journal holds it: a solutions file written from `on_class` is then always a prefix of the
    journal's classes, so that a resume, after a kill at any moment, only ever appends to it.
    """

    def __init__(self, prepared: Prepared, result: EnumerationResult, limit: int,
                 on_class: Callable[[SolutionClass], None] | None, progress: Progress | None, start: float):
        self.prepared, self.result, self.limit = prepared, result, limit
        self.on_class, self.progress, self.start = on_class, progress, start
        self.last_progress = 0.0
        self.per_part: dict[int, list[int]] = {}
        """Subproblem -> [weighted, found] of the solutions counted from it so far."""
        self.book: Journal | None = None
        self.last_commit = start
        self.new_rotations: list[tuple[bytes, int]] = []
        self.new_classes: list[tuple[bytes, SolutionClass]] = []
        """With a journal: the rotation classes and classes found since its last commit."""
        self.gate = _SignalGate()

    def __call__(self, part: int, rows: tuple[int, ...]) -> bool:
        p = self.prepared
        forms = p.canonicalizer.forms(p.broken.problem, rows)  # pure: nothing to protect yet
        if forms.symmetry_key in self.result.tally.symmetry_keys:
            # Not a new class: nothing is written, so the summary cannot get ahead of the file.
            return self._collect(part, rows, forms)
        with self.gate.held():
            return self._collect(part, rows, forms)

    def _collect(self, part: int, rows: tuple[int, ...], forms: Forms) -> bool:
        p = self.prepared
        result = self.result
        tally = result.tally
        if result.first_solution_seconds is None:
            result.first_solution_seconds = time.perf_counter() - self.start
        weight = p.broken.weight_of(rows)
        counts = self.per_part.get(part) or self.per_part.setdefault(part, [0, 0])
        counts[0] += weight
        counts[1] += 1
        if self.book is not None and forms.rotation_key not in tally.rotation_keys:
            self.new_rotations.append((forms.rotation_key, forms.orbit))
        if tally.add(forms, weight):
            cls = self._solution_class(rows, forms)
            if self.book is None:
                if self.on_class is not None:
                    self.on_class(cls)
            else:
                self.new_classes.append((forms.symmetry_key, cls))
                if (len(self.new_classes) >= COMMIT_CLASSES
                        or time.perf_counter() - self.last_commit > COMMIT_SECONDS):
                    self.settle()
        now = time.perf_counter()
        if self.progress is not None and now - self.last_progress > 0.2:
            self.last_progress = now
            self.progress(result)
        return bool(self.limit) and tally.unique_symmetry >= self.limit

    def _solution_class(self, rows: Sequence[int], forms: Forms) -> SolutionClass:
        p = self.prepared
        placements = p.canonicalizer.transform_rows(p.broken.problem, rows, forms.element)
        return SolutionClass(
            index=self.result.tally.unique_symmetry - 1,
            assemblies=forms.orbit * (2 if forms.mirror_distinct else 1),
            mirror_distinct=forms.mirror_distinct,
            placements=tuple(placements),
            id=class_id(forms.symmetry_key),
        )

    def settle(self) -> None:
        """Commit the classes found since the last commit (if any) and hand them on."""
        if self.book is not None and (self.new_classes or self.new_rotations):
            self.book.record(self.new_rotations, self.new_classes)
            self._hand_on()

    def salvage(self) -> None:
        """The run is failing: keep what can be kept, quietly (the failure is what the user must see): the
        new classes into the journal if it can still be written, and to `on_class` whatever happens, so
        that the solutions file has every class found."""
        with contextlib.suppress(Exception):
            self.settle()
        classes, self.new_rotations, self.new_classes = self.new_classes, [], []
        with contextlib.suppress(Exception):
            for _, cls in classes:
                if self.on_class is not None:
                    self.on_class(cls)

    def _hand_on(self) -> None:
        """The journal has just committed the new classes: on to `on_class`, in the order found."""
        classes, self.new_rotations, self.new_classes = self.new_classes, [], []
        self.last_commit = time.perf_counter()
        if self.on_class is not None:
            for _, cls in classes:
                self.on_class(cls)

    def finished(self, part: int, stats: SearchStats, rest_sizes: Sequence[float], parts: list[tuple[int, ...]],
                 sizes: list[float], journal: Journal | None) -> list[int]:
        """A subproblem is complete: fold in its stats and, with a journal, commit it with every class
        found since the last commit (one transaction; see journal.py for why that is enough). What it
        gave back becomes new parts (appended to `parts` and `sizes`, committed in the same
        transaction); their indices are returned for the runner to schedule."""
        result = self.result
        merge_stats(result, stats, self.start)
        weighted, found = self.per_part.pop(part, (0, 0))
        nodes = stats.counter("nodes")
        fresh = list(range(len(parts), len(parts) + len(stats.rest)))
        parts.extend(stats.rest)
        sizes.extend(rest_sizes)
        if journal is not None:
            with self.gate.held():
                journal.part_done(part, weighted, found, stats.seconds, nodes, self.new_rotations, self.new_classes,
                                  [(i, parts[i], sizes[i]) for i in fresh])
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


def enumerate_classes(
    prepared: Prepared,
    backend: Backend,
    *,
    limit: int = 0,
    timeout: float | None = None,
    workers: int = 1,
    on_class: Callable[[SolutionClass], None] | None = None,
    progress: Progress | None = None,
    journal: JournalPlan | None = None,
    cluster: str | None = None,
    on_ready: Callable[[bool], None] | None = None,
) -> EnumerationResult:
    """Enumerate every solution, streaming each new class; Ctrl-C ends it with status INTERRUPTED.

    `limit` stops after that many classes (up to rotation and reflection). `timeout` (seconds, finite
    and > 0) is a deadline: the run ends with status TIMEOUT within a fraction of a second of it.
    With `workers` > 1, or with a timeout, the subproblems run in worker processes and their
    solutions are merged here, in this process, so counting and output are the same code either way;
    `cluster` ("tcp://HOST:PORT" or "local:N") sends them to a Dask cluster instead.

    `journal` records each finished subproblem in an SQLite file; with `journal.resume` the run
    starts from what the file holds: its classes are handed to `on_class` first (so a solutions file
    written from them has no gap or duplicate), its finished subproblems are skipped. With a journal,
    each new class reaches `on_class` once the journal holds it (see `_Collector`).

    `on_ready(resumed)` is called once the journal has been checked and opened (or made), before the
    first class reaches `on_class`: the moment a caller may empty its output file, not earlier, so
    that a run refused for its journal leaves the file as it was. If it raises, the run ends there
    (a journal made for it is removed again).
    """
    check_timeout(timeout)
    start = time.perf_counter()
    deadline = None if timeout is None else time.time() + timeout
    result = EnumerationResult(prepared.name, backend.label, prepared.broken.key.describe(),
                               backend_reason=backend.reason)
    result.tally.numberings = 1 + len(prepared.problem.label_symmetries)
    collect = _Collector(prepared, result, limit, on_class, progress, start)
    # Sizes order a pool's work and clock the progress bar; a quiet run on one worker needs neither.
    sized = workers > 1 or cluster is not None or progress is not None or journal is not None
    book, planned, planned_sizes, done, restored = _open_journal(journal, prepared, workers, backend.parts_per_worker,
                                                                 sized)
    try:
        if on_ready is not None:
            on_ready(restored is not None)
    except BaseException:
        if book is not None:
            book.abandon()
        raise
    collect.book = book
    parts, sizes = list(planned), list(planned_sizes)  # both grow when a part gives work back
    order = [i for i in range(len(parts)) if i not in done]
    if workers > 1 or cluster is not None:  # the biggest first, so that no worker is left with one at the end
        order.sort(key=lambda i: -sizes[i])
    result.subproblems = len(parts)
    result.work = sum(sizes) if sized or book is not None else 0.0

    def finished(part: int, stats: SearchStats, rest_sizes: Sequence[float]) -> list[int]:
        return collect.finished(part, stats, rest_sizes, parts, sizes, book)

    def budget_of(part: int, waiting: Sequence[int]) -> int:
        if not (sized and backend.gives_back and (workers > 1 or cluster is not None)):
            return 0
        others = math.fsum(sizes[i] for i in waiting) / (workers - 1) if workers > 1 and waiting else 0.0
        return overrun_budget(sizes[part], others)

    try:
        with collect.gate.installed():
            try:
                if book is not None and restored is not None:
                    _restore(collect, book, restored)
                if progress is not None:
                    progress(result)
                _run(prepared, backend, parts, order, workers, deadline, collect, finished, result, cluster, budget_of)
            except KeyboardInterrupt:
                result.status = Status.INTERRUPTED
            except BaseException:
                collect.salvage()
                raise
            with collect.gate.held():  # the classes found since the last commit: into the journal, then on
                collect.settle()
    except KeyboardInterrupt:  # a stop signal held while they were settled
        result.status = Status.INTERRUPTED
    finally:
        if book is not None:
            book.finish(result.status is Status.COMPLETE and result.subproblems_done == len(parts))
    result.seconds = time.perf_counter() - start
    if result.status is Status.COMPLETE:
        result.tally.check(result.puzzle)
    return result


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


def overrun_budget(size: float, others: float = 0.0) -> int:
    """The node budget of a part estimated at `size` nodes when the other workers have `others` nodes of
    work each still waiting (see OVERRUN, MIN_BUDGET and SHARE)."""
    return max(MIN_BUDGET, int(OVERRUN * size), int(SHARE * others))


def _run(prepared: Prepared, backend: Backend, parts: Sequence[tuple[int, ...]], order: Sequence[int], workers: int,
         deadline: float | None, collect: _Collector, finished: Finished, result: EnumerationResult,
         cluster: str | None, budget_of: Budget) -> None:
    """The subproblems on the runner that fits: a Dask cluster, the forked pool, or this process."""
    problem = prepared.broken.problem
    if cluster is not None:
        from .cluster import run_cluster

        run_cluster(problem, backend, parts, order, cluster, deadline, collect, finished, result, budget_of)
    # With a deadline even one worker runs in a child process, which the parent kills on time: a
    # backend cannot always be stopped promptly (a SAT solver loading its clauses holds the GIL).
    elif (workers > 1 and len(order) > 1) or deadline is not None:
        from .parallel import run_parallel

        run_parallel(problem, backend, parts, order, workers, deadline, collect, finished, result, budget_of)
    else:
        _run_serial(problem, backend, parts, order, collect, finished, result)


@dataclass(frozen=True)
class JournalPlan:
    """Where to journal a run, and whether to continue the run that file holds."""

    path: Path
    resume: bool = False
    argv: tuple[str, ...] = ()
    """The command, as its words: `cpsolve journal` shows it, quoted, as the way to continue the run."""
    others: tuple[tuple[Path, str], ...] = ()
    """Files the journal must not be, each with what it is: the solutions file, the puzzle file."""


Planned = tuple["Journal | None", tuple[tuple[int, ...], ...], list[float], frozenset[int], "Restored | None"]


def _open_journal(plan_: JournalPlan | None, prepared: Prepared, workers: int, per_worker: int,
                  sized: bool = True) -> Planned:
    """The run's subproblems, their estimated sizes and those already done, from a journal being resumed
    (with what it restores) or from a new plan (recorded in a new journal)."""
    if plan_ is not None:
        from .journal import Journal
    if plan_ is not None and plan_.resume:
        opened = Journal.resume(plan_.path, prepared.broken, plan_.others)
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
    return book, parts, sizes, frozenset(), None


def _restore(collect: _Collector, book: Journal, restored: Restored) -> None:
    """A resumed journal's counts into the tally, and its classes to `on_class`, in order."""
    result = collect.result
    tally = result.tally
    tally.weighted, tally.found = restored.weighted, restored.found
    tally.rotation_keys.update(restored.rotations)
    tally.orbit_total = sum(restored.rotations.values())
    for key, cls in book.classes():
        tally.symmetry_keys.add(key)
        if collect.on_class is not None:
            collect.on_class(cls)
    result.subproblems_done = len(restored.done)
    result.work_done = result.resumed_work = restored.work_done
    result.resumed_found = restored.found


def _run_serial(problem: ExactCoverProblem, backend: Backend, parts: Sequence[tuple[int, ...]],
                order: Sequence[int], collect: Collect, finished: Finished, result: EnumerationResult) -> None:
    for part in order:
        def keep(rows: tuple[int, ...], part: int = part) -> bool:
            return collect(part, rows)

        stats = backend.search(problem, keep, forced=parts[part])
        if stats.status != Status.COMPLETE:
            result.status = stats.status
            return
        finished(part, stats, ())  # no budget: nothing given back


def plan(broken: BrokenProblem, workers: int, per_worker: int = 64) -> list[tuple[int, ...]]:
    """The subproblems to run: one per key placement, split further until a pool has enough to share.

    Parts differ in size by orders of magnitude, so a pool needs several per worker to stay busy to
    the end (`per_worker`, the backend's `parts_per_worker`); a serial run keeps the coarse split
    (its progress is just as useful).
    """
    parts = subproblems(broken)
    if workers <= 1:
        return parts
    for _ in range(3):
        if len(parts) >= per_worker * workers:
            break
        parts = [deeper for forced in parts for deeper in split(broken.problem, forced)]
    return parts


def split(problem: ExactCoverProblem, forced: tuple[int, ...]) -> list[tuple[int, ...]]:
    """`forced` extended by each placement of the engine's own first choice below it.

    The choice is the engine's (see `xcover_twin`): the free required cell with the fewest live
    placements, unless a piece with one copy left, and needed, has strictly fewer. Every solution
    containing `forced` uses exactly one of those placements, so the parts partition the solutions
    (none lost or found twice); and being the engine's choice, the parts' trees together are the
    serial search's tree (a cell chosen instead of the engine's piece made Bedlam without symmetry
    breaking search 40 % more on two workers). A dead prefix yields [].
    """
    covered = {c for r in forced for c in problem.rows[r].cells}
    if covered.issuperset(problem.required):  # optional cells may stay empty: no cell to split on
        return [forced]
    left = list(problem.piece_counts)
    need = list(problem.piece_low)
    for r in forced:
        left[problem.rows[r].piece] -= 1
        need[problem.rows[r].piece] -= 1
    by_cell, by_piece = problem.cell_row_bits, problem.piece_row_bits
    live = 0  # the rows still possible: of a piece with copies left, clear of the covered cells
    for p, k in enumerate(left):
        if k > 0:
            live |= by_piece[p]
    for c in covered:
        live &= ~by_cell[c]
    fewest, n_fewest = 0, math.inf  # always replaced: a free required cell exists (checked above)
    for c in problem.required:  # the first cell with the fewest live rows, in the engine's order
        if c not in covered and (n := (by_cell[c] & live).bit_count()) < n_fewest:
            fewest, n_fewest = by_cell[c] & live, n
    for p in range(problem.n_pieces):
        if left[p] == 1 and need[p] == 1 and (n := (by_piece[p] & live).bit_count()) < n_fewest:
            fewest, n_fewest = by_piece[p] & live, n
    return [(*forced, r) for r in bit_indices(fewest)]


def tiles(broken: BrokenProblem, parts: Sequence[tuple[int, ...]]) -> bool:
    """Whether `parts` partition the search as `plan` splits it: they are the leaves of a tree grown from
    the key's starts by `split`, each reached once (dead branches, which `split` drops, aside). A
    journal's planned parts must, or the counts it adds up mean nothing."""
    left = set(parts)
    if len(left) != len(parts):
        return False
    inner = {p[:k] for p in parts for k in range(len(p))}
    todo = list(subproblems(broken))
    while todo:
        p = todo.pop()
        if p in left:
            left.remove(p)
            continue
        below = split(broken.problem, p)
        if p not in inner:
            if below:  # solutions no part covers
                return False
            continue
        if below == [p]:
            return False
        todo.extend(below)
    return not left


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
