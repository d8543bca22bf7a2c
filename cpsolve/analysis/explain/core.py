"""A minimal unsatisfiable core of a packing: the few pieces and cells that already make it impossible.

The exact-cover problem says, for every cell, "exactly one placement covers it" and, for every piece,
"exactly its count of placements". Here those are split into parts that can each be switched off:

- `piece p`: at least p's (lowest) count of its placements is used ("p is placed");
- `fill c`: some placement covers cell c ("c is covered");
- `apart c`: at most one placement covers cell c ("no overlap at c").

What stays on always is "no piece is used more often than it has copies". A *core* is a set of parts
that cannot all hold together; it is *minimal* when switching off any one of them leaves a set that
can (deletion-based MUS extraction). Each part is a selector literal passed as an assumption: to
python-sat (`solve(assumptions=...)`, `get_core()`) or to CP-SAT (enforcement literals,
`sufficient_assumptions_for_infeasibility`); an unsatisfiable answer names a subset of the
assumptions, which then replaces the core (clause-set refinement), so most deletions cost one call.

One rule ties the parts together: a cell that must be covered is also a cell where pieces must not
overlap (`fill c` comes with `apart c`), so switching off `fill c` leaves `apart c`. "Covered, but
overlapping is fine" is the one combination exact cover cannot state, and without it every set of
parts is again an exact-cover problem (`relaxed`): required cells (fill), optional cells (apart),
cells taken out of the placements (neither), pieces with a range (placed or not). That is what lets
any backend, dlx included, check a core independently of the solver that found it (`solvable`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...problem.placements import ExactCoverProblem, Row

ENCODING = "seqcounter"
PartKind = Literal["piece", "fill", "apart"]
Part = tuple[PartKind, int]
"""("piece", piece index), ("fill", cell index) or ("apart", cell index)."""


@dataclass(frozen=True)
class Core:
    """A set of parts: pieces that must be placed, cells that must be covered (without overlap), and
    further cells where pieces must not overlap. `apart` never repeats a cell of `fill`."""

    pieces: tuple[int, ...] = ()
    fill: tuple[int, ...] = ()
    apart: tuple[int, ...] = ()

    @staticmethod
    def of(parts: Iterable[Part]) -> Core:
        """The core holding these parts, closed under "a cell to cover is a cell without overlap"."""
        pieces: set[int] = set()
        fill: set[int] = set()
        apart: set[int] = set()
        for kind, i in parts:
            (pieces if kind == "piece" else fill if kind == "fill" else apart).add(i)
        return Core(tuple(sorted(pieces)), tuple(sorted(fill)), tuple(sorted(apart - fill)))

    @property
    def size(self) -> int:
        return len(self.pieces) + len(self.fill) + len(self.apart)

    def parts(self) -> tuple[Part, ...]:
        return (*(("piece", p) for p in self.pieces), *(("fill", c) for c in self.fill),
                *(("apart", c) for c in self.apart))

    def selectors(self) -> tuple[Part, ...]:
        """The assumptions that state this core: its parts, plus `apart c` for every cell to cover."""
        return (*self.parts(), *(("apart", c) for c in self.fill))

    def without(self, part: Part) -> Core:
        """One part switched off: a cell that no longer needs covering still keeps pieces apart."""
        kind, i = part
        if kind == "piece":
            return replace(self, pieces=tuple(p for p in self.pieces if p != i))
        if kind == "fill":
            return replace(self, fill=tuple(c for c in self.fill if c != i), apart=tuple(sorted((*self.apart, i))))
        return replace(self, apart=tuple(c for c in self.apart if c != i))

    def without_fills(self) -> Core:
        """The core with every cell to cover turned into a cell that keeps pieces apart."""
        return Core(self.pieces, (), tuple(sorted((*self.fill, *self.apart))))

    def cells(self) -> tuple[int, ...]:
        """Every cell the core mentions (to cover, or to keep apart)."""
        return tuple(sorted((*self.fill, *self.apart)))


def filled_by_volume(problem: ExactCoverProblem) -> bool:
    """Whether placing every piece (its low count) without overlap anywhere already covers every cell:
    no optional cell, and the pieces' volume is the container's (or more).

    Solvers are then told so, by one implied clause per cell ("every piece placed and no overlap
    anywhere -> this cell is covered"). Without it, refuting "every piece placed, no overlap" is a
    counting argument CDCL finds only by search: on a Cubissimo variant 3-5 s a call (dlx too: 3-11
    s, with no required cell to branch on), against 0.5 s for the same question as exact cover.
    The clause changes no answer: it holds in every assignment of those parts."""
    return not problem.optional and _volume(problem, range(problem.n_pieces)) >= problem.n_cells


def _volume(problem: ExactCoverProblem, pieces: Iterable[int]) -> int:
    """The cells the low counts of these pieces fill."""
    rows = problem.rows_by_piece
    return sum(len(problem.rows[rows[p][0]].cells) * problem.piece_low[p] for p in pieces if rows[p])


def everything(problem: ExactCoverProblem) -> Core:
    """The whole problem as a core: every piece placed, every required cell covered, no overlap anywhere."""
    optional = problem.optional_set
    return Core(tuple(p for p in range(problem.n_pieces) if problem.piece_low[p] > 0),
                tuple(c for c in range(problem.n_cells) if c not in optional),
                tuple(sorted(optional)))


# --------------------------------------------------------------------------- the core as exact cover


@dataclass(frozen=True)
class Relaxed:
    """A core as an exact-cover problem, with the map back to the original rows."""

    problem: ExactCoverProblem
    rows: tuple[int, ...]
    """Original row of each of `problem`'s rows."""
    trivial: bool | None = None
    """Decided without a search: True (solvable: nothing is asked), False (a piece has too few
    placements left), None (search it)."""
    spare: tuple[tuple[int, ...], ...] = ()
    """Each piece's placements lying wholly in cells taken out (original rows): they complete a
    solution of `problem` to one of the core."""

    def completed(self, problem: ExactCoverProblem, rows: Sequence[int], core: Core) -> tuple[int, ...]:
        """Original rows of a solution of `problem`, with as many spare placements as each piece of the
        core still needs."""
        out = sorted(self.rows[r] for r in rows)
        _, used = problem.usage(out)
        for p in core.pieces:
            out += self.spare[p][: max(0, problem.piece_low[p] - used[p])]
        return tuple(sorted(out))


def relaxed(problem: ExactCoverProblem, core: Core) -> Relaxed:
    """The core as an exact-cover problem that every backend takes, dlx included.

    Its cells to cover are required, its other cells optional; every other cell is taken out of the
    placements (pieces may overlap there, or leave it empty). Its pieces keep their low counts, the
    others may be left out; no piece beyond its count.

    Two details make it a problem the backends accept. A placement lying wholly in cells taken out
    occupies nothing, and no backend takes an empty row: it is dropped, and the piece's low count
    falls by one for each (at most down to 0): with j of those used, the rest still needs low - j
    placements, and never more than its count. And dlx wants all placements of a piece to have one
    size: a placement that lost cells gets as many *pad* cells, optional, from a pool of its own
    piece that no other piece touches. A piece used once puts at most one placement down, so its
    placements can share one pool; a piece with k > 1 copies is split into k pieces of one copy each
    (copy j needed when j < its low count), each with its own pool. Two copies cannot take the same
    placement: every placement kept still has a cell of the core, where at most one may sit.
    """
    kept = core.cells()
    index = {c: i for i, c in enumerate(kept)}
    wanted = set(core.pieces)
    low = [problem.piece_low[p] if p in wanted else 0 for p in range(problem.n_pieces)]
    by_piece: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(problem.n_pieces)]
    spare: list[list[int]] = [[] for _ in range(problem.n_pieces)]
    for r, row in enumerate(problem.rows):
        inside = tuple(index[c] for c in row.cells if c in index)
        if inside:
            by_piece[row.piece].append((r, inside))
        else:
            spare[row.piece].append(r)
            low[row.piece] = max(0, low[row.piece] - 1)
    fill = set(core.fill)
    if len(kept) == problem.n_cells and not problem.optional and _volume(problem, core.pieces) >= problem.n_cells:
        fill = set(kept)  # the core's pieces, without overlap, cover every cell: say so (`filled_by_volume`)
    cells: list[tuple[int, int, int]] = [problem.cells[c] for c in kept]
    optional = [i for i, c in enumerate(kept) if c not in fill]
    names: list[str] = []
    counts: list[int] = []
    lows: list[int] = []
    rows: list[Row] = []
    origin: list[int] = []
    far = min((min(c) for c in problem.cells), default=0) - 2
    for p, placed in enumerate(by_piece):
        size = max((len(problem.rows[r].cells) for r, _ in placed), default=0)
        padded = any(len(k) < size for _, k in placed)
        copies = [(problem.piece_names[p], problem.piece_counts[p], low[p])]
        if padded and problem.piece_counts[p] > 1:
            copies = [(f"{problem.piece_names[p]}#{j + 1}", 1, int(j < low[p])) for j in range(problem.piece_counts[p])]
        for name, count, need in copies:
            pool: list[int] = []
            if padded:  # pad cells far from the container and from each other: no face neighbours
                for _ in range(size - 1):
                    pool.append(len(cells))
                    optional.append(len(cells))
                    cells.append((far - 2 * len(names), 2 * len(pool), 0))
            for r, k in placed:
                rows.append(Row(len(names), (*k, *pool[: size - len(k)])))
                origin.append(r)
            names.append(name)
            counts.append(count)
            lows.append(need)
    out = replace(problem, name=f"{problem.name} (core)", cells=tuple(cells), piece_names=tuple(names),
                  piece_counts=tuple(counts), rows=tuple(rows), side_clauses=(), mirror_labels=None,
                  label_symmetries=(), optional=tuple(sorted(optional)), piece_minimums=tuple(lows),
                  cell_classes=())
    trivial: bool | None = None
    if any(low[p] > min(len(by_piece[p]), problem.piece_counts[p]) for p in range(problem.n_pieces)):
        trivial = False
    elif not fill and not any(low):
        trivial = True
    return Relaxed(out, tuple(origin), trivial, tuple(map(tuple, spare)))


