/*
 * cpsolve.analysis._disassemble: the breadth-first disassembly search, compiled, one disassembler per
 * puzzle (as BurrTools keeps one per problem).
 *
 * Why: a search visits every position of the pieces relative to the first one; in Python each
 * position cost about 50 microseconds (PelikanBurr's 98-move search, 7,000 positions: 0.3 s against
 * BurrTools' 0.06 s). And most assemblies of a designer's file do not come apart after 2 to 49
 * states (Gargamel: 7,679 of 7,680): there the fixed cost of one call is what counts, so everything a
 * call needs is kept between calls here, and a batch of assemblies goes through one call. The
 * readable twin is `_Search._separate_states` in disassembly.py (with `_PairTable.free` and
 * `_Search.analyse`), and for `classify` the loop `PlacedDisassembler.classify` runs without C;
 * tests/test_disassembly.py checks that both give the same moves, levels, state counts and "stuck"
 * reports, so this file only has to be fast and exactly equivalent. Python keeps the recursion into the two parts and builds the result objects.
 *
 * Disassembler() holds, for the whole run:
 *  - shapes: a piece's cells up to translation (the least x, y and z at 0), numbered from 0 in the
 *    order `add_shape` met them; a piece in an assembly is (shape id, origin): its cells are the
 *    shape's moved by the origin. This is BurrTools' start node (shape, orientation, position): no
 *    cells are listed per assembly.
 *  - pair tables, made the first time a pair of shapes meets and kept: the free distances of shape b
 *    against shape a for every offset o_b - o_a in the box around their collision offsets
 *    {p - q : p in a, q in b}, with one empty layer all round; dist[2*axis] = units b can slide along
 *    +axis before it overlaps a (INF = never), dist[2*axis+1] along -axis. Exactly `_PairTable.free`'s
 *    bisection: +axis counts to the next collision strictly above, -axis to the last collision at or
 *    below (so -1 on a collision, which valid states never are on). Outside the box: a line beside
 *    the box has no collision (INF both ways); beyond its end along the axis the distance grows by
 *    the overshoot (the empty layer makes the clipped value right). A pair whose box is too big gets a
 *    table without distances: the search refuses it and the twin runs. Past `budget` bytes the
 *    tables are dropped before the next search (made again as needed): bounded memory.
 *  - the search's buffers (states, hash set, free-distance matrix, moves, removals), grown as needed
 *    and reused by every search: no allocation per assembly once they are big enough.
 *
 * Methods:
 * add_shape(cells) -> id (flat cells, 3 ints each, least coordinates 0; none: a shape too big for the
 *   search, whose assemblies the twin takes apart).
 * free(a, b, dx, dy, dz) -> the six distances of shape b against shape a at offset (dx, dy, dz) (tests).
 * separate(shapes, origins, start, max_states, every=False) -> (states, found, locked), or None when a
 *   pair's table is too big or a coordinate is out of range (the twin runs): pieces are shape ids with
 *   their origins, `start` each piece's offset from there (3 ints each); the states seen and,
 *   when the part splits, found = [(path, before), ...]: path = [(direction, mask, amount or None),
 *        ...], the last one the removal, before = the n offsets (x, y, z) before it, replayed from
 *        `start`; one entry, the first removal met, or with `every` every removal out of every state at
 *        the depth of the first (the twin's order: states in discovery order, then single pieces
 *        direction by direction, then larger sets), locked None;
 *   when it never splits: found None, locked = lists of piece indices whose relative offsets are the
 *        same in every reached state (classes of two or more, in the twin's order);
 *   after more than max_states states (max_states < 0: no limit): both None.
 * classify(batch, n, max_states, every=False) -> (status, states, found): `batch` is count assemblies
 *   of n pieces, 5 C ints per piece (shape id, origin x, y, z, its groups: bit g for declared group g),
 *   each searched from its assembled position, the first search alone: status[i] = STUCK (0), FOUND
 *   (1), TOO_MANY (2) or TWIN (3, as `separate` returning None); states[i] the states seen; found =
 *   {i: found list as `separate`'s} for the FOUND ones. Nothing else is built for a stuck assembly:
 *   `separate` explains one when it is asked.
 * levels(batch, n, max_states, every=False) -> (status, levels): the same batch, each assembly taken
 *   apart to the end (status FOUND only when every part comes apart), for its level alone: levels[i]
 *   the level as a tuple, or the states of the search that passed max_states (TOO_MANY), else None.
 *   The twin is `_Search.take_apart` with `_tree`: the first separations of a part are each tried
 *   (with `every`; else the first), its two parts taken apart in turn from their positions before
 *   the removal, the part left behind first; a part of one piece, or whose pieces share a group (the
 *   AND of their group bits), is not taken apart; a stuck part makes its way stuck; the way whose
 *   parts rank lowest (`_rank`: one move per step first, then fewer moves, then the parts' ranks)
 *   is kept, and one whose parts both rank lowest ends the choice. A part met again in the same
 *   assembly (same pieces, same relative positions) is answered from `memo`.
 *
 * The search (same order as the twin, so the same tree):
 *  - A state is the positions of pieces 1..n-1 (origin + offset) relative to piece 0 (3(n-1) int32),
 *    kept in discovery order in `keys`, with its parent and the move that reached it; the queue is
 *    that array itself (breadth-first: states are expanded in the order they were found). A hash set
 *    of state indices (open addressing, linear probing, at most half full, 64 slots to start with)
 *    answers "seen?".
 *  - F[d][a*W+b] = how far piece a slides along d with piece b fixed; a sliding along d is b sliding
 *    along -d (d ^ 1), so one lookup per pair fills both.
 *  - Per direction: fin[j] = pieces j would hit some time (finite distance); the closure of {p} under
 *    fin is what p drags along for ever. A state with a direction whose closure of some p is {p} is
 *    a single-piece removal (first such direction, first p), else one of at most half the pieces
 *    (first direction, first p): the search ends there, the removal counted as a move. With `every`,
 *    the states left in that depth (layer_end: states are expanded depth by depth, so the ones before
 *    it are the current depth's) are only looked at for their removals, and all are returned: Python
 *    chooses between them (disassembly.py, `take_apart`). Each closure is computed once per state
 *    and direction, and a state with none of at most half the pieces (the usual state of an
 *    assembly that does not come apart) is left at once.
 *  - Otherwise the moves per direction: from each p (in order) a set m = {p} grows: it slides k..limit
 *    units (limit = least distance from a member to a non-member), then one more unit drags in every
 *    piece a member would hit closer than that (transitively), while m has at most half the pieces.
 *    The twin recomputes that minimum over all member/non-member pairs; here near[i] keeps the least
 *    distance from any member to i, lowered as members join (Prim's algorithm, the same numbers).
 *    Each (amount, set) is emitted once per direction; a new set is followed by its unions with the
 *    sets already emitted for that amount (not the whole assembly, not repeated): moving the same
 *    way by the same amount together is one move.
 * Invariants: every state in keys[0..count) is in the hash set exactly once; st[i].parent < i; masks
 * have bits below n only; F holds INF on its diagonal and outside the n x n corner of each direction
 * (F_n is the n it was cleared for); pair[] points at tables the map owns, none of which is dropped
 * during a search (the budget is checked between searches). Undo discipline: none is needed, each
 * search starts by emptying what it uses (count, ncand, hash slots); buffers only grow, and one past
 * TRIM states is given back after its search. `levels` keeps, per assembly, the trees (nodes), the memo
 * (its slots are this assembly's when their gen is) and a stack of candidate frames, one per part being
 * taken apart (a part's first separations are copied there before its parts' searches reuse the
 * search's buffers; the frame is popped when the part is done); all three are emptied for the next
 * assembly. The GIL is released while searching (no Python object
 * is touched between reading the input and building the answer); `busy` refuses a second caller
 * meanwhile, since the buffers are the disassembler's.
 */
