"""docs/strength.md §12: the heads-up rows from the JSON files run_hu.sh wrote here: each
match's sb/hand with its 95% interval, and Poki − cfr against each house bot paired by
deal (the two matches of a bot share the seed: the same cards from the same seats)."""
import json
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
BOTS = ("call", "raise", "random", "rr", "mc", "tight-aggressive", "tight-passive", "loose-aggressive",
        "loose-passive")


def row(name: str, player: str) -> tuple[float, float, dict]:
    """The match NAME's row of the player seated as ``player``."""
    d = json.loads((here / f"{name}.json").read_text())
    p = next(p for p in d["players"] if p["name"] == player)
    return p["sb_per_hand"], p["ci95"], d


def per_deal(name: str, player: str, d: dict) -> np.ndarray:
    kept = json.loads((here / f"{name}.deals.json").read_text())
    col = kept["players"].index(player)
    chips = np.asarray(kept["deal_chips"], dtype=np.float64)[:, col]
    return chips / (d["rotations"] * d["table"]["small_bet"])


print(f"{'opponent':<18} {'cfr sb/hand':>18} {'Poki sb/hand':>18} {'Poki - cfr, paired':>20}  deals  seed")
for bot in BOTS:
    try:
        c, cci, dc = row(f"hu_cfr_{bot}", "cfr")
        p, pci, dp = row(f"hu_poki_{bot}", "poki")
    except FileNotFoundError:
        continue
    x = per_deal(f"hu_poki_{bot}", "poki", dp) - per_deal(f"hu_cfr_{bot}", "cfr", dc)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    print(f"{bot:<18} {c:>+9.3f} ± {cci:.3f} {p:>+9.3f} ± {pci:.3f} {x.mean():>+11.3f} ± {half:.3f}  "
          f"{dp['deals']:>5}  {dp['seed']}")
for name, player in (("hu_poki_cfr", "poki"), ("lbr_cfr", "lbr"), ("lbr_poki", "lbr")):
    try:
        v, ci, d = row(name, player)
    except FileNotFoundError:
        continue
    spec = next(p["spec"] for p in d["players"] if p["name"] == player)
    print(f"{name}: {spec} {v:+.3f} ± {ci:.3f} sb/hand ({v - ci:+.3f} … {v + ci:+.3f}), {d['deals']} deals "
          f"x {d['rotations']}, seed {d['seed']}, {d['seconds']:.0f} s")
