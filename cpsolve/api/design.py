"""Designing puzzles with exactly one solution: snakes that fold one way (`design_snakes`), piece sets
from a pool (`design_pieces`), the fewest changes that make a puzzle unique (`design_unique`).
"""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..errors import CpsolveError
from ..puzzle.model import Puzzle
from .common import PathLike

if TYPE_CHECKING:
    from ..analysis.design.pieces import LevelRule


def design_snakes(box: str = "3x3x3", *, out: PathLike | None = None, puzzles: PathLike | None = None,
                  max_files: int = 20, sample: int = 0, seed: int = 1, max_nodes: int = 20_000_000,
                  workers: int = 1, progress: Callable[[str], object] | None = None) -> dict[str, object]:
    """Every chain that folds into the box (`cpsolve design snake`), with its foldings up to rotation and
    reflection, one JSON line each in `out` (default `snake-AxBxC.census.jsonl`); the chains with one
    folding as puzzle files in the folder `puzzles` (at most `max_files`). `sample` > 0 draws that many
    random foldable chains instead and keeps those with exactly one folding (`max_nodes`: search nodes
    per chain part before giving up on one). Returns the summary (`--json`); `progress` gets a line of
    text now and then.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> found = cpsolve.design_snakes("2x2x3", out=folder / "census.jsonl", puzzles=folder, max_files=1)
    >>> found["chains"], found["unique_chains"], found["puzzle_files"]
    (17, 10, 1)
    """
    import random

    from ..analysis.design import snake
    from ..output.files import LineFile, check_destination, write_file

    size = snake.parse_box(box)
    label = "x".join(map(str, size))
    path = Path(out) if out is not None else Path(f"snake-{label}.{'sample' if sample else 'census'}.jsonl")
    folder = None if puzzles is None else Path(puzzles)
    check_destination(path)
    start = time.perf_counter()
    graph = snake.box_graph(size)
    source = f"cpsolve design snake --box {label}" + (f" --sample {sample} --seed {seed}" if sample else "")
    written = 0

    def say(text: str) -> None:
        if progress is not None:
            progress(text)

    def write_puzzle(chain: snake.ChainCount) -> None:
        nonlocal written
        if folder is None or written >= max_files:
            return
        name = f"snake-{label}-{chain.sequence:x}"
        text = snake.chain_puzzle_text(size, chain, name, source)
        _write_puzzle_file(folder, f"{name}.yaml", text, [(path, "the --out file")])
        written += 1

    summary: dict[str, object]
    if sample:
        rng = random.Random(seed)
        tally = {"drawn": 0, "unique": 0, "several": 0, "undecided": 0}
        first_unique: float | None = None
        sink = LineFile(path)  # emptied when the first unique chain is found, not before
        try:
            for i, draw in builtins.enumerate(snake.sample(graph, sample, rng, max_nodes, workers)):
                tally["drawn"] += 1
                tally[draw.verdict] += 1
                if draw.chain is not None:
                    first_unique = first_unique or time.perf_counter() - start
                    sink.write(json.dumps(draw.chain.as_json()) + "\n")
                    write_puzzle(draw.chain)
                say(f"{label}: sample {i + 1}/{sample}: {tally}, {time.perf_counter() - start:.1f} s")
        except BaseException:
            sink.close()
            raise
        sink.close(touch=True)
        seconds = time.perf_counter() - start
        summary = {"box": label, "sampled": sample, **tally, "seconds": round(seconds, 2),
                   "unique_per_hour": round(tally["unique"] * 3600 / seconds, 1),
                   "first_unique_seconds": None if first_unique is None else round(first_unique, 3)}
    else:
        def parts(done: int, total: int) -> None:
            say(f"{label}: part {done}/{total} of the census, {time.perf_counter() - start:.1f} s")

        result = snake.census(size, workers=workers, progress=parts)
        write_file(path, "".join(json.dumps(c.as_json()) + "\n" for c in result.chains))
        for chain in result.chains:
            if chain.foldings == 1:
                write_puzzle(chain)
        summary = {**result.summary(), "seconds": round(time.perf_counter() - start, 2)}
    summary.update({"file": str(path), "puzzle_files": written})
    return summary


