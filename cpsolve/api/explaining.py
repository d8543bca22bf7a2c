"""Why not (`explain`): why a puzzle has no assembly, why an assembly does not come apart, what the
solutions of a puzzle share; the `Explanation` with its text, JSON, picture and page.
"""

from __future__ import annotations

import builtins
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import CpsolveError
from ..output.text import markup
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle
from .common import PathLike, _frozen
from .pictures import draw
from .results import Solution
from .running import run
from .sources import _kind_of, read_solutions

if TYPE_CHECKING:
    from ..analysis.explain import Report as ExplainReport
    from ..analysis.explain.counting import ColourArgument, Scheme


_HEADLINES = {"no-assembly": "no assembly", "stuck": "does not come apart", "comes-apart": "comes apart",
              "unique": "one solution", "several": "several solutions", "unknown": "no explanation found"}


@dataclass(frozen=True)
class Explanation:
    """Why not (`cpsolve explain`): why a puzzle has no assembly, why an assembly does not come apart,
    or what the solutions of a puzzle share and where they differ.

    `case` is "no-assembly", "stuck", "comes-apart", "unique", "several" or "unknown" (the deadline
    passed first); `argument` names what was found: "volume", "no-placement", "unreachable-cell",
    "colouring" or "core" (no assembly), "blocking" (stuck), "backbone" (unique, several),
    "comes-apart", or "none". Every claim was checked again before it was reported; `minimal` is
    True only for a core checked to be minimal. `str()` is the text `cpsolve explain` prints,
    `as_json()` its `--json` object, `picture()` and `page()` its drawings.
    """

    puzzle: str
    case: str
    argument: str
    size: int | None
    """How big the argument is: a core's parts, a colouring's colours weighed, the pieces to remove..."""
    minimal: bool | None
    seconds: float
    tried: tuple[str, ...]
    """The arguments tried, cheapest first; the last one is the argument found."""
    lines: tuple[str, ...]
    """The explanation in words, one line each (what `str()` prints below its heading)."""
    index: int | None = None
    """The solution explained (an assembly), when there is one."""
    _report: ExplainReport | None = field(default=None, repr=False, compare=False)
    _puzzle: Puzzle | None = field(default=None, repr=False, compare=False)

    @property
    def _finding(self) -> object:
        return None if self._report is None else self._report.finding

    def as_json(self) -> dict[str, object]:
        finding = self._report.finding if self._report is not None else None
        return {"puzzle": self.puzzle, "index": self.index, "case": self.case, "argument": self.argument,
                "size": self.size, "minimal": self.minimal, "seconds": round(self.seconds, 3),
                "tried": list(self.tried), "text": list(self.lines),
                "detail": finding.as_json() if finding is not None else None}

    def __str__(self) -> str:
        """The text `cpsolve explain` prints: names from files shown as a terminal should (`printable`)."""
        from ..output.text import printable

        which = f", solution {self.index}" if self.index is not None else ""
        out = [f"{self.puzzle}{which}: {_HEADLINES.get(self.case, self.case)}", *self.lines]
        drawing = self._drawing()
        return "\n".join([printable(line) for line in out] + (["", drawing] if drawing else [])) + "\n"

    def _drawing(self) -> str | None:
        """The cells an argument names, drawn as z-layers (a core's, a colouring's, unreachable ones)."""
        from ..analysis.explain import CoreArgument
        from ..analysis.explain.counting import ColourArgument, Uncovered
        from ..output.text import draw as layers

        finding = self._finding
        container = self._puzzle.container if self._puzzle is not None else ()
        if not container or len(container) > 512:  # a drawing of more cells than that helps no one read it
            return None
        if isinstance(finding, CoreArgument) and (finding.fill or len(finding.apart) < len(container)):
            marked = {**{c: "o" for c in finding.apart}, **{c: "X" for c in finding.fill}}
            legend = "X: must be covered (no overlap)   o: no overlap   .: free (pieces may overlap, or leave it empty)"
        elif isinstance(finding, Uncovered):
            marked = {c: "X" for c in finding.cells}
            legend = "X: no piece reaches it"
        elif isinstance(finding, ColourArgument):
            scheme = _scheme(finding)
            colours = sorted({scheme.colour(c) for c in container})
            symbols = "wb" if len(colours) == 2 else "0123456789"
            marked = {c: symbols[colours.index(scheme.colour(c))] for c in container}
            legend = "   ".join(f"{symbols[i]}: {name}" for i, name in builtins.enumerate(finding.colours))
        else:
            return None
        kinds: dict[str, list[Cell]] = {}
        for c in container:
            kinds.setdefault(marked.get(c, "."), []).append(c)
        legend = "   ".join(item for item in legend.split("   ") if item[0] in kinds)
        return layers(kinds, " ", {k: k for k in kinds}) + "\n" + legend

    def picture(self, format: Literal["png", "svg"] = "png", *, view: str = "front-right") -> bytes:
        """The explanation as a picture: the cells an argument names (container whole, then layer by
        layer) with the pieces it names; an assembly with its blockers (or its moving pieces) in red."""
        from ..analysis.explain import ComesApart, CoreArgument
        from ..analysis.explain.counting import ColourArgument, NoPlacement, Uncovered, Volume
        from ..analysis.explain.stuck import Blocked
        from ..analysis.explain.unique import Uniqueness
        from ..output import pictures
        from ..output.explain import cells_drawing, labels, marked_drawing
        from ..output.scene import VIEWS

        if format not in ("png", "svg"):
            raise CpsolveError(f"unknown picture format {format!r} (known: png, svg)", field="format")
        if view not in VIEWS:
            raise CpsolveError(f"unknown view {view!r} (known: {', '.join(VIEWS)})", field="view")
        finding = self._finding
        title = f"{self.puzzle}: {_HEADLINES.get(self.case, self.case)}"
        puzzle = self._puzzle
        container = list(puzzle.container) if puzzle is not None else []
        shapes = {p.name: p.shape for p in puzzle.pieces} if puzzle is not None else {}
        if isinstance(finding, Volume) and puzzle is not None:
            return draw(puzzle, format, view=view, title=f"{title} (volume)")
        if isinstance(finding, NoPlacement):
            drawing = cells_drawing([("container", container)], [(finding.piece, shapes[finding.piece])], view=view,
                                    title=f"{title}: {finding.piece} fits nowhere", layers=False)
        elif isinstance(finding, Uncovered):
            rest = [c for c in container if c not in set(finding.cells)]
            drawing = cells_drawing([("unreachable", finding.cells), ("container", rest)], view=view, title=title)
        elif isinstance(finding, ColourArgument):
            scheme = _scheme(finding)
            colours = sorted({scheme.colour(c) for c in container})
            kinds = [(name, [c for c in container if scheme.colour(c) == v])
                     for name, v in zip(finding.colours, colours, strict=True)]
            drawing = cells_drawing(kinds, view=view, title=f"{title}: {finding.scheme}")
        elif isinstance(finding, CoreArgument):
            used = set(finding.fill) | set(finding.apart)
            kinds = [("must be covered", list(finding.fill)), ("kept apart", list(finding.apart)),
                     ("free", [c for c in container if c not in used])]
            drawing = cells_drawing(kinds, [(n, shapes[n]) for n, _ in finding.pieces if n in shapes], view=view,
                                    title=f"{title}: a core of {finding.size} parts")
        elif isinstance(finding, Blocked):
            states = [("start", finding.start)] + ([("most open state", finding.open_state)] if finding.open_moves
                                                   else [])
            red = f"{title}; red: {' '.join(finding.blockers())}" if finding.blockers() else title
            drawing = marked_drawing(states, finding.blockers(), view=view, title=red)
        elif isinstance(finding, ComesApart):
            drawing = marked_drawing([("assembled", finding.pieces)], (), view=view, title=title)
        elif isinstance(finding, Uniqueness):
            marked = [p for p, _ in finding.moving] if finding.case == "several" else [finding.key or ""]
            which = "the pieces that move" if finding.case == "several" else "the key"
            drawing = marked_drawing([("solution 0", labels(finding.solution))], marked, view=view,
                                     title=f"{title}; red: {which}")
        else:
            raise CpsolveError("nothing to draw: no explanation was found", where=self.puzzle, exit_code=1)
        return pictures.encode(drawing, format)

    def page(self) -> str:
        """The 3-D page (`cpsolve view`'s) of a stuck assembly in its most open state (the start when
        nothing moves), the blockers (the smallest set whose removal frees the rest) in red. One state:
        the page holds states of one set of cells, and an opened state has moved some out."""
        from ..analysis.explain.stuck import Blocked
        from ..output.explain import MARK, QUIET
        from ..output.page import page_html

        finding = self._finding
        if not isinstance(finding, Blocked):
            raise CpsolveError("only a stuck assembly has a page to show", where=self.puzzle, exit_code=1)
        state = finding.open_state if finding.open_moves else finding.start
        colors = {label: MARK if label in finding.blockers() else QUIET[i % len(QUIET)]
                  for i, (label, _) in builtins.enumerate(finding.start)}
        which = f"its most open state, {finding.open_moves} moves in" if finding.open_moves else "nothing moves"
        marked = f"; red: {' '.join(finding.blockers())}" if finding.blockers() else ""
        return page_html([{"puzzle": self.puzzle, "pieces": dict(state)}], self._puzzle,
                         title=f"{self.puzzle}: stuck ({which}){marked}", recolor=colors)

    def _repr_html_(self) -> str:
        return "<pre>" + markup(str(self)) + "</pre>"


