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
    NonNegativeInt,
    PositiveInt,
    ValidationError,
    field_validator,
    model_validator,
)

from .checks import (
    Drawing,
    check_container_cells,
    check_count_range,
    check_piece_shape,
    parse_container_drawing,
    parse_drawing,
)
from .colors import css_color
from .geometry import Cell, Shape, box_cells, normalize
from .grid import GRIDS


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Triple = tuple[int, int, int]
PositiveTriple = tuple[PositiveInt, PositiveInt, PositiveInt]
ColorName = Annotated[str, Field(min_length=1)]
CellColors = dict[ColorName, list[Triple]]
"""Constraint colours of cells: colour name -> the cells that carry it (an uncoloured cell matches anything)."""


def _check_cell_colors(v: CellColors | None) -> CellColors | None:
    """No cell may carry two colours."""
    if v is None:
        return v
    seen: dict[Triple, str] = {}
    for name, cells in v.items():
        for c in cells:
            c = tuple(c)  # type: ignore[assignment]
            if c in seen:
                raise ValueError(f"cell {list(c)} has two colours ({seen[c]!r} and {name!r})")
            seen[c] = name
    return v


class BoxPart(_Strict):
    """One box of a union-of-boxes container: `at` is its lowest corner, `size` its extent."""

    at: Triple = (0, 0, 0)
    size: PositiveTriple


GridName = Literal["cubes", "prisms", "spheres", "rhombic", "tetra-octa"]
Rows = Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]
"""A flat drawing: rows of characters, `#` a ball, anything else a gap."""


class ContainerSpec(_Strict):
    """The target shape: exactly one of `box`, `layers` (a drawing, any shape with holes), `union`, or on the
    sphere grid `pyramid` or `tetrahedron`."""

    box: PositiveTriple | None = Field(default=None, description="a box: on other grids, the grid's cells in it")
    layers: Drawing | None = None
    union: list[BoxPart] | None = Field(default=None, min_length=1)
    pyramid: PositiveInt | None = Field(
        default=None, description="spheres: a square pyramid of balls, N x N at the base (5: 55 balls)")
    tetrahedron: PositiveInt | None = Field(
        default=None, description="spheres: a tetrahedral pyramid of balls, N on each edge (4: 20 balls)")
    optional: list[Triple] | None = Field(
        default=None, description="cells that may stay empty (added to the container; '+' in a drawing)")
    cell_colors: CellColors | None = Field(
        default=None, description="constraint colour -> container cells carrying it (see color_rules)")

    @field_validator("layers")
    @classmethod
    def _check_layers(cls, v: Drawing | None) -> Drawing | None:
        if v is not None:
            check_container_cells(parse_container_drawing(v)[0])
        return v

    @field_validator("cell_colors")
    @classmethod
    def _check_colors(cls, v: CellColors | None) -> CellColors | None:
        return _check_cell_colors(v)

    @model_validator(mode="after")
    def _exactly_one(self) -> ContainerSpec:
        given = [k for k in CONTAINER_FORMS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(CONTAINER_FORMS)} (got {', '.join(given) or 'none'})")
        return self

    def cells(self) -> Shape:
        """Every cell of the container, the optional ones included."""
        return tuple(sorted(set(self._given()) | set(self.optional_cells())))

    def optional_cells(self) -> Shape:
        """The cells that may stay empty: `+` in a drawing and the `optional:` list."""
        drawn = parse_container_drawing(self.layers)[1] if self.layers is not None else ()
        listed = [tuple(c) for c in self.optional or []]
        return tuple(sorted(set(drawn) | set(listed)))  # type: ignore[arg-type]

    def _given(self) -> Shape:
        if self.box is not None:
            return box_cells(self.box)
        if self.layers is not None:
            return parse_container_drawing(self.layers)[0]
        if self.pyramid is not None:
            return square_pyramid(self.pyramid)
        if self.tetrahedron is not None:
            return tetrahedron(self.tetrahedron)
        assert self.union is not None
        return tuple(sorted({c for part in self.union for c in box_cells(part.size, part.at)}))


CONTAINER_FORMS = ("box", "layers", "union", "pyramid", "tetrahedron")


class CountRange(_Strict):
    """A piece used between `min` and `max` times (Knuth's multiplicities; BurrTools' ranges)."""

    min: NonNegativeInt = 0
    max: PositiveInt

    @model_validator(mode="after")
    def _ordered(self) -> CountRange:
        check_count_range(self.min, self.max)
        return self


