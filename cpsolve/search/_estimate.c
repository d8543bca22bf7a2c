/*
 * cpsolve.search._estimate: Knuth's estimate of the size of the exact-cover search tree, by random probes.
 *
 * Why: the key piece (and later the split of a long run) changes the size of the search tree by
 * factors of two or more (the Tetris Cube: 67.9 M nodes with one key, 30.0 M with another), and
 * nothing cheaper than the tree itself tells which is smaller. D. E. Knuth, "Estimating the
 * efficiency of backtrack programs", Math. Comp. 29 (1975) 121-136: walk from the root, at each
 * node choose one child uniformly at random, and add the product of the branching degrees seen so
 * far; the mean over many walks is an unbiased estimate of the number of nodes.
 *
 * The tree estimated is the one the dlx engine (_xcover.c) searches: at each node the uncovered
 * required cell with the fewest fitting placements (lowest cell first on ties), or a needed
 * single-copy piece with fewer placements than that cell; a node where some required cell can no
 * longer be covered, or some piece has fewer placements than the copies it still needs (its range's
 * low bound less its uses), has no children. Once every required cell is covered the engine's
 * extension phase follows when there are optional cells: a node whose list holds n placements that
 * still fit has n children (each placement in list order, followed only by those after it), none
 * when more copies are still needed than placements are left. (The engine's pocket-size pruning is
 * left out: it is off, and removes almost no nodes.)
 *
 * The readable twin is `cpsolve/search/estimate.py::python_probe`: the same walk with the same
 * random numbers (xorshift64*), so tests can check that both return the same estimate bit for bit.
 *
 * Why sparse (rows by cell and by piece, counts kept up to date) rather than bitboards: a walk never
 * backtracks, so choosing a placement only has to retire the placements it conflicts with and lower
 * the counts they held; a rebuilt list of live placements cost rows x words per step, which for a
 * large container (Moira's Cube: 729 cells, 8,152 placements) made a walk ten times dearer, and
 * bitboards capped the container at 512 cells. State per walk: filled cells, copies left and still
 * needed per piece, alive rows with the number of alive rows per cell and per piece. A subproblem's
 * starting state (its forced rows applied) is made once and copied for each of its walks. All
 * buffers are allocated once per call.
 */
#include "_native.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n_cells, n_rows, n_pieces, has_optional;
    int *row_start, *row_cells;     /* a row's cells: row_cells[row_start[r] .. row_start[r + 1]] */
    int *cell_start, *cell_rows;    /* the rows covering a cell, in row order */
    int *piece_start, *piece_rows;  /* a piece's rows, in row order */
    int *row_piece, *piece_count, *piece_low;
    unsigned char *required;        /* n_cells */
    /* one walk's state, and the start it began from (`at`: which start it is, -1 none yet) */
    unsigned char *alive, *filled, *alive0, *filled0;
    int *cnt, *pcount, *rem, *need, *cnt0, *pcount0, *rem0, *need0, *cands;
    int short_, req_left, short0, req_left0, clash0, at;
    int solutions;                  /* walk() estimates solutions (leaves that are covers), not nodes */
    int *path, n_path;              /* the rows chosen by the walk so far, forced rows first (descend) */
    int *forced;                    /* n_cells: the current start's rows, read from Python */
} Est;

/* xorshift64* (Vigna): the generator the Python twin uses too. */
static uint64_t next_random(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ULL;
}

/* Row r is no longer live: it leaves its cells' and its piece's counts. */
static inline void retire(Est *e, int r) {
    e->alive[r] = 0;
    for (int k = e->row_start[r]; k < e->row_start[r + 1]; k++) e->cnt[e->row_cells[k]]--;
    e->pcount[e->row_piece[r]]--;
}

/* Choose live row x: fill its cells, retire every live row that meets them, take a copy of its piece
 * (retiring the piece's rows when none is left). */
