"""Files for other solvers: DIMACS CNF and Knuth's XCC out, a SAT solver's answer back in.

An exported CNF names its puzzle, encoding and symmetry breaking, a fingerprint of its clauses and
the meaning of every row variable in `c` lines. `decode` trusts none of it: it rebuilds the CNF from
the model with the recorded options, requires the same fingerprint (so the file is neither from
another model nor edited), checks the solver's assignment against every clause, and checks the
chosen placements as an exact cover before anything is drawn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import CpsolveError
from ..problem.cnf import Cnf, check_encoding, encode, fingerprint, satisfies
from ..problem.placements import ExactCoverProblem
from ..puzzle.geometry import Cell
from ..search.enumeration import Prepared
from .text import printable

STATUSES = ("SATISFIABLE", "UNSATISFIABLE", "UNKNOWN")


# ---------------------------------------------------------------- DIMACS out


def var_lines(problem: ExactCoverProblem) -> list[str]:
    """`c var V PIECE x,y,z;...` for every row variable: what a true literal V places where."""
    out = []
    names = [printable(n) for n in problem.piece_names]
    for r, row in enumerate(problem.rows):
        cells = ";".join(",".join(map(str, problem.cells[c])) for c in row.cells)
        out.append(f"c var {r + 1} {names[row.piece]} {cells}")
    return out


def comment_value(text: str) -> str:
    """A name as the value of a DIMACS or XCC comment, and as `read_cnf` reads it back: on one line
    (`printable` escapes what could end it) and without the spaces at its ends, which a comment
    does not keep."""
    return printable(text).strip()


def write_dimacs(cnf: Cnf, problem: ExactCoverProblem, meta: dict[str, str]) -> str:
    """The CNF as DIMACS text, headed by the comments `decode` needs (puzzle, options, fingerprint).

    Names are written with `comment_value`, so each comment stays one line whatever the puzzle's
    names hold: a newline in a name once added `p cnf` and clause lines to the file."""
    head = ["c cpsolve export", *(f"c {k} {comment_value(v)}" for k, v in meta.items()),
            f"c encoding {cnf.encoding}", f"c rows {cnf.n_rows}", f"c fingerprint {fingerprint(cnf)}",
            *var_lines(problem), f"p cnf {cnf.n_vars} {len(cnf.clauses)}"]
    body = (" ".join(map(str, c)) + " 0" for c in cnf.clauses)
    return "\n".join([*head, *body]) + "\n"


# ---------------------------------------------------------------- XCC out


def write_xcc(problem: ExactCoverProblem) -> str:
    """Knuth's DLX input: the item line, then one option (placement) per line.

    Every item is primary: each cell exactly once, each single piece exactly once. A piece with k
    identical copies cannot be k separate items (every solution would appear k! times). When only one
    piece has copies, it gets no item at all: all other pieces are used exactly once and the cells
    are covered exactly once, so the volume left is exactly k copies of it (DLX1/DLX2 format). With
    several such pieces the volume no longer decides, and the items carry DLX3's multiplicity
    `k|NAME` ("covered exactly k times"), which only DLX3 and later read.

    Optional cells are secondary items, listed after `|` on the item line (covered at most once),
    and a piece with a range gets DLX3's `low:high|NAME`; with either, the volume never decides a
    piece's count, so every piece has its item.
    """
    if problem.side_clauses:
        raise CpsolveError("a chain's joints are clauses, which XCC cannot express; use the dimacs format",
                           field="format")
    cells = cell_items(problem.cells)
    pieces = piece_items(problem.piece_names, set(cells))
    multi = [p for p, k in enumerate(problem.piece_counts) if k > 1]
    if problem.features():
        multi = [*multi, -1]  # never leave a piece out: the volume does not decide its count
    low, high = problem.piece_low, problem.piece_counts
    primary = [cells[c] for c in problem.required]
    items = [*primary, *(_piece_item(p, pieces[p], high[p], multi, low[p]) for p in range(problem.n_pieces))]
    secondary = [cells[c] for c in problem.optional]
    counts = [str(high[p]) if low[p] == high[p] else f"{low[p]}..{high[p]}" for p in range(problem.n_pieces)]
    head = [f"| cpsolve export of {comment_value(problem.name)}: cells x,y,z are items x<x>y<y>z<z>, pieces by name",
            *(f"| item {pieces[p]} = piece {comment_value(n)} x{counts[p]}" for p, n in enumerate(problem.piece_names)),
            " ".join([*(i for i in items if i), *(["|", *secondary] if secondary else [])])]
    options = (" ".join(([pieces[row.piece]] if len(multi) != 1 or row.piece != multi[0] else [])
                        + [cells[c] for c in row.cells]) for row in problem.rows)
    return "\n".join([*head, *options]) + "\n"


def _piece_item(p: int, name: str, count: int, multi: list[int], low: int | None = None) -> str:
    if low is not None and low != count:
        return f"{low}:{count}|{name}"
    if count == 1:
        return name
    return "" if len(multi) == 1 else f"{count}|{name}"


def cell_items(cells: Sequence[Cell]) -> list[str]:
    """`x1y2z0` for each cell; `c<i>` when a name would pass DLX1's 8-character limit."""
    names = [f"x{x}y{y}z{z}" for x, y, z in cells]
    return names if all(len(n) <= 8 for n in names) else [f"c{i}" for i in range(len(cells))]


