"""BurrTools files: the real example files read, solved and counted as BurrTools counts them; other
grids refused; cpsolve puzzles written back, with their solutions, and read again unchanged.

The example files are not part of this repository (the designs belong to their designers): they are
read from ../shared/burrtools-examples/ and these tests skip when that folder is absent. The counts
asserted are BurrTools' own: the figures stored in the files and what BurrTools 0.7.1's burrTxt
prints (that folder's README): AlPackino 1, PelikanBurr 12, SolidSixPieceBurrs 1063 stored (kept
mirror images) and 588 (burrTxt, mirror images merged), 12,597 with its symmetry filter off.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from cpsolve.errors import CpsolveError
from cpsolve.output.burrtools import placement_of, write_xmpuzzle
from cpsolve.output.solutions import labelled
from cpsolve.puzzle.assembly import check_solution
from cpsolve.puzzle.burrtools import parse_xmpuzzle, read_xmpuzzle
from cpsolve.puzzle.burrtools_placements import TRANSFORMS, assembly_pieces, placed_cells, stored_solutions
from cpsolve.puzzle.catalog import builtin_names, load
from cpsolve.puzzle.geometry import normalize
from cpsolve.search.backends import get_backend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.settings import RunSettings

EXAMPLES = Path(os.environ.get("CPSOLVE_SHARED_EXAMPLES", REPO.parent / "shared" / "burrtools-examples"))
"""The shared example files; CPSOLVE_SHARED_EXAMPLES names the folder where ../shared is elsewhere (a git
worktree's parent holds no shared/)."""
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")


def example(name: str) -> Path:
    return EXAMPLES / f"{name}.xmpuzzle"


def counts(puzzle, backend: str = "dlx", workers: int = 1) -> tuple[int, int, int]:
    result = enumerate_classes(prepare(puzzle), RunSettings(get_backend(backend), workers=workers))
    return result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry


def rows_of(problem, pieces: dict) -> tuple[int, ...]:
    """The problem's rows for a `{label: cells}` solution."""
    lookup = {(row.piece, row.cells): r for r, row in enumerate(problem.rows)}
    names = list(problem.piece_names)
    out = []
    for label, cells in pieces.items():
        piece = names.index(label.split("#")[0] if label not in names else label)
        out.append(lookup[(piece, tuple(sorted(problem.cell_index[c] for c in cells)))])
    return tuple(sorted(out))


def test_burrtools_transformations_are_the_48_isometries():
    assert len(set(TRANSFORMS)) == 48
    dets = [m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]) for m in TRANSFORMS]
    assert dets == [1] * 24 + [-1] * 24  # 0..23 rotations, 24..47 mirror images


@needs_examples
def test_alpackino_one_assembly():
    puzzle = read_xmpuzzle(example("AlPackino"))
    assert [(p.name, p.count) for p in puzzle.pieces] == [("Box", 1), ("S2", 4), ("S3", 4), ("S4", 4)]
    assert counts(puzzle) == (8, 1, 1)


@needs_examples
def test_pelikan_burr_twelve_assemblies_with_optional_cells():
    puzzle = read_xmpuzzle(example("PelikanBurr"))
    assert (len(puzzle.container), len(puzzle.optional)) == (512, 216)
    assert counts(puzzle) == (288, 12, 12)
    assert counts(puzzle, workers=2) == (288, 12, 12)  # splitting never branches on an optional cell


@needs_examples
def test_solid_six_piece_burrs_ranges_1063_and_588():
    puzzle = read_xmpuzzle(example("SolidSixPieceBurrs"))
    assert len(puzzle.pieces) == 25 and all((p.low, p.count) == (0, 6) for p in puzzle.pieces)
    prepared = prepare(puzzle)
    result = enumerate_classes(prepared, RunSettings(get_backend("dlx")))
    tally = result.tally
    assert (tally.total, tally.unique_rotation, tally.unique_symmetry) == (12597, 1063, 588)
    # The 314 solutions stored in the file (saved with mirror images kept) are 314 distinct rotation
    # classes among the 1063 found.
    problem = prepared.problem
    canon = prepared.canonicalizer
    stored = stored_solutions(example("SolidSixPieceBurrs"))
    keys = {canon.forms(problem, rows_of(problem, s)).rotation_key for s in stored}
    assert len(stored) == len(keys) == 314
    found: set[bytes] = set()  # the rotation classes of every solution the search found
    broken = prepared.broken
    get_backend("dlx").search(broken.problem, lambda rows: found.add(canon.forms(broken.problem, rows).rotation_key))
    assert len(found) == 1063 and keys <= found


