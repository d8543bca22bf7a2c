from collections.abc import Sequence

def table(a: Sequence[int], b: Sequence[int], /) -> bytes: ...
def free(table: bytes, dx: int, dy: int, dz: int, /) -> tuple[int, int, int, int, int, int]: ...
def separate(
    n: int,
    tables: Sequence[bytes],
    shifts: Sequence[int],
    start: Sequence[int],
    max_states: int,
    every: bool = False,
    /,
) -> tuple[
    int,
    list[tuple[list[tuple[int, int, int | None]], list[tuple[int, int, int]]]] | None,
    list[list[int]] | None,
]: ...
