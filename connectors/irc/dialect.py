"""Poki's IRC dealer dialect: every line a dealer bot says and every command a player
types, as typed messages, with one exact grammar each way. Pure functions, no I/O.

[poki-2002] describes Poki playing on IRC against "dedicated software" that dealt the games;
that dealer's wire format was never published, so this module defines one, written to
read naturally in an ordinary IRC client and to be parsed exactly by programs. The
grammar is documented for people in docs/irc-dialect.md; this module is its reference.
A second dealer's dialect would be one more module with the same four functions
(:func:`format_line`, :func:`parse_line`, :func:`format_command`, :func:`parse_command`).

Every dealer line of a hand starts ``Hand <n>: `` so a line can always be tied to its
hand; lines about the table (who sits, who leaves) start ``Table: ``. Hole cards go to
each player alone, by NOTICE, as a hand line naming the channel.

Anything that starts like a hand line but does not follow the grammar raises
:class:`DialectError` naming the line; the callers count and skip it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agent.game.rules import Action
from evaluator_pyx.cards import CARD_INDEX, CARD_NAMES

__all__ = [
    "Acted", "BlindPosted", "BoardCards", "Command", "DeckCommitment", "DeckRevealed", "DialectError", "HandEnds",
    "HandStarts", "HandVoid", "HoleCards", "LeftHand", "Line", "MAX_NICK", "Mucks",
    "Option", "Shows", "TableInfo", "TableLeave", "TableSit", "TableSitOut", "ToAct", "Wins",
    "format_command", "format_line", "format_lines", "format_move", "hand_id", "is_nick", "parse_command",
    "parse_line", "parse_lines", "parse_move", "turn_of", "CLAUSE_SEPARATOR", "MAX_LINE_TEXT",
    "REFUSALS", "SIT_OUT_ASKED", "STREETS", "action_of", "action_word", "is_hand_line",
    "is_table_opened", "leave_command", "looks_like_dealer", "DECK_SALT_HEX", "deck_digest", "dealer_conflict", "dealer_here", "format_options", "help_text", "is_dealer_here",
    "is_dealer_conflict", "is_seeded_table", "player_back", "seats_freed", "refusal", "seat_renamed",
    "session_over", "sit_command", "table_paused", "table_resumed", "stats_answer", "table_opened", "timed_out_reason", "timeout_word",
]

MAX_NICK = 16  # longer nicks are not seated: a ten-seat start line must fit one IRC line
MAX_LINE_TEXT = 400  # bytes of text a dealer line may hold (the server adds the prefix within 512)
CLAUSE_SEPARATOR = " | "  # between the clauses of one hand line: never inside a clause


class DialectError(ValueError):
    """A line that does not follow the dialect; the message quotes it and says why."""


# --- messages ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarts:
    hand: int
    button: str
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    cap: int  # bets a round, the big blind counting as the first pre-flop
    seats: tuple[tuple[str, int], ...]  # (nick, chips) clockwise


@dataclass(frozen=True, slots=True)
class BlindPosted:
    hand: int
    nick: str
    big: bool
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class Option:
    kind: str  # fold, check, call, bet, raise
    amount: int | None = None  # chips to call / to bet; the total bet for a raise


@dataclass(frozen=True, slots=True)
class ToAct:
    hand: int
    nick: str
    options: tuple[Option, ...]
    pot: int
    seconds: int  # time left to act

    def option(self, kind: str) -> Option | None:
        for o in self.options:
            if o.kind == kind:
                return o
        return None


@dataclass(frozen=True, slots=True)
class Acted:
    hand: int
    nick: str
    kind: str  # f k c b r (agent.game.records kinds)
    amount: int | None = None  # c: chips called; b: chips bet; r: the total bet ("raises to")
    all_in: bool = False
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class LeftHand:
    hand: int
    nick: str


@dataclass(frozen=True, slots=True)
class BoardCards:
    hand: int
    street: str  # flop, turn, river
    cards: tuple[int, ...]  # the new cards
    board: tuple[int, ...]  # the whole board afterwards


@dataclass(frozen=True, slots=True)
class Shows:
    hand: int
    nick: str
    cards: tuple[int, int]
    description: str | None = None  # for people; programs evaluate the cards themselves


@dataclass(frozen=True, slots=True)
class Mucks:
    hand: int
    nick: str


@dataclass(frozen=True, slots=True)
class Wins:
    hand: int
    nick: str
    amount: int  # chips taken from the pot(s)


@dataclass(frozen=True, slots=True)
class HandEnds:
    hand: int
    stacks: tuple[tuple[str, int], ...]  # every seat of the hand, chips after it


@dataclass(frozen=True, slots=True)
class HandVoid:
    hand: int  # interrupted: nothing of it counts, every stack is as it was before it


@dataclass(frozen=True, slots=True)
class DeckCommitment:
    hand: int
    digest: str  # SHA-256 (64 lower-case hex digits) of the hand's DeckRevealed line


@dataclass(frozen=True, slots=True)
class DeckRevealed:
    hand: int
    deck: tuple[int, ...]  # all 52 cards in dealing order
    salt: str  # the secret mixed into the commitment (32 lower-case hex digits)


@dataclass(frozen=True, slots=True)
class HoleCards:
    hand: int
    channel: str
    cards: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TableSit:
    nick: str
    chips: int
    bankroll: int  # left off the table


@dataclass(frozen=True, slots=True)
class TableLeave:
    nick: str
    chips: int
    bankroll: int


@dataclass(frozen=True, slots=True)
class TableSitOut:
    nick: str
    reason: str  # free text


@dataclass(frozen=True, slots=True)
class TableInfo:
    text: str  # any other table line, for people


Line = (HandStarts | BlindPosted | ToAct | Acted | LeftHand | BoardCards | Shows | Mucks | Wins
        | HandEnds | HandVoid | HoleCards | TableSit | TableLeave | TableSitOut | TableInfo
        | DeckCommitment | DeckRevealed)


@dataclass(frozen=True, slots=True)
class Command:
    """What a player types: an action (fold check call bet raise) or a table command
    (sit leave stand stats help); ``amount`` only for ``!sit <chips>``."""

    name: str
    amount: int | None = None


ACTIONS = ("fold", "check", "call", "bet", "raise")
TABLE_COMMANDS = ("sit", "leave", "stand", "stats", "help")

# --- pieces of the grammar -----------------------------------------------------------------

_NICK = r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}\-]*"
_NICK_RE = re.compile(_NICK)
_NUM = r"(0|[1-9][0-9]{0,11})"
_CARD = r"[2-9TJQKA][cdhs]"
_CHANNEL_RE = re.compile(r"[#&][^\s,\x07]{1,49}")
_STREET_CARDS = {"flop": 3, "turn": 1, "river": 1}
_HAND_RE = re.compile(r"Hand ([1-9][0-9]{0,15}): (.*)")
_KIND_WORD = {"f": "folds", "k": "checks", "c": "calls", "b": "bets", "r": "raises to"}


def hand_id(channel: str, number: int) -> str:
    """The stable id both bots store hand ``number`` of table ``channel`` under."""
    return f"irc:{channel.lower()}:{number}"


def is_nick(text: str) -> bool:
    """A nick the dialect can seat: IRC nick characters, at most MAX_NICK long."""
    return isinstance(text, str) and len(text) <= MAX_NICK and _NICK_RE.fullmatch(text) is not None


def _nick(nick: str) -> str:
    if not is_nick(nick):
        raise DialectError(f"not a nick the dialect can carry: {nick!r}")
    return nick


def _amount(value: int, what: str) -> str:
    if type(value) is not int or value < 0:
        raise DialectError(f"{what} must be a whole number of chips, got {value!r}")
    return str(value)


def _cards(cards: tuple[int, ...], count: int | None, what: str) -> str:
    if count is not None and len(cards) != count:
        raise DialectError(f"{what} needs {count} cards, got {len(cards)}")
    try:
        return " ".join(CARD_NAMES[c] for c in cards)
    except (IndexError, TypeError):
        raise DialectError(f"{what}: not cards: {cards!r}") from None


def _seats(seats: tuple[tuple[str, int], ...]) -> str:
    if not seats:
        raise DialectError("a seat list needs at least one seat")
    return ", ".join(f"{_nick(n)} {_amount(c, 'chips')}" for n, c in seats)


def _options(options: tuple[Option, ...]) -> str:
    words = []
    for o in options:
        if o.kind in ("fold", "check"):
            if o.amount is not None:
                raise DialectError(f"{o.kind} takes no amount")
            words.append(o.kind)
        elif o.kind in ("call", "bet"):
            words.append(f"{o.kind} {_amount(o.amount, o.kind)}")  # type: ignore[arg-type]  # call, bet and raise carry an amount
        elif o.kind == "raise":
            words.append(f"raise to {_amount(o.amount, 'raise')}")  # type: ignore[arg-type]  # call, bet and raise carry an amount
        else:
            raise DialectError(f"unknown option {o.kind!r}")
    if not words:
        raise DialectError("a player to act needs at least one option")
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


# --- format -------------------------------------------------------------------------------


def format_line(msg: Line) -> str:
    """The line a dealer says for ``msg`` (no trailing newline). Raises DialectError for
    a message the grammar cannot carry (bad nick, negative chips, wrong card count)."""
    if isinstance(msg, (TableSit, TableLeave, TableSitOut, TableInfo)):
        return "Table: " + _table_body(msg)
    hand = getattr(msg, "hand", None)
    if type(hand) is not int or hand < 1:
        raise DialectError(f"hand number must be a positive whole number, got {hand!r}")
    return f"Hand {hand}: {_hand_body(msg)}"


def format_lines(msgs: Iterable[Line], limit: int = MAX_LINE_TEXT) -> list[str]:
    """The lines a dealer says for ``msgs``, in order, in as few lines as fit ``limit``
    bytes: consecutive messages of one hand share a line, one clause each, joined by
    :data:`CLAUSE_SEPARATOR` (``Hand 3: alice raises to 20. | bob to act: ...``). A turn
    ends its line; table lines and hole cards stand alone.

    >>> format_lines([Acted(3, "alice", "r", 20), Acted(3, "bob", "f")])
    ['Hand 3: alice raises to 20. | bob folds.']
    """
    out: list[str] = []
    hand = None  # the hand of the line being filled, None when it cannot take more
    for msg in msgs:
        line = format_line(msg)
        number = getattr(msg, "hand", None)
        if isinstance(msg, (TableSit, TableLeave, TableSitOut, TableInfo, HoleCards)):
            out.append(line)
            hand = None
            continue
        clause = line[line.index(": ") + 2:]
        if hand == number and len((out[-1] + CLAUSE_SEPARATOR + clause).encode("utf-8")) <= limit:
            out[-1] += CLAUSE_SEPARATOR + clause
        else:
            out.append(line)
            hand = number
        if isinstance(msg, ToAct):
            hand = None  # a turn ends its line: what follows it is the player's answer
    return out


def parse_lines(line: str) -> tuple[Line, ...]:
    """Every message a dealer line carries, in order: one for a line of one clause, more
    for a hand line of several (:func:`format_lines`). DialectError as
    :func:`parse_line` for any clause that does not follow the grammar.

    >>> [type(m).__name__ for m in parse_lines("Hand 3: alice raises to 20. | bob folds.")]
    ['Acted', 'Acted']
    """
    if not isinstance(line, str):
        raise DialectError(f"a line must be text, got {type(line).__name__}")
    text = line.rstrip("\r\n")
    joint = "." + CLAUSE_SEPARATOR
    if joint not in text or not text.startswith("Hand "):
        return (parse_line(text),)
    m = _HAND_RE.fullmatch(text)
    if m is None:
        raise _bad(text, "a hand line needs 'Hand <number>: ' first")
    prefix = f"Hand {m.group(1)}: "
    clauses = m.group(2).split(joint)
    if len(clauses) > 64:
        raise _bad(text[:120], "too many clauses")
    msgs = []
    for k, clause in enumerate(clauses):
        msg = parse_line(prefix + clause + ("." if k < len(clauses) - 1 else ""))
        if isinstance(msg, HoleCards):
            raise _bad(text, "hole cards never share a line")
        msgs.append(msg)
    return tuple(msgs)


def _table_body(msg: Line) -> str:
    if isinstance(msg, TableSit):
        return (f"{_nick(msg.nick)} sits with {_amount(msg.chips, 'chips')} chips "
                f"(bankroll {_amount(msg.bankroll, 'bankroll')}).")
    if isinstance(msg, TableLeave):
        return (f"{_nick(msg.nick)} leaves with {_amount(msg.chips, 'chips')} chips "
                f"(bankroll {_amount(msg.bankroll, 'bankroll')}).")
    if isinstance(msg, TableSitOut):
        reason = _free_text(msg.reason)
        return f"{_nick(msg.nick)} sits out ({reason})." if reason else f"{_nick(msg.nick)} sits out."
    assert isinstance(msg, TableInfo)
    return _free_text(msg.text)


def _one_line(text: str) -> bool:
    """No line break or NUL inside: what free text may hold, said or read."""
    return "\r" not in text and "\n" not in text and "\0" not in text


def _free_text(text: str) -> str:
    if not isinstance(text, str) or not _one_line(text):
        raise DialectError(f"free text must be one line, got {text!r}")
    return text


def _hand_body(msg: Line) -> str:
    if isinstance(msg, HandStarts):
        return _start_body(msg)
    if isinstance(msg, BlindPosted):
        which = "big" if msg.big else "small"
        tail = " (all-in)" if msg.all_in else ""
        return f"{_nick(msg.nick)} posts the {which} blind, {_amount(msg.amount, 'blind')}{tail}."
    if isinstance(msg, ToAct):
        return (f"{_nick(msg.nick)} to act: {_options(msg.options)}; pot {_amount(msg.pot, 'pot')} "
                f"({_amount(msg.seconds, 'seconds')}s).")
    if isinstance(msg, Acted):
        return _acted_body(msg)
    if isinstance(msg, LeftHand):
        return f"{_nick(msg.nick)} leaves the hand."
    if isinstance(msg, BoardCards):
        return _board_body(msg)
    if isinstance(msg, Shows):
        text = f"{_nick(msg.nick)} shows {_cards(msg.cards, 2, 'shown cards')}"
        if msg.description:
            if not re.fullmatch(r"[a-z ,\-]+", msg.description):
                raise DialectError(f"hand description {msg.description!r}: lower-case words only")
            text += f" ({msg.description})"
        return text + "."
    if isinstance(msg, Mucks):
        return f"{_nick(msg.nick)} mucks."
    if isinstance(msg, Wins):
        return f"{_nick(msg.nick)} wins {_amount(msg.amount, 'winnings')}."
    if isinstance(msg, HandEnds):
        return f"ends. Stacks: {_seats(msg.stacks)}."
    if isinstance(msg, HandVoid):
        return "void, chips restored."
    if isinstance(msg, (DeckCommitment, DeckRevealed)):
        return _deck_body(msg)
    if isinstance(msg, HoleCards):
        if not _CHANNEL_RE.fullmatch(msg.channel or ""):
            raise DialectError(f"not a channel: {msg.channel!r}")
        return f"your cards at {msg.channel}: {_cards(msg.cards, 2, 'hole cards')}."
    raise DialectError(f"not a dialect message: {msg!r}")


def _start_body(msg: HandStarts) -> str:
    for what in ("small_blind", "big_blind", "small_bet", "big_bet", "cap"):
        _amount(getattr(msg, what), what)
    names = [n for n, _ in msg.seats]
    if msg.button not in names:
        raise DialectError(f"button {msg.button!r} is not seated")
    return (f"starts. Button {_nick(msg.button)}. Blinds {msg.small_blind}/{msg.big_blind}, "
            f"bets {msg.small_bet}/{msg.big_bet}, cap {msg.cap}. Seats: {_seats(msg.seats)}.")


def _acted_body(msg: Acted) -> str:
    word = _KIND_WORD.get(msg.kind)
    if word is None:
        raise DialectError(f"unknown action kind {msg.kind!r}")
    text = f"{_nick(msg.nick)} {word}"
    if msg.kind in ("f", "k"):
        if msg.amount is not None:
            raise DialectError(f"{word} takes no amount")
    else:
        text += " " + _amount(msg.amount, word)  # type: ignore[arg-type]  # call, bet and raise carry an amount
    if msg.all_in:
        text += " (all-in)"
    if msg.timed_out:
        text += " (time-out)"
    return text + "."


def _board_body(msg: BoardCards) -> str:
    need = _STREET_CARDS.get(msg.street)
    if need is None:
        raise DialectError(f"unknown street {msg.street!r}")
    new = _cards(msg.cards, need, msg.street)
    if msg.street == "flop":
        if tuple(msg.board) != tuple(msg.cards):
            raise DialectError("the board after the flop is the flop")
        return f"flop {new}."
    size = 4 if msg.street == "turn" else 5
    board = _cards(msg.board, size, "board")
    if tuple(msg.board[-1:]) != tuple(msg.cards):
        raise DialectError(f"the {msg.street} card must end the board")
    return f"{msg.street} {new} (board {board})."


def format_command(cmd: Command) -> str:
    """What a player types for ``cmd``: ``call`` or ``!sit 500``."""
    if cmd.name in ACTIONS:
        if cmd.amount is not None:
            raise DialectError(f"{cmd.name} takes no amount (limit poker: the bet size is fixed)")
        return cmd.name
    if cmd.name in TABLE_COMMANDS:
        if cmd.amount is None:
            return "!" + cmd.name
        if cmd.name != "sit":
            raise DialectError(f"!{cmd.name} takes no amount")
        return f"!sit {_amount(cmd.amount, 'buy-in')}"
    raise DialectError(f"unknown command {cmd.name!r}")


# --- parse --------------------------------------------------------------------------------

_N = _NUM
_START_RE = re.compile(
    rf"starts\. Button ({_NICK})\. Blinds {_N}/{_N}, bets {_N}/{_N}, cap {_N}\. Seats: (.+)\.")
_SEAT_RE = re.compile(rf"({_NICK}) {_N}")
_BLIND_RE = re.compile(rf"({_NICK}) posts the (small|big) blind, {_N}( \(all-in\))?\.")
_TO_ACT_RE = re.compile(rf"({_NICK}) to act: (.+); pot {_N} \({_N}s\)\.")
_OPTION_RE = re.compile(rf"(fold|check|call {_N}|bet {_N}|raise to {_N})")
_ACTED_RE = re.compile(
    rf"({_NICK}) (folds|checks|calls {_N}|bets {_N}|raises to {_N})( \(all-in\))?( \(time-out\))?\.")
_LEFT_RE = re.compile(rf"({_NICK}) leaves the hand\.")
_FLOP_RE = re.compile(rf"flop ({_CARD}) ({_CARD}) ({_CARD})\.")
_LATER_RE = re.compile(rf"(turn|river) ({_CARD}) \(board ((?:{_CARD} ){{3,4}}{_CARD})\)\.")
_SHOWS_RE = re.compile(rf"({_NICK}) shows ({_CARD}) ({_CARD})(?: \(([a-z ,\-]+)\))?\.")
_MUCKS_RE = re.compile(rf"({_NICK}) mucks\.")
_WINS_RE = re.compile(rf"({_NICK}) wins {_N}\.")
_ENDS_RE = re.compile(r"ends\. Stacks: (.+)\.")
_VOID_RE = re.compile(r"void, chips restored\.")
_HOLE_RE = re.compile(rf"your cards at ([#&][^\s,\x07]{{1,49}}): ({_CARD}) ({_CARD})\.")
_SIT_RE = re.compile(rf"({_NICK}) sits with {_N} chips \(bankroll {_N}\)\.")
_LEAVE_RE = re.compile(rf"({_NICK}) leaves with {_N} chips \(bankroll {_N}\)\.")
_SITOUT_RE = re.compile(rf"({_NICK}) sits out(?: \((.+)\))?\.")


def _bad(line: str, why: str) -> DialectError:
    shown = line if len(line) <= 120 else line[:117] + "..."
    return DialectError(f"{why}: {shown!r}")


def _card_tuple(names: list[str], line: str) -> tuple[int, ...]:
    cards = tuple(CARD_INDEX[n] for n in names)
    if len(set(cards)) != len(cards):
        raise _bad(line, "a card appears twice")
    return cards


def _seat_list(text: str, line: str) -> tuple[tuple[str, int], ...]:
    seats = []
    for part in text.split(", "):
        m = _SEAT_RE.fullmatch(part)
        if m is None:
            raise _bad(line, f"not a seat ({part!r}; expected 'nick chips')")
        if len(m.group(1)) > MAX_NICK:
            raise _bad(line, f"nick {m.group(1)!r} longer than {MAX_NICK}")
        seats.append((m.group(1), int(m.group(2))))
    if len({n for n, _ in seats}) != len(seats):
        raise _bad(line, "a nick is seated twice")
    return tuple(seats)


def parse_line(line: str) -> Line:
    """The message a dealer line carries. ``Hand <n>:`` lines must follow the grammar
    exactly (DialectError otherwise); ``Table:`` lines of no known form are TableInfo;
    anything else is not a dealer line (DialectError)."""
    if not isinstance(line, str):
        raise DialectError(f"a line must be text, got {type(line).__name__}")
    text = line.rstrip("\r\n")
    if text.startswith("Table: "):
        return _parse_table_line(text)
    m = _HAND_RE.fullmatch(text)
    if m is None:
        if text.startswith("Hand "):
            raise _bad(text, "a hand line needs 'Hand <number>: ' first")
        raise _bad(text, "not a dealer line (neither 'Hand <n>: ' nor 'Table: ')")
    hand = int(m.group(1))
    body = m.group(2)
    if body.startswith("starts."):
        return _parse_start(hand, body, text)
    if body.startswith("flop "):
        s = _FLOP_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed flop")
        cards = _card_tuple([s.group(1), s.group(2), s.group(3)], text)
        return BoardCards(hand, "flop", cards, cards)
    if body.startswith(("turn ", "river ")):
        return _parse_later_street(hand, body, text)
    if body.startswith("ends."):
        s = _ENDS_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed hand end")
        return HandEnds(hand, _seat_list(s.group(1), text))
    if body.startswith("deck "):
        return _parse_deck(hand, body, text)
    if body.startswith("void"):
        if _VOID_RE.fullmatch(body) is None:
            raise _bad(text, "malformed void")
        return HandVoid(hand)
    if body.startswith("your cards"):
        s = _HOLE_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed hole cards")
        cards = _card_tuple([s.group(2), s.group(3)], text)
        return HoleCards(hand, s.group(1), cards)  # type: ignore[arg-type]  # two cards, checked by the pattern
    return _parse_nick_line(hand, body, text)


def _parse_table_line(text: str) -> Line:
    """A ``Table: `` line: a seat taken, left or sat out, else free text (TableInfo)."""
    body = text[7:]
    if not _one_line(body):
        # Read only what could be said back: a dealer never says a break inside a line.
        raise _bad(text, "free text must be one line (a line break or NUL inside)")
    for regex, cls in ((_SIT_RE, TableSit), (_LEAVE_RE, TableLeave)):
        m = regex.fullmatch(body)
        if m:
            return cls(m.group(1), int(m.group(2)), int(m.group(3)))
    m = _SITOUT_RE.fullmatch(body)
    if m:
        return TableSitOut(m.group(1), m.group(2) or "")
    return TableInfo(body)


def _parse_start(hand: int, body: str, text: str) -> HandStarts:
    s = _START_RE.fullmatch(body)
    if s is None:
        raise _bad(text, "malformed hand start")
    seats = _seat_list(s.group(7), text)
    button = s.group(1)
    if button not in {n for n, _ in seats}:
        raise _bad(text, f"button {button!r} is not seated")
    sb, bb, small, big, cap = (int(s.group(k)) for k in range(2, 7))
    if not (0 < sb <= bb and small > 0 and big > 0 and cap > 0 and len(seats) >= 2):
        raise _bad(text, "blinds, bets, cap or seat count out of range")
    return HandStarts(hand, button, sb, bb, small, big, cap, seats)


def _parse_later_street(hand: int, body: str, text: str) -> BoardCards:
    """A turn or river line: its card, which must end the board it gives."""
    s = _LATER_RE.fullmatch(body)
    if s is None:
        raise _bad(text, f"malformed {body.split()[0]}")
    street = s.group(1)
    board = _card_tuple(s.group(3).split(), text)
    if len(board) != (4 if street == "turn" else 5):
        raise _bad(text, f"the board after the {street} has {len(board)} cards")
    card = CARD_INDEX[s.group(2)]
    if board[-1] != card:
        raise _bad(text, f"the {street} card does not end the board")
    return BoardCards(hand, street, (card,), board)


def _parse_nick_line(hand: int, body: str, text: str) -> Line:
    """The hand lines that begin with a nick: blinds, turns, shows, actions and the rest."""
    nick_match = _NICK_RE.match(body)
    if nick_match is None:
        raise _bad(text, "unknown hand line")
    nick = nick_match.group(0)
    if len(nick) > MAX_NICK:
        raise _bad(text, f"nick {nick!r} longer than {MAX_NICK}")
    rest = body[nick_match.end():]
    if rest.startswith(" posts "):
        s = _BLIND_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed blind")
        return BlindPosted(hand, nick, s.group(2) == "big", int(s.group(3)), s.group(4) is not None)
    if rest.startswith(" to act: "):
        s = _TO_ACT_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed turn to act")
        return ToAct(hand, nick, _parse_options(s.group(2), text), int(s.group(3)), int(s.group(4)))
    if rest.startswith(" shows "):
        s = _SHOWS_RE.fullmatch(body)
        if s is None:
            raise _bad(text, "malformed show")
        cards = _card_tuple([s.group(2), s.group(3)], text)
        return Shows(hand, nick, cards, s.group(4))  # type: ignore[arg-type]  # two cards, checked by the pattern
    if rest.startswith(_ACTED_WORDS):  # the commonest lines first
        return _acted(hand, nick, body, text)
    for regex, build in (
        (_LEFT_RE, lambda s: LeftHand(hand, nick)),
        (_MUCKS_RE, lambda s: Mucks(hand, nick)),
        (_WINS_RE, lambda s: Wins(hand, nick, int(s.group(2)))),
    ):
        s = regex.fullmatch(body)
        if s is not None:
            return build(s)
    raise _bad(text, "unknown hand line")


_ACTED_WORDS = (" folds", " checks", " calls ", " bets ", " raises to ")
_ACTED_KIND = {"folds": "f", "checks": "k", "calls": "c", "bets": "b", "raises": "r"}


def _acted(hand: int, nick: str, body: str, text: str) -> Acted:
    s = _ACTED_RE.fullmatch(body)
    if s is None:
        raise _bad(text, "unknown hand line")
    word = s.group(2)
    kind = _ACTED_KIND[word.split(" ", 1)[0]]
    amount = None if kind in ("f", "k") else int(word.rsplit(" ", 1)[1])
    all_in = s.group(6) is not None
    timed_out = s.group(7) is not None
    if timed_out and kind not in ("f", "k"):
        raise _bad(text, "a time-out only checks or folds")
    return Acted(hand, nick, kind, amount, all_in, timed_out)


def turn_of(line: str) -> str | None:
    """The nick a turn line (``Hand <n>: <nick> to act: ...``) names, found without
    parsing the rest (None for any other line). A reader that only answers its own turns
    skips everyone else's with it; its own it still parses with :func:`parse_line`."""
    parts = line.split(" ", 5)
    if len(parts) == 6 and parts[0] == "Hand" and parts[3] == "to" and parts[4] == "act:":
        return parts[2]
    return None


