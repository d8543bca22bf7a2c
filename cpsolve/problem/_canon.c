/*
 * cpsolve.problem._canon: the canonical form of one solution, compiled (the Canonicalizer's fast path).
 *
 * Why: every solution the search finds is canonicalized before it is counted. In Python with numpy
 * that took about 0.8 ms a solution when pieces have identical copies (one numpy call chain per
 * symmetry element), which dominated puzzles with many solutions (Conway's 5x5x5 without symmetry
 * breaking: 23 s of CPU against 5 s for Knuth's DLX3 on the same problem). The readable twin is
 * `Canonicalizer._python_forms` in canonical.py; tests/test_canonical.py checks that both give the
 * same bytes on every solution of several models, so this file only has to be fast.
 *
 * What is computed (exactly the Python twin's definition):
 *  - labels[c]: the piece covering cell c (n_pieces: an optional cell left empty); copy[c]: the
 *    position in `rows` of the row covering it (len(rows) for an empty cell).
 *  - For symmetry element e (rotations first, then reflections): the moved grid
 *    img[j] = label_map[e][labels[inverse[e][j]]] (a reflection swaps chiral partners), minimised
 *    over the label symmetries (a palindromic chain read backwards); with identical copies the key
 *    also holds, per moved cell, the rank of its copy in order of first appearance, so that the key
 *    does not depend on which copy the search called which.
 *  - rotation key = least rotation image; mirror key = least reflection image (or the rotation key
 *    when reflections do not count); symmetry key = the lesser; orbit = distinct rotation images;
 *    element = first element whose image is the symmetry key. Keys compare as bytes (memcmp of the
 *    native uint16 arrays, as Python compares `ndarray.tobytes()`).
 * No state survives a call except scratch buffers sized once at construction; nothing is on the stack
 * in proportion to the input.
 *
 * judge(rows), the canonicalizer with no memory (the twin is `Canonicalizer.python_judge`): is the
 * solution its class's representative among the members the search can reach? A member is the
 * solution moved by an element e and renumbered by a label symmetry s (s = 0: none); its *raw* key
 * is the moved grid with that numbering (no least-over-numberings: two numberings of one assembly
 * are two members, as the search finds both), plus the copy ranks. It is reachable when its
 * key-piece placement is a kept one: reach[s * n_rows + r] has bit e set when row r, moved by e and
 * renumbered by s, is a kept key placement, and every solution holds exactly one key placement, so
 * the member is reachable iff the OR of its rows' words has bit e. The solution is its rotation
 * class's representative iff no reachable member by a rotation has a smaller raw key than its own
 * (the identity's), and its class's iff no reachable member at all has. Raw keys are one-to-one on
 * labelled solutions, so exactly one reachable member of each class passes, whichever worker meets
 * it. Each comparison is against the solution's own key, so it stops at the first differing cell.
 *
 * The fast path (no label symmetries, the common case): only the least image so far among rotations
 * and among reflections is kept in full. Every other element's image is compared with it cell by
 * cell as it is computed and abandoned as soon as it is known to be greater (two images of a solution
 * usually differ within a few cells), which cuts the work per solution several times on 125 cells.
 * What it needs from the definition above:
 *  - order: keys compare as memcmp of uint16 arrays, so two cells compare by `cmp16` (memcmp of the two
 *    values' bytes), and the copy ranks (the second half) matter only when the labels tie throughout;
 *  - orbit: the rotations form a group, so the distinct rotation images number R / |stabiliser|, and
 *    any one image (the least) is the image of exactly |stabiliser| rotations: the count of ties with
 *    the least so far, reset when a lesser one comes, ends as |stabiliser|;
 *  - element: the first element whose image is the symmetry key is the first rotation reaching the
 *    least rotation image (rotations come first), unless reflections do strictly better, then the
 *    first reflection reaching theirs: exactly the updates "strictly less" keep.
 */
#include "_native.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE 0xFFFF

