# Static types for connectors/logs/irc_events.py when it is compiled (agent/native.py): the
# .py stays plain Python; with the round counters and lists typed, turning a hand's
# actions into events indexes and slices in C.
cimport cython


@cython.locals(n=Py_ssize_t, street=Py_ssize_t, rnd=Py_ssize_t, lo=Py_ssize_t, hi=Py_ssize_t,
               i=Py_ssize_t, events=list, live=list, decisions=dict, cached=dict)
cpdef list irc_hand_events(hand)