def _parse_options(text: str, line: str) -> tuple[Option, ...]:
    head, sep, last = text.rpartition(" or ")
    parts = (head.split(", ") + [last]) if sep else [text]
    options: list[Option] = []
    for part in parts:
        m = _OPTION_RE.fullmatch(part)
        if m is None:
            raise _bad(line, f"unknown option {part!r}")
        words = part.split()
        kind = words[0]
        amount = int(words[-1]) if len(words) > 1 else None
        if any(o.kind == kind for o in options):
            raise _bad(line, f"option {kind} given twice")
        options.append(Option(kind, amount))
    kinds = {o.kind for o in options}
    if ("check" in kinds and "call" in kinds) or ("bet" in kinds and "raise" in kinds):
        raise _bad(line, "check with call, or bet with raise, cannot both be open")
    return tuple(options)


def format_move(action: str, channel: str) -> str:
    """A move said to the dealer alone (a private message): ``call #holdem``."""
    if action not in ACTIONS:
        raise DialectError(f"not a move: {action!r} (moves: {', '.join(ACTIONS)})")
    if not _CHANNEL_RE.fullmatch(channel or ""):
        raise DialectError(f"not a channel: {channel!r}")
    return f"{action} {channel}"


def parse_move(text: str) -> tuple[str, str] | None:
    """(move, channel) for a private message that is exactly a move word and a table's
    channel, such as ``call #holdem`` (case of the word does not matter); None for
    anything else."""
    if not isinstance(text, str):
        raise DialectError(f"a move must be text, got {type(text).__name__}")
    word, sep, channel = text.strip().partition(" ")
    word = word.lower()
    if not sep or word not in ACTIONS or not _CHANNEL_RE.fullmatch(channel):
        return None
    return word, channel


