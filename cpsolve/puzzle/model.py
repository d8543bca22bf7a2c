"""The resolved, immutable puzzle that a file becomes: plain geometry the later stages compute with.

`to_puzzle` checks what needs the whole file at once (volumes, the key piece, a chain's length
against the container) so that a bad file fails before any placement is generated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import CpsolveError
from .chain import Chain, chain_of
from .geometry import Shape, is_chiral, mirror, rotation_key
from .schema import PuzzleFile, Reference


@dataclass(frozen=True)
class Piece:
    name: str
    shape: Shape
    count: int = 1
    color: str | None = None

    @property
    def size(self) -> int:
        return len(self.shape)


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

    @property
    def n_pieces(self) -> int:
        """Pieces placed in a solution, copies counted (a chain: its cubes)."""
        return self.chain.n if self.chain is not None else sum(p.count for p in self.pieces)

    def mirror_partners(self) -> tuple[int, ...] | None:
        """For each piece, the index of the piece that is its mirror image; None if the set isn't closed.

        A reflection only turns a solution into another solution of the *same* puzzle when every
        chiral piece has a partner of the same count (Soma's two screw pieces). A shape shared by
        several names is matched to them in order, so that the map is a bijection. A chain's cubes
        are their own mirror images (a mirrored folding is a folding of the same chain).
        """
        if self.chain is not None:
            return tuple(range(self.chain.n))
        keys = [rotation_key(p.shape) for p in self.pieces]
        partners: list[int] = []
        taken: set[int] = set()
        for i, piece in enumerate(self.pieces):
            if not is_chiral(piece.shape):
                partners.append(i)
                continue
            want = rotation_key(mirror(piece.shape))
            match = [j for j, k in enumerate(keys)
                     if k == want and self.pieces[j].count == piece.count and j not in taken]
            if not match:
                return None
            partners.append(match[0])
            taken.add(match[0])
        return tuple(partners)


def to_puzzle(spec: PuzzleFile, origin: str | None = None) -> Puzzle:
    """Resolve a validated file into geometry, checking what needs the whole file at once.

    Errors name the field; the caller locates them in the file (`CpsolveError.located`).
    """
    container = spec.container.cells()

    def puzzle(**parts: object) -> Puzzle:
        return Puzzle(spec.name, container, source=spec.source, description=spec.description,
                      reference=spec.reference, origin=origin, **parts)  # type: ignore[arg-type]

    if spec.kind == "chain":
        assert spec.chain is not None
        chain = chain_of(spec.chain)
        if chain.n != len(container):
            how = "segments share their end cubes" if spec.chain.segments else "from the constraint list"
            raise CpsolveError(
                f"the chain has {chain.n} cubes ({how}) but the container has {len(container)} cells", field="chain"
            )
        return puzzle(kind="chain", chain=chain)
    assert spec.pieces is not None
    pieces = tuple(Piece(n, p.shape(), p.count, p.color) for n, p in spec.pieces.items())
    volume = sum(p.size * p.count for p in pieces)
    if volume != len(container):
        terms = [f"{p.count}x{p.size}" if p.count > 1 else str(p.size) for p in pieces]
        detail = f" ({' + '.join(terms)})" if len(terms) > 1 or pieces[0].count > 1 else ""
        raise CpsolveError(
            f"total piece volume {volume}{detail} differs from the container volume {len(container)}",
            field="pieces",
        )
    if spec.key_piece is not None:
        match = [p for p in pieces if p.name == spec.key_piece]
        if not match:
            raise CpsolveError(f"unknown piece {spec.key_piece!r}", field="key_piece")
        if match[0].count != 1:
            raise CpsolveError(
                f"piece {spec.key_piece!r} has {match[0].count} copies; the key piece must be unique",
                field="key_piece",
            )
    return puzzle(pieces=pieces, key_piece=spec.key_piece)
