"""BurrTools' five grids: the facts of each grid, the orientation numbering of its files, and every
problem of BurrTools' own example files on the four non-cube grids counted as BurrTools counts it.

The example files are not in this repository. The shared ones are read from ../shared/burrtools-examples
(or CPSOLVE_SHARED_EXAMPLES); all of BurrTools' examples folder (Prisgon, FourPieceTetrahedron,
PiecesOfEight, ... beside those) from the folder CPSOLVE_BURRTOOLS_EXAMPLES names, e.g. one filled with
`git --git-dir=BURR_TOOLS_GIT show HEAD:examples/NAME.xmpuzzle > DIR/NAME.xmpuzzle`. The counts asserted
are the files' own `assemblies=` (BurrTools' results saved with them) and, where ../peers/bin/burrTxt
exists (or CPSOLVE_PEERS names its folder), what burrTxt prints for the same problem, side by side.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from cpsolve.puzzle.assembly import check_solution
from cpsolve.puzzle.burrtools import parse_xmpuzzle, puzzle_of
from cpsolve.puzzle.burrtools_placements import assembly_pieces, burr_offsets, sphere_assembly
from cpsolve.puzzle.grid import GRIDS, PRISM_MAPS, SPHERE_MAPS, SPHERE_STEPS
from cpsolve.search.backends import get_backend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.settings import RunSettings

SHARED = Path(os.environ.get("CPSOLVE_SHARED_EXAMPLES", REPO.parent / "shared" / "burrtools-examples"))
MIRROR = Path(os.environ.get("CPSOLVE_BURRTOOLS_EXAMPLES", "/nonexistent"))
PEERS = Path(os.environ.get("CPSOLVE_PEERS", REPO.parent / "peers" / "bin"))
"""The peer programs (../peers/bin beside the repository; CPSOLVE_PEERS names them elsewhere)."""
BURRTXT = PEERS / "burrTxt"

EXAMPLES = {  # file: BurrTools' assemblies per problem (the file's assemblies=; None: no assembly exists)
    "BallRoom": (2, 1, 3),
    "Bermuda": (1,),
    "HexSticks": (33,),
    "Prisgon": (1, 1),
    "FourPieceTetrahedron": (1,),
    "DiagonalCube": (2,),
    "AugmentedSecondStellation": (2,),
    "PermutatedThirdStellation": (2,),
    "BrokenSticks": (2, None),
    "12PieceSeparation": (1,),
    "PiecesOfEight": (6, 4, 43, 12, 20, 12),
}


def example(name: str) -> Path | None:
    for folder in (SHARED, MIRROR):
        if (folder / f"{name}.xmpuzzle").is_file():
            return folder / f"{name}.xmpuzzle"
    return None


def counts(puzzle, backend: str = "dlx", workers: int = 1) -> tuple[int, int, int]:
    tally = enumerate_classes(prepare(puzzle), RunSettings(get_backend(backend), workers=workers)).tally
    return tally.total, tally.unique_rotation, tally.unique_symmetry


# ------------------------------------------------------------------------------------------ grid facts


def test_cells_per_block():
    assert len(GRIDS["rhombic"].box((5, 5, 5))) == 24
    assert len(GRIDS["tetra-octa"].box((3, 3, 3))) == 5
    assert len(GRIDS["tetra-octa"].box((6, 6, 6))) == 40
    assert len(GRIDS["spheres"].box((4, 4, 4))) == 32
    assert len(GRIDS["prisms"].box((4, 2, 1))) == 8


@pytest.mark.parametrize("name, faces", [("cubes", 6), ("prisms", 5), ("spheres", 12), ("rhombic", 4),
                                         ("tetra-octa", 4)])
def test_face_neighbours_are_mutual(name, faces):
    grid = GRIDS[name]
    cells = grid.box((10, 10, 10))
    for c in cells[:200]:
        around = grid.neighbours(c)
        assert len(around) == faces
        assert all(grid.is_cell(q) and c in grid.neighbours(q) for q in around)


def test_map_counts_and_mirrors():
    for name, total in (("cubes", 48), ("prisms", 24), ("spheres", 240), ("rhombic", 48), ("tetra-octa", 48)):
        grid = GRIDS[name]
        assert len(grid.maps) == total and len(grid.rotations) == total // 2
        assert grid.maps[0].matrix == ((grid.maps[0].scale, 0, 0), (0, grid.maps[0].scale, 0),
                                       (0, 0, grid.maps[0].scale))


def test_sphere_maps_are_made_by_rule():
    """Made by the rule, not listed: 0-23 the cube's rotations; 24-119 the double coset O r O (r = 60
    degrees about [111]), each carrying exactly one {111} layer's six neighbour directions to neighbour
    directions; 120 + i: map i after mirroring x."""
    cube = [g for g in SPHERE_MAPS[:24]]
    assert all(g.scale == 1 for g in cube) and len({g.matrix for g in cube}) == 24
    for g in SPHERE_MAPS[24:120]:
        assert g.scale == 3
        kept = [v for v in SPHERE_STEPS if (w := g.apply(v)) is not None and w in SPHERE_STEPS]
        assert len(kept) == 6
        normal = (kept[0][1] * kept[1][2] - kept[0][2] * kept[1][1], kept[0][2] * kept[1][0] - kept[0][0] * kept[1][2],
                  kept[0][0] * kept[1][1] - kept[0][1] * kept[1][0])
        assert sorted(map(abs, normal)) == [1, 1, 1]  # the six lie in a {111} plane
    for i in range(120):
        m, mm = SPHERE_MAPS[i].matrix, SPHERE_MAPS[120 + i].matrix
        assert mm == tuple((-row[0], row[1], row[2]) for row in m)
        assert SPHERE_MAPS[120 + i].is_reflection and not SPHERE_MAPS[i].is_reflection
    assert len({(g.matrix, g.scale) for g in SPHERE_MAPS}) == 240


def test_prism_maps_are_burrtools_numbering():
    """Number 6a + k is Rz(60k) B_a (B: identity, Ry(180), mirror x, mirror z) acting on triangle
    centroids X = 0.5 + 0.5x, Y = y sqrt(3)/2 + sqrt(1/12) (up) or sqrt(1/3) (down), snapped back."""
    h = math.sqrt(0.75)
    bases = ((1, 1, 1), (-1, 1, -1), (-1, 1, 1), (1, 1, -1))
    prisms = GRIDS["prisms"]
    for t in range(24):
        a, k = divmod(t, 6)
        c, s = math.cos(math.radians(60 * k)), math.sin(math.radians(60 * k))
        for x, y, z in prisms.box((6, 5, 3)):
            px = (0.5 + 0.5 * x) * bases[a][0]
            py = (y * h + (math.sqrt(1 / 3) if (x + y) % 2 else math.sqrt(1 / 12))) * bases[a][1]
            pz = z * bases[a][2]
            qx, qy = c * px - s * py, s * px + c * py
            want = (round((qx - 0.5) * 2), math.floor(qy / h + 1e-9), round(pz))
            assert prisms.cell_at(PRISM_MAPS[t].apply(prisms.centroid((x, y, z)))) == want


def test_no_table_copied_from_burrtools():
    """BurrTools is GPL and cpsolve MIT: facts and rules, never its tables. No module holds a long literal of
    numbers (a table of matrices, of neighbours, of turns: written out, or packed in a string); the grids'
    modules hold no long string besides their docstrings."""
    import ast

    grid_modules = {"puzzle/grid.py", "puzzle/burrtools.py", "output/burrtools.py", "analysis/disassembly.py",
                    "output/solids.py", "output/stl.py", "output/scene.py"}
    for path in sorted((REPO / "cpsolve").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                numbers = sum(isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) for n in ast.walk(node))
                assert numbers <= 40, f"{path}:{node.lineno}: a literal of {numbers} numbers"
            if (path.relative_to(REPO / "cpsolve").as_posix() in grid_modules and isinstance(node, ast.Constant)
                    and isinstance(node.value, str) and id(node) not in docs):
                assert len(node.value) <= 300, f"{path}:{node.lineno}: a string of {len(node.value)} characters"


@pytest.mark.parametrize("name, shape, rotations", [
    ("prisms", ((0, 0, 0),), 2),                       # an up triangle turns into a down one
    ("prisms", ((0, 0, 0), (1, 0, 0)), 3),             # a diamond: 3 directions (a half turn keeps it)
    ("prisms", ((0, 0, 0), (1, 0, 0), (2, 0, 0)), 6),  # a triamond: 6 turns; flipped over, it is one of them
    ("prisms", ((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (3, 1, 0)), 12),  # a chiral pentiamond: 6 x 2 sides
    ("prisms", ((0, 0, 0), (0, 0, 1)), 2),             # a stack of two: up or down
    ("spheres", ((0, 0, 0), (1, 1, 0)), 6),            # two balls: the 6 neighbour axes
    ("spheres", ((0, 0, 0), (1, 1, 0), (2, 2, 0)), 6),  # a straight line of three
    ("spheres", ((0, 0, 0), (1, 1, 0), (1, 0, 1)), 8),  # a triangle: the 8 {111} faces
    ("spheres", ((0, 0, 0), (1, 1, 0), (2, 0, 0)), 12),  # a bent trimer (a square's corner)
    ("spheres", ((0, 0, 0), (1, 1, 0), (0, 2, 0), (-1, 1, 0)), 3),  # a square of four
    ("rhombic", ((2, 1, 0),), 24),
    ("tetra-octa", ((1, 1, 1),), 2),
])
def test_orientation_counts(name, shape, rotations):
    grid = GRIDS[name]
    assert len(grid.orientations(grid.normalize(shape))) == rotations


def test_flat_sphere_pieces_use_the_non_cube_turns():
    """A flat piece in a {111} layer takes turns 24-119 as well; a square-lattice piece only cube turns."""
    spheres = GRIDS["spheres"]
    flat = ((0, 0, 0), (1, 1, 0), (1, 0, 1), (2, 1, 1))  # a rhombus of four balls in the (1,-1,-1) layer...
    ok = [t for t, g in enumerate(SPHERE_MAPS[:120]) if spheres.moved(g, list(flat)) is not None]
    assert any(t >= 24 for t in ok)
    square = ((0, 0, 0), (1, 1, 0), (0, 2, 0), (-1, 1, 0), (2, 2, 0))
    ok = [t for t, g in enumerate(SPHERE_MAPS[:120]) if spheres.moved(g, list(square)) is not None]
    assert ok == list(range(24))


# ------------------------------------------------------------------------------------------ BurrTools' examples


def _problems():
    for name, expected in EXAMPLES.items():
        for k, n in enumerate(expected):
            yield pytest.param(name, k, n, id=f"{name}-{k}")


def _burrtxt(path: Path, problem: int) -> int | None:
    out = subprocess.run([str(BURRTXT), "-q", "-o", str(problem), str(path)], capture_output=True, text=True,
                         timeout=300, check=False).stdout
    found = re.search(r"(\d+) assemblies", out)
    return int(found.group(1)) if found else None


@pytest.mark.parametrize("name, problem, expected", list(_problems()))
def test_burrtools_examples_count_as_burrtools(name, problem, expected):
    path = example(name)
    if path is None:
        pytest.skip(f"{name}.xmpuzzle is in neither {SHARED} nor CPSOLVE_BURRTOOLS_EXAMPLES")
    bf = parse_xmpuzzle(path)
    stored = bf.problems[problem].stored
    if expected is None:  # BrokenSticks' second problem: a piece fits nowhere, BurrTools says the same
        with pytest.raises(Exception, match="fits nowhere"):
            counts(puzzle_of(bf, problem))
        return
    puzzle = puzzle_of(bf, problem)
    assert puzzle.grid == {1: "prisms", 2: "spheres", 3: "rhombic", 4: "tetra-octa"}[bf.grid]
    assert bf.problems[problem].assemblies == expected
    total, rotation, symmetry = counts(puzzle)
    assert symmetry == expected  # BurrTools merges rotations and, where pieces allow, mirror images
    assert all(check_solution(puzzle, assembly_pieces(bf, problem, a)) is None for a in stored)
    if BURRTXT.exists():
        assert _burrtxt(path, problem) == symmetry


def test_ballroom_backends_agree():
    path = example("BallRoom")
    if path is None:
        pytest.skip("BallRoom.xmpuzzle not found")
    for problem, want in ((0, (8, 2, 2)), (1, (24, 2, 1)), (2, (72, 3, 3))):
        puzzle = puzzle_of(parse_xmpuzzle(path), problem)
        assert {counts(puzzle, b) for b in ("dlx", "python", "sat", "cpsat")} == {want}


def test_stored_sphere_turn_of_a_flat_piece():
    """BallRoom's second stored assembly places a flat piece with turn 28, one of the 96 turns of a triangular
    layer, whose number cpsolve does not know: the reader finds the piece's cells from the positions (the
    only turn of the 96 that puts it inside the result where the others leave room), and the whole assembly
    checks; a number cpsolve does not know is not used as one (burr_offsets refuses it)."""
    path = example("BallRoom")
    if path is None:
        pytest.skip("BallRoom.xmpuzzle not found")
    bf = parse_xmpuzzle(path)
    stored = bf.problems[0].stored[1]
    k = next(k for k, s in enumerate(stored.placements) if s is not None and 24 <= s[3] < 120)
    assert stored.placements[k][3] == 28
    cells = sphere_assembly(bf, 0, 1)[k]
    spheres = GRIDS["spheres"]
    shape = bf.shapes[bf.problems[0].parts[k].shape]
    flat = spheres.normalize(shape.filled())
    assert spheres.normalize(cells) in spheres.orientations(flat)
    assert spheres.normalize(cells) not in {spheres.transform_shape(g, flat) for g in spheres.rotations[:24]}
    assert check_solution(puzzle_of(bf, 0), assembly_pieces(bf, 0, stored)) is None
    with pytest.raises(ValueError, match="does not know"):
        burr_offsets(2, 28, shape.filled(), shape.hotspot)


def test_sphere_cube_turn_numbers_follow_their_rule():
    """BurrTools' sphere numbers 0-23, by the rule 8a + 2k + b = Rz^k B_a H^b: 24 distinct cube rotations,
    number 2j + 1 number 2j after the half turn about (1, 0, 1), and the even ones carrying (1, 0, 1) round
    the rings of neighbours at heights 1, 0, -1."""
    from cpsolve.puzzle.burrtools_placements import SPHERE_CUBE_TURNS, sphere_turn

    def times(m, v):
        return tuple(sum(m[i][j] * v[j] for j in range(3)) for i in range(3))

    assert len(set(SPHERE_CUBE_TURNS)) == 24
    assert {m for m in SPHERE_CUBE_TURNS} == {g.matrix for g in GRIDS["cubes"].rotations}
    images = [times(m, (1, 0, 1)) for m in SPHERE_CUBE_TURNS]
    assert images[0::2] == images[1::2]
    assert images[0::2] == [(1, 0, 1), (0, 1, 1), (-1, 0, 1), (0, -1, 1), (1, 1, 0), (-1, 1, 0), (-1, -1, 0),
                            (1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 0, -1), (0, -1, -1)]
    assert sphere_turn(121).matrix == tuple((-r[0], r[1], r[2]) for r in SPHERE_CUBE_TURNS[1])
    assert sphere_turn(121).is_reflection and sphere_turn(24) is None and sphere_turn(144) is None


def _burrtxt_drawings(path: Path, tmp_path: Path) -> list[list[list[set]]]:
    """What `burrTxt -a s1` draws of each stored assembly: per problem, per assembly, the cells of each placed
    piece in BurrTools' order (letters a, b, ... in rows y, one block per layer z, x across). burrTxt lists as
    many as the problem's `solutions=` says, so a copy of the file says it for every stored assembly."""
    import gzip

    xml = gzip.decompress(path.read_bytes()).decode("utf-8")
    xml = re.sub(r'assemblies="(\d+)"', r'assemblies="\1" solutions="\1"', xml)
    told = tmp_path / "told.xmpuzzle"
    told.write_bytes(gzip.compress(xml.encode("utf-8")))
    out = subprocess.run([str(BURRTXT), "-a", "s1", str(told)], capture_output=True, text=True, timeout=300,
                         check=True).stdout
    problems: list[list[list[set]]] = []
    y = 0
    for line in out.splitlines():
        if line.startswith("problem"):
            problems.append([])
        elif re.match(r"\d{3}: ", line):
            problems[-1].append([])
            y = 0
        elif line.startswith(" !"):
            for z, block in enumerate(line.split("!")[1::2]):
                for x, ch in enumerate(block):
                    if ch != " ":
                        pieces = problems[-1][-1]
                        pieces += [set() for _ in range(ord(ch) - ord("a") + 1 - len(pieces))]
                        pieces[ord(ch) - ord("a")].add((x, y, z))
            y += 1
    return problems


