"""`cpsolve app`: check the extra is installed, find the start file, listen, print the address, serve.

The folder the workbench may touch is the one it is started in; a FILE argument must lie inside it
(start `cpsolve app` in the puzzle's folder), and a MODEL names a built-in model. The browser is
opened, where one exists, through a redirect file in a private temporary folder (as Jupyter does),
so that the token is not on any command line that other users of the machine can list.
"""

from __future__ import annotations

import contextlib
import html
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cpsolve

from ..errors import CpsolveError
from .folder import Folder

INSTALL_HINT = "the workbench needs Starlette and uvicorn: pip install 'cpsolve[app]'"


def check_installed() -> None:
    """One line instead of an ImportError when the extra is missing."""
    import importlib.util

    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise CpsolveError(f"{' and '.join(missing)} not installed: {INSTALL_HINT}", exit_code=1)


def start_of(folder: Folder, given: str | None, problem: int | None) -> dict[str, Any]:
    """What the page opens first: a built-in model, a file of the folder (checked now, one line if it is
    not a puzzle cpsolve reads), or nothing."""
    if given is None:
        return {}
    if given in cpsolve.models():  # a bare built-in name is the model, as for every command (cpsolve.source)
        cpsolve.source(given, problem)  # (--problem is refused for it, in the same words)
        return {"model": given}
    path = Path(given).resolve()
    if not path.is_relative_to(folder.root):  # checked before the file is read at all
        raise CpsolveError(f"outside the folder the workbench serves ({folder.root}): start cpsolve app in the "
                           "puzzle's folder", where=given)
    src = cpsolve.source(given, problem)
    if src.kind != "solutions":
        src.require_puzzle("app")
    return {"path": folder.relative(path), "problem": src.problem}


def launch(given: str | None, *, problem: int | None, host: str, port: int | None, open_browser: bool,
           say: Callable[[str], object]) -> None:
    """Serve the current folder until Ctrl-C; `say` prints the address (and what Ctrl-C does)."""
    check_installed()
    from .guard import new_token
    from .server import listen, serve

    folder = Folder.at(os.getcwd())
    start = start_of(folder, given, problem)
    sock = listen(host, port)
    token = new_token()
    private = tempfile.mkdtemp(prefix="cpsolve-app-")  # 0700: the redirect file is the user's alone

    def ready(address: str) -> None:
        say(f"cpsolve app: serving {folder.root} at {address}")
        say("Ctrl-C stops the server; runs going on are stopped as Ctrl-C stops a command (resume them later)")
        if open_browser:
            _open_browser(address, private)

    try:
        serve(folder, start, sock, token, ready)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _open_browser(address: str, private: str) -> None:
    import webbrowser

    page = Path(private) / "open.html"
    target = html.escape(address, quote=True)
    page.write_text(f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={target}">'
                    f'<p><a href="{target}">cpsolve app</a></p>\n', encoding="utf-8")
    page.chmod(0o600)
    with contextlib.suppress(Exception):  # no browser here: the printed address is enough
        webbrowser.open(page.as_uri())
    sys.stdout.flush()
