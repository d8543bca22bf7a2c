"""Progress of long runs on stderr: a live line on a terminal, a line every few seconds in a log.

Stdout stays clean for results (`--json` prints exactly one object there).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..search.result import EnumerationResult


class StderrProgress:
    def __init__(self, stream: TextIO | None = None, log_every: float = 10.0):
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.log_every = log_every
        self.last_log = time.monotonic()
        self.start = time.monotonic()
        self.shown = False

    def __call__(self, result: EnumerationResult) -> None:
        now = time.monotonic()
        if not self.live and now - self.last_log < self.log_every:
            return
        self.last_log = now
        t = result.tally
        text = (
            f"{result.puzzle}: {t.found} solutions found, {t.unique_rotation} up to rotation, "
            f"{t.unique_symmetry} up to symmetry; subproblem {min(result.subproblems_done + 1, result.subproblems)}"
            f"/{result.subproblems}; {now - self.start:.1f} s"
        )
        if self.live:
            self.stream.write("\r\x1b[2K" + text)
            self.shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Clear the live line so the summary starts on a clean line."""
        if self.live and self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
