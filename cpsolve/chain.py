"""Chain (snake) puzzles as an exact-cover problem with side clauses.

A chain of n unit cubes must fill the container. Each cube is a "piece" with one copy whose
placements are the container's cells, so "one cell per cube, one cube per cell" is exactly the
exact-cover structure every backend already solves; the chain's joints become CNF side clauses
over those placements (x[i, a] means cube i sits in cell a):

- TOUCH i j:          x[i, a] -> OR of x[j, b] over the cells b adjacent to a;
- ALIGNED j k at i:   x[j, a] & x[k, b] -> x[i, 2b - a]  (cube k is the midpoint of j and i);
- NOT_ALIGNED j k at i: x[j, a] & x[k, b] -> not x[i, 2b - a].

A chain given as segment lengths (consecutive segments share their end cube and turn by 90 degrees)
is turned into the same constraint list, so both ways of writing a chain give the same model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import CpsolveError
from .geometry import Cell, are_adjacent
from .model import PuzzleFile
from .placements import ExactCoverProblem, Row

KINDS = ("TOUCH", "ALIGNED", "NOT_ALIGNED")


@dataclass(frozen=True, order=True)
class Joint:
    """One constraint on cube `cube`: TOUCH (others = (j,)) or [NOT_]ALIGNED (others = (j, k))."""

    cube: int
    kind: str
    others: tuple[int, ...]


@dataclass(frozen=True)
class Chain:
    n: int
    joints: tuple[Joint, ...]


def chain_from_segments(segments: Sequence[int]) -> Chain:
    """The constraint list of a chain of straight segments: interior cubes straight, joints turning."""
    n = 1 + sum(s - 1 for s in segments)
    corners, at = set(), 0
    for s in segments[:-1]:
        at += s - 1
        corners.add(at)
    joints = []
    for i in range(1, n):
        joints.append(Joint(i, "TOUCH", (i - 1,)))
        if i >= 2:
            joints.append(Joint(i, "NOT_ALIGNED" if i - 1 in corners else "ALIGNED", (i - 2, i - 1)))
    return Chain(n, tuple(joints))


_TOKEN = re.compile(r"-?\d+|[A-Z_]+")


def parse_constraint_list(text: str) -> Chain:
    """Read the seed's C-style list: `CUBE, 0, CUBE, 1, TOUCH, 0, CUBE, 2, TOUCH, 1, ALIGNED, 0, 1, ... -1`.

    Comments (/* */ and //), commas and an optional C declaration around the list are ignored.
    """
    body = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)
    body = body.split("{", 1)[1] if "{" in body else body
    tokens = _TOKEN.findall(body.split("}", 1)[0])
    joints: list[Joint] = []
    cube, pos = -1, 0
    while pos < len(tokens):
        tok = tokens[pos]
        if tok == "-1":
            break
        if tok == "CUBE":
            cube, pos = _expect_cube(tokens, pos, cube + 1), pos + 2
            continue
        if tok not in KINDS:
            raise CpsolveError(f"unknown word {tok!r} (expected CUBE, {', '.join(KINDS)} or -1)", field="chain.constraints")
        if cube < 0:
            raise CpsolveError(f"{tok} before the first CUBE", field="chain.constraints")
        arity = 1 if tok == "TOUCH" else 2
        args = tokens[pos + 1: pos + 1 + arity]
        if len(args) != arity or not all(a.isdigit() for a in args):
            raise CpsolveError(f"{tok} of cube {cube} needs {arity} cube number(s)", field="chain.constraints")
        joints.append(Joint(cube, tok, tuple(int(a) for a in args)))
        pos += 1 + arity
    if cube < 0:
        raise CpsolveError("no CUBE entries", field="chain.constraints")
    chain = Chain(cube + 1, tuple(joints))
    _check_references(chain)
    return chain


def _expect_cube(tokens: list[str], pos: int, expected: int) -> int:
    if pos + 1 >= len(tokens) or tokens[pos + 1] != str(expected):
        got = tokens[pos + 1] if pos + 1 < len(tokens) else "nothing"
        raise CpsolveError(f"expected CUBE, {expected} but found CUBE, {got}", field="chain.constraints")
    return expected


def _check_references(chain: Chain) -> None:
    for j in chain.joints:
        if any(o >= chain.n or o == j.cube for o in j.others) or len(set(j.others)) != len(j.others):
            raise CpsolveError(f"cube {j.cube}: {j.kind} {list(j.others)} names an invalid cube", field="chain.constraints")


def load_chain(spec: PuzzleFile) -> Chain:
    assert spec.chain is not None
    if spec.chain.segments is not None:
        return chain_from_segments(spec.chain.segments)
    return parse_constraint_list(spec.chain.constraints or "")


def is_reversible(chain: Chain) -> bool:
    """True when reading the chain from the other end gives the same constraints (a palindrome).

    Then a folding and the same folding numbered from the other end are one physical assembly.
    """
    def canon(joints, flip):
        out = set()
        for j in joints:
            f = (lambda i: chain.n - 1 - i) if flip else (lambda i: i)
            if j.kind == "TOUCH":
                out.add(("TOUCH", *sorted((f(j.cube), f(j.others[0])))))
            else:  # symmetric in its two ends: the middle cube is the midpoint
                a, mid, b = f(j.others[0]), f(j.others[1]), f(j.cube)
                out.add((j.kind, min(a, b), mid, max(a, b)))
        return out

    return canon(chain.joints, False) == canon(chain.joints, True)


def build_chain_problem(spec: PuzzleFile) -> ExactCoverProblem:
    chain = load_chain(spec)
    cells = spec.container.cells()
    if chain.n != len(cells):
        how = "segments share their end cubes" if spec.chain and spec.chain.segments else "from the constraint list"
        raise CpsolveError(
            f"the chain has {chain.n} cubes ({how}) but the container has {len(cells)} cells", field="chain"
        )
    n_cells = len(cells)
    rows = tuple(Row(i, (a,)) for i in range(chain.n) for a in range(n_cells))
    reverse = tuple(chain.n - 1 - i for i in range(chain.n))
    return ExactCoverProblem(
        name=spec.name,
        cells=cells,
        piece_names=tuple(str(i) for i in range(chain.n)),
        piece_counts=(1,) * chain.n,
        rows=rows,
        side_clauses=tuple(joint_clauses(chain, cells)),
        kind="chain",
        mirror_labels=tuple(range(chain.n)),
        label_symmetries=(reverse,) if is_reversible(chain) else (),
    )


def joint_clauses(chain: Chain, cells: Sequence[Cell]) -> list[tuple[int, ...]]:
    n_cells = len(cells)
    index = {c: i for i, c in enumerate(cells)}

    def lit(cube: int, cell: int) -> int:
        return cube * n_cells + cell + 1

    touching = {frozenset((j.cube, j.others[0])) for j in chain.joints if j.kind == "TOUCH"}
    clauses: list[tuple[int, ...]] = []
    for joint in chain.joints:
        if joint.kind == "TOUCH":
            other = joint.others[0]
            for a, ca in enumerate(cells):
                near = [lit(other, b) for b, cb in enumerate(cells) if are_adjacent(ca, cb)]
                clauses.append((-lit(joint.cube, a), *near))
            continue
        j, k = joint.others
        adjacent_only = frozenset((j, k)) in touching
        for a, ca in enumerate(cells):
            for b, cb in enumerate(cells):
                if a == b or (adjacent_only and not are_adjacent(ca, cb)):
                    continue
                far = index.get(tuple(2 * cb[t] - ca[t] for t in range(3)))  # type: ignore[arg-type]
                head = (-lit(j, a), -lit(k, b))
                if joint.kind == "ALIGNED":
                    clauses.append((*head, lit(joint.cube, far)) if far is not None else head)
                elif far is not None:
                    clauses.append((*head, -lit(joint.cube, far)))
    return clauses
