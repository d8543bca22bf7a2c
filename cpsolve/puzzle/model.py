"""The resolved, immutable puzzle that a file becomes: plain geometry the later stages compute with.

`to_puzzle` checks what needs the whole file at once (volumes, the key piece, a chain's length
against the container) so that a bad file fails before any placement is generated; `packing` makes
those checks, for a YAML file (through `to_puzzle`) and a BurrTools file (whose reader calls it
directly). This module does not import the schema (pydantic) when run: a puzzle is plain data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from ..errors import CpsolveError
from .chain import Chain, Joint, chain_of
from .geometry import MIRROR_X, ROTATIONS, Cell, Shape, Transform, mirror
from .grid import CUBES, GRIDS, Grid

if TYPE_CHECKING:
    from .schema import PieceSpec, PuzzleFile


@dataclass(frozen=True)
class Piece:
    name: str
    shape: Shape
    count: int = 1
    """Identical copies; with a range, the most that may be used."""
    color: str | None = None
    min_count: int | None = None
    """The fewest copies a solution may use (None: exactly `count`)."""
    colors: tuple[tuple[Cell, str], ...] = ()
    """Constraint colours of some cells of `shape` (same coordinates); uncoloured cells match anything."""

    @property
    def size(self) -> int:
        return len(self.shape)

    @property
    def low(self) -> int:
        """The fewest copies a solution uses."""
        return self.count if self.min_count is None else self.min_count

    @property
    def has_range(self) -> bool:
        return self.low != self.count

    def colored_key(self, grid: Grid = CUBES) -> tuple[tuple[Cell, str], ...]:
        """The piece with its colours, up to rotation and translation (plain cells get colour "")."""
        return colored_rotation_key(self.shape, self.colors, grid)


def colored_rotation_key(shape: Shape, colors: tuple[tuple[Cell, str], ...],
                         grid: Grid = CUBES) -> tuple[tuple[Cell, str], ...]:
    """A canonical form of a coloured shape under the grid's rotations: the smallest normalized image."""
    paint = dict(colors)
    if grid is CUBES:
        return min(_moved(t, shape, paint) for t in ROTATIONS)
    return min(tuple(sorted((m, paint.get(c, "")) for m, c in zip(moved, shape, strict=True)))
               for moved in grid.turned(shape))


def _moved(t: Transform, shape: Shape, paint: dict[Cell, str]) -> tuple[tuple[Cell, str], ...]:
    moved = [(t.apply(c), paint.get(c, "")) for c in shape]
    lo = tuple(min(m[0][i] for m in moved) for i in range(3))
    return tuple(sorted(((m[0] - lo[0], m[1] - lo[1], m[2] - lo[2]), k) for m, k in moved))


@dataclass(frozen=True)
class Reference:
    """Published or independently recomputed figures for a puzzle (the file's `reference:`, checked by
    its schema), and where they come from; `cpsolve report` compares computed counts with these."""

    source: str
    total: int | None = None
    unique_rotation: int | None = None
    unique_symmetry: int | None = None
    solvable: bool | None = None

    def counts(self) -> tuple[int | None, int | None, int | None]:
        return self.total, self.unique_rotation, self.unique_symmetry


