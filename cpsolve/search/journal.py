"""A run's journal: finished subproblems and the solution classes found, in SQLite, so that a run
killed at any moment (`kill -9`, a reboot, power loss) can be resumed without losing or doubling
anything.

Why these records are enough. A run is a fixed list of subproblems that partition the solutions.
The counts a run reports come from two kinds of information:

- *per subproblem*: the solutions found and their symmetry-breaking weights (the total). These are
  only meaningful for a finished subproblem, so they are written in the same transaction that marks
  the subproblem finished; an unfinished one is run again from the start on resume.
- *per class*: the canonical keys (up to rotation, up to rotation and reflection) and each class's
  representative. A class is a fact about the puzzle, whichever subproblem found it: keeping a class
  found by a subproblem that did not finish is harmless, because running that subproblem again finds
  the same keys and the tally ignores keys it knows. So every class found so far is written with
  the next finished subproblem's transaction, and on resume the tally starts from all of them.

Classes are numbered in the order found; the journal holds a prefix of that order (everything up to
the last commit), so a resumed run continues the numbering without a gap, and the solutions file is
written again from the journal, so it has neither duplicates nor gaps.

The journal also records a fingerprint of the problem as searched (its rows, the symmetry-breaking
key and weights: everything that does not depend on the backend) and the list of subproblems, so a
resume uses exactly the same split, whatever `--workers` says, and refuses a different problem.

A part that ran far longer than estimated gives back what it had not searched, as new parts (see
`_xcover.c`): they are added in the transaction that marks it finished, so the list of parts always
partitions the solutions: before that commit the part is unfinished and is run again whole.

SQLite (stdlib) in WAL mode with `synchronous=FULL`: each commit is durable once it returns, a
crash in the middle of one leaves the previous state, and `cpsolve journal FILE` can read the file
while the run writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import CpsolveError
from ..problem.symmetry import BrokenProblem
from .result import SolutionClass

FORMAT = 1
"""Bumped when the tables change; a journal of another format is refused in one line."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parts (
    part INTEGER PRIMARY KEY, prefix TEXT NOT NULL, size REAL NOT NULL,
    done INTEGER NOT NULL DEFAULT 0, weighted INTEGER, found INTEGER, seconds REAL, nodes INTEGER,
    finished_at REAL);
