"""Faults in the middle of a run: a worker killed, the parent stopped by SIGTERM/SIGHUP/SIGINT or killed.

After each, no process of the run may be left, and the counts must be exact (the dead worker's part
rerun, nothing counted twice) or clearly marked incomplete with the solutions file agreeing with
the printed summary line for line.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import alive, cpu_seconds, descendants, one_line, wait_until

from cpsolve.errors import CpsolveError
from cpsolve.puzzle.catalog import load
from cpsolve.search.backends.dlx import DlxBackend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.isolate import Overrun, run_isolated
from cpsolve.search.parts import plan
from cpsolve.search.settings import RunSettings

SOMA = (11520, 480, 240)
CONWAY = (27456, 1144, 572)
TETRIS_CUBE = (236136, 9839, 9839)


def wait_gone(pids: list[int], within: float) -> list[int]:
    end = time.monotonic() + within
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


_started: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_leftovers():
    """A failing test must not leave its run behind for the next test to trip over."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _started.append(proc)
    return proc


def wait_for_workers(proc: subprocess.Popen[str], n: int, timeout: float = 30) -> list[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        kids = descendants(proc.pid)
        if len(kids) >= n:
            return kids
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


def wait_for_lines(path: Path, n: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {n} lines")


class DyingBackend(DlxBackend):
    """dlx, except that the worker running `doomed` kills itself (SIGKILL, as the OOM killer would)
    after sending `after` solutions — only the first time, unless `always`; a marker file says
    whether it has died already (the attempts run in different processes)."""

    def __init__(self, doomed: tuple[int, ...], after: int, marker: Path, always: bool = False):
        super().__init__()
        self.doomed, self.after, self.marker, self.always = doomed, after, marker, always

    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        if forced != self.doomed or (self.marker.exists() and not self.always):
            return super()._search(problem, forced, run)
        sent = 0
        emit = run.emit

        def deadly(rows: tuple[int, ...]) -> bool:
            nonlocal sent
            stop = emit(rows)
            sent += 1
            if sent == self.after:
                self.marker.write_text("died")
                time.sleep(0.2)  # let the solutions reach the parent first
                os.kill(os.getpid(), signal.SIGKILL)
            return stop

        run.emit = deadly  # type: ignore[method-assign]
        return super()._search(problem, forced, run)


def busiest_part(prepared, workers: int) -> tuple[tuple[int, ...], int]:
    """The part with the most solutions (and how many), found by a serial run of each part."""
    backend = DlxBackend()
    best: tuple[tuple[int, ...], int] = ((), -1)
    for forced in plan(prepared.broken, workers, backend.parts_per_worker):
        found: list[tuple[int, ...]] = []
        backend.search(prepared.broken.problem, lambda rows, f=found: f.append(rows), forced=forced)
        if len(found) > best[1]:
            best = (forced, len(found))
    return best


def test_a_dead_workers_part_is_rerun_and_nothing_is_counted_twice(tmp_path):
    prepared = prepare(load("soma"))
    doomed, n = busiest_part(prepared, 2)
    assert n >= 4
    marker = tmp_path / "died"
    result = enumerate_classes(prepared, RunSettings(DyingBackend(doomed, n // 2, marker), workers=2))
    assert marker.read_text() == "died"  # the worker did die halfway through its part
    assert result.status.value == "complete"
    assert (result.tally.total, result.tally.unique_rotation, result.tally.unique_symmetry) == SOMA
    assert result.tally.found == enumerate_classes(prepared, RunSettings(DlxBackend(), workers=1)).tally.found
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # every worker was reaped


class FicklePart(DyingBackend):
    """A backend that breaks the promise a rerun relies on: run again after its worker died, the doomed part
    lists its solutions in another order. The first time, its worker dies once its first `after` solutions
    have surely been sent (a pause past the worker's FLUSH before the last of them sends the batch)."""

    def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
        if forced != self.doomed:
            return super(DyingBackend, self)._search(problem, forced, run)
        found: list[tuple[int, ...]] = []
        emit = run.emit
        run.emit = lambda rows: found.append(rows) or False  # type: ignore[method-assign]
        super(DyingBackend, self)._search(problem, forced, run)
        if self.marker.exists():
            found.reverse()
        for k, rows in enumerate(found, 1):
            if k == self.after and not self.marker.exists():
                time.sleep(0.1)
                emit(rows)
                self.marker.write_text("died")
                time.sleep(0.2)  # let the batch reach the parent
                os.kill(os.getpid(), signal.SIGKILL)
            if emit(rows):
                return None
        return None


def test_a_rerun_that_lists_other_solutions_stops_the_run_rather_than_miscount(tmp_path):
    """Issue 39: a dead worker's part is run again skipping the solutions the parent already counted, checked by
    their running hash; a backend whose rerun lists them otherwise is one line, exit 1, not a wrong count."""
    prepared = prepare(load("soma"))
    doomed, n = busiest_part(prepared, 2)
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    with pytest.raises(CpsolveError) as err:
        enumerate_classes(prepared, RunSettings(FicklePart(doomed, n // 2, tmp_path / "died"), workers=2))
    assert err.value.exit_code == 1
    assert (f"a worker failed on subproblem {parts.index(doomed) + 1}: the backend listed other solutions when "
            f"subproblem {parts.index(doomed) + 1} was run again") in str(err.value)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_a_part_that_kills_its_worker_twice_stops_the_run_naming_it(tmp_path):
    prepared = prepare(load("soma"))
    doomed, n = busiest_part(prepared, 2)
    parts = plan(prepared.broken, 2, DlxBackend.parts_per_worker)
    began = time.perf_counter()
    with pytest.raises(CpsolveError) as err:
        enumerate_classes(prepared, RunSettings(DyingBackend(doomed, 1, tmp_path / "died", always=True), workers=2))
    assert err.value.exit_code == 1
    assert f"subproblem {parts.index(doomed) + 1} of {len(parts)} failed: its worker died 2 times " \
           "(last killed by SIGKILL)" in str(err.value)
    assert time.perf_counter() - began < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def summary_counts(stdout: str) -> tuple[int, int, int]:
    line = stdout.splitlines()[0].split(": ", 1)[1].removeprefix("INTERRUPTED (counts so far, incomplete): ")
    words = line.split()
    return int(words[0]), int(words[4]), int(words[8])


def file_counts(path: Path) -> tuple[int, int, int]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return (sum(r["assemblies"] for r in lines), sum(2 if r["mirror_distinct"] else 1 for r in lines), len(lines))


@pytest.mark.slow
def test_killing_a_worker_from_outside_keeps_the_counts_exact(tmp_path):
    # A run of a few seconds on two workers (Conway without symmetry breaking now ends in 0.6 s, before
    # the kill); its published counts are the reference. The kill comes once the search is writing
    # solutions, whatever the machine's speed: 20 of the 9839 classes are in the file by then.
    out_file = tmp_path / "t.jsonl"
    proc = start("enumerate", "tetris-cube", "--workers", "2", "--json", "--out", str(out_file), "-q",
                 cwd=tmp_path)
    wait_for_lines(out_file, 20, proc)
    workers = wait_for_workers(proc, 2)  # the search's workers (those that chose the key are gone)
    os.kill(workers[0], signal.SIGKILL)
    end = time.monotonic() + 30
    while not set(descendants(proc.pid)) - set(workers) and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.01)
    assert set(descendants(proc.pid)) - set(workers), "the kill landed in the search: a new worker took over"
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert (result["total"], result["unique_rotation"], result["unique_symmetry"]) == TETRIS_CUBE
    assert result["status"] == "complete"
    assert file_counts(out_file) == TETRIS_CUBE  # the dead worker's part redone, nothing written twice
    assert wait_gone(workers + descendants(proc.pid), 10.0) == []


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_stop_signal_ends_the_run_cleanly(sig, code, workers, tmp_path):
    """Like Ctrl-C: the summary says INTERRUPTED, the file agrees with it, no worker is left."""
    out_file = tmp_path / "b.jsonl"
    proc = start("enumerate", "bedlam", "--workers", workers, "--out", str(out_file), "-q", cwd=tmp_path)
    kids = wait_for_workers(proc, 2) if workers == "2" else []
    wait_for_lines(out_file, 5, proc)  # the search is running and writing
    sent = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert "INTERRUPTED (counts so far, incomplete)" in out.splitlines()[0]
    counts = summary_counts(out)
    assert counts[0] > 0
    # The file has one line per class the summary counts; each line gives its class's full size, of
    # which the summary's total counts the assemblies actually visited (README: "interrupted runs").
    in_file = file_counts(out_file)
    assert in_file[2] == counts[2] and in_file[0] >= counts[0] and in_file[1] >= counts[1]
    assert wait_gone(kids, 10.0) == []


def test_sigkill_of_the_parent_leaves_no_worker(tmp_path):
    proc = start("enumerate", "bedlam", "--workers", "2", "--no-save", "-q", cwd=tmp_path)
    workers = wait_for_workers(proc, 2)
    proc.kill()
    proc.wait()
    assert wait_gone(workers, 10.0) == []


def test_sigkill_of_compare_leaves_no_child_or_grandchild(tmp_path):
    proc = start("compare", "bedlam", "--backends", "dlx", "--workers", "2", cwd=tmp_path)
    everyone = wait_for_workers(proc, 3)  # the measured child and its two workers
    proc.kill()
    proc.wait()
    assert wait_gone(everyone, 10.0) == []  # gone with their parent (a busy machine may take a while)


def test_sigterm_of_compare_stops_its_child_and_reports(tmp_path):
    proc = start("compare", "bedlam", "--backends", "dlx", cwd=tmp_path)
    child = wait_for_workers(proc, 1)
    # The measured child is searching (it has used CPU), whatever the load: a fixed second could end first.
    assert wait_until(lambda: cpu_seconds(child[0]) >= 0.5 or proc.poll() is not None, within=60)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert "interrupted" in out
    assert wait_gone(child, 10.0) == []


def _ignore_stops_and_sleep() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    time.sleep(60)


@pytest.mark.slow
def test_a_measured_child_that_ignores_its_limit_is_killed():
    began = time.perf_counter()
    with pytest.raises(Overrun):
        run_isolated(_ignore_stops_and_sleep, limit=0.5)
    assert time.perf_counter() - began < 0.5 + 2.0 + 1.0
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def cli(*args: str, cwd: Path, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cpsolve", *args], cwd=cwd, text=True, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=120, check=False)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_one_line_and_exit_1(tmp_path):
    """Writing the solutions file, compare's rows or stdout to a full device: one line, exit 1."""
    one_line(cli("enumerate", "soma", "--out", "/dev/full", "-q", cwd=tmp_path), 1,
             "/dev/full: cannot write the solutions file: No space left on device")
    proc = cli("compare", "soma", "--backends", "dlx", "--out", "/dev/full", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.count("cpsolve: error:") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == ("cpsolve: error: /dev/full: cannot write the file: "
                                                    "No space left on device (the rows are printed above)")
    assert "11520" in proc.stdout  # the finished row is printed, not lost
    with open("/dev/full", "w") as full:
        one_line(cli("list", cwd=tmp_path, stdout=full.fileno()), 1, "cannot write the output: No space left")


def test_an_unwritable_destination_fails_before_the_run(tmp_path):
    began = time.perf_counter()
    proc = cli("enumerate", "bedlam", "--out", str(tmp_path / "no" / "such" / "dir.jsonl"), "-q", cwd=tmp_path)
    one_line(proc, 2, "cannot write the file: No such file or directory")
    proc = cli("compare", "bedlam", "--out", str(tmp_path), cwd=tmp_path)
    one_line(proc, 2, f"{tmp_path}: cannot write the file: Is a directory")
    assert time.perf_counter() - began < 15  # neither ran Bedlam (about 20 s)


EARLY = {
    "loading": "import os, signal, sys; sys.argv = ['cpsolve', 'enumerate', 'bedlam', '-q']\n"
               "import cpsolve.cli, cpsolve.puzzle.catalog as c\nread = c.read\n"
               "def interrupted(name):\n    os.kill(os.getpid(), signal.SIGINT)\n    return read(name)\n"
               "c.read = interrupted\ncpsolve.cli.main()\n",
}


@pytest.mark.parametrize("moment", sorted(EARLY))
def test_ctrl_c_while_starting_prints_no_traceback(moment, tmp_path):
    """Ctrl-C while cpsolve loads the model: exit 130, no traceback.

    The signal is sent from inside, at that very moment, so the test does not depend on timing.
    """
    proc = subprocess.run([sys.executable, "-c", EARLY[moment]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr


SIGNAL_AT_IMPORT = """
import os, signal, sys

AT = int(os.environ["CPSOLVE_TEST_SIGNAL_AT"])


class SignalAtImport:
    \"\"\"Sends Ctrl-C to this process at the AT-th new import once the command line's package is asked
    for: a moment while the program imports its command line, chosen by number, not by time.\"\"\"

    seen = 0

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if cls.seen or name == "cpsolve.cli":
            cls.seen += 1
            if cls.seen == AT:
                os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, SignalAtImport)
"""


def _the_command() -> list[str]:
    """The `cpsolve` command as pip installs it: the script pyproject.toml names, run by this interpreter (pip
    writes its path over the script's `#!python`)."""
    import tomllib

    repo = Path(__file__).resolve().parent.parent
    (script,) = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["script-files"]
    return [sys.executable, str(repo / script)]


@pytest.mark.parametrize("how", ["python -m cpsolve", "the cpsolve command"])
@pytest.mark.slow
def test_ctrl_c_at_any_import_of_the_command_line_prints_no_traceback(how, tmp_path):
    """A Ctrl-C in the first 10-20 ms of a command printed a traceback (6 runs of 30 of `cpsolve list`):
    the early handlers were set by `cpsolve.cli.common` after its own imports, and only when argv[0]
    looked like cpsolve. The signal is sent at the first imports once the command line is asked for,
    and at a seeded sample of the later ones (a number past the last import lets the command finish)."""
    (tmp_path / "sitecustomize.py").write_text(SIGNAL_AT_IMPORT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "cpsolve"] if how.startswith("python") else _the_command()
    rng = random.Random(26)
    for at in [1, 2, 3, 4, 5, 6, 8, 10, *sorted(rng.sample(range(11, 400), 10))]:
        proc = subprocess.run([*command, "list"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={**env, "CPSOLVE_TEST_SIGNAL_AT": str(at)}, check=False)
        assert proc.returncode in (0, 130), (at, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, (at, proc.stderr)


SIGNAL_AT_EXIT = """
import atexit, os, signal, time

def stop_while_shutting_down():
    for _ in range(int(os.environ["CPSOLVE_TEST_STOPS"])):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)

atexit.register(stop_while_shutting_down)
"""


@pytest.mark.parametrize(("stops", "status"), [(1, 0), (2, 128 + signal.SIGTERM)])
def test_a_stop_while_the_finished_command_shuts_down_is_quiet(stops, status, tmp_path):
    """A stop signal after the command's answer was out, while the process shut down (Dask joins its threads),
    printed "Exception ignored in: <module 'threading'>" and a KeyboardInterrupt traceback. The signal is
    sent from an exit handler, so it always lands during shutdown: one is noted and the finished command keeps
    its status; a second ends the process at once, quietly."""
    (tmp_path / "sitecustomize.py").write_text(SIGNAL_AT_EXIT, encoding="utf-8")
    env = {**os.environ, "CPSOLVE_TEST_STOPS": str(stops),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parent.parent),
                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "cpsolve", "list"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env=env, check=False)
    assert proc.returncode == status, proc.stderr
    assert proc.stderr == "" and "soma" in proc.stdout


SIGNAL_FROM_THE_FIRST_LINE = """
import atexit, os, signal, sys, threading

MODE, VALUE = os.environ["CPSOLVE_TEST_SIGNAL"].split(":")
count = 0


def ours(frame):
    \"\"\"A frame of cpsolve's own code: the command's script, or the package (python -m cpsolve).\"\"\"
    name = frame.f_code.co_filename.replace(os.sep, "/")
    return name.endswith("/bin/cpsolve") or "/cpsolve/" in name


def profile(frame, event, arg):
    \"\"\"Counts the interpreter's events (calls and returns, of Python and of C) from the first one in
    cpsolve's code on; sends Ctrl-C at the VALUE-th ("event"), or arms a timer of VALUE seconds at the first
    ("time"); "count" says at exit how many there were.\"\"\"
    global count
    if count == 0 and not ours(frame):
        return
    count += 1
    if MODE == "event" and count == int(VALUE):
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGINT)
    elif MODE == "time" and count == 1:
        sys.setprofile(None)
        threading.Timer(float(VALUE), os.kill, (os.getpid(), signal.SIGINT)).start()


if MODE == "count":
    atexit.register(lambda: os.write(2, f"events: {count}\\n".encode()))
sys.setprofile(profile)
"""


def _early_runs(command: list[str], folder: Path, moments: list[str]) -> list[tuple[str, int]]:
    """`command list` once per moment ("event:N", "time:S"), each checked: no traceback, exit 0 or 130."""
    (folder / "sitecustomize.py").write_text(SIGNAL_FROM_THE_FIRST_LINE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(Path(__file__).resolve().parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    codes = []
    for moment in moments:
        proc = subprocess.run([*command, "list"], cwd=folder, capture_output=True, text=True, timeout=120,
                              env={**env, "CPSOLVE_TEST_SIGNAL": moment}, check=False)
        assert proc.returncode in (0, 130), (moment, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, (moment, proc.stderr)
        codes.append((moment, proc.returncode))
    return codes


@pytest.mark.slow
@pytest.mark.parametrize("how", ["python -m cpsolve", "the cpsolve command"])
def test_ctrl_c_from_the_first_line_of_cpsolve_on_prints_no_traceback(how, tmp_path):
    """Issue 35 item 10: 5 of 30 runs of `cpsolve list` stopped in their first milliseconds still printed a
    traceback: pip's script for an entry point imports `re` first, the package is found and imported before
    any handler, and an editable install's import hook ran at start-up. The command is its own script now
    (bin/cpsolve answers stop signals on its first lines), the package answers them first when it is the
    program, and an editable install is a path. The moments are counted in the interpreter's events (calls
    and returns) from the first one in cpsolve's code: each of the 40 from the third on, a seeded sample of
    all the later ones up to the end of `list`, and random times from that first event, by a timer thread.
    Every run ends with 130 (or 0: the moment came after the end), never a traceback. The first two events
    are the start of cpsolve's first frame and the call that sets the first handler: a signal sent from
    the test's hook there is raised before any statement of cpsolve can answer it, as one during the
    interpreter's own start-up (site and its .pth files, the check of the script's path) is."""
    command = [sys.executable, "-m", "cpsolve"] if how.startswith("python") else _the_command()
    (tmp_path / "sitecustomize.py").write_text(SIGNAL_FROM_THE_FIRST_LINE, encoding="utf-8")
    counted = subprocess.run([*command, "list"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             check=False, env={**os.environ, "CPSOLVE_TEST_SIGNAL": "count:0",
                                               "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get(
                                                   "PYTHONPATH", "")])})
    assert counted.returncode == 0, counted.stderr
    total = int(counted.stderr.strip().splitlines()[-1].removeprefix("events: "))
    assert total > 1000  # the events of the imports and of `list`: the sample spans all of them
    rng = random.Random(35)
    moments = [f"event:{n}" for n in range(3, 43)] + [f"event:{n}" for n in sorted(rng.sample(range(43, total), 30))]
    moments += [f"time:{rng.uniform(0.0, 0.3):.4f}" for _ in range(20)]
    codes = _early_runs(command, tmp_path, moments)
    assert sum(code == 130 for _, code in codes) >= 70  # the events up to the end of `list` all stopped it


def test_a_killed_compare_child_is_a_failed_row_and_exit_1(tmp_path):
    proc = start("compare", "bedlam", "--backends", "dlx", cwd=tmp_path)
    (child,) = wait_for_workers(proc, 1)
    os.kill(child, signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "cpsolve: error: bedlam: dlx: the measured process was killed by SIGKILL"
    assert "failed: the measured process was killed by SIGKILL" in out


def test_a_failed_run_still_writes_the_classes_held_for_the_disassembly_workers(tmp_path, monkeypatch):
    """Issue 35: when a run failed with an exception (not a signal), the classes held for the disassembly
    workers (and those salvaged by the collector into them) were never written: every class the search handed
    on is in the file, in order, taken apart, whatever the failure found waiting."""
    import cpsolve
    from cpsolve.api import running
    from cpsolve.search import enumeration

    soma = cpsolve.load("soma")
    prepared, _ = running._prepare(soma, "auto", True, 2)
    doomed, n = busiest_part(prepared, 2)
    dying = DyingBackend(doomed, max(1, n // 2), tmp_path / "died", always=True)
    monkeypatch.setattr(running, "_prepare", lambda *args: (prepared, dying))
    handed: list[int] = []
    real = enumeration.enumerate_classes

    def spy(*args, on_class, **kwargs):  # type: ignore[no-untyped-def]
        def seen(cls):  # type: ignore[no-untyped-def]
            handed.append(cls.index)
            on_class(cls)

        return real(*args, on_class=seen, **kwargs)

    monkeypatch.setattr(enumeration, "enumerate_classes", spy)
    out = tmp_path / "s.jsonl"
    with pytest.raises(CpsolveError, match="its worker died"):
        cpsolve.run(soma, workers=2, out=out, journal=False, disassemble=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert handed and [line["class"] for line in lines] == handed == list(range(len(handed)))
    assert all(line["level"] for line in lines)
