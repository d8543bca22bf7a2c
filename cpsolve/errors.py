"""The one exception type the command line turns into a one-line message and a non-zero exit."""

from __future__ import annotations


class CpsolveError(Exception):
    """A problem with the user's input, reported as `where: field: message` without a traceback.

    `exit_code` is 2 for bad input (files, options) and 1 for a failed check (backends disagree).
    """

    def __init__(self, message: str, *, where: str | None = None, field: str | None = None, exit_code: int = 2):
        super().__init__(message)
        self.message = message
        self.where = where
        self.field = field
        self.exit_code = exit_code

    def located(self, where: str) -> CpsolveError:
        """The same error, naming the file it came from (pure parsers don't know the file)."""
        return CpsolveError(self.message, where=self.where or where, field=self.field, exit_code=self.exit_code)

    def __str__(self) -> str:
        parts = [p for p in (self.where, self.field) if p]
        return ": ".join([*parts, self.message])


class CpsolveNotice(UserWarning):
    """Something the user should know that is not an error (which of two same-named puzzles was taken).

    Lower stages cannot print; they warn, and the command line shows the warning as one line."""


def unreadable(path: object, exc: OSError | UnicodeDecodeError) -> CpsolveError:
    """The one-line error for a file that cannot be read: missing, a directory, not UTF-8."""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return CpsolveError(f"cannot read the file: {reason}", where=str(path))
