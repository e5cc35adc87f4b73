"""Limit Texas Hold'em rules as the state machine (agent.game.rules) plays them, their
variants (:class:`RuleVariant`), the streets, phases and actions, and the deck.

A hand is a :class:`~agent.game.rules.State`. Every move has three methods in PokerKit's style:
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
* ``half_bet_all_in_full=True`` (with ``short_all_in_counts``): an all-in bet or raise
  that adds at least half a bet to the bet it answers counts as a full one (Robert's
  Rules of Poker, and the online rooms: an iPoker river of a 13-cent all-in bet at
  10/20 cents is raised to 40): it re-opens the betting, and the next raise goes a full
  bet above the bet it stood for, while a call is still of what was put in.
* ``half_bet_raise_from_all_in=True`` (with ``half_bet_all_in_full``): such an all-in
  stands for itself, not for the bet it completes: the betting re-opens for every player
  (the bettor it raised too) and the next raise goes a full bet above the all-in
  (PartyPoker's tournaments: a turn bet of 400, an all-in to 790, raised to 1190).

:data:`ONLINE` is the online rooms' play as their hand histories show it (PokerStars,
Full Tilt, iPoker, PartyPoker, OnGame, Absolute; connectors/logs/rooms.py): folds with
nothing to call, no cap heads-up, a short big blind that does not lower the bet, and
all-in raises of half a bet or more that count as full ones. :data:`ONLINE_PARTY` is
PartyPoker's: the same, the next raise going a full bet above such an all-in.

How many blinds are posted, and how much, is a matter of the hand, not of the variant:
``blinds=`` gives the amounts posted in order, starting with the seat that posts the
small blind (left of the button, or the button heads-up with reverse blinds), default
``(small_blind, big_blind)``. One blind is allowed (some IRC hands had a single blind of
10): the largest blind is the pre-flop bet and the first bet for the cap, and the player
after the last one to post acts first pre-flop.

Posts beyond the blinds (``State.post``, before the deal): a player joining a table or
coming back posts to be dealt in at once, anywhere round the table. The live part counts
towards the player's bet as a blind does (he owes the rest of a call and has the option
if nobody raised); the dead part goes to the main pot as nobody's bet and does not count
in the player's total for the side pots. The order of play is the blinds' as ever.

"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import IntEnum
from functools import lru_cache
from typing import Any

import numpy as np

from evaluator_pyx.cards import N_CARDS, card_bit, card_str

__all__ = ["IRC_1995", "MAX_PLAYERS", "ONLINE", "ONLINE_PARTY", "STANDARD", "Action", "Deck", "IllegalActionError", "Phase",
           "RuleVariant", "Street"]


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


STREETS = tuple(Street)
PHASES = tuple(Phase)
HOLE_DEALING, BETTING, BOARD_DEALING, SHOWDOWN, OVER = range(5)
RIVER, SHOWDOWN_STREET, OVER_STREET = 3, 4, 5
BOARD_COUNTS = (3, 1, 1)  # cards that open the flop, turn, river
STREET_NAMES = ("pre-flop", "flop", "turn", "river", "showdown", "over")
CARD_MASK = tuple(1 << card_bit(c) for c in range(N_CARDS))
ONLY_FOLD = (Action.FOLD,)
LEGAL = {
    (False, False): (Action.CHECK_CALL,),
    (True, False): (Action.FOLD, Action.CHECK_CALL),
    (False, True): (Action.CHECK_CALL, Action.BET_RAISE),
    (True, True): (Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE),
}



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
    half_bet_all_in_full: bool = False  # True: an all-in raise of half a bet or more is a full one
    half_bet_raise_from_all_in: bool = False  # True: the next raise goes a full bet above that all-in


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

# The online rooms' fixed-limit games as their hand histories show them
# (connectors/logs/rooms.py): a player may fold when he could check, raising is not capped
# while only two players can bet, a big blind posted short all-in still leaves the others
# a full blind to call, and an all-in raise of half a bet or more counts as a full one.
ONLINE = RuleVariant(
    free_folds=True,
    cap_heads_up=False,
    short_blind_lowers_bet=False,
    half_bet_all_in_full=True,
)
ONLINE_PARTY = replace(ONLINE, half_bet_raise_from_all_in=True)


@lru_cache(maxsize=1024)
def seat_orders(n: int, button: int, sb: int, blinds: int) -> tuple[tuple[int, ...], ...]:
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


def check_cards(cards: Any, count: int, what: str) -> tuple[int, ...]:
    """``cards`` as they came from outside, checked: ``count`` distinct cards 0..51."""
    try:
        held: tuple[int, ...] = tuple(cards)
    except TypeError:
        raise IllegalActionError(f"{what}: expected {count} cards, got {cards!r}") from None
    if len(held) != count:
        raise IllegalActionError(f"{what}: needs {count} cards, got {len(held)}")
    for c in held:
        if type(c) is not int or not 0 <= c < N_CARDS:
            raise IllegalActionError(f"{what}: {c!r} is not a card (ints 0..51)")
    if len(set(held)) != count:
        raise IllegalActionError(f"{what}: duplicate card in {' '.join(map(card_str, held))}")
    return held


# One deck deals 2 cards to each of 23 players and leaves 6 for the board and burns.
MAX_PLAYERS = 23
