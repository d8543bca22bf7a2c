"""The mean and standard error of random walks whose values may pass a double's range.

A walk's value is a product of branching degrees (Knuth's estimate): 54 T-tetracubes give about 1e15,
the 864 dominoes of a 12x12x12 box about 1e260 (its square, which the variance needs, is past 1e308),
and 6,561 rods of a 27x27x27 box far more. The compiled walks therefore hand each value over as a pair
(v, k) standing for v x 2^k (`_estimate.c`, `rescale`), and the sums here are kept the same way: every
group of walks (a stratum) holds its sums divided by 2^shift, its own shift raised whenever a larger
value arrives. So nothing overflows, and where the values fit in a double the arithmetic is the plain
one. What leaves this module is a `Scaled` pair again, turned into a float (inf past the range) or a
power of ten for printing only at the end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Scaled = tuple[float, int]
"""(v, k): the number v x 2^k, v a non-negative double (k may exceed a double's exponent range)."""

HEADROOM = 256
"""A stratum's sums are kept below 2^(2 x HEADROOM) times its largest value squared: the shift is moved
up when a value more than 2^HEADROOM times the current scale arrives (the squares then still fit)."""


def as_float(x: Scaled) -> float:
    """The number as a double: inf past its range (about 1.8e308), 0.0 below it."""
    v, k = x
    if v == 0.0:
        return 0.0
    try:
        return math.ldexp(v, k)
    except OverflowError:
        return math.inf


def log10_of(x: Scaled) -> float | None:
    """log10 of the number (None for 0): finite however large it is."""
    v, k = x
    if v <= 0.0:
        return None
    return math.log10(v) + k * math.log10(2.0)


def normal(x: Scaled) -> Scaled:
    """The same number with v in [0.5, 1) (or (0.0, 0)), so that two of them compare by k first."""
    v, k = x
    if v == 0.0:
        return 0.0, 0
    m, e = math.frexp(v)
    return m, k + e


def order(x: Scaled) -> tuple[bool, int, float]:
    """A sort key of scaled numbers: by size, whatever their shifts (0 first)."""
    v, k = normal(x)
    return v > 0.0, k, v


def add_scaled(values: Iterable[Scaled]) -> Scaled:
    """The sum of numbers in scaled form (scaled to the largest: the small ones may vanish, as in any float sum)."""
    items = [normal(x) for x in values if x[0] > 0.0]
    if not items:
        return 0.0, 0
    top = max(k for _, k in items)
    return math.fsum(math.ldexp(v, k - top) for v, k in items), top


def times(x: Scaled, factor: float) -> Scaled:
    return x[0] * factor, x[1]


def sqrt_scaled(x: Scaled) -> Scaled:
    """The square root (the standard error from a variance)."""
    v, k = normal(x)
    if v == 0.0:
        return 0.0, 0
    if k % 2:
        v, k = v * 2.0, k - 1
    return math.sqrt(v), k // 2


def fmt(x: Scaled, digits: int = 4, grouped: bool = True) -> str:
    """The number for a person: `12,345` below a billion (with `grouped`), `1.235e+14`, and past a double's
    range still `3.1e+2740` (from its logarithm)."""
    f = as_float(x)
    if math.isfinite(f):
        if grouped and abs(f) < 1e9:
            return f"{f:,.0f}" if f >= 100 or f == int(f) else f"{f:.{digits - 1}g}"
        return f"{f:.{digits - 1}e}"
    exp10 = log10_of(x) or 0.0
    whole = math.floor(exp10)
    return f"{10 ** (exp10 - whole):.{digits - 1}f}e+{whole}"


@dataclass
class Moments:
    """Running sums of one stratum's walks: their number, those that found something (value > 0), the
    engine nodes they cost, and the sum, the sum of squares and the largest value, all divided by
    2^shift. Mergeable in any order (a worker's share, a journal's record)."""

    n: int = 0
    reached: int = 0
    nodes: int = 0
    shift: int = 0
    s1: float = 0.0
    s2: float = 0.0
    top: float = 0.0

    def add(self, value: float, shift: int = 0, nodes: int = 0) -> None:
        """One walk worth value x 2^shift."""
        self.n += 1
        self.nodes += nodes
        if value <= 0.0:
            return
        self.reached += 1
        v, k = normal((value, shift))
        if self.s1 == 0.0 and self.top == 0.0:
            self.shift = k
        elif k > self.shift + HEADROOM:
            self._raise_to(k)
        x = math.ldexp(v, k - self.shift)
        self.s1 += x
        self.s2 += x * x
        self.top = max(self.top, x)

    def _raise_to(self, shift: int) -> None:
        d = self.shift - shift
        self.s1, self.s2, self.top = math.ldexp(self.s1, d), math.ldexp(self.s2, 2 * d), math.ldexp(self.top, d)
        self.shift = shift

    def merge(self, other: Moments) -> None:
        self.n += other.n
        self.reached += other.reached
        self.nodes += other.nodes
        if other.s1 == 0.0 and other.top == 0.0:
            return
        if self.s1 == 0.0 and self.top == 0.0:
            self.shift, self.s1, self.s2, self.top = other.shift, other.s1, other.s2, other.top
            return
        o1, o2, otop = other.s1, other.s2, other.top
        if other.shift > self.shift:
            self._raise_to(other.shift)
        d = other.shift - self.shift
        self.s1 += math.ldexp(o1, d)
        self.s2 += math.ldexp(o2, 2 * d)
        self.top = max(self.top, math.ldexp(otop, d))

    def mean(self) -> Scaled:
        return (self.s1 / self.n, self.shift) if self.n else (0.0, 0)

    def variance_of_mean(self) -> Scaled:
        """The sample variance of the values over n: the squared standard error of `mean`."""
        if self.n < 2:
            return 0.0, 0
        m = self.s1 / self.n
        var = max(self.s2 / self.n - m * m, 0.0) * self.n / (self.n - 1)
        return var / self.n, 2 * self.shift

    def largest(self) -> Scaled:
        return self.top, self.shift

    def as_tuple(self) -> tuple[int, int, int, int, float, float, float]:
        return self.n, self.reached, self.nodes, self.shift, self.s1, self.s2, self.top

    @classmethod
    def from_tuple(cls, t: Sequence[float]) -> Moments:
        n, reached, nodes, shift = (int(x) for x in t[:4])
        return cls(n, reached, nodes, shift, float(t[4]), float(t[5]), float(t[6]))


def stratified(parts: Iterable[tuple[float, Moments]]) -> tuple[Scaled, Scaled]:
    """The stratified estimate sum_j w_j x mean_j and its variance sum_j w_j^2 x var(mean_j), over
    (weight, moments) pairs; a stratum without walks contributes nothing."""
    means, variances = [], []
    for w, m in parts:
        if m.n == 0:
            continue
        means.append(times(m.mean(), w))
        variances.append(times(m.variance_of_mean(), w * w))
    return add_scaled(means), add_scaled(variances)
