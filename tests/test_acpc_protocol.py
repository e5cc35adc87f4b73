"""connectors.acpc.protocol: the MATCHSTATE grammar of the ACPC protocol 2.0.0 and the
translation of one player's states into tracker events. The events go through a real
tracker, whose rules must accept them; results are checked against hand-worked answers."""
from __future__ import annotations

import pytest

from agent.game.events import BoardDealt, CardsShown, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.game.tracker import Tracker
from connectors.acpc.game import parse_game, standard_game
from connectors.acpc.protocol import (
    VERSION_LINE,
    ProtocolError,
    StateTranslator,
    format_matchstate,
    format_response,
    is_comment,
    parse_matchstate,
    parse_response,
    parse_version,
)
from evaluator_pyx.cards import parse_card

HU = standard_game("holdem.limit.2p.reverse_blinds.game")
THREE = standard_game("holdem.limit.3p.game")


def c(text):
    return tuple(parse_card(text[i:i + 2]) for i in range(0, len(text), 2))


def test_greeting_and_comments():
    assert VERSION_LINE == "VERSION:2.0.0"
    assert parse_version("VERSION:2.0.0\r\n") == (2, 0, 0)
    for bad in ("VERSION:2.0", "version:2.0.0", "HELLO", ""):
        with pytest.raises(ProtocolError):
            parse_version(bad)
    assert is_comment("# a comment") and is_comment(";gui") and is_comment("")
    assert not is_comment("MATCHSTATE:0:0::AsKs|")


def test_parse_the_grammar():
    s = parse_matchstate("MATCHSTATE:1:17:cr/rc/:|QhJd/2c8c3h/9s\r\n", 2)
    assert (s.position, s.hand_number) == (1, 17)
    assert s.betting == ("cr", "rc", "")
    assert s.holes == (None, c("QhJd"))
    assert s.board == ((), c("2c8c3h"), c("9s"))
    assert s.text == "MATCHSTATE:1:17:cr/rc/:|QhJd/2c8c3h/9s"
    # Three players, our cards in the last place, nothing bet yet.
    s = parse_matchstate("MATCHSTATE:2:4::||5d5c", 3)
    assert s.holes == (None, None, c("5d5c")) and s.betting == ("",)
    # Writing it back gives the same line.
    again = format_matchstate(s.position, s.hand_number, s.betting_text, s.holes, s.board)
    assert again == s.text


@pytest.mark.parametrize("line, why", [
    ("MATCHSTATE:0:0::AsKs", "hole card entries"),  # one entry in a 2-player game
    ("MATCHSTATE:2:0::AsKs|", "position 2"),
    ("MATCHSTATE:0:0:x:AsKs|", "not a limit MATCHSTATE"),
    ("MATCHSTATE:0:0:r100:AsKs|", "not a limit MATCHSTATE"),  # no-limit sizes
    ("MATCHSTATE:0:0::AsAs|", "twice"),
    ("MATCHSTATE:0:0::AsK|", "cannot read cards"),
    ("MATCHSTATE:0:0::Ax9s|", "not a card"),
    ("MATCHSTATE:0:0::|QhJd", "our own hole cards"),
    ("MATCHSTATE:0:0:c/:AsKs|/2c8c", "needs 3 board cards"),
    ("MATCHSTATE:0:0:cc/:AsKs|", "board cards for 1"),
    ("MATCHSTATE:0:0:c/c/c/c/c:AsKs|/2c8c3h/9s/Td", "betting rounds"),
    ("GARBAGE", "not a limit MATCHSTATE"),
    ("MATCHSTATE:0:0::AsKs|:c", "not a limit MATCHSTATE"),
])
def test_bad_states_are_refused_with_the_reason(line, why):
    with pytest.raises(ProtocolError, match=why):
        parse_matchstate(line, 2, "test dealer")


