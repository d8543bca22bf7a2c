"""Canonical forms of solutions under the container's symmetries, and the tally of distinct ones.

A solution is a labelled cell grid (for each container cell, the piece covering it; identical
copies share a label). A symmetry moves the cells; a reflection also swaps each chiral piece with its
mirror partner, and only counts when the piece set is closed under mirroring. The canonical form is
the smallest image over the group, so two solutions are equivalent exactly when their forms agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import CpsolveError
from .placements import ExactCoverProblem
from .symmetry import SymmetryElement

if TYPE_CHECKING:
    import numpy as np


MOVED_CACHE = 250_000
"""Moved placements `transform_rows` keeps (some 50 MB at most) before starting afresh: enough for every
(element, row) pair of Bedlam (24 x 4,188)."""


class Forms(NamedTuple):
    """What the canonicalizer knows about one solution (a named tuple: one is made per solution found,
    and a frozen dataclass cost 1.5 µs more each)."""

    rotation_key: bytes
    """Canonical form up to rotations of the container."""
    symmetry_key: bytes
    """Canonical form up to rotations and (where they apply) reflections."""
    orbit: int
    """Distinct assemblies in the solution's rotation class (rotated copies distinct)."""
    mirror_distinct: bool
    """True when the mirror image is a different rotation class (the class holds 2 of them)."""
    element: int
    """Index (into the canonicalizer's elements) of a symmetry taking the solution to symmetry_key."""


