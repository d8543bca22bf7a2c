"""The workbench's server (`cpsolve app`), over raw HTTP as a browser or an attacker would reach it:
who may talk to it (token, Host, Origin, no CORS), what it may touch (its folder only), that input
gets the command line's checks and limits, and that stopping it stops its runs without losing what
they found or leaving a process behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from app_support import Server, workbench
from conftest import EXAMPLES, run_cli

import cpsolve

BT = Path(os.environ.get("CPSOLVE_BURRTOOLS_EXAMPLES", "/nonexistent"))
"""BurrTools' own examples folder (Prisgon, FourPieceTetrahedron ... beside the shared ones), as tests/test_grids.py."""
BAR = "name: bar\ncontainer: {box: [3, 1, 1]}\npieces: {I: {layers: [['###']]}}\n"


@pytest.fixture
def served(tmp_path: Path):
    (tmp_path / "bar.yaml").write_text(BAR, encoding="utf-8")
    with workbench(tmp_path) as server:
        yield server


# --- who may talk to it -------------------------------------------------------------------------------------


def test_the_printed_address_is_loopback_with_a_token(served: Server) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    assert len(served.token) >= 40


def test_requests_without_the_token_are_refused(served: Server) -> None:
    for path in ("/", "/api/state", "/static/workbench.js", "/api/files", "/api/jobs"):
        status, headers, body = served.request("GET", path, auth=False)
        assert status == 403, path
        assert b"token" in body
        assert headers["x-content-type-options"] == "nosniff"
    status, _, _ = served.request("GET", "/api/state", headers={"Cookie": f"cpsolve-app-{served.port}=wrong"},
                                  auth=False)
    assert status == 403
    status, _, _ = served.request("GET", "/?token=wrong", auth=False)
    assert status == 403
    status, _, _ = served.request("POST", "/api/parse", {"yaml": BAR}, auth=False)
    assert status == 403


def test_the_token_is_exchanged_for_a_cookie(served: Server) -> None:
    status, headers, _ = served.request("GET", f"/?token={served.token}", auth=False)
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"cpsolve-app-{served.port}={served.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    status, headers, body = served.request("GET", "/", auth=False,
                                           headers={"Cookie": cookie.split(";")[0]})
    assert status == 200 and b"cpsolve workbench" in body
    assert headers["content-type"].startswith("text/html")
    # the header form Jupyter also accepts
    status, _, _ = served.request("GET", "/api/state", auth=False, headers={"Authorization": f"token {served.token}"})
    assert status == 200


def test_a_foreign_host_is_refused_even_with_the_token(served: Server) -> None:
    """DNS rebinding: a name that resolves to 127.0.0.1 still arrives with its own Host header."""
    for host in (f"evil.example:{served.port}", "evil.example", f"127.0.0.1:{served.port + 1}", ""):
        status, _, body = served.request("GET", "/api/state", headers={"Host": host})
        assert status == 403, host
        assert b"Host" in body
    for host in (f"localhost:{served.port}", f"127.0.0.1:{served.port}", f"[::1]:{served.port}"):
        status, _, _ = served.request("GET", "/api/state", headers={"Host": host})
        assert status == 200, host


