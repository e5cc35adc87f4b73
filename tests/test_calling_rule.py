"""The triple strategy's calling rule (agent.engine.triples, call_rule "showdown"): a call
priced as a commitment to the bets still to come, with the win chance that counts Npot,
against the published EHS-against-immediate-pot-odds rule ([testbed-1998] §4.4).

Answers are worked out by hand (the odds of a spot) or by exact enumeration of the
remaining cards (the win chance), never copied from a run."""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import EngineConfig, TableConfig
from agent.engine.player import PokiPlayer
from agent.engine.triples import Situation, decision_triple
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import create_player

NEW = EngineConfig(mix_width=0.0)  # steps, so each spot has one answer
OLD = dataclasses.replace(NEW, call_rule="pot_odds")


def _facing_bet(ehs: float, hs: float, *, ppot: float = 0.0, npot: float = 0.0, pot: int = 60,
                to_call: int = 10, rnd: int = 1, future: float = 0.0, implied: float = 0.0) -> Situation:
    # One bet to call, nobody behind, a bet of 10 (flop) or 20 (turn, river).
    return Situation(ehs, ppot, pot, to_call, 10 if rnd == 1 else 20, 1, 4, rnd, 0, True,
                     hs, npot, future, implied)


def test_weak_made_hand_facing_a_bettor_who_keeps_betting():
    # Flop, pot 60 after the bet, 10 to call; the bettor bets turn and river (20 each).
    # Immediate odds 10/70 = 0.143: the old rule calls with HS 0.30. Calling down costs
    # 10 + 40 for a final pot of 60 + 10 + 80 = 150: 50/150 = 1/3 > 0.30, so fold.
    s = _facing_bet(0.30, 0.30, future=40.0)
    assert decision_triple(s, OLD) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(s, NEW) == pytest.approx((1.0, 0.0, 0.0))
    # 0.34 > 1/3 calls; with no later bets expected the odds are the immediate 1/7 again.
    assert decision_triple(_facing_bet(0.34, 0.34, future=40.0), NEW) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(_facing_bet(0.15, 0.15, future=0.0), NEW) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(_facing_bet(0.13, 0.13, future=0.0), NEW) == pytest.approx((1.0, 0.0, 0.0))


def test_npot_lowers_the_win_chance():
    # Turn, pot 100, 20 to call, no river bet expected: odds 20/120 = 0.167.
    # HS 0.2 with Npot 0.25 and no Ppot wins 0.2 x 0.75 = 0.15 of showdowns: fold,
    # though EHS (which leaves Npot out) is 0.2 and the old rule calls.
    s = _facing_bet(0.2, 0.2, npot=0.25, pot=100, to_call=20, rnd=2)
    assert s.win_chance == pytest.approx(0.15)
    assert decision_triple(s, OLD) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(s, NEW) == pytest.approx((1.0, 0.0, 0.0))


def test_draw_is_called_on_implied_odds_not_on_ehs():
    # Flop, HS 0.05, Ppot 0.12, pot 60, 10 to call, the bettor goes on betting (40 later).
    # EHS = 0.05 + 0.95 x 0.12 = 0.164 beats 1/7: the old rule calls.
    # Call-down: win 0.05 + 0.95 x 0.12 = 0.164 < 1/3. Draw: 10/(60 + 10 + I) needs
    # I > 13.3 for Ppot 0.12: with I = 0 fold, with I = 20 (one big bet paid) call.
    ehs = 0.05 + 0.95 * 0.12
    no_implied = _facing_bet(ehs, 0.05, ppot=0.12, future=40.0, implied=0.0)
    assert decision_triple(no_implied, OLD) == pytest.approx((0.0, 1.0, 0.0))
    assert decision_triple(no_implied, NEW) == pytest.approx((1.0, 0.0, 0.0))
    paid = _facing_bet(ehs, 0.05, ppot=0.12, future=40.0, implied=20.0)
    assert decision_triple(paid, NEW) == pytest.approx((0.0, 1.0, 0.0))
    # On the river there is nothing to draw to: Ppot is ignored.
    river = _facing_bet(0.1, 0.1, ppot=0.5, pot=100, to_call=20, rnd=3, implied=20.0)
    assert decision_triple(river, NEW) == pytest.approx((1.0, 0.0, 0.0))


