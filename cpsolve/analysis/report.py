"""Every built-in model's counts beside its reference figures (`cpsolve report`).

Each row says which command reproduces it, so a reader can rerun any single number; the table
itself is rendered by `cpsolve.output.tables` and written by `cpsolve report`, never by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..problem.canonical import counts_text
from ..puzzle.catalog import load
from ..search.backends import SearchStats, Status, for_problem
from ..search.enumeration import enumerate_classes, first_solution, prepare
from ..search.settings import RunSettings


@dataclass(frozen=True)
class ReportRow:
    model: str
    mode: str
    """'enumerate' (all three counts) or 'solve' (only solvability is known)."""
    total: int | None
    unique_rotation: int | None
    unique_symmetry: int | None
    reference: str
    matches: bool
    backend: str
    seconds: float
    status: str
    source: str
    command: str

    @property
    def finished(self) -> bool:
        """The run went to the end (complete enumeration, or a solve that found or refuted a
        solution): only then does a difference from the reference mean a wrong count."""
        return self.status in (Status.COMPLETE.value, Status.STOPPED.value) or (self.mode == "solve" and self.matches)


def run_model(model: str, backend_spec: str, timeout: float | None = None, workers: int = 1,
              began: float | None = None) -> ReportRow:
    """One model's row; `timeout` counts from `began` (default now) and covers loading and preparing
    the model too, so that a row ends within it."""
    began = time.time() if began is None else began
    puzzle = load(model)
    prepared = prepare(puzzle)
    backend = for_problem(backend_spec, prepared.problem)
    ref = puzzle.reference
    counts = ref.counts() if ref else (None, None, None)
    if timeout is not None:
        timeout = max(timeout - (time.time() - began), 1e-3)
    if ref is not None and ref.solvable and not any(counts):
        start = time.perf_counter()
        try:
            rows, stats = first_solution(prepared, backend, timeout)
        except KeyboardInterrupt:  # like an enumeration: the row says so and the report ends after it
            rows, stats = None, SearchStats(backend.label, Status.INTERRUPTED)
        solved = rows is not None and prepared.broken.problem.check_solution(rows) is None
        return ReportRow(
            model, "solve", None, None, None, "solvable", solved, backend.label,
            round(time.perf_counter() - start, 3), stats.status.value, ref.source,
            f"cpsolve solve {model} --backend {backend.label}",
        )
    result = enumerate_classes(prepared, RunSettings(backend, timeout=timeout, workers=workers))
    got = (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry)
    complete = result.status == Status.COMPLETE
    return ReportRow(
        model, "enumerate", *got,
        counts_text(counts) if ref else "none",
        complete and all(c is None or c == g for c, g in zip(counts, got, strict=True)),
        backend.label, round(result.seconds, 3), result.status.value,
        ref.source if ref else "",
        f"cpsolve enumerate {model} --backend {backend.label} --workers {workers} --json --no-save",
    )


def run_report(models: Sequence[str], backend_spec: str, timeout: float | None,
               workers: int = 1, on_row: Callable[[ReportRow], None] | None = None,
               started: float | None = None) -> list[ReportRow]:
    """Each model in turn; a Ctrl-C (or SIGTERM) ends the report after the row it interrupted."""
    rows = []
    for model in models:
        row = run_model(model, backend_spec, timeout, workers, started)
        started = None  # the first row's clock started with the command (`started`), the others now
        rows.append(row)
        if on_row is not None:
            on_row(row)
        if row.status == Status.INTERRUPTED.value:
            break
    return rows