@dataclass(frozen=True)
class Puzzle:
    """A validated puzzle: fill `container` exactly with the pieces, or with the folded chain."""

    name: str
    container: Shape
    pieces: tuple[Piece, ...] = ()
    """The pieces of a packing; empty for a chain."""
    kind: Literal["pieces", "chain"] = "pieces"
    chain: Chain | None = None
    source: str = ""
    description: str = ""
    key_piece: str | None = None
    reference: Reference | None = None
    origin: str | None = None
    """The file the puzzle was read from, so that errors found later can name it."""
    optional: Shape = ()
    """Cells of `container` that may stay empty (BurrTools' variable cells); the others must be filled."""
    container_colors: tuple[tuple[Cell, str], ...] = ()
    """Constraint colours of some container cells; an uncoloured cell takes any piece cell."""
    color_rules: frozenset[tuple[str, str]] = frozenset()
    """Allowed (piece colour, container colour) pairs; uncoloured cells on either side always match."""
    groups: tuple[frozenset[str], ...] = ()
    """Sets of piece names that may stay together when the puzzle is taken apart (disassembly)."""
    grid: str = "cubes"
    """The grid the cells are on (`grid.GRIDS`: cubes, prisms, spheres, rhombic, tetra-octa)."""

    @property
    def lattice(self) -> Grid:
        """The grid object of `grid`."""
        return GRIDS[self.grid]

    def __repr__(self) -> str:
        """One short line: the name and size, not every cell (a 54-piece puzzle's full repr ran to 12,700
        characters); `dataclasses.fields` or the attributes give the rest."""
        what = f"a chain of {self.n_pieces} cubes" if self.kind == "chain" else f"{self.n_pieces} pieces"
        optional = f", {len(self.optional)} optional" if self.optional else ""
        return f"Puzzle({self.name!r}, {what}, {len(self.container)} cells{optional})"

    @property
    def n_pieces(self) -> int:
        """Pieces placed in a solution, copies counted (a chain: its cubes); with ranges, the most."""
        return self.chain.n if self.chain is not None else sum(p.count for p in self.pieces)

    @cached_property
    def required(self) -> Shape:
        """The container cells that every solution fills (kept: a solutions file checks every line)."""
        maybe = set(self.optional)
        return tuple(c for c in self.container if c not in maybe)

    def color_allows(self, piece_color: str | None, cell_color: str | None) -> bool:
        """BurrTools' rule: uncoloured on either side matches; else the pair must be allowed."""
        return not piece_color or not cell_color or (piece_color, cell_color) in self.color_rules

    def mirror_partners(self) -> tuple[int, ...] | None:
        """For each piece, the index of the piece that is its mirror image; None if the set isn't closed.

        A reflection only turns a solution into another solution of the *same* puzzle when every
        chiral piece has a partner of the same count (Soma's two screw pieces). A shape shared by
        several names is matched to them in order, so that the map is a bijection. A chain's cubes
        are their own mirror images (a mirrored folding is a folding of the same chain).
        """
        if self.chain is not None:
            return tuple(range(self.chain.n))
        grid = self.lattice
        keys = [p.colored_key(grid) for p in self.pieces]
        partners: list[int] = []
        taken: set[int] = set()
        for i, piece in enumerate(self.pieces):
            mirrored = colored_rotation_key(*_mirrored(piece, grid), grid)
            if mirrored == keys[i]:
                partners.append(i)
                continue
            match = [j for j, k in enumerate(keys)
                     if k == mirrored and (self.pieces[j].count, self.pieces[j].low) == (piece.count, piece.low)
                     and j not in taken]
            if not match:
                return None
            partners.append(match[0])
            taken.add(match[0])
        return tuple(partners)


def _mirrored(piece: Piece, grid: Grid) -> tuple[Shape, tuple[tuple[Cell, str], ...]]:
    """The piece's mirror image (normalized) with its colours carried along."""
    if grid is CUBES:
        moved = {c: MIRROR_X.apply(c) for c in piece.shape}
        lo = tuple(min(m[i] for m in moved.values()) for i in range(3))
        colours = tuple((tuple(moved[c][i] - lo[i] for i in range(3)), k) for c, k in piece.colors)
        return mirror(piece.shape), colours  # type: ignore[return-value]
    cells = grid.moved(grid.mirror_map, piece.shape)
    assert cells is not None, "a grid's mirror map never fails"
    shift = grid.shift_of(cells)
    at = {c: (m[0] + shift[0], m[1] + shift[1], m[2] + shift[2]) for c, m in zip(piece.shape, cells, strict=True)}
    return tuple(sorted(at.values())), tuple((at[c], k) for c, k in piece.colors)


def to_puzzle(spec: PuzzleFile, origin: str | None = None, *, strict: bool = True) -> Puzzle:
    """Resolve a validated file into geometry, checking what needs the whole file at once.

    Errors name the field; the caller locates them in the file (`CpsolveError.located`). With
    `strict` False the pieces' volume is not checked against the container's: `cpsolve explain`
    reads such a file to say why it has no assembly.
    """
    grid = GRIDS[spec.grid]
    container = spec.container.cells()
    if grid is not CUBES:  # a box or a union of boxes holds the grid's cells in it
        container = tuple(c for c in container if grid.is_cell(c))
    ref = spec.reference
    reference = None if ref is None else Reference(ref.source, ref.total, ref.unique_rotation, ref.unique_symmetry,
                                                   ref.solvable)
    if spec.kind == "chain":
        assert spec.chain is not None
        chain = chain_of(spec.chain)
        if chain.n != len(container):
            how = "segments share their end cubes" if spec.chain.segments else "from the constraint list"
            raise CpsolveError(
                f"the chain has {chain.n} cubes ({how}) but the container has {len(container)} cells", field="chain"
            )
        return Puzzle(spec.name, container, kind="chain", chain=chain, source=spec.source,
                      description=spec.description, reference=reference, origin=origin)
    assert spec.pieces is not None
    pieces = tuple(_piece(n, p, len(container), grid) for n, p in spec.pieces.items())
    container_colors = tuple(sorted(
        (tuple(c), name) for name, cells in (spec.container.cell_colors or {}).items() for c in cells
    ))
    rules = frozenset((a, b) for a, targets in (spec.color_rules or {}).items() for b in targets)
    optional = tuple(c for c in spec.container.optional_cells() if grid.is_cell(c))
    return packing(spec.name, container, pieces, optional=optional, grid=spec.grid,
                   container_colors=container_colors, color_rules=rules,  # type: ignore[arg-type]
                   groups=spec.groups or (), key_piece=spec.key_piece, source=spec.source,
                   description=spec.description, reference=reference, origin=origin, strict=strict)


