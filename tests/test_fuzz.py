"""Property-based fuzzing: whatever the file, cpsolve answers with exit 0, 1 or 2 and one line, never a traceback.

Two kinds of input: random YAML documents (random data dumped as YAML, then mangled character by
character) and random puzzle-shaped mappings (the right keys with values of every wrong kind and
size). They go to the loader directly, and through the real command line (`cpsolve.cli.main`, in
this process so that hundreds of cases stay fast) for every command that reads a puzzle file.
The command line has a last-resort handler that turns an unexpected exception into one line saying
"internal error"; the tests count that as a failure, so a bug cannot hide behind it.
"""

from __future__ import annotations

import itertools
import signal
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpsolve import cli
from cpsolve.errors import CpsolveError
from cpsolve.puzzle.loader import parse_puzzle_text
from cpsolve.puzzle.model import to_puzzle

_counter = itertools.count()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
COMMAND_FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.none() | st.booleans() | st.integers(-10, 10) | st.integers() | st.floats() | st.text(max_size=8)
data = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=4), max_leaves=20)
YAML_CHARS = "[]{}:-,&*!|>'\"#\n ?<=%@`\\.0123456789abcxyz\t"


@st.composite
def mangled_yaml(draw: st.DrawFn) -> str:
    """A YAML document, then a few characters inserted, deleted or replaced anywhere."""
    text = yaml.safe_dump(draw(data), default_flow_style=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = draw(st.sampled_from(YAML_CHARS))
        if op == "insert":
            text = text[:at] + ch + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + ch + text[at + 1:]
    return text


small = st.integers(-1, 4)
triple = st.lists(small, min_size=2, max_size=4) | st.tuples(small, small, small).map(list) | data
cells = st.lists(triple, min_size=0, max_size=6) | data
drawing = st.lists(st.lists(st.text(alphabet="#.x", max_size=4), max_size=3), max_size=3) | data
piece = st.fixed_dictionaries({}, optional={
    "cells": cells, "layers": drawing, "count": st.integers(-1, 3) | data, "color": data,
})
container = st.fixed_dictionaries({}, optional={
    "box": st.lists(st.integers(-1, 4) | data, max_size=4),
    "layers": drawing,
    "union": st.lists(st.fixed_dictionaries({"size": triple}, optional={"at": triple}), max_size=3) | data,
})
puzzle_shaped = st.fixed_dictionaries(
    {"name": st.text(max_size=12) | data, "container": container | data},
    optional={
        "source": st.text(max_size=5),
        "kind": st.sampled_from(["pieces", "chain", "other"]),
        "pieces": st.dictionaries(st.text(alphabet="AB#x ./", max_size=3), piece | data, max_size=4) | data,
        "chain": st.fixed_dictionaries({}, optional={
            "segments": st.lists(st.integers(-1, 4) | data, max_size=6),
            "constraints": st.text(alphabet="CUBE,TOUCHALIGNED 0123-\n", max_size=40),
        }) | data,
        "key_piece": st.text(alphabet="AB", max_size=2) | data,
        "reference": data,
    },
)
puzzle_yaml = puzzle_shaped.map(lambda d: yaml.safe_dump(d, allow_unicode=True))


def load_text(text: str) -> None:
    """The loader and the model: success, or a CpsolveError naming the file; nothing else."""
    try:
        spec = parse_puzzle_text(text, "fuzz.yaml")
        to_puzzle(spec, "fuzz.yaml")
    except CpsolveError as exc:
        assert "fuzz.yaml" in str(exc) or exc.where is None, exc
        assert "\n" not in str(exc).strip(), str(exc)


@FUZZ
@given(mangled_yaml())
def test_loader_survives_random_yaml(text):
    load_text(text)


@FUZZ
@given(puzzle_yaml)
def test_loader_survives_puzzle_shaped_mappings(text):
    load_text(text)


def run_main(args: list[str], capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """`cpsolve ARGS` in this process: its exit status, stdout and stderr."""
    monkeypatch.setattr(sys, "argv", ["cpsolve", *args])
    saved = {s: signal.getsignal(s) for s in cli.STOP_SIGNALS}
    try:
        with pytest.raises(SystemExit) as stop:
            cli.main()
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    out, err = capsys.readouterr()
    code = stop.value.code
    return (code if isinstance(code, int) else 0 if code is None else 1), out, err


def assert_one_line_outcome(code: int, err: str) -> None:
    assert code in (0, 1, 2, 3), (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    if code != 0:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cpsolve: error: "), err


COMMANDS = [
    ["enumerate", "{file}", "--no-save", "-q", "--workers", "1", "--limit", "2", "--timeout", "2"],
    ["solve", "{file}", "--timeout", "2"],
    ["export", "{file}", "-o", "{dir}/out.cnf"],
    ["export", "{file}", "--format", "xcc", "-o", "{dir}/out.xcc"],
]


@COMMAND_FUZZ
@given(text=puzzle_yaml | mangled_yaml(), command=st.sampled_from(COMMANDS))
def test_every_command_answers_in_one_line(text, command, tmp_path_factory, capsys, monkeypatch):
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / f"case{next(_counter)}.yaml"  # a fresh name: the catalog caches by path
    path.write_text(text, encoding="utf-8")
    args = [a.format(file=path, dir=folder) for a in command]
    code, _out, err = run_main(args, capsys, monkeypatch)
    assert_one_line_outcome(code, err)


@pytest.mark.parametrize("args", [
    ["enumerate", "soma", "--timeout", "nan"], ["enumerate", "soma", "--timeout", "inf"],
    ["enumerate", "soma", "--timeout", "0"], ["enumerate", "soma", "--timeout", "-1"],
    ["solve", "soma", "--timeout", "nan"], ["compare", "soma", "--timeout", "inf"],
    ["report", "soma", "--timeout", "nan"], ["enumerate", "soma", "--workers", "0"],
    ["enumerate", "soma", "--workers", str(10**30)], ["compare", "soma", "--workers", "100000"],
    ["compare", "soma", "--backends", "foo"], ["compare", "soma", "--backends", ""],
    ["compare", "soma", "--backends", "dlx:x"], ["compare", "soma", "--backends", "sat:"],
    ["enumerate", "soma", "--backend", "dlx:x"], ["enumerate", "soma", "--backend", "sat:"],
    ["enumerate", "soma", "--limit", "-1"], ["enumerate", "soma", "--bogus"], ["enumerate"],
    ["show", "{dir}/none.jsonl"], ["show", "{dir}"], ["enumerate", "{dir}/none.yaml"],
    ["--max-cells", "0", "enumerate", "soma"], ["--max-cells", "x", "list"],
])
def test_bad_options_are_one_line_and_exit_2(args, tmp_path, capsys, monkeypatch):
    code, out, err = run_main([a.format(dir=tmp_path) for a in args], capsys, monkeypatch)
    assert code == 2, (code, err)
    assert_one_line_outcome(code, err)
    assert out == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("? [1, 2]\n: 3\n", "a key must be a plain name or number, not a list (line 1)"),
    ("name: x\ncontainer: {box: ['2', 2, 1]}\npieces: {A: {cells: [[0,0,0], [1,0,0]], count: 2}}\n",
     "container.box[0]: Input should be a valid integer"),
    ("name: x\ncontainer: {box: [2, 2, 1]}\npieces: {A: {cells: [[0,0,0], [1,0,0]], count: true}}\n",
     "pieces.A.count: Input should be a valid integer"),
    ("name: x\ncontainer: {box: [2, 2, 1]}\npieces: {A: {cells: [[0,0,0], [1,0,0]], count: 2.0}}\n",
     "pieces.A.count: Input should be a valid integer"),
    ("name: x\ncontainer: {box: [2, 2, 1]}\npieces: {' ': {cells: [[0,0,0], [1,0,0]], count: 2}}\n",
     "pieces: a piece name cannot be blank"),
    ("name: x\ncontainer: {box: [2, 2, 2]}\npieces: {X: {cells: [[0,0,0], [1,0,0]], count: 2}, "
     "'X#1': {cells: [[0,0,0], [1,0,0]], count: 2}}\n", "pieces.X#1: piece name 'X#1' contains '#'"),
    ("x: !!python/object/apply:os.system ['true']\n", "not valid YAML"),
    ('x: "\\U100010000"\n', "not valid YAML: chr() arg not in range"),  # found by the fuzz test above
])
def test_hostile_yaml_gets_a_clear_line(text, expected):
    with pytest.raises(CpsolveError) as err:
        parse_puzzle_text(text, "f.yaml")
    assert str(err.value).startswith("f.yaml: ") and expected in str(err.value), str(err.value)


def test_merge_keys_are_supported(tmp_path, capsys, monkeypatch):
    """`<<:` is valid YAML (a mapping merged into another, its own keys winning): it must just work."""
    path = tmp_path / "merge.yaml"
    path.write_text("base: &stick {cells: [[0,0,0], [1,0,0]]}\n" if False else
                    "name: merged\ncontainer: {box: [2, 2, 1]}\npieces:\n"
                    "  A: &stick {cells: [[0,0,0], [1,0,0]], count: 1}\n  B: {<<: *stick, count: 1}\n",
                    encoding="utf-8")
    code, out, err = run_main(["enumerate", str(path), "--no-save", "--json", "-q", "-w", "1"], capsys, monkeypatch)
    assert code == 0, err
    assert '"total": 4' in out


def test_default_solutions_file_stays_in_the_current_folder(tmp_path, capsys, monkeypatch):
    """`name: ../x` (or an absolute name) must not write outside the folder cpsolve runs in."""
    inner = tmp_path / "inner"
    inner.mkdir()
    for name in ["../escaped", "/tmp/absolute-cpsolve-test", "..", "a/b"]:
        path = inner / f"p{next(_counter)}.yaml"
        path.write_text(f"name: {name!r}\ncontainer: {{box: [2, 1, 1]}}\n"
                        "pieces: {A: {cells: [[0,0,0], [1,0,0]]}}\n", encoding="utf-8")
        monkeypatch.chdir(inner)
        code, out, err = run_main(["enumerate", str(path), "-q", "-w", "1"], capsys, monkeypatch)
        assert code == 0, err
        written = out.strip().splitlines()[-1].split(" written to ")[1]
        assert "/" not in written and not written.startswith(".."), written
        assert (inner / written).is_file()
    assert not (tmp_path / "escaped.solutions.jsonl").exists()
    assert not Path("/tmp/absolute-cpsolve-test.solutions.jsonl").exists()


def test_show_refuses_cells_that_are_not_integers(tmp_path, capsys, monkeypatch):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"pieces": {"A": [[0, 0, "a"]]}}\n{"pieces": {"A": [[0, 0, 1.5]]}}\n')
    for index in ("0", "1"):
        code, out, err = run_main(["show", str(path), "--index", index], capsys, monkeypatch)
        assert code == 2 and out == ""
        assert err.strip() == f"cpsolve: error: {path}:{int(index) + 1}: not a solution line written by " \
                              "'cpsolve enumerate --out'"


