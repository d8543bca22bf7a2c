from collections.abc import Sequence

def table(a: Sequence[int], b: Sequence[int], /) -> bytes: ...
def free(table: bytes, dx: int, dy: int, dz: int, /) -> tuple[int, int, int, int, int, int]: ...
def separate(
    n: int,
    tables: Sequence[bytes],
    shifts: Sequence[int],
    start: Sequence[int],
    max_states: int,
    /,
) -> tuple[
    int,
    list[tuple[int, int, int | None]] | None,
    list[tuple[int, int, int]] | None,
    list[list[int]] | None,
]: ...
