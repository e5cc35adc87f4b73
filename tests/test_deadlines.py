"""Deadlines everywhere: the IRC bot hands the seat the real deadline of a decision (what
the dealer's turn line says, less the answer margin), the seat tells the engine (whose
simulator spends a share of it), and a decision that misses it is answered with the
engine's best action so far. Over a real IRC server (miniircd on 127.0.0.1) with the
real dealer bot; the engine's slowness is made by holding its simulation back."""
from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest

import agent.engine.player as player_module
from agent.config import Config, EngineConfig
from agent.engine.player import DEADLINE_SHARE, PokiPlayer
from agent.game.events import BoardDealt, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot
from agent.play.seat import Seat
from agent.players import PlayerKind, register

from irc_live import wait_for

BASE = Config()


class Spy(PokiPlayer):
    """Poki, recording the deadlines it is told and the hands it ends."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.deadlines: list[float | None] = []
        self.budgets: list[float] = []
        self.records: list = []

    def set_deadline(self, seconds):
        super().set_deadline(seconds)
        self.deadlines.append(seconds)
        self.budgets.append(self.sim_budget_s())

    def end_hand(self, record):
        super().end_hand(record)
        self.records.append(record)


SPIES: list[Spy] = []


def _spy_factory(name, rng):
    # The table is heads-up: the engine plays it (not the equilibrium), so it simulates.
    spy = Spy(name, rng, EngineConfig(heads_up="engine"))
    SPIES.append(spy)
    return spy


register(PlayerKind("deadline-spy", _spy_factory, {}, "Poki recording its deadlines (tests)"))


class SlowSimulation:
    """simulate_decision held back past the deadline for its first ``slow`` calls; each
    call records the engine's best answer so far (``interim``), set before it starts."""

    def __init__(self, real, player_of, slow: int, seconds: float) -> None:
        self.real, self.player_of, self.slow, self.seconds = real, player_of, slow, seconds
        self.held: list[tuple] = []  # (context, the best answer so far) of each held call

    def __call__(self, ctx, me, *args, **kw):
        if len(self.held) < self.slow:
            interim = self.player_of(me).interim
            assert interim is not None and interim[0].hand_id == ctx.hand_id
            self.held.append(interim)
            time.sleep(self.seconds)
        return self.real(ctx, me, *args, **kw)


def _table(server, tmp_path, *, hands: int, action_seconds: float, margin: float, stop: list):
    config = dataclasses.replace(BASE, irc=dataclasses.replace(
        BASE.irc, flood_lines_per_second=0, hand_pause_seconds=0, reconnect_min_seconds=0.2,
        action_seconds=action_seconds, decision_margin_seconds=margin))
    host = DealerHost(server.address, ["#t"], tmp_path / "dealer.sqlite", config, hands=hands, seed=11,
                      min_players=2).start()
    stop.append(host)
    assert host.wait_tables()
    SPIES.clear()
    poki = PlayerBot(config, server=server.address, channels=["#t"], dealer="dealer", spec="deadline-spy",
                     nick="poki", db_path=tmp_path / "poki.sqlite", seed=3, flood_rate=0.0).start()
    stop.append(poki)
    wait_for(lambda: len(host.call(lambda: host.bot.seats("#t"))) == 1, what="poki to sit")
    other = PlayerBot(config, server=server.address, channels=["#t"], dealer="dealer", spec="call",
                      nick="caller", db_path=None, seed=4, flood_rate=0.0).start()
    stop.append(other)
    return host, poki, SPIES[0]


def _stop(things: list) -> None:
    for thing in reversed(things):
        thing.stop()


def test_the_irc_bot_hands_the_engine_the_real_deadline(server, tmp_path) -> None:
    stop: list = []
    try:
        host, bot, spy = _table(server, tmp_path, hands=4, action_seconds=20, margin=1.5, stop=stop)
        assert host.wait(120), "the dealer did not finish its hands"
        wait_for(lambda: bot.seats["#t"].stats.hands == 4, what="poki to finish the hands")
    finally:
        _stop(stop)
    # Every decision was told what the turn line gave (20 s) less the margin, and the
    # simulator's budget is its share of that (before: no deadline at all, the bot's own
    # timer answering a fallback).
    assert spy.deadlines and all(d == pytest.approx(18.5) for d in spy.deadlines)
    assert all(b == pytest.approx(DEADLINE_SHARE * 18.5) for b in spy.budgets)
    assert bot.seats["#t"].stats.late == 0


def test_a_late_decision_at_the_irc_table_answers_the_engines_best_so_far(server, tmp_path, monkeypatch) -> None:
    stop: list = []
    slow = SlowSimulation(player_module.simulate_decision, lambda me: SPIES[0], slow=1, seconds=1.5)
    monkeypatch.setattr(player_module, "simulate_decision", slow)
    try:
        # A 2-second turn less a 1-second margin: the seat answers at 1 s, the engine
        # held back 1.5 s on its first simulation (a decision that comes while it is still
        # held waits behind it and gets the fallback: agent.play.seat).
        host, bot, spy = _table(server, tmp_path, hands=6, action_seconds=2, margin=1.0, stop=stop)
        assert host.wait(180), "the dealer did not finish its hands"
        wait_for(lambda: bot.seats["#t"].stats.hands == 6, what="poki to finish the hands")
        dealer_timeouts = host.call(lambda: host.bot.stats.timeouts)
    finally:
        _stop(stop)
    assert len(slow.held) == 1, "the engine met no post-flop decision to be held back"
    stats = bot.seats["#t"].stats
    assert stats.late >= 1 and stats.interim == 1
    assert dealer_timeouts == 0  # the answer came inside the dealer's limit
    # The move the table saw at each held decision is the engine's best answer so far.
    kinds = {Action.FOLD: {"f"}, Action.CHECK_CALL: {"k", "c"}, Action.BET_RAISE: {"b", "r"}}
    by_hand = {r.hand_id: r for r in spy.records}
    for ctx, action in slow.held:
        taken = by_hand[ctx.hand_id].actions[len(ctx.actions)]
        assert taken.player == "poki" and taken.kind in kinds[action]


def test_the_seat_answers_the_best_so_far_on_its_own_timer() -> None:
    """Without an event loop (the seat's own timer thread): the same answer."""
    player = PokiPlayer("me", np.random.default_rng(5), EngineConfig(heads_up="engine"))  # heads-up: simulate
    held: list = []
    release = threading.Event()
    real = player_module.simulate_decision

    def slow(ctx, me, *args, **kw):
        held.append(player.interim)
        release.wait(30)
        return real(ctx, me, *args, **kw)

    seat = Seat(player)
    answers: list = []
    got = threading.Event()
    try:
        player_module.simulate_decision = slow
        seat.feed(HandStarted(hand_id="h", source="t", players=("me", "you"), stacks=(1000, 1000), button=1,
                              small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4))
        seat.feed(HoleCards("me", (48, 49)))  # aces: pre-flop it raises
        seat.feed(PlayerActed("you", Action.CHECK_CALL))
        assert seat.decide(60) in (Action.CHECK_CALL, Action.BET_RAISE)
        seat.feed(PlayerActed("me", Action.CHECK_CALL))
        seat.feed(BoardDealt((0, 13, 26)))
        assert seat.our_turn  # after the flop the big blind acts first
        seat.decide_async(0.3, lambda a: (answers.append(a), got.set()))
        assert got.wait(30)
        release.set()
    finally:
        player_module.simulate_decision = real
        release.set()
        seat.close()
    assert held and held[0] is not None
    assert answers == [held[0][1]]
    assert seat.stats.late == 1 and seat.stats.interim == 1
