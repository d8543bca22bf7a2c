"""Long runs at scale: workers, the pool against a local Dask cluster, a killed-and-resumed run, and
how run time grows with puzzle size; writes results/scaling.md.

    python benchmarks/scaling.py                  # everything, about 30 minutes on 2 cores
    python benchmarks/scaling.py --quick          # leave out the 8-CPU-minute Bedlam runs
    python benchmarks/scaling.py --only workers   # run one section again, keep the others of the file

Every run is `cpsolve enumerate` as a user runs it (a fresh process, `--json`), one after another.
Wall seconds are the process's; CPU seconds are the process's and its workers' (rusage of children).
The CPU-bound control runs two copies of the one-worker run at the same time: on a machine whose two
vCPUs are not two full cores, that pair's slowdown is the ceiling no scheduler can beat.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {"workers": "## Two workers", "bedlam": "## Bedlam without", "family": "## How the search grows"}
"""Each section's heading, by which `--only` finds it in the file it rewrites."""
CPSOLVE = [sys.executable, "-m", "cpsolve", "enumerate"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The runs' environment: as after `pip install`, whose compiled bytecode a run loads. Some sandboxes set
PYTHONDONTWRITEBYTECODE, and an editable install then compiles every module on every start (0.1 s more
of start-up, serial in every run, which would be measured as a worse speed-up than a user gets)."""


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args: list[str], cwd: Path) -> dict[str, Any]:
    """One `cpsolve enumerate ... --json` run: its JSON, wall and CPU seconds."""
    cpu, began = _children_cpu(), time.perf_counter()
    done = subprocess.run([*CPSOLVE, *args, "--json", "--quiet", "--no-save"], cwd=cwd, capture_output=True,
                          text=True, check=False, env=ENV)
    wall, cpu = time.perf_counter() - began, _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"cpsolve {' '.join(args)} failed: {done.stderr.strip()}")
    out: dict[str, Any] = json.loads(done.stdout)
    out.update(wall=wall, cpu=cpu)
    return out


def pair(args: list[str], cwd: Path) -> float:
    """Two copies of the same run at once: the wall time of the pair."""
    began = time.perf_counter()
    procs = [subprocess.Popen([*CPSOLVE, *args, "--json", "--quiet", "--no-save"], cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=ENV) for _ in range(2)]
    for p in procs:
        p.communicate()
    return time.perf_counter() - began


def killed_and_resumed(args: list[str], cwd: Path, after: float) -> dict[str, Any]:
    """The run, kill -9 of its whole process group `after` seconds in, then the same command with --resume."""
    journal = cwd / "resume.journal"
    journal.unlink(missing_ok=True)
    began = time.perf_counter()
    proc = subprocess.Popen([*CPSOLVE, *args, "--quiet", "--no-save", "--journal", str(journal)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = time.perf_counter() - began
    state = json.loads(subprocess.run([sys.executable, "-m", "cpsolve", "journal", str(journal), "--json"],
                                      cwd=cwd, capture_output=True, text=True, check=True).stdout)
    rest = run([*args, "--journal", str(journal), "--resume"], cwd)
    rest.update(killed_after=first, parts_done_at_kill=state["parts_done"], parts=state["parts"])
    return rest


def counts(r: dict[str, Any]) -> str:
    return f"{r['total']} / {r['unique_rotation']} / {r['unique_symmetry']}"


def y_box(n: int, folder: Path) -> Path:
    """25 Y-pentacubes fill 5x5x5; the family 5x5xn (n*5 pieces) shows how the search grows."""
    path = folder / f"y-pentacube-5x5x{n}.yaml"
    path.write_text(f"name: y-pentacube-5x5x{n}\ncontainer:\n  box: [5, 5, {n}]\npieces:\n"
                    f"  Y: {{cells: [[0,0,0], [1,0,0], [2,0,0], [3,0,0], [1,1,0]], count: {5 * n}}}\n")
    return path


REPEATS = 3
"""Runs of each kind in the workers section, alternating; the table keeps each kind's fastest (the
machine is shared: a run can only be slowed down by others, never sped up)."""


def fastest(args: list[str], cwd: Path, repeats: int) -> tuple[dict[str, Any], dict[str, Any], float]:
    """`repeats` rounds of the one-worker run, the two-worker run and the pair, one after another: the
    fastest (lowest wall) one-worker and two-worker runs, and the pair's lowest wall."""
    ones, twos, pairs = [], [], []
    for _ in range(repeats):
        ones.append(run([*args, "--workers", "1"], cwd))
        twos.append(run([*args, "--workers", "2"], cwd))
        pairs.append(pair([*args, "--workers", "1"], cwd))
    return min(ones, key=lambda r: float(r["wall"])), min(twos, key=lambda r: float(r["wall"])), min(pairs)