def packing(name: str, container: Shape, pieces: tuple[Piece, ...], *, optional: Shape = (),
            container_colors: tuple[tuple[Cell, str], ...] = (), color_rules: frozenset[tuple[str, str]] = frozenset(),
            groups: Iterable[Iterable[str]] = (), key_piece: str | None = None, source: str = "",
            description: str = "", reference: Reference | None = None, origin: str | None = None,
            strict: bool = True, grid: str = "cubes") -> Puzzle:
    """A packing puzzle from its resolved parts, after the checks that need all of them: the volume
    (`check_volume`, unless not `strict`), coloured cells inside the container, the pieces that groups
    and the key piece name. Errors name the field, as in a puzzle file."""
    if strict and not pieces:  # what the YAML reader's schema says; a BurrTools problem gets here without it
        raise CpsolveError("a 'pieces' puzzle needs at least one piece (one that may be used at least once)",
                           field="pieces")
    if strict:
        check_volume(pieces, len(container) - len(optional), len(optional))
    inside = set(container)
    for c, colour in container_colors:
        if c not in inside:
            raise CpsolveError(f"cell {list(c)} of colour {colour!r} is not in the container",
                               field="container.cell_colors")
    names = {p.name for p in pieces}
    sets = []
    for i, group in enumerate(groups):
        members = list(group)
        if unknown := [n for n in members if n not in names]:
            raise CpsolveError(f"unknown piece {unknown[0]!r}", field=f"groups.{i}")
        sets.append(frozenset(members))
    if key_piece is not None:
        match = [p for p in pieces if p.name == key_piece]
        if not match:
            raise CpsolveError(f"unknown piece {key_piece!r}", field="key_piece")
        if match[0].count != 1 or match[0].low != 1:
            copies = f"{match[0].low}..{match[0].count}" if match[0].has_range else str(match[0].count)
            raise CpsolveError(
                f"piece {key_piece!r} has {copies} copies; the key piece must be used exactly once",
                field="key_piece",
            )
    return Puzzle(name, container, pieces, source=source, description=description, key_piece=key_piece,
                  reference=reference, origin=origin, optional=optional, container_colors=container_colors,
                  color_rules=color_rules, groups=tuple(sets), grid=grid)


def _piece(name: str, spec: PieceSpec, cells: int, grid: Grid = CUBES) -> Piece:
    low, high = spec.count_range()
    if grid is CUBES:
        return make_piece(name, spec.shape(), low, high, cells, spec.color, spec.colors())
    raw = spec.raw_cells()
    dx, dy, dz = grid.shift_of(raw)
    colours = tuple(sorted(((c[0] + dx, c[1] + dy, c[2] + dz), k) for c, k in spec.colors_as_written()))
    return make_piece(name, grid.normalize(raw), low, high, cells, spec.color, colours)


def make_piece(name: str, shape: Shape, low: int, high: int, cells: int, color: str | None = None,
               colors: tuple[tuple[Cell, str], ...] = ()) -> Piece:
    """A piece used `low` to `high` times in a container of `cells` cells; a range's max beyond the
    container's cells means "as many as fit": `max: 3000000000` is the same puzzle as `max: CELLS`, a
    number every engine can hold (the dlx engine's counts stop at 2**20). Ranges within it are kept
    as written."""
    if low != high:
        high = max(low, min(high, cells))
    return Piece(name, shape, high, color, low if low != high else None, colors)


def check_volume(pieces: tuple[Piece, ...], required: int, optional: int) -> None:
    """Some choice of copies must have a volume between the required cells and all cells.

    Without ranges or optional cells this is the old rule: piece volume equals container volume.
    """
    low = sum(p.size * p.low for p in pieces)
    high = sum(p.size * p.count for p in pieces)
    if high >= required and low <= required + optional:
        return
    terms = [f"{p.count}x{p.size}" if p.count > 1 else str(p.size) for p in pieces]
    if low == high:
        detail = f" ({' + '.join(terms)})" if len(terms) > 1 or pieces[0].count > 1 else ""
        volume = f"total piece volume {low}{detail}"
    else:
        volume = f"total piece volume between {low} and {high}"
    if optional == 0:
        raise CpsolveError(f"{volume} differs from the container volume {required}", field="pieces")
    raise CpsolveError(
        f"{volume} cannot lie between the {required} required cells and all {required + optional} cells",
        field="pieces")


