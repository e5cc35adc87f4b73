"""The selective-sampling simulator ([sampling-1999]) checked where the answer is known: with
every strategy fixed to always-call, the EV of checking down (and of one bet called all
the way) is what exact enumeration of the opponents' holdings and the remaining cards
gives, side pots included; obvious moves stop early; a seed repeats; the player that uses
it plays legal hands only."""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import TableConfig
from agent.engine.player import PokiPlayer
from agent.engine.simulator import choose
from agent.game.rules import Action
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import create_player

if os.environ.get("POKI_REQUIRE_COMPILED") == "1":  # CI: a missing build is a failure
    from evaluator_pyx import _simulate
else:
    _simulate = pytest.importorskip("evaluator_pyx._simulate")

CALL = (0.0, 1.0, 0.0)
RAISE = (0.0, 0.0, 1.0)
PARAMS = (0.5, 0.85, 0.05, 0.05, 0.1, 0.2)


def _table(holdings: dict[str, float]) -> np.ndarray:
    w = np.zeros(ev.N_HOLDINGS)
    for text, weight in holdings.items():
        w[ev.holding_index_of_cards(*ev.parse_cards(text))] = weight
    return w


def _spot(hole: str, board: str, weights, *, put, stacks, fixed, n=None, **kw) -> dict:
    n = n or len(put)
    h = ev.parse_cards(hole)
    spot = dict(hole=ev.cards_to_mask(h), board=ev.cards_to_mask(ev.parse_cards(board)), me=0,
                order=list(range(n)), stacks=stacks, put=put, bets=[0] * n,
                folded=[False] * n, acted=[False] * n, round_=1, level=0, raises=0,
                max_bets=4, small_bet=10, big_bet=20, cap_heads_up=True,
                hole_index=ev.holding_index_of_cards(*h), weights=weights,
                freq=np.zeros((n, 12, 3)), fixed=np.array(fixed, dtype=float), params=PARAMS)
    spot.update(kw)
    return spot


def _shares(hands: list[tuple[int, ...]], board: tuple[int, ...]) -> list[float]:
    """Each hand's share of a pot they all contest, over every run-out (exact)."""
    used = set(board).union(*hands)
    rest = [c for c in range(ev.N_CARDS) if c not in used]
    totals = [0.0] * len(hands)
    count = 0
    for run in itertools.combinations(rest, 5 - len(board)):
        values = [ev.evaluate_cards(list(h) + list(board) + list(run)) for h in hands]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            totals[i] += 1.0 / len(winners)
        count += 1
    return [t / count for t in totals]


def _close(sim_mean: float, sim_se: float, exact: float) -> bool:
    return abs(sim_mean - exact) <= 4.5 * sim_se + 1e-9


def test_check_down_equals_enumeration_heads_up():
    hole, board = "AsQc", "3h4cJh"  # Billings et al.'s [testbed-1998] example hand
    opp = {"Jd9d": 3.0, "5h6h": 1.0, "AhKd": 2.0}
    # Exact: weighted over the opponent's holdings, every turn and river.
    h, b = ev.parse_cards(hole), ev.parse_cards(board)
    total = sum(opp.values())
    eq = sum(w * _shares([h, ev.parse_cards(o)], b)[0] for o, w in opp.items()) / total
    spot = _spot(hole, board, [None, _table(opp)], put=[20, 20], stacks=[500, 500],
                 fixed=[CALL, CALL])
    t, ev_c, se_c, ev_r, se_r, early = _simulate.simulate(**spot, trials=20000, min_trials=20000, seed=3)
    assert t == 20000 and not early
    # Check/call: everybody checks to the end, we win our share of the 40 in the pot.
    assert _close(ev_c, se_c, eq * 40), (ev_c, se_c, eq * 40)
    # Bet: the opponent calls our 10, then it is checked down.
    assert _close(ev_r, se_r, eq * 60 - 10), (ev_r, se_r, eq * 60 - 10)
    # And the two are told apart: a wrong pot would miss by far more than the noise.
    assert not _close(ev_c, se_c, eq * 60 - 10)


