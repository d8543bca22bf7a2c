"""Why not? Explain a puzzle with no assembly, an assembly that does not come apart, a puzzle's uniqueness.

`cpsolve explain` (and `cpsolve.explain`) is built here, one module per question:

- `counting`: no assembly, shown by counting (volume, a piece with no placement, a cell no piece
  reaches, colourings): instant, and stated as puzzlers state them;
- `core`: no assembly, shown by a minimal unsatisfiable core (python-sat or CP-SAT with assumptions,
  deletion-based shrinking), each claim re-checked by dlx before it is reported;
- `stuck`: an assembly that does not come apart (blocking, states, locked groups, what to remove);
- `unique`: one solution or several: the backbone, and where the solutions differ.

`explain_puzzle` tries the cheapest argument first and stops at the first that holds; nothing is
reported that was not checked again (`counting.recheck`, `core.solvable` on dlx). A puzzle that turns
out to have assemblies is explained the third way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar, Literal

from ...errors import CpsolveError
from ...problem.placements import ExactCoverProblem
from ...puzzle.geometry import Cell
from ...puzzle.model import Puzzle
from .core import Core, Shrunk
from .counting import ColourArgument, NoPlacement, Uncovered, Volume, cells_text
from .stuck import Blocked
from .unique import Uniqueness

if TYPE_CHECKING:
    from ...search.enumeration import Prepared
    from ...search.result import SolutionClass

Case = Literal["no-assembly", "stuck", "comes-apart", "unique", "several", "unknown"]
CORE_BACKENDS = ("sat", "cpsat")


@dataclass(frozen=True)
class CoreArgument:
    """A minimal (or at least checked) unsatisfiable core, in pieces and cells."""

    kind: ClassVar[str] = "core"
    pieces: tuple[tuple[str, int], ...]
    """(piece, how many copies must be placed)."""
    fill: tuple[Cell, ...]
    """Cells that must be covered (no overlap there either)."""
    apart: tuple[Cell, ...]
    """Further cells where pieces must not overlap."""
    container: int
    """Cells of the container, to say when the core spans all of them."""
    minimal: bool
    """Checked: the core has no solution, and every core with one part left out has one."""
    checked_by: str
    """The backend that re-checked the core (independently of the one that found it); empty when the
    deadline came first."""
    found_by: str
    calls: int
    note: str = ""
    """Why the core is not called minimal, when it is not."""
    core: Core = field(default=Core(), repr=False, compare=False)
    """The same core in the problem's indices (for re-checking it with another backend)."""

    @property
    def size(self) -> int:
        return len(self.pieces) + len(self.fill) + len(self.apart)

    def pieces_text(self) -> str:
        names = [f"{n} ({k} copies)" if k > 1 else n for n, k in self.pieces]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def _where(self, cells: Sequence[Cell]) -> str:
        return cells_text(cells) if len(cells) <= 12 else f"{len(cells)} cells (drawn below)"

    def lines(self) -> list[str]:
        region = (*self.fill, *self.apart)
        everywhere = len(region) == self.container
        apart = ("in the container" if everywhere else
                 f"in {self._where(region)} (elsewhere they may overlap or leave cells empty)")
        if self.pieces and not self.fill:
            n = len(self.pieces)
            head = (f"{'Piece' if n == 1 else 'Pieces'} {self.pieces_text()} cannot "
                    f"{'be placed' if n == 1 else 'both be placed' if n == 2 else 'all be placed'} without overlapping "
                    f"{apart}.")
        elif not self.pieces:
            head = (f"Cells {self._where(self.fill)} cannot all be covered, whatever pieces are used (each at most "
                    f"as often as it exists), without pieces overlapping {apart}.")
        else:
            head = (f"Once {self.pieces_text()} {'is' if len(self.pieces) == 1 else 'are'} placed, cells "
                    f"{self._where(self.fill)} cannot all be covered without pieces overlapping {apart}.")
        parts = f"{self.size} part{'s' if self.size != 1 else ''}"
        if self.minimal:
            tail = (f"A minimal core of {parts}, checked by {self.checked_by}: it has no solution, and with any one "
                    "part left out (a piece not placed, a cell allowed to stay empty, an overlap allowed at a cell) "
                    "it has one.")
        elif not self.checked_by:
            tail = f"A core of {parts}, proved by {self.found_by} alone: {self.note}."
        else:
            tail = (f"A core of {parts} (no solution: checked by {self.checked_by}); not shown to be minimal: "
                    f"{self.note}.")
        return [head, tail, f"Found by {self.found_by} with assumptions ({self.calls} solver calls)."]

    def as_json(self) -> dict[str, object]:
        return {"pieces": [{"name": n, "copies": k} for n, k in self.pieces], "fill": [list(c) for c in self.fill],
                "apart": [list(c) for c in self.apart], "minimal": self.minimal, "checked_by": self.checked_by,
                "found_by": self.found_by, "calls": self.calls, "note": self.note or None}


