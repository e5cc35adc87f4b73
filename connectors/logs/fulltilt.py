"""Full Tilt Poker hand histories (``Full Tilt Poker Game #...``): fixed-limit hold'em
cash games: a table of line patterns for connectors.logs.text_room, which reads them into
a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand (the room wrote its files in UTF-16, a blank line after every line)::

    Full Tilt Poker Game #26321049583: Table Slaw - $1/$2 - Limit Hold'em - 20:26:12 ET - 2010/12/11
    Seat 1: Player1 ($21)
    Seat 4: Player4 ($66.50), is sitting out
    Player6 posts the small blind of $0.50
    Player7 posts the big blind of $1
    The button is in seat #5
    *** HOLE CARDS ***
    Dealt to Hero [9s Th]
    Player8 raises to $2 / Hero folds / Player1 calls $2 / checks / bets $1 [, and is all in]
    *** FLOP *** [Tc 3s As]   *** TURN *** [Tc 3s As] [5d]   *** RIVER *** [...] [4c]
    Uncalled bet of $2 returned to Player3
    Player3 mucks / shows [Ah Kd] ...
    Player3 wins the pot ($14.75)      (the main pot, the side pot, ties for the pot)
    *** SUMMARY ***
    Total pot $15.50 | Rake $0.75

"$1/$2" are the small and big bet; the blinds are what is posted. A post out of turn
("posts $1") is live; "posts a dead small blind of $0.50" is dead. Time-outs show as
info lines ("has 15 seconds left to act", "has timed out") before the move they caused.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Full Tilt Poker Game #(\d+):")
_HEADER = re.compile(r"^\ufeff?Full Tilt Poker Game #(?P<id>\d+): (?P<rest>.*)$")
_WHEN = re.compile(r"(?:(?P<t1>\d{1,2}:\d{2}:\d{2}) (?P<z1>[A-Z]+) - (?P<d1>\d{4}/\d{2}/\d{2})"
                   r"|(?P<d2>\d{4}/\d{2}/\d{2}) - (?P<t2>\d{1,2}:\d{2}:\d{2}) (?P<z2>[A-Z]+))")


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Full Tilt")
    rest = m.group("rest")
    parts = [p.strip() for p in rest.split(" - ")]
    game = next((p for p in parts if "Hold'em" in p or "Omaha" in p or "Stud" in p or "Razz" in p), "")
    if game != "Limit Hold'em" or "Tournament" in rest or " Ante " in rest:
        # Counted as a tournament when it is one, else under its game.
        raise OtherGame(f"{where}: {game or rest[:60]} is not a fixed-limit hold'em cash game",
                        "tournament" if "Tournament" in rest else "Limit Hold'em with antes" if game == "Limit Hold'em"
                        else game or "unnamed game")
    stakes = next((p for p in parts if re.match(r"^\D?[\d.,]+/\D?[\d.,]+", p)), None)
    if stakes is None:
        raise RoomError(f"{where}: cannot find the stakes in {rest[:80]!r}")
    small_bet, big_bet = bets(stakes, where)
    w = _WHEN.search(rest)
    started_at = None
    if w is not None:
        day, time, zone = (w.group("d1"), w.group("t1"), w.group("z1")) if w.group("d1") else (
            w.group("d2"), w.group("t2"), w.group("z2"))
        started_at = clock(f"{day} {time}", "%Y/%m/%d %H:%M:%S", zone, where)
    return Header(m.group("id"), small_bet, big_bet, body=1, started_at=started_at,
                  currency="USD" if "$" in stakes else "")


ROOM = TextRoom(network="ftp", starts=(_START,), header=_header, amounts=Amounts.WRITTEN, result=Result.WON,
                rules=rules(r"""
# phases    line        pattern
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)(?P<out>, is sitting out)?\s*$
deal        button      ^The button is in seat #(?P<button>\d+)
deal        other-game  (?<= )(?P<what>antes)(?= )
deal        post        ^(?P<name>.+?) posts (?:(?:the |a )?(?P<what>small blind|big blind|dead small blind
                          |dead big blind) of )?(?P<amount>\S+?)(?P<allin>, and is all in)?\s*$
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
deal+play   to-play     ^\*\*\* HOLE CARDS \*\*\*
deal+play   street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]
play        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
play        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: to (?P<to>[^,\s]+)| (?P<a>[^,\s]+))?
                          (?P<allin>, and is all in)?\s*$
play        uncalled    ^Uncalled bet of (?P<amount>\S+) returned to (?P<name>.+?)\s*$
play        won         ^(?P<name>.+?) (?:wins|ties for) the (?:main |side )?pot(?: #?\d+)? \((?P<amount>[^)]+)\)
play        shows       ^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?) (?:mucks|doesn't show)
deal+play   skip        (?: has \d+ seconds left to act| has timed out| adds \S+| is sitting out| has requested TIME
                          | sits down| stands up| has reconnected| has been disconnected| is feeling \w+| has returned
                          | will be using his time bank| seconds to reconnect
                          |^Board: |^Seat \d+: |^\*\*\* (?:HOLE CARDS|SHOW DOWN|SUMMARY) )
play        skip        ^\S.*?:\x20
summary     rake        ^Total pot (?P<pot>\S+).*?\| Rake (?P<rake>\S+)
# The summary names who sat out, the button included, when the seat list does not.
summary     sits-out    ^Seat \d+: (?P<name>.+?)(?: \((?:button|small blind|big blind)\))* is sitting out\s*$
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
