"""The one reader of the text rooms (connectors/logs/text_room.py): its tables are checked
when a room is made, and the rules it holds for every room hold in each of the five, on
each room's hand-written cases (tests/room_cases) changed one line at a time.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from agent.game.records import HandRecord
from agent.game.tracker import Tracker
from connectors.logs import absolute, fulltilt, ongame, partypoker, pokerstars, rooms
from connectors.logs.text_room import Amounts, Header, Line, Result, TextRoom, rules

CASES = Path(__file__).resolve().parent / "room_cases"
ROOMS: dict[str, tuple[ModuleType, str]] = {
    "stars": (pokerstars, "stars.txt"), "ftp": (fulltilt, "fulltilt.txt"), "ongame": (ongame, "ongame.txt"),
    "party": (partypoker, "partypoker.txt"), "absolute": (absolute, "absolute.txt"),
}


def _hands(room: str) -> list[list[str]]:
    """The lines of each hand of a room's cases."""
    reader, name = ROOMS[room]
    text = rooms.decode((CASES / name).read_bytes())
    return [body.split("\n") for _, body in reader.split_hands(text)]


def _record(room: str, lines: list[str]) -> HandRecord:
    reader = ROOMS[room][0]
    tracker = Tracker()
    record = None
    for event in rooms.hand_events(reader.parse_hand("\n".join(lines), f"{room}-case")):
        record = tracker.apply(event)
    assert isinstance(record, HandRecord)
    return record


def _first(room: str, lines: list[str], line: Line) -> int:
    """The index of the first line of a hand that a rule of that kind finds."""
    found = [i for i, text in enumerate(lines) for rule in ROOMS[room][0].ROOM.rules
             if rule.line is line and rule.pattern.search(text.strip())]
    assert found, f"no {line.value} line in the {room} case"
    return found[0]


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_a_street_written_twice_is_read_once_and_with_other_cards_refused(room) -> None:
    lines = _hands(room)[0]
    flop = _first(room, lines, Line.STREET)
    assert _record(room, lines[:flop + 1] + lines[flop:]) == _record(room, lines)
    other = re.sub(r"\[(.*?)\]\s*$", lambda m: "[" + m.group(1).replace("A", "2", 1) + "]", lines[flop].rstrip())
    assert other != lines[flop].rstrip()
    with pytest.raises(rooms.RoomError, match="dealt again, differently"):
        _record(room, lines[:flop + 1] + [other] + lines[flop + 1:])


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_a_move_of_a_player_without_a_seat_is_not_read(room) -> None:
    lines = _hands(room)[0]
    move = _first(room, lines, Line.MOVE)
    seated = {name for _, name, _ in ROOMS[room][0].parse_hand("\n".join(lines), room).seats}
    mover = next(name for name in sorted(seated, key=len, reverse=True) if lines[move].startswith(name))
    stranger = lines[move].replace(mover, "Nobody Seated", 1)
    with pytest.raises(rooms.RoomError, match="cannot read 'Nobody Seated"):
        _record(room, lines[:move + 1] + [stranger] + lines[move + 1:])


@pytest.mark.parametrize("room", ["absolute", "ftp", "stars"])
def test_a_bet_nobody_called_is_given_back_whether_or_not_the_room_wrote_it(room) -> None:
    """The time-out case of these rooms ends with a bet nobody called, written; without that
    line the chips counted give the same bet back."""
    lines = _hands(room)[2]
    uncalled = _first(room, lines, Line.UNCALLED)
    assert ROOMS[room][0].ROOM.result is Result.WON
    assert _record(room, lines[:uncalled] + lines[uncalled + 1:]) == _record(room, lines)


def test_a_table_is_checked_when_it_is_read() -> None:
    with pytest.raises(ValueError, match="row 2: not a phase: 'dael'"):
        rules("\ndael  seat  ^Seat")
    with pytest.raises(ValueError, match="row 1: 'sits' is not a valid Line"):
        rules("deal  sits  ^x")
    with pytest.raises(ValueError, match="row 1 continues no rule"):
        rules("    (?P<name>.+)")
    with pytest.raises(ValueError, match="row 1 is not 'phases line pattern'"):
        rules("deal  seat")
    with pytest.raises(ValueError, match="row 2: missing \\)"):
        rules("# a comment\ndeal  skip  ^(a\n           |b")
    # A continuation row adds to the pattern of the row before, without its indentation.
    (rule,) = rules("play  mucks  ^(?P<name>.+?)\n                 \\x20mucks$")
    assert rule.pattern.pattern == r"^(?P<name>.+?)\x20mucks$" and rule.line is Line.MUCKS


def test_a_room_whose_pattern_lacks_a_group_its_line_reads_is_refused() -> None:
    def header(lines: object, where: str) -> Header:
        raise AssertionError("not called")

    with pytest.raises(ValueError, match="the seat rule .* has no group stack"):
        TextRoom(network="test", starts=(re.compile("^Hand"),), header=header, amounts=Amounts.ADDED,
                 result=Result.WON, rules=rules(r"deal  seat  ^Seat (?P<seat>\d+): (?P<name>.+)"))
