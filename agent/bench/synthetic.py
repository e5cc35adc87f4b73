"""Synthetic but consistent hand records: the workload of `poki bench` (the ``db``
section's writes, the ``engine`` section's prediction figures), and the tests' too. Product
code because a shipped benchmark runs on it; it needs no data set, so a bench figure can be
measured on any installation.

A table of 2-10 players from a pool plays limit hold'em hand after hand: players sit for a
while and leave (so a stretch of hands involves a few dozen players, as in real logs),
each with a style of their own, the button moves, blinds are posted, every round is bet
to the cap rules, and the pot goes to one or two players at the showdown. Bankrolls carry
over and are topped up before they could run out, so there are no all-ins. Everything
is a function of the seed.
"""
from __future__ import annotations

import random
from collections.abc import Iterator

from agent.game.records import (
    BET,
    BIG_BLIND,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    SMALL_BLIND,
    ActionRecord,
    HandRecord,
    PlayerResult,
    SeatRecord,
    ShownCards,
)


def _style(rng: random.Random) -> tuple[float, float]:
    """(looseness, aggression) of one synthetic player."""
    return rng.uniform(0.15, 0.8), rng.uniform(0.05, 0.5)


def synthetic_hands(
    count: int,
    seed: int = 0,
    *,
    min_players: int = 6,
    max_players: int = 10,
    pool: int = 60,
    stakes: tuple[int, int, int, int] = (5, 10, 10, 20),
    max_bets: int = 4,
    id_prefix: str | None = None,
) -> Iterator[HandRecord]:
    """Yield `count` hands played at one table. Hand ids are `id_prefix` + number
    (default prefix 'syn<seed>-'), so the same arguments give the same hands."""
    rng = random.Random(seed)
    prefix = f"syn{seed}-" if id_prefix is None else id_prefix
    small_blind, big_blind, small_bet, big_bet = stakes
    names = [f"p{seed}_{i}" for i in range(pool)]
    styles = {name: _style(rng) for name in names}
    bankroll = dict.fromkeys(names, 1000)
    n0 = rng.randint(min_players, max_players)
    table = rng.sample(names, n0)  # clockwise
    button = 0
    for number in range(count):
        # Players come and go between hands.
        for i in range(len(table)):
            if rng.random() < 0.02:
                table[i] = rng.choice([p for p in names if p not in table])
        if len(table) > min_players and rng.random() < 0.03:
            table.pop(rng.randrange(len(table)))
        if len(table) < max_players and rng.random() < 0.03:
            table.insert(rng.randrange(len(table) + 1), rng.choice([p for p in names if p not in table]))
        button = (button + 1) % len(table)
        n = len(table)
        # Clockwise from the seat after the button: position 1..n, the button last.
        order = [table[(button + 1 + k) % n] for k in range(n)]
        for p in order:
            if bankroll[p] < 400:  # top up before a hand could run anyone out of chips
                bankroll[p] += 1000
        yield _play_hand(
            rng, f"{prefix}{number}", 797_000_000.0 + 60.0 * number, order, bankroll, styles,
            small_blind, big_blind, small_bet, big_bet, max_bets,
        )


def _play_hand(
    rng: random.Random,
    hand_id: str,
    started_at: float,
    order: list[str],
    bankroll: dict[str, int],
    styles: dict[str, tuple[float, float]],
    small_blind: int,
    big_blind: int,
    small_bet: int,
    big_bet: int,
    max_bets: int,
) -> HandRecord:
    n = len(order)
    position = {p: k + 1 for k, p in enumerate(order)}
    seats = tuple(SeatRecord(p, bankroll[p], position[p]) for p in order)
    deck = rng.sample(range(52), 5 + 2 * n)
    active = list(order)
    put_in = dict.fromkeys(order, 0)
    actions: list[ActionRecord] = []
    last_round = 0
    for rnd in range(4):
        if len(active) < 2:
            break
        last_round = rnd
        bet = small_bet if rnd < 2 else big_bet
        contrib = dict.fromkeys(active, 0)
        current = 0
        raises = 0
        if rnd == 0:
            if n == 2:  # heads-up: the button posts the small blind and acts first
                sb_player, bb_player = order[1], order[0]
                start = 1
            else:
                sb_player, bb_player = order[0], order[1]
                start = 2 % n
            for who, kind, amount in ((sb_player, SMALL_BLIND, small_blind), (bb_player, BIG_BLIND, big_blind)):
                actions.append(ActionRecord(0, who, kind, amount, 0, raises, position[who], len(active)))
                contrib[who] += amount
                put_in[who] += amount
                if kind == BIG_BLIND:
                    raises = 1
            current = big_blind
        else:
            start = 0
        acted: set[str] = set()
        seat_cycle = [p for p in (order[start:] + order[:start]) if p in contrib]
        i = 0
        while len(active) > 1:
            p = seat_cycle[i % len(seat_cycle)]
            i += 1
            if p not in active:
                continue
            if p in acted and contrib[p] == current:
                if all(q in acted and contrib[q] == current for q in active):
                    break
                continue
            to_call = current - contrib[p]
            btc = -(-to_call // bet)
            loose, aggr = styles[p]
            u = rng.random()
            can_raise = raises < max_bets
            if btc == 0:
                kind = BET if can_raise and u < 0.1 + aggr * 0.8 else CHECK
            else:
                fold_p = (0.85 if rnd == 0 else 0.6) - 0.5 * loose + 0.1 * min(btc - 1, 1)
                raise_p = aggr * 0.35 if can_raise else 0.0
                kind = FOLD if u < fold_p else RAISE if u < fold_p + raise_p else CALL
            if kind in (BET, RAISE):
                amount = to_call + bet
                current += bet
            elif kind == CALL:
                amount = to_call
            else:
                amount = 0
            actions.append(ActionRecord(rnd, p, kind, amount, btc, raises, position[p], len(active)))
            if kind in (BET, RAISE):
                raises += 1
            contrib[p] += amount
            put_in[p] += amount
            acted.add(p)
            if kind == FOLD:
                active.remove(p)
    board = tuple(deck[: (0, 3, 4, 5)[last_round]])
    pot = sum(put_in.values())
    won = dict.fromkeys(order, 0)
    shown: tuple[ShownCards, ...] = ()
    if len(active) == 1:
        won[active[0]] = pot
    else:
        board = tuple(deck[:5])
        shown = tuple(ShownCards(p, (deck[5 + 2 * k], deck[6 + 2 * k])) for k, p in enumerate(active))
        winners = sorted(rng.sample(active, 2 if len(active) > 2 and rng.random() < 0.1 else 1), key=lambda p: position[p])
        share, odd = divmod(pot, len(winners))
        for k, w in enumerate(winners):
            won[w] = share + (odd if k == 0 else 0)
    for p in order:
        bankroll[p] += won[p] - put_in[p]
    return HandRecord(
        hand_id=hand_id,
        source=f"synthetic {hand_id}",
        started_at=started_at,
        small_blind=small_blind,
        big_blind=big_blind,
        small_bet=small_bet,
        big_bet=big_bet,
        max_bets=max_bets,
        seats=seats,
        board=board,
        actions=tuple(actions),
        shown=shown,
        results=tuple(PlayerResult(p, put_in[p], won[p]) for p in order),
    )
