"""The seat runtime (agent.play.seat) alone: real players (house bots, Poki), a real
tracker, a real SQLite database as the sink. The table is driven by a second, independent
tracker; the hands played through seats must equal the in-process dealer's hands with
the same players and cards."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from agent.config import TableConfig
from agent.game.events import BoardDealt, CardsShown, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action, Phase
from agent.game.tracker import Tracker
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.play.seat import Seat, fallback_action
from agent.players import BasePlayer, create_player

CONFIG = TableConfig(seats=3)


def _started(names, hand_id, button=0):
    c = CONFIG
    return HandStarted(hand_id=hand_id, source="test", players=tuple(names),
                       stacks=(c.starting_stack,) * len(names), button=button,
                       small_blind=c.small_blind, big_blind=c.big_blind, small_bet=c.small_bet,
                       big_bet=c.big_bet, max_bets=c.max_bets)


def play_through_seats(seats, deal, hand_id, button=0, deadline=None):
    """Deal one hand to seats (one per player, seat order), each seeing only its own
    cards; the table's own tracker decides whose turn it is."""
    names = [s.me for s in seats]
    table = Tracker()
    events = [_started(names, hand_id, button)]
    for ev in events:
        table.apply(ev)
        for s in seats:
            s.feed(ev)
    for name, cards in zip(names, deal.holes):
        table.apply(HoleCards(name, cards))
        for s in seats:
            s.feed(HoleCards(name, cards if s.me == name else None))
    dealt = 0
    while True:
        st = table.state
        if st.phase == Phase.BETTING:
            actor = seats[st.actor]
            assert actor.our_turn and all(not s.our_turn for s in seats if s is not actor)
            action = actor.decide(deadline)
            assert action in table.snapshot().legal_actions
            ev = PlayerActed(actor.me, action)
        elif st.phase == Phase.BOARD_DEALING:
            n = st.pending_board_count
            ev = BoardDealt(deal.board[dealt:dealt + n])
            dealt += n
        else:
            break
        table.apply(ev)
        for s in seats:
            s.feed(ev)
    record = table.apply(HandEnded())
    for shown in record.shown:  # what a dealer reveals at the showdown
        for s in seats:
            s.feed(CardsShown(shown.player, shown.cards))
    records = [s.feed(HandEnded()) for s in seats]
    return record, records


@pytest.mark.parametrize("specs", [("call", "raise", "rr"), ("poki", "call", "raise")])
def test_seats_play_the_hands_the_dealer_plays(specs):
    rng = np.random.default_rng(7)
    deals = [Deal.draw(rng, 3) for _ in range(12)]
    names = [f"p{i}" for i in range(3)]
    ref_players = [create_player(s, np.random.default_rng(100 + i), n)
                   for i, (s, n) in enumerate(zip(specs, names))]
    dealer = Dealer(CONFIG, source="test")
    sunk = [[] for _ in names]
    seats = [Seat(create_player(s, np.random.default_rng(100 + i), n), sink=sunk[i].append,
                  source=f"test:{n}") for i, (s, n) in enumerate(zip(specs, names))]
    try:
        chips = 0
        for h, deal in enumerate(deals):
            expected = dealer.play_hand(ref_players, deal, button=h % 3, hand_id=f"h{h}")
            got, per_seat = play_through_seats(seats, deal, f"h{h}", button=h % 3)
            assert got == expected
            assert all(r == expected for r in per_seat)
            res = {r.player: r.won - r.put_in for r in expected.results}
            chips += res["p0"]
        for s in seats:
            assert s.flush(30)
        for i, s in enumerate(seats):
            assert s.stats.hands == len(deals)
            assert [r.hand_id for r in sunk[i]] == [f"h{h}" for h in range(len(deals))]
            assert s.stats.late == s.stats.illegal == s.stats.player_errors == 0
        assert seats[0].stats.net_chips == chips
        assert seats[0].stats.sb_per_hand == pytest.approx(chips / CONFIG.small_bet / len(deals))
    finally:
        for s in seats:
            assert s.close()