def test_river_rule_is_the_pot_odds_rule():
    # Nothing to come: both rules compare HS (= EHS) with to call / (pot + to call).
    for hs in np.linspace(0.0, 1.0, 41):
        for pot in (20, 60, 140):
            s = _facing_bet(hs, hs, pot=pot, to_call=20, rnd=3)
            assert decision_triple(s, NEW) == pytest.approx(decision_triple(s, OLD))


def _equity_by_enumeration(hole: tuple[int, int], board: list[int]) -> float:
    """Our share of showdowns against one uniformly random holding, every river card."""
    dead = set(hole) | set(board)
    rest = [c for c in range(52) if c not in dead]
    me = ev.holding_index_of_cards(*hole)
    won = total = 0.0
    for river in rest:
        values = ev.holding_values(ev.cards_to_mask(board + [river]))
        mine = values[me]
        for a, b in itertools.combinations([c for c in rest if c != river], 2):
            theirs = values[ev.holding_index_of_cards(a, b)]
            won += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            total += 1.0
    return won / total


@pytest.mark.parametrize("hole, board", [
    ("Ah Td", "Kh 9h 4c 2s"),   # ace high with a flush draw
    ("7c 7d", "Ks Qs 8d 3h"),   # an underpair
    ("Jc Ts", "9d 8c 2h Ks"),   # an open-ended straight draw
])
def test_win_chance_on_the_turn_is_the_exact_showdown_equity(hole, board):
    # With one card to come, HS x (1 - Npot) + (1 - HS) x Ppot (Billings et al.'s [testbed-1998] Table 2
    # formulas, ties halved) is exactly the share of showdowns we win: enumerate it.
    h = tuple(ev.parse_cards(hole))
    b = list(ev.parse_cards(board))
    hole_mask, board_mask = ev.cards_to_mask(h), ev.cards_to_mask(b)
    hs = ev.hand_strength(hole_mask, board_mask)
    ppot, npot = ev.hand_potential(hole_mask, board_mask, None, 1)
    s = _facing_bet(hs + (1 - hs) * ppot, hs, ppot=ppot, npot=npot, rnd=2)
    assert s.win_chance == pytest.approx(_equity_by_enumeration(h, b), abs=1e-9)
    # EHS, which leaves Npot out, is higher whenever Npot > 0.
    if npot > 0:
        assert s.ehs > s.win_chance


class _Fixed(PokiPlayer):
    """A Poki whose opponent model says the same triple in every context (the unit
    under test is bets_to_come; the model is fixed so its answer is known)."""

    triple = (0.0, 0.0, 1.0)

    def _freq(self, nick, context, fine=-1, public=None, round_=0):  # the fixture
        return self.triple


@pytest.mark.parametrize("triple, future, implied", [
    ((0.0, 0.0, 1.0), 40.0, 20.0),   # always bets and raises: a big bet on turn and river
    ((0.0, 1.0, 0.0), 0.0, 20.0),    # never bets, always pays a bet
    ((0.5, 0.5, 0.0), 0.0, 10.0),    # never bets, folds to a bet half the time
    ((0.0, 0.5, 0.5), 20.0, 20.0),   # bets each later round half the time
])
def test_bets_to_come_heads_up_on_the_flop(triple, future, implied):
    # Heads-up, the hero on the button acts last after the flop; the villain always
    # raises, so on the flop the hero faces a bet with nobody behind. Big bet 20.
    seen = []

    class Hero(_Fixed):
        def act(self, ctx):
            if ctx.round == 1 and ctx.to_call > 0 and not seen:
                seen.append(self.bets_to_come(ctx))
            return super().act(ctx)

    Hero.triple = triple
    # Uniform weights: no weight table to split, so every later bet is expected by frequency.
    # The engine heads-up (not the heads-up equilibrium): its calling rule is what is tested.
    hero = Hero("hero", np.random.default_rng(1), EngineConfig(opponent_model="generic", weights="uniform",
                                                               bettor="triples", heads_up="engine"))
    villain = create_player("raise", np.random.default_rng(2), name="villain")
    deal = Deal(((ev.parse_card("As"), ev.parse_card("Ah")), (ev.parse_card("Ks"), ev.parse_card("Kh"))),
                tuple(ev.parse_cards("Qd 8s 3c 4h 9d")))
    Dealer(TableConfig(seats=2)).play_hand([hero, villain], deal, button=0, hand_id="t:1")
    assert seen, "the hero never faced a flop bet"
    assert seen[0] == pytest.approx((future, implied))


