"""Every file a command writes goes through here: one check of the destination, and one way to write it.

The check (`check_destination`) is made before any work, so that a bad destination costs nothing: a
destination that is one of the command's own inputs (the puzzle file, a solutions file it reads;
also through a symbolic or hard link), an SQLite database or its side files (a journal: days of
work), a folder, or a file in a folder that is not there is refused in one line, exit status 2, and
left exactly as it was. Any other existing file is the user's choice to replace.

The writing (`replacing`, `write_file`) replaces a regular file only once the new content is whole:
it is written under a fresh name made exclusively (`mkstemp`: no fixed name that a planted link
could redirect, no clash between two runs) in the destination's own folder, synced, given the mode
the file had, and renamed over it. A failure or a kill in the middle leaves the old file and no
temporary. A pipe or a device (`--out fifo`, `/dev/stdout`) is written in place: it cannot be
renamed over, and there is nothing in it to keep. A write that fails is one line, exit status 1 (a
failure while running), for every command.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from ..errors import CpsolveError
from ..search.journal_file import MAGIC, same_file

WRITE_FAILED = 1
"""The exit status of a write that fails once the work is done (a full disk, a lost permission): a failure
while running. A destination refused by `check_destination` before any work is bad input (2)."""

_WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
"""The first 4 bytes of an SQLite write-ahead log (`NAME-wal`, where a journal's last commits are)."""


def check_destination(path: Path, inputs: Sequence[tuple[Path | str, str]] = (), option: str = "--out") -> None:
    """Refuse, before anything is read or written, a destination that would destroy what it replaces or
    cannot be written at all (see the module's docstring). `inputs`: the command's input files (and its
    other outputs), each with what it is ("the puzzle file"); `option` names the destination in the message."""
    where = str(path)
    for source, what in inputs:
        if same_file(path, Path(source)):
            raise CpsolveError(f"is also {what}: choose another {option}", where=where)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not os.path.isdir(path.parent or "."):
            raise CpsolveError("cannot write the file: No such file or directory", where=where) from None
        return
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=where) from None
    if stat.S_ISDIR(mode):
        raise CpsolveError("cannot write the file: Is a directory", where=where)
    if stat.S_ISREG(mode):
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(MAGIC))
        except OSError as exc:
            raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=where) from None
        if head == MAGIC:
            raise CpsolveError(f"is an SQLite database (a cpsolve journal?): choose another {option}", where=where)
        if head[:4] in _WAL_MAGIC or _beside_a_database(path):
            raise CpsolveError(f"is a side file of an SQLite database (a journal's last commits): choose another "
                               f"{option}", where=where)


def _beside_a_database(path: Path) -> bool:
    """Whether `path` (or the file a link there leads to) is NAME-wal, NAME-shm or NAME-journal of an SQLite
    database NAME (the -shm file has no magic of its own)."""
    for named in dict.fromkeys((path, Path(os.path.realpath(path)))):
        for side in ("-wal", "-shm", "-journal"):
            if named.name.endswith(side):
                try:
                    with open(named.with_name(named.name.removesuffix(side)), "rb") as fh:
                        if fh.read(len(MAGIC)) == MAGIC:
                            return True
                except OSError:
                    pass
    return False


def in_place(path: Path) -> bool:
    """Whether `path` is written where it is rather than replaced: a pipe, a device, a socket, or a name under
    /dev or /proc (`/dev/stdout` leads to whatever the shell opened, which the command must write into)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) or os.path.abspath(path).startswith(("/dev/", "/proc/"))


@contextlib.contextmanager
def replacing(path: Path, mode: str = "wb") -> Iterator[IO]:  # type: ignore[type-arg]
    """`with replacing(path) as fh:` write the whole new content of `path` to `fh`; the file is replaced
    when the block ends without an exception, and left as it was otherwise (see the module's docstring).
    An OSError while writing is one line naming `path`, exit status 1."""
    if in_place(path):
        try:
            with open(path, mode, encoding=None if "b" in mode else "utf-8") as fh:
                yield fh
        except OSError as exc:
            raise cannot_write(path, exc) from None
        return
    # A link to the destination is kept a link: the file it leads to is replaced, in that file's folder.
    target = Path(os.path.realpath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".partial", dir=target.parent)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    done = False
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), _mode_for(target))
            os.fsync(fh.fileno())
        os.replace(temporary, target)
        done = True
    except OSError as exc:
        raise cannot_write(path, exc) from None
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def write_file(path: Path, data: bytes | str, inputs: Sequence[tuple[Path | str, str]] = (),
               option: str = "--out") -> None:
    """Check `path` (`check_destination`) and replace it with `data` (`replacing`), text as UTF-8."""
    check_destination(path, inputs, option)
    with replacing(path) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


def cannot_write(path: Path, exc: OSError) -> CpsolveError:
    """The one-line error of a write that failed (exit status 1)."""
    return CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path), exit_code=WRITE_FAILED)


def _mode_for(target: Path) -> int:
    """The permissions of the file being replaced, or those a new file gets (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


class LineFile:
    """A file of lines written as they come (`design`'s JSON lines), each flushed; opened, and so emptied,
    only when the first line comes: a run that fails or is stopped before it has a line to write leaves
    the file as it was. `close(touch=True)` empties it even so (a finished run that found nothing)."""

    def __init__(self, path: Path):
        self.path = path
        self._file: IO[str] | None = None

    def write(self, line: str) -> None:
        try:
            if self._file is None:
                self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._file.write(line)
            self._file.flush()
        except OSError as exc:
            raise cannot_write(self.path, exc) from None

    def close(self, touch: bool = False) -> None:
        try:
            if self._file is None and touch:
                self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
            if self._file is not None:
                self._file.close()
        except OSError as exc:
            raise cannot_write(self.path, exc) from None
