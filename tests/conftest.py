"""Shared helpers: run the real command line in a subprocess, as a user would, and find the processes a run
leaves (Linux /proc)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cpsolve", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def one_line(proc: subprocess.CompletedProcess[str], code: int, *fragments: str) -> None:
    """The command failed with exit status `code` and said why in one line on stderr, with each fragment."""
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cpsolve: error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def run_json(*args: str, cwd: Path | None = None, status: int = 0) -> dict:
    """The JSON object a command prints with --json; `status`: its exit status (3: cut short by --timeout)."""
    proc = run_cli(*args, "--json", cwd=cwd)
    assert proc.returncode == status, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def write_puzzle(tmp_path: Path):
    """Write a puzzle file from YAML text and return its path."""

    def write(text: str, name: str = "puzzle.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


def children(pid: int | None = None, zombies: bool = False) -> list[int]:
    """The live child processes of `pid` (this process by default), from each thread's /proc children file;
    with `zombies`, those that have exited but are not reaped yet too (a run must reap what it started).

    Threads come and go while a run starts or stops workers, so a thread that has ended between the
    listing and the read is skipped rather than failing the test (it had no children to report).
    """
    out: list[int] = []
    for task in Path(f"/proc/{os.getpid() if pid is None else pid}/task").glob("*"):
        try:
            out += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            continue
    return out if zombies else [k for k in out if alive(k)]


def descendants(pid: int, zombies: bool = False) -> list[int]:
    """Every live process below `pid` (children, grandchildren, ...), unreaped ones too with `zombies`."""
    out: list[int] = []
    todo = [pid]
    while todo:
        kids = children(todo.pop(), zombies)
        out += kids
        todo += kids
    return out


def alive(pid: int) -> bool:
    """Running (a zombie has exited: only its parent's bookkeeping is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system, from /proc): how far it has got whatever the load;
    0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until(done, within: float = 60, every: float = 0.01) -> bool:  # type: ignore[no-untyped-def]
    """Poll `done()` until it holds (True) or `within` seconds have passed (False): a test waits for what it
    can see happen, not for a time that a busy machine may need more of."""
    import time

    end = time.monotonic() + within
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(every)
    return True


EXAMPLES = Path(os.environ.get("CPSOLVE_EXAMPLES") or REPO.parent / "shared" / "burrtools-examples")
"""BurrTools' example puzzles (../shared, never copied into the repository): see its README. CPSOLVE_EXAMPLES
names the folder where ../shared is not beside the checkout (a git worktree elsewhere)."""


@pytest.fixture(scope="session")
def example_solutions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Solutions files of BurrTools examples, written by `cpsolve enumerate FILE.xmpuzzle --out`:
    PelikanBurr (optional cells), SolidSixPieceBurrs (piece ranges), AlPackino (a box as a piece)."""
    if not EXAMPLES.is_dir():
        pytest.skip(f"BurrTools example files not found at {EXAMPLES}")
    folder = tmp_path_factory.mktemp("examples")
    out = {}
    for name in ("PelikanBurr", "SolidSixPieceBurrs", "AlPackino"):
        path = folder / f"{name}.jsonl"
        proc = run_cli("enumerate", str(EXAMPLES / f"{name}.xmpuzzle"), "--out", str(path), "-q", "--workers", "1",
                       "--no-journal")
        assert proc.returncode == 0, proc.stderr
        out[name] = path
    return out
