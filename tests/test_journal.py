"""The journal: a run killed at any moment (kill -9 of the whole process group, as in a power loss)
resumes to the exact reference counts, with a solutions file that has every class once."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cpsolve.errors import CpsolveError
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends import for_problem
from cpsolve.search.enumeration import COMMIT_CLASSES, enumerate_classes, prepare
from cpsolve.search.journal import Journal, fingerprint, summary
from cpsolve.search.parts import plan, split, tiles
from cpsolve.search.result import EnumerationResult
from cpsolve.search.settings import JournalPlan, RunSettings

CONWAY = (27456, 1144, 572)
Y_BOX = (60672, 2528, 1264)


def cpsolve(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "cpsolve", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def counts(out: str) -> tuple[int, int, int]:
    data = json.loads(out)
    return data["total"], data["unique_rotation"], data["unique_symmetry"]


def solutions_file_ok(path: Path, classes: int) -> None:
    """Every class exactly once, numbered 0..n-1 without a gap."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == classes
    assert sorted(line["class"] for line in lines) == list(range(classes))
    assert len({json.dumps(line["pieces"], sort_keys=True) for line in lines}) == classes


def journal_written(journal: Path, since: float, proc: subprocess.Popen[bytes], within: float = 60) -> None:
    """Wait until the run has written its journal (made it, or written the time of its resume into its -wal):
    from then on it is searching, however long loading and preparing took on a busy machine."""
    end = time.monotonic() + within
    while time.monotonic() < end and proc.poll() is None:
        for p in (journal, Path(f"{journal}-wal")):
            with contextlib.suppress(OSError):
                if p.stat().st_mtime >= since:
                    return
        time.sleep(0.01)


def kill_and_resume(tmp_path: Path, model: str, reference: tuple[int, int, int], moments: list[float],
                    workers: str = "2") -> list[int]:
    """Start the run, kill -9 its process group at each moment (seconds after it wrote its journal), resume,
    repeat; the last resume runs to the end. Returns the subproblems done at each kill (from the journal)."""
    out = tmp_path / f"{model}.jsonl"
    journal = tmp_path / f"{model}.journal"
    base = [model, "--workers", workers, "--quiet", "--json", "--out", str(out), "--journal", str(journal)]
    progress = []
    for n, moment in enumerate(moments):
        args = base + (["--resume"] if n else [])
        since = time.time() - 0.01  # file times can lag the clock by a tick
        proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "enumerate", *args], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        journal_written(journal, since, proc)
        time.sleep(moment)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        progress.append(summary(journal).parts_done if journal.exists() else -1)
    last = cpsolve("enumerate", *base, "--resume", cwd=tmp_path)
    assert counts(last.stdout) == reference
    solutions_file_ok(out, reference[2])
    assert summary(journal).complete  # named with --journal: kept, marked complete
    return progress


@pytest.mark.slow
def test_conway_killed_at_ten_random_moments(tmp_path: Path) -> None:
    rng = random.Random(20261123)
    # The search takes about a second here: moments from its start to its end.
    moments = [rng.uniform(0.0, 1.1) for _ in range(10)]
    progress = kill_and_resume(tmp_path, "conway-5x5x5", CONWAY, moments)
    assert max(progress) > 0, f"no kill landed after a finished subproblem: {progress}"


@pytest.mark.slow
def test_y_pentacube_box_killed_three_times(tmp_path: Path) -> None:
    rng = random.Random(7)
    progress = kill_and_resume(tmp_path, "y-pentacube-5x5x5", Y_BOX, [rng.uniform(0.5, 4.5) for _ in range(3)])
    assert max(progress) > 0, progress


def test_resume_serial_run_in_process(tmp_path: Path) -> None:
    """In-process: a run stopped by its limit resumes with the same split and counts the rest once. The
    resume hands on again only the classes of the first run's last commit (a file may lack them: journal.py),
    then every class the first run did not hand on, each once."""
    prepared = prepare(load("conway-5x5x5"))
    engine = for_problem("dlx", prepared.problem)
    book = tmp_path / "c.journal"
    seen: list[int] = []
    first = enumerate_classes(prepared, RunSettings(engine, workers=2, limit=450, journal=JournalPlan(book)),
                              on_class=lambda c: seen.append(c.index))
    assert first.status.value == "stopped" and 0 < first.subproblems_done < first.subproblems
    replayed: list[int] = []
    rest = enumerate_classes(prepared, RunSettings(engine, workers=1, journal=JournalPlan(book, resume=True)),
                             on_class=lambda c: replayed.append(c.index))
    assert (rest.tally.total, rest.tally.unique_rotation, rest.tally.unique_symmetry) == CONWAY
    again = sorted(set(seen) & set(replayed))
    assert 0 < len(again) <= COMMIT_CLASSES and again == list(range(again[0], len(seen)))  # the last commit's
    assert sorted(seen + replayed[len(again):]) == list(range(CONWAY[2])) and sorted(replayed) == replayed
    done = summary(book)
    assert done.complete and done.parts_done == done.parts == rest.subproblems


