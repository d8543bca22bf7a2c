"""The public Python API (`cpsolve.__all__`, cpsolve/api.py): what it returns, how it stops, that it
stays importable in an instant, that its docstrings' examples run, and that its signatures change
only with a note in docs/api.md.

`python tests/test_api.py` rewrites tests/api_signatures.txt from the code and prints its fingerprint
(see docs/api.md, "Stability").
"""

from __future__ import annotations

import base64
import doctest
import hashlib
import html
import importlib
import inspect
import json
import os
import pkgutil
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType

import pytest
from conftest import descendants, run_json

import cpsolve

REPO = Path(__file__).resolve().parent.parent
SIGNATURES = REPO / "tests" / "api_signatures.txt"
API_DOC = REPO / "docs" / "api.md"

SOMA = (11520, 480, 240)


# --- the package facade ---------------------------------------------------------------------------


def test_import_stays_light():
    """`import cpsolve` loads none of the heavy libraries, nor the API module: names resolve on use; the
    API module loads no pydantic either (a built-in model or a BurrTools file is read without it)."""
    code = "import sys, cpsolve; print(sorted(m for m in sys.modules if m.split('.')[0] in " \
           "('pydantic', 'numpy', 'ortools', 'typer', 'yaml', 'PIL', 'cpsolve')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.replace("'", '"')) == ["cpsolve"]
    code = "import sys, cpsolve; cpsolve.load; print('cpsolve.api' in sys.modules, 'pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_every_public_name_resolves_to_the_api():
    import cpsolve.api as api

    assert "__version__" in cpsolve.__all__
    for name in cpsolve.__all__:
        if name != "__version__":
            assert getattr(cpsolve, name) is getattr(api, name), name
    assert sorted(set(cpsolve.__all__) - {"__version__"}) == sorted(api.__all__)
    with pytest.raises(AttributeError):
        cpsolve.no_such_name  # noqa: B018
    assert set(cpsolve.__all__) <= set(dir(cpsolve))


# --- docstrings, signatures -----------------------------------------------------------------------


def api_modules() -> list[ModuleType]:
    """The API package and each of its modules (`cpsolve.api.*`)."""
    import cpsolve.api as api

    return [api, *(importlib.import_module(f"cpsolve.api.{m.name}") for m in pkgutil.iter_modules(api.__path__))]


def test_docstring_examples_run():
    import cpsolve.api as api

    failed = attempted = 0
    for module in api_modules():
        result = doctest.testmod(module, extraglobs={"cpsolve": cpsolve}, optionflags=doctest.ELLIPSIS, report=True)
        failed, attempted = failed + result.failed, attempted + result.attempted
    assert failed == 0
    assert attempted >= 40
    documented = {name for name in api.__all__ if ">>>" in (inspect.getdoc(getattr(api, name)) or "")}
    functions = {name for name in api.__all__ if inspect.isfunction(getattr(api, name))}
    assert functions - {"puzzle_from_xmpuzzle"} <= documented, "every public function shows an example"


def test_api_doc_examples_run():
    """docs/api.md's examples are the docstrings' own; they run too, so that the page cannot drift."""
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    blocks = re.findall(r"```python\n(.*?)```", API_DOC.read_text(encoding="utf-8"), re.S)
    for i, block in enumerate(blocks):
        if ">>>" in block:
            runner.run(parser.get_doctest(block, {"cpsolve": cpsolve}, f"api.md block {i}", str(API_DOC), 0))
    assert runner.failures == 0 and runner.tries >= 20


def _described(obj: object) -> str:
    try:
        text = str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "(...)"
    return re.sub(r"ForwardRef\(('[^']*')\)", r"\1", text)  # a NamedTuple's fields, as other annotations read


def signatures_text() -> str:
    """One line per public name: its call signature; for a class also its public attributes."""
    import cpsolve.api as api

    lines = []
    for name in sorted(api.__all__):
        obj = getattr(api, name)
        if inspect.isclass(obj):
            members = sorted(m for m in dir(obj) if not m.startswith("_"))
            lines.append(f"class {name}{_described(obj)}: {', '.join(members)}")
        else:
            lines.append(f"{name}{_described(obj)}")
    return "\n".join(lines) + "\n"


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def test_public_signatures_are_recorded():
    """A public name that disappears or changes its signature fails here until the record is
    renewed (`python tests/test_api.py`) and docs/api.md notes the change with the new fingerprint."""
    now = signatures_text()
    recorded = SIGNATURES.read_text(encoding="utf-8")
    assert now == recorded, (
        "the public API changed: run `python tests/test_api.py` to renew tests/api_signatures.txt, then note the "
        f"change under 'Changes' in docs/api.md with its fingerprint ({fingerprint(now)})")
    changes = API_DOC.read_text(encoding="utf-8").split("## Changes", 1)[1]
    assert f"api {fingerprint(now)}" in changes, (
        f"docs/api.md, section Changes: no note for this API (fingerprint {fingerprint(now)})")


