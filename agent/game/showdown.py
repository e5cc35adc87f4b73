"""The showdown and the settlement of the pots: who shows in what order, what may be
shown or mucked, the side pots, the split and its odd chips (the rules are described in
agent.game.variant). These are functions of a :class:`~agent.game.rules.State`, which
calls them; its public ``show`` / ``muck`` / ``award`` and their ``verify_`` / ``can_``
forms are the way in.

:func:`pay_pots` is the one settlement of the program: the state settles its showdown
with it, and so do the fast paths that deal or follow a hand by its betting string alone
(agent.game.betting), from the pots the rules state gave for that betting.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence

from agent.game.operations import Pot, ShowdownBegan, Shown, make_pot, make_pot_awarded, make_shown
from agent.game.variant import (
    CARD_MASK,
    OVER,
    SHOWDOWN,
    SHOWDOWN_STREET,
    IllegalActionError,
    check_cards,
)
from evaluator_pyx import evaluate
from evaluator_pyx.cards import card_str

if TYPE_CHECKING:
    from agent.game.rules import State

__all__ = ["begin_showdown", "last_claimant", "pay_pots", "pots", "settle", "show_cards", "showdown_seat",
           "side_pots", "verify_award", "verify_muck", "verify_show"]



def begin_showdown(st: State) -> None:
    st._phase = SHOWDOWN
    st._street = SHOWDOWN_STREET
    n, folded = st._n, st._folded
    start = st._aggressor if st._aggressor >= 0 else (st._button + 1) % n
    order = tuple((start + k) % n for k in range(n) if not folded[(start + k) % n])
    st._show_order = order
    pending = 0
    for s in order:
        pending |= 1 << s
    st._pending_show = pending
    st._ops.append(ShowdownBegan(order))
    if st._auto_show:
        holes = st._holes
        for s in order:
            if holes[s] is not None:
                show_cards(st, s, holes[s])
    if not st._pending_show:
        settle(st)


def showdown_seat(st: State, seat: int | None, what: str) -> int:
    if st._phase != SHOWDOWN:
        why = "the hand is over" if st._phase == OVER else "there is no showdown yet"
        raise IllegalActionError(f"cannot {what} now: {why}")
    if seat is None:
        for s in st._show_order:
            if st._pending_show >> s & 1:
                return s
    if type(seat) is not int or not 0 <= seat < st._n:
        raise IllegalActionError(f"cannot {what}: no seat {seat!r}")
    if not st._pending_show >> seat & 1:
        why = "it has folded" if st._folded[seat] else "it has already shown or mucked"
        raise IllegalActionError(f"seat {seat} cannot {what}: {why}")
    return seat


def verify_show(st: State, seat: int | None = None, cards: Sequence[int] | None = None) -> tuple[int, tuple[int, int]]:
    """Check a show; ``seat`` defaults to the next in showdown order, ``cards`` to the
    seat's known hole cards. Returns (seat, cards)."""
    seat = showdown_seat(st, seat, "show")
    known = st._holes[seat]
    if cards is None:
        if known is None:
            raise IllegalActionError(
                f"seat {seat}'s hole cards are unknown: give the cards it shows")
        return seat, known
    cards = check_cards(cards, 2, f"cards shown by seat {seat}")
    if known is not None:
        if set(cards) != set(known):
            raise IllegalActionError(
                f"seat {seat} shows {' '.join(map(card_str, cards))} but was dealt "
                f"{' '.join(map(card_str, known))}")
        return seat, known
    st._verify_unused(cards)
    return seat, cards  # type: ignore[return-value]


def show_cards(st: State, seat: int, cards: tuple[int, int]) -> Shown:
    if st._holes[seat] is None:
        st._holes[seat] = cards
        st._used |= CARD_MASK[cards[0]] | CARD_MASK[cards[1]]
    mask = CARD_MASK[cards[0]] | CARD_MASK[cards[1]]
    for c in st._board:
        mask |= CARD_MASK[c]
    value = evaluate(mask)
    st._values[seat] = value
    st._pending_show &= ~(1 << seat)
    op = make_shown(seat, cards, value)
    st._ops.append(op)
    return op


def verify_muck(st: State, seat: int | None = None) -> int:
    seat = showdown_seat(st, seat, "muck")
    if last_claimant(st, seat):
        raise IllegalActionError(
            f"seat {seat} cannot muck: no one else is left to claim a pot it is in")
    return seat


def last_claimant(st: State, seat: int) -> bool:
    """Whether some pot ``seat`` is in has no other player who showed or still may."""
    values, pending = st._values, st._pending_show
    for pot in pots(st):
        eligible = pot.eligible
        if seat in eligible and not any(
                s != seat and (values[s] or pending >> s & 1) for s in eligible):
            return True
    return False


