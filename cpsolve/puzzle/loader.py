"""Reading puzzle files: YAML (safe loader, bounded, duplicate keys refused) validated into `PuzzleFile`.

This is the only module that touches puzzle files on disk; it turns every way a file can be wrong
into a `CpsolveError` naming the file, the field and the problem.

A puzzle file is untrusted input, so reading it is bounded before anything is built from it:
- the file's size (`--max-file-bytes`), read no further than that;
- the nesting depth of YAML collections (`--max-yaml-depth`), counted while composing, before
  PyYAML's recursive composer could exhaust the stack;
- the size of the document once aliases are expanded (`--max-yaml-nodes`): a 4.5 KB file whose
  aliases refer to aliases can stand for gigabytes of drawing (the "billion laughs" attack), so the
  composed node graph is measured, each shared node counted once per reference, before any Python
  object is built; a node that contains itself is refused;
- the container's volume and a chain's length (`--max-cells`), from the numbers in the file, before
  a single cell is listed.
Only the safe YAML tags exist (no object construction); merge keys (`<<:`) are supported; a key
that is a list or a mapping (`? [1, 2]`) is refused. Numbers are strict: where the schema says
integer, `"2"`, `true` and `2.0` are errors, not silently converted.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from yaml.constructor import SafeConstructor

from ..errors import CpsolveError, unreadable
from ..limits import active, box_volume, check, check_chain, check_container, exceeded
from .names import check_names, escaped
from .schema import PuzzleFile

MAX_TEXT_BYTES = 256 * 1024 * 1024
"""Any other text file cpsolve reads (a CNF, a SAT solver's answer) is read no further than this."""
MERGE_TAG = "tag:yaml.org,2002:merge"
INT_TAG = "tag:yaml.org,2002:int"


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with a nesting limit, merge keys, and duplicate or complex keys refused.

    PyYAML keeps the last of two equal keys silently; a puzzle with two pieces named X is an error.
    """

    def __init__(self, stream: str):
        super().__init__(stream)
        self.path: list[object] = []
        """Where the node being composed sits: mapping keys and sequence positions from the root."""
        self.sizes = _Sizes(self)

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.path.append(index.value if isinstance(index, yaml.ScalarNode) else index)
        try:
            if len(self.path) > active().max_yaml_depth:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                err = exceeded("max_yaml_depth", f"the nesting depth at line {mark.line + 1}", len(self.path))
                raise CpsolveError(err.message)
            node = super().compose_node(parent, index)
            self.sizes.composed(tuple(self.path[1:]), node)
            return node
        finally:
            self.path.pop()

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping with its keys as the text they name (`key_text`), two keys naming one text refused.

        A key's text is what the schema sees (names are text), so keys are compared as text: `1:` and
        `"1":`, or `yes:` and `"True":`, are two YAML keys but one piece name, and keeping either
        silently lost a piece.
        """
        seen: dict[str, int] = {}
        for key_node, _ in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                kind = "list" if isinstance(key_node, yaml.SequenceNode) else "mapping"
                raise CpsolveError(f"a key must be a plain name or number, not a {kind} (line {line})")
            if key_node.tag == MERGE_TAG:
                continue
            key = key_text(self.construct_object(key_node, deep=deep))
            if key in seen:
                first = "" if seen[key] == line else f", the same name as the key at line {seen[key]}"
                raise CpsolveError(f"duplicate key {key!r} (line {line}{first})")
            seen[key] = line
        # Merge keys: the mappings named by `<<:` come first, so the node's own keys override them.
        self.flatten_mapping(node)
        return {key_text(self.construct_object(k, deep=deep)): self.construct_object(v, deep=deep)
                for k, v in node.value}


def key_text(key: object) -> str:
    """The name a mapping key stands for: a YAML key may be a number, a boolean, null or a date, and
    the schema's names are text, so `1` is "1" and `yes` is "True" (as JSON would write them)."""
    return key if isinstance(key, str) else str(key)


class _Sizes:
    """The sizes a puzzle file asks for, added up while it is composed, so that a file over `--max-cells`
    is refused at the node that passes the limit rather than after the whole file is parsed.

    A union of 20,000 boxes of a billion cells each, or a drawing of a million `#`, took 9-17 s and
    235-282 MB to parse before its size was checked; the first box, the first rows over the limit now
    end it. Nodes reached through merge keys (`<<:`) sit elsewhere in the file and are not seen here:
    `_check_sizes` checks the validated file again, whatever its YAML form.
    """

    def __init__(self, loader: SafeConstructor):
        self.loader = loader
        self.union = 0
        self.cells: dict[tuple[object, ...], int] = {}
        self.cubes = 1

    def _int(self, node: yaml.Node) -> int | None:
        if not (isinstance(node, yaml.ScalarNode) and node.tag == INT_TAG):
            return None
        try:
            value = self.loader.construct_yaml_int(node)
        except (ValueError, TypeError):
            return None
        return value if isinstance(value, int) else None

    def _triple(self, node: yaml.Node) -> list[int] | None:
        if not (isinstance(node, yaml.SequenceNode) and len(node.value) == 3):
            return None
        values = [self._int(v) for v in node.value]
        return None if any(v is None or v < 0 for v in values) else values  # type: ignore[return-value]

    def _add(self, owner: tuple[object, ...], n: int, what: str, field: str) -> None:
        self.cells[owner] = self.cells.get(owner, 0) + n
        check("max_cells", what, self.cells[owner], field)

    def composed(self, path: tuple[object, ...], node: yaml.Node | None) -> None:
        """Add what the node at `path` holds to its running total; refuse once a total is over its limit."""
        if node is None or len(path) < 2:
            return
        top, part = path[0], path[1]
        if top == "container":
            if part == "box" and len(path) == 2 and (box := self._triple(node)) is not None:
                check_container(box, None)
            elif part == "union" and len(path) == 3 and isinstance(node, yaml.MappingNode):
                size = next((self._triple(v) for k, v in node.value if getattr(k, "value", None) == "size"), None)
                if size is not None:
                    self.union += box_volume(size)
                    check("max_cells", "the union's summed volume", self.union, "container.union")
            elif part == "layers" and len(path) == 4 and isinstance(node, yaml.ScalarNode):
                self._add(("container",), _drawn(node.value), "the container drawing's cell count", "container.layers")
            elif part == "optional" and len(path) == 3:
                self._add(("optional",), 1, "the count of optional cells listed", "container.optional")
        elif top == "pieces" and len(path) >= 4:
            field = f"pieces.{part}"
            if path[2] == "layers" and len(path) == 5 and isinstance(node, yaml.ScalarNode):
                self._add(("pieces", part), _drawn(node.value), "the piece's cell count", field)
            elif path[2] == "cells" and len(path) == 4:
                self._add(("pieces", part), 1, "the piece's cell count", field)
        elif path[:2] == ("chain", "segments") and len(path) == 3 and (length := self._int(node)) is not None:
            self.cubes += max(length - 1, 0)
            check("max_cells", "the chain's length in cubes", self.cubes, "chain.segments")


def _drawn(row: str) -> int:
    """The cells a row of a drawing holds (`#`, and `+` in a container)."""
    return row.count("#") + row.count("+")


_BoundedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _BoundedLoader.construct_mapping)


