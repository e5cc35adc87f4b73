"""docs/strength.md §12: what p buys and costs. For a few opponents, 1,000 heads-up hands
against the equilibrium (cfr) are seen by Poki's responder (agent.engine.response), which
builds its model of the opponent; then the p-restricted response to that model is solved
as Poki solves it (two warm-started CFR+ runs of 40 iterations, one per seat) for several
p, and for each the abstract game gives its value against the model and its
exploitability (exact best response), both in mbb/hand, seats averaged.

Usage: rnr_curve.py [HANDS] [SEED]   (default 1000 7)"""
import sys
import time

import numpy as np

from agent.config import Config, TableConfig
from agent.engine.equilibrium import load_strategy, mbb
from agent.engine.response import HeadsUpResponder, ResponseSettings
from agent.play.deals import Deal
from agent.play.kinds import install_kinds
from agent.play.offline.dealer import Dealer
from agent.players import create_player

install_kinds(Config())

hands = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
strategy = load_strategy()
game = strategy.game
solver = game.solver()
table = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4, starting_stack=1000)
print(f"strategy {strategy.path} ({'x'.join(map(str, game.abstraction.buckets))} buckets), {hands} hands seen, seed {seed}")
for spec in ("call", "loose-passive", "tight-aggressive", "lbr(target=cfr)"):
    rng = np.random.default_rng(seed)
    me = create_player("cfr", np.random.default_rng([seed, 1]), "me")
    opponent = create_player(spec, np.random.default_rng([seed, 2]), "them")
    responder = HeadsUpResponder(strategy, ResponseSettings(min_hands=10**9))
    dealer = Dealer(table)
    for h in range(hands):
        seated = [me, opponent] if h % 2 else [opponent, me]
        responder.observe(dealer.play_hand(seated, Deal.draw(rng, 2), button=1, hand_id=f"c:{h}"), "me")
    model = responder.model("them")
    seats = responder.game.seat_of_entry()

    def against_model(policy):
        a = solver.profile_values(np.where(seats == 0, policy, model), 1)[0]
        b = solver.profile_values(np.where(seats == 1, policy, model), 1)[1]
        return mbb((a + b) / 2)

    print(f"\n{spec}: model eps {responder.last_eps['them']:.2f}; the model's own exploitability "
          f"{mbb(sum(solver.best_response_values(model, 2)) / 2):.0f} mbb/hand")
    print(f"{'p':>5}  {'vs model':>9}  {'exploitability':>14}  {'solve s':>7}")
    for p in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9):
        if p == 0.0:
            response, took = strategy.policy, 0.0
        else:
            t0 = time.perf_counter()
            responder.settings = ResponseSettings(p_max=p)
            responder._obs["them"].hands = 10**9  # p = p_max
            responder.solve("them")
            took = time.perf_counter() - t0
            response = responder.view("them").policy
        expl = mbb(sum(solver.best_response_values(response, 2)) / 2)
        print(f"{p:>5.2f}  {against_model(response):>9.1f}  {expl:>14.1f}  {took:>7.1f}")
