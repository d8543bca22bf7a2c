"""cpsolve: solve, count and compare solver backends on cubish assembly puzzles."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("cpsolve")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0+source"
