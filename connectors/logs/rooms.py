"""The online rooms' hand histories: what the readers share (one module per room:
pokerstars, fulltilt, ipoker, partypoker, ongame, absolute, entraction, kingsclub, boss,
everest, merge...; the text rooms are tables on one reader, connectors.logs.text_room,
the XML rooms but iPoker hooks on another, connectors.logs.xml_room), pure functions, no I/O.

A room module reads the text of one hand into a :class:`RoomHand` (the hand as the room
wrote it: seats, posts, moves by street, board, shown cards, what each player took and
the rake, in integer chips) and :func:`hand_events` turns that into tracker events. The
files are recognised by their content (:func:`identify`), whatever their name, in any
encoding the rooms used (:func:`decode`: UTF-16 with or without its BOM, UTF-8 with or
without it, else Windows-1252).

Chips are hundredths of the amounts written, exactly: cents for dollars, euros and
pounds ("$1,234.56" is 123456 chips; an amount finer than a cent is an error, never
rounded), and hundredths of a chip for play money, so one unit serves every room.

What the readers leave to the rules (agent.game.rules, variant ONLINE, or the room's own:
PartyPoker's ONLINE_PARTY): every amount a move puts in. The room's blinds, bets and
posted amounts go into the hand; the rules work out each call and raise, and the
tracker checks the result against what the room says each player took (or their net),
less the rake the room states, so a hand we read differently from the room is refused,
not stored wrong.
"""
from __future__ import annotations

import codecs
import dataclasses
import hashlib
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from decimal import Decimal, InvalidOperation
from itertools import chain
from typing import AnyStr

from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
    PlayerAllIn,
    PlayerPosted,
)
from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import ONLINE, Action, RuleVariant
from evaluator_pyx.cards import CARD_INDEX

__all__ = [
    "ALL_IN",
    "Move",
    "OtherGame",
    "PartialHand",
    "Post",
    "RoomError",
    "RoomHand",
    "Wagers",
    "cards",
    "chips",
    "game_name",
    "decode",
    "hand_events",
    "hand_id",
    "room_time",
    "HandText",
    "hands_at",
    "split_at",
    "text_lines",
]

# Problem categories of room hands (the replay counts skipped hands under these).
OTHER_GAME = "other-game"
PARTIAL_HAND = "partial-hand"
MALFORMED = "malformed"

# A move that is not a decision: the room made the player all-in for what he had put in
# (a time-out under all-in protection); agent.game.events.PlayerAllIn.
ALL_IN = "all-in"
_KINDS = {FOLD: Action.FOLD, CHECK: Action.CHECK_CALL, CALL: Action.CHECK_CALL, BET: Action.BET_RAISE,
          RAISE: Action.BET_RAISE}

# Bounds on what one hand may be: a real one is a few kilobytes and lines.
MAX_HAND_CHARS = 200_000
MAX_NAME = 64


class RoomError(ValueError):
    """A hand we cannot read; the message says where and what."""


class OtherGame(RoomError):
    """A hand of another game (no-limit, pot-limit, Omaha, stud...): skipped and counted
    under its game (``game``, the room's name for it, :func:`game_name`), not an error of
    the file."""

    def __init__(self, message: str, game: str) -> None:
        super().__init__(message)
        self.game = game_name(game)


_MAX_GAME = 40


def game_name(text: str) -> str:
    """A game as a room names it ("Hold'em No Limit", "Omaha Hi/Lo"), for counting the
    hands skipped under it: white space made single, bounded (the text is the file's)."""
    name = " ".join(text.split())[:_MAX_GAME]
    return name or "unnamed game"


class PartialHand(RoomError):
    """A hand the file holds only the start of, by the room's own doing (Merge stops writing
    a game when the hero leaves the table): no result to store; skipped and counted under
    ``partial-hand``, not an error of the file."""


@dataclass(frozen=True, slots=True)
class Post:
    player: str
    kind: str  # "sb", "bb" or "post" (any other post: a returning or new player's)
    live: int  # chips that count towards the player's bet
    dead: int = 0  # chips to the pot that count for nothing
    all_in: bool = False  # the room says the post took the player's last chip


@dataclass(frozen=True, slots=True)
class Move:
    player: str
    kind: str  # f k c b r, or ALL_IN
    to: int | None = None  # a bet or raise: the player's bet this street afterwards, when written


