"""Printable pieces: every STL solid is closed, wound outwards, and holds exactly its cubes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from cpsolve.output.stl import binary_stl, open_edges, read_binary_stl, triangles, volume
from cpsolve.puzzle.catalog import builtin_names, load

PIECES = sorted({(p.name, p.shape) for m in builtin_names() if load(m).kind == "pieces" and load(m).grid == "cubes"
                 for p in load(m).pieces})
"""The cube grid's pieces (the other grids' solids: tests/test_grid_pictures.py)."""


@pytest.mark.parametrize(("name", "shape"), PIECES, ids=[f"{n}-{len(s)}" for n, s in PIECES])
def test_every_builtin_piece_is_a_closed_solid_of_its_volume(name: str, shape: tuple) -> None:
    tris = read_binary_stl(binary_stl(name, triangles(shape, unit=10.0)))
    assert open_edges(tris, digits=3) == 0
    assert volume(tris) == pytest.approx(1000.0 * len(shape), rel=1e-5)
    shrunk = triangles(shape, unit=10.0, clearance=0.4)
    assert open_edges(shrunk) == 0
    assert 0.85 * 1000 * len(shape) < volume(shrunk) < 1000 * len(shape)


def test_clearance_is_an_exact_inset_of_half_the_gap_on_every_face() -> None:
    cube = triangles([(0, 0, 0)], unit=10.0, clearance=0.4)
    assert volume(cube) == pytest.approx(9.6**3)
    corner = triangles([(0, 0, 0), (1, 0, 0), (0, 1, 0)], unit=10.0, clearance=0.4)
    # the L-tricube shrunk by 0.2 mm on every side: 9.6 high over an L of two 19.6 x 9.6 arms sharing 9.6 x 9.6
    assert volume(corner) == pytest.approx(9.6 * (2 * 19.6 * 9.6 - 9.6 * 9.6))


def test_faces_inside_a_piece_are_left_out() -> None:
    assert len(triangles([(0, 0, 0), (1, 0, 0)])) == 2 * 10  # 10 outer unit faces of a domino


def test_cli_writes_one_file_per_piece(tmp_path: Path) -> None:
    out = tmp_path / "stl"
    proc = run_cli("export", "soma", "--format", "stl", "-o", str(out), "--unit", "15", "--clearance", "0.2")
    assert proc.returncode == 0, proc.stderr
    puzzle = load("soma")
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(f"{p.name}.stl" for p in puzzle.pieces)
    for p in puzzle.pieces:
        tris = read_binary_stl((out / f"{p.name}.stl").read_bytes())
        assert open_edges(tris, digits=3) == 0
        assert volume(tris) < 15**3 * p.size and volume(tris) > 0.9 * 15**3 * p.size


@pytest.mark.parametrize(("args", "needle"), [
    (["soma", "--clearance", "6", "--unit", "10"], "--clearance"),
    (["snake-27"], "chain"),
])
def test_cli_rejects_what_cannot_be_printed(tmp_path: Path, args: list[str], needle: str) -> None:
    proc = run_cli("export", *args, "--format", "stl", "-o", str(tmp_path / "x"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr
