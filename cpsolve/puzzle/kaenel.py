"""Six-piece burr sticks from their Kaenel numbers.

Burr designers name a 6x2x2 stick by one number (Guido Kaenel's numbering, used in Bill Cutler's
burr analyses and catalogues): the bits of n - 1 say which of the 16 cubes of the middle 4x2x2
block are cut away; the two 1x2x2 ends are always there. Number 1 is the solid stick.

The bit layout follows Aaron Siegel's puzzlecad library (`kaenel_number_to_burr_info` in
src/main/scad/puzzlecad/puzzlecad-burr-stick.scad, https://github.com/aaron-siegel/puzzlecad,
MIT licence; it cites Rob Stegmann's "Identifying pieces", http://robspuzzlepage.com/interlocking.htm):
with the stick along x (x = 0..5), rows y = 0, 1 and layers z = 0, 1, bits 0-3 are layer z = 1,
row y = 0, x = 1..4; bits 4-7 the same layer, row y = 1; the bottom layer z = 0 holds bits
12, 8, 9, 13 (row 0) and 14, 10, 11, 15 (row 1). Notchable pieces only use bits 0-9 of the layout.
"""

from __future__ import annotations

from .geometry import Cell, Shape

_LAYOUT: dict[tuple[int, int], tuple[int, int, int, int]] = {
    # (y, z) -> bit for x = 1, 2, 3, 4
    (0, 1): (0, 1, 2, 3),
    (1, 1): (4, 5, 6, 7),
    (0, 0): (12, 8, 9, 13),
    (1, 0): (14, 10, 11, 15),
}

MAX_KAENEL = 1 << 16
"""Numbers run from 1 (solid) to 65536 (the middle block cut away entirely)."""


def kaenel_stick(number: int) -> Shape:
    """The cells of the 6x2x2 stick with Kaenel number `number` (1 <= number <= 65536), along x."""
    if not 1 <= number <= MAX_KAENEL:
        raise ValueError(f"a Kaenel number lies between 1 and {MAX_KAENEL}, not {number}")
    cut = number - 1
    cells: list[Cell] = []
    for z in (0, 1):
        for y in (0, 1):
            cells.append((0, y, z))
            cells.append((5, y, z))
            for x, bit in zip(range(1, 5), _LAYOUT[(y, z)], strict=True):
                if not cut >> bit & 1:
                    cells.append((x, y, z))
    return tuple(sorted(cells))
