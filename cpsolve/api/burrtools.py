"""BurrTools files and external solvers: a `.xmpuzzle` problem as a cpsolve puzzle (`import_xmpuzzle`) and
its stored assemblies (`stored_solutions`); a SAT solver's answer checked (`decode`); the backends here.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import PathLike, _frozen
from .results import Solution

if TYPE_CHECKING:
    from ..puzzle.burrtools import BurrFile


@dataclass(frozen=True)
class Imported:
    """A problem of a BurrTools file as cpsolve reads it (`cpsolve import`)."""

    puzzle: Puzzle
    yaml: str
    """The equivalent cpsolve puzzle file."""
    stated_assemblies: int | None
    stated_solutions: int | None
    """The counts the file says BurrTools found (None: not stated)."""
    stored: int
    """Assemblies stored in the file."""
    path: str = field(repr=False)
    problem: int = field(default=0, repr=False)

    def check(self) -> None:
        """Raise `CpsolveError` (exit code 1) at the first stored assembly that is not a solution of the
        puzzle (each must cover the result exactly, colours and groups included)."""
        from ..puzzle.assembly import check_solution
        from ..puzzle.burrtools import parse_xmpuzzle
        from ..puzzle.burrtools_placements import assembly_pieces

        bf = parse_xmpuzzle(self.path)
        for k, assembly in builtins.enumerate(bf.problems[self.problem].stored):
            if (why := check_solution(self.puzzle, assembly_pieces(bf, self.problem, assembly))) is not None:
                raise CpsolveError(f"stored assembly {k} is not a solution: {why}", where=self.path,
                                   field=f"problems.{self.problem}.solutions", exit_code=1)


def import_xmpuzzle(path: PathLike, problem: int = 0) -> Imported:
    """Problem `problem` of a BurrTools file as a cpsolve puzzle and its puzzle file (`cpsolve import`).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "soma.xmpuzzle"
    >>> soma = cpsolve.load("soma")
    >>> _ = path.write_bytes(cpsolve.export(soma, "xmpuzzle", solutions=[cpsolve.solve(soma)]))
    >>> imported = cpsolve.import_xmpuzzle(path)
    >>> imported.puzzle.n_pieces, imported.stored, imported.yaml.splitlines()[0]
    (7, 1, 'name: soma')
    >>> imported.check()"""
    from ..puzzle.burrtools import parse_xmpuzzle, puzzle_data, puzzle_of
    from ..puzzle.writer import puzzle_text

    bf = parse_xmpuzzle(Path(path))
    puzzle = puzzle_of(bf, problem)
    found = bf.problems[problem]
    return Imported(puzzle, puzzle_text(puzzle_data(bf, problem)), found.assemblies, found.solutions,
                    len(found.stored), os.fspath(path), problem)


def stored_solutions(path: PathLike, problem: int = 0) -> list[Solution]:
    """The assemblies stored in problem `problem` of a BurrTools file, as solutions of its puzzle, each
    with the level BurrTools stored with it (`burrtools_level`) when there is one.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "soma.xmpuzzle"
    >>> soma = cpsolve.load("soma")
    >>> first = cpsolve.solve(soma)
    >>> _ = path.write_bytes(cpsolve.export(soma, "xmpuzzle", solutions=[first]))
    >>> [sorted(s.pieces) == sorted(first.pieces) for s in cpsolve.stored_solutions(path)]
    [True]
    """
    from ..puzzle.burrtools import parse_xmpuzzle

    return _stored(parse_xmpuzzle(Path(path)), problem)


def _stored(bf: BurrFile, problem: int, limit: int = 0, start: int = 0, puzzle: Puzzle | None = None
            ) -> list[Solution]:
    """The assemblies stored in problem `problem` of a read BurrTools file (`puzzle`: its puzzle, if built)."""
    from ..analysis.trees import format_level
    from ..puzzle.burrtools import puzzle_of, select_problem
    from ..puzzle.burrtools_placements import assembly_pieces

    puzzle = puzzle_of(bf, problem) if puzzle is None else puzzle
    held = select_problem(bf, problem).stored
    if held and start >= len(held):
        raise CpsolveError(f"stores {len(held)} assemblies (indices 0 to {len(held) - 1}); there is no index "
                           f"{start}", where=bf.where)
    chosen = held[start:start + limit] if limit else held[start:]
    return [Solution(puzzle.name, _frozen(assembly_pieces(bf, problem, a)), puzzle=puzzle,
                     burrtools_level=None if a.level is None else format_level(a.level)) for a in chosen]


@dataclass(frozen=True)
class Decoded:
    """An external SAT solver's answer to an exported CNF (`cpsolve decode`)."""

    status: str
    """SATISFIABLE, UNSATISFIABLE or UNKNOWN, as the solver said."""
    solution: Solution | None
    """The solution it found, checked against every clause and the puzzle (None unless SATISFIABLE)."""


def decode(puzzle: Puzzle, cnf: PathLike, answer: PathLike) -> Decoded:
    """Check a SAT solver's `answer` (its s and v lines) to the `cnf` that `export` wrote for `puzzle`.

    A CNF of another puzzle or other options, an edited CNF, malformed output or an assignment that
    breaks a clause or is not a solution raises `CpsolveError` naming the file.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> soma = cpsolve.load("soma")
    >>> _ = (folder / "soma.cnf").write_text(cpsolve.export(soma))
    >>> _ = (folder / "answer.txt").write_text("s UNSATISFIABLE\\n")
    >>> cpsolve.decode(soma, folder / "soma.cnf", folder / "answer.txt")
    Decoded(status='UNSATISFIABLE', solution=None)"""
    from ..output.exchange import decode as decode_answer
    from ..output.solutions import labelled, rows_as_placements
    from ..puzzle.loader import read_text
    from ..search.enumeration import prepare

    prepared = prepare(puzzle)
    cnf_path, answer_path = Path(cnf), Path(answer)
    found = decode_answer(prepared, read_text(cnf_path), str(cnf_path), read_text(answer_path), str(answer_path))
    if found.problem is None:
        return Decoded(found.status, None)
    pieces = labelled(found.problem, rows_as_placements(found.problem, found.rows))
    return Decoded(found.status, Solution(prepared.name, _frozen(pieces), puzzle=puzzle))


@dataclass(frozen=True)
class BackendInfo:
    """A solver backend (`cpsolve backends`): whether it works here, and its version or how to install it."""

    name: str
    available: bool
    version: str | None
    install_hint: str
    description: str


def backends() -> list[BackendInfo]:
    """Every solver backend, whether it works here, its version.

    >>> [b.name for b in cpsolve.backends()]
    ['cpsat', 'dlx', 'python', 'sat']
    """
    from ..search.backends import backend_class, names

    out = []
    for name in names():
        cls = backend_class(name)
        ok = cls.supported()
        out.append(BackendInfo(name, ok, cls.version() if ok else None, cls.install_hint, cls.description))
    return out
