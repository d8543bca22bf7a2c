"""Names and colours come from files, so they are untrusted (issue 26): what is refused at load, and
what every writer does with the rest.

The rules: a colour is `#rgb`, `#rrggbb` or a CSS colour name, and becomes `#rrggbb` in the model;
a name (puzzle, piece, constraint colour) holds no control or formatting character and no line
break, and a description or source none but newlines and tabs. Whatever a name holds, each writer
keeps it in its place: SVG and HTML escape every attribute and text node, DIMACS and XCC comments
stay one line, XCC item names are what Knuth's DLX programs read, STL file names are safe and
distinct, YAML that cpsolve writes loads again, a BurrTools file's names are mapped to names cpsolve
accepts, and the terminal shows control characters escaped (`printable`).
"""

from __future__ import annotations

import dataclasses
import gzip
import html
import json
import re
import shutil
import subprocess
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from conftest import REPO, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpsolve
from cpsolve.errors import CpsolveError
from cpsolve.puzzle.loader import parse_puzzle_text
from cpsolve.puzzle.model import Puzzle, to_puzzle

PEERS = REPO.parent / "peers" / "bin"


def puzzle_yaml(name: str = "p", pieces: dict[str, dict] | None = None, box: tuple[int, int, int] = (2, 1, 1),
                **extra: object) -> str:
    """A 2x1x1 box and two unit cubes A and B (two assemblies), as YAML; `pieces` replaces them."""
    data: dict[str, object] = {"name": name, "container": {"box": list(box)},
                               "pieces": pieces or {"A": {"cells": [[0, 0, 0]]}, "B": {"cells": [[0, 0, 0]]}}}
    data.update(extra)
    return yaml.safe_dump(data, allow_unicode=False, sort_keys=False)


def load_text(text: str, where: str = "t.yaml") -> Puzzle:
    return to_puzzle(parse_puzzle_text(text, where), where)


def one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cpsolve: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------------------------------ colours


HOSTILE_COLOR = '#ffffff"/><script>alert(1)</script><rect x="'


def test_a_colour_that_is_markup_is_refused_in_one_line(tmp_path: Path) -> None:
    """Item 1: the colour went into the SVG as it was, and its script ran in a browser."""
    path = tmp_path / "p.yaml"
    path.write_text(puzzle_yaml(pieces={"A": {"cells": [[0, 0, 0]], "color": HOSTILE_COLOR},
                                        "B": {"cells": [[0, 0, 0]]}}), encoding="utf-8")
    proc = run_cli("draw", str(path), "-o", str(tmp_path / "x.svg"))
    one_line_error(proc, str(path), "pieces.A.color", "#rgb, #rrggbb or a CSS colour name")
    assert not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize(("given", "stored"), [
    ("blue", "#0000ff"), ("Blue", "#0000ff"), ("rebeccapurple", "#663399"), ("#ABC", "#aabbcc"),
    ("#1F5fbF", "#1f5fbf"), ("DarkOliveGreen", "#556b2f"),
])
def test_colours_are_stored_as_rrggbb(given: str, stored: str, tmp_path: Path) -> None:
    """Item 16: `color: blue` was an internal error in every picture; every writer now gets #rrggbb."""
    text = puzzle_yaml(pieces={"A": {"cells": [[0, 0, 0]], "color": given}, "B": {"cells": [[0, 0, 0]]}})
    assert load_text(text).pieces[0].color == stored
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    proc = run_cli("draw", str(path), "-o", str(tmp_path / "x.svg"))
    assert proc.returncode == 0, proc.stderr
    assert f'fill="{stored}"' in (tmp_path / "x.svg").read_text(encoding="utf-8")  # the legend's swatch


@pytest.mark.parametrize("given", ["bleu", "#12", "#1234", "#12345g", "#1234567", "rgb(1, 2, 3)", " blue", "",
                                   "#ffffff80", "transparent", "blue\n"])
def test_other_colours_are_one_line_naming_the_field(given: str) -> None:
    with pytest.raises(CpsolveError) as err:
        load_text(puzzle_yaml(pieces={"A": {"cells": [[0, 0, 0]], "color": given}, "B": {"cells": [[0, 0, 0]]}}))
    assert str(err.value).startswith("t.yaml: pieces.A.color: ") and "\n" not in str(err.value), str(err.value)


