/* The single call evaluate(mask) of evaluator_pyx._core: its result objects and the
 * C function behind it (the reasoning and the measurements: _core.pyx's comment above
 * its include, docs/kernels.md "The Python call"). Needs _count_batch.h first. */
#ifndef POKI_CALL_H
#define POKI_CALL_H

#include <stdint.h>

/* CPython 3.11's int layout: 30-bit digits read and written directly, static int
   objects. POKI_GENERIC_INTS=1 at compile time takes the other builds' path (how it
   was checked on this one: docs/kernels.md, "The Python call"). */
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API) && PyLong_SHIFT == 30 \
    && !defined(Py_TRACE_REFS) && !POKI_GENERIC_INTS
#define POKI_INT_LAYOUT 1
#else
#define POKI_INT_LAYOUT 0
#endif
#if POKI_INT_LAYOUT
#define POKI_VALUE_BASE_REFCNT ((Py_ssize_t)1 << 30)
static PyLongObject poki_value_objects[7463];
static PyLongObject poki_reused_values[2] __attribute__((aligned(64)));
static void poki_init_value_object(PyLongObject* p, unsigned v)
{
    PyObject* o = (PyObject*)p;
    Py_SET_TYPE(o, &PyLong_Type);
    Py_SET_REFCNT(o, POKI_VALUE_BASE_REFCNT);
    Py_SET_SIZE(o, v != 0);
    p->ob_digit[0] = (digit)v;
}
static void poki_init_value_objects(void)
{
    for (unsigned v = 0; v < 7463; ++v)
        poki_init_value_object(&poki_value_objects[v], v);
    poki_init_value_object(&poki_reused_values[0], 1);
    poki_init_value_object(&poki_reused_values[1], 1);
}
/* An int object of value v (0..7462), borrowed: one of the two reused objects if
   nothing else references it, else the prebuilt object of v. */
static inline PyObject* poki_value_object(unsigned v, PyObject* tuple)
{
    PyLongObject* p = &poki_reused_values[0];
    (void)tuple;
    if (__builtin_expect(Py_REFCNT((PyObject*)p) != POKI_VALUE_BASE_REFCNT, 0)) {
        p = &poki_reused_values[1];
        if (Py_REFCNT((PyObject*)p) != POKI_VALUE_BASE_REFCNT)
            return (PyObject*)&poki_value_objects[v];
    }
    Py_SET_SIZE((PyObject*)p, v != 0);
    p->ob_digit[0] = (digit)v;
    return (PyObject*)p;
}
#else
static void poki_init_value_objects(void) {}
static inline PyObject* poki_value_object(unsigned v, PyObject* tuple)
{
    return PyTuple_GET_ITEM(tuple, v);
}
#endif

/* A non-negative exact int below 2**64 as a uint64 straight from its 30-bit digits
   (CPython 3.11's layout, what Cython's general conversion also ends up reading, less
   its checks for other types): 1 and *out set, or 0 for anything else (the caller's
   general path then converts or raises). */
static inline int poki_exact_mask(PyObject* o, uint64_t* out)
{
#if POKI_INT_LAYOUT
    if (PyLong_CheckExact(o)) {
        const digit* d = ((PyLongObject*)o)->ob_digit;
        switch (Py_SIZE(o)) {
        case 0: *out = 0; return 1;
        case 1: *out = d[0]; return 1;
        case 2: *out = (uint64_t)d[0] | ((uint64_t)d[1] << 30); return 1;
        case 3:
            if (d[2] >> 4) return 0;
            *out = (uint64_t)d[0] | ((uint64_t)d[1] << 30) | ((uint64_t)d[2] << 60);
            return 1;
        }
    }
#endif
    (void)o; (void)out;
    return 0;
}

/* evaluate(mask) as a METH_O builtin written in C: an exact int that is a 5-7 card
   mask goes straight through (its digits, the checks, the count key's two reads, a
   result object); anything else goes to the general path (_core's
   _evaluate_general: conversion of other int types, the errors). A function of its
   own so the common path saves no registers the general path needs. */
static PyObject* (*poki_evaluate_general)(PyObject* mask);
static PyObject* poki_value_tuple;
static const uint16_t* poki_call_offsets;
static const uint16_t* poki_call_values;
static const uint16_t* poki_call_flush;

static PyObject* poki_evaluate(PyObject* self, PyObject* mask)
{
    uint64_t m;
    PyObject* o;
    (void)self;
    if (__builtin_expect(!poki_exact_mask(mask, &m) || (m & ~POKI_CB_VALID)
                         || (unsigned)__builtin_popcountll(m) - 5u > 2u, 0))
        return poki_evaluate_general(mask);
    o = poki_value_object(poki_cb_one(poki_call_offsets, poki_call_values, poki_call_flush, m),
                          poki_value_tuple);
    Py_INCREF(o);
    return o;
}

static PyMethodDef poki_evaluate_def = {
    "evaluate", poki_evaluate, METH_O,
    "evaluate(mask, /)\n--\n\n"
    "Value (1..7462, higher better) of the best five cards of a 5-7 card mask."};

static PyObject* poki_make_evaluate(PyObject* (*general)(PyObject*), const uint16_t* offsets,
                                    const uint16_t* values, const uint16_t* flush_values,
                                    PyObject* value_tuple, PyObject* module_name)
{
    poki_evaluate_general = general;
    Py_INCREF(value_tuple);             /* kept for the life of the process */
    poki_value_tuple = value_tuple;
    poki_call_offsets = offsets;
    poki_call_values = values;
    poki_call_flush = flush_values;
    return PyCFunction_NewEx(&poki_evaluate_def, NULL, module_name);
}

#endif
