"""Optional cells, piece ranges, colour constraints and groups, checked against brute force.

Each tiny random puzzle is solved by every backend, with and without symmetry breaking, and the three
counts must equal what the definitions give: solutions are sets of (piece, cells) placements that
are disjoint, cover every required cell, use each piece within its range and put every coloured
piece cell on an allowed container cell; classes are orbits under the isometries that map the
container's required cells, optional cells and colours onto themselves (reflections swapping each
piece with its mirror partner, when the piece set has them). The placements and the search here
are written independently of cpsolve's (an include/exclude scan over every turned copy).
"""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsolve.errors import CpsolveError
from cpsolve.problem.placements import packing_problem
from cpsolve.puzzle.geometry import ALL_TRANSFORMS, ROTATIONS, box_cells, rotation_key
from cpsolve.puzzle.loader import parse_puzzle_text
from cpsolve.puzzle.model import Piece, Puzzle, to_puzzle
from cpsolve.search.backends import get_backend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.settings import RunSettings

BACKENDS = ("python", "dlx", "cpsat", "sat")
Cell = tuple[int, int, int]


def random_partition(cells: list[Cell], n_pieces: int, rng: random.Random) -> list[list[Cell]]:
    inside = set(cells)
    owner = {c: i for i, c in enumerate(rng.sample(cells, n_pieces))}
    while len(owner) < len(cells):
        c = rng.choice(list(owner))
        step = rng.choice(((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)))
        q = (c[0] + step[0], c[1] + step[1], c[2] + step[2])
        if q in inside and q not in owner:
            owner[q] = owner[c]
    return [[c for c, o in owner.items() if o == i] for i in range(n_pieces)]


def _norm(cells):
    lo = [min(c[i] for c in cells) for i in range(3)]
    return tuple(sorted((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]) for c in cells))


# ------------------------------------------------------------------ brute force from the definitions


def brute_placements(piece: Piece, puzzle: Puzzle) -> set[frozenset[Cell]]:
    inside = set(puzzle.container)
    paint = dict(puzzle.container_colors)
    colours = dict(piece.colors)
    out = set()
    for t in ROTATIONS:
        moved = {c: t.apply(c) for c in piece.shape}
        for anchor in puzzle.container:
            first = min(moved.values())
            d = (anchor[0] - first[0], anchor[1] - first[1], anchor[2] - first[2])
            placed = {src: (m[0] + d[0], m[1] + d[1], m[2] + d[2]) for src, m in moved.items()}
            if not set(placed.values()) <= inside:
                continue
            ok = all(not colours.get(src) or not paint.get(dst) or (colours[src], paint[dst]) in puzzle.color_rules
                     for src, dst in placed.items())
            if ok:
                out.add(frozenset(placed.values()))
    return out


def brute_solutions(puzzle: Puzzle) -> set[frozenset]:
    options = [(p.name, cells) for p in puzzle.pieces for cells in sorted(brute_placements(p, puzzle), key=sorted)]
    bounds = {p.name: (p.low, p.count) for p in puzzle.pieces}
    required = set(puzzle.required)
    found: set[frozenset] = set()

    def scan(i: int, used: frozenset, chosen: list, counts: dict) -> None:
        if i == len(options):
            if required <= used and all(bounds[n][0] <= counts.get(n, 0) for n in bounds):
                found.add(frozenset(chosen))
            return
        scan(i + 1, used, chosen, counts)
        name, cells = options[i]
        if counts.get(name, 0) < bounds[name][1] and used.isdisjoint(cells):
            counts[name] = counts.get(name, 0) + 1
            chosen.append((name, cells))
            scan(i + 1, used | cells, chosen, counts)
            chosen.pop()
            counts[name] -= 1

    scan(0, frozenset(), [], {})
    return found


def brute_group(puzzle: Puzzle):
    """(transform, cell map) for every isometry keeping required, optional and colour classes."""
    kind = {c: (c in set(puzzle.optional), dict(puzzle.container_colors).get(c)) for c in puzzle.container}
    lo = [min(c[i] for c in puzzle.container) for i in range(3)]
    out = []
    for t in ALL_TRANSFORMS:
        moved = {c: t.apply(c) for c in puzzle.container}
        mlo = [min(m[i] for m in moved.values()) for i in range(3)]
        cmap = {c: (m[0] - mlo[0] + lo[0], m[1] - mlo[1] + lo[1], m[2] - mlo[2] + lo[2]) for c, m in moved.items()}
        if all(d in kind and kind[d] == kind[c] for c, d in cmap.items()):
            out.append((t, cmap))
    return out


def brute_counts(puzzle: Puzzle) -> tuple[int, int, int]:
    sols = brute_solutions(puzzle)
    group = brute_group(puzzle)
    partners = puzzle.mirror_partners()
    names = [p.name for p in puzzle.pieces]

    def classes(elements, mirror):
        seen, n = set(), 0
        for sol in sols:
            if sol in seen:
                continue
            orbit = set()
            for t, cmap in elements:
                relabel = (lambda n_: names[partners[names.index(n_)]]) if t.is_reflection else (lambda n_: n_)
                orbit.add(frozenset((relabel(name), frozenset(cmap[c] for c in cells)) for name, cells in sol))
            assert orbit <= sols  # the group maps solutions to solutions
            seen |= orbit
            n += 1
        return n

    rotations = [(t, m) for t, m in group if not t.is_reflection]
    by_rotation = classes(rotations, None)
    by_symmetry = classes(group, partners) if partners is not None else by_rotation
    return len(sols), by_rotation, by_symmetry


