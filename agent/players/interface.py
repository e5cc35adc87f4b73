"""The player interface: everything a runner (the in-process dealer, a live seat, the ACPC
and IRC bots, tournaments) may call on a player, declared once, with defaults.

Every player inherits :class:`Player` (or :class:`BasePlayer`, which adds the seeded
generator). A player implements ``act``; the hooks below have no-op defaults and are
called directly: no runner looks for a method by name. Which thread calls what:

=================  ==============================================  ====================================
member             when                                            thread
=================  ==============================================  ====================================
``act(ctx)``       our turn; returns a legal Action (an illegal    a live seat's worker; the caller's
                   answer becomes check/call, counted)             thread for an ``instant`` player
                                                                   without hand hooks; the dealer's
                                                                   thread in process
``new_hand``       a hand starts (its HandStarted)                 as ``act``, in event order
``observe``        every public event of the hand and our own      as ``act``, in event order
                   HoleCards (never another player's)
``end_hand``       the hand ended: its HandRecord                  as ``act``, in event order, before
                                                                   the seat's sink stores it
``set_deadline``   before each decision at a table with a time     the thread asking the seat (the
                   limit: the seconds the answer may take          connector's I/O thread)
``interim``        read at a missed deadline: the best (ctx,       set on the worker during ``act``;
                   action) so far of the decision under way        read by the seat's deadline thread
``attach_store``   before play: the model store to read (and       the runner's thread, before any hand
                   write) opponent models through
``describe()``     at start, for the bot's banner                  the runner's thread
``instant``        read once when a seat is made                   -
=================  ==============================================  ====================================

Runners skip calls to a hand hook a player leaves at its default: ``wants_new_hand``,
``wants_observe`` and ``wants_end_hand`` say which ones a class overrides, and
:meth:`Player.hand_hooks` gives the runner those it calls. The flags are set for every
subclass when it is defined (never by hand, so they cannot disagree with the methods),
and a live seat asks an ``instant`` player with none of them on the caller's thread
(agent.play.seat).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from agent.game.context import GameContext
    from agent.game.events import Event, HandStarted
    from agent.game.records import HandRecord
    from agent.game.rules import Action
    from agent.models.store import ModelStore

__all__ = ["BasePlayer", "HandHooks", "Player"]


class HandHooks(NamedTuple):
    """A player's hand hooks as a runner calls them (:meth:`Player.hand_hooks`)."""

    new_hand: Callable[[HandStarted], None] | None
    observe: Callable[[Event], None] | None
    end_hand: Callable[[HandRecord], None] | None


class Player(ABC):
    """A decider (see the module docstring for when and where each member is called)."""

    name: str

    # A constant-time decider (a house bot such as always-call): a live seat may ask it on
    # the caller's thread when it has no hand hooks, sparing a hop to the worker thread.
    instant: ClassVar[bool] = False

    # (context, action): the best answer so far of the decision under way, which a seat
    # answers when ``act`` misses its deadline; None until ``act`` has one. One attribute
    # assignment, so safe to read from another thread.
    interim: tuple[GameContext, Action] | None = None

    # Whether the class overrides new_hand / observe / end_hand (set by __init_subclass__):
    # a runner calls only those, so a player without hand hooks costs nothing per event.
    wants_new_hand: ClassVar[bool] = False
    wants_observe: ClassVar[bool] = False
    wants_end_hand: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.wants_new_hand = cls.new_hand is not Player.new_hand
        cls.wants_observe = cls.observe is not Player.observe
        cls.wants_end_hand = cls.end_hand is not Player.end_hand

    def hand_hooks(self) -> HandHooks:
        """The hand hooks this player overrides, bound, and None for each left at its
        default: what a runner calls (once per seat; the calls are on the hot path)."""
        return HandHooks(self.new_hand if self.wants_new_hand else None,
                         self.observe if self.wants_observe else None,
                         self.end_hand if self.wants_end_hand else None)

    @abstractmethod
    def act(self, ctx: GameContext) -> Action:
        """Our action in ``ctx`` (the table as our seat sees it)."""

    def new_hand(self, started: HandStarted) -> None:
        """A hand starts (before our hole cards are dealt)."""

    def observe(self, event: Event) -> None:
        """An event of the hand: every public one, and our own HoleCards."""

    def end_hand(self, record: HandRecord) -> None:
        """The hand ended; ``record`` is what the table stores of it."""

    def set_deadline(self, seconds: float | None) -> None:
        """The time limit of the next decision in seconds (None: no limit), told before
        the decision is queued. A player that budgets its time keeps it; only store it
        here (it runs on the I/O thread, not the player's)."""

    def attach_store(self, store: ModelStore, network: str, *, writes: bool = False) -> bool:
        """Read (and with ``writes`` write) opponent models through ``store`` from the next
        hand on; without ``writes`` the runner stores each finished hand once itself.
        True when the player models opponents and took the store; the default (a player
        that models no one) ignores it and returns False."""
        return False

    def describe(self) -> str:
        """What this player runs with, in a line (a bot prints it at start)."""
        return f"{self.name}: {type(self).__name__}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class BasePlayer(Player):
    """A player with a name and the injected generator every random choice comes from."""

    def __init__(self, name: str, rng: np.random.Generator) -> None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"player {name!r} needs a numpy Generator, got {type(rng).__name__}")
        self.name = name
        self.rng = rng