def _scheme(found: ColourArgument) -> Scheme:
    """The colouring an argument names."""
    from ..analysis.explain.counting import schemes

    return next(s for s in schemes() if s.name == found.scheme and s.rule == found.rule)


def explain(
    what: Puzzle | Solution | PathLike,
    *,
    index: int | None = None,
    backend: str = "sat",
    timeout: float | None = None,
    max_states: int | None = None,
    rotations: bool = False,
    rotation_clearance: float | str = 0,
) -> Explanation:
    """Why not? (`cpsolve explain`.) A puzzle with no assembly: the cheapest reason that holds (volume, a
    piece with no placement, a cell no piece reaches, a colouring, else a minimal unsatisfiable core
    found by `backend`, "sat" or "cpsat", and re-checked by dlx). An assembly (a `Solution`, the
    `index`-th solution of a puzzle or of a `.jsonl` file, or an assembly stored in a BurrTools file)
    that does not come apart: what blocks what, how far it opens, what to remove. A puzzle with
    solutions: what they share and where they differ. A file is read without the volume check, so
    that a puzzle whose pieces do not fill it can be explained too. `rotations` decides whether an
    assembly comes apart with quarter turns too (`disassemble(rotations=True)`).

    >>> print(cpsolve.explain(cpsolve.puzzle_from_yaml('''
    ... name: mutilated
    ... container: {layers: [[".#######", "########", "########", "########",
    ...                       "########", "########", "########", "#######."]]}
    ... pieces: {D: {cells: [[0, 0, 0], [1, 0, 0]], count: 31}}
    ... ''')).lines[0])
    Colouring (checkerboard: x+y+z even: white, odd: black); count white cells.
    >>> e = cpsolve.explain(cpsolve.load("slothouber-graatsma"))
    >>> e.case, e.argument
    ('unique', 'backbone')
    """
    from ..analysis.explain import explain_assembly, explain_puzzle

    if timeout is not None and not (timeout > 0 and timeout < float("inf")):
        raise CpsolveError(f"must be a finite number of seconds > 0, not {timeout}", field="timeout")
    if index is not None and index < 0:
        raise CpsolveError(f"must be 0 or more, not {index}", field="index")
    began = time.perf_counter()
    from ..analysis.disassembly import check_rotations

    check_rotations(rotations, rotation_clearance)
    if not isinstance(what, (Puzzle, Solution)):
        what = _explained_source(what, index)
    if isinstance(what, Puzzle) and index is not None:
        left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
        nth = _nth_class(what, index, left)
        if isinstance(nth, Explanation):
            return nth
        what = nth
    if isinstance(what, Solution):
        puzzle = what.puzzle
        if puzzle is not None and puzzle.kind == "chain":
            raise CpsolveError("a chain puzzle has no pieces to slide apart", where=what.name)
        if puzzle is not None and puzzle.grid != "cubes":  # the analysis of what blocks what slides cubes
            from ..analysis.disassembly import check_grid

            try:
                check_grid(puzzle.grid)
            except CpsolveError as exc:
                raise exc.located(what.name) from None
            raise CpsolveError(f"explain takes assemblies apart on the cube grid only; on the {puzzle.grid} grid "
                               "`cpsolve disassemble` takes them apart", where=what.name, field="grid")
        left = None if timeout is None else max(timeout - (time.perf_counter() - began), 1e-3)
        report = explain_assembly(what.name, what.pieces, tuple(puzzle.groups) if puzzle is not None else (),
                                  timeout=left, max_states=max_states, rotations=rotations,
                                  rotation_clearance=rotation_clearance)
        return _explanation(report, puzzle, what.index)
    return _explanation(explain_puzzle(what, backend=backend, timeout=timeout), what, None)