def _started(r: dict[str, Any]) -> float:
    """The command's own time, once Python has started and imported cpsolve: preparing the puzzle
    (the key choice included) and the enumeration, both from the run's `--json`."""
    return float(r["prepare_seconds"]) + float(r["seconds"])


def workers_section(work: Path, repeats: int = REPEATS) -> list[str]:
    lines = ["## Two workers against one, and the machine's own ceiling", "",
             f"Each kind of run {repeats} times, alternating; the fastest of each is shown. `speed-up` = one "
             "worker's wall / this run's wall, for three spans of the same process: `wall` is the whole process "
             "(interpreter start, imports, preparation, enumeration, exit); `after start-up` is the command's own "
             "work once cpsolve is imported (`prepare_seconds` + `seconds` of `--json`: loading and preparing the "
             "puzzle, key choice included, then the enumeration), the span `benchmarks/run.py` measured when the "
             "two-worker goal was set; `enumeration` is `seconds` alone (sizing the parts, the search, counting "
             "and writing). The control runs two copies of the one-worker run at once: `ceiling` = 2 x (one copy "
             "alone) / (the pair's wall), what two processes get from this machine's two vCPUs with no "
             "coordination at all. `idle tail` = worker-seconds spent idle after the last subproblem was handed "
             "out.", "",
             "| model | run | wall s | CPU s | speed-up | after start-up s | its speed-up | enumeration s "
             "| its speed-up | idle tail s | subproblems | counts |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for model in ("bedlam", "tetris-cube"):
        one, two, pair_wall = fastest([model], work, repeats)
        ceiling = 2 * float(one["wall"]) / pair_wall
        lines.append(f"| {model} | 1 worker | {one['wall']:.2f} | {one['cpu']:.2f} | 1.00 | {_started(one):.2f} | 1.00 "
                     f"| {one['seconds']:.2f} | 1.00 | | {one['subproblems']} | {counts(one)} |")
        lines.append(f"| {model} | 2 workers | {two['wall']:.2f} | {two['cpu']:.2f} | "
                     f"{float(one['wall']) / float(two['wall']):.2f} | {_started(two):.2f} | "
                     f"{_started(one) / _started(two):.2f} | {two['seconds']:.2f} | "
                     f"{float(one['seconds']) / float(two['seconds']):.2f} | {two.get('idle_tail_seconds', '')} | "
                     f"{two['subproblems']} | {counts(two)} |")
        lines.append(f"| {model} | control: two 1-worker runs at once | {pair_wall:.2f} | | ceiling {ceiling:.2f} "
                     "| | | | | | | |")
        print(lines[-3:], file=sys.stderr)
    return lines


def bedlam_section(work: Path) -> list[str]:
    lines = ["## Bedlam without symmetry breaking: pool, Dask, resumed", "",
             "`--no-symmetry-breaking`: all 460,464 assemblies are searched. The Dask rows start a local cluster "
             "of single-threaded worker processes (`--cluster local:N`). The resumed row is killed with "
             "`kill -9` of its whole process group half-way (by the 2-worker pool's time), then run again with "
             "`--resume`; its wall is both runs together.", "",
             "| run | wall s | CPU s | speed-up | counts |", "|---|---:|---:|---:|---|"]
    base = ["bedlam", "--no-symmetry-breaking"]
    one = run([*base, "--workers", "1"], work)
    rows = [("pool, 1 worker", one), ("pool, 2 workers", run([*base, "--workers", "2"], work)),
            ("Dask local:1", run([*base, "--cluster", "local:1"], work)),
            ("Dask local:2", run([*base, "--cluster", "local:2"], work))]
    half = float(rows[1][1]["wall"]) / 2
    resumed = killed_and_resumed([*base, "--workers", "2"], work, half)
    for label, r in rows:
        lines.append(f"| {label} | {r['wall']:.1f} | {r['cpu']:.1f} | {float(one['wall']) / float(r['wall']):.2f} "
                     f"| {counts(r)} |")
    total = float(resumed["killed_after"]) + float(resumed["wall"])
    lines.append(f"| pool, 2 workers, killed at {resumed['killed_after']:.0f} s "
                 f"({resumed['parts_done_at_kill']} of {resumed['parts']} subproblems journalled) and resumed "
                 f"| {total:.1f} | | {float(one['wall']) / total:.2f} | {counts(resumed)} |")
    print(lines[-5:], file=sys.stderr)
    return lines


def family_section(work: Path) -> list[str]:
    lines = ["## How the search grows: Y-pentacubes in 5 x 5 x n", "",
             "The family of the 125-cube puzzle: 5n identical Y-pentacubes in a 5 x 5 x n box, 2 workers.", "",
             "| n | pieces | wall s | CPU s | counts |", "|---:|---:|---:|---:|---|"]
    for n in (2, 3, 4, 5):
        r = run([str(y_box(n, work)), "--workers", "2"], work)
        lines.append(f"| {n} | {5 * n} | {r['wall']:.2f} | {r['cpu']:.2f} | {counts(r)} |")
        print(lines[-1], file=sys.stderr)
    return lines


def replace_section(text: str, heading: str, lines: list[str]) -> str:
    """`text` with the section starting at `heading` (up to the next "## ") replaced by `lines`."""
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[:start] + "\n".join(lines) + "\n" + (text[end:] if end >= 0 else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="leave out the Bedlam runs without symmetry breaking")
    ap.add_argument("--only", choices=sorted(SECTIONS), help="run this section again, keep the file's others")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "scaling.md")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="rounds of the workers section (the fastest is kept)")
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cpsolve-scaling-"))
    makers: dict[str, Callable[[Path], list[str]]] = {
        "workers": partial(workers_section, repeats=opts.repeats), "bedlam": bedlam_section, "family": family_section}
    again = f" --repeats {opts.repeats}" if opts.repeats != REPEATS else ""
    stamp = (f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.machine()}, {os.cpu_count()} logical CPUs, "
             f"Python {platform.python_version()}")
    if opts.only:
        text = opts.out.read_text()
        text = replace_section(text, SECTIONS[opts.only], makers[opts.only](work))
        stale = f"Section `{opts.only}` rerun with"
        text = "\n\n".join(b for b in text.split("\n\n") if not b.startswith(stale))
        text = text.replace("\n\nRegenerate", f"\n\nSection `{opts.only}` rerun with `python benchmarks/scaling.py "
                            f"--only {opts.only}{again}` ({stamp}).\n\nRegenerate", 1)
        opts.out.write_text(text)
        print(f"wrote {opts.out}", file=sys.stderr)
        return
    lines = ["# Long runs at scale", "",
             f"Regenerate with `python benchmarks/scaling.py{' --quick' if opts.quick else ''}{again}` "
             f"(written {stamp}). "
             "Every row is one `cpsolve enumerate MODEL --json` process, one after another; CPU = the process "
             "and its workers.", ""]
    for name in ("workers", "bedlam", "family"):
        if name == "bedlam" and opts.quick:
            continue
        lines += [*makers[name](work), ""]
    opts.out.write_text("\n".join(lines))
    print(f"wrote {opts.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
