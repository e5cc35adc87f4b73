# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""The vectorised CFR+ solver and the exact best response of the abstract heads-up game
(agent.engine.equilibrium builds the game; this module only walks it).

The walk is over the public betting tree; at every node each player's private state is a
vector indexed by its bucket sequence so far (perfect recall: the sequence of buckets of
every round up to this one). Counterfactual regret minimisation (Zinkevich, Johanson,
Bowling, Piccione, "Regret minimization in games with incomplete information", NIPS
2007) in its CFR+ form (Tammelin 2014, "Solving large imperfect information games using
CFR+"; Tammelin, Burch, Johanson, Bowling, IJCAI 2015): regret-matching+ (cumulative
regrets floored at zero), alternating updates, and the average strategy weighted by
max(0, t - delay). One walk per player per iteration:

* the walking player's counterfactual values come up as a vector over its sequences;
  the opponent's reach (its own action probabilities times chance's) goes down as a
  vector over the opponent's sequences;
* chance between rounds extends each sequence by one bucket with P(b | sequence), the
  same for both players and independent between them (the abstract game's chance model);
* a fold pays what the folder put in; a showdown pays each sequence by the share its last
  bucket wins against each last bucket of the opponent's.

The same walk in best-response mode takes the maximum over actions at the walking
player's nodes against a fixed strategy of the opponent: the exact best response of the
abstract game, whose value pair gives the exploitability.

Restricted Nash responses (Johanson, Zinkevich, Bowling, "Computing robust
counter-strategies", NIPS 2007): with a model strategy and p given for one player, that
player's reach is two vectors, p x the model's and (1 - p) x its free strategy's, and
only the free part learns; the other player's average strategy is then the p-restricted
response to the model.

Both cores: the subtrees below the chance nodes that start round ``split_round`` (63 of
them at the turn) share no information set, so each iteration walks the rounds above
once to collect the reach at those nodes, walks the subtrees in parallel (OpenMP), and
walks the rounds above again to back the values up and update them.
"""
from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
cimport openmp

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef enum:
    DECISION = 0
    FOLD = 1
    SHOWDOWN = 2
    CHANCE = 3

cdef enum:
    MODE_CFR = 0      # regret-matching+ for both, regrets of the walker updated
    MODE_BR = 1       # the walker maximises; the opponent plays `policy`
    MODE_EVAL = 2     # both play `policy`

cdef enum:
    PHASE_WHOLE = 0   # no split
    PHASE_COLLECT = 1 # above the split: reach only, record it at the split
    PHASE_APPLY = 2   # above the split: values from the subtrees, updates
    PHASE_TASK = 3    # one subtree below the split


ctypedef struct Arena:
    double* base
    int64_t size
    int64_t used


ctypedef struct Game:
    int n_nodes
    const int32_t* kind
    const int32_t* rnd
    const int32_t* actor
    const int32_t* first
    const int32_t* n_child
    const int32_t* children
    const double* amount
    const int64_t* offset
    const int32_t* task_of
    int n_buckets[4]
    int64_t n_seq[4]
    const double* root
    const double* cond[4]
    const double* share
    int split_round


ctypedef struct Walk:
    int mode
    int walker
    double avg_weight
    float* regrets
    double* sums
    const float* policy
    int model_player            # -1, or the player whose reach is split (RNR)
    const float* model
    double p_model
    double* task_reach          # [n_tasks][2 * n_seq[split - 1]]
    double* task_value          # [n_tasks][n_seq[split - 1]]
    int64_t task_stride
    float* br_out               # MODE_BR: the best response's actions (1 at the best), or NULL


cdef inline double* _alloc(Arena* a, int64_t n) noexcept nogil:
    cdef double* p
    if a.used + n > a.size:
        return NULL
    p = a.base + a.used
    a.used += n
    return p


cdef inline void _strategy_rm(const float* regrets, int64_t base, int n_act, int64_t ns,
                              double* out) noexcept nogil:
    """Regret-matching+: each sequence's strategy in proportion to its positive
    regrets (uniform when none is positive); out[s * n_act + a]."""
    cdef int64_t s
    cdef int a
    cdef double tot, r
    cdef const float* row
    for s in range(ns):
        row = regrets + base + s * n_act
        tot = 0.0
        for a in range(n_act):
            r = row[a]
            if r > 0.0:
                tot += r
        if tot > 0.0:
            for a in range(n_act):
                r = row[a]
                out[s * n_act + a] = r / tot if r > 0.0 else 0.0
        else:
            for a in range(n_act):
                out[s * n_act + a] = 1.0 / n_act


cdef inline void _strategy_fixed(const float* policy, int64_t base, int n_act, int64_t ns,
                                 double* out) noexcept nogil:
    cdef int64_t i
    for i in range(ns * n_act):
        out[i] = policy[base + i]


cdef int _walk(const Game* g, const Walk* w, int node, const double* opp, double* val,
               Arena* ar, int phase) noexcept nogil:
    """Counterfactual values of the walker's sequences at ``node`` (into val, n_seq of the
    node's round), given the opponent's reach ``opp`` (n_seq, or 2 x n_seq when the
    opponent is the RNR model player). Returns 0, or -1 when the arena is too small."""
    cdef int kind = g.kind[node]
    cdef int r = g.rnd[node]
    cdef int64_t ns = g.n_seq[r]
    cdef int halves = 2 if (w.model_player >= 0 and w.model_player != w.walker) else 1
    cdef int64_t mark = ar.used
    cdef int64_t s, i, ns1, k
    cdef int a, b, n_act, j, B, child, r1, actor, rc = 0
    cdef double x, tot, best
    cdef double* buf
    cdef double* vals
    cdef double* strat
    cdef double* opp1
    cdef double* v1
    cdef const double* cond
    cdef int64_t base

    if kind == FOLD:
        tot = 0.0
        for i in range(ns * halves):
            tot += opp[i]
        x = g.amount[node]
        if g.actor[node] == w.walker:
            x = -x
        x *= tot
        for s in range(ns):
            val[s] = x
        return 0

    if kind == SHOWDOWN:
        B = g.n_buckets[3]
        buf = _alloc(ar, 2 * B)
        if buf == NULL:
            return -1
        memset(buf, 0, 2 * B * sizeof(double))
        # A sequence's last bucket is its index mod B: walk the vectors in blocks of B
        # (the same additions in the same order as index by index, without a division).
        i = 0
        while i < ns * halves:
            for b in range(B):
                buf[b] += opp[i + b]
            i += B
        for a in range(B):
            tot = 0.0
            for b in range(B):
                tot += (2.0 * g.share[a * B + b] - 1.0) * buf[b]
            buf[B + a] = tot * g.amount[node]
        i = 0
        while i < ns:
            for b in range(B):
                val[i + b] = buf[B + b]
            i += B
        ar.used = mark
        return 0

    if kind == CHANCE:
        child = g.children[g.first[node]]
        r1 = g.rnd[child]
        if r1 == g.split_round and (phase == PHASE_COLLECT or phase == PHASE_APPLY):
            k = g.task_of[node]
            if phase == PHASE_COLLECT:
                memcpy(w.task_reach + k * 2 * w.task_stride, opp, ns * halves * sizeof(double))
                for s in range(ns):
                    val[s] = 0.0
            else:
                memcpy(val, w.task_value + k * w.task_stride, ns * sizeof(double))
            return 0
        B = g.n_buckets[r1]
        ns1 = g.n_seq[r1]
        cond = g.cond[r1]
        opp1 = _alloc(ar, ns1 * halves)
        v1 = _alloc(ar, ns1)
        if opp1 == NULL or v1 == NULL:
            return -1
        for j in range(halves):
            for s in range(ns):
                x = opp[j * ns + s]
                for b in range(B):
                    opp1[j * ns1 + s * B + b] = x * cond[s * B + b]
        rc = _walk(g, w, child, opp1, v1, ar, phase)
        for s in range(ns):
            tot = 0.0
            for b in range(B):
                tot += cond[s * B + b] * v1[s * B + b]
            val[s] = tot
        ar.used = mark
        return rc

    # A decision.
    n_act = g.n_child[node]
    actor = g.actor[node]
    base = g.offset[node]
    strat = _alloc(ar, ns * n_act)
    if strat == NULL:
        return -1
    if actor == w.walker:
        vals = _alloc(ar, ns * n_act)
        if vals == NULL:
            return -1
        for a in range(n_act):
            rc = _walk(g, w, g.children[g.first[node] + a], opp, vals + a * ns, ar, phase)
            if rc:
                return rc
        if w.mode == MODE_BR:
            for s in range(ns):
                best = vals[s]
                j = 0
                for a in range(1, n_act):
                    if vals[a * ns + s] > best:
                        best = vals[a * ns + s]
                        j = a
                val[s] = best
                if w.br_out != NULL and phase != PHASE_COLLECT:
                    for a in range(n_act):
                        w.br_out[base + s * n_act + a] = 1.0 if a == j else 0.0
        else:
            if w.mode == MODE_CFR:
                _strategy_rm(w.regrets, base, n_act, ns, strat)
            else:
                _strategy_fixed(w.policy, base, n_act, ns, strat)
            for s in range(ns):
                tot = 0.0
                for a in range(n_act):
                    tot += strat[s * n_act + a] * vals[a * ns + s]
                val[s] = tot
            if w.mode == MODE_CFR and phase != PHASE_COLLECT:
                for s in range(ns):
                    for a in range(n_act):
                        i = base + s * n_act + a
                        x = w.regrets[i] + vals[a * ns + s] - val[s]
                        w.regrets[i] = <float>(x if x > 0.0 else 0.0)
        ar.used = mark
        return 0

    # The opponent acts.
    if w.mode == MODE_CFR:
        _strategy_rm(w.regrets, base, n_act, ns, strat)
    else:
        _strategy_fixed(w.policy, base, n_act, ns, strat)
    opp1 = _alloc(ar, ns * halves)
    v1 = _alloc(ar, ns)
    if opp1 == NULL or v1 == NULL:
        return -1
    for s in range(ns):
        val[s] = 0.0
    for a in range(n_act):
        if halves == 2:
            # The model part follows the model; the free part its own strategy.
            for s in range(ns):
                opp1[s] = opp[s] * w.model[base + s * n_act + a]
                opp1[ns + s] = opp[ns + s] * strat[s * n_act + a]
        else:
            for s in range(ns):
                opp1[s] = opp[s] * strat[s * n_act + a]
        rc = _walk(g, w, g.children[g.first[node] + a], opp1, v1, ar, phase)
        if rc:
            return rc
        for s in range(ns):
            val[s] += v1[s]
    if w.mode == MODE_CFR and phase != PHASE_COLLECT and w.avg_weight > 0.0:
        if halves == 2:
            pass  # the model player's free part: its average is not wanted
        else:
            for s in range(ns):
                x = opp[s] * w.avg_weight
                if x != 0.0:
                    for a in range(n_act):
                        w.sums[base + s * n_act + a] += x * strat[s * n_act + a]
    ar.used = mark
    return 0


cdef class Solver:
    """The abstract game's arrays, the regrets and average-strategy sums, and the walks.
    Built by agent.engine.equilibrium (which checks every array); not for direct use."""

    cdef Game g
    cdef object _keep
    cdef public object regrets
    cdef public object sums
    cdef float[::1] _regrets
    cdef double[::1] _sums
    cdef int64_t size
    cdef int n_tasks
    cdef int64_t task_stride
    cdef object task_nodes
    cdef int32_t* _task_node_ptr
    cdef int arena_doubles

    def __init__(self, kind, rnd, actor, first, n_child, children, amount, offset,
                 n_buckets, root, cond1, cond2, cond3, share, int split_round, int64_t size):
        cdef int i
        self._keep = [np.ascontiguousarray(kind, dtype=np.int32), np.ascontiguousarray(rnd, dtype=np.int32),
                      np.ascontiguousarray(actor, dtype=np.int32), np.ascontiguousarray(first, dtype=np.int32),
                      np.ascontiguousarray(n_child, dtype=np.int32), np.ascontiguousarray(children, dtype=np.int32),
                      np.ascontiguousarray(amount, dtype=np.float64), np.ascontiguousarray(offset, dtype=np.int64),
                      np.ascontiguousarray(root, dtype=np.float64), np.ascontiguousarray(cond1, dtype=np.float64),
                      np.ascontiguousarray(cond2, dtype=np.float64), np.ascontiguousarray(cond3, dtype=np.float64),
                      np.ascontiguousarray(share, dtype=np.float64)]
        cdef int32_t[::1] k_ = self._keep[0]
        cdef int32_t[::1] r_ = self._keep[1]
        cdef int32_t[::1] a_ = self._keep[2]
        cdef int32_t[::1] f_ = self._keep[3]
        cdef int32_t[::1] n_ = self._keep[4]
        cdef int32_t[::1] c_ = self._keep[5]
        cdef double[::1] m_ = self._keep[6]
        cdef int64_t[::1] o_ = self._keep[7]
        cdef double[::1] root_ = self._keep[8]
        cdef double[::1] c1 = self._keep[9]
        cdef double[::1] c2 = self._keep[10]
        cdef double[::1] c3 = self._keep[11]
        cdef double[::1] sh = self._keep[12]
        self.g.n_nodes = k_.shape[0]
        self.g.kind = &k_[0]
        self.g.rnd = &r_[0]
        self.g.actor = &a_[0]
        self.g.first = &f_[0]
        self.g.n_child = &n_[0]
        self.g.children = &c_[0]
        self.g.amount = &m_[0]
        self.g.offset = &o_[0]
        for i in range(4):
            self.g.n_buckets[i] = int(n_buckets[i])
        self.g.n_seq[0] = self.g.n_buckets[0]
        for i in range(1, 4):
            self.g.n_seq[i] = self.g.n_seq[i - 1] * self.g.n_buckets[i]
        self.g.root = &root_[0]
        self.g.cond[0] = NULL
        self.g.cond[1] = &c1[0]
        self.g.cond[2] = &c2[0]
        self.g.cond[3] = &c3[0]
        self.g.share = &sh[0]
        self.g.split_round = split_round
        self.size = size
        # The chance nodes that start the split round: one task each.
        task_of = np.full(k_.shape[0], -1, dtype=np.int32)
        nodes = []
        for i in range(k_.shape[0]):
            if k_[i] == CHANCE and r_[c_[f_[i]]] == split_round:
                task_of[i] = len(nodes)
                nodes.append(i)
        self._keep.append(task_of)
        cdef int32_t[::1] t_ = task_of
        self.g.task_of = &t_[0]
        self.task_nodes = np.array(nodes, dtype=np.int32)
        self.n_tasks = len(nodes)
        self.task_stride = self.g.n_seq[split_round - 1] if split_round >= 1 else 1
        self.regrets = np.zeros(size, dtype=np.float32)
        self.sums = np.zeros(size, dtype=np.float64)
        self._regrets = self.regrets
        self._sums = self.sums
        # Deepest path: at most 4 rounds of at most 6 actions, plus chance; each level
        # takes at most 3 n_seq + 2 x 2 n_seq (strategy, values, reach, child values).
        self.arena_doubles = <int>(40 * 8 * self.g.n_seq[3] + 4096)
        self._bind_tasks()

    @property
    def n_tasks(self) -> int:
        return self.n_tasks

    def set_state(self, regrets, sums) -> None:
        """Resume: regrets and sums from a checkpoint (same shapes)."""
        regrets = np.ascontiguousarray(regrets, dtype=np.float32)
        sums = np.ascontiguousarray(sums, dtype=np.float64)
        if regrets.shape != (self.size,) or sums.shape != (self.size,):
            raise ValueError(f"a checkpoint of {regrets.shape[0]} entries for a game of {self.size}")
        self.regrets = regrets.copy()
        self.sums = sums.copy()
        self._regrets = self.regrets
        self._sums = self.sums

    cdef int _run(self, Walk* w, double* root_value, int threads) except -1:
        """One walk of the walker over the whole game: root_value[b] for each first
        bucket b of the walker (its counterfactual value, chance of b not included)."""
        cdef int n0 = self.g.n_buckets[0]
        cdef int64_t stride = self.task_stride
        cdef int k, rc = 0, tid, node
        cdef int halves = 2 if (w.model_player >= 0 and w.model_player != w.walker) else 1
        cdef double* reach0 = <double*>malloc(2 * n0 * sizeof(double))
        cdef Arena* arenas = <Arena*>malloc(threads * sizeof(Arena))
        cdef int* codes = <int*>malloc(self.n_tasks * sizeof(int) + sizeof(int))
        cdef double* task_reach = <double*>malloc(self.n_tasks * 2 * stride * sizeof(double) + 8)
        cdef double* task_value = <double*>malloc(self.n_tasks * stride * sizeof(double) + 8)
        cdef int i
        cdef int32_t* task_nodes = self._task_node_ptr
        if reach0 == NULL or arenas == NULL or codes == NULL or task_reach == NULL or task_value == NULL:
            free(reach0); free(arenas); free(codes); free(task_reach); free(task_value)
            raise MemoryError()
        for i in range(threads):
            arenas[i].base = NULL
        try:
            for i in range(threads):
                arenas[i].base = <double*>malloc(self.arena_doubles * sizeof(double))
                arenas[i].size = self.arena_doubles
                arenas[i].used = 0
                if arenas[i].base == NULL:
                    raise MemoryError()
            w.task_reach = task_reach
            w.task_value = task_value
            w.task_stride = stride
            for i in range(n0):
                if halves == 2:
                    reach0[i] = self.g.root[i] * w.p_model
                    reach0[n0 + i] = self.g.root[i] * (1.0 - w.p_model)
                else:
                    reach0[i] = self.g.root[i]
            if self.n_tasks == 0:
                with nogil:
                    rc = _walk(&self.g, w, 0, reach0, root_value, &arenas[0], PHASE_WHOLE)
            else:
                with nogil:
                    rc = _walk(&self.g, w, 0, reach0, root_value, &arenas[0], PHASE_COLLECT)
                if rc == 0:
                    for k in prange(self.n_tasks, nogil=True, num_threads=threads, schedule="dynamic"):
                        tid = openmp.omp_get_thread_num()
                        arenas[tid].used = 0
                        codes[k] = _walk(&self.g, w, task_nodes[k], task_reach + k * 2 * stride,
                                         task_value + k * stride, &arenas[tid], PHASE_TASK)
                    for k in range(self.n_tasks):
                        if codes[k]:
                            rc = codes[k]
                if rc == 0:
                    arenas[0].used = 0
                    with nogil:
                        rc = _walk(&self.g, w, 0, reach0, root_value, &arenas[0], PHASE_APPLY)
            if rc:
                raise MemoryError("the walk's scratch arena is too small")
        finally:
            for i in range(threads):
                free(arenas[i].base)
            free(arenas); free(reach0); free(codes); free(task_reach); free(task_value)
        return 0

    def _bind_tasks(self) -> None:
        cdef int32_t[::1] t = self.task_nodes
        if self.n_tasks:
            self._task_node_ptr = &t[0]

    def iterate(self, int iterations, int first_iteration, int delay, int threads=1,
                model=None, double p=0.0, int model_player=-1) -> None:
        """``iterations`` CFR+ iterations numbered from ``first_iteration`` (1-based; the
        average weight of iteration t is max(0, t - delay)). With ``model`` (an action
        probability per entry, like the strategy) for ``model_player``: the p-restricted
        Nash response, the model player's reach split between the model (p) and its own
        learning strategy (1 - p)."""
        cdef Walk w
        cdef int t, player
        cdef double* value = <double*>malloc(self.g.n_buckets[0] * sizeof(double))
        cdef float[::1] m
        if value == NULL:
            raise MemoryError()
        if threads < 1:
            raise ValueError("threads must be at least 1")
        self._bind_tasks()
        w.mode = MODE_CFR
        w.regrets = &self._regrets[0]
        w.sums = &self._sums[0]
        w.policy = NULL
        w.model_player = -1
        w.model = NULL
        w.p_model = 0.0
        w.br_out = NULL
        if model is not None:
            m = np.ascontiguousarray(model, dtype=np.float32)
            if m.shape[0] != self.size or model_player not in (0, 1) or not 0.0 <= p <= 1.0:
                free(value)
                raise ValueError("a model needs one entry per strategy entry, a player 0/1 and 0 <= p <= 1")
            w.model_player = model_player
            w.model = &m[0]
            w.p_model = p
        try:
            for t in range(first_iteration, first_iteration + iterations):
                w.avg_weight = <double>(t - delay) if t > delay else 0.0
                for player in range(2):
                    w.walker = player
                    self._run(&w, value, threads)
        finally:
            free(value)

    def best_response_values(self, policy, int threads=1) -> tuple:
        """(v0, v1): the value of a best response of player 0 to ``policy``'s player 1,
        and of player 1 to its player 0, each averaged over chance (in the units of the
        game's amounts)."""
        return self._values(policy, MODE_BR, threads)

    def profile_values(self, policy, int threads=1) -> tuple:
        """(v0, v1): each player's expected value when both play ``policy``."""
        return self._values(policy, MODE_EVAL, threads)

    def best_response(self, policy, int player, int threads=1):
        """A best response of ``player`` to ``policy``'s other player: (its value, a
        strategy array that puts probability 1 on a best action at each of that
        player's information sets and copies ``policy`` elsewhere)."""
        out = np.array(policy, dtype=np.float32, copy=True)
        value = self._values(policy, MODE_BR, threads, out, player)
        return value[0], out

    def _values(self, policy, int mode, int threads, br_out=None, int only=-1) -> tuple:
        cdef Walk w
        cdef float[::1] br_view
        cdef float[::1] pol = np.ascontiguousarray(policy, dtype=np.float32)
        cdef int n0 = self.g.n_buckets[0]
        cdef double* value = <double*>malloc(n0 * sizeof(double))
        cdef int player, i
        cdef double total
        if value == NULL:
            raise MemoryError()
        if pol.shape[0] != self.size:
            free(value)
            raise ValueError(f"a policy of {pol.shape[0]} entries for a game of {self.size}")
        self._bind_tasks()
        w.mode = mode
        w.regrets = NULL
        w.sums = NULL
        w.policy = &pol[0]
        w.model_player = -1
        w.model = NULL
        w.p_model = 0.0
        w.avg_weight = 0.0
        w.br_out = NULL
        if br_out is not None:
            br_view = br_out
            w.br_out = &br_view[0]
        out = []
        try:
            for player in range(2):
                if only >= 0 and player != only:
                    continue
                w.walker = player
                self._run(&w, value, threads)
                total = 0.0
                for i in range(n0):
                    total += self.g.root[i] * value[i]
                out.append(total)
        finally:
            free(value)
        return tuple(out)
