"""Fast start (issue 27 item 4): what a short command imports, and the fast paths that keep it short.

The CPU figures are benchmarks/startup.py's (results/startup.md); these tests hold the import set and
that every fast path gives what the full path gives: the BurrTools reader (no pydantic, no PyYAML)
the puzzle of the YAML file `cpsolve import` writes, the snapshot of the built-in models what their
YAML files give, and the option converter what typer's own (pydantic) converter gives.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO, one_line, run_cli

from cpsolve import limits
from cpsolve.errors import CpsolveError
from cpsolve.puzzle import catalog
from cpsolve.puzzle.burrtools import parse_xmpuzzle, puzzle_data, read_xmpuzzle
from cpsolve.puzzle.catalog import SNAPSHOT, builtin_names, models_dir, read, snapshot_text
from cpsolve.puzzle.loader import parse_puzzle_text
from cpsolve.puzzle.model import puzzle_from_plain, puzzle_plain, to_puzzle
from cpsolve.puzzle.writer import puzzle_text

HEAVY = {"pydantic", "numpy", "ortools", "pysat", "dask", "distributed", "PIL", "starlette", "uvicorn"}
"""What no short command imports: each is for another task (YAML validation, pictures, other engines, a cluster,
the workbench's web server)."""
PELIKAN = EXAMPLES / "PelikanBurr.xmpuzzle"


def imported(*args: str) -> set[str]:
    """The top-level packages `python -X importtime -m cpsolve ARGS` imports (it must succeed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "cpsolve", *args], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", proc.stderr, re.MULTILINE)
    assert "cpsolve.api" in names  # the import list was read: the command went through the API
    return {n.split(".")[0] for n in names}


@pytest.mark.skipif(not PELIKAN.exists(), reason=f"BurrTools example files not found at {EXAMPLES}")
def test_disassembling_a_burrtools_file_imports_neither_pydantic_nor_yaml():
    got = imported("disassemble", os.path.relpath(PELIKAN, REPO))  # ../shared/... beside a checkout
    assert got & (HEAVY | {"yaml"}) == set()
    # options with values are converted without pydantic too (typer's own converter loads it)
    got = imported("disassemble", str(PELIKAN), "--index", "0", "--max-states", "100000", "--json")
    assert got & (HEAVY | {"yaml"}) == set()


def test_enumerating_a_built_in_model_imports_no_pydantic():
    assert imported("enumerate", "soma", "--no-save", "-q") & HEAVY == set()
    # a run that writes no journal does not load SQLite either; the version lookup is for `backends`
    assert imported("enumerate", "soma", "--no-save", "-q", "--workers", "1") & (HEAVY | {"sqlite3"}) == set()


# ------------------------------------------------------------------------------------------ BurrTools


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"BurrTools example files not found at {EXAMPLES}")
def test_burrtools_puzzle_is_the_puzzle_its_imported_yaml_file_loads_as():
    """The reader builds the puzzle without the YAML schema; `cpsolve import` writes a YAML file from the
    same shapes (`puzzle_data`): loaded through the full reader, it is the same puzzle, in every problem
    of every example on the cube grid."""
    compared = 0
    for path in sorted(EXAMPLES.glob("*.xmpuzzle")):
        bf = parse_xmpuzzle(path)
        if bf.grid != 0:
            continue
        for problem in range(len(bf.problems)):
            direct = read_xmpuzzle(path, problem)
            text = puzzle_text(puzzle_data(bf, problem))
            imported_ = to_puzzle(parse_puzzle_text(text, "imported.yaml"), origin=str(path))
            assert direct == imported_, (path.name, problem)
            compared += 1
    assert compared >= 6


BAD = ('<puzzle version="2"><shapes>{shapes}</shapes><problems><problem><shapes>{parts}</shapes><result id="{result}"/>'
       '</problem></problems></puzzle>')


@pytest.mark.parametrize(("shapes", "parts", "result", "message"), [
    ('<voxel x="3" y="1" z="1" type="0">#_#</voxel><voxel x="2" y="1" z="1" type="0">##</voxel>',
     '<shape id="0" count="1"/>', 1, "pieces.S1: the piece is not face-connected"),
    ('<voxel x="1" y="1" z="1" type="0">#</voxel><voxel x="3" y="1" z="1" type="0">###</voxel>',
     '<shape id="0" min="3" max="2"/>', 1, "pieces.S1.count: min 3 is larger than max 2"),
    ('<voxel x="1" y="1" z="1" type="0">#</voxel><voxel x="3" y="1" z="1" type="0">###</voxel>',
     '<shape id="0" min="-1" max="3"/>', 1, "pieces.S1.count: min -1 is negative"),
    ('<voxel x="1" y="1" z="1" type="0">#</voxel><voxel x="2" y="1" z="1" type="0">__</voxel>',
     '<shape id="0" count="1"/>', 1, "container.layers: the drawing has no '#' or '+' cells"),
    ('<voxel x="1" y="1" z="1" type="0">#</voxel><voxel x="3" y="1" z="1" type="0">###</voxel>',
     '<shape id="0" count="2"/>', 1, "pieces: total piece volume 2 (2x1) differs from the container volume 3"),
])
def test_burrtools_files_get_the_checks_of_a_yaml_file(tmp_path, shapes, parts, result, message):
    """The same checks and messages as a YAML file (`checks.py`, `model.packing`), naming the field."""
    path = tmp_path / "bad.xmpuzzle"
    path.write_text(BAD.format(shapes=shapes, parts=parts, result=result), encoding="utf-8")
    with pytest.raises(CpsolveError) as err:
        read_xmpuzzle(path)
    assert str(err.value) == f"{path}: {message}"
    one_line(run_cli("show", str(path)), 2, message)


# ------------------------------------------------------------------------------------------ built-in models


def test_the_snapshot_of_the_built_in_models_is_current():
    """Regenerate with `python -m cpsolve.puzzle.catalog` after editing a model."""
    shipped = (REPO / "cpsolve" / "models" / SNAPSHOT).read_text(encoding="utf-8")
    assert shipped == snapshot_text(), "run: python -m cpsolve.puzzle.catalog"
    assert set(json.loads(shipped)) == set(builtin_names())


@pytest.mark.parametrize("model", builtin_names())
def test_a_built_in_model_from_the_snapshot_is_the_model_its_file_gives(model):
    path = models_dir() / f"{model}.yaml"
    full = catalog._read_yaml(path, str(path), model, True)
    fast = read(model)
    assert fast == full and fast.origin == full.origin
    assert puzzle_from_plain(json.loads(json.dumps(puzzle_plain(full))), full.origin) == full


def test_a_stale_snapshot_or_other_limits_read_the_file(monkeypatch):
    """The snapshot stands for the file only while it holds the file's checksum, and the limits are the
    defaults (every built-in model is within them): a limit applies to a built-in model as to a file."""
    soma = read("soma")
    stale = {name: {**entry, "crc32": 0} for name, entry in catalog._snapshot().items()}
    made = []
    monkeypatch.setattr(catalog, "_snapshot", lambda: stale)
    monkeypatch.setattr(catalog, "_read_yaml", lambda *a: made.append(a) or soma)
    assert read("soma") is soma and len(made) == 1
    monkeypatch.undo()
    limits.configure(max_cells=26)
    try:
        with pytest.raises(CpsolveError, match="soma.yaml: container.box: the container's volume is 27, over the "
                                               "limit of 26"):
            read("soma")
    finally:
        limits.configure()
    assert dataclasses.replace(read("soma"), origin=None) == dataclasses.replace(soma, origin=None)


# ------------------------------------------------------------------------------------------ option values


def test_plain_option_values_are_converted_as_typer_converts_them():
    """cli/coerce.py converts plain values without pydantic; every value gives what typer's converter
    gives (the same value, or the same message), plain or not."""
    typer_core = pytest.importorskip("typer.core")
    coercion = pytest.importorskip("typer._coercion")
    from typer._click.exceptions import BadParameter
    from typer.models import OptionInfo

    from cpsolve.cli.coerce import install

    install()
    ours, theirs = typer_core.build_runtime_param, coercion.build_runtime_param
    assert ours is not theirs

    def convert(build, annotation, info, value):
        descriptor = coercion.resolve_type_descriptor(annotation, info)
        param = type("Param", (), {"type_descriptor": descriptor, "multiple": False, "nargs": 1})()
        try:
            return "value", build(descriptor)._coerce_value(value, param=param, ctx=None)
        except BadParameter as exc:
            return "error", exc.message

    cases = [
        (int, OptionInfo(min=1, max=256), ["1", "256", "0", "257", "-3", "x", "1.5", " 3", "+3", "1_0", "٣", "9" * 30,
                                           5, True, 2.0]),
        (int, OptionInfo(), ["0", "-12", "007"]),
        (float, OptionInfo(min=0.1), ["0.1", "2.50", "0.05", "1e3", "abc", "nan", "inf", "1.", ".5", 3, 2.5]),
        (float, OptionInfo(), ["nan", "-0.0"]),
        (str, OptionInfo(), ["a", "", 3]),
        (bool, OptionInfo(), [True, False, "yes"]),
        (Path, OptionInfo(), ["x.yaml", "", "/tmp"]),
        (list[str], OptionInfo(), [("a", "b"), [], ("a", 3)]),
    ]
    for annotation, info, values in cases:
        for value in values:
            want = convert(theirs, annotation, info, value)
            got = convert(ours, annotation, info, value)
            assert repr(got) == repr(want) and type(got[1]) is type(want[1]), (annotation, value)


def test_bad_option_values_keep_typers_messages():
    one_line(run_cli("enumerate", "soma", "--workers", "0"), 2,
             "Invalid value for '--workers' / '-w': Input should be greater than or equal to 1")
    one_line(run_cli("enumerate", "soma", "--limit", "two"), 2,
             "Invalid value for '--limit': Input should be a valid integer, unable to parse string as an integer")
