"""Unit and property tests of the limit hold'em rules (agent/game/rules.py)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.config import TableConfig
from agent.game.rules import (
    Action,
    AwardedExternally,
    BetOrRaised,
    BlindPosted,
    BoardDealt,
    CheckedOrCalled,
    Deck,
    Folded,
    HandEnded,
    IllegalActionError,
    Mucked,
    Phase,
    Pot,
    PotAwarded,
    ShowdownBegan,
    Shown,
    State,
    Street,
)
from evaluator_pyx.cards import parse_cards

from helpers.tiers import examples

CFG = TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4)
F, C, R = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE


def cards(text: str) -> list[int]:
    return parse_cards(text)


def new_hand(stacks, button=0, holes=None, config=CFG, **kw) -> State:
    """A hand with every seat dealt: the given holdings (text) or unknown cards."""
    state = State(config, list(stacks), button, **kw)
    state.deal_holes({s: cards(h) for s, h in (holes or {}).items()})
    return state


def play(state: State, moves: str) -> None:
    """Apply moves given as letters: f fold, c check/call, r bet/raise, k check, b bet."""
    for m in moves:
        {"f": state.fold, "c": state.check_or_call, "r": state.bet_or_raise,
         "k": state.check, "b": state.bet}[m]()


def check_down(state: State) -> None:
    while state.actor is not None:
        state.check_or_call()


# --- blinds and order ------------------------------------------------------------------


def test_blinds_multiway() -> None:
    state = new_hand([1000] * 6, button=4)
    assert (state.small_blind_seat, state.big_blind_seat) == (5, 0)
    ops = state.operations
    assert ops[0] == BlindPosted(5, 5, False, False)
    assert ops[1] == BlindPosted(0, 10, True, False)
    assert state.bets == (10, 0, 0, 0, 0, 5)
    assert state.actor == 1  # left of the big blind
    assert state.to_call(1) == 10 and state.to_call(5) == 5
    assert state.current_bet == 10 and state.bets_this_round == 1 and state.raises_this_round == 0


def test_blinds_heads_up_button_posts_small_blind() -> None:
    state = new_hand([1000, 1000], button=1)
    assert (state.small_blind_seat, state.big_blind_seat) == (1, 0)
    assert state.bets == (10, 5)
    assert state.actor == 1  # the button acts first pre-flop
    play(state, "cc")  # call, big blind checks
    state.deal_board(cards("2c 7d 9h"))
    assert state.actor == 0  # and last after the flop
    play(state, "kk")
    state.deal_board(cards("Js"))
    assert state.actor == 0
    assert state.bet_size == 20


def test_action_order_each_round() -> None:
    state = new_hand([1000] * 4, button=0)  # SB 1, BB 2, UTG 3
    order = []
    while state.actor is not None:
        order.append(state.actor)
        state.check_or_call()
    assert order == [3, 0, 1, 2]
    state.deal_board(cards("2c 7d 9h"))
    order = []
    while state.actor is not None:
        order.append(state.actor)
        state.check_or_call()
    assert order == [1, 2, 3, 0]
    state.deal_board(cards("Js"))
    play(state, "kb")  # seat 1 checks, seat 2 bets
    assert state.actor == 3
    play(state, "cc")  # 3 and 0 call
    assert state.actor == 1  # the checker must answer the bet
    play(state, "c")
    assert state.phase == Phase.BOARD_DEALING and state.street == Street.TURN


def test_bet_sizes_by_street() -> None:
    state = new_hand([1000] * 3)
    play(state, "ccc")
    state.deal_board(cards("2c 7d 9h"))
    assert state.bet(1).to == 10
    play(state, "cc")
    state.deal_board(cards("Js"))
    assert state.bet(1).to == 20
    assert state.raise_(2).to == 40
    play(state, "cc")
    state.deal_board(cards("Qd"))
    assert state.bet_size == 20


# --- cap ----------------------------------------------------------------------------------


def test_preflop_cap_counts_big_blind() -> None:
    state = new_hand([1000] * 3, button=0)  # UTG is the button, seat 0
    play(state, "rrr")  # 20, 30, 40: blind + 3 raises
    assert state.bets_this_round == 4 and state.raises_this_round == 3
    assert state.is_capped
    assert state.actor == 0
    assert state.legal_actions() == (F, C)
    with pytest.raises(IllegalActionError, match="betting is capped at 4 bets this round"):
        state.bet_or_raise()
    play(state, "cc")
    assert state.put_in == (40, 40, 40)


def test_postflop_cap_bet_and_three_raises() -> None:
    state = new_hand([1000] * 2, button=0)
    play(state, "cc")
    state.deal_board(cards("2c 7d 9h"))
    play(state, "rrrr")
    assert state.bets_this_round == 4 and state.raises_this_round == 3
    assert state.legal_actions() == (F, C)
    assert state.raise_to is None
    with pytest.raises(IllegalActionError, match="capped"):
        state.raise_()


def test_other_cap_sizes() -> None:
    config = TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=3)
    state = new_hand([1000] * 2, config=config)
    play(state, "rr")
    assert state.is_capped and state.legal_actions() == (F, C)


# --- illegal moves ----------------------------------------------------------------------


def test_illegal_actions_name_the_rule() -> None:
    state = new_hand([1000] * 4, button=0)  # actor is seat 3
    with pytest.raises(IllegalActionError, match="seat 3 cannot check: facing 10 to call"):
        state.check()
    with pytest.raises(IllegalActionError, match="seat 1 cannot fold: it is seat 3's turn"):
        state.fold(1)
    with pytest.raises(IllegalActionError, match="seat 3 cannot bet: there is already the big blind"):
        state.bet()
    with pytest.raises(IllegalActionError, match="cannot deal the board now: betting on the pre-flop"):
        state.deal_board(cards("2c 7d 9h"))
    play(state, "f")
    with pytest.raises(IllegalActionError, match="seat 3 cannot call: it has folded"):
        state.call(3)
    play(state, "cc")
    assert state.actor == 2
    with pytest.raises(IllegalActionError, match="seat 2 cannot fold: nothing to call"):
        state.fold()
    with pytest.raises(IllegalActionError, match="seat 2 cannot call: there is no bet to call"):
        state.call()
    assert not state.can_fold() and state.can_check() and state.can_raise()
    play(state, "k")
    with pytest.raises(IllegalActionError, match="nobody can check now: the flop has not been dealt"):
        state.check()
    with pytest.raises(IllegalActionError, match="the flop needs 3 cards, got 2"):
        state.deal_board(cards("2c 7d"))
    with pytest.raises(IllegalActionError, match="duplicate card"):
        state.deal_board([0, 0, 1])
    state.deal_board(cards("2c 7d 9h"))
    with pytest.raises(IllegalActionError, match="seat 1 cannot raise: there is no bet to raise"):
        state.raise_()
    play(state, "kkk")
    with pytest.raises(IllegalActionError, match="card 9h is already in play"):
        state.deal_board(cards("9h"))
    with pytest.raises(IllegalActionError, match="the turn needs 1 card, got 2"):
        state.deal_board(cards("Th Jh"))


def test_failed_move_changes_nothing() -> None:
    state = new_hand([1000] * 3)
    before = (state.stacks, state.bets, state.actor, len(state.operations))
    for bad in (state.check, state.bet, lambda: state.fold(2)):
        with pytest.raises(IllegalActionError):
            bad()
    assert (state.stacks, state.bets, state.actor, len(state.operations)) == before


def test_dealing_rules() -> None:
    state = State(CFG, [1000] * 3, 0)
    assert state.phase == Phase.HOLE_DEALING and state.actor is None
    assert state.pending_hole_seats == (1, 2, 0)
    state.deal_hole(1, cards("As Ks"))
    with pytest.raises(IllegalActionError, match="seat 1 already has its cards"):
        state.deal_hole(1, cards("Qs Js"))
    with pytest.raises(IllegalActionError, match="card As is already in play"):
        state.deal_hole(2, cards("As 2c"))
    with pytest.raises(IllegalActionError, match="needs 2 cards, got 3"):
        state.deal_hole(2, cards("2c 3c 4c"))
    with pytest.raises(IllegalActionError, match="no seat 5"):
        state.deal_hole(5, None)
    with pytest.raises(IllegalActionError, match="hole cards are still being dealt"):
        state.check_or_call()
    state.deal_hole(2, None)
    state.deal_hole(0, cards("2c 3c"))
    assert state.phase == Phase.BETTING and state.actor == 0
    with pytest.raises(IllegalActionError, match="only before the pre-flop betting"):
        state.deal_hole(2, cards("4c 5c"))


# --- table stakes -------------------------------------------------------------------------


def test_short_stack_blinds() -> None:
    # Small blind has 2 chips, big blind 3: both all-in on the blinds.
    state = new_hand([1000, 2, 3, 1000], button=0)
    assert state.operations[0] == BlindPosted(1, 2, False, True)
    assert state.operations[1] == BlindPosted(2, 3, True, True)
    assert state.all_in == (1, 2)
    # The current bet is what was actually posted; a raise is one bet more.
    assert state.current_bet == 3 and state.to_call(3) == 3
    assert state.raise_to == 13
    assert state.actor == 3
    play(state, "cc")  # seat 3 calls 3, button calls 3; nobody else can act
    # Two players with chips remain, so the flop is bet normally, without the all-in ones.
    state.deal_board(cards("2c 7d 9h"))
    assert state.actor == 3
    play(state, "kk")
    state.deal_board(cards("Js"))
    play(state, "kk")
    state.deal_board(cards("Qd"))
    assert state.actor == 3


def test_heads_up_button_covers_short_big_blind() -> None:
    # The big blind posts 3 all-in, less than the button's small blind of 5: the button
    # has nothing to play for, the board runs out and 2 chips come back.
    state = new_hand([3, 1000], button=1, holes={0: "As Ah", 1: "Kd Kh"})
    assert state.actor is None and state.phase == Phase.BOARD_DEALING
    state.deal_board(cards("2c 7d 9h Js 3d"))  # a run-out may come in one go
    assert state.is_over
    assert [type(op) for op in state.operations].count(BoardDealt) == 3
    assert state.payoffs == (3, -3)
    assert state.stacks == (6, 997)


def test_short_all_in_raise_and_its_side_pot() -> None:
    state = new_hand([1000, 1000, 25], button=0, holes={0: "2c 3d", 1: "2h 3s", 2: "As Ah"})
    play(state, "ccc")
    state.deal_board(cards("Ks Qd 8c"))
    play(state, "br")  # seat 1 bets 10, seat 2 has 15 and raises all-in to 15 (short)
    op = state.operations[-1]
    assert op == BetOrRaised(2, 15, 15, True, False)
    play(state, "r")  # seat 0 had not acted: may raise to 25
    assert state.current_bet == 25
    play(state, "c")  # seat 1 calls
    assert state.phase == Phase.BOARD_DEALING
    state.deal_board(cards("7h"))
    assert state.actor == 1 and 2 not in (state.actor,)
    play(state, "kk")
    state.deal_board(cards("6d"))
    play(state, "kk")
    assert state.is_over
    # Seat 2 (aces) wins the main pot of 3 x 25; seats 0 and 1 split their side pot of 20.
    pots = [op for op in state.operations if isinstance(op, PotAwarded)]
    assert [(p.amount, p.winners) for p in pots] == [(75, (2,)), (20, (1, 0))]
    assert state.payoffs == (-25, -25, 50)


def test_call_for_less_than_the_bet() -> None:
    state = new_hand([1000, 1000, 12], button=0, holes={0: "2c 3d", 1: "4h 5s", 2: "As Ah"})
    play(state, "r")  # button raises to 20
    play(state, "c")  # small blind calls
    assert state.to_call(2) == 2  # big blind has 2 behind
    op = state.call()
    assert op == CheckedOrCalled(2, 2, True)
    assert state.all_in == (2,)


def test_side_pots_three_all_in_sizes() -> None:
    holes = {0: "As Ah", 1: "Kd Kh", 2: "Qd Qh", 3: "4c 5d"}
    state = new_hand([7, 13, 26, 1000], button=3, holes=holes)
    # Seat 0 posts 5 (2 left), seat 1 posts 10 (3 left); seat 2 raises, the button re-raises,
    # everyone else calls all-in for what they have.
    play(state, "rr")
    assert state.legal_actions() == (F, C)  # seat 0 can only call its 2 chips
    play(state, "ccc")
    assert state.all_in == (0, 1, 2)
    assert state.put_in == (7, 13, 26, 30)
    assert state.pots == (Pot(28, (0, 1, 2, 3)), Pot(18, (1, 2, 3)), Pot(26, (2, 3)), Pot(4, (3,)))
    assert state.phase == Phase.BOARD_DEALING and state.actor is None
    state.deal_board(cards("2c 7d 9h"))
    state.deal_board(cards("Jc"))
    state.deal_board(cards("3s"))
    assert state.is_over
    assert state.won == (28, 18, 26, 4)
    assert state.payoffs == (21, 5, 0, -26)
    assert sum(state.payoffs) == 0
    assert state.stacks == (28, 18, 26, 974)
    assert isinstance(state.operations[-1], HandEnded)


def test_split_pot_odd_chip_goes_left_of_button() -> None:
    holes = {0: "2c 3d", 1: "4h 5s", 2: "6h 8c"}
    state = new_hand([1000] * 3, button=0, holes=holes)  # SB 1, BB 2
    play(state, "cf")  # button calls, small blind folds
    play(state, "k")
    for board in ("As Ks Qs", "Js", "Ts"):  # a royal flush on board: everyone ties
        state.deal_board(cards(board))
        check_down(state)
    assert state.is_over
    award = [op for op in state.operations if isinstance(op, PotAwarded)]
    # Pot 25 = 5 + 10 + 10, split by the big blind (seat 2) and the button (seat 0); the
    # odd chip goes to the first winner clockwise from the button: seat 2.
    assert award == [PotAwarded(0, 25, (2, 0), (2, 0), (13, 12))]
    assert state.payoffs == (2, -5, 3)


def test_pots_won_by_the_same_players_are_split_once() -> None:
    # Seats 1 and 2 tie for two pots of 7 and 49 chips: split as one 56-chip pot, 28 each,
    # not 4+25 and 3+24 (PokerKit's result).
    config = TableConfig(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
    holes = {0: "2c 3d", 1: "Ah Kc", 2: "Ad Kh", 3: "4c 5c"}
    state = new_hand([100, 100, 100, 100], button=3, holes=holes, config=config)
    play(state, "rccc")
    state.deal_board(cards("Qs Js 9d"))
    check_down(state)
    state.deal_board(cards("8h"))
    check_down(state)
    state.deal_board(cards("2s"))
    check_down(state)
    assert state.is_over
    assert state.payoffs[1] == state.payoffs[2]


# --- short all-in raises ------------------------------------------------------------------


def _flop_with_short_third_stack(third: int) -> State:
    state = new_hand([1000, 1000, third], button=0)
    play(state, "ccc")
    state.deal_board(cards("2c 7d 9h"))
    return state


def test_short_all_in_raise_does_not_reopen_for_the_bettor() -> None:
    state = _flop_with_short_third_stack(25)  # seat 2 has 15 behind
    play(state, "br")  # seat 1 bets 10, seat 2 raises all-in to 15
    assert state.actor == 0 and Action.BET_RAISE in state.legal_actions()  # had not acted
    play(state, "c")
    assert state.actor == 1
    assert state.legal_actions() == (F, C)
    with pytest.raises(IllegalActionError, match="short all-in raise"):
        state.raise_()
    play(state, "c")
    assert state.phase == Phase.BOARD_DEALING


def test_short_all_in_raises_that_add_up_reopen() -> None:
    state = new_hand([1000, 1000, 26, 27], button=0)  # seats 2, 3 have 16, 17 behind
    play(state, "cccc")
    state.deal_board(cards("2c 7d 9h"))
    play(state, "b")  # seat 1 bets 10
    assert state.bet_or_raise().to == 16  # seat 2 all-in: 6 more, short
    assert state.bet_or_raise().to == 17  # seat 3 all-in: 1 more, short (7 < 10 in all)
    assert state.actor == 0
    play(state, "c")
    assert state.actor == 1 and state.legal_actions() == (F, C)  # 7 more is not a full bet


def test_short_all_in_opening_bet_counts_as_full() -> None:
    state = _flop_with_short_third_stack(13)  # seat 2 has 3 behind
    play(state, "k")  # seat 1 checks
    op = state.bet()  # seat 2 bets all-in 3
    assert op == BetOrRaised(2, 3, 3, True, True)
    assert state.raise_to == 13  # the raise is to the current bet plus a full bet
    play(state, "c")  # button calls 3
    assert Action.BET_RAISE in state.legal_actions()  # seat 1 checked but may raise


def test_no_raise_when_nobody_can_call_it() -> None:
    state = new_hand([1000, 1000, 15], button=0)  # big blind has 5 behind
    play(state, "cf")  # button calls, small blind folds
    play(state, "r")  # big blind raises all-in to 15
    assert state.actor == 0
    assert state.legal_actions() == (F, C)
    with pytest.raises(IllegalActionError, match="no other player has chips to call a raise"):
        state.raise_()


# --- showdown -----------------------------------------------------------------------------


def test_showdown_order_last_aggressor_first() -> None:
    holes = {0: "2c 3d", 1: "4h 5s", 2: "6h 8c"}
    state = new_hand([1000] * 3, button=0, holes=holes)
    play(state, "ccc")
    for board in ("As Ks Qs", "Jd"):
        state.deal_board(cards(board))
        check_down(state)
    state.deal_board(cards("2d"))
    play(state, "kbcc")  # seat 2 bets the river
    began = next(op for op in state.operations if isinstance(op, ShowdownBegan))
    assert began.order == (2, 0, 1)
    assert state.showdown_order == (2, 0, 1)
    shown = [op.seat for op in state.operations if isinstance(op, Shown)]
    assert shown == [2, 0, 1]


def test_showdown_order_without_a_bet_starts_left_of_button() -> None:
    state = new_hand([1000] * 3, button=1, holes={0: "2c 3d", 1: "4h 5s", 2: "6h 8c"})
    play(state, "ccc")
    for board in ("As Ks Qs", "Jd", "2d"):
        state.deal_board(cards(board))
        check_down(state)
    assert state.showdown_order == (2, 0, 1)


def test_unknown_cards_show_and_muck() -> None:
    state = new_hand([1000] * 3, button=0, holes={0: "2c 3d"})  # only our cards known
    assert state.hole_cards(1) is None
    play(state, "ccc")
    for board in ("As Ks Qs", "Jd", "9c"):
        state.deal_board(cards(board))
        check_down(state)
    assert state.phase == Phase.SHOWDOWN and state.street == Street.SHOWDOWN
    assert state.pending_showdown == (1, 2)  # seat 0's known cards were shown
    with pytest.raises(IllegalActionError, match="seat 1's hole cards are unknown"):
        state.show(1)
    with pytest.raises(IllegalActionError, match="card As is already in play"):
        state.show(1, cards("As 4d"))
    state.show(1, cards("Th 4d"))  # a straight
    assert state.hole_cards(1) == tuple(cards("Th 4d"))
    state.muck(2)
    assert state.is_over
    assert isinstance(state.operations[-3], Mucked)
    assert state.payoffs == (-10, 20, -10)


def test_last_claimant_cannot_muck() -> None:
    state = new_hand([1000] * 2, button=0)
    play(state, "cc")
    for board in ("As Ks Qs", "Jd", "9c"):
        state.deal_board(cards(board))
        check_down(state)
    state.muck(1)
    with pytest.raises(IllegalActionError, match="no one else is left to claim a pot"):
        state.muck(0)
    state.show(0, cards("2c 3d"))
    assert state.payoffs == (10, -10)


def test_shown_cards_must_match_dealt_cards() -> None:
    state = new_hand([1000] * 2, button=0, holes={0: "2c 3d"}, auto_show=False)
    play(state, "cc")
    for board in ("As Ks Qs", "Jd", "9c"):
        state.deal_board(cards(board))
        check_down(state)
    with pytest.raises(IllegalActionError, match="seat 0 shows 4c 3d but was dealt 2c 3d"):
        state.show(0, cards("4c 3d"))
    state.show(0)
    state.show(1, cards("Ah Ad"))
    assert state.payoffs == (-10, 10)


def test_external_award() -> None:
    state = new_hand([1000] * 3, button=0)
    play(state, "ccc")
    for board in ("As Ks Qs", "Jd", "9c"):
        state.deal_board(cards(board))
        check_down(state)
    with pytest.raises(IllegalActionError, match="20 awarded, the pot is 30"):
        state.award([10, 10, 0])
    op = state.award([15, 15, 0])
    assert op == AwardedExternally((15, 15, 0))
    assert state.payoffs == (5, 5, -10)


def test_fold_wins_uncontested_pot() -> None:
    state = new_hand([1000] * 3, button=0)
    play(state, "rff")
    assert state.is_over and state.street == Street.OVER
    assert state.operations[-2] == PotAwarded(0, 35, (0,), (0,), (35,))
    assert state.payoffs == (15, -5, -10)


def test_free_folds_option() -> None:
    state = new_hand([1000] * 3, button=0, free_folds=True)
    play(state, "cc")
    assert state.actor == 2 and F in state.legal_actions()
    assert isinstance(state.fold(), Folded)


# --- deck, copy -----------------------------------------------------------------------------


def test_deck_is_reproducible_and_deals_everything() -> None:
    def deal(seed: int) -> tuple:
        state = State(CFG, [1000] * 4, 2, deck=Deck(np.random.default_rng(seed)))
        check_down_all(state)
        return tuple(state.hole_cards(s) for s in range(4)) + (state.board,)

    def check_down_all(state: State) -> None:
        while not state.is_over:
            state.check_or_call()

    a, b, c = deal(7), deal(7), deal(8)
    assert a == b and a != c
    everything = [card for hole in a[:4] for card in hole] + list(a[4])
    assert len(set(everything)) == 13


def test_deck_with_fixed_holdings() -> None:
    mine = cards("As Ah")
    state = State(CFG, [1000] * 3, 0, deck=Deck(np.random.default_rng(1)), hole_cards={0: mine})
    assert state.hole_cards(0) == tuple(mine)
    others = set(state.hole_cards(1) + state.hole_cards(2))
    assert not others & set(mine) and len(others) == 4


def test_copy_is_independent() -> None:
    state = new_hand([1000] * 3, button=0, holes={0: "2c 3d", 1: "4h 5s", 2: "6h 8c"})
    play(state, "r")
    twin = state.copy()
    play(twin, "ff")
    assert twin.is_over and not state.is_over
    assert state.actor == 1 and state.pot == 35
    assert len(state.operations) < len(twin.operations)
    twin2 = state.copy()
    twin2.attach_deck(Deck(np.random.default_rng(3)))
    play(twin2, "cc")
    assert len(twin2.board) == 3 and len(state.board) == 0


# --- properties -------------------------------------------------------------------------------


def _random_hand(seed: int, n: int, explicit: bool) -> tuple[State, list[int]]:
    rng = random.Random(seed)
    config = TableConfig(small_blind=rng.choice((1, 5)), big_blind=10, small_bet=10, big_bet=20,
                         max_bets=rng.choice((3, 4, 5)))
    stacks = [rng.choice((rng.randint(1, 15), rng.randint(1, 150), rng.randint(100, 2000)))
              for _ in range(n)]
    button = rng.randrange(n)
    if explicit:
        state = State(config, stacks, button)
        deck = Deck(np.random.default_rng(seed))
        known = {s: deck.draw(2) for s in range(n) if rng.random() < 0.5}
        state.deal_holes(known)
        state.attach_deck(deck)
    else:
        state = State(config, stacks, button, deck=Deck(np.random.default_rng(seed)))
    return state, stacks


@settings(max_examples=examples(400), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 10), explicit=st.booleans(),
       data=st.data())
def test_hand_properties(seed: int, n: int, explicit: bool, data: st.DataObject) -> None:
    state, stacks = _random_hand(seed, n, explicit)
    total = sum(stacks)
    gone: set[int] = set()  # seats that folded or went all-in
    for op in state.operations:
        if isinstance(op, BlindPosted) and op.all_in:
            gone.add(op.seat)
    max_steps = 4 * n * (state.max_bets + 2)
    steps = 0
    while not state.is_over:
        if state.phase == Phase.SHOWDOWN:
            # Unknown holdings: show some, muck others, where the rules allow.
            seat = state.pending_showdown[0]
            if state.can_muck(seat) and data.draw(st.booleans()):
                state.muck(seat)
            else:
                used = set(state.board) | {c for s in range(n) if state.hole_cards(s)
                                           for c in state.hole_cards(s)}
                free = [c for c in range(52) if c not in used]
                state.show(seat, None if state.hole_cards(seat) else free[:2])
            continue
        actor = state.actor
        assert actor is not None and actor not in gone
        legal = state.legal_actions()
        assert legal
        assert state.can_check_or_call()
        op = state.act(data.draw(st.sampled_from(legal)))
        if isinstance(op, Folded) or getattr(op, "all_in", False):
            gone.add(actor)
        # Chips are conserved: behind, in the pot, or (once over) paid back into stacks.
        assert sum(state.stacks) + (0 if state.is_over else state.pot) == total
        assert all(s >= 0 for s in state.stacks)
        steps += 1
        assert steps <= max_steps
    assert sum(state.payoffs) == 0
    assert sum(state.stacks) == total
    assert sum(state.won) == state.pot
    assert state.actor is None and state.legal_actions() == ()
    assert isinstance(state.operations[-1], HandEnded)


@settings(max_examples=examples(200), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 10))
def test_copy_replays_identically(seed: int, n: int) -> None:
    state, _ = _random_hand(seed, n, explicit=False)
    rng = random.Random(seed)
    while state.actor is not None and rng.random() < 0.8:
        state.act(rng.choice(state.legal_actions()))
    twin = state.copy()
    moves = random.Random(seed + 1)
    twin_moves = random.Random(seed + 1)
    while not state.is_over and state.actor is not None:
        state.act(moves.choice(state.legal_actions()))
        twin.act(twin_moves.choice(twin.legal_actions()))
    assert state.operations == twin.operations


def test_heads_up_without_reverse_blinds_small_blind_acts_first_every_round():
    # The 1995 IRC dealers: heads-up, the player left of the button posts the small blind
    # and is first to act on every street.
    cfg = TableConfig()
    hand = State(cfg, [500, 500], button=0, heads_up_reverse_blinds=False)
    assert hand.small_blind_seat == 1 and hand.big_blind_seat == 0
    hand.deal_holes({})  # both holdings unknown
    assert hand.actor == 1
    hand.check_or_call()  # small blind completes
    assert hand.actor == 0
    hand.check_or_call()  # big blind checks
    hand.deal_board([0, 5, 10])
    assert hand.actor == 1


def test_more_than_ten_players_for_logs_of_real_games():
    hand = State(TableConfig(), [1000] * 12, button=11)
    assert hand.seats == 12 and hand.small_blind_seat == 0 and hand.big_blind_seat == 1
    with pytest.raises(IllegalActionError, match="2-23 players"):
        State(TableConfig(), [1000] * 24, button=0)
