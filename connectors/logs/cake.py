"""Cake Poker network hand histories (``Hand#... - table -- $5/$10 FL Hold'em -- date``):
fixed-limit hold'em cash games: a table of line patterns for connectors.logs.text_room,
which reads them into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    Hand#2998011673000397 - Innsbruck (6-max) 11673 -- $5/$10 FL Hold'em -- 2012-06-20 - 23:10:52
    Dealer: Seat 9                                     (2012; in 2011 the seat line ends DEALER)
    Seat 3: Player0 ($250,50 in chips)
    Player3: posts small blind $2,50
    Hero: posts big blind $5
    Dealt to Hero [7h,8h]
    Player0: raises to $10 / folds / calls $5 / checks / bets $5 / is all in $0.07
    *** FLOP *** [Jd,7d,Ts]   *** TURN *** [Qh]   *** RIVER *** [5d]
    Player0: returns uncalled bet $10
    ***SHOW DOWN***
    Player0: shows [7d Qh] (Three of a Kind Sevens)   Player0: mucks [9h,As] (TwoPair) .
    Player0 wins $50,50 [with ...]

"$5/$10" are the small and big bet; the date is written 2012-06-20 or 2011/05/08, in ET.
Amounts use a comma or a point for the cents. "is all in $0.07" is the chips the all-in
adds. The room writes no rake: it is what the pot holds beyond what the winners took.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Hand#[A-Z0-9]+ - ")
_HEADER = re.compile(r"^\ufeff?Hand#(?P<id>[A-Z0-9]+) - (?P<table>.*?) -- (?P<stakes>\S+) (?P<game>.+?) -- "
                     r"(?P<date>\d{4})[-/.](?P<mon>\d{2})[-/.](?P<day>\d{2})[- ]+(?P<time>\d{1,2}:\d{2}:\d{2})")
_ZONE = "ET"  # the room's clock (FPDB reads it so too)


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Cake")
    game, stakes = m.group("game"), m.group("stakes")
    # A tournament names its number (T123) after the table; its stakes are three figures.
    if game != "FL Hold'em" or stakes.count("/") != 1 or re.search(r"\bT\d+\b", m.group("table")):
        raise OtherGame(f"{where}: {stakes} {game} is not a fixed-limit hold'em cash game",
                        game if game != "FL Hold'em" else "tournament")
    small_bet, big_bet = bets(stakes, where)
    when = clock(f"{m.group('date')}-{m.group('mon')}-{m.group('day')} {m.group('time')}", "%Y-%m-%d %H:%M:%S",
                 _ZONE, where)
    currency = "USD" if stakes.startswith("$") else "EUR" if stakes.startswith("€") else ""
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when, currency=currency)


# The room writes no line where the cards are dealt: every line but the result's is read
# in the first phase.
ROOM = TextRoom(network="cake", starts=(_START,), header=_header, amounts=Amounts.WRITTEN,
                result=Result.WON_NO_RAKE, rules=rules(r"""
# phases    line        pattern
deal        button      ^Dealer: Seat (?P<button>\d+)\s*$
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*?) in chips\)(?: DEALER)?\s*$
deal        other-game  ^.+?: posts (?P<what>ante)\b
deal        post        ^(?P<name>.+?): posts (?P<what>small blind|big blind) (?P<amount>\S+)\s*$
deal        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
deal        street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* \[(?P<cards>[^\]]*)\]
deal        move        ^(?P<name>.+?): (?P<verb>folds|checks|calls|bets|raises|is all in)
                          (?: to (?P<to>\S+)| (?P<a>\S+))?\s*$
deal        uncalled    ^(?P<name>.+?): returns uncalled bet (?P<amount>\S+)\s*$
deal        shows       ^(?P<name>.+?): shows \[(?P<cards>[^\]]+)\]
deal        mucks       ^(?P<name>.+?): mucks\b
deal        won         ^(?P<name>.+?):? wins (?P<amount>[$€]?[\d.,]+)(?: with .*)?\s*$
deal        sits-out    ^(?P<name>.+?):? sits out\s*$
deal        skip        (?:^\*\*\*SHOW DOWN\*\*\*|^Player left the table| is connected| is disconnected| has returned
                          | joins the table| leaves the table| sits down| stands up| has timed out| sits out)
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
