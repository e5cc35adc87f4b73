"""Diagnostic: how the triple strategy's calls fare. Plays a plain match (two triple
players, eight Loki-1 Bettors, Loki-1 re-weighting for all: the B table) and records every
post-flop call of a bet by the triple players with what the calling rule saw, then the
hand's net result for the caller; prints, by round and by the rule's estimate, the mean
estimate against what happened (river: HS_n against the share of pots won; flop and turn:
the call's net chips). Usage: calls.py SEED HANDS [call_rule]"""
import sys
from collections import defaultdict

import numpy as np

from agent.config import TableConfig
from agent.engine.player import PokiPlayer
from agent.game.rules import Action
from agent.play.dealer import play_match
from agent.players import create_player

seed, hands = int(sys.argv[1]), int(sys.argv[2])
rule = sys.argv[3] if len(sys.argv) > 3 else "showdown"
calls = []  # (player, hand, round, hs_n, win, edge, pot_odds, to_call, pot)
results = {}


def spy(player: PokiPlayer) -> PokiPlayer:
    act, end = player.act, player.end_hand

    def act_spy(ctx):
        a = act(ctx)
        d = player.last
        if ctx.round >= 1 and ctx.to_call > 0 and a == Action.CHECK_CALL and d is not None and d.situation:
            s = d.situation
            calls.append((player.name, ctx.hand_id, ctx.round, s.hs, s.win_chance, s.call_edge,
                          s.pot_odds, ctx.to_call, ctx.pot))
        return a

    def end_spy(rec):
        for r in rec.results:
            if r.player == player.name:
                results[(player.name, rec.hand_id)] = (r.won - r.put_in, r.won > 0)
        end(rec)
    player.act, player.end_hand = act_spy, end_spy
    return player


rng = np.random.default_rng(seed)
players = [spy(create_player(f"poki(bettor=triples,reweight=loki1,call_rule={rule})", np.random.default_rng(seed + i), name=f"t{i}"))
           for i in range(2)]
players += [create_player("poki(bettor=loki1,reweight=loki1)", np.random.default_rng(seed + 10 + i), name=f"l{i}")
            for i in range(8)]
res = play_match(players, TableConfig(seats=10), hands, seed=seed)
print("chips:", {k: v for k, v in res.chips.items()})
by = defaultdict(list)
for name, hand, rnd, hs, win, edge, odds, to_call, pot in calls:
    net, won = results.get((name, hand), (0, False))
    bucket = "edge<0" if edge < 0 else "0-0.1" if edge < 0.1 else "0.1-0.3" if edge < 0.3 else ">0.3"
    by[(rnd, bucket)].append((hs, win, won, net / 10.0))
for key in sorted(by):
    rows = np.array(by[key], dtype=float)
    print(f"round {key[0]} edge {key[1]:8s} n={len(rows):4d} hs={rows[:,0].mean():.3f} "
          f"win_est={rows[:,1].mean():.3f} won={rows[:,2].mean():.3f} net_sb={rows[:,3].mean():+.2f}")
