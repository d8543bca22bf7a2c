from collections.abc import Sequence

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
    /,
) -> list[float]: ...
