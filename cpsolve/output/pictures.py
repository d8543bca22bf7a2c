"""Pictures of puzzles and solutions: shaded isometric cubes as PNG (Pillow) or SVG (plain text).

A picture is first a `Drawing` — polygons, lines and text in pixel coordinates, in painting order
— built from the scene (`scene.py`); then one of two small writers turns it into bytes. Both
formats therefore show exactly the same thing. Pillow is imported only when a PNG is written, so
that the rest of cpsolve starts fast.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..limits import check
from ..puzzle.chain import Chain
from ..puzzle.geometry import FACE_STEPS, Cell
from . import solids
from .scene import (
    SHADE,
    VIEWS,
    Part,
    Point,
    Projection,
    Vec,
    base_name,
    exploded,
    face_corners,
    mix,
    projection,
    shade,
    visible_faces,
)
from .text import markup

if TYPE_CHECKING:
    from PIL import ImageDraw

BACKGROUND = "#ffffff"
INK = "#222222"
FONT_SIZE = 15


@dataclass(frozen=True)
class Polygon:
    points: tuple[Point, ...]
    fill: str


@dataclass(frozen=True)
class Line:
    a: Point
    b: Point
    color: str
    width: float


@dataclass(frozen=True)
class Text:
    at: Point
    text: str
    size: float
    color: str = INK
    anchor: str = "ls"
    """Pillow's anchors: first letter l/m/r (left, middle, right), second s/m (baseline, middle)."""
    halo: bool = False


@dataclass(frozen=True)
class Ball:
    """A shaded ball of radius `radius` centred at `at` (the sphere grid's cells)."""

    at: Point
    radius: float
    color: str


Shape = Polygon | Line | Text | Ball


@dataclass
class Drawing:
    """What to paint, in order, on a `width` x `height` pixel canvas.

    `panels` says where each picture of a contact sheet lies (x0, y0, x1, y1: its cubes, caption
    and legend), so that a caller can crop or link one; a single picture has none."""

    width: int
    height: int
    shapes: list[Shape] = field(default_factory=list)
    panels: list[tuple[float, float, float, float]] = field(default_factory=list)


def _mapped(shapes: Sequence[Shape], k: float, by: Point = (0.0, 0.0)) -> list[Shape]:
    """The shapes scaled by k (points, line widths, font sizes), then shifted by `by` pixels."""

    def at(p: Point) -> Point:
        return (p[0] * k + by[0], p[1] * k + by[1])

    out: list[Shape] = []
    for s in shapes:
        if isinstance(s, Polygon):
            out.append(Polygon(tuple(at(q) for q in s.points), s.fill))
        elif isinstance(s, Line):
            out.append(Line(at(s.a), at(s.b), s.color, s.width * k))
        elif isinstance(s, Ball):
            out.append(Ball(at(s.at), s.radius * k, s.color))
        else:
            out.append(Text(at(s.at), s.text, s.size * k, s.color, s.anchor, s.halo))
    return out


def fitted(drawing: Drawing, size: int) -> Drawing:
    """The drawing scaled as a whole (text and lines too) so that its longer side is `size` pixels.

    The picture looks the same at any size, as if the image were scaled, but is painted at that
    size (sharp, and an SVG says its size in pixels); the other side is rounded to whole pixels.
    """
    if size < 16:
        raise ValueError(f"a picture needs at least 16 pixels on its longer side, not {size}")
    k = size / max(drawing.width, drawing.height)
    width, height = (size, max(1, round(drawing.height * k))) if drawing.width >= drawing.height else (
        max(1, round(drawing.width * k)), size)
    panels = [(a * k, b * k, c * k, d * k) for a, b, c, d in drawing.panels]
    return Drawing(width, height, _mapped(drawing.shapes, k), panels)


# -- from the scene to shapes ---------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """Where scene units land in pixels: screen point p goes to origin + unit * p."""

    unit: float
    origin: Point

    def px(self, p: Point) -> Point:
        return (self.origin[0] + self.unit * p[0], self.origin[1] + self.unit * p[1])


