"""The ACPC dealer protocol 2.0.0 for limit hold'em: pure parse/format functions and the
translation of a player's stream of match states into tracker events; no I/O.

The grammar (project_acpc_server, protocol.md). A player's first line is the version
greeting ``VERSION:2.0.0``; every line ends in ``\\r\\n`` (we accept a bare ``\\n``);
dealer lines starting with ``#`` or ``;`` are comments. The dealer sends each player its
view after every event::

    MATCHSTATE:<position>:<hand number>:<betting>:<cards>

``position`` is the player's place this hand: 0 is the first player after the button
(the small blind at a ring table, the big blind heads-up with reverse blinds), n-1 the
button. ``betting`` is one letter per action, ``f`` fold, ``c`` check or call, ``r`` bet
or raise, with ``/`` closing each finished round. ``cards`` is every position's hole
cards, ``|``-separated and empty where unknown to this player, then ``/`` and the board
cards of each round reached. When it is the player's turn it answers with the state
exactly as received plus ``:c``, ``:r`` or ``:f``.

:class:`StateTranslator` follows one player's states through a match and yields the
events of what is new in each (HandStarted, our HoleCards, PlayerActed, BoardDealt,
CardsShown, HandEnded), after checking that each state continues the last. Who acted is
left to the tracker (the betting string does not name players); players are named per
seat relative to ours, because the ACPC dealer moves everyone one position each hand
and a position number names a different opponent every hand.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent.game.events import BoardDealt, CardsShown, Event, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.game.slots import slot_constructor
from connectors.acpc.game import AcpcGame
from evaluator_pyx.cards import CARD_NAMES, CardError, cards_from_text

__all__ = [
    "ACTION_CHAR",
    "MAX_LINE_BYTES",
    "NO_STACK",
    "VERSION",
    "VERSION_LINE",
    "MatchState",
    "ProtocolError",
    "StateTranslator",
    "format_matchstate",
    "format_response",
    "is_comment",
    "parse_action",
    "parse_matchstate",
    "parse_response",
    "parse_version",
]

VERSION = "2.0.0"
VERSION_LINE = f"VERSION:{VERSION}"
MAX_LINE_BYTES = 1 << 20  # the longest line either side accepts
NO_STACK = 2**31 - 1  # ACPC limit games have no stacks: one no limit hand can use up
ACTION_CHAR = {Action.FOLD: "f", Action.CHECK_CALL: "c", Action.BET_RAISE: "r"}
_ACTION_OF = {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}
# Events are immutable: the three anonymous actions are built once.
_ACTED = {char: PlayerActed(None, action) for char, action in _ACTION_OF.items()}
_ENDED = HandEnded()
_NO_EVENTS: list[Event] = []  # (never added to: what read(events=False) gives the usual line)
_BOARD_COUNTS = (0, 3, 1, 1)
# Strictly the protocol's spelling: ranks 23456789TJQKA, suits shdc.
_CARD = {name: c for c, name in enumerate(CARD_NAMES)}
_STATE = re.compile(r"MATCHSTATE:(\d{1,9}):(\d{1,12}):([fcr/]*):([^:]*)")
_VERSION = re.compile(r"VERSION:(\d{1,9})\.(\d{1,9})\.(\d{1,9})")


class ProtocolError(ValueError):
    """A line that breaks the protocol; the message says where and what."""


@dataclass(frozen=True, slots=True)
class MatchState:
    """One player's view of a hand, as a MATCHSTATE line gives it."""

    position: int
    hand_number: int
    betting: tuple[str, ...]  # the actions of each round reached (no '/')
    holes: tuple[tuple[int, ...] | None, ...]  # by position; None: unknown to this player
    board: tuple[tuple[int, ...], ...]  # new cards of each round reached ((), flop, turn, river)
    text: str  # the state exactly as received, for the reply

    @property
    def players(self) -> int:
        return len(self.holes)

    @property
    def betting_text(self) -> str:
        return "/".join(self.betting)


# Positional constructors: a frozen dataclass's keyword __init__ costs several times more,
# and a fast table builds these on every line.
_make_state = slot_constructor(MatchState)
_make_started = slot_constructor(HandStarted)
_make_board = slot_constructor(BoardDealt)
_make_shown = slot_constructor(CardsShown)


def is_comment(line: str) -> bool:
    """A dealer line to ignore (``#`` comment or ``;`` GUI command) or an empty one."""
    return not line or line[0] in "#;"


