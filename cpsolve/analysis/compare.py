"""`cpsolve compare`: the same model on several backends, measured alike, and their counts checked.

Each backend runs in its own forked process (see `isolate`), first for one solution (what
`cpsolve solve` does), then for the full enumeration, so time, CPU and peak memory belong to that
backend alone. Counts of complete runs must agree; the odd one out is named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from ..problem.canonical import counts_text
from ..puzzle.model import Puzzle
from ..search.backends import BackendUnavailable, Status, for_problem
from ..search.enumeration import Prepared, enumerate_classes, first_solution, prepare
from ..search.isolate import run_isolated


@dataclass(frozen=True)
class CompareRow:
    puzzle: str
    backend: str
    status: str
    """complete, timeout, interrupted, or unsupported (then `note` says why)."""
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
    """In the measured child: first solution, then every solution."""
    backend = for_problem(spec, prepared.problem)
    _, first = first_solution(prepared, backend, timeout)
    result = enumerate_classes(prepared, backend, timeout=timeout, workers=workers)
    return {
        "backend": backend.label,
        "first": first.first_solution_seconds,
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
    out, usage = run_isolated(lambda: _run(prepared, spec, timeout, workers))
    complete = out["status"] == Status.COMPLETE.value
    return CompareRow(
        name, str(out["backend"]), str(out["status"]),
        None if out["first"] is None else round(float(out["first"]), 4),
        round(float(out["all"]), 4), round(usage.cpu_seconds, 3), round(usage.peak_mb, 1),
        *((out["total"], out["unique_rotation"], out["unique_symmetry"]) if complete else (None, None, None)),
        workers=workers,
    )


def disagreement(rows: list[CompareRow], reference: tuple[int | None, int | None, int | None] | None) -> str | None:
    """Why the complete rows' counts are inconsistent (naming the backend at fault), or None.

    The model's reference counts decide when it has them; otherwise the majority does, and with
    no majority every backend is named.
    """
    done = [r for r in rows if r.status == Status.COMPLETE.value]
    if reference is not None and any(v is not None for v in reference):
        wrong = [r for r in done if any(want is not None and want != got for want, got in zip(reference, r.counts))]
        if wrong:
            return "; ".join(f"{r.backend} counts {counts_text(r.counts)} but the reference is {counts_text(reference)}" for r in wrong)
        return None
    tally = Counter(r.counts for r in done)
    if len(tally) <= 1:
        return None
    (majority, n), *_ = tally.most_common()
    if n * 2 > len(done):
        return "; ".join(f"{r.backend} counts {counts_text(r.counts)}, the others {counts_text(majority)}"
                         for r in done if r.counts != majority)
    return "backends disagree: " + "; ".join(f"{r.backend} {counts_text(r.counts)}" for r in done)
