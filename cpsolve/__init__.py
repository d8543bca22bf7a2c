"""cpsolve: solve, count and compare solver backends on cubish assembly puzzles.

The public API (`__all__`, documented in docs/api.md) lives in `cpsolve.api`; its names are looked
up there on first use, so that `import cpsolve` stays instant: the program answers Ctrl-C right after
it (`__main__.py`: no traceback on an early Ctrl-C), and pydantic, numpy and OR-Tools load only when
a function needs them.
"""

# No `from __future__ import annotations` here: it imports the `__future__` module, Python code run before
# the lines below could answer a Ctrl-C (the one annotation that needs it is written as a string).
import sys as _sys

# When this process runs cpsolve as its program, a stop signal (Ctrl-C, SIGTERM, SIGHUP) ends it at once,
# without a traceback, from here on: the console script (bin/cpsolve, which does the same before it imports
# anything; argv[0] names it), or `python -m cpsolve` (argv[0] is "-m" while the package is imported, and
# the interpreter's own argv names it). No function is called before the handlers are in place: a call is
# a moment where a pending Ctrl-C is raised. `cli.main()` then installs the run's own handlers. Imported by
# any other program, cpsolve changes no handler. `_signal` is the interpreter's own module, loaded already
# (`signal` would take a millisecond to import, one more moment for a Ctrl-C to print a traceback).
_program = (_sys.argv or [""])[0]
if _program == "-m" and "cpsolve" in _sys.orig_argv or _program == "cpsolve" or _program[-8:] == "/cpsolve":
    import _signal  # type: ignore[import-not-found]  # the interpreter's own; no stub
    import os as _os

    def _quiet(signum: int, _frame: object) -> None:
        _os._exit(128 + signum)

    _signal.signal(_signal.SIGINT, _quiet)
    _signal.signal(_signal.SIGTERM, _quiet)
    _signal.signal(_signal.SIGHUP, _quiet)
del _program


TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported when run: `python -m cpsolve` runs this module before it answers Ctrl-C
    from typing import Any

__all__ = [
    "ApproxCounts",
    "BackendInfo",
    "Comparison",
    "Counts",
    "CpsolveError",
    "CpsolveNotice",
    "Decoded",
    "Enumeration",
    "Estimate",
    "Explanation",
    "Imported",
    "Puzzle",
    "Report",
    "Result",
    "Solution",
    "Source",
    "Suggestion",
    "UniqueDesign",
    "__version__",
    "assembly_stl",
    "backends",
    "compare",
    "count",
    "count_approx",
    "decode",
    "design_pieces",
    "design_snakes",
    "design_unique",
    "disassemble",
    "draw",
    "enumerate",
    "estimate",
    "explain",
    "export",
    "grid_solids",
    "import_xmpuzzle",
    "lattice",
    "load",
    "models",
    "page",
    "printable",
    "puzzle_from_dict",
    "puzzle_from_xmpuzzle",
    "puzzle_from_yaml",
    "puzzle_yaml",
    "read_journal",
    "read_solutions",
    "report",
    "run",
    "sample",
    "schema",
    "shape_libraries",
    "shapes",
    "solve",
    "source",
    "stored_solutions",
    "view_data",
]


def __getattr__(name: str) -> "Any":
    """`__version__` and the API's names, looked up only when asked for.

    The API module is found by name (`importlib`), not imported: this package module is stage 0,
    which every stage may import (`from ... import __version__`), and nothing below the API ever
    asks it for an API name; only a caller of `cpsolve.NAME` reaches stage 6 through it.
    """
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("cpsolve")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0.1.0+source"
    if name in __all__:
        from importlib import import_module

        value = getattr(import_module("cpsolve.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cpsolve' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
