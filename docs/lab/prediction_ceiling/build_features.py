"""Feature matrix of every decision of the hands started before 1995-04-20 (never later:
the held-out part is not even read), in one pass over a stored replay.

X: the shipped learned predictor's 420 inputs (agent.models.learned.hand_features, exactly
   what db.learned.decisions calls, with the models rebuilt from empty the same way).
E: the earlier analysis' seat/table and recent-history columns (docs/prediction.md, "What else was tried there"), 28.
R: the back-off ingredients of the decision's round, 10 -- kept
   for the active round only (the per-round spread is rebuilt for the logistic model).
B: the bettor's style of the decision's round, 8, same.
M: seq, ord, player id, round, coarse context, class, start time, order key, seated,
   position, bets to call, acted-this-round flag.

usage: python build_features.py DB OUT.npz
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("CEILING_WORK", "out/ceiling")
OUT = os.path.join(WORK, "out"); os.makedirs(OUT, exist_ok=True)
import math
import sys
import time
from itertools import groupby

import numpy as np

from agent.game.context import order_key
from agent.models.frequencies import Decay, PlayerState
from agent.models.learned import hand_features, player_stats
from agent.models.prediction import DEFAULT_STRENGTHS, DEFAULT_TRIPLES, Predictor
from db.opening import open_read_only

T20 = 798336000.0  # 1995-04-20 00:00 UTC: nothing from here on is read

t0 = time.process_time()
conn = open_read_only(sys.argv[1])
out = sys.argv[2]
last_seq = conn.execute("SELECT max(seq) FROM hands WHERE started_at < ?", (T20,)).fetchone()[0]
# seq order is start-time order in this file (checked: no inversions, no NULL times), so
# every hand with seq <= last_seq started before 04-20 and no later hand is touched.
predictor = Predictor(Decay(500), DEFAULT_STRENGTHS)
fac, pfac = predictor.factor, predictor.pop_factor
states, pops = {}, {}
hands = conn.execute("SELECT seq, network, started_at, small_bet, big_bet FROM hands WHERE seq <= ? ORDER BY seq",
                     (last_seq,)).fetchall()
assert all(h[2] is not None and h[2] < T20 for h in hands)
seats = {k: [(r[1], r[2], r[3]) for r in g] for k, g in groupby(conn.execute(
    "SELECT hand, player, position, stack FROM seats WHERE hand <= ? ORDER BY hand, position", (last_seq,)),
    key=lambda r: r[0])}
acts = {k: list(g) for k, g in groupby(conn.execute(
    "SELECT hand, ord, player, round, kind, amount, bets_to_call, raises, position, players_active, all_in,"
    " context, fine_context FROM actions WHERE hand <= ? ORDER BY hand, ord", (last_seq,)), key=lambda r: r[0])}
res = {k: {r[1]: (r[2], r[3]) for r in g} for k, g in groupby(conn.execute(
    "SELECT hand, player, put_in, won FROM results WHERE hand <= ? ORDER BY hand", (last_seq,)), key=lambda r: r[0])}
CL = {"f": 0, "k": 1, "c": 1, "b": 2, "r": 2}


class Hist:
    """The player's recent history (study.py)."""
    __slots__ = ("short", "vshort", "lastctx", "prev_vol", "prev_net", "prev_t", "session", "pf_short", "hands",
                 "last_pf")

    def __init__(s):
        s.short = [0.0, 0.0, 0.0]
        s.vshort = [0.0, 0.0]
        s.lastctx = [0] * 12
        s.prev_vol = 0.0
        s.prev_net = 0.0
        s.prev_t = None
        s.session = 0
        s.hands = 0
        s.pf_short = [0.0, 0.0, 0.0]
        s.last_pf = 0


def dec(cc, now, f):
    if cc is None:
        return 0.0, 0.0, 0.0
    k = 1.0 if cc.ref == now else f ** (now - cc.ref)
    return cc.f * k, cc.c * k, cc.r * k