def test_the_colour_table_is_css() -> None:
    """The shipped table is CSS Color 4's named colours: Pillow ships the same table (ImageColor)."""
    from PIL import ImageColor

    from cpsolve.puzzle.colors import CSS_COLORS

    assert ImageColor.colormap == CSS_COLORS and len(CSS_COLORS) == 148


def test_a_puzzle_built_in_code_with_a_named_colour_draws() -> None:
    """A Puzzle made in Python skips the loader: the pictures normalise its colour as well."""
    soma = cpsolve.load("soma")
    blue = dataclasses.replace(soma, pieces=tuple(dataclasses.replace(p, color="blue") for p in soma.pieces))
    assert 'fill="#0000ff"' in cpsolve.draw(blue, "svg").decode()  # the top faces, lit fully


# ------------------------------------------------------------------------------------------ markup writers


def test_svg_escapes_every_attribute_and_text_node() -> None:
    """Defence in depth: whatever a Drawing holds, the SVG parses and holds no element it did not write."""
    from cpsolve.output.pictures import Drawing, Line, Polygon, Text, to_svg

    text = 'a</text><script>alert(1)</script>\x00\x1b[2J]]>-->"\''
    drawing = Drawing(10, 10, [Polygon(((0, 0), (1, 0), (1, 1)), HOSTILE_COLOR), Line((0, 0), (1, 1), HOSTILE_COLOR, 1),
                               Text((0, 0), text, 10, HOSTILE_COLOR)])
    root = ET.fromstring(to_svg(drawing))
    tags = [el.tag.split("}")[1] for el in root.iter()]
    assert tags == ["svg", "rect", "g", "polygon", "line", "text"]
    assert root.findall(".//{http://www.w3.org/2000/svg}text")[0].text == text.replace("\x00", "\ufffd").replace(
        "\x1b", "\ufffd")
    assert root.findall(".//{http://www.w3.org/2000/svg}polygon")[0].get("fill") == HOSTILE_COLOR


def test_the_page_keeps_names_inside_its_data() -> None:
    """The page's data is JSON inside a script element: no `<` may reach it (`</script>`, `<!--`)."""
    from cpsolve.output.page import page_html

    labels = ["</script><script>alert(1)</script>", "<!--<script>", "a&b", "\u2028x"]
    records = [{"puzzle": "p", "pieces": {k: [(i, 0, 0)] for i, k in enumerate(labels)}}]
    page = page_html(records, title='<b>"x"</b>\x1b')
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert data is not None and "<" not in data.group(1) and ">" not in data.group(1)
    assert [p["label"] for p in json.loads(data.group(1))["pieces"]] == labels
    assert page.count("<script") == 2
    title = re.search(r"<title>(.*?) — cpsolve</title>", page)
    assert title is not None and "<" not in title.group(1) and html.unescape(title.group(1)) == '<b>"x"</b>\ufffd'


# ------------------------------------------------------------------------------------------ names at load


UNSAFE = ["\n", "\r", "\t", "\x1b[31m", "\x00", "\x7f", "\x9b", "\u202e", "\u200f", "\u2028", "\u2029", "\ufeff",
          "\ud800", "\uffff"]


@pytest.mark.parametrize("bad", UNSAFE)
@pytest.mark.parametrize("field", ["name", "pieces", "cell_colors", "color_rules", "container.cell_colors"])
def test_names_with_control_characters_are_refused(bad: str, field: str) -> None:
    name = f"x{bad}y"
    pieces: dict[str, dict] = {"A": {"cells": [[0, 0, 0]]}, "B": {"cells": [[0, 0, 0]]}}
    if field == "name":
        text = puzzle_yaml(name)
    elif field == "pieces":
        pieces = {name: pieces["A"], "B": pieces["B"]}
        text = puzzle_yaml(pieces=pieces)
    elif field == "cell_colors":
        pieces["A"] = {"cells": [[0, 0, 0]], "cell_colors": {name: [[0, 0, 0]]}}
        text = puzzle_yaml(pieces=pieces)
    elif field == "color_rules":
        text = puzzle_yaml(color_rules={name: ["red"]})
    else:
        text = puzzle_yaml(container={"box": [2, 1, 1], "cell_colors": {name: [[0, 0, 0]]}})
    with pytest.raises(CpsolveError) as err:
        load_text(text)
    message = str(err.value)
    assert message.startswith("t.yaml: ") and f"U+{ord(bad[0]):04X}" in message, message
    assert field.split(".")[0] in message