def _bounds(points: Sequence[Point]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _cube_points(parts: Sequence[Part], cam: Projection, grid: str = "cubes") -> list[Point]:
    if grid == "spheres":  # a ball shows as a disc of radius 1/2 wherever it is seen from
        centres = [cam.point(tuple(v + o for v, o in zip(solids.ball_centre(c), p.offset, strict=True)))
                   for p in parts for c in p.cells]
        return [(x + dx, y + dy) for x, y in centres for dx, dy in ((0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5))]
    if grid != "cubes":
        return [cam.point((q[0] + p.offset[0], q[1] + p.offset[1], q[2] + p.offset[2]))
                for p in parts for q in solids.points(grid, p.cells)]
    return [cam.point((c[0] + dx, c[1] + dy, c[2] + dz)) for p in parts for c in p.cells
            for dx in (0, 1) for dy in (0, 1) for dz in (0, 1)]


def part_shapes(parts: Sequence[Part], cam: Projection, frame: Frame, view: str | Sequence[float],
                grid: str = "cubes") -> list[Shape]:
    """The parts drawn on their grid: cubes (`cube_shapes`), balls, or the other grids' solids."""
    if grid == "cubes":
        return cube_shapes(parts, cam, frame, view)
    return solid_shapes(parts, cam, frame, grid)


def solid_shapes(parts: Sequence[Part], cam: Projection, frame: Frame, grid: str) -> list[Shape]:
    """Balls (spheres) or the outer faces of the pieces' solids (prisms, rhombic, tetra-octa), far to near:
    each face filled as the light falls on it, edged a little darker; a piece is one solid, its inner faces
    left out, and a face between two pieces belongs to both (the nearer one shows)."""
    items: list[tuple[float, list[Shape]]] = []
    toward = cam.toward
    edge_w = max(0.6, frame.unit / 40)
    seam_w = max(0.6, frame.unit / 60)
    for p in parts:
        ox, oy, oz = p.offset
        marked = {c: drawn for c, _, drawn in p.marks}
        if grid == "spheres":
            r = 0.5 * frame.unit
            for c in p.cells:
                x, y, z = solids.ball_centre(c)
                q = (x + ox, y + oy, z + oz)
                ball: list[Shape] = [Ball(frame.px(cam.point(q)), r, p.color)]
                if c in marked:  # a constraint colour: a smaller ball of it in front of the ball's middle
                    ball.append(Ball(frame.px(cam.point(q)), r * MARK_SIZE, marked[c]))
                items.append((cam.depth(q), ball))
            continue
        own = set(p.cells)
        for cell in p.cells:
            for pts, n, other in solids.faces(grid, cell):
                if other in own or n[0] * toward[0] + n[1] * toward[1] + n[2] * toward[2] <= 1e-9:
                    continue  # inside the piece, or facing away: hidden
                moved = [(a + ox, b + oy, c + oz) for a, b, c in pts]
                mid = (sum(v[0] for v in moved) / len(moved), sum(v[1] for v in moved) / len(moved),
                       sum(v[2] for v in moved) / len(moved))
                corners = tuple(frame.px(cam.point(v)) for v in moved)
                light = solids.lit(n)
                face: list[Shape] = [Polygon(corners, shade(p.color, light))]
                face += [Line(corners[i], corners[(i + 1) % len(corners)], shade(p.color, light * 0.6), edge_w)
                         for i in range(len(corners))]
                if cell in marked:  # a constraint colour: the face drawn again smaller in it, lit as the face
                    face += _mark(corners, marked[cell], light, seam_w)
                items.append((cam.depth(mid), face))
    items.sort(key=lambda item: item[0])
    return [s for _, shapes in items for s in shapes]


def _mark(corners: Sequence[Point], color: str, light: float, width: float) -> list[Shape]:
    """A constraint colour on a face: the face shrunk about its middle to MARK_SIZE, filled lit as the face."""
    mid = (sum(p[0] for p in corners) / len(corners), sum(p[1] for p in corners) / len(corners))
    inner = tuple((mid[0] + (p[0] - mid[0]) * MARK_SIZE, mid[1] + (p[1] - mid[1]) * MARK_SIZE) for p in corners)
    return [Polygon(inner, shade(color, light)),
            *(Line(inner[i], inner[(i + 1) % len(inner)], shade(color, light * 0.6), width) for i in range(len(inner)))]


def grid_exploded(parts: Sequence[Part], grid: str) -> tuple[Part, ...]:
    """The parts pulled apart in space, each along the line from the assembly's centre through its own."""
    every = [c for p in parts for c in p.cells]
    mid = solids.centre(grid, every)
    out = []
    for p in parts:
        c = solids.centre(grid, p.cells)
        out.append(replace(p, offset=(0.9 * (c[0] - mid[0]), 0.9 * (c[1] - mid[1]), 0.9 * (c[2] - mid[2]))))
    return tuple(out)


def cube_shapes(parts: Sequence[Part], cam: Projection, frame: Frame, view: str | Sequence[float]) -> list[Shape]:
    """The visible faces of the parts, far to near, each filled, then its seams and edges drawn."""
    out: list[Shape] = []
    edge_w = max(1.0, frame.unit / 22)
    seam_w = max(0.6, frame.unit / 60)
    marked = [{c: drawn for c, _, drawn in p.marks} for p in parts]
    for face in visible_faces(parts, view):
        color = parts[face.part].color
        lit = SHADE[face.normal]
        corners = [frame.px(cam.point(c)) for c in face.corners()]
        out.append(Polygon(tuple(corners), shade(color, lit)))
        for i, strong in enumerate(face.strong):
            a, b = corners[i], corners[(i + 1) % 4]
            if strong:
                out.append(Line(a, b, shade(color, 0.3), edge_w))
            else:
                out.append(Line(a, b, shade(color, lit * 0.82), seam_w))
        mark = marked[face.part].get(face.cell)
        if mark:  # a constraint colour: a square in the middle of each face of the cube, lit as the face
            out += _mark(corners, mark, lit, seam_w)
    return out


MARK_SIZE = 0.5
"""A constraint colour is drawn as the face (a cube's square, another solid's face) shrunk to this fraction,
or on a ball as a ball of this fraction of its size."""


def legend_entries(parts: Sequence[Part]) -> list[tuple[tuple[str, ...], str]]:
    """(colours, text) per piece name, copies counted: `T (3)` with up to five of its copies' colours;
    then the constraint colours on the pieces' cells, each as `colour: NAME`."""
    seen: dict[str, list[str]] = {}
    for p in parts:
        seen.setdefault(p.name, []).append(p.color)
    marks = sorted({(name, drawn) for p in parts for _, name, drawn in p.marks})
    return [(tuple(dict.fromkeys(colors))[:5], name if len(colors) == 1 else f"{name} ({len(colors)})")
            for name, colors in seen.items()] + [((drawn,), f"colour: {name}") for name, drawn in marks]


def _text_width(text: str, size: float) -> float:
    """A conservative width estimate, so that layout does not need the font (SVG has none to ask)."""
    return 0.62 * size * len(text)


LEGEND_CHARS = 40
"""A legend entry's text is cut to this many characters: a piece name of 30 KB would size the picture."""
TITLE_WIDTH = 600.0
"""Pixels a title may take beyond the picture's own width (a 30 KB puzzle name made a 2.4 GB PNG)."""


def _clipped(text: str, chars: int) -> str:
    """`text`, or its first characters and an ellipsis when it is longer than `chars`."""
    return text if len(text) <= chars else text[: max(chars - 1, 1)] + "\u2026"


def _title_fitted(title: str, width: float, size: float) -> str:
    """The title cut to the picture's width (or TITLE_WIDTH, whichever is wider)."""
    return _clipped(title, int(max(width, TITLE_WIDTH) / (0.62 * size)))


def _swatch(colors: Sequence[str], x: float, y: float, s: float) -> list[Shape]:
    """A legend's square of side s at (x, y): copies in several colours get one stripe each."""
    out: list[Shape] = []
    band = s / len(colors)
    for j, color in enumerate(colors):
        out.append(Polygon(((x + j * band, y), (x + (j + 1) * band, y), (x + (j + 1) * band, y + s),
                            (x + j * band, y + s)), color))
    corners = ((x, y), (x + s, y), (x + s, y + s), (x, y + s))
    out += [Line(corners[i], corners[(i + 1) % 4], INK, 0.8) for i in range(4)]
    return out


def _legend(
    entries: Sequence[tuple[tuple[str, ...], str]], x: float, y: float, size: float, max_h: float
) -> tuple[list[Shape], float, float]:
    """Swatches and names in columns starting at (x, y); returns the shapes, width and height used."""
    out: list[Shape] = []
    row = size * 1.6
    per_col = max(1, int(max_h // row))
    entries = [(colors, _clipped(text, LEGEND_CHARS)) for colors, text in entries]
    col_w = max((_text_width(t, size) for _, t in entries), default=0) + size * 2.2
    for i, (colors, text) in enumerate(entries):
        cx = x + (i // per_col) * col_w
        cy = y + (i % per_col) * row
        s = size * 1.05
        out += _swatch(colors, cx, cy, s)
        out.append(Text((cx + s + size * 0.5, cy + s / 2), text, size, anchor="lm"))
    cols = math.ceil(len(entries) / per_col) if entries else 0
    return out, cols * col_w, min(len(entries), per_col) * row


def _legend_rows(
    entries: Sequence[tuple[tuple[str, ...], str]], x: float, y: float, size: float, width: float
) -> tuple[list[Shape], float]:
    """Swatches and names side by side from (x, y), a new row where `width` is full; the height used."""
    out: list[Shape] = []
    row = size * 1.5
    cx, cy = x, y
    for colors, text in entries:
        s = size * 1.05
        w = s + size * 0.4 + _text_width(text, size) + size * 0.9
        if cx > x and cx + w > x + width:
            cx, cy = x, cy + row
        out += _swatch(colors, cx, cy, s)
        out.append(Text((cx + s + size * 0.4, cy + s / 2), text, size, anchor="lm"))
        cx += w
    return out, (cy - y + row) if entries else 0.0


def solution_drawing(
    parts: Sequence[Part],
    *,
    view: str | Sequence[float] = "front-right",
    unit: float = 44.0,
    title: str | None = None,
    legend: bool = True,
    labels: bool = False,
    grid: str = "cubes",
) -> Drawing:
    """Shaded cubes of the parts (or the solids of their `grid`), a title above, the legend to the right;
    `labels` names each part."""
    cam = projection(view)
    pts = _cube_points(parts, cam, grid)
    x0, y0, x1, y1 = _bounds(pts)
    margin = 16.0
    top = margin + (FONT_SIZE * 1.8 if title else 0)
    frame = Frame(unit, (margin - x0 * unit, top - y0 * unit))
    shapes = part_shapes(parts, cam, frame, view, grid)
    if labels and grid == "cubes":
        shapes += _part_labels(parts, cam, frame)
    width = margin * 2 + (x1 - x0) * unit
    height = top + (y1 - y0) * unit + margin + (FONT_SIZE if labels else 0)
    if legend and not labels:
        entries = legend_entries(parts)
        items, w, h = _legend(entries, width, top, FONT_SIZE, max(height - top - margin, 200))
        shapes += items
        width += w + margin
        height = max(height, top + h + margin)
    if title:
        title = _title_fitted(title, width, FONT_SIZE * 1.1)
        shapes.append(Text((margin, margin + FONT_SIZE), title, FONT_SIZE * 1.1, anchor="ls"))
        width = max(width, margin * 2 + _text_width(title, FONT_SIZE * 1.1))
    return Drawing(math.ceil(width), math.ceil(height), shapes)


def _part_labels(parts: Sequence[Part], cam: Projection, frame: Frame) -> list[Shape]:
    """Each part's name just in front of its lowest, front-most cube, where the picture has a gap."""
    out: list[Shape] = []
    for p in parts:
        xs = [c[0] for c in p.cells]
        y = min(c[1] for c in p.cells)
        z = min(c[2] for c in p.cells)
        at = frame.px(cam.point(((min(xs) + max(xs) + 1) / 2, y - 0.55, z)))
        out.append(Text(at, p.label, FONT_SIZE, anchor="mm", halo=True))
    return out


def sheet_drawing(
    solutions: Sequence[tuple[str, Sequence[Part] | Drawing]],
    *,
    view: str | Sequence[float] = "front-right",
    unit: float = 22.0,
    title: str | None = None,
    legend: bool = True,
    grid: str = "cubes",
) -> Drawing:
    """Several solutions side by side (a contact sheet), each captioned, with a truthful legend.

    A solution is its parts, or a drawing made already (a chain's: `chain_drawing`, untitled).

    When every picture has the same pieces in the same colours, one legend to the right serves
    them all; otherwise (piece ranges: each solution uses other pieces; colours chosen per
    solution) each picture has its own, under its caption.
    """
    cam = projection(view)
    boxes = [(0.0, 0.0, p.width / unit, p.height / unit) if isinstance(p, Drawing)
             else _bounds(_cube_points(p, cam, grid)) for _, p in solutions]
    entries = [[] if isinstance(p, Drawing) else legend_entries(p) for _, p in solutions]
    own = legend and any(e != entries[0] for e in entries)
    legend = legend and bool(entries and entries[0])
    small = FONT_SIZE * 0.8
    cell_w = max(max(b[2] - b[0] for b in boxes) * unit, 150.0 if own else 0.0)
    cell_h = max(b[3] - b[1] for b in boxes) * unit
    legends = [_legend_rows(e, 0.0, 0.0, small, cell_w) for e in entries] if own else []
    below = max((h for _, h in legends), default=0.0)
    n = max(1, len(solutions))
    # a little wider than tall, with as few empty places in the last row as possible
    widths = range(math.ceil(math.sqrt(n)), math.ceil(math.sqrt(n * 1.8)) + 1)
    cols = min(n, min(widths, key=lambda c: (-(n % c == 0), (-n) % c, c)))
    gap, margin = 18.0, 16.0
    top = margin + (FONT_SIZE * 1.8 if title else 0)
    shapes: list[Shape] = []
    panels: list[tuple[float, float, float, float]] = []
    caption = FONT_SIZE * 0.9
    panel_h = cell_h + caption * 1.6 + (below + small * 0.4 if own else 0)
    for i, ((name, parts), box) in enumerate(zip(solutions, boxes, strict=True)):
        cx = margin + (i % cols) * (cell_w + gap)
        cy = top + (i // cols) * (panel_h + gap)
        frame = Frame(unit, (cx + (cell_w - (box[2] - box[0]) * unit) / 2 - box[0] * unit, cy - box[1] * unit))
        if isinstance(parts, Drawing):
            shapes += _mapped(parts.shapes, 1.0, frame.origin)
        else:
            shapes += part_shapes(parts, cam, frame, view, grid)
        shapes.append(Text((cx + cell_w / 2, cy + cell_h + caption * 1.1), _clipped(name, LEGEND_CHARS), caption,
                           anchor="ms"))
        if own:
            items, _ = _legend_rows(entries[i], cx, cy + cell_h + caption * 1.6, small, cell_w)
            shapes += items
        panels.append((cx, cy, cx + cell_w, cy + panel_h))
    rows = math.ceil(len(solutions) / cols)
    width = margin * 2 + cols * cell_w + (cols - 1) * gap
    height = top + rows * panel_h + (rows - 1) * gap + margin
    if solutions and legend and not own:
        items, w, h = _legend(entries[0], width, top, FONT_SIZE, max(height - top - margin, 200))
        shapes += items
        width += w + margin
        height = max(height, top + h + margin)
    if title:
        title = _title_fitted(title, width, FONT_SIZE * 1.1)
        shapes.append(Text((margin, margin + FONT_SIZE), title, FONT_SIZE * 1.1, anchor="ls"))
        width = max(width, margin * 2 + _text_width(title, FONT_SIZE * 1.1))
    return Drawing(math.ceil(width), math.ceil(height), shapes, panels)


CHAIN_COLORS = ("#f2d29b", "#b9783f")
"""Snake cubes are usually made of alternating light and dark wood."""
STRING = "#c0392b"


def chain_drawing(
    pieces: Mapping[str, Sequence[Sequence[int]]],
    *,
    view: str | Sequence[float] = "front-right",
    unit: float = 44.0,
    spread: float = 1.0,
    title: str | None = None,
) -> Drawing:
    """A folded chain: its cubes (a little smaller, so the string shows between them), numbered.

    Cube k sits at its cell times `spread` (1: folded tight; 1.7: pulled apart to see inside). The
    string's pieces between consecutive cubes are painted in depth order with the cubes.
    """
    cam = projection(view)
    order = sorted(pieces, key=int)
    centres: list[Vec] = []
    for label in order:
        c = pieces[label][0]
        centres.append(((c[0] + 0.5) * spread, (c[1] + 0.5) * spread, (c[2] + 0.5) * spread))
    half = 0.36
    pts = [cam.point((c[0] + sx * half, c[1] + sy * half, c[2] + sz * half))
           for c in centres for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    x0, y0, x1, y1 = _bounds(pts)
    margin = 16.0
    top = margin + (FONT_SIZE * 1.8 if title else 0)
    frame = Frame(unit, (margin - x0 * unit, top - y0 * unit))
    items: list[tuple[float, int, list[Shape]]] = []
    for k, mid_k in enumerate(centres):
        color = CHAIN_COLORS[k % 2]
        shapes: list[Shape] = []
        for n, step in enumerate(FACE_STEPS):
            if sum(step[i] * cam.toward[i] for i in range(3)) <= 1e-9:
                continue
            corners = [frame.px(cam.point(p)) for p in _scaled_face(mid_k, n, half)]
            shapes.append(Polygon(tuple(corners), shade(color, SHADE[n])))
            edge = shade(color, 0.35)
            shapes += [Line(corners[i], corners[(i + 1) % 4], edge, max(1.0, unit / 30)) for i in range(4)]
        shapes.append(Text(frame.px(cam.point(mid_k)), str(k), FONT_SIZE * unit / 44, INK, "mm", halo=True))
        items.append((cam.depth(mid_k), 1, shapes))
        if k + 1 < len(centres):
            a, b = mid_k, centres[k + 1]
            # only the part of the string between the two cubes can be seen
            t0, t1 = half / spread, 1 - half / spread
            p0 = tuple(a[i] + (b[i] - a[i]) * t0 for i in range(3))
            p1 = tuple(a[i] + (b[i] - a[i]) * t1 for i in range(3))
            mid = tuple((a[i] + b[i]) / 2 for i in range(3))
            line = Line(frame.px(cam.point(p0)), frame.px(cam.point(p1)), STRING, max(2.0, unit / 12))
            items.append((cam.depth(mid), 0, [line]))
    items.sort(key=lambda t: (t[0], t[1]))
    shapes_all = [s for _, _, group in items for s in group]
    width = margin * 2 + (x1 - x0) * unit
    height = top + (y1 - y0) * unit + margin
    if title:
        title = _title_fitted(title, width, FONT_SIZE * 1.1)
        shapes_all.append(Text((margin, margin + FONT_SIZE), title, FONT_SIZE * 1.1, anchor="ls"))
        width = max(width, margin * 2 + _text_width(title, FONT_SIZE * 1.1))
    return Drawing(math.ceil(width), math.ceil(height), shapes_all)


def _scaled_face(c: Vec, normal: int, half: float) -> list[Vec]:
    """A face of the cube of half-side `half` centred at c (face_corners of a unit cube, scaled)."""
    unit_corners = face_corners((0, 0, 0), normal)
    return [(c[0] + (p[0] - 0.5) * 2 * half, c[1] + (p[1] - 0.5) * 2 * half, c[2] + (p[2] - 0.5) * 2 * half)
            for p in unit_corners]


# -- writers --------------------------------------------------------------------------------


def to_svg(drawing: Drawing) -> bytes:
    """The drawing as a standalone SVG document (UTF-8).

    Every attribute and text node that is not a number goes through `markup`: colours are checked
    when a puzzle is read, and names are text, but a drawing may be made in code from anything."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{drawing.width}" height="{drawing.height}" '
        f'viewBox="0 0 {drawing.width} {drawing.height}">',
        f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>',
        '<g stroke-linecap="round" stroke-linejoin="round" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
    ]
    balls = sorted({s.color for s in drawing.shapes if isinstance(s, Ball)})
    if balls:  # one radial gradient per ball colour: lit from the upper left, darker at the rim
        out.append("<defs>" + "".join(
            f'<radialGradient id="ball{i}" cx="0.38" cy="0.35" r="0.65">'
            f'<stop offset="0" stop-color="{markup(mix(c, "#ffffff", 0.55))}"/>'
            f'<stop offset="0.55" stop-color="{markup(c)}"/>'
            f'<stop offset="1" stop-color="{markup(shade(c, 0.45))}"/></radialGradient>'
            for i, c in enumerate(balls)) + "</defs>")
    gradient = {c: i for i, c in enumerate(balls)}
    for s in drawing.shapes:
        if isinstance(s, Ball):
            out.append(f'<circle cx="{s.at[0]:.1f}" cy="{s.at[1]:.1f}" r="{s.radius:.1f}" fill="url(#ball'
                       f'{gradient[s.color]})" stroke="{markup(shade(s.color, 0.35))}" stroke-width="0.6"/>')
        elif isinstance(s, Polygon):
            pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in s.points)
            fill = markup(s.fill)
            out.append(f'<polygon points="{pts}" fill="{fill}" stroke="{fill}" stroke-width="0.5"/>')
        elif isinstance(s, Line):
            out.append(f'<line x1="{s.a[0]:.1f}" y1="{s.a[1]:.1f}" x2="{s.b[0]:.1f}" y2="{s.b[1]:.1f}" '
                       f'stroke="{markup(s.color)}" stroke-width="{s.width:.2f}"/>')
        else:
            anchor = {"l": "start", "m": "middle", "r": "end"}[s.anchor[0]]
            base = ' dominant-baseline="central"' if s.anchor[1] == "m" else ""
            halo = (' stroke="#ffffff" stroke-width="3" paint-order="stroke"' if s.halo else "")
            out.append(f'<text x="{s.at[0]:.1f}" y="{s.at[1]:.1f}" font-size="{s.size:.1f}" fill="{markup(s.color)}" '
                       f'text-anchor="{anchor}"{base}{halo}>{markup(s.text)}</text>')
    out.append("</g></svg>")
    return ("\n".join(out) + "\n").encode("utf-8")


SUPERSAMPLE = 2
"""PNGs are painted at twice the size and shrunk: smooth edges without a vector library."""


def to_png(drawing: Drawing) -> bytes:
    """The drawing as a PNG, painted with Pillow at SUPERSAMPLE times the size, then reduced."""
    from PIL import Image, ImageDraw, ImageFont

    check("max_pixels", f"the picture of {drawing.width}x{drawing.height} pixels", drawing.width * drawing.height)
    k = SUPERSAMPLE
    img = Image.new("RGB", (drawing.width * k, drawing.height * k), BACKGROUND)
    pen = ImageDraw.Draw(img)
    fonts: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}
    for s in drawing.shapes:
        if isinstance(s, Ball):
            _png_ball(pen, s, k)
        elif isinstance(s, Polygon):
            pts = [(x * k, y * k) for x, y in s.points]
            pen.polygon(pts, fill=s.fill, outline=s.fill)
        elif isinstance(s, Line):
            pen.line([(s.a[0] * k, s.a[1] * k), (s.b[0] * k, s.b[1] * k)], fill=s.color,
                     width=max(1, round(s.width * k)))
        else:
            size = round(s.size * k)
            if size not in fonts:
                fonts[size] = ImageFont.load_default(size=size)
            pen.text((s.at[0] * k, s.at[1] * k), s.text, fill=s.color, font=fonts[size], anchor=s.anchor,
                     stroke_width=round(1.5 * k) if s.halo else 0, stroke_fill="#ffffff")
    img = img.resize((drawing.width, drawing.height), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


BALL_RINGS = 14
"""A PNG ball is this many discs, each smaller, lighter and nearer the highlight than the last."""


def _png_ball(pen: ImageDraw.ImageDraw, ball: Ball, k: float) -> None:
    """A shaded ball as Pillow can paint it: the rim's dark disc, then discs shrinking towards the
    highlight at the upper left, from the colour shaded down to the colour mixed with white."""
    cx, cy, r = ball.at[0] * k, ball.at[1] * k, ball.radius * k
    pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=shade(ball.color, 0.35))
    hx, hy = cx - 0.3 * r, cy - 0.32 * r
    for i in range(BALL_RINGS):
        t = i / (BALL_RINGS - 1)
        rr = r * (0.97 - 0.85 * t)
        x, y = cx + (hx - cx) * t, cy + (hy - cy) * t
        color = shade(ball.color, 0.55 + 0.45 * t / 0.6) if t < 0.6 else mix(ball.color, "#ffffff", (t - 0.6) * 1.2)
        pen.ellipse((x - rr, y - rr, x + rr, y + rr), fill=color)


def encode(drawing: Drawing, fmt: str) -> bytes:
    if fmt == "svg":
        return to_svg(drawing)
    if fmt == "png":
        return to_png(drawing)
    raise ValueError(f"unknown picture format {fmt!r}")


# -- the pictures the command line offers ---------------------------------------------------


def is_chain(pieces: Mapping[str, Sequence[Sequence[int]]]) -> bool:
    """A chain's solution labels are its cube numbers, one cell each."""
    return all(label.isdigit() and len(cells) == 1 for label, cells in pieces.items())


def draw_solution(
    pieces: Mapping[str, Sequence[Sequence[int]]],
    colors: Mapping[str, str | None] | None = None,
    *,
    view: str = "front-right",
    explode: bool = False,
    title: str | None = None,
    unit: float = 44.0,
    marks: Mapping[str, Mapping[Cell, tuple[str, str]]] | None = None,
    grid: str = "cubes",
) -> Drawing:
    """One solution (`{label: cells}`): a chain is drawn as a chain, anything else as coloured pieces
    (with their constraint colours, `scene.constraint_marks`) on their `grid`."""
    from .scene import parts_of

    if grid == "cubes" and is_chain(pieces):
        return _folded_chain(pieces, view, explode, unit, title)
    parts = parts_of(pieces, colors, marks=marks)
    if explode:
        parts = exploded(parts, view) if grid == "cubes" else grid_exploded(parts, grid)
    return solution_drawing(parts, view=view, title=title, unit=unit, grid=grid)


def _folded_chain(
    pieces: Mapping[str, Sequence[Sequence[int]]], view: str, explode: bool, unit: float, title: str | None
) -> Drawing:
    # Seen exactly along a cube diagonal, a folded chain's cubes hide one behind the other: turn a little.
    v = VIEWS[view]
    return chain_drawing(pieces, view=(v[0], v[1] * 0.45, v[2] * 0.6), unit=unit * 0.8,
                         spread=2.2 if explode else 1.6, title=title)


def draw_sheet(
    solutions: Sequence[tuple[str, Mapping[str, Sequence[Sequence[int]]]]],
    colors: Mapping[str, str | None] | None = None,
    names: Sequence[str] = (),
    *,
    view: str = "front-right",
    explode: bool = False,
    title: str | None = None,
    marks: Sequence[Mapping[str, Mapping[Cell, tuple[str, str]]]] = (),
    grid: str = "cubes",
) -> Drawing:
    """A contact sheet of (caption, solution) pairs, each drawn with its own pieces and cells (and
    `marks`, each solution's constraint colours).

    Colours come from `scene.solution_colors` over all of them (the same piece in the same colour
    on every picture where the palette allows it); chains are drawn as chains.
    """
    from .scene import parts_of, solution_colors

    palettes = solution_colors([p for _, p in solutions], colors, names)
    items: list[tuple[str, Sequence[Part] | Drawing]] = []
    for i, ((caption, pieces), palette) in enumerate(zip(solutions, palettes, strict=True)):
        if grid == "cubes" and is_chain(pieces):
            items.append((caption, _folded_chain(pieces, view, explode, 22.0, None)))
            continue
        parts = parts_of(pieces, palette=palette, marks=marks[i] if marks else None)
        if explode:
            parts = exploded(parts, view) if grid == "cubes" else grid_exploded(parts, grid)
        items.append((caption, parts))
    return sheet_drawing(items, view=view, title=title, grid=grid)


def unfolded_chain(chain: Chain) -> dict[str, list[Cell]]:
    """The chain lying flat and unfolded: straight where its cubes are aligned, turning where not.

    Turns alternate between +x and +y, a staircase that never crosses itself, so the picture of
    the puzzle before it is solved shows the segment lengths as they are.
    """
    turns = {j.cube for j in chain.joints if j.kind == "NOT_ALIGNED"}
    steps = ((1, 0, 0), (0, 1, 0))
    at, heading = (0, 0, 0), 0
    out: dict[str, list[Cell]] = {"0": [at]}
    for k in range(1, chain.n):
        if k in turns:  # NOT_ALIGNED on cube k: the chain turns at cube k - 1
            heading ^= 1
        s = steps[heading]
        at = (at[0] + s[0], at[1] + s[1], at[2] + s[2])
        out[str(k)] = [at]
    return out


def pieces_drawing(
    pieces: Sequence[tuple[str, Sequence[Cell], str | None]], *, view: str = "front-right", title: str | None = None,
    grid: str = "cubes",
) -> Drawing:
    """The puzzle before it is solved: each piece (name, cells, colour) lying flat in its own frame, named
    (on the other grids, as the file gives it)."""
    from .scene import piece_colors, piece_set

    colors = piece_colors([n for n, _, _ in pieces], {n: c for n, _, c in pieces})
    if grid != "cubes":
        laid = tuple(Part(n, n, colors[n], tuple(cells)) for n, cells, _ in pieces)
    else:
        laid = piece_set([(n, cells, colors[n]) for n, cells, _ in pieces])
    return sheet_drawing([(p.label, (p,)) for p in laid], view=view, unit=30.0, title=title, legend=False, grid=grid)


__all__ = [
    "Drawing", "Polygon", "Line", "Text", "base_name", "chain_drawing", "draw_sheet", "draw_solution", "encode",
    "fitted", "pieces_drawing", "sheet_drawing", "solution_drawing", "to_png", "to_svg",
]