@pytest.mark.peer
def test_stored_sphere_assemblies_are_what_burrtools_draws(tmp_path):
    """Every assembly BallRoom stores, as cpsolve reads it, is the one BurrTools itself draws (burrTxt -a s1):
    each piece on the same balls, the flat one turned by a turn of a triangular layer included."""
    path = example("BallRoom")
    if path is None or not BURRTXT.exists():
        pytest.skip("BallRoom.xmpuzzle or ../peers/bin/burrTxt missing")
    bf = parse_xmpuzzle(path)
    drawn = _burrtxt_drawings(path, tmp_path)
    assert [len(p) for p in drawn] == [2, 1, 3]
    for problem, found in enumerate(bf.problems):
        for k, assembly in enumerate(found.stored):
            assert [set(map(tuple, v)) for v in assembly_pieces(bf, problem, assembly).values()] == drawn[problem][k]


def test_positions_alone_do_not_decide_ballroom(tmp_path):
    """Why the cube turns' numbers are read (by their rule): with the positions alone (any of the 120 turns
    at each stored position), BallRoom's third problem's second assembly fits two assemblies (two three-ball
    pieces trade places); the reader gives the one whose cube turns the numbers name. A number of the 96 is
    not read: the same assembly naming another of them reads the same."""
    import gzip
    from itertools import product

    from cpsolve.puzzle.burrtools_placements import sphere_offsets

    path = example("BallRoom")
    if path is None:
        pytest.skip("BallRoom.xmpuzzle not found")
    bf = parse_xmpuzzle(path)
    prob = bf.problems[2]
    inside = {c for c, _, _ in bf.shapes[prob.result].cells}
    spheres = GRIDS["spheres"]
    choices = []
    for part, (x, y, z, _) in zip(prob.parts, prob.stored[1].placements, strict=True):
        shape = bf.shapes[part.shape]
        placed = {frozenset((x + q[0], y + q[1], z + q[2]) for q in o) for g in spheres.rotations
                  if (o := sphere_offsets(g, shape.filled(), shape.hotspot)) is not None}
        choices.append([c for c in placed if c <= inside])
    fits = [combo for combo in product(*choices) if len(set().union(*combo)) == len(inside) == sum(map(len, combo))]
    assert len(fits) == 2
    read = [set(v) for v in assembly_pieces(bf, 2, prob.stored[1]).values()]
    assert read in [[set(c) for c in combo] for combo in fits]
    xml = gzip.decompress(path.read_bytes()).decode("utf-8")
    edited = tmp_path / "edited.xmpuzzle"
    edited.write_bytes(gzip.compress(xml.replace("2 0 0 28 2 2 0 0</assembly>", "2 0 0 99 2 2 0 0</assembly>")
                                     .encode("utf-8")))
    again = parse_xmpuzzle(edited)
    assert again.problems[0].stored[1].placements[2][3] == 99
    assert assembly_pieces(again, 0, again.problems[0].stored[1]) == assembly_pieces(bf, 0, bf.problems[0].stored[1])


