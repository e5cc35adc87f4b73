# Static types for connectors/logs/irc_hand.py when it is compiled (agent/native.py): the
# .py stays plain Python; with the replay's seat indexes, counters and lists typed, its
# per-letter loop indexes lists in C. Chip figures stay Python ints (the logs are untrusted
# and may hold any number).
cimport cython


@cython.locals(p=Py_ssize_t, i=Py_ssize_t, q=Py_ssize_t, r=Py_ssize_t, k=Py_ssize_t, rnd=Py_ssize_t,
               idle=Py_ssize_t, pending=Py_ssize_t, n_active=Py_ssize_t, n_due=Py_ssize_t,
               n_live=Py_ssize_t, used=Py_ssize_t, start=Py_ssize_t, raises=Py_ssize_t,
               gone_after=Py_ssize_t,
               remaining=list, put=list, rc=list, status=list, allin_due=list, left=list, actions=list,
               warnings=list, ptr=list, acted=list, pots=list, could_bet=list, tp=tuple)
cpdef tuple _replay(list seats, Py_ssize_t n, list nick, list bankroll, list put_in, list won, list toks,
                    list figures, Py_ssize_t board_len, tuple totals)


# Column and letter counts typed; every figure read from the log stays a Python int.
@cython.locals(nf=Py_ssize_t, npf=Py_ssize_t, i=Py_ssize_t, t0=Py_ssize_t, t1=Py_ssize_t, t2=Py_ssize_t,
               t3=Py_ssize_t, n0=Py_ssize_t, n1=Py_ssize_t, n2=Py_ssize_t, n3=Py_ssize_t,
               figures=list, split=list, seats=list, nicks_at=list, bank_at=list, put_at=list, won_at=list,
               toks_at=list, cache=dict, shown=list, nicks=list, rf=list)
cpdef build_hand(hand_id, hf, source, hdb_path, hdb_line, roster_entry, pdb_lines, roster_path)
