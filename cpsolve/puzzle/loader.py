"""Reading puzzle files: YAML (safe loader, duplicate keys refused) validated into `PuzzleFile`.

This is the only module that touches puzzle files on disk; it turns every way a file can be wrong
into a `CpsolveError` naming the file, the field and the problem.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from ..errors import CpsolveError, unreadable
from .schema import PuzzleFile


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML keeps the last of two equal keys silently; a puzzle with two pieces named X is an error."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                mark = key_node.start_mark
                raise CpsolveError(f"duplicate key {key!r} (line {mark.line + 1})")
            seen.add(key)
        return super().construct_mapping(node, deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _UniqueKeyLoader.construct_mapping
)


def _field_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).startswith(("function-", "tuple[", "list[")):
            out += f".{part}" if out else str(part)
    return out


def _first_error(exc: ValidationError) -> CpsolveError:
    err = exc.errors(include_url=False)[0]
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        message = "unknown field"
    elif err["type"] == "missing":
        message = "required field is missing"
    extra = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    return CpsolveError(message + extra, field=_field_path(err["loc"]) or None)


def parse_puzzle_text(text: str, where: str) -> PuzzleFile:
    """Validate YAML text; `where` names its origin in error messages."""
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except CpsolveError as exc:
        raise exc.located(where) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CpsolveError(f"not valid YAML{at}: {problem}", where=where) from None
    if not isinstance(data, dict):
        raise CpsolveError("a puzzle file must be a YAML mapping (name:, source:, container:, ...)", where=where)
    try:
        return PuzzleFile.model_validate(data)
    except ValidationError as exc:
        raise _first_error(exc).located(where) from None


def read_text(path: Path) -> str:
    """A user's text file (puzzle, CNF, solver output), or the one-line error naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable(path, exc) from None


def read_puzzle_file(path: Path) -> PuzzleFile:
    return parse_puzzle_text(read_text(path), str(path))
