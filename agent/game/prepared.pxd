# Static types for agent/game/prepared.py when it is compiled (agent/native.py): the .py
# stays plain Python; with its counters and lists typed and the ContextWalker known, the
# pass over a hand's actions calls the walker's methods in C. Fields read from the record
# stay Python objects: their types are what the pass checks.
cimport cython

from agent.game.context cimport ContextWalker


@cython.locals(n=Py_ssize_t, i=Py_ssize_t, seat_of=dict, players=list, positions=list, seat_rows=list,
               put_in=list, action_rows=list, observations=list)
cpdef _prepare(record, str hid, str network)

cdef _check_header(record, str hid)

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, decided=bint, blind=bint, walker=ContextWalker, folded=list)
cdef _read_actions(record, str hid, dict seat_of, list players, list positions, board, list put_in,
                   list action_rows, list observations)

@cython.locals(n=Py_ssize_t, listed=list, result_rows=list)
cdef tuple _result_rows(record, str hid, dict seat_of, list put_in)

@cython.locals(cards=list, shown_seats=list)
cdef tuple _shown_rows(record, str hid, dict seat_of, board)
