"""`cpsolve design`: the snake-cube census and the piece-set search.

The census is checked three ways: against a brute force written here (all directed Hamiltonian
paths, canonical forms under the box's isometries and reversal: no Burnside, no symmetry
reduction), against cpsolve's own chain model (`cpsolve enumerate` on a chain file: joint clauses on
a SAT backend), and against published 3x3x3 figures. The C search is checked against its Python twin.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from cpsolve.analysis.design import pieces as design
from cpsolve.analysis.design import snake
from cpsolve.problem.symmetry import SymmetryElement, container_group
from cpsolve.puzzle.geometry import box_cells

needs_native = pytest.mark.skipif(not snake.native_available(), reason="the C census search is not built")


def brute_force(size: tuple[int, int, int]) -> dict[int, tuple[int, int, int]]:
    """Ordered turn sequence -> (total, up to rotation, up to rotation and reflection), the slow way.

    Every directed Hamiltonian path from every cell; a physical folding is a path, or for a
    palindromic sequence the path and its reverse; classes are canonical forms under the group.
    """
    cells = box_cells(size)
    index = {c: i for i, c in enumerate(cells)}
    near = [[index[q] for q in ((c[0] + d[0], c[1] + d[1], c[2] + d[2]) for d in
                                ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))) if q in index]
            for c in cells]
    group = container_group(cells)
    paths: list[tuple[int, ...]] = []

    def grow(path: list[int]) -> None:
        if len(path) == len(cells):
            paths.append(tuple(path))
            return
        for q in near[path[-1]]:
            if q not in path:
                path.append(q)
                grow(path)
                path.pop()

    for start in range(len(cells)):
        grow([start])

    def turns(path: tuple[int, ...]) -> int:
        s = 0
        for i in range(1, len(path) - 1):
            a, b, c = (cells[path[i - 1]], cells[path[i]], cells[path[i + 1]])
            if tuple(b[k] - a[k] for k in range(3)) != tuple(c[k] - b[k] for k in range(3)):
                s |= 1 << (i - 1)
        return s

    by_seq: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for p in paths:
        by_seq[turns(p)].append(p)
    width = len(cells) - 2
    out = {}
    for s, ps in by_seq.items():
        palindrome = snake.reverse_bits(s, width) == s

        def states(p: tuple[int, ...], pal: bool = palindrome) -> list[tuple[int, ...]]:
            return [p, p[::-1]] if pal else [p]

        def canon(p: tuple[int, ...], elements: list[SymmetryElement]) -> tuple[int, ...]:
            return min(tuple(g.perm[c] for c in q) for g in elements for q in states(p))

        physical = {min(states(p)) for p in ps}
        rotations = [g for g in group if not g.is_reflection]
        out[s] = (len(physical), len({canon(p, rotations) for p in ps}), len({canon(p, list(group)) for p in ps}))
    return out


@pytest.mark.parametrize("size", [(2, 2, 2), (2, 2, 3), (1, 3, 4), (2, 3, 3)])
@pytest.mark.slow
def test_census_matches_brute_force(size: tuple[int, int, int]) -> None:
    expected = brute_force(size)
    census = snake.census(size, snake.walk)
    width = census.chains[0].n - 2
    assert census.ordered == len(expected)
    for chain in census.chains:
        for s in {chain.sequence, snake.reverse_bits(chain.sequence, width)}:
            assert expected[s] == (chain.total, chain.up_to_rotation, chain.foldings), chain.as_json()
    assert len(census.chains) == len({min(s, snake.reverse_bits(s, width)) for s in expected})


@needs_native
@pytest.mark.parametrize("size", [(2, 2, 3), (2, 3, 3), (2, 2, 5), (1, 4, 4)])
def test_c_search_matches_python_twin(size: tuple[int, int, int]) -> None:
    graph = snake.box_graph(size)
    for prefix, _ in snake.prefixes(graph, 3):
        assert snake.c_walk(graph, prefix) == snake.walk(graph, prefix)
    census = snake.census(size, snake.c_walk, workers=2)
    assert census == snake.census(size, snake.walk)
    for chain in census.chains[:3] + census.chains[-3:]:  # one chain's foldings, the search the sampler uses
        for walker in (snake.walk, snake.c_walk):
            assert snake.foldings_of(graph, chain.sequence, walker) == chain
            early = snake.foldings_of(graph, chain.sequence, walker, stop_above=1)
            assert early == chain if chain.foldings == 1 else early in (None, chain)


@needs_native
def test_3x3x3_census_against_published_figures() -> None:
    """22,897 ordered chains: professorguy.com/ideas/snakecube.html (solving all 2^25 chains);
    4,960,608 directed Hamiltonian paths: lpetrich, "Cube Snake Puzzle", iidb.org forum thread."""
    census = snake.census((3, 3, 3))
    s = census.summary()
    assert s["ordered_chains"] == 22897
    assert s["chains"] == (22897 + s["palindromic_chains"]) // 2 == 11487
    graph = snake.box_graph((3, 3, 3))
    directed = sum(2 * c.total for c in census.chains)  # a chain's foldings, read from either end
    assert directed == 4960608
    assert len(graph.perms) == 48
    seed = next(c for c in census.chains if c.segments in (
        [3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3], [3, 3, 3, 3, 2, 2, 2, 3, 3, 2, 2, 3, 2, 3, 2, 2, 3]))
    assert (seed.total, seed.up_to_rotation, seed.foldings) == (48, 2, 1)  # the snake-27 model's reference


def test_census_agrees_with_chain_model() -> None:
    """A few dozen chains of small boxes, each solved by `enumerate` machinery as its own puzzle."""
    rng = random.Random(17)
    for size, k in (((2, 2, 3), 8), ((2, 3, 3), 12), ((2, 2, 4), 6)):
        census = snake.census(size, snake.walk)
        chosen = rng.sample(census.chains, k) + [c for c in census.chains if c.palindrome][:2]
        for chain in chosen:
            assert snake.enumerate_chain(size, chain.segments) == (chain.total, chain.up_to_rotation, chain.foldings)


def test_segments_round_trip() -> None:
    for s in (0, 1, 0b101, 0b1111111):
        assert snake.sequence_of(snake.segments_of(s, 9)) == s
    assert snake.segments_of(0b0101, 6) == [2, 3, 3]
    assert snake.turns_text(0b0101, 6) == "ETSTSE"


@pytest.mark.slow
def test_design_snake_cli_writes_puzzles_enumerate_confirms(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    proc = run_cli("design", "snake", "--box", "2x2x4", "--out", str(out), "--puzzles", str(tmp_path / "p"),
                   "--max-files", "2", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["chains"] == len(lines) and summary["puzzle_files"] == 2
    assert summary["unique_chains"] == sum(1 for r in lines if r["foldings"] == 1)
    for path in sorted((tmp_path / "p").iterdir()):
        ref = yaml.safe_load(path.read_text())["reference"]
        got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
        assert got.returncode == 0, got.stderr
        counts = json.loads(got.stdout)
        assert (counts["total"], counts["unique_rotation"], counts["unique_symmetry"]) == (
            ref["total"], ref["unique_rotation"], 1)


@needs_native
@pytest.mark.slow
def test_design_snake_sample_finds_unique_chains(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    proc = run_cli("design", "snake", "--box", "3x3x3", "--sample", "30", "--out", str(out), "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["unique"] + summary["several"] + summary["undecided"] == 30
    census = {tuple(c.segments): c for c in snake.census((3, 3, 3)).chains}
    finds = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(finds) == summary["unique"] > 0
    for f in finds:
        assert census[tuple(f["segments"])].foldings == 1


@pytest.mark.parametrize("box", ["3x3", "0x2x2", "9x9x9", "axbxc"])
def test_design_snake_bad_box_is_one_line(box: str) -> None:
    proc = run_cli("design", "snake", "--box", box)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("cpsolve: error: --box: ")


def test_pools() -> None:
    assert [len(design.polycubes(n)) for n in range(1, 6)] == [1, 1, 2, 8, 29]
    flat = {s for s in design.polycubes(5) if any(max(c[i] for c in s) == 0 for i in range(3))}
    assert set(design.pentominoes().values()) == flat and len(flat) == 12  # the twelve, each drawn once
    pool, grid = design.pool_from("tricubes,tetracubes")
    assert grid == "cubes"
    sets = list(design.candidates(pool, 27))
    assert len(sets) == 2 * 28  # one tricube and six of the eight tetracubes: 3 + 24 = 27
    assert all(sum(len(pool[n]) * k for n, k in s) == 27 for s in design.candidates(pool, 27, copies=2))


def test_judge_unique_several_and_pruned() -> None:
    pool = design.pentominoes()
    # 3x20 is filled by the twelve pentominoes in exactly 2 ways (Haselgrove): two classes -> several
    assert design.judge((1, 3, 20), tuple((n, 1) for n in sorted(pool)), pool).status == "several"
    assert design.judge((1, 2, 5), (("I", 1), ("X", 1)), pool).status == "pruned"  # X fits nowhere in 2x5
    verdict = design.judge((1, 2, 5), (("L", 1), ("P", 1)), pool)
    assert verdict.status == "none" and verdict.counts == (0, 0, 0)
    verdict = design.judge((1, 2, 5), (("I", 2),), pool)
    assert verdict.status == "unique" and verdict.counts == (1, 1, 1)  # the copies are interchangeable


@pytest.mark.slow
def test_design_pieces_cli_finds_are_confirmed(tmp_path: Path) -> None:
    out = tmp_path / "d.jsonl"
    proc = run_cli("design", "pieces", "--box", "1x3x5,1x4x5", "--pool", "pentominoes", "--out", str(out),
                   "--puzzles", str(tmp_path / "p"), "--json", "--quiet", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["candidates"] == len(rows) == 220 + 495  # C(12,3) for 15 cells, C(12,4) for 20
    assert summary["unique"] == sum(1 for r in rows if r["status"] == "unique") > 0
    files = sorted((tmp_path / "p").iterdir())
    assert len(files) == min(20, summary["unique"])
    for path in files[:4]:
        got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout)["unique_symmetry"] == 1


def test_design_unique_single_fix_is_proved_by_enumeration(tmp_path: Path) -> None:
    from cpsolve.analysis.design import unique
    from cpsolve.puzzle.catalog import load

    report = unique.suggest(load("t-tetracube-6x6x2"), limit=3)
    assert report.assemblies == 136 and report.size == 1 and report.fixes
    for fix in report.fixes:
        assert fix.verified_total == 1
        (name, cells), = fix.pieces
        assert name == "T" and len(cells) == 4
    proc = run_cli("design", "unique", "t-tetracube-6x6x2", "--limit", "1", "--puzzles", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    (path,) = tmp_path.iterdir()
    got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["total"] == 1


def test_design_unique_needs_two_pieces_for_soma() -> None:
    from cpsolve.analysis.design import unique
    from cpsolve.puzzle.catalog import load

    report = unique.suggest(load("soma"), limit=2)
    assert report.assemblies == 11520 and report.size == 2  # no single placement occurs in only one assembly
    assert [f.verified_total for f in report.fixes] == [1, 1]


@pytest.mark.parametrize("args, start", [
    (("pieces", "--pool", "hexominoes"), "cpsolve: error: --pool: unknown pool"),
    (("pieces", "--box", "3x3"), "cpsolve: error: --box: "),
    (("unique", "snake-27"), "cpsolve: error: "),  # then the model's file, "kind:" and the problem
])
def test_design_bad_input_is_one_line(args: tuple[str, ...], start: str) -> None:
    proc = run_cli("design", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(start) and proc.stderr.strip().count("\n") == 0
    if args[0] == "unique":
        assert "snake-27" in proc.stderr and ": kind: design unique works on packings" in proc.stderr


# --------------------------------------------------------------------- design unique: marks and holes

PUZZLES = Path(__file__).resolve().parent.parent / "benchmarks" / "puzzles"
SPARE = (PUZZLES / "design-spare.yaml").read_text()
"""Three optional cells, pieces of volume 10 in 12 cells: four assemblies, room for holes."""
RANGED = (PUZZLES / "design-ranged.yaml").read_text()
"""A range of monocubes (copies to mark, volume to spare) and colours already there (kept by marks)."""


def _file_total(text: str) -> int:
    """The file's total by `enumerate`'s path; a marked piece that fits nowhere, or volumes that cannot
    match, make a file the loader refuses: that puzzle has no assembly."""
    from cpsolve.analysis.design.files import total_of_text
    from cpsolve.errors import CpsolveError

    try:
        return total_of_text(text, "brute-force")
    except CpsolveError as exc:
        assert "fits nowhere" in exc.message or "volume" in exc.message, exc
        return 0


def _assert_marks_agree(puzzle: object, cells: list[tuple[int, int, int]] | None = None, pairs: int = 0) -> int:
    """Every single mark (cell, piece, *every* cube, not one per symmetry class) on `cells`, and
    `pairs` random pairs, written as files and enumerated: each total equals the counting pass's count
    (0 for marks no assembly satisfies). Returns how many were checked."""
    from cpsolve.analysis.design import changes, marks
    from cpsolve.analysis.design.files import puzzle_yaml
    from cpsolve.puzzle.model import Puzzle

    assert isinstance(puzzle, Puzzle)
    prepared, found = changes.assemblies_of(puzzle)
    counter = marks.MarkCounter(puzzle, prepared.problem)
    ones, twos = counter.count(found, 1), counter.count(found, 2)
    paint = dict(puzzle.container_colors)
    singles = []
    for c in cells or list(puzzle.container):
        if c in paint:
            continue
        ci = prepared.problem.cells.index(c)
        for p, piece in enumerate(puzzle.pieces):
            for q, cube in enumerate(piece.shape):
                if cube in dict(piece.colors):
                    continue
                design = ((p, counter.canon(p, [(q, ci)])),)
                text = puzzle_yaml(marks.marked(puzzle, [marks.MarkedCopy(piece.name, ((cube, c),))], "m"),
                                   puzzle.container, "test")
                assert _file_total(text) == ones.get(design, 0), (c, piece.name, cube)
                singles.append((p, q, ci))
    rng = random.Random(17)
    ones_seen = [d for d, n in sorted(twos.items()) if n == 1]
    drawn = rng.sample(ones_seen, min(pairs // 3, len(ones_seen)))
    drawn += rng.sample(sorted(twos), min(pairs // 3, len(twos)))  # any count the pass gives
    while len(drawn) < pairs:  # mostly designs no assembly satisfies, of both kinds
        (p1, q1, c1), (p2, q2, c2) = rng.sample(singles, 2)
        if c1 == c2:
            continue
        if p1 == p2 and (puzzle.pieces[p1].count == 1 or rng.random() < 0.5):
            if q1 != q2:
                drawn.append(((p1, counter.canon(p1, [(q1, c1), (q2, c2)])),))
        else:
            drawn.append(tuple(sorted([(p1, counter.canon(p1, [(q1, c1)])), (p2, counter.canon(p2, [(q2, c2)]))])))
    for (p, ((q1, c1), (q2, c2))), in [d for d in drawn if len(d) == 1]:  # two cubes of one copy must not
        drawn.append(((p, counter.canon(p, [(q1, c2), (q2, c1)])),))     # trade cells: check the swap too
    for design in drawn:
        text = puzzle_yaml(marks.marked(puzzle, counter.marked_copies(design), "m"), puzzle.container, "test")
        assert _file_total(text) == twos.get(design, 0), design
    return len(singles) + len(drawn)


@pytest.mark.parametrize("which", ["spare", "ranged"])
def test_mark_counts_agree_with_brute_force(which: str) -> None:
    from cpsolve.api import puzzle_from_yaml

    puzzle = puzzle_from_yaml(SPARE if which == "spare" else RANGED)
    assert _assert_marks_agree(puzzle, pairs=24) > 24 + 40


@pytest.mark.slow
def test_mark_counts_agree_with_brute_force_on_soma() -> None:
    from cpsolve.puzzle.catalog import load

    assert _assert_marks_agree(load("soma"), cells=[(0, 0, 0), (1, 1, 1)], pairs=6) >= 2 * 27 + 6


@pytest.mark.parametrize("model, size, candidates", [("soma", 2, 192), ("t-tetracube-6x6x2", 2, 608)])
def test_design_unique_marks_are_proved_by_enumeration(model: str, size: int, candidates: int, tmp_path: Path) -> None:
    from cpsolve.analysis.design import unique
    from cpsolve.puzzle.catalog import load

    report = unique.suggest_changes(load(model), "mark", limit=3)
    assert (report.kind, report.size, report.candidates) == ("mark", size, candidates)
    assert len(report.changes) == 3 and all(c.verified_total == 1 for c in report.changes)
    assert all(len(c.detail["marks"]) == 2 for c in report.changes)  # type: ignore[arg-type]
    path = tmp_path / f"{report.changes[0].name}.yaml"
    path.write_text(report.changes[0].file_text, encoding="utf-8")
    spec = yaml.safe_load(path.read_text())
    unmarked = spec["container"]["cell_colors"]["unmarked"]  # every cell but the two marked ones
    assert spec["reference"]["total"] == 1 and len(unmarked) == len(load(model).container) - 2
    got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["total"] == 1


def test_mark_on_a_piece_with_copies_splits_one_copy_off() -> None:
    from cpsolve.analysis.design import marks
    from cpsolve.api import puzzle_from_yaml

    puzzle = puzzle_from_yaml(RANGED)
    m = marks.marked(puzzle, [marks.MarkedCopy("M", (((0, 0, 0), (1, 0, 0)),))], "x")
    by_name = {p.name: p for p in m.pieces}
    assert (by_name["M"].low, by_name["M"].count) == (0, 3)
    split = by_name["M-marked"]
    assert (split.low, split.count, split.colors) == (1, 1, (((0, 0, 0), "mark"),))
    assert ("red", "unmarked") in m.color_rules and ("mark", "mark") in m.color_rules  # red still sits where it could
    paint = dict(m.container_colors)
    assert paint[(1, 0, 0)] == "mark" and paint[(0, 0, 0)] == "red" and paint[(2, 1, 1)] == "blue"
    assert sum(1 for k in paint.values() if k == "unmarked") == 12 - 4


def test_design_unique_holes_with_optional_cells_agree_with_brute_force() -> None:
    """Every hole and every pair of holes of three puzzles with spare volume, as files, against the pass
    (the third on the prism grid, where the hole piece is one triangle, up or down)."""
    import itertools

    from cpsolve.analysis.design import holes, unique
    from cpsolve.analysis.design.files import puzzle_yaml
    from cpsolve.api import puzzle_from_yaml

    for text, want in ((SPARE, (1, 4, 40)), (RANGED, (2, 8, 252)), (PRISM_SPARE, (1, 3, 5))):
        puzzle = puzzle_from_yaml(text)
        report = unique.suggest_changes(puzzle, "hole", limit=10)
        assert (report.size, report.candidates, report.assemblies) == want
        assert report.changes and all(c.verified_total == 1 for c in report.changes)
        for h in (1, 2):
            prepared, tally = holes.hole_counts(puzzle, h)
            cells = prepared.problem.cells
            for where in itertools.combinations(range(len(cells)), h):
                file = puzzle_yaml(holes.holed(puzzle, [cells[c] for c in where], "h"), puzzle.container, "test")
                assert _file_total(file) == tally.get(where, 0), [cells[c] for c in where]
    spare = unique.suggest_changes(puzzle_from_yaml(SPARE), "hole", limit=10)
    assert sorted(c.detail["holes"] for c in spare.changes) == [[[0, 0, 1]], [[0, 1, 0]], [[2, 0, 1]], [[2, 1, 0]]]  # type: ignore[type-var]


def test_design_unique_holes_cannot_apply_to_exact_volume() -> None:
    from cpsolve.analysis.design import unique
    from cpsolve.puzzle.catalog import load

    report = unique.suggest_changes(load("soma"), "hole")
    assert report.changes == () and report.note.startswith("holes cannot apply: the pieces fill all 27 cells")
    assert report.headline(0.0).count("\n") == 0


def test_design_unique_fix_keeps_optional_cells_and_ranges() -> None:
    """A fixed piece's file keeps the other features: enumerated, it has exactly one assembly."""
    from cpsolve.analysis.design import unique
    from cpsolve.api import puzzle_from_yaml

    for text, size in ((SPARE, 1), (RANGED, 2)):
        report = unique.suggest_changes(puzzle_from_yaml(text), "fix", limit=3)
        assert report.size == size and [c.verified_total for c in report.changes] == [1, 1, 1]
        spec = yaml.safe_load(report.changes[0].file_text)
        if text is SPARE:
            assert "+" in "".join(row for layer in spec["container"]["layers"] for row in layer)
        else:
            assert spec["pieces"]["M"]["count"]["min"] == 0 and spec["color_rules"] == {"red": ["red"]}


