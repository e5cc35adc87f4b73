"""OnGame network hand histories (``***** History for hand R5-...``): fixed-limit hold'em
cash games read into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

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
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import Move, OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "identify", "parse_hand", "split_hands"]

NETWORK = "ongame"

_START = re.compile(r"^\ufeff?\*{5} History for hand (\S+) \*{5}")
_WHEN = re.compile(r"^Start hand: \w{3} (?P<mon>\w{3}) (?P<day>\d{1,2}) (?P<time>\d{1,2}:\d{2}:\d{2}) "
                   r"(?P<zone>\S+) (?P<year>\d{4})")
_TABLE = re.compile(r"^Table: .*\((?P<game>[A-Z_]+ [A-Z_]+) (?P<stakes>\S+)(?:, (?P<money>[^)]*))?\)\s*$")
_USER = re.compile(r"^User: (?P<name>.+?)\s*$")
_BUTTON = re.compile(r"^Button: seat (?P<seat>\d+)")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)\s*$")
_POST = re.compile(r"^(?P<name>.+?) posts (?P<what>small blind|big blind|dead small blind|dead big blind|"
                   r"small blind \+ dead|big blind \+ dead)? ?\((?P<amount>[^)]+)\)\s*$")
_DEALT = re.compile(r"^Dealing to (?P<name>.+?): \[(?P<cards>[^\]]+)\]\s*$")
_ACTION = re.compile(r"^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>[^\s\[]+))?"
                     r"(?: to (?P<to>[^\s\[]+))?(?P<allin> \[all in\])?\s*$")
_STREET = re.compile(r"^--- Dealing (?P<street>flop|turn|river) \[(?P<cards>[^\]]*)\]")
_RAKE = re.compile(r"^Rake taken: (?P<rake>\S+)")
_RESULT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*)\)(?:, net: (?P<net>[+-]?\S+?))?"
                     r"(?:, \[(?P<cards>[^\]]+)\].*)?\s*$")
_SHOWS = re.compile(r"^(?P<name>.+?) shows:? \[(?P<cards>[^\]]+)\]")
_MUCKS = re.compile(r"^(?P<name>.+?) (?:mucks|doesn't show)")
_VERBS = {"folds": FOLD, "checks": CHECK, "calls": CALL, "bets": BET, "raises": RAISE}
_STREETS = {"flop": 1, "turn": 2, "river": 3}
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                        "Nov", "Dec"), start=1)}
_INFO = re.compile(r"(?:^---\s*$|^Dealing pocket cards|^Players in round|^Summary:|^Main pot|^Side pot|"
                   r"^\*{5} End of hand| sits out| is sitting out| has timed out| times out| is disconnected|"
                   r" has returned| joins the table| leaves the table| will be using| time bank)")


def identify(head: str) -> bool:
    return any(_START.match(line) for line in head[:4096].split("\n")[:20])


def split_hands(text: str) -> list[tuple[int, str]]:
    return rooms.split_at(text, _START)


def parse_hand(text: str, where: str) -> RoomHand:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    m = _START.match(lines[0]) if lines else None
    if m is None:
        raise RoomError(f"{where}: not an OnGame hand header: {lines[0][:80]!r}")
    number = m.group(1)
    header = {k: None for k in ("when", "table", "user", "button")}
    for line in lines[1:8]:
        for key, pattern in (("when", _WHEN), ("table", _TABLE), ("user", _USER), ("button", _BUTTON)):
            found = pattern.match(line)
            if found is not None and header[key] is None:
                header[key] = found
    table = header["table"]
    if table is None:
        raise RoomError(f"{where}: no Table: line with the game and stakes")
    if table.group("game") != "LIMIT TEXAS_HOLDEM" or "Real money" not in (table.group("money") or "Real money"):
        raise OtherGame(f"{where}: {table.group('game')} {table.group('stakes')} is not a fixed-limit hold'em "
                        "cash game")
    small, big = table.group("stakes").split("/")
    small_bet, big_bet = chips(small, where), chips(big, where)
    started_at = None
    w = header["when"]
    if w is not None:
        month = _MONTHS.get(w.group("mon"))
        if month is None:
            raise RoomError(f"{where}: cannot read the month {w.group('mon')!r}")
        day = datetime.strptime(f"{w.group('year')}-{month}-{w.group('day')} {w.group('time')}", "%Y-%m-%d %H:%M:%S")
        started_at = rooms.room_time(day, w.group("zone"), where)
    hand = RoomHand(NETWORK, number, where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], started_at=started_at,
                    currency="USD" if "$" in table.group("stakes") else "")
    if header["user"] is not None:
        hand.hero = header["user"].group("name")
    if header["button"] is not None:
        hand.button = int(header["button"].group("seat"))
    seats: dict[str, tuple[int, int]] = {}
    net: dict[str, int] = {}
    rake = None
    street = 0
    phase = "seats"
    for k, line in enumerate(lines[1:], start=2):
        at = f"{where}+{k - 1}"
        line = line.strip()
        if not line or any(p.match(line) for p in (_WHEN, _TABLE, _USER, _BUTTON)):
            continue
        if line.startswith("Summary:"):
            phase = "summary"
            continue
        if phase == "summary":
            r = _RAKE.match(line)
            if r is not None:
                rake = chips(r.group("rake"), at)
                continue
            res = _RESULT.match(line)
            if res is not None and res.group("name") in seats:
                name = res.group("name")
                if res.group("net"):
                    sign = -1 if res.group("net").startswith("-") else 1
                    net[name] = sign * chips(res.group("net").lstrip("+-"), at)
                if res.group("cards") and name != hand.hero:
                    hand.shown[name] = rooms.cards(res.group("cards"), at, 2)
            continue
        if phase == "seats":
            st = _SEAT.match(line)
            if st is not None:
                seats[rooms.name_of(st.group("name"), at)] = (int(st.group("seat")), chips(st.group("stack"), at))
                continue
            p = _POST.match(line)
            if p is not None and p.group("name") in seats:
                name, what = p.group("name"), p.group("what") or ""
                amount = chips(p.group("amount"), at)
                if what == "small blind":
                    hand.posts.append(Post(name, "sb", amount))
                elif what == "big blind":
                    hand.posts.append(Post(name, "bb", amount))
                elif what.startswith("dead"):
                    hand.posts.append(Post(name, "post", 0, amount))
                elif what.endswith("+ dead"):
                    live = min(amount, small_bet)
                    hand.posts.append(Post(name, "post", live, amount - live))
                else:
                    hand.posts.append(Post(name, "post", amount))
                continue
            if line == "---" or line.startswith("Dealing pocket cards"):
                phase = "play"
                continue
            if _INFO.search(line):
                continue
            raise RoomError(f"{at}: cannot read {line[:80]!r}")
        d = _DEALT.match(line)
        if d is not None:
            hand.dealt_to(d.group("name"), d.group("cards"), at)
            continue
        s = _STREET.match(line)
        if s is not None:
            number_of = _STREETS[s.group("street")]
            if number_of <= len(hand.board):
                if hand.board[number_of - 1] != rooms.cards(s.group("cards"), at):
                    raise RoomError(f"{at}: the {s.group('street')} dealt again, differently")
                continue  # the room repeats a street's line now and then
            hand.deal(number_of, s.group("cards"), at)
            street = number_of
            continue
        a = _ACTION.match(line)
        if a is not None and a.group("name") in seats:
            kind = _VERBS[a.group("verb")]
            to = chips(a.group("to"), at) if kind == RAISE and a.group("to") else None
            hand.streets[street].append(Move(a.group("name"), kind, to))
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
    hand.net = net
    return hand.finish(seats, rake=rake)
