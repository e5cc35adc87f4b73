"""The setting with the best inner-validation log-likelihood for a feature set, from the grid
runs; prints 'LR LEAVES L2 MINLEAF N' with N = 1.1 x its early-stopped tree count."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("CEILING_WORK", "out/ceiling")
OUT = os.path.join(WORK, "out"); os.makedirs(OUT, exist_ok=True)
import json
import sys

runs = [json.loads(s) for s in open(os.path.join(OUT, "gbm_runs.jsonl")) if s.strip()]
runs = [r for r in runs if r["mode"] == "grid" and r["tag"].startswith(sys.argv[1] + "_")]
best = max(runs, key=lambda r: r["inner_val_ll"])
p = best["tag"].split("_")[1:]
print(p[0][2:], p[1][2:], p[2][2:], p[3][2:], int(round(best["n_iter"] * 1.1)))