#include "_native.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INF (1 << 30)
#define MAXN 64
#define MAXPAIRS (MAXN * (MAXN - 1) / 2)
#define COORD (1L << 20)          /* |coordinate| bound on input: sums and differences stay in int32 */
#define MAX_TABLE (1L << 24)      /* entries of one table (6 * volume); beyond it the twin runs */
#define HASH0 64                  /* the hash set's slots at the start of a search */
#define TRIM (1L << 16)           /* states past which a search's buffers are given back after it */
#define PIECE_INTS 5              /* a piece in a batch: shape id, origin x, y, z, its groups (a bit each) */

enum { STUCK, FOUND, TOO_MANY, TWIN, NO_MEMORY, BAD_SHAPE };

/* ------------------------------------------------------------------------------- pair tables */

typedef struct {
    int lo[3], size[3];
    long vol;
    int32_t *dist;  /* 6 * vol; NULL: the collision box is too big for a table */
} Table;

/* The six distances of b against a at offset (d0, d1, d2) = o_b - o_a. */
static inline void table_free(const Table *t, const int d[3], int out[6]) {
    int idx[3], cl[3];
    for (int k = 0; k < 3; k++) {
        idx[k] = d[k] - t->lo[k];
        cl[k] = idx[k] < 0 ? 0 : idx[k] >= t->size[k] ? t->size[k] - 1 : idx[k];
    }
    long at = ((long)cl[0] * t->size[1] + cl[1]) * t->size[2] + cl[2];
    for (int axis = 0; axis < 3; axis++) {
        int over = cl[axis] - idx[axis];  /* > 0 below the box, < 0 above it */
        int plus = t->dist[(2 * axis) * t->vol + at], minus = t->dist[(2 * axis + 1) * t->vol + at];
        out[2 * axis] = plus >= INF ? INF : plus + over;
        out[2 * axis + 1] = minus >= INF ? INF : minus - over;
    }
}

/* Fill t for shape b against shape a (flat cells): 0, or -1 without memory; a box too big leaves
 * t->dist NULL. */
static int table_build(const int *a, long na, const int *b, long nb, Table *t) {
    int mn[3] = {INF, INF, INF}, mx[3] = {-INF, -INF, -INF};
    for (long i = 0; i < na; i++)
        for (long j = 0; j < nb; j++)
            for (int k = 0; k < 3; k++) {
                int c = a[3 * i + k] - b[3 * j + k];
                if (c < mn[k]) mn[k] = c;
                if (c > mx[k]) mx[k] = c;
            }
    long vol = 1;
    t->dist = NULL;
    for (int k = 0; k < 3; k++) {
        t->lo[k] = mn[k] - 1;
        t->size[k] = mx[k] - t->lo[k] + 2;
        vol *= t->size[k];
        if (6 * vol > MAX_TABLE) { t->vol = 0; return 0; }
    }
    t->vol = vol;
    int32_t *dist = malloc(sizeof(int32_t) * (size_t)(6 * vol));
    uint8_t *grid = calloc((size_t)vol, 1);
    if (dist == NULL || grid == NULL) { free(dist); free(grid); return -1; }
    const int *size = t->size, *lo = t->lo;
    for (long i = 0; i < na; i++)
        for (long j = 0; j < nb; j++) {
            long at = 0;
            for (int k = 0; k < 3; k++) at = at * size[k] + (a[3 * i + k] - b[3 * j + k] - lo[k]);
            grid[at] = 1;
        }
    long stride[3] = {(long)size[1] * size[2], size[2], 1};
    for (int axis = 0; axis < 3; axis++) {
        int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
        int32_t *plus = dist + (2 * axis) * vol, *minus = dist + (2 * axis + 1) * vol;
        for (int iu = 0; iu < size[u]; iu++)
            for (int iv = 0; iv < size[v]; iv++) {
                long base = iu * stride[u] + iv * stride[v];
                int next = -1;  /* the nearest collision above x on this line (-1: none) */
                for (int x = size[axis] - 1; x >= 0; x--) {
                    long at = base + x * stride[axis];
                    plus[at] = next < 0 ? INF : next - x - 1;
                    if (grid[at]) next = x;
                }
                int prev = -1;  /* the nearest collision at or below x (-1: none) */
                for (int x = 0; x < size[axis]; x++) {
                    long at = base + x * stride[axis];
                    if (grid[at]) prev = x;
                    minus[at] = prev < 0 ? INF : x - prev - 1;
                }
            }
    }
    free(grid);
    t->dist = dist;
    return 0;
}

/* ------------------------------------------------------------------------------- the search's state */

typedef struct {
    int n, half, K;          /* pieces, at most half of them, ints per state key (3(n-1)) */
    int W;                   /* row length of F: n, or 8 for up to 8 pieces (fixed-length loops) */
    uint64_t full;
    const Table *pair[MAXPAIRS];  /* n(n-1)/2, pair order (0,1), (0,2), ..., (n-2,n-1) */
    int32_t *keys;           /* K per state, discovery order (kcap ints allocated) */
    long kcap;
    int32_t *parent;         /* per state; -1 for the start */
    uint64_t *mmask;         /* the move that reached it */
    int32_t *mamount;
    int8_t *mdir;
    long count, cap;
    int32_t *hash;           /* state index or -1; hcap slots in use of hmax allocated */
    long hcap, hmax;
    int *F;                  /* 6 * MAXN * MAXN: F[d][j*W+i], see free_matrix */
    int F_n;                 /* the n F was cleared for (0: never) */
    uint64_t *emitted;       /* one direction's moves: sets ... */
    int *emitted_amount;     /* ... and amounts, in order */
    long ecap;
    int every;               /* 1: every removal at the first depth that has one; 0: the first only */
    long *cand_at;           /* the removals found: the state each leaves from ... */
    int *cand_dir;           /* ... its direction ... */
    uint64_t *cand_mask;     /* ... and the set that slides out, in the twin's order */
    long ncand, ccap;
} Search;

static uint64_t key_hash(const int32_t *k, int K) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < K; i++) h = (h ^ (uint32_t)k[i]) * 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 29);
}

/* Make the hash set `cap` slots (a power of two) and put every state in it again. */
static int hash_resize(Search *S, long cap) {
    if (cap > S->hmax) {
        int32_t *h = malloc(sizeof(int32_t) * (size_t)cap);
        if (h == NULL) return -1;
        free(S->hash);
        S->hash = h;
        S->hmax = cap;
    }
    S->hcap = cap;
    memset(S->hash, 0xFF, sizeof(int32_t) * (size_t)cap);  /* every slot -1 */
    for (long s = 0; s < S->count; s++) {
        uint64_t at = key_hash(S->keys + s * S->K, S->K) & (uint64_t)(cap - 1);
        while (S->hash[at] >= 0) at = (at + 1) & (uint64_t)(cap - 1);
        S->hash[at] = (int32_t)s;
    }
    return 0;
}

/* Add the state whose key is at keys[count*K] (already written) unless seen: 1 added, 0 seen, -1 no memory. */
static int add_state(Search *S, int32_t parent, int dir, uint64_t mask, int amount) {
    if (2 * (S->count + 1) > S->hcap && hash_resize(S, 2 * S->hcap) < 0) return -1;
    const int32_t *k = S->keys + S->count * S->K;
    uint64_t at = key_hash(k, S->K) & (uint64_t)(S->hcap - 1);
    while (S->hash[at] >= 0) {
        if (memcmp(S->keys + (long)S->hash[at] * S->K, k, sizeof(int32_t) * (size_t)S->K) == 0) return 0;
        at = (at + 1) & (uint64_t)(S->hcap - 1);
    }
    S->hash[at] = (int32_t)S->count;
    S->parent[S->count] = parent;
    S->mdir[S->count] = (int8_t)dir;
    S->mmask[S->count] = mask;
    S->mamount[S->count] = amount;
    S->count++;
    return 1;
}

