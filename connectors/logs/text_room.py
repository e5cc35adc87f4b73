r"""The one reader of the rooms whose hand histories are lines of text; pure functions, no I/O.

A room is a :class:`TextRoom`: a table of line patterns plus the one hook every room
needs (its header), and this module's loop reads any of them into a
:class:`~connectors.logs.rooms.RoomHand`. A fix to how a seat, a post, a move, a street,
a pot or the rake is read lands here once, for every room.

The shape of a room (``connectors/logs/pokerstars.py`` is one)::

    ROOM = TextRoom(
        network="stars",            # the network its players are known on
        starts=(START,),            # a hand's first line: files are cut there, and recognised
                                    # by one in their first 4 KiB
        header=_header,             # hook: the hand's lines -> Header (its number, the bets,
                                    # the time, where the body begins)
        amounts=Amounts.WRITTEN,    # what the chips in a move line are
        result=Result.WON,          # what the end of the hand says
        rules=rules(r'''
    # phases    line        pattern
    deal+play   to-play     ^\*\*\* HOLE CARDS \*\*\*
    deal        seat        ^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<stack>[^)]*?) in chips\)
    play        move        ^(?P<name>.+?): (?P<verb>folds|checks|calls|bets|raises)(?: (?P<a>\S+))?
                              (?: to (?P<to>\S+))?\s*$
    ...
    '''))
    NETWORK = ROOM.network          # the entry points connectors.logs.sources calls
    identify = ROOM.identify
    split_hands = ROOM.split_hands
    parse_hand = ROOM.parse_hand

and an entry in ``connectors.logs.sources.ROOM_READERS``. Adding a room is adding such a
module and that entry.

**The table** (:func:`rules`) is one rule a row: the phases it reads in (``deal``,
``play``, ``summary``, joined by ``+``, or ``all``), what the line says (a :class:`Line`)
and the pattern, a regular expression to the end of the row. A row that begins with
white space continues the pattern of the row before (its leading white space dropped);
rows that begin with ``#`` are comments. Trailing white space is never part of a pattern
(write ``\x20`` for a space there). The patterns are compiled when the module is imported.

**Reading.** The body (the lines after the header) is read line by line, stripped, blank
lines skipped, in three phases: ``deal`` (seats, button, posts), ``play`` (hole cards,
moves, boards, showdown, pots) and ``summary``. A line is taken by the first rule of the
phase whose pattern it contains (``re.search``: anchor a pattern with ``^`` to match from
the start), unless that rule's line names a player without a seat (below). A line no rule takes is an error
(RoomError, with file, line and text), except in the summary, where the rules pick what
they need and the rest is passed over. Put the rules for lines that say nothing (chat,
arrivals, time-out notices) last, as ``skip``.

**What each line kind reads**, from the pattern's named groups:

=============  ==============================================================================
``seat``       ``seat``, ``name``, ``stack``; ``out`` set when the seat line says the player
               sits out
``button``     ``button``: the button's seat (absent: no button)
``post``       ``name``, ``amount``, ``what`` (the post as written, see :data:`POSTS`),
               ``dead`` (of ``amount``, the chips that are dead), ``allin``
``dealt``      ``name``, ``cards``: the hero's hole cards, or one of them (a room that deals
               them a line a card: the lines gathered)
``street``     ``street`` (flop, turn or river in any case; absent: the next street),
               ``cards`` (the street's own); a street dealt again with the same cards is read once
``board``      ``cards``: the whole board (a summary's); the streets not dealt yet are dealt
               from it, those dealt must agree
``move``       ``name``, ``verb`` (see :data:`VERBS`: "folds" or "fold", any case), ``a`` (chips), ``to`` (the bet a raise
               makes), ``protected`` (an all-in the room made on a time-out)
``uncalled``   ``name``, ``amount``: a bet nobody called, given back
``won``        ``name``, ``amount``: chips taken from a pot; ``cards`` (shown) when the line
               shows them too
``shows``      ``name``, ``cards``
``mucks``      ``name``
``rake``       ``rake`` (absent: none); :attr:`TextRoom.house` adds the room's other cuts
``net``        ``name``, ``net`` (signed), ``cards`` (shown, unless the hero's)
``sits-out``   ``name``: not dealt in, unless the player posts or acts
``other-game`` ``what``: a post of another game (an ante, a straddle); OtherGame
``to-play``    the cards are dealt: the play phase begins
``to-summary`` the summary phase begins
``skip``       a line that says nothing about the play
=============  ==============================================================================

A line that names a player (a post, a move, a pot, cards shown or mucked, a net) is taken
only when that player has a seat; otherwise the next rule is tried, so a chat line that
happens to look like a move is not read as one.

**Rules every room shares** (each written once, here): a second small blind is a live
post (a player joining between the blinds); a player's posts are one post (a dead small
blind and a live big blind together); a player who sits out but posts or acts is dealt
in; a street's line repeated with the same cards is read once; when the room wrote no
line for a bet nobody called, the chips counted (rooms.Wagers) give it back; an opening
bet into a bet that stands cannot be, so the room left out the next street's line (Bovada
now and then): the move opens the next street, whose cards a ``board`` line must give.

**Amounts** (:class:`Amounts`): ``WRITTEN``, a call's and a bet's chips are what the move
adds and a raise names the bet it makes (``to``); ``ADDED``, every amount is the chips the
move adds, the chips say whether it is a call, bet or raise and must agree with the verb
(a raise the chips make an opening bet is read as the bet); ``RAISES_ONLY``, only a
raise's ``to`` is read (the room's nets are the result). Whatever the amounts, a move the
room names by its chips only (an all-in, :data:`VERBS`) is the chips it adds (``a``) or
the bet it makes (``to``), and the chips say whether it calls, bets or raises.

**Result** (:class:`Result`): ``WON``, what each player took and the rake are written;
``WON_NO_RAKE``, what each took is written, the rake is the pot less that (a hand without
a winner was cut short); ``NET``, each player's net and the rake are written; ``WON_ALL``,
what each took is written, the bet nobody called in it, and nothing is raked (a
tournament's pot: every chip in it goes to a winner). A room's header may give one hand
another Result than the room's (Header.result). A room whose every bet given back is written (:attr:`TextRoom.returns_written`: what a player
took holds the rest, Winamax, Bovada) has no uncalled bet added from the chips counted.
A room whose short all-in big blind makes the bet before the flop
(:attr:`TextRoom.short_blind_bet`, Bovada) says so to the rules through the hand.

**Tournaments.** A hand of a tournament is read like a cash game's, its chips the
tournament's: the header hook gives the room's tournament id and the blind level
(Header.tournament, Header.level), which go with the hand to the database, where they
keep tournament chips apart from money. A room that does not write the blinds of its
tournament hands (PartyPoker) gives them in the header (Header.blinds): they are posted
as the rules deal, by seat from the button, before the first card or move is read.
"""
from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain, islice

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import ONLINE, RuleVariant
from connectors.logs import rooms
from connectors.logs.rooms import ALL_IN, Move, OtherGame, Post, RoomError, RoomHand, chips
from evaluator_pyx.cards import CARD_NAMES

