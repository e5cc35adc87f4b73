"""Interactions test (usage: additive.py [a|b], default b): the chosen GBM setting of set b with no interactions allowed
(interaction_cst='no_interactions': every tree uses one input -- an additive model with free
shapes), fitted on the fitting window's first nine tenths with early stopping on its last
tenth, like the grid; also scored on the tuning slice (no refit) beside the full GBM fitted
the same way."""
import json
import sys
import time

from common import (  # the study's shared data and helpers (common.py)
    features,
    inner_tr,
    inner_va,
    line,
    tune,
    y,
)
from sklearn.ensemble import HistGradientBoostingClassifier  # after sys.path is set above

FS = sys.argv[1] if len(sys.argv) > 1 else "b"
F = features(FS)
for cst in ("no_interactions", None):
    t0 = time.process_time()
    g = HistGradientBoostingClassifier(learning_rate=0.1, max_leaf_nodes=31, l2_regularization=1.0,
                                       min_samples_leaf=100, max_iter=2000, early_stopping=True, n_iter_no_change=20,
                                       tol=1e-7, scoring="loss", random_state=0, interaction_cst=cst)
    g.fit(F[inner_tr], y[inner_tr], X_val=F[inner_va], y_val=y[inner_va])
    cpu = time.process_time() - t0
    print(json.dumps({"set": FS, "interaction_cst": cst, "n_iter": int(g.n_iter_), "cpu": round(cpu, 1),
                      "inner_val": line(g.predict_proba(F[inner_va]), y[inner_va]),
                      "tuning_slice_no_refit": line(g.predict_proba(F[tune]), y[tune])}), flush=True)