def verify_award(st: State, amounts: Sequence[int]) -> tuple[int, ...]:
    if st._phase != SHOWDOWN:
        why = "the hand is over" if st._phase == OVER else "there is no showdown yet"
        raise IllegalActionError(f"cannot award the pot: {why}")
    amounts = tuple(amounts)
    if len(amounts) != st._n:
        raise IllegalActionError(
            f"cannot award the pot: {len(amounts)} amounts for {st._n} seats")
    for seat, a in enumerate(amounts):
        if type(a) is not int or a < 0:
            raise IllegalActionError(f"cannot award the pot: seat {seat} gets {a!r}")
        if a and st._folded[seat]:
            raise IllegalActionError(f"cannot award the pot: seat {seat} folded")
    if sum(amounts) != sum(st._put):
        raise IllegalActionError(
            f"cannot award the pot: {sum(amounts)} awarded, the pot is {sum(st._put)}")
    return amounts


def pots(st: State) -> list[Pot]:
    """Main pot first, then side pots, from what has been put in so far; each with the
    live players who may win it, clockwise from the button's left."""
    folded = st._folded
    return side_pots(st._put, [s for s in st._post_order if not folded[s]], st._dead)


def side_pots(put: Sequence[int], live: Sequence[int],
              dead: Sequence[int] | None = None) -> list[Pot]:
    """The pots of a hand, main pot first: one pot per distinct total put in by a live
    player, each contested by the live players who put in at least that much. ``put`` is
    every seat's chips in, ``live`` the seats still in the hand in the order pots list
    them (clockwise from the button's left), ``dead`` the chips of ``put`` each seat
    posted dead, which all go to the main pot. The rules (:func:`pots`) and the report's
    won from / lost to (agent.report.flows) both take their pots from here."""
    if dead is not None:
        put = [p - d for p, d in zip(put, dead)]
    levels = sorted({put[s] for s in live})
    out = []
    prev = 0
    for level in levels:
        amount = 0
        for p in put:
            if p > prev:
                amount += (level if p > level else p) - prev
        out.append(make_pot(amount, tuple(s for s in live if put[s] >= level)))
        prev = level
    # Chips above every live player's total: only reachable with free folds.
    extra = sum(p - prev for p in put if p > prev)
    if extra:
        last = out[-1]
        out[-1] = make_pot(last.amount + extra, last.eligible)
    if dead is not None and out:
        main = out[0]
        out[0] = make_pot(main.amount + sum(dead), main.eligible)
    return out


def pay_pots(pots: Sequence[Pot], values: Sequence[int], merge_pots: bool, spread_odd: bool,
             won: list[int]) -> list[list]:
    """The one settlement: who wins what of ``pots`` (:func:`pots`) when each seat's shown
    hand is worth ``values[seat]`` (larger wins; seats not shown are never read when they
    cannot win), each winner's chips added to ``won[seat]``. A pot with one eligible
    player is theirs; the others go to the best hands among their eligible players. With
    ``merge_pots`` pots won by the same players are paid as one, so their odd chips are
    split once (PokerKit's result, whose losing hands leave the pots before the split);
    odd chips go one each from the first winner clockwise from the button's left
    (``spread_odd``), else all to the first. Returns the pots paid, each as
    [amount, eligible, winners, shares]."""
    paid: list[list] = []
    for pot in pots:
        eligible = pot.eligible
        if len(eligible) == 1:
            winners = eligible
        else:
            best = max([values[s] for s in eligible])
            winners = tuple([s for s in eligible if values[s] == best])
        if paid and merge_pots and paid[-1][2] == winners:
            paid[-1][0] += pot.amount
        else:
            paid.append([pot.amount, eligible, winners])
    for entry in paid:
        amount, _, winners = entry
        count = len(winners)
        if count == 1:
            won[winners[0]] += amount
            entry.append((amount,))
            continue
        share, odd = divmod(amount, count)
        shares = [share] * count
        if spread_odd:
            for k in range(odd):
                shares[k] += 1
        else:
            shares[0] += odd
        for k in range(count):
            won[winners[k]] += shares[k]
        entry.append(tuple(shares))
    return paid


def settle(st: State) -> None:
    ops = st._ops
    paid = pay_pots(pots(st), st._values, st._merge_pots, st._spread_odd, st._won)
    for index, (amount, eligible, winners, shares) in enumerate(paid):
        ops.append(make_pot_awarded(index, amount, eligible, winners, shares))
    st._finish()
