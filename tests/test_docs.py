"""The promises of the README and the documentation pages that can drift: the quick start commands and
what CI runs, the tiers of the test suite, the puzzle files the pages show, and what a user page may
not hold."""

import re
import tomllib
from pathlib import Path

import pytest
from conftest import run_cli

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / "docs").rglob("*.md"))
TIERS = 'python -m pytest -m "slow or peer or browser"'
"""The command that runs the marked tiers: the README shows it beside the fast one, and CI runs it."""


def quick_start() -> list[str]:
    readme = (REPO / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


def ci_lines() -> list[str]:
    return (REPO / ".ci" / "run").read_text().splitlines()


def test_ci_runs_the_readme_test_command():
    commands = quick_start()
    assert commands[0] == "pip install . && cpsolve enumerate soma"
    assert len(commands) == 2
    assert commands[1] in ci_lines()


def test_ci_runs_the_fast_tier_first_then_the_marked_tiers_the_readme_shows():
    """`python -m pytest` is the fast tier (pyproject's addopts leave the marked tests out); the README
    shows the command of the other tiers next to it, and CI runs both, the README's own lines first."""
    readme = (REPO / "README.md").read_text()
    after_quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert f"```sh\n{TIERS}\n```" in after_quick_start
    lines = ci_lines()
    fast = lines.index(quick_start()[1])
    tiers = next(k for k, line in enumerate(lines) if TIERS in line)
    assert fast < tiers
    pytest_config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert '-m "not slow and not peer and not browser"' in pytest_config["addopts"]
    declared = {m.split(":", 1)[0] for m in pytest_config["markers"]}
    assert {"slow", "peer", "browser"} <= declared


def yaml_blocks() -> list[tuple[str, str]]:
    """Every ```yaml block of the README and the pages, with where it is."""
    found = []
    for path in [REPO / "README.md", *PAGES]:
        text = path.read_text()
        found += [(f"{path.relative_to(REPO)}#{k}", block.split("```", 1)[0])
                  for k, block in enumerate(text.split("```yaml\n")[1:])]
    return found


def test_the_pages_have_yaml_examples():
    assert len(yaml_blocks()) >= 3


@pytest.mark.parametrize("where, block", yaml_blocks(), ids=[w for w, _ in yaml_blocks()])
def test_every_yaml_block_loads_and_solves(where, block, tmp_path):
    """What the pages show must work as written: each puzzle file in them loads and is solved."""
    path = tmp_path / "page.yaml"
    path.write_text(block, encoding="utf-8")
    proc = run_cli("solve", str(path), cwd=tmp_path)
    assert proc.returncode == 0, (where, proc.stderr)
    assert "found by" in proc.stdout


@pytest.mark.parametrize("path", [REPO / "README.md", *PAGES], ids=lambda p: str(p.relative_to(REPO)))
def test_user_pages_name_no_issue_and_no_path_outside_the_repository(path):
    """A reader has neither the project's issue tracker nor the folders beside its clone."""
    text = path.read_text()
    assert not re.search(r"\bissues? \d+", text, re.IGNORECASE), path
    assert "../shared" not in text and "../peers" not in text, path


def test_the_readme_stays_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= 260
