"""The Poki player in the in-process dealer and the tournament runner."""
from __future__ import annotations

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import EngineConfig, ModelConfig, TableConfig
from agent.engine.player import PokiPlayer, order_key
from agent.engine.preflop import PreflopStrategy
from agent.game.context import FINE_PER_COARSE
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer, play_match
from agent.play.offline.tournament import TournamentSetup, run_tournament
from agent.players import create_player, parse_spec


def test_spec_switches():
    spec = parse_spec("poki(bettor=loki1, reweight=none, weights=uniform, potential=off, "
                      "opponent_model=generic, preflop=tight)")
    player = create_player(spec, np.random.default_rng(0), name="p")
    assert isinstance(player, PokiPlayer)
    s = player.settings
    assert (s.bettor, s.reweight, s.weights, s.potential, s.opponent_model, s.preflop) == (
        "loki1", "none", "uniform", False, "generic", "tight")
    default = create_player("poki", np.random.default_rng(0))
    assert default.settings.bettor == "simulator" and default.settings.potential is True
    assert default.settings.sim_time_ms == 0.0  # trials only: seeded matches do not depend on load


def test_order_key():
    # Ten seats: pre-flop position 3 (under the gun) first, the big blind (2) last.
    assert [order_key(p, 10, 0) for p in (3, 10, 1, 2)] == [0, 7, 8, 9]
    assert [order_key(p, 10, 1) for p in (1, 2, 10)] == [1, 2, 10]
    # Heads-up: the button (2) acts first pre-flop, last after.
    assert order_key(2, 2, 0) < order_key(1, 2, 0) and order_key(2, 2, 1) > order_key(1, 2, 1)


@pytest.mark.parametrize("spec", [
    "poki",
    "poki(bettor=loki1, reweight=loki1)",
    "poki(bettor=loki1, reweight=none, weights=uniform, potential=off, opponent_model=generic)",
])
def test_plays_legal_hands(spec):
    rng = np.random.default_rng(5)
    players = [create_player(spec, np.random.default_rng(1), name="hero")]
    for i, kind in enumerate(["call", "raise", "random", "tight-aggressive", "loose-passive"]):
        players.append(create_player(f"{kind}(trials=50)" if "-" in kind else kind,
                                     np.random.default_rng(10 + i), name=f"b{i}"))
    table = TableConfig(seats=len(players))
    dealer = Dealer(table)
    for hand in range(60):
        deal = Deal.draw(rng, len(players))
        dealer.play_hand(players, deal, button=hand % len(players), hand_id=f"t:{hand}")
    # act() replaces an illegal choice by a legal one, so the dealer never sees one; what
    # must hold is that the strategies themselves never chose one.
    assert players[0].illegal_choices == 0


def test_reproducible_with_seed():
    def run() -> dict[str, int]:
        players = [create_player("poki", np.random.default_rng(7), name="a"),
                   create_player("poki(bettor=loki1)", np.random.default_rng(8), name="b"),
                   create_player("call", np.random.default_rng(9), name="c")]
        return play_match(players, TableConfig(seats=3), 80, seed=11).chips
    assert run() == run()


def test_weight_tables_follow_the_betting():
    # A heads-up hand: the opponent raises pre-flop and bets the flop; its table must move
    # weight toward strong holdings, and our EHS is computed against it.
    villain = create_player("raise", np.random.default_rng(1), name="villain")
    deal = Deal(((ev.parse_card("As"), ev.parse_card("Ah")), (ev.parse_card("Ks"), ev.parse_card("Kh"))),
                tuple(ev.parse_cards("Qd 8s 3c 4h 9d")))
    seen = []

    class Spy(PokiPlayer):
        def act(self, ctx):
            action = super().act(ctx)
            if ctx.round >= 1:
                seen.append((ctx.round, self._modeler.tables["villain"].copy(), self.last))
            return action

    # The engine heads-up (not the heads-up equilibrium): its weight tables are tested.
    hero = Spy("hero", np.random.default_rng(0), EngineConfig(heads_up="engine"))
    Dealer(TableConfig(seats=2)).play_hand([hero, villain], deal, button=1, hand_id="h:1")
    assert seen  # aces play on
    table = seen[0][1]
    aa = ev.holding_index(ev.cards_to_mask(ev.parse_cards("Ac Ad")))
    seven_three = ev.holding_index(ev.cards_to_mask(ev.parse_cards("7s 3h")))
    assert table[aa] > 5 * table[seven_three]
    assert seen[0][2].ehs is not None and 0.0 <= seen[0][2].ehs <= 1.0


