from collections.abc import Sequence

def walk(
    neighbours: Sequence[Sequence[int]],
    perms: Sequence[Sequence[int]],
    rotation: Sequence[bool],
    prefix: Sequence[int],
    target: int | None = None,
    limit: int = 0,
    max_nodes: int = 0,
    /,
) -> tuple[dict[int, int], dict[int, int], dict[int, int], bool]: ...
