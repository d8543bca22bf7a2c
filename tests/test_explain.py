"""`cpsolve explain` (issue 28): counting and colouring arguments, minimal cores checked independently
with dlx, stuck assemblies checked geometrically, unique and several solutions, the command line.

The puzzles are benchmarks/puzzles/explain-*.yaml (benchmarks/explain.py times the same ones); the
BurrTools examples are read from ../shared/burrtools-examples and those tests skip when it is absent.
"""

from __future__ import annotations

import ast
import itertools
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO, run_cli

import cpsolve
from cpsolve.analysis.disassembly import disassemble, explore
from cpsolve.analysis.explain import CoreArgument, explain_puzzle
from cpsolve.analysis.explain import core as cores
from cpsolve.analysis.explain.counting import ColourArgument, colouring, recheck
from cpsolve.analysis.tables import DIRECTION_NAMES, DIRECTIONS
from cpsolve.api.results import _relabel
from cpsolve.problem.placements import ExactCoverProblem, Row
from cpsolve.search.backends import get_backend
from cpsolve.search.enumeration import prepare

PUZZLES = REPO / "benchmarks" / "puzzles"
SHARED = REPO.parent / "shared" / "burrtools-examples"
UNSOLVABLE = ("explain-cubissimo-two-t.yaml", "explain-cubissimo-o.yaml", "explain-cubissimo-two-z.yaml")
COUNTING = ("volume", "placements", "cells", "colourings")


def puzzle(name: str) -> cpsolve.Puzzle:
    return cpsolve.load(PUZZLES / name)


# ----------------------------------------------------------------------------- counting and colouring


@pytest.mark.parametrize("name", ["explain-mutilated-chessboard.yaml", "explain-mutilated-cube.yaml"])
def test_mutilated_boards_are_explained_by_the_checkerboard_colouring(name: str):
    """Each domino covers one white cell wherever it lies: 31 white cells against the 30 the board
    has. Found by counting alone: no search, no core (issue 28: resolution needs exponential time)."""
    found = cpsolve.explain(puzzle(name))
    assert (found.case, found.argument) == ("no-assembly", "colouring")
    assert found.tried == COUNTING
    detail = found.as_json()["detail"]
    assert detail["scheme"] == "checkerboard" and detail["weights"] == [1, 0]
    assert detail["required"] == [30, 32] and detail["need"] == [30, 30]
    assert detail["pieces"] == [{"name": "D", "low": 31, "high": 31, "values": [1]}] and detail["totals"] == [31]
    assert "  Together the pieces cover 31, never 30: no assembly." in found.lines


def test_the_cube_without_two_opposite_corners_has_no_colouring_argument_and_is_filled():
    """(0,0,0) and (3,3,3) differ in colour: no colouring refutes that cube, and it can be filled."""
    layers = [["".join("." if (x, y, z) in {(0, 0, 0), (3, 3, 3)} else "#" for x in range(4)) for y in range(4)]
              for z in range(4)]
    cube = cpsolve.puzzle_from_dict({"name": "opposite", "container": {"layers": layers},
                                     "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": 31}}})
    assert colouring(cube, prepare(cube).problem) is None
    assert cpsolve.solve(cube) is not None


def test_a_rod_longer_than_the_box_has_no_placement():
    found = cpsolve.explain(puzzle("explain-rod.yaml"))
    assert (found.case, found.argument, found.tried) == ("no-assembly", "no-placement", ("volume", "placements"))
    assert found.as_json()["detail"] == {"piece": "R", "extent": [1, 1, 4], "container": [3, 3, 3], "colours": False}
    with pytest.raises(cpsolve.CpsolveError, match="fits nowhere"):  # what every other command says
        cpsolve.solve(puzzle("explain-rod.yaml"))


def test_a_cell_no_piece_reaches():
    found = cpsolve.explain(puzzle("explain-unreachable.yaml"))
    assert (found.case, found.argument) == ("no-assembly", "unreachable-cell")
    assert found.as_json()["detail"] == {"cells": [[4, 0, 0], [5, 0, 0]]}
    assert cpsolve.solve(puzzle("explain-unreachable.yaml")) is None