def parse_version(line: str) -> tuple[int, int, int]:
    """``VERSION:2.0.0`` -> (2, 0, 0); ProtocolError for anything else."""
    match = _VERSION.fullmatch(line.strip())
    if match is None:
        raise ProtocolError(f"expected the greeting {VERSION_LINE!r}, got {line[:80]!r}")
    return tuple(int(g) for g in match.groups())  # type: ignore[return-value]  # the pattern has as many groups


def _cards(text: str, where: str) -> tuple[int, ...]:
    try:
        return cards_from_text(text)
    except CardError as exc:
        raise ProtocolError(f"{where}: {exc}") from None


def parse_matchstate(line: str, players: int | None = None, where: str = "dealer") -> MatchState:
    """Parse a ``MATCHSTATE:`` line (no action suffix) of a limit hold'em game with
    ``players`` players (None: as many as the line shows). ProtocolError names ``where``."""
    text = line.rstrip("\r\n")
    match = _STATE.fullmatch(text)
    if match is None:
        raise ProtocolError(f"{where}: not a limit MATCHSTATE line: {text[:80]!r}")
    position, number, betting_text, cards_text = match.groups()
    pieces = cards_text.split("/")
    hole_texts = pieces[0].split("|")
    n = len(hole_texts)
    if players is not None and n != players:
        raise ProtocolError(f"{where}: {n} hole card entries in a {players}-player game: {text[:80]!r}")
    if not 2 <= n <= 10:
        raise ProtocolError(f"{where}: {n} players; 2-10 can play")
    pos = int(position)
    if pos >= n:
        raise ProtocolError(f"{where}: position {pos} at a table of {n}")
    betting = tuple(betting_text.split("/"))
    if len(betting) > 4:
        raise ProtocolError(f"{where}: {len(betting)} betting rounds in {betting_text!r}")
    if len(pieces) != len(betting):
        raise ProtocolError(f"{where}: {len(betting)} betting rounds but board cards for "
                            f"{len(pieces)}: {text[:80]!r}")
    holes: list[tuple[int, ...] | None] = []
    for i, hole in enumerate(hole_texts):
        if not hole:
            holes.append(None)
            continue
        cards = _cards(hole, where)
        if len(cards) != 2:
            raise ProtocolError(f"{where}: position {i} has {len(cards)} hole cards")
        holes.append(cards)
    if holes[pos] is None:
        raise ProtocolError(f"{where}: the state does not give our own hole cards: {text[:80]!r}")
    board: list[tuple[int, ...]] = [()]
    for rnd, piece in enumerate(pieces[1:], start=1):
        cards = _cards(piece, where)
        if len(cards) != _BOARD_COUNTS[rnd]:
            raise ProtocolError(f"{where}: round {rnd + 1} needs {_BOARD_COUNTS[rnd]} board "
                                f"cards, got {len(cards)}")
        board.append(cards)
    seen = [c for h in holes if h for c in h] + [c for b in board for c in b]
    if len(set(seen)) != len(seen):
        raise ProtocolError(f"{where}: a card appears twice in {cards_text!r}")
    return MatchState(pos, int(number), betting, tuple(holes), tuple(board), text)


def format_matchstate(position: int, hand_number: int, betting: str,
                      holes: Sequence[Sequence[int] | None],
                      board: Sequence[Sequence[int]]) -> str:
    """The MATCHSTATE line (no line end) of a view: ``betting`` as the protocol writes
    it ('/' after each finished round), ``holes`` by position (None: hidden), ``board``
    the new cards of each round reached."""
    # Plain loops into one join: the dealer writes a line a seat a move, and nested
    # generator expressions cost it about three times as much.
    names = CARD_NAMES
    parts = [f"MATCHSTATE:{position}:{hand_number}:{betting}:"]
    bar = False
    for h in holes:
        if bar:
            parts.append("|")
        bar = True
        if h is not None:
            for c in h:
                parts.append(names[c])
    for b in board[1:]:
        parts.append("/")
        for c in b:
            parts.append(names[c])
    return "".join(parts)


def format_response(state_text: str, action: Action) -> str:
    """Our answer to a state: the state exactly as received plus ``:c``/``:r``/``:f``."""
    return f"{state_text}:{ACTION_CHAR[action if type(action) is Action else Action(action)]}"


