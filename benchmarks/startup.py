"""Start-up: the whole-process CPU of short cpsolve commands, beside BurrTools' burrTxt; writes results/startup.md.

    python benchmarks/startup.py --burrtxt ../peers/bin/burrTxt     # burrTxt from ../shared/tools/build-peers.sh
    python benchmarks/startup.py --repeats 21                       # without BurrTools: the cpsolve rows only

A short command is mostly start-up: the interpreter, the imports, typer building the command line.
Every command runs as its own process pinned to one core (`taskset -c 0` when it exists), as
installed (`python -m cpsolve`, run from the repository's root, with benchmarks/scaling.py's ENV:
compiled bytecode is used; `measure_children` of benchmarks/disassembly.py), the commands
alternating within each of `--repeats` rounds; the table shows the median and the lowest of each
command's CPU seconds (user + system of the process, from the rusage wait4 collects). `python -c pass` is the
floor no Python program starts under. `cpsolve disassemble FILE` takes apart the assembly stored in
the file; `cpsolve enumerate FILE --disassemble` and `burrTxt -d FILE` find the assemblies and take each
apart (PelikanBurr: 12 assemblies), the BurrTools path side by side.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from disassembly import measure_children, shown_path, written_on  # benchmarks/disassembly.py: runs as installed

ROOT = Path(__file__).resolve().parent.parent
PELIKAN = ROOT.parent / "shared" / "burrtools-examples" / "PelikanBurr.xmpuzzle"
PY = [sys.executable, "-m", "cpsolve"]


def shown(cmd: list[str]) -> str:
    """A command as the table shows it: `python` for this interpreter, `../` for paths beside the repository."""
    return " ".join("python" if c == sys.executable else shown_path(c) for c in cmd)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--burrtxt", type=Path, help="burrTxt built by ../shared/tools/build-peers.sh")
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "startup.md")
    args = ap.parse_args()
    pin = shutil.which("taskset") is not None
    rows: list[tuple[str, list[str]]] = [
        ("the interpreter alone", [sys.executable, "-c", "pass"]),
        ("help", [*PY, "--help"]),
        ("list the built-in models", [*PY, "list"]),
        ("all of Soma's solutions (dlx)", [*PY, "enumerate", "soma", "--no-save", "-q"]),
        ("one Soma solution, drawn as text", [*PY, "solve", "soma"]),
    ]
    if PELIKAN.exists():
        rows.append(("PelikanBurr: take the stored assembly apart", [*PY, "disassemble", str(PELIKAN)]))
        rows.append(("PelikanBurr: assemble and take apart (cpsolve)",
                     [*PY, "enumerate", str(PELIKAN), "--disassemble", "--workers", "1", "--no-save", "-q"]))
        if args.burrtxt:
            rows.append(("PelikanBurr: assemble and take apart (burrTxt)", [str(args.burrtxt), "-d", str(PELIKAN)]))
    samples: dict[str, list[float]] = {task: [] for task, _ in rows}
    for _ in range(args.repeats):
        for task, cmd in rows:  # alternating: a slower moment of the shared machine hits every row alike
            samples[task].append(measure_children(cmd, pin)[0])
    command = "python benchmarks/startup.py" + (f" --burrtxt {shown_path(str(args.burrtxt))}" if args.burrtxt else "") \
        + (f" --repeats {args.repeats}" if args.repeats != 11 else "")
    stamp, machine = written_on()
    lines = [
        "# Start-up: whole-process CPU of short commands",
        "",
        f"Written by `{command}` on {stamp} ({machine}).",
        "",
        f"Every run pinned to one core{' with taskset -c 0' if pin else ''}, the commands alternating, "
        f"{args.repeats} rounds. CPU is the process's",
        "user + system time from wait4 (start-up, imports and the work); the machine is shared, so compare rows of",
        "one table, not tables of different runs.",
        "",
        "| task | command | CPU s (median) | CPU s (lowest) |",
        "|---|---|---:|---:|",
    ]
    for task, cmd in rows:
        got = samples[task]
        lines.append(f"| {task} | `{shown(cmd)}` | {statistics.median(got):.3f} | {min(got):.3f} |")
        print(f"{task:50} {statistics.median(got):.3f} s CPU", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
