"""What every command of the `cpsolve` command line shares: the typer `app` they all register on,
`main()` (signals, one-line errors, exit codes), the global --max-* options, the --timeout deadline
and its alarm, output files, tables, and the argument and option types several commands take.

The program's entry point (`cpsolve/__main__.py`) answers stop signals before this package is
imported, so that a Ctrl-C while importing prints no traceback; `main()` then installs the run's own.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import os
import signal
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

STARTED = time.time()
"""When this command started (before its imports): `--timeout` is a deadline counted from here."""

import typer  # noqa: E402 - after STARTED, so that the deadline counts the imports too
from typer import Abort  # noqa: E402
from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from .. import limits  # noqa: E402
from ..errors import CpsolveError, CpsolveNotice  # noqa: E402
from .coerce import install  # noqa: E402

install()  # option values without pydantic (cli/coerce.py)

if TYPE_CHECKING:
    from ..api import Puzzle, Solution, Source

LIMITS_PANEL = "Limits (give them before the command)"
"""The help panel of the --max-* options: `cpsolve --help` lists them after the commands, which a reader
looks for first (nine limits, thirty lines, used rarely)."""


class _Group(TyperGroup):
    """cpsolve's command group: in plain help (no rich markup, see `app`), the options of LIMITS_PANEL go
    in their own section after the commands. Typer honours `rich_help_panel` only when it draws the
    help with rich, which would also read "[cluster]" in `pip install 'cpsolve[cluster]'` as markup."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        records: dict[bool, list[tuple[str, str]]] = {False: [], True: []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                records[getattr(param, "rich_help_panel", None) == LIMITS_PANEL].append(record)
        if records[False]:
            with formatter.section("Options"):
                formatter.write_dl(records[False])
        self.format_commands(ctx, formatter)
        if records[True]:
            with formatter.section(LIMITS_PANEL):
                formatter.write_dl(records[True])


app = typer.Typer(
    cls=_Group,
    help="Solve, count, take apart, draw and design polycube packing, burr and snake-cube puzzles; compare solver "
    "backends on the same model.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # plain help: rich's markup ate "[cluster]" of pip install 'cpsolve[cluster]'
)

VALUE_NAMES = {
    "model": "MODEL", "models": "MODEL", "source": "SOURCE", "file": "FILE", "cnf_file": "CNF",
    "solver_output": "ANSWER",
    "backend": "NAME", "backends": "NAMES", "encoding": "NAME", "out": "FILE", "output": "FILE", "journal": "FILE",
    "with_solutions": "FILE", "pool_file": "FILE", "out_dir": "FOLDER", "puzzles": "FOLDER", "timeout": "SECONDS",
    "min_level": "LEVEL", "cluster": "ADDRESS", "id": "PREFIX", "fmt": "FORMAT", "unit": "MM", "clearance": "MM",
    "view": "VIEW", "box": "AxBxC", "pool": "POOLS", "change": "KIND", "port": "PORT", "host": "HOST",
}
"""What each option's value is called in `--help` (typer would show `<int range>`, `<path>`, `{model}`);
any other option takes a number, N."""


def name_values(command: Any) -> Any:
    """The click command typer builds from `app`, each argument and valued option named from VALUE_NAMES
    (`--workers N`, `MODEL`), and flags shown without a value (typer 0.29 writes `<bool>` beside them).

    Typer also writes an argument as `{model}` in the usage line and `model <str>` in its list, which no
    setting changes: each argument's two display methods are replaced on the instance (`MODEL`, and
    `[MODEL]...` for an optional list). A default described in words (`show_default="all cores"`) is
    shown as written, where typer would put it in parentheses ("default: (all cores)")."""
    for param in command.params:
        if isinstance(getattr(param, "show_default", None), str):  # typer writes "default: (all cores)"
            param._get_default_string = lambda shown=param.show_default, **_: shown
        if param.metavar is None and not getattr(param, "is_flag", False):
            param.metavar = VALUE_NAMES.get(param.name, "N")
        if param.param_type_name == "argument":
            shown = param.metavar if param.required else f"[{param.metavar}]"
            shown += "..." if param.nargs != 1 else ""
            param._usage_display_name = lambda shown=shown: shown
            param.display_type_rich = lambda ctx: None
    for sub in getattr(command, "commands", {}).values():
        name_values(sub)
    return command

ModelArg = Annotated[str, typer.Argument(
    help="A built-in model name (see `cpsolve list`), or a puzzle file: YAML or BurrTools (.xmpuzzle; --problem N).")]
