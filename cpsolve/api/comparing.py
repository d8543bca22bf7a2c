"""Backends side by side on one puzzle (`compare`), and every built-in model against its published counts
(`report`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import _table

if TYPE_CHECKING:
    from ..analysis.compare import CompareRow
    from ..analysis.report import ReportRow


@dataclass(frozen=True)
class Comparison:
    """Backends side by side on one puzzle (`cpsolve compare`): one row per backend."""

    puzzle: str
    rows: tuple[CompareRow, ...]
    reference: tuple[int | None, int | None, int | None] | None = None
    """The puzzle's published counts, when its file has them."""

    @property
    def disagreement(self) -> str | None:
        """Why the finished rows' counts are inconsistent (naming the backend at fault), or None."""
        from ..analysis.compare import disagreement

        return disagreement(list(self.rows), self.reference)

    def check(self) -> None:
        """Raise `CpsolveError` (exit code 1) when counts disagree or a backend failed."""
        if (problem := self.disagreement) is not None:
            raise CpsolveError(problem, where=self.puzzle, exit_code=1)
        failed = [f"{r.backend}: {r.note}" for r in self.rows if r.status == "failed"]
        if failed:
            raise CpsolveError("; ".join(failed), where=self.puzzle, exit_code=1)

    def _repr_html_(self) -> str:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"

        return _table(
            ("backend", "status", "first (s)", "all (s)", "cpu (s)", "peak MB", "total", "up to rotation",
             "up to rotation and reflection"),
            [(r.backend, r.status if not r.note else f"{r.status}: {r.note}", num(r.first_seconds),
              num(r.all_seconds), num(r.cpu_seconds), "-" if r.peak_mb is None else f"{r.peak_mb:.0f}",
              *("-" if c is None else str(c) for c in r.counts)) for r in self.rows])


def compare(
    puzzle: Puzzle,
    backends: Sequence[str] = ("cpsat", "sat", "dlx"),
    *,
    timeout: float | None = None,
    workers: int = 1,
    on_row: Callable[[CompareRow], object] | None = None,
) -> Comparison:
    """Run the puzzle on each backend, alone in a child process: time to the first and to all
    solutions, CPU, peak memory, counts. Unknown names raise before anything runs; a backend that
    cannot run here is a row saying so. `on_row` sees each row as soon as it is measured. Call
    `check()` on the result to raise when the counts disagree.

    >>> c = cpsolve.compare(cpsolve.load("slothouber-graatsma"), ["dlx", "python"])
    >>> [(r.backend, r.status, r.counts) for r in c.rows]
    [('dlx', 'complete', (8, 1, 1)), ('python', 'complete', (8, 1, 1))]
    >>> c.check()
    >>> cpsolve.compare(cpsolve.load("soma"), ["dlx", "nope"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    cpsolve.search.backends.base.BackendUnavailable: backend: unknown backend 'nope' (known: auto, ...)
    """
    from ..analysis.compare import measure
    from ..search.backends import backend_class, get_backend

    specs = [b.strip() for b in backends if b.strip()]
    if not specs:
        raise CpsolveError("give at least one backend (known: see `cpsolve backends`)", field="backends")
    for spec in specs:  # checked before anything runs, by the rules of `backend=`
        if backend_class(spec.partition(":")[0]).supported():
            get_backend(spec)
    rows: list[CompareRow] = []
    for spec in specs:
        row = measure(puzzle, spec, timeout, workers)
        rows.append(row)
        if on_row is not None:
            on_row(row)
        if row.status == "interrupted":
            break
    ref = puzzle.reference
    return Comparison(puzzle.name, tuple(rows), ref.counts() if ref else None)


@dataclass(frozen=True)
class Report:
    """Built-in models run and set beside their published counts (`cpsolve report`)."""

    rows: tuple[ReportRow, ...]
    models: tuple[str, ...]
    """The models asked for."""
    everything: bool
    """Every built-in model was asked for and each row ran to the end: only such a report replaces the
    tracked table `results/counts.md`."""

    @property
    def mismatches(self) -> list[ReportRow]:
        """Finished rows whose counts differ from the reference: a wrong count somewhere."""
        return [r for r in self.rows if r.finished and not r.matches]

    def markdown(self, command: str) -> str:
        from ..output.tables import render_markdown

        return render_markdown(list(self.rows), command)

    def json(self, command: str) -> str:
        from ..output.tables import render_json

        return render_json(list(self.rows), command)


def report(models: Sequence[str] = (), *, backend: str = "auto", workers: int = 1, timeout: float | None = None,
           on_row: Callable[[ReportRow], object] | None = None, started: float | None = None) -> Report:
    """Run the built-in `models` (all of them when none is named) and compare each with its reference
    counts; `timeout` (seconds) is per model, the first counted from `started` (a `time.time()`, default
    now). Ctrl-C ends the report after the row it interrupted.

    >>> done = cpsolve.report(["soma", "slothouber-graatsma"])
    >>> [(r.model, r.total, r.matches) for r in done.rows], done.everything
    ([('soma', 11520, True), ('slothouber-graatsma', 8, True)], False)"""
    from ..analysis.report import run_report
    from ..puzzle.catalog import builtin_names

    names = list(models) or builtin_names()
    rows = run_report(names, backend, timeout, workers, on_row, started=started)  # type: ignore[arg-type]
    everything = not models and len(rows) == len(names) and all(r.finished for r in rows)
    return Report(tuple(rows), tuple(names), everything)
