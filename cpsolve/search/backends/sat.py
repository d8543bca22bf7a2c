"""SAT backend (python-sat): the CNF of `cpsolve.cnf`, one solver call per solution, blocking clauses.

Each model's chosen rows are reported, then one clause "not all of these rows" is added. It mentions
only the row literals of that solution, never the auxiliaries: in an exact cover the chosen rows
determine the solution, so the clause removes exactly that solution and nothing else. With optional
cells a solution plus placements lying wholly in optional cells can be another solution, so the
clause also says "or one of those placements" (rows that cannot extend it are left out: none exist
without optional cells). Forced rows (the key placement of a subproblem) are assumptions.

Stopping. pysat releases the GIL only inside `solve_limited(expect_interrupt=True)` (measured: a
plain `solve()` on the main thread blocks every other thread, and on the main thread pysat turns
Ctrl-C into its own `pysolvers.error` by a longjmp out of the solver). So each call runs in a worker
thread while this thread waits in 50 ms slices and, on the deadline or Ctrl-C, stops the solver:
- most solvers (glucose, minisat, maple*, mergesat, ...) by `interrupt()`;
- CaDiCaL has no `interrupt()` in pysat and keeps the GIL: it runs in conflict-budget slices
  (`conf_budget` + `solve_limited`), each sized to last about 0.2 s, and stops between slices;
- Kissat (not incremental: rebuilt per solution, forced rows as unit clauses) and Lingeling have
  neither; they run on the calling thread, the timeout is checked between solutions only, and
  Ctrl-C arrives as pysat's error, which is re-raised as KeyboardInterrupt.

The default solver is what `benchmarks/sat_encodings.py` measured fastest (results/sat-encodings.md).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...problem.cnf import DEFAULT_ENCODING, Cnf, encode, too_big
from ...problem.placements import ExactCoverProblem
from .base import Backend, BackendUnavailable, SearchRun

DEFAULT_SOLVER = "glucose4"
"""Measured fastest with the default (bitwise) encoding, cadical195 a close second:
`python benchmarks/sat_encodings.py --timeout 2` (results/sat-encodings.md)."""
BUDGETED = frozenset({"cadical103", "cadical153", "cadical195", "cadical300"})
BLOCKING = frozenset({"kissat404", "lingeling"})
NOT_INCREMENTAL = frozenset({"kissat404"})
FIRST_BUDGET = 500
SLICE_SECONDS = 0.2
WAIT_SLICE = 0.05


def solver_names() -> dict[str, str]:
    """Every name pysat accepts (aliases included, lower case) -> its canonical solver name."""
    from pysat.solvers import SolverNames

    out: dict[str, str] = {}
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and isinstance(aliases, tuple):
            out.update({a.lower(): canonical for a in (canonical, *aliases)})
    return out


def resolve_solver(name: str) -> str:
    """The canonical pysat solver name; unknown or not built here -> one-line BackendUnavailable."""
    from pysat.solvers import NoSuchSolverError, Solver

    known = solver_names()
    canonical = known.get(name.lower())
    if canonical is None:
        listing = ", ".join(sorted(set(known.values())))
        raise BackendUnavailable(f"unknown SAT solver {name!r} (known: {listing})")
    try:
        Solver(name=canonical).delete()
    except NoSuchSolverError:
        raise BackendUnavailable(f"SAT solver {canonical!r} is not built into this python-sat") from None
    return canonical


class SatBackend(Backend):
    name = "sat"
    description = "python-sat CDCL solver (sat:NAME picks it), cardinality-encoded CNF, blocking clauses"
    install_hint = "python-sat is not installed (pip install python-sat)"
    takes_options = True
    requires = ("pysat", "python-sat")

    def __init__(self, options: str | None = None, encoding: str = DEFAULT_ENCODING):
        super().__init__(options)
        self.solver = resolve_solver(options or DEFAULT_SOLVER)
        self.encoding = encoding

    def unsupported_reason(self, problem: ExactCoverProblem) -> str | None:
        """A CNF over `--max-literals` is not built (`auto` then takes cpsat, which needs no encoding of
        the counts: the 27x27x27 box of rods, whose CNF would hold 17 billion literals, in 300 MB)."""
        return too_big(problem, self.encoding)

    def cnf(self, problem: ExactCoverProblem) -> Cnf:
        """The problem's CNF, kept for the next subproblem (the same problem with other forced rows)."""
        return self.kept_for(problem, lambda p: encode(p, self.encoding))

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        """Solve, report, block, until UNSAT (complete), `run.emit` says stop, or the deadline."""
        session = _Session(self.solver, self.cnf(problem), [r + 1 for r in forced])
        optional = problem.optional_set
        extenders = [r + 1 for r, row in enumerate(problem.rows) if optional.issuperset(row.cells)]
        # Not in a `finally`: deleting a glucose solver right after an interrupt by Ctrl-C crashed
        # (SIGSEGV) in testing, so an interrupted search leaves its solver to the exiting process.
        while True:
            outcome = session.solve(run.deadline)
            if outcome is None:
                run.timed_out()
                break
            if not outcome:
                break
            rows = session.chosen_rows()
            if run.emit(rows):
                break
            session.block(rows, extenders)
        run.stats.details = session.details()
        session.close()


