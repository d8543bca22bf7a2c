/*
 * cpsolve.analysis._turns: the exact sweep test of a quarter turn (may these cubes make this turn?),
 * compiled, in integer arithmetic only.
 *
 * Why: the search with turns (turning.py) asks it for every movable set, 3 axes, 2 senses and every
 * pivot near the set, and each answer looks at every pair of a moving and a static square of a layer
 * that the turn can reach; in Python (fractions.Fraction, exact) one pair cost about 0.3 ms. The
 * readable twin is turns.py (`Scene.blocking` and `sweep_hits`, with `_separations`, `_roots_in_unit`,
 * `_compare`); tests/test_turns.py checks that both give the same answer, and the same blocking pair,
 * on many random scenes, so this file only has to be fast and exactly equivalent. The twin also runs
 * wherever the bounds below are passed (TOO_BIG) or C is not built.
 *
 * The geometry (turns.py's docstring has it at length). A turn about a line parallel to axis `axis`
 * through the pivot P (doubled in-plane coordinates pu, pv: both even, a cell corner; both odd, a
 * centre) keeps every cube in its layer along the axis. In a layer, a moving unit square S turned
 * counterclockwise (a negative turn is mirrored in v first) through every angle a in [0, 90 degrees]
 * must never overlap the interior of a static square T; both are shrunk by the clearance c = num/den
 * on every side.
 *
 * Integers. Coordinates are taken relative to P and scaled by 2 den: a square's doubled lower corner
 * (au, av) gives the sides [au den + 2 num, au den + 2 den - 2 num], etc. (Python's a0, a1, b0, b1 of
 * `sweep_hits` times 2 den). M is the largest |scaled coordinate| of the pair; every quantity below is
 * a polynomial in them, and the bound M <= MAXC = 2^19 is checked for every pair that reaches the
 * polynomial tests: past it the answer is TOO_BIG and the caller runs the twin.
 *
 * The method (the twin's, step for step, except where said). For a fixed a the squares' interiors are
 * disjoint iff a line parallel to one of their edges separates them (separating axes: x, y and S's
 * turned edges): 8 separations, each "4 corners on one side", each corner condition
 * alpha cos a + beta sin a + gamma <= 0, alpha, beta, gamma each a scaled coordinate up to sign (so
 * |.| <= M). With t = tan(a/2) in [0, 1] and times 1 + t^2 > 0: q(t) = (gamma - alpha) t^2 + 2 beta t
 * + (alpha + gamma) <= 0, integer coefficients |q_i| <= 2M (`quad`). The squares meet at some angle
 * iff O = {t in [0,1] : in each of the 8 groups some q(t) > 0} is not empty.
 *  1. A clearance of half a side or more leaves no square: no hit. Radial ranges (distance^2 from P,
 *     kept by the turn) that do not overlap: no hit (degree 2, int64).
 *  2. Per group: a q <= 0 on all of [0, 1] is dropped (it never makes the separation fail); a group
 *     left empty holds for every t: no hit. A group with a q > 0 on all of [0, 1] fails everywhere and
 *     is dropped; no group left: a hit. max and min of q on [0, 1] are among q(0), q(1) and the value
 *     at the vertex -q1/(2 q2) when inside, whose sign is -sign(q1^2 - 4 q2 q0) sign(q2) (`extremes`;
 *     degree 2).
 *  3. The truth of every q(t) > 0 is constant between consecutive roots of the kept quadratics, and
 *     O is open in [0, 1]: O is not empty iff it holds on the whole of one interval between
 *     consecutive points of {0, 1} and those roots. Here the twin sorts the roots and evaluates at a
 *     rational inside each interval, which it finds by bisecting square roots (unbounded bits); this
 *     file does the same decision without sorting or bisecting: every interval (p, p') has its left
 *     end p in L = {0} and the roots in [0, 1), and the sign of q on (p, p') is its sign just right of
 *     p: the first nonzero of q(p), q'(p), q2 (Taylor). So O is not empty iff for some p in L every
 *     kept group has a q with that sign > 0. (Conversely a p of L with that property gives O an
 *     interval (p, p + eps).)
 *  4. Roots are x = (e + s sqrt m) / f with f > 0, s in {-1, 0, 1}, m >= 0 (`Root`): for q2 != 0,
 *     q1 = 2 beta is even and x = (-beta +- sqrt(beta^2 - q2 q0)) / q2, with beta^2 - q2 q0 =
 *     alpha^2 + beta^2 - gamma^2 in [0, 2M^2], |e| <= M, |f| <= 2M; for q2 = 0, x = -q0 / q1, |e|, |f|
 *     <= 2M, s = 0. Every sign asked is that of g + h sqrt k, decided by `sign_root_sum`: the signs of
 *     g and h, and when they differ, g^2 against h^2 k (one squaring, exact).
 *     x in [0, 1): g = e or e - f, h = s: degree 2.
 *     f^2 q(x) = R + s S sqrt m, R = q2 (e^2 + m) + q1 f e + q0 f^2 (|R| <= 24 M^3), S = 2 q2 e + q1 f
 *     (|S| <= 12 M^2): R^2 <= 576 M^6 and S^2 m <= 288 M^6; with M <= 2^19 both are below 2^124, in
 *     __int128 (the largest products here: degree 6, against the twin's degree 8 root-against-root
 *     comparisons, which is why step 3 evaluates at roots instead of sorting them).
 *     f q'(x) = S + 2 q2 s sqrt m: degree 4.
 * Nothing is rounded, so the answer is the geometry's, the twin's.
 *
 * `blocking` is the twin's `Scene.blocking` on flat cells: end cells first (the first moving cell, in
 * order, whose turned cell is a static one), then per moving cell in order the static cells of its
 * layer in the order given, the twin's reach filter (doubled radius^2, unscaled) before the sweep. So
 * the first blocking pair is the twin's when the static cells come in the order of its layer lists:
 * the static cells are indexed by layer once per axis (`Layers`: sorted by layer, then input order,
 * which is that order), so a moving cell meets only its own layer's.
 *
 * `allowed` is the twin's `allowed_turns_twin`: for one moving set, every axis, pivot (cell centres and
 * corners of the set's in-plane box grown by one cell) and sense, in that order, `blocking` for each;
 * the free turns as a list. It exists because the search asks it for every set of every position, and
 * a call from Python per turn cost more than the test. One TOO_BIG anywhere makes the whole answer None
 * (the twin then answers for the set, turn by turn).
 *
 * Input cells must be in [-COORD, COORD) (else TOO_BIG, as past MAXC). No state is kept between calls
 * (nothing to undo); buffers are the caller's or freed before returning.
 */
