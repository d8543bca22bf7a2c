"""Beyond enumeration: approximate counts (`count_approx`: Knuth's walks with exact tails, and on request
ApproxMC's guaranteed interval) and random solutions (`sample`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..limits import check_timeout
from ..puzzle.model import Puzzle
from .common import PathLike, _frozen, _table
from .results import Solution
from .solving import _prepared

if TYPE_CHECKING:
    from ..search.enumeration import Prepared
    from ..search.moments import Moments
    from ..search.walks import Runner, WalkEstimate


@dataclass(frozen=True)
class Guaranteed:
    """ApproxMC's count (`count_approx(guarantee=True)`): with probability at least 1 - `delta` the total
    lies in `interval`, [count / (1 + epsilon), count x (1 + epsilon)]; `exact` when no part needed a
    random cut. `predicted` is the time it was expected to take, stated before it started."""

    count: int
    interval: tuple[float, float]
    exact: bool
    epsilon: float
    delta: float
    seed: int
    seconds: float
    predicted: float
    parts: int


@dataclass(frozen=True)
class ApproxCounts:
    """The total number of assemblies without enumerating them (`cpsolve count --approx`), and the counts up
    to symmetry derived from it.

    `total` is the walks' estimate (Knuth's random walks, each finishing with an exact count of the small
    subtree where it stops: unbiased), `stderr` its standard error, `interval` a 95 % confidence interval
    given only where the walks support it (`why_no_interval` says why not otherwise: too few walks found
    solutions, or one walk carries too much of the estimate, the mark of a heavy tail that makes the error
    bar too small too). `exact`: the search was small enough to count exactly (then stderr is 0). `total`
    and `stderr` are inf past a double's range; `log10_total` holds the size whatever it is. `status` is
    complete (the walks, seconds or precision asked for), timeout, or interrupted (the estimate so far).
    `guarantee` is ApproxMC's count with its interval, when asked for. None where there are no walks (a
    chain: its joints are not exact cover).

    The derived counts: by Burnside's lemma the classes up to rotation number (1 / |R|) x the sum over
    the container's rotations g of the assemblies g leaves unchanged; the identity leaves every one,
    so the classes are total / |R| (`rotations`) exactly when no assembly is symmetric, and more when
    some are. `unique_rotation` and `unique_symmetry` (over `symmetries` elements: the reflections
    count only when the piece set is closed under mirroring) are those lower estimates.
    """

    puzzle: str
    total: float | None
    stderr: float | None
    interval: tuple[float, float] | None
    exact: bool
    walks: int
    reached: int
    seconds: float | None
    status: str
    seed: int
    rotations: int
    symmetries: int
    strata: int = 0
    depth: int = 0
    why_no_interval: str | None = None
    log10_total: float | None = None
    log10_stderr: float | None = None
    guarantee: Guaranteed | None = None
    notes: tuple[str, ...] = ()
    first: bool = False
    """The first answer, from the short pilot that plans the walks (shown while the main walks begin; the
    final answer only when the walks stopped before every stratum had two of its own)."""

    @property
    def best(self) -> float | None:
        """The walks' estimate when there is one, else ApproxMC's count."""
        if self.total is not None:
            return self.total
        return None if self.guarantee is None else float(self.guarantee.count)

    @property
    def relative_error(self) -> float | None:
        if self.log10_total is None or self.log10_stderr is None:
            return None if self.total is None else 0.0
        return 10 ** (self.log10_stderr - self.log10_total)

    @property
    def unique_rotation(self) -> float | None:
        return None if self.best is None else self.best / self.rotations

    @property
    def unique_symmetry(self) -> float | None:
        return None if self.best is None else self.best / self.symmetries

    def as_json(self) -> dict[str, object]:
        """What `cpsolve count --approx --json` prints (numbers past a double's range are null, their
        logarithms beside them: JSON has no inf)."""
        def finite(v: float | None) -> float | None:
            return v if v is None or math.isfinite(v) else None

        g = self.guarantee
        return {
            "puzzle": self.puzzle, "total": finite(self.total), "stderr": finite(self.stderr),
            "log10_total": self.log10_total, "relative_error": self.relative_error,
            "interval": None if self.interval is None else [finite(x) for x in self.interval],
            "why_no_interval": self.why_no_interval, "exact": self.exact, "status": self.status,
            "walks": self.walks, "reached": self.reached, "strata": self.strata, "depth": self.depth,
            "first_answer": self.first,
            "seconds": self.seconds, "seed": self.seed,
            "guarantee": None if g is None else {
                "count": g.count, "interval": list(g.interval), "exact": g.exact, "epsilon": g.epsilon,
                "delta": g.delta, "seed": g.seed, "seconds": g.seconds, "predicted_seconds": g.predicted,
                "parts": g.parts},
            "derived": {"unique_rotation": finite(self.unique_rotation),
                        "unique_symmetry": finite(self.unique_symmetry),
                        "rotations": self.rotations, "symmetries": self.symmetries,
                        "how": "total / rotations and total / symmetries: exact only when no assembly is "
                               "symmetric (Burnside), otherwise the true counts are larger"},
            "notes": list(self.notes),
        }

    def progress_line(self) -> str:
        """One line of progress (what `count --approx` shows while it runs): the estimate so far, its standard
        error, the walks and their rate."""
        from ..output.text import printable

        rate = f"{self.walks / self.seconds:,.0f}/s" if self.seconds else "-"
        what = "first answer" if self.first else "estimate"
        rel = self.relative_error
        share = "" if rel is None or self.exact else f" ({rel:.1%})"
        return (f"{printable(self.puzzle)}: {what} {_number(self.total, self.log10_total)} ± "
                f"{_number(self.stderr, self.log10_stderr)}{share}; {self.walks:,} walks ({rate}), "
                f"{self.reached:,} found solutions; {self.seconds or 0:.0f} s")

    def __str__(self) -> str:
        """What `count --approx` prints: the estimate with its error bar (and interval, where the walks
        support one) or the exact count, how it was had, ApproxMC's count with its guarantee when asked for,
        the derived counts and how they were derived."""
        from ..output.text import printable

        lines = []
        name = printable(self.puzzle)
        if self.total is None:
            lines.append(f"{name}: no walks")
        elif self.exact:
            lines.append(f"{name}: {_number(self.total, self.log10_total)} solutions in all, counted exactly "
                         "(the search is small enough)")
        else:
            state = {"timeout": "cut by --timeout", "interrupted": "interrupted"}.get(self.status)
            lines.append(f"{name}: about {_number(self.total, self.log10_total)} solutions in all ± "
                         f"{_number(self.stderr, self.log10_stderr)} (one standard error, "
                         f"{self.relative_error or 0.0:.1%})" + (f"; {state}, the estimate so far" if state else ""))
            if self.interval is not None:
                low, high = self.interval
                lines.append(f"  95 % confidence interval: [{_number(low, None)}, {_number(high, None)}]")
            elif self.why_no_interval:
                lines.append(f"  no confidence interval: {self.why_no_interval}")
            lines.append(f"  {self.walks:,} walks ({self.reached:,} found solutions) in {self.strata} strata, each "
                         f"counting its subtree exactly from {self.depth} pieces placed; {self.seconds or 0:.1f} s, "
                         f"seed {self.seed}")
        g = self.guarantee
        if g is not None:
            low, high = g.interval
            how = ("exact (ApproxMC needed no random cut)" if g.exact else
                   f"in [{low:,.0f}, {high:,.0f}] with probability >= {1 - g.delta:g} "
                   f"(epsilon {g.epsilon:g}, delta {g.delta:g}, seed {g.seed})")
            lines.append(f"  ApproxMC: {g.count:,} solutions in all, {how}; {g.seconds:.1f} s (predicted "
                         f"{g.predicted:.0f} s)")
        lines += [f"  note: {printable(note)}" for note in self.notes]
        if self.unique_rotation is not None and self.unique_symmetry is not None:
            lines.append(f"  derived: about {_number(self.unique_rotation, None)} up to rotation (total / "
                         f"{self.rotations}), {_number(self.unique_symmetry, None)} up to rotation and reflection "
                         f"(total / {self.symmetries}); exact only when no assembly is symmetric, otherwise more")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.4g}"

        low, high = self.interval or (None, None)
        g = self.guarantee
        return _table(("total (walks)", "± (1 s.e.)", "95 % interval", "ApproxMC", "up to rotation ≈",
                       "up to rotation and reflection ≈"),
                      [(num(self.total), num(self.stderr), f"{num(low)} - {num(high)}",
                        "-" if g is None else f"{g.count} (δ {g.delta:g})", num(self.unique_rotation),
                        num(self.unique_symmetry))])


def _number(value: float | None, log10: float | None) -> str:
    """A count for a person: whole with separators below a billion, else 1.234e+15, and past a double's range
    from its logarithm."""
    from ..output.text import big_number

    if value is None:
        return "-"
    if math.isfinite(value) and value < 1e9:
        return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.3g}"
    return big_number(value, log10) if not math.isfinite(value) else f"{value:.4g}"


def _runner(workers: int, cluster: str | None) -> Runner:
    """Where the walks run: a Dask cluster, forked workers, or this process."""
    from ..search import walks

    if cluster is not None:
        from ..search.cluster import walk_runner

        runner: Runner = walk_runner(cluster)
        return runner
    return walks.forked_runner(workers) if workers > 1 else walks.serial_runner


def _counts(prepared: Prepared, found: WalkEstimate | None, seed: int, numberings: int,
            guarantee: Guaranteed | None, notes: list[str]) -> ApproxCounts:
    from ..search.moments import log10_of

    canon = prepared.canonicalizer
    if found is None:
        return ApproxCounts(prepared.name, None, None, None, False, 0, 0, None, "complete", seed, canon.n_rotations,
                            len(canon.elements), guarantee=guarantee, notes=tuple(notes))
    found = found.per(numberings) if numberings > 1 else found
    interval = None if found.interval is None else (_float(found.interval[0]), _float(found.interval[1]))
    return ApproxCounts(prepared.name, found.solutions, found.stderr, interval, found.exact, found.walks,
                        found.reached, found.seconds, found.status, seed, canon.n_rotations, len(canon.elements),
                        found.strata, found.depth, found.why_no_interval, found.log10,
                        log10_of(found.stderr_scaled), guarantee, tuple(notes), found.pilot)


def _float(x: tuple[float, int]) -> float:
    from ..search.moments import as_float

    return as_float(x)


def count_approx(
    puzzle: Puzzle,
    *,
    seed: int = 1,
    walks: int | None = None,
    seconds: float | None = None,
    precision: float | None = 0.01,
    timeout: float | None = None,
    workers: int = 1,
    cluster: str | None = None,
    journal: PathLike | None = None,
    resume: bool = False,
    guarantee: bool = False,
    epsilon: float = 0.8,
    delta: float = 0.2,
    progress: Callable[[str], object] | None = None,
    on_estimate: Callable[[ApproxCounts], object] | None = None,
) -> ApproxCounts:
    """The total number of assemblies without enumerating them: Knuth's random walks of the dlx engine's
    tree, each descending at random until the subtree under it is small and then counting that subtree
    exactly (unbiased; stratified over the key piece's placements, split further, each weighted by its
    orbit), with a standard error and, where the walks support it, a 95 % confidence interval. A search
    small enough is counted exactly instead.

    The walks stop after `walks` walks, `seconds` of walking, once the relative standard error is at most
    `precision` (looked at as each round of walks ends), or at `timeout` (status "timeout": the walks
    running then count for nothing), whichever comes first; Ctrl-C stops them with the estimate so far
    (status "interrupted"). They run on `workers` forked processes, or on the Dask `cluster` (as
    `run(cluster=...)`), and give the same estimate for the same `seed` however many run them. A `journal`
    (a new file; with `resume`, one made before) keeps the plan and every walk done, so a stopped estimate
    goes on, or a finished one is refined. `on_estimate` sees each new estimate as it comes (the first one
    from a short pilot, within a second or so on most puzzles); `progress` gets one-line reports.

    `guarantee` adds ApproxMC's count of the sat backend's CNF projected on the placement variables
    (within a factor 1 + `epsilon` with probability at least 1 - `delta`; the extra `cpsolve[approx]`),
    after the walks (which then get a quarter of `timeout`): its time is predicted from the walks' count
    and stated (`progress`) before it starts, and it is not run when the prediction passes what is left of
    `timeout` (a note says so, status "timeout"). A chain has no walks (its joints are not exact cover):
    ApproxMC counts it (then past the timeout it is an error, exit code 3).

    >>> a = cpsolve.count_approx(cpsolve.load("soma"))
    >>> a.total, a.exact, a.stderr, a.rotations
    (11520.0, True, 0.0, 24)
    """
    from ..search import walks as walking

    check_timeout(timeout)
    check_timeout(seconds, "seconds")
    if walks is not None and walks < 0:
        raise CpsolveError(f"must be >= 0, not {walks}", field="walks")
    if precision is not None and not 0 < precision < 1:
        raise CpsolveError(f"must be between 0 and 1 (a relative standard error), not {precision}", field="precision")
    if guarantee:
        from ..search.approx import check_parameters

        check_parameters(epsilon, delta)
    began = time.time()
    deadline = None if timeout is None else began + timeout
    prepared = _prepared(puzzle, True, workers)
    problem, broken = prepared.problem, prepared.broken
    numberings = 1 + len(problem.label_symmetries)
    notes: list[str] = []
    found: WalkEstimate | None = None
    if problem.side_clauses:
        notes.append("no walks for a chain (its joints are not exact cover): ApproxMC counts it")
        guarantee = True
    else:
        book = None
        plan = None
        restored: list[tuple[walking.Unit, Moments]] = []
        others = ((Path(puzzle.origin), "the puzzle file"),) if puzzle.origin else ()
        if journal is not None:
            from ..search.walk_journal import WalkJournal

            if resume and Path(journal).exists():
                book, plan, restored = WalkJournal.resume(Path(journal), broken, seed, others)
                if progress is not None:
                    progress(f"resuming {len(restored)} units of walks from the journal")
            else:
                WalkJournal.check_new(Path(journal), others)

        def made(new_plan: walking.WalkPlan) -> None:
            nonlocal book
            if journal is not None and book is None:
                from ..search.walk_journal import WalkJournal

                book = WalkJournal.start(Path(journal), broken, prepared.name, seed, new_plan, others)

        walk_deadline = deadline
        if guarantee and timeout is not None:
            walk_deadline = began + timeout / 4
        stop = walking.Stop(walks=walks, seconds=seconds, precision=precision, deadline=walk_deadline)

        def update(e: WalkEstimate) -> None:
            if on_estimate is not None:
                on_estimate(_counts(prepared, e, seed, numberings, None, []))

        def record(unit: walking.Unit, walked: Moments) -> None:
            if book is not None:
                book.record(unit, walked)

        try:
            found = walking.estimate_walks(
                broken.problem, broken, seed, stop, _runner(workers, cluster), update, progress, plan, restored,
                0.0 if book is None else book.seconds, made, record)
        finally:
            if book is not None:
                book.close(found.seconds - book.seconds if found is not None else 0.0)
        if found.status == "timeout" and guarantee:
            found = replace(found, status="complete")  # the walks' share of the time, as planned
    counted = None
    if guarantee and (found is None or found.status != "interrupted"):
        answer = _guarantee(prepared, found, epsilon, delta, seed, deadline, workers, numberings, progress)
        if isinstance(answer, str):
            notes.append(answer)
            if found is not None:
                found = replace(found, status="timeout")
        else:
            counted = answer
    return _counts(prepared, found, seed, numberings, counted, notes)


def _guarantee(prepared: Prepared, found: WalkEstimate | None, epsilon: float, delta: float, seed: int,
               deadline: float | None, workers: int, numberings: int, progress: Callable[[str], object] | None
               ) -> Guaranteed | str:
    """ApproxMC over the key's parts, each CNF made where it is counted; its time predicted and stated first,
    and refused past the deadline (the reason, when the walks answer instead; an error, when nothing does)."""
    from functools import partial

    from ..search.approx import TIMEOUT_EXIT, part_cnf, predicted_seconds, split_count

    broken = prepared.broken
    weights = broken.weights or (1,)
    counts = dict(found.parts) if found is not None else {}
    starts = [tuple(s) for s in broken.starts]
    per_part: list[float | None] = [counts.get(s[:1]) if found is not None else None for s in starts]
    if found is not None and not broken.key_rows:
        per_part = [sum(counts.values())]
    predicted = predicted_seconds(broken.problem, starts, per_part, epsilon, delta, workers)
    left = None if deadline is None else deadline - time.time()
    if progress is not None:
        progress(f"ApproxMC: {len(starts)} part(s), about {_duration(predicted)} predicted "
                 f"(from the parts' size and the walks' count: rough, within a factor 2 where measured)")
    if left is not None and predicted > left:
        refused = (f"ApproxMC would take about {_duration(predicted)} here, more than the {_duration(max(left, 0.0))} "
                   "left of --timeout: not run")
        if found is None:  # nothing else to answer with
            raise CpsolveError(refused, field="guarantee", exit_code=TIMEOUT_EXIT)
        return refused

    def part_done(done: int, of: int) -> None:
        if progress is not None:
            progress(f"ApproxMC: {done} of {of} parts counted")

    parts = [(partial(part_cnf, broken.problem, s), w) for s, w in zip(starts, weights, strict=True)]
    c = split_count(parts, epsilon, delta, seed, left, workers, part_done)
    low, high = c.interval
    return Guaranteed(c.count // numberings, (low / numberings, high / numberings), c.is_exact, epsilon, delta, seed,
                      c.seconds, predicted, c.parts)


def _duration(seconds: float) -> str:
    from ..output.text import duration

    return duration(seconds)


def sample(puzzle: Puzzle, n: int, *, seed: int = 1, timeout: float | None = None, workers: int = 1,
           guarantee: bool = False, progress: Callable[[str], object] | None = None) -> Iterator[Solution]:
    """`n` random assemblies, drawn one after another (an iterator: a million draws are never all held). Each
    is the assembly as drawn (a rotation of its class's representative chosen at random); its `index`
    numbers its class (up to rotation and reflection) in the order the sample first meets it, `id` is
    the class's stable id (as `enumerate` gives it), `assemblies` and `mirror_distinct` describe the
    class, so `as_line()` writes the solutions file `cpsolve sample` writes, and `found_by` names the
    method that drew it:

    - "enumeration": exactly uniform, from every solution (when the search fits in the time given: half of
      `timeout`, or SAMPLE_ENUMERATE_SECONDS, and the solutions in memory);
    - "walks": a key part chosen with probability in proportion to its estimated count (the walks'), then a
      uniform solution of it by rejection from walks with exact tails (uniform within the part whenever no
      walk passed the bound the estimate set; the summary says how many did);
    - "unigen" (`guarantee`): UniGen on the sat backend's CNF projected on the placement variables (near-
      uniform with its guarantee; the extra `cpsolve[approx]`; slow beyond small puzzles).

    Draws are independent: an assembly may repeat. `timeout` raises CpsolveError (exit code 3) after the
    draws made so far were given out. `progress` gets one-line reports.

    >>> drawn = list(cpsolve.sample(cpsolve.load("slothouber-graatsma"), 3, seed=2))
    >>> len(drawn), {s.index for s in drawn}, drawn[0].assemblies, drawn[0].found_by
    (3, {0}, 8, 'enumeration')
    """
    if n < 1:
        raise CpsolveError(f"must be at least 1, not {n}", field="n")
    check_timeout(timeout)
    deadline = None if timeout is None else time.time() + timeout
    prepared = _prepared(puzzle, True, workers)
    return _drawn(puzzle, prepared, n, seed, deadline, workers, guarantee, progress)


def _drawn(puzzle: Puzzle, prepared: Prepared, n: int, seed: int, deadline: float | None, workers: int,
           guarantee: bool, progress: Callable[[str], object] | None) -> Iterator[Solution]:
    """`sample`'s draws as `Solution`s, each class numbered as the sample meets it."""
    from ..output.solutions import labelled
    from ..problem.canonical import class_id
    from ..search.sampling import draws

    problem = prepared.problem
    classes: dict[str, int] = {}
    try:
        for draw in draws(prepared, n, seed, deadline, workers, guarantee, progress):
            forms = prepared.canonicalizer.forms(problem, draw.rows)
            cid = class_id(forms.symmetry_key)
            index = classes.setdefault(cid, len(classes))
            yield Solution(prepared.name, _frozen(labelled(problem, draw.placements)), index,
                           forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                           found_by=draw.method, id=cid)
    except CpsolveError as exc:  # a limit (--max-literals) met by the puzzle: its file is what is too big
        if exc.where is not None or exc.exit_code != 2:
            raise
        raise exc.located(puzzle.origin or puzzle.name) from None
