"""The IRC Poker Database hand logs (hdb / hroster / pdb.NICK), limit hold'em: what the
format says, and the types a month is read into (connectors.logs.irc_database reads the
files, connectors.logs.irc_hand builds and checks each hand).

The reader is a pure parser: it reads the three files of a month, joins them on the hand's timestamp,
rebuilds the order in which every action was taken and checks each hand for consistency.
Nothing here touches the rules engine or the database. A hand that fails a check comes
out as a ``SkippedHand`` whose reason names the file, the line and what is wrong.

What the #holdem logs of April 1995 show about that dealer, as this reader applies it
(every rule below is checked against the pdb chip totals and the hdb pots):

- Blinds: position 1 always posts. When position 2's first letter is also ``B`` the
  blinds are 5 (position 1) and 10 (position 2); otherwise position 1 alone posts 10 and
  position 2 acts first. A blind is never more than the player's bankroll (``BA``); the
  pre-flop bet stays 10 when the big blind is short.
- Order: pre-flop the first to act is the player after the last blind (position 3 with
  two blinds, wrapping to position 1 heads-up); on later rounds position 1 acts first.
  Heads-up this makes the small blind act first on every round and the button (the big
  blind) last, unlike the usual heads-up rule.
- ``A`` is not an action by itself: it follows the letter of an action and marks the
  player all-in. Mostly that action used up his bankroll (``cA`` called with all he had,
  ``rA`` raised with all he had, possibly short of a full raise). A few times he still had
  chips and took no further part, playing for what he had put in (presumably the dealer's
  all-in for a player who lost his connection); this reader records that as an
  ``all_in`` action at his next turn, or at the end of the round if none came.
- A short all-in bet or raise lifts the bet to what the player put in; it does not count
  towards the cap, and a later raise goes one full bet above it.
- Cap: a bet and three raises a round (pre-flop the blind is the bet) while three or
  more players can still bet; no cap once only two can.
- Folding with nothing to call was allowed (kept, with a warning on the hand).
- ``Q`` / ``K`` (quit / kicked) take a player out of the hand like a fold, and need not
  happen in turn: a quit can end a hand before others act. A player who won chips left
  only after the pot was settled, and after a fold a ``Q``/``K`` is just a note; both go
  to ``IrcPlayer.left_after_out`` instead of the action sequence.
- ``hdb`` figures ``players/pot`` count every player still in the hand, all-in players
  included, and every chip put in so far, an uncalled bet included. The flop and turn
  figures are ``0/0`` when nobody could bet in that round (fewer than two players not
  all-in); the river figure is always written. At the showdown a winner who left once the
  pot was settled is no longer counted.

Hands these rules cannot explain are skipped, never bent to fit: in April 1995 a fourth
raise among three or more players (10 hands) and a "call" of one chip by a player with
hundreds behind (4 hands).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = [
    "ACTION_KINDS",
    "ALL_IN",
    "BAD_CARD",
    "BAD_LETTER",
    "BET",
    "BET_SIZES",
    "BIG_BLIND",
    "BLIND_BIG",
    "BLIND_SMALL",
    "BOARD_MISMATCH",
    "CALL",
    "CHECK",
    "CHIPS_TO_LOSER",
    "FOLD",
    "FREE_FOLD",
    "Figure",
    "ILLEGAL_ACTION",
    "INCOMPLETE",
    "IrcAction",
    "IrcHand",
    "IrcPlayer",
    "IrcReadSummary",
    "KICKED",
    "LEFTOVER",
    "MALFORMED",
    "MAX_RAISES",
    "MISSING_ACTION",
    "ORPHAN",
    "PLAYERS_MISMATCH",
    "POT_MISMATCH",
    "PUT_IN_MISMATCH",
    "ParseError",
    "PdbLine",
    "QUIT",
    "RAISE",
    "ROUND_NAMES",
    "SMALL_BLIND",
    "SkippedHand",
    "UNBALANCED",
    "reason_category",
    "summarize",
]

ROUND_NAMES = ("preflop", "flop", "turn", "river")
SMALL_BLIND = 5
BIG_BLIND = 10
BET_SIZES = (10, 10, 20, 20)
MAX_RAISES = 3  # after the bet; pre-flop the blind is the bet

# Action kinds (IrcAction.kind).
BLIND_SMALL = "blind_small"
BLIND_BIG = "blind_big"  # also the single blind of 10 when position 1 alone posts
FOLD = "fold"
CHECK = "check"
CALL = "call"
BET = "bet"
RAISE = "raise"
QUIT = "quit"  # out of the hand, like a fold
KICKED = "kicked"  # out of the hand, like a fold
ALL_IN = "all_in"  # declared all-in for what he had put in, without putting in more
ACTION_KINDS = (BLIND_SMALL, BLIND_BIG, FOLD, CHECK, CALL, BET, RAISE, QUIT, KICKED, ALL_IN)

# Reason categories of skipped hands: the text before the first colon of a reason.
INCOMPLETE = "incomplete"
MALFORMED = "malformed"
BAD_CARD = "bad-card"
BAD_LETTER = "bad-letter"
ILLEGAL_ACTION = "illegal-action"
MISSING_ACTION = "missing-action"
LEFTOVER = "leftover-letters"
PUT_IN_MISMATCH = "put-in-mismatch"
UNBALANCED = "chips-unbalanced"
CHIPS_TO_LOSER = "chips-to-folded-player"
POT_MISMATCH = "pot-mismatch"
BOARD_MISMATCH = "board-mismatch"
ORPHAN = "orphan"
# Warning categories: the hand is still read.
PLAYERS_MISMATCH = "hdb-players-count"
FREE_FOLD = "fold-with-nothing-to-call"


class ParseError(ValueError):
    """A problem in the logs and where it was found (raised only in strict mode)."""

    def __init__(self, source: str, reason: str, hand_id: int | None = None) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
        self.hand_id = hand_id

    @property
    def category(self) -> str:
        return reason_category(self.reason)


def reason_category(reason: str) -> str:
    """'incomplete: missing pdb for X' -> 'incomplete'."""
    return reason.split(":", 1)[0]


class IrcAction(NamedTuple):
    """One action, in the order it was taken.

    ``position`` is 1-based (``hand.players[position - 1]``). ``to_call`` is the chips the
    player needed to call at that moment and ``bets_to_call`` the same in bets of the
    round rounded up (the small blind facing the big blind faces 1). ``amount`` is the
    chips this action put in; ``raises`` the full raises made in the round before it (the
    bet, and pre-flop the blind, are not raises). ``all_in`` marks the action that put in
    the player's last chip. Quit and kicked count as folds; ``all_in`` as a kind puts in
    nothing (see the module notes).
    """

    round: int
    position: int
    nick: str
    kind: str
    to_call: int
    bets_to_call: int
    amount: int
    raises: int
    all_in: bool


class IrcPlayer(NamedTuple):
    """One player's pdb line, in position order (1 small blind ... n the button).

    ``letters`` are pdb columns 5-8 as written ('-' for no action). ``pdb_line`` is the
    line number in ``pdb/pdb.<nick>`` of the hand's month folder. ``left_after_out``
    lists ``(round, 'quit' | 'kicked')`` of a player who left after folding or after the
    pot was settled.
    """

    position: int
    nick: str
    bankroll: int
    put_in: int
    won: int
    hole_cards: tuple[int, int] | None
    letters: tuple[str, str, str, str]
    pdb_line: int
    left_after_out: tuple[tuple[int, str], ...]

    @property
    def net(self) -> int:
        return self.won - self.put_in


Figure = tuple[int, int]


@dataclass(frozen=True, slots=True)
class IrcHand:
    """A hand that passed every check.

    ``source`` is ``path/to/hdb:LINE``. ``players`` are in position order, ``players[i]``
    at position ``i + 1``. ``hdb_figures`` are hdb's ``(players, pot)`` at the start of the
    flop, turn and river and at the showdown, ``(0, 0)`` where hdb wrote ``0/0``. ``pots``
    are the same figures rebuilt from the actions: players still in (all-in included) and
    chips in the pot, ``(0, 0)`` only for rounds the hand never reached. ``warnings`` are
    defects that did not stop the hand from being read, each starting with its category.
    """

    hand_id: int
    source: str
    game_set: int
    game_number: int
    players: tuple[IrcPlayer, ...]
    board: tuple[int, ...]
    hdb_figures: tuple[Figure, Figure, Figure, Figure]
    pots: tuple[Figure, Figure, Figure, Figure]
    actions: tuple[IrcAction, ...]
    warnings: tuple[str, ...] = ()

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def button(self) -> int:
        """Position of the button (the highest position)."""
        return len(self.players)

    @property
    def two_blinds(self) -> bool:
        return len(self.actions) > 1 and self.actions[1].kind == BLIND_BIG

    @property
    def last_round(self) -> int:
        """The last round the hand reached (0 pre-flop ... 3 river); with players all-in
        the later rounds may have no action."""
        r = 3
        while r and not self.pots[r - 1][1]:
            r -= 1
        return r

    def player(self, nick: str) -> IrcPlayer:
        for p in self.players:
            if p.nick == nick:
                return p
        raise KeyError(nick)

    def actions_in_round(self, rnd: int) -> tuple[IrcAction, ...]:
        return tuple(a for a in self.actions if a.round == rnd)


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand, or a stray line, that could not be made consistent, and why.

    ``source`` is ``path:line`` (the hdb line for a hand); ``reason`` starts with its
    category, e.g. ``incomplete: missing pdb for |maniac|``.
    """

    hand_id: int | None
    source: str
    reason: str

    @property
    def category(self) -> str:
        return reason_category(self.reason)


