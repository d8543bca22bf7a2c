"""Bad-size inputs are refused in one line naming the limit and its option, before memory is spent.

Each file runs in a child process under a 2 GB address-space limit (`RLIMIT_AS`): without the
limits these runs exhaust memory (a MemoryError traceback, or the whole RAM on a machine without a
cap); with them they end at once with exit status 2.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from cpsolve import limits
from cpsolve.problem.placements import packing_problem
from cpsolve.puzzle.catalog import builtin_names, load

TWO_GB = 2 * 1024**3
PIECES = "pieces:\n  A: {cells: [[0,0,0], [1,0,0]], count: 2}\n"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (TWO_GB, TWO_GB))


def run_capped(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpsolve", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, check=False, preexec_fn=_cap_memory)
    return proc, time.perf_counter() - began


def alias_bomb(levels: int = 7) -> str:
    """4.5 KB of YAML whose aliases expand into a drawing of 9**levels rows (gigabytes)."""
    lines = ['r: &r0 ["' + "#" * 40 + '", "' + "#" * 40 + '"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &r{i} [" + ", ".join([f"*r{i - 1}"] * 9) + "]")
    return "\n".join(lines) + f"\nname: bomb\ncontainer:\n  layers: *r{levels}\n" + PIECES


BAD_SIZES = {
    "huge-box": ("name: x\ncontainer: {box: [1000, 1000, 1000]}\n" + PIECES, "--max-cells", "container.box"),
    "huge-union": ("name: x\ncontainer: {union: [{size: [2000, 2000, 1]}, {at: [0, 0, 1], size: [2000, 2000, 1]}]}\n"
                   + PIECES, "--max-cells", "container.union"),
    "billion-copies": ("name: x\ncontainer: {box: [1000, 1000, 1000]}\npieces:\n"
                       "  A: {cells: [[0,0,0]], count: 1000000000}\n", "--max-cells", "container.box"),
    "long-chain": ("name: x\nkind: chain\ncontainer: {box: [3, 3, 3]}\nchain: {segments: [1000000000]}\n",
                   "--max-cells", "chain.segments"),
    "alias-bomb": (alias_bomb(), "--max-yaml-nodes", ""),
    "deep-nesting": ("name: " + "[" * 5000 + "]" * 5000 + "\n", "--max-yaml-depth", ""),
    "many-placements": ("name: x\ncontainer: {box: [27, 27, 27]}\npieces:\n"
                        + "".join(f"  R{i}: {{cells: [[0,0,0], [0,0,1], [0,0,2]], count: 2187}}\n" for i in range(3)),
                        "--max-placements", "pieces"),
    "big-file": ("name: x\ndescription: '" + "x" * 1_100_000 + "'\ncontainer: {box: [2, 2, 1]}\n" + PIECES,
                 "--max-file-bytes", ""),
}


@pytest.mark.parametrize("case", sorted(BAD_SIZES))
def test_bad_size_is_one_line_naming_the_limit_under_2gb(case, tmp_path):
    text, option, field = BAD_SIZES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size < 1_200_000
    proc, seconds = run_capped("enumerate", str(path), "--no-save", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert lines[0].startswith(f"cpsolve: error: {path}: {field}") and f"cpsolve {option} N" in lines[0], lines[0]
    assert "over the limit" in lines[0] and proc.stdout == ""
    assert seconds < 20


def test_a_raised_limit_lets_the_file_through(tmp_path):
    """The option named in the message does raise the limit (here on a file that is then solved)."""
    path = tmp_path / "box.yaml"
    path.write_text("name: x\ncontainer: {box: [2, 2, 1]}\n" + PIECES, encoding="utf-8")
    proc = run_cli("--max-cells", "3", "enumerate", str(path), "--no-save", "-q", cwd=tmp_path)
    assert proc.returncode == 2 and "is 4, over the limit of 3 (raise it with cpsolve --max-cells N)" in proc.stderr
    proc = run_cli("--max-cells", "4", "enumerate", str(path), "--no-save", "-q", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"total": 2' in proc.stdout


def test_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("name: x\ncontainer: &c {layers: [*c]}\n" + PIECES, encoding="utf-8")
    proc, _ = run_capped("solve", str(path), cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f"{path}: " in proc.stderr and ("alias" in proc.stderr or "undefined" in proc.stderr)


def test_show_refuses_a_drawing_of_cells_far_apart(tmp_path):
    line = '{"puzzle": "x", "pieces": {"A": [[0, 0, 0], [0, 0, 100000000]], "B": [[1, 0, 0]]}}\n'
    path = tmp_path / "far.jsonl"
    path.write_text(line)
    proc, seconds = run_capped("show", str(path), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"cpsolve: error: {path}:1: the drawing of a 2x1x100000001 bounding box is "
                                   "200,000,002, over the limit of 1,000,000 (raise it with cpsolve --max-drawing N)")
    assert seconds < 20


def test_placements_bound_is_an_upper_bound_on_every_model():
    """The estimate must never refuse less than it should: it is at least the real number, for every
    built-in model, and within 24x of it (it ignores the pieces' own symmetry and the holes)."""
    for name in builtin_names():
        puzzle = load(name)
        if puzzle.kind != "pieces":
            continue
        real = len(packing_problem(puzzle).rows)
        bound = limits.placements_bound(puzzle.container, [p.shape for p in puzzle.pieces])
        assert real <= bound <= 24 * 6 * real, (name, real, bound)


def test_limits_are_generous_for_every_builtin_model():
    """The defaults leave two orders of magnitude of room above the largest built-in model."""
    defaults = limits.Limits()
    for name in builtin_names():
        puzzle = load(name)
        assert len(puzzle.container) * 50 <= defaults.max_cells, name
        if puzzle.kind == "pieces":
            bound = limits.placements_bound(puzzle.container, [p.shape for p in puzzle.pieces])
            assert bound * 10 <= defaults.max_placements, (name, bound)
        text = (REPO / "cpsolve" / "models" / f"{name}.yaml").read_bytes()
        assert len(text) * 50 <= defaults.max_file_bytes, name
