/*
 * cpsolve._xcover: the exact-cover search behind the `dlx` backend, with no Python per node.
 *
 * Why this shape (measured on Bedlam, see results/benchmarks.md):
 *  - Placements are bitboards (W 64-bit words, W = ceil(cells / 64)), so "does this placement still
 *    fit" is W ANDs.
 *  - Each search level keeps the list of placements that still fit (disjoint from the filled cells,
 *    piece still available). Building a child's list also counts, per empty cell, how many live
 *    placements cover it, so the next cell to fill is the one with the fewest candidates (MRV) at no
 *    extra pass; a cell with no candidate prunes the branch at once.
 *  - Optionally (region_pruning=True), when the empty cells fall apart into several face-connected
 *    regions, each region's size must be a sum of remaining piece sizes (a subset-sum bitset). Off by
 *    default: since the arrival test below kills dead children with loads only, the flood fill costs
 *    more than the pockets it prunes on every model measured (Bedlam 5.8 s against 7.0 s, the Y box
 *    2.5 against 4.1, pentominoes 3x4x5 1.8 against 2.3: one core, A/B in one process).
 *  - A child is first tested on arrival (OR of the masks it would keep: an uncoverable cell or a
 *    needed piece without placement kills it, as it does 50-63 % of children) with loads only; only a
 *    live child's list is written, and a node counts its own list (tally) once it is known alive.
 *  - Once a list has at most VMAX entries the subtree is searched transposed (per cell, the set of
 *    live placements covering it; see vsearch_body): same choices, same nodes, far less work each.
 *  - Identical copies are one item with a multiplicity, so each set of placements is found once.
 *  - Designers' generalisations (Knuth's XCC with multiplicities): cells outside `req` are optional
 *    (secondary items, covered at most once) and a piece may be used anywhere in [low, count]. The
 *    search branches on required cells only; once they are covered it reports the set if every
 *    piece has reached its low bound (`short_` copies are still missing otherwise), then, when there
 *    are optional cells, adds further placements (necessarily in optional cells) in list order, so
 *    that each solution is generated once (`extend`). Without these features req == full, low ==
 *    count and short_ stays 0: the hot loop is the same.
 * The GIL is released during search and re-taken only for the solution callback and, every 2^14
 * nodes, to let Ctrl-C through; solutions already passed to the callback are never lost.
 *
 * The state of the search, and how it is undone (in the manner of Knuth's DLX programs):
 *  - Level d (0 <= d <= max_depth) owns four slices, written only when level d-1 creates it and read
 *    only by level d and its descendants: live[d] (the n_live placements that still fit: disjoint
 *    from occ[d], piece not exhausted) and occ[d] (filled cells); counts[d] (per empty cell,
 *    "covered by >= k+1 of them" bit planes) and pcount[d] (live placements per piece) are written
 *    by level d itself from live[d] (tally) and read only by it.
 *  - Invariant on entry to level d: occ[d] is the union of chosen[0..n_chosen-1]; rem[p] is the
 *    count of piece p minus its uses in chosen; bit p of `exhausted` is set iff rem[p] == 0 (p < 64);
 *    live[d] holds exactly the rows r with mask(r) & occ[d] == 0 and rem[piece(r)] > 0.
 *  - A child is made by choosing one live row: push it on `chosen`, decrement rem, set its exhausted
 *    bit when rem reaches 0, and write level d+1's slices from live[d] (never touching level d's).
 *  - Undo is therefore only scalars: pop `chosen`, increment rem and need (short_ with them), restore
 *    `exhausted` and `needed` from the copies saved before the choice. Level d's slices are intact
 *    because children write only above d; nothing else needs restoring, on every path out of the
 *    loop (solution, stop, return).
 *  - All buffers are allocated once per search (ctx_start) with their size from the problem: no
 *    stack array depends on the input.
 *
 * Handing work back (budget > 0; a pool's part that runs far longer than estimated): a node entered
 * once `budget` nodes have been counted is not searched but given back, and so is every branch not
 * yet tried on the way back to the root. Each is recorded as the rows that lead to it (chosen[] at
 * that level plus the untried row), deepest level first, in `rest`; stop == 3 unwinds as any other
 * stop does, so the undo discipline above is untouched. The searched part and the given-back
 * prefixes partition the part's solutions, and searching each prefix as a part of its own meets the
 * same nodes it would have met here (the node given back is counted only there). With optional cells
 * only search nodes look at the budget: an extension phase runs to its end (it has no list of ways
 * that a prefix could name), and the next search node gives back. A given-back row that covers the
 * last required cell is a prefix whose part starts with the same extension phase (the rows that fit,
 * in row order), so nothing is found twice.
 *
 * Layouts: up to 512 cells (64 * MAXW) the search runs on the bitboards below; beyond (or with
 * links=True) on dancing links (see "Dancing links"), the same tree node for node. setup.py also
 * compiles this file with MAXW 32 as _xcover_wide, whose bitboards hold 2048 cells; dlx.py chooses.
 */
#include "_native.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef MAXW
#define MAXW 8 /* bitboards of up to 512 cells; setup.py also builds _xcover_wide with MAXW 32 (see dlx.py) */
#endif
#ifndef XCOVER_MODULE
#define XCOVER_MODULE _xcover
#endif
#define XCOVER_CAT(a, b) a##b
#define XCOVER_INIT(m) XCOVER_CAT(PyInit_, m)
#define XCOVER_STR2(m) #m
#define XCOVER_STR(m) XCOVER_STR2(m)

typedef struct {
    PyObject_HEAD
    int n_cells, W, n_pieces, n_rows, max_depth;
    uint64_t *mask;      /* n_rows * W */
    int *row_piece;      /* n_rows */
    int *cell_start;     /* n_rows + 1, offsets into cells */
    int *cells;          /* concatenated row cells */
    int *piece_count;    /* n_pieces */
    int *piece_size;     /* n_pieces (0 when a piece has no rows) */
    uint64_t *nb;        /* n_cells * W neighbour masks, or NULL (no region pruning) */
    uint64_t full[MAXW];
    uint64_t req[MAXW];  /* required cells (== full without optional cells) */
    int *piece_low;      /* n_pieces: fewest copies a solution uses (== piece_count without ranges) */
    int has_optional;
    struct Links *links; /* the dancing-links layout (containers over 512 cells, or asked for); NULL: bitboards */
} Engine;

#ifndef LEVELS
#define LEVELS 4 /* candidate counts are exact up to LEVELS - 1 (measured: 3 and 5 were slower) */
#endif
typedef struct {
    uint64_t ge[LEVELS][MAXW]; /* ge[k]: cells covered by more than k live placements */
} Counts;

typedef struct UpDown {
    int up, down; /* a node's neighbours in its item's list (together: one cache line holds both) */
} UpDown;

typedef struct {
    Engine *e;
    uint64_t *live;      /* (max_depth + 2) * n_rows entries of W + 1 words (see ENTRY) */
    Counts *counts;      /* (max_depth + 2) */
    int *pcount;         /* (max_depth + 2) * n_pieces: live placements per piece */
    uint64_t *occ;       /* (max_depth + 2) * MAXW: filled cells per level */
    int *rem;            /* n_pieces: copies that may still be placed */
    int *need;           /* n_pieces: copies that must still be placed (low - used, may be negative) */
    int short_;          /* sum of the positive need[p]: 0 when every low bound is met */
    int *chosen;         /* max_depth + 1 */
    int *sorted_rows;    /* max_depth + 1: a solution's rows, sorted for the callback */
    int *scratch;        /* n_cells */
    int n_chosen;
    long long nodes, solutions, max_solutions, scanned, dead;
    int stop;            /* 1 stopped by callback/limit, 2 timeout, 3 budget spent (rest given back),
                            -1 Python error, -2 out of memory while giving back */
    double deadline;     /* monotonic seconds, 0 = none */
    PyObject *callback;
    PyThreadState *ts;
    int region_pruning;
    uint64_t exhausted;  /* bit p: piece p (< 64) has no copy left */
    uint64_t needed;     /* bit p: piece p (< 64) must still be placed (need[p] > 0) */
    long long ticks;     /* search_body and extend calls, for the checkpoint */
    int vertical;        /* lists of at most this many entries are searched transposed (0: never) */
    uint64_t *vlive;     /* (max_depth + 2) * VK_MAX: the transposed search's live set per level */
    uint64_t *vcover;    /* n_cells * VK_MAX: per cell, the numbered placements covering it */
    uint64_t *vpiece_set;/* n_pieces * VK_MAX: per piece, its numbered placements */
    uint64_t *vmask;     /* VMAX * MAXW: the numbered placements' cells */
    int *vrow, *vpiece;  /* VMAX: their rows and pieces */
    int many_pieces;     /* more than 64 pieces: test copies left per entry */
    long long budget;    /* nodes after which the rest is given back (0: never) */
    int *rest;           /* given-back prefixes, each as its length then its rows */
    size_t rest_len, rest_cap;
    /* The dancing-links search's state (see "Dancing links" below); unused by the bitboard search. */
    struct UpDown *ud;   /* n_nodes: the vertical lists, as they stand */
    int *len;            /* n_items: live rows per cell and per piece */
    int *next_req, *prev_req; /* n_cells + 1: the uncovered required cells in order, head n_cells */
    unsigned char *filled; /* n_cells: covered by a chosen row */
    int n_live;          /* rows not hidden: the list the bitboard search would hold */
    int req_left;        /* required cells not covered */
    int zero_req;        /* uncovered required cells with no live row */
    int *ext;            /* the extension phase's lists (optional cells), one after another */
    size_t ext_top, ext_cap;
    int *seen, *queue;   /* n_cells: region pruning's flood fill (seen holds a stamp) */
    uint64_t *sums;      /* n_cells / 64 + 1: region pruning's subset sums */
    int stamp;
} Ctx;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Hand one solution to Python (GIL re-taken); returns nonzero to stop. */
/* Choosing a placement (`row`, of piece p, whose bit is pbit when p < 64) and undoing it: the only
 * writes to the pieces' state. The caller saves `exhausted` and `needed` before `take` and hands
 * them back to `untake`, which restores everything `take` changed, in any order. */
static inline void take(Ctx *c, int row, int p, uint64_t pbit) {
    c->chosen[c->n_chosen++] = row;
    c->rem[p]--;
    c->short_ -= c->need[p]-- > 0;
    if (c->rem[p] == 0) c->exhausted |= pbit;
    if (c->need[p] == 0) c->needed &= ~pbit;
}

static inline void untake(Ctx *c, int p, uint64_t saved_exhausted, uint64_t saved_needed) {
    c->exhausted = saved_exhausted;
    c->needed = saved_needed;
    c->short_ += ++c->need[p] > 0;
    c->rem[p]++;
    c->n_chosen--;
}