__all__ = [
    "ALL",
    "DEAL",
    "PLAY",
    "POSTS",
    "SUMMARY",
    "VERBS",
    "Amounts",
    "Header",
    "Line",
    "Phase",
    "Result",
    "Rule",
    "TextRoom",
    "bets",
    "clock",
    "first_line",
    "month_clock",
    "rules",
]


class Phase(enum.IntFlag):
    """Where in a hand a line is: before the cards, the play, the summary."""

    DEAL = 1
    PLAY = 2
    SUMMARY = 4


DEAL, PLAY, SUMMARY = Phase.DEAL, Phase.PLAY, Phase.SUMMARY
ALL = DEAL | PLAY | SUMMARY


class Line(enum.Enum):
    """What a line says, by its name in a table (the module docstring lists the groups each reads)."""

    SEAT = "seat"
    BUTTON = "button"
    BOARD = "board"
    POST = "post"
    DEALT = "dealt"
    STREET = "street"
    MOVE = "move"
    UNCALLED = "uncalled"
    WON = "won"
    SHOWS = "shows"
    MUCKS = "mucks"
    RAKE = "rake"
    NET = "net"
    SITS_OUT = "sits-out"
    OTHER_GAME = "other-game"
    TO_PLAY = "to-play"
    TO_SUMMARY = "to-summary"
    SKIP = "skip"


