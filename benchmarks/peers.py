"""cpsolve next to the programs people already use, on the same problems: writes results/peers.md.

    python benchmarks/peers.py --peers /work/peers/bin                 # every model below
    python benchmarks/peers.py --peers DIR --models soma bedlam --repeats 1

The peers are built from their public sources by `../shared/tools/build-peers.sh DEST BURR_GIT
CWEB_GIT` (BurrTools' `burrTxt`, Knuth's DLX1/DLX2/DLX3); `--peers` names the folder holding the
binaries. xcover (John Rudge's numba implementation of Knuth's Algorithm C, `pip install xcover`) is
run from this interpreter when it imports. A peer that is missing, or that cannot read a problem, is
shown as skipped with the reason.

Every program solves the *same* problem: Knuth's programs read cpsolve's own `export --format xcc`
(with the same key restriction, so the search trees are comparable and the number of solutions
found must be equal), and so does xcover, through a small script written to the temporary folder at
run time (it has no multiplicities, so it skips the XCC files that need DLX3). BurrTools reads
`export --format xmpuzzle` where that format exists (it does its own symmetry handling, so only its
assembly count is compared). Each program runs alone, one after another, on one core; the figure
is the CPU seconds of the whole process (user + system, from `wait4`), the lower of `--repeats`
runs, because this machine is shared and noisy: only ratios measured in the same invocation mean
anything.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PUZZLES = REPO / "benchmarks" / "puzzles"

MODELS: list[tuple[str, tuple[str, ...]]] = [
    ("soma", ()),
    ("cubissimo", ()),
    ("slothouber-graatsma", ()),
    ("t-tetracube-6x6x2", ()),
    ("conway-5x5x5", ()),
    ("conway-5x5x5", ("--no-symmetry-breaking",)),
    ("y-pentacube-5x5x5", ()),
    ("bedlam", ()),
    ("tetris-cube", ()),
    # Not tuned for: the engine was never profiled on these.
    (str(PUZZLES / "pentominoes-6x10.yaml"), ()),
    (str(PUZZLES / "pentominoes-3x4x5.yaml"), ()),
    (str(PUZZLES / "l-tetracube-2x4x4.yaml"), ()),
    # BurrTools' other grids (issue 37): the built-in models, then BurrTools' own example files
    ("kanoodle-pyramid", ()),
    ("ball-tetrahedron-20", ()),
    ("hexiamonds-6x6", ()),
    ("hexagon-prism-8", ()),
]
"""(model, extra cpsolve options) in the order they run."""
GRID_EXAMPLES = ("BallRoom", "Bermuda", "HexSticks")
"""BurrTools example files on the other grids, run from `--examples` (../shared/burrtools-examples) when there."""


@dataclass
class Measured:
    program: str
    status: str
    """ok, timeout, failed, or skipped (then `note` says why)."""
    cpu: float | None = None
    solutions: int | None = None
    """Solutions the program found (cpsolve: raw solutions of the restricted problem)."""
    nodes: int | None = None
    mems: str | None = None
    note: str = ""


def timed(cmd: list[str], timeout: float, stdin: Path | None = None,
          env: dict[str, str] | None = None) -> tuple[int | None, float, str, str]:
    """Run `cmd` alone; (exit status or None on timeout, CPU seconds of the process, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        source = stdin.open("rb") if stdin else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, stdin=source, stdout=out, stderr=err, start_new_session=True,
                                env=None if env is None else {**os.environ, **env})
        deadline = time.monotonic() + timeout
        status: int | None = None
        while True:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(wait_status)
                break
            if time.monotonic() > deadline:
                os.killpg(proc.pid, 9)
                _, _, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = status if status is not None else -9
        if stdin:
            source.close()  # type: ignore[union-attr]
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return status, cpu, out.read().decode(errors="replace"), err.read().decode(errors="replace")


