"""Guaranteed counts and samples (issue 29, `--guarantee` since issue 41): ApproxMC's projected count, its
cost predicted and stated before it starts, UniGen's samples. The walks' estimate and the exact draws are
tests/test_walks.py's.

Every figure is checked against the exact counts the models carry (their `reference`, which the
enumeration tests check in turn); seeds are fixed, so a failure reproduces.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter

import pytest
from conftest import one_line, run_cli

import cpsolve
from cpsolve.problem.cnf import encode
from cpsolve.search.enumeration import prepare

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
    found = cpsolve.count_approx(bar, guarantee=True)
    assert found.guarantee is not None and (found.guarantee.count, found.total) == (13, 13)


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


@pytest.mark.slow
@pytest.mark.parametrize("model", ["slothouber-graatsma", "t-tetracube-6x6x2"])
def test_guarantee_contains_the_exact_total(model):
    puzzle = cpsolve.load(model)
    assert puzzle.reference is not None
    exact = puzzle.reference.counts()[0]
    found = cpsolve.count_approx(puzzle, seed=1, workers=2, guarantee=True)
    g = found.guarantee
    assert g is not None and g.interval[0] <= exact <= g.interval[1] and g.delta == 0.2 and found.notes == ()
    assert found.total == exact and found.exact  # the walks: small enough to count
    assert found.as_json()["guarantee"]["interval"] == list(g.interval) and g.predicted > 0


@pytest.mark.slow
def test_guarantee_past_the_timeout_is_refused_before_it_starts():
    """The Tetris Cube: ApproxMC did not finish in 90 s on two cores; its predicted time passes a 10 s
    timeout, so it is not run, a note says both times, and the walks' estimate answers (status timeout)."""
    began = time.monotonic()
    found = cpsolve.count_approx(cpsolve.load("tetris-cube"), guarantee=True, timeout=10, workers=2)
    assert found.guarantee is None and found.status == "timeout" and found.total is not None
    assert len(found.notes) == 1 and re.fullmatch(r"ApproxMC would take about .* here, more than the .* left of "
                                                  r"--timeout: not run", found.notes[0])
    assert time.monotonic() - began < 12


def test_predicted_seconds_follow_the_measured_runs():
    """The cost model against the runs it was fitted to (results/approx.md): within a factor 2 of each."""
    from cpsolve.search.approx import predicted_seconds

    for model, part, count, seconds in (("t-tetracube-6x6x2", 0, 136, 10.5), ("cubissimo", 0, 127, 13.4),
                                        ("soma", 0, 207, 19.8)):
        broken = prepare(cpsolve.load(model)).broken
        start = broken.starts[part]
        own = predicted_seconds(broken.problem, [start] * len(broken.starts), [count] * len(broken.starts))
        assert seconds / 2 <= own / len(broken.starts) <= seconds * 2, (model, own)


@pytest.mark.parametrize("bad, field", [({"epsilon": 0}, "epsilon"), ({"delta": 1.0}, "delta")])
def test_bad_parameters(bad, field):
    with pytest.raises(cpsolve.CpsolveError) as caught:
        cpsolve.count_approx(cpsolve.load("soma"), guarantee=True, **bad)
    assert caught.value.field == field and caught.value.exit_code == 2


def test_derived_counts_are_total_over_the_group():
    found = cpsolve.count_approx(cpsolve.load("slothouber-graatsma"), guarantee=True)
    assert (found.guarantee.count, found.total, found.rotations, found.symmetries) == (8, 8, 24, 48)
    # 8 / 24 is no whole number: symmetric assemblies exist, and the true count (1) is larger
    assert found.unique_rotation == pytest.approx(8 / 24) and found.unique_symmetry == pytest.approx(8 / 48)


@pytest.mark.slow
def test_parts_are_made_where_they_are_counted():
    """SolidSixPieceBurrs' 176 parts took 3.9 GB made all at once: a part's CNF is made by the process that
    counts it, from a maker, one at a time."""
    from functools import partial

    from cpsolve.search.approx import part_cnf

    broken = prepare(cpsolve.load("soma")).broken
    makers = [(partial(part_cnf, broken.problem, s), w) for s, w in zip(broken.starts, broken.weights, strict=True)]
    found = split_count(makers, seed=1, workers=2)
    assert found.parts == 3 and found.interval[0] <= 11520 <= found.interval[1]


