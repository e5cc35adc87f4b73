"""Checking a table's decks from a channel log (``poki irc verify``).

A log is any text with one channel line per line: an IRC client's log (irssi, weechat,
a ZNC buffer), with timestamps and ``<nick>`` before the text, or the bare lines. Each
dealer line is found by its ``Hand <n>: `` start (docs/irc-dialect.md). For each hand
the checks are: a commitment was announced before the hand's first card; the revealed
line hashes to it (SHA-256); the revealed deck holds each card once; every card the log
shows (the board, hands shown down, the hole cards a player's own log holds) is the one
the deck puts there. Only the dealer's lines count (:func:`dealer_lines`): the nick
named, or else the one the log shows dealing, so nobody else's line can fail an honest
hand or pass a forged one. Pure functions: the caller reads the file.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from connectors.irc import dialect as d

__all__ = ["DeckCheck", "DeckWatch", "HandCheck", "dealer_lines", "speaker_of", "verify_lines"]

_DEALER_LINE = re.compile(r"(?:^|\s|>)(Hand [1-9][0-9]{0,15}: .*)$")
# Who said a line in a client's log: ``<nick>`` (irssi, HexChat, ZNC; a mode prefix such as
# ``@`` allowed) or weechat's tab-separated ``time<TAB>nick<TAB>text``, just before the text.
_SPEAKER = re.compile(r"(?:<[ @%+~&]?([^\s<>]{1,64})>|\t[@%+~&]?([^\s]{1,64})\t)\s*$")
MAX_LINE = 2048  # longer lines are no dealer's (a ten-seat start line is ~300 characters)


@dataclass
class HandCheck:
    hand: int
    seats: tuple[str, ...] = ()
    digest: str | None = None
    committed_first: bool = True  # the commitment came before any card of the hand
    revealed: d.DeckRevealed | None = None
    seen: list[tuple[str, tuple[int, ...], int]] = field(default_factory=list)  # (what, cards, deck position)
    problems: list[str] = field(default_factory=list)
    bad_reveal: str | None = None  # a reveal line of the hand that is not a deck of 52 distinct cards
    bad_reveal_why: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems and self.revealed is not None and self.digest is not None


@dataclass
class DeckCheck:
    hands: list[HandCheck]
    unverifiable: list[int]  # started hands with no reveal in the log (the log ends, ...)
    dealer: str | None = None  # whose lines were read (None: a log of bare lines, read whole)
    ignored: dict[str, int] = field(default_factory=dict)  # others who said hand lines: nick -> lines

    @property
    def verified(self) -> int:
        return sum(1 for h in self.hands if h.ok)

    @property
    def failed(self) -> list[HandCheck]:
        return [h for h in self.hands if h.problems]


def speaker_of(prefix: str) -> str | None:
    """The nick a log shows before a line's text (``prefix``: what comes before it), or
    None for a bare line."""
    m = _SPEAKER.search(prefix)
    return None if m is None else (m.group(1) or m.group(2))


def _hand_lines(lines: Iterable[str]) -> Iterable[tuple[str | None, str]]:
    """(speaker, dealer-like text) of each line that holds a hand line."""
    for raw in lines:
        if len(raw) > MAX_LINE:
            continue
        m = _DEALER_LINE.search(raw.rstrip("\r\n"))
        if m is not None:
            yield speaker_of(m.string[:m.start(1)]), m.group(1)


def dealer_lines(found: list[tuple[str | None, str]], dealer: str | None) -> tuple[str | None, dict[str, int],
                                                                                    list[str]]:
    """Which of a log's hand lines are the dealer's: (the dealer, the other speakers with
    their hand lines' count, the dealer's texts). ``dealer`` named: its lines only. Not
    named: the speaker of the most hand lines that follow the dialect (a log of bare
    lines, with no speaker, is taken whole)."""
    counts: dict[str, int] = {}
    for speaker, _ in found:
        if speaker is not None:
            counts[speaker] = counts.get(speaker, 0) + 1
    if dealer is None and counts:
        dealer = max(counts, key=lambda nick: (counts[nick], nick))
    if dealer is None:
        return None, {}, [text for _, text in found]
    key = dealer.lower()
    others = {nick: n for nick, n in counts.items() if nick.lower() != key}
    return dealer, others, [text for speaker, text in found if speaker is not None and speaker.lower() == key]


def verify_lines(lines: Iterable[str], dealer: str | None = None) -> DeckCheck:
    """Check every hand the dealer dealt in a channel log (``dealer``: its nick; None:
    the one the log shows dealing); see the module docstring."""
    hands: dict[int, HandCheck] = {}
    order: list[HandCheck] = []
    dealer, others, texts = dealer_lines(list(_hand_lines(lines)), dealer)
    for text in texts:
        try:
            msgs = d.parse_lines(text)  # one clause a line, or a step's clauses joined
        except d.DialectError as exc:
            _read_bad_reveal(text, str(exc), hands)
            continue  # else chatter that looks like a hand line, or another dialect's
        for msg in msgs:
            _read(msg, hands, order)
    unverifiable = []
    checked = []
    for h in order:
        if h.revealed is None and h.bad_reveal is None:
            unverifiable.append(h.hand)
            continue
        checked.append(h)
        if h.bad_reveal is not None:
            _fail_bad_reveal(h)
        if h.revealed is not None:
            _check_hand(h)
    return DeckCheck(checked, unverifiable, dealer, others)


_HAND_TEXT = re.compile(r"Hand ([1-9][0-9]{0,15}): (.*)$")


def _read_bad_reveal(text: str, why: str, hands: dict[int, HandCheck]) -> None:
    """A dealer line that did not parse: when it reveals a started hand's deck (a clause
    ``deck ...`` that is no commitment), that deck is not a deck of 52 distinct cards."""
    m = _HAND_TEXT.match(text)
    if m is None:
        return
    clauses = m.group(2).split("." + d.CLAUSE_SEPARATOR)
    if not any(c.startswith("deck ") and not c.startswith("deck commitment ") for c in clauses):
        return
    h = hands.get(int(m.group(1)))
    if h is None or h.bad_reveal is not None:
        return
    h.bad_reveal, h.bad_reveal_why = text, why


def _fail_bad_reveal(h: HandCheck) -> None:
    assert h.bad_reveal is not None
    committed = h.digest is not None and hashlib.sha256(h.bad_reveal.encode("utf-8")).hexdigest() == h.digest
    h.problems.append(f"the revealed deck is not a deck of 52 distinct cards ({h.bad_reveal_why[:80]})"
                      + ("; the dealer committed to that very line" if committed else ""))


class DeckWatch:
    """The checks of :func:`verify_lines`, hand by hand as one table's dealer messages
    come (the player bot checks every deck it is dealt from while it plays). Keeps the
    hands of the last ``keep`` starts: a hand whose deck is never revealed is forgotten.

    >>> watch = DeckWatch()
    >>> watch.read(d.parse_line("Hand 4: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 100, b 100.")) is None
    True
    """

    def __init__(self, keep: int = 8) -> None:
        self.hands: dict[int, HandCheck] = {}
        self.keep = keep

    def read(self, msg: d.Line) -> HandCheck | None:
        """Take one dealer message; the hand's finished check when ``msg`` reveals its deck."""
        started: list[HandCheck] = []
        _read(msg, self.hands, started)
        if started and len(self.hands) > self.keep:
            for number in sorted(self.hands)[:-self.keep]:
                del self.hands[number]
        if not isinstance(msg, d.DeckRevealed):
            return None
        h = self.hands.pop(msg.hand, None)
        if h is not None:
            _check_hand(h)
        return h