def _explanation(report: ExplainReport, puzzle: Puzzle | None, index: int | None) -> Explanation:
    from ..analysis.explain import CoreArgument

    finding = report.finding
    return Explanation(report.puzzle, report.case, report.argument, None if finding is None else finding.size,
                       finding.minimal if isinstance(finding, CoreArgument) else None, report.seconds, report.tried,
                       tuple(report.lines()), index, report, puzzle)


def _explained_source(source: PathLike, index: int | None) -> Puzzle | Solution:
    """A path as explain reads it: a solutions file's solution (told by content, as every command tells it:
    `source`), a BurrTools file's stored assembly (with `index`), or a puzzle read without its volume check
    (a built-in name, YAML, BurrTools)."""
    from ..puzzle.burrtools_placements import stored_solutions
    from ..puzzle.catalog import is_burrtools
    from ..puzzle.catalog import load as load_cached

    path = os.fspath(source)
    if Path(path).is_file() and _kind_of(Path(path)) == "solutions":
        return read_solutions(path, 1, start=index or 0)[0]
    puzzle: Puzzle = load_cached.__wrapped__(path, strict=False)
    if index is not None and Path(path).is_file() and is_burrtools(Path(path)):
        stored = stored_solutions(path)
        if stored:
            if index >= len(stored):
                raise CpsolveError(f"stores {len(stored)} assemblies (indices 0 to {len(stored) - 1}); there is no "
                                   f"index {index}", where=path, field="index")
            return Solution(puzzle.name, _frozen(stored[index]), index, puzzle=puzzle)
    return puzzle


