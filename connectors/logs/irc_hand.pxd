# Static types for connectors/logs/irc_hand.py when it is compiled (agent/native.py): the
# .py stays plain Python; with the replay's seat indexes, counters and lists typed, its
# per-letter loop indexes lists in C. Chip figures stay Python ints (the logs are untrusted
# and may hold any number).
cimport cython


@cython.locals(rnd=Py_ssize_t, start=Py_ssize_t, gone_after=Py_ssize_t, n_live=Py_ssize_t, posts=Py_ssize_t,
               remaining=list, put=list, rc=list, status=list, allin_due=list, left=list, actions=list,
               warnings=list, ptr=list, pots=list, could_bet=list)
cpdef tuple _replay(list seats, Py_ssize_t n, list nick, list bankroll, list put_in, list won, list toks,
                    list figures, Py_ssize_t board_len, tuple totals)

@cython.locals(p=Py_ssize_t)
cdef Py_ssize_t _post_blinds(list seats, Py_ssize_t n, list nick, list toks, list remaining, list put, list rc,
                             list status, list allin_due, list ptr, object append) except -1

# The per-letter loop: its seat indexes and counters in C.
@cython.locals(p=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, idle=Py_ssize_t, pending=Py_ssize_t, n_active=Py_ssize_t,
               n_due=Py_ssize_t, n_live=Py_ssize_t, used=Py_ssize_t, raises=Py_ssize_t, acted=list, tp=tuple)
cdef Py_ssize_t _play_round(Py_ssize_t rnd, list seats, Py_ssize_t n, list nick, list won, list toks,
                            Py_ssize_t total, list remaining, list put, list rc, list status, list allin_due,
                            list ptr, list left, object append, list warnings, object level,
                            Py_ssize_t start) except -1

cdef object _chips(object kind, object to_call, object level, object put_this_round, object bet,
                   Py_ssize_t raises, Py_ssize_t n_active, object seat, Py_ssize_t rnd)

cdef Py_ssize_t _leave(object kind, object flag, object to_call, Py_ssize_t p, Py_ssize_t rnd, list seats,
                       list status, list allin_due, list nick, list warnings) except -1

@cython.locals(p=Py_ssize_t, n_live=Py_ssize_t, gone_after=Py_ssize_t, tp=tuple)
cdef Py_ssize_t _leftover_letters(Py_ssize_t rnd, list seats, Py_ssize_t n, list nick, list won, list toks,
                                  list status, list allin_due, list ptr, list left, object append, list rc,
                                  object level, object bet, Py_ssize_t raises) except -1

@cython.locals(p=Py_ssize_t, r=Py_ssize_t)
cdef _unreached_rounds(list seats, list toks, Py_ssize_t n, Py_ssize_t rnd, list left)

@cython.locals(p=Py_ssize_t, r=Py_ssize_t)
cdef _check_totals(list seats, Py_ssize_t n, list put, list put_in, list won, list status, list figures,
                   list pots, list could_bet, list warnings)


# Column and letter counts typed; every figure read from the log stays a Python int.
@cython.locals(nf=Py_ssize_t, npf=Py_ssize_t, i=Py_ssize_t, t0=Py_ssize_t, t1=Py_ssize_t, t2=Py_ssize_t,
               t3=Py_ssize_t, n0=Py_ssize_t, n1=Py_ssize_t, n2=Py_ssize_t, n3=Py_ssize_t,
               figures=list, split=list, seats=list, nicks_at=list, bank_at=list, put_at=list, won_at=list,
               toks_at=list, cache=dict, shown=list, nicks=list, rf=list)
cpdef build_hand(hand_id, hf, source, hdb_path, hdb_line, roster_entry, pdb_lines, roster_path)