/* Room for one more state key (written before add_state decides whether to keep it). */
static int reserve_state(Search *S) {
    if (S->count >= S->cap) {
        long cap = S->cap ? 2 * S->cap : 256;
        if (cap > INT32_MAX) return -1;
        int32_t *parent = realloc(S->parent, sizeof(int32_t) * (size_t)cap);
        if (parent == NULL) return -1;
        S->parent = parent;
        uint64_t *mmask = realloc(S->mmask, sizeof(uint64_t) * (size_t)cap);
        if (mmask == NULL) return -1;
        S->mmask = mmask;
        int32_t *mamount = realloc(S->mamount, sizeof(int32_t) * (size_t)cap);
        if (mamount == NULL) return -1;
        S->mamount = mamount;
        int8_t *mdir = realloc(S->mdir, (size_t)cap);
        if (mdir == NULL) return -1;
        S->mdir = mdir;
        S->cap = cap;
    }
    long need = S->cap * (S->K ? S->K : 1);  /* K changes between searches: the keys follow */
    if (need > S->kcap) {
        int32_t *keys = realloc(S->keys, sizeof(int32_t) * (size_t)need);
        if (keys == NULL) return -1;
        S->keys = keys;
        S->kcap = need;
    }
    return 0;
}

static int emit(Search *S, long *count, uint64_t set, int amount) {
    if (*count >= S->ecap) {
        long cap = S->ecap ? 2 * S->ecap : 64;
        uint64_t *e = realloc(S->emitted, sizeof(uint64_t) * (size_t)cap);
        if (e == NULL) return -1;
        S->emitted = e;
        int *a = realloc(S->emitted_amount, sizeof(int) * (size_t)cap);
        if (a == NULL) return -1;
        S->emitted_amount = a;
        S->ecap = cap;
    }
    S->emitted[*count] = set;
    S->emitted_amount[*count] = amount;
    (*count)++;
    return 0;
}

static int add_candidate(Search *S, long at, int dir, uint64_t mask) {
    if (S->ncand >= S->ccap) {
        long cap = S->ccap ? 2 * S->ccap : 16;
        long *a = realloc(S->cand_at, sizeof(long) * (size_t)cap);
        if (a == NULL) return -1;
        S->cand_at = a;
        int *d = realloc(S->cand_dir, sizeof(int) * (size_t)cap);
        if (d == NULL) return -1;
        S->cand_dir = d;
        uint64_t *m = realloc(S->cand_mask, sizeof(uint64_t) * (size_t)cap);
        if (m == NULL) return -1;
        S->cand_mask = m;
        S->ccap = cap;
    }
    S->cand_at[S->ncand] = at;
    S->cand_dir[S->ncand] = dir;
    S->cand_mask[S->ncand] = mask;
    S->ncand++;
    return 0;
}

static void search_release(Search *S) {
    free(S->keys); free(S->parent); free(S->mmask); free(S->mamount); free(S->mdir); free(S->hash);
    S->keys = S->parent = S->mamount = S->hash = NULL;
    S->mmask = NULL;
    S->mdir = NULL;
    S->cap = S->count = S->hcap = S->hmax = S->kcap = 0;
}

static void search_free(Search *S) {
    search_release(S);
    free(S->F); free(S->emitted); free(S->emitted_amount); free(S->cand_at); free(S->cand_dir); free(S->cand_mask);
    memset(S, 0, sizeof *S);
}

/* ------------------------------------------------------------------------------- the search */

/* Fill F (every entry but the diagonal, which is never read), fin and touch for the state with key k
 * (the pieces' positions relative to piece 0): fin[d][j] = the pieces j hits some time when it slides
 * along d, touch[d][j] = those it hits at once (distance 0). */
static void free_matrix(Search *S, const int32_t *k, uint64_t fin[6][MAXN], uint64_t touch[6][MAXN]) {
    int n = S->n, W = S->W, nn = W * W;
    int *F = S->F;
    for (int d = 0; d < 6; d++)  /* rows 0..n-1 only: nothing reads the others */
        for (int j = 0; j < n; j++) fin[d][j] = touch[d][j] = 0;
    int pair = 0;
    for (int a = 0; a < n; a++) {
        int pa[3] = {0, 0, 0};
        if (a) for (int c = 0; c < 3; c++) pa[c] = k[3 * (a - 1) + c];
        for (int b = a + 1; b < n; b++, pair++) {
            int off[3], f[6];
            for (int c = 0; c < 3; c++) off[c] = k[3 * (b - 1) + c] - pa[c];
            table_free(S->pair[pair], off, f);
            /* f: b slides with a fixed; a sliding along d is b sliding along d ^ 1 */
            for (int d = 0; d < 6; d++) {
                F[d * nn + b * W + a] = f[d];
                F[(d ^ 1) * nn + a * W + b] = f[d];
                if (f[d] < INF) {
                    fin[d][b] |= (uint64_t)1 << a;
                    fin[d ^ 1][a] |= (uint64_t)1 << b;
                    if (f[d] == 0) {
                        touch[d][b] |= (uint64_t)1 << a;
                        touch[d ^ 1][a] |= (uint64_t)1 << b;
                    }
                }
            }
        }
    }
}

static inline int popcount(uint64_t x) {  /* inline: without -mpopcnt the builtin is a library call */
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* Everything p drags along for ever: the closure of {p} under fin (bitmasks); 0 as soon as it has
 * more than `half` pieces (then it is no removal, and its size is all a caller asks). */
static inline uint64_t reach(const uint64_t *fin, int p, int half) {
    uint64_t m = (uint64_t)1 << p;
    for (;;) {
        uint64_t nm = m, x = m;
        while (x) {
            nm |= fin[__builtin_ctzll(x)];
            x &= x - 1;
        }
        if (nm == m) return m;
        if (popcount(nm) > half) return 0;
        m = nm;
    }
}

/* Every removal out of state s (fin filled for it): the sets of at most half the pieces that slide out
 * along a direction, distinct per direction, single pieces first (direction by direction, piece by
 * piece), then larger sets in the same order: the twin's `removals`. Each closure is computed once;
 * a state without any (every closure has more than half the pieces) returns at once. 0, or -1 without
 * memory. */
static int all_removals(Search *S, long s, uint64_t fin[6][MAXN]) {
    uint64_t m[6][MAXN];
    uint64_t any = 0;
    for (int d = 0; d < 6; d++)
        for (int p = 0; p < S->n; p++) any |= m[d][p] = reach(fin[d], p, S->half);
    if (any == 0) return 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < 6; d++)
            for (int p = 0; p < S->n; p++) {
                uint64_t r = m[d][p];
                if (r == 0 || (popcount(r) == 1) != (pass == 0)) continue;
                int q;
                for (q = 0; q < p && m[d][q] != r; q++) {}  /* met already in this direction */
                if (q < p) continue;
                if (add_candidate(S, s, d, r) < 0) return -1;
            }
    return 0;
}

