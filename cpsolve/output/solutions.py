"""Solutions as data: labelled placements, and the JSON-lines file that enumeration writes.

One line per solution class: the puzzle's name, the class's index, how many assemblies it stands
for, whether its mirror image is a different rotation class, and `pieces`, mapping each placed
piece (copies of one piece are `NAME#1`, `NAME#2`, ...) to its cells. Summing `assemblies` over a
complete file gives the total count; the lines themselves give the count up to symmetry.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CpsolveError, unreadable
from ..limits import active, exceeded
from ..problem.placements import ExactCoverProblem
from ..puzzle.assembly import check_cells
from ..puzzle.geometry import Cell
from ..puzzle.names import safe_stem


def labelled(problem: ExactCoverProblem, placements: Sequence[tuple[int, Sequence[int]]]) -> dict[str, list[Cell]]:
    """Placements (piece index, cell indices) as `{label: cells}`, copies numbered in cell order."""
    ordered = sorted((piece, sorted(cells)) for piece, cells in placements)
    out: dict[str, list[Cell]] = {}
    copy = [0] * problem.n_pieces
    for piece, cells in ordered:
        name = problem.piece_names[piece]
        if problem.piece_counts[piece] > 1:
            copy[piece] += 1
            name = f"{name}#{copy[piece]}"
        out[name] = sorted(problem.cells[c] for c in cells)
    return out


def default_solutions_path(puzzle_name: str) -> Path:
    """`NAME.solutions.jsonl` in the current folder, NAME made a safe file name (`safe_stem`: the name
    comes from the puzzle file, and `name: ../x` or `name: /etc/x` must not write outside the folder)."""
    return Path(f"{safe_stem(puzzle_name)}.solutions.jsonl")


def check_destination(path: Path, puzzle: Path | None = None) -> None:
    """Refuse, before anything is written, a solutions file that would destroy what it replaces or cannot be
    written at all: the puzzle file, an SQLite database (a journal: days of work), a folder, a missing
    folder. Any other existing file is the user's choice to replace (once the run goes ahead)."""
    from ..search.journal import MAGIC, same_file  # here: a run without a solutions file loads no journal code

    where = str(path)
    if puzzle is not None and same_file(path, puzzle):
        raise CpsolveError("is the puzzle file: choose another --out", where=where)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not os.path.isdir(path.parent or "."):
            raise CpsolveError("cannot write the file: No such file or directory", where=where) from None
        return
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=where) from None
    if stat.S_ISDIR(mode):
        raise CpsolveError("cannot write the file: Is a directory", where=where)
    if stat.S_ISREG(mode):
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(MAGIC))
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=where) from None
        if head == MAGIC:
            raise CpsolveError("is an SQLite database (a cpsolve journal?), not a solutions file: choose another "
                               "--out", where=where)


class SolutionsFile:
    """The solutions file as a run writes it: one line per class, each flushed.

    A fresh run empties it. A resumed run keeps it: the journal's classes come again first, in order,
    and each line that is already there, the same, is passed over instead of written again; the file is
    cut only at the first line that differs (a file written past the journal before a full disk, or
    edited by hand). The file is always a prefix of the journal's classes (see enumeration.py), so a
    resume only ever appends to it: a kill in the middle of one loses no line.
    """

    def __init__(self, path: Path, keep: bool = False):
        self.path = path
        try:
            self._matching = keep and path.is_file()
            # Unbuffered: each line goes to the kernel whole as it is written (it was flushed at once anyway),
            # so that a line the disk has no room for can be taken back (below).
            self._file = open(path, "r+b" if self._matching else "wb", buffering=0)  # noqa: SIM115 - close()
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path)) from None

    def write(self, line: str) -> None:
        data = line.encode() + b"\n"
        at = 0
        try:
            at = self._file.tell()
            if self._matching:
                if self._file.read(len(data)) == data:
                    return
                self._file.seek(at)
                self._file.truncate()
                self._matching = False
            view = memoryview(data)
            while view:
                wrote = self._file.write(view)
                if not wrote:
                    raise OSError(0, "no room for the line")
                view = view[wrote:]
        except OSError as exc:
            # A full disk (or a file-size limit) can take part of a line: the file is cut back to its last
            # whole line, so that it holds complete solutions only (a resume writes the rest).
            with contextlib.suppress(OSError):
                self._file.truncate(at)
            raise CpsolveError(f"cannot write the solutions file: {exc.strerror or exc}", where=str(self.path),
                               exit_code=1) from None

    def close(self) -> None:
        """Close the file; lines past what was written again stay (the next resume deals with them)."""
        try:
            self._file.close()
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(self.path),
                               exit_code=1) from None


