"""The journal of a long estimate (`count --approx --journal FILE`): its plan and every unit of walks done,
in SQLite, so that a run stopped at any moment (Ctrl-C, `kill -9`, a reboot) goes on with `--resume` as if
it had never stopped, and a finished one can be refined by resuming it again.

Why these records are enough: the walks are a fixed stream of units (`walks._units`), each with its own
seed, and what a unit found is a few sums (`moments.Moments`); the estimate is a function of the sums
alone. So the journal keeps the plan (strata, tail depth, shares, the pilot: the same for the same problem
and seed, but costly to make again) and one row per unit done; a resume skips those units and adds the
rest. A unit that was running when the run stopped is simply walked again (its row was not written), with
the same seed, so it finds the same. The seconds walked so far are kept too, for the report.

What protects the user's files (as the enumeration's journal, `journal.py`, whose public checks are used
here): a new journal is built under a temporary name beside its path and renamed into place, so a file
at the path is either a whole journal or not cpsolve's; a file that is already there is never replaced
(a new run refuses it, a resume needs a walks journal of this very problem: `journal.fingerprint`);
nor may the journal be the puzzle file. Commits are batched (COMMIT_SECONDS), so a crash loses at most
that much of the walks. A journal whose rows fail their checks is "damaged": said in one line, left as
it is.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..problem.symmetry import BrokenProblem
from .journal_file import fingerprint, same_file
from .moments import Moments
from .walks import Stratum, Unit, WalkPlan

if TYPE_CHECKING:
    import sqlite3

KIND = "cpsolve walks journal"
FORMAT = 1
COMMIT_SECONDS = 1.0
"""Units are committed in batches at most this far apart (a commit per unit cost more than the walks)."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE units (
    round INTEGER NOT NULL, stratum INTEGER NOT NULL, chunk INTEGER NOT NULL,
    n INTEGER NOT NULL, reached INTEGER NOT NULL, nodes INTEGER NOT NULL, shift INTEGER NOT NULL,
    s1 REAL NOT NULL, s2 REAL NOT NULL, top REAL NOT NULL, walks INTEGER NOT NULL,
    PRIMARY KEY (round, stratum, chunk));
"""


class WalkJournal:
    """An open journal: `start` a new one, `resume` an old one; `record` units, `close` at the end."""

    def __init__(self, path: Path, db: sqlite3.Connection, seconds: float):
        self.path = path
        self.db = db
        self.pending: list[tuple[int | float, ...]] = []
        self.last = time.monotonic()
        self.seconds = seconds
        """Seconds walked by the earlier runs of this journal."""

    @staticmethod
    def check_new(path: Path, others: Sequence[tuple[Path, str]] = ()) -> None:
        """Refuse, before any work, a path where a file is already (a journal of a run is continued with
        --resume, never replaced), or that is one of `others` (the puzzle file), or in no folder."""
        _check_path(path, others)
        if os.path.lexists(path):
            hint = " (--resume continues it)" if _looks_like_journal(path) else ""
            raise CpsolveError(f"is already there{hint}: a new estimate needs a new journal", where=str(path),
                               field="journal")

    @classmethod
    def start(cls, path: Path, broken: BrokenProblem, puzzle: str, seed: int, plan: WalkPlan,
              others: Sequence[tuple[Path, str]] = ()) -> WalkJournal:
        """A new journal holding `plan` (`check_new`'s refusals hold)."""
        cls.check_new(path, others)
        meta = {"kind": KIND, "format": str(FORMAT), "fingerprint": fingerprint(broken), "puzzle": puzzle,
                "seed": str(seed), "plan": json.dumps(_plan_json(plan)), "seconds": "0.0"}
        tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.new")
        try:
            db = _connect(tmp)
            try:
                db.executescript(_SCHEMA)
                with db:
                    db.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            finally:
                db.close()
            if os.path.lexists(path):  # made meanwhile by someone else: theirs
                raise CpsolveError("appeared while the journal was being made: left alone", where=str(path),
                                   field="journal")
            os.replace(tmp, path)
        except OSError as exc:
            raise CpsolveError(f"cannot write the journal: {exc.strerror or exc}", where=str(path),
                               exit_code=1) from None
        except Exception as exc:
            import sqlite3

            if isinstance(exc, sqlite3.Error):
                raise CpsolveError(f"cannot write the journal: {exc}", where=str(path), exit_code=1) from None
            raise
        finally:
            for side in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):
                    os.unlink(f"{tmp}{side}")
        return cls(path, _connect(path), 0.0)

    @classmethod
    def resume(cls, path: Path, broken: BrokenProblem, seed: int | None,
               others: Sequence[tuple[Path, str]] = ()) -> tuple[WalkJournal, WalkPlan, list[tuple[Unit, Moments]]]:
        """The journal at `path` opened to go on: its plan and the units it holds. Refuses anything that is
        not a walks journal of this problem (and of `seed`, when one is asked for)."""
        _check_path(path, others)
        if not _looks_like_journal(path):
            raise CpsolveError("is not a journal of walks (count --approx --journal)", where=str(path),
                               field="journal")
        import sqlite3

        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
                rows = db.execute("SELECT round, stratum, chunk, n, reached, nodes, shift, s1, s2, top, walks "
                                  "FROM units").fetchall()
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise _damaged(path, f"cannot be read ({exc})") from None
        if meta.get("kind") != KIND or meta.get("format") != str(FORMAT):
            raise CpsolveError(f"is not a journal of walks of this format (format {FORMAT})", where=str(path),
                               field="journal")
        if meta.get("fingerprint") != fingerprint(broken):
            raise CpsolveError(f"holds an estimate of another puzzle or other options (puzzle "
                               f"{meta.get('puzzle')!r}): resume it with those, or choose another --journal",
                               where=str(path), field="journal")
        plan = _plan_from(path, meta)
        if seed is not None and seed != plan.seed:
            raise CpsolveError(f"was made with --seed {plan.seed}, not {seed}: resume it with that seed",
                               where=str(path), field="journal")
        restored = [_unit_from(path, plan, row) for row in rows]
        try:
            seconds = float(meta.get("seconds", "0"))
        except ValueError:
            raise _damaged(path, "its time walked is not a number") from None
        if not (math.isfinite(seconds) and seconds >= 0):
            raise _damaged(path, "its time walked is not a number of seconds")
        try:
            db = _connect(path)
        except (OSError, sqlite3.Error) as exc:
            raise CpsolveError(f"cannot write the journal: {exc}", where=str(path), exit_code=1) from None
        return cls(path, db, seconds), plan, restored

    def record(self, unit: Unit, found: Moments) -> None:
        """A unit done; committed with the others of the last COMMIT_SECONDS."""
        self.pending.append((unit[0], unit[1], unit[2], *found.as_tuple(), unit[3]))
        if time.monotonic() - self.last >= COMMIT_SECONDS:
            self.commit()

    def commit(self, seconds: float | None = None) -> None:
        import sqlite3

        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO units VALUES (?,?,?,?,?,?,?,?,?,?,?)", self.pending)
                if seconds is not None:
                    self.db.execute("UPDATE meta SET value = ? WHERE key = 'seconds'", (repr(seconds),))
        except sqlite3.Error as exc:
            raise CpsolveError(f"cannot write the journal: {exc}", where=str(self.path), exit_code=1) from None
        self.pending = []
        self.last = time.monotonic()

    def close(self, seconds: float) -> None:
        """Commit what is left with the total seconds walked (this run's added to the earlier ones'), and close."""
        try:
            self.commit(self.seconds + seconds)
        finally:
            self.db.close()


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def _check_path(path: Path, others: Sequence[tuple[Path, str]]) -> None:
    for other, what in others:
        if same_file(path, other):
            raise CpsolveError(f"is also {what}: a journal needs a file of its own", where=str(path),
                               field="journal")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not os.path.isdir(path.parent or "."):
            raise CpsolveError("cannot write the journal: no such folder", where=str(path), field="journal") from None
        return
    except OSError as exc:
        raise CpsolveError(f"cannot read the journal: {exc.strerror or exc}", where=str(path)) from None
    if not stat.S_ISREG(mode):
        raise CpsolveError("not a regular file: a journal needs a file of its own", where=str(path), field="journal")


