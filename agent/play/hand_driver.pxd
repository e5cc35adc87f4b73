# Static types for agent/play/hand_driver.py when it is compiled (agent/native.py): the .py
# stays plain Python; with the driver's fields in C (no dictionary look-up) and its move
# and board steps called directly, self-play's loop (play, apply) costs what the old
# inline loop did.
cimport cython


@cython.final
cdef class HandDriver:
    cdef public object cache, tracker, started, names, holes, legal, board, _cards, _state, _point, _moves
    cdef public dict defaults, _acted
    cdef public list rounds, folded, _acts
    cdef public str betting
    cdef public Py_ssize_t actor
    cdef public bint in_hand, fast

    cpdef apply(self, action)
    cpdef _defaulted(self, bint check_or_fold)
    cpdef deal_board(self)
    cpdef _record(self)