/* Record chosen[0..n_chosen-1] followed by `row` (none when row < 0) as a prefix given back. */
static void give_back(Ctx *c, int row) {
    const size_t need = (size_t)c->n_chosen + 2;
    if (c->rest_len + need > c->rest_cap) {
        size_t cap = c->rest_cap ? 2 * c->rest_cap : 1024;
        while (cap < c->rest_len + need) cap *= 2;
        int *grown = realloc(c->rest, sizeof(int) * cap);
        if (grown == NULL) { c->stop = -2; return; } /* reported as MemoryError once the GIL is back */
        c->rest = grown;
        c->rest_cap = cap;
    }
    int *out = c->rest + c->rest_len;
    out[0] = c->n_chosen + (row >= 0);
    memcpy(out + 1, c->chosen, sizeof(int) * (size_t)c->n_chosen);
    if (row >= 0) out[1 + c->n_chosen] = row;
    c->rest_len += (size_t)out[0] + 1;
}

/* On entry to a node: has the budget run out? Then the node itself is given back. */
static inline int over_budget(Ctx *c) {
    if (c->budget == 0 || c->nodes < c->budget) return 0;
    give_back(c, -1);
    if (c->stop == 0) c->stop = 3;
    return 1;
}

static int report(Ctx *c) {
    c->solutions++;
    if (c->callback != NULL && c->callback != Py_None) {
        int *rows = c->sorted_rows;
        memcpy(rows, c->chosen, sizeof(int) * (size_t)c->n_chosen);
        qsort(rows, (size_t)c->n_chosen, sizeof(int), cmp_int);
        PyEval_RestoreThread(c->ts);
        PyObject *tuple = PyTuple_New(c->n_chosen);
        int failed = tuple == NULL;
        for (int i = 0; !failed && i < c->n_chosen; i++) {
            PyObject *v = PyLong_FromLong(rows[i]);
            if (v == NULL) failed = 1; else PyTuple_SET_ITEM(tuple, i, v);
        }
        PyObject *res = failed ? NULL : PyObject_CallOneArg(c->callback, tuple);
        Py_XDECREF(tuple);
        int stop = 0;
        if (res == NULL) {
            c->stop = -1;
            stop = 1;
        } else {
            int truth = PyObject_IsTrue(res);
            Py_DECREF(res);
            if (truth < 0) { c->stop = -1; stop = 1; }
            else if (truth) { c->stop = 1; stop = 1; }
        }
        c->ts = PyEval_SaveThread();
        if (stop) return 1;
    }
    if (c->max_solutions > 0 && c->solutions >= c->max_solutions) {
        c->stop = 1;
        return 1;
    }
    return 0;
}

/* Every 2^14 nodes: Ctrl-C and the deadline. */
static int checkpoint(Ctx *c) {
    if ((++c->ticks & 0x3FFF) != 0) return 0;
    if (c->deadline > 0 && now_seconds() > c->deadline) { c->stop = 2; return 1; }
    PyEval_RestoreThread(c->ts);
    int err = PyErr_CheckSignals();
    c->ts = PyEval_SaveThread();
    if (err < 0) { c->stop = -1; return 1; }
    return 0;
}

/* Can the empty cells' face-connected regions each be filled by the remaining pieces?
 * Sizes only: each region's size must be a subset sum of remaining piece sizes. */
static inline __attribute__((always_inline)) int regions_body(const Engine *e, const Ctx *c,
                                                               const uint64_t *occ, const int W) {
    uint64_t empty[MAXW], region[MAXW], frontier[MAXW], next[MAXW];
    int any = 0;
    for (int w = 0; w < W; w++) { empty[w] = e->full[w] & ~occ[w]; any |= empty[w] != 0; }
    if (!any) return 1;
    int sizes[64], n_regions = 0, total_empty = 0;
    for (int w = 0; w < W; w++) total_empty += __builtin_popcountll(empty[w]);
    while (1) {
        int w0 = 0;
        while (w0 < W && empty[w0] == 0) w0++;
        if (w0 == W) break;
        for (int w = 0; w < W; w++) { region[w] = 0; frontier[w] = 0; }
        frontier[w0] = empty[w0] & (~empty[w0] + 1);
        region[w0] = frontier[w0];
        int size = 1, growing = 1;
        while (growing) {
            for (int w = 0; w < W; w++) next[w] = 0;
            for (int w = 0; w < W; w++) {
                uint64_t f = frontier[w];
                while (f) {
                    int cell = w * 64 + __builtin_ctzll(f);
                    f &= f - 1;
                    const uint64_t *n = e->nb + (size_t)cell * W;
                    for (int v = 0; v < W; v++) next[v] |= n[v];
                }
            }
            growing = 0;
            for (int w = 0; w < W; w++) {
                frontier[w] = next[w] & empty[w] & ~region[w];
                region[w] |= frontier[w];
                if (frontier[w]) { growing = 1; size += __builtin_popcountll(frontier[w]); }
            }
        }
        if (n_regions == 0 && size == total_empty) return 1; /* one region: volumes already agree */
        if (n_regions < 64) sizes[n_regions++] = size;
        for (int w = 0; w < W; w++) empty[w] &= ~region[w];
    }
    /* subset sums of remaining pieces, as a bitset over 0..n_cells */
    uint64_t dp[MAXW + 1] = {0};
    dp[0] = 1;
    const int DW = W + 1;
    for (int p = 0; p < e->n_pieces; p++) {
        for (int k = 0; k < c->rem[p]; k++) {
            int s = e->piece_size[p], ws = s / 64, bs = s % 64;
            for (int w = DW - 1; w >= ws; w--) {
                uint64_t v = dp[w - ws] << bs;
                if (bs && w - ws - 1 >= 0) v |= dp[w - ws - 1] >> (64 - bs);
                dp[w] |= v;
            }
        }
    }
    for (int i = 0; i < n_regions; i++) {
        int s = sizes[i];
        if (!((dp[s / 64] >> (s % 64)) & 1)) return 0;
    }
    return 1;
}

static __attribute__((noinline)) int regions_ok(const Engine *e, const Ctx *c, const uint64_t *occ, const int W) {
    return regions_body(e, c, occ, W);
}

/* Live placements are copied into each level's list as W mask words, one word (row << 32 | piece) and
 * one word with the piece's bit (pieces 0..63; 0 beyond, which falls back to the copies-left array),
 * so filtering is a sequential scan with no indirection. Candidate counts per cell are bit-sliced
 * (at least 1, 2, ..., LEVELS live placements), exact per piece. */
#define ENTRY(W) ((W) + 2)


static inline __attribute__((always_inline)) void count_add(Counts *k, const uint64_t *m, const int W) {
    for (int w = 0; w < W; w++) {
        for (int level = LEVELS - 1; level > 0; level--) k->ge[level][w] |= k->ge[level - 1][w] & m[w];
        k->ge[0][w] |= m[w];
    }
}

/* The empty cell to fill next: -1 if some empty cell has no candidate (dead), else a cell with the
 * fewest candidates up to "LEVELS or more"; *n gets that count (capped at LEVELS). */
static inline __attribute__((always_inline)) int pick_cell(const Counts *k, const uint64_t *occ,
                                                          const uint64_t *full, const int W, int *n) {
    for (int w = 0; w < W; w++)
        if (full[w] & ~occ[w] & ~k->ge[0][w]) return -1;
    for (int level = 0; level < LEVELS - 1; level++)
        for (int w = 0; w < W; w++) {
            uint64_t exact = full[w] & ~occ[w] & ~k->ge[level + 1][w];
            if (exact) { *n = level + 1; return w * 64 + __builtin_ctzll(exact); }
        }
    for (int w = 0; w < W; w++) {
        uint64_t empty = full[w] & ~occ[w];
        if (empty) { *n = LEVELS; return w * 64 + __builtin_ctzll(empty); }
    }
    return -1;
}

/* Near the root every cell has many candidates and the bit-sliced counts cannot tell them apart;
 * there, count exactly (few nodes, and the choice shapes the whole tree below). */
static int exact_pick(Ctx *c, const uint64_t *live, int n_live, const uint64_t *occ, const int W, int *n) {
    const Engine *e = c->e;
    int *cnt = c->scratch;
    memset(cnt, 0, sizeof(int) * (size_t)e->n_cells);
    for (int i = 0; i < n_live; i++) {
        const uint64_t *m = live + (size_t)i * ENTRY(W);
        for (int w = 0; w < W; w++)
            for (uint64_t b = m[w]; b; b &= b - 1) cnt[w * 64 + __builtin_ctzll(b)]++;
    }
    int best = -1;
    *n = 1 << 30;
    for (int cell = 0; cell < e->n_cells; cell++)
        if (!((occ[cell / 64] >> (cell % 64)) & 1) && ((e->req[cell / 64] >> (cell % 64)) & 1) && cnt[cell] < *n) {
            *n = cnt[cell];
            best = cell;
        }
    return best;
}

/* Every required cell is covered (occ[depth]): report the set if the low bounds are met, then add
 * each further live placement in list order, recursing on the entries after it, so every set of
 * extra placements (all in optional cells) is generated exactly once. live[depth] holds only
 * placements that fit. */
static void extend(Ctx *c, int depth, int n_live, const int W) {
    const Engine *e = c->e;
    const int E = ENTRY(W);
    c->nodes++;
    if (checkpoint(c)) return;
    if (c->short_ == 0 && report(c)) return;
    if (c->short_ > n_live) return;
    const uint64_t *live = c->live + (size_t)depth * e->n_rows * E;
    const uint64_t *occ = c->occ + (size_t)depth * MAXW;
    uint64_t *child = c->live + (size_t)(depth + 1) * e->n_rows * E;
    uint64_t *nocc = c->occ + (size_t)(depth + 1) * MAXW;
    for (int i = 0; i < n_live; i++) {
        const uint64_t *m = live + (size_t)i * E;
        const int p = (int)(uint32_t)m[W];
        for (int w = 0; w < W; w++) nocc[w] = occ[w] | m[w];
        c->chosen[c->n_chosen++] = (int)(m[W] >> 32);
        c->rem[p]--;
        c->short_ -= c->need[p]-- > 0;
        int n_child = 0;
        for (int j = i + 1; j < n_live; j++) {
            const uint64_t *mq = live + (size_t)j * E;
            const int q = (int)(uint32_t)mq[W];
            uint64_t clash = 0;
            for (int w = 0; w < W; w++) clash |= mq[w] & nocc[w];
            if (clash || c->rem[q] == 0) continue;
            memcpy(child + (size_t)n_child * E, mq, sizeof(uint64_t) * (size_t)E);
            n_child++;
        }
        extend(c, depth + 1, n_child, W);
        c->short_ += ++c->need[p] > 0;
        c->rem[p]++;
        c->n_chosen--;
        if (c->stop) return;
    }
}

/* The placement just chosen at `depth` covered the last required cell (its cells: nocc): collect
 * the live placements that still fit into level depth + 1 and enumerate the extensions. */
