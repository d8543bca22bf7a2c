"""What a journal file holds and how it is read back: its format, tables and digest, the records a run
restores (`Restored`, `Summary`), and the checks every value passes before a journal is trusted
(`_inspect`, `_Checker`). Writing a journal is `journal.Journal`'s; this module never writes.

Why apart: the checks are most of the code that reads a journal (the type and range of every value, the
cross-checks of counts, the digest: see `journal`'s docstring for what they protect), and a reader such
as `cpsolve journal FILE` needs nothing of the writing side.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

from ..errors import CpsolveError
from ..problem.placements import ExactCoverProblem
from ..problem.symmetry import BrokenProblem

if TYPE_CHECKING:
    import sqlite3  # imported where a journal is opened: a run without one (--no-save) never loads it


FORMAT = 3
"""Bumped when the tables or their meaning change; a journal of another format is refused in one line.
Format 2: the command as a JSON list, the digest, the planned parts and the numberings in meta.
Format 3: no keys (classes are counted per part, the digests of the classes written by unfinished parts,
the last commit's classes whole), the classes written and the solutions file's size in meta."""

MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE parts (
    part INTEGER PRIMARY KEY, prefix TEXT NOT NULL, size REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0, weighted INTEGER, found INTEGER, rotations INTEGER, orbits INTEGER,
    classes INTEGER, assemblies INTEGER, mirrors INTEGER, nodes INTEGER, seconds REAL, finished_at REAL);
CREATE TABLE written (digest BLOB PRIMARY KEY, part INTEGER NOT NULL, session INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE tail (
    idx INTEGER PRIMARY KEY, id TEXT NOT NULL, assemblies INTEGER NOT NULL, mirror_distinct INTEGER NOT NULL,
    placements TEXT NOT NULL);
"""

COUNTS = ("weighted", "found", "rotations", "orbits", "classes", "assemblies", "mirrors")
"""What a finished part counted (see `PartCounts`), as the parts table's columns."""

_COLUMNS = {
    "meta": "key, value",
    "parts": f"part, prefix, size, done, {', '.join(COUNTS)}, nodes",
    "written": "digest, part, session",
    "tail": "idx, id, assemblies, mirror_distinct, placements",
}
"""The columns the digest covers, per table (a part's seconds and finish time are not counted on)."""
LATEST = 253402300799.0
"""The last second of the year 9999: a journal's times lie between 1970 and this (what `time.localtime` shows)."""
_UNDIGESTED = ("updated", "digest")
"""Meta keys outside the digest: the time of the last commit changes with every commit."""
_MOD = 1 << 128


def fingerprint(broken: BrokenProblem) -> str:
    """A digest of the problem as searched: rows, pieces, optional cells, the key and its weights.

    Two runs with the same fingerprint count the same solutions with the same weights, whichever
    backend or number of workers they use; anything else (an edited puzzle file, symmetry breaking
    switched off) changes it.
    """
    p = broken.problem
    data = {
        "cells": p.cells,
        "pieces": p.piece_names,
        "counts": p.piece_counts,
        "low": p.piece_low,
        "optional": p.optional,
        "classes": p.cell_classes,
        "rows": [(r.piece, r.cells) for r in p.rows],
        "side": p.side_clauses,
        "labels": p.label_symmetries,
        "key": broken.key_rows,
        "weights": broken.weights,
    }
    import hashlib

    return hashlib.blake2b(json.dumps(data, separators=(",", ":")).encode(), digest_size=16).hexdigest()


class DamagedJournal(CpsolveError):
    """A cpsolve journal whose content fails its checks: kept as it is, never resumed or replaced."""


PartCounts = tuple[int, int, int, int, int, int, int]
"""What one part counted, in the order of COUNTS: weighted, found, rotation classes, their orbits, classes,
their assemblies, how many of them have a distinct mirror image."""


@dataclass(frozen=True)
class Restored:
    """What a journal says about a run so far."""

    parts: tuple[tuple[int, ...], ...]
    sizes: tuple[float, ...]
    done: frozenset[int]
    counts: PartCounts
    """The finished parts' counts, added up."""
    work_done: float
    """Search nodes of the finished parts (their estimated size where the backend counts no nodes)."""
    written: int
    """Classes written (handed on) so far: the next class's index."""
    out_bytes: int
    """The solutions file's size when the tail was committed: everything before the tail's lines."""
    pending: int
    """Classes written by parts not finished: a resume looks up each class it opens (`was_written`)."""
    session: int = 0
    """The number of the run that wrote the journal last (0: the first; one more at each resume)."""

    @property
    def weighted(self) -> int:
        return self.counts[0]

    @property
    def found(self) -> int:
        return self.counts[1]


@dataclass(frozen=True)
class Summary:
    """Where a journalled run stands (`cpsolve journal FILE`)."""

    puzzle: str
    fingerprint: str
    argv: tuple[str, ...]
    """The command that started the run, as its words (`cpsolve enumerate ...`)."""
    started: float
    updated: float
    parts: int
    parts_done: int
    size: float
    """The search's size in nodes: the finished subproblems' as measured, the others' as estimated (so a
    complete run is 100 % done, never 108 %)."""
    size_done: float
    found: int
    """Solutions the backend reported in the finished subproblems (one per kept key placement)."""
    classes: int
    """Classes up to rotation and reflection written so far, finished subproblems or not: the lines of the
    solutions file."""
    rotation_classes: int
    """Classes up to rotation in the finished subproblems (all of them once the run is complete)."""
    complete: bool
    total: int = 0
    """Assemblies in all counted in the finished subproblems: a complete run's first count."""

    @property
    def command(self) -> str:
        """The command, quoted for a POSIX shell: a crafted journal cannot make `; rm -rf /` of it."""
        return shlex.join(self.argv)

    @property
    def resume_command(self) -> str:
        """The command that continues the run: the run's own, with --resume, and without --limit (a run that
        stopped at its limit would stop again at once: the classes it wrote count toward the limit)."""
        words = _without_limit(self.argv)
        return shlex.join(words if "--resume" in words else (*words, "--resume"))

    @property
    def holds_work(self) -> bool:
        """Whether replacing the journal would lose work: a finished subproblem. Classes found in subproblems
        not finished are not (a resume searches those subproblems again from their start and finds them
        again): after `enumerate soma --limit 5` a plain `enumerate soma` replaces the journal, as the
        README says of a journal with nothing done, where it was refused ("add --resume")."""
        return bool(self.parts_done)

    def as_json(self) -> dict[str, object]:
        return {**self.__dict__, "argv": list(self.argv), "command": self.command}


def _without_limit(argv: Sequence[str]) -> tuple[str, ...]:
    """The words of a command without its --limit option (`--limit N`, `--limit=N`)."""
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--limit":
            skip = True
        elif not word.startswith("--limit="):
            out.append(word)
    return tuple(out)


@dataclass(frozen=True)
class _Contents:
    summary: Summary
    restored: Restored
    digest: int


def _is_journal_file(path: Path) -> bool:
    """Whether something is at `path`: False when nothing is; raises when it is not a regular file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise CpsolveError(f"cannot read the journal: {exc.strerror or exc}", where=str(path)) from None
    if not stat.S_ISREG(mode):
        raise CpsolveError("not a regular file (a device, a folder or a pipe): a journal needs a file of its own",
                           where=str(path))
    return True


def _inspect(path: Path, broken: BrokenProblem | None = None) -> _Contents:
    """Read and check the journal at `path` without writing anything; `broken`, the problem a resume
    searches, adds the checks that need it. Raises CpsolveError for what is not a cpsolve journal of this
    format, DamagedJournal for one that fails a check."""
    if not _is_journal_file(path):
        raise CpsolveError("no such journal", where=str(path))
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise CpsolveError(f"cannot read the journal: {exc.strerror or exc}", where=str(path)) from None
    if not head.startswith(MAGIC):
        raise CpsolveError(f"not a cpsolve journal ({'an empty file' if not head else 'no SQLite header'})",
                           where=str(path))
    # A WAL database opened read-only makes its -wal and -shm files if they are not there: when there is
    # no -wal there is nothing in one to read, and the file is opened as immutable, which makes none.
    quiet = len(head) > 18 and head[18] == 2 and not os.path.lexists(f"{path}-wal")
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro{'&immutable=1' if quiet else ''}"
    import sqlite3

    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
    except sqlite3.Error as exc:
        raise CpsolveError(f"cannot read the journal ({exc})", where=str(path)) from None
    try:
        db.execute("BEGIN")  # one snapshot, however many commits the run makes meanwhile
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise CpsolveError(f"not a cpsolve journal ({exc})", where=str(path)) from None
        if "format" not in meta or "fingerprint" not in meta:
            raise CpsolveError("not a cpsolve journal (no format or fingerprint in its meta table)", where=str(path))
        if meta["format"] != str(FORMAT):
            raise CpsolveError(f"journal format {meta['format']!r}, this cpsolve reads {FORMAT}: finish that run with "
                               "the cpsolve that wrote it, or move the file away", where=str(path))
        try:
            return _Checker(db, path, broken).run()
        except sqlite3.DatabaseError as exc:
            raise DamagedJournal(f"damaged journal ({exc})", where=str(path)) from None
    finally:
        db.close()


def _row_hash(table: str, row: Sequence[object]) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(repr((table, tuple(row))).encode(), digest_size=16).digest(), "big")


def _hex(total: int) -> str:
    return f"{total % _MOD:032x}"


def _rows(db: sqlite3.Connection, table: str, acc: list[int]) -> Iterator[tuple[object, ...]]:
    """The digested columns of a table's rows, in key order, each row's hash added to acc[0]."""
    where = f" WHERE key NOT IN {_UNDIGESTED}" if table == "meta" else ""
    for row in db.execute(f"SELECT {_COLUMNS[table]} FROM {table}{where} ORDER BY 1"):
        acc[0] += _row_hash(table, row)
        yield row


def _digest(db: sqlite3.Connection) -> str:
    """The digest of a journal's content as it is now (what meta's `digest` must say)."""
    acc = [0]
    for table in _COLUMNS:
        for _ in _rows(db, table, acc):
            pass
    return _hex(acc[0])


PartRow = tuple[object, ...]


def _part_row(i: int, prefix: Sequence[int], size: float) -> PartRow:
    """A new part's row (the digested columns), in the types SQLite gives back (the digest hashes what is
    read): not done, no counts, no nodes."""
    return (i, json.dumps([int(r) for r in prefix]), float(size), 0, *(None for _ in COUNTS), None)


@dataclass(frozen=True)
class _Meta:
    """A journal's meta table, checked."""

    fingerprint: str
    puzzle: str
    argv: tuple[str, ...]
    numberings: int
    planned: int
    started: float
    updated: float
    complete: bool
    classes: int
    out_bytes: int
    session: int
    digest: str


