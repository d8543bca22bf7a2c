"""OR-Tools CP-SAT: one Boolean per placement, exactly-one per cell, a sum per piece.

Optional cells get at-most-one; a piece with a range [low, count] a linear constraint low <= sum <= count.

Enumeration uses a fixed search over the placement variables, trying "placed" first, ordered by the
first of their cells in a cell order made for each subproblem (`cell_order`: corners and pockets
first, then the fewest candidates; lowest cell first when pieces have copies): it fills the container
cell by cell like an exact-cover solver, which measured 2-5x faster than CP-SAT's default search for
full enumeration (docs/backends.md). The model is built once per problem; each subproblem's forced
rows are assumptions on it and its order replaces the previous one.

Where the time goes, and what this module does about it (`python benchmarks/cpsat.py`,
results/cpsat.md; docs/backends.md has the figures):

- The search itself, and the reason the goal of 20x dlx is not met (Bedlam 89x, the Tetris Cube 91x
  with two workers, results/cpsat.md). CP-SAT meets about as many dead ends as dlx's engine has nodes
  (0.4-0.7 of them: its unit propagation and learned clauses prune a little more than the engine),
  but each one is a conflict that costs 35-50 µs: propagating a placement falsifies hundreds of row literals, and
  the clause learned from an empty cell holds one literal per candidate of that cell (140 on average
  on Bedlam) and can seldom be minimised. The engine kills the same child in a fraction of a
  microsecond. That factor, not the callback or the model, is what remains between the two.
- Clause database and inprocessing (`SEARCH_PARAMETERS`): those long learned clauses are nearly
  never used again, but CP-SAT keeps every clause of LBD <= 5 for ever and spends its inprocessing
  (vivification) on them. Deleting all but the last 1,000 learned clauses every 1,000 conflicts and
  turning inprocessing off made Bedlam's largest subproblems 2.3x faster (76.8 s -> 33.4 s on one)
  and small ones 1.2-1.6x; fewer clauses cost a few more conflicts, far cheaper ones.
- The per-solution callback (`_rows_reader`): iterating over `response_proto.solution` (one value
  per placement, 4,142 on Bedlam) took 0.80 ms a solution through the Python bindings (1.2-1.7 ms
  on a busy machine), 15 s over Bedlam's 19,186 solutions; the solution's text form, made in one
  call and searched for its ones, takes 76 µs.
  Integer variables carrying each piece's placement index made reading cheaper still (30 µs) but the
  search 30 % slower, more than the callback saved.
- A redundant count (`_implied_count`): a single piece type filling the container (25 Y-pentacubes
  in 5x5x5) needs no `sum == count`, which the cells already imply; CP-SAT's linear propagator over
  all 891 placements made that puzzle 14x slower (158 s against 11.5 s of CPU, whole runs). Where
  several types share the container the counts prune (Conway's puzzle without its 13-piece sum:
  338,375 conflicts against 977) and are kept.

Tried and dropped (measured on Bedlam subproblems): other fixed orders (fewest candidates at the
start alone, a diagonal sweep, the reversed axes: within +-20 % of lowest cell first), branching on
"placement excluded" first (5x the branches), one integer variable per cell with CHOOSE_MIN_DOMAIN_SIZE
to imitate dlx's fewest-candidates cell (CP-SAT measures a domain by its bounds, not its holes: 4x
slower), auxiliary "piece p covers cell c" literals (no change after presolve, 2x slower without),
colouring (parity) sums, precomputed pair-exclusion clauses (13 % fewer conflicts, no faster), the
default, portfolio and partial-fixed searches (1.2-3.8x slower), chronological backtracking, no
presolve, and splitting the subproblems one or two levels deeper (the conflicts stay, the presolves
add up).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...problem.placements import ExactCoverProblem
from .base import Backend, SearchRun

SEARCH_PARAMETERS: dict[str, object] = {
    "enumerate_all_solutions": True,
    "num_workers": 1,  # enumeration runs on one worker whatever this says (docs/backends.md)
    "use_sat_inprocessing": False,
    "clause_cleanup_lbd_bound": 1,
    "clause_cleanup_lbd_tier1": 0,
    "clause_cleanup_lbd_tier2": 0,
    "clause_cleanup_period": 1000,
    "clause_cleanup_target": 1000,
}
"""CP-SAT parameters of every search besides the fixed search (see the module docstring for why)."""


class CpSatBackend(Backend):
    name = "cpsat"
    description = "OR-Tools CP-SAT (exact enumeration, fixed placement-order search)"
    install_hint = "OR-Tools is not installed (pip install ortools)"
    requires = ("ortools", "ortools")

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        from ortools.sat.python import cp_model

        model, variables = self.kept_for(problem, build_model)
        # The model is kept across subproblems; the forced rows are assumptions and the search order
        # is the subproblem's own, both replaced each time.
        model.clear_assumptions()
        model.add_assumptions([variables[r] for r in forced])
        set_order(model, [variables[r] for r in decision_order(problem, forced)])
        solver = cp_model.CpSolver()
        for key, value in SEARCH_PARAMETERS.items():
            setattr(solver.parameters, key, value)
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
        remaining = run.remaining()
        if remaining is not None:
            solver.parameters.max_time_in_seconds = remaining
        relay = _relay(run, _rows_reader(len(variables)))
        status = solver.solve(model, relay)
        if relay.exception is not None:
            raise relay.exception
        run.stats.details = {"branches": solver.num_branches, "conflicts": solver.num_conflicts}
        if relay.stopped:
            return
        if status in (cp_model.UNKNOWN, cp_model.FEASIBLE):
            # Enumeration ends OPTIMAL/INFEASIBLE unless time ran out or CP-SAT caught Ctrl-C
            # (it handles SIGINT itself and returns early, so Python never sees the signal).
            if remaining is None or solver.wall_time < 0.99 * remaining:
                raise KeyboardInterrupt
            run.timed_out()
        elif status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")


def build_model(problem: ExactCoverProblem) -> tuple[Any, list[Any]]:
    """The CP-SAT model of an exact-cover problem (with its side clauses) and its row variables."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = [model.new_bool_var(f"r{r}") for r in range(len(problem.rows))]
    optional = problem.optional_set
    for c, rows in enumerate(problem.rows_by_cell):
        if c in optional:
            model.add_at_most_one(x[r] for r in rows)
        else:
            model.add_exactly_one(x[r] for r in rows)
    implied = _implied_count(problem)
    for p, rows in enumerate(problem.rows_by_piece):
        low, high = problem.piece_low[p], problem.piece_counts[p]
        if p == implied:
            continue
        if low == high == 1:
            model.add_exactly_one(x[r] for r in rows)
        elif low == high:
            model.add(sum(x[r] for r in rows) == high)
        else:
            model.add_linear_constraint(sum(x[r] for r in rows), low, high)
    for clause in problem.side_clauses:
        model.add_bool_or(x[lit - 1] if lit > 0 else x[-lit - 1].Not() for lit in clause)
    set_order(model, [x[r] for r in decision_order(problem, ())])
    return model, x


