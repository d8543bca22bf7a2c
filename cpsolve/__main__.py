"""The `cpsolve` program (`python -m cpsolve`; the `cpsolve` command is bin/cpsolve, which calls `run`).

Stop signals are answered first, before anything else is imported: the package does it on its first
lines when it is the program (cpsolve/__init__.py), the command's script before it imports the package.
Importing the command line (typer, and the stages below it) takes a tenth of a second, and a Ctrl-C in
it printed Python's traceback (6 runs of 30 of `cpsolve list` stopped in their first 20 ms). Until
`main()` installs the run's own handlers, a stop signal just ends the process with the usual status
(130, 143, 129): there is nothing to tidy yet. Importing `cpsolve.cli` itself changes no signal
handler, so a program that imports it for its own ends keeps its own.

Once the command has ended (its answer out, its exit status set) a stop signal is no longer the run's:
the process is only shutting down, which can take a second (joining a Dask cluster's threads). A
KeyboardInterrupt raised there printed "Exception ignored in: <module 'threading'>" and a traceback
after a finished run, so the first such signal is noted and shutdown goes on quietly, the command's
status kept; a second one ends the process at once, should shutting down hang.
"""

import os

_late: list[int] = []


def _late_stop(signum: int, _frame: object) -> None:
    """A stop signal after the command has ended (see above)."""
    if _late:
        os._exit(128 + signum)
    _late.append(signum)


def run() -> None:
    from .cli import main

    try:
        main()
    finally:
        import signal

        for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(stop, _late_stop)


if __name__ == "__main__":
    run()