/* The breadth-first search from the state already added as state 0. */
static inline __attribute__((always_inline)) int search_w(Search *S, long max_states, const int W) {
    int n = S->n, nn = W * W, K = S->K;
    int32_t pos[3 * MAXN];
    uint64_t fin[6][MAXN], touch[6][MAXN];
    long layer_end = 1;  /* states before it are at the depth of s or less; the start is depth 0 alone */
    for (long s = 0; s < S->count; s++) {
        if (s == layer_end) {
            if (S->ncand) return FOUND;  /* every state of the first depth with a removal has been seen */
            layer_end = S->count;
        }
        const int32_t *key = S->keys + s * K;
        free_matrix(S, key, fin, touch);
        if (S->every) {
            if (all_removals(S, s, fin) < 0) return NO_MEMORY;
            if (S->ncand) continue;  /* the rest of this depth is only looked at for more removals */
        } else {
            /* removals: a single piece first (any direction), else a set of at most half the pieces */
            int group_dir = -1;
            uint64_t group = 0;
            for (int d = 0; d < 6; d++)
                for (int p = 0; p < n; p++) {
                    uint64_t m = reach(fin[d], p, S->half);
                    if (m == 0) continue;
                    int size = popcount(m);
                    if (size == 1) return add_candidate(S, s, d, m) < 0 ? NO_MEMORY : FOUND;
                    if (size <= S->half && group_dir < 0) { group_dir = d; group = m; }
                }
            if (group_dir >= 0) return add_candidate(S, s, group_dir, group) < 0 ? NO_MEMORY : FOUND;
        }
        /* finite moves, direction by direction; every direction has no removal here */
        for (int d = 0; d < 6; d++) {
            const int *Fd = S->F + d * nn;
            long ne = 0;  /* this direction's emitted (set, amount), in order */
            for (int p = 0; p < n; p++) {
                /* p blocked at once (it touches a piece it would hit): the set starts by dragging in,
                 * transitively, every piece a member touches; past half the pieces that ends it before
                 * any move (the loop below would find the same, a row of F per member) */
                if (touch[d][p] && reach(touch[d], p, S->half) == 0) continue;
                /* near[i] = least distance from a member of m to i (for i outside m), kept as m grows:
                 * the twin's minimum over member/non-member pairs, without recomputing it */
                int near[MAXN];
                for (int i = 0; i < W; i++) near[i] = Fd[p * W + i];
                uint64_t m = (uint64_t)1 << p;
                int size = 1, k = 1;
                while (size <= S->half) {
                    int limit = INF;  /* how far m slides before a member hits a non-member */
                    for (int i = 0; i < W; i++) {
                        int v = m >> i & 1 ? INF : near[i];
                        limit = v < limit ? v : limit;
                    }
                    if (limit >= INF) break;  /* m would slide out: impossible without a removal */
                    for (int amount = k; amount <= limit; amount++) {
                        long first = ne, i;  /* the sets emitted for this amount before m */
                        for (i = 0; i < first; i++)
                            if (S->emitted_amount[i] == amount && S->emitted[i] == m) break;
                        if (i < first) continue;
                        if (emit(S, &ne, m, amount) < 0) return NO_MEMORY;
                        for (i = 0; i < first; i++) {
                            if (S->emitted_amount[i] != amount) continue;
                            uint64_t u = S->emitted[i] | m;
                            if (u == S->emitted[i] || u == S->full) continue;
                            long q;
                            for (q = 0; q < ne; q++)  /* neither among the earlier sets nor the merged ones */
                                if (S->emitted_amount[q] == amount && S->emitted[q] == u) break;
                            if (q < ne) continue;
                            if (emit(S, &ne, u, amount) < 0) return NO_MEMORY;
                        }
                    }
                    k = limit + 1;
                    /* one more unit drags in whatever a member would hit closer than k, transitively
                     * (stopping once m has more than half the pieces: it is not used after that) */
                    for (;;) {
                        uint64_t join = 0;
                        for (int i = 0; i < W; i++) join |= (uint64_t)(near[i] < k) << i;
                        join &= ~m;
                        if (join == 0) break;
                        while (join && size <= S->half) {
                            int i = __builtin_ctzll(join);
                            join &= join - 1;
                            m |= (uint64_t)1 << i;
                            size++;
                            const int *row = Fd + i * W;
                            for (int t = 0; t < W; t++) near[t] = row[t] < near[t] ? row[t] : near[t];
                        }
                        if (size > S->half) break;
                    }
                }
            }
            /* the new states, in the order the moves were emitted */
            static const int dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
            for (long e = 0; e < ne; e++) {
                uint64_t m = S->emitted[e];
                int amount = S->emitted_amount[e];
                if (reserve_state(S) < 0) return NO_MEMORY;
                key = S->keys + s * K;  /* the buffer may have moved */
                pos[0] = pos[1] = pos[2] = 0;
                memcpy(pos + 3, key, sizeof(int32_t) * (size_t)K);
                for (int p = 0; p < n; p++)
                    if (m >> p & 1)
                        for (int c = 0; c < 3; c++) pos[3 * p + c] += dirs[d][c] * amount;
                int32_t *nk = S->keys + S->count * K;
                for (int p = 1; p < n; p++)
                    for (int c = 0; c < 3; c++) nk[3 * (p - 1) + c] = pos[3 * p + c] - pos[c];
                if (add_state(S, (int32_t)s, d, m, amount) < 0) return NO_MEMORY;
            }
        }
        if (max_states >= 0 && S->count > max_states) return TOO_MANY;
    }
    return S->ncand ? FOUND : STUCK;
}

/* Up to 8 pieces (most puzzles) with rows of 8: the compiler unrolls and vectorizes the row loops. */
static int search_run(Search *S, long max_states) {
    if (S->W == 8) return search_w(S, max_states, 8);
    return search_w(S, max_states, S->W);
}

/* Pieces whose offsets relative to each other are the same in every state: the twin's `_locked`. */
static PyObject *locked(const Search *S) {
    int n = S->n, K = S->K;
    int cls_of[MAXN], first[MAXN], ncls = 0;
    for (int i = 0; i < n; i++) {
        cls_of[i] = -1;
        for (int c = 0; c < ncls && cls_of[i] < 0; c++) {
            int j = first[c], same = 1;
            for (long s = 1; s < S->count && same; s++) {
                const int32_t *k0 = S->keys, *k = S->keys + s * K;
                for (int x = 0; x < 3; x++) {
                    int32_t a = (i ? k[3 * (i - 1) + x] : 0) - (j ? k[3 * (j - 1) + x] : 0);
                    int32_t a0 = (i ? k0[3 * (i - 1) + x] : 0) - (j ? k0[3 * (j - 1) + x] : 0);
                    if (a != a0) { same = 0; break; }
                }
            }
            if (same) cls_of[i] = c;
        }
        if (cls_of[i] < 0) { first[ncls] = i; cls_of[i] = ncls++; }
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int c = 0; c < ncls; c++) {
        int size = 0;
        for (int i = 0; i < n; i++) size += cls_of[i] == c;
        if (size < 2) continue;
        PyObject *members = PyList_New(0);
        if (members == NULL || PyList_Append(out, members) < 0) { Py_XDECREF(members); Py_DECREF(out); return NULL; }
        Py_DECREF(members);
        for (int i = 0; i < n; i++) {
            if (cls_of[i] != c) continue;
            PyObject *v = PyLong_FromLong(i);
            if (v == NULL || PyList_Append(members, v) < 0) { Py_XDECREF(v); Py_DECREF(out); return NULL; }
            Py_DECREF(v);
        }
    }
    return out;
}

/* One removal as (path, before): the moves from the start to state `at` (parent links), the removal
 * last, and the n offsets before it, replayed from `start` as the twin has them. */
