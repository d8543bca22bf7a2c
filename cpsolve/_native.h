/*
 * Helpers every compiled part of cpsolve shares (the dlx engine, canonical forms, the tree estimate,
 * the snake census): reading a Python sequence of ints into a C array with a range check, and
 * creating a module that exports one type. One copy here, so that every extension checks its input
 * alike and reports a bad value the same way (ValueError naming the argument and the range).
 */
#ifndef CPSOLVE_NATIVE_H
#define CPSOLVE_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* n ints from the sequence `obj` (or bytes of C ints) into `out`, each in [lo, hi); -1 with an exception set
 * on error. */
static inline int cps_read_ints(PyObject *obj, int *out, Py_ssize_t n, long lo, long hi, const char *what) {
    /* bytes holding C ints (array("i").tobytes()): read in place, no list of Python ints made for them (a
     * 27x27x27 box's symmetry tables are a million values). */
    if (PyBytes_Check(obj)) {
        if (PyBytes_GET_SIZE(obj) != n * (Py_ssize_t)sizeof(int)) {
            PyErr_Format(PyExc_ValueError, "%s: expected %zd values", what, n);
            return -1;
        }
        memcpy(out, PyBytes_AS_STRING(obj), (size_t)n * sizeof(int));
        for (Py_ssize_t i = 0; i < n; i++)
            if (out[i] < lo || out[i] >= hi) {
                PyErr_Format(PyExc_ValueError, "%s: value %d out of range [%ld, %ld)", what, out[i], lo, hi);
                return -1;
            }
        return 0;
    }
    PyObject *seq = PySequence_Fast(obj, what);
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd values, got %zd", what, n, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        if (v < lo || v >= hi) {
            PyErr_Format(PyExc_ValueError, "%s: value %ld out of range [%ld, %ld)", what, v, lo, hi);
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The module `def` with the ready type `type` exported as `name`; NULL with an exception on error. */
static inline PyObject *cps_module_with_type(PyModuleDef *def, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0) return NULL;
    PyObject *m = PyModule_Create(def);
    if (m == NULL) return NULL;
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

#endif
