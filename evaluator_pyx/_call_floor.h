/* Bench only (evaluator_pyx._floor): the single call evaluate(mask) built the ways that
 * were tried, as METH_O builtins beside _core's, so `poki bench --only kernels` times
 * them in the same rounds (docs/kernels.md, "The Python call"). Each takes an exact int
 * that is a 5-7 card mask (anything else raises ValueError; these are floors, not API)
 * and does _core's C path: digits, checks, the count key's two reads; they differ in
 * where the tables are and what object is returned:
 *
 *   prebuilt            the prebuilt int object of the value, in value order (_core's
 *                       result before reused objects)
 *   prebuilt_hugepage   the same, with the tables and the objects copied into one 2 MB
 *                       aligned anonymous mapping advised MADV_HUGEPAGE
 *   prebuilt_frequency  the same in the huge page, objects ordered by how often random
 *                       7-card hands take each value (the caller gives the order), so
 *                       the common values share cache lines
 *   reused_hugepage     _core's reused result objects, tables in the huge page
 *   constant            every step, then one fixed object: no result-object miss at all
 *   allocated           a new int per call (PyLong_FromLong)
 *
 * Everything here is never freed (the mapping and objects live as long as the process).
 * CPython 3.11's int layout only; elsewhere poki_floor_call_setup reports it and the
 * bench leaves the rows out. */
#ifndef POKI_CALL_FLOOR_H
#define POKI_CALL_FLOOR_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API) && PyLong_SHIFT == 30 && !defined(Py_TRACE_REFS) \
    && !POKI_GENERIC_INTS
#define POKI_FLOOR_CALLS 1

typedef struct {
    const uint16_t* offsets;
    const uint16_t* values;
    const uint16_t* flush;
    PyLongObject* objects;      /* objects[x] for each x the value tables hold */
} poki_floor_tables;

static poki_floor_tables poki_fl_plain, poki_fl_huge, poki_fl_freq;
static PyLongObject poki_fl_objects[7463];
static PyLongObject poki_fl_reused[2] __attribute__((aligned(64)));
static void* poki_fl_mapping;

static void poki_fl_object(PyLongObject* p, unsigned v, Py_ssize_t refcnt)
{
    Py_SET_TYPE((PyObject*)p, &PyLong_Type);
    Py_SET_REFCNT((PyObject*)p, refcnt);
    Py_SET_SIZE((PyObject*)p, v != 0);
    p->ob_digit[0] = (digit)v;
}

static inline int poki_fl_mask(PyObject* o, uint64_t* out)
{
    if (PyLong_CheckExact(o)) {
        const digit* d = ((PyLongObject*)o)->ob_digit;
        uint64_t m;
        switch (Py_SIZE(o)) {
        case 1: m = d[0]; break;
        case 2: m = (uint64_t)d[0] | ((uint64_t)d[1] << 30); break;
        case 3:
            if (d[2] >> 4) return 0;
            m = (uint64_t)d[0] | ((uint64_t)d[1] << 30) | ((uint64_t)d[2] << 60);
            break;
        default: return 0;
        }
        if ((m & ~POKI_CB_VALID) || (unsigned)__builtin_popcountll(m) - 5u > 2u)
            return 0;
        *out = m;
        return 1;
    }
    return 0;
}

#define POKI_FL_MASK(m) uint64_t m; (void)self; \
    if (!poki_fl_mask(arg, &m)) { PyErr_SetString(PyExc_ValueError, "not a 5-7 card mask"); return NULL; }

static inline unsigned poki_fl_value(const poki_floor_tables* t, uint64_t m)
{
    return poki_cb_one(t->offsets, t->values, t->flush, m);
}

static inline PyObject* poki_fl_prebuilt_of(const poki_floor_tables* t, uint64_t m)
{
    PyObject* o = (PyObject*)&t->objects[poki_fl_value(t, m)];
    Py_INCREF(o);
    return o;
}

static PyObject* poki_fl_prebuilt(PyObject* self, PyObject* arg)
{ POKI_FL_MASK(m) return poki_fl_prebuilt_of(&poki_fl_plain, m); }

static PyObject* poki_fl_prebuilt_hugepage(PyObject* self, PyObject* arg)
{ POKI_FL_MASK(m) return poki_fl_prebuilt_of(&poki_fl_huge, m); }

/* The frequency layout's value table holds object slots instead of values, so the call
   has no extra read: values[...] is the slot of the value's object. */
static PyObject* poki_fl_prebuilt_frequency(PyObject* self, PyObject* arg)
{ POKI_FL_MASK(m) return poki_fl_prebuilt_of(&poki_fl_freq, m); }

static PyObject* poki_fl_reused_hugepage(PyObject* self, PyObject* arg)
{
    POKI_FL_MASK(m)
    unsigned v = poki_fl_value(&poki_fl_huge, m);
    PyLongObject* p = &poki_fl_reused[0];
    if (Py_REFCNT((PyObject*)p) != ((Py_ssize_t)1 << 30)) {
        p = &poki_fl_reused[1];
        if (Py_REFCNT((PyObject*)p) != ((Py_ssize_t)1 << 30))
            return poki_fl_prebuilt_of(&poki_fl_huge, m);
    }
    Py_SET_SIZE((PyObject*)p, v != 0);
    p->ob_digit[0] = (digit)v;
    Py_INCREF((PyObject*)p);
    return (PyObject*)p;
}

static PyObject* poki_fl_constant(PyObject* self, PyObject* arg)
{
    POKI_FL_MASK(m)
    unsigned v = poki_fl_value(&poki_fl_plain, m);
    __asm__ volatile("" : : "r"(v));          /* the reads happen; their value is dropped */
    Py_INCREF((PyObject*)&poki_fl_objects[1]);
    return (PyObject*)&poki_fl_objects[1];
}

