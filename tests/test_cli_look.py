"""How the command line reads: the limits after the commands in `--help`, defaults shown plainly, one
name for the output option (-o/--out, `--output` still accepted), "did you mean" for a mistyped model,
default output names for draw and view, and the same words for the three counts in every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer.main
from conftest import one_line, run_cli

from cpsolve.cli import app
from cpsolve.cli.common import LIMITS_PANEL, name_values

ROOT = name_values(typer.main.get_command(app))


def commands(group: Any = ROOT, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf command with its path (`design unique`)."""
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found += commands(command, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


def test_help_lists_the_limits_after_the_commands():
    proc = run_cli("--help")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    options, commands_at, limits_at = text.index("Options:"), text.index("Commands:"), text.index(LIMITS_PANEL)
    assert options < commands_at < limits_at
    assert "--max-" not in text[:commands_at]  # the nine limits are no longer in the way
    assert text[limits_at:].count("--max-") >= 9
    assert "default: 20000;" in text[limits_at:]  # the value, not "(20000)"


def test_no_default_is_shown_in_parentheses():
    """A default described in words ("all cores") reads as the value does: `default: all cores`."""
    for path, command in commands():
        ctx = command.make_context(path[-1], ["--help"], resilient_parsing=True)
        for param in command.params:
            record = param.get_help_record(ctx)
            if record is not None:
                assert "default: (" not in record[1], (path, record)
    proc = run_cli("enumerate", "--help")
    assert "default: all cores" in " ".join(proc.stdout.split())


def test_every_output_file_option_is_o_out():
    """Each command that writes a file it is told the name of calls that option -o/--out; `--output`, the
    former spelling of draw, view, import and export, is accepted and not shown."""
    outputs = {}
    for path, command in commands():
        for param in command.params:
            if param.name in ("out", "output"):
                outputs.setdefault(path, []).append(param)
    assert {" ".join(p) for p in outputs} >= {"enumerate", "compare", "import", "export", "draw", "view", "sample",
                                              "design snake", "design pieces"}
    for path, params in outputs.items():
        shown = [p for p in params if not p.hidden]
        assert len(shown) == 1 and set(shown[0].opts) == {"-o", "--out"}, (path, [p.opts for p in params])
        hidden = [p for p in params if p.hidden]
        assert all(p.opts == ["--output"] for p in hidden), path
    assert {" ".join(p) for p, ps in outputs.items() if any(x.hidden for x in ps)} == {
        "import", "export", "draw", "view"}


def test_the_former_output_spelling_still_writes(tmp_path: Path):
    proc = run_cli("draw", "soma", "--output", "old.svg", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert b"<svg" in (tmp_path / "old.svg").read_bytes()
    proc = run_cli("export", "soma", "--format", "xcc", "--output", "soma.xcc", cwd=tmp_path)
    assert proc.returncode == 0 and (tmp_path / "soma.xcc").stat().st_size > 0, proc.stderr
    one_line(run_cli("draw", "soma", "-o", "a.png", "--output", "b.png", cwd=tmp_path), 2, "--out: ")
    one_line(run_cli("export", "soma", cwd=tmp_path), 2, "--out: required: the file to write (-o FILE)")


def test_draw_and_view_name_their_file_after_the_puzzle(tmp_path: Path):
    """Like `enumerate`'s NAME.solutions.jsonl: NAME is the puzzle's name, made a safe file name."""
    proc = run_cli("draw", "soma", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "soma.png").read_bytes().startswith(b"\x89PNG")
    assert "wrote soma.png (" in proc.stderr
    proc = run_cli("view", "slothouber-graatsma", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "<html" in (tmp_path / "slothouber-graatsma.html").read_text(encoding="utf-8").lower()
    # a solutions file: the puzzle its lines name, not the file's own name
    assert run_cli("enumerate", "soma", "-q", "-o", "found.jsonl", cwd=tmp_path).returncode == 0
    (tmp_path / "soma.png").unlink()
    proc = run_cli("draw", "found.jsonl", "--index", "2", cwd=tmp_path)
    assert proc.returncode == 0 and (tmp_path / "soma.png").is_file(), proc.stderr
    # a name that would leave the folder is made safe
    evil = tmp_path / "evil.yaml"
    evil.write_text((Path(__file__).parent.parent / "cpsolve" / "models" / "slothouber-graatsma.yaml").read_text()
                    .replace("name: slothouber-graatsma", "name: ../../up"), encoding="utf-8")
    proc = run_cli("view", "evil.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "_.._up.html").is_file() and not (tmp_path.parent.parent / "up.html").exists()


def test_a_mistyped_model_gets_a_suggestion():
    one_line(run_cli("enumerate", "bedlm"), 2, "unknown model 'bedlm': did you mean bedlam?")
    one_line(run_cli("solve", "tetris-cub"), 2, "did you mean tetris-cube?")
    # nothing close: the list of built-in models
    one_line(run_cli("enumerate", "zzzzzz"), 2, "not a built-in model (ball-tetrahedron-20, bedlam, ")


def test_the_three_counts_read_the_same_in_every_command(tmp_path: Path):
    line = "soma: 11520 solutions in all, 480 up to rotation, 240 up to rotation and reflection"
    enumerated = run_cli("enumerate", "soma", "-q", "--no-save", "-w", "1")
    counted = run_cli("count", "soma", "-w", "1")
    assert enumerated.stdout.splitlines()[0] == line, enumerated.stdout
    assert counted.stdout.splitlines() == [line], counted.stdout
    proc = run_cli("enumerate", "slothouber-graatsma", "-q", "--journal", "run.journal", "-o", "s.jsonl",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    journal = run_cli("journal", "run.journal", cwd=tmp_path)
    assert "8 solutions in all, 1 up to rotation, 1 up to rotation and reflection" in journal.stdout, journal.stdout
    for _, command in commands():
        assert "assemblies in all" not in (command.help or "")
