"""The 3-D page as a person sees it: opened in a real headless browser (Debian's chromium).

The page writes what it drew into its status element (pieces, faces, time to the first picture,
or the error that stopped it). Its address drives the page's own controls (the sliders' input
events, a click on a legend entry, a pointer drag on the picture), so each state a person would
reach is one browser run: --dump-dom reads the status, --screenshot the pixels.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from cpsolve.output.page import ALPHABET, page_data, page_html
from cpsolve.output.scene import SHADE, Step, hex_rgb, outer_faces, parts_of, projection, shade
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import FACE_STEPS, ROTATIONS

SOMA = {
    "V": [(0, 0, 0), (1, 0, 0), (0, 1, 0)], "L": [(2, 0, 0), (2, 1, 0), (2, 2, 0), (1, 2, 0)],
    "T": [(0, 2, 0), (0, 2, 1), (0, 2, 2), (1, 1, 0)], "Z": [(0, 0, 1), (1, 0, 1), (1, 1, 1), (2, 1, 1)],
    "A": [(2, 0, 1), (2, 0, 2), (1, 0, 2), (2, 2, 1)], "B": [(0, 1, 1), (0, 1, 2), (0, 0, 2), (1, 2, 1)],
    "P": [(1, 1, 2), (2, 1, 2), (1, 2, 2), (2, 2, 2)],
}
"""Not a real Soma solution (the pieces are not Soma's shapes), but a full 3x3x3 with 7 pieces."""


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("chromium not installed, and CPSOLVE_CI requires it")
        pytest.skip("chromium not installed (apt-get install chromium)")
    return path


def browse(chromium: str, page: Path, tmp_path: Path, fragment: str = "", shot: Path | None = None,
           budget: int | None = 1000) -> tuple[dict[str, str], str]:
    """Open the page once; the status element's data and chromium's log (console messages included)."""
    profile = tmp_path / f"profile-{time.monotonic_ns()}"
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--window-size=1000,760",
            "--hide-scrollbars"]
    if budget:
        args.append(f"--virtual-time-budget={budget}")
    args += [f"--screenshot={shot}"] if shot else ["--dump-dom"]
    proc = subprocess.run([*args, page.resolve().as_uri() + fragment], capture_output=True, text=True,
                          timeout=120, check=False)
    shutil.rmtree(profile, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    status: dict[str, str] = {}
    m = re.search(r"<output id=\"status\"([^>]*)>([^<]*)</output>", proc.stdout)
    if m:
        status = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1)))
        status["text"] = m.group(2)
    return status, proc.stderr


def console(log: str) -> list[str]:
    return [line for line in log.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def soma_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("page") / "soma.html"
    path.write_text(page_html([{"pieces": SOMA}], load("soma"), title="soma"), encoding="utf-8")
    return path


def test_page_is_one_file_with_nothing_from_outside(soma_page: Path) -> None:
    html = soma_page.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", html)
    assert "http://" not in html and "https://" not in html
    assert html.count("<script") == 2  # the data and the renderer, both inline


def test_solutions_are_stored_one_character_per_cell_and_read_back() -> None:
    records = [{"pieces": SOMA}, {"pieces": {k: [(2 - x, y, z) for x, y, z in v] for k, v in SOMA.items()}}]
    data = page_data(records, load("soma"))
    assert [len(s) for s in data["solutions"]] == [27, 27]
    for record, text in zip(records, data["solutions"], strict=True):
        back: dict[str, list] = {}
        for ch, cell in zip(text, data["cells"], strict=True):
            back.setdefault(data["pieces"][ALPHABET.index(ch)]["label"], []).append(tuple(cell))
        assert {k: sorted(v) for k, v in back.items()} == {k: sorted(v) for k, v in record["pieces"].items()}
    # each assembly is every piece once, with a direction
    for code in data["assembly"]:
        assert sorted(code[0::2]) == sorted(ALPHABET[:7]) and set(code[1::2]) <= set("012345")


def test_given_disassembly_steps_are_passed_to_the_page() -> None:
    steps = [Step(("P", "A"), (0, 0, 1)), Step(("P",), (0, 0, 4))]
    data = page_data([{"pieces": SOMA}], load("soma"), steps={0: steps})
    assert data["steps"] == {"0": [{"pieces": ["P", "A"], "move": [0, 0, 1]}, {"pieces": ["P"], "move": [0, 0, 4]}]}


def _faces_facing(pieces: dict, view: tuple[float, float, float]) -> int:
    """What the page should draw: each piece's outer faces that look towards the eye."""
    toward = projection(view).toward
    return sum(1 for cells in pieces.values() for _, n, _ in outer_faces(cells)
               if sum(FACE_STEPS[n][i] * toward[i] for i in range(3)) > 1e-9)


def _screenshot(chromium: str, page: Path, tmp_path: Path, fragment: str) -> np.ndarray:
    from PIL import Image

    shot = tmp_path / f"shot-{time.monotonic_ns()}.png"
    _, log = browse(chromium, page, tmp_path, fragment, shot=shot)
    assert console(log) == []
    return np.asarray(Image.open(shot).convert("RGB"), dtype=int)


def _has(img: np.ndarray, color: str, tol: int = 10) -> bool:
    flat = img.reshape(-1, 3)
    return any(bool((np.abs(flat - np.array(hex_rgb(shade(color, SHADE[n])))).max(axis=1) <= tol).any())
               for n in (0, 2, 4))


def test_page_draws_every_piece_without_console_messages(chromium: str, soma_page: Path, tmp_path: Path) -> None:
    status, log = browse(chromium, soma_page, tmp_path)
    assert console(log) == []
    assert "error" not in status, status
    assert status["pieces"] == "7"
    assert int(status["faces"]) == _faces_facing(SOMA, (1.0, -1.0, 1.0))  # the page's faces are scene.py's
    status, _ = browse(chromium, soma_page, tmp_path, "#hide=V,P")
    assert status["pieces"] == "5"


def test_screenshot_shows_each_colour_and_changes_with_view_and_assembly(
    chromium: str, soma_page: Path, tmp_path: Path
) -> None:
    whole = _screenshot(chromium, soma_page, tmp_path, "#explode=1")
    assert (whole.reshape(-1, 3).std(axis=0) > 20).all()  # not blank
    for part in parts_of(SOMA, {p.name: p.color for p in load("soma").pieces}):
        assert _has(whole, part.color), part.label
    turned = _screenshot(chromium, soma_page, tmp_path, "#explode=1&drag=150,40")  # a mouse drag turns it
    assert np.abs(whole - turned).max(axis=2).astype(bool).mean() > 0.02
    assembled = _screenshot(chromium, soma_page, tmp_path, "")
    partly = _screenshot(chromium, soma_page, tmp_path, "#assembly=3")
    changed = np.abs(assembled - partly).max(axis=2) > 30
    assert changed.mean() > 0.01
    status, _ = browse(chromium, soma_page, tmp_path, "#assembly=3")
    assert status["pieces"] == "3"  # three pieces placed, none on its way


def test_cli_pages_for_a_model_a_file_and_a_chain(chromium: str, tmp_path: Path) -> None:
    enum = run_cli("enumerate", "soma", "--limit", "12", "--out", str(tmp_path / "s.jsonl"), "-q", "--workers", "1")
    assert enum.returncode == 0, enum.stderr
    for source, pieces in [("soma", "7"), (str(tmp_path / "s.jsonl"), "7"), ("snake-27", "27")]:
        page = tmp_path / "p.html"
        proc = run_cli("view", source, "-o", str(page))
        assert proc.returncode == 0, proc.stderr
        status, log = browse(chromium, page, tmp_path, "#solution=11")
        assert console(log) == [] and status["pieces"] == pieces, status
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S).group(1))
    assert data["chain"] is True and len(data["pieces"]) == 27


