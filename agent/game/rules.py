"""Limit Texas Hold'em rules: the one state machine behind every dealer (in-process, IRC,
ACPC TCP), the tracker, the log replayer and the simulator's bookkeeping.

A hand is a :class:`State`. Every move has three methods in PokerKit's style:
``verify_X`` raises :class:`IllegalActionError` naming the rule broken, ``can_X`` answers
yes/no, and ``X`` does it and returns the operation, a frozen dataclass that is also
appended to :attr:`State.operations`.

The hand moves through phases (:class:`Phase`):

1. blinds are posted when the state is created;
2. HOLE_DEALING: every seat is dealt two cards, known (``deal_hole(seat, cards)``) or face
   down and unknown to us (``deal_hole(seat, None)``);
3. BETTING on each street, with :attr:`State.actor` to move;
4. BOARD_DEALING between streets (``deal_board(cards)``);
5. SHOWDOWN: live players show (``show``) or muck (``muck``), or the pots are settled from
   outside (``award``, for logs that give only the result);
6. OVER: pots awarded, :attr:`State.payoffs` final.

With a :class:`Deck` attached (a seeded ``numpy.random.Generator`` shuffles it), all
dealing happens by itself; without one, the caller deals the cards it knows.

Rules
-----
* Seats 0..n-1 (2 to 23 players: dealers seat at most 10, but logs of real games hold
  up to 12, and 23 is what one deck can deal), all in the hand. The small blind sits left
  of the button, the big blind next; heads-up the button posts the small blind, acts
  first pre-flop and last on the flop, turn and river (``heads_up_reverse_blinds``, the
  ACPC "reverse blinds"). With ``heads_up_reverse_blinds=False`` heads-up play follows
  the multi-way rule instead, as the 1995 IRC dealers did: the player left of the button
  posts the small blind and acts first in every round. Pre-flop the player left of the
  big blind acts first; later streets start left of the button.
* Fixed bets: the small bet pre-flop and on the flop, the big bet on the turn and river.
  A bet or raise always makes the bet the current bet plus one bet.
* Cap: ``max_bets`` bets a round. Pre-flop the big blind is the first of them, so with
  max_bets=4 that is the blind plus three raises (the ACPC ``maxRaises = 3 4 4 4``);
  on later streets a bet plus three raises.
* A round ends when every live player who still has chips has acted since the last
  bet or raise and has matched it (or is all-in).
* Folding is allowed only when facing a bet (as in the ACPC dealer and PokerKit's
  tournament mode); ``free_folds=True`` also allows folding when a check is possible,
  for hand logs whose players did that.
* Table stakes: a player who cannot cover a blind, call or raise puts in all they have
  and is all-in. The current bet is the largest amount actually put in this round, so a
  big blind that is short makes the others face only what was posted. All-in players do
  not act again; when at most one live player still has chips at the end of a round, the
  rest of the board is dealt with no more betting. A player whose chips nobody else can
  match no longer acts (heads-up, a button whose small blind already covers an all-in big
  blind does not act pre-flop).
* Short all-in raises (agreeing with PokerKit's fixed-limit play): an all-in raise for
  less than a full bet counts towards the cap, and the next raise still goes to the new
  current bet plus one full bet. It re-opens the betting only for players who have not
  acted since the last full bet or raise; a player who already acted may raise again only
  once consecutive short all-ins add up to at least the largest full increment of the
  round, and a player whose call is less than that increment may only call or fold. The
  first wager of a round always counts as full (pre-flop the blinds are not counted for
  this), so a short all-in opening bet re-opens everything. Nobody may raise when no other
  live player could put in more than the current bet.

  The ACPC dealer (``project_acpc_server`` game.c) has no re-opening rule: in a limit
  game a raise the player cannot cover puts them all-in at their stack and counts as one
  of the round's raises, and afterwards anyone may raise while the cap allows and at
  least two players are neither folded nor all-in. ACPC limit games are normally played
  with effectively unlimited stacks, where the two rules never differ.
* Side pots: one pot per distinct total put in by a live player, main pot first; each
  is contested by the live players who put in at least that much. Chips a player put in
  beyond what anyone else matched come back to them as a pot only they can win.
* Showdown order: the last player to bet or raise in the last betting round played shows
  first; if nobody bet, the first live player left of the button; then clockwise.
  Players may show in any order, the order is recorded (:class:`ShowdownBegan`).
* Each pot goes to the best hand(s) among its eligible players that showed (a player who
  mucks, or never shows, claims nothing; the last claimant of a pot may not muck). Pots
  won by exactly the same players are paid as one pot. A split pot is divided evenly and
  all its odd chips go to the winner first clockwise from the button (the small blind
  side; heads-up the big blind, the button last). Both match PokerKit's payoffs (its
  losing hands leave the pots before they are split, which merges such pots). The ACPC
  dealer reports fractional payoffs for split pots instead.
* Equal blinds heads-up (small blind = big blind): the button still acts first
  pre-flop here; PokerKit would start with the big blind.
* No rake: payoffs (chips won minus chips put in) sum to zero.
* Leaving: :meth:`State.leave` takes a player out of the hand at any moment before it is
  over, in turn or not (a quit or a kick on IRC): it is a fold that needs no turn and no
  bet to face; the round ends if nobody left owes a move, the hand if one player is
  left. At the showdown it gives up any claim, but with three or more still in, the last
  claimant of a pot may not leave (as he may not muck); the last player may never
  leave. :meth:`State.declare_all_in` makes a player with chips behind all-in for what
  he has put in (the IRC dealer's treatment of a lost connection): he takes no further
  part, may still win the pots he is in, and gets his chips behind back when the hand
  ends. Neither happens unless called, so they change nothing for hands without them.

Rule variants
-------------
Every rule above is the standard one (:data:`STANDARD`). A :class:`RuleVariant` passed as
``variant=`` changes some of them; :data:`IRC_1995` holds what the April 1995 #holdem logs
show of the IRC dealer (connectors/logs/irc_database.py, checked hand by hand against those logs):

* ``heads_up_reverse_blinds=False``: heads-up the player left of the button posts the
  small blind and acts first every round (the same as the keyword argument).
* ``free_folds=True``: folding with nothing to call (the same as the keyword argument).
* ``cap_heads_up=False``: no cap while at most two players can still bet (neither folded
  nor all-in), counted afresh at each bet or raise, so the cap lifts in the middle of a
  round once a fold or an all-in leaves two.
* ``short_all_in_counts=False``: an all-in raise for less than a full bet lifts the bet to
  what the player put in but is not one of the round's raises for the cap (the round's
  opening bet is the bet even when short); the next raise goes one full bet above it, and
  it re-opens the betting for everyone, those who already acted included.
* ``short_blind_lowers_bet=False``: the pre-flop bet is the largest blind as set even when
  its poster could not cover it (the others call the full blind).
* ``raise_needs_caller=False``: who acts depends on the chips owed, not on whether a
  raise could be called: a player facing a bet may raise though no other player could
  call it (the chips nobody matched come back to him as a pot only he can win), and one
  who owes nothing and whom nobody left could top is passed over (the big blind whose
  only caller went all-in gets no option).
* ``merge_same_winners=False``: every pot is split on its own, even when the same
  players win the next one.
* ``odd_chips_spread=True``: the odd chips of a split pot go one each to the winners in
  turn, starting with the first clockwise from the button, instead of all to that one.

How many blinds are posted, and how much, is a matter of the hand, not of the variant:
``blinds=`` gives the amounts posted in order, starting with the seat that posts the
small blind (left of the button, or the button heads-up with reverse blinds), default
``(small_blind, big_blind)``. One blind is allowed (some IRC hands had a single blind of
10): the largest blind is the pre-flop bet and the first bet for the cap, and the player
after the last one to post acts first pre-flop.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Union

import numpy as np

from agent.config import TableConfig
from agent.game.slots import slot_constructor
from evaluator_pyx import evaluate
from evaluator_pyx.cards import N_CARDS, card_bit, card_str

__all__ = [
    "Action",
    "AwardedExternally",
    "BetOrRaised",
    "BlindPosted",
    "BoardDealt",
    "CheckedOrCalled",
    "DeclaredAllIn",
    "Deck",
    "Folded",
    "HandEnded",
    "HoleDealt",
    "IRC_1995",
    "IllegalActionError",
    "Left",
    "Mucked",
    "Operation",
    "Phase",
    "Pot",
    "PotAwarded",
    "RuleVariant",
    "STANDARD",
    "ShowdownBegan",
    "Shown",
    "State",
    "Street",
]


class IllegalActionError(ValueError):
    """A move the rules do not allow now; the message names the rule."""


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    SHOWDOWN = 4
    OVER = 5


class Phase(IntEnum):
    HOLE_DEALING = 0
    BETTING = 1
    BOARD_DEALING = 2
    SHOWDOWN = 3
    OVER = 4


class Action(IntEnum):
    """The three limit moves; CHECK_CALL covers check and call, BET_RAISE bet and raise."""

    FOLD = 0
    CHECK_CALL = 1
    BET_RAISE = 2


_STREETS = tuple(Street)
_PHASES = tuple(Phase)
_HOLE_DEALING, _BETTING, _BOARD_DEALING, _SHOWDOWN, _OVER = range(5)
_RIVER, _SHOWDOWN_STREET, _OVER_STREET = 3, 4, 5
_BOARD_COUNTS = (3, 1, 1)  # cards that open the flop, turn, river
_STREET_NAMES = ("pre-flop", "flop", "turn", "river", "showdown", "over")
_CARD_MASK = tuple(1 << card_bit(c) for c in range(N_CARDS))
_ONLY_FOLD = (Action.FOLD,)
_LEGAL = {
    (False, False): (Action.CHECK_CALL,),
    (True, False): (Action.FOLD, Action.CHECK_CALL),
    (False, True): (Action.CHECK_CALL, Action.BET_RAISE),
    (True, True): (Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE),
}


# --- operations -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlindPosted:
    seat: int
    amount: int
    big: bool
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


# --- rule variants ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleVariant:
    """Departures from the standard rules; every default is the standard rule (see the
    module docstring, "Rule variants")."""

    heads_up_reverse_blinds: bool = True  # False: heads-up, the multi-way order
    free_folds: bool = False  # True: folding with nothing to call
    cap_heads_up: bool = True  # False: no cap while at most two can bet
    short_all_in_counts: bool = True  # False: not counted, re-opens for everyone
    short_blind_lowers_bet: bool = True  # False: the pre-flop bet is the full blind
    raise_needs_caller: bool = True  # False: raising into nobody; idle players passed over
    merge_same_winners: bool = True  # False: every pot split on its own
    odd_chips_spread: bool = False  # True: odd chips one each from the button's left


STANDARD = RuleVariant()
IRC_1995 = RuleVariant(
    heads_up_reverse_blinds=False,
    free_folds=True,
    cap_heads_up=False,
    short_all_in_counts=False,
    short_blind_lowers_bet=False,
    raise_needs_caller=False,
    merge_same_winners=False,
    odd_chips_spread=True,
)


# --- deck -------------------------------------------------------------------------------


# The operations made at every deal and action, built without the frozen dataclass's
# slower __init__ (agent/game/slots.py).
_make_blind_posted = slot_constructor(BlindPosted)
_make_hole_dealt = slot_constructor(HoleDealt)
_make_board_dealt = slot_constructor(BoardDealt)
_make_folded = slot_constructor(Folded)
_make_checked_or_called = slot_constructor(CheckedOrCalled)
_make_bet_or_raised = slot_constructor(BetOrRaised)
_make_shown = slot_constructor(Shown)
_make_pot_awarded = slot_constructor(PotAwarded)


@lru_cache(maxsize=1024)
def _seat_orders(n: int, button: int, sb: int, blinds: int) -> tuple[tuple[int, ...], ...]:
    """The blind seats, the pre-flop order and the post-flop order of a hand: the same
    for every hand with these seats, so worked out once."""
    blind_seats = tuple((sb + k) % n for k in range(blinds))
    bb = blind_seats[-1]
    return blind_seats, tuple((bb + 1 + k) % n for k in range(n)), tuple((button + 1 + k) % n for k in range(n))


class Deck:
    """A shuffled deck drawn from an injected generator, so a seed reproduces a deal."""

    __slots__ = ("rng", "_cards")

    def __init__(self, rng: np.random.Generator, exclude: Iterable[int] = ()) -> None:
        self.rng = rng
        cards = rng.permutation(N_CARDS).tolist()
        if exclude:
            gone = set(exclude)
            cards = [c for c in cards if c not in gone]
        # The next card to come is the last one: drawing is a cheap slice off the end.
        self._cards: list[int] = cards

    def __len__(self) -> int:
        return len(self._cards)

    def draw(self, count: int) -> list[int]:
        cards = self._cards
        if count > len(cards):
            raise IllegalActionError(f"the deck has {len(cards)} cards, {count} needed")
        drawn = cards[-count:]
        drawn.reverse()
        del cards[-count:]
        return drawn

    def remove(self, cards: Iterable[int]) -> None:
        """Take cards already in play out of the deck (missing ones are ignored)."""
        gone = set(cards)
        if gone:
            self._cards = [c for c in self._cards if c not in gone]

    def copy(self) -> Deck:
        """The same cards in the same order, sharing the generator."""
        other = Deck.__new__(Deck)
        other.rng = self.rng
        other._cards = self._cards[:]
        return other


# --- the hand ---------------------------------------------------------------------------


def _check_cards(cards: object, count: int, what: str) -> tuple[int, ...]:
    try:
        cards = tuple(cards)  # type: ignore[arg-type]
    except TypeError:
        raise IllegalActionError(f"{what}: expected {count} cards, got {cards!r}") from None
    if len(cards) != count:
        raise IllegalActionError(f"{what}: needs {count} cards, got {len(cards)}")
    for c in cards:
        if type(c) is not int or not 0 <= c < N_CARDS:
            raise IllegalActionError(f"{what}: {c!r} is not a card (ints 0..51)")
    if len(set(cards)) != count:
        raise IllegalActionError(f"{what}: duplicate card in {' '.join(map(card_str, cards))}")
    return cards


# One deck deals 2 cards to each of 23 players and leaves 6 for the board and burns.
MAX_PLAYERS = 23


class State:
    """One limit hold'em hand: blinds posted on creation, then deal, bet, show, award.

    ``config`` gives the blinds, bet sizes and cap (its ``seats`` and ``starting_stack``
    are not used); ``stacks`` are the starting stacks by seat (every seat plays);
    ``button`` the dealer's seat. ``deck`` deals every card automatically; ``hole_cards`` (seat -> two cards) fixes
    some holdings, the deck dealing the rest. ``auto_show`` shows every live player whose
    cards are known as soon as the showdown begins (players with unknown cards still need
    :meth:`show` or :meth:`muck`). ``free_folds`` allows folding with nothing to call.
    ``heads_up_reverse_blinds=False`` gives heads-up hands the multi-way order (see the
    module docstring). ``blinds`` are the blinds posted, in order from the small blind's
    seat (default ``(small_blind, big_blind)``). ``variant`` changes rules as a whole
    (:class:`RuleVariant`); ``free_folds`` and ``heads_up_reverse_blinds`` are shorthands
    for two of its fields, and giving one that disagrees with ``variant`` is an error.
    """

    __slots__ = (
        "config", "_n", "_button", "_sb", "_bb", "_small", "_big", "_max_bets",
        "_pre_order", "_post_order", "_starting", "_stacks", "_bets", "_put", "_won",
        "_folded", "_live", "_phase", "_street", "_runout", "_level", "_size", "_cap",
        "_raises", "_full", "_shorts", "_acted", "_queue", "_aggressor",
        "_holes", "_dealt", "_board", "_used", "_values", "_pending_show", "_show_order",
        "_deck", "_auto_show", "_free_folds", "_ops",
        "_variant", "_cap_heads_up", "_short_counts", "_needs_caller", "_blind_seats",
        "_blind_bet", "_parked", "_spread_odd", "_merge_pots",
    )

    def __init__(
        self,
        config: TableConfig,
        stacks: Sequence[int],
        button: int,
        *,
        deck: Deck | None = None,
        hole_cards: Mapping[int, Sequence[int]] | None = None,
        auto_show: bool = True,
        free_folds: bool = False,
        heads_up_reverse_blinds: bool = True,
        blinds: Sequence[int] | None = None,
        variant: RuleVariant | None = None,
    ) -> None:
        if variant is None:
            if not free_folds and heads_up_reverse_blinds:
                variant = STANDARD
            else:
                variant = RuleVariant(heads_up_reverse_blinds=bool(heads_up_reverse_blinds),
                                      free_folds=bool(free_folds))
        elif not isinstance(variant, RuleVariant):
            raise IllegalActionError(f"variant must be a RuleVariant, got {variant!r}")
        elif free_folds and not variant.free_folds:
            raise IllegalActionError("free_folds=True contradicts the variant's free_folds=False")
        elif not heads_up_reverse_blinds and variant.heads_up_reverse_blinds:
            raise IllegalActionError("heads_up_reverse_blinds=False contradicts the variant's "
                                     "heads_up_reverse_blinds=True")
        n = len(stacks)
        if not 2 <= n <= MAX_PLAYERS:
            raise IllegalActionError(f"a hand needs 2-{MAX_PLAYERS} players, got {n}")
        for seat, stack in enumerate(stacks):
            if type(stack) is not int or stack <= 0:
                raise IllegalActionError(f"seat {seat} needs a positive whole stack, got {stack!r}")
        if type(button) is not int or not 0 <= button < n:
            raise IllegalActionError(f"button must be a seat 0..{n - 1}, got {button!r}")
        if blinds is None:
            posted = (config.small_blind, config.big_blind)
        else:
            posted = tuple(blinds)
            if not 1 <= len(posted) <= n:
                raise IllegalActionError(f"a hand needs 1-{n} blinds, got {len(posted)}")
            for amount in posted:
                if type(amount) is not int or amount <= 0:
                    raise IllegalActionError(
                        f"a blind must be a positive whole amount, got {amount!r}")
        self.config = config
        self._variant = variant
        self._cap_heads_up = variant.cap_heads_up
        self._short_counts = variant.short_all_in_counts
        self._needs_caller = variant.raise_needs_caller
        self._spread_odd = variant.odd_chips_spread
        self._merge_pots = variant.merge_same_winners
        self._n = n
        self._button = button
        self._sb = button if n == 2 and variant.heads_up_reverse_blinds else (button + 1) % n
        self._blind_seats, self._pre_order, self._post_order = _seat_orders(n, button, self._sb, len(posted))
        self._bb = self._blind_seats[-1]
        # With short_blind_lowers_bet the bet is whatever was posted, found when betting starts.
        self._blind_bet = 0 if variant.short_blind_lowers_bet else max(posted)
        self._small = config.small_bet
        self._big = config.big_bet
        self._max_bets = config.max_bets
        self._starting = tuple(stacks)
        self._stacks = list(stacks)
        self._bets = [0] * n
        self._put = [0] * n
        self._won = [0] * n
        self._folded = [False] * n
        self._live = n
        self._phase = _HOLE_DEALING
        self._street = 0
        self._runout = False
        self._level = 0
        self._size = config.small_bet
        self._cap = config.max_bets - 1
        self._raises = 0
        self._full = 0
        self._shorts = 0
        self._acted = 0
        self._queue: list[int] = []
        self._aggressor = -1
        self._holes: list[tuple[int, int] | None] = [None] * n
        self._dealt = 0  # bit per seat dealt, known or not
        self._board: list[int] = []
        self._used = 0  # mask of every known card in play
        self._values = [0] * n  # hand value of each seat that showed
        self._pending_show = 0  # bit per seat still to show or muck
        self._show_order: tuple[int, ...] = ()
        self._deck: Deck | None = None
        self._auto_show = auto_show
        self._free_folds = variant.free_folds
        # Chips behind of players declared all-in, by seat; None until someone is.
        self._parked: list[int] | None = None
        self._ops: list[Operation] = []

        # The last of the largest blinds is the big one, the pre-flop bet.
        big = len(posted) - 1 - posted[::-1].index(max(posted))
        for k, (seat, amount) in enumerate(zip(self._blind_seats, posted)):
            self._post_blind(seat, amount, k == big)
        if hole_cards:
            for seat, cards in sorted(hole_cards.items()):
                self.deal_hole(seat, cards)
        if deck is not None:
            self.attach_deck(deck)

    def _post_blind(self, seat: int, blind: int, big: bool) -> None:
        amount = min(blind, self._stacks[seat])
        self._stacks[seat] -= amount
        self._bets[seat] = amount
        self._put[seat] = amount
        self._ops.append(_make_blind_posted(seat, amount, big, self._stacks[seat] == 0))

    # --- copying -------------------------------------------------------------------------

    def copy(self) -> State:
        """An independent copy (the operation log and any deck are copied too) for
        simulations; attach a fresh :class:`Deck` to the copy to deal new cards."""
        other = State.__new__(State)
        for name in ("config", "_n", "_button", "_sb", "_bb", "_small", "_big", "_max_bets",
                     "_pre_order", "_post_order", "_starting", "_live", "_phase", "_street",
                     "_runout", "_level", "_size", "_cap", "_raises", "_full", "_shorts",
                     "_acted", "_aggressor", "_dealt", "_used", "_pending_show", "_show_order",
                     "_auto_show", "_free_folds", "_variant", "_cap_heads_up", "_short_counts",
                     "_needs_caller", "_blind_seats", "_blind_bet", "_spread_odd",
                     "_merge_pots"):
            setattr(other, name, getattr(self, name))
        other._parked = None if self._parked is None else self._parked[:]
        other._stacks = self._stacks[:]
        other._bets = self._bets[:]
        other._put = self._put[:]
        other._won = self._won[:]
        other._folded = self._folded[:]
        other._queue = self._queue[:]
        other._holes = self._holes[:]
        other._board = self._board[:]
        other._values = self._values[:]
        other._ops = self._ops[:]
        other._deck = None if self._deck is None else self._deck.copy()
        return other

    # --- read-only views -------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return self._n

    @property
    def button(self) -> int:
        return self._button

    @property
    def small_blind_seat(self) -> int:
        """The first seat to post a blind (with a single blind, the seat that posted it)."""
        return self._sb

    @property
    def big_blind_seat(self) -> int:
        """The last seat to post a blind (with a single blind, the seat that posted it)."""
        return self._bb

    @property
    def blind_seats(self) -> tuple[int, ...]:
        """The seats that posted blinds, in the order they posted."""
        return self._blind_seats

    @property
    def variant(self) -> RuleVariant:
        return self._variant

    @property
    def phase(self) -> Phase:
        return _PHASES[self._phase]

    @property
    def street(self) -> Street:
        """PREFLOP..RIVER while the hand is played (between streets, the one whose betting
        just ended, until the next board is dealt), then SHOWDOWN, then OVER."""
        return _STREETS[self._street]

    @property
    def is_over(self) -> bool:
        return self._phase == _OVER

    @property
    def actor(self) -> int | None:
        """The seat to act, or None when nobody is (dealing, showdown, over)."""
        return self._queue[0] if self._phase == _BETTING else None

    @property
    def operations(self) -> list[Operation]:
        """The operation log, oldest first (do not modify)."""
        return self._ops

    @property
    def board(self) -> tuple[int, ...]:
        return tuple(self._board)

    def hole_cards(self, seat: int) -> tuple[int, int] | None:
        """The seat's two cards if known (dealt face up to us or shown), else None."""
        return self._holes[seat]

    @property
    def starting_stacks(self) -> tuple[int, ...]:
        return self._starting

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips behind each seat now (those of a player declared all-in included); the
        final stacks once the hand is over."""
        if self._parked is not None and self._phase != _OVER:
            return tuple(s + k for s, k in zip(self._stacks, self._parked))
        return tuple(self._stacks)

    @property
    def bets(self) -> tuple[int, ...]:
        """Chips each seat has put in during the current betting round."""
        return tuple(self._bets)

    @property
    def put_in(self) -> tuple[int, ...]:
        """Chips each seat has put in during the whole hand."""
        return tuple(self._put)

    @property
    def won(self) -> tuple[int, ...]:
        """Chips each seat received from the pots (0 until the hand is over)."""
        return tuple(self._won)

    @property
    def payoffs(self) -> tuple[int, ...]:
        """Chips won minus chips put in, per seat; sums to zero once the hand is over."""
        return tuple(w - p for w, p in zip(self._won, self._put))

    @property
    def pot(self) -> int:
        """All chips put in this hand, this round's bets included."""
        return sum(self._put)

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot first, then side pots, from what has been put in so far."""
        return tuple(Pot(a, e) for a, e in self._pots())

    @property
    def current_bet(self) -> int:
        """The largest bet of the current round (what a call matches)."""
        return self._level if self._phase == _BETTING else 0

    @property
    def bet_size(self) -> int:
        """The fixed bet of the current street: small bet pre-flop and flop, else big bet."""
        return self._small if self._street <= 1 else self._big

    @property
    def max_bets(self) -> int:
        return self._max_bets

    def to_call(self, seat: int) -> int:
        """Chips the seat would put in by calling now (capped by its stack)."""
        if self._phase != _BETTING:
            return 0
        return min(self._stacks[seat], self._level - self._bets[seat])

    @property
    def bets_this_round(self) -> int:
        """Bets made this round, the big blind counting as the first pre-flop."""
        if self._phase != _BETTING:
            return 0
        return self._raises + 1 if self._street == 0 else self._raises

    @property
    def raises_this_round(self) -> int:
        if self._phase != _BETTING:
            return 0
        return self._raises if self._street == 0 else max(0, self._raises - 1)

    @property
    def is_capped(self) -> bool:
        return (self._phase == _BETTING and self._raises >= self._cap
                and (self._cap_heads_up or self._able() > 2))

    @property
    def raise_to(self) -> int | None:
        """The actor's bet after a bet/raise now (less than a full one if all-in), or None
        if the actor may not bet or raise."""
        if self._phase != _BETTING or self._raise_problem(self._queue[0]) is not None:
            return None
        actor = self._queue[0]
        return min(self._stacks[actor] + self._bets[actor],
                   self._level + max(self._full, self._size))

    @property
    def last_aggressor(self) -> int | None:
        """Who bet or raised last in the current (or last played) betting round."""
        return None if self._aggressor < 0 else self._aggressor

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the hand (not folded), all-in ones included."""
        folded = self._folded
        return tuple(s for s in range(self._n) if not folded[s])

    @property
    def folded(self) -> tuple[int, ...]:
        folded = self._folded
        return tuple(s for s in range(self._n) if folded[s])

    @property
    def all_in(self) -> tuple[int, ...]:
        """Live seats with no chips left behind."""
        folded, stacks = self._folded, self._stacks
        if self._phase == _OVER:  # stacks now include winnings
            put, starting = self._put, self._starting
            parked = self._parked or [0] * self._n
            return tuple(s for s in range(self._n)
                         if not folded[s] and (parked[s] or put[s] == starting[s]))
        return tuple(s for s in range(self._n) if not folded[s] and not stacks[s])

    @property
    def pending_hole_seats(self) -> tuple[int, ...]:
        """Seats still to be dealt hole cards."""
        if self._phase != _HOLE_DEALING:
            return ()
        return tuple(s for s in self._post_order if not self._dealt >> s & 1)

    @property
    def pending_board_count(self) -> int:
        """Cards the next :meth:`deal_board` takes (in a run-out it may also take all the
        cards still to come at once), or 0 when no board is due."""
        return _BOARD_COUNTS[self._street] if self._phase == _BOARD_DEALING else 0

    @property
    def showdown_order(self) -> tuple[int, ...]:
        return self._show_order

    @property
    def pending_showdown(self) -> tuple[int, ...]:
        """Seats still to show or muck, in showdown order."""
        return tuple(s for s in self._show_order if self._pending_show >> s & 1)

    def hand_value(self, seat: int) -> int | None:
        """The value of the hand a seat showed, else None."""
        return self._values[seat] or None

    def legal_actions(self) -> tuple[Action, ...]:
        """The actor's legal moves (empty when nobody is to act)."""
        if self._phase != _BETTING:
            return ()
        actor = self._queue[0]
        facing = self._bets[actor] < self._level
        return _LEGAL[(facing or self._free_folds, self._raise_problem(actor) is None)]

    def __repr__(self) -> str:
        return (f"<State {_STREET_NAMES[self._street]} {_PHASES[self._phase].name} "
                f"actor={self.actor} pot={self.pot} stacks={self._stacks}>")

    # --- dealing -------------------------------------------------------------------------

    def attach_deck(self, deck: Deck) -> None:
        """Deal every card from now on from ``deck`` (cards already in play are taken out of
        it), starting with whatever is due now."""
        known = [c for c in range(N_CARDS) if self._used & _CARD_MASK[c]]
        deck.remove(known)
        self._deck = deck
        self._deal_from_deck()

    def _deal_from_deck(self) -> None:
        deck = self._deck
        if deck is None:
            return
        if self._phase == _HOLE_DEALING:
            for seat in self._post_order:
                if not self._dealt >> seat & 1:
                    self._deal_hole(seat, tuple(deck.draw(2)))
            # the last hole deal has begun the betting
        while self._phase == _BOARD_DEALING:
            self._deal_board(tuple(deck.draw(_BOARD_COUNTS[self._street])))

    def verify_deal_hole(self, seat: int, cards: Sequence[int] | None) -> tuple[int, int] | None:
        if self._phase != _HOLE_DEALING:
            raise IllegalActionError(
                "cannot deal hole cards: hole cards are dealt only before the pre-flop betting")
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalActionError(f"cannot deal hole cards: no seat {seat!r}")
        if self._dealt >> seat & 1:
            raise IllegalActionError(f"cannot deal hole cards: seat {seat} already has its cards")
        if cards is None:
            return None
        cards = _check_cards(cards, 2, f"hole cards for seat {seat}")
        self._verify_unused(cards)
        return cards  # type: ignore[return-value]

    def can_deal_hole(self, seat: int, cards: Sequence[int] | None) -> bool:
        try:
            self.verify_deal_hole(seat, cards)
        except IllegalActionError:
            return False
        return True

    def deal_hole(self, seat: int, cards: Sequence[int] | None) -> HoleDealt:
        """Deal a seat its two cards; ``None`` deals them face down (unknown to us)."""
        return self._deal_hole(seat, self.verify_deal_hole(seat, cards))

    def deal_holes(
        self, cards: Mapping[int, Sequence[int] | None] | Sequence[Sequence[int] | None]
    ) -> list[HoleDealt]:
        """Deal every seat still waiting: from a mapping (seats not in it get unknown cards)
        or a sequence indexed by seat (None for unknown)."""
        if not isinstance(cards, Mapping):
            if len(cards) != self._n:
                raise IllegalActionError(
                    f"cannot deal hole cards: {len(cards)} hands for {self._n} seats")
            cards = dict(enumerate(cards))
        # Check every holding first so a bad one leaves no seat half dealt.
        waiting = [s for s in self._post_order if not self._dealt >> s & 1]
        seen: set[int] = set()
        for seat in waiting:
            given = self.verify_deal_hole(seat, cards.get(seat))
            if given is not None:
                for c in given:
                    if c in seen:
                        raise IllegalActionError(f"card {card_str(c)} is dealt twice")
                    seen.add(c)
        return [self._deal_hole(seat, self.verify_deal_hole(seat, cards.get(seat)))
                for seat in waiting]

    def _deal_hole(self, seat: int, cards: tuple[int, int] | None) -> HoleDealt:
        self._dealt |= 1 << seat
        if cards is not None:
            self._holes[seat] = cards
            self._used |= _CARD_MASK[cards[0]] | _CARD_MASK[cards[1]]
        op = _make_hole_dealt(seat, cards)
        self._ops.append(op)
        if self._dealt == (1 << self._n) - 1:
            self._begin_round()
        return op

    def _verify_unused(self, cards: Sequence[int]) -> None:
        used = self._used
        for c in cards:
            if used & _CARD_MASK[c]:
                raise IllegalActionError(f"card {card_str(c)} is already in play")

    def verify_deal_board(self, cards: Sequence[int]) -> tuple[int, ...]:
        if self._phase != _BOARD_DEALING:
            if self._phase == _BETTING:
                why = f"betting on the {_STREET_NAMES[self._street]} is not finished"
            elif self._phase == _HOLE_DEALING:
                why = "hole cards are still being dealt"
            else:
                why = "the board is complete"
            raise IllegalActionError(f"cannot deal the board now: {why}")
        try:
            count = len(cards)
        except TypeError:
            raise IllegalActionError(f"board: expected cards, got {cards!r}") from None
        need = _BOARD_COUNTS[self._street]
        if count != need and not (self._runout and count in _run_lengths(self._street)):
            nxt = _STREET_NAMES[self._street + 1]
            plural = "s" if need > 1 else ""
            raise IllegalActionError(f"the {nxt} needs {need} card{plural}, got {count}")
        cards = _check_cards(cards, count, "board")
        self._verify_unused(cards)
        return cards

    def can_deal_board(self, cards: Sequence[int]) -> bool:
        try:
            self.verify_deal_board(cards)
        except IllegalActionError:
            return False
        return True

    def deal_board(self, cards: Sequence[int]) -> BoardDealt:
        """Deal the next street's board cards. In an all-in run-out (no betting left) the
        cards of several streets may come at once; each street is logged separately and
        the last operation returned."""
        cards = self.verify_deal_board(cards)
        op = None
        while cards:
            k = _BOARD_COUNTS[self._street]
            op = self._deal_board(cards[:k])
            cards = cards[k:]
        return op  # type: ignore[return-value]

    def _deal_board(self, cards: tuple[int, ...]) -> BoardDealt:
        for c in cards:
            self._used |= _CARD_MASK[c]
        self._board.extend(cards)
        self._street += 1
        op = _make_board_dealt(_STREETS[self._street], cards)
        self._ops.append(op)
        if not self._runout:
            self._begin_round()
        elif self._street == _RIVER:
            self._begin_showdown()
        return op

    # --- betting rounds ------------------------------------------------------------------

    def _begin_round(self) -> None:
        if self._live == 1:  # everyone else left while the cards were dealt
            self._end_round()
            return
        street = self._street
        stacks, bets, folded = self._stacks, self._bets, self._folded
        self._raises = self._full = self._shorts = self._acted = 0
        self._aggressor = -1
        if street == 0:
            self._level = level = max(max(bets), self._blind_bet)
            order = self._pre_order
            self._cap = self._max_bets - 1
            self._size = self._small
        else:
            self._level = level = 0
            order = self._post_order
            self._cap = self._max_bets
            self._size = self._small if street == 1 else self._big
        queue = []
        for s in order:
            if folded[s] or not stacks[s]:
                continue
            mine = bets[s]
            if mine < level:  # owes chips, so must act
                queue.append(s)
                continue
            # Someone whose bet no other live player can top has nothing left to play for.
            for j in order:
                if j != s and not folded[j] and bets[j] + stacks[j] > mine:
                    queue.append(s)
                    break
        self._queue = queue
        if not queue or (len(queue) == 1 and bets[queue[0]] >= level):
            self._end_round()
        else:
            self._phase = _BETTING

    def _end_round(self) -> None:
        self._queue = []
        if self._live == 1:
            self._settle()
            return
        bets = self._bets
        for s in range(self._n):
            bets[s] = 0
        if self._street == _RIVER:
            self._begin_showdown()
            return
        stacks, folded = self._stacks, self._folded
        able = 0
        for s in range(self._n):
            if stacks[s] and not folded[s]:
                able += 1
        self._runout = able <= 1
        self._phase = _BOARD_DEALING
        if self._deck is not None:
            self._deal_from_deck()

    def _can_be_topped(self, seat: int) -> bool:
        """Whether another live player could put in more than ``seat`` has this round;
        someone whose bet nobody can top, and who owes nothing, has nothing to play for."""
        mine, bets, stacks, folded = self._bets[seat], self._bets, self._stacks, self._folded
        for j in range(self._n):
            if j != seat and not folded[j] and bets[j] + stacks[j] > mine:
                return True
        return False

    def _able(self) -> int:
        """Players who can still bet: neither folded nor all-in."""
        stacks, folded = self._stacks, self._folded
        return sum(1 for s in range(self._n) if stacks[s] and not folded[s])

    def _actor_for(self, seat: int | None, what: str) -> int:
        if self._phase != _BETTING:
            who = "nobody can" if seat is None else f"seat {seat} cannot"
            raise IllegalActionError(f"{who} {what} now: {self._idle_reason()}")
        actor = self._queue[0]
        if seat is not None and seat != actor:
            if type(seat) is int and 0 <= seat < self._n and self._folded[seat]:
                raise IllegalActionError(f"seat {seat} cannot {what}: it has folded")
            if type(seat) is int and 0 <= seat < self._n and not self._stacks[seat]:
                raise IllegalActionError(f"seat {seat} cannot {what}: it is all-in")
            raise IllegalActionError(f"seat {seat} cannot {what}: it is seat {actor}'s turn")
        return actor

    def _idle_reason(self) -> str:
        phase = self._phase
        if phase == _HOLE_DEALING:
            return "hole cards are still being dealt"
        if phase == _BOARD_DEALING:
            return f"the {_STREET_NAMES[self._street + 1]} has not been dealt"
        if phase == _SHOWDOWN:
            return "the hand is at showdown"
        return "the hand is over"

    def _raise_problem(self, actor: int) -> str | None:
        if self._raises >= self._cap and (self._cap_heads_up or self._able() > 2):
            return f"betting is capped at {self._max_bets} bets this round"
        stacks, bets = self._stacks, self._bets
        stack = stacks[actor]
        facing = self._level - bets[actor]
        if stack <= facing:
            return f"seat {actor} cannot raise: its {stack} chips only cover the call"
        if self._short_counts:  # otherwise a short all-in re-opens the betting for everyone
            full = self._full
            if facing < full:
                return (f"seat {actor} cannot raise: facing a short all-in raise "
                        f"({facing} to call, less than a full {full})")
            if self._shorts and self._shorts < full and self._acted >> actor & 1:
                return (f"seat {actor} cannot raise: it has acted and the short all-in raise "
                        "did not re-open the betting")
        if not self._needs_caller:
            return None
        level, folded = self._level, self._folded
        for j in range(self._n):
            if j != actor and not folded[j] and bets[j] + stacks[j] > level:
                return None
        return f"seat {actor} cannot raise: no other player has chips to call a raise"

    # fold

    def verify_fold(self, seat: int | None = None) -> int:
        """Raise if the actor (or ``seat``, which must be the actor) may not fold; return the
        actor."""
        actor = self._actor_for(seat, "fold")
        if self._bets[actor] >= self._level and not self._free_folds:
            raise IllegalActionError(f"seat {actor} cannot fold: nothing to call (check instead)")
        return actor

    def can_fold(self, seat: int | None = None) -> bool:
        try:
            self.verify_fold(seat)
        except IllegalActionError:
            return False
        return True

    def fold(self, seat: int | None = None) -> Folded:
        actor = self.verify_fold(seat)
        queue = self._queue
        del queue[0]
        self._acted |= 1 << actor
        self._folded[actor] = True
        self._live -= 1
        op = _make_folded(actor)
        self._ops.append(op)
        if queue and self._live > 1 and not self._needs_caller:
            self._pass_over_idle()
        if self._live == 1 or not queue:
            self._end_round()
        return op

    # check / call

    def verify_check_or_call(self, seat: int | None = None) -> int:
        return self._actor_for(seat, "check or call")

    def can_check_or_call(self, seat: int | None = None) -> bool:
        try:
            self.verify_check_or_call(seat)
        except IllegalActionError:
            return False
        return True

    def verify_check(self, seat: int | None = None) -> int:
        actor = self._actor_for(seat, "check")
        owed = self._level - self._bets[actor]
        if owed > 0:
            raise IllegalActionError(f"seat {actor} cannot check: facing {owed} to call")
        return actor

    def can_check(self, seat: int | None = None) -> bool:
        try:
            self.verify_check(seat)
        except IllegalActionError:
            return False
        return True

    def verify_call(self, seat: int | None = None) -> int:
        actor = self._actor_for(seat, "call")
        if self._level <= self._bets[actor]:
            raise IllegalActionError(
                f"seat {actor} cannot call: there is no bet to call (check instead)")
        return actor

    def can_call(self, seat: int | None = None) -> bool:
        try:
            self.verify_call(seat)
        except IllegalActionError:
            return False
        return True

    def check_or_call(self, seat: int | None = None) -> CheckedOrCalled:
        return self._call(self.verify_check_or_call(seat))

    def check(self, seat: int | None = None) -> CheckedOrCalled:
        return self._call(self.verify_check(seat))

    def call(self, seat: int | None = None) -> CheckedOrCalled:
        return self._call(self.verify_call(seat))

    def _call(self, actor: int) -> CheckedOrCalled:
        queue = self._queue
        del queue[0]
        self._acted |= 1 << actor
        stacks = self._stacks
        amount = self._level - self._bets[actor]
        if amount > stacks[actor]:
            amount = stacks[actor]
        if amount:
            stacks[actor] -= amount
            self._bets[actor] += amount
            self._put[actor] += amount
        op = _make_checked_or_called(actor, amount, stacks[actor] == 0)
        self._ops.append(op)
        if queue and not self._needs_caller:
            self._pass_over_idle()
        if not queue:
            self._end_round()
        return op

    # bet / raise

    def verify_bet_or_raise(self, seat: int | None = None) -> int:
        actor = self._actor_for(seat, "bet or raise")
        problem = self._raise_problem(actor)
        if problem is not None:
            raise IllegalActionError(problem)
        return actor

    def can_bet_or_raise(self, seat: int | None = None) -> bool:
        try:
            self.verify_bet_or_raise(seat)
        except IllegalActionError:
            return False
        return True

    def verify_bet(self, seat: int | None = None) -> int:
        actor = self._actor_for(seat, "bet")
        if self._street == 0 or self._raises:
            if self._street == 0 and not self._raises:
                what = "the big blind"
            else:
                what = f"a bet of {self._level}"
            raise IllegalActionError(
                f"seat {actor} cannot bet: there is already {what} (raise instead)")
        problem = self._raise_problem(actor)
        if problem is not None:
            raise IllegalActionError(problem)
        return actor

    def can_bet(self, seat: int | None = None) -> bool:
        try:
            self.verify_bet(seat)
        except IllegalActionError:
            return False
        return True

    def verify_raise(self, seat: int | None = None) -> int:
        actor = self._actor_for(seat, "raise")
        if self._street != 0 and not self._raises:
            raise IllegalActionError(
                f"seat {actor} cannot raise: there is no bet to raise (bet instead)")
        problem = self._raise_problem(actor)
        if problem is not None:
            raise IllegalActionError(problem)
        return actor

    def can_raise(self, seat: int | None = None) -> bool:
        try:
            self.verify_raise(seat)
        except IllegalActionError:
            return False
        return True

    def bet_or_raise(self, seat: int | None = None) -> BetOrRaised:
        return self._raise(self.verify_bet_or_raise(seat))

    def bet(self, seat: int | None = None) -> BetOrRaised:
        return self._raise(self.verify_bet(seat))

    def raise_(self, seat: int | None = None) -> BetOrRaised:
        return self._raise(self.verify_raise(seat))

    def _raise(self, actor: int) -> BetOrRaised:
        stacks, bets = self._stacks, self._bets
        level = self._level
        full = self._full
        to = level + (full if full > self._size else self._size)
        cover = stacks[actor] + bets[actor]
        if to > cover:
            to = cover
        added = to - bets[actor]
        by = to - level
        stacks[actor] -= added
        bets[actor] = to
        self._put[actor] += added
        all_in = stacks[actor] == 0
        # Everyone else who can still act must answer the raise, in turn from the raiser.
        n, folded = self._n, self._folded
        queue = []
        for k in range(1, n):
            s = (actor + k) % n
            if not folded[s] and stacks[s]:
                queue.append(s)
        self._queue = queue
        if self._short_counts:
            is_full = by >= full
            if is_full:
                self._acted = 1 << actor
            else:
                self._acted |= 1 << actor
            self._raises += 1
        else:
            # Only a full raise, or the round's opening bet however short, is one of the
            # round's bets for the cap; any raise re-opens the betting.
            is_full = by >= self._size or (self._street > 0 and self._raises == 0)
            self._acted = 1 << actor
            if is_full:
                self._raises += 1
        if by > full:
            full = by
        self._full = full
        if all_in and self._short_counts:
            self._shorts += by
            if self._shorts >= full:
                self._shorts = 0
        else:
            self._shorts = 0
        self._level = to
        self._aggressor = actor
        op = _make_bet_or_raised(actor, to, added, all_in, is_full)
        self._ops.append(op)
        if not queue:  # a raise nobody can answer (raise_needs_caller=False)
            self._end_round()
        return op

    def act(self, action: Action | int, seat: int | None = None) -> Operation:
        """Do one of the three limit moves (see :class:`Action`)."""
        if action == Action.FOLD:
            return self.fold(seat)
        if action == Action.CHECK_CALL:
            return self.check_or_call(seat)
        if action == Action.BET_RAISE:
            return self.bet_or_raise(seat)
        raise IllegalActionError(f"not an action: {action!r}")

    # --- leaving and declared all-ins (any seat, in turn or not) ------------------------

    def _live_seat(self, seat: int, what: str) -> int:
        if self._phase == _OVER:
            raise IllegalActionError(f"seat {seat} cannot {what}: the hand is over")
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalActionError(f"cannot {what}: no seat {seat!r}")
        if self._folded[seat]:
            raise IllegalActionError(f"seat {seat} cannot {what}: it has folded")
        return seat

    def verify_leave(self, seat: int) -> int:
        seat = self._live_seat(seat, "leave the hand")
        if self._live == 1:
            raise IllegalActionError(f"seat {seat} cannot leave: it is the last player in the hand")
        if self._phase == _SHOWDOWN and self._live > 2 and self._last_claimant(seat):
            # Otherwise a pot could be left to players who all mucked.
            raise IllegalActionError(
                f"seat {seat} cannot leave: no one else is left to claim a pot it is in")
        return seat

    def can_leave(self, seat: int) -> bool:
        try:
            self.verify_leave(seat)
        except IllegalActionError:
            return False
        return True

    def leave(self, seat: int) -> Left:
        """Take a live player out of the hand at once, whoever's turn it is: a fold that
        needs no turn and no bet to face (at the showdown, giving up any claim)."""
        seat = self.verify_leave(seat)
        self._folded[seat] = True
        self._live -= 1
        self._acted |= 1 << seat
        op = Left(seat)
        self._ops.append(op)
        phase = self._phase
        if phase == _SHOWDOWN:
            self._pending_show &= ~(1 << seat)
            if self._live == 1 or not self._pending_show:
                self._settle()
        elif phase == _BETTING:
            self._leave_queue(seat)
        elif self._live == 1 and phase == _BOARD_DEALING:
            self._settle()
        elif phase == _BOARD_DEALING:
            self._runout = self._able() <= 1
        return op

    def verify_declare_all_in(self, seat: int) -> int:
        seat = self._live_seat(seat, "be declared all-in")
        if self._phase == _SHOWDOWN:
            raise IllegalActionError(
                f"seat {seat} cannot be declared all-in: the hand is at showdown")
        if not self._stacks[seat]:
            raise IllegalActionError(f"seat {seat} cannot be declared all-in: it already is")
        return seat

    def can_declare_all_in(self, seat: int) -> bool:
        try:
            self.verify_declare_all_in(seat)
        except IllegalActionError:
            return False
        return True

    def declare_all_in(self, seat: int) -> DeclaredAllIn:
        """Make a live player with chips behind all-in for what he has put in, whoever's
        turn it is: he takes no further part, may win the pots he is in, and gets his
        chips behind back when the hand ends."""
        seat = self.verify_declare_all_in(seat)
        behind = self._stacks[seat]
        if self._parked is None:
            self._parked = [0] * self._n
        self._parked[seat] = behind
        self._stacks[seat] = 0
        op = DeclaredAllIn(seat, behind)
        self._ops.append(op)
        if self._phase == _BETTING:
            self._leave_queue(seat)
        elif self._phase == _BOARD_DEALING:
            self._runout = self._able() <= 1
        return op

    def _leave_queue(self, seat: int) -> None:
        """Betting goes on without ``seat``: the round ends when nobody left owes a move."""
        queue = self._queue
        if seat in queue:
            queue.remove(seat)
        if self._live == 1:
            self._end_round()
            return
        if not self._needs_caller:
            self._pass_over_idle()
        if not queue:
            self._end_round()

    def _pass_over_idle(self) -> None:
        """Drop from the queue those with nothing to call whom nobody left could top."""
        queue, level, bets = self._queue, self._level, self._bets
        queue[:] = [s for s in queue if bets[s] < level or self._can_be_topped(s)]

    # --- showdown and settlement ---------------------------------------------------------

    def _begin_showdown(self) -> None:
        self._phase = _SHOWDOWN
        self._street = _SHOWDOWN_STREET
        n, folded = self._n, self._folded
        start = self._aggressor if self._aggressor >= 0 else (self._button + 1) % n
        order = tuple((start + k) % n for k in range(n) if not folded[(start + k) % n])
        self._show_order = order
        pending = 0
        for s in order:
            pending |= 1 << s
        self._pending_show = pending
        self._ops.append(ShowdownBegan(order))
        if self._auto_show:
            holes = self._holes
            for s in order:
                if holes[s] is not None:
                    self._show(s, holes[s])
        if not self._pending_show:
            self._settle()

    def _showdown_seat(self, seat: int | None, what: str) -> int:
        if self._phase != _SHOWDOWN:
            why = "the hand is over" if self._phase == _OVER else "there is no showdown yet"
            raise IllegalActionError(f"cannot {what} now: {why}")
        if seat is None:
            for s in self._show_order:
                if self._pending_show >> s & 1:
                    return s
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalActionError(f"cannot {what}: no seat {seat!r}")
        if not self._pending_show >> seat & 1:
            why = "it has folded" if self._folded[seat] else "it has already shown or mucked"
            raise IllegalActionError(f"seat {seat} cannot {what}: {why}")
        return seat

    def verify_show(
        self, seat: int | None = None, cards: Sequence[int] | None = None
    ) -> tuple[int, tuple[int, int]]:
        """Check a show; ``seat`` defaults to the next in showdown order, ``cards`` to the
        seat's known hole cards. Returns (seat, cards)."""
        seat = self._showdown_seat(seat, "show")
        known = self._holes[seat]
        if cards is None:
            if known is None:
                raise IllegalActionError(
                    f"seat {seat}'s hole cards are unknown: give the cards it shows")
            return seat, known
        cards = _check_cards(cards, 2, f"cards shown by seat {seat}")
        if known is not None:
            if set(cards) != set(known):
                raise IllegalActionError(
                    f"seat {seat} shows {' '.join(map(card_str, cards))} but was dealt "
                    f"{' '.join(map(card_str, known))}")
            return seat, known
        self._verify_unused(cards)
        return seat, cards  # type: ignore[return-value]

    def can_show(self, seat: int | None = None, cards: Sequence[int] | None = None) -> bool:
        try:
            self.verify_show(seat, cards)
        except IllegalActionError:
            return False
        return True

    def show(self, seat: int | None = None, cards: Sequence[int] | None = None) -> Shown:
        seat, cards = self.verify_show(seat, cards)
        op = self._show(seat, cards)
        if not self._pending_show:
            self._settle()
        return op

    def _show(self, seat: int, cards: tuple[int, int]) -> Shown:
        if self._holes[seat] is None:
            self._holes[seat] = cards
            self._used |= _CARD_MASK[cards[0]] | _CARD_MASK[cards[1]]
        mask = _CARD_MASK[cards[0]] | _CARD_MASK[cards[1]]
        for c in self._board:
            mask |= _CARD_MASK[c]
        value = evaluate(mask)
        self._values[seat] = value
        self._pending_show &= ~(1 << seat)
        op = _make_shown(seat, cards, value)
        self._ops.append(op)
        return op

    def verify_muck(self, seat: int | None = None) -> int:
        seat = self._showdown_seat(seat, "muck")
        if self._last_claimant(seat):
            raise IllegalActionError(
                f"seat {seat} cannot muck: no one else is left to claim a pot it is in")
        return seat

    def _last_claimant(self, seat: int) -> bool:
        """Whether some pot ``seat`` is in has no other player who showed or still may."""
        values, pending = self._values, self._pending_show
        for _, eligible in self._pots():
            if seat in eligible and not any(
                    s != seat and (values[s] or pending >> s & 1) for s in eligible):
                return True
        return False

    def can_muck(self, seat: int | None = None) -> bool:
        try:
            self.verify_muck(seat)
        except IllegalActionError:
            return False
        return True

    def muck(self, seat: int | None = None) -> Mucked:
        seat = self.verify_muck(seat)
        self._pending_show &= ~(1 << seat)
        op = Mucked(seat)
        self._ops.append(op)
        if not self._pending_show:
            self._settle()
        return op

    def verify_award(self, amounts: Sequence[int]) -> tuple[int, ...]:
        if self._phase != _SHOWDOWN:
            why = "the hand is over" if self._phase == _OVER else "there is no showdown yet"
            raise IllegalActionError(f"cannot award the pot: {why}")
        amounts = tuple(amounts)
        if len(amounts) != self._n:
            raise IllegalActionError(
                f"cannot award the pot: {len(amounts)} amounts for {self._n} seats")
        for seat, a in enumerate(amounts):
            if type(a) is not int or a < 0:
                raise IllegalActionError(f"cannot award the pot: seat {seat} gets {a!r}")
            if a and self._folded[seat]:
                raise IllegalActionError(f"cannot award the pot: seat {seat} folded")
        if sum(amounts) != sum(self._put):
            raise IllegalActionError(
                f"cannot award the pot: {sum(amounts)} awarded, the pot is {sum(self._put)}")
        return amounts

    def can_award(self, amounts: Sequence[int]) -> bool:
        try:
            self.verify_award(amounts)
        except IllegalActionError:
            return False
        return True

    def award(self, amounts: Sequence[int]) -> AwardedExternally:
        """End the showdown with the chips each seat received as given from outside (a log
        that reports results but not every hand); pending shows are dropped."""
        amounts = self.verify_award(amounts)
        self._pending_show = 0
        op = AwardedExternally(amounts)
        self._ops.append(op)
        for s in range(self._n):
            self._won[s] = amounts[s]
        self._finish()
        return op

    def _pots(self) -> list[tuple[int, tuple[int, ...]]]:
        put, folded, order = self._put, self._folded, self._post_order
        levels = sorted({put[s] for s in order if not folded[s]})
        pots = []
        prev = 0
        for level in levels:
            amount = 0
            for p in put:
                if p > prev:
                    amount += (level if p > level else p) - prev
            pots.append((amount, tuple(s for s in order if not folded[s] and put[s] >= level)))
            prev = level
        # Chips above every live player's total: only reachable with free folds.
        extra = sum(p - prev for p in put if p > prev)
        if extra:
            amount, eligible = pots[-1]
            pots[-1] = (amount + extra, eligible)
        return pots

    def _settle(self) -> None:
        values, won, ops = self._values, self._won, self._ops
        # Pots won by the same players are paid as one, so their odd chips are split once
        # (PokerKit's result, whose losing hands leave the pots before the split).
        paid: list[list] = []
        for amount, eligible in self._pots():
            if len(eligible) == 1:
                winners = eligible
            else:
                best = max(values[s] for s in eligible)
                winners = tuple(s for s in eligible if values[s] == best)
            if paid and paid[-1][2] == winners and self._merge_pots:
                paid[-1][0] += amount
            else:
                paid.append([amount, eligible, winners])
        for index, (amount, eligible, winners) in enumerate(paid):
            share, odd = divmod(amount, len(winners))
            shares = [share] * len(winners)
            if self._spread_odd:
                for k in range(odd):
                    shares[k] += 1
            else:
                shares[0] += odd
            for s, chips in zip(winners, shares):
                won[s] += chips
            ops.append(_make_pot_awarded(index, amount, eligible, winners, tuple(shares)))
        self._finish()

    def _finish(self) -> None:
        self._phase = _OVER
        self._street = _OVER_STREET
        self._queue = []
        stacks, won, bets = self._stacks, self._won, self._bets
        for s in range(self._n):
            stacks[s] += won[s]
            bets[s] = 0
        if self._parked is not None:  # declared all-in players get their chips behind back
            for s, behind in enumerate(self._parked):
                stacks[s] += behind
        self._ops.append(HandEnded(self.payoffs, tuple(stacks)))


def _run_lengths(street: int) -> tuple[int, ...]:
    """Card counts a run-out deal may take from ``street``: one street or several."""
    lengths = []
    total = 0
    for k in _BOARD_COUNTS[street:]:
        total += k
        lengths.append(total)
    return tuple(lengths)