@pytest.mark.parametrize("bad", [b for b in UNSAFE if b not in "\n\t"])
def test_a_description_may_hold_newlines_and_tabs_only(bad: str) -> None:
    assert load_text(puzzle_yaml(description="two\nlines\tand a tab", source="a\nb")).description.count("\n") == 1
    for field in ("description", "source"):
        with pytest.raises(CpsolveError) as err:
            load_text(puzzle_yaml(**{field: f"x{bad}y"}))
        assert f"t.yaml: {field}: " in str(err.value) and f"U+{ord(bad[0]):04X}" in str(err.value), str(err.value)


def test_names_with_spaces_quotes_and_markup_are_kept() -> None:
    """What is refused is what can break a line or a terminal; anything visible stays the user's."""
    names = ['  spaced  ', "q'\"uote", "<b>&amp;</b>", "]]>", "-->", "ソーマ\u3000キューブ", "Würfel", "a|b:c"]
    for name in names:
        puzzle = load_text(puzzle_yaml(name, pieces={name: {"cells": [[0, 0, 0]]}, "B": {"cells": [[0, 0, 0]]}}))
        assert puzzle.name == name and puzzle.pieces[0].name == name


# ------------------------------------------------------------------------------------------ duplicate keys (item 13)


@pytest.mark.parametrize(("first", "second"), [("1", '"1"'), ("yes", '"True"'), ("~", '"None"'), ("1.5", '"1.5"'),
                                               ("2001-01-01", '"2001-01-01"')])
def test_keys_that_read_the_same_are_duplicates(first: str, second: str) -> None:
    """`1:` and `"1":` are different YAML keys but the same piece name once read: a piece disappeared."""
    text = (f"name: d\ncontainer: {{box: [2, 1, 1]}}\npieces:\n  {first}: {{cells: [[0,0,0]]}}\n"
            f"  {second}: {{cells: [[0,0,0]]}}\n")
    with pytest.raises(CpsolveError) as err:
        load_text(text)
    assert str(err.value).startswith("t.yaml: duplicate key ") and "line 5" in str(err.value), str(err.value)


def test_duplicate_keys_are_found_in_any_mapping() -> None:
    text = ("name: d\ncontainer: {box: [2, 1, 1]}\npieces:\n  A: {cells: [[0,0,0]], cell_colors: {1: [[0,0,0]], "
            "'1': [[0,0,0]]}}\n  B: {cells: [[0,0,0]]}\n")
    with pytest.raises(CpsolveError, match="duplicate key '1'"):
        load_text(text)


def test_a_merged_key_is_overridden_by_the_same_name_spelled_otherwise() -> None:
    """A merge key brings `1:`; the mapping's own `"1":` overrides it (YAML's rule), as one key."""
    text = ("name: m\ncontainer: {box: [2, 1, 1]}\npieces:\n  <<: {1: {cells: [[0,0,0], [1,0,0]]}}\n"
            "  '1': {cells: [[0,0,0]]}\n  B: {cells: [[0,0,0]]}\n")
    puzzle = load_text(text)
    assert [(p.name, p.size) for p in puzzle.pieces] == [("1", 1), ("B", 1)]


# ------------------------------------------------------------------------------------------ design unique (item 4)


