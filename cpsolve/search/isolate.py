"""Run a function in a forked child and measure it alone: its result, CPU seconds, wall seconds, peak memory.

Comparing backends in one process would charge each with the memory high-water mark of the ones
before it (ru_maxrss never goes down) and let one backend's caches warm the next. A forked child
per measurement, reaped with `os.wait4`, gives each figure to exactly one run.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    cpu_seconds: float
    """User + system CPU of the child and of any workers it started and reaped."""
    wall_seconds: float
    peak_mb: float


def run_isolated(fn: Callable[[], Any]) -> tuple[Any, Usage]:
    """`fn()` evaluated in a forked child; its exception, if any, is re-raised here.

    Ctrl-C reaches the child too (same process group); the child then returns what it has, so
    the caller still sees results found so far.
    """
    read_fd, write_fd = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        _child(fn, write_fd)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        try:
            payload = pipe.read()
        except KeyboardInterrupt:
            payload = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    measured = Usage(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)
    if not payload:
        raise RuntimeError(f"measurement process died (wait status {status})")
    ok, value = pickle.loads(payload)
    if not ok:
        raise value
    return value, measured


def _child(fn: Callable[[], Any], write_fd: int) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        out = (True, fn())
    except BaseException as exc:  # noqa: BLE001 - shipped to the parent, which re-raises it
        out = (False, exc)
    try:
        data = pickle.dumps(out)
    except Exception as exc:  # noqa: BLE001 - an unpicklable exception still has a message
        data = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
    with os.fdopen(write_fd, "wb") as pipe:
        pipe.write(data)
    os._exit(0)
