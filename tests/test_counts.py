"""The reference counts, through the command line, with and without symmetry breaking."""

import json

import pytest
from conftest import run_cli, run_json

REFERENCE = {
    "soma": (11520, 480, 240),
    "cubissimo": (6624, 276, 138),
}


@pytest.mark.parametrize("backend", ["cpsat", "dlx"])
@pytest.mark.parametrize("model", sorted(REFERENCE))
@pytest.mark.parametrize("breaking", ["--symmetry-breaking", "--no-symmetry-breaking"])
@pytest.mark.slow
def test_reference_counts(model, breaking, backend, tmp_path):
    out = tmp_path / "solutions.jsonl"
    result = run_json("enumerate", model, breaking, "--backend", backend, "--out", str(out), "--quiet")
    total, rotation, symmetry = REFERENCE[model]
    assert (result["total"], result["unique_rotation"], result["unique_symmetry"]) == (total, rotation, symmetry)
    assert result["puzzle"] == model and result["backend"] == backend and result["complete"]
    assert result["seconds"] > 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    # The file alone reproduces the three numbers: one line per class, each knowing its size.
    assert len(lines) == symmetry
    assert sum(r["assemblies"] for r in lines) == total
    assert sum(2 if r["mirror_distinct"] else 1 for r in lines) == rotation


def test_symmetry_breaking_is_reported_and_reduces_work():
    with_key = run_json("enumerate", "soma", "--no-save", "--quiet")
    without = run_json("enumerate", "soma", "--no-save", "--quiet", "--no-symmetry-breaking")
    assert with_key["symmetry_breaking"].startswith("key piece ")
    assert without["symmetry_breaking"] == "no symmetry breaking"
    assert without["solutions_found"] == 11520
    assert with_key["solutions_found"] < 11520 / 10


def test_key_piece_override_changes_nothing_but_the_work(write_puzzle):
    from cpsolve.puzzle.catalog import models_dir

    text = (models_dir() / "soma.yaml").read_text() + "key_piece: V\n"
    path = write_puzzle(text)
    result = run_json("enumerate", str(path), "--no-save", "--quiet")
    assert (result["total"], result["unique_rotation"], result["unique_symmetry"]) == REFERENCE["soma"]
    assert result["symmetry_breaking"].startswith("key piece V")
    # V's placements have non-trivial stabilisers: some classes are met twice, and still counted once.
    assert result["solutions_found"] > 480


def test_limit_stops_after_n_classes(tmp_path):
    out = tmp_path / "s.jsonl"
    result = run_json("enumerate", "soma", "--limit", "5", "--out", str(out), "--quiet")
    assert result["unique_symmetry"] == 5 and result["status"] == "stopped" and not result["complete"]
    assert len(out.read_text().splitlines()) == 5


def test_human_summary_names_counts_backend_and_file(tmp_path):
    proc = run_cli("enumerate", "cubissimo", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "6624 solutions in all, 276 up to rotation, 138 up to rotation and reflection" in proc.stdout
    assert "backend dlx" in proc.stdout  # auto picks the exact-cover engine for packings
    assert "written to cubissimo.solutions.jsonl" in proc.stdout
    assert len((tmp_path / "cubissimo.solutions.jsonl").read_text().splitlines()) == 138