typedef struct {
    PyObject_HEAD
    int n_cells, n_pieces, n_rows, n_elements, n_rotations, n_relabel, copies, key_len;
    int n_chosen;        /* rows in the solution being canonicalized */
    int *row_piece;      /* n_rows */
    int *row_start;      /* n_rows + 1 */
    int *row_cells;      /* concatenated cells of every row */
    int *inverse;        /* n_elements * n_cells */
    uint16_t *label_map; /* n_elements * (n_pieces + 1): the last entry maps the empty label */
    uint16_t *relabel;   /* n_relabel * n_pieces */
    uint16_t *labels, *copy, *images, *candidate, *rank; /* scratch */
    uint64_t *reach;     /* (n_relabel + 1) * n_rows words (set_reach), or NULL: judge refuses */
    uint64_t *acc;       /* n_relabel + 1: the OR of the loaded solution's reach words, per numbering */
    int identity;        /* the identity element's index (set_reach) */
} Canon;

static void canon_free(Canon *c) {
    free(c->row_piece); free(c->row_start); free(c->row_cells); free(c->inverse); free(c->label_map);
    free(c->relabel); free(c->labels); free(c->copy); free(c->images); free(c->candidate); free(c->rank);
    free(c->reach); free(c->acc);
    c->reach = c->acc = NULL;
    c->row_piece = c->row_start = c->row_cells = c->inverse = NULL;
    c->label_map = c->relabel = c->labels = c->copy = c->images = c->candidate = c->rank = NULL;
}

static void Canon_dealloc(Canon *self) {
    canon_free(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int read_u16(PyObject *obj, uint16_t *out, Py_ssize_t n, long hi, const char *what) {
    int *tmp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (tmp == NULL) { PyErr_NoMemory(); return -1; }
    int rc = cps_read_ints(obj, tmp, n, 0, hi, what);
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) out[i] = (uint16_t)tmp[i];
    free(tmp);
    return rc;
}

/* Canon(n_cells, n_pieces, row_piece, row_start, row_cells, inverse, label_map, relabel, n_rotations, copies) */
static int Canon_init(Canon *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"n_cells", "n_pieces", "row_piece", "row_start", "row_cells", "inverse",
                             "label_map", "relabel", "n_rotations", "copies", NULL};
    int n_cells, n_pieces, n_rotations, copies;
    PyObject *row_piece, *row_start, *row_cells, *inverse, *label_map, *relabel;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOOOOip", kwlist, &n_cells, &n_pieces, &row_piece, &row_start,
                                     &row_cells, &inverse, &label_map, &relabel, &n_rotations, &copies))
        return -1;
    canon_free(self);
    if (n_cells <= 0 || n_pieces <= 0 || n_pieces >= NONE) {
        PyErr_SetString(PyExc_ValueError, "n_cells and n_pieces must be positive (pieces < 65535)");
        return -1;
    }
    Py_ssize_t n_rows = PyObject_Length(row_piece), n_inverse = PyObject_Length(inverse);
    if (PyBytes_Check(inverse)) n_inverse /= (Py_ssize_t)sizeof(int); /* C ints (array("i").tobytes()) */
    Py_ssize_t n_relabel = PyObject_Length(relabel), n_cells_total = PyObject_Length(row_cells);
    if (n_rows < 0 || n_inverse < 0 || n_relabel < 0 || n_cells_total < 0) return -1;
    if (n_inverse % n_cells != 0 || n_inverse == 0 || n_relabel % n_pieces != 0) {
        PyErr_SetString(PyExc_ValueError, "inverse and relabel must hold whole permutations");
        return -1;
    }
    self->n_cells = n_cells;
    self->n_pieces = n_pieces;
    self->n_rows = (int)n_rows;
    self->n_elements = (int)(n_inverse / n_cells);
    self->n_rotations = n_rotations;
    self->n_relabel = (int)(n_relabel / n_pieces);
    self->copies = copies;
    self->key_len = copies ? 2 * n_cells : n_cells;
    if (n_rotations < 1 || n_rotations > self->n_elements) {
        PyErr_SetString(PyExc_ValueError, "n_rotations must be in 1..elements");
        return -1;
    }
    self->row_piece = malloc(sizeof(int) * (size_t)(n_rows + 1));
    self->row_start = malloc(sizeof(int) * (size_t)(n_rows + 1));
    self->row_cells = malloc(sizeof(int) * (size_t)(n_cells_total + 1));
    self->inverse = malloc(sizeof(int) * (size_t)n_inverse);
    self->label_map = malloc(sizeof(uint16_t) * (size_t)self->n_elements * (size_t)(n_pieces + 1));
    self->relabel = malloc(sizeof(uint16_t) * (size_t)(n_relabel + 1));
    self->labels = malloc(sizeof(uint16_t) * (size_t)n_cells);
    self->copy = malloc(sizeof(uint16_t) * (size_t)n_cells);
    self->images = malloc(sizeof(uint16_t) * (size_t)(self->n_elements < 4 ? 4 : self->n_elements) * (size_t)self->key_len);
    self->candidate = malloc(sizeof(uint16_t) * (size_t)n_cells);
    self->rank = malloc(sizeof(uint16_t) * (size_t)(n_rows + 2));
    self->acc = malloc(sizeof(uint64_t) * (size_t)(self->n_relabel + 1));
    if (!self->row_piece || !self->row_start || !self->row_cells || !self->inverse || !self->label_map
        || !self->relabel || !self->labels || !self->copy || !self->images || !self->candidate || !self->rank
        || !self->acc) {
        PyErr_NoMemory();
        return -1;
    }
    if (cps_read_ints(row_piece, self->row_piece, n_rows, 0, n_pieces, "row_piece") < 0) return -1;
    if (cps_read_ints(row_start, self->row_start, n_rows + 1, 0, n_cells_total + 1, "row_start") < 0) return -1;
    if (cps_read_ints(row_cells, self->row_cells, n_cells_total, 0, n_cells, "row_cells") < 0) return -1;
    if (cps_read_ints(inverse, self->inverse, n_inverse, 0, n_cells, "inverse") < 0) return -1;
    if (read_u16(label_map, self->label_map, (Py_ssize_t)self->n_elements * (n_pieces + 1), n_pieces + 1,
                 "label_map") < 0)
        return -1;
    if (read_u16(relabel, self->relabel, n_relabel, n_pieces, "relabel") < 0) return -1;
    for (int r = 0; r < n_rows; r++)
        if (self->row_start[r] > self->row_start[r + 1]) {
            PyErr_SetString(PyExc_ValueError, "row_start must not decrease");
            return -1;
        }
    return 0;
}

