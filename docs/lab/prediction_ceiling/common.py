"""Shared loading, splits and metrics for the research scripts (tuning slice only)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("CEILING_WORK", "out/ceiling")  # the features and every output
OUT = os.path.join(WORK, "out"); os.makedirs(OUT, exist_ok=True)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # the repository
import numpy as np

sys.path[:0] = [p for p in (os.environ.get("SKLEARN_PATH", ""), ROOT) if p]
from agent.models.learned import mean_loglik  # the shadow scorer's log-likelihood (floored 0.001)

T15, T20 = 797904000.0, 798336000.0  # 1995-04-15, 1995-04-20 00:00 UTC
D = np.load(os.path.join(WORK, "feat.npz"))
X, E, R, B, M = D["X"], D["E"], D["R"], D["B"], D["M"]
seq = M[:, 0].astype(int); pid = M[:, 2].astype(int); rnd = M[:, 3].astype(int); ctx = M[:, 4].astype(int)
y = M[:, 5].astype(int); t = M[:, 6]; btc = M[:, 10].astype(int); acted = M[:, 11] > 0
assert np.all(t < T20)  # the held-out part was never built
fitw = t < T15                      # fitting window: hands before 04-15
tune = (t >= T15) & (t < T20)       # tuning slice: 04-15 .. 04-20
# inner validation: the fitting window's last tenth of hands by time (seq order = time order)
fit_seqs = np.unique(seq[fitw])
cut_seq = fit_seqs[int(len(fit_seqs) * 0.9)]
inner_tr = fitw & (seq < cut_seq)
inner_va = fitw & (seq >= cut_seq)
# the tuning slice halves by time (hands)
tune_seqs = np.unique(seq[tune])
half_seq = tune_seqs[len(tune_seqs) // 2]
tune_a = tune & (seq < half_seq)
tune_b = tune & (seq >= half_seq)


def per_round(C):
    out = np.zeros((len(C), 4 * C.shape[1]), np.float32)
    for r in range(4):
        m = rnd == r
        out[m, r * C.shape[1]:(r + 1) * C.shape[1]] = C[m]
    return out


def features(name):
    """'a': the 420 shipped inputs; 'b': those plus the extras (active round only, for trees);
    'b_lin': the extras spread per round as the earlier logistic analysis had them (604)."""
    if name == "a":
        return X
    if name == "b":
        return np.hstack([X, E, R, B, rnd[:, None].astype(np.float32)])
    if name == "b_lin":
        return np.hstack([X, per_round(E), per_round(R), per_round(B)])
    raise ValueError(name)


def names(name):
    from agent.models.learned import feature_names
    base = feature_names()
    if name == "a":
        return base
    en = ["folds_before_this_round", "small_blind", "big_blind", "seats_behind", "button", "log_stack_bb",
          "stack_vs_median", "log_small_bet", "hist_pf_bet_fold", "hist_pf_bet_call", "hist_pf_bet_raise",
          "hist_vpip", "lastctx_none", "lastctx_fold", "lastctx_call", "lastctx_raise", "prev_hand_voluntary",
          "prev_hand_net", "session_hands", "minutes_since_last", "hist_all_fold", "hist_all_raise",
          "last_pf_none", "last_pf_fold", "last_pf_call", "last_pf_raise", "all_in", "acted_this_round"]
    rn = [f"raw_pop_fine_{a}" for a in "fcr"] + [f"raw_pl_coarse_{a}" for a in "fcr"] + \
         [f"raw_pl_fine_{a}" for a in "fcr"] + ["raw_pop_fine_n"]
    bn = ["bettor_present", "bettor_aggr", "bettor_loose", "bettor_hands", "bettor_distance", "bettor_is_blind",
          "bettor_aggr_x_btc", "facing_2plus"]
    return base + en + rn + bn + ["round"]


def acc(P, yy):
    top = P.max(1, keepdims=True)
    tied = P >= top - 1e-12
    return float(np.mean(tied[np.arange(len(yy)), yy] / tied.sum(1)))


def line(P, yy):
    return f"{acc(P, yy):.4f} / {mean_loglik(P, yy):.4f}"
