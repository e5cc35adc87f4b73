"""Permutation importance on the tuning slice, by groups of inputs (each group's columns
permuted together across the slice's rows, seeded), for a saved GBM and for the logistic
model refitted on the same inputs. usage: perm.py FS GBM_PICKLE"""
import pickle
import re
import sys
import time

import numpy as np
from common import (  # the study's shared data and helpers (common.py)
    acc,
    ctx,
    features,
    fitw,
    mean_loglik,
    names,
    tune,
    y,
)

from agent.models.learned import _softmax, fit  # after sys.path is set above

fs, pk = sys.argv[1], sys.argv[2]
F = features(fs)[tune].astype(np.float64)
nm = names(fs)
yt = y[tune]
m1 = ctx[tune] == 1


def group(n):
    n = re.sub(r"^(preflop|flop|turn|river):", "", n)
    n = re.sub(r"^ctx\d+:", "", n)
    n = re.sub(r"=.*$", "", n)
    if re.fullmatch(r"ctx\d+", n):
        return "coarse context"
    n = re.sub(r"backoff_logp_.*", "backoff_logp", n)
    n = re.sub(r"twelve_logp_.*", "twelve_logp", n)
    n = re.sub(r"backoff_.*_x_seen", "backoff_x_seen", n)
    n = re.sub(r"^(hist_pf_bet|hist_all|raw_pop_fine|raw_pl_coarse|raw_pl_fine|lastctx|last_pf)_.*", r"\1", n)
    return n


groups = {}
for j, n in enumerate(nm):
    groups.setdefault(group(n), []).append(j)
with open(pk, "rb") as fh:
    g = pickle.load(fh)
t0 = time.process_time()
w = fit(features(fs)[fitw].astype(np.float64), y[fitw], 3e-5) if fs == "a" else None
rng = np.random.default_rng(16)
perm = rng.permutation(len(yt))
base_g = g.predict_proba(F)
out = [("(none)", base_g, None if w is None else _softmax(F @ w.T))]
for name, cols in groups.items():
    Fp = F.copy()
    Fp[:, cols] = F[perm][:, cols]
    out.append((name, g.predict_proba(Fp), None if w is None else _softmax(Fp @ w.T)))
print(f"cpu {time.process_time() - t0:.0f}s; {len(groups)} groups")


def score(P):
    return acc(P, yt), mean_loglik(P, yt), acc(P[m1], yt[m1]), mean_loglik(P[m1], yt[m1])


b0 = score(base_g)
l0 = score(out[0][2]) if w is not None else None
rows = []
for name, Pg, Pl in out[1:]:
    sg = score(Pg)
    dg = [b0[i] - sg[i] for i in range(4)]
    dl = [l0[i] - score(Pl)[i] for i in range(4)] if w is not None else None
    rows.append((dg[1], name, len(groups[name]), dg, dl))
rows.sort(reverse=True)
print(f"base GBM {b0}; base logistic {l0}")
print("| input group | columns | GBM: drop acc / loglik (all) | GBM: drop acc / loglik (pf 1 bet) |" +
      (" logistic: drop acc / loglik (all) | logistic: (pf 1 bet) |" if w is not None else ""))
print("| --- | ---: | ---: | ---: |" + (" ---: | ---: |" if w is not None else ""))
for _, name, k, dg, dl in rows:
    s = f"| {name} | {k} | {dg[0]*100:+.2f} / {dg[1]:+.4f} | {dg[2]*100:+.2f} / {dg[3]:+.4f} |"
    if dl is not None:
        s += f" {dl[0]*100:+.2f} / {dl[1]:+.4f} | {dl[2]*100:+.2f} / {dl[3]:+.4f} |"
    print(s)