/* Write element e's image of the current solution into `out` (key_len values). */
static void image(Canon *c, int e, uint16_t *out) {
    const int n = c->n_cells;
    const int *inv = c->inverse + (size_t)e * n;
    const uint16_t *map = c->label_map + (size_t)e * (c->n_pieces + 1);
    const uint16_t empty = (uint16_t)c->n_pieces;
    for (int j = 0; j < n; j++) out[j] = map[c->labels[inv[j]]];
    for (int s = 0; s < c->n_relabel; s++) { /* the least of the equivalent numberings */
        const uint16_t *re = c->relabel + (size_t)s * c->n_pieces;
        for (int j = 0; j < n; j++) c->candidate[j] = out[j] == empty ? empty : re[out[j]];
        if (memcmp(c->candidate, out, sizeof(uint16_t) * (size_t)n) < 0)
            memcpy(out, c->candidate, sizeof(uint16_t) * (size_t)n);
    }
    if (!c->copies) return;
    /* Copies ranked by first appearance in the moved grid (the empty cells' id is one more copy). */
    uint16_t *ranks = out + n, next = 0;
    for (int r = 0; r <= c->n_chosen; r++) c->rank[r] = NONE;
    for (int j = 0; j < n; j++) {
        uint16_t *slot = &c->rank[c->copy[inv[j]]];
        if (*slot == NONE) *slot = next++;
        ranks[j] = *slot;
    }
}

static int key_cmp(const Canon *c, const uint16_t *a, const uint16_t *b) {
    return memcmp(a, b, sizeof(uint16_t) * (size_t)c->key_len);
}

/* Two key values in memcmp order (their bytes as stored), as whole keys compare. */
static inline int cmp16(uint16_t a, uint16_t b) { return a == b ? 0 : memcmp(&a, &b, sizeof a); }

/* Copy ranks of element e's image from cell `from` on (ranks of the cells before it already set). */
static inline void ranks_from(Canon *c, const int *inv, uint16_t *ranks, int from, uint16_t *next) {
    for (int j = from; j < c->n_cells; j++) {
        uint16_t *slot = &c->rank[c->copy[inv[j]]];
        if (*slot == NONE) *slot = (*next)++;
        ranks[j] = *slot;
    }
}

/* Element e's image compared with `best`: 1 (greater: abandoned as soon as known, `out` partly
 * written), 0 (equal) or -1 (less: `out` holds all of it). */