#include "_native.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXC (1LL << 19)  /* |scaled coordinate| bound: the degree-6 products stay below 2^124 */
#define COORD (1L << 20)  /* |cell coordinate| bound on input: doubled differences stay far inside int32 */
#define FREE (-1)         /* `blocking`: the turn is allowed */
#define TOO_BIG (-2)      /* past the bounds: the caller runs the twin */

typedef __int128 i128;
typedef long long i64;

static inline int sgn(i128 x) { return (x > 0) - (x < 0); }

/* The sign of g + h sqrt(k), k >= 0, exactly: when g and h have opposite signs the larger magnitude
 * wins, g^2 against h^2 k (the caller keeps both below 2^126). */
static int sign_root_sum(i128 g, i128 h, i128 k) {
    int sg = sgn(g), sh = k ? sgn(h) : 0;
    if (sh == 0) return sg;
    if (sg == 0 || sg == sh) return sh;
    return sg * sgn(g * g - h * h * k);
}

typedef struct { i64 q2, q1, q0; } Quad;   /* q2 t^2 + q1 t + q0, |q_i| <= 2M */
typedef struct { i64 e, f, m; int s; } Root; /* (e + s sqrt m) / f, f > 0; s = 0 has m = 0 */

/* (1 + t^2)(alpha cos a + beta sin a + gamma) with t = tan(a/2): the twin's `_quadratic`. */
static inline Quad quad(i64 alpha, i64 beta, i64 gamma) {
    Quad q = {gamma - alpha, 2 * beta, alpha + gamma};
    return q;
}

/* Whether q's maximum on [0, 1] is > 0 (*maxpos) and its minimum is (*minpos): the twin's `_max01`,
 * `_min01` > 0, from q(0), q(1) and the vertex's value when the vertex is strictly inside. */