ProblemOpt = Annotated[int | None, typer.Option(
    "--problem", min=0, show_default="0", help="Which problem of a BurrTools file (0-based).")]
BackendOpt = Annotated[
    str,
    typer.Option("--backend", "-b",
                 help="Solver backend; auto = dlx for packings, sat for chains (`cpsolve backends`)."),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", "-w", min=1, max=limits.MAX_WORKERS, show_default="all cores",
                 help="Processes to split the search over."),
]
TimeoutOpt = Annotated[
    float | None, typer.Option(help="Give up after this many seconds.", callback=lambda v: _check_timeout(v))
]
RotationsOpt = Annotated[bool, typer.Option(
    "--rotations", help="Also turn pieces by quarter turns about lines parallel to x, y or z (exact cubes; "
                        "levels like 1R1: slides R turns; slower, in Python).")]
ClearanceOpt = Annotated[str | None, typer.Option(
    "--rotation-clearance", help="With --rotations: shrink each cube by this much on every side in the turn "
                                 "test (rounded edges; 0 to below 0.5, e.g. 0.05 or 1/20).", show_default="0")]
FindTimeoutOpt = Annotated[
    float | None, typer.Option(help="Give up finding the solution (of a puzzle, by --index or --id) after this many "
                                    "seconds (exit 3).", callback=lambda v: _check_timeout(v))
]


OPTION_NAMES = {"backend": "--backend", "backends": "--backends", "encoding": "--encoding", "format": "--format",
                "timeout": "--timeout", "unit": "--unit", "clearance": "--clearance", "solutions": "--with-solutions",
                "view": "--view", "cluster": "--cluster", "change": "--change", "resume": "--resume",
                "min_level": "--min-level", "disassemble": "--disassemble", "max_states": "--max-states",
                "problem": "--problem", "index": "--index", "id": "--id", "probes": "--probes",
                "guarantee": "--guarantee", "journal": "--journal", "walks": "--walks", "precision": "--precision",
                "seconds": "--walk-seconds", "walk_seconds": "--walk-seconds", "rotations": "--rotations",
                "rotation_clearance": "--rotation-clearance"}
"""Core errors name a concept; on the command line it is the option that sets it."""


TIMEOUT_EXIT = 3
"""The exit status of a run that --timeout cut short (incomplete counts, no solution found in time): not 0,
which says the answer is whole, nor 1, a failure; the summary or the line on stderr says what was found."""

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_stopped_by: list[int] = []
"""The stop signals received, so that the exit status says which (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM and SIGHUP end a run exactly like Ctrl-C: incomplete summary, consistent file, no orphans."""
    _stopped_by.append(signum)
    raise KeyboardInterrupt


_runs: list[float] = []
"""When each `main()` of this process started."""


def _notice(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
    """Warnings from the stages below (which never print) as one line on stderr."""
    from ..api import printable

    label = "note" if issubclass(category, CpsolveNotice) else "warning"
    print(f"cpsolve: {label}: {printable(str(message))}", file=sys.stderr)


def _exit_status(code: int) -> int:
    return 128 + _stopped_by[-1] if code == 130 and _stopped_by else code


def main() -> None:
    """Run the command line; every failure is one line on stderr and an exit status, never a traceback.

    2: bad input (a file, an option); 1: a failure while running; 130/143/129: stopped by Ctrl-C,
    SIGTERM, SIGHUP. Set CPSOLVE_DEBUG=1 to see the traceback of an unexpected error.
    """
    global STARTED
    if _runs:  # a later run in the same process (tests): its deadline counts from now, not from the import
        STARTED = time.time()
    _runs.append(STARTED)
    if sys.stdout is None:  # started with stdout closed (`>&-`): every command's answer would be lost
        print("cpsolve: error: standard output is closed", file=sys.stderr)
        sys.exit(1)
    if sys.stderr is None:
        _stderr_to_devnull()
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop)
    try:
        _main()
    finally:
        # The handlers from before the run again (the program's: end at once, quietly): a Ctrl-C while the
        # interpreter shuts down raised KeyboardInterrupt in its exit code ("Exception ignored in ...").
        for sig, handler in before.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def _main() -> None:
    """`main()` once its handlers are in place."""
    warnings.showwarning = _notice
    try:
        # inside the handlers: a stop signal while typer builds the command is a stop like any other
        command = name_values(typer.main.get_command(_lean(sys.argv[1:])))
        try:
            code = command(standalone_mode=False)
        finally:
            _alarm_off()
        _flush_stdout()
    except CpsolveError as exc:
        if exc.where is None and exc.field in OPTION_NAMES:
            exc = CpsolveError(exc.message, field=OPTION_NAMES[exc.field], exit_code=exc.exit_code)
        _fail(str(exc), exc.exit_code)
    except NoArgsIsHelpError as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except NoSuchOption as exc:
        globals_ = {opt for param in command.params for opt in param.opts}
        if exc.option_name.partition("=")[0] in globals_:
            name = exc.option_name.partition("=")[0]
            _fail(f"{name} is an option of cpsolve itself: give it before the command (cpsolve {name} N "
                  f"{sys.argv[1] if len(sys.argv) > 1 else 'COMMAND'} ...)", exc.exit_code)
        _fail(" ".join(exc.format_message().split()), exc.exit_code)
    except ClickException as exc:
        _fail(" ".join(exc.format_message().split()), exc.exit_code)
    except Abort:
        _fail("aborted", 1)
    except _PreparationDeadline as exc:
        _fail(str(exc), TIMEOUT_EXIT)
    except KeyboardInterrupt:
        sys.exit(_exit_status(130))
    except MemoryError:
        _fail("out of memory (a smaller puzzle, or the --max-* limits, keep a run within the machine's memory)", 1)
    except OSError as exc:
        if os.environ.get("CPSOLVE_DEBUG"):
            raise
        output = "cannot write the output: " if exc.errno in _OUTPUT_ERRORS else ""
        where = f"{exc.filename}: " if exc.filename else output
        _fail(f"{where}{exc.strerror or exc}", 1)
    except Exception as exc:
        if os.environ.get("CPSOLVE_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (CPSOLVE_DEBUG=1 shows where)", 1)
    sys.exit(_exit_status(code if isinstance(code, int) else 0))