class Canonicalizer:
    """Canonical forms of solutions under the container's symmetry group.

    `forms` runs the compiled twin (`_canon.c`, about 100 times faster where pieces have identical
    copies) when it is built, else `python_forms`, the readable definition: index arrays precomputed
    once per puzzle, so each solution costs a few numpy gathers. Both give the same bytes
    (tests/test_canonical.py checks it), so counts never depend on which one ran.
    """

    def __init__(self, problem: ExactCoverProblem, group: Sequence[SymmetryElement]):
        use_mirrors = problem.mirror_labels is not None
        # Rotations first: `forms` splits the images at n_rotations.
        self.elements = tuple(sorted((g for g in group if use_mirrors or not g.is_reflection),
                                     key=lambda g: g.is_reflection))
        self.n_rotations = sum(1 for g in self.elements if not g.is_reflection)
        n = problem.n_cells
        # image[j] = label[grid[inverse[j]]]: the grid after moving cell i to perm[i]. Plain lists: the
        # compiled twin takes them as they are, and numpy (0.13 s to import) loads only for the Python twin.
        self._inverse_table: list[list[int]] = []
        for g in self.elements:
            inverse = [0] * n
            for i, j in enumerate(g.perm):
                inverse[j] = i
            self._inverse_table.append(inverse)
        # Label n_pieces marks an empty (optional) cell; it is its own mirror image.
        self._empty = problem.n_pieces
        identity = list(range(problem.n_pieces + 1))
        mirror = [*(problem.mirror_labels or ()), self._empty] if use_mirrors else identity
        self._label_lists = [mirror if g.is_reflection else identity for g in self.elements]
        self._relabel_lists = [list(s) for s in problem.label_symmetries]
        self._copies = any(k > 1 for k in problem.piece_counts)
        self._compiled: tuple[ExactCoverProblem, Any] | None = None
        self._moved_for: ExactCoverProblem | None = None
        self._moved: dict[int, tuple[int, tuple[int, ...]]] = {}

    # The Python twin's numpy tables, made on first use.
    @cached_property
    def _inverse(self) -> np.ndarray:
        import numpy as np

        return np.asarray(self._inverse_table, dtype=np.intp).reshape(len(self.elements), -1)

    @cached_property
    def _labels(self) -> list[np.ndarray]:
        import numpy as np

        return [np.asarray(t, dtype=np.uint16) for t in self._label_lists]

    @cached_property
    def _relabel(self) -> list[np.ndarray]:
        import numpy as np

        return [np.asarray(t, dtype=np.uint16) for t in self._relabel_lists]

    @cached_property
    def _label_table(self) -> np.ndarray:
        import numpy as np

        return np.stack(self._labels)

    @cached_property
    def _element_rows(self) -> np.ndarray:
        import numpy as np

        return np.arange(len(self.elements))[:, None]

    def _compiled_for(self, problem: ExactCoverProblem) -> Any:
        """The compiled canonicalizer for `problem`'s rows (made once per problem), or None when the
        extension was not built (no C compiler at install)."""
        if self._compiled is None or self._compiled[0] is not problem:
            try:
                from ._canon import Canon
            except ImportError:
                return None
            starts = [0]
            for row in problem.rows:
                starts.append(starts[-1] + len(row.cells))
            canon = Canon(
                problem.n_cells, problem.n_pieces, [row.piece for row in problem.rows], starts,
                [c for row in problem.rows for c in row.cells], [i for t in self._inverse_table for i in t],
                [v for t in self._label_lists for v in t], [v for t in self._relabel_lists for v in t],
                self.n_rotations, self._copies,
            )
            self._compiled = (problem, canon)
        return self._compiled[1]

    def _state_key(self, labels: np.ndarray) -> bytes:
        """A physical assembly's key: the grid, minimised over label symmetries (reversed chains)."""
        if not self._relabel_lists:
            return labels.tobytes()
        return bytes(min([labels.tobytes()] + [s[labels].tobytes() for s in self._relabel]))

    def _image_key(self, k: int, labels: np.ndarray, copies: np.ndarray | None) -> bytes:
        """The key of the solution moved by element k.

        With identical copies the labels alone lose where one copy ends and the next begins, so the
        key also holds the copies numbered in order of first appearance in the moved grid: a
        numbering that does not depend on which copy the backend called which.
        """
        import numpy as np

        inv = self._inverse[k]
        key = self._state_key(self._labels[k][labels][inv])
        if copies is None:
            return key
        moved = copies[inv]
        first = np.unique(moved, return_index=True)[1]
        rank = np.empty(len(first), dtype=np.uint16)
        rank[np.argsort(first)] = np.arange(len(first), dtype=np.uint16)
        return key + bytes(rank[moved].tobytes())

    def forms(self, problem: ExactCoverProblem, rows: Sequence[int]) -> Forms:
        """Canonical keys of the solution made of `rows` (row indices of `problem`)."""
        compiled = self._compiled_for(problem)
        if compiled is None:
            return self.python_forms(problem, rows)
        return Forms._make(compiled.forms(rows))

    def python_forms(self, problem: ExactCoverProblem, rows: Sequence[int]) -> Forms:
        """`forms` in Python and numpy: the definition the compiled twin is checked against."""
        import numpy as np

        grid = np.asarray(problem.solution_grid(rows), dtype=np.int64)
        labels = np.where(grid < 0, self._empty, grid).astype(np.uint16)
        if self._copies or self._relabel_lists:
            copies = None
            if self._copies:
                copy_grid = np.asarray(problem.copy_grid(rows), dtype=np.int64)
                copies = np.where(copy_grid < 0, len(rows), copy_grid).astype(np.uint16)
            images = [self._image_key(k, labels, copies) for k in range(len(self.elements))]
        else:  # the common case, all elements in one gather
            moved = self._label_table[self._element_rows, labels[self._inverse]]
            images = [row.tobytes() for row in moved]
        rot = images[: self.n_rotations]
        refl = images[self.n_rotations:]
        rotation_key = min(rot)
        mirror_key = min(refl) if refl else rotation_key
        symmetry_key = min(rotation_key, mirror_key)
        return Forms(
            rotation_key=rotation_key,
            symmetry_key=symmetry_key,
            orbit=len(set(rot)),
            mirror_distinct=mirror_key != rotation_key,
            element=images.index(symmetry_key),
        )

    def transform_rows(
        self, problem: ExactCoverProblem, rows: Sequence[int], element: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """The solution's placements moved by one element: (piece index, sorted cell indices) each."""
        if problem is not self._moved_for or len(self._moved) > MOVED_CACHE:
            self._moved_for, self._moved = problem, {}
        moved = self._moved
        g = self.elements[element]
        labels = self._label_lists[element]
        base = element * len(problem.rows)  # an int key (element, row): hashed faster than a pair
        out = []
        for r in rows:
            # A run moves the same few rows by the same few elements again and again (Bedlam: 19,186
            # classes, every one new): each (element, row) is worked out once.
            placed = moved.get(base + r)
            if placed is None:
                row = problem.rows[r]
                placed = moved[base + r] = (labels[row.piece], tuple(sorted(g.perm[c] for c in row.cells)))
            out.append(placed)
        out.sort()
        return out


ID_DIGITS = 16
"""Hex digits of a class id: 64 bits. Among n classes two share an id with probability about
n² / 2^65 (the birthday bound): one in 100 billion for the 19,186 classes of Bedlam, one in 37 for a
billion classes, thousands of times more than any puzzle here has. Short enough to read aloud; a
unique prefix is enough to name a class (`cpsolve show FILE --id 3fa9`), as with git's commits."""


def class_id(symmetry_key: bytes) -> str:
    """The stable id of a solution class: a 64-bit digest (ID_DIGITS hex digits) of its canonical form up to
    rotation and reflection (`Forms.symmetry_key`, the grid of piece labels in canonical position). The
    key depends only on the puzzle (its cells and pieces, in the file's order) and the class, not on the
    backend, the workers, the order solutions are found or symmetry breaking, so the same class has the
    same id in every run of the same puzzle file (the key's labels are 16-bit numbers in the machine's
    byte order: every common machine is little-endian).

    The digest is FNV-1a with MurmurHash3's finaliser (`python_class_id`, compiled in `_canon.c`): not a
    cryptographic hash, which nobody needs here (ids name classes, they protect nothing), and a run names
    every class it finds (Bedlam: every solution is one), where hashlib's BLAKE2b cost 1.2 µs a call and
    this 0.2 µs."""
    try:
        from ._canon import class_id as compiled
    except ImportError:
        return python_class_id(symmetry_key)
    return compiled(symmetry_key)


_MASK = (1 << 64) - 1


def python_class_id(key: bytes) -> str:
    """`class_id` in Python: the definition the compiled one is checked against."""
    h = 0xCBF29CE484222325
    for byte in key:
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & _MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & _MASK
    h ^= h >> 33
    return f"{h:0{ID_DIGITS}x}"


def counts_text(counts: Sequence[int | None]) -> str:
    """Total / up to rotation / up to rotation and reflection, as every table and message writes
    them ("11520 / 480 / 240"); an unknown count is "?"."""
    return " / ".join("?" if c is None else str(c) for c in counts)


@dataclass
class Tally:
    """Running counts of an enumeration; `add` says whether a solution opened a new class.

    `numberings` is how many labellings stand for one physical assembly (2 for a chain that reads
    the same from both ends): backends count labellings, people count assemblies.
    """

    numberings: int = 1
    weighted: int = 0
    found: int = 0
    rotation_keys: set[bytes] = field(default_factory=set)
    symmetry_keys: set[bytes] = field(default_factory=set)
    orbit_total: int = 0
    """Sum of the rotation classes' orbit sizes: must equal `total` once the search is complete."""

    def add(self, forms: Forms, weight: int) -> bool:
        self.found += 1
        self.weighted += weight
        if forms.rotation_key not in self.rotation_keys:
            self.rotation_keys.add(forms.rotation_key)
            self.orbit_total += forms.orbit
        if forms.symmetry_key in self.symmetry_keys:
            return False
        self.symmetry_keys.add(forms.symmetry_key)
        return True

    @property
    def total(self) -> int:
        return self.weighted // self.numberings

    def check(self, puzzle: str) -> None:
        """Two independent routes to the total must agree once the search is complete, or a count
        is wrong: the symmetry-breaking weights, and the orbit sizes of the rotation classes."""
        if self.total != self.orbit_total:
            raise CpsolveError(
                f"internal check failed: total {self.total} from symmetry-breaking weights, but the rotation "
                f"classes' orbits add up to {self.orbit_total}; please report this puzzle",
                where=puzzle,
                exit_code=1,
            )

    @property
    def unique_rotation(self) -> int:
        return len(self.rotation_keys)

    @property
    def unique_symmetry(self) -> int:
        return len(self.symmetry_keys)
