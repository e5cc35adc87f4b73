"""The hand driver's fast mode (agent.play.hand_driver) against its rules mode, in the ACPC dealer.

Over seeded 2/3/6/10-player matches the two dealers write the same log byte for byte,
and every logged hand replays through the rules engine (the tracker) to the logged
payoffs, so neither log is trusted. The seats are in-process house bots that decide on
the dealer's snapshots (random folds, calls and raises: every kind of hand ending), and
their own counts of hands and chips must agree with the log too. Remote programs that
send garbage, never answer or hang up give the same log either way.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from agent.config import TableConfig
from agent.game.betting import ACT, BOARD, OVER, BettingCache
from agent.game.events import HandEnded
from agent.game.records import PlayerResult
from agent.game.tracker import Tracker
from agent.play.acpc.dealer import AcpcDealer, DealerLimits
from agent.play.acpc.match import host_match
from agent.play.hand_driver import HandDriver, settle_point
from agent.play.seat import Seat
from agent.players import create_player
from connectors.acpc.game import standard_game
from connectors.logs import acpc_log
from tests.test_acpc_server import Client, RawPlayer

KINDS = ["random(fold=2, call=1, raise=1)", "random(fold=1, call=1, raise=2)",
         "random(fold=1, call=2, raise=1)", "raise", "call", "random(fold=1, call=3, raise=1)"]


def _game(n: int):
    name = "holdem.limit.2p.reverse_blinds.game" if n == 2 else f"holdem.limit.{n}p.game"
    return standard_game(name), name


def _deal(n: int, hands: int, seed: int, fast: bool):
    """An in-process match; the log, the dealer and each seat's stats."""
    game, game_name = _game(n)
    names = [f"p{i}" for i in range(n)]
    seeds = np.random.SeedSequence(seed).spawn(n)
    seats = {i: Seat(create_player(KINDS[i % len(KINDS)], np.random.default_rng(seeds[i]), names[i]),
                     me=names[i], source=names[i]) for i in range(n)}
    assert not any(s.follows_events for s in seats.values())
    dealer = AcpcDealer(game, names, hands, seed, game_name=game_name, match_name="fd",
                        local=seats, fast=fast)
    try:
        outcome = dealer.run()
    finally:
        dealer.close()
    return outcome, dealer, {names[i]: s.stats for i, s in seats.items()}


