"""River re-solving (agent.engine.resolve): the terminal values against a brute force
over holding pairs, a river with two holdings each against its equilibrium solved by hand
and a brute-force best response written here, exploitability falling with iterations,
the re-solving gadget's safety bound, and the decision budget's fallback counting."""
from __future__ import annotations

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.engine.equilibrium import BettingTree, StrategyFile, betting_tree, load_strategy
from agent.engine.heads_up import StrategyView
from agent.engine.lbr import TargetedLocalBestResponse
from agent.engine.player import PokiPlayer
from agent.engine.resolve import (
    ResolvedView,
    ResolveSettings,
    RiverResolver,
    RiverSolver,
    RiverSubgame,
    blueprint_strategy,
    exploitability,
)

RIVER_ROOT = "crc/cc/cc/"  # button calls, big blind raises, button calls; checked to the river
# A line the shipped blueprint plays with many holdings: the button raises, the big blind
# calls; on the flop it checks, the button bets, it calls; the turn is checked.
PLAYED_ROOT = "rc/crc/cc/"
PLAYED = ((("A", "r"), ("B", "c")), (("B", "c"), ("A", "r"), ("B", "c")), (("B", "c"), ("A", "c")))


@pytest.fixture(scope="module")
def tree() -> BettingTree:
    return betting_tree()


@pytest.fixture(scope="module")
def shipped() -> StrategyFile:
    return load_strategy()


def _cards(text: str) -> tuple[int, ...]:
    return tuple(int(c) for c in ev.parse_cards(text))


def _row(g: RiverSubgame, text: str) -> int:
    a, b = _cards(text)
    return int(np.nonzero(g.holdings == ev.holding_index_of_cards(a, b))[0][0])


def test_terminal_values_match_every_pair(tree: BettingTree) -> None:
    board = _cards("Ah Kh 7h 7c 2d")  # flushes, full houses and many ties
    g = RiverSubgame(tree, tree.node_of[RIVER_ROOT], board)
    rng = np.random.default_rng(4301)
    q = rng.random((2, g.n))
    board_mask = ev.cards_to_mask(board)
    masks = [ev.cards_to_mask(ev.HOLDING_CARDS[h]) for h in g.holdings]
    values = np.array([ev.evaluate(m | board_mask) for m in masks])
    free = np.array([[(masks[i] & masks[j]) == 0 for j in range(g.n)] for i in range(g.n)], dtype=float)
    sign = np.sign(values[:, None] - values[None, :]) * free
    np.testing.assert_allclose(g.showdown(q), q @ sign.T, atol=1e-9)
    np.testing.assert_allclose(g.unblocked(q), q @ free.T, atol=1e-9)


# --- a river with two holdings each, solved by hand ------------------------------------------
# Board 2c 7d 9h Js 3s. The button holds the nuts (Tc 8c, a straight) or air (4c 5c, jack
# high), half each; the big blind a bluff-catcher (Kh Jh or Kd Jd, a pair of jacks). Each put
# in 2 small bets before the river (pot P = 4), the river bet is B = 2. The big blind checks
# (leading loses more to the nuts' raise than it wins from air, which folds); the nuts bet;
# air bets B / (P + B) = 1/3 as often, so that calling is indifferent; the big blind calls
# P / (P + B) = 2/3 of the time, so that bluffing is indifferent to checking. The button wins
# 2 + 2/3 x 2 with the nuts and loses 2 with air: 2/3 small bets a deal on average.
TOY_BOARD = "2c 7d 9h Js 3s"
TOY_BUTTON = ("Tc 8c", "4c 5c")
TOY_BIG_BLIND = ("Kh Jh", "Kd Jd")
TOY_VALUE = 2.0 / 3.0


def _toy(tree: BettingTree) -> tuple[RiverSubgame, tuple[np.ndarray, np.ndarray]]:
    g = RiverSubgame(tree, tree.node_of[RIVER_ROOT], _cards(TOY_BOARD))
    r0, r1 = np.zeros(g.n), np.zeros(g.n)
    for text in TOY_BUTTON:
        r0[_row(g, text)] = 1.0
    for text in TOY_BIG_BLIND:
        r1[_row(g, text)] = 1.0
    return g, (r0, r1)


def _brute_force_best_response(g: RiverSubgame, strategy: dict[int, np.ndarray], ranges: tuple[np.ndarray, np.ndarray],
                               responder: int) -> float:
    """The best response's value, walking the tree for each of the responder's holdings
    against the other's holdings one by one, payoffs from the evaluator's 7-card values."""
    tree = g.tree
    board_mask = ev.cards_to_mask(g.board)
    hands = [i for i in range(g.n) if ranges[responder][i] > 0]
    others = [j for j in range(g.n) if ranges[1 - responder][j] > 0]
    masks = [ev.cards_to_mask(ev.HOLDING_CARDS[h]) for h in g.holdings]

    def payoff(node: int, mine: int, theirs: int) -> float:
        amount = float(tree.amount[node])
        if int(tree.kind[node]) == 1:
            return -amount if int(tree.actor[node]) == responder else amount
        a = ev.evaluate(masks[mine] | board_mask)
        b = ev.evaluate(masks[theirs] | board_mask)
        return amount * float(np.sign(a - b))

    def walk(node: int, mine: int, reach: dict[int, float]) -> float:
        if int(tree.kind[node]) != 0:
            return sum(w * payoff(node, mine, j) for j, w in reach.items())
        kids = g.kids[node]
        if int(tree.actor[node]) == responder:
            return max(walk(c, mine, reach) for c in kids)
        return sum(walk(c, mine, {j: w * float(strategy[node][i, j]) for j, w in reach.items()})
                   for i, c in enumerate(kids))

    total = 0.0
    for h in hands:
        reach = {j: float(ranges[1 - responder][j]) for j in others if (masks[h] & masks[j]) == 0}
        total += float(ranges[responder][h]) * walk(g.root, h, reach)
    return total


