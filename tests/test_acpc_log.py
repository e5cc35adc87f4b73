"""ACPC dealer logs: the syntax our dealer writes, parsing it back, and replaying the
parsed hands through the tracker to the same payoffs."""
from __future__ import annotations

import re

import pytest

from agent.config import TableConfig
from agent.game.events import HandEnded, HandStarted, PlayerActed
from agent.game.rules import Action
from agent.game.tracker import Tracker, TrackerError
from agent.play.offline.tournament import TournamentSetup, run_tournament
from connectors.logs.acpc_log import (
    AcpcHand,
    AcpcLogError,
    AcpcScore,
    format_state,
    hand_events,
    parse_log,
    parse_state,
)
from evaluator_pyx.cards import parse_cards

CARD = r"[2-9TJQKA][cdhs]"
# The dealer's log line for a limit game: STATE:hand:betting:holes/board:values:names.
STATE_LINE = re.compile(
    rf"STATE:\d+:[fcr]*(/[fcr]*){{0,3}}:"
    rf"({CARD}{CARD})(\|{CARD}{CARD})+(/{CARD}{CARD}{CARD})?(/{CARD})?(/{CARD})?:"
    r"-?\d+(\.\d+)?(\|-?\d+(\.\d+)?)+:[^:|\s]+(\|[^:|\s]+)+")


def test_the_example_line_round_trips() -> None:
    line = "STATE:0:r/cr/cc/cc:Ks9h|8d6h/Kc4s2h/Ad/6s:30|-30:Alice|Bob"
    hand = parse_state(line)
    assert hand.hand_number == 0
    assert hand.betting == ("r", "cr", "cc", "cc")
    assert hand.holes == (tuple(parse_cards("Ks9h")), tuple(parse_cards("8d6h")))
    assert hand.board == ((), tuple(parse_cards("Kc4s2h")), tuple(parse_cards("Ad")),
                          tuple(parse_cards("6s")))
    assert hand.values == (30, -30) and hand.players == ("Alice", "Bob")
    assert format_state(hand) == line
    # As a heads-up hand the line is impossible (the big blind never answered the raise):
    # the tracker refuses it rather than record it.
    tracker = Tracker()
    with pytest.raises(TrackerError, match="betting on the pre-flop is not finished"):
        tracker.apply_all(hand_events(hand, TableConfig()))


def match_log(tmp_path, specs, deals: int, seed: int):
    path = tmp_path / f"{len(specs)}.log"
    setup = TournamentSetup.from_text(specs, TableConfig(seats=len(specs)), seed, chunk=40)
    result = run_tournament(setup, deals, log_acpc=path)
    return path, result


@pytest.mark.parametrize("specs", [("rr", "call"), ("random", "rr", "raise")])
def test_dealer_log_syntax_and_replay(tmp_path, specs) -> None:
    deals = 150
    path, result = match_log(tmp_path, specs, deals, seed=11)
    lines = path.read_text().splitlines()
    n = len(specs)
    assert lines[0] == (f"# name/game/hands/seed match "
                        f"{'holdem.limit.2p.reverse_blinds.game' if n == 2 else 'holdem.limit.3p.game'} "
                        f"{deals * n} 11")
    states = lines[1:-1]
    assert len(states) == deals * n
    for line in states:
        assert STATE_LINE.fullmatch(line), line
    assert lines[-1].startswith("SCORE:")

    # Expected payoffs per hand number, from the tournament's own results.
    expected = {}
    for row in result.hand_rows():
        expected.setdefault(row["hand"], {})[row["player"]] = row["chips"]
    table = TableConfig(seats=n)
    tracker = Tracker()
    totals = dict.fromkeys(result.names, 0)
    seen = 0
    for item in parse_log(lines, source=str(path)):
        if isinstance(item, AcpcScore):
            assert dict(zip(item.players, item.totals)) == totals
            continue
        assert isinstance(item, AcpcHand), item
        records = tracker.apply_all(hand_events(item, table, stack=table.starting_stack))
        assert len(records) == 1
        record = records[0]
        record.check()
        payoffs = {r.player: r.won - r.put_in for r in record.results}
        assert payoffs == expected[item.hand_number]
        assert payoffs == dict(zip(item.players, item.values))
        for name, chips in payoffs.items():
            totals[name] += chips
        # ACPC order: player 0 sits left of the button, the button last.
        assert [s.position for s in record.seats] == list(range(1, n + 1))
        if n == 2:
            # Reverse blinds: the button (player 1) posts the small blind.
            assert record.actions[0].player == item.players[1]
            assert record.actions[0].kind == "sb"
        seen += 1
    assert seen == deals * n
    assert totals == dict(zip(result.names, result.deal_chips.sum(axis=0).tolist()))