def piece_items(piece_names: Sequence[str], taken: set[str]) -> list[str]:
    """The piece's own name when DLX can read it, else `p<i>`. Knuth's programs read an item name as
    1 to 8 bytes up to white space, with `|` and `:` reserved; cpsolve keeps a name only when it is 1
    to 8 printable ASCII characters other than those (`Würfel` is 6 characters but 7 bytes in UTF-8;
    DLX1 stopped at `Würfelää` with "Item name too long!")."""
    def ok(n: str) -> bool:
        return re.fullmatch(r"[!-~]{1,8}", n) is not None and not set(n) & set("|:") and n not in taken

    names = [n if ok(n) else f"p{i}" for i, n in enumerate(piece_names)]
    return names if len(set(names)) == len(names) and not taken & set(names) else [f"p{i}" for i in range(len(names))]


# ---------------------------------------------------------------- solver output in


def parse_solver_output(text: str, where: str, n_vars: int | None = None) -> tuple[str, frozenset[int]]:
    """The status and true/false literals of SAT-competition output (`s`, `v ... 0`, `c` lines).

    Any malformation is a CpsolveError naming `where` and the line: a solver that printed something
    unexpected must not be half-read.
    """
    status: str | None = None
    lits: list[int] = []
    ended = False
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line == "c" or line.startswith("c "):
            continue
        kind, _, rest = line.partition(" ")
        if kind == "s":
            status = _status_line(rest.strip(), status, where, n)
        elif kind == "v":
            ended = _value_line(rest.split(), lits, ended, where, n)
        else:
            raise CpsolveError(f"unexpected line {line[:40]!r} (want 's', 'v' or 'c' lines)", where=where,
                               field=f"line {n}")
    return status or _no_status(where), _assignment(status, lits, ended, where, n_vars)


def _no_status(where: str) -> str:
    raise CpsolveError("no 's' status line (s SATISFIABLE / s UNSATISFIABLE / s UNKNOWN)", where=where)


def _status_line(value: str, previous: str | None, where: str, n: int) -> str:
    if previous is not None:
        raise CpsolveError("a second 's' status line", where=where, field=f"line {n}")
    if value not in STATUSES:
        raise CpsolveError(f"unknown status {value!r} (want one of {', '.join(STATUSES)})", where=where,
                           field=f"line {n}")
    return value


def _value_line(tokens: list[str], lits: list[int], ended: bool, where: str, n: int) -> bool:
    for token in tokens:
        if ended:
            raise CpsolveError("values after the terminating 0", where=where, field=f"line {n}")
        try:
            lit = int(token)
        except ValueError:
            raise CpsolveError(f"{token[:20]!r} is not an integer literal", where=where, field=f"line {n}") from None
        if lit == 0:
            ended = True
        else:
            lits.append(lit)
    return ended


def _assignment(status: str | None, lits: list[int], ended: bool, where: str, n_vars: int | None) -> frozenset[int]:
    if status != "SATISFIABLE":
        if lits or ended:
            raise CpsolveError(f"'v' lines with status {status}", where=where)
        return frozenset()
    if not ended:
        raise CpsolveError("the 'v' lines do not end with 0 (truncated output?)", where=where)
    if n_vars is not None and (bad := next((v for v in lits if abs(v) > n_vars), None)) is not None:
        raise CpsolveError(f"variable {abs(bad)} is out of range (the CNF has {n_vars})", where=where)
    true = frozenset(lits)
    if (both := next((v for v in true if -v in true), None)) is not None:
        raise CpsolveError(f"variable {abs(both)} is both true and false", where=where)
    return true


# ---------------------------------------------------------------- decoding


