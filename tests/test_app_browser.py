"""The workbench as a designer uses it: the real page of `cpsolve app` in headless chromium (Debian's
chromium and chromedriver, through Selenium), clicked as a person clicks it.

Draw the Soma cube from scratch (container layer by layer, the pieces in the layer grid and in 3-D) and
count it; open PelikanBurr.xmpuzzle and play its disassembly; stop a Bedlam run half-way and resume it;
save a file and open it again, byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from app_support import Server, browser, wait_for, workbench
from conftest import EXAMPLES, run_json

import cpsolve

pytestmark = pytest.mark.browser

SOMA = {
    "V": [(0, 0, 0), (1, 0, 0), (0, 1, 0)],
    "L": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)],
    "T": [(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)],
    "Z": [(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)],
    "A": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 1)],
    "B": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 1, 1)],
    "P": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
}
"""cpsolve/models/soma.yaml's pieces, drawn here by hand."""


def open_page(driver, server: Server) -> None:
    driver.get(server.url)
    wait_for(driver, "return document.body.dataset.ready")


def click(driver, css: str) -> None:
    """Click what `css` finds, finding it again if the page redrew it meanwhile (a list, a grid)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            driver.find_element("css selector", css).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError(f"{css}: redrawn under every click")


def cell(driver, x: int, y: int) -> None:
    """Click a cell of the layer view (a square, a triangle, a ball; on the block grids a cube of cells). The view
    is redrawn after each click: found anew each time."""
    click(driver, f'#grid .cell[data-x="{x}"][data-y="{y}"]')


def new_puzzle(driver, grid: str = "cubes", form: str = "empty") -> None:
    """New: choose the grid (and the container to start from) in the dialog, as a person does."""
    click(driver, "#new")
    wait_for(driver, "return document.getElementById('new-dialog').open")
    click(driver, f'input[name="new-grid"][value="{grid}"]')
    driver.execute_script("const s = document.getElementById('new-form-kind'); s.value = arguments[0]; "
                          "s.dispatchEvent(new Event('change'))", form)
    click(driver, "#new-ok")
    wait_for(driver, f"return !document.getElementById('new-dialog').open && cpsolveWorkbench.grid() === '{grid}'")


def layer(driver, z: int) -> None:
    for _ in range(10):
        now = int(driver.execute_script("return document.getElementById('layer-label').textContent.split(' ')[3]"))
        if now == z:
            return
        click(driver, "#layer-up" if now < z else "#layer-down")
    raise AssertionError(f"cannot reach layer {z}")


def click_3d(driver, point: list[float]) -> None:
    """A click on the 3-D editor at page coordinates `point` (Selenium aims from the element's centre)."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = driver.find_element("css selector", "#editor3d")
    rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, "
                                 "r.height]", canvas)
    dx, dy = point[0] - (rect[0] + rect[2] / 2), point[1] - (rect[1] + rect[3] / 2)
    ActionChains(driver).move_to_element_with_offset(canvas, int(round(dx)), int(round(dy))).click().perform()


def slide(driver, value: int | str) -> list:
    """Move the viewer's step slider as a person drags it; what is drawn once the next frame is painted."""
    driver.execute_script("const s = document.getElementById('assembly'); s.value = String(arguments[0] === 'max' ? "
                          "s.max : arguments[0]); s.dispatchEvent(new Event('input'))", value)
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done))")
    return json.loads(driver.execute_script("return document.getElementById('status').dataset.boxes"))


def yaml_settled(driver) -> str:
    """The YAML pane once the drawing's last change has been written to it, and found valid."""
    wait_for(driver, "return document.getElementById('yaml-status').dataset.state === 'ok' && "
                     "document.getElementById('yaml-status').textContent !== '…'")
    return str(driver.execute_script("return document.getElementById('yaml').value"))


def run_card(driver, n: int, timeout: float = 600) -> dict:
    """The n-th run's card (1-based, in order started) once it has ended: state, status, the counts shown."""
    script = (f"const c = document.querySelector('.run[data-id=\"{n}\"]'); "
              "return c && c.dataset.state !== 'running' && c.dataset.state !== 'starting' && "
              "{state: c.dataset.state, status: c.dataset.status, unique: (c.querySelector('.facts') || "
              "{dataset: {}}).dataset.unique, text: c.textContent}")
    return wait_for(driver, script, timeout=timeout, every=0.2)  # type: ignore[return-value]


