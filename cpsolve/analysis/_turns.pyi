from collections.abc import Sequence

FREE: int
TOO_BIG: int
MAXC: int
COORD: int

def sweep_hits(au: int, av: int, bu: int, bv: int, num: int, den: int, /) -> int: ...
def blocking(
    moving: Sequence[int] | bytes,
    static: Sequence[int] | bytes,
    axis: int,
    sense: int,
    pu: int,
    pv: int,
    num: int,
    den: int,
    /,
) -> int: ...
def allowed(
    moving: Sequence[int] | bytes, static: Sequence[int] | bytes, num: int, den: int, /
) -> list[tuple[int, int, int, int]] | None: ...
