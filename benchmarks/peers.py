"""cpsolve next to the programs people already use, on the same problems: writes results/peers.md.

    python benchmarks/peers.py --peers /work/peers/bin                 # every model below
    python benchmarks/peers.py --peers DIR --models soma bedlam --repeats 1

The peers are built from their public sources by `../shared/tools/build-peers.sh DEST BURR_GIT
CWEB_GIT` (BurrTools' `burrTxt`, Knuth's DLX1/DLX2/DLX3); `--peers` names the folder holding the
binaries. A peer that is missing, or that cannot read a problem, is shown as skipped with the reason.

Every program solves the *same* problem: Knuth's programs read cpsolve's own `export --format xcc`
(with the same key restriction, so the search trees are comparable and the number of solutions
found must be equal), BurrTools reads `export --format xmpuzzle` where that format exists (it does
its own symmetry handling, so only its assembly count is compared). Each program runs alone, one
after another, on one core; the figure is the CPU seconds of the whole process (user + system, from
`wait4`), the lower of `--repeats` runs, because this machine is shared and noisy: only ratios
measured in the same invocation mean anything.
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
]
"""(model, extra cpsolve options) in the order they run."""


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


def timed(cmd: list[str], timeout: float, stdin: Path | None = None) -> tuple[int | None, float, str, str]:
    """Run `cmd` alone; (exit status or None on timeout, CPU seconds of the process, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        source = stdin.open("rb") if stdin else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, stdin=source, stdout=out, stderr=err, start_new_session=True)
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


def measure_model(model: str, extra: tuple[str, ...], peers: Path, repeats: int, timeout: float) -> list[Measured]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        xcc = work / "problem.xcc"
        export = subprocess.run([sys.executable, "-m", "cpsolve", "export", model, "--format", "xcc", "-o", str(xcc),
                                 *extra], capture_output=True, text=True, check=False)
        multiplicity = export.returncode == 0 and needs_dlx3(xcc)
        runners = [lambda: run_cpsolve(model, extra, timeout)]
        if export.returncode != 0:
            note = (export.stderr.strip().splitlines() or [""])[-1][:80]
            runners.append(lambda: Measured("Knuth DLX", "skipped", note=f"no XCC: {note}"))
        else:
            # DLX1 reads plain exact cover; a file with multiplicities (k|NAME items) needs DLX3.
            dlx = "dlx3" if multiplicity else "dlx1"
            runners.append(lambda: run_dlx(peers / dlx, xcc, timeout))
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
    name = Path(model).stem if model.endswith(".yaml") else model
    return name + (" " + " ".join(extra) if extra else "")


def render(rows: list[tuple[str, list[Measured]]], command: str, timeout: float, start: float) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# cpsolve next to the peer programs",
        "",
        f"Regenerate with `{command}` (written {when}; {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}).",
        "",
        "CPU seconds of the whole process (process start included), the lower of the repeats, each program",
        "alone on one core, one after another. Knuth's DLX1 (DLX3 where the XCC has multiplicities) reads",
        "cpsolve's own `export --format xcc`: the same problem with the same key restriction, so the",
        "solutions found must be equal. BurrTools' burrTxt reads `export --format xmpuzzle` and does its own",
        "symmetry handling. `ratio` = peer CPU / cpsolve CPU (above 1: cpsolve is faster).",
        f"Starting cpsolve (interpreter, imports, command line; `cpsolve enumerate` of a one-cell puzzle) costs"
        f" {start:.2f} s CPU, included in every cpsolve row; `search` is the row less that start.",
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
        found = {m.program: m.solutions for m in measured if m.status == "ok" and "DLX" in m.program}
        cps = measured[0].solutions
        if found and cps is not None:
            ok = all(v == cps for v in found.values())
            agree.append(f"- {name}: cpsolve found {cps}; " + ", ".join(f"{k} {v}" for k, v in found.items())
                         + ("" if ok else " **DISAGREE**"))
    tail = ["", "Solutions found, cpsolve against Knuth's program on the same XCC:", "", *agree]
    return "\n".join([*lines, *tail]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", type=Path, required=True, help="folder with burrTxt, dlx1, dlx3 (build-peers.sh)")
    parser.add_argument("--models", nargs="*", help="only these (names as in the table)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="per run, seconds")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "peers.md")
    args = parser.parse_args()
    chosen = [(m, e) for m, e in MODELS if not args.models or label(m, e) in args.models or m in args.models]
    start = startup_cpu(args.repeats)
    rows = []
    for model, extra in chosen:
        measured = measure_model(model, extra, args.peers, args.repeats, args.timeout)
        rows.append((label(model, extra), measured))
        for m in measured:
            print(f"{label(model, extra)}: {m.program}: {m.status} {m.cpu if m.cpu is None else round(m.cpu, 2)} "
                  f"{m.solutions} {m.note}", file=sys.stderr, flush=True)
    command = "python benchmarks/peers.py --peers PEERS_BIN" + (
        f" --models {' '.join(args.models)}" if args.models else "") + f" --repeats {args.repeats}" + (
        f" --timeout {args.timeout:g}" if args.timeout != 300.0 else "")
    args.out.write_text(render(rows, command, args.timeout, start), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