def test_the_signature_check_can_fail():
    text = signatures_text()
    assert "enumerate(puzzle: 'Puzzle', *, backend: 'str' = 'auto'" in text
    assert fingerprint(text.replace("limit: 'int' = 0", "limit: 'int' = 1")) != fingerprint(text)


# --- loading and building puzzles -----------------------------------------------------------------


def test_puzzles_from_yaml_dict_and_file_agree(tmp_path):
    text = textwrap.dedent("""\
        name: pair
        container: {box: [2, 2, 1]}
        pieces:
          L: {cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}
          M: {layers: [["#"]]}
        """)
    (tmp_path / "pair.yaml").write_text(text)
    from_file = cpsolve.load(tmp_path / "pair.yaml")
    from_yaml = cpsolve.puzzle_from_yaml(text)
    from_dict = cpsolve.puzzle_from_dict({"name": "pair", "container": {"box": (2, 2, 1)},
                                          "pieces": {"L": {"cells": [(0, 0, 0), (1, 0, 0), (0, 1, 0)]},
                                                     "M": {"layers": [["#"]]}}})
    for p in (from_file, from_yaml, from_dict):
        assert (p.name, p.container, [(q.name, q.shape) for q in p.pieces]) == (
            from_file.name, from_file.container, [(q.name, q.shape) for q in from_file.pieces])
    assert cpsolve.count(from_dict) == (4, 1, 1)
    # An edited file is read again (the command line's loader caches; the API must not).
    (tmp_path / "pair.yaml").write_text(text.replace("name: pair", "name: pair2"))
    assert cpsolve.load(tmp_path / "pair.yaml").name == "pair2"


def test_bad_input_is_a_cpsolve_error():
    with pytest.raises(cpsolve.CpsolveError) as err:
        cpsolve.puzzle_from_dict({"name": "x", "container": {"box": [2, 1, 1]}, "pieces": {"I": {"cells": "no"}}})
    assert err.value.where == "<dict>" and err.value.exit_code == 2 and "pieces" in str(err.value)
    with pytest.raises(cpsolve.CpsolveError, match="total piece volume 1 differs"):
        cpsolve.puzzle_from_dict({"name": "x", "container": {"box": [2, 1, 1]},
                                  "pieces": {"I": {"cells": [[0, 0, 0]]}}})
    with pytest.raises(cpsolve.CpsolveError):
        cpsolve.puzzle_from_dict({"name": object(), "container": {"box": [1, 1, 1]}})
    with pytest.raises(cpsolve.CpsolveError, match="not valid YAML"):
        cpsolve.puzzle_from_yaml("name: [")
    with pytest.raises(cpsolve.CpsolveError, match="unknown backend"):
        cpsolve.enumerate(cpsolve.load("soma"), backend="nope")  # at the call, before any iteration
    with pytest.raises(cpsolve.CpsolveError) as err:
        cpsolve.export(cpsolve.load("soma"), "pdf")  # type: ignore[call-overload]
    assert err.value.field == "format"
    with pytest.raises(cpsolve.CpsolveError) as err:
        cpsolve.draw(cpsolve.load("soma"), view="above")
    assert err.value.field == "view"


def test_xmpuzzle_round_trip():
    soma = cpsolve.load("soma")
    data = cpsolve.export(soma, "xmpuzzle")
    assert data[:2] == b"\x1f\x8b"
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"api-{os.getpid()}.xmpuzzle"
    try:
        path.write_bytes(data)
        back = cpsolve.puzzle_from_xmpuzzle(path)
        assert sorted(p.shape for p in back.pieces) == sorted(p.shape for p in soma.pieces)
        assert cpsolve.count(back) == SOMA
    finally:
        path.unlink(missing_ok=True)


# --- solving, counting, enumerating ---------------------------------------------------------------


