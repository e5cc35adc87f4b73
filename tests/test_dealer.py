"""The in-process dealer: what players see, hooks, chips, reproducibility, and the
self-play speed figure."""
from __future__ import annotations

import json

import numpy as np
import pytest

from agent.bench.selfplay import run_selfplay_bench
from agent.config import Config, TableConfig
from agent.game.context import GameContext
from agent.game.events import BoardDealt, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer, HandLog, play_match
from agent.players import BasePlayer, create_player


class Spy(BasePlayer):
    """Plays at random and remembers everything it was shown."""

    def __init__(self, name: str, rng: np.random.Generator) -> None:
        super().__init__(name, rng)
        self.contexts: list[GameContext] = []
        self.events: list = []
        self.started: list[HandStarted] = []
        self.records: list = []

    def act(self, ctx: GameContext) -> Action:
        self.contexts.append(ctx)
        return ctx.legal_actions[int(self.rng.integers(len(ctx.legal_actions)))]

    def new_hand(self, started: HandStarted) -> None:
        self.started.append(started)

    def observe(self, event) -> None:
        self.events.append(event)

    def end_hand(self, record) -> None:
        self.records.append(record)


def test_players_see_only_their_own_cards_and_every_public_event() -> None:
    n = 4
    spies = [Spy(f"spy{k}", np.random.default_rng(k)) for k in range(n)]
    dealer = Dealer(TableConfig(seats=n))
    rng = np.random.default_rng(3)
    for hand in range(200):
        deal = Deal.draw(rng, n)
        for spy in spies:
            spy.contexts.clear()
            spy.events.clear()
        record = dealer.play_hand(spies, deal, button=hand % n, hand_id=f"h{hand}")
        for seat, spy in enumerate(spies):
            for ctx in spy.contexts:
                assert ctx.viewer == spy.name and ctx.actor == spy.name
                assert ctx.hole_cards == deal.holes[seat]
                assert not set(ctx.board) & {c for s, h in enumerate(deal.holes) if s != seat
                                             for c in h}
            holes = [e for e in spy.events if isinstance(e, HoleCards)]
            assert holes == [HoleCards(spy.name, deal.holes[seat])]
            acted = [e for e in spy.events if isinstance(e, PlayerActed)]
            assert len(acted) == len(record.actions) - 2
            boards = [c for e in spy.events if isinstance(e, BoardDealt) for c in e.cards]
            assert tuple(boards) == record.board == deal.board[:len(record.board)]
            assert isinstance(spy.events[-1], HandEnded)
            assert spy.records[-1] is record
    assert all(len(s.started) == 200 for s in spies)


def test_illegal_moves_become_calls_and_are_counted() -> None:
    class Stubborn(BasePlayer):
        refused = 0  # turns it was shown that a fold is not legal

        def act(self, ctx: GameContext) -> Action:
            self.refused += Action.FOLD not in ctx.legal_actions
            return Action.FOLD  # folds even when it could check

    # Against a caller the stubborn player often has a free check it refuses.
    dealer = Dealer(TableConfig(seats=2))
    rng = np.random.default_rng(0)
    players = [Stubborn("stub", np.random.default_rng(0)),
               create_player("call", np.random.default_rng(1), name="c")]
    for hand in range(50):
        record = dealer.play_hand(players, Deal.draw(rng, 2), button=hand % 2,
                                  hand_id=f"x{hand}")
        assert "f" not in [a.kind for a in record.actions if a.bets_to_call == 0]
    assert dealer.invalid_actions["stub"] > 0
    assert dealer.invalid_actions == {"stub": players[0].refused}  # each one counted, once


def test_play_match_is_reproducible_and_moves_the_button() -> None:
    def run(seed: int):
        players = [create_player(s, np.random.default_rng([seed, k]), name=f"{s}{k}")
                   for k, s in enumerate(("random", "rr(trials=200)", "loose-passive(trials=200)"))]
        log = HandLog(acpc=True, phh=True)
        result = play_match(players, TableConfig(seats=3), 120, seed, log=log, keep_records=True)
        return result, log

    a, log_a = run(4)
    b, log_b = run(4)
    c, _ = run(5)
    assert a.records == b.records and log_a.acpc_lines == log_b.acpc_lines
    assert log_a.phh_hands == log_b.phh_hands
    assert a.records != c.records
    assert sum(a.chips.values()) == 0
    for hand, record in enumerate(a.records):
        button = [s.player for s in record.seats if s.position == 3]
        assert button == [a.names[hand % 3]]
        assert all(s.stack == 1000 for s in record.seats)


def test_stacks_carry_over_when_asked() -> None:
    players = [create_player("raise", np.random.default_rng(0), name="r"),
               create_player("call", np.random.default_rng(1), name="c")]
    config = TableConfig(seats=2, starting_stack=100)
    result = play_match(players, config, 40, 9, reset_stacks=False, keep_records=True)
    stacks = {"r": 100, "c": 100}
    for record in result.records:
        for seat in record.seats:
            assert seat.stack == (stacks[seat.player] or 100)
        for r in record.results:
            stacks[r.player] = (stacks[r.player] or 100) + r.won - r.put_in
    assert any(s.stack != 100 for rec in result.records for s in rec.seats)


def test_deal_rotation_and_validation() -> None:
    deal = Deal.draw(np.random.default_rng(1), 3)
    assert len({c for h in deal.holes for c in h} | set(deal.board)) == 11
    assert deal.rotated(1).holes == deal.holes[1:] + deal.holes[:1]
    dealer = Dealer(TableConfig(seats=2))
    players = [create_player("call", np.random.default_rng(0), name="same")] * 2
    with pytest.raises(ValueError, match="share a name"):
        dealer.play_hand(players, Deal.draw(np.random.default_rng(1), 2), button=0, hand_id="x")
    with pytest.raises(ValueError, match="a deal for 3 seats"):
        dealer.play_hand(players, deal, button=0, hand_id="x")


def test_selfplay_speed_figure() -> None:
    figures = run_selfplay_bench(Config(), quick=True)
    print("\nself-play hands/s:", json.dumps(
        {k: round(v["hands_per_s"]) for k, v in figures["tables"].items()}))
    for table in figures["tables"].values():
        assert table["decisions_per_hand"] > 2