def design_pieces(box: str = "3x3x3", pool: str | Puzzle = "tricubes,tetracubes", *, copies: int = 1,
                  backend: str = "auto", out: PathLike | None = None, puzzles: PathLike | None = None,
                  max_files: int = 20, timeout: float | None = None, workers: int = 1,
                  progress: Callable[[str], object] | None = None, min_level: str | None = None,
                  rotations: bool = False, rotation_clearance: float | str = 0) -> dict[str, object]:
    """Piece sets from a pool that fill a box (or each of several, "3x3x3,2x2x5") in exactly one way
    (`cpsolve design pieces`). `pool` names pools (monocubes, dicubes, tricubes, tetracubes, pentacubes,
    pentominoes on cubes; moniamonds to heptiamonds on prisms; square-balls-N and triangular-balls-N, N = 1 to
    5, on spheres: `analysis.design.pieces.POOLS`) or is a puzzle whose pieces make the pool; the box holds
    the cells of the pool's grid. One JSON line per candidate set in
    `out` (default `pieces.design.jsonl`), the unique ones as puzzle files in `puzzles`; `timeout` is
    per candidate. With `min_level` ("2", "1.2", with turns "1R1"), each unique design is taken apart too
    (by slides; with quarter turns as well when `rotations`, each cube shrunk by `rotation_clearance` in
    the turn test) and kept only at that level or above: the others count as "below_level" (its JSON line
    gives the level, or "stuck"). Returns the summary (`--json`).

    >>> import tempfile, pathlib
    >>> found = cpsolve.design_pieces("2x2x3", out=pathlib.Path(tempfile.mkdtemp()) / "sets.jsonl")
    >>> found["candidates"], found["unique"]
    (56, 5)"""
    from ..analysis.design import pieces as design
    from ..analysis.design.snake import parse_box
    from ..output.files import LineFile, check_destination

    boxes = [parse_box(b, max_cells=None) for b in box.split(",") if b.strip()]
    if isinstance(pool, str):
        shapes, grid = design.pool_from(pool)
    else:
        shapes, grid = {p.name: p.shape for p in pool.pieces}, pool.grid
    design.check_limits(boxes, shapes, grid)
    levels = _level_rule(min_level, rotations, rotation_clearance, grid)
    pool_text = pool if isinstance(pool, str) else pool.origin or pool.name
    path = Path(out) if out is not None else Path("pieces.design.jsonl")
    folder = None if puzzles is None else Path(puzzles)
    inputs = [] if isinstance(pool, str) or not pool.origin else [(Path(pool.origin), "the pool's puzzle file")]
    check_destination(path, inputs)
    start = time.perf_counter()
    counts: dict[str, int] = {"candidates": 0, "unique": 0, "several": 0, "none": 0, "pruned": 0, "timeout": 0,
                              **({} if levels is None else {"below_level": 0})}
    first_unique: float | None = None
    written = 0
    sink = LineFile(path)  # emptied when the first candidate is judged, not before
    try:
        for verdict in design.search(design.jobs(boxes, shapes, copies, grid=grid), shapes, backend=backend,
                                     workers=workers, timeout=timeout, grid=grid, levels=levels):
            counts["candidates"] += 1
            counts[verdict.status.replace("-", "_")] += 1
            sink.write(json.dumps(verdict.as_json()) + "\n")
            if verdict.status == "unique":
                first_unique = first_unique or time.perf_counter() - start
                if folder is not None and written < max_files:
                    name = f"unique-{'x'.join(map(str, verdict.box))}-{counts['unique']}"
                    source = f"cpsolve design pieces --box {box} --pool {pool_text} --copies {copies}"
                    if min_level is not None:
                        source += f" --min-level {min_level}" + (" --rotations" if rotations else "")
                    _write_puzzle_file(folder, f"{name}.yaml", design.puzzle_text(verdict, shapes, name, source, grid),
                                       [*inputs, (path, "the --out file")])
                    written += 1
            if progress is not None:
                progress(", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {time.perf_counter() - start:.1f} s")
    except BaseException:
        sink.close()
        raise
    sink.close(touch=True)
    seconds = time.perf_counter() - start
    return {
        "boxes": ",".join("x".join(map(str, b)) for b in boxes), **counts, "seconds": round(seconds, 2),
        "candidates_per_second": round(counts["candidates"] / seconds, 1) if seconds else None,
        "first_unique_seconds": None if first_unique is None else round(first_unique, 3),
        "file": str(path), "puzzle_files": written,
    }


