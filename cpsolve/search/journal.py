"""A run's journal: finished subproblems and the solution classes found, in SQLite, so that a run
killed at any moment (`kill -9`, a reboot, power loss) can be resumed without losing or doubling
anything.

Why these records are enough. A run is a fixed list of subproblems that partition the solutions.
Every count a run reports is a sum over solutions (see problem/canonical.py: a class is counted by the
one solution that is its representative, so no class is remembered), so each finished subproblem
carries its own counts: solutions found and their weights, rotation classes and their orbits, classes,
their assemblies and mirror images. They are written in the same transaction that marks it finished;
an unfinished one is run again from the start on resume, and counts its classes again.

Its classes must not be *written* again, though. The journal holds a 128-bit digest of every class
written by a subproblem not yet finished (`written`, with the part that wrote it and the session: the
run, or the resume, that wrote it). When a part finishes, the rows it wrote or claimed in this session
go: it has counted them. A resumed run looks each class it opens up there: one that is there was
written before the stop, and is counted but not written again, and claimed by the part that met it
now. Rows of an earlier session stay until a part claims them: a part run again with another node
budget may give back the region where its first run had found them, and it is the parts made of that
region that meet them again.
So the journal's size on disk follows the classes of the parts in flight, and a run's memory none.

Classes are numbered in the order written, and handed on (to the solutions file) only once committed,
so the file is always a prefix of what the journal counts as written. The journal keeps the whole
record of the last commit's classes (`tail`: replaced by each commit, which is made only once every
class handed on before it is in the file: the caller's `written()`, with the file's size then): a
resume cuts nothing, passes over the tail's lines already in the file, writes the others, and goes on.

The journal also records a fingerprint of the problem as searched (its rows, the symmetry-breaking
key and weights: everything that does not depend on the backend) and the list of subproblems, so a
resume uses exactly the same split, whatever `--workers` says, and refuses a different problem.

A part that ran far longer than estimated gives back what it had not searched, as new parts (see
`_xcover.c`): they are added in the transaction that marks it finished, so the list of parts always
partitions the solutions: before that commit the part is unfinished and is run again whole.

What protects the user's files and the counts (README, "What a journal can and cannot survive"):

- A journal is created whole: built under a temporary name beside it and renamed into place, so a
  file at a journal's path is either a complete first transaction or not cpsolve's. Anything there
  that is not a regular file, or not a cpsolve journal, is refused and left alone; so is the
  solutions file or the puzzle file named as the journal.
- Every transaction keeps a digest of the rows that count (meta, parts, classes written, the tail: a
  sum of per-row hashes, so that it is updated with the rows a transaction writes), and opening a
  journal recomputes it and cross-checks the counts (the classes written against the finished parts'
  classes and the rows of the others, the tail's indices, and, once every part is done, the weights
  against the orbits, the orbits against the classes' assemblies, the rotation classes against the
  classes and their mirror images). A journal that fails is "damaged": said in one line, kept as it is, never
  resumed, never replaced (a fresh run moves it aside to PATH.damaged). The digest catches damage
  and hand edits; it is not a signature (anyone with cpsolve's source can recompute it).
- Reading a journal (`cpsolve journal`, the checks before a run) writes nothing, not even SQLite's
  side files; the first write of a run is its first transaction, before the search starts, so a
  full disk or a read-only journal is said before any work.

SQLite (stdlib) in WAL mode with `synchronous=FULL`: each commit is durable once it returns, a
crash in the middle of one leaves the previous state, and `cpsolve journal FILE` can read the file
while the run writes it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shlex
import stat
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

from ..errors import CpsolveError, CpsolveNotice
from ..problem.placements import ExactCoverProblem
from ..problem.symmetry import BrokenProblem
from .result import SolutionClass

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


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once links are resolved, or the same inode (a hard
    link); false when either cannot be looked at."""
    try:
        return os.path.realpath(a) == os.path.realpath(b) or os.path.samefile(a, b)
    except OSError:
        return False