@pytest.mark.parametrize("share", [0.0, 0.3, 0.7, 1.0])
def test_the_bettors_range_splits_by_whether_it_goes_on(share):
    # The villain raises every street; its modelled bet share on the next round is
    # `share`. The part of its table that goes on is the part above the (1 - share)
    # quantile of all holdings' strengths, so go_on is that part's weight share and our
    # strength against it is no higher than against the whole table, and against the
    # rest no lower.
    seen = []

    class Hero(_Fixed):
        def act(self, ctx):
            action = super().act(ctx)  # assess() fills _hs_each
            if ctx.round in (1, 2) and ctx.to_call > 0:
                seen.append((ctx.round, self.call_outlook(ctx), dict(self._hs_each)))
            return action

    Hero.triple = (1.0 - share, 0.0, share)
    hero = Hero("hero", np.random.default_rng(1), EngineConfig(opponent_model="generic", bettor="triples",
                                                               heads_up="engine"))
    villain = create_player("raise", np.random.default_rng(2), name="villain")
    deal = Deal(((ev.parse_card("9s"), ev.parse_card("9h")), (ev.parse_card("Ks"), ev.parse_card("Kh"))),
                tuple(ev.parse_cards("Qd 8s 3c 4h 9d")))
    Dealer(TableConfig(seats=2)).play_hand([hero, villain], deal, button=0, hand_id="t:1")
    assert seen
    for rnd, out, hs_each in seen:
        hs = hs_each["villain"]
        assert 0.0 <= out["go_on"] <= 1.0
        if share == 0.0:
            assert out["go_on"] == 0.0
        if share == 1.0:
            assert out["go_on"] == pytest.approx(1.0)
        if 0.0 < out["go_on"] < 1.0:
            assert out["hs_on"] <= hs + 1e-12 <= out["hs_off"] + 2e-12
            # The whole is the weighted mix of the parts.
            mix = out["go_on"] * out["hs_on"] + (1 - out["go_on"]) * out["hs_off"]
            assert mix == pytest.approx(hs, abs=1e-9)
        # Heads-up nobody acts after our call; the bettor bets each later round (big bet 20).
        assert out["future_bets"] == pytest.approx(20.0 * (3 - rnd))


@pytest.mark.parametrize("button", [0, 1, 2])
def test_a_raise_behind_is_a_bet_to_come(button):
    # Three-handed, both opponents always bet and raise; whenever the hero faces a bet
    # with an opponent still to act after its call (one who has put in less), a raise
    # from it is a bet to come: 10 on the flop, 20 on the turn and river; then a big bet
    # (20) on each later round, and on the flop and turn a big bet paid by a caller.
    expected = {1: (10.0 + 40.0, 20.0), 2: (20.0 + 20.0, 20.0), 3: (20.0, 0.0)}
    seen = []

    class Hero(_Fixed):
        def act(self, ctx):
            if ctx.round >= 1 and ctx.to_call > 0 and ctx.can_raise:
                put = {}
                for a in ctx.actions:
                    if a.round == ctx.round:
                        put[a.player] = put.get(a.player, 0) + a.amount
                level = put.get(self.name, 0) + ctx.to_call
                if any(put.get(p, 0) < level for p in ctx.active if p != self.name):
                    seen.append((ctx.round, self.bets_to_come(ctx)))
            return super().act(ctx)

    Hero.triple = (0.0, 0.0, 1.0)
    hero = Hero("hero", np.random.default_rng(1), EngineConfig(opponent_model="generic", bettor="triples"))
    players = [create_player("raise", np.random.default_rng(2), name="r1"), hero,
               create_player("raise", np.random.default_rng(3), name="r2")]
    deal = Deal(((ev.parse_card("Ks"), ev.parse_card("Kh")), (ev.parse_card("As"), ev.parse_card("Ah")),
                 (ev.parse_card("Qs"), ev.parse_card("Qh"))), tuple(ev.parse_cards("2c 7d 9h Jc 3s")))
    Dealer(TableConfig(seats=3)).play_hand(players, deal, button=button, hand_id="t:1")
    for rnd, got in seen:
        assert got == pytest.approx(expected[rnd]), rnd
    if button == 0:  # r1 first after the flop: r1 bets, the hero faces it with r2 to come
        assert seen


def test_old_rule_still_selectable_and_default_is_showdown():
    assert EngineConfig().call_rule == "showdown"
    player = create_player("poki(call_rule=pot_odds)", np.random.default_rng(0), name="p")
    assert player.settings.call_rule == "pot_odds"
