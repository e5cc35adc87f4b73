"""House bots and player specs: the registry's errors, each bot's behaviour, West's [west-2005]
rate-of-return table and Billings et al.'s [loki2-1999] styles measured in play."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agent.config import TableConfig
from agent.game.events import BoardDealt, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.game.tracker import Tracker
from agent.play.offline.dealer import play_match
from agent.players import SpecError, create_player, known_kinds, parse_spec
from agent.players.housebots import RateOfReturn, preflop_percentile, rate_of_return, rr_triple
from evaluator_pyx.cards import parse_cards

FOLD, CALL, RAISE = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE


# --- specs ------------------------------------------------------------------------------


def test_specs_parse_with_defaults_labels_and_types() -> None:
    spec = parse_spec("loose-passive(vpip=0.5)")
    assert spec.kind == "loose-passive" and spec.label is None
    assert spec.settings == {"vpip": 0.5, "aggression": 0.2, "trials": 500}
    assert str(spec) == "loose-passive(vpip=0.5)"
    assert parse_spec("rr").settings == {"trials": 1000}
    hero = parse_spec(" hero = rr( trials = 2000 ) ")
    assert hero.label == "hero" and hero.settings == {"trials": 2000} and str(hero) == "hero=rr(trials=2000)"
    assert parse_spec("random(fold=0, raise=2)").settings == {"fold": 0.0, "call": 1.0, "raise": 2.0}
    assert parse_spec("style(vpip=1)").settings["vpip"] == 1.0
    assert parse_spec("tight-conservative").settings == parse_spec("tight-passive").settings
    for name in ("rr", "call", "raise", "random", "tight-aggressive", "tight-passive",
                 "loose-aggressive", "loose-passive"):
        assert name in known_kinds()


@pytest.mark.parametrize("text, words", [
    ("nosuch", "unknown player 'nosuch' (known: "),
    ("rr(depth=3)", "rr has no setting 'depth' (settings: trials)"),
    ("rr(trials=1.5)", "trials must be a whole number"),
    ("rr(trials=5)", "trials must be at least 10"),
    ("tight-aggressive(vpip=2)", "vpip must be at most 1"),
    ("tight-aggressive(vpip=wide)", "vpip must be a number"),
    ("rr(trials=100", "missing ')'"),
    ("rr(trials)", "expected key=value"),
    ("rr(trials=100, trials=200)", "trials is set twice"),
    ("call)", "')' without '('"),
    ("9lives", "not a player name"),
    ("a b=rr", "bad seat name"),
    ("rr(trials=)", "has no value"),
])
def test_bad_specs_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert words in str(info.value)
    assert repr(text) in str(info.value)


def test_players_need_a_generator() -> None:
    with pytest.raises(TypeError, match="numpy Generator"):
        create_player("call", 42)  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test
    player = create_player("hero=rr", np.random.default_rng(0))
    assert player.name == "hero" and player.trials == 1000
    assert create_player("rr", np.random.default_rng(0), name="seat3").name == "seat3"


# --- decisions ------------------------------------------------------------------------------


def context(hole: str, board: str = "", actions=(), seats: int = 2, viewer: str = "p0"):
    """A snapshot after the given actions, as `viewer` sees it (p0 is the big blind
    heads-up, p1 the button)."""
    names = tuple(f"p{k}" for k in range(seats))
    t = Tracker()
    t.apply(HandStarted("h", "test", names, (1000,) * seats, seats - 1, 5, 10, 10, 20))
    t.apply(HoleCards(viewer, tuple(parse_cards(hole))))
    for a in actions:
        if isinstance(a, str):
            t.apply(BoardDealt(tuple(parse_cards(a))))
        else:
            t.apply(PlayerActed(None, a))
    return t.snapshot(viewer)


def decisions(player, ctx, count: int = 2000) -> Counter:
    return Counter(player.act(ctx) for _ in range(count))


def test_simple_bots() -> None:
    rng = np.random.default_rng(0)
    facing = context("7c2d", actions=(RAISE,))  # p1 raised, p0 to act
    free = context("7c2d", actions=(CALL,))  # p1 limped, p0 may check
    capped = context("7c2d", actions=(RAISE, RAISE, RAISE))  # 4 bets: capped
    assert create_player("call", rng).act(facing) == CALL
    bully = create_player("raise", rng)
    assert bully.act(facing) == RAISE and bully.act(capped) == CALL
    counts = decisions(create_player("random", rng), facing, 3000)
    assert set(counts) == {FOLD, CALL, RAISE} and min(counts.values()) > 800
    counts = decisions(create_player("random", rng), free, 3000)
    assert set(counts) == {CALL, RAISE}  # no fold with nothing to call
    counts = decisions(create_player("random(fold=0, raise=3)", rng), facing, 4000)
    assert FOLD not in counts and 0.7 < counts[RAISE] / 4000 < 0.8


def test_rate_of_return_table_of_seed_001() -> None:
    assert rr_triple(0.5) == (0.95, 0.0, 0.05)
    assert rr_triple(0.9) == (0.80, 0.05, 0.15)
    assert rr_triple(1.2) == (0.0, 0.60, 0.40)
    assert rr_triple(1.3) == (0.0, 0.30, 0.70)
    assert rr_triple(5.0) == (0.0, 0.30, 0.70)
    # Pot odds: to call / (pot + to call); with nothing to call, a bet's odds.
    facing = context("7c2d", actions=(RAISE,))  # pot 30, 10 to call
    assert facing.to_call == 10 and facing.pot == 30
    assert rate_of_return(0.5, facing) == pytest.approx(0.5 * 40 / 10)
    free = context("7c2d", actions=(CALL,))  # pot 20, check or bet 10
    assert rate_of_return(0.25, free) == pytest.approx(0.25 * 30 / 10)


def test_rate_of_return_bot_follows_its_table() -> None:
    bot = RateOfReturn("rr", np.random.default_rng(1), trials=2000)
    # Aces pre-flop facing one raise: HS about 0.85, RR far above 1.3 -> 30% call, 70% raise.
    aces = decisions(bot, context("AsAh", actions=(RAISE,)), 1500)
    assert FOLD not in aces and 0.64 < aces[RAISE] / 1500 < 0.76
    # Seven-deuce four-handed on a flop of three hearts, facing a bet and a call: HS
    # against three random hands is tiny, RR < 0.8 -> 95% fold, 5% raise.
    trash = context("7c2d", actions=(CALL, CALL, CALL, CALL, "AhKhQh", RAISE, CALL),
                    seats=4, viewer="p2")
    assert trash.actor == "p2" and trash.to_call == 10 and trash.pot == 60
    counts = decisions(bot, trash, 1500)
    assert CALL not in counts and 0.92 < counts[FOLD] / 1500 < 0.98
    # With nothing to call a fold is a check.
    checked = decisions(bot, context("7c2d", actions=(CALL, CALL, "AhKsQh")), 600)
    assert FOLD not in checked and checked[CALL] > 500


def test_bots_are_reproducible_from_their_generator() -> None:
    ctx = context("Jd9d", actions=(CALL, CALL, "Td8c2s"))
    runs = []
    for _ in range(2):
        bot = create_player("loose-aggressive", np.random.default_rng(77))
        runs.append([bot.act(ctx) for _ in range(50)])
    assert runs[0] == runs[1]
    other = create_player("loose-aggressive", np.random.default_rng(78))
    assert [other.act(ctx) for _ in range(50)] != runs[0]


def test_preflop_ranking() -> None:
    order = ["AsAh", "KsKh", "AsKs", "AsKh", "JsTs", "7s6s", "9h4c", "7c2d"]
    values = [preflop_percentile(tuple(parse_cards(h))) for h in order]
    assert values == sorted(values, reverse=True)
    assert values[0] > 0.99 and values[-1] < 0.1
    assert preflop_percentile(tuple(parse_cards("AsKs"))) == preflop_percentile(
        tuple(parse_cards("KdAd")))


# --- styles in play ([loki2-1999]) -------------------------------------------------------------


def style_stats(spec: str, hands: int = 1500) -> dict[str, float]:
    """Heads-up against always-call: how often the style bot plays a hand it must pay to
    see (pre-flop, facing a bet), and how often it bets or raises after the flop."""
    players = [create_player(spec, np.random.default_rng(11), name="style"),
               create_player("call", np.random.default_rng(12), name="caller")]
    result = play_match(players, TableConfig(seats=2), hands, 21, keep_records=True)
    faced = played = post = aggressive = 0
    for record in result.records:
        first = next((a for a in record.actions
                      if a.player == "style" and a.kind not in ("sb", "bb")), None)
        if first is not None and first.round == 0 and first.bets_to_call >= 1:
            faced += 1
            played += first.kind != "f"
        for a in record.actions:
            if a.player == "style" and a.round > 0:
                post += 1
                aggressive += a.kind in ("b", "r")
    return {"vpip": played / faced, "aggression": aggressive / max(post, 1)}


def test_tight_loose_aggressive_passive_styles() -> None:
    stats = {name: style_stats(f"{name}(trials=200)") for name in
             ("tight-aggressive", "tight-passive", "loose-aggressive", "loose-passive")}
    for name, s in stats.items():
        target = 0.25 if name.startswith("tight") else 0.6
        assert abs(s["vpip"] - target) < 0.06, (name, s)
    assert stats["loose-passive"]["vpip"] > stats["tight-passive"]["vpip"] + 0.25
    assert stats["tight-aggressive"]["aggression"] > 1.5 * stats["tight-passive"]["aggression"]
    assert stats["loose-aggressive"]["aggression"] > 1.5 * stats["loose-passive"]["aggression"]
    wide = style_stats("loose-passive(vpip=0.9, trials=200)")
    assert abs(wide["vpip"] - 0.9) < 0.05


def test_monte_carlo_thresholds_bot() -> None:
    rng = np.random.default_rng(3)
    bot = create_player("mc", rng)
    # Pre-flop: the top fifth plays (aces raise), seven-deuce folds to a raise.
    assert bot.act(context("7c2d", actions=(RAISE,))) == FOLD
    assert bot.act(context("AcAd", actions=(RAISE,))) == RAISE
    assert preflop_percentile(tuple(parse_cards("KcJd"))) > 0.8
    assert bot.act(context("KcJd", actions=(RAISE,))) == CALL
    # Flop, nobody has bet (p0 acts first after the flop): bet the nuts, check air.
    flop = (CALL, CALL, "AhKhQh")
    assert bot.act(context("JhTh", actions=flop)) == RAISE
    assert bot.act(context("7c2d", actions=flop)) == CALL
    # Facing a bet: air (strength far under the pot odds of 10 to win 30) folds; two
    # pair (strength well above the raise bar) raises.
    assert bot.act(context("7c2d", actions=(CALL, CALL, "AhKh8s", CALL, RAISE))) == FOLD
    assert bot.act(context("AcKd", actions=(CALL, CALL, "AhKh8s", CALL, RAISE))) == RAISE