def test_draw_the_soma_pieces_from_scratch_and_count_them(tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        new_puzzle(driver)
        for z in range(3):  # the container, layer by layer
            layer(driver, z)
            for y in range(3):
                for x in range(3):
                    cell(driver, x, y)
        shape = driver.execute_script("return cpsolveWorkbench.shape()")
        assert len(shape["cells"]) == 27
        for name, cells in SOMA.items():
            click(driver, "#add-piece")
            field = driver.find_element("css selector", "#p-name")
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(name + "\t")
            layer(driver, 0)
            for x, y, z in cells:
                if z == 0:
                    cell(driver, x, y)
            for x, y, z in cells:
                if z == 1 and name == "A":  # in 3-D: the top face of the cell below, as a designer would
                    point = driver.execute_script("return cpsolveWorkbench.facePoint(arguments[0], [0, 0, 1])",
                                                  [x, y, 0])
                    assert point, "the top face of the cell below is drawn"
                    click_3d(driver, point)
                elif z == 1:
                    layer(driver, 1)
                    cell(driver, x, y)
                    layer(driver, 0)
            drawn = driver.execute_script("return cpsolveWorkbench.shape()")
            assert sorted(tuple(c) for c in drawn["cells"]) == sorted(cells), name
        # undo takes the last cell away, redo puts it back
        click(driver, "#undo")
        assert len(driver.execute_script("return cpsolveWorkbench.shape()")["cells"]) == 3
        click(driver, "#redo")
        assert len(driver.execute_script("return cpsolveWorkbench.shape()")["cells"]) == 4
        text = yaml_settled(driver)
        drawn = cpsolve.puzzle_from_yaml(text)
        soma = cpsolve.load("soma")
        assert [(p.name, p.shape) for p in drawn.pieces] == [(p.name, p.shape) for p in soma.pieces]
        assert drawn.container == soma.container
        click(driver, '#tabs [data-tab="run"]')
        click(driver, '[data-action="count"]')
        card = run_card(driver, 1)
        assert card["status"] == "complete", card["text"]
        assert card["unique"] == "11520/480/240"
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.skipif(not (EXAMPLES / "PelikanBurr.xmpuzzle").exists(), reason=f"no BurrTools examples at {EXAMPLES}")
def test_open_pelikanburr_and_play_its_disassembly(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "PelikanBurr.xmpuzzle", tmp_path)  # into the served folder (a temporary one)
    stored = cpsolve.stored_solutions(tmp_path / "PelikanBurr.xmpuzzle")
    steps = len(cpsolve.view_data(stored[0], disassembly=True)["steps"]["0"])  # type: ignore[index]
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        click(driver, "#open")
        wait_for(driver, "return document.querySelector('#open-files button')")
        click(driver, "#open-files button")
        wait_for(driver, "return document.body.dataset.opened === 'PelikanBurr.xmpuzzle'")
        pieces = driver.execute_script("return cpsolveWorkbench.doc().pieces.length")
        assert pieces == len(cpsolve.load(tmp_path / "PelikanBurr.xmpuzzle").pieces)
        click(driver, '#tabs [data-tab="browse"]')
        wait_for(driver, "return +document.getElementById('b-count').dataset.total > 0")
        assert int(driver.execute_script("return document.getElementById('b-count').dataset.total")) == len(stored)
        wait_for(driver, "return document.getElementById('status').dataset.boxes")
        assert int(driver.execute_script("return document.getElementById('assembly').max")) == 100 * steps
        # play: from taken apart to assembled, one move after another
        apart = slide(driver, 0)
        click(driver, "#play")
        seen = set()
        end = time.monotonic() + 6
        while time.monotonic() < end:
            seen.add(driver.execute_script("return document.getElementById('step').textContent"))
            time.sleep(0.1)
        assert len(seen) >= 4, seen  # the words follow the moves
        assert any("moves" in s or "move" in s for s in seen)
        click(driver, "#play")  # pause
        together = slide(driver, "max")
        assert "(assembled)" in driver.execute_script("return document.getElementById('step').textContent")
        assert len(together) == pieces

        # taken apart, pieces have left; on the way, some stand away from their places in the assembly
        assert len(apart) < pieces
        placed = {b[0]: b[1:] for b in together}
        moved = 0
        for value in range(0, 100 * steps, 100 * max(1, steps // 12)):
            boxes = slide(driver, value)
            moved += sum(1 for b in boxes if b[1:] != placed[b[0]])
        assert moved > 0
        # hide a piece in the legend: one piece fewer drawn
        click(driver, "#legend li")
        wait_for(driver, f"return JSON.parse(document.getElementById('status').dataset.boxes).length === {pieces - 1}")
        # exports of what is shown: a picture downloaded, the contact sheet shown first
        click(driver, '[data-export="png"]')
        exported = wait_for(driver, "return document.body.dataset.exported")
        assert str(exported).startswith("PelikanBurr") and int(str(exported).rsplit(":", 1)[1]) > 1000
        click(driver, '[data-export="sheet"]')
        wait_for(driver, "const i = document.getElementById('sheet-img'); return document.getElementById("
                         "'sheet-dialog').open && i.complete && i.naturalWidth > 100")
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.slow
def test_stop_a_bedlam_run_half_way_and_resume_it(tmp_path: Path) -> None:
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        click(driver, "#open")
        wait_for(driver, "return document.querySelector('#open-models button')")
        driver.execute_script("[...document.querySelectorAll('#open-models button')]"
                              ".find((b) => b.textContent === 'bedlam').click()")
        wait_for(driver, "return document.body.dataset.opened === 'bedlam'")
        click(driver, '#tabs [data-tab="run"]')
        driver.find_element("css selector", "#o-workers").send_keys("2")
        click(driver, '[data-action="enumerate"]')
        # half-way: a third to two thirds of Bedlam's 19,186 classes found, then Stop
        found = "(+((document.querySelector('.run[data-id=\"1\"] .facts') || {dataset: {}}).dataset.unique || " \
                "'0/0/0').split('/')[2])"
        wait_for(driver, f"return {found} >= 6000", timeout=300, every=0.05)
        click(driver, '.run[data-id="1"] button.stop')
        card = run_card(driver, 1)
        assert card["status"] == "interrupted", card["text"]
        classes = int(card["unique"].split("/")[2])
        kept = (tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines()
        assert 6000 <= len(kept) < 19186 and classes < 19186
        assert (tmp_path / "bedlam.solutions.jsonl.journal").exists()
        click(driver, '.run[data-id="1"] button.resume')
        card = run_card(driver, 2)
        assert card["status"] == "complete", card["text"]
        assert card["unique"] == "460464/19186/19186"
        lines = (tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 19186 and len({json.loads(x)["id"] for x in lines}) == 19186
        assert lines[:len(kept)] == kept
        click(driver, '#tabs [data-tab="browse"]')
        wait_for(driver, "return document.getElementById('b-count').dataset.total === '19186'")


def saved_as(driver, name: str) -> None:
    """Save as: the name typed in the dialog; once the page says it is saved."""
    from selenium.webdriver.common.keys import Keys

    click(driver, "#save-as")
    field = driver.find_element("css selector", "#save-name")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(name)
    click(driver, "#save-ok")
    wait_for(driver, f"return document.body.dataset.saved === '{name}'")


def test_save_and_reload_a_file_byte_exact(tmp_path: Path) -> None:
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        new_puzzle(driver)
        for x in range(3):
            cell(driver, x, 0)
        click(driver, "#add-piece")
        cell(driver, 0, 0)
        cell(driver, 1, 0)
        click(driver, "#add-piece")
        cell(driver, 0, 0)
        text = yaml_settled(driver)

        def save_as(name: str) -> None:
            saved_as(driver, name)

        save_as("drawn.yaml")
        saved = (tmp_path / "drawn.yaml").read_bytes()
        assert saved == text.encode("utf-8")
        assert cpsolve.count(cpsolve.load(tmp_path / "drawn.yaml")).total == 2
        # reload it: the same text, the same drawing; save again: the same bytes
        before = driver.execute_script("return cpsolveWorkbench.doc()")
        new_puzzle(driver)
        click(driver, "#open")
        wait_for(driver, "return document.querySelector('#open-files button')")
        driver.execute_script("[...document.querySelectorAll('#open-files button')]"
                              ".find((b) => b.textContent === 'drawn.yaml').click()")
        wait_for(driver, "return document.body.dataset.opened === 'drawn.yaml'")
        assert driver.execute_script("return document.getElementById('yaml').value") == saved.decode("utf-8")
        after = driver.execute_script("return cpsolveWorkbench.doc()")
        assert [(p["name"], sorted(map(tuple, p["cells"]))) for p in after["pieces"]] == \
            [(p["name"], sorted(map(tuple, p["cells"]))) for p in before["pieces"]]
        driver.execute_script("document.body.dataset.saved = ''")
        click(driver, "#save")
        wait_for(driver, "return document.body.dataset.saved === 'drawn.yaml'")
        assert (tmp_path / "drawn.yaml").read_bytes() == saved
        save_as("again.yaml")
        assert (tmp_path / "again.yaml").read_bytes() == saved
        # a file with comments and its own layout is kept as written
        soma = Path(cpsolve.load("soma").origin or "").read_bytes()
        (tmp_path / "soma.yaml").write_bytes(soma)
        click(driver, "#open")
        wait_for(driver, "return document.querySelector('#open-files button')")
        driver.execute_script("[...document.querySelectorAll('#open-files button')]"
                              ".find((b) => b.textContent === 'soma.yaml').click()")
        wait_for(driver, "return document.body.dataset.opened === 'soma.yaml'")
        save_as("soma-copy.yaml")
        assert (tmp_path / "soma-copy.yaml").read_bytes() == soma
        # and as BurrTools: the same puzzle comes back (display colours aside: cpsolve's writer keeps none)
        save_as("soma-copy.xmpuzzle")
        back, soma_ = cpsolve.load(tmp_path / "soma-copy.xmpuzzle"), cpsolve.load("soma")
        assert [(p.name, p.shape, p.count) for p in back.pieces] == [(p.name, p.shape, p.count) for p in soma_.pieces]
        assert back.container == soma_.container


# --- the other grids ------------------------------------------------------------------------------------------


def open_file(driver, name: str, problem: int | None = None) -> None:
    """Open a file of the folder from the Open dialog; then its problem from the Problem list."""
    driver.execute_script("document.body.dataset.opened = ''")
    click(driver, "#open")
    wait_for(driver, "return document.querySelector('#open-files button')")
    driver.execute_script("[...document.querySelectorAll('#open-files button')].find((b) => b.firstChild.textContent "
                          "=== arguments[0]).click()", name)
    wait_for(driver, f"return document.body.dataset.opened === {json.dumps(name)}")
    if problem:
        driver.execute_script("document.body.dataset.opened = ''; const s = document.getElementById('problem'); "
                              "s.value = String(arguments[0]); s.dispatchEvent(new Event('change'))", problem)
        wait_for(driver, f"return document.body.dataset.opened === {json.dumps(name)} && "
                         f"document.getElementById('problem').value === '{problem}'")


def size(driver, axis: str, n: int) -> None:
    """Type a size of the drawing (sx, sy, sz) as a person does: select, type, Tab."""
    from selenium.webdriver.common.keys import Keys

    field = driver.find_element("css selector", f"#{axis}")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(str(n) + "\t")


def draw_piece(driver, name: str, cells: list[tuple[int, int, int]]) -> None:
    """A new piece named `name`, its cells clicked in the layer view, layer by layer."""
    click(driver, "#add-piece")
    rename(driver, name)
    for z in sorted({c[2] for c in cells}):
        layer(driver, z)
        for x, y, zz in cells:
            if zz == z:
                cell(driver, x, y)
    layer(driver, 0)


def rename(driver, name: str) -> None:
    from selenium.webdriver.common.keys import Keys

    field = driver.find_element("css selector", "#p-name")
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(name + "\t")


def library_piece(driver, library: str, shapes: int, chip: str, name: str) -> None:
    """A piece added from a shape library of the puzzle's grid (which shows `shapes` shapes), renamed."""
    driver.execute_script("const s = document.getElementById('library'); s.value = 'lib:' + arguments[0]; "
                          "s.dispatchEvent(new Event('change'))", library)
    wait_for(driver, f"return document.getElementById('library-shapes').dataset.shown === 'lib:{library}:{shapes}'")
    click(driver, f'#library-shapes [data-name="{chip}"]')
    rename(driver, name)


def add_in_3d(driver, cell: list[int], across: list[int]) -> None:
    """Click in 3-D where cell `across` is added beyond `cell` (the face between them, a ball's side)."""
    point = driver.execute_script("return cpsolveWorkbench.acrossPoint(arguments[0], arguments[1])", cell, across)
    assert point, f"the side of {cell} towards {across} is in view"
    click_3d(driver, point)


def drawn_as_written(driver, text: str, written: str, counts: str) -> cpsolve.Puzzle:
    """The YAML pane's puzzle is the one `written` by hand, and the workbench counts it as cpsolve does."""
    drawn, wanted = cpsolve.puzzle_from_yaml(text), cpsolve.puzzle_from_yaml(written)
    assert drawn.grid == wanted.grid and drawn.container == wanted.container
    assert [(p.name, p.shape) for p in drawn.pieces] == [(p.name, p.shape) for p in wanted.pieces]
    card = count_it(driver, 1)
    found = cpsolve.count(wanted)
    assert card["unique"] == f"{found.total}/{found.unique_rotation}/{found.unique_symmetry}" == counts
    return drawn


def drawn_cells(driver) -> list[tuple[int, ...]]:
    return sorted(tuple(c) for c in driver.execute_script("return cpsolveWorkbench.shape()")["cells"])


def count_it(driver, n: int) -> dict:
    click(driver, '#tabs [data-tab="run"]')
    click(driver, '[data-action="count"]')
    card = run_card(driver, n)
    assert card["status"] == "complete", card["text"]
    return card


BT = Path(os.environ.get("CPSOLVE_BURRTOOLS_EXAMPLES", "/nonexistent"))
"""BurrTools' own examples folder (tests/test_grids.py reads it too); BallRoom, Bermuda and HexSticks are also
among the shared examples."""


def example(name: str) -> Path | None:
    for folder in (EXAMPLES, BT):
        if (folder / name).exists():
            return folder / name
    return None


@pytest.mark.slow
@pytest.mark.parametrize("name", ["BallRoom.xmpuzzle", "Bermuda.xmpuzzle", "HexSticks.xmpuzzle"])
def test_open_every_problem_of_the_other_grids_examples_and_count_it_as_the_command_line(
        tmp_path: Path, name: str) -> None:
    """BallRoom (spheres, three problems), Bermuda (prisms), HexSticks (rhombic): each problem opens in the
    editor on its grid, is counted in the workbench exactly as `cpsolve count FILE --problem N` counts it,
    and its stored assemblies are listed and shown in the viewer as the grid's solids; the Disassemble button
    works where the grid has a disassembler and says in words why not where it has none."""
    found = example(name)
    if found is None:
        pytest.skip(f"{name} is in neither {EXAMPLES} nor CPSOLVE_BURRTOOLS_EXAMPLES")
    shutil.copy(found, tmp_path)
    problems = cpsolve.source(str(tmp_path / name)).problems
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        for problem in range(len(problems)):
            open_file(driver, name, problem)
            puzzle = cpsolve.load(tmp_path / name, problem)
            doc = driver.execute_script("return cpsolveWorkbench.doc()")
            assert doc["grid"] == puzzle.grid != "cubes"
            assert [(p["name"], sorted(map(tuple, p["cells"]))) for p in doc["pieces"]] == \
                [(p.name, sorted(p.shape)) for p in puzzle.pieces]
            cli = run_json("count", str(tmp_path / name), "--problem", str(problem))
            card = count_it(driver, problem + 1)
            assert card["unique"] == f"{cli['total']}/{cli['unique_rotation']}/{cli['unique_symmetry']}", card
            click(driver, '#tabs [data-tab="browse"]')
            stored = cpsolve.stored_solutions(tmp_path / name, problem)
            wait_for(driver, f"return document.getElementById('b-count').dataset.total === '{len(stored)}'")
            wait_for(driver, "return document.getElementById('stage').dataset.grid === " + json.dumps(puzzle.grid))
            boxes = slide(driver, "max")
            assert len(boxes) == sum(p.count for p in puzzle.pieces if p.min_count is None)
            why = driver.execute_script("return [document.getElementById('b-disassemble').disabled, "
                                        "document.getElementById('b-why').textContent]")
            if puzzle.grid == "prisms":
                assert why[0] is False
            else:
                assert why[0] is True and f"no disassembler for the {puzzle.grid} grid" in why[1]
            click(driver, '#tabs [data-tab="edit"]')
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


PRISMS = """name: hexagon-prism-4
grid: prisms
container:
  layers:
  - [".###", ".###"]
  - [".###", ".###"]
pieces:
  T: {layers: [["###"]]}
  L: {layers: [["###"], ["#.."]]}
  D: {layers: [["##"]]}
  Z: {layers: [["#."], ["##"]]}
"""
"""A hexagon of six triangles, two layers high, from four pieces: the puzzle drawn by hand below."""


@pytest.mark.slow
def test_draw_a_prism_puzzle_from_scratch_and_count_it(tmp_path: Path) -> None:
    """Triangles clicked in the layer view (up and down in turn), a piece from the polyiamond library, a
    prism added in 3-D on the top face of another and one on an empty layer's floor: the drawn puzzle is
    the one written by hand, and counts as it does."""
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        new_puzzle(driver, "prisms")
        size(driver, "sx", 4)
        for z in range(2):  # the hexagon: a row of down, up, down triangles under one of up, down, up
            layer(driver, z)
            for y in range(2):
                for x in (1, 2, 3):
                    cell(driver, x, y)
        assert driver.execute_script("return document.querySelectorAll('#grid polygon.cell').length") == 4 * 3
        assert len(drawn_cells(driver)) == 12
        library_piece(driver, "triamonds", 1, "t3a", "T")
        # L: a row of three in the layer view, the fourth on top of the first, in 3-D
        draw_piece(driver, "L", [(0, 0, 0), (1, 0, 0), (2, 0, 0)])
        add_in_3d(driver, [0, 0, 0], [0, 0, 1])  # the top face of the first prism
        assert drawn_cells(driver) == [(0, 0, 0), (0, 0, 1), (1, 0, 0), (2, 0, 0)]
        draw_piece(driver, "D", [(0, 0, 0), (1, 0, 0)])
        # Z: its first prism on the floor of an empty layer (3-D), the others in the layer view
        click(driver, "#add-piece")
        rename(driver, "Z")
        point = driver.execute_script("return cpsolveWorkbench.floorPoint([0, 0, 0])")
        assert point
        click_3d(driver, point)
        layer(driver, 1)
        cell(driver, 0, 0)
        cell(driver, 1, 0)
        assert drawn_cells(driver) == [(0, 0, 0), (0, 0, 1), (1, 0, 1)]
        text = yaml_settled(driver)
        assert "grid: prisms" in text
        drawn_as_written(driver, text, PRISMS, "12/1/1")
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


BALLS = """name: ball-pyramid-14
grid: spheres
container: {pyramid: 3}
pieces:
  I: {square: ["###"]}
  V: {square: ["#.", "##"]}
  S: {square: ["#.", "##", ".#"]}
  L: {square: ["#..", "###"]}
"""
"""Four flat pieces of balls in the square pyramid of 14 (9, 4 and 1): the puzzle drawn by hand below."""


@pytest.mark.slow
def test_draw_a_sphere_puzzle_from_scratch_count_it_and_save_it_byte_exact(tmp_path: Path) -> None:
    """Balls clicked in the checkerboard of each layer (the pyramid of 14, layer by layer), a piece from the
    library of flat ball pieces, a ball added in 3-D on the side of another, a piece drawn in the second
    layer: the drawn puzzle is the one written by hand (the pyramid written `pyramid: 3`, flat pieces as
    `square:` drawings), counts as it does; saved, opened again and saved again, byte for byte, and as a
    BurrTools file the same puzzle on the sphere grid."""

    pyramid = cpsolve.puzzle_from_yaml(BALLS).container
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        new_puzzle(driver, "spheres")
        for z in range(3):
            layer(driver, z)
            for x, y, zz in pyramid:
                if zz == z:
                    cell(driver, x, y)
        assert drawn_cells(driver) == sorted(pyramid)
        # on layer 0 only the balls of the checkerboard are there to click (x + y even), 13 of the 25 squares
        layer(driver, 0)
        assert driver.execute_script("return document.querySelectorAll('#grid circle.cell').length") == 13
        draw_piece(driver, "I", [(0, 0, 0), (1, 1, 0), (2, 2, 0)])
        library_piece(driver, "square-balls-3", 2, "s3a", "V")
        # S: three balls in the layer view, the fourth on the side of the third, in 3-D
        draw_piece(driver, "S", [(1, 1, 0), (2, 0, 0), (3, 1, 0)])
        add_in_3d(driver, [3, 1, 0], [4, 0, 0])  # the side of the third ball that faces the fourth
        assert drawn_cells(driver) == [(1, 1, 0), (2, 0, 0), (3, 1, 0), (4, 0, 0)]
        draw_piece(driver, "L", [(0, 1, 1), (1, 0, 1), (2, 1, 1), (3, 2, 1)])  # in the second layer
        text = yaml_settled(driver)
        assert "pyramid: 3" in text and 'square: ["###"]' in text
        drawn = drawn_as_written(driver, text, BALLS, "8/2/1")

        click(driver, '#tabs [data-tab="edit"]')
        for name in ("balls.yaml", "balls.xmpuzzle"):
            saved_as(driver, name)
        saved = (tmp_path / "balls.yaml").read_bytes()
        assert saved == text.encode("utf-8")
        back = cpsolve.load(tmp_path / "balls.xmpuzzle")
        assert back.grid == "spheres" and back.container == drawn.container
        assert [(p.name, p.shape) for p in back.pieces] == [(p.name, p.shape) for p in drawn.pieces]
        before = driver.execute_script("return cpsolveWorkbench.doc()")
        new_puzzle(driver, "prisms")
        open_file(driver, "balls.yaml")
        assert driver.execute_script("return document.getElementById('yaml').value") == saved.decode("utf-8")
        after = driver.execute_script("return cpsolveWorkbench.doc()")
        assert after["grid"] == "spheres"
        assert sorted(map(tuple, after["container"]["cells"])) == sorted(map(tuple, before["container"]["cells"]))
        assert [(p["name"], sorted(map(tuple, p["cells"]))) for p in after["pieces"]] == \
            [(p.name, sorted(p.shape)) for p in drawn.pieces]
        driver.execute_script("document.body.dataset.saved = ''")
        click(driver, "#save")
        wait_for(driver, "return document.body.dataset.saved === 'balls.yaml'")
        assert (tmp_path / "balls.yaml").read_bytes() == saved
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.parametrize(("grid", "per_cube"), [("rhombic", 24), ("tetra-octa", 5)])
def test_block_grids_edit_whole_cubes_in_layers_and_single_cells_in_3d(tmp_path: Path, grid: str,
                                                                       per_cube: int) -> None:
    """Rhombic and tetra-octa cells are edited as BurrTools' converter makes them: a square of the layer view
    is a cube, filled with all its cells (24 rhombic tetrahedra, 5 tetra-octa cells) and emptied again;
    a click on a face in 3-D adds the one real cell beyond it, and the cube shows half filled."""
    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        new_puzzle(driver, grid)
        cell(driver, 0, 0)
        cell(driver, 1, 0)
        cells = drawn_cells(driver)
        assert len(cells) == 2 * per_cube
        assert all(cpsolve.lattice(grid).is_cell(c) for c in cells)
        cell(driver, 1, 0)
        assert len(drawn_cells(driver)) == per_cube
        # 3-D: the faces facing the eye; one of them leads to a cell of the next cube
        faces = driver.execute_script("return cpsolveWorkbench.faces()")
        outside = [f for f in faces if f["across"] and min(f["across"]) >= 0 and not any(f["across"] == list(c)
                                                                                    for c in cells)]
        assert outside
        point = None
        for face in outside:
            point = driver.execute_script("return cpsolveWorkbench.acrossPoint(arguments[0], arguments[1])",
                                          face["cell"], face["across"])
            if point:
                target = face["across"]
                break
        assert point
        click_3d(driver, point)
        now = drawn_cells(driver)
        assert len(now) == per_cube + 1 and tuple(target) in now
        block = 5 if grid == "rhombic" else 3
        held: dict[tuple[int, ...], int] = {}
        for c in now:
            held[tuple(v // block for v in c)] = held.get(tuple(v // block for v in c), 0) + 1
        assert sorted(held.values()) == [1, per_cube]  # the cube beyond has one cell of its own
        shown = driver.execute_script("return document.querySelectorAll('#grid .cell.partial').length")
        assert shown == sum(1 for k, n in held.items() if n < per_cube and k[2] == 0)  # the layer view: cube layer 0
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
