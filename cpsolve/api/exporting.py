"""The puzzle for other programs (`export`): DIMACS CNF for SAT solvers, XCC for Knuth's DLX programs,
BurrTools files with solutions stored, STL solids to print.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, overload

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .results import Solution

if TYPE_CHECKING:
    pass


ExportFormat = Literal["dimacs", "xcc", "xmpuzzle", "stl"]


@overload
def export(puzzle: Puzzle, format: Literal["dimacs", "xcc"] = ..., *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> str: ...


@overload
def export(puzzle: Puzzle, format: Literal["xmpuzzle"], *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> bytes: ...


@overload
def export(puzzle: Puzzle, format: Literal["stl"], *, symmetry_breaking: bool = ...,
           encoding: str | None = ..., solutions: Iterable[Solution] = ..., unit: float = ...,
           clearance: float = ...) -> dict[str, bytes]: ...


def export(
    puzzle: Puzzle,
    format: ExportFormat = "dimacs",
    *,
    symmetry_breaking: bool = True,
    encoding: str | None = None,
    solutions: Iterable[Solution] = (),
    unit: float = 10.0,
    clearance: float = 0.0,
) -> str | bytes | dict[str, bytes]:
    """The puzzle for another program: "dimacs" (CNF for any SAT solver; `encoding` is pysat's
    cardinality encoding) or "xcc" (Knuth's DLX programs), as text, of the symmetry-broken problem
    unless told otherwise; "xmpuzzle" (BurrTools, gzip bytes, with `solutions` stored in it); "stl"
    (one binary STL per piece, `{file name: bytes}`, `unit` mm cubes, `clearance` mm between pieces).

    >>> cnf = cpsolve.export(cpsolve.load("soma"))
    >>> cnf.splitlines()[0]
    'c cpsolve export'
    >>> cpsolve.export(cpsolve.load("soma"), "xcc").count("\\n") > 72
    True
    >>> sorted(cpsolve.export(cpsolve.load("soma"), "stl"))[:2]
    ['A.stl', 'B.stl']
    """
    if format == "stl":
        return _stl(puzzle, unit, clearance)
    if format == "xmpuzzle":
        from ..output.burrtools import write_xmpuzzle

        return write_xmpuzzle(puzzle, ({k: list(v) for k, v in s.pieces.items()} for s in solutions))
    if format not in ("dimacs", "xcc"):
        raise CpsolveError(f"unknown format {format!r} (known: dimacs, xcc, xmpuzzle, stl)", field="format")
    if tuple(solutions):
        raise CpsolveError("only the xmpuzzle format stores solutions", field="solutions")
    from ..output.exchange import write_dimacs, write_xcc
    from ..problem.cnf import DEFAULT_ENCODING, encode
    from ..search.enumeration import prepare

    prepared = prepare(puzzle)
    problem = prepared.broken.problem if symmetry_breaking else prepared.problem
    if format == "xcc":
        return write_xcc(problem)
    meta = {"puzzle": prepared.name, "symmetry-breaking": "on" if symmetry_breaking else "off"}
    return write_dimacs(encode(problem, encoding or DEFAULT_ENCODING), problem, meta)


def _stl(puzzle: Puzzle, unit: float, clearance: float) -> dict[str, bytes]:
    """One binary STL per distinct piece (`output.stl.file_names`: a piece used k times is `NAME-xk.stl`)."""
    from ..output.stl import FLOAT32_MAX, binary_stl, file_names, piece_triangles
    from ..puzzle.geometry import bounding_size

    if puzzle.kind == "chain":
        raise CpsolveError("a chain puzzle has no separate pieces to print", where=puzzle.name, field="format")
    if not (math.isfinite(unit) and unit > 0):
        raise CpsolveError(f"the cube size must be a finite number of mm > 0, not {unit:g}", field="unit")
    if not (math.isfinite(clearance) and 0 <= clearance * 2 < unit):
        raise CpsolveError(f"clearance {clearance:g} mm does not fit a {unit:g} mm cube", field="clearance")
    longest = max(max(bounding_size(p.shape)) for p in puzzle.pieces) * unit
    if longest > FLOAT32_MAX:  # STL writes 32-bit floats: struct.pack would overflow
        raise CpsolveError(f"{unit:g} mm cubes make a piece {longest:g} mm long, beyond the {FLOAT32_MAX:.3g} mm "
                           "that STL's 32-bit numbers hold", field="unit")
    names = file_names([(p.name, p.count) for p in puzzle.pieces])
    return {file: binary_stl(p.name, piece_triangles(puzzle.grid, p.shape, unit, clearance, p.name), p.count)
            for file, p in zip(names, puzzle.pieces, strict=True)}
