"""`cpsolve app`: the workbench, a local web page to draw pieces, run every command and browse solutions.

The command only starts it: the workbench is a front end of its own (`cpsolve/app/`, on the public
API like this command line), imported here when the command runs, with Starlette and uvicorn (the
optional extra `cpsolve[app]`), so no other command pays for them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .common import ProblemOpt, app


@app.command("app")
def app_cmd(
    file: Annotated[str | None, typer.Argument(
        help="A puzzle file in this folder (YAML, BurrTools; --problem N), a solutions file, or a built-in model, "
             "to open first.")] = None,
    port: Annotated[int | None, typer.Option(min=0, max=65535, show_default="8765, or the next free one",
                                             help="Port to listen on (0: any free one).")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on; another than 127.0.0.1 lets other machines "
                                           "reach the workbench (they still need the printed token).")] = "127.0.0.1",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Print the address without opening a browser.")
                          ] = False,
    problem: ProblemOpt = None,
) -> None:
    """The workbench: draw pieces, solve, browse solutions and take them apart, in a local web page.

    It serves the current folder (and nothing outside it) on 127.0.0.1 and prints its address with a
    one-time token; Ctrl-C stops it, and stops its runs as Ctrl-C stops a command (their journals
    kept, to resume). Needs pip install 'cpsolve[app]'.
    """
    from ..app.launch import launch

    launch(file, problem=problem, host=host, port=port, open_browser=not no_browser, say=typer.echo)
