"""Option values without pydantic: typer (0.20 and later) converts every parameter of the command being
run through a pydantic `TypeAdapter`, built when the value is read, so that every `cpsolve` command
imported pydantic and built a dozen schemas before doing its work (0.1 s of CPU, a third of
`cpsolve disassemble PelikanBurr.xmpuzzle`; benchmarks/startup.py).

`install()` puts a converter in front of typer's: a value that is plainly valid for the annotations
cpsolve uses (a whole number such as `12` or `-3` within the option's min and max, a decimal number,
a string, a path, a list of strings, a flag's True or False, a default given in Python) is converted
here, to what typer's own converter gives for it; anything else (`abc`, `1e3`, ` 7`, a number out
of range, another type) goes to typer's converter, which pydantic then loads, so every error
message stays typer's. A typer without this machinery (the click-based releases) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_WHOLE = re.compile(r"-?[0-9]{1,18}")
"""Whole numbers converted here: plain ASCII digits, at most 18 of them (anything longer or decorated,
such as `+3`, `1_000` or ` 3`, is left to typer)."""
_DECIMAL = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")


def _number(value: Any, kind: type, low: float | None, high: float | None) -> Any:
    """`value` as `kind` (int or float) when it is plainly one and within [low, high], else None."""
    if isinstance(value, str):
        if not (_WHOLE if kind is int else _DECIMAL).fullmatch(value):
            return None
        number: Any = kind(value)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    elif kind is int:
        if not isinstance(value, int):
            return None
        number = value
    else:
        number = float(value)
    if (low is not None and number < low) or (high is not None and number > high):
        return None
    return number


def install() -> None:
    """Convert plain option values without pydantic (see the module's docstring)."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam, TypeDescriptor
        from typer._param_types import coerce_cli_path
    except ImportError:  # a typer without pydantic conversion: nothing to do
        return
    build: Callable[[TypeDescriptor], RuntimeParam] | None = getattr(core, "build_runtime_param", None)
    if build is None or getattr(build, "_cpsolve", False):
        return
    typers = build
    convertible = (bool, int, float, str, Path)

    class Plain(RuntimeParam):
        """An option whose plain values are converted here; typer's converter is built for the rest."""

        fallback: RuntimeParam | None = None

        def _typer(self, descriptor: TypeDescriptor) -> RuntimeParam:
            if self.fallback is None:
                object.__setattr__(self, "fallback", typers(descriptor))
            assert self.fallback is not None
            return self.fallback

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = self._plain(value, param, ctx)
            if plain is not None:
                return plain
            return self._typer(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)

        def _plain(self, value: Any, param: Any, ctx: Any) -> Any:
            annotation = self.annotation
            if annotation is list[str]:
                if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                    return list(value)
                return None
            return self._leaf(annotation, value, param, ctx)

        def _leaf(self, annotation: Any, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            if annotation in (str, bool):
                return value if isinstance(value, annotation) else None
            if annotation in (int, float):
                return _number(value, annotation, info.min, info.max)
            if annotation is Path and info.path_type is None:
                if isinstance(value, str) and value and "\0" not in value:
                    value = Path(value)
                if isinstance(value, Path):
                    return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
            return None

    def plain_first(descriptor: TypeDescriptor) -> RuntimeParam:
        annotation = descriptor.annotation
        info = descriptor.parameter_info
        simple = annotation in convertible or annotation is list[str]
        if (descriptor.file_annotation is not None or not simple or info.parser is not None
                or getattr(info, "clamp", False) or descriptor.is_choice):
            return typers(descriptor)
        return Plain(parameter_info=info, annotation=annotation)

    plain_first._cpsolve = True  # type: ignore[attr-defined]
    core.build_runtime_param = plain_first  # type: ignore[attr-defined]
