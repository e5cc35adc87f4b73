"""What the learned floor learns (docs/strength.md §10): plain play at one table, then
each learned Poki's ε for every opponent from the off-model counts its store kept.

Usage: eps_probe.py HANDS [SEED]   (run from the repository with PYTHONPATH=.)
"""
import sys

import numpy as np

from agent.config import TableConfig
from agent.engine.modeler import learned_eps
from agent.play.dealer import play_match
from agent.players import create_player

hands = int(sys.argv[1])
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
specs = ["poki(bettor=triples,floor_on=learned)", "poki(bettor=loki1,reweight=loki1,floor_on=learned)", "mc",
         "tight-aggressive", "tight-passive", "loose-aggressive", "loose-passive",
         "poki(bettor=loki1,reweight=loki1,floor_on=weight)"]
players = [create_player(s, np.random.default_rng(seed * 100 + i), name=f"p{i}") for i, s in enumerate(specs)]
play_match(players, TableConfig(), hands, seed)
for hero in players[:2]:
    print(f"{hero.name} = {specs[players.index(hero)]}")
    for p, s in zip(players, specs):
        if p is hero:
            continue
        n_c, k_c, n_r, k_r = hero.store.off_model(p.name, hero.network)
        print(f"  {s:52s} calls {k_c:4.0f}/{n_c:4.0f} off, eps {learned_eps(n_c, k_c):.3f}   "
              f"bets/raises {k_r:4.0f}/{n_r:4.0f} off, eps {learned_eps(n_r, k_r):.3f}")
