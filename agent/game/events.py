"""Typed events: what a connector (IRC, ACPC TCP, log replay, the in-process dealer) says
happened at a table. Connectors produce them; only the tracker (agent.game.tracker) consumes
them and turns them into game state.

Players are named by the strings the source uses; cards are ints 0..51
(evaluator_pyx.cards). Events carry what the source reports, unchecked: the tracker is
where every event is validated against the rules.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.game.rules import Action

if TYPE_CHECKING:
    from agent.game.rules import RuleVariant

__all__ = [
    "BoardDealt",
    "CardsMucked",
    "CardsShown",
    "Event",
    "HandEnded",
    "HandStarted",
    "HoleCards",
    "PlayerActed",
    "PlayerAllIn",
    "PlayerLeft",
    "PlayerPosted",
]


@dataclass(frozen=True, slots=True)
class HandStarted:
    hand_id: str  # stable id from the source, so a replayed hand is recognised
    source: str  # where it came from, for people and error messages: "hdb:1234", ...
    players: tuple[str, ...]  # seat names in clockwise table order
    stacks: tuple[int, ...]  # chips each seat starts the hand with, same order
    button: int  # index into players
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    max_bets: int = 4  # bets a round, the big blind counting as the first pre-flop
    heads_up_reverse_blinds: bool = True  # heads-up the button posts the small blind
    started_at: float | None = None  # Unix time when known
    free_folds: bool = False  # the source lets players fold with nothing to call
    # Amounts posted as blinds, in order from the small blind's seat, when not the usual
    # (small_blind, big_blind): some IRC hands had a single blind.
    blinds: tuple[int, ...] | None = None
    # The rules the source's dealer plays by when not the standard ones (agent.game.rules
    # RuleVariant, e.g. IRC_1995); it then decides heads-up order and free folds.
    variant: RuleVariant | None = None
    # The player the source was written for (an online room's "Dealt to" player), when
    # it says; must be seated.
    hero: str | None = None
    # A tournament's hand (its chips are the tournament's, not money): the source's
    # tournament id and the blind level as it writes it; None for a cash game.
    tournament: str | None = None
    level: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerPosted:
    # A post beyond the blinds before the deal (agent.game.rules State.post): ``live``
    # chips count towards the player's bet, ``dead`` chips go to the pot.
    player: str
    live: int
    dead: int = 0


@dataclass(frozen=True, slots=True)
class HoleCards:
    player: str
    cards: tuple[int, ...] | None  # None: dealt face down, unknown to this source


@dataclass(frozen=True, slots=True)
class BoardDealt:
    cards: tuple[int, ...]  # the new cards of the street (several streets in an all-in run-out)


@dataclass(frozen=True, slots=True)
class PlayerActed:
    # None when the source does not name the actor (ACPC betting strings): whoever is to act.
    player: str | None
    action: Action
    # For a bet or raise, the player's total bet this round afterwards when the source
    # reports it (PHH "cbr 40"); the tracker checks it against the rules.
    to: int | None = None
    # The move as the source named it, when it tells check from call and bet from raise:
    # one of agent.game.records' kinds f k c b r. The tracker refuses a check facing a bet, a
    # call with nothing to call, a bet into a bet and a raise of nothing.
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    player: str  # quit or kicked: out of the hand like a fold, in turn or not


@dataclass(frozen=True, slots=True)
class PlayerAllIn:
    # Declared all-in for what the player has put in, keeping the chips behind (the IRC
    # dealers' treatment of a lost connection): no further part, may still win.
    player: str


@dataclass(frozen=True, slots=True)
class CardsShown:
    player: str
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardsMucked:
    player: str


@dataclass(frozen=True, slots=True)
class HandEnded:
    # As the source reports the result, either form or neither: ``won`` is chips each
    # player took from the pot, ``net`` is chips won minus chips put in (ACPC logs report
    # that, with fractions for split pots). Players left out received nothing.
    won: tuple[tuple[str, int], ...] | None = None
    net: tuple[tuple[str, float], ...] | None = None
    # Chips the house took from the pot (an online room's rake); ``won`` and ``net`` are
    # then after the rake, and one of them must be given.
    rake: int = 0


Event = (HandStarted | PlayerPosted | HoleCards | BoardDealt | PlayerActed | PlayerLeft | PlayerAllIn
         | CardsShown | CardsMucked | HandEnded)
