"""The checks of one field that both kinds of puzzle file make: a YAML file through its schema
(`schema.py`, whose pydantic validators call these) and a BurrTools file, whose reader builds the
puzzle from its shapes without pydantic (`burrtools.py`: a file is read in a fraction of the time
pydantic takes to load). One set of checks and messages for both; each raises ValueError, which the
caller reports under the field it checked.
"""

from __future__ import annotations

from .geometry import Cell, Shape
from .grid import CUBES, Grid

Drawing = list[list[str]]
"""A list of z-layers (z = 0 first), each a list of rows (y = 0 first), each row a string (x = 0 first)."""

FILLED, EMPTY, OPTIONAL = "#", ".", "+"


def parse_drawing(layers: Drawing, optional: bool = False) -> Shape:
    """Cells marked `#` in a layer drawing (and `+` when `optional`); rejects unknown characters and ragged rows."""
    return _parse(layers, optional)[0]


def parse_container_drawing(layers: Drawing) -> tuple[Shape, Shape]:
    """A container drawing's cells (`#` and `+`) and, among them, the optional ones (`+`: may stay empty)."""
    return _parse(layers, True)


def _parse(layers: Drawing, optional: bool) -> tuple[Shape, Shape]:
    cells: list[Cell] = []
    maybe: list[Cell] = []
    for z, layer in enumerate(layers):
        if not layer:
            raise ValueError(f"layer {z} has no rows")
        width = len(layer[0])
        for y, row in enumerate(layer):
            if len(row) != width:
                raise ValueError(
                    f"ragged rows: layer {z} row {y} has {len(row)} characters, row 0 has {width}"
                )
            for x, ch in enumerate(row):
                if ch == FILLED:
                    cells.append((x, y, z))
                elif optional and ch == OPTIONAL:
                    cells.append((x, y, z))
                    maybe.append((x, y, z))
                elif ch != EMPTY:
                    extra = f", '{OPTIONAL}' for a cell that may stay empty" if optional else ""
                    raise ValueError(
                        f"unknown drawing character {ch!r} in layer {z} row {y} column {x} "
                        f"(use '{FILLED}' for a cell{extra} and '{EMPTY}' for no cell)"
                    )
    return tuple(sorted(cells)), tuple(sorted(maybe))


def check_container_cells(cells: Shape) -> None:
    """A container has a cell (all of them optional, `+`, is a container too: BurrTools takes it)."""
    if not cells:
        raise ValueError("the drawing has no '#' or '+' cells")


def check_piece_shape(shape: Shape, grid: Grid = CUBES) -> None:
    """A piece is one face-connected lump of at least one cell (balls: of touching balls) of the grid."""
    if not shape:
        raise ValueError("the piece is empty")
    if (bad := grid.check_cells(shape)) is not None:
        raise ValueError(f"{list(bad)} is not a cell of the {grid.title} grid")
    if not grid.is_connected(shape):
        raise ValueError("the piece is not face-connected" if grid is CUBES else
                         f"the piece is not one connected lump of the {grid.title} grid")


def check_count_range(low: int, high: int) -> None:
    """A range of copies runs upwards from 0 or more (a YAML file's schema refuses a negative min first)."""
    if low < 0:
        raise ValueError(f"min {low} is negative")
    if low > high:
        raise ValueError(f"min {low} is larger than max {high}")
