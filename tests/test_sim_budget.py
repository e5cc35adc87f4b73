"""How the simulator's time is bounded: by the trial count alone in matches (so a seeded
match is the same whatever the machine's load), by a share of the decision deadline when
a seat runtime with deadlines (IRC, ACPC) seats the player (agent.play.seat)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from agent.config import EngineConfig
from agent.engine.player import DEADLINE_SHARE, PokiPlayer
from agent.game.events import HandStarted, HoleCards
from agent.play.seat import Seat


def test_budget_from_deadline_and_config():
    p = PokiPlayer("p", np.random.default_rng(0), EngineConfig(bettor="simulator", sim_time_ms=0.0))
    assert p.sim_budget_s() == 0.0  # no deadline, no configured budget: trials only
    p.set_deadline(8.0)
    assert p.sim_budget_s() == pytest.approx(8.0 * DEADLINE_SHARE)
    p.set_deadline(None)
    assert p.sim_budget_s() == 0.0
    q = PokiPlayer("q", np.random.default_rng(0), EngineConfig(bettor="simulator", sim_time_ms=100.0))
    assert q.sim_budget_s() == pytest.approx(0.1)
    q.set_deadline(8.0)  # the smaller of the two
    assert q.sim_budget_s() == pytest.approx(0.1)
    q.set_deadline(0.2)
    assert q.sim_budget_s() == pytest.approx(0.2 * DEADLINE_SHARE)


class _Recorder(PokiPlayer):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.budgets: list[float] = []
        self.done = threading.Event()

    def act(self, ctx):
        self.budgets.append(self.sim_budget_s())
        action = super().act(ctx)
        self.done.set()
        return action


def _start(seat: Seat) -> None:
    seat.feed(HandStarted(hand_id="h0", source="test", players=(seat.me, "villain"), stacks=(1000, 1000),
                          button=0, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4))
    seat.feed(HoleCards(seat.me, (0, 1)))


@pytest.mark.parametrize("deadline, expected", [(4.0, 4.0 * DEADLINE_SHARE), (None, 0.0)])
def test_seat_tells_the_player_its_deadline(deadline, expected):
    player = _Recorder("me", np.random.default_rng(1), EngineConfig(bettor="simulator", sim_time_ms=0.0))
    seat = Seat(player, me="me")
    try:
        _start(seat)
        seat.decide(deadline if deadline is not None else None)
        assert player.budgets == [pytest.approx(expected)]
    finally:
        assert seat.close()


def test_seat_tells_the_deadline_on_the_async_path_too():
    player = _Recorder("me", np.random.default_rng(1), EngineConfig(bettor="simulator", sim_time_ms=0.0))
    seat = Seat(player, me="me")
    try:
        _start(seat)
        answers = []
        seat.decide_async(6.0, answers.append)
        assert player.done.wait(30.0)
        assert player.budgets == [pytest.approx(6.0 * DEADLINE_SHARE)]
    finally:
        assert seat.close()
