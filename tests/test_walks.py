"""Counts beyond enumeration that reach (issue 41): Knuth's walks with exact tails (`search/walks.py`),
numbers past a double's range (`search/moments.py`, issue 35 item 5), the sampler (`search/sampling.py`),
the walks' journal, and `count --approx` / `sample` on the command line (deadlines and signals: issue 35
item 6).

Statistical tests run with fixed seeds: each draws the same walks every time, so a bound that holds once
holds always (and the bounds are those a correct estimator meets: within 3 standard errors, or a chi-square
below its 0.1 % critical value).
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import descendants, one_line, run_cli

import cpsolve
from cpsolve.search import walks
from cpsolve.search.enumeration import prepare
from cpsolve.search.estimate import python_descend, scaled_values
from cpsolve.search.moments import Moments, add_scaled, as_float, fmt, log10_of, sqrt_scaled, stratified


def dominoes(box: list[int]) -> cpsolve.Puzzle:
    n = box[0] * box[1] * box[2] // 2
    return cpsolve.puzzle_from_dict({"name": "dominoes", "container": {"box": box},
                                     "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": n}}})


# --- numbers past a double's range ----------------------------------------------------------------


def test_moments_hold_numbers_past_a_double_exactly_enough():
    """Values around 2^3000 (a double stops at 2^1024): the mean and the variance of the mean agree with
    exact rational arithmetic to 12 digits."""
    values = [(1.0 + k / 7, 3000 + (k % 3)) for k in range(20)] + [(0.0, 0)] * 5
    m = Moments()
    for v, k in values:
        m.add(v, k)
    exact = [Fraction(v) * 2 ** k for v, k in values]
    mean = sum(exact) / len(exact)
    var = sum((x - mean) ** 2 for x in exact) / (len(exact) - 1) / len(exact)
    got_mean, got_var = m.mean(), m.variance_of_mean()
    assert math.isclose(Fraction(got_mean[0]) * Fraction(2) ** got_mean[1] / mean, 1, rel_tol=1e-12)
    assert math.isclose(Fraction(got_var[0]) * Fraction(2) ** got_var[1] / var, 1, rel_tol=1e-9)
    assert (m.n, m.reached) == (25, 20) and as_float(got_mean) == math.inf
    assert round(log10_of(got_mean) or 0, 6) == round(math.log10(float(mean / 2 ** 3000)) + 3000 * math.log10(2), 6)
    assert fmt(got_mean).endswith("e+903")


def test_moments_merge_as_if_added_one_by_one():
    values = [(float(k * k + 1), 600 * (k % 2)) for k in range(30)]
    whole, a, b = Moments(), Moments(), Moments()
    for i, (v, k) in enumerate(values):
        whole.add(v, k, nodes=i)
        (a if i < 11 else b).add(v, k, nodes=i)
    a.merge(b)
    for x, y in ((whole.mean(), a.mean()), (whole.variance_of_mean(), a.variance_of_mean())):
        assert math.isclose(x[0] * 2.0 ** (x[1] - y[1]), y[0], rel_tol=1e-12)
    assert (a.n, a.reached, a.nodes) == (whole.n, whole.reached, whole.nodes)
    mean, var = stratified([(2.0, whole), (3.0, Moments.from_tuple(a.as_tuple()))])
    assert math.isclose(as_float(mean) / as_float(whole.mean()), 5.0)
    assert as_float(sqrt_scaled(var)) == pytest.approx(math.sqrt(13) * as_float(sqrt_scaled(whole.variance_of_mean())))
    assert add_scaled([]) == (0.0, 0)


def test_walks_past_a_double_equal_their_twin():
    """A 6x6x36 box of dominoes: a walk's product of degrees passes 2^512 and is scaled (exactly: a power of
    two); the compiled walks and their Python twins give the same pairs, bit for bit."""
    problem = prepare(dominoes([6, 6, 36]), False).problem
    compiled = scaled_values(problem, [()], 2, seed=5)
    python = scaled_values(problem, [()], 2, seed=5, compiled=False)
    assert compiled == python and any(k >= 512 for _, k in compiled)


def test_estimate_past_a_double_prints_a_power_of_ten():
    """The 98-byte puzzle of issue 35: a 12x12x12 box of dominoes (overflowed: "internal error")."""
    found = cpsolve.estimate(dominoes([12, 12, 12]), probes=40)
    assert found.log10_nodes is not None and found.log10_nodes > 200
    assert json.loads(json.dumps(found.as_json()))["log10_nodes"] == found.log10_nodes
    text = str(found)
    assert "search nodes" in text and ("e+" in text) and "years" in text


def test_part_sizes_past_a_double_are_capped_in_order():
    from cpsolve.search.estimate import SIZE_CAP, capped

    sizes = capped([(1.0, 3000), (1.0, 2990), (0.0, 0), (3.0, 10)])
    assert sizes[0] == SIZE_CAP and sizes[1] == SIZE_CAP / 1024 and sizes[2] == 0.0 and 0 <= sizes[3] < 1e-200
    from cpsolve.search.enumeration import NO_BUDGET, overrun_budget

    assert overrun_budget(SIZE_CAP, SIZE_CAP * 10) == 0 < NO_BUDGET  # past what the engine counts: no budget
    assert 0 < overrun_budget(SIZE_CAP / 1e30) < NO_BUDGET


@pytest.mark.slow
def test_enumerate_sizes_parts_past_a_double():
    """The dominoes box on two workers: its parts' sizes (1e260 nodes and more) made the node budget an int
    too big for the engine ("a worker failed ... OverflowError"); now a timeout like any other."""
    proc = run_cli("enumerate", "-", "--workers", "2", "--timeout", "3", "--no-save", "-q")
    assert proc.returncode == 2  # "-" is no puzzle: the command's own refusal, in one line
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dominoes.yaml"
        path.write_text("name: dominoes\ncontainer: {box: [12, 12, 12]}\npieces: {D: {cells: [[0,0,0],[1,0,0]], "
                        "count: 864}}\n")
        proc = run_cli("enumerate", str(path), "--workers", "2", "--timeout", "4", "--no-save", "-q")
    assert proc.returncode == 3, proc.stderr
    assert "TIMEOUT" in proc.stdout and "error" not in proc.stderr


# --- descents: the compiled walker and its twin ----------------------------------------------------


@pytest.mark.parametrize("model", ["soma", "t-tetracube-6x6x2", "bedlam"])
def test_descents_equal_their_python_twin(model):
    broken = prepare(cpsolve.load(model)).broken
    ctx = walks.context(broken.problem)
    for start in broken.starts[:2]:
        for depth in (len(start) + 1, len(start) + 3, 99):
            compiled = ctx.walker.descend(start, 6, 11, depth)
            state = [11]
            assert compiled == [python_descend(broken.problem, start, state, depth) for _ in range(6)]
        levels = ctx.walker.levels(start, 3, 13)
        state, twin = [13], []
        for _ in range(3):
            got: list[float] = []
            python_descend(broken.problem, start, state, 10**6, got)
            twin.append(got)
        assert levels == twin and all(len(w) > 0 for w in levels)


# --- the estimate ------------------------------------------------------------------------------------


def test_a_small_search_is_counted_exactly():
    found = cpsolve.count_approx(cpsolve.load("soma"))
    assert (found.total, found.stderr, found.exact, found.interval) == (11520.0, 0.0, True, (11520.0, 11520.0))
    assert found.unique_rotation == 480 and found.status == "complete"


def test_walks_that_stop_early_at_every_tail_are_unbiased():
    """The tail walks' expectation is the total whatever the tail depth: over the whole descent tree of the
    6x6x2 T-tetracube box down to 4 rows, sum(probability x weight x exact count) = 136 exactly (the walk's
    branching partitions the solutions)."""
    broken = prepare(cpsolve.load("t-tetracube-6x6x2")).broken
    ctx = walks.context(broken.problem)
    from cpsolve.search.estimate import _Walk

    def expectation(rows: tuple[int, ...], depth: int) -> Fraction:
        walk = _Walk(broken.problem, rows)
        if len(rows) >= depth or not walk.required:
            return Fraction(ctx.engine.search(None, forced=rows)["solutions"])
        kids = walk.children()
        return sum((Fraction(len(kids)) * expectation((*rows, r), depth) / len(kids) for r in kids), Fraction(0))

    weights = broken.weights or (1,)
    assert sum(w * expectation(tuple(s), 4) for s, w in zip(broken.starts, weights, strict=True)) == 136


@pytest.mark.parametrize("model", ["t-tetracube-6x6x2", "cubissimo", "soma"])
def test_walks_estimate_within_three_standard_errors(model, monkeypatch):
    """With tails of about 20 nodes and few strata (these trees are small: their own tails would be whole),
    the walks give an estimate within 3 standard errors of the exact total, the same on one worker and on
    two."""
    monkeypatch.setattr(walks, "TAIL_NODES", 20.0)
    monkeypatch.setattr(walks, "STRATA", 4)
    puzzle = cpsolve.load(model)
    exact = puzzle.reference.counts()[0]
    broken = prepare(puzzle).broken
    stop = walks.Stop(walks=6000)
    one = walks.estimate_walks(broken.problem, broken, 3, stop, exact_nodes=0)
    two = walks.estimate_walks(broken.problem, broken, 3, stop, walks.forked_runner(2), exact_nodes=0)
    assert (one.total, one.variance, one.walks) == (two.total, two.variance, two.walks)
    assert not one.exact and one.walks >= 6000 and one.reached > 100
    assert abs(one.solutions - exact) <= 3 * one.stderr, (one.solutions, one.stderr, exact)


def test_a_heavy_tail_gets_no_interval():
    """The first answer (the pilot) never has one; nor an estimate where one walk carries much of it."""
    broken = prepare(cpsolve.load("t-tetracube-6x6x6")).broken
    first = walks.estimate_walks(broken.problem, broken, 1, walks.Stop(walks=0))
    assert first.pilot and first.interval is None and "first answer" in (first.why_no_interval or "")
    assert first.solutions > 1e6


@pytest.mark.slow
def test_the_deadline_ends_the_walks_and_their_units_count_for_nothing():
    broken = prepare(cpsolve.load("t-tetracube-6x6x6")).broken
    began = time.time()
    found = walks.estimate_walks(broken.problem, broken, 1, walks.Stop(deadline=began + 3.0),
                                 walks.forked_runner(2))
    assert found.status == "timeout" and time.time() - began < 4.5
    assert found.solutions > 0


# --- the journal ----------------------------------------------------------------------------------


def small_tails(monkeypatch) -> None:
    """Walks on a small model: tails of about 20 nodes, the key's parts alone, never counted exactly."""
    monkeypatch.setattr(walks, "TAIL_NODES", 20.0)
    monkeypatch.setattr(walks, "STRATA", 1)
    monkeypatch.setattr(walks, "EXACT_NODES", 0.0)