def default_journal(solutions: Path) -> Path | None:
    """The journal of a run saving to `solutions`: NAME.journal beside it; none when the solutions go to a
    device or a pipe (`--out /dev/null`), where a journal beside them would be written into /dev."""
    try:
        mode = os.stat(solutions).st_mode
    except OSError:
        mode = stat.S_IFREG  # not there yet (or not reachable: the solutions file's own check says so)
    return solutions.with_name(solutions.name + ".journal") if stat.S_ISREG(mode) else None


Held = tuple[bytes, int, SolutionClass]
"""A class to commit: its digest, the part that found it, and the class (numbered) as it is handed on."""

Others = Sequence[tuple[Path, str]]
"""Files a journal must not be, each with what it is ("the solutions file (--out)", "the puzzle file")."""


class Journal:
    """One run's journal file. Open it with `Journal.start` (a new run) or `Journal.resume`."""

    def __init__(self, path: Path, db: sqlite3.Connection, digest: int, complete: bool, created: bool,
                 written: int = 0, out_bytes: int = 0, session: int = 0):
        self.path = path
        self._db = db
        self._digest = digest
        self._complete = complete
        self.written = written
        """Classes written (committed) so far."""
        self._meta = {"classes": str(written), "out_bytes": str(out_bytes)}
        self.session = session
        """This run's number: 0, then one more at each resume (the rows of classes written are marked with it)."""
        self.created = created
        """Made by this run (so this run may remove it again)."""
        self.failed = False
        """A write failed (a full disk): nothing more is written, the journal stays at its last commit."""

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def start(cls, path: Path, broken: BrokenProblem, puzzle: str, argv: Sequence[str],
              plan: Callable[[], tuple[Sequence[tuple[int, ...]], Sequence[float]]], others: Others = ()) -> Journal:
        """A journal for a new run at `path`, with its subproblems (`plan()`, asked for once the path is
        known to be usable), written whole before it appears there.

        What is at `path` already: a complete run of this problem, or a journal that holds no work, is
        replaced; any other journal is refused (an unfinished run may hold days of work: the user is told
        to add --resume, or to delete the file); a damaged journal is moved aside to PATH.damaged; anything
        else is refused and left as it is.
        """
        digest = fingerprint(broken)
        _check_path(path, others)
        damaged: DamagedJournal | None = None
        if _is_journal_file(path):
            try:
                _refuse_to_replace(_inspect(path).summary, digest, path)
            except DamagedJournal as exc:
                damaged = exc
        parts, sizes = plan()
        meta = {"format": str(FORMAT), "fingerprint": digest, "puzzle": puzzle, "argv": json.dumps(list(argv)),
                "numberings": str(1 + len(broken.problem.label_symmetries)), "planned": str(len(parts)),
                "started": repr(time.time()), "complete": "0", "classes": "0", "out_bytes": "0",
                "session": "0"}
        tmp, total = _build(path, meta, [_part_row(i, p, s) for i, (p, s) in enumerate(zip(parts, sizes, strict=True))])
        try:
            if damaged is not None:
                aside = _move_aside(path)
                warnings.warn(f"{path}: {damaged.message}; moved to {aside}, and the run starts from the beginning",
                              CpsolveNotice, stacklevel=2)
            elif os.path.lexists(path):
                remove(path)
            os.rename(tmp, path)
        except OSError as exc:
            _discard(tmp)
            raise _cannot_write(path, exc) from None
        _sync_folder(path)
        import sqlite3

        try:
            db = _connect(path)
        except sqlite3.Error as exc:
            raise _cannot_write(path, exc) from None
        return cls(path, db, total, complete=False, created=True)

    @classmethod
    def resume(cls, path: Path, broken: BrokenProblem, others: Others = (),
               ready: Callable[[Restored], None] | None = None) -> tuple[Journal, Restored] | None:
        """Open an existing journal of the same problem, and what it says; None when there is none.

        Everything is checked before anything is written, `ready(restored)` (the caller's own checks, which
        may raise) too; then a first write (this resume's number and time), so that a journal that cannot be
        written (a full disk, a read-only file) is said now, not after the work."""
        _check_path(path, others)
        if not _is_journal_file(path):
            return None
        try:
            contents = _inspect(path, broken)
        except DamagedJournal as exc:
            raise DamagedJournal(f"{exc.message}. It is kept as it is: the same command without --resume moves it "
                                 f"aside (to {path}.damaged) and starts again", where=exc.where) from None
        import sqlite3

        restored = contents.restored
        if ready is not None:
            ready(restored)
        session = restored.session + 1
        total = contents.digest - _row_hash("meta", ("session", str(restored.session))) \
            + _row_hash("meta", ("session", str(session)))
        try:
            db = _connect(path)
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("UPDATE meta SET value = ? WHERE key = 'session'", (str(session),))
                db.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (_hex(total),))
                db.execute("UPDATE meta SET value = ? WHERE key = 'updated'", (repr(time.time()),))
        except sqlite3.Error as exc:
            raise _cannot_write(path, exc) from None
        return cls(path, db, total % _MOD, contents.summary.complete, created=False, written=restored.written,
                   out_bytes=restored.out_bytes, session=session), restored

    # -- writing ----------------------------------------------------------------------------------

    def part_done(self, part: int, counts: PartCounts, seconds: float, nodes: int, classes: Sequence[Held],
                  claimed: Sequence[tuple[bytes, int]], out_bytes: int,
                  given_back: Sequence[tuple[int, tuple[int, ...], float]] = ()) -> None:
        """One transaction: the part's counts, the classes held since the last commit (to be handed on once it
        returns), the classes found again that an earlier run had written (`claimed`: digest and part), the
        solutions file's size now (everything handed on before is in it), and the parts it gave back (index,
        prefix, estimated size). The part's rows of classes written go: it has counted them."""
        self._commit(classes, claimed, out_bytes, (part, counts, seconds, nodes), given_back)

    def record(self, classes: Sequence[Held], claimed: Sequence[tuple[bytes, int]], out_bytes: int) -> None:
        """One transaction: classes found by parts still running (see the module's docstring)."""
        self._commit(classes, claimed, out_bytes, None, ())

    def _commit(self, classes: Sequence[Held], claimed: Sequence[tuple[bytes, int]], out_bytes: int,
                done: tuple[int, PartCounts, float, int] | None,
                given_back: Sequence[tuple[int, tuple[int, ...], float]]) -> None:
        if self.failed:
            raise CpsolveError("cannot write the journal after a failed write", where=str(self.path), exit_code=1)
        db = self._db
        new_parts = [_part_row(i, prefix, size) for i, prefix, size in given_back]
        written = [(digest, part, self.session) for digest, part, _ in classes]
        tail = [(c.index, c.id, c.assemblies, int(c.mirror_distinct), json.dumps(c.placements, separators=(",", ":")))
                for _, _, c in classes]
        meta = {"classes": str(self.written + len(classes)), "out_bytes": str(int(out_bytes))}
        total = self._digest + sum(_row_hash("parts", r) for r in new_parts) \
            + sum(_row_hash("written", r) for r in written) + sum(_row_hash("tail", r) for r in tail) \
            + sum(_row_hash("meta", kv) - _row_hash("meta", (k, self._meta[k])) for k, kv in
                  ((k, (k, v)) for k, v in meta.items()))
        import sqlite3

        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT INTO parts (part, prefix, size) VALUES (?, ?, ?)", [r[:3] for r in new_parts])
                db.executemany("INSERT INTO written VALUES (?, ?, ?)", written)
                for digest, part in claimed:
                    old = db.execute("SELECT digest, part, session FROM written WHERE digest = ?", (digest,)).fetchone()
                    new = (digest, part, self.session)
                    if old is not None and old != new:
                        total += _row_hash("written", new) - _row_hash("written", old)
                        db.execute("UPDATE written SET part = ?, session = ? WHERE digest = ?", (part, self.session,
                                                                                              digest))
                # The tail is this commit's classes (none, maybe): those before are in the file, out_bytes long.
                total -= sum(_row_hash("tail", r) for r in _rows(db, "tail", [0]))
                db.execute("DELETE FROM tail")
                db.executemany("INSERT INTO tail VALUES (?, ?, ?, ?, ?)", tail)
                if done is not None:
                    part, counts, seconds, nodes = done
                    old = db.execute(f"SELECT {_COLUMNS['parts']} FROM parts WHERE part = ?", (part,)).fetchone()
                    total += _row_hash("parts", (*old[:3], 1, *(int(v) for v in counts), int(nodes))) \
                        - _row_hash("parts", old)
                    db.execute(f"UPDATE parts SET done = 1, {', '.join(f'{c} = ?' for c in COUNTS)}, seconds = ?, "
                               "nodes = ?, finished_at = ? WHERE part = ?",
                               (*(int(v) for v in counts), float(seconds), int(nodes), time.time(), part))
                    # What it wrote or claimed in this session: it has counted those (rows of an earlier session
                    # that it did not meet again are in what it gave back: a part made of that meets them).
                    mine = (part, self.session)
                    gone = db.execute("SELECT digest, part, session FROM written WHERE part = ? AND session = ?",
                                      mine).fetchall()
                    total -= sum(_row_hash("written", r) for r in gone)
                    db.execute("DELETE FROM written WHERE part = ? AND session = ?", mine)
                self._set_meta(db, total, **meta)
        except sqlite3.Error as exc:
            self.failed = True
            raise _cannot_write(self.path, exc) from None
        self._digest = total % _MOD
        self._meta.update(meta)
        self.written += len(classes)

    def was_written(self, digest: bytes) -> bool:
        """Whether the class with this digest was written by a part not finished when the run stopped."""
        return self._db.execute("SELECT 1 FROM written WHERE digest = ?", (digest,)).fetchone() is not None

    def _set_meta(self, db: sqlite3.Connection, total: int, **changed: str) -> None:
        for key, value in changed.items():
            db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        db.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (_hex(total),))
        db.execute("UPDATE meta SET value = ? WHERE key = 'updated'", (repr(time.time()),))

    def finish(self, complete: bool) -> None:
        """Mark the run complete (when it is) and close the journal."""
        import sqlite3

        try:
            if complete and not self._complete and not self.failed:
                total = self._digest - _row_hash("meta", ("complete", "0")) + _row_hash("meta", ("complete", "1"))
                try:
                    with self._db:
                        self._db.execute("BEGIN IMMEDIATE")
                        self._set_meta(self._db, total, complete="1")
                except sqlite3.Error as exc:
                    raise _cannot_write(self.path, exc) from None
                self._complete = True
        finally:
            self.close()

    def abandon(self) -> None:
        """Close the journal, and remove it when this run made it (it holds no work yet): the run is not
        going ahead after all."""
        self.close()
        if self.created:
            with contextlib.suppress(CpsolveError):
                remove(self.path)

    def close(self) -> None:
        import sqlite3

        with contextlib.suppress(sqlite3.Error):
            self._db.close()

    # -- reading ----------------------------------------------------------------------------------

    def tail(self) -> Iterator[SolutionClass]:
        """The classes of the last commit, in order: handed on once more by a resume (the file may lack them)."""
        for idx, id_, assemblies, mirror, placements in self._db.execute(
                "SELECT idx, id, assemblies, mirror_distinct, placements FROM tail ORDER BY idx"):
            yield SolutionClass(idx, assemblies, bool(mirror),
                                tuple((p, tuple(cells)) for p, cells in json.loads(placements)), id_)


