"""The hand driver (agent.play.hand_driver): its two modes deal the same hands to the same
ends, an illegal or late move becomes check/call and is counted, a live table's late move
checks or folds, and a player may leave a hand the rules let him leave."""
from __future__ import annotations

import numpy as np
import pytest

from agent.game.betting import ACT, BOARD, OVER, BettingCache
from agent.game.events import HandStarted
from agent.game.rules import Action
from agent.play.hand_driver import HandDriver, Turn
from connectors.acpc.protocol import NO_STACK


def _started(n: int, hand: int, stacks: int = NO_STACK) -> HandStarted:
    return HandStarted(hand_id=f"t:{hand}", source="test", players=tuple(f"p{i}" for i in range(n)),
                       stacks=(stacks,) * n, button=n - 1, small_blind=1, big_blind=2, small_bet=2,
                       big_bet=4, max_bets=4, heads_up_reverse_blinds=True)


@pytest.mark.parametrize("n", [2, 3, 6])
def test_rules_and_fast_modes_play_the_same_hands_to_the_same_ends(n: int) -> None:
    """Seeded hands with random moves, a third of them not legal when made: both modes
    give the same turns, betting, counts and payoffs, and the payoffs are the tracker's."""
    rng = np.random.default_rng(n)
    rules, fast = HandDriver(), HandDriver(BettingCache())
    asked_illegal: dict[str, int] = {}
    for hand in range(150):
        cards = rng.permutation(52)[: 2 * n + 5].tolist()
        holes = [(cards[2 * p], cards[2 * p + 1]) for p in range(n)]
        started = _started(n, hand)
        rules.start(started, holes, cards[2 * n:])
        fast.start(started, holes, cards[2 * n:], fast=True)
        while True:
            turn = rules.to_act()
            assert fast.to_act() == turn
            kind = rules.step()
            assert fast.step() == kind
            if kind == ACT:
                assert isinstance(turn, Turn)
                action = Action(int(rng.integers(3)))
                if action not in turn.legal:
                    name = started.players[turn.position]
                    asked_illegal[name] = asked_illegal.get(name, 0) + 1
                taken, taken_fast = rules.apply(action), fast.apply(action)
                assert taken == taken_fast and (taken.action == action) == (action in turn.legal)
            elif kind == BOARD:
                assert rules.deal_board() == fast.deal_board()
            else:
                assert kind == OVER and turn is None
                break
            assert rules.betting == fast.betting
        ruled, fasted = rules.settle(), fast.settle()
        assert ruled.record is not None and fasted.record is None
        assert ruled.nets == fasted.nets and sum(ruled.nets) == 0
        assert set(ruled.results) == set(fasted.results)
        by_name = {r.player: r.won - r.put_in for r in ruled.record.results}
        assert ruled.nets == tuple(by_name[name] for name in started.players)
    assert asked_illegal and rules.defaults == fast.defaults == asked_illegal


def test_the_snapshots_of_both_modes_agree() -> None:
    rng = np.random.default_rng(5)
    rules, fast = HandDriver(), HandDriver(BettingCache())
    for hand in range(40):
        cards = rng.permutation(52)[:9].tolist()
        holes = [(cards[0], cards[1]), (cards[2], cards[3])]
        started = _started(2, hand)
        rules.start(started, holes, cards[4:])
        fast.start(started, holes, cards[4:], fast=True)
        while (kind := rules.step()) != OVER:
            fast.step()
            if kind == BOARD:
                rules.deal_board()
                fast.deal_board()
                continue
            assert rules.snapshot(rules.actor) == fast.snapshot(fast.actor)
            action = rules.legal[int(rng.integers(len(rules.legal)))]
            rules.apply(action)
            fast.apply(action)
        fast.step()
        rules.settle()
        fast.settle()