def test_side_pots_follow_the_rules():
    # Seat 2 is all-in for 15; seats 0 (us) and 1 have 20 in and chips behind. Main pot
    # 45 for all three, side pot 10 (plus any later bets) between seats 0 and 1.
    hole, board = "KsKc", "2h7d9c"
    one, two = "9s8s", "AhAd"
    h, b = ev.parse_cards(hole), ev.parse_cards(board)
    h1, h2 = ev.parse_cards(one), ev.parse_cards(two)
    main = _shares([h, h1, h2], b)[0]
    side = _shares([h, h1], b)[0]
    spot = _spot(hole, board, [None, _table({one: 1.0}), _table({two: 1.0})],
                 put=[20, 20, 15], stacks=[300, 300, 0], fixed=[CALL, CALL, CALL])
    t, ev_c, se_c, ev_r, se_r, _ = _simulate.simulate(**spot, trials=20000, min_trials=20000, seed=9)
    assert _close(ev_c, se_c, main * 45 + side * 10), (ev_c, se_c, main * 45 + side * 10)
    # Our bet is called by seat 1 only: the side pot grows to 30.
    assert _close(ev_r, se_r, main * 45 + side * 30 - 10), (ev_r, se_r, main * 45 + side * 30 - 10)


def test_obvious_fold_is_cut_off_early():
    # Seven-deuce against a made royal flush that raises whenever it can: calling loses.
    spot = _spot("7c2d", "AhKhQh", [None, _table({"JhTh": 1.0})], put=[20, 30],
                 stacks=[500, 500], fixed=[[np.nan] * 3, RAISE], bets=[0, 10], level=10,
                 raises=1, acted=[False, True])
    t, ev_c, se_c, ev_r, se_r, early = _simulate.simulate(**spot, trials=500, min_trials=50, seed=1)
    assert early and t < 500
    assert ev_c < 0 and ev_r < ev_c
    assert choose({Action.FOLD: 0.0, Action.CHECK_CALL: ev_c, Action.BET_RAISE: ev_r}, 0.0,
                  np.random.default_rng(0)) is Action.FOLD


def test_obvious_raise_is_cut_off_early():
    # The royal flush ourselves against a hand that calls everything.
    spot = _spot("JhTh", "AhKhQh", [None, _table({"AsAd": 1.0, "KsQs": 1.0})], put=[20, 20],
                 stacks=[500, 500], fixed=[[np.nan] * 3, CALL])
    t, ev_c, se_c, ev_r, se_r, early = _simulate.simulate(**spot, trials=500, min_trials=50, seed=1)
    assert early and t < 500
    assert ev_r > ev_c + 5


def test_same_seed_same_result_and_bad_input():
    fq = np.tile(np.array([(0, .5, .5), (.5, .3, .2), (.7, .2, .1)] * 4), (4, 1, 1))
    spot = _spot("AsQc", "3h4cJh", [None] * 4, put=[20] * 4, stacks=[500] * 4,
                 fixed=[[np.nan] * 3] * 4, freq=fq)
    a = _simulate.simulate(**spot, trials=300, min_trials=300, seed=11)
    b = _simulate.simulate(**spot, trials=300, min_trials=300, seed=11)
    c = _simulate.simulate(**spot, trials=300, min_trials=300, seed=12)
    assert a == b and a != c
    with pytest.raises(ValueError, match="round"):
        _simulate.simulate(**{**spot, "round_": 0}, seed=1)
    with pytest.raises(ValueError, match="permutation"):
        _simulate.simulate(**{**spot, "order": [0, 0, 1, 2]}, seed=1)
    with pytest.raises(ValueError, match="no holding"):
        _simulate.simulate(**{**spot, "weights": [None, _table({"As2c": 1.0}), None, None]}, seed=1)


