"""`run`, `cpsolve enumerate` as a function: the search with its solutions file, journal, workers, cluster,
progress and disassembly as classes stream in; and `count`, the three counts exact or an error.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from .common import TIMEOUT_EXIT, PathLike, _frozen
from .results import Counts, Result, Solution, _result
from .solving import _prepare

if TYPE_CHECKING:
    from ..analysis.placed import PlacedDisassembler
    from ..problem.placements import ExactCoverProblem
    from ..search.pool import Pipeline
    from ..search.result import Progress, SolutionClass
    from ..search.settings import JournalPlan


def run(
    puzzle: Puzzle,
    on_solution: Callable[[Solution], object] | None = None,
    *,
    backend: str = "auto",
    workers: int = 1,
    limit: int = 0,
    timeout: float | None = None,
    symmetry_breaking: bool = True,
    progress: Progress | bool | None = None,
    out: PathLike | bool | None = None,
    journal: PathLike | bool = True,
    resume: bool = False,
    cluster: str | None = None,
    disassemble: bool = False,
    min_level: str | None = None,
    command: Sequence[str] = (),
    on_start: Callable[[], object] | None = None,
    sort: bool = False,
    rotations: bool = False,
    rotation_clearance: float | str = 0,
) -> Result:
    """Enumerate in this process, calling `on_solution` with each new class as soon as it is found.

    This is `cpsolve enumerate`: `limit` stops after that many classes, `timeout` (seconds, counted
    from the call: preparing the puzzle is part of it) ends the run with status "timeout", `workers`
    > 1 splits it over forked processes (solutions still reach `on_solution` here), `cluster`
    ("tcp://HOST:8786", "local:N") runs the parts on a Dask cluster. Ctrl-C ends it with status
    "interrupted", never between a class being counted and `on_solution` returning, so the counts
    never run ahead of what it was given. `progress` receives the running record about five times a
    second; True shows the command line's progress on stderr (a bar on a terminal, else a line every
    5 s). For an iterator, see `enumerate`.

    `out` writes the solutions file as the command line does (one JSON line per class, flushed as it
    is found; True: `NAME.solutions.jsonl` here), refused before the search if it cannot be written or
    would replace the puzzle or a journal. With it, `journal` (True: `OUT.journal`, removed once the
    run is complete; a path: kept; False: none) records each finished subproblem, and `resume`
    continues the run a journal holds; `command` is the command line the journal shows to resume it.
    `disassemble` takes each class apart as it comes (`result.disassembly`, each solution's `level`);
    `min_level` ("5", "1.2") writes only the solutions at that level or above. `rotations` lets the
    disassembly turn pieces by quarter turns too (levels like "1R1"), each cube shrunk by
    `rotation_clearance` on each side in the sweep test. `sort` rewrites the
    file of a complete run in the order of the classes' ids (`Solution.id`), each line's `class` its
    rank in that order: two complete runs of a puzzle then write the same bytes, whatever their backend
    and workers. `on_start` is called once the puzzle is prepared and its parts planned (sized by a few
    walks each, which can take seconds on a big puzzle), as the search starts (the command line ends its
    preparation deadline there).

    >>> names = []
    >>> r = cpsolve.run(cpsolve.load("soma"), lambda s: names.append(s.index), limit=3)
    >>> names, r.status
    ([0, 1, 2], 'stopped')
    """
    from ..output.files import check_destination
    from ..output.solutions import (
        LineWriter,
        SolutionsFile,
        default_solutions_path,
        labelled,
        origin_record,
        sort_by_id,
    )
    from ..search.enumeration import enumerate_classes
    from ..search.settings import RunSettings

    began = time.perf_counter()
    apart = (_Disassembling(puzzle, min_level, rotations, rotation_clearance)
             if disassemble or min_level is not None else None)
    if apart is None and (rotations or rotation_clearance):
        raise CpsolveError("rotations are a way of taking apart: they need --disassemble", field="rotations")
    if apart is not None and puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no pieces to slide apart", where=puzzle.name, field="disassemble")
    prepared, engine = _prepare(puzzle, backend, symmetry_breaking, workers)
    if apart is not None:
        apart.start(prepared.problem)
    prepare_seconds = time.perf_counter() - began
    path = None if out is None or out is False else default_solutions_path(puzzle.name) if out is True else Path(out)
    origin = Path(puzzle.origin) if puzzle.origin and Path(puzzle.origin).is_file() else None
    if path is not None:
        check_destination(path, [] if origin is None else [(origin, "the puzzle file")])
    book = _journal_plan(journal, resume, path, origin, command)
    sink: SolutionsFile | None = None
    problem = prepared.problem
    lines = LineWriter(prepared.name, problem, None if path is None else origin_record(puzzle, path))
    readied: list[int | None] = []
    """What `ready` was told: None (a fresh run) or the bytes a resumed run keeps."""

    def ready(keep: int | None) -> None:
        """The journal is sound and open. A resumed run's solutions file is opened now (kept: the journal's
        last classes are matched against it, its first `keep` bytes checked; nothing in it changes). A fresh
        run's is made now only where there is none (empty until the first class; a pipe or a device opened,
        its reader waits for it): an existing file is replaced only when the first class is written."""
        readied.append(keep)
        if path is not None and (keep is not None or not os.path.isfile(path)):
            opened()

    def opened() -> SolutionsFile | None:
        """The solutions file, opened when the first class is written (or a complete run found none), not
        before: a fresh run that fails or stops before it has anything to write (a cluster out of reach, a
        worker lost at once, a deadline) leaves a file that was there as it was."""
        nonlocal sink
        if sink is None and path is not None and readied:
            sink = SolutionsFile(path, keep=readied[0])
        return sink

    ids: list[str] = []

    def emit(cls: SolutionClass, pieces: Mapping[str, Sequence[Cell]] | None, taken: _TakenApart | None) -> None:
        """One class to the file and the caller, after it was taken apart (`taken`) if it was to be."""
        extra = None if apart is None or taken is None else apart.record(cls, taken)
        if sort:
            ids.append(cls.id)
        if path is not None and (apart is None or extra is not None) and (out_file := opened()) is not None:
            out_file.write(lines.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, extra, cls.id))
        if on_solution is not None and pieces is not None:
            on_solution(Solution(prepared.name, _frozen(pieces), cls.index, cls.assemblies, cls.mirror_distinct,
                                 puzzle, level=None if taken is None else taken[1], id=cls.id))

    # With workers, the classes are taken apart on as many forked processes while the search goes on, in
    # the order found, PIPELINE_BATCH at a time (one class is too little work to pay for the trip); after a
    # pause of PIPELINE_GAP the classes held and those sent off are seen to at once, so a slow stream is
    # written as it comes.
    pipeline: Pipeline[_Job, list[_TakenApart]] | None = None
    held: list[tuple[SolutionClass, Mapping[str, Sequence[Cell]] | None]] = []
    waiting: deque[list[tuple[SolutionClass, Mapping[str, Sequence[Cell]] | None]]] = deque()
    moves = path is not None  # the moves are written to the solutions file, and only there
    last_class = 0.0

    def emit_ready(results: list[list[_TakenApart]]) -> None:
        for batch in results:
            for (cls, pieces), taken in zip(waiting.popleft(), batch, strict=True):
                emit(cls, pieces, taken)

    def send_held() -> None:
        assert pipeline is not None and apart is not None
        if held:
            waiting.append(held[:])
            job = (apart.disassembler, [cls.placements for cls, _ in held], moves)
            held.clear()
            emit_ready(pipeline.put(job))

    def on_class(cls: SolutionClass) -> None:
        nonlocal last_class
        pieces = labelled(problem, cls.placements) if on_solution is not None else None
        if apart is None:
            emit(cls, pieces, None)
            return
        if pipeline is None:
            emit(cls, pieces, _take_apart((apart.disassembler, [cls.placements], moves))[0])
            return
        now = time.perf_counter()
        gap, last_class = now - last_class, now
        held.append((cls, pieces))
        if len(held) >= PIPELINE_BATCH or gap > PIPELINE_GAP:
            send_held()
        if gap > PIPELINE_GAP:
            emit_ready(pipeline.finish())

    def salvage() -> None:
        """The run failed with an exception (a stop signal ends it in order, above): the classes the collector
        salvaged into the pipeline, those held for the disassembly workers and those they have not given back
        are still written, in order, taken apart here where the workers cannot; quietly, for the failure is
        what the user must see."""
        if pipeline is None or apart is None:
            return
        with contextlib.suppress(Exception):
            emit_ready(pipeline.finish())
        left = [*itertools.chain.from_iterable(waiting), *held]
        waiting.clear()
        held.clear()
        with contextlib.suppress(Exception):
            for cls, pieces in left:
                emit(cls, pieces, _take_apart((apart.disassembler, [cls.placements], moves))[0])

    shown = _progress_display() if progress is True else progress or None
    left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
    try:
        with contextlib.ExitStack() as stack:
            if apart is not None and workers > 1 and cluster is None:
                from ..search.pool import Pipeline, forked_pool

                pipeline = Pipeline(stack.enter_context(forked_pool(workers)), _take_apart)

            def written() -> int:
                """Before a journal commit: every class handed on is in the file (taken apart first); the
                bytes of the file's whole lines (0 while a fresh run has written none)."""
                if pipeline is not None:
                    send_held()
                    emit_ready(pipeline.finish())
                return 0 if sink is None else sink.size

            settings = RunSettings(engine, workers=workers, limit=limit, timeout=left, cluster=cluster, journal=book,
                                   progress=shown)
            try:
                raw = enumerate_classes(prepared, settings, on_class=on_class, on_ready=ready, written=written,
                                        on_start=on_start)
                if pipeline is not None:
                    send_held()
                    emit_ready(pipeline.finish())
            except Exception:
                salvage()
                raise
    except BaseException:
        if sink is not None:  # the first error is the one to report, not a second one from closing
            with contextlib.suppress(CpsolveError):
                sink.close()
        raise
    finally:
        if shown is not None and progress is True:
            shown.close()  # type: ignore[attr-defined]
    complete = raw.status.value == "complete"
    if complete:
        opened()  # a complete run that found nothing: the file says so, empty
    if sink is not None:
        sink.close()
    if sort and complete and path is not None and path.is_file():
        sort_by_id(path, ids)
    kept = book is not None and not (complete and journal is True)
    if book is not None and not kept:
        from ..search.journal import remove  # here: a run without a journal loads no journal code

        remove(book.path)  # the default journal has served its purpose
    return _result(raw, prepare_seconds=prepare_seconds, solutions_file=None if sink is None else str(path),
                   journal=str(book.path) if book is not None and kept else None,
                   disassembly=None if apart is None else apart.tally.as_json())