def test_responses():
    state = "MATCHSTATE:0:3:r:9d7s|"
    assert format_response(state, Action.CHECK_CALL) == state + ":c"
    assert format_response(state, Action.BET_RAISE) == state + ":r"
    assert format_response(state, Action.FOLD) == state + ":f"
    assert parse_response(state + ":r\r\n") == (state, "r")
    assert parse_response("MATCHSTATE:1:0:rr/:|AsKs/2c3c4c:x") == ("MATCHSTATE:1:0:rr/:|AsKs/2c3c4c", "x")
    for bad in ("hello", "MATCHSTATE:0:3:r:9d7s|", "MATCHSTATE:0"):
        with pytest.raises(ProtocolError):
            parse_response(bad)


def _play(translator, lines, tracker):
    events = []
    for line in lines:
        _, new = translator.read(line)
        for ev in new:
            tracker.apply(ev)
        events.extend(new)
    return events


def test_heads_up_showdown_through_the_rules():
    # We are position 0, the big blind: the button (position 1) acts first pre-flop.
    lines = [
        "MATCHSTATE:0:0::KdKh|",
        "MATCHSTATE:0:0:r:KdKh|",
        "MATCHSTATE:0:0:rc/:KdKh|/2c7d9s",
        "MATCHSTATE:0:0:rc/c:KdKh|/2c7d9s",
        "MATCHSTATE:0:0:rc/cc/:KdKh|/2c7d9s/3h",
        "MATCHSTATE:0:0:rc/cc/r:KdKh|/2c7d9s/3h",
        "MATCHSTATE:0:0:rc/cc/rc/:KdKh|/2c7d9s/3h/4s",
        "MATCHSTATE:0:0:rc/cc/rc/cc:KdKh|QsQc/2c7d9s/3h/4s",
    ]
    t = StateTranslator(HU, "me", match="m")
    tracker = Tracker("me")
    events = _play(t, lines, tracker)
    started = events[0]
    assert isinstance(started, HandStarted)
    assert started.players == ("me", "acpc:1") and started.button == 1
    assert (started.small_blind, started.big_blind, started.small_bet, started.big_bet) == (5, 10, 10, 20)
    assert events[1] == HoleCards("me", c("KdKh"))
    assert [type(e) for e in events[2:]].count(BoardDealt) == 3
    assert events[-2] == CardsShown("acpc:1", c("QsQc")) and isinstance(events[-1], HandEnded)
    record = tracker.record
    assert record.hand_id == "m:0"
    # Pre-flop raised to 20 and called, the flop checked, the turn bet (20) called, the
    # river checked: kings beat queens for 40.
    net = {r.player: r.won - r.put_in for r in record.results}
    assert net == {"me": 40, "acpc:1": -40}
    assert t.hand_over


def test_a_hand_that_ends_by_folds_and_states_where_we_do_not_act():
    # Three players, we sit at position 1 (the big blind); position 2 acts first.
    lines = [
        "MATCHSTATE:1:9::|7c2d|",
        "MATCHSTATE:1:9:r:|7c2d|",
        "MATCHSTATE:1:9:rc:|7c2d|",  # the small blind calls; our turn
        "MATCHSTATE:1:9:rcf:|7c2d|",  # we fold; the others play on
        "MATCHSTATE:1:9:rcf/:|7c2d|/AhKhQh",
        "MATCHSTATE:1:9:rcf/r:|7c2d|/AhKhQh",
        "MATCHSTATE:1:9:rcf/rf:|7c2d|/AhKhQh",
    ]
    t = StateTranslator(THREE, "me", names=["bob"], match="x")
    tracker = Tracker("me")
    events = _play(t, lines, tracker)
    assert events[0].players == ("acpc:2", "me", "bob")  # position order; bob sits after us
    assert isinstance(events[-1], HandEnded)
    net = {r.player: r.won - r.put_in for r in tracker.record.results}
    # Bob (the button) raised to 20, the small blind called, we folded our big blind (10).
    # After the flop the small blind (acpc:2, position 0) bets first and bob folds: the
    # small blind takes the 50 in the pot, 30 more than it put in.
    assert net == {"acpc:2": 30, "me": -10, "bob": -20}
    assert tracker.record.shown == ()