def _read(msg: d.Line, hands: dict[int, HandCheck], order: list[HandCheck]) -> None:
    """One clause of a dealer line, into its hand's check."""
    number = getattr(msg, "hand", None)
    if number is None:
        return
    if isinstance(msg, d.HandStarts):
        started = hands[number] = HandCheck(number, tuple(n for n, _ in msg.seats))
        order.append(started)
    elif isinstance(msg, d.DeckCommitment):
        h = hands.get(number)
        if h is None:
            return  # the log starts mid-hand
        if h.digest is not None and h.digest != msg.digest:
            h.problems.append("two different commitments")
        h.digest = msg.digest
        if h.seen:
            h.committed_first = False
            h.problems.append("the commitment came after cards were shown")
    elif isinstance(msg, d.DeckRevealed):
        h = hands.get(number)
        if h is None:
            return  # the log starts mid-hand
        h.revealed = msg
    elif isinstance(msg, (d.BoardCards, d.Shows, d.HoleCards)):
        h = hands.get(number)
        if h is None or h.revealed is not None:
            return
        if isinstance(msg, d.BoardCards):
            h.seen.append(("board", msg.board, -1))
        else:
            nick = msg.nick if isinstance(msg, d.Shows) else None
            h.seen.append(("shows" if nick else "hole", msg.cards, h.seats.index(nick) if nick in h.seats else -2))


def _check_hand(h: HandCheck) -> None:
    revealed = h.revealed
    assert revealed is not None
    if h.digest is None:
        h.problems.append("no commitment before the hand")
        return
    if d.deck_digest(h.hand, revealed.deck, revealed.salt) != h.digest:
        h.problems.append("the revealed deck does not match the commitment")
        return
    deck = revealed.deck
    seats = len(h.seats)
    if seats < 2:
        h.problems.append("no start line for the hand in the log")
        return
    board = deck[2 * seats: 2 * seats + 5]
    holes = [tuple(deck[2 * k: 2 * k + 2]) for k in range(seats)]
    for what, cards, seat in h.seen:
        if what == "board":
            if tuple(cards) != tuple(board[:len(cards)]):
                h.problems.append(f"the board {' '.join(d.CARD_NAMES[c] for c in cards)} is not the deck's")
        elif what == "shows":
            if seat < 0 or set(cards) != set(holes[seat]):
                h.problems.append(f"shown cards {' '.join(d.CARD_NAMES[c] for c in cards)} are not the deck's")
        elif set(cards) not in [set(x) for x in holes]:
            h.problems.append(f"hole cards {' '.join(d.CARD_NAMES[c] for c in cards)} are no seat's in the deck")