def _sphere_file(path: Path, pieces: list, result: list, assembly: str) -> Path:
    """A BurrTools sphere-grid file: one part per piece shape, the result, one stored assembly."""
    import gzip

    def voxel(cells):
        size = [max(c[i] for c in cells) + 1 for i in range(3)]
        run = "".join("#" if (x, y, z) in cells else "_"
                      for z in range(size[2]) for y in range(size[1]) for x in range(size[0]))
        return f'<voxel x="{size[0]}" y="{size[1]}" z="{size[2]}" type="0">{run}</voxel>'

    shapes = "".join(voxel(set(p)) for p in [*pieces, result])
    parts = "".join(f'<shape id="{i}" count="1"/>' for i in range(len(pieces)))
    path.write_bytes(gzip.compress(
        f'<?xml version="1.0"?><puzzle version="2"><gridType type="2"/><colors/><shapes>{shapes}</shapes>'
        f'<problems><problem state="2" assemblies="1"><shapes>{parts}</shapes><result id="{len(pieces)}"/><bitmap/>'
        f'<solutions><solution><assembly>{assembly}</assembly></solution></solutions></problem></problems>'
        '</puzzle>'.encode()))
    return path


def test_sphere_assembly_that_two_assemblies_fit_is_refused_in_one_line(tmp_path):
    """Three two-ball pieces stored with turns of a triangular layer at the corners of a six-ball triangle:
    the two ways round the triangle both fit, so the file is refused, naming the file, the problem and the
    assembly; at positions where nothing fits, the same."""
    from conftest import one_line, run_cli

    triangle = [(2, 0, 0), (1, 1, 0), (0, 2, 0), (1, 0, 1), (0, 1, 1), (0, 0, 2)]
    two = [(0, 0, 0), (1, 1, 0)]
    path = _sphere_file(tmp_path / "three.xmpuzzle", [two, two, two], triangle, "0 0 2 24 0 2 0 24 2 0 0 24")
    one_line(run_cli("show", str(path)), 2, str(path),
             "problems.0.solutions: stored assembly 0: its pieces' stored positions fit two different assemblies")
    path = _sphere_file(tmp_path / "none.xmpuzzle", [two, two, two], triangle, "0 0 2 0 0 2 0 0 2 0 0 0")
    one_line(run_cli("show", str(path)), 2, str(path),
             "problems.0.solutions: stored assembly 0: no turn of its pieces at their stored positions fills")


