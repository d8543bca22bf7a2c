/* The hot loop of the snake-cube census: every Hamiltonian path of a box's grid graph that starts
 * with a given prefix, filed by its straight/turn sequence.
 *
 * The same search as `walk` in snake.py (the readable twin, which a test checks this against):
 * a depth-first search over a visited bitmask (up to 64 cells), the turn sequence built bit by bit.
 * Results go to an open-addressing hash table keyed by the sequence; for palindromic sequences the
 * number of isometries carrying the path onto its own reverse is added too (Burnside's lemma for
 * chains that read the same from both ends, see snake.py).
 *
 * walk(neighbours, perms, rotation, prefix[, target, limit, max_nodes]) -> (paths, reverse_fixed,
 * reverse_fixed_rot, complete): three dicts and whether the search ran to its end; with `target` only
 * paths of that turn sequence are followed (folding one chain), `limit` stops after that many paths,
 * `max_nodes` gives up after that many search nodes (complete is then False).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 64
#define MAXG 48

typedef struct {
    uint64_t key;
    uint64_t paths, fixed, fixed_rot;
    int used;
} Slot;

typedef struct {
    Slot *slots;
    size_t cap, size;
} Table;

typedef struct {
    int n, ng, width;
    int nb[MAXN][6];
    uint64_t nbmask[MAXN];
    uint64_t has_step[6];  /* cells with a neighbour in direction d */
    int delta[6];          /* index difference of a step in direction d (a box numbers cells linearly) */
    int flood;             /* 1 when every step in a direction moves the index by the same amount */
    int perm[MAXG][MAXN];
    int rot[MAXG];
    int path[MAXN];
    uint64_t full;
    int constrained;   /* follow the turn sequence `target` only */
    uint64_t target;
    uint64_t limit;    /* stop after this many paths (0: never) */
    uint64_t found;
    uint64_t nodes, max_nodes;  /* give up after max_nodes search nodes (0: never) */
    int gave_up;
    Table table;
    int failed;
} Search;

static Slot *table_slot(Table *t, uint64_t key) {
    if (2 * (t->size + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        Slot *slots = calloc(cap, sizeof(Slot));
        if (!slots) return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].used) continue;
            size_t h = (t->slots[i].key * 0x9E3779B97F4A7C15ULL) & (cap - 1);
            while (slots[h].used) h = (h + 1) & (cap - 1);
            slots[h] = t->slots[i];
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t h = (key * 0x9E3779B97F4A7C15ULL) & (t->cap - 1);
    while (t->slots[h].used && t->slots[h].key != key) h = (h + 1) & (t->cap - 1);
    if (!t->slots[h].used) {
        t->slots[h].used = 1;
        t->slots[h].key = key;
        t->size++;
    }
    return &t->slots[h];
}

static uint64_t reverse_bits(uint64_t s, int width) {
    uint64_t r = 0;
    for (int i = 0; i < width; i++) r |= ((s >> i) & 1) << (width - 1 - i);
    return r;
}

static void record(Search *S, uint64_t seq) {
    Slot *slot = table_slot(&S->table, seq);
    if (!slot) { S->failed = 1; return; }
    slot->paths++;
    S->found++;
    if (reverse_bits(seq, S->width) != seq) return;
    int n = S->n;
    for (int g = 0; g < S->ng; g++) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++) ok = S->perm[g][S->path[i]] == S->path[n - 1 - i];
        if (ok) {
            slot->fixed++;
            if (S->rot[g]) slot->fixed_rot++;
        }
    }
}

/* Two prunings, neither in the Python twin (which finds the same paths without them). First:
 * after the head moves from `old` to `head`: can the free cells still be threaded? Only the free
 * neighbours of `old` lost a connection (the head); one of them left with no connection, or two left
 * with one each (each would have to be the path's last cell), end the branch. Pruning only: the
 * Python twin does without it and finds the same paths. */
static int dead(const Search *S, int old, int head, uint64_t visited) {
    uint64_t around = S->nbmask[old] & ~visited;
    int ends = 0;
    while (around) {
        int u = __builtin_ctzll(around);
        around &= around - 1;
        int conn = __builtin_popcountll(S->nbmask[u] & ~visited) + (int)((S->nbmask[u] >> head) & 1);
        if (conn == 0 || (conn == 1 && ++ends >= 2)) return 1;
    }
    return 0;
}

/* Are the free cells all reachable from the head through free cells? A flood fill on the bitmask:
 * each round moves the reached set one step in all six directions (a shift per direction). */
static int split(const Search *S, int head, uint64_t visited) {
    uint64_t free = ~visited & S->full, reach = 1ULL << head, last = 0;
    while (reach != last) {
        last = reach;
        uint64_t grow = reach;
        for (int d = 0; d < 6; d++) {
            uint64_t from = reach & S->has_step[d];
            grow |= S->delta[d] > 0 ? from << S->delta[d] : from >> -S->delta[d];
        }
        reach = grow & (free | (1ULL << head));
    }
    return (reach & free) != free;
}

static void extend(Search *S, int cell, int heading, int depth, uint64_t visited, uint64_t seq) {
    if (visited == S->full) { record(S, seq); return; }
    if (S->failed || S->gave_up || (S->limit && S->found >= S->limit)) return;
    if (S->max_nodes && ++S->nodes > S->max_nodes) { S->gave_up = 1; return; }
    for (int d = 0; d < 6; d++) {
        int nxt = S->nb[cell][d];
        if (nxt < 0 || (visited >> nxt & 1)) continue;
        uint64_t turn = (uint64_t)(d != heading);
        if (S->constrained && turn != ((S->target >> (depth - 2)) & 1)) continue;
        uint64_t now = visited | (1ULL << nxt);
        if (now != S->full && dead(S, cell, nxt, now)) continue;
        if (S->flood && S->n - depth > 8 && split(S, nxt, now)) continue;
        S->path[depth] = nxt;
        extend(S, nxt, d, depth + 1, now, seq | (turn << (depth - 2)));
    }
}

