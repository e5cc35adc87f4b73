"""Our ACPC client (agent.play.acpc.match.play_at_dealer over connectors.acpc.client)
against a scripted dealer on a real loopback socket: the dealer sends states written
from the protocol's grammar, byte for byte, and checks each answer; finished hands land
in a real SQLite database. Then the dealer misbehaves."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from agent.config import AcpcConfig
from agent.game.rules import Action
from agent.play.acpc.match import play_at_dealer
from agent.players import BasePlayer, create_player
from connectors.acpc.game import standard_game

from acpc_helpers import ScriptedDealer, states  # test helpers beside the tests
from helpers.acpc import EXPECTED_NET, HAND0, HAND1, HAND2, HU

THREE = standard_game("holdem.limit.3p.game")


@pytest.fixture
def dealers():
    made = []

    def make(script):
        d = ScriptedDealer(script)
        made.append(d)
        return d

    yield make
    for d in made:
        d.close()


def _nets(path):
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT a.nick, SUM(r.won - r.put_in), COUNT(*) FROM results r "
            "JOIN aliases a ON a.player = r.player GROUP BY a.nick").fetchall()
        hands = conn.execute("SELECT hand_id FROM hands ORDER BY seq").fetchall()
    # Stored ids end in a digest of the hand's content (agent.game.records.with_content_id).
    named = [h[0].rsplit(":", 1) for h in hands]
    assert all(len(digest) == 12 and int(digest, 16) >= 0 for _, digest in named)
    return {nick: (net, n) for nick, net, n in rows}, [name for name, _ in named]


def _play(port, spec="call", game=HU, db=None, **kw):
    player = create_player(spec, np.random.default_rng(0), "me")
    return play_at_dealer("127.0.0.1", port, player, game, db_path=db, match="t", **kw)


def test_plays_the_protocol_examples_and_stores_every_hand(dealers, tmp_path):
    dealer = dealers([*HAND0, *HAND1, *HAND2, ("close",)])
    db = str(tmp_path / "client.sqlite")
    result = _play(dealer.port, db=db)
    dealer.close()
    assert dealer.problems == []
    assert result.hands == 3 and not result.ended_mid_hand and result.protocol_errors == 0
    assert result.stats.net_chips == EXPECTED_NET
    assert result.stats.sb_per_hand == pytest.approx(EXPECTED_NET / 10 / 3)
    # We answered exactly the states that were our turn (the script checks each), no more.
    assert len(dealer.received) == 1 + 5 + 5
    nets, hands = _nets(db)
    assert hands == ["t:0", "t:1", "t:2"]
    assert nets == {"me": (EXPECTED_NET, 3), "acpc:1": (-EXPECTED_NET, 3)}
    assert "+2.500 sb/hand" in result.summary("me")


def test_bare_newlines_comments_and_garbage_are_survived(dealers, tmp_path):
    junk = [
        ("send", b"# a comment\n;GUI command\r\n"),
        ("send", b"HELLO THERE\r\n"),
        ("send", b"MATCHSTATE:0:99:zz:AsKs|\r\n"),
        ("send", b"\xff\xfe\x00binary\r\n"),
        ("send", b"x" * (1 << 20) + b"y" * 1000 + b"\r\n"),  # a line over 1 MB
    ]
    lf = [(step[0], step[1].replace(b"\r\n", b"\n")) if step[0] == "send" else step for step in HAND1]
    dealer = dealers([*junk, *HAND0, *lf, *HAND2, ("close",)])
    db = str(tmp_path / "client.sqlite")
    result = _play(dealer.port, db=db)
    dealer.close()
    assert dealer.problems == []
    assert result.hands == 3 and result.stats.net_chips == EXPECTED_NET
    assert result.protocol_errors == 3  # HELLO, the bad betting, the binary line
    nets, hands = _nets(db)
    assert hands == ["t:0", "t:1", "t:2"]


def test_a_state_that_does_not_continue_abandons_only_its_hand(dealers, tmp_path):
    broken = [
        states("MATCHSTATE:0:5::KdKh|", "MATCHSTATE:0:5:r:KdKh|"),
        ("expect", "MATCHSTATE:0:5:r:KdKh|:c"),
        # The dealer rewrites the pre-flop: the button's raise becomes a call.
        states("MATCHSTATE:0:5:c:KdKh|"),
        # Still our turn by the rules: we must answer (the hand is not followed any more).
        ("expect", "MATCHSTATE:0:5:c:KdKh|:c"),
        states("MATCHSTATE:0:5:cc/:KdKh|/2c7d9s"),
        ("expect", "MATCHSTATE:0:5:cc/:KdKh|/2c7d9s:c"),
        states("MATCHSTATE:0:5:cc/cr:KdKh|/2c7d9s"),
        ("expect", "MATCHSTATE:0:5:cc/cr:KdKh|/2c7d9s:c"),
        states("MATCHSTATE:0:5:cc/crc/:KdKh|/2c7d9s/8c"),
        ("expect", "MATCHSTATE:0:5:cc/crc/:KdKh|/2c7d9s/8c:c"),
        states("MATCHSTATE:0:5:cc/crc/c:KdKh|/2c7d9s/8c", "MATCHSTATE:0:5:cc/crc/cr:KdKh|/2c7d9s/8c"),
        ("expect", "MATCHSTATE:0:5:cc/crc/cr:KdKh|/2c7d9s/8c:c"),
        states("MATCHSTATE:0:5:cc/crc/crc/:KdKh|/2c7d9s/8c/9d"),
        ("expect", "MATCHSTATE:0:5:cc/crc/crc/:KdKh|/2c7d9s/8c/9d:c"),
        states("MATCHSTATE:0:5:cc/crc/crc/c:KdKh|/2c7d9s/8c/9d", "MATCHSTATE:0:5:cc/crc/crc/cr:KdKh|/2c7d9s/8c/9d"),
        ("expect", "MATCHSTATE:0:5:cc/crc/crc/cr:KdKh|/2c7d9s/8c/9d:c"),
        states("MATCHSTATE:0:5:cc/crc/crc/crc:KdKh|AsAd/2c7d9s/8c/9d"),
    ]
    dealer = dealers([*HAND0, *broken, *HAND2, ("close",)])
    db = str(tmp_path / "client.sqlite")
    result = _play(dealer.port, db=db)
    dealer.close()
    assert dealer.problems == []
    assert result.hands == 2 and result.stats.hands_abandoned == 1
    assert result.protocol_errors == 1  # reported once for the hand, not once a line
    nets, hands = _nets(db)
    assert hands == ["t:0", "t:2"]
    assert nets["me"] == (30 + 5, 2)


def test_a_dealer_that_stops_mid_hand(dealers, tmp_path):
    db = str(tmp_path / "client.sqlite")
    # A first match stores two hands.
    dealer = dealers([*HAND0, *HAND2, ("close",)])
    assert _play(dealer.port, db=db).hands == 2
    # The next match stops in the middle of a hand: its finished hand is stored, the
    # unfinished one is not, and nothing stored before is lost.
    dealer = dealers([*HAND1, states("MATCHSTATE:0:3::KdKh|", "MATCHSTATE:0:3:r:KdKh|"),
                      ("expect", "MATCHSTATE:0:3:r:KdKh|:c"), ("close",)])
    result = play_at_dealer("127.0.0.1", dealer.port, create_player("call", np.random.default_rng(0), "me"),
                            HU, db_path=db, match="u")
    dealer.close()
    assert result.hands == 1 and result.ended_mid_hand
    assert "middle of a hand" in result.summary("me")
    nets, hands = _nets(db)
    assert hands == ["t:0", "t:2", "u:1"]


class Slow(BasePlayer):
    def act(self, ctx):
        import time

        time.sleep(2.0)
        return Action.BET_RAISE


def test_a_slow_engine_answers_in_time_with_the_fallback(dealers):
    dealer = dealers([*HAND2[:0], states("MATCHSTATE:1:0::|9c8c"), ("expect", "MATCHSTATE:1:0::|9c8c:c"),
                      ("close",)])
    player = Slow("me", np.random.default_rng(0))
    config = AcpcConfig(decision_deadline=0.2, hand_budget=0.2)
    result = play_at_dealer("127.0.0.1", dealer.port, player, HU, config=config)
    dealer.close()
    assert dealer.problems == []
    assert result.stats.late == 1 and result.ended_mid_hand


def test_three_players_with_names(dealers, tmp_path):
    # We sit at position 1 (big blind); the button raises, the small blind calls, we call;
    # after the flop everyone checks to the river, where the small blind bets, bob folds
    # and we call; the small blind shows.
    script = [
        states("MATCHSTATE:1:0::|7c7d|", "MATCHSTATE:1:0:r:|7c7d|", "MATCHSTATE:1:0:rc:|7c7d|"),
        ("expect", "MATCHSTATE:1:0:rc:|7c7d|:c"),
        states("MATCHSTATE:1:0:rcc/:|7c7d|/2c3d9h", "MATCHSTATE:1:0:rcc/c:|7c7d|/2c3d9h"),
        ("expect", "MATCHSTATE:1:0:rcc/c:|7c7d|/2c3d9h:c"),
        states("MATCHSTATE:1:0:rcc/cc:|7c7d|/2c3d9h", "MATCHSTATE:1:0:rcc/ccc/:|7c7d|/2c3d9h/Qs",
               "MATCHSTATE:1:0:rcc/ccc/c:|7c7d|/2c3d9h/Qs"),
        ("expect", "MATCHSTATE:1:0:rcc/ccc/c:|7c7d|/2c3d9h/Qs:c"),
        states("MATCHSTATE:1:0:rcc/ccc/cc:|7c7d|/2c3d9h/Qs",
               "MATCHSTATE:1:0:rcc/ccc/ccc/:|7c7d|/2c3d9h/Qs/Ks",
               "MATCHSTATE:1:0:rcc/ccc/ccc/r:|7c7d|/2c3d9h/Qs/Ks"),
        ("expect", "MATCHSTATE:1:0:rcc/ccc/ccc/r:|7c7d|/2c3d9h/Qs/Ks:c"),
        states("MATCHSTATE:1:0:rcc/ccc/ccc/rcf:AhJh|7c7d|/2c3d9h/Qs/Ks"),
        ("close",),
    ]
    dealer = dealers(script)
    db = str(tmp_path / "three.sqlite")
    result = _play(dealer.port, game=THREE, db=db, names=["bob"])
    dealer.close()
    assert dealer.problems == []
    # Sevens beat ace-high: we win 20 x 3 pre-flop + the river 20 bet we called:
    # +40 (bob's 20 and the small blind's 20) + 20 (the river bet) = +60.
    nets, hands = _nets(db)
    assert nets == {"me": (60, 1), "bob": (-20, 1), "acpc:2": (-40, 1)}
    assert result.stats.net_chips == 60


def test_decision_deadlines_keep_within_the_dealers_average():
    from agent.play.acpc.match import DecisionClock

    clock = DecisionClock(per_decision=5.0, per_hand=2.0, floor=0.05)
    clock.new_hand()
    assert clock.deadline() == 2.0  # one hand in: 2 s of budget, under the 5 s cap
    clock.spent(1.5)
    assert clock.deadline() == pytest.approx(0.5)
    clock.spent(1.0)  # over budget: the floor, never zero
    assert clock.deadline() == 0.05
    for _ in range(10):
        clock.new_hand()  # quick hands bank time, up to the per-decision cap
    assert clock.deadline() == 5.0