@dataclass(slots=True)
class RoomHand:
    """One hand as a room wrote it, in chips; see the module docstring."""

    network: str  # the room: the network its players are known on
    number: str  # the room's hand id
    where: str  # file:line of the hand's first line
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    seats: list[tuple[int, str, int]]  # (room seat number, name, stack) of the players dealt in
    button: int | None = None  # the room's seat number of the button
    started_at: float | None = None
    currency: str = ""
    posts: list[Post] = field(default_factory=list)
    hero: str | None = None
    holes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # cards known before the showdown
    streets: list[list[Move]] = field(default_factory=lambda: [[], [], [], []])
    board: list[tuple[int, ...]] = field(default_factory=list)  # the cards of each street dealt
    shown: dict[str, tuple[int, ...]] = field(default_factory=dict)
    mucked: set[str] = field(default_factory=set)
    won: dict[str, int] | None = None  # chips each player took, uncalled bets returned included
    net: dict[str, int] | None = None  # or: chips each player ended up with less those he began with
    rake: int = 0
    # The bet before the flop is a short all-in big blind's, not the table's (Bovada).
    short_blind_bet: bool = False
    # A tournament's hand: the room's tournament id and the blind level as written (the
    # chips are the tournament's, not money); None for a cash game.
    tournament: str | None = None
    level: str | None = None
    variant: RuleVariant = ONLINE  # the rules the room plays by (agent.game.variant)

    def deal(self, street: int, text: str, at: str) -> None:
        """The cards a street brings (the flop's three, the turn's or river's one)."""
        new = cards(text, at)
        if len(new) != (3 if street == 1 else 1) or street != len(self.board) + 1:
            raise RoomError(f"{at}: cannot deal {len(new)} cards as the {('flop', 'turn', 'river')[street - 1]} now")
        self.board.append(new)

    def dealt_to(self, name: str, text: str, at: str) -> None:
        """The hero's hole cards: the player the history was written for."""
        self.hero = name
        self.holes[name] = cards(text, at, 2)

    def move(self, street: int, wagers: Wagers, name: str, kind: str, amount: int | None = None,
             to: int | None = None) -> None:
        """A move written by name (fold, check, call, bet, raise) with the chips a call or
        bet adds and the bet a raise makes, counted in ``wagers``."""
        if kind == RAISE:
            if to is None:
                raise RoomError(f"{self.where}: a raise of {name} without the bet it makes")
            wagers.raise_to(name, to)
        elif kind in (BET, CALL):
            if amount is None:
                raise RoomError(f"{self.where}: a {'bet' if kind == BET else 'call'} of {name} without its chips")
            wagers.add(name, amount)
            if kind == BET:
                to = wagers.bets[name]
        self.streets[street].append(Move(name, kind, to))

    def finish(self, seats: dict[str, tuple[int, int]], out: AbstractSet[str] = frozenset(),
               won: dict[str, int] | None = None, rake: int | None = None, wagers: Wagers | None = None) -> RoomHand:
        """Close the hand: the players dealt in (``seats`` less ``out``), the small blind
        as posted, what each took (``won``; with ``wagers``, the uncalled bet the room did
        not write given back) and the rake (RoomError without one)."""
        if rake is None:
            raise RoomError(f"{self.where}: the hand has no summary with its rake")
        self.seats = [(seat, name, stack) for name, (seat, stack) in seats.items() if name not in out]
        sb = next((p for p in self.posts if p.kind == "sb"), None)
        if sb is not None:
            self.small_blind = sb.live
        if won is not None:
            if wagers is not None:
                wagers.add_returned(won)
            self.won = won
        self.rake = rake
        return self


