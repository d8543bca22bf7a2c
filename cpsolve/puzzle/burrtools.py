"""Reading BurrTools puzzle files (`.xmpuzzle`): problems on any of its five grids become cpsolve puzzles.

BurrTools (Andreas Röver, burr-tools/burr-tools on GitHub, GPL) saves a puzzle as gzip-compressed
XML (version 2): a list of shapes (voxel boxes), then problems that name some shapes as pieces, one
as the result, and optionally store assemblies found. This reader is written from the format's
description, not from BurrTools' code. What it maps:

- a voxel string holds one character per cell of an x*y*z box, x fastest: `_` empty, `#` filled,
  `+` filled but may stay empty (result only), each optionally followed by a colour number;
- a problem's parts give counts (`count=`) or ranges (`min=`/`max=`) and group numbers;
- the colour bitmap lists the allowed (piece colour, result colour) pairs;
- `<gridType type=N>` names the grid (0 cubes, 1 triangular prisms, 2 spheres, 3 rhombic, 4 tetra-octa:
  `grid.BY_BURR_TYPE`); the voxel box is the same on every grid, and each stored assembly names its
  pieces' turns in that grid's own numbering (`burrtools_placements.burr_offsets`), except on the sphere
  grid, whose numbering is a list of BurrTools' own that cpsolve does not copy: there the turns are found
  from the pieces' positions (`burrtools_placements.sphere_assembly`).

Why a separate parse step (`parse_xmpuzzle`): the raw shapes (with BurrTools' box coordinates and
hotspots) are needed to read the stored assemblies, and both the puzzle (`read_xmpuzzle`) and the
YAML file of `cpsolve import` (`puzzle_data`) are made from them. The puzzle is built here without
the YAML schema (pydantic takes longer to load than the whole file to read), through the checks a
YAML file gets (`checks.py` for one field, `model.packing` for the whole), and a test holds that the
YAML file `cpsolve import` writes loads as the same puzzle. The stored assemblies are read as cells in
`burrtools_placements.py`, with BurrTools' numbering of the turns, which reading the puzzle does not need.
Bytes are decoded as UTF-8 with a Latin-1 fall-back: real files hold Latin-1 names without
declaring an encoding.
"""

from __future__ import annotations

import gzip
import io
import re
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CpsolveError, unreadable
from ..limits import active, check
from .checks import check_container_cells, check_count_range, check_piece_shape
from .geometry import Cell
from .grid import BY_BURR_TYPE, Grid
from .model import Puzzle, make_piece, packing
from .names import check_puzzle_names, distinct, import_name

if TYPE_CHECKING:
    from .writer import Line


@dataclass(frozen=True)
class BurrShape:
    """One `<voxel>`: its box size, cells with state ('#' fixed, '+' variable) and colour (0 = none)."""

    name: str | None
    size: tuple[int, int, int]
    cells: tuple[tuple[Cell, str, int], ...]
    hotspot: Cell = (0, 0, 0)

    def filled(self) -> tuple[Cell, ...]:
        return tuple(c for c, _, _ in self.cells)


@dataclass(frozen=True)
class Part:
    """One `<shape>` entry of a problem: a piece shape used between `low` and `high` times."""

    shape: int
    low: int
    high: int
    groups: tuple[int, ...] = ()


@dataclass(frozen=True)
class StoredAssembly:
    """An assembly stored in a problem: per part and copy, (x, y, z, transformation) or None (unplaced)."""

    placements: tuple[tuple[int, int, int, int] | None, ...]
    asm_num: int | None = None
    sol_num: int | None = None
    level: tuple[int, ...] | None = None
    """The level of the disassembly BurrTools stored with it (`<separation>` or `<separationInfo>`), if any."""


@dataclass(frozen=True)
class BurrProblem:
    name: str | None
    parts: tuple[Part, ...]
    result: int
    color_pairs: tuple[tuple[int, int], ...]
    max_holes: int | None
    state: int
    assemblies: int | None
    solutions: int | None
    stored: tuple[StoredAssembly, ...] = ()


@dataclass(frozen=True)
class BurrFile:
    grid: int
    n_colors: int
    shapes: tuple[BurrShape, ...]
    problems: tuple[BurrProblem, ...]
    comment: str = ""
    where: str = field(default="", compare=False)


# ------------------------------------------------------------------------------------------ parsing


