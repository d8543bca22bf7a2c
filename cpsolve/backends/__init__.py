"""The registry of solver backends, looked up by name (`--backend cpsat`, `--backend sat:glucose4`).

Backend modules are imported only when asked for, so that `cpsolve list` does not pay for
OR-Tools, and a missing optional dependency is reported by `supported()` rather than an ImportError.
"""

from __future__ import annotations

from importlib import import_module

from .base import Backend, BackendUnavailable, OnSolution, SearchStats, Status

_REGISTRY: dict[str, str] = {
    "cpsat": "cpsolve.backends.cpsat:CpSatBackend",
}

__all__ = ["Backend", "BackendUnavailable", "OnSolution", "SearchStats", "Status", "backend_class", "get_backend", "names"]


def names() -> list[str]:
    return list(_REGISTRY)


def backend_class(name: str) -> type[Backend]:
    if name not in _REGISTRY:
        raise BackendUnavailable(f"unknown backend {name!r} (known: {', '.join(_REGISTRY)})", field="--backend")
    module, cls = _REGISTRY[name].split(":")
    return getattr(import_module(module), cls)


def get_backend(spec: str) -> Backend:
    """A backend instance from `name` or `name:options`, checked to be usable here."""
    name, _, options = spec.partition(":")
    cls = backend_class(name)
    if not cls.supported():
        raise BackendUnavailable(
            f"backend {name!r} is not available: its dependency is not installed", field="--backend"
        )
    return cls(options or None)