static void extremes(Quad q, int *maxpos, int *minpos) {
    int s0 = sgn(q.q0), s1 = sgn((i128)q.q0 + q.q1 + q.q2), sv = 0, inside = 0;
    if (q.q2 > 0) inside = 0 < -q.q1 && -q.q1 < 2 * q.q2;
    else if (q.q2 < 0) inside = 0 < q.q1 && q.q1 < -2 * q.q2;
    if (inside) sv = -sgn((i128)q.q1 * q.q1 - (i128)4 * q.q2 * q.q0) * sgn(q.q2);
    *maxpos = s0 > 0 || s1 > 0 || (inside && sv > 0);
    *minpos = s0 > 0 && s1 > 0 && (!inside || sv > 0);
}

/* q's roots in [0, 1) appended to out (the twin's `_roots_in_unit`, less the root 1, which is no
 * interval's left end); the number appended. */
static int roots_in_unit(Quad q, Root *out) {
    Root r[2];
    int n = 0, kept = 0;
    if (q.q2 == 0) {
        if (q.q1 == 0) return 0;  /* constant: no root that matters */
        int s1 = q.q1 > 0 ? 1 : -1;
        r[n++] = (Root){-q.q0 * s1, q.q1 * s1, 0, 0};
    } else {
        i64 beta = q.q1 / 2;  /* q1 = 2 beta: always even here */
        i64 disc = beta * beta - q.q2 * q.q0;  /* alpha^2 + beta^2 - gamma^2 <= 2 M^2 */
        if (disc < 0) return 0;
        int s2 = q.q2 > 0 ? 1 : -1;
        if (disc == 0) r[n++] = (Root){-beta * s2, q.q2 * s2, 0, 0};
        else {
            r[n++] = (Root){-beta * s2, q.q2 * s2, disc, 1};
            r[n++] = (Root){-beta * s2, q.q2 * s2, disc, -1};
        }
    }
    for (int i = 0; i < n; i++)
        if (sign_root_sum(r[i].e, r[i].s, r[i].m) >= 0 && sign_root_sum((i128)r[i].e - r[i].f, r[i].s, r[i].m) < 0)
            out[kept++] = r[i];
    return kept;
}

/* The sign of q on (x, x + eps) for every small enough eps > 0: of q(x), else q'(x), else q2. */
static int sign_right_of(Quad q, Root x) {
    i128 e = x.e, f = x.f, m = x.m;
    i128 S = 2 * (i128)q.q2 * e + (i128)q.q1 * f;
    i128 R = (i128)q.q2 * (e * e + m) + (i128)q.q1 * f * e + (i128)q.q0 * f * f;
    int v = sign_root_sum(R, x.s * S, m);
    if (v) return v;
    v = sign_root_sum(S, (i128)2 * q.q2 * x.s, m);
    if (v) return v;
    return sgn(q.q2);
}

static inline i64 max3(i64 a, i64 b, i64 c) { i64 m = a > b ? a : b; return m > c ? m : c; }
static inline i64 sq(i64 a) { return a * a; }

/* Whether the square with doubled lower corner (au, av) relative to the pivot, turned counterclockwise
 * through 0..90 degrees, overlaps the interior of the static one at (bu, bv), both shrunk by num/den:
 * 1 or 0, TOO_BIG past MAXC. The twin's `sweep_hits`. */
