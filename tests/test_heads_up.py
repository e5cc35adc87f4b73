"""Poki heads-up (agent.engine.response) and the local best response (agent.engine.lbr):
Poki starts at the equilibrium and moves only with evidence; the opponent model stays at
the equilibrium against an equilibrium player and follows a player that does not; the
restricted response earns more than the equilibrium against what it models; LBR's
pieces against plain enumeration, and LBR against a strategy it knows."""
from __future__ import annotations

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import TableConfig
from agent.engine.equilibrium import load_strategy
from agent.engine.lbr import lbr_values, range_of, share_against
from agent.engine.response import HeadsUpResponder, ResponseSettings, equilibrium_frequencies
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.play.offline.tournament import TournamentSetup, run_tournament
from agent.players import create_player
from tests.helpers.references import reference_package

HEADS_UP = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4,
                       starting_stack=1000)


def _play(players, hands, seed=1):
    dealer = Dealer(HEADS_UP)
    rng = np.random.default_rng(seed)
    records = []
    for h in range(hands):
        seated = players if h % 2 else players[::-1]
        records.append(dealer.play_hand(list(seated), Deal.draw(rng, 2), button=1, hand_id=f"h{h}"))
    return records


def test_equilibrium_frequencies_are_distributions(small_strategy):
    s = load_strategy(small_strategy)
    freq = equilibrium_frequencies(s.game, s.policy)
    # Every context, also those the self-play never reaches (their plain mean).
    assert freq.shape[1] == 3 and np.allclose(freq.sum(axis=1), 1.0)
    assert (freq >= 0).all()


def test_poki_heads_up_starts_at_the_equilibrium(small_strategy):
    poki = create_player(f"poki(heads_up_strategy='{small_strategy}')", np.random.default_rng(1), "poki")
    other = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(2), "eq")
    _play([poki, other], 20)
    responder = poki.responder()
    assert poki.heads_up_decisions > 0
    # Fewer hands than min_hands: no response solved, the equilibrium is played.
    assert responder.solves == 0
    assert responder.view("eq").policy is responder.equilibrium


@pytest.mark.slow
def test_the_model_of_an_equilibrium_player_stays_near_the_equilibrium(small_strategy):
    # The model is tilted from the equilibrium by the counts at the nodes seen, against
    # what an equilibrium player would have done there: against cfr (the same strategy)
    # it moves little (noise, and what the real deals do that the abstract game's chance
    # does not), against an always-calling player it calls at the nodes it was seen at.
    s = load_strategy(small_strategy)
    settings = ResponseSettings(min_hands=10**9)  # learn only
    eq_player = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(2), "eq")
    caller = create_player("call", np.random.default_rng(3), "caller")
    me = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(4), "me")
    distance = {}
    for opponent in (eq_player, caller):
        responder = HeadsUpResponder(s, settings)
        for record in _play([me, opponent], 300, seed=5):
            responder.observe(record, "me")
        model = responder.model(opponent.name)
        assert np.isfinite(model).all()
        distance[opponent.name] = float(np.abs(model - s.policy).mean())
        if opponent is caller:
            shares = []
            for n, counts in responder._obs["caller"].counts.items():
                block = s.game.block_of[n]
                if 0 in block.letters and counts.sum() >= 10:  # facing a bet, seen often
                    shares.append(block.rows(model)[:, block.letters.index(1)].mean())
            assert shares and min(shares) > 0.75
    assert distance["eq"] < distance["caller"] / 2


@pytest.mark.slow
def test_the_response_earns_more_than_the_equilibrium_against_what_it_models(small_strategy):
    s = load_strategy(small_strategy)
    game = s.game
    responder = HeadsUpResponder(s, ResponseSettings(min_hands=200, p_max=0.5, iterations=60))
    me = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(4), "me")
    caller = create_player("call", np.random.default_rng(3), "caller")
    for record in _play([me, caller], 200, seed=6):
        responder.observe(record, "me")
    assert responder.solves == 1 and responder.last_p["caller"] > 0.0
    model = responder.model("caller")
    response = responder.view("caller").policy
    seats = responder.game.seat_of_entry()
    solver = game.solver()

    def against_model(policy):
        as_button = solver.profile_values(np.where(seats == 0, policy, model), 1)[0]
        as_big_blind = solver.profile_values(np.where(seats == 1, policy, model), 1)[1]
        return (as_button + as_big_blind) / 2

    assert against_model(response) > against_model(s.policy) + 0.05


