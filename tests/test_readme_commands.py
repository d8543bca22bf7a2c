"""Every shell command in README.md and docs/*.md runs, as written, and does what the text says.

The commands are *extracted* from the documents, so a command added to the README is run by this test
without anyone editing it, and a command taken out is no longer run. What counts as a command:

- every line of a fenced block marked ```sh, ```bash or ```shell (a line ending in `\\` continues on
  the next; in a ```console block, the lines that start with `$ `);
- every inline code span that starts with `cpsolve `, `python `, `python3 ` or `pip ` (a `\\|` in a
  table cell is a `|`).

Each command is then exactly one of:

- **run** as written by bash (trailing `# comment` included), in a fresh folder, with `cpsolve` a
  script that runs `python -m cpsolve` of this tree and `python` this interpreter; the lines of one
  fenced block run in order in one folder, since later lines read what earlier ones wrote. It must
  exit 0, or with the status `STATUS` gives (a documented refusal), and print what `EXPECT` says the
  text promises. BurrTools example files (`SolidSixPieceBurrs.xmpuzzle`, ...) are linked into the
  folder from `../shared/burrtools-examples` (beside the repository root), and `../shared/...` paths
  resolve there; when that folder is absent the command is skipped, saying so.
- **shortened**: `SHORTENED` runs another command in its place (a timeout, a subset of models), with
  the reason, for commands that take minutes;
- **not run**: `EXCEPTIONS` gives the reason (pip installs, the suite itself, servers, benchmarks
  that rewrite the measured tables);
- a `cpsolve` **template** (a placeholder such as `MODEL`, `FILE`, `N`, `[--index N]`, `a|b`, `...`) or
  a **mention** (a command named without the argument it needs, as in "`cpsolve enumerate` confirms"):
  not run, but its command and every option it names must exist in the command line (the text could
  otherwise keep documenting a renamed flag); where the text gives figures for a template's
  instances (the BurrTools table), `INSTANCES` runs them. Any other command with a placeholder
  (`python benchmarks/peers.py --peers DIR`) must be in `EXCEPTIONS`, or the test fails.

Every command ends in exactly one of these kinds; a key of `SHORTENED`, `EXCEPTIONS`, `EXPECT`,
`STATUS`, `SETUP`, `INSTANCES` or `SLOW` that no document holds any more fails the test, so those tables
cannot go stale (`SLOW` names the blocks that take seconds: the slow tier runs them, not the fast
one); and every file a run command names as its output (`-o`, `--out`, `--page`, `--picture`, `>`)
must exist afterwards, not empty. Scripts named by commands that are not run
(`python benchmarks/X.py`) must exist.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main
from conftest import EXAMPLES

from cpsolve.cli import app

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
"""The README and every page of the documentation site (docs/, its folders included)."""
SHELL_BLOCKS = {"sh", "bash", "shell", "console"}
COMMAND_STARTS = ("cpsolve ", "python ", "python3 ", "pip ")
MODELS = REPO / "cpsolve" / "models"

# What a shortened run stands in for: README command (its `# comment` left out) -> (what runs, why).
SHORTENED: dict[str, tuple[str, str]] = {
    "pip install . && cpsolve enumerate soma": (
        "cpsolve enumerate soma", "the install is CI's own (`pip install -e '.[test]'` in .ci/run)"),
    "cpsolve enumerate MODEL --cluster tcp://HOST:8786": (
        "cpsolve enumerate soma --cluster local:2 -q",
        "no scheduler runs in the test: a local Dask cluster of two stands in for HOST"),
    "cpsolve enumerate big.yaml --workers 16": (
        "cpsolve enumerate big.yaml --workers 2 --limit 100",
        "'killed after a day': big.yaml is Bedlam renamed (5 s of search), stopped after 100 classes (a cut that"
        " does not depend on the machine's speed, as a --timeout would), on 2 cores"),
    "cpsolve enumerate big.yaml --workers 16 --resume": (
        "cpsolve enumerate big.yaml --workers 2 --resume", "CI has 2 cores"),
    "cpsolve report": (
        "cpsolve report soma cubissimo t-tetracube-6x6x2 snake-27 --out-dir out",
        "every model is about 20 s of CPU; tests/test_library.py checks every model's counts"),
    "cpsolve enumerate bedlam --out bedlam.jsonl -q && cpsolve view bedlam.jsonl -o bedlam.html": (
        "cpsolve enumerate bedlam --out bedlam.jsonl -q --limit 300 && cpsolve view bedlam.jsonl -o bedlam.html",
        "all 19,186 solutions are about 40 s of CPU (a fifth the search, the rest the page);"
        " tests/test_page.py's slow test makes a page of the same size"),
    "cpsolve report --backend auto --workers 2 --out-dir results": (
        "cpsolve report soma cubissimo conway-5x5x5 --backend auto --workers 2 --out-dir results",
        "every model is about 20 s of CPU; tests/test_library.py checks every model's counts"),
}

# Commands not run, each with its reason.
EXCEPTIONS: dict[str, str] = {
    "pip install -e '.[test]' && python -m pytest": "CI's own command (.ci/run; tests/test_docs.py checks that)",
    "pip install -e '.[test]'": "CI installs exactly this (.ci/run)",
    "pip install 'cpsolve[approx]'": "an install; the test extra CI installs holds the approx extra's packages",
    "python -X importtime": "a mention of Python's option; tests/test_startup.py runs it on the commands named",
    "pip install 'cpsolve[cluster]'": "CI installs dask through '.[test]'",
    "pip install 'cpsolve[stl]'": "an install; the test extra CI installs holds manifold3d, the stl extra's package",
    "pip install '.[bench]'": "xcover, a peer for benchmarks/peers.py only",
    "pip install nbconvert": "an optional tool to renew the notebook's stored outputs",
    "python3 -m venv .venv && . .venv/bin/activate": "CI makes its own virtual environment (.ci/run)",
    "python -m pytest": "the suite this test is part of",
    "python -m pytest tests/test_library.py": "part of the suite CI runs",
    "python -m pytest -m slow tests/test_page.py": "part of the suite CI runs (its slow tier)",
    "python -m pytest -s -m slow tests/test_page.py": "part of the suite CI runs (its slow tier)",
    'python -m pytest -m "slow or peer or browser"': "the slow, peer and browser tiers: CI runs them (.ci/run)",
    "pip install -e '.[docs]'": "CI installs the docs extra (.ci/run) and builds the site (tests/test_site.py)",
    "ruff check . && mypy": "CI runs both (.ci/run)",
    "dask scheduler": "a server that runs until stopped; the cluster run is shortened to local:2 above",
    "dask worker tcp://HOST:8786 --nthreads 1 --nworkers N": "a server that runs until stopped (see dask scheduler)",
    "cpsolve design snake --box 3x3x4 --workers 2": "about 6 minutes on two cores (results/design.md);"
    " the 3x3x3 census runs",
    "python tests/test_api.py": "rewrites tests/api_signatures.txt, on purpose only; tests/test_api.py runs its check",
    "python docs/make_pictures.py": "rewrites docs/images/ of the repository; tests/test_pictures.py draws every model",
    "python benchmarks/peers.py --peers DIR --repeats 1 --timeout 100": "needs the peer programs built; minutes",
    "python benchmarks/peers.py --peers DIR": "needs the peer programs built; minutes",
    "python benchmarks/profile_engine.py MODEL": "a profile of the engine, for a model of the reader's choice",
    "python benchmarks/engine_ab.py ... --big --versus FILE --peers DIR": "needs a previous build's table, the peers",
    "pip install 'cpsolve[app]'": "an install; the test extra CI installs holds the app extra's packages",
    "cpsolve app PelikanBurr.xmpuzzle": "a server that runs until Ctrl-C; tests/test_app.py starts it and drives it",
    "python docs/make_workbench_screenshots.py": "rewrites docs/images/workbench-*.png of the repository, in chromium; "
                                                 "tests/test_app_browser.py drives the same page",
    "python -m pytest tests/test_app.py tests/test_app_browser.py": "part of the suite CI runs",
}
for _bench in ("scaling.py --only workers --repeats 5", "pictures.py", "design.py --big",
               "disassembly.py --burrtxt peers/bin/burrTxt", "explain.py", "canonical.py", "cpsat.py",
               "scaling.py", "scaling.py --only bedlam", "run.py --timeout 90", "run.py", "disassembly.py", "design.py",
               "sat_encodings.py", "sat_encodings.py --timeout 2", "approx.py",
               "startup.py --burrtxt peers/bin/burrTxt --repeats 21", "workbench.py",
               "memory.py --before DIR --aracna FILE", "memory.py --rods", "grids.py",
               "disassembly.py --burrtxt peers/bin/burrTxt --files DIR",
               "burrtools_files.py --files DIR --peers peers/bin"):
    EXCEPTIONS[f"python benchmarks/{_bench}"] = ("a benchmark: minutes of CPU, and it rewrites its measured table"
                                                 " under results/ (mypy checks the scripts in CI)")

# Files a command needs that the text assumes the reader has: README command -> shell lines run first,
# in the same folder ($MODELS is the built-in models' folder).
SETUP: dict[str, list[str]] = {
    "cpsolve enumerate big.yaml --workers 16": ["sed 's/^name: bedlam$/name: big/' \"$MODELS/bedlam.yaml\" > big.yaml"],
    "cpsolve --max-cells 50000 enumerate big.yaml": [
        "sed 's/^name: soma$/name: big/' \"$MODELS/soma.yaml\" > big.yaml"],
    "cpsolve enumerate sols.txt": ["cpsolve enumerate soma --out sols.txt -q"],  # a solutions file
}

# Blocks of commands that take seconds: the fast tier (`python -m pytest`) leaves the block that holds one of
# these out, the slow tier (CI) runs it. Command -> what makes its block slow.
SLOW: dict[str, str] = {
    "cpsolve enumerate big.yaml --workers 16": "Bedlam enumerated, stopped, then resumed to the end (about 8 s)",
    "cpsolve explain benchmarks/puzzles/explain-mutilated-chessboard.yaml": "a minimal core found and drawn",
    "cpsolve design pieces --box 3x3x3 --pool tricubes,tetracubes --copies 2": "every candidate piece set solved",
    "cpsolve import SolidSixPieceBurrs.xmpuzzle --check -o solid.yaml": "SolidSixPieceBurrs enumerated twice",
    "cpsolve backends": "every backend's comparison and a DIMACS round trip through cadical",
    "cpsolve draw soma -o soma.png": "eight pictures, a page and STL files",
    "cpsolve enumerate MODEL --cluster tcp://HOST:8786": "a local Dask cluster started",
    "cpsolve count t-tetracube-6x6x6 --approx --walk-seconds 5": "5 s of walks, and an estimate before (11 s)",
    "cpsolve count y-pentacube-5x5x5 --approx --walk-seconds 5 -w 2": "5 s of walks, then 5 s to the timeout",
    "cpsolve count t-tetracube-6x6x6 --approx --walk-seconds 3 --journal t6.walks": "3 s of walks, twice",
    "cpsolve sample t-tetracube-6x6x6 -n 2 -o t6.jsonl": "walks until two solutions are drawn (5 s)",
    "cpsolve count t-tetracube-6x6x2 --approx --guarantee": "ApproxMC's count of the 6x6x2 box (3 s)",
}

# Exit statuses the text gives for a command (the default is 0).
STATUS: dict[str, int] = {
    "cpsolve enumerate sols.txt": 2,  # "is a solutions file; enumerate takes a puzzle"
    "cpsolve count t-tetracube-6x6x6 --approx --timeout 5": 3,  # docs/approximate.md: cut by --timeout, exit 3
}

# What the text says a command prints (each fragment must appear in its stdout or stderr).
EXPECT: dict[str, list[str]] = {
    "cpsolve disassemble benchmarks/puzzles/turning-lock.yaml": ["does not come apart", "6 states reached"],
    "cpsolve disassemble benchmarks/puzzles/turning-lock.yaml --rotations": [
        "comes apart, level 1R1", "K turn +z at x=2 y=2", "K +x out"],
    "cpsolve explain benchmarks/puzzles/turning-lock.yaml --index 0 --rotations": ["1R1"],
    "cpsolve list": ["soma", "bedlam", "snake-27"],
    "cpsolve backends": ["dlx", "cpsat", "sat"],
    "cpsolve enumerate MODEL --cluster tcp://HOST:8786": [
        "soma: 11520 solutions in all, 480 up to rotation, 240 up to rotation and reflection"],
    "cpsolve report": ["soma: 11520 / 480 / 240", "snake-27: 48 / 2 / 1", "ok"],
    "cpsolve report --backend auto --workers 2 --out-dir results": ["conway-5x5x5: 27456 / 1144 / 572", "ok"],
    "cpsolve --max-cells 50000 enumerate big.yaml": ["big: 11520 solutions in all"],
    "cpsolve enumerate solid.yaml --out solid.jsonl": ["588 canonical solutions written to solid.jsonl"],
    "pip install . && cpsolve enumerate soma": [
        "soma: 11520 solutions in all, 480 up to rotation, 240 up to rotation and reflection",
        "backend dlx; key piece Z: 3 of 72 placements kept",
        "240 canonical solutions written to soma.solutions.jsonl"],
    "cpsolve enumerate sols.txt": [
        "sols.txt: is a solutions file; enumerate takes a puzzle (this file names puzzle soma)"],
    "cpsolve enumerate big.yaml --workers 16 --resume": [
        "big: 460464 solutions in all, 19186 up to rotation, 19186 up to rotation and reflection"],
    "cpsolve journal big.solutions.jsonl.journal": [
        "big: unfinished run; ", " subproblems done (", " % of the estimated work)",
        "continue with: cpsolve enumerate big.yaml --workers 2 "],
    "cpsolve design snake --box 3x3x3": [
        "ordered chains: 22897", "chains: 11487", "palindromic chains: 77", "unique chains: 3658",
        "max foldings: 142"],
    "cpsolve design pieces --box 3x3x3 --pool tricubes,tetracubes --copies 2": ["unique: 1"],
    "cpsolve disassemble six-piece-burr": ["comes apart, level 1 (5 moves in all", "A D F +x out"],
    "cpsolve enumerate cutler-burr-305 --disassemble": [
        "solutions (in all / up to rotation / and reflection): 12 / 1 / 1",
        "of which come apart (BurrTools' solutions):           12 / 1 / 1", "highest level: 1\n"],
    "cpsolve disassemble PelikanBurr.xmpuzzle": [
        "comes apart, level 98.2.4 (107 moves in all", "BurrTools stored level 98.2.4.2 "],
    "cpsolve enumerate PelikanBurr.xmpuzzle --disassemble": [
        "288 / 12 / 12", "(BurrTools' solutions):           24 / 1 / 1", "highest level: 98.2.4\n"],
    "cpsolve enumerate SolidSixPieceBurrs.xmpuzzle --disassemble": [
        "12597 / 1063 / 588", "3714 / 314 / 179", "1     148", "1.2      31"],
    "cpsolve enumerate SolidSixPieceBurrs.xmpuzzle --disassemble --min-level 1.2": [
        "12597 / 1063 / 588", "3714 / 314 / 179", "only the 31 solution classes"],
    "cpsolve disassemble AlPackino.xmpuzzle": [
        "comes apart, level 1.1.1.1.1.2.1.3.1.2.2 (", "BurrTools stored level 1.1.1.1.1.2.1.3.1.2.1.2 "],
    "cpsolve import SolidSixPieceBurrs.xmpuzzle --check -o solid.yaml": [
        "stored 1063 assemblies, 314 solutions", "314 stored assemblies checked"],
    "cpsolve enumerate SolidSixPieceBurrs.xmpuzzle": ["compare 588 (burrTxt) or 1063 (kept mirrors)"],
    "cpsolve enumerate SolidSixPieceBurrs.xmpuzzle -b dlx -w 1 --no-save -q": [
        "12597 solutions in all, 1063 up to rotation, 588 up to rotation and reflection"],
    "cpsolve compare soma --backends cpsat,sat,dlx": ["11520", "480", "240"],
    "cpsolve explain benchmarks/puzzles/explain-mutilated-chessboard.yaml": [
        "mutilated-chessboard: no assembly",
        "Colouring (checkerboard: x+y+z even: white, odd: black); count white cells.",
        "The container has 30 white, 32 black: it needs 30.",
        "each D (31 copies): 1, wherever it lies",
        "Together the pieces cover 31, never 30: no assembly."],
    "cpsolve explain cutler-burr-305 --json": ['"case": "unique"'],
    # the README's tour
    "cpsolve show soma.solutions.jsonl --index 7": [
        "soma, solution 7 (id 05f006b82ad6af5a; its class: 48 solutions in all)\nz=0  z=1  z=2\nVZZ  VAA  TTT\n"
        "ZZL  VBA  PTA\nLLL  PBB  PPB\n"],
    "cpsolve draw soma.solutions.jsonl --index 7 -o s7.png": ["wrote s7.png (277x275)"],
    "cpsolve view soma.solutions.jsonl": ["wrote soma.html: 240 solutions"],
    "cpsolve enumerate screws-3x3x3": ["48 solutions in all, 2 up to rotation, 1 up to rotation and reflection"],
    "cpsolve enumerate snake-3x3x3-unique": ["24 solutions in all, 1 up to rotation, 1 up to rotation and reflection"],
    "cpsolve enumerate bedlam --out bedlam.jsonl -q && cpsolve view bedlam.jsonl -o bedlam.html": [
        "wrote bedlam.html: 300 solutions, 0.0"],
    "cpsolve enumerate kanoodle-pyramid -q -w 1 --no-save": [
        "2448 solutions in all, 612 up to rotation, 306 up to rotation and reflection"],
    "cpsolve enumerate kanoodle.xmpuzzle -q -w 1 --no-save": ["306 up to rotation and reflection",
                                                              "compare 306 (burrTxt)"],
    "cpsolve enumerate BallRoom.xmpuzzle -w 1 --no-save -q": [
        "8 solutions in all, 2 up to rotation, 2 up to rotation and reflection", "compare 2 (burrTxt)"],
    "cpsolve import HexSticks.xmpuzzle --check -o hexsticks.yaml": [
        "33 stored assemblies checked"],
    "cpsolve solve hexagon-prism-8": ["z=0", "z=1"],
    "cpsolve disassemble hexagon-prism-8": ["comes apart, level "],
    "cpsolve enumerate hexagon-prism-8 --disassemble --no-save -q": ["12 / 1 / 1", "highest level: "],
    "cpsolve count conway-5x5x5 --approx": ["conway-5x5x5: 27,456 solutions in all, counted exactly"],
    "cpsolve count t-tetracube-6x6x6 --approx --timeout 5": ["cut by --timeout, the estimate so far"],
    "cpsolve count t-tetracube-6x6x6 --approx --walk-seconds 3 --journal t6.walks --resume": [
        "resuming", "units of walks from the journal"],
    "cpsolve count t-tetracube-6x6x2 --approx --guarantee": ["ApproxMC: ", "predicted"],
}

# Figures the text gives for a template's instances (the BurrTools table under "Coming from BurrTools"):
# template -> [(the instance run, what it must print)]. They run like the commands above.
INSTANCES: dict[str, list[tuple[str, list[str]]]] = {
    "cpsolve enumerate FILE.xmpuzzle -w 1 --no-save -q": [
        (f"cpsolve enumerate {name}.xmpuzzle -w 1 --no-save -q",
         [f"{total} solutions in all, {rotation} up to rotation, {mirror} up to rotation and reflection",
          f"compare {mirror} (burrTxt)"])
        for name, total, rotation, mirror in (("AlPackino", 8, 1, 1), ("PelikanBurr", 288, 12, 12),
                                              ("DemoPieceGenerator", 1760, 1760, 928))],
    # SolidSixPieceBurrs' row (12597 / 1063 / 588) is checked by the enumerations of it above
}

# Templates are told by their placeholders: capitalised words (MODEL, FILE, N), options in brackets,
# alternatives (a|b) and ellipses.
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_0-9]*\b|\[|\||\.\.\.|…")


@dataclass(frozen=True)
class Command:
    """A shell command of a document: where it is, its text, and the fenced block it belongs to."""

    document: str
    line: int
    text: str
    block: int | None = None  # index of its fenced block in its document; None for an inline span

    @property
    def key(self) -> str:
        """The command without its trailing `# comment`, spaces collapsed: what the tables above name."""
        return " ".join(re.sub(r"(^|\s)#(\s.*)?$", "", self.text).split())

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def fenced_blocks(text: str) -> Iterator[tuple[int, str, list[tuple[int, str]]]]:
    """(first line, language, [(line number, line)]) of each fenced block, indented fences included."""
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        opening = re.match(r"\s*```(\S*)\s*$", lines[k])
        if opening:
            body = []
            j = k + 1
            while j < len(lines) and not re.match(r"\s*```\s*$", lines[j]):
                body.append((j + 1, lines[j]))
                j += 1
            yield k + 1, opening.group(1).lower(), body
            k = j + 1
        else:
            k += 1


def block_commands(language: str, body: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """The commands of one shell block: lines joined at a trailing backslash; console: `$ ` lines."""
    pending: tuple[int, str] | None = None
    for number, raw in body:
        line = raw.strip()
        if pending is None and line.startswith("$ "):
            line = line[2:].strip()
        elif pending is None and language == "console":
            continue  # output
        if pending is not None:
            number, line = pending[0], pending[1] + " " + line
            pending = None
        if line.endswith("\\"):
            pending = (number, line[:-1].rstrip())
            continue
        if line and not line.startswith("#"):
            yield number, line


def document_commands(path: Path) -> list[Command]:
    """Every command of one document, in the order written."""
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name
    found: list[Command] = []
    outside = text.splitlines()
    for index, (start, language, body) in enumerate(fenced_blocks(text)):
        for number in range(start, (body[-1][0] if body else start) + 2):
            outside[number - 1] = ""
        if language in SHELL_BLOCKS:
            found += [Command(name, number, line, index) for number, line in block_commands(language, body)]
    prose = "\n".join(outside)
    for match in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose):
        span = " ".join(match.group(1).replace("\\|", "|").split())
        if span.startswith(COMMAND_STARTS):
            found.append(Command(name, prose.count("\n", 0, match.start()) + 1, span))
    return sorted(found, key=lambda c: c.line)


def all_commands() -> list[Command]:
    return [command for path in DOCUMENTS for command in document_commands(path)]


# --- checking a command against the command line, without running it ---------------------------------

ROOT = typer.main.get_command(app)


def takes_value(command: Any) -> set[str]:
    """The options of a click command (as typer builds it) that take a value."""
    return {o for p in command.params if p.param_type_name == "option" and not p.is_flag
            for o in [*p.opts, *p.secondary_opts]}


def parse(words: list[str]) -> tuple[list[str], Any, list[str], list[str]]:
    """A `cpsolve ...` command's subcommand path, its click command, the options it names and its
    positional arguments (the words that are not options or their values)."""
    command: Any = ROOT
    path: list[str] = []
    options: list[str] = []
    positional: list[str] = []
    valued = takes_value(ROOT)
    k = 0
    while k < len(words):
        word = words[k]
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            options.append(name)
            if name in valued and "=" not in word:
                k += 1
        elif not positional and word in getattr(command, "commands", {}):
            command = command.commands[word]
            path.append(word)
            valued |= takes_value(command)
        else:
            positional.append(word)
        k += 1
    return path, command, options, positional


def check_against_cli(command: Command) -> None:
    """The subcommand and every option a template or mention names exist."""
    words = command.key.replace("[", " ").replace("]", " ").split()
    words = words[3:] if words[:3] == ["python", "-m", "cpsolve"] else words[1:]
    path, target, options, positional = parse(words)
    assert path or not positional, f"{command}: names no cpsolve command"
    known = {o for c in (ROOT, target) for p in c.params for o in [*p.opts, *getattr(p, "secondary_opts", [])]}
    known.add("--help")
    for option in options:
        assert option in known, f"{command}: `cpsolve {' '.join(path)}` has no option {option}"


def is_mention(command: Command) -> bool:
    """`cpsolve enumerate` in a sentence: a command named without the argument it needs."""
    words = shlex.split(command.key)
    if words[:3] == ["python", "-m", "cpsolve"]:
        words = words[2:]
    if words[0] != "cpsolve" or any(w in {"&&", ";", "|", ">"} for w in words):
        return False
    path, target, options, positional = parse(words[1:])
    if hasattr(target, "commands"):
        return not options  # `cpsolve`, `cpsolve design`: a group named (`cpsolve --version` runs)
    arguments = [p for p in target.params if p.param_type_name == "argument" and p.required]
    options_needed = [p for p in target.params if p.param_type_name == "option" and p.required
                      and not set(p.opts) & set(options)]
    return len(positional) < len(arguments) or bool(options_needed)


def kind(command: Command) -> str:
    key = command.key
    if key in SHORTENED:
        return "shortened"
    if key in EXCEPTIONS:
        return "excepted"
    if PLACEHOLDER.search(key):
        # a `cpsolve` template is checked against the command line; any other must be listed
        return "template" if key.startswith(("cpsolve ", "python -m cpsolve")) else "unlisted"
    if is_mention(command):
        return "mention"
    return "run"


COMMANDS = all_commands()


def test_the_documents_hold_commands() -> None:
    """The extraction finds what is there: the quick start, the fenced blocks, the command table."""
    keys = {c.key for c in COMMANDS}
    assert "pip install . && cpsolve enumerate soma" in keys
    assert "cpsolve draw bedlam --pieces -o pieces.png" in keys
    assert "cpsolve list" in keys
    assert sum(c.block is not None for c in COMMANDS) >= 30


def test_what_the_extraction_takes(tmp_path: Path) -> None:
    """Shell blocks (continued lines, `$ ` prompts, console output left out), code spans that start like
    a command (a table's `\\|` read as `|`); not Python blocks, not spans that merely name a module."""
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "Run `cpsolve list` or `cpsolve show FILE [--index N]`; see `cpsolve/api.py`.",
        "| `cpsolve export MODEL --format dimacs\\|xcc -o FILE` | table |",
        "```sh",
        "cpsolve enumerate soma \\",
        "    --workers 2     # two",
        "# a comment line",
        "$ cpsolve backends",
        "```",
        "```console",
        "$ cpsolve schema \\",
        "    --help",
        "{output}",
        "```",
        "```python",
        "cpsolve.load('soma')",
        "```",
    ]), encoding="utf-8")
    found = [(c.line, c.key, c.block) for c in document_commands(page)]
    assert found == [(1, "cpsolve list", None), (1, "cpsolve show FILE [--index N]", None),
                     (2, "cpsolve export MODEL --format dimacs|xcc -o FILE", None),
                     (4, "cpsolve enumerate soma --workers 2", 0), (7, "cpsolve backends", 0),
                     (10, "cpsolve schema --help", 1)]