static void take(Est *e, int x) {
    for (int k = e->row_start[x]; k < e->row_start[x + 1]; k++) {
        const int c = e->row_cells[k];
        e->filled[c] = 1;
        e->req_left -= e->required[c];
        for (int j = e->cell_start[c]; j < e->cell_start[c + 1]; j++)
            if (e->alive[e->cell_rows[j]]) retire(e, e->cell_rows[j]);
    }
    const int p = e->row_piece[x];
    e->rem[p]--;
    e->short_ -= e->need[p]-- > 0;
    if (e->rem[p] == 0)
        for (int j = e->piece_start[p]; j < e->piece_start[p + 1]; j++)
            if (e->alive[e->piece_rows[j]]) retire(e, e->piece_rows[j]);
}

/* The state at the node `forced` (start number `which`), kept so the start's next walks copy it. */
static void start_state(Est *e, const int *forced, int nf, int which) {
    memset(e->filled, 0, (size_t)e->n_cells);
    memcpy(e->rem, e->piece_count, sizeof(int) * (size_t)e->n_pieces);
    memcpy(e->need, e->piece_low, sizeof(int) * (size_t)e->n_pieces);
    e->clash0 = 0;
    for (int i = 0; i < nf && !e->clash0; i++) {
        const int r = forced[i];
        for (int k = e->row_start[r]; k < e->row_start[r + 1]; k++) {
            if (e->filled[e->row_cells[k]]) e->clash0 = 1; /* clashing forced rows: a dead root */
            e->filled[e->row_cells[k]] = 1;
        }
        if (--e->rem[e->row_piece[r]] < 0) e->clash0 = 1;
        e->need[e->row_piece[r]]--;
    }
    e->short0 = 0;
    for (int p = 0; p < e->n_pieces; p++) e->short0 += e->need[p] > 0 ? e->need[p] : 0;
    e->req_left0 = 0;
    for (int c = 0; c < e->n_cells; c++) e->req_left0 += e->required[c] && !e->filled[c];
    memset(e->cnt0, 0, sizeof(int) * (size_t)e->n_cells);
    memset(e->pcount0, 0, sizeof(int) * (size_t)e->n_pieces);
    for (int r = 0; r < e->n_rows; r++) {
        int live = e->rem[e->row_piece[r]] > 0;
        for (int k = e->row_start[r]; k < e->row_start[r + 1] && live; k++) live = !e->filled[e->row_cells[k]];
        e->alive0[r] = (unsigned char)live;
        if (!live) continue;
        for (int k = e->row_start[r]; k < e->row_start[r + 1]; k++) e->cnt0[e->row_cells[k]]++;
        e->pcount0[e->row_piece[r]]++;
    }
    memcpy(e->filled0, e->filled, (size_t)e->n_cells);
    memcpy(e->rem0, e->rem, sizeof(int) * (size_t)e->n_pieces);
    memcpy(e->need0, e->need, sizeof(int) * (size_t)e->n_pieces);
    e->at = which;
}

/* The children of the current node (the engine's choice: the uncovered required cell with the fewest live
 * rows, or a needed single-copy piece with fewer) into e->cands; their number, 0 when the node is dead. */
static int children(Est *e) {
    int best = -1, best_n = 1 << 30;
    for (int c = 0; c < e->n_cells; c++)
        if (e->required[c] && !e->filled[c] && e->cnt[c] < best_n) { best_n = e->cnt[c]; best = c; }
    int best_piece = -1, dead = best_n == 0;
    for (int p = 0; p < e->n_pieces && !dead; p++) {
        if (e->rem[p] == 0) continue;
        if (e->pcount[p] < e->need[p]) dead = 1;
        else if (e->rem[p] == 1 && e->need[p] == 1 && e->pcount[p] < best_n) { best_n = e->pcount[p]; best_piece = p; }
    }
    if (dead) return 0;
    const int *from = best_piece >= 0 ? e->piece_rows + e->piece_start[best_piece] : e->cell_rows + e->cell_start[best];
    const int n_from = best_piece >= 0 ? e->piece_start[best_piece + 1] - e->piece_start[best_piece]
                                       : e->cell_start[best + 1] - e->cell_start[best];
    int d = 0;
    for (int j = 0; j < n_from; j++)
        if (e->alive[from[j]]) e->cands[d++] = from[j];
    return d;
}

