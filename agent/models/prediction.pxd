# Static types for agent/models/prediction.py when it is compiled (agent/native.py): the .py
# stays plain Python; with the count objects typed (frequencies.pxd) and the arithmetic
# on C doubles, Predictor.advance (the writer's hot path: every decision of a replay is
# scored and learned there) and the predictions in play run in C.
cimport cython

from agent.models.frequencies cimport ContextCounts, PlayerState


cdef ContextCounts _EMPTY

@cython.locals(n=double, pc0=double, pc1=double, pc2=double, pf0=double, pf1=double, pf2=double,
               q0=double, q1=double, q2=double)
cdef (double, double, double) _backoff3(double x0, double x1, double x2, double y0, double y1, double y2,
                                        double u0, double u1, double u2, double v0, double v1, double v2,
                                        double d0, double d1, double d2, double a, double b, double g)

@cython.locals(total=double, w=double, v=double)
cdef (double, double, double) _blend3(double c0, double c1, double c2, double d0, double d1, double d2,
                                      double blend)

@cython.locals(p=double)
cdef double _loglik3(double p0, double p1, double p2, int actual, double epsilon)

cdef ContextCounts _known(ContextCounts cc)

cdef ContextCounts _present(list contexts, Py_ssize_t context, long long now, double factor)

cdef ContextCounts _present_fine(dict fine, object context, long long now, double factor)


@cython.final
cdef class Predictor:
    cdef public object decay, pop_decay, strengths
    cdef public double factor, pop_factor, blend, epsilon, s_population, s_coarse, s_fine

    @cython.locals(cc=ContextCounts, k=double)
    cpdef tuple twelve(self, PlayerState state, Py_ssize_t context)

    @cython.locals(x=ContextCounts, y=ContextCounts, u=ContextCounts, v=ContextCounts,
                   kx=double, ky=double, ku=double, kv=double, f=double, pf=double, now=cython.longlong,
                   pnow=cython.longlong)
    cpdef tuple backoff(self, PlayerState state, PlayerState population, Py_ssize_t context, object fine)

    @cython.locals(s0=double, s1=double, k=double, e=double)
    cpdef tuple weights(self, PlayerState state)

    @cython.locals(state=PlayerState, x=ContextCounts, y=ContextCounts, u=ContextCounts, v=ContextCounts,
                   f=double, pf=double, eps=double, blend=double, sa=double, sb=double, sg=double,
                   pnow=cython.longlong, now=cython.longlong, seat=Py_ssize_t, context=Py_ssize_t,
                   action_class=int, d0=double, d1=double, d2=double, a0=double, a1=double, a2=double,
                   b0=double, b1=double, b2=double, la=double, lb=double, k=double,
                   pop_contexts=list, pop_fine=dict)
    cpdef advance(self, states, PlayerState population, observations)
