from collections.abc import Sequence
from typing import Literal, overload

@overload
def probes(
    n_cells: int,
    piece_counts: Sequence[int],
    row_piece: Sequence[int],
    row_cells: Sequence[Sequence[int]],
    starts: Sequence[Sequence[int]],
    probes: int,
    seed: int,
    each: bool = False,
    reseed: bool = False,
    piece_low: Sequence[int] | None = None,
    optional: Sequence[int] | None = None,
    solutions: bool = False,
    scaled: Literal[False] = False,
    /,
) -> list[float]: ...
@overload
def probes(
    n_cells: int,
    piece_counts: Sequence[int],
    row_piece: Sequence[int],
    row_cells: Sequence[Sequence[int]],
    starts: Sequence[Sequence[int]],
    probes: int,
    seed: int,
    each: bool,
    reseed: bool,
    piece_low: Sequence[int] | None,
    optional: Sequence[int] | None,
    solutions: bool,
    scaled: Literal[True],
    /,
) -> list[tuple[float, int]]: ...

class Walker:
    def __init__(
        self,
        n_cells: int,
        piece_counts: Sequence[int],
        row_piece: Sequence[int],
        row_cells: Sequence[Sequence[int]],
        piece_low: Sequence[int] | None = None,
        optional: Sequence[int] | None = None,
    ) -> None: ...
    def descend(
        self, start: Sequence[int], n: int, seed: int, depth: int, /
    ) -> list[tuple[float, int, tuple[int, ...]] | None]: ...
    def levels(self, start: Sequence[int], n: int, seed: int, /) -> list[list[float]]: ...