def test_design_unique_change_option_on_the_command_line(tmp_path: Path) -> None:
    proc = run_cli("design", "unique", "soma", "--change", "mark", "--limit", "2", "--puzzles", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("soma: 11520 solutions in all; 2 colour marks suffice: 192 pairs of marks")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["soma-marked-1.yaml", "soma-marked-2.yaml"]
    proc = run_cli("design", "unique", "soma", "--change", "hole")
    assert proc.returncode == 1 and proc.stdout.startswith("soma: holes cannot apply") and proc.stdout.count("\n") == 1
    proc = run_cli("design", "unique", "soma", "--change", "holes")
    assert proc.returncode == 2 and proc.stderr.startswith("cpsolve: error: --change: unknown change 'holes'")


# ------------------------------------------------------------------------------------------ the other grids


def test_grid_pools_are_the_flat_polyforms() -> None:
    """Polyiamonds (one layer of prisms: turned over is a rotation, so free ones), balls in a square layer
    (polyominoes) and in a triangular layer (polyhexes), counted as the published sequences (OEIS A000577,
    A000105, A000228), each piece flat in its layer and on its grid."""
    from cpsolve.errors import CpsolveError
    from cpsolve.puzzle.grid import GRIDS

    counts = {name: len(design.pool_from(name)[0]) for name in design.POOLS}
    assert [counts[n] for n in ("moniamonds", "diamonds", "triamonds", "tetriamonds", "pentiamonds",
                                "hexiamonds")] == [1, 1, 1, 3, 4, 12]
    assert [counts[f"square-balls-{k}"] for k in range(1, 6)] == [1, 1, 2, 5, 12]
    assert [counts[f"triangular-balls-{k}"] for k in range(1, 6)] == [1, 1, 3, 7, 22]
    for name, (grid, _) in design.POOLS.items():
        g = GRIDS[grid]
        for shape in design.pool_from(name)[0].values():
            assert g.check_cells(shape) is None and g.is_connected(shape), (name, shape)
    with pytest.raises(CpsolveError, match="on different grids"):
        design.pool_from("tricubes,triamonds")


def test_design_pieces_on_the_prism_and_sphere_grids(tmp_path: Path) -> None:
    """Sets of polyiamonds filling a 6x2 board of triangles, and of flat ball pieces filling the balls of a
    3x3x2 box, in exactly one way: each file written says its grid and enumerates to one class."""
    for pool, box, want in (("triamonds,tetriamonds,pentiamonds", "6x2x1", "prisms"),
                            ("square-balls-2,square-balls-3,square-balls-4", "3x3x2", "spheres")):
        out = tmp_path / f"{want}.jsonl"
        proc = run_cli("design", "pieces", "--box", box, "--pool", pool, "--copies", "2", "--out", str(out),
                       "--puzzles", str(tmp_path / want), "--json", "--quiet")
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout)
        assert summary["unique"] >= 1 and summary["puzzle_files"] == min(20, summary["unique"])
        for path in sorted((tmp_path / want).iterdir())[:3]:
            assert f"grid: {want}" in path.read_text(encoding="utf-8")
            got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
            assert got.returncode == 0, got.stderr
            assert json.loads(got.stdout)["unique_symmetry"] == 1