def _play(seed: int, hands: int = 25) -> tuple[list, PokiPlayer]:
    rng = np.random.default_rng(seed)
    hero = create_player("poki(bettor=simulator, sim_trials=200)", np.random.default_rng(1), name="hero")
    players = [hero]
    for i, kind in enumerate(["call", "raise", "random", "tight-aggressive(trials=50)"]):
        players.append(create_player(kind, np.random.default_rng(10 + i), name=f"b{i}"))
    dealer = Dealer(TableConfig(seats=len(players)))
    results = []
    for hand in range(hands):
        record = dealer.play_hand(players, Deal.draw(rng, len(players)), button=hand % len(players),
                                  hand_id=f"s:{hand}")
        results.append(record)
    return results, hero


def test_simulator_player_is_legal_and_reproducible(monkeypatch):
    import agent.engine.player as player_module

    calls = []
    real = player_module.simulate_decision

    def counted(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out)
        return out

    monkeypatch.setattr(player_module, "simulate_decision", counted)
    first, hero = _play(4)
    assert len(calls) >= 3  # the post-flop decisions were simulated
    assert all(o.action in (Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE) for o in calls)
    second, _ = _play(4)
    assert hero.illegal_choices == 0 and hero.simulation_failures == 0
    assert first == second
    assert hero.settings.bettor == "simulator"


def test_choose_randomises_only_close_evs():
    evs = {Action.FOLD: 0.0, Action.CHECK_CALL: 1.0, Action.BET_RAISE: 1.2}
    rng = np.random.default_rng(0)
    assert {choose(evs, 0.0, rng) for _ in range(20)} == {Action.BET_RAISE}
    assert {choose(evs, 0.5, rng) for _ in range(50)} == {Action.CHECK_CALL, Action.BET_RAISE}
    # An exact tie goes to the more aggressive action ([sampling-1999]).
    assert choose({Action.FOLD: 0.0, Action.CHECK_CALL: 0.0}, 0.0, rng) is Action.CHECK_CALL


@pytest.mark.parametrize("board", ["3h4cJh2s", "3h4cJh2sKd", "AhKhQhJhTh"])
def test_strengths_are_hand_strength_against_a_random_holding(board):
    # The trial loop's fast count equals the evaluator's exact enumeration ([testbed-1998] HS).
    rng = np.random.default_rng(len(board))
    b = ev.parse_cards(board)
    rest = [c for c in range(ev.N_CARDS) if c not in b]
    cards = rng.choice(rest, size=12, replace=False)
    holes = [(int(cards[2 * i]), int(cards[2 * i + 1])) for i in range(6)]
    got = _simulate.seat_strengths(ev.cards_to_mask(b), [ev.cards_to_mask(h) for h in holes])
    want = [ev.hand_strength(ev.cards_to_mask(h), ev.cards_to_mask(b)) for h in holes]
    assert got == pytest.approx(want, abs=1e-12)


def test_given_strengths_now_are_checked_and_used():
    fq = np.tile(np.array([(0, .5, .5), (.5, .3, .2), (.7, .2, .1)] * 4), (3, 1, 1))
    spot = _spot("AsQc", "3h4cJh", [None] * 3, put=[20] * 3, stacks=[500] * 3,
                 fixed=[[np.nan] * 3] * 3, freq=fq)
    with pytest.raises(ValueError, match="strengths_now"):
        _simulate.simulate(**spot, strengths_now=np.full(1326, 2.0), seed=1)
    # Every holding at strength 0: opponents never bet and fold to a bet, so our bet wins
    # the pot (40 more chips than we risk) whenever they hold anything.
    t, ev_c, _, ev_r, _, _ = _simulate.simulate(**spot, strengths_now=np.zeros(1326),
                                                trials=200, min_trials=200, seed=1)
    assert ev_r == pytest.approx(60.0)


def test_bench_section_runs_and_prints():
    from agent.bench import SECTIONS, format_table
    from agent.bench.simulator import run_simulator_bench
    from agent.config import Config

    assert "simulator" in SECTIONS
    figures = run_simulator_bench(Config(), quick=True)
    assert figures["decisions"] > 0 and figures["trials"] == 500
    assert figures["trials_per_s"] > 0 and figures["p99_ms"] >= figures["median_ms"] > 0
    assert "one simulated decision, 500 trials" in format_table({"simulator": figures})


