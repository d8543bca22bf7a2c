"""DIMACS/XCC export and `cpsolve decode`: a real solution decodes, every bad answer is rejected in one line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli


def export(tmp_path: Path, model: str, *extra: str, name: str = "out.cnf") -> Path:
    path = tmp_path / name
    proc = run_cli("export", model, "-o", str(path), *extra)
    assert proc.returncode == 0, proc.stderr
    return path


def competition_output(cnf_path: Path, wrap: int = 7) -> str:
    """Solve with pysat and print the answer as a SAT-competition solver would, v lines wrapped."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    lines = ["c solved by pysat for the test", "s SATISFIABLE"]
    tokens = [*map(str, model), "0"]
    lines += ["v " + " ".join(tokens[i:i + wrap]) for i in range(0, len(tokens), wrap)]
    return "\n".join(lines) + "\n"


def decode(tmp_path: Path, model: str, cnf: Path, answer: str) -> subprocess.CompletedProcess[str]:
    out = tmp_path / "answer.txt"
    out.write_text(answer, encoding="utf-8")
    return run_cli("decode", model, str(cnf), str(out))


def drawn_cells(stdout: str) -> int:
    """Letters in the drawing's layer rows (the lines before the blank line that starts the legend)."""
    body = stdout.split("\n\n")[0].splitlines()[1:]
    return sum(len(re.findall(r"[A-Za-z]", line)) for line in body)