def set_order(model: Any, ordered: list[Any]) -> None:
    """The model's one decision strategy: these variables in this order, "placed" first."""
    from ortools.sat.python import cp_model

    strategies = model.proto.search_strategy
    if hasattr(strategies, "clear"):  # OR-Tools >= 9.13 (its own proto bindings)
        strategies.clear()
    else:  # protobuf's repeated field
        del strategies[:]
    model.add_decision_strategy(ordered, cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)


def decision_order(problem: ExactCoverProblem, forced: tuple[int, ...]) -> list[int]:
    """Every row, ordered by the first of its cells: in `cell_order` when every piece is one of a
    kind, else by index (the lowest cell first).

    With copies of a piece (Conway's puzzle, the Y-pentacubes) `cell_order` was measured worse:
    5.4 s of CPU against 3.5 s, and 21.7 s against 10.6 s; closed faces alone, without the
    candidates, 4.1 s and 12.4 s, and no gain on the Tetris Cube (31.8 s against lex's 35.0 s on
    one subproblem, 22.3 s with the candidates)."""
    one_each = all(count == 1 for count in problem.piece_counts)
    cells = cell_order(problem, forced) if one_each else range(problem.n_cells)
    rank = {c: i for i, c in enumerate(cells)}
    last = len(rank)

    def first(r: int) -> tuple[int, int]:
        return min((rank[c] for c in problem.rows[r].cells), default=last), r

    return sorted(range(len(problem.rows)), key=first)


