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
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import CpsolveError
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


def encode(problem: ExactCoverProblem, encoding: str = DEFAULT_ENCODING) -> Cnf:
    """The CNF of `problem`: exactly one row per cell, exactly `count` rows per piece, side clauses."""
    check_encoding(encoding)
    top = len(problem.rows)
    clauses: list[Clause] = []
    optional = problem.optional_set
    groups = [(rows, 0 if c in optional else 1, 1) for c, rows in enumerate(problem.rows_by_cell)]
    groups += list(zip(problem.rows_by_piece, problem.piece_low, problem.piece_counts, strict=True))
    for rows, low, high in groups:
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


def fingerprint(cnf: Cnf) -> str:
    """A short sha256 over the header numbers and every clause: equal iff the CNF is the same."""
    digest = hashlib.sha256(f"p cnf {cnf.n_vars} {len(cnf.clauses)} rows {cnf.n_rows}\n".encode())
    for clause in cnf.clauses:
        digest.update((" ".join(map(str, clause)) + " 0\n").encode())
    return digest.hexdigest()[:16]


def satisfies(clauses: Sequence[Clause], true_literals: set[int]) -> int | None:
    """The index of the first clause with no true literal, or None when every clause holds."""
    return next((i for i, c in enumerate(clauses) if not any(lit in true_literals for lit in c)), None)
