"""Pictures, the 3-D page and STL files of the grids other than cubes: balls drawn as shaded balls,
prisms and the rhombic and tetra-octa cells as their solids, seen in a real headless browser.

A sphere, a prism and a rhombic solution, each made here (no example file needed): a tetrahedron of
balls, a two-layer prism board, a rhombic cube of two half cubes.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest
from test_page import browse, chromium, console  # noqa: F401  (chromium is a fixture)

from cpsolve import api
from cpsolve.output import solids
from cpsolve.output.pictures import draw_solution, encode
from cpsolve.output.scene import hex_rgb, projection
from cpsolve.output.stl import ball_triangles, open_edges, piece_triangles, volume
from cpsolve.puzzle.grid import GRIDS
from cpsolve.puzzle.loader import parse_puzzle_text
from cpsolve.puzzle.model import to_puzzle

PUZZLES = {
    "spheres": """
name: ball-tetrahedron
grid: spheres
container: {tetrahedron: 3}
pieces:
  a: {triangular: ['# # #', ' # #', '  #'], color: '#d62728'}
  b: {cells: [[0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]], color: '#1f77b4'}
""",
    "prisms": """
name: prism-slab
grid: prisms
container: {box: [4, 2, 2]}
pieces:
  a: {layers: [['####'], ['####']], color: '#2ca02c'}
  b: {layers: [['....', '####'], ['....', '####']], color: '#ff7f0e'}
""",
    "rhombic": """
name: rhombic-cube
grid: rhombic
container: {box: [5, 5, 5]}
pieces:
  low: {cells: [[2, 1, 0], [2, 3, 0], [1, 2, 0], [3, 2, 0], [2, 0, 1], [2, 4, 1], [0, 2, 1], [4, 2, 1],
                [1, 0, 2], [3, 0, 2], [1, 4, 2], [3, 4, 2], [0, 1, 2], [0, 3, 2], [4, 1, 2], [4, 3, 2]],
        color: '#9467bd'}
  high: {cells: [[2, 1, 4], [2, 3, 4], [1, 2, 4], [3, 2, 4], [2, 0, 3], [2, 4, 3], [0, 2, 3], [4, 2, 3]],
         color: '#e377c2'}
""",
}


def solved(grid: str):
    puzzle = to_puzzle(parse_puzzle_text(PUZZLES[grid], grid))
    return api.solve(puzzle)


def test_the_puzzles_solve_on_their_grids():
    for grid in PUZZLES:
        s = solved(grid)
        assert s.puzzle.grid == grid and sum(len(c) for c in s.pieces.values()) == len(s.puzzle.container)


def _visible(grid: str, pieces: dict, view=(1.0, -1.0, 1.0), edge_on: float = 1e-9) -> int:
    """Outer faces facing the eye (more than `edge_on`; negative: faces seen edge-on counted too)."""
    toward = projection(view).toward
    return sum(1 for cells in pieces.values() for _, n, _ in solids.outer_faces(grid, cells)
               if sum(n[i] * toward[i] for i in range(3)) > edge_on)


def test_svg_draws_balls_and_faces():
    s = solved("spheres")
    svg = encode(draw_solution(s.pieces, {"a": "#d62728", "b": "#1f77b4"}, grid="spheres"), "svg").decode()
    assert svg.count("<circle") == 10 and svg.count("<radialGradient") == 2  # a ball a cell, a gradient a colour
    p = solved("prisms")
    svg = encode(draw_solution(p.pieces, grid="prisms"), "svg").decode()
    assert svg.count("<polygon") == _visible("prisms", dict(p.pieces)) + 2 * 1  # faces, and the legend's swatches


def _png(data: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=int)


def _near(img: np.ndarray, rgb: tuple[int, int, int], tol: int = 12) -> int:
    return int((np.abs(img.reshape(-1, 3) - np.array(rgb)).max(axis=1) <= tol).sum())


def test_png_balls_are_shaded():
    """A ball is lighter towards its highlight than at its rim: the rim's dark tone and the colour itself
    are painted for each piece, and the front piece's highlight (the colour mixed with white)."""
    s = solved("spheres")
    img = _png(api.draw(s, size=500))
    for color in ("#d62728", "#1f77b4"):
        r, g, b = hex_rgb(color)
        dark = tuple(round(v * 0.6) for v in (r, g, b))
        assert _near(img, (r, g, b), 20) > 20 and _near(img, dark, 20) > 20, color
    r, g, b = hex_rgb("#d62728")
    assert _near(img, tuple(round(v + (255 - v) * 0.4) for v in (r, g, b)), 25) > 20
    assert img[0, 0].tolist() == [255, 255, 255] and img[-1, 0].tolist() == [255, 255, 255]  # nothing cut off


