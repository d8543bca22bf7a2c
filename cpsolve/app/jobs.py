"""The runs of the workbench: one worker process each (`worker.py`), their events, stop and shutdown.

A run outlives the tab that started it: the server owns it, and a page that opens again sees it
(`snapshot`). Stopping a run sends SIGINT, which the worker answers as the command line answers
Ctrl-C (classes committed, journal kept, counts so far reported). Stopping the server stops every
run that way and waits for each to write what it found (`shutdown`): nothing the command line would
keep is lost, and no process is left behind (a worker that does not end within GRACE is killed, and
its own workers die with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CpsolveError

MAX_RUNNING = 4
"""Runs at once: each takes its own workers, and the machine has only so many cores."""
MAX_KEPT = 50
"""Finished runs remembered for the page (their files stay in the folder regardless)."""
GRACE = 20.0
"""Seconds a stopped worker gets to commit its journal and write its solutions before it is killed."""
LINE_LIMIT = 64 * 1024 * 1024
"""Longest event line read from a worker (a disassembly's 3-D data can run to megabytes)."""
NOTES = 50
"""Notes and stderr lines kept per run."""


@dataclass
class Job:
    id: str
    action: str
    title: str
    out: str | None
    """The solutions file (relative to the folder) an enumeration writes, for the browser."""
    started: float = field(default_factory=time.time)
    state: str = "starting"
    """starting, running, done (finished or stopped: `status` says which), error."""
    status: str | None = None
    """As the command line's --json says it: complete, stopped, timeout, interrupted."""
    progress: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    text: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """What a run hands back besides its result: a found solution's cells, a disassembly's 3-D data."""
    notes: deque[str] = field(default_factory=lambda: deque(maxlen=NOTES))
    ended: float | None = None
    process: asyncio.subprocess.Process | None = field(default=None, repr=False)
    stop_asked: bool = False

    def snapshot(self, full: bool = False) -> dict[str, Any]:
        out = {"id": self.id, "action": self.action, "title": self.title, "out": self.out, "state": self.state,
               "status": self.status, "progress": self.progress, "result": self.result, "text": self.text,
               "error": self.error, "notes": list(self.notes), "started": self.started, "ended": self.ended,
               "stopping": self.stop_asked and self.state == "running"}
        if full:
            out["extra"] = self.extra
        return out


class Jobs:
    """Every run of this server, in the folder it serves."""

    def __init__(self, folder: Path, limits: dict[str, int]) -> None:
        self.folder = folder
        self.limits = limits
        self.jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.state in ("starting", "running")]

    def get(self, job_id: str) -> Job:
        if job_id not in self.jobs:
            raise CpsolveError("no such run", where=job_id[:40])
        return self.jobs[job_id]

    async def start(self, spec: dict[str, Any], title: str, out: str | None) -> Job:
        """Start a worker on `spec` (worker.py's job); it runs in the folder, as a command run there would."""
        if len(self.running()) >= MAX_RUNNING:
            raise CpsolveError(f"{MAX_RUNNING} runs are going already: stop one first", field="action")
        if out is not None and any(j.out == out for j in self.running()):
            raise CpsolveError("a run writing this solutions file is going already", where=out)
        job = Job(str(next(self._ids)), str(spec["action"]), title, out)
        self.jobs[job.id] = job
        self._forget_old()
        # Started from the event loop's thread: the worker's PR_SET_PDEATHSIG watches the thread that
        # started it, and a pool thread that ends would stop the run.
        job.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cpsolve.app.worker", cwd=self.folder, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=LINE_LIMIT)
        assert job.process.stdin is not None
        job.process.stdin.write((json.dumps({**spec, "limits": self.limits}) + "\n").encode())
        await job.process.stdin.drain()
        job.process.stdin.close()
        job.state = "running"
        asyncio.get_running_loop().create_task(self._follow(job))
        return job

    async def _follow(self, job: Job) -> None:
        proc = job.process
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        errors = asyncio.get_running_loop().create_task(self._stderr(job, proc.stderr))
        while True:
            try:
                line = await proc.stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                job.notes.append("an event too long to read was left out")
                continue
            if not line:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self._apply(job, event)
        await proc.wait()
        await errors
        if job.state == "running":
            job.state = "error"
            job.error = job.error or f"the worker ended without an answer (exit status {proc.returncode})"
        job.ended = time.time()

    async def _stderr(self, job: Job, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").strip()
            if text:
                job.notes.append(text[:500])

    def _apply(self, job: Job, event: dict[str, Any]) -> None:
        kind = event.get("e")
        if kind == "progress":
            job.progress = {k: v for k, v in event.items() if k != "e"}
        elif kind == "note":
            job.notes.append(str(event.get("text", ""))[:500])
        elif kind == "done":
            job.state, job.status = "done", str(event.get("status"))
            job.result = event.get("result")
            job.text = event.get("text")
            job.extra = {k: event[k] for k in ("pieces", "view", "level") if k in event}
            if job.result is not None and job.action in ("enumerate", "count"):
                job.progress = {**job.progress, **{k: job.result.get(k) for k in
                                                   ("total", "unique_rotation", "unique_symmetry")}}
        elif kind == "error":
            job.state, job.status = "error", "error"
            job.error = str(event.get("message"))

    def stop(self, job: Job) -> None:
        """Stop a run as Ctrl-C stops a command."""
        if job.process is not None and job.process.returncode is None:
            job.stop_asked = True
            with contextlib.suppress(ProcessLookupError):
                job.process.send_signal(signal.SIGINT)

    async def shutdown(self) -> None:
        """Stop every run and wait for each to write what it found (GRACE at most, then kill)."""
        going = [j for j in self.jobs.values() if j.process is not None and j.process.returncode is None]
        for job in going:
            self.stop(job)
        deadline = time.monotonic() + GRACE
        for job in going:
            assert job.process is not None
            try:
                await asyncio.wait_for(job.process.wait(), max(deadline - time.monotonic(), 0.1))
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    job.process.kill()
                await job.process.wait()

    def _forget_old(self) -> None:
        done = [j for j in self.jobs.values() if j.state not in ("starting", "running")]
        for job in done[:max(len(done) - MAX_KEPT, 0)]:
            del self.jobs[job.id]
