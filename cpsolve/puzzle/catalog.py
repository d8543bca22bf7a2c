"""Built-in models and the one entry point from "a name or a path" to a validated puzzle."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import CpsolveError
from .loader import parse_puzzle_text, read_text
from .model import Puzzle, to_puzzle


def models_dir() -> Traversable:
    """The built-in puzzle files, shipped inside the package (`cpsolve/models/*.yaml`)."""
    return files("cpsolve") / "models"


def builtin_names() -> list[str]:
    return sorted(p.name.removesuffix(".yaml") for p in models_dir().iterdir() if p.name.endswith(".yaml"))


def resolve(model: str) -> Path | Traversable:
    """A built-in model name, or a path to a puzzle file."""
    path = Path(model)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise CpsolveError("no such puzzle file", where=model)
        return path
    builtin = models_dir() / f"{model}.yaml"
    if builtin.is_file():
        return builtin
    raise CpsolveError(
        f"unknown model {model!r}: not a file, and not a built-in model ({', '.join(builtin_names())})"
    )


@cache
def load(model: str) -> Puzzle:
    """Read and validate a puzzle (a built-in name or a file path); errors name the file."""
    source = resolve(model)
    where = str(source) if isinstance(source, Path) else model
    text = read_text(source) if isinstance(source, Path) else source.read_text(encoding="utf-8")
    spec = parse_puzzle_text(text, where)
    try:
        return to_puzzle(spec, origin=where)
    except CpsolveError as exc:
        raise exc.located(where) from None
