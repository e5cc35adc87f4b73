# Static types for agent/game/rules.py when it is compiled (agent/native.py): the .py stays
# plain Python; this file only tells Cython what its State holds, so attribute reads and
# the integer arithmetic of the betting rounds run in C.
cimport cython


@cython.final
cdef class State:
    cdef public object config, _phase, _deck, _variant, _used, _dealt, _pending_show
    cdef public tuple _pre_order, _post_order, _starting, _show_order, _blind_seats
    cdef public list _stacks, _bets, _put, _won, _folded, _queue, _holes, _board, _values, _ops
    cdef public list _parked
    cdef public Py_ssize_t _n, _button, _sb, _bb, _small, _big, _max_bets, _live, _street
    cdef public Py_ssize_t _level, _size, _cap, _raises, _full, _shorts, _acted, _aggressor
    cdef public Py_ssize_t _blind_bet
    cdef public bint _runout, _auto_show, _free_folds, _cap_heads_up, _short_counts
    cdef public bint _needs_caller, _spread_odd, _merge_pots

    cpdef to_call(self, seat)

    @cython.locals(s=Py_ssize_t, j=Py_ssize_t, mine=Py_ssize_t, level=Py_ssize_t, street=Py_ssize_t)
    cpdef _begin_round(self)

    @cython.locals(s=Py_ssize_t, able=Py_ssize_t)
    cpdef _end_round(self)

    @cython.locals(j=Py_ssize_t, mine=Py_ssize_t)
    cpdef bint _can_be_topped(self, Py_ssize_t seat)

    cpdef _pass_over_idle(self)

    @cython.locals(amount=Py_ssize_t)
    cpdef _call(self, Py_ssize_t actor)

    @cython.locals(level=Py_ssize_t, full=Py_ssize_t, to=Py_ssize_t, cover=Py_ssize_t,
                   added=Py_ssize_t, by=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, s=Py_ssize_t)
    cpdef _raise(self, Py_ssize_t actor)

    @cython.locals(s=Py_ssize_t)
    cpdef _finish(self)