T = TypeVar("T")


def _is_count(v: object, least: int = 0) -> bool:
    return type(v) is int and v >= least


class _Checker:
    """One pass over a journal's tables: the type and range of every value, the digest, the cross-checks
    of counts; the summary and what a resume restores."""

    def __init__(self, db: sqlite3.Connection, path: Path, broken: BrokenProblem | None):
        self.db, self.path, self.broken = db, path, broken
        self.problem: ExactCoverProblem | None = None if broken is None else broken.problem
        self.acc = [0]

    def bad(self, what: str) -> DamagedJournal:
        return DamagedJournal(f"damaged journal: {what}", where=str(self.path))

    def run(self) -> _Contents:
        problems = self.db.execute("PRAGMA quick_check(1)").fetchone()
        if problems != ("ok",):
            said = " ".join(str(problems[0] if problems else "no answer").split())
            raise self.bad(f"SQLite finds it corrupt ({said})")
        # Nothing beside the tables cpsolve makes: a trigger (or a view, a table, an index) added by hand runs
        # on a resume's writes and could change them behind the checks (a trigger deleting classes passed).
        for kind, name in self.db.execute("SELECT type, name FROM sqlite_master ORDER BY 1, 2"):
            if not (kind == "table" and name in _COLUMNS or kind == "index" and str(name).startswith("sqlite_auto")):
                raise self.bad(f"it holds {kind} {str(name)[:40]!r}, which cpsolve never makes")
        meta = {key: value for key, value in _rows(self.db, "meta", self.acc)}
        every = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        m = self.meta(meta, every)
        if self.broken is not None and m.fingerprint != fingerprint(self.broken):
            # Said before the checks that need the problem: they would all fail on another problem's journal.
            raise CpsolveError(
                f"this journal is of a different problem (puzzle {m.puzzle}, another piece set, container or "
                "symmetry breaking): resume it with the same puzzle and options", where=str(self.path),
                field="journal")
        parts = self.parts(m.planned)
        pending = self.written(len(parts), m.session)
        tail = self.tail()
        all_done = all(p[3] for p in parts)
        done = [p for p in parts if p[3]]
        weighted, found, rotations, orbits, classes, assemblies, mirrors = (sum(p[4][k] for p in done)
                                                                           for k in range(len(COUNTS)))
        if m.classes != classes + pending:
            raise self.bad(f"{m.classes} classes written, but the finished subproblems counted {classes} and the "
                           f"others wrote {pending}")
        if tail and tail != list(range(m.classes - len(tail), m.classes)):
            raise self.bad(f"the last classes recorded are numbered {tail[0]} to {tail[-1]}, {m.classes} were written")
        if m.complete and not all_done:
            raise self.bad(f"marked complete with {sum(not p[3] for p in parts)} subproblems not done")
        if all_done and not (rotations == classes + mirrors and orbits == assemblies
                             and weighted == m.numberings * orbits):
            raise self.bad(f"every subproblem is done, but their weights add up to {weighted} and the classes' "
                           f"assemblies to {assemblies} (x{m.numberings}), the rotation classes' orbits to "
                           f"{orbits}, {rotations} rotation classes for {classes} classes and {mirrors} mirror images")
        if _hex(self.acc[0]) != m.digest:
            raise self.bad("its content does not match its digest (edited by hand, or damaged)")
        summary = Summary(
            puzzle=m.puzzle, fingerprint=m.fingerprint, argv=m.argv, started=m.started,
            updated=m.updated, parts=len(parts), parts_done=len(done),
            size=math.fsum((p[5] or p[2]) if p[3] else p[2] for p in parts),
            size_done=math.fsum((p[5] or p[2]) for p in done), found=found, classes=m.classes,
            rotation_classes=rotations, complete=m.complete, total=weighted // m.numberings)
        restored = Restored(
            parts=tuple(p[1] for p in parts), sizes=tuple(p[2] for p in parts),
            done=frozenset(p[0] for p in done), counts=(weighted, found, rotations, orbits, classes, assemblies,
                                                        mirrors),
            work_done=math.fsum((p[5] or p[2]) for p in done), written=m.classes, out_bytes=m.out_bytes,
            pending=pending, session=m.session)
        return _Contents(summary, restored, int(m.digest, 16))

    def meta(self, meta: dict[object, object], every: dict[object, object]) -> _Meta:
        def value(key: str, parse: Callable[[str], T], source: dict[object, object] = meta) -> T:
            raw = source.get(key)
            try:
                if not isinstance(raw, str):
                    raise ValueError
                return parse(raw)
            except (ValueError, TypeError):
                shown = "missing" if raw is None else repr(raw)[:40]
                raise self.bad(f"meta {key} is {shown}") from None

        def digest(s: str) -> str:
            if not re.fullmatch("[0-9a-f]{32}", s):
                raise ValueError
            return s

        def words(s: str) -> tuple[str, ...]:
            v = json.loads(s)
            if not (isinstance(v, list) and all(isinstance(w, str) for w in v)):
                raise ValueError
            return tuple(v)

        def count(s: str) -> int:
            v = int(s)
            if v < 1:
                raise ValueError
            return v

        def flag(s: str) -> bool:
            if s not in ("0", "1"):
                raise ValueError
            return s == "1"

        def size(s: str) -> int:
            v = int(s)
            if v < 0:
                raise ValueError
            return v

        def moment(s: str) -> float:
            """A time (seconds since 1970) that a calendar can show: `updated` is outside the digest, and inf
            or 1e300 there reached `cpsolve journal` as an OverflowError."""
            v = float(s)
            if not 0 <= v <= LATEST:
                raise ValueError
            return v

        out = _Meta(fingerprint=value("fingerprint", digest), puzzle=value("puzzle", str), argv=value("argv", words),
                    numberings=value("numberings", count), planned=value("planned", count),
                    started=value("started", moment), updated=value("updated", moment, every),
                    complete=value("complete", flag), classes=value("classes", size),
                    out_bytes=value("out_bytes", size), session=value("session", size),
                    digest=value("digest", digest, every))
        if self.problem is not None and out.numberings != 1 + len(self.problem.label_symmetries):
            raise self.bad(f"meta numberings is {out.numberings}, the puzzle has "
                           f"{1 + len(self.problem.label_symmetries)}")
        return out

    def parts(self, planned: int) -> list[tuple[int, tuple[int, ...], float, int, PartCounts, int]]:
        """(index, prefix, size, done, counts, nodes) of every part."""
        out: list[tuple[int, tuple[int, ...], float, int, PartCounts, int]] = []
        n_rows = None if self.problem is None else len(self.problem.rows)
        for i, (part, prefix, size, done, *counted, nodes) in enumerate(_rows(self.db, "parts", self.acc)):
            if part != i:
                raise self.bad(f"subproblem {i} is missing")
            try:
                rows = json.loads(prefix) if isinstance(prefix, str) else None
            except ValueError:
                rows = None
            if not (isinstance(rows, list) and all(_is_count(r) and (n_rows is None or r < n_rows) for r in rows)):
                raise self.bad(f"subproblem {i}'s prefix is {str(prefix)[:40]!r}")
            if not (isinstance(size, (int, float)) and math.isfinite(size) and size >= 0):
                raise self.bad(f"subproblem {i}'s size is {size!r}")
            values = (*counted, nodes)
            if type(done) is not int or done not in (0, 1) \
                    or not (all(_is_count(v) for v in values) if done else all(v is None for v in values)):
                raise self.bad(f"subproblem {i}: done {done!r} with {', '.join(COUNTS)}, nodes {values!r}")
            counts = tuple(v or 0 for v in counted)
            out.append((i, tuple(rows), float(size), done, counts, nodes or 0))  # type: ignore[arg-type]
        if not 0 < planned <= len(out):
            raise self.bad(f"{len(out)} subproblems, {planned} planned")
        prefixes = {p[1] for p in out}
        if len(prefixes) != len(out):
            raise self.bad("two subproblems have the same prefix")
        finished = {p[1] for p in out if p[3]}
        for p in out[planned:]:  # given back by a part that ran over: below a finished part's prefix
            if not any(p[1][:k] in finished for k in range(len(p[1]))):
                raise self.bad(f"subproblem {p[0]} was given back by no finished subproblem")
        if self.broken is not None:
            from .parts import tiles

            if not tiles(self.broken, [p[1] for p in out[:planned]]):
                raise self.bad("its planned subproblems do not partition the search")
        return out

    def written(self, n_parts: int, sessions: int) -> int:
        """The rows of classes written by unfinished parts, checked; how many."""
        n = 0
        for digest, part, session in _rows(self.db, "written", self.acc):
            if not (isinstance(digest, bytes) and len(digest) == 16 and isinstance(part, int) and 0 <= part < n_parts
                    and isinstance(session, int) and 0 <= session <= sessions):
                raise self.bad(f"a class written with digest {str(digest)[:20]!r} by part {part!r} in session "
                               f"{session!r}")
            n += 1
        return n

    def tail(self) -> list[int]:
        """The last commit's classes, checked; their indices."""
        out: list[int] = []
        p = self.problem
        for idx, id_, asm, mirror, placements in _rows(self.db, "tail", self.acc):
            try:
                pieces = json.loads(placements) if isinstance(placements, str) else None
            except ValueError:
                pieces = None
            shaped = isinstance(pieces, list) and all(
                isinstance(x, list) and len(x) == 2 and _is_count(x[0]) and isinstance(x[1], list)
                and all(_is_count(c) for c in x[1]) for x in pieces)
            if shaped and p is not None:  # shaped: a list of [piece, [cells]]
                shaped = all(x[0] < p.n_pieces and all(c < len(p.cells) for c in x[1]) for x in pieces)  # type: ignore
            if not (shaped and _is_count(idx) and isinstance(id_, str) and re.fullmatch("[0-9a-f]{16}", id_)
                    and isinstance(asm, int) and asm >= 1 and isinstance(mirror, int) and mirror in (0, 1)
                    and (not mirror or asm % 2 == 0)):
                raise self.bad(f"class {idx!r} (assemblies {asm!r}, mirror_distinct {mirror!r}, placements "
                               f"{str(placements)[:30]!r})")
            out.append(idx)  # type: ignore[arg-type]
        return out


# -- writing files ----------------------------------------------------------------------------------


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once links are resolved, or the same inode (a hard
    link); false when either cannot be looked at."""
    try:
        return os.path.realpath(a) == os.path.realpath(b) or os.path.samefile(a, b)
    except OSError:
        return False