static PyObject *candidate(const Search *S, const int *start, long at, int rem_dir, uint64_t rem_mask) {
    static const int dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    long depth = 0;
    for (long s = at; S->parent[s] >= 0; s = S->parent[s]) depth++;
    long *chain = malloc(sizeof(long) * (size_t)(depth + 1));  /* the states from the start's child to `at` */
    if (chain == NULL) return PyErr_NoMemory();
    long i = depth;
    for (long s = at; S->parent[s] >= 0; s = S->parent[s]) chain[--i] = s;
    int pos[3 * MAXN];
    memcpy(pos, start, sizeof(int) * (size_t)(3 * S->n));
    PyObject *path = PyList_New(depth + 1), *before = PyList_New(S->n);
    if (path == NULL || before == NULL) goto fail;
    for (i = 0; i < depth; i++) {
        long s = chain[i];
        int d = S->mdir[s];
        PyObject *mv = Py_BuildValue("(iKi)", d, (unsigned long long)S->mmask[s], (int)S->mamount[s]);
        if (mv == NULL) goto fail;
        PyList_SET_ITEM(path, i, mv);
        for (int p = 0; p < S->n; p++)
            if (S->mmask[s] >> p & 1)
                for (int c = 0; c < 3; c++) pos[3 * p + c] += dirs[d][c] * S->mamount[s];
    }
    PyObject *last = Py_BuildValue("(iKO)", rem_dir, (unsigned long long)rem_mask, Py_None);
    if (last == NULL) goto fail;
    PyList_SET_ITEM(path, depth, last);
    for (int p = 0; p < S->n; p++) {
        PyObject *c = Py_BuildValue("(iii)", pos[3 * p], pos[3 * p + 1], pos[3 * p + 2]);
        if (c == NULL) goto fail;
        PyList_SET_ITEM(before, p, c);
    }
    free(chain);
    return Py_BuildValue("(NN)", path, before);
fail:
    free(chain);
    Py_XDECREF(path);
    Py_XDECREF(before);
    return NULL;
}

static PyObject *found_list(const Search *S, const int *start) {
    PyObject *found = PyList_New(S->ncand);
    if (found == NULL) return NULL;
    for (long c = 0; c < S->ncand; c++) {
        PyObject *one = candidate(S, start, S->cand_at[c], S->cand_dir[c], S->cand_mask[c]);
        if (one == NULL) { Py_DECREF(found); return NULL; }
        PyList_SET_ITEM(found, c, one);
    }
    return found;
}

/* ------------------------------------------------------------------------------- the disassembler */

typedef struct {
    uint64_t key;  /* (a << 32 | b) + 1; 0: empty slot */
    Table *table;
} Slot;

typedef struct {
    PyObject_HEAD
    int nshapes, shapes_cap;
    int **cells;             /* per shape: 3 ints per cell */
    long *ncells;
    Slot *slots;             /* the pair tables by (a, b): open addressing, at most half full */
    long nslots, ntables;
    long kept, budget;       /* bytes of tables, and the most kept between searches */
    Search S;
    int busy;
    /* `levels`: the class being taken apart, and its trees (emptied for each class) */
    int cls_shapes[MAXN], cls_groups[MAXN];
    long max_states, too_many;   /* the budget of one search; the states of the search that passed it */
    int every;
    struct Node *nodes;          /* the separations found, by index */
    long nnodes, nodes_cap;
    struct MemoSlot *memo;       /* parts already taken apart in this class, by pieces and relative positions */
    long nmemo, memo_cap;
    unsigned gen;                /* a slot is in use when its gen is this class's */
    int32_t *memo_keys;          /* the slots' relative positions, 3(m-1) ints each */
    long nkeys, keys_cap;
    int *cand;                   /* the first separations of the parts being taken apart, a frame per part */
    long ncand_ints, cand_cap;
} Disassembler;

static void drop_tables(Disassembler *D) {
    for (long i = 0; i < D->nslots; i++)
        if (D->slots[i].key) {
            free(D->slots[i].table->dist);
            free(D->slots[i].table);
            D->slots[i].key = 0;
        }
    D->ntables = 0;
    D->kept = 0;
}

static inline uint64_t slot_of(uint64_t key, long nslots) {
    return (key * 0x9E3779B97F4A7C15ULL >> 17) & (uint64_t)(nslots - 1);
}

static int slots_grow(Disassembler *D) {
    long cap = D->nslots ? 2 * D->nslots : 256;
    Slot *s = calloc((size_t)cap, sizeof(Slot));
    if (s == NULL) return -1;
    for (long i = 0; i < D->nslots; i++)
        if (D->slots[i].key) {
            uint64_t at = slot_of(D->slots[i].key, cap);
            while (s[at].key) at = (at + 1) & (uint64_t)(cap - 1);
            s[at] = D->slots[i];
        }
    free(D->slots);
    D->slots = s;
    D->nslots = cap;
    return 0;
}

/* The table of shape b against shape a, made the first time; NULL without memory. */
static const Table *table_for(Disassembler *D, int a, int b) {
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    if (D->nslots) {
        uint64_t at = slot_of(key, D->nslots);
        while (D->slots[at].key) {
            if (D->slots[at].key == key) return D->slots[at].table;
            at = (at + 1) & (uint64_t)(D->nslots - 1);
        }
    }
    if (2 * (D->ntables + 1) > D->nslots && slots_grow(D) < 0) return NULL;
    Table *t = malloc(sizeof(Table));
    if (t == NULL) return NULL;
    if (table_build(D->cells[a], D->ncells[a], D->cells[b], D->ncells[b], t) < 0) { free(t); return NULL; }
    uint64_t at = slot_of(key, D->nslots);
    while (D->slots[at].key) at = (at + 1) & (uint64_t)(D->nslots - 1);
    D->slots[at].key = key;
    D->slots[at].table = t;
    D->ntables++;
    D->kept += (long)sizeof(Table) + 6 * t->vol * (long)sizeof(int32_t);
    return t;
}

static void Disassembler_dealloc(Disassembler *D) {
    drop_tables(D);
    free(D->slots);
    for (int i = 0; i < D->nshapes; i++) free(D->cells[i]);
    free(D->cells);
    free(D->ncells);
    search_free(&D->S);
    free(D->nodes); free(D->memo); free(D->memo_keys); free(D->cand);
    Py_TYPE(D)->tp_free((PyObject *)D);
}

static int Disassembler_init(Disassembler *D, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"budget", NULL};
    long budget = 64L << 20;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|l:Disassembler", kw, &budget)) return -1;
    if (D->nshapes || D->S.F) {
        PyErr_SetString(PyExc_RuntimeError, "Disassembler: already initialised");
        return -1;
    }
    D->budget = budget;
    D->S.F = malloc(sizeof(int) * 6 * MAXN * MAXN);
    if (D->S.F == NULL) { PyErr_NoMemory(); return -1; }
    return 0;
}

static PyObject *Disassembler_add_shape(Disassembler *D, PyObject *arg) {
    Py_ssize_t len = PySequence_Size(arg);
    if (len < 0) return NULL;
    if (len % 3) return PyErr_Format(PyExc_ValueError, "cells: a flat list of cells (3 ints each)");
    if (D->nshapes == D->shapes_cap) {
        int cap = D->shapes_cap ? 2 * D->shapes_cap : 64;
        int **cells = realloc(D->cells, sizeof(int *) * (size_t)cap);
        if (cells == NULL) return PyErr_NoMemory();
        D->cells = cells;
        long *ncells = realloc(D->ncells, sizeof(long) * (size_t)cap);
        if (ncells == NULL) return PyErr_NoMemory();
        D->ncells = ncells;
        D->shapes_cap = cap;
    }
    int *cells = malloc(sizeof(int) * (size_t)(len ? len : 1));
    if (cells == NULL) return PyErr_NoMemory();
    if (cps_read_ints(arg, cells, len, -COORD, COORD, "cells") < 0) { free(cells); return NULL; }
    D->cells[D->nshapes] = cells;
    D->ncells[D->nshapes] = len / 3;
    return PyLong_FromLong(D->nshapes++);
}