def _covers(solution: cpsolve.Solution, puzzle: cpsolve.Puzzle) -> bool:
    cells = [c for cs in solution.pieces.values() for c in cs]
    return sorted(cells) == sorted(puzzle.container)


def test_solve_finds_a_real_solution_or_none():
    soma = cpsolve.load("soma")
    s = cpsolve.solve(soma)
    assert s is not None and _covers(s, soma)
    assert s.assemblies == 48 and s.index is None and s.puzzle is soma
    assert str(s).startswith("z=0")
    none = cpsolve.puzzle_from_dict({"name": "none", "container": {"layers": [["###", "#.#"]]},
                                     "pieces": {"I": {"cells": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
                                                "D": {"cells": [[0, 0, 0], [1, 0, 0]]}}})
    assert cpsolve.solve(none) is None


@pytest.mark.parametrize("backend", ["dlx", "python"])
def test_count_and_run_agree_with_the_reference(backend):
    soma = cpsolve.load("soma")
    if backend == "python":
        soma = cpsolve.load("t-tetracube-6x6x2")
    seen: list[cpsolve.Solution] = []
    result = cpsolve.run(soma, seen.append, backend=backend)
    assert result.complete and result.backend.startswith(backend)
    expected = SOMA if soma.name == "soma" else (136, 20, 10)
    assert tuple(result.counts) == expected == tuple(cpsolve.count(soma, backend=backend))
    assert [s.index for s in seen] == list(range(expected[2]))
    assert sum(s.assemblies for s in seen) == expected[0]
    assert sum(2 if s.mirror_distinct else 1 for s in seen) == expected[1]
    assert all(_covers(s, soma) for s in seen)
    assert result.as_json()["total"] == expected[0] and result.as_json()["status"] == "complete"


def test_results_say_why_auto_took_another_backend():
    """`backend_reason`: None for dlx (every packing) and for a backend named; for a chain, which
    `auto` sends to sat, why dlx could not take it, in the result and in its JSON."""
    chain = cpsolve.run(cpsolve.load("snake-27"))
    assert (chain.backend, tuple(chain.counts)) == ("sat", (48, 2, 1))
    assert chain.backend_reason == chain.as_json()["backend_reason"] == (
        "dlx solves pure exact cover, and the joints of a chain puzzle are not exact cover")
    assert cpsolve.run(cpsolve.load("snake-27"), backend="sat").backend_reason is None
    with cpsolve.enumerate(cpsolve.load("snake-27")) as run:
        assert sum(1 for _ in run) == 1
    assert run.result.backend_reason == chain.backend_reason
    assert cpsolve.run(cpsolve.load("soma")).backend_reason is None


def test_count_refuses_to_return_incomplete_counts():
    with pytest.raises(cpsolve.CpsolveError, match="timeout after") as err:
        cpsolve.count(cpsolve.load("bedlam"), timeout=0.3)
    assert err.value.exit_code == 3  # the command line's status for a run cut short by its timeout


def test_enumeration_is_an_iterator_with_a_result():
    soma = cpsolve.load("soma")
    run = cpsolve.enumerate(soma)
    with pytest.raises(cpsolve.CpsolveError, match="not ended"):
        run.result  # noqa: B018
    solutions = list(run)
    assert len(solutions) == 240 and run.result.counts == SOMA and run.result.status == "complete"
    assert [s.index for s in solutions] == list(range(240))
    assert next(run, None) is None
    lines = [s.as_line() for s in solutions[:2]]
    assert json.loads(lines[0])["class"] == 0 and json.loads(lines[1])["assemblies"] == solutions[1].assemblies


def test_enumeration_limit_and_unstarted_close():
    run = cpsolve.enumerate(cpsolve.load("soma"), limit=5)
    assert len(list(run)) == 5 and run.result.status == "stopped" and run.result.counts.unique_symmetry == 5
    unstarted = cpsolve.enumerate(cpsolve.load("soma"))
    unstarted.close()
    assert unstarted.result.counts == (0, 0, 0) and unstarted.result.status == "stopped"


def _descendants(root: int) -> set[int]:
    """Every process below `root`, zombies included: an unreaped child is left behind too."""
    return set(descendants(root, zombies=True))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_breaking_out_stops_the_search_and_its_workers():
    before = _descendants(os.getpid())
    tetris = cpsolve.load("tetris-cube")  # 9839 classes: far from done after the first few
    with cpsolve.enumerate(tetris, workers=2) as run:
        for n, _ in enumerate(run):
            if n == 0:
                during = _descendants(os.getpid()) - before
            if n == 2:
                break
    assert len(during) >= 3, "the search process and its two workers were running"
    assert _descendants(os.getpid()) == before, "nothing is left running (or unreaped)"
    assert run.result.status == "stopped"
    assert 3 <= run.result.counts.unique_symmetry < 9839


@pytest.mark.slow
def test_ctrl_c_ends_the_iteration_with_status_interrupted(tmp_path):
    """Ctrl-C while the caller iterates ends the run with status "interrupted" and leaves no process. The
    search process is frozen (SIGSTOP) once the first solution is in, so the run cannot end before the
    signal lands however loaded the machine is (a 0.2 s sleep let the Tetris Cube finish first under
    load); it is woken (SIGCONT) right after the Ctrl-C, to answer it."""
    script = tmp_path / "interrupted.py"
    script.write_text(textwrap.dedent("""\
        import os, signal, sys, cpsolve
        sys.path.insert(0, sys.argv[1])
        from test_api import _descendants
        n = 0
        try:  # Ctrl-C lands in the loop body (leaving the with block) or in the wait for a solution
            with cpsolve.enumerate(cpsolve.load("tetris-cube"), workers=2) as run:
                for s in run:
                    n += 1
                    if n == 1:
                        os.kill(run._pid, signal.SIGSTOP)
                        print("started", run._pid, flush=True)
        except KeyboardInterrupt:
            pass
        print(run.result.status, n, len(_descendants(os.getpid())), flush=True)
        """))
    proc = subprocess.Popen([sys.executable, str(script), str(REPO / "tests")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    started, search = proc.stdout.readline().split()
    assert started == "started"
    time.sleep(0.2)  # the pipe's classes drained: now the caller waits for the next one (or still reads)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.1)
    os.kill(int(search), signal.SIGCONT)
    out, _ = proc.communicate(timeout=60)
    status, n, left = out.split()
    assert status == "interrupted" and 0 < int(n) < 9839 and left == "0"


# --- pictures, the page, notebooks ----------------------------------------------------------------


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_solutions_show_themselves():
    soma = cpsolve.load("soma")
    s = cpsolve.solve(soma)
    assert s is not None
    png = s._repr_png_()
    assert png == cpsolve.draw(s) and _png_size(png)[0] > 200
    frame = s._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and 'sandbox="allow-scripts"' in frame
    inner = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))  # type: ignore[union-attr]
    assert inner == cpsolve.page(s)
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', inner,
                                re.S).group(1).replace("<\\/", "</"))  # type: ignore[union-attr]
    assert len(data["cells"]) == 27 and len(data["solutions"]) == 1 and len(data["pieces"]) == 7
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", inner), "self-contained: nothing from the network"


