"""The CP-SAT backend's own shortcuts: reading solutions from text, the implied count, the search order."""

from __future__ import annotations

import pytest

from cpsolve.api import puzzle_from_yaml
from cpsolve.search.backends import get_backend
from cpsolve.search.enumeration import enumerate_classes, prepare
from cpsolve.search.settings import RunSettings

pytest.importorskip("ortools")

from cpsolve.search.backends.cpsat import _implied_count, _rows_reader, cell_order, decision_order  # noqa: E402

SINGLE = """
name: l-box
container:
  box: [2, 4, 4]
pieces:
  L: {cells: [[0,0,0], [1,0,0], [2,0,0], [0,1,0]], count: 8}
"""
MIXED = """
name: mixed
container:
  box: [3, 2, 2]
pieces:
  L: {cells: [[0,0,0], [1,0,0], [2,0,0], [0,1,0]], count: 2}
  I: {cells: [[0,0,0], [1,0,0]], count: 2}
"""


class _Values(list):
    """A stand-in for the response's repeated field: its text is what the test says."""

    def __init__(self, values: list[int], text: str | None = None):
        super().__init__(values)
        self.text = text

    def __str__(self) -> str:
        return self.text if self.text is not None else super().__str__()


class _Callback:
    def __init__(self, values: _Values):
        self.response_proto = type("Response", (), {"solution": values})()


def test_rows_reader_reads_the_text_and_falls_back_to_the_values():
    values = [0, 1, 0, 0, 1, 1, 0]
    read = _rows_reader(len(values))
    assert read(_Callback(_Values(values))) == (1, 4, 5)
    # Another text form (not "[0, 1, ...]") is never parsed: the values are read one by one.
    assert read(_Callback(_Values(values, text="RepeatedScalar(0 1 0 0 1 1 0)"))) == (1, 4, 5)
    assert _rows_reader(1)(_Callback(_Values([1]))) == (0,)


def _problem(text: str):
    return prepare(puzzle_from_yaml(text)).problem


def test_only_a_single_piece_type_filling_the_container_drops_its_count():
    assert _implied_count(_problem(SINGLE)) == 0
    assert _implied_count(_problem(MIXED)) is None


@pytest.mark.parametrize("text", [SINGLE, MIXED])
def test_counts_agree_with_dlx(text):
    prepared = prepare(puzzle_from_yaml(text))
    got = {name: enumerate_classes(prepared, RunSettings(get_backend(name))).tally for name in ("cpsat", "dlx")}
    assert (got["cpsat"].weighted, got["cpsat"].unique_symmetry) == (got["dlx"].weighted, got["dlx"].unique_symmetry)
    assert got["cpsat"].weighted > 0


def test_decision_order_lists_every_row_once_forced_cells_first():
    problem = _problem(MIXED)
    forced = (0,)
    order = cell_order(problem, forced)
    assert sorted(order) == list(range(problem.n_cells))
    assert set(order[:len(problem.rows[0].cells)]) == set(problem.rows[0].cells)
    assert sorted(decision_order(problem, forced)) == list(range(len(problem.rows)))