def test_caps_and_stacks_with_everyone_raising():
    # Everyone always raises: every round is capped at 4 bets (rules: bet + 3 raises), so
    # each player puts in 4 x 10 on the flop and 4 x 20 on the turn and river: 200 more.
    hole, board, opp = "AsQc", "3h4cJh", "Jd9d"
    eq = _shares([ev.parse_cards(hole), ev.parse_cards(opp)], ev.parse_cards(board))[0]
    spot = _spot(hole, board, [None, _table({opp: 1.0})], put=[20, 20], stacks=[1000, 1000],
                 fixed=[RAISE, RAISE])
    t, ev_c, se_c, ev_r, se_r, _ = _simulate.simulate(**spot, trials=20000, min_trials=20000, seed=5)
    exact = eq * (40 + 400) - 200
    assert _close(ev_c, se_c, exact) and _close(ev_r, se_r, exact), (ev_c, ev_r, exact)
    # The opponent has only 50 behind: it is all-in during the flop's betting (20 + 50 =
    # 70 in); the chips we put in above that come back to us, so we risk exactly 50 more.
    spot = _spot(hole, board, [None, _table({opp: 1.0})], put=[20, 20], stacks=[1000, 50],
                 fixed=[RAISE, RAISE])
    t, ev_c, se_c, ev_r, se_r, _ = _simulate.simulate(**spot, trials=20000, min_trials=20000, seed=6)
    exact = eq * 140 - 50
    assert _close(ev_c, se_c, exact) and _close(ev_r, se_r, exact), (ev_c, ev_r, exact)


def test_player_falls_back_when_no_deal_is_possible(monkeypatch):
    import agent.engine.player as player_module

    def impossible(*args, **kwargs):
        raise ValueError("no consistent deal")

    monkeypatch.setattr(player_module, "simulate_decision", impossible)
    records, hero = _play(4, hands=15)
    assert hero.simulation_failures > 0 and hero.illegal_choices == 0
    assert len(records) == 15


def test_table_thresholds_are_weighted_quantiles_of_the_table():
    from agent.engine.modeler import weighted_quantile
    from agent.engine.simulator import table_thresholds
    from agent.game.events import BoardDealt, HandStarted, HoleCards, PlayerActed
    from agent.game.tracker import Tracker

    t = Tracker()
    t.apply(HandStarted("h", "test", ("p0", "p1", "p2"), (1000,) * 3, 2, 5, 10, 10, 20))
    t.apply(HoleCards("p0", tuple(ev.parse_cards("AsQc"))))
    for a in (Action.CHECK_CALL, Action.CHECK_CALL, Action.CHECK_CALL):
        t.apply(PlayerActed(None, a))
    t.apply(BoardDealt(tuple(ev.parse_cards("3h4cJh"))))
    ctx = t.snapshot("p0")
    rng = np.random.default_rng(2)
    tables = [None, rng.random(ev.N_HOLDINGS), None]
    freq = np.zeros((3, 12, 3))
    freq[1, 4] = (0.3, 0.5, 0.2)
    freq[2, 4] = (0.5, 0.3, 0.2)
    out = table_thresholds(ctx, "p0", ctx.hole_cards, tables, freq, 0.2)
    board = ev.cards_to_mask(ctx.board)
    strength = ev.holding_strengths(board)
    live = ((np.asarray(ev.HOLDINGS_ARRAY, dtype=np.uint64)
             & np.uint64(board | ev.cards_to_mask(ctx.hole_cards))) == 0)
    w1 = np.where(live, tables[1], 0.0)
    assert out[1, 4, 0] == pytest.approx(weighted_quantile(strength, w1, 0.3))
    assert out[1, 4, 1] == pytest.approx(weighted_quantile(strength, w1, 1 - 0.2 / 0.8))
    # A uniform table: its quantiles are those of every live holding.
    assert out[2, 4, 0] == pytest.approx(weighted_quantile(strength, live.astype(float), 0.5))
    # Contexts with no folds / raises keep the neutral thresholds (never / always).
    assert out[1, 0, 0] == 0.0 and out[1, 0, 1] == 1.0