_COMMAND_RE = re.compile(r"\s*(!?)([A-Za-z]+)(?:\s+(to\s+)?([0-9]{1,12}))?\s*")


def _not_command(word: str) -> Command:
    raise DialectError(f"!{word} takes no 'to'")


def parse_command(text: str) -> Command | None:
    """What a player typed: a Command, or None for chatter (anything that is not exactly
    an action word or a ``!`` command). Case does not matter. A ``!`` word that is not a
    command, or an amount where none belongs, is a DialectError (the dealer answers it)."""
    if not isinstance(text, str):
        raise DialectError(f"a command must be text, got {type(text).__name__}")
    m = _COMMAND_RE.fullmatch(text)
    if m is None:
        if text.lstrip().startswith("!"):
            raise DialectError(f"not a command: {text.strip()[:40]!r} (try !help)")
        return None
    bang, word, amount = m.group(1), m.group(2).lower(), m.group(4)
    if m.group(3) and (bang or word != "raise"):
        return None if not bang else _not_command(word)
    if not bang:
        if word in ACTIONS and amount is None:
            return Command(word)
        if word in ("call", "bet", "raise"):
            # ``raise to 60`` as the turn line offers it: the dealer takes it when the
            # amount is the one offered (limit poker: there is no other).
            return Command(word, int(amount))
        if word in ACTIONS:
            raise DialectError(f"{word} takes no amount")
        return None
    if word not in TABLE_COMMANDS:
        raise DialectError(f"unknown command !{word} (commands: {', '.join('!' + c for c in TABLE_COMMANDS)})")
    if amount is not None and word != "sit":
        raise DialectError(f"!{word} takes no amount")
    return Command(word, None if amount is None else int(amount))


