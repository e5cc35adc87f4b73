"""Diagnostic: are the weight tables calibrated? Plays a plain match (two triple players
and eight Loki-1 Bettors by default: the B table) and, at every post-flop decision of the
two triple players, records for every live opponent our hand strength against that
opponent's weight table (what the tables predict: the chance our hand is ahead of the
opponent's holding on the board as it is) and what was true: our hand against the holding
the opponent was really dealt (1 ahead, ½ tied, 0 behind; the dealt cards are read in the
process, so hands that never reach a showdown count too and nothing is selected by who
folds). Prints, by round and by the opponent's last action (bet/raise or check/call), the
mean prediction against the realised share, bucketed by prediction.

Usage: calibration.py SEED HANDS [TRIPLE_SPEC [CONTROL_SPEC]]
  defaults: poki(bettor=triples,reweight=loki1)  poki(bettor=loki1,reweight=loki1)
"""
import sys
from collections import defaultdict

import numpy as np

import evaluator_pyx as ev
from agent.config import TableConfig
from agent.engine.player import PokiPlayer
from agent.play.dealer import play_match
from agent.players import create_player

seed, hands = int(sys.argv[1]), int(sys.argv[2])
hero_spec = sys.argv[3] if len(sys.argv) > 3 else "poki(bettor=triples,reweight=loki1)"
control_spec = sys.argv[4] if len(sys.argv) > 4 else "poki(bettor=loki1,reweight=loki1)"
holes: dict[tuple[str, str], tuple[int, int]] = {}
rows = []  # (hand, opponent, round, last action, predicted HS, our hole mask, board mask)


def see_holes(player):
    act = player.act

    def act_spy(ctx):
        if ctx.hole_cards:
            holes[(ctx.hand_id, player.name)] = tuple(ctx.hole_cards)
        return act(ctx)
    player.act = act_spy
    return player


def spy(player: PokiPlayer) -> PokiPlayer:
    act = player.act

    def act_spy(ctx):
        a = act(ctx)
        if ctx.round >= 1 and ctx.hole_cards and player._hs_each:
            last = {}
            for x in ctx.actions:
                if x.kind in ("b", "r", "c", "k"):
                    last[x.player] = "bet/raise" if x.kind in ("b", "r") else "check/call"
            hole = ev.cards_to_mask(ctx.hole_cards)
            board = ev.cards_to_mask(ctx.board)
            for p, hs in player._hs_each.items():
                rows.append((ctx.hand_id, p, ctx.round, last.get(p, "?"), hs, hole, board))
        return a
    player.act = act_spy
    return player


players = [see_holes(spy(create_player(hero_spec, np.random.default_rng(seed + i), name=f"t{i}")))
           for i in range(2)]
players += [see_holes(create_player(control_spec, np.random.default_rng(seed + 10 + i), name=f"l{i}"))
            for i in range(8)]
play_match(players, TableConfig(seats=10), hands, seed=seed)

by = defaultdict(list)
for hand, p, rnd, last, hs, hole, board in rows:
    theirs = holes.get((hand, p))
    if theirs is None:
        continue
    ours_v = ev.evaluate(hole | board)
    their_v = ev.evaluate(ev.cards_to_mask(theirs) | board)
    real = 1.0 if ours_v > their_v else 0.5 if ours_v == their_v else 0.0
    by[(rnd, last)].append((hs, real))

print(f"hero {hero_spec} x2, control {control_spec} x8, seed {seed}, {hands} hands")
print("round last-action      n  mean HS  realised | by predicted HS: [bucket] n pred/real")
for key in sorted(by):
    a = np.array(by[key])
    line = f"{['', 'flop', 'turn', 'river'][key[0]]:5s} {key[1]:10s} {len(a):6d}  {a[:, 0].mean():.3f}    {a[:, 1].mean():.3f}   |"
    for lo, hi in ((0, .2), (.2, .4), (.4, .6), (.6, .8), (.8, 1.01)):
        sel = a[(a[:, 0] >= lo) & (a[:, 0] < hi)]
        if len(sel):
            line += f" [{lo:.1f}] {len(sel)} {sel[:, 0].mean():.2f}/{sel[:, 1].mean():.2f}"
    print(line)