# ------------------------------------------------------------------------------------------ puzzle files

KANOODLE = """
name: kanoodle-test
grid: spheres
container: {pyramid: 5}
pieces:
  A: {square: ["#..", "###"]}
  B: {square: ["##.", "###"]}
  C: {square: ["#...", "####"]}
  D: {square: [".#..", "####"]}
  E: {square: ["##..", ".###"]}
  F: {square: ["#.", "##"]}
  G: {square: ["#..", "#..", "###"]}
  H: {square: ["#..", "##.", ".##"]}
  I: {square: ["##", "#.", "##"]}
  J: {square: ["####"]}
  K: {square: ["##", "##"]}
  L: {square: [".#.", "###", ".#."]}
"""


def test_pyramid_and_tetrahedron_containers(write_puzzle):
    from cpsolve.puzzle.schema import square_pyramid, tetrahedron

    spheres = GRIDS["spheres"]
    pyramid = square_pyramid(5)
    assert len(pyramid) == 55 and spheres.check_cells(pyramid) is None
    assert [sum(1 for c in pyramid if c[2] == k) for k in range(5)] == [25, 16, 9, 4, 1]
    assert all(sum(1 for q in spheres.neighbours(c) if q in set(pyramid)) >= 3 for c in pyramid)
    tetra = tetrahedron(4)
    assert len(tetra) == 20 and spheres.check_cells(tetra) is None
    from cpsolve.problem.symmetry import container_group

    assert len(container_group(pyramid, (), spheres)) == 8   # C4v: 4 turns, 4 mirrors
    assert len(container_group(tetra, (), spheres)) == 24    # Td