class PieceSpec(_Strict):
    """One piece, drawn as `layers` or listed as `cells` (on the sphere grid also drawn flat, as `square`
    or `triangular`); `count` identical copies of it."""

    layers: Drawing | None = None
    cells: list[Triple] | None = None
    square: Rows | None = Field(
        default=None, description="spheres: a flat piece of balls in a square layer, drawn row by row")
    triangular: Rows | None = Field(
        default=None, description="spheres: a flat piece of balls in a triangular layer, rows offset by half a "
        "ball: '# # #' over ' # #'")
    count: PositiveInt | CountRange = Field(
        default=1, description="identical copies: a number, or {min, max} for a range of copies")
    color: str | None = Field(default=None, description="display colour: #rgb, #rrggbb or a CSS colour name")
    cell_colors: CellColors | None = Field(
        default=None, description="constraint colour -> cells of the piece (in the coordinates given) carrying it")

    @field_validator("color")
    @classmethod
    def _check_color(cls, v: str | None) -> str | None:
        """Stored as #rrggbb, the one form every picture writer is given."""
        return None if v is None else css_color(v)

    @field_validator("cell_colors")
    @classmethod
    def _check_colors(cls, v: CellColors | None) -> CellColors | None:
        return _check_cell_colors(v)

    @field_validator("count", mode="before")
    @classmethod
    def _count_range(cls, v: object) -> object:
        """A mapping is a range: validate it here so that its error is the one reported (not the
        union's "should be an integer")."""
        if isinstance(v, dict):
            try:
                return CountRange.model_validate(v)
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in err["loc"])
                raise ValueError((f"{where}: " if where else "") + err["msg"].removeprefix("Value error, ")) from None
        return v

    @field_validator("layers")
    @classmethod
    def _check_layers(cls, v: Drawing | None) -> Drawing | None:
        if v is not None:
            parse_drawing(v)
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
        forms = [k for k in PIECE_FORMS if getattr(self, k) is not None]
        if len(forms) != 1:
            raise ValueError(f"give exactly one of {', '.join(PIECE_FORMS)}")
        if self.square is not None or self.triangular is not None:
            if self.cell_colors:
                raise ValueError("cell_colors go with layers or cells")
            self._raw()  # a triangular drawing's balls must sit on the offset rows
            return self
        if not self._raw():
            raise ValueError("the piece is empty")
        given = set(self._raw())
        for name, cells in (self.cell_colors or {}).items():
            for c in cells:
                if tuple(c) not in given:
                    raise ValueError(f"cell_colors: cell {list(c)} of colour {name!r} is not a cell of the piece")
        return self

    def _raw(self) -> Shape:
        if self.layers is not None:
            return parse_drawing(self.layers)
        if self.square is not None:
            return flat_balls(self.square, triangular=False)
        if self.triangular is not None:
            return flat_balls(self.triangular, triangular=True)
        return tuple(tuple(c) for c in self.cells or [])  # type: ignore[misc]

    def raw_cells(self) -> Shape:
        """The cells as written (a flat drawing's balls on the sphere grid), not yet moved to the origin."""
        return self._raw()

    def shape(self) -> Shape:
        return normalize(self._raw())

    def count_range(self) -> tuple[int, int]:
        """(min, max) copies; a plain count n is (n, n)."""
        if isinstance(self.count, CountRange):
            return self.count.min, self.count.max
        return self.count, self.count

    def colors_as_written(self) -> tuple[tuple[Cell, str], ...]:
        """The coloured cells in the coordinates of the file."""
        return tuple(((c[0], c[1], c[2]), name) for name, cells in (self.cell_colors or {}).items() for c in cells)

    def colors(self) -> tuple[tuple[Cell, str], ...]:
        """The coloured cells in the normalized shape's coordinates (shifted like `shape`)."""
        raw = self._raw()
        lo = tuple(min(c[i] for c in raw) for i in range(3))
        return tuple(sorted(
            ((c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]), name)
            for name, cells in (self.cell_colors or {}).items() for c in cells
        ))


PIECE_FORMS = ("layers", "cells", "square", "triangular")


