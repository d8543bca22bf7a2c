"""Bad-size inputs are refused in one line naming the limit and its option, before memory is spent.

Each file runs in a child process under a 2 GB address-space limit (`RLIMIT_AS`): without the
limits these runs exhaust memory (a MemoryError traceback, or the whole RAM on a machine without a
cap); with them they end at once with exit status 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from cpsolve import limits
from cpsolve.problem.chains import chain_problem
from cpsolve.problem.cnf import AT_MOST_ONE_ONLY, ENCODINGS, _card_bound, encode, literal_bound
from cpsolve.problem.placements import _placements_by_lookup, packing_problem, piece_placements
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


# -- memory bounded by the input (issue 26, item 9) ---------------------------------------------------

ONE_GB = 1_000_000_000


SPAWN = """
import os, resource, sys
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
    os.execv(sys.executable, [sys.executable, "-m", "cpsolve", *sys.argv[3:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""
"""Runs the command as the grandchild of a small Python that reports its exit status and peak memory.
Linux counts in a process's peak what it held before its exec: a command forked from the test's own
process (hundreds of MB late in a run) would report at least that; forked from this one, a few MB."""


def run_in_1gb(*args: str, cwd: Path, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """The command under a 1 GB address-space limit (`prlimit --as`): its outcome, its wall time and its own
    peak resident memory in MB (from wait4)."""
    out_path, err_path, report = cwd / ".stdout", cwd / ".stderr", cwd / ".report"
    with out_path.open("w") as out, err_path.open("w") as err:
        began = time.perf_counter()
        spawner = subprocess.Popen([sys.executable, "-c", SPAWN, str(report), str(ONE_GB), *args], cwd=cwd,
                                   stdout=out, stderr=err, start_new_session=True)
        try:
            spawner.wait(timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(spawner.pid, signal.SIGKILL)
    seconds = time.perf_counter() - began
    code, peak = (int(v) for v in report.read_text().split())
    done = subprocess.CompletedProcess(args, code, out_path.read_text(), err_path.read_text())
    return done, seconds, peak // 1024


def _sparse(path: Path, head: str, size: int) -> Path:
    """`head` followed by NUL bytes up to `size` bytes, written as a hole: no disk space is used."""
    with path.open("wb") as fh:
        fh.write(head.encode())
        fh.truncate(size)
    return path


RODS = "name: rods\ncontainer: {box: [27, 27, 27]}\npieces:\n  R: {cells: [[0,0,0], [0,0,1], [0,0,2]], count: 6561}\n"
FAR = ("name: far\ncontainer: {union: [{at: [0, 0, 0], size: [1, 1, 1]}, {at: [1000000000, 0, 0], size: [1, 1, 1]}]}\n"
       "pieces:\n  A: {cells: [[0,0,0]], count: 2}\n")
CHAIN = ("name: chain\nkind: chain\ncontainer: {box: [13001, 1, 1]}\nchain: {segments: [" + ", ".join(["2"] * 13000)
         + "]}\n")
MANY = json.dumps({"puzzle": "many", "class": 0, "assemblies": 1, "mirror_distinct": False,
                   "pieces": {f"P{i}": [[i % 15, i // 15 % 15, i // 225]] for i in range(3000)}}) + "\n"
UNION = ("name: u\ncontainer: {union: [" + ", ".join(f"{{at: [{i * 1000}, 0, 0], size: [1000, 1000, 1000]}}"
                                                     for i in range(20000)) + "]}\n" + PIECES)
LAYERS = "name: l\ncontainer:\n  layers: [" + ",\n".join(f'["{"#" * 990}"]' for _ in range(1000)) + "]\n" + PIECES
SOMA = (REPO / "cpsolve" / "models" / "soma.yaml").read_text(encoding="utf-8")
LONG_NAME = SOMA.replace("name: soma", "name: " + "n" * 30_000, 1)

MEMORY = {
    # case: (files, command, exit status, the option the one line names (None: the command succeeds), and
    # what else it says)
    # the box of rods went to sat, whose CNF (3.8 billion literals) ended in C++'s std::bad_alloc (exit 134)
    "rods-on-sat": ({"rods.yaml": RODS}, ["enumerate", "rods.yaml", "--no-save", "-b", "sat", "-w", "1"], 2,
                    "--max-literals"),
    "rods-solved": ({"rods.yaml": RODS}, ["solve", "rods.yaml"], 0, None),
    "long-chain": ({"chain.yaml": CHAIN}, ["enumerate", "chain.yaml", "--no-save"], 2, "--max-placements"),
    "far-apart-enumerate": ({"far.yaml": FAR}, ["enumerate", "far.yaml", "--no-save", "-q"], 0, None),
    "far-apart-draw": ({"far.yaml": FAR}, ["draw", "far.yaml", "-o", "far.png"], 2, "--max-drawing"),
    "far-apart-view": ({"far.yaml": FAR}, ["view", "far.yaml", "-o", "far.html"], 2, "--max-drawing"),
    "far-apart-export": ({"far.yaml": FAR}, ["export", "far.yaml", "--format", "xmpuzzle", "-o", "far.xmpuzzle"], 2,
                         "--max-drawing"),
    "many-pieces-apart": ({"many.jsonl": MANY}, ["disassemble", "many.jsonl"], 2, "--max-disassembly-pieces"),
    "long-name-drawn": ({"named.yaml": LONG_NAME}, ["draw", "named.yaml", "-o", "named.png"], 0, None),
    # refused while the file is parsed, at the first box and the 21st row over the limit (they took 9-17 s)
    "union-of-many-boxes": ({"union.yaml": UNION}, ["enumerate", "union.yaml", "--no-save"], 2,
                            "--max-cells", "container.union: the union's summed volume is 1,000,000,000, "),
    "big-drawing": ({"layers.yaml": LAYERS}, ["enumerate", "layers.yaml", "--no-save"], 2,
                    "--max-cells", "container.layers: the container drawing's cell count is 20,790, "),
}


@pytest.mark.parametrize("case", sorted(MEMORY))
@pytest.mark.slow
def test_memory_stays_bounded_by_the_input(case, tmp_path):
    """Files under 1 MB that took 1.7 to 7.7 GB (or C++'s std::bad_alloc, exit 134) end under 1 GB of address
    space, in one line naming the limit and its option, or succeed; none holds more than 400 MB at its peak."""
    files, command, code, option, *said = MEMORY[case]
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc, seconds, peak = run_in_1gb(*command, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr[-3000:]
    if option is not None:
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cpsolve: error: "), proc.stderr[-3000:]
        assert f"cpsolve {option} N" in lines[0] and all(text in lines[0] for text in said), lines[0]
    assert peak < 400, (peak, seconds)
    assert seconds < 60


def test_a_drawn_puzzle_name_does_not_size_the_picture(tmp_path):
    """A 30 KB name made a 2.4 GB PNG: the title is shortened to the picture."""
    (tmp_path / "named.yaml").write_text(LONG_NAME, encoding="utf-8")
    proc, _, _ = run_in_1gb("draw", "named.yaml", "-o", "named.png", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = (tmp_path / "named.png").read_bytes()
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width < 1000 and height < 1000, (width, height)


@pytest.mark.parametrize("command", [["show", "line.jsonl"], ["draw", "line.jsonl", "-o", "x.png"],
                                     ["view", "line.jsonl", "-o", "x.html"], ["disassemble", "line.jsonl"]])
def test_a_huge_solutions_line_is_not_read_whole(command, tmp_path):
    """A 1.5 GB line (a sparse file) was read into memory whole (3.1 GB): a line is read no further than
    the file-size limit."""
    _sparse(tmp_path / "line.jsonl", '{"puzzle": "x", "pieces": {"A": [[0, 0, 0]]}, "pad": "', 1_500_000_000)
    proc, seconds, peak = run_in_1gb(*command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cpsolve: error: line.jsonl:1: "), lines
    assert "cpsolve --max-file-bytes N" in lines[0]
    assert peak < 200, peak


def test_a_big_puzzle_file_is_read_no_further_than_the_limit(tmp_path):
    """A puzzle file was read up to 256 MB before the 1 MB limit applied."""
    path = _sparse(tmp_path / "big.yaml", "name: x\ndescription: '", 200_000_000)
    proc, _, peak = run_in_1gb("enumerate", str(path), "--no-save", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.strip() == (f"cpsolve: error: {path}: the file's size in bytes is 200,000,000, over the limit "
                                   "of 1,000,000 (raise it with cpsolve --max-file-bytes N)")
    assert peak < 200, peak


def test_a_picture_too_big_to_paint_is_one_line(tmp_path):
    """Two cells 999 apart pass --max-drawing (a box of a million cells) but make a picture of 2 billion
    pixels: refused before it is painted (it was an out-of-memory error), while its SVG is written."""
    line = json.dumps({"puzzle": "x", "pieces": {"A": [[0, 0, 0]], "B": [[999, 0, 999]]}}) + "\n"
    (tmp_path / "wide.jsonl").write_text(line, encoding="utf-8")
    proc, _, peak = run_in_1gb("draw", "wide.jsonl", "-o", "wide.png", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cpsolve: error: the picture of ") and proc.stderr.count("\n") == 1
    assert "over the limit of 16,000,000 (raise it with cpsolve --max-pixels N)" in proc.stderr
    assert not (tmp_path / "wide.png").exists() and peak < 400
    proc, _, _ = run_in_1gb("draw", "wide.jsonl", "-o", "wide.svg", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_placements_by_lookup_are_the_bitset_placements():
    """The path for sparse containers (no bitset of the bounding box) finds the same placements in the
    same order, on every built-in model."""
    for name in builtin_names():
        puzzle = load(name)
        for piece in puzzle.pieces:
            assert _placements_by_lookup(piece.shape, puzzle.container) == piece_placements(piece.shape,
                                                                                           puzzle.container), name


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.slow
def test_the_literal_bound_holds_for_what_pysat_builds(encoding):
    """`literal_bound` refuses a CNF before pysat builds it, so it must never be below pysat's own size."""
    from pysat.card import CardEnc, EncType

    for n in (2, 3, 5, 10, 31, 100, 257, 400):
        bounds = [1] if encoding in AT_MOST_ONE_ONLY else {1, 2, 3, n // 10, n // 3, n // 2, n - 2, n - 1}
        for k in sorted(b for b in bounds if 1 <= b < n):
            for kind in ("equals", "atmost") + (() if encoding in AT_MOST_ONE_ONLY else ("atleast",)):
                built = getattr(CardEnc, kind)(lits=list(range(1, n + 1)), bound=k, top_id=n,
                                               encoding=getattr(EncType, encoding))
                assert sum(map(len, built.clauses)) <= _card_bound(n, k, encoding, kind), (n, k, kind)


@pytest.mark.slow
def test_the_literal_bound_is_close_on_every_model():
    """With the default encoding the bound is within 1.3x of the real CNF, and --max-literals leaves
    the largest built-in model 4x room."""
    for name in builtin_names():
        problem = packing_problem(load(name)) if load(name).kind == "pieces" else chain_problem(load(name))
        real = sum(map(len, encode(problem).clauses))
        bound = literal_bound(problem)
        assert real <= bound <= 1.3 * real, (name, real, bound)
        assert 4 * bound <= limits.Limits().max_literals, (name, bound)


@pytest.mark.slow
def test_export_with_many_solutions_reads_them_one_at_a_time(tmp_path):
    """Issue 27 item 7: `export --with-solutions` held every solution of the file at once (55,575 of 3D Onat:
    2.1 GB); it now reads, checks and writes them one at a time: 12,000 lines of soma in under 90 MB
    (121 MB before, growing with the file), the file the same bytes as one written from a list."""
    import cpsolve

    run_cli("enumerate", "soma", "-q", "--out", str(tmp_path / "soma.jsonl"), "--no-journal")
    lines = (tmp_path / "soma.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "many.jsonl").write_text("".join(lines * 50))
    proc, _, peak = run_in_1gb("export", "soma", "--format", "xmpuzzle", "--with-solutions", "many.jsonl",
                               "-o", "many.xmpuzzle", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "12000 solutions written" in proc.stderr
    assert peak < 90, peak
    listed = cpsolve.read_solutions(tmp_path / "soma.jsonl") * 50
    assert (tmp_path / "many.xmpuzzle").read_bytes() == cpsolve.export(cpsolve.load("soma"), "xmpuzzle",
                                                                       solutions=listed)