def test_a_volume_mismatch_is_explained_although_the_file_does_not_load():
    path = PUZZLES / "explain-volume.yaml"
    with pytest.raises(cpsolve.CpsolveError, match="total piece volume 9"):
        cpsolve.load(path)
    found = cpsolve.explain(path)
    assert (found.case, found.argument, found.tried) == ("no-assembly", "volume", ("volume",))
    assert found.as_json()["detail"]["totals"] == [9] and found.as_json()["detail"]["required"] == 8
    assert found.lines == ("Volume: the pieces fill 9 cells (3x3); the container needs 8 cells.",)


def test_ranges_give_every_volume_a_choice_of_copies_makes():
    """2 or 3 dominoes and a 2x2 square fill 8 or 10 cells, never the 9 of a 3x3 square."""
    p = cpsolve.puzzle_from_dict({"name": "ranges", "container": {"box": [3, 3, 1]}, "pieces": {
        "D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": {"min": 2, "max": 3}},
        "O": {"cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}}})
    found = cpsolve.explain(p)
    assert (found.argument, found.as_json()["detail"]["totals"]) == ("volume", [8, 10])


def test_a_colouring_counts_optional_cells_as_room():
    """Four required corners and an optional rest of a 3x3 square, three dominoes: each covers one white
    square, the container needs 4 (the corners) or 5 (with the optional centre)."""
    p = cpsolve.puzzle_from_dict({"name": "corners", "container": {"layers": [["#+#", "+++", "#+#"]]},
                                  "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "count": 3}}})
    found = cpsolve.explain(p)
    detail = found.as_json()["detail"]
    assert (found.argument, detail["scheme"], detail["weights"]) == ("colouring", "checkerboard", [1, 0])
    assert (detail["required"], detail["optional"], detail["need"], detail["totals"]) == ([4, 0], [1, 4], [4, 5], [3])
    assert cpsolve.solve(p) is None


def test_a_recheck_refuses_an_argument_that_does_not_hold():
    """The re-derivation is not a formality: a colouring argument with a wrong total is caught."""
    p = puzzle("explain-mutilated-chessboard.yaml")
    found = colouring(p, prepare(p).problem)
    assert isinstance(found, ColourArgument) and recheck(p, found) is None
    assert recheck(p, replace(found, totals=(29,))) is not None
    assert recheck(p, replace(found, need=(31, 31))) is not None


# ----------------------------------------------------------------------------- minimal cores


def core_problem(problem: ExactCoverProblem, core: cores.Core) -> ExactCoverProblem:
    """The core as exact cover, built here independently of `core.relaxed`: a cell where overlapping is
    allowed is split into one private optional copy per placement (so placements keep their sizes and
    never meet there); other pieces may be left out; a cell to cover is required, the rest optional."""
    kept = set(core.fill) | set(core.apart)
    cells = list(problem.cells)
    rows = []
    for row in problem.rows:
        mine = []
        for c in row.cells:
            if c in kept:
                mine.append(c)
            else:
                mine.append(len(cells))
                cells.append((1000 + len(cells), 0, 0))
        rows.append(Row(row.piece, tuple(sorted(mine))))
    fill = set(core.fill)
    volume = sum(len(problem.rows[problem.rows_by_piece[p][0]].cells) * problem.piece_low[p] for p in core.pieces)
    if len(kept) == problem.n_cells and not problem.optional and volume >= problem.n_cells:
        fill = kept  # the pieces, kept apart everywhere, fill every cell: dlx then has cells to branch on
    return replace(problem, cells=tuple(cells), rows=tuple(rows),
                   optional=tuple(c for c in range(len(cells)) if c not in fill),
                   piece_minimums=tuple(problem.piece_low[p] if p in core.pieces else 0
                                        for p in range(problem.n_pieces)), cell_classes=(), mirror_labels=None)


def dlx_solves(problem: ExactCoverProblem, core: cores.Core) -> bool:
    found: list[tuple[int, ...]] = []
    get_backend("dlx").search(core_problem(problem, core), found.append, limit=1)
    return bool(found)


@pytest.fixture(scope="module")
def sat_cores() -> dict[str, tuple[ExactCoverProblem, CoreArgument]]:
    out = {}
    for name in UNSOLVABLE:
        p = puzzle(name)
        report = explain_puzzle(p, backend="sat")
        assert isinstance(report.finding, CoreArgument), name
        out[name] = (prepare(p).problem, report.finding)
    return out


@pytest.mark.parametrize("name", UNSOLVABLE)
@pytest.mark.slow
def test_unsolvable_puzzles_of_the_right_volume_get_a_minimal_core_checked_by_dlx(name, sat_cores):
    """No counting or colouring argument applies (all were tried first), the core has no solution and
    every part of it is needed: each proper subset has one. dlx checks both, on a problem built here."""
    problem, found = sat_cores[name]
    assert cpsolve.solve(puzzle(name)) is None
    assert found.minimal and found.checked_by == "dlx" and found.found_by.startswith("python-sat")
    core = found.core
    assert core.size == found.size > 0
    assert not dlx_solves(problem, core)
    for part in core.parts():
        assert dlx_solves(problem, core.without(part)), part
    # every proper subset, not only those one part smaller: satisfiable sets stay satisfiable with fewer parts
    for a, b in itertools.combinations(core.parts()[:6], 2):
        assert dlx_solves(problem, core.without(a).without(b))


@pytest.mark.parametrize("name", UNSOLVABLE)
@pytest.mark.slow
def test_a_python_sat_core_is_infeasible_under_cpsat_and_the_other_way_round(name, sat_cores):
    problem, found = sat_cores[name]
    assert cores.solvable(problem, found.core, "cpsat") == (False, None)
    other = explain_puzzle(puzzle(name), backend="cpsat").finding
    assert isinstance(other, CoreArgument) and other.minimal and other.found_by == "CP-SAT"
    assert cores.solvable(problem, other.core, "sat") == (False, None)
    assert not dlx_solves(problem, other.core)


def test_a_core_names_the_pieces_that_cannot_be_placed_together():
    """A flat plus and a three-legged pentacube cannot share a 3x3x2 box, whatever the unit cubes do:
    the core is those two pieces and the cells they fight over, not the whole puzzle."""
    p = cpsolve.puzzle_from_dict({"name": "plus-and-tripod", "container": {"box": [3, 3, 2]}, "pieces": {
        "X": {"cells": [[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 1, 0], [1, 2, 0]]},
        "K": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [1, 1, 0], [1, 0, 1]]},
        "U": {"cells": [[0, 0, 0]], "count": 8}}})
    found = explain_puzzle(p).finding
    assert isinstance(found, CoreArgument) and found.minimal
    assert found.pieces == (("X", 1), ("K", 1)) and not found.fill and 0 < len(found.apart) < 18
    problem = prepare(p).problem
    assert not dlx_solves(problem, found.core)
    assert all(dlx_solves(problem, found.core.without(part)) for part in found.core.parts())
    assert found.lines()[0].startswith("Pieces X and K cannot both be placed without overlapping in [")


def test_a_core_of_cells_to_cover_in_a_puzzle_with_room_to_spare():
    """Optional cells leave room, so covering is a real demand: two 2x2 squares for six required cells
    (and six optional ones); some three of them are pairwise too far apart for one square."""
    p = cpsolve.puzzle_from_dict({"name": "squares", "container": {"layers": [["+#+#", "##++", "#+#+"]]},
                                  "pieces": {"O": {"cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], "count": 2}}})
    found = explain_puzzle(p).finding
    assert isinstance(found, CoreArgument) and found.minimal and found.fill and not found.pieces
    assert set(found.fill) <= set(p.required) and found.size <= 4
    problem = prepare(p).problem
    assert not dlx_solves(problem, found.core)
    assert all(dlx_solves(problem, found.core.without(part)) for part in found.core.parts())
    assert found.lines()[0].startswith("Cells [")


def test_symmetry_broken_answers_stand_for_the_whole_problem():
    """`Symmetric` asks the broken problem once per rotation: for a core the rotations do not map onto
    itself it must agree with the whole problem (here: dlx on it) on every set of parts it is asked."""
    p = puzzle("explain-cubissimo-two-t.yaml")
    prepared = prepare(p)
    problem = prepared.problem
    from cpsolve.problem.symmetry import rotations_of

    engine = cores.Symmetric(cores.SatCores(prepared.broken.problem), [g.perm for g in rotations_of(prepared.group)])
    start = cores.everything(problem).without_fills()
    corner = problem.cell_index[(0, 0, 0)]
    for core in (start, start.without(("apart", corner)), replace(start, pieces=start.pieces[:3]),
                 cores.Core(start.pieces, (corner,), tuple(c for c in start.apart if c != corner))):
        assert engine.solve(core, None) == dlx_solves(problem, core), core
    engine.engine.close()  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- stuck assemblies


def shifted(cells, d):
    return {(x + d[0], y + d[1], z + d[2]) for x, y, z in cells}


def first_stuck(name: str) -> cpsolve.Solution:
    with cpsolve.enumerate(cpsolve.load(SHARED / name)) as run:
        for solution in run:
            if not cpsolve.disassemble(solution).ok:
                return solution
    raise AssertionError(f"{name}: every assembly comes apart")


needs_examples = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/burrtools-examples is not here")


@needs_examples
def test_a_stuck_solid_six_piece_burr_is_explained_with_blockers_checked_geometrically():
    solution = first_stuck("SolidSixPieceBurrs.xmpuzzle")
    found = cpsolve.explain(solution)
    assert (found.case, found.argument) == ("stuck", "blocking")
    detail = found.as_json()["detail"]
    start = {k: {tuple(c) for c in v} for k, v in detail["start"].items()}
    assert set(start) == set(detail["pieces"]) and len(detail["blocking"]) == 6 * len(start)
    for entry in detail["blocking"]:
        moved = shifted(start[entry["piece"]], DIRECTIONS[DIRECTION_NAMES.index(entry["direction"])])
        hit = {other for other, cells in start.items() if other != entry["piece"] and moved & cells}
        assert hit == set(entry["blockers"]), entry  # every blocker named overlaps, and no other piece does
    stuck = cpsolve.disassemble(solution).stuck
    assert stuck is not None and detail["states"] == stuck.states
    assert detail["locked"] == [list(g) for g in stuck.locked]
    # the smallest removal: the rest really comes apart, and no smaller set makes it
    k = len(detail["removal"][0]["pieces"])
    for entry in detail["removal"]:
        rest = {p: sorted(start[p]) for p in start if p not in entry["pieces"]}
        result = disassemble(rest)
        assert result.ok and result.level_text() == entry["level"]
    for smaller in itertools.combinations(start, k - 1):
        rest = {p: sorted(start[p]) for p in start if p not in smaller}
        assert not disassemble(rest).ok


@needs_examples
def test_a_stuck_pelikan_burr_opens_to_its_most_open_state():
    """PelikanBurr's assemblies that do not come apart move a lot: every state reached is counted (the
    C search's count), and the most open one frees more steps than the start."""
    p = cpsolve.load(SHARED / "PelikanBurr.xmpuzzle")
    found = cpsolve.explain(p, index=4)
    detail = found.as_json()["detail"]
    assert found.case == "stuck" and detail["states"] > 100
    most = detail["most_open"]
    assert most["moves"] > 0 and most["free"] > most["start_free"]
    cells = {k: {tuple(c) for c in v} for k, v in most["pieces"].items()}
    assert sum(len(v) for v in cells.values()) == len(set().union(*cells.values()))  # a real state: no overlap
    free = sum(1 for k, v in cells.items() for d in DIRECTIONS
               if not any(shifted(v, d) & w for o, w in cells.items() if o != k))
    assert free == most["free"]
    assert found.as_json()["detail"]["removal"][0]["pieces"] == ["Cage"]


def test_explore_reaches_the_states_the_disassembler_counts():
    """Two interlocked rings: stuck, and explore's states are the disassembler's, each without overlap."""
    ring_a = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [(1, y, z) for y in range(1, 4) for z in range(-1, 2) if (y, z) != (2, 0)]
    result = disassemble({"A": ring_a, "B": ring_b})
    assert result.stuck is not None
    states = explore({"A": ring_a, "B": ring_b})
    assert len(states) == result.stuck.states
    assert states[0] == (((0, 0, 0), (0, 0, 0)), 0)
    for (a, b), _ in states:
        assert not shifted(ring_a, a) & shifted(ring_b, b)


def test_an_assembly_that_comes_apart_says_so():
    found = cpsolve.explain(cpsolve.solve(cpsolve.load("six-piece-burr")))
    assert (found.case, found.argument) == ("comes-apart", "comes-apart")
    assert found.as_json()["detail"]["level"] == "1"


# ----------------------------------------------------------------------------- one solution or several


def test_a_unique_burr_is_unique_by_elimination_from_its_key_piece():
    found = cpsolve.explain(cpsolve.load("cutler-burr-305"))
    detail = found.as_json()["detail"]
    assert (found.case, found.argument) == ("unique", "backbone")
    assert detail["forced_all"] and len(detail["forced"]) == 6
    assert detail["forced"][0]["why"] == "the key piece, left where it lies"
    placed = {f["piece"]: {tuple(c) for c in f["cells"]} for f in detail["forced"]}
    solution = cpsolve.solve(cpsolve.load("cutler-burr-305"))
    assert solution is not None
    # the forced placements are a solution: they fill the container once each
    assert sorted(c for v in placed.values() for c in v) == sorted(cpsolve.load("cutler-burr-305").container)


def test_several_solutions_are_compared_on_the_placements_where_they_differ():
    found = cpsolve.explain(cpsolve.load("t-tetracube-6x6x2"))
    detail = found.as_json()["detail"]
    assert found.case == "several" and detail["complete"]
    assert (detail["classes"], detail["assemblies"]) == (10, 136)
    assert [d["solution"] for d in detail["differences"]] == list(range(1, 10))
    assert all(d["pieces"] and set(d["pieces"]) == {"T"} for d in detail["differences"])
    assert found.lines[-1].startswith("`cpsolve design unique` finds the smallest change")


# ----------------------------------------------------------------------------- the command line


def test_cli_prints_the_explanation_and_its_json(tmp_path: Path):
    proc = run_cli("explain", str(PUZZLES / "explain-mutilated-chessboard.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("mutilated-chessboard: no assembly\nColouring (checkerboard")
    assert "w: white   b: black" in proc.stdout
    proc = run_cli("explain", str(PUZZLES / "explain-volume.yaml"), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"puzzle", "index", "case", "argument", "size", "minimal", "seconds", "tried", "text",
                         "detail"}
    assert (data["case"], data["argument"], data["detail"]["totals"]) == ("no-assembly", "volume", [9])


def test_cli_draws_the_picture(tmp_path: Path):
    out = tmp_path / "rod.svg"
    proc = run_cli("explain", str(PUZZLES / "explain-rod.yaml"), "--picture", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b"<svg ") and b">R</text>" in out.read_bytes()
    assert f"wrote {out}" in proc.stderr


def test_cli_refuses_bad_options_in_one_line(tmp_path: Path):
    proc = run_cli("explain", "soma", "--picture", str(tmp_path / "x.txt"))
    assert proc.returncode == 2 and proc.stderr == "cpsolve: error: --picture: the picture's file name must end in " \
                                                   ".png or .svg\n"
    proc = run_cli("explain", "soma", "--backend", "dlx")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "sat or cpsat" in proc.stderr
    proc = run_cli("explain", "slothouber-graatsma", "--index", "3")
    assert proc.returncode == 2 and "has 1 solution classes" in proc.stderr and proc.stderr.count("\n") == 1
    proc = run_cli("explain", "snake-27")
    assert proc.returncode == 2 and "chain" in proc.stderr and proc.stderr.count("\n") == 1


def test_cli_says_in_one_line_when_the_deadline_came_first():
    """A core takes seconds (results/explain.md): with a fraction of one, nothing is claimed, exit 3 (as every
    command's --timeout; it was 1)."""
    proc = run_cli("explain", str(PUZZLES / "explain-cubissimo-o.yaml"), "--timeout", "0.3")
    assert proc.returncode == 3, proc.stderr
    heading, why = proc.stdout.splitlines()
    assert heading == "cubissimo-o: no explanation found"
    assert why in ("the deadline passed before a core was found",
                   "the deadline passed before the search settled whether it has an assembly",
                   "the deadline passed while the colourings were tried")


@needs_examples
def test_cli_page_marks_the_blockers_of_an_assembly_of_a_solutions_file(tmp_path: Path):
    """A stuck PelikanBurr assembly from a solutions file: the page holds its start and most open state,
    the cage (whose removal frees the rest) in red and every other piece quiet. The file is told by its
    content, as every command tells it, whatever its name."""
    stuck = first_stuck("PelikanBurr.xmpuzzle")
    lines = tmp_path / "stuck.txt"
    lines.write_text(stuck.as_line() + "\n", encoding="utf-8")
    page = tmp_path / "stuck.html"
    proc = run_cli("explain", str(lines), "--page", str(page))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"PelikanBurr, solution {stuck.index}: does not come apart\n")
    html = page.read_text(encoding="utf-8")
    data = json.loads(html.split('id="data">', 1)[1].split("</script>", 1)[0])
    colours = {p["label"]: p["color"] for p in data["pieces"]}
    assert colours["Cage"] == "#e6194b" and "#e6194b" not in {c for k, c in colours.items() if k != "Cage"}
    assert len(data["solutions"]) == 1 and "most open state" in data["title"] and "red: Cage" in data["title"]
    proc = run_cli("explain", str(SHARED / "PelikanBurr.xmpuzzle"), "--index", "0", "--page", str(page))
    assert proc.returncode == 1 and proc.stderr.endswith("only a stuck assembly has a page to show\n")
    assert "comes apart" in proc.stdout  # the assembly stored in the file is PelikanBurr's one solution


def test_cli_module_uses_only_the_public_api():
    """Issue 27's rule for the command line, held here for the new command: cpsolve, errors, limits."""
    tree = ast.parse((REPO / "cpsolve" / "cli" / "explain.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            imported.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
    stages = {m for m in imported if m.startswith("..") or m.startswith("cpsolve.")}
    assert stages <= {"..errors", "..limits"}, stages
    assert "cpsolve" in imported


# -- deadlines and bounds (issue 35 items 6 and 8) ---------------------------------------------------------


def _timed(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """The command's result, its wall time and its own peak memory in MB (with the processes it waited for),
    measured as test_limits measures it: forked from a small Python, not from this test's process."""
    from test_limits import run_in_1gb

    return run_in_1gb(*args, cwd=cwd)


@pytest.mark.slow
def test_explain_of_a_far_index_keeps_its_deadline_and_its_memory(tmp_path):
    """`explain ... --index 1000000 --timeout 5` ignored the timeout (1.9 GB: every class found was held)."""
    proc, seconds, peak = _timed("explain", "t-tetracube-6x6x6", "--index", "1000000", "--timeout", "3", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    heading, why = proc.stdout.splitlines()
    assert heading == "t-tetracube-6x6x6, solution 1000000: no explanation found"
    assert why.startswith("the deadline passed while solution class 1000000 was looked for (")
    assert seconds < 30 and peak < 500


def test_explain_of_an_index_says_no_count_from_an_interrupted_search(monkeypatch):
    """Ctrl-C during the search for the class reported "has 16207 classes" as a fact: only a complete search
    says how many there are (the run is made to end interrupted from inside: no race with a signal)."""
    from cpsolve.api import explaining

    real = explaining.run
    monkeypatch.setattr(explaining, "run", lambda puzzle, keep, **kw: _relabel(
        real(puzzle, keep, **{**kw, "limit": 3}), "interrupted"))
    with pytest.raises(KeyboardInterrupt):
        cpsolve.explain(cpsolve.load("soma"), index=100)


@pytest.mark.slow
def test_the_colourings_keep_the_deadline(tmp_path):
    """explain's colouring stage had no deadline: over 90 s on a 12x12x12 box of dominoes."""
    import time

    from cpsolve.analysis.explain.counting import Deadline

    puzzle = cpsolve.puzzle_from_yaml(DOMINOES)
    problem = prepare(puzzle).problem
    with pytest.raises(Deadline):
        colouring(puzzle, problem, time.perf_counter())
    proc, seconds, _ = _timed_file(DOMINOES, tmp_path, "--timeout", "2")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.splitlines() == ["dominoes: no explanation found",
                                        "the deadline passed while the colourings were tried"]
    assert seconds < 30


DOMINOES = """name: dominoes
container: {box: [12, 12, 12]}
pieces:
  D: {cells: [[0,0,0],[1,0,0]], count: 864}
"""


def _timed_file(text: str, folder: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float, int]:
    (folder / "p.yaml").write_text(text)
    return _timed("explain", "p.yaml", *args, cwd=folder)


def test_a_billion_copies_meet_the_volume_argument_at_once(tmp_path):
    """`explain` of a `count: 1e9` piece took 40 s before the volume argument (its re-check shifted a number
    two billion bits long); copies past what fits in the container count as the ones that fit."""
    proc, seconds, peak = _timed_file("name: big\ncontainer: {box: [3, 3, 3]}\n"
                                      "pieces: {D: {cells: [[0,0,0],[1,0,0]], count: 1000000000}}\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == ("Volume: the pieces fill 2000000000 cells (1000000000x2); the container "
                                           "needs 27 cells.")
    assert seconds < 15 and peak < 300
