"""Absolute Poker (and UltimateBet) hand histories (``Stage #...``): fixed-limit hold'em
cash games read into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

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
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import ALL_IN, Move, OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "identify", "parse_hand", "split_hands"]

NETWORK = "absolute"

_START = re.compile(r"^\ufeff?Stage #\d+:")
_HEADER = re.compile(r"^\ufeff?Stage #(?P<id>\d+): (?P<game>.+?) (?P<stakes>\S+/\S+|\S+) - "
                     r"(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})(?: \((?P<zone>[A-Z]+)\))?")
_TABLE = re.compile(r"^Table: .*?(?:Seat #(?P<button>\d+) is the dealer)?\s*$")
_SEAT = re.compile(r"^Seat (?P<seat>\d+) - (?P<name>.+?) \((?P<stack>[^)]*?) in chips\)\s*$")
_MOVE = re.compile(r"^(?P<name>.+?) - (?P<verb>Posts small blind|Posts big blind|Posts dead|Folds|Checks|Calls|Bets|"
                   r"Raises|All-In|sitout|returned)(?P<rest>.*)$")
_STREET = re.compile(r"^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]")
_DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$")
_COLLECTS = re.compile(r"^(?P<name>.+?) Collects (?P<amount>\S+) from (?:main|side) pot")
_SHOWS = re.compile(r"^(?P<name>.+?) - Shows \[(?P<cards>[^\]]+)\]")
_MUCKS = re.compile(r"^(?P<name>.+?) - (?:Does not show|Mucks)")
_TOTAL = re.compile(r"^Total Pot\((?P<pot>[^)]*)\)(?: \| Rake \((?P<rake>[^)]*)\))?")
_AMOUNT = re.compile(r"\$?[\d,]+(?:\.\d+)?")
_STREETS = {"FLOP": 1, "TURN": 2, "RIVER": 3}
_INFO = re.compile(r"(?:^\*\*\* (?:POCKET CARDS|SHOW DOWN|SUMMARY) |^Board \[|^Seat \d+: | - sitout| - re-join"
                   r"| - Sits? down| - Stands? up| - Leaves? table| - Disconnect| - Reconnect|: )")


def identify(head: str) -> bool:
    return any(_START.match(line) for line in head[:4096].split("\n")[:20])


def split_hands(text: str) -> list[tuple[int, str]]:
    return rooms.split_at(text, _START)


def parse_hand(text: str, where: str) -> RoomHand:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    m = _HEADER.match(lines[0]) if lines else None
    if m is None:
        raise RoomError(f"{where}: not an Absolute Poker hand header: {lines[0][:80]!r}")
    game = " ".join(m.group("game").split()).lower()
    if game not in ("holdem normal", "holdem limit", "hold'em normal") or "/" not in m.group("stakes"):
        raise OtherGame(f"{where}: {m.group('game')} {m.group('stakes')} is not a fixed-limit hold'em cash game")
    small, big = m.group("stakes").split("/")
    small_bet, big_bet = chips(small, where), chips(big, where)
    when = datetime.strptime(f"{m.group('date')} {m.group('time')}", "%Y-%m-%d %H:%M:%S")
    hand = RoomHand(NETWORK, m.group("id"), where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], currency="USD" if "$" in small else "",
                    started_at=rooms.room_time(when, m.group("zone"), where))
    seats: dict[str, tuple[int, int]] = {}
    out: set[str] = set()
    wagers = rooms.Wagers()
    won: dict[str, int] = {}
    rake = None
    street = 0
    dealt = False
    summary = False
    for k, line in enumerate(lines[1:], start=2):
        at = f"{where}+{k - 1}"
        line = line.strip()
        if not line:
            continue
        if summary:
            t = _TOTAL.match(line)
            if t is not None:
                rake = chips(t.group("rake"), at) if t.group("rake") else 0
            continue
        if line.startswith("*** SUMMARY ***"):
            summary = True
            continue
        if line.startswith("*** POCKET CARDS ***"):
            dealt = True
            continue
        t = _TABLE.match(line)
        if t is not None and line.startswith("Table: "):
            hand.button = int(t.group("button")) if t.group("button") else None
            continue
        st = _SEAT.match(line)
        if st is not None:
            seats[rooms.name_of(st.group("name"), at)] = (int(st.group("seat")), chips(st.group("stack"), at))
            continue
        s = _STREET.match(line)
        if s is not None:
            street = _STREETS[s.group("street")]
            wagers.next_street(street)
            hand.deal(street, s.group("cards"), at)
            continue
        d = _DEALT.match(line)
        if d is not None:
            hand.dealt_to(d.group("name"), d.group("cards"), at)
            continue
        mv = _MOVE.match(line)
        if mv is not None and mv.group("name") in seats:
            name, verb, rest = mv.group("name"), mv.group("verb"), mv.group("rest")
            amounts = [chips(x, at) for x in _AMOUNT.findall(rest)]
            timeout = "(Timeout)" in rest
            if verb == "sitout":
                if not dealt:
                    out.add(name)
                continue
            if verb == "returned":
                won[name] = won.get(name, 0) + (amounts[0] if amounts else 0)
                continue
            if not dealt:
                if verb == "Posts small blind" and amounts:
                    post = Post(name, "sb", amounts[0])
                elif verb in ("Posts big blind", "All-In") and amounts:
                    # Before the cards an all-in is a big blind that took the player's last chip.
                    post = Post(name, "bb", amounts[0], all_in=verb == "All-In")
                elif verb == "Posts dead" and amounts:
                    dead = amounts[1] if len(amounts) > 1 else amounts[0]
                    post = Post(name, "post", amounts[0] - dead if len(amounts) > 1 else 0, dead)
                else:
                    raise RoomError(f"{at}: cannot read {line[:80]!r} before the cards are dealt")
                hand.posts.append(post)
                wagers.post(name, post.live, post.dead)
                continue
            if verb == "Folds":
                hand.streets[street].append(Move(name, FOLD))
            elif verb == "Checks":
                hand.streets[street].append(Move(name, CHECK))
            elif verb == "All-In" and timeout:
                hand.streets[street].append(Move(name, ALL_IN))
            elif verb in ("Calls", "Bets", "Raises", "All-In") and amounts:
                kind, to = wagers.add(name, amounts[0])
                expected = {"Calls": CALL, "Bets": BET, "Raises": RAISE}.get(verb)
                if expected is not None and kind != expected and not (expected == RAISE and kind == BET):
                    raise RoomError(f"{at}: {line[:60]!r} puts in chips that make it a {kind}")
                if verb == "Raises" and len(amounts) > 1 and amounts[1] != to:
                    raise RoomError(f"{at}: {line[:60]!r}: the chips added make the bet {to}")
                hand.streets[street].append(Move(name, kind, to if verb in ("Bets", "Raises") else None))
            else:
                raise RoomError(f"{at}: cannot read {line[:80]!r}")
            continue
        c = _COLLECTS.match(line)
        if c is not None and c.group("name") in seats:
            won[c.group("name")] = won.get(c.group("name"), 0) + chips(c.group("amount"), at)
            continue
        sh = _SHOWS.match(line)
        if sh is not None and sh.group("name") in seats:
            hand.shown[sh.group("name")] = rooms.cards(sh.group("cards"), at, 2)
            continue
        mu = _MUCKS.match(line)
        if mu is not None and mu.group("name") in seats:
            hand.mucked.add(mu.group("name"))
            continue
        if _INFO.search(line):
            continue
        raise RoomError(f"{at}: cannot read {line[:80]!r}")
    posted = {p.player for p in hand.posts}
    acted = {mv.player for moves in hand.streets for mv in moves}
    return hand.finish(seats, out - posted - acted, won, rake)
