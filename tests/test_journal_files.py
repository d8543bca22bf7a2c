"""The user's files around a journalled run (issue 26): a refused or failed run unlinks and truncates
nothing it did not create; a damaged journal is named in one line and kept as it is (or moved aside,
when a fresh run needs its path); a full disk is one line, exit 1, with the solutions found kept.

No test here can harm the machine if a fix regresses: devices are only ever reached through a
symbolic link in the test's own folder (unlinking it removes the link, not /dev/null), and a pipe is
the test's own FIFO.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, one_line

from cpsolve.errors import CpsolveError
from cpsolve.search import journal_file as journal_module
from cpsolve.search.journal import summary

SOMA = (11520, 480, 240)
CONWAY = (27456, 1144, 572)
SOMA_FILE = REPO / "cpsolve" / "models" / "soma.yaml"


AS_ROOT = os.geteuid() == 0
SETPRIV = shutil.which("setpriv")
NO_OVERRIDE = [SETPRIV or "setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if AS_ROOT else []
"""Run so that file permissions hold, even as root (CI runs as root): without the capabilities that
override them (root keeps its user id, so the interpreter under /root stays reachable)."""


def cli(*args: str, cwd: Path, fsize: int | None = None, timeout: float = 120,
        permissions: bool = False) -> subprocess.CompletedProcess[str]:
    """cpsolve in a subprocess; `fsize` caps the size of any file it writes (RLIMIT_FSIZE), as a full disk
    would (Python ignores SIGXFSZ, so a write past the cap fails with EFBIG or comes up short);
    `permissions` makes file permissions hold for it."""

    def cap() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    prefix = NO_OVERRIDE if permissions else []
    return subprocess.run([*prefix, sys.executable, "-m", "cpsolve", *args], cwd=cwd, text=True, capture_output=True,
                          timeout=timeout, check=False, preexec_fn=cap)


def state(folder: Path) -> dict[str, object]:
    """Everything in `folder`, by name: a file's bytes, a link's target, a FIFO or device as its kind."""
    out: dict[str, object] = {}
    for p in sorted(folder.iterdir()):
        mode = os.lstat(p).st_mode
        if stat.S_ISLNK(mode):
            out[p.name] = ("link", os.readlink(p))
        elif stat.S_ISFIFO(mode):
            out[p.name] = "fifo"
        elif stat.S_ISREG(mode):
            out[p.name] = p.read_bytes()
        else:
            out[p.name] = stat.filemode(mode)
    return out


def counts(stdout: str) -> tuple[int, int, int]:
    data = json.loads(stdout)
    return data["total"], data["unique_rotation"], data["unique_symmetry"]


def classes_in(path: Path) -> list[int]:
    """The class index of each complete line of a solutions file, checking that no class is there twice."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len({json.dumps(line["pieces"], sort_keys=True) for line in lines}) == len(lines)
    indices = [line["class"] for line in lines]
    assert len(set(indices)) == len(indices)
    return indices


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with an unfinished Soma run (stopped by --limit): s.journal, some subproblems done, and s.jsonl."""
    folder = tmp_path_factory.mktemp("partial")
    proc = cli("enumerate", "soma", "--workers", "2", "--limit", "100", "-q", "--out", "s.jsonl", "--journal",
               "s.journal", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["s.journal", "s.jsonl"]
    s = summary(folder / "s.journal")
    assert 0 < s.parts_done < s.parts and not s.complete
    assert sorted(p.name for p in folder.iterdir()) == ["s.journal", "s.jsonl"]  # reading it left nothing
    db = sqlite3.connect(folder / "s.journal")  # what the damage below damages: the class stopped at, at least
    assert db.execute("SELECT count(*) FROM tail").fetchone()[0] > 0
    assert db.execute("SELECT count(*) FROM written").fetchone()[0] > 0
    db.close()
    return folder


@pytest.fixture
def run(partial: Path, tmp_path: Path) -> Path:
    """A copy of the unfinished run, this test's to damage."""
    for p in partial.iterdir():
        shutil.copy(p, tmp_path / p.name)
    return tmp_path


# -- the journal's path ---------------------------------------------------------------------------


