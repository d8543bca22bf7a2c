"""The `cpsolve` program (`python -m cpsolve`; the `cpsolve` command is bin/cpsolve, which calls `run`).

Stop signals are answered first, before anything else is imported: the package does it on its first
lines when it is the program (cpsolve/__init__.py), the command's script before it imports the package.
Importing the command line (typer, and the stages below it) takes a tenth of a second, and a Ctrl-C in
it printed Python's traceback (6 runs of 30 of `cpsolve list` stopped in their first 20 ms). Until
`main()` installs the run's own handlers, a stop signal just ends the process with the usual status
(130, 143, 129): there is nothing to tidy yet. Importing `cpsolve.cli` itself changes no signal
handler, so a program that imports it for its own ends keeps its own.
"""


def run() -> None:
    from .cli import main

    main()


if __name__ == "__main__":
    run()