def test_puzzles_show_themselves_by_injection():
    import cpsolve.api as api

    soma = cpsolve.load("soma")
    assert vars(cpsolve.Puzzle)["_repr_html_"] is api.display._puzzle_html  # put there by the API, not by stage 1
    png = soma._repr_png_()  # type: ignore[attr-defined]
    assert png == cpsolve.draw(soma)
    page = soma._repr_html_()  # type: ignore[attr-defined]
    assert "<td>7 pieces, 27 cells</td>" in page
    picture = re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1)  # type: ignore[union-attr]
    assert base64.b64decode(picture) == png
    snake = cpsolve.load("snake-27")
    assert "a chain of 27 cubes" in snake._repr_html_()  # type: ignore[attr-defined]


def test_results_show_their_counts_as_tables():
    soma = cpsolve.load("soma")
    counts = cpsolve.count(soma)
    assert counts._repr_html_().count("<td>") == 3 and "<td>11520</td><td>480</td><td>240</td>" in counts._repr_html_()
    result = cpsolve.run(soma, limit=1)
    assert "<td>stopped</td>" in result._repr_html_()
    comparison = cpsolve.compare(cpsolve.load("t-tetracube-6x6x2"), ["dlx", "python"])
    table = comparison._repr_html_()
    rows = table.split("<tr>")[2:]  # the two backends' rows; their last three cells are the counts (the peak
    assert len(rows) == 2 and all(r.endswith("<td>136</td><td>20</td><td>10</td></tr>") or  # MB may be 136 too)
                                  r.endswith("<td>136</td><td>20</td><td>10</td></tr></tbody></table>") for r in rows)
    assert comparison.disagreement is None


