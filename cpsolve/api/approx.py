"""Beyond enumeration: approximate counts (`count_approx`: ApproxMC's guaranteed interval, Knuth's
estimate with its standard error) and near-uniform random solutions (`sample`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..limits import check_timeout
from ..puzzle.model import Puzzle
from .common import _frozen, _table
from .results import Solution
from .solving import _prepared

if TYPE_CHECKING:
    from ..search.estimate import SolutionEstimate


@dataclass(frozen=True)
class ApproxCounts:
    """The total number of assemblies estimated two ways (`cpsolve count --approx`), and the counts
    up to symmetry derived from it.

    ApproxMC (`total`, `interval`): with probability at least 1 - `delta`, the true total lies in
    `interval`, which is [total / (1 + epsilon), total x (1 + epsilon)]; when `exact` no random cut
    was needed and the total is exact. Knuth's walks (`knuth`, `knuth_stderr`): an unbiased estimate
    with its standard error (no guarantee: rare big branches can hide from every walk, and then the
    error bar is too small too). Either is None when it did not run or did not finish (`notes` says
    why).

    The derived counts: by Burnside's lemma the classes up to rotation number (1 / |R|) x the sum over
    the container's rotations g of the assemblies g leaves unchanged; the identity leaves every one,
    so the classes are total / |R| (`rotations`) exactly when no assembly is symmetric, and more when
    some are. `unique_rotation` and `unique_symmetry` (over `symmetries` elements: the reflections
    count only when the piece set is closed under mirroring) are those lower estimates, approximations
    whenever the total is one, and a fraction shows that symmetric assemblies exist.
    """

    puzzle: str
    total: int | None
    interval: tuple[float, float] | None
    exact: bool
    epsilon: float
    delta: float
    seed: int
    seconds: float | None
    """ApproxMC's time (wall), its preprocessing included."""
    knuth: float | None
    knuth_stderr: float | None
    knuth_walks: int
    knuth_seconds: float | None
    rotations: int
    symmetries: int
    notes: tuple[str, ...] = ()
    knuth_reached: int = 0
    """Walks that reached a solution (the others are worth 0): with few, the error bar is unreliable too."""

    @property
    def best(self) -> float | None:
        """ApproxMC's total when there is one, else Knuth's estimate."""
        return float(self.total) if self.total is not None else self.knuth

    @property
    def unique_rotation(self) -> float | None:
        return None if self.best is None else self.best / self.rotations

    @property
    def unique_symmetry(self) -> float | None:
        return None if self.best is None else self.best / self.symmetries

    def as_json(self) -> dict[str, object]:
        """What `cpsolve count --approx --json` prints."""
        return {
            "puzzle": self.puzzle, "total": self.total, "interval": list(self.interval) if self.interval else None,
            "exact": self.exact, "epsilon": self.epsilon, "delta": self.delta, "seed": self.seed,
            "seconds": self.seconds,
            "knuth": {"total": self.knuth, "stderr": self.knuth_stderr, "walks": self.knuth_walks,
                      "reached": self.knuth_reached, "seconds": self.knuth_seconds},
            "derived": {"unique_rotation": self.unique_rotation, "unique_symmetry": self.unique_symmetry,
                        "rotations": self.rotations, "symmetries": self.symmetries,
                        "how": "total / rotations and total / symmetries: exact only when no assembly is "
                               "symmetric (Burnside), otherwise the true counts are larger"},
            "notes": list(self.notes),
        }

    def _repr_html_(self) -> str:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.4g}"

        low, high = self.interval or (None, None)
        return _table(("total (ApproxMC)", "interval", "δ", "Knuth", "± (1 s.e.)", "up to rotation ≈",
                       "up to rotation and reflection ≈"),
                      [(num(self.total), f"{num(low)} - {num(high)}", f"{self.delta:g}", num(self.knuth),
                        num(self.knuth_stderr), num(self.unique_rotation), num(self.unique_symmetry))])


