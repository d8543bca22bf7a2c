"""The README's promises that can drift: the quick start commands and what CI runs."""

from pathlib import Path

import pytest
from conftest import run_cli

REPO = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in quick_start.strip().splitlines()]
    assert commands[0] == "pip install . && cpsolve enumerate soma"
    assert len(commands) == 2
    assert commands[1] in ci.splitlines()


def readme_yaml_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return [block.split("```", 1)[0] for block in text.split("```yaml\n")[1:]]


def test_readme_has_yaml_examples():
    assert len(readme_yaml_blocks()) >= 2


@pytest.mark.parametrize("index", range(len(readme_yaml_blocks())))
def test_every_readme_yaml_block_loads_and_solves(index, tmp_path):
    """What the README shows must work as written: each puzzle file in it loads and is solved."""
    path = tmp_path / f"readme-{index}.yaml"
    path.write_text(readme_yaml_blocks()[index], encoding="utf-8")
    proc = run_cli("solve", str(path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "found by" in proc.stdout