def hand_id(hand: RoomHand) -> str:
    """The stable id of a room's hand: the room, its own hand number and a digest of the
    hand's content (the stakes, seats and stacks, button, posts, moves, every card known:
    the hero's, the board, those shown; what each took, the rake). A hand read twice is
    one id; another hand under a reused number (other cards, other players, other play) is
    another id, stored beside it, never dropped as a duplicate. Two players' files of one
    hand know other hole cards, so they are two ids (a reused number with other hole cards
    cannot be told from them). Left out: the time (written in each player's own zone) and
    where the hand was read."""
    record = (
        hand.network, hand.number, hand.small_blind, hand.big_blind, hand.small_bet, hand.big_bet,
        sorted(hand.seats), hand.button,
        [(p.player, p.kind, p.live, p.dead, p.all_in) for p in hand.posts],
        [[(m.player, m.kind, m.to) for m in street] for street in hand.streets],
        sorted(hand.holes.items()), hand.board, sorted(hand.shown.items()),
        None if hand.won is None else sorted(hand.won.items()),
        None if hand.net is None else sorted(hand.net.items()),
        hand.rake,
    )
    digest = hashlib.blake2b(repr(record).encode("utf-8", "replace"), digest_size=6).hexdigest()
    return f"{hand.network}:{hand.number}:{digest}"


# --------------------------------------------------------------------------- text


def encoding_of(head: bytes) -> str | None:
    """The encoding a file's first bytes say (a BOM: UTF-16 or UTF-8; UTF-16 without a
    BOM shows as a NUL in every other byte), else None: UTF-8 if the text decodes, else
    Windows-1252 (:func:`decode_bytes`)."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(codecs.BOM_UTF16_LE) or head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16"
    head = head[:400]
    if len(head) >= 4:
        if head[1::2].count(0) > len(head) // 4 and head[0::2].count(0) == 0:
            return "utf-16-le"
        if head[0::2].count(0) > len(head) // 4 and head[1::2].count(0) == 0:
            return "utf-16-be"
    return None


def decode_bytes(data: bytes) -> str:
    """UTF-8 if ``data`` decodes, else Windows-1252 (whose five unassigned bytes read as Latin-1)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "_latin1")


def decode(data: bytes) -> str:
    """The text of a hand history file in whatever encoding its room wrote it
    (:func:`encoding_of`)."""
    encoding = encoding_of(data)
    return decode_bytes(data) if encoding is None else data.decode(encoding, "replace")


def text_lines(blocks: Iterable[bytes], cap: int = MAX_HAND_CHARS) -> Iterator[str | None]:
    """The lines of a file given as blocks of its bytes, decoded as :func:`decode` reads
    the whole (without a BOM, each line on its own: UTF-8 if it decodes, else
    Windows-1252), without their ends; None for a line longer than ``cap`` (bytes, or
    characters for UTF-16), which is never held. Like ``str.split("\n")``: a file ending
    in a line end has an empty last line."""
    it = iter(blocks)
    head = b""
    for block in it:
        head += block
        if len(head) >= 400:
            break
    encoding = encoding_of(head)
    if encoding is None:
        for raw in _split_lines(chain((head,), it), b"\n", cap):
            yield None if raw is None else decode_bytes(raw)
        return
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    texts = chain((decoder.decode(b) for b in chain((head,), it)), (decoder.decode(b"", True),))
    yield from _split_lines(texts, "\n", cap)


def _split_lines(pieces: Iterable[AnyStr], end: AnyStr, cap: int) -> Iterator[AnyStr | None]:
    pending: list[AnyStr] = []
    size = 0  # of ``pending``; over ``cap``: the line is dropped, its size still counted
    for piece in pieces:
        start = 0
        while True:
            at = piece.find(end, start)
            if at < 0:
                rest = piece[start:]
                size += len(rest)
                if size <= cap:
                    pending.append(rest)
                else:
                    pending.clear()
                break
            part = piece[start:at]
            size += len(part)
            if size > cap:
                yield None
            elif pending:
                pending.append(part)
                yield end[:0].join(pending)
            else:
                yield part
            pending.clear()
            size = 0
            start = at + 1
    yield None if size > cap else end[:0].join(pending)


def _latin1(error: UnicodeError) -> tuple[str, int]:
    # Registered for decoding only (cp1252 above); any other use is a programming error.
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start:error.end]
    return bytes(bad).decode("latin-1"), error.end


codecs.register_error("_latin1", _latin1)

_AMOUNT = re.compile(r"[0-9][0-9,.\s]*")