static int sweep_hits(i64 au, i64 av, i64 bu, i64 bv, i64 num, i64 den) {
    i128 side = 2 * (i128)den - 4 * (i128)num;
    if (side <= 0) return 0;  /* squares shrunk to nothing */
    /* scaled in __int128 (inputs up to 2^40 each), checked against MAXC, then int64 */
    i128 w[8] = {(i128)au * den + 2 * num, 0, (i128)av * den + 2 * num, 0,
                 (i128)bu * den + 2 * num, 0, (i128)bv * den + 2 * num, 0};
    for (int i = 0; i < 8; i += 2) w[i + 1] = w[i] + side;
    for (int i = 0; i < 8; i++)
        if (w[i] > MAXC || w[i] < -MAXC) return TOO_BIG;
    i64 a0 = (i64)w[0], a1 = (i64)w[1], b0 = (i64)w[2], b1 = (i64)w[3];
    i64 c0 = (i64)w[4], c1 = (i64)w[5], d0 = (i64)w[6], d1 = (i64)w[7];
    /* radial ranges: squared distances from the pivot, kept by the turn */
    i64 rmin_a = sq(max3(a0, -a1, 0)) + sq(max3(b0, -b1, 0)), rmax_a = (sq(a0) > sq(a1) ? sq(a0) : sq(a1)) + (sq(b0) > sq(b1) ? sq(b0) : sq(b1));
    i64 rmin_c = sq(max3(c0, -c1, 0)) + sq(max3(d0, -d1, 0)), rmax_c = (sq(c0) > sq(c1) ? sq(c0) : sq(c1)) + (sq(d0) > sq(d1) ? sq(d0) : sq(d1));
    if (rmax_a <= rmin_c || rmin_a >= rmax_c) return 0;
    /* the 8 separations, in the twin's order (`_separations`), corners x outer, y inner */
    i64 mx[4] = {a0, a0, a1, a1}, my[4] = {b0, b1, b0, b1};
    i64 sx[4] = {c0, c0, c1, c1}, sy[4] = {d0, d1, d0, d1};
    Quad g[8][4];
    for (int i = 0; i < 4; i++) {
        i64 x = mx[i], y = my[i];
        g[0][i] = quad(x, -y, -c0);   /* left of x = c0 */
        g[1][i] = quad(-x, y, c1);    /* right of x = c1 */
        g[2][i] = quad(y, x, -d0);    /* below y = d0 */
        g[3][i] = quad(-y, -x, d1);   /* above y = d1 */
        x = sx[i], y = sy[i];
        g[4][i] = quad(x, y, -a0);    /* static corners before the turned square along (cos, sin) */
        g[5][i] = quad(-x, -y, a1);   /* after it */
        g[6][i] = quad(y, -x, -b0);   /* along (-sin, cos): before */
        g[7][i] = quad(-y, x, b1);    /* after */
    }
    /* kept[k][0..nk[k]): the live quadratics of the k-th group kept (step 2) */
    Quad kept[8][4];
    int nk[8], groups = 0;
    for (int k = 0; k < 8; k++) {
        int n = 0, always = 0;
        for (int i = 0; i < 4; i++) {
            int maxpos, minpos;
            extremes(g[k][i], &maxpos, &minpos);
            if (!maxpos) continue;
            if (minpos) always = 1;
            kept[groups][n++] = g[k][i];
        }
        if (n == 0) return 0;       /* this separation holds for every angle */
        if (always) continue;       /* fails at every angle: says nothing */
        nk[groups++] = n;
    }
    if (groups == 0) return 1;
    /* L: 0 and the kept quadratics' roots in [0, 1) (at most 8 * 4 * 2 + 1) */
    Root pts[65];
    int np = 0;
    pts[np++] = (Root){0, 1, 0, 0};
    for (int k = 0; k < groups; k++)
        for (int i = 0; i < nk[k]; i++) np += roots_in_unit(kept[k][i], pts + np);
    for (int p = 0; p < np; p++) {
        int all = 1;
        for (int k = 0; k < groups && all; k++) {
            int any = 0;
            for (int i = 0; i < nk[k] && !any; i++) any = sign_right_of(kept[k][i], pts[p]) > 0;
            all = any;
        }
        if (all) return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------- Python */

/* Flat cells (3 ints each) from a sequence or bytes of C ints into a malloc'd array: *n cells. NULL with
 * an exception set on error (an empty input gives a 1-int allocation). */
static int *read_cells(PyObject *obj, Py_ssize_t *n, const char *what) {
    Py_ssize_t len = PyBytes_Check(obj) ? PyBytes_GET_SIZE(obj) / (Py_ssize_t)sizeof(int) : PySequence_Size(obj);
    if (len < 0) return NULL;
    if (len % 3) {
        PyErr_Format(PyExc_ValueError, "%s: 3 ints a cell, got %zd ints", what, len);
        return NULL;
    }
    int *out = malloc(sizeof(int) * (size_t)(len ? len : 1));
    if (out == NULL) { PyErr_NoMemory(); return NULL; }
    if (cps_read_ints(obj, out, len, INT_MIN, (long)INT_MAX + 1, what) < 0) { free(out); return NULL; }
    *n = len / 3;
    return out;
}

static int in_coord(const int *cells, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < 3 * n; i++)
        if (cells[i] < -COORD || cells[i] >= COORD) return 0;
    return 1;
}

/* The static cells of one axis's layers: idx holds 0 .. ns - 1 sorted by (cell[axis], index), so the
 * cells of one layer are a run of idx in input order: the order of the twin's layer lists (`Scene.layers`).
 * Filled once per call for the axes asked; read only after. */
typedef struct { const int *sta; Py_ssize_t ns; int axis; Py_ssize_t *idx; } Layers;

static const int *sort_cells;
static int sort_axis;
static int by_layer(const void *a, const void *b) {
    Py_ssize_t i = *(const Py_ssize_t *)a, j = *(const Py_ssize_t *)b;
    int li = sort_cells[3 * i + sort_axis], lj = sort_cells[3 * j + sort_axis];
    return li != lj ? (li > lj) - (li < lj) : (i > j) - (i < j);
}

/* 0, or -1 with MemoryError set. (qsort's comparator reads the two statics above: the GIL is held.) */
static int make_layers(const int *sta, Py_ssize_t ns, int axis, Layers *L) {
    L->sta = sta, L->ns = ns, L->axis = axis;
    L->idx = malloc(sizeof(Py_ssize_t) * (size_t)(ns ? ns : 1));
    if (L->idx == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t j = 0; j < ns; j++) L->idx[j] = j;
    sort_cells = sta, sort_axis = axis;
    qsort(L->idx, (size_t)ns, sizeof(Py_ssize_t), by_layer);
    return 0;
}

/* [*lo, *hi): the run of L->idx in layer `layer` (binary search). */
static void layer_run(const Layers *L, int layer, Py_ssize_t *lo, Py_ssize_t *hi) {
    Py_ssize_t a = 0, b = L->ns;
    while (a < b) {
        Py_ssize_t m = a + (b - a) / 2;
        if (L->sta[3 * L->idx[m] + L->axis] < layer) a = m + 1; else b = m;
    }
    *lo = a, b = L->ns;
    while (a < b) {
        Py_ssize_t m = a + (b - a) / 2;
        if (L->sta[3 * L->idx[m] + L->axis] <= layer) a = m + 1; else b = m;
    }
    *hi = a;
}

/* The twin's `Scene.blocking`: FREE, TOO_BIG, or i * n_static + j for moving cell i against static j.
 * L: the static cells' layers along the turn's axis (only a moving cell's own layer can meet it). */
static i64 blocking(const int *mov, Py_ssize_t nm, const Layers *L, int sense, i64 pu, i64 pv, i64 num,
                    i64 den) {
    int axis = L->axis, u = (axis + 1) % 3, v = (axis + 2) % 3;  /* the plane in cyclic order, as PLANES */
    const int *sta = L->sta;
    Py_ssize_t ns = L->ns, lo, hi;
    /* end cells: the doubled centre (2c + 1 - p) turned, (u, v) -> (-v, u) (sense +1) or (v, -u) */
    for (Py_ssize_t i = 0; i < nm; i++) {
        const int *c = mov + 3 * i;
        i64 du = 2 * (i64)c[u] + 1 - pu, dv = 2 * (i64)c[v] + 1 - pv;
        i64 eu = sense > 0 ? -dv : dv, ev = sense > 0 ? du : -du;
        i64 end_u = (eu + pu - 1) / 2, end_v = (ev + pv - 1) / 2;  /* eu + pu is odd: exact halving */
        layer_run(L, c[axis], &lo, &hi);
        for (Py_ssize_t k = lo; k < hi; k++) {
            const int *s = sta + 3 * L->idx[k];
            if (s[u] == end_u && s[v] == end_v) return (i64)i * ns + L->idx[k];
        }
    }
    for (Py_ssize_t i = 0; i < nm; i++) {
        const int *c = mov + 3 * i;
        i64 au = 2 * (i64)c[u] - pu, av = 2 * (i64)c[v] - pv;
        i64 reach = sq((au < 0 ? -au : au) + 2) + sq((av < 0 ? -av : av) + 2);
        if (sense < 0) av = -av - 2;  /* a negative turn is a positive one mirrored in v */
        layer_run(L, c[axis], &lo, &hi);
        for (Py_ssize_t k = lo; k < hi; k++) {
            const int *s = sta + 3 * L->idx[k];
            i64 bu = 2 * (i64)s[u] - pu, bv = 2 * (i64)s[v] - pv;
            if (sq(max3(bu, -bu - 2, 0)) + sq(max3(bv, -bv - 2, 0)) >= reach) continue;
            if (sense < 0) bv = -bv - 2;
            int hit = sweep_hits(au, av, bu, bv, num, den);
            if (hit == TOO_BIG) return TOO_BIG;
            if (hit) return (i64)i * ns + L->idx[k];
        }
    }
    return FREE;
}

/* The twin's `allowed_turns_twin`: every quarter turn of the moving cells that `blocking` allows, in its
 * order (axis, pivot u, pivot v, sense +1 then -1), pivots over the moving cells' in-plane box grown by
 * one cell on every side: a new list of (axis, pu, pv, sense), or None when a test passed the bounds
 * (TOO_BIG: the caller runs the twin for the whole set). */
static PyObject *allowed(const int *mov, Py_ssize_t nm, const int *sta, Py_ssize_t ns, i64 num, i64 den) {
    PyObject *out = PyList_New(0);
    if (out == NULL || nm == 0) return out;
    for (int axis = 0; axis < 3; axis++) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        i64 lo_u = mov[u], hi_u = mov[u], lo_v = mov[v], hi_v = mov[v];
        for (Py_ssize_t i = 1; i < nm; i++) {
            i64 cu = mov[3 * i + u], cv = mov[3 * i + v];
            if (cu < lo_u) lo_u = cu;
            if (cu > hi_u) hi_u = cu;
            if (cv < lo_v) lo_v = cv;
            if (cv > hi_v) hi_v = cv;
        }
        Layers L;
        if (make_layers(sta, ns, axis, &L) < 0) { Py_DECREF(out); return NULL; }
        for (i64 pu = 2 * lo_u - 2; pu < 2 * hi_u + 5; pu++) {
            /* pv of pu's parity: both even (a corner) or both odd (a centre) */
            for (i64 pv = 2 * lo_v - 2 + (pu & 1); pv < 2 * hi_v + 5; pv += 2) {
                for (int sense = 1; sense >= -1; sense -= 2) {
                    i64 got = blocking(mov, nm, &L, sense, pu, pv, num, den);
                    if (got == TOO_BIG) { free(L.idx); Py_DECREF(out); Py_RETURN_NONE; }
                    if (got != FREE) continue;
                    PyObject *t = Py_BuildValue("(iLLi)", axis, (long long)pu, (long long)pv, sense);
                    if (t == NULL || PyList_Append(out, t) < 0) {
                        Py_XDECREF(t); free(L.idx); Py_DECREF(out); return NULL;
                    }
                    Py_DECREF(t);
                }
            }
        }
        free(L.idx);
    }
    return out;
}

