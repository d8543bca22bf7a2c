"""The workbench's web server: one page, its files, and a small JSON API over the public Python API.

Starlette (routing, requests, responses) under uvicorn, both from the optional extra `cpsolve[app]`
and imported only here. Every route is behind `guard.Guard` (token, Host, Origin, headers); every
path the page names goes through `folder.Folder`; every puzzle through the loader's own checks and
limits (`cpsolve.puzzle_from_yaml`, `cpsolve.source`), so the page cannot ask for more than the
command line would accept. Long work runs in worker processes (`jobs.py`); short work (reading a
file, turning YAML into the editor's model and back (`editor.py`), a picture) runs in a thread of this
process.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import socket
import threading
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import cpsolve
from cpsolve import limits

from ..errors import CpsolveError
from .editor import GRIDS, cell_list, editor_model, file_data, whole_number
from .folder import PUZZLE_SUFFIXES, Folder
from .guard import Guard, allowed_hosts
from .jobs import Jobs

TAKEN_APART = ("cubes", "prisms")
"""The grids with a disassembler (BurrTools' too): elsewhere the page says why it has none. The server sees
only the public API, so this repeats `analysis.disassembly.TAKEN_APART` (tests/test_app.py checks they agree)."""
ACTIONS = ("enumerate", "count", "solve", "estimate", "approx", "explain", "disassemble", "design")
MAX_BODY = 4 * 1024 * 1024
"""Largest request body: a puzzle file is at most --max-file-bytes, and its editor model is not larger."""
STATIC = {
    "workbench.js": ("app", "text/javascript"), "workbench.css": ("app", "text/css"),
    "viewer.js": ("output/page", "text/javascript"), "viewer.css": ("output/page", "text/css"),
}
"""The page's files: its own, and the 3-D page's viewer (one viewer for both)."""
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
SPAN = 400
"""Solutions read in one go for a contact sheet when they lie within this many lines (else one by one)."""
CACHED_FILES = 8
"""Files whose lists are kept (Bedlam's 19,186 solutions: a few MB): the rest are read again."""


@dataclass
class Workbench:
    """What the server knows: its folder, the file it was started on, its runs and its limits."""

    folder: Folder
    start: dict[str, Any]
    jobs: Jobs
    cache: dict[str, Listing] = field(default_factory=dict)
    reading: threading.Lock = field(default_factory=threading.Lock)
    model_grids: dict[str, str] = field(default_factory=dict)


def create_app(folder: Folder, start: dict[str, Any], token: str, host: str, port: int) -> Guard:
    """The ASGI application: the routes behind the guard."""
    bench = Workbench(folder, start, Jobs(folder.root, _limits()))

    def route(path: str, handler: Callable[[Workbench, Request], Awaitable[Response]], methods: list[str]) -> Route:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(bench, request)
            except CpsolveError as exc:
                return JSONResponse({"error": cpsolve.printable(str(exc))}, status_code=400 if exc.exit_code == 2
                                    else 500)
        return Route(path, endpoint, methods=methods)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await bench.jobs.shutdown()  # stopping the server stops the runs as Ctrl-C would

    app = Starlette(routes=[
        route("/", index, ["GET"]),
        route("/static/{name}", static, ["GET"]),
        route("/favicon.ico", favicon, ["GET"]),
        route("/api/state", state, ["GET"]),
        route("/api/grid", grid, ["GET"]),
        route("/api/new", new_puzzle, ["POST"]),
        route("/api/files", listing, ["GET"]),
        route("/api/open", open_file, ["POST"]),
        route("/api/parse", parse, ["POST"]),
        route("/api/yaml", to_yaml, ["POST"]),
        route("/api/save", save, ["POST"]),
        route("/api/library", library, ["GET"]),
        route("/api/run", start_run, ["POST"]),
        route("/api/jobs", job_list, ["GET"]),
        route("/api/jobs/{id}", job_detail, ["GET"]),
        route("/api/jobs/{id}/stop", job_stop, ["POST"]),
        route("/api/solutions", solutions, ["GET"]),
        route("/api/view", view, ["POST"]),
        route("/api/export", export, ["POST"]),
    ], lifespan=lifespan)
    return Guard(app, token, allowed_hosts(host, port), port)


def _limits() -> dict[str, int]:
    """The limits in force (`cpsolve --max-* app`), handed to every worker."""
    active = limits.active()
    return {name: getattr(active, name) for name in limits.OPTIONS}


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise CpsolveError(f"the request is over {MAX_BODY} bytes", field="body")
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        raise CpsolveError("the request is not JSON", field="body") from None
    if not isinstance(data, dict):
        raise CpsolveError("the request is not a JSON object", field="body")
    return data


# --- the page ---------------------------------------------------------------------------------------


async def index(bench: Workbench, request: Request) -> Response:
    return Response(files("cpsolve").joinpath("app", "workbench.html").read_bytes(), media_type="text/html")


async def static(bench: Workbench, request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC:
        return Response("not found", status_code=404, media_type="text/plain")
    folder, media = STATIC[name]
    return Response(files("cpsolve").joinpath(*folder.split("/"), name).read_bytes(), media_type=media)


FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
           b'<path fill="#2f5fb3" d="M8 1l6 3v8l-6 3-6-3V4z"/><path fill="#9db5de" d="M8 1l6 3-6 3-6-3z"/></svg>')


async def favicon(bench: Workbench, request: Request) -> Response:
    return Response(FAVICON, media_type="image/svg+xml")


async def state(bench: Workbench, request: Request) -> Response:
    if not bench.model_grids:
        bench.model_grids.update(await run_in_threadpool(_model_grids))
    grids = [{"name": g, "title": cpsolve.lattice(g).title, "libraries": list(cpsolve.shape_libraries(g)),
              "kaenel": g in ("cubes", "rhombic", "tetra-octa"), "disassemble": g in TAKEN_APART}
             for g in GRIDS]
    return JSONResponse({"folder": bench.folder.root.name, "start": bench.start, "models": cpsolve.models(),
                         "model_grids": bench.model_grids, "grids": grids, "actions": list(ACTIONS),
                         "cores": limits.usable_cores(), "limits": bench.jobs.limits,
                         "version": cpsolve.__version__})


def _model_grids() -> dict[str, str]:
    """Each built-in model's grid (the libraries offer a model's pieces on its own grid); a model over this
    server's limits is left out."""
    out = {}
    for model in cpsolve.models():
        try:
            out[model] = cpsolve.load(model).grid
        except CpsolveError:
            continue
    return out


async def grid(bench: Workbench, request: Request) -> Response:
    """A grid's cells as solids in space (`cpsolve.grid_solids`): the page draws and clicks any cell from it."""
    name = request.query_params.get("name", "")
    if name not in GRIDS:
        raise CpsolveError(f"unknown grid {name[:40]!r} (known: {', '.join(GRIDS)})", field="grid")
    return JSONResponse(await run_in_threadpool(cpsolve.grid_solids, name))


async def listing(bench: Workbench, request: Request) -> Response:
    return JSONResponse({"files": await run_in_threadpool(bench.folder.listing)})


# --- puzzles: open, the editor's model both ways, save ------------------------------------------------


async def open_file(bench: Workbench, request: Request) -> Response:
    body = await _body(request)
    return JSONResponse(await run_in_threadpool(_open, bench, body))


def _open(bench: Workbench, body: Mapping[str, Any]) -> dict[str, Any]:
    """A puzzle as the editor takes it: its YAML text as it is in the file (a BurrTools file's problem
    as `cpsolve import` writes it), the file's problems, and the editor's model of it."""
    problem = whole_number(body.get("problem"), "problem") if body.get("problem") is not None else None
    if body.get("model"):
        model = str(body["model"])
        if model not in cpsolve.models():
            raise CpsolveError("no such built-in model", where=model[:80], field="model")
        try:
            origin = cpsolve.load(model).origin
        except CpsolveError as exc:  # over this server's limits (cpsolve --max-cells N app), as in the CLI
            return {"kind": "model", "model": model, "path": None, "problem": None, "problems": [], "yaml": None,
                    "editor": None, "error": cpsolve.printable(str(exc))}
        assert origin is not None
        text = Path(origin).read_text(encoding="utf-8")
        return {"kind": "model", "model": model, "path": None, "problem": None, "problems": [], "yaml": text,
                **_parsed(text, f"{model}.yaml")}
    rel = str(body.get("path", ""))
    path = bench.folder.resolve(rel)
    limit = limits.active().max_file_bytes
    if path.stat().st_size > limit:
        raise CpsolveError(f"the file is over the limit of {limit} bytes (--max-file-bytes)", where=rel)
    src = cpsolve.source(str(path), problem if path.suffix.lower() == ".xmpuzzle" or problem else None)
    out: dict[str, Any] = {"kind": src.kind, "path": rel, "model": None, "problems": src.problems,
                           "problem": src.problem}
    if src.kind == "xmpuzzle":
        text = cpsolve.import_xmpuzzle(path, src.problem or 0).yaml
        return {**out, "yaml": text, "stored": True, **_parsed(text, rel)}
    if src.kind == "solutions":  # browsed; its puzzle edited when it can be found
        puzzle = src.puzzle
        origin = puzzle.origin if puzzle is not None else None
        if origin is None or not Path(origin).is_file():
            return {**out, "yaml": None, "model": None, "editor": None}
        text = Path(origin).read_text(encoding="utf-8")
        return {**out, "yaml": text, **_parsed(text, str(origin))}
    text = path.read_bytes().decode("utf-8", errors="strict")
    return {**out, "yaml": text, **_parsed(text, rel)}


def _parsed(text: str, where: str) -> dict[str, Any]:
    """{"editor": the editor's model, "error": None} for a valid file; {"editor": None, "error": the
    one-line message} otherwise (the text stays in the YAML pane to be fixed)."""
    try:
        puzzle = cpsolve.puzzle_from_yaml(text, where)
    except CpsolveError as exc:
        return {"editor": None, "error": cpsolve.printable(str(exc))}
    data = yaml.safe_load(text)  # checked above, within the limits: safe to read again as plain data
    return {"editor": editor_model(puzzle, data if isinstance(data, dict) else {}), "error": None}


async def parse(bench: Workbench, request: Request) -> Response:
    body = await _body(request)
    text = str(body.get("yaml", ""))
    if len(text.encode()) > limits.active().max_file_bytes:
        raise CpsolveError("the text is over --max-file-bytes", field="yaml")
    return JSONResponse(await run_in_threadpool(_parsed, text, str(body.get("where") or "workbench.yaml")))


async def to_yaml(bench: Workbench, request: Request) -> Response:
    body = await _body(request)

    def work() -> dict[str, Any]:
        text = cpsolve.puzzle_yaml(file_data(body.get("model") or {}))
        try:
            cpsolve.puzzle_from_yaml(text, "workbench.yaml")
            error = None
        except CpsolveError as exc:
            error = cpsolve.printable(str(exc))
        return {"yaml": text, "error": error}

    return JSONResponse(await run_in_threadpool(work))


async def save(bench: Workbench, request: Request) -> Response:
    """Write the YAML pane's text as it is (a .yaml file) or the puzzle as BurrTools (.xmpuzzle), inside
    the folder; an existing file only with `overwrite` (the page asks first)."""
    body = await _body(request)
    rel = str(body.get("path", ""))
    path = bench.folder.resolve(rel, must_exist=False)
    if not path.name.lower().endswith(PUZZLE_SUFFIXES):
        raise CpsolveError("a puzzle is saved as .yaml, .yml or .xmpuzzle", where=rel, field="path")
    if path.exists() and not body.get("overwrite"):
        return JSONResponse({"exists": True, "path": rel}, status_code=409)
    text = str(body.get("yaml", ""))

    def work() -> dict[str, Any]:
        puzzle = cpsolve.puzzle_from_yaml(text, rel)  # the file must load again: checked before writing
        data = cpsolve.export(puzzle, "xmpuzzle") if path.suffix.lower() == ".xmpuzzle" else text.encode("utf-8")
        if not path.parent.is_dir():
            raise CpsolveError("no such folder", where=rel, field="path")
        temp = path.with_name(f".{path.name}.cpsolve-app.tmp")
        temp.write_bytes(data)
        os.replace(temp, path)  # whole or not at all: a failed write leaves the old file
        return {"path": rel, "bytes": len(data)}

    return JSONResponse(await run_in_threadpool(work))


async def library(bench: Workbench, request: Request) -> Response:
    """A shape library on a grid (`cpsolve.shapes`): polycubes and burr sticks, polyiamonds, flat ball pieces,
    cubes made blocks of cells."""
    name, grid_name = request.query_params.get("name", ""), request.query_params.get("grid", "cubes")
    if grid_name not in GRIDS:
        raise CpsolveError(f"unknown grid {grid_name[:40]!r} (known: {', '.join(GRIDS)})", field="grid")
    known = cpsolve.shape_libraries(grid_name)
    sticks = grid_name in ("cubes", "rhombic", "tetra-octa")
    if name not in known and not (sticks and re.fullmatch(r"kaenel:\d{1,5}(,\d{1,5}){0,63}", name)):
        raise CpsolveError(f"unknown library {name[:40]!r} on the {grid_name} grid (known: {', '.join(known)}"
                           f"{', kaenel:N' if sticks else ''})", field="library")
    shapes = await run_in_threadpool(lambda: cpsolve.shapes(name, grid=grid_name))
    return JSONResponse({"shapes": {k: [list(c) for c in v] for k, v in shapes.items()}})


NEW_FORMS = ("empty", "box", "pyramid", "tetrahedron")


async def new_puzzle(bench: Workbench, request: Request) -> Response:
    """The editor's model of a new puzzle on a grid: its container empty, a box of the grid's cells (on the
    rhombic and tetra-octa grids a box of whole cubes, each the block of cells it becomes), or on the
    sphere grid a square pyramid or a tetrahedron of balls, built by the loader as a file's `box:`,
    `pyramid:` or `tetrahedron:` is."""
    body = await _body(request)
    grid_name, form = str(body.get("grid") or "cubes"), str(body.get("form") or "empty")
    if grid_name not in GRIDS:
        raise CpsolveError(f"unknown grid {grid_name[:40]!r} (known: {', '.join(GRIDS)})", field="grid")
    if form not in NEW_FORMS or (form in ("pyramid", "tetrahedron") and grid_name != "spheres"):
        raise CpsolveError(f"no container {form[:20]!r} on the {grid_name} grid", field="form")
    size = body.get("size") or [3, 3, 3]
    if not isinstance(size, list) or len(size) != 3:
        raise CpsolveError("the size is [x, y, z]", field="size")
    n = [whole_number(v, "size") for v in size]
    if not all(1 <= v <= 40 for v in n):
        raise CpsolveError("each side of the size is 1 to 40", field="size")

    def work() -> dict[str, Any]:
        cells: list[list[int]] = []
        if form != "empty":
            solids = cpsolve.grid_solids(grid_name)
            block, first = solids["block"], next(iter(solids["cells"]))
            assert isinstance(block, int)
            spec = {"box": [v * block for v in n]} if form == "box" else {form: n[0]}
            most = (n[0] * n[1] * n[2] * block ** 3) if form == "box" else n[0] ** 3
            one = {"cells": [[int(v) for v in first.split(",")]], "count": {"min": 0, "max": most}}
            probe = cpsolve.puzzle_from_dict({"name": "probe", "grid": grid_name, "container": spec,
                                              "pieces": {"A": one}}, "new puzzle")
            cells = [list(c) for c in probe.container]
        return {"grid": grid_name, "name": "untitled", "kind": "pieces", "container": {"cells": cells, "optional": [],
                "colors": []}, "pieces": [], "keep": {}}

    return JSONResponse(await run_in_threadpool(work))


# --- runs ---------------------------------------------------------------------------------------------


async def start_run(bench: Workbench, request: Request) -> Response:
    body = await _body(request)
    action = str(body.get("action", ""))
    if action not in ACTIONS:
        raise CpsolveError(f"unknown action {action[:40]!r}", field="action")
    opts = body.get("options") or {}
    if not isinstance(opts, dict):
        raise CpsolveError("options is not an object", field="options")
    spec: dict[str, Any] = {"action": action, "options": _options(opts)}
    text = body.get("yaml")
    if body.get("file") is not None:  # a solution of a file in the folder (disassemble, explain)
        spec["file"] = str(bench.folder.resolve(str(body["file"])))
        spec["problem"] = whole_number(body["problem"], "problem") if body.get("problem") is not None else None
        spec["index"] = whole_number(body.get("index") or 0, "index")
    elif body.get("pieces") is not None:
        spec["pieces"] = {str(k): cell_list(v, "pieces") for k, v in dict(body["pieces"]).items()}
    if text is None and "file" not in spec:
        raise CpsolveError("no puzzle: draw one or open a file", field="yaml")
    out = None
    if text is not None:
        text = str(text)
        puzzle = await run_in_threadpool(cpsolve.puzzle_from_yaml, text, "workbench.yaml")  # refused here at once
        spec["yaml"] = text
        spec["where"] = str(body.get("where") or f"{puzzle.name}.yaml")[:200]
        if action == "enumerate":
            out = _solutions_name(puzzle.name)
            spec["out"] = out
    title = f"{action} {spec.get('where') or Path(str(spec.get('file'))).name}"
    job = await bench.jobs.start(spec, title, out)
    return JSONResponse(job.snapshot())


def _options(opts: Mapping[str, Any]) -> dict[str, Any]:
    """The run's options, each checked as the command line checks it."""
    out: dict[str, Any] = {}
    if opts.get("workers"):
        out["workers"] = whole_number(opts["workers"], "workers")
        if not 1 <= out["workers"] <= limits.MAX_WORKERS:
            raise CpsolveError(f"must be 1 to {limits.MAX_WORKERS}", field="workers")
    if opts.get("timeout"):
        try:
            out["timeout"] = limits.check_timeout(float(opts["timeout"]), "timeout")
        except (TypeError, ValueError):
            raise CpsolveError("not a number of seconds", field="timeout") from None
    if opts.get("limit"):
        out["limit"] = max(whole_number(opts["limit"], "limit"), 0)
    for flag in ("resume", "disassemble"):
        out[flag] = bool(opts.get(flag))
    if "symmetry_breaking" in opts:
        out["symmetry_breaking"] = bool(opts["symmetry_breaking"])
    if opts.get("change"):
        out["change"] = str(opts["change"])[:20]
    if opts.get("backend"):
        out["backend"] = str(opts["backend"])[:20]
    return out


def _solutions_name(name: str) -> str:
    """`cpsolve enumerate`'s default solutions file for a puzzle name (a safe file name, in the folder)."""
    stem = SAFE_NAME.sub("_", name).lstrip(".-")[:100] or "puzzle"
    return f"{stem}.solutions.jsonl"


async def job_list(bench: Workbench, request: Request) -> Response:
    return JSONResponse({"jobs": [j.snapshot() for j in bench.jobs.jobs.values()]})


async def job_detail(bench: Workbench, request: Request) -> Response:
    return JSONResponse(bench.jobs.get(request.path_params["id"]).snapshot(full=True))


async def job_stop(bench: Workbench, request: Request) -> Response:
    job = bench.jobs.get(request.path_params["id"])
    bench.jobs.stop(job)
    return JSONResponse(job.snapshot())


# --- solutions: the list, the 3-D view, exports ------------------------------------------------------------


@dataclass
class Listing:
    """What the list of a file shows of each solution (its number, class, id, assemblies, level, pieces),
    read as far as the file is written; `offset`: where the next reading starts."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    offset: int = 0
    stamp: tuple[int, int] = (0, 0)


def _rows(bench: Workbench, rel: str, problem: int | None) -> list[dict[str, Any]]:
    """The list of the solutions a file holds. A solutions file is read here line by line as JSON, and
    only what was added since the last reading (a run writing it); each solution is checked against its
    puzzle by `cpsolve.source` when it is shown (reading and checking all 19,186 of Bedlam's took 40 s with
    the machine's load at 14, for a list). A BurrTools file's stored assemblies come from `cpsolve.source`."""
    path = bench.folder.resolve(rel)
    stat = path.stat()
    key = f"{rel}\0{problem}"
    listing = bench.cache.pop(key, None) or Listing()
    bench.cache[key] = listing
    while len(bench.cache) > CACHED_FILES:  # the least recently read file goes first
        del bench.cache[next(iter(bench.cache))]
    stamp = (stat.st_size, stat.st_mtime_ns)
    if listing.stamp == stamp:
        return listing.rows
    if stat.st_size == 0:  # a run has just opened it: nothing yet
        return []
    if path.suffix.lower() == ".xmpuzzle":
        src = cpsolve.source(str(path), problem)
        listing.rows = [_row(n, s.index, s.id, s.assemblies, s.burrtools_level, s.pieces)
                        for n, s in enumerate(src.stored())]
        listing.stamp = stamp
        return listing.rows
    if stat.st_size < listing.offset:  # rewritten (sorted, or a new run): from the start
        listing.rows, listing.offset = [], 0
    if listing.offset == 0 and cpsolve.source(str(path)).kind != "solutions":
        raise CpsolveError("is not a solutions file: it holds no solutions", where=rel)
    with path.open("rb") as fh:
        fh.seek(listing.offset)
        data = fh.read()
    end = data.rfind(b"\n") + 1  # whole lines only: the last may be half written
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            listing.rows.append(_row(len(listing.rows), record.get("class"), record.get("id"),
                                     record.get("assemblies"), record.get("level"), record["pieces"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise CpsolveError(f"line {len(listing.rows) + 1} is not a solution line", where=rel) from None
    listing.offset += end
    listing.stamp = stamp
    return listing.rows


def _row(n: int, index: object, id: object, assemblies: object, level: object, pieces: Mapping[str, Any]
         ) -> dict[str, Any]:
    return {"n": n, "index": index if isinstance(index, int) else n, "id": id if isinstance(id, str) else None,
            "assemblies": assemblies if isinstance(assemblies, int) else None,
            "level": level if isinstance(level, str) else None,
            "pieces": sorted({str(k).split("#")[0] for k in pieces})}


async def solutions(bench: Workbench, request: Request) -> Response:
    q = request.query_params
    rel = q.get("file", "")
    problem = whole_number(q["problem"], "problem") if q.get("problem") else None
    start, count = whole_number(q.get("start", "0"), "start"), min(whole_number(q.get("limit", "200"), "limit"), 1000)
    level, piece = q.get("level") or None, q.get("piece") or None

    def work() -> dict[str, Any]:
        with bench.reading:  # one reading of a file at a time: the others then find it read
            held = _rows(bench, rel, problem)
        levels: dict[str, int] = {}
        names: set[str] = set()
        rows = []
        for row in held:
            lv = row["level"] or "-"
            levels[lv] = levels.get(lv, 0) + 1
            names.update(row["pieces"])
            if (level is None or lv == level) and (piece is None or piece in row["pieces"]):
                rows.append(row)
        return {"file": rel, "total": len(held), "matched": len(rows), "rows": rows[start:start + count],
                "levels": dict(sorted(levels.items(), key=lambda kv: _level_key(kv[0]))), "pieces": sorted(names)}

    return JSONResponse(await run_in_threadpool(work))


def _level_key(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(".")) if re.fullmatch(r"\d+(\.\d+)*", text) else (-1,)


def _chosen(bench: Workbench, body: Mapping[str, Any]) -> list[cpsolve.Solution]:
    """The solutions a request names: `n` (or a list `many`) of a file, or the cells of one found by solve."""
    if body.get("pieces") is not None:
        puzzle = cpsolve.puzzle_from_yaml(str(body.get("yaml", "")), "workbench.yaml")
        pieces = {str(k): tuple(cell_list(v, "pieces")) for k, v in dict(body["pieces"]).items()}
        return [cpsolve.Solution(puzzle.name, tuple(pieces.items()), puzzle=puzzle)]
    problem = whole_number(body["problem"], "problem") if body.get("problem") is not None else None
    rel = str(body.get("file", ""))
    path = bench.folder.resolve(rel)
    src = cpsolve.source(str(path), problem if path.suffix.lower() == ".xmpuzzle" else None)
    wanted = body.get("many") if body.get("many") is not None else [body.get("n") or 0]
    if not isinstance(wanted, list) or not 1 <= len(wanted) <= 400:
        raise CpsolveError("name 1 to 400 solutions", field="many")
    numbers = [whole_number(n, "n") for n in wanted]
    if min(numbers) < 0:
        raise CpsolveError(f"there is no solution number {min(numbers)}", where=rel)
    low, high = min(numbers), max(numbers)
    if high - low < SPAN:  # one reading of the lines between: each is checked against its puzzle, as
        span = src.stored(high - low + 1, start=low)  # every command reads it
        return [span[k - low] for k in numbers if k - low < len(span)]
    return [s for k in numbers for s in src.stored(1, start=k)]


async def view(bench: Workbench, request: Request) -> Response:
    body = await _body(request)

    def work() -> dict[str, object]:
        data: dict[str, object] = cpsolve.view_data(_chosen(bench, body)[0], disassembly=True)
        return data

    return JSONResponse(await run_in_threadpool(work))


EXPORTS = {"png": "image/png", "svg": "image/svg+xml", "sheet": "image/png", "pieces-png": "image/png",
           "stl": "model/stl", "pieces-stl": "application/zip"}


async def export(bench: Workbench, request: Request) -> Response:
    """A download of what is shown: the solution as PNG or SVG (exploded or not, from the view chosen),
    a contact sheet, the pieces as a picture, the assembly as one STL, the pieces as a zip of STLs."""
    body = await _body(request)
    kind = str(body.get("format", ""))
    if kind not in EXPORTS:
        raise CpsolveError(f"unknown export {kind[:20]!r} (known: {', '.join(EXPORTS)})", field="format")
    view_name = str(body.get("view") or "front-right")

    def work() -> tuple[bytes, str]:
        chosen = _chosen(bench, body)
        first = chosen[0]
        stem = SAFE_NAME.sub("_", first.name).lstrip(".-")[:80] or "solution"
        which = f"{stem}-{first.index}" if first.index is not None else stem
        if kind in ("png", "svg"):
            return cpsolve.draw(first, "png" if kind == "png" else "svg", view=view_name,
                                exploded=bool(body.get("exploded"))), f"{which}.{kind}"
        if kind == "sheet":
            return cpsolve.draw(chosen, "png", view=view_name), f"{stem}-sheet.png"
        if first.puzzle is None:
            raise CpsolveError("the puzzle of these solutions is not known", where=first.name)
        if kind == "pieces-png":
            return cpsolve.draw(first.puzzle, "png", view=view_name), f"{stem}-pieces.png"
        if kind == "stl":
            return cpsolve.assembly_stl(first), f"{which}-assembled.stl"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in cpsolve.export(first.puzzle, "stl").items():
                archive.writestr(name, data)
        return buffer.getvalue(), f"{stem}-pieces.zip"

    data, name = await run_in_threadpool(work)
    return Response(data, media_type=EXPORTS[kind],
                    headers={"content-disposition": f'attachment; filename="{name}"'})


# --- running it -------------------------------------------------------------------------------------------


def listen(host: str, port: int | None) -> socket.socket:
    """A listening socket on `host`: `port`, or the first free one of DEFAULT_PORTS (then any free one).

    Bound here rather than by uvicorn, so that the Host allow-list knows the port before serving."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    tries = [port] if port is not None else [*DEFAULT_PORTS, 0]
    for i, candidate in enumerate(tries):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, candidate))
        except OSError as exc:
            sock.close()
            if i == len(tries) - 1:
                raise CpsolveError(f"cannot listen on {host} port {candidate}: {exc.strerror or exc}",
                                   field="--port" if port is not None else "--host", exit_code=1) from None
            continue
        sock.listen(128)
        sock.set_inheritable(False)
        return sock
    raise AssertionError("unreachable")


DEFAULT_PORTS = range(8765, 8775)
"""Tried in turn when no --port is given (a second workbench takes the next one)."""


def serve(folder: Folder, start: dict[str, Any], sock: socket.socket, token: str,
          ready: Callable[[str], object]) -> None:
    """Serve on `sock` until Ctrl-C (or SIGTERM); `ready` gets the address with its token once it listens.
    Stopping stops every run as Ctrl-C stops a command, and waits for each to write what it found."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = create_app(folder, start, token, host, port)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", ws="none",
                            timeout_graceful_shutdown=3, server_header=False, proxy_headers=False)
    server = uvicorn.Server(config)

    async def main() -> None:
        task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            ready(address(host, port, token))
        await task

    asyncio.run(main())


def address(host: str, port: int, token: str) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"
