"""The work per solution: the canonical form, compiled against its numpy twin; writes results/canonical.md.

    python benchmarks/canonical.py

For each model, the first 300 solutions the dlx engine finds are canonicalized by both
implementations (CPU microseconds per solution, the lower of 3 passes; each pass after a warm-up
call, so building the compiled tables is not counted). Both must give the same bytes.

Then the whole work per solution of a real run (canonical form, counting, the class's line written
as `cpsolve enumerate` writes it): measured directly, by replaying the solutions the engine found
through `enumerate_classes` with a backend that only hands them over, and as a cross-check, as the
difference between a whole run and the engine alone on the same subproblems (noisier: two runs).
"""

from __future__ import annotations

import platform
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from cpsolve.output.solutions import LineWriter
from cpsolve.problem.placements import ExactCoverProblem
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.base import Backend, SearchRun
from cpsolve.search.backends.dlx import DlxBackend, build_engine
from cpsolve.search.enumeration import Prepared, enumerate_classes, prepare
from cpsolve.search.parts import subproblems
from cpsolve.search.result import EnumerationResult, SolutionClass
from cpsolve.search.settings import RunSettings

MODELS = ["soma", "bedlam", "tetris-cube", "t-tetracube-6x6x2", "conway-5x5x5", "y-pentacube-5x5x5"]
OUT = Path(__file__).resolve().parent.parent / "results" / "canonical.md"


class Replay(Backend):
    """A backend that searches nothing: it hands over the solutions recorded for each subproblem, so
    that a run's time is all the work done per solution outside the engine."""

    name = "replay"

    def __init__(self, recorded: dict[tuple[int, ...], list[tuple[int, ...]]]):
        super().__init__()
        self.recorded = recorded

    def _search(self, problem: ExactCoverProblem, forced: tuple[int, ...], run: SearchRun) -> None:
        for rows in self.recorded[forced]:
            if run.emit(rows):
                return


def writing_run(prepared: Prepared, backend: Backend) -> EnumerationResult:
    """`enumerate_classes` on one worker writing each class's line as the command line does."""
    lines = LineWriter(prepared.name, prepared.problem)
    with tempfile.TemporaryFile("w") as sink:
        def write(cls: SolutionClass) -> None:
            sink.write(lines.line(cls.index, cls.assemblies, cls.mirror_distinct, cls.placements, id=cls.id) + "\n")
            sink.flush()

        return enumerate_classes(prepared, RunSettings(backend), on_class=write)


def per_solution(fn, solutions) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for rows in solutions:
            fn(rows)
        best = min(best, time.process_time() - start)
    return 1e6 * best / len(solutions)


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _cpu_found(fn: Callable[[], EnumerationResult]) -> tuple[float, int]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result.tally.found


def main() -> None:
    lines = ["# Canonical forms: work per solution", "",
             f"Regenerate with `python benchmarks/canonical.py` (written {datetime.now(UTC):%Y-%m-%d %H:%M UTC};"
             f" {platform.machine()}, Python {platform.python_version()}).", "",
             "CPU microseconds per solution, the lower of 3 passes over the first 300 solutions the dlx engine",
             "finds; `compiled` is `cpsolve/problem/_canon.c`, `numpy` its twin `Canonicalizer.python_forms`.", "",
             "| model | cells | symmetries | identical copies | compiled µs | numpy µs | same bytes |",
             "|---|---:|---:|:-:|---:|---:|:-:|"]
    for model in MODELS:
        prepared = prepare(load(model))
        problem = prepared.broken.problem
        found: list[tuple[int, ...]] = []

        def keep(rows: tuple[int, ...], found: list[tuple[int, ...]] = found) -> bool:
            found.append(rows)
            return len(found) >= 300

        DlxBackend().search(problem, keep)
        canon = prepared.canonicalizer
        canon.forms(problem, found[0])
        fast = per_solution(lambda rows: canon.forms(problem, rows), found)  # noqa: B023
        slow = per_solution(lambda rows: canon.python_forms(problem, rows), found)  # noqa: B023
        same = all(canon.forms(problem, r) == canon.python_forms(problem, r) for r in found)
        copies = "yes" if any(k > 1 for k in problem.piece_counts) else "no"
        lines.append(f"| {model} | {problem.n_cells} | {len(canon.elements)} | {copies} | {fast:.1f} | {slow:.1f} "
                     f"| {'yes' if same else '**NO**'} |")
        print(lines[-1], flush=True)
    lines += ["", "## The whole work per solution, in a real run", "",
              "`enumerate_classes` on one worker, dlx, writing every class's line to a file and flushing it as "
              "`cpsolve enumerate` does: canonical form, counting and writing included. `replayed` runs it with a "
              "backend that hands over the solutions the engine found, so its CPU time is the work per solution "
              "alone; `whole - engine` is the same figure taken the other way, a whole run less the engine "
              "alone on the same subproblems (two runs, so noisier). The lower of 3 runs each.", "",
              "| model | solutions | classes | engine alone s | whole run s | whole - engine µs | "
              "replayed µs per solution |", "|---|---:|---:|---:|---:|---:|---:|"]
    for model, sym in (("conway-5x5x5", False), ("y-pentacube-5x5x5", True), ("bedlam", True),
                       ("tetris-cube", True)):
        prepared = prepare(load(model), symmetry_breaking=sym)
        problem = prepared.broken.problem
        parts = subproblems(prepared.broken)
        engine = build_engine(problem)
        alone = min(_cpu(lambda: [engine.search(None, forced=p) for p in parts]) for _ in range(3))  # noqa: B023
        recorded: dict[tuple[int, ...], list[tuple[int, ...]]] = {p: [] for p in parts}
        for part in parts:
            engine.search(recorded[part].append, forced=part)
        whole, n_found = min(_cpu_found(lambda: writing_run(prepared, DlxBackend())) for _ in range(3))  # noqa: B023
        replayed, again = min(_cpu_found(lambda: writing_run(prepared, Replay(recorded))) for _ in range(3))  # noqa: B023
        classes = writing_run(prepared, Replay(recorded)).tally.unique_symmetry
        assert n_found == again == sum(map(len, recorded.values())), (n_found, again)
        label = model + ("" if sym else " --no-symmetry-breaking")
        lines.append(f"| {label} | {n_found} | {classes} | {alone:.2f} | {whole:.2f} "
                     f"| {1e6 * (whole - alone) / n_found:.1f} | {1e6 * replayed / n_found:.1f} |")
        print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