@dataclass(slots=True)
class IrcReadSummary:
    """Counts of what a read produced; give it every item with ``add``."""

    read: int = 0
    skipped: int = 0
    skipped_by_reason: Counter = field(default_factory=Counter)
    warnings_by_reason: Counter = field(default_factory=Counter)
    hands_with_warnings: int = 0

    def add(self, item: IrcHand | SkippedHand) -> None:
        if isinstance(item, SkippedHand):
            self.skipped += 1
            self.skipped_by_reason[item.category] += 1
        else:
            self.read += 1
            if item.warnings:
                self.hands_with_warnings += 1
                for w in item.warnings:
                    self.warnings_by_reason[reason_category(w)] += 1

    def __str__(self) -> str:
        lines = [f"hands read: {self.read}", f"skipped: {self.skipped}"]
        lines += [f"  {k}: {v}" for k, v in sorted(self.skipped_by_reason.items())]
        lines.append(f"read with warnings: {self.hands_with_warnings}")
        lines += [f"  {k}: {v}" for k, v in sorted(self.warnings_by_reason.items())]
        return "\n".join(lines)


def summarize(items: Iterable[IrcHand | SkippedHand]) -> IrcReadSummary:
    summary = IrcReadSummary()
    for item in items:
        summary.add(item)
    return summary


class PdbLine(NamedTuple):
    # The raw text, split only when its hand is built: strings cost the garbage
    # collector nothing, lists of fields for 100k lines would.
    text: str
    path: str
    line: int
