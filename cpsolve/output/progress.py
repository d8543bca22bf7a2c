"""Progress of long runs on stderr: a live bar on a terminal, a plain line every few seconds in a log.

Stdout stays clean for results (`--json` prints exactly one object there). Both show the same facts:
subproblems done of all, solutions found and classes, the rate, the time so far and the time left.
The time left comes from the subproblems' estimated sizes (Knuth's tree estimate, `search/estimate.py`),
not from their number: parts differ in size by orders of magnitude, so "12 of 40 done" says little.

The bar is rich's (which typer already installs): it redraws itself from its own thread, so the
elapsed time moves even while no solution arrives.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..search.result import EnumerationResult
from .text import printable


def clock(seconds: float | None) -> str:
    """1:02:03 / 2:03 style; "?" when unknown."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def status_text(result: EnumerationResult, elapsed: float, short: bool = False) -> str:
    """The facts of one progress report, as one line (`short`: to fit beside the bar in 80 columns)."""
    t = result.tally
    rate = f"{(t.found - result.resumed_found) / elapsed:,.0f}/s" if elapsed > 0 else "-"
    parts = f"{result.subproblems_done}/{result.subproblems}"
    if short:
        return f"{parts} parts · {t.found:,} found ({rate}) · {t.unique_symmetry:,} classes"
    return f"{parts} subproblems; {t.found:,} solutions found ({rate}), {t.unique_symmetry:,} up to symmetry"


class PlainProgress:
    """A line every `every` seconds (a log file, a pipe, CI)."""

    def __init__(self, stream: TextIO | None = None, every: float = 5.0):
        self.stream = stream or sys.stderr
        self.every = every
        self.start = self.last = time.monotonic()

    def __call__(self, result: EnumerationResult) -> None:
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        elapsed = now - self.start
        self.stream.write(f"{printable(result.puzzle)}: {status_text(result, elapsed)}; {clock(elapsed)} elapsed, "
                          f"{clock(result.eta(elapsed))} left\n")
        self.stream.flush()

    def close(self) -> None:
        pass


class BarProgress:
    """rich's live bar: the share of the estimated work done, the facts, elapsed and left."""

    def __init__(self, stream: TextIO | None = None):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

        self.start = time.monotonic()
        self.bar = Progress(
            BarColumn(bar_width=12), TaskProgressColumn(), TextColumn("{task.fields[facts]}"),
            TimeElapsedColumn(), TextColumn("ETA {task.fields[left]}"),
            console=Console(file=stream or sys.stderr), transient=True, refresh_per_second=2,
        )
        self.task: Any = None

    def __call__(self, result: EnumerationResult) -> None:
        elapsed = time.monotonic() - self.start
        work = result.work or result.subproblems
        done = min(result.work_done, 0.99 * work) if result.work else result.subproblems_done
        facts, left = status_text(result, elapsed, short=True), clock(result.eta(elapsed))
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task(result.puzzle, total=work, facts=facts, left=left)
        self.bar.update(self.task, total=work, completed=done, facts=facts, left=left)

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()


def make_progress(stream: TextIO | None = None) -> PlainProgress | BarProgress:
    """The bar on a terminal, plain lines elsewhere."""
    stream = stream or sys.stderr
    return BarProgress(stream) if stream.isatty() else PlainProgress(stream)
