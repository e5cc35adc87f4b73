"""The logistic model's figures on the GBM's inner validation (fitted on the fitting window's
first nine tenths, scored on its last tenth), as a reference for the settings grid."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("CEILING_WORK", "out/ceiling")
OUT = os.path.join(WORK, "out"); os.makedirs(OUT, exist_ok=True)
import time
exec(open(os.path.join(HERE, "common.py")).read())
from agent.game.learned import fit, _softmax  # noqa: E402
for fs in ("a", "b_lin"):
    F = features(fs)
    t0 = time.process_time()
    w = fit(F[inner_tr].astype(np.float64), y[inner_tr], 3e-5)
    P = _softmax(F[inner_va].astype(np.float64) @ w.T)
    print(f"logistic {fs}: inner validation {line(P, y[inner_va])} (cpu {time.process_time() - t0:.0f}s)", flush=True)
