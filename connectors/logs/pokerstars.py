"""PokerStars hand histories (``PokerStars Game #...`` and ``PokerStars Hand #...``):
fixed-limit hold'em cash games read into a :class:`~connectors.logs.rooms.RoomHand`;
pure functions, no I/O.

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
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "identify", "parse_hand", "split_hands"]

NETWORK = "stars"

_START = re.compile(r"^\ufeff?PokerStars (?:Zoom |Rush |Home Game )?(?:Game|Hand) #(\d+):", re.M)
_HEADER = re.compile(
    r"^\ufeff?PokerStars (?:Zoom |Rush |Home Game )?(?:Game|Hand) #(?P<id>\d+):\s+(?P<game>.*?)\s+"
    r"\((?P<stakes>[^)]*)\)\s+-\s+(?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})\s*(?P<zone>[A-Z]+)?")
_TABLE = re.compile(r"^Table '.*?'(?: \d+-max)?(?: \(Play Money\))?(?: Seat #(?P<button>\d+) is the button)?")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*?) in chips(?:, [^)]*)?\)(?P<out> is sitting out)?")
_POST = re.compile(r"^(?P<name>.+?): posts (?P<what>small blind|big blind|small & big blinds|the ante|straddle) "
                   r"(?P<amount>\S+)(?P<allin> and is all-in)?\s*$")
_ACTION = re.compile(r"^(?P<name>.+?): (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>\S+))?(?: to (?P<to>\S+))?"
                     r"(?P<allin> and is all-in)?(?: and has reached the \S+ cap)?\s*(?:\[.*\])?\s*$")
_STREET = re.compile(r"^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]")
_DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$")
_UNCALLED = re.compile(r"^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<name>.+?)\s*$")
_COLLECTED = re.compile(r"^(?P<name>.+?) collected (?P<amount>\S+) from (?:the )?(?:main |side )?pot(?:-\d+)?\s*$")
_SHOWS = re.compile(r"^(?P<name>.+?): shows \[(?P<cards>[^\]]+)\]")
_MUCKS = re.compile(r"^(?P<name>.+?): (?:mucks hand|doesn't show hand)")
_TOTAL = re.compile(r"^Total pot (?P<pot>\S+).*?\| Rake (?P<rake>\S+)(?P<more>.*)$")
_HOUSE = re.compile(r"\| (?:Jackpot|Bingo|Fortune|Tax) (\S+)")
_SITS_OUT = re.compile(r"^(?P<name>.+?):? (?:is sitting out|sits out)\s*$")
_VERBS = {"folds": FOLD, "checks": CHECK, "calls": CALL, "bets": BET, "raises": RAISE}
_STREETS = {"FLOP": 1, "TURN": 2, "RIVER": 3}
# Lines that say nothing about the play: chat, arrivals and departures, connections,
# time-outs (the move that follows says what the time-out did).
_INFO = re.compile(r"(?: said, \"| joins the table| leaves the table| is connected| is disconnected| has timed out"
                   r"| has returned| was removed from the table| will be allowed to play|^Dealt to [^\[]*$|"
                   r"^\*\*\* (?:HOLE CARDS|SHOW DOWN|SUMMARY|FIRST|SECOND) |^Board \[|^Seat \d+: )")


def identify(head: str) -> bool:
    """Whether a file's first part is a PokerStars hand history."""
    return _START.search(head[:4096]) is not None


def split_hands(text: str) -> list[tuple[int, str]]:
    """Each hand of a file: (its first line, 1-based; its text)."""
    return rooms.split_at(text, _START)


