"""Seals With Clubs hand histories (``Hand #6340502-110 - 2013-05-02 02:14:03``, a site of
bitcoin tables, stakes in mBTC): fixed-limit hold'em cash games: a table of line patterns
for connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    Hand #6340502-110 - 2013-05-02 02:14:03
    Game: Limit Hold'em (40 - 1000000) - Stakes 2/4
    Site: Seals With Clubs
    Table: LHE 6max 1/2 #1
    Seat 3: Player0 (63.68)
    Player0 has the dealer button
    Player0 posts small blind 1
    ** Hole Cards **
    Dealt to Hero [Js 7d]
    Player0 raises to 4 / Hero calls 2 / bets 2 / checks / folds
    ** Flop ** [2d Qc 6c]   ** Turn ** [3h]   ** River ** [2h]
    ** Pot Show Down ** [2d Qc 6c 3h 2h]
    Player0 shows [5s Ts] (a Pair of Deuces +QT6)
    Hero wins Pot (11.70) with a Pair
    Rake (0.30)

"Stakes 2/4" are the small and big bet, in mBTC (thousandths of a bitcoin), whose
hundredths are the chips here as cents are for dollars. The button is named by its
player. The time is the site's (UTC).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import (
    DEAL,
    Amounts,
    Header,
    Line,
    Result,
    Rule,
    TextRoom,
    bets,
    clock,
    first_line,
    rules,
)

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Hand #\d+-\d+ - \d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}\s*$")
_HEADER = re.compile(r"^\ufeff?Hand #(?P<id>\d+-\d+) - (?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})")
# The header's lines, read by the hook, passed over by the rules.
_GAME = re.compile(r"^Game: (?P<game>.+?) \((?P<buyin>[^)]*)\) - Stakes (?P<stakes>\S+)\s*$")
_SITE = re.compile(r"^Site: (?P<site>.+?)\s*$")
_TABLE = re.compile(r"^Table: ")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \(")
_BUTTON = re.compile(r"^(?P<name>.+?) has the dealer button\s*$")
_HEADER_LINES = 4


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Seals With Clubs")
    site = next((s for s in map(_SITE.match, lines[1:_HEADER_LINES]) if s is not None), None)
    game = next((g for g in map(_GAME.match, lines[1:_HEADER_LINES]) if g is not None), None)
    if site is None or site.group("site") != "Seals With Clubs" or game is None:
        raise RoomError(f"{where}: not a Seals With Clubs hand: no Game: and Site: lines")
    if game.group("game") != "Limit Hold'em":
        raise OtherGame(f"{where}: {game.group('game')} is not a fixed-limit hold'em cash game",
                        game.group("game"))
    small_bet, big_bet = bets(game.group("stakes"), where)
    seats = {s.group("name"): int(s.group("seat")) for s in map(_SEAT.match, lines) if s is not None}
    dealer = next((b.group("name") for b in map(_BUTTON.match, lines) if b is not None), None)
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y-%m-%d %H:%M:%S", "UTC", where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=when, currency="mBTC",
                  button=None if dealer is None else seats.get(dealer))


ROOM = TextRoom(network="swc", starts=(_START,), header=_header, amounts=Amounts.WRITTEN, result=Result.WON,
                rules=(*(Rule(Line.SKIP, pattern, DEAL) for pattern in (_GAME, _SITE, _TABLE, _BUTTON)), *rules(r"""
# phases    line        pattern
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[\d.,]+)\)(?P<out> is sitting out)?\s*$
deal        other-game  ^.+? posts (?P<what>ante|straddle)\b
deal        post        ^(?P<name>.+?) posts (?P<what>small blind|big blind|dead small blind|dead big blind)?
                          \s?(?P<amount>[\d.,]+)(?P<allin> and is all-in)?\s*$
deal        sits-out    ^(?P<name>.+?) (?:is sitting out|sits out)\s*$
deal+play   to-play     ^\*\* Hole Cards \*\*
play        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
play        street      ^\*\* (?P<street>Flop|Turn|River) \*\* \[(?P<cards>[^\]]*)\]\s*$
play        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: to (?P<to>[\d.,]+)| (?P<a>[\d.,]+))?
                          (?P<allin> and is all-in)?\s*$
play        uncalled    ^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<name>.+?)\s*$
play        won         ^(?P<name>.+?) wins (?:Pot|Side Pot \d+|Main Pot) \((?P<amount>[\d.,]+)\)
play        shows       ^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?) (?:mucks|doesn't show)\b
play        rake        ^Rake \((?P<rake>[\d.,]+)\)\s*$
deal+play   skip        (?:^\*\* Pot Show Down \*\*| has joined the table| has left the table| sits out| is sitting out
                          | has timed out| is disconnected| is connected|: )
""")))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
