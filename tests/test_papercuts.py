"""The command line's papercuts that a newcomer met (issue 27 item 6): each test here failed before its fix."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, one_line, run_cli, run_json

import cpsolve

EXAMPLES = REPO.parent / "shared" / "burrtools-examples"


def cli_env(*args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cpsolve", *args], capture_output=True, text=True, check=False,
                          cwd=cwd, env={**os.environ, **env}, timeout=600)


# --- estimate ---------------------------------------------------------------------------------------


def test_estimate_refuses_a_puzzle_dlx_does_not_run():
    """`estimate snake-27` printed 4.4e27 nodes "at the dlx engine's speed", though dlx refuses chains."""
    one_line(run_cli("estimate", "snake-27"), 1,
             "snake-27: backend: the estimate is of the dlx engine's search, and this puzzle runs on sat")
    one_line(run_cli("estimate", "soma", "--backend", "cpsat"), 1, "this puzzle runs on cpsat")


def test_estimate_makes_the_walks_asked_for_and_says_years():
    proc = run_cli("estimate", "soma", "--probes", "4000")  # 3 subproblems: it made 3 x 1333 = 3999
    assert proc.returncode == 0 and "4,000 walks" in proc.stdout
    proc = run_cli("estimate", "t-tetracube-6x6x6", "--probes", "1000")  # some 10^10 s: "8,356,808,800.6 s"
    assert proc.returncode == 0, proc.stderr
    time_line = proc.stdout.splitlines()[1]
    assert re.match(r"about [\d,]+ years on one core \(± [\d,]+ years\)", time_line), time_line


# --- compare ----------------------------------------------------------------------------------------


def test_compare_times_the_first_solution_within_the_run():
    """`compare soma` showed CP-SAT's first solution (1.18 s, a separate run paying for OR-Tools' start) after
    all of them (0.47 s)."""
    rows = run_json("compare", "soma", "--backends", "cpsat,dlx")
    assert [r["backend"] for r in rows] == ["cpsat", "dlx"]
    for row in rows:
        assert row["status"] == "complete" and 0 <= row["first_seconds"] <= row["all_seconds"], row


# --- help -------------------------------------------------------------------------------------------


def every_command() -> list[list[str]]:
    import typer

    from cpsolve.cli import app

    group = typer.main.get_command(app)
    out: list[list[str]] = [[]]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        out.append([name])
        out += [[name, sub] for sub in getattr(command, "commands", {})]
    return out


@pytest.mark.parametrize("command", every_command(), ids=lambda c: " ".join(c) or "cpsolve")
def test_help_shows_names_not_type_tags(command):
    """rich ate `[cluster]` of "pip install 'cpsolve[cluster]'"; flags showed `<bool>`, MODEL `{model}`."""
    proc = cli_env(*command, "--help", env={"COLUMNS": "100"})
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"<(bool|str|int|float|path|int range|float range)>|\{[a-z_]+\}|╭", proc.stdout), proc.stdout
    if command == ["enumerate"]:
        assert "Usage: python -m cpsolve enumerate [OPTIONS] MODEL" in proc.stdout
        assert "pip install 'cpsolve[cluster]'" in " ".join(proc.stdout.split())
        assert re.search(r"--json +Print one JSON", proc.stdout) and "--timeout SECONDS" in proc.stdout


def test_a_global_option_after_the_command_says_where_it_goes():
    one_line(run_cli("enumerate", "soma", "--max-cells", "10"), 2,
             "--max-cells is an option of cpsolve itself: give it before the command (cpsolve --max-cells N "
             "enumerate ...)")
    one_line(run_cli("enumerate", "soma", "--no-such-thing"), 2, "No such option: --no-such-thing")


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"cpsolve {cpsolve.__version__}"
    assert re.fullmatch(r"cpsolve \d+\.\d+\.\d+\S*", proc.stdout.strip())


def test_list_fits_the_terminal_and_says_what_each_model_is():
    proc = cli_env("list", env={"COLUMNS": "72"})
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["model", "pieces", "volume", "what"] and len(lines) == 1 + len(cpsolve.models())
    assert max(len(line) for line in lines) <= 72
    soma = next(line for line in lines if line.startswith("soma "))
    assert "Piet Hein's Soma cube" in soma and soma.endswith("…")
    wide = cli_env("list", env={"COLUMNS": "400"}).stdout.splitlines()
    assert "Piet Hein's Soma cube: the seven irregular pieces made of at most four unit cubes (one tricube, six " \
           "tetracubes) assembled into a 3x3x3 cube." in next(line for line in wide if line.startswith("soma "))


# --- enumerate: --disassemble, --json, --timeout ----------------------------------------------------


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")
def test_the_level_histogram_is_to_scale():
    """SolidSixPieceBurrs: 148 classes at level 1, 31 at 1.2; bars were cut at 60 (60 against 31)."""
    proc = run_cli("enumerate", str(EXAMPLES / "SolidSixPieceBurrs.xmpuzzle"), "--disassemble", "--no-save", "-q")
    assert proc.returncode == 0, proc.stderr
    bars = {m[1]: (int(m[2]), len(m[3])) for m in re.finditer(r"^ +(\S+) +(\d+)  (#+)$", proc.stdout, re.M)}
    assert bars == {"1": (148, 60), "1.2": (31, 13)}


def test_json_has_the_same_keys_whatever_the_options(tmp_path):
    """`journal` was missing without a journal, `idle_tail_seconds` on one worker, `disassembly` without it."""
    section = (REPO / "docs" / "cli.md").read_text().split("prints exactly one JSON object", 1)[1].split("\n- ", 1)[0]
    documented = list(dict.fromkeys(re.findall(r"`(\w+)`", section)))
    runs = [run_json("enumerate", "soma", "-q", *options, cwd=tmp_path) for options in (
        ["--no-save"], ["--workers", "1", "--out", "a.jsonl"], ["--workers", "2", "--journal", "j"],
        ["--disassemble", "--no-save", "--limit", "3"])]
    keys = [list(r) for r in runs]
    assert keys[0] == keys[1] == keys[2] == keys[3] == [k for k in documented if k in keys[0]]
    assert set(keys[0]) <= set(documented)
    assert runs[0]["journal"] is None and runs[0]["solutions_file"] is None and runs[0]["disassembly"] is None
    assert runs[2]["journal"] == "j" and runs[3]["disassembly"]["levels"] == {"1": 3}


@pytest.mark.slow
def test_a_timeout_exits_3(tmp_path):
    """A --timeout cut (incomplete counts) exited 0 like a complete run."""
    proc = run_cli("enumerate", "bedlam", "--timeout", "4", "--no-save", "-q", "-w", "1", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.startswith("bedlam: TIMEOUT (counts so far, incomplete): ")
    assert run_cli("enumerate", "soma", "--timeout", "60", "--no-save", "-q", cwd=tmp_path).returncode == 0


# --- the journal's numbers ----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_journal_says_what_the_run_said(tmp_path):
    """`cpsolve journal` said "1298 solutions ... 1373 classes" against the run's 1793, and "108.4 % of the
    estimated work" for a finished run."""
    proc = run_cli("enumerate", "soma", "--journal", str(tmp_path / "j"), "-q", "--out", str(tmp_path / "s.jsonl"))
    summary = proc.stdout.splitlines()[0]
    shown = run_cli("journal", str(tmp_path / "j")).stdout.splitlines()
    assert shown[0].endswith("38 of 38 subproblems done (100.0 % of the estimated work)")
    assert f"soma: {shown[1]}" == summary
    facts = run_json("journal", str(tmp_path / "j"))
    assert (facts["total"], facts["rotation_classes"], facts["classes"]) == (11520, 480, 240)
    assert facts["size_done"] == facts["size"]

    proc = run_cli("enumerate", "bedlam", "--timeout", "2", "-q", "-w", "2", "--json", cwd=tmp_path)
    run = json.loads(proc.stdout)
    facts = run_json("journal", run["journal"], cwd=tmp_path)
    lines = (tmp_path / "bedlam.solutions.jsonl").read_text().splitlines()
    assert facts["classes"] == run["unique_symmetry"] == len(lines)
    # Classes up to rotation are counted per finished subproblem (issue 39: the journal keeps no class's key).
    assert facts["rotation_classes"] <= run["unique_rotation"]
    assert 0 <= facts["size_done"] <= facts["size"]
    text = run_cli("journal", run["journal"], cwd=tmp_path).stdout
    assert f"so far {run['unique_symmetry']} up to rotation and reflection written" in text
    assert f"{facts['total']} solutions in all, {facts['rotation_classes']} up to rotation" in text