static void finish(Ctx *c, int depth, int n_live, const uint64_t *nocc, const int W) {
    const Engine *e = c->e;
    const int E = ENTRY(W);
    const uint64_t *live = c->live + (size_t)depth * e->n_rows * E;
    uint64_t *child = c->live + (size_t)(depth + 1) * e->n_rows * E;
    int n_child = 0;
    for (int j = 0; j < n_live; j++) {
        const uint64_t *mq = live + (size_t)j * E;
        uint64_t clash = 0;
        for (int w = 0; w < W; w++) clash |= mq[w] & nocc[w];
        if (clash || c->rem[(int)(uint32_t)mq[W]] == 0) continue;
        memcpy(child + (size_t)n_child * E, mq, sizeof(uint64_t) * (size_t)E);
        n_child++;
    }
    extend(c, depth + 1, n_child, W);
}

/* The three passes over a level's list, each a small function of its own (one per width W) so that
 * its accumulators stay in registers: inlined into the large search body, GCC spilled them to the
 * stack and every entry paid a store-to-load round trip (measured: the arrival test ran 3x slower).
 *
 * arrive: would the child made by filling `nocc` (pieces in `exhausted` used up) be alive? Nonzero
 * when some required empty cell or needed piece (bit in `needed`) has no entry left. Loads only. */
static inline __attribute__((always_inline)) uint64_t arrive_body(
    const uint64_t *live, int n_live, const uint64_t *nocc, const uint64_t *req, uint64_t exhausted,
    uint64_t needed, const int W) {
    const int E = ENTRY(W);
    uint64_t cover[MAXW] = {0}, pieces = 0;
    for (int j = 0; j < n_live; j++) {
        const uint64_t *mq = live + (size_t)j * E;
        uint64_t clash = mq[W + 1] & exhausted;
        for (int w = 0; w < W; w++) clash |= mq[w] & nocc[w];
        const uint64_t keep_mask = (uint64_t)0 - (uint64_t)(clash == 0);
        for (int w = 0; w < W; w++) cover[w] |= mq[w] & keep_mask;
        pieces |= mq[W + 1] & keep_mask;
    }
    uint64_t hole = needed & ~pieces;
    for (int w = 0; w < W; w++) hole |= req[w] & ~nocc[w] & ~cover[w];
    return hole;
}

/* filter: copy the entries that fit into `child` (branch-free: the keep test is unpredictable, so
 * every entry is written and only kept ones advance the output); returns how many were kept. With
 * more than 64 pieces the piece bits are 0 and `rem` says which pieces are used up. */
static inline __attribute__((always_inline)) int filter_body(
    const uint64_t *live, int n_live, const uint64_t *nocc, uint64_t exhausted, uint64_t *child,
    const int *rem, const int W) {
    const int E = ENTRY(W);
    int n_child = 0;
    for (int j = 0; j < n_live; j++) {
        const uint64_t *mq = live + (size_t)j * E;
        uint64_t clash = mq[W + 1] & exhausted;
        for (int w = 0; w < W; w++) clash |= mq[w] & nocc[w];
        const int keep = (clash == 0) & (rem == NULL || rem[(int)(uint32_t)mq[W]] != 0);
        uint64_t *dst = child + (size_t)n_child * E;
        for (int w = 0; w < E; w++) dst[w] = mq[w];
        n_child += keep;
    }
    return n_child;
}

/* tally: a node's own counts, bit-sliced per cell and exact per piece (rows come grouped by piece:
 * a run is counted in a register and stored when the piece changes). */
static inline __attribute__((always_inline)) void tally_body(
    const uint64_t *live, int n_live, Counts *counts, int *pcount, const int W) {
    const int E = ENTRY(W);
    Counts k;
    memset(&k, 0, sizeof(k));
    int run_piece = 0, run = 0;
    for (int j = 0; j < n_live; j++) {
        const uint64_t *m = live + (size_t)j * E;
        const int q = (int)(uint32_t)m[W];
        if (q != run_piece) { pcount[run_piece] += run; run_piece = q; run = 0; }
        run++;
        count_add(&k, m, W);
    }
    pcount[run_piece] += run;
    *counts = k;
}

#define PASSES(SUFFIX, WIDTH)                                                                              \
    static __attribute__((noinline)) uint64_t arrive_##SUFFIX(const uint64_t *live, int n_live,           \
        const uint64_t *nocc, const uint64_t *req, uint64_t exhausted, uint64_t needed, int W) {          \
        return arrive_body(live, n_live, nocc, req, exhausted, needed, WIDTH);                            \
    }                                                                                                     \
    static __attribute__((noinline)) int filter_##SUFFIX(const uint64_t *live, int n_live,                \
        const uint64_t *nocc, uint64_t exhausted, uint64_t *child, const int *rem, int W) {               \
        return filter_body(live, n_live, nocc, exhausted, child, rem, WIDTH);                             \
    }                                                                                                     \
    static __attribute__((noinline)) void tally_##SUFFIX(const uint64_t *live, int n_live, Counts *counts, \
        int *pcount, int W) {                                                                             \
        tally_body(live, n_live, counts, pcount, WIDTH);                                                  \
    }
PASSES(w1, 1)
PASSES(w2, 2)
PASSES(w4, 4)
PASSES(wn, W)

typedef struct {
    uint64_t (*arrive)(const uint64_t *, int, const uint64_t *, const uint64_t *, uint64_t, uint64_t, int);
    int (*filter)(const uint64_t *, int, const uint64_t *, uint64_t, uint64_t *, const int *, int);
    void (*tally)(const uint64_t *, int, Counts *, int *, int);
} Passes;

/* ---- The transposed search, for subtrees with at most VMAX live placements -------------------------
 *
 * Deep in the tree the live lists are short, and it pays to turn them on their side: number the
 * n <= VMAX live placements 0..n-1 in list order, and keep, per cell, the set of those placements
 * that cover it (vcover, K words of bits) and, per piece, its placements (vpiece_set). A node is
 * then one K-word set L of live placements, and
 *  - a child's set is L minus the sets of the new placement's cells (and of its piece when that is
 *    used up): a handful of K-word ORs, where the list filter read every entry;
 *  - a cell's candidate count is popcount(vcover[cell] & L), a piece's popcount(vpiece_set[p] & L);
 *  - the arrival test asks each empty required cell (and each needed piece) for a nonzero AND.
 * The choices are exactly those of the list search (the first cell with the fewest candidates, then a
 * single-copy piece with strictly fewer, candidates in list order, the same region test), so nodes,
 * dead ends, solutions and their order are the same; tests check it against the list search and
 * against the Python twin (cpsolve/search/xcover_twin.py).
 *
 * State and undo: level d's set is vlive[d], written only by level d - 1 (or by vertical_enter for
 * the level where the subtree starts) and read by level d and below; occ[d], chosen, rem, need,
 * short_, exhausted and needed follow the same discipline as in the list search. The numbering
 * (vrow, vpiece, vmask, vcover, vpiece_set) is made once when a subtree starts and is read-only in
 * it; the list search never resumes inside a transposed subtree, so the next subtree may rebuild it. */
#define VMAX 512 /* measured on the Y-pentacube box: 512 beat 256 (1.5x) and 1024 (1.4x) */
#define VK_MAX (VMAX / 64)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define VTARGET __attribute__((target("popcnt"))) /* one instruction where the CPU has it (checked) */
#else
#define VTARGET
#endif

/* The region test compiled for the transposed search, with the popcount instruction. */
static VTARGET __attribute__((noinline)) int regions_ok_v(const Engine *e, const Ctx *c, const uint64_t *occ,
                                                          const int W) {
    return regions_body(e, c, occ, W);
}

static inline __attribute__((always_inline)) void vsearch_body(Ctx *c, int depth, const int K,
                                                              void (*recurse)(Ctx *, int)) {
    const Engine *e = c->e;
    const int W = e->W;
    if (over_budget(c)) return;
    c->nodes++;
    if (checkpoint(c)) return;
    const uint64_t *L = c->vlive + (size_t)depth * VK_MAX;
    const uint64_t *occ = c->occ + (size_t)depth * MAXW;
    int n_live = 0;
    for (int k = 0; k < K; k++) n_live += __builtin_popcountll(L[k]);
    /* The first empty required cell with the fewest candidates. Below the subtree's first node every
     * node passed the arrival test (no empty cell without a candidate), so a count of 1 is the
     * minimum and ends the scan. */
    int best = -1, best_count = 1 << 30;
    const int sure = depth > 0;
    for (int w = 0; w < W && !(sure && best_count == 1); w++)
        for (uint64_t b = e->req[w] & ~occ[w]; b; b &= b - 1) {
            const int cell = w * 64 + __builtin_ctzll(b);
            const uint64_t *cv = c->vcover + (size_t)cell * VK_MAX;
            int n = 0;
            for (int k = 0; k < K; k++) n += __builtin_popcountll(cv[k] & L[k]);
            if (n < best_count) {
                best_count = n;
                best = cell;
                if (n == 0) { c->dead++; return; }
                if (sure && n == 1) break;
            }
        }
    int best_piece = -1;
    for (int p = 0; p < e->n_pieces; p++) {
        const int left = c->rem[p];
        if (left == 0) continue;
        const uint64_t *pv = c->vpiece_set + (size_t)p * VK_MAX;
        int n = 0;
        for (int k = 0; k < K; k++) n += __builtin_popcountll(pv[k] & L[k]);
        if (n < c->need[p]) { c->dead++; return; }
        if (left == 1 && c->need[p] == 1 && n < best_count) { best_count = n; best_piece = p; }
    }
    if (c->region_pruning && !regions_ok_v(e, c, occ, W)) return;
    const uint64_t *by = best_piece >= 0 ? c->vpiece_set + (size_t)best_piece * VK_MAX
                                         : c->vcover + (size_t)best * VK_MAX;
    uint64_t *child = c->vlive + (size_t)(depth + 1) * VK_MAX;
    uint64_t *nocc = c->occ + (size_t)(depth + 1) * MAXW;
    for (int kk = 0; kk < K; kk++) {
        for (uint64_t cand = by[kk] & L[kk]; cand; cand &= cand - 1) {
            const int i = kk * 64 + __builtin_ctzll(cand);
            const uint64_t *m = c->vmask + (size_t)i * MAXW;
            const int p = c->vpiece[i];
            int done = 1;
            for (int w = 0; w < W; w++) {
                nocc[w] = occ[w] | m[w];
                done &= (nocc[w] & e->req[w]) == e->req[w];
            }
            const uint64_t pbit = p < 64 ? (uint64_t)1 << p : 0;
            const uint64_t saved_exhausted = c->exhausted, saved_needed = c->needed;
            take(c, c->vrow[i], p, pbit);
            if (done) {
                if (c->short_ == 0 && report(c)) {
                    untake(c, p, saved_exhausted, saved_needed);
                    return;
                }
            } else {
                c->scanned += n_live;
                uint64_t kill[VK_MAX];
                for (int k = 0; k < K; k++) kill[k] = 0;
                if (c->rem[p] == 0) {
                    const uint64_t *pv = c->vpiece_set + (size_t)p * VK_MAX;
                    for (int k = 0; k < K; k++) kill[k] = pv[k];
                }
                for (int w = 0; w < W; w++)
                    for (uint64_t b = m[w]; b; b &= b - 1) {
                        const uint64_t *cv = c->vcover + (size_t)(w * 64 + __builtin_ctzll(b)) * VK_MAX;
                        for (int k = 0; k < K; k++) kill[k] |= cv[k];
                    }
                for (int k = 0; k < K; k++) child[k] = L[k] & ~kill[k];
                /* arrival test: every empty required cell and every needed piece keeps a candidate */
                int dead = 0;
                for (uint64_t b = c->needed; b && !dead; b &= b - 1) {
                    const uint64_t *pv = c->vpiece_set + (size_t)__builtin_ctzll(b) * VK_MAX;
                    uint64_t any = 0;
                    for (int k = 0; k < K; k++) any |= pv[k] & child[k];
                    dead = any == 0;
                }
                for (int w = 0; w < W && !dead; w++)
                    for (uint64_t b = e->req[w] & ~nocc[w]; b; b &= b - 1) {
                        const uint64_t *cv = c->vcover + (size_t)(w * 64 + __builtin_ctzll(b)) * VK_MAX;
                        uint64_t any = 0;
                        for (int k = 0; k < K; k++) any |= cv[k] & child[k];
                        if (any == 0) { dead = 1; break; }
                    }
                if (dead) { c->nodes++; c->dead++; }
                else recurse(c, depth + 1);
            }
            untake(c, p, saved_exhausted, saved_needed);
            if (c->stop) {
                if (c->stop == 3) { /* give back the ways not yet tried here, in order */
                    for (uint64_t b = cand & (cand - 1); b; b &= b - 1) give_back(c, c->vrow[kk * 64 + __builtin_ctzll(b)]);
                    for (int k2 = kk + 1; k2 < K; k2++)
                        for (uint64_t b = by[k2] & L[k2]; b; b &= b - 1) give_back(c, c->vrow[k2 * 64 + __builtin_ctzll(b)]);
                }
                return;
            }
        }
    }
}