@pytest.mark.parametrize("grid", ["prisms", "rhombic"])
def test_png_faces_are_lit_by_their_normals(grid):
    """Every visible face's colour, lit as `solids.lit` says, is on the picture."""
    s = solved(grid)
    colors = {p.name: p.color for p in s.puzzle.pieces}
    img = _png(api.draw(s, size=600))
    toward = projection((1.0, -1.0, 1.0)).toward
    for label, cells in s.pieces.items():
        lit = {round(solids.lit(n), 3) for _, n, _ in solids.outer_faces(grid, cells)
               if sum(n[i] * toward[i] for i in range(3)) > 0.3}
        r, g, b = hex_rgb(colors[label])
        for k in lit:
            assert _near(img, (round(r * k), round(g * k), round(b * k)), 3) > 10, (label, k)


def test_stl_solids_are_closed_with_their_volumes():
    assert open_edges(piece_triangles("prisms", [(0, 0, 0), (1, 0, 0)], 1.0)) == 0
    assert volume(piece_triangles("prisms", [(0, 0, 0), (1, 0, 0)], 1.0)) == pytest.approx(2 * 3 ** 0.5 / 4)
    rhombic = GRIDS["rhombic"].box((5, 5, 5))
    assert volume(piece_triangles("rhombic", rhombic, 1.0)) == pytest.approx(1.0)  # 24 cells: one cube
    tetra = GRIDS["tetra-octa"].box((3, 3, 3))
    assert volume(piece_triangles("tetra-octa", tetra, 1.0)) == pytest.approx(1.0)  # 5 cells: one cube
    assert open_edges(piece_triangles("tetra-octa", tetra, 1.0)) == 0
    two = ball_triangles([(0, 0, 0), (1, 1, 0)], 10.0)
    one = ball_triangles([(0, 0, 0)], 10.0)
    assert open_edges(two) == 0 and volume(two) > 2 * volume(one)  # the rod joins them


def test_export_stl_of_a_ball_piece(tmp_path):
    s = solved("spheres")
    files = api.export(s.puzzle, "stl")
    assert sorted(files) == ["a.stl", "b.stl"] and all(len(data) > 84 for data in files.values())


def _page(grid: str, tmp_path: Path) -> tuple[Path, dict]:
    s = solved(grid)
    page = tmp_path / f"{grid}.html"
    page.write_text(api.page(s), encoding="utf-8")
    return page, dict(s.pieces)


@pytest.mark.browser
@pytest.mark.parametrize("grid", ["spheres", "prisms", "rhombic"])
def test_page_draws_the_grid(chromium, tmp_path, grid):  # noqa: F811
    page, pieces = _page(grid, tmp_path)
    status, log = browse(chromium, page, tmp_path)
    assert console(log) == [] and "error" not in status, status
    assert status["pieces"] == "2"
    if grid == "spheres":
        assert int(status["faces"]) == sum(len(c) for c in pieces.values())
    else:  # the page's camera is (1, -1, 1) to 4 digits: faces seen exactly edge-on may go either way
        assert _visible(grid, pieces, edge_on=1e-3) <= int(status["faces"]) <= _visible(grid, pieces, edge_on=-1e-3)
    shot = tmp_path / f"shot-{time.monotonic_ns()}.png"
    browse(chromium, page, tmp_path, shot=shot)
    img = _png(shot.read_bytes())
    s = solved(grid)
    for p in s.puzzle.pieces:  # each piece's colour is on the screen, shaded somewhere between 0.4 and 1.0
        r, g, b = hex_rgb(p.color)
        tones = [(round(r * k), round(g * k), round(b * k)) for k in np.arange(0.4, 1.01, 0.05)]
        assert any(_near(img, tone, 6) > 30 for tone in tones), p


# ------------------------------------------------------------------------------------------ the page's moves on prisms