def best(runs: list[Measured]) -> Measured:
    done = [r for r in runs if r.status == "ok"]
    return min(done, key=lambda r: r.cpu or 0.0) if done else runs[0]


def run_cpsolve(model: str, extra: tuple[str, ...], timeout: float) -> Measured:
    cmd = [sys.executable, "-m", "cpsolve", "enumerate", model, "-b", "dlx", "-w", "1", "--json", "--no-save", "-q",
           *extra]
    status, cpu, out, err = timed(cmd, timeout)
    if status is None:
        return Measured("cpsolve dlx", "timeout", cpu)
    if status != 0:
        return Measured("cpsolve dlx", "failed", cpu, note=err.strip().splitlines()[-1][:80] if err.strip() else "")
    data = json.loads(out)
    return Measured("cpsolve dlx", "ok", cpu, data["solutions_found"],
                    note=f"{data['total']} / {data['unique_rotation']} / {data['unique_symmetry']}; "
                         f"enumeration {data['seconds']:.2f} s")


_ALTOGETHER = re.compile(r"Altogether (\d+) solutions?, (\d+\+\d+) mems.*?(\d+) nodes")


def run_dlx(binary: Path, xcc: Path, timeout: float) -> Measured:
    name = f"Knuth {binary.name.upper()}"
    if not binary.exists():
        return Measured(name, "skipped", note=f"{binary} not built (../shared/tools/build-peers.sh)")
    status, cpu, _, err = timed([str(binary)], timeout, stdin=xcc)
    if status is None:
        return Measured(name, "timeout", cpu)
    found = _ALTOGETHER.search(err)
    if status != 0 or not found:
        return Measured(name, "failed", cpu, note=(err.strip().splitlines() or [""])[-1][:80])
    return Measured(name, "ok", cpu, int(found.group(1)), int(found.group(3)), found.group(2))


def needs_dlx3(xcc: Path) -> bool:
    """True when the item line carries multiplicities (`k|NAME`), which only DLX3 reads."""
    items = next(line for line in xcc.read_text().splitlines() if not line.startswith("|"))
    return any(re.fullmatch(r"\d+(:\d+)?\|\S+", token) for token in items.split())


XCOVER_SCRIPT = '''"""Count the exact covers of the Knuth XCC file argv[1] with xcover (written by benchmarks/peers.py).

Prints: solutions, CPU seconds when xcover was imported (interpreter, numba, xcover's compiled code),
CPU seconds when the file was read.
"""
import re
import sys
import time

import xcover

imported = time.process_time()
primary, secondary, options = [], [], []
item_line = True
with open(sys.argv[1], encoding="utf-8") as text:
    for line in text:
        tokens = line.split()
        if not tokens or tokens[0].startswith("|"):
            continue  # blank or comment line, as DLX1 reads them
        if item_line:
            item_line = False
            if any(re.fullmatch(r"\\d+(:\\d+)?\\|.+", t) for t in tokens):
                sys.exit("xcover has no multiplicities (items covered k times, DLX3)")
            bar = tokens.index("|") if "|" in tokens else len(tokens)
            primary, secondary = tokens[:bar], tokens[bar + 1:]
        else:
            options.append(tokens)
read = time.process_time()
colored = any(":" in item for option in options for item in option)
found = sum(1 for _ in xcover.covers(options, primary=primary, secondary=secondary, colored=colored))
print(found, f"{imported:.3f}", f"{read:.3f}")
'''
"""The xcover peer: run as its own process (`python SCRIPT problem.xcc`) so its CPU is measured like the others'."""


@dataclass
class Xcover:
    """Whether this interpreter runs xcover: its version, or why not; what a cold process costs it."""
    version: str | None
    reason: str = ""
    numba: str = ""
    startup: float | None = None
    """CPU seconds of the script on a one-option problem, numba's compiled code loaded from its cache."""
    compile_cpu: float | None = None
    """The same with an empty numba cache: what the very first process pays to compile xcover."""