static PyObject *py_sweep_hits(PyObject *self, PyObject *args) {
    long long au, av, bu, bv, num, den;
    if (!PyArg_ParseTuple(args, "LLLLLL", &au, &av, &bu, &bv, &num, &den)) return NULL;
    if (den <= 0) return PyErr_Format(PyExc_ValueError, "clearance denominator %lld is not positive", den);
    long long big = 1LL << 40;  /* keeps the scaling's products inside int64; past MAXC anyway */
    if (au < -big || au > big || av < -big || av > big || bu < -big || bu > big || bv < -big || bv > big ||
        num < -big || num > big || den > big)
        return PyLong_FromLong(TOO_BIG);
    return PyLong_FromLong(sweep_hits(au, av, bu, bv, num, den));
}

/* The moving and static cells of a call, read into malloc'd arrays (both freed by the caller on 0; none
 * left on -1, with an exception set); *inside: every cell within COORD and the clearance within 2^40
 * (else the answer is TOO_BIG: the twin's). */
static int read_scene(PyObject *mo, PyObject *so, long long num, long long den, int **mov, Py_ssize_t *nm,
                      int **sta, Py_ssize_t *ns, int *inside) {
    *mov = read_cells(mo, nm, "moving");
    if (*mov == NULL) return -1;
    *sta = read_cells(so, ns, "static");
    if (*sta == NULL) { free(*mov); return -1; }
    long long big = 1LL << 40;
    *inside = in_coord(*mov, *nm) && in_coord(*sta, *ns) && -big <= num && num <= big && den <= big;
    return 0;
}

