"""cpsolve against BurrTools' `burrTxt -d` on the files designers have; writes results/burrtools-files.md.

    python benchmarks/burrtools_files.py --files DIR --peers ../peers/bin [--timeout 300] [--levels-timeout 120]

It fetches nothing. DIR is a folder of `.xmpuzzle` files (`--files` may be given again for more); the
ones the table was made with are public, and BurrTools' own examples are added from
../shared/burrtools-examples when that folder is there (`--no-shared` leaves them out).
`benchmarks/fetch_public_files.sh DIR` makes DIR from github.com/aaron-siegel/puzzlecad and
github.com/kgeusens/burr-data-go (burr-data-go's files as `bdg.NAME.xmpuzzle`, spaces as `_`),
and `../peers/bin` holds BurrTools' `burrTxt` and `btlevels` built by `../shared/tools/build-peers.sh`.
Files on the prism grid run as the cube files do (cpsolve and BurrTools both take prisms apart); files of
the grids without a disassembler in either (spheres, rhombic, tetra-octa) are listed and left out: their
counts against burrTxt's are in results/peers.md.

For every problem of every file, one after the other: `cpsolve enumerate FILE --disassemble` on one
worker and burrTxt (`burrTxt -d FILE`, which assembles and takes apart the same way), both pinned to
one core (`taskset -c 0`), then cpsolve on two workers (on two cores; `--no-two` leaves it out). Each
row shows whole-process wall and CPU seconds (start-up included), their CPU ratio, and whether the
counts agree: BurrTools' "N assemblies and M solutions" are up to rotation and, for puzzles whose
chiral pieces have mirror partners, reflection: cpsolve's third figure (the column `unique_symmetry`
of `--json`'s `disassembly`). A run past `--timeout` is shown as "> T".

Levels (with `btlevels` there): BurrTools' own disassembler takes each of its assemblies apart
(`btlevels -o K FILE`, stopped after `--levels-timeout` seconds: the assemblies it printed by then are
compared), and cpsolve takes the very same assemblies apart twice: as BurrTools does (the first
shortest way, the pieces in BurrTools' order: `disassemble(..., first_found=True)`), which must give the
same level text, and as `enumerate --disassemble` does (the puzzle's `PlacedDisassembler`, choosing
between the shortest ways), which must agree on whether it comes apart and on the first figure.
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
from dataclasses import dataclass, field
from pathlib import Path

from disassembly import shown_path  # benchmarks/disassembly.py: paths shown as `../...`
from scaling import ENV  # benchmarks/scaling.py: a run's environment, as after `pip install`

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "burrtools-examples"
sys.path.insert(0, str(ROOT))

from cpsolve.analysis.disassembly import TAKEN_APART, disassemble, puzzle_groups  # noqa: E402
from cpsolve.analysis.placed import PlacedDisassembler  # noqa: E402
from cpsolve.output.solutions import rows_as_placements, rows_of  # noqa: E402
from cpsolve.output.tables import stamp  # noqa: E402 - after the path above, as the other benchmarks
from cpsolve.problem.placements import packing_problem  # noqa: E402
from cpsolve.puzzle.burrtools import BurrFile, StoredAssembly, parse_xmpuzzle, puzzle_of  # noqa: E402
from cpsolve.puzzle.burrtools import _assembly as burrtools_assembly  # noqa: E402
from cpsolve.puzzle.burrtools_placements import assembly_pieces  # noqa: E402
from cpsolve.puzzle.grid import BY_BURR_TYPE  # noqa: E402

TARGET_SECONDS = 0.5
"""Where burrTxt takes longer than this (CPU), cpsolve must take no longer; below it, at most MARGIN more."""
MARGIN = 0.15


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


# ----------------------------------------------------------------------------- levels against btlevels


@dataclass
class Levels:
    """How cpsolve's levels compare with btlevels' on the assemblies btlevels printed."""

    assemblies: int = 0
    complete: bool = True
    first_found_differ: list[str] = field(default_factory=list)
    """`assembly N: BurrTools' level, cpsolve's (first way)` where the texts differ."""
    best_differ: list[str] = field(default_factory=list)
    """Where the level `enumerate --disassemble` gives differs in whether it comes apart or its first figure."""

    def text(self) -> str:
        if not self.assemblies:
            return "-"
        head = f"{self.assemblies}{'' if self.complete else ' (first ones)'}: "
        if not self.first_found_differ and not self.best_differ:
            return head + "all agree"
        kinds = (("first way", self.first_found_differ), ("enumerate's", self.best_differ))
        parts = [f"{what} differs on {len(cases)} ({'; '.join(cases[:3])})" for what, cases in kinds if cases]
        return head + ", ".join(parts)


LINE = re.compile(r"assembly (\d+):(.*) (level (\S+)|stuck)$")


def compare_levels(bf: BurrFile, k: int, output: str, complete: bool) -> Levels:
    """Each assembly btlevels printed, taken apart by cpsolve both ways (see the module's docstring)."""
    puzzle = puzzle_of(bf, k)
    groups = puzzle_groups(puzzle)
    problem = packing_problem(puzzle)
    placed = PlacedDisassembler(problem, groups, grid=puzzle.grid)
    got = Levels(complete=complete)
    for line in output.splitlines():
        m = LINE.match(line)
        if m is None:
            continue
        got.assemblies += 1
        theirs = m.group(4)
        spots = StoredAssembly(burrtools_assembly(m.group(2), bf.where, "btlevels"))
        pieces = assembly_pieces(bf, k, spots, as_placed=True)  # in BurrTools' order: its first way depends on it
        first = disassemble(pieces, groups, first_found=True, grid=puzzle.grid).level_text()
        if first != theirs:
            got.first_found_differ.append(f"{m.group(1)}: {theirs or 'stuck'} / {first or 'stuck'}")
        rows = rows_of(problem, pieces)
        if rows is None:
            got.best_differ.append(f"{m.group(1)}: not one of cpsolve's assemblies")
            continue
        level = placed.take_apart([tuple(sorted(rows_as_placements(problem, rows)))])[0][0]
        if (level is None) != (theirs is None) or (level is not None and theirs is not None
                                                  and level[0] != int(theirs.split(".")[0])):
            got.best_differ.append(f"{m.group(1)}: {theirs or 'stuck'} / {level or 'stuck'}")
    return got


def run_btlevels(btlevels: Path, path: Path, k: int, timeout: float) -> tuple[str, bool]:
    """btlevels' output for problem k (line-buffered, so a run stopped at `timeout` keeps what it printed)
    and whether it finished."""
    line_buffered = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []
    run = timed([*line_buffered, str(btlevels), *(["-o", str(k)] if k else []), str(path)], timeout, "0")
    return run.stdout, not run.timed_out


# ----------------------------------------------------------------------------- the table


def loads(values: tuple[float, float, float]) -> str:
    return ", ".join(f"{v:.1f}" for v in values)


def verdict(one: Run, peer: Run | None) -> str | None:
    """Why this row misses the target (see TARGET_SECONDS), or None."""
    if peer is None or peer.timed_out:
        return None
    if one.timed_out:
        return "cpsolve timed out"
    allowed = peer.cpu if peer.cpu > TARGET_SECONDS else peer.cpu + MARGIN
    return None if one.cpu <= allowed else f"{one.cpu:.2f} s against {allowed:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=Path, action="append", required=True, help="a folder of .xmpuzzle files")
    ap.add_argument("--no-shared", action="store_true", help="leave out ../shared/burrtools-examples")
    ap.add_argument("--peers", type=Path, help="the folder of burrTxt and btlevels (../shared/tools/build-peers.sh)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run before it is stopped")
    ap.add_argument("--levels-timeout", type=float, default=120.0, help="seconds of btlevels per problem")
    ap.add_argument("--no-two", action="store_true", help="leave out cpsolve on two workers")
    ap.add_argument("--only", default="", help="only files whose name contains this")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "results")
    args = ap.parse_args()
    bt = args.peers / "burrTxt" if args.peers else None
    btlevels = args.peers / "btlevels" if args.peers and (args.peers / "btlevels").exists() else None
    if bt is not None and not bt.exists():
        raise SystemExit(f"no burrTxt in {args.peers}")
    folders = [*args.files, *([] if args.no_shared or not SHARED.is_dir() else [SHARED])]
    files = sorted((p for d in folders for p in d.glob("*.xmpuzzle") if args.only in p.name), key=lambda p: p.name)
    if not files:
        raise SystemExit(f"no .xmpuzzle files in {', '.join(map(str, folders))}")
    load_before = os.getloadavg()
    rows: list[str] = []
    missed: list[str] = []
    other_grids: list[str] = []
    for path in files:
        bf = parse_xmpuzzle(path)
        if BY_BURR_TYPE[bf.grid].name not in TAKEN_APART:
            other_grids.append(path.stem)
            continue
        for k in range(len(bf.problems)):
            pick = ["--problem", str(k)] if len(bf.problems) > 1 else []
            label = path.stem + (f" #{k}" if len(bf.problems) > 1 else "")
            base = [sys.executable, "-m", "cpsolve", "enumerate", str(path), *pick, "--disassemble", "--json",
                    "--quiet", "--no-save"]
            one = timed([*base, "--workers", "1"], args.timeout, "0")
            peer = timed([str(bt), "-d", "-q", *(["-o", str(k)] if k else []), str(path)], args.timeout, "0") \
                if bt else None
            two = None if args.no_two else timed([*base, "--workers", "2"], args.timeout, None)
            mine, theirs = cpsolve_counts(one), None if peer is None else burrtxt_counts(peer)
            if one.returncode != 0 and not one.timed_out:
                agree = "cpsolve: " + " ".join((one.stderr.strip().splitlines() or ["failed"])[-1:])
            elif mine is None or theirs is None:
                agree = "-"
            else:
                agree = "yes" if mine == theirs else f"NO: cpsolve {mine}, burrTxt {theirs}"
            levels = "-"
            if btlevels is not None and one.returncode == 0 and not one.timed_out:
                output, complete = run_btlevels(btlevels, path, k, args.levels_timeout)
                levels = compare_levels(bf, k, output, complete).text()
            ratio = "-" if peer is None or peer.timed_out or one.timed_out or not peer.cpu else \
                f"{one.cpu / peer.cpu:.2f}"
            counts = "-" if mine is None else f"{mine[0]} / {mine[1]}"
            rows.append(f"| {label} | {counts} | {seconds(one, args.timeout)} | {seconds(two, args.timeout)} | "
                        f"{seconds(peer, args.timeout)} | {ratio} | {agree} | {levels} |")
            if (why := verdict(one, peer)) is not None:
                missed.append(f"{label} ({why})")
            print(rows[-1], file=sys.stderr)
    load_after = os.getloadavg()
    shown_files = " ".join(f"--files {shown_path(str(d))}" for d in args.files)
    command = (f"python benchmarks/burrtools_files.py {shown_files}"
               + (f" --peers {shown_path(str(args.peers))}" if args.peers else "")
               + (f" --timeout {args.timeout:g}" if args.timeout != 300 else "")
               + (f" --levels-timeout {args.levels_timeout:g}" if args.levels_timeout != 120 else "")
               + (" --no-shared" if args.no_shared else "") + (" --no-two" if args.no_two else "")
               + (f" --only {args.only}" if args.only else ""))
    lines = [
        "# BurrTools files: cpsolve against burrTxt",
        "",
        f"Written by `{command}` (on {stamp()}).",
        f"Load average (1, 5, 15 min) on this shared {os.cpu_count()}-CPU machine: {loads(load_before)} at the start, "
        f"{loads(load_after)} at the end.",
        "Files: the `.xmpuzzle` files of github.com/aaron-siegel/puzzlecad and github.com/kgeusens/burr-data-go,",
        "and BurrTools' examples from ../shared/burrtools-examples (see the script's docstring). Every run is a",
        "whole process, start-up included, one after the other: wall seconds and, in brackets, CPU seconds;",
        "cpsolve on one worker and burrTxt pinned to one core, cpsolve on two workers on two cores. `CPU ratio` is",
        "cpsolve's (one worker) over burrTxt's. Assemblies / solutions are up to rotation and reflection (as",
        "burrTxt counts them); `counts agree` compares them with burrTxt's. `levels` compares, assembly by",
        "assembly, cpsolve's levels with those of BurrTools' own disassembler (btlevels) on the same assemblies.",
        "",
        "| problem | assemblies / solutions | cpsolve, 1 worker | cpsolve, 2 workers | burrTxt -d | CPU ratio | "
        "counts agree | levels (btlevels) |",
        "|---|---:|---:|---:|---:|---:|---|---|",
        *rows,
        "",
        (f"The target (CPU at or below burrTxt's where burrTxt takes over {TARGET_SECONDS} s, at most {MARGIN} s "
         "more elsewhere) is missed on: " + ", ".join(missed) + "." if missed else
         f"cpsolve on one worker is at or below burrTxt's CPU time wherever burrTxt takes over {TARGET_SECONDS} s, "
         f"and at most {MARGIN} s above it elsewhere."),
    ]
    if other_grids:
        lines += ["", "Left out (grids without a disassembler, in BurrTools as in cpsolve; their counts against "
                  "burrTxt's are in results/peers.md): " + ", ".join(other_grids) + "."]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "burrtools-files.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out_dir / 'burrtools-files.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