def rejected(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cpsolve: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def soma(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("soma")
    cnf = export(tmp, "soma")
    return cnf, competition_output(cnf)


def test_soma_roundtrip_draws_27_cells(tmp_path: Path, soma) -> None:
    cnf, answer = soma
    text = cnf.read_text()
    assert "c puzzle soma" in text and "c symmetry-breaking on" in text and "c fingerprint " in text
    rows = re.search(r"^c rows (\d+)", text, re.MULTILINE)
    assert rows is not None and len(re.findall(r"^c var ", text, re.MULTILINE)) == int(rows.group(1))
    proc = decode(tmp_path, "soma", cnf, answer)
    assert proc.returncode == 0, proc.stderr
    assert drawn_cells(proc.stdout) == 27
    assert set(re.findall(r"[A-Z]", proc.stdout.split("\n\n")[0].split("\n", 1)[1])) == set("VLTZABP")


def test_unsat_answer_exits_1(tmp_path: Path, soma) -> None:
    proc = decode(tmp_path, "soma", soma[0], "c nothing\ns UNSATISFIABLE\n")
    assert proc.returncode == 1 and proc.stdout.strip() == "UNSATISFIABLE"


def flip_first_true_row(answer: str) -> str:
    """Make the first chosen row false: a cell is then uncovered, so some clause is violated."""
    return re.sub(r"(?<=[ v])(\d+)(?= )", lambda m: f"-{m.group(1)}", answer, count=1)


@pytest.mark.parametrize(
    ("mangle", "words"),
    [
        (lambda a: a.replace("s SATISFIABLE\n", ""), ["no 's' status line"]),
        (lambda a: a.replace("v ", "v x7 ", 1), ["'x7' is not an integer"]),
        (lambda a: a.replace(" 0\n", " 999999 0\n"), ["variable 999999 is out of range"]),
        (lambda a: a.rstrip().removesuffix(" 0").removesuffix("v 0") + "\n", ["do not end with 0"]),
        (flip_first_true_row, ["violates clause"]),
        (lambda a: a.replace("s SATISFIABLE", "s UNSATISFIABLE"), ["'v' lines with status UNSATISFIABLE"]),
        (lambda a: a.replace(" 0\n", " 1 -1 0\n"), ["variable 1 is both true and false"]),
    ],
    ids=["no-s-line", "garbage", "out-of-range", "missing-0", "violated-clause", "v-without-sat", "contradiction"],
)
def test_bad_answers_are_rejected(tmp_path: Path, soma, mangle, words) -> None:
    cnf, answer = soma
    bad = mangle(answer)
    assert bad != answer
    proc = decode(tmp_path, "soma", cnf, bad)
    rejected(proc, "answer.txt", *words)


def test_cnf_from_another_model_is_rejected(tmp_path: Path, soma) -> None:
    proc = decode(tmp_path, "cubissimo", soma[0], soma[1])
    rejected(proc, "was exported from model 'soma'")


def test_cnf_with_other_options_is_rejected(tmp_path: Path, soma) -> None:
    """Same puzzle name, other problem: the full problem's rows, relabelled as symmetry-broken."""
    full = export(tmp_path, "soma", "--no-symmetry-breaking", name="full.cnf")
    lying = tmp_path / "lying.cnf"
    lying.write_text(full.read_text().replace("c symmetry-breaking off", "c symmetry-breaking on"))
    proc = decode(tmp_path, "soma", lying, competition_output(full))
    rejected(proc, "lying.cnf", "was exported from a different model/options")


def test_tampered_cnf_is_rejected(tmp_path: Path, soma) -> None:
    text = soma[0].read_text()
    lines = text.splitlines()
    first_clause = next(i for i, line in enumerate(lines) if line.startswith("p cnf")) + 1
    lines[first_clause] = lines[first_clause].replace(" 0", " 5 0", 1)
    tampered = tmp_path / "tampered.cnf"
    tampered.write_text("\n".join(lines) + "\n")
    rejected(decode(tmp_path, "soma", tampered, soma[1]), "tampered.cnf", "modified after export")


def test_encoding_option_is_recorded_and_decoded(tmp_path: Path) -> None:
    cnf = export(tmp_path, "soma", "--encoding", "totalizer")
    assert "c encoding totalizer" in cnf.read_text()
    proc = decode(tmp_path, "soma", cnf, competition_output(cnf))
    assert proc.returncode == 0 and drawn_cells(proc.stdout) == 27


def test_xcc_soma_items_and_options(tmp_path: Path) -> None:
    from cpsolve.puzzle.catalog import load
    from cpsolve.search.enumeration import prepare

    text = export(tmp_path, "soma", "--format", "xcc", name="soma.xcc").read_text()
    lines = [line for line in text.splitlines() if not line.startswith("|")]
    items = lines[0].split()
    assert len(items) == 27 + 7 and len(set(items)) == 34 and "x1y2z0" in items and "Z" in items
    rows = prepare(load("soma")).broken.problem.rows
    assert len(lines) - 1 == len(rows)
    assert all(set(line.split()) <= set(items) for line in lines[1:])


def test_xcc_multiplicity(tmp_path: Path) -> None:
    """One multi-copy piece: no item (volume decides). Several: DLX3 `k|name`."""
    t = export(tmp_path, "t-tetracube-6x6x2", "--format", "xcc", name="t.xcc").read_text()
    assert next(line for line in t.splitlines() if not line.startswith("|")).split() == [
        f"x{x}y{y}z{z}" for x in range(6) for y in range(6) for z in range(2)]
    conway = export(tmp_path, "conway-5x5x5", "--format", "xcc", name="c.xcc").read_text()
    items = next(line for line in conway.splitlines() if not line.startswith("|")).split()
    assert "13|brick" in items and "3|rod" in items and "cube" in items


def test_chain_xcc_is_a_clear_error_and_dimacs_works(tmp_path: Path) -> None:
    proc = run_cli("export", "snake-27", "--format", "xcc", "-o", str(tmp_path / "s.xcc"))
    rejected(proc, "--format", "XCC cannot express", "dimacs format")
    cnf = export(tmp_path, "snake-27")
    proc = decode(tmp_path, "snake-27", cnf, competition_output(cnf))
    assert proc.returncode == 0, proc.stderr
    assert len(re.findall(r"\d+", proc.stdout.split("\n", 1)[1])) == 27


@pytest.fixture
def cadical() -> str:
    path = shutil.which("cadical")
    if path is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("cadical binary not installed, and CPSOLVE_CI requires it")
        pytest.skip("cadical binary not installed (apt-get install cadical)")
    return path


@pytest.mark.parametrize(("model", "cells"), [("soma", 27), ("bedlam", 64), ("snake-27", 27)])
@pytest.mark.slow
def test_real_cadical_end_to_end(tmp_path: Path, cadical: str, model: str, cells: int) -> None:
    cnf = export(tmp_path, model)
    solved = subprocess.run([cadical, "-q", str(cnf)], capture_output=True, text=True, timeout=300, check=False)
    assert solved.returncode == 10, solved.stderr  # cadical: 10 SAT, 20 UNSAT
    proc = decode(tmp_path, model, cnf, solved.stdout)
    assert proc.returncode == 0, proc.stderr
    body = proc.stdout.split("\n\n")[0].split("\n", 1)[1]
    found = len(re.findall(r"\d+", body)) if model == "snake-27" else len(re.findall(r"[A-Za-z0-9]", body))
    assert found == cells
