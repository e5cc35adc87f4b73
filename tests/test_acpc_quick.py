"""The short ways through the ACPC connection, checked against the long ones.

* The short ways inside StateTranslator.read for a seat that needs no events
  (``events=False``: a line that adds actions, or closes a round and gives the next
  round's cards; a hand's usual first line) against the full read: over every view of
  seeded 2-, 3- and 6-player matches (folds, raises, caps, showdowns), a translator that
  reads without events ends every line in the same state as one that reads them; and
  over thousands of seeded corruptions of those lines, the short ways never accept a
  line that the full read refuses or reads differently.
* LineFramer's one-call split of a read of whole ``\\r\\n`` lines against the same bytes
  fed one at a time (which never takes it), with bare ``\\n`` ends, empty lines, stray
  ``\\r`` and bytes that are not ASCII.
* The dealer's quick answer of a lone remote seat (AcpcDealer._quick_answer): a raw
  socket player that answers in pieces, with a comment first, with bare ``\\n``, with an
  illegal or unknown action, to a state that never was, and too late; every such answer
  is counted as the general reading counts it and the log satisfies the rules engine.
"""
from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from agent.play.acpc.dealer import DealerLimits
from connectors.acpc import protocol
from connectors.acpc.client import LineFramer
from connectors.acpc.game import standard_game
from connectors.acpc.protocol import ProtocolError, StateTranslator
from evaluator_pyx.cards import CARD_NAMES

from helpers.acpc import Match, check_log, matchstate_lines


def _game(players: int):
    return standard_game(f"holdem.limit.{players}p.game" if players > 2
                         else "holdem.limit.2p.reverse_blinds.game")


def _read_only(translator: StateTranslator, line: str):
    try:
        return translator.read(line, "t")
    except ProtocolError:
        return None


def _short(translator: StateTranslator, line: str):
    """What read(events=False) made of ``line``: "advance" (no state, no events), "begin"
    (a hand's first line, no events) or "full" (read in full); raises as read does."""
    state, events = translator.read(line, "t", events=False)
    if events is not protocol._NO_EVENTS:
        return "full"
    return "advance" if state is None else "begin"


@pytest.mark.parametrize("players, seed, me", [(2, 31, 0), (3, 32, 1), (6, 33, 4)])
def test_reading_without_events_ends_in_the_states_read_gives(players, seed, me):
    game = _game(players)
    lines = matchstate_lines(players, 80, seed, me)
    short = StateTranslator(game, "me", match="m")
    full = StateTranslator(game, "me", match="m")
    taken = {"advance": 0, "begin": 0, "full": 0}
    for line in lines:
        state_events = full.read(line, "t")
        assert state_events is not None
        state, events = state_events
        way = _short(short, line)
        taken[way] += 1
        if way == "advance":
            # Only actions and a round's cards: never a hand's end or cards shown.
            assert all(type(e).__name__ in ("PlayerActed", "BoardDealt") for e in events)
        elif way == "begin":
            assert type(events[0]).__name__ == "HandStarted"
        assert short.last == full.last
        assert short.hand_over == full.hand_over
        assert short.text == state.text and short.betting == "/".join(state.betting)
        assert short.board_cards() == sum(state.board, ())
    # Both short ways carried most of the match.
    assert taken["begin"] == 80
    assert taken["advance"] > len(lines) / 3


def _corrupt(line: str, rng: np.random.Generator) -> str:
    """One seeded change: a character replaced, inserted or removed."""
    alphabet = "MATCHSTE:|/fcrx0123456789TJQKAshdc "
    i = int(rng.integers(len(line) + 1))
    kind = int(rng.integers(3))
    char = alphabet[int(rng.integers(len(alphabet)))]
    if kind == 0 and i < len(line):
        return line[:i] + char + line[i + 1:]
    if kind == 1:
        return line[:i] + char + line[i:]
    return line[:i] + line[i + 1:]


@pytest.mark.parametrize("players, seed", [(2, 41), (3, 42)])
def test_the_short_ways_accept_nothing_read_refuses(players, seed):
    game = _game(players)
    lines = matchstate_lines(players, 40, seed, 0)
    rng = np.random.default_rng(seed)
    accepted = refused = 0
    for k, line in enumerate(lines):
        for _ in range(12):
            bad = _corrupt(line, rng)
            # Two translators that read the match up to this line, one for each way.
            short = StateTranslator(game, "me", match="m")
            full = StateTranslator(game, "me", match="m")
            for before in lines[max(0, k - 12):k]:
                for t in (short, full):
                    _read_only(t, before)
            if short.last is None or short.last.text != (full.last.text if full.last else None):
                continue
            try:
                way = _short(short, bad)
            except ProtocolError:
                way = "refused"
            if way in ("full", "refused"):
                refused += 1  # the short ways passed it on
                continue
            accepted += 1
            expected = _read_only(full, bad)
            assert expected is not None, bad  # read() takes what the short ways took ...
            assert short.last == full.last, bad  # ... and ends in the same state
            assert short.hand_over == full.hand_over
    assert accepted > 0 and refused > 0


