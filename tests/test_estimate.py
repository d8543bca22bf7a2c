"""Knuth's estimate of the search tree: the compiled walks against their twin, against the real
tree, and the key choice it drives."""

from __future__ import annotations

import pytest
from conftest import run_cli

from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import build_engine
from cpsolve.search.enumeration import plan, prepare, subproblems
from cpsolve.search.estimate import estimate, part_sizes, probe_values, walks_per_start


@pytest.mark.parametrize("model", ["soma", "cubissimo", "slothouber-graatsma", "t-tetracube-6x6x2"])
def test_compiled_walks_equal_the_python_twin(model):
    """Same random sequence, same tree: the same estimate, walk for walk."""
    broken = prepare(load(model)).broken
    starts = subproblems(broken)
    assert probe_values(broken.problem, starts, 60, seed=7) == probe_values(broken.problem, starts, 60, seed=7,
                                                                            compiled=False)


@pytest.mark.parametrize("model", ["soma", "cubissimo", "slothouber-graatsma"])
def test_estimate_is_close_to_the_real_tree(model):
    """The mean of the walks estimates the nodes the engine visits (without its pocket pruning)."""
    broken = prepare(load(model)).broken
    starts = subproblems(broken)
    engine = build_engine(broken.problem)
    real = sum(engine.search(None, forced=s, region_pruning=False)["nodes"] for s in starts)
    est = estimate(broken.problem, starts, probes=20000, seed=11)
    assert abs(est.nodes - real) <= max(5 * est.stderr, 0.02 * real), (est, real)
    assert est.relative_error < 0.1


def test_a_tree_of_one_path_is_estimated_exactly():
    """With one solution and no branching the walk is the tree: no spread at all."""
    puzzle = prepare(load("soma"))
    solution: list[tuple[int, ...]] = []
    build_engine(puzzle.broken.problem).search(lambda rows: solution.append(rows) or True)
    forced = solution[0][:-1]  # all but one piece placed: a single child remains
    est = estimate(puzzle.broken.problem, [forced], probes=50)
    assert (est.nodes, est.stderr) == (2.0, 0.0)


def test_tetris_cube_key_is_chosen_by_tree_size_not_by_representatives():
    """Without a key in its file, the Tetris Cube gets YELLOW1 (30.0 M nodes), not RED2, the piece with
    the fewest representatives (67.9 M nodes: results/engine-profile-tetris-cube.md)."""
    puzzle = load("tetris-cube")
    assert puzzle.key_piece is None
    assert prepare(puzzle).broken.key.name == "YELLOW1"


def test_estimate_command_prints_nodes_and_time():
    proc = run_cli("estimate", "soma", "--probes", "2000")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()[:2]
    nodes = int(first.split("about ")[1].split(" search")[0].replace(",", ""))
    assert 7000 < nodes < 11000 and "key piece" in first  # DLX1 visits 8739 nodes on the same XCC
    assert "s on one core" in second and "nodes/s" in second


def test_puzzles_with_optional_cells_or_ranges_are_not_estimated(tmp_path):
    """The walks fill every cell with exactly each piece's count: with optional cells or ranges they would
    follow another tree, so `estimate` says so in one line and the key choice keeps the cheap rule."""
    path = tmp_path / "opt.yaml"
    path.write_text("name: opt\ncontainer:\n  layers: [['##+', '###']]\npieces:\n"
                    "  A: {cells: [[0,0,0], [1,0,0]]}\n  B: {cells: [[0,0,0], [1,0,0], [2,0,0]]}\n")
    proc = run_cli("estimate", str(path))
    assert proc.returncode == 1
    assert proc.stderr.strip() == "cpsolve: error: opt: the estimate does not model optional cells or piece ranges yet"
    assert prepare(load(str(path))).broken.key.kind in ("piece", "cell", "none")


@pytest.mark.parametrize("model", ["soma", "t-tetracube-6x6x2"])
def test_walks_per_subproblem_equal_the_python_twin(model):
    """`each`: every start walked in turn, unscaled; the compiled walks and the twin agree walk for walk."""
    broken = prepare(load(model)).broken
    parts = plan(broken, 2, 8)[:20]
    values = probe_values(broken.problem, parts, 5, seed=3, each=True)
    assert len(values) == 5 * len(parts)
    assert values == probe_values(broken.problem, parts, 5, seed=3, compiled=False, each=True)


@pytest.mark.parametrize("compiled", [True, False])
def test_each_start_with_its_own_seed_walks_as_if_alone(compiled):
    """`reseed`: start j's walks are those of a call for it alone with seed + j (the key choice's
    estimates, made in one call per job, must not depend on how the starts were grouped)."""
    broken = prepare(load("t-tetracube-6x6x2")).broken
    starts = plan(broken, 2, 8)[:12]
    alone = [probe_values(broken.problem, [s], 4, seed=11 + j, compiled=compiled) for j, s in enumerate(starts)]
    together = probe_values(broken.problem, starts, 4, seed=11, compiled=compiled, each=True, reseed=True)
    assert together == [v for walks in alone for v in walks]
    assert walks_per_start(broken.problem, starts[5:], 4, seed=16) == alone[5:]
    assert len(set(together)) > 4  # the walks really differ: a seed that changed nothing would pass too


@pytest.mark.parametrize("workers", [1, 2])
def test_part_sizes_add_up_to_the_real_tree(workers):
    """The sizes that order a pool's work and drive the ETA: each part's estimate, summed, is the tree,
    whether one process walks or the parts are dealt out to forked ones."""
    broken = prepare(load("cubissimo")).broken
    parts = plan(broken, 2, 16)
    engine = build_engine(broken.problem)
    real = [engine.search(None, forced=p, region_pruning=False)["nodes"] for p in parts]
    sizes = part_sizes(broken.problem, parts, probes=400 * len(parts), seconds=60, workers=workers)
    assert sizes is not None and len(sizes) == len(parts)
    assert abs(sum(sizes) - sum(real)) <= 0.1 * sum(real), (sum(sizes), sum(real))
    # A part that is one forced node (a dead end) is sized exactly.
    assert all(s == 1.0 for s, r in zip(sizes, real, strict=True) if r == 1)


def test_candidates_estimated_on_two_workers_give_the_same_sizes_and_key():
    """The key choice's walks may run in forked workers (a shorter serial start): the same walks, so
    the same sizes to the last bit and the same key, whatever the number of workers."""
    from cpsolve.problem.symmetry import choose_key
    from cpsolve.search.estimate import subtree_estimates

    prepared = prepare(load("tetris-cube"))
    problem = prepared.problem
    seen = []
    choose_key(problem, prepared.group, None, lambda candidates: seen.append(candidates) or candidates[0])
    candidates = seen[0]
    assert len(candidates) == 12
    alone = subtree_estimates(problem, candidates, workers=1)
    assert subtree_estimates(problem, candidates, workers=2) == alone
    assert len(set(alone)) > 1  # the candidates really differ: the comparison means something
    assert prepare(load("tetris-cube"), workers=2).broken.key == prepared.broken.key
