"""Names from files: what a name may hold, and the names cpsolve makes from them (file names, imports).

A name (the puzzle's, a piece's, a constraint colour's) is shown on terminals and written into SVG,
HTML, DIMACS and XCC comments, BurrTools XML and YAML. The one thing none of them can take is a
character that is not text one sees: a newline adds a line to a CNF, an escape sequence rewrites
the terminal, NUL ends a C string and is not XML, a bidirectional override reorders what is shown
after it. So those are refused when the file is read (`check_names`), in one line naming the field:
control characters (Unicode category Cc: newline, tab, ESC, NUL, DEL, the C1 controls), invisible
formatting characters (Cf: right-to-left marks and overrides, zero-width spaces), line and
paragraph separators (Zl, Zp), lone surrogates (Cs) and unassigned code points (Cn). A description
or source is prose and may hold newlines and tabs, nothing else of these. Everything visible stays
the user's (quotes, `<`, `&`, spaces of any script); each writer escapes what its format needs.
`#` is refused in piece names because it marks copies (`T#2`).

Names that cpsolve makes from a name follow here too, so that each is made one way: a file name
(`safe_stem`, distinct in a folder with `unique_stems`) and a BurrTools shape's name mapped to one
cpsolve accepts (`import_name`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..errors import CpsolveError

if TYPE_CHECKING:
    from .schema import PuzzleFile

UNSEEN = {"Cc": "a control character", "Cf": "an invisible formatting character", "Zl": "a line separator",
          "Zp": "a paragraph separator", "Cs": "a lone surrogate", "Cn": "an unassigned code point"}
"""The Unicode categories a name may not hold, and what to call them in an error."""

PROSE = "\n\t"
"""What a description or source may hold of those: it is text of several lines."""


def unseen(ch: str) -> str | None:
    """What kind of unseen character `ch` is (see UNSEEN), or None for a visible character or a space."""
    return UNSEEN.get(unicodedata.category(ch))


def escaped(text: str) -> str:
    """`text` with every unseen character written as its Python escape (`\\x1b`, `\\n`): one line that
    shows as text (`output.text.printable` is this, for what reaches a terminal)."""
    return "".join(repr(ch)[1:-1] if unseen(ch) else ch for ch in text)


def _problem(text: str, allowed: str = "") -> str | None:
    for ch in text:
        if ch not in allowed and (kind := unseen(ch)) is not None:
            return f"holds U+{ord(ch):04X}, {kind}"
    return None


def check_text(text: str, what: str, field: str, prose: bool = False) -> None:
    """Refuse a name (or with `prose`, a description) holding a character that is not seen as text."""
    why = _problem(text, PROSE if prose else "")
    if why is not None:
        allowed = "newlines and tabs, no other" if prose else "no"
        raise CpsolveError(f"{what} {why}: it may hold {allowed} control or formatting characters", field=field)


def check_names(spec: PuzzleFile) -> None:
    """Every name and text of a puzzle file, by the rules above; the first problem, naming its field."""
    check_puzzle_names(spec.name, spec.description, spec.source,
                       {name: list(piece.cell_colors or {}) for name, piece in (spec.pieces or {}).items()},
                       list(spec.container.cell_colors or {}),
                       [(colour, target) for colour, targets in (spec.color_rules or {}).items()
                        for target in (colour, *targets)],
                       None if spec.reference is None else spec.reference.source)


def check_puzzle_names(name: str, description: str, source: str, pieces: Mapping[str, Iterable[str]],
                       container_colors: Iterable[str], color_rules: Iterable[tuple[str, str]],
                       reference_source: str | None = None) -> None:
    """`check_names` on a puzzle's parts: its name and texts, each piece's name and colour names
    (`pieces`), the container's colour names, and the colour rules' pairs (each colour checked under
    the rule of its first colour). A BurrTools file is checked through this without a `PuzzleFile`."""
    check_text(name, "the name", "name")
    check_text(description, "the description", "description", prose=True)
    check_text(source, "the source", "source", prose=True)
    if reference_source is not None:
        check_text(reference_source, "the source", "reference.source", prose=True)
    for piece, colours in pieces.items():
        if not piece.strip():
            raise CpsolveError("a piece name cannot be blank", field="pieces")
        check_text(piece, f"piece name {piece!r}", f"pieces.{piece}")
        if "#" in piece:
            raise CpsolveError(f"piece name {piece!r} contains '#', which marks copies (NAME#1, NAME#2, ...)",
                               field=f"pieces.{piece}")
        for colour in colours:
            check_text(colour, f"colour name {colour!r}", f"pieces.{piece}.cell_colors")
    for colour in container_colors:
        check_text(colour, f"colour name {colour!r}", "container.cell_colors")
    for rule, each in color_rules:
        check_text(each, f"colour name {each!r}", f"color_rules.{rule}")


# ------------------------------------------------------------------------------------------ names cpsolve makes


STEM_LENGTH = 100
"""The longest file stem made from a name (file systems allow 255 bytes; suffixes follow the stem)."""


def safe_stem(name: str, fallback: str = "puzzle") -> str:
    """A file name made from a name that comes from a file, so untrusted: `name: ../x` or `/etc/x` must
    not write outside the folder it is meant for. Every character but ASCII letters, digits, `-`, `_`
    and `.` becomes `_`; leading dots and dashes go (no hidden file, no `..`, no name a command would
    read as an option), and at most STEM_LENGTH are kept."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".-")[:STEM_LENGTH] or fallback


def unique_stems(stems: Iterable[str]) -> list[str]:
    """The stems made distinct (`distinct`), compared without case, so that the files of one run never
    overwrite one another, on a case-insensitive file system too."""
    return distinct(stems, str.casefold)


def import_name(text: str, piece: bool = False) -> str:
    """A name from another program's file (a BurrTools shape or problem) as a name cpsolve accepts:
    a line break or other unseen space becomes a space, any other unseen character becomes `_`, as
    does `#` in a `piece` name (it marks copies), and the ends are trimmed. A blank result is the
    caller's to name."""
    out = []
    for ch in text:
        if unseen(ch) is not None or (piece and ch == "#"):
            out.append(" " if ch.isspace() else "_")
        else:
            out.append(ch)
    return "".join(out).strip()


def distinct(names: Iterable[str], key: Callable[[str], str] = str) -> list[str]:
    """The names made distinct in order: a repeated name becomes `NAME-2`, `NAME-3`, ... (the first of
    these not already taken; `key` says when two names are the same), so every piece keeps its own."""
    taken: set[str] = set()
    out = []
    for base in names:
        name, k = base, 2
        while key(name) in taken:
            name, k = f"{base}-{k}", k + 1
        taken.add(key(name))
        out.append(name)
    return out