def test_design_unique_writes_only_inside_its_folder(tmp_path: Path) -> None:
    """`name: ../../x` wrote the suggestions two folders up; `/abs` anywhere; a long name, one file for all."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    for name in ["../../escaped/x", f"{tmp_path}/absolute/x", "L" * 300]:
        path = tmp_path / "u.yaml"
        path.write_text(puzzle_yaml(name, pieces={"L": {"cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "count": 2},
                                                  "D": {"cells": [[0, 0, 0], [1, 0, 0]]}}, box=(2, 2, 2)),
                        encoding="utf-8")
        out = work / "out"
        shutil.rmtree(out, ignore_errors=True)
        proc = run_cli("design", "unique", str(path), "--limit", "4", "--puzzles", str(out), "--json")
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        files = [Path(s["file"]) for s in report["suggestions"]]
        assert len(files) == 4 and len(set(files)) == 4
        assert sorted(p.name for p in out.iterdir()) == sorted(f.name for f in files)
        for f in files:
            assert f.parent == out and f.is_file() and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.yaml", f.name)
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "a" / "escaped").exists()
    assert not (tmp_path / "absolute").exists()


def test_file_stems_are_safe_and_distinct() -> None:
    from cpsolve.puzzle.names import safe_stem, unique_stems

    assert safe_stem("../x") == "_x" and safe_stem("/etc/x") == "_etc_x" and safe_stem("..") == "puzzle"
    assert safe_stem("a b.c") == "a_b.c" and len(safe_stem("x" * 500)) == 100 and safe_stem("-rf") == "rf"
    assert unique_stems(safe_stem(n) for n in ["x/y", "x_y", "X_Y", "x" * 120 + "1", "x" * 120 + "2"]) == [
        "x_y", "x_y-2", "X_Y-3", "x" * 100, "x" * 100 + "-2"]


# ------------------------------------------------------------------------------------------ BurrTools names (item 11)


def xmpuzzle(shapes: list[tuple[str | None, int]], path: Path) -> Path:
    """A plain-XML BurrTools file: dominoes named `shapes` (name, count), to fill a 2 x n box."""
    n = sum(count for _, count in shapes)
    voxels = "".join(f'<voxel x="2" y="1" z="1" type="0"{"" if name is None else f" name={_attr(name)}"}>##</voxel>'
                     for name, _ in shapes)
    parts = "".join(f'<shape id="{i}" count="{count}"/>' for i, (_, count) in enumerate(shapes))
    path.write_text(f'<?xml version="1.0"?><puzzle version="2"><gridType type="0"/><colors/><shapes>{voxels}'
                    f'<voxel x="2" y="{n}" z="1" type="0" name="box">{"#" * 2 * n}</voxel></shapes><problems>'
                    f'<problem name="p&#155;[2J&#8238;" state="0"><shapes>{parts}</shapes>'
                    f'<result id="{len(shapes)}"/><bitmap/></problem></problems></puzzle>', encoding="utf-8")
    return path


def _attr(value: str) -> str:
    return '"' + "".join(ch if ch.isalnum() or ch in " #-_" else f"&#{ord(ch)};" for ch in value) + '"'


def test_a_burrtools_name_with_a_hash_keeps_every_piece(tmp_path: Path) -> None:
    """Item 11: a shape `W#1` beside a 2-copy `W`: the copy label W#1 and the piece W#1 were one key, and
    every solution line lost a piece; `cpsolve import` wrote YAML that cpsolve then refused."""
    path = xmpuzzle([("W", 2), ("W#1", 1)], tmp_path / "w.xmpuzzle")
    out = tmp_path / "w.jsonl"
    proc = run_cli("enumerate", str(path), "--out", str(out), "-q", "-w", "1")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines and all(len(line["pieces"]) == 3 for line in lines)
    assert sum(line["assemblies"] for line in lines) == 9  # 3 tilings of the 2x3 box, W#1 at one of 3 dominoes
    yaml_path = tmp_path / "w.yaml"
    proc = run_cli("import", str(path), "-o", str(yaml_path))
    assert proc.returncode == 0, proc.stderr
    names = [p.name for p in cpsolve.load(str(yaml_path)).pieces]
    assert names == ["W", "W_1"]
    assert json.loads(run_cli("enumerate", str(yaml_path), "--no-save", "--json", "-q").stdout)["total"] == 9


def test_burrtools_names_are_mapped_to_names_cpsolve_accepts(tmp_path: Path) -> None:
    """Control characters, `#`, blanks and the duplicates they make: mapped the same way every time."""
    shapes: list[tuple[str | None, int]] = [("a\nb", 1), ("a b", 1), ("x#", 1), ("x_", 1), ("\x9b[2J", 1), (None, 1),
                                            ("   ", 1), ("S7", 1)]
    path = xmpuzzle(shapes, tmp_path / "n.xmpuzzle")
    puzzle = cpsolve.puzzle_from_xmpuzzle(path)
    names = [p.name for p in puzzle.pieces]
    assert names == ["a b", "a b-2", "x_", "x_-2", "_[2J", "S6", "S7", "S7-2"]
    assert "\x9b" not in puzzle.description and "\u202e" not in puzzle.description
    assert puzzle.description.startswith("p_[2J_ (imported")
    yaml_path = tmp_path / "n.yaml"
    assert run_cli("import", str(path), "-o", str(yaml_path)).returncode == 0
    assert [p.name for p in cpsolve.load(str(yaml_path)).pieces] == names


# ------------------------------------------------------------------------------------------ DIMACS and XCC (item 12)


def _pysat_answer(cnf: Path) -> str:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(cnf)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    return "s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n"


@pytest.mark.parametrize("name", ["  spaced  ", "p cnf 1 1", "c var 1 A 0,0,0", "<b>'\"&", "ソーマ", "x" * 2000])
def test_decode_accepts_its_own_export_whatever_the_names(name: str, tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(puzzle_yaml(name, pieces={name: {"cells": [[0, 0, 0]]}, f"{name} 2": {"cells": [[0, 0, 0]]}}),
                    encoding="utf-8")
    cnf = tmp_path / "p.cnf"
    assert run_cli("export", str(path), "-o", str(cnf)).returncode == 0
    answer = tmp_path / "answer"
    answer.write_text(_pysat_answer(cnf), encoding="utf-8")
    proc = run_cli("decode", str(path), str(cnf), str(answer))
    assert proc.returncode == 0, proc.stderr


def hostile(puzzle: Puzzle, name: str, piece_names: list[str]) -> Puzzle:
    """The puzzle renamed in code, past the loader's checks (the writers must still hold)."""
    return dataclasses.replace(puzzle, name=name, pieces=tuple(
        dataclasses.replace(p, name=n) for p, n in zip(puzzle.pieces, piece_names, strict=True)))


