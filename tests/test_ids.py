"""Stable solution ids (issue 27): each class's id is a digest of its canonical form, so "solution N" (which
depends on the order a run finds classes in) is not the only name a solution has. The same class has the
same id in every run, with any number of workers, any backend, with or without symmetry breaking, after a
resume; `--id PREFIX` finds it in show, draw, view and disassemble; `enumerate --sort` writes the
canonical order, the same bytes from any two complete runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import REPO, one_line, run_cli, run_json

import cpsolve

AL = REPO.parent / "shared" / "burrtools-examples" / "AlPackino.xmpuzzle"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def ids_of(path: Path) -> list[str]:
    return [r["id"] for r in lines(path)]


def enumerate_to(path: Path, model: str, *options: str) -> dict:
    return run_json("enumerate", model, "--out", str(path), "-q", *options)


@pytest.fixture(scope="module")
def soma_one(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ids") / "one.jsonl"
    enumerate_to(path, "soma", "-w", "1")
    return path


@pytest.mark.slow
def test_ids_are_the_same_in_every_run(soma_one, tmp_path):
    one = ids_of(soma_one)
    assert len(one) == 240 and len(set(one)) == 240 and all(re.fullmatch("[0-9a-f]{16}", i) for i in one)
    two = tmp_path / "two.jsonl"
    enumerate_to(two, "soma", "-w", "2")
    assert set(ids_of(two)) == set(one)
    for options in (["--no-symmetry-breaking", "-w", "1"], ["-b", "sat", "-w", "1"]):
        other = tmp_path / "other.jsonl"
        enumerate_to(other, "soma", *options)
        assert set(ids_of(other)) == set(one), options
    # The same class, the same id: each id goes with one canonical representative, whatever found it.
    by_id = {r["id"]: r["pieces"] for r in lines(soma_one)}
    assert all(by_id[r["id"]] == r["pieces"] for r in lines(two))
    found = cpsolve.solve(cpsolve.load("soma"))
    assert found is not None and found.id in by_id


def test_ids_survive_a_stop_and_a_resume(soma_one, tmp_path):
    """Classes a resumed run gets back from its journal carry the ids of the classes they are."""
    path = tmp_path / "r.jsonl"
    stopped = enumerate_to(path, "soma", "-w", "2", "--limit", "30")
    assert stopped["status"] == "stopped" and stopped["journal"] is not None
    resumed = enumerate_to(path, "soma", "-w", "2", "--resume")
    assert resumed["complete"] and set(ids_of(path)) == set(ids_of(soma_one))


@pytest.mark.slow
def test_sorted_files_are_the_same_bytes(tmp_path):
    """Two complete runs with --sort, one worker against two: byte-identical files, `class` the rank in id order."""
    for model in ("soma", "t-tetracube-6x6x2"):
        one, two = tmp_path / f"{model}-1.jsonl", tmp_path / f"{model}-2.jsonl"
        enumerate_to(one, model, "-w", "1", "--sort")
        enumerate_to(two, model, "-w", "2", "--sort")
        assert one.read_bytes() == two.read_bytes()
        records = lines(one)
        assert [r["class"] for r in records] == list(range(len(records)))
        assert [r["id"] for r in records] == sorted(r["id"] for r in records)


def test_an_incomplete_run_is_not_sorted(tmp_path):
    path = tmp_path / "s.jsonl"
    proc = run_cli("enumerate", "soma", "--limit", "20", "--sort", "--out", str(path), "-q", "--no-journal")
    assert proc.returncode == 0 and "not sorted: the run is incomplete" in proc.stdout
    assert [r["class"] for r in lines(path)] == list(range(20))


@pytest.mark.slow
def test_id_prefixes_find_the_solution(soma_one, tmp_path):
    records = lines(soma_one)
    target = records[17]
    prefix = target["id"][:6]
    proc = run_cli("show", str(soma_one), "--id", prefix)
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"soma, solution 17 (id {target['id']}; its class: 48 solutions in all)")
    assert run_json("disassemble", str(soma_one), "--id", prefix)["id"] == target["id"]
    proc = run_cli("draw", str(soma_one), "--id", prefix, "-o", str(tmp_path / "s.svg"))
    assert proc.returncode == 0 and "soma, solution 17" in (tmp_path / "s.svg").read_text()
    proc = run_cli("view", str(soma_one), "--id", prefix, "-o", str(tmp_path / "s.html"))
    assert proc.returncode == 0 and "1 solution," in proc.stderr
    # A model: its classes are found first, and the id is the class's, whatever order they come in.
    proc = run_cli("show", "soma", "--id", prefix)
    assert proc.returncode == 0 and f"(id {target['id']};" in proc.stdout.splitlines()[0]
    # A file from before ids: worked out from its puzzle.
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "id"}) + "\n" for r in records))
    proc = run_cli("show", str(old), "--id", prefix)
    assert proc.returncode == 0 and f"(id {target['id']};" in proc.stdout.splitlines()[0]


@pytest.mark.slow
def test_id_mistakes_are_one_line(soma_one, tmp_path):
    one_line(run_cli("show", str(soma_one), "--id", "xyz"), 2, "--id: an id is 4 to 16 hex digits")
    one_line(run_cli("show", str(soma_one), "--id", "12"), 2, "--id: an id is 4 to 16 hex digits")
    missing = next(f"{n:04x}" for n in range(1 << 16) if not any(i.startswith(f"{n:04x}") for i in ids_of(soma_one)))
    one_line(run_cli("show", str(soma_one), "--id", missing), 2, f"no solution's id starts with {missing}")
    one_line(run_cli("show", str(soma_one), "--id", "abcd", "--index", "2"), 2, "--id: give an index or an id")
    records = lines(soma_one)
    twins = tmp_path / "twins.jsonl"
    twins.write_text("".join(json.dumps({**r, "id": i}) + "\n" for r, i in zip(
        records, ("abcd000000000000", "abcd111111111111"), strict=False)))
    one_line(run_cli("show", str(twins), "--id", "abcd"), 2, "abcd starts the ids of solutions 0 and 1 (ids "
                                                            "abcd000000000000 and abcd111111111111): give more digits")


def test_a_forged_or_doubled_id_is_not_taken(soma_one, tmp_path):
    """Issue 35: `show --id` with an ambiguous or forged id took the first match. A line whose id is not its
    solution's is refused (the file was edited); two lines that match are ambiguous even with the same id."""
    records = lines(soma_one)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps({**r, "id": "abcd111111111111"} if r is records[5] else r) + "\n"
                              for r in records))
    one_line(run_cli("show", str(forged), "--id", "abcd1"), 2, "solution 5 holds id abcd111111111111, but its "
             f"solution's id is {records[5]['id']} (the file was edited): not taken")
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_text("".join(json.dumps(r) + "\n" for r in [*records, records[7]]))
    one_line(run_cli("show", str(doubled), "--id", records[7]["id"]), 2,
             f"starts the ids of solutions 7 and {len(records)} (the same id)")
    assert run_cli("show", str(soma_one), "--id", records[7]["id"]).returncode == 0