# The letters the ACPC dealer reads as actions (project_acpc_server, game.c: readAction):
# f fold, c or k check/call, r or b bet/raise, in either case.
_RESPONSE_ACTION = {"f": Action.FOLD, "c": Action.CHECK_CALL, "k": Action.CHECK_CALL, "r": Action.BET_RAISE,
                    "b": Action.BET_RAISE}
_RESPONSE_ACTION.update({k.upper(): v for k, v in list(_RESPONSE_ACTION.items())})


def parse_action(text: str) -> Action | None:
    """The action of a response's action text as the ACPC dealer reads it in a limit game:
    its first letter alone decides (f, c/k, r/b, either case) and what follows it, such as
    a no-limit raise size (``r100``), is ignored, so ``r100`` is a raise; None when the
    first letter is none of these (the dealer then takes the answer as a call)."""
    return _RESPONSE_ACTION.get(text[:1])


def parse_response(line: str) -> tuple[str, str]:
    """Split a player's answer into (state text, action text). The action text is what
    follows the state's last ':'; the caller checks both (ProtocolError if the line is
    not a MATCHSTATE line at all)."""
    text = line.rstrip("\r\n")
    if not text.startswith("MATCHSTATE:"):
        raise ProtocolError(f"not a MATCHSTATE response: {text[:80]!r}")
    state, sep, action = text.rpartition(":")
    if not sep or state.count(":") != 4:
        raise ProtocolError(f"a response needs the state and ':<action>': {text[:80]!r}")
    return state, action


