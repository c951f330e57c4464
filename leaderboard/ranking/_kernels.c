/* Compiled loops of the ranking (leaderboard/ranking/kernels.py is their Python face).
 *
 * Every function does the floating-point operations of the numpy code it replaces, in the
 * same order and precision, so the results are the same to the bit: build with -O2
 * -fno-fast-math -ffp-contract=off (no fused multiply-add, no reassociation; setup.py).
 * Arrays come in through the buffer protocol (C-contiguous numpy arrays), so only
 * Python.h is needed to build.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct {
    Py_buffer view[20];
    int used;
} Buffers;

static void *buffer(Buffers *b, PyObject *obj, Py_ssize_t itemsize, int writable) {
    Py_buffer *v = &b->view[b->used];
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) return NULL;
    b->used++;
    if (v->itemsize != itemsize) {
        PyErr_SetString(PyExc_TypeError, "array of the wrong item size");
        return NULL;
    }
    return v->buf;
}

static void release(Buffers *b) {
    for (int i = 0; i < b->used; i++) PyBuffer_Release(&b->view[i]);
}

/* The loops, by topic (each file is included here: one translation unit) */
#include "_kernels_sort.c"
#include "_kernels_walk.c"
#include "_kernels_sets.c"
#include "_kernels_boot.c"

static PyMethodDef methods[] = {
    {"stable_order", py_stable_order, METH_VARARGS, "Stable ascending order of float32 rows."},
    {"walk_counts", py_walk_counts, METH_VARARGS, "The range of the walk's counts."},
    {"walk_start", py_walk_start, METH_VARARGS, "Sort, gather and walk the lanes up to their first t tail."},
    {"walk_run", py_walk_run, METH_VARARGS, "Walk the waiting lanes up to their next t tail."},
    {"present_values", py_present_values, METH_VARARGS, "Rows with NaN as 0, and their present counts."},
    {"deviations", py_deviations, METH_VARARGS, "Rows' deviations from their means, NaN as 0."},
    {"maxima", py_maxima, METH_VARARGS, "Per-draw maxima over families of pairs."},
#ifdef __SIZEOF_INT128__
    {"bootstrap", py_bootstrap, METH_VARARGS, "euroeval-2026's bootstrap replicates."},
#endif
    {"moments", py_moments, METH_VARARGS, "euroeval-2024's resampled means and variances."},
    {"task_means", py_task_means, METH_VARARGS, "euroeval-2024's task means of a bootstrap chunk."},
    {"pair_t", py_pair_t, METH_VARARGS, "The pairs' t statistics and weights."},
    {"exceeds", py_exceeds, METH_VARARGS, "Pairs whose t is above critical values."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", "Compiled loops of the ranking.", -1, methods};

/* The interface's version: leaderboard/ranking/kernels.py uses a build of another version
 * (a stale one, not rebuilt after a change of this file) as if there were none. */
#define KERNELS_VERSION 6

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", KERNELS_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
