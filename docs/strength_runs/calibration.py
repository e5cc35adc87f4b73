"""Diagnostic: are the weight tables calibrated? Plays a plain match (two triple players
and eight Loki-1 Bettors by default: the B table) and, at every post-flop decision of the
two triple players, records for every live opponent our hand strength against that
opponent's weight table (what the tables predict: the chance our hand is ahead of the
opponent's holding on the board as it is) and what was true: our hand against the holding
the opponent was really dealt (1 ahead, ½ tied, 0 behind; the dealt cards are read in the
process, so hands that never reach a showdown count too and nothing is selected by who
folds). Prints, by round and by the opponent's last action (bet/raise or check/call), the
mean prediction against the realised share, bucketed by prediction. Second table: at each
bet or raise the triple players' modeler re-weights for, the modelled share r of that
action in its context against where the opponent's dealt holding stood in the table just
before (its weighted quantile by the modeler's strengths): if the model is right, the
bettors' holdings lie above the 1 − r quantile.

Usage: calibration.py SEED HANDS [TRIPLE_SPEC [CONTROL_SPEC]] (the defaults follow [engine] floor_on)
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


observed = []  # (round, modelled raise share, dealt holding's quantile in the table before)


def spy_modeler(player: PokiPlayer) -> PokiPlayer:
    modeler = player._modeler
    observe = modeler.observe

    def observe_spy(nick, action, freq, board_mask, players):
        table = modeler.tables.get(nick)
        theirs = holes.get((player._hand, nick))
        if table is not None and action == 2 and theirs is not None and modeler.rule != "none":
            modeler.see_board(board_mask)
            strength = modeler.strengths(board_mask, players)
            idx = ev.holding_index(ev.cards_to_mask(theirs))
            live = table > 0
            below = table[live & (strength < strength[idx])].sum() + 0.5 * table[live & (strength == strength[idx])].sum()
            rnd = {0: 0, 3: 1, 4: 2, 5: 3}[bin(board_mask).count("1")]
            observed.append((rnd, float(freq[2]), float(below / table.sum())))
        observe(nick, action, freq, board_mask, players)
    modeler.observe = observe_spy
    return player


players = [see_holes(spy_modeler(spy(create_player(hero_spec, np.random.default_rng(seed + i), name=f"t{i}"))))
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

print()
print("bets/raises re-weighted: round, n, mean modelled r, share of dealt holdings below the 1-r quantile, "
      "mean quantile of the dealt holding")
obs = np.array(observed)
for rnd in range(4):
    o = obs[obs[:, 0] == rnd] if len(obs) else obs
    if len(o):
        print(f"{['preflop', 'flop', 'turn', 'river'][rnd]:7s} {len(o):5d}  r={o[:, 1].mean():.3f}  "
              f"below={np.mean(o[:, 2] < 1 - o[:, 1]):.3f}  quantile={o[:, 2].mean():.3f}")