static int image_vs(Canon *c, int e, const uint16_t *best, uint16_t *out) {
    const int n = c->n_cells;
    const int *inv = c->inverse + (size_t)e * n;
    const uint16_t *map = c->label_map + (size_t)e * (c->n_pieces + 1);
    int j = 0;
    for (; j < n; j++) {
        const uint16_t v = map[c->labels[inv[j]]];
        out[j] = v;
        if (v != best[j]) break;
    }
    if (j < n) { /* the labels decide */
        if (cmp16(out[j], best[j]) > 0) return 1;
        for (j++; j < n; j++) out[j] = map[c->labels[inv[j]]];
        if (c->copies) {
            uint16_t next = 0;
            for (int r = 0; r <= c->n_chosen; r++) c->rank[r] = NONE;
            ranks_from(c, inv, out + n, 0, &next);
        }
        return -1;
    }
    if (!c->copies) return 0;
    uint16_t *ranks = out + n, next = 0;
    for (int r = 0; r <= c->n_chosen; r++) c->rank[r] = NONE;
    for (j = 0; j < n; j++) {
        uint16_t *slot = &c->rank[c->copy[inv[j]]];
        if (*slot == NONE) *slot = next++;
        ranks[j] = *slot;
        if (ranks[j] != best[n + j]) break;
    }
    if (j == n) return 0;
    if (cmp16(ranks[j], best[n + j]) > 0) return 1;
    ranks_from(c, inv, ranks, j + 1, &next);
    return -1;
}

/* Load the solution `rows` into labels[] and copy[]; -1 with an exception set on bad input. */
static int load_rows(Canon *self, PyObject *rows) {
    if (self->images == NULL) { PyErr_SetString(PyExc_RuntimeError, "Canon not initialised"); return -1; }
    PyObject *seq = PySequence_Fast(rows, "rows must be a sequence");
    if (seq == NULL) return -1;
    const Py_ssize_t n_chosen = PySequence_Fast_GET_SIZE(seq);
    if (n_chosen > self->n_rows || n_chosen >= NONE) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "more chosen rows than rows");
        return -1;
    }
    self->n_chosen = (int)n_chosen;
    const int S = self->n_relabel + 1;
    for (int s = 0; s < S; s++) self->acc[s] = 0;
    for (int i = 0; i < self->n_cells; i++) {
        self->labels[i] = (uint16_t)self->n_pieces;
        self->copy[i] = (uint16_t)n_chosen;
    }
    for (Py_ssize_t k = 0; k < n_chosen; k++) {
        long r = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if ((r == -1 && PyErr_Occurred()) || r < 0 || r >= self->n_rows) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "row %ld out of range", r);
            return -1;
        }
        for (int at = self->row_start[r]; at < self->row_start[r + 1]; at++) {
            int cell = self->row_cells[at];
            self->labels[cell] = (uint16_t)self->row_piece[r];
            self->copy[cell] = (uint16_t)k;
        }
        if (self->reach != NULL)
            for (int s = 0; s < S; s++) self->acc[s] |= self->reach[(size_t)s * self->n_rows + (size_t)r];
    }
    Py_DECREF(seq);
    return 0;
}