class Sleeper(BasePlayer):
    """Answers raise, but only after ``delay`` seconds; records the threads it ran on."""

    def __init__(self, name, rng, delay):
        super().__init__(name, rng)
        self.delay = delay
        self.threads = set()

    def act(self, ctx):
        self.threads.add(threading.get_ident())
        time.sleep(self.delay)
        return Action.BET_RAISE

    def observe(self, event):
        self.threads.add(threading.get_ident())


class Liar(BasePlayer):
    def act(self, ctx):
        return 7  # not an action at all


class Crasher(BasePlayer):
    def act(self, ctx):
        raise RuntimeError("engine blew up")


def _start_heads_up(seat, other="villain", hand_id="h0"):
    # Heads-up: the button (seat 0 = us) posts the small blind and acts first.
    seat.feed(_started((seat.me, other), hand_id, button=0))
    seat.feed(HoleCards(seat.me, (0, 1)))


def test_a_late_player_gets_the_fallback_off_the_io_thread():
    rng = np.random.default_rng(1)
    slow = Sleeper("me", rng, delay=1.0)
    seat = Seat(slow)
    try:
        _start_heads_up(seat)
        ctx = seat.tracker.snapshot()
        assert ctx.to_call > 0  # the small blind faces the big blind
        action = seat.decide(0.05)
        assert action == Action.CHECK_CALL == fallback_action(ctx)
        assert seat.stats.late == 1 and "did not decide" in seat.stats.last_error
        assert threading.get_ident() not in slow.threads
        # The late decision's raise is dropped; the next one, with time enough, is the player's.
        seat.feed(PlayerActed(None, action))  # the small blind completes
        seat.feed(PlayerActed("villain", Action.BET_RAISE))
        assert seat.decide(30.0) == Action.BET_RAISE
        assert seat.stats.late == 1 and seat.stats.decisions == 2
    finally:
        assert seat.close()


def test_fallback_checks_when_free():
    seat = Seat(Sleeper("me", np.random.default_rng(1), delay=0.5))
    try:
        _start_heads_up(seat)
        seat.feed(PlayerActed("me", Action.CHECK_CALL))
        seat.feed(PlayerActed("villain", Action.CHECK_CALL))
        seat.feed(BoardDealt((10, 20, 30)))
        seat.feed(PlayerActed("villain", Action.CHECK_CALL))  # after the flop the big blind acts first
        assert seat.tracker.snapshot().to_call == 0
        assert seat.decide(0.01) == Action.CHECK_CALL
    finally:
        seat.close()


def test_illegal_answers_and_crashes_get_the_fallback():
    for cls, counter in ((Liar, "illegal"), (Crasher, "player_errors")):
        seat = Seat(cls("me", np.random.default_rng(2)))
        try:
            _start_heads_up(seat)
            assert seat.decide(30.0) == Action.CHECK_CALL
            assert getattr(seat.stats, counter) == 1
        finally:
            seat.close()


def test_decide_async_answers_once_with_the_player_or_the_fallback():
    for delay, deadline, expect_late in ((0.0, 30.0, 0), (1.0, 0.05, 1)):
        seat = Seat(Sleeper("me", np.random.default_rng(3), delay=delay))
        got = []
        done = threading.Event()
        try:
            _start_heads_up(seat)
            seat.decide_async(deadline, lambda a: (got.append(a), done.set()))
            assert done.wait(30)
            time.sleep(delay + 0.1)  # a late answer must not call back a second time
            assert got == [Action.BET_RAISE if not expect_late else Action.CHECK_CALL]
            assert seat.stats.late == expect_late
        finally:
            seat.close()


def test_not_our_turn_is_an_error():
    from agent.play.seat import SeatError

    seat = Seat(create_player("call", np.random.default_rng(0), "me"))
    try:
        with pytest.raises(SeatError, match="not our turn"):
            seat.decide(1.0)
        _start_heads_up(seat)
        seat.feed(PlayerActed("me", Action.CHECK_CALL))
        with pytest.raises(SeatError, match="not our turn"):
            seat.decide(1.0)
    finally:
        seat.close()


