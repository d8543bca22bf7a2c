"""Regenerate the workbench's screenshots in docs/images/ (docs/workbench.md shows them).

    python docs/make_workbench_screenshots.py [--grids]

It starts `cpsolve app` in a temporary folder, drives the page in headless chromium (Debian's chromium
and chromedriver, as the tests do: tests/app_support.py) and takes a picture of each part: Edit (the
Soma cube's piece A, with the tetracube library), Run (a finished count, and a Bedlam enumeration
caught half-way, then stopped), Browse (Soma's solutions, one exploded) and a burr's disassembly
(PelikanBurr from ../shared/burrtools-examples, when it is there); then the other grids: the Kanoodle
pyramid of balls (its second layer over the first, the library of flat ball pieces), a prism puzzle
(hexagon-prism-8, a two-layer piece beside the hexiamonds) and the pyramid's solution in Browse, pulled
apart (`--grids`: those three only). Needs `pip install -e '.[test]'`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
IMAGES = DOCS / "images"
sys.path.insert(0, str(DOCS.parent / "tests"))

from app_support import browser, wait_for, workbench  # noqa: E402
from conftest import EXAMPLES  # noqa: E402

SIZE = (1440, 860)


def shot(driver, name: str) -> None:
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done))")
    path = IMAGES / name
    driver.save_screenshot(str(path))
    print(f"wrote {path.relative_to(DOCS.parent)}", flush=True)


def js(driver, script: str, *args: object) -> object:
    return driver.execute_script(script, *args)


def open_file(driver, label: str, models: bool = False) -> None:
    driver.find_element("css selector", "#open").click()
    box = "#open-models" if models else "#open-files"
    wait_for(driver, f"return document.querySelector('{box} button')")
    js(driver, f"[...document.querySelectorAll('{box} button')].find((b) => b.firstChild.textContent === arguments[0])"
               ".click()", label)
    wait_for(driver, "return document.body.dataset.opened === arguments[0]".replace("arguments[0]", repr(label)))


def tab(driver, name: str) -> None:
    driver.find_element("css selector", f'#tabs [data-tab="{name}"]').click()


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    if "--grids" in sys.argv[1:]:  # the other grids' pictures only (no Bedlam run)
        with tempfile.TemporaryDirectory() as tmp, workbench(Path(tmp)) as server, browser(size=SIZE) as driver:
            driver.get(server.url)
            wait_for(driver, "return document.body.dataset.ready")
            other_grids(driver)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        burr = EXAMPLES / "PelikanBurr.xmpuzzle"
        if burr.exists():
            shutil.copy(burr, folder)
        with workbench(folder) as server, browser(size=SIZE) as driver:
            driver.get(server.url)
            wait_for(driver, "return document.body.dataset.ready")
            # 1 Edit: Soma's piece A beside the tetracube library
            open_file(driver, "soma", models=True)
            js(driver, "document.querySelector('#shapes li[data-shape=\"4\"]').click()")
            js(driver, "const s = document.getElementById('library'); s.value = 'lib:tetracubes'; "
                       "s.dispatchEvent(new Event('change'))")
            wait_for(driver, "return document.querySelectorAll('#library-shapes .shape-chip').length === 8")
            js(driver, "document.getElementById('layer-up').click()")
            shot(driver, "workbench-edit.png")
            # 2 Run: a finished count of Soma, Bedlam enumerating (then stopped: its journal is kept)
            tab(driver, "run")
            driver.find_element("css selector", '[data-action="count"]').click()
            wait_for(driver, "return document.querySelector('.run[data-id=\"1\"]')?.dataset.status === 'complete'",
                     timeout=120)
            driver.find_element("css selector", "#o-disassemble").click()
            driver.find_element("css selector", '[data-action="enumerate"]').click()
            wait_for(driver, "return document.querySelector('.run[data-id=\"2\"]')?.dataset.status === 'complete'",
                     timeout=120)
            driver.find_element("css selector", "#o-disassemble").click()
            open_file(driver, "bedlam", models=True)
            tab(driver, "run")
            driver.find_element("css selector", '[data-action="enumerate"]').click()
            wait_for(driver, "return +(document.querySelector('.run[data-id=\"3\"] .facts')?.dataset.unique || "
                             "'0/0/0').split('/')[2] > 7000", timeout=300)
            shot(driver, "workbench-run.png")
            js(driver, "document.querySelector('.run[data-id=\"3\"] button.stop').click()")
            wait_for(driver, "return document.querySelector('.run[data-id=\"3\"]')?.dataset.state === 'done'",
                     timeout=120)
            # 3 Browse: Soma's 240 solutions, one exploded
            tab(driver, "browse")
            js(driver, "const s = document.getElementById('b-source'); s.value = 'soma.solutions.jsonl|'; "
                       "s.dispatchEvent(new Event('change'))")
            wait_for(driver, "return document.getElementById('b-count').dataset.total === '240' && "
                             "document.getElementById('b-title').textContent.endsWith('solution 0')")
            for _ in range(5):  # the list may be redrawn under the click (the stopped run's last reading)
                js(driver, "document.querySelector('#b-list li:nth-child(6)').click()")
                try:
                    wait_for(driver, "return document.getElementById('b-title').textContent.endsWith('solution 5')",
                             timeout=5)
                    break
                except AssertionError:
                    continue
            js(driver, "const e = document.getElementById('explode'); e.value = '70'; "
                       "e.dispatchEvent(new Event('input')); document.getElementById('view')"
                       ".dispatchEvent(new WheelEvent('wheel', {deltaY: -350, cancelable: true}))")
            shot(driver, "workbench-browse.png")
            # a burr taken apart: PelikanBurr's stored assembly, half-way through its disassembly
            if burr.exists():
                tab(driver, "edit")
                open_file(driver, "PelikanBurr.xmpuzzle")
                tab(driver, "browse")
                wait_for(driver, "return document.getElementById('status').dataset.boxes && "
                                 "document.getElementById('b-title').textContent.includes('Pelikan')")
                js(driver, "document.querySelector('#legend li[data-name=\"Cage\"]').click(); "
                           "const a = document.getElementById('assembly'); a.value = String(Math.round(a.max * "
                           "0.97)); a.dispatchEvent(new Event('input')); document.getElementById('view')"
                           ".dispatchEvent(new WheelEvent('wheel', {deltaY: -900, cancelable: true}))")
                shot(driver, "workbench-burr.png")
            else:
                print(f"{burr} not found: workbench-burr.png left as it was", flush=True)
            other_grids(driver)


def other_grids(driver) -> None:
    """The sphere grid and the prism grid in the editor, and a ball pyramid's solution in Browse."""
    tab(driver, "edit")
    open_file(driver, "kanoodle-pyramid", models=True)
    js(driver, "document.getElementById('layer-up').click()")
    js(driver, "const s = document.getElementById('library'); s.value = 'lib:square-balls-5'; "
               "s.dispatchEvent(new Event('change'))")
    wait_for(driver, "return document.getElementById('library-shapes').dataset.shown === 'lib:square-balls-5:12'")
    shot(driver, "workbench-spheres.png")
    open_file(driver, "hexagon-prism-8", models=True)
    js(driver, "document.querySelector('#shapes li[data-shape=\"2\"]').click()")
    js(driver, "const s = document.getElementById('library'); s.value = 'lib:hexiamonds'; "
               "s.dispatchEvent(new Event('change'))")
    wait_for(driver, "return document.getElementById('library-shapes').dataset.shown === 'lib:hexiamonds:12'")
    js(driver, "document.getElementById('layer-up').click()")
    shot(driver, "workbench-prisms.png")
    # the pyramid solved, in Browse, pulled apart
    open_file(driver, "kanoodle-pyramid", models=True)
    tab(driver, "run")
    driver.find_element("css selector", '[data-action="solve"]').click()
    wait_for(driver, "return [...document.querySelectorAll('.run')].some((c) => c.dataset.state === 'done' && "
                     "c.querySelector('strong').textContent.startsWith('solve kanoodle'))", timeout=120)
    wait_for(driver, "return [...document.querySelectorAll('#b-source option')].some((o) => o.value === 'solve')")
    tab(driver, "browse")
    js(driver, "const s = document.getElementById('b-source'); s.value = 'solve'; s.dispatchEvent(new Event('change'))")
    wait_for(driver, "return document.getElementById('stage').dataset.grid === 'spheres' && "
                     "document.getElementById('status').dataset.boxes")
    js(driver, "const e = document.getElementById('explode'); e.value = '16'; e.dispatchEvent(new Event('input')); "
               "document.getElementById('view').dispatchEvent(new WheelEvent('wheel', {deltaY: -600, "
               "cancelable: true}))")
    shot(driver, "workbench-pyramid.png")


if __name__ == "__main__":
    main()
