"""The one folder the workbench may touch: the folder it was started in, and nothing outside it.

Every path the page names goes through `Folder.resolve`: a relative path, no `..`, no NUL, and once
symbolic links are followed still inside the folder (a link to /etc/passwd placed in the folder is
refused like the path itself). Names that reach the file system are the page's, so they are checked
here, once, rather than by each route.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import CpsolveError

PUZZLE_SUFFIXES = (".yaml", ".yml", ".xmpuzzle")
"""Files the workbench opens as puzzles (recognised by content afterwards, as every command does)."""
LISTED_SUFFIXES = (*PUZZLE_SUFFIXES, ".jsonl")
"""Files listed in the open dialog: puzzles and solutions files."""
MAX_LISTED = 2000
"""Files listed at most: a home folder started by mistake must not make the page wait."""
MAX_DEPTH = 3
"""Sub-folder levels listed."""


@dataclass(frozen=True)
class Folder:
    root: Path
    """The folder, resolved (symbolic links followed) once at start."""

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> Folder:
        return cls(Path(path).resolve(strict=True))

    def resolve(self, name: str, *, must_exist: bool = True) -> Path:
        """The file `name` (relative, with `/`), checked to lie inside the folder; CpsolveError otherwise."""
        if not isinstance(name, str) or not name or "\0" in name or "\\" in name:
            raise CpsolveError("not a file name", where=repr(name)[:80], field="path")
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or name.startswith("~"):
            raise CpsolveError("outside the folder the workbench was started in", where=name[:200], field="path")
        target = (self.root / rel).resolve(strict=False)
        if not target.is_relative_to(self.root):
            raise CpsolveError("outside the folder the workbench was started in", where=name[:200], field="path")
        if must_exist and not target.is_file():
            raise CpsolveError("no such file", where=name[:200], field="path")
        return target

    def relative(self, path: Path) -> str:
        """A path inside the folder as the page names it."""
        return path.resolve().relative_to(self.root).as_posix()

    def listing(self) -> list[dict[str, object]]:
        """Puzzle and solutions files in the folder and its sub-folders (MAX_DEPTH levels, MAX_LISTED
        files at most), hidden ones and links leading out left aside."""
        out: list[dict[str, object]] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            here = Path(dirpath)
            depth = len(here.relative_to(self.root).parts)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and depth < MAX_DEPTH)
            for name in sorted(filenames):
                if name.startswith(".") or not name.lower().endswith(LISTED_SUFFIXES):
                    continue
                path = here / name
                try:
                    if not path.resolve().is_relative_to(self.root):
                        continue
                    size = path.stat().st_size
                except OSError:
                    continue
                out.append({"path": path.relative_to(self.root).as_posix(), "size": size,
                            "kind": "solutions" if name.lower().endswith(".jsonl") else "puzzle"})
                if len(out) >= MAX_LISTED:
                    return out
        return out
