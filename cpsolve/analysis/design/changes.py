"""What every kind of design change shares (fixed pieces, colour marks, holes): the assemblies a change is
counted over (`assemblies_of`), a suggested change and the report of a search for them, and the proof
that a changed puzzle has exactly one assembly, by enumerating the very file that is written (`prove`).

`unique` (fixes, and the choice of kind), `marks` and `holes` each build on this module, none on another.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import CpsolveError
from ...puzzle.model import Puzzle
from ...puzzle.names import safe_stem, unique_stems
from .files import puzzle_yaml, total_of_text


def assemblies_of(puzzle: Puzzle, backend: str = "auto",
                  max_assemblies: int = 500_000) -> tuple[object, list[tuple[int, ...]]]:
    """Every assembly of the puzzle (rows of its unbroken problem), or an error when there are too many."""
    from ...search.backends import for_problem
    from ...search.enumeration import prepare

    if puzzle.kind != "pieces":
        raise CpsolveError("design unique works on packings (fixing a cube of a chain is not a piece change)",
                           where=puzzle.origin or puzzle.name, field="kind")
    prepared = prepare(puzzle, symmetry_breaking=False)
    found: list[tuple[int, ...]] = []

    def keep(rows: tuple[int, ...]) -> bool:
        found.append(rows)
        return len(found) > max_assemblies

    engine = for_problem(backend, prepared.problem)
    engine.search(prepared.problem, keep)
    if len(found) > max_assemblies:
        raise CpsolveError(f"more than {max_assemblies} assemblies: too many to count placements over",
                           where=puzzle.name, exit_code=1)
    return prepared, found


@dataclass(frozen=True)
class Change:
    """One suggested change: what it is, the changed puzzle as a file, and what that file enumerates to."""

    kind: str
    """'fix', 'mark' or 'hole'."""
    text: str
    """The change in words, cells in the file's coordinates ("T at [[0,0,0], ...]")."""
    detail: dict[str, object]
    """The change as JSON-ready data (the CLI's --json)."""
    name: str
    """The changed puzzle's name (`name:` of the file; its file name is `ChangeReport.file_names`)."""
    file_text: str
    """The changed puzzle as a cpsolve puzzle file, with the proved total as its reference."""
    orbit: int
    """How many changes are equivalent to this one under the container's rotations (all give one assembly)."""
    verified_total: int | None
    """Assemblies of `file_text` by `cpsolve enumerate`'s code path (None when not verified)."""


@dataclass(frozen=True)
class ChangeReport:
    puzzle: str
    kind: str
    assemblies: int
    """Assemblies the counting pass went through (for holes: of the puzzle with the holes, every place)."""
    size: int
    """Pieces fixed, marks or holes in each change (0 when none leaves exactly one assembly)."""
    candidates: int
    """Changes of that size that leave exactly one assembly, before grouping by rotation."""
    changes: tuple[Change, ...]
    """One per rotation orbit, at most `limit`."""
    note: str = ""
    """Why this kind of change cannot apply to the puzzle (holes in a puzzle without spare volume)."""

    def file_names(self) -> list[str]:
        """A file name per change, `NAME.yaml`: the changed puzzle's name comes from the puzzle file
        (`name: ../../x` once wrote outside the folder asked for), so it is made a safe file name, and
        the names are made distinct (a long name cut short once gave every change the same file)."""
        return [f"{stem}.yaml" for stem in unique_stems(safe_stem(c.name) for c in self.changes)]

    def headline(self, seconds: float) -> str:
        """One line for the command line: what was counted and what suffices."""
        if self.note:
            return f"{self.puzzle}: {self.note}"
        if self.assemblies == 0:
            what = "with a hole in any place" if self.kind == "hole" else "as it stands"
            return f"{self.puzzle}: no assembly {what}: nothing to make unique"
        if not self.changes:
            return (f"{self.puzzle}: {self.assemblies} solutions in all; no change of this kind ({self.kind}), "
                    f"of size 1 or 2, leaves exactly one")
        one = {"fix": ("fixing 1 piece suffices", "placements occur in"),
               "mark": ("1 colour mark suffices", "marks leave"), "hole": ("1 hole suffices", "cells leave")}
        two = {"fix": ("fixing 2 pieces suffices", "pairs of placements occur in"),
               "mark": ("2 colour marks suffice", "pairs of marks leave"),
               "hole": ("2 holes suffice", "pairs of cells leave")}
        what, which = (one if self.size == 1 else two)[self.kind]
        return (f"{self.puzzle}: {self.assemblies} solutions in all; {what}: {self.candidates} {which} exactly one "
                f"assembly ({seconds:.2f} s)")


def prove(puzzle: Puzzle, changed: Puzzle, source: str, backend: str, verify: bool) -> tuple[str, int | None]:
    """The changed puzzle's file and, with `verify`, its total by enumerating that very file."""
    text = puzzle_yaml(changed, puzzle.container, source)
    if not verify:
        return text, None
    total = total_of_text(text, changed.name, backend)
    return puzzle_yaml(changed, puzzle.container, source, total), total
