"""Bovada (Bodog, Ignition) hand histories (``Bovada Hand #... TBL#... HOLDEM Fixed Limit``):
fixed-limit hold'em cash games, in the room's old format (until about April 2012) and its
new one: a table of line patterns for connectors.logs.text_room, which reads them into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A hand (the new format; the old one's differences on the right)::

    Bovada Hand #2725384529 TBL#4801331 HOLDEM Fixed Limit - 2013-07-21 21:16:46
    Seat 1: Dealer ($383.14 in chips)
    Seat 3: Small Blind [ME] ($489 in chips)
    Dealer : Set dealer/Bring in spot [1]
    Small Blind  [ME] : Ante/Small Blind $4
    Big Blind : Big blind/Bring in $8   (or: All-in $8, a big blind that takes the last chip)
    UTG+3 : Posts dead chip $30         (both blinds: the big one live, the rest dead)
    *** HOLE CARDS ***
    Small Blind  [ME] : Card dealt to a spot [Th Tc]
    Dealer : Raises $16 to $16                            Dealer : Raises $16
    Small Blind [ME] : Calls $8 / Bets $8 / Checks / Folds [(timeout)] / All-in $2
    UTG : All-in(raise) $24.42                            (the bet it makes)
    *** FLOP *** [7c 3d 9h]   *** TURN *** [7c 3d 9h] [Qd]   Card dealt to table [8c As 8d]
    Small Blind : Return uncalled portion of bet $20
    Dealer : Showdown [Qd Qc 9h 9c Kh] (Two pair)          (his best five cards)
    Small Blind [ME] : Mucks [Th Tc] (Two pair)   Small Blind : Does not show [9d Td] (One pair)
    Dealer : Hand result-Side pot $158.27   Dealer : Hand result $23.73
    *** SUMMARY ***
    Total Pot($184) [| Rake ($3)]
    Board [7c 3d 9h Qd 9c]
    Seat+1: Dealer $182  with Two pair [Kh Qc-Qd Qc 9h 9c Kh]   (the hole cards, then the best five)

The tables are anonymous: the room names each player by his position in the hand, the
hero's marked [ME] (not part of the name). No line names the stakes: the big blind posted
is the small bet (the small blind twice over when the big blind is short). Calls, bets
and all-ins are the chips they add; a raise names the bet it makes. The rake is what the
pot holds beyond what the players took (the room does not always write it). A hand
whose flop line the room left out deals the flop from the summary's board. Times in ET.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from connectors.logs.rooms import OtherGame, RoomError, chips
from connectors.logs.text_room import Amounts, Header, Result, TextRoom, clock, first_line, rules

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?(?:Bovada|Bodog(?:\.com|\.eu| UK| Canada|88)?|Ignition) Hand #C?\d+")
_HEADER = re.compile(r"^\ufeff?(?:Bovada|Bodog(?:\.com|\.eu| UK| Canada|88)?|Ignition) Hand #C?(?P<id>\d+):?\s+"
                     r"(?P<game>.*?)\s+-\s+(?P<date>\d{4}-\d{2}-\d{2})[- ]+(?P<time>\d{1,2}:\d{2}:\d{2})")
# The blinds posted, which say the stakes (the first big blind, else the small blind).
_BIG = re.compile(r"^.+? : Big blind/Bring in \$?(?P<amount>[\d.,]+)\s*$")
_SMALL = re.compile(r"^.+? : Ante/Small Blind \$?(?P<amount>[\d.,]+)\s*$")
_HERO = re.compile(r"^Seat \d+: (?P<name>.+?)\s+\[ME\] \(")
_ZONE = "ET"  # the room's clock (FPDB reads it so too)


def _header(lines: Sequence[str], where: str) -> Header:
    m = first_line(lines, _HEADER, where, "a Bovada")
    game = " ".join(m.group("game").split())
    if not re.fullmatch(r"TBL#\S+ HOLDEM Fixed Limit", game):
        raise OtherGame(f"{where}: {game} is not a fixed-limit hold'em cash game", game)
    deal = lines[1:lines.index("*** HOLE CARDS ***")] if "*** HOLE CARDS ***" in lines else lines[1:]
    big = next((b for b in map(_BIG.match, deal) if b is not None), None)
    small = next((s for s in map(_SMALL.match, deal) if s is not None), None)
    if big is not None:
        small_bet = chips(big.group("amount"), where)
    elif small is not None:
        small_bet = 2 * chips(small.group("amount"), where)
    else:
        raise RoomError(f"{where}: no blind posted, so no stakes")
    hero = next((h.group("name") for h in map(_HERO.match, deal) if h is not None), None)
    when = clock(f"{m.group('date')} {m.group('time')}", "%Y-%m-%d %H:%M:%S", _ZONE, where)
    return Header(m.group("id"), small_bet, 2 * small_bet, body=1, started_at=when, currency="USD", hero=hero)


# A player's name, the hero's mark left out.
ROOM = TextRoom(network="bovada", starts=(_START,), header=_header, amounts=Amounts.WRITTEN,
                result=Result.WON_NO_RAKE, returns_written=True,
                short_blind_bet=True, rules=rules(r"""