class _FastLoader(_BoundedLoader):
    """`_BoundedLoader` reading its events from LibYAML's scanner and parser (C).

    C reads a 1 MB file several times faster than PyYAML's own scanner; composing stays in Python,
    so that the nesting limit and the running sizes apply before a node is built. LibYAML words some
    errors its own way and stops deep nesting at its own depth of 1,000 before ours applies, so a file
    it refuses is read again by `_BoundedLoader`, whose messages are cpsolve's.
    """

    def __init__(self, stream: str):
        from yaml._yaml import CParser  # only where PyYAML was built with LibYAML (see LOADERS)

        super().__init__("")
        self.events = CParser(stream)

    def check_event(self, *choices: Any) -> bool:
        return bool(self.events.check_event(*choices))

    def peek_event(self) -> Any:
        return self.events.peek_event()

    def get_event(self) -> Any:
        return self.events.get_event()

    def dispose(self) -> None:
        self.events.dispose()
        super().dispose()


LOADERS: tuple[type[_BoundedLoader], ...] = ((_FastLoader, _BoundedLoader) if yaml.__with_libyaml__
                                              else (_BoundedLoader,))
"""The loaders tried in turn: the first that is built here reads the file, the last reports its errors."""


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def expanded_size(root: yaml.Node) -> int:
    """Nodes plus scalar characters of the document with every alias expanded, without expanding it.

    Iterative (an alias chain can be deeper than the stack) and memoized per node, so it costs one
    visit per distinct node however often aliases repeat it; stops as soon as the budget is passed.
    """
    budget = active().max_yaml_nodes
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in _children(node))
            if size[key] > budget:
                raise exceeded("max_yaml_nodes", "the document's size with its aliases expanded", size[key])
            continue
        if key in size:
            continue
        if key in on_path:
            line = node.start_mark.line + 1
            raise CpsolveError(f"an alias refers to a collection that contains it (line {line})")
        if isinstance(node, yaml.ScalarNode):
            size[key] = 1 + len(node.value)
            continue
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    return size[id(root)]


def _load_yaml(text: str) -> Any:
    for kind in LOADERS:
        loader = kind(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            expanded_size(node)
            return loader.construct_document(node)
        except (yaml.YAMLError, ValueError, OverflowError, RecursionError):
            if kind is LOADERS[-1]:
                raise
        finally:
            loader.dispose()
    raise AssertionError("the last loader returns or raises")


_TYPE_TAGS = ("function-", "tuple[", "list[", "dict[", "constrained-", "json-or-python", "lax-or-strict", "union[",
              "literal[", "nullable[")
"""Parts of a pydantic error location that name a type (a member of a union), not a field."""


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).startswith(_TYPE_TAGS) and part not in ("int", "str", "float", "bool", "none"):
            out += f".{part}" if out else str(part)
    return out