def violation(problem: ExactCoverProblem, core: Core, rows: Sequence[int]) -> str | None:
    """Why the original `rows` do not satisfy the core, or None: checked cell by cell and piece by
    piece, independently of any solver (a solver's answer is believed only once this agrees)."""
    covered, used = problem.usage(rows)
    for p in range(problem.n_pieces):
        if used[p] > problem.piece_counts[p]:
            return f"piece {problem.piece_names[p]} used {used[p]} times, more than its {problem.piece_counts[p]}"
    for p in core.pieces:
        if used[p] < problem.piece_low[p]:
            return f"piece {problem.piece_names[p]} used {used[p]} times, fewer than {problem.piece_low[p]}"
    for c in core.fill:
        if covered[c] == 0:
            return f"cell {list(problem.cells[c])} is not covered"
    for c in (*core.fill, *core.apart):
        if covered[c] > 1:
            return f"cell {list(problem.cells[c])} is covered {covered[c]} times"
    return None


def solvable(problem: ExactCoverProblem, core: Core, backend: str = "dlx",
             timeout: float | None = None) -> tuple[bool | None, tuple[int, ...] | None]:
    """Whether the parts of `core` can all hold, decided by a registered backend on the core's own
    exact-cover problem (`relaxed`): (True, original rows of a solution, checked by `violation`),
    (False, None), or (None, None) when the timeout passed first."""
    from ...search.backends import Status, get_backend

    made = relaxed(problem, core)
    if made.trivial is not None:
        return made.trivial, (made.completed(problem, (), core) if made.trivial else None)
    found: list[tuple[int, ...]] = []
    engine = get_backend(backend)
    stats = engine.search(made.problem, found.append, limit=1, timeout=timeout)
    if found:
        rows = made.completed(problem, found[0], core)
        if (why := violation(problem, core, rows)) is not None:
            raise AssertionError(f"{engine.label} answered a core's problem with a non-solution: {why}")
        return True, rows
    if stats.status is Status.INTERRUPTED:
        raise KeyboardInterrupt
    return (None, None) if stats.status is Status.TIMEOUT else (False, None)