def summary(path: Path) -> Summary:
    """Where the run journalled in `path` stands, after every check a resume makes that does not need the
    puzzle; read-only (nothing written, not even SQLite's side files), safe while the run writes."""
    return _inspect(path).summary


def remove(path: Path) -> None:
    """Delete a journal with its WAL side files (a missing one is fine)."""
    for p in (Path(f"{path}-wal"), Path(f"{path}-shm"), path):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise CpsolveError(f"cannot replace the journal: {exc.strerror or exc}", where=str(p)) from None


# -- the checks ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Contents:
    summary: Summary
    restored: Restored
    digest: int


def _check_path(path: Path, others: Others) -> None:
    """Refuse, before anything is read or written, a journal path that names another file of the run or
    something that is not a regular file, or where a new journal could not be made."""
    for other, what in others:
        if same_file(path, other):
            raise CpsolveError(f"is also {what}: a journal needs a file of its own", where=str(path))
    if _is_journal_file(path):
        return
    if not os.path.isdir(path.parent or "."):
        raise CpsolveError("cannot write the journal: no such folder", where=str(path))
    for side in ("-wal", "-journal"):  # SQLite would take it for the new journal's, and replay it
        if os.path.lexists(f"{path}{side}"):
            raise CpsolveError(f"{path}{side} is there without its journal (left when the journal was deleted?): "
                               "move it away first", where=str(path))


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