/* A walk's state at its start (start number `which`, its rows `forced`): copied from the start's saved state,
 * made first when the start differs from the previous walk's. Returns 0 when the forced rows clash. */
static int begin(Est *e, const int *forced, int nf, int which) {
    if (which != e->at) start_state(e, forced, nf, which);
    if (e->clash0) return 0;
    memcpy(e->alive, e->alive0, (size_t)e->n_rows);
    memcpy(e->filled, e->filled0, (size_t)e->n_cells);
    memcpy(e->cnt, e->cnt0, sizeof(int) * (size_t)e->n_cells);
    memcpy(e->pcount, e->pcount0, sizeof(int) * (size_t)e->n_pieces);
    memcpy(e->rem, e->rem0, sizeof(int) * (size_t)e->n_pieces);
    memcpy(e->need, e->need0, sizeof(int) * (size_t)e->n_pieces);
    e->short_ = e->short0;
    e->req_left = e->req_left0;
    memcpy(e->path, forced, sizeof(int) * (size_t)nf);
    e->n_path = nf;
    return 1;
}

/* Products of degrees leave the doubles' range on large boxes (2^864 for the dominoes of a 12x12x12 box, far
 * more for 6,561 rods): a walk keeps its weight and total as doubles times 2^shift, and divides both by
 * 2^SCALE_STEP (exactly: a power of two) whenever the weight passes 2^SCALE_STEP. While the shift is 0 the
 * arithmetic is the plain one, bit for bit. */
#define SCALE_STEP 512

static inline void rescale(double *weight, double *total, double *found, int *shift) {
    if (*weight > 0x1p512) {
        *weight = ldexp(*weight, -SCALE_STEP);
        *total = ldexp(*total, -SCALE_STEP);
        *found = ldexp(*found, -SCALE_STEP);
        *shift += SCALE_STEP;
    }
}

/* One walk: its estimate of the nodes (or, with e->solutions, of the solutions) is the returned value times
 * 2^*shift. */
static double walk(Est *e, const int *forced, int nf, int which, uint64_t *rng, int *shift) {
    *shift = 0;
    if (!begin(e, forced, nf, which)) return e->solutions ? 0.0 : 1.0;
    double weight = 1.0, total = 1.0, found = 0.0;
    while (e->req_left > 0) {
        const int d = children(e);
        if (d == 0) return e->solutions ? 0.0 : total;
        weight *= d;
        total += weight;
        rescale(&weight, &total, &found, shift);
        take(e, e->cands[next_random(rng) % (uint64_t)d]);
    }
    /* Solutions: a node is one when every required cell is covered and no piece needs more copies; the
     * walk's estimate of them is the sum of the weights of the solution nodes it passes (at most one
     * without optional cells: the leaf). */
    found = e->short_ == 0 ? weight : 0.0;
    if (!e->has_optional) return e->solutions ? found : total;
    /* The extension phase: the live rows in row order; each step keeps those after the one chosen. */
    int *list = e->cands, n = 0;
    for (int r = 0; r < e->n_rows; r++)
        if (e->alive[r]) list[n++] = r;
    while (n > 0 && e->short_ <= n) {
        weight *= n;
        total += weight;
        rescale(&weight, &total, &found, shift);
        const int i = (int)(next_random(rng) % (uint64_t)n), x = list[i], p = e->row_piece[x];
        for (int k = e->row_start[x]; k < e->row_start[x + 1]; k++) e->filled[e->row_cells[k]] = 1;
        e->rem[p]--;
        e->short_ -= e->need[p]-- > 0;
        int m = 0;
        for (int j = i + 1; j < n; j++) {
            const int r = list[j];
            int fits = e->rem[e->row_piece[r]] > 0;
            for (int k = e->row_start[r]; k < e->row_start[r + 1] && fits; k++) fits = !e->filled[e->row_cells[k]];
            if (fits) list[m++] = r; /* m < j: compacting in place */
        }
        n = m;
        if (e->short_ == 0) found += weight;
    }
    return e->solutions ? found : total;
}