def test_a_huge_finite_timeout_is_just_a_long_deadline(capsys, monkeypatch):
    """`--timeout 1e9` with workers once overflowed a wait in the process pool."""
    code, out, err = run_main(["enumerate", "soma", "--workers", "2", "--timeout", "1e9", "--no-save", "--json", "-q"],
                              capsys, monkeypatch)
    assert code == 0, err
    assert '"total": 11520' in out and '"status": "complete"' in out


answer_text = st.text(alphabet="sv cpnf-0123456789SATISFIABLEUNKO\n", max_size=200)
json_lines = st.lists(data.map(lambda d: __import__("json").dumps(d)) | st.text(max_size=30), max_size=3).map(
    lambda lines: "\n".join(lines) + "\n")


@COMMAND_FUZZ
@given(cnf=answer_text, answer=answer_text, lines=json_lines, index=st.integers(0, 3))
def test_show_and_decode_answer_in_one_line(cnf, answer, lines, index, tmp_path_factory, capsys, monkeypatch):
    folder = tmp_path_factory.mktemp("fuzz")
    n = next(_counter)
    (folder / f"a{n}.cnf").write_text(cnf, encoding="utf-8")
    (folder / f"a{n}.out").write_text(answer, encoding="utf-8")
    (folder / f"s{n}.jsonl").write_text(lines, encoding="utf-8")
    code, _out, err = run_main(["decode", "soma", str(folder / f"a{n}.cnf"), str(folder / f"a{n}.out")],
                               capsys, monkeypatch)
    assert_one_line_outcome(code, err)
    code, _out, err = run_main(["show", str(folder / f"s{n}.jsonl"), "--index", str(index)], capsys, monkeypatch)
    assert_one_line_outcome(code, err)


