"""KingsClub hand histories (``#39555673: Limit Holdem - 40/80``): fixed-limit hold'em cash
games: a table of line patterns for connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    #39555673: Limit Holdem - 40/80
    2020-12-21 12:05:29
    Table 'HT' Seat 1 is the button
    Seat 1: Player0 (800)
    Player0: posts the small blind 20
    Hero: posts the big blind 40
    *** HOLE CARDS ***
    Dealt to Player0: [X X]
    Dealt to Hero: [Ts 9h]
    Player0 raises to 80 / Hero calls 80 / checks / bets 40 / folds
    *** FLOP *** [2d 6s Js]   *** TURN *** [2d 6s Js] [As]   *** RIVER *** [...] [3h]
    *** SUMMARY ***
    Seat 1: Player0 (999) +199          (the stack afterwards and the net)
    Rake 1
    Player0 wins pot (399)

"40/80" are the small and big bet. A call's amount is the bet it calls (the player's bet
afterwards), so only a raise's is read; each player's net and the rake close the hand.
The files name no currency; the time has no zone (read as UTC).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?#\d+: [^-\n]+ - [\d.,]+/[\d.,]+\s*$")
_HEADER = re.compile(r"^\ufeff?#(?P<id>\d+): (?P<game>[^-\n]+?) - (?P<stakes>[\d.,]+/[\d.,]+)\s*$")
_WHEN = re.compile(r"^(?P<when>\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2})\s*$")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a KingsClub")
    if m.group("game") != "Limit Holdem":
        raise OtherGame(f"{where}: {m.group('game')} is not a fixed-limit hold'em cash game", m.group("game"))
    small_bet, big_bet = bets(m.group("stakes"), where)
    w = _WHEN.match(lines[1]) if len(lines) > 1 else None
    when = None if w is None else clock(w.group("when"), "%Y-%m-%d %H:%M:%S", None, where)
    return Header(m.group("id"), small_bet, big_bet, body=1 if w is None else 2, started_at=when)


ROOM = TextRoom(network="kingsclub", starts=(_START,), header=_header, amounts=Amounts.RAISES_ONLY,
                result=Result.NET, rules=rules(r"""
# phases    line        pattern
deal        button      ^Table '.*?'(?: Seat (?P<button>\d+) is the button)?\s*$
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[\d.,]+)\)(?P<out> is sitting out)?\s*$
deal        other-game  ^.+?: posts (?P<what>the ante|a straddle)\b
deal        post        ^(?P<name>.+?): posts (?:the )?(?P<what>small blind|big blind|dead) (?P<amount>[\d.,]+)\s*$
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
deal+play   to-play     ^\*\*\* HOLE CARDS \*\*\*
play        street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]
play        skip        ^Dealt to .+?: \[X X\]\s*$
play        dealt       ^Dealt to (?P<name>.+?): \[(?P<cards>[^\]]+)\]\s*$
play        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: to (?P<to>[\d.,]+)| (?P<a>[\d.,]+))?\s*$
play        shows       ^(?P<name>.+?):? shows \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?):? mucks\b
summary     net         ^Seat \d+: (?P<name>.+?) \([\d.,]+\) (?P<net>[+-]?[\d.,]+)\s*$
summary     rake        ^Rake (?P<rake>[\d.,]+)\s*$
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