static VTARGET void vsearch_k1(Ctx *c, int depth) { vsearch_body(c, depth, 1, vsearch_k1); }
static VTARGET void vsearch_k2(Ctx *c, int depth) { vsearch_body(c, depth, 2, vsearch_k2); }
static VTARGET void vsearch_k4(Ctx *c, int depth) { vsearch_body(c, depth, 4, vsearch_k4); }
static VTARGET void vsearch_k8(Ctx *c, int depth) { vsearch_body(c, depth, 8, vsearch_k8); }

/* Number the n_live <= VMAX entries of level depth's list and search that subtree transposed. */
static void vertical_enter(Ctx *c, int depth, int n_live, const int W) {
    const Engine *e = c->e;
    const int E = ENTRY(W);
    const uint64_t *live = c->live + (size_t)depth * e->n_rows * E;
    memset(c->vcover, 0, sizeof(uint64_t) * (size_t)e->n_cells * VK_MAX);
    memset(c->vpiece_set, 0, sizeof(uint64_t) * (size_t)e->n_pieces * VK_MAX);
    uint64_t *L = c->vlive + (size_t)depth * VK_MAX;
    memset(L, 0, sizeof(uint64_t) * VK_MAX);
    for (int i = 0; i < n_live; i++) {
        const uint64_t *m = live + (size_t)i * E;
        const uint64_t bit = (uint64_t)1 << (i % 64);
        c->vrow[i] = (int)(m[W] >> 32);
        c->vpiece[i] = (int)(uint32_t)m[W];
        for (int w = 0; w < W; w++) {
            c->vmask[(size_t)i * MAXW + w] = m[w];
            for (uint64_t b = m[w]; b; b &= b - 1)
                c->vcover[(size_t)(w * 64 + __builtin_ctzll(b)) * VK_MAX + i / 64] |= bit;
        }
        c->vpiece_set[(size_t)c->vpiece[i] * VK_MAX + i / 64] |= bit;
        L[i / 64] |= bit;
    }
    if (n_live <= 64) vsearch_k1(c, depth);
    else if (n_live <= 128) vsearch_k2(c, depth);
    else if (n_live <= 256) vsearch_k4(c, depth);
    else vsearch_k8(c, depth);
}

/* Fill the cell (or single-copy piece) with the fewest live placements, each way; recurse.
 * On entry live[depth] is complete and passed the parent's arrival test (every empty required cell
 * and every piece still needed has a live placement; at the root nothing was tested). The node
 * counts its own list (bit-sliced per cell, exactly per piece) only now that it is known alive:
 * most children die on arrival, and their lists are then never counted. */
static inline __attribute__((always_inline)) void search_body(
    Ctx *c, int depth, int n_live, const int W, void (*recurse)(Ctx *, int, int), const Passes P) {
    const Engine *e = c->e;
    const int E = ENTRY(W);
    if (over_budget(c)) return;
    if (n_live <= c->vertical) { vertical_enter(c, depth, n_live, W); return; }
    c->nodes++;
    if (checkpoint(c)) return;
    const uint64_t *live = c->live + (size_t)depth * e->n_rows * E;
    Counts *counts = &c->counts[depth];
    int *pcount = c->pcount + (size_t)depth * e->n_pieces;
    memset(pcount, 0, sizeof(int) * (size_t)e->n_pieces);
    P.tally(live, n_live, counts, pcount, W);
    uint64_t *occ = c->occ + (size_t)depth * MAXW;
    int best_count = 0;
    int best = pick_cell(counts, occ, e->req, W, &best_count);
    if (best < 0) { c->dead++; return; }
    if (best_count >= LEVELS) best = exact_pick(c, live, n_live, occ, W, &best_count);
    /* A single-copy piece with fewer candidates than the best cell is the better branch (pieces are
     * items too, as in DLX); a piece with fewer candidates than copies left is a dead end. */
    int best_piece = -1;
    for (int p = 0; p < e->n_pieces; p++) {
        int left = c->rem[p];
        if (left == 0) continue;
        int n = pcount[p];
        if (n < c->need[p]) { c->dead++; return; }
        if (left == 1 && c->need[p] == 1 && n < best_count) { best_count = n; best_piece = p; }
    }
    if (c->region_pruning && !regions_ok(e, c, occ, W)) return;
    const int bw = best / 64; /* used when best_piece < 0 */
    const uint64_t bbit = (uint64_t)1 << (best % 64);
    uint64_t *child = c->live + (size_t)(depth + 1) * e->n_rows * E;
    uint64_t *nocc = c->occ + (size_t)(depth + 1) * MAXW;
    for (int i = 0; i < n_live; i++) {
        const uint64_t *m = live + (size_t)i * E;
        const int p = (int)(uint32_t)m[W];
        if (best_piece >= 0 ? p != best_piece : !(m[bw] & bbit)) continue;
        int done = 1;
        for (int w = 0; w < W; w++) {
            nocc[w] = occ[w] | m[w];
            done &= (nocc[w] & e->req[w]) == e->req[w];
        }
        const uint64_t saved_exhausted = c->exhausted, saved_needed = c->needed;
        take(c, (int)(m[W] >> 32), p, m[W + 1]);
        if (done) {
            int stop = 0;
            if (e->has_optional) {
                finish(c, depth, n_live, nocc, W);
                stop = c->stop != 0;
            } else if (c->short_ == 0) {
                stop = report(c);
            }
            if (stop) {
                untake(c, p, saved_exhausted, saved_needed);
                return;
            }
        } else {
            /* First the arrival test alone (loads only, no stores): OR the masks of the entries the
             * child would keep; a child with an uncoverable required cell, or a needed piece
             * without a placement, dies here (most do). Only a live child's list is then written,
             * branch-free (the keep test is unpredictable): every entry is copied and only kept
             * entries advance the output. */
            c->scanned += n_live;
            if (P.arrive(live, n_live, nocc, e->req, c->exhausted, c->needed, W)) { c->nodes++; c->dead++; }
            else recurse(c, depth + 1, P.filter(live, n_live, nocc, c->exhausted, child,
                                                c->many_pieces ? c->rem : NULL, W));
        }
        untake(c, p, saved_exhausted, saved_needed);
        if (c->stop) {
            if (c->stop == 3) /* give back the ways not yet tried here, in list order */
                for (int j = i + 1; j < n_live; j++) {
                    const uint64_t *mj = live + (size_t)j * E;
                    if (best_piece >= 0 ? (int)(uint32_t)mj[W] == best_piece : (mj[bw] & bbit) != 0)
                        give_back(c, (int)(mj[W] >> 32));
                }
            return;
        }
    }
}