@dataclass(frozen=True)
class CnfFile:
    """What an exported CNF says about itself, and the clauses it actually holds."""

    meta: dict[str, str]
    var_lines: tuple[str, ...]
    cnf: Cnf


def read_cnf(text: str, where: str) -> CnfFile:
    """The header comments and clauses of a CNF written by `write_dimacs`."""
    meta: dict[str, str] = {}
    variables: list[str] = []
    header: tuple[int, int] | None = None
    clauses: list[tuple[int, ...]] = []
    current: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith("c var "):
            variables.append(line)
        elif line.startswith("c "):
            key, _, value = line[2:].partition(" ")
            meta.setdefault(key, value.strip())
        elif line.startswith("p "):
            header = _p_line(line, where, n)
        elif line.strip():
            current = _clause_tokens(line, current, clauses, where, n)
    if header is None or "fingerprint" not in meta or current:
        raise CpsolveError("not a CNF written by 'cpsolve export' (no p line, fingerprint or final 0)", where=where)
    n_rows = _int(meta.get("rows", ""), where, "rows")
    return CnfFile(meta, tuple(variables), Cnf(header[0], tuple(clauses), n_rows, meta.get("encoding", "")))


def _p_line(line: str, where: str, n: int) -> tuple[int, int]:
    parts = line.split()
    if len(parts) != 4 or parts[1] != "cnf":
        raise CpsolveError("malformed p line (want 'p cnf VARS CLAUSES')", where=where, field=f"line {n}")
    return _int(parts[2], where, f"line {n}"), _int(parts[3], where, f"line {n}")


def _clause_tokens(line: str, current: list[int], clauses: list[tuple[int, ...]], where: str, n: int) -> list[int]:
    for token in line.split():
        lit = _int(token, where, f"line {n}")
        if lit == 0:
            clauses.append(tuple(current))
            current = []
        else:
            current.append(lit)
    return current


def _int(token: str, where: str, field: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise CpsolveError(f"{token[:20]!r} is not an integer", where=where, field=field) from None


@dataclass(frozen=True)
class Decoded:
    status: str
    problem: ExactCoverProblem | None = None
    rows: tuple[int, ...] = ()


def decode(prepared: Prepared, cnf_text: str, cnf_where: str, output_text: str, output_where: str) -> Decoded:
    """Verify an exported CNF against the puzzle and a solver's answer against the CNF; the chosen rows."""
    exported = read_cnf(cnf_text, cnf_where)
    problem, cnf = rebuild(prepared, exported, cnf_where)
    status, true = parse_solver_output(output_text, output_where, cnf.n_vars)
    if status != "SATISFIABLE":
        return Decoded(status)
    if (bad := satisfies(cnf.clauses, set(true))) is not None:
        clause = " ".join(map(str, cnf.clauses[bad]))
        raise CpsolveError(f"the assignment violates clause {bad + 1} of the CNF ({clause[:60]} 0)", where=output_where)
    rows = tuple(sorted(v - 1 for v in true if 0 < v <= cnf.n_rows))
    if (why := problem.check_solution(rows)) is not None:
        raise CpsolveError(f"the chosen placements are not a solution: {why}", where=output_where)
    return Decoded(status, problem, rows)


def rebuild(prepared: Prepared, exported: CnfFile, where: str) -> tuple[ExactCoverProblem, Cnf]:
    """The problem and CNF the file claims to be, rebuilt from the model; any difference is an error.

    `prepared` is the puzzle with symmetry breaking on: it holds both problems an export can be of.
    """
    meta = exported.meta
    if fingerprint(exported.cnf) != meta["fingerprint"]:
        raise CpsolveError("the clauses do not match the file's fingerprint: it was modified after export", where=where)
    if meta.get("puzzle") != comment_value(prepared.name):
        raise CpsolveError(f"was exported from model {meta.get('puzzle')!r}, not {prepared.name!r}", where=where)
    breaking = meta.get("symmetry-breaking")
    if breaking not in ("on", "off"):
        raise CpsolveError("no 'c symmetry-breaking on|off' line", where=where)
    try:
        encoding = check_encoding(meta.get("encoding", ""))
    except CpsolveError as exc:
        raise exc.located(where) from None
    problem = prepared.broken.problem if breaking == "on" else prepared.problem
    cnf = encode(problem, encoding)
    if fingerprint(cnf) != meta["fingerprint"] or tuple(var_lines(problem)) != exported.var_lines:
        raise CpsolveError("was exported from a different model/options (fingerprint or variable map differs)",
                           where=where)
    return problem, cnf