def test_a_journal_resumed_gives_the_walks_of_one_run(tmp_path, monkeypatch):
    small_tails(monkeypatch)
    puzzle = cpsolve.load("cubissimo")
    book = tmp_path / "c.walks"
    first = cpsolve.count_approx(puzzle, walks=3000, precision=None, journal=book)
    again = cpsolve.count_approx(puzzle, walks=9000, precision=None, journal=book, resume=True)
    whole = cpsolve.count_approx(puzzle, walks=9000, precision=None)
    assert first.walks < again.walks == whole.walks
    assert (again.total, again.stderr) == (whole.total, whole.stderr)
    with pytest.raises(cpsolve.CpsolveError, match="already there.*--resume"):
        cpsolve.count_approx(puzzle, walks=100, journal=book)
    with pytest.raises(cpsolve.CpsolveError, match="another puzzle"):
        cpsolve.count_approx(cpsolve.load("soma"), journal=book, resume=True)
    with pytest.raises(cpsolve.CpsolveError, match="--seed 1, not 2"):
        cpsolve.count_approx(puzzle, seed=2, journal=book, resume=True)
    other = tmp_path / "notes.txt"
    other.write_text("mine\n")
    with pytest.raises(cpsolve.CpsolveError, match="not a journal of walks"):
        cpsolve.count_approx(puzzle, journal=other, resume=True)
    assert other.read_text() == "mine\n"