hist = {}
K20 = 0.5 ** (1 / 20)
K10 = 0.5 ** (1 / 10)
Xs, Es, Rs, Bs, Ms = [], [], [], [], []
for seq, network, t, sb, bb in hands:
    st_rows = seats.get(seq, [])
    if not st_rows:
        continue
    pids = [r[0] for r in st_rows]
    index = {p: i for i, p in enumerate(pids)}
    n = len(pids)
    hs = [states.setdefault(p, PlayerState()) for p in pids]
    pop = pops.setdefault(network, PlayerState())
    A = [(a[1], index[a[2]], *a[3:]) for a in acts.get(seq, []) if a[2] in index]
    feats = hand_features(A, n, sb, bb, hs, pop, predictor)
    stacks = [r[2] for r in st_rows]
    med = sorted(stacks)[n // 2] or 1
    hh = [hist.setdefault(p, Hist()) for p in pids]
    folded_round = 0
    rnd = -1
    acted = set()
    i = 0
    aggressor = None
    agg_pos = None
    agg_is_blind = False
    bstats = {}
    for a in A:
        o, seat, r, kind, amount, btc, raises, pos, active, allin, ctx, fine = a
        if r != rnd:
            rnd = r
            folded_round = 0
            acted = set()
            aggressor = None
        if kind == "bb":
            aggressor = seat
            agg_pos = pos
        if kind not in ("sb", "bb"):
            s2, c2, r2, cls, x = feats[i]
            i += 1
            assert s2 == seat and r2 == r
            h = hh[seat]
            e = np.zeros(28)
            okey = order_key(pos, n, r)
            e[0] = folded_round / 4.0
            e[1] = 1.0 if pos == 1 and n > 2 else 0.0
            e[2] = 1.0 if pos == 2 or (n == 2 and pos == 1) else 0.0
            e[3] = (n - 1 - okey) / 9.0
            e[4] = 1.0 if pos == n else 0.0
            e[5] = math.log1p(stacks[seat] / bb) / 5.0
            e[6] = math.log(max(stacks[seat], 1) / med)
            e[7] = math.log(sb) / 5.0
            tot = sum(h.short) + 2.0
            e[8] = (h.short[0] + 0.7) / tot
            e[9] = (h.short[1] + 0.9) / tot
            e[10] = (h.short[2] + 0.4) / tot
            e[11] = (h.vshort[0] + 1) / (h.vshort[0] + h.vshort[1] + 3)
            e[12 + h.lastctx[ctx]] = 1.0
            e[16] = h.prev_vol
            e[17] = max(-3, min(3, h.prev_net / bb / 3))
            e[18] = math.log1p(h.session) / 5.0
            gap = (t - h.prev_t) / 60.0 if h.prev_t is not None else 999
            e[19] = math.log1p(min(gap, 999)) / 7.0
            tot2 = sum(h.pf_short) + 1.5
            e[20] = (h.pf_short[0] + 0.5) / tot2
            e[21] = (h.pf_short[2] + 0.3) / tot2
            e[22 + h.last_pf] = 1.0
            e[26] = 1.0 if allin else 0.0
            e[27] = 1.0 if seat in acted else 0.0
            # back-off ingredients (study2.py), this round only
            st = hs[seat]
            d = [max(q, 0.01) for q in DEFAULT_TRIPLES[ctx]]
            rr = np.zeros(10)
            u = dec(pop.fine.get(fine), pop.hands, pfac)
            nu = sum(u)
            xx = dec(st.fine.get(fine), st.hands, fac)
            nx = sum(xx)
            yy = dec(st.contexts[ctx], st.hands, fac)
            ny = sum(yy)
            for k in range(3):
                rr[k] = math.log((u[k] + 2 * d[k]) / (nu + 2))
                rr[3 + k] = math.log((yy[k] + 2 * d[k]) / (ny + 2))
                rr[6 + k] = math.log((xx[k] + 2 * d[k]) / (nx + 2))
            rr[9] = math.log1p(nu) / 10
            # the bettor's style (study3.py), this round only
            bv = np.zeros(8)
            if aggressor is not None and aggressor != seat and btc > 0:
                sa = bstats.get(aggressor)
                if sa is None:
                    sa = bstats[aggressor] = player_stats(hs[aggressor], fac)
                loose, aggr = sa
                bv[0] = 1.0
                bv[1] = aggr - 0.3
                bv[2] = loose - 0.5
                bv[3] = math.log1p(hs[aggressor].hands) / 8
                bv[4] = ((okey - order_key(agg_pos, n, r)) % n) / 9.0
                bv[5] = 1.0 if agg_is_blind else 0.0
                bv[6] = (aggr - 0.3) * btc
                bv[7] = 1.0 if btc >= 2 else 0.0
            Xs.append(x.astype(np.float32))
            Es.append(e.astype(np.float32))
            Rs.append(rr.astype(np.float32))
            Bs.append(bv.astype(np.float32))
            Ms.append((seq, o, pids[seat], r, ctx, cls, t, okey, n, pos, btc, 1.0 if seat in acted else 0.0))
            # recent history is updated after each decision (the walker's view of the hand)
            if r == 0 and btc >= 1:
                for k in range(3):
                    h.short[k] *= K20
                h.short[cls] += 1
            for k in range(3):
                h.pf_short[k] *= K10
            h.pf_short[cls] += 1
            h.lastctx[ctx] = cls + 1
            if r == 0:
                h.last_pf = cls + 1
            acted.add(seat)
        if kind in ("b", "r"):
            aggressor = seat
            agg_pos = pos
            agg_is_blind = False
        elif kind == "bb":
            agg_is_blind = True
        if kind == "f":
            folded_round += 1
    assert i == len(feats)
    obs = [(a[1], a[10], CL[a[3]], a[11]) for a in A if a[3] in CL]
    predictor.advance(hs, pop, obs)
    rres = res.get(seq, {})
    for j, p in enumerate(pids):
        h = hh[j]
        vol = any(a[1] == j and a[3] in ("c", "b", "r") for a in A)
        h.vshort[0] *= K20
        h.vshort[1] *= K20
        h.vshort[0 if vol else 1] += 1
        h.prev_vol = 1.0 if vol else 0.0
        pi, w = rres.get(p, (0, 0))
        h.prev_net = w - pi
        if h.prev_t is not None and t - h.prev_t < 30 * 60:
            h.session += 1
        else:
            h.session = 0
        h.prev_t = t
        h.hands += 1
np.savez(out, X=np.vstack(Xs), E=np.vstack(Es), R=np.vstack(Rs), B=np.vstack(Bs), M=np.array(Ms, dtype=np.float64))
print(len(Xs), "decisions of", len(hands), "hands; last seq", last_seq, f"cpu {time.process_time() - t0:.1f}s")
