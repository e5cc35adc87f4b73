"""The shipped logistic model (agent.models.learned.fit, l2 3e-5) refitted here on the same
matrices the GBM sees, so the comparison is like for like. Saves tuning-slice probabilities.
With the argument `inner`: its figures on the GBM's inner validation instead (fitted on the
fitting window's first nine tenths, scored on its last tenth), a reference for the grid."""
import sys
import time

import numpy as np
from common import (  # the study's shared data and helpers (common.py)
    OUT,
    features,
    fitw,
    inner_tr,
    inner_va,
    line,
    tune,
    tune_a,
    tune_b,
    y,
)

from agent.models.learned import _softmax, fit  # after sys.path is set above

if sys.argv[1:] == ["inner"]:
    for fs in ("a", "b_lin"):
        F = features(fs)
        t0 = time.process_time()
        w = fit(F[inner_tr].astype(np.float64), y[inner_tr], 3e-5)
        P = _softmax(F[inner_va].astype(np.float64) @ w.T)
        print(f"logistic {fs}: inner validation {line(P, y[inner_va])} (cpu {time.process_time() - t0:.0f}s)", flush=True)
    sys.exit()
for fs in ("a", "b_lin"):
    F = features(fs)
    for label, trm, tem in (("main", fitw, tune), ("upper", fitw | tune_a, tune_b)):
        t0 = time.process_time()
        w = fit(F[trm].astype(np.float64), y[trm], 3e-5)
        cpu = time.process_time() - t0
        P = _softmax(F[tem].astype(np.float64) @ w.T)
        np.save(f"{OUT}/P_logit_{fs}_{label}.npy", P)
        print(f"logistic {fs} {label}: fit rows {trm.sum()} cpu {cpu:.1f}s  scored {tem.sum()}: {line(P, y[tem])}", flush=True)
