"""The workbench as a designer uses it: the real page of `cpsolve app` in headless chromium (Debian's
chromium and chromedriver, through Selenium), clicked as a person clicks it.

Draw the Soma cube from scratch (container layer by layer, the pieces in the layer grid and in 3-D) and
count it; open PelikanBurr.xmpuzzle and play its disassembly; stop a Bedlam run half-way and resume it;
save a file and open it again, byte for byte.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from app_support import Server, browser, wait_for, workbench
from conftest import EXAMPLES

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
    """Click a square of the layer grid (the grid is redrawn after each click: found anew each time)."""
    click(driver, f'#grid .cell[data-x="{x}"][data-y="{y}"]')


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
        click(driver, "#new")
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


def test_save_and_reload_a_file_byte_exact(tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    with workbench(tmp_path) as server, browser() as driver:
        open_page(driver, server)
        click(driver, "#new")
        for x in range(3):
            cell(driver, x, 0)
        click(driver, "#add-piece")
        cell(driver, 0, 0)
        cell(driver, 1, 0)
        click(driver, "#add-piece")
        cell(driver, 0, 0)
        text = yaml_settled(driver)

        def save_as(name: str) -> None:
            click(driver, "#save-as")
            field = driver.find_element("css selector", "#save-name")
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(name)
            click(driver, "#save-ok")
            wait_for(driver, f"return document.body.dataset.saved === '{name}'")

        save_as("drawn.yaml")
        saved = (tmp_path / "drawn.yaml").read_bytes()
        assert saved == text.encode("utf-8")
        assert cpsolve.count(cpsolve.load(tmp_path / "drawn.yaml")).total == 2
        # reload it: the same text, the same drawing; save again: the same bytes
        before = driver.execute_script("return cpsolveWorkbench.doc()")
        click(driver, "#new")
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
