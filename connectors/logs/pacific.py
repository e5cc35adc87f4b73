"""Pacific Poker / 888poker hand histories (``***** Cassava Hand History for Game ...``,
later ``***** 888poker Hand History for Game ...``): fixed-limit hold'em cash games: a
table of line patterns for connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    #Game No : 311162661                                (before 2012 or so; later absent)
    ***** Cassava Hand History for Game 311162661 *****
    $0.01/$0.02 Blinds Fix Limit Holdem - *** 08 03 2011 13:31:55
    Table Guarapuava (Real Money)
    Seat 2 is the button
    Total number of players : 4
    Seat 2: Barrydos ( $2.13 )
    wanagu22 posts small blind [$0.01]
    ** Dealing down cards **
    Dealt to Hero [ 7d, 5d ]
    pokergallo calls [$0.02] / raises [$0.02] / bets [$0.02] / checks / folds / is all-In [$0.02]
    ** Dealing flop ** [ 4d, 5h, 9d ]   ** Dealing turn ** [ 5c ]   ** Dealing river ** [ 6c ]
    ** Summary **
    wanagu22 shows [ 7d, 5d ]   Barrydos mucks [ 4s, Ac ]
    SkiNNeR14 collected [ $0.16 ]

The room names the blinds ("$0.01/$0.02 Blinds"): the big blind is the small bet, the big
bet twice that. Every amount in brackets is the chips the move adds. The room writes
neither the rake nor the bet nobody called: the reader counts the chips, gives the
uncalled bet back, and the rake is what the pot holds beyond what the winners took. The
date is day, month, year, in no zone the room names (read as UTC).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, line_within, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_HISTORY = re.compile(r"^\ufeff?\*{5} (?:Cassava|888poker|888\.\w+|Pacific Poker)(?: Snap Poker)? Hand History for Game "
                      r"(?P<id>\d+) \*{5}")
_GAME = re.compile(r"^(?P<stakes>\S+/\S+) Blinds (?P<game>.+?) - \*\*\* (?P<day>\d{1,2}) (?P<mon>\d{1,2}) "
                   r"(?P<year>\d{4}) (?P<time>\d{1,2}:\d{2}:\d{2})\s*$")
_HISTORY_WITHIN = 2  # lines: a hand begins at its history line (a BOM aside)


def _header(lines: Sequence[str], where: str) -> Header:
    at, history, head = line_within(lines, _HISTORY, _HISTORY_WITHIN, where, "'***** ... Hand History for Game'")
    g = _GAME.match(head)
    if g is None:
        if "Tournament" in head or "Blinds" in head:
            raise OtherGame(f"{where}: {head[:60]!r} is not a fixed-limit hold'em cash game",
                            "tournament" if "Tournament" in head else "not fixed-limit")
        raise RoomError(f"{where}: cannot read the game line {head[:80]!r}")
    if g.group("game") != "Fix Limit Holdem":
        raise OtherGame(f"{where}: {g.group('stakes')} {g.group('game')} is not a fixed-limit hold'em cash game",
                        g.group("game"))
    _, small_bet = bets(g.group("stakes"), where)
    stakes = g.group("stakes")
    currency = "USD" if "$" in stakes else "EUR" if "€" in stakes else "GBP" if "£" in stakes else ""
    when = clock(f"{g.group('year')}-{g.group('mon')}-{g.group('day')} {g.group('time')}", "%Y-%m-%d %H:%M:%S",
                 None, where)
    return Header(history.group("id"), small_bet, 2 * small_bet, body=at + 2, started_at=when, currency=currency)


# Hands are cut at the history line: the game number's line before it ends the hand before.
# Every line is read in the first phase.
ROOM = TextRoom(network="888", starts=(_HISTORY,), header=_header, amounts=Amounts.ADDED,
                result=Result.WON_NO_RAKE, rules=rules(r"""
# phases    line        pattern
deal        button      ^Seat (?P<button>\d+) is the button\s*$
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \( (?P<stack>[^)]*?) \)\s*$
deal        other-game  ^.+? posts (?P<what>ante)\b
deal        post        ^(?P<name>.+?) posts (?P<what>small blind|big blind|dead small blind|dead big blind)
                          \x20\[(?P<amount>[^\]]+)\]\s*$
deal        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
deal        street      ^\*\* Dealing (?P<street>flop|turn|river) \*\* \[(?P<cards>[^\]]*)\]
deal        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises|is all-In)(?:\s*\[(?P<a>[^\]]+)\])?\s*$
deal        shows       ^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]
deal        mucks       ^(?P<name>.+?) (?:mucks|did not show)\b
deal        won         ^(?P<name>.+?) collected \[ (?P<amount>[^\]]+?) \]\s*$
deal        skip        (?:^#Game No|^Table |^Total number of players|^\*\* (?:Dealing down cards|Summary) \*\*
                          | has joined the table| has left the table| is sitting out| sits out| is disconnected
                          | has been reconnected| has timed out| will be using)
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