@pytest.mark.parametrize("resume", [False, True])
def test_journal_on_the_puzzle_file_is_refused(resume: bool, tmp_path: Path) -> None:
    puzzle = tmp_path / "soma.yaml"
    shutil.copy(SOMA_FILE, puzzle)
    before = state(tmp_path)
    proc = cli("enumerate", str(puzzle), "-q", "--out", "s.jsonl", "--journal", str(puzzle),
               *(["--resume"] if resume else []), cwd=tmp_path)
    one_line(proc, 2, str(puzzle), "the puzzle file")
    assert state(tmp_path) == before


@pytest.mark.parametrize("resume", [False, True])
def test_journal_on_a_text_file_is_refused(resume: bool, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("three days of notes\n")
    before = state(tmp_path)
    proc = cli("enumerate", "soma", "-q", "--journal", "notes.txt", *(["--resume"] if resume else []), cwd=tmp_path)
    one_line(proc, 2, "notes.txt", "not a cpsolve journal")
    assert state(tmp_path) == before


def test_journal_and_out_on_one_file_are_refused(run: Path) -> None:
    before = state(run)
    # Neither exists yet; the solutions file exists; the journal is a hard link to it (another name, one inode).
    proc = cli("enumerate", "soma", "-q", "--journal", "new.x", "--out", "new.x", cwd=run)
    one_line(proc, 2, "new.x", "the solutions file")
    proc = cli("enumerate", "soma", "-q", "--journal", "s.jsonl", "--out", "s.jsonl", cwd=run)
    one_line(proc, 2, "s.jsonl", "the solutions file")
    assert state(run) == before
    os.link(run / "s.jsonl", run / "linked.journal")
    before = state(run)
    proc = cli("enumerate", "soma", "--workers", "2", "-q", "--journal", "linked.journal", "--out", "s.jsonl",
               "--resume", cwd=run)
    one_line(proc, 2, "linked.journal", "the solutions file")
    assert state(run) == before


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/null", "folder"])
@pytest.mark.parametrize("resume", [False, True])
def test_journal_that_is_not_a_regular_file_is_refused(kind: str, resume: bool, tmp_path: Path) -> None:
    where = tmp_path / "j"
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "folder":
        where.mkdir()
    else:
        where.symlink_to(os.devnull)
    null = os.stat(os.devnull)
    before = state(tmp_path)
    proc = cli("enumerate", "soma", "-q", "--journal", str(where), *(["--resume"] if resume else []), cwd=tmp_path,
               timeout=60)
    one_line(proc, 2, str(where), "not a regular file")
    assert state(tmp_path) == before
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (null.st_ino, null.st_rdev)


# -- the solutions file's path -------------------------------------------------------------------


def test_out_on_the_puzzle_file_is_refused(tmp_path: Path) -> None:
    puzzle = tmp_path / "soma.yaml"
    shutil.copy(SOMA_FILE, puzzle)
    before = state(tmp_path)
    one_line(cli("enumerate", str(puzzle), "-q", "--out", str(puzzle), cwd=tmp_path), 2, "the puzzle file")
    one_line(cli("enumerate", str(puzzle), "-q", "--no-journal", "--out", "soma.yaml", cwd=tmp_path), 2,
             "the puzzle file")
    assert state(tmp_path) == before


def test_out_on_a_journal_is_refused(run: Path) -> None:
    before = state(run)
    one_line(cli("enumerate", "soma", "-q", "--no-journal", "--out", "s.journal", cwd=run), 2, "s.journal",
             "journal")
    assert state(run) == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_out_on_a_device_keeps_no_journal_beside_it(tmp_path: Path) -> None:
    """Issue 26 item 18: `--out /dev/full` left /dev/full.journal (as root, in /dev)."""
    (tmp_path / "full").symlink_to("/dev/full")
    (tmp_path / "null").symlink_to(os.devnull)
    before = state(tmp_path)
    one_line(cli("enumerate", "soma", "-q", "--out", "full", cwd=tmp_path), 1,
             "cannot write the solutions file: No space left on device")
    done = cli("enumerate", "soma", "-q", "--json", "--out", "null", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert counts(done.stdout) == SOMA and json.loads(done.stdout).get("journal") is None
    assert state(tmp_path) == before
    refused = cli("enumerate", "soma", "-q", "--out", "null", "--resume", cwd=tmp_path)
    one_line(refused, 2, "--resume", "--journal")


# -- refused runs keep the solutions file ----------------------------------------------------------


def test_a_refused_run_keeps_the_solutions_file(run: Path) -> None:
    """Issue 26 item 5: the file was emptied before the journal was checked."""
    before = state(run)
    plain = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal", cwd=run)
    one_line(plain, 2, "s.journal", "add --resume")
    other = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal",
                "--resume", "--no-symmetry-breaking", cwd=run)
    one_line(other, 2, "s.journal", "different problem")
    assert state(run) == before


def test_an_unfinished_journal_of_another_puzzle_is_not_replaced(run: Path) -> None:
    """Issue 26 item 3: it was replaced without a word when a run started over it without --resume."""
    before = state(run)
    proc = cli("enumerate", "conway-5x5x5", "-q", "--out", "c.jsonl", "--journal", "s.journal", cwd=run)
    one_line(proc, 2, "s.journal", "another puzzle", "soma")
    assert state(run) == before


# -- damaged journals ----------------------------------------------------------------------------


def _sql(*statements: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        db = sqlite3.connect(path, isolation_level=None)
        for s in statements:
            db.execute(s)
        db.close()

    return damage


def _bytes(offset: float, data: bytes | None = None, keep: float | None = None) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        raw = bytearray(path.read_bytes())
        if keep is not None:
            raw = raw[: int(len(raw) * keep)]
        else:
            at = int(len(raw) * offset)
            junk = data if data is not None else random.Random(26).randbytes(300)
            raw[at: at + len(junk)] = junk
        path.write_bytes(bytes(raw))

    return damage


def _page_ends(path: Path) -> None:
    """Random bytes over the last 100 of every 4 KB page but the first (SQLite's rows are packed at the end of
    their page: damage there hits rows whatever the file's layout; damage at a fixed offset of a small journal
    can land in a page's unused middle, which nothing reads)."""
    raw = bytearray(path.read_bytes())
    rng = random.Random(26)
    for end in range(8192, len(raw) + 1, 4096):
        raw[end - 100: end] = rng.randbytes(100)
    path.write_bytes(bytes(raw))


FIRST_DONE = "(SELECT min(part) FROM parts WHERE done)"
FIRST_OPEN = "(SELECT min(part) FROM parts WHERE NOT done)"
DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    # name: (damage, what a fresh run does with it: "moved" aside as a damaged journal of cpsolve's, or
    # "refused" as a file that may be anyone's, or "either")
    "zero bytes": (lambda p: p.write_bytes(b""), "refused"),
    "truncated": (_bytes(0, keep=0.5), "either"),
    "bad header": (_bytes(0, b"not SQLite at all"), "refused"),
    "random bytes": (_page_ends, "either"),
    "meta dropped": (_sql("DROP TABLE meta"), "refused"),
    "parts dropped": (_sql("DELETE FROM parts WHERE part > 20"), "moved"),
    "garbage prefix": (_sql(f"UPDATE parts SET prefix = '[1, x' WHERE part = {FIRST_DONE}"), "moved"),
    "garbage class": (_sql("UPDATE tail SET placements = '{' WHERE idx = (SELECT max(idx) FROM tail)"), "moved"),
    "garbage digest": (_sql("UPDATE written SET digest = x'00' WHERE digest = (SELECT max(digest) FROM written)"),
                       "moved"),
    "NULL weight": (_sql(f"UPDATE parts SET weighted = NULL WHERE part = {FIRST_DONE}"), "moved"),
    "text weight": (_sql(f"UPDATE parts SET weighted = 'many' WHERE part = {FIRST_DONE}"), "moved"),
    "negative size": (_sql("UPDATE parts SET size = -5 WHERE part = 0"), "moved"),
    "class deleted": (_sql("DELETE FROM written WHERE digest = (SELECT max(digest) FROM written)"), "moved"),
    "class index moved": (_sql("UPDATE tail SET idx = 1000 WHERE idx = (SELECT min(idx) FROM tail)"), "moved"),
    "classes written changed": (_sql("UPDATE meta SET value = value + 1 WHERE key = 'classes'"), "moved"),
    "part marked done": (_sql(f"UPDATE parts SET done = 1, weighted = 0, found = 0, nodes = 0 "
                              f"WHERE part = {FIRST_OPEN}"), "moved"),
    "complete by hand": (_sql("UPDATE meta SET value = '1' WHERE key = 'complete'"), "moved"),
    # issue 35 item 8: a trigger ran on the resume's writes (exit 0, the journal left damaged); `updated`,
    # outside the digest, at inf gave OverflowError
    "trigger added": (_sql("CREATE TRIGGER t AFTER INSERT ON written BEGIN DELETE FROM written; END"), "moved"),
    "view added": (_sql("CREATE VIEW v AS SELECT * FROM parts"), "moved"),
    "updated infinite": (_sql("UPDATE meta SET value = 'inf' WHERE key = 'updated'"), "moved"),
    "updated past the calendar": (_sql("UPDATE meta SET value = '1e300' WHERE key = 'updated'"), "moved"),
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_resuming_a_damaged_journal_is_one_line_and_touches_nothing(name: str, run: Path) -> None:
    """Issue 26 items 6 and 7: a damaged journal was deleted (the run started from zero) or gave "internal
    error" after the solutions file was emptied; a hand-edited one gave wrong counts with exit 0."""
    damage, _ = DAMAGE[name]
    damage(run / "s.journal")
    before = state(run)
    proc = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal", "--resume",
               cwd=run)
    one_line(proc, 2, "s.journal")
    assert "internal error" not in proc.stderr
    assert "damaged" in proc.stderr or "not a cpsolve journal" in proc.stderr, proc.stderr
    assert state(run) == before
    shown = cli("journal", "s.journal", cwd=run)
    one_line(shown, 2, "s.journal")
    assert "internal error" not in shown.stderr
    assert state(run) == before


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_a_fresh_run_over_a_damaged_journal_moves_it_aside_or_refuses(name: str, run: Path) -> None:
    damage, fate = DAMAGE[name]
    damage(run / "s.journal")
    damaged = (run / "s.journal").read_bytes()
    before = state(run)
    proc = cli("enumerate", "soma", "--workers", "2", "-q", "--json", "--out", "s.jsonl", "--journal", "s.journal",
               cwd=run)
    if proc.returncode == 2:
        assert fate in ("refused", "either"), proc.stderr
        one_line(proc, 2, "s.journal", "not a cpsolve journal")
        assert state(run) == before
        return
    assert fate in ("moved", "either") and proc.returncode == 0, proc.stderr
    assert counts(proc.stdout) == SOMA
    assert (run / "s.journal.damaged").read_bytes() == damaged
    assert "s.journal.damaged" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert sorted(classes_in(run / "s.jsonl")) == list(range(SOMA[2]))


def test_a_journal_edited_consistently_still_fails_the_count_checks(run: Path) -> None:
    """Every open part marked done, the digest brought up to date: the weights no longer add up to the
    classes' assemblies (issue 26 item 7: a part marked done gave a wrong total, status complete)."""
    path = run / "s.journal"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE parts SET done = 1, weighted = 0, found = 0, rotations = 0, orbits = 0, classes = 0, "
               "assemblies = 0, mirrors = 0, nodes = 0 WHERE NOT done")
    db.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (journal_module._digest(db),))
    db.close()
    with pytest.raises(CpsolveError, match="damaged.*assemblies"):
        summary(path)