def _lean(args: Sequence[str]) -> typer.Typer:
    """`app` with only the command that `args` name (after the global options), when they name one.

    Typer turns every registered command into a click command before it runs one, evaluating each
    function's annotations: for cpsolve's twenty commands that was a fifth of `cpsolve disassemble
    FILE`'s CPU time. The one command named is all that runs (its own --help included); `--version`
    alone needs none; without a command, or with one that is not registered (`cpsolve --help`, a typo
    that typer answers with the names it knows), the whole `app` is built."""
    name = _command_name(args)
    if name is None and "--version" in args and "--help" not in args:  # answered before any command is read
        lean = copy.copy(app)
        lean.registered_commands, lean.registered_groups = [], []
        return lean
    commands = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(getattr(c.callback, "__name__", ""))) == name]
    groups = [g for g in app.registered_groups if isinstance(g.name, str) and g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    lean = copy.copy(app)
    lean.registered_commands, lean.registered_groups = commands, groups
    return lean


def _command_name(args: Sequence[str]) -> str | None:
    """The first argument that is neither a global option nor its value (`--max-cells 5`), if any."""
    wanted = False
    for arg in args:
        if wanted:
            wanted = False
        elif arg.startswith("-"):
            wanted = arg.startswith("--max-") and "=" not in arg
        else:
            return arg
    return None


def _stderr_to_devnull() -> None:
    """Started with stderr closed (`2>&-`): progress, notes and errors go nowhere, and the answer on stdout
    is still given. File descriptor 2 gets /dev/null, not just sys.stderr: left free, it would be the
    next file opened (the solutions file), and whatever writes to descriptor 2 (a worker, a library)
    would write into it."""
    fd = os.open(os.devnull, os.O_WRONLY)
    if fd != 2:
        os.dup2(fd, 2)
        os.close(fd)
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - the process's stderr, open until it ends


_OUTPUT_ERRORS = {errno.EPIPE, errno.ENOSPC, errno.EIO}
"""stdout (or stderr) closed early, or on a full or failing device."""


def _flush_stdout() -> None:
    """Write what is buffered for stdout now, while a failure (a closed pipe, a full disk) can still be
    reported in one line, rather than by the interpreter's shutdown."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _fail(message: str, code: int) -> None:
    # A file can put anything in a name or a key ("\r", "\n", escape sequences): shown escaped, so
    # that the message stays one line and cannot rewrite the terminal.
    from ..api import printable

    message = printable(message)
    try:
        sys.stderr.write(f"cpsolve: error: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        _flush_stdout()
    except (OSError, ValueError):
        # stdout is closed or full: what it still holds cannot be written; point it at /dev/null so
        # that the interpreter's final flush does not print a traceback of its own.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    sys.exit(_exit_status(code))


def _version(asked: bool) -> None:
    if asked:
        import cpsolve

        typer.echo(f"cpsolve {cpsolve.__version__}")
        raise typer.Exit()


def _limit(name: str, help: str) -> Any:
    """A --max-* option: its environment variable, its default from `limits.Limits`, in LIMITS_PANEL."""
    return typer.Option(min=1, envvar=f"CPSOLVE_{name.upper()}", show_default=str(getattr(limits.Limits, name)),
                        rich_help_panel=LIMITS_PANEL, help=help)


@app.callback()
def _limits(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_version,
                                          help="Print cpsolve's version and exit.")] = False,
    max_cells: Annotated[int | None, _limit("max_cells", "Largest container (cells; a chain's cubes).")] = None,
    max_placements: Annotated[int | None, _limit(
        "max_placements", "Most placements, estimated before they are generated.")] = None,
    max_file_bytes: Annotated[int | None, _limit("max_file_bytes", "Largest puzzle file.")] = None,
    max_yaml_nodes: Annotated[int | None, _limit(
        "max_yaml_nodes", "Largest YAML document, aliases expanded (nodes + characters).")] = None,
    max_yaml_depth: Annotated[int | None, _limit("max_yaml_depth", "Deepest YAML nesting.")] = None,
    max_drawing: Annotated[int | None, _limit(
        "max_drawing", "Largest bounding box (cells) drawn, shown, put on a page or written as voxels.")] = None,
    max_pixels: Annotated[int | None, _limit("max_pixels", "Largest PNG picture, in pixels.")] = None,
    max_literals: Annotated[int | None, _limit(
        "max_literals", "Largest SAT model (literals of its clauses), estimated before it is built.")] = None,
    max_disassembly_pieces: Annotated[int | None, _limit(
        "max_disassembly_pieces", "Most pieces of an assembly taken apart.")] = None,
) -> None:
    """Solve, count and compare solvers on polycube packing and snake-cube puzzles.

    The --max-* options bound what a puzzle file may ask for, checked before anything is built; they go
    before the command (cpsolve --max-cells N enumerate ...). Exit status: 0 done, 1 a failure (a file that
    cannot be written included), 2 bad input (an output refused before the run included), 3 cut short by
    --timeout, 130/143/129 stopped by Ctrl-C, SIGTERM, SIGHUP.
    """
    limits.configure(max_cells=max_cells, max_placements=max_placements, max_file_bytes=max_file_bytes,
                     max_yaml_nodes=max_yaml_nodes, max_yaml_depth=max_yaml_depth, max_drawing=max_drawing,
                     max_pixels=max_pixels, max_literals=max_literals, max_disassembly_pieces=max_disassembly_pieces)


def _check_timeout(value: float | None) -> float | None:
    """`--timeout` is a deadline: a finite number of seconds > 0, and not absurdly far."""
    return limits.check_timeout(value, "--timeout")


class _PreparationDeadline(Exception):
    """Not a CpsolveError, so that no layer on the way adds a file name to it: the file is not at fault."""


def _alarm_at_deadline(timeout: float | None) -> None:
    """Loading and preparing a big puzzle (placements, symmetry) can outlast `--timeout` before any
    search starts; an alarm at the deadline ends that in one line. `search_begins` once the search begins.

    The alarm rings again every ALARM_REPEAT seconds after the deadline: an exception raised by a
    signal handler while Python runs a destructor or a weakref callback is printed and dropped, and a
    single alarm that landed there let a 27x27x27 preparation run on for minutes (seen once in a few
    runs of tests/test_deadline.py)."""
    global _preparing
    _preparing = None
    if timeout is None:
        return
    message = f"--timeout: the deadline ({timeout:g} s) passed while preparing the puzzle, before the search began"

    def ring(_signum: int, _frame: object) -> None:
        raise _PreparationDeadline(message)

    left = _remaining(timeout) or 1e-3
    _preparing = (time.time() + left, message)
    signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, left, ALARM_REPEAT)


_preparing: tuple[float, str] | None = None
"""The preparation deadline (a `time.time()` value) and its message, while an alarm is set for it."""


def search_begins() -> None:
    """The search starts (the API's `on_start`): the preparation's alarm is turned off, and if its deadline
    has passed all the same, the command ends as the alarm would have ended it. The alarm's handler runs
    only between two Python instructions: one that came during a long step in C (placements, the key
    choice) was still waiting when the search began, and a run meant to end at 1 s went on past 9 s."""
    global _preparing
    _alarm_off()
    deadline, _preparing = _preparing, None
    if deadline is not None and time.time() >= deadline[0]:
        raise _PreparationDeadline(deadline[1])


ALARM_REPEAT = 0.2
"""Seconds between the preparation deadline's alarms once it has passed."""


def _alarm_off() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)


def _remaining(timeout: float | None) -> float | None:
    """What is left of `--timeout` after importing, loading and preparing: the deadline counts from
    the command's start, so that `--timeout S` ends the whole command within S + about a second."""
    return None if timeout is None else max(timeout - (time.time() - STARTED), 1e-3)


OldOutputOpt = Annotated[Path | None, typer.Option("--output", hidden=True, help="The former spelling of --out.")]
"""`--output`, which draw, view, import and export took before every command named its output `-o/--out`:
still accepted, not shown."""


def out_given(out: Path | None, output: Path | None) -> Path | None:
    """The file `-o/--out` names, or its former spelling `--output`; both at once must agree."""
    if out is not None and output is not None and out != output:
        raise CpsolveError("--out and --output are one option (--output is its former spelling): give it once",
                           field="--out")
    return out if out is not None else output


IdOpt = Annotated[str | None, typer.Option(
    "--id", help="The solution whose id starts with this (4 to 16 hex digits, as a solutions file's `id`); "
                 "instead of --index.")]


def _which(solution: Solution, index: int | None, id: str | None) -> str:
    """How a title names the solution shown: by the index asked for, its class, or as found."""
    if id is not None:
        return "solution" if solution.index is None else f"solution {solution.index}"
    return "a solution" if index is None and solution.index is None else f"solution {index or 0}"


def puzzle_of(text: str, problem: int | None, command: str) -> Puzzle:
    """The puzzle a command's MODEL names (`cpsolve.source`: recognised by content); a solutions file is
    refused in one line that names the command and the puzzle the file holds solutions of."""
    from .. import api

    return api.source(text, problem).require_puzzle(command)


def three_counts(total: object, rotation: object, reflection: object) -> str:
    """The three counts in the words every command uses for them (`enumerate`'s summary, `count`,
    `journal`): "N solutions in all, N up to rotation, N up to rotation and reflection"."""
    return f"{total} solutions in all, {rotation} up to rotation, {reflection} up to rotation and reflection"


def inputs_of(src: Source, *more: tuple[str | Path, str]) -> list[tuple[str | Path, str]]:
    """The files a command reads through its MODEL or FILE argument (and `more`), which none of its outputs may
    replace (`api.check_output`): the file itself, and the puzzle file behind it (a built-in model's, the one
    a solutions file names)."""
    reads = f"the {src.what.removeprefix('a ')} this command reads"
    out: list[tuple[str | Path, str]] = [] if src.path is None else [(src.given, reads)]
    try:
        puzzle = src.puzzle
    except CpsolveError:  # said when the command needs it; here only what it reads matters
        puzzle = None
    if puzzle is not None and puzzle.origin:
        out.append((puzzle.origin, "the puzzle file this command reads"))
    return out + list(more)


def check_output(path: Path, inputs: Sequence[tuple[str | Path, str]], option: str) -> None:
    """`api.check_output`, for the command modules that import nothing of the API by name (explain)."""
    from .. import api

    api.check_output(path, inputs, option)


def write_output(path: Path, data: bytes | str, inputs: Sequence[tuple[str | Path, str]], option: str) -> None:
    """`api.write_output`, likewise."""
    from .. import api

    api.write_output(path, data, inputs, option)


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """"1 assembly", "2 assemblies": a count with its noun, singular for one."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def default_workers() -> int:
    """All cores this process may use (cgroup/affinity aware where the platform says)."""
    return limits.usable_cores()


def _open_to_append(path: Path | None, inputs: Sequence[tuple[str | Path, str]] = ()) -> IO[str] | None:
    """Open an output file that rows are added to (`compare --out`) before the run, checked as every output is
    (`api.check_output`), so that a bad destination fails before any work is done; nothing in it is lost."""
    if path is None:
        return None
    from .. import api

    api.check_output(path, inputs)
    try:
        return path.open("a", encoding="utf-8")
    except OSError as exc:
        raise CpsolveError(f"cannot write the file: {exc.strerror or exc}", where=str(path)) from None


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], width: int | None = None) -> None:
    """Columns two spaces apart; with `width`, each line cut to it (the last column ends in "…")."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        line = "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip()
        typer.echo(line if width is None or len(line) <= width else line[:max(width - 1, 0)] + "…")