@pytest.mark.slow
def test_a_page_with_19186_bedlam_solutions_is_small_and_opens_fast(chromium: str, tmp_path: Path) -> None:
    """The size of the real Bedlam file (19,186 solutions), made from rotations of one solution."""
    from cpsolve.output.solutions import labelled, rows_as_placements
    from cpsolve.search.backends import for_problem
    from cpsolve.search.enumeration import first_solution, prepare

    prepared = prepare(load("bedlam"))
    rows, _ = first_solution(prepared, for_problem("dlx", prepared.problem))
    assert rows is not None
    one = labelled(prepared.broken.problem, rows_as_placements(prepared.broken.problem, rows))

    def turned(t):  # a rotation of the 4x4x4 cube onto itself, moved back into the box
        moved = {k: [t.apply(c) for c in cells] for k, cells in one.items()}
        low = [min(c[i] for cs in moved.values() for c in cs) for i in range(3)]
        return {k: sorted((c[0] - low[0], c[1] - low[1], c[2] - low[2]) for c in cs) for k, cs in moved.items()}

    rotated = [turned(t) for t in ROTATIONS]
    records = [{"pieces": rotated[i % 24]} for i in range(19186)]
    page = tmp_path / "bedlam.html"
    page.write_text(page_html(records, load("bedlam"), title="bedlam"), encoding="utf-8")
    assert page.stat().st_size < 5_000_000
    start = time.perf_counter()
    status, log = browse(chromium, page, tmp_path, "#solution=19185", budget=None)
    wall = time.perf_counter() - start
    assert console(log) == [] and status["pieces"] == "13"
    assert int(status["ms"]) < 2000, status  # navigation to first picture, measured by the page
    print(f"bedlam page: {page.stat().st_size / 1e6:.2f} MB, first picture after {status['ms']} ms, "
          f"browser run {wall:.1f} s")


def test_an_interlocking_burr_gets_the_disassembly_analysis_moves() -> None:
    from cpsolve.output.solutions import labelled, rows_as_placements
    from cpsolve.search.backends import for_problem
    from cpsolve.search.enumeration import first_solution, prepare

    prepared = prepare(load("six-piece-burr"))
    rows, _ = first_solution(prepared, for_problem("dlx", prepared.problem))
    assert rows is not None
    burr = labelled(prepared.broken.problem, rows_as_placements(prepared.broken.problem, rows))
    data = page_data([{"pieces": burr}], load("six-piece-burr"))
    assert data["assembly"] == [""]  # no piece slides out alone
    steps = data["steps"]["0"]
    # replayed, the moves never make two pieces overlap, and in the end every piece is apart
    where = {k: [tuple(c) for c in v] for k, v in burr.items()}
    for step in steps:
        for lab in step["pieces"]:
            where[lab] = [tuple(c[i] + step["move"][i] for i in range(3)) for c in where[lab]]
        cells = [c for v in where.values() for c in v]
        assert len(cells) == len(set(cells))
    moved = {lab for step in steps for lab in step["pieces"]}
    assert len(moved) >= len(burr) - 1


def test_the_committed_example_page_opens(chromium: str, tmp_path: Path) -> None:
    """docs/example.html (made by docs/make_pictures.py) is what the README links to: it must work."""
    page = Path(__file__).resolve().parent.parent / "docs" / "example.html"
    status, log = browse(chromium, page, tmp_path, "#solution=239&explode=0.5")
    assert console(log) == [] and status["pieces"] == "7", status