# --- the dealer's words to people, and the words the player bot types ------------------------
# Every string either side of the table says lives here: the dealer bot
# (agent.play.irc.table) and the player bot (agent.play.irc.player) only choose which.

def help_text(dealer: str) -> str:
    """The answer to ``!help``: all a person needs to play, in one notice (no document
    to look up)."""
    return (f"Limit hold'em. !sit [chips] takes a seat from your bankroll, !stand sits out (!sit: back), "
            f"!leave takes your chips after the hand, !stats: your bankroll (to you only). Cards, refusals and "
            f"answers come by notice. On your turn type a move the table offers here (fold, check, call, bet, "
            f"raise, or its amount: raise to 40) or privately: /msg {dealer} call <channel>.")


STREETS = {3: "flop", 4: "turn", 5: "river"}  # the street a board of that many cards completes
_OPENING = "dealing limit hold'em"
_MOVE_ACTION = {"fold": Action.FOLD, "check": Action.CHECK_CALL, "call": Action.CHECK_CALL,
                "bet": Action.BET_RAISE, "raise": Action.BET_RAISE}
# The dealer's answers (by NOTICE) to what cannot be done; filled in by :func:`refusal`.
REFUSALS = {
    "no_table": "no table at {channel}",
    "in_channel": "say that in the table's channel",
    "not_seated": "{channel}: you are not seated",
    "seated_already": "{channel}: you are seated already, with {chips} chips",
    "long_nick": "{channel}: nicks of at most {max_nick} IRC nick characters can sit",
    "nick_taken": "{channel}: that nick's seat belongs to another connection",
    "table_full": "{channel}: the table is full ({seats} seats)",
    "bad_command": "{channel}: {reason}",
    "bank": "{channel}: {reason}",
    "removed": "{channel}: the table's owner removed you from this table for this session",
    "cannot_check": "{channel}: hand {hand}: you cannot check, {to_call} to call",
    "cannot_fold": "{channel}: hand {hand}: nothing to call, check for free",
    "cannot_raise": "{channel}: hand {hand}: no raise possible now (cap reached or nobody can call)",
    "not_your_turn": "{channel}: hand {hand}: not your turn, {nick} is to act",
    "no_hand": "{channel}: no hand in progress",
    "wrong_amount": "{channel}: hand {hand}: {word} is {amount} now ({options})",
}
SIT_OUT_ASKED = "by request"