def test_a_damaged_journal_is_said_and_kept(tmp_path, monkeypatch):
    import sqlite3

    small_tails(monkeypatch)
    puzzle = cpsolve.load("cubissimo")
    book = tmp_path / "c.walks"
    cpsolve.count_approx(puzzle, walks=2000, precision=None, journal=book)
    db = sqlite3.connect(book)
    with db:
        db.execute("UPDATE units SET reached = n + 5 WHERE rowid = (SELECT MIN(rowid) FROM units)")
    db.close()
    before = book.read_bytes()
    with pytest.raises(cpsolve.CpsolveError, match="damaged.*does not add up"):
        cpsolve.count_approx(puzzle, walks=4000, journal=book, resume=True)
    assert book.read_bytes() == before


# --- sampling ---------------------------------------------------------------------------------------


def test_samples_by_enumeration_are_uniform_and_say_so():
    """Chi-square over the 25 classes of the 121 domino tilings of a 2x2x4 box: 2,000 exact draws, a class
    in proportion to its assemblies (0.1 % critical value with 24 degrees of freedom: 51.2)."""
    box = dominoes([2, 2, 4])
    drawn = list(cpsolve.sample(box, 2000, seed=5))
    assert {s.found_by for s in drawn} == {"enumeration"}
    from cpsolve.puzzle.assembly import check_solution

    assert all(check_solution(box, {k: list(v) for k, v in s.pieces.items()}) is None for s in drawn[:50])
    sizes = {s.id: s.assemblies for s in drawn}
    seen = Counter(s.id for s in drawn)
    assert len(seen) == 25 and sum(sizes.values()) == 121
    chi2 = sum((seen[c] - 2000 * sizes[c] / 121) ** 2 / (2000 * sizes[c] / 121) for c in sizes)
    assert chi2 < 51.2, chi2
    turned = {tuple(sorted(s.pieces.items())) for s in drawn if s.id == drawn[0].id}
    assert len(turned) > 1  # the class's assemblies come turned, not only its representative