@pytest.mark.parametrize("model, change", [("hexagon-prism-8", "fix"), ("hexiamonds-6x6", "mark"),
                                           ("ball-tetrahedron-20", "fix"), ("ball-tetrahedron-20", "mark")])
def test_design_unique_on_the_grids_is_proved_by_enumeration(model: str, change: str, tmp_path: Path) -> None:
    """Fixes and marks on the prism and sphere grids: each suggestion's file says its grid, keeps every cell
    of the grid's kind where it was (legal translations only), and enumerates to exactly one assembly."""
    from cpsolve.puzzle.catalog import load

    proc = run_cli("design", "unique", model, "--change", change, "--limit", "2", "--puzzles", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2
    grid = load(model).grid
    for path in files:
        assert f"grid: {grid}" in path.read_text(encoding="utf-8")
        got = run_cli("enumerate", str(path), "--json", "--no-save", "--quiet")
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout)["total"] == 1


PRISM_SPARE = """
name: prism-spare
grid: prisms
container:
  layers: [['####', '##++']]
pieces:
  a: {layers: [['####']]}
  b: {layers: [['##']]}
"""

TETRA_SPARE = """
name: tetra-spare
grid: tetra-octa
container:
  layers: [['..#', '...', '#..'], ['...', '.#.', '...'], ['+..', '...', '..+']]
pieces:
  a: {cells: [[1, 1, 1], [2, 0, 0]]}
  b: {cells: [[0, 0, 2]]}
"""


