"""Text pictures of solutions (z-layers side by side, one symbol per placed piece, and a legend), and
the two ways untrusted text is written as text: for a terminal (`printable`) and into markup (`markup`).

Layers use the file format's convention (layer z = 0 first, row y = 0 at the top, x to the right),
so a drawn solution reads the same way a puzzle file is written.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence

from ..limits import check_drawing
from ..puzzle.geometry import Cell
from ..puzzle.names import escaped, unseen


def printable(text: str) -> str:
    """`text` as a terminal should show it: every character that is not seen as text (the characters
    a name may not hold: newlines, ESC, NUL, C1 controls, right-to-left overrides, ...) written as its
    Python escape (`\\x1b`, `\\n`, `\\u202e`), so that a name, a key or a line from a file stays on
    its line and cannot send the terminal a command. A name the loader accepts is shown unchanged."""
    return escaped(text)


def shell_command(words: Sequence[str]) -> str:
    """The words as one command line for a POSIX shell, each quoted so that it stays one word and is shown as
    text: `shlex.quote`, or, for a word holding characters a terminal does not show (an --out name with an
    escape sequence in it), `$'...'` with each of them written as an escape (`\\x1b`, `\\u202e`), which bash,
    zsh, ksh and dash read back as the same word: the command shown is the command that runs."""
    return " ".join(_shell_word(w) for w in words)


def _shell_word(word: str) -> str:
    import shlex

    if not any(unseen(ch) for ch in word):
        return shlex.quote(word)
    out = []
    for ch in word:
        if ch in "\\'":
            out.append("\\" + ch)
        elif unseen(ch):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF
                       else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 does not allow at all, not even as a character reference."""


def markup(text: str) -> str:
    """`text` as an XML or HTML text node or double-quoted attribute value: `& < > " '` escaped, and
    the characters XML forbids (NUL, ESC, ...) replaced by U+FFFD, so the document still parses."""
    return html.escape(_NOT_XML.sub("\ufffd", text), quote=True)


SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def assign_symbols(labels: Sequence[str]) -> dict[str, str]:
    """One character per placement label: a one-letter piece name keeps its letter when it can.

    Labels of identical copies look like "T#2"; each copy gets its own symbol so that the copies
    can be told apart in the picture. Beyond 62 placements symbols repeat.
    """
    out: dict[str, str] = {}
    used: set[str] = set()
    for label in labels:
        base = label.split("#")[0]
        if len(base) == 1 and base in SYMBOLS and base not in used:
            out[label] = base
            used.add(base)
    free = (s for s in SYMBOLS if s not in used)
    for i, label in enumerate(lab for lab in labels if lab not in out):
        out[label] = next(free, SYMBOLS[i % len(SYMBOLS)])
    return out


def draw(placements: Mapping[str, Sequence[Cell]], holes: str = ".", symbols: Mapping[str, str] | None = None,
         lattice: str = "cubes") -> str:
    """The z-layers of a labelled filling, side by side, then a legend `symbol = piece`.

    A chain's labels are its cube numbers; they are drawn as numbers so the path can be followed.
    The picture is as large as the cells' bounding box, so that is checked first (`--max-drawing`):
    two cells far apart in a hand-edited solutions file would otherwise ask for gigabytes. `symbols`
    gives each label its character (one each; no legend): `explain` draws kinds of cells that way.
    On the sphere grid the positions that are no ball (x + y + z odd) are blanks, so a layer shows its
    balls' pattern; a prism row alternates up and down triangles as BurrTools' editor draws them.
    """
    check_drawing([c for cells in placements.values() for c in cells])
    given = symbols is not None
    numbered = not given and all(label.isascii() and label.isdigit() for label in placements)
    if symbols is None:
        symbols = {k: k for k in placements} if numbered else assign_symbols(list(placements))
    width = max(len(s) for s in symbols.values()) + (1 if numbered else 0)
    grid: dict[Cell, str] = {}
    for label, cells in placements.items():
        for c in cells:
            grid[tuple(c)] = symbols[label].rjust(width)  # type: ignore[index]
    lo = [min(c[i] for c in grid) for i in range(3)]
    hi = [max(c[i] for c in grid) for i in range(3)]
    layer_width = (hi[0] - lo[0] + 1) * width
    layers = range(lo[2], hi[2] + 1)
    lines = ["  ".join(f"z={z}".ljust(layer_width) for z in layers).rstrip()]
    for y in range(lo[1], hi[1] + 1):
        rows = ("".join(grid.get((x, y, z), (" " if lattice == "spheres" and (x + y + z) % 2 else holes).rjust(width))
                        for x in range(lo[0], hi[0] + 1)) for z in layers)
        lines.append("  ".join(rows))
    legend = [] if numbered or given else _legend(dict(symbols))
    return "\n".join(lines + ([""] + legend if legend else []))


def _legend(symbols: dict[str, str]) -> list[str]:
    """Group copies of one piece on a line: `a b c = T (3 copies)`; none when every symbol is its name."""
    if all(sym == label for label, sym in symbols.items()):
        return []
    by_piece: dict[str, list[str]] = {}
    for label, sym in symbols.items():
        by_piece.setdefault(label.split("#")[0], []).append(sym)
    lines = []
    for piece, syms in by_piece.items():
        copies = f" ({len(syms)} copies)" if len(syms) > 1 else ""
        piece = printable(piece)  # labels come from a solutions file, which is edited by hand as easily
        lines.append(f"{' '.join(syms)} = {piece}{copies}" if len(syms) <= 8 else f"{''.join(syms)} = {piece}{copies}")
    return lines


def big_number(value: float, log10: float | None = None) -> str:
    """A count for a person: `12,345,678` while it fits a double's whole numbers, else from its logarithm
    `log10` (when given) `3.14e+2740`, however far past a double's range (1.8e308) it is."""
    if math.isfinite(value) and value < 1e21:
        return f"{value:,.0f}"
    if log10 is None:
        return f"{value:.3e}" if math.isfinite(value) else "more than 1.8e+308"
    whole = math.floor(log10)
    return f"{10 ** (log10 - whole):.3f}e+{whole:02d}"


def duration(seconds: float, log10: float | None = None) -> str:
    """A time as a person reads it: "0.04 s", "12.5 min", "3.2 h", "41 days", "265 years", "2.7e+11 years"
    (an estimate of 8,356,808,800.6 s says nothing until it is put in years); past a double's range, from
    the logarithm of the seconds (`log10`) "4.1e+2733 years"."""
    if not math.isfinite(seconds):
        if log10 is None:
            return "longer than 1e+300 years"
        years = log10 - math.log10(86400 * 365.25)
        whole = math.floor(years)
        return f"{10 ** (years - whole):.1f}e+{whole} years"
    if seconds < 9.995:
        return f"{seconds:.2f} s"
    for unit, size, next_size, digits in (("s", 1, 60, 1), ("min", 60, 3600, 1), ("h", 3600, 86400, 1)):
        if round(seconds / size, digits) < next_size / size:
            return f"{seconds / size:,.{digits}f} {unit}"
    days = seconds / 86400
    if round(days) < 365:
        return f"{days:,.0f} day{'s' if round(days) != 1 else ''}"
    years = days / 365.25
    if years >= 1e6:
        return f"{years:.1e} years"
    return f"{years:,.0f} year{'s' if round(years) != 1 else ''}"
