"""An exact-cover problem as CNF: one variable per placement, cardinality constraints from pysat.

Variables 1..n_rows are the row literals (variable r+1 true = row r chosen), the same numbering as
`ExactCoverProblem.side_clauses`, so side clauses are copied as they are; auxiliary variables of
the cardinality encodings come after. Every cell gets "exactly one", every piece "exactly count";
an optional cell gets "at most one" and a piece with a range [low, count] "at least low" and
"at most count" (the two halves of the same pysat encoding).

The default encoding is what `benchmarks/sat_encodings.py` measured fastest (see its results in
`results/sat-encodings.md`). Encodings that only express "at most one" (pairwise, bitwise, ladder)
fall back to `seqcounter` for a piece with several copies; the fallback is deterministic, so the
fingerprint of an export still identifies the CNF exactly.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import CpsolveError
from ..limits import active, exceeded
from .placements import ExactCoverProblem

ENCODINGS: tuple[str, ...] = (
    "pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder",
    "totalizer", "mtotalizer", "kmtotalizer",
)
AT_MOST_ONE_ONLY = frozenset({"pairwise", "bitwise", "ladder"})
"""pysat builds these only for bound 1; a piece with k > 1 copies uses `FALLBACK` instead."""
FALLBACK = "seqcounter"
DEFAULT_ENCODING = "bitwise"
"""Measured best (`python benchmarks/sat_encodings.py --timeout 2`, results/sat-encodings.md): fewest
variables bar pairwise, and the lowest summed first-solution + enumeration time with every solver tried."""

Clause = tuple[int, ...]


@dataclass(frozen=True)
class Cnf:
    """A CNF whose variables 1..n_rows are the problem's rows; auxiliaries are n_rows+1..n_vars."""

    n_vars: int
    clauses: tuple[Clause, ...]
    n_rows: int
    encoding: str = DEFAULT_ENCODING


def check_encoding(encoding: str) -> str:
    """The encoding name if pysat ships it; otherwise a one-line error listing the known names."""
    if encoding not in ENCODINGS:
        raise CpsolveError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})", field="encoding")
    return encoding


def _groups(problem: ExactCoverProblem) -> list[tuple[Sequence[int], int, int]]:
    """(rows, fewest, most) chosen of each cell's rows and each piece's rows."""
    optional = problem.optional_set
    groups: list[tuple[Sequence[int], int, int]] = [
        (rows, 0 if c in optional else 1, 1) for c, rows in enumerate(problem.rows_by_cell)]
    groups += list(zip(problem.rows_by_piece, problem.piece_low, problem.piece_counts, strict=True))
    return groups


def encode(problem: ExactCoverProblem, encoding: str = DEFAULT_ENCODING) -> Cnf:
    """The CNF of `problem`: exactly one row per cell, exactly `count` rows per piece, side clauses.

    Its size is checked first (`literal_bound`, `--max-literals`): pysat builds each cardinality
    constraint in one C++ call that cannot be stopped or bounded once it starts."""
    check_encoding(encoding)
    if (why := too_big(problem, encoding)) is not None:
        raise CpsolveError(why)
    top = len(problem.rows)
    clauses: list[Clause] = []
    for rows, low, high in _groups(problem):
        if low == high:
            new, top = exactly(rows, high, top, encoding)
        else:
            new, top = between(rows, low, high, top, encoding)
        clauses.extend(new)
    clauses.extend(tuple(c) for c in problem.side_clauses)
    return Cnf(top, tuple(clauses), len(problem.rows), encoding)


def exactly(rows: Sequence[int], bound: int, top: int, encoding: str) -> tuple[list[Clause], int]:
    """Clauses saying exactly `bound` of the row literals hold, with auxiliaries above `top`.

    An empty group that must hold something is the empty clause (the problem has no solution);
    pysat would instead return a CNF that silently drops the requirement.
    """
    from pysat.card import CardEnc, EncType

    lits = [r + 1 for r in rows]
    if bound > len(lits):
        return [()], top
    if bound == 0:
        return [(-v,) for v in lits], top
    if bound == len(lits):
        return [(v,) for v in lits], top
    if bound > 1 and encoding in AT_MOST_ONE_ONLY:
        encoding = FALLBACK
    cnf = CardEnc.equals(lits=lits, bound=bound, top_id=top, encoding=getattr(EncType, encoding))
    return [tuple(c) for c in cnf.clauses], max(top, cnf.nv)


def between(rows: Sequence[int], low: int, high: int, top: int, encoding: str) -> tuple[list[Clause], int]:
    """Clauses saying at least `low` and at most `high` of the row literals hold (low < high)."""
    from pysat.card import CardEnc, EncType

    lits = [r + 1 for r in rows]
    out: list[Clause] = []
    if low > len(lits):
        return [()], top
    if low > 0:
        kind = FALLBACK if low > 1 and encoding in AT_MOST_ONE_ONLY else encoding
        if low == 1:
            out.append(tuple(lits))
        else:
            cnf = CardEnc.atleast(lits=lits, bound=low, top_id=top, encoding=getattr(EncType, kind))
            out += [tuple(c) for c in cnf.clauses]
            top = max(top, cnf.nv)
    if high < len(lits):
        kind = FALLBACK if high > 1 and encoding in AT_MOST_ONE_ONLY else encoding
        if high == 0:
            out += [(-v,) for v in lits]
        else:
            cnf = CardEnc.atmost(lits=lits, bound=high, top_id=top, encoding=getattr(EncType, kind))
            out += [tuple(c) for c in cnf.clauses]
            top = max(top, cnf.nv)
    return out, top