def test_two_holdings_each_reach_the_equilibrium_solved_by_hand(tree: BettingTree) -> None:
    g, ranges = _toy(tree)
    solver = RiverSolver(g, ranges, opponent=1)
    solver.iterate(400)
    avg = solver.average()
    v0, v1 = g.evaluate(avg, *ranges)
    joint = 4.0  # four pairs of holdings, none sharing a card
    assert float(ranges[0] @ v0) / joint == pytest.approx(TOY_VALUE, abs=0.02)
    assert float(ranges[1] @ v1) / joint == pytest.approx(-TOY_VALUE, abs=0.02)
    # The brute force's best responses: neither player gains more than a little.
    br0 = _brute_force_best_response(g, avg, ranges, 0) / joint
    br1 = _brute_force_best_response(g, avg, ranges, 1) / joint
    assert br0 == pytest.approx(TOY_VALUE, abs=0.02)
    assert br1 == pytest.approx(-TOY_VALUE, abs=0.02)
    # The solver's own exploitability routine agrees with the brute force.
    assert exploitability(g, avg, ranges) == pytest.approx(br0 + br1, abs=1e-9)
    # The bluff-catcher calls a bet about 2/3 of the time.
    node = tree.node_of[RIVER_ROOT + "cr"]
    call = avg[node][1]  # fold, call, raise
    assert float(call[_row(g, "Kh Jh")]) == pytest.approx(2.0 / 3.0, abs=0.08)


def test_a_wrong_strategy_is_exploitable_by_the_brute_force(tree: BettingTree) -> None:
    """The brute force can fail: always calling with the bluff-catcher gives the nuts more."""
    g, ranges = _toy(tree)
    uniform = {n: np.full((len(g.kids[n]), g.n), 1.0 / len(g.kids[n])) for n in g.decisions}
    assert _brute_force_best_response(g, uniform, ranges, 0) / 4.0 > TOY_VALUE + 0.2


def test_exploitability_falls_with_iterations(tree: BettingTree) -> None:
    g = RiverSubgame(tree, tree.node_of[RIVER_ROOT], _cards("Qs 9d 8d 4c 2h"))
    rng = np.random.default_rng(4302)
    ranges = (rng.random(g.n), rng.random(g.n))
    solver = RiverSolver(g, ranges, opponent=1)
    seen = []
    for step in (10, 30, 120):
        solver.iterate(step)
        seen.append(exploitability(g, solver.average(), ranges))
    assert seen[0] > seen[1] > seen[2] >= 0.0
    assert seen[2] < seen[0] / 4


def _river_ranges(view: StrategyView, g: RiverSubgame) -> tuple[np.ndarray, np.ndarray]:
    from agent.engine.lbr import range_of

    mask = ev.cards_to_mask(g.board)
    return (g.restrict(range_of(view, PLAYED, g.board, "A", mask)),
            g.restrict(range_of(view, PLAYED, g.board, "B", mask)))


def test_the_gadget_keeps_the_opponent_at_its_blueprint_values(tree: BettingTree, shipped: StrategyFile) -> None:
    """Each opponent holding wins no more against the re-solved river than its best
    response to the blueprint's river did; without the gadget (the opponent's range
    fixed) some holding wins more, so the check can fail."""
    view = StrategyView(shipped.game, shipped.policy)
    g = RiverSubgame(shipped.game.tree, shipped.game.tree.node_of[PLAYED_ROOT], _cards("Kc Td 6s 5s 2d"))
    ranges = _river_ranges(view, g)
    us, them = 0, 1
    blueprint = blueprint_strategy(g, view)
    bound = g.evaluate(blueprint, *ranges, best_responder=them)[them]
    scale = float(np.abs(bound).max())

    def gains(gadget: bool) -> np.ndarray:
        weights = ranges[them] / ranges[them].sum() * 0.95 + 0.05 / g.n
        solver = RiverSolver(g, (ranges[0], weights) if gadget else ranges, them, bound if gadget else None)
        solver.iterate(300)
        ours = solver.average()
        # Our re-solved river; the opponent's nodes are replaced by its best response.
        profile = {n: (ours[n] if int(g.tree.actor[n]) == us else blueprint[n]) for n in g.decisions}
        return g.evaluate(profile, *ranges, best_responder=them)[them] - bound

    assert float(gains(gadget=True).max()) <= 0.005 * scale
    assert float(gains(gadget=False).max()) > 0.02 * scale


