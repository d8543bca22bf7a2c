"""Disassembly: shortest move counts against a brute force, levels, groups, Kaenel sticks, the CLI,
and BurrTools' reference figures (read from ../shared when it is there)."""

from __future__ import annotations

import gc
import gzip
import itertools
import json
import pickle
import random
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import deque
from pathlib import Path

import pytest
from conftest import REPO, run_cli, run_json

from cpsolve.analysis.disassembly import TooManyStates, _rank, disassemble, explore, native_available
from cpsolve.analysis.placed import FOUND, STUCK, TWIN, PlacedDisassembler
from cpsolve.analysis.tables import DIRECTIONS, _PairTable
from cpsolve.analysis.trees import Disassembly, LevelTally, Separation, format_level, parse_level
from cpsolve.api import enumerate as enumerate_solutions
from cpsolve.api import solve
from cpsolve.problem.placements import ExactCoverProblem
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import ROTATIONS, Cell, rotation_key
from cpsolve.puzzle.kaenel import kaenel_stick

SHARED = REPO.parent / "shared" / "burrtools-examples"
NOTCHABLE = [1, 18, 35, 52, 86, 103, 120, 154, 188, 256, 359, 615, 792, 824, 856, 871, 888, 911, 928, 943, 960,
             975, 992, 1007, 1024]
"""The 25 notchable six-piece burr sticks by Kaenel number (puzzlecad, extensible-burr-set.scad, `notchables`)."""


# ----------------------------------------------------------------------------- an independent brute force


def _shift(cells: frozenset[Cell], v: Cell) -> frozenset[Cell]:
    return frozenset((x + v[0], y + v[1], z + v[2]) for x, y, z in cells)


def brute_first_separation(pieces: dict[str, list[Cell]]) -> int | None:
    """Fewest moves until some part slides away, trying every subset of pieces, every direction and
    every amount, each unit step checked for overlaps; None when no sequence separates them."""
    shapes = [frozenset(map(tuple, v)) for v in pieces.values()]
    n = len(shapes)
    everything = [c for s in shapes for c in s]
    far = 2 * max(max(c[i] for c in everything) - min(c[i] for c in everything) for i in range(3)) + 3

    def cells(offs: tuple[Cell, ...], i: int) -> frozenset[Cell]:
        return _shift(shapes[i], offs[i])

    def slides(offs: tuple[Cell, ...], subset: int, d: Cell, k: int) -> bool:
        moving = frozenset().union(*(cells(offs, i) for i in range(n) if subset >> i & 1))
        still = frozenset().union(*(cells(offs, i) for i in range(n) if not subset >> i & 1))
        return all(not (_shift(moving, (d[0] * t, d[1] * t, d[2] * t)) & still) for t in range(1, k + 1))

    def key(offs: tuple[Cell, ...]) -> tuple[Cell, ...]:
        o = offs[0]
        return tuple((a[0] - o[0], a[1] - o[1], a[2] - o[2]) for a in offs)

    start = tuple((0, 0, 0) for _ in range(n))
    seen = {key(start)}
    queue = deque([(start, 0)])
    while queue:
        offs, depth = queue.popleft()
        for subset in range(1, (1 << n) - 1):
            for d in DIRECTIONS:
                if slides(offs, subset, d, far):
                    return depth + 1
                k = 1
                while slides(offs, subset, d, k):
                    new = tuple((o[0] + d[0] * k, o[1] + d[1] * k, o[2] + d[2] * k) if subset >> i & 1 else o
                                for i, o in enumerate(offs))
                    if key(new) not in seen:
                        seen.add(key(new))
                        queue.append((new, depth + 1))
                    k += 1
    return None


def check_moves(pieces: dict[str, list[Cell]], result: Disassembly) -> None:
    """Replay every step of a tree: no move passes two pieces through each other, every removal is real."""
    assert result.separation is not None
    for step in result.separation.steps():
        where = {k: _shift(frozenset(map(tuple, pieces[k])), step.start[k]) for k in step.pieces}
        for m in step.moves:
            others = frozenset().union(*(c for k, c in where.items() if k not in m.pieces))
            moving = {k: where[k] for k in m.pieces}
            units = 60 if m.amount is None else m.amount
            for t in range(1, units + 1):
                v = (m.direction[0] * t, m.direction[1] * t, m.direction[2] * t)
                assert all(not (_shift(c, v) & others) for c in moving.values()), (step.pieces, m)
            if m.amount is not None:
                for k in m.pieces:
                    where[k] = _shift(where[k], tuple(d * m.amount for d in m.direction))  # type: ignore[arg-type]
        assert len(step.removed) * 2 <= len(step.pieces)


# ----------------------------------------------------------------------------- tiny hand-made cases


def capped_layer(rows: list[str]) -> dict[str, list[Cell]]:
    """A frame made of two full plates (z = 0 and z = 2) and the `#` walls of the middle layer, which
    rows draw; letters are pieces in the middle layer, so they can only slide along x and y."""
    w, h = len(rows[0]), len(rows)
    frame = [(x, y, z) for z in (0, 2) for y in range(h) for x in range(w)]
    pieces: dict[str, list[Cell]] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                frame.append((x, y, 1))
            elif ch != ".":
                pieces.setdefault(ch, []).append((x, y, 1))
    return {"frame": frame, **dict(sorted(pieces.items()))}


def test_key_that_must_turn_a_corner_takes_two_moves():
    pieces = capped_layer(["####",
                           "#a.#",
                           "##.#",
                           "##.#"])
    got = disassemble(pieces)
    assert got.level() == (2,) and brute_first_separation(pieces) == 2
    assert [m.text() for m in got.moves()] == ["a +x 1", "a +y out"]
    check_moves(pieces, got)