@dataclass(frozen=True)
class ComesApart:
    """Nothing to explain: the assembly comes apart."""

    kind: ClassVar[str] = "comes-apart"
    level: str
    moves: int
    pieces: tuple[tuple[str, tuple[Cell, ...]], ...] = ()

    @property
    def size(self) -> int:
        return self.moves

    def lines(self) -> list[str]:
        return [f"It comes apart: level {self.level}, {self.moves} moves in all (`cpsolve disassemble` shows them)."]

    def as_json(self) -> dict[str, object]:
        return {"level": self.level, "moves": self.moves}


Finding = Volume | NoPlacement | Uncovered | ColourArgument | CoreArgument | Blocked | ComesApart | Uniqueness


@dataclass(frozen=True)
class Report:
    """What explain found for one puzzle or assembly."""

    puzzle: str
    case: Case
    finding: Finding | None
    tried: tuple[str, ...]
    """The arguments tried, in order (the last one is the finding's)."""
    seconds: float
    note: str = ""
    """Why nothing was found (a deadline, a limit)."""

    @property
    def argument(self) -> str:
        return "none" if self.finding is None else self.finding.kind

    def lines(self) -> list[str]:
        if self.finding is None:
            return [self.note or "No explanation found."]
        return self.finding.lines()


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.perf_counter() + timeout


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.perf_counter(), 1e-3)


