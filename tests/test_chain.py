"""Chain (snake) puzzles: both ways of writing a chain, errors, and counts against brute force."""

from __future__ import annotations

from itertools import product

import pytest
from conftest import run_cli, run_json

from cpsolve.problem.symmetry import container_group
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.chain import chain_from_segments
from cpsolve.puzzle.geometry import ROTATIONS, box_cells
from cpsolve.search.enumeration import build_problem

SNAKE_27_SEGMENTS = [3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3]


def chain_file(segments, box) -> str:
    return f"name: c\nsource: test\nkind: chain\ncontainer: {{box: {list(box)}}}\nchain: {{segments: {segments}}}\n"


def test_seed_constraint_list_is_the_segment_chain():
    assert load("snake-27").chain == chain_from_segments(SNAKE_27_SEGMENTS)


def test_both_forms_load_to_the_same_problem(write_puzzle):
    path = write_puzzle(chain_file(SNAKE_27_SEGMENTS, (3, 3, 3)))
    a, b = build_problem(load(str(path))), build_problem(load("snake-27"))
    assert (a.rows, a.side_clauses, a.piece_names) == (b.rows, b.side_clauses, b.piece_names)


def test_snake_27_counts_with_and_without_symmetry_breaking():
    for flag in ("--symmetry-breaking", "--no-symmetry-breaking"):
        r = run_json("enumerate", "snake-27", flag, "--no-save", "--quiet")
        assert (r["total"], r["unique_rotation"], r["unique_symmetry"]) == (48, 2, 1)


def test_solve_draws_a_path_of_face_neighbours_with_the_right_turns():
    proc = run_cli("solve", "snake-27")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    where = {}
    for y, line in enumerate(lines[1:4]):
        for z in range(3):
            layer = line[z * 11: z * 11 + 9]  # three cells of width 3, then two spaces
            for x in range(3):
                where[int(layer[3 * x: 3 * x + 3])] = (x, y, z)
    assert sorted(where) == list(range(27)) and len(set(where.values())) == 27
    corners = {sum(s - 1 for s in SNAKE_27_SEGMENTS[:k]) for k in range(1, len(SNAKE_27_SEGMENTS))}
    for i in range(1, 27):
        step = tuple(a - b for a, b in zip(where[i], where[i - 1], strict=True))
        assert sum(map(abs, step)) == 1
        if i >= 2:
            before = tuple(a - b for a, b in zip(where[i - 1], where[i - 2], strict=True))
            assert (step == before) == (i - 1 not in corners), i


def brute_force_foldings(segments, box):
    """Every numbering of the box's cells along the chain, by depth-first search."""
    cells = set(box_cells(box))
    chain = chain_from_segments(segments)
    straight = {j.cube for j in chain.joints if j.kind == "ALIGNED"}
    turning = {j.cube for j in chain.joints if j.kind == "NOT_ALIGNED"}
    steps = [s for s in product((-1, 0, 1), repeat=3) if sum(map(abs, s)) == 1]
    out = []

    def grow(path):
        if len(path) == chain.n:
            out.append(tuple(path))
            return
        for s in steps:
            nxt = tuple(a + b for a, b in zip(path[-1], s, strict=True))
            if nxt not in cells or nxt in path:
                continue
            if len(path) >= 2:
                prev = tuple(a - b for a, b in zip(path[-1], path[-2], strict=True))
                i = len(path)
                if (i in straight and prev != s) or (i in turning and prev == s):
                    continue
            grow([*path, nxt])

    for start in cells:
        grow([start])
    return out


def physical_classes(foldings, box, reversible, group):
    def state(f):
        return min(f, f[::-1]) if reversible else f

    states = {state(f) for f in foldings}
    lo = [0, 0, 0]
    classes, seen = 0, set()
    for s in sorted(states):
        if s in seen:
            continue
        classes += 1
        for t in group:
            moved = [t.apply(c) for c in s]
            shift = [lo[i] - min(c[i] for c in moved) for i in range(3)]
            seen.add(state(tuple(tuple(c[i] + shift[i] for i in range(3)) for c in moved)))
    return len(states), classes


@pytest.mark.parametrize(
    "segments, box, reversible",
    [
        ([2] * 7, (2, 2, 2), True),
        ([2] * 11, (2, 2, 3), True),
        ([3, 2, 3, 2, 2, 3, 2, 2], (2, 2, 3), False),
        ([3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3], (3, 3, 2), True),
        ([2, 2, 3, 2, 2, 3, 2, 3, 2, 3, 2, 3], (3, 3, 2), False),
    ],
)
def test_chain_counts_match_brute_force(segments, box, reversible, write_puzzle):
    path = write_puzzle(chain_file(segments, box))
    assert bool(build_problem(load(str(path))).label_symmetries) == reversible
    foldings = brute_force_foldings(segments, box)
    rotations = [g.transform for g in container_group(box_cells(box)) if not g.is_reflection]
    everything = [g.transform for g in container_group(box_cells(box))]
    assert set(rotations) <= set(ROTATIONS)
    total, by_rotation = physical_classes(foldings, box, reversible, rotations)
    _, by_symmetry = physical_classes(foldings, box, reversible, everything)
    r = run_json("enumerate", str(path), "--no-save", "--quiet")
    assert (r["total"], r["unique_rotation"], r["unique_symmetry"]) == (total, by_rotation, by_symmetry)
    assert total > 0


@pytest.mark.parametrize(
    "chain, message",
    [
        ("{segments: [3, 3]}", "the chain has 5 cubes (segments share their end cubes) but the container has 8 cells"),
        ("{segments: [3, 1, 3]}", "chain.segments[1]: Input should be greater than or equal to 2"),
        ("{segments: [2, 2], constraints: 'CUBE, 0'}", "give exactly one of segments, constraints"),
        ("{constraints: 'CUBE, 0, CUBE, 2'}", "expected CUBE, 1 but found CUBE, 2"),
        ("{constraints: 'CUBE, 0, CUBE, 1, TOUCH, 5'}", "TOUCH [5] names an invalid cube"),
        ("{constraints: 'CUBE, 0, CUBE, 1, NEAR, 0'}", "unknown word 'NEAR'"),
    ],
)
def test_bad_chains_are_one_line_errors(chain, message, write_puzzle):
    path = write_puzzle(f"name: c\nsource: t\nkind: chain\ncontainer: {{box: [2, 2, 2]}}\nchain: {chain}\n")
    proc = run_cli("enumerate", str(path), "--no-save")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert str(path) in proc.stderr and message in proc.stderr, proc.stderr