# phases    line        pattern
deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?)(?: \[ME\])? \((?P<stack>[^)]*?) in chips\)\s*$
deal        button      ^.+? : Set dealer/Bring in spot \[(?P<button>\d+)\]\s*$
deal        post        ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: (?:Ante/|Posts )?(?P<what>Small Blind|Big blind|All-in|dead chip|)
                          (?:/Bring in|chip)? (?P<amount>\$?[\d.,]+)\s*$
deal        sits-out    ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: (?:Seat sit out|Sitout \(wait for bb\))\s*$
deal+play   to-play     ^\*\*\* HOLE CARDS \*\*\*
play        dealt       ^(?P<name>.+?)\s+\[ME\]\s+: Card dealt to a spot \[(?P<cards>[^\]]+)\]\s*$
play        street      ^(?:\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?|Card dealt to table )
                          \[(?P<cards>[^\]]*)\]\s*$
play        move        ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: (?P<verb>Raises|All-in\(raise\))(?: \$?[\d.,]+ to)?
                          \x20(?P<to>\$?[\d.,]+)(?: \((?:timeout|disconnect|auth)\))?\s*$
play        move        ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: (?P<verb>Folds|Checks|Calls|Bets|All-in)(?: (?P<a>\$?[\d.,]+))?
                          (?: \((?:timeout|disconnect|auth)\)| & shows .*)?\s*$
play        uncalled    ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: Return uncalled portion of bet (?P<amount>\$?[\d.,]+)\s*$
play        won         ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: Hand result(?:-Side pot)? (?P<amount>\$?[\d.,]+)\s*$
play        mucks       ^(?P<name>.+?)\s+(?:\[ME\]\s+)?: (?:Mucks|Does not show)\b
deal+play   to-summary  ^\*\*\* SUMMARY \*\*\*
# Lines that say nothing about the play: the cards of the others (the room's own), the
# best five at the showdown (the summary has the hole cards), arrivals, deposits.
deal+play   skip        (?: : Card dealt to a spot | : Showdown\b| : Seat (?:sit out|sit down|stand|re-join)| : Table
                          |^Table (?:enter|leave) user|^Table deposit|^Seat (?:sit down|stand|re-join|sit out)
                          |^Set dealer/Bring in spot|: Sitout )
summary     rake        ^Total Pot\(\$?[\d.,]+\) \| Rake \((?P<rake>\$?[\d.,]+)\)
summary     board       ^Board \[(?P<cards>[^\]]*)\]
summary     shows       ^Seat[+ ]\d+: (?P<name>.+?)\s+(?:\$[\d.,]+\s+with|lost with) .*?\[(?P<cards>[^\]-]+)-
"""))
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