def refusal(kind: str, **facts: object) -> str:
    """The dealer's notice for a refusal of ``kind`` (a key of REFUSALS)."""
    return REFUSALS[kind].format(max_nick=MAX_NICK, **facts)


def table_opened(small_bet: int, big_bet: int, seeded: bool = False) -> TableInfo:
    """What the dealer says when it opens a table (the player bot takes a seat on it);
    a table dealing from a seed (tests, demos) says so."""
    seeded_text = _SEEDED if seeded else ""
    return TableInfo(f"{_OPENING} {small_bet}/{big_bet}{seeded_text}. Type !sit to play, !help for help.")


def is_table_opened(msg: Line) -> bool:
    return isinstance(msg, TableInfo) and msg.text.startswith(_OPENING)


def seats_freed(nicks: list[str]) -> TableInfo:
    """What a dealer says on opening a table where people sat when its last session ended."""
    shown = ", ".join(nicks[:10]) + (f" and {len(nicks) - 10} more" if len(nicks) > 10 else "")
    return TableInfo(f"{shown}: the dealer restarted, your chips are back in your bankroll; !sit to play again.")


def player_back(nick: str) -> TableInfo:
    return TableInfo(f"{nick} is back.")


def seat_renamed(old: str, new: str) -> TableInfo:
    return TableInfo(f"{old} is now {new}; the seat and chips follow.")


