"""Memory against run length, before and after the canonicalizer with no memory (issue 39); writes
results/memory.md.

    git worktree add /tmp/before eb887ab && (cd /tmp/before && python setup.py build_ext --inplace)
    python benchmarks/memory.py --before /tmp/before --aracna ../eyckmans.aracna.xmpuzzle
    python benchmarks/memory.py --before /tmp/before --quick     # rods at 5 and 20 s, no Aracna
    python benchmarks/memory.py --rods                           # this version's rods at 5, 20, 120 s alone:
                                                                 # results/memory-rods.md

Every run is `cpsolve enumerate` as a user runs it (a fresh process, `--json`), the version before (its
checkout on PYTHONPATH, built in place) and this one, one after the other, on the same machine. Peak RSS
is of the whole process tree (the parent and its forked workers, summed: shared pages are counted in
each, so it is an upper bound), sampled every 50 ms from /proc. The parent's CPU per class is the
parent process's own CPU seconds (from /proc, the last sample before it ends) over the classes it wrote,
less its CPU before the first class (loading and preparing): what each class costs it (lines, journal).

Runs:
- rods: a 27x27x27 box of 6,561 1x1x3 rods (issue 39), `--timeout` 5, 20 and 120 s, one worker, no file:
  a search that opens about as many classes as it finds solutions, for as long as it is let;
- Bedlam: the whole run, one worker, no file;
- Aracna (Eyckmans, a BurrTools file: `--aracna`, never in the repository), assembled and taken apart
  on one worker, the whole run;
- speed: Bedlam, the Tetris Cube, the Y-pentacube (25-Y) box and Conway's 5x5x5, whole runs, counts
  compared;
- the parent's cost per class: the rods and the T-tetracube 6x6x6 on one worker (with `--timeout` that is a
  forked process: the parent only counts, writes and journals) with a solutions file and its journal, 20 s
  each.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cpsolve.output.tables import stamp  # noqa: E402 - after the path above, as the other benchmarks

RODS = ("name: rods\ncontainer: {box: [27, 27, 27]}\npieces:\n"
        "  R: {cells: [[0,0,0], [1,0,0], [2,0,0]], count: 6561}\n")
"""Issue 39's 103-byte file: 6,561 rods filling a 27x27x27 box."""
SAMPLE = 0.05
TICK = os.sysconf("SC_CLK_TCK")
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}


@dataclass(frozen=True)
class Measured:
    out: dict[str, Any]
    wall: float
    peak_mb: float
    parent_cpu: float
    """The parent's own CPU seconds at its last sample."""
    cpu_at_first: float
    """...and at the first sample that saw the watched file non-empty (0 without one)."""
    cpu: float
    """CPU seconds of the run, its workers included: steadier than wall seconds on a loaded machine."""


