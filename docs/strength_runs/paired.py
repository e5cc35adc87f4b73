"""The paired difference between two specs of one duplicate match, on the same deals.

Usage: paired.py NAME SPEC_A SPEC_B [NAME_B]
  NAME: a match run with `--json --json-hands` (NAME.json here); its per-hand results are
  reduced to per-deal chips of each player, written to NAME.deals.json (kept in the
  repository instead of the bulky per-hand rows, which are then dropped from NAME.json),
  or read back from NAME.deals.json when NAME.json no longer holds them.
  SPEC_A / SPEC_B: specs as the JSON prints them (e.g. "poki(bettor=triples)").
  NAME_B: SPEC_B's players are taken from this other match of the same seed and deals
  (e.g. the same match played cold and as a regular): the same cards, deal by deal.
  NAME may be several matches joined by commas (RRhouse,RLhouse): the deals of all of them
  pooled, each deal paired within its own match (no NAME_B then). NAME:SPEC names SPEC_A
  as that match's file does (a spec prints without its default settings, so the same
  player has another name in a match played before a default changed), e.g.
  "RL4:poki(preflop=loose),RL4b" poki range-reader-loosest.

Prints, per deal d, x_d = (mean over SPEC_A's copies) − (mean over SPEC_B's copies) of
the small bets per hand won on that deal (all rotations), and mean(x) ± 1.96 sd(x)/√D:
the deal is the sampling unit, as in the match's own intervals, and both specs played the
same cards from the same seats, so most of the cards' luck cancels.
"""
import json
import re
import sys
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent


def load(name: str) -> tuple[dict, list[str], np.ndarray]:
    """The match NAME's JSON, its players' names and their per-deal sb/hand."""
    path = here / f"{name}.json"
    deals_path = here / f"{name}.deals.json"
    d = json.loads(path.read_text())
    names = [p["name"] for p in d["players"]]
    if "hand_results" in d:
        chips = np.zeros((d["deals"], len(names)), dtype=np.int64)
        col = {n: i for i, n in enumerate(names)}
        for row in d["hand_results"]:
            chips[int(row["deal"]), col[row["player"]]] += int(row["chips"])
        deals_path.write_text(json.dumps({"players": names, "deal_chips": chips.tolist()}))
        del d["hand_results"]
        path.write_text(json.dumps(d, indent=2) + "\n")
    else:
        kept = json.loads(deals_path.read_text())
        assert kept["players"] == names, f"{deals_path}: players differ from {path}"
        chips = np.asarray(kept["deal_chips"], dtype=np.int64)
    return d, names, chips / (d["rotations"] * d["table"]["small_bet"])


def columns(d: dict, names: list[str], spec: str) -> list[int]:
    specs = {p["name"]: p["spec"] for p in d["players"]}
    cols = [i for i, n in enumerate(names) if specs[n] == spec]
    if not cols:
        sys.exit(f"{d['name']}: no player with spec {spec!r}; specs: {sorted(set(specs.values()))}")
    return cols


name, spec_a, spec_b = sys.argv[1], sys.argv[2], sys.argv[3]
if "," in name:
    if len(sys.argv) > 4:
        sys.exit("pooled matches (NAME,NAME) take no NAME_B")
    xs, parts = [], []
    for entry in re.split(r",(?![^()]*\))", name):  # commas outside a spec's parentheses
        one, _, own_a = entry.partition(":")
        d, names, sb = load(one)
        a, b = columns(d, names, own_a or spec_a), columns(d, names, spec_b)
        xs.append(sb[:, a].mean(axis=1) - sb[:, b].mean(axis=1))
        parts.append(f"{one} seed {d['seed']} {d['deals']}")
    x = np.concatenate(xs)
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    print(f"pooled ({'; '.join(parts)}; {x.size} deals): {spec_a} minus {spec_b}: "
          f"{x.mean():+.3f} ± {half:.3f} sb/hand (paired by deal)")
    sys.exit(0)
d, names, sb = load(name)
d_b, names_b, sb_b = (d, names, sb) if len(sys.argv) < 5 else load(sys.argv[4])
if (d_b["seed"], d_b["deals"]) != (d["seed"], d["deals"]):
    sys.exit(f"{name} and {d_b['name']}: different seeds or deal counts")
a = columns(d, names, spec_a)
b = columns(d_b, names_b, spec_b)
x = sb[:, a].mean(axis=1) - sb_b[:, b].mean(axis=1)
half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
where_b = "" if d_b is d else f" of {d_b['name']}"
print(f"{name} (seed {d['seed']}, {d['deals']} deals): {spec_a} x{len(a)} minus {spec_b} x{len(b)}{where_b}: "
      f"{x.mean():+.3f} ± {half:.3f} sb/hand (paired by deal)")