def test_resolver_solves_once_a_hand_and_counts_fallbacks(shipped: StrategyFile) -> None:
    view = StrategyView(shipped.game, shipped.policy)
    board = _cards("Kc Td 6s 5s 2d")
    history = PLAYED + ((),)
    resolver = RiverResolver(ResolveSettings(iterations=20, deadline_s=60.0))
    first = resolver.view(view, history, board, ("A", "B"), "A", "B", key="hand-1")
    assert isinstance(first, ResolvedView)
    again = resolver.view(view, history + ((("B", "c"),),), board, ("A", "B"), "A", "B", key="hand-1")
    assert again is first and resolver.solves == 1 and resolver.fallbacks == 0
    node = shipped.game.tree.node_of[PLAYED_ROOT]
    hole = _cards("Ks Qs")
    g = first.solution.subgame
    np.testing.assert_allclose(first.probabilities(node, hole, board),
                               first.solution.strategy[node][:, _row(g, "Ks Qs")], atol=1e-6)
    assert first.all_holdings(node, board).shape == (ev.N_HOLDINGS, 2)
    assert len(resolver.seconds) == 1 and 0.0 < resolver.seconds[0] < 60.0
    # A deadline no solve can meet: the blueprint plays, and the fallback is counted.
    late = RiverResolver(ResolveSettings(iterations=20, deadline_s=0.0))
    assert late.view(view, history, board, ("A", "B"), "A", "B", key="hand-2") is view
    assert late.fallbacks == 1 and late.solves == 0
    assert "1 fallbacks" in late.describe()


def test_poki_re_solves_its_rivers_and_counts_the_fallbacks_of_its_seat_deadline(small_strategy: str) -> None:
    from agent.config import TableConfig
    from agent.play.offline.dealer import Deal, Dealer
    from agent.players import create_player

    table = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4,
                        starting_stack=1000)
    poki = create_player(f"poki(heads_up_strategy='{small_strategy}', heads_up_resolve=river)",
                         np.random.default_rng(1), "poki")
    assert isinstance(poki, PokiPlayer)
    other = create_player(f"cfr(strategy='{small_strategy}')", np.random.default_rng(2), "cfr")
    poki.resolver().settings = ResolveSettings(iterations=10, deadline_s=60.0)  # no fallback from the load
    dealer = Dealer(table)
    rng = np.random.default_rng(4303)

    def play(hands: int, first: int) -> None:
        for h in range(first, first + hands):
            seated = [poki, other] if h % 2 else [other, poki]
            dealer.play_hand(seated, Deal.draw(rng, 2), button=1, hand_id=f"h{h}")

    play(30, 0)
    resolver = poki.resolver()
    assert resolver.solves >= 1 and resolver.fallbacks == 0
    assert poki.illegal_choices == 0
    assert f"{resolver.solves} solves, 0 fallbacks" in poki.describe()
    # A seat whose deadline leaves the solve no time: every river falls back to the blueprint.
    solves = resolver.solves
    poki.set_deadline(1e-9)
    play(30, 30)
    assert resolver.solves == solves and resolver.fallbacks >= 1
    assert f"{resolver.fallbacks} fallbacks" in poki.describe()


def test_lbr_replica_re_solves_the_river_poki_plays(small_strategy: str) -> None:
    """LBR's replica of a re-solving Poki computes the very river strategy Poki plays
    (the solve reads public information only), so LBR's figure is against Poki as it is."""
    from agent.config import TableConfig
    from agent.play.offline.dealer import Deal, Dealer
    from agent.players import create_player

    table = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4,
                        starting_stack=1000)
    poki = create_player(f"poki(heads_up_strategy='{small_strategy}', heads_up_resolve=river)",
                         np.random.default_rng(1), "poki")
    lbr = create_player(f"lbr(target=poki, strategy='{small_strategy}', preflop_trials=200, resolve=river)",
                        np.random.default_rng(2), "lbr")
    assert isinstance(poki, PokiPlayer) and isinstance(lbr, TargetedLocalBestResponse)
    poki.resolver().settings = ResolveSettings(iterations=10, deadline_s=60.0)
    lbr._replica.resolver.settings = ResolveSettings(iterations=10, deadline_s=float("inf"))
    dealer = Dealer(table)
    rng = np.random.default_rng(4304)
    compared = 0
    for h in range(40):
        seated = [poki, lbr] if h % 2 else [lbr, poki]
        dealer.play_hand(seated, Deal.draw(rng, 2), button=1, hand_id=f"h{h}")
        ours, theirs = poki.resolver()._view, lbr._replica.resolver._view
        if isinstance(ours, ResolvedView) and isinstance(theirs, ResolvedView) and ours.solution.subgame.board == \
                theirs.solution.subgame.board and poki.resolver()._key[0] == lbr._replica.resolver._key[0]:
            assert ours.solution.strategy.keys() == theirs.solution.strategy.keys()
            for node, strategy in ours.solution.strategy.items():
                np.testing.assert_array_equal(strategy, theirs.solution.strategy[node])
            compared += 1
    assert compared >= 1