class Amounts(enum.Enum):
    """What the chips written in a move line are (module docstring)."""

    WRITTEN = "written"
    ADDED = "added"
    RAISES_ONLY = "raises-only"


class Result(enum.Enum):
    """What the end of a hand says (module docstring)."""

    WON = "won"
    WON_NO_RAKE = "won-no-rake"
    NET = "net"
    WON_ALL = "won-all"


# A move named by its chips alone (an all-in): a call, bet or raise as the chips make it.
BY_CHIPS = "chips"
# The moves the rooms write, in lower case.
VERBS = {"folds": FOLD, "checks": CHECK, "calls": CALL, "bets": BET, "raises": RAISE, "is all-in": BY_CHIPS,
         "all-in": BY_CHIPS, "is all in": BY_CHIPS, "all-in(raise)": BY_CHIPS, "allin": BY_CHIPS,
         "fold": FOLD, "check": CHECK, "call": CALL, "bet": BET, "raise": RAISE}

# The posts the rooms write ("the"/"a"/"Posts" left out of the pattern's ``what``), in lower
# case. BLINDS: both blinds at once, live up to a small bet, the rest dead.
SB, BB, LIVE, DEAD, BLINDS = "sb", "bb", "live", "dead", "blinds"
POSTS = {"small blind": SB, "big blind": BB, "": LIVE, "dead": DEAD, "dead small blind": DEAD,
         "dead big blind": DEAD, "small & big blinds": BLINDS, "small blind + dead": BLINDS,
         "big blind + dead": BLINDS, "dead chip": BLINDS, "all-in": BB}  # before the cards, an all-in is a big blind

_STREETS = {"flop": 1, "turn": 2, "river": 3}
_MONTHS = {name: i for i, month in enumerate(("January", "February", "March", "April", "May", "June", "July",
                                              "August", "September", "October", "November", "December"), start=1)
           for name in (month, month[:3])}
# Bounds on what the files may make us hold: a real file has its first hand in its first
# lines, and the hands of a file all start alike.
_HEAD_CHARS = 4096
_SPLIT_LINES = 50


@dataclass(frozen=True, slots=True)
class Rule:
    """A row of a room's table: what a line says, the pattern that finds it, and the phases
    it is read in."""

    line: Line
    pattern: re.Pattern[str]
    phases: Phase


_PHASES = {"deal": DEAL, "play": PLAY, "summary": SUMMARY, "all": ALL}


def rules(table: str) -> tuple[Rule, ...]:
    """A room's table read (module docstring); ValueError, naming the row, for a row that is
    not a rule, a name that is no phase or :class:`Line`, or a pattern that does not compile."""
    rows: list[_Row] = []
    for number, text in enumerate(table.split("\n"), start=1):
        row = text.rstrip()
        if not row or row.startswith("#"):
            continue
        if row[0].isspace():
            if not rows:
                raise ValueError(f"row {number} continues no rule: {row!r}")
            rows[-1].pattern += row.lstrip()
            continue
        fields = row.split(None, 2)
        if len(fields) != 3:
            raise ValueError(f"row {number} is not 'phases line pattern': {row!r}")
        rows.append(_Row(number, *fields))
    return tuple(row.rule() for row in rows)


@dataclass(slots=True)
class _Row:
    """A rule of a table as written, its pattern gathered from its continuation rows."""

    number: int
    phases: str
    line: str
    pattern: str

    def rule(self) -> Rule:
        try:
            return Rule(Line(self.line), re.compile(self.pattern), _phases(self.phases))
        except (ValueError, re.error) as exc:
            raise ValueError(f"row {self.number}: {exc}") from None


def _phases(text: str) -> Phase:
    phases = Phase(0)
    for name in text.split("+"):
        if name not in _PHASES:
            raise ValueError(f"not a phase: {name!r} (one of {', '.join(_PHASES)}, joined by +)")
        phases |= _PHASES[name]
    return phases


