# Static types for agent/game/rules.py when it is compiled (agent/native.py): the .py stays
# plain Python; this file only tells Cython that State is a HandBase (agent/game/hand.pxd,
# which holds the fields) and types its betting methods, so they run in C.
cimport cython

from agent.game.hand cimport HandBase


@cython.final
cdef class State(HandBase):

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
                   added=Py_ssize_t, by=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, s=Py_ssize_t,
                   size=Py_ssize_t, base=Py_ssize_t, completed=Py_ssize_t)
    cpdef _raise(self, Py_ssize_t actor)

    @cython.locals(s=Py_ssize_t)
    cpdef _finish(self)