/* A walk that stops at `depth` rows (forced ones included) or where every required cell is covered,
 * whichever comes first: the rows it chose are e->path[0 .. e->n_path], their weight (the product of the
 * degrees met below the start) is the returned value times 2^*shift; 0 when the walk died on the way.
 * `levels`, when not NULL, receives log2 of the weight at each row chosen (the walk's estimate of the
 * nodes at that depth below the start), *n_levels of them. */
static double descend(Est *e, const int *forced, int nf, int which, uint64_t *rng, int depth, int *shift,
                      double *levels, int *n_levels) {
    *shift = 0;
    if (n_levels) *n_levels = 0;
    if (!begin(e, forced, nf, which)) return 0.0;
    double weight = 1.0, total = 0.0, found = 0.0;
    while (e->req_left > 0 && e->n_path < depth) {
        const int d = children(e);
        if (d == 0) return 0.0;
        weight *= d;
        rescale(&weight, &total, &found, shift);
        const int x = e->cands[next_random(rng) % (uint64_t)d];
        take(e, x);
        e->path[e->n_path++] = x;
        if (levels) levels[(*n_levels)++] = log2(weight) + *shift;
    }
    return weight;
}

static void est_free(Est *e) {
    free(e->row_start); free(e->row_cells); free(e->cell_start); free(e->cell_rows); free(e->piece_start);
    free(e->piece_rows); free(e->row_piece); free(e->piece_count); free(e->piece_low); free(e->required);
    free(e->alive); free(e->filled); free(e->alive0); free(e->filled0); free(e->cnt); free(e->pcount); free(e->rem);
    free(e->need); free(e->cnt0); free(e->pcount0); free(e->rem0); free(e->need0); free(e->cands); free(e->path);
    free(e->forced);
    memset(e, 0, sizeof(*e));
}

/* Offsets and members of `n_groups` groups from each row's group (`of`, one per row, given in row
 * order): the rows of group g, in row order, are members[start[g] .. start[g + 1]]. */
static int group_rows(int n_groups, const int *of_start, const int *of, int n_rows, int **start, int **members) {
    *start = calloc((size_t)n_groups + 1, sizeof(int));
    *members = malloc(sizeof(int) * ((size_t)of_start[n_rows] + 1));
    int *fill = calloc((size_t)n_groups + 1, sizeof(int));
    if (!*start || !*members || !fill) { free(fill); return -1; }
    for (int k = 0; k < of_start[n_rows]; k++) (*start)[of[k] + 1]++;
    for (int g = 0; g < n_groups; g++) (*start)[g + 1] += (*start)[g];
    for (int r = 0; r < n_rows; r++)
        for (int k = of_start[r]; k < of_start[r + 1]; k++) {
            const int g = of[k];
            (*members)[(*start)[g] + fill[g]++] = r;
        }
    free(fill);
    return 0;
}

/* The problem read into `e` (zeroed first): its buffers allocated once, for every walk to come. 0, or -1 with
 * an exception set (e's buffers are then freed). */