def _status(pid: int) -> tuple[int, float]:
    """(RSS in KB, CPU seconds) of one process; (0, 0.0) once it is gone."""
    try:
        rss = 0
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return rss, (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0, 0.0


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo += [int(x) for x in fh.read().split()]
        except OSError:
            pass
    return out


def measure(version: Path, args: list[str], cwd: Path, watch: Path | None = None) -> Measured:
    """One `cpsolve enumerate ARGS --json` of the version at `version` (its folder on PYTHONPATH); `watch`, a
    file the run writes: the parent's CPU is also taken when it is first seen non-empty."""
    env = {**ENV, "PYTHONPATH": str(version)}
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "enumerate", *args, "--json"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, parent_cpu, at_first = 0, 0.0, 0.0
    while proc.poll() is None:
        peak = max(peak, sum(_status(p)[0] for p in _tree(proc.pid)))
        cpu = _status(proc.pid)[1]
        parent_cpu = cpu or parent_cpu
        if watch is not None and not at_first and watch.is_file() and watch.stat().st_size:
            at_first = parent_cpu
        time.sleep(SAMPLE)
    out, err = proc.communicate()
    wall = time.perf_counter() - began
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{version}: cpsolve enumerate {' '.join(args)} failed: {err.strip()}")
    if not out:  # the deadline passed while the puzzle was prepared (a loaded machine): nothing found
        return Measured({"total": 0, "unique_rotation": 0, "unique_symmetry": 0, "seconds": wall,
                         "first_solution_seconds": None}, wall, peak / 1024, parent_cpu, at_first, cpu)
    return Measured(json.loads(out), wall, peak / 1024, parent_cpu, at_first, cpu)


def counts(m: Measured) -> str:
    return f"{m.out['total']} / {m.out['unique_rotation']} / {m.out['unique_symmetry']}"


def rods(version: Path, out_dir: Path) -> None:
    """`--rods`: this version alone, the rods at 5, 20 and 120 s (issue 39's first criterion: the peak the
    same within 20 % at the three lengths, under 300 MB), with the load at both ends: a run that needs no
    older checkout, for a quiet moment of the machine."""
    before = os.getloadavg()
    lines = ["# Memory of the rods against run length", "",
             f"Regenerate with `python benchmarks/memory.py --rods`. Written {stamp()}; load average "
             f"{before[0]:.1f} at the start.", "",
             "`cpsolve enumerate rods.yaml --no-save -q -w 1 --timeout T --json` (a 27x27x27 box of 6,561 1x1x3 "
             "rods), peak RSS of the process tree.", "",
             "| --timeout | classes found | first class at (s) | peak RSS (MB) |", "|---:|---:|---:|---:|"]
    peaks = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "rods.yaml").write_text(RODS)
        for limit in (5, 20, 120):
            m = measure(version, ["rods.yaml", "--no-save", "-q", "-w", "1", "--timeout", str(limit)], cwd)
            first = m.out["first_solution_seconds"]
            found = m.out["unique_symmetry"] if first is not None else "none yet"
            lines.append(f"| {limit} | {found} | {'-' if first is None else f'{first:.2f}'} | {m.peak_mb:.0f} |")
            peaks.append(m.peak_mb)
            print(lines[-1], flush=True)
    spread = max(peaks) / min(peaks) - 1
    lines += ["", f"The largest peak is {spread:.1%} above the smallest; the largest is {max(peaks):.0f} MB. "
              f"Load average {os.getloadavg()[0]:.1f} at the end."]
    out_dir.mkdir(exist_ok=True)
    (out_dir / "memory-rods.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out_dir / 'memory-rods.md'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="a checkout of the version before, built in place (required "
                    "but with --rods)")
    ap.add_argument("--rods", action="store_true", help="this version's rods at 5, 20 and 120 s alone")
    ap.add_argument("--after", type=Path, default=ROOT, help="the version after (default: this checkout)")
    ap.add_argument("--aracna", type=Path, help="eyckmans.aracna.xmpuzzle (puzzlecad); left out when not given")
    ap.add_argument("--quick", action="store_true", help="rods at 5 and 20 s only, no Aracna")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results")
    a = ap.parse_args()
    if a.rods:
        rods(a.after.resolve(), a.out_dir)
        return
    if a.before is None:
        ap.error("--before is required (but with --rods)")
    versions = {"before": a.before.resolve(), "after": a.after.resolve()}
    load = os.getloadavg()[0]
    lines = ["# Memory against run length (issue 39)", "",
             "Regenerate with `python benchmarks/memory.py --before DIR --aracna FILE` (DIR: a checkout of the "
             "version before, built in place; see the script's docstring). "
             f"Written {stamp()}; load average {load:.1f} at the start (a shared 2-core machine: ratios side by "
             "side, not absolute times).", "",
             "*before*: the tally remembered every class's canonical form (two sets of keys) and the pool a digest "
             "of every solution of the parts in flight; *after*: a solution counts as a class iff it is the "
             "class's representative among the members the search reaches (problem/canonical.py), nothing "
             "remembered. Peak RSS: the whole process tree, summed (shared pages counted in each process).", ""]
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "rods.yaml").write_text(RODS)
        lines += ["## The rods: peak RSS against run length and classes found", "",
                  "`cpsolve enumerate rods.yaml --no-save -q -w 1 --timeout T --json` (T counts the preparation, "
                  "which takes 1 s on an idle machine and several on a loaded one: *none yet* when the deadline came "
                  "before the first solution)", "",
                  "| --timeout | version | classes found | classes / s | peak RSS (MB) |", "|---:|---|---:|---:|---:|"]
        for limit in ((5, 20) if a.quick else (5, 10, 20, 120)):
            for name, where in versions.items():
                m = measure(where, ["rods.yaml", "--no-save", "-q", "-w", "1", "--timeout", str(limit)], cwd)
                search = m.out["seconds"] - (m.out["first_solution_seconds"] or m.out["seconds"])
                rate = f"{m.out['unique_symmetry'] / search:.0f}" if search > 0 else "-"
                found = m.out["unique_symmetry"] if m.out["first_solution_seconds"] is not None else "none yet"
                lines.append(f"| {limit} | {name} | {found} | {rate} | {m.peak_mb:.0f} |")
                print(lines[-1], flush=True)
        lines += ["", "## Whole runs: peak RSS, time and counts", "",
                  "`cpsolve enumerate MODEL --no-save -q -w 1 --json` (Aracna: `--disassemble` too). CPU seconds of "
                  "the process (what to compare on a loaded machine); the run's own seconds (`seconds` of its JSON, "
                  "wall), and the process's wall seconds in brackets.", "",
                  "| run | version | counts (total / rotation / reflection) | CPU s | seconds | peak RSS (MB) | "
                  "same counts |", "|---|---|---|---:|---:|---:|:-:|"]
        runs: list[tuple[str, list[str]]] = [(m, [m]) for m in ("bedlam", "tetris-cube", "y-pentacube-5x5x5",
                                                                 "conway-5x5x5")]
        if a.aracna is not None and not a.quick:
            runs.append(("aracna (assemble and take apart)", [str(a.aracna.resolve()), "--disassemble"]))
        for label, args in runs:
            got = {name: measure(where, [*args, "--no-save", "-q", "-w", "1"], cwd) for name, where in versions.items()}
            same = "yes" if len({counts(m) for m in got.values()}) == 1 else "NO"
            for name, m in got.items():
                lines.append(f"| {label} | {name} | {counts(m)} | {m.cpu:.2f} | {m.out['seconds']:.2f} ({m.wall:.2f}) "
                             f"| {m.peak_mb:.0f} | {same} |")
                print(lines[-1], flush=True)
        lines += ["", "## The parent's cost per class", "",
                  "`cpsolve enumerate MODEL -w 1 --timeout 20 -q --out FILE --json` (journalled, as `--out` is by "
                  "default): classes written, and the parent process's own CPU per class (lines, journal rows; "
                  "its CPU before the first class left out).", "",
                  "| model | version | classes | classes / s | parent CPU per class (ms) | peak RSS (MB) |",
                  "|---|---|---:|---:|---:|---:|"]
        for model in ("rods.yaml", "t-tetracube-6x6x6"):
            for name, where in versions.items():
                out = cwd / f"{name}.jsonl"
                m = measure(where, [model, "-w", "1", "--timeout", "20", "-q", "--out", str(out)], cwd, watch=out)
                classes = m.out["unique_symmetry"]
                search = m.out["seconds"] - (m.out["first_solution_seconds"] or 0.0)
                cost = (m.parent_cpu - m.cpu_at_first) / classes * 1000 if classes else float("nan")
                lines.append(f"| {model.removesuffix('.yaml')} | {name} | {classes} | "
                             f"{classes / search:.0f} | {cost:.3f} | {m.peak_mb:.0f} |")
                print(lines[-1], flush=True)
                for p in cwd.glob(f"{name}.jsonl*"):
                    p.unlink()
    a.out_dir.mkdir(exist_ok=True)
    (a.out_dir / "memory.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {a.out_dir / 'memory.md'}")


if __name__ == "__main__":
    main()