def puzzle_plain(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle as JSON data (`puzzle_from_plain` reads it back; `origin` is left out, the reader's to
    give): the snapshot of the built-in models is made of these (`catalog.py`)."""
    chain = puzzle.chain
    ref = puzzle.reference
    return {
        "name": puzzle.name, "kind": puzzle.kind, "container": puzzle.container, "optional": puzzle.optional,
        "pieces": [[p.name, p.shape, p.count, p.color, p.min_count, p.colors] for p in puzzle.pieces],
        "chain": None if chain is None else [chain.n, [[j.cube, j.kind, j.others] for j in chain.joints]],
        "source": puzzle.source, "description": puzzle.description, "key_piece": puzzle.key_piece,
        "reference": None if ref is None else [ref.source, ref.total, ref.unique_rotation, ref.unique_symmetry,
                                               ref.solvable],
        "container_colors": puzzle.container_colors, "color_rules": sorted(puzzle.color_rules),
        "groups": [sorted(g) for g in puzzle.groups], "grid": puzzle.grid,
    }


def puzzle_from_plain(data: dict[str, Any], origin: str | None = None) -> Puzzle:
    """The puzzle `puzzle_plain` wrote (trusted data: nothing is checked again)."""

    def cells(rows: list[list[int]]) -> Shape:
        return tuple((c[0], c[1], c[2]) for c in rows)

    def coloured(rows: list[list[Any]]) -> tuple[tuple[Cell, str], ...]:
        return tuple(((c[0], c[1], c[2]), k) for c, k in rows)

    chain = data["chain"]
    ref = data["reference"]
    return Puzzle(
        data["name"], cells(data["container"]),
        tuple(Piece(n, cells(shape), count, color, low, coloured(colors))
              for n, shape, count, color, low, colors in data["pieces"]),
        kind=data["kind"],
        chain=None if chain is None else Chain(chain[0], tuple(Joint(c, k, tuple(o)) for c, k, o in chain[1])),
        source=data["source"], description=data["description"], key_piece=data["key_piece"],
        reference=None if ref is None else Reference(*ref), origin=origin, optional=cells(data["optional"]),
        container_colors=coloured(data["container_colors"]),
        color_rules=frozenset((a, b) for a, b in data["color_rules"]),
        groups=tuple(frozenset(g) for g in data["groups"]), grid=data.get("grid", "cubes"))


def digest(puzzle: Puzzle) -> str:
    """16 hex digits of a SHA-256 of what makes the puzzle's solutions what they are: its container (optional
    cells, colours), its pieces by name (shapes, copies, colours), its chain, its colour rules and groups, its grid,
    each in sorted order. Its name, description, source, reference, key piece and drawing colours are left
    out: a solutions file keeps this to know its puzzle again (`output.solutions`), and an edited
    description, a reordered piece list or a file written again in another layout is the same puzzle."""
    import hashlib
    import json

    known = _DIGESTS.get(id(puzzle))
    if known is not None and known[0] is puzzle:
        return known[1]
    plain = puzzle_plain(puzzle)
    kept = {key: plain[key] for key in ("kind", "chain", "color_rules")}
    kept.update(container=sorted(puzzle.container), optional=sorted(puzzle.optional),
                container_colors=sorted(puzzle.container_colors), groups=sorted(sorted(g) for g in puzzle.groups),
                pieces=sorted([p.name, sorted(p.shape), p.count, p.low, sorted(p.colors)] for p in puzzle.pieces))
    if puzzle.grid != "cubes":  # the same cells are another puzzle on another grid (cubes' digests as they were)
        kept["grid"] = puzzle.grid
    text = json.dumps(kept, separators=(",", ":"), sort_keys=True)
    found = hashlib.sha256(text.encode()).hexdigest()[:16]
    if len(_DIGESTS) >= 32:
        _DIGESTS.pop(next(iter(_DIGESTS)))
    _DIGESTS[id(puzzle)] = (puzzle, found)
    return found


_DIGESTS: dict[int, tuple[Puzzle, str]] = {}
"""The digests of the last puzzles asked about (each kept with its puzzle, so that its id stays its own): a
sample writes one line per drawn assembly, each naming its puzzle's digest."""