#define SEARCH(SUFFIX, WIDTH)                                                                    \
    static void search_##SUFFIX(Ctx *c, int depth, int n_live) {                                \
        const Passes P = {arrive_##SUFFIX, filter_##SUFFIX, tally_##SUFFIX};                     \
        search_body(c, depth, n_live, WIDTH, search_##SUFFIX, P);                                \
    }
SEARCH(w1, 1)
SEARCH(w2, 2)
SEARCH(w4, 4)
SEARCH(wn, c->e->W)

/* The forced rows of a search, read into c->sorted_rows (free until the first solution): how many, or -1
 * with an exception set. */
static Py_ssize_t read_forced(Ctx *c, const Engine *e, PyObject *forced) {
    Py_ssize_t nf = forced == NULL ? 0 : PyObject_Length(forced);
    if (nf < 0) return -1;
    if (nf > e->max_depth) {
        PyErr_Format(PyExc_ValueError, "forced: %zd rows, more than the %d pieces", nf, e->max_depth);
        return -1;
    }
    if (nf > 0 && cps_read_ints(forced, c->sorted_rows, nf, 0, e->n_rows, "forced") < 0) return -1;
    return nf;
}

/* ---- Dancing links, for containers of more than 512 cells ------------------------------------------
 *
 * The bitboard search above keeps each level's list of live placements, W words apiece, with W fixed
 * at compile time (MAXW) so that its loops unroll: its memory is (pieces + 2) x rows x (W + 2) words,
 * which past 512 cells gives out (a 27x27x27 box of 1x1x3 rods would need 6,561 levels x 54,675 rows
 * x 310 words). Larger containers take Knuth's dancing links instead (TAOCP 7.2.2.1, Algorithm X):
 * one node per (row, cell) and per row for its piece, in one vertical list per item (a cell or a
 * piece) kept in row order; choosing a row unlinks every row it conflicts with, undoing it relinks
 * them in reverse. Memory is the rows' size plus a few words per cell and piece, at any depth.
 * `Engine(..., links=True)` takes this layout for any size, so tests can compare it on small problems.
 *
 * It searches the bitboard search's tree, node for node (the tests hold both, and the Python twin, to
 * the same solutions in the same order, the same nodes, dead ends and entries scanned, and the same
 * prefixes given back): the first uncovered required cell with the fewest live rows, unless a needed
 * single-copy piece has strictly fewer; each way in row order; a child whose uncovered required cells
 * or needed pieces have no live row left is counted as a node and a dead end on arrival, before the
 * budget is looked at (the bitboard search tests children before entering them); `scanned` grows by
 * the parent's number of live rows per child, as the bitboard search scans its list; optional cells
 * through the same extension phase, on explicit lists of row numbers.
 *
 * State and undo:
 *  - Items: cell c is item c, piece p is item n_cells + p; item i's list head is node i. Row r's nodes
 *    are row_first[r] .. row_first[r + 1] - 1: its cells in the order given, then its piece.
 *  - A row is live, linked in the list of every item it has, iff none of its cells is filled and its
 *    piece has copies left; otherwise it is hidden: unlinked from every list but the one through
 *    which it was hidden. len[i] is the number of live rows in item i's list, n_live of live rows.
 *  - cover(i) hides every row of item i's list, top to bottom, and for a required cell unlinks the cell
 *    from the list of uncovered required cells (next_req/prev_req, in cell order; req_left counts
 *    them); uncover(i) does the exact reverse, bottom to top. Rows reached through an item's list are
 *    live, so every other item they have is uncovered. zero_req (uncovered required cells with len 0)
 *    is kept by hide, unhide, cover and uncover alike.
 *  - Choosing row x covers its cells in order (the first cover hides x itself) and fills them, takes a
 *    copy of x's piece (rem, need, short_, chosen) and covers the piece's item when that was its last
 *    copy (l_select, for the forced rows). A node covers the item it branches on once for all its
 *    ways, as Algorithm X does, and each way does the rest (l_select_rest); l_unselect_rest and the
 *    node's final uncover undo each step in reverse order. Every path out of a node (a solution, a
 *    stop, the budget) goes through them, so the lists, counts and scalars are as they were on entry.
 *  - The extension phase (required cells all covered, optional cells left) fills cells and takes
 *    copies only; its lists are pushed on `ext` above the parent's and popped on return (as offsets:
 *    the stack may grow and move).
 * The lists are copied from the engine at each search, so searches never share what they change. */
typedef struct Links {
    int n_items, n_nodes;
    int *item;               /* n_nodes: a node's item (a head's: itself) */
    int *row_of;             /* n_nodes: a node's row (heads: -1) */
    int *row_first;          /* n_rows + 1 */
    UpDown *ud0;             /* n_nodes: the lists with every row live */
    int *len0;               /* n_items */
    unsigned char *required; /* n_items: required cells 1, optional cells and pieces 0 */
    int *nb_start, *nb;      /* face neighbours (n_cells + 1 offsets, then cells) for region pruning, or NULL */
    int piece_order;         /* rows come in piece order: live rows gathered piece by piece are in row order */
} Links;

static inline void l_hide(Ctx *c, const Links *L, int node) {
    const int r = L->row_of[node];
    for (int j = L->row_first[r]; j < L->row_first[r + 1]; j++) {
        if (j == node) continue;
        const int u = c->ud[j].up, d = c->ud[j].down, it = L->item[j];
        c->ud[u].down = d;
        c->ud[d].up = u;
        if (--c->len[it] == 0 && L->required[it]) c->zero_req++;
    }
    c->n_live--;
}

static inline void l_unhide(Ctx *c, const Links *L, int node) {
    const int r = L->row_of[node];
    for (int j = L->row_first[r + 1] - 1; j >= L->row_first[r]; j--) {
        if (j == node) continue;
        const int it = L->item[j];
        c->ud[c->ud[j].up].down = j;
        c->ud[c->ud[j].down].up = j;
        if (c->len[it]++ == 0 && L->required[it]) c->zero_req--;
    }
    c->n_live++;
}

static void l_cover(Ctx *c, const Links *L, int it) {
    if (L->required[it]) {
        c->next_req[c->prev_req[it]] = c->next_req[it];
        c->prev_req[c->next_req[it]] = c->prev_req[it];
        c->req_left--;
        if (c->len[it] == 0) c->zero_req--;
    }
    for (int i = c->ud[it].down; i != it; i = c->ud[i].down) l_hide(c, L, i);
}

static void l_uncover(Ctx *c, const Links *L, int it) {
    for (int i = c->ud[it].up; i != it; i = c->ud[i].up) l_unhide(c, L, i);
    if (L->required[it]) {
        c->next_req[c->prev_req[it]] = it;
        c->prev_req[c->next_req[it]] = it;
        c->req_left++;
        if (c->len[it] == 0) c->zero_req++;
    }
}

/* Choose live row x: cover its cells, take a copy of its piece, cover the piece if none is left. */
static void l_select(Ctx *c, const Links *L, int x) {
    const Engine *e = c->e;
    const int last = L->row_first[x + 1] - 1, p = e->row_piece[x]; /* the last node is the piece's */
    for (int j = L->row_first[x]; j < last; j++) {
        l_cover(c, L, L->item[j]);
        c->filled[L->item[j]] = 1;
    }
    c->chosen[c->n_chosen++] = x;
    c->rem[p]--;
    c->short_ -= c->need[p]-- > 0;
    if (c->rem[p] == 0) l_cover(c, L, e->n_cells + p);
}

/* l_select(x) when the item `by` of x (a cell, or x's piece with its last copy) is already covered. */
static inline void l_select_rest(Ctx *c, const Links *L, int x, int by) {
    const Engine *e = c->e;
    const int last = L->row_first[x + 1] - 1, p = e->row_piece[x];
    for (int j = L->row_first[x]; j < last; j++) {
        const int it = L->item[j];
        if (it == by) continue;
        l_cover(c, L, it);
        c->filled[it] = 1;
    }
    c->chosen[c->n_chosen++] = x;
    c->rem[p]--;
    c->short_ -= c->need[p]-- > 0;
    if (c->rem[p] == 0 && by != e->n_cells + p) l_cover(c, L, e->n_cells + p);
}

static inline void l_unselect_rest(Ctx *c, const Links *L, int x, int by) {
    const Engine *e = c->e;
    const int last = L->row_first[x + 1] - 1, p = e->row_piece[x];
    if (c->rem[p] == 0 && by != e->n_cells + p) l_uncover(c, L, e->n_cells + p);
    c->short_ += ++c->need[p] > 0;
    c->rem[p]++;
    c->n_chosen--;
    for (int j = last - 1; j >= L->row_first[x]; j--) {
        const int it = L->item[j];
        if (it == by) continue;
        c->filled[it] = 0;
        l_uncover(c, L, it);
    }
}

/* Room for `more` ints on the extension stack; 0 (stop -2, reported as MemoryError) when there is none. */
static int l_ext_room(Ctx *c, size_t more) {
    if (c->ext_top + more <= c->ext_cap) return 1;
    size_t cap = c->ext_cap ? 2 * c->ext_cap : 1024;
    while (cap < c->ext_top + more) cap *= 2;
    int *grown = realloc(c->ext, sizeof(int) * cap);
    if (grown == NULL) { c->stop = -2; return 0; }
    c->ext = grown;
    c->ext_cap = cap;
    return 1;
}

/* The extension phase on the n rows at ext[at..]: as `extend` above, with row numbers for entries. */
static void l_extend(Ctx *c, const Links *L, size_t at, int n) {
    const Engine *e = c->e;
    c->nodes++;
    if (checkpoint(c)) return;
    if (c->short_ == 0 && report(c)) return;
    if (c->short_ > n) return;
    for (int i = 0; i < n; i++) {
        const int q = c->ext[at + (size_t)i], p = e->row_piece[q];
        const int first = L->row_first[q], last = L->row_first[q + 1] - 1;
        for (int j = first; j < last; j++) c->filled[L->item[j]] = 1;
        c->chosen[c->n_chosen++] = q;
        c->rem[p]--;
        c->short_ -= c->need[p]-- > 0;
        const size_t child = c->ext_top;
        int n_child = 0;
        if (l_ext_room(c, (size_t)(n - i))) {
            for (int k = i + 1; k < n; k++) {
                const int r = c->ext[at + (size_t)k];
                if (c->rem[e->row_piece[r]] == 0) continue;
                int clash = 0;
                for (int j = L->row_first[r]; j < L->row_first[r + 1] - 1 && !clash; j++) clash = c->filled[L->item[j]];
                if (!clash) c->ext[child + (size_t)n_child++] = r;
            }
            c->ext_top = child + (size_t)n_child;
            l_extend(c, L, child, n_child);
            c->ext_top = child;
        }
        c->short_ += ++c->need[p] > 0;
        c->rem[p]++;
        c->n_chosen--;
        for (int j = first; j < last; j++) c->filled[L->item[j]] = 0;
        if (c->stop) return;
    }
}

/* Every required cell is covered: gather the live rows in row order and enumerate the extensions. */
static void l_finish(Ctx *c, const Links *L) {
    const Engine *e = c->e;
    const size_t at = c->ext_top;
    if (!l_ext_room(c, (size_t)c->n_live)) return;
    int n = 0;
    for (int p = 0; p < e->n_pieces; p++) {
        if (c->rem[p] == 0) continue;
        const int head = e->n_cells + p;
        for (int i = c->ud[head].down; i != head; i = c->ud[i].down) c->ext[at + (size_t)n++] = L->row_of[i];
    }
    if (!L->piece_order) qsort(c->ext + at, (size_t)n, sizeof(int), cmp_int);
    c->ext_top = at + (size_t)n;
    l_extend(c, L, at, n);
    c->ext_top = at;
}

/* Region pruning (regions_body's rule, without bitboards): every face-connected region of empty cells
 * must have a size that the copies left can sum to. */
static int l_regions_ok(Ctx *c, const Links *L) {
    const Engine *e = c->e;
    const int n_cells = e->n_cells;
    int total_empty = 0, n_regions = 0, ok = 1;
    for (int cell = 0; cell < n_cells; cell++) total_empty += !c->filled[cell];
    if (total_empty == 0) return 1;
    if (++c->stamp == 1 << 30) { memset(c->seen, 0, sizeof(int) * (size_t)n_cells); c->stamp = 1; }
    const int stamp = c->stamp;
    const int words = n_cells / 64 + 1;
    int sums_ready = 0;
    for (int start = 0; start < n_cells && ok; start++) {
        if (c->filled[start] || c->seen[start] == stamp) continue;
        int head = 0, tail = 0;
        c->queue[tail++] = start;
        c->seen[start] = stamp;
        while (head < tail) {
            const int cell = c->queue[head++];
            for (int k = L->nb_start[cell]; k < L->nb_start[cell + 1]; k++) {
                const int q = L->nb[k];
                if (!c->filled[q] && c->seen[q] != stamp) { c->seen[q] = stamp; c->queue[tail++] = q; }
            }
        }
        if (n_regions++ == 0 && tail == total_empty) return 1; /* one region: volumes already agree */
        if (!sums_ready) { /* subset sums of the copies left, as a bitset over 0..n_cells */
            memset(c->sums, 0, sizeof(uint64_t) * (size_t)words);
            c->sums[0] = 1;
            for (int p = 0; p < e->n_pieces; p++)
                for (int k = 0; k < c->rem[p]; k++) {
                    const int s = e->piece_size[p], ws = s / 64, bs = s % 64;
                    for (int w = words - 1; w >= ws; w--) {
                        uint64_t v = c->sums[w - ws] << bs;
                        if (bs && w - ws - 1 >= 0) v |= c->sums[w - ws - 1] >> (64 - bs);
                        c->sums[w] |= v;
                    }
                }
            sums_ready = 1;
        }
        ok = (c->sums[tail / 64] >> (tail % 64)) & 1;
    }
    return ok;
}

/* A node at `depth`: search_body's rules on the links (see the section's comment). */
static void l_search(Ctx *c, const Links *L, int depth) {
    const Engine *e = c->e;
    const int n_cells = e->n_cells;
    if (depth > 0) { /* the arrival test, which the bitboard search makes before entering a child */
        int dead = c->zero_req > 0;
        for (int p = 0; p < e->n_pieces && !dead; p++) dead = c->need[p] > 0 && c->len[n_cells + p] == 0;
        if (dead) { c->nodes++; c->dead++; return; }
    }
    if (over_budget(c)) return;
    c->nodes++;
    if (checkpoint(c)) return;
    if (c->zero_req) { c->dead++; return; } /* only at the root: children were tested on arrival */
    /* The first uncovered required cell with the fewest live rows: none has 0 now, so a 1 ends the scan. */
    int best = -1, best_count = 1 << 30;
    const int head = n_cells;
    for (int cell = c->next_req[head]; cell != head; cell = c->next_req[cell])
        if (c->len[cell] < best_count) {
            best_count = c->len[cell];
            best = cell;
            if (best_count == 1) break;
        }
    int best_piece = -1;
    for (int p = 0; p < e->n_pieces; p++) {
        if (c->rem[p] == 0) continue;
        const int n = c->len[n_cells + p];
        if (n < c->need[p]) { c->dead++; return; }
        if (c->rem[p] == 1 && c->need[p] == 1 && n < best_count) { best_count = n; best_piece = p; }
    }
    if (c->region_pruning && !l_regions_ok(c, L)) return;
    /* As Algorithm X: the item branched on is covered once for all its ways, then each way covers the
     * rest of its row (l_select_rest); the state each child sees is the one l_select would make. */
    const int by = best_piece >= 0 ? n_cells + best_piece : best;
    const int n_live = c->n_live;
    l_cover(c, L, by);
    if (by < n_cells) c->filled[by] = 1;
    for (int i = c->ud[by].down; i != by; i = c->ud[i].down) {
        const int x = L->row_of[i];
        l_select_rest(c, L, x, by);
        int stop = 0;
        if (c->req_left == 0) {
            if (e->has_optional) {
                l_finish(c, L);
                stop = c->stop != 0;
            } else if (c->short_ == 0) {
                stop = report(c);
            }
        } else {
            c->scanned += n_live;
            l_search(c, L, depth + 1);
            stop = c->stop != 0;
        }
        l_unselect_rest(c, L, x, by);
        if (stop) {
            if (c->stop == 3) /* give back the ways not yet tried here, in row order */
                for (int k = c->ud[i].down; k != by; k = c->ud[k].down) give_back(c, L->row_of[k]);
            break;
        }
    }
    if (by < n_cells) c->filled[by] = 0;
    l_uncover(c, L, by);
}

/* Build the links of an engine whose rows are read (cells, cell_start, row_piece); neighbours as read
 * by links_read_neighbors. Returns -1 with an exception set on failure. */
static int links_build(Engine *e) {
    Links *L = calloc(1, sizeof(Links));
    if (L == NULL) { PyErr_NoMemory(); return -1; }
    e->links = L;
    const int n_cells = e->n_cells, n_rows = e->n_rows;
    const long long n_nodes = (long long)n_cells + e->n_pieces + e->cell_start[n_rows] + n_rows;
    if (n_nodes > (1LL << 30)) {
        PyErr_SetString(PyExc_ValueError, "too many placement cells for the engine (more than 2^30)");
        return -1;
    }
    L->n_items = n_cells + e->n_pieces;
    L->n_nodes = (int)n_nodes;
    L->item = malloc(sizeof(int) * (size_t)n_nodes);
    L->row_of = malloc(sizeof(int) * (size_t)n_nodes);
    L->ud0 = malloc(sizeof(UpDown) * (size_t)n_nodes);
    L->len0 = calloc((size_t)L->n_items + 1, sizeof(int));
    L->row_first = malloc(sizeof(int) * ((size_t)n_rows + 1));
    L->required = calloc((size_t)L->n_items + 1, 1);
    if (!L->item || !L->row_of || !L->ud0 || !L->len0 || !L->row_first || !L->required) {
        PyErr_NoMemory();
        return -1;
    }
    memset(L->required, 1, (size_t)n_cells);
    for (int i = 0; i < L->n_items; i++) {
        L->item[i] = i;
        L->row_of[i] = -1;
        L->ud0[i].up = L->ud0[i].down = i;
    }
    int node = L->n_items;
    L->piece_order = 1;
    for (int r = 0; r < n_rows; r++) {
        if (r > 0 && e->row_piece[r] < e->row_piece[r - 1]) L->piece_order = 0;
        L->row_first[r] = node;
        const int count = e->cell_start[r + 1] - e->cell_start[r];
        for (int k = 0; k <= count; k++, node++) { /* its cells, then its piece */
            const int it = k < count ? e->cells[e->cell_start[r] + k] : n_cells + e->row_piece[r];
            L->item[node] = it;
            L->row_of[node] = r;
            L->ud0[node].up = L->ud0[it].up; /* appended at the bottom: lists stay in row order */
            L->ud0[node].down = it;
            L->ud0[L->ud0[it].up].down = node;
            L->ud0[it].up = node;
            L->len0[it]++;
        }
    }
    L->row_first[n_rows] = node;
    return 0;
}

/* Region pruning assumes every placement lies in one face-connected region (as rows_connected). */
static int links_rows_connected(const Engine *e, int *seen, int *queue) {
    const Links *L = e->links;
    for (int r = 0; r < e->n_rows; r++) {
        const int *cells = e->cells + e->cell_start[r], n = e->cell_start[r + 1] - e->cell_start[r];
        for (int k = 0; k < n; k++) seen[cells[k]] = 1; /* 1: in the row, 2: reached */
        int head = 0, tail = 0;
        queue[tail++] = cells[0];
        seen[cells[0]] = 2;
        while (head < tail) {
            const int cell = queue[head++];
            for (int k = L->nb_start[cell]; k < L->nb_start[cell + 1]; k++)
                if (seen[L->nb[k]] == 1) { seen[L->nb[k]] = 2; queue[tail++] = L->nb[k]; }
        }
        for (int k = 0; k < n; k++) seen[cells[k]] = 0;
        if (tail != n) return 0;
    }
    return 1;
}

/* The most face neighbours a cell has on any grid: 6 for a cube, 5 for a triangular prism, 4 for a
 * tetrahedron, 12 touching balls in the face-centred cubic packing (the sphere grid). */
#define MAX_NEIGHBORS 12

/* The face neighbours (`neighbors`: one list per cell, None for none) as lists: (*start)[c] ..
 * (*start)[c + 1] index cell c's in *nb. Both stay NULL without neighbours; -1 with an exception set. */
static int read_neighbor_lists(const Engine *e, PyObject *neighbors, int **start, int **nb) {
    if (neighbors == NULL || neighbors == Py_None) return 0;
    PyObject *seq = PySequence_Fast(neighbors, "neighbors must be a sequence");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != e->n_cells) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "neighbors: one list per cell expected");
        return -1;
    }
    *start = malloc(sizeof(int) * ((size_t)e->n_cells + 1));
    *nb = malloc(sizeof(int) * (size_t)e->n_cells * MAX_NEIGHBORS + 1);
    int failed = *start == NULL || *nb == NULL, at = 0;
    if (failed) PyErr_NoMemory();
    for (int cell = 0; cell < e->n_cells && !failed; cell++) {
        PyObject *lst = PySequence_Fast_GET_ITEM(seq, cell);
        Py_ssize_t n = PyObject_Length(lst);
        if (n > MAX_NEIGHBORS)
            PyErr_Format(PyExc_ValueError, "neighbors: cell %d has %zd, a cell has at most %d", cell, n, MAX_NEIGHBORS);
        failed = n < 0 || n > MAX_NEIGHBORS || cps_read_ints(lst, *nb + at, n, 0, e->n_cells, "neighbor") < 0;
        (*start)[cell] = at;
        at += (int)n;
    }
    Py_DECREF(seq);
    if (failed) {
        free(*start); free(*nb);
        *start = *nb = NULL;
        return -1;
    }
    (*start)[e->n_cells] = at;
    return 0;
}

