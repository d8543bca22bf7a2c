"""The breadth-first disassembly search on whole BFS levels at once, with numpy.

Same rules and the same order of moves as `_Search.separate` in disassembly.py (so both find the
same tree); it pays off when a level holds many states (PelikanBurr's 98-move search visits about
7,000), while the plain version is faster for the many tiny searches of a burr census. Per level:

1. free distances of every pair of pieces in every state, looked up in dense per-pair tables
   (the distance to the next collision offset along each line, precomputed over the collision
   offsets' bounding box; outside it the distance grows linearly or is endless);
2. the "drags along" closure of every piece in every direction: reachability through finite
   distances (can a set slide out for ever?) and the bottleneck distance p -> i (the smallest, over
   chains of pieces pushing each other, of the largest gap), so that the set moving with p by k units
   is {i : bottleneck(p, i) < k};
3. the moves, in the plain version's order, sets moving the same way by the same amount merged
   (the rare merges in Python), and the new states deduplicated against all states seen.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..puzzle.geometry import Cell

INF = 1 << 30
DIRS = np.array([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)], dtype=np.int64)


class DenseTable:
    """Free distances of piece j against piece i for every offset in a box around their collisions."""

    def __init__(self, a: Sequence[Cell], b: Sequence[Cell]) -> None:
        pa = np.array(a, dtype=np.int64)
        pb = np.array(b, dtype=np.int64)
        coll = np.unique((pa[:, None, :] - pb[None, :, :]).reshape(-1, 3), axis=0)
        lo = coll.min(axis=0) - 1
        size = coll.max(axis=0) - lo + 2
        grid = np.zeros(tuple(size), dtype=bool)
        grid[tuple((coll - lo).T)] = True
        self.base = lo
        self.size = size
        table = np.empty((6, *size), dtype=np.int64)
        for axis in range(3):
            g = np.moveaxis(grid, axis, 0)
            n = g.shape[0]
            plus = np.empty(g.shape, dtype=np.int64)
            minus = np.empty(g.shape, dtype=np.int64)
            nxt = np.full(g.shape[1:], INF, dtype=np.int64)  # index of the next collision above
            for x in range(n - 1, -1, -1):
                plus[x] = np.where(nxt >= INF, INF, nxt - x - 1)
                nxt = np.where(g[x], x, nxt)
            prv = np.full(g.shape[1:], -INF, dtype=np.int64)
            for x in range(n):
                minus[x] = np.where(prv <= -INF, INF, x - prv - 1)
                prv = np.where(g[x], x, prv)
            table[2 * axis] = np.moveaxis(plus, 0, axis)
            table[2 * axis + 1] = np.moveaxis(minus, 0, axis)
        self.table = table

    def lookup(self, delta: np.ndarray) -> np.ndarray:
        """(S, 6) free distances of j for offsets delta (S, 3) = o_j - o_i."""
        idx = delta - self.base
        cl = np.clip(idx, 0, self.size - 1)
        vals = self.table[:, cl[:, 0], cl[:, 1], cl[:, 2]].T.copy()  # (S, 6)
        for axis in range(3):
            shift = cl[:, axis] - idx[:, axis]
            for k, sign in ((2 * axis, 1), (2 * axis + 1, -1)):
                v = vals[:, k]
                vals[:, k] = np.where(v >= INF, INF, v + sign * shift)
        return vals


class PairTables:
    """The dense tables of every pair of a part in one flat array, so one gather serves all pairs."""

    def __init__(self, tables: Sequence[tuple[DenseTable, Cell]]) -> None:
        """`tables`: per pair, its table and the shift of its shapes (see `_Search.table`)."""
        self.flat = np.concatenate([t.table.ravel() for t, _ in tables])
        sizes = np.array([t.size for t, _ in tables], dtype=np.int64)  # (P, 3)
        self.base = np.array([t.base for t, _ in tables], dtype=np.int64) + np.array([s for _, s in tables])
        self.hi = sizes - 1
        vol = sizes.prod(axis=1)
        self.start = np.concatenate([[0], np.cumsum(6 * vol)[:-1]])  # (P,)
        self.stride = np.stack([sizes[:, 1] * sizes[:, 2], sizes[:, 2], np.ones(len(tables), np.int64)], axis=1)
        self.dstride = vol

    def lookup(self, delta: np.ndarray) -> np.ndarray:
        """(S, P, 6) free distances for offsets delta (S, P, 3) of every pair."""
        idx = delta - self.base
        cl = np.clip(idx, 0, self.hi)
        at = self.start + (cl * self.stride).sum(axis=2)  # (S, P)
        vals = self.flat[at[:, :, None] + np.arange(6) * self.dstride[:, None]]  # (S, P, 6)
        shift = np.repeat(cl - idx, 2, axis=2) * np.array([1, -1, 1, -1, 1, -1])
        return np.where(vals >= INF, INF, vals + shift)


def separate_levels(tables: dict[tuple[int, int], tuple[DenseTable, Cell]], part: Sequence[int], start: Sequence[Cell],
                    max_states: int | None) -> tuple[list[tuple[int, int, int | None]], list[Cell], int] | list[bytes]:
    """The fewest moves until the part splits (as `_Search.separate`), the positions before the last
    one and the number of states seen; or, when it never splits, the keys of every state reached."""
    n = len(part)
    half = n // 2
    full = (1 << n) - 1
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    flat = PairTables([tables[(part[a], part[b])] for a, b in pairs])
    pa = np.array([a for a, _ in pairs])
    pb = np.array([b for _, b in pairs])
    swap = [1, 0, 3, 2, 5, 4]
    pos = np.array([start], dtype=np.int64)  # (S, n, 3)
    seen: set[bytes] = {_keys(pos)[0]}
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # parent, d, mask, amount
    positions: list[np.ndarray] = [pos]
    eye = np.eye(n, dtype=bool)
    bit = np.int64(1) << np.arange(n, dtype=np.int64)
    while len(pos):
        S = len(pos)
        F = np.full((S, 6, n, n), INF, dtype=np.int64)
        f = flat.lookup(pos[:, pb] - pos[:, pa]).transpose(0, 2, 1)  # (S, 6, P): b slides, a fixed
        F[:, :, pb, pa] = f
        F[:, :, pa, pb] = f[:, swap]
        # -- bottleneck(p, i): the set moving with p by k units is {i : bottleneck(p, i) < k}
        B = np.where(eye, -1, F)
        for k in range(n):
            B = np.minimum(B, np.maximum(B[:, :, :, k, None], B[:, :, None, k, :]))
        # -- removals: everything a piece drags along when it slides for ever
        reach = B < INF
        size = reach.sum(axis=3)  # (S, 6, n)
        single = size == 1
        group = size <= half
        has_single = single.any(axis=(1, 2))
        has_group = group.any(axis=(1, 2))
        found = np.flatnonzero(has_single | has_group)
        if len(found):
            s = int(found[0])
            which = single[s] if has_single[s] else group[s]
            d, p = (int(v) for v in np.argwhere(which)[0])
            mask = int((reach[s, d, p] * bit).sum())
            before: list[Cell] = [(int(c[0]), int(c[1]), int(c[2])) for c in positions[-1][s]]
            return _path(levels, s, d, mask), before, len(seen)
        # -- finite moves
        order = np.argsort(B, axis=3, kind="stable")
        vals = np.take_along_axis(B, order, axis=3)
        masks = np.bitwise_or.accumulate(bit[order], axis=3)
        m_idx = np.arange(half)
        lower = np.maximum(vals[..., m_idx] + 1, 1)  # (S, 6, n, half): amounts of the set of the m+1 first
        upper = vals[..., m_idx + 1]
        count = np.where(upper >= INF, 0, upper - lower + 1)
        s_i, d_i, p_i, m_i = np.nonzero(count > 0)
        reps = count[s_i, d_i, p_i, m_i]
        first = lower[s_i, d_i, p_i, m_i]
        mk = masks[s_i, d_i, p_i, m_i]
        total = int(reps.sum())
        rs = np.repeat(s_i, reps)
        rd = np.repeat(d_i, reps)
        rp = np.repeat(p_i, reps)
        rm = np.repeat(mk, reps)
        offs = np.arange(total) - np.repeat(np.cumsum(reps) - reps, reps)
        ra = np.repeat(first, reps) + offs
        # first occurrence of each set per (state, direction, amount), in the plain version's order
        gkey = (rs * 6 + rd) * (int(ra.max(initial=0)) + 1) + ra
        _, first_idx = np.unique((gkey << n) | rm, return_index=True)
        keep = np.sort(first_idx)
        rs, rd, rp, ra, rm, gkey = rs[keep], rd[keep], rp[keep], ra[keep], rm[keep], gkey[keep]
        sub = np.zeros(len(rs), dtype=np.int64)
        _, ginv, gcount = np.unique(gkey, return_inverse=True, return_counts=True)
        multi = gcount[ginv] > 1
        if multi.any():
            rs, rd, rp, ra, rm, sub = _merged(rs, rd, rp, ra, rm, sub, multi, ginv, gcount, full)
        o = np.lexsort((sub, ra, rp, rd, rs))
        rs, rd, ra, rm = rs[o], rd[o], ra[o], rm[o]
        moving = ((rm[:, None] >> np.arange(n)) & 1).astype(np.int64)  # (M, n)
        step = DIRS[rd] * ra[:, None]  # (M, 3)
        new = pos[rs] + moving[:, :, None] * step[:, None, :]
        keys = _keys(new)
        fresh = []
        for i, kb in enumerate(keys):
            if kb not in seen:
                seen.add(kb)
                fresh.append(i)
        if max_states is not None and len(seen) > max_states:
            raise OverflowError(len(seen))
        idx = np.array(fresh, dtype=np.int64)
        levels.append((rs[idx], rd[idx], rm[idx], ra[idx]))
        pos = new[idx]
        positions.append(pos)
    return list(seen)


def _merged(rs: np.ndarray, rd: np.ndarray, rp: np.ndarray, ra: np.ndarray, rm: np.ndarray, sub: np.ndarray,
            multi: np.ndarray, group: np.ndarray, gcount: np.ndarray, full: int) -> tuple[np.ndarray, ...]:
    """Add the unions of sets that move the same way by the same amount, as the plain version does:
    each new set is followed by its unions with every set already listed for that amount. Groups of
    two sets (the common case) in numpy, bigger ones in Python."""
    extra: list[tuple[int, int, int, int, int, int]] = []
    drop: list[int] = []
    two = np.flatnonzero(multi & (gcount[group] == 2))
    if len(two):
        order = two[np.argsort(group[two], kind="stable")]  # pairs (first, second) of each group
        first, second = order[0::2], order[1::2]
        u = rm[first] | rm[second]
        ok = (u != full) & (u != rm[first]) & (u != rm[second])
        extra_arr = np.stack([rs[second], rd[second], rp[second], ra[second], u, np.ones_like(u)], axis=1)[ok]
    else:
        extra_arr = np.zeros((0, 6), dtype=np.int64)
    by_group: dict[int, list[int]] = {}
    big = np.flatnonzero(multi & (gcount[group] > 2))
    for i, g in zip(big.tolist(), group[big].tolist(), strict=True):
        by_group.setdefault(g, []).append(i)
    masks = rm.tolist()
    ps = rp.tolist()
    for rows in by_group.values():
        sets: list[int] = []
        known: set[int] = set()
        s0, d0, a0 = int(rs[rows[0]]), int(rd[rows[0]]), int(ra[rows[0]])  # the same for the whole group
        for i in rows:  # already in (p, amount) order
            m = masks[i]
            if m in known:
                drop.append(i)
                continue
            merged = [m]
            known.add(m)
            for s in sets:
                u = s | m
                if u not in known and u != full:
                    merged.append(u)
                    known.add(u)
            sets.extend(merged)
            p = ps[i]
            for j in range(1, len(merged)):
                extra.append((s0, d0, p, a0, merged[j], j))
    keep = np.ones(len(rs), dtype=bool)
    keep[drop] = False
    cols = [c[keep] for c in (rs, rd, rp, ra, rm, sub)]
    add = np.concatenate([extra_arr, np.array(extra, dtype=np.int64).reshape(-1, 6)])
    if len(add):
        cols = [np.concatenate([c, add[:, k]]) for k, c in enumerate(cols)]
    return tuple(cols)


def _keys(pos: np.ndarray) -> list[bytes]:
    """Each state's offsets relative to its first piece, as bytes (the visited-set key)."""
    rel = (pos[:, 1:, :] - pos[:, :1, :]).astype(np.int32)
    return [r.tobytes() for r in rel.reshape(len(pos), 3 * (pos.shape[1] - 1))]


def _path(levels: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], s: int, d: int,
          mask: int) -> list[tuple[int, int, int | None]]:
    out: list[tuple[int, int, int | None]] = [(d, mask, None)]
    for parent, dirs, masks, amounts in reversed(levels):
        out.append((int(dirs[s]), int(masks[s]), int(amounts[s])))
        s = int(parent[s])
    out.reverse()
    return out