@needs_examples
def test_stored_assemblies_are_solutions():
    for name, n in (("AlPackino", 1), ("PelikanBurr", 1), ("SolidSixPieceBurrs", 314)):
        puzzle = read_xmpuzzle(example(name))
        stored = stored_solutions(example(name))
        assert len(stored) == n
        assert all(check_solution(puzzle, s) is None for s in stored), name


@needs_examples
def test_check_finds_a_broken_assembly():
    bf = parse_xmpuzzle(example("PelikanBurr"))
    puzzle = read_xmpuzzle(example("PelikanBurr"))
    good = assembly_pieces(bf, 0, bf.problems[0].stored[0])
    moved = dict(good)
    name = next(k for k in moved if k != "Cage")
    moved[name] = [(x + 1, y, z) for x, y, z in moved[name]]
    assert check_solution(puzzle, good) is None
    assert check_solution(puzzle, moved) is not None


@needs_examples
def test_demo_files_count_as_burrtxt_does():
    # burrTxt / burrTxt-nosym (results/burrtools.md): DemoMirrorParadox 1 / 2 and 1 / 48,
    # DemoPieceGenerator 928 / 1760 (placements lying wholly in optional cells count, as here).
    for problem, expected in ((0, (2, 2, 1)), (1, (48, 2, 1))):
        puzzle = read_xmpuzzle(example("DemoMirrorParadox"), problem)
        assert {counts(puzzle, b) for b in ("python", "dlx", "cpsat", "sat")} == {expected}
    generator = read_xmpuzzle(example("DemoPieceGenerator"))
    assert len(generator.optional) == 10 and (generator.pieces[1].low, generator.pieces[1].count) == (0, 10)
    assert counts(generator, "python") == counts(generator, "dlx") == counts(generator, "cpsat") == (1760, 1760, 928)


@needs_examples
@pytest.mark.parametrize("name, grid, expected", [("Bermuda", "prisms", 1), ("BallRoom", "spheres", 2),
                                                  ("HexSticks", "rhombic", 33)])
def test_other_grids_are_read_and_counted(name, grid, expected):
    """Once refused in one line, BurrTools' other grids are read on their own grid and counted as
    BurrTools counts (the file's `assemblies=`; tests/test_grids.py has every example file)."""
    puzzle = read_xmpuzzle(example(name))
    assert puzzle.grid == grid
    proc = run_cli("enumerate", str(example(name)), "--no-save", "-q", "-w", "1")
    assert proc.returncode == 0, proc.stderr
    assert f"compare {expected} (burrTxt)" in proc.stdout


@needs_examples
def test_import_command_writes_an_equivalent_yaml_and_checks(tmp_path):
    out = tmp_path / "solid.yaml"
    proc = run_cli("import", str(example("SolidSixPieceBurrs")), "-o", str(out), "--check")
    assert proc.returncode == 0, proc.stderr
    assert "BurrTools stored 1063 assemblies, 314 solutions" in proc.stderr
    assert "314 stored assemblies checked" in proc.stderr
    assert load(str(out)).pieces == read_xmpuzzle(example("SolidSixPieceBurrs")).pieces
    proc = run_cli("enumerate", str(example("PelikanBurr")), "--no-save", "-q", "-w", "1")
    assert "12 up to rotation" in proc.stdout and "compare 12 (burrTxt)" in proc.stdout