@pytest.mark.slow
def test_eps_fit_reads_a_card_blind_opponent(small_strategy):
    s = load_strategy(small_strategy)
    me = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(4), "me")
    blind = create_player("random(fold=0)", np.random.default_rng(8), "blind")
    eq_player = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(9), "eq")
    fits = {}
    for opponent in (blind, eq_player):
        responder = HeadsUpResponder(s, ResponseSettings(min_hands=10**9))
        for record in _play([me, opponent], 400, seed=7):
            responder.observe(record, "me")
        responder.model(opponent.name)
        fits[opponent.name] = responder.last_eps[opponent.name]
    assert fits["blind"] > 0.4 and fits["eq"] < 0.15


def test_lbr_values_worked_by_hand():
    # Pot 6, 1 to call, a bet of 1, wp 0.4, the opponent folds a raise 25% of the time:
    # call 0.4 x 6 - 0.6 x 1 = 1.8; raise 0.25 x 6 + 0.75 x (0.4 x 7 - 0.6 x 2) = 2.7.
    v = lbr_values(0.4, 6.0, 1.0, 1.0, 0.25)
    assert v == pytest.approx({"c": 1.8, "f": 0.0, "r": 2.7})
    assert "f" not in lbr_values(0.4, 6.0, 0.0, 1.0, None) and "r" not in lbr_values(0.4, 6.0, 0.0, 1.0, None)


def test_lbr_share_against_a_range_equals_enumeration():
    eval7 = reference_package("eval7")
    hole = tuple(ev.parse_cards("Ts 9s"))
    board = tuple(ev.parse_cards("8s 7d 2s Kc"))
    weights = np.zeros(ev.N_HOLDINGS)
    for text, w in (("Ah Kh", 2.0), ("8c 8h", 1.0), ("Js Jd", 0.5), ("6h 5h", 1.5)):
        weights[ev.holding_index_of_cards(*ev.parse_cards(text))] = w
    card = [eval7.Card(ev.CARD_NAMES[c]) for c in range(52)]
    num = den = 0.0
    for i in np.nonzero(weights)[0]:
        opp = ev.HOLDING_CARDS[i]
        for river in range(52):
            if river in hole or river in board or river in opp:
                continue
            full = [card[c] for c in board + (river,)]
            ours = eval7.evaluate([card[c] for c in hole] + full)
            theirs = eval7.evaluate([card[c] for c in opp] + full)
            num += weights[i] * (1.0 if ours > theirs else 0.5 if ours == theirs else 0.0)
            den += weights[i]
    got = share_against(hole, board, weights, np.random.default_rng(1), 100)
    assert got == pytest.approx(num / den, abs=1e-12)


def test_lbr_range_is_the_product_of_the_opponents_action_probabilities(small_strategy):
    from agent.engine.heads_up import StrategyView

    s = load_strategy(small_strategy)
    view = StrategyView(s.game, s.policy)
    board = tuple(ev.parse_cards("Qd 7c 3h"))
    # The button ("opp") raised, we called, then on the flop we checked and it bet.
    history = ((("opp", "sb"), ("me", "bb"), ("opp", "r"), ("me", "c")), (("me", "k"), ("opp", "b")))
    blocked = ev.cards_to_mask(list(board) + ev.parse_cards("2c 2d"))
    weights = range_of(view, history, board, "opp", blocked)
    h = ev.holding_index_of_cards(*ev.parse_cards("Ks Kh"))
    pre = view.all_holdings(s.game.tree.node_of[""], ())[h]
    flop = view.all_holdings(s.game.tree.node_of["rc/c"], board)[h]
    assert weights[h] == pytest.approx(pre[view.letters(s.game.tree.node_of[""]).index("r")]
                                       * flop[view.letters(s.game.tree.node_of["rc/c"]).index("r")])
    assert weights[ev.holding_index_of_cards(*ev.parse_cards("Qd Qh"))] == 0.0  # touches the board


