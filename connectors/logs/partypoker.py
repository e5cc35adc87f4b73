"""PartyPoker hand histories (``Game #... starts.`` / ``***** Hand History for Game ...``):
fixed-limit hold'em cash games: a table of line patterns for connectors.logs.text_room,
which reads them into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand::

    Game #10398176832 starts.
    #Game No : 10398176832
    ***** Hand History for Game 10398176832 *****
    $15/$30 USD Texas Hold'em - Monday, April 25, 09:42:13 BST 2011
    Table Table  125413 (Real Money)
    Seat 3 is the button
    Total number of players : 4/6
    Seat 3: Player0 ( $964 USD )
    Player2 posts small blind [$10 USD].
    Hero posts big blind [$15 USD].
    ** Dealing down cards **
    Dealt to Hero [  9c Ad ]
    Player1 calls [$5 USD] / Hero raises [$15 USD] / bets / checks / folds / is all-In  [$5 USD]
    ** Dealing Flop ** [ Ah, 2h, Kh ]   ** Dealing Turn ** [ 5h ]   ** Dealing River ** [ 7c ]
    Player1 shows [ Th, 5c ]a flush, Ace high.
    Hero doesn't show [ 9c, Ad ]a pair of Aces.
    Player1 wins $278 USD from the main pot with a flush, Ace high.

"$15/$30" are the small and big bet. Every amount in brackets is the chips the move
adds. The room writes neither the rake nor the bet nobody called: the reader counts the
chips (rooms.Wagers), gives the uncalled bet back, and the rake is what the pot holds
beyond what the winners took.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from agent.game.rules import ONLINE_PARTY
from connectors.logs.rooms import OtherGame, RoomError
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, line_within, month_clock, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

# A hand may begin after a NUL (the room's tournament files have one before each hand but
# the first, and one on the file's last line).
_START = re.compile(r"^\ufeff?\x00?Game #\d+ starts\.")
_HISTORY = re.compile(r"^\ufeff?\*{5} Hand History [Ff]or Game (?P<id>\w+) \*{5}")
_GAME = re.compile(r"^(?P<stakes>\S+/\S+)(?: (?P<cur>[A-Z]{3}))? (?P<game>.+?) - \w+, (?P<mon>\w+) (?P<day>\d{1,2}), "
                   r"(?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>\S+) (?P<year>\d{4})\s*$")
# A tournament's game line: "FL Texas Hold'em  Trny:71207318 Level:4  Stakes(200/400) - Tuesday, ...".
_TOURNAMENT = re.compile(r"^(?P<game>.+?)\s+Trny:\s*(?P<tid>\d+)\s+Level:\s*(?P<level>\w+)\s+Stakes\((?P<stakes>[^)]*)\)"
                         r"\s+-\s+\w+, (?P<mon>\w+) (?P<day>\d{1,2}), (?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>\S+) "
                         r"(?P<year>\d{4})\s*$")
_GAME_NAME = re.compile(r"(?:NL |PL |FL )?(?:Texas Hold'em|Omaha(?: Hi-Lo)?|7 Card Stud(?: Hi-Lo)?)")
_HOLDEM = ("Texas Hold'em", "FL Texas Hold'em", "Texas Hold'em Game Table")
_ONE_STAKE = re.compile(r"^\S+(?: [A-Z]{3})? (?:NL|PL|FL)? ?(?:Texas Hold'em|Omaha|7 Card Stud)")
_HISTORY_WITHIN = 12  # lines: the history line follows the file's own header lines


def _header(lines: Sequence[str], where: str) -> Header:
    at, history, head = line_within(lines, _HISTORY, _HISTORY_WITHIN, where, "'***** Hand History for Game'")
    t = _TOURNAMENT.match(head)
    if t is not None:
        return _tournament(t, history.group("id"), at + 2, where)
    g = _GAME.match(head)
    if g is None:
        if _ONE_STAKE.match(head) or "Tourney" in head or "Trny" in head:
            game = _GAME_NAME.search(head)
            raise OtherGame(f"{where}: {head[:60]!r} is not a fixed-limit hold'em game",
                            game.group(0) if game is not None else "tournament")
        raise RoomError(f"{where}: cannot read the game line {head[:80]!r}")
    if g.group("game") not in _HOLDEM:
        raise OtherGame(f"{where}: {g.group('stakes')} {g.group('game')} is not a fixed-limit hold'em cash game",
                        g.group("game"))
    small_bet, big_bet = bets(g.group("stakes"), where)
    when = month_clock(g.group("year"), g.group("mon"), g.group("day"), g.group("time"), g.group("zone"), where)
    return Header(history.group("id"), small_bet, big_bet, body=at + 2, started_at=when, currency=g.group("cur") or "")


def _tournament(t: re.Match[str], number: str, body: int, where: str) -> Header:
    """A tournament hand's header: the blinds are not written (half the small bet and the
    small bet, posted by seat), each winner's take includes the bet nobody called, and
    nothing is raked."""
    if t.group("game") not in _HOLDEM:
        raise OtherGame(f"{where}: {t.group('game')} is not fixed-limit hold'em", t.group("game"))
    small_bet, big_bet = bets(t.group("stakes"), where)
    when = month_clock(t.group("year"), t.group("mon"), t.group("day"), t.group("time"), t.group("zone"), where)
    return Header(number, small_bet, big_bet, body=body, started_at=when, tournament=t.group("tid"),
                  level=t.group("level"), blinds=(max(1, small_bet // 2), small_bet), result=Result.WON_ALL)


# The room writes no line where the cards are dealt: every line is read in the first phase.
# An all-in of half a bet or more is raised a full bet above itself (agent.game.variant).
ROOM = TextRoom(network="party", starts=(_START, _HISTORY), header=_header, amounts=Amounts.ADDED,
                result=Result.WON_NO_RAKE, variant=ONLINE_PARTY, rules=rules(r"""
# phases    line        pattern
deal        button      ^Seat (?P<button>\d+) is the button
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \( (?P<stack>[^)]*?) \)\s*$
deal        post        ^(?P<name>.+?) posts (?P<what>small blind|big blind \+ dead|big blind|dead small blind
                          |dead big blind)\s*\[(?P<amount>[^\]]+)\]\.?\s*$
deal        dealt       ^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$
deal        street      ^\*\* Dealing (?P<street>Flop|Turn|River) \*\* \[(?P<cards>[^\]]*)\]
deal        move        ^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises|is all-In)(?:\s*\[(?P<a>[^\]]+)\])?
                          \.?\s*$
deal        shows       ^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]
deal        mucks       ^(?P<name>.+?) (?:doesn't show|does not show|mucks)
deal        won         ^(?P<name>.+?) wins (?P<amount>\S+)(?: [A-Z]{3})?(?: (?:from|chips from) (?:the )?(?:main|side) pot
                          | chips\s*$)
deal        skip        (?:^#Game No|^Table |^Trny:\s*\d+ Level:|^Stakes\(|^Player .+ finished in \d+|^\x00+$|^Total number of players|^\*\* Dealing down cards|^There is no Small Blind
                          | has joined the table| has left the table| is sitting out| sits out| is disconnected
                          | did not respond in time| has been reconnected| will be using| time bank| has timed out
                          |: .*|^Game #\d+ starts)
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
