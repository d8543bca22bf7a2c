"""The documentation site: `mkdocs build --strict` passes (no broken link or anchor, no docstring it
cannot read), the API reference names every public name once, through `cpsolve.api`, the docstrings'
examples are fenced as code, and the built site renders in headless Chromium (one screenshot, its
pixels checked).

mkdocs is in the `docs` extra: without it these tests skip, except under CI (CPSOLVE_CI), which
installs it."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "docs"))
from griffe_doctests import fence_doctests  # noqa: E402 - docs/ is not a package

import cpsolve.api  # noqa: E402


def need(module: str, why: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail(f"{module} is not installed, and CI installs it ({why})")
        pytest.skip(f"{module} is not installed ({why})")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for these tests as CI builds it."""
    need("mkdocs", "pip install -e '.[docs]'")
    need("mkdocstrings", "pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.mark.slow
def test_the_site_builds_with_every_page_and_the_reference(site: Path):
    for page in ("index.html", "cli/index.html", "puzzle-files/index.html", "reference/index.html",
                 "api/index.html", "burrtools/index.html", "performance/index.html"):
        assert (site / page).is_file(), page
    reference = (site / "reference" / "index.html").read_text(encoding="utf-8")
    for name in cpsolve.api.__all__:  # each public name has its entry, with its docstring's first words
        assert f'id="cpsolve.api.{name}"' in reference, name
    # the docstrings' examples are highlighted code, not quotes (Markdown reads `>>>` as three)
    assert reference.count('<span class="gp">&gt;&gt;&gt; </span>') >= 40
    assert "<blockquote" not in reference


def test_the_reference_page_names_every_public_name_once():
    """Through `cpsolve.api`, whose names stay the public ones whatever module defines them."""
    text = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    named = re.findall(r"^::: cpsolve\.api\.(\w+)$", text, re.MULTILINE)
    assert sorted(named) == sorted(cpsolve.api.__all__)
    assert len(named) == len(set(named))


def test_doctest_examples_are_fenced_and_nothing_else_changes():
    text = "Intro [a link](x).\n\n>>> a = [1]\n>>> a\n[1]\n\nAfter.\n    >>> b\n    'b'\n"
    assert fence_doctests(text) == ("Intro [a link](x).\n\n```pycon\n>>> a = [1]\n>>> a\n[1]\n```\n\nAfter.\n"
                                    "    ```pycon\n    >>> b\n    'b'\n    ```\n")
    assert fence_doctests("No example here.") == "No example here."
    assert fence_doctests("workers\n> 1 splits it") == "workers\n\\> 1 splits it"  # prose, not a quote


@pytest.mark.browser
def test_the_home_page_renders_in_chromium(site: Path, tmp_path: Path):
    """One screenshot of the home page at a desktop width: the header bar in the theme's colour, the
    navigation beside the text, the picture drawn (its pieces' colours), and no console message."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("chromium not installed, and CPSOLVE_CI requires it")
        pytest.skip("chromium not installed (apt-get install chromium)")
    from PIL import Image

    shot = tmp_path / "home.png"
    profile = tmp_path / f"profile-{time.monotonic_ns()}"
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}", "--enable-logging=stderr",
         "--v=0", "--window-size=1400,1000", "--hide-scrollbars", "--virtual-time-budget=3000",
         f"--screenshot={shot}", (site / "index.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [line for line in proc.stderr.splitlines() if ":CONSOLE" in line] == []
    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, 1000)
    header = image.getpixel((700, 20))
    assert isinstance(header, tuple)
    assert abs(header[0] - 0x79) < 12 and abs(header[1] - 0x55) < 12 and abs(header[2] - 0x48) < 12, header
    colours = {image.getpixel((x, y)) for x in range(0, 1400, 2) for y in range(100, 1000, 2)}
    assert len(colours) > 200  # text, the navigation and a picture of shaded cubes, not a blank page
    # Bedlam's exploded picture: the first piece colours of the palette (red, green, yellow, blue) appear
    for rgb in ((230, 25, 75), (60, 180, 75), (255, 225, 25), (67, 99, 216)):
        assert any(max(abs(a - b) for a, b in zip(c, rgb, strict=True)) <= 12 for c in colours), rgb
