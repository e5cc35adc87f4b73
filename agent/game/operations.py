"""The operations of a hand: each move of the rules state machine (agent.game.rules)
returns one of these frozen dataclasses and appends it to the hand's operation log, as in
PokerKit."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from agent.game.slots import slot_constructor
from agent.game.variant import Street

__all__ = ["AwardedExternally", "BetOrRaised", "BlindPosted", "BoardDealt", "CheckedOrCalled",
           "DeclaredAllIn", "Folded", "HandEnded", "HoleDealt", "Left", "Mucked", "Operation",
           "Pot", "PotAwarded", "Posted", "ShowdownBegan", "Shown"]


@dataclass(frozen=True, slots=True)
class BlindPosted:
    seat: int
    amount: int
    big: bool
    all_in: bool


@dataclass(frozen=True, slots=True)
class Posted:
    """A post beyond the hand's blinds (a player joining or coming back posts to be dealt
    in at once): ``live`` counts towards the seat's bet this round, ``dead`` goes to the
    pot and counts for nothing."""

    seat: int
    live: int
    dead: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class HoleDealt:
    seat: int
    cards: tuple[int, int] | None  # None: dealt face down, unknown to us


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: Street
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class CheckedOrCalled:
    seat: int
    amount: int  # chips put in; 0 is a check
    all_in: bool


@dataclass(frozen=True, slots=True)
class BetOrRaised:
    seat: int
    to: int  # the seat's bet this round afterwards
    amount: int  # chips put in by this move
    all_in: bool
    # False for a short all-in raise: standard rules, one that does not re-open the
    # betting; short_all_in_counts=False, one that is not counted towards the cap.
    full: bool


@dataclass(frozen=True, slots=True)
class Left:
    seat: int  # out of the hand like a fold, in turn or not


@dataclass(frozen=True, slots=True)
class DeclaredAllIn:
    seat: int
    behind: int  # chips kept out of the hand, returned when it ends


@dataclass(frozen=True, slots=True)
class ShowdownBegan:
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Shown:
    seat: int
    cards: tuple[int, int]
    value: int  # evaluate() of hole cards plus board; higher is better


@dataclass(frozen=True, slots=True)
class Mucked:
    seat: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    pot: int  # 0 is the main pot
    amount: int
    eligible: tuple[int, ...]  # clockwise from the button's left
    winners: tuple[int, ...]  # clockwise from the button's left; the first gets odd chips
    shares: tuple[int, ...]  # chips to each winner, in the order of winners


@dataclass(frozen=True, slots=True)
class AwardedExternally:
    amounts: tuple[int, ...]  # chips each seat received, as a log reported them


@dataclass(frozen=True, slots=True)
class HandEnded:
    payoffs: tuple[int, ...]
    stacks: tuple[int, ...]


Operation = Union[
    BlindPosted,
    Posted,
    HoleDealt,
    BoardDealt,
    Folded,
    CheckedOrCalled,
    BetOrRaised,
    Left,
    DeclaredAllIn,
    ShowdownBegan,
    Shown,
    Mucked,
    PotAwarded,
    AwardedExternally,
    HandEnded,
]


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # live players who can win it, clockwise from the button's left


# The operations made at every deal and action, built without the frozen dataclass's
# slower __init__ (agent/game/slots.py).
make_blind_posted = slot_constructor(BlindPosted)
make_hole_dealt = slot_constructor(HoleDealt)
make_board_dealt = slot_constructor(BoardDealt)
make_folded = slot_constructor(Folded)
make_checked_or_called = slot_constructor(CheckedOrCalled)
make_bet_or_raised = slot_constructor(BetOrRaised)
make_shown = slot_constructor(Shown)
make_pot_awarded = slot_constructor(PotAwarded)
make_pot = slot_constructor(Pot)
