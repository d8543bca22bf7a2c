"""The `cpsolve` program (`python -m cpsolve`, and the `cpsolve` command, whose entry point is `run`).

Stop signals are answered first, before anything else is imported: importing the command line
(typer, and the stages below it) takes a tenth of a second, and a Ctrl-C in it printed Python's
traceback (6 runs of 30 of `cpsolve list` stopped in their first 20 ms). Until `main()` installs the
run's own handlers, a stop signal just ends the process with the usual status (130, 143, 129): there
is nothing to tidy yet. Importing `cpsolve.cli` itself changes no signal handler, so a program that
imports it for its own ends keeps its own.
"""

import os
import signal


def _quiet_exit(signum: int, _frame: object) -> None:
    """Ctrl-C, SIGTERM or SIGHUP while cpsolve is still starting: nothing to tidy, no traceback."""
    os._exit(128 + signum)


def run() -> None:
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, _quiet_exit)
    from .cli import main

    main()


if __name__ == "__main__":
    run()
