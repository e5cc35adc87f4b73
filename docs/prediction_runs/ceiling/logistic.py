"""The shipped logistic model (agent.game.learned.fit, l2 3e-5) refitted here on the same
matrices the GBM sees, so the comparison is like for like. Saves tuning-slice probabilities."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("CEILING_WORK", "out/ceiling")
OUT = os.path.join(WORK, "out"); os.makedirs(OUT, exist_ok=True)
import time
exec(open(os.path.join(HERE, "common.py")).read())
from agent.game.learned import fit, _softmax  # noqa: E402

for fs in ("a", "b_lin"):
    F = features(fs)
    for label, trm, tem in (("main", fitw, tune), ("upper", fitw | tune_a, tune_b)):
        t0 = time.process_time()
        w = fit(F[trm].astype(np.float64), y[trm], 3e-5)
        cpu = time.process_time() - t0
        P = _softmax(F[tem].astype(np.float64) @ w.T)
        np.save(f"{OUT}/P_logit_{fs}_{label}.npy", P)
        print(f"logistic {fs} {label}: fit rows {trm.sum()} cpu {cpu:.1f}s  scored {tem.sum()}: {line(P, y[tem])}", flush=True)
