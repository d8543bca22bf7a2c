"""Canonical forms of solutions under the container's symmetries, and the tally of distinct ones.

A solution is a labelled cell grid (for each container cell, the piece covering it; identical
copies share a label). A symmetry moves the cells; a reflection also swaps each chiral piece with its
mirror partner, and only counts when the piece set is closed under mirroring. The canonical form is
the smallest image over the group, so two solutions are equivalent exactly when their forms agree.

Counting classes without remembering them (`Canonicalizer.judge`). Symmetry breaking keeps one
placement of the key piece per orbit (see symmetry.py), so the search meets each class through the
members whose key placement is a kept one: at least one, and several when a kept placement has a
non-trivial stabiliser or a reflection maps it to a kept one. A solution opens a class iff it is
that class's chosen representative among those reachable members: the one whose own grid (its *raw*
key: no least-over-images, and with a reversible chain no least-over-numberings, since the search
finds both numberings of one assembly) is the smallest. That is a property of the class alone, so
each class is opened exactly once, by whichever process meets its representative, with no set of
classes seen: a run's memory depends on the puzzle, not on how long it runs. The same rule over the
rotations alone opens each rotation class once, and the orbit sizes of those still add up to the
total the symmetry-breaking weights give (`Tally.check`), an independent check of both.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import CpsolveError
from .placements import ExactCoverProblem
from .symmetry import BrokenProblem, SymmetryElement

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


NEW_ROTATION_CLASS = 1
"""`judge`'s bit: the solution is its rotation class's representative."""
NEW_CLASS = 2
"""`judge`'s bit: the solution is its class's representative (up to rotation and reflection)."""


class Opened(NamedTuple):
    """A class that a solution opened (it is the class's representative), as a run writes it: what a
    worker sends its parent, who numbers it."""

    assemblies: int
    mirror_distinct: bool
    placements: tuple[tuple[int, tuple[int, ...]], ...]
    """(piece index, sorted cell indices) of each placement, moved to canonical position."""
    id: str
    digest: bytes
    """128 bits of the canonical form (empty unless asked for): how a journal knows a class written."""


class Verdict(NamedTuple):
    """What one solution adds: its weight, its rotation class's orbit if it is that class's
    representative (else 0), and the class it opens (if any)."""

    weight: int
    orbit: int
    opened: Opened | None


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
        self.identity = next(i for i, g in enumerate(self.elements)
                             if not g.is_reflection and all(j == c for c, j in enumerate(g.perm)))
        # image[j] = label[grid[inverse[j]]]: the grid after moving cell i to perm[i]. Arrays of C ints: the
        # compiled twin copies them as they are, numpy (0.13 s to import) loads only for the Python twin, and
        # a 27x27x27 box's 48 tables take 3.8 MB where lists of Python ints took 32 MB (in every worker too).
        self._inverse_table: list[array[int]] = []
        for g in self.elements:
            inverse = array("i", bytes(4 * n))
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
        self._judging: tuple[BrokenProblem, list[list[int]], Any] | None = None
        """The broken problem `judge` was last asked about, its reach words, and its compiled twin."""

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for a cluster's workers without what each process rebuilds (compiled objects, caches)."""
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_") or k.endswith("_table")
                 or k.endswith("_lists") or k in ("_empty", "_copies")}
        return {**state, "_compiled": None, "_moved_for": None, "_moved": {}, "_judging": None}

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
                [c for row in problem.rows for c in row.cells], b"".join(t.tobytes() for t in self._inverse_table),
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

    def reach_words(self, broken: BrokenProblem) -> list[list[int]]:
        """For each numbering s (0: the search's own; then each label symmetry) and each row r of the broken
        problem, the elements e (as bits) that make r, moved by e and renumbered by s, a kept key placement.

        Every solution holds exactly one key placement (the key piece's, or the row covering the key cell),
        so the member (e, s) of a solution is one the search reaches iff the OR of its rows' words has bit e.
        Without symmetry breaking every member is reachable. Worked out from the kept placements backwards:
        |kept| x |elements| x |numberings| look-ups, not rows x elements."""
        problem = broken.problem
        numberings = [list(range(problem.n_pieces)), *self._relabel_lists]
        if len(self.elements) > 64:
            raise ValueError("more than 64 symmetry elements")
        if not broken.key_rows:
            everything = (1 << len(self.elements)) - 1
            return [[everything] * len(problem.rows) for _ in numberings]
        words = [[0] * len(problem.rows) for _ in numberings]
        kept = [(problem.rows[k].piece, problem.rows[k].cells) for k in broken.key_rows]
        by_cell = problem.rows_by_cell
        for si, s in enumerate(numberings):
            back = {to: frm for frm, to in enumerate(s)}
            for e in range(len(self.elements)):
                labels = self._label_lists[e]
                moved_back = {labels[p]: p for p in range(problem.n_pieces)}
                inverse = self._inverse_table[e]
                for piece, cells in kept:
                    # The row that element e and numbering s move onto this kept placement, if the broken
                    # problem has it: found among the rows covering its first cell (no index of every row).
                    want = (moved_back[back[piece]], tuple(sorted(inverse[c] for c in cells)))
                    for r in by_cell[want[1][0]]:
                        if problem.rows[r].piece == want[0] and problem.rows[r].cells == want[1]:
                            words[si][r] |= 1 << e
                            break
        return words

    def _judging_for(self, broken: BrokenProblem) -> tuple[list[list[int]], Any]:
        if self._judging is None or self._judging[0] is not broken:
            words = self.reach_words(broken)
            compiled = self._compiled_for(broken.problem)
            if compiled is not None:
                compiled.set_reach([w for per in words for w in per], self.identity)
            self._judging = (broken, words, compiled)
        return self._judging[1], self._judging[2]

    def prepare_judging(self, broken: BrokenProblem) -> None:
        """Work out `judge`'s tables now (in a parent about to fork its workers, which then share them)."""
        self._judging_for(broken)

    def judge(self, broken: BrokenProblem, rows: Sequence[int]) -> int:
        """NEW_ROTATION_CLASS and NEW_CLASS bits of a solution of `broken` (its rows): whether it is the chosen
        representative of its rotation class, and of its class, among the members the search reaches (see
        the module's docstring). Pure: nothing is remembered between calls."""
        _, compiled = self._judging_for(broken)
        if compiled is None:
            return self.python_judge(broken, rows)
        result: int = compiled.judge(rows)
        return result

    def python_judge(self, broken: BrokenProblem, rows: Sequence[int]) -> int:
        """`judge` in Python: the definition the compiled twin is checked against."""
        words = self.reach_words(broken) if self._judging is None or self._judging[0] is not broken \
            else self._judging[1]
        problem = broken.problem
        grid = problem.solution_grid(rows)
        labels = [self._empty if v < 0 else v for v in grid]
        copies = list(problem.copy_grid(rows)) if self._copies else None
        numberings = [list(range(problem.n_pieces)), *self._relabel_lists]

        def raw(e: int, s: list[int]) -> bytes:
            """The member (e, s)'s raw key: the labels moved by element e (a reflection swaps mirror partners),
            renumbered by s, then the copies ranked by first appearance; as the bytes of 16-bit values in the
            machine's order, as `forms` compares keys."""
            inverse, moved = self._inverse_table[e], self._label_lists[e]
            key = [labels[inverse[j]] for j in range(len(labels))]
            key = [v if v == self._empty else s[moved[v]] for v in key]
            if copies is not None:
                rank: dict[int, int] = {}
                key += [rank.setdefault(copies[inverse[j]], len(rank)) for j in range(len(labels))]
            return array("H", key).tobytes()

        own = raw(self.identity, numberings[0])
        bits = NEW_ROTATION_CLASS | NEW_CLASS
        for si, s in enumerate(numberings):
            reach = 0
            for r in rows:
                reach |= words[si][r]
            for e in range(len(self.elements)):
                if reach >> e & 1 and raw(e, s) < own:  # a reachable member before it: it is not the one
                    bits &= ~(NEW_ROTATION_CLASS | NEW_CLASS) if e < self.n_rotations else ~NEW_CLASS
        return bits

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