def cell_order(problem: ExactCoverProblem, forced: tuple[int, ...]) -> list[int]:
    """The cells in the order a fixed search should fill them below `forced`: the forced rows' cells,
    then, one at a time, the cell with the most faces closed (by the container's boundary or a cell
    already in the order), then the fewest candidates left, then the lowest index.

    A static imitation of dlx's fewest-candidates cell: corners and pockets next to what is filled
    first. Against the lowest cell first it took 1.3-1.6x fewer conflicts on Tetris Cube
    subproblems and 1.0-1.3x on Bedlam's (0.8x on Conway's and the Y-pentacube puzzles)."""
    covered = {c for r in forced for c in problem.rows[r].cells}
    left = list(problem.piece_counts)
    for r in forced:
        left[problem.rows[r].piece] -= 1
    candidates = [0] * problem.n_cells
    for row in problem.rows:
        if left[row.piece] > 0 and covered.isdisjoint(row.cells):
            for c in row.cells:
                candidates[c] += 1
    neighbours = problem.neighbours
    # A face is closed by the container's boundary (the grid's faces less the neighbours inside: 6 for a
    # cube) or by a filled cell.
    faces = problem.faces
    closed = [faces - len(around) + sum(1 for q in around if q in covered) for around in neighbours]
    order = sorted(covered)
    rest = [c for c in range(problem.n_cells) if c not in covered]
    while rest:
        best = min(rest, key=lambda c: (-closed[c], candidates[c], c))
        rest.remove(best)
        order.append(best)
        for q in neighbours[best]:
            closed[q] += 1
    return order


def _implied_count(problem: ExactCoverProblem) -> int | None:
    """The one piece whose count constraint the cells imply, or None.

    With a single piece type (of several copies), every cell required and no range, covering every
    cell exactly once takes exactly cells / size copies; when that is the piece's count, its sum
    constraint prunes nothing and costs a linear propagation over every placement."""
    if problem.n_pieces != 1 or problem.optional or problem.has_ranges or problem.piece_counts[0] < 2:
        return None
    rows = problem.rows_by_piece[0]
    if not rows or len(problem.rows[rows[0]].cells) * problem.piece_counts[0] != problem.n_cells:
        return None
    return 0


def _rows_reader(n: int) -> Callable[[Any], tuple[int, ...]]:
    """How a solution callback reads the chosen rows of a model whose variables are the `n` rows.

    The text of the solution's values ("[0, 1, 0, ...]": each 0/1 value three characters on) is made
    in one C++ call and searched for its ones; iterating over the values costs one Python call each.
    Any other form of the text (a value not 0/1, another bindings' format) falls back to iterating."""

    def read(callback: Any) -> tuple[int, ...]:
        values = callback.response_proto.solution
        text = str(values)
        if len(text) != 3 * n or text[0] != "[":
            return tuple(i for i, v in enumerate(values) if v)
        rows = []
        find = text.find
        at = find("1")
        while at >= 0:
            rows.append(at // 3)  # value k is at 1 + 3k
            at = find("1", at + 3)
        return tuple(rows)

    return read


def _relay(run: SearchRun, read: Callable[[Any], tuple[int, ...]]) -> Any:
    """A CP-SAT solution callback feeding `run.emit`; it keeps any exception for re-raising.

    Defined in a function so that importing this module does not import OR-Tools (0.5 s).
    """
    from ortools.sat.python import cp_model

    class Relay(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.stopped = False
            self.exception: BaseException | None = None

        def on_solution_callback(self) -> None:
            try:
                stop = run.emit(read(self))
            except BaseException as exc:  # noqa: BLE001 - C++ cannot carry it; re-raised after solve()
                self.exception = exc
                stop = True
            if stop:
                self.stopped = True
                self.stop_search()

    return Relay()
