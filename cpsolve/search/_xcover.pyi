from collections.abc import Callable, Sequence

class Engine:
    def __init__(
        self,
        n_cells: int,
        piece_counts: Sequence[int],
        row_piece: Sequence[int],
        row_cells: Sequence[Sequence[int]],
        neighbors: Sequence[Sequence[int]] | None = None,
        piece_low: Sequence[int] | None = None,
        optional: Sequence[int] | None = None,
        *,
        links: bool = False,
    ) -> None: ...
    def search(
        self,
        callback: Callable[[tuple[int, ...]], object] | None,
        *,
        forced: Sequence[int] = (),
        max_solutions: int = 0,
        timeout: float | None = None,
        region_pruning: bool = False,
        transposed: int = 512,
        budget: int = 0,
    ) -> dict[str, object]: ...
