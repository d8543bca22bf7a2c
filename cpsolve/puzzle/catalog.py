"""Built-in models and the one entry point from "a name or a path" to a validated puzzle.

The readers are imported when a file of their kind is read: a BurrTools file needs neither PyYAML nor
pydantic, which take longer to load than the file takes to read. A built-in model needs neither
either: it is read from the snapshot `models/snapshot.json`, which holds each model as the full
reader makes it, beside a checksum of its YAML file. The snapshot is used only while it matches the
file and the limits are the defaults (under other limits a model is read as any file, so that they
apply to it); `python -m cpsolve.puzzle.catalog` writes it again, and a test holds that it is current.
"""

from __future__ import annotations

import json
import sys
import warnings
import zlib
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import CpsolveError, CpsolveNotice
from ..limits import Limits, active
from .model import Puzzle, puzzle_from_plain, puzzle_plain

SNAPSHOT = "snapshot.json"


def models_dir() -> Path:
    """The built-in puzzle files, shipped inside the package (`cpsolve/models/*.yaml`): a folder beside
    these modules (cpsolve is installed as files: its C extensions cannot be imported from a zip), so
    found without importlib.resources, which takes longer to import than a model takes to read."""
    return Path(__file__).parent.parent / "models"


def builtin_names() -> list[str]:
    return sorted(p.name.removesuffix(".yaml") for p in models_dir().iterdir() if p.name.endswith(".yaml"))


def resolve(model: str) -> Path:
    """A built-in model name, or a path to a puzzle file.

    A bare name that is a built-in model means the built-in model, even where a file or folder of
    that name exists here (a notice says so, and that `./NAME` means the local one): the same command
    should not change meaning with the folder it is run in.
    """
    path = Path(model)
    builtin = models_dir() / f"{model}.yaml"
    if model == path.name and builtin.is_file():
        if path.exists():
            kind = "folder" if path.is_dir() else "file"
            warnings.warn(CpsolveNotice(f"{model!r} is a built-in model and also a {kind} here: using the built-in "
                                        f"model (write ./{model} for the {kind})"), stacklevel=2)
        return builtin
    if path.is_dir():
        raise CpsolveError("is a directory, not a puzzle file", where=model)
    if path.exists() and not path.is_file():  # `show fifo` said "no such puzzle file"
        raise CpsolveError("is a pipe, a device or a socket, not a file: a puzzle or solutions file is read more than "
                           "once (to tell what it is, then to read it); save it to a file first", where=model)
    if path.suffix.lower() in (".yaml", ".yml", BURRTOOLS_SUFFIX) or path.exists():
        if not path.is_file():
            raise CpsolveError("no such puzzle file", where=model)
        return path
    raise CpsolveError(f"unknown model {model!r}: {_suggestion(model)}")


def _suggestion(model: str) -> str:
    """What to say of a name that is neither a file nor a built-in model: the built-in names it is close
    to (a typo: `bedlm`), else all of them."""
    import difflib

    names = builtin_names()
    close = difflib.get_close_matches(model, names, n=3, cutoff=0.6)
    if close:
        return f"did you mean {' or '.join(close)}? (not a file, and not a built-in model: `cpsolve list` shows them)"
    return f"not a file, and not a built-in model ({', '.join(names)})"


BURRTOOLS_SUFFIX = ".xmpuzzle"


def is_burrtools(path: Path) -> bool:
    """A BurrTools file: gzip or XML content, whatever its name (a YAML puzzle file is neither, and one named
    t.xmpuzzle was read as BurrTools; a file that cannot be read is said so by the reader it goes to)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(2)
            if head == b"\x1f\x8b":
                return True
            text = (head + fh.read(4096)).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return path.suffix.lower() == BURRTOOLS_SUFFIX
    return text.startswith(b"<")


def read(model: str, strict: bool = True) -> Puzzle:
    """Read and validate a puzzle (a built-in name, a YAML file, or a BurrTools `.xmpuzzle` file, whose
    first problem is taken), from the file every time; errors name the file. `strict`: as `model.to_puzzle`."""
    source = resolve(model)
    if is_burrtools(source):
        from .burrtools import read_xmpuzzle

        return read_xmpuzzle(source, strict=strict)
    where = str(source)
    if source == models_dir() / f"{model}.yaml" and (known := _snapshot_of(model, source.read_bytes(), where)):
        return known
    return _read_yaml(source, where, model, strict)


def _read_yaml(source: Path, where: str, model: str, strict: bool) -> Puzzle:
    from .loader import parse_puzzle_text, read_puzzle_text
    from .model import to_puzzle

    text = read_puzzle_text(source)
    spec = parse_puzzle_text(text, where)
    try:
        return to_puzzle(spec, origin=where, strict=strict)
    except CpsolveError as exc:
        raise exc.located(where) from None


def _snapshot_of(model: str, text: bytes, where: str) -> Puzzle | None:
    """The built-in model from the snapshot, if it holds this text of the model's file and the limits
    are the defaults; else None (read the file)."""
    entry = _snapshot().get(model)
    if entry is None or entry["crc32"] != zlib.crc32(text) or active() != Limits():
        return None
    return puzzle_from_plain(entry["puzzle"], origin=where)


@cache
def _snapshot() -> dict[str, dict[str, Any]]:
    try:
        snapshot: dict[str, dict[str, Any]] = json.loads((models_dir() / SNAPSHOT).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none shipped, or damaged: every model is read from its file
        return {}
    return snapshot


def snapshot_text() -> str:
    """What `models/snapshot.json` holds when current: each built-in model read from its YAML file by the
    full reader, one model a line."""
    lines = []
    for name in builtin_names():
        path = models_dir() / f"{name}.yaml"
        puzzle = _read_yaml(path, name, name, True)
        entry = {"crc32": zlib.crc32(path.read_bytes()), "puzzle": puzzle_plain(puzzle)}
        lines.append(f"{json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


load = cache(read)
"""`read`, each puzzle read once per process (the stages below the API load the same models again and again:
a report, a design search)."""


if __name__ == "__main__":  # python -m cpsolve.puzzle.catalog: write the snapshot of the built-in models again
    target = models_dir() / SNAPSHOT
    Path(str(target)).write_text(snapshot_text(), encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
