"""Our limit hold'em rules against PokerKit's fixed-limit state machine.

Random deals and random legal actions are played in our State; the same deal and actions
are replayed in PokerKit, and at every decision both must agree on who acts and which
moves are legal, and at the end on every seat's payoff.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from helpers.references import reference_package

pokerkit = reference_package("pokerkit")
# The imports below come after the reference package's skip above.
from pokerkit import (
    Automation,
    BettingStructure,
    Mode,
    Opening,
    StandardHighHand,
)
from pokerkit import (
    Deck as PKDeck,
)
from pokerkit import (
    State as PKState,
)
from pokerkit import (
    Street as PKStreet,
)

from agent.config import TableConfig
from agent.game.rules import Action, BetOrRaised, Deck, Phase, ShowdownBegan, State
from evaluator_pyx.cards import card_str

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

CONFIGS = (
    TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
    TableConfig(small_blind=1, big_blind=2, small_bet=2, big_bet=4),
    TableConfig(small_blind=2, big_blind=5, small_bet=5, big_bet=10),
    TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=3),
    TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=5),
)


def pokerkit_state(config: TableConfig, stacks_in_pk_order: list[int]) -> PKState:
    """PokerKit fixed-limit hold'em with our cap: PokerKit counts bets and raises but not
    the big blind, so pre-flop allows max_bets - 1 of them."""
    def street(board: int, bet: int, cap: int) -> PKStreet:
        holes = (False, False) if board == 0 else ()
        return PKStreet(board > 0, holes, board, False, Opening.POSITION, bet, cap)

    streets = (
        street(0, config.small_bet, config.max_bets - 1),
        street(3, config.small_bet, config.max_bets),
        street(1, config.big_bet, config.max_bets),
        street(1, config.big_bet, config.max_bets),
    )
    return PKState(
        AUTOMATIONS,
        PKDeck.STANDARD,
        (StandardHighHand,),
        streets,
        BettingStructure.FIXED_LIMIT,
        True,
        0,
        (config.small_blind, config.big_blind),
        0,
        stacks_in_pk_order,
        len(stacks_in_pk_order),
        mode=Mode.TOURNAMENT,
    )


def random_stacks(rng: random.Random, n: int, config: TableConfig) -> list[int]:
    """Stacks from 1 chip to a few big bets, mixed with deep ones; the share of short
    stacks varies by hand so that big tables also see hands without a mass all-in."""
    short_share = rng.choice((0.1, 0.3, 0.6, 1.0))
    stacks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.2 * short_share:
            stacks.append(rng.randint(1, config.big_blind + 1))  # short of the blinds
        elif r < short_share:
            stacks.append(rng.randint(1, 6 * config.big_bet))  # a few big bets
        else:
            stacks.append(rng.randint(30, 100) * config.big_bet)  # deep
    return stacks


def play_and_compare(seed: int, n: int) -> dict[str, int]:
    """Play one random hand in both machines; assert agreement; return a few counts."""
    rng = random.Random(seed)
    config = rng.choice(CONFIGS)
    stacks = random_stacks(rng, n, config)
    button = rng.randrange(n)
    seat_of = [(button + 1 + i) % n for i in range(n)]  # PokerKit index -> our seat
    pk = pokerkit_state(config, [stacks[s] for s in seat_of])

    gen = np.random.default_rng(seed)
    if seed % 2:
        state = State(config, stacks, button, deck=Deck(gen))
        deal = None
    else:
        cards = gen.permutation(52).tolist()
        deal = {"holes": [cards[2 * s: 2 * s + 2] for s in range(n)],
                "board": cards[2 * n: 2 * n + 5]}
        state = State(config, stacks, button)
        state.deal_holes(deal["holes"])

    pk_board = 0
    decisions = capped = 0
    # Players' styles vary by hand: passive or aggressive, sticky or quick to fold.
    weights = {Action.FOLD: rng.choice((1, 4, 8)), Action.CHECK_CALL: 3,
               Action.BET_RAISE: rng.choice((1, 3))}
    while True:
        # Explicit dealing in our state when it waits for the board.
        while deal is not None and state.phase == Phase.BOARD_DEALING:
            have = len(state.board)
            state.deal_board(deal["board"][have: have + state.pending_board_count])
        # Feed PokerKit whatever cards it waits for, taken from our state.
        while pk.status and (pk.can_deal_hole() or pk.can_burn_card() or pk.can_deal_board()):
            if pk.can_burn_card():
                pk.burn_card("??")  # PokerKit's own burn would draw cards we deal later
            elif pk.can_deal_hole():
                seat = seat_of[pk.hole_dealee_index]
                pk.deal_hole("".join(card_str(c) for c in state.hole_cards(seat)))
            else:
                count = 3 if pk_board == 0 else 1
                pk.deal_board("".join(card_str(c) for c in state.board[pk_board: pk_board + count]))
                pk_board += count
        if state.phase == Phase.BOARD_DEALING:
            continue
        actor = state.actor
        pk_actor = pk.actor_index
        assert (None if pk_actor is None else seat_of[pk_actor]) == actor, (seed, state.operations)
        if actor is None:
            break
        legal = state.legal_actions()
        pk_legal = tuple(a for a, ok in (
            (Action.FOLD, pk.can_fold()),
            (Action.CHECK_CALL, pk.can_check_or_call()),
            (Action.BET_RAISE, pk.can_complete_bet_or_raise_to()),
        ) if ok)
        assert legal == pk_legal, (seed, legal, pk_legal, state.operations)
        if Action.BET_RAISE in legal:
            assert pk.min_completion_betting_or_raising_to_amount == state.raise_to
        assert pk.checking_or_calling_amount == state.to_call(actor)
        action = rng.choices(legal, [weights[a] for a in legal])[0]
        op = state.act(action)
        if action == Action.FOLD:
            pk.fold()
        elif action == Action.CHECK_CALL:
            assert pk.check_or_call().amount == op.amount
        else:
            assert pk.complete_bet_or_raise_to().amount == op.to
        decisions += 1
        capped += state.is_capped

    assert state.is_over and not pk.status, (seed, state, state.operations)
    for i, seat in enumerate(seat_of):
        assert pk.payoffs[i] == state.payoffs[seat], (seed, pk.payoffs, state.operations)
        assert pk.stacks[i] == state.stacks[seat]
    assert sum(state.payoffs) == 0
    return {
        "decisions": decisions,
        "capped": capped,
        "short_raises": sum(isinstance(op, BetOrRaised) and not op.full for op in state.operations),
        "showdown": int(any(isinstance(op, ShowdownBegan) for op in state.operations)),
        "side_pots": int(len({state.put_in[s] for s in state.active}) > 1),
        "all_in": int(bool(state.all_in)),
    }


# Hands per table size: 10,000 in all.
HANDS = {2: 3500, 3: 3000, 6: 2000, 10: 1500}


@pytest.mark.parametrize("n", [n if n == 2 else pytest.param(n, marks=pytest.mark.slow) for n in sorted(HANDS)])
def test_payoffs_and_legality_agree_with_pokerkit(n: int) -> None:
    totals = {"decisions": 0, "capped": 0, "short_raises": 0, "showdown": 0, "side_pots": 0,
              "all_in": 0}
    start = time.perf_counter()
    for seed in range(HANDS[n]):
        for key, value in play_and_compare(1_000_003 * n + seed, n).items():
            totals[key] += value
    elapsed = time.perf_counter() - start
    print(f"\n{n} seats: {HANDS[n]} hands, {totals} in {elapsed:.1f}s")
    # The random deals must actually reach the hard cases.
    assert totals["showdown"] > HANDS[n] // 10
    assert totals["side_pots"] > HANDS[n] // 50
    assert totals["all_in"] > HANDS[n] // 10
    assert totals["capped"] > 0 and totals["short_raises"] > 0