def check_dimacs(text: str) -> None:
    """Every line is a comment, the p line or a clause: a name cannot add a line."""
    lines = text.splitlines()
    assert text.count("\n") == len(lines)
    p_lines = [line for line in lines if line.startswith("p ")]
    assert len(p_lines) == 1 and re.fullmatch(r"p cnf \d+ \d+", p_lines[0]), p_lines
    for line in lines:
        assert line.startswith(("c ", "p cnf ")) or re.fullmatch(r"(-?\d+ )*0", line), line
        assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in line), line


def check_xcc(text: str) -> None:
    """Comments are one line each; the items are names DLX1-3 read: 1-8 printable ASCII bytes, no | or :."""
    lines = text.splitlines()
    assert text.count("\n") == len(lines)
    body = [line for line in lines if not line.startswith("|")]
    items = set()
    for token in body[0].split():
        if token == "|":
            continue
        name = token.split("|")[-1]
        assert re.fullmatch(r"[!-~]{1,8}", name) and not set(name) & set("|:"), token
        items.add(name)
    for option in body[1:]:
        assert set(option.split()) <= items, option
    for line in lines:
        assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in line), line


def test_names_cannot_add_lines_to_dimacs_or_xcc() -> None:
    """Item 12: a newline in a name injected `p cnf` and clause lines into the export."""
    from cpsolve.output.exchange import write_dimacs, write_xcc
    from cpsolve.problem.cnf import encode
    from cpsolve.search.enumeration import prepare

    base = load_text(puzzle_yaml())
    puzzle = hostile(base, "a\np cnf 1 1\n1 0", ["A\nc x", "\x1b[2J\u2028|:"])
    prepared = prepare(puzzle)
    check_dimacs(write_dimacs(encode(prepared.broken.problem), prepared.broken.problem, {"puzzle": prepared.name}))
    check_xcc(write_xcc(prepared.broken.problem))


@pytest.mark.peer
@pytest.mark.skipif(not (PEERS / "dlx1").exists(), reason=f"Knuth's dlx1 is not built in {PEERS}")
@pytest.mark.parametrize("names", [["Würfelää", "B"], ["a b", "a:b"], ["a|b", "12345678"], ["\x1b[2J", "\x00"]])
def test_xcc_item_names_are_read_by_dlx1(names: list[str], tmp_path: Path) -> None:
    """`Würfelää` is 8 characters but 10 bytes: DLX1 stopped with "Item name too long!"."""
    puzzle = hostile(load_text(puzzle_yaml()), "p", names)
    text = cpsolve.export(puzzle, "xcc")
    check_xcc(text)
    proc = subprocess.run([str(PEERS / "dlx1")], input=text.encode(), capture_output=True, timeout=30, check=False)
    assert proc.returncode == 0 and b"Altogether 1 solution" in proc.stderr, proc.stderr


