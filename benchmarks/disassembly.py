"""Disassembly speed against BurrTools' `burrTxt`, side by side; writes results/disassembly.md and .json.

    python benchmarks/disassembly.py --burrtxt PATH/burrTxt          # PATH from ../shared/tools/build-peers.sh
    python benchmarks/disassembly.py --burrtxt PATH/burrTxt --files DIR   # and designers' files (see below)
    python benchmarks/disassembly.py --repeats 1                     # without BurrTools: cpsolve rows only

Every command runs as its own process pinned to one core (`taskset -c 0` when it exists), the
cpsolve and BurrTools runs of a row one after the other, `--repeats` times; the table shows the
medians of the process's CPU seconds (user + system, from wait4) and wall seconds, and the counts
or level each program printed, so that the two sides are seen to do the same work.

Rows: cpsolve's start-up alone (`python -m cpsolve --help`: the interpreter and the command line's
imports, which every cpsolve row pays); the library's six-piece burr and Cutler's Burr #305
(assemble + disassemble); the SolidSixPieceBurrs and PelikanBurr files (assemble + disassemble, as
`burrTxt -d`); and the disassembly alone of the solutions stored in those files (as `burrTxt -x -d`,
which re-disassembles the stored solutions), also timed inside the process (without Python's start-up
and imports), with the compiled search and with its Python twin (`--twin`). With `--files DIR`, a folder
of public designers' files as benchmarks/burrtools_files.py takes it, two files whose thousands of
assemblies almost all do not come apart (Eyckmans' Gargamel, 7,680, and "two face 3" of
kgeusens/burr-data-go, 22,016: the per-assembly cost of taking apart decides them) are assembled and
taken apart by both programs too; the last column is cpsolve's CPU over burrTxt's in the same task.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from scaling import ENV  # benchmarks/scaling.py: a run's environment, as after `pip install`

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "burrtools-examples"
PY = [sys.executable, "-m", "cpsolve"]
DESIGNERS = ("eyckmans.gargamel", "bdg.two_face_3")
"""Files of `--files` with thousands of assemblies that do not come apart (issue 40's two)."""

INNER = """
import json, sys, time
from cpsolve.analysis.disassembly import disassemble
from cpsolve.puzzle.burrtools import read_xmpuzzle
from cpsolve.puzzle.burrtools_placements import stored_solutions
path = sys.argv[1]
native = sys.argv[2:] != ["--twin"]
groups = tuple(read_xmpuzzle(path).groups)
stored = stored_solutions(path)
t = time.process_time()
levels = [disassemble(a, groups, native=native).level_text() for a in stored]
print(json.dumps({"seconds": time.process_time() - t, "levels": levels, "native": native}))
"""


@dataclass(frozen=True)
class Row:
    task: str
    program: str
    command: str
    cpu_seconds: float
    wall_seconds: float
    output: str
    repeats: int


def measure_children(cmd: list[str], pin: bool) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of one run of `cmd` in its own process; CPU from the change in
    RUSAGE_CHILDREN, so the child's whole life counts (imports and start-up included)."""
    import resource

    full = (["taskset", "-c", "0"] if pin else []) + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, check=False, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return cpu, wall, proc.stdout


def summarize(program: str, out: str) -> str:
    """What the run printed that shows the work done: counts, solutions, level."""
    if program == "burrTxt":
        m = re.search(r"(\d+) assemblies and (\d+) solutions", out)
        if m:
            return f"{m.group(1)} assemblies, {m.group(2)} solutions"
        levels = re.findall(r"level: (\d+)", out)
        return f"{len(levels)} stored solutions re-disassembled; first levels {','.join(sorted(set(levels)))}"
    if not out.lstrip().startswith("{"):
        return "start-up only (the help text)"
    data = json.loads(out)
    if "disassembly" in data:
        d = data["disassembly"]
        a, s = d["assemblies"], d["solutions"]
        return (f"{a['unique_rotation']} / {a['unique_symmetry']} assemblies, {s['unique_rotation']} / "
                f"{s['unique_symmetry']} solutions (up to rotation / and reflection); levels {d['levels']}")
    if "levels" in data:
        hist: dict[str, int] = {}
        for v in data["levels"]:
            hist[str(v)] = hist.get(str(v), 0) + 1
        how = "compiled search" if data["native"] else "Python twin"
        return (f"{len(data['levels'])} stored solutions; levels {hist}; analysis alone ({how}) "
                f"{data['seconds']:.3f} s CPU")
    return f"level {data.get('level')}"


def written_on() -> tuple[str, str]:
    """When a table is written, and on what (processor, logical CPUs, Python), as the tables say it."""
    return (datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
            f"Python {platform.python_version()}")


def shown_path(arg: str) -> str:
    """An argument as the table shows it: paths next to the repository as `../...` (the machine's own
    folder names are no part of the command to run elsewhere)."""
    return arg.replace(str(ROOT.parent), "..")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--burrtxt", type=Path, help="burrTxt built by ../shared/tools/build-peers.sh")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--files", type=Path, help="a folder with eyckmans.gargamel.xmpuzzle and bdg.two_face_3.xmpuzzle")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results")
    args = ap.parse_args()
    pin = shutil.which("taskset") is not None
    bt = str(args.burrtxt) if args.burrtxt else None

    tasks: list[tuple[str, list[tuple[str, list[str]]]]] = [
        ("start-up: interpreter and command-line imports", [("cpsolve", [*PY, "--help"])])]
    for model in ("six-piece-burr", "cutler-burr-305"):
        tasks.append((f"{model}: assemble + disassemble", [
            ("cpsolve", [*PY, "enumerate", model, "--disassemble", "--workers", "1", "--quiet", "--no-save",
                         "--json"])]))
    for name in ("SolidSixPieceBurrs", "PelikanBurr"):
        path = str(SHARED / f"{name}.xmpuzzle")
        if not Path(path).exists():
            continue
        full = [("cpsolve", [*PY, "enumerate", path, "--disassemble", "--workers", "1", "--quiet", "--no-save",
                             "--json"])]
        stored = [("cpsolve", [sys.executable, "-c", INNER, path]),
                  ("cpsolve (Python twin)", [sys.executable, "-c", INNER, path, "--twin"])]
        if bt:
            full.append(("burrTxt", [bt, "-d", "-q", path]))
            stored.append(("burrTxt", [bt, "-x", "-d", path]))
        tasks.append((f"{name}: assemble + disassemble", full))
        tasks.append((f"{name}: disassemble the stored solutions", stored))
    for name in DESIGNERS:
        path = str(args.files / f"{name}.xmpuzzle") if args.files else ""
        if not path or not Path(path).exists():
            continue
        full = [("cpsolve", [*PY, "enumerate", path, "--disassemble", "--workers", "1", "--quiet", "--no-save",
                             "--json"])]
        if bt:
            full.append(("burrTxt", [bt, "-d", "-q", path]))
        tasks.append((f"{name}: assemble + disassemble", full))

    rows: list[Row] = []
    for task, runs in tasks:
        samples: dict[str, list[tuple[float, float, str]]] = {p: [] for p, _ in runs}
        for _ in range(args.repeats):
            for program, cmd in runs:  # side by side: alternate the programs within each repeat
                samples[program].append(measure_children(cmd, pin))
        for program, cmd in runs:
            got = samples[program]
            shown = " ".join("python" if c == sys.executable else "'<stored-solutions timer>'" if c == INNER else
                             shown_path(c) for c in cmd)
            rows.append(Row(task, program, shown,
                            statistics.median(c for c, _, _ in got), statistics.median(w for _, w, _ in got),
                            summarize(program, got[-1][2]), args.repeats))
            print(f"{task:45} {program:21} {rows[-1].cpu_seconds:8.3f} s CPU  {rows[-1].output}", file=sys.stderr)

    command = "python benchmarks/disassembly.py" + (f" --burrtxt {shown_path(bt)}" if bt else "") + \
        (f" --files {shown_path(str(args.files))}" if args.files else "") + \
        (f" --repeats {args.repeats}" if args.repeats != 3 else "")
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    stamp, machine = written_on()
    lines = [
        "# Disassembly: cpsolve against BurrTools' burrTxt",
        "",
        f"Written by `{command}` on {stamp} ({machine}); every run pinned to one core"
        f"{' with taskset -c 0' if pin else ''}, median of {args.repeats} runs, the programs alternating"
        + (" (burrTxt built by ../shared/tools/build-peers.sh, BurrTools 0.7.1 at commit b72a71d)." if bt else "."),
        "CPU is the process's user + system time (start-up included: the first row is cpsolve's start-up alone);",
        "the outputs show both did the same work. The stored-solutions timer is `INNER` in the script; the",
        f"machine is shared (load average {load} at the end, 1, 5 and 15 minutes), so compare rows of one",
        "table, not tables of different runs. `vs burrTxt` is the cpsolve row's CPU over burrTxt's in the same task.",
        "",
        "| task | program | CPU s | wall s | vs burrTxt | what it printed |",
        "|---|---|---:|---:|---:|---|",
    ]
    peer_cpu = {r.task: r.cpu_seconds for r in rows if r.program == "burrTxt"}
    for r in rows:
        ratio = f"{r.cpu_seconds / peer_cpu[r.task]:.2f}" if r.program == "cpsolve" and peer_cpu.get(r.task) else ""
        lines.append(f"| {r.task} | {r.program} | {r.cpu_seconds:.3f} | {r.wall_seconds:.3f} | {ratio} | {r.output} |")
    lines += ["", "Commands:", ""]
    for r in rows:
        lines.append(f"- {r.program}: `{r.command}`")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "disassembly.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out_dir / "disassembly.json").write_text(
        json.dumps({"command": command, "when": stamp, "machine": machine, "rows": [asdict(r) for r in rows]},
                   indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out_dir / 'disassembly.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