def explain_puzzle(puzzle: Puzzle, *, backend: str = "sat", timeout: float | None = None,
                   max_classes: int = 200) -> Report:
    """Why the puzzle has no assembly (the first argument that holds, cheapest first), or what its
    solutions share when it has some."""
    from ...search.backends import Status, for_problem
    from ...search.enumeration import enumerate_classes, first_solution, prepare
    from ...search.settings import RunSettings
    from . import counting

    if puzzle.kind != "pieces":
        raise CpsolveError("explain works on packings; a chain has no pieces to leave out or colour",
                           where=puzzle.origin or puzzle.name)
    if backend not in CORE_BACKENDS:
        raise CpsolveError(f"the core is found by {' or '.join(CORE_BACKENDS)}, not {backend!r}", field="backend")
    began = time.perf_counter()
    deadline = _deadline(timeout)
    tried: list[str] = []

    def report(case: Case, finding: Finding | None, note: str = "") -> Report:
        return Report(puzzle.name, case, finding, tuple(tried), time.perf_counter() - began, note)

    def checked(found: counting.Argument | None) -> counting.Argument | None:
        if found is None:
            return None
        why = counting.recheck(puzzle, found)
        if why is not None:
            raise CpsolveError(f"internal error: the {found.kind} argument did not hold when checked again ({why})",
                               where=puzzle.name, exit_code=1)
        return found

    tried.append("volume")
    if (found := checked(counting.volume(puzzle))) is not None:
        return report("no-assembly", found)
    tried.append("placements")
    if (found := checked(counting.no_placement(puzzle))) is not None:
        return report("no-assembly", found)
    prepared = prepare(puzzle)
    problem = prepared.problem
    tried.append("cells")
    if (found := checked(counting.uncovered(problem))) is not None:
        return report("no-assembly", found)
    tried.append("colourings")
    try:
        found = checked(counting.colouring(puzzle, problem, deadline))
    except counting.Deadline:
        return report("unknown", None, "the deadline passed while the colourings were tried")
    if found is not None:
        return report("no-assembly", found)
    tried.append("search")
    engine = for_problem("auto", problem)
    rows, stats = first_solution(prepared, engine, _left(deadline))
    if stats.status is Status.INTERRUPTED:
        raise KeyboardInterrupt
    if rows is None and stats.status is Status.TIMEOUT:
        return report("unknown", None, "the deadline passed before the search settled whether it has an assembly")
    if rows is None:
        tried.append("core")
        core = minimal_core(prepared, backend, deadline)
        if core is None:
            return report("unknown", None, "the deadline passed before a core was found")
        return report("no-assembly", core)
    tried.append("solutions")
    classes: list[SolutionClass] = []
    result = enumerate_classes(prepared, RunSettings(engine, limit=max_classes, timeout=_left(deadline)),
                               on_class=classes.append)
    if result.status is Status.INTERRUPTED:
        raise KeyboardInterrupt
    if not classes:
        return report("unknown", None, "the deadline passed before the first solution class was counted")
    complete = result.status is Status.COMPLETE
    placements = [c.placements for c in classes]
    assemblies = sum(c.assemblies for c in classes)
    first = tuple((problem.piece_names[p], tuple(problem.cells[c] for c in cells)) for p, cells in placements[0])
    if len(classes) == 1 and complete:
        from .unique import forced_by_elimination

        key = prepared.broken.key
        if key.kind == "piece" and key.name is not None:
            k = problem.piece_names.index(key.name)
            start = [p for p in placements[0] if p[0] == k]
            what, why = key.name, "the key piece, left where it lies"
        elif key.kind == "cell":  # every piece has copies: the key is the placement on a cell
            cell = min(set.intersection(*(set(problem.rows[r].cells) for r in key.all_rows)))
            start = [p for p in placements[0] if cell in p[1]]
            what = f"the piece on [{','.join(map(str, problem.cells[cell]))}]"
            why = "on the key cell, left where it lies"
        else:
            start, what, why = [], None, ""
        trace, eliminated, every = forced_by_elimination(problem, start, why, deadline)
        if every and (wrong := problem.check_solution([r for r, _ in trace])) is not None:
            raise CpsolveError(f"internal error: the placements elimination forced are no solution ({wrong})",
                               where=puzzle.name, exit_code=1)
        forced = tuple((problem.piece_names[problem.rows[r].piece],
                        tuple(problem.cells[c] for c in problem.rows[r].cells), why) for r, why in trace)
        return report("unique", Uniqueness("unique", 1, True, assemblies, (), (), (), what, forced, eliminated, every,
                                           first))
    from .unique import compare

    return report("several", replace(compare(problem, prepared.group, placements, assemblies, complete),
                                     solution=first))


def minimal_core(prepared: Prepared, backend: str = "sat", deadline: float | None = None) -> CoreArgument | None:
    """A minimal core of a puzzle without assemblies, found on a symmetry-broken problem
    (`core.Symmetric`) by `backend` and checked on the whole problem by dlx (or, where dlx is not built,
    by the other core backend); None when the deadline (a `time.perf_counter()` value) comes first.

    The key piece is the one that keeps the smallest share of its placements (then the fewest), not
    the enumeration's: a proof of "no assembly" searches everything once, and on a Cubissimo variant
    keeping 4 of 96 placements of A made it 3-7 times shorter than keeping 3 of 27 of the straight I."""
    from ...problem.symmetry import apply_key, choose_key, rotations_of
    from . import core as cores

    problem = prepared.problem
    key = choose_key(problem, prepared.group,
                     pick=lambda keys: min(keys, key=lambda k: (len(k.rows) / max(k.placements, 1), len(k.rows))))
    broken = apply_key(problem, key)
    make = cores.ENGINES[backend]
    inner = make(broken.problem if broken.key.kind == "piece" else problem)
    engine: cores.CoreSolver = inner
    if broken.key.kind == "piece":
        engine = cores.Symmetric(inner, [g.perm for g in rotations_of(prepared.group)])
    start = cores.everything(problem)
    if cores.filled_by_volume(problem):  # every cell is covered once every piece is placed: only pieces and overlaps
        start = start.without_fills()
    try:
        shrunk = cores.shrink(engine, start, deadline)
    finally:
        if isinstance(inner, cores.SatCores):
            inner.close()
    return None if shrunk is None else verified(problem, shrunk, deadline)