static int est_init(Est *e, int n_cells, PyObject *piece_counts, PyObject *row_piece, PyObject *row_cells,
                    PyObject *piece_low, PyObject *optional) {
    memset(e, 0, sizeof(*e));
    if (n_cells <= 0 || n_cells > (1 << 24)) {
        PyErr_Format(PyExc_ValueError, "n_cells must be in 1..%d", 1 << 24);
        return -1;
    }
    e->n_cells = n_cells;
    e->at = -1;
    Py_ssize_t n_pieces = PyObject_Length(piece_counts), n_rows = PyObject_Length(row_piece);
    if (n_pieces <= 0 || n_rows < 0 || PyObject_Length(row_cells) != n_rows || n_rows > (1 << 28)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "pieces and rows must be non-empty and agree");
        return -1;
    }
    e->n_pieces = (int)n_pieces;
    e->n_rows = (int)n_rows;
    const size_t R = (size_t)n_rows + 1, C = (size_t)n_cells + 1, P = (size_t)n_pieces + 1;
    e->row_start = calloc(R, sizeof(int));
    e->row_piece = malloc(sizeof(int) * R);
    e->piece_count = malloc(sizeof(int) * P);
    e->piece_low = malloc(sizeof(int) * P);
    e->required = malloc(C);
    e->alive = malloc(R);
    e->alive0 = malloc(R);
    e->filled = malloc(C);
    e->filled0 = malloc(C);
    e->cnt = malloc(sizeof(int) * C);
    e->cnt0 = malloc(sizeof(int) * C);
    e->pcount = malloc(sizeof(int) * P);
    e->pcount0 = malloc(sizeof(int) * P);
    e->rem = malloc(sizeof(int) * P);
    e->rem0 = malloc(sizeof(int) * P);
    e->need = malloc(sizeof(int) * P);
    e->need0 = malloc(sizeof(int) * P);
    e->cands = malloc(sizeof(int) * R);
    e->path = malloc(sizeof(int) * C);
    e->forced = malloc(sizeof(int) * C);
    if (!e->row_start || !e->row_piece || !e->piece_count || !e->piece_low || !e->required || !e->alive || !e->alive0
        || !e->filled || !e->filled0 || !e->cnt || !e->cnt0 || !e->pcount || !e->pcount0 || !e->rem || !e->rem0
        || !e->need || !e->need0 || !e->cands || !e->path || !e->forced) {
        PyErr_NoMemory();
        goto failed;
    }
    if (cps_read_ints(piece_counts, e->piece_count, n_pieces, 0, 1 << 20, "piece_counts") < 0) goto failed;
    if (piece_low == Py_None) memcpy(e->piece_low, e->piece_count, sizeof(int) * (size_t)n_pieces);
    else if (cps_read_ints(piece_low, e->piece_low, n_pieces, 0, 1 << 20, "piece_low") < 0) goto failed;
    if (cps_read_ints(row_piece, e->row_piece, n_rows, 0, n_pieces, "row_piece") < 0) goto failed;
    memset(e->required, 1, (size_t)n_cells);
    if (optional != Py_None) {
        Py_ssize_t n_opt = PyObject_Length(optional);
        if (n_opt < 0 || n_opt > n_cells) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "optional: more cells than the container has");
            goto failed;
        }
        if (cps_read_ints(optional, e->forced, n_opt, 0, n_cells, "optional") < 0) goto failed;
        for (Py_ssize_t k = 0; k < n_opt; k++) e->required[e->forced[k]] = 0;
        e->has_optional = n_opt > 0;
    }
    /* rows' cells, read twice: their sizes first, then into one array */
    PyObject *seq = PySequence_Fast(row_cells, "row_cells must be a sequence");
    if (seq == NULL) goto failed;
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        Py_ssize_t k = PyObject_Length(PySequence_Fast_GET_ITEM(seq, r));
        if (k <= 0 || k > n_cells || (long long)e->row_start[r] + k > (1 << 30)) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "row %zd covers %zd cells", r, k);
            Py_DECREF(seq);
            goto failed;
        }
        e->row_start[r + 1] = e->row_start[r] + (int)k;
    }
    e->row_cells = malloc(sizeof(int) * ((size_t)e->row_start[n_rows] + 1));
    if (e->row_cells == NULL) { Py_DECREF(seq); PyErr_NoMemory(); goto failed; }
    for (Py_ssize_t r = 0; r < n_rows; r++)
        if (cps_read_ints(PySequence_Fast_GET_ITEM(seq, r), e->row_cells + e->row_start[r],
                          e->row_start[r + 1] - e->row_start[r], 0, n_cells, "row cell") < 0) {
            Py_DECREF(seq);
            goto failed;
        }
    Py_DECREF(seq);
    int *one = malloc(sizeof(int) * R); /* each row's piece as a group of one, for group_rows */
    if (one == NULL) { PyErr_NoMemory(); goto failed; }
    for (int r = 0; r <= n_rows; r++) one[r] = r;
    int grouped = group_rows(n_cells, e->row_start, e->row_cells, e->n_rows, &e->cell_start, &e->cell_rows) == 0
                  && group_rows(e->n_pieces, one, e->row_piece, e->n_rows, &e->piece_start, &e->piece_rows) == 0;
    free(one);
    if (!grouped) { PyErr_NoMemory(); goto failed; }
    return 0;