def session_over(hands: int) -> TableInfo:
    return TableInfo(f"the session is over after {hands} hands.")


def table_paused() -> TableInfo:
    """The owner paused the dealer: no hand starts until it resumes."""
    return TableInfo("paused by the dealer's owner: no new hand until it resumes.")


def table_resumed() -> TableInfo:
    return TableInfo("the dealer's owner resumed the table.")


def timed_out_reason(timeouts: int) -> str:
    """Why a player is sat out after time-outs (TableSitOut's reason)."""
    return f"{timeouts} time-outs in a row; !sit to come back"


def stats_answer(nick: str, bankroll: int | None, seated: list[tuple[str, int]]) -> str:
    """The answer to ``!stats``: the bankroll and the chips at each table."""
    text = f"{nick}: bankroll {bankroll if bankroll is not None else 'none yet'}"
    if seated:
        text += "; at the tables: " + ", ".join(f"{channel} {chips}" for channel, chips in seated)
    return text


def looks_like_dealer(text: str) -> bool:
    """A line shaped like the dealer's (a hand or table line), whoever said it."""
    return text.startswith(("Hand ", "Table: "))


def is_hand_line(text: str) -> bool:
    return text.startswith("Hand ")


def sit_command() -> str:
    """What a player types to take a seat."""
    return format_command(Command("sit"))