def find_xcover(repeats: int) -> Xcover:
    check = subprocess.run([sys.executable, "-c", "import numba, xcover; print(xcover.__version__, numba.__version__)"],
                           capture_output=True, text=True, check=False)  # also fills numba's cache on a first run
    if check.returncode != 0:
        return Xcover(None, "not importable: " + (check.stderr.strip().splitlines() or [""])[-1][:70])
    version, numba = check.stdout.split()
    found = Xcover(f"xcover {version}", numba=f"numba {numba}")
    with tempfile.TemporaryDirectory() as tmp:
        script, tiny = Path(tmp) / "xcover_count.py", Path(tmp) / "tiny.xcc"
        script.write_text(XCOVER_SCRIPT)
        tiny.write_text("a b\na b\n")  # one option; xcover 0.2.6 fails on a problem of a single item
        runs = [timed([sys.executable, str(script), str(tiny)], 60.0) for _ in range(max(repeats, 3))]
        if all(status == 0 for status, *_ in runs):
            found.startup = min(cpu for _, cpu, *_ in runs)
        status, cpu, *_ = timed([sys.executable, str(script), str(tiny)], 300.0,
                                env={"NUMBA_CACHE_DIR": str(Path(tmp) / "numba-cache")})
        found.compile_cpu = cpu if status == 0 else None
    return found


def run_xcover(xcover: Xcover, xcc: Path, multiplicity: bool, workdir: Path, timeout: float) -> Measured:
    name = xcover.version or "xcover"
    if xcover.version is None:
        return Measured(name, "skipped", note=xcover.reason)
    if multiplicity:
        return Measured(name, "skipped", note="multiplicities in the XCC (items covered k times, DLX3): not in xcover")
    script = workdir / "xcover_count.py"
    script.write_text(XCOVER_SCRIPT)
    status, cpu, out, err = timed([sys.executable, str(script), str(xcc)], timeout)
    if status is None:
        return Measured(name, "timeout", cpu)
    if status != 0 or len(out.split()) != 3:
        return Measured(name, "failed", cpu, note=(err.strip().splitlines() or [""])[-1][:80])
    found, imported, read = out.split()
    return Measured(name, "ok", cpu, int(found),
                    note=f"start-up (interpreter, numba, import xcover) {float(imported):.2f} s; "
                         f"XCC read {float(read) - float(imported):.2f} s")


def run_burrtxt(peers: Path, model: str, extra: tuple[str, ...], workdir: Path, timeout: float) -> Measured:
    # build-peers.sh also builds burrTxt-nosym: BurrTools with its result-symmetry breaking compiled out.
    binary = peers / ("burrTxt-nosym" if "--no-symmetry-breaking" in extra else "burrTxt")
    name = f"BurrTools {binary.name}"
    if not binary.exists():
        return Measured(name, "skipped", note=f"{binary} not built (../shared/tools/build-peers.sh)")
    target = workdir / "puzzle.xmpuzzle"
    export = subprocess.run([sys.executable, "-m", "cpsolve", "export", model, "--format", "xmpuzzle", "-o",
                             str(target)], capture_output=True, text=True, check=False)
    if export.returncode != 0:
        return Measured(name, "skipped", note="cpsolve cannot write this model as .xmpuzzle: "
                        + (export.stderr.strip().splitlines() or [""])[-1][:60])
    status, cpu, out, _ = timed([str(binary), "-q", str(target)], timeout)
    if status is None:
        return Measured(name, "timeout", cpu)
    found = re.search(r"(\d+)\s+assembl", out) or re.search(r"assemblies\D*(\d+)", out)
    return Measured(name, "ok" if status == 0 else "failed", cpu, int(found.group(1)) if found else None,
                    note=" ".join(out.split())[:80])


