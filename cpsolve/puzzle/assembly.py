"""Is a labelled assembly (`{label: cells}`, as solutions files and BurrTools files hold them) sound?

Two checks, both returning why not (one line) or None:

- `check_cells`, with no puzzle: what any solution line must be, whoever wrote it (a hand-edited or
  hostile file reaches `show`, `draw`, `view` and `disassemble`): labels that are piece names or
  their copies (`NAME#k`), no cell in two pieces, and no more cells, nor a wider bounding box, than
  the limits allow, since pictures and pages are sized by them;
- `check_solution`, against the puzzle: every piece of the puzzle placed as its own shape turned
  (never mirrored), inside the container, on cells whose colours allow it, the required cells all
  covered, each piece used between its bounds; for a chain, its cubes along the joints. This is what
  `import --check` and `export --with-solutions` check, and what the commands that read a solutions
  file check when the file names a puzzle they can load.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..limits import active, exceeded, extent
from .chain import Chain
from .geometry import Cell, are_adjacent
from .model import Piece, Puzzle
from .names import unseen

Pieces = Mapping[str, Sequence[Cell]]


def check_cells(pieces: Pieces) -> str | None:
    """Why `pieces` cannot be a solution of any puzzle, or None."""
    seen: dict[Cell, str] = {}
    for label, cells in pieces.items():
        if (why := _bad_label(label)) is not None:
            return why
        for c in cells:
            if c in seen:
                return f"cell {list(c)} is in both {seen[c]} and {label}"
            seen[c] = label
    limits = active()
    if len(seen) > limits.max_cells:
        return exceeded("max_cells", "the number of cells", len(seen)).message
    x, y, z = extent(list(seen))
    if x * y * z > limits.max_drawing:
        return exceeded("max_drawing", f"the drawing of a {x}x{y}x{z} bounding box", x * y * z).message
    return None


def _bad_label(label: str) -> str | None:
    """Why a label is neither a piece name nor a copy's `NAME#k` (k from 1), or None."""
    name, hash_, copy = label.rpartition("#")
    if not hash_:
        name = label
    elif not (copy.isascii() and copy.isdigit() and copy[0] != "0"):
        return f"label {label!r}: a copy is numbered NAME#1, NAME#2, ..."
    if not name.strip() or "#" in name or any(unseen(ch) for ch in name):  # names.py's rule for piece names
        return f"label {label!r} is not a piece name"
    return None


def check_solution(puzzle: Puzzle, pieces: Pieces, *, cells_checked: bool = False) -> str | None:
    """Why `pieces` is not a solution of `puzzle` (checked as cells, in the puzzle's coordinates), or None.
    `cells_checked`: `check_cells` passed already (a solutions file's reader checks every line)."""
    if not cells_checked and (why := check_cells(pieces)) is not None:
        return why
    if puzzle.chain is not None:
        return _check_chain(puzzle.chain, puzzle.container, pieces)
    by_name = {p.name: p for p in puzzle.pieces}
    grid = puzzle.lattice
    inside = set(puzzle.container)
    paint = dict(puzzle.container_colors)
    used: dict[str, int] = {}
    seen: set[Cell] = set()
    for label, cells in pieces.items():
        name = label if label in by_name else label.rsplit("#", 1)[0]
        piece = by_name.get(name)
        if piece is None:
            return f"{label}: no such piece"
        used[name] = used.get(name, 0) + 1
        if grid.normalize(cells) not in grid.orientations(piece.shape):
            return f"{label}: its cells are not the piece's shape turned (mirror images are not allowed)"
        if outside := next((c for c in cells if c not in inside), None):
            return f"{label}: cell {list(outside)} is outside the container"
        if (piece.colors or paint) and not _colours_fit(puzzle, piece, cells, paint):
            return f"{label}: a cell's colour may not sit on the container cell's colour"
        seen.update(cells)
    if empty := next((c for c in puzzle.required if c not in seen), None):
        return f"required cell {list(empty)} is empty"
    for piece in puzzle.pieces:
        n = used.get(piece.name, 0)
        if not piece.low <= n <= piece.count:
            want = str(piece.count) if piece.low == piece.count else f"{piece.low}..{piece.count}"
            return f"piece {piece.name} is used {n} times, not {want}"
    return None


def _colours_fit(puzzle: Puzzle, piece: Piece, cells: Sequence[Cell], paint: dict[Cell, str]) -> bool:
    """Some rotation of the piece onto `cells` puts every piece colour on an allowed container colour."""
    target = sorted(cells)
    colours = dict(piece.colors)
    tlo = [min(c[i] for c in target) for i in range(3)]
    for moved in puzzle.lattice.turned(piece.shape):
        lo = [min(m[i] for m in moved) for i in range(3)]
        shift = [tlo[i] - lo[i] for i in range(3)]
        placed = {(m[0] + shift[0], m[1] + shift[1], m[2] + shift[2]): c
                  for m, c in zip(moved, piece.shape, strict=True)}
        if sorted(placed) != target:
            continue
        if all(puzzle.color_allows(colours.get(src), paint.get(dst)) for dst, src in placed.items()):
            return True
    return False


def _check_chain(chain: Chain, container: Iterable[Cell], pieces: Pieces) -> str | None:
    """A folding: cube k (label "k") in one cell of the container, every cell filled, the joints kept."""
    inside = set(container)
    at: dict[int, Cell] = {}
    for label, cells in pieces.items():
        if not (label.isascii() and label.isdigit() and int(label) < chain.n and str(int(label)) == label):
            return f"{label}: not a cube of the chain (0 to {chain.n - 1})"
        if len(cells) != 1 or cells[0] not in inside:
            return f"cube {label}: not one cell of the container"
        at[int(label)] = cells[0]
    if len(at) != chain.n or len(inside) != chain.n:
        return f"{len(at)} of the chain's {chain.n} cubes are placed"
    for joint in chain.joints:
        if joint.kind == "TOUCH":
            if not are_adjacent(at[joint.cube], at[joint.others[0]]):
                return f"cubes {joint.others[0]} and {joint.cube} do not touch"
            continue
        a, mid, b = at[joint.others[0]], at[joint.others[1]], at[joint.cube]
        straight = all(b[i] - mid[i] == mid[i] - a[i] for i in range(3))
        if straight != (joint.kind == "ALIGNED"):
            how = "in a line" if joint.kind == "ALIGNED" else "turning"
            return f"cubes {joint.others[0]}, {joint.others[1]}, {joint.cube} are not {how}"
    return None
