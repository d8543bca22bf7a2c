"""Every built-in model meets its reference counts: the published figures docs/sources.md lists for each (Sykes's
"Best Assembler" for Bedlam, Kurowski's count for the Tetris Cube, "Solving cubish puzzles" for Soma, Cubissimo,
the T slab and the snake, Bouwkamp's "The Cube-Y Problem" for the Y box, ...), or cpsolve's own where none is
published (Conway's 5x5x5, the models its design commands found)."""

from __future__ import annotations

import pytest
from conftest import run_cli, run_json

from cpsolve.puzzle.catalog import builtin_names, load
from cpsolve.puzzle.geometry import rotation_key

REFERENCE = {
    "soma": (11520, 480, 240),
    "cubissimo": (6624, 276, 138),
    "bedlam": (460464, 19186, 19186),
    "snake-27": (48, 2, 1),
    "t-tetracube-6x6x2": (136, 20, 10),
    "y-pentacube-5x5x5": (60672, 2528, 1264),
    "six-piece-burr": (24, 2, 1),
    "cutler-burr-305": (12, 1, 1),
    "tetris-cube": (236136, 9839, 9839),
    "conway-5x5x5": (27456, 1144, 572),
    "slothouber-graatsma": (8, 1, 1),
    "snake-3x3x3-unique": (24, 1, 1),  # found by `cpsolve design snake` (issue 17)
    "screws-3x3x3": (48, 2, 1),  # found by `cpsolve design pieces` (issue 17)
    # BurrTools' other grids (issue 37): the first two checked against burrTxt and Polyform Puzzler
    "kanoodle-pyramid": (2448, 612, 306),
    "hexiamonds-6x6": (624, 156, 156),
    "ball-tetrahedron-20": (24, 2, 1),
    "hexagon-prism-8": (12, 1, 1),
}
SLOW: set[str] = set()
"""Models too slow for every test run (none since the dlx engine: the whole table takes about a minute)."""


def test_every_builtin_model_has_a_reference_and_a_source():
    assert set(REFERENCE) | {"t-tetracube-6x6x6"} == set(builtin_names())
    for name in builtin_names():
        spec = load(name)
        assert spec.source.strip() and spec.reference is not None and spec.reference.source.strip()
        if name in REFERENCE:
            assert spec.reference.counts() == REFERENCE[name]


@pytest.mark.parametrize(
    "model", [pytest.param(m, marks=pytest.mark.slow) if m in SLOW else m for m in sorted(REFERENCE)]
)
@pytest.mark.slow
def test_model_meets_reference_counts(model):
    r = run_json("enumerate", model, "--no-save", "--quiet")
    assert r["complete"]
    assert (r["total"], r["unique_rotation"], r["unique_symmetry"]) == REFERENCE[model]


def test_t_tetracube_6x6x6_has_a_valid_filling():
    proc = run_cli("solve", "t-tetracube-6x6x6")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    cells: dict[str, list[tuple[int, int, int]]] = {}
    for y, line in enumerate(lines[1:7]):
        for z, layer in enumerate(line.split("  ")):
            for x, ch in enumerate(layer):
                cells.setdefault(ch, []).append((x, y, z))
    covered = [c for cs in cells.values() for c in cs]
    assert len(covered) == 216 and len(set(covered)) == 216  # every cell exactly once
    assert len(cells) == 54
    t_shape = rotation_key([(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)])
    assert all(rotation_key(cs) == t_shape for cs in cells.values())


def test_burr_container_is_the_union_of_six_sticks():
    puzzle = load("six-piece-burr")
    assert len(puzzle.container) == 104
    assert sum(p.size for p in puzzle.pieces) == 104