def test_the_short_ways_take_only_what_they_may():
    game = _game(2)
    t = StateTranslator(game, "me", match="m")
    assert _short(t, "MATCHSTATE:0:4::AsKd|") == "begin"
    assert _short(t, "MATCHSTATE:0:5::AsKd|") == "full"  # hand 4 is not over: the full read decides
    t = StateTranslator(game, "me", match="m")
    _short(t, "MATCHSTATE:0:4::AsKd|")
    assert _short(t, "MATCHSTATE:0:4:r:AsKd|") == "advance" and t.betting == "r"
    assert _short(t, "MATCHSTATE:0:4:rf:AsKd|") == "full"  # a fold ends the hand: read in full
    assert t.hand_over
    with pytest.raises(ProtocolError):
        _short(t, "MATCHSTATE:0:4::AsKd|")  # the same hand again: not a first line, refused
    # A round's cards: a card already seen, a wrong count, a bad card name.
    for bad in ("MATCHSTATE:1:7:cc/:|AsKd/As2c3c", "MATCHSTATE:1:7:cc/:|AsKd/2c2c3c",
                "MATCHSTATE:1:7:cc/:|AsKd/2c3c", "MATCHSTATE:1:7:cc/:|AsKd/2c3c1h",
                "MATCHSTATE:1:7:cc/:|AsKd2c3c4c", "MATCHSTATE:1:7:cc//:|AsKd/2c3c4c/5c"):
        t = StateTranslator(game, "me", match="m")
        _short(t, "MATCHSTATE:1:7::|AsKd")
        assert _short(t, "MATCHSTATE:1:7:c:|AsKd") == "advance"
        try:
            way = _short(t, bad)
        except ProtocolError:
            way = "refused"
        # Never the short way; two rounds closed at once is the protocol's to read (the
        # rules then refuse the empty round).
        assert way == ("full" if "//" in bad else "refused"), bad
    t = StateTranslator(game, "me", match="m")
    _short(t, "MATCHSTATE:1:7::|AsKd")
    _short(t, "MATCHSTATE:1:7:c:|AsKd")
    assert _short(t, "MATCHSTATE:1:7:cc/:|AsKd/2c3c4c") == "advance" and t.betting == "cc/"
    assert t.board_cards() == tuple(CARD_NAMES.index(c) for c in ("2c", "3c", "4c"))
    assert t.last.board == ((), t.board_cards())


@pytest.mark.parametrize("data", [
    b"MATCHSTATE:0:1::AsKd|\r\nMATCHSTATE:0:1:c:AsKd|\r\n",
    b"a\r\n\r\nb\r\n",
    b"a\r\nb\nc\r\n",  # a bare \n among \r\n: the general split
    b"x\ry\r\n",  # a stray \r inside a line is kept
    b"caf\xc3\xa9\r\nok\r\n",
    b"\r\n",
    b"partial\r\nnot ended",
])
def test_the_framers_one_call_split_gives_the_lines_of_a_byte_by_byte_feed(data):
    whole = LineFramer("t")
    by_byte = LineFramer("t")
    got = whole.feed(data)
    expected = [line for i in range(len(data)) for line in by_byte.feed(data[i:i + 1])]
    assert got == expected
    assert whole.pending == by_byte.pending


def test_the_framer_still_drops_an_over_long_line_read_whole():
    framer = LineFramer("t", max_line=10)
    assert framer.feed(b"0123456789ab\r\nok\r\n") == ["ok"]
    assert framer.dropped == 1


class PlannedPlayer(threading.Thread):
    """A remote heads-up player on a raw socket that calls, answering its k-th decision
    as ``plan[k % len(plan)]`` says (the house in-process seat calls too, so every
    answer taken is a call and every hand reaches the showdown)."""

    PLAN = ("ok", "unknown", "pieces", "comment", "bare", "other", "late", "fold")

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.done: dict[str, int] = dict.fromkeys(self.PLAN, 0)

    def run(self) -> None:
        sock = self.sock
        framer = LineFramer("planned")
        decisions = 0
        unanswered = b""  # the answer held back by a "late" decision, sent with the next
        try:
            sock.sendall(b"VERSION:2.0.0\r\n")
            while True:
                data = sock.recv(65536)
                if not data:
                    return
                lines = framer.feed(data)
                if not lines:
                    continue
                last = lines[-1]
                holes = last.split(":")[4].split("/")[0].split("|")
                if sum(1 for h in holes if h) > 1:
                    continue  # a showdown: the hand is over, nothing to answer
                kind = self.PLAN[decisions % len(self.PLAN)]
                decisions += 1
                betting = last.split(":")[3]
                if kind == "fold" and betting == "":
                    kind = "ok"  # folding is legal facing the blind: keep the plan's count exact
                self.done[kind] += 1
                state = last.encode()
                if unanswered:
                    sock.sendall(unanswered)  # too late: that state is no longer asked
                    unanswered = b""
                if kind == "ok":
                    sock.sendall(state + b":c\r\n")
                elif kind == "unknown":
                    sock.sendall(state + b":x\r\n")
                elif kind == "fold":  # checking is free: not a legal move, taken as a call
                    sock.sendall(state + b":f\r\n")
                elif kind == "pieces":
                    sock.sendall(state[:9])
                    time.sleep(0.05)
                    sock.sendall(state[9:] + b":c\r\n")
                elif kind == "comment":
                    sock.sendall(b"# thinking\r\n" + state + b":c\r\n")
                elif kind == "bare":
                    sock.sendall(state + b":c\n")
                elif kind == "other":
                    sock.sendall(b"MATCHSTATE:0:999::|:c\r\n" + state + b":c\r\n")
                elif kind == "late":
                    unanswered = state + b":c\r\n"  # past the dealer's time limit
        except OSError:
            pass
        finally:
            sock.close()