def leave_command() -> str:
    """What a player types to leave the table with its chips."""
    return format_command(Command("leave"))


def action_of(word: str) -> Action:
    """The game's action for a move word (``check`` and ``call`` are one action)."""
    return _MOVE_ACTION[word]


def action_word(action: Action, to_act: ToAct) -> str:
    """What to type for ``action`` given the options the dealer listed."""
    if action == Action.FOLD:
        return "fold"
    if action == Action.CHECK_CALL:
        return "check" if to_act.option("check") is not None else "call"
    return "bet" if to_act.option("bet") is not None else "raise"


def timeout_word(to_act: ToAct) -> str:
    """What a time-out would make of the turn (check when free, else fold): what a player
    that lost its view of the hand answers at once."""
    return "check" if to_act.option("check") is not None else "fold"


# --- the deck's commitment (docs/irc-dialect.md, "A verifiable deck") -----------------------
# At a hand's start the dealer says ``Hand <n>: deck commitment <sha-256 hex>.``; once the
# hand is over (ended or void) it says ``Hand <n>: deck <52 cards>, salt <hex>.``, and the
# commitment is the SHA-256 of exactly that reveal line (UTF-8). The secret salt keeps the
# commitment from giving the deck away; the hand number in the line ties it to its hand.

DECK_SALT_HEX = 32  # hex digits of salt: 128 secret bits
_COMMIT_RE = re.compile(r"deck commitment ([0-9a-f]{64})\.")
_REVEAL_RE = re.compile(rf"deck ((?:{_CARD} ){{51}}{_CARD}), salt ([0-9a-f]{{{DECK_SALT_HEX}}})\.")


