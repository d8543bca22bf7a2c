"""The exact sweep test of quarter turns (cpsolve/analysis/turns.py): hand-made cases, a turn that a
sampled test of rounded cubes lets through and exact cubes forbid, properties against a brute-force
sampling in the direction where sampling is conservative, and the compiled test (`_turns.c`) against
its Python twin: the same answers and blocking pairs on random scenes, the twin past the C's bounds."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpsolve.analysis import turns
from cpsolve.analysis.turns import (
    Scene,
    Turn,
    allowed_turns,
    allowed_turns_twin,
    blocking,
    native_available,
    sweep_hits,
    sweep_hits_twin,
    turn_allowed,
)
from cpsolve.puzzle.geometry import ROTATIONS, Cell, Transform

try:
    from cpsolve.analysis import _turns
except ImportError:
    _turns = None  # type: ignore[assignment]

native = pytest.mark.skipif(not native_available(), reason="cpsolve.analysis._turns is not built "
                            "(python setup.py build_ext --inplace)")


def test_turn_lands_on_the_grid() -> None:
    """A cell turned about a cell corner or a cell centre lands on a cell; the linear part is one of the
    24 rotations, right-handed about the positive axis."""
    corner = Turn(2, (0, 0, 0), 1)  # about the z line through x=0, y=0
    assert corner.cell((0, 0, 5)) == (-1, 0, 5)
    assert corner.cell((1, 0, 5)) == (-1, 1, 5)
    centre = Turn(2, (1, 1, 0), 1)  # through the centre of cell (0, 0)
    assert centre.cell((0, 0, 0)) == (0, 0, 0)
    assert centre.cell((1, 0, 0)) == (0, 1, 0)
    assert Turn(0, (0, 1, 1), 1).rotation.apply((0, 1, 0)) == (0, 0, 1)  # +x takes y to z
    assert Turn(1, (1, 0, 1), 1).rotation.apply((0, 0, 1)) == (1, 0, 0)  # +y takes z to x
    for axis in range(3):
        for sense in (1, -1):
            t = Turn(axis, tuple(0 if k == axis else 3 for k in range(3)), sense)  # type: ignore[arg-type]
            assert t.rotation in ROTATIONS
            assert all(t.inverse().cell(t.cell(c)) == c for c in [(0, 0, 0), (2, -1, 4), (5, 5, 5)])
    with pytest.raises(ValueError):
        Turn(2, (1, 0, 0), 1)  # a pivot between a centre and a corner: cells would land off the grid


def test_hand_cases() -> None:
    """Unit square [0,1]^2 turned counterclockwise about the origin (its own corner) sweeps the quarter
    disc of radius sqrt 2 from angle 0 to 135 degrees: it hits what is above it and where it lands,
    not what is right of it or below; touching is allowed."""
    a = (0, 0)
    assert sweep_hits(a, (0, 2))        # [0,1]x[1,2]: the far corner passes through it
    assert sweep_hits(a, (-2, 0))       # [-1,0]x[0,1]: where it lands
    assert not sweep_hits(a, (2, 0))    # [1,2]x[0,1]: it turns away
    assert not sweep_hits(a, (0, -2))   # below
    assert not sweep_hits(a, (-2, -2))  # diagonally below-left: touches at the origin only
    assert not sweep_hits(a, (2, 2))    # [1,2]x[1,2]: its corner (1,1) is at radius sqrt 2, the sweep's edge
    # about its own centre (doubled corner (-1,-1)) a square sweeps the disc of radius sqrt(1/2)
    assert sweep_hits((-1, -1), (1, -1))  # the square to its right: the corners pass through it
    # a square far out, its radius range beside the sweep's
    assert not sweep_hits(a, (8, 8))


def _rounded_sampled_hits(a2: tuple[int, int], b2: tuple[int, int], shrink: float, samples: int) -> bool:
    """What a sampled test of rounded cubes decides: both squares shrunk by `shrink` on each side (the
    fork's bevelled square, half-thickness 0.4595), separating-axis test at `samples` + 1 angles."""
    a0, b0 = a2[0] / 2 + shrink, a2[1] / 2 + shrink
    c0, d0 = b2[0] / 2 + shrink, b2[1] / 2 + shrink
    side = 1 - 2 * shrink
    return any(_overlap_at(a0, b0, c0, d0, side, math.pi / 2 * k / samples, 0.0) for k in range(samples + 1))


def _overlap_at(a0: float, b0: float, c0: float, d0: float, side: float, angle: float, margin: float) -> bool:
    """Whether the square [a0, a0+side]x[b0, b0+side] turned by `angle` about the origin and the static
    [c0, c0+side]x[d0, d0+side] overlap by more than `margin` on every separating axis (floats)."""
    co, si = math.cos(angle), math.sin(angle)
    mov = [(x * co - y * si, x * si + y * co) for x in (a0, a0 + side) for y in (b0, b0 + side)]
    sta = [(x, y) for x in (c0, c0 + side) for y in (d0, d0 + side)]
    for ux, uy in ((1.0, 0.0), (0.0, 1.0), (co, si), (-si, co)):
        pm = [x * ux + y * uy for x, y in mov]
        ps = [x * ux + y * uy for x, y in sta]
        if min(max(pm), max(ps)) - max(min(pm), min(ps)) <= margin:
            return False
    return True


def test_a_turn_that_rounded_sampling_allows_and_exact_cubes_forbid() -> None:
    """The cube at x 4..5, y 0..1 turns +90 degrees about the z line through the origin O; a static cube
    sits at x 3..4, y 4..5 (one layer, seen from above, not to scale):

              y
            5 +     +-----+
              |     |  S  |      S static: its near corner (3,4) is at distance 5 from O
            4 +     +-----+
              |    .      `.     the far corner (5,1) of M is at distance sqrt 26 = 5.099:
              |   .         .    its arc crosses S's corner region, up to 0.059 deep
              |  .           .
            1 +  .           +--+
              | .            |M |  M moving, landing at x -1..0, y 4..5
            0 O--------------+--+-- x
                             4  5

    Start and end are both free (the cubes only touch nothing), the turn is not: exact cubes forbid it.
    A test that treats each cube as rounded (shrunk by 0.0405 on each side, as the fork's bevelled
    squares are) and samples 24 angles lets it through; so does a clearance of 0.0405 here."""
    m, s = (4, 0, 0), (3, 4, 0)
    turn = Turn(2, (0, 0, 0), 1)
    a2, b2 = (8, 0), (6, 8)
    assert turn.cell(m) == (-1, 4, 0) and turn.cell(m) != s  # the end cell is free
    assert not _overlap_at(4, 0, 3, 4, 1, 0.0, 0.0) and not _overlap_at(4, 0, 3, 4, 1, math.pi / 2, 0.0)
    assert not _rounded_sampled_hits(a2, b2, 0.0405, 24)
    for nat in (True, False):  # the C (where built) and the twin both forbid it
        assert sweep_hits(a2, b2, 0, nat)
        assert blocking([m], [s], turn, native=nat) == (m, s)
        assert not turn_allowed([m], [s], turn, native=nat)
        assert turn_allowed([m], [s], turn, Fraction(405, 10000), native=nat)
    if native_available():
        assert _turns.sweep_hits(*a2, *b2, 0, 1) == 1  # the C itself, not a fallback
        assert _turns.sweep_hits(*a2, *b2, 81, 2000) == 0
    # the overlap is real: the corner (5, 1) turned by 41.8 degrees is inside S by 0.059 in x and y
    angle = math.atan2(4, 3) - math.atan2(1, 5)
    x, y = 5 * math.cos(angle) - math.sin(angle), 5 * math.sin(angle) + math.cos(angle)
    assert 3.05 < x < 4 and 4.05 < y < 5


def test_turn_negative_sense_mirrors() -> None:
    """A clockwise turn is the mirror image of the counterclockwise one: [0,1]^2 about the origin turning
    -90 sweeps down into [0,1]x[-1,0] and misses [0,1]x[1,2]."""
    t = Turn(2, (0, 0, 0), -1)
    assert t.cell((0, 0, 0)) == (0, -1, 0)
    assert not turn_allowed([(0, 0, 0)], [(1, -1, 0)], t)   # the far corner passes through it
    assert turn_allowed([(0, 0, 0)], [(0, 1, 0), (-1, 0, 0)], t)
    assert turn_allowed([(0, 0, 0)], [(1, -1, 1)], t)  # another layer


def _rot90(p: tuple[int, int]) -> tuple[int, int]:
    """A doubled lower corner turned +90 about the origin (the square's new lower corner is at (-y-2, x))."""
    return (-p[1] - 2, p[0])


corner = st.tuples(st.integers(-5, 5), st.integers(-5, 5))


@st.composite
def configuration(draw: st.DrawFn) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two squares relative to a valid pivot: doubled lower corners both even (a corner pivot) or both
    odd (a centre pivot), the same kind for both."""
    odd = draw(st.booleans())
    a, b = draw(corner), draw(corner)
    return ((2 * a[0] + odd, 2 * a[1] + odd), (2 * b[0] + odd, 2 * b[1] + odd))


@settings(max_examples=300, deadline=None)
@given(configuration(), st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 3)]))
def test_sampling_never_finds_more(cfg: tuple[tuple[int, int], tuple[int, int]], clearance: Fraction) -> None:
    """Conservative direction: when a fine sampling (721 angles) finds the squares overlapping by more
    than 1e-9, the exact test says they do. And the exact answer does not change when the whole scene
    is turned a quarter about the pivot (the test is the geometry's, not the coordinates')."""
    a2, b2 = cfg
    c = float(clearance)
    side = 1 - 2 * c
    sampled = any(_overlap_at(a2[0] / 2 + c, a2[1] / 2 + c, b2[0] / 2 + c, b2[1] / 2 + c, side,
                              math.pi / 2 * k / 720, 1e-9) for k in range(721))
    exact = sweep_hits(a2, b2, clearance)
    if sampled:
        assert exact
    assert sweep_hits(_rot90(a2), _rot90(b2), clearance) == exact


@settings(max_examples=200, deadline=None)
@given(configuration())
def test_exact_hit_is_seen_by_some_angle(cfg: tuple[tuple[int, int], tuple[int, int]]) -> None:
    """The other direction, with the exact answer's witness: when the exact test finds an overlap, some
    angle (sampled finely) shows the interiors overlapping at least a little, unless the overlap is thinner
    than the sampling can see (then it is within 1e-3 of touching)."""
    a2, b2 = cfg
    if not sweep_hits(a2, b2):
        return
    assert any(_overlap_at(a2[0] / 2, a2[1] / 2, b2[0] / 2, b2[1] / 2, 1.0, math.pi / 2 * k / 2000, -1e-3)
               for k in range(2001))


# ----------------------------------------------------------------------------- the C against its twin

CLEARANCES = [Fraction(0), Fraction(1, 10), Fraction(1, 3), Fraction(81, 2000), Fraction(1, 2), Fraction(7, 15)]
clearance = st.one_of(st.sampled_from(CLEARANCES),
                      st.fractions(min_value=0, max_value=Fraction(1, 2), max_denominator=300))


@native
@settings(max_examples=400, deadline=None)
@given(configuration(), clearance)
def test_sweep_c_equals_twin(cfg: tuple[tuple[int, int], tuple[int, int]], c: Fraction) -> None:
    """One pair: the C's answer is the twin's, with every clearance (half a side or more: no square)."""
    a2, b2 = cfg
    got = _turns.sweep_hits(a2[0], a2[1], b2[0], b2[1], c.numerator, c.denominator)
    assert got != _turns.TOO_BIG
    assert bool(got) == sweep_hits_twin(a2, b2, c)


@native
@settings(max_examples=150, deadline=None)
@given(st.integers(1 << 16, (1 << 18) - 8), st.integers(-6, 6), st.integers(-6, 6), st.booleans(), st.booleans())
def test_sweep_c_equals_twin_far_from_the_pivot(r: int, dx: int, dy: int, odd: bool, zero: bool) -> None:
    """Squares far from the pivot (doubled coordinates up to 2^18, near the C's bound of 2^19 scaled):
    the products of degree 6 reach 2^120 and still give the twin's answer. The moving square sits on
    the x axis at doubled distance r, the static one near where its arc passes at 45 degrees (or near
    its start, `zero`), so that both answers occur."""
    a2 = (r + odd, odd)
    if zero:
        b2 = (r + 2 * dx + odd, 2 * dy + odd)
    else:
        h = math.isqrt(r * r // 2) // 2 * 2
        b2 = (h + 2 * dx + odd, h + 2 * dy + odd)
    got = _turns.sweep_hits(a2[0], a2[1], b2[0], b2[1], 0, 1)
    assert got != _turns.TOO_BIG
    assert bool(got) == sweep_hits_twin(a2, b2, Fraction(0))


def _turned_scene(g: Transform, cells: list[Cell], turn: Turn) -> tuple[list[Cell], Turn]:
    """The cells and the turn moved by the rotation g of space: a cell's doubled centre 2c + 1 maps to
    g(2c + 1); the turn's axis to g's image of it, its sense times the sign of that image (g is
    proper, so right-handed stays right-handed), its pivot to g(pivot2), the axis coordinate 0."""
    moved = []
    for c in cells:
        d = g.apply((2 * c[0] + 1, 2 * c[1] + 1, 2 * c[2] + 1))
        moved.append(((d[0] - 1) // 2, (d[1] - 1) // 2, (d[2] - 1) // 2))
    new_axis = g.axes.index(turn.axis)
    p = list(g.apply(turn.pivot2))
    p[new_axis] = 0
    return moved, Turn(new_axis, (p[0], p[1], p[2]), turn.sense * g.signs[new_axis])


box = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-1, 1))


@st.composite
def scene(draw: st.DrawFn) -> tuple[list[Cell], list[Cell], Turn, Fraction]:
    """A random scene: a few moving cells, static cells around them (not on them), a turn about any axis
    and sense through a pivot at a cell corner or a cell centre near them, and a clearance."""
    cells = draw(st.lists(box, min_size=2, max_size=18, unique=True))
    k = draw(st.integers(1, max(1, len(cells) // 2)))
    axis = draw(st.integers(0, 2))
    odd = draw(st.integers(0, 1))
    pu, pv = draw(st.integers(-4, 4)) * 2 + odd, draw(st.integers(-4, 4)) * 2 + odd
    u, v = turns.PLANES[axis]
    p2 = [0, 0, 0]
    p2[u], p2[v] = pu, pv
    turn = Turn(axis, (p2[0], p2[1], p2[2]), draw(st.sampled_from([1, -1])))
    return cells[:k], cells[k:], turn, draw(clearance)


@native
@settings(max_examples=400, deadline=None)
@given(scene(), st.sampled_from(ROTATIONS))
def test_scene_c_equals_twin(sc: tuple[list[Cell], list[Cell], Turn, Fraction], g: Transform) -> None:
    """Whole scenes: the C and the twin name the same blocking pair (or both allow the turn), and the
    answer stays when the scene is turned in space (any of the 24 rotations: every axis and sense)."""
    moving, static, turn, c = sc
    got = Scene(set(static)).blocking(moving, turn, c)
    twin = Scene(set(static), native=False).blocking(moving, turn, c)
    assert got == twin
    moving_g, turn_g = _turned_scene(g, moving, turn)
    static_g, _ = _turned_scene(g, static, turn)
    assert [turn_g.cell(x) for x in moving_g] == _turned_scene(g, [turn.cell(x) for x in moving], turn)[0]
    assert (Scene(set(static_g)).blocking(moving_g, turn_g, c) is None) == (got is None)


@native
@settings(max_examples=30, deadline=None)
@given(scene())
def test_allowed_turns_c_equals_twin(sc: tuple[list[Cell], list[Cell], Turn, Fraction]) -> None:
    """A set's whole loop of turns in one C call (`_turns.allowed`) gives the twin's list: the same turns
    in the same order (axis, pivot, sense); each is allowed by the per-turn test of the twin, and there
    are no more than the loop's candidates."""
    moving, static, _, c = sc
    got = allowed_turns(moving, Scene(set(static)), c)
    twin = allowed_turns_twin(moving, Scene(set(static), native=False), c)
    assert got == twin
    assert all(Scene(set(static), native=False).blocking(moving, t, c) is None for t in got)
    # per axis: s + 1 corners and s centres along each in-plane side, s = the box's side in cells + 2
    s = [max(x[k] for x in moving) - min(x[k] for x in moving) + 3 for k in range(3)]
    candidates = sum(2 * ((s[u] + 1) * (s[v] + 1) + s[u] * s[v]) for u, v in turns.PLANES)
    assert len(got) <= candidates


def test_allowed_turns_by_hand() -> None:
    """One cube alone turns about every pivot of its grown box in both senses (nothing static): its
    doubled in-plane box [0, 2] grown by one cell is [-2, 4], with 4 x 4 corners (-2, 0, 2, 4) and 3 x 3
    centres (-1, 1, 3): 25 pivots, two senses, three axes: 150 turns. A wall of cubes beside it at x = 1
    forbids the turn about z through its centre (its corners swing out to x = 1.207) and allows the
    one about x through its centre (it stays within 0 <= x <= 1)."""
    alone = allowed_turns([(0, 0, 0)], Scene(set()), Fraction(0))
    assert len(alone) == 150
    assert alone[0] == Turn(0, (0, -2, -2), 1) and alone[1] == Turn(0, (0, -2, -2), -1)
    assert alone == allowed_turns_twin([(0, 0, 0)], Scene(set(), native=False), Fraction(0))
    wall = {(1, y, z) for y in range(-3, 4) for z in range(-3, 4)}
    got = allowed_turns([(0, 0, 0)], Scene(wall), Fraction(0))
    assert Turn(0, (0, 1, 1), 1) in got and Turn(0, (0, 1, 1), -1) in got  # about its own centre line
    assert Turn(2, (1, 1, 0), 1) not in got  # about z through its centre: fine alone ...
    assert Turn(2, (1, 1, 0), 1) in alone
    assert all(turns.Scene(wall, native=False).blocking([(0, 0, 0)], t, Fraction(0)) is None for t in got)
    assert got == allowed_turns_twin([(0, 0, 0)], Scene(wall, native=False), Fraction(0))


def test_past_the_bounds_the_twin_answers() -> None:
    """Past the C's bounds (cells beyond 2^20, or a square scaled by the clearance's denominator past
    2^19, or numbers past 64 bits) the C says TOO_BIG and the twin answers: the drawn turn is still
    forbidden, far away or with a clearance too fine for the C."""
    far = 1 << 20
    m, s = (far + 4, 0, 0), (far + 3, 4, 0)
    turn = Turn(2, (2 * far, 0, 0), 1)
    if native_available():
        flat = [*m, *s]
        assert _turns.blocking(flat[:3], flat[3:], 2, 1, 2 * far, 0, 0, 1) == _turns.TOO_BIG
        assert _turns.sweep_hits(8, 0, 6, 8, 1, 100000) == _turns.TOO_BIG
        # the same geometry within the bounds: answered by the C
        assert _turns.blocking([far - 4, 0, 0], [far - 5, 4, 0], 2, 1, 2 * far - 16, 0, 0, 1) == 0
    assert blocking([m], [s], turn) == (m, s)
    assert sweep_hits((8, 0), (6, 8), Fraction(1, 100000))
    assert not sweep_hits((8, 0), (6, 8), Fraction(1, 10))
    huge = 1 << 70
    assert blocking([(huge + 4, 0, 0)], [(huge + 3, 4, 0)], Turn(2, (2 * huge, 0, 0), 1)) is not None
    assert sweep_hits((8, 0), (6, 8), Fraction(1, huge))