class Stretch(NamedTuple):
    """Solutions summed up to and including one that opened a class (`opened`), or a stretch that opened
    none: what a worker sends its parent instead of every solution (the parent only counts and writes)."""

    found: int
    weighted: int
    rotations: int
    """Rotation classes opened in the stretch (each by its representative)."""
    orbits: int
    """Their orbit sizes, summed."""
    opened: Opened | None = None


class Judge:
    """A search's solutions turned into verdicts, wherever the search runs (this process, a forked worker, a
    cluster's machine): it needs only the broken problem and the canonicalizer, and remembers nothing.

    `digests` adds each opened class's 128-bit digest (a journal's record of the classes written)."""

    def __init__(self, canonicalizer: Canonicalizer, broken: BrokenProblem, digests: bool = False):
        self.canonicalizer, self.broken, self.digests = canonicalizer, broken, digests

    @property
    def problem(self) -> ExactCoverProblem:
        return self.broken.problem

    def __call__(self, rows: Sequence[int]) -> Verdict:
        broken, canon = self.broken, self.canonicalizer
        bits = canon.judge(broken, rows)
        weight = broken.weight_of(rows)
        if not bits:
            return Verdict(weight, 0, None)
        forms = canon.forms(broken.problem, rows)
        opened = None
        if bits & NEW_CLASS:
            placements = tuple(canon.transform_rows(broken.problem, rows, forms.element))
            digest = b""
            if self.digests:
                import hashlib

                digest = hashlib.blake2b(forms.symmetry_key, digest_size=16).digest()
            opened = Opened(forms.orbit * (2 if forms.mirror_distinct else 1), forms.mirror_distinct, placements,
                            class_id(forms.symmetry_key), digest)
        return Verdict(weight, forms.orbit if bits & NEW_ROTATION_CLASS else 0, opened)