/* forms(rows) -> (rotation_key, symmetry_key, orbit, mirror_distinct, element) */
static PyObject *Canon_forms(Canon *self, PyObject *rows) {
    if (load_rows(self, rows) < 0) return NULL;
    const int E = self->n_elements, R = self->n_rotations, L = self->key_len;
    int rot = 0, mir = 0, sym = 0, element = 0, orbit = 0, mirror_distinct = 0;
    if (self->n_relabel == 0) {
        /* images[0]: the least rotation image so far; images[1]: the least reflection image; images[2]:
         * scratch for the element being compared. */
        uint16_t *best_rot = self->images, *best_mir = self->images + L, *scratch = self->images + 2 * (size_t)L;
        int ties = 1; /* rotations whose image equals the least so far: the stabiliser once all are seen */
        image(self, 0, best_rot);
        for (int e = 1; e < R; e++) {
            const int order = image_vs(self, e, best_rot, scratch);
            if (order < 0) {
                memcpy(best_rot, scratch, sizeof(uint16_t) * (size_t)L);
                rot = e;
                ties = 1;
            } else {
                ties += order == 0;
            }
        }
        orbit = R / ties;
        mir = rot;
        if (E > R) {
            image(self, R, best_mir);
            mir = R;
            for (int e = R + 1; e < E; e++)
                if (image_vs(self, e, best_mir, scratch) < 0) {
                    memcpy(best_mir, scratch, sizeof(uint16_t) * (size_t)L);
                    mir = e;
                }
        }
        const uint16_t *mir_key = E > R ? best_mir : best_rot;
        const int c = key_cmp(self, mir_key, best_rot);
        mirror_distinct = c != 0;
        sym = c < 0 ? mir : rot;
        element = sym;
        const uint16_t *rot_key = best_rot, *sym_key = c < 0 ? mir_key : best_rot;
        const Py_ssize_t bytes = (Py_ssize_t)sizeof(uint16_t) * L;
        return Py_BuildValue("(y#y#iNi)", (const char *)rot_key, bytes, (const char *)sym_key, bytes, orbit,
                             PyBool_FromLong(mirror_distinct), element);
    }
    for (int e = 0; e < E; e++) image(self, e, self->images + (size_t)e * L);
    for (int e = 0; e < R; e++) {
        const uint16_t *img = self->images + (size_t)e * L;
        if (key_cmp(self, img, self->images + (size_t)rot * L) < 0) rot = e;
        int seen = 0;
        for (int f = 0; f < e && !seen; f++) seen = key_cmp(self, img, self->images + (size_t)f * L) == 0;
        orbit += !seen;
    }
    mir = rot;
    for (int e = R; e < E; e++)
        if (mir == rot || key_cmp(self, self->images + (size_t)e * L, self->images + (size_t)mir * L) < 0) mir = e;
    mirror_distinct = key_cmp(self, self->images + (size_t)mir * L, self->images + (size_t)rot * L) != 0;
    sym = key_cmp(self, self->images + (size_t)mir * L, self->images + (size_t)rot * L) < 0 ? mir : rot;
    while (key_cmp(self, self->images + (size_t)element * L, self->images + (size_t)sym * L) != 0) element++;
    const Py_ssize_t bytes = (Py_ssize_t)sizeof(uint16_t) * L;
    return Py_BuildValue("(y#y#iNi)", (const char *)(self->images + (size_t)rot * L), bytes,
                         (const char *)(self->images + (size_t)sym * L), bytes, orbit,
                         PyBool_FromLong(mirror_distinct), element);
}


/* set_reach(reach, identity): the reachability words of judge (see the top of this file). */
static PyObject *Canon_set_reach(Canon *self, PyObject *args) {
    PyObject *words;
    int identity;
    if (!PyArg_ParseTuple(args, "Oi", &words, &identity)) return NULL;
    if (self->images == NULL) { PyErr_SetString(PyExc_RuntimeError, "Canon not initialised"); return NULL; }
    if (self->n_elements > 64 || identity < 0 || identity >= self->n_rotations) {
        PyErr_SetString(PyExc_ValueError, "at most 64 elements, and the identity among the rotations");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(words, "reach must be a sequence");
    if (seq == NULL) return NULL;
    const Py_ssize_t n = (Py_ssize_t)(self->n_relabel + 1) * self->n_rows;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "reach must hold (label symmetries + 1) x rows words");
        return NULL;
    }
    uint64_t *reach = malloc(sizeof(uint64_t) * (size_t)(n > 0 ? n : 1));
    if (reach == NULL) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        reach[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) { free(reach); Py_DECREF(seq); return NULL; }
    }
    Py_DECREF(seq);
    free(self->reach);
    self->reach = reach;
    self->identity = identity;
    Py_RETURN_NONE;
}

/* Whether the member (element e, numbering s) has a raw key less than `own` (the solution's own raw
 * key): compared cell by cell as it is computed, stopping at the first difference. */