def _progress_display() -> Progress:
    """The command line's progress on stderr: rich's bar on a terminal, a plain line every 5 s elsewhere."""
    from ..output.progress import make_progress

    return make_progress()


def _journal_plan(journal: PathLike | bool, resume: bool, solutions: Path | None, puzzle: Path | None,
                  command: Sequence[str]) -> JournalPlan | None:
    """Where the run is journalled: the path given, else beside the solutions file (unless that is a device
    or a pipe); none with journal=False, or without a solutions file and no path."""
    from ..search.settings import JournalPlan

    if journal is False:
        if resume:
            raise CpsolveError("needs a journal: leave out --no-journal", field="resume")
        return None
    if journal is True and solutions is not None:
        from ..search.journal import default_journal  # here: a run without a journal loads no journal code

        where: Path | None = default_journal(solutions)
    else:
        where = None if journal is True else Path(journal)
    if where is None:
        if resume:
            why = "with --no-save" if solutions is None else "the solutions go to a device or a pipe"
            raise CpsolveError(f"{why}, name the journal with --journal PATH", field="resume")
        return None
    others = [(p, what) for p, what in ((solutions, "the solutions file (--out)"), (puzzle, "the puzzle file"))
              if p is not None]
    return JournalPlan(where, resume, tuple(command), tuple(others))


