"""cpsolve against BurrTools' `burrTxt -d` on the files designers have; writes results/burrtools-files.md.

    python benchmarks/burrtools_files.py --files DIR --peers ../peers/bin [--timeout 300] [--repeats 1]

It fetches nothing. DIR is a folder of `.xmpuzzle` files; the ones the table was made with are public:

    git clone https://github.com/aaron-siegel/puzzlecad   # src/main/scad/**/*.xmpuzzle (Eyckmans, Lohe, ...)
    git clone https://github.com/kgeusens/burr-data-go    # test/*.xmpuzzle ("3D Onat", "two face 3", ...)

(copy their `.xmpuzzle` files into one folder), and `../peers/bin/burrTxt` is BurrTools' command-line
program built by `../shared/tools/build-peers.sh`. For every problem of every file, one after the
other and each pinned to one core (`taskset -c 0`): `cpsolve enumerate FILE --disassemble` on one
worker, burrTxt (`burrTxt -d FILE`, which assembles and takes apart the same way), then cpsolve on
two workers (on two cores). Each row shows whole-process wall and CPU seconds (start-up included) and
whether the counts agree: BurrTools' "N assemblies and M solutions" are up to rotation and, for
puzzles whose chiral pieces have mirror partners, reflection: cpsolve's third figure (the column
`unique_symmetry` of `--json`'s `disassembly`). A run past `--timeout` is shown as "> T".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from disassembly import shown_path  # benchmarks/disassembly.py: paths shown as `../...`
from scaling import ENV  # benchmarks/scaling.py: a run's environment, as after `pip install`

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cpsolve.output.tables import stamp  # noqa: E402 - after the path above, as the other benchmarks
from cpsolve.puzzle.burrtools import parse_xmpuzzle  # noqa: E402


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    stdout: str
    stderr: str
    timed_out: bool
    returncode: int


def timed(cmd: list[str], timeout: float, cores: str | None) -> Run:
    """One run of `cmd` in its own process (pinned to `cores` when taskset exists): wall and CPU seconds
    of the process and its children (wait4), its output, whether it passed `timeout` (then killed)."""
    full = (["taskset", "-c", cores] if cores and shutil.which("taskset") else []) + cmd
    _children_cpu()  # the baseline: what earlier children used
    start = time.perf_counter()
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        timed_out = True
    wall = time.perf_counter() - start
    return Run(wall, _children_cpu(), out, err, timed_out, proc.returncode)


_CPU = [0.0]


def _children_cpu() -> float:
    """CPU seconds of the children reaped since the last call (RUSAGE_CHILDREN grows as they are reaped)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = r.ru_utime + r.ru_stime
    spent, _CPU[0] = total - _CPU[0], total
    return spent


def cpsolve_counts(run: Run) -> tuple[int, int] | None:
    """(assemblies, solutions) up to rotation and reflection from `enumerate --disassemble --json`."""
    try:
        d = json.loads(run.stdout)["disassembly"]
        return int(d["assemblies"]["unique_symmetry"]), int(d["solutions"]["unique_symmetry"])
    except (ValueError, KeyError, TypeError):
        return None


def burrtxt_counts(run: Run) -> tuple[int, int] | None:
    m = re.search(r"(\d+) assemblies and (\d+) solutions", run.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def seconds(run: Run | None, timeout: float) -> str:
    if run is None:
        return "-"
    if run.timed_out:
        return f"> {timeout:g}"
    return f"{run.wall:.2f} ({run.cpu:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=Path, required=True, help="a folder of .xmpuzzle files")
    ap.add_argument("--peers", type=Path, help="the folder of burrTxt (../shared/tools/build-peers.sh)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run before it is stopped")
    ap.add_argument("--only", default="", help="only files whose name contains this")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results")
    args = ap.parse_args()
    bt = args.peers / "burrTxt" if args.peers else None
    if bt is not None and not bt.exists():
        raise SystemExit(f"no burrTxt in {args.peers}")
    files = sorted(p for p in args.files.glob("*.xmpuzzle") if args.only in p.name)
    if not files:
        raise SystemExit(f"no .xmpuzzle files in {args.files}")
    rows: list[str] = []
    slower: list[str] = []
    for path in files:
        problems = len(parse_xmpuzzle(path).problems)
        for k in range(problems):
            pick = ["--problem", str(k)] if problems > 1 else []
            label = path.stem + (f" #{k}" if problems > 1 else "")
            base = [sys.executable, "-m", "cpsolve", "enumerate", str(path), *pick, "--disassemble", "--json",
                    "--quiet", "--no-save"]
            one = timed([*base, "--workers", "1"], args.timeout, "0")
            peer = timed([str(bt), "-d", "-q", *(["-o", str(k)] if k else []), str(path)], args.timeout, "0") \
                if bt else None
            two = timed([*base, "--workers", "2"], args.timeout, None)
            mine, theirs = cpsolve_counts(one), None if peer is None else burrtxt_counts(peer)
            if one.returncode != 0 and not one.timed_out:
                verdict = "cpsolve: " + " ".join((one.stderr.strip().splitlines() or ["failed"])[-1:])
            elif mine is None or theirs is None:
                verdict = "-"
            else:
                verdict = "yes" if mine == theirs else f"NO: cpsolve {mine}, burrTxt {theirs}"
            counts = "-" if mine is None else f"{mine[0]} / {mine[1]}"
            rows.append(f"| {label} | {counts} | {seconds(one, args.timeout)} | {seconds(two, args.timeout)} | "
                        f"{seconds(peer, args.timeout)} | {verdict} |")
            if peer is not None and not peer.timed_out and (one.timed_out or one.wall > peer.wall):
                slower.append(label)
            print(rows[-1], file=sys.stderr)
    command = (f"python benchmarks/burrtools_files.py --files {shown_path(str(args.files))}"
               + (f" --peers {shown_path(str(args.peers))}" if args.peers else "")
               + (f" --timeout {args.timeout:g}" if args.timeout != 300 else "")
               + (f" --only {args.only}" if args.only else ""))
    lines = [
        "# BurrTools files: cpsolve against burrTxt",
        "",
        f"Written by `{command}` (on {stamp()}).",
        "Files: the `.xmpuzzle` files of github.com/aaron-siegel/puzzlecad and github.com/kgeusens/burr-data-go",
        "(see the script's docstring). Every run is a whole process, start-up included, one after the other:",
        "wall seconds and, in brackets, CPU seconds; cpsolve on one worker and burrTxt pinned to one core,",
        "cpsolve on two workers on two cores. Assemblies / solutions are up to rotation and reflection (as",
        "burrTxt counts them); `agree` compares them with burrTxt's.",
        "",
        "| problem | assemblies / solutions | cpsolve, 1 worker | cpsolve, 2 workers | burrTxt -d | agree |",
        "|---|---:|---:|---:|---:|---|",
        *rows,
        "",
        ("Slower than burrTxt on one core: " + ", ".join(slower) + "." if slower
         else "cpsolve on one worker is at or below burrTxt's time on every file."),
    ]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "burrtools-files.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out_dir / 'burrtools-files.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
