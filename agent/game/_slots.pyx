# cython: language_level=3, boundscheck=False, wraparound=False
"""Constructors for frozen slots dataclasses that write the slots in C (agent/game/slots.py).

A slots class keeps each field at a fixed offset in the instance, given by its member
descriptor; the constructor allocates the instance with the type's own allocator, as
``object.__new__`` does, and stores each value at its offset, which is what the
descriptor's own ``__set__`` does, without a Python call per field.
"""
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF, Py_XDECREF
from libc.stdlib cimport free, malloc


cdef extern from "Python.h":
    ctypedef struct PyTypeObject:
        PyObject *(*tp_alloc)(PyTypeObject *, Py_ssize_t)
    ctypedef struct PyMemberDef:
        const char *name
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef *d_member
    int T_OBJECT_EX  # a slot holding any object; empty (NULL) until set
    int READONLY


cdef class SlotMaker:
    """Called with the fields' values in order, returns the instance of ``cls``."""

    cdef object cls
    cdef PyTypeObject *type
    cdef Py_ssize_t n
    cdef Py_ssize_t *offsets

    def __cinit__(self, cls, descriptors):
        """``descriptors``: the member descriptor of each field, in order; each must be a
        plain object slot of ``cls`` (agent/game/slots.py checks that before asking)."""
        cdef Py_ssize_t i
        cdef PyMemberDef *member
        self.cls = cls
        self.type = <PyTypeObject *>cls
        self.n = len(descriptors)
        self.offsets = <Py_ssize_t *>malloc(max(self.n, 1) * sizeof(Py_ssize_t))
        if self.offsets == NULL:
            raise MemoryError()
        for i in range(self.n):
            member = (<PyMemberDescrObject *><PyObject *>descriptors[i]).d_member
            if member.type != T_OBJECT_EX or member.flags & READONLY:
                raise TypeError(f"{cls.__name__}: field {i} is not a writable object slot")
            self.offsets[i] = member.offset

    def __dealloc__(self):
        free(self.offsets)

    def __call__(self, *values):
        cdef Py_ssize_t i
        cdef PyObject *raw
        cdef PyObject *value
        cdef PyObject **slot
        if len(values) != self.n:
            raise TypeError(f"{self.cls.__name__} takes {self.n} values, got {len(values)}")
        # What object.__new__ does for a slots class with nothing to check: allocate the
        # instance (slots empty, tracked by the garbage collector).
        raw = self.type.tp_alloc(self.type, 0)
        if raw == NULL:
            raise MemoryError()
        obj = <object>raw
        Py_DECREF(obj)  # the cast took a second reference
        for i in range(self.n):
            value = <PyObject *>values[i]
            slot = <PyObject **>((<char *><PyObject *>obj) + self.offsets[i])
            Py_INCREF(<object>value)
            Py_XDECREF(slot[0])
            slot[0] = value
        return obj