def test_flat_ball_drawings(write_puzzle):
    from cpsolve.puzzle.catalog import load

    path = write_puzzle("name: t\ngrid: spheres\ncontainer: {tetrahedron: 2}\n"
                        "pieces:\n  a: {triangular: ['# #', ' #']}\n  b: {cells: [[0, 0, 0]]}\n")
    puzzle = load(str(path))
    spheres = GRIDS["spheres"]
    a = puzzle.pieces[0].shape
    assert len(a) == 3 and all(q in spheres.neighbours(c) for c in a for q in a if q != c)  # three touching
    assert len(spheres.orientations(a)) == 8
    assert counts(puzzle) == (4, 1, 1)  # the triangle on any of the 4 faces (a turn in it is the same cells)


def test_kanoodle_pyramid_and_burrtxt(write_puzzle, tmp_path):
    """The Kanoodle-style pyramid; BurrTools counts its export the same (cpsat and sat: the slow test below)."""
    from cpsolve.output.burrtools import write_xmpuzzle
    from cpsolve.puzzle.burrtools import read_xmpuzzle
    from cpsolve.puzzle.catalog import load

    puzzle = load(str(write_puzzle(KANOODLE)))
    want = (2448, 612, 306)
    assert counts(puzzle) == want
    out = tmp_path / "k.xmpuzzle"
    out.write_bytes(write_xmpuzzle(puzzle))
    back = read_xmpuzzle(out)
    assert back.grid == "spheres" and counts(back) == want
    if BURRTXT.exists():
        assert _burrtxt(out, 0) == 306


