"""Hostile numbers and damaged files (issue 26, items 16 and 18): one line each, never a traceback.

Each case is what a user (or a file) can hand the command line: a timeout of 1e300 seconds, a cube
size of infinity, more copies of a piece than a C int holds, a BurrTools file whose gzip data is
damaged, solution lines that no `cpsolve enumerate` wrote.
"""

from __future__ import annotations

import gzip
import json
import struct
import zlib
from pathlib import Path

import pytest
from conftest import REPO, one_line, run_cli

from cpsolve import limits
from cpsolve.errors import CpsolveError

EXAMPLES = REPO.parent / "shared" / "burrtools-examples"
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")


# -- numbers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["enumerate", "soma", "--no-save", "-q"], ["solve", "soma"],
                                     ["compare", "soma", "--backends", "dlx"],
                                     ["design", "pieces", "--box", "1x1x3", "--pool", "tricubes"]])
def test_a_timeout_beyond_the_timers_is_one_line(command, tmp_path):
    """1e300 s passed the finite check and then overflowed the interval timer ("internal error")."""
    proc = run_cli(*command, "--timeout", "1e300", cwd=tmp_path)
    one_line(proc, 2, "--timeout: must be a finite number of seconds > 0 and at most 1e+09, not 1e+300")


def test_every_timeout_is_checked_by_one_function():
    assert limits.check_timeout(None) is None and limits.check_timeout(limits.MAX_TIMEOUT) == limits.MAX_TIMEOUT
    for bad in (0.0, -1.0, float("nan"), float("inf"), 1e300, limits.MAX_TIMEOUT * 1.01):
        with pytest.raises(CpsolveError) as err:
            limits.check_timeout(bad)
        assert err.value.field == "timeout" and err.value.exit_code == 2


@pytest.mark.parametrize("option", [("--unit", "1e308"), ("--unit", "inf"), ("--unit", "nan"), ("--unit", "2e38"),
                                    ("--clearance", "nan"), ("--clearance", "inf")])
def test_an_stl_size_that_is_not_a_size_is_one_line_and_writes_nothing(option, tmp_path):
    """`--unit 1e308` overflowed struct.pack, `inf` wrote files full of inf, a nan clearance files of nan."""
    folder = tmp_path / "stl"
    proc = run_cli("export", "soma", "--format", "stl", *option, "-o", str(folder), cwd=tmp_path)
    one_line(proc, 2, option[0])
    assert not folder.exists()


