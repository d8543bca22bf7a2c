"""Built-in models and the one entry point from "a name or a path" to a validated problem."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .errors import CpsolveError
from .loader import read_puzzle_file
from .model import PuzzleFile, to_puzzle
from .placements import ExactCoverProblem, build_problem


def models_dir() -> Path:
    """Installed wheels carry the models inside the package; a source checkout has them at the top."""
    packaged = Path(__file__).parent / "models"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "models"


def builtin_names() -> list[str]:
    return sorted(p.stem for p in models_dir().glob("*.yaml"))


def resolve(model: str) -> Path:
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


@dataclass(frozen=True)
class Loaded:
    spec: PuzzleFile
    problem: ExactCoverProblem
    path: Path


@cache
def load(model: str) -> Loaded:
    """Read, validate and compile a puzzle into its exact-cover problem; errors name the file."""
    path = resolve(model)
    spec = read_puzzle_file(path)
    try:
        if spec.kind == "chain":
            from .chain import build_chain_problem

            problem = build_chain_problem(spec)
        else:
            problem = build_problem(to_puzzle(spec))
    except CpsolveError as exc:
        raise exc.located(str(path)) from None
    return Loaded(spec, problem, path)