# --------------------------------------------------------------------------- solvers with assumptions


class CoreSolver:
    """Answers "can these parts all hold?" and, when not, names a subset that cannot (a core)."""

    name = ""

    def solve(self, core: Core, deadline: float | None) -> bool | None:
        """True, False, or None when the deadline (a `time.perf_counter()` value) passed first."""
        raise NotImplementedError

    def last_core(self) -> Core:
        """After `solve` answered False: the parts its proof used (a subset of those asked)."""
        raise NotImplementedError


class SatCores(CoreSolver):
    """python-sat, incremental: one solver for the whole extraction, each part a selector variable."""

    name = "sat"

    def __init__(self, problem: ExactCoverProblem, solver: str | None = None, encoding: str = ENCODING):
        from pysat.solvers import Solver

        from ...problem.cnf import between
        from ...search.backends.sat import DEFAULT_SOLVER

        self.problem = problem
        top = len(problem.rows)
        self.selector: dict[Part, int] = {}
        clauses: list[list[int]] = []

        def new(part: Part) -> int:
            nonlocal top
            top += 1
            self.selector[part] = top
            return top

        def card(rows: Sequence[int], low: int, high: int) -> list[list[int]]:
            nonlocal top
            made, top = between(rows, low, high, top, encoding)
            return [list(c) for c in made]

        for p, rows in enumerate(problem.rows_by_piece):
            clauses += card(rows, 0, problem.piece_counts[p])  # always on: no more than the copies there are
            if problem.piece_low[p] > 0:
                s = new(("piece", p))
                clauses += [[-s, *c] for c in card(rows, problem.piece_low[p], max(len(rows), problem.piece_low[p]))]
        optional = problem.optional_set
        for c, rows in enumerate(problem.rows_by_cell):
            if c not in optional:
                clauses.append([-new(("fill", c)), *(r + 1 for r in rows)])
            s = new(("apart", c))
            clauses += [[-s, *k] for k in card(rows, 0, 1)]
        if filled_by_volume(problem):
            every = [-self.selector[part] for part in everything(problem).without_fills().selectors()]
            clauses += [[*every, *(r + 1 for r in rows)] for rows in problem.rows_by_cell]
        self.part_of = {v: k for k, v in self.selector.items()}
        self.solver: Any = Solver(name=solver or DEFAULT_SOLVER, bootstrap_with=clauses)
        self._core: Core = Core()

    def solve(self, core: Core, deadline: float | None) -> bool | None:
        from ...search.backends.sat import _in_thread

        assumptions = [self.selector[part] for part in core.selectors()]
        solver = self.solver

        def call() -> bool | None:
            found: bool | None = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
            solver.clear_interrupt()
            return found

        if deadline is not None and time.perf_counter() >= deadline:
            return None
        answer = _in_thread(call, solver.interrupt, deadline)
        if answer is False:
            self._core = Core.of(self.part_of[v] for v in (solver.get_core() or ()))
        return answer

    def last_core(self) -> Core:
        return self._core

    def close(self) -> None:
        self.solver.delete()