static PyObject *Disassembler_free(Disassembler *D, PyObject *args) {
    int a, b, d[3];
    if (!PyArg_ParseTuple(args, "iiiii:free", &a, &b, &d[0], &d[1], &d[2])) return NULL;
    if (a < 0 || b < 0 || a >= D->nshapes || b >= D->nshapes || !D->ncells[a] || !D->ncells[b])
        return PyErr_Format(PyExc_ValueError, "free: no such shape");
    for (int k = 0; k < 3; k++)
        if (d[k] <= -COORD || d[k] >= COORD) return PyErr_Format(PyExc_ValueError, "free: offset out of range");
    if (D->busy) return PyErr_Format(PyExc_RuntimeError, "the disassembler is searching in another thread");
    const Table *t = table_for(D, a, b);
    if (t == NULL) return PyErr_NoMemory();
    if (t->dist == NULL) return PyErr_Format(PyExc_OverflowError, "free: the shapes' collision box is too big");
    int out[6];
    table_free(t, d, out);
    return Py_BuildValue("(iiiiii)", out[0], out[1], out[2], out[3], out[4], out[5]);
}

/* Set up the search of n pieces (shape ids, positions = origin + start: 3 ints each) as state 0:
 * FOUND here means "ready"; TWIN when a table is too big or a position out of range; BAD_SHAPE; NO_MEMORY. */
static int begin(Disassembler *D, int n, const int *shapes, const int *pos, int every) {
    Search *S = &D->S;
    for (int p = 0; p < 3 * n; p++)
        if (pos[p] <= -COORD || pos[p] >= COORD) return TWIN;
    for (int p = 0; p < n; p++) {
        if (shapes[p] < 0 || shapes[p] >= D->nshapes) return BAD_SHAPE;
        if (D->ncells[shapes[p]] == 0) return TWIN;
    }
    if (D->kept > D->budget) drop_tables(D);  /* between searches: no table is in use */
    int pair = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++, pair++) {
            const Table *t = table_for(D, shapes[a], shapes[b]);
            if (t == NULL) return NO_MEMORY;
            if (t->dist == NULL) return TWIN;
            S->pair[pair] = t;
        }
    S->n = n;
    S->every = every;
    S->half = n / 2;
    S->K = 3 * (n - 1);
    S->full = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    S->W = n <= 8 ? 8 : n;
    if (S->F_n != n) {  /* free_matrix writes all but the diagonal and the padding: both never block */
        for (int i = 0; i < 6 * S->W * S->W; i++) S->F[i] = INF;
        S->F_n = n;
    }
    S->count = 0;
    S->ncand = 0;
    if (reserve_state(S) < 0 || hash_resize(S, HASH0) < 0) return NO_MEMORY;
    for (int p = 1; p < n; p++)
        for (int c = 0; c < 3; c++) S->keys[3 * (p - 1) + c] = pos[3 * p + c] - pos[c];
    if (add_state(S, -1, 0, 0, 0) < 0) return NO_MEMORY;
    return FOUND;
}

/* After a search: give back buffers a huge one grew (one giant search would keep them all run long). */
static void end(Disassembler *D) {
    if (D->S.cap > TRIM) search_release(&D->S);
}

static int read_n(PyObject *obj, int n, int *out, const char *what) {
    return cps_read_ints(obj, out, n, -COORD, COORD, what);
}

static PyObject *Disassembler_separate(Disassembler *D, PyObject *args) {
    PyObject *oshapes, *oorigins, *ostart;
    long max_states;
    int every = 0;
    if (!PyArg_ParseTuple(args, "OOOl|p:separate", &oshapes, &oorigins, &ostart, &max_states, &every)) return NULL;
    Py_ssize_t n = PySequence_Size(oshapes);
    if (n < 0) return NULL;
    if (n < 2 || n > MAXN) return PyErr_Format(PyExc_ValueError, "separate: between 2 and %d pieces", MAXN);
    int shapes[MAXN], origins[3 * MAXN], start[3 * MAXN], pos[3 * MAXN];
    if (cps_read_ints(oshapes, shapes, n, 0, INT32_MAX, "shapes") < 0 || read_n(oorigins, 3 * (int)n, origins, "origins") < 0 ||
        read_n(ostart, 3 * (int)n, start, "start") < 0)
        return NULL;
    for (int i = 0; i < 3 * n; i++) pos[i] = origins[i] + start[i];
    if (D->busy) return PyErr_Format(PyExc_RuntimeError, "the disassembler is searching in another thread");
    int status = begin(D, (int)n, shapes, pos, every);
    if (status == FOUND) {
        D->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        status = search_run(&D->S, max_states);
        Py_END_ALLOW_THREADS
        D->busy = 0;
    }
    PyObject *res = NULL;
    if (status == NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == BAD_SHAPE) {
        PyErr_SetString(PyExc_ValueError, "separate: no such shape");
    } else if (status == TWIN) {
        res = Py_NewRef(Py_None);
    } else if (status == FOUND) {
        PyObject *found = found_list(&D->S, start);
        if (found != NULL) res = Py_BuildValue("(lNO)", D->S.count, found, Py_None);
    } else if (status == STUCK) {
        PyObject *lk = locked(&D->S);
        if (lk != NULL) res = Py_BuildValue("(lON)", D->S.count, Py_None, lk);
    } else {
        res = Py_BuildValue("(lOO)", D->S.count, Py_None, Py_None);
    }
    end(D);
    return res;
}

/* The assemblies in a batch of n pieces each (PIECE_INTS a piece); -1 with an exception when it is not one,
 * or when another thread is searching with this disassembler. */
static Py_ssize_t batch_count(const Disassembler *D, const Py_buffer *buf, int n, const char *what) {
    if (n < 2 || n > MAXN || buf->len % (Py_ssize_t)(sizeof(int) * PIECE_INTS * (size_t)n)) {
        PyErr_Format(PyExc_ValueError, "%s: n in [2, %d] and %d ints per piece", what, MAXN, PIECE_INTS);
        return -1;
    }
    if (D->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the disassembler is searching in another thread");
        return -1;
    }
    return buf->len / (Py_ssize_t)(sizeof(int) * PIECE_INTS * (size_t)n);
}

static PyObject *Disassembler_classify(Disassembler *D, PyObject *args) {
    Py_buffer buf;
    int n, every = 0;
    long max_states;
    if (!PyArg_ParseTuple(args, "y*il|p:classify", &buf, &n, &max_states, &every)) return NULL;
    PyObject *status = NULL, *states = NULL, *found = NULL;
    Py_ssize_t count = batch_count(D, &buf, n, "classify");
    if (count < 0) goto done;
    const int *in = (const int *)buf.buf;
    status = PyBytes_FromStringAndSize(NULL, count);
    states = PyList_New(count);
    found = PyDict_New();
    if (status == NULL || states == NULL || found == NULL) goto fail;
    char *st = PyBytes_AS_STRING(status);
    static const int zero[3 * MAXN];
    for (Py_ssize_t i = 0; i < count; i++) {
        const int *one = in + i * PIECE_INTS * n;
        int shapes[MAXN], pos[3 * MAXN];
        for (int p = 0; p < n; p++) {
            shapes[p] = one[PIECE_INTS * p];
            for (int c = 0; c < 3; c++) pos[3 * p + c] = one[PIECE_INTS * p + 1 + c];
        }
        int s = begin(D, n, shapes, pos, every);
        if (s == FOUND) {
            D->busy = 1;
            Py_BEGIN_ALLOW_THREADS
            s = search_run(&D->S, max_states);
            Py_END_ALLOW_THREADS
            D->busy = 0;
        }
        if (s == NO_MEMORY) { PyErr_NoMemory(); goto fail; }
        if (s == BAD_SHAPE) { PyErr_SetString(PyExc_ValueError, "classify: no such shape"); goto fail; }
        st[i] = (char)s;
        PyObject *v = PyLong_FromLong(s == TWIN ? 0 : D->S.count);
        if (v == NULL) goto fail;
        PyList_SET_ITEM(states, i, v);
        if (s == FOUND) {
            PyObject *key = PyLong_FromSsize_t(i), *list = found_list(&D->S, zero);
            int bad = key == NULL || list == NULL || PyDict_SetItem(found, key, list) < 0;
            Py_XDECREF(key);
            Py_XDECREF(list);
            if (bad) goto fail;
        }
        end(D);
    }
    PyBuffer_Release(&buf);
    return Py_BuildValue("(NNN)", status, states, found);
fail:
    end(D);
    Py_XDECREF(status);
    Py_XDECREF(states);
    Py_XDECREF(found);
done:
    PyBuffer_Release(&buf);
    return NULL;
}