def flat_balls(rows: list[str], triangular: bool) -> Shape:
    """The balls of a flat drawing on the sphere grid (x + y + z even, touching balls (1,1,0) apart).

    `square`: a square layer of balls; the character in column c of row r is the ball (c + r, c - r, 0),
    so neighbours across and down touch. `triangular`: a layer of the triangular packing drawn with rows
    offset by half a ball, balls in every other column ('# # #' then ' # #'); column t of row r is the
    ball a (1,1,0) + r (1,0,1) with a = (t - r) / 2, so t and r must have the same parity."""
    out: list[Cell] = []
    for r, row in enumerate(rows):
        for t, ch in enumerate(row):
            if ch != "#":
                if ch not in " .":
                    raise ValueError(f"unknown drawing character {ch!r} in row {r} column {t} (use '#' for a ball "
                                     "and '.' or a space for none)")
                continue
            if not triangular:
                out.append((t + r, t - r, 0))
            elif (t - r) % 2:
                raise ValueError(f"row {r} column {t}: in a triangular drawing the balls of row r sit in the "
                                 "columns of r's parity (rows are offset by half a ball)")
            else:
                a = (t - r) // 2
                out.append((a + r, a, r))
    if not out:
        raise ValueError("the drawing has no '#' balls")
    return tuple(sorted(out))


def square_pyramid(n: int) -> Shape:
    """A square pyramid of balls on the sphere grid, n x n at the base: layer k (from 0 at the bottom) is an
    (n - k) x (n - k) square sitting in the hollows of the layer below."""
    cells = [(i + j + k, i - j, k) for k in range(n) for i in range(n - k) for j in range(n - k)]
    low = min(c[1] for c in cells)
    return tuple(sorted((x, y - low + (low % 2), z) for x, y, z in cells))


def tetrahedron(n: int) -> Shape:
    """A tetrahedral pyramid of balls on the sphere grid, n on each edge: a (1,1,0) + b (1,0,1) + c (0,1,1)
    with a + b + c < n, the three vectors being touching balls at 60 degrees to each other."""
    return tuple(sorted((a + b, a + c, b + c) for a in range(n) for b in range(n - a) for c in range(n - a - b)))


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
    grid: GridName = Field(
        default="cubes", description="BurrTools' grids: cubes, prisms (triangular), spheres (face-centred cubic "
        "packing), rhombic (tetrahedra of rhombic dodecahedra), tetra-octa; cells are BurrTools' (x, y, z)")
    container: ContainerSpec
    pieces: dict[str, PieceSpec] | None = None
    chain: ChainSpec | None = None
    key_piece: str | None = Field(default=None, description="override the automatic symmetry-breaking piece")
    reference: Reference | None = None
    color_rules: dict[ColorName, list[ColorName]] | None = Field(
        default=None,
        description="piece colour -> the container colours it may sit on (an uncoloured cell matches anything; "
        "a piece colour not listed may only sit on uncoloured cells)")
    groups: list[list[str]] | None = Field(
        default=None, description="sets of piece names that may stay together when the puzzle is taken apart")

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
            extras = [k for k in ("color_rules", "groups") if getattr(self, k) is not None]
            if self.container.optional_cells() or self.container.cell_colors or extras:
                raise ValueError("a 'chain' puzzle takes no optional cells, colours or groups")
            if self.grid != "cubes":
                raise ValueError("a 'chain' puzzle is a chain of cubes: it takes no other grid")
        self._check_grid()
        return self

    def _check_grid(self) -> None:
        """What needs the grid: the pieces' cells are the grid's and connected, the sphere-only forms."""
        grid = GRIDS[self.grid]
        spheres_only = [f"container.{k}" for k in ("pyramid", "tetrahedron") if getattr(self.container, k) is not None]
        spheres_only += [f"pieces.{name}.{k}" for name, piece in (self.pieces or {}).items()
                         for k in ("square", "triangular") if getattr(piece, k) is not None]
        if spheres_only and self.grid != "spheres":
            raise ValueError(f"{spheres_only[0]}: this form is for grid: spheres (the grid is {self.grid})")
        if self.container.layers is not None and (bad := grid.check_cells(self.container.cells())) is not None:
            raise ValueError(f"container.layers: {list(bad)} is not a cell of the {grid.title} grid")
        for name, piece in (self.pieces or {}).items():
            try:
                check_piece_shape(grid.normalize(piece.raw_cells()), grid)
            except ValueError as exc:
                raise ValueError(f"pieces.{name}: {exc}") from None