/* The links layout keeps the lists (bitboard masks would be n_cells x W words); none: no pruning. */
static int links_read_neighbors(Engine *e, PyObject *neighbors) {
    Links *L = e->links;
    if (read_neighbor_lists(e, neighbors, &L->nb_start, &L->nb) < 0) return -1;
    if (L->nb_start == NULL) return 0;
    int *seen = calloc((size_t)e->n_cells, sizeof(int)), *queue = malloc(sizeof(int) * (size_t)e->n_cells);
    if (!seen || !queue) { free(seen); free(queue); PyErr_NoMemory(); return -1; }
    if (!links_rows_connected(e, seen, queue)) {
        free(L->nb_start); free(L->nb);
        L->nb_start = L->nb = NULL;
    }
    free(seen);
    free(queue);
    return 0;
}

static void links_free(Links *L) {
    if (L == NULL) return;
    free(L->item); free(L->row_of); free(L->row_first); free(L->ud0); free(L->len0);
    free(L->required); free(L->nb_start); free(L->nb);
    free(L);
}

/* The search state over the links: the lists copied, the pieces' counts, the forced rows selected.
 * Returns -1 (exception set), 0 when the forced rows clash, 1 otherwise. */
static int l_start(Ctx *c, Engine *e, PyObject *forced) {
    const Links *L = e->links;
    memset(c, 0, sizeof(*c));
    c->e = e;
    const int n_cells = e->n_cells;
    c->ud = malloc(sizeof(UpDown) * (size_t)L->n_nodes);
    c->len = malloc(sizeof(int) * ((size_t)L->n_items + 1));
    c->next_req = malloc(sizeof(int) * ((size_t)n_cells + 1));
    c->prev_req = malloc(sizeof(int) * ((size_t)n_cells + 1));
    c->filled = calloc((size_t)n_cells, 1);
    c->rem = malloc(sizeof(int) * ((size_t)e->n_pieces + 1));
    c->need = malloc(sizeof(int) * ((size_t)e->n_pieces + 1));
    c->chosen = malloc(sizeof(int) * ((size_t)e->max_depth + 1));
    c->sorted_rows = malloc(sizeof(int) * ((size_t)e->max_depth + 1));
    c->seen = calloc((size_t)n_cells, sizeof(int));
    c->queue = malloc(sizeof(int) * (size_t)n_cells);
    c->sums = malloc(sizeof(uint64_t) * ((size_t)n_cells / 64 + 1));
    if (!c->ud || !c->len || !c->next_req || !c->prev_req || !c->filled || !c->rem || !c->need
        || !c->chosen || !c->sorted_rows || !c->seen || !c->queue || !c->sums) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(c->ud, L->ud0, sizeof(UpDown) * (size_t)L->n_nodes);
    memcpy(c->len, L->len0, sizeof(int) * (size_t)L->n_items);
    memcpy(c->rem, e->piece_count, sizeof(int) * (size_t)e->n_pieces);
    memcpy(c->need, e->piece_low, sizeof(int) * (size_t)e->n_pieces);
    int last = n_cells; /* the list of uncovered required cells, head n_cells */
    for (int cell = 0; cell < n_cells; cell++)
        if (L->required[cell]) {
            c->next_req[last] = cell;
            c->prev_req[cell] = last;
            last = cell;
            c->req_left++;
            c->zero_req += c->len[cell] == 0;
        }
    c->next_req[last] = n_cells;
    c->prev_req[n_cells] = last;
    c->n_live = e->n_rows;
    for (int p = 0; p < e->n_pieces; p++) {
        c->short_ += c->need[p] > 0 ? c->need[p] : 0;
        if (c->rem[p] == 0) l_cover(c, L, n_cells + p); /* no copy to place: its rows are never live */
    }
    const Py_ssize_t nf = read_forced(c, e, forced);
    if (nf < 0) return -1;
    const int *rows = c->sorted_rows;
    for (Py_ssize_t i = 0; i < nf; i++) {
        const int x = rows[i];
        if (c->rem[e->row_piece[x]] <= 0) return 0;
        for (int j = L->row_first[x]; j < L->row_first[x + 1] - 1; j++)
            if (c->filled[L->item[j]]) return 0;
        l_select(c, L, x); /* live: its cells are free and its piece has a copy left */
    }
    c->region_pruning = L->nb != NULL && !e->has_optional;
    return 1;
}

