"""The public Python API: load a puzzle, solve, count, enumerate, compare, export, take apart, draw.

Everything here is importable from `cpsolve` itself (`cpsolve.__all__` lists it) and is what the
command line does, one function per thing, built on the stages below (this package only strings
them together, as the command line, `cpsolve/cli/`, does). Errors are raised as `CpsolveError`
(bad input: `exit_code` 2; a failure while running: 1); nothing here prints, and notices stay
`CpsolveNotice` warnings.

>>> import cpsolve
>>> soma = cpsolve.load("soma")
>>> cpsolve.count(soma)
Counts(total=11520, unique_rotation=480, unique_symmetry=240)

One module per part, each importing only those before it in this list (tests/test_layers.py checks
that no two modules import each other, even lazily): `common` (what they share), `grids` (the grids by
name, their cells as solids, their shape libraries), `results` (Solution, Counts, Result), `solving`
(preparing a puzzle, `solve`), `running` (`run`, `count`), `iteration` (`enumerate`), `burrtools`
(BurrTools files, external solvers, backends), `sources` (`load`, `source`, solutions files), `approx`
(approximate counts, `sample`), `comparing` (`compare`, `report`), `exporting`, `pictures`
(`disassemble`, `draw`, `page`), `explaining`, `journals` (`estimate`, `read_journal`), `design`, and
`display`.

In a notebook, puzzles, solutions and results show themselves: a solution as its picture
(`_repr_png_`) and as the 3-D page (`_repr_html_`, self-contained, in an iframe), a puzzle as its
pieces, a result or a comparison as a small table. `Puzzle` lives in stage 1, which cannot import
the pictures of stage 5, and `Solution` in a module the pictures import: importing this package
*injects* their display methods into both classes (`display._install_display`), so a puzzle or a
solution shows itself once `cpsolve` has handed one out.
"""

from __future__ import annotations

from ..errors import CpsolveError, CpsolveNotice
from ..puzzle.model import Puzzle
from .approx import ApproxCounts, count_approx, sample
from .burrtools import BackendInfo, Decoded, Imported, backends, decode, import_xmpuzzle, stored_solutions
from .common import check_output as check_output
from .common import level_key as level_key
from .common import line_output as line_output
from .common import printable
from .common import shell_command as shell_command
from .common import write_output as write_output
from .comparing import Comparison, Report, compare, report
from .design import Suggestion, UniqueDesign, design_pieces, design_snakes, design_unique
from .display import _install_display
from .explaining import Explanation, explain
from .exporting import export
from .grids import grid_solids, lattice, shape_libraries
from .iteration import Enumeration, enumerate
from .journals import Estimate, estimate, read_journal
from .pictures import assembly_stl, disassemble, draw, page, view_data
from .results import Counts, Result, Solution
from .running import count, run
from .solving import solve
from .sources import (
    Source,
    load,
    models,
    puzzle_from_dict,
    puzzle_from_xmpuzzle,
    puzzle_from_yaml,
    puzzle_yaml,
    read_solutions,
    schema,
    shapes,
    source,
)

__all__ = [
    "ApproxCounts",
    "BackendInfo",
    "Comparison",
    "Counts",
    "CpsolveError",
    "CpsolveNotice",
    "Decoded",
    "Enumeration",
    "Estimate",
    "Explanation",
    "Imported",
    "Puzzle",
    "Report",
    "Result",
    "Solution",
    "Source",
    "Suggestion",
    "UniqueDesign",
    "assembly_stl",
    "backends",
    "compare",
    "count",
    "count_approx",
    "decode",
    "design_pieces",
    "design_snakes",
    "design_unique",
    "disassemble",
    "draw",
    "enumerate",
    "estimate",
    "explain",
    "export",
    "grid_solids",
    "import_xmpuzzle",
    "lattice",
    "load",
    "models",
    "page",
    "printable",
    "puzzle_from_dict",
    "puzzle_from_xmpuzzle",
    "puzzle_from_yaml",
    "puzzle_yaml",
    "read_journal",
    "read_solutions",
    "report",
    "run",
    "sample",
    "schema",
    "shape_libraries",
    "shapes",
    "solve",
    "source",
    "stored_solutions",
    "view_data",
]

_install_display()
