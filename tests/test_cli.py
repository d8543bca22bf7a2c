"""`solve` and `show` draw real, valid fillings; `list` and `schema` describe what exists."""

import json
import subprocess
import sys

import pytest
from conftest import run_cli, run_json

from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import rotation_key


def parse_drawing(text: str) -> dict[str, list[tuple[int, int, int]]]:
    """Invert the z-layers picture: symbol -> cells."""
    lines = text.splitlines()
    header = lines[0].split()
    assert header[0] == "z=0"
    cells: dict[str, list[tuple[int, int, int]]] = {}
    for y, line in enumerate(lines[1:]):
        if not line.strip():
            break
        for z, row in enumerate(line.split("  ")):
            for x, ch in enumerate(row):
                if ch != ".":
                    cells.setdefault(ch, []).append((x, y, z))
    return cells


def assert_valid_filling(model: str, drawn: dict[str, list[tuple[int, int, int]]]) -> None:
    puzzle = load(model)
    assert sorted(c for cells in drawn.values() for c in cells) == sorted(puzzle.container)
    for piece in puzzle.pieces:
        assert rotation_key(drawn[piece.name]) == rotation_key(piece.shape), piece.name


@pytest.mark.parametrize("backend", ["cpsat", "dlx"])
def test_solve_draws_a_valid_soma_cube(backend):
    proc = run_cli("solve", "soma", "--backend", backend)
    assert proc.returncode == 0, proc.stderr
    assert_valid_filling("soma", parse_drawing(proc.stdout))
    assert f"found by {backend}" in proc.stdout


def test_show_draws_the_requested_solution_of_an_enumeration(tmp_path):
    out = tmp_path / "b.jsonl"
    run_json("enumerate", "cubissimo", "--out", str(out), "--quiet")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    proc = run_cli("show", str(out), "--index", "17")
    assert proc.returncode == 0, proc.stderr
    body = proc.stdout.split("\n", 1)[1]
    drawn = parse_drawing(body)
    assert_valid_filling("cubissimo", drawn)
    stored = {k: sorted(tuple(c) for c in v) for k, v in records[17]["pieces"].items()}
    assert {k: sorted(v) for k, v in drawn.items()} == stored


def test_show_rejects_bad_index_and_bad_file(tmp_path):
    out = tmp_path / "b.jsonl"
    run_json("enumerate", "soma", "--limit", "3", "--out", str(out), "--quiet")
    proc = run_cli("show", str(out), "--index", "3")
    assert proc.returncode == 2 and "holds 3 solutions" in proc.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pieces": 3}\n')
    proc = run_cli("show", str(bad))
    assert proc.returncode == 2 and f"{bad}:1: not a solution line" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_list_shows_builtin_models_with_volume():
    proc = run_cli("list")
    assert proc.returncode == 0
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()[1:]}
    assert rows["soma"][1:3] == ["7", "27"]
    assert rows["bedlam"][1:3] == ["13", "64"]


def test_schema_is_json_schema_of_the_file_format():
    proc = run_cli("schema")
    schema = json.loads(proc.stdout)
    assert set(schema["required"]) == {"name", "container"}
    assert "source" in schema["properties"]
    assert "pieces" in schema["properties"] and "key_piece" in schema["properties"]


