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

from collections.abc import Sequence

from agent.game.hand import HandBase
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
    Posted,
    Pot,
    PotAwarded,
    ShowdownBegan,
    Shown,
    make_bet_or_raised,
    make_checked_or_called,
    make_folded,
)
from agent.game.showdown import (
    begin_showdown,
    last_claimant,
    settle,
    show_cards,
    verify_award,
    verify_muck,
    verify_show,
)
from agent.game.variant import (
    BETTING,
    BOARD_DEALING,
    HOLE_DEALING,
    IRC_1995,
    MAX_PLAYERS,
    ONLINE,
    ONLINE_PARTY,
    OVER,
    OVER_STREET,
    RIVER,
    SHOWDOWN,
    STANDARD,
    STREET_NAMES,
    Action,
    Deck,
    IllegalActionError,
    Phase,
    RuleVariant,
    Street,
)

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
    "MAX_PLAYERS",
    "Left",
    "ONLINE",
    "ONLINE_PARTY",
    "Mucked",
    "Operation",
    "Phase",
    "Pot",
    "PotAwarded",
    "Posted",
    "RuleVariant",
    "STANDARD",
    "ShowdownBegan",
    "Shown",
    "State",
    "Street",
]


class State(HandBase):
    """One limit hold'em hand: blinds posted on creation, then deal, bet, show, award. The
    constructor and the views are :class:`~agent.game.hand.HandBase`'s; this class adds
    the betting rounds, leaving and declared all-ins, and the showdown."""

    __slots__ = ()

    # --- betting rounds ------------------------------------------------------------------

    def _begin_round(self) -> None:
        if self._live == 1:  # everyone else left while the cards were dealt
            self._end_round()
            return
        street = self._street
        stacks, bets, folded = self._stacks, self._bets, self._folded
        self._raises = self._full = self._shorts = self._acted = self._completed = 0
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
            # A half-bet all-in counted full as it stands (half_bet_raise_from_all_in) is
            # no short raise: the betting is open to everyone again.
            if facing < full and not (self._completed and self._completed == self._level):
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
        size = self._size
        # The bet this raise answers: the current one, or the full bet a short all-in of
        # half a bet or more stands for (half_bet_all_in_full).
        base = level if self._completed <= level else self._completed
        to = base + (full if full > size else size)
        cover = stacks[actor] + bets[actor]
        if to > cover:
            to = cover
        added = to - bets[actor]
        by = to - base if to > base else to - level
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
        completed = 0
        if self._short_counts:
            is_full = by >= full
            if not is_full and self._half_full and all_in and 2 * (to - base) >= size:
                # Half a bet or more all-in: a full bet for everyone after it, standing
                # for the bet it completes, or for itself (half_bet_raise_from_all_in).
                is_full = True
                completed = to if self._variant.half_bet_raise_from_all_in else base + size
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
        if all_in and self._short_counts and not completed:
            self._shorts += by
            if self._shorts >= full:
                self._shorts = 0
        else:
            self._shorts = 0
        if self._half_full and not completed and all_in and is_full and by < size:
            # The round's opening bet, short but counted full: the bet it stands for.
            if 2 * by >= size:
                completed = base + size
        self._completed = completed
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