def _looks_like_journal(path: Path) -> bool:
    """Whether the file is an SQLite database with this journal's kind in its meta (read-only)."""
    try:
        with open(path, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                return False
    except OSError:
        return False
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'kind'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return row is not None and row[0] == KIND


def _damaged(path: Path, why: str) -> CpsolveError:
    return CpsolveError(f"the journal is damaged: {why}; it is left as it is", where=str(path), field="journal")


def _plan_json(plan: WalkPlan) -> dict[str, object]:
    return {"strata": [asdict(s) for s in plan.strata], "depth": plan.depth, "seed": plan.seed,
            "pilot": [list(p) for p in plan.pilot], "tree_nodes": plan.tree_nodes}


def _plan_from(path: Path, meta: dict[str, str]) -> WalkPlan:
    """The plan as recorded, every field checked (a hand-edited plan would count garbage)."""
    try:
        raw = json.loads(meta["plan"])
        strata = []
        for s in raw["strata"]:
            prefix = tuple(int(r) for r in s["prefix"])
            exact = None if s["exact"] is None else int(s["exact"])
            share = float(s["share"])
            if int(s["weight"]) < 1 or int(s["depth"]) < 0 or not (0.0 <= share <= 1.0) or (exact or 0) < 0:
                raise ValueError
            strata.append(Stratum(prefix, int(s["weight"]), int(s["depth"]), exact, share))
        if any(len(p) != 7 for p in raw["pilot"]):
            raise ValueError
        pilot = tuple(Moments.from_tuple(p).as_tuple() for p in raw["pilot"])
        if pilot and len(pilot) != len(strata):
            raise ValueError
        plan = WalkPlan(tuple(strata), int(raw["depth"]), int(raw["seed"]), pilot, float(raw["tree_nodes"]))
    except (KeyError, TypeError, ValueError, json.JSONDecodeError):
        raise _damaged(path, "its plan is not one cpsolve writes") from None
    return plan


def _unit_from(path: Path, plan: WalkPlan, row: Sequence[object]) -> tuple[Unit, Moments]:
    """A unit's row, checked: its stratum is one of the plan's, its counts whole and its sums finite."""
    try:
        round_, stratum, chunk, n, reached, nodes, shift = (int(x) for x in row[:7])  # type: ignore[call-overload]
        s1, s2, top = (float(x) for x in row[7:10])  # type: ignore[arg-type]
        walks = int(row[10])  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise _damaged(path, "a unit's row is not numbers") from None
    ok = (0 <= stratum < len(plan.strata) and plan.strata[stratum].exact is None and round_ >= 0 and chunk >= 0
          and 0 <= reached <= n == walks and nodes >= 0 and all(math.isfinite(x) and x >= 0 for x in (s1, s2, top)))
    if not ok:
        raise _damaged(path, f"unit ({round_}, {stratum}, {chunk}) does not add up")
    return (round_, stratum, chunk, walks), Moments(n, reached, nodes, shift, s1, s2, top)