def test_comparison_names_the_backend_that_disagrees():
    import dataclasses

    comparison = cpsolve.compare(cpsolve.load("t-tetracube-6x6x2"), ["dlx", "python"])
    wrong = dataclasses.replace(comparison.rows[1], total=137)
    broken = dataclasses.replace(comparison, rows=(comparison.rows[0], wrong))
    with pytest.raises(cpsolve.CpsolveError, match="python counts 137") as err:
        broken.check()
    assert err.value.exit_code == 1


def test_draw_picture_kinds():
    soma = cpsolve.load("soma")
    first = list(cpsolve.enumerate(soma, limit=4))
    sheet = cpsolve.draw(first, "svg").decode()
    assert all(f">#{i}</text>" in sheet for i in range(4)) and ">#4<" not in sheet
    assert "soma: 4 solutions" in sheet
    assert _png_size(cpsolve.draw(first)) != _png_size(cpsolve.draw(first[0]))
    svg = cpsolve.draw(first[0], "svg", title="hello").decode()
    assert "hello" in svg and svg.count("<polygon") > 27
    assert "soma, solution 0" in cpsolve.draw(first[0], "svg").decode()
    assert "soma, solution" not in cpsolve.draw(first[0], "svg", title=False).decode()


def test_disassemble_and_read_solutions(tmp_path):
    burr = cpsolve.load("six-piece-burr")
    path = tmp_path / "burr.jsonl"
    with path.open("w") as out:
        cpsolve.run(burr, lambda s: print(s.as_line(), file=out))
    solutions = cpsolve.read_solutions(path)
    assert [s.index for s in solutions] == [0] and solutions[0].puzzle is not None
    assert solutions[0].pieces == cpsolve.enumerate(burr).__next__().pieces
    found = cpsolve.disassemble(solutions[0])
    cli = run_json("disassemble", str(path))  # the command line on the same file says the same
    assert found.ok and cli["disassemblable"]
    assert (found.level_text(), len(found.moves())) == (cli["level"], cli["moves_total"]) == ("1", 5)
    with pytest.raises(cpsolve.CpsolveError, match="chain"):
        cpsolve.disassemble(cpsolve.solve(cpsolve.load("snake-27")))  # type: ignore[arg-type]


def test_export_formats():
    soma = cpsolve.load("soma")
    cnf = cpsolve.export(soma)
    header = next(line for line in cnf.splitlines() if line.startswith("p cnf"))
    assert int(header.split()[2]) > 0
    full = cpsolve.export(soma, "xcc", symmetry_breaking=False)
    broken = cpsolve.export(soma, "xcc")
    assert len(full.splitlines()) > len(broken.splitlines())
    stl = cpsolve.export(soma, "stl", unit=20.0)
    assert sorted(stl) == sorted(f"{p.name}.stl" for p in soma.pieces)
    assert all(len(data) == 84 + 50 * int.from_bytes(data[80:84], "little") for data in stl.values())
    with pytest.raises(cpsolve.CpsolveError, match="only the xmpuzzle"):
        cpsolve.export(soma, "xcc", solutions=[cpsolve.solve(soma)])  # type: ignore[list-item]


# --- docs: the README's example and the notebook --------------------------------------------------


def readme_python_example() -> tuple[str, str]:
    """The code block of the README's "From Python" section and the output block after it."""
    section = (REPO / "README.md").read_text(encoding="utf-8").split("## From Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, re.S)
    code = next(body for lang, body in blocks if lang == "python")
    output = next(body for lang, body in blocks if lang == "text")
    return code, output


def test_readme_python_example_prints_what_the_readme_says(tmp_path):
    code, expected = readme_python_example()
    assert 5 <= len(code.strip().splitlines()) <= 14
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


@pytest.mark.slow
def test_example_notebook_runs_and_shows_the_counts():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(REPO / "docs" / "example.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(REPO / "docs")}}).execute()
    text = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    for n in SOMA:
        assert f"<td>{n}</td>" in text
    assert "Counts(total=11520, unique_rotation=480, unique_symmetry=240)" in text
    assert "image/png" in text and "<iframe srcdoc=" in text


if __name__ == "__main__":
    SIGNATURES.write_text(signatures_text(), encoding="utf-8")
    print(f"wrote {SIGNATURES.relative_to(REPO)}; fingerprint: api {fingerprint(signatures_text())}")
