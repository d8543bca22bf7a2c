"""The API the workbench draws the other grids with: `lattice`, `grid_solids` (one period of a grid's
cells as solids in space, which the page turns into any cell's faces), the shape libraries of each grid,
and the pictures' functions on every grid (`assembly_stl`, `view_data` with disassemblies)."""

from __future__ import annotations

import math
from itertools import product

import pytest

import cpsolve
from cpsolve.output.stl import read_binary_stl, volume

GRIDS = ("cubes", "prisms", "spheres", "rhombic", "tetra-octa")


def faces_of(solids: dict, cell: tuple[int, int, int]) -> list[tuple[frozenset, tuple[int, int, int] | None]]:
    """A cell's faces as the page computes them from `grid_solids`: its kind's faces in the period box,
    moved by whole periods (each face: its corners, rounded, and the cell across it)."""
    period, span = solids["period"], solids["span"]
    block = [cell[i] // period[i] for i in range(3)]
    base = tuple(cell[i] - block[i] * period[i] for i in range(3))
    out = []
    for pts, _normal, across in solids["cells"][",".join(map(str, base))]["faces"]:
        moved = frozenset(tuple(round(p[i] + block[i] * span[i], 4) for i in range(3)) for p in pts)
        out.append((moved, None if across is None else tuple(cell[i] + across[i] for i in range(3))))
    return out


@pytest.mark.parametrize("grid", [g for g in GRIDS if g != "spheres"])
def test_every_face_is_shared_with_the_cell_across_it(grid: str) -> None:
    """The contract the page relies on: the cell across a face is a cell of the grid, and it has the same
    face (the same corners) with this cell across; the faces close each solid (cubes 6, prisms 5, 4 for
    the tetrahedra); cells the grid does not have are not in the table."""
    solids = cpsolve.grid_solids(grid)
    lattice = cpsolve.lattice(grid)
    period = solids["period"]
    box = [c for c in product(*(range(-p, 2 * p) for p in period)) if lattice.is_cell(c)]
    assert len(solids["cells"]) == sum(1 for c in product(*(range(p) for p in period)) if lattice.is_cell(c))
    shared = 0
    for cell in box:
        faces = faces_of(solids, cell)
        assert len(faces) == {"cubes": 6, "prisms": 5}.get(grid, 4)
        for corners, across in faces:
            if across is None:
                continue
            assert lattice.is_cell(across), (cell, across)
            back = [c for c, a in faces_of(solids, across) if a == cell]
            assert back == [corners], (cell, across)
            shared += 1
        # the faces' neighbours are the grid's own face neighbours
        assert sorted(a for _, a in faces if a is not None) == sorted(lattice.neighbours(cell)), cell
    assert shared > len(box)


def test_sphere_grid_balls_touch_their_twelve_neighbours() -> None:
    solids = cpsolve.grid_solids("spheres")
    assert solids["period"] == [2, 2, 2] and len(solids["cells"]) == 4 and len(solids["steps"]) == 12
    centres = {tuple(map(int, k.split(","))): v["centre"] for k, v in solids["cells"].items()}
    for cell, centre in centres.items():
        for step in solids["steps"]:
            other = tuple(cell[i] + step[i] for i in range(3))
            block = [other[i] // 2 for i in range(3)]
            base = tuple(other[i] - 2 * block[i] for i in range(3))
            there = [centres[base][i] + block[i] * solids["span"][i] for i in range(3)]
            assert math.dist(centre, there) == pytest.approx(1.0, abs=1e-5)  # balls of diameter 1 touching


def test_lattice_names_the_grids_and_refuses_others() -> None:
    for grid in GRIDS:
        assert cpsolve.lattice(grid).name == grid
    assert cpsolve.lattice("spheres") is cpsolve.load("kanoodle-pyramid").lattice
    with pytest.raises(cpsolve.CpsolveError, match="unknown grid 'hex'"):
        cpsolve.lattice("hex")


@pytest.mark.parametrize(("grid", "library", "count", "size"), [
    ("prisms", "triamonds", 1, 3), ("prisms", "tetriamonds", 3, 4), ("prisms", "pentiamonds", 4, 5),
    ("prisms", "hexiamonds", 12, 6), ("prisms", "heptiamonds", 24, 7),
    ("spheres", "square-balls-3", 2, 3), ("spheres", "square-balls-4", 5, 4), ("spheres", "square-balls-5", 12, 5),
    ("spheres", "triangular-balls-3", 3, 3), ("spheres", "triangular-balls-4", 7, 4),
    ("spheres", "triangular-balls-5", 22, 5),
    ("rhombic", "pentacubes", 29, 5 * 24), ("tetra-octa", "tetracubes", 8, 4 * 5), ("rhombic", "kaenel:1", 1, 24 * 24),
])
def test_shape_libraries_on_each_grid(grid: str, library: str, count: int, size: int) -> None:
    """The published counts of free polyiamonds (1, 3, 4, 12, 24), of polyominoes (2, 5, 12) and of
    polyhexes (3, 7, 22: balls in a triangular layer touch six others, as hexagons do); each shape
    connected on its grid, flat where the library says so, and no two alike under the grid's turns."""
    shapes = cpsolve.shapes(library, grid=grid)
    lattice = cpsolve.lattice(grid)
    assert library in cpsolve.shape_libraries(grid) or library.startswith("kaenel:")
    assert len(shapes) == count
    keys = set()
    for cells in shapes.values():
        assert len(cells) == size and all(lattice.is_cell(c) for c in cells)
        assert lattice.is_connected(cells)
        assert lattice.normalize(cells) == tuple(cells)
        keys.add(lattice.rotation_key(cells))
        if grid == "prisms" or library.startswith("square"):
            assert len({c[2] for c in cells}) == 1
        if library.startswith("triangular"):
            assert len({c[0] - c[1] - c[2] for c in cells}) == 1
    assert len(keys) == count


def test_a_library_of_another_grid_is_refused() -> None:
    with pytest.raises(cpsolve.CpsolveError, match="no library 'pentacubes' on the prisms grid"):
        cpsolve.shapes("pentacubes", grid="prisms")
    with pytest.raises(cpsolve.CpsolveError, match="unknown grid"):
        cpsolve.shapes("pentacubes", grid="hexagons")


@pytest.mark.parametrize("model", ["kanoodle-pyramid", "hexagon-prism-8", "soma"])
def test_the_assembled_stl_is_the_pieces_on_their_grid(model: str) -> None:
    """The assembly as one STL holds each piece's own surface (balls joined by rods, prisms), not cubes:
    its volume is the pieces' volumes added up."""
    puzzle = cpsolve.load(model)
    solution = cpsolve.solve(puzzle)
    assert solution is not None
    whole = volume(read_binary_stl(cpsolve.assembly_stl(solution)))
    assert all(p.count == 1 for p in puzzle.pieces)  # one file per piece, each used once
    parts = sum(volume(read_binary_stl(data)) for data in cpsolve.export(puzzle, "stl").values())
    assert whole == pytest.approx(parts, rel=1e-4)
    cubes = sum(len(cells) for _, cells in solution.placed) * 1000.0
    assert (whole == pytest.approx(cubes, rel=1e-6)) == (model == "soma")


def test_view_data_takes_prisms_apart_in_space_and_drops_balls_in() -> None:
    """On prisms the page plays the grid's own disassembly (the moves a triangle's edge or a layer long,
    in space); on spheres there is none (the pieces drop in, as the page does for the grids without one)."""
    prisms = cpsolve.solve(cpsolve.load("hexagon-prism-8"))
    assert prisms is not None
    taken = cpsolve.disassemble(prisms)
    steps = cpsolve.view_data(prisms, disassembly=True)["steps"]["0"]  # type: ignore[index]
    assert len(steps) == len(taken.moves()) == 7
    for step, move in zip(steps, taken.moves(), strict=True):
        assert step["pieces"] == list(move.pieces)
        assert step.get("out", False) == (move.amount is None)
        length = math.hypot(*step["move"])
        assert length == pytest.approx(round(length), abs=1e-3) and length >= 1
    balls = cpsolve.solve(cpsolve.load("kanoodle-pyramid"))
    assert balls is not None
    assert "steps" not in cpsolve.view_data(balls, disassembly=True)


def test_explaining_an_assembly_off_the_cube_grid_says_why_not() -> None:
    """The analysis of what blocks what slides cubes: on spheres there is no disassembler at all (as in
    BurrTools), on prisms `disassemble` takes an assembly apart; neither is explained with cube moves (the
    Kanoodle pyramid "came apart at level 1" before)."""
    balls = cpsolve.solve(cpsolve.load("kanoodle-pyramid"))
    with pytest.raises(cpsolve.CpsolveError, match="no disassembler for the spheres grid"):
        cpsolve.explain(balls)  # type: ignore[arg-type]
    prisms = cpsolve.solve(cpsolve.load("hexagon-prism-8"))
    with pytest.raises(cpsolve.CpsolveError, match="cube grid only"):
        cpsolve.explain(prisms)  # type: ignore[arg-type]
    assert cpsolve.explain(cpsolve.load("kanoodle-pyramid")).case  # a puzzle is explained on any grid