class CpSatCores(CoreSolver):
    """OR-Tools CP-SAT: each part an enforcement literal; the assumptions are replaced for each call."""

    name = "cpsat"

    def __init__(self, problem: ExactCoverProblem):
        from ortools.sat.python import cp_model

        self.problem = problem
        model = cp_model.CpModel()
        x = [model.new_bool_var(f"r{r}") for r in range(len(problem.rows))]
        self.selector: dict[Part, Any] = {}

        def new(part: Part) -> Any:
            lit = self.selector[part] = model.new_bool_var(f"{part[0]}{part[1]}")
            return lit

        for p, rows in enumerate(problem.rows_by_piece):
            if problem.piece_counts[p] < len(rows):
                model.add(sum(x[r] for r in rows) <= problem.piece_counts[p])
            if problem.piece_low[p] > 0:
                model.add(sum(x[r] for r in rows) >= problem.piece_low[p]).only_enforce_if(new(("piece", p)))
        optional = problem.optional_set
        for c, rows in enumerate(problem.rows_by_cell):
            if c not in optional:
                model.add_bool_or([x[r] for r in rows]).only_enforce_if(new(("fill", c)))
            model.add(sum(x[r] for r in rows) <= 1).only_enforce_if(new(("apart", c)))
        if filled_by_volume(problem):
            every = [self.selector[part] for part in everything(problem).without_fills().selectors()]
            for rows in problem.rows_by_cell:
                model.add_bool_or([x[r] for r in rows]).only_enforce_if(every)
        self.model = model
        self.part_of = {lit.index: part for part, lit in self.selector.items()}
        self._core = Core()

    def solve(self, core: Core, deadline: float | None) -> bool | None:
        from ortools.sat.python import cp_model

        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return None
        self.model.clear_assumptions()
        self.model.add_assumptions([self.selector[part] for part in core.selectors()])
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        if left is not None:
            solver.parameters.max_time_in_seconds = left
        status = solver.solve(self.model)
        if status == cp_model.INFEASIBLE:
            self._core = Core.of(self.part_of[i] for i in solver.sufficient_assumptions_for_infeasibility())
            return False
        if status in (cp_model.FEASIBLE, cp_model.OPTIMAL):
            return True
        if left is None or solver.wall_time < 0.99 * left:  # CP-SAT caught Ctrl-C itself (see cpsat.py)
            raise KeyboardInterrupt
        return None

    def last_core(self) -> Core:
        return self._core