failed:
    est_free(e);
    return -1;
}

/* Start `which` of `starts` read into e->forced (kept while walks stay on it: e->at says which start the saved
 * state is of); its number of rows, or -1 with an exception set. */
static Py_ssize_t read_start(Est *e, PyObject *starts, Py_ssize_t which, Py_ssize_t known) {
    if (which == e->at) return known;
    PyObject *start = PySequence_GetItem(starts, which);
    if (start == NULL) return -1;
    Py_ssize_t nf = PyObject_Length(start);
    int rc = nf < 0 || nf > e->n_cells ? -1 : cps_read_ints(start, e->forced, nf, 0, e->n_rows, "forced");
    Py_DECREF(start);
    if (rc < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "forced: too many rows");
        return -1;
    }
    e->at = -1; /* a new start: its state is made by the next walk */
    return nf;
}

/* A walk's value as Python sees it: the float (value x 2^shift, inf past the doubles' range), or with `scaled`
 * the pair (value, shift). */
static PyObject *walk_value(double value, int shift, int scaled) {
    if (scaled) return Py_BuildValue("(di)", value, shift);
    return PyFloat_FromDouble(ldexp(value, shift));
}

/* probes(n_cells, piece_counts, row_piece, row_cells, starts, probes, seed[, each[, reseed[, piece_low[, optional[,
 *        solutions[, scaled]]]]]])
 * -> walk totals. `starts` is a sequence of forced-row tuples (the subproblems); each walk picks one
 * uniformly and multiplies by their number, so the mean estimates the whole tree over all of them.
 * With `each` true, every start gets `probes` walks in turn instead (start 0's first), unscaled: the
 * sizes of the subproblems one by one, from one conversion of the problem (converting it costs more
 * than a walk). With `reseed` too, start j's walks draw from a generator seeded with seed + j, exactly
 * as a call for that start alone with that seed would: the key choice estimates each kept placement
 * with its own seed, and one call per placement spent 0.18 ms converting the problem before 10 walks
 * of 0.05 ms each. `piece_low` (the fewest copies of each piece; default: the counts) and `optional`
 * (cells that may stay empty) describe designers' puzzles as the engine takes them. With `solutions`, each walk
 * returns Knuth's estimate of the number of solutions instead: the product of the branching degrees at
 * the solution it reaches, 0 when it dies (the same random walk: only what is added up differs). With `scaled`,
 * each value is a pair (v, k) standing for v x 2^k, which holds what a double cannot (an estimate past 1e308:
 * the walk's own arithmetic is scaled, see rescale); otherwise a value past a double's range is inf.
 * Ctrl-C (any signal whose handler raises) is looked at after every walk: a call of millions of walks stops
 * within one walk of it. */