@dataclass(frozen=True, slots=True)
class Header:
    """What a room's header hook reads from the first lines of a hand."""

    number: str  # the room's hand id
    small_bet: int
    big_bet: int
    body: int  # the index of the hand's first line after the header
    started_at: float | None = None
    currency: str = ""
    button: int | None = None  # the room's seat number of the button, when the header says it
    hero: str | None = None  # the player the history was written for, when the header says it
    # A tournament's hand: the room's tournament id and the blind level as written (module
    # docstring, Tournaments); None for a cash game.
    tournament: str | None = None
    level: str | None = None
    # The blinds the room posts without writing them (small, big), posted by seat from the
    # button when the hand's first card, street or move is read; None: the posts are written.
    blinds: tuple[int, int] | None = None
    # How this hand ends when it is not as the room's usual hands do (its Result).
    result: Result | None = None


@dataclass(frozen=True)
class TextRoom:
    """A room whose hand histories are text: its table and hooks (module docstring)."""

    network: str
    starts: tuple[re.Pattern[str], ...]  # the first line of a hand, the usual one first
    header: Callable[[Sequence[str], str], Header]
    rules: tuple[Rule, ...]
    amounts: Amounts
    result: Result
    house: re.Pattern[str] | None = None  # what the room takes beside the rake, on the rake's line
    returns_written: bool = False  # every bet given back is written (module docstring)
    short_blind_bet: bool = False  # a short all-in big blind makes the bet (module docstring)
    variant: RuleVariant = ONLINE  # the rules the room plays by (agent.game.variant)
    _by_phase: dict[Phase, tuple[Rule, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """ValueError for a rule whose pattern lacks a group its line reads, or that reads in
        no phase: a room's table is checked when its module is imported."""
        for rule in self.rules:
            missing = sorted(_GROUPS[rule.line] - set(rule.pattern.groupindex))
            problem = f"has no group {', '.join(missing)}" if missing else ""
            if not rule.phases:
                problem = "reads in no phase"
            if problem:
                raise ValueError(f"{self.network}: the {rule.line.value} rule {rule.pattern.pattern[:60]!r} {problem}")
        object.__setattr__(self, "_by_phase", {phase: tuple(r for r in self.rules if r.phases & phase)
                                               for phase in (DEAL, PLAY, SUMMARY)})

    def identify(self, head: str) -> bool:
        """Whether a file's first part is one of this room's hand histories."""
        return any(start.match(line) for line in head[:_HEAD_CHARS].split("\n") for start in self.starts)

    def _start(self, head: Sequence[str | None]) -> re.Pattern[str]:
        """Where hands begin: the first of :attr:`starts` found in a file's first lines."""
        return next((s for s in self.starts if any(line is not None and s.match(line) for line in head)),
                    self.starts[-1])

    def split_hands(self, text: str) -> list[tuple[int, str]]:
        """Each hand of a file's whole text: (its first line, 1-based; its text)."""
        return rooms.split_at(text, self._start(text.split("\n", _SPLIT_LINES)[:_SPLIT_LINES]))

    def read_hands(self, blocks: Iterable[bytes]) -> Iterator[rooms.HandText]:
        """Each hand of a file given as blocks of its bytes, streamed (rooms.text_lines,
        rooms.hands_at): a line or hand too long to hold is never held."""
        lines = rooms.text_lines(blocks)
        head = list(islice(lines, _SPLIT_LINES))
        yield from rooms.hands_at(chain(head, lines), self._start(head))

    def parse_hand(self, text: str, where: str) -> RoomHand:
        """One hand; OtherGame for a hand of another game, RoomError for one we cannot read."""
        lines = [line.rstrip("\r") for line in text.split("\n")]
        head = self.header(lines, where)
        hand = RoomHand(self.network, head.number, where, small_blind=max(1, head.small_bet // 2),
                        big_blind=head.small_bet, small_bet=head.small_bet, big_bet=head.big_bet, seats=[],
                        button=head.button, started_at=head.started_at, currency=head.currency, hero=head.hero,
                        short_blind_bet=self.short_blind_bet, tournament=head.tournament,
                        level=head.level, variant=self.variant)
        reading = _Reading(self, hand, head.result or self.result, head.blinds)
        for index in range(head.body, len(lines)):
            line = lines[index].strip()
            if line:
                self._read(reading, line, f"{where}+{index}")
        return reading.finish()

    def _read(self, reading: _Reading, line: str, at: str) -> None:
        for rule in self._by_phase[reading.phase]:
            found = rule.pattern.search(line)
            if found is None or rule.line in _SEATED and found.group("name") not in reading.seats:
                continue
            if reading.blinds is not None and rule.line in _DEALING:
                _post_blinds(reading, at)
            _READ[rule.line](reading, found, at)
            return
        if reading.phase is not SUMMARY:
            raise RoomError(f"{at}: cannot read {line[:80]!r}")


# --------------------------------------------------------------------------- header helpers


def first_line(lines: Sequence[str], pattern: re.Pattern[str], where: str, room: str) -> re.Match[str]:
    """The hand's first line read by ``pattern``; RoomError, naming ``room`` ("a PokerStars"),
    when it is not that room's header."""
    found = pattern.match(lines[0]) if lines else None
    if found is None:
        raise RoomError(f"{where}: not {room} hand header: {(lines[0] if lines else '')[:80]!r}")
    return found


def line_within(lines: Sequence[str], pattern: re.Pattern[str], within: int, where: str,
                what: str) -> tuple[int, re.Match[str], str]:
    """The first of a hand's first ``within`` lines ``pattern`` reads, its index, and the line
    after it ("" at the end): where a room writes its header below other lines (PartyPoker's
    and 888's history line, the game line after it); RoomError naming ``what`` otherwise."""
    for index, line in enumerate(lines[:within]):
        found = pattern.match(line)
        if found is not None:
            return index, found, lines[index + 1] if index + 1 < len(lines) else ""
    raise RoomError(f"{where}: no {what} line")


def bets(stakes: str, where: str) -> tuple[int, int]:
    """The small and big bet of stakes written "$1/$2" (what follows a space ignored)."""
    parts = stakes.split()[0].split("/") if stakes.split() else []
    if len(parts) != 2:
        raise RoomError(f"{where}: cannot read the stakes {stakes!r}")
    return chips(parts[0], where), chips(parts[1], where)


def clock(text: str, form: str, zone: str | None, where: str) -> float:
    """Unix time of a room's local date and time ``text`` written as ``form`` (strptime's)."""
    try:
        when = datetime.strptime(text, form)
    except ValueError:
        raise RoomError(f"{where}: cannot read the time {text!r}") from None
    return rooms.room_time(when, zone, where)


def month_clock(year: str, month: str, day: str, time: str, zone: str | None, where: str) -> float:
    """Unix time of a date whose month is written by name (English, whole or its first three
    letters: the rooms' names whatever the machine's locale)."""
    number = _MONTHS.get(month)
    if number is None:
        raise RoomError(f"{where}: cannot read the month {month!r}")
    return clock(f"{year}-{number}-{day} {time}", "%Y-%m-%d %H:%M:%S", zone, where)


# --------------------------------------------------------------------------- the body


@dataclass(slots=True)
class _Reading:
    """A hand being read: the room's hand so far and what the loop counts beside it."""

    room: TextRoom
    hand: RoomHand
    result: Result  # how the hand ends (the room's, or its header's for this hand)
    blinds: tuple[int, int] | None = None  # blinds still to post as the room did not write them
    phase: Phase = DEAL
    street: int = 0
    seats: dict[str, tuple[int, int]] = field(default_factory=dict)
    out: set[str] = field(default_factory=set)
    won: dict[str, int] = field(default_factory=dict)
    net: dict[str, int] = field(default_factory=dict)
    wagers: rooms.Wagers = field(default_factory=rooms.Wagers)
    returns_written: bool = False
    rake: int | None = None
    hole: list[str] = field(default_factory=list)  # the hero's cards dealt a line a card, so far

    def finish(self) -> RoomHand:
        """The hand closed as the room's :class:`Result` says."""
        hand = self.hand
        # A player who posts or acts is dealt in, whatever the room said of him before.
        out = self.out - {p.player for p in hand.posts} - {m.player for moves in hand.streets for m in moves}
        if len(self.hole) == 1:
            raise RoomError(f"{hand.where}: one hole card dealt to the hero")
        # Given back: the uncalled bet the room did not write, unless what each took includes it.
        wagers = None if self.returns_written or self.room.returns_written else self.wagers
        if self.result is Result.NET:
            hand.net = self.net
            return hand.finish(self.seats, out, rake=self.rake)
        if self.result is Result.WON_ALL:
            # Every chip in the pot went to a winner: no rake, no uncalled bet to give back.
            taken = sum(self.won.values())
            if taken != sum(self.wagers.totals.values()):
                raise RoomError(f"{hand.where}: the winners took {taken} chips of a pot of "
                                f"{sum(self.wagers.totals.values())}")
            return hand.finish(self.seats, out, self.won, 0)
        if self.result is Result.WON_NO_RAKE:
            if not self.won:
                raise RoomError(f"{hand.where}: the hand has no winner (a hand cut short)")
            if wagers is not None:
                wagers.add_returned(self.won)
            rake = sum(self.wagers.totals.values()) - sum(self.won.values())
            if rake < 0:
                raise RoomError(f"{hand.where}: the winners took {-rake} more chips than the pot held")
            if self.rake is not None and self.rake != rake:  # a rake written now and then must agree
                raise RoomError(f"{hand.where}: the rake written, {self.rake}, is not the pot less what was won")
            return hand.finish(self.seats, out, self.won, rake)
        return hand.finish(self.seats, out, self.won, self.rake, wagers)


def _group(found: re.Match[str], name: str) -> str | None:
    """A named group's text, None when the pattern has no such group or it did not take part."""
    return found.group(name) if name in found.re.groupindex else None


def _amount(found: re.Match[str], name: str, at: str) -> int | None:
    text = _group(found, name)
    return chips(text, at) if text else None


def _seat(r: _Reading, found: re.Match[str], at: str) -> None:
    name = rooms.name_of(found.group("name"), at)
    r.seats[name] = (int(found.group("seat")), chips(found.group("stack"), at))
    if _group(found, "out"):
        r.out.add(name)


def _button(r: _Reading, found: re.Match[str], at: str) -> None:
    seat = found.group("button")
    r.hand.button = int(seat) if seat else None


def _post(r: _Reading, found: re.Match[str], at: str) -> None:
    name = found.group("name")
    what = (_group(found, "what") or "").lower()
    kind = POSTS.get(what)
    if kind is None:
        raise RoomError(f"{at}: cannot read the post {what!r}")
    amount = chips(found.group("amount"), at)
    all_in = bool(_group(found, "allin"))
    if kind == DEAD:
        dead = _amount(found, "dead", at)
        post = Post(name, "post", 0 if dead is None else amount - dead, amount if dead is None else dead, all_in)
    elif kind == BLINDS:
        live = min(amount, r.hand.small_bet)
        post = Post(name, "post", live, amount - live, all_in)
    elif kind == LIVE or kind == SB and any(p.kind == "sb" for p in r.hand.posts):
        post = Post(name, "post", amount, 0, all_in)  # a second small blind is live
    else:
        post = Post(name, kind, amount, all_in=all_in)
    r.wagers.post(name, post.live, post.dead)
    # A player's posts before the cards are one post (a dead small blind and a live big one).
    previous = next((q for q in r.hand.posts if q.player == name), None)
    if previous is not None and previous.kind == "post" and post.kind == "post":
        r.hand.posts.remove(previous)
        post = Post(name, "post", previous.live + post.live, previous.dead + post.dead,
                    previous.all_in or post.all_in)
    r.hand.posts.append(post)


def _post_blinds(r: _Reading, at: str) -> None:
    """The blinds the room did not write (Header.blinds), posted as the rules deal: the
    small blind by the first player dealt in after the button's seat (heads-up, the
    button), the big blind by the next, each all-in when it takes his last chip."""
    assert r.blinds is not None
    small, big = r.blinds
    r.blinds = None
    button = r.hand.button
    seated = sorted((seat, name) for name, (seat, _) in r.seats.items() if name not in r.out)
    if button is None or len(seated) < 2:
        raise RoomError(f"{at}: the blinds are not written and cannot be placed (button {button}, "
                        f"{len(seated)} players)")
    after = [name for seat, name in seated if seat > button] + [name for seat, name in seated if seat <= button]
    posters = (after[-1], after[0]) if len(seated) == 2 else (after[0], after[1])
    for name, kind, amount in ((posters[0], SB, small), (posters[1], BB, big)):
        stack = r.seats[name][1]
        post = Post(name, kind, min(amount, stack), all_in=stack <= amount)
        r.wagers.post(name, post.live)
        r.hand.posts.append(post)


def _dealt(r: _Reading, found: re.Match[str], at: str) -> None:
    text = found.group("cards")
    if r.hole or len(rooms.cards(text, at)) == 1:
        # A room that deals the hero's cards a line a card (Winning): gathered, read at the second.
        r.hole.append(text)
        if len(r.hole) < 2:
            return
        text = " ".join(r.hole)
    r.hand.dealt_to(found.group("name"), text, at)


def _street(r: _Reading, found: re.Match[str], at: str) -> None:
    named = _group(found, "street")
    # A line that names no street (Bovada's "Card dealt to table") deals the next one.
    street = _STREETS[named.lower()] if named else len(r.hand.board) + 1
    word = named.lower() if named else "street"
    if street <= len(r.hand.board):
        # The room repeats a street's line now and then (OnGame): the same cards, read once.
        if r.hand.board[street - 1] != rooms.cards(found.group("cards"), at):
            raise RoomError(f"{at}: the {word} dealt again, differently")
        return
    r.hand.deal(street, found.group("cards"), at)
    if street > r.street:
        r.street = street
        r.wagers.next_street(street)


def _board(r: _Reading, found: re.Match[str], at: str) -> None:
    """The whole board: the streets not dealt yet dealt from it, those dealt checked."""
    board = rooms.cards(found.group("cards"), at)
    streets = [board[:3], *((card,) for card in board[3:5])] if len(board) >= 3 else []
    if len(board) not in (0, 3, 4, 5):
        raise RoomError(f"{at}: a board of {len(board)} cards")
    for street, dealt in enumerate(streets, start=1):
        if street <= len(r.hand.board):
            if r.hand.board[street - 1] != dealt:
                played = " ".join(CARD_NAMES[c] for cards in r.hand.board for c in cards)
                raise RoomError(f"{at}: the board written, {found.group('cards').strip()}, is not the board "
                                f"the hand dealt, {played}")
        else:
            r.hand.board.append(dealt)
    if len(r.hand.board) > len(streets):
        raise RoomError(f"{at}: the board has fewer cards than the streets dealt")


def _move(r: _Reading, found: re.Match[str], at: str) -> None:
    name = found.group("name")
    kind = VERBS[found.group("verb").lower()]
    moves = r.hand.streets[r.street]
    if kind == BY_CHIPS and r.room.amounts is Amounts.RAISES_ONLY:
        raise RoomError(f"{at}: an all-in is read by its chips only: {found.string[:60]!r}")
    if kind == BET and r.room.amounts is not Amounts.RAISES_ONLY and r.wagers.level() and r.street < 3:
        # An opening bet into a bet that stands: the room left out the next street's line.
        r.street += 1
        r.wagers.next_street(r.street)
        moves = r.hand.streets[r.street]
    if kind in (FOLD, CHECK):
        moves.append(Move(name, kind))
    elif kind == BY_CHIPS and _group(found, "protected"):
        moves.append(Move(name, ALL_IN))  # all-in protection: all-in for what he has put in
    elif kind == BY_CHIPS or r.room.amounts is Amounts.ADDED:
        moves.append(_chips_move(r, found, name, kind, at))
    elif r.room.amounts is Amounts.WRITTEN:
        r.hand.move(r.street, r.wagers, name, kind, _amount(found, "a", at) if kind != RAISE else None,
                    _amount(found, "to", at) if kind == RAISE else None)
    else:
        moves.append(Move(name, kind, _amount(found, "to", at) if kind == RAISE else None))


def _chips_move(r: _Reading, found: re.Match[str], name: str, kind: str, at: str) -> Move:
    """A call, bet, raise or all-in written as the chips it adds (Amounts.ADDED)."""
    line = found.string
    added = _amount(found, "a", at)
    written = _amount(found, "to", at)
    if added is None and written is not None and kind == BY_CHIPS:
        added = written - r.wagers.bets.get(name, 0)  # an all-in named by the bet it makes
    if added is None or added < 0:
        raise RoomError(f"{at}: cannot read {line[:80]!r}: no chips")
    made, to = r.wagers.add(name, added)
    if kind != BY_CHIPS and made != kind and not (kind == RAISE and made == BET):
        raise RoomError(f"{at}: {line[:60]!r} puts in chips that make it a {made}")
    if written is not None and written != to:
        raise RoomError(f"{at}: {line[:60]!r}: the chips added make the bet {to}")
    return Move(name, made, to if kind in (BET, RAISE) else None)


def _uncalled(r: _Reading, found: re.Match[str], at: str) -> None:
    _won(r, found, at)
    r.returns_written = True


def _won(r: _Reading, found: re.Match[str], at: str) -> None:
    name = found.group("name")
    r.won[name] = r.won.get(name, 0) + chips(found.group("amount"), at)
    shown = _group(found, "cards")
    if shown:
        r.hand.shown[name] = rooms.cards(shown, at, 2)


def _shows(r: _Reading, found: re.Match[str], at: str) -> None:
    r.hand.shown[found.group("name")] = rooms.cards(found.group("cards"), at, 2)


def _mucks(r: _Reading, found: re.Match[str], at: str) -> None:
    r.hand.mucked.add(found.group("name"))


def _rake(r: _Reading, found: re.Match[str], at: str) -> None:
    rake = _amount(found, "rake", at) or 0
    if r.room.house is not None:
        rake += sum(chips(x, at) for x in r.room.house.findall(found.string, found.end()))
    r.rake = rake


def _net(r: _Reading, found: re.Match[str], at: str) -> None:
    name = found.group("name")
    net = _group(found, "net")
    if net:
        r.net[name] = (-1 if net.startswith("-") else 1) * chips(net.lstrip("+-"), at)
    shown = _group(found, "cards")
    if shown and name != r.hand.hero:
        r.hand.shown[name] = rooms.cards(shown, at, 2)


def _sits_out(r: _Reading, found: re.Match[str], at: str) -> None:
    r.out.add(found.group("name"))


def _other_game(r: _Reading, found: re.Match[str], at: str) -> None:
    what = found.group("what")
    # Counted under the game it makes: hold'em with antes, with straddles.
    raise OtherGame(f"{at}: {what} posted: not a game played here", f"hold'em with {what.split()[-1].rstrip('s')}s")


def _to_play(r: _Reading, found: re.Match[str], at: str) -> None:
    r.phase = PLAY


def _to_summary(r: _Reading, found: re.Match[str], at: str) -> None:
    r.phase = SUMMARY


def _skip(r: _Reading, found: re.Match[str], at: str) -> None:
    """A line that says nothing about the play."""


# The groups each kind of line reads for certain (the others it reads when the pattern has them).
_GROUPS: dict[Line, frozenset[str]] = {line: frozenset(groups.split()) for line, groups in {
    Line.SEAT: "seat name stack", Line.BUTTON: "button", Line.BOARD: "cards", Line.POST: "name amount", Line.DEALT: "name cards",
    Line.STREET: "cards", Line.MOVE: "name verb", Line.UNCALLED: "name amount", Line.WON: "name amount",
    Line.SHOWS: "name cards", Line.MUCKS: "name", Line.RAKE: "", Line.NET: "name", Line.SITS_OUT: "name",
    Line.OTHER_GAME: "what", Line.TO_PLAY: "", Line.TO_SUMMARY: "", Line.SKIP: "",
}.items()}
# The lines that come only once the blinds are posted (Header.blinds: posted before them).
_DEALING = frozenset({Line.DEALT, Line.STREET, Line.MOVE, Line.UNCALLED, Line.WON, Line.SHOWS, Line.MUCKS,
                      Line.NET, Line.TO_PLAY, Line.TO_SUMMARY})
# The lines that name a player: read only when that player has a seat (module docstring).
_SEATED = frozenset({Line.POST, Line.MOVE, Line.UNCALLED, Line.WON, Line.SHOWS, Line.MUCKS, Line.NET})
_READ: dict[Line, Callable[[_Reading, re.Match[str], str], None]] = {
    Line.SEAT: _seat, Line.BUTTON: _button, Line.BOARD: _board, Line.POST: _post, Line.DEALT: _dealt, Line.STREET: _street,
    Line.MOVE: _move, Line.UNCALLED: _uncalled, Line.WON: _won, Line.SHOWS: _shows, Line.MUCKS: _mucks,
    Line.RAKE: _rake, Line.NET: _net, Line.SITS_OUT: _sits_out, Line.OTHER_GAME: _other_game,
    Line.TO_PLAY: _to_play, Line.TO_SUMMARY: _to_summary, Line.SKIP: _skip,
}
