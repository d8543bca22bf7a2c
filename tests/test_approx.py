"""Counts beyond enumeration (issue 29): ApproxMC's projected count, Knuth's solution estimate, UniGen's
samples, and the commands `count --approx` and `sample`.

Every figure is checked against the exact counts the models carry (their `reference`, which the
enumeration tests check in turn); seeds are fixed, so a failure reproduces.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from conftest import one_line, run_cli

import cpsolve
from cpsolve.problem.cnf import encode
from cpsolve.search.enumeration import prepare
from cpsolve.search.estimate import estimate_solutions, probe_values

pytest.importorskip("pyapproxmc")
pytest.importorskip("pyunigen")

from cpsolve.search.approx import part_cnfs, projected_count, split_count  # noqa: E402


def exact_models(cnf_clauses: list[list[int]], n_rows: int) -> int:
    """The solutions of a CNF projected on 1..n_rows, by enumeration with blocking clauses (pysat)."""
    from pysat.solvers import Solver

    solver = Solver(name="glucose4", bootstrap_with=cnf_clauses)
    found = 0
    while solver.solve():
        chosen = [lit for lit in solver.get_model() if 0 < lit <= n_rows]
        solver.add_clause([-lit for lit in chosen])
        found += 1
    solver.delete()
    return found


# --- ApproxMC -------------------------------------------------------------------------------------


def test_the_projection_makes_the_count_the_assemblies():
    """A 6x1x1 bar tiled by dominoes (0 to 3) and unit cubes (0 to 6): 13 tilings (Fibonacci). The
    ranges take cardinality encodings whose auxiliary variables the placements do not fix: projected
    on the placements ApproxMC counts the 13 assemblies, over every variable 108 assignments."""
    bar = cpsolve.puzzle_from_dict({"name": "bar", "container": {"box": [6, 1, 1]}, "pieces": {
        "D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": {"min": 0, "max": 3}},
        "U": {"cells": [[0, 0, 0]], "count": {"min": 0, "max": 6}}}})
    assert cpsolve.count(bar).total == 13
    cnf = encode(prepare(bar).problem)
    assert cnf.n_vars > cnf.n_rows
    projected = projected_count(cnf, seed=3)
    assert (projected.count, projected.is_exact, projected.interval) == (13, True, (13.0, 13.0))
    assert projected_count(cnf, seed=3, projection=range(1, cnf.n_vars + 1)).count == 108
    assert cpsolve.count_approx(bar, walks=0).total == 13


def test_a_part_that_pyapproxmc_4_4_miscounts():
    """A part of the Soma cube (two key placements forced) with 2 solutions: pyapproxmc 4.3.4 and 4.4.0
    say 1 (exactly, no XOR cut); the pinned release must say 2, as enumeration does."""
    broken = prepare(cpsolve.load("soma")).broken
    cnf = part_cnfs(broken.problem, [(361, 300)])[0]
    assert exact_models([list(c) for c in cnf.clauses], cnf.n_rows) == 2
    assert projected_count(cnf).count == 2


def test_a_miscounting_release_is_refused(monkeypatch):
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "4.4.0" if name == "pyapproxmc" else real(name))
    cnf = encode(prepare(cpsolve.load("slothouber-graatsma")).problem)
    with pytest.raises(cpsolve.CpsolveError, match=r"pyapproxmc 4\.4\.0 miscounts.*pyapproxmc==4\.1\.24"):
        projected_count(cnf)


def test_parts_sum_with_their_weights():
    """Split on the key piece, each part weighted by its orbit: the Soma cube's parts, counted exactly
    by enumeration, add up to the exact total; ApproxMC counts the smallest exactly (66 solutions, no
    cut: under its threshold), and weights the sum (the whole run: the slow test below)."""
    broken = prepare(cpsolve.load("soma")).broken
    cnfs = part_cnfs(broken.problem, broken.starts)
    assert len(cnfs) == 3 and broken.weights == (24, 24, 24)
    exact = [exact_models([list(c) for c in cnf.clauses], cnf.n_rows) for cnf in cnfs]
    assert sum(w * n for w, n in zip(broken.weights, exact, strict=True)) == 11520
    small = exact.index(min(exact))
    found = split_count([(cnfs[small], 24), (cnfs[small], 2)], seed=1, workers=2)
    assert (found.count, found.exact, found.parts, found.delta) == (26 * exact[small], 26 * exact[small], 2, 0.2)


@pytest.mark.parametrize("model", ["slothouber-graatsma", "t-tetracube-6x6x2"])
@pytest.mark.slow
def test_count_approx_contains_the_exact_total(model):
    puzzle = cpsolve.load(model)
    assert puzzle.reference is not None
    exact = puzzle.reference.counts()[0]
    found = cpsolve.count_approx(puzzle, seed=1, walks=20_000, workers=2)
    low, high = found.interval
    assert low <= exact <= high and found.delta == 0.2 and found.notes == ()
    assert abs(found.knuth - exact) <= 3 * found.knuth_stderr
    assert found.as_json()["interval"] == [low, high]


@pytest.mark.slow
def test_count_approx_timeout_is_a_note_and_the_walks_still_answer():
    found = cpsolve.count_approx(cpsolve.load("soma"), timeout=0.5, walks=4000)
    assert found.total is None and found.interval is None
    assert found.notes == ("ApproxMC: ApproxMC did not finish within 0.5 s",)
    assert found.knuth is not None and found.best == found.knuth


def test_derived_counts_are_total_over_the_group():
    found = cpsolve.count_approx(cpsolve.load("slothouber-graatsma"), walks=0)
    assert (found.total, found.rotations, found.symmetries) == (8, 24, 48)
    # 8 / 24 is no whole number: symmetric assemblies exist, and the true count (1) is larger
    assert found.unique_rotation == pytest.approx(8 / 24) and found.unique_symmetry == pytest.approx(8 / 48)


@pytest.mark.parametrize("bad, field", [({"epsilon": 0}, "epsilon"), ({"delta": 1.0}, "delta"),
                                        ({"walks": -1}, "walks"), ({"timeout": -1.0}, "timeout")])
def test_bad_parameters(bad, field):
    with pytest.raises(cpsolve.CpsolveError) as caught:
        cpsolve.count_approx(cpsolve.load("soma"), **bad)
    assert caught.value.field == field and caught.value.exit_code == 2


@pytest.mark.slow
@pytest.mark.parametrize("model", ["cubissimo"])  # soma's (81 s on 2 cores) is in results/approx.md
def test_count_approx_contains_the_exact_total_slow(model):
    puzzle = cpsolve.load(model)
    exact = puzzle.reference.counts()[0]
    found = cpsolve.count_approx(puzzle, seed=1, walks=50_000, workers=2)
    low, high = found.interval
    assert low <= exact <= high
    assert abs(found.knuth - exact) <= 3 * found.knuth_stderr


# --- Knuth's estimate of the solutions ------------------------------------------------------------


def test_solution_walks_match_their_python_twin():
    for model in ("soma", "t-tetracube-6x6x2"):
        problem = prepare(cpsolve.load(model)).problem
        c = probe_values(problem, [()], 300, 11, solutions=True)
        python = probe_values(problem, [()], 300, 11, compiled=False, solutions=True)
        assert c == python and any(v > 0 for v in c) and any(v == 0 for v in c)


def test_solution_walks_on_a_tiny_tree_are_exact():
    """A 3x1x1 bar of three unit cubes (three identical copies): every walk reaches the one cover
    with degrees 1, 1, 1, so each walk is worth exactly 1, with no error."""
    bar = cpsolve.puzzle_from_dict({"name": "bar", "container": {"box": [3, 1, 1]},
                                    "pieces": {"u": {"cells": [[0, 0, 0]], "count": 3}}})
    found = estimate_solutions(prepare(bar).problem, walks=50)
    assert (found.solutions, found.stderr, found.reached) == (1.0, 0.0, found.walks)


@pytest.mark.parametrize("model, walks", [("soma", 40_000), ("cubissimo", 40_000), ("t-tetracube-6x6x2", 20_000)])
def test_knuth_within_three_standard_errors(model, walks):
    """(Not on Conway's 5x5x5: 1 of 200,000 walks reaches a solution there, and the error bar of one
    success means nothing: results/approx.md.)"""
    puzzle = cpsolve.load(model)
    exact = puzzle.reference.counts()[0]
    broken = prepare(puzzle).broken
    one = estimate_solutions(broken.problem, broken.starts, broken.weights or (1,), walks, seed=5)
    two = estimate_solutions(broken.problem, broken.starts, broken.weights or (1,), walks, seed=5, workers=2)
    assert (one.solutions, one.stderr, one.walks, one.reached) == (two.solutions, two.stderr, two.walks, two.reached)
    assert one.reached > 0 and abs(one.solutions - exact) <= 3 * one.stderr


def test_walks_stop_at_their_deadline():
    problem = prepare(cpsolve.load("bedlam")).problem
    found = estimate_solutions(problem, walks=10**9, seconds=0.3)
    assert found.walks < 10**9 and found.seconds < 5


# --- UniGen ---------------------------------------------------------------------------------------


DOMINOES = {"name": "dominoes", "container": {"box": [2, 2, 4]},
            "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": 8}}}


def test_sampled_assemblies_are_solutions_of_their_class():
    puzzle = cpsolve.puzzle_from_dict(DOMINOES)
    drawn = cpsolve.sample(puzzle, 20, seed=7)
    assert len(drawn) == 20
    from cpsolve.puzzle.assembly import check_solution

    for s in drawn:
        assert check_solution(puzzle, {k: list(v) for k, v in s.pieces.items()}) is None
        assert s.assemblies in (2, 4, 8, 16) and s.id is not None and len(s.id) == 16
    first = {}
    for s in drawn:  # index: the class's number in the order the sample meets it
        first.setdefault(s.id, len(first))
        assert s.index == first[s.id]


@pytest.mark.slow
def test_sample_is_near_uniform():
    """Chi-square over the classes of the 121 domino tilings of a 2x2x4 box (25 classes up to rotation
    and reflection): UniGen draws assemblies, so a class should come in proportion to its assemblies.
    600 draws with a fixed seed (121 tilings are past ApproxMC's threshold: UniGen cuts with XORs); the
    0.1 % critical value of chi-square with 24 degrees of freedom is 51.2."""
    box = cpsolve.puzzle_from_dict(DOMINOES)
    assert cpsolve.count(box) == (121, 26, 25)
    drawn = cpsolve.sample(box, 600, seed=5)
    sizes = {s.id: s.assemblies for s in drawn}
    seen = Counter(s.id for s in drawn)
    assert len(seen) == 25 and sum(sizes.values()) == 121
    chi2 = sum((seen[c] - 600 * sizes[c] / 121) ** 2 / (600 * sizes[c] / 121) for c in sizes)
    assert chi2 < 51.2, (chi2, seen, sizes)


def test_sample_of_a_puzzle_without_solutions():
    none = cpsolve.puzzle_from_dict({"name": "none", "container": {"box": [3, 2, 1]}, "pieces": {
        "I": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}, "L": {"cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}})
    assert cpsolve.count(none).total == 0
    assert cpsolve.sample(none, 3) == []


# --- the command line -----------------------------------------------------------------------------


def test_cli_count_approx_json():
    proc = run_cli("count", "slothouber-graatsma", "--approx", "--walks", "4000", "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["total"], out["interval"], out["exact"], out["delta"], out["epsilon"]) == (8, [8.0, 8.0], True, 0.2,
                                                                                           0.8)
    assert out["derived"]["rotations"] == 24 and math.isclose(out["derived"]["unique_rotation"], 8 / 24)
    assert out["knuth"]["walks"] == 4000 and proc.stderr == ""


@pytest.mark.slow
def test_cli_count_approx_text_and_progress():
    proc = run_cli("count", "t-tetracube-6x6x2", "--approx", "--walks", "2000", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "t-tetracube-6x6x2: approximate counts"
    assert lines[1].startswith("  ApproxMC: ")
    assert "with probability >= 0.8 (epsilon 0.8, delta 0.2, seed 2)" in lines[1]
    assert lines[2].startswith("  Knuth: ") and "2,000 walks" in lines[2]
    assert "total / 8" in lines[3] and "total / 16" in lines[3]
    assert "cpsolve: ApproxMC: 1 of 1 parts counted" in proc.stderr


def test_cli_count_exact():
    proc = run_cli("count", "t-tetracube-6x6x2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"puzzle": "t-tetracube-6x6x2", "total": 136, "unique_rotation": 20,
                                       "unique_symmetry": 10}


@pytest.mark.parametrize("args, fragment", [(("--epsilon", "0"), "epsilon"), (("--delta", "2"), "delta")])
def test_cli_count_bad_options(args, fragment):
    one_line(run_cli("count", "soma", "--approx", *args), 2, fragment)


def test_cli_count_approx_timeout():
    proc = run_cli("count", "soma", "--approx", "--timeout", "0.5", "--walks", "2000", "--json", "-q")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["total"] is None and out["notes"] == ["ApproxMC: ApproxMC did not finish within 0.5 s"]


def test_cli_sample_file_is_read_by_show_and_draw(tmp_path):
    out = tmp_path / "s.jsonl"
    proc = run_cli("sample", "slothouber-graatsma", "-n", "5", "--seed", "3", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"cpsolve: 5 random solutions of slothouber-graatsma to {out}, 1 distinct class up to "
                           "rotation and reflection\n")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["sample"] for line in lines] == [0, 1, 2, 3, 4]
    assert all(line["puzzle"] == "slothouber-graatsma" and line["assemblies"] == 8 for line in lines)
    read = cpsolve.read_solutions(out)
    assert len(read) == 5 and read[0].pieces == {k: tuple(map(tuple, v)) for k, v in lines[0]["pieces"].items()}
    show = run_cli("show", str(out), "--index", "4")
    assert show.returncode == 0, show.stderr
    assert "z=0" in show.stdout
    picture = tmp_path / "s.png"
    draw = run_cli("draw", str(out), "--index", "2", "-o", str(picture))
    assert draw.returncode == 0, draw.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_sample_to_stdout_is_the_same_lines():
    a = run_cli("sample", "slothouber-graatsma", "-n", "3", "--seed", "4", "-q")
    b = run_cli("sample", "slothouber-graatsma", "-n", "3", "--seed", "4", "-q")
    assert a.returncode == 0 and a.stderr == "" and a.stdout == b.stdout
    assert [json.loads(x)["class"] for x in a.stdout.splitlines()] == [0, 0, 0]


def test_cli_count_approx_ctrl_c_is_one_line_and_leaves_no_process():
    """Ctrl-C while ApproxMC counts on two workers (a child and its pool, in C, deaf to signals): one
    line, exit 130, within the child's grace of 2 s, and no process left behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import descendants, wait_until

    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "count", "soma", "--approx", "-w", "2", "--walks", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert first.startswith("cpsolve: ApproxMC: counting 3 part(s)"), first
    # the isolated child and its counters, once they are there (a fixed second could come too soon)
    assert wait_until(lambda: len(descendants(proc.pid)) >= 2, within=60)
    below = descendants(proc.pid)
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 6
    assert (proc.returncode, out, err) == (130, "", "cpsolve: count --approx: interrupted, nothing counted\n")
    gone = wait_until(lambda: not any(os.path.exists(f"/proc/{p}") for p in below), within=10)
    assert gone, [p for p in below if os.path.exists(f"/proc/{p}")]


def test_a_cnf_past_the_literal_limit_is_a_note_and_the_walks_still_answer():
    from cpsolve import limits

    limits.configure(max_literals=1000)
    try:
        found = cpsolve.count_approx(cpsolve.load("soma"), walks=2000)
        assert found.total is None and found.knuth is not None
        assert len(found.notes) == 1 and found.notes[0].startswith("ApproxMC: the SAT model's estimated size")
        with pytest.raises(cpsolve.CpsolveError, match="over the limit of 1,000"):
            cpsolve.count_approx(cpsolve.load("soma"), walks=0)
    finally:
        limits.configure()
