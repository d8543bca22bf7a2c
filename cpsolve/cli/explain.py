"""`cpsolve explain`: why a puzzle has no assembly, why an assembly does not come apart, what a puzzle's
solutions share. A thin layer over `cpsolve.explain` (the public API): it reads options, prints and
writes files, nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import CpsolveError
from .common import (
    TIMEOUT_EXIT,
    ClearanceOpt,
    RotationsOpt,
    TimeoutOpt,
    _remaining,
    app,
    check_output,
    inputs_of,
    write_output,
)
from .pictures import _picture_size


@app.command("explain")
def explain_cmd(
    source: Annotated[str, typer.Argument(
        help="A model or puzzle file (why it has no assembly, or what its solutions share); with --index, or a "
             "JSON-lines file of solutions, an assembly (why it does not come apart).")],
    index: Annotated[int | None, typer.Option(min=0, help="Explain this assembly: the N-th solution class of a "
                                                          "model, of a solutions file, or stored in a BurrTools file.")
                     ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    picture: Annotated[Path | None, typer.Option(help="Draw the explanation: FILE.png or FILE.svg.")] = None,
    page: Annotated[Path | None, typer.Option(help="A stuck assembly on the 3-D page, blockers in red: FILE.html."
                                              )] = None,
    backend: Annotated[str, typer.Option("--backend", "-b", help="Who finds a core: sat (python-sat) or cpsat.")
                       ] = "sat",
    max_states: Annotated[int | None, typer.Option(min=1, help="Give up a disassembly after this many states.")
                          ] = None,
    timeout: TimeoutOpt = None,
    rotations: RotationsOpt = False,
    rotation_clearance: ClearanceOpt = None,
) -> None:
    """Why not? No assembly (volume, placements, colourings, a minimal core), an assembly that does not come
    apart (blocking, states, what to remove), one solution or several (the backbone, the differences)."""
    import cpsolve

    fmt = picture.suffix.lower().lstrip(".") if picture is not None else None
    if fmt is not None and fmt not in ("png", "svg"):
        raise CpsolveError("the picture's file name must end in .png or .svg", field="--picture")
    if page is not None and page.suffix.lower() not in (".html", ".htm"):
        raise CpsolveError("the page is HTML: its file name must end in .html", field="--page")
    inputs = inputs_of(cpsolve.source(source)) if picture is not None or page is not None else []
    for path, option in ((picture, "--picture"), (page, "--page")):
        if path is not None:
            check_output(path, inputs, option)
    found = cpsolve.explain(source, index=index, backend=backend, timeout=_remaining(timeout), max_states=max_states,
                             rotations=rotations, rotation_clearance=rotation_clearance or 0)
    if as_json:
        typer.echo(json.dumps(found.as_json()))
    else:
        typer.echo(str(found), nl=False)
    if picture is not None and fmt is not None:
        data = found.picture("svg" if fmt == "svg" else "png")
        write_output(picture, data, inputs, "--picture")
        typer.echo(f"wrote {cpsolve.printable(str(picture))} ({_picture_size(data)})", err=True)
    if page is not None:
        html = found.page()
        write_output(page, html, inputs, "--page")
        typer.echo(f"wrote {cpsolve.printable(str(page))} ({len(html.encode()) / 1e6:.2f} MB)", err=True)
    if found.case == "unknown":  # only a deadline leaves a question open: exit 3, as every --timeout does
        raise typer.Exit(TIMEOUT_EXIT)

