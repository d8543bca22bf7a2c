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
} Canon;

static void canon_free(Canon *c) {
    free(c->row_piece); free(c->row_start); free(c->row_cells); free(c->inverse); free(c->label_map);
    free(c->relabel); free(c->labels); free(c->copy); free(c->images); free(c->candidate); free(c->rank);
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
    if (!self->row_piece || !self->row_start || !self->row_cells || !self->inverse || !self->label_map
        || !self->relabel || !self->labels || !self->copy || !self->images || !self->candidate || !self->rank) {
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

/* forms(rows) -> (rotation_key, symmetry_key, orbit, mirror_distinct, element) */
static PyObject *Canon_forms(Canon *self, PyObject *rows) {
    if (self->images == NULL) { PyErr_SetString(PyExc_RuntimeError, "Canon not initialised"); return NULL; }
    PyObject *seq = PySequence_Fast(rows, "rows must be a sequence");
    if (seq == NULL) return NULL;
    const Py_ssize_t n_chosen = PySequence_Fast_GET_SIZE(seq);
    if (n_chosen > self->n_rows || n_chosen >= NONE) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "more chosen rows than rows");
        return NULL;
    }
    self->n_chosen = (int)n_chosen;
    for (int i = 0; i < self->n_cells; i++) {
        self->labels[i] = (uint16_t)self->n_pieces;
        self->copy[i] = (uint16_t)n_chosen;
    }
    for (Py_ssize_t k = 0; k < n_chosen; k++) {
        long r = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if ((r == -1 && PyErr_Occurred()) || r < 0 || r >= self->n_rows) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "row %ld out of range", r);
            return NULL;
        }
        for (int at = self->row_start[r]; at < self->row_start[r + 1]; at++) {
            int cell = self->row_cells[at];
            self->labels[cell] = (uint16_t)self->row_piece[r];
            self->copy[cell] = (uint16_t)k;
        }
    }
    Py_DECREF(seq);
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

static PyMethodDef Canon_methods[] = {
    {"forms", (PyCFunction)Canon_forms, METH_O,
     "forms(rows) -> (rotation_key, symmetry_key, orbit, mirror_distinct, element) of the solution `rows`."},
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