def test_the_largest_stl_unit_accepted_writes_finite_coordinates(tmp_path):
    folder = tmp_path / "stl"
    proc = run_cli("export", "soma", "--format", "stl", "--unit", "1e30", "-o", str(folder), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = (folder / "A.stl").read_bytes()
    (n,) = struct.unpack_from("<I", data, 80)
    values = [v for k in range(n) for v in struct.unpack_from("<12f", data, 84 + 50 * k)]
    assert all(abs(v) < 1e32 for v in values) and max(abs(v) for v in values) >= 1e30 * 0.99


RANGE = "name: big\ncontainer: {box: [2, 2, 1]}\npieces:\n  A: {cells: [[0,0,0], [1,0,0]], count: {min: 0, max: %s}}\n"


@pytest.mark.parametrize("backend", ["dlx", "sat", "python"])
def test_more_copies_than_a_c_int_holds_count_as_the_copies_that_fit(backend, tmp_path):
    """A range's max of 3e9 reached the engine as is ("piece_counts: value 3000000000 out of range"): it
    means "as many as fit", the same puzzle as max 2."""
    counts = []
    for top in ("3000000000", "99999999999999999999", "2"):
        path = tmp_path / f"big{top}.yaml"
        path.write_text(RANGE % top, encoding="utf-8")
        proc = run_cli("enumerate", str(path), "--no-save", "-q", "--json", "-b", backend, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        found = json.loads(proc.stdout)
        counts.append((found["total"], found["unique_rotation"], found["unique_symmetry"]))
    assert counts == [(2, 1, 1)] * 3


def test_a_state_budget_beyond_a_c_long_is_no_budget(tmp_path):
    proc = run_cli("disassemble", "six-piece-burr", "--max-states", "99999999999999999999", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["level"] == "1"


# -- damaged files ----------------------------------------------------------------------------------


def _damaged(source: Path, target: Path, at: float) -> Path:
    """The file with 8 bytes of its deflate stream flipped at `at` (a fraction of its length)."""
    data = bytearray(source.read_bytes())
    assert data[:2] == b"\x1f\x8b"
    start = int(len(data) * at)
    for k in range(start, start + 8):
        data[k] ^= 0x5A
    target.write_bytes(bytes(data))
    return target


@needs_examples
@pytest.mark.parametrize("at", [0.02, 0.5])
@pytest.mark.parametrize("command", [["enumerate", "--no-save", "-q"], ["import"], ["disassemble"]])
def test_damaged_gzip_data_in_an_xmpuzzle_is_one_line(command, at, tmp_path):
    """zlib's own error (not an OSError) came out as "internal error: error: Error -3 while decompressing"."""
    path = _damaged(EXAMPLES / "PelikanBurr.xmpuzzle", tmp_path / "Pelikan.xmpuzzle", at)
    with pytest.raises(zlib.error):
        gzip.decompress(path.read_bytes())
    proc = run_cli(command[0], str(path), *command[1:], cwd=tmp_path)
    one_line(proc, 2, f"{path}: not a readable gzip file")


# -- solution lines no `cpsolve enumerate` wrote (item 18) ------------------------------------------------

READERS = [["show", "s.jsonl"], ["draw", "s.jsonl", "-o", "s.png"], ["view", "s.jsonl", "-o", "s.html"],
           ["disassemble", "s.jsonl"]]


@pytest.fixture(scope="module")
def soma_lines(tmp_path_factory) -> list[dict]:
    folder = tmp_path_factory.mktemp("soma")
    proc = run_cli("enumerate", "soma", "--limit", "3", "--out", str(folder / "soma.jsonl"), "-q", "--no-journal",
                   cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in (folder / "soma.jsonl").read_text().splitlines()]


def _line(record: dict, pieces: dict) -> str:
    return json.dumps({**record, "pieces": pieces}) + "\n"


def _moved(pieces: dict, dx: int) -> dict:
    return {k: [[c[0] + dx, c[1], c[2]] for c in cells] for k, cells in pieces.items()}


BROKEN = {
    # case: (how the first soma line is changed, what the one line says)
    "cell-in-two-pieces": (lambda p: {**p, "B": p["A"]}, "cell [{}] is in both A and B"),
    "another-puzzles-cells": (lambda p: _moved(p, 10), "not a solution of the puzzle it names (soma): "),
    "a-piece-left-out": (lambda p: {k: v for k, v in p.items() if k != "T"}, "(soma): required cell ["),
    "a-mirrored-piece": (lambda p: {**p, "A": p["B"], "B": p["A"]}, "the piece's shape turned"),
    "copy-number-0": (lambda p: {**{k: v for k, v in p.items() if k != "A"}, "A#0": p["A"]}, "NAME#1, NAME#2"),
    "control-characters": (lambda p: {**{k: v for k, v in p.items() if k != "A"}, "A\x1b[2J": p["A"]},
                           "is not a piece name"),
}


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_line_that_is_no_solution_is_one_line_naming_it(case, command, soma_lines, tmp_path):
    """show, draw, view and disassemble took any cells (overlapping, another puzzle's) as a solution."""
    change, said = BROKEN[case]
    pieces = change(soma_lines[0]["pieces"])
    (tmp_path / "s.jsonl").write_text(_line(soma_lines[0], pieces), encoding="utf-8")
    proc = run_cli(*command, cwd=tmp_path)
    if "{}" in said:
        said = said.format(", ".join(map(str, sorted(map(tuple, soma_lines[0]["pieces"]["A"]))[0])))
    one_line(proc, 2, "s.jsonl:1: ", said)
    assert proc.stdout == ""


def test_a_line_of_another_puzzle_is_refused_by_export_with_solutions(soma_lines, tmp_path):
    """`export --with-solutions` checked shapes but not that pieces stay apart, nor the container."""
    lines = [_line(r, r["pieces"]) for r in soma_lines]
    lines[2] = _line(soma_lines[2], {**soma_lines[2]["pieces"], "B": soma_lines[2]["pieces"]["A"]})
    (tmp_path / "s.jsonl").write_text("".join(lines), encoding="utf-8")
    proc = run_cli("export", "soma", "--format", "xmpuzzle", "-o", "s.xmpuzzle", "--with-solutions", "s.jsonl",
                   cwd=tmp_path)
    one_line(proc, 2, "s.jsonl:3: ", "is in both A and B")
    assert not (tmp_path / "s.xmpuzzle").exists()


def test_good_lines_still_pass_every_reader(soma_lines, tmp_path):
    (tmp_path / "s.jsonl").write_text("".join(_line(r, r["pieces"]) for r in soma_lines), encoding="utf-8")
    for command in READERS:
        proc = run_cli(*command, cwd=tmp_path)
        assert proc.returncode == 0, (command, proc.stderr)


def test_a_chain_line_is_checked_along_its_joints(tmp_path):
    proc = run_cli("enumerate", "snake-27", "--limit", "1", "--out", "s.jsonl", "-q", "--no-journal", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])
    assert run_cli("show", "s.jsonl", cwd=tmp_path).returncode == 0
    pieces = record["pieces"]
    pieces["0"], pieces["26"] = pieces["26"], pieces["0"]  # the same cells, the chain broken at both ends
    (tmp_path / "s.jsonl").write_text(_line(record, pieces), encoding="utf-8")
    one_line(run_cli("show", "s.jsonl", cwd=tmp_path), 2, "s.jsonl:1: not a solution of the puzzle it names",
             "do not touch")


# -- design pieces within the limits (item 18) ------------------------------------------------------


def test_design_pieces_refuses_a_box_over_the_limits_up_front(tmp_path):
    """`design pieces --box 30x30x30` ignored --max-cells and spun silently over multisets that could never
    fill it."""
    proc = run_cli("design", "pieces", "--box", "30x30x30", "--copies", "1000", "--pool", "monocubes,dicubes,tricubes",
                   cwd=tmp_path, timeout=60)
    one_line(proc, 2, "--box: the box 30x30x30's volume is 27,000, over the limit of 20,000 (raise it with "
                      "cpsolve --max-cells N)")
    proc = run_cli("design", "pieces", "--box", "20x20x20", cwd=tmp_path, timeout=60)
    one_line(proc, 2, "--pool: the estimated number of placements of the pool in the box 20x20x20 is ",
             "cpsolve --max-placements N")


def test_design_pieces_finds_at_once_that_no_multiset_fills_the_box(tmp_path):
    """With the limits raised, the pool's 9,000 cells can never fill 27,000: no candidate, found at once."""
    proc = run_cli("--max-cells", "30000", "--max-placements", "10000000", "design", "pieces", "--box", "30x30x30",
                   "--copies", "1000", "--pool", "monocubes,dicubes,tricubes", "--json", "-q", cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["candidates"] == 0


HUGE = 10**30


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_huge_coordinates_are_drawn_when_close_and_refused_when_far_apart(command, tmp_path):
    """Cells far apart made `draw` fail ("internal error: OverflowError") and `view` take 800 MB for two
    cells; the same cells moved far from the origin, but next to each other, are a normal solution."""
    near = {"A": [[HUGE, 0, 0]], "B": [[HUGE + 1, 0, 0]]}
    (tmp_path / "s.jsonl").write_text(json.dumps({"puzzle": "x", "pieces": near}) + "\n", encoding="utf-8")
    proc = run_cli(*command, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    far = {"A": [[0, 0, 0]], "B": [[HUGE, 0, 0]]}
    (tmp_path / "s.jsonl").write_text(json.dumps({"puzzle": "x", "pieces": far}) + "\n", encoding="utf-8")
    one_line(run_cli(*command, cwd=tmp_path), 2, "s.jsonl:1: the drawing of a 1000000000000000000000000000001x1x1 "
             "bounding box is ", "(raise it with cpsolve --max-drawing N)")


# -- damaged inputs on the fast paths (issue 35 item 8) ----------------------------------------------------


def _without_pieces(tmp_path: Path) -> Path:
    """Soma as a BurrTools file whose problem lists no pieces (the fast reader skips pydantic's checks)."""
    import re

    proc = run_cli("export", "soma", "--format", "xmpuzzle", "-o", "s.xmpuzzle", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = gzip.decompress((tmp_path / "s.xmpuzzle").read_bytes()).decode()
    bare, n = re.subn(r"(<problem [^>]*>)\s*<shapes>.*?</shapes>", r"\1", text, flags=re.S)
    assert n == 1
    (tmp_path / "bare.xmpuzzle").write_text(bare)
    return tmp_path / "bare.xmpuzzle"


@pytest.mark.parametrize("command", [["solve"], ["enumerate", "--no-save", "-q"], ["show"], ["import"], ["count"],
                                     ["estimate"], ["draw", "--pieces", "-o", "x.png"], ["export", "-o", "x.cnf"],
                                     ["view", "-o", "x.html"], ["sample", "-n", "1"]])
def test_a_burrtools_problem_without_pieces_is_one_line(command, tmp_path):
    """A BurrTools problem without pieces gave IndexError ("internal error") in every command."""
    bare = _without_pieces(tmp_path)
    proc = run_cli(command[0], str(bare), *command[1:], cwd=tmp_path)
    one_line(proc, 2, "bare.xmpuzzle: pieces: a 'pieces' puzzle needs at least one piece")
