"""Puzzle files written by cpsolve (`cpsolve import`, the `design` commands): one YAML writer for all.

A file cpsolve writes must load again whatever the names in it hold, so it is written by PyYAML's
safe dumper from plain data rather than assembled as text: quotes, backslashes, `#`, a name that
YAML would read as a number or a boolean (`1`, `yes`) or a key longer than YAML's 1,024 characters
for a plain key (written as `? KEY`) all come back as they went. Drawings are written one layer per
line with their rows quoted alike, and cell lists on one line, so the file stays readable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml


class Row(str):
    """A drawing row: written in double quotes so that every row of a layer lines up in the YAML."""


class Line(list):  # type: ignore[type-arg]
    """A list written on one line (`[a, b, ...]`): a drawing layer, a list of cells."""


class LineMap(dict):  # type: ignore[type-arg]
    """A mapping written on one line (`{cells: [...], count: 2}`): a piece."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(Row, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'))
_Dumper.add_representer(Line, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))
_Dumper.add_representer(LineMap, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v, flow_style=True))


def puzzle_text(data: Mapping[str, Any]) -> str:
    """A puzzle file's data (the schema's keys, in the order given) as YAML text."""
    return yaml.dump(dict(data), Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=200,
                     allow_unicode=True)


def drawing(layers: Iterable[Iterable[str]]) -> list[Line]:
    """A drawing (z-layers of rows) as it is written: one layer per line, rows quoted alike."""
    return [Line(Row(row) for row in layer) for layer in layers]