class Symmetric(CoreSolver):
    """Questions about the whole problem, answered by an engine that holds only its symmetry-broken
    version (the key piece kept at one placement per orbit of the container's rotations): proofs
    there are an order of magnitude shorter (a Cubissimo variant's: 0.6 s against 28 s).

    The broken problem alone would answer a *different* question for a set of parts that the
    rotations do not map onto itself: the parts may be satisfiable only with the key piece where the
    broken problem no longer puts it. So a set C is asked once per rotation g, as g(C): C can hold
    in the whole problem exactly when some g(C) can hold in the broken one (turn an assignment so
    that the key piece sits at its kept placement, or leave it be when the key piece is not used;
    the key piece is used at most once). A set the rotations map onto itself is asked once. When no
    g(C) can hold, the cores found, each turned back by g's inverse, together make a core of C: an
    assignment of them, turned to put the key piece at its kept placement by some h, would satisfy
    h's core in the broken problem. A rotation whose image repeats an earlier one's shares its core.
    """

    def __init__(self, engine: CoreSolver, rotations: Sequence[Sequence[int]]):
        self.engine, self.name = engine, engine.name
        n = len(rotations[0]) if rotations else 0
        identity = tuple(range(n))
        perms = [tuple(g) for g in rotations]
        self.perms = [identity, *(g for g in perms if g != identity)]
        self.inverses = [_inverse(g) for g in self.perms]
        self._core = Core()

    @staticmethod
    def image(core: Core, perm: Sequence[int]) -> Core:
        return Core.of((kind, i if kind == "piece" else perm[i]) for kind, i in core.selectors())

    def solve(self, core: Core, deadline: float | None) -> bool | None:
        answered: dict[Core, Core] = {}
        pulled: list[Part] = []
        for g, back in zip(self.perms, self.inverses, strict=True):
            image = self.image(core, g)
            if image not in answered:
                answer = self.engine.solve(image, deadline)
                if answer is None or answer:
                    return answer
                answered[image] = self.engine.last_core()
            pulled += self.image(answered[image], back).selectors()
        self._core = _within(Core.of(pulled), core)
        return False

    def last_core(self) -> Core:
        return self._core

    def invariant(self, core: Core) -> bool:
        """Whether every rotation maps the core onto itself."""
        return all(self.image(core, g) == core for g in self.perms[1:])

    def orbits(self, parts: Sequence[Part]) -> list[list[Part]]:
        """`parts` grouped by orbit under the rotations, in the order they come."""
        where: dict[Part, int] = {}
        out: list[list[Part]] = []
        for part in parts:
            if part in where:
                out[where[part]].append(part)
                continue
            kind, i = part
            mates = {(kind, i if kind == "piece" else g[i]) for g in self.perms}
            for m in mates:
                where[m] = len(out)
            out.append([part])
        return out


ENGINES: dict[str, Callable[[ExactCoverProblem], CoreSolver]] = {"sat": SatCores, "cpsat": CpSatCores}
"""The solvers that extract cores, by the backend names they use."""


@dataclass(frozen=True)
class Shrunk:
    """What deletion-based extraction found: a core, and whether every part was tried."""

    core: Core
    complete: bool
    """Every part's deletion was decided (False: the deadline came first, so it may not be minimal)."""
    calls: int
    engine: str


ORDER: tuple[PartKind, ...] = ("fill", "piece", "apart")
"""Parts are tried for deletion in this order: the cells to cover first (they are what a volume that
comes out exactly makes redundant once every piece must be placed), then pieces, then the cells that
must stay apart (the region left is where the impossibility lives)."""


