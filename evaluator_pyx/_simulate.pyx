# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""The selective-sampling simulator ([sampling-1999], "An Expected Value Based Betting Strategy",
"Selective Sampling", "Probability triples"; [loki2-1999] §5; [poki-2002]): the expected value
of checking/calling and of betting/raising at one decision, by playing the hand out.

Each trial deals every live opponent's hole cards from that opponent's weight table
(selective sampling through alias tables, no card conflicts), deals the rest of the
board, and plays the hand out twice from the same deal — once after our check/call, once
after our bet/raise — to the end. Every later action of every player, ours included, is
drawn from a probability triple computed for the sampled holding in the simulated
context (Billings et al.'s [sampling-1999] ProbTriple):

* a holding's strength on a board is its hand strength against one random holding
  (ties half, card removal exact) — the share of holdings it beats, so it reads as a
  percentile;
* an opponent facing a context (round x bets to call 0/1/2+) with modeled frequencies
  (f, c, r) raises with the holdings above the (1 - r / (1 - mix))-percentile (only
  (1 - mix) of the time: strong hands sometimes just call, Billings et al.'s [loki2-1999] A-A [0, .2, .8]) and
  folds those below the f-percentile, each threshold a ramp of half-width opp_width — the
  same rule the modeler re-weights with (agent.engine.modeler.opponent_triples), with the
  percentile read off the strength directly instead of the opponent's table, which keeps
  it to a few operations;
* we play the formula strategy (agent.engine.triples) on HS_n = strength ** opponents:
  bet at bet_threshold, raise at raise_threshold (+ reraise_step per further bet), call
  when HS_n beats the pot odds;
* a seat can also be given a fixed triple (e.g. always-call), which the tests use.

Bookkeeping follows agent.game.rules: bets of the round's size, the cap (max_bets bets a
round, not applied heads-up when cap_heads_up is 0), all-in for what a stack covers, a
raise only when another live player could call it, and side pots at showdown (pots are
split exactly: an expected value has no odd chip). Two simplifications, both only where
stacks run short: an all-in raise for less than a full bet re-opens the betting and
counts toward the cap only when full (agent.game.variant's short_all_in_counts=False; the
standard rule counts it and does not re-open for those who acted), and the caller says
whether the cap holds heads-up. The money a line wins is what we take from the pot minus
what we put in from now on; fold is 0.

The run stops after `trials`, when the time budget is spent, or, after `min_trials`, at
Billings et al.'s [sampling-1999] obvious move: the best EV leads the next by more than the sum of their
standard errors. Everything is seeded (xoshiro256**), so a seed gives the same EVs.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from evaluator_pyx._core cimport EvalTables, N_HOLDINGS, ctz64, eval_tables
from evaluator_pyx._ranking cimport holding_strengths_c, holding_values_c
from evaluator_pyx._rollout cimport (
    AliasTable,
    Rng,
    alias_build,
    alias_draw,
    rng_below,
    rng_seed,
    rng_uniform,
)

import numpy as np

cdef const EvalTables* _T = eval_tables()

__all__ = ["simulate"]


# Per-trial state shared by both lines: the deal and every live seat's strength per round.
ctypedef struct _Deal:
    uint64_t hole[SIM_MAX_SEATS]
    int hidx[SIM_MAX_SEATS]
    uint64_t board[4]                   # the board at rounds 1..3 (index = round)
    double hs[4][SIM_MAX_SEATS]         # strength at rounds 1..3
    int value[SIM_MAX_SEATS]            # hand value with the full board


# Scratch the trial loop reuses (allocated once per run, never per trial).
ctypedef struct _Scratch:
    double hs_now[N_HOLDINGS]
    int32_t vals[N_HOLDINGS]


cdef inline double _ramp(double x, double lo, double hi) noexcept nogil:
    if x <= lo:
        return 0.0 if x < hi else 1.0
    if x >= hi:
        return 1.0
    return (x - lo) / (hi - lo)


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + 1e-9 * <double>ts.tv_nsec


cdef inline uint64_t _card_bit(int c) noexcept nogil:
    # cards.py: card 4 * rank + suit is bit 16 * suit + rank.
    return (<uint64_t>1) << (16 * (c & 3) + (c >> 2))


# Holdings holding each card, by card bit (16 * suit + rank): 51 each.
cdef int _BIT_HOLDINGS[64][51]


cdef void _init_bit_holdings() noexcept nogil:
    cdef int fill[64]
    cdef int h, b
    cdef uint64_t m
    memset(fill, 0, sizeof(fill))
    for h in range(N_HOLDINGS):
        m = _T.holding_masks[h]
        while m:
            b = ctz64(m)
            _BIT_HOLDINGS[b][fill[b]] = h
            fill[b] += 1
            m &= m - 1


_init_bit_holdings()


cdef void _strengths(const SimSpot* s, _Deal* d, _Scratch* w, int rnd) noexcept nogil:
    """Every live seat's strength on the round's board: the share of the holdings that
    share no card with the board or with the seat's own cards which it beats (ties half).
    One pass counts against every holding off the board; the ~100 holdings that touch a
    seat's own cards are then taken back out (exact card removal)."""
    cdef int p, h, k, b, j, live = 0
    cdef int seat[SIM_MAX_SEATS]
    cdef int32_t mine[SIM_MAX_SEATS]
    cdef long below2[SIM_MAX_SEATS]
    cdef long total, tot_p
    cdef int32_t v, m
    cdef uint64_t hole
    if rnd == s.round:
        for p in range(s.n):
            if not s.folded[p]:
                d.hs[rnd][p] = w.hs_now[d.hidx[p]]
        return
    holding_values_c(_T, d.board[rnd], w.vals)
    for p in range(s.n):
        if not s.folded[p]:
            seat[live] = p
            mine[live] = w.vals[d.hidx[p]]
            below2[live] = 0
            live += 1
    total = 0
    for h in range(N_HOLDINGS):
        v = w.vals[h]
        if v == 0:
            continue
        total += 1
        for k in range(live):
            below2[k] += 2 * (v < mine[k]) + (v == mine[k])
    for k in range(live):
        p = seat[k]
        m = mine[k]
        tot_p = total
        hole = d.hole[p]
        while hole:
            b = ctz64(hole)
            hole &= hole - 1
            for j in range(51):
                v = w.vals[_BIT_HOLDINGS[b][j]]
                if v:
                    tot_p -= 1
                    below2[k] -= 2 * (v < m) + (v == m)
        # The seat's own holding touches both its cards: taken out twice, put one back.
        tot_p += 1
        below2[k] += 1
        d.hs[rnd][p] = <double>below2[k] / (2.0 * tot_p) if tot_p > 0 else 0.0


cdef int _deal(const SimSpot* s, const AliasTable* const* tables, _Deal* d, _Scratch* w,
               Rng* rng) noexcept nogil:
    """One deal consistent with what we know; 0, or -1 if the tables keep colliding."""
    cdef uint64_t used = s.hole | s.board, m, b
    cdef int p, tries, h, c, r, nb
    for p in range(s.n):
        if s.folded[p]:
            continue
        if p == s.me:
            d.hole[p] = s.hole
            d.hidx[p] = s.hole_index
            continue
        for tries in range(64):
            h = alias_draw(tables[p], rng)
            m = _T.holding_masks[h]
            if not (m & used):
                break
        else:
            return -1
        used |= m
        d.hole[p] = m
        d.hidx[p] = h
    b = s.board
    nb = 3 if s.round == 1 else (4 if s.round == 2 else 5)
    d.board[s.round] = b
    for r in range(s.round + 1, 4):
        while True:
            c = <int>rng_below(rng, 52)
            m = _card_bit(c)
            if not (m & used):
                break
        used |= m
        b |= m
        d.board[r] = b
    for r in range(s.round, 4):
        _strengths(s, d, w, r)
    # The river ranks every holding already (holding_values_c left them in w.vals).
    if s.round == 3:
        holding_values_c(_T, b, w.vals)
    for p in range(s.n):
        if not s.folded[p]:
            d.value[p] = w.vals[d.hidx[p]]
    return 0


ctypedef struct _Hand:
    int stack[SIM_MAX_SEATS]
    int put[SIM_MAX_SEATS]
    int bet[SIM_MAX_SEATS]
    int folded[SIM_MAX_SEATS]
    int acted[SIM_MAX_SEATS]
    int round, level, raises, live


cdef inline int _size(const SimSpot* s, int rnd) noexcept nogil:
    return s.small_bet if rnd <= 1 else s.big_bet


cdef bint _can_raise(const SimSpot* s, const _Hand* g, int p) noexcept nogil:
    cdef int j, able = 0
    for j in range(s.n):
        if not g.folded[j] and g.stack[j] > 0:
            able += 1
    if g.raises >= s.max_bets and (s.cap_heads_up or able > 2):
        return False
    if g.stack[p] <= g.level - g.bet[p]:
        return False
    for j in range(s.n):
        if j != p and not g.folded[j] and g.bet[j] + g.stack[j] > g.level:
            return True
    return False


cdef void _apply(const SimSpot* s, _Hand* g, int p, int action) noexcept nogil:
    cdef int to_call = g.level - g.bet[p]
    cdef int size, to, added, j
    if action == SIM_FOLD and to_call > 0:
        g.folded[p] = 1
        g.live -= 1
        return
    if action == SIM_RAISE and _can_raise(s, g, p):
        size = _size(s, g.round)
        to = g.level + size
        if to > g.bet[p] + g.stack[p]:
            to = g.bet[p] + g.stack[p]
        added = to - g.bet[p]
        g.stack[p] -= added
        g.put[p] += added
        g.bet[p] = to
        # Only a full raise, or the round's opening bet however short, counts toward the cap.
        if to - g.level >= size or g.raises == 0:
            g.raises += 1
        g.level = to
        for j in range(s.n):
            g.acted[j] = 0
        g.acted[p] = 1
        return
    if to_call > g.stack[p]:
        to_call = g.stack[p]
    g.stack[p] -= to_call
    g.put[p] += to_call
    g.bet[p] += to_call
    g.acted[p] = 1


cdef inline bint _needs_to_act(const SimSpot* s, const _Hand* g, int p) noexcept nogil:
    cdef int j
    if g.folded[p] or g.stack[p] == 0:
        return False
    if g.bet[p] < g.level:
        return True
    if g.acted[p]:
        return False
    # Someone whose bet no other live player can top has nothing to play for.
    for j in range(s.n):
        if j != p and not g.folded[j] and g.bet[j] + g.stack[j] > g.bet[p]:
            return True
    return False


cdef int _choose(const SimSpot* s, const _Hand* g, const _Deal* d, int p, Rng* rng) noexcept nogil:
    """Draw p's action from its probability triple in the simulated context."""
    cdef double f, c, r, hs, ehs, t, pot_odds, top
    cdef int to_call = g.level - g.bet[p], size = _size(s, g.round), bets, ctx, j, pot = 0
    cdef int k
    if s.fixed[p]:
        f = s.fixed_triple[p][0]
        c = s.fixed_triple[p][1]
        r = s.fixed_triple[p][2]
    else:
        hs = d.hs[g.round][p]
        if p == s.me:
            ehs = 1.0
            for k in range(g.live - 1):
                ehs *= hs
            if g.raises <= 0:
                t = s.bet_threshold
            else:
                t = s.raise_threshold + s.reraise_step * (g.raises - 1)
                if t > 0.99:
                    t = 0.99
            r = _ramp(ehs, t - s.width, t + s.width)
            if to_call > 0:
                for j in range(s.n):
                    pot += g.put[j]
                pot_odds = <double>to_call / <double>(pot + to_call)
                f = (1.0 - r) * (1.0 - _ramp(ehs, pot_odds - s.width, pot_odds + s.width))
            else:
                f = 0.0
        else:
            bets = (to_call + size - 1) // size
            ctx = 3 * g.round + (bets if bets < 2 else 2)
            top = 1.0 - s.opp_mix
            r = s.freq[p][ctx][2]
            if r > 0.0:
                if s.use_thresholds:
                    t = s.thresholds[p][ctx][1]
                else:
                    t = 1.0 - (r / top if r < top else 1.0)
                r = top * _ramp(hs, t - s.opp_width, t + s.opp_width)
            f = s.freq[p][ctx][0]
            if f > 0.0:
                t = s.thresholds[p][ctx][0] if s.use_thresholds else f
                f = (1.0 - _ramp(hs, t - s.opp_width, t + s.opp_width)) * (1.0 - r)
        c = 1.0 - f - r
    if to_call <= 0:
        c += f
        f = 0.0
    if r > 0.0 and not _can_raise(s, g, p):
        c += r
        r = 0.0
    t = (f + c + r) * rng_uniform(rng)
    if t < f:
        return SIM_FOLD
    if t < f + c:
        return SIM_CALL
    return SIM_RAISE


cdef double _showdown(const SimSpot* s, const _Hand* g, const _Deal* d) noexcept nogil:
    """Chips we take from the pot: side pots layer by layer, each to the best hand among
    the live players who put in at least its level, split evenly."""
    cdef int p, q, lvl, prev = 0, best, winners, me_wins, top = 0
    cdef double won = 0.0, layer
    cdef int total = 0
    for p in range(s.n):
        total += g.put[p]
    if g.live == 1:
        return <double>total if not g.folded[s.me] else 0.0
    if g.folded[s.me]:
        return 0.0
    for p in range(s.n):
        if not g.folded[p] and g.put[p] > top:
            top = g.put[p]
    while prev < top:
        # The next level: the smallest live contribution above prev.
        lvl = top
        for p in range(s.n):
            if not g.folded[p] and prev < g.put[p] < lvl:
                lvl = g.put[p]
        layer = 0.0
        for p in range(s.n):
            q = g.put[p]
            if lvl >= top:  # the last layer takes everything above prev
                if q > prev:
                    layer += q - prev
            elif q > prev:
                layer += (q if q < lvl else lvl) - prev
        best = 0
        for p in range(s.n):
            if not g.folded[p] and g.put[p] >= lvl and d.value[p] > best:
                best = d.value[p]
        winners = 0
        me_wins = 0
        for p in range(s.n):
            if not g.folded[p] and g.put[p] >= lvl and d.value[p] == best:
                winners += 1
                if p == s.me:
                    me_wins = 1
        if me_wins:
            won += layer / winners
        prev = lvl
    return won


cdef double _playout(const SimSpot* s, const _Deal* d, int first, Rng* rng) noexcept nogil:
    """Our net chips from now on when we take `first` now and everyone plays on."""
    cdef _Hand g
    cdef int p, k, cur, nxt, j, start_put
    memcpy(g.stack, s.stack, sizeof(g.stack))
    memcpy(g.put, s.put, sizeof(g.put))
    memcpy(g.bet, s.bet, sizeof(g.bet))
    memcpy(g.folded, s.folded, sizeof(g.folded))
    memcpy(g.acted, s.acted, sizeof(g.acted))
    g.round = s.round
    g.level = s.level
    g.raises = s.raises
    g.live = 0
    for p in range(s.n):
        if not g.folded[p]:
            g.live += 1
    start_put = g.put[s.me]
    _apply(s, &g, s.me, first)
    cur = 0
    for k in range(s.n):
        if s.order[k] == s.me:
            cur = k
    while g.live > 1:
        nxt = -1
        for k in range(1, s.n + 1):
            j = (cur + k) % s.n
            if _needs_to_act(s, &g, s.order[j]):
                nxt = j
                break
        if nxt < 0:
            if g.round >= 3:
                break
            g.round += 1
            g.level = 0
            g.raises = 0
            for p in range(s.n):
                g.bet[p] = 0
                g.acted[p] = 0
            cur = s.n - 1  # the next round starts from the first seat in the order
            continue
        p = s.order[nxt]
        _apply(s, &g, p, _choose(s, &g, d, p, rng))
        cur = nxt
    return _showdown(s, &g, d) - (g.put[s.me] - start_put)


cdef inline double _stderr(double s, double s2, long n) noexcept nogil:
    cdef double mean, var
    if n < 2:
        return 1e300
    mean = s / n
    var = (s2 - s * mean) / (n - 1)
    return sqrt(var / n) if var > 0.0 else 0.0


cdef bint _obvious(const SimResult* o, int can_fold, int can_raise) noexcept nogil:
    """Billings et al.'s [sampling-1999] obvious move: the best EV leads the second by more than the sum of the
    two standard errors (fold: EV 0, no error)."""
    cdef double ev[3]
    cdef double se[3]
    cdef int k, m = 0, best = 0, second = -1
    ev[m] = o.sum[0] / o.trials
    se[m] = _stderr(o.sum[0], o.sumsq[0], o.trials)
    m += 1
    if can_raise:
        ev[m] = o.sum[1] / o.trials
        se[m] = _stderr(o.sum[1], o.sumsq[1], o.trials)
        m += 1
    if can_fold:
        ev[m] = 0.0
        se[m] = 0.0
        m += 1
    if m < 2:
        return True
    for k in range(1, m):
        if ev[k] > ev[best]:
            best = k
    for k in range(m):
        if k != best and (second < 0 or ev[k] > ev[second]):
            second = k
    return ev[best] - ev[second] > se[best] + se[second]


cdef int sim_run_c(const SimSpot* s, const AliasTable* const* tables, long trials,
                   long min_trials, double budget_s, int can_fold, int can_raise,
                   Rng* rng, SimResult* out, const double* strengths_now=NULL) noexcept nogil:
    cdef _Scratch* w = <_Scratch*>malloc(sizeof(_Scratch))
    cdef _Deal d
    cdef double v, t0 = _now()
    cdef long fails = 0
    memset(out, 0, sizeof(SimResult))
    if w == NULL:
        return -1
    if strengths_now != NULL:
        memcpy(w.hs_now, strengths_now, sizeof(w.hs_now))
    else:
        holding_strengths_c(_T, s.board, NULL, w.hs_now)
    while out.trials < trials:
        if _deal(s, tables, &d, w, rng) < 0:
            fails += 1
            out.redeals += 1
            if fails > 10000:
                free(w)
                return -1
            continue
        v = _playout(s, &d, SIM_CALL, rng)
        out.sum[0] += v
        out.sumsq[0] += v * v
        if can_raise:
            v = _playout(s, &d, SIM_RAISE, rng)
            out.sum[1] += v
            out.sumsq[1] += v * v
        out.trials += 1
        if out.trials % 8 == 0 and out.trials < trials:
            if out.trials >= min_trials and _obvious(out, can_fold, can_raise):
                out.stopped_early = 1
                break
            # The budget holds from the first trial (a run that stops here before
            # min_trials is less sure of its EVs, not late).
            if budget_s > 0.0 and _now() - t0 > budget_s:
                break
    free(w)
    return 0


# ---- Python entry point ------------------------------------------------------------------

def simulate(*, hole, board, int me, order, stacks, put, bets, folded, acted, int round_,
             int level, int raises, int max_bets, int small_bet, int big_bet,
             bint cap_heads_up, int hole_index, weights, freq, fixed=None, params,
             long trials=500, long min_trials=100, double budget_s=0.0, seed=0,
             bint can_fold=True, bint can_raise=True, strengths_now=None,
             thresholds=None) -> tuple:
    """EVs of our check/call and bet/raise by simulation (see the module docstring).

    hole, board: 64-bit masks. order, stacks, put, bets, folded, acted: per seat (order:
    seats in post-flop acting order). weights: per seat a 1326 weight table (None for our
    seat and folded seats). freq: (seats, 12, 3) context frequencies. fixed: None or
    (seats, 3) with NaN rows for modeled seats and a triple for fixed ones. params:
    (bet_threshold, raise_threshold, reraise_step, width, opp_width, opp_mix).
    strengths_now: None, or every holding's strength on the present board (1326 values
    in [0, 1], e.g. with a potential term; default: hand strength against one random
    holding). thresholds: None, or (seats, 12, 2) strengths at which each opponent folds
    below and raises above in each context (default: read off the frequencies as
    percentiles of all holdings). Returns (trials, ev_call, se_call, ev_raise, se_raise, stopped_early); the
    raise figures are NaN when raising is not legal."""
    cdef int n = len(order), p, k, c
    if not 2 <= n <= SIM_MAX_SEATS:
        raise ValueError(f"the simulator takes 2..{SIM_MAX_SEATS} seats, got {n}")
    if not 1 <= round_ <= 3:
        raise ValueError(f"the simulator plays after the flop (round 1-3), got round {round_}")
    if not 0 <= me < n:
        raise ValueError(f"our seat {me} is not at the table")
    if trials < 1 or min_trials < 2:
        raise ValueError("trials must be >= 1 and min_trials >= 2")
    cdef SimSpot* s = <SimSpot*>malloc(sizeof(SimSpot))
    cdef AliasTable* store = <AliasTable*>malloc(sizeof(AliasTable) * n)
    cdef const AliasTable* ptrs[SIM_MAX_SEATS]
    cdef SimResult res
    cdef Rng rng
    cdef int rc
    cdef const double[::1] wv
    cdef const double* now_ptr = NULL
    if s == NULL or store == NULL:
        free(s)
        free(store)
        raise MemoryError()
    try:
        memset(s, 0, sizeof(SimSpot))
        s.n = n
        s.me = me
        s.round = round_
        s.level = level
        s.raises = raises
        s.max_bets = max_bets
        s.small_bet = small_bet
        s.big_bet = big_bet
        s.cap_heads_up = 1 if cap_heads_up else 0
        s.hole = <uint64_t>hole
        s.board = <uint64_t>board
        s.hole_index = hole_index
        (s.bet_threshold, s.raise_threshold, s.reraise_step, s.width, s.opp_width,
         s.opp_mix) = params
        fq = np.ascontiguousarray(freq, dtype=np.float64)
        if fq.shape != (n, SIM_CONTEXTS, 3):
            raise ValueError(f"freq must have shape ({n}, 12, 3), got {fq.shape}")
        if thresholds is not None:
            th = np.ascontiguousarray(thresholds, dtype=np.float64)
            if th.shape != (n, SIM_CONTEXTS, 2) or not np.all(np.isfinite(th)):
                raise ValueError(f"thresholds must be finite with shape ({n}, 12, 2), got {th.shape}")
            s.use_thresholds = 1
            for p in range(n):
                for k in range(SIM_CONTEXTS):
                    s.thresholds[p][k][0] = th[p, k, 0]
                    s.thresholds[p][k][1] = th[p, k, 1]
        fx = None if fixed is None else np.asarray(fixed, dtype=np.float64)
        if fx is not None and fx.shape != (n, 3):
            raise ValueError(f"fixed must have shape ({n}, 3), got {fx.shape}")
        seen = set()
        for k in range(n):
            p = int(order[k])
            if not 0 <= p < n or p in seen:
                raise ValueError(f"order must be a permutation of the {n} seats, got {list(order)}")
            seen.add(p)
            s.order[k] = p
        for p in range(n):
            s.stack[p] = int(stacks[p])
            s.put[p] = int(put[p])
            s.bet[p] = int(bets[p])
            s.folded[p] = 1 if folded[p] else 0
            s.acted[p] = 1 if acted[p] else 0
            if s.stack[p] < 0 or s.put[p] < 0 or s.bet[p] < 0 or s.bet[p] > s.put[p]:
                raise ValueError(f"seat {p}: chips must be >= 0 and this round's bet within what it put in")
            for k in range(SIM_CONTEXTS):
                for c in range(3):
                    s.freq[p][k][c] = fq[p, k, c]
            if fx is not None and fx[p, 0] == fx[p, 0]:  # not NaN: a fixed triple
                s.fixed[p] = 1
                for c in range(3):
                    s.fixed_triple[p][c] = fx[p, c]
            if p != me and not s.folded[p]:
                w = weights[p]
                arr = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
                if arr is not None and arr.shape != (N_HOLDINGS,):
                    raise ValueError(f"seat {p}: a weight table has 1326 entries")
                if arr is None:
                    rc = alias_build(&store[p], NULL, s.hole | s.board)
                else:
                    wv = arr
                    rc = alias_build(&store[p], &wv[0], s.hole | s.board)
                if rc == 0:
                    raise ValueError(f"seat {p}'s weight table has no holding left")
                ptrs[p] = &store[p]
            else:
                ptrs[p] = NULL
        if s.folded[me]:
            raise ValueError("our seat has folded")
        now_ptr = NULL
        if strengths_now is not None:
            now_arr = np.ascontiguousarray(strengths_now, dtype=np.float64)
            if now_arr.shape != (N_HOLDINGS,) or not np.all((now_arr >= 0.0) & (now_arr <= 1.0)):
                raise ValueError("strengths_now must be 1326 values in [0, 1]")
            wv = now_arr
            now_ptr = &wv[0]
        rng_seed(&rng, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        with nogil:
            rc = sim_run_c(s, ptrs, trials, min_trials, budget_s, 1 if can_fold else 0,
                           1 if can_raise else 0, &rng, &res, now_ptr)
    finally:
        free(s)
        free(store)
    if rc < 0:
        raise ValueError("no consistent deal: the weight tables keep giving opponents the same cards")
    cdef long t = res.trials
    ev_c = res.sum[0] / t
    se_c = _stderr(res.sum[0], res.sumsq[0], t)
    if can_raise:
        ev_r = res.sum[1] / t
        se_r = _stderr(res.sum[1], res.sumsq[1], t)
    else:
        ev_r = se_r = float("nan")
    return (t, ev_c, se_c, ev_r, se_r, bool(res.stopped_early))


def seat_strengths(board, holes) -> list:
    """The strength each of `holes` (64-bit masks of two cards, disjoint, off the board)
    gets in a simulation on a 4-5 card `board` (mask): its hand strength against one
    uniformly random holding, ties half. For tests of the trial loop's fast count."""
    cdef SimSpot s
    cdef _Deal d
    cdef _Scratch* w = <_Scratch*>malloc(sizeof(_Scratch))
    cdef int p, h
    cdef list out = []
    if w == NULL:
        raise MemoryError()
    try:
        memset(&s, 0, sizeof(SimSpot))
        s.n = len(holes)
        if not 1 <= s.n <= SIM_MAX_SEATS:
            raise ValueError(f"1..{SIM_MAX_SEATS} holdings")
        s.round = 1  # so that the board below is a later round's
        for p in range(s.n):
            d.hole[p] = <uint64_t>holes[p]
            d.hidx[p] = -1
            for h in range(N_HOLDINGS):
                if _T.holding_masks[h] == d.hole[p]:
                    d.hidx[p] = h
            if d.hidx[p] < 0 or d.hole[p] & <uint64_t>board:
                raise ValueError(f"hole {p} is not a holding off the board")
        d.board[2] = <uint64_t>board
        _strengths(&s, &d, w, 2)
        out = [d.hs[2][p] for p in range(s.n)]
    finally:
        free(w)
    return out