def test_design_unique_holes_refused_on_tetra_octa() -> None:
    """On the tetra-octa grid holes are refused (two shapes of cell: no one hole piece stands for all);
    holes on the prism grid are checked with the others above."""
    from cpsolve.analysis.design import unique
    from cpsolve.api import puzzle_from_yaml
    from cpsolve.errors import CpsolveError

    with pytest.raises(CpsolveError, match="holes are not searched on the tetra-octa grid"):
        unique.suggest_changes(puzzle_from_yaml(TETRA_SPARE), "hole")


# --------------------------------------------------------------------- design pieces: by level

TWIST = PUZZLES / "twist-cube.yaml"
"""Four pieces that fill a 3x3x3 box in one way only and do not come apart by slides: after B and C slide
out together, they are locked; a quarter turn of C opens them (level 1.1R1 with turns)."""


def test_design_pieces_by_level_with_and_without_turns(tmp_path: Path) -> None:
    """`design pieces --min-level`: the twist cube's set packs the box in one way, but its class does not
    come apart by slides: below the level, its line says "stuck"; with --rotations it comes apart at
    1.1R1 (the disassembler's own level of the puzzle file) and is kept, written as a puzzle file that
    says how it was made; asked for 1R2 (3 moves before the first part comes free) it is below again,
    since 1.1R1 takes 1. Without a level nothing changes: unique, no level in the line."""
    def run(*extra: str) -> tuple[dict[str, object], dict[str, object]]:
        out = tmp_path / "d.jsonl"
        proc = run_cli("design", "pieces", "--box", "3x3x3", "--pool-file", str(TWIST), "-o", str(out), "--json",
                       "-q", "-w", "1", *extra)
        assert proc.returncode == 0, proc.stderr
        (line,) = [json.loads(x) for x in out.read_text().splitlines()]
        return json.loads(proc.stdout), line

    summary, line = run()
    assert summary["unique"] == 1 and "below_level" not in summary and "level" not in line
    assert (line["total"], line["unique_symmetry"]) == (24, 1)
    summary, line = run("--min-level", "1")
    assert (summary["unique"], summary["below_level"]) == (0, 1)
    assert line["status"] == "below-level" and line["level"] == "stuck"
    folder = tmp_path / "p"
    summary, line = run("--min-level", "1", "--rotations", "--puzzles", str(folder))
    assert (summary["unique"], summary["below_level"], summary["puzzle_files"]) == (1, 0, 1)
    assert line["status"] == "unique" and line["level"] == "1.1R1"
    (made,) = folder.iterdir()
    assert "--min-level 1 --rotations" in made.read_text()
    got = run_cli("disassemble", str(made), "--rotations", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["level"] == "1.1R1"
    summary, line = run("--min-level", "1R2", "--rotations")
    assert line["status"] == "below-level" and line["level"] == "1.1R1"


def test_design_pieces_level_at_one_keeps_every_unique_design(tmp_path: Path) -> None:
    """On a thin box every unique design comes apart at once: --min-level 1 keeps the same designs as no
    level (each line at level 1), --min-level 2 moves every one of them below the level."""
    def rows(*extra: str) -> list[dict[str, object]]:
        out = tmp_path / "d.jsonl"
        proc = run_cli("design", "pieces", "--box", "2x2x3", "-o", str(out), "-q", "-w", "1", *extra)
        assert proc.returncode == 0, proc.stderr
        return [json.loads(x) for x in out.read_text().splitlines()]

    plain = [r for r in rows() if r["status"] == "unique"]
    assert len(plain) == 5
    at_one = rows("--min-level", "1")
    assert [r["pieces"] for r in at_one if r["status"] == "unique"] == [r["pieces"] for r in plain]
    assert all(r["level"] == "1" for r in at_one if r["status"] == "unique")
    at_two = rows("--min-level", "2")
    assert not any(r["status"] == "unique" for r in at_two)
    assert [r["pieces"] for r in at_two if r["status"] == "below-level"] == [r["pieces"] for r in plain]


@pytest.mark.parametrize("args, start", [
    (("--min-level", "x"), "cpsolve: error: --min-level: a level is written like"),
    (("--rotations",), "cpsolve: error: --rotations: quarter turns count only towards a level"),
    (("--min-level", "1", "--rotation-clearance", "0.1"), "cpsolve: error: --rotation-clearance: "),
    (("--min-level", "1", "--pool", "square-balls-2"), "cpsolve: error: --min-level: BurrTools has no disassembler"),
    (("--min-level", "1", "--pool", "triamonds", "--rotations"), "cpsolve: error: --rotations: quarter turns are"),
])
def test_design_pieces_level_options_bad_input_is_one_line(args: tuple[str, ...], start: str) -> None:
    proc = run_cli("design", "pieces", "--box", "2x2x2", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(start) and proc.stderr.strip().count("\n") == 0
