# Static types for agent/models/frequencies.py when it is compiled (agent/native.py): the .py
# stays plain Python; this file makes the count objects C structs (seven numbers each) so
# agent/models/prediction.py's hot path reads and adds to them in C, without a Python float
# per number.
cimport cython


@cython.final
cdef class ContextCounts:
    cdef public double f, c, r
    cdef public long long ref, nf, nc, nr

    @cython.locals(k=double)
    cpdef bring_to(self, long long now, double factor)
    cpdef add(self, int action_class)
    cpdef observe(self, int action_class, long long now, double factor)
    @cython.locals(k=double)
    cpdef tuple decayed_at(self, long long now, double factor)
    cpdef tuple row(self)
    cpdef ContextCounts copy(self)


@cython.final
cdef class PlayerState:
    cdef public long long hands, scores_ref
    cdef public list contexts
    cdef public dict fine
    cdef public double score_twelve, score_backoff

    @cython.locals(k=double)
    cpdef add_scores(self, logliks, double factor)
    @cython.locals(k=double)
    cpdef list scores_at(self, double factor)
