"""HistGradientBoostingClassifier on the decisions (tuning slice only, never the held-out part).

  gbm.py grid FS LR LEAVES L2 MINLEAF   fit on the fitting window's first 9/10 (by time),
                                        early stopping on its last tenth; prints the inner
                                        validation loss (the only thing settings are chosen on)
  gbm.py final FS LR LEAVES L2 MINLEAF  the same, then refitted on the whole fitting window
                                        with the iteration count found, scored on the tuning
                                        slice (probabilities saved)
  gbm.py final FS LR LEAVES L2 MINLEAF N  (N given: skip the inner fit, refit with N trees)
  gbm.py upper FS LR LEAVES L2 MINLEAF N  the fitting window plus the tuning slice's earlier
                                        half, N trees (the main refit's count), no early
                                        stopping, scored on the tuning slice's later half
FS: a (420 shipped inputs) or b (those + the earlier analysis' extras).
"""
import json
import os
import sys
import time

import numpy as np
from common import (  # the study's shared data and helpers (common.py)
    OUT,
    features,
    fitw,
    line,
    mean_loglik,
    seq,
    tune,
    tune_a,
    tune_b,
    y,
)
from sklearn.ensemble import HistGradientBoostingClassifier  # after sys.path is set above

mode, fs = sys.argv[1], sys.argv[2]
lr, leaves, l2, minleaf = float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
F = features(fs)
tag = f"{fs}_lr{lr}_lv{leaves}_l2{l2}_ml{minleaf}"


def model(max_iter, early):
    return HistGradientBoostingClassifier(
        learning_rate=lr, max_leaf_nodes=leaves, l2_regularization=l2, min_samples_leaf=minleaf,
        max_iter=max_iter, early_stopping=early, n_iter_no_change=20, tol=1e-7, scoring="loss",
        random_state=0)


if mode == "upper":
    whole = fitw | tune_a
    scored = tune_b
else:
    whole = fitw
    scored = tune
# inner split of the fitting data: its last tenth of hands by time validates
ws = np.unique(seq[whole])
cut = ws[int(len(ws) * 0.9)]
itr, iva = whole & (seq < cut), whole & (seq >= cut)
given = int(sys.argv[7]) if len(sys.argv) > 7 else None
if given is not None:
    t0 = time.process_time()
    g2 = model(given, False)
    g2.fit(F[whole], y[whole])
    cpu2 = time.process_time() - t0
    P = g2.predict_proba(F[scored])
    np.save(f"{OUT}/P_gbm_{mode}_{tag}.npy", P)
    import pickle
    with open(f"{OUT}/gbm_{mode}_{tag}.pkl", "wb") as fh:
        pickle.dump(g2, fh)
    res = {"mode": mode, "tag": tag, "refit_rows": int(whole.sum()), "refit_iter": int(g2.n_iter_),
           "cpu_refit": round(cpu2, 1), "scored_rows": int(scored.sum()), "scored": line(P, y[scored])}
    print(json.dumps(res), flush=True)
    with open(os.path.join(OUT, "gbm_runs.jsonl"), "a") as fh:
        fh.write(json.dumps(res) + "\n")
    sys.exit(0)
t0 = time.process_time()
g = model(2000, True)
g.fit(F[itr], y[itr], X_val=F[iva], y_val=y[iva])
cpu1 = time.process_time() - t0
Pv = g.predict_proba(F[iva])
res = {"mode": mode, "tag": tag, "n_iter": int(g.n_iter_), "inner_rows": int(itr.sum()), "val_rows": int(iva.sum()),
       "inner_val": line(Pv, y[iva]), "inner_val_ll": mean_loglik(Pv, y[iva]), "cpu_inner": round(cpu1, 1)}
print(json.dumps(res), flush=True)
if mode in ("final", "upper"):
    t0 = time.process_time()
    g2 = model(max(1, int(round(g.n_iter_ * 1.1))), False)  # 10% more rows, 10% more trees
    g2.fit(F[whole], y[whole])
    cpu2 = time.process_time() - t0
    P = g2.predict_proba(F[scored])
    P1 = g.predict_proba(F[scored])  # the early-stopped model without the refit, for reference
    np.save(f"{OUT}/P_gbm_{mode}_{tag}.npy", P)
    np.save(f"{OUT}/P_gbm_{mode}_{tag}_norefit.npy", P1)
    import pickle
    with open(f"{OUT}/gbm_{mode}_{tag}.pkl", "wb") as fh:
        pickle.dump(g2, fh)
    res.update({"refit_rows": int(whole.sum()), "refit_iter": int(g2.n_iter_), "cpu_refit": round(cpu2, 1),
                "scored_rows": int(scored.sum()), "scored": line(P, y[scored]), "scored_norefit": line(P1, y[scored])})
    print(json.dumps(res), flush=True)
with open(os.path.join(OUT, "gbm_runs.jsonl"), "a") as fh:
    fh.write(json.dumps(res) + "\n")