def _read_bytes(path: Path) -> bytes:
    """The XML bytes, gunzipped if need be; the file and what it unpacks to are held to the file-size
    limit (a few hundred gzip bytes can unpack to gigabytes)."""
    limit = active().max_file_bytes
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        check("max_file_bytes", "the file's size in bytes", len(raw))
        if raw[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unpacked:
                    raw = unpacked.read(limit + 1)
            except (OSError, EOFError, zlib.error) as exc:  # zlib's own error for a damaged deflate stream
                raise CpsolveError(f"not a readable gzip file: {exc}") from None
            check("max_file_bytes", "the unpacked file's size in bytes", len(raw))
    except CpsolveError as exc:
        raise exc.located(str(path)) from None
    return raw


def _decode(raw: bytes) -> str:
    """The XML text: the declared encoding if any, else UTF-8, else Latin-1 (which never fails)."""
    declared = re.match(rb"""<\?xml[^>]*encoding=["']([A-Za-z0-9_.:-]+)["']""", raw)
    if declared:
        try:
            return raw.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _int(el: ET.Element, attr: str, where: str, default: int | None = None) -> int:
    text = el.get(attr)
    if text is None:
        if default is None:
            raise CpsolveError(f"<{el.tag}> has no attribute {attr!r}", where=where, field=el.tag)
        return default
    try:
        return int(text)
    except ValueError:
        raise CpsolveError(f"attribute {attr}={text!r} is not a whole number", where=where, field=el.tag) from None


_RUN = re.compile(r"([_#+])(\d*)")


def _voxel(el: ET.Element, index: int, where: str, grid: Grid) -> BurrShape:
    field_ = f"shapes.{index}"
    sx, sy, sz = (_int(el, a, where) for a in ("x", "y", "z"))
    if min(sx, sy, sz) < 0:
        raise CpsolveError("a voxel box size is negative", where=where, field=field_)
    try:  # a box of a sparse grid holds fewer cells than triples (rhombic: 24 in 125)
        check("max_cells", "the voxel box's cells" if grid.burr_type else "the voxel box's volume",
              int(sx * sy * sz * grid.density), field_)
    except CpsolveError as exc:
        raise exc.located(where) from None
    if _int(el, "type", where, 0) != 0:
        raise CpsolveError("voxel type other than 0 is not a cube-grid shape", where=where, field=field_)
    text = (el.text or "").strip()
    tokens = _RUN.findall(text)
    if "".join(a + b for a, b in tokens) != text:
        raise CpsolveError("voxel string holds characters other than _ # + and colour numbers", where=where,
                           field=field_)
    if len(tokens) != sx * sy * sz:
        raise CpsolveError(f"voxel string has {len(tokens)} cells, the box {sx}x{sy}x{sz} has {sx * sy * sz}",
                           where=where, field=field_)
    cells = []
    for i, (state, colour) in enumerate(tokens):
        if state != "_":
            c = (i % sx, (i // sx) % sy, i // (sx * sy))
            if not grid.is_cell(c):
                raise CpsolveError(f"cell {list(c)} is filled but is no cell of the {grid.title} grid", where=where,
                                   field=field_)
            cells.append((c, state, int(colour or 0)))
    hot = tuple(_int(el, a, where, 0) for a in ("hx", "hy", "hz"))
    return BurrShape(el.get("name"), (sx, sy, sz), tuple(cells), hot)  # type: ignore[arg-type]


def _assembly(text: str, where: str, field_: str) -> tuple[tuple[int, int, int, int] | None, ...]:
    tokens = text.split()
    out: list[tuple[int, int, int, int] | None] = []
    i = 0
    try:
        while i < len(tokens):
            if tokens[i] == "x":
                out.append(None)
                i += 1
            else:
                x, y, z, t = (int(v) for v in tokens[i:i + 4])
                if len(tokens[i:i + 4]) != 4 or not 0 <= t < 240:
                    raise ValueError
                out.append((x, y, z, t))
                i += 4
    except ValueError:
        raise CpsolveError("malformed <assembly> (want 'x y z t' or 'x' per piece)", where=where,
                           field=field_) from None
    return tuple(out)


_Tree = tuple[int, "_Tree | None", "_Tree | None"]
"""A stored separation: its moves, then its left and removed sub-trees."""


def _stored_level(sol: ET.Element) -> tuple[int, ...] | None:
    """The level of the disassembly stored with a solution, as BurrTools computes it (`movesText`): a
    node's moves are its states less one; a sub-tree adds its figures when it has a step of more than
    one move. From the full tree (`<separation>`: a node, its `<state>`s, then its `left` and `removed`
    sub-trees) or the compact one (`<separationInfo>`: moves + 1 per node in preorder, 0 for none)."""
    def from_element(el: ET.Element) -> _Tree:
        subs = {c.get("type"): c for c in el if c.tag == "separation"}
        return (len(el.findall("state")) - 1,
                *(from_element(subs[k]) if k in subs else None for k in ("left", "removed")))  # type: ignore[return-value]

    def from_info(values: list[int]) -> _Tree | None:
        v = values.pop(0)
        if v == 0:
            return None
        return (v - 1, from_info(values), from_info(values))

    def multi(t: _Tree | None) -> bool:
        return t is not None and (t[0] > 1 or multi(t[1]) or multi(t[2]))

    def level(t: _Tree) -> list[int]:
        return [t[0], *(f for sub in t[1:] if sub is not None and multi(sub) for f in level(sub))]

    try:
        tree = sol.find("separation")
        if tree is not None:
            return tuple(level(from_element(tree)))
        info = sol.find("separationInfo")
        if info is not None and (got := from_info([int(v) for v in (info.text or "").split()])) is not None:
            return tuple(level(got))
    except (ValueError, IndexError, RecursionError):
        pass  # a damaged tree only loses this figure, which is never needed to read the puzzle
    return None


def _problem(el: ET.Element, index: int, where: str) -> BurrProblem:
    field_ = f"problems.{index}"
    parts = []
    shapes_el = el.find("shapes")
    for s in shapes_el if shapes_el is not None else []:
        if s.tag != "shape":
            continue
        if s.get("count") is not None:
            low = high = _int(s, "count", where)
        else:
            low, high = _int(s, "min", where, 1), _int(s, "max", where, 1)
        groups = [_int(s, "group", where)] if s.get("group") is not None else []
        groups += [_int(g, "group", where) for g in s.findall("group")]
        parts.append(Part(_int(s, "id", where), low, high, tuple(g for g in groups if g)))
    result = el.find("result")
    if result is None:
        raise CpsolveError("the problem has no <result>", where=where, field=field_)
    pairs = tuple((_int(p, "piece", where), _int(p, "result", where)) for p in el.iter("pair"))
    stored = []
    for k, sol in enumerate(el.iter("solution")):
        asm = sol.find("assembly")
        if asm is None:
            continue
        stored.append(StoredAssembly(
            _assembly(asm.text or "", where, f"{field_}.solutions.{k}"),
            _int(sol, "asmNum", where) if sol.get("asmNum") else None,
            _int(sol, "solNum", where) if sol.get("solNum") else None,
            _stored_level(sol),
        ))
    holes = el.get("maxHoles")
    return BurrProblem(
        el.get("name"), tuple(parts), _int(result, "id", where), pairs,
        int(holes) if holes is not None and holes.lstrip("-").isdigit() and int(holes) >= 0 else None,
        _int(el, "state", where, 0),
        _int(el, "assemblies", where) if el.get("assemblies") else None,
        _int(el, "solutions", where) if el.get("solutions") else None,
        tuple(stored),
    )


def parse_xmpuzzle(path: str | Path) -> BurrFile:
    """The file's shapes and problems, checked for shape only (any grid); errors name the file."""
    path = Path(path)
    where = str(path)
    text = _decode(_read_bytes(path))
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise CpsolveError(f"not a BurrTools file: XML error {exc}", where=where) from None
    if root.tag != "puzzle":
        raise CpsolveError(f"not a BurrTools file: the root element is <{root.tag}>, not <puzzle>", where=where)
    version = root.get("version")
    if version not in ("1", "2"):
        raise CpsolveError(f"puzzle version {version!r} is not 1 or 2", where=where, field="version")
    grid_el = root.find("gridType")
    grid = _int(grid_el, "type", where, 0) if grid_el is not None else 0
    colors_el = root.find("colors")
    n_colors = len(colors_el.findall("color")) if colors_el is not None else 0
    shapes_el = root.find("shapes")
    if grid not in BY_BURR_TYPE:
        raise CpsolveError(f"gridType {grid} is none of BurrTools' five grids (0 to 4)", where=where,
                           field="gridType")
    voxels = shapes_el.findall("voxel") if shapes_el is not None else []
    shapes = tuple(_voxel(v, i, where, BY_BURR_TYPE[grid]) for i, v in enumerate(voxels))
    problems_el = root.find("problems")
    problems = tuple(_problem(p, i, where) for i, p in enumerate(problems_el.findall("problem"))) \
        if problems_el is not None else ()
    comment_el = root.find("comment")
    return BurrFile(grid, n_colors, shapes, problems, (comment_el.text or "") if comment_el is not None else "", where)


# ------------------------------------------------------------------------------------------ to cpsolve


def piece_names(bf: BurrFile, problem: BurrProblem) -> list[str]:
    """Piece names: the shape's own name as a name cpsolve accepts (`import_name`: control characters
    and `#`, which marks copies, replaced), else BurrTools' display name S<n> (1-based); made distinct.

    The file's names are not cpsolve's: a shape `W#1` beside two copies of `W` once shared the label
    of W's first copy, and every solution lost a piece."""
    return distinct(import_name(bf.shapes[part.shape].name or "", piece=True) or f"S{part.shape + 1}"
                    for part in problem.parts)


def _color_name(n: int) -> str:
    return f"c{n}"


def _drawing(cells: dict[Cell, str], size: tuple[int, int, int]) -> list[Line]:
    from .writer import drawing  # PyYAML's dumper: only `cpsolve import` writes YAML

    sx, sy, sz = size
    return drawing(("".join(cells.get((x, y, z), ".") for x in range(sx)) for y in range(sy)) for z in range(sz))


def _tight(cells: list[Cell], grid: Grid) -> tuple[list[Cell], tuple[int, int, int]]:
    """The cells moved by the legal translation that brings them nearest the origin, and their box."""
    dx, dy, dz = grid.shift_of(cells)
    moved = [(c[0] + dx, c[1] + dy, c[2] + dz) for c in cells]
    return moved, (max(c[0] for c in moved) + 1, max(c[1] for c in moved) + 1, max(c[2] for c in moved) + 1)


def select_problem(bf: BurrFile, problem: int) -> BurrProblem:
    """Problem number `problem` (0-based), refusing features cpsolve cannot model."""
    where = bf.where
    if not bf.problems:
        raise CpsolveError("the file holds no problem", where=where, field="problems")
    if not 0 <= problem < len(bf.problems):
        raise CpsolveError(f"the file holds {len(bf.problems)} problems (0 to {len(bf.problems) - 1}); "
                           f"there is no problem {problem}", where=where, field="problem")
    prob = bf.problems[problem]
    field_ = f"problems.{problem}"
    n = len(bf.shapes)
    for idx in (prob.result, *(p.shape for p in prob.parts)):
        if not 0 <= idx < n:
            raise CpsolveError(f"shape {idx} does not exist (the file has {n})", where=where, field=field_)
    if prob.max_holes is not None:
        raise CpsolveError("maxHoles (a limit on empty optional cells) is not modelled by cpsolve",
                           where=where, field=f"{field_}.maxHoles")
    for part in prob.parts:
        shape = bf.shapes[part.shape]
        label = shape.name or f"S{part.shape + 1}"
        if any(state == "+" for _, state, _ in shape.cells):
            raise CpsolveError(f"shape {label} has variable ('+') cells; only the result may have them",
                               where=where, field=field_)
        if not shape.cells:
            raise CpsolveError(f"shape {label} is empty", where=where, field=field_)
    return prob


def _titles(bf: BurrFile, prob: BurrProblem, problem: int) -> tuple[str, str, str]:
    """The puzzle's name, description and source, made of names cpsolve accepts."""
    title = import_name(prob.name or "") or f"problem {problem}"
    name = (import_name(Path(bf.where).stem) or "burrtools") + (f"-{problem}" if len(bf.problems) > 1 else "")
    file = import_name(Path(bf.where).name)
    return name, f"{title} (imported from BurrTools file {file})", f"BurrTools file {file}, problem {problem}"


def puzzle_data(bf: BurrFile, problem: int = 0) -> dict[str, Any]:
    """The cpsolve puzzle file (as plain data, ready for YAML) of one problem of a BurrTools file."""
    prob = select_problem(bf, problem)
    grid = BY_BURR_TYPE[bf.grid]
    names = piece_names(bf, prob)
    result = bf.shapes[prob.result]
    marks = {c: ("+" if state == "+" else "#") for c, state, _ in result.cells}
    container: dict[str, Any] = {"layers": _drawing(marks, result.size)}
    colored: dict[str, list[list[int]]] = {}
    for c, _, colour in result.cells:
        if colour:
            colored.setdefault(_color_name(colour), []).append(list(c))
    if colored:
        container["cell_colors"] = colored
    pieces: dict[str, Any] = {}
    groups: dict[int, list[str]] = {}
    for name, part in zip(names, prob.parts, strict=True):
        if part.high <= 0:
            continue  # a part that may be used 0 times at most is no part
        shape = bf.shapes[part.shape]
        cells, size = _tight(list(shape.filled()), grid)
        by_cell = dict(zip(cells, (colour for _, _, colour in shape.cells), strict=True))
        spec: dict[str, Any] = {"layers": _drawing(dict.fromkeys(cells, "#"), size)}
        if part.low != part.high:
            spec["count"] = {"min": part.low, "max": part.high}
        elif part.high != 1:
            spec["count"] = part.high
        piece_colors: dict[str, list[list[int]]] = {}
        for c, colour in by_cell.items():
            if colour:
                piece_colors.setdefault(_color_name(colour), []).append(list(c))
        if piece_colors:
            spec["cell_colors"] = piece_colors
        pieces[name] = spec
        for g in part.groups:
            groups.setdefault(g, []).append(name)
    name, description, source = _titles(bf, prob, problem)
    data: dict[str, Any] = {
        "name": name,
        "description": description,
        "source": source,
        **({"grid": grid.name} if grid.name != "cubes" else {}),
        "container": container,
        "pieces": pieces,
    }
    if prob.color_pairs or colored or any("cell_colors" in p for p in pieces.values()):
        rules: dict[str, list[str]] = {}
        for p, r in prob.color_pairs:
            rules.setdefault(_color_name(p + 1), []).append(_color_name(r + 1))
        data["color_rules"] = rules
    if groups:
        data["groups"] = [members for _, members in sorted(groups.items())]
    return data


def read_xmpuzzle(path: str | Path, problem: int = 0, *, strict: bool = True) -> Puzzle:
    """Problem number `problem` (0-based) of a BurrTools `.xmpuzzle` file as a cpsolve puzzle (`strict`:
    as `to_puzzle`): the puzzle `puzzle_data`'s YAML file loads as, built without it."""
    return puzzle_of(parse_xmpuzzle(path), problem, strict=strict)


def puzzle_of(bf: BurrFile, problem: int = 0, *, strict: bool = True) -> Puzzle:
    """`read_xmpuzzle` of a file already parsed (a reader of its stored assemblies needs both)."""
    try:
        return _puzzle(bf, problem, strict)
    except CpsolveError as exc:
        raise exc.located(bf.where) from None


def _puzzle(bf: BurrFile, problem: int, strict: bool) -> Puzzle:
    prob = select_problem(bf, problem)
    grid = BY_BURR_TYPE[bf.grid]
    names = piece_names(bf, prob)
    result = bf.shapes[prob.result]
    container = tuple(sorted(c for c, _, _ in result.cells))
    _checked(check_container_cells, "container.layers", container)
    optional = tuple(sorted(c for c, state, _ in result.cells if state == "+"))
    container_colors = tuple(sorted((c, _color_name(colour)) for c, _, colour in result.cells if colour))
    pieces = []
    groups: dict[int, list[str]] = {}
    for name, part in zip(names, prob.parts, strict=True):
        if part.high <= 0:
            continue  # a part that may be used 0 times at most is no part (as in `puzzle_data`)
        shape = bf.shapes[part.shape]
        cells, _ = _tight(list(shape.filled()), grid)
        _checked(check_piece_shape, f"pieces.{name}", tuple(sorted(cells)), grid)
        if part.low != part.high:
            _checked(check_count_range, f"pieces.{name}.count", part.low, part.high)
        colours = tuple(sorted((c, _color_name(colour)) for c, (_, _, colour) in zip(cells, shape.cells, strict=True)
                               if colour))
        pieces.append(make_piece(name, tuple(sorted(cells)), part.low, part.high, len(container), None, colours))
        for g in part.groups:
            groups.setdefault(g, []).append(name)
    rules = frozenset((_color_name(p + 1), _color_name(r + 1)) for p, r in prob.color_pairs)
    name, description, source = _titles(bf, prob, problem)
    check_puzzle_names(name, description, source, {p.name: {c for _, c in p.colors} for p in pieces},
                       {c for _, c in container_colors}, [(a, c) for a, b in rules for c in (a, b)])
    return packing(name, container, tuple(pieces), optional=optional, container_colors=container_colors,
                   color_rules=rules, groups=[members for _, members in sorted(groups.items())],
                   description=description, source=source, origin=bf.where, strict=strict, grid=grid.name)


def _checked(check: Any, field: str, *values: Any) -> None:
    """A check of `checks.py`, its ValueError reported under `field` (as a YAML file's would be)."""
    try:
        check(*values)
    except ValueError as exc:
        raise CpsolveError(str(exc), field=field) from None
