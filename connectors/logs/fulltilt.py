"""Full Tilt Poker hand histories (``Full Tilt Poker Game #...``): fixed-limit hold'em
cash games read into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

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
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "identify", "parse_hand", "split_hands"]

NETWORK = "ftp"

_START = re.compile(r"^\ufeff?Full Tilt Poker Game #(\d+):")
_HEADER = re.compile(r"^\ufeff?Full Tilt Poker Game #(?P<id>\d+): (?P<rest>.*)$")
_WHEN = re.compile(r"(?:(?P<t1>\d{1,2}:\d{2}:\d{2}) (?P<z1>[A-Z]+) - (?P<d1>\d{4}/\d{2}/\d{2})"
                   r"|(?P<d2>\d{4}/\d{2}/\d{2}) - (?P<t2>\d{1,2}:\d{2}:\d{2}) (?P<z2>[A-Z]+))")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)(?P<out>, is sitting out)?\s*$")
_POST = re.compile(r"^(?P<name>.+?) posts (?:(?P<what>the small blind|the big blind|a dead small blind|"
                   r"a dead big blind) of )?(?P<amount>\S+?)(?P<allin>, and is all in)?\s*$")
_BUTTON = re.compile(r"^The button is in seat #(?P<seat>\d+)")
_ACTION = re.compile(r"^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises to)(?: (?P<a>[^,\s]+))?"
                     r"(?P<allin>, and is all in)?\s*$")
_STREET = re.compile(r"^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]")
_DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$")
_UNCALLED = re.compile(r"^Uncalled bet of (?P<amount>\S+) returned to (?P<name>.+?)\s*$")
_WINS = re.compile(r"^(?P<name>.+?) (?:wins|ties for) the (?:main |side )?pot(?: #?\d+)? \((?P<amount>[^)]+)\)")
_SHOWS = re.compile(r"^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]")
_MUCKS = re.compile(r"^(?P<name>.+?) (?:mucks|doesn't show)")
_TOTAL = re.compile(r"^Total pot (?P<pot>\S+).*?\| Rake (?P<rake>\S+)")
# The summary names who sat out, the button included, when the seat list does not.
_SUMMARY_OUT = re.compile(r"^Seat \d+: (?P<name>.+?)(?: \((?:button|small blind|big blind)\))* is sitting out\s*$")
_VERBS = {"folds": FOLD, "checks": CHECK, "calls": CALL, "bets": BET, "raises to": RAISE}
_STREETS = {"FLOP": 1, "TURN": 2, "RIVER": 3}
_INFO = re.compile(r"(?: has \d+ seconds left to act| has timed out| adds \S+| is sitting out| has requested TIME"
                   r"| sits down| stands up| has reconnected| has been disconnected| is feeling \w+"
                   r"| has returned| will be using his time bank| seconds to reconnect|^Board: |^Seat \d+: "
                   r"|^\*\*\* (?:HOLE CARDS|SHOW DOWN|SUMMARY) )")


def identify(head: str) -> bool:
    return _START.search(head[:4096]) is not None or any(_START.match(x) for x in head[:4096].split("\n")[:5])


def split_hands(text: str) -> list[tuple[int, str]]:
    return rooms.split_at(text, _START)


def parse_hand(text: str, where: str) -> RoomHand:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    m = _HEADER.match(lines[0]) if lines else None
    if m is None:
        raise RoomError(f"{where}: not a Full Tilt hand header: {lines[0][:80]!r}")
    rest = m.group("rest")
    parts = [p.strip() for p in rest.split(" - ")]
    game = next((p for p in parts if "Hold'em" in p or "Omaha" in p or "Stud" in p or "Razz" in p), "")
    if game != "Limit Hold'em" or "Tournament" in rest or " Ante " in rest:
        raise OtherGame(f"{where}: {game or rest[:60]} is not a fixed-limit hold'em cash game")
    stakes = next((p for p in parts if re.match(r"^\D?[\d.,]+/\D?[\d.,]+", p)), None)
    if stakes is None:
        raise RoomError(f"{where}: cannot find the stakes in {rest[:80]!r}")
    small, big = stakes.split()[0].split("/")
    small_bet, big_bet = chips(small, where), chips(big, where)
    w = _WHEN.search(rest)
    started_at = None
    if w is not None:
        day, clock, zone = (w.group("d1"), w.group("t1"), w.group("z1")) if w.group("d1") else (
            w.group("d2"), w.group("t2"), w.group("z2"))
        started_at = rooms.room_time(datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M:%S"), zone, where)
    hand = RoomHand(NETWORK, m.group("id"), where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], started_at=started_at,
                    currency="USD" if "$" in stakes else "")
    seats: dict[str, tuple[int, int]] = {}
    out: set[str] = set()
    won: dict[str, int] = {}
    wagers = rooms.Wagers()
    returns_written = False
    rake = None
    street = 0
    phase = "seats"
    for k, line in enumerate(lines[1:], start=2):
        at = f"{where}+{k - 1}"
        line = line.strip()
        if not line:
            continue
        if phase == "summary":
            t = _TOTAL.match(line)
            if t is not None:
                rake = chips(t.group("rake"), at)
            so = _SUMMARY_OUT.match(line)
            if so is not None:
                out.add(so.group("name"))
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
            st = _SEAT.match(line)
            if st is not None:
                name = rooms.name_of(st.group("name"), at)
                seats[name] = (int(st.group("seat")), chips(st.group("stack"), at))
                if st.group("out"):
                    out.add(name)
                continue
            b = _BUTTON.match(line)
            if b is not None:
                hand.button = int(b.group("seat"))
                continue
            if " antes " in line:
                raise OtherGame(f"{at}: antes posted: not a game played here")
            p = _POST.match(line)
            if p is not None and p.group("name") in seats:
                name, what = p.group("name"), p.group("what") or ""
                amount = chips(p.group("amount"), at)
                if what == "the small blind":
                    post = Post(name, "sb", amount, all_in=bool(p.group("allin")))
                elif what == "the big blind":
                    post = Post(name, "bb", amount, all_in=bool(p.group("allin")))
                elif what.startswith("a dead"):
                    post = Post(name, "post", 0, amount, bool(p.group("allin")))
                else:
                    post = Post(name, "post", amount, 0, bool(p.group("allin")))
                # A dead small blind and a live big blind from one player are one post.
                previous = next((q for q in hand.posts if q.player == name), None)
                if previous is not None and previous.kind == "post" and post.kind == "post":
                    hand.posts.remove(previous)
                    post = Post(name, "post", previous.live + post.live, previous.dead + post.dead,
                                previous.all_in or post.all_in)
                    wagers.post(name, post.live - previous.live, post.dead - previous.dead)
                else:
                    wagers.post(name, post.live, post.dead)
                hand.posts.append(post)
                continue
            if _INFO.search(line):
                continue
            raise RoomError(f"{at}: cannot read {line[:80]!r}")
        d = _DEALT.match(line)
        if d is not None:
            hand.dealt_to(d.group("name"), d.group("cards"), at)
            continue
        a = _ACTION.match(line)
        if a is not None and a.group("name") in seats:
            kind = _VERBS[a.group("verb")]
            amount = chips(a.group("a"), at) if a.group("a") else None
            hand.move(street, wagers, a.group("name"), kind, amount, amount if kind == RAISE else None)
            continue
        u = _UNCALLED.match(line)
        if u is not None:
            returns_written = True
            won[u.group("name")] = won.get(u.group("name"), 0) + chips(u.group("amount"), at)
            continue
        wi = _WINS.match(line)
        if wi is not None:
            won[wi.group("name")] = won.get(wi.group("name"), 0) + chips(wi.group("amount"), at)
            continue
        sh = _SHOWS.match(line)
        if sh is not None and sh.group("name") in seats:
            hand.shown[sh.group("name")] = rooms.cards(sh.group("cards"), at, 2)
            continue
        mu = _MUCKS.match(line)
        if mu is not None and mu.group("name") in seats:
            hand.mucked.add(mu.group("name"))
            continue
        if _INFO.search(line) or re.match(r"^\S.*?: ", line):  # chat: "name: text"
            continue
        raise RoomError(f"{at}: cannot read {line[:80]!r}")
    return hand.finish(seats, out, won, rake, None if returns_written else wagers)