def parse_hand(text: str, where: str) -> RoomHand:
    """One hand; OtherGame for a hand of another game, RoomError for one we cannot read."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    m = _HEADER.match(lines[0]) if lines else None
    if m is None:
        raise RoomError(f"{where}: not a PokerStars hand header: {lines[0][:80]!r}")
    game, stakes = m.group("game"), m.group("stakes")
    if "Tournament" in game or "Hold'em Limit" not in game and "Hold'em Fixed Limit" not in game:
        raise OtherGame(f"{where}: {game} ({stakes}) is not a fixed-limit hold'em cash game")
    bets = stakes.split()[0].split("/")
    if len(bets) != 2:
        raise RoomError(f"{where}: cannot read the stakes {stakes!r}")
    small_bet, big_bet = chips(bets[0], where), chips(bets[1], where)
    when = datetime.strptime(f"{m.group('date')} {m.group('time')}", "%Y/%m/%d %H:%M:%S")
    currency = stakes.split()[1] if len(stakes.split()) > 1 else ("USD" if "$" in stakes else "")
    hand = RoomHand(NETWORK, m.group("id"), where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], currency=currency,
                    started_at=rooms.room_time(when, m.group("zone"), where))
    seats: dict[str, tuple[int, int]] = {}
    out: set[str] = set()
    street = 0
    phase = "seats"  # seats, play, summary
    won: dict[str, int] = {}
    wagers = rooms.Wagers()
    returns_written = False
    rake = None
    for k, line in enumerate(lines[1:], start=2):
        at = f"{where}+{k - 1}"
        if not line.strip():
            continue
        if phase == "summary":
            t = _TOTAL.match(line)
            if t is not None:
                rake = chips(t.group("rake"), at) + sum(chips(x, at) for x in _HOUSE.findall(t.group("more")))
            continue
        if line.startswith("*** SUMMARY ***"):
            phase = "summary"
            continue
        if line.startswith("*** HOLE CARDS ***"):
            phase = "play"
            continue
        s = _STREET.match(line)
        if s is not None:
            street = _STREETS[s.group("street")]
            wagers.next_street(street)
            hand.deal(street, s.group("cards"), at)
            continue
        if phase == "seats":
            t = _TABLE.match(line)
            if t is not None:
                hand.button = int(t.group("button")) if t.group("button") else None
                continue
            st = _SEAT.match(line)
            if st is not None:
                name = rooms.name_of(st.group("name"), at)
                seats[name] = (int(st.group("seat")), chips(st.group("stack"), at))
                if st.group("out"):
                    out.add(name)
                continue
            p = _POST.match(line)
            if p is not None:
                name, what = p.group("name"), p.group("what")
                if what in ("the ante", "straddle"):
                    raise OtherGame(f"{at}: {what} posted: not a game played here")
                amount = chips(p.group("amount"), at)
                if what == "small blind":
                    post = Post(name, "sb", amount, all_in=bool(p.group("allin")))
                elif what == "big blind":
                    post = Post(name, "bb", amount, all_in=bool(p.group("allin")))
                else:
                    # small & big blinds: the big one live, the small one dead.
                    live = min(amount, hand.small_bet)
                    post = Post(name, "post", live, amount - live, bool(p.group("allin")))
                hand.posts.append(post)
                wagers.post(name, post.live, post.dead)
                continue
            so = _SITS_OUT.match(line)
            if so is not None:
                out.add(so.group("name"))
                continue
            if _INFO.search(line):
                continue
            raise RoomError(f"{at}: cannot read {line[:80]!r}")
        # play
        d = _DEALT.match(line)
        if d is not None:
            hand.dealt_to(d.group("name"), d.group("cards"), at)
            continue
        a = _ACTION.match(line)
        if a is not None and a.group("name") in seats:
            kind = _VERBS[a.group("verb")]
            hand.move(street, wagers, a.group("name"), kind,
                      chips(a.group("a"), at) if kind in (BET, CALL) and a.group("a") else None,
                      chips(a.group("to"), at) if kind == RAISE and a.group("to") else None)
            continue
        u = _UNCALLED.match(line)
        if u is not None:
            returns_written = True
            won[u.group("name")] = won.get(u.group("name"), 0) + chips(u.group("amount"), at)
            continue
        c = _COLLECTED.match(line)
        if c is not None:
            won[c.group("name")] = won.get(c.group("name"), 0) + chips(c.group("amount"), at)
            continue
        sh = _SHOWS.match(line)
        if sh is not None:
            hand.shown[sh.group("name")] = rooms.cards(sh.group("cards"), at, 2)
            continue
        mu = _MUCKS.match(line)
        if mu is not None:
            hand.mucked.add(mu.group("name"))
            continue
        if _INFO.search(line) or _SITS_OUT.match(line):
            continue
        raise RoomError(f"{at}: cannot read {line[:80]!r}")
    return hand.finish(seats, out, won, rake, None if returns_written else wagers)