def _replayed_totals(lines: list[str], n: int) -> dict[str, int]:
    """Each logged hand through the rules engine, which refuses values that are not its
    payoffs; the totals by player."""
    game, _ = _game(n)
    table = TableConfig(seats=n, small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    parsed = list(acpc_log.parse_log(lines, "log"))
    assert not [p for p in parsed if isinstance(p, Exception)]
    totals: dict[str, int] = {}
    for hand in parsed:
        if isinstance(hand, acpc_log.AcpcHand):
            record = Tracker().apply_all(acpc_log.hand_events(hand, table))[0]
            for r in record.results:
                totals[r.player] = totals.get(r.player, 0) + r.won - r.put_in
    score = parsed[-1]
    assert isinstance(score, acpc_log.AcpcScore)
    assert dict(zip(score.players, score.totals)) == totals
    return totals


@pytest.mark.parametrize("n, hands, seed", [(2, 400, 1), (3, 300, 2), pytest.param(6, 200, 3, marks=pytest.mark.slow),
                                            pytest.param(10, 150, 4, marks=pytest.mark.slow)])
def test_fast_dealer_logs_equal_the_rules_dealers(n: int, hands: int, seed: int) -> None:
    fast, fast_dealer, fast_stats = _deal(n, hands, seed, True)
    slow, slow_dealer, slow_stats = _deal(n, hands, seed, False)
    assert fast_dealer._rules.learnt > 0 and slow_dealer._rules.learnt == 0
    if n == 2:
        # Heads-up, betting strings repeat: far fewer rules replays than actions.
        assert fast_dealer._rules.learnt < sum(r.actions for r in fast.seats) // 2
    assert "\n".join(fast.log_lines) == "\n".join(slow.log_lines)
    assert fast.totals == slow.totals
    totals = _replayed_totals(fast.log_lines, n)
    assert totals == fast.totals
    for name, stats in fast_stats.items():
        other = slow_stats[name]
        assert stats.hands == other.hands == hands
        assert stats.net_chips == other.net_chips == totals[name]
        assert stats.decisions == other.decisions


def test_settle_pays_what_the_rules_pay_on_split_and_odd_pots() -> None:
    """Hand-built 3-player showdowns (blinds 1/2): the small blind folds and two tie for
    a pot of 5 (an odd chip), one of them wins it alone, and three check down with two
    tying for 6; each paid from the betting-state cache's pots exactly as the tracker
    pays (one settlement: agent.game.showdown.pay_pots), and a hand driver in its fast
    mode, given the same hand and moves, settles it to the tracker's results."""
    from agent.game.events import BoardDealt, HoleCards, PlayerActed
    from agent.game.rules import Action, Phase
    from agent.play.acpc.dealer import _make_started
    from connectors.acpc.protocol import NO_STACK
    from evaluator_pyx.cards import parse_cards

    names = ("a", "b", "c")  # positions: a small blind, b big blind, c the button
    started = _make_started("x:0", "x", names, (NO_STACK,) * 3, 2, 1, 2, 2, 4, 3, True,
                            None, False, None, None, None, None, None)
    board = tuple(parse_cards("2c 7d 9h Js Kd"))
    cases = [  # (holes, does the small blind fold, odd pot expected)
        (["3s 4s", "Ah Qc", "As Qd"], True, True),
        (["3s 4s", "Ah Qc", "5s 6d"], True, False),
        (["3s 4s", "Ah Qc", "As Qd"], False, False),
    ]
    for hole_text, sb_folds, _odd in cases:
        holes = [tuple(parse_cards(h)) for h in hole_text]
        tracker = Tracker()
        fast = HandDriver(BettingCache())
        fast.start(started, holes, board, fast=True)
        events = [started] + [HoleCards(nm, h) for nm, h in zip(names, holes)]
        for event in events:
            tracker.apply(event)
        dealt = 0
        while tracker.state.phase not in (Phase.SHOWDOWN, Phase.OVER):
            st = tracker.state
            if st.phase == Phase.BOARD_DEALING:
                count = st.pending_board_count
                event = BoardDealt(board[dealt:dealt + count])
                dealt += count
            else:
                who = names[st.actor]
                fold = sb_folds and who == "a" and Action.FOLD in st.legal_actions()
                event = PlayerActed(who, Action.FOLD if fold else Action.CHECK_CALL)
            tracker.apply(event)
            events.append(event)
            if isinstance(event, PlayerActed):
                assert fast.step() == ACT and fast.names[fast.actor] == who
                assert fast.apply(event.action)
            else:
                assert fast.step() == BOARD
                assert fast.deal_board() == event
        assert fast.step() == OVER
        end = BettingCache().point("any", lambda: events)
        assert end.kind == OVER
        assert (sum(end.put_in) % 2 == 1) == sb_folds
        record = tracker.apply(HandEnded())
        want = [next(r.won - r.put_in for r in record.results if r.player == nm) for nm in names]
        nets = settle_point(end, holes, board)
        assert nets == want
        settled = fast.settle()
        assert settled.record is None and list(settled.nets) == want
        assert set(settled.results) == set(record.results)
        assert all(isinstance(r, PlayerResult) for r in settled.results)


def _remote_match(fast: bool) -> tuple[list[str], dict]:
    """Three misbehaving remote programs, a good remote client and an in-process bot."""
    n, hands = 5, 30
    game, game_name = _game(n)
    names = ["good", "junk", "sleepy", "quits", "bot"]
    limits = DealerLimits(response_timeout=0.2, budget_per_hand=0.02, connect_timeout=30)
    ready = threading.Event()
    ports: list[int] = []
    box: dict = {}

    def on_listen(p):
        ports.extend(p)
        ready.set()

    def run():
        try:
            box["result"] = host_match(game, names, hands, 3, seats={4: "random"},
                                       game_name=game_name, match_name="t", limits=limits,
                                       on_listen=on_listen, fast=fast)
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            box["error"] = exc
        finally:
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    if "error" in box:
        raise box["error"]
    good = Client(ports[0], "call", "good", game)
    good.start()
    raws = [RawPlayer(port, mode) for port, mode in zip(ports[1:], ("garbage", "sleeper", "quitter"))]
    for r in raws:
        r.start()
    thread.join(120)
    assert not thread.is_alive()
    good.join(60)
    for r in raws:
        r.join(60)
        assert not r.is_alive()
    if "error" in box:
        raise box["error"]
    outcome, _ = box["result"]
    reports = {r.name: (r.invalid > 0, r.ignored > 0, r.dropped, r.timeouts > 0,
                        bool(r.folded_out), r.disconnected) for r in outcome.seats}
    return outcome.log_lines, reports


def test_misbehaving_remote_players_give_the_same_log_either_way() -> None:
    fast_log, fast_reports = _remote_match(True)
    slow_log, slow_reports = _remote_match(False)
    assert fast_log == slow_log
    assert fast_reports == slow_reports
    assert fast_reports["junk"][:3] == (True, True, 1)
    assert fast_reports["sleepy"][3:5] == (True, True)
    assert fast_reports["quits"][5]
    _replayed_totals(fast_log, 5)


def _lone_remote(mode: str, fast: bool):
    """Heads-up: one raw remote program (its answers waited for in recv itself) against an
    in-process always-call bot."""
    game, game_name = _game(2)
    limits = DealerLimits(response_timeout=0.1, budget_per_hand=30, connect_timeout=30)
    dealer = AcpcDealer(game, ["raw", "bot"], 6, 7, game_name=game_name, limits=limits,
                        local={1: Seat(create_player("call", np.random.default_rng(1), "bot"),
                                       me="bot", source="bot")}, fast=fast)
    try:
        port = dealer.listen()[0]
        raw = RawPlayer(port, mode)
        raw.start()
        dealer.wait_for_players()
        outcome = dealer.run()
    finally:
        dealer.close()
    raw.join(60)
    assert not raw.is_alive()
    return outcome


@pytest.mark.parametrize("mode", ["sleeper", "garbage"])
def test_a_lone_remote_seat_still_times_out_and_is_still_checked(mode: str) -> None:
    fast = _lone_remote(mode, True)
    slow = _lone_remote(mode, False)
    assert fast.log_lines == slow.log_lines
    _replayed_totals(fast.log_lines, 2)
    report = fast.seats[0]
    assert report.actions > 6
    if mode == "sleeper":
        # Every turn of a program that never answers ends at the time limit, as a call.
        assert report.timeouts == report.actions and report.invalid == 0
        assert slow.seats[0].timeouts == report.timeouts
    else:
        assert report.invalid == report.actions and report.timeouts == 0
        assert report.ignored > 0 and report.dropped == 1
