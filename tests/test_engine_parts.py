"""The pure parts of the Poki engine against hand-worked numbers ([loki2-1999], [testbed-1998], [poki-2002])."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluator_pyx as ev
from agent.config import ConfigError, EngineConfig, parse_config
from agent.engine.bettor_loki1 import loki1_action
from agent.engine.modeler import (
    CALL,
    RAISE,
    apply_action,
    board_strengths,
    loki1_multipliers,
    opponent_triples,
    preflop_strengths,
    reweight,
    weighted_quantile,
)
from agent.engine.preflop import PreflopStrategy as PS
from agent.engine.preflop import choose_strategy, preflop_action, threshold
from agent.engine.selector import legal_triple, select_action
from agent.engine.triples import Situation, decision_triple
from agent.game.rules import Action
from agent.models.frequencies import Decay, PlayerModel, PlayerState
from agent.models.opponent_model import DEFAULT_TRIPLES, predict_triple

from helpers.tiers import examples

CFG = EngineConfig()


# --- re-weighting ---------------------------------------------------------------------------

def test_seed002_reweighting_example():
    # [loki2-1999] §4: A-A at weight 0.7, triple [0.0, 0.2, 0.8], the opponent calls -> 0.14.
    triple = np.array([[0.0], [0.2], [0.8]])
    assert apply_action(np.array([0.7]), triple[CALL])[0] == pytest.approx(0.14)
    assert apply_action(np.array([0.7]), triple[RAISE])[0] == pytest.approx(0.56)


def test_best_holding_gets_seed002_triple_and_call_gives_014():
    # The strongest holding's predicted triple is [0, 1 - mix, ... ] = [0, 0.2, 0.8] with the
    # default mix, so a call takes its weight 0.7 to 0.14 through the whole rule.
    strength = np.linspace(0.0, 1.0, 1326)
    weights = np.ones(1326)
    weights[-1] = 0.7
    f, c, r = opponent_triples(strength, weights, DEFAULT_TRIPLES[4], CFG.opponent_width, CFG.opponent_mix)
    assert (f[-1], c[-1], r[-1]) == pytest.approx((0.0, 0.2, 0.8))
    after = reweight(weights, strength, DEFAULT_TRIPLES[4], CALL, "triples")
    assert after[-1] == pytest.approx(0.14)
    # The weakest holdings fold half the time in this context (1 bet: .5/.3/.2), so a call
    # multiplies them by the floor.
    assert after[0] == pytest.approx(0.01)


def test_loki1_linear_band():
    s = np.array([0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.9])
    m = loki1_multipliers(s, mu=0.5, sigma=0.1, floor=0.01)
    assert m == pytest.approx([0.01, 0.01, 0.2575, 0.505, 0.7525, 1.0, 1.0])


def test_loki1_reweight_mu_from_frequencies():
    # Uniform strengths 0..1: facing a bet (fold .5) a call implies mu = the 0.5-quantile.
    strength = (np.arange(1326) + 0.5) / 1326
    w = np.ones(1326)
    mu = weighted_quantile(strength, w, 0.5)
    assert mu == pytest.approx(0.5, abs=1e-3)
    after = reweight(w, strength, (0.5, 0.3, 0.2), CALL, "loki1", sigma=0.1)
    assert after[strength < 0.39].max() == pytest.approx(0.01)
    assert after[strength > 0.61].min() == pytest.approx(1.0)
    # A raise (r = .2) implies mu = the 0.8-quantile.
    after = reweight(w, strength, (0.5, 0.3, 0.2), RAISE, "loki1", sigma=0.1)
    assert after[strength < 0.69].max() == pytest.approx(0.01)
    assert after[strength > 0.91].min() == pytest.approx(1.0)


def test_each_action_multiplies_by_floor_at_least_and_dead_stay_dead():
    rng = np.random.default_rng(3)
    strength = rng.random(1326)
    w = rng.random(1326)
    w[:10] = 0.0
    for _ in range(20):
        before = w
        w = reweight(w, strength, (0.7, 0.2, 0.1), RAISE, "triples")
        live = before > 0
        # Only relative weights matter (a table may be scaled as a whole), so compare the
        # factors each holding got with the largest factor of this action.
        factor = w[live] / before[live]
        assert factor.min() >= 0.01 * factor.max() * (1 - 1e-9)
    assert (w[:10] == 0).all()
    assert (w[10:] > 0).all()  # nothing the opponent could hold is ruled out


def test_weighted_quantile():
    s = np.array([0.1, 0.2, 0.3, 0.4])
    assert weighted_quantile(s, np.array([1.0, 1, 1, 1]), 0.5) == 0.2
    assert weighted_quantile(s, np.array([0.0, 0, 1, 3]), 0.5) == 0.4
    assert weighted_quantile(s, np.array([1.0, 0, 0, 1]), 0.25) == 0.1


# --- decay and blending (the arithmetic lives in db/models) ----------------------------------

def test_count_halves_after_one_half_life():
    decay = Decay(50)
    state = PlayerState()
    state.observe(4, RAISE, decay.factor)
    state.hands += 50
    model = state.snapshot("x", "net", decay)
    assert model.decayed[4] == pytest.approx((0.0, 0.0, 0.5))
    assert model.lifetime[4] == (0, 0, 1)


def test_blending_toward_defaults():
    empty = PlayerModel.empty("x", "net", 500.0)
    assert predict_triple(empty, 4) == DEFAULT_TRIPLES[4] == (0.5, 0.3, 0.2)
    decayed = [(0.0, 0.0, 0.0)] * 12
    decayed[4] = (0.0, 0.0, 10.0)  # ten raises facing a bet on the flop
    model = PlayerModel("x", "net", 10, 500.0, tuple(decayed), ((0, 0, 0),) * 12)
    # 10 of 20 observations: halfway from the defaults to the data.
    assert predict_triple(model, 4, 20.0) == pytest.approx((0.25, 0.15, 0.6))
    decayed[4] = (0.0, 40.0, 0.0)
    model = PlayerModel("x", "net", 40, 500.0, tuple(decayed), ((0, 0, 0),) * 12)
    assert predict_triple(model, 4, 20.0) == pytest.approx((0.0, 1.0, 0.0))


# --- hand strengths for every holding ----------------------------------------------------------

def test_board_strengths_without_potential_is_hand_strength():
    board = ev.cards_to_mask(ev.parse_cards("3h 4c Jh"))
    hs = board_strengths(board, potential=False)
    aq = ev.holding_index(ev.cards_to_mask(ev.parse_cards("As Qc")))
    assert hs[aq] == pytest.approx(0.585, abs=5e-4)  # [testbed-1998] §4.2 (0.585 against 1081 holdings)


def test_board_strengths_potential_rewards_draws():
    board = ev.cards_to_mask(ev.parse_cards("9h 6h 2c"))
    plain = board_strengths(board, potential=False)
    pot = board_strengths(board, potential=True)
    draw = ev.holding_index(ev.cards_to_mask(ev.parse_cards("8h 7h")))
    assert (pot >= plain - 1e-12).all() and pot.max() <= 1.0 + 1e-9
    assert pot[draw] - plain[draw] > 0.05
    # The term is the mean rise of HS over the next card: check one holding by hand.
    rises = []
    for c in range(52):
        bit = 1 << ev.card_bit(c)
        if bit & (board | ev.HOLDINGS[draw]):
            continue
        rises.append(max(0.0, ev.holding_strengths(board | bit)[draw] - plain[draw]))
    assert len(rises) == 47
    assert pot[draw] == pytest.approx(plain[draw] + sum(rises) / 47)


def test_preflop_strengths_order():
    s = preflop_strengths("5+")
    aa = ev.holding_index(ev.cards_to_mask(ev.parse_cards("As Ad")))
    seven_two = ev.holding_index(ev.cards_to_mask(ev.parse_cards("7s 2d")))
    assert s[aa] > 0.99 and s[seven_two] < 0.01


# --- pre-flop ------------------------------------------------------------------------------------

def test_preflop_thresholds_grow_with_position():
    assert threshold(PS.CALL1, 0) == 0.0
    assert threshold(PS.CALL1, 9) == 90.0
    assert threshold(PS.MAKE2, 3, "tight") == 200.0 + 100.0 + 45.0
    assert choose_strategy(1400.0, 9) == PS.MAKE4
    assert choose_strategy(-300.0, 0) == PS.MAKE0
    assert choose_strategy(50.0, 0) == PS.CALL1
    assert choose_strategy(50.0, 9) == PS.MAKE0  # the same hand under the gun
    assert choose_strategy(50.0, 9, "loose") == PS.MAKE1


def test_shipped_preflop_is_loose():
    """Since issue 42 Poki ships the loose pre-flop thresholds (docs/strength.md, "The
    range reader"): the default and the shipped config.toml agree on it, and the old
    setting stays selectable. A hand of income rate 50 under the gun at ten seats is
    played by the shipped player and folded by the old default."""
    shipped = tomllib.loads((Path(__file__).resolve().parents[1] / "config.toml").read_text())
    assert EngineConfig().preflop == "loose"
    assert parse_config(shipped).engine.preflop == "loose"
    assert choose_strategy(50.0, 9, EngineConfig().preflop) == PS.MAKE1
    assert choose_strategy(50.0, 9, EngineConfig(preflop="moderate").preflop) == PS.MAKE0


def test_preflop_actions():
    fold, call, rais = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE
    # Make0: the big blind checks for free, anyone facing the blind folds.
    assert preflop_action(PS.MAKE0, 1, 0, True, True, 4) == call
    assert preflop_action(PS.MAKE0, 1, 10, True, True, 4) == fold
    assert preflop_action(PS.CALL1, 1, 10, True, True, 4) == call
    assert preflop_action(PS.CALL1, 2, 20, True, False, 4) == fold
    assert preflop_action(PS.MAKE1, 1, 10, True, True, 4) == rais
    assert preflop_action(PS.MAKE1, 1, 10, True, False, 4) == call
    assert preflop_action(PS.MAKE1, 3, 20, True, False, 4) == fold
    assert preflop_action(PS.CALL2, 4, 30, False, False, 4) == call
    assert preflop_action(PS.MAKE2, 1, 10, True, False, 4) == rais
    assert preflop_action(PS.MAKE2, 3, 10, True, False, 4) == call
    assert preflop_action(PS.MAKE4, 3, 10, True, False, 4) == rais
    assert preflop_action(PS.MAKE4, 4, 10, False, False, 4) == call


# --- betting ---------------------------------------------------------------------------------------

def test_loki1_seed003_example():
    # [testbed-1998] §4.4: five opponents, first to act, EHS 0.15: check. Then $20 to us into
    # $175: pot odds 20/195 = 0.103 < Ppot 0.108: call.
    assert loki1_action(0.15, 0.108, 40, 0, 0, 0, True, CFG) == Action.CHECK_CALL
    assert loki1_action(0.15, 0.108, 175, 20, 2, 2, True, CFG) == Action.CHECK_CALL
    assert loki1_action(0.15, 0.09, 175, 20, 2, 2, True, CFG) == Action.FOLD


def test_loki1_thresholds():
    a = lambda ehs, btr, btc, to_call=10: loki1_action(ehs, 0.0, 60, to_call if btc else 0, btc, btr, True, CFG)
    assert a(0.55, 0, 0) == Action.BET_RAISE  # bet at EHS >= 0.5
    assert a(0.55, 1, 1) == Action.CHECK_CALL  # call one bet
    assert a(0.55, 2, 2, 20) == Action.FOLD  # but not two
    assert a(0.9, 1, 1) == Action.BET_RAISE  # raise at EHS >= 0.85
    assert a(0.9, 3, 2, 20) == Action.CHECK_CALL  # made it two, calls anything


def _situation(ehs, ppot=0.0, pot=60, to_call=0, btr=0, rnd=1, after=2, can_raise=True):
    return Situation(ehs, ppot, pot, to_call, 10, btr, 4, rnd, after, can_raise)


def test_triple_thresholds():
    assert decision_triple(_situation(0.3), CFG) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(_situation(0.6, rnd=3), CFG) == pytest.approx((0.0, 0.0, 1.0))
    assert decision_triple(_situation(0.5, rnd=3), CFG) == pytest.approx((0.0, 0.5, 0.5))
    # Facing a bet: pot odds 10/70; EHS 0.1 folds, 0.3 calls, 0.95 raises (river: no slow-play).
    assert decision_triple(_situation(0.05, to_call=10, btr=1, rnd=3), CFG) == pytest.approx((1.0, 0.0, 0.0))
    assert decision_triple(_situation(0.3, to_call=10, btr=1, rnd=3), CFG) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(_situation(0.95, to_call=10, btr=1, rnd=3), CFG) == pytest.approx((0.0, 0.0, 1.0))
    # Check-raise: a raising hand with players behind checks 20% of the time.
    assert decision_triple(_situation(0.95, rnd=3, after=2), CFG) == pytest.approx((0.0, 0.2, 0.8))
    assert decision_triple(_situation(0.95, rnd=3, after=0), CFG) == pytest.approx((0.0, 0.0, 1.0))
    # Slow-play before the river.
    assert decision_triple(_situation(0.97, to_call=10, btr=1, rnd=1), CFG)[2] == pytest.approx(0.85)
    # Semi-bluff: Ppot 0.2 beats a bet's odds 10/70.
    assert decision_triple(_situation(0.3, ppot=0.2), CFG) == pytest.approx((0.0, 0.5, 0.5))
    assert decision_triple(_situation(0.3, ppot=0.1), CFG) == pytest.approx((0.0, 1.0, 0.0))


situations = st.builds(
    Situation,
    ehs=st.floats(0, 1), ppot=st.floats(0, 1), pot=st.integers(0, 2000),
    to_call=st.integers(0, 40), bet_size=st.sampled_from([10, 20]),
    bets_this_round=st.integers(0, 4), max_bets=st.integers(1, 4), round=st.integers(1, 3),
    to_act_after=st.integers(0, 9), can_raise=st.booleans(),
)


@settings(max_examples=examples(400), deadline=None)
@given(situations, st.builds(EngineConfig, mix_width=st.floats(0, 0.3), semi_bluff=st.floats(0, 1),
                             check_raise=st.floats(0, 1), slow_play=st.floats(0, 1),
                             call_margin=st.floats(0, 0.3)))
def test_triple_sums_to_one_and_is_legal(s, cfg):
    f, c, r = decision_triple(s, cfg)
    assert min(f, c, r) >= 0.0
    assert math.isclose(f + c + r, 1.0, abs_tol=1e-9)
    if s.to_call == 0:
        assert f == 0.0
    if not s.can_raise or s.bets_this_round >= s.max_bets:
        assert r == 0.0


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.floats(-1, 5), min_size=3, max_size=3), st.integers(0, 30),
       st.lists(st.sampled_from(list(Action)), min_size=1, max_size=3, unique=True),
       st.integers(0, 2**32 - 1))
def test_selector_never_illegal(triple, to_call, legal, seed):
    legal = tuple(sorted(legal))
    t = legal_triple(triple, to_call, Action.BET_RAISE in legal)
    assert math.isclose(sum(t), 1.0, abs_tol=1e-9) and min(t) >= 0
    action = select_action(triple, np.random.default_rng(seed), to_call, legal)
    assert action in legal
    if to_call == 0 and Action.CHECK_CALL in legal:
        assert action != Action.FOLD


def test_selector_frequencies():
    rng = np.random.default_rng(1)
    legal = tuple(Action)
    picks = [select_action((0.0, 0.8, 0.2), rng, 10, legal) for _ in range(4000)]
    share = picks.count(Action.BET_RAISE) / len(picks)
    assert 0.17 < share < 0.23 and Action.FOLD not in picks


# --- config ------------------------------------------------------------------------------------------

def test_engine_config_section():
    cfg = parse_config({"engine": {"bettor": "loki1", "potential": False, "bet_threshold": 0.45}})
    assert cfg.engine.bettor == "loki1" and cfg.engine.potential is False
    assert cfg.engine.bet_threshold == 0.45
    assert parse_config({"engine": {"bettor": "simulator"}}).engine.bettor == "simulator"
    with pytest.raises(ConfigError, match="engine.*bettor"):
        parse_config({"engine": {"bettor": "oracle"}})
    with pytest.raises(ConfigError, match="sim_trials"):
        parse_config({"engine": {"sim_trials": 0}})
    with pytest.raises(ConfigError, match="sim_time_ms"):
        parse_config({"engine": {"sim_time_ms": -1}})
    with pytest.raises(ConfigError, match="raise_threshold"):
        parse_config({"engine": {"raise_threshold": 1.5}})
    with pytest.raises(ConfigError, match="unknown key"):
        parse_config({"engine": {"bluff": 0.1}})


def test_potential_estimate_close_to_exact_one_card_ehs():
    # The batched estimate against exact HS + (1 - HS) x Ppot(one card), uniform weights.
    from agent.engine.modeler import live_holdings

    rng = np.random.default_rng(4)
    worst = 0.0
    for n_board in (3, 4):
        board = ev.cards_to_mask(rng.permutation(52)[:n_board].tolist())
        est = board_strengths(board, True)
        hs = board_strengths(board, False)
        for h in rng.choice(np.flatnonzero(live_holdings(board)), 40, replace=False):
            ppot = ev.hand_potential(int(ev.HOLDINGS[h]), board, None, 1)[0]
            worst = max(worst, abs(est[h] - (hs[h] + (1 - hs[h]) * ppot)))
    assert worst < 0.05