@pytest.mark.slow
def test_kanoodle_pyramid_sat_and_cpsat():
    """The SAT and CP-SAT backends on the same pyramid (slow: each solution a new call; on two workers, the
    subproblems split between them as `enumerate -w 2` splits them)."""
    from cpsolve.puzzle.loader import parse_puzzle_text
    from cpsolve.puzzle.model import to_puzzle

    puzzle = to_puzzle(parse_puzzle_text(KANOODLE, "kanoodle"))
    assert counts(puzzle, "sat", 2) == counts(puzzle, "cpsat", 2) == (2448, 612, 306)


@pytest.mark.parametrize("name", ["Bermuda", "FourPieceTetrahedron", "DiagonalCube"])
def test_export_with_solutions_reads_back(name, tmp_path):
    """Solutions written into a .xmpuzzle in BurrTools' numbering of each grid are read back as the same cells."""
    from cpsolve.output.burrtools import write_xmpuzzle
    from cpsolve.output.solutions import labelled

    path = example(name)
    if path is None:
        pytest.skip(f"{name}.xmpuzzle not found")
    bf = parse_xmpuzzle(path)
    puzzle = puzzle_of(bf, 0)
    prepared = prepare(puzzle)
    classes = []
    enumerate_classes(prepared, RunSettings(get_backend("dlx"), workers=1), on_class=classes.append)
    sols = [labelled(prepared.problem, c.placements) for c in classes]
    assert len(sols) == bf.problems[0].assemblies
    out = tmp_path / "out.xmpuzzle"
    out.write_bytes(write_xmpuzzle(puzzle, sols))
    back = parse_xmpuzzle(out)
    assert back.grid == bf.grid
    again = puzzle_of(back, 0)
    read = [assembly_pieces(back, 0, a) for a in back.problems[0].stored]
    assert [{k: sorted(v) for k, v in s.items()} for s in read] == [{k: sorted(v) for k, v in s.items()} for s in sols]
    assert all(check_solution(again, s) is None for s in read)


def test_sphere_solutions_are_stored_with_the_cube_turns_numbers(tmp_path):
    """A piece with 24 different cube turns, put in a container shaped as each: the writer stores BurrTools'
    number t (the rule), reads back as the same cells, and burrTxt draws the piece on the same balls."""
    from cpsolve.output.burrtools import write_xmpuzzle
    from cpsolve.puzzle.burrtools_placements import SPHERE_CUBE_TURNS
    from cpsolve.puzzle.grid import GridMap
    from cpsolve.puzzle.model import make_piece, packing

    spheres = GRIDS["spheres"]
    piece = spheres.normalize(((0, 0, 0), (1, 1, 0), (2, 0, 0), (2, 1, 1)))
    for t, matrix in enumerate(SPHERE_CUBE_TURNS):
        shape = spheres.transform_shape(GridMap(matrix), piece)
        puzzle = packing(f"t{t}", shape, (make_piece("P", piece, 1, 1, len(shape)),), grid="spheres")
        out = tmp_path / f"t{t}.xmpuzzle"
        out.write_bytes(write_xmpuzzle(puzzle, [{"P": list(shape)}]))
        bf = parse_xmpuzzle(out)
        assert bf.problems[0].stored[0].placements[0][3] == t
        read = assembly_pieces(bf, 0, bf.problems[0].stored[0])
        assert check_solution(puzzle_of(bf, 0), read) is None
        if BURRTXT.exists():
            assert _burrtxt_drawings(out, tmp_path) == [[[set(read["P"])]]]