def test_bad_lines_are_reported_with_file_and_line() -> None:
    lines = [
        "# comment",
        "STATE:1:cc/cc/cc/cc:AsKs|QsJs/2c3c4c/5c/6c:20|-20:a|b",
        "STATE:x:cc:AsKs|QsJs:0|0:a|b",
        "STATE:2:cx:AsKs|QsJs:0|0:a|b",
        "STATE:3:cc/c:AsKs|QsJs/2c3c:0|0:a|b",
        "STATE:4:cc:AsKs|AsJs:0|0:a|b",
        "STATE:5:cc:AsKs|QsJs:0:a|b",
        "HELLO",
        "STATE:6:cc:AsKs|QsJs:1|x:a|b",
    ]
    items = list(parse_log(lines, source="m.log"))
    assert isinstance(items[0], AcpcHand)
    errors = [str(e) for e in items[1:]]
    assert all(isinstance(e, AcpcLogError) for e in items[1:])
    assert errors[0].startswith("m.log:3: hand number")
    assert "m.log:4" in errors[1] and "unknown action 'x'" in errors[1]
    assert "m.log:5" in errors[2] and "needs 3 board cards" in errors[2]
    assert "m.log:6" in errors[3] and "appears twice" in errors[3]
    assert "m.log:7" in errors[4] and "1 values for 2 players" in errors[4]
    assert "m.log:8" in errors[5] and "not a STATE or SCORE line" in errors[5]
    assert "m.log:9" in errors[6] and "'x' is not a number" in errors[6]


def test_reported_values_that_disagree_are_an_error_naming_the_hand() -> None:
    # Heads-up: the button (player 1) limps, the big blind checks; river showdown.
    line = "STATE:7:cc/cc/cc/cc:AsAh|7c2d/Kd9s4h/3c/Jd:10|-10:a|b"
    hand = parse_state(line)
    Tracker().apply_all(hand_events(hand, TableConfig()))
    wrong = parse_state(line.replace(":10|-10:", ":-10|10:"))
    with pytest.raises(TrackerError, match=r"acpc:7: reported results disagree"):
        Tracker().apply_all(hand_events(wrong, TableConfig()))


def test_fractional_split_pot_values_are_accepted_within_a_chip() -> None:
    # Three-handed: the button (c) limps, the small blind (a) folds, the big blind (b)
    # checks; b and c both play the board and split 25 chips. The ACPC dealer reports
    # halves; our rules give the odd chip to b, the first winner left of the button.
    line = "STATE:3:cfc/cc/cc/cc:7h8d|2c3d|2d3c/AhKdQc/Js/9h:-5|2.5|2.5:a|b|c"
    hand = parse_state(line)
    assert hand.values == (-5, 2.5, 2.5)
    record = Tracker().apply_all(hand_events(hand, TableConfig(seats=3)))[0]
    assert [r.won - r.put_in for r in record.results] == [-5, 3, 2]
    off_by_more = parse_state(line.replace("-5|2.5|2.5", "-5|4.5|0.5"))
    with pytest.raises(TrackerError, match="disagree"):
        Tracker().apply_all(hand_events(off_by_more, TableConfig(seats=3)))


def test_events_leave_the_actor_to_the_tracker() -> None:
    hand = parse_state("STATE:9:rf:AsKs|7c2d:-10|10:a|b")
    events = hand_events(hand, TableConfig(), stack=500, source="t.log")
    assert isinstance(events[0], HandStarted) and events[0].players == ("a", "b")
    assert events[0].button == 1 and events[0].stacks == (500, 500)
    assert [e for e in events if isinstance(e, PlayerActed)] == [
        PlayerActed(None, Action.BET_RAISE), PlayerActed(None, Action.FOLD)]
    assert isinstance(events[-1], HandEnded)
    record = Tracker().apply_all(events)[0]
    # b is the button: raises first pre-flop, then a folds.
    assert [(a.player, a.kind) for a in record.actions] == [
        ("b", "sb"), ("a", "bb"), ("b", "r"), ("a", "f")]
    assert record.hand_id == "t.log:9"


@pytest.mark.parametrize("n", (2, 3))
def test_short_stacked_hands_with_run_outs_replay(n: int) -> None:
    import numpy as np

    from agent.play.offline.dealer import HandLog, play_match
    from agent.players import create_player

    table = TableConfig(seats=n, starting_stack=35)
    players = [create_player(s, np.random.default_rng(k), name=f"p{k}")
               for k, s in enumerate(("raise", "random", "call")[:n])]
    log = HandLog(acpc=True)
    result = play_match(players, table, 300, 17, log=log, keep_records=True)
    run_outs = 0
    tracker = Tracker()
    for line, record in zip(log.acpc_lines, result.records):
        assert STATE_LINE.fullmatch(line), line
        hand = parse_state(line)
        run_outs += hand.betting[-1] == "" and len(hand.betting) == 4
        replayed = tracker.apply_all(hand_events(hand, table, stack=35))[0]
        assert set(replayed.results) == set(record.results)
        assert replayed.actions == record.actions
    assert run_outs > 10
