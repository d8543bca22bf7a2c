"""The canonicalizer against the definitions: invariance under the group, and orbit counting."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cpsolve.backends.cpsat import CpSatBackend
from cpsolve.canonical import Canonicalizer, Tally
from cpsolve.geometry import FACE_STEPS, box_cells, normalize
from cpsolve.model import Piece, Puzzle
from cpsolve.placements import build_problem
from cpsolve.symmetry import container_group


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
    pieces = tuple(Piece(f"P{i}", normalize(cells)) for i, cells in enumerate(parts))
    return Puzzle("random", "test", box_cells(size), pieces)


def solution_rows(problem, parts) -> tuple[int, ...]:
    lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    return tuple(sorted(lookup[(i, tuple(sorted(problem.cell_index[c] for c in cells)))] for i, cells in enumerate(parts)))


sizes = st.sampled_from([(2, 2, 2), (2, 2, 3), (2, 3, 3), (3, 3, 3), (1, 3, 4), (2, 2, 4)])


@settings(max_examples=60, deadline=None)
@given(size=sizes, n_pieces=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_canonical_form_is_invariant_under_the_container_group(size, n_pieces, seed):
    parts = random_partition(size, n_pieces, seed)
    problem = build_problem(puzzle_from(parts, size))
    canon = Canonicalizer(problem, container_group(problem.cells))
    rows = solution_rows(problem, parts)
    forms = canon.forms(problem.solution_grid(rows))
    lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    for k, g in enumerate(canon.elements):
        moved = [lookup[p] for p in canon.transform_rows(problem, rows, k)]
        assert problem.check_solution(moved) is None  # the image is a solution of the same puzzle
        image = canon.forms(problem.solution_grid(moved))
        assert image.symmetry_key == forms.symmetry_key
        if not g.is_reflection:
            assert image.rotation_key == forms.rotation_key
            assert image.orbit == forms.orbit


def brute_force_classes(problem, solutions, elements, mirror):
    """Orbits of the solution set computed by applying every element: no minimum, no keys."""
    grids = {problem.solution_grid(s) for s in solutions}
    classes = []
    seen = set()
    for grid in sorted(grids):
        if grid in seen:
            continue
        orbit = set()
        for g in elements:
            image = [0] * len(grid)
            for i, label in enumerate(grid):
                image[g.perm[i]] = mirror[label] if g.is_reflection else label
            orbit.add(tuple(image))
        assert orbit <= grids  # the group maps solutions to solutions
        seen |= orbit
        classes.append(orbit)
    return classes


@settings(max_examples=15, deadline=None)
@given(size=st.sampled_from([(2, 2, 3), (2, 3, 3), (2, 2, 4), (1, 3, 4)]), n_pieces=st.integers(3, 5),
       seed=st.integers(0, 10**6))
def test_tally_matches_brute_force_orbits(size, n_pieces, seed):
    parts = random_partition(size, n_pieces, seed)
    problem = build_problem(puzzle_from(parts, size))
    group = container_group(problem.cells)
    canon = Canonicalizer(problem, group)
    found: list[tuple[int, ...]] = []
    CpSatBackend().search(problem, found.append)
    assert problem.check_solution(found[0]) is None
    tally = Tally()
    for rows in found:
        tally.add(canon.forms(problem.solution_grid(rows)), 1)
    rotations = [g for g in group if not g.is_reflection]
    mirror = problem.mirror_labels
    by_rotation = brute_force_classes(problem, found, rotations, None)
    by_symmetry = brute_force_classes(problem, found, group, mirror) if mirror else by_rotation
    assert tally.total == len(found) == tally.orbit_total
    assert tally.unique_rotation == len(by_rotation)
    assert tally.unique_symmetry == len(by_symmetry)