static PyObject *probes(PyObject *self, PyObject *args) {
    int n_cells, n_probes, each = 0, reseed = 0, solutions = 0, scaled = 0;
    unsigned long long seed;
    PyObject *piece_counts, *row_piece, *row_cells, *starts, *piece_low = Py_None, *optional = Py_None;
    if (!PyArg_ParseTuple(args, "iOOOOiK|ppOOpp", &n_cells, &piece_counts, &row_piece, &row_cells, &starts, &n_probes,
                          &seed, &each, &reseed, &piece_low, &optional, &solutions, &scaled))
        return NULL;
    Py_ssize_t n_starts = PyObject_Length(starts);
    if (n_starts <= 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "starts must be non-empty");
        return NULL;
    }
    Est e;
    if (est_init(&e, n_cells, piece_counts, row_piece, row_cells, piece_low, optional) < 0) return NULL;
    e.solutions = solutions;
    const Py_ssize_t n_out = (n_probes > 0 ? n_probes : 0) * (each ? n_starts : 1);
    PyObject *out = PyList_New(n_out);
    if (out == NULL) goto done;
    uint64_t rng = seed ? (uint64_t)seed : 0x9E3779B97F4A7C15ULL;
    Py_ssize_t nf = 0;
    for (Py_ssize_t i = 0; i < n_out; i++) {
        if (PyErr_CheckSignals() < 0) { Py_CLEAR(out); goto done; }
        if (each && reseed && i % n_probes == 0) {
            const uint64_t own = (uint64_t)seed + (uint64_t)(i / n_probes);
            rng = own ? own : 0x9E3779B97F4A7C15ULL;
        }
        /* A call for one start alone draws a number to pick it (of one) before every walk: so does reseed. */
        if (each && reseed) next_random(&rng);
        const Py_ssize_t which = each ? i / n_probes : (Py_ssize_t)(next_random(&rng) % (uint64_t)n_starts);
        nf = read_start(&e, starts, which, nf);
        if (nf < 0) { Py_CLEAR(out); goto done; }
        int shift;
        const double value = walk(&e, e.forced, (int)nf, (int)which, &rng, &shift);
        PyObject *v = walk_value((double)(each ? 1 : n_starts) * value, shift, scaled);
        if (v == NULL) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, i, v);
    }
done:
    est_free(&e);
    return out;
}

/* Walker: the problem converted once, for the walks of a long estimate (many calls of a few walks each, where
 * `probes` would convert the problem every time). */
typedef struct {
    PyObject_HEAD
    Est e;
    int ready;
} Walker;

static int Walker_init(Walker *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"n_cells", "piece_counts", "row_piece", "row_cells", "piece_low", "optional", NULL};
    int n_cells;
    PyObject *piece_counts, *row_piece, *row_cells, *piece_low = Py_None, *optional = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iOOO|OO", kwlist, &n_cells, &piece_counts, &row_piece, &row_cells,
                                     &piece_low, &optional))
        return -1;
    if (self->ready) est_free(&self->e);
    self->ready = 0;
    if (est_init(&self->e, n_cells, piece_counts, row_piece, row_cells, piece_low, optional) < 0) return -1;
    self->ready = 1;
    return 0;
}