static PyObject *py_blocking(PyObject *self, PyObject *args) {
    PyObject *mo, *so;
    int axis, sense, inside;
    long long pu, pv, num, den;
    if (!PyArg_ParseTuple(args, "OOiiLLLL", &mo, &so, &axis, &sense, &pu, &pv, &num, &den)) return NULL;
    if (axis < 0 || axis > 2 || (sense != 1 && sense != -1) || den <= 0)
        return PyErr_Format(PyExc_ValueError, "not a turn: axis %d, sense %d, clearance denominator %lld",
                            axis, sense, den);
    Py_ssize_t nm, ns;
    int *mov, *sta;
    if (read_scene(mo, so, num, den, &mov, &nm, &sta, &ns, &inside) < 0) return NULL;
    i64 got = TOO_BIG;
    if (inside && -2 * COORD <= pu && pu <= 2 * COORD && -2 * COORD <= pv && pv <= 2 * COORD) {
        Layers L;
        if (make_layers(sta, ns, axis, &L) < 0) { free(mov); free(sta); return NULL; }
        got = blocking(mov, nm, &L, sense, pu, pv, num, den);
        free(L.idx);
    }
    free(mov);
    free(sta);
    return PyLong_FromLongLong(got);
}

static PyObject *py_allowed(PyObject *self, PyObject *args) {
    PyObject *mo, *so;
    long long num, den;
    int inside;
    if (!PyArg_ParseTuple(args, "OOLL", &mo, &so, &num, &den)) return NULL;
    if (den <= 0) return PyErr_Format(PyExc_ValueError, "clearance denominator %lld is not positive", den);
    Py_ssize_t nm, ns;
    int *mov, *sta;
    if (read_scene(mo, so, num, den, &mov, &nm, &sta, &ns, &inside) < 0) return NULL;
    PyObject *got;
    if (inside)
        got = allowed(mov, nm, sta, ns, num, den);
    else {
        Py_INCREF(Py_None);
        got = Py_None;  /* past the bounds: the twin */
    }
    free(mov);
    free(sta);
    return got;
}