def test_lbr_exploits_a_strategy_that_ignores_its_cards(small_strategy, tmp_path):
    # A strategy that plays every holding alike (uniform over its moves) is far from an
    # equilibrium; LBR, knowing it, wins heavily. Against the trained strategy it wins
    # far less.
    from agent.engine.equilibrium import StrategyFile

    s = load_strategy(small_strategy)
    uniform = s.game.normalise(np.ones(s.game.size, dtype=np.float32))
    path = tmp_path / "uniform.npz"
    StrategyFile.write(path, s.game, uniform, [])
    table = HEADS_UP
    weak = run_tournament(TournamentSetup.from_text(
        [f"lbr(strategy='{path}', preflop_trials=300)", f"cfr(strategy='{path}')"], table, 3, chunk=60), 60)
    lbr_weak = weak.summary()[0].sb_per_hand
    assert lbr_weak > 1.0


def test_lbr_knows_poki_through_its_replica(small_strategy):
    # LBR's replica of Poki's responder, fed the same finished hands, holds the very
    # strategy Poki plays.
    poki = create_player(f"poki(heads_up_strategy='{small_strategy}')", np.random.default_rng(1), "poki")
    lbr = create_player(f"lbr(target=poki, strategy='{small_strategy}', preflop_trials=200)",
                        np.random.default_rng(2), "lbr")
    poki.responder().settings = ResponseSettings(p_max=poki.settings.heads_up_p, min_hands=40)
    lbr._replica.responder.settings = ResponseSettings(p_max=poki.settings.heads_up_p, min_hands=40)
    _play([poki, lbr], 90)
    assert poki.responder().solves >= 1
    assert np.array_equal(poki.policy("lbr").policy, lbr._replica.view("lbr").policy)


def test_at_a_live_table_the_response_is_solved_aside(small_strategy):
    # With background=True (a seat with deadlines) the solve runs on its own thread: the
    # equilibrium is played until it is done, then the response; the counting goes on.
    s = load_strategy(small_strategy)
    responder = HeadsUpResponder(s, ResponseSettings(min_hands=30))
    me = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(4), "me")
    caller = create_player("call", np.random.default_rng(3), "caller")
    records = _play([me, caller], 40, seed=8)
    started = [responder.observe(r, "me", background=True) for r in records]
    assert started.index(True) == 29  # the 30th hand starts it
    responder._solving.join(timeout=600)
    assert not responder._solving.is_alive()
    assert responder.solves == 1 and responder.view("caller").policy is not responder.equilibrium
    assert responder._obs["caller"].hands == 40


@pytest.mark.slow
def test_against_an_equilibrium_player_nothing_is_solved(small_strategy):
    # Its counts never differ significantly from an equilibrium player's (that is what it
    # is): no context is tilted, no response solved, the equilibrium played throughout;
    # against an always-calling player the first solve is due at min_hands and happens.
    s = load_strategy(small_strategy)
    me = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(4), "me")
    for spec, solved in ((f"cfr(strategy='{small_strategy}')", 0), ("call", 1)):
        responder = HeadsUpResponder(s, ResponseSettings(min_hands=400))
        opponent = create_player(spec, np.random.default_rng(6), "them")
        for record in _play([me, opponent], 400, seed=9):
            responder.observe(record, "me")
        assert responder.solves == solved
        assert bool(responder.last_significant["them"]) == bool(solved)


def test_the_strategy_is_read_when_a_heads_up_hand_starts_not_in_a_decision(small_strategy):
    """The strategy file takes about a second to read: Poki reads it when a heads-up hand
    starts (before any time limit of its own runs), never at a table of three."""
    from agent.game.events import HandStarted

    def started(players):
        return HandStarted("h1", "test", tuple(players), (1000,) * len(players), 0, 5, 10, 10, 20)

    poki = create_player(f"poki(heads_up_strategy='{small_strategy}')", np.random.default_rng(1), "poki")
    poki.new_hand(started(["poki", "a", "b"]))
    assert poki._responder is None
    poki.new_hand(started(["poki", "a"]))
    assert poki._responder is not None
    engine = create_player(f"poki(heads_up=engine, heads_up_strategy='{small_strategy}')",
                           np.random.default_rng(1), "poki")
    engine.new_hand(started(["poki", "a"]))
    assert engine._responder is None  # the engine heads-up reads no strategy
