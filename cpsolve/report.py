"""The results table: every built-in model's counts beside its reference figures.

Each row says which command reproduces it, so a reader can rerun any single number; the whole
table is written by `cpsolve report`, never by hand.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from .backends import Status, for_problem
from .canonical import counts_text
from .catalog import load
from .enumeration import enumerate_classes, first_solution, prepare


@dataclass(frozen=True)
class ReportRow:
    model: str
    mode: str
    """'enumerate' (all three counts) or 'solve' (only solvability is known)."""
    total: int | None
    unique_rotation: int | None
    unique_symmetry: int | None
    reference: str
    matches: bool
    backend: str
    seconds: float
    status: str
    source: str
    command: str


def run_model(model: str, backend_spec: str, timeout: float | None = None, workers: int = 1) -> ReportRow:
    loaded = load(model)
    backend = for_problem(backend_spec, loaded.problem)
    ref = loaded.spec.reference
    prepared = prepare(loaded)
    counts = ref.counts() if ref else (None, None, None)
    if ref is not None and ref.solvable and not any(counts):
        start = time.perf_counter()
        rows, stats = first_solution(prepared, backend, timeout)
        solved = rows is not None and prepared.broken.problem.check_solution(rows) is None
        return ReportRow(
            model, "solve", None, None, None, "solvable", solved, backend.label,
            round(time.perf_counter() - start, 3), stats.status.value, ref.source,
            f"cpsolve solve {model} --backend {backend.label}",
        )
    result = enumerate_classes(prepared, backend, timeout=timeout, workers=workers)
    got = (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry)
    complete = result.status == Status.COMPLETE
    return ReportRow(
        model, "enumerate", *got,
        counts_text(counts) if ref else "none",
        complete and all(c is None or c == g for c, g in zip(counts, got)),
        backend.label, round(result.seconds, 3), result.status.value,
        ref.source if ref else "",
        f"cpsolve enumerate {model} --backend {backend.label} --workers {workers} --json --no-save",
    )


def run_report(models: Sequence[str], backend_spec: str, timeout: float | None,
               workers: int = 1, on_row: Callable[[ReportRow], None] | None = None) -> list[ReportRow]:
    rows = []
    for model in models:
        row = run_model(model, backend_spec, timeout, workers)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def machine() -> str:
    return f"{platform.machine()}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def render_markdown(rows: Sequence[ReportRow], command: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Counts of the built-in models",
        "",
        f"Regenerate with `{command}` (from the repository root). Written {when} on {machine()}.",
        "Each row can be rerun alone with the command in its last column.",
        "",
        "| model | total | up to rotation | up to rotation+reflection | reference | match | backend | seconds | command |",
        "|---|---:|---:|---:|---|:-:|---|---:|---|",
    ]
    for r in rows:
        counts = ["–" if v is None else str(v) for v in (r.total, r.unique_rotation, r.unique_symmetry)]
        if r.mode == "solve":
            counts = ["solved" if r.matches else r.status, "–", "–"]
        mark = "yes" if r.matches else f"**NO** ({r.status})"
        lines.append(
            f"| `{r.model}` | {' | '.join(counts)} | {r.reference} | {mark} | {r.backend} | {r.seconds:.2f} | `{r.command}` |"
        )
    lines += ["", "Reference sources:", ""]
    lines += [f"- `{r.model}`: {' '.join(r.source.split())}" for r in rows if r.source]
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[ReportRow], command: str) -> str:
    doc = {"command": command, "machine": machine(), "rows": [asdict(r) for r in rows]}
    return json.dumps(doc, indent=2) + "\n"