def assert_counts(puzzle: Puzzle, backends=BACKENDS) -> tuple[int, int, int]:
    expected = brute_counts(puzzle)
    for breaking in (True, False):
        prepared = prepare(puzzle, breaking)
        for name in backends:
            result = enumerate_classes(prepared, RunSettings(get_backend(name)))
            got = (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry)
            assert got == expected, (name, breaking, puzzle)
    return expected


# ------------------------------------------------------------------ random puzzles per feature

boxes = st.sampled_from([(2, 2, 2), (1, 2, 4), (2, 2, 3), (1, 3, 3), (2, 3, 2)])


def _pieces(parts, rng: random.Random, ranges: bool) -> tuple[Piece, ...]:
    shapes: dict[tuple, int] = {}
    for cells in parts:
        key = rotation_key(cells)
        shapes[key] = shapes.get(key, 0) + 1
    out = []
    for i, (shape, count) in enumerate(shapes.items()):
        if ranges:
            low, high = rng.randint(0, count), count + rng.randint(0, 1)
            out.append(Piece(f"P{i}", shape, high, None, low if low != high else None))
        else:
            out.append(Piece(f"P{i}", shape, count))
    return tuple(out)


@settings(max_examples=12, deadline=None)
@given(size=boxes, n_pieces=st.integers(2, 4), extra=st.integers(0, 2), seed=st.integers(0, 10**6))
def test_optional_cells(size, n_pieces, extra, seed):
    rng = random.Random(seed)
    cells = list(box_cells(size))
    parts = random_partition(cells, n_pieces, rng)
    left_out = parts.pop(rng.randrange(len(parts)))  # its cells may stay empty
    optional = set(left_out) | set(rng.sample(cells, extra))
    puzzle = Puzzle("optional", box_cells(size), _pieces(parts, rng, False), optional=tuple(sorted(optional)))
    total, _, _ = assert_counts(puzzle)
    assert total >= 1  # the partition itself is a solution