def test_each_part_is_taken_apart_in_turn():
    pieces = capped_layer(["######",
                           "#ab..#",
                           "####.#"])
    got = disassemble(pieces)
    # b slides to the exit and drops out; then a follows it in the frame: level 2.2
    assert brute_first_separation(pieces) == 2
    assert [m.text() for m in got.moves()] == ["b +x 2", "b +y out", "a +x 3", "a +y out"]
    assert got.level() == (2, 2)
    check_moves(pieces, got)


def test_longer_maze_against_brute_force():
    pieces = capped_layer(["#####",
                           "#a..#",
                           "###.#",
                           "#b..#",
                           "#.###",
                           "#...."])
    got = disassemble(pieces)
    assert got.ok
    assert got.level()[0] == brute_first_separation(pieces)
    check_moves(pieces, got)


def test_random_tiny_frames_match_the_brute_force():
    rng = random.Random(13)
    levels = []
    for _ in range(60):
        rows = ["".join(rng.choice("##..ab") for _ in range(4)) for _ in range(3)]
        pieces = capped_layer(rows)
        if len(pieces) < 3:
            continue
        got = disassemble(pieces)
        expected = brute_first_separation(pieces)
        first = got.level()[0] if got.ok else None
        if got.ok or got.stuck is None or got.stuck.pieces == tuple(pieces):
            # the top level is decided by the BFS alone: same count, or both stuck
            assert first == expected, rows
        if got.ok:
            check_moves(pieces, got)
        levels.append(first)
    assert None in levels and any(v is not None and v > 1 for v in levels)  # the cases are not all trivial


# ----------------------------------------------------------------------------- the C search against its twin

native = pytest.mark.skipif(not native_available(), reason="cpsolve.analysis._disassemble is not built "
                                                           "(no C compiler at install)")


def signature(r: Disassembly) -> tuple[object, ...]:
    """Everything a result says: level, every move, every step's pieces and start, states, stuck report."""
    steps = [] if r.separation is None else [(s.pieces, sorted(s.start.items())) for s in r.separation.steps()]
    stuck = None if r.stuck is None else (r.stuck.pieces, r.stuck.states, r.stuck.locked, r.stuck.start)
    return r.level(), [m.as_json() for m in r.moves()], steps, r.states, stuck


def assert_twins_agree(pieces: dict[str, list[Cell]], groups: tuple[frozenset[str], ...] = ()) -> Disassembly:
    """C and the twin give the same result, choosing between the shortest separations and (as BurrTools)
    keeping the first found; the chosen one is never harder than the first found."""
    fast = disassemble(pieces, groups)
    slow = disassemble(pieces, groups, native=False)
    assert signature(fast) == signature(slow), list(pieces)
    first = disassemble(pieces, groups, first_found=True)
    assert signature(first) == signature(disassemble(pieces, groups, native=False, first_found=True)), list(pieces)
    if first.ok:
        assert fast.ok and fast.level()[0] == first.level()[0]  # type: ignore[index]
        assert _rank(fast.separation) <= _rank(first.separation)  # type: ignore[operator]
    return fast


def random_box(rng: random.Random, size: tuple[int, int, int], letters: str) -> dict[str, list[Cell]]:
    """A frame (the box's shell with a few holes, and some inner cells) and small pieces filling some of
    the inside at random: pieces need not be connected, as rigid shapes they still slide as one."""
    sx, sy, sz = size
    frame: list[Cell] = []
    pieces: dict[str, list[Cell]] = {}
    for x in range(sx):
        for y in range(sy):
            for z in range(sz):
                shell = x in (0, sx - 1) or y in (0, sy - 1) or z in (0, sz - 1)
                ch = ("#" if rng.random() < 0.75 else ".") if shell else rng.choice("#.." + letters * 2)
                if ch == "#":
                    frame.append((x, y, z))
                elif ch != ".":
                    pieces.setdefault(ch, []).append((x, y, z))
    return {"frame": frame, **dict(sorted(pieces.items()))}


@native
def test_c_free_distances_are_the_twins_everywhere_around_two_shapes():
    rng = random.Random(5)
    for _ in range(30):
        a = sorted({(rng.randrange(3), rng.randrange(3), rng.randrange(2)) for _ in range(rng.randrange(1, 7))})
        b = sorted({(rng.randrange(2), rng.randrange(3), rng.randrange(3)) for _ in range(rng.randrange(1, 7))})
        table = _PairTable(a, b)
        from cpsolve.analysis import _disassemble

        context = _disassemble.Disassembler()
        ids = [context.add_shape([v for c in shape for v in c]) for shape in (a, b)]
        for d in itertools.product(range(-7, 8), repeat=3):  # inside the collision box, beside it and beyond it
            if d not in {(p[0] - q[0], p[1] - q[1], p[2] - q[2]) for p in a for q in b}:  # no overlap: a state
                assert context.free(*ids, *d) == table.free(d), (a, b, d)


@native
def test_c_search_agrees_with_the_twin_on_random_frames():
    rng = random.Random(11)
    results = []
    for _ in range(150):
        pieces = random_box(rng, (rng.choice((4, 5)), 4, rng.choice((3, 4))), "abcd"[:rng.choice((2, 3, 4))])
        if len(pieces) < 3:
            continue
        results.append(assert_twins_agree(pieces))
    for _ in range(60):  # flat mazes: long paths and sets that move together
        rows = ["".join(rng.choice("##...abc") for _ in range(5)) for _ in range(4)]
        pieces = capped_layer(rows)
        if len(pieces) >= 3:
            results.append(assert_twins_agree(pieces))
    many = 0
    for _ in range(40):  # more than 8 pieces: the C search's general row length
        rows = ["".join(rng.choice("#...abcdefghij") for _ in range(6)) for _ in range(5)]
        pieces = capped_layer(rows)
        if len(pieces) > 9:
            results.append(assert_twins_agree(pieces))
            many += 1
    assert many > 20
    levels = [r.level() for r in results]
    assert len(results) > 150 and None in levels and any(v is not None and (v[0] > 1 or len(v) > 1) for v in levels)
    assert any(r.stuck is not None and r.stuck.locked for r in results)  # stuck reports compared too