# -- full disk, unwritable journal ---------------------------------------------------------------


def test_a_journal_that_cannot_be_written_is_one_line_before_the_search(run: Path) -> None:
    """Issue 26 item 15: "internal error: database or disk is full" after the work was done."""
    before = state(run)
    fresh = cli("enumerate", "conway-5x5x5", "-q", "--out", "s.jsonl", "--journal", "c.journal", cwd=run, fsize=4096)
    one_line(fresh, 1, "c.journal", "cannot write the journal")
    assert state(run) == before
    resumed = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal",
                  "--resume", cwd=run, fsize=0)
    one_line(resumed, 1, "s.journal", "cannot write the journal")
    assert {k: v for k, v in state(run).items() if not k.endswith(("-wal", "-shm"))} == before


def test_a_full_disk_in_the_middle_keeps_the_solutions_and_the_run_resumes(tmp_path: Path) -> None:
    """The journal commits at most COMMIT_CLASSES classes at a time, so it holds some before the cap whatever
    the machine's speed (the test failed 3 runs in 7 when one second's commit held all of them). Since the
    journal holds no keys (issue 39) it is a few pages, and which file meets the cap first is a race between
    the lines and the journal's write-ahead log. The solutions file first: the journal counts the classes of
    its last commit, which the file may lack, and holds them whole, so the resume writes them (and cuts the
    line the cap cut short). The journal first: the classes it could not commit are written to the file
    anyway, and the resume cuts them and finds them again."""
    from cpsolve.search.enumeration import COMMIT_CLASSES

    args = ("enumerate", "conway-5x5x5", "--workers", "2", "-q", "--json", "--out", "c.jsonl", "--journal", "c.journal")
    full = cli(*args, cwd=tmp_path, fsize=600_000)
    if "cannot write the journal" in full.stderr:
        one_line(full, 1, "c.journal", "cannot write the journal")
    else:
        one_line(full, 1, "c.jsonl", "cannot write the solutions file")
    found = classes_in(tmp_path / "c.jsonl")
    recorded = summary(tmp_path / "c.journal")
    assert recorded.classes > 0 and abs(len(found) - recorded.classes) <= COMMIT_CLASSES
    assert len(found) < CONWAY[2]
    assert sorted(found) == list(range(len(found)))
    resumed = cli(*args, "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert counts(resumed.stdout) == CONWAY
    assert sorted(classes_in(tmp_path / "c.jsonl")) == list(range(CONWAY[2]))


@pytest.mark.skipif(AS_ROOT and SETPRIV is None, reason="as root, needs setpriv (util-linux) to drop the "
                    "capabilities that override file permissions")
def test_a_read_only_journal_or_folder_is_one_line_before_the_search(run: Path) -> None:
    """Issue 26 item 15: "attempt to write a readonly database" came as an internal error after the work."""
    (run / "ro").mkdir()
    (run / "s.journal").chmod(0o444)
    try:
        (run / "ro").chmod(0o555)
        before = state(run)
        resumed = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal",
                      "--resume", cwd=run, permissions=True)
        one_line(resumed, 1, "s.journal", "cannot write the journal", "readonly")
        fresh = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "ro/j.journal",
                    cwd=run, permissions=True)
        one_line(fresh, 1, "ro/j.journal", "cannot write the journal: Permission denied")
        assert {k: v for k, v in state(run).items() if not k.endswith(("-wal", "-shm"))} == before
        assert list((run / "ro").iterdir()) == []
    finally:
        (run / "ro").chmod(0o755)


