"""One resolver for every command's MODEL or FILE (issue 27 item 2): `cpsolve.source` tells a built-in model, a
YAML puzzle file, a BurrTools file and a solutions file apart by their content, never by their name, and every
command takes each kind where it makes sense and says in one line where not.

The BurrTools files are the examples that ship with BurrTools (Andreas Röver, GPL), read from
../shared/burrtools-examples/ (see tests/test_burrtools.py); these tests skip when that folder is absent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, one_line, run_cli, run_json

import cpsolve

EXAMPLES = REPO.parent / "shared" / "burrtools-examples"
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")
AL = EXAMPLES / "AlPackino.xmpuzzle"
"""13 pieces in a 180-cell result, one assembly stored; 8 / 1 / 1."""


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@needs_examples
def test_draw_a_burrtools_file(tmp_path):
    """The issue's first bullet: `cpsolve draw AlPackino.xmpuzzle -o al.png` failed, "'utf-8' codec can't decode
    byte 0x8b": any existing file not named .yaml was taken for a solutions file."""
    proc = run_cli("draw", str(AL), "-o", str(tmp_path / "al.png"))
    assert proc.returncode == 0, proc.stderr
    width, height = png_size(tmp_path / "al.png")
    assert width > 300 and height > 300 and f"({width}x{height})" in proc.stderr


@needs_examples
def test_view_show_and_disassemble_take_the_stored_assembly(tmp_path):
    proc = run_cli("view", str(EXAMPLES / "PelikanBurr.xmpuzzle"), "-o", str(tmp_path / "p.html"))
    assert proc.returncode == 0, proc.stderr
    assert "1 solution," in proc.stderr and (tmp_path / "p.html").read_text().startswith("<!DOCTYPE html>")
    stored = cpsolve.stored_solutions(AL)[0]
    proc = run_cli("show", str(AL))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("AlPackino, a solution")
    drawn = sum(len(line.replace(" ", "").replace(".", "")) for line in proc.stdout.splitlines()[2:] if line.strip()
                and "=" not in line)
    assert drawn == sum(len(cells) for cells in stored.pieces.values()) == 180
    level = run_json("disassemble", str(AL))
    assert level["disassemblable"] and level["burrtools_level"] == stored.burrtools_level