def test_a_foreign_origin_is_refused_on_every_state_changing_request(served: Server) -> None:
    body = {"yaml": BAR}
    status, _, _ = served.request("POST", "/api/parse", body)
    assert status == 200
    for origin in ("http://evil.example", f"http://127.0.0.1:{served.port + 1}", "null", None):
        for path in ("/api/parse", "/api/save", "/api/run", "/api/jobs/1/stop"):
            status, _, _ = served.request("POST", path, body, headers={"Origin": origin})  # type: ignore[dict-item]
            assert status == 403, (origin, path)
    status, _, _ = served.request("POST", "/api/parse", body, headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403


def test_websocket_upgrades_need_the_servers_origin(served: Server) -> None:
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    for origin in ("http://evil.example", None):
        status, _, _ = served.request("GET", "/api/jobs", headers={**upgrade, "Origin": origin})  # type: ignore[dict-item]
        assert status == 403, origin


def test_no_cors_and_the_security_headers(served: Server) -> None:
    status, headers, _ = served.request("OPTIONS", "/api/parse", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert status == 403
    for path in ("/", "/api/state", "/static/viewer.js"):
        status, headers, _ = served.request("GET", path, headers={"Origin": "http://evil.example"})
        assert status == 200
        assert not [h for h in headers if h.startswith("access-control-")]
        assert headers["x-content-type-options"] == "nosniff"
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
        assert headers["cache-control"] == "no-store"


# --- what it may touch ----------------------------------------------------------------------------------------


def test_paths_outside_the_folder_are_refused(served: Server, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text(BAR, encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to(outside)
    (tmp_path / "sub").mkdir()
    for path in ("../" + outside.name, str(outside), "/etc/passwd", "sub/../../" + outside.name, "link.yaml",
                 "~/x.yaml", "bar.yaml\0x"):
        status, _, body = served.request("POST", "/api/open", {"path": path})
        assert status == 400, path
        message = json.loads(body)["error"]
        assert "outside the folder" in message or "not a file name" in message, (path, message)
        status, _, _ = served.request("GET", f"/api/solutions?file={path.replace(chr(0), '%00')}")
        assert status == 400, path
    before = outside.read_text(encoding="utf-8")
    for path in ("../" + outside.name, str(outside), "link.yaml"):
        status, _, _ = served.request("POST", "/api/save", {"path": path, "yaml": BAR.replace("bar", "baz"),
                                                            "overwrite": True})
        assert status == 400, path
    assert outside.read_text(encoding="utf-8") == before
    status, _, _ = served.request("GET", "/static/..%2F..%2Fapi.py")
    assert status == 404
    # inside, it works
    opened = served.api("POST", "/api/open", {"path": "bar.yaml"})
    assert opened["yaml"] == BAR and opened["editor"]["pieces"][0]["cells"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
    listed = served.api("GET", "/api/files")["files"]
    assert [f["path"] for f in listed] == ["bar.yaml"]  # the link leading out is not listed


def test_a_file_outside_the_folder_is_refused_at_start(tmp_path: Path) -> None:
    from conftest import one_line

    (tmp_path / "here").mkdir()
    (tmp_path / "bar.yaml").write_text(BAR, encoding="utf-8")
    one_line(run_cli("app", "../bar.yaml", "--no-browser", cwd=tmp_path / "here"), 2, "outside the folder")


def test_save_refuses_a_file_that_would_not_load_and_asks_before_replacing(served: Server, tmp_path: Path) -> None:
    status, _, body = served.request("POST", "/api/save", {"path": "new.yaml", "yaml": "name: x\ncontainer: {}\n"})
    assert status == 400 and not (tmp_path / "new.yaml").exists()
    status, _, body = served.request("POST", "/api/save", {"path": "bar.yaml", "yaml": BAR.replace("bar", "baz")})
    assert status == 409 and json.loads(body)["exists"]
    assert (tmp_path / "bar.yaml").read_text(encoding="utf-8") == BAR
    status, _, _ = served.request("POST", "/api/save", {"path": "notes.txt", "yaml": BAR})
    assert status == 400 and not (tmp_path / "notes.txt").exists()


# --- input: the command line's checks and limits -------------------------------------------------------------------


def test_puzzles_get_the_command_lines_checks_and_limits(tmp_path: Path) -> None:
    huge = "name: huge\ncontainer: {box: [1000, 1000, 1000]}\npieces: {I: {layers: [['#']]}}\n"
    with workbench(tmp_path, cli=("--max-cells", "26")) as server:
        r = server.api("POST", "/api/parse", {"yaml": huge})
        assert r["editor"] is None and "over the limit of 26" in r["error"] and "--max-cells" in r["error"]
        r = server.api("POST", "/api/open", {"model": "soma"})  # 27 cells: over this server's limit, as in the CLI
        assert r["editor"] is None and "over the limit of 26" in r["error"]
        status, _, body = server.request("POST", "/api/run", {"action": "count", "yaml": huge})
        assert status == 400 and b"over the limit" in body
        status, _, body = server.request("POST", "/api/run", {"action": "enumerate", "yaml": BAR,
                                                                "options": {"workers": 0}})
        assert status == 200  # workers 0 means "all cores", as an empty field
        status, _, body = server.request("POST", "/api/run", {"action": "enumerate", "yaml": BAR,
                                                                "options": {"workers": 9999}})
        assert status == 400 and b"workers" in body
        status, _, body = server.request("POST", "/api/run", {"action": "count", "yaml": BAR,
                                                                "options": {"timeout": -1}})
        assert status == 400
        status, _, body = server.request("POST", "/api/run", {"action": "rm -rf", "yaml": BAR})
        assert status == 400
    cli = run_cli("--max-cells", "26", "count", "soma")
    assert "over the limit of 26" in cli.stderr


def test_the_yaml_round_trip_of_the_editor_model(served: Server) -> None:
    """The editor's model of a file written back is the same puzzle; a drawn puzzle's YAML loads."""
    for model in ("soma", "tetris-cube", "screws-3x3x3", "snake-27"):
        opened = served.api("POST", "/api/open", {"model": model})
        text = served.api("POST", "/api/yaml", {"model": opened["editor"]})
        assert text["error"] is None, (model, text["error"])
        again = cpsolve.puzzle_from_yaml(text["yaml"])
        original = cpsolve.load(model)
        assert [(p.name, p.shape, p.count, p.color, p.colors) for p in again.pieces] == \
            [(p.name, p.shape, p.count, p.color, p.colors) for p in original.pieces]
        assert again.container == original.container and again.optional == original.optional
        assert again.container_colors == original.container_colors and again.color_rules == original.color_rules
        assert again.description == original.description and again.chain == original.chain


def test_every_grid_round_trips_in_its_own_drawings(served: Server) -> None:
    """The editor's model of the other grids' built-in models (and of BurrTools' examples, where they are)
    written back is the same puzzle, on its grid, in the grid's readable forms: the square pyramid and the
    tetrahedron of balls by their size, flat ball pieces as `square:` and `triangular:` drawings, prisms in
    layers from a translation that keeps each triangle up or down."""
    forms = {"kanoodle-pyramid": ("pyramid: 5", 'square: ["#..", "###"]'),
             "ball-tetrahedron-20": ("tetrahedron: 4", 'triangular: ["# # #", " # #"]'),
             "hexiamonds-6x6": ("grid: prisms", "layers:"), "hexagon-prism-8": ("grid: prisms", "layers:")}
    for model, shown in forms.items():
        opened = served.api("POST", "/api/open", {"model": model})
        assert opened["editor"]["grid"] == cpsolve.load(model).grid
        text = served.api("POST", "/api/yaml", {"model": opened["editor"]})
        assert text["error"] is None, (model, text["error"])
        assert all(s in text["yaml"] for s in shown), (model, text["yaml"][:600])
        again, original = cpsolve.puzzle_from_yaml(text["yaml"]), cpsolve.load(model)
        assert again.grid == original.grid and again.container == original.container
        assert [(p.name, p.shape, p.count, p.color) for p in again.pieces] == \
            [(p.name, p.shape, p.count, p.color) for p in original.pieces]
        assert cpsolve.count(again) == cpsolve.count(original)
    # pieces drawn anywhere (an up triangle moved by one column would turn into a down one)
    hexagon = [[x, y, 0] for x in range(1, 4) for y in range(2)]
    model = {"grid": "prisms", "name": "moved", "container": {"cells": hexagon},
             "pieces": [{"name": "T", "cells": [[5, 3, 2], [6, 3, 2], [7, 3, 2]], "count": 2}]}
    text = served.api("POST", "/api/yaml", {"model": model})
    assert text["error"] is None, text["error"]
    moved = cpsolve.puzzle_from_yaml(text["yaml"]).pieces[0].shape
    assert moved == cpsolve.lattice("prisms").normalize([(5, 3, 2), (6, 3, 2), (7, 3, 2)])


@pytest.mark.parametrize("name", ["BallRoom", "Bermuda", "HexSticks", "FourPieceTetrahedron", "Prisgon"])
def test_burrtools_examples_on_every_grid_round_trip(served: Server, tmp_path: Path, name: str) -> None:
    found = next((f / f"{name}.xmpuzzle" for f in (EXAMPLES, BT) if (f / f"{name}.xmpuzzle").exists()), None)
    if found is None:
        pytest.skip(f"{name}.xmpuzzle is in neither {EXAMPLES} nor CPSOLVE_BURRTOOLS_EXAMPLES")
    shutil.copy(found, tmp_path)
    for problem in range(len(cpsolve.source(str(found)).problems)):
        opened = served.api("POST", "/api/open", {"path": f"{name}.xmpuzzle", "problem": problem})
        text = served.api("POST", "/api/yaml", {"model": opened["editor"]})
        assert text["error"] is None, (name, problem, text["error"])
        original = cpsolve.load(found, problem)
        saved = served.api("POST", "/api/save", {"path": f"again-{problem}.xmpuzzle", "yaml": text["yaml"]})
        assert saved["bytes"] > 0  # and as BurrTools again, its gridType kept
        for again in (cpsolve.puzzle_from_yaml(text["yaml"]), cpsolve.load(tmp_path / f"again-{problem}.xmpuzzle")):
            assert again.grid == original.grid != "cubes"
            assert again.container == original.container and again.optional == original.optional
            assert [(p.name, p.shape, p.count, p.min_count) for p in again.pieces] == \
                [(p.name, p.shape, p.count, p.min_count) for p in original.pieces]


def test_the_grids_their_solids_libraries_and_new_puzzles(served: Server) -> None:
    from cpsolve.analysis import disassembly
    from cpsolve.app import server

    state = served.api("GET", "/api/state")
    grids = {g["name"]: g for g in state["grids"]}
    assert list(grids) == ["cubes", "prisms", "spheres", "rhombic", "tetra-octa"]
    assert [g for g, info in grids.items() if info["disassemble"]] == ["cubes", "prisms"]
    assert server.TAKEN_APART == disassembly.TAKEN_APART  # the server's copy (it imports the public API only)
    assert state["model_grids"]["kanoodle-pyramid"] == "spheres" and state["model_grids"]["soma"] == "cubes"
    assert "hexiamonds" in grids["prisms"]["libraries"] and "square-balls-5" in grids["spheres"]["libraries"]
    for g in grids:
        assert served.api("GET", f"/api/grid?name={g}") == json.loads(json.dumps(cpsolve.grid_solids(g)))
    hexiamonds = served.api("GET", "/api/library?name=hexiamonds&grid=prisms")["shapes"]
    assert len(hexiamonds) == 12 and all(len(c) == 6 and {v[2] for v in c} == {0} for c in hexiamonds.values())
    assert len(served.api("GET", "/api/library?name=square-balls-5&grid=spheres")["shapes"]) == 12
    rhombic = served.api("GET", "/api/library?name=kaenel:1&grid=rhombic")["shapes"]
    assert [len(c) for c in rhombic.values()] == [24 * 24]
    for bad in ("name=pentacubes&grid=prisms", "name=kaenel:1&grid=spheres", "name=hexiamonds&grid=hexagons"):
        status, _, body = served.request("GET", f"/api/library?{bad}")
        assert status == 400 and (b"library" in body or b"grid" in body), bad
    pyramid = served.api("POST", "/api/new", {"grid": "spheres", "form": "pyramid", "size": [5, 1, 1]})
    assert sorted(map(tuple, pyramid["container"]["cells"])) == sorted(cpsolve.load("kanoodle-pyramid").container)
    box = served.api("POST", "/api/new", {"grid": "tetra-octa", "form": "box", "size": [2, 1, 1]})
    assert len(box["container"]["cells"]) == 2 * 5 and box["grid"] == "tetra-octa"
    status, _, _ = served.request("POST", "/api/new", {"grid": "prisms", "form": "pyramid", "size": [3, 3, 3]})
    assert status == 400
    status, _, _ = served.request("POST", "/api/grid", {})
    assert status == 405


def test_a_ball_solution_is_shown_and_exported_as_balls(served: Server) -> None:
    """What Browse shows and downloads of a solution on the sphere grid: balls in the viewer's data, no
    disassembly (none exists there), the assembly's STL the balls joined (the volume of cpsolve's own)."""
    from cpsolve.output.stl import read_binary_stl, volume

    model = cpsolve.load("kanoodle-pyramid")
    text = Path(model.origin or "").read_text(encoding="utf-8")
    found = cpsolve.solve(model)
    assert found is not None
    body = {"pieces": {k: [list(c) for c in v] for k, v in found.pieces.items()}, "yaml": text}
    view = served.api("POST", "/api/view", body)
    assert view["grid"] == "spheres" and len(view["balls"]) == 55 and "steps" not in view
    status, headers, stl = served.request("POST", "/api/export", {**body, "format": "stl"})
    assert status == 200 and headers["content-type"] == "model/stl"
    assert volume(read_binary_stl(stl)) == pytest.approx(volume(read_binary_stl(cpsolve.assembly_stl(found))))
    assert volume(read_binary_stl(stl)) < 55 * 1000 * 0.75  # balls of 10 mm joined by rods, not 10 mm cubes
    status, headers, png = served.request("POST", "/api/export", {**body, "format": "pieces-png"})
    assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n"


# --- runs ------------------------------------------------------------------------------------------------------


def test_runs_count_solve_and_enumerate_into_the_folder(served: Server, tmp_path: Path) -> None:
    soma = Path(cpsolve.load("soma").origin or "").read_text(encoding="utf-8")
    job = served.wait_job(served.api("POST", "/api/run", {"action": "count", "yaml": soma})["id"])
    assert job["status"] == "complete"
    assert [job["result"][k] for k in ("total", "unique_rotation", "unique_symmetry")] == [11520, 480, 240]
    job = served.wait_job(served.api("POST", "/api/run", {"action": "enumerate", "yaml": soma,
                                                          "options": {"disassemble": True}})["id"])
    assert job["status"] == "complete" and job["out"] == "soma.solutions.jsonl"
    lines = (tmp_path / "soma.solutions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 240 and all(json.loads(line)["level"] == "1" for line in lines)
    assert not (tmp_path / "soma.solutions.jsonl.journal").exists()  # removed once complete, as the CLI does
    listed = served.api("GET", "/api/solutions?file=soma.solutions.jsonl&limit=5")
    assert listed["total"] == 240 and len(listed["rows"]) == 5 and listed["levels"] == {"1": 240}
    only = served.api("GET", "/api/solutions?file=soma.solutions.jsonl&piece=V&level=1&limit=1000")
    assert only["matched"] == 240
    view = served.api("POST", "/api/view", {"file": "soma.solutions.jsonl", "n": 7})
    assert len(view["cells"]) == 27 and len(view["solutions"]) == 1
    job = served.wait_job(served.api("POST", "/api/run", {"action": "solve", "yaml": soma})["id"])
    assert job["status"] == "complete" and job["text"].startswith("z=0")
    status, headers, png = served.request("POST", "/api/export", {"file": "soma.solutions.jsonl", "n": 0,
                                                                  "format": "png"})
    assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n" and "soma-" in headers["content-disposition"]
    status, _, stl = served.request("POST", "/api/export", {"file": "soma.solutions.jsonl", "n": 0, "format": "stl"})
    assert status == 200 and int.from_bytes(stl[80:84], "little") == 244
    status, _, zipped = served.request("POST", "/api/export", {"file": "soma.solutions.jsonl", "n": 0,
                                                               "format": "pieces-stl"})
    assert status == 200 and zipped[:2] == b"PK"


@pytest.mark.slow
def test_stopping_the_server_stops_its_runs_and_keeps_their_journal(tmp_path: Path) -> None:
    """Ctrl-C on `cpsolve app` while an enumeration runs: the run ends as Ctrl-C ends `cpsolve
    enumerate` (classes committed, journal kept), no process is left, and the command line resumes it
    to the exact counts."""
    bedlam = Path(cpsolve.load("bedlam").origin or "").read_text(encoding="utf-8")
    (tmp_path / "bedlam.yaml").write_text(bedlam, encoding="utf-8")
    with workbench(tmp_path) as server:
        job = server.api("POST", "/api/run", {"action": "enumerate", "yaml": bedlam, "where": "bedlam.yaml",
                                              "options": {"workers": 2}})
        end = time.monotonic() + 120
        while server.api("GET", f"/api/jobs/{job['id']}")["progress"].get("parts_done", 0) < 2:
            assert time.monotonic() < end, "no subproblem finished in 120 s"
            time.sleep(0.05)
        worker = [k for k in _children(server.process.pid)]
        assert worker, "the run has a worker process"
        assert server.stop() in (0, 130)
        for pid in worker:
            assert not Path(f"/proc/{pid}").exists() or _zombie(pid), f"worker {pid} left behind"
    journal = tmp_path / "bedlam.solutions.jsonl.journal"
    assert journal.exists(), "the journal is kept"
    kept = (tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines()
    assert 0 < len(kept) < 19186
    proc = run_cli("enumerate", "bedlam.yaml", "--resume", "--json", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["total"], result["unique_rotation"], result["unique_symmetry"]) == (460464, 19186, 19186)
    lines = (tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 19186 and len({json.loads(x)["id"] for x in lines}) == 19186
    assert lines[:len(kept)] == kept


def _children(pid: int) -> list[int]:
    from conftest import descendants

    return descendants(pid)


def _zombie(pid: int) -> bool:
    """Ended (only its parent's bookkeeping left), or gone."""
    from conftest import alive

    return not alive(pid)


@pytest.mark.slow
def test_a_stopped_run_reports_interrupted_and_resumes_in_the_workbench(served: Server, tmp_path: Path) -> None:
    text = Path(cpsolve.load("bedlam").origin or "").read_text(encoding="utf-8")
    job = served.api("POST", "/api/run", {"action": "enumerate", "yaml": text, "options": {"workers": 2}})
    end = time.monotonic() + 120
    while served.api("GET", f"/api/jobs/{job['id']}")["progress"].get("parts_done", 0) < 2:
        assert time.monotonic() < end, "no subproblem finished in 120 s"
        time.sleep(0.05)
    served.api("POST", f"/api/jobs/{job['id']}/stop", {})
    stopped = served.wait_job(job["id"])
    assert stopped["status"] == "interrupted" and stopped["result"]["journal"]
    assert (tmp_path / "bedlam.solutions.jsonl.journal").exists()
    kept = len((tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines())
    assert 0 < kept < 19186
    again = served.wait_job(served.api("POST", "/api/run", {"action": "enumerate", "yaml": text,
                                                            "options": {"workers": 2, "resume": True}})["id"], 600)
    assert again["status"] == "complete", again
    assert (again["result"]["total"], again["result"]["unique_symmetry"]) == (460464, 19186)
    assert len((tmp_path / "bedlam.solutions.jsonl").read_text(encoding="utf-8").splitlines()) == 19186


def test_the_worker_stops_when_the_server_is_killed(tmp_path: Path) -> None:
    """`kill -9` of the server: its worker gets SIGTERM (PR_SET_PDEATHSIG) and stops as on Ctrl-C."""
    bedlam = Path(cpsolve.load("bedlam").origin or "").read_text(encoding="utf-8")
    with workbench(tmp_path) as server:
        job = server.api("POST", "/api/run", {"action": "enumerate", "yaml": bedlam, "options": {"workers": 1}})
        end = time.monotonic() + 120
        while not server.api("GET", f"/api/jobs/{job['id']}")["progress"].get("found"):  # searching: journal open
            assert time.monotonic() < end, "no solution found in 120 s"
            time.sleep(0.05)
        kids = _children(server.process.pid)
        assert kids
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()
        end = time.monotonic() + 30
        while any(Path(f"/proc/{k}").exists() and not _zombie(k) for k in kids):
            assert time.monotonic() < end, "the worker outlived the server"
            time.sleep(0.1)
    assert (tmp_path / "bedlam.solutions.jsonl.journal").exists()


def test_shape_libraries(served: Server) -> None:
    tetra = served.api("GET", "/api/library?name=tetracubes")["shapes"]
    assert len(tetra) == 8 and all(len(cells) == 4 for cells in tetra.values())
    assert len(served.api("GET", "/api/library?name=pentacubes")["shapes"]) == 29
    sticks = served.api("GET", "/api/library?name=kaenel:1,2")["shapes"]  # 2: one cube cut away
    assert sorted(len(c) for c in sticks.values()) == [23, 24]
    for bad in ("kaenel:0", "kaenel:99999", "everything", "kaenel:1;rm"):
        status, _, _ = served.request("GET", f"/api/library?name={bad}")
        assert status == 400, bad
