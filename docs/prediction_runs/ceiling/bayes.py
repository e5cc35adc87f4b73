"""The Bayes-rate view of pre-flop first decisions (tuning slice only): for players with many
such decisions, an oracle that knows the player's own fold/call/raise shares over the WHOLE
tuning slice (in-sample: it has seen the very decisions it predicts) -- a bound for any
predictor that sees neither the cards nor anything finer than (player, context).
Finer oracles split by position too (in-sample, and leave-one-out for an honest figure).
usage: bayes.py [GBM probabilities .npy of the tuning slice]"""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
exec(open(os.path.join(HERE, "common.py")).read())

P_log = np.load(os.path.join(OUT, "P_logit_a_main.npy"))
extra = [(p.split("/")[-1], np.load(p)) for p in sys.argv[1:]]
first = (rnd == 0) & ~acted
sb = E[:, 1] > 0
behind = np.round(E[:, 3] * 9).astype(int)
band = np.where(sb, 0, np.where(behind == 0, 1, np.where(behind <= 2, 2, np.where(behind <= 5, 3, 4))))
from agent.models.learned import _O_NUMERIC
cal = np.minimum(np.round(X[:, _O_NUMERIC + 2] * 4), 2).astype(int)  # pre-flop callers (round 0 numeric block)
tv = np.flatnonzero(tune)
pos_in_tune = np.full(len(y), -1)
pos_in_tune[tv] = np.arange(len(tv))


def oracle(mask, keys, loo=False):
    """Accuracy / log-likelihood of predicting each decision by its cell's shares over mask."""
    idx = np.flatnonzero(mask)
    k = np.unique(np.column_stack([kk[idx] for kk in keys]), axis=0, return_inverse=True)[1].ravel()
    C = np.zeros((k.max() + 1, 3))
    np.add.at(C, (k, y[idx]), 1)
    Q = C[k].copy()
    if loo:  # leave the decision itself out, light prior to the slice's shares in the context
        Q[np.arange(len(idx)), y[idx]] -= 1
        prior = np.bincount(y[idx], minlength=3) / len(idx)
        Q = Q + 1.0 * prior
    Q = Q / Q.sum(1, keepdims=True)
    return line(Q, y[idx]), len(C)


print("decisions | n | players | logistic (shipped inputs) | " + " | ".join(n for n, _ in extra) +
      " | oracle: player x context (in-sample) | player x context x position band (in-sample) | same, leave-one-out")
for label, cm in (("pre-flop first decisions, all contexts", first), ("pre-flop first decisions facing one bet", first & (ctx == 1)),
                  ("  of which not the small blind", first & (ctx == 1) & ~sb)):
    for minn in (100, 300):
        m0 = tune & cm
        cnt = np.bincount(pid[m0], minlength=pid.max() + 1)
        m = m0 & (cnt[pid] >= minn)
        ii = pos_in_tune[m]
        o1, n1 = oracle(m, [pid, ctx])
        o2, n2 = oracle(m, [pid, ctx, band])
        o3, _ = oracle(m, [pid, ctx, band], loo=True)
        cols = [line(P_log[ii], y[m])] + [line(P[ii], y[m]) for _, P in extra]
        print(f"{label}, players with {minn}+ | {m.sum()} | {len(np.unique(pid[m]))} | " + " | ".join(cols) +
              f" | {o1} | {o2} ({n2} cells) | {o3}")
