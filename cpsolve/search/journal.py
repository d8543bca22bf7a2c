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
import os
import stat
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError, CpsolveNotice
from ..problem.symmetry import BrokenProblem
from .journal_file import (
    _COLUMNS,
    _MOD,
    _SCHEMA,
    COUNTS,
    FORMAT,
    DamagedJournal,
    PartCounts,
    PartRow,
    Restored,
    Summary,
    _hex,
    _inspect,
    _is_journal_file,
    _part_row,
    _row_hash,
    _rows,
    fingerprint,
    same_file,
)
from .result import SolutionClass

if TYPE_CHECKING:
    import sqlite3  # imported where a journal is opened: a run without one (--no-save) never loads it

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