def test_kanoodle_solutions_stored_as_burrtools_draws_them(tmp_path):
    """The pyramid's 306 solutions written into its .xmpuzzle read back as the same cells, and burrTxt draws
    each piece of each on the balls cpsolve placed it on."""
    from cpsolve.output.burrtools import write_xmpuzzle
    from cpsolve.output.solutions import labelled
    from cpsolve.puzzle.catalog import load

    puzzle = load("kanoodle-pyramid")
    prepared = prepare(puzzle)
    classes = []
    enumerate_classes(prepared, RunSettings(get_backend("dlx"), workers=1), on_class=classes.append)
    sols = [labelled(prepared.problem, c.placements) for c in classes]
    assert len(sols) == 306
    out = tmp_path / "k.xmpuzzle"
    out.write_bytes(write_xmpuzzle(puzzle, sols))
    bf = parse_xmpuzzle(out)
    read = [assembly_pieces(bf, 0, a) for a in bf.problems[0].stored]
    origin = [min(c[i] for c in puzzle.container) for i in range(3)]
    moved = [{k: sorted((c[0] - origin[0], c[1] - origin[1], c[2] - origin[2]) for c in v) for k, v in s.items()}
             for s in sols]
    assert [{k: sorted(v) for k, v in s.items()} for s in read] == moved
    assert {s[3] for a in bf.problems[0].stored for s in a.placements if s} <= set(range(24))
    if BURRTXT.exists():
        drawn = _burrtxt_drawings(out, tmp_path)
        assert drawn == [[[set(v) for v in s.values()] for s in read]]