def test_explore_lists_the_states_a_stuck_search_counted_from_where_it_began():
    """`Stuck.start` is where the stuck part stood when its search began (not always the assembled
    position: an earlier separation may have moved it), and `explore` from there reaches exactly the
    states that search counted, none of them with two pieces overlapping."""
    rng = random.Random(11)
    stuck, moved = 0, 0
    for _ in range(150):
        pieces = random_box(rng, (rng.choice((4, 5)), 4, rng.choice((3, 4))), "abcd"[:rng.choice((2, 3, 4))])
        result = disassemble(pieces, native=False)
        if result.stuck is None or len(pieces) < 3:
            continue
        report = result.stuck
        start = dict(zip(report.pieces, report.start, strict=True))
        part = {p: pieces[p] for p in report.pieces}
        states = explore(part, start)
        assert len(states) == report.states and states[0] == (tuple(start[p] for p in part), 0)
        for offsets, _ in states:
            cells = [(x + o[0], y + o[1], z + o[2]) for o, p in zip(offsets, part, strict=True) for x, y, z in part[p]]
            assert len(cells) == len(set(cells))
        stuck += 1
        moved += any(any(o) for o in report.start)
    assert stuck > 20 and moved > 0


@native
def test_c_search_agrees_with_the_twin_on_groups_and_max_states():
    ring_a = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [(x, 1, z) for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]
    pieces = {"A": ring_a, "B": ring_b, "C": [(10, 10, 10), (11, 10, 10)]}
    assert not assert_twins_agree(pieces).ok
    assert assert_twins_agree(pieces, (frozenset({"A", "B"}),)).level() == (1,)
    maze = capped_layer(["#####",
                         "#a..#",
                         "###.#",
                         "#b..#",
                         "#.###",
                         "#...."])
    states = disassemble(maze, native=False).states
    for limit in (1, 2, 5, states // 2):
        with pytest.raises(TooManyStates) as slow:
            disassemble(maze, max_states=limit, native=False)
        with pytest.raises(TooManyStates) as fast:
            disassemble(maze, max_states=limit)
        assert fast.value.states == slow.value.states > limit


@native
def test_pieces_beyond_the_c_range_fall_back_to_the_twin():
    far = 3_000_000  # past the C search's coordinate range: the Python twin answers
    pieces = {"A": [(0, 0, 0), (1, 0, 0)], "B": [(far, 0, 0)], "C": [(0, far, 0), (0, far, 1)]}
    got = assert_twins_agree(pieces)
    assert got.level() == (1,) and got.separation is not None and got.separation.removed == ("B",)
    huge = {"A": [(0, 0, 0), (far, far, 0)], "B": [(1, 0, 0), (0, far, far)]}  # a collision box too big for C
    assert assert_twins_agree(huge).ok


@native
def test_c_search_agrees_with_the_twin_on_the_library_burrs():
    for model in ("six-piece-burr", "cutler-burr-305"):
        puzzle = load(model)
        found = [assert_twins_agree({k: list(v) for k, v in s.pieces.items()}) for s in enumerate_solutions(puzzle)]
        found.append(assert_twins_agree({k: list(v) for k, v in solve(puzzle).pieces.items()}))
        assert [r.level_text() for r in found] == ["1"] * len(found)


# ----------------------------------------------------------------------------- one disassembler per puzzle


def as_placements(assemblies: list[dict[str, list[Cell]]], names: tuple[str, ...]
                  ) -> tuple[ExactCoverProblem, list[tuple[tuple[int, tuple[int, ...]], ...]]]:
    """Assemblies (labels among `names`, in that order) as one problem's cells and each assembly as
    placements (piece index, sorted cell indices), in the order an enumeration's classes hold them."""
    cells = sorted({tuple(c) for a in assemblies for v in a.values() for c in v})
    at = {c: i for i, c in enumerate(cells)}
    problem = ExactCoverProblem("frames", tuple(cells), names, (1,) * len(names), ())  # type: ignore[arg-type]
    classes = [tuple(sorted((names.index(k), tuple(sorted(at[tuple(c)] for c in v))) for k, v in a.items()))
               for a in assemblies]
    return problem, classes


def taken(result: Disassembly) -> tuple[object, ...]:
    """What `PlacedDisassembler.take_apart` says of a class, from `disassemble`'s result."""
    return result.level(), result.level_text(), [m.as_json() for m in result.moves()]


def random_frames(seed: int, count: int) -> list[dict[str, list[Cell]]]:
    """Frames with two to four pieces inside (boxes and flat mazes, see `random_box`): many stuck, some not."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        if k % 3:
            pieces = random_box(rng, (5, 4, rng.choice((3, 4))), "abcd"[:rng.choice((2, 3, 4))])
        else:
            pieces = capped_layer(["".join(rng.choice("##...abc") for _ in range(5)) for _ in range(4)])
        if len(pieces) >= 2:
            out.append(pieces)
    return out


@native
def test_placed_disassembler_takes_classes_apart_as_disassemble_does_in_c_and_in_its_twin():
    """A batch of classes given as placements: the same levels and moves as `disassemble` on their cells,
    in C and in the Python twin, in one batch or one by one; `classify`, the C batch, is its twin's."""
    frames = random_frames(23, 150)
    problem, classes = as_placements(frames, ("frame", "a", "b", "c", "d"))
    want = [taken(disassemble(f)) for f in frames]
    fast = PlacedDisassembler(problem)
    slow = PlacedDisassembler(problem, native=False)
    assert fast.take_apart(classes, moves=True) == want
    assert slow.take_apart(classes, moves=True) == want
    assert [fast.take_apart([c], moves=True)[0] for c in classes] == want
    assert fast.take_apart(classes) == [(level, text, []) for level, text, _ in want]  # moves only when asked
    many = PlacedDisassembler(problem, tuple(frozenset({f"x{g}"}) for g in range(32)))  # past a C int's bits
    assert not many.c_trees and many.take_apart(classes, moves=True) == want  # the first search, trees in Python
    assert {None} < {w[0] for w in want} and any(w[0] is not None and len(w[0]) > 1 for w in want)
    for n in (3, 4, 5):
        batch = [c for c in classes if len(c) == n]
        status, states, found = fast.classify(batch)
        assert (status, states, found) == slow.classify(batch)
        assert {STUCK, FOUND} <= set(status) and len(states) == len(batch) and set(found) == {
            i for i, s in enumerate(status) if s == FOUND}
        stuck = [disassemble(frames[classes.index(c)]).stuck for c, s in zip(batch, status, strict=True) if s == STUCK]
        assert [r.states for r in stuck if r is not None] == [v for v, s in zip(states, status, strict=True)
                                                             if s == STUCK]
    first = PlacedDisassembler(problem, best=False)  # BurrTools' first way, as disassemble(first_found=True)
    assert first.take_apart(classes) == [(*taken(disassemble(f, first_found=True))[:2], []) for f in frames]


@native
def test_whole_trees_in_c_give_the_twins_levels_with_groups_and_many_pieces():
    """`PlacedDisassembler.levels` takes each class apart whole in C (level only): the same level as the
    twin's trees (`_Search.take_apart`), choosing between shortest ways or keeping the first, with
    declared groups (a part within one group stays whole) and with more than 8 pieces."""
    rng = random.Random(31)
    frames = random_frames(41, 120)
    for _ in range(40):
        rows = ["".join(rng.choice("#...abcdefghij") for _ in range(6)) for _ in range(5)]
        if len(pieces := capped_layer(rows)) > 9:
            frames.append(pieces)
    names = ("frame", *"abcdefghij")
    problem, classes = as_placements(frames, names)
    seen: dict[tuple[object, bool], list[object]] = {}
    for groups in ((), (frozenset({"frame", "a"}), frozenset({"b", "c"}))):
        for best in (True, False):
            fast = PlacedDisassembler(problem, groups, best=best)
            slow = PlacedDisassembler(problem, groups, best=best, native=False)
            got = fast.take_apart(classes)
            assert got == slow.take_apart(classes)
            assert got == [(*taken(disassemble(f, groups, first_found=not best))[:2], []) for f in frames]
            levels = seen[groups, best] = [g[0] for g in got]
            assert None in levels and any(v is not None and len(v) > 1 for v in levels)
    assert seen[(), True] != seen[groups, True] and seen[(), False] != seen[groups, False]  # the groups count
    assert seen[(), True] != seen[(), False]  # and so does the choice between shortest ways
    assert sum(len(c) > 9 for c in classes) > 10


@native
def test_placed_disassembler_on_an_enumeration_and_its_groups_and_budget():
    puzzle = load("six-piece-burr")
    from cpsolve.api.solving import _prepare
    from cpsolve.output.solutions import labelled
    from cpsolve.search.enumeration import enumerate_classes
    from cpsolve.search.settings import RunSettings

    prepared, engine = _prepare(puzzle, "dlx", True, 1)
    found: list = []
    enumerate_classes(prepared, RunSettings(engine), on_class=found.append)
    classes = [c.placements for c in found]
    problem = prepared.problem
    want = [taken(disassemble(labelled(problem, c))) for c in classes]
    assert PlacedDisassembler(problem).take_apart(classes, moves=True) == want
    assert [w[1] for w in want] == ["1"] and len(want[0][2]) == 5
    maze = capped_layer(["####",
                         "#a.#",
                         "##.#",
                         "##.#"])
    problem, classes = as_placements([maze], ("frame", "a"))
    for native_ in (True, False):
        with pytest.raises(TooManyStates) as exc:
            PlacedDisassembler(problem, max_states=1, native=native_).take_apart(classes)
        assert exc.value.states == 2
    ring_a = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [(x, 1, z) for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]
    rings = {"A": ring_a, "B": ring_b, "C": [(9, 9, 9), (10, 9, 9)]}
    problem, classes = as_placements([rings], ("A", "B", "C"))
    assert PlacedDisassembler(problem).take_apart(classes) == [(None, None, [])]
    assert PlacedDisassembler(problem, (frozenset({"A", "B"}),)).take_apart(classes) == [((1,), "1", [])]


@native
def test_assemblies_far_from_the_origin_are_taken_apart_alike():
    """Only differences of positions count: a puzzle 10**7 units away is taken apart in C as at home, one
    10**30 away (past any C integer) still in C for each part (origins taken from its first piece), and
    both give the same levels and moves as at the origin."""
    frames = random_frames(7, 40)
    problem, classes = as_placements(frames, ("frame", "a", "b", "c", "d"))
    want = PlacedDisassembler(problem).take_apart(classes, moves=True)
    for far in (10**7, 10**30):
        moved = [{k: [(x + far, y, z - far) for x, y, z in v] for k, v in f.items()} for f in frames]
        problem, classes = as_placements(moved, ("frame", "a", "b", "c", "d"))
        placed = PlacedDisassembler(problem)
        assert placed.take_apart(classes) == [(level, text, []) for level, text, _ in want]
        assert placed.take_apart(classes, moves=True) == want
        assert [taken(disassemble(f)) for f in moved] == want
        if far < 1 << 30:
            status, _ = placed.levels([c for c in classes if len(c) == 4])
            assert TWIN not in status


def test_a_placed_disassembler_is_sent_to_a_worker_by_number():
    """Pickled, it is a number naming the disassembler this process already has (a forked worker's copy):
    the same object comes back; once it is gone, the number names nothing, and says so."""
    problem, _ = as_placements(random_frames(3, 4), ("frame", "a", "b", "c", "d"))
    made = PlacedDisassembler(problem)
    blob = pickle.dumps(made)
    assert len(blob) < 100 and pickle.loads(blob) is made
    del made
    gc.collect()
    with pytest.raises(RuntimeError, match="forked after it was made"):
        pickle.loads(blob)


def test_linked_rings_are_stuck_and_say_which_pieces_lock():
    ring_a = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [(x, 1, z) for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]
    got = disassemble({"A": ring_a, "B": ring_b})
    assert not got.ok and got.level() is None
    assert got.stuck is not None and got.stuck.pieces == ("A", "B") and got.stuck.states >= 1
    assert brute_first_separation({"A": ring_a, "B": ring_b}) is None


def test_groups_may_stay_together():
    ring_a = [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [(x, 1, z) for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]
    loose = [(10, 10, 10), (11, 10, 10)]
    pieces = {"A": ring_a, "B": ring_b, "C": loose}
    apart = disassemble(pieces)
    assert not apart.ok and apart.stuck is not None and set(apart.stuck.pieces) == {"A", "B"}
    assert ("A", "B") in apart.stuck.locked
    grouped = disassemble(pieces, groups=(frozenset({"A", "B"}),))
    assert grouped.ok and grouped.level() == (1,)
    assert grouped.separation is not None and grouped.separation.removed == ("C",)


def test_level_text_follows_burrtools_rule():
    def sep(moves: int, left: Separation | None = None, removed: Separation | None = None) -> Separation:
        from cpsolve.analysis.trees import Move

        ms = tuple(Move(("p",), (1, 0, 0), 1) for _ in range(moves - 1)) + (Move(("p",), (1, 0, 0), None),)
        return Separation(("p", "q"), {}, ms, left, removed)

    # sub-trees that never need more than one move per step are left out of the text
    tree = sep(98, sep(2, sep(1), sep(4, None, sep(2))), sep(1, sep(1)))
    assert format_level(tree.level()) == "98.2.4.2"
    assert sep(1, sep(1), sep(1)).level() == (1,)
    assert sep(1, sep(2), sep(3)).level() == (1, 2, 3)
    assert parse_level("98.2.4.2") == (98, 2, 4, 2) and parse_level("5") < parse_level("5.1")
    for bad in ("", "x", "1..2", "0", "-1"):
        with pytest.raises(ValueError):
            parse_level(bad)


def test_tally_counts_solutions_in_the_three_numbers():
    t = LevelTally()
    t.add(24, True, (1,))
    t.add(12, False, None)
    t.add(48, True, (1, 2))
    assert t.assemblies == [84, 5, 3] and t.solutions == [72, 4, 2]
    assert t.levels == {(1,): 1, (1, 2): 1} and t.highest() == (1, 2)


# ----------------------------------------------------------------------------- Kaenel numbers and models


def test_kaenel_numbers_give_the_right_sticks():
    assert len(kaenel_stick(1)) == 24  # 1 is the solid stick
    assert len(kaenel_stick(65536)) == 8  # every cube of the middle cut away: the two ends
    assert set(kaenel_stick(1)) - set(kaenel_stick(2)) == {(1, 0, 1)}  # bit 0
    assert set(kaenel_stick(1)) - set(kaenel_stick(257)) == {(2, 0, 0)}  # bit 8
    for bad in (0, 65537):
        with pytest.raises(ValueError):
            kaenel_stick(bad)
    keys = {rotation_key(kaenel_stick(n)) for n in NOTCHABLE}
    assert len(keys) == 25  # 25 different pieces


def _burrtools_shapes(path: Path) -> list[list[Cell]]:
    with gzip.open(path) as fh:
        root = ET.fromstring(fh.read().decode("latin-1"))
    out = []
    for v in root.find("shapes").findall("voxel"):  # type: ignore[union-attr]
        sx, sy = int(v.get("x", 0)), int(v.get("y", 0))
        out.append([(i % sx, (i // sx) % sy, i // (sx * sy)) for i, ch in enumerate(v.text or "") if ch == "#"])
    return out


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/burrtools-examples is not here")
def test_the_25_notchable_numbers_are_burrtools_25_solid_burr_sticks():
    shapes = _burrtools_shapes(SHARED / "SolidSixPieceBurrs.xmpuzzle")[:25]
    assert {rotation_key(s) for s in shapes} == {rotation_key(kaenel_stick(n)) for n in NOTCHABLE}


def test_cutler_burr_305_pieces_are_its_kaenel_sticks_and_it_comes_apart_at_level_1():
    puzzle = load("cutler-burr-305")
    numbers = dict(zip("ABCDEF", (52, 615, 792, 960, 975, 992), strict=True))
    for piece in puzzle.pieces:
        assert rotation_key(piece.shape) == rotation_key(kaenel_stick(numbers[piece.name]))
    r = run_json("enumerate", "cutler-burr-305", "--disassemble", "--no-save", "--quiet", "--workers", "1")
    assert (r["total"], r["unique_rotation"], r["unique_symmetry"]) == (12, 1, 1)
    assert r["disassembly"]["solutions"] == {"total": 12, "unique_rotation": 1, "unique_symmetry": 1}
    assert r["disassembly"]["levels"] == {"1": 1}


def test_the_library_six_piece_burr_is_level_1():
    r = run_json("disassemble", "six-piece-burr")
    assert r["disassemblable"] and r["level"] == "1" and r["moves_total"] == 5
    first = r["steps"][0]
    assert sorted(first["pieces"]) == list("ABCDEF") and len(first["moves"]) == 1
    assert first["moves"][0]["amount"] is None


# ----------------------------------------------------------------------------- command line


def test_enumerate_disassemble_writes_level_and_moves(tmp_path: Path):
    out = tmp_path / "s.jsonl"
    proc = run_cli("enumerate", "six-piece-burr", "--disassemble", "--quiet", "--workers", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "of which come apart (BurrTools' solutions):" in proc.stdout and "highest level: 1" in proc.stdout
    line = json.loads(out.read_text().splitlines()[0])
    assert line["level"] == "1" and len(line["moves"]) == 5
    pieces = {k: [tuple(c) for c in v] for k, v in line["pieces"].items()}
    again = disassemble(pieces)
    assert [m.as_json() for m in again.moves()] == line["moves"]
    check_moves(pieces, again)
    shown = run_cli("disassemble", str(out), "--index", "0")
    assert shown.returncode == 0 and "level 1" in shown.stdout and "out" in shown.stdout


def test_min_level_keeps_only_higher_solutions(tmp_path: Path):
    out = tmp_path / "s.jsonl"
    r = run_json("enumerate", "six-piece-burr", "--min-level", "2", "--quiet", "--workers", "1", "--out", str(out))
    assert r["disassembly"]["solutions"]["unique_symmetry"] == 1  # counted, but below the bar
    assert out.read_text() == ""


def test_bad_level_and_index_are_one_line_errors(tmp_path: Path):
    proc = run_cli("enumerate", "six-piece-burr", "--min-level", "1.x", "--no-save", "--quiet")
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0 and "--min-level" in proc.stderr
    out = tmp_path / "s.jsonl"
    run_cli("enumerate", "six-piece-burr", "--quiet", "--out", str(out))
    proc = run_cli("disassemble", str(out), "--index", "7")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "index 7" in proc.stderr
    before = out.read_text()
    proc = run_cli("enumerate", "snake-27", "--disassemble", "--quiet", "--out", str(out))
    assert proc.returncode == 2 and "chain" in proc.stderr and out.read_text() == before


def test_max_states_gives_up_in_one_line(tmp_path: Path):
    pieces = capped_layer(["####",
                           "#a.#",
                           "##.#",
                           "##.#"])
    with pytest.raises(TooManyStates):
        disassemble(pieces, max_states=1)
    path = tmp_path / "key.jsonl"
    path.write_text(json.dumps({"puzzle": "key", "class": 0, "pieces": pieces}) + "\n")
    proc = run_cli("disassemble", str(path), "--max-states", "1")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "gave up after 2 states" in proc.stderr


def test_stuck_assembly_is_reported(tmp_path: Path):
    ring_a = [[x, y, 0] for x in range(3) for y in range(3) if (x, y) != (1, 1)]
    ring_b = [[x, 1, z] for x in range(1, 4) for z in range(-1, 2) if (x, z) != (2, 0)]
    path = tmp_path / "rings.jsonl"
    path.write_text(json.dumps({"puzzle": "rings", "class": 0, "pieces": {"A": ring_a, "B": ring_b}}) + "\n")
    proc = run_cli("disassemble", str(path))
    assert proc.returncode == 0 and "does not come apart" in proc.stdout and "A B" in proc.stdout
    r = run_json("disassemble", str(path))
    assert not r["disassemblable"] and r["stuck"]["pieces"] == ["A", "B"] and r["level"] is None


# ----------------------------------------------------------------------------- BurrTools' reference figures


def _reader():
    try:
        from cpsolve.puzzle import burrtools
    except ImportError:
        return None
    return burrtools


needs_reader = pytest.mark.skipif(not SHARED.is_dir() or _reader() is None,
                                  reason="needs ../shared/burrtools-examples and cpsolve.puzzle.burrtools "
                                         "(the BurrTools reader of issue 12)")


def checked(pieces: dict[str, list[Cell]], groups: tuple[frozenset[str], ...]) -> Disassembly:
    """The disassembly, from C checked against the Python twin when C is built (else the twin's)."""
    return assert_twins_agree(pieces, groups) if native_available() else disassemble(pieces, groups)


def _stored(name: str) -> tuple[list[dict[str, list[Cell]]], tuple[frozenset[str], ...]]:
    from cpsolve.puzzle.burrtools_placements import stored_solutions

    bt = _reader()
    assert bt is not None
    puzzle = bt.read_xmpuzzle(SHARED / name)
    return stored_solutions(SHARED / name), tuple(getattr(puzzle, "groups", ()))


@needs_reader
@pytest.mark.slow
def test_pelikan_burr_stored_solution_is_level_98_2_4_and_burrtools_first_way_98_2_4_2():
    stored, groups = _stored("PelikanBurr.xmpuzzle")
    got = [checked(a, groups) for a in stored]  # C against the twin (7,294 states, a few seconds in Python)
    assert [g.level_text() for g in got] == ["98.2.4"] and len(got[0].moves()) == 107
    check_moves(stored[0], got[0])
    # BurrTools keeps the first way its search meets: 98.2.4.2, as stored in the file, 108 moves
    first = disassemble(stored[0], groups, first_found=True)
    assert first.level_text() == "98.2.4.2" == _stored_levels("PelikanBurr.xmpuzzle")[0]
    assert len(first.moves()) == 108
    check_moves(stored[0], first)


@needs_reader
def test_solid_six_piece_burrs_stored_solutions_come_apart_at_burrtools_levels():
    stored, groups = _stored("SolidSixPieceBurrs.xmpuzzle")
    levels: dict[str, int] = {}
    for a in stored:
        got = checked(a, groups)
        levels[str(got.level_text())] = levels.get(str(got.level_text()), 0) + 1
    assert levels == {"1": 257, "1.2": 57}


@needs_reader
def test_cutler_burr_305_is_one_of_burrtools_314_solid_burrs():
    stored, groups = _stored("SolidSixPieceBurrs.xmpuzzle")
    want = sorted(rotation_key(p.shape) for p in load("cutler-burr-305").pieces)
    hits = [a for a in stored if sorted(rotation_key(c) for c in a.values()) == want]
    assert len(hits) == 1
    assert disassemble(hits[0], groups).level() == (1,)


@needs_reader
def test_alpackino_stored_assembly_comes_apart():
    stored, groups = _stored("AlPackino.xmpuzzle")
    got = [checked(a, groups) for a in stored]
    assert [g.ok for g in got] == [True]
    assert got[0].level_text() == "1.1.1.1.1.2.1.3.1.2.2"
    check_moves(stored[0], got[0])
    first = disassemble(stored[0], groups, first_found=True)
    assert first.level_text() == "1.1.1.1.1.2.1.3.1.2.1.2" == _stored_levels("AlPackino.xmpuzzle")[0]


def _stored_levels(name: str) -> list[str | None]:
    """The levels of the disassemblies BurrTools stored in the file (its own figures)."""
    bt = _reader()
    assert bt is not None
    return [None if a.level is None else format_level(a.level)
            for a in bt.parse_xmpuzzle(SHARED / name).problems[0].stored]


def _turned(pieces: dict[str, list[Cell]], t: object, order: list[str]) -> dict[str, list[Cell]]:
    return {k: [t.apply(c) for c in pieces[k]] for k in order}  # type: ignore[attr-defined]


def assert_level_is_the_assemblys(pieces: dict[str, list[Cell]], groups: tuple[frozenset[str], ...] = (),
                                  seed: int = 0) -> set[str | None]:
    """The level is the same in all 24 rotations and in the mirror image, with the pieces listed in any
    order; returns the levels BurrTools' first-found way gives over the same turns (they may differ)."""
    rng = random.Random(seed)
    want = disassemble(pieces, groups).level_text()
    first: set[str | None] = set()
    for t in ROTATIONS:
        order = list(pieces)
        rng.shuffle(order)
        turned = _turned(pieces, t, order)
        assert disassemble(turned, groups).level_text() == want, (t, order)
        first.add(disassemble(turned, groups, first_found=True).level_text())
    mirrored = {k: [(-x, y, z) for x, y, z in v] for k, v in pieces.items()}
    assert disassemble(mirrored, groups).level_text() == want
    return first


@needs_reader
def test_the_level_does_not_depend_on_how_an_assembly_is_turned():
    pelikan, groups = _stored("PelikanBurr.xmpuzzle")
    assert assert_level_is_the_assemblys(pelikan[0], groups) == {"98.2.4.2", "98.2.4"}  # BurrTools' varies
    alpackino, groups = _stored("AlPackino.xmpuzzle")
    assert_level_is_the_assemblys(alpackino[0], groups)
    solid, groups = _stored("SolidSixPieceBurrs.xmpuzzle")
    for a in solid[::25]:
        assert_level_is_the_assemblys(a, groups)


def test_the_level_of_random_assemblies_does_not_depend_on_how_they_are_turned():
    rng = random.Random(5)
    varied = 0
    for _ in range(60):
        rows = ["".join(rng.choice("##...abcd") for _ in range(5)) for _ in range(4)]
        pieces = capped_layer(rows)
        if len(pieces) >= 3:
            varied += len(assert_level_is_the_assemblys(pieces, seed=rng.randrange(1000))) > 1
    # cases where BurrTools' first-found way gives several levels over the turns: the property matters there
    assert varied == 7


@needs_reader
@pytest.mark.slow
def test_solid_six_piece_burrs_314_of_1063_come_apart(tmp_path: Path):
    r = run_json("enumerate", str(SHARED / "SolidSixPieceBurrs.xmpuzzle"), "--disassemble", "--quiet",
                 "--workers", "2", "--out", str(tmp_path / "s.jsonl"))
    d = r["disassembly"]
    assert d["assemblies"]["unique_rotation"] == 1063 and d["assemblies"]["unique_symmetry"] == 588
    assert d["solutions"]["unique_rotation"] == 314 and d["solutions"]["unique_symmetry"] == 179
    # BurrTools stored 257 at level 1 and 57 at 1.2 with mirror images apart: weight classes by 1 or 2
    per_rotation: dict[str, int] = {}
    for line in (tmp_path / "s.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["level"] is not None:
            per_rotation[rec["level"]] = per_rotation.get(rec["level"], 0) + (2 if rec["mirror_distinct"] else 1)
    assert per_rotation == {"1": 257, "1.2": 57}


@needs_reader
@pytest.mark.slow
def test_pelikan_burr_one_of_12_assemblies_comes_apart_after_98_moves():
    r = run_json("enumerate", str(SHARED / "PelikanBurr.xmpuzzle"), "--disassemble", "--quiet", "--no-save",
                 "--workers", "2")
    d = r["disassembly"]
    assert d["assemblies"]["unique_rotation"] == 12 and d["solutions"]["unique_rotation"] == 1
    # the level is the assembly's, whichever orientation the enumeration happens to keep: the same as
    # `cpsolve disassemble` gives for the orientation BurrTools stored
    assert list(d["levels"]) == ["98.2.4"]
    stored = run_json("disassemble", str(SHARED / "PelikanBurr.xmpuzzle"))
    assert stored["level"] == "98.2.4" and stored["burrtools_level"] == "98.2.4.2"


@needs_reader
def test_burrtools_stored_levels_are_read_and_shown_beside_cpsolves(tmp_path: Path):
    # the figures BurrTools wrote with its stored disassemblies (its own, in the orientation it keeps)
    solid = _stored_levels("SolidSixPieceBurrs.xmpuzzle")
    assert len(solid) == 314 and {v: solid.count(v) for v in set(solid)} == {"1": 257, "1.2": 57}
    got = run_json("disassemble", str(SHARED / "PelikanBurr.xmpuzzle"))
    assert (got["level"], got["burrtools_level"], got["moves_total"]) == ("98.2.4", "98.2.4.2", 107)
    text = run_cli("disassemble", str(SHARED / "PelikanBurr.xmpuzzle"))
    assert text.returncode == 0
    assert text.stdout.splitlines()[1].startswith("BurrTools stored level 98.2.4.2 with this assembly")
    same = run_cli("disassemble", str(SHARED / "SolidSixPieceBurrs.xmpuzzle"), "--index", "3")
    assert same.returncode == 0 and "BurrTools stored" not in same.stdout  # the same figure: nothing to say


BTLEVELS = REPO.parent / "peers" / "bin" / "btlevels"


def btlevels_agree(name: str) -> int:
    """Every assembly BurrTools' own disassembler (btlevels, ../shared/tools/btlevels.cpp) takes apart in a
    shared example, taken apart by cpsolve: BurrTools' way (the first shortest one, its pieces in
    BurrTools' order) gives the same level text, and the way `enumerate --disassemble` takes (the
    puzzle's PlacedDisassembler, choosing between shortest ways) the same verdict and first figure."""
    from cpsolve.output.solutions import rows_as_placements, rows_of
    from cpsolve.problem.placements import packing_problem
    from cpsolve.puzzle import burrtools as bt
    from cpsolve.puzzle.burrtools_placements import assembly_pieces

    path = SHARED / name
    out = subprocess.run([str(BTLEVELS), str(path)], capture_output=True, text=True, timeout=300, check=True).stdout
    bf = bt.parse_xmpuzzle(path)
    puzzle = bt.puzzle_of(bf, 0)
    problem = packing_problem(puzzle)
    placed = PlacedDisassembler(problem, tuple(puzzle.groups))
    seen = 0
    for m in re.finditer(r"^assembly \d+:(.*) (?:level (\S+)|stuck)$", out, re.M):
        spots = bt.StoredAssembly(bt._assembly(m.group(1), name, "btlevels"))
        theirs = m.group(2)
        pieces = assembly_pieces(bf, 0, spots, as_placed=True)
        assert disassemble(pieces, tuple(puzzle.groups), first_found=True).level_text() == theirs, m.group(0)
        rows = rows_of(problem, pieces)
        assert rows is not None
        level = placed.take_apart([tuple(sorted(rows_as_placements(problem, rows)))])[0][0]
        assert (level is None) == (theirs is None) and (level is None or level[0] == parse_level(theirs)[0])
        seen += 1
    assert f"{seen} assemblies and" in out
    return seen


needs_btlevels = pytest.mark.skipif(not SHARED.is_dir() or not BTLEVELS.exists(),
                                    reason="needs ../shared/burrtools-examples and BurrTools' btlevels in ../peers/bin "
                                           "(../shared/tools/build-peers.sh)")


@needs_btlevels
def test_levels_agree_with_btlevels_on_every_assembly():
    assert btlevels_agree("PelikanBurr.xmpuzzle") == 12
    assert btlevels_agree("AlPackino.xmpuzzle") == 1


@needs_btlevels
@pytest.mark.slow
def test_levels_agree_with_btlevels_on_the_588_solid_six_piece_burrs():
    assert btlevels_agree("SolidSixPieceBurrs.xmpuzzle") == 588


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/burrtools-examples is not here")
@pytest.mark.slow
def test_disassembly_on_workers_writes_what_one_process_writes(tmp_path: Path):
    """Issue 32 item 3: with --workers 2 the classes are taken apart on two forked processes while the
    search goes on (api.run's pipeline), their lines still written in the order found: sorted by id, the
    files of 1 and 2 workers are the same bytes (levels and moves included), and so are the tallies."""
    runs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.jsonl"
        runs[workers] = run_json("enumerate", str(SHARED / "SolidSixPieceBurrs.xmpuzzle"), "--disassemble", "--sort",
                                 "--quiet", "--workers", workers, "--out", str(out))
    assert runs["1"]["disassembly"] == runs["2"]["disassembly"]
    assert runs["2"]["disassembly"]["solutions"]["unique_symmetry"] == 179
    one, two = (tmp_path / "w1.jsonl").read_bytes(), (tmp_path / "w2.jsonl").read_bytes()
    assert one == two and one.count(b"\n") == 588
    assert sum(json.loads(line)["level"] is not None for line in one.splitlines()) == 179


def _taken_apart_here(job):  # type: ignore[no-untyped-def]
    """running._take_apart, its level text marked with the process that ran it (sent to the workers by name)."""
    import os

    from cpsolve.api import running

    return [(level, f"{text}@{os.getpid()}", moves)
            for level, text, moves in running._TAKE_APART_ORIGINAL(job)]  # type: ignore[attr-defined]


def test_the_classes_are_taken_apart_on_the_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The pipeline really runs: with two workers every class is taken apart in one of two other
    processes, not in the one that writes the file; with one, in that one."""
    import os

    from cpsolve import api
    from cpsolve.api import running

    monkeypatch.setattr(running, "_TAKE_APART_ORIGINAL", running._take_apart, raising=False)
    monkeypatch.setattr(running, "_take_apart", _taken_apart_here)
    for workers in (2, 1):
        out = tmp_path / f"w{workers}.jsonl"
        result = api.run(load("cutler-burr-305"), workers=workers, disassemble=True, out=out, journal=False)
        assert result.counts.unique_symmetry == 1
        where = {int(json.loads(line)["level"].split("@")[1]) for line in out.read_text().splitlines()}
        assert (os.getpid() in where) == (workers == 1) and len(where) == 1
