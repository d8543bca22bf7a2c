"""A griffe extension for the API reference (mkdocs.yml loads it): the docstrings' doctest examples
(`>>>` lines and the output after them, up to a blank line) become fenced `pycon` code blocks, and a
line of prose that starts with `>` or `#` is kept as text.

The docstrings are plain text, written for `doctest` (the test suite runs the examples) and for
`help()`: Markdown would read `>>>` as three nested quotes, `['a', 'b']` in an output as a link, and
a wrapped line that happens to start with "> 1" (`workers > 1`) as a quote. They are fixed here,
where the site is built, rather than in the code."""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """The text with each run of doctest lines (from a `>>>` line to the next blank line) fenced."""
    out: list[str] = []
    block: list[str] = []
    indent = ""
    for line in [*text.splitlines(), ""]:
        if block and line.strip():
            block.append(line[len(indent):] if line.startswith(indent) else line.strip())
            continue
        if block:
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            block = []
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = [line[len(indent):]]
        elif line.lstrip().startswith((">", "#")):
            at = len(line) - len(line.lstrip())
            out.append(f"{line[:at]}\\{line[at:]}")
        else:
            out.append(line)
    return "\n".join(out[:-1] if out and out[-1] == "" and not text.endswith("\n") else out)


class DoctestFences(griffe.Extension):
    """Fences the doctest examples of every object's docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
