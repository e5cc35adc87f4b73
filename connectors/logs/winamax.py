"""Winamax hand histories (``Winamax Poker - CashGame - HandId: #...``): fixed-limit hold'em
cash games: a table of line patterns for connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    Winamax Poker - CashGame - HandId: #2769259-665-1335035306 - Holdem fixed limit (0.05€/0.10€) - 2012/04/21 21:08:26 UTC
    Table: 'Ostrava' 2-max (real money) Seat #2 is the button
    Seat 1: Hero (10€)
    *** ANTE/BLINDS ***
    Player0 posts small blind 0.02€
    Hero posts big blind 0.05€
    Dealt to Hero [7s Kd]
    *** PRE-FLOP ***
    Player0 calls 0.03€ / Hero checks / bets 0.10€ / raises 0.05€ to 0.10€ [and is all-in] / folds
    *** FLOP *** [Qc 4d 4s]   *** TURN *** [Qc 4d 4s][6s]   *** RIVER *** [Qc 4d 4s 6s][2h]
    *** SHOW DOWN ***   Player0 shows [Ah Kd] (...)
    Player0 collected 0.19€ from pot
    *** SUMMARY ***
    Total pot 0.19€ | Rake 0.01€          (or: | No rake)

"(0.05€/0.10€)" are the small and big bet (the small blind is less than half the small bet
here). What a player collected includes the bet nobody called: the room writes no line for
it, and the pot it totals is after the rake.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Winamax Poker - ")
_HEADER = re.compile(r"^\ufeff?Winamax Poker - (?P<kind>.*?) - HandId: #(?P<id>[\d-]+) - (?P<game>.+?) "
                     r"\((?P<stakes>[^)]*)\) - (?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})"
                     r"(?: (?P<zone>[A-Z]+))?")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Winamax")
    game, stakes = m.group("game"), m.group("stakes")
    if m.group("kind") != "CashGame" or game.lower() != "holdem fixed limit":
        raise OtherGame(f"{where}: {m.group('kind')} {game} ({stakes}) is not a fixed-limit hold'em cash game",
                        f"{m.group('kind')} {game}")
    small_bet, big_bet = bets(stakes, where)
    currency = "EUR" if "€" in stakes else "GBP" if "£" in stakes else "USD" if "$" in stakes else ""
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y/%m/%d %H:%M:%S", m.group("zone"), where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when, currency=currency)


ROOM = TextRoom(network="winamax", starts=(_START,), header=_header, amounts=Amounts.WRITTEN,
                result=Result.WON, returns_written=True, rules=rules(r"""
# phases    line        pattern
deal        button      ^Table: '.*?'(?: \d+-max)?(?: \([^)]*\))?(?: Seat #(?P<button>\d+) is the button)?\s*$
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)(?P<out> is sitting out)?\s*$
deal        other-game  ^.+? posts (?P<what>ante|straddle)\b
deal        post        ^(?P<name>.+?) posts (?P<what>small blind|big blind) (?P<amount>[\d.,]+\S*)
                          (?P<allin> and is all-in)?\s*$
deal        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
deal+play   to-play     ^\*\*\* PRE-FLOP \*\*\*
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
play        street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] ?)?\[(?P<cards>[^\]]*)\]\s*$
play        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>[\d.,]+\S*))?(?: to (?P<to>[\d.,]+\S*))?
                          (?P<allin> and is all-in)?\s*$
play        won         ^(?P<name>.+?) collected (?P<amount>[\d.,]+\S*) from (?:main |side )?pot\b
play        shows       ^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?) (?:mucks|doesn't show)\b
deal+play   skip        (?:^\*\*\* (?:ANTE/BLINDS|SHOW DOWN) \*\*\*| joins the table| leaves the table| sits out
                          | is sitting out| has timed out| is disconnected| is connected| will be allowed to play)
summary     rake        ^Total pot (?P<pot>\S+)(?: \| Rake (?P<rake>\S+)| \| No rake)?
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