class _Session:
    """One pysat solver over one CNF, with the forced rows as assumptions and the blocking clauses."""

    def __init__(self, solver: str, cnf: Cnf, assumptions: list[int]):
        self.name, self.cnf, self.assumptions = solver, cnf, assumptions
        self.blocked: list[list[int]] = []
        self.solver: Any = None if solver in NOT_INCREMENTAL else self._new_solver()
        """A pysat solver (untyped), or None for Kissat until the first solve builds one."""
        self.stop = threading.Event()
        self.trivially_unsat = any(not c for c in cnf.clauses)
        """An empty clause (a cell no placement covers): pysat solvers disagree on how to take it."""

    def _new_solver(self, extra: Sequence[Sequence[int]] = ()) -> Any:
        from pysat.solvers import Solver

        solver = Solver(name=self.name)
        solver.append_formula([list(c) for c in self.cnf.clauses])
        solver.append_formula([list(c) for c in extra])
        return solver

    def solve(self, deadline: float | None) -> bool | None:
        """True (a model), False (no more), None (the deadline passed first)."""
        if self.trivially_unsat:
            return False
        if self.name in BLOCKING:
            return self._solve_here(deadline)
        call = self._budgeted if self.name in BUDGETED else self._interruptible
        stopper = self.stop.set if self.name in BUDGETED else self.solver.interrupt
        self.stop.clear()
        return _in_thread(call, stopper, deadline)

    def _interruptible(self) -> bool | None:
        result: bool | None = self.solver.solve_limited(assumptions=self.assumptions, expect_interrupt=True)
        self.solver.clear_interrupt()
        return result

    def _budgeted(self) -> bool | None:
        """Conflict-budget slices sized to last about SLICE_SECONDS each, so a stop waits no longer."""
        budget = FIRST_BUDGET
        while not self.stop.is_set():
            began = time.perf_counter()
            self.solver.conf_budget(budget)
            result: bool | None = self.solver.solve_limited(assumptions=self.assumptions)
            if result is not None:
                return result
            took = max(time.perf_counter() - began, 1e-3)
            budget = max(FIRST_BUDGET, min(4 * budget, int(budget * SLICE_SECONDS / took)))
        return None

    def _solve_here(self, deadline: float | None) -> bool | None:
        """Kissat and Lingeling: no interrupt, GIL held; pysat's own SIGINT handling applies."""
        if deadline is not None and time.perf_counter() >= deadline:
            return None
        if self.name in NOT_INCREMENTAL:
            self.close()
            self.solver = self._new_solver([*self.blocked, *([a] for a in self.assumptions)])
            return _keyboard_safe(lambda: self.solver.solve())
        return _keyboard_safe(lambda: self.solver.solve(assumptions=self.assumptions))

    def chosen_rows(self) -> tuple[int, ...]:
        n = self.cnf.n_rows
        return tuple(sorted(lit - 1 for lit in self.solver.get_model() if 0 < lit <= n))

    def block(self, rows: Sequence[int], extenders: Sequence[int] = ()) -> None:
        chosen = {r + 1 for r in rows}
        clause = [-v for v in sorted(chosen)] + [v for v in extenders if v not in chosen]
        self.blocked.append(clause)
        if self.name not in NOT_INCREMENTAL:
            self.solver.add_clause(clause)

    def details(self) -> dict[str, object]:
        out: dict[str, object] = {"vars": self.cnf.n_vars, "clauses": len(self.cnf.clauses)}
        with contextlib.suppress(AttributeError, NotImplementedError, TypeError):
            out["conflicts"] = int(self.solver.accum_stats().get("conflicts", 0))
        return out

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None


def _in_thread(call: Callable[[], bool | None], stop: Callable[[], None], deadline: float | None) -> bool | None:
    """Run `call` in a worker thread; on the deadline or Ctrl-C, `stop` it, wait, and return/raise."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the calling thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="cpsolve-sat", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            if deadline is not None and time.perf_counter() >= deadline:
                stop()
                worker.join()
                return None
            worker.join(WAIT_SLICE)
    except KeyboardInterrupt:
        stop()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def _keyboard_safe(call: Callable[[], bool | None]) -> bool | None:
    """pysat reports Ctrl-C on the main thread as its own error; make it the KeyboardInterrupt it is."""
    try:
        return call()
    except Exception as exc:
        if "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise
