"""Run a function in a forked child and measure it alone: its result, CPU seconds, wall seconds, peak memory.

Comparing backends in one process would charge each with the memory high-water mark of the ones
before it (ru_maxrss never goes down) and let one backend's caches warm the next. A forked child
per measurement, reaped with `os.wait4`, gives each figure to exactly one run.

The child never outlives the parent: it asks the kernel for SIGKILL when the parent dies
(`PR_SET_PDEATHSIG`, as the enumeration's workers do), the parent passes a stop on to it (SIGTERM
or SIGHUP reach only the parent, Ctrl-C the whole process group), and a child that overruns its
time (`limit`) is stopped, then killed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .pool import die_with_parent, forked_child_signals

GRACE = 2.0
"""Seconds a child may take to return what it has after being asked to stop, before SIGKILL."""


@dataclass(frozen=True)
class Usage:
    cpu_seconds: float
    """User + system CPU of the child and of any workers it started and reaped."""
    wall_seconds: float
    peak_mb: float
    overran: bool = False
    """The child was still running at its time limit and was stopped from outside."""


class Overrun(RuntimeError):
    """The child ran past its time limit and did not stop when asked: it was killed."""


class ChildDied(RuntimeError):
    """The child ended without a result (killed from outside, by the out-of-memory killer, a crash)."""


def run_isolated(fn: Callable[[], Any], limit: float | None = None) -> tuple[Any, Usage]:
    """`fn()` evaluated in a forked child; its exception, if any, is re-raised here.

    A stop (Ctrl-C, or SIGTERM/SIGHUP turned into KeyboardInterrupt here) is passed to the child as
    SIGINT; the child then returns what it has, so the caller still sees results found so far, and
    the KeyboardInterrupt is re-raised once they are in. After `limit` seconds the child is asked to
    stop the same way; if it has not answered GRACE seconds after a stop, it is killed (`Overrun`).
    """
    read_fd, write_fd = os.pipe()
    start = time.perf_counter()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        _child(fn, write_fd, parent)
    os.close(write_fd)
    chunks: list[bytes] = []
    interrupted = overran = False
    phase = "running"  # then "asked" (SIGINT sent), then "killed" (SIGKILL sent)
    act_at = None if limit is None else start + limit

    def escalate() -> float | None:
        nonlocal phase
        if phase == "running":
            phase = "asked"
            _signal(pid, signal.SIGINT)
            return time.perf_counter() + GRACE
        phase = "killed"
        _signal(pid, signal.SIGKILL)
        return None

    try:
        while True:
            try:
                wait = None if act_at is None else max(0.0, act_at - time.perf_counter())
                ready, _, _ = select.select([read_fd], [], [], wait)
                if not ready:
                    overran = overran or phase == "running"
                    act_at = escalate()
                    continue
                data = os.read(read_fd, 1 << 16)
                if not data:
                    break
                chunks.append(data)
            except KeyboardInterrupt:
                interrupted = True
                act_at = escalate()
    finally:
        os.close(read_fd)
        if phase == "killed":
            chunks.clear()  # a killed child may have written half a result
        _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    measured = Usage(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, overran and not interrupted)
    payload = b"".join(chunks)
    if not payload:
        if interrupted:
            raise KeyboardInterrupt
        if overran:
            raise Overrun(f"the measured process ran past its time limit of {limit:g} s and {_how(status)}")
        raise ChildDied(f"the measured process {_how(status)}")
    ok, value = pickle.loads(payload)
    if not ok and isinstance(value, KeyboardInterrupt) and not interrupted:
        raise Overrun(f"the measured process ran past its time limit of {limit:g} s and was stopped")
    if not ok:
        raise value
    return value, measured


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        return f"was killed by {name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)} without a result"


def _child(fn: Callable[[], Any], write_fd: int, parent: int) -> None:
    code = 0
    try:
        forked_child_signals()
        die_with_parent(parent)
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
    except BaseException:  # noqa: BLE001 - a forked child must never return into the parent's code
        code = 1
    os._exit(code)
