"""Disassembly with quarter turns (`rotations=True`, cpsolve/analysis/turning.py): a lock that only a
turn opens, the level text with turns, a turn the exact sweep test forbids refused by the search, and
the commands' options."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import REPO, run_cli

from cpsolve.analysis.disassembly import check_rotations, disassemble
from cpsolve.analysis.trees import Disassembly, parse_level
from cpsolve.analysis.turning import TurningSearch, compose, disassemble_turning, invert, turned_pose
from cpsolve.analysis.turns import Turn
from cpsolve.errors import CpsolveError
from cpsolve.puzzle.geometry import IDENTITY, ROTATIONS, Cell

FRAME: tuple[Cell, ...] = tuple(
    (x, y, z) for x in range(-1, 4) for y in range(-1, 4) for z in range(3)
    if not (z == 1 and (0 <= x <= 2 and 0 <= y <= 2 or (x, y) == (3, 1))))
"""A 5x5x3 box with a 3x3 cavity in its middle layer (x, y from 0 to 2, z = 1) and one corridor from it to
the outside, the cell x=3, y=1, z=1 (a slot one cube wide)."""
KEY: tuple[Cell, ...] = ((1, 0, 1), (1, 1, 1))
"""A domino standing along y in the cavity."""
LOCK = REPO / "benchmarks" / "puzzles" / "turning-lock.yaml"
"""The same lock as a puzzle file (shifted by 1 in x and y), for the commands."""


def replay(pieces: dict[str, tuple[Cell, ...]], result: Disassembly) -> None:
    """Play the moves on the cells and check every one: a slide moves the pieces by whole cells, a turn
    turns them (`Turn.cell`), and no two pieces ever share a cell (the sweeps are `turns.py`'s)."""
    at = {k: list(v) for k, v in pieces.items()}
    assert result.separation is not None
    for step in result.separation.steps():
        for m in step.moves:
            if m.turn is not None:
                for p in m.pieces:
                    at[p] = [m.turn.cell(c) for c in at[p]]
            elif m.amount is not None:
                d = m.direction
                for p in m.pieces:
                    at[p] = [(c[0] + d[0] * m.amount, c[1] + d[1] * m.amount, c[2] + d[2] * m.amount) for c in at[p]]
            taken = [c for p in step.pieces for c in at[p]]
            assert len(taken) == len(set(taken))


def test_lock_opens_with_one_quarter_turn() -> None:
    """The key cannot slide out: the floor and the ceiling hold it in z, and standing along y it is two
    cubes wide across the slot, wherever it slides in the cavity (6 positions, none separates):

        layer z = 1, seen from above      after the turn        then out along +x
          y                                  y
        3 # # # # #                        3 # # # # #
        2 # . . . #                        2 # . . . #
        1 # . K . . <- the slot            1 # K K . .  ->      K K slide out
        0 # . K . #                        0 # . . . #
       -1 # # # # #                       -1 # # # # #
           -1 0 1 2 3  x

    Turned a quarter about the z line through the corner x=1, y=1 it lies along x, in line with the
    slot, and slides out: 1 slide and 1 turn, level `1R1`. The cubes sweep only the cavity (checked
    exactly), so the turn is allowed."""
    pieces = {"F": FRAME, "K": KEY}
    stuck = disassemble(pieces)
    assert not stuck.ok and stuck.stuck is not None and stuck.stuck.states == 6
    assert not disassemble(pieces, native=False).ok
    got = disassemble_turning(pieces)
    assert got.ok and got.level_text() == "1R1" and got.level() == (2,)
    moves = got.moves()
    assert [m.text() for m in moves] == ["K turn +z at x=1 y=1", "K +x out"]
    assert moves[0].turn == Turn(2, (2, 2, 0), 1)
    assert moves[0].as_json() == {"pieces": ["K"], "turn": {"axis": "z", "sense": 1, "pivot": {"x": 1.0, "y": 1.0}}}
    replay(pieces, got)
    assert parse_level(got.level_text() or "") == (2,)
    # the states: 6 slides' positions of the key standing, the turned ones lying along x
    assert got.states == 12


def test_exactly_blocked_turn_refused_by_the_search() -> None:
    """The case of test_turns.py as two pieces: M, five cubes along x from the origin (x 0..5, y 0..1,
    z 0..1), turning +z about the z line through the origin, its far corner (5, 1) at distance sqrt 26;
    S's cube x 3..4, y 4..5 in the same layer, its near corner at distance 5 (S goes on over M in the
    layer above, out of the turn's way). The corner cuts 0.059 deep into S's cube: the search does not
    offer that turn with exact cubes, and does with a clearance of 0.0405 (cubes with rounded edges)."""
    from cpsolve.analysis.tables import _shapes_for_calls

    pieces = {"S": ((3, 4, 0), (3, 4, 1), (2, 4, 1), (1, 4, 1), (0, 4, 1), (0, 3, 1)),
              "M": tuple((x, 0, 0) for x in range(5))}
    turn = Turn(2, (0, 0, 0), 1)
    offered = []
    for clearance in (Fraction(0), Fraction(405, 10000)):
        shapes = _shapes_for_calls(False)
        names = list(pieces)
        search = TurningSearch([shapes.of(pieces[n]) for n in names], names, shapes, native=False,
                               assembled=[pieces[n] for n in names], clearance=clearance)
        assert search.anchor([0, 1]) == 0  # S, the larger piece, stays; M turns
        found = search.turns([0, 1], [(IDENTITY, (0, 0, 0))] * 2, [0b10])
        offered.append((0b10, turn) in found)
    assert offered == [False, True]


def test_poses_compose() -> None:
    """A pose turned four times a quarter about the same line is back; compose and invert are the group's."""
    pose = (IDENTITY, (2, -1, 3))
    t = Turn(0, (0, 3, 1), -1)
    p = pose
    for _ in range(4):
        p = turned_pose(p, t)
    assert p == pose
    for r in ROTATIONS:
        assert compose(r, invert(r)) == IDENTITY
        assert compose(invert(r), r) == IDENTITY


def test_levels_with_turns_parse() -> None:
    """`3R1.1R1` (the fork's EnigmaTIC figure) reads as moves per figure, turns counted; `3R0` too."""
    assert parse_level("3R1.1R1.3R0.2R1") == (4, 2, 3, 3)
    assert parse_level("1R1") == (2,)
    assert parse_level("98.2.4") == (98, 2, 4)
    for bad in ("R1", "1R", "1.R2", "0R0", "1r1", ""):
        with pytest.raises(ValueError):
            parse_level(bad)


def test_rotation_options_checked() -> None:
    """A clearance of 0.5 or more leaves nothing of a cube; a negative one or a clearance without
    rotations means nothing: one-line errors."""
    pieces = {"F": FRAME, "K": KEY}
    for bad in (Fraction(1, 2), -0.1, "x"):
        with pytest.raises(CpsolveError):
            disassemble_turning(pieces, rotation_clearance=bad)  # type: ignore[arg-type]
    with pytest.raises(CpsolveError):
        check_rotations(False, 0.1)
    # a generous clearance lets the key turn about its own middle as well: still 1R1
    assert disassemble_turning(pieces, rotation_clearance=0.25).level_text() == "1R1"


def test_cli_disassemble_rotations() -> None:
    """`cpsolve disassemble --rotations` on a puzzle file: stuck without, `1R1` with, the turn in the
    step list and in --json; a bad clearance exits 2 with one line."""
    puzzle = LOCK
    out = run_cli("disassemble", str(puzzle))
    assert out.returncode == 0, out.stderr
    assert "does not come apart" in out.stdout
    out = run_cli("disassemble", str(puzzle), "--rotations")
    assert out.returncode == 0, out.stderr
    assert "level 1R1" in out.stdout and " turn " in out.stdout
    out = run_cli("disassemble", str(puzzle), "--rotations", "--json")
    data = json.loads(out.stdout)
    assert data["level"] == "1R1"
    assert data["steps"][0]["moves"][0]["turn"]["axis"] == "z"
    out = run_cli("disassemble", str(puzzle), "--rotations", "--rotation-clearance", "0.7")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_enumerate_disassemble_rotations(tmp_path: object) -> None:
    """`enumerate --disassemble --rotations`: the lock's one assembly comes apart at 1R1 (none without
    turns); `--min-level 1R1` keeps it and `--min-level 1R2` (3 moves) does not; the moves in the
    solutions file show the turn."""
    from pathlib import Path

    d = Path(str(tmp_path))
    out = run_cli("enumerate", str(LOCK), "--disassemble", "-q", "--json", "-o", str(d / "a.jsonl"))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["disassembly"]["solutions"]["unique_symmetry"] == 0
    out = run_cli("enumerate", str(LOCK), "--disassemble", "--rotations", "-q", "--json",
                  "-o", str(d / "b.jsonl"), "--min-level", "1R1")
    assert out.returncode == 0, out.stderr
    tally = json.loads(out.stdout)["disassembly"]
    assert tally["levels"] == {"1R1": 1} and tally["highest_level"] == "1R1"
    line = json.loads((d / "b.jsonl").read_text().splitlines()[-1])
    assert line["level"] == "1R1" and "turn" in line["moves"][0]
    out = run_cli("enumerate", str(LOCK), "--disassemble", "--rotations", "-q", "-o", str(d / "c.jsonl"),
                  "--min-level", "1R2")
    assert out.returncode == 0, out.stderr
    assert "only the 0 solution classes" in out.stdout
    out = run_cli("enumerate", str(LOCK), "--rotations", "-q", "-o", str(d / "e.jsonl"))
    assert out.returncode == 2 and "--disassemble" in out.stderr


def test_explain_with_rotations() -> None:
    """`explain --index 0`: the lock's assembly is stuck (the key is what blocks, sliding); with
    --rotations it comes apart at 1R1."""
    out = run_cli("explain", str(LOCK), "--index", "0", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["case"] == "stuck"
    out = run_cli("explain", str(LOCK), "--index", "0", "--json", "--rotations")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["case"] == "comes-apart" and "1R1" in json.dumps(data)
    out = run_cli("explain", str(LOCK), "--index", "0", "--rotation-clearance", "1/20")
    assert out.returncode == 2 and "--rotations" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def _page_replay(pieces: dict[str, list[Cell]], steps: list[dict]) -> list[dict[str, set[Cell]]]:
    """Play the page's steps (the JSON the page is given) on the cells, as viewer.js plays them: a slide
    moves the cells by "move", a turn turns each cell's centre about the line through "pivot" parallel to
    axis "axis" by "sense" quarter turns (in floating point, as the page does, then checked to land on a
    cell). Every piece's cells after each step; no two pieces share a cell at the end of any step."""
    planes = ((1, 2), (2, 0), (0, 1))
    at = {k: {tuple(c) for c in v} for k, v in pieces.items()}
    out = []
    for step in steps:
        for lab in step["pieces"]:
            if "turn" in step:
                t = step["turn"]
                u, v = planes[t["axis"]]
                moved = set()
                for c in at[lab]:
                    centre = [c[i] + 0.5 - t["pivot"][i] for i in range(3)]
                    turned = list(centre)
                    turned[u], turned[v] = -t["sense"] * centre[v], t["sense"] * centre[u]
                    cell = [turned[i] + t["pivot"][i] - 0.5 for i in range(3)]
                    assert all(abs(x - round(x)) < 1e-9 for x in cell), cell
                    moved.add((round(cell[0]), round(cell[1]), round(cell[2])))
                at[lab] = moved
            else:
                at[lab] = {(c[0] + step["move"][0], c[1] + step["move"][1], c[2] + step["move"][2]) for c in at[lab]}
        every = [c for cs in at.values() for c in cs]
        assert len(every) == len(set(every)), f"pieces overlap after {step}"
        out.append({k: set(v) for k, v in at.items()})
    return out


def test_the_page_plays_the_lock_with_its_turn() -> None:
    """`view_data(disassembly=True, rotations=True)` and the page of `view --rotations` hand the page the
    lock's moves with the turn in them; replayed from that JSON, the turn lands K on the cells the
    analysis turns it to (K stood along y, lies along x after it), nothing ever overlaps, and K ends
    out of the frame. Without rotations the lock is stuck: no steps, the page drops pieces in."""
    import cpsolve
    from cpsolve.output.page import page_data

    solution = cpsolve.solve(cpsolve.load(str(LOCK)))
    found = cpsolve.disassemble(solution, rotations=True)
    turn = found.moves()[0].turn
    assert turn is not None
    data = cpsolve.view_data(solution, disassembly=True, rotations=True)
    steps = data["steps"]["0"]  # type: ignore[index]
    assert [("turn" in s, s.get("out", False)) for s in steps] == [(True, False), (False, True)]
    assert steps == page_data([{"pieces": solution.pieces}], solution.puzzle, rotations=True)["steps"]["0"]
    pieces = {k: [tuple(c) for c in v] for k, v in solution.pieces.items()}
    after = _page_replay(pieces, steps)  # type: ignore[arg-type]
    assert after[0]["K"] == {turn.cell(c) for c in pieces["K"]} != set(pieces["K"])
    assert {c[0] for c in after[0]["K"]} == {1, 2} and {c[1] for c in after[0]["K"]} == {2}  # along x now
    assert after[0]["F"] == set(pieces["F"])
    assert min(c[0] for c in after[1]["K"]) > max(c[0] for c in pieces["F"])  # out beyond the frame
    assert "steps" not in cpsolve.view_data(solution, disassembly=True)
    with pytest.raises(CpsolveError):
        cpsolve.view_data(solution, disassembly=True, rotation_clearance="1/20")


def _direction(png: bytes, color: str) -> float:
    """How the piece of `color` lies in the picture: the correlation of its pixels' x and y (y down). In
    the front-right view a bar along x runs down to the right (> 0), one along y up to the right (< 0).
    Its edges are drawn darker, so each side is its own patch: the largest is taken."""
    import io

    import numpy as np
    from PIL import Image

    from cpsolve.output.scene import SHADE, hex_rgb, shade

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    mask = np.zeros(img.shape[:2], dtype=bool)
    for n in (0, 2, 4):  # its three visible sides' shades
        mask |= (np.abs(img - np.array(hex_rgb(shade(color, SHADE[n])))).max(axis=2) <= 8)
    left = {(int(y), int(x)) for y, x in zip(*np.nonzero(mask), strict=True)}
    biggest: list[tuple[int, int]] = []  # its largest connected patch: the piece, not its legend swatch
    while left:
        todo, patch = [left.pop()], []
        while todo:
            y, x = todo.pop()
            patch.append((y, x))
            for q in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if q in left:
                    left.remove(q)
                    todo.append(q)
        biggest = max(biggest, patch, key=len)
    assert len(biggest) > 200, "the piece is not in the picture"
    ys, xs = np.array([q[0] for q in biggest]), np.array([q[1] for q in biggest])
    return float(np.corrcoef(xs, ys)[0, 1])


def test_the_step_picture_shows_the_turned_piece_turned() -> None:
    """`draw(..., step=N, rotations=True)`: the picture after the turn shows K lying along x (its pixels
    run down to the right), the assembly's along y (up to the right); after the last move K's pixels are
    right of the frame's; a step past the end, or of a stuck assembly, is refused."""
    import cpsolve
    from cpsolve.output.scene import parts_of

    solution = cpsolve.solve(cpsolve.load(str(LOCK)))
    green = next(p.color for p in parts_of(solution.pieces, {}) if p.label == "K")
    before = cpsolve.draw(solution, exploded=True, step=0, rotations=True)
    turned = cpsolve.draw(solution, exploded=True, step=1, rotations=True)
    assert _direction(before, green) < -0.5 and _direction(turned, green) > 0.5
    with pytest.raises(CpsolveError, match="2 moves"):
        cpsolve.draw(solution, step=3, rotations=True)
    with pytest.raises(CpsolveError, match="does not come apart"):
        cpsolve.draw(solution, step=1)


def test_cli_view_and_draw_take_rotations(tmp_path: object) -> None:
    """`view --rotations` writes the turn into the page's data; `draw --step 1 --rotations` writes a picture
    titled with the move."""
    import re
    from pathlib import Path

    d = Path(str(tmp_path))
    out = run_cli("view", str(LOCK), "--rotations", "-o", str(d / "lock.html"))
    assert out.returncode == 0, out.stderr
    data = json.loads(re.search(r'id="data">(.*?)</script>', (d / "lock.html").read_text()).group(1))  # type: ignore[union-attr]
    assert data["steps"]["0"][0]["turn"] == {"axis": 2, "sense": 1, "pivot": [2.0, 2.0, 0.0]}
    out = run_cli("draw", str(LOCK), "--step", "1", "--rotations", "-o", str(d / "s.svg"))
    assert out.returncode == 0, out.stderr
    assert "after move 1 of 2" in (d / "s.svg").read_text()


def test_turning_level_tally_keeps_splits_apart() -> None:
    """With turns, 2R1 and 1R2 (both 3 moves to the first separation) are two levels, and 3 (slides only)
    a third; they sort by moves, then turns, and the highest is the most moves. Fed levels without turns,
    it tallies them exactly as `LevelTally` does (the output of a run without turns is unchanged)."""
    from cpsolve.analysis.trees import LevelTally
    from cpsolve.analysis.turning import TurningLevelTally, split_key

    assert split_key("2R1.3") == (3, 1, 3, 0) and split_key("5") == (5, 0)
    t = TurningLevelTally()
    for text in ("2R1", "1R2", "2R1", "3", "1R1.2"):
        t.add(24, True, parse_level(text), text)
    t.add(12, False, None, None)
    got = t.as_json()
    assert got["levels"] == {"1R1.2": 1, "3": 1, "2R1": 2, "1R2": 1}
    assert list(got["levels"]) == ["1R1.2", "3", "2R1", "1R2"]  # type: ignore[call-overload]
    assert got["highest_level"] == "1R2" and got["solutions"]["total"] == 120  # type: ignore[index]
    plain, turning = LevelTally(), TurningLevelTally()
    for tally in (plain, turning):
        for level, n in (((1,), 24), ((1, 2), 48), (None, 12), ((12,), 24)):
            tally.add(n, True, level, None if level is None else ".".join(map(str, level)))
    assert json.dumps(plain.as_json()) == json.dumps(turning.as_json())


TUNNEL: tuple[Cell, ...] = tuple((x, y, z) for x in range(5) for y in range(3) for z in range(3)
                                 if not (y == 1 and z == 1 and 1 <= x <= 3))
"""A closed 5x3x3 box around a tunnel one cube wide (x from 1 to 3, y = z = 1)."""


def test_explain_accounts_for_turns_when_stuck_with_them() -> None:
    """A bead in a closed tunnel: it slides along it (3 states) and nothing comes apart, by slides or by
    turns. With --rotations, explain says so and accounts for the turns piece by piece: the bead turned
    alone is free in none of the turns tried (each swings a corner into the tunnel's walls, or lands in
    them: the walls block it), the box turned alone in none either (its walls sweep through the bead).
    With a clearance of 1/10 (above (3 - 2 sqrt 2) / 2 = 0.086, where a cube spinning about its own centre
    line clears the walls of a tunnel of its own width) the bead spins in place about x, and the assembly
    is still stuck: a spin in place reaches no new state."""
    from cpsolve.analysis.explain import explain_assembly
    from cpsolve.analysis.turns import candidate_turns, turn_allowed

    pieces = {"box": TUNNEL, "bead": ((1, 1, 1),)}
    report = explain_assembly("tunnel", pieces, rotations=True)
    assert report.case == "stuck"
    found = report.finding
    assert found.states == 3 and found.turn_states == 3
    tried_bead = len(list(candidate_turns([(1, 1, 1)])))
    tried_box = len(list(candidate_turns(list(TUNNEL))))
    assert tried_bead == 150
    assert found.turning == (("box", 0, tried_box, ("bead",)), ("bead", 0, tried_bead, ("box",)))
    text = "\n".join(found.lines())
    assert "do not come apart by sliding or turning pieces: slides and quarter turns reach 3 states" in text
    assert f"bead  0 of {tried_bead} free; blocked by box" in text
    data = found.as_json()
    assert data["turn_states"] == 3
    assert data["turning"][1] == {"piece": "bead", "free": 0, "tried": tried_bead, "blockers": ["box"]}

    loose = explain_assembly("tunnel", pieces, rotations=True, rotation_clearance="1/10").finding
    assert loose.turn_states == 3
    bead = dict((p, (free, hit)) for p, free, _, hit in loose.turning)["bead"]
    assert bead[0] > 0 and bead[1] == ("box",)
    spins = [t for t in candidate_turns([(1, 1, 1)]) if t.axis == 0 and t.pivot2 == (0, 3, 3)]
    assert len(spins) == 2
    assert all(turn_allowed([(1, 1, 1)], TUNNEL, t, Fraction(1, 10)) for t in spins)
    assert not any(turn_allowed([(1, 1, 1)], TUNNEL, t, Fraction(8, 100)) for t in spins)

    without = explain_assembly("tunnel", pieces).finding
    assert without.turning is None and "turning" not in without.as_json()
    assert "sliding pieces: the moves reach 3 states" in "\n".join(without.lines())


def test_twist_cube_needs_a_turn() -> None:
    """benchmarks/puzzles/twist-cube.yaml, four pieces in a 3x3x3 box (one assembly up to symmetry): by
    slides B and C come out together and are then stuck, locked to each other; with turns C turns a
    quarter about a line parallel to y, and B slides away: level 1.1R1, every move replayed on the
    cells without two pieces ever sharing one."""
    import cpsolve

    puzzle = cpsolve.load(str(REPO / "benchmarks" / "puzzles" / "twist-cube.yaml"))
    (solution,) = list(cpsolve.enumerate(puzzle))
    pieces = {k: tuple(v) for k, v in solution.pieces.items()}
    slid = disassemble(pieces)
    assert slid.separation is None and slid.stuck is not None
    assert set(slid.stuck.pieces) == {"B", "C"} and slid.stuck.locked == (("B", "C"),)
    turned = disassemble_turning(pieces)
    assert turned.level_text() == "1.1R1"
    replay(pieces, turned)
    turns = [m.turn for s in turned.separation.steps() for m in s.moves if m.turn is not None]  # type: ignore[union-attr]
    assert len(turns) == 1 and turns[0].axis == 1
