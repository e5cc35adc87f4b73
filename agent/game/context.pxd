# Static types for agent/game/context.py when it is compiled (agent/native.py): the .py
# stays plain Python; with the walker's fields and locals typed, the fine context of a
# decision (worked out for every action a replay reads) is C integer arithmetic.
cimport cython


@cython.locals(active=Py_ssize_t, coarse=Py_ssize_t, index=Py_ssize_t)
cpdef Py_ssize_t fine_context(Py_ssize_t round_, Py_ssize_t bets_to_call, Py_ssize_t players_active,
                              Py_ssize_t relative_position, bint aggressor, Py_ssize_t last_action, bint acted,
                              Py_ssize_t raises, bint voluntary, Py_ssize_t texture) except? -1


@cython.final
cdef class ContextWalker:
    cdef public object positions, board
    cdef public Py_ssize_t n, round, texture, last_raiser, aggressor
    cdef public dict _index
    cdef public list _pre, _post, _folded, _acted, _last, _voluntary, _blind

    cpdef _enter(self, Py_ssize_t round_)

    @cython.locals(me=Py_ssize_t, j=Py_ssize_t, mine=Py_ssize_t, before=Py_ssize_t, after=Py_ssize_t,
                   relpos=Py_ssize_t, aggressor=Py_ssize_t, keys=list, folded=list)
    cpdef Py_ssize_t context(self, Py_ssize_t round_, object player, Py_ssize_t bets_to_call,
                             Py_ssize_t players_active, Py_ssize_t raises) except? -1

    @cython.locals(me=Py_ssize_t)
    cpdef record(self, Py_ssize_t round_, object player, str kind)