class StateTranslator:
    """Turns one player's MATCHSTATE lines into tracker events (module docstring).

    ``me`` is our name; ``names`` optionally names the other seats by how many seats
    they sit after ours (1 = the next seat clockwise); others are ``acpc:<k>``.
    ``match`` prefixes hand ids. ``clock`` (Unix time, e.g. time.time) dates each hand
    when its first state arrives; without it hands have no start time.
    """

    def __init__(self, game: AcpcGame, me: str, *, names: Sequence[str] = (),
                 match: str = "acpc", source: str = "acpc",
                 clock: Callable[[], float] | None = None) -> None:
        if game.players is None:
            raise ValueError("the game must say how many players sit at the table")
        self.game = game
        self.me = me
        self.names = tuple(names)
        self.match = match
        self.source = source
        self.clock = clock
        self._last: MatchState | None = None
        # _advance() leaves the last state to be built when asked for (see ``last``): its
        # betting text and line are then newer than ``_last``.
        self._stale = False
        self._text = ""
        self._board: tuple[tuple[int, ...], ...] = ((),)  # the last state's
        self.hand_over = True  # no hand in progress
        self._seen: set[int] = set()  # cards of the last state
        self._head = self._bet_text = self._cards_text = ""  # pieces of the last state's text
        self._players: tuple[str, ...] = ()
        others = [self.names[k - 1] if k - 1 < len(self.names) else f"acpc:{k}"
                  for k in range(1, game.players)]
        if len({me, *others}) != game.players:
            raise ValueError(f"seat names must differ: {me!r}, {', '.join(others)}")
        self._others = tuple(others)
        self._n = game.players
        self._players_at: dict[int, tuple[str, ...]] = {}  # players_for, once per position

    @property
    def last(self) -> MatchState | None:
        """The last state read (built here when :meth:`advance` took it)."""
        if self._stale:
            old = self._last
            self._last = _make_state(old.position, old.hand_number,  # type: ignore[union-attr]  # a state was read before
                                     tuple(self._bet_text.split("/")), old.holes,  # type: ignore[union-attr]  # a state was read before
                                     self._board, self._text)
            self._stale = False
        return self._last

    @last.setter
    def last(self, state: MatchState | None) -> None:
        self._last = state
        self._stale = False
        if state is not None:
            self._text = state.text
            self._board = state.board

    @property
    def text(self) -> str:
        """The text of the last state, as received (without its line end)."""
        return self._text

    @property
    def betting(self) -> str:
        """The betting text of the last state ('/' closing each finished round)."""
        return self._bet_text

    @property
    def hand_number(self) -> int | None:
        """The hand of the last state (None before the first)."""
        last = self._last
        return None if last is None else last.hand_number

    def board_cards(self) -> tuple[int, ...]:
        """The board of the last state, every round's cards in one tuple."""
        flat: tuple[int, ...] = ()
        for cards in self._board:
            flat += cards
        return flat

    def _advance(self, text: str) -> str | None:
        """The usual line of a hand in progress that adds actions to the current round,
        or closes it and gives the next round's board cards (not the hand's end), taken
        with the checks the full read makes of it but without building its state or
        events: its betting text, or None for any other line. :attr:`last` still gives
        the state when asked."""
        if self.hand_over:
            return None
        head = self._head
        old = self._bet_text
        if not text.startswith(head) or not text.startswith(old, len(head)):
            return None
        end = len(head) + len(old)
        colon = text.find(":", end)
        if colon <= end:
            return None  # no action added, or no cards
        added = text[end:colon]
        betting = text[len(head):colon]
        if "f" in added and betting.count("f") >= self._n - 1:
            return None  # all but one folded: the hand's end
        cards = text[colon + 1:]
        if added.strip("fcr"):
            # A round closed (its last actions, then '/'): the next round's cards follow.
            if added[-1] != "/" or added[:-1].strip("fcr") or not self._next_board(cards):
                return None
        elif cards != self._cards_text:
            return None  # new cards without a new round, or not a state at all
        self._bet_text = betting
        self._cards_text = cards
        self._text = text
        self._stale = True
        return betting

    def _next_board(self, cards: str) -> bool:
        """``cards`` are the last state's plus the next round's board cards, new and
        distinct: the board and the cards seen take them (False: they are not)."""
        old_cards = self._cards_text
        board = self._board
        rnd = len(board)
        if rnd > 3 or not cards.startswith(old_cards):
            return False
        piece = cards[len(old_cards):]
        count = _BOARD_COUNTS[rnd]
        if len(piece) != 2 * count + 1 or piece[0] != "/":
            return False
        new = []
        seen = self._seen
        for i in range(1, 2 * count, 2):
            card = _CARD.get(piece[i:i + 2])
            if card is None or card in seen or card in new:
                return False
            new.append(card)
        self._board = board + (tuple(new),)
        self._seen = seen.union(new)
        return True

    def _begin(self, text: str) -> MatchState | None:
        """The usual first line of a new hand (no action yet, only our own hole cards)
        taken as the full read takes it, but without the hand's opening events; None for
        any other line."""
        last = self._last
        if last is not None and not self.hand_over:
            return None
        state = self._first_state(text.rstrip("\r\n"))
        if state is None or (last is not None and last.hand_number == state.hand_number):
            return None
        self._players = self.players_for(state.position)
        self.hand_over = False
        self._remember(state)
        self._seen = set(state.holes[state.position])  # type: ignore[arg-type]  # our own cards are always shown to us
        return state

    def players_for(self, position: int) -> tuple[str, ...]:
        """Names by position when we sit at ``position``."""
        names = self._players_at.get(position)
        if names is None:
            n = self.game.players or 0
            names = self._players_at[position] = tuple(
                self.me if q == position else self._others[(q - position) % n - 1]
                for q in range(n))
        return names

    def hand_id(self, hand_number: int) -> str:
        return f"{self.match}:{hand_number}"

    def parse(self, line: str, where: str | None = None) -> MatchState:
        return parse_matchstate(line, self.game.players, where or self.source)

    def read(self, line: str, where: str | None = None,
             events: bool = True) -> tuple[MatchState | None, list[Event]]:
        """The one reader of a player's MATCHSTATE lines: (state, its events), as
        :meth:`parse` then :meth:`update` give them. Its fast paths are inside: the usual
        line repeats the last state with actions (and perhaps a round's board cards)
        added, and is read without parsing what is unchanged; a hand's usual first line
        is read without the regular expression; anything else takes the full parse.

        With ``events`` False (a seat that needs none, agent.play.acpc.lean) the usual
        lines are taken with the same checks but without building what nobody reads: a
        line that only adds actions or a round's board cards to the hand in progress gives
        (None, []) (:attr:`betting` and :meth:`board_cards` say what it added), a hand's
        usual first line its state and no events; any other line is read in full.
        ProtocolError (naming ``where``) for a line that breaks the protocol."""
        if not events:
            if self._advance(line) is not None:
                return None, _NO_EVENTS
            state = self._begin(line)
            if state is not None:
                return state, _NO_EVENTS
        last = self.last
        text = line.rstrip("\r\n")
        if last is not None and not self.hand_over:
            fast = self._read_fast(last, text)
            if fast is not None:
                return fast
        else:
            state = self._first_state(text)
            if state is not None:
                return state, self.update(state)
        state = self.parse(line, where)
        return state, self.update(state)

    def _first_state(self, text: str) -> MatchState | None:
        """The usual first state of a hand (no action yet, only our own hole cards) read
        without the regular expression; None for anything else (the full parse decides)."""
        parts = text.split(":")
        if len(parts) != 5 or parts[0] != "MATCHSTATE" or parts[3]:
            return None
        position, number, cards = parts[1], parts[2], parts[4]
        if not (position.isdigit() and position.isascii() and len(position) <= 9
                and number.isdigit() and number.isascii() and len(number) <= 12):
            return None
        holes_text = cards.split("|")
        n = len(holes_text)
        pos = int(position)
        if n != self.game.players or pos >= n or "/" in cards:
            return None
        ours = holes_text[pos]
        if len(ours) != 4 or len(cards) != n + 3:  # every other entry empty
            return None
        first, second = _CARD.get(ours[:2]), _CARD.get(ours[2:])
        if first is None or second is None or first == second:
            return None
        holes: list[tuple[int, ...] | None] = [None] * n
        holes[pos] = (first, second)
        return _make_state(pos, int(number), ("",), tuple(holes), ((),), text)

    def _read_fast(self, last: MatchState, text: str) -> tuple[MatchState, list[Event]] | None:
        # The texts of the last state were kept by _remember: its head
        # (``MATCHSTATE:<position>:<hand>:``), betting and cards.
        head = self._head
        if not text.startswith(head):
            return None
        at = len(head)
        colon = text.find(":", at)
        if colon < 0:
            return None
        betting = text[at:colon]
        old = self._bet_text
        if len(betting) <= len(old) or not betting.startswith(old):
            return None
        cards = text[colon + 1:]
        old_cards = self._cards_text
        added = betting[len(old):]
        if not cards.startswith(old_cards) or ":" in cards:
            return self._showdown_fast(last, text, betting, added, cards)
        if added.strip("fcr/"):
            return None
        new_cards = cards[len(old_cards):]
        if "/" in added:
            pieces = new_cards.split("/")
            if pieces[0] or len(pieces) != added.count("/") + 1:
                return None
            board = list(last.board)
            seen = self._seen
            for piece in pieces[1:]:
                rnd = len(board)
                if rnd > 3 or len(piece) != 2 * _BOARD_COUNTS[rnd]:
                    return None
                try:
                    new = tuple([_CARD[piece[i:i + 2]] for i in range(0, len(piece), 2)])
                except KeyError:
                    return None
                if seen.intersection(new) or len(set(new)) != len(new):
                    return None
                board.append(new)
            self._seen = seen.union(*board[len(last.board):])
            board_t = tuple(board)
        elif new_cards:
            return None
        else:
            board_t = last.board
        state = _make_state(last.position, last.hand_number, tuple(betting.split("/")),
                            last.holes, board_t, text)
        self.last = state
        self._bet_text = betting
        self._cards_text = cards
        events: list[Event] = []
        rnd = len(last.board) - 1
        for char in added:
            if char == "/":
                rnd += 1
                events.append(_make_board(board_t[rnd]))
            else:
                events.append(_ACTED[char])
        if "f" in betting and betting.count("f") >= len(last.holes) - 1:
            events.append(_ENDED)  # all but one folded
            self.hand_over = True
        return state, events

    def _showdown_fast(self, last: MatchState, text: str, betting: str, added: str,
                       cards: str) -> tuple[MatchState, list[Event]] | None:
        """The usual showdown state: the last actions of the river added and the live
        opponents' hole cards shown, the board unchanged; None for anything else."""
        if "/" in added or added.strip("fcr") or ":" in cards:
            return None
        old_holes, slash, old_board = self._cards_text.partition("/")
        holes_text, slash2, board = cards.partition("/")
        if board != old_board or slash != slash2:
            return None
        entries = holes_text.split("|")
        n = len(last.holes)
        pos = last.position
        if len(entries) != n or entries[pos] != old_holes.split("|")[pos]:
            return None
        seen = set(self._seen)
        holes = list(last.holes)
        players = self._players
        events: list[Event] = [_ACTED[char] for char in added]
        for q, entry in enumerate(entries):
            if q == pos or not entry:
                continue
            if last.holes[q] is not None or len(entry) != 4:
                return None
            first, second = _CARD.get(entry[:2]), _CARD.get(entry[2:])
            if first is None or second is None or first == second \
                    or first in seen or second in seen:
                return None
            seen.add(first)
            seen.add(second)
            holes[q] = (first, second)
            events.append(_make_shown(players[q], holes[q]))
        if len(events) == len(added):
            return None  # nothing shown: not a showdown line
        events.append(_ENDED)
        state = _make_state(pos, last.hand_number, tuple(betting.split("/")), tuple(holes),
                            last.board, text)
        self.last = state
        self._bet_text = betting
        self._cards_text = cards
        self._seen = seen
        self.hand_over = True
        return state, events

    def _remember(self, state: MatchState) -> None:
        """Make ``state`` the last one and keep the pieces of its text the fast path
        compares the next line with."""
        self.last = state
        text = state.text
        bet_at = text.rindex(":", 0, text.rindex(":"))
        self._head = text[:bet_at + 1]
        self._bet_text, _, self._cards_text = text[bet_at + 1:].partition(":")

    def update(self, state: MatchState) -> list[Event]:
        """The events of what ``state`` adds to the last state; a state of a new hand
        starts it. ProtocolError when the state does not continue the last one (the
        translator then waits for the next hand)."""
        last = self.last
        if last is not None and state.hand_number == last.hand_number and last.position == state.position:
            if self.hand_over:
                if state.text == last.text:
                    return []
                raise ProtocolError(f"{self.source} hand {state.hand_number}: a state after "
                                    f"the hand ended: {state.text[:80]!r}")
            return self._continue(last, state)
        if last is not None and state.hand_number == last.hand_number:
            self.hand_over = True
            raise ProtocolError(f"{self.source} hand {state.hand_number}: our position changed "
                                f"from {last.position} to {state.position} within the hand")
        return self._start(state)

    def _start(self, state: MatchState) -> list[Event]:
        game = self.game
        players = self._players = self.players_for(state.position)
        n = len(players)
        hand = state.hand_number
        events: list[Event] = [
            # HandStarted's fields in order (agent.game.events).
            _make_started(self.hand_id(hand), f"{self.source} hand {hand}", players,
                          (game.stack or NO_STACK,) * n, n - 1, game.small_blind,
                          game.big_blind, game.small_bet, game.big_bet, game.max_bets,
                          True, None if self.clock is None else self.clock(), False, None, None, None,
                          None, None),
            HoleCards(self.me, state.holes[state.position]),
        ]
        self.hand_over = False
        empty = MatchState(state.position, hand, ("",), (None,) * n, ((),), "")
        self.last = empty
        events.extend(self._continue(empty, state, first=True))
        return events

    def _continue(self, last: MatchState, state: MatchState, first: bool = False) -> list[Event]:
        where = f"{self.source} hand {state.hand_number}"
        old, new = last.betting_text, state.betting_text
        if not new.startswith(old):
            self.hand_over = True
            raise ProtocolError(f"{where}: {state.text[:80]!r} does not continue "
                                f"{last.text[:80]!r} (betting {old!r} -> {new!r})")
        if not first and state.holes[state.position] != last.holes[last.position]:
            self.hand_over = True
            raise ProtocolError(f"{where}: our hole cards changed within the hand")
        for rnd, cards in enumerate(last.board):
            if rnd < len(state.board) and state.board[rnd] != cards:
                self.hand_over = True
                raise ProtocolError(f"{where}: the board of round {rnd + 1} changed")
        events: list[Event] = []
        rnd = len(last.betting) - 1
        for char in new[len(old):]:
            if char == "/":
                rnd += 1
                events.append(_make_board(state.board[rnd]))
            else:
                events.append(_ACTED[char])
        self._remember(state)
        self._seen = {c for h in state.holes if h for c in h}.union(*state.board)
        # The hand is over when all but one folded, or at the showdown, where the
        # dealer shows every other live player's cards.
        folds = new.count("f")
        n = state.players
        shown = [(q, h) for q, h in enumerate(state.holes) if h is not None and q != state.position]
        if folds >= n - 1 or shown:
            players = self._players
            for q, cards in shown:
                events.append(_make_shown(players[q], cards))
            events.append(_ENDED)
            self.hand_over = True
        return events
