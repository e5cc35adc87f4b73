"""Entraction hand histories (``Game # ... - Texas Hold'em Fixed Limit EUR 10/20 - Table ...``):
fixed-limit hold'em cash games: a table of line patterns for connectors.logs.text_room,
which reads them into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand (names and moves padded into columns)::

    Game # 2145163746 - Texas Hold'em Fixed Limit EUR 10/20 - Table "Lorient"
    Players(max 6):
    Hero                        (EUR 468.50 in seat 4)
    Dealer:                     Player0
    Small Blind:                Hero        (5.00)
    Big Blind:                  Player0     (10.00)
    Hero was dealt:             9c - 7d
    Hero                        Raise       (15.00)        (the chips the move adds)
    Flop                        2c - Ad - 4h
    Turn                        2c - Ad - 4h - 5s          (the whole board so far)
    Player0                     Payback     (10.00)        (the bet nobody called, given back)
    Player0 didn't show hand / Player0 shows:  As - Qs
    Player0 wins:               EUR 59.25
    Rake:                       EUR 0.75
    Game ended 2011-03-26 13:19:18 GMT

"10/20" are the small and big bet. The dealer is named, not seated: the header hook
finds his seat. The time is the hand's end, the only one written.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r'^\ufeff?Game # \d+ - .+ - Table "')
_HEADER = re.compile(r'^\ufeff?Game # (?P<id>\d+) - (?P<game>.+?) (?P<currency>[A-Z]{3}) (?P<stakes>[\d.,]+/[\d.,]+)'
                     r' - Table "')
_SEAT = re.compile(r"^(?P<name>.+?)\s+\((?:[A-Z]{3} )?[\d.,]+ in seat (?P<seat>\d+)\)\s*$")
_DEALER = re.compile(r"^Dealer:\s+(?P<name>.+?)\s*$")
_DEALT = re.compile(r"^(?P<name>.+?) was dealt:\s")
_ENDED = re.compile(r"^Game ended (?P<when>\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}) (?P<zone>\S+)\s*$")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "an Entraction")
    game = m.group("game")
    if game != "Texas Hold'em Fixed Limit":
        raise OtherGame(f"{where}: {game} is not a fixed-limit hold'em cash game", game)
    small_bet, big_bet = bets(m.group("stakes"), where)
    seats = {s.group("name"): int(s.group("seat")) for s in map(_SEAT.match, lines) if s is not None}
    dealer = next((d.group("name") for d in map(_DEALER.match, lines) if d is not None), None)
    if dealer is not None and dealer not in seats:
        raise RoomError(f"{where}: the dealer {dealer!r} has no seat")
    hero = next((d.group("name") for d in map(_DEALT.match, lines) if d is not None), None)
    ended = next((e for e in map(_ENDED.match, lines) if e is not None), None)
    when = None if ended is None else clock(ended.group("when"), "%Y-%m-%d %H:%M:%S", ended.group("zone"), where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when, currency=m.group("currency"),
                  button=None if dealer is None else seats[dealer], hero=hero)


_A = r"\((?:[A-Z]{3} )?(?P<a>[\d.,]+)\)"
ROOM = TextRoom(network="entraction", starts=(_START,), header=_header, amounts=Amounts.ADDED, result=Result.WON,
                rules=rules(rf"""
# phases    line        pattern
deal+play   seat        ^(?P<name>.+?)\s+\((?P<stack>(?:[A-Z]{{3}} )?[\d.,]+) in seat (?P<seat>\d+)\)\s*$
deal+play   post        ^(?P<what>Small Blind|Big Blind):\s+(?P<name>.+?)\s+\((?P<amount>[\d.,]+)\)\s*$
deal+play   dealt       ^(?P<name>.+?) was dealt:\s+(?P<cards>\S+ - \S+)\s*$
deal+play   street      ^(?P<street>Flop)\s+(?P<cards>\S+ - \S+ - \S+)\s*$
deal+play   street      ^(?P<street>Turn|River)\s+(?:\S+ - )+(?P<cards>\S+)\s*$
deal+play   move        ^(?P<name>.+?)\s+(?P<verb>Fold|Check|Call|Bet|Raise|All-in)(?:\s+{_A})?\s*$
deal+play   uncalled    ^(?P<name>.+?)\s+Payback\s+\((?P<amount>[\d.,]+)\)\s*$
deal+play   shows       ^(?P<name>.+?) shows:\s+(?P<cards>\S+ - \S+)\s*$
deal+play   mucks       ^(?P<name>.+?) didn't show hand\s*$
deal+play   won         ^(?P<name>.+?) wins:\s+(?P<amount>(?:[A-Z]{{3}} )?[\d.,]+)\s*$
deal+play   rake        ^Rake:\s+(?P<rake>(?:[A-Z]{{3}} )?[\d.,]+)\s*$
deal+play   skip        ^(?:Players\(max \d+\):|Dealer:\s|Game ended )
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
