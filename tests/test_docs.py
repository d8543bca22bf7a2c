"""The README's promises that can drift: the quick start commands and what CI runs."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in quick_start.strip().splitlines()]
    assert commands[0] == "pip install . && cpsolve enumerate soma"
    assert len(commands) == 2
    assert commands[1] in ci.splitlines()
