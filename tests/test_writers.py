"""Every command that writes a file: one check of the destination, one way to write it (issue 35 items 1-3
and 7, and the exit status of a write that fails).

An output that is one of the command's inputs (also through a symbolic or a hard link), a journal (an
SQLite database) or a journal's side file is refused in one line, exit status 2, before any work, and
left byte for byte as it was. A file is replaced only once its new content is whole (a temporary made
exclusively beside it, then renamed): no fixed temporary name a planted link could redirect, and
nothing emptied by a run that fails or stops before it has anything to write. Pipes and devices are
written in place. A write that fails is exit status 1 in every command.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import one_line, run_cli

import cpsolve
from cpsolve.errors import CpsolveError
from cpsolve.output.files import replacing

SOMA = (REPO := Path(__file__).resolve().parent.parent) / "cpsolve" / "models" / "soma.yaml"

MUTILATED = """name: mutilated
container: {layers: [[".###", "####", "####", "###."]]}
pieces:
  D: {cells: [[0,0,0],[1,0,0]], count: 7}
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A puzzle file (p.yaml, Soma), a solutions file of it (s.jsonl), a BurrTools file of it (b.xmpuzzle) and
    a journal with an unfinished run (days.journal)."""
    where = tmp_path_factory.mktemp("made")
    (where / "p.yaml").write_bytes(SOMA.read_bytes())
    for args in (["enumerate", "p.yaml", "--limit", "3", "--out", "s.jsonl", "--journal", "days.journal", "-q"],
                 ["export", "p.yaml", "--format", "xmpuzzle", "-o", "b.xmpuzzle"]):
        proc = run_cli(*args, cwd=where)
        assert proc.returncode == 0, proc.stderr
    return where


@pytest.fixture
def folder(made: Path, tmp_path: Path) -> Path:
    """A copy of `made` of the test's own."""
    for p in made.iterdir():
        shutil.copy2(p, tmp_path / p.name)
    return tmp_path


WRITERS = {
    "sample": (["sample", "p.yaml", "-n", "2", "-o", "{out}"], "--out"),
    "export dimacs": (["export", "p.yaml", "--format", "dimacs", "-o", "{out}"], "--out"),
    "export xmpuzzle": (["export", "p.yaml", "--format", "xmpuzzle", "-o", "{out}"], "--out"),
    "export with solutions": (["export", "p.yaml", "--format", "xmpuzzle", "--with-solutions", "s.jsonl", "-o",
                               "{out}"], "--out"),
    "view": (["view", "p.yaml", "-o", "{out}"], "--out"),
    "view solutions": (["view", "s.jsonl", "-o", "{out}"], "--out"),
    "draw": (["draw", "s.jsonl", "-o", "{out}"], "--out"),
    "import": (["import", "b.xmpuzzle", "-o", "{out}"], "--out"),
    "enumerate": (["enumerate", "p.yaml", "--out", "{out}", "--no-journal", "-q"], "--out"),
    "explain picture": (["explain", "p.yaml", "--picture", "{out}"], "--picture"),
    "explain page": (["explain", "s.jsonl", "--page", "{out}"], "--page"),
    "compare": (["compare", "p.yaml", "--backends", "dlx", "--out", "{out}"], "--out"),
}
"""Each command that writes a named file, with the option that names it."""

INPUTS = {"sample": "p.yaml", "export dimacs": "p.yaml", "export xmpuzzle": "p.yaml",
          "export with solutions": "s.jsonl", "view": "p.yaml", "view solutions": "s.jsonl", "draw": "s.jsonl",
          "import": "b.xmpuzzle",
          "enumerate": "p.yaml", "explain picture": "p.yaml", "explain page": "s.jsonl", "compare": "p.yaml"}
"""An input of each command (the one it would destroy)."""


def _suffixed(command: str, name: str) -> str:
    """A link named as the command wants its output named (draw: .png, explain: .svg, .html)."""
    suffix = {"draw": ".png", "explain picture": ".svg", "explain page": ".html"}.get(command, "")
    return name if name.endswith(suffix) else name + suffix


