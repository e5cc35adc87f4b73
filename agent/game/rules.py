"""The limit Texas Hold'em state machine: one hand as a :class:`State`, the one rules
engine behind every dealer, the tracker and the log replayer. The rules themselves, and their variants, are described in
agent.game.variant; the operations a move returns are in agent.game.operations; the
showdown and the pots are settled by agent.game.showdown.

Every move has three methods in PokerKit's style: ``verify_X`` raises
:class:`IllegalActionError` naming the rule broken, ``can_X`` answers yes/no, and ``X``
does it and returns the operation, a frozen dataclass that is also appended to
:attr:`State.operations`. This module also gives every public name of those modules, so
``from agent.game.rules import Action, State`` is the one import a caller needs.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.config import TableConfig
from agent.game.operations import (
    AwardedExternally,
    BetOrRaised,
    BlindPosted,
    BoardDealt,
    CheckedOrCalled,
    DeclaredAllIn,
    Folded,
    HandEnded,
    HoleDealt,
    Left,
    Mucked,
    Operation,
    Pot,
    PotAwarded,
    ShowdownBegan,
    Shown,
    make_bet_or_raised,
    make_blind_posted,
    make_board_dealt,
    make_checked_or_called,
    make_folded,
    make_hole_dealt,
)
from agent.game.showdown import (
    begin_showdown,
    last_claimant,
    pots,
    settle,
    show_cards,
    verify_award,
    verify_muck,
    verify_show,
)
from agent.game.variant import (
    BETTING,
    BOARD_COUNTS,
    BOARD_DEALING,
    CARD_MASK,
    HOLE_DEALING,
    IRC_1995,
    LEGAL,
    MAX_PLAYERS,
    OVER,
    OVER_STREET,
    PHASES,
    RIVER,
    SHOWDOWN,
    STANDARD,
    STREET_NAMES,
    STREETS,
    Action,
    Deck,
    IllegalActionError,
    Phase,
    RuleVariant,
    Street,
    check_cards,
    seat_orders,
)
from evaluator_pyx.cards import N_CARDS, card_str

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
        self._blind_seats, self._pre_order, self._post_order = seat_orders(n, button, self._sb, len(posted))
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
        self._phase = HOLE_DEALING
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
        self._ops.append(make_blind_posted(seat, amount, big, self._stacks[seat] == 0))

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
        return PHASES[self._phase]

    @property
    def street(self) -> Street:
        """PREFLOP..RIVER while the hand is played (between streets, the one whose betting
        just ended, until the next board is dealt), then SHOWDOWN, then OVER."""
        return STREETS[self._street]

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def actor(self) -> int | None:
        """The seat to act, or None when nobody is (dealing, showdown, over)."""
        return self._queue[0] if self._phase == BETTING else None

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
        if self._parked is not None and self._phase != OVER:
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
        return tuple(Pot(a, e) for a, e in pots(self))

    @property
    def current_bet(self) -> int:
        """The largest bet of the current round (what a call matches)."""
        return self._level if self._phase == BETTING else 0

    @property
    def bet_size(self) -> int:
        """The fixed bet of the current street: small bet pre-flop and flop, else big bet."""
        return self._small if self._street <= 1 else self._big

    @property
    def max_bets(self) -> int:
        return self._max_bets

    def to_call(self, seat: int) -> int:
        """Chips the seat would put in by calling now (capped by its stack)."""
        if self._phase != BETTING:
            return 0
        return min(self._stacks[seat], self._level - self._bets[seat])

    @property
    def bets_this_round(self) -> int:
        """Bets made this round, the big blind counting as the first pre-flop."""
        if self._phase != BETTING:
            return 0
        return self._raises + 1 if self._street == 0 else self._raises

    @property
    def raises_this_round(self) -> int:
        if self._phase != BETTING:
            return 0
        return self._raises if self._street == 0 else max(0, self._raises - 1)

    @property
    def is_capped(self) -> bool:
        return (self._phase == BETTING and self._raises >= self._cap
                and (self._cap_heads_up or self._able() > 2))

    @property
    def raise_to(self) -> int | None:
        """The actor's bet after a bet/raise now (less than a full one if all-in), or None
        if the actor may not bet or raise."""
        if self._phase != BETTING or self._raise_problem(self._queue[0]) is not None:
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
        if self._phase == OVER:  # stacks now include winnings
            put, starting = self._put, self._starting
            parked = self._parked or [0] * self._n
            return tuple(s for s in range(self._n)
                         if not folded[s] and (parked[s] or put[s] == starting[s]))
        return tuple(s for s in range(self._n) if not folded[s] and not stacks[s])

    @property
    def pending_hole_seats(self) -> tuple[int, ...]:
        """Seats still to be dealt hole cards."""
        if self._phase != HOLE_DEALING:
            return ()
        return tuple(s for s in self._post_order if not self._dealt >> s & 1)

    @property
    def pending_board_count(self) -> int:
        """Cards the next :meth:`deal_board` takes (in a run-out it may also take all the
        cards still to come at once), or 0 when no board is due."""
        return BOARD_COUNTS[self._street] if self._phase == BOARD_DEALING else 0

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
        if self._phase != BETTING:
            return ()
        actor = self._queue[0]
        facing = self._bets[actor] < self._level
        return LEGAL[(facing or self._free_folds, self._raise_problem(actor) is None)]

    def __repr__(self) -> str:
        return (f"<State {STREET_NAMES[self._street]} {PHASES[self._phase].name} "
                f"actor={self.actor} pot={self.pot} stacks={self._stacks}>")

    # --- dealing -------------------------------------------------------------------------

    def attach_deck(self, deck: Deck) -> None:
        """Deal every card from now on from ``deck`` (cards already in play are taken out of
        it), starting with whatever is due now."""
        known = [c for c in range(N_CARDS) if self._used & CARD_MASK[c]]
        deck.remove(known)
        self._deck = deck
        self._deal_from_deck()

    def _deal_from_deck(self) -> None:
        deck = self._deck
        if deck is None:
            return
        if self._phase == HOLE_DEALING:
            for seat in self._post_order:
                if not self._dealt >> seat & 1:
                    self._deal_hole(seat, tuple(deck.draw(2)))
            # the last hole deal has begun the betting
        while self._phase == BOARD_DEALING:
            self._deal_board(tuple(deck.draw(BOARD_COUNTS[self._street])))

    def verify_deal_hole(self, seat: int, cards: Sequence[int] | None) -> tuple[int, int] | None:
        if self._phase != HOLE_DEALING:
            raise IllegalActionError(
                "cannot deal hole cards: hole cards are dealt only before the pre-flop betting")
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalActionError(f"cannot deal hole cards: no seat {seat!r}")
        if self._dealt >> seat & 1:
            raise IllegalActionError(f"cannot deal hole cards: seat {seat} already has its cards")
        if cards is None:
            return None
        cards = check_cards(cards, 2, f"hole cards for seat {seat}")
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
            self._used |= CARD_MASK[cards[0]] | CARD_MASK[cards[1]]
        op = make_hole_dealt(seat, cards)
        self._ops.append(op)
        if self._dealt == (1 << self._n) - 1:
            self._begin_round()
        return op

    def _verify_unused(self, cards: Sequence[int]) -> None:
        used = self._used
        for c in cards:
            if used & CARD_MASK[c]:
                raise IllegalActionError(f"card {card_str(c)} is already in play")

    def verify_deal_board(self, cards: Sequence[int]) -> tuple[int, ...]:
        if self._phase != BOARD_DEALING:
            if self._phase == BETTING:
                why = f"betting on the {STREET_NAMES[self._street]} is not finished"
            elif self._phase == HOLE_DEALING:
                why = "hole cards are still being dealt"
            else:
                why = "the board is complete"
            raise IllegalActionError(f"cannot deal the board now: {why}")
        try:
            count = len(cards)
        except TypeError:
            raise IllegalActionError(f"board: expected cards, got {cards!r}") from None
        need = BOARD_COUNTS[self._street]
        if count != need and not (self._runout and count in _run_lengths(self._street)):
            nxt = STREET_NAMES[self._street + 1]
            plural = "s" if need > 1 else ""
            raise IllegalActionError(f"the {nxt} needs {need} card{plural}, got {count}")
        cards = check_cards(cards, count, "board")
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
            k = BOARD_COUNTS[self._street]
            op = self._deal_board(cards[:k])
            cards = cards[k:]
        return op  # type: ignore[return-value]

    def _deal_board(self, cards: tuple[int, ...]) -> BoardDealt:
        for c in cards:
            self._used |= CARD_MASK[c]
        self._board.extend(cards)
        self._street += 1
        op = make_board_dealt(STREETS[self._street], cards)
        self._ops.append(op)
        if not self._runout:
            self._begin_round()
        elif self._street == RIVER:
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
            self._phase = BETTING

    def _end_round(self) -> None:
        self._queue = []
        if self._live == 1:
            settle(self)
            return
        bets = self._bets
        for s in range(self._n):
            bets[s] = 0
        if self._street == RIVER:
            self._begin_showdown()
            return
        stacks, folded = self._stacks, self._folded
        able = 0
        for s in range(self._n):
            if stacks[s] and not folded[s]:
                able += 1
        self._runout = able <= 1
        self._phase = BOARD_DEALING
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
        if self._phase != BETTING:
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
        if phase == HOLE_DEALING:
            return "hole cards are still being dealt"
        if phase == BOARD_DEALING:
            return f"the {STREET_NAMES[self._street + 1]} has not been dealt"
        if phase == SHOWDOWN:
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
        op = make_folded(actor)
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
        op = make_checked_or_called(actor, amount, stacks[actor] == 0)
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
        op = make_bet_or_raised(actor, to, added, all_in, is_full)
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
        if self._phase == OVER:
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
        if self._phase == SHOWDOWN and self._live > 2 and last_claimant(self, seat):
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
        if phase == SHOWDOWN:
            self._pending_show &= ~(1 << seat)
            if self._live == 1 or not self._pending_show:
                settle(self)
        elif phase == BETTING:
            self._leave_queue(seat)
        elif self._live == 1 and phase == BOARD_DEALING:
            settle(self)
        elif phase == BOARD_DEALING:
            self._runout = self._able() <= 1
        return op

    def verify_declare_all_in(self, seat: int) -> int:
        seat = self._live_seat(seat, "be declared all-in")
        if self._phase == SHOWDOWN:
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
        if self._phase == BETTING:
            self._leave_queue(seat)
        elif self._phase == BOARD_DEALING:
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

    # --- showdown and settlement (agent.game.showdown) -----------------------------------

    def _begin_showdown(self) -> None:
        begin_showdown(self)

    def verify_show(
        self, seat: int | None = None, cards: Sequence[int] | None = None
    ) -> tuple[int, tuple[int, int]]:
        """Check a show; ``seat`` defaults to the next in showdown order, ``cards`` to the
        seat's known hole cards. Returns (seat, cards)."""
        return verify_show(self, seat, cards)

    def can_show(self, seat: int | None = None, cards: Sequence[int] | None = None) -> bool:
        try:
            verify_show(self, seat, cards)
        except IllegalActionError:
            return False
        return True

    def show(self, seat: int | None = None, cards: Sequence[int] | None = None) -> Shown:
        seat, cards = verify_show(self, seat, cards)
        op = show_cards(self, seat, cards)
        if not self._pending_show:
            settle(self)
        return op

    def verify_muck(self, seat: int | None = None) -> int:
        return verify_muck(self, seat)

    def can_muck(self, seat: int | None = None) -> bool:
        try:
            verify_muck(self, seat)
        except IllegalActionError:
            return False
        return True

    def muck(self, seat: int | None = None) -> Mucked:
        seat = verify_muck(self, seat)
        self._pending_show &= ~(1 << seat)
        op = Mucked(seat)
        self._ops.append(op)
        if not self._pending_show:
            settle(self)
        return op

    def verify_award(self, amounts: Sequence[int]) -> tuple[int, ...]:
        return verify_award(self, amounts)

    def can_award(self, amounts: Sequence[int]) -> bool:
        try:
            verify_award(self, amounts)
        except IllegalActionError:
            return False
        return True

    def award(self, amounts: Sequence[int]) -> AwardedExternally:
        """End the showdown with the chips each seat received as given from outside (a log
        that reports results but not every hand); pending shows are dropped."""
        amounts = verify_award(self, amounts)
        self._pending_show = 0
        op = AwardedExternally(amounts)
        self._ops.append(op)
        for s in range(self._n):
            self._won[s] = amounts[s]
        self._finish()
        return op

    def _finish(self) -> None:
        self._phase = OVER
        self._street = OVER_STREET
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
    for k in BOARD_COUNTS[street:]:
        total += k
        lengths.append(total)
    return tuple(lengths)