static int direction(Search *S, int a, int b) {
    for (int d = 0; d < 6; d++) if (S->nb[a][d] == b) return d;
    return -1;
}

static int read_ints(PyObject *seq, int *out, int max, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > max) { Py_DECREF(fast); PyErr_Format(PyExc_ValueError, "%s: too long", what); return -1; }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)len;
}

static PyObject *to_dict(Table *t, int which) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t i = 0; i < t->cap; i++) {
        Slot *s = &t->slots[i];
        if (!s->used) continue;
        uint64_t v = which == 0 ? s->paths : which == 1 ? s->fixed : s->fixed_rot;
        if (which && !v) continue;
        PyObject *k = PyLong_FromUnsignedLongLong(s->key), *val = PyLong_FromUnsignedLongLong(v);
        if (!k || !val || PyDict_SetItem(d, k, val) < 0) { Py_XDECREF(k); Py_XDECREF(val); Py_DECREF(d); return NULL; }
        Py_DECREF(k);
        Py_DECREF(val);
    }
    return d;
}

static PyObject *walk(PyObject *self, PyObject *args) {
    PyObject *nbs, *perms, *rots, *prefix, *target = Py_None;
    unsigned long long limit = 0, max_nodes = 0;
    if (!PyArg_ParseTuple(args, "OOOO|OKK", &nbs, &perms, &rots, &prefix, &target, &limit, &max_nodes)) return NULL;
    Search *S = calloc(1, sizeof(Search));
    if (!S) return PyErr_NoMemory();
    PyObject *result = NULL;
    S->limit = limit;
    S->max_nodes = max_nodes;
    if (target != Py_None) {
        S->constrained = 1;
        S->target = PyLong_AsUnsignedLongLong(target);
        if (PyErr_Occurred()) goto done;
    }
    Py_ssize_t n = PySequence_Size(nbs), ng = PySequence_Size(perms);
    if (n < 0 || ng < 0) goto done;
    if (n < 3 || n > MAXN || ng > MAXG) { PyErr_SetString(PyExc_ValueError, "box of 3 to 64 cells only"); goto done; }
    S->n = (int)n; S->ng = (int)ng; S->width = S->n - 2;
    S->full = n == 64 ? ~0ULL : (1ULL << n) - 1;
    for (int c = 0; c < n; c++) {
        PyObject *row = PySequence_GetItem(nbs, c);
        if (!row) goto done;
        int r = read_ints(row, S->nb[c], 6, "neighbours");
        Py_DECREF(row);
        if (r != 6) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "six neighbours per cell"); goto done; }
        for (int d = 0; d < 6; d++) if (S->nb[c][d] >= 0) S->nbmask[c] |= 1ULL << S->nb[c][d];
    }
    S->flood = 1;
    for (int d = 0; d < 6; d++) {
        S->delta[d] = 0;
        for (int c = 0; c < n; c++) {
            int to = S->nb[c][d];
            if (to < 0) continue;
            S->has_step[d] |= 1ULL << c;
            if (S->delta[d] == 0) S->delta[d] = to - c;
            else if (S->delta[d] != to - c) S->flood = 0;
        }
    }
    for (int g = 0; g < ng; g++) {
        PyObject *row = PySequence_GetItem(perms, g);
        if (!row) goto done;
        int r = read_ints(row, S->perm[g], MAXN, "perms");
        Py_DECREF(row);
        if (r != n) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad permutation"); goto done; }
    }
    if (read_ints(rots, S->rot, MAXG, "rotation") != ng) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "rotation flags"); goto done; }
    int len = read_ints(prefix, S->path, MAXN, "prefix");
    if (len < 0) goto done;
    if (len < 1) { PyErr_SetString(PyExc_ValueError, "empty prefix"); goto done; }
    uint64_t visited = 0, seq = 0;
    for (int i = 0; i < len; i++) visited |= 1ULL << S->path[i];
    for (int i = 1; i + 1 < len; i++)
        if (direction(S, S->path[i - 1], S->path[i]) != direction(S, S->path[i], S->path[i + 1])) seq |= 1ULL << (i - 1);
    int prefix_fits = !S->constrained || len <= 2 || !((seq ^ S->target) & ((1ULL << (len - 2)) - 1));
    Py_BEGIN_ALLOW_THREADS
    if (!prefix_fits) {
        /* the prefix already turns where the chain goes straight (or the reverse): nothing to find */
    } else if (len == 1) {
        for (int d = 0; d < 6; d++) {
            int nxt = S->nb[S->path[0]][d];
            if (nxt < 0) continue;
            S->path[1] = nxt;
            extend(S, nxt, d, 2, visited | (1ULL << nxt), 0);
        }
    } else {
        extend(S, S->path[len - 1], direction(S, S->path[len - 2], S->path[len - 1]), len, visited, seq);
    }
    Py_END_ALLOW_THREADS
    if (S->failed) { PyErr_NoMemory(); goto done; }
    PyObject *a = to_dict(&S->table, 0), *b = to_dict(&S->table, 1), *c = to_dict(&S->table, 2);
    if (a && b && c) result = Py_BuildValue("(NNNO)", a, b, c, S->gave_up ? Py_False : Py_True);
    else { Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c); }
done:
    free(S->table.slots);
    free(S);
    return result;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "Hamiltonian paths from a prefix, filed by turn sequence."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_snakes", .m_doc = NULL, .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__snakes(void) { return PyModule_Create(&module); }