def _deck_body(msg: DeckCommitment | DeckRevealed) -> str:
    if isinstance(msg, DeckCommitment):
        if not re.fullmatch(r"[0-9a-f]{64}", msg.digest or ""):
            raise DialectError(f"a deck commitment is 64 lower-case hex digits, got {msg.digest!r}")
        return f"deck commitment {msg.digest}."
    if len(set(msg.deck)) != 52:
        raise DialectError("a revealed deck holds each of the 52 cards once")
    if not re.fullmatch(rf"[0-9a-f]{{{DECK_SALT_HEX}}}", msg.salt or ""):
        raise DialectError(f"a deck's salt is {DECK_SALT_HEX} lower-case hex digits, got {msg.salt!r}")
    return f"deck {_cards(msg.deck, 52, 'deck')}, salt {msg.salt}."


def _parse_deck(hand: int, body: str, text: str) -> DeckCommitment | DeckRevealed:
    m = _COMMIT_RE.fullmatch(body)
    if m is not None:
        return DeckCommitment(hand, m.group(1))
    m = _REVEAL_RE.fullmatch(body)
    if m is None:
        raise _bad(text, "malformed deck line")
    deck = _card_tuple(m.group(1).split(), text)
    return DeckRevealed(hand, deck, m.group(2))


def deck_digest(hand: int, deck: tuple[int, ...], salt: str) -> str:
    """The commitment to ``deck`` for hand ``hand``: SHA-256 of its reveal line."""
    import hashlib

    line = format_line(DeckRevealed(hand, tuple(deck), salt))
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


_SEEDED = " (seeded deck, for tests and demos only)"
_CONFLICT = "another dealer deals here"


def is_seeded_table(msg: Line) -> bool:
    """A table-opened line saying the deck comes from a seed, not from entropy."""
    return is_table_opened(msg) and _SEEDED in msg.text  # type: ignore[union-attr]  # a table-opened line has a text


def dealer_conflict(other: str) -> TableInfo:
    """What a dealer says when it meets another dealer in its channel (and deals no more there)."""
    return TableInfo(f"{_CONFLICT} ({other}); I will not deal at this table while it is here.")


def is_dealer_conflict(msg: Line) -> bool:
    return isinstance(msg, TableInfo) and msg.text.startswith(_CONFLICT)


def dealer_here(nick: str) -> TableInfo:
    """What a dealer already dealing at a table answers another dealer's opening line."""
    return TableInfo(f"{nick} deals at this table.")


def format_options(options: tuple[Option, ...]) -> str:
    """A turn's options as the turn line lists them (``fold, call 10 or raise to 20``)."""
    return _options(options)


def is_dealer_here(msg: Line) -> bool:
    return isinstance(msg, TableInfo) and msg.text.endswith(" deals at this table.")
