"""The puzzle file format, validated with pydantic: what a user writes, in the user's terms.

A file says *what* the puzzle is (drawings, boxes, names); `model.to_puzzle` turns it into plain
geometry that the rest of cpsolve computes with. Every check that can be made from one field alone
happens here, so that a bad file fails before any solving starts, naming the field.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    field_validator,
    model_validator,
)

from .geometry import Cell, Shape, box_cells, is_face_connected, normalize

Drawing = list[list[str]]
"""A list of z-layers (z = 0 first), each a list of rows (y = 0 first), each row a string (x = 0 first)."""

FILLED, EMPTY = "#", "."


def parse_drawing(layers: Drawing) -> Shape:
    """Cells marked `#` in a layer drawing; rejects unknown characters and ragged rows."""
    cells: list[Cell] = []
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
                elif ch != EMPTY:
                    raise ValueError(
                        f"unknown drawing character {ch!r} in layer {z} row {y} column {x} "
                        f"(use '{FILLED}' for a cell and '{EMPTY}' for no cell)"
                    )
    return tuple(sorted(cells))


def _drawing_cells(layers: Drawing | None) -> Shape | None:
    return None if layers is None else parse_drawing(layers)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Triple = tuple[int, int, int]
PositiveTriple = tuple[PositiveInt, PositiveInt, PositiveInt]


class BoxPart(_Strict):
    """One box of a union-of-boxes container: `at` is its lowest corner, `size` its extent."""

    at: Triple = (0, 0, 0)
    size: PositiveTriple


class ContainerSpec(_Strict):
    """The target shape: exactly one of `box`, `layers` (a drawing, any shape with holes) or `union`."""

    box: PositiveTriple | None = None
    layers: Drawing | None = None
    union: list[BoxPart] | None = Field(default=None, min_length=1)

    @field_validator("layers")
    @classmethod
    def _check_layers(cls, v: Drawing | None) -> Drawing | None:
        cells = _drawing_cells(v)
        if cells is not None and not cells:
            raise ValueError("the drawing has no '#' cells")
        return v

    @model_validator(mode="after")
    def _exactly_one(self) -> ContainerSpec:
        given = [k for k in ("box", "layers", "union") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of box, layers, union (got {', '.join(given) or 'none'})")
        return self

    def cells(self) -> Shape:
        if self.box is not None:
            return box_cells(self.box)
        if self.layers is not None:
            return parse_drawing(self.layers)
        assert self.union is not None
        return tuple(sorted({c for part in self.union for c in box_cells(part.size, part.at)}))


class PieceSpec(_Strict):
    """One piece, drawn as `layers` or listed as `cells`; `count` identical copies of it."""

    layers: Drawing | None = None
    cells: list[Triple] | None = None
    count: PositiveInt = 1
    color: str | None = None

    @field_validator("layers")
    @classmethod
    def _check_layers(cls, v: Drawing | None) -> Drawing | None:
        _drawing_cells(v)
        return v

    @field_validator("cells")
    @classmethod
    def _check_cells(cls, v: list[Triple] | None) -> list[Triple] | None:
        if v is not None and len(set(v)) != len(v):
            dup = next(c for c in v if v.count(c) > 1)
            raise ValueError(f"cell {list(dup)} is listed twice")
        return v

    @model_validator(mode="after")
    def _shape(self) -> PieceSpec:
        if (self.layers is None) == (self.cells is None):
            raise ValueError("give exactly one of layers, cells")
        shape = self.shape()
        if not shape:
            raise ValueError("the piece is empty")
        if not is_face_connected(shape):
            raise ValueError("the piece is not face-connected")
        return self

    def shape(self) -> Shape:
        if self.layers is not None:
            return normalize(parse_drawing(self.layers))
        return normalize(tuple(c) for c in self.cells or [])


class ChainSpec(_Strict):
    """A chain of unit cubes (snake cube): segment lengths, or the seed's constraint list verbatim.

    Consecutive segments share their end cube and turn by 90 degrees, so a chain of segments
    s1..sk has 1 + sum(s - 1) cubes.
    """

    segments: list[Annotated[int, Field(ge=2)]] | None = Field(default=None, min_length=1)
    constraints: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> ChainSpec:
        if (self.segments is None) == (self.constraints is None):
            raise ValueError("give exactly one of segments, constraints")
        return self


class Reference(_Strict):
    """Published or independently recomputed figures for a puzzle, and where they come from.

    `cpsolve report` compares every built-in model's computed counts with these.
    """

    total: PositiveInt | None = None
    unique_rotation: PositiveInt | None = None
    unique_symmetry: PositiveInt | None = None
    solvable: bool | None = Field(default=None, description="known solvable, count unknown")
    source: str = Field(min_length=1)

    def counts(self) -> tuple[int | None, int | None, int | None]:
        return self.total, self.unique_rotation, self.unique_symmetry


class PuzzleFile(_Strict):
    """The schema of a puzzle file (`cpsolve schema` prints it as JSON Schema)."""

    name: str = Field(min_length=1)
    description: str = ""
    source: str = Field(default="", description="where the puzzle comes from (optional; every built-in model has one)")
    kind: Literal["pieces", "chain"] = "pieces"
    container: ContainerSpec
    pieces: dict[str, PieceSpec] | None = None
    chain: ChainSpec | None = None
    key_piece: str | None = Field(default=None, description="override the automatic symmetry-breaking piece")
    reference: Reference | None = None

    @model_validator(mode="after")
    def _kind_fields(self) -> PuzzleFile:
        if self.kind == "pieces":
            if not self.pieces:
                raise ValueError("a 'pieces' puzzle needs a non-empty 'pieces' mapping")
            if self.chain is not None:
                raise ValueError("'chain' belongs to kind: chain")
        else:
            if self.chain is None:
                raise ValueError("a 'chain' puzzle needs a 'chain' entry (segments or constraints)")
            if self.pieces is not None or self.key_piece is not None:
                raise ValueError("a 'chain' puzzle takes no 'pieces' or 'key_piece'")
        return self