# --- UniGen ---------------------------------------------------------------------------------------


DOMINOES = {"name": "dominoes", "container": {"box": [2, 2, 4]},
            "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": 8}}}


def test_sampled_assemblies_are_solutions_of_their_class():
    puzzle = cpsolve.puzzle_from_dict(DOMINOES)
    drawn = list(cpsolve.sample(puzzle, 20, seed=7, guarantee=True))
    assert {s.found_by for s in drawn} == {"unigen"}
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
    drawn = list(cpsolve.sample(box, 600, seed=5, guarantee=True))
    sizes = {s.id: s.assemblies for s in drawn}
    seen = Counter(s.id for s in drawn)
    assert len(seen) == 25 and sum(sizes.values()) == 121
    chi2 = sum((seen[c] - 600 * sizes[c] / 121) ** 2 / (600 * sizes[c] / 121) for c in sizes)
    assert chi2 < 51.2, (chi2, seen, sizes)


# --- the command line -----------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_guarantee_states_its_cost_first():
    proc = run_cli("count", "t-tetracube-6x6x2", "--approx", "--guarantee", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "t-tetracube-6x6x2: 136 solutions in all, counted exactly (the search is small enough)"
    assert lines[1].startswith("  ApproxMC: ") and "(epsilon 0.8, delta 0.2, seed 2)" in lines[1]
    assert "predicted" in lines[1] and "total / 8" in lines[2] and "total / 16" in lines[2]
    err = proc.stderr.splitlines()
    predicted = [i for i, x in enumerate(err) if x.startswith("cpsolve: ApproxMC: 1 part(s), about ")]
    counted = [i for i, x in enumerate(err) if x == "cpsolve: ApproxMC: 1 of 1 parts counted"]
    assert predicted and counted and predicted[0] < counted[0]


def test_cli_count_exact():
    proc = run_cli("count", "t-tetracube-6x6x2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"puzzle": "t-tetracube-6x6x2", "total": 136, "unique_rotation": 20,
                                       "unique_symmetry": 10}


@pytest.mark.parametrize("args, fragment", [(("--epsilon", "0"), "epsilon"), (("--delta", "2"), "delta")])
def test_cli_count_bad_options(args, fragment):
    one_line(run_cli("count", "soma", "--approx", "--guarantee", *args), 2, fragment)


def test_cli_sample_guarantee_file_is_read_by_show_and_draw(tmp_path):
    out = tmp_path / "s.jsonl"
    proc = run_cli("sample", "slothouber-graatsma", "-n", "5", "--seed", "3", "--guarantee", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (f"cpsolve: 5 random solutions of slothouber-graatsma to {out} (5 by "
                                            "unigen), 1 distinct class up to rotation and reflection")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["sample"] for line in lines] == [0, 1, 2, 3, 4] and {x["method"] for x in lines} == {"unigen"}
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


@pytest.mark.slow
def test_cli_guarantee_ctrl_c_is_one_line_and_leaves_no_process():
    """Ctrl-C while ApproxMC counts on two workers (a child and its pool, in C, deaf to signals): one
    line, exit 130, within the child's grace of 2 s, and no process left behind."""
    import os
    import signal
    import subprocess
    import sys

    from conftest import descendants

    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "count", "y-pentacube-5x5x5", "--approx", "-w", "2",
                             "--guarantee", "--walks", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("cpsolve: ApproxMC: 3 part(s)"):
            break
    time.sleep(1.0)
    below = descendants(proc.pid)
    assert len(below) >= 2  # the isolated child and its counters
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 6
    assert (proc.returncode, out, err) == (130, "", "cpsolve: count --approx: interrupted, nothing counted\n")
    time.sleep(0.5)
    assert [p for p in below if os.path.exists(f"/proc/{p}")] == []