/* ------------------------------------------------------------------------------- whole trees, levels only */

typedef struct Node {
    int moves;               /* moves until this part splits, the removal included */
    int multi;               /* this step, or one below it, needs more than one move (BurrTools' rule) */
    int left, removed;       /* the two parts' trees (node indices), or NONE: a single piece or a group */
} Node;

typedef struct MemoSlot {
    uint64_t mask;           /* the part's pieces (bits of the class's pieces) */
    long key;                /* its relative positions: 3(m-1) ints at memo_keys[key] */
    int m, result;           /* its size; its tree (node), or R_STUCK */
    unsigned gen;
} MemoSlot;

enum { NONE = -1, R_STUCK = -2, R_TOO_MANY = -3, R_TWIN = -4, R_NO_MEMORY = -5, R_MISSING = -6 };

static int grow(void **buf, long *cap, long need, size_t size) {
    if (need <= *cap) return 0;
    long cap2 = *cap ? *cap : 64;
    while (cap2 < need) cap2 *= 2;
    void *b = realloc(*buf, size * (size_t)cap2);
    if (b == NULL) return -1;
    *buf = b;
    *cap = cap2;
    return 0;
}

/* Python's _rank of one part's tree, compared: -1, 0 or 1 as a is easier, as hard, harder than b. */
static int rank_cmp(const Node *N, int a, int b) {
    int ra = a >= 0 && N[a].multi, rb = b >= 0 && N[b].multi;
    if (ra != rb) return ra < rb ? -1 : 1;
    if (!ra) return 0;  /* both (0,): one move per step, or nothing to take apart */
    if (N[a].moves != N[b].moves) return N[a].moves < N[b].moves ? -1 : 1;
    int c = rank_cmp(N, N[a].left, N[b].left);
    return c ? c : rank_cmp(N, N[a].removed, N[b].removed);
}

static uint64_t memo_hash(uint64_t mask, const int32_t *key, int K) {
    return key_hash(key, K) ^ (mask * 0x9E3779B97F4A7C15ULL);
}

static int memo_find(const Disassembler *D, uint64_t mask, int m, const int32_t *key) {
    if (!D->memo_cap) return R_MISSING;
    int K = 3 * (m - 1);
    uint64_t at = memo_hash(mask, key, K) & (uint64_t)(D->memo_cap - 1);
    for (const MemoSlot *e; (e = &D->memo[at])->gen == D->gen; at = (at + 1) & (uint64_t)(D->memo_cap - 1))
        if (e->mask == mask && e->m == m && memcmp(D->memo_keys + e->key, key, sizeof(int32_t) * (size_t)K) == 0)
            return e->result;
    return R_MISSING;
}

static int memo_put(Disassembler *D, uint64_t mask, int m, const int32_t *key, int result) {
    int K = 3 * (m - 1);
    if (2 * (D->nmemo + 1) > D->memo_cap) {  /* double it and put this class's slots in again */
        long cap = D->memo_cap ? 2 * D->memo_cap : 64;
        MemoSlot *old = D->memo, *fresh = calloc((size_t)cap, sizeof(MemoSlot));
        if (fresh == NULL) return -1;
        for (long i = 0; i < D->memo_cap; i++) {
            if (old[i].gen != D->gen) continue;
            uint64_t at = memo_hash(old[i].mask, D->memo_keys + old[i].key, 3 * (old[i].m - 1)) & (uint64_t)(cap - 1);
            while (fresh[at].gen == D->gen) at = (at + 1) & (uint64_t)(cap - 1);
            fresh[at] = old[i];
        }
        free(old);
        D->memo = fresh;
        D->memo_cap = cap;
    }
    if (grow((void **)&D->memo_keys, &D->keys_cap, D->nkeys + K + 1, sizeof(int32_t)) < 0) return -1;
    memcpy(D->memo_keys + D->nkeys, key, sizeof(int32_t) * (size_t)K);
    uint64_t at = memo_hash(mask, key, K) & (uint64_t)(D->memo_cap - 1);
    while (D->memo[at].gen == D->gen) at = (at + 1) & (uint64_t)(D->memo_cap - 1);
    D->memo[at] = (MemoSlot){mask, D->nkeys, m, result, D->gen};
    D->nkeys += K;
    D->nmemo++;
    return 0;
}

/* The tree of a part of the class (m pieces: the class's indices idx[], positions pos[], 3 ints each,
 * only their differences matter): the twin is `_Search.take_apart` with `_tree`, for the level alone.
 * A node, R_STUCK, or R_TOO_MANY / R_TWIN / R_NO_MEMORY, which end the class. */
