# Static types for agent/game/hand.py when it is compiled (agent/native.py): the .py stays
# plain Python; this file only tells Cython what a hand holds, so attribute reads and the
# integer arithmetic run in C. agent/game/rules.pxd's State extends it.
cimport cython


cdef class HandBase:
    cdef public object config, _phase, _deck, _variant, _used, _dealt, _pending_show
    cdef public tuple _pre_order, _post_order, _starting, _show_order, _blind_seats
    cdef public list _stacks, _bets, _put, _won, _folded, _queue, _holes, _board, _values, _ops
    cdef public list _parked, _dead
    cdef public Py_ssize_t _n, _button, _sb, _bb, _small, _big, _max_bets, _live, _street
    cdef public Py_ssize_t _level, _size, _cap, _raises, _full, _shorts, _acted, _aggressor
    cdef public Py_ssize_t _blind_bet, _completed
    cdef public bint _runout, _auto_show, _free_folds, _cap_heads_up, _short_counts
    cdef public bint _needs_caller, _spread_odd, _merge_pots, _half_full

    cpdef to_call(self, seat)
