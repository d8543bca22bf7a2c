"""The canonicalizer against the definitions: invariance under the group, and orbit counting."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsolve.problem.canonical import Canonicalizer, Judge, Stretches, Tally
from cpsolve.problem.placements import packing_problem as build_problem
from cpsolve.problem.symmetry import container_group
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import FACE_STEPS, box_cells, rotation_key
from cpsolve.puzzle.model import Piece, Puzzle
from cpsolve.search.backends.cpsat import CpSatBackend
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.enumeration import prepare


def random_partition(size: tuple[int, int, int], n_pieces: int, seed: int) -> list[list[tuple[int, int, int]]]:
    """Split a box into connected pieces by growing random seeds (a puzzle with a known solution)."""
    rng = random.Random(seed)
    cells = list(box_cells(size))
    owner = {c: i for i, c in enumerate(rng.sample(cells, n_pieces))}
    while len(owner) < len(cells):
        c = rng.choice(list(owner))
        step = rng.choice(FACE_STEPS)
        q = (c[0] + step[0], c[1] + step[1], c[2] + step[2])
        if q in set(cells) and q not in owner:
            owner[q] = owner[c]
    return [[c for c, o in owner.items() if o == i] for i in range(n_pieces)]


def puzzle_from(parts: list[list[tuple[int, int, int]]], size) -> Puzzle:
    """Parts of the same shape up to rotation become one piece with several copies."""
    shapes: dict[tuple, int] = {}
    for cells in parts:
        key = rotation_key(cells)
        shapes[key] = shapes.get(key, 0) + 1
    pieces = tuple(Piece(f"P{i}", key, count) for i, (key, count) in enumerate(shapes.items()))
    return Puzzle("random", box_cells(size), pieces)


def solution_rows(problem, parts) -> tuple[int, ...]:
    lookup = {row.cells: r for r, row in enumerate(problem.rows)}
    return tuple(sorted(lookup[tuple(sorted(problem.cell_index[c] for c in cells))] for cells in parts))


sizes = st.sampled_from([(2, 2, 2), (2, 2, 3), (2, 3, 3), (3, 3, 3), (1, 3, 4), (2, 2, 4)])


@settings(max_examples=60, deadline=None)
@given(size=sizes, n_pieces=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_canonical_form_is_invariant_under_the_container_group(size, n_pieces, seed):
    parts = random_partition(size, n_pieces, seed)
    problem = build_problem(puzzle_from(parts, size))
    canon = Canonicalizer(problem, container_group(problem.cells))
    rows = solution_rows(problem, parts)
    forms = canon.forms(problem, rows)
    lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    for k, g in enumerate(canon.elements):
        moved = [lookup[p] for p in canon.transform_rows(problem, rows, k)]
        assert problem.check_solution(moved) is None  # the image is a solution of the same puzzle
        image = canon.forms(problem, moved)
        assert image.symmetry_key == forms.symmetry_key
        if not g.is_reflection:
            assert image.rotation_key == forms.rotation_key
            assert image.orbit == forms.orbit


def brute_force_classes(problem, solutions, elements, mirror):
    """Orbits of the solution set, computed from the definition: a solution is a set of
    (piece, cell set) placements, an element moves the cells (and swaps mirror partners)."""

    def as_set(rows):
        return frozenset((problem.rows[r].piece, frozenset(problem.rows[r].cells)) for r in rows)

    sols = {as_set(s) for s in solutions}
    assert len(sols) == len(solutions)  # the backend never repeats a solution
    classes, seen = [], set()
    for sol in sorted(sols, key=sorted_key):
        if sol in seen:
            continue
        orbit = {
            frozenset((mirror[p] if g.is_reflection else p, frozenset(g.perm[c] for c in cells)) for p, cells in sol)
            for g in elements
        }
        assert orbit <= sols  # the group maps solutions to solutions
        seen |= orbit
        classes.append(orbit)
    return classes


def sorted_key(sol):
    return sorted((p, sorted(cells)) for p, cells in sol)


def judged_tally(puzzle: Puzzle, breaking: bool = True) -> tuple[Tally, list[tuple[int, ...]], list[str]]:
    """The memoryless count of a puzzle: every solution the broken search finds judged, here (the compiled judge
    checked against its Python twin on each), summed into a Tally; the full problem's solutions (no breaking),
    the reference; the ids of the classes opened."""
    prepared = prepare(puzzle, symmetry_breaking=breaking)
    broken, canon = prepared.broken, prepared.canonicalizer
    judge = Judge(canon, broken)
    tally, ids = Tally(), []
    stretches = Stretches()

    def keep(rows: tuple[int, ...]) -> None:
        assert canon.judge(broken, rows) == canon.python_judge(broken, rows)
        verdict = judge(rows)
        if verdict.opened is not None:
            ids.append(verdict.opened.id)
        stretches.add(verdict)

    DlxBackend().search(broken.problem, keep)
    for stretch in stretches.take():
        tally.add(stretch)
    tally.numberings = 1 + len(broken.problem.label_symmetries)
    everything: list[tuple[int, ...]] = []
    DlxBackend().search(prepared.problem, everything.append)
    return tally, everything, ids


def assert_brute_force(puzzle: Puzzle, breaking: bool = True) -> Tally:
    """The judged counts are the classes found by moving every solution of the full problem by every element."""
    tally, found, ids = judged_tally(puzzle, breaking)
    problem = build_problem(puzzle)
    group = container_group(problem.cells, problem.cell_classes)
    rotations = [g for g in group if not g.is_reflection]
    mirror = problem.mirror_labels
    by_rotation = brute_force_classes(problem, found, rotations, None)
    by_symmetry = brute_force_classes(problem, found, group, mirror) if mirror else by_rotation
    assert tally.total == len(found) == tally.orbit_total
    assert tally.unique_rotation == len(by_rotation)
    assert tally.unique_symmetry == len(by_symmetry) == len(set(ids))
    return tally


@settings(max_examples=20, deadline=None)
@given(size=st.sampled_from([(2, 2, 3), (2, 3, 3), (2, 2, 4), (1, 3, 4), (2, 2, 2)]), n_pieces=st.integers(3, 6),
       seed=st.integers(0, 10**6), breaking=st.booleans())
def test_tally_matches_brute_force_orbits(size, n_pieces, seed, breaking):
    """Each class opened once by its representative among the solutions the broken search reaches."""
    assert_brute_force(puzzle_from(random_partition(size, n_pieces, seed), size), breaking)


def test_identical_copies_are_interchangeable_but_their_boundaries_count():
    # Six dominoes in a 2x2x3 box: the labels alone are all "D"; the copies' boundaries
    # are what tells the solutions apart. No piece is used once: the key is a cell.
    domino = ((0, 0, 0), (1, 0, 0))
    puzzle = Puzzle("dominoes", box_cells((2, 2, 3)), (Piece("D", domino, 6),))
    tally = assert_brute_force(puzzle)
    assert tally.unique_rotation > 1 and tally.orbit_total == 32  # domino tilings of 2x2x3


# ---------------------------------------------------------------- the compiled twin


@settings(max_examples=80, deadline=None)
@given(size=sizes, n_pieces=st.integers(2, 8), seed=st.integers(0, 10**6))
def test_compiled_forms_equal_the_python_definition_on_random_puzzles(size, n_pieces, seed):
    """`_canon.c` must give the very bytes of `python_forms`: random pieces, copies and mirror pairs."""
    parts = random_partition(size, n_pieces, seed)
    problem = build_problem(puzzle_from(parts, size))
    canon = Canonicalizer(problem, container_group(problem.cells))
    assert canon._compiled_for(problem) is not None, "the compiled canonicalizer was not built"
    rows = solution_rows(problem, parts)
    for k in range(len(canon.elements)):  # every image of the solution, so every element's key is met
        lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
        moved = tuple(sorted(lookup[p] for p in canon.transform_rows(problem, rows, k)))
        assert canon.forms(problem, moved) == canon.python_forms(problem, moved)


@pytest.mark.parametrize("model", ["soma", "cubissimo", "t-tetracube-6x6x2", "conway-5x5x5", "y-pentacube-5x5x5",
                                   "slothouber-graatsma"])
def test_compiled_forms_equal_the_python_definition_on_models(model):
    """Mirror partners (soma), identical copies (conway, Y, T) and a key cell: 200 solutions each."""
    prepared = prepare(load(model))
    problem = prepared.broken.problem
    found: list[tuple[int, ...]] = []
    DlxBackend().search(problem, lambda rows: found.append(rows) or len(found) >= 200)
    canon = prepared.canonicalizer
    assert found and all(canon.forms(problem, r) == canon.python_forms(problem, r) for r in found)


def test_compiled_forms_equal_the_python_definition_on_a_palindromic_chain(tmp_path):
    """A chain that reads the same from both ends adds a relabelling (its reversal) to the key."""
    path = tmp_path / "pal.yaml"
    path.write_text("name: pal\nkind: chain\ncontainer: {box: [2, 2, 2]}\nchain: {segments: [2, 2, 2, 2, 2, 2, 2]}\n")
    prepared = prepare(load(str(path)))
    problem = prepared.broken.problem
    assert problem.label_symmetries
    found: list[tuple[int, ...]] = []
    CpSatBackend().search(problem, lambda rows: found.append(rows) or None)
    canon = prepared.canonicalizer
    assert found and all(canon.forms(problem, r) == canon.python_forms(problem, r) for r in found)


@pytest.mark.parametrize("breaking", [True, False])
@pytest.mark.parametrize("model", ["soma", "cubissimo", "t-tetracube-6x6x2", "screws-3x3x3", "snake-27",
                                   "snake-3x3x3-unique"])
def test_the_judge_counts_the_models_reference_classes(model, breaking):
    """Issue 39 on built-in models, with and without symmetry breaking: each class opened once by its
    representative, the compiled judge equal to its Python twin on every solution; the palindromic snake's two
    numberings of each assembly (label symmetries) are two members of its class, of which one is chosen."""
    from cpsolve.search.backends import for_problem

    puzzle = load(model)
    prepared = prepare(puzzle, symmetry_breaking=breaking)
    broken, canon = prepared.broken, prepared.canonicalizer
    judge = Judge(canon, broken)
    stretches = Stretches()

    def keep(rows: tuple[int, ...]) -> None:
        assert canon.judge(broken, rows) == canon.python_judge(broken, rows)
        stretches.add(judge(rows))

    for_problem("auto", broken.problem).search(broken.problem, keep)
    tally = Tally(numberings=1 + len(broken.problem.label_symmetries))
    for stretch in stretches.take():
        tally.add(stretch)
    ref = puzzle.reference
    assert ref is not None
    assert (tally.total, tally.unique_rotation, tally.unique_symmetry) == (ref.total, ref.unique_rotation,
                                                                           ref.unique_symmetry)
    assert tally.total == tally.orbit_total