# ------------------------------------------------------------------------------------------ STL file names (item 14)


def test_stl_file_names_never_collide_and_say_the_count(tmp_path: Path) -> None:
    """`x.y` and `x_y` were one `x_y.stl` ("1 STL files (2 pieces)"); a piece used 4 times is `V-x4.stl`."""
    path = tmp_path / "p.yaml"
    v = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    path.write_text(puzzle_yaml(pieces={"x.y": {"cells": [[0, 0, 0]]}, "x/y": {"cells": [[0, 0, 0]]},
                                        "x_y": {"cells": [[0, 0, 0]]}, "V": {"cells": v, "count": 4},
                                        "V-x4": {"cells": [[0, 0, 0]]}}, box=(4, 4, 1)), encoding="utf-8")
    out = tmp_path / "stl"
    proc = run_cli("export", str(path), "--format", "stl", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["x.y.stl", "x_y.stl", "x_y-2.stl", "V-x4.stl", "V-x4-2.stl"])
    assert "5 STL files" in proc.stderr and "8 pieces to print" in proc.stderr, proc.stderr


def test_stl_names_from_the_api() -> None:
    files = cpsolve.export(cpsolve.load("y-pentacube-5x5x5"), "stl")
    assert list(files) == ["Y-x25.stl"]
    assert files["Y-x25.stl"][:80].rstrip() == b"cpsolve piece Y (print 25)"


# ------------------------------------------------------------------------------------------ the terminal


def test_printable_escapes_what_a_terminal_would_obey() -> None:
    from cpsolve.output.text import printable

    assert printable("ok ソーマ\u3000<b>") == "ok ソーマ\u3000<b>"
    assert printable("a\x1b[2J\nb\tc\x00\u202e\x9b") == "a\\x1b[2J\\nb\\tc\\x00\\u202e\\x9b"


def test_show_and_disassemble_escape_names_from_a_solutions_file(tmp_path: Path) -> None:
    """A solutions file is edited by hand as easily as a puzzle: its names reach the terminal escaped, and
    a label no puzzle file can hold (control characters: the loader refuses them) is refused in one line,
    itself escaped (issue 26 item 18: lines are checked before they are shown)."""
    path = tmp_path / "s.jsonl"
    record = {"puzzle": "p\x1b]0;owned\x07\n", "class": 0, "assemblies": 1, "mirror_distinct": False,
              "pieces": {"A": [[0, 0, 0]], "long name": [[1, 0, 0]]}}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    for args in (["show", str(path)], ["disassemble", str(path)], ["disassemble", str(path), "--json"]):
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
        if args[-1] != "--json":
            assert "p\\x1b]0;owned\\x07\\n" in proc.stdout and "A" in proc.stdout, proc.stdout
    record["pieces"] = {"A\x1b[2J": [[0, 0, 0]], "long name\nwith a line": [[1, 0, 0]]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    for args in (["show", str(path)], ["disassemble", str(path)], ["draw", str(path), "-o", str(tmp_path / "x.svg")]):
        proc = run_cli(*args)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.count("\n") == 1 and "\x1b" not in proc.stderr and "\x07" not in proc.stderr
        assert f"{path}:1: label 'A\\x1b[2J' is not a piece name" in proc.stderr, proc.stderr


# ------------------------------------------------------------------------------------------ every writer, any name


FRAGMENTS = ['"', "'", "<", ">", "&", "\n", "\x1b[2J", "\x1b]0;t\x07", "]]>", "-->", "<!--", "</script>", "\x00",
             "\u202e", "\u200f", "\u2028", "\ud800", "#", " ", "|", ":", "p cnf 1 1", "c var", "Würfel", "ソーマ",
             "x" * 2000, "..", "/", "\\", "%s", "{}", "\t"]
names = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), min_size=1, max_size=4).map("".join)