CREATE TABLE IF NOT EXISTS rotations (key BLOB PRIMARY KEY, orbit INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS classes (
    idx INTEGER PRIMARY KEY, key BLOB UNIQUE NOT NULL, assemblies INTEGER NOT NULL,
    mirror_distinct INTEGER NOT NULL, placements TEXT NOT NULL);
"""


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
    return hashlib.blake2b(json.dumps(data, separators=(",", ":")).encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Restored:
    """What a journal says about a run so far."""

    parts: tuple[tuple[int, ...], ...]
    sizes: tuple[float, ...]
    done: frozenset[int]
    weighted: int
    found: int
    work_done: float
    """Search nodes of the finished parts (their estimated size where the backend counts no nodes)."""
    rotations: dict[bytes, int]
    """Rotation key -> orbit size, of every rotation class found."""


@dataclass(frozen=True)
class Summary:
    """Where a journalled run stands (`cpsolve journal FILE`)."""

    puzzle: str
    fingerprint: str
    command: str
    started: float
    updated: float
    parts: int
    parts_done: int
    size: float
    size_done: float
    found: int
    classes: int
    rotation_classes: int
    complete: bool

    def as_json(self) -> dict[str, object]:
        return dict(self.__dict__)


class Journal:
    """One run's journal file. Open it with `Journal.start` (a new run) or `Journal.resume`."""

    def __init__(self, path: Path, db: sqlite3.Connection):
        self.path = path
        self._db = db

    # -- opening ---------------------------------------------------------------------------------

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(path, isolation_level=None, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise CpsolveError(f"not a cpsolve journal ({exc})", where=str(path)) from None
        return db

    @classmethod
    def start(cls, path: Path, digest: str, puzzle: str, command: str,
              parts: Sequence[tuple[int, ...]], sizes: Sequence[float]) -> Journal:
        """A journal for a new run at `path`, with its subproblems, written in one transaction.

        An unfinished run of the same problem with finished subproblems is never overwritten by
        accident: it may hold days of work, so the user is told to add --resume (or to delete the
        file). A finished run, a journal of another problem or one with nothing done is replaced.
        """
        if path.exists():
            old = _summary_or_none(path)
            if old is not None and not old.complete and old.fingerprint == digest and old.parts_done:
                raise CpsolveError(
                    f"holds an unfinished run of this puzzle ({old.parts_done} of {old.parts} subproblems "
                    "done): add --resume to continue it, or delete the file to start again",
                    where=str(path), field="journal")
            remove(path)
        db = cls._connect(path)
        now = repr(time.time())
        with db:
            db.execute("BEGIN")
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("format", str(FORMAT)), ("fingerprint", digest), ("puzzle", puzzle), ("command", command),
                ("started", now), ("updated", now), ("complete", "0")])
            db.executemany("INSERT INTO parts (part, prefix, size) VALUES (?, ?, ?)",
                           [(i, json.dumps(p), s) for i, (p, s) in enumerate(zip(parts, sizes, strict=True))])
        return cls(path, db)

    @classmethod
    def resume(cls, path: Path, digest: str) -> tuple[Journal, Restored] | None:
        """Open an existing journal of the same problem, and what it says; None when there is nothing to
        resume (no file, or a run killed before it had written its first transaction)."""
        old = _summary_or_none(path) if path.exists() else None
        if old is None or not old.parts:
            return None
        journal = cls(path, cls._connect(path))
        meta = journal._meta()
        if meta.get("format") != str(FORMAT):
            journal.close()
            raise CpsolveError(f"journal format {meta.get('format')!r}, this cpsolve reads {FORMAT}",
                               where=str(path), field="journal")
        if meta.get("fingerprint") != digest:
            journal.close()
            raise CpsolveError(
                f"this journal is of a different problem (puzzle {meta.get('puzzle')!r}, another piece set, "
                "container or symmetry breaking): resume it with the same puzzle and options",
                where=str(path), field="journal")
        return journal, journal._restored()

    # -- writing ----------------------------------------------------------------------------------

    def part_done(self, part: int, weighted: int, found: int, seconds: float, nodes: int,
                  rotations: Sequence[tuple[bytes, int]], classes: Sequence[tuple[bytes, SolutionClass]],
                  given_back: Sequence[tuple[int, tuple[int, ...], float]] = ()) -> None:
        """One transaction: the part's counts, every class found since the last commit, and the parts it
        gave back (index, prefix, estimated size)."""
        db = self._db
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO parts (part, prefix, size) VALUES (?, ?, ?)",
                           [(i, json.dumps(prefix), size) for i, prefix, size in given_back])
            db.executemany("INSERT OR IGNORE INTO rotations VALUES (?, ?)", rotations)
            db.executemany("INSERT OR IGNORE INTO classes VALUES (?, ?, ?, ?, ?)", [
                (c.index, key, c.assemblies, int(c.mirror_distinct), json.dumps(c.placements, separators=(",", ":")))
                for key, c in classes])
            db.execute("UPDATE parts SET done = 1, weighted = ?, found = ?, seconds = ?, nodes = ?, finished_at = ? "
                       "WHERE part = ?", (weighted, found, seconds, nodes, time.time(), part))
            db.execute("UPDATE meta SET value = ? WHERE key = 'updated'", (repr(time.time()),))

    def finish(self, complete: bool) -> None:
        with self._db:
            self._db.execute("UPDATE meta SET value = ? WHERE key = 'complete'", ("1" if complete else "0",))
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- reading ----------------------------------------------------------------------------------

    def _meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    def _restored(self) -> Restored:
        rows = self._db.execute(
            "SELECT part, prefix, size, done, weighted, found, nodes FROM parts ORDER BY part").fetchall()
        return Restored(
            parts=tuple(tuple(json.loads(r[1])) for r in rows),
            sizes=tuple(r[2] for r in rows),
            done=frozenset(r[0] for r in rows if r[3]),
            weighted=sum(r[4] for r in rows if r[3]),
            found=sum(r[5] for r in rows if r[3]),
            work_done=sum(r[6] or r[2] for r in rows if r[3]),
            rotations=dict(self._db.execute("SELECT key, orbit FROM rotations").fetchall()),
        )

    def classes(self) -> Iterator[tuple[bytes, SolutionClass]]:
        """Every class recorded, in the order found."""
        for idx, key, assemblies, mirror, placements in self._db.execute(
                "SELECT idx, key, assemblies, mirror_distinct, placements FROM classes ORDER BY idx"):
            yield key, SolutionClass(idx, assemblies, bool(mirror),
                                     tuple((p, tuple(cells)) for p, cells in json.loads(placements)))


def summary(path: Path) -> Summary:
    """Where the run journalled in `path` stands; read-only, safe while the run writes."""
    if not path.exists():
        raise CpsolveError("no such journal", where=str(path))
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            n, n_done, size, size_done, found = db.execute(
                "SELECT count(*), coalesce(sum(done), 0), coalesce(sum(size), 0), "
                "coalesce(sum(CASE WHEN done THEN coalesce(nullif(nodes, 0), size) ELSE 0 END), 0), "
                "coalesce(sum(found), 0) FROM parts").fetchone()
            classes = db.execute("SELECT count(*) FROM classes").fetchone()[0]
            rotations = db.execute("SELECT count(*) FROM rotations").fetchone()[0]
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise CpsolveError(f"not a cpsolve journal ({exc})", where=str(path)) from None
    if "fingerprint" not in meta:
        raise CpsolveError("not a cpsolve journal (no fingerprint)", where=str(path))
    return Summary(
        puzzle=meta.get("puzzle", "?"), fingerprint=meta["fingerprint"], command=meta.get("command", ""),
        started=float(meta.get("started", 0)), updated=float(meta.get("updated", 0)),
        parts=n, parts_done=n_done, size=size, size_done=size_done, found=found, classes=classes,
        rotation_classes=rotations, complete=meta.get("complete") == "1")


def _summary_or_none(path: Path) -> Summary | None:
    """The summary of a file that may be a journal killed before its first commit (or not one at all)."""
    try:
        return summary(path)
    except CpsolveError:
        return None


def remove(path: Path) -> None:
    """Delete a journal with its WAL side files (a missing one is fine)."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise CpsolveError(f"cannot replace the journal: {exc.strerror or exc}", where=str(p)) from None
