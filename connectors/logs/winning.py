"""Winning Poker network hand histories in the room's older format (``Game started at: ...``
then ``Game ID: ... 2/4 table (Hold'em)``; Yatahay, True Poker, BetOnline's tables until
about 2017): fixed-limit hold'em cash games: a table of line patterns for
connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand (the room writes UTF-16, a blank line after every line)::

    Game started at: 2016/8/2 10:53:49
    Game ID: 693968595 2/4 Airavata 2 (Hold'em)
    Seat 2 is the button
    Seat 1: ChazDazzle (20).
    Player only_luck has small blind (1)
    Player ChazDazzle has big blind (2)
    Player ChazDazzle received card: [5h]          (the hero's cards, a line a card)
    Player only_luck received a card.
    Player only_luck raises (3) / calls (2) / bets (2) / checks / folds / allin (1.50)
    *** FLOP ***: [Qc 2s 4c]   *** TURN ***: [Qc 2s 4c] [7d]   *** RIVER ***: [...] [9h]
    Uncalled bet (2) returned to only_luck
    ------ Summary ------
    Pot: 7.85. Rake 0.15
    Board: [Qc 2s 4c]
    Player ChazDazzle does not show cards.Bets: 4. Collects: 0. Loses: 4.
    *Player only_luck shows: Two pairs. Ks and Qs [Ks Qs]. Bets: 4. Collects: 7.85. Wins: 3.85.

The game line names no limit: its two figures are the small and big bet of a fixed-limit
game, where the big blind is the first of them, and the blinds of a no-limit or pot-limit
one (skipped as another game). Every amount in brackets is the chips the move adds. The
time is the room's (read as UTC, as it names no zone).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError, chips
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, bets, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?Game started at: \d{4}/\d{1,2}/\d{1,2} \d{1,2}:\d{2}:\d{2}\s*$")
_HEADER = re.compile(r"^\ufeff?Game started at: (?P<date>\d{4}/\d{1,2}/\d{1,2}) (?P<time>\d{1,2}:\d{2}:\d{2})")
_GAME = re.compile(r"^Game ID: (?P<id>\d+) (?P<stakes>[\d.,]+/[\d.,]+) (?P<table>.*?) \((?P<game>[^)]*)\)(?: \d+-max)?\s*$")
_BIG = re.compile(r"^Player .+? has big blind \((?P<amount>[\d.,]+)\)\s*$")
_GAME_WITHIN = 4  # lines (blank lines between)


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Winning Poker")
    game = next((g for g in map(_GAME.match, lines[1:_GAME_WITHIN]) if g is not None), None)
    if game is None:
        raise RoomError(f"{where}: no 'Game ID:' line with the stakes")
    if game.group("game") != "Hold'em":
        raise OtherGame(f"{where}: {game.group('game')} is not a fixed-limit hold'em cash game",
                        game.group("game"))
    small_bet, big_bet = bets(game.group("stakes"), where)
    big = next((b for b in map(_BIG.match, lines) if b is not None), None)
    if big is None or chips(big.group("amount"), where) != small_bet:
        # The figures are the blinds: a no-limit or pot-limit game.
        raise OtherGame(f"{where}: {game.group('stakes')} {game.group('game')} with a big blind of "
                        f"{big.group('amount') if big else 'none'} is not a fixed-limit game",
                        f"{game.group('game')} (not fixed-limit)")
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y/%m/%d %H:%M:%S", "UTC", where)
    return Header(game.group("id"), small_bet, big_bet, body=1, started_at=when, currency="USD")


ROOM = TextRoom(network="winning", starts=(_START,), header=_header, amounts=Amounts.ADDED, result=Result.WON,
                rules=rules(r"""
# phases    line        pattern
deal        skip        ^Game ID: \d+ 
deal        button      ^Seat (?P<button>\d+) is the button\s*$
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[\d.,]+)\)\.?\s*$
deal        other-game  ^Player .+? (?:has |posts )?(?P<what>ante|straddle)\b
deal        post        ^Player (?P<name>.+?) (?:has (?P<what>small blind|big blind)|posts) \((?P<amount>[\d.,]+)\)\s*$
deal        sits-out    ^Player (?P<name>.+?) (?:sitting out|is sitting out|sits out|wait BB)\s*$
deal+play   dealt       ^Player (?P<name>.+?) received card: \[(?P<cards>[^\]]+)\]\s*$
deal        to-play     ^Player .+? received a card\.
play        street      ^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\*: (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]\s*$
play        move        ^Player (?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises|allin)(?: \((?P<a>[\d.,]+)\))?\s*$
play        uncalled    ^Uncalled bet \((?P<amount>[\d.,]+)\) returned to (?P<name>.+?)\s*$
play        mucks       ^Player (?P<name>.+?) (?:mucks cards|does not show cards)\b
deal+play   to-summary  ^-+ Summary -+\s*$
play        skip        (?:^Player .+? received a card\.| sitting out| wait BB| is timed out| has timed out
                          | is disconnected| is connected| has joined| has left| sits out)
summary     rake        ^Pot: (?P<pot>[\d.,]+)\. Rake (?P<rake>[\d.,]+)
summary     won         ^\*?Player (?P<name>.+?) (?:shows: .*?\[(?P<cards>[^\]]+)\].*?|mucks .*?|does not show .*?)
                          Bets: [\d.,]+\. Collects: (?P<amount>[\d.,]+)\.
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
