"""The compiled engine against its Python twin (`cpsolve/search/xcover_twin.py`), and its searches
(list, transposed, dancing links) and builds (bitboards of 512 and of 2048 cells) against each other.

The twin makes the engine's choices in plain Python, so these tests pin every rule the C engine
follows: not only the same solutions but the same order and the same numbers of nodes, dead ends and
list entries scanned. `transposed=N` makes the C engine switch to its transposed search once a list
has at most N entries; small N force the switch on these tiny problems, 0 never switches.
`links=True` takes the dancing-links layout (what containers of more than 512 cells get) on any size.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import FACE_STEPS
from cpsolve.search import xcover_twin
from cpsolve.search._xcover import Engine
from cpsolve.search._xcover_wide import Engine as WideEngine
from cpsolve.search.backends.dlx import build_engine
from cpsolve.search.enumeration import prepare
from cpsolve.search.parts import subproblems

SWITCHES = (0, 1, 3, 8, 64, 512)
"""List lengths at which the C engine turns to the transposed search (0: never)."""


@st.composite
def instances(draw):
    """Pieces of sizes 1-3 with 1-3 copies over a line of cells, sometimes with ranges (low < count),
    optional cells, and rows that are not face-connected."""
    n_pieces = draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 3)) for _ in range(n_pieces)]
    counts = [draw(st.integers(1, 3)) for _ in range(n_pieces)]
    low = [draw(st.integers(0, c)) for c in counts] if draw(st.booleans()) else None
    n_cells = sum(s * c for s, c in zip(sizes, counts, strict=True)) + draw(st.integers(0, 2))
    rows = []
    for p, size in enumerate(sizes):
        for _ in range(draw(st.integers(1, 9))):
            if draw(st.booleans()):  # a segment of the line: connected
                start = draw(st.integers(0, n_cells - size))
                rows.append((p, tuple(range(start, start + size))))
            else:
                cells = draw(st.sets(st.integers(0, n_cells - 1), min_size=size, max_size=size))
                rows.append((p, tuple(sorted(cells))))
    rows.sort()  # the engine's rows come grouped by piece
    optional = sorted(draw(st.sets(st.integers(0, n_cells - 1), max_size=3))) if draw(st.booleans()) else None
    return n_cells, counts, rows, low, optional


def c_search(engine, forced=(), transposed=512, region_pruning=True):
    found = []
    out = engine.search(found.append, forced=forced, transposed=transposed, region_pruning=region_pruning)
    assert out["status"] == "complete"
    return found, (out["solutions"], out["nodes"], out["dead"], out["scanned"])


def twin_search(args, forced=(), region_pruning=True):
    result = xcover_twin.search(*args, forced=forced, region_pruning=region_pruning)
    return result.solutions, (len(result.solutions), result.nodes, result.dead, result.scanned)


@settings(max_examples=300, deadline=None)
@given(instances(), st.booleans(), st.booleans())
def test_engine_matches_twin(instance, with_neighbors, region_pruning):
    n_cells, counts, rows, low, optional = instance
    neighbors = [[c - 1] * (c > 0) + [c + 1] * (c + 1 < n_cells) for c in range(n_cells)] if with_neighbors else None
    args = (n_cells, counts, [p for p, _ in rows], [cells for _, cells in rows], neighbors, low, optional)
    engine = Engine(*args)
    want = twin_search(args, region_pruning=region_pruning)
    for switch in SWITCHES:
        assert c_search(engine, transposed=switch, region_pruning=region_pruning) == want, switch
    assert c_search(Engine(*args, links=True), region_pruning=region_pruning) == want


def test_engine_matches_twin_with_forced_rows():
    # 2x3 cells in a line, dominoes (3 copies) and monominoes (2 copies, 0..2 used)
    rows = [(0, (0, 1)), (0, (1, 2)), (0, (2, 3)), (0, (3, 4)), (0, (4, 5)), (1, (0,)), (1, (3,)), (1, (5,))]
    args = (6, [3, 2], [p for p, _ in rows], [c for _, c in rows], None, [0, 0], None)
    engine, links = Engine(*args), Engine(*args, links=True)
    for forced in [(), (0,), (2,), (5, 6)]:
        want = twin_search(args, forced=forced)
        assert want[1][0] > 0 or forced == (5, 6)
        for switch in SWITCHES:
            assert c_search(engine, forced=forced, transposed=switch) == want
        assert c_search(links, forced=forced) == want


@pytest.mark.parametrize("model", ["soma", "t-tetracube-6x6x2"])
def test_models_match_twin_and_both_searches(model):
    """A real packing, every kept key placement: the twin, the list search, the transposed search and
    the links find the same solutions in the same order with the same node counts."""
    prepared = prepare(load(model))
    problem = prepared.broken.problem
    engine = build_engine(problem)
    links = build_engine(problem, chosen="links")
    index = problem.cell_index
    neighbors = [[index[q] for dx, dy, dz in FACE_STEPS if (q := (x + dx, y + dy, z + dz)) in index]
                 for x, y, z in problem.cells]
    args = (problem.n_cells, problem.piece_counts, [r.piece for r in problem.rows], [r.cells for r in problem.rows],
            neighbors, problem.piece_low, problem.optional)
    totals = {switch: [0, 0, 0, 0] for switch in (0, 512, "twin", "links")}
    for forced in subproblems(prepared.broken):
        want = twin_search(args, forced=forced)
        for key, (found, stats) in [("twin", want), (0, c_search(engine, forced, 0)), (512, c_search(engine, forced)),
                                    ("links", c_search(links, forced))]:
            assert found == want[0]
            totals[key] = [a + b for a, b in zip(totals[key], stats, strict=True)]
    assert totals[0] == totals[512] == totals["twin"] == totals["links"]
    # the solutions each row set stands for: Soma 11520 assemblies = 480 rotation classes found here
    assert totals[0][0] == {"soma": 480, "t-tetracube-6x6x2": 136}[model]



def _parts_to_the_end(search, start=(), budget=1):
    """Search `start`, then every prefix given back, until none is left: (solutions, nodes, dead, parts)."""
    found, nodes, dead, runs, todo = [], 0, 0, 0, [start]
    while todo:
        sols, n, d, rest = search(todo.pop(0), budget)
        found += sols
        nodes, dead, runs = nodes + n, dead + d, runs + 1
        todo += rest
    return sorted(found), nodes, dead, runs


@settings(max_examples=200, deadline=None)
@given(instances(), st.integers(1, 12))
def test_budget_gives_back_the_same_rest_as_the_twin_and_loses_nothing(instance, budget):
    """A node budget hands the unsearched rest back as prefixes: the C engine (list and transposed)
    and the twin give back the same prefixes in the same order, and searching them all, giving back
    again, finds every solution once and meets exactly the nodes of one uninterrupted search."""
    n_cells, counts, rows, low, optional = instance
    args = (n_cells, counts, [p for p, _ in rows], [cells for _, cells in rows], None, low, optional)
    engine, links = Engine(*args), Engine(*args, links=True)
    twin = xcover_twin.search(*args, budget=budget)
    for switch in (*SWITCHES, "links"):
        found = []
        out = (links.search(found.append, budget=budget) if switch == "links"
               else engine.search(found.append, transposed=switch, budget=budget))
        assert (found, out["nodes"], out["dead"], out["rest"]) == (twin.solutions, twin.nodes, twin.dead, twin.rest)
    assert not twin.rest or twin.nodes >= budget  # never before the budget (dead arrivals count too)
    whole = xcover_twin.search(*args)

    def c_part(forced, budget, engine=engine):
        found = []
        out = engine.search(found.append, forced=forced, budget=budget)
        return found, out["nodes"], out["dead"], out["rest"]

    def links_part(forced, budget):
        return c_part(forced, budget, links)

    def twin_part(forced, budget):
        r = xcover_twin.search(*args, forced=forced, budget=budget)
        return r.solutions, r.nodes, r.dead, r.rest

    for part in (c_part, links_part, twin_part):
        found, nodes, dead, _ = _parts_to_the_end(part, budget=budget)
        assert (found, nodes, dead) == (sorted(whole.solutions), whole.nodes, whole.dead)


def test_budget_splits_a_real_packing_exactly():
    """Soma's largest key subproblem, given back every 40 nodes: hundreds of parts, the same 207
    solutions and the same nodes and dead ends as the search in one piece."""
    prepared = prepare(load("soma"))
    engine = build_engine(prepared.broken.problem)
    part = subproblems(prepared.broken)[0]
    whole = []
    out = engine.search(whole.append, forced=part)

    def c_part(forced, budget):
        found = []
        o = engine.search(found.append, forced=forced, budget=budget)
        return found, o["nodes"], o["dead"], o["rest"]

    found, nodes, dead, runs = _parts_to_the_end(c_part, part, budget=40)
    assert (len(found), nodes, dead) == (len(whole), out["nodes"], out["dead"]) == (207, 3648, 2080)
    assert found == sorted(whole) and runs > 50


# --- containers of more than 512 cells: the wide bitboards (_xcover_wide) and the links ---------------


@st.composite
def big_instances(draw):
    """513-700 cells in a line, tiled by pieces of sizes 1-3 (the hidden solution), with a few decoy
    placements per piece (segments or scattered cells, and tiles shifted by one cell, which make the
    search branch), sometimes in row order not grouped by piece,
    and sometimes the cells of a few tiles made optional, their piece given a range. Small pieces and
    few decoys keep the trees a few thousand nodes deep at most, so the twin can follow them."""
    n_cells = draw(st.integers(513, 700))
    n_pieces = draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 3)) for _ in range(n_pieces)]
    rng = draw(st.randoms(use_true_random=False))
    tiles: list[tuple[int, tuple[int, ...]]] = []
    at = 0
    while at < n_cells:
        fitting = [p for p in range(n_pieces) if at + sizes[p] <= n_cells]
        p = rng.choice(fitting) if fitting else None
        if p is None:  # the last cells: a monomino piece of their own
            sizes.append(1)
            p, n_pieces = n_pieces, n_pieces + 1
        tiles.append((p, tuple(range(at, at + sizes[p]))))
        at += sizes[p]
    optional: list[int] = []
    low = None
    if draw(st.booleans()):  # a few tiles may stay empty: their cells optional, their pieces ranged
        dropped = rng.sample(range(len(tiles)), draw(st.integers(1, 3)))
        optional = sorted(c for i in dropped for c in tiles[i][1])
        low_counts = [sum(1 for q, _ in tiles if q == p) for p in range(n_pieces)]
        for i in dropped:
            low_counts[tiles[i][0]] -= 1
        low = low_counts
    counts = [sum(1 for q, _ in tiles if q == p) for p in range(n_pieces)]
    rows = list(tiles)
    for p, cells in rng.sample(tiles, draw(st.integers(0, 12))):  # a tile shifted by one cell: a second way
        shift = rng.choice((-1, 1))
        if cells[0] + shift >= 0 and cells[-1] + shift < n_cells:
            rows.append((p, tuple(c + shift for c in cells)))
    for p in range(n_pieces):
        for _ in range(draw(st.integers(0, 4))):
            if rng.random() < 0.5:
                start = rng.randrange(n_cells - sizes[p] + 1)
                rows.append((p, tuple(range(start, start + sizes[p]))))
            else:
                rows.append((p, tuple(sorted(rng.sample(range(n_cells), sizes[p])))))
    rows = list(dict.fromkeys(rows))  # a decoy equal to a tile would only double every solution
    if draw(st.booleans()):
        rows.sort()
    else:
        rng.shuffle(rows)
    return n_cells, counts, rows, low, optional or None


@settings(max_examples=40, deadline=None)
@given(big_instances(), st.integers(0, 40))
@pytest.mark.slow
def test_big_containers_match_the_twin_in_every_layout(instance, budget):
    """Past 512 cells: the wide bitboards and the links make the twin's choices, node for node, and
    give back the same prefixes under a node budget (0: none)."""
    n_cells, counts, rows, low, optional = instance
    neighbors = [[c - 1] * (c > 0) + [c + 1] * (c + 1 < n_cells) for c in range(n_cells)]
    args = (n_cells, counts, [p for p, _ in rows], [cells for _, cells in rows], neighbors, low, optional)
    twin = xcover_twin.search(*args, budget=budget)
    want = (twin.solutions, twin.nodes, twin.dead, twin.scanned, twin.rest)
    assert twin.solutions or twin.rest or optional  # the hidden tiling is a solution
    for engine in (WideEngine(*args), Engine(*args)):  # 513+ cells: Engine takes the links itself
        found = []
        out = engine.search(found.append, budget=budget)
        assert (found, out["nodes"], out["dead"], out["scanned"], out["rest"]) == want
    pruned = xcover_twin.search(*args, region_pruning=True)
    for engine in (WideEngine(*args), Engine(*args)):
        found = []
        out = engine.search(found.append, region_pruning=True)
        assert (found, out["nodes"], out["dead"], out["scanned"]) == (pruned.solutions, pruned.nodes, pruned.dead,
                                                                      pruned.scanned)


@settings(max_examples=8, deadline=None)
@given(big_instances())
@pytest.mark.slow
def test_big_containers_agree_with_the_other_backends(instance):
    """Past 512 cells through the backends: dlx (links: many copies a piece) finds exactly the
    solutions of the python backend and of sat, which share no code with it."""
    from cpsolve.problem.placements import ExactCoverProblem, Row
    from cpsolve.search.backends import get_backend

    n_cells, counts, rows, low, optional = instance
    assume(Engine(n_cells, counts, [p for p, _ in rows], [cells for _, cells in rows], piece_low=low,
                  optional=optional).search(None, max_solutions=301)["solutions"] <= 300)  # sat pays per solution
    problem = ExactCoverProblem("big", tuple((c, 0, 0) for c in range(n_cells)),
                                tuple(f"P{p}" for p in range(len(counts))), tuple(counts),
                                tuple(Row(p, cells) for p, cells in rows), optional=tuple(optional or ()),
                                piece_minimums=tuple(low) if low else ())
    found = {}
    for name in ("dlx", "python", "sat"):
        solutions: list[tuple[int, ...]] = []
        stats = get_backend(name).search(problem, solutions.append)
        assert stats.status.value == "complete", name
        found[name] = sorted(solutions)
    assert found["dlx"] == found["python"] == found["sat"]
    assert found["dlx"] or optional


def test_each_problem_gets_the_layout_its_size_copies_and_memory_call_for(monkeypatch):
    """`dlx.layout`: bitboards up to 512 cells; past them wide bitboards while pieces have few copies
    (designers' puzzles), links when they have many; links too when the bitboards' lists would pass
    BITBOARD_BYTES, at any size, and the counts stay right on them."""
    from cpsolve.problem.placements import ExactCoverProblem, Row
    from cpsolve.search.backends import dlx

    soma = prepare(load("soma")).problem
    assert dlx.layout(soma) == "bitboards"

    def line(n_cells: int, copies: int) -> ExactCoverProblem:  # dominoes along a line, `copies` of each shape
        shapes = n_cells // 2 // copies
        return ExactCoverProblem("line", tuple((c, 0, 0) for c in range(n_cells)),
                                 tuple(f"D{p}" for p in range(shapes)), (copies,) * shapes,
                                 tuple(Row(r % shapes, (2 * r, 2 * r + 1)) for r in range(n_cells // 2)))

    assert [dlx.layout(line(600, k)) for k in (1, 2, 3, 100)] == ["wide", "wide", "links", "links"]
    assert dlx.layout(line(2100, 1)) == "links"  # past the wide bitboards' 2048 cells
    monkeypatch.setattr(dlx, "BITBOARD_BYTES", 0)  # as if every problem's lists were too large
    broken = prepare(load("soma")).broken
    assert dlx.layout(soma) == dlx.layout(broken.problem) == "links"
    backend = dlx.DlxBackend()
    found = sum(backend.search(broken.problem, lambda rows: None, forced=s).solutions for s in broken.starts)
    assert found == 480  # Soma's 11520 assemblies, one per rotation class with its key (as above)