# -- counting without remembering classes (issue 39) ---------------------------------------------------


@st.composite
def varied_puzzles(draw: st.DrawFn) -> object:
    """Small puzzles with a known solution and each feature the memoryless count must get right: identical
    copies (shapes a partition repeats), mirror partners (a half-box partition and its mirror image: every
    chiral piece meets its partner), optional cells filled or not by a piece with a range (0 to k monocubes)."""
    from test_canonical import puzzle_from, random_partition

    from cpsolve.puzzle.geometry import box_cells
    from cpsolve.puzzle.model import Piece, Puzzle

    kind = draw(st.sampled_from(["plain", "mirrored", "optional"]))
    seed = draw(st.integers(0, 10**6))
    if kind == "mirrored":
        a, b, c = draw(st.sampled_from([(2, 2, 1), (2, 3, 1), (1, 3, 2), (2, 2, 2), (3, 3, 1)]))
        half = random_partition((a, b, c), draw(st.integers(1, 3)), seed)
        parts = half + [[(x, y, 2 * c - 1 - z) for x, y, z in cells] for cells in half]
        return puzzle_from(parts, (a, b, 2 * c))
    size = draw(st.sampled_from([(2, 2, 2), (2, 2, 3), (1, 3, 4), (2, 3, 3)]))
    puzzle = puzzle_from(random_partition(size, draw(st.integers(2, 5)), seed), size)
    if kind == "plain":
        return puzzle
    # Optional cells: a few cells on top of the box, symmetric or not, and monocubes that may fill them.
    top = [(x, y, size[2]) for x in range(size[0]) for y in range(size[1])]
    extra = draw(st.lists(st.sampled_from(top), min_size=1, max_size=3, unique=True))
    mono = Piece("M", ((0, 0, 0),), len(extra), min_count=0)
    return Puzzle("optional", tuple(box_cells(size)) + tuple(extra), (*puzzle.pieces, mono), optional=tuple(extra))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(puzzle=varied_puzzles(), breaking=st.booleans())
def test_memoryless_counts_match_brute_force(puzzle: object, breaking: bool) -> None:
    """The three counts from each class's representative alone (no class remembered) are the classes found by
    moving every solution of the full problem by every symmetry; the weights and the orbits agree."""
    from test_canonical import assert_brute_force

    assert_brute_force(puzzle, breaking)  # type: ignore[arg-type]
