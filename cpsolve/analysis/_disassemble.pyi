from collections.abc import Sequence

_Found = list[tuple[list[tuple[int, int, int | None]], list[tuple[int, int, int]]]]

class Disassembler:
    def __init__(self, budget: int = ..., /) -> None: ...
    def add_shape(self, cells: Sequence[int], /) -> int: ...
    def free(self, a: int, b: int, dx: int, dy: int, dz: int, /) -> tuple[int, int, int, int, int, int]: ...
    def separate(
        self,
        shapes: Sequence[int],
        origins: Sequence[int],
        start: Sequence[int],
        max_states: int,
        every: bool = False,
        /,
    ) -> tuple[int, _Found | None, list[list[int]] | None] | None: ...
    def classify(
        self, batch: bytes, n: int, max_states: int, every: bool = False, /
    ) -> tuple[bytes, list[int], dict[int, _Found]]: ...
    def levels(
        self, batch: bytes, n: int, max_states: int, every: bool = False, /
    ) -> tuple[bytes, list[tuple[int, ...] | int | None]]: ...
    def stats(self) -> dict[str, int]: ...