class Stretches:
    """Verdicts summed into stretches, each ending at a class opened (see `Stretch`)."""

    def __init__(self) -> None:
        self.done: list[Stretch] = []
        self.found = self.weighted = self.rotations = self.orbits = 0

    def add(self, verdict: Verdict) -> None:
        self.found += 1
        self.weighted += verdict.weight
        if verdict.orbit:
            self.rotations += 1
            self.orbits += verdict.orbit
        if verdict.opened is not None:
            self._close(verdict.opened)

    def _close(self, opened: Opened | None) -> None:
        self.done.append(Stretch(self.found, self.weighted, self.rotations, self.orbits, opened))
        self.found = self.weighted = self.rotations = self.orbits = 0

    @property
    def held(self) -> int:
        """Solutions and classes held."""
        return len(self.done) + self.found

    def take(self) -> list[Stretch]:
        """Every stretch held, the open one too (the solutions since the last class), and start again."""
        if self.found:
            self._close(None)
        out, self.done = self.done, []
        return out


@dataclass
class Tally:
    """Running counts of an enumeration: plain numbers, added up from stretches (no class is remembered).

    `numberings` is how many labellings stand for one physical assembly (2 for a chain that reads
    the same from both ends): backends count labellings, people count assemblies.
    """

    numberings: int = 1
    weighted: int = 0
    found: int = 0
    unique_rotation: int = 0
    unique_symmetry: int = 0
    orbit_total: int = 0
    """Sum of the rotation classes' orbit sizes: must equal `total` once the search is complete."""

    def add(self, stretch: Stretch) -> None:
        self.found += stretch.found
        self.weighted += stretch.weighted
        self.unique_rotation += stretch.rotations
        self.orbit_total += stretch.orbits
        self.unique_symmetry += stretch.opened is not None

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