def _replay_prism(pieces: dict, steps) -> None:
    """Steps (cell moves along the prism axes) replayed one step of their direction at a time: no piece meets
    or passes over a piece of the part it moves in that is still there, and each piece ends out of it."""
    from cpsolve.output.steps import PRISM_LEAVE, prism_swept

    at = {k: [tuple(c) for c in v] for k, v in pieces.items()}
    gone: set = set()  # taken out of the whole (a step without a part moves in what is left of it)
    for s in steps:
        d, t = next((d, t) for d in PRISM_LEAVE for t in range(1, 40) if tuple(v * t for v in d) == tuple(s.move))
        here = s.part or [k for k in at if k not in gone]
        fixed = {c for k in here if k not in s.pieces for c in at[k]}
        for _ in range(t):
            for k in s.pieces:
                nxt = [(c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in at[k]]
                assert not fixed & set(nxt), s
                assert not fixed & {prism_swept(c, d) for c in at[k]}, s
                at[k] = nxt
        if s.out:
            gone |= set(s.pieces) if not s.part else set()
            rest = [c for k in here if k not in s.pieces for c in at[k]]
            ahead = [sum(a * b for a, b in zip(c, d, strict=True)) for c in rest]
            assert not rest or min(sum(a * b for a, b in zip(c, d, strict=True)) for k in s.pieces for c in at[k]) > \
                max(ahead), s


SANDWICH = """
name: sandwich
grid: prisms
container: {box: [6, 2, 3]}
pieces:
  filling: {layers: [['......', '......'], ['#####.', '#####.'], ['......', '......']]}
  bread: {layers: [['######', '######'], ['.....#', '.....#'], ['######', '######']]}
"""


def test_prism_pieces_come_out_along_the_prism_axes():
    """The page's assembly order on the prism grid: one piece at a time along one of BurrTools' four prism
    axes, never meeting or passing over a piece left; lifted out when it can, slid sideways when it must
    (bread round a filling can go neither up nor down: it slides off to the right, its closed side)."""
    from cpsolve.output.steps import prism_assembly_steps

    s = api.solve(api.load("hexagon-prism-8"))
    steps = prism_assembly_steps(s.pieces)
    assert steps is not None and len(steps) == 8 and all(st.move[:2] == (0, 0) and st.move[2] > 0 for st in steps)
    _replay_prism(dict(s.pieces), steps)
    sandwich = to_puzzle(parse_puzzle_text(SANDWICH, "sandwich"))
    pieces = dict(api.solve(sandwich).pieces)
    steps = prism_assembly_steps(pieces)
    assert steps is not None and [st.pieces for st in steps] == [("bread",), ("filling",)]
    assert steps[0].move == (8, 0, 0) and steps[1].move == (0, 0, 2)  # clear of the filling, and one layer more
    _replay_prism(pieces, steps)
    locked = {"a": [(0, 0, 0), (0, 0, 2)], "b": [(0, 0, 1), (1, 0, 1), (2, 0, 1)], "c": [(1, 0, 0), (-1, 0, 2)]}
    assert prism_assembly_steps({"a": [(0, 0, 1)], "b": [(0, 0, 0), (0, 0, 2), (1, 0, 1), (-1, 0, 1), (0, -1, 1)]}) \
        is None  # a triangle shut in on its five faces
    assert prism_assembly_steps(locked) is not None


def test_prism_page_plays_the_moves_in_space():
    """The page holds the assembly order as codes into its own list of the prism moves (in space: one edge,
    or one layer, a step) and says them in words; an interlocked prism puzzle (Prisgon) gets the disassembly
    analysis's moves, multi-piece moves included, in space."""
    from cpsolve.output.page import ALPHABET, interlocked_steps, page_data
    from cpsolve.output.steps import PRISM_LEAVE

    sandwich = to_puzzle(parse_puzzle_text(SANDWICH, "sandwich"))
    s = api.solve(sandwich)
    data = page_data([{"pieces": s.pieces}], sandwich)
    assert [d["v"] for d in data["dirs"]] == [[0, 0, 1], [1, 0, 0], [-1, 0, 0], [0.5, 0.866, 0], [-0.5, -0.866, 0],
                                              [-0.5, 0.866, 0], [0.5, -0.866, 0], [0, 0, -1]]
    code = data["assembly"][0]
    labels = [p["label"] for p in data["pieces"]]
    triples = [(labels[ALPHABET.index(code[i])], PRISM_LEAVE[int(code[i + 1])], ALPHABET.index(code[i + 2]))
               for i in range(0, len(code), 3)]
    assert triples == [("bread", (2, 0, 0), 4), ("filling", (0, 0, 1), 2)]
    assert data["dirs"][1]["way"] == "to the right" and data["dirs"][1]["unit"] == "edge"
    from test_grids import example

    path = example("Prisgon")
    if path is None:
        pytest.skip("Prisgon.xmpuzzle not found")
    stored = api.stored_solutions(path)[0]
    steps = interlocked_steps(stored.pieces, "prisms")
    assert steps is not None and any(len(st.pieces) > 1 for st in steps)
    _replay_prism(dict(stored.pieces), steps)
    shown = page_data([{"pieces": stored.pieces}], stored.puzzle)
    assert shown["assembly"] == [""]
    h = solids.HEIGHT
    assert shown["steps"]["0"] == [dict(st.as_json(), move=[round(st.move[0] / 2, 4), round(st.move[1] * h, 4),
                                                            float(st.move[2])]) for st in steps]


@pytest.mark.browser
def test_prism_page_says_the_moves(chromium, tmp_path):  # noqa: F811
    """In the browser: the hexagonal prism's pieces come in from above; Prisgon's first step is a slide of
    the cage, and a later one a piece moving one edge along a triangle's edge, in words."""
    page = tmp_path / "hexagon.html"
    page.write_text(api.page(api.solve(api.load("hexagon-prism-8"))), encoding="utf-8")
    status, log = browse(chromium, page, tmp_path, "#assembly=0.5")
    assert console(log) == [] and status["step"].startswith("Step 1 of 8: ") and \
        status["step"].endswith(" comes in from above"), status
    from test_grids import example

    path = example("Prisgon")
    if path is None:
        pytest.skip("Prisgon.xmpuzzle not found")
    page = tmp_path / "prisgon.html"
    page.write_text(api.page(api.stored_solutions(path)[0]), encoding="utf-8")
    status, log = browse(chromium, page, tmp_path, "#assembly=26.5")
    assert console(log) == []
    assert status["step"] == "Step 27 of 27: S4 moves 1 edge back and to the left (assembled)" or \
        status["step"] == "Step 27 of 27: S4 moves 1 edge back and to the left", status


# ------------------------------------------------------------------------------------------ STL with a clearance


def test_stl_clearance_moves_every_face_in_by_half_of_it():
    """Shrunk by a clearance c, a convex piece is the same shape with every face c / 2 further in: a rhombus of
    two triangles (10 mm edges) keeps its angles, its inradius 5 sqrt 3 / 2 less c / 2, its height less c; a
    whole cube of the rhombic (24 cells) or tetra-octa (5 cells) grid is a cube c smaller. Closed meshes."""
    c = 1.0
    rhombus = piece_triangles("prisms", [(0, 0, 0), (1, 0, 0)], 10.0, c)
    r = 5 * 3 ** 0.5 / 2
    assert open_edges(rhombus) == 0
    assert volume(rhombus) == pytest.approx(50 * 3 ** 0.5 * ((r - c / 2) / r) ** 2 * (10 - c), rel=1e-6)
    for grid, size in (("rhombic", 5), ("tetra-octa", 3)):
        cube = piece_triangles(grid, GRIDS[grid].box((size, size, size)), 10.0, c)
        assert open_edges(cube) == 0 and volume(cube) == pytest.approx((10 - c) ** 3, rel=1e-6), grid
        pts = np.array([p for t in cube for p in t])
        assert pts.min(axis=0) == pytest.approx([c / 2] * 3) and pts.max(axis=0) == pytest.approx([10 - c / 2] * 3)


@pytest.mark.parametrize("grid", ["prisms", "rhombic"])
def test_stl_pieces_with_a_clearance_print_that_far_apart(grid):
    """The two pieces of each test puzzle, shrunk by 1 mm: where they touched they are 1 mm apart (the plane
    between them has each 0.5 mm off it), nowhere nearer (Manifold's own measure), each less than it was."""
    import manifold3d as mf

    s = solved(grid)
    meshes = {k: piece_triangles(grid, v, 10.0, 1.0) for k, v in s.pieces.items()}
    full = {k: piece_triangles(grid, v, 10.0) for k, v in s.pieces.items()}
    for k in meshes:
        assert open_edges(meshes[k]) == 0 and 0 < volume(meshes[k]) < volume(full[k])

    def solid(tris):
        pts = [p for t in tris for p in t]
        index = {p: i for i, p in enumerate(dict.fromkeys(pts))}
        return mf.Manifold(mf.Mesh(np.array(list(index), dtype=np.float32),
                                   np.array([[index[p] for p in t] for t in tris], dtype=np.uint32)))

    a, b = (solid(m) for m in meshes.values())
    assert a.min_gap(b, 5.0) == pytest.approx(1.0, abs=1e-3)
    if grid == "prisms":  # row 0 below y = H (one triangle's height), row 1 above it
        h = 10 * solids.HEIGHT
        ys = {k: [p[1] for t in m for p in t] for k, m in meshes.items()}
        assert max(ys["a"]) == pytest.approx(h - 0.5) and min(ys["b"]) == pytest.approx(h + 0.5)


def test_stl_clearance_that_leaves_nothing_is_refused(tmp_path):
    """A clearance that would erode a piece away (a single rhombic cell is thin) is refused in one line, and
    no file is written; the assembled STL of a prism solution is its pieces' solids, not cubes."""
    from conftest import one_line, run_cli

    path = tmp_path / "thin.yaml"
    path.write_text("name: thin\ngrid: rhombic\ncontainer:\n  layers: [['.....', '..#..']]\n"
                    "pieces:\n  t: {cells: [[2, 1, 0]]}\n", encoding="utf-8")
    out = tmp_path / "thin"
    one_line(run_cli("export", str(path), "--format", "stl", "--clearance", "4", "-o", str(out)), 2,
             "--clearance: clearance 4 mm leaves nothing of piece t")
    assert not out.exists()
    s = solved("prisms")
    stl = api.assembly_stl(s, unit=10.0)
    n = int.from_bytes(stl[80:84], "little")
    assert n == sum(len(piece_triangles("prisms", v, 10.0)) for v in s.pieces.values())


# ------------------------------------------------------------------------------------------ constraint colours

COLOURED = {
    "prisms": """
name: coloured-slab
grid: prisms
container:
  box: [5, 2, 1]
  cell_colors: {red: [[4, 1, 0]], blue: [[2, 0, 0]], plain: [[0, 0, 0], [1, 0, 0], [3, 0, 0], [4, 0, 0], [0, 1, 0],
                                                            [1, 1, 0], [2, 1, 0], [3, 1, 0]]}
pieces:
  a: {layers: [['###', '##.']], color: '#2ca02c', cell_colors: {blue: [[2, 0, 0]]}}
  b: {layers: [['.##', '###']], color: '#ff7f0e', cell_colors: {red: [[2, 1, 0]]}}
color_rules: {red: [red], blue: [blue]}
""",
    "spheres": """
name: coloured-balls
grid: spheres
container:
  tetrahedron: 3
  cell_colors: {red: [[0, 0, 0], [0, 2, 2], [2, 0, 2]], plain: [[0, 1, 1], [1, 0, 1], [1, 1, 2], [1, 1, 0], [1, 2, 1],
                                                               [2, 1, 1], [2, 2, 0]]}
pieces:
  a: {cells: [[0, 0, 0], [1, 0, 1], [1, 1, 0], [2, 0, 2], [2, 1, 1], [2, 2, 0]], color: '#2ca02c',
      cell_colors: {red: [[0, 0, 0], [2, 0, 2], [2, 2, 0]]}}
  b: {cells: [[0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]], color: '#1f77b4'}
color_rules: {red: [red]}
""",
}


@pytest.mark.parametrize("grid", ["prisms", "spheres"])
def test_constraint_colours_are_drawn_on_the_grids_solids(grid):
    """A piece's constraint colour is found on the cell it lands on (the piece turned by its grid's own turns:
    a flat triangle of balls turns by one of the 96), and drawn there: on the face of a prism, on a ball;
    the picture shows the marks' colours (red and blue here) where before it showed none. Every container
    cell has a colour, so that a marked cell can land on its own colour only."""
    from cpsolve.output.scene import constraint_marks

    puzzle = to_puzzle(parse_puzzle_text(COLOURED[grid], grid))
    s = api.solve(puzzle)
    marks = constraint_marks(puzzle, s.pieces)
    ground = dict(puzzle.container_colors)
    assert {k for m in marks.values() for _, (k, _) in m.items()} == set(ground.values()) - {"plain"}
    for label, m in marks.items():  # each mark sits on a container cell of its colour (the rules: red on red)
        assert all(c in s.pieces[label] and ground.get(c) == k for c, (k, _) in m.items())
    img = _png(api.draw(s, size=500))
    for name in set(ground.values()) - {"plain"}:
        r, g, b = hex_rgb(dict(red="#ff0000", blue="#0000ff")[name])
        tones = [(round(r * k), round(g * k), round(b * k)) for k in np.arange(0.4, 1.01, 0.02)]
        assert sum(_near(img, tone, 4) for tone in tones) > 20, name