static int part_tree(Disassembler *D, int m, const int *idx, const int *pos) {
    uint64_t mask = 0;
    int32_t key[3 * MAXN];
    int shapes[MAXN];
    for (int i = 0; i < m; i++) {
        mask |= (uint64_t)1 << idx[i];
        shapes[i] = D->cls_shapes[idx[i]];
        if (i)
            for (int c = 0; c < 3; c++) key[3 * (i - 1) + c] = pos[3 * i + c] - pos[c];
    }
    int known = memo_find(D, mask, m, key);
    if (known != R_MISSING) return known;
    int s = begin(D, m, shapes, pos, D->every);
    if (s == FOUND) s = search_run(&D->S, D->max_states);
    if (s == NO_MEMORY) return R_NO_MEMORY;
    if (s == TWIN || s == BAD_SHAPE) return R_TWIN;
    if (s == TOO_MANY) { D->too_many = D->S.count; end(D); return R_TOO_MANY; }
    if (s == STUCK) { end(D); return memo_put(D, mask, m, key, R_STUCK) < 0 ? R_NO_MEMORY : R_STUCK; }
    /* each first separation out of the search's buffers (the parts' searches reuse them): its moves,
     * the set that leaves (two ints), and every piece's position relative to the first before it leaves */
    Search *S = &D->S;
    long rec = 3 + 3L * m, base = D->ncand_ints, ncand = S->ncand;
    if (grow((void **)&D->cand, &D->cand_cap, base + ncand * rec, sizeof(int)) < 0) return R_NO_MEMORY;
    for (long c = 0; c < ncand; c++) {
        int *r = D->cand + base + c * rec, depth = 0;
        for (long t = S->cand_at[c]; S->parent[t] >= 0; t = S->parent[t]) depth++;
        r[0] = depth + 1;
        r[1] = (int)(uint32_t)S->cand_mask[c];
        r[2] = (int)(uint32_t)(S->cand_mask[c] >> 32);
        const int32_t *k = S->keys + S->cand_at[c] * S->K;
        r[3] = r[4] = r[5] = 0;
        memcpy(r + 6, k, sizeof(int32_t) * (size_t)(3 * (m - 1)));
    }
    D->ncand_ints = base + ncand * rec;
    end(D);
    int best = R_STUCK;
    for (long c = 0; c < ncand; c++) {
        int sub[2] = {NONE, NONE}, stuck = 0, moves = D->cand[base + c * rec];
        uint64_t removed = (uint64_t)(uint32_t)D->cand[base + c * rec + 1] |
                           (uint64_t)(uint32_t)D->cand[base + c * rec + 2] << 32;
        for (int keep = 0; keep < 2 && !stuck; keep++) {  /* the part left behind first, then the one removed */
            int sidx[MAXN], spos[3 * MAXN], k = 0, groups = ~0;
            const int *r = D->cand + base + c * rec;  /* read again: the stack may have moved */
            for (int i = 0; i < m; i++)
                if ((int)(removed >> i & 1) == keep) {
                    sidx[k] = idx[i];
                    for (int cc = 0; cc < 3; cc++) spos[3 * k + cc] = r[3 + 3 * i + cc];
                    groups &= D->cls_groups[idx[i]];
                    k++;
                }
            if (k == 1 || groups != 0) continue;  /* a single piece, or one group: nothing to take apart */
            int t = part_tree(D, k, sidx, spos);
            if (t == R_STUCK) stuck = 1;
            else if (t < NONE) { D->ncand_ints = base; return t; }
            else sub[keep] = t;
        }
        if (stuck) continue;
        if (grow((void **)&D->nodes, &D->nodes_cap, D->nnodes + 1, sizeof(Node)) < 0) return R_NO_MEMORY;
        Node *N = D->nodes;
        int multi = moves > 1 || (sub[0] >= 0 && N[sub[0]].multi) || (sub[1] >= 0 && N[sub[1]].multi);
        N[D->nnodes] = (Node){moves, multi, sub[0], sub[1]};
        int node = (int)D->nnodes++;
        if (best == R_STUCK) {
            best = node;
        } else {  /* the parts compared: the one left behind first, then the one removed */
            int cmp = rank_cmp(N, sub[0], N[best].left);
            if (cmp < 0 || (cmp == 0 && rank_cmp(N, sub[1], N[best].removed) < 0)) best = node;
        }
        if (rank_cmp(N, sub[0], NONE) == 0 && rank_cmp(N, sub[1], NONE) == 0) break;  /* none can be easier */
    }
    D->ncand_ints = base;
    return memo_put(D, mask, m, key, best) < 0 ? R_NO_MEMORY : best;
}

/* The level of a tree into out from `at`: its moves, then the levels of the parts that need more than one
 * move in some step, the part left behind first (Separation.level). */
static int level_of(const Node *N, int node, int *out, int at) {
    out[at++] = N[node].moves;
    if (N[node].left >= 0 && N[N[node].left].multi) at = level_of(N, N[node].left, out, at);
    if (N[node].removed >= 0 && N[N[node].removed].multi) at = level_of(N, N[node].removed, out, at);
    return at;
}

static PyObject *Disassembler_levels(Disassembler *D, PyObject *args) {
    Py_buffer buf;
    int n, every = 0;
    long max_states;
    if (!PyArg_ParseTuple(args, "y*il|p:levels", &buf, &n, &max_states, &every)) return NULL;
    PyObject *status = NULL, *out = NULL;
    Py_ssize_t count = batch_count(D, &buf, n, "levels");
    if (count < 0) goto done;
    const int *in = (const int *)buf.buf;
    status = PyBytes_FromStringAndSize(NULL, count);
    out = PyList_New(count);
    if (status == NULL || out == NULL) goto fail;
    char *st = PyBytes_AS_STRING(status);
    D->max_states = max_states;
    D->every = every;
    for (Py_ssize_t i = 0; i < count; i++) {
        const int *one = in + i * PIECE_INTS * n;
        int idx[MAXN], pos[3 * MAXN];
        for (int p = 0; p < n; p++) {
            idx[p] = p;
            D->cls_shapes[p] = one[PIECE_INTS * p];
            for (int c = 0; c < 3; c++) pos[3 * p + c] = one[PIECE_INTS * p + 1 + c];
            D->cls_groups[p] = one[PIECE_INTS * p + 4];
        }
        D->nnodes = D->nmemo = D->nkeys = D->ncand_ints = 0;
        if (++D->gen == 0) {  /* the stamps wrapped round: no slot may look used */
            if (D->memo) memset(D->memo, 0, sizeof(MemoSlot) * (size_t)D->memo_cap);
            D->gen = 1;
        }
        int t;
        D->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        t = part_tree(D, n, idx, pos);
        Py_END_ALLOW_THREADS
        D->busy = 0;
        PyObject *v;
        if (t == R_NO_MEMORY) { PyErr_NoMemory(); goto fail; }
        if (t >= 0) {
            int level[MAXN];
            int len = level_of(D->nodes, t, level, 0);
            v = PyTuple_New(len);
            if (v == NULL) goto fail;
            for (int k = 0; k < len; k++) {
                PyObject *x = PyLong_FromLong(level[k]);
                if (x == NULL) { Py_DECREF(v); goto fail; }
                PyTuple_SET_ITEM(v, k, x);
            }
            st[i] = FOUND;
        } else if (t == R_TOO_MANY) {
            v = PyLong_FromLong(D->too_many);
            if (v == NULL) goto fail;
            st[i] = TOO_MANY;
        } else {
            v = Py_NewRef(Py_None);
            st[i] = t == R_STUCK ? STUCK : TWIN;
        }
        PyList_SET_ITEM(out, i, v);
    }
    PyBuffer_Release(&buf);
    return Py_BuildValue("(NN)", status, out);
fail:
    Py_XDECREF(status);
    Py_XDECREF(out);
done:
    PyBuffer_Release(&buf);
    return NULL;
}

static PyObject *Disassembler_stats(Disassembler *D, PyObject *unused) {
    return Py_BuildValue("{s:i,s:l,s:l}", "shapes", D->nshapes, "tables", D->ntables, "table_bytes", D->kept);
}

static PyMethodDef Disassembler_methods[] = {
    {"add_shape", (PyCFunction)Disassembler_add_shape, METH_O,
     "add_shape(cells) -> id: a shape (flat cells, least coordinates 0), numbered from 0."},
    {"free", (PyCFunction)Disassembler_free, METH_VARARGS,
     "free(a, b, dx, dy, dz) -> the six free distances of shape b against shape a at that offset."},
    {"separate", (PyCFunction)Disassembler_separate, METH_VARARGS,
     "separate(shapes, origins, start, max_states, every=False) -> (states, found, locked) or None: the "
     "breadth-first search of disassembly.py's _Search._separate_states."},
    {"classify", (PyCFunction)Disassembler_classify, METH_VARARGS,
     "classify(batch, n, max_states, every=False) -> (status, states, found): a batch of assemblies, each "
     "searched from where it is assembled."},
    {"levels", (PyCFunction)Disassembler_levels, METH_VARARGS,
     "levels(batch, n, max_states, every=False) -> (status, levels): a batch of assemblies, each taken apart "
     "whole: its level (a tuple) where it comes apart, else None (or the states of a search past max_states)."},
    {"stats", (PyCFunction)Disassembler_stats, METH_NOARGS, "stats() -> {shapes, tables, table_bytes}."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject DisassemblerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cpsolve.analysis._disassemble.Disassembler",
    .tp_basicsize = sizeof(Disassembler),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Disassembler(budget=64 MiB): shapes, their pair tables and the search's buffers, kept for a "
              "whole run (see the module's source).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Disassembler_init,
    .tp_dealloc = (destructor)Disassembler_dealloc,
    .tp_methods = Disassembler_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_disassemble",
    .m_doc = "The compiled breadth-first disassembly search (disassembly.py has the readable twin).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__disassemble(void) { return cps_module_with_type(&module, &DisassemblerType, "Disassembler"); }