def shrink(engine: CoreSolver, start: Core, deadline: float | None,
           order: Sequence[PartKind] = ORDER) -> Shrunk | None:
    """A minimal core inside `start` (None when `start` is satisfiable or the deadline passed before
    the first answer).

    Deletion, by chunks: all remaining parts of one kind are switched off together, and only when the
    rest becomes satisfiable is the chunk halved and each half tried again. A satisfiable answer is
    cheap (a solver finds an assignment quickly) and an unsatisfiable one is a proof, often costly:
    when a volume that comes out exactly makes every cell to cover redundant, one proof removes them
    all instead of one proof per cell. After an unsatisfiable answer the solver's own core, often
    smaller than what was asked, replaces the core (clause-set refinement). A part whose removal
    left a satisfiable set stays necessary as the core shrinks further (anything that holds with
    more parts holds with fewer), so each part is decided once and the result is minimal.

    With an engine that knows the container's rotations (`Symmetric`) and a core they map onto
    itself, chunks are whole orbits of parts, and one part's answer is its orbit's: turning the
    container turns "the core without e" into "the core without g(e)".
    """
    state = _Deletion(engine, deadline)
    answer = engine.solve(start, deadline)
    if answer is not False:
        return None
    state.core = _within(engine.last_core(), start)
    try:
        for kind in order:
            parts = [p for p in state.core.parts() if p[0] == kind]
            if isinstance(engine, Symmetric) and engine.invariant(state.core):
                state.remove_orbits(engine.orbits(parts))
            else:
                state.remove(parts)
    except _OutOfTime:
        return Shrunk(state.core, False, state.calls, engine.name)
    return Shrunk(state.core, True, state.calls, engine.name)


class _OutOfTime(Exception):
    pass


class _Deletion:
    """The state of one deletion-based extraction (see `shrink`)."""

    def __init__(self, engine: CoreSolver, deadline: float | None):
        self.engine, self.deadline = engine, deadline
        self.core = Core()
        self.calls = 1
        self.necessary: set[Part] = set()

    def _open(self, parts: Iterable[Part]) -> list[Part]:
        here = set(self.core.parts())
        return [p for p in parts if p in here and p not in self.necessary]

    def _without(self, chunk: Sequence[Part]) -> bool:
        """Try the core without `chunk`: True when that can hold; else the core shrinks to the proof's."""
        trial = self.core
        for part in chunk:
            trial = trial.without(part)
        self.calls += 1
        answer = self.engine.solve(trial, self.deadline)
        if answer is None:
            raise _OutOfTime
        if not answer:
            self.core = _within(self.engine.last_core(), trial)
        return answer

    def remove(self, chunk: Sequence[Part]) -> None:
        chunk = self._open(chunk)
        if not chunk or not self._without(chunk):
            return
        if len(chunk) == 1:
            self.necessary.add(chunk[0])
            return
        half = len(chunk) // 2
        self.remove(chunk[:half])
        self.remove(chunk[half:])

    def remove_orbits(self, orbits: Sequence[Sequence[Part]]) -> None:
        """`remove`, with whole orbits as the smallest chunks while the core stays symmetric."""
        assert isinstance(self.engine, Symmetric)
        orbits = [o for o in (self._open(o) for o in orbits) if o]
        if not orbits or not self._without([p for o in orbits for p in o]):
            return
        if len(orbits) > 1:
            half = len(orbits) // 2
            for group in (orbits[:half], orbits[half:]):
                if self.engine.invariant(self.core):
                    self.remove_orbits(group)
                else:
                    self.remove([p for o in group for p in o])
            return
        orbit = orbits[0]
        if len(orbit) == 1:
            self.necessary.add(orbit[0])
        elif not self._without(orbit[:1]):  # one part can go: the rest of the orbit, one by one
            self.remove(orbit[1:])
        elif self.engine.invariant(self.core):  # it could not, and by symmetry neither can the others
            self.necessary.update(orbit)
        else:
            self.necessary.add(orbit[0])
            self.remove(orbit[1:])


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    out = [0] * len(perm)
    for i, j in enumerate(perm):
        out[j] = i
    return tuple(out)


def _within(found: Core, asked: Core) -> Core:
    """A solver's core, read within the core asked (a selector of `apart c` that the solver named for a
    cell to cover is already implied by `fill c`)."""
    parts = set(asked.selectors())
    return Core.of(p for p in found.selectors() if p in parts)