def test_a_journal_of_the_format_before_is_refused_in_one_line(run: Path) -> None:
    """Issue 39: format 2 kept every class's key, format 3 keeps counts; a format-2 journal (here: the meta of
    one, as that version wrote it) is refused in one line, by a resume and by a fresh run alike, and nothing
    is touched: never read as if it were of this format."""
    db = sqlite3.connect(run / "s.journal", isolation_level=None)
    db.execute("UPDATE meta SET value = '2' WHERE key = 'format'")
    db.execute("CREATE TABLE classes (idx INTEGER PRIMARY KEY, key BLOB UNIQUE NOT NULL)")
    db.close()
    before = state(run)
    for resume in ([], ["--resume"]):
        proc = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal", *resume,
                   cwd=run)
        one_line(proc, 2, "s.journal", "journal format '2', this cpsolve reads 3")
        assert state(run) == before
    shown = cli("journal", "s.journal", cwd=run)
    one_line(shown, 2, "s.journal", "journal format '2'")


@pytest.mark.parametrize("how", ["cut", "removed"])
def test_a_solutions_file_shorter_than_the_journal_says_is_refused(how: str, run: Path) -> None:
    """Issue 39: the journal keeps the classes of its last commit, not all of them, so a solutions file cut
    before that (or removed) cannot be written again: a resume says so in one line and touches nothing."""
    out = run / "s.jsonl"
    if how == "cut":
        out.write_bytes(out.read_bytes()[:10])
    else:
        out.unlink()
    before = state(run)
    proc = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal", "--resume",
               cwd=run)
    one_line(proc, 2, "s.jsonl", "the journal recorded")
    assert {k: v for k, v in state(run).items() if not k.endswith(("-wal", "-shm"))} == \
        {k: v for k, v in before.items() if not k.endswith(("-wal", "-shm"))}