def test_closed_stdout_is_one_line_and_exit_1():
    """An answer nobody can read is a failure, not a silent success."""
    proc = subprocess.run(["sh", "-c", f"'{sys.executable}' -m cpsolve list >&-"], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1 and proc.stderr.strip() == "cpsolve: error: standard output is closed"


@pytest.mark.parametrize("quiet", [True, False])
def test_closed_stderr_still_prints_the_summary(quiet, tmp_path):
    """Issue 26 item 18: with stderr closed the run failed (exit 1) and printed nothing; the answer goes to
    stdout, which is open, and nothing meant for stderr may land in a file opened in its place."""
    proc = subprocess.run(["sh", "-c", f"'{sys.executable}' -m cpsolve enumerate soma {'-q' if quiet else ''} 2>&-"],
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[0] == "soma: 11520 solutions in all, 480 up to rotation, 240 up to rotation and " \
                                          "reflection"
    lines = (tmp_path / "soma.solutions.jsonl").read_text().splitlines()
    assert len(lines) == 240 and all(json.loads(line)["puzzle"] == "soma" for line in lines)


def test_a_folder_named_like_a_built_in_model(tmp_path):
    """The bare name means the built-in model (a note says so); ./NAME means the folder, refused in one line."""
    (tmp_path / "soma").mkdir()
    proc = run_cli("enumerate", "soma", "--no-save", "-q", "--json", cwd=tmp_path)
    assert proc.returncode == 0 and '"total": 11520' in proc.stdout
    assert "using the built-in model (write ./soma for the folder)" in proc.stderr
    proc = run_cli("enumerate", "./soma", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == "cpsolve: error: ./soma: is a directory, not a puzzle file"


def test_chain_constraint_words_may_be_lowercase(tmp_path):
    text = ("name: c\nkind: chain\ncontainer: {box: [2, 2, 1]}\nchain:\n  constraints: |\n"
            "    cube, 0, cube, 1, touch, 0, cube, 2, touch, 1, not_aligned, 0, 1, cube, 3, touch, 2,"
            " not_aligned, 1, 2, -1\n")
    (tmp_path / "c.yaml").write_text(text)
    (tmp_path / "upper.yaml").write_text(text.replace("cube", "CUBE").replace("touch", "TOUCH")
                                         .replace("not_aligned", "NOT_ALIGNED"))
    lower = run_json("enumerate", str(tmp_path / "c.yaml"), "--no-save", "-q", "-b", "sat")
    upper = run_json("enumerate", str(tmp_path / "upper.yaml"), "--no-save", "-q", "-b", "sat")
    # the U-shaped 4-cube chain folds into the 2x2 square 4 ways (a palindrome: each read from one end)
    assert (lower["total"], lower["unique_symmetry"]) == (upper["total"], upper["unique_symmetry"]) == (4, 1)


@pytest.mark.parametrize("extra", [None, {"level": "1.2", "moves": [{"pieces": ["A"], "direction": [1, 0, 0],
                                                                     "amount": None}]}])
def test_solution_lines_are_the_json_of_their_record(extra):
    """class_line writes its text directly (speed); it must be exactly json.dumps of the record."""
    from cpsolve.output.solutions import class_line

    pieces = {"A": [(0, 0, 0), (1, 2, 3)], 'we"ird\\n': [(4, 5, 6)], "é#2": [(10, -1, 2)]}
    record = {"puzzle": 'p"x', "class": 3, "assemblies": 48, "mirror_distinct": True,
              "pieces": {k: [list(c) for c in v] for k, v in pieces.items()}, **(extra or {})}
    assert class_line('p"x', 3, 48, True, pieces, extra) == json.dumps(record, separators=(",", ":"))
    with_id = {"puzzle": 'p"x', "class": 3, "id": "0123456789abcdef", **{k: v for k, v in record.items()
                                                                       if k not in ("puzzle", "class")}}
    assert class_line('p"x', 3, 48, True, pieces, extra, "0123456789abcdef") == json.dumps(with_id,
                                                                                          separators=(",", ":"))


@pytest.mark.parametrize("model", ["t-tetracube-6x6x2", "soma"])
def test_line_writer_writes_what_class_line_writes(model):
    """LineWriter keeps each placement's text (speed); its lines must be class_line's, copies numbered
    alike, with and without extra keys, also once its store has been emptied."""
    from cpsolve.output.solutions import LineWriter, class_line, labelled
    from cpsolve.search.backends.dlx import DlxBackend
    from cpsolve.search.enumeration import enumerate_classes, prepare
    from cpsolve.search.settings import RunSettings

    prepared = prepare(load(model))
    classes = []
    enumerate_classes(prepared, RunSettings(DlxBackend()), on_class=classes.append)
    writer = LineWriter(prepared.name, prepared.problem)
    writer.LIMIT = 50  # the store starts again many times over
    for cls in classes:
        extra = {"level": "1"} if cls.index % 2 else None
        want = class_line(prepared.name, cls.index, cls.assemblies, cls.mirror_distinct,
                          labelled(prepared.problem, cls.placements), extra, cls.id)
        assert writer.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, extra, cls.id) == want
        assert json.loads(want)["id"] == cls.id
    assert len(classes) == {"soma": 240, "t-tetracube-6x6x2": 10}[model]