static PyMethodDef methods[] = {
    {"sweep_hits", py_sweep_hits, METH_VARARGS,
     "sweep_hits(au, av, bu, bv, num, den) -> 1 or 0 (TOO_BIG past the bounds): whether the unit square at\n"
     "doubled lower corner (au, av) relative to the pivot, turned counterclockwise through 90 degrees, overlaps\n"
     "the interior of the one at (bu, bv); both shrunk by num/den on every side (turns.sweep_hits)."},
    {"blocking", py_blocking, METH_VARARGS,
     "blocking(moving, static, axis, sense, pu, pv, num, den) -> FREE, TOO_BIG or i * len(static) + j: flat\n"
     "cells (sequences or bytes of C ints, 3 a cell), the turn's axis, sense and doubled in-plane pivot, the\n"
     "clearance num/den; the first blocking pair as turns.Scene.blocking finds it."},
    {"allowed", py_allowed, METH_VARARGS,
     "allowed(moving, static, num, den) -> [(axis, pu, pv, sense), ...] or None past the bounds: every\n"
     "quarter turn of the moving cells that `blocking` allows, pivots over their in-plane box grown by one\n"
     "cell, in the order of turns.allowed_turns_twin."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_turns",
    .m_doc = "The exact sweep test of a quarter turn, in integers (see turns.py, its twin).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__turns(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "FREE", FREE) < 0 || PyModule_AddIntConstant(m, "TOO_BIG", TOO_BIG) < 0 ||
        PyModule_AddIntConstant(m, "MAXC", (long)MAXC) < 0 || PyModule_AddIntConstant(m, "COORD", COORD) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
