"""Built-in models and the one entry point from "a name or a path" to a validated puzzle."""

from __future__ import annotations

import warnings
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from ..errors import CpsolveError, CpsolveNotice
from .burrtools import read_xmpuzzle
from .loader import parse_puzzle_text, read_puzzle_text
from .model import Puzzle, to_puzzle


def models_dir() -> Traversable:
    """The built-in puzzle files, shipped inside the package (`cpsolve/models/*.yaml`)."""
    return files("cpsolve") / "models"


def builtin_names() -> list[str]:
    return sorted(p.name.removesuffix(".yaml") for p in models_dir().iterdir() if p.name.endswith(".yaml"))


def resolve(model: str) -> Path | Traversable:
    """A built-in model name, or a path to a puzzle file.

    A bare name that is a built-in model means the built-in model, even where a file or folder of
    that name exists here (a notice says so, and that `./NAME` means the local one): the same command
    should not change meaning with the folder it is run in.
    """
    path = Path(model)
    builtin = models_dir() / f"{model}.yaml"
    if model == path.name and builtin.is_file():
        if path.exists():
            kind = "folder" if path.is_dir() else "file"
            warnings.warn(CpsolveNotice(f"{model!r} is a built-in model and also a {kind} here: using the built-in "
                                        f"model (write ./{model} for the {kind})"), stacklevel=2)
        return builtin
    if path.is_dir():
        raise CpsolveError("is a directory, not a puzzle file", where=model)
    if path.suffix.lower() in (".yaml", ".yml", BURRTOOLS_SUFFIX) or path.exists():
        if not path.is_file():
            raise CpsolveError("no such puzzle file", where=model)
        return path
    raise CpsolveError(
        f"unknown model {model!r}: not a file, and not a built-in model ({', '.join(builtin_names())})"
    )


BURRTOOLS_SUFFIX = ".xmpuzzle"


def is_burrtools(path: Path) -> bool:
    """A BurrTools file: named `.xmpuzzle`, or gzip / XML content (YAML puzzle files are neither)."""
    if path.suffix.lower() == BURRTOOLS_SUFFIX:
        return True
    try:
        with path.open("rb") as fh:
            head = fh.read(5)
    except OSError:
        return False
    return head[:2] == b"\x1f\x8b" or head == b"<?xml"


def read(model: str, strict: bool = True) -> Puzzle:
    """Read and validate a puzzle (a built-in name, a YAML file, or a BurrTools `.xmpuzzle` file, whose
    first problem is taken), from the file every time; errors name the file. `strict`: as `model.to_puzzle`."""
    source = resolve(model)
    if isinstance(source, Path) and is_burrtools(source):
        return read_xmpuzzle(source, strict=strict)
    where = str(source) if isinstance(source, Path) else model
    text = read_puzzle_text(source) if isinstance(source, Path) else source.read_text(encoding="utf-8")
    spec = parse_puzzle_text(text, where)
    try:
        return to_puzzle(spec, origin=where, strict=strict)
    except CpsolveError as exc:
        raise exc.located(where) from None


load = cache(read)
"""`read`, each puzzle read once per process (the stages below the API load the same models again and again:
a report, a design search)."""