def test_preflop_strategy_held_for_the_round():
    hero = PokiPlayer("hero", np.random.default_rng(0))
    others = [create_player("raise", np.random.default_rng(i), name=f"r{i}") for i in range(3)]
    deal = Deal(((ev.parse_card("As"), ev.parse_card("Ah")),) + tuple(
        (ev.parse_card(a), ev.parse_card(b)) for a, b in (("2c", "3d"), ("4c", "5d"), ("6c", "8d"))),
        tuple(ev.parse_cards("Kd Qs Jc 9h 7d")))
    strategies = []

    class Spy(PokiPlayer):
        def act(self, ctx):
            action = super().act(ctx)
            if ctx.round == 0:
                strategies.append(self._strategy)
            return action

    hero = Spy("hero", np.random.default_rng(0))
    Dealer(TableConfig(seats=4)).play_hand([hero, *others], deal, button=3, hand_id="h:2")
    assert strategies and set(strategies) == {PreflopStrategy.MAKE4}


def test_opponent_models_learn_from_finished_hands():
    # The triple bettor: it does not cap the flop betting, so the maniac can always raise.
    hero = PokiPlayer("hero", np.random.default_rng(0), EngineConfig(bettor="triples"))
    players = [hero, create_player("raise", np.random.default_rng(1), name="maniac"),
               create_player("call", np.random.default_rng(2), name="station")]
    play_match(players, TableConfig(seats=3), 60, seed=3)
    maniac = hero.store.get("maniac", "local")
    station = hero.store.get("station", "local")
    assert maniac.frequencies(4)[2] == pytest.approx(1.0)  # always raises facing a flop bet
    assert station.frequencies(4)[1] == pytest.approx(1.0)
    hero._models = {}
    # The default facing one flop bet is (.5, .3, .2); the maniac's observations (all
    # raises) take a share growing with their decayed count up to 20 observations.
    seen = sum(maniac.decayed[4])
    share = min(1.0, seen / 20.0)
    assert seen > 0
    twelve = PokiPlayer("t", np.random.default_rng(0), store=hero.store, model=ModelConfig(predictor="twelve"))
    twelve._models = {}
    fine = next(f for f in maniac.state.fine if f // FINE_PER_COARSE == 4)
    assert twelve._freq("maniac", 4, fine) == pytest.approx(
        (0.5 * (1 - share), 0.3 * (1 - share), 0.2 * (1 - share) + share))
    # The back-off and the meta-predictor (hero's default) see the raises too: in a fine
    # context the maniac met, raising is its most likely action; in one nobody met, the
    # few flop observations are shrunk toward the (calling) population, but the maniac
    # still raises far more often than the station.
    assert max(range(3), key=lambda i: hero._freq("maniac", 4, fine)[i]) == 2
    assert max(range(3), key=lambda i: hero._freq("station", 4, fine)[i]) == 1
    unseen = 4 * FINE_PER_COARSE + FINE_PER_COARSE - 1
    assert hero._freq("maniac", 4, unseen)[2] > 3 * hero._freq("station", 4, unseen)[2]
    # generic ignores them
    generic = PokiPlayer("g", np.random.default_rng(0), EngineConfig(opponent_model="generic"))
    assert generic._freq("maniac", 4, fine) == (0.5, 0.3, 0.2)


def test_tournament_two_enhanced_eight_control():
    specs = ["poki"] * 2 + ["poki(bettor=loki1, reweight=loki1)"] * 8
    setup = TournamentSetup.from_text(specs, TableConfig(seats=10), 5, chunk=2)
    result = run_tournament(setup, 4)
    assert result.hands == 40
    # Zero-sum: chips won by all players add to nothing.
    assert sum(s.chips for s in result.summary()) == 0


@pytest.mark.slow
def test_engine_bench_quick():
    from agent.bench.engine import run_engine_bench
    from agent.config import Config

    out = run_engine_bench(Config(), quick=True)
    assert out["stations"]["decisions"] > 0 and out["poki"]["decisions"] > 0
    assert out["median_postflop_decision_ms"] == out["stations"]["median_ms"]