def _refuse_to_replace(old: Summary, digest: str, path: Path) -> None:
    """A fresh run may replace a complete journal of its own problem, or one that holds no work."""
    if (old.complete and old.fingerprint == digest) or not old.holds_work:
        return
    done = f"{old.parts_done} of {old.parts} subproblems done"
    if old.fingerprint == digest:
        raise CpsolveError(f"holds an unfinished run of this puzzle ({done}): add --resume to continue it, or delete "
                           "the file to start again", where=str(path), field="journal")
    state = "a complete" if old.complete else "an unfinished"
    raise CpsolveError(f"holds {state} run of another puzzle or other options (puzzle {old.puzzle}, {done}): resume "
                       "it with those, choose another --journal, or delete the file", where=str(path), field="journal")


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


def _cannot_write(path: Path, exc: OSError | sqlite3.Error) -> CpsolveError:
    reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
    return CpsolveError(f"cannot write the journal: {reason}", where=str(path), exit_code=1)


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    # No free pages kept (set before anything is written; a no-op on an existing journal): the tail is replaced
    # by every commit, and the file stays as small as its rows, so damage anywhere hits a row the checks read.
    db.execute("PRAGMA auto_vacuum = FULL")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return db


def _build(path: Path, meta: dict[str, str], parts: list[PartRow]) -> tuple[Path, int]:
    """A new journal under a temporary name beside `path`, with its first transaction, closed (so checkpointed:
    a single file); its name and digest. A failure (a full disk, a read-only folder) leaves nothing."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.new")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise _cannot_write(path, exc) from None
    else:
        raise CpsolveError("cannot find a free temporary name beside it", where=str(path), exit_code=1)
    acc = [sum(_row_hash("meta", kv) for kv in meta.items()) + sum(_row_hash("parts", r) for r in parts)]
    import sqlite3

    try:
        db = _connect(tmp)
        try:
            db.executescript(_SCHEMA)
            with db:
                db.execute("BEGIN IMMEDIATE")
                now = repr(time.time())
                db.executemany("INSERT INTO meta VALUES (?, ?)",
                               [*meta.items(), ("updated", now), ("digest", _hex(acc[0]))])
                db.executemany("INSERT INTO parts (part, prefix, size) VALUES (?, ?, ?)", [r[:3] for r in parts])
        finally:
            db.close()
    except sqlite3.Error as exc:
        _discard(tmp)
        raise _cannot_write(path, exc) from None
    except BaseException:
        _discard(tmp)
        raise
    return tmp, acc[0]


def _discard(tmp: Path) -> None:
    """Remove a temporary journal of this run, with whatever side files SQLite made for it."""
    for p in (Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal"), tmp):
        with contextlib.suppress(OSError):
            os.unlink(p)


def _move_aside(path: Path) -> Path:
    """Rename a damaged journal (its -wal and -shm first: SQLite must not find them beside a new one) to
    PATH.damaged, or PATH.damaged-2, ... the first name free with its side files."""
    n = 1
    while True:
        aside = Path(f"{path}.damaged{'' if n == 1 else f'-{n}'}")
        if not any(os.path.lexists(f"{aside}{s}") for s in ("", "-wal", "-shm")):
            break
        n += 1
    for side in ("-wal", "-shm"):
        if os.path.lexists(f"{path}{side}"):
            os.rename(f"{path}{side}", f"{aside}{side}")
    os.rename(path, aside)
    return aside


def _sync_folder(path: Path) -> None:
    """Make the rename that put a journal in place durable (a power loss after it keeps the journal)."""
    with contextlib.suppress(OSError):
        fd = os.open(path.parent or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