@pytest.mark.slow
def test_a_part_forged_done_is_a_damaged_journal_not_an_internal_error(run: Path) -> None:
    """Issue 35 item 8: an open part marked done with its digest made again passes every check a journal can
    make alone; the counts then disagree at the end of the resumed run, which said "internal check failed ...
    please report". Each open part is forged in turn (which ones the cross-check catches depends on the run
    the fixture stopped): a caught one is a damaged journal, exit 2, left unfinished; none is an internal
    error, and none ends complete with counts that disagree."""
    path = run / "s.journal"
    original, solutions = path.read_bytes(), (run / "s.jsonl").read_bytes()
    db = sqlite3.connect(path)
    open_parts = [p for (p,) in db.execute("SELECT part FROM parts WHERE NOT done ORDER BY part")]
    db.close()
    caught = 0
    for part in open_parts:
        path.write_bytes(original)
        (run / "s.jsonl").write_bytes(solutions)
        db = sqlite3.connect(path, isolation_level=None)
        # every count a finished part has (none is NULL there), made up so that the part's row passes its own
        # checks and the run's totals cannot agree (a weight without its orbit): only the end-of-run check sees it
        db.execute("UPDATE parts SET done = 1, weighted = 1, found = 1, rotations = 0, orbits = 0, classes = 0, "
                   f"assemblies = 0, mirrors = 0, nodes = 0 WHERE part = {part}")
        db.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (journal_module._digest(db),))
        db.close()
        proc = cli("enumerate", "soma", "--workers", "2", "-q", "--out", "s.jsonl", "--journal", "s.journal",
                   "--resume", cwd=run)
        assert "internal" not in proc.stderr, proc.stderr
        if proc.returncode == 2:
            one_line(proc, 2, "s.journal: damaged journal: at the end of the resumed run the weights give ")
            one_line(cli("journal", "s.journal", cwd=run), 2, "s.journal: damaged journal: every subproblem is done")
            caught += 1
            if caught == 2:
                break
        else:
            assert proc.returncode == 0, proc.stderr
    assert caught, "no forged part was caught: the test proves nothing"