def test_plain_latin1_xml_without_declaration(tmp_path):
    text = ('<?xml version="1.0"?>\n<puzzle version="2"><gridType type="0"/><colors/><shapes>'
            '<voxel x="2" y="1" z="1" type="0" name="Domino \xe9">##</voxel>'
            '<voxel x="3" y="1" z="1" type="0" name="tromino">###</voxel>'
            '<voxel x="5" y="1" z="1" type="0" name="box">#####</voxel></shapes><problems>'
            '<problem name="two pieces" state="2" assemblies="1"><shapes><shape id="0" count="1"/>'
            '<shape id="1" count="1"/></shapes><result id="2"/><bitmap/>'
            '<solutions><solution><assembly>0 0 0 0 2 0 0 0</assembly></solution></solutions>'
            '</problem></problems><comment/></puzzle>')
    path = tmp_path / "two.xmpuzzle"
    path.write_bytes(text.encode("latin-1"))  # plain XML, Latin-1 name, no encoding declared
    puzzle = read_xmpuzzle(path)
    assert [p.name for p in puzzle.pieces] == ["Domino é", "tromino"]
    domino, tromino = [(0, 0, 0), (1, 0, 0)], [(2, 0, 0), (3, 0, 0), (4, 0, 0)]
    assert stored_solutions(path) == [{"Domino é": domino, "tromino": tromino}]
    assert counts(puzzle) == (2, 1, 1)
    path.write_bytes(gzip.compress(text.encode("latin-1")))
    assert read_xmpuzzle(path).pieces == puzzle.pieces  # the same file gzipped


def test_refused_features_name_the_feature(tmp_path):
    base = ('<puzzle version="2"><shapes><voxel x="1" y="1" z="1" type="0">{piece}</voxel>'
            '<voxel x="2" y="1" z="1" type="0">##</voxel></shapes><problems><problem{extra}><shapes>'
            '<shape id="0" count="2"/></shapes><result id="1"/></problem></problems></puzzle>')
    for piece, extra, message in (("+", "", "shape S1 has variable"), ("#", ' maxHoles="1"', "maxHoles")):
        path = tmp_path / "bad.xmpuzzle"
        path.write_text(base.format(piece=piece, extra=extra), encoding="utf-8")
        with pytest.raises(CpsolveError, match=message):
            read_xmpuzzle(path)
    (tmp_path / "bad.xmpuzzle").write_text("<puzzle version='3'/>", encoding="utf-8")
    with pytest.raises(CpsolveError, match="version '3'"):
        read_xmpuzzle(tmp_path / "bad.xmpuzzle")


def same_puzzle(a, b) -> bool:
    """Equal up to a translation of the container, colour names aside."""
    lo = [min(c[i] for c in a.container) for i in range(3)]

    def moved(cells):
        return tuple(sorted((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]) for c in cells))

    return (moved(a.container) == tuple(sorted(b.container)) and moved(a.optional) == b.optional
            and [(p.name, p.shape, p.count, p.low) for p in a.pieces] == [(p.name, p.shape, p.count, p.low)
                                                                          for p in b.pieces]
            and a.groups == b.groups)


@pytest.mark.parametrize("name", [n for n in builtin_names() if load(n).kind == "pieces"])
def test_export_import_round_trip_of_every_builtin_model(name, tmp_path):
    puzzle = load(name)
    path = tmp_path / f"{name}.xmpuzzle"
    path.write_bytes(write_xmpuzzle(puzzle))
    assert same_puzzle(puzzle, read_xmpuzzle(path))


def test_chains_are_not_exported():
    chain = next(n for n in builtin_names() if load(n).kind == "chain")
    with pytest.raises(CpsolveError, match="BurrTools has no chains"):
        write_xmpuzzle(load(chain))


def test_solutions_survive_the_trip(tmp_path):
    puzzle = load("soma")
    prepared = prepare(puzzle)
    solutions = []
    enumerate_classes(prepared, RunSettings(get_backend("dlx")), on_class=lambda c: solutions.append(
        labelled(prepared.problem, c.placements)))
    assert len(solutions) == 240
    path = tmp_path / "soma.xmpuzzle"
    path.write_bytes(write_xmpuzzle(puzzle, solutions))
    back = stored_solutions(path)
    assert back == [{k: sorted(v) for k, v in s.items()} for s in solutions]
    again = read_xmpuzzle(path)
    assert all(check_solution(again, s) is None for s in back)


