"""One run of the workbench, in its own process: `python -m cpsolve.app.worker`, one job on stdin.

The server (`jobs.py`) starts a worker per run, in the folder the workbench serves, and reads its
events as JSON lines on stdout. The worker calls the public API exactly as the command line does:
the same limits (`cpsolve --max-* app` hands them on), the same deadline (`timeout` counted from
the call, preparation included), the same solutions file (`NAME.solutions.jsonl` in the folder) and
the same journal beside it, so a run stopped here is resumed here or by `cpsolve enumerate --resume`,
and the reverse.

Stopping: SIGINT, SIGTERM or SIGHUP end a run as Ctrl-C ends a command: the classes found are
committed and written, the journal kept, the counts so far reported. The worker asks Linux for a
SIGTERM when the server dies (`PR_SET_PDEATHSIG`), so even a `kill -9` of the server stops its runs
that way rather than leaving them running unseen.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cpsolve
from cpsolve import limits

PROGRESS_EVERY = 0.25
"""Seconds between two progress events: the page redraws its bar four times a second."""
_PR_SET_PDEATHSIG = 1


def emit(event: str, **fields: object) -> None:
    sys.stdout.write(json.dumps({"e": event, **fields}) + "\n")
    sys.stdout.flush()


def _stop(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _die_with_server(parent: int) -> None:
    """A SIGTERM (a stop like any other) when the server dies; stop at once if it already has."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise KeyboardInterrupt


