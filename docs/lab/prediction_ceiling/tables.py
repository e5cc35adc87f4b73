"""Tables of the report from the saved tuning-slice probabilities (one metric code for all).
usage: tables.py GBM_A_TAG GBM_B_TAG   (tags as in out/P_gbm_final_<tag>.npy; '-' to skip)"""
import os
import sys

import numpy as np
from common import (  # the study's shared data and helpers (common.py)
    OUT,
    acted,
    ctx,
    line,
    rnd,
    tune,
    tune_b,
    y,
)

O = OUT + "/"
ga, gb = sys.argv[1], sys.argv[2]
cols = [("logistic, 420", np.load(O + "P_logit_a_main.npy")), ("logistic, 604 (+extras)", np.load(O + "P_logit_b_lin_main.npy"))]
for name, tag in (("GBM, 420", ga), ("GBM, 467 (+extras)", gb)):
    if tag != "-":
        cols.append((name, np.load(O + f"P_gbm_final_{tag}.npy")))
yt, rt, ct = y[tune], rnd[tune], ctx[tune]
first = ((rnd == 0) & ~acted)[tune]
rows = [("**all**", np.ones(len(yt), bool))] + [(r, rt == i) for i, r in enumerate(("preflop", "flop", "turn", "river"))]
rows += [("pre-flop facing one bet", ct == 1), ("  first decision", (ct == 1) & first),
         ("  already acted (facing a raise)", (ct == 1) & ~first)]
names_ctx = [f"{r}, {b}" for r in ("preflop", "flop", "turn", "river") for b in ("0 bets", "1 bet", "2+ bets")]
rows += [(n, ct == i) for i, n in enumerate(names_ctx) if i != 1]
print("| decisions of | n | " + " | ".join(n for n, _ in cols) + " |")
print("| --- | ---: |" + " ---: |" * len(cols))
for label, m in rows:
    print(f"| {label} | {m.sum():,} | " + " | ".join(line(P[m], yt[m]) for _, P in cols) + " |")

# the upper-bound view: later half of the tuning slice
print()
ib = tune_b[tune]
up = [("logistic 420, fitted before 04-15", np.load(O + "P_logit_a_main.npy")[ib]),
      ("logistic 420, + earlier half", np.load(O + "P_logit_a_upper.npy")),
      ("logistic 604, fitted before 04-15", np.load(O + "P_logit_b_lin_main.npy")[ib]),
      ("logistic 604, + earlier half", np.load(O + "P_logit_b_lin_upper.npy"))]
for name, tag in (("GBM 420", ga), ("GBM 467", gb)):
    if tag != "-":
        up.append((name + ", fitted before 04-15", np.load(O + f"P_gbm_final_{tag}.npy")[ib]))
        f = O + f"P_gbm_upper_{tag}.npy"
        if os.path.exists(f):
            up.append((name + ", + earlier half", np.load(f)))
yb, rb, cb = y[tune_b], rnd[tune_b], ctx[tune_b]
print(f"| model (scored on the tuning slice's later half, {len(yb)} decisions) | all | preflop | flop | turn | river "
      "| pf 1 bet |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, P in up:
    cells = [line(P, yb)] + [line(P[rb == r], yb[rb == r]) for r in range(4)] + [line(P[cb == 1], yb[cb == 1])]
    print(f"| {name} | " + " | ".join(cells) + " |")