def test_the_end_of_run_check_blames_a_resumed_journal() -> None:
    """The same, without a run: the counts' check of a resumed run names the journal."""
    from cpsolve.puzzle.catalog import load
    from cpsolve.search.backends.dlx import DlxBackend
    from cpsolve.search.enumeration import _check_counts, enumerate_classes, prepare
    from cpsolve.search.settings import RunSettings

    result = enumerate_classes(prepare(load("soma")), RunSettings(DlxBackend(), limit=3))
    result.tally.orbit_total += 1
    with pytest.raises(CpsolveError, match="s.journal: damaged journal: at the end of the resumed run"):
        _check_counts(result, Path("s.journal"))
    with pytest.raises(CpsolveError, match="internal check failed"):
        _check_counts(result, None)


def test_after_a_limit_a_plain_run_replaces_the_journal_and_the_resume_drops_the_limit(tmp_path: Path) -> None:
    """Issue 35 item 9: after `enumerate soma --limit 5`, `enumerate soma` was refused ("holds an unfinished run
    ... add --resume"), though a journal with nothing done is replaced; and the resume suggested kept --limit 5
    (it stopped at once again) and --timeout."""
    stopped = cli("enumerate", "soma", "--limit", "5", "--timeout", "60", cwd=tmp_path)
    assert stopped.returncode == 0, stopped.stderr
    resume = "continue with: cpsolve enumerate soma --resume"
    assert stopped.stdout.splitlines()[-1].endswith(resume)
    assert cli("journal", "soma.solutions.jsonl.journal", cwd=tmp_path).stdout.splitlines()[-1] == resume
    again = cli("enumerate", "soma", "-q", "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert counts(again.stdout) == SOMA and len((tmp_path / "soma.solutions.jsonl").read_text().splitlines()) == 240
    assert not (tmp_path / "soma.solutions.jsonl.journal").exists()


def test_a_name_with_control_characters_is_shown_escaped_and_suggested_as_typed(tmp_path: Path) -> None:
    """An --out name with control characters reached the terminal raw, and the suggested resume named another
    file (its escaped form): the command is suggested with $'...' words a shell reads back as the name."""
    name = "a\x1b[2Jb.jsonl"
    stopped = cli("enumerate", "soma", "--limit", "5", "--out", name, cwd=tmp_path)
    assert stopped.returncode == 0 and "\x1b" not in stopped.stdout, stopped.stdout
    assert "written to a\\x1b[2Jb.jsonl" in stopped.stdout
    suggested = stopped.stdout.splitlines()[-1].split("continue with: ")[1]
    words = subprocess.run(["bash", "-c", f"printf '%s\\0' {suggested}"], capture_output=True, check=True).stdout
    assert words.decode().split("\0")[:-1] == ["cpsolve", "enumerate", "soma", "--out", name, "--resume"]