def test_names_follow_the_seats_as_positions_rotate():
    t = StateTranslator(THREE, "me", names=["bob", "ann"])
    # Hand 0 at position 0: bob is next (position 1), ann at 2. Hand 1 at position 2.
    assert t.players_for(0) == ("me", "bob", "ann")
    assert t.players_for(2) == ("bob", "ann", "me")
    assert t.players_for(1) == ("ann", "me", "bob")
    with pytest.raises(ValueError):
        StateTranslator(THREE, "me", names=["me"])


def test_states_that_do_not_continue_are_refused():
    t = StateTranslator(HU, "me")
    t.read("MATCHSTATE:0:5::KdKh|")
    t.read("MATCHSTATE:0:5:r:KdKh|")
    with pytest.raises(ProtocolError, match="does not continue"):
        t.read("MATCHSTATE:0:5:c:KdKh|")
    t = StateTranslator(HU, "me")
    t.read("MATCHSTATE:0:5::KdKh|")
    with pytest.raises(ProtocolError, match="hole cards changed"):
        t.read("MATCHSTATE:0:5:r:KdKs|")
    t = StateTranslator(HU, "me")
    t.read("MATCHSTATE:0:5:rc/:KdKh|/2c7d9s")
    with pytest.raises(ProtocolError, match="board of round 2 changed"):
        t.read("MATCHSTATE:0:5:rc/c:KdKh|/2c7d9h")
    t = StateTranslator(HU, "me")
    t.read("MATCHSTATE:0:5::KdKh|")
    with pytest.raises(ProtocolError, match="position changed"):
        t.read("MATCHSTATE:1:5::|KdKh")
    # After an error the next hand is followed again.
    _, events = t.read("MATCHSTATE:1:6::|AsAd")
    assert isinstance(events[0], HandStarted)
    # A repeat of the final state is no news; anything else after the end is an error.
    t = StateTranslator(HU, "me")
    t.read("MATCHSTATE:1:7::|AsAd")
    t.read("MATCHSTATE:1:7:f:|AsAd")
    assert t.read("MATCHSTATE:1:7:f:|AsAd")[1] == []
    with pytest.raises(ProtocolError, match="after the hand ended"):
        t.read("MATCHSTATE:1:7:fc:|AsAd")


def test_the_fast_path_and_the_full_parse_agree():
    lines = ["MATCHSTATE:2:55::||AsTs", "MATCHSTATE:2:55:r:||AsTs", "MATCHSTATE:2:55:rc:||AsTs",
             "MATCHSTATE:2:55:rcc/:||AsTs/4cJh8h", "MATCHSTATE:2:55:rcc/r:||AsTs/4cJh8h",
             "MATCHSTATE:2:55:rcc/rf:||AsTs/4cJh8h", "MATCHSTATE:2:55:rcc/rfc/:||AsTs/4cJh8h/Kd"]
    fast = StateTranslator(THREE, "me")
    slow = StateTranslator(THREE, "me")
    for line in lines:
        state_fast, ev_fast = fast.read(line)
        state_slow = slow.parse(line)
        ev_slow = slow.update(state_slow)
        assert state_fast == state_slow and ev_fast == ev_slow
    assert ev_fast == [PlayerActed(None, Action.CHECK_CALL), BoardDealt(c("Kd"))]


def test_game_definition_with_stacks_and_other_sizes():
    game = parse_game("""GAMEDEF
limit
numPlayers = 2
numRounds = 4
stack = 400 400
blind = 4 2
raiseSize = 4 4 8 8
firstPlayer = 2 1 1 1
maxRaises = 2 3 3 3
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
""")
    t = StateTranslator(game, "me")
    _, events = t.read("MATCHSTATE:1:0::|AsAd")
    start = events[0]
    assert start.stacks == (400, 400)
    assert (start.small_blind, start.big_blind, start.small_bet, start.big_bet, start.max_bets) == (2, 4, 4, 8, 3)
    tracker = Tracker("me")
    for e in events:
        tracker.apply(e)
    # Pre-flop cap of 3 bets (blind + 2 raises): r, r, then only call or fold.
    for line in ("MATCHSTATE:1:0:r:|AsAd", "MATCHSTATE:1:0:rr:|AsAd"):
        for e in t.read(line)[1]:
            tracker.apply(e)
    assert Action.BET_RAISE not in tracker.snapshot().legal_actions
