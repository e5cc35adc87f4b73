"""The showdown and the settlement of the pots: who shows in what order, what may be
shown or mucked, the side pots, the split and its odd chips (the rules are described in
agent.game.variant). These are functions of a :class:`~agent.game.rules.State`, which
calls them; its public ``show`` / ``muck`` / ``award`` and their ``verify_`` / ``can_``
forms are the way in.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.game.operations import ShowdownBegan, Shown, make_pot_awarded, make_shown
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

__all__ = ["begin_showdown", "last_claimant", "pots", "settle", "show_cards", "showdown_seat", "side_pots",
           "verify_award", "verify_muck", "verify_show"]



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
    for _, eligible in pots(st):
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


def pots(st: State) -> list[tuple[int, tuple[int, ...]]]:
    folded = st._folded
    return side_pots(st._put, [s for s in st._post_order if not folded[s]], st._dead)


def side_pots(put: Sequence[int], live: Sequence[int],
              dead: Sequence[int] | None = None) -> list[tuple[int, tuple[int, ...]]]:
    """The pots of a hand, main pot first, as (chips, the seats that may win it): one pot
    per distinct total put in by a live player, each contested by the live players who put
    in at least that much. ``put`` is every seat's chips in, ``live`` the seats still in
    the hand in the order pots list them (clockwise from the button's left), ``dead`` the
    chips of ``put`` each seat posted dead, which all go to the main pot."""
    if dead is not None:
        put = [p - d for p, d in zip(put, dead)]
    levels = sorted({put[s] for s in live})
    pots = []
    prev = 0
    for level in levels:
        amount = 0
        for p in put:
            if p > prev:
                amount += (level if p > level else p) - prev
        pots.append((amount, tuple(s for s in live if put[s] >= level)))
        prev = level
    # Chips above every live player's total: only reachable with free folds.
    extra = sum(p - prev for p in put if p > prev)
    if extra:
        amount, eligible = pots[-1]
        pots[-1] = (amount + extra, eligible)
    if dead is not None and pots:
        amount, eligible = pots[0]
        pots[0] = (amount + sum(dead), eligible)
    return pots


def settle(st: State) -> None:
    values, won, ops = st._values, st._won, st._ops
    # Pots won by the same players are paid as one, so their odd chips are split once
    # (PokerKit's result, whose losing hands leave the pots before the split).
    paid: list[list] = []
    for amount, eligible in pots(st):
        if len(eligible) == 1:
            winners = eligible
        else:
            best = max(values[s] for s in eligible)
            winners = tuple(s for s in eligible if values[s] == best)
        if paid and paid[-1][2] == winners and st._merge_pots:
            paid[-1][0] += amount
        else:
            paid.append([amount, eligible, winners])
    for index, (amount, eligible, winners) in enumerate(paid):
        share, odd = divmod(amount, len(winners))
        shares = [share] * len(winners)
        if st._spread_odd:
            for k in range(odd):
                shares[k] += 1
        else:
            shares[0] += odd
        for s, chips in zip(winners, shares):
            won[s] += chips
        ops.append(make_pot_awarded(index, amount, eligible, winners, tuple(shares)))
    st._finish()