def _run(command: str, out: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    args, _ = WRITERS[command]
    return run_cli(*[a.replace("{out}", out) for a in args], cwd=cwd)


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("how", ["itself", "symbolic link", "hard link"])
def test_no_command_writes_over_its_own_input(command, how, folder):
    """Issue 35 item 1: `sample p.yaml -o p.yaml` emptied the puzzle, `export`, `view`, `import` replaced it."""
    target = INPUTS[command]
    name = target
    if how == "symbolic link":
        name = _suffixed(command, "link")
        (folder / name).symlink_to(target)
    elif how == "hard link":
        name = _suffixed(command, "hard")
        os.link(folder / target, folder / name)
    before = _contents(folder)
    proc = _run(command, name, folder)
    if _suffixed(command, name) == name:
        one_line(proc, 2, f"{name}: is also the ", f"choose another {WRITERS[command][1]}")
    else:  # the input itself, named as this command's output never is: refused for its name first
        one_line(proc, 2, f"{WRITERS[command][1]}: ", "must end in .")
    assert _contents(folder) == before


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("target", ["days.journal", "days.journal-wal", "days.journal-shm"])
def test_no_command_writes_over_a_journal(command, target, folder):
    """`view soma -o days.journal` replaced an unfinished journal (days of work); its side files hold its last
    commits."""
    if target != "days.journal":
        (folder / target).write_bytes(b"\x37\x7f\x06\x82" + bytes(60) if target.endswith("wal") else bytes(64))
    name = _suffixed(command, "j")
    (folder / name).symlink_to(target)
    before = _contents(folder)
    for shown in dict.fromkeys((_suffixed(command, target), name)):
        if shown != target and shown != name:
            continue  # a picture or a page must be named so: the link is
        proc = _run(command, shown, folder)
        one_line(proc, 2, f"{shown}: is ", "SQLite database", f"choose another {WRITERS[command][1]}")
    assert _contents(folder) == before


def test_the_designed_puzzles_never_replace_the_puzzle_they_come_from(tmp_path):
    """design unique writes a file per suggestion into --puzzles: never over the puzzle it reads."""
    puzzle = cpsolve.load("slothouber-graatsma")
    files = tmp_path / "designs"
    done = cpsolve.design_unique(puzzle, "fix", limit=1, puzzles=files)
    name = Path(str(done.suggestions[0].file)).name
    source = files / name
    source.write_bytes((REPO / "cpsolve" / "models" / "slothouber-graatsma.yaml").read_bytes())
    before = source.read_bytes()
    with pytest.raises(CpsolveError, match="is also the puzzle file: choose another --puzzles"):
        cpsolve.design_unique(cpsolve.load(source), "fix", limit=1, puzzles=files)
    assert source.read_bytes() == before


def test_sort_writes_no_fixed_temporary_a_planted_link_could_redirect(tmp_path):
    """Issue 35 item 2: --sort wrote `.NAME.sorting` through any link planted there."""
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (tmp_path / ".x.jsonl.sorting").symlink_to(precious)
    proc = run_cli("enumerate", "soma", "--out", "x.jsonl", "--sort", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert precious.read_text() == "keep me\n"
    assert len((tmp_path / "x.jsonl").read_text().splitlines()) == 240
    assert sorted(p.name for p in tmp_path.iterdir()) == [".x.jsonl.sorting", "precious.txt", "x.jsonl"]


def test_a_long_sorted_name_is_sorted(tmp_path):
    """A 248-character --sort --out name failed only after a complete run: its temporary's name was longer."""
    name = "s" * 242 + ".jsonl"
    proc = run_cli("enumerate", "soma", "--out", name, "--sort", "--no-journal", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    ids = [line.split('"id":"')[1][:16] for line in (tmp_path / name).read_text().splitlines()]
    assert len(ids) == 240 and ids == sorted(ids)


def test_replacing_keeps_the_old_file_and_no_temporary_when_the_writer_fails(tmp_path):
    """The one way every output is written: an exception halfway leaves the old file whole, nothing beside it;
    a finished write keeps the file's mode and writes through a link into the file it leads to."""
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    path.chmod(0o640)
    with pytest.raises(RuntimeError), replacing(path) as fh:
        fh.write(b"half")
        raise RuntimeError
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    (tmp_path / "link").symlink_to("out.txt")
    with replacing(tmp_path / "link") as fh:
        fh.write(b"new\n")
    assert path.read_text() == "new\n" and (tmp_path / "link").is_symlink()
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "out.txt"]


SAMPLE_FAILS = """import sys, cpsolve.api, cpsolve.cli
from cpsolve.errors import CpsolveError
def failing(*args, **kwargs):
    {raise_}
cpsolve.api.sample = failing
sys.argv = ["cpsolve", "sample", "soma", "-n", "2", "-o", "prev.jsonl"]
cpsolve.cli.main()
"""


@pytest.mark.parametrize(("raise_", "code"), [
    ("raise CpsolveError('UniGen did not finish within 0.5 s', field='--timeout', exit_code=3)", 3),
    ("raise KeyboardInterrupt", 130),
])
def test_a_sample_that_ends_early_leaves_the_file_as_it_was(raise_, code, tmp_path):
    """Issue 35 item 3: `sample -o prev.jsonl --timeout 0.5` (or interrupted) left 0 lines. The sampling is
    made to end early from inside, so that the test does not race a clock."""
    (tmp_path / "prev.jsonl").write_text("keep\n")
    proc = subprocess.run([sys.executable, "-c", SAMPLE_FAILS.replace("{raise_}", raise_)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "prev.jsonl").read_text() == "keep\n"


def test_a_sample_of_a_puzzle_without_assemblies_leaves_the_file_as_it_was(tmp_path):
    (tmp_path / "m.yaml").write_text(MUTILATED)
    (tmp_path / "prev.jsonl").write_text("keep\n")
    one_line(run_cli("sample", "m.yaml", "-o", "prev.jsonl", "-q", cwd=tmp_path), 1, "has no assembly to sample")
    assert (tmp_path / "prev.jsonl").read_text() == "keep\n"


@pytest.mark.slow
def test_an_unreachable_cluster_leaves_the_solutions_file_as_it_was(tmp_path):
    """`enumerate --out keep.jsonl --cluster tcp://127.0.0.1:1` emptied the file, then failed to reach it."""
    pytest.importorskip("distributed")
    (tmp_path / "keep.jsonl").write_text("keep\n")
    proc = run_cli("enumerate", "soma", "--out", "keep.jsonl", "--cluster", "tcp://127.0.0.1:1", "-q", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert (tmp_path / "keep.jsonl").read_text() == "keep\n"


class _DeadBackend:
    """A backend whose every search ends its worker (SIGKILL, as the out-of-memory killer would) before it
    finds anything."""

    def __new__(cls):  # a DlxBackend whose search kills its process
        from cpsolve.search.backends.dlx import DlxBackend

        class Dead(DlxBackend):
            def _search(self, problem, forced, run):  # type: ignore[no-untyped-def]
                os.kill(os.getpid(), signal.SIGKILL)

        return Dead()


def test_a_worker_failure_before_any_solution_leaves_the_solutions_file_as_it_was(tmp_path, monkeypatch):
    from cpsolve.api import running

    prepare = running._prepare
    monkeypatch.setattr(running, "_prepare", lambda *a: (prepare(*a)[0], _DeadBackend()))
    out = tmp_path / "keep.jsonl"
    out.write_text("keep\n")
    with pytest.raises(CpsolveError, match="its worker died"):
        cpsolve.run(cpsolve.load("soma"), workers=2, out=out, journal=False)
    assert out.read_text() == "keep\n"


def test_a_complete_run_without_solutions_empties_the_file(tmp_path):
    (tmp_path / "m.yaml").write_text(MUTILATED)
    (tmp_path / "old.jsonl").write_text("from an earlier run\n")
    proc = run_cli("enumerate", "m.yaml", "--out", "old.jsonl", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "old.jsonl").read_text() == ""


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as fh:
            into.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


@pytest.mark.parametrize("command", ["enumerate", "view", "sample", "export dimacs"])
def test_an_output_to_a_pipe_is_written_in_place(command, folder):
    """Issue 35 item 7: `--out fifo` failed with "Illegal seek"."""
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    if command == "sample":  # UniGen takes a minute on Soma, a second on this one
        proc = run_cli("sample", "slothouber-graatsma", "-n", "2", "-o", "fifo", cwd=folder)
    else:
        proc = _run(command, "fifo", folder)
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    data = got[0].decode()
    if command == "enumerate":
        assert len(data.splitlines()) == 240
    elif command == "sample":
        assert len(data.splitlines()) == 2
    elif command == "view":
        assert data.startswith("<!DOCTYPE html>") and data.rstrip().endswith("</html>")
    else:
        assert data.startswith("c ") and "p cnf " in data
    assert fifo.exists() and not fifo.is_file()


@pytest.mark.parametrize("args", [
    ["view", "soma", "-o", "/dev/full"],
    ["draw", "soma", "-o", "/dev/full.png"],
    ["export", "soma", "-o", "/dev/full"],
    ["sample", "slothouber-graatsma", "-n", "1", "-o", "/dev/full"],
    ["explain", "soma", "--picture", "/dev/full.svg"],
    ["enumerate", "soma", "--out", "/dev/full", "-q"],
    ["compare", "soma", "--backends", "dlx", "--out", "/dev/full"],
])
def test_a_write_that_fails_is_exit_status_1_in_every_command(args, tmp_path):
    """Write failures exited 2 in view, draw, export, import, sample, compare and explain, 1 in enumerate and
    design: one status now, 1 (a failure while running; 2 is a destination refused before any work)."""
    if args[-1].endswith((".png", ".svg")):  # the picture commands want a suffix: a link to /dev/full
        link = tmp_path / f"full{args[-1][-4:]}"
        link.symlink_to("/dev/full")
        args = [*args[:-1], str(link)]
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "No space left on device" in proc.stderr.strip().splitlines()[-1]
    assert "Traceback" not in proc.stderr


def test_explain_writes_a_page_only_to_an_html_file(tmp_path):
    """`explain --page x.svg` wrote HTML into a file named as a picture."""
    one_line(run_cli("explain", "soma", "--page", "x.svg", cwd=tmp_path), 2, "--page", ".html")
    assert not (tmp_path / "x.svg").exists()
