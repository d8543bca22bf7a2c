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
from html import unescape
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from cpsolve.output.page import ALPHABET, page_data, page_html
from cpsolve.output.scene import SHADE, hex_rgb, outer_faces, parts_of, projection, shade
from cpsolve.output.steps import Step
from cpsolve.puzzle.catalog import load
from cpsolve.puzzle.geometry import FACE_STEPS, ROTATIONS

SOMA = {
    "V": [(0, 0, 0), (1, 0, 0), (0, 1, 0)], "L": [(2, 0, 0), (2, 1, 0), (2, 2, 0), (1, 2, 0)],
    "T": [(0, 2, 0), (0, 2, 1), (0, 2, 2), (1, 1, 0)], "Z": [(0, 0, 1), (1, 0, 1), (1, 1, 1), (2, 1, 1)],
    "A": [(2, 0, 1), (2, 0, 2), (1, 0, 2), (2, 2, 1)], "B": [(0, 1, 1), (0, 1, 2), (0, 0, 2), (1, 2, 1)],
    "P": [(1, 1, 2), (2, 1, 2), (1, 2, 2), (2, 2, 2)],
}
"""Not a real Soma solution (the pieces are not Soma's shapes), but a full 3x3x3 with 7 pieces."""


pytestmark = pytest.mark.browser
"""Every test here drives headless Chromium: the browser tier (`python -m pytest -m browser`)."""


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
        status = {k: unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1))}
        status["text"] = m.group(2)
        status["hidden"] = "yes" if re.search(r"\bhidden\b", m.group(1)) else "no"
    step = re.search(r'<p id="step"[^>]*>([^<]*)</p>', proc.stdout)
    status["step"] = unescape(step.group(1)) if step else ""
    legend = re.search(r'<ul id="legend">(.*?)</ul>', proc.stdout, re.S)
    status["legend"] = json.dumps([unescape(re.sub(r"<[^>]+>", "", li)) for li in
                                   re.findall(r"<li[^>]*>(.*?)</li>", legend.group(1), re.S)] if legend else [])
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
    # each assembly is every piece once, with a direction and how far it slides: out of the box of
    # the pieces still in, with a cell to spare, and no farther
    from cpsolve.output.scene import DIRECTIONS

    for record, code in zip(records, data["assembly"], strict=True):
        assert sorted(code[0::3]) == sorted(ALPHABET[:7]) and set(code[1::3]) <= set("012345")
        left = {k: list(v) for k, v in record["pieces"].items()}
        for i in range(0, len(code), 3):
            label = data["pieces"][ALPHABET.index(code[i])]["label"]
            d, far = DIRECTIONS[int(code[i + 1])], ALPHABET.index(code[i + 2])
            axis = next(a for a in range(3) if d[a])
            moving = [c[axis] + d[axis] * far for c in left.pop(label)]
            rest = [c[axis] for cs in left.values() for c in cs] or [min(moving) - 2 * d[axis]]
            gap = min(moving) - max(rest) - 1 if d[axis] > 0 else min(rest) - max(moving) - 1
            assert gap == 1 or (not left and far == len(set(moving)) + 1), (label, far, gap)


def decoded(data: dict) -> list[dict[str, list[tuple]]]:
    """Each solution of the page's data back as {label: sorted cells} (empty cells left out)."""
    w, n = data.get("width", 1), len(ALPHABET)
    out = []
    for text in data["solutions"]:
        back: dict[str, list] = {}
        for k, cell in enumerate(data["cells"]):
            sym = text[k * w:(k + 1) * w]
            if sym.strip():
                index = ALPHABET.index(sym) if w == 1 else ALPHABET.index(sym[0]) * n + ALPHABET.index(sym[1])
                back.setdefault(data["pieces"][index]["label"], []).append(tuple(cell))
        out.append({k: sorted(v) for k, v in back.items()})
    return out


def page_json(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S).group(1))


