"""Benchmark every backend on the built-in models; write results/benchmarks.md and results/benchmarks.json.

    python benchmarks/run.py                       # the full table (about 20 minutes on 2 cores)
    python benchmarks/run.py --models soma bedlam --repeats 1

Each cell is the median of `--repeats` runs, each run alone in a forked process (CPU seconds, wall
seconds and peak memory are that run's own). Ratios between backends are taken from the same
invocation, so machine noise hits both sides alike. A backend that hits `--timeout` is shown as a
lower bound ("> 120 s") with how many classes it had found.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends import BackendUnavailable, backend_class, for_problem, names
from cpsolve.search.enumeration import build_problem, enumerate_classes, first_solution, prepare
from cpsolve.search.isolate import run_isolated
from cpsolve.search.settings import RunSettings

ENUMERATE = ["soma", "cubissimo", "snake-27", "slothouber-graatsma", "six-piece-burr", "t-tetracube-6x6x2",
             "conway-5x5x5", "y-pentacube-5x5x5", "bedlam", "tetris-cube"]
FIRST_ONLY = ["t-tetracube-6x6x6"]
SPEEDUP = ["bedlam", "tetris-cube"]
GOALS = {  # issue 5: CPU seconds on one core for the fastest backend
    "bedlam": 10.0, "tetris-cube": 15.0, "y-pentacube-5x5x5": 60.0, "conway-5x5x5": 10.0,
}


@dataclass(frozen=True)
class Run:
    model: str
    backend: str
    mode: str
    """enumerate, first (time to one solution), or process (`cpsolve enumerate` end to end)."""
    workers: int
    status: str
    cpu_seconds: float
    wall_seconds: float
    peak_mb: float
    first_seconds: float | None
    counts: tuple[int, int, int] | None
    found: int
    repeats: int


def enumerate_once(model: str, backend: str, workers: int, timeout: float) -> dict[str, object]:
    """What `cpsolve enumerate MODEL --workers N` does once cpsolve is imported: the key choice, too,
    runs on the N workers."""
    prepared = prepare(load(model), workers=workers)
    result = enumerate_classes(prepared,
                               RunSettings(for_problem(backend, prepared.problem), timeout=timeout, workers=workers))
    return {"status": result.status.value, "first": result.first_solution_seconds,
            "counts": tuple(result.counts().values()), "found": result.tally.unique_symmetry}


def first_once(model: str, backend: str, timeout: float) -> dict[str, object]:
    prepared = prepare(load(model))
    rows, stats = first_solution(prepared, for_problem(backend, prepared.problem), timeout)
    return {"status": stats.status.value if rows is None else "complete", "first": stats.first_solution_seconds,
            "counts": None, "found": int(rows is not None)}


def median_run(model: str, backend: str, mode: str, workers: int, repeats: int,
               job: Callable[[], dict[str, object]]) -> Run:
    outs, usages = [], []
    for _ in range(repeats):
        out, usage = run_isolated(job)
        outs.append(out)
        usages.append(usage)
        if out["status"] != "complete":
            break  # a timeout is not worth repeating
    mid = sorted(range(len(usages)), key=lambda i: usages[i].cpu_seconds)[len(usages) // 2]
    out = outs[mid]
    return Run(model, backend, mode, workers, str(out["status"]),
               round(statistics.median(u.cpu_seconds for u in usages), 3),
               round(statistics.median(u.wall_seconds for u in usages), 3),
               round(max(u.peak_mb for u in usages), 1),
               None if out["first"] is None else round(float(out["first"]), 4),
               out["counts"] if out["status"] == "complete" else None, int(out["found"]), len(usages))


def process_run(model: str, repeats: int) -> Run:
    """`cpsolve enumerate MODEL` as a user types it: interpreter start and imports included."""
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cpsolve", "enumerate", model, "--no-save", "--quiet"],
                       check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
    wall = round(statistics.median(walls), 3)
    return Run(model, "auto", "process", 0, "complete", wall, wall, 0.0, None, None, 0, repeats)


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in names():
        cls = backend_class(name)
        out[name] = cls.version() if cls.supported() else "not installed"
    return out


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("model name")), model)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores, {platform.system()} {platform.release()}"


def usable(model: str, backend: str) -> bool:
    try:
        for_problem(backend, build_problem(load(model)))
    except BackendUnavailable:
        return False
    return True


def collect(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []

    def add(run: Run) -> None:
        runs.append(run)
        print(f"  {run.model:22} {run.backend:8} {run.mode:9} w={run.workers} {run.status:9} "
              f"cpu {run.cpu_seconds:8.3f} s  wall {run.wall_seconds:8.3f} s", file=sys.stderr, flush=True)

    for model in [m for m in ENUMERATE if m in args.models]:
        for backend in [b for b in args.backends if usable(model, b)]:
            repeats = args.repeats if backend == "dlx" else 1
            add(median_run(model, backend, "enumerate", 1, repeats,
                           partial(enumerate_once, model, backend, 1, args.timeout)))
        if model in SPEEDUP and "dlx" in args.backends:
            add(median_run(model, "dlx", "enumerate", 2, args.repeats,
                           partial(enumerate_once, model, "dlx", 2, args.timeout)))
    for model in [m for m in FIRST_ONLY if m in args.models]:
        for backend in [b for b in args.backends if usable(model, b)]:
            add(median_run(model, backend, "first", 1, args.repeats if backend == "dlx" else 1,
                           partial(first_once, model, backend, args.timeout)))
    if "soma" in args.models:
        add(process_run("soma", args.repeats))
    return runs


def fmt_seconds(run: Run, field: str = "cpu_seconds") -> str:
    value = getattr(run, field)
    return f"{value:.3f}" if run.status == "complete" else f"> {value:.0f} ({run.status}, {run.found} classes)"


def ratio_table(runs: list[Run]) -> list[str]:
    """CPU ratio to dlx; for a run that timed out, also an estimate from its rate of finding classes.

    The estimate assumes classes keep coming at the rate seen before the timeout; it is labelled as
    such and only meant to tell 5x from 500x.
    """
    by = {(r.model, r.backend, r.mode, r.workers): r for r in runs}
    lines = ["| model | backend | CPU s (1 worker) | ratio to dlx | estimated ratio if it had finished |",
             "|---|---|---:|---:|---:|"]
    for r in runs:
        if r.mode != "enumerate" or r.workers != 1:
            continue
        base = by.get((r.model, "dlx", "enumerate", 1))
        ratio = estimate = "-"
        if base is not None and base.cpu_seconds > 0:
            ratio = f"{r.cpu_seconds / base.cpu_seconds:.1f}x"
            if r.status != "complete":
                ratio = "> " + ratio
                if r.found and base.counts:
                    projected = r.cpu_seconds / r.found * base.counts[2]
                    estimate = f"~{projected / base.cpu_seconds:.0f}x"
        lines.append(f"| {r.model} | {r.backend} | {fmt_seconds(r)} | {ratio} | {estimate} |")
    return lines


def goal_lines(runs: list[Run]) -> list[str]:
    by = {(r.model, r.backend, r.mode, r.workers): r for r in runs}
    lines = ["| goal | measured | met |", "|---|---|---|"]
    for model, limit in GOALS.items():
        if (r := by.get((model, "dlx", "enumerate", 1))) is not None:
            lines.append(f"| {model}: all solutions, dlx, 1 core, <= {limit:g} s CPU | {fmt_seconds(r)} s "
                         f"| {'yes' if r.status == 'complete' and r.cpu_seconds <= limit else 'no'} |")
    for model in SPEEDUP:
        one, two = by.get((model, "dlx", "enumerate", 1)), by.get((model, "dlx", "enumerate", 2))
        if one and two and two.wall_seconds > 0:
            s = one.wall_seconds / two.wall_seconds
            lines.append(f"| {model}: speed-up on 2 workers >= 1.8x (wall) | {s:.2f}x "
                         f"({one.wall_seconds:.1f} s -> {two.wall_seconds:.1f} s) | {'yes' if s >= 1.8 else 'no'} |")
    if (r := by.get(("t-tetracube-6x6x6", "dlx", "first", 1))) is not None:
        lines.append(f"| t-tetracube-6x6x6: first solution <= 10 s | {fmt_seconds(r, 'wall_seconds')} s "
                     f"| {'yes' if r.status == 'complete' and r.wall_seconds <= 10 else 'no'} |")
    if (r := by.get(("soma", "auto", "process", 0))) is not None:
        lines.append(f"| soma end to end (process start included) < 1 s | {r.wall_seconds:.3f} s "
                     f"| {'yes' if r.wall_seconds < 1 else 'no'} |")
    return lines


def render(runs: list[Run], command: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = [
        "# Benchmarks", "", f"Regenerate with `{command}` (written {when}).", "",
        f"Machine: {machine()}. Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()) + ".", "",
        "CPU and wall seconds are medians over the repeats (dlx) or a single run (slower backends); each run",
        "is alone in a forked process; peak MB is that process's peak resident memory (it starts from the",
        "parent's ~35-100 MB). Ratios compare CPU seconds measured in this same invocation.", "",
        "## Goals (issue 5)", "", *goal_lines(runs), "", "## Backends against dlx", "", *ratio_table(runs), "",
        "## Every run", "",
        "| model | backend | mode | workers | status | CPU s | wall s | peak MB | first s | counts | repeats |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in runs:
        counts = " / ".join(map(str, r.counts)) if r.counts else "-"
        first = "-" if r.first_seconds is None else f"{r.first_seconds:.4f}"
        head.append(f"| {r.model} | {r.backend} | {r.mode} | {r.workers} | {r.status} | {r.cpu_seconds:.3f} "
                    f"| {r.wall_seconds:.3f} | {r.peak_mb:.0f} | {first} | {counts} | {r.repeats} |")
    return "\n".join(head) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=ENUMERATE + FIRST_ONLY)
    parser.add_argument("--backends", nargs="+", default=[b for b in ("dlx", "cpsat", "sat") if b in names()])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0, help="per run, seconds")
    parser.add_argument("--out-dir", type=Path, default=Path("results"))
    parser.add_argument("--render-only", type=Path, metavar="JSON",
                        help="rewrite the markdown from an earlier run's JSON (no solving)")
    args = parser.parse_args()
    if args.render_only is not None:
        payload = json.loads(args.render_only.read_text(encoding="utf-8"))
        runs = [Run(**{**r, "counts": tuple(r["counts"]) if r["counts"] else None}) for r in payload["runs"]]
        text = render(runs, payload["command"])
        (args.out_dir / "benchmarks.md").write_text(text, encoding="utf-8")
        print(text)
        return
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:]) if sys.argv[1:] else "python benchmarks/run.py"
    runs = collect(args)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    text = render(runs, command.strip())
    (args.out_dir / "benchmarks.md").write_text(text, encoding="utf-8")
    payload = {"command": command.strip(), "machine": machine(), "versions": versions(),
               "runs": [asdict(r) for r in runs]}
    (args.out_dir / "benchmarks.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