static int member_less(Canon *c, int e, int s, const uint16_t *own) {
    const int n = c->n_cells;
    const int *inv = c->inverse + (size_t)e * n;
    const uint16_t *map = c->label_map + (size_t)e * (c->n_pieces + 1);
    const uint16_t *re = s > 0 ? c->relabel + (size_t)(s - 1) * c->n_pieces : NULL;
    const uint16_t empty = (uint16_t)c->n_pieces;
    for (int j = 0; j < n; j++) {
        uint16_t v = map[c->labels[inv[j]]];
        if (re != NULL && v != empty) v = re[v];
        if (v != own[j]) return cmp16(v, own[j]) < 0;
    }
    if (!c->copies) return 0;
    uint16_t next = 0;
    for (int r = 0; r <= c->n_chosen; r++) c->rank[r] = NONE;
    for (int j = 0; j < n; j++) {
        uint16_t *slot = &c->rank[c->copy[inv[j]]];
        if (*slot == NONE) *slot = next++;
        if (*slot != own[n + j]) return cmp16(*slot, own[n + j]) < 0;
    }
    return 0;
}

/* judge(rows) -> 0, 1 (its rotation class's representative only) or 3 (its class's as well). */
static PyObject *Canon_judge(Canon *self, PyObject *rows) {
    if (self->reach == NULL) { PyErr_SetString(PyExc_RuntimeError, "set_reach first"); return NULL; }
    if (load_rows(self, rows) < 0) return NULL;
    const int n = self->n_cells, R = self->n_rotations, E = self->n_elements, S = self->n_relabel + 1;
    const uint64_t *reach = self->acc;
    /* The solution's own raw key: its grid as it is, copies ranked by first appearance. */
    uint16_t *own = self->images;
    for (int j = 0; j < n; j++) own[j] = self->labels[j];
    if (self->copies) {
        uint16_t next = 0;
        for (int r = 0; r <= self->n_chosen; r++) self->rank[r] = NONE;
        for (int j = 0; j < n; j++) {
            uint16_t *slot = &self->rank[self->copy[j]];
            if (*slot == NONE) *slot = next++;
            own[n + j] = *slot;
        }
    }
    for (int s = 0; s < S; s++)
        for (int e = 0; e < R; e++)
            if ((reach[s] >> e & 1) && !(s == 0 && e == self->identity) && member_less(self, e, s, own))
                return PyLong_FromLong(0);
    for (int s = 0; s < S; s++)
        for (int e = R; e < E; e++)
            if ((reach[s] >> e & 1) && member_less(self, e, s, own)) return PyLong_FromLong(1);
    return PyLong_FromLong(3);
}

static PyMethodDef Canon_methods[] = {
    {"forms", (PyCFunction)Canon_forms, METH_O,
     "forms(rows) -> (rotation_key, symmetry_key, orbit, mirror_distinct, element) of the solution `rows`."},
    {"set_reach", (PyCFunction)Canon_set_reach, METH_VARARGS,
     "set_reach(reach, identity): which moved and renumbered rows are kept key placements (see judge)."},
    {"judge", (PyCFunction)Canon_judge, METH_O,
     "judge(rows) -> 0, 1 (rotation class representative) or 3 (class representative too)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CanonType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cpsolve.problem._canon.Canon",
    .tp_basicsize = sizeof(Canon),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Canon(n_cells, n_pieces, row_piece, row_start, row_cells, inverse, label_map, relabel, n_rotations,"
              " copies): canonical forms of solutions under a symmetry group (see canonical.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Canon_init,
    .tp_dealloc = (destructor)Canon_dealloc,
    .tp_methods = Canon_methods,
};

/* class_id(key) -> 16 hex digits: FNV-1a over the key's bytes, then MurmurHash3's 64-bit finaliser so that
   every bit of the result (the leading hex digits a prefix names) depends on every byte. The twin is
   canonical.py's python_class_id; a class is named once, where Python's hashlib cost 1.2 µs a call. */
static PyObject *canon_class_id(PyObject *module, PyObject *arg) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = (const unsigned char *)view.buf;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (Py_ssize_t i = 0; i < view.len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    PyBuffer_Release(&view);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    static const char digits[] = "0123456789abcdef";
    char out[16];
    for (int i = 15; i >= 0; i--, h >>= 4) out[i] = digits[h & 15];
    return PyUnicode_FromStringAndSize(out, 16);
}

static PyMethodDef module_methods[] = {
    {"class_id", canon_class_id, METH_O, "class_id(key) -> the 16 hex digits of a solution class's stable id."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_canon",
    .m_doc = "Compiled canonical forms of puzzle solutions for cpsolve (the fast path of canonical.py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__canon(void) { return cps_module_with_type(&module, &CanonType, "Canon"); }