class _Disassembling:
    """`run(disassemble=True)`: takes each new solution class apart in this process, as it streams in,
    and keeps the tally of assemblies against solutions and levels."""

    def __init__(self, puzzle: Puzzle, min_level: str | None, rotations: bool = False,
                 rotation_clearance: float | str = 0) -> None:
        from ..analysis.disassembly import check_grid, check_pieces, check_rotations, puzzle_groups
        from ..analysis.trees import LevelTally, parse_level

        try:
            check_grid(puzzle.grid)
            check_pieces(puzzle.n_pieces)
        except CpsolveError as exc:
            raise exc.located(puzzle.origin or puzzle.name) from None
        self.clearance = check_rotations(rotations, rotation_clearance, puzzle.grid)  # the options': not located
        self.rotations = rotations
        try:
            self.min_level = None if min_level is None else parse_level(min_level)
        except ValueError as exc:
            raise CpsolveError(str(exc), field="min_level") from None
        self.groups = puzzle_groups(puzzle)
        self.grid = puzzle.grid
        self.tally = LevelTally()
        if rotations:  # levels split into slides and turns (2R1 apart from 1R2); without, the tally as ever
            from ..analysis.turning import TurningLevelTally

            self.tally = TurningLevelTally()
        self.disassembler: PlacedDisassembler | None = None

    def start(self, problem: ExactCoverProblem) -> None:
        """The puzzle is prepared: one disassembler for its placements, on its grid (made before any worker
        is forked, so that each has its copy)."""
        from ..analysis.turning import placed_disassembler

        self.disassembler = placed_disassembler(problem, self.groups, grid=self.grid, rotations=self.rotations,
                                                rotation_clearance=self.clearance)

    def record(self, cls: SolutionClass, taken: _TakenApart) -> dict[str, object] | None:
        """A class taken apart (`_take_apart`) into the tally; the extra keys of its solutions-file line, or
        None to leave it out."""
        level, text, moves = taken
        self.tally.add(cls.assemblies, cls.mirror_distinct, level, text)
        if self.min_level is not None and (level is None or level < self.min_level):
            return None
        return {"level": text, "moves": moves}