def chips(text: str, where: str = "") -> int:
    """'$1,234.56' -> 123456, '0.50' -> 50, '€2,50' -> 250, '1 000' -> 100000: a money
    amount as whole cents (currency signs and codes around it ignored); RoomError for text
    that is no amount or one finer than a cent."""
    m = _AMOUNT.search(text)
    if m is None:
        raise RoomError(f"{where}: not an amount: {text[:40]!r}")
    number = re.sub(r"\s", "", m.group(0)).rstrip(".,")
    if "," in number and "." in number:
        # The later mark is the decimal point: "1,234.56" or "1.234,56".
        if number.rfind(",") > number.rfind("."):
            number = number.replace(".", "").replace(",", ".")
        else:
            number = number.replace(",", "")
    elif "," in number:
        head, _, tail = number.rpartition(",")
        # "2,50" is two and a half; "1,000" and "12,345,678" are thousands.
        number = f"{head.replace(',', '')}.{tail}" if len(tail) != 3 else number.replace(",", "")
    try:
        value = Decimal(number) * 100
    except InvalidOperation:
        raise RoomError(f"{where}: not an amount: {text[:40]!r}") from None
    if value != value.to_integral_value():
        raise RoomError(f"{where}: {text.strip()!r} is finer than a cent")
    return int(value)


_SUIT_FIRST = re.compile(r"^([SHDCshdc])(10|[2-9TJQKAtjqka])$")


def cards(text: str, where: str = "", count: int | None = None) -> tuple[int, ...]:
    """Cards written by a room: 'Kd Ks', '[Kd, Ks]', '9c Ad', 'SK HJ' (iPoker: suit first),
    'D10', '9c - 7d' (Entraction), '10d' (Everest); RoomError for anything else."""
    out = []
    for token in re.split(r"(?:\s-\s|[\s,\[\]])+", text.strip()):
        if token[:2] == "10" and len(token) == 3:
            token = "T" + token[2]
        if not token:
            continue
        m = _SUIT_FIRST.match(token)
        if m is not None and token[0] in "SHDCshdc" and token[1:2] not in ("c", "d", "h", "s"):
            token = m.group(2) + m.group(1).lower()
        card = CARD_INDEX.get(token) if len(token) != 2 else CARD_INDEX.get(token[0].upper() + token[1].lower())
        if card is None:
            raise RoomError(f"{where}: not a card: {token!r} in {text[:40]!r}")
        out.append(card)
    if len(set(out)) != len(out):
        raise RoomError(f"{where}: a card twice in {text[:40]!r}")
    if count is not None and len(out) != count:
        raise RoomError(f"{where}: {len(out)} cards where {count} were due: {text[:40]!r}")
    return tuple(out)


# The time zones the rooms name, as IANA zones (with summer time) or fixed offsets.
_ZONES = {
    "ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York",
    "CET": "+0100", "CEST": "+0200", "WET": "+0000", "WEST": "+0100", "GMT": "+0000", "UTC": "+0000",
    "BST": "+0100", "EET": "+0200", "EEST": "+0300", "MSK": "+0300", "YEKST": "+0600",
    "AEST": "+1000", "AEDT": "+1100",
    "PT": "America/Los_Angeles", "PST": "-0800", "PDT": "-0700", "CT": "America/Chicago", "MT": "America/Denver",
}
_OFFSET = re.compile(r"^(?:GMT|UTC)?([+-])(\d{1,2}):?(\d{2})?$")


def room_time(when: datetime, zone: str | None, where: str = "") -> float:
    """Unix time of a room's local date and time in ``zone`` (an abbreviation such as ET
    or CET, or an offset such as GMT+0100); no zone: UTC."""
    if zone:
        zone = zone.strip()
        name = _ZONES.get(zone.upper(), zone)
        m = _OFFSET.match(name)
        if m is not None:
            sign = -1 if m.group(1) == "-" else 1
            tz: tzinfo = timezone(sign * timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0)))
        else:
            try:
                from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
            except ImportError:  # pragma: no cover - Python without zoneinfo
                raise RoomError(f"{where}: cannot read the time zone {zone!r} here") from None
            try:
                tz = ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                raise RoomError(f"{where}: unknown time zone {zone!r} (the system's time zone "
                                "database, Debian's tzdata, names the rooms' zones)") from None
        return when.replace(tzinfo=tz).timestamp()
    return when.replace(tzinfo=timezone.utc).timestamp()


