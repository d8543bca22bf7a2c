"""A run's memory depends on the puzzle, not on how long it runs (issue 39).

The 27x27x27 box of 6,561 rods opens a class with about every solution it finds, hundreds a second,
for as long as it is let run: when the tally remembered each class's canonical form it grew 60 MB a
second and ran out of a 4 GB address space in 49 s. Now nothing is remembered per class.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

RODS = ("name: rods\ncontainer: {box: [27, 27, 27]}\npieces:\n"
        "  R: {cells: [[0,0,0], [1,0,0], [2,0,0]], count: 6561}\n")
LIMIT = 1 << 30
"""The address space each process of the run may take (RLIMIT_AS, inherited by its forked worker)."""


def tree_rss_mb(pid: int) -> tuple[float, int]:
    """The RSS of a process and its descendants, summed (MB), and how many there are."""
    total, todo, seen = 0, [pid], 0
    while todo:
        p = todo.pop()
        seen += 1
        try:
            with open(f"/proc/{p}/status") as fh:
                total += next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo += [int(x) for x in fh.read().split()]
        except (OSError, StopIteration):
            pass
    return total / 1024, seen


@pytest.mark.slow
def test_the_rods_run_in_bounded_memory(tmp_path: Path) -> None:
    """15 s under a 1 GB address-space limit: the run ends by its deadline (exit 3, not out of memory), its
    peak RSS stays under 300 MB, and the peak of its last third is within 20 % of its first third's (the
    search's, once the worker is there): flat, not growing with the classes found. (At the 250 KB a class
    that memory once grew by, the thousands of classes of 15 s would pass the 1 GB limit; results/
    memory-rods.md has the 120 s run.)"""
    (tmp_path / "rods.yaml").write_text(RODS)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    proc = subprocess.Popen([sys.executable, "-m", "cpsolve", "enumerate", "rods.yaml", "--no-save", "-q", "-w", "1",
                             "--timeout", "15", "--json"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=cap)
    samples: list[tuple[float, float]] = []  # (time, MB) while the worker runs
    while proc.poll() is None:
        mb, processes = tree_rss_mb(proc.pid)
        if processes > 1:
            samples.append((time.monotonic(), mb))
        time.sleep(0.05)
    out, err = proc.communicate()
    assert proc.returncode == 3, err  # cut by its deadline
    result = json.loads(out)
    assert result["status"] == "timeout" and result["unique_symmetry"] > 100, result
    assert len(samples) > 60, "the search ran for less than a few seconds"
    peak = max(mb for _, mb in samples)
    assert peak < 300, peak
    start, end = samples[0][0], samples[-1][0]
    third = (end - start) / 3
    first = max(mb for t, mb in samples if t <= start + third)
    last = max(mb for t, mb in samples if t >= end - third)
    assert last <= 1.2 * first, (first, last, result["unique_symmetry"])