def test_samples_by_walks_are_solutions_near_uniform(monkeypatch):
    """Forced onto the walks (a tiny tail size, no enumeration): the 6x6x2 T-tetracube box's 136 assemblies
    in 10 classes, 600 draws, each class in proportion to its assemblies (0.1 % critical value, 9 degrees
    of freedom: 27.9)."""
    import cpsolve.search.sampling as sampling

    monkeypatch.setattr(sampling, "SAMPLE_ENUMERATE_SECONDS", -1.0)
    small_tails(monkeypatch)
    puzzle = cpsolve.load("t-tetracube-6x6x2")
    drawn = list(cpsolve.sample(puzzle, 600, seed=9))
    assert {s.found_by for s in drawn} == {"walks"}
    sizes = {s.id: s.assemblies for s in drawn}
    seen = Counter(s.id for s in drawn)
    assert sum(sizes.values()) == 136 and len(sizes) == 10
    chi2 = sum((seen[c] - 600 * sizes[c] / 136) ** 2 / (600 * sizes[c] / 136) for c in sizes)
    assert chi2 < 27.9, (chi2, seen, sizes)


def test_sample_refuses_bad_input_before_it_draws():
    with pytest.raises(cpsolve.CpsolveError, match="at least 1"):
        cpsolve.sample(cpsolve.load("soma"), 0)  # not iterated: refused all the same