static PyObject* poki_fl_allocated(PyObject* self, PyObject* arg)
{ POKI_FL_MASK(m) return PyLong_FromLong((long)poki_fl_value(&poki_fl_plain, m)); }

static PyMethodDef poki_fl_defs[] = {
    {"prebuilt", poki_fl_prebuilt, METH_O, NULL},
    {"prebuilt_hugepage", poki_fl_prebuilt_hugepage, METH_O, NULL},
    {"prebuilt_frequency", poki_fl_prebuilt_frequency, METH_O, NULL},
    {"reused_hugepage", poki_fl_reused_hugepage, METH_O, NULL},
    {"constant", poki_fl_constant, METH_O, NULL},
    {"allocated", poki_fl_allocated, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

/* Sets up the tables (once; later calls only rebuild the dict) and returns
   {name: builtin}; *huge is 1 when madvise accepted the advice (whether the kernel then
   backed it with a huge page is /proc/self/smaps' business), 0 if not, -1 if the mapping
   failed (the huge-page rows then use the plain tables). order[i] is the value of
   object slot i for the frequency layout (a permutation of 0..7462 with order[0] = 0:
   a flush's slot is the OR of its suit words' entries, all 0 but one). */
static PyObject* poki_floor_call_setup(const uint16_t* offsets, size_t offsets_size, const uint16_t* values,
                                       size_t values_size, const uint16_t* flush, size_t flush_size,
                                       const uint16_t* order, int* huge, uintptr_t* address)
{
    static int ready = 0, advised = -1;
    PyObject* d;
    if (!ready) {
        const size_t page = (size_t)2 << 20;
        size_t objects_size = sizeof(PyLongObject) * 7463, o = 0;
        char* base;
        static uint16_t slot_of[7463];
        uint16_t* freq_values;
        uint16_t* freq_flush;
        for (unsigned v = 0; v < 7463; ++v) {
            poki_fl_object(&poki_fl_objects[v], v, (Py_ssize_t)1 << 30);
        }
        poki_fl_object(&poki_fl_reused[0], 1, (Py_ssize_t)1 << 30);
        poki_fl_object(&poki_fl_reused[1], 1, (Py_ssize_t)1 << 30);
        poki_fl_plain = (poki_floor_tables){offsets, values, flush, poki_fl_objects};
        poki_fl_huge = poki_fl_freq = poki_fl_plain;
        base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base != MAP_FAILED) {
            char* a = (char*)(((uintptr_t)base + page - 1) & ~(uintptr_t)(page - 1));
            size_t need = offsets_size + 2 * values_size + 2 * flush_size + 2 * objects_size + 7 * 64;
            if (need <= page) {
                advised = madvise(a, page, MADV_HUGEPAGE) == 0;
                poki_fl_mapping = a;
#define POKI_FL_PLACE(dst, src, size) do { memcpy(a + o, (src), (size)); (dst) = (const uint16_t*)(a + o); \
                                           o = (o + (size) + 63) & ~(size_t)63; } while (0)
                POKI_FL_PLACE(poki_fl_huge.offsets, offsets, offsets_size);
                POKI_FL_PLACE(poki_fl_huge.values, values, values_size);
                POKI_FL_PLACE(poki_fl_huge.flush, flush, flush_size);
#undef POKI_FL_PLACE
                poki_fl_huge.objects = (PyLongObject*)(a + o);
                o += (objects_size + 63) & ~(size_t)63;
                poki_fl_freq.objects = (PyLongObject*)(a + o);
                o += (objects_size + 63) & ~(size_t)63;
                for (unsigned i = 0; i < 7463; ++i) {
                    poki_fl_object(&poki_fl_huge.objects[i], i, (Py_ssize_t)1 << 30);
                    poki_fl_object(&poki_fl_freq.objects[i], order[i], (Py_ssize_t)1 << 30);
                    slot_of[order[i]] = (uint16_t)i;
                }
                /* the frequency layout's own value and flush tables: slots, not values */
                freq_values = (uint16_t*)(a + o);
                for (size_t i = 0; i < values_size / 2; ++i)
                    freq_values[i] = slot_of[values[i] < 7463 ? values[i] : 0];
                o = (o + values_size + 63) & ~(size_t)63;
                freq_flush = (uint16_t*)(a + o);
                for (size_t i = 0; i < flush_size / 2; ++i)
                    freq_flush[i] = slot_of[flush[i] < 7463 ? flush[i] : 0];
                poki_fl_freq.offsets = poki_fl_huge.offsets;
                poki_fl_freq.values = freq_values;
                poki_fl_freq.flush = freq_flush;
            } else {
                munmap(base, 2 * page);
            }
        }
        ready = 1;
    }
    *huge = advised;
    *address = (uintptr_t)poki_fl_mapping;
    d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (PyMethodDef* m = poki_fl_defs; m->ml_name; ++m) {
        PyObject* f = PyCFunction_NewEx(m, NULL, NULL);
        if (f == NULL || PyDict_SetItemString(d, m->ml_name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(f);
    }
    return d;
}
#else
#define POKI_FLOOR_CALLS 0
static PyObject* poki_floor_call_setup(const uint16_t* offsets, size_t offsets_size, const uint16_t* values,
                                       size_t values_size, const uint16_t* flush, size_t flush_size,
                                       const uint16_t* order, int* huge, uintptr_t* address)
{
    (void)offsets; (void)offsets_size; (void)values; (void)values_size; (void)flush; (void)flush_size;
    (void)order; *huge = -1; *address = 0;
    return PyDict_New();
}
#endif

#endif
