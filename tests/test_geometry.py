from itertools import product

import pytest

from cpsolve.problem.symmetry import container_group
from cpsolve.puzzle.geometry import (
    ALL_TRANSFORMS,
    IDENTITY,
    ROTATIONS,
    box_cells,
    is_chiral,
    is_face_connected,
    normalize,
    orientations,
)


def matmul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def det(m):
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def test_there_are_48_distinct_isometries_and_24_rotations():
    assert len({t.matrix for t in ALL_TRANSFORMS}) == 48
    assert len({t.matrix for t in ROTATIONS}) == 24


def test_determinants_are_plus_one_for_rotations_and_minus_one_for_the_rest():
    assert all(det(t.matrix) == 1 for t in ROTATIONS)
    assert sorted(det(t.matrix) for t in ALL_TRANSFORMS) == [-1] * 24 + [1] * 24
    assert all(t.det == det(t.matrix) for t in ALL_TRANSFORMS)


@pytest.mark.parametrize("group", [ROTATIONS, ALL_TRANSFORMS], ids=["rotations", "all"])
def test_groups_are_closed_under_composition(group):
    mats = {t.matrix for t in group}
    assert all(matmul(a, b) in mats for a, b in product(mats, repeat=2))
    assert IDENTITY in group


def test_matrix_acts_like_apply():
    """The matrix the group tests check is the map `apply` computes."""
    p = (1, 2, 3)
    for t in ALL_TRANSFORMS:
        assert tuple(sum(m * x for m, x in zip(row, p, strict=True)) for row in t.matrix) == t.apply(p)


@pytest.mark.parametrize(
    "cells, n",
    [
        ([(0, 0, 0)], 1),
        ([(0, 0, 0), (1, 0, 0)], 3),
        ([(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)], 12),  # T tetracube
        ([(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)], 24),  # L tetracube
        ([(1, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0), (1, 2, 0)], 3),  # X pentacube
        (box_cells((2, 2, 2)), 1),
    ],
)
def test_orientation_counts(cells, n):
    assert len(orientations(normalize(cells))) == n


def test_chirality_of_soma_pieces():
    a = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 1)]
    b = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 1, 1)]
    p = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    assert is_chiral(a) and is_chiral(b) and not is_chiral(p)


def test_face_connectivity():
    assert is_face_connected([(0, 0, 0), (0, 1, 0), (0, 1, 1)])
    assert not is_face_connected([(0, 0, 0), (1, 1, 0)])  # edge contact only


@pytest.mark.parametrize(
    "size, order, rotations",
    [((3, 3, 3), 48, 24), ((6, 6, 2), 16, 8), ((2, 3, 4), 8, 4), ((4, 4, 4), 48, 24), ((1, 1, 5), 16, 8)],
)
def test_container_group_of_boxes(size, order, rotations):
    group = container_group(box_cells(size))
    assert len(group) == order
    assert sum(not g.is_reflection for g in group) == rotations
    n = len(box_cells(size))
    assert all(sorted(g.perm) == list(range(n)) for g in group)


def test_container_group_of_an_irregular_shape_is_a_subgroup():
    # An L-shaped tromino of columns, 2 high: only the mirror across the diagonal x=y fixes it
    # (plus the z-flip and their combinations).
    cells = sorted((x, y, z) for x, y in [(0, 0), (1, 0), (0, 1)] for z in range(2))
    group = container_group(cells)
    assert len(group) == 4
    index = {c: i for i, c in enumerate(cells)}
    for g in group:
        moved = {cells[g.perm[i]] for i in range(len(cells))}
        assert moved == set(index)