def test_export_cli_with_solutions(tmp_path):
    sols = tmp_path / "s.jsonl"
    assert run_cli("enumerate", "soma", "--out", str(sols), "-q", "-w", "1").returncode == 0
    out = tmp_path / "soma.xmpuzzle"
    proc = run_cli("export", "soma", "--format", "xmpuzzle", "-o", str(out), "--with-solutions", str(sols))
    assert proc.returncode == 0, proc.stderr
    assert len(stored_solutions(out)) == 240
    assert gzip.decompress(out.read_bytes()).startswith(b'<?xml version="1.0"?>\n<puzzle version="2">')
    proc = run_cli("import", str(out), "--check")
    assert proc.returncode == 0 and "240 stored assemblies checked" in proc.stderr


def test_placement_convention_inverts():
    shape = normalize([(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (2, 1, 1)])
    from cpsolve.puzzle.burrtools import BurrShape

    burr = BurrShape(None, (3, 2, 2), tuple((c, "#", 0) for c in shape))
    for t in range(24):
        cells = placed_cells(burr, (5, 6, 7, t))
        x, y, z, u = placement_of(shape, cells)
        assert placed_cells(burr, (x, y, z, u)) == cells


def test_colours_groups_and_ranges_survive_export_and_import(tmp_path):
    text = """
name: features
container:
  layers: [["#+#", "###"]]
  cell_colors: {red: [[0, 0, 0]], blue: [[2, 1, 0]]}
pieces:
  M: {cells: [[0, 0, 0]], count: {min: 0, max: 6}, cell_colors: {blue: [[0, 0, 0]]}}
  L: {cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], cell_colors: {red: [[0, 0, 0]]}}
color_rules: {red: [red], blue: [blue, red]}
groups: [[L, M]]
"""
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    puzzle = load(str(path))
    out = tmp_path / "f.xmpuzzle"
    out.write_bytes(write_xmpuzzle(puzzle))
    back = read_xmpuzzle(out)
    assert same_puzzle(puzzle, back)
    rename = {"blue": "c1", "red": "c2"}  # BurrTools numbers colours; names come back as c<n>
    assert back.container_colors == tuple(sorted((c, rename[k]) for c, k in puzzle.container_colors))
    assert back.color_rules == {(rename[a], rename[b]) for a, b in puzzle.color_rules}
    assert counts(back) == counts(puzzle)


@needs_examples
def test_imported_yaml_is_the_same_puzzle(tmp_path):
    for name, problems in (("AlPackino", 1), ("PelikanBurr", 1), ("DemoMirrorParadox", 2), ("DemoPieceGenerator", 1)):
        for problem in range(problems):
            out = tmp_path / f"{name}-{problem}.yaml"
            proc = run_cli("import", str(example(name)), "--problem", str(problem), "-o", str(out))
            assert proc.returncode == 0, proc.stderr
            direct = read_xmpuzzle(example(name), problem)
            assert same_puzzle(direct, load(str(out))), (name, problem)


def test_a_result_made_only_of_variable_cells_is_a_puzzle(tmp_path):
    # BurrTools accepts a result whose cells are all '+' (it counts 2 assemblies of three dominoes in
    # this 3x2 box, up to rotation and reflection); cpsolve refused it ("the result has no fixed cell")
    path = tmp_path / "plus.xmpuzzle"
    path.write_text('<?xml version="1.0"?><puzzle version="2"><gridType type="0"/><colors/><shapes>'
                    '<voxel x="3" y="2" z="1" type="0" name="R">++++++</voxel>'
                    '<voxel x="2" y="1" z="1" type="0" name="D">##</voxel></shapes><problems><problem state="0">'
                    '<shapes><shape id="1" count="3"/></shapes><result id="0"/><bitmap/></problem></problems>'
                    '</puzzle>', encoding="utf-8")
    puzzle = read_xmpuzzle(path)
    assert len(puzzle.container) == 6 and len(puzzle.optional) == 6
    for backend in ("dlx", "python", "sat"):
        assert counts(puzzle, backend) == (3, 2, 2), backend
    yaml_text = run_cli("import", str(path))
    assert yaml_text.returncode == 0 and "+++" in yaml_text.stdout