def _nth_class(puzzle: Puzzle, index: int, timeout: float | None) -> Solution | Explanation:
    """The `index`-th solution class of the puzzle, found as `cpsolve disassemble MODEL --index N` finds it;
    only that one is kept (the classes before it are counted, not held: an index of a million held a million
    solutions, 1.9 GB). A deadline that passes first is an "unknown" explanation saying how far the search
    got; Ctrl-C is KeyboardInterrupt: only a complete search may say how many classes there are."""
    from ..analysis.explain import Report

    began = time.perf_counter()
    kept: list[Solution] = []

    def keep(solution: Solution) -> None:
        if solution.index == index:
            kept.append(solution)

    result = run(puzzle, keep, limit=index + 1, timeout=timeout)
    if kept:
        return kept[0]
    if result.status == "interrupted":
        raise KeyboardInterrupt
    n = result.counts.unique_symmetry
    if result.status == "complete":
        raise CpsolveError(f"has {n} solution classes (indices 0 to {n - 1}); there is no index {index}",
                           where=puzzle.name, field="index")
    note = (f"the deadline passed while solution class {index} was looked for ({n} classes found before it)"
            if result.status == "timeout" else f"the search stopped ({result.status}) after {n} classes, before "
            f"solution class {index}")
    report = Report(puzzle.name, "unknown", None, ("search",), time.perf_counter() - began, note)
    return _explanation(report, puzzle, index)
