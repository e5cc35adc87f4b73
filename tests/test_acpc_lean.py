"""The lean client path (agent.play.acpc.lean) against the full one (agent.play.acpc.match
AcpcSession): the same answers, summary and hand records.

* Offline: every view a player gets in seeded 2-, 3- and 6-player matches of our
  dealer, rebuilt from the match log alone (test_acpc_fastpath's views), goes through
  both sessions with the same seeded random player; answers, counters and results must
  agree, and with ``records=True`` the lean session's records equal the full path's.
  Random players fold, raise and cap, so hands end by folds, at showdowns of two or
  three players, and with odd chips (which the lean path hands to the tracker).
* Over real loopback sockets: our dealer, the same seed twice, the client once on the
  full path (it stores hands in SQLite) and once lean (no database): the dealer's logs
  are identical (so every answer was) and so are the two summaries.
* Bad input: the scripted dealer's garbage and a state that does not continue the last
  one give the lean path the same errors, abandoned hands and result as the full path.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from agent.config import TableConfig
from agent.game import context as context_module
from agent.game.context import GameContext
from agent.game.events import HandEnded
from agent.play.acpc.lean import LeanSession
from agent.play.acpc.match import AcpcSession, host_match, play_at_dealer
from agent.play.seat import Seat
from agent.players import Player, create_player
from connectors.acpc.game import standard_game

from acpc_helpers import ScriptedDealer  # test helpers beside the tests
from helpers.acpc import (
    EXPECTED_NET,
    HAND0,
    HAND1,
    HAND2,
    HU,
    matchstate_lines,
)

SPEC = "random(fold=1, call=2, raise=2)"


def _run(session_type, game, lines, *, records=False):
    player = create_player(SPEC, np.random.default_rng(7), "me")
    seat = Seat(player, me="me", source="test")
    kept = []
    if session_type is AcpcSession:
        seat.sink = kept.append  # a sink makes the seat follow every event
        session = AcpcSession(game, seat, match="m", source="test")
    else:
        session = LeanSession(game, seat, match="m", source="test", records=records)
    answers = []
    for line in lines:
        answers.append(session.on_line(line))
        if records and session.translator.hand_over and seat.tracker.record is not None \
                and (not kept or kept[-1] is not seat.tracker.record):
            kept.append(seat.tracker.record)
    seat.flush(30)
    seat.close()
    return answers, seat.stats, session, kept


@pytest.mark.parametrize("players, seed, me", [(3, 21, 0), (3, 22, 2), (2, 23, 1), (6, 24, 3)])
def test_lean_answers_summary_and_records_equal_the_full_path(players, seed, me):
    game = standard_game(f"holdem.limit.{players}p.game" if players > 2
                         else "holdem.limit.2p.reverse_blinds.game")
    lines = matchstate_lines(players, 150, seed, me)
    full_answers, full, full_session, full_records = _run(AcpcSession, game, lines)
    lean_answers, lean, lean_session, _ = _run(LeanSession, game, lines)
    assert full.hands == 150 and full.decisions > 150
    assert lean_answers == full_answers
    for name in ("hands", "hands_abandoned", "decisions", "net_chips", "illegal", "player_errors"):
        assert getattr(lean, name) == getattr(full, name), name
    assert lean.sb_per_hand == pytest.approx(full.sb_per_hand)
    assert lean.interval95 == pytest.approx(full.interval95)
    assert lean_session.errors == full_session.errors == 0
    # Most hands were settled without the tracker; the replayed ones are those only it
    # can settle (odd chips), so the two ways were both exercised in multi-way games.
    assert lean_session.replayed < 150
    # With records=True every hand goes through the seat's tracker: the same records.
    rec_answers, rec, _, lean_records = _run(LeanSession, game, lines, records=True)
    assert rec_answers == full_answers and rec.net_chips == full.net_chips
    assert lean_records == full_records


def test_the_lean_path_settles_odd_chips_and_folds_like_the_tracker():
    """A 3-player hand the small blind folds and the other two split: an odd pot, paid by
    the rules' settlement (agent.game.showdown.pay_pots) of the pots the betting-state
    cache kept; and a hand won by folds, settled from the cache."""
    game = standard_game("holdem.limit.3p.game")
    # Position 1 is the big blind; we (position 2, the button) call, the small blind
    # folds, the big blind checks, then both check down with the same straight on board.
    lines = [
        "MATCHSTATE:2:0::||2c3d",
        "MATCHSTATE:2:0:cf:||2c3d",
        "MATCHSTATE:2:0:cfc/:||2c3d/9sTsJd",
        "MATCHSTATE:2:0:cfc/c:||2c3d/9sTsJd",
        "MATCHSTATE:2:0:cfc/cc/:||2c3d/9sTsJd/Qh",
        "MATCHSTATE:2:0:cfc/cc/c:||2c3d/9sTsJd/Qh",
        "MATCHSTATE:2:0:cfc/cc/cc/:||2c3d/9sTsJd/Qh/Kc",
        "MATCHSTATE:2:0:cfc/cc/cc/c:||2c3d/9sTsJd/Qh/Kc",
        "MATCHSTATE:2:0:cfc/cc/cc/cc:|4h5h|2c3d/9sTsJd/Qh/Kc",
        # Hand 1: we are position 1 (big blind); the button raises, the small blind and
        # we fold: a hand won by folds.
        "MATCHSTATE:1:1::|AhAd|",
        "MATCHSTATE:1:1:r:|AhAd|",
        "MATCHSTATE:1:1:rf:|AhAd|",
        "MATCHSTATE:1:1:rff:|AhAd|",
    ]
    call = create_player("call", np.random.default_rng(0), "me")
    fold = create_player("random(fold=1, call=0, raise=0)", np.random.default_rng(0), "me")

    class Script(Player):  # calls in hand 0, folds in hand 1 (an instant bot without hooks)
        name = "me"
        instant = True

        def act(self, ctx: GameContext):
            return (call if ctx.hand_id.endswith(":0") else fold).act(ctx)

    results = {}
    for kind in (AcpcSession, LeanSession):
        seat = Seat(Script(), source="test")
        if kind is AcpcSession:
            seat.sink = lambda record: None
        session = kind(game, seat, match="m", source="test")
        answers = [session.on_line(line) for line in lines]
        seat.close()
        results[kind] = (answers, seat.stats.net_chips, seat.stats.hands)
        if kind is LeanSession:
            # The odd chip too is paid by the rules' own settlement of the cached pots:
            # no hand needs the seat's tracker any more.
            assert session.replayed == 0
    assert results[LeanSession] == results[AcpcSession]
    answers, net, hands = results[LeanSession]
    # Hand 0: 10 in each from the two of us, 5 from the folded small blind: 25 split by
    # a board straight: 12 and 13; hand 1: we lose our big blind, 10.
    assert hands == 2
    assert net in (12 - 10 - 10, 13 - 10 - 10)
    assert answers[0] == "MATCHSTATE:2:0::||2c3d:c"
    assert answers[11] == "MATCHSTATE:1:1:rf:|AhAd|:f"


def test_the_context_template_keeps_the_field_order():
    fields = context_module._FIELDS  # the template's layout (agent.game.context.context_template)
    assert fields[0] == "hand_id" and fields[-1] == "hole_cards" and fields[-2] == "viewer"
    assert fields == tuple(GameContext.__dataclass_fields__)


def test_a_seat_that_follows_events_is_refused():
    seat = Seat(create_player("call", np.random.default_rng(0), "me"), sink=lambda r: None)
    try:
        with pytest.raises(ValueError, match="lean path"):
            LeanSession(HU, seat)
    finally:
        seat.close()


def _socket_match(players: int, seed: int, db: str | None):
    game = standard_game(f"holdem.limit.{players}p.game" if players > 2
                         else "holdem.limit.2p.reverse_blinds.game")
    names = [f"s{i}" for i in range(players)]
    seats = {i: ("random(fold=1, call=2, raise=1)" if i % 2 else "raise") for i in range(1, players)}
    ports: list[int] = []
    ready = threading.Event()
    box: dict = {}

    def deal():
        try:
            box["outcome"] = host_match(game, names, 200, seed, seats=seats, match_name="lean",
                                        on_listen=lambda p: (ports.extend(p), ready.set()))[0]
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test
            box["error"] = exc
            ready.set()

    thread = threading.Thread(target=deal, daemon=True)
    thread.start()
    assert ready.wait(30)
    assert "error" not in box, box.get("error")
    player = create_player(SPEC, np.random.default_rng(seed), "s0")
    result = play_at_dealer("127.0.0.1", ports[0], player, game, db_path=db, match="lean")
    thread.join(60)
    assert not thread.is_alive() and "error" not in box, box.get("error")
    return result, box["outcome"]


@pytest.mark.parametrize("players, seed", [(2, 31), (3, 32)])
def test_lean_and_full_clients_play_the_same_match_over_sockets(players, seed, tmp_path):
    full, full_outcome = _socket_match(players, seed, str(tmp_path / "full.sqlite"))
    lean, lean_outcome = _socket_match(players, seed, None)
    assert full.hands == lean.hands == 200
    # The dealer's log holds every action: equal logs mean equal answers.
    assert lean_outcome.log_lines == full_outcome.log_lines
    # The summaries but their first line (the dealer's port differs).
    assert lean.summary("s0").split("\n")[1:] == full.summary("s0").split("\n")[1:]
    assert lean.stats.net_chips == full_outcome.totals["s0"]


def _scripted(script, db):
    dealer = ScriptedDealer(script)
    try:
        player = create_player("call", np.random.default_rng(0), "me")
        return play_at_dealer("127.0.0.1", dealer.port, player, HU, db_path=db, match="t"), dealer
    finally:
        dealer.close()


def test_garbage_from_the_dealer_gives_the_lean_path_the_full_paths_result(tmp_path):
    junk = [
        ("send", b"# a comment\n;GUI command\r\n"),
        ("send", b"HELLO THERE\r\n"),
        ("send", b"MATCHSTATE:0:99:zz:AsKs|\r\n"),
        ("send", b"\xff\xfe\x00binary\r\n"),
        ("send", b"x" * (1 << 20) + b"y" * 1000 + b"\r\n"),
        # A hand whose second state rewrites the first: abandoned, still answered.
        ("send", b"MATCHSTATE:0:7::KdKh|\r\nMATCHSTATE:0:7:r:KdKh|\r\n"),
        ("expect", "MATCHSTATE:0:7:r:KdKh|:c"),
        ("send", b"MATCHSTATE:0:7:c:KdKh|\r\n"),
        ("expect", "MATCHSTATE:0:7:c:KdKh|:c"),
    ]
    script = [*junk, *HAND0, *HAND1, *HAND2, ("close",)]
    full, full_dealer = _scripted(script, str(tmp_path / "c.sqlite"))
    lean, lean_dealer = _scripted(script, None)
    assert full_dealer.problems == lean_dealer.problems == []
    assert lean_dealer.received == full_dealer.received
    assert lean.hands == full.hands == 3
    assert lean.stats.net_chips == full.stats.net_chips == EXPECTED_NET
    assert lean.protocol_errors == full.protocol_errors == 4
    assert lean.stats.hands_abandoned == full.stats.hands_abandoned == 1
    assert lean.summary("me").split("\n")[1:] == full.summary("me").split("\n")[1:]


def test_a_dealer_that_closes_mid_hand_ends_the_lean_client_cleanly():
    script = [*HAND0, ("send", b"MATCHSTATE:0:3::KdKh|\r\nMATCHSTATE:0:3:r:KdKh|\r\n"),
              ("expect", "MATCHSTATE:0:3:r:KdKh|:c"), ("close",)]
    result, dealer = _scripted(script, None)
    assert dealer.problems == []
    assert result.hands == 1 and result.ended_mid_hand
    assert "middle of a hand" in result.summary("me")


def test_hand_end_event_is_last_of_a_hand():
    # The lean session keeps a hand's events until its end; the translator ends every
    # hand of the protocol examples with HandEnded (the lean path settles there).
    from connectors.acpc.protocol import StateTranslator

    translator = StateTranslator(HU, "me")
    for step in (*HAND0, *HAND1, *HAND2):
        if step[0] != "send":
            continue
        for raw in step[1].split(b"\r\n"):
            if raw:
                _, events = translator.read(raw.decode())
                if translator.hand_over:
                    assert type(events[-1]) is HandEnded


@pytest.mark.parametrize("players, seed", [(2, 41), (6, 42)])
def test_the_dealers_log_lines_are_canonical_and_pay_what_the_rules_pay(players, seed):
    """The dealer writes each STATE line from its own text; every line must be what
    acpc_log.format_state writes for the hand it parses to, and its values what the rules
    engine pays replaying that hand (agent.game.tracker, independent of the dealer's
    bookkeeping)."""
    from agent.game.tracker import Tracker
    from connectors.logs import acpc_log

    game = standard_game(f"holdem.limit.{players}p.game" if players > 2
                         else "holdem.limit.2p.reverse_blinds.game")
    names = [f"p{i}" for i in range(players)]
    kinds = ["random(fold=2, call=1, raise=1)", "random(fold=1, call=1, raise=2)", "raise", "call"]
    seats = {i: kinds[i % len(kinds)] for i in range(players)}
    outcome, _ = host_match(game, names, 300, seed, seats=seats, match_name="canon")
    table = TableConfig(small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    states = [line for line in outcome.log_lines if line.startswith("STATE:")]
    assert len(states) == 300
    totals = dict.fromkeys(names, 0)
    folds = 0
    for line in states:
        (hand,) = acpc_log.parse_log([line])
        assert acpc_log.format_state(hand) == line
        tracker = Tracker()
        record = None
        for event in acpc_log.hand_events(hand, table):
            record = tracker.apply(event)
        paid = {r.player: r.won - r.put_in for r in record.results}
        assert tuple(paid[p] for p in hand.players) == tuple(hand.values), line
        folds += "f" in line.split(":")[2]
        for p, v in zip(hand.players, hand.values):
            totals[p] += v
    assert folds > 0
    assert outcome.totals == totals
