"""The registry of solver backends, looked up by name (`--backend cpsat`, `--backend sat:glucose4`).

Backend modules are imported only when asked for, so that `cpsolve list` does not pay for
OR-Tools, and a missing optional dependency is reported by `supported()` rather than an ImportError.
"""

from __future__ import annotations

from importlib import import_module

from ...problem.placements import ExactCoverProblem
from .base import Backend, BackendUnavailable, OnSolution, SearchRun, SearchStats, Status

_REGISTRY: dict[str, str] = {
    "cpsat": "cpsolve.search.backends.cpsat:CpSatBackend",
    "dlx": "cpsolve.search.backends.dlx:DlxBackend",
    "python": "cpsolve.search.backends.template:PythonBackend",
    "sat": "cpsolve.search.backends.sat:SatBackend",
}

__all__ = [
    "Backend",
    "BackendUnavailable",
    "OnSolution",
    "SearchRun",
    "SearchStats",
    "Status",
    "auto_choice",
    "backend_class",
    "for_problem",
    "get_backend",
    "names",
]

AUTO = "auto"
"""The default: the fastest backend that can express the problem. dlx for packings (every feature:
optional cells, ranges, colours, groups, any container up to the cell limit); for chains, sat
(snake-27: 0.5 s against cpsat's 1.4 s, `cpsolve compare snake-27 --backends sat,cpsat`)."""
AUTO_ORDER = ("dlx", "sat", "cpsat")
"""`auto` takes the first of these that is installed and can solve the problem."""


def names() -> list[str]:
    return list(_REGISTRY)


def backend_class(name: str) -> type[Backend]:
    if name not in _REGISTRY:
        known = ", ".join([AUTO, *_REGISTRY])
        raise BackendUnavailable(f"unknown backend {name!r} (known: {known})")
    module, cls = _REGISTRY[name].split(":")
    found: type[Backend] = getattr(import_module(module), cls)
    return found


def get_backend(spec: str) -> Backend:
    """A backend instance from `name` or `name:options`, checked to be usable here."""
    name, colon, options = spec.partition(":")
    cls = backend_class(name)
    if colon and not cls.takes_options:
        raise BackendUnavailable(f"backend {name!r} takes no options (got {spec!r})")
    if colon and not options:
        raise BackendUnavailable(f"{spec!r}: give the option after the colon, or leave the colon out")
    if not cls.supported():
        raise BackendUnavailable(f"backend {name!r} is not available: {cls.install_hint}")
    return cls(options or None)


def for_problem(spec: str, problem: ExactCoverProblem) -> Backend:
    """The backend `spec` names (or `auto`'s pick), checked to be able to solve `problem`. When `auto`
    takes another backend than dlx, the backend's `reason` says why."""
    reason = None
    if spec == AUTO:
        spec, reason = auto_choice(problem)
    backend = get_backend(spec)
    if (why := backend.unsupported_reason(problem)) is not None:
        able = [n for n in names() if n != backend.name and backend_class(n).supported()
                and backend_class(n)().unsupported_reason(problem) is None]
        raise BackendUnavailable(why + (f" (use {' or '.join(able)})" if able else ""))
    backend.reason = reason
    return backend


def auto_choice(problem: ExactCoverProblem) -> tuple[str, str | None]:
    """`auto`'s backend for `problem`: the first of dlx, sat, cpsat (fastest first) that is installed
    and can solve it, with why the ones before it were passed over (None when it is the first)."""
    passed: list[str] = []
    for name in AUTO_ORDER:
        cls = backend_class(name)
        why = cls().unsupported_reason(problem) if cls.supported() else f"{name} is not available: {cls.install_hint}"
        if why is None:
            return name, "; ".join(passed) or None
        passed.append(why)
    return "cpsat", "; ".join(passed)  # get_backend then says what to install