def test_sample_of_a_puzzle_without_solutions():
    none = cpsolve.puzzle_from_dict({"name": "none", "container": {"box": [3, 2, 1]}, "pieces": {
        "I": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}, "L": {"cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}}})
    assert list(cpsolve.sample(none, 3)) == []


# --- the command line -------------------------------------------------------------------------------


def test_cli_count_approx_of_a_small_search_is_exact():
    proc = run_cli("count", "soma", "--approx", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["total"], out["stderr"], out["exact"], out["interval"], out["guarantee"]) == (11520, 0, True,
                                                                                            [11520, 11520], None)
    assert out["derived"]["rotations"] == 24 and math.isclose(out["derived"]["unique_rotation"], 480)
    assert len(proc.stderr.splitlines()) == 1
    assert re.fullmatch(r"cpsolve: the whole search is about [0-9,]+ nodes: counted exactly\n", proc.stderr)


@pytest.mark.slow  # about 6 s on two cores: the slow tier, so that the fast tier stays within 5 minutes
def test_cli_count_approx_in_a_log_writes_a_line_every_few_seconds():
    """Not a terminal: the first answer at once, then a line per LOG_SECONDS (5 s) at most, where the walks
    report every unit (it wrote 50 lines a second before)."""
    began = time.monotonic()
    proc = run_cli("count", "y-pentacube-5x5x5", "--approx", "--walk-seconds", "6", "-w", "2")
    took = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    estimates = [x for x in lines if "walks (" in x]
    assert estimates[0].startswith("cpsolve: y-pentacube-5x5x5: first answer ")
    assert len(estimates) <= 2 + took / 5, lines
    text = proc.stdout
    assert text.startswith("y-pentacube-5x5x5: about ") and "one standard error" in text and "derived:" in text


@pytest.mark.slow
def test_cli_count_approx_timeout_ends_on_time_with_the_estimate_so_far():
    began = time.monotonic()
    proc = run_cli("count", "t-tetracube-6x6x6", "--approx", "--timeout", "4", "-w", "2")
    took = time.monotonic() - began
    assert proc.returncode == 3, proc.stderr
    assert "cut by --timeout, the estimate so far" in proc.stdout.splitlines()[0]
    assert took < 4 + 2.5


@pytest.mark.slow
def test_cli_estimate_answers_sigterm_at_once():
    """`estimate bedlam --probes 10000000` ran for minutes deaf to Ctrl-C and SIGTERM (one C call): the
    compiled walks now look at signals after every walk."""
    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "estimate", "bedlam", "--probes", "10000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert time.monotonic() - sent < 1.5 and proc.returncode == 143


def test_cli_count_approx_ctrl_c_prints_the_estimate_so_far_and_leaves_no_process():
    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "count", "t-tetracube-6x6x6", "--approx", "-w", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "first answer" in line:
            break
    below = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted, the estimate so far" in out
    time.sleep(0.5)
    left = [p for p in below if os.path.exists(f"/proc/{p}")]
    assert left == [], [(p, Path(f"/proc/{p}/status").read_text()[:300]) for p in left]


def test_cli_sample_soma_streams_and_says_the_method(tmp_path):
    out = tmp_path / "s.jsonl"
    out.write_text("previous\n")
    proc = run_cli("sample", "soma", "-n", "20", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 20 and {x["method"] for x in lines} == {"enumeration"}
    assert [x["sample"] for x in lines] == list(range(20))
    assert "(20 by enumeration)" in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temporary left


def test_cli_sample_that_draws_nothing_leaves_the_old_file(tmp_path):
    out = tmp_path / "s.jsonl"
    out.write_text("previous\n")
    none = tmp_path / "none.yaml"
    none.write_text("name: none\ncontainer: {box: [3, 2, 1]}\npieces:\n  I: {cells: [[0,0,0],[1,0,0],[2,0,0]]}\n"
                    "  L: {cells: [[0,0,0],[1,0,0],[0,1,0]]}\n")
    one_line(run_cli("sample", str(none), "-n", "3", "-q", "-o", str(out)), 1, "has no assembly to sample")
    assert out.read_text() == "previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["none.yaml", "s.jsonl"]


@pytest.mark.slow
def test_cli_sample_a_million_stays_small():
    """`sample slothouber-graatsma -n 1000000` reached 3.9 GB (every draw held): draws are streamed now."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "cpsolve", "sample",
                           "slothouber-graatsma", "-n", "200000", "-q"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert len(proc.stdout.splitlines()) == 200_000
    assert int(proc.stderr.strip().splitlines()[-1]) < 250_000  # KB of peak memory