SHOWN_ERRORS = 4
"""How many of a file's problems its one-line error names (the rest are counted)."""


def _errors(exc: ValidationError) -> CpsolveError:
    """Every problem pydantic found, on one line: the first under its field, the next ones after it, each
    with its own field (a file with two problems named only the first, "and 1 more problems"). A field
    named twice (a union's members each refusing the value) is said once, with its first message."""
    said: dict[str, str] = {}
    for err in exc.errors(include_url=False):
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        elif err["type"] == "missing":
            message = "required field is missing"
        said.setdefault(escaped(_field_path(err["loc"])), message)  # a key of the file can hold a line break
    (first, message), *rest = said.items()
    others = [f"{field}: {text}" if field else text for field, text in rest[:SHOWN_ERRORS - 1]]
    more = len(rest) - len(others)
    text = "; ".join([message, *others]) + (f" (and {more} more)" if more else "")
    return CpsolveError(text, field=first or None)


def _as_json(data: Any) -> str:
    """The document as JSON, so that pydantic's strict JSON mode checks it (lists stand for tuples,
    but "2", true and 2.0 are not integers). YAML-only values (dates, bytes) become strings, which
    the schema then refuses by their field; non-finite floats become strings for the same reason.
    A lone surrogate (`"\\ud800"` in YAML) is no text at all, and JSON cannot carry it: it is refused
    here, naming its field."""

    def plain(v: Any, at: str) -> Any:
        if isinstance(v, str) and (lone := _SURROGATE.search(v)):
            raise CpsolveError(f"holds U+{ord(lone[0]):04X}, a lone surrogate, which is not text", field=at or None)
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        if isinstance(v, dict):
            keys = [plain(key_text(k), at) for k in v]
            return {k: plain(x, f"{at}.{k}" if at else k) for k, x in zip(keys, v.values(), strict=True)}
        if isinstance(v, list):
            return [plain(x, f"{at}[{i}]") for i, x in enumerate(v)]
        return v

    return json.dumps(plain(data, ""), default=str, allow_nan=False)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _check_sizes(spec: PuzzleFile) -> None:
    """The limits that need numbers from the file (container volume, chain length), and the names."""
    container = spec.container
    union = getattr(container, "union", None)
    check_container(getattr(container, "box", None), None if union is None else [part.size for part in union])
    if container.layers is not None:
        drawn = sum(_drawn(row) for layer in container.layers for row in layer)
        check("max_cells", "the container drawing's cell count", drawn, "container.layers")
    if spec.chain is not None:
        check_chain(spec.chain.segments)
    check_names(spec)


def parse_puzzle_text(text: str, where: str) -> PuzzleFile:
    """Validate YAML text; `where` names its origin in error messages."""
    try:
        check("max_file_bytes", "the file's size in bytes", len(text.encode("utf-8", "replace")))
        data = _load_yaml(text)
    except CpsolveError as exc:
        raise exc.located(where) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CpsolveError(f"not valid YAML{at}: {problem}", where=where) from None
    except (ValueError, OverflowError, RecursionError) as exc:  # PyYAML's own slips (found by tests/test_fuzz.py):
        # an escape such as "\U100010000" reaches chr() unchecked
        raise CpsolveError(f"not valid YAML: {exc}", where=where) from None
    if not isinstance(data, dict):
        raise CpsolveError("a puzzle file must be a YAML mapping (name:, source:, container:, ...)", where=where)
    try:
        spec = PuzzleFile.model_validate_json(_as_json(data), strict=True)
        _check_sizes(spec)
    except ValidationError as exc:
        raise _errors(exc).located(where) from None
    except CpsolveError as exc:
        raise exc.located(where) from None
    return spec


def _read_bounded(path: Path, limit: int) -> tuple[bytes, int]:
    """At most `limit + 1` bytes of the file and its size (what was read, for a device or a pipe), or the
    one-line error naming it: a huge file or `/dev/zero` is never read whole."""
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
            size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise unreadable(path, exc) from None
    return data, max(size, len(data))


def _decoded(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise unreadable(path, exc) from None


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A user's text file (CNF, solver output), or the one-line error naming it.

    Read no further than `limit` bytes, so that a huge file or a device (`/dev/zero`) is refused
    instead of filling the memory.
    """
    data, _ = _read_bounded(path, limit)
    if len(data) > limit:
        raise CpsolveError(f"the file is larger than {limit:,} bytes, too large to be read", where=str(path))
    return _decoded(path, data)


def read_puzzle_text(path: Path) -> str:
    """A puzzle file's text, read no further than the file-size limit (`--max-file-bytes`): a 200 MB file
    was read whole (up to 256 MB) before the 1 MB limit applied."""
    limit = active().max_file_bytes
    data, size = _read_bounded(path, limit)
    if len(data) > limit:
        raise CpsolveError(exceeded("max_file_bytes", "the file's size in bytes", size).message, where=str(path))
    return _decoded(path, data)


def read_puzzle_file(path: Path) -> PuzzleFile:
    return parse_puzzle_text(read_puzzle_text(path), str(path))
