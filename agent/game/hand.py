"""One hand's seats, chips and cards: the blinds posted when it is created, the read-only
views every caller reads (stacks, bets, pots, the actor, the legal moves) and the dealing
of hole cards and the board. :class:`~agent.game.rules.State` builds on it with the
betting, the leaving and the showdown; the rules are described in agent.game.variant.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.config import TableConfig
from agent.game.operations import (
    BoardDealt,
    HoleDealt,
    Operation,
    Pot,
    Posted,
    make_blind_posted,
    make_board_dealt,
    make_hole_dealt,
)
from agent.game.showdown import pots
from agent.game.variant import (
    BETTING,
    BOARD_COUNTS,
    BOARD_DEALING,
    CARD_MASK,
    HOLE_DEALING,
    LEGAL,
    MAX_PLAYERS,
    OVER,
    PHASES,
    RIVER,
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

__all__ = ["HandBase"]


class HandBase:
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
        "_blind_bet", "_parked", "_spread_odd", "_merge_pots", "_dead", "_half_full", "_completed",
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
        self._half_full = variant.half_bet_all_in_full and variant.short_all_in_counts
        # The bet a short all-in of half a bet or more stands for (half_bet_all_in_full):
        # the next raise goes a full bet above it. 0 when none does.
        self._completed = 0
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
        # Dead chips posted by seat (:meth:`post`); None until someone posts any.
        self._dead: list[int] | None = None
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

    def verify_post(self, seat: int, live: int, dead: int = 0) -> int:
        """Raise unless ``seat`` may post ``live`` chips towards its bet and ``dead`` chips
        to the pot now; return the seat."""
        if self._phase != HOLE_DEALING or self._dealt:
            raise IllegalActionError("cannot post: posts come before the cards are dealt")
        if type(seat) is not int or not 0 <= seat < self._n:
            raise IllegalActionError(f"cannot post: no seat {seat!r}")
        if type(live) is not int or type(dead) is not int or live < 0 or dead < 0 or live + dead == 0:
            raise IllegalActionError(f"seat {seat} cannot post {live!r} live and {dead!r} dead: "
                                     "whole amounts, not both nothing")
        if seat in self._blind_seats or (self._dead is not None and self._dead[seat]) or self._bets[seat]:
            raise IllegalActionError(f"seat {seat} cannot post: it has posted already")
        blind = self._blind_bet or max(self._bets)
        if live > blind:
            raise IllegalActionError(f"seat {seat} cannot post {live} live: more than the big blind "
                                     f"of {blind} (a straddle is not played here)")
        return seat

    def can_post(self, seat: int, live: int, dead: int = 0) -> bool:
        try:
            self.verify_post(seat, live, dead)
        except IllegalActionError:
            return False
        return True

    def post(self, seat: int, live: int, dead: int = 0) -> Posted:
        """A post beyond the blinds, before the deal (a player who joins or comes back
        posts to be dealt in at once): ``live`` chips count towards the seat's bet this
        round as a blind's do, so it owes only the rest of a call and gets the option when
        nobody raised; ``dead`` chips go to the pot as nobody's bet (all of them to the
        main pot). A short stack posts what it has, the live part first."""
        seat = self.verify_post(seat, live, dead)
        stack = self._stacks[seat]
        live = min(live, stack)
        dead = min(dead, stack - live)
        self._stacks[seat] = stack - live - dead
        self._bets[seat] = live
        self._put[seat] += live + dead
        if dead:
            if self._dead is None:
                self._dead = [0] * self._n
            self._dead[seat] = dead
        op = Posted(seat, live, dead, self._stacks[seat] == 0)
        self._ops.append(op)
        return op

    # --- copying -------------------------------------------------------------------------

    def copy(self) -> HandBase:
        """An independent copy (the operation log and any deck are copied too) for
        simulations; attach a fresh :class:`Deck` to the copy to deal new cards."""
        cls = type(self)
        other = cls.__new__(cls)
        for name in ("config", "_n", "_button", "_sb", "_bb", "_small", "_big", "_max_bets",
                     "_pre_order", "_post_order", "_starting", "_live", "_phase", "_street",
                     "_runout", "_level", "_size", "_cap", "_raises", "_full", "_shorts",
                     "_acted", "_aggressor", "_dealt", "_used", "_pending_show", "_show_order",
                     "_auto_show", "_free_folds", "_variant", "_cap_heads_up", "_short_counts",
                     "_needs_caller", "_blind_seats", "_blind_bet", "_spread_odd",
                     "_merge_pots", "_half_full", "_completed"):
            setattr(other, name, getattr(self, name))
        other._parked = None if self._parked is None else self._parked[:]
        other._dead = None if self._dead is None else self._dead[:]
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
        return tuple(pots(self))

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
        base = self._level if self._completed <= self._level else self._completed
        return min(self._stacks[actor] + self._bets[actor], base + max(self._full, self._size))

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


def _run_lengths(street: int) -> tuple[int, ...]:
    """Card counts a run-out deal may take from ``street``: one street or several."""
    lengths = []
    total = 0
    for k in BOARD_COUNTS[street:]:
        total += k
        lengths.append(total)
    return tuple(lengths)