def test_an_impossible_event_abandons_the_hand_and_the_next_hand_plays():
    stored = []

    def sink(record):
        if record.hand_id == "h2":
            raise OSError("disk full")
        stored.append(record.hand_id)

    seat = Seat(create_player("call", np.random.default_rng(0), "me"), sink=sink)
    try:
        _start_heads_up(seat, hand_id="h0")
        seat.feed(PlayerActed("me", Action.CHECK_CALL))
        seat.feed(BoardDealt((10, 20, 30)))  # the big blind has not acted: impossible
        assert not seat.hand_ok and "pre-flop is not finished" in seat.broken_reason
        assert seat.stats.events_refused == 1 and seat.stats.hands_abandoned == 1
        assert seat.feed(PlayerActed("villain", Action.CHECK_CALL)) is None
        assert seat.stats.events_skipped == 1
        assert not seat.our_turn
        for hand_id in ("h1", "h2", "h3"):
            _start_heads_up(seat, hand_id=hand_id)
            assert seat.hand_ok
            seat.feed(PlayerActed("me", Action.FOLD))
            assert seat.feed(HandEnded()) is not None
        # A card dealt twice is refused too.
        _start_heads_up(seat, hand_id="h4")
        seat.feed(PlayerActed("me", Action.CHECK_CALL))
        seat.feed(PlayerActed("villain", Action.CHECK_CALL))
        seat.feed(BoardDealt((0, 20, 30)))
        assert not seat.hand_ok
        assert seat.flush(30)
        assert stored == ["h1", "h3"]
        assert seat.stats.sink_errors == 1 and "disk full" in seat.stats.last_error
        assert seat.stats.hands == 3 and seat.stats.hands_abandoned == 2
        assert seat.stats.net_chips == -15  # three small blinds folded
    finally:
        seat.close()


def test_poki_learns_from_a_database_owned_by_the_worker(tmp_path):
    from db.database import Database

    player = create_player("poki", np.random.default_rng(5), "me")
    holder = {}

    def sink(record):
        holder["db"].write_hand(record, "test")

    seat = Seat(player, sink=sink)
    try:
        holder["db"] = seat.run(Database, tmp_path / "seat.sqlite")
        other = Seat(create_player("raise", np.random.default_rng(6), "villain"))
        rng = np.random.default_rng(11)
        for h in range(8):
            play_through_seats([seat, other], Deal.draw(rng, 2), f"h{h}", button=h % 2,
                               deadline=60.0)
        other.close()
        assert seat.flush(60)
        count = seat.run(lambda: holder["db"].hand_count())
        assert count == 8
        model = seat.run(lambda: holder["db"].get("villain", "test"))
        assert model is not None
    finally:
        if "db" in holder:
            seat.run(holder["db"].close)
        seat.close()


def test_the_running_interval_matches_a_direct_computation():
    from agent.play.seat import SeatStats

    values = np.random.default_rng(3).normal(0.3, 4.0, 500)
    stats = SeatStats()
    for v in values:
        stats.add_result(float(v))
        stats.hands += 1
    assert stats.sb_per_hand == pytest.approx(values.mean())
    assert stats.interval95 == pytest.approx(1.96 * values.std(ddof=1) / np.sqrt(len(values)))


class Searcher(BasePlayer):
    """An anytime engine: leaves its best action so far in ``interim`` while it thinks."""

    def __init__(self, name, rng, think):
        super().__init__(name, rng)
        self.think = think
        self.interim = None

    def act(self, ctx):
        self.interim = (ctx, Action.BET_RAISE)  # a first answer, then a long search
        time.sleep(self.think)
        return Action.FOLD


def test_a_late_engine_answers_its_best_action_so_far():
    seat = Seat(Searcher("me", np.random.default_rng(4), think=1.0))
    try:
        _start_heads_up(seat)
        assert seat.decide(0.2) == Action.BET_RAISE
        assert seat.stats.late == 1 and seat.stats.interim == 1
        assert "best action so far" in seat.stats.last_error
        # A best-so-far left from an earlier decision is not taken for this one.
        seat.feed(PlayerActed(None, Action.BET_RAISE))
        seat.feed(PlayerActed("villain", Action.BET_RAISE))
        assert seat.flush(30)  # the first search has ended; its interim is still there
        assert seat.player.interim is not None
        seat.player.act = lambda ctx: (time.sleep(1.0), Action.FOLD)[1]  # leaves no interim
        assert seat.decide(0.1) == Action.CHECK_CALL  # the fallback, not the stale raise
        assert seat.stats.interim == 1 and seat.stats.late == 2
    finally:
        seat.close()
