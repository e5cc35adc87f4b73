"""Absolute Poker (and UltimateBet) hand histories (``Stage #...``): fixed-limit hold'em
cash games: a table of line patterns for connectors.logs.text_room, which reads them into
a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    Stage #1968055293: Holdem  Normal $200/$400 - 2010-03-24 00:50:15 (ET)
    Table: JAPAN HWY (Real Money) Seat #3 is the dealer
    Seat 3 - Hero ($17,202 in chips)
    Player0 - Posts small blind $100
    Player1 - All-In $191.27                 (a big blind that takes the last chip)
    P0KEHER - Posts dead $40 dead $15        (all posted, of it dead: live $25)
    BCM184 - sitout (wait for BB)
    *** POCKET CARDS ***
    Dealt to Hero [Qh 7d]
    Player2 - Raises $400 to $400 / Calls $35 / Bets $25 / Checks / Folds / All-In $50
    STEVE89 - Checks (Timeout)   HOLDINGQUADS - All-In (Timeout)
    Player2 - returned ($208.73) : not called
    *** FLOP *** [5d 3c 9d]   *** TURN *** [5d 3c 9d] [8d]   *** RIVER *** [...] [7s]
    *** SHOW DOWN ***
    Player1 - Shows [9h 6d] (Straight, five to nine)   P0KEHER - Does not show
    Player1 Collects $478.54 from main pot
    *** SUMMARY ***
    Total Pot($482.54) | Rake ($4)

"Normal $200/$400" is fixed limit with those bets. Amounts of calls, bets and all-ins
are the chips the move adds. A time-out facing a bet ("All-In (Timeout)") makes the
player all-in for what he has put in (all-in protection): he acts no more and still
contends for the pot he is in.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Stage #\d+:")
_HEADER = re.compile(r"^\ufeff?Stage #(?P<id>\d+): (?P<game>.+?) (?P<stakes>\S+/\S+|\S+) - "
                     r"(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})(?: \((?P<zone>[A-Z]+)\))?")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "an Absolute Poker")
    game, stakes = m.group("game"), m.group("stakes")
    if " ".join(game.split()).lower() not in ("holdem normal", "holdem limit", "hold'em normal") or "/" not in stakes:
        raise OtherGame(f"{where}: {game} {stakes} is not a fixed-limit hold'em cash game", game)
    small_bet, big_bet = bets(stakes, where)
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y-%m-%d %H:%M:%S", m.group("zone"), where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when,
                  currency="USD" if "$" in stakes.split("/")[0] else "")


ROOM = TextRoom(network="absolute", starts=(_START,), header=_header, amounts=Amounts.ADDED, result=Result.WON,
                rules=rules(r"""
# phases    line        pattern
deal+play   seat        ^Seat (?P<seat>\d+) - (?P<name>.+?) \((?P<stack>[^)]*?) in chips\)\s*$
deal+play   street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]
deal+play   dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
# Before the cards an all-in is a big blind that took the player's last chip.
deal        post        ^(?P<name>.+?) - (?:Posts )?(?P<what>small blind|big blind|dead|(?P<allin>All-In))
                          \x20(?P<amount>\$?[\d,]+(?:\.\d+)?)(?: dead (?P<dead>\$?[\d,]+(?:\.\d+)?))?
deal        sits-out    ^(?P<name>.+?) - sitout
deal+play   uncalled    ^(?P<name>.+?) - returned \((?P<amount>\$?[\d,]+(?:\.\d+)?)\)
play        move        ^(?P<name>.+?) - (?P<verb>Folds|Checks|Calls|Bets|Raises|All-In)(?: (?P<a>\$?[\d,]+(?:\.\d+)?))?
                          (?: to (?P<to>\$?[\d,]+(?:\.\d+)?))?(?P<protected> \(Timeout\))?
deal+play   won         ^(?P<name>.+?) Collects (?P<amount>\S+) from (?:main|side) pot
deal+play   shows       ^(?P<name>.+?) - Shows \[(?P<cards>[^\]]+)\]
deal+play   mucks       ^(?P<name>.+?) - (?:Does not show|Mucks)
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
deal+play   to-play     ^\*\*\* POCKET CARDS \*\*\*
deal+play   button      ^Table: .*?(?:Seat #(?P<button>\d+) is the dealer)?\s*$
deal+play   skip        (?:^\*\*\* (?:POCKET CARDS|SHOW DOWN|SUMMARY) |^Board \[|^Seat \d+: | - sitout| - re-join
                          | - Sits? down| - Stands? up| - Leaves? table| - Disconnect| - Reconnect|: )
summary     rake        ^Total Pot\((?P<pot>[^)]*)\)(?: \| Rake \((?P<rake>[^)]*)\))?
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