def test_every_table_key_is_a_command_of_the_documents() -> None:
    """A command removed from the documents leaves no stale entry behind."""
    keys = {c.key for c in COMMANDS}
    for table, name in ((SHORTENED, "SHORTENED"), (EXCEPTIONS, "EXCEPTIONS"), (EXPECT, "EXPECT"),
                        (STATUS, "STATUS"), (SETUP, "SETUP"), (INSTANCES, "INSTANCES"), (SLOW, "SLOW")):
        stale = sorted(set(table) - keys)
        assert not stale, f"{name} names commands no document holds: {stale}"


def test_every_command_is_run_shortened_excepted_or_a_template() -> None:
    kinds = {kind(c) for c in COMMANDS}
    unlisted = [str(c) for c in COMMANDS if kind(c) == "unlisted"]
    assert not unlisted, f"commands with placeholders that are not cpsolve's: list them in EXCEPTIONS: {unlisted}"
    assert kinds <= {"run", "shortened", "excepted", "template", "mention", "unlisted"}
    for table, allowed in ((EXPECT, {"run", "shortened"}), (STATUS, {"run", "shortened"}),
                           (SETUP, {"run", "shortened"})):
        for key in table:
            kinds_of_key = {kind(c) for c in COMMANDS if c.key == key}
            assert kinds_of_key <= allowed, (key, kinds_of_key)


