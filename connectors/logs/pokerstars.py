"""PokerStars hand histories (``PokerStars Game #...`` and ``PokerStars Hand #...``):
fixed-limit hold'em cash games: a table of line patterns for connectors.logs.text_room,
which reads them into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    PokerStars Game #2467687491:  Hold'em Limit ($1/$2 USD) - 2005/08/31 18:55:54 ET
    Table 'Sekanina' Seat #6 is the button
    Seat 1: Player0 ($39.50 in chips)
    Player6: posts small blind $0.50
    Hero: posts big blind $1
    *** HOLE CARDS ***
    Dealt to Hero [4c Jc]
    Player7: folds / checks / calls $1 / bets $1 / raises $1 to $2 [and is all-in]
    *** FLOP *** [Tc 3s As]   *** TURN *** [Tc 3s As] [5d]   *** RIVER *** [...] [4c]
    Uncalled bet ($1) returned to Player3
    Hero collected $1 from pot      (main pot / side pot / side pot-1)
    *** SHOW DOWN ***  X: shows [Ah Kd] (a pair of Aces)   X: mucks hand
    *** SUMMARY ***
    Total pot $1 | Rake $0

The stakes "($1/$2 USD)" are the small and big bet; the blinds are what is posted.
Players listed with "is sitting out", or who sit out before the cards, are not dealt in.
Times are read in the first zone named (the room also gives ET in brackets).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?PokerStars (?:Zoom |Rush |Home Game )?(?:Game|Hand) #(\d+):")
_HEADER = re.compile(
    r"^\ufeff?PokerStars (?:Zoom |Rush |Home Game )?(?:Game|Hand) #(?P<id>\d+):\s+(?P<game>.*?)\s+"
    r"\((?P<stakes>[^)]*)\)\s+-\s+(?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})\s*(?P<zone>[A-Z]+)?")


# A tournament's game: "Tournament #288463329, 50FPP Hold'em Limit - Level I": the buy-in
# ("$1.00+$0.10 USD", "Freeroll", "50FPP") between the id and the game; a home game's
# begins with its club ("{Dazzle's Room} Tournament #..."); a mixed game names the game of
# the hand in brackets ("8-Game (Hold'em Limit) - Match Round I, Level II").
_TOURNAMENT = re.compile(r"^Tournament #(?P<tid>\d+),\s+(?P<game>.*?)"
                         r"(?:\s+-\s+(?:Match Round \S+,\s+)?Level (?P<level>\S+))?$")
_BUY_IN = re.compile(r"^(?:Freeroll|\S*\d\S*(?: [A-Z]{3})?)\s+")
_CLUB = re.compile(r"^\{[^}]*\}\s*")
_MIXED = re.compile(r"^[^(]*\((?P<game>[^)]+)\)$")
_LIMIT = ("Hold'em Limit", "Hold'em Fixed Limit")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a PokerStars")
    game, stakes = m.group("game"), m.group("stakes")
    tournament = level = None
    if _CLUB.sub("", game).startswith("Tournament #"):
        t = _TOURNAMENT.match(_CLUB.sub("", game))
        if t is None or t.group("level") is None:
            raise RoomError(f"{where}: cannot read the tournament {game[:80]!r}")
        tournament, level, game = t.group("tid"), t.group("level"), _BUY_IN.sub("", t.group("game"))
    if not any(limit in game for limit in _LIMIT):
        mixed = _MIXED.match(game)
        raise OtherGame(f"{where}: {game} ({stakes}) is not fixed-limit hold'em",
                        mixed.group("game") if mixed is not None else game)
    small_bet, big_bet = bets(stakes, where)
    currency = "" if tournament else \
        stakes.split()[1] if len(stakes.split()) > 1 else ("USD" if "$" in stakes else "")
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y/%m/%d %H:%M:%S", m.group("zone"), where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when, currency=currency,
                  tournament=tournament, level=level)


# The house takes a jackpot (and such) beside the rake, written on the rake's line.
ROOM = TextRoom(network="stars", starts=(_START,), header=_header, amounts=Amounts.WRITTEN, result=Result.WON,
                house=re.compile(r"\| (?:Jackpot|Bingo|Fortune|Tax) (\S+)"), rules=rules(r"""
# phases    line        pattern
deal        button      ^Table '.*?'(?: \d+-max)?(?: \(Play Money\))?(?: Seat #(?P<button>\d+) is the button)?
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*?) in chips(?:, [^)]*)?\)
                          (?P<out> is sitting out)?
deal        other-game  ^.+?: posts (?P<what>the ante|straddle)\b
deal        post        ^(?P<name>.+?): posts (?P<what>small blind|big blind|small & big blinds) (?P<amount>\S+)
                          (?P<allin> and is all-in)?\s*$
deal        sits-out    ^(?P<name>.+?):? (?:is sitting out|sits out)\s*$
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
deal+play   to-play     ^\*\*\* HOLE CARDS \*\*\*
deal+play   street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]
play        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
play        move        ^(?P<name>.+?): (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>\S+))?(?: to (?P<to>\S+))?
                          (?P<allin> and is all-in)?(?: and has reached the \S+ cap)?\s*(?:\[.*\])?\s*$
play        uncalled    ^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<name>.+?)\s*$
play        won         ^(?P<name>.+?) collected (?P<amount>\S+) from (?:the )?(?:main |side )?pot(?:-\d+)?\s*$
play        shows       ^(?P<name>.+?): shows \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?): (?:mucks hand|doesn't show hand)
play        skip        ^(?P<name>.+?):? (?:is sitting out|sits out)\s*$
# Lines that say nothing about the play: chat, arrivals and departures, connections,
# time-outs (the move that follows says what the time-out did).
deal+play   skip        (?: said, "| joins the table| leaves the table| is connected| is disconnected| has timed out
                          | has returned| was removed from the table| will be allowed to play|^Dealt to [^\[]*$
                          |^Betting is capped$|^\*\*\* (?:HOLE CARDS|SHOW DOWN|SUMMARY|FIRST|SECOND) |^Board \[|^Seat \d+: )
summary     rake        ^Total pot (?P<pot>\S+).*?\| Rake (?P<rake>\S+)
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
