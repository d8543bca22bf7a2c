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
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CpsolveError, unreadable
from ..limits import active, exceeded
from ..problem.placements import ExactCoverProblem
from ..puzzle.assembly import check_cells
from ..puzzle.geometry import Cell
from ..puzzle.model import Puzzle, digest
from ..puzzle.names import safe_stem
from .files import replacing


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


class SolutionsFile:
    """The solutions file as a run writes it: one line per class, each flushed.

    A fresh run empties it (`keep` None). A resumed run keeps its first `keep` bytes (what the journal
    recorded: every line before its last commit's classes) and cuts what follows only where it differs:
    the journal's last classes come again first, in order, and each line that is already there, the same,
    is passed over instead of written again; the file is cut at the first line that differs (lines written
    past the journal before a full disk, or edited by hand). The file is always a prefix of the journal's
    classes (see enumeration.py), so a resume only ever appends to it: a kill in the middle of one loses
    no line. A file shorter than `keep` lost lines the journal counts as written: refused, as nothing can
    write them again.
    """

    def __init__(self, path: Path, keep: int | None = None):
        self.path = path
        try:
            self._matching = keep is not None and path.is_file()
            if keep and not self._matching:
                raise CpsolveError(f"is not there, but the journal recorded {keep} bytes of solutions written to it: "
                                   "the solutions of a resumed run go on from those (move the journal away to start "
                                   "again)", where=str(path))
            # Unbuffered: each line goes to the kernel whole as it is written (it was flushed at once anyway),
            # so that a line the disk has no room for can be taken back (below).
            self._file = open(path, "r+b" if self._matching else "wb", buffering=0)  # noqa: SIM115 - close()
            if keep:
                size = os.fstat(self._file.fileno()).st_size
                if size < keep:
                    self._file.close()
                    raise CpsolveError(f"holds {size} bytes, but the journal recorded {keep} bytes of solutions "
                                       "written to it: it was cut or replaced since (move the journal away to start "
                                       "again)", where=str(path))
                self._file.seek(keep)
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path)) from None
        self.size = keep or 0
        """Bytes of whole lines in the file up to the last one written or passed over."""

    def write(self, line: str) -> None:
        data = line.encode() + b"\n"
        at = self.size
        try:
            if self._matching:
                if self._file.read(len(data)) == data:
                    self.size += len(data)
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
            self.size += len(data)
        except OSError as exc:
            # A full disk (or a file-size limit) can take part of a line: the file is cut back to its last
            # whole line, so that it holds complete solutions only (a resume writes the rest).
            with contextlib.suppress(OSError):  # nothing to cut back on a pipe or a device
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


def origin_record(puzzle: Puzzle, solutions: Path | None = None) -> dict[str, str]:
    """What each line keeps to find its puzzle again (`origin`), whatever the puzzle's name says: a name can
    rebind (a file whose `name:` is soma is not the built-in Soma). `sha256`: the puzzle's digest
    (`model.digest`); for a puzzle read from a file, `path`: the file from the folder of the solutions file
    (`solutions`, when known; else as it was given), so that it is found again from wherever the lines are
    read, and the lines are the same from whatever folder the run (or its resume, which checks the lines
    already written byte for byte) was started. A built-in model has no path: its name finds it."""
    from ..puzzle.catalog import models_dir

    record = {"sha256": digest(puzzle)}
    origin = puzzle.origin
    if origin and Path(origin).parent != models_dir():
        record["path"] = origin if solutions is None else os.path.relpath(os.path.abspath(origin),
                                                                          os.path.abspath(solutions.parent))
    return record


def class_line(puzzle: str, index: int, assemblies: int, mirror_distinct: bool, pieces: dict[str, list[Cell]],
               extra: dict[str, object] | None = None, id: str | None = None,
               origin: Mapping[str, str] | None = None) -> str:
    """One line of the solutions file; `extra` adds keys after `pieces` (`enumerate --disassemble`
    adds `level` and `moves`); `id`, the class's stable id, goes after `class` (None: no `id` key);
    `origin` (`origin_record`) after `puzzle`."""
    # The same text json.dumps(record, separators=(",", ":")) gives, written directly: a run with many
    # classes writes one line per class (Bedlam: 19,186), and the generic encoder cost 30 µs a line.
    cells = ",".join(json.dumps(k) + _cells_text(v) for k, v in pieces.items())
    return _record(_head(puzzle, origin), index, assemblies, mirror_distinct, cells, extra, id)


def _head(puzzle: str, origin: Mapping[str, str] | None) -> str:
    """The JSON text of a line's `puzzle` value, and its `origin` key after it when there is one."""
    named = json.dumps(puzzle)
    return named if origin is None else f'{named},"origin":{json.dumps(dict(origin), separators=(",", ":"))}'


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

    def __init__(self, puzzle: str, problem: ExactCoverProblem, origin: Mapping[str, str] | None = None):
        self.problem = problem
        self.puzzle = _head(puzzle, origin)
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
    except OSError as exc:
        raise CpsolveError(f"cannot sort the solutions file: {exc.strerror or exc}", where=str(path),
                           exit_code=1) from None
    records.sort(key=lambda r: str(r.get("id")))
    for r in records:
        r["class"] = rank[r["id"]]
    with replacing(path, "w") as out:
        out.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


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