@settings(max_examples=12, deadline=None)
@given(size=boxes, n_pieces=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_piece_ranges(size, n_pieces, seed):
    rng = random.Random(seed)
    cells = list(box_cells(size))
    parts = random_partition(cells, n_pieces, rng)
    puzzle = Puzzle("ranges", box_cells(size), _pieces(parts, rng, True))
    total, _, _ = assert_counts(puzzle)
    assert total >= 1


@settings(max_examples=12, deadline=None)
@given(size=boxes, n_pieces=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_ranges_with_optional_cells(size, n_pieces, seed):
    rng = random.Random(seed)
    cells = list(box_cells(size))
    parts = random_partition(cells, n_pieces, rng)
    optional = tuple(sorted(rng.sample(cells, rng.randint(1, 3))))
    puzzle = Puzzle("both", box_cells(size), _pieces(parts, rng, True), optional=optional)
    assert_counts(puzzle)


@settings(max_examples=12, deadline=None)
@given(size=boxes, n_pieces=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_colour_constraints(size, n_pieces, seed):
    rng = random.Random(seed)
    cells = list(box_cells(size))
    parts = random_partition(cells, n_pieces, rng)
    names = ("red", "blue")
    container_colors = tuple(sorted((c, rng.choice(names)) for c in rng.sample(cells, rng.randint(1, len(cells)))))
    paint = dict(container_colors)
    pieces = []
    for i, part in enumerate(parts):  # pieces coloured as they sit in the partition: a solution exists
        lo = [min(c[i] for c in part) for i in range(3)]
        shape = _norm(part)
        colors = tuple(sorted(((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]), paint[c]) for c in part
                              if c in paint and rng.random() < 0.5))
        pieces.append(Piece(f"P{i}", shape, 1, None, None, colors))
    rules = frozenset({("red", "red"), ("blue", "blue")} | ({("red", "blue")} if rng.random() < 0.3 else set()))
    puzzle = Puzzle("colours", box_cells(size), tuple(pieces), container_colors=container_colors, color_rules=rules)
    try:
        packing_problem(puzzle)
    except CpsolveError as exc:  # a symmetric piece with asymmetric colours: refused, not miscounted
        assert "two colourings" in str(exc)
        return
    total, _, _ = assert_counts(puzzle)
    assert total >= 1


def test_colours_break_the_container_symmetry():
    # A 1x1x2 domino and two monominoes in a 1x1x4 rod: 3 assemblies, 2 up to the rod's symmetry;
    # colouring one end red leaves only the turns about the rod's axis, which identify nothing.
    domino = ((0, 0, 0), (0, 0, 1))
    plain = Puzzle("plain", box_cells((1, 1, 4)), (Piece("D", domino, 2),))
    assert assert_counts(plain) == (1, 1, 1)
    mono = Puzzle("mono", box_cells((1, 1, 4)), (Piece("D", domino), Piece("M", ((0, 0, 0),), 2)))
    assert assert_counts(mono) == (3, 2, 2)
    red = Puzzle("red", box_cells((1, 1, 4)), (Piece("D", domino), Piece("M", ((0, 0, 0),), 2)),
                 container_colors=(((0, 0, 0), "red"),))
    assert assert_counts(red) == (3, 3, 3)
    # the rod has 16 symmetries; the 8 that keep its red end in place turn it about its own axis
    assert (len(prepare(mono).group), len(prepare(red).group)) == (16, 8)


def test_a_piece_that_may_be_absent_is_never_the_key():
    # Two monominoes, each optional, and a domino in a 1x1x3 rod with optional end cells.
    puzzle = Puzzle("absent", box_cells((1, 1, 3)),
                    (Piece("D", ((0, 0, 0), (0, 0, 1))), Piece("M", ((0, 0, 0),), 1, None, 0)),
                    optional=((0, 0, 0), (0, 0, 2)))
    prepared = prepare(puzzle)
    assert prepared.broken.key.name == "D"
    # D low or high, with M beside it or not; turning the rod end over end pairs them up
    assert assert_counts(puzzle) == (4, 2, 2)


def test_groups_are_carried_and_do_not_change_counts():
    text = """
name: grouped
container: {box: [1, 1, 3]}
pieces:
  A: {cells: [[0, 0, 0]]}
  B: {cells: [[0, 0, 0]]}
  C: {cells: [[0, 0, 0]]}
groups: [[A, B]]
"""
    puzzle = to_puzzle(parse_puzzle_text(text, "grouped.yaml"))
    assert puzzle.groups == (frozenset({"A", "B"}),)
    assert assert_counts(puzzle) == (6, 3, 3)
    with pytest.raises(CpsolveError, match="unknown piece 'Z'"):
        to_puzzle(parse_puzzle_text(text.replace("[[A, B]]", "[[A, Z]]"), "bad.yaml"))


def test_file_format_features():
    text = """
name: features
container:
  layers: [["#+#"]]
  cell_colors: {red: [[0, 0, 0]]}
pieces:
  M: {cells: [[0, 0, 0]], count: {min: 1, max: 3}, cell_colors: {red: [[0, 0, 0]]}}
color_rules: {red: [red]}
"""
    puzzle = to_puzzle(parse_puzzle_text(text, "f.yaml"))
    assert puzzle.optional == ((1, 0, 0),)
    assert (puzzle.pieces[0].low, puzzle.pieces[0].count) == (1, 3)
    # red monominoes may only sit on red cells or uncoloured ones: cells 0 and 1 (optional), 2 must be
    # covered -> every solution covers 0 and 2, optionally 1.
    assert assert_counts(puzzle) == (2, 2, 2)
    for bad, message in (
        ('count: {min: 4, max: 3}', "min 4 is larger than max 3"),
        ('count: {min: 4, max: 5}', "cannot lie between the 2 required cells and all 3 cells"),
    ):
        with pytest.raises(CpsolveError, match=message):
            to_puzzle(parse_puzzle_text(text.replace("count: {min: 1, max: 3}", bad), "bad.yaml"))
    with pytest.raises(CpsolveError, match="unknown drawing character"):
        parse_puzzle_text(text.replace('"#+#"', '"#x#"'), "bad.yaml")


def test_unsupported_features_are_refused_in_one_line():
    # the xcc export and every backend take every feature; a chain takes none of them
    text = """
name: chain
kind: chain
container: {box: [3, 1, 1], optional: [[0, 0, 0]]}
chain: {segments: [3]}
"""
    with pytest.raises(CpsolveError, match="no optional cells"):
        parse_puzzle_text(text, "c.yaml")


def test_xcc_export_of_features():
    from cpsolve.output.exchange import write_xcc

    pieces = (Piece("D", ((0, 0, 0), (0, 0, 1))), Piece("M", ((0, 0, 0),), 2, None, 0))
    puzzle = Puzzle("x", box_cells((1, 1, 3)), pieces, optional=((0, 0, 2),))
    text = write_xcc(packing_problem(puzzle))
    items = [line for line in text.splitlines() if not line.startswith("|")][0]
    assert items == "x0y0z0 x0y0z1 D 0:2|M | x0y0z2"


@pytest.mark.parametrize("a, b", list(product((0, 1), repeat=2)))
def test_check_solution_of_ranges_and_optional_cells(a, b):
    puzzle = Puzzle("x", box_cells((1, 1, 3)), (Piece("M", ((0, 0, 0),), 3, None, 1),), optional=((0, 0, 0), (0, 0, 1)))
    problem = packing_problem(puzzle)
    wanted = [(2,)] + ([(0,)] if a else []) + ([(1,)] if b else [])
    rows = [r for r, row in enumerate(problem.rows) if row.cells in wanted]
    assert problem.check_solution(rows) is None
    assert problem.check_solution([r for r in rows if problem.rows[r].cells != (2,)]) is not None