_TakenApart = tuple[tuple[int, ...] | None, str | None, list[dict[str, object]]]
"""A class taken apart: its level (None: it does not come apart), the level as text, its moves as JSON
(`disassembly.Taken`)."""

_Job = tuple["PlacedDisassembler | None", list[tuple[tuple[int, tuple[int, ...]], ...]], bool]
"""Classes to take apart: the run's disassembler, their placements, whether their moves are wanted."""


PIPELINE_GAP = 0.02
"""Seconds between two classes past which `enumerate --disassemble` on workers sees to the classes held
and sent off before going on (see `run`): a fast stream is pipelined, a slow one written as it comes."""


PIPELINE_BATCH = 32
"""Classes sent to a worker together: taking one apart can take 0.1 ms, less than its trip to a worker."""


def _take_apart(job: _Job) -> list[_TakenApart]:
    """Take classes apart (a module-level function: the workers are sent it by name, and the disassembler
    as a number that names their own copy of it)."""
    disassembler, batch, moves = job
    assert disassembler is not None
    return disassembler.take_apart(batch, moves)


def count(puzzle: Puzzle, *, backend: str = "auto", workers: int = 1, timeout: float | None = None,
          symmetry_breaking: bool = True) -> Counts:
    """The three counts, exact: a run that does not finish raises instead of returning part of them
    (a timeout: `CpsolveError` with exit code 3; Ctrl-C: KeyboardInterrupt). `run` and
    `enumerate` report incomplete counts with their status.

    >>> cpsolve.count(cpsolve.load("t-tetracube-6x6x2"), workers=2)
    Counts(total=136, unique_rotation=20, unique_symmetry=10)
    """
    result = run(puzzle, backend=backend, workers=workers, timeout=timeout, symmetry_breaking=symmetry_breaking)
    if result.status == "interrupted":
        raise KeyboardInterrupt
    if not result.complete:
        from ..problem.canonical import counts_text

        raise CpsolveError(f"{result.status} after {result.seconds:.2f} s: the counts so far "
                           f"({counts_text(result.counts)}) are incomplete", where=result.puzzle,
                           exit_code=TIMEOUT_EXIT if result.status == "timeout" else 1)
    return result.counts