def count_approx(
    puzzle: Puzzle,
    *,
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 1,
    walks: int = 100_000,
    timeout: float | None = None,
    knuth_seconds: float | None = None,
    workers: int = 1,
    approxmc: bool = True,
    progress: Callable[[str], object] | None = None,
) -> ApproxCounts:
    """The total number of assemblies without enumerating them: ApproxMC's count of the sat backend's
    CNF projected on the placement variables (within a factor 1 + `epsilon` with probability at least
    1 - `delta`; `seed` makes it reproducible), and Knuth's estimate from `walks` random walks of the
    dlx engine's tree (stratified over the key piece's placements, each weighted by its orbit), with
    its standard error. Needs the extra `cpsolve[approx]` for ApproxMC (`approxmc=False` skips it).

    `timeout` (seconds) bounds ApproxMC (then `total` is None and `notes` says so); `knuth_seconds`
    bounds the walks (they stop after the batch that passes it). ApproxMC runs on one core: `workers`
    > 1 shares the walks among forked processes. `progress` receives one-line reports. A chain has no
    walks (its joints are not exact cover). See `ApproxCounts` for the derived counts.

    >>> a = cpsolve.count_approx(cpsolve.load("slothouber-graatsma"), walks=4000)
    >>> a.total, a.exact, a.interval, a.delta
    (8, True, (8.0, 8.0), 0.2)
    >>> 7 < a.knuth < 9, a.rotations
    (True, 24)
    """
    from ..search.approx import check_parameters
    from ..search.estimate import estimate_solutions

    check_parameters(epsilon, delta)
    check_timeout(timeout)
    check_timeout(knuth_seconds, "knuth_seconds")
    if walks < 0:
        raise CpsolveError(f"must be >= 0, not {walks}", field="walks")
    prepared = _prepared(puzzle, True, workers)
    problem, broken = prepared.problem, prepared.broken
    numberings = 1 + len(problem.label_symmetries)
    notes: list[str] = []
    total = interval = seconds = None
    exact = False
    if approxmc:
        from ..search.approx import part_cnfs, split_count

        weights = broken.weights or (1,)

        def part_done(done: int, of: int) -> None:
            if progress is not None:
                progress(f"ApproxMC: {done} of {of} parts counted")

        try:
            cnfs = part_cnfs(broken.problem, broken.starts)
            if progress is not None:
                progress(f"ApproxMC: counting {len(cnfs)} part(s) (the key's placements), each CNF projected on "
                         "the placement variables")
            found = split_count(list(zip(cnfs, weights, strict=True)), epsilon, delta, seed, timeout, workers,
                                part_done)
        except CpsolveError as exc:  # past the timeout, not installed, a CNF past --max-literals: Knuth answers
            if not walks or exc.where is not None or exc.field not in ("timeout", "approx", None):
                raise
            notes.append(f"ApproxMC: {exc.message}")
        else:
            total, exact, seconds = found.count // numberings, found.is_exact, found.seconds
            low, high = found.interval
            interval = (low / numberings, high / numberings)
    knuth = knuth_stderr = knuth_seconds_taken = None
    knuth_walks = knuth_reached = 0
    if walks and problem.side_clauses:
        notes.append("Knuth: no walks for a chain (its joints are not exact cover)")
    elif walks:
        if progress is not None:
            progress(f"Knuth: {walks} random walks of the search tree")

        def report(e: SolutionEstimate) -> None:
            if progress is not None:
                progress(f"Knuth: {e.walks} walks, {e.solutions / numberings:.4g} ± {e.stderr / numberings:.2g}")

        estimate = estimate_solutions(broken.problem, broken.starts, broken.weights or (1,), walks, seed=seed,
                                      seconds=knuth_seconds, workers=workers, on_batch=report)
        knuth, knuth_stderr = estimate.solutions / numberings, estimate.stderr / numberings
        knuth_walks, knuth_seconds_taken, knuth_reached = estimate.walks, estimate.seconds, estimate.reached
        if estimate.reached == 0:
            notes.append(f"Knuth: none of {estimate.walks} walks reached a solution (0 is no estimate: more walks)")
    canon = prepared.canonicalizer
    return ApproxCounts(prepared.name, total, interval, exact, epsilon, delta, seed, seconds, knuth, knuth_stderr,
                        knuth_walks, knuth_seconds_taken, canon.n_rotations, len(canon.elements), tuple(notes),
                        knuth_reached)


def sample(puzzle: Puzzle, n: int, *, seed: int = 1, timeout: float | None = None) -> list[Solution]:
    """`n` near-uniform random assemblies (UniGen on the sat backend's CNF projected on the placement
    variables; `seed` makes them reproducible; `timeout` in seconds raises, exit code 1). Each is the
    assembly as drawn; its `index` numbers its class (up to rotation and reflection) in the order the
    sample first meets it, `id` is the class's stable id (as `enumerate` gives it), and `assemblies` and
    `mirror_distinct` describe that class, so `as_line()`
    writes the solutions file `cpsolve sample` writes. Draws are independent: an assembly may repeat.
    Needs the extra `cpsolve[approx]`.

    >>> drawn = cpsolve.sample(cpsolve.load("slothouber-graatsma"), 3, seed=2)
    >>> len(drawn), {s.index for s in drawn}, drawn[0].assemblies
    (3, {0}, 8)
    """
    from ..output.solutions import labelled, rows_as_placements
    from ..problem.canonical import class_id
    from ..problem.cnf import encode
    from ..search.approx import APPROX_ENCODING, uniform_rows

    prepared = _prepared(puzzle, False)
    problem = prepared.problem
    classes: dict[bytes, int] = {}
    out = []
    try:
        cnf = encode(problem, APPROX_ENCODING)
    except CpsolveError as exc:  # --max-literals: the puzzle's file is what is too big
        raise exc.located(puzzle.origin or puzzle.name) from None
    for rows in uniform_rows(cnf, n, seed, timeout):
        forms = prepared.canonicalizer.forms(problem, rows)
        index = classes.setdefault(forms.symmetry_key, len(classes))
        out.append(Solution(prepared.name, _frozen(labelled(problem, rows_as_placements(problem, rows))), index,
                            forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, puzzle,
                            id=class_id(forms.symmetry_key)))
    return out