def test_scripts_the_documents_name_exist() -> None:
    """A command not run still names a script or test file that exists (a renamed benchmark fails)."""
    for command in COMMANDS:
        for path in re.findall(r"(?:^|\s)((?:benchmarks|docs|tests)/\S+\.py)", command.key):
            assert (REPO / path).is_file(), f"{command}: no file {path}"


@pytest.mark.parametrize("command", [c for c in COMMANDS if kind(c) in {"template", "mention"}
                                     and c.key.startswith(("cpsolve ", "python -m cpsolve"))], ids=str)
def test_templates_and_mentions_name_real_commands_and_options(command: Command) -> None:
    check_against_cli(command)


def test_the_cli_check_catches_a_renamed_option() -> None:
    with pytest.raises(AssertionError, match="has no option --indx"):
        check_against_cli(Command("README.md", 1, "cpsolve show FILE [--indx N]"))
    with pytest.raises(AssertionError, match="names no cpsolve command"):
        check_against_cli(Command("README.md", 1, "cpsolve enumerat MODEL"))


# --- running them ------------------------------------------------------------------------------------

def units() -> list[tuple[str, list[Command]]]:
    """What runs together: each fenced block's commands in one folder, each inline command alone."""
    in_blocks = {c.key for c in COMMANDS if c.block is not None}
    out: dict[tuple[str, int, str], list[Command]] = {}
    for c in COMMANDS:
        if kind(c) in {"run", "shortened"}:
            if c.block is not None:
                out.setdefault((c.document, c.block, ""), []).append(c)
            elif c.key not in in_blocks:  # run once, where it stands alone
                out.setdefault(("", -1, c.key), [c])
    return [(f"{cs[0].document}:{cs[0].line}", cs) for cs in out.values()]


