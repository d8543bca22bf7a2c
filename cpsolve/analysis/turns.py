"""Quarter turns of unit cubes, and the exact test of whether a turn is free (the sweep test).

The geometry. A *turn* turns a set of unit cubes by 90 degrees about a line parallel to the x, y or z
axis. Cell (i, j, k) is the cube [i, i+1] x [j, j+1] x [k, k+1]. In the plane of the turn (the two
coordinates other than the axis, taken in cyclic order: y, z for x; z, x for y; x, y for z) the line
passes through a *pivot*. A turned cube lands on a cube of the grid exactly when the pivot is a cell
centre or a cell corner in that plane: in doubled coordinates (`pivot2`, twice the pivot) both
in-plane coordinates even (a corner) or both odd (a centre). A positive turn is right-handed about
the positive axis: in the plane's coordinates (u, v) -> (-v, u).

Cubes in different layers along the axis (different values of the axis coordinate) never meet: a
layer's cubes stay in their layer during the turn. Per layer, the question is plane geometry: a
moving unit square S, turned about the pivot through every angle from 0 to 90 degrees, sweeps an
annular sector; the turn is allowed only when that swept region overlaps the *interior* of no
static square T of the same layer. Touching (zero area contact) is allowed. A `clearance` c > 0
shrinks every square by c on each side (real pieces have rounded or sanded edges); c = 0 is exact
cubes.

Why the test is exact (`sweep_hits`). Two convex polygons have disjoint interiors exactly when a
line parallel to one of their edges separates them (weakly): the separating axis theorem. With S
turned by angle a, the candidate lines are parallel to x, to y (T's edges) or to S's turned edges,
at angle a and a + 90 degrees. Each of those 8 separations (4 axes, either side) holds when 4
corner inequalities hold, each of the form alpha cos a + beta sin a + gamma <= 0 with rational
alpha, beta, gamma (corner coordinates and the squares' sides). Put t = tan(a / 2), t in [0, 1];
then cos a = (1 - t^2) / (1 + t^2), sin a = 2t / (1 + t^2), and after multiplying by 1 + t^2 > 0
each inequality is q(t) <= 0 for a quadratic q with rational coefficients. The squares overlap at
some angle exactly when the *open* set O = {t in [0, 1]: every separation fails, i.e. for each of
the 8 some q(t) > 0} is not empty. The truth of every q(t) > 0 is constant between consecutive
roots of the 32 quadratics, so O, an open subset of [0, 1], is not empty exactly when it holds
at one point strictly inside one of the intervals between consecutive roots (0 and 1 included
as ends): if O holds a root or an end, it holds a neighbourhood of it, which reaches into an
interval. The roots are rational or of the form p + q sqrt(D) with rational p, q and integer D;
they are sorted by exact comparisons (`_compare`: squaring with signs, no floating point), a
rational point is found strictly inside each interval by bisection on exact integer square roots
(`_bounds`), and the 32 inequalities are evaluated there in `fractions.Fraction`. Nothing is
sampled and nothing is rounded, so the answer is the geometry's.

Where it runs. The test is compiled (`_turns.c`, integers only: no Fraction, no square root, the
products bounded in 128 bits): `Scene.blocking`, `blocking`, `turn_allowed` and `sweep_hits` use it
when it is built and the coordinates are within its bounds (a cell within about 2^18 / den of the
pivot, den the clearance's denominator: the C says TOO_BIG past them), and the Python below, its
readable twin, otherwise or with `native=False`. Both decide the same set O; the C does not sort
the roots and bisect for a point inside each interval but asks, at each interval's left end (0 and
every root in [0, 1)), the sign of each quadratic just to its right (the first nonzero of q, q', q''
there): the same intervals, and products of degree 6 instead of the degree 8 of comparing two
roots. tests/test_turns.py checks that both give the same answers and the same blocking pairs.

A test that samples angles, or that treats the pieces as rounded, can let a turn through that exact
cubes forbid: `tests/test_turns.py` draws one (a corner that cuts through the static square's
corner midway through the turn, while start and end positions are both free).
"""

from __future__ import annotations

import functools
import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..puzzle.geometry import Cell, Transform

try:
    from . import _turns
except ImportError:  # not compiled here: the twin runs
    _turns = None  # type: ignore[assignment]

Rational = Fraction | int