class Progress:
    """The run's progress record (`cpsolve.run(progress=...)`) as events, at most every PROGRESS_EVERY."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, result: Any) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        elapsed = now - self.start
        tally = result.tally
        emit("progress", found=tally.found, total=tally.total, unique_rotation=tally.unique_rotation,
             unique_symmetry=tally.unique_symmetry, parts=result.subproblems, parts_done=result.subproblems_done,
             work=result.work, work_done=result.work_done, elapsed=round(elapsed, 2), eta=result.eta(elapsed))


def puzzle_of(job: Mapping[str, Any]) -> cpsolve.Puzzle:
    """The puzzle as the editor holds it (its YAML text, checked as any file) or a built-in model."""
    if job.get("model"):
        return cpsolve.load(str(job["model"]))
    text, where = str(job["yaml"]), str(job.get("where") or "workbench.yaml")
    puzzle = cpsolve.puzzle_from_yaml(text, where)
    # The editor holds a file of the folder unchanged: the puzzle is that file's, as `cpsolve enumerate FILE`
    # reads it, so that its solutions lines name it (`origin`) as the command line's do and a run stopped
    # here resumes there keeping every line (they are checked byte for byte).
    path = Path(where)
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if not path.is_absolute() and Path.cwd() in path.resolve().parents and path.read_text(encoding="utf-8") == text:
            return dataclasses.replace(puzzle, origin=where)
    return puzzle


def solution_of(job: Mapping[str, Any]) -> cpsolve.Solution:
    """A solution the page names: the N-th of a file in the folder (a solutions file, a BurrTools file's
    stored assemblies), or the cells of one sent with the puzzle."""
    if job.get("file"):
        return cpsolve.source(str(job["file"]), job.get("problem")).solution(int(job.get("index") or 0))
    pieces = {str(k): tuple(tuple(int(v) for v in c) for c in cells) for k, cells in dict(job["pieces"]).items()}
    puzzle = puzzle_of(job)
    return cpsolve.Solution(puzzle.name, tuple(pieces.items()), puzzle=puzzle)


def run_job(job: Mapping[str, Any]) -> None:
    action = job["action"]
    opts: Mapping[str, Any] = job.get("options") or {}
    timeout = limits.check_timeout(opts.get("timeout"), "timeout") if opts.get("timeout") else None
    workers = int(opts.get("workers") or limits.usable_cores())
    if not 1 <= workers <= limits.MAX_WORKERS:
        raise cpsolve.CpsolveError(f"must be 1 to {limits.MAX_WORKERS}, not {workers}", field="workers")
    if action in ("enumerate", "count"):
        puzzle = puzzle_of(job)
        enumerate_ = action == "enumerate"
        result = cpsolve.run(
            puzzle, workers=workers, limit=int(opts.get("limit") or 0), timeout=timeout,
            backend=str(opts.get("backend") or "auto"), symmetry_breaking=bool(opts.get("symmetry_breaking", True)),
            progress=Progress(), out=(job.get("out") or True) if enumerate_ else None,
            journal=enumerate_, resume=bool(opts.get("resume")) and enumerate_,
            disassemble=bool(opts.get("disassemble")) and enumerate_,
            command=("cpsolve", "enumerate", str(job.get("where") or puzzle.name), "--resume"))
        emit("done", status=result.status, result=result.as_json())
    elif action == "solve":
        found = cpsolve.solve(puzzle_of(job), str(opts.get("backend") or "auto"), timeout=timeout)
        emit("done", status="complete", text="has no solution" if found is None else str(found),
             pieces=None if found is None else {k: [list(c) for c in v] for k, v in found.pieces.items()})
    elif action == "estimate":
        est = cpsolve.estimate(puzzle_of(job))
        emit("done", status="complete", text=str(est), result=est.as_json())
    elif action == "approx":
        approx = cpsolve.count_approx(puzzle_of(job), timeout=timeout, workers=min(workers, 2),
                                      progress=lambda line: emit("note", text=str(line)))
        emit("done", status="complete", text=_approx_text(approx), result=approx.as_json())
    elif action == "explain":
        target: cpsolve.Puzzle | cpsolve.Solution = solution_of(job) if job.get("file") or job.get("pieces") \
            else puzzle_of(job)
        found_ = cpsolve.explain(target, timeout=timeout)
        emit("done", status="complete", text=str(found_), result=found_.as_json())
    elif action == "disassemble":
        solution = solution_of(job)
        taken = cpsolve.disassemble(solution, max_states=opts.get("max_states"))
        text = f"level {taken.level_text()}, {len(taken.moves())} moves" if taken.ok else \
            "does not come apart"
        emit("done", status="complete", text=text, level=taken.level_text(),
             view=cpsolve.view_data(solution, disassembly=True))
    elif action == "design":
        design = cpsolve.design_unique(puzzle_of(job), str(opts.get("change") or "fix"))
        lines = [design.headline, *(f"  {s.text} (x{s.orbit} by rotation; verified: {s.verified_total} assembly)"
                                    for s in design.suggestions)]
        emit("done", status="complete", text="\n".join(lines), result=design.as_json())
    else:
        raise cpsolve.CpsolveError(f"unknown action {action!r}", field="action")


def _approx_text(approx: cpsolve.ApproxCounts) -> str:
    parts = []
    if approx.total is not None:
        parts.append(f"ApproxMC: about {approx.total:,} assemblies in all" +
                     (" (exact)" if approx.exact else f" (within a factor {1 + approx.epsilon:g} with probability "
                                                       f"{1 - approx.delta:g})"))
    if approx.knuth is not None:
        parts.append(f"Knuth's estimate: {approx.knuth:,.0f} (standard error {approx.knuth_stderr or 0:,.0f})")
    return "\n".join([*parts, *approx.notes]) or "no estimate"


def main() -> None:
    parent = os.getppid()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    try:
        _die_with_server(parent)
        job = json.loads(sys.stdin.readline())
        limits.configure(**{k: v for k, v in (job.get("limits") or {}).items() if k in limits.OPTIONS})
        emit("started", pid=os.getpid())
        run_job(job)
    except KeyboardInterrupt:
        emit("done", status="interrupted")
    except cpsolve.CpsolveError as exc:
        emit("error", message=cpsolve.printable(str(exc)), code=exc.exit_code)
    except MemoryError:
        emit("error", message="out of memory (the --max-* limits keep a run within the machine's memory)", code=1)
    except Exception as exc:  # one line, as the command line reports an internal error
        emit("error", message=f"internal error: {type(exc).__name__}: {cpsolve.printable(str(exc))}", code=1)


if __name__ == "__main__":
    main()