def test_pages_hold_each_solutions_own_pieces_and_cells(example_solutions: dict) -> None:
    """PelikanBurr leaves optional cells empty, each solution its own; SolidSixPieceBurrs uses 6 of
    25 sticks, each solution its own: the page refused both ("cell [4, 2, 1] is outside the first
    solution's cells", "its pieces differ from the first solution's")."""
    import cpsolve
    from cpsolve.output.scene import contacts

    for name, limit in (("PelikanBurr", 0), ("SolidSixPieceBurrs", 40)):
        sols = cpsolve.read_solutions(example_solutions[name], limit=limit)
        html = cpsolve.page(sols)
        data = page_json(html)
        assert [{k: sorted(v) for k, v in s.pieces.items()} for s in sols] == decoded(data)
        assert f"<h1>{name}</h1>" in html and f"<title>{name} — cpsolve</title>" in html  # the puzzle's name
    assert len({frozenset(s.pieces) for s in sols}) > 10 and len(data["pieces"]) > 20  # many stick sets
    assert "colors" in data  # more sticks than colours: each solution coloured on its own
    for s, palette in zip(sols, data["colors"], strict=True):
        colour = {p["label"]: data["palette"][ALPHABET.index(ch)] for p, ch in zip(data["pieces"], palette, strict=True)
                  if ch != " "}
        assert set(colour) == set(s.pieces)
        assert all(colour[a] != colour[b] for a, b in contacts(s.pieces))


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


def _screen(chromium: str, page: Path, tmp_path: Path, fragment: str) -> tuple[np.ndarray, dict[str, str]]:
    """A screenshot and the status of the same state (two browser runs)."""
    status, log = browse(chromium, page, tmp_path, fragment)
    assert console(log) == [] and "error" not in status, status
    return _screenshot(chromium, page, tmp_path, fragment), status


def _canvas(img: np.ndarray) -> np.ndarray:
    """The picture's white rectangle (the page around it is off-white), inside its rounded border."""
    white = (img == 255).all(axis=2)
    rows = np.nonzero(white.mean(axis=1) > 0.5)[0]
    cols = np.nonzero(white[rows].mean(axis=0) > 0.5)[0]
    return img[rows.min() + 4:rows.max() - 3, cols.min() + 4:cols.max() - 3]


@pytest.fixture(scope="module")
def burr_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A six-piece burr: no piece slides out alone, so the page plays the disassembly analysis's moves."""
    import cpsolve

    path = tmp_path_factory.mktemp("burr") / "burr.html"
    solution = cpsolve.solve(cpsolve.load("six-piece-burr"))
    assert solution is not None
    path.write_text(cpsolve.page(solution), encoding="utf-8")
    return path


SIDE = {(0, 0, 1): "above", (1, 0, 0): "the right", (-1, 0, 0): "the left", (0, 1, 0): "the back",
        (0, -1, 0): "the front", (0, 0, -1): "below"}