static void l_free(Ctx *c) {
    free(c->ud); free(c->len); free(c->next_req); free(c->prev_req); free(c->filled); free(c->rem);
    free(c->need); free(c->chosen); free(c->sorted_rows); free(c->seen); free(c->queue); free(c->sums); free(c->ext);
    free(c->rest);
}

/* The search from l_start's state (the forced rows selected). */
static void l_run(Ctx *c) {
    const Links *L = c->e->links;
    if (c->req_left > 0) l_search(c, L, 0);
    else if (c->e->has_optional) l_finish(c, L);
    else if (c->short_ == 0) report(c);
}

/* ------------------------------------------------------------------------------------------ */

static void engine_free_arrays(Engine *e) {
    free(e->mask); free(e->row_piece); free(e->cell_start); free(e->cells);
    free(e->piece_count); free(e->piece_size); free(e->nb); free(e->piece_low);
    links_free(e->links);
    e->links = NULL;
    e->mask = NULL; e->row_piece = NULL; e->cell_start = NULL; e->cells = NULL;
    e->piece_count = NULL; e->piece_size = NULL; e->nb = NULL; e->piece_low = NULL;
}

static void Engine_dealloc(Engine *self) {
    engine_free_arrays(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_rows(Engine *e, PyObject *row_cells) {
    PyObject *seq = PySequence_Fast(row_cells, "row_cells must be a sequence");
    if (seq == NULL) return -1;
    Py_ssize_t total = 0;
    for (int r = 0; r < e->n_rows; r++) {
        Py_ssize_t n = PyObject_Length(PySequence_Fast_GET_ITEM(seq, r));
        if (n <= 0) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "row %d covers no cell", r);
            Py_DECREF(seq);
            return -1;
        }
        total += n;
    }
    if (total > INT32_MAX / 2) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "row_cells: too many cells"); return -1; }
    /* bitboards (W > 0) build each row's mask; the links layout only needs to spot a cell given twice */
    e->cells = malloc(sizeof(int) * (size_t)total);
    e->mask = e->W > 0 ? calloc((size_t)e->n_rows * e->W, sizeof(uint64_t)) : NULL;
    int *last_row = e->W > 0 ? NULL : malloc(sizeof(int) * (size_t)e->n_cells);
    if (!e->cells || (e->W > 0 ? !e->mask : !last_row)) { free(last_row); Py_DECREF(seq); PyErr_NoMemory(); return -1; }
    if (last_row != NULL) for (int cell = 0; cell < e->n_cells; cell++) last_row[cell] = -1;
    Py_ssize_t at = 0;
    int failed = 0;
    for (int r = 0; r < e->n_rows && !failed; r++) {
        PyObject *row = PySequence_Fast_GET_ITEM(seq, r);
        Py_ssize_t n = PyObject_Length(row);
        e->cell_start[r] = (int)at;
        if (cps_read_ints(row, e->cells + at, n, 0, e->n_cells, "row cell") < 0) { failed = 1; break; }
        for (Py_ssize_t k = 0; k < n; k++) {
            int cell = e->cells[at + k], twice;
            if (last_row != NULL) {
                twice = last_row[cell] == r;
                last_row[cell] = r;
            } else {
                uint64_t *m = e->mask + (size_t)r * e->W + cell / 64;
                twice = (*m >> (cell % 64)) & 1;
                *m |= (uint64_t)1 << (cell % 64);
            }
            if (twice) {
                PyErr_Format(PyExc_ValueError, "row %d covers cell %d twice", r, cell);
                failed = 1;
                break;
            }
        }
        if (failed) break;
        int p = e->row_piece[r];
        if (e->piece_size[p] && e->piece_size[p] != n) {
            PyErr_Format(PyExc_ValueError, "piece %d has placements of different sizes", p);
            failed = 1;
            break;
        }
        e->piece_size[p] = (int)n;
        at += n;
    }
    free(last_row);
    Py_DECREF(seq);
    if (failed) return -1;
    e->cell_start[e->n_rows] = (int)at;
    return 0;
}

/* The face neighbours of the bitboard layout: one mask of W words per cell (built from the lists). */
static int read_neighbors(Engine *e, PyObject *neighbors) {
    int *start = NULL, *nb = NULL;
    if (read_neighbor_lists(e, neighbors, &start, &nb) < 0) return -1;
    if (start == NULL) return 0; /* no neighbours: no region pruning */
    e->nb = calloc((size_t)e->n_cells * e->W, sizeof(uint64_t));
    if (e->nb != NULL)
        for (int cell = 0; cell < e->n_cells; cell++)
            for (int k = start[cell]; k < start[cell + 1]; k++)
                e->nb[(size_t)cell * e->W + nb[k] / 64] |= (uint64_t)1 << (nb[k] % 64);
    free(start);
    free(nb);
    if (e->nb == NULL) { PyErr_NoMemory(); return -1; }
    return 0;
}

/* Region pruning assumes every placement lies inside one face-connected region: true of polycube
 * pieces, not of arbitrary exact-cover rows. Any row that is not connected turns it off. */
static int rows_connected(const Engine *e) {
    const int W = e->W;
    for (int r = 0; r < e->n_rows; r++) {
        const uint64_t *m = e->mask + (size_t)r * W;
        uint64_t seen[MAXW] = {0}, frontier[MAXW] = {0};
        int first = e->cells[e->cell_start[r]];
        seen[first / 64] = frontier[first / 64] = (uint64_t)1 << (first % 64);
        int size = 1, growing = 1;
        while (growing) {
            uint64_t next[MAXW] = {0};
            for (int w = 0; w < W; w++)
                for (uint64_t f = frontier[w]; f; f &= f - 1) {
                    const uint64_t *n = e->nb + (size_t)(w * 64 + __builtin_ctzll(f)) * W;
                    for (int v = 0; v < W; v++) next[v] |= n[v];
                }
            growing = 0;
            for (int w = 0; w < W; w++) {
                frontier[w] = next[w] & m[w] & ~seen[w];
                seen[w] |= frontier[w];
                size += __builtin_popcountll(frontier[w]);
                growing |= frontier[w] != 0;
            }
        }
        if (size != e->cell_start[r + 1] - e->cell_start[r]) return 0;
    }
    return 1;
}

#define MAX_CELLS (1 << 24) /* the links layout's bound; cpsolve's own limit (limits.py) is far below */

static int Engine_init(Engine *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"n_cells", "piece_counts", "row_piece", "row_cells", "neighbors", "piece_low",
                             "optional", "links", NULL};
    int n_cells, links = 0;
    PyObject *piece_counts, *row_piece, *row_cells, *neighbors = NULL, *piece_low = NULL, *optional = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iOOO|OOO$p", kwlist, &n_cells, &piece_counts, &row_piece,
                                     &row_cells, &neighbors, &piece_low, &optional, &links))
        return -1;
    engine_free_arrays(self);
    if (n_cells <= 0 || n_cells > MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "n_cells must be in 1..%d", MAX_CELLS);
        return -1;
    }
    /* Bitboards up to 512 cells (their width is compiled in), dancing links beyond (or when asked). */
    links = links || n_cells > 64 * MAXW;
    Py_ssize_t n_pieces = PyObject_Length(piece_counts), n_rows = PyObject_Length(row_piece);
    if (n_pieces < 0 || n_rows < 0) return -1;
    if (PyObject_Length(row_cells) != n_rows) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "row_piece and row_cells differ in length");
        return -1;
    }
    if (n_rows > INT32_MAX / 2 || n_pieces > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many rows or pieces");
        return -1;
    }
    self->n_cells = n_cells;
    self->W = links ? 0 : (n_cells + 63) / 64;
    self->n_pieces = (int)n_pieces;
    self->n_rows = (int)n_rows;
    self->piece_count = calloc((size_t)n_pieces + 1, sizeof(int));
    self->piece_low = calloc((size_t)n_pieces + 1, sizeof(int));
    self->piece_size = calloc((size_t)n_pieces + 1, sizeof(int));
    self->row_piece = calloc((size_t)n_rows + 1, sizeof(int));
    self->cell_start = calloc((size_t)n_rows + 1, sizeof(int));
    if (!self->piece_count || !self->piece_low || !self->piece_size || !self->row_piece || !self->cell_start) {
        PyErr_NoMemory();
        return -1;
    }
    if (cps_read_ints(piece_counts, self->piece_count, n_pieces, 0, 1 << 20, "piece_counts") < 0) return -1;
    if (piece_low == NULL || piece_low == Py_None)
        memcpy(self->piece_low, self->piece_count, sizeof(int) * (size_t)n_pieces);
    else if (cps_read_ints(piece_low, self->piece_low, n_pieces, 0, 1 << 20, "piece_low") < 0)
        return -1;
    for (int p = 0; p < n_pieces; p++)
        if (self->piece_low[p] > self->piece_count[p]) {
            PyErr_Format(PyExc_ValueError, "piece %d: low bound %d above count %d", p, self->piece_low[p],
                         self->piece_count[p]);
            return -1;
        }
    if (cps_read_ints(row_piece, self->row_piece, n_rows, 0, (int)n_pieces, "row_piece") < 0) return -1;
    if (read_rows(self, row_cells) < 0) return -1;
    if (links) {
        if (links_build(self) < 0 || links_read_neighbors(self, neighbors) < 0) return -1;
    } else {
        if (read_neighbors(self, neighbors) < 0) return -1;
        if (self->nb != NULL && !rows_connected(self)) { free(self->nb); self->nb = NULL; }
        memset(self->full, 0, sizeof(self->full));
        for (int cell = 0; cell < n_cells; cell++) self->full[cell / 64] |= (uint64_t)1 << (cell % 64);
        memcpy(self->req, self->full, sizeof(self->req));
    }
    self->has_optional = 0;
    if (optional != NULL && optional != Py_None) {
        Py_ssize_t n_opt = PyObject_Length(optional);
        if (n_opt < 0) return -1;
        int *opt = malloc(sizeof(int) * (size_t)(n_opt + 1));
        if (!opt) { PyErr_NoMemory(); return -1; }
        if (cps_read_ints(optional, opt, n_opt, 0, n_cells, "optional") < 0) { free(opt); return -1; }
        for (Py_ssize_t k = 0; k < n_opt; k++) {
            if (links) self->links->required[opt[k]] = 0;
            else self->req[opt[k] / 64] &= ~((uint64_t)1 << (opt[k] % 64));
        }
        free(opt);
        self->has_optional = n_opt > 0;
        /* region sizes need not be sums of piece sizes when cells may stay empty */
        if (self->has_optional) { free(self->nb); self->nb = NULL; }
    }
    long long copies = 0;
    for (int p = 0; p < n_pieces; p++) copies += self->piece_count[p];
    self->max_depth = copies > n_cells ? n_cells : (int)copies;
    return 0;
}

