"""Every way a puzzle file can be wrong gives one line naming the file and field, and exit status 2."""

import pytest
from conftest import run_cli

GOOD_PIECES = """
pieces:
  A: {cells: [[0,0,0], [1,0,0]]}
  B: {cells: [[0,0,0], [1,0,0]]}
"""

CASES = {
    "volume": (
        "name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n  A: {cells: [[0,0,0], [1,0,0]]}\n",
        ["pieces", "total piece volume 2", "container volume 4"],
    ),
    "not-connected": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A: {cells: [[0,0,0], [1,1,0]]}\n  B: {cells: [[0,0,0], [1,0,0]]}\n"),
        ["pieces.A", "not face-connected"],
    ),
    "fits-nowhere": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A: {cells: [[0,0,0], [1,0,0], [2,0,0]]}\n  B: {cells: [[0,0,0]]}\n"),
        ["pieces.A", "fits nowhere"],
    ),
    "unknown-character": (
        "name: x\nsource: t\ncontainer:\n  layers:\n    - ['##', '#x']\n" + GOOD_PIECES,
        ["container.layers", "unknown drawing character 'x'", "layer 0 row 1 column 1"],
    ),
    "ragged-rows": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A:\n    layers:\n      - ['##', '#']\n  B: {cells: [[0,0,0]]}\n"),
        ["pieces.A.layers", "ragged rows", "row 1 has 1 characters"],
    ),
    "empty-piece": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A:\n    layers:\n      - ['..']\n  B: {cells: [[0,0,0]]}\n"),
        ["pieces.A", "the piece is empty"],
    ),
    "duplicate-names": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A: {cells: [[0,0,0], [1,0,0]]}\n  A: {cells: [[0,0,0], [1,0,0]]}\n"),
        ["duplicate key 'A'", "line 6"],
    ),
    "unreadable-yaml": (
        "name: x\nsource: t\ncontainer: {box: [2, 2, 1]\npieces: [\n",
        ["not valid YAML", "line"],
    ),
    "missing-name": (
        "source: t\ncontainer: {box: [2, 2, 1]}\n" + GOOD_PIECES,
        ["name", "required field is missing"],
    ),
    "unknown-field": (
        "name: x\nsource: t\ncolour: red\ncontainer: {box: [2, 2, 1]}\n" + GOOD_PIECES,
        ["colour", "unknown field"],
    ),
    "two-containers": (
        "name: x\nsource: t\ncontainer: {box: [2, 2, 1], layers: [['##']]}\n" + GOOD_PIECES,
        ["container", "exactly one of box, layers, union"],
    ),
    "bad-count": (
        "name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n  A: {cells: [[0,0,0], [1,0,0]], count: 0}\n",
        ["pieces.A.count", "greater than 0"],
    ),
    "unknown-key-piece": (
        "name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\n" + GOOD_PIECES + "key_piece: Q\n",
        ["key_piece", "unknown piece 'Q'"],
    ),
    "not-a-mapping": ("- just\n- a list\n", ["must be a YAML mapping"]),
    "duplicate-cell": (
        ("name: x\nsource: t\ncontainer: {box: [2, 2, 1]}\npieces:\n"
        "  A: {cells: [[0,0,0], [0,0,0]]}\n  B: {cells: [[0,0,0], [1,0,0]]}\n"),
        ["pieces.A.cells", "listed twice"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["enumerate", "solve"])
def test_bad_file_gives_one_line_and_exit_2(case, command, write_puzzle, tmp_path):
    text, expected = CASES[case]
    path = write_puzzle(text, f"{case}.yaml")
    proc = run_cli(command, str(path), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert str(path) in lines[0]
    for fragment in expected:
        assert fragment in lines[0], (fragment, lines[0])
    assert proc.stdout == ""


def test_missing_file_and_unknown_model(tmp_path):
    proc = run_cli("enumerate", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2 and "nope.yaml: no such puzzle file" in proc.stderr
    proc = run_cli("enumerate", "no-such-model")
    assert proc.returncode == 2 and "unknown model 'no-such-model'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [
    ("enumerate", "{dir}/puzzle.yaml"),
    ("decode", "soma", "{dir}/puzzle.yaml", "{dir}/puzzle.yaml"),
    ("show", "{dir}/puzzle.yaml"),
])
def test_unreadable_file_gives_one_line_naming_it(command, tmp_path):
    """Every reader of a user's file (puzzle, CNF, solutions) says the same thing when it cannot."""
    target = tmp_path / "puzzle.yaml"
    target.write_bytes(b"name: \xff\xfe not utf-8\n")
    proc = run_cli(*(part.format(dir=tmp_path) for part in command))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert f"{target}: cannot read the file: 'utf-8' codec can't decode" in lines[0]


def test_source_is_optional_in_a_users_file(write_puzzle, tmp_path):
    """A user's own puzzle needs no `source:` (every built-in model has one: test_library checks it)."""
    path = write_puzzle("name: mine\ncontainer: {box: [2, 2, 1]}\n" + GOOD_PIECES)
    proc = run_cli("enumerate", str(path), "--no-save", "--json", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"total": 4' in proc.stdout
