"""Pictures as a person sees them: hidden faces hidden, every piece's colour there, valid files, fast."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from cpsolve.output import pictures
from cpsolve.output.pictures import Frame, Polygon, cube_shapes
from cpsolve.output.scene import (
    SHADE,
    VIEWS,
    Part,
    exploded,
    outer_faces,
    parts_of,
    projection,
    shade,
    visible_faces,
)
from cpsolve.output.steps import removal_order
from cpsolve.puzzle.geometry import FACE_STEPS, Cell

PIL = pytest.importorskip("PIL.Image")

# A long bar lying along y and a post standing against its near end: ordered piece by piece (by
# the depth of each piece's centre, the "naive" order), the bar's centre is nearer the eye than
# the post's in the back-left view, so the bar would be painted over the post that hides it.
HOOK = {
    "BAR": [(0, y, 0) for y in range(8)],
    "POST": [(-1, 0, z) for z in range(4)],
}


def _inside(p: tuple[float, float], poly: Sequence[tuple[float, float]]) -> bool:
    x, y = p
    inside = False
    for i in range(len(poly)):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _ray_cast(parts: Sequence[Part], toward: Sequence[float], origin: Sequence[float]) -> tuple[int, int] | None:
    """The first cube face the line origin + t*toward meets coming from the eye: (part, normal)."""
    best: tuple[float, int, int] | None = None
    for i, part in enumerate(parts):
        for c in part.cells:
            lo, hi, enter = -1e9, 1e9, -1
            for a in range(3):
                t0, t1 = (c[a] - origin[a]) / toward[a], (c[a] + 1 - origin[a]) / toward[a]
                far = max(t0, t1)  # the side facing the eye is where the ray comes in
                if far < hi:
                    hi, enter = far, a
                lo = max(lo, min(t0, t1))
            if lo < hi and (best is None or hi > best[0]):
                step = [0, 0, 0]
                step[enter] = 1 if toward[enter] > 0 else -1  # the side that faces the eye
                normal = FACE_STEPS.index(tuple(step))
                best = (hi, i, normal)
    return None if best is None else (best[1], best[2])


def _samples(parts: Sequence[Part], view: str) -> list[tuple[tuple[float, float], tuple[float, float, float]]]:
    """Points well inside the lattice triangles of the picture, each with a 3-D point it shows.

    In an isometric view the cube edges project onto a triangular lattice; the centroid of each
    triangle is far from every edge, so what is painted there is unambiguous.
    """
    cam = projection(view)
    xs = [c[a] for p in parts for c in p.cells for a in range(3)]
    lo, hi = min(xs) - 2, max(xs) + 3
    out = []
    # The eye-ward unit steps along x and y project at 120 degrees: they span the lattice triangles.
    sx, sy = (1 if v > 0 else -1 for v in cam.toward[:2])
    for i in range(lo, hi):
        for j in range(lo, hi):
            for fi, fj in ((2 / 3, 1 / 3), (1 / 3, 2 / 3)):
                origin = (i + sx * fi, j + sy * fj, 0.0)
                out.append((cam.point(origin), origin))
    return out


def _check_painter(parts: Sequence[Part], view: str, order: Sequence | None = None) -> int:
    """How many sample points show something other than the ray-cast answer."""
    cam = projection(view)
    shapes = cube_shapes(parts, cam, Frame(1.0, (0.0, 0.0)), view) if order is None else order
    polys = [s for s in shapes if isinstance(s, Polygon)]
    wrong = 0
    for point, origin in _samples(parts, view):
        hit = _ray_cast(parts, cam.toward, origin)
        painted = next((p.fill for p in reversed(polys) if _inside(point, p.points)), None)
        expected = None if hit is None else shade(parts[hit[0]].color, SHADE[hit[1]])
        wrong += painted != expected
    return wrong


def _naive(parts: Sequence[Part], view: str) -> list[Polygon]:
    """Faces painted piece by piece, pieces far to near by their centres: what the scene must not do."""
    cam = projection(view)
    faces = visible_faces(parts, view)

    def piece_depth(i: int) -> float:
        cs = parts[i].cells
        return cam.depth([sum(c[a] for c in cs) / len(cs) for a in range(3)])

    faces.sort(key=lambda f: piece_depth(f.part))
    return [Polygon(tuple(cam.point(c) for c in f.corners()), shade(parts[f.part].color, SHADE[f.normal]))
            for f in faces]


@pytest.mark.parametrize("view", ["back-left", "front-right", "below-front-left"])
def test_hidden_faces_are_hidden_where_a_naive_order_fails(view: str) -> None:
    parts = parts_of(HOOK)
    assert _check_painter(parts, view) == 0
    if view == "back-left":
        assert _check_painter(parts, view, _naive(parts, view)) > 0  # the case really needs the per-cube order


@pytest.mark.parametrize("view", list(VIEWS)[:4])
def test_a_whole_solution_and_its_exploded_view_match_ray_casting(view: str, bedlam_solution: dict) -> None:
    parts = parts_of(bedlam_solution)
    assert _check_painter(parts, view) == 0
    apart = exploded(parts)
    assert _check_painter(apart, view) == 0


@pytest.fixture(scope="module")
def bedlam_solution() -> dict[str, list[Cell]]:
    from cpsolve.output.solutions import labelled, rows_as_placements
    from cpsolve.puzzle.catalog import load
    from cpsolve.search.backends import for_problem
    from cpsolve.search.enumeration import first_solution, prepare

    prepared = prepare(load("bedlam"))
    rows, _ = first_solution(prepared, for_problem("dlx", prepared.problem))
    assert rows is not None
    problem = prepared.broken.problem
    return labelled(problem, rows_as_placements(problem, rows))


def _touching(pieces: dict) -> set[tuple[str, str]]:
    """Labels of pieces that share a face (computed here, apart from the scene's own contact graph)."""
    owner = {tuple(c): k for k, cells in pieces.items() for c in cells}
    return {tuple(sorted((k, owner[n]))) for c, k in owner.items() for s in FACE_STEPS
            for n in [tuple(c[i] + s[i] for i in range(3))] if owner.get(n, k) != k}


def _masks(drawing: pictures.Drawing, colors: dict[str, str]) -> dict[str, np.ndarray]:
    """What each piece paints (its faces, whatever is in front of them): the drawing's polygons
    sorted by the piece colour they are a shade of, each set rasterised alone (legend left out)."""
    from PIL import Image, ImageDraw

    owner = {shade(c, SHADE[n]): label for label, c in colors.items() for n in (0, 2, 4)}
    images = {label: Image.new("1", (drawing.width, drawing.height), 0) for label in colors}
    pens = {label: ImageDraw.Draw(img) for label, img in images.items()}
    for s in drawing.shapes:
        if isinstance(s, Polygon) and s.fill in owner and not _square(s):
            pens[owner[s.fill]].polygon(list(s.points), fill=1)
    return {label: np.asarray(img, dtype=bool) for label, img in images.items()}


def _overlaps(masks: dict[str, np.ndarray]) -> dict[tuple[str, str], int]:
    labels = sorted(masks)
    return {(a, b): int((masks[a] & masks[b]).sum()) for i, a in enumerate(labels) for b in labels[i + 1:]
            if (masks[a] & masks[b]).any()}


@pytest.mark.parametrize("view", list(VIEWS))
def test_exploded_pieces_never_overlap_in_the_picture(view: str, bedlam_solution: dict) -> None:
    """Bedlam's F/G and I/H/M overlapped in the exploded picture: pieces pulled apart along their
    directions until they stopped touching in 3-D can still be one behind the other."""
    colors = {p.label: p.color for p in parts_of(bedlam_solution)}
    whole = _overlaps(_masks(pictures.draw_solution(bedlam_solution, view=view), colors))
    assert len(whole) > 10  # assembled, pieces hide one another
    apart = _masks(pictures.draw_solution(bedlam_solution, view=view, explode=True), colors)
    assert all(m.any() for m in apart.values())
    assert _overlaps(apart) == {}
    parts = parts_of(bedlam_solution)
    for before, after in zip(parts, exploded(parts, view), strict=True):
        shift = {tuple(a[i] - b[i] for i in range(3)) for a, b in zip(after.cells, before.cells, strict=True)}
        assert len(shift) == 1  # each piece moves as one rigid block, by whole cells


def _square(s: object) -> bool:
    """A legend swatch: a polygon with level and upright sides (a cube's face never has one)."""
    return isinstance(s, Polygon) and s.points[0][1] == s.points[1][1] and s.points[1][0] == s.points[2][0]


def _fill(drawing: pictures.Drawing, colors: dict[str, str]) -> float:
    """How much of the box around the pieces' pictures they paint (legend and title left out)."""
    masks = _masks(drawing, colors)
    union = np.logical_or.reduce(list(masks.values()))
    rows, cols = np.nonzero(union)
    return float(union.sum() / ((rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)))


def test_exploded_pictures_have_no_empty_acres(example_solutions: dict) -> None:
    """AlPackino's exploded picture was mostly white space (its pieces filled 14 % of the box around
    them, in 6.7 times the assembled picture's area): every piece was pushed out by the scale that
    the worst pair needed. Now each piece goes only as far as it must."""
    import cpsolve

    al = cpsolve.read_solutions(example_solutions["AlPackino"])[0].pieces
    colors = {p.label: p.color for p in parts_of(al)}
    drawing = pictures.draw_solution(al, explode=True)
    assert _fill(drawing, colors) > 0.22
    assembled = pictures.draw_solution(al)
    assert drawing.width * drawing.height < 4.5 * assembled.width * assembled.height
    assert _overlaps(_masks(drawing, colors)) == {}


@pytest.mark.parametrize("model", ["y-pentacube-5x5x5", "t-tetracube-6x6x6"])
def test_touching_pieces_have_different_colours(model: str) -> None:
    """25 and 54 pieces, 20 colours: colours repeat, but never on two pieces that share a face."""
    import cpsolve

    solution = cpsolve.solve(cpsolve.load(model), "dlx")
    assert solution is not None
    colour = {p.label: p.color for p in parts_of(solution.pieces)}
    touching = _touching(dict(solution.pieces))
    assert len(touching) > 2 * len(colour)
    assert [pair for pair in touching if colour[pair[0]] == colour[pair[1]]] == []
    assert len(set(colour.values())) >= 10  # colours are spread, not two alternating


def test_outer_faces_and_seams_of_a_bar() -> None:
    faces = outer_faces([(0, 0, 0), (1, 0, 0), (2, 0, 0)])
    assert len(faces) == 14  # 3 cubes x 6 faces - 2 x 2 shared
    top = [f for f in faces if f[1] == 4]
    strong = sorted(sum(f[2]) for f in top)
    assert strong == [2, 3, 3]  # the two end cubes: 3 real edges; the middle one: 2 (seams left and right)


def _png(data: bytes):
    from PIL import Image

    return Image.open(io.BytesIO(data)).convert("RGB")


def _has_colour(img, color: str, tol: int = 12) -> bool:
    import numpy as np

    from cpsolve.output.scene import hex_rgb

    pixels = np.asarray(img, dtype=int).reshape(-1, 3)
    return any(bool((np.abs(pixels - np.array(hex_rgb(shade(color, SHADE[n])))).max(axis=1) <= tol).any())
               for n in (0, 2, 4))


def test_png_has_every_piece_colour(bedlam_solution: dict) -> None:
    """(How long it takes is measured by benchmarks/pictures.py, not here.)"""
    from cpsolve.puzzle.catalog import load

    colors = {p.name: p.color for p in load("bedlam").pieces}
    shown = {p.label: p.color for p in parts_of(bedlam_solution, colors)}
    data = pictures.encode(pictures.draw_solution(bedlam_solution, colors, title="bedlam"), "png")
    img = _png(data)
    assert 250 < img.width < 800 and 250 < img.height < 800
    assert img.getpixel((1, 1)) == (255, 255, 255)
    # every piece shows on some side of a 4x4x4 cube seen from a corner? Not always: check the exploded one.
    exploded_img = _png(pictures.encode(pictures.draw_solution(bedlam_solution, colors, explode=True), "png"))
    missing = [k for k in bedlam_solution if not _has_colour(exploded_img, shown[k])]
    assert missing == []


def test_svg_is_valid_and_has_every_colour_and_the_legend(bedlam_solution: dict) -> None:
    drawing = pictures.draw_solution(bedlam_solution, None, explode=True, title="t")
    root = ET.fromstring(pictures.to_svg(drawing))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and int(root.get("width")) == drawing.width
    fills = {p.get("fill") for p in root.iter(f"{ns}polygon")}
    texts = [t.text for t in root.iter(f"{ns}text")]
    for part in parts_of(bedlam_solution):
        assert part.color in fills  # the legend swatch
        assert shade(part.color, SHADE[4]) in fills or shade(part.color, SHADE[0]) in fills
        assert part.label in texts


def test_chain_is_drawn_with_its_string_and_every_cube_number() -> None:
    cells = {str(k): [(k, 0, 0) if k < 3 else (2, k - 2, 0)] for k in range(6)}
    root = ET.fromstring(pictures.to_svg(pictures.draw_solution(cells, explode=True)))
    ns = "{http://www.w3.org/2000/svg}"
    assert sorted(int(t.text) for t in root.iter(f"{ns}text")) == list(range(6))
    strings = [ln for ln in root.iter(f"{ns}line") if ln.get("stroke") == pictures.STRING]
    assert len(strings) == 5


def test_removal_order_takes_a_solution_apart_and_refuses_an_interlock(bedlam_solution: dict) -> None:
    order = removal_order(bedlam_solution)
    assert order is not None and sorted(k for k, _ in order) == sorted(bedlam_solution)
    left = {k: set(map(tuple, v)) for k, v in bedlam_solution.items()}
    for k, d in order:  # check each slide independently, cell by cell
        others = set().union(*(v for j, v in left.items() if j != k))
        for t in range(1, 6):
            assert not {(c[0] + d[0] * t, c[1] + d[1] * t, c[2] + d[2] * t) for c in left[k]} & others
        del left[k]
    ring = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    pin = [(0, 1, -1), (1, 1, -1), (1, 1, 0), (1, 1, 1), (2, 1, 1)]
    assert removal_order({"RING": ring, "PIN": pin}) is None


def test_cli_draws_png_svg_pieces_sheet_and_chains(tmp_path: Path) -> None:
    enum = run_cli("enumerate", "soma", "--limit", "5", "--out", str(tmp_path / "s.jsonl"), "-q", "--workers", "1")
    assert enum.returncode == 0, enum.stderr
    for args, name in [
        (["soma"], "a.png"),
        ([str(tmp_path / "s.jsonl"), "--index", "2", "--exploded", "--view", "back-left"], "b.svg"),
        (["soma", "--pieces"], "c.png"),
        ([str(tmp_path / "s.jsonl"), "--sheet", "4"], "d.svg"),
        (["snake-27", "--pieces"], "e.svg"),
    ]:
        proc = run_cli("draw", *args, "-o", str(tmp_path / name))
        assert proc.returncode == 0, proc.stderr
        data = (tmp_path / name).read_bytes()
        if name.endswith(".png"):
            assert _png(data).width > 200
        else:
            ET.fromstring(data)
    texts = [t.text for t in ET.fromstring((tmp_path / "d.svg").read_bytes()).iter("{http://www.w3.org/2000/svg}text")]
    assert [t for t in texts if t.startswith("#")] == ["#0", "#1", "#2", "#3"]  # four captioned solutions


def test_cli_rejects_bad_picture_options_in_one_line(tmp_path: Path) -> None:
    for args, needle in [
        (["soma", "-o", str(tmp_path / "x.gif")], "--out"),
        (["soma", "-o", str(tmp_path / "x.png"), "--view", "sideways"], "--view"),
        (["soma", "-o", str(tmp_path / "x.png"), "--sheet", "3", "--pieces"], "--sheet"),
    ]:
        proc = run_cli("draw", *args)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr


def _shows(img: np.ndarray, color: str, least: int = 40) -> bool:
    """At least `least` pixels are exactly the colour lit as a top, front or side face (inside a
    face the picture is the face's colour; only edges blend)."""
    from cpsolve.output.scene import hex_rgb

    counts = _counts(img)
    return sum(counts.get(hex_rgb(shade(color, SHADE[n])), 0) for n in (0, 2, 4)) >= least


_COUNTED: dict[int, dict[tuple[int, ...], int]] = {}


def _counts(img: np.ndarray) -> dict[tuple[int, ...], int]:
    """Pixels per colour (kept for the image while it lives: a test asks about many colours)."""
    if id(img) not in _COUNTED:
        flat = img.reshape(-1, 3)
        packed, n = np.unique((flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2], return_counts=True)
        _COUNTED.clear()
        _COUNTED[id(img)] = {(int(c) >> 16, int(c) >> 8 & 255, int(c) & 255): int(k)
                             for c, k in zip(packed, n, strict=True)}
    return _COUNTED[id(img)]


def _panels(data: bytes, drawing: pictures.Drawing) -> list[np.ndarray]:
    img = np.asarray(_png(data), dtype=int)
    return [img[int(y0):int(y1), int(x0):int(x1)] for x0, y0, x1, y1 in drawing.panels]


def test_a_sheet_of_piece_range_solutions_labels_each_picture_with_its_own_pieces(example_solutions: dict) -> None:
    """SolidSixPieceBurrs: each solution takes 6 of 25 sticks. The sheet's one legend was the first
    solution's, and the other pictures' colours belonged to other sticks: each picture now has its own."""
    import cpsolve
    from cpsolve.output.scene import solution_colors

    sols = cpsolve.read_solutions(example_solutions["SolidSixPieceBurrs"], limit=6)
    assert len({frozenset(s.pieces) for s in sols}) > 2  # the solutions use different sticks
    puzzle = sols[0].puzzle  # found again by the lines' origin: its colours and piece order, as the API draws it
    assert puzzle is not None
    drawing = pictures.draw_sheet([(f"#{s.index}", s.pieces) for s in sols], {p.name: p.color for p in puzzle.pieces},
                                  [p.name for p in puzzle.pieces])
    assert len(drawing.panels) == 6
    colours = solution_colors([s.pieces for s in sols], {p.name: p.color for p in puzzle.pieces},
                              [p.name for p in puzzle.pieces])
    every = {label: c for palette in colours for label, c in palette.items()}
    assert len(set(every.values())) == len(every)  # within the palette: one colour per stick for the whole sheet
    texts = [s for s in drawing.shapes if isinstance(s, pictures.Text)]
    png = pictures.encode(drawing, "png")
    for s, panel, box in zip(sols, _panels(png, drawing), drawing.panels, strict=True):
        names = {k.split("#")[0] for k in s.pieces}
        shown = {t.text.split(" (")[0] for t in texts if box[0] <= t.at[0] <= box[2] and box[1] <= t.at[1] <= box[3]}
        assert shown == names | {f"#{s.index}"}  # its caption and exactly its own sticks
        for label in every:
            assert _shows(panel, every[label]) == (label in s.pieces), (s.index, label)
    assert cpsolve.draw(sols, title=False) == png  # what the API (and `cpsolve draw --sheet`) draws


def test_an_exploded_sheet_of_optional_cell_solutions_shows_every_piece(example_solutions: dict) -> None:
    """PelikanBurr: a cage around six sticks, cells of the cage left empty differently by each
    solution. Exploded, every picture of the sheet shows all seven pieces (the sheet ignored
    --exploded before)."""
    import cpsolve

    sols = cpsolve.read_solutions(example_solutions["PelikanBurr"], limit=4)
    assert len({frozenset(c for cs in s.pieces.values() for c in cs) for s in sols}) == 4  # four sets of cells
    data = cpsolve.draw(sols, exploded=True, title=False)
    drawing = pictures.draw_sheet([(f"#{s.index}", s.pieces) for s in sols], explode=True)
    assert pictures.encode(drawing, "png") == data
    colours = {p.label: p.color for p in parts_of(sols[0].pieces)}
    for panel in _panels(data, drawing):
        assert [k for k, c in colours.items() if not _shows(panel, c)] == []


def test_size_sets_the_longer_side_in_pixels() -> None:
    import cpsolve

    soma = cpsolve.solve(cpsolve.load("soma"))
    assert soma is not None
    usual = _png(cpsolve.draw(soma))
    for size in (120, 800):
        img = _png(cpsolve.draw(soma, size=size))
        assert max(img.size) == size
        assert abs(img.size[0] / img.size[1] - usual.size[0] / usual.size[1]) < 0.02
        root = ET.fromstring(cpsolve.draw(soma, "svg", size=size))
        assert max(int(root.get("width")), int(root.get("height"))) == size
    assert max(_png(cpsolve.draw(cpsolve.load("soma"), size=500)).size) == 500
    with pytest.raises(cpsolve.CpsolveError, match="size"):
        cpsolve.draw(soma, size=3)


def test_draw_takes_size_on_the_command_line(tmp_path: Path) -> None:
    proc = run_cli("draw", "soma", "-o", str(tmp_path / "s.png"), "--size", "300")
    assert proc.returncode == 0, proc.stderr
    assert max(_png((tmp_path / "s.png").read_bytes()).size) == 300
    refused = run_cli("draw", "soma", "-o", str(tmp_path / "t.png"), "--size", "3")
    assert refused.returncode == 2 and "--size" in refused.stderr and not (tmp_path / "t.png").exists()


def test_a_sheet_of_chain_solutions_draws_chains(tmp_path: Path) -> None:
    """A chain's solutions on a sheet are folded chains with numbered cubes, not 27 coloured pieces
    with a 27-row legend."""
    proc = run_cli("enumerate", "snake-3x3x3-unique", "--out", str(tmp_path / "s.jsonl"), "-q", "--no-journal")
    assert proc.returncode == 0, proc.stderr
    import cpsolve

    sols = cpsolve.read_solutions(tmp_path / "s.jsonl")
    root = ET.fromstring(cpsolve.draw(sols, "svg"))
    ns = "{http://www.w3.org/2000/svg}"
    numbers = [t.text for t in root.iter(f"{ns}text") if t.text and t.text.isdigit()]
    assert sorted(numbers, key=int) == sorted([str(k) for k in range(27)] * len(sols), key=int)
    strings = [ln for ln in root.iter(f"{ns}line") if ln.get("stroke") == pictures.STRING]
    assert len(strings) == 26 * len(sols)


CHECKER = """
name: checker
container:
  box: [2, 2, 2]
  cell_colors: {black: [[0,0,0],[1,1,0],[1,0,1],[0,1,1]], white: [[1,0,0],[0,1,0],[0,0,1],[1,1,1]]}
pieces:
  L: {cells: [[0,0,0],[1,0,0],[0,1,0]], cell_colors: {black: [[0,0,0]], white: [[1,0,0],[0,1,0]]}}
  M: {cells: [[0,0,0],[1,0,0],[0,1,0]], cell_colors: {white: [[0,0,0]], black: [[1,0,0],[0,1,0]]}}
  D: {cells: [[0,0,0],[1,0,0]], cell_colors: {black: [[0,0,0]], white: [[1,0,0]]}}
color_rules: {black: [black], white: [white]}
"""
"""A checkerboard 2x2x2: every piece cell has a colour that must sit on a cell of the same colour."""


def test_constraint_colours_are_drawn_on_the_cells_that_carry_them() -> None:
    """A picture of a colour-constrained puzzle shows the colours (the checkerboard): each visible face
    of a coloured cube has a square of its colour, found again from how the piece lies."""
    import cpsolve
    from cpsolve.output.scene import SHADE as LIT
    from cpsolve.output.scene import constraint_marks, hex_rgb

    puzzle = cpsolve.puzzle_from_yaml(CHECKER)
    sols: list = []
    cpsolve.run(puzzle, sols.append)
    assert len(sols) == 2
    ground = {c: {"black": "#000000", "white": "#ffffff"}[k] for c, k in puzzle.container_colors}
    for s in sols:
        marks = constraint_marks(puzzle, s.pieces)
        assert {c: drawn for m in marks.values() for c, (_, drawn) in m.items()} == ground  # each on its own colour
        drawing = pictures.draw_solution(s.pieces, view="front-right", marks=marks)
        parts = parts_of(s.pieces, marks=marks)
        faces = visible_faces(parts, "front-right")
        squares = [p for p in drawing.shapes if isinstance(p, Polygon) and p.fill in
                   {shade(c, LIT[n]) for c in ground.values() for n in (0, 2, 4)} and not _square(p)]
        assert len(squares) == len(faces)  # every cell is coloured here: one square per visible face
        assert sorted(p.fill for p in squares) == sorted(shade(ground[f.cell], LIT[f.normal]) for f in faces)
        texts = [t.text for t in drawing.shapes if isinstance(t, pictures.Text)]
        assert "colour: black" in texts and "colour: white" in texts
    img = np.asarray(_png(cpsolve.draw(sols[0], size=400)), dtype=int)
    white_side = sum(_counts(img).get(hex_rgb(shade("#ffffff", LIT[n])), 0) for n in (0, 2))  # a lit top is the page
    assert _shows(img, "#000000", least=200) and white_side > 200
