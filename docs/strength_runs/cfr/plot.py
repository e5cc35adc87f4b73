"""docs/strength.md §12: the abstract game's exploitability against training time, from the
logs `poki train-cfr --log-json` wrote here (train_*.json): a table (printed) and a plot
(exploitability.png, log-log)."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after matplotlib.use('Agg')

here = Path(__file__).resolve().parent
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for path in sorted(here.glob("train_*.json")):
    log = json.loads(path.read_text())
    rows = log["rows"]
    label = "x".join(map(str, log["buckets"])) + f" buckets, {log['threads']} threads, load {log['load_average'][0]:.1f}"
    ax.loglog([r["seconds"] for r in rows], [max(r["exploitability_mbb"], 1e-3) for r in rows], marker=".",
              label=label)
    print(f"{label}, load average {log['load_average'][0]:.1f} at the end")
    print(f"{'iterations':>10}  {'seconds':>8}  {'mbb/hand':>9}")
    shown = [r for r in rows if r["iterations"] in (50, 100, 200, 500, 1000, 2000, 3000, 4000)] or rows
    for r in shown:
        print(f"{r['iterations']:>10}  {r['seconds']:>8.1f}  {r['exploitability_mbb']:>9.2f}")
ax.set_xlabel("training time (s)")
ax.set_ylabel("exploitability in the abstract game (mbb/hand)")
ax.set_title("CFR+ on the abstract game: exact best response per batch", fontsize=10)
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(here / "exploitability.png", dpi=110)
print(f"wrote {here / 'exploitability.png'}")