def startup_cpu(repeats: int) -> float:
    """CPU seconds of `cpsolve enumerate` on a one-cell puzzle: the interpreter, imports and the
    command line, which every cpsolve row below includes and no search needs."""
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp) / "tiny.yaml"
        tiny.write_text("name: tiny\ncontainer: {box: [1, 1, 1]}\npieces:\n  A: {cells: [[0, 0, 0]]}\n")
        return min(run_cpsolve(str(tiny), (), 60.0).cpu or 0.0 for _ in range(max(repeats, 3)))


def measure_model(model: str, extra: tuple[str, ...], peers: Path, xcover: Xcover, repeats: int,
                  timeout: float) -> list[Measured]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        xcc = work / "problem.xcc"
        export = subprocess.run([sys.executable, "-m", "cpsolve", "export", model, "--format", "xcc", "-o", str(xcc),
                                 *extra], capture_output=True, text=True, check=False)
        multiplicity = export.returncode == 0 and needs_dlx3(xcc)
        runners: list[Callable[[], Measured]] = [lambda: run_cpsolve(model, extra, timeout)]
        if export.returncode != 0:
            note = (export.stderr.strip().splitlines() or [""])[-1][:80]
            runners.append(lambda: Measured("Knuth DLX", "skipped", note=f"no XCC: {note}"))
            runners.append(lambda: Measured("xcover", "skipped", note=f"no XCC: {note}"))
        else:
            # DLX1 reads plain exact cover; a file with multiplicities (k|NAME items) needs DLX3.
            dlx = "dlx3" if multiplicity else "dlx1"
            runners.append(lambda: run_dlx(peers / dlx, xcc, timeout))
            runners.append(lambda: run_xcover(xcover, xcc, multiplicity, work, timeout))
        runners.append(lambda: run_burrtxt(peers, model, extra, work, timeout))
        out = []
        for runner in runners:
            runs = []
            for _ in range(repeats):
                runs.append(runner())
                if runs[-1].status in ("skipped", "timeout"):
                    break
            out.append(best(runs))
        return out


def label(model: str, extra: tuple[str, ...]) -> str:
    name = Path(model).stem if model.endswith((".yaml", ".xmpuzzle")) else model
    return name + (" " + " ".join(extra) if extra else "")


def same_problem(measured: list[Measured]) -> dict[str, int]:
    """Solutions found by the programs that read cpsolve's XCC (Knuth's DLX, xcover), which must equal cpsolve's."""
    return {m.program: m.solutions for m in measured
            if m.status == "ok" and m.solutions is not None and ("DLX" in m.program or "xcover" in m.program)}


