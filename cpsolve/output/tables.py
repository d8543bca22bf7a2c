"""The counts table of `cpsolve report` as Markdown and JSON, each headed by the command that
regenerates it and the machine it ran on."""

from __future__ import annotations

import json
import platform
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime

from ..analysis.report import ReportRow


def machine() -> str:
    return f"{platform.machine()}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def stamp() -> str:
    """When and where a table was written, for its heading: a figure means little without both."""
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC} on {machine()}"


def render_markdown(rows: Sequence[ReportRow], command: str) -> str:
    lines = [
        "# Counts of the built-in models",
        "",
        f"Regenerate with `{command}` (from the repository root). Written {stamp()}.",
        "Each row can be rerun alone with the command in its last column.",
        "",
        "| model | total | up to rotation | up to rotation+reflection | reference | match | backend | seconds "
        "| command |",
        "|---|---:|---:|---:|---|:-:|---|---:|---|",
    ]
    for r in rows:
        counts = ["–" if v is None else str(v) for v in (r.total, r.unique_rotation, r.unique_symmetry)]
        if r.mode == "solve":
            counts = ["solved" if r.matches else r.status, "–", "–"]
        mark = "yes" if r.matches else f"**NO** ({r.status})"
        lines.append(
            f"| `{r.model}` | {' | '.join(counts)} | {r.reference} | {mark} | {r.backend} | {r.seconds:.2f} "
            f"| `{r.command}` |"
        )
    lines += ["", "Reference sources:", ""]
    lines += [f"- `{r.model}`: {' '.join(r.source.split())}" for r in rows if r.source]
    return "\n".join(lines) + "\n"


def render_json(rows: Sequence[ReportRow], command: str) -> str:
    doc = {"command": command, "machine": machine(), "rows": [asdict(r) for r in rows]}
    return json.dumps(doc, indent=2) + "\n"