@dataclass(frozen=True, slots=True)
class HandText:
    """One hand of a file as cut from it: its first line (1-based), its text (None: over
    :data:`MAX_HAND_CHARS`, so never held) and its length in characters. ``ended``: the
    hand's end was read (a later hand's start line, an iPoker game's end tag); False for
    the hand that runs to the end of the input, which a file still being written may
    not have finished (agent.play.offline.follow waits for it)."""

    line: int
    text: str | None
    size: int
    ended: bool = True


def hands_at(lines: Iterable[str | None], start: re.Pattern[str], cap: int | None = MAX_HAND_CHARS
             ) -> Iterator[HandText]:
    """The hands of a file's lines (None: a line too long to hold) whose hands each begin
    with a line ``start`` matches, streamed; a hand's text is its lines joined by line
    ends, held up to ``cap`` characters. Text before the first hand is not a hand."""
    begin = 0
    body: list[str] | None = None
    size = -1  # no hand yet
    for number, line in enumerate(lines, start=1):
        if line is not None and start.match(line):
            if size >= 0:
                yield HandText(begin, None if body is None else "\n".join(body), size)
            begin, body, size = number, [line], len(line)
            continue
        if size < 0:
            continue
        size += 1 + (len(line) if line is not None else (cap or 0) + 1)  # a line too long: over the cap
        if body is not None:
            if line is None or cap is not None and size > cap:
                body = None
            else:
                body.append(line)
    if size >= 0:
        yield HandText(begin, None if body is None else "\n".join(body), size, ended=False)


def split_at(text: str, start: re.Pattern[str]) -> list[tuple[int, str]]:
    """The hands of a whole file's text (:func:`hands_at`, none too long to hold)."""
    return [(h.line, h.text) for h in hands_at(text.split("\n"), start, None) if h.text is not None]


def name_of(text: str, where: str) -> str:
    """A player's name as the room wrote it, bounded; RoomError for an empty or overlong one."""
    name = text.strip()
    if not name or len(name) > MAX_NAME:
        raise RoomError(f"{where}: not a player name: {text[:80]!r}")
    return name


# --------------------------------------------------------------------------- wagers


class Wagers:
    """What each player has put in, street by street, for the readers whose rooms write
    chips added rather than a move's name (an all-in, iPoker's and PartyPoker's amounts):
    :meth:`move` names a move by its chips, :meth:`returned` gives the bet nobody called."""

    __slots__ = ("street", "bets", "totals")

    def __init__(self) -> None:
        self.street = 0
        self.bets: dict[str, int] = {}
        self.totals: dict[str, int] = {}

    def post(self, player: str, live: int, dead: int = 0) -> None:
        self.bets[player] = self.bets.get(player, 0) + live
        self.totals[player] = self.totals.get(player, 0) + live + dead

    def next_street(self, street: int) -> None:
        if street != self.street:
            self.street = street
            self.bets = {}

    def level(self) -> int:
        return max(self.bets.values(), default=0)

    def add(self, player: str, added: int) -> tuple[str, int]:
        """Count ``added`` chips from ``player`` now: (the move's kind, his bet afterwards)."""
        level = self.level()
        mine = self.bets.get(player, 0) + added
        self.bets[player] = mine
        self.totals[player] = self.totals.get(player, 0) + added
        if mine > level:
            return (RAISE if level or self.street == 0 else BET), mine
        return (CALL if added else CHECK), mine

    def raise_to(self, player: str, to: int) -> None:
        """Count a bet or raise written as the player's bet afterwards."""
        self.add(player, to - self.bets.get(player, 0))

    def returned(self) -> tuple[str, int] | None:
        """(player, chips) of the part of the largest total nobody else matched, if any."""
        if len(self.totals) < 2:
            return None
        ranked = sorted(self.totals.items(), key=lambda kv: -kv[1])
        (top, most), (_, second) = ranked[0], ranked[1]
        return (top, most - second) if most > second else None

    def add_returned(self, won: dict[str, int]) -> None:
        """Give back in ``won`` the bet nobody called, for rooms that do not always write
        that line (PokerStars before about 2008, PartyPoker)."""
        back = self.returned()
        if back is not None:
            won[back[0]] = won.get(back[0], 0) + back[1]


# --------------------------------------------------------------------------- events


