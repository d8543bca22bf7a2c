"""Chain (snake) puzzles: the chain as a list of joints, read from segment lengths or a constraint list.

Per cube: TOUCH j (a face neighbour of cube j), ALIGNED j k (cubes j, k and this one in a straight
line), NOT_ALIGNED j k (a turn at k). `cpsolve.problem.chains` turns the joints into clauses. A chain
given as segment lengths (consecutive segments share their end cube and turn by 90 degrees)
is turned into the same constraint list, so both ways of writing a chain give the same model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import CpsolveError

if TYPE_CHECKING:
    from .schema import ChainSpec

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


_TOKEN = re.compile(r"-?\d+|[A-Za-z_]+")


def parse_constraint_list(text: str) -> Chain:
    """Read the seed's C-style list: `CUBE, 0, CUBE, 1, TOUCH, 0, CUBE, 2, TOUCH, 1, ALIGNED, 0, 1, ... -1`.

    Comments (/* */ and //), commas and an optional C declaration around the list are ignored.
    """
    body = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)
    body = body.split("{", 1)[1] if "{" in body else body
    tokens = [t.upper() for t in _TOKEN.findall(body.split("}", 1)[0])]  # `touch 0` reads as TOUCH 0
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
            raise CpsolveError(f"unknown word {tok!r} (expected CUBE, {', '.join(KINDS)} or -1)",
                               field="chain.constraints")
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
            raise CpsolveError(f"cube {j.cube}: {j.kind} {list(j.others)} names an invalid cube",
                               field="chain.constraints")


def chain_of(spec: ChainSpec) -> Chain:
    """The chain a file describes, from whichever of its two forms it uses."""
    if spec.segments is not None:
        return chain_from_segments(spec.segments)
    return parse_constraint_list(spec.constraints or "")


def is_reversible(chain: Chain) -> bool:
    """True when reading the chain from the other end gives the same constraints (a palindrome).

    Then a folding and the same folding numbered from the other end are one physical assembly.
    """
    def canon(joints: Sequence[Joint], flip: bool) -> set[tuple[object, ...]]:
        def f(i: int) -> int:
            return chain.n - 1 - i if flip else i

        out: set[tuple[object, ...]] = set()
        for j in joints:
            if j.kind == "TOUCH":
                out.add(("TOUCH", *sorted((f(j.cube), f(j.others[0])))))
            else:  # symmetric in its two ends: the middle cube is the midpoint
                a, mid, b = f(j.others[0]), f(j.others[1]), f(j.cube)
                out.add((j.kind, min(a, b), mid, max(a, b)))
        return out

    return canon(chain.joints, False) == canon(chain.joints, True)
