"""What every part of the API shares: path arguments, the timeout exit code, cells as frozen tuples, the
notebook's small HTML tables, and `printable`, through which every name from a file reaches a terminal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..output.text import markup
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle

if TYPE_CHECKING:
    from ..output.files import LineFile


PathLike = str | os.PathLike[str]


TIMEOUT_EXIT = 3
"""The `exit_code` of the error a timeout raises (`solve`, `count`): the command line's exit status for a run
its --timeout cut short, distinct from 1 (a failure) and 2 (bad input)."""


def _grid(puzzle: Puzzle | None) -> str:
    """The grid a solution is drawn on: its puzzle's, cubes when the puzzle is unknown."""
    return puzzle.grid if puzzle is not None else "cubes"


def _frozen(pieces: Mapping[str, Iterable[Sequence[int]]]) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    return tuple((k, tuple((int(c[0]), int(c[1]), int(c[2])) for c in cells)) for k, cells in pieces.items())


def printable(text: str) -> str:
    """`text` (a name, a key, a line from a file) as a terminal should show it: every character that is
    not seen as text (line breaks, ESC, NUL, right-to-left overrides, ...) written as its Python escape,
    so that it stays on its line and cannot send the terminal a command. What the command line prints
    from files goes through it.

    >>> print(cpsolve.printable("A\\x1b[2Jb"))
    A\\x1b[2Jb
    """
    from ..output.text import printable as shown

    return shown(text)


def shell_command(words: Sequence[str]) -> str:
    """A command as the command line shows it to be typed again: each word quoted for a POSIX shell, words
    with characters a terminal does not show as `$'...'` escapes (`output.text.shell_command`)."""
    from ..output.text import shell_command as quoted

    return quoted(words)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    head = "".join(f"<th>{markup(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{markup(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _iframe(document: str, height: int) -> str:
    """A whole HTML page inside notebook output: an iframe, so that its script runs and its style
    and element ids stay its own (two solutions in one notebook would otherwise share them)."""
    return (f'<iframe srcdoc="{markup(document)}" style="width:100%;height:{height}px;border:0" '
            'sandbox="allow-scripts"></iframe>')


Inputs = Sequence[tuple[PathLike, str]]
"""A command's input files, each with what it is ("the puzzle file"): what it must not write over."""


def check_output(path: PathLike, inputs: Inputs = (), option: str = "--out") -> None:
    """Refuse, before any work, an output that is one of `inputs` (also through a link), an SQLite database
    (a journal) or its side files, a folder, or a file in a missing folder: one line, exit code 2. Every
    command that writes a file checks it here (`output.files.check_destination`)."""
    from pathlib import Path

    from ..output.files import check_destination

    check_destination(Path(path), [(Path(p), what) for p, what in inputs], option)


def level_key(text: str) -> tuple[int, ...]:
    """A level's text (`5`, `1.2`, with turns `3R1.2`) as the tuple levels compare by (turns counted as
    moves): `analysis.trees.parse_level`, for the front ends; ValueError when malformed."""
    from ..analysis.trees import parse_level

    return parse_level(text)


def line_output(path: PathLike, inputs: Inputs = (), option: str = "--out") -> LineFile:
    """`check_output`, then a file of lines written as they come, each flushed (`sample -o`, `design`'s JSON
    lines): opened, and so emptied, only when the first line comes, so that a run stopped or failed before
    it had anything to write leaves the file as it was; `close()` it at the end."""
    from pathlib import Path

    from ..output.files import LineFile

    check_output(path, inputs, option)
    return LineFile(Path(path))


def write_output(path: PathLike, data: bytes | str, inputs: Inputs = (), option: str = "--out") -> None:
    """`check_output`, then replace the file with `data` once it is written whole (a temporary file made
    exclusively beside it, renamed over it; a pipe or a device is written in place). A failed write is
    one line, exit code 1, and leaves the old file as it was."""
    from pathlib import Path

    from ..output.files import write_file

    write_file(Path(path), data, [(Path(p), what) for p, what in inputs], option)
