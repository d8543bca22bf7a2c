"""cpsolve: solve, count and compare solver backends on cubish assembly puzzles."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, looked up only when asked for: importing the package stays instant, so the
    command line installs its signal handlers (no traceback on an early Ctrl-C) within milliseconds."""
    if name != "__version__":
        raise AttributeError(f"module 'cpsolve' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cpsolve")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.1.0+source"
