from collections.abc import Sequence

class Canon:
    def __init__(
        self,
        n_cells: int,
        n_pieces: int,
        row_piece: Sequence[int],
        row_start: Sequence[int],
        row_cells: Sequence[int],
        inverse: Sequence[int] | bytes,
        label_map: Sequence[int],
        relabel: Sequence[int],
        n_rotations: int,
        copies: bool,
    ) -> None: ...
    def forms(self, rows: Sequence[int], /) -> tuple[bytes, bytes, int, bool, int]: ...
    def set_reach(self, reach: Sequence[int], identity: int, /) -> None: ...
    def judge(self, rows: Sequence[int], /) -> int: ...

def class_id(key: bytes, /) -> str: ...