@needs_examples
@pytest.mark.parametrize("command", [
    ("solve",), ("enumerate", "--no-save", "-q", "-w", "1", "--json"), ("estimate", "--probes", "200"),
    ("compare", "--backends", "dlx"), ("export", "--format", "xcc", "-o", "{tmp}/al.xcc"),
])
def test_every_puzzle_command_takes_a_burrtools_file(command, tmp_path):
    name, *options = command
    proc = run_cli(name, str(AL), *(o.replace("{tmp}", str(tmp_path)) for o in options), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    if name == "enumerate":
        assert [json.loads(proc.stdout)[k] for k in ("total", "unique_rotation", "unique_symmetry")] == [8, 1, 1]
    elif name == "compare":
        assert proc.stdout.splitlines()[1].split()[-3:] == ["8", "1", "1"]
    elif name == "export":
        assert (tmp_path / "al.xcc").read_text().startswith("|")
    elif name == "estimate":
        assert "200 walks" in proc.stdout
    else:
        assert "found by dlx" in proc.stdout


@needs_examples
def test_problem_n_of_a_burrtools_file_everywhere(tmp_path):
    """DemoMirrorParadox holds two problems: --problem picks one on every command; a problem that is not
    there, or --problem on a file that is not BurrTools, is one line."""
    demo = str(EXAMPLES / "DemoMirrorParadox.xmpuzzle")
    second = run_json("enumerate", demo, "--problem", "1", "--no-save", "-q", "-w", "1")
    assert (second["puzzle"], second["total"], second["unique_rotation"], second["unique_symmetry"]) == (
        "DemoMirrorParadox-1", 48, 2, 1)
    proc = run_cli("solve", demo, "--problem", "1")
    assert proc.returncode == 0 and "found by" in proc.stdout
    one_line(run_cli("enumerate", demo, "--problem", "5", "--no-save"), 2, "there is no problem 5")
    one_line(run_cli("draw", "soma", "--problem", "1", "-o", str(tmp_path / "x.png")), 2,
             "--problem: soma is a built-in model, not a BurrTools file")
    assert not (tmp_path / "x.png").exists()


@pytest.fixture(scope="module")
def solutions_txt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three soma solutions in a file whose name says nothing of what it holds."""
    folder = tmp_path_factory.mktemp("sols")
    run_json("enumerate", "soma", "--limit", "3", "--out", str(folder / "sols.txt"), "-q", "--no-journal")
    return folder / "sols.txt"


def test_a_solutions_file_named_anything_is_read_as_solutions(solutions_txt, tmp_path):
    lines = [json.loads(line) for line in solutions_txt.read_text().splitlines()]
    assert cpsolve.source(solutions_txt).kind == "solutions" and len(lines) == 3
    proc = run_cli("show", str(solutions_txt), "--index", "2")
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"soma, solution 2 (id {lines[2]['id']}; its class: 48 solutions in all)")
    proc = run_cli("draw", str(solutions_txt), "--sheet", "3", "-o", str(tmp_path / "s.svg"))
    assert proc.returncode == 0 and ">#2</text>" in (tmp_path / "s.svg").read_text()
    proc = run_cli("view", str(solutions_txt), "-o", str(tmp_path / "s.html"))
    assert proc.returncode == 0 and "3 solutions" in proc.stderr
    assert run_json("disassemble", str(solutions_txt), "--index", "1")["level"] == "1"


@pytest.mark.parametrize("command", ["enumerate", "solve", "estimate", "compare", "export", "decode", "import"])
def test_a_solutions_file_where_a_puzzle_is_needed_is_one_line(command, solutions_txt, tmp_path):
    args = {"export": ["-o", str(tmp_path / "x.cnf")], "decode": [str(tmp_path / "a"), str(tmp_path / "b")]}
    proc = run_cli(command, str(solutions_txt), *args.get(command, []), cwd=tmp_path)
    if command == "import":
        one_line(proc, 2, f"{solutions_txt}: is a solutions file; import takes a BurrTools file")
    else:
        one_line(proc, 2, f"{solutions_txt}: is a solutions file; {command} takes a puzzle (this file names puzzle "
                          "soma)")
    assert not (tmp_path / "x.cnf").exists()


def test_kinds_are_told_by_content_not_by_name(tmp_path, solutions_txt):
    """A YAML puzzle named .txt, a puzzle written as one line of JSON (it has `pieces` too), a BurrTools file
    named .yaml, a solutions file named .yaml: each is what its content says."""
    yaml = tmp_path / "bar.txt"
    yaml.write_text("name: bar\ncontainer: {box: [3, 1, 1]}\npieces: {I: {layers: [['###']]}}\n")
    as_json = tmp_path / "bar.json"
    as_json.write_text(json.dumps({"name": "bar", "container": {"box": [3, 1, 1]},
                                   "pieces": {"I": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}}}) + "\n")
    sols = tmp_path / "sols.yaml"
    shutil.copy(solutions_txt, sols)
    kinds = {p.name: cpsolve.source(p).kind for p in (yaml, as_json, sols)}
    assert kinds == {"bar.txt": "puzzle", "bar.json": "puzzle", "sols.yaml": "solutions"}
    assert run_json("enumerate", str(as_json), "--no-save", "-q")["total"] == 1
    if AL.exists():
        disguised = tmp_path / "al.yaml"
        shutil.copy(AL, disguised)
        assert cpsolve.source(disguised).kind == "xmpuzzle"
        assert run_json("enumerate", str(disguised), "--no-save", "-q", "-w", "1")["total"] == 8


def test_with_solutions_takes_solutions_not_a_puzzle(tmp_path, solutions_txt):
    one_line(run_cli("export", "soma", "--format", "xmpuzzle", "-o", str(tmp_path / "s.xmpuzzle"),
                     "--with-solutions", "soma"), 2,
             "--with-solutions: soma is a built-in model: give a solutions file")
    proc = run_cli("export", "soma", "--format", "xmpuzzle", "-o", str(tmp_path / "s.xmpuzzle"), "--with-solutions",
                   str(solutions_txt))
    assert proc.returncode == 0 and "3 solutions written" in proc.stderr
    assert len(cpsolve.stored_solutions(tmp_path / "s.xmpuzzle")) == 3


# -- a solutions file knows its puzzle (issue 35 item 4) ---------------------------------------------------

RENAMED_SOMA = """name: soma
container: {box: [2, 2, 1]}
pieces:
  L: {cells: [[0,0,0],[1,0,0],[0,1,0]]}
  D: {cells: [[0,0,0]]}
"""
"""A puzzle whose `name:` is a built-in model's: its solutions are no Soma's."""


def test_a_puzzle_named_as_a_built_in_model_is_found_by_its_file_not_its_name(tmp_path):
    """A puzzle whose `name:` is soma wrote a file that every reader checked against the built-in Soma ("not a
    solution of the puzzle it names"). The lines keep where the puzzle was read and its digest: found from the
    solutions file's folder (relative), from anywhere else, and its colours and checks are the file's."""
    (tmp_path / "puzzles").mkdir()
    (tmp_path / "puzzles" / "my.yaml").write_text(RENAMED_SOMA)
    (tmp_path / "out").mkdir()
    proc = run_cli("enumerate", "puzzles/my.yaml", "--out", "out/my.jsonl", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = json.loads((tmp_path / "out" / "my.jsonl").read_text().splitlines()[0])
    assert line["puzzle"] == "soma"
    assert line["origin"]["path"] == "../puzzles/my.yaml"  # from the solutions file: the same from any folder
    again = cpsolve.run(cpsolve.load(tmp_path / "puzzles" / "my.yaml"), out=tmp_path / "out" / "again.jsonl",
                        journal=False)
    assert again.complete
    assert (tmp_path / "out" / "again.jsonl").read_text() == (tmp_path / "out" / "my.jsonl").read_text()
    assert line["origin"]["sha256"] == sources_digest(cpsolve.load(tmp_path / "puzzles" / "my.yaml"))
    for cwd, name in ((tmp_path, "out/my.jsonl"), (tmp_path / "out", "my.jsonl"), (tmp_path / "puzzles",
                                                                                    "../out/my.jsonl")):
        proc = run_cli("show", name, cwd=cwd)
        assert proc.returncode == 0 and proc.stderr == "", (cwd, proc.stderr)
        assert proc.stdout.startswith("soma, solution 0") and "LL" in proc.stdout
    solutions = cpsolve.read_solutions(tmp_path / "out" / "my.jsonl")
    assert solutions[0].puzzle is not None and solutions[0].puzzle.origin.endswith("my.yaml")


def test_a_puzzle_that_cannot_be_found_is_said_once_with_where_it_was_looked_for(tmp_path):
    (tmp_path / "my.yaml").write_text(RENAMED_SOMA)
    proc = run_cli("enumerate", "my.yaml", "--out", "my.jsonl", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(tmp_path / "my.jsonl", moved / "my.jsonl")
    proc = run_cli("view", "my.jsonl", "-o", "v.html", cwd=moved)
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("cpsolve: note:")]
    assert notes == ["cpsolve: note: my.jsonl: the puzzle its solutions are of cannot be found (puzzle soma, digest "
                     f"{json.loads((moved / 'my.jsonl').read_text())['origin']['sha256']}: my.yaml (no such file)); "
                     "its solutions are read without it: unchecked, in default colours"]
    (moved / "my.yaml").write_text(RENAMED_SOMA.replace("D: {cells: [[0,0,0]]}", "D: {cells: [[0,0,0]], count: 1}"))
    assert run_cli("show", "my.jsonl", cwd=moved).stderr == ""  # the same puzzle, written otherwise: found
    (moved / "my.yaml").write_text(RENAMED_SOMA.replace("[2, 2, 1]", "[1, 2, 2]"))
    proc = run_cli("show", "my.jsonl", cwd=moved)
    assert proc.returncode == 0 and "my.yaml (another puzzle)" in proc.stderr, proc.stderr


def test_a_file_from_before_origins_still_names_its_puzzle_by_name(tmp_path):
    """Old files (no `origin`) are read as before: the name is a built-in model, or a path."""
    lines = [json.loads(s.as_line()) for s in cpsolve.enumerate(cpsolve.load("soma"), limit=3)]
    for record in lines:
        del record["origin"]
    (tmp_path / "old.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    read = cpsolve.read_solutions(tmp_path / "old.jsonl")
    assert [s.puzzle.name if s.puzzle else None for s in read] == ["soma"] * 3
    assert run_cli("show", "old.jsonl", "--index", "2", cwd=tmp_path).returncode == 0


def test_each_reader_loads_the_puzzle_once(tmp_path, monkeypatch):
    """Readers loaded the `puzzle` field once per line (20 lines: 18.5 s)."""
    from cpsolve.api import sources

    (tmp_path / "my.yaml").write_text(RENAMED_SOMA.replace("[2, 2, 1]", "[4, 3, 1]").replace(
        "D: {cells: [[0,0,0]]}", "D: {cells: [[0,0,0],[1,0,0]], count: 3}\n  M: {cells: [[0,0,0]], count: 3}"))
    puzzle = cpsolve.load(tmp_path / "my.yaml")
    cpsolve.run(puzzle, out=tmp_path / "my.jsonl", journal=False)
    assert len((tmp_path / "my.jsonl").read_text().splitlines()) == 164
    calls: list[str] = []
    real = sources.source

    def counted(text, problem=None):  # type: ignore[no-untyped-def]
        calls.append(str(text))
        return real(text, problem)

    monkeypatch.setattr(sources, "source", counted)
    src = cpsolve.source(tmp_path / "my.jsonl")
    assert src.puzzle is not None and len(src.solutions()) >= 10 and len(list(src.each())) >= 10
    assert src.solution(id=src.solutions()[3].id or "").index == 3
    assert calls == [str(tmp_path / "my.yaml")]


@needs_examples
def test_a_burrtools_problem_is_found_again_by_its_digest(tmp_path):
    """A solutions file of problem 1 of a BurrTools file is checked against problem 1, not the first."""
    path = EXAMPLES / "DemoMirrorParadox.xmpuzzle"  # two problems, each with assemblies
    wanted = next((k for k in range(1, len(cpsolve.source(path).problems))
                   if cpsolve.count(cpsolve.puzzle_from_xmpuzzle(path, k)).total), None)
    assert wanted is not None
    proc = run_cli("enumerate", str(path), "--problem", str(wanted), "--limit", "2", "--out", "b.jsonl", "-q",
                   cwd=tmp_path)
    assert proc.returncode in (0, 3), proc.stderr
    read = cpsolve.read_solutions(tmp_path / "b.jsonl")
    assert read[0].puzzle is not None
    assert sources_digest(read[0].puzzle) == sources_digest(cpsolve.puzzle_from_xmpuzzle(path, wanted))


def sources_digest(puzzle: cpsolve.Puzzle) -> str:
    from cpsolve.puzzle.model import digest

    return digest(puzzle)


def test_a_resume_from_another_folder_writes_the_same_lines(tmp_path):
    """The lines keep the puzzle's path from the solutions file's folder, not as given: a resume started from
    another folder (`../p.yaml`) checks the lines already there byte for byte and only appends."""
    (tmp_path / "p.yaml").write_bytes((REPO / "cpsolve" / "models" / "soma.yaml").read_bytes())
    (tmp_path / "sub").mkdir()
    proc = run_cli("enumerate", "p.yaml", "--limit", "20", "--out", "s.jsonl", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    first = (tmp_path / "s.jsonl").read_bytes()
    proc = run_cli("enumerate", "../p.yaml", "--out", "../s.jsonl", "--resume", "-q", cwd=tmp_path / "sub")
    assert proc.returncode == 0, proc.stderr
    after = (tmp_path / "s.jsonl").read_bytes()
    assert after.startswith(first) and len(after.splitlines()) == 240
