"""The `cpsolve` command line: the only place that prints, reads options and picks exit codes.

One typer `app` (in `common`, with `main()`, signals, errors and the helpers the commands share);
each command module registers its commands on it when imported: `run` (list, schema, enumerate,
solve, show, backends, compare, report), `files` (import, export, decode), `gauge` (estimate,
journal), `pictures` (draw, view, disassemble), `design` (the `design` sub-commands), `explain`, `approx`
(count --approx, sample) and `workbench` (app: starts the workbench, cpsolve/app/).

`cpsolve --help` lists the commands in the order they register, so the modules are imported below
in that order, which is why the import block is kept out of isort's sorting.
"""

from __future__ import annotations

from .common import STOP_SIGNALS, app, main

# isort: off
from . import run, files, gauge, pictures, design, explain, approx, workbench  # noqa: F401 - imported to register their commands, in this order
# isort: on

__all__ = ["STOP_SIGNALS", "app", "main"]
