"""Regenerate the README's pictures (docs/images/) and the example page (docs/example.html).

    python docs/make_pictures.py

Every file comes from a `cpsolve` command, printed as it runs, so each picture can be made again
by hand. The models are solved afresh (the first solution each backend finds is deterministic);
the example page holds every Soma solution up to rotation and reflection.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
IMAGES = DOCS / "images"

def cpsolve(*args: str) -> None:
    print("cpsolve " + " ".join(shlex.quote(a) for a in args), flush=True)
    subprocess.run([sys.executable, "-m", "cpsolve", *args], check=True, cwd=DOCS.parent)


def rel(path: Path) -> str:
    return str(path.relative_to(DOCS.parent))


def main() -> None:
    from cpsolve.puzzle.catalog import builtin_names

    IMAGES.mkdir(exist_ok=True)
    for model in builtin_names():
        cpsolve("draw", model, "-o", rel(IMAGES / f"{model}.png"))
    cpsolve("draw", "soma", "--pieces", "-o", rel(IMAGES / "soma-pieces.png"))
    cpsolve("draw", "bedlam", "--pieces", "-o", rel(IMAGES / "bedlam-pieces.png"))
    cpsolve("draw", "bedlam", "--exploded", "-o", rel(IMAGES / "bedlam-exploded.png"))
    cpsolve("draw", "snake-27", "--pieces", "-o", rel(IMAGES / "snake-27-chain.png"))
    with tempfile.TemporaryDirectory() as tmp:
        solutions = Path(tmp) / "soma.jsonl"
        cpsolve("enumerate", "soma", "--out", str(solutions), "--quiet", "--workers", "1")
        cpsolve("draw", str(solutions), "--sheet", "12", "-o", rel(IMAGES / "soma-sheet.png"))
        cpsolve("view", str(solutions), "-o", rel(DOCS / "example.html"))


if __name__ == "__main__":
    main()