def checker_for(problem: ExactCoverProblem, found_by: str) -> str:
    """The backend that re-checks a core: dlx where it is built, else the other core backend."""
    from ...search.backends.dlx import DlxBackend

    if DlxBackend.supported() and DlxBackend().unsupported_reason(problem) is None:
        return "dlx"
    return "cpsat" if found_by == "sat" else "sat"


def verified(problem: ExactCoverProblem, shrunk: Shrunk, deadline: float | None) -> CoreArgument:
    """The core in words, after checking it on another backend: no solution, and a solution (itself
    checked cell by cell) with any one part left out. "Minimal" only when all of that held."""
    from .core import solvable

    core = shrunk.core
    checker = checker_for(problem, shrunk.engine)
    answer, _ = solvable(problem, core, checker, _left(deadline))
    if answer:
        raise CpsolveError(f"internal error: {checker} solves the core {shrunk.engine} found", where=problem.name,
                           exit_code=1)
    note = "" if shrunk.complete else "the deadline passed before every part was tried"
    if answer is None:
        note, checker = f"the deadline passed before {checker} could check it", ""
    if not note:
        for part in core.parts():
            sub, _ = solvable(problem, core.without(part), checker, _left(deadline))
            if sub is None:
                note = "the deadline passed while checking that each part is needed"
                break
            if not sub:
                note = f"leaving out {part[0]} {part[1]} still leaves no solution"
                break
    pieces = tuple((problem.piece_names[p], problem.piece_low[p]) for p in core.pieces)
    return CoreArgument(pieces, tuple(problem.cells[c] for c in core.fill), tuple(problem.cells[c] for c in core.apart),
                        problem.n_cells, not note, checker, _engine_label(shrunk.engine), shrunk.calls, note, core)


def _engine_label(name: str) -> str:
    if name == "sat":
        from ...search.backends.sat import DEFAULT_SOLVER

        return f"python-sat ({DEFAULT_SOLVER})"
    return "CP-SAT"


def explain_assembly(name: str, pieces: Mapping[str, Sequence[Cell]], groups: Sequence[frozenset[str]] = (), *,
                     timeout: float | None = None, max_states: int | None = None, rotations: bool = False,
                     rotation_clearance: float | str = 0) -> Report:
    """Why an assembly (label -> cells) does not come apart, or that it does. With `rotations`, whether it
    comes apart is decided with quarter turns too (and so is each removal that lets the rest come apart),
    and a stuck one has the turns at its start accounted for piece by piece besides the slides (what
    blocks what); how far the slides open it stays the slides' (`explain_stuck`)."""
    from ..disassembly import TooManyStates, disassemble
    from .stuck import explain_stuck

    began = time.perf_counter()
    deadline = _deadline(timeout)
    turned = None
    try:
        if rotations:
            from ..turning import disassemble_turning

            result = turned = disassemble_turning(pieces, groups, max_states, rotation_clearance=rotation_clearance)
            if result.separation is None:  # the states slides alone reach, and what blocks what
                result = disassemble(pieces, groups, max_states=max_states)
        else:
            result = disassemble(pieces, groups, max_states=max_states)
        if result.separation is not None:
            finding: Finding = ComesApart(result.level_text() or "", result.separation.total_moves(),
                                          tuple((k, tuple(v)) for k, v in pieces.items()))
            return Report(name, "comes-apart", finding, ("disassembly",), time.perf_counter() - began)
        finding = explain_stuck(pieces, result, groups, max_states, deadline, rotations, rotation_clearance, turned)
    except TooManyStates as exc:
        raise CpsolveError(str(exc), where=name, field="max_states", exit_code=1) from None
    return Report(name, "stuck", finding, ("disassembly", "states", "removal"), time.perf_counter() - began)