def test_a_late_move_checks_or_calls_or_with_check_or_fold_folds_when_facing_a_bet() -> None:
    driver = HandDriver()
    driver.start(_started(3, 0, stacks=100), [(0, 1), (2, 3), (4, 5)], [6, 7, 8, 9, 10])
    assert driver.step() == ACT and driver.actor == 2  # the button, first after the big blind, faces it
    assert driver.apply_default(check_or_fold=True).action == Action.FOLD
    assert driver.step() == ACT and driver.actor == 0
    assert driver.apply_default().action == Action.CHECK_CALL  # the small blind calls
    assert driver.step() == ACT and driver.actor == 1
    assert driver.apply_default(check_or_fold=True).action == Action.CHECK_CALL  # the big blind checks free
    assert driver.defaults == {"p0": 1, "p1": 1, "p2": 1}
    assert driver.step() == BOARD
    assert driver.deal_board().cards == (6, 7, 8) and driver.betting == "fcc/"
    with pytest.raises(RuntimeError):
        driver.start(_started(3, 1), [(0, 1), (2, 3), (4, 5)], [6, 7, 8, 9, 10])
    driver.abandon()  # a voided hand: the next one deals anew
    driver.start(_started(3, 1, stacks=100), [(0, 1), (2, 3), (4, 5)], [6, 7, 8, 9, 10])
    assert driver.step() == ACT and driver.betting == "" and driver.tracker.hands_abandoned == 1


def test_a_player_leaves_when_the_rules_let_him() -> None:
    driver = HandDriver()
    driver.start(_started(3, 0, stacks=100), [(0, 1), (2, 3), (4, 5)], [6, 7, 8, 9, 10])
    assert driver.step() == ACT and driver.actor == 2
    assert driver.leave(2)  # his turn: his hand is folded
    assert driver.folded == [False, False, True]
    assert driver.to_act() == Turn(0, driver.legal)
    assert driver.apply(Action.FOLD).action == Action.FOLD
    assert driver.step() == OVER
    settled = driver.settle()
    assert settled.nets == (-1, 1, 0)
    assert not driver.leave(2)  # no hand in play: nothing to leave


def test_default_counts_are_kept_for_the_latest_players_only() -> None:
    """A long-lived table meets player after player: the check/call counts by player are
    kept for the latest _PLAYERS_KEPT counted (exactly), never growing without limit."""
    from agent.play.hand_driver import _PLAYERS_KEPT

    driver = HandDriver()
    regular = "regular"
    lineups = _PLAYERS_KEPT + 20
    for hand in range(lineups):
        names = (regular, f"guest{hand}")
        driver.start(HandStarted(hand_id=f"t:{hand}", source="test", players=names, stacks=(NO_STACK,) * 2,
                                 button=1, small_blind=1, big_blind=2, small_bet=2, big_bet=4, max_bets=4,
                                 heads_up_reverse_blinds=True), [(0, 1), (2, 3)], [4, 5, 6, 7, 8])
        assert driver.step() == ACT and driver.names[driver.actor] == names[1]  # heads-up: the button first
        driver.apply_default()
        assert driver.step() == ACT and driver.names[driver.actor] == regular
        assert driver.apply(Action.FOLD).action == Action.CHECK_CALL  # no bet to fold to: taken as a check
        driver.abandon()
        assert len(driver.defaults) <= _PLAYERS_KEPT
    assert len(driver.defaults) == _PLAYERS_KEPT
    assert driver.defaults[regular] == lineups  # counted every hand, so never the oldest
    kept = {f"guest{hand}" for hand in range(lineups - _PLAYERS_KEPT + 1, lineups)}
    assert set(driver.defaults) == kept | {regular}
    assert all(driver.defaults[name] == 1 for name in kept)


def test_play_runs_the_rules_mode_only() -> None:
    """play() reads the rules state in place: a fast-mode hand is refused, not misread."""
    driver = HandDriver(BettingCache())
    driver.start(_started(2, 0), [(0, 1), (2, 3)], [4, 5, 6, 7, 8], fast=True)
    with pytest.raises(RuntimeError, match="rules mode"):
        driver.play([lambda ctx: Action.CHECK_CALL] * 2)