def test_fingerprint_tells_problems_apart() -> None:
    conway = load("conway-5x5x5")
    assert fingerprint(prepare(conway).broken) == fingerprint(prepare(conway).broken)
    assert fingerprint(prepare(conway).broken) != fingerprint(prepare(conway, symmetry_breaking=False).broken)
    assert fingerprint(prepare(load("soma")).broken) != fingerprint(prepare(conway).broken)


@pytest.mark.slow
def test_refusals_are_one_line(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    stopped = cpsolve("enumerate", "conway-5x5x5", "--workers", "2", "--limit", "400", "--quiet", "--no-save",
                      "--journal", str(journal), cwd=tmp_path)
    assert stopped.stdout.splitlines()[-1].endswith(f"continue with: cpsolve enumerate conway-5x5x5 --workers 2 "
                                                    f"--quiet --no-save --journal {journal} --resume")
    # Not resumed: refused, the work it holds is kept.
    again = cpsolve("enumerate", "conway-5x5x5", "--quiet", "--no-save", "--journal", str(journal), cwd=tmp_path,
                    check=False)
    assert again.returncode == 2 and "add --resume" in again.stderr and len(again.stderr.splitlines()) == 1
    # Another problem: refused.
    other = cpsolve("enumerate", "soma", "--quiet", "--no-save", "--journal", str(journal), "--resume", cwd=tmp_path,
                    check=False)
    assert other.returncode == 2 and "different problem" in other.stderr and len(other.stderr.splitlines()) == 1
    assert other.stderr.startswith(f"cpsolve: error: {journal}")
    # Not a journal at all.
    junk = tmp_path / "junk.journal"
    junk.write_text("hello")
    bad = cpsolve("journal", str(junk), cwd=tmp_path, check=False)
    assert bad.returncode == 2 and "not a cpsolve journal" in bad.stderr
    shown = cpsolve("journal", str(journal), "--json", cwd=tmp_path)
    state = json.loads(shown.stdout)
    assert not state["complete"] and 0 < state["parts_done"] < state["parts"]
    assert state["command"].endswith(f"--journal {journal}")


@pytest.mark.slow
def test_default_journal_is_removed_once_complete(tmp_path: Path) -> None:
    stopped = cpsolve("enumerate", "conway-5x5x5", "--workers", "2", "--limit", "400", "--quiet", cwd=tmp_path)
    journal = tmp_path / "conway-5x5x5.solutions.jsonl.journal"
    assert journal.exists() and str(journal.name) in stopped.stdout
    done = cpsolve("enumerate", "conway-5x5x5", "--workers", "2", "--quiet", "--resume", "--json", cwd=tmp_path)
    assert counts(done.stdout) == CONWAY and not journal.exists()
    solutions_file_ok(tmp_path / "conway-5x5x5.solutions.jsonl", CONWAY[2])
    # --resume with nothing to resume starts from the beginning, with a note.
    fresh = cpsolve("enumerate", "soma", "--quiet", "--resume", "--json", cwd=tmp_path)
    assert counts(fresh.stdout) == (11520, 480, 240) and "starting from the beginning" in fresh.stderr


def test_commit_is_one_transaction(tmp_path: Path) -> None:
    """A part's counts and the classes found before it are written together or not at all."""
    prepared = prepare(load("soma"))
    book = tmp_path / "s.journal"
    result = enumerate_classes(prepared,
                               RunSettings(for_problem("dlx", prepared.problem), workers=2, journal=JournalPlan(book)))
    db = sqlite3.connect(book)
    classes, weighted, orbits = db.execute("SELECT sum(classes), sum(weighted), sum(orbits) FROM parts WHERE done"
                                           ).fetchone()
    assert (weighted, classes) == (result.tally.total, 240) and orbits == 11520
    # No key is kept: the finished parts' classes are their counts, and only the last commit's are whole.
    assert db.execute("SELECT count(*) FROM written").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM tail").fetchone()[0] <= COMMIT_CLASSES
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    with pytest.raises(CpsolveError, match="different problem"):
        Journal.resume(book, prepare(load("conway-5x5x5")).broken)


@pytest.mark.slow
def test_parts_that_overrun_are_split_again_and_resume_exactly(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget of a few hundred nodes, parts hand back what they had not searched: the run ends
    with many more subproblems than it planned and the reference counts; stopped half-way and resumed
    on one worker (no budget), the journal's given-back parts are run and nothing counts twice."""
    from cpsolve.search import enumeration

    monkeypatch.setattr(enumeration, "MIN_BUDGET", 300)
    monkeypatch.setattr(enumeration, "OVERRUN", 0.5)
    monkeypatch.setattr(enumeration, "SHARE", 0.0)  # split at once, however much work is still waiting
    prepared = prepare(load("conway-5x5x5"))
    engine = for_problem("dlx", prepared.problem)
    planned = len(enumeration.plan(prepared.broken, 2, engine.parts_per_worker))
    whole = enumerate_classes(prepared, RunSettings(engine, workers=2))
    assert (whole.tally.total, whole.tally.unique_rotation, whole.tally.unique_symmetry) == CONWAY
    assert whole.subproblems == whole.subproblems_done > 2 * planned
    book = tmp_path / "split.journal"

    def stop_once_given_back(result: EnumerationResult) -> None:
        # Stopped as Ctrl-C would stop it, right after the first commit that added given-back parts. (A
        # class limit raced the parts' budgets: 300 of the 572 classes came from the first three parts,
        # which now and then finished within their budgets and gave nothing back.)
        if result.subproblems > planned:
            raise KeyboardInterrupt

    first = enumerate_classes(prepared,
                              RunSettings(engine, workers=2, journal=JournalPlan(book), progress=stop_once_given_back))
    assert first.status.value == "interrupted"
    db = sqlite3.connect(book)
    parts, done = db.execute("SELECT count(*), sum(done) FROM parts").fetchone()
    db.close()
    assert parts > planned and 0 < done < parts  # parts were given back and journalled, some not yet run
    rest = enumerate_classes(prepared, RunSettings(engine, workers=1, journal=JournalPlan(book, resume=True)))
    assert (rest.tally.total, rest.tally.unique_rotation, rest.tally.unique_symmetry) == CONWAY
    end = summary(book)
    assert end.complete and end.parts_done == end.parts == rest.subproblems >= parts


def complete_lines(path: Path) -> list[int]:
    """The classes of a solutions file's complete lines (a kill can cut the last one short): each once."""
    text = path.read_text() if path.exists() else ""
    lines = [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines()]
    indices = [line["class"] for line in lines]
    assert len(set(indices)) == len(indices), "a class written twice"
    assert len({json.dumps(line["pieces"], sort_keys=True) for line in lines}) == len(lines), "a class written twice"
    return indices


def catches_stops(pid: int) -> bool:
    """Whether the process has set cpsolve's stop handlers: it catches SIGTERM, which Python alone does not."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


@pytest.mark.slow
def test_stopped_and_killed_at_random_moments_the_file_never_shrinks(tmp_path: Path) -> None:
    """Issue 26: a journalled run stopped at random moments (SIGKILL of its process group, SIGTERM,
    SIGINT), on one worker or two, and resumed each time: no class is ever in the solutions file twice,
    the file is never shorter than it was before the run started, and the counts end exact. A run that
    gets to its end between two stops (a fast machine, or a loaded one whose lines come in big bursts)
    is checked and started again from nothing, until eight stops have cut runs short."""
    rng = random.Random(2611)
    out, journal = tmp_path / "y.jsonl", tmp_path / "y.journal"
    base = ["y-pentacube-5x5x5", "-q", "--json", "--out", str(out), "--journal", str(journal)]
    before = 0
    stops = []
    fresh = True
    for n in range(40):
        workers = rng.choice(["1", "2"])
        sig = rng.choice([signal.SIGKILL, signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
        proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "enumerate", *base, "--workers", workers,
                                 *([] if fresh else ["--resume"])], cwd=tmp_path, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        # From the moment cpsolve catches stop signals (before that, a SIGINT in Python's own start prints a
        # traceback). Some stops land in the replay, a short time after that moment; the others when the file
        # has grown by a random share of what is left.
        wait = time.monotonic() + 30
        while not catches_stops(proc.pid) and proc.poll() is None and time.monotonic() < wait:
            time.sleep(0.005)
        if rng.random() < 0.4:
            time.sleep(rng.uniform(0.0, 0.3))
        else:
            target = before + max(1, int((Y_BOX[2] - before) * rng.uniform(0.02, 0.2)))
            while proc.poll() is None and len(complete_lines(out)) < target and time.monotonic() < wait + 60:
                time.sleep(0.005)
        if proc.poll() is None:  # not yet reaped, so its process group is still there
            if sig == signal.SIGKILL:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        stdout, err = proc.communicate(timeout=120)
        assert "Traceback" not in err and "internal error" not in err, err
        found = complete_lines(out)
        assert len(found) >= before, f"round {n} ({sig.name}, {workers} workers): {before} lines became {len(found)}"
        stops.append((sig.name, proc.returncode, before, len(found)))
        before, fresh = len(found), False
        cut_short = sum(code in (-9, 130, 143) and start < Y_BOX[2] for _, code, start, _ in stops)
        if proc.returncode == 0:  # the run got to its end first: exact, then again from nothing
            assert counts(stdout) == Y_BOX
            solutions_file_ok(out, Y_BOX[2])
            if cut_short < 8:
                out.unlink()
                journal.unlink()
                before, fresh = 0, True
        if cut_short >= 8:
            break
    # Stops that cut a run short: the run had classes left to write and did not end by itself.
    assert sum(code in (-9, 130, 143) and start < Y_BOX[2] for _, code, start, _ in stops) >= 8, stops
    last = cpsolve("enumerate", *base, "--workers", "2", *([] if fresh else ["--resume"]), cwd=tmp_path)
    assert counts(last.stdout) == Y_BOX
    solutions_file_ok(out, Y_BOX[2])


def test_journal_shows_its_strings_escaped_and_the_command_quoted(tmp_path: Path) -> None:
    """Issue 26 item 12: the stored "continue with" command was printed verbatim and unquoted (a crafted
    journal could suggest `...; rm -rf /`, a file name with a space broke it), and control characters of
    the journal's fields reached the terminal."""
    from cpsolve.output.text import printable

    prepared = dataclasses.replace(prepare(load("soma")), name="evil\x1b[2J\rname")
    book = tmp_path / "j.journal"
    argv = ("cpsolve", "enumerate", "my puzzle.yaml", "--out", "x; rm -rf ~", "--journal", str(book))
    stopped = enumerate_classes(prepared,
                                RunSettings(for_problem("dlx", prepared.problem), workers=2, limit=100,
                                            journal=JournalPlan(book, argv=argv)))
    assert stopped.status.value == "stopped"
    shown = cpsolve("journal", str(book), cwd=tmp_path).stdout
    assert "\x1b" not in shown and "\r" not in shown
    assert shown.startswith(printable("evil\x1b[2J\rname") + ": unfinished run")
    (resume,) = [line for line in shown.splitlines() if line.startswith("continue with: ")]
    assert shlex.split(resume.removeprefix("continue with: ")) == [*argv, "--resume"]
    state = json.loads(cpsolve("journal", str(book), "--json", cwd=tmp_path).stdout)
    assert state["argv"] == list(argv) and state["command"] == shlex.join(argv)


def test_tiles_tells_a_partition_of_the_search_from_anything_else() -> None:
    """The check a resume makes of a journal's planned parts (a hand-edited list passed it before only if
    its digest was recomputed too)."""
    broken = prepare(load("conway-5x5x5")).broken
    parts = plan(broken, 2, 64)
    assert len(parts) > len(broken.starts) and tiles(broken, parts) and tiles(broken, broken.starts)
    assert not tiles(broken, parts[1:])  # a part dropped: its solutions would never be searched
    assert not tiles(broken, [*parts, parts[0]])  # a part twice: counted twice
    assert tiles(broken, [*parts[1:], *split(broken.problem, parts[0])])  # one part split further: still one
    assert not tiles(broken, [parts[0][:-1], *parts])  # a part and one inside it


def test_a_run_stopped_by_its_limit_is_continued_without_it(tmp_path: Path) -> None:
    """Issue 39 item 5: `cpsolve journal` suggested resuming with the same --limit N, which stops at once (the
    classes written count toward it). The suggestion drops it, in both spellings, and it continues the run."""
    first = cpsolve("enumerate", "soma", "--limit", "50", "-q", "--out", "s.jsonl", "--journal", "s.journal",
                    cwd=tmp_path)
    assert first.stdout.rstrip().endswith(
        "continue with: cpsolve enumerate soma -q --out s.jsonl --journal s.journal --resume")
    shown = cpsolve("journal", "s.journal", cwd=tmp_path).stdout
    (resume,) = [line for line in shown.splitlines() if line.startswith("continue with: ")]
    words = shlex.split(resume.removeprefix("continue with: "))
    assert words[-1] == "--resume" and "--limit" not in words and "50" not in words
    done = cpsolve(*words[1:], "--json", cwd=tmp_path)
    assert counts(done.stdout) == (11520, 480, 240)
    solutions_file_ok(tmp_path / "s.jsonl", 240)
    from cpsolve.search.journal_file import _without_limit

    assert _without_limit(["cpsolve", "enumerate", "x", "--limit=7", "-q"]) == ("cpsolve", "enumerate", "x", "-q")


@pytest.mark.slow  # about 17 s on two cores: the slow tier, so that the fast tier stays within 5 minutes
def test_a_deadline_then_resumes_continue_from_there(tmp_path: Path) -> None:
    """Issue 39 item 3: a journalled run cut by --timeout, resumed, goes on from where the journal stands: the
    file only grows, each class once, and what the journal counts as written is in it. (A resume runs the
    unfinished subproblems again from their start, passing over the classes they had written, so it needs
    longer than the run before to write new ones: this box has two subproblems, each far longer than that.)"""
    base = ["enumerate", "t-tetracube-6x6x6", "-q", "--json", "--out", "t.jsonl", "--journal", "t.journal"]
    sizes = []
    for n, seconds in enumerate(("2", "6")):
        run = cpsolve(*base, "--timeout", seconds, *(["--resume"] if n else []), cwd=tmp_path, check=False)
        assert run.returncode == 3, run.stderr  # cut by its deadline
        lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
        assert [line["class"] for line in lines] == list(range(len(lines)))
        assert len({line["id"] for line in lines}) == len(lines)
        assert summary(tmp_path / "t.journal").classes == len(lines)
        sizes.append(len(lines))
    assert 0 < sizes[0] < sizes[1], sizes


def test_classes_written_before_a_resume_that_splits_their_part_are_not_written_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: the journal keeps a digest of each class written by an unfinished part. A resume that runs that
    part with a node budget gives back the region where the first run had found some of them: the parts made
    of it find them, and the journal tells them apart (claimed by the part that met them again), so every class
    is handed on exactly once across both runs, and the counts end exact."""
    from cpsolve.search import enumeration

    prepared = prepare(load("conway-5x5x5"))
    engine = for_problem("dlx", prepared.problem)
    book = tmp_path / "c.journal"
    first_ids: list[str] = []
    first = enumerate_classes(prepared, RunSettings(engine, workers=1, limit=200, journal=JournalPlan(book)),
                              on_class=lambda c: first_ids.append(c.id))
    assert first.status.value == "stopped" and first.subproblems_done < first.subproblems
    db = sqlite3.connect(book)
    pending = db.execute("SELECT count(*) FROM written").fetchone()[0]
    tail = [row[0] for row in db.execute("SELECT id FROM tail ORDER BY idx")]
    db.close()
    assert pending > 0  # classes written by the part the limit stopped
    monkeypatch.setattr(enumeration, "MIN_BUDGET", 300)
    monkeypatch.setattr(enumeration, "OVERRUN", 0.5)
    monkeypatch.setattr(enumeration, "SHARE", 0.0)
    rest_ids: list[str] = []
    rest = enumerate_classes(prepared, RunSettings(engine, workers=2, journal=JournalPlan(book, resume=True)),
                             on_class=lambda c: rest_ids.append(c.id))
    assert (rest.tally.total, rest.tally.unique_rotation, rest.tally.unique_symmetry) == CONWAY
    assert rest.subproblems > first.subproblems  # parts were given back
    assert rest_ids[: len(tail)] == tail  # the last commit's classes again, for a file that may lack them
    written = first_ids + rest_ids[len(tail):]
    assert len(written) == len(set(written)) == CONWAY[2]
    end = summary(book)
    assert end.complete and end.classes == CONWAY[2]
