"""PartyPoker hand histories (``Game #... starts.`` / ``***** Hand History for Game ...``):
fixed-limit hold'em cash games read into a :class:`~connectors.logs.rooms.RoomHand`; pure
functions, no I/O.

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
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import Move, OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "identify", "parse_hand", "split_hands"]

NETWORK = "party"

_START = re.compile(r"^\ufeff?Game #\d+ starts\.")
_HISTORY = re.compile(r"^\ufeff?\*{5} Hand History [Ff]or Game (?P<id>\w+) \*{5}")
_GAME = re.compile(r"^(?P<stakes>\S+/\S+)(?: (?P<cur>[A-Z]{3}))? (?P<game>.+?) - \w+, (?P<mon>\w+) (?P<day>\d{1,2}), "
                   r"(?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>\S+) (?P<year>\d{4})\s*$")
_ONE_STAKE = re.compile(r"^\S+(?: [A-Z]{3})? (?:NL|PL|FL)? ?(?:Texas Hold'em|Omaha|7 Card Stud)")
_BUTTON = re.compile(r"^Seat (?P<seat>\d+) is the button")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \( (?P<stack>[^)]*?) \)\s*$")
_POST = re.compile(r"^(?P<name>.+?) posts (?P<what>small blind|big blind \+ dead|big blind|dead small blind|"
                   r"dead big blind)\s*\[(?P<amount>[^\]]+)\]\.?\s*$")
_DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]+)\]\s*$")
_ACTION = re.compile(r"^(?P<name>.+?) (?P<verb>folds|checks|calls|bets|raises|is all-In)(?:\s*\[(?P<a>[^\]]+)\])?\.?\s*$")
_STREET = re.compile(r"^\*\* Dealing (?P<street>Flop|Turn|River) \*\* \[(?P<cards>[^\]]*)\]")
_SHOWS = re.compile(r"^(?P<name>.+?) shows \[(?P<cards>[^\]]+)\]")
_MUCKS = re.compile(r"^(?P<name>.+?) (?:doesn't show|does not show|mucks)")
_WINS = re.compile(r"^(?P<name>.+?) wins (?P<amount>\S+)(?: [A-Z]{3})? (?:from|chips from) (?:the )?(?:main|side) pot")
_VERBS = {"folds": FOLD, "checks": CHECK, "calls": CALL, "bets": BET, "raises": RAISE}
_STREETS = {"Flop": 1, "Turn": 2, "River": 3}
_MONTHS = {m: i for i, m in enumerate(("January", "February", "March", "April", "May", "June", "July", "August",
                                        "September", "October", "November", "December"), start=1)}
_INFO = re.compile(r"(?:^#Game No|^Table |^Total number of players|^\*\* Dealing down cards|^There is no Small Blind"
                   r"| has joined the table| has left the table| is sitting out| sits out| is disconnected"
                   r"| did not respond in time| has been reconnected| will be using| time bank| has timed out"
                   r"|: .*|^Game #\d+ starts)")


def identify(head: str) -> bool:
    lines = head[:4096].split("\n")[:20]
    return any(_START.match(line) or _HISTORY.match(line) for line in lines)


def split_hands(text: str) -> list[tuple[int, str]]:
    if any(_START.match(line) for line in text.split("\n", 50)[:50]):
        return rooms.split_at(text, _START)
    return rooms.split_at(text, _HISTORY)


def parse_hand(text: str, where: str) -> RoomHand:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    number = None
    head = None
    first = 0
    for i, line in enumerate(lines[:12]):
        h = _HISTORY.match(line)
        if h is not None:
            number = h.group("id")
            first = i + 1
            head = lines[i + 1] if i + 1 < len(lines) else ""
            break
    if number is None or head is None:
        raise RoomError(f"{where}: no '***** Hand History for Game' line")
    g = _GAME.match(head)
    if g is None:
        if _ONE_STAKE.match(head) or "Tourney" in head or "Trny" in head:
            raise OtherGame(f"{where}: {head[:60]!r} is not a fixed-limit hold'em cash game")
        raise RoomError(f"{where}: cannot read the game line {head[:80]!r}")
    game = g.group("game")
    if game not in ("Texas Hold'em", "FL Texas Hold'em", "Texas Hold'em Game Table"):
        raise OtherGame(f"{where}: {g.group('stakes')} {game} is not a fixed-limit hold'em cash game")
    small, big = g.group("stakes").split("/")
    small_bet, big_bet = chips(small, where), chips(big, where)
    month = _MONTHS.get(g.group("mon"))
    if month is None:
        raise RoomError(f"{where}: cannot read the month {g.group('mon')!r}")
    day = datetime.strptime(f"{g.group('year')}-{month}-{g.group('day')} {g.group('time')}", "%Y-%m-%d %H:%M:%S")
    hand = RoomHand(NETWORK, number, where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], currency=g.group("cur") or "",
                    started_at=rooms.room_time(day, g.group("zone"), where))
    seats: dict[str, tuple[int, int]] = {}
    wagers = rooms.Wagers()
    wins: dict[str, int] = {}
    street = 0
    for k, line in enumerate(lines[first + 1:], start=first + 2):
        at = f"{where}+{k - 1}"
        line = line.strip()
        if not line:
            continue
        b = _BUTTON.match(line)
        if b is not None:
            hand.button = int(b.group("seat"))
            continue
        st = _SEAT.match(line)
        if st is not None:
            seats[rooms.name_of(st.group("name"), at)] = (int(st.group("seat")), chips(st.group("stack"), at))
            continue
        p = _POST.match(line)
        if p is not None and p.group("name") in seats:
            name, what = p.group("name"), p.group("what")
            amount = chips(p.group("amount"), at)
            if what == "small blind":
                post = Post(name, "sb", amount)
            elif what == "big blind":
                post = Post(name, "bb", amount)
            elif what == "big blind + dead":
                live = min(amount, small_bet)
                post = Post(name, "post", live, amount - live)
            else:
                post = Post(name, "post", 0, amount)
            # A second small blind (a player joining between the blinds) is live.
            if post.kind == "sb" and any(q.kind == "sb" for q in hand.posts):
                post = Post(name, "post", amount)
            hand.posts.append(post)
            wagers.post(name, post.live, post.dead)
            continue
        d = _DEALT.match(line)
        if d is not None:
            hand.dealt_to(d.group("name"), d.group("cards"), at)
            continue
        s = _STREET.match(line)
        if s is not None:
            street = _STREETS[s.group("street")]
            wagers.next_street(street)
            hand.deal(street, s.group("cards"), at)
            continue
        a = _ACTION.match(line)
        if a is not None and a.group("name") in seats:
            name, verb = a.group("name"), a.group("verb")
            added = chips(a.group("a"), at) if a.group("a") else 0
            if verb in ("folds", "checks"):
                hand.streets[street].append(Move(name, _VERBS[verb]))
                continue
            kind, to = wagers.add(name, added)
            if verb != "is all-In" and kind != _VERBS[verb]:
                raise RoomError(f"{at}: {line[:60]!r} puts in chips that make it a {kind}")
            hand.streets[street].append(Move(name, kind, to if kind in (BET, RAISE) and verb != "is all-In" else None))
            continue
        sh = _SHOWS.match(line)
        if sh is not None and sh.group("name") in seats:
            hand.shown[sh.group("name")] = rooms.cards(sh.group("cards"), at, 2)
            continue
        mu = _MUCKS.match(line)
        if mu is not None and mu.group("name") in seats:
            hand.mucked.add(mu.group("name"))
            continue
        w = _WINS.match(line)
        if w is not None and w.group("name") in seats:
            wins[w.group("name")] = wins.get(w.group("name"), 0) + chips(w.group("amount"), at)
            continue
        if _INFO.search(line):
            continue
        raise RoomError(f"{at}: cannot read {line[:80]!r}")
    if not wins:
        raise RoomError(f"{where}: the hand has no winner (a hand cut short)")
    won = dict(wins)
    wagers.add_returned(won)
    rake = sum(wagers.totals.values()) - sum(won.values())
    if rake < 0:
        raise RoomError(f"{where}: the winners took {-rake} more chips than the pot held")
    return hand.finish(seats, won=won, rake=rake)