def hand_events(hand: RoomHand) -> list[Event]:
    """The tracker events of a room's hand; RoomError when its seats and blinds cannot be
    laid out as the rules play them."""
    names = _dealt_in(hand)
    index = {name: i for i, name in enumerate(names)}
    seating = _seating(hand, index)
    stacks = {name: stack for _, name, stack in hand.seats}
    blinds = _blinds(hand, seating, stacks)
    hero = hand.hero if hand.hero in index else None
    events: list[Event] = [HandStarted(
        hand_id=hand_id(hand),
        source=hand.where,
        players=tuple(names),
        stacks=tuple(stacks[name] for name in names),
        button=seating.button,
        small_blind=min(blinds.small, blinds.big),
        big_blind=blinds.big,
        small_bet=hand.small_bet,
        big_bet=hand.big_bet,
        max_bets=4,
        started_at=hand.started_at,
        blinds=blinds.posted,
        # A heads-up hand in the multi-way order (the button posts the big blind, Entraction)
        # is played by the room's rules with that one change.
        variant=hand.variant if seating.reversed
        else dataclasses.replace(hand.variant, heads_up_reverse_blinds=False),
        heads_up_reverse_blinds=seating.reversed,
        hero=hero,
        tournament=hand.tournament,
        level=hand.level,
    )]
    for post in hand.posts:
        if post is seating.sb or post is seating.bb:
            continue
        events.append(PlayerPosted(post.player, post.live, post.dead))
    if hero is not None and hero in hand.holes:
        events.append(HoleCards(hero, hand.holes[hero]))
    _betting_events(hand, index, seating, events)
    _showdown_events(hand, index, events)
    won = None if hand.won is None else tuple((name, hand.won.get(name, 0)) for name in names)
    net = None if hand.net is None else tuple((name, hand.net.get(name, 0)) for name in names)
    events.append(HandEnded(won=won, net=net, rake=hand.rake))
    return events


@dataclass(frozen=True, slots=True)
class _Seating:
    """Where the rules deal a room's hand from: its blind posts and the button (an index
    into the players dealt in)."""

    sb: Post | None
    bb: Post
    button: int
    reversed: bool = True  # heads-up, the button posts the small blind (False: the big one)


@dataclass(frozen=True, slots=True)
class _Blinds:
    """The blinds as the rules post them: the small and big blind, and the blinds the hand
    posts when they are not the table's (None: the table's)."""

    small: int
    big: int
    posted: tuple[int, ...] | None


def _dealt_in(hand: RoomHand) -> list[str]:
    """The names of the players dealt in, by seat; RoomError for a player twice, a table
    the rules cannot seat, or a post by someone not dealt in."""
    names = [name for _, name, _ in sorted(hand.seats)]
    if len(set(names)) != len(names):
        raise RoomError(f"{hand.where}: a player sits twice")
    if not 2 <= len(names) <= 23:
        raise RoomError(f"{hand.where}: {len(names)} players dealt in")
    dealt = set(names)
    for post in hand.posts:
        if post.player not in dealt:
            raise RoomError(f"{hand.where}: {post.player} posts but is not dealt in")
    return names


def _seating(hand: RoomHand, index: dict[str, int]) -> _Seating:
    """The blind posts and the button the rules deal from.

    The rules deal from the button: the small blind sits next to it (heads-up it is the
    button), the big blind next to the small blind. The room's button may sit out or on
    an empty seat; the player before the blinds plays as the button then. Heads-up, a
    room whose button posts the big blind (Entraction) plays the multi-way order: the
    small blind acts first on every street."""
    where = hand.where
    n = len(index)
    sb = next((p for p in hand.posts if p.kind == "sb"), None)
    bb = next((p for p in hand.posts if p.kind == "bb" and (sb is None or p.player != sb.player)), None)
    if bb is None:
        raise RoomError(f"{where}: nobody posts the big blind")
    big = index[bb.player]
    if sb is not None:
        small = index[sb.player]
        if (small + 1) % n != big:
            raise RoomError(f"{where}: the big blind {bb.player} does not sit next to the small blind "
                            f"{sb.player} among the players dealt in")
        if n == 2 and hand.button is not None and hand.button == _seat_of(hand, bb.player):
            return _Seating(sb, bb, big, reversed=False)
        button = small if n == 2 else (small - 1) % n
    else:
        button = (big - 1) % n if n > 2 else (big + 1) % n
        if n == 2:
            raise RoomError(f"{where}: a heads-up hand without a small blind")
    return _Seating(sb, bb, button)