def rows_as_placements(problem: ExactCoverProblem, rows: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    return [(problem.rows[r].piece, problem.rows[r].cells) for r in rows]


def class_line(puzzle: str, index: int, assemblies: int, mirror_distinct: bool, pieces: dict[str, list[Cell]],
               extra: dict[str, object] | None = None, id: str | None = None) -> str:
    """One line of the solutions file; `extra` adds keys after `pieces` (`enumerate --disassemble`
    adds `level` and `moves`); `id`, the class's stable id, goes after `class` (None: no `id` key)."""
    # The same text json.dumps(record, separators=(",", ":")) gives, written directly: a run with many
    # classes writes one line per class (Bedlam: 19,186), and the generic encoder cost 30 µs a line.
    cells = ",".join(json.dumps(k) + _cells_text(v) for k, v in pieces.items())
    return _record(json.dumps(puzzle), index, assemblies, mirror_distinct, cells, extra, id)


def _cells_text(cells: Sequence[Cell]) -> str:
    """`:[[x,y,z],...]`, the JSON text of a piece's cells after its label."""
    return ":[" + ",".join(f"[{c[0]},{c[1]},{c[2]}]" for c in cells) + "]"


def _record(puzzle_json: str, index: int, assemblies: int, mirror_distinct: bool, pieces_text: str,
            extra: dict[str, object] | None, id: str | None = None) -> str:
    """A solutions-file line around the text of its pieces (`class_line` and `LineWriter` both)."""
    named = "" if id is None else f'"id":"{id}",' if id.isalnum() and id.isascii() else f'"id":{json.dumps(id)},'
    head = (f'{{"puzzle":{puzzle_json},"class":{int(index)},{named}"assemblies":{int(assemblies)},'
            f'"mirror_distinct":{"true" if mirror_distinct else "false"},"pieces":{{{pieces_text}}}')
    if not extra:
        return head + "}"
    return head + "," + json.dumps(extra, separators=(",", ":"))[1:]


class LineWriter:
    """`class_line(..., labelled(problem, placements))` for one problem, with the text of each
    placement's cells kept: a run with many classes writes one line per class (Bedlam: 19,186, every
    placement moved into canonical position is one of a few thousand), and building the text of 64
    cells from their coordinates cost 40 µs a line, most of a run's work per solution."""

    LIMIT = 250_000
    """Placements whose text is kept (then the store starts again): bounded memory on huge puzzles."""

    def __init__(self, puzzle: str, problem: ExactCoverProblem):
        self.problem = problem
        self.puzzle = json.dumps(puzzle)
        self.names = [json.dumps(name) for name in problem.piece_names]
        self.numbered = [problem.piece_counts[p] > 1 for p in range(problem.n_pieces)]
        self.texts: dict[tuple[int, ...], str] = {}
        self.copy_names: dict[tuple[int, int], str] = {}

    def _cells(self, cells: tuple[int, ...]) -> str:
        """The text `:[[x,y,z],...]` of a placement's cells, made and kept."""
        if len(self.texts) >= self.LIMIT:
            self.texts = {}
        at = self.problem.cells
        text = self.texts[cells] = _cells_text(sorted(at[i] for i in cells))
        return text

    def _copy_name(self, piece: int, k: int) -> str:
        """The JSON text of the label of copy k (from 1) of a piece with several copies, made and kept."""
        name = self.copy_names[piece, k] = json.dumps(f"{self.problem.piece_names[piece]}#{k}")
        return name

    def line(self, index: int, assemblies: int, mirror_distinct: bool,
             placements: Sequence[tuple[int, tuple[int, ...]]], extra: dict[str, object] | None = None,
             id: str | None = None) -> str:
        """The line of one class; `placements` as `SolutionClass.placements` holds them: (piece index,
        sorted cell indices), in sorted order, which is the order of the labels and copy numbers."""
        parts = []
        copy = [0] * len(names := self.names)
        texts, numbered = self.texts, self.numbered  # the loop runs per placement: locals
        for piece, cells in placements:
            text = texts.get(cells) or self._cells(cells)
            if numbered[piece]:
                copy[piece] = k = copy[piece] + 1
                parts.append((self.copy_names.get((piece, k)) or self._copy_name(piece, k)) + text)
            else:
                parts.append(names[piece] + text)
        return _record(self.puzzle, index, assemblies, mirror_distinct, ",".join(parts), extra, id)


def rows_of(problem: ExactCoverProblem, pieces: Mapping[str, Sequence[Sequence[int]]]) -> list[int] | None:
    """The rows of `problem` that place `pieces` ({label: cells}, as `labelled` writes them), or None when a
    piece is not one of the problem's placements (another puzzle, a chain's numbered cubes)."""
    piece_of = {name: i for i, name in enumerate(problem.piece_names)}
    cell_of = {c: i for i, c in enumerate(problem.cells)}
    row_of = {(row.piece, tuple(sorted(row.cells))): r for r, row in enumerate(problem.rows)}
    rows = []
    for label, cells in pieces.items():
        piece = piece_of.get(label.rpartition("#")[0] if "#" in label else label)
        try:
            key = (piece, tuple(sorted(cell_of[(int(c[0]), int(c[1]), int(c[2]))] for c in cells)))
        except KeyError:
            return None
        if (row := row_of.get(key)) is None:  # type: ignore[arg-type]
            return None
        rows.append(row)
    return rows


def sort_by_id(path: Path, ids: Sequence[str]) -> None:
    """Rewrite a solutions file in the order of its classes' ids, each line's `class` its rank among `ids`
    (every class of the puzzle: a file that holds only some, `--min-level`, keeps the ranks of all), so
    that two complete runs of one puzzle write the same bytes, whatever their backend or workers. The
    file is written beside and renamed into place: a kill leaves the old file or the new one."""
    rank = {k: i for i, k in enumerate(sorted(ids))}
    try:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        records.sort(key=lambda r: str(r.get("id")))
        for r in records:
            r["class"] = rank[r["id"]]
        temporary = path.with_name(f".{path.name}.sorting")
        with open(temporary, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        raise CpsolveError(f"cannot sort the solutions file: {exc.strerror or exc}", where=str(path),
                           exit_code=1) from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(number from 1, text) of each line of a solutions file, each read no further than the file-size
    limit (`--max-file-bytes`): a line of 1.5 GB was read whole (3.1 GB)."""
    limit = active().max_file_bytes
    try:
        with path.open(encoding="utf-8") as fh:
            for n in itertools.count(1):
                line = fh.readline(limit + 1)
                if not line:
                    return
                if len(line) > limit:
                    raise CpsolveError(exceeded("max_file_bytes", "the line's length", None).message,
                                       where=f"{path}:{n}")
                yield n, line
    except (OSError, UnicodeDecodeError) as exc:
        raise unreadable(path, exc) from None


def iter_solutions(path: Path, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number from 1, record) of each solution line from line `start` (0-based), each parsed and
    checked as it is read (`_parse_line`): one line in memory at a time, for files of any length."""
    for n, line in _lines(path):
        if n > start and line.strip():
            yield n, _parse_line(line, path, n)


def read_solutions(path: Path, limit: int = 0, start: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """The solution lines of a JSON-lines file from line `start` (the first `limit` when > 0), as
    `iter_solutions` gives them; a file with none there is an error."""
    out = list(itertools.islice(iter_solutions(path, start), limit or None))
    if not out:
        if start:
            n = sum(1 for _ in _lines(path))
            raise CpsolveError(f"holds {n} solutions (indices 0 to {n - 1}); there is no index {start}",
                               where=str(path))
        raise CpsolveError("holds no solutions", where=str(path))
    return out


def is_solution_line(line: bytes) -> bool:
    """Whether a file whose first line is `line` is a solutions file (what `cpsolve.source` asks): that line is
    a JSON object with `pieces`, and not a puzzle file written as one line of JSON, whose `pieces` maps
    names to pieces (mappings), where a solution's maps labels to cells (lists)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return False
    if not isinstance(record, dict) or "pieces" not in record:
        return False
    pieces = record["pieces"]
    return not (isinstance(pieces, dict) and pieces and all(isinstance(v, dict) for v in pieces.values()))


def _parse_line(line: str, path: Path, n: int) -> dict[str, Any]:
    """Line `n` (from 1) as a record, its pieces' cells as tuples, checked for what needs no puzzle
    (`check_cells`: labels, no cell twice, the limits on cells and the bounding box)."""
    where = f"{path}:{n}"
    try:
        record: dict[str, Any] = json.loads(line)
        pieces = record["pieces"]
        ok = isinstance(pieces, dict) and pieces and all(
            isinstance(cells, list) and cells and all(
                isinstance(c, list) and len(c) == 3 and all(type(v) is int for v in c) for c in cells)
            for cells in pieces.values()
        )
    except (json.JSONDecodeError, KeyError, TypeError, RecursionError):
        ok = False
    if not ok:
        raise CpsolveError("not a solution line written by 'cpsolve enumerate --out'", where=where)
    record["pieces"] = {k: [(c[0], c[1], c[2]) for c in cells] for k, cells in pieces.items()}
    if (why := check_cells(record["pieces"])) is not None:
        raise CpsolveError(why, where=where)
    return record