def _level_rule(min_level: str | None, rotations: bool, rotation_clearance: float | str,
                grid: str) -> LevelRule | None:
    """`design_pieces`' level options, checked (one-line errors naming the option); None without a level."""
    from ..analysis.design import pieces as design
    from ..analysis.disassembly import check_grid, check_rotations
    from ..analysis.trees import parse_level

    clearance = check_rotations(rotations, rotation_clearance, grid)
    if min_level is None:
        if rotations:
            raise CpsolveError("quarter turns count only towards a level: give --min-level too", field="rotations")
        return None
    try:
        minimum = parse_level(min_level)
    except ValueError as exc:
        raise CpsolveError(str(exc), field="min_level") from None
    try:
        check_grid(grid)
    except CpsolveError as exc:  # the level asked for is what cannot be had on this grid
        raise CpsolveError(exc.message, field="min_level") from None
    return design.LevelRule(minimum, rotations, clearance)


@dataclass(frozen=True)
class Suggestion:
    """One change that leaves exactly one assembly (`design_unique`)."""

    text: str
    """The change in words."""
    detail: Mapping[str, object]
    orbit: int
    """How many changes of the same kind it stands for, by the container's rotations."""
    verified_total: int | None
    """The total count of the changed puzzle, enumerated again to prove it (1)."""
    file_text: str
    """The changed puzzle as a puzzle file."""
    file: str | None = None
    """Where it was written (`puzzles=`), if it was."""

    def as_json(self) -> dict[str, object]:
        return {"change": self.text, **self.detail, "orbit": self.orbit, "verified_total": self.verified_total,
                "file": self.file}


@dataclass(frozen=True)
class UniqueDesign:
    """What `design_unique` found (`cpsolve design unique`)."""

    puzzle: str
    change: str
    assemblies: int
    size: int
    candidates: int
    note: str
    seconds: float
    suggestions: tuple[Suggestion, ...]
    headline: str
    """The summary line the command line prints first."""

    def as_json(self) -> dict[str, object]:
        return {"puzzle": self.puzzle, "change": self.change, "assemblies": self.assemblies, "size": self.size,
                "candidates": self.candidates, "note": self.note or None, "seconds": round(self.seconds, 2),
                "suggestions": [s.as_json() for s in self.suggestions]}


def design_unique(puzzle: Puzzle, change: str = "fix", *, backend: str = "auto", limit: int = 5,
                  puzzles: PathLike | None = None, source: str | None = None) -> UniqueDesign:
    """The fewest changes (one, else two) that leave the puzzle exactly one assembly (`cpsolve design
    unique`): pieces glued in place ("fix"), a cell and one cube of a piece painted alike ("mark"), or a
    cell left empty ("hole"). Each suggestion is proved by enumerating the changed puzzle, and written as
    a puzzle file in the folder `puzzles` when given; `source` is what those files say made them.

    >>> found = cpsolve.design_unique(cpsolve.load("slothouber-graatsma"), "fix", limit=2)
    >>> found.assemblies, [(s.orbit > 0, s.verified_total) for s in found.suggestions]
    (8, [(True, 1), (True, 1)])"""
    from ..analysis.design import unique

    if change not in unique.KINDS:
        raise CpsolveError(f"unknown change {change!r} (one of {', '.join(unique.KINDS)})", field="change")
    start = time.perf_counter()
    found = unique.suggest_changes(puzzle, change, backend, limit,
                                   source=source or f"cpsolve design unique {puzzle.name} --change {change}")
    seconds = time.perf_counter() - start
    out = []
    inputs = [] if not puzzle.origin else [(Path(puzzle.origin), "the puzzle file")]
    for c, file_name in zip(found.changes, found.file_names(), strict=True):
        path = None if puzzles is None else Path(puzzles) / file_name
        if path is not None:
            _write_puzzle_file(Path(puzzles), file_name, c.file_text, inputs)  # type: ignore[arg-type]
        out.append(Suggestion(c.text, MappingProxyType(dict(c.detail)), c.orbit, c.verified_total, c.file_text,
                              None if path is None else str(path)))
    return UniqueDesign(found.puzzle, found.kind, found.assemblies, found.size, found.candidates, found.note,
                        seconds, tuple(out), found.headline(seconds))


def _write_puzzle_file(folder: Path, name: str, text: str, inputs: Sequence[tuple[Path, str]]) -> None:
    """A designed puzzle as a file in `folder` (made if missing), checked and written as every output is
    (`output.files.write_file`): never over an input of the run."""
    from ..output.files import write_file

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CpsolveError(f"cannot make the folder: {exc.strerror or exc}", where=str(folder), exit_code=1) from None
    write_file(folder / name, text, inputs, "--puzzles")