static void Walker_dealloc(Walker *self) {
    if (self->ready) est_free(&self->e);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The rows `start` read as the walker's one start (its state made by the first walk); their number, or -1 with
 * an exception set. */
static Py_ssize_t walker_start(Walker *self, PyObject *start) {
    if (!self->ready) { PyErr_SetString(PyExc_RuntimeError, "Walker not initialised"); return -1; }
    self->e.at = -1;
    PyObject *one = PyTuple_Pack(1, start);
    if (one == NULL) return -1;
    const Py_ssize_t nf = read_start(&self->e, one, 0, 0);
    Py_DECREF(one);
    return nf;
}

/* descend(start, n, seed, depth) -> [None | (weight, shift, rows)] */
static PyObject *Walker_descend(Walker *self, PyObject *args) {
    PyObject *start;
    int n, depth;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OiKi", &start, &n, &seed, &depth)) return NULL;
    Est *e = &self->e;
    const Py_ssize_t nf = walker_start(self, start);
    if (nf < 0) return NULL;
    PyObject *out = PyList_New(n > 0 ? n : 0);
    uint64_t rng = seed ? (uint64_t)seed : 0x9E3779B97F4A7C15ULL;
    for (int i = 0; out != NULL && i < n; i++) {
        if (PyErr_CheckSignals() < 0) { Py_CLEAR(out); break; }
        int shift;
        const double weight = descend(e, e->forced, (int)nf, 0, &rng, depth, &shift, NULL, NULL);
        PyObject *item;
        if (weight == 0.0) {
            item = Py_NewRef(Py_None);
        } else {
            PyObject *rows = PyTuple_New(e->n_path);
            for (int k = 0; rows != NULL && k < e->n_path; k++) {
                PyObject *v = PyLong_FromLong(e->path[k]);
                if (v == NULL) { Py_CLEAR(rows); break; }
                PyTuple_SET_ITEM(rows, k, v);
            }
            item = rows == NULL ? NULL : Py_BuildValue("(diN)", weight, shift, rows);
        }
        if (item == NULL) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* levels(start, n, seed) -> [[log2 of the weight at each depth the walk reached below the start]] */
static PyObject *Walker_levels(Walker *self, PyObject *args) {
    PyObject *start;
    int n;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OiK", &start, &n, &seed)) return NULL;
    Est *e = &self->e;
    const Py_ssize_t nf = walker_start(self, start);
    if (nf < 0) return NULL;
    double *levels = malloc(sizeof(double) * ((size_t)e->n_cells + 1));
    if (levels == NULL) return PyErr_NoMemory();
    PyObject *out = PyList_New(n > 0 ? n : 0);
    uint64_t rng = seed ? (uint64_t)seed : 0x9E3779B97F4A7C15ULL;
    for (int i = 0; out != NULL && i < n; i++) {
        if (PyErr_CheckSignals() < 0) { Py_CLEAR(out); break; }
        int shift, reached;
        descend(e, e->forced, (int)nf, 0, &rng, e->n_cells + 1, &shift, levels, &reached);
        PyObject *walk_levels = PyList_New(reached);
        for (int k = 0; walk_levels != NULL && k < reached; k++) {
            PyObject *v = PyFloat_FromDouble(levels[k]);
            if (v == NULL) { Py_CLEAR(walk_levels); break; }
            PyList_SET_ITEM(walk_levels, k, v);
        }
        if (walk_levels == NULL) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, i, walk_levels);
    }
    free(levels);
    return out;
}

static PyMethodDef Walker_methods[] = {
    {"descend", (PyCFunction)Walker_descend, METH_VARARGS,
     "descend(start, n, seed, depth) -> list: n walks from the rows `start`, each stopping once it holds `depth`\n"
     "rows (the start's included) or covers every required cell: None where it died, else (weight, shift, rows),\n"
     "the product of the degrees below the start being weight x 2**shift."},
    {"levels", (PyCFunction)Walker_levels, METH_VARARGS,
     "levels(start, n, seed) -> list: n walks from the rows `start` to where they end, each as the log2 of its\n"
     "weight at every depth it reached below the start (the walk's estimate of the nodes there)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject WalkerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cpsolve.search._estimate.Walker",
    .tp_basicsize = sizeof(Walker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Walker(n_cells, piece_counts, row_piece, row_cells, piece_low=None, optional=None): the problem\n"
              "converted once for many calls of random walks (descend, levels).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Walker_init,
    .tp_dealloc = (destructor)Walker_dealloc,
    .tp_methods = Walker_methods,
};

static PyMethodDef methods[] = {
    {"probes", probes, METH_VARARGS,
     "probes(n_cells, piece_counts, row_piece, row_cells, starts, probes, seed[, each[, reseed[, piece_low[, "
     "optional[, solutions[, scaled]]]]]]) -> [estimated nodes (or solutions) per walk]"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_estimate",
    .m_doc = "Knuth's random-probe estimate of the exact-cover search tree (see estimate.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__estimate(void) { return cps_module_with_type(&module, &WalkerType, "Walker"); }