def test_sphere_solution_needing_a_layer_turn_is_refused_in_one_line(tmp_path):
    """BallRoom's second stored assembly turns a flat piece by one of the 96 turns of a triangular layer,
    whose BurrTools number cpsolve does not know: exporting it is refused in one line, and no file is
    written; the puzzle alone is written."""
    from conftest import one_line, run_cli

    path = example("BallRoom")
    if path is None:
        pytest.skip("BallRoom.xmpuzzle not found")
    out = tmp_path / "out.xmpuzzle"
    one_line(run_cli("export", str(path), "--format", "xmpuzzle", "--with-solutions", str(path), "-o", str(out)),
             2, "--with-solutions: solution 1 turns piece S5 by a turn of a triangular layer of balls",
             "BurrTools is GPL")
    assert not out.exists()
    proc = run_cli("export", str(path), "--format", "xmpuzzle", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert parse_xmpuzzle(out).grid == 2


# ------------------------------------------------------------------------------------------ taking apart


BTLEVELS = PEERS / "btlevels"


@pytest.mark.parametrize("problem, level, stored", [(0, "9.6.4", "9.6.4.2.2.2.1.2"), (1, "9.5.1", "9.5.1.1.2.2.2")])
def test_prisgon_comes_apart_as_burrtools_says(problem, level, stored):
    """Prisgon's README gives levels 9.6.4 and 9.5.1; the file stores BurrTools' whole figures, which the
    first way found (BurrTools' rule) gives exactly, on the prism grid's four axes."""
    from cpsolve.analysis.disassembly import disassemble

    path = example("Prisgon")
    if path is None:
        pytest.skip("Prisgon.xmpuzzle not found")
    bf = parse_xmpuzzle(path)
    pieces = assembly_pieces(bf, problem, bf.problems[problem].stored[0])
    assert disassemble(pieces, grid="prisms", first_found=True).level_text() == stored
    assert disassemble(pieces, grid="prisms").level_text().startswith(level)


@pytest.mark.parametrize("name", ["Bermuda", "Prisgon"])
@pytest.mark.parametrize("workers", [1, 2])
def test_an_enumeration_takes_prism_assemblies_apart_on_the_prism_axes(name, workers):
    """`enumerate --disassemble` takes classes apart from their placements with one disassembler per run
    (PlacedDisassembler, the C search on cubes); on prisms it must slide along the prism grid's axes in the
    twin, class by class as `disassemble(..., grid="prisms")` does, in this process and on workers."""
    import cpsolve
    from cpsolve.analysis.disassembly import disassemble, puzzle_groups

    path = example(name)
    if path is None:
        pytest.skip(f"{name}.xmpuzzle not found")
    puzzle = cpsolve.load(str(path))
    groups = puzzle_groups(puzzle)
    seen: list = []
    result = cpsolve.run(puzzle, seen.append, disassemble=True, workers=workers)
    assert result.complete and len(seen) == result.counts.unique_symmetry > 0
    levels = [disassemble(dict(s.pieces), groups, grid="prisms").level_text() for s in seen]
    assert [s.level for s in seen] == levels and None not in levels
    if name == "Prisgon":  # 9.6.4 and 9.5.1 in its README: many moves along the edges' directions
        assert {level.split(".")[0] for level in levels} == {"9"}


def test_a_triangle_cannot_slide_past_a_triangle_it_would_sweep():
    """Sliding one edge along, a triangle passes over the triangle between its start and its end: with
    that one taken, it cannot move that way at all, though its next place is free."""
    from cpsolve.analysis.disassembly import disassemble

    # an up triangle at (0, 0) and a down triangle right of it at (1, 0) in one layer: the up one may not
    # slide +x (it would pass over the down one), but either comes out along z
    got = disassemble({"u": [(0, 0, 0)], "d": [(1, 0, 0)]}, grid="prisms")
    assert got.ok and [m.text() for m in got.moves()] == ["u +z out"]
    # two up triangles (0, 0) and (2, 0) with nothing between: the first slides +x 0 places (it would hit
    # the second at once), so the shortest way out is still along z; with a layer above blocked...
    stacked = {"u": [(0, 0, 0)], "w": [(2, 0, 0)], "lid": [(0, 0, 1), (1, 0, 1), (2, 0, 1)],
               "floor": [(0, 0, -1), (1, 0, -1), (2, 0, -1)]}
    moves = [m.text() for m in disassemble(stacked, grid="prisms").moves()]
    assert moves[0] in ("lid +z out", "floor -z out")


def test_other_grids_have_no_disassembler():
    from cpsolve.analysis.disassembly import disassemble
    from cpsolve.errors import CpsolveError

    for grid in ("spheres", "rhombic", "tetra-octa"):
        with pytest.raises(CpsolveError, match="BurrTools has no disassembler"):
            disassemble({"a": [(0, 0, 0)], "b": [(2, 0, 0)]}, grid=grid)


@pytest.mark.parametrize("name", ["Prisgon", "Bermuda"])
def test_prism_levels_match_btlevels(name, tmp_path):
    """BurrTools' btlevels (its own disassembler) on each assembly: the same level with BurrTools' rule."""
    from cpsolve.analysis.disassembly import disassemble
    from cpsolve.puzzle.burrtools import StoredAssembly

    path = example(name)
    if path is None or not BTLEVELS.exists():
        pytest.skip("example file or ../peers/bin/btlevels missing")
    bf = parse_xmpuzzle(path)
    for problem in range(len(bf.problems)):
        out = subprocess.run([str(BTLEVELS), str(path), "-o", str(problem)], capture_output=True, text=True,
                             timeout=300, check=False).stdout
        rows = re.findall(r"assembly \d+: (.*?) (?:level (\S+)|stuck)", out)
        assert rows
        for placements, level in rows:
            tokens = placements.split()
            spots: list = []
            while tokens:
                if tokens[0] == "x":
                    spots.append(None)
                    tokens = tokens[1:]
                else:
                    spots.append(tuple(int(v) for v in tokens[:4]))
                    tokens = tokens[4:]
            pieces = assembly_pieces(bf, problem, StoredAssembly(tuple(spots)))
            assert disassemble(pieces, grid="prisms", first_found=True).level_text() == (level or None)


@pytest.mark.parametrize("name", ["BallRoom", "Bermuda", "HexSticks", "FourPieceTetrahedron"])
def test_import_writes_the_grid_and_loads_as_the_same_puzzle(name, tmp_path):
    """`cpsolve import` writes `grid:` and BurrTools' coordinates; the YAML file is the same puzzle."""
    from conftest import run_cli

    from cpsolve.puzzle.burrtools import read_xmpuzzle
    from cpsolve.puzzle.catalog import load

    path = example(name)
    if path is None:
        pytest.skip(f"{name}.xmpuzzle not found")
    out = tmp_path / f"{name}.yaml"
    proc = run_cli("import", str(path), "-o", str(out), "--check")
    assert proc.returncode == 0, proc.stderr
    assert "stored assembl" in proc.stderr and "checked" in proc.stderr
    a, b = read_xmpuzzle(path), load(str(out))
    assert (a.grid, a.container, a.optional) == (b.grid, b.container, b.optional)
    def pieces(puzzle):
        return [(p.name, p.shape, p.count, p.low) for p in puzzle.pieces]

    assert pieces(a) == pieces(b)


def test_design_holes_refused_on_tetra_octa_in_one_line(write_puzzle):
    """`design unique` works on every grid (tests/test_design.py); holes on the tetra-octa grid, whose cells
    have two shapes, are refused in one line."""
    from conftest import one_line, run_cli
    from test_design import TETRA_SPARE

    one_line(run_cli("design", "unique", str(write_puzzle(TETRA_SPARE)), "--change", "hole"), 2,
             "--change: holes are not searched on the tetra-octa grid")


@pytest.mark.parametrize("model", ["hexiamonds-6x6", "ball-tetrahedron-20", "hexagon-prism-8"])
def test_canonical_forms_compiled_and_python_agree_on_the_grids(model):
    """The canonicalizer's compiled twin and its Python definition give the same bytes with a grid's group
    (the sphere grid's closed under products)."""
    from cpsolve.puzzle.catalog import load

    prepared = prepare(load(model))
    rows_found: list = []

    class Keep:
        def __call__(self, cls):
            rows_found.append(cls)

    enumerate_classes(prepared, RunSettings(get_backend("dlx"), workers=1), on_class=Keep())
    problem = prepared.problem
    index = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    canon = prepared.canonicalizer
    assert rows_found
    for cls in rows_found[:40]:
        rows = [index[(p, tuple(cells))] for p, cells in cls.placements]
        assert canon.forms(problem, rows) == canon.python_forms(problem, rows)