# --- words --------------------------------------------------------------------------------------------


def test_design_summaries_say_none_not_python_none(tmp_path):
    proc = run_cli("design", "pieces", "--box", "2x2x2", "--pool", "dicubes,tricubes", "--out",
                   str(tmp_path / "p.jsonl"), "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "first unique seconds: none" in proc.stdout.splitlines() and "None" not in proc.stdout


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")
def test_one_is_singular(tmp_path):
    proc = run_cli("import", str(EXAMPLES / "AlPackino.xmpuzzle"), "--check", "-o", str(tmp_path / "al.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert "BurrTools stored 1 assembly;" in proc.stderr
    assert "1 stored assembly checked: it covers the result exactly" in proc.stderr
    assert not re.search(r"\b1 [a-z]+ies\b|\b1 (solutions|pieces|assemblies|moves|states)\b", proc.stderr)


def test_export_stl_refuses_a_file_name_and_writes_a_zip(tmp_path):
    """`export --format stl -o one.stl` silently made a folder one.stl."""
    one_line(run_cli("export", "soma", "--format", "stl", "-o", str(tmp_path / "one.stl")), 2,
             "--out: ", "one.stl: the STL export is one file per piece: name a folder (no suffix) or a .zip")
    assert not (tmp_path / "one.stl").exists()
    proc = run_cli("export", "t-tetracube-6x6x2", "--format", "stl", "-o", str(tmp_path / "slab.zip"))
    assert proc.returncode == 0 and "1 STL file written" in proc.stderr and "18 pieces to print" in proc.stderr
    with zipfile.ZipFile(tmp_path / "slab.zip") as archive:
        assert archive.namelist() == ["T-x18.stl"]  # the name says: print it 18 times
        data = archive.read("T-x18.stl")
    assert len(data) == 84 + 50 * int.from_bytes(data[80:84], "little") and b"(print 18)" in data[:80]


# --- the API ------------------------------------------------------------------------------------------


def test_breaking_out_leaves_the_result_of_what_was_received():
    """After `break` at 10 classes, run.result counted 223: what the search process had found meanwhile."""
    with cpsolve.enumerate(cpsolve.load("tetris-cube"), workers=2) as run:
        got = []
        for solution in run:
            got.append(solution)
            if len(got) == 10:
                break
    assert run.result.status == "stopped"
    assert run.result.counts == (sum(s.assemblies for s in got), 10, 10)  # no tetris class is mirror-distinct
    assert run.result.as_json()["unique_symmetry"] == 10


def test_a_puzzle_repr_is_one_short_line():
    for name in cpsolve.models():
        shown = repr(cpsolve.load(name))
        assert len(shown) < 80 and shown.startswith(f"Puzzle({name!r}, "), shown
    assert repr(cpsolve.load("t-tetracube-6x6x6")) == "Puzzle('t-tetracube-6x6x6', 54 pieces, 216 cells)"


# --- the docs ------------------------------------------------------------------------------------------


def test_sources_lists_every_model():
    text = (REPO / "docs" / "sources.md").read_text()
    assert [m for m in cpsolve.models() if f"| `{m}` |" not in text] == []


def test_the_library_test_cites_public_works():
    doc = ast.get_docstring(ast.parse((REPO / "tests" / "test_library.py").read_text())) or ""
    assert "shared/" not in doc and "Best Assembler" in doc and "Solving cubish puzzles" in doc


def test_the_notebook_holds_no_machine_path():
    notebook = json.loads((REPO / "docs" / "example.ipynb").read_text())
    outputs = json.dumps([cell.get("outputs", []) for cell in notebook["cells"]])
    assert not re.findall(r"/(?:work|home|root|tmp|Users)/[\w./-]+", outputs)


def test_min_level_says_how_many_lines_it_wrote(tmp_path):
    """Issue 35: `--min-level 1.2` said "588 written" where 31 were: the summary counts the lines written."""
    for level, written in (("1", 1), ("2", 0)):
        proc = run_cli("enumerate", "six-piece-burr", "--disassemble", "--min-level", level, "--out", "x.jsonl",
                       cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        lines = (tmp_path / "x.jsonl").read_text().splitlines()
        assert len(lines) == written
        assert f"{written} canonical solutions written to x.jsonl" in proc.stdout.splitlines()


def test_a_pipe_given_as_a_puzzle_says_what_it_is(tmp_path):
    """`show fifo` said "no such puzzle file"."""
    os.mkfifo(tmp_path / "fifo")
    for command in (["show", "fifo"], ["enumerate", "fifo"]):
        one_line(run_cli(*command, cwd=tmp_path), 2, "fifo: is a pipe, a device or a socket, not a file")


def test_a_yaml_puzzle_named_xmpuzzle_is_read_by_its_content(tmp_path):
    """The README promises files are told by content: a YAML puzzle named t.xmpuzzle was read as BurrTools."""
    (tmp_path / "t.xmpuzzle").write_bytes((REPO / "cpsolve" / "models" / "slothouber-graatsma.yaml").read_bytes())
    data = run_json("enumerate", "t.xmpuzzle", "--no-save", "-q", cwd=tmp_path)
    assert (data["total"], data["unique_symmetry"]) == (8, 1)
    assert cpsolve.load(tmp_path / "t.xmpuzzle").name == "slothouber-graatsma"


def test_sample_names_the_file_its_literal_limit_refuses():
    """`sample PelikanBurr.xmpuzzle` was refused by --max-literals without naming the file (UniGen's CNF:
    --guarantee; the exact draw of a small puzzle builds none)."""
    one_line(run_cli("--max-literals", "1000", "sample", "soma", "-n", "1", "--guarantee"), 2,
             "cpsolve/models/soma.yaml: the SAT model's estimated size in literals is ")


def test_a_puzzle_file_with_several_problems_names_each(tmp_path):
    """A YAML error with two problems named only the first ("and 1 more problems")."""
    (tmp_path / "two.yaml").write_text("name: two\ncontainer: {box: [3, 3, 3]}\ncolour: red\n"
                                       "pieces:\n  A: {cells: [[0,0,0]], count: 27, colr: blue}\n")
    one_line(run_cli("enumerate", "two.yaml", cwd=tmp_path), 2,
             "two.yaml: pieces.A.colr: unknown field; colour: unknown field")
    many = "name: many\ncontainer: {box: [3, 3, 3]}\npieces:\n" + "".join(
        f"  P{i}: {{cells: [[0,0,0]], bad{i}: 1}}\n" for i in range(6))
    (tmp_path / "many.yaml").write_text(many)
    proc = run_cli("enumerate", "many.yaml", cwd=tmp_path)
    one_line(proc, 2, "many.yaml: pieces.P0.bad0: unknown field; pieces.P1.bad1: unknown field; ", "(and 2 more)")