def test_the_step_is_said_in_words(chromium: str, soma_page: Path, burr_page: Path, tmp_path: Path) -> None:
    """Which piece moves, which way, step k of n: the assembly order's steps and a burr's moves."""
    from cpsolve.output.scene import DIRECTIONS

    data = page_json(soma_page.read_text(encoding="utf-8"))
    code = data["assembly"][0]
    triples = [(code[i], DIRECTIONS[int(code[i + 1])]) for i in range(0, len(code), 3)]
    assert len(triples) == 7
    for fragment, k in (("#assembly=3", 3), ("#assembly=2.5", 3), ("#assembly=0", 1), ("", 7)):
        status, _ = browse(chromium, soma_page, tmp_path, fragment)
        symbol, way = triples[7 - k]  # the disassembly played backwards
        label = data["pieces"][ALPHABET.index(symbol)]["label"]
        done = " (assembled)" if k == 7 and fragment == "" else ""
        assert status["step"] == f"Step {k} of 7: {label} comes in from {SIDE[way]}{done}", fragment
    steps = page_json(burr_page.read_text(encoding="utf-8"))["steps"]["0"]
    status, _ = browse(chromium, burr_page, tmp_path, "#assembly=0.5")
    first = steps[-1]  # the last piece out is the first in
    far = max(abs(v) for v in first["move"])
    way = tuple(v // far for v in first["move"])
    assert status["step"] == f"Step 1 of {len(steps)}: {' and '.join(first['pieces'])} comes in from {SIDE[way]}"


def test_nothing_is_clipped_while_a_burr_assembles(chromium: str, burr_page: Path, tmp_path: Path) -> None:
    """The view holds the whole animation: no piece leaves the picture at any step, exploded or not
    (pieces flying off a burr went out of the picture)."""
    steps = len(page_json(burr_page.read_text(encoding="utf-8"))["steps"]["0"])
    for fragment in ("#assembly=0.5", "#assembly=1.5", "#assembly=2.5", "#assembly=4", "#explode=1&assembly=1.5",
                     "#explode=1"):
        img = _screenshot(chromium, burr_page, tmp_path, fragment)
        inside = _canvas(img)
        ring = np.concatenate([inside[:6].reshape(-1, 3), inside[-6:].reshape(-1, 3),
                               inside[:, :6].reshape(-1, 3), inside[:, -6:].reshape(-1, 3)])
        assert (ring >= 250).all(), fragment  # the canvas's edge is background: nothing cut off
        assert (inside < 200).any(axis=2).mean() > 0.01, fragment  # and something is drawn
    assert steps == 5


def _boxes_apart(boxes: list, gap: float) -> list[tuple[str, str]]:
    """Pairs of the page's piece boxes (label, x0, y0, z0, x1, y1, z1) closer than `gap` on every axis."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if all(a[1 + k] < b[4 + k] + gap - 1e-6 and b[1 + k] < a[4 + k] + gap - 1e-6 for k in range(3)):
                out.append((a[0], b[0]))
    return out


def test_explode_really_separates_a_burr(chromium: str, burr_page: Path, soma_page: Path, tmp_path: Path) -> None:
    """Exploded, the pieces' boxes are a cell apart: interlocked burr sticks moved along their own
    directions no longer cross (before, they moved in proportion to where their centres were)."""
    for page, pieces in ((burr_page, 6), (soma_page, 7)):
        status, _ = browse(chromium, page, tmp_path)
        assert len(_boxes_apart(json.loads(status["boxes"]), 0)) > 3  # assembled, boxes cross
        status, _ = browse(chromium, page, tmp_path, "#explode=1")
        boxes = json.loads(status["boxes"])
        assert len(boxes) == pieces and _boxes_apart(boxes, 1) == []
    img = _screenshot(chromium, burr_page, tmp_path, "#explode=1")
    colors = {p.name: p.color for p in load("six-piece-burr").pieces}
    for part in parts_of({label: [(0, 0, 0)] for label in "ABCDEF"}, colors):
        assert _has(img, part.color), part.label


def test_the_address_follows_the_view_and_a_link_shows_it_again(
    chromium: str, soma_page: Path, tmp_path: Path
) -> None:
    """What you look at (step, explode, hidden pieces, the angle after a drag) is written into the
    address as it changes, so a copied link opens the same view."""
    asked = "#explode=0.5&assembly=4&hide=V&drag=120,30"
    first, status = _screen(chromium, soma_page, tmp_path, asked)
    address = status["address"]
    fields = dict(kv.split("=", 1) for kv in address.lstrip("#").split("&"))
    assert fields.keys() == {"explode", "assembly", "hide", "yaw", "pitch"}, address
    assert (fields["explode"], fields["assembly"], fields["hide"]) == ("0.5", "4", "V")
    assert abs(float(fields["yaw"]) - (-0.785 - 1.2)) < 1e-3 and abs(float(fields["pitch"]) - (0.6155 + 0.3)) < 1e-3
    again, status2 = _screen(chromium, soma_page, tmp_path, address)
    assert status2["address"] == address and status2["pieces"] == status["pieces"] == "3"
    assert (np.abs(first - again).max(axis=2) > 40).mean() < 0.002  # the same picture
    plain, _ = browse(chromium, soma_page, tmp_path, "")
    assert plain["address"] == ""  # nothing changed: nothing to say


def test_the_address_names_the_solution(chromium: str, tmp_path: Path) -> None:
    enum = run_cli("enumerate", "soma", "--limit", "12", "--out", str(tmp_path / "s.jsonl"), "-q", "--no-journal")
    assert enum.returncode == 0, enum.stderr
    import cpsolve

    page = tmp_path / "s.html"
    page.write_text(cpsolve.page(cpsolve.read_solutions(tmp_path / "s.jsonl")), encoding="utf-8")
    status, _ = browse(chromium, page, tmp_path, "#solution=7&zoom=1.5")
    assert status["address"] == "#solution=7&zoom=1.5"


def test_no_debug_line_and_a_chain_has_one_legend_entry(chromium: str, soma_page: Path, tmp_path: Path) -> None:
    status, _ = browse(chromium, soma_page, tmp_path)
    assert status["hidden"] == "yes" and status["text"] == ""  # "pieces drawn: 7, faces: 83" is gone
    assert "pieces drawn" not in soma_page.read_text(encoding="utf-8")
    assert json.loads(status["legend"]) == ["V", "L", "T", "Z", "A", "B", "P"]
    page = tmp_path / "snake.html"
    proc = run_cli("view", "snake-27", "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    status, _ = browse(chromium, page, tmp_path)
    assert json.loads(status["legend"]) == ["27 cubes on a string, numbered 0–26"]
    assert status["pieces"] == "27"


def test_pages_of_piece_ranges_and_optional_cells_in_the_browser(
    chromium: str, example_solutions: dict, tmp_path: Path
) -> None:
    """Each solution shows its own sticks and its own legend (SolidSixPieceBurrs), and PelikanBurr's
    one solution that comes apart plays its 107 moves."""
    import cpsolve

    sols = cpsolve.read_solutions(example_solutions["SolidSixPieceBurrs"], limit=40)
    page = tmp_path / "solid.html"
    page.write_text(cpsolve.page(sols), encoding="utf-8")
    for i in (1, 7, 39):
        status, log = browse(chromium, page, tmp_path, f"#solution={i}&explode=1")
        assert console(log) == [] and "error" not in status, status
        names = {k.split("#")[0]: sum(1 for j in sols[i].pieces if j.split("#")[0] == k.split("#")[0])
                 for k in sols[i].pieces}
        assert sorted(json.loads(status["legend"])) == sorted(n if c == 1 else f"{n} ×{c}" for n, c in names.items())
        boxes = json.loads(status["boxes"])
        assert sorted(b[0] for b in boxes) == sorted(sols[i].pieces) and _boxes_apart(boxes, 1) == []
    sols = cpsolve.read_solutions(example_solutions["PelikanBurr"])
    page = tmp_path / "pelikan.html"
    page.write_text(cpsolve.page(sols), encoding="utf-8")
    apart = [i for i, s in enumerate(sols) if cpsolve.disassemble(s).ok]
    assert len(apart) == 1
    status, log = browse(chromium, page, tmp_path, f"#solution={apart[0]}&assembly=60")
    assert console(log) == [] and status["step"].startswith("Step 60 of 107: "), status
    status, _ = browse(chromium, page, tmp_path, f"#solution={(apart[0] + 1) % 12}&assembly=3")
    assert "no way to slide this assembly apart is known" in status["step"]


def test_a_page_shows_constraint_colours(chromium: str, tmp_path: Path) -> None:
    """The checkerboard of a colour-constrained puzzle is on the page too: each cell's colour in the
    data (here every piece cell sits on the container cell of its own colour) and in the legend."""
    from test_pictures import CHECKER

    import cpsolve

    puzzle = cpsolve.puzzle_from_yaml(CHECKER)
    sols: list = []
    cpsolve.run(puzzle, sols.append)
    page = tmp_path / "checker.html"
    page.write_text(cpsolve.page(sols), encoding="utf-8")
    data = page_json(page.read_text(encoding="utf-8"))
    ground = dict(puzzle.container_colors)
    for marks in data["marks"]["solutions"]:
        assert [data["marks"]["names"][ALPHABET.index(ch)] for ch in marks] == [ground[tuple(c)] for c in data["cells"]]
    status, log = browse(chromium, page, tmp_path, "#solution=1")
    assert console(log) == [] and json.loads(status["legend"])[-2:] == ["colour: black", "colour: white"]
    img = _screenshot(chromium, page, tmp_path, "#solution=1")
    side = np.array(hex_rgb(shade("#ffffff", SHADE[0])))  # a white square on a side (a lit top is the page's white)
    assert _has(img, "#000000") and (np.abs(img.reshape(-1, 3) - side).max(axis=1) <= 6).sum() > 50


def test_a_page_holds_more_pieces_than_its_alphabet(chromium: str, tmp_path: Path) -> None:
    """100 unit cubes in a 5x5x4 box: past 88 labels a piece takes two characters (the page refused
    more than 88 pieces)."""
    box = [(x, y, z) for z in range(4) for y in range(5) for x in range(5)]
    first = {f"U#{i + 1}": [c] for i, c in enumerate(box)}
    second = {f"U#{i + 1}": [c] for i, c in enumerate(reversed(box))}
    data = page_data([{"pieces": first}, {"pieces": second}])
    assert data["width"] == 2 and [len(s) for s in data["solutions"]] == [200, 200]
    assert decoded(data) == [{k: [tuple(c) for c in v] for k, v in p.items()} for p in (first, second)]
    page = tmp_path / "units.html"
    page.write_text(page_html([{"pieces": first}, {"pieces": second}], title="units"), encoding="utf-8")
    status, log = browse(chromium, page, tmp_path, "#solution=1&hide=U%2317")
    assert console(log) == [] and "error" not in status and status["pieces"] == "99", status
    assert json.loads(status["legend"]) == ["U ×100"]


def test_hidden_pieces_with_commas_in_their_names_survive_the_address(chromium: str, tmp_path: Path) -> None:
    pieces = {"a,b": [(0, 0, 0)], "c": [(1, 0, 0)], "d & e": [(2, 0, 0)]}
    page = tmp_path / "commas.html"
    page.write_text(page_html([{"pieces": pieces}], title="commas"), encoding="utf-8")
    status, log = browse(chromium, page, tmp_path, "#hide=a%2Cb,d%20%26%20e")
    assert console(log) == [] and status["pieces"] == "1", status
    assert status["address"] == "#hide=a%2Cb,d%20%26%20e"


def test_a_quarter_turn_is_animated_about_its_pivot(chromium: str, tmp_path: Path) -> None:
    """The lock of turning-lock.yaml on the page of `view --rotations`: assembled, K stands along y; halfway
    through the turn its box is that of a domino turned 45 degrees about the line x=2, y=2 (the angle
    interpolated, not the cells: no box of whole cells); after the turn it lies along x; the step is said
    as a turn; nothing fails in the page."""
    import cpsolve

    lock = Path(__file__).resolve().parent.parent / "benchmarks" / "puzzles" / "turning-lock.yaml"
    page = tmp_path / "lock.html"
    page.write_text(cpsolve.page(cpsolve.solve(cpsolve.load(str(lock))), rotations=True), encoding="utf-8")
    boxes = {}
    for fragment in ("", "#assembly=1.5", "#assembly=1"):
        status, log = browse(chromium, page, tmp_path, fragment)
        assert not console(log) and "error" not in status, (status, console(log))
        boxes[fragment] = {b[0]: b[1:] for b in json.loads(status["boxes"])}
        if fragment == "#assembly=1.5":
            assert "K turns a quarter turn clockwise (seen from above)" in status["step"]
    assert boxes[""]["K"] == [2, 1, 1, 3, 3, 2]
    assert boxes["#assembly=1"]["K"] == [1, 2, 1, 3, 3, 2]
    half = 2 ** 0.5  # the domino's 2 x 1 rectangle turned 45 degrees: 1.5 * sqrt 2 across
    lo_x, lo_y, _, hi_x, hi_y, _ = boxes["#assembly=1.5"]["K"]
    assert abs(hi_x - lo_x - 1.5 * half) < 0.01 and abs(hi_y - lo_y - 1.5 * half) < 0.01
    assert abs(hi_x - (2 + half)) < 0.01  # the far corner (3, 3) at distance sqrt 2 from the pivot (2, 2)
    assert boxes["#assembly=1.5"]["F"] == boxes[""]["F"] == [0, 0, 0, 5, 5, 3]