def render(rows: list[tuple[str, list[Measured]]], command: str, timeout: float, start: float, xcover: Xcover) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if xcover.version is None:
        xcover_line = f"xcover is skipped: {xcover.reason}."
    else:
        startup = ("?" if xcover.startup is None else f"{xcover.startup:.2f}")
        compiled = ("" if xcover.compile_cpu is None else
                    f" The very first process, with numba's cache empty, compiles xcover: {xcover.compile_cpu:.1f} s.")
        xcover_line = ("xcover reads the same XCC in a Python process of its own; starting it (interpreter, numba,"
                       f" xcover's compiled code from numba's cache; a one-option problem) costs {startup} s CPU,"
                       " included in every xcover row." + compiled)
    lines = [
        "# cpsolve next to the peer programs",
        "",
        f"Regenerate with `{command}` (written {when}; {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}"
        f"{f', {xcover.version}, {xcover.numba}' if xcover.version else ''}).",
        "",
        "CPU seconds of the whole process (process start included), the lower of the repeats, each program",
        "alone on one core, one after another. Knuth's DLX1 (DLX3 where the XCC has multiplicities) reads",
        "cpsolve's own `export --format xcc`: the same problem with the same key restriction, so the",
        "solutions found must be equal; so does xcover (a numba Algorithm C; no multiplicities, so not where",
        "DLX3 is needed). BurrTools' burrTxt reads `export --format xmpuzzle` and does its own",
        "symmetry handling. `ratio` = peer CPU / cpsolve CPU (above 1: cpsolve is faster).",
        f"Starting cpsolve (interpreter, imports, command line; `cpsolve enumerate` of a one-cell puzzle) costs"
        f" {start:.2f} s CPU, included in every cpsolve row; `search` is the row less that start.",
        xcover_line,
        "",
        "| model | program | status | CPU s | search s | solutions found | nodes | mems | ratio | note |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, measured in rows:
        base = measured[0].cpu if measured[0].status == "ok" else None
        for m in measured:
            cpu = "-" if m.cpu is None else (f"> {timeout:.0f}" if m.status == "timeout" else f"{m.cpu:.2f}")
            ratio = f"{m.cpu / base:.2f}" if base and m.cpu and m.status == "ok" and m is not measured[0] else ""
            search = f"{max(m.cpu - start, 0.0):.2f}" if m is measured[0] and m.cpu and m.status == "ok" else ""
            lines.append(f"| {name} | {m.program} | {m.status} | {cpu} | {search}"
                         f" | {'' if m.solutions is None else m.solutions}"
                         f" | {'' if m.nodes is None else m.nodes} | {m.mems or ''} | {ratio} | {m.note} |")
    agree = []
    for name, measured in rows:
        found = same_problem(measured)
        cps = measured[0].solutions
        if found and cps is not None:
            ok = all(v == cps for v in found.values())
            agree.append(f"- {name}: cpsolve found {cps}; " + ", ".join(f"{k} {v}" for k, v in found.items())
                         + ("" if ok else " **DISAGREE**"))
    tail = ["", "Solutions found, cpsolve against Knuth's program and xcover on the same XCC:", "", *agree]
    return "\n".join([*lines, *tail]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=Path, required=True, help="folder with burrTxt, dlx1, dlx3 (build-peers.sh)")
    parser.add_argument("--models", nargs="*", help="only these (names as in the table)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="per run, seconds")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "peers.md")
    parser.add_argument("--examples", type=Path, default=REPO.parent / "shared" / "burrtools-examples",
                        help="BurrTools' example files (the other grids' rows; skipped where absent)")
    args = parser.parse_args()
    models = MODELS + [(str(args.examples / f"{name}.xmpuzzle"), ()) for name in GRID_EXAMPLES
                       if (args.examples / f"{name}.xmpuzzle").is_file()]
    chosen = [(m, e) for m, e in models if not args.models or label(m, e) in args.models or m in args.models]
    start = startup_cpu(args.repeats)
    xcover = find_xcover(args.repeats)
    print(f"xcover: {xcover.version or xcover.reason} {xcover.numba}; start-up {xcover.startup} s,"
          f" first compile {xcover.compile_cpu} s", file=sys.stderr, flush=True)
    rows = []
    for model, extra in chosen:
        measured = measure_model(model, extra, args.peers, xcover, args.repeats, args.timeout)
        rows.append((label(model, extra), measured))
        for m in measured:
            print(f"{label(model, extra)}: {m.program}: {m.status} {m.cpu if m.cpu is None else round(m.cpu, 2)} "
                  f"{m.solutions} {m.note}", file=sys.stderr, flush=True)
        if measured[0].solutions is not None and any(v != measured[0].solutions
                                                     for v in same_problem(measured).values()):
            print(f"{label(model, extra)}: SOLUTIONS DISAGREE: cpsolve {measured[0].solutions}, "
                  f"{same_problem(measured)}", file=sys.stderr, flush=True)
    command = "python benchmarks/peers.py --peers PEERS_BIN" + (
        f" --models {' '.join(args.models)}" if args.models else "") + f" --repeats {args.repeats}" + (
        f" --timeout {args.timeout:g}" if args.timeout != 300.0 else "") + (
        " --examples EXAMPLES_DIR" if args.examples != REPO.parent / "shared" / "burrtools-examples" else "")
    args.out.write_text(render(rows, command, args.timeout, start, xcover), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