AXIS_NAMES = ("x", "y", "z")
PLANES: tuple[tuple[int, int], ...] = ((1, 2), (2, 0), (0, 1))
"""The plane of a turn about each axis, as (u, v) in cyclic order: a positive turn maps (u, v) to (-v, u)."""


@dataclass(frozen=True, order=True)
class Turn:
    """A quarter turn about a line parallel to axis `axis` (0 x, 1 y, 2 z) through `pivot2` / 2.

    `pivot2` holds twice the pivot's coordinates; its axis coordinate is 0 (it does not matter); its
    two in-plane coordinates are both even (a cell corner) or both odd (a cell centre). `sense` is +1
    (right-handed about the positive axis) or -1.
    """

    axis: int
    pivot2: Cell
    sense: int

    def __post_init__(self) -> None:
        u, v = PLANES[self.axis]
        if self.axis not in (0, 1, 2) or self.sense not in (1, -1):
            raise ValueError(f"not a quarter turn: axis {self.axis}, sense {self.sense}")
        if self.pivot2[self.axis] != 0 or (self.pivot2[u] - self.pivot2[v]) % 2:
            raise ValueError(f"a turned cell lands on the grid only about a cell centre or corner, not {self.pivot2}")

    @property
    def rotation(self) -> Transform:
        """The turn's linear part, as a `geometry.Transform` (to compose with the pieces' orientations)."""
        u, v = PLANES[self.axis]
        axes = [0, 1, 2]
        signs = [1, 1, 1]
        # new u = -sense * old v, new v = sense * old u
        axes[u], signs[u] = v, -self.sense
        axes[v], signs[v] = u, self.sense
        return Transform((axes[0], axes[1], axes[2]), (signs[0], signs[1], signs[2]))

    @property
    def shift(self) -> Cell:
        """s such that a cell c lands on rotation(c) + s: its centre 2c + 1 (doubled) turns about pivot2."""
        r = self.rotation
        one_minus_p = tuple(1 - p for p in self.pivot2)
        turned = r.apply((one_minus_p[0], one_minus_p[1], one_minus_p[2]))
        out = [(turned[k] + self.pivot2[k] - 1) // 2 for k in range(3)]
        return (out[0], out[1], out[2])

    def cell(self, c: Cell) -> Cell:
        """Where cell c lands."""
        r, s = self.rotation.apply(c), self.shift
        return (r[0] + s[0], r[1] + s[1], r[2] + s[2])

    def inverse(self) -> Turn:
        return Turn(self.axis, self.pivot2, -self.sense)

    def pivot(self) -> dict[str, Fraction]:
        """The pivot's two in-plane coordinates, by name (x=1.5 ...)."""
        return {AXIS_NAMES[k]: Fraction(self.pivot2[k], 2) for k in PLANES[self.axis]}

    def text(self) -> str:
        """`turn +z at x=1.5 y=0.5`: a quarter turn right-handed about +z, its axis through that point."""
        where = " ".join(f"{k}={_num(v)}" for k, v in sorted(self.pivot().items()))
        return f"turn {'+' if self.sense > 0 else '-'}{AXIS_NAMES[self.axis]} at {where}"


def _num(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"


def native_available() -> bool:
    """Whether the compiled sweep test (`_turns.c`) is built here; without it the Python twin runs."""
    return _turns is not None


def turn_allowed(moving: Iterable[Cell], static: Iterable[Cell], turn: Turn, clearance: Rational = 0,
                 native: bool = True) -> bool:
    """Whether the cubes `moving` can make `turn` while `static` stay: their end cells are free, and in
    every layer along the axis no moving square's swept sector overlaps a static square's interior."""
    return blocking(moving, static, turn, clearance, native) is None


def blocking(moving: Iterable[Cell], static: Iterable[Cell], turn: Turn,
             clearance: Rational = 0, native: bool = True) -> tuple[Cell, Cell] | None:
    """The first (moving cell, static cell) pair that forbids the turn, or None when it is allowed."""
    static_set = set(static)
    return Scene(static_set, native).blocking(list(moving), turn, Fraction(clearance))


class Scene:
    """The static cubes of one test, indexed once for the many turns a search tries against them: the
    cells, and per axis their layers along it (the twin's), and the cells flat for the C (in the same
    order, so that both meet the static cells of a layer in the same order and name the same pair).

    `native=False` runs the Python twin always (for the tests and the benchmark's comparison)."""

    def __init__(self, static: set[Cell], native: bool = True) -> None:
        self.static = static
        self.cells = list(static)
        self.flat: bytes | None = None
        if native and _turns is not None:
            try:
                self.flat = array("i", [x for c in self.cells for x in c]).tobytes()
            except OverflowError:  # past a C int: the twin
                self.flat = None

    @functools.cached_property
    def layers(self) -> list[dict[int, list[Cell]]]:
        """Per axis, the static cells of each layer along it, in `cells` order: made when the twin first
        runs (the C sorts its own)."""
        out: list[dict[int, list[Cell]]] = []
        for axis in range(3):
            layers: dict[int, list[Cell]] = {}
            for c in self.cells:
                layers.setdefault(c[axis], []).append(c)
            out.append(layers)
        return out

    def flat_cells(self, moving: Sequence[Cell]) -> bytes | None:
        """`moving` as the C reads it, made once by a caller that tries many turns of the same cells (the
        conversion cost more than the C's test); None where the twin will run."""
        if self.flat is None:
            return None
        try:
            return array("i", [x for c in moving for x in c]).tobytes()
        except OverflowError:
            return None

    def blocking(self, moving: Sequence[Cell], turn: Turn, clearance: Fraction,
                 flat: bytes | None = None) -> tuple[Cell, Cell] | None:
        """`blocking` against these static cubes: in C when built and within its bounds, else the twin.
        `flat` is `flat_cells(moving)` when the caller has it."""
        if flat is None:
            flat = self.flat_cells(moving)
        if flat is not None and self.flat is not None:
            u, v = PLANES[turn.axis]
            try:
                got = _turns.blocking(flat, self.flat,
                                      turn.axis, turn.sense, turn.pivot2[u], turn.pivot2[v],
                                      clearance.numerator, clearance.denominator)
            except OverflowError:  # a coordinate or the clearance past 64 bits
                got = _turns.TOO_BIG
            if got == _turns.FREE:
                return None
            if got != _turns.TOO_BIG:
                i, j = divmod(got, len(self.cells))
                return moving[i], self.cells[j]
        return self.blocking_twin(moving, turn, clearance)

    def blocking_twin(self, moving: Sequence[Cell], turn: Turn, clearance: Fraction) -> tuple[Cell, Cell] | None:
        """The readable twin of `_turns.blocking`: end cells first (cheap), then the sweeps."""
        static_set = self.static
        r, sh = turn.rotation, turn.shift
        for c in moving:
            e = r.apply(c)
            end = (e[0] + sh[0], e[1] + sh[1], e[2] + sh[2])
            if end in static_set:
                return c, end
        axis = turn.axis
        u, v = PLANES[axis]
        layers = self.layers[axis]
        pu, pv = turn.pivot2[u], turn.pivot2[v]
        sense = turn.sense
        for c in moving:
            near = layers.get(c[axis])
            if not near:
                continue
            # doubled lower corners relative to the pivot; a negative turn is a positive one mirrored in v
            # (the mirrored square's lower corner is then at -(v + 1))
            au, av = 2 * c[u] - pu, 2 * c[v] - pv
            a = (au, av) if sense > 0 else (au, -av - 2)
            reach = (abs(au) + 2) ** 2 + (abs(av) + 2) ** 2  # beyond this doubled radius^2 nothing is met
            for s in near:
                bu, bv = 2 * s[u] - pu, 2 * s[v] - pv
                if (max(bu, -bu - 2, 0) ** 2 + max(bv, -bv - 2, 0) ** 2) >= reach:
                    continue
                b = (bu, bv) if sense > 0 else (bu, -bv - 2)
                if sweep_hits_twin(a, b, clearance):
                    return c, s
        return None


def allowed_turns(moving: Sequence[Cell], scene: Scene, clearance: Fraction) -> list[Turn]:
    """Every quarter turn of the `moving` cells that the static cubes of `scene` allow: about each axis,
    through every pivot on the grid (cell centre or corner in the plane of the turn) within the moving
    cells' in-plane box grown by one cell on every side, both senses; in the order axis, pivot, sense.

    One call into C (`_turns.allowed`) for the whole loop where it is built and within its bounds: the
    search asks this for every movable set of every state, and a call per turn cost more in Python
    than the C's test. Otherwise, or with the scene's `native=False`, the twin."""
    flat = scene.flat_cells(moving) if moving else None
    if flat is not None and scene.flat is not None:
        try:
            got = _turns.allowed(flat, scene.flat, clearance.numerator, clearance.denominator)
        except OverflowError:  # the clearance past 64 bits
            got = None
        if got is not None:
            return [Turn(axis, _pivot(axis, pu, pv), sense) for axis, pu, pv, sense in got]
    return allowed_turns_twin(moving, scene, clearance)


def allowed_turns_twin(moving: Sequence[Cell], scene: Scene, clearance: Fraction) -> list[Turn]:
    """The readable twin of `_turns.allowed`: `allowed_turns` turn by turn, each through `Scene.blocking`
    (C per turn where built, else its twin)."""
    flat = scene.flat_cells(moving)
    return [turn for turn in candidate_turns(moving) if scene.blocking(moving, turn, clearance, flat) is None]


def candidate_turns(moving: Sequence[Cell]) -> Iterator[Turn]:
    """The quarter turns `allowed_turns` tries for these cells, in its order: about each axis, through
    every cell centre and corner of their in-plane box grown by one cell on every side, both senses."""
    if not moving:
        return
    for axis in range(3):
        u, v = PLANES[axis]
        lo_u, hi_u = min(c[u] for c in moving), max(c[u] for c in moving)
        lo_v, hi_v = min(c[v] for c in moving), max(c[v] for c in moving)
        for pu in range(2 * lo_u - 2, 2 * hi_u + 5):
            for pv in range(2 * lo_v - 2 + pu % 2, 2 * hi_v + 5, 2):
                for sense in (1, -1):
                    yield Turn(axis, _pivot(axis, pu, pv), sense)


def _pivot(axis: int, pu: int, pv: int) -> Cell:
    """The doubled pivot of a turn about `axis` from its two in-plane coordinates (axis coordinate 0)."""
    p2 = [0, 0, 0]
    u, v = PLANES[axis]
    p2[u], p2[v] = pu, pv
    return (p2[0], p2[1], p2[2])


def sweep_hits(a2: tuple[int, int], b2: tuple[int, int], clearance: Rational = 0, native: bool = True) -> bool:
    """Whether the unit square with doubled lower corner `a2` (relative to the pivot at the origin),
    turned counterclockwise through every angle from 0 to 90 degrees, overlaps the interior of the
    static unit square with doubled lower corner `b2`; each square shrunk by `clearance` on every side.
    Exact (see the module's docstring): in C when built and within its bounds, else `sweep_hits_twin`."""
    c = Fraction(clearance)
    if native and _turns is not None:
        try:
            got = _turns.sweep_hits(a2[0], a2[1], b2[0], b2[1], c.numerator, c.denominator)
        except OverflowError:
            got = _turns.TOO_BIG
        if got != _turns.TOO_BIG:
            return bool(got)
    return sweep_hits_twin(a2, b2, c)


@functools.lru_cache(maxsize=1 << 16)
def sweep_hits_twin(a2: tuple[int, int], b2: tuple[int, int], clearance: Fraction = Fraction(0)) -> bool:
    """`sweep_hits` in Python (`Fraction`), the readable twin of `_turns.c`'s: cached, since a search
    meets the same pairs relative to the pivot again and again."""
    c = clearance
    a0, b0 = Fraction(a2[0], 2) + c, Fraction(a2[1], 2) + c
    a1, b1 = a0 + 1 - 2 * c, b0 + 1 - 2 * c
    c0, d0 = Fraction(b2[0], 2) + c, Fraction(b2[1], 2) + c
    c1, d1 = c0 + 1 - 2 * c, d0 + 1 - 2 * c
    if a1 <= a0 or c1 <= c0:
        return False  # squares shrunk to nothing
    # distances from the pivot are kept by the turn: radial ranges that do not overlap cannot meet
    if _rmax2(a0, a1, b0, b1) <= _rmin2(c0, c1, d0, d1) or _rmin2(a0, a1, b0, b1) >= _rmax2(c0, c1, d0, d1):
        return False
    groups: list[list[Quadratic]] = []
    for group in _separations(a0, a1, b0, b1, c0, c1, d0, d1):
        # a quadratic <= 0 on all of [0, 1] never makes this separation fail: left out; one > 0 on all of
        # it makes it fail everywhere: the group says nothing; a group left empty holds everywhere
        live = [q for q in group if _max01(q) > 0]
        if not live:
            return False
        if not any(_min01(q) > 0 for q in live):
            groups.append(live)
    if not groups:
        return True
    roots: list[_Root] = []
    for group in groups:
        for q in group:
            roots += _roots_in_unit(q)
    points = [_Root(Fraction(0)), _Root(Fraction(1))] + roots
    points.sort(key=functools.cmp_to_key(_compare))
    distinct = [points[0]]
    for p in points[1:]:
        if _compare(p, distinct[-1]) != 0:
            distinct.append(p)
    for lo, hi in zip(distinct, distinct[1:], strict=False):
        t = _between(lo, hi)
        if all(any(_value(q, t) > 0 for q in group) for group in groups):
            return True
    return False


def _rmin2(x0: Fraction, x1: Fraction, y0: Fraction, y1: Fraction) -> Fraction:
    dx = max(x0, -x1, Fraction(0))
    dy = max(y0, -y1, Fraction(0))
    return dx * dx + dy * dy


def _rmax2(x0: Fraction, x1: Fraction, y0: Fraction, y1: Fraction) -> Fraction:
    return max(x0 * x0, x1 * x1) + max(y0 * y0, y1 * y1)


Quadratic = tuple[Fraction, Fraction, Fraction]
"""(q2, q1, q0): q2 t^2 + q1 t + q0."""


def _quadratic(alpha: Fraction, beta: Fraction, gamma: Fraction) -> Quadratic:
    """(1 + t^2)(alpha cos a + beta sin a + gamma) with t = tan(a / 2)."""
    return (gamma - alpha, 2 * beta, alpha + gamma)


def _separations(a0: Fraction, a1: Fraction, b0: Fraction, b1: Fraction,
                 c0: Fraction, c1: Fraction, d0: Fraction, d1: Fraction) -> list[list[Quadratic]]:
    """The 8 ways the turned square [a0,a1]x[b0,b1] and the static [c0,c1]x[d0,d1] can be separated,
    each as 4 quadratics that must all be <= 0 (a corner on the right side of the line)."""
    mov = [(x, y) for x in (a0, a1) for y in (b0, b1)]
    sta = [(x, y) for x in (c0, c1) for y in (d0, d1)]
    q = _quadratic
    return [
        [q(x, -y, -c0) for x, y in mov],   # turned square left of x = c0: x cos - y sin <= c0
        [q(-x, y, c1) for x, y in mov],    # right of x = c1
        [q(y, x, -d0) for x, y in mov],    # below y = d0: x sin + y cos <= d0
        [q(-y, -x, d1) for x, y in mov],   # above y = d1
        [q(x, y, -a0) for x, y in sta],    # static corners before the turned square along u = (cos, sin)
        [q(-x, -y, a1) for x, y in sta],   # after it
        [q(y, -x, -b0) for x, y in sta],   # along v = (-sin, cos): before
        [q(-y, x, b1) for x, y in sta],    # after
    ]


def _extremes01(q: Quadratic) -> list[Fraction]:
    """The values a quadratic's minimum and maximum on [0, 1] are among: its ends and its vertex."""
    out = [q[2], q[0] + q[1] + q[2]]
    if q[0] != 0:
        top = -q[1] / (2 * q[0])
        if 0 < top < 1:
            out.append(_value(q, top))
    return out


def _max01(q: Quadratic) -> Fraction:
    return max(_extremes01(q))


def _min01(q: Quadratic) -> Fraction:
    return min(_extremes01(q))


def _value(q: Quadratic, t: Fraction) -> Fraction:
    return (q[0] * t + q[1]) * t + q[2]


@dataclass(frozen=True)
class _Root:
    """p + q sqrt(d): a root of a rational quadratic (q = 0: rational)."""

    p: Fraction
    q: Fraction = Fraction(0)
    d: int = 0


def _roots_in_unit(quad: Quadratic) -> list[_Root]:
    """The real roots of a quadratic that lie in [0, 1] (a zero polynomial has none that matter: it is
    never > 0)."""
    q2, q1, q0 = quad
    out: list[_Root] = []
    if q2 == 0:
        if q1 != 0:
            out.append(_Root(-q0 / q1))
    else:
        disc = q1 * q1 - 4 * q2 * q0
        if disc < 0:
            return []
        n, m = disc.numerator, disc.denominator  # sqrt(n/m) = sqrt(n m) / m
        d = n * m
        s = math.isqrt(d)
        centre = -q1 / (2 * q2)
        if s * s == d:
            half = Fraction(s, m) / (2 * q2)
            out += [_Root(centre + half), _Root(centre - half)]
        else:
            coef = Fraction(1, m) / (2 * q2)
            out += [_Root(centre, coef, d), _Root(centre, -coef, d)]
    zero, one = _Root(Fraction(0)), _Root(Fraction(1))
    return [r for r in out if _compare(r, zero) >= 0 and _compare(r, one) <= 0]


def _sign(x: Fraction | int) -> int:
    return (x > 0) - (x < 0)


def _sign_root_sum(g: Fraction, h: Fraction, k: int) -> int:
    """The sign of g + h sqrt(k), exactly (k >= 0)."""
    sg, sh = _sign(g), _sign(h) if k else 0
    if sh == 0:
        return sg
    if sg == 0 or sg == sh:
        return sh
    # opposite signs: the larger magnitude wins
    return sg * _sign(g * g - h * h * k)


def _compare(x: _Root, y: _Root) -> int:
    """The sign of x - y, exactly: e + a sqrt(m) - b sqrt(n) with e = x.p - y.p."""
    e, a, m, b, n = x.p - y.p, x.q, x.d, y.q, y.d
    if not m:
        a = Fraction(0)
    if not n:
        b = Fraction(0)
    if b == 0:
        return _sign_root_sum(e, a, m)
    if a == 0:
        return _sign_root_sum(e, -b, n)
    # s = a sqrt(m) - b sqrt(n)
    s_sign = _sign_root_sum(Fraction(0), a, m) if _sign(a) != _sign(b) else _sign(a) * _sign(a * a * m - b * b * n)
    es = _sign(e)
    if s_sign == 0 or es == 0 or es == s_sign:
        return s_sign or es
    # opposite signs: compare e^2 with s^2 = a^2 m + b^2 n - 2ab sqrt(mn)
    return es * _sign_root_sum(e * e - a * a * m - b * b * n, 2 * a * b, m * n)


def _bounds(x: _Root, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= x <= hi, hi - lo of order 2^-bits times |q|."""
    if x.q == 0 or not x.d:
        return x.p, x.p
    scale = 1 << bits
    s = math.isqrt(x.d * scale * scale)
    lo_r, hi_r = Fraction(s, scale), Fraction(s + 1, scale)  # lo_r <= sqrt(d) <= hi_r
    ends = sorted((x.p + x.q * lo_r, x.p + x.q * hi_r))
    return ends[0], ends[1]


def _between(lo: _Root, hi: _Root) -> Fraction:
    """A rational strictly between two roots lo < hi."""
    bits = 16
    while True:
        _, up = _bounds(lo, bits)
        down, _ = _bounds(hi, bits)
        if up < down:
            return (up + down) / 2
        if up == down and _compare(_Root(up), lo) > 0 and _compare(_Root(up), hi) < 0:
            return up
        bits *= 2


def swept_cells(moving: Sequence[Cell], turn: Turn) -> set[Cell]:
    """Every cell whose interior a moving cube passes through during the turn (for pictures and tests):
    the cells of the same layers that `sweep_hits` says overlap."""
    u, v = PLANES[turn.axis]
    out: set[Cell] = set()
    for c in moving:
        r2 = max(abs(2 * c[u] + du - turn.pivot2[u]) ** 2 + abs(2 * c[v] + dv - turn.pivot2[v]) ** 2
                 for du in (0, 2) for dv in (0, 2))
        reach = math.isqrt(r2) // 2 + 2
        pu, pv = turn.pivot2[u] // 2, turn.pivot2[v] // 2
        for i in range(pu - reach, pu + reach + 1):
            for j in range(pv - reach, pv + reach + 1):
                s = [0, 0, 0]
                s[turn.axis], s[u], s[v] = c[turn.axis], i, j
                cell = (s[0], s[1], s[2])
                if blocking([c], [cell], turn) is not None:
                    out.add(cell)
    return out