def examples_named(text: str) -> set[str]:
    """The BurrTools example files a command reads (not those it writes with -o)."""
    written = set(re.findall(r"-o\s+(\S+\.xmpuzzle)", text))
    return set(re.findall(r"[\w.-]+\.xmpuzzle", text)) - written


def environment(tmp_path: Path) -> dict[str, str]:
    """`cpsolve` runs this tree's `python -m cpsolve`; `python` is this interpreter."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "cpsolve"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m cpsolve "$@"\n')
    script.chmod(0o755)
    if Path(sys.executable).name != "python":
        (bin_dir / "python").symlink_to(sys.executable)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO), env.get("PYTHONPATH", "")] if p)
    env["MODELS"] = str(MODELS)
    env["COLUMNS"] = "120"
    return env


def run_shell(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.mark.parametrize("where, commands", [
    pytest.param(where, commands, id=where, marks=[pytest.mark.slow] if any(c.key in SLOW for c in commands) else [])
    for where, commands in units()])
def test_readme_command_runs(where: str, commands: list[Command], tmp_path: Path) -> None:
    run_in_order(commands, tmp_path)


@pytest.mark.parametrize("template, line, fragments",
                         [(t, line, fragments) for t, runs in INSTANCES.items() for line, fragments in runs],
                         ids=[line for runs in INSTANCES.values() for line, _ in runs])
def test_the_figures_given_for_a_template(template: str, line: str, fragments: list[str], tmp_path: Path) -> None:
    assert any(c.key == template and kind(c) == "template" for c in COMMANDS), template
    run_in_order([Command("README.md", 0, line)], tmp_path, {line: fragments})


def run_in_order(commands: list[Command], tmp_path: Path, expect: dict[str, list[str]] = EXPECT) -> None:
    """Run the commands one after another in one fresh folder, each checked for its status and output."""
    text = " ".join(c.text for c in commands)
    needed = examples_named(text)
    if (needed or "../shared/" in text) and not EXAMPLES.is_dir():
        pytest.skip(f"BurrTools example files not found at {EXAMPLES} (needed: {sorted(needed)})")
    if "--cluster" in " ".join(SHORTENED.get(c.key, (c.text,))[0] for c in commands) \
            and importlib.util.find_spec("distributed") is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("Dask is not installed (CI installs it with '.[test]')")
        pytest.skip("Dask is not installed (pip install 'cpsolve[cluster]')")
    if any(c.key.startswith("cadical ") for c in commands) and shutil.which("cadical") is None:
        if os.environ.get("CPSOLVE_CI"):
            pytest.fail("cadical is not installed (CI installs it)")
        pytest.skip("cadical (an external SAT solver) is not installed")
    cwd = tmp_path / "work"
    cwd.mkdir()
    (tmp_path / "shared").mkdir()
    if EXAMPLES.is_dir():
        (tmp_path / "shared" / "burrtools-examples").symlink_to(EXAMPLES)
        for name in needed:
            if (EXAMPLES / name).is_file():
                (cwd / name).symlink_to(EXAMPLES / name)
    (cwd / "benchmarks").symlink_to(REPO / "benchmarks")
    env = environment(tmp_path)
    for command in commands:
        for line in SETUP.get(command.key, []):
            setup = run_shell(line, cwd, env)
            assert setup.returncode == 0, f"{command}: setup `{line}`: {setup.stderr}"
        line = SHORTENED[command.key][0] if command.key in SHORTENED else command.text
        proc = run_shell(line, cwd, env)
        status = STATUS.get(command.key, 0)
        assert proc.returncode == status, (
            f"{command}\nran: {line}\nexit {proc.returncode}, expected {status}\n{proc.stdout[-2000:]}"
            f"\n{proc.stderr[-2000:]}")
        output = proc.stdout + proc.stderr
        for fragment in expect.get(command.key, []):
            assert fragment in output, f"{command}: the text promises {fragment!r}; it printed:\n{output[-3000:]}"
        if status == 0:
            for written in files_written(line):
                target = cwd / written
                assert target.is_file() and target.stat().st_size or target.is_dir() and any(target.iterdir()), (
                    f"{command}: wrote nothing to {written}")


def files_written(line: str) -> list[str]:
    """What a command line names as its output (`-o`, `--out`, `--page`, `--picture`, `> FILE`)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = list(lexer)
    return [words[k + 1] for k, word in enumerate(words[:-1])
            if word in {"-o", "--out", "--page", "--picture", ">"} and words[k + 1] != "/dev/null"]