def too_big(problem: ExactCoverProblem, encoding: str = DEFAULT_ENCODING) -> str | None:
    """Why the problem's CNF is too big to build (its `literal_bound` over `--max-literals`), or None."""
    size = literal_bound(problem, encoding)
    if size > active().max_literals:
        return exceeded("max_literals", "the SAT model's estimated size in literals", size).message
    return None


def literal_bound(problem: ExactCoverProblem, encoding: str = DEFAULT_ENCODING) -> int:
    """An upper bound on the literals of `encode(problem, encoding)`, from the sizes of its groups alone.

    The 27x27x27 box of 6,561 rods asks for exactly 6,561 of 54,675 placements: pysat's sequential
    counter for it has some 17 billion literals, and C++'s std::bad_alloc ended the process after
    3 GB. Each encoding's bound (`CARDINALITY`) was fitted to pysat's own output and is checked
    against it (tests/test_limits.py); on the built-in models it is within 1.3x of the real size with
    the default encoding, 3.3x with most others, 36x with cardnetwrk and kmtotalizer (which grow with
    the bound, which the bound leaves out).
    """
    total = sum(len(c) for c in problem.side_clauses)
    for rows, low, high in _groups(problem):
        n = len(rows)
        if low == high:
            total += _exactly_bound(n, high, encoding)
            continue
        if 0 < low <= n:
            total += n if low == 1 else _card_bound(n, low, _for_bound(low, encoding), "atleast")
        if high < n:
            total += n if high == 0 else _card_bound(n, high, _for_bound(high, encoding), "atmost")
    return total


def _for_bound(bound: int, encoding: str) -> str:
    """The encoding `exactly`/`between` use for a bound: the fallback when the encoding only does 1."""
    return FALLBACK if bound > 1 and encoding in AT_MOST_ONE_ONLY else encoding


def _exactly_bound(n: int, bound: int, encoding: str) -> int:
    if bound > n:
        return 0
    if bound in (0, n):
        return n
    return _card_bound(n, bound, _for_bound(bound, encoding), "equals")


def _card_bound(n: int, bound: int, encoding: str, kind: str) -> int:
    """Literals of pysat's `CardEnc.<kind>` over n literals: (constant for "equals", for one side) times
    the encoding's growth, with m the smaller of the bound and n - bound (pysat encodes the cheaper side)."""
    m = min(bound, n - bound)
    both, one, growth = CARDINALITY[encoding]
    return math.ceil((both if kind == "equals" else one) * growth(n, m)) + 2 * n


def _log2(n: int) -> int:
    return max(1, math.ceil(math.log2(max(n, 2))))


CARDINALITY: dict[str, tuple[float, float, Callable[[int, int], float]]] = {
    "pairwise": (1.0, 1.0, lambda n, m: n * n),
    "bitwise": (2.0, 1.9, lambda n, m: n * _log2(n)),
    "ladder": (8.5, 7.5, lambda n, m: n),
    "seqcounter": (10.5, 5.25, lambda n, m: n * m),
    "totalizer": (4.2, 2.0, lambda n, m: n * n),
    "sortnetwrk": (7.0, 3.5, lambda n, m: n * _log2(n) ** 2),
    "cardnetwrk": (6.5, 3.2, lambda n, m: n * _log2(n) ** 2),
    "mtotalizer": (13.0, 6.5, lambda n, m: n ** 1.5),
    "kmtotalizer": (14.5, 7.0, lambda n, m: n ** 1.5),
}
"""Per encoding: the factor for "equals" (both sides), for one side ("atmost", "atleast"), and how the
size grows with n (and m), plus 2n: the largest ratio pysat's output reached for n up to 1,500 and
bounds from 1 to n - 1 (pairwise, bitwise and ladder: 1 only), with 5 % to spare; tests/test_limits.py
checks them against pysat up to n = 700."""


def fingerprint(cnf: Cnf) -> str:
    """A short sha256 over the header numbers and every clause: equal iff the CNF is the same."""
    digest = hashlib.sha256(f"p cnf {cnf.n_vars} {len(cnf.clauses)} rows {cnf.n_rows}\n".encode())
    for clause in cnf.clauses:
        digest.update((" ".join(map(str, clause)) + " 0\n").encode())
    return digest.hexdigest()[:16]


def satisfies(clauses: Sequence[Clause], true_literals: set[int]) -> int | None:
    """The index of the first clause with no true literal, or None when every clause holds."""
    return next((i for i, c in enumerate(clauses) if not any(lit in true_literals for lit in c)), None)