static void ctx_free(Ctx *c) {
    free(c->live); free(c->counts); free(c->pcount); free(c->occ); free(c->rem); free(c->need); free(c->chosen);
    free(c->sorted_rows); free(c->scratch); free(c->rest);
    free(c->vlive); free(c->vcover); free(c->vpiece_set); free(c->vmask); free(c->vrow); free(c->vpiece);
}

/* Allocate the search state, apply the forced rows and build level 0's live list.
 * Returns -1 (exception set), 0 when the forced rows clash, 1 otherwise. */
static int ctx_start(Ctx *c, Engine *e, PyObject *forced, int *n_live) {
    memset(c, 0, sizeof(*c));
    c->e = e;
    const size_t levels = (size_t)e->max_depth + 2, E = (size_t)ENTRY(e->W);
    c->live = malloc(sizeof(uint64_t) * levels * (size_t)(e->n_rows + 1) * E);
    c->counts = calloc(levels, sizeof(Counts));
    c->pcount = calloc(levels * (size_t)(e->n_pieces + 1), sizeof(int));
    c->occ = calloc(levels * MAXW, sizeof(uint64_t));
    c->rem = malloc(sizeof(int) * (size_t)(e->n_pieces + 1));
    c->need = malloc(sizeof(int) * (size_t)(e->n_pieces + 1));
    c->chosen = malloc(sizeof(int) * (size_t)(e->max_depth + 1));
    c->sorted_rows = malloc(sizeof(int) * (size_t)(e->max_depth + 1));
    c->scratch = malloc(sizeof(int) * (size_t)e->n_cells);
    c->vlive = calloc(levels * VK_MAX, sizeof(uint64_t));
    c->vcover = calloc((size_t)e->n_cells * VK_MAX, sizeof(uint64_t));
    c->vpiece_set = calloc((size_t)(e->n_pieces + 1) * VK_MAX, sizeof(uint64_t));
    c->vmask = calloc((size_t)VMAX * MAXW, sizeof(uint64_t));
    c->vrow = calloc(VMAX, sizeof(int));
    c->vpiece = calloc(VMAX, sizeof(int));
    if (!c->live || !c->counts || !c->pcount || !c->occ || !c->rem || !c->need || !c->chosen || !c->sorted_rows
        || !c->scratch || !c->vlive || !c->vcover || !c->vpiece_set || !c->vmask || !c->vrow || !c->vpiece) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(c->rem, e->piece_count, sizeof(int) * (size_t)e->n_pieces);
    memcpy(c->need, e->piece_low, sizeof(int) * (size_t)e->n_pieces);
    c->region_pruning = e->nb != NULL;
    c->many_pieces = e->n_pieces > 64;
    const Py_ssize_t nf = read_forced(c, e, forced);
    if (nf < 0) return -1;
    const int *rows = c->sorted_rows;
    uint64_t *occ = c->occ;
    int ok = 1;
    for (Py_ssize_t i = 0; i < nf; i++) {
        const uint64_t *m = e->mask + (size_t)rows[i] * e->W;
        for (int w = 0; w < e->W; w++) { if (occ[w] & m[w]) ok = 0; occ[w] |= m[w]; }
        if (c->rem[e->row_piece[rows[i]]]-- <= 0) ok = 0;
        c->need[e->row_piece[rows[i]]]--;
        c->chosen[c->n_chosen++] = rows[i];
    }
    if (!ok) return 0;
    c->short_ = 0;
    for (int p = 0; p < e->n_pieces; p++) c->short_ += c->need[p] > 0 ? c->need[p] : 0;
    int n = 0;
    for (int r = 0; r < e->n_rows; r++) {
        if (c->rem[e->row_piece[r]] <= 0) continue;
        const uint64_t *m = e->mask + (size_t)r * e->W;
        uint64_t clash = 0;
        for (int w = 0; w < e->W; w++) clash |= m[w] & occ[w];
        if (clash) continue;
        uint64_t *dst = c->live + (size_t)n * E;
        memcpy(dst, m, sizeof(uint64_t) * (size_t)e->W);
        dst[e->W] = ((uint64_t)r << 32) | (uint32_t)e->row_piece[r];
        dst[e->W + 1] = e->row_piece[r] < 64 ? (uint64_t)1 << e->row_piece[r] : 0;
        n++;
    }
    for (int p = 0; p < e->n_pieces && p < 64; p++)
        if (c->need[p] > 0) c->needed |= (uint64_t)1 << p;
    *n_live = n;
    return 1;
}

/* Every required cell is covered by the forced rows. */
static int all_full(const Engine *e, const Ctx *c) {
    for (int w = 0; w < e->W; w++) if ((c->occ[w] & e->req[w]) != e->req[w]) return 0;
    return 1;
}

/* Whether the CPU counts bits in one instruction (the transposed search counts a lot). */
static int popcount_in_hardware(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
#else
    return 1;
#endif
}

static PyObject *Engine_search(Engine *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"callback", "forced", "max_solutions", "timeout", "region_pruning", "transposed",
                             "budget", NULL};
    PyObject *callback, *forced = NULL, *timeout = Py_None;
    long long max_solutions = 0, budget = 0;
    int region_pruning = 0, transposed = VMAX;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OLOpiL", kwlist, &callback, &forced, &max_solutions,
                                     &timeout, &region_pruning, &transposed, &budget))
        return NULL;
    if (budget < 0) { PyErr_SetString(PyExc_ValueError, "budget: must be >= 0"); return NULL; }
    if (self->mask == NULL && self->links == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Engine not initialised");
        return NULL;
    }
    Ctx c;
    int n_live = 0;
    int started = self->links != NULL ? l_start(&c, self, forced) : ctx_start(&c, self, forced, &n_live);
    void (*release)(Ctx *) = self->links != NULL ? l_free : ctx_free;
    if (started < 0) { release(&c); return NULL; }
    c.callback = callback;
    c.max_solutions = max_solutions;
    c.budget = budget; /* with optional cells too: only search nodes give back, never the extension phase */
    c.region_pruning = c.region_pruning && region_pruning;
    /* the transposed search has no optional cells (extend) and keeps piece bits in one word */
    c.vertical = transposed < 0 ? 0 : transposed > VMAX ? VMAX : transposed;
    if (self->has_optional || self->n_pieces > 64 || !popcount_in_hardware()) c.vertical = 0;
    if (timeout != Py_None) {
        double t = PyFloat_AsDouble(timeout);
        if (t == -1.0 && PyErr_Occurred()) { release(&c); return NULL; }
        c.deadline = now_seconds() + (t > 0 ? t : 1e-6);
    }
    c.ts = PyEval_SaveThread();
    if (started == 1 && self->links != NULL) {
        l_run(&c);
    } else if (started == 1) {
        if (all_full(self, &c)) {
            if (self->has_optional) extend(&c, 0, n_live, self->W);
            else if (c.short_ == 0) report(&c);
        }
        else if (self->W == 1) search_w1(&c, 0, n_live);
        else if (self->W == 2) search_w2(&c, 0, n_live);
        else if (self->W == 4) search_w4(&c, 0, n_live);
        else search_wn(&c, 0, n_live);
    }
    PyEval_RestoreThread(c.ts);
    if (c.stop == -1) { release(&c); return NULL; }
    if (c.stop == -2) { release(&c); return PyErr_NoMemory(); }
    PyObject *rest = PyList_New(0);
    for (size_t at = 0; rest != NULL && at < c.rest_len; at += (size_t)c.rest[at] + 1) {
        PyObject *prefix = PyTuple_New(c.rest[at]);
        for (int i = 0; prefix != NULL && i < c.rest[at]; i++) {
            PyObject *v = PyLong_FromLong(c.rest[at + 1 + (size_t)i]);
            if (v == NULL) { Py_CLEAR(prefix); break; }
            PyTuple_SET_ITEM(prefix, i, v);
        }
        if (prefix == NULL || PyList_Append(rest, prefix) < 0) Py_CLEAR(rest);
        Py_XDECREF(prefix);
    }
    release(&c);
    if (rest == NULL) return NULL;
    /* given back (3): the part is searched but for `rest` */
    const char *status = c.stop == 2 ? "timeout" : c.stop == 1 ? "stopped" : "complete";
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:s,s:N}", "solutions", c.solutions, "nodes", c.nodes, "dead", c.dead,
                         "scanned", c.scanned, "status", status, "rest", rest);
}

static PyMethodDef Engine_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Engine_search, METH_VARARGS | METH_KEYWORDS,
     "search(callback, *, forced=(), max_solutions=0, timeout=None, region_pruning=False, transposed=512, budget=0) -> dict\n"
     "(transposed: lists of at most this many placements are searched transposed, 0 never; same results)\n"
     "Call callback(sorted row tuple) per solution containing the forced rows; a truthy return stops.\n"
     "Returns {'solutions', 'nodes', 'dead' (nodes with an uncoverable cell or piece),\n"
     "'scanned' (list entries filtered), 'status': 'complete'|'stopped'|'timeout',\n"
     "'rest': the prefixes given back (budget > 0: nodes searched before the rest is handed back)}."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cpsolve." XCOVER_STR(XCOVER_MODULE) ".Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Engine(n_cells, piece_counts, row_piece, row_cells, neighbors=None, piece_low=None, optional=None):\n"
              "exact cover with multiplicities (piece p used piece_low[p]..piece_counts[p] times) and\n"
              "optional cells (covered at most once); neighbors (one list per cell) enables region-size pruning.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = XCOVER_STR(XCOVER_MODULE),
    .m_doc = "Bitboard exact-cover search for cpsolve's dlx backend.",
    .m_size = -1,
};

PyMODINIT_FUNC XCOVER_INIT(XCOVER_MODULE)(void) { return cps_module_with_type(&module, &EngineType, "Engine"); }