def refused(name: str, piece: bool = True) -> bool:
    """What the loader refuses in a name (the test's own statement of the rule)."""
    return not name or (piece and (not name.strip() or "#" in name)) or any(
        unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Cn") for ch in name)


def check_writers(puzzle: Puzzle, tmp: Path) -> None:
    """Every writer on one puzzle: its output keeps each name in its place."""
    from cpsolve.output.burrtools import write_xmpuzzle
    from cpsolve.output.page import page_html
    from cpsolve.output.text import draw, printable
    from cpsolve.puzzle.burrtools import read_xmpuzzle

    solution = cpsolve.solve(puzzle)
    assert solution is not None
    svg = ET.fromstring(cpsolve.draw(solution, "svg"))
    assert {el.tag.split("}")[1] for el in svg.iter()} == {"svg", "rect", "g", "polygon", "line", "text"}
    page = page_html([{"puzzle": puzzle.name, "pieces": dict(solution.pieces)}], puzzle, title=puzzle.name)
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert data is not None and "<" not in data.group(1) and page.count("<script") == 2
    assert sorted(p["label"] for p in json.loads(data.group(1))["pieces"]) == sorted(solution.pieces)
    check_dimacs(cpsolve.export(puzzle))
    check_xcc(cpsolve.export(puzzle, "xcc"))
    stl = cpsolve.export(puzzle, "stl")
    assert len(stl) == len(puzzle.pieces) and all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.stl", k) for k in stl)
    try:
        written = write_xmpuzzle(puzzle, [dict(solution.pieces)])
    except CpsolveError as exc:  # names past the loader: a solution of such pieces is refused as such
        assert any(refused(p.name) for p in puzzle.pieces) and "is not a solution of" in str(exc), str(exc)
        written = write_xmpuzzle(puzzle, [])
    (tmp / "p.xmpuzzle").write_bytes(written)
    ET.fromstring(gzip.decompress((tmp / "p.xmpuzzle").read_bytes()))
    back = read_xmpuzzle(tmp / "p.xmpuzzle")
    assert len(back.pieces) == len(puzzle.pieces) and not any(refused(p.name) for p in back.pieces)
    for line in [printable(puzzle.name), *draw(dict(solution.pieces)).splitlines()]:
        assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in line), line


NAME_FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@NAME_FUZZ
@given(name=names, a=names, b=names)
def test_any_name_is_refused_at_load_or_safe_in_every_writer(name: str, a: str, b: str, tmp_path_factory) -> None:
    from cpsolve.analysis.design.files import puzzle_yaml as design_yaml
    from cpsolve.puzzle.writer import puzzle_text

    tmp = tmp_path_factory.mktemp("names")
    text = puzzle_yaml(name, pieces={a: {"cells": [[0, 0, 0]]}, b: {"cells": [[0, 0, 0]]}} if a != b else None)
    piece_names = [a, b] if a != b else ["A", "B"]
    try:
        puzzle = load_text(text)
    except CpsolveError as exc:
        assert refused(name, piece=False) or any(refused(n) for n in piece_names), (name, piece_names, str(exc))
        assert "\n" not in str(exc).strip() or any("\n" in n for n in [name, *piece_names])
        puzzle = hostile(load_text(puzzle_yaml()), name, piece_names)  # past the loader: the writers still hold
    else:
        assert not refused(name, piece=False) and not any(refused(n) for n in piece_names)
        assert (puzzle.name, [p.name for p in puzzle.pieces]) == (name, piece_names)
        again = load_text(design_yaml(puzzle, puzzle.container, "fuzz"))  # `design unique` writes this
        assert (again.name, [p.name for p in again.pieces]) == (name, piece_names)
        data = yaml.safe_load(puzzle_text({"name": puzzle.name, "container": {"box": [2, 1, 1]},
                                       "pieces": {p.name: {"cells": [[0, 0, 0]]} for p in puzzle.pieces}}))
        assert list(data["pieces"]) == piece_names  # `cpsolve import` writes with this dumper
    check_writers(puzzle, tmp)


@pytest.mark.parametrize("name", ["<script>", "ソーマ\u3000キューブ", "x" * 3000])
def test_the_terminal_shows_accepted_names_as_they_are(name: str, tmp_path: Path) -> None:
    """A name the loader accepts needs no escape: enumerate and export print it unchanged."""
    path = tmp_path / "p.yaml"
    path.write_text(puzzle_yaml(name), encoding="utf-8")
    for args in (["enumerate", str(path), "--no-save", "-q"], ["export", str(path), "-o", str(tmp_path / "p.cnf")]):
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        assert f"{name}: " in proc.stdout + proc.stderr
