"""OnGame network hand histories (``***** History for hand R5-...``): fixed-limit hold'em
cash games: a table of line patterns for connectors.logs.text_room, which reads them into
a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    ***** History for hand R5-75443872-61 *****
    Start hand: Wed Aug 18 19:32:32 GMT+0100 2010
    Table: someplace [75443872] (LIMIT TEXAS_HOLDEM 0.50/1, Real money)
    User: Hero
    Button: seat 5
    Players in round: 5
    Seat 7: player4 (34.70)
    player4 posts small blind (0.25)
    ---
    Dealing pocket cards
    Dealing to Hero: [Kd, Ks]
    Hero raises 1 to 1 / player1 calls 1 / player2 folds / checks / bets 0.50 [all in]
    --- Dealing flop [2d, Ad, Th]   --- Dealing turn [8s]   --- Dealing river [7d]
    ---
    Summary:
    Main pot: 3.40 won by Hero (3.25)
    Rake taken: $0.15
    Seat 1: Hero (26.10), net: +2.20, [Kd, Ks] (PAIR KING)
    ***** End of hand R5-75443872-61 *****

"0.50/1" are the small and big bet. The room writes no line for a bet nobody called and
sometimes deals the same flop line twice; each player's net in the summary (after the
rake) is the result, and the cards listed there were shown.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import (
    DEAL,
    PLAY,
    Amounts,
    Header,
    Line,
    Result,
    Rule,
    TextRoom,
    bets,
    first_line,
    month_clock,
    rules,
)

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?\*{5} History for hand (?P<id>\S+) \*{5}")
# The header's lines, read by the hook wherever they are among the first, passed over by the rules.
_WHEN = re.compile(r"^Start hand: \w{3} (?P<mon>\w{3}) (?P<day>\d{1,2}) (?P<time>\d{1,2}:\d{2}:\d{2}) "
                   r"(?P<zone>\S+) (?P<year>\d{4})")
_TABLE = re.compile(r"^Table: .*\((?P<game>[A-Z_]+ [A-Z_]+) (?P<stakes>\S+)(?:, (?P<money>[^)]*))?\)\s*$")
_USER = re.compile(r"^User: (?P<name>.+?)\s*$")
_BUTTON = re.compile(r"^Button: seat (?P<seat>\d+)")
_HEADER = (_WHEN, _TABLE, _USER, _BUTTON)
_HEADER_LINES = 8


def _header(lines: Sequence[str], where: str) -> Header:
    number = first_line(lines, _START, where, "an OnGame").group("id")
    found: dict[re.Pattern[str], re.Match[str]] = {}
    for line in lines[1:_HEADER_LINES]:
        for pattern in _HEADER:
            m = pattern.match(line)
            if m is not None and pattern not in found:
                found[pattern] = m
    table = found.get(_TABLE)
    if table is None:
        raise RoomError(f"{where}: no Table: line with the game and stakes")
    if table.group("game") != "LIMIT TEXAS_HOLDEM" or "Real money" not in (table.group("money") or "Real money"):
        raise OtherGame(f"{where}: {table.group('game')} {table.group('stakes')} is not a fixed-limit hold'em "
                        "cash game", table.group("game") if table.group("game") != "LIMIT TEXAS_HOLDEM" else "play money")
    small_bet, big_bet = bets(table.group("stakes"), where)
    w, user, button = found.get(_WHEN), found.get(_USER), found.get(_BUTTON)
    return Header(number, small_bet, big_bet, body=1, currency="USD" if "$" in table.group("stakes") else "",
                  started_at=None if w is None else month_clock(w.group("year"), w.group("mon"), w.group("day"),
                                                                w.group("time"), w.group("zone"), where),
                  hero=None if user is None else user.group("name"),
                  button=None if button is None else int(button.group("seat")))


ROOM = TextRoom(network="ongame", starts=(_START,), header=_header, amounts=Amounts.RAISES_ONLY, result=Result.NET,
                rules=(*(Rule(Line.SKIP, pattern, DEAL | PLAY) for pattern in _HEADER), *rules(r"""
# phases    line        pattern
all         to-summary  ^Summary:
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)\s*$
deal        post        ^(?P<name>.+?) posts (?P<what>small blind|big blind|dead small blind|dead big blind
                          |small blind \+ dead|big blind \+ dead)? ?\((?P<amount>[^)]+)\)\s*$
deal        to-play     ^(?:---$|Dealing pocket cards)
play        dealt       ^Dealing to (?P<name>.+?): \[(?P<cards>[^\]]+)\]\s*$
play        street      ^--- Dealing (?P<street>flop|turn|river) \[(?P<cards>[^\]]*)\]
play        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>[^\s\[]+))?
                          (?: to (?P<to>[^\s\[]+))?(?P<allin> \[all in\])?\s*$
play        shows       ^(?P<name>.+?) shows:? \[(?P<cards>[^\]]+)\]
play        mucks       ^(?P<name>.+?) (?:mucks|doesn't show)
deal+play   skip        (?:^---\s*$|^Dealing pocket cards|^Players in round|^Summary:|^Main pot|^Side pot
                          |^\*{5} End of hand| sits out| is sitting out| has timed out| times out| is disconnected
                          | has returned| joins the table| leaves the table| will be using| time bank)
summary     rake        ^Rake taken: (?P<rake>\S+)
summary     net         ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)(?:, net: (?P<net>[+-]?\S+?))?
                          (?:, \[(?P<cards>[^\]]+)\].*)?\s*$
""")))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