@pytest.mark.slow
def test_an_id_among_a_puzzles_classes_is_looked_for_within_the_deadline_and_in_bounded_memory(tmp_path):
    """`show t-tetracube-6x6x6 --id abcd` held every class it found (2.5 GB) and had no deadline: the classes
    are looked at as they come, and --timeout ends it (exit 3) saying how far it got."""
    from test_limits import run_in_1gb

    proc, seconds, peak = run_in_1gb("show", "t-tetracube-6x6x6", "--id", "abcd", "--timeout", "3", cwd=tmp_path)
    assert seconds < 30 and peak < 500  # MB, with its search process
    one_line(proc, 3, "t-tetracube-6x6x6: the deadline passed after ", "solution classes, before every class was "
             "seen (")


@pytest.mark.skipif(not AL.exists(), reason=f"BurrTools example files not found at {AL.parent}")
def test_a_burrtools_assembly_has_its_class_id(tmp_path):
    path = tmp_path / "al.jsonl"
    enumerate_to(path, str(AL), "-w", "1")
    (class_id,) = ids_of(path)
    proc = run_cli("show", str(AL), "--id", class_id[:5])
    assert proc.returncode == 0 and f"(id {class_id};" in proc.stdout.splitlines()[0]


def test_the_compiled_id_is_its_python_twin():
    """class_id runs compiled where `_canon.c` is built; python_class_id is the definition it must match, on
    real keys (soma's classes, with copies numbered: the T-tetracube slab) and on edge cases."""
    from cpsolve.problem.canonical import class_id, python_class_id
    from cpsolve.puzzle.catalog import load
    from cpsolve.search.backends.dlx import DlxBackend
    from cpsolve.search.enumeration import prepare

    keys: list[bytes] = [b"", b"\x00", bytes(range(256))]
    for model in ("soma", "t-tetracube-6x6x2"):
        prepared = prepare(load(model))
        problem, canon = prepared.broken.problem, prepared.canonicalizer
        found: list[tuple[int, ...]] = []
        DlxBackend().search(problem, found.append)
        keys += sorted({canon.forms(problem, rows).symmetry_key for rows in found})
    assert len(keys) == 3 + 240 + 10
    assert all(class_id(k) == python_class_id(k) for k in keys)
    assert len({python_class_id(k) for k in keys}) == len(keys)
    assert python_class_id(b"") == "efd01f60ba992926"  # the definition, pinned: ids must not change


@pytest.mark.slow
@pytest.mark.parametrize("model", ["conway-5x5x5", "snake-3x3x3-unique"])
def test_sorted_files_are_the_same_bytes_on_workers_and_a_cluster(model, tmp_path):
    """Issue 39: each class is written by whichever process meets its representative, so one worker, two, and
    a Dask local:2 cluster write the same classes with the same ids and, sorted, the same bytes; Conway's
    mirror pairs and the palindromic snake's two numberings of each assembly included."""
    pytest.importorskip("distributed")
    runs = {"one": ["-w", "1"], "two": ["-w", "2"], "cluster": ["--cluster", "local:2"]}
    files = {}
    for name, options in runs.items():
        files[name] = tmp_path / f"{name}.jsonl"
        out = enumerate_to(files[name], model, *options, "--sort")
        assert out["complete"], (name, out)
    assert files["one"].read_bytes() == files["two"].read_bytes() == files["cluster"].read_bytes()
    assert len(lines(files["one"])) == {"conway-5x5x5": 572, "snake-3x3x3-unique": 1}[model]
