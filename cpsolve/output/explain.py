"""Pictures of explanations (`cpsolve explain --picture`): marked cells, marked pieces.

Built from the pictures' own parts (`pictures.sheet_drawing`, `scene.Part`), nothing drawn anew:

- *cells of kinds* (a core's cells to cover and cells kept apart; a colouring's colours; a cell no
  piece reaches): the container whole, then each z-layer on its own so that no cell is hidden, then
  any pieces that belong to the argument, each in its own frame;
- *marked pieces* (a stuck assembly's blockers): the assembly at the start and in its most open
  state, the marked pieces in red and the others in quiet greys and blues.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ..puzzle.geometry import Cell
from .pictures import Drawing, sheet_drawing
from .scene import Part, base_name, piece_colors, piece_set

MARK = "#e6194b"
"""A marked piece or cell: red, as a puzzler's pen would mark it."""
QUIET = ("#9fb3c8", "#c9d6e3", "#7f95ad", "#b7c4a8", "#d9cbb0", "#8fa39a")
"""The other pieces of a marked assembly: greys and blues that leave the red to the marked ones."""
KIND_COLOURS = {"must be covered": MARK, "kept apart": "#7f95ad", "free": "#eeeeee", "unreachable": MARK,
                "container": "#dddddd", "white": "#f4f4f4", "black": "#444444"}


def _flat(cells: Sequence[Cell], z: int) -> tuple[Cell, ...]:
    return tuple(sorted((x, y, 0) for x, y, cz in cells if cz == z))


def cells_drawing(kinds: Sequence[tuple[str, Sequence[Cell]]], pieces: Sequence[tuple[str, Sequence[Cell]]] = (), *,
                  colours: Mapping[str, str] | None = None, view: str = "front-right",
                  title: str | None = None, layers: bool = True) -> Drawing:
    """Kinds of cells (name, cells), each in its colour (`colours`, else KIND_COLOURS, else a palette
    colour): the whole container, then (`layers`) each z-layer alone; then `pieces` (name, cells) each
    apart."""
    palette = piece_colors([k for k, _ in kinds], {**KIND_COLOURS, **(colours or {})})
    sets = [(k, tuple(sorted((int(c[0]), int(c[1]), int(c[2])) for c in cells))) for k, cells in kinds if cells]
    whole = [Part(k, k, palette[k], cells) for k, cells in sets]
    panels: list[tuple[str, Sequence[Part]]] = [("the container", whole)]
    heights = sorted({c[2] for _, cells in sets for c in cells})
    if layers and len(heights) > 1 and len(sets) > 1:  # one kind alone hides nothing
        for z in heights:
            parts = [Part(k, k, palette[k], _flat(cells, z)) for k, cells in sets]
            panels.append((f"z={z}", [p for p in parts if p.cells]))
    if pieces:
        laid = piece_set([(name, cells, None) for name, cells in pieces])
        panels += [(p.label, (p,)) for p in laid]
    return sheet_drawing(panels, view=view, unit=26.0, title=title)


def labels(pieces: Sequence[tuple[str, Sequence[Cell]]]) -> list[tuple[str, Sequence[Cell]]]:
    """(piece, cells) pairs with each copy of a repeated piece named `NAME#k`, as solutions files name them."""
    total = {name: sum(1 for n, _ in pieces if n == name) for name, _ in pieces}
    seen: dict[str, int] = {}
    out = []
    for name, cells in pieces:
        seen[name] = seen.get(name, 0) + 1
        out.append((f"{name}#{seen[name]}" if total[name] > 1 else name, cells))
    return out


def marked_drawing(states: Sequence[tuple[str, Sequence[tuple[str, Sequence[Cell]]]]], marked: Collection[str], *,
                   view: str = "front-right", title: str | None = None) -> Drawing:
    """Assemblies (caption, (label, cells) each), the `marked` pieces (by label or by piece name) in
    red, the others quiet."""
    panels = []
    for caption, pieces in states:
        quiet = iter(QUIET * (len(pieces) // len(QUIET) + 1))
        parts = [Part(label, base_name(label), MARK if label in marked or base_name(label) in marked else next(quiet),
                      tuple(sorted((int(c[0]), int(c[1]), int(c[2])) for c in cells)))
                 for label, cells in pieces]
        panels.append((caption, parts))
    return sheet_drawing(panels, view=view, unit=30.0, title=title)
