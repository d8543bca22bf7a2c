"""The package's layers point one way: a module imports only from its own stage or the ones below.

The stages follow the data: a puzzle file becomes a puzzle, the puzzle a problem (placements,
symmetry, canonical forms), the problem is searched, the results are analysed, then written out;
the command line sits on top. Imports inside functions count too: a lazy import is still an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cpsolve"

STAGES: dict[str, int] = {
    "cpsolve": 0,
    "cpsolve.errors": 0,
    "cpsolve.limits": 0,
    "cpsolve.puzzle": 1,
    "cpsolve.problem": 2,
    "cpsolve.search": 3,
    "cpsolve.analysis": 4,
    "cpsolve.output": 5,
    "cpsolve.api": 6,
    "cpsolve.cli": 6,
    "cpsolve.app": 6,
    "cpsolve.__main__": 7,
}
"""Each module's stage is that of its longest prefix here; the README's Layout section lists them."""


def stage_of(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in STAGES and (n > 1 or len(parts) == 1):
            return STAGES[prefix]
    raise AssertionError(f"{module} is in no stage: add it to STAGES and to the README's Layout section")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, name: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module) of every cpsolve import in module `name`'s source, wherever it stands."""
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "cpsolve"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "cpsolve":
                continue
            if node.module is None or target in ("cpsolve",):
                # `from . import x` / `from .. import x`: each name may be a module of that package.
                out += [(node.lineno, f"{target}.{a.name}" if f"{target}.{a.name}" in _modules() else target)
                        for a in node.names]
            else:
                out.append((node.lineno, target))
    return out


def _modules() -> set[str]:
    return {module_name(p) for p in PACKAGE.rglob("*.py")}


SOURCES = sorted(PACKAGE.rglob("*.py"))


def upward_imports(source: str, name: str, is_package: bool = False) -> list[str]:
    mine = stage_of(name)
    return [f"line {line}: {name} (stage {mine}) imports {target} (stage {stage_of(target)})"
            for line, target in imported_modules(source, name, is_package) if stage_of(target) > mine]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    upward = upward_imports(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
    assert not upward, "\n".join(upward)


def test_the_checker_sees_function_local_and_relative_imports() -> None:
    """The rule must be able to fail: lazy, relative and absolute imports of a higher stage are caught."""
    lazy = "def f():\n    from ..search.enumeration import prepare\n    return prepare\n"
    assert imported_modules(lazy, "cpsolve.puzzle.probe") == [(2, "cpsolve.search.enumeration")]
    assert upward_imports(lazy, "cpsolve.puzzle.probe") == [
        "line 2: cpsolve.puzzle.probe (stage 1) imports cpsolve.search.enumeration (stage 3)"]
    assert upward_imports("import cpsolve.cli\n", "cpsolve.output.probe")
    assert upward_imports("from .. import output\n", "cpsolve.problem.probe")
    assert not upward_imports("from ..puzzle.geometry import Cell\nfrom . import symmetry\n", "cpsolve.problem.probe")


def test_every_module_has_a_stage() -> None:
    for path in SOURCES:
        stage_of(module_name(path))


CLI_MAY_IMPORT = {"cpsolve", "cpsolve.api", "cpsolve.errors", "cpsolve.limits"}
"""The command line is a thin layer over the public API (issue 27): whatever it needs that the API lacks
becomes API, so that Python users get it too and the front ends cannot drift apart."""
CLI_STARTS = {"cpsolve.app.launch"}
"""What the command line may import of the other front end, the workbench: the function `cpsolve app` runs."""


def beyond_the_api(source: str, name: str, is_package: bool = False, own: str = "cpsolve.cli",
                   also: frozenset[str] | set[str] = CLI_STARTS) -> list[str]:
    """The imports of a front end's module (the command line's, `own`) that reach past the public API,
    its own package and `also` aside."""
    return [f"line {line}: {name} imports {target}" for line, target in imported_modules(source, name, is_package)
            if target not in CLI_MAY_IMPORT | set(also) and target != own and not target.startswith(own + ".")]


@pytest.mark.parametrize("path", sorted((PACKAGE / "cli").glob("*.py")), ids=lambda p: p.name)
def test_the_command_line_imports_only_the_public_api(path: Path) -> None:
    found = beyond_the_api(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", sorted((PACKAGE / "app").glob("*.py")), ids=lambda p: p.name)
def test_the_workbench_imports_only_the_public_api(path: Path) -> None:
    """The workbench (`cpsolve app`, issue 38) is a front end beside the command line, on the API alone."""
    found = beyond_the_api(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py",
                           own="cpsolve.app", also=frozenset())
    assert not found, "\n".join(found)


def test_the_workbench_rule_can_fail() -> None:
    assert beyond_the_api("from ..search.journal import remove\n", "cpsolve.app.probe", own="cpsolve.app",
                          also=frozenset()) == ["line 1: cpsolve.app.probe imports cpsolve.search.journal"]
    assert beyond_the_api("from ..cli.common import app\n", "cpsolve.app.probe", own="cpsolve.app", also=frozenset())
    assert not beyond_the_api("import cpsolve\nfrom cpsolve import limits\nfrom ..errors import CpsolveError\n"
                              "from .folder import Folder\n", "cpsolve.app.probe", own="cpsolve.app", also=frozenset())
    # the command line may start the workbench, and reach nothing else of it
    assert not beyond_the_api("from ..app.launch import launch\n", "cpsolve.cli.probe")
    assert beyond_the_api("from ..app.server import serve\n", "cpsolve.cli.probe")


def test_the_api_rule_can_fail() -> None:
    """Lazy, relative, absolute and type-checking-only imports of a stage are all caught; the API is not."""
    assert beyond_the_api("def f():\n    from ..output.text import printable\n", "cpsolve.cli.probe") == [
        "line 2: cpsolve.cli.probe imports cpsolve.output.text"]
    assert beyond_the_api("if TYPE_CHECKING:\n    from ..search.result import SolutionClass\n", "cpsolve.cli.probe")
    assert beyond_the_api("import cpsolve.puzzle.catalog\n", "cpsolve.cli.probe")
    assert beyond_the_api("from .. import output\n", "cpsolve.cli.probe")
    assert not beyond_the_api("from .. import api, limits\nfrom ..errors import CpsolveError\nimport cpsolve\n"
                              "from .common import app\nfrom ..api import printable\n", "cpsolve.cli.probe")


def import_graph() -> dict[str, set[str]]:
    """Module -> the cpsolve modules it imports (lazy and type-checking imports included; a package as its
    `__init__`)."""
    known = _modules()
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        name = module_name(path)
        edges = graph.setdefault(name, set())
        for _, target in imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"):
            while target not in known and "." in target:  # `from .m import NAME` names module m
                target = target.rpartition(".")[0]
            if target != name:
                edges.add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm): each is a set of
    modules that import one another, directly or around a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles() -> None:
    """No two modules import each other, directly or around a loop, not even lazily: a circle means neither
    can be read, tested or moved without the other (three existed: design's unique with holes and marks, the
    enumeration with its journal, the estimate with the worker pool)."""
    found = circles(import_graph())
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_check_can_fail() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
