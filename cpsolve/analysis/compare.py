"""`cpsolve compare`: the same model on several backends, measured alike, and their counts checked.

Each backend runs in its own forked process (see `isolate`), once, for the full enumeration, so time,
CPU and peak memory belong to that backend alone; the time to the first solution is that run's, so
it is never more than the time for all (a separate first-solution run paid the backend's start, such
as loading OR-Tools, and showed CP-SAT's first solution after all of them: 1.18 s against 0.47 s on
soma). Counts of complete runs must agree; the odd one out is named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from ..problem.canonical import counts_text
from ..puzzle.model import Puzzle
from ..search.backends import BackendUnavailable, Status, for_problem
from ..search.enumeration import Prepared, enumerate_classes, prepare
from ..search.isolate import ChildDied, Overrun, run_isolated
from ..search.settings import RunSettings

GRACE = 2.0
"""Seconds beyond its run's timeout after which a measured child is stopped from outside: a backend
that does not honour its deadline cannot hold up the comparison."""


@dataclass(frozen=True)
class CompareRow:
    puzzle: str
    backend: str
    status: str
    """complete, timeout, interrupted, unsupported or failed (then `note` says why)."""
    first_seconds: float | None
    all_seconds: float | None
    cpu_seconds: float | None
    peak_mb: float | None
    total: int | None = None
    unique_rotation: int | None = None
    unique_symmetry: int | None = None
    workers: int = 1
    note: str = ""

    @property
    def counts(self) -> tuple[int | None, int | None, int | None]:
        return (self.total, self.unique_rotation, self.unique_symmetry)

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def _run(prepared: Prepared, spec: str, timeout: float | None, workers: int) -> dict[str, object]:
    """In the measured child: every solution, and when the first came."""
    backend = for_problem(spec, prepared.problem)
    result = enumerate_classes(prepared, RunSettings(backend, timeout=timeout, workers=workers))
    return {
        "backend": backend.label,
        "first": result.first_solution_seconds,
        "all": result.seconds,
        "status": result.status.value,
        **result.counts(),
    }


def measure(puzzle: Puzzle, spec: str, timeout: float | None, workers: int = 1) -> CompareRow:
    """One backend on one puzzle, alone in a forked child; a backend that cannot run it is a row too."""
    name = puzzle.name
    prepared = prepare(puzzle)
    try:
        for_problem(spec, prepared.problem)
    except BackendUnavailable as exc:
        return CompareRow(name, spec, "unsupported", None, None, None, None, workers=workers, note=exc.message)
    limit = None if timeout is None else timeout + GRACE
    try:
        out, usage = run_isolated(lambda: _run(prepared, spec, timeout, workers), limit)
    except Overrun as exc:
        return CompareRow(name, spec, Status.TIMEOUT.value, None, None, None, None, workers=workers, note=str(exc))
    except ChildDied as exc:
        return CompareRow(name, spec, "failed", None, None, None, None, workers=workers, note=str(exc))
    status = out["status"]
    if usage.overran and status == Status.INTERRUPTED.value:
        status = Status.TIMEOUT.value  # stopped from outside at its limit, not by the user
    complete = status == Status.COMPLETE.value
    counts = (out["total"], out["unique_rotation"], out["unique_symmetry"]) if complete else (None, None, None)
    return CompareRow(
        name, str(out["backend"]), str(status),
        None if out["first"] is None else round(float(out["first"]), 4),
        round(float(out["all"]), 4), round(usage.cpu_seconds, 3), round(usage.peak_mb, 1),
        total=counts[0], unique_rotation=counts[1], unique_symmetry=counts[2], workers=workers,
    )


def disagreement(rows: list[CompareRow], reference: tuple[int | None, int | None, int | None] | None) -> str | None:
    """Why the complete rows' counts are inconsistent (naming the backend at fault), or None.

    The model's reference counts decide when it has them; otherwise the majority does, and with
    no majority every backend is named.
    """
    done = [r for r in rows if r.status == Status.COMPLETE.value]
    if reference is not None and any(v is not None for v in reference):
        wrong = [r for r in done
                 if any(want is not None and want != got for want, got in zip(reference, r.counts, strict=True))]
        if wrong:
            return "; ".join(f"{r.backend} counts {counts_text(r.counts)} but the reference is {counts_text(reference)}"
                             for r in wrong)
        return None
    tally = Counter(r.counts for r in done)
    if len(tally) <= 1:
        return None
    (majority, n), *_ = tally.most_common()
    if n * 2 > len(done):
        return "; ".join(f"{r.backend} counts {counts_text(r.counts)}, the others {counts_text(majority)}"
                         for r in done if r.counts != majority)
    return "backends disagree: " + "; ".join(f"{r.backend} {counts_text(r.counts)}" for r in done)