def test_a_lone_remote_seat_is_read_the_quick_way_or_the_general_way_alike(tmp_path):
    hands = 8  # 32 decisions: every kind of answer four times
    names = ["raw", "house"]
    limits = DealerLimits(response_timeout=0.25, budget_per_hand=30, connect_timeout=30)
    log_path = tmp_path / "quick.log"
    with open(log_path, "w") as log_file:
        match = Match(2, names, hands, 5, {1: "call"}, limits=limits, log_file=log_file)
        player = PlannedPlayer(match.ports[0])
        player.start()
        outcome, _ = match.join()
        player.join(60)
        assert not player.is_alive()
    assert outcome.hands == hands
    check_log(open(log_path).read().splitlines(), match.game, 2, hands, names)
    done = player.done
    assert sum(done.values()) == 4 * hands  # both call: four decisions a hand each
    report = {r.name: r for r in outcome.seats}["raw"]
    assert report.invalid == done["unknown"] + done["fold"]
    assert report.timeouts == done["late"]
    # The answer to a state that never was, and each late answer (sent with the answer
    # to the next state), are ignored; a comment is not.
    assert report.ignored == done["other"] + done["late"]
    assert report.actions == 4 * hands and not report.disconnected and not report.folded_out
    # Every hand was called down to the showdown: the log's betting says so.
    bettings = [line.split(":")[2] for line in open(log_path) if line.startswith("STATE:")]
    assert bettings == ["cc/cc/cc/cc"] * hands


def test_a_repeated_last_state_is_not_a_second_hand_on_either_path():
    """A dealer that sends a hand's last state twice: the full path counts the hand once
    (the repeat adds no event); so must the lean path, with its end settled at once or
    put off until catch_up()."""
    from agent.play.acpc.lean import LeanSession
    from agent.play.acpc.match import AcpcSession
    from agent.play.seat import Seat
    from agent.players import create_player

    game = _game(2)
    lines = ["MATCHSTATE:0:0::AsKd|", "MATCHSTATE:0:0:r:AsKd|", "MATCHSTATE:0:0:rf:AsKd|",
             "MATCHSTATE:0:0:rf:AsKd|",
             "MATCHSTATE:1:1::|2c7d", "MATCHSTATE:1:1:c:|2c7d", "MATCHSTATE:1:1:cc/:|2c7d/3h4h5h",
             "MATCHSTATE:1:1:cc/c:|2c7d/3h4h5h", "MATCHSTATE:1:1:cc/cc/:|2c7d/3h4h5h/Jc",
             "MATCHSTATE:1:1:cc/cc/c:|2c7d/3h4h5h/Jc",
             "MATCHSTATE:1:1:cc/cc/cc/:|2c7d/3h4h5h/Jc/Qs",
             "MATCHSTATE:1:1:cc/cc/cc/c:|2c7d/3h4h5h/Jc/Qs",
             "MATCHSTATE:1:1:cc/cc/cc/cc:9s9d|2c7d/3h4h5h/Jc/Qs",
             "MATCHSTATE:1:1:cc/cc/cc/cc:9s9d|2c7d/3h4h5h/Jc/Qs"]
    results = []
    for kind, put_off in ((AcpcSession, False), (LeanSession, False), (LeanSession, True)):
        seat = Seat(create_player("call", np.random.default_rng(0), "me"), source="t")
        if kind is AcpcSession:
            seat.sink = lambda record: None  # a sink: the seat follows every event
        session = kind(game, seat, match="m", source="t")
        session.put_off_ends = put_off
        answers = [session.on_line(line) for line in lines]
        session.catch_up()
        seat.flush(30)
        seat.close()
        results.append((answers, seat.stats.hands, seat.stats.net_chips, session.errors))
    assert results[0] == results[1] == results[2]
    answers, hands, net, errors = results[0]
    assert hands == 2 and errors == 0
    # Hand 0: the dealer says we (the big blind, position 0) folded to the button's
    # raise: -10. Hand 1: both check every round after the call, 10 in each, and the
    # big blind's nines beat our queen-high on 3h4h5h Jc Qs: -10.
    assert net == -20
    assert answers[1] == "MATCHSTATE:0:0:r:AsKd|:c"
    assert answers[4] == "MATCHSTATE:1:1::|2c7d:c" and answers.count(None) == len(lines) - 5  # one answer, then four
