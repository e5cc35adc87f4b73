# Static types for agent/game/tracker.py when it is compiled (agent/native.py): the .py stays
# plain Python; with the Tracker's fields typed, the per-event handlers read them in C.
cimport cython

from agent.game.rules cimport State


@cython.final
cdef class Tracker:
    cdef public object me, _started, _where, _history, _active, _board, _record, _handlers
    cdef public State _state
    cdef public tuple _players, _positions, _bet_sizes
    cdef public dict _seat_of
    cdef public list _actions, _late_shown
    cdef public Py_ssize_t hands_abandoned, _history_upto, _live, _round, _decisions
    cdef public bint _ended, _holes_pending

    @cython.locals(st=State)
    cpdef _player_acted(self, ev)