def _seat_of(hand: RoomHand, name: str) -> int:
    return next(seat for seat, player, _ in hand.seats if player == name)


def _blinds(hand: RoomHand, seating: _Seating, stacks: dict[str, int]) -> _Blinds:
    """The blinds the rules post; RoomError for dead chips in a regular blind."""
    sb, bb = seating.sb, seating.bb
    # A short blind posts what it has; the rules post the table's blind, capped by the stack.
    posted: tuple[int, ...] | None = None
    sb_amount = None if sb is None else sb.live
    short = bb.live < hand.big_blind and bb.live + bb.dead >= stacks[bb.player]
    bb_amount = hand.big_blind if short and not hand.short_blind_bet else bb.live
    if sb is not None and sb.live < hand.small_blind and sb.live >= stacks[sb.player]:
        sb_amount = hand.small_blind
    if sb_amount is None:
        posted = (bb_amount,)
    elif (sb_amount, bb_amount) != (hand.small_blind, hand.big_blind):
        posted = (sb_amount, bb_amount)
    if sb is not None and sb.dead or bb.dead:
        raise RoomError(f"{hand.where}: dead chips in a regular blind")
    small = sb_amount if sb_amount is not None else min(hand.small_blind, bb_amount)
    return _Blinds(small, bb_amount, posted)


def _in_turn(moves: list[Move], index: dict[str, int], last: int) -> list[Move]:
    """A street's moves with each run of folds in turn: the folds a room wrote one after
    another but out of seat order (PartyPoker writes a fold chosen before the player's turn
    when it was chosen) put in seat order from the seat after the last player who moved
    before them (``last`` at the street's start: the big blind before the flop, the button
    after it). Folds written in turn stay as written; anything else out of turn is left for
    the rules to refuse."""
    n = len(index)
    out: list[Move] = []
    run: list[Move] = []
    for move in [*moves, None]:
        if move is not None and move.kind == FOLD and move.player in index:
            run.append(move)
            continue
        if run:
            run.sort(key=lambda m: (index[m.player] - last - 1) % n)
            out += run
            last = index[run[-1].player]
            run = []
        if move is not None:
            out.append(move)
            if move.player in index:
                last = index[move.player]
    return out


def _betting_events(hand: RoomHand, index: dict[str, int], seating: _Seating, events: list[Event]) -> None:
    """Append the moves street by street (runs of folds in turn, :func:`_in_turn`), each
    street's board dealt before its first move and the rest of the board after the last;
    RoomError for a move by someone not dealt in or on a street with no board."""
    where = hand.where
    dealt = 0
    for street, written in enumerate(hand.streets):
        moves = _in_turn(written, index, index[seating.bb.player] if street == 0 else seating.button)
        if street and moves:
            while dealt < street:
                if dealt >= len(hand.board):
                    raise RoomError(f"{where}: moves on the {('flop', 'turn', 'river')[street - 1]} "
                                    "but no board dealt")
                events.append(BoardDealt(hand.board[dealt]))
                dealt += 1
        for move in moves:
            if move.player not in index:
                raise RoomError(f"{where}: {move.player} acts but is not dealt in")
            if move.kind == ALL_IN:
                events.append(PlayerAllIn(move.player))
            else:
                events.append(PlayerActed(move.player, _KINDS[move.kind], move.to, move.kind))
    while dealt < len(hand.board):
        events.append(BoardDealt(hand.board[dealt]))
        dealt += 1


def _showdown_events(hand: RoomHand, index: dict[str, int], events: list[Event]) -> None:
    """Append the cards shown, then the mucks of players who showed nothing; RoomError for
    cards shown by someone not dealt in."""
    for name, shown in hand.shown.items():
        if name not in index:
            raise RoomError(f"{hand.where}: {name} shows cards but is not dealt in")
        events.append(CardsShown(name, shown))
    for name in sorted(hand.mucked):
        if name in index and name not in hand.shown:
            events.append(CardsMucked(name))
