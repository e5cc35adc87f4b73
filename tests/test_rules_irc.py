"""The 1995 IRC dealer's rules in agent/game/rules.py: the real April 1995 #holdem hands replayed
through State, unit tests of each rule variant, and property tests under those rules."""
from __future__ import annotations

import dataclasses
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.config import TableConfig
from agent.game.rules import (
    IRC_1995,
    STANDARD,
    Action,
    BetOrRaised,
    BlindPosted,
    CheckedOrCalled,
    Deck,
    DeclaredAllIn,
    HandEnded,
    IllegalActionError,
    Left,
    Phase,
    PotAwarded,
    RuleVariant,
    State,
    Street,
)
from connectors.logs.irc_database import (
    ALL_IN,
    BET,
    BIG_BLIND,
    BLIND_BIG,
    BLIND_SMALL,
    CALL,
    CHECK,
    FOLD,
    KICKED,
    QUIT,
    RAISE,
    SMALL_BLIND,
    IrcAction,
    IrcHand,
    IrcPlayer,
    read_irc_database,
    summarize,
)
from evaluator_pyx.cards import parse_cards

from helpers.tiers import examples, full_tier

CFG = TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4)


def cards(text: str) -> list[int]:
    return parse_cards(text)


def irc_hand(stacks, button=None, holes=None, blinds=None, variant=IRC_1995) -> State:
    """A hand under the IRC rules with every seat dealt (given holdings or unknown)."""
    n = len(stacks)
    state = State(CFG, list(stacks), n - 1 if button is None else button, blinds=blinds,
                  variant=variant)
    state.deal_holes({s: cards(h) for s, h in (holes or {}).items()})
    return state


def play(state: State, moves: str) -> None:
    """f fold, c check/call, r bet/raise, k check, b bet."""
    for m in moves:
        {"f": state.fold, "c": state.check_or_call, "r": state.bet_or_raise,
         "k": state.check, "b": state.bet}[m]()


# --- the real logs ----------------------------------------------------------------------

DATASET = "irc-holdem-199504-dev"


from shared_data import DATA  # the shared 1995 logs (located in one place)

needs_data = pytest.mark.skipif(
    DATA is None,
    reason=f"the IRC hand logs ({DATASET}) are not there: "
           "set POKI_SHARED_DATA to the folder holding them",
)


@dataclasses.dataclass
class Replay:
    """One logged hand replayed through State: ``problem`` is None when every chip figure
    agrees with the log, else ``category: detail``."""

    problem: str | None = None
    state: State | None = None
    figures: list[tuple[int, int]] = dataclasses.field(default_factory=lambda: [(0, 0)] * 4)
    folds_in_turn_by_leaving: int = 0  # quit/kicked when it was his turn: a fold
    left_out_of_turn: int = 0
    declared_all_in: int = 0
    showdown: bool = False
    mucked: int = 0  # live at the showdown, cards never shown, won nothing
    awarded: bool = False  # pots settled from the log's amounts


def replay(hand: IrcHand, variant: RuleVariant = IRC_1995) -> Replay:
    """Feed a logged hand to State: blinds by State itself, then every action in order, the
    board when a round ends, the shown cards at the showdown; compare chips and pots."""
    out = Replay()
    n = hand.n_players
    players = hand.players
    two = hand.two_blinds
    # Seats in position order: position 1 (left of the button) is seat 0, the button last.
    state = State(CFG, [p.bankroll for p in players], n - 1, auto_show=False,
                  blinds=(SMALL_BLIND, BIG_BLIND) if two else (BIG_BLIND,), variant=variant)
    out.state = state
    logged = [(a.position - 1, a.amount, a.all_in) for a in hand.actions[:2 if two else 1]]
    posted = [(op.seat, op.amount, op.all_in) for op in state.operations]
    kinds = [a.kind for a in hand.actions[:len(logged)]]
    if posted != logged or kinds != ([BLIND_SMALL, BLIND_BIG] if two else [BLIND_BIG]):
        out.problem = f"blinds differ: State posted {posted}, the log {logged}"
        return out
    state.deal_holes([p.hole_cards for p in players])
    board = hand.board
    dealt = 0

    def deal_next() -> None:
        nonlocal dealt
        k = state.pending_board_count
        out.figures[state.street] = (len(state.active), state.pot)
        state.deal_board(board[dealt:dealt + k])
        dealt += k

    last_round = 0
    for a in hand.actions[len(logged):]:
        while state.phase == Phase.BOARD_DEALING and a.round > state.street:
            deal_next()
        if state.is_over:
            out.problem = f"action after the end: {a}"
            return out
        last_round = min(int(state.street), 3)
        if not _replay_action(state, a, out):
            return out
    while state.phase == Phase.BOARD_DEALING:
        deal_next()
    if state.phase == Phase.BETTING:
        out.problem = f"betting not finished: seat {state.actor} is still to act"
        return out
    if state.phase == Phase.SHOWDOWN:
        last_round = 3
        if not _replay_showdown(state, players, out):
            return out
    # A winner who left once the pot was settled is not counted at the showdown (the reader).
    gone = sum(1 for s in state.active
               if any(r == last_round for r, _ in players[s].left_after_out))
    out.figures[3] = (len(state.active) - gone, state.pot)
    _compare_totals(state, hand, out)
    return out


def _replay_action(state: State, a: IrcAction, out: Replay) -> bool:
    """One logged action given to State; False (with ``out.problem``) if it refused it or
    did it with other chips."""
    seat = a.position - 1
    kind = a.kind
    try:
        if kind == FOLD:
            op = state.fold(seat)
        elif kind == CHECK:
            op = state.check(seat)
        elif kind == CALL:
            op = state.call(seat)
        elif kind == BET:
            op = state.bet(seat)
        elif kind == RAISE:
            op = state.raise_(seat)
        elif kind in (QUIT, KICKED):
            if state.actor == seat:
                op = state.fold(seat)
                out.folds_in_turn_by_leaving += 1
            else:
                op = state.leave(seat)
                out.left_out_of_turn += 1
        elif kind == ALL_IN:
            op = state.declare_all_in(seat)
            out.declared_all_in += 1
        else:
            out.problem = f"unknown action: {a}"
            return False
    except IllegalActionError as e:
        out.problem = f"refused: {a.nick} {kind} in round {a.round}: {e}"
        return False
    if (isinstance(op, (CheckedOrCalled, BetOrRaised))
            and (op.amount, op.all_in) != (a.amount, a.all_in)):
        out.problem = f"amount differs: {a} but State did {op}"
        return False
    return True


def _replay_showdown(state: State, players: tuple[IrcPlayer, ...], out: Replay) -> bool:
    """The shown cards, the mucks and the logged awards; False (with ``out.problem``) if
    State refused the awards."""
    out.showdown = True
    for s in state.pending_showdown:
        if state.phase == Phase.SHOWDOWN and state.hole_cards(s) is not None:
            state.show(s)
    unknown = state.pending_showdown
    # Players whose cards the log does not give and who won nothing gave up their claim.
    if all(players[s].won == 0 for s in unknown):
        for s in unknown:
            if state.phase == Phase.SHOWDOWN and state.can_muck(s):
                state.muck(s)
                out.mucked += 1
    if state.phase == Phase.SHOWDOWN:
        amounts = [p.won for p in players]
        if not state.can_award(amounts):
            out.problem = "award refused: the logged amounts break the rules"
            return False
        state.award(amounts)
        out.awarded = True
    return True


def _compare_totals(state: State, hand: IrcHand, out: Replay) -> None:
    """The board, the chips put in and won and the pots, State's against the log's."""
    board = hand.board
    players = hand.players
    if state.board != board:
        out.problem = (f"board differs: State dealt {len(state.board)} of the log's "
                       f"{len(board)} cards")
    elif list(state.put_in) != [p.put_in for p in players]:
        out.problem = f"put-in differs: State {state.put_in}, the log {[p.put_in for p in players]}"
    elif list(state.won) != [p.won for p in players]:
        out.problem = f"won differs: State {state.won}, the log {[p.won for p in players]}"
    elif [f[1] for f in out.figures] != [f[1] for f in hand.pots]:
        out.problem = f"pot differs: State {out.figures}, the reader {hand.pots}"
    elif any(h != (0, 0) and h[1] != mine[1] for h, mine in zip(hand.hdb_figures, out.figures)):
        out.problem = f"hdb pot differs: State {out.figures}, hdb {hand.hdb_figures}"


def _category(problem: str | None) -> str:
    return "exact" if problem is None else problem.split(":", 1)[0]


@pytest.fixture(scope="module")
@full_tier
def irc_items() -> list:
    assert DATA is not None
    return list(read_irc_database(DATA))


@pytest.fixture(scope="module")
def irc_hands(irc_items) -> list[IrcHand]:
    return [h for h in irc_items if isinstance(h, IrcHand)]


@needs_data
def test_every_logged_hand_replays_through_the_rules(irc_items, irc_hands) -> None:
    summary = summarize(irc_items)
    # What the reader could not read never reaches the rules (tests/test_irc_logs.py).
    assert summary.read == len(irc_hands) == 20_031
    assert dict(summary.skipped_by_reason) == {
        "incomplete": 33, "illegal-action": 10, "put-in-mismatch": 4}

    by_category: Counter = Counter()
    examples: dict[str, str] = {}
    counts: Counter = Counter()
    players_differ = []
    for hand in irc_hands:
        r = replay(hand)
        cat = _category(r.problem)
        by_category[cat] += 1
        if r.problem:
            examples.setdefault(cat, f"{hand.source} ({hand.hand_id}): {r.problem}")
            continue
        state = r.state
        assert state is not None and state.is_over
        assert sum(state.payoffs) == 0
        assert state.stacks == tuple(p.bankroll - p.put_in + p.won for p in hand.players)
        counts["showdowns"] += r.showdown
        counts["hands with a quit/kick in turn (a fold)"] += bool(r.folds_in_turn_by_leaving)
        counts["hands with a quit/kick out of turn (leave)"] += bool(r.left_out_of_turn)
        counts["leaves out of turn"] += r.left_out_of_turn
        counts["hands with a declared all-in"] += bool(r.declared_all_in)
        counts["players mucked at a showdown"] += r.mucked
        counts["hands settled by award()"] += r.awarded
        # Player counts: flop, turn and river as the reader rebuilt them; at the showdown
        # the reader's figure is negative where a winner's two leave notes were both counted.
        if [f[0] for f in r.figures[:3]] != [f[0] for f in hand.pots[:3]]:
            counts["player count differs before the showdown"] += 1
        if r.figures[3][0] != hand.pots[3][0]:
            players_differ.append(hand.hand_id)
            assert hand.pots[3][0] < 0, (hand.hand_id, r.figures, hand.pots)
    print()
    print(f"replayed exactly: {by_category['exact']} of {len(irc_hands)}")
    for cat, k in sorted(by_category.items()):
        if cat != "exact":
            print(f"  {cat}: {k}, e.g. {examples[cat]}")
    for what, k in sorted(counts.items()):
        print(f"  {what}: {k}")
    print(f"  showdown player count negative in the reader: {len(players_differ)}")

    assert dict(by_category) == {"exact": 20_031}, examples
    assert dict(counts) == {
        "showdowns": 8_436,
        "hands with a quit/kick in turn (a fold)": 1_759,
        "hands with a quit/kick out of turn (leave)": 57,
        "leaves out of turn": 58,
        "hands with a declared all-in": 4,
        "players mucked at a showdown": 0,
        "hands settled by award()": 0,
    }
    assert sorted(players_differ) == [797659552, 798194203, 798288360]


@pytest.mark.slow
@needs_data
def test_each_irc_rule_is_needed_by_the_logs(irc_hands) -> None:
    """Turn each IRC rule back to the standard one: exactly the hands that need it fail."""
    failing: dict[str, Counter] = {}
    for field in dataclasses.fields(RuleVariant):
        if getattr(IRC_1995, field.name) == getattr(STANDARD, field.name):
            continue  # a rule of other sources (the online rooms'), not the IRC dealer's
        variant = dataclasses.replace(IRC_1995, **{field.name: getattr(STANDARD, field.name)})
        failing[field.name] = Counter(
            _category(replay(h, variant).problem) for h in irc_hands) - Counter(exact=10**9)
    print()
    for name, c in failing.items():
        print(f"  {name} as standard: {dict(c)}")
    assert failing == {
        "heads_up_reverse_blinds": Counter({"blinds differ": 4_297}),
        "free_folds": Counter({"refused": 1_524}),
        "cap_heads_up": Counter({"refused": 241}),
        "short_all_in_counts": Counter({"refused": 9}),
        "short_blind_lowers_bet": Counter({"amount differs": 6}),
        "raise_needs_caller": Counter({"refused": 13, "betting not finished": 1}),
        "merge_same_winners": Counter({"won differs": 1}),
        "odd_chips_spread": Counter({"won differs": 7}),
    }


@needs_data
def test_a_short_all_in_raise_reopens_the_betting_in_the_logs(irc_hands) -> None:
    # Hand 797566233, turn: pos2 bets, pos4 raises, pos1 calls, pos2 re-raises, pos4 raises
    # all-in 15 short of a full raise, pos1 calls, and pos2, who had acted since the last
    # full raise, raises again; pos1 calls. The standard rule would refuse that raise.
    hand = next(h for h in irc_hands if h.hand_id == 797566233)
    assert replay(hand).problem is None
    standard_reopening = dataclasses.replace(IRC_1995, short_all_in_counts=True)
    problem = replay(hand, standard_reopening).problem
    assert problem is not None and "facing a short all-in raise" in problem


@needs_data
def test_the_cap_is_counted_at_each_raise_in_the_logs(irc_hands) -> None:
    """Raises past the cap came only when at most two players could bet at that moment,
    often in rounds that began with more: the cap lifts in the middle of a round."""
    past_cap: Counter = Counter()  # by (able at the raise, able when the round began)
    facing_cap: Counter = Counter()  # what players did facing a capped bet, 3+ able
    for hand in irc_hands:
        out = [False] * hand.n_players
        all_in = [False] * hand.n_players
        rnd = -1
        at_start = 0
        for a in hand.actions:
            able = sum(1 for o, x in zip(out, all_in) if not o and not x)
            if a.round != rnd and a.kind not in (BLIND_SMALL, BLIND_BIG):
                rnd, at_start = a.round, able
            i = a.position - 1
            if a.raises >= 3 and a.to_call and not all_in[i] and able > 2:
                facing_cap[a.kind] += 1
            if a.kind == RAISE and a.raises >= 3:
                now = "2 or fewer" if able <= 2 else "3+"
                past_cap[(now, "3+" if at_start > 2 else "2 or fewer")] += 1
            if a.kind in (FOLD, QUIT, KICKED):
                out[i] = True
            elif a.kind == ALL_IN or a.all_in:
                all_in[i] = True
    assert past_cap == Counter({("2 or fewer", "2 or fewer"): 723, ("2 or fewer", "3+"): 372})
    assert facing_cap == Counter({CALL: 2_996, FOLD: 268, QUIT: 8, KICKED: 2})  # no RAISE


# --- the variant and its keywords -----------------------------------------------------------


def test_keywords_are_shorthands_for_the_variant() -> None:
    assert State(CFG, [100, 100], 0).variant == STANDARD
    v = State(CFG, [100, 100], 0, free_folds=True, heads_up_reverse_blinds=False).variant
    assert v == RuleVariant(free_folds=True, heads_up_reverse_blinds=False)
    assert State(CFG, [100, 100], 0, variant=IRC_1995, free_folds=True).variant == IRC_1995
    with pytest.raises(IllegalActionError, match="contradicts"):
        State(CFG, [100, 100], 0, variant=STANDARD, free_folds=True)
    with pytest.raises(IllegalActionError, match="contradicts"):
        State(CFG, [100, 100], 0, variant=STANDARD, heads_up_reverse_blinds=False)
    with pytest.raises(IllegalActionError, match="RuleVariant"):
        State(CFG, [100, 100], 0, variant="irc")  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test


def test_irc_heads_up_order_and_free_folds() -> None:
    state = irc_hand([500, 500], button=1)
    assert state.small_blind_seat == 0 and state.big_blind_seat == 1
    assert state.actor == 0  # left of the button: first pre-flop
    play(state, "cc")
    state.deal_board(cards("2c 7d Jh"))
    assert state.actor == 0  # and first after the flop
    state.fold()  # folding with nothing to call
    assert state.is_over and state.payoffs == (-10, 10)


# --- blinds ---------------------------------------------------------------------------------


def test_single_blind() -> None:
    state = irc_hand([1000] * 4, blinds=(10,))  # button: seat 3
    assert state.operations[0] == BlindPosted(0, 10, True, False)
    assert state.blind_seats == (0,) and state.small_blind_seat == state.big_blind_seat == 0
    assert state.bets == (10, 0, 0, 0) and state.current_bet == 10
    assert state.actor == 1  # the player after the one blind acts first
    assert state.bets_this_round == 1
    play(state, "rrr")  # the blind is the first bet: three raises reach the cap of four
    assert state.is_capped and not state.can_bet_or_raise()
    play(state, "ccc")
    assert state.street == Street.PREFLOP and state.phase == Phase.BOARD_DEALING
    assert state.put_in == (40, 40, 40, 40)


def test_single_blind_heads_up_keeps_the_option() -> None:
    state = irc_hand([500, 500], blinds=(10,))  # button: seat 1
    assert state.blind_seats == (0,) and state.actor == 1  # the button acts first pre-flop
    play(state, "c")
    assert state.actor == 0  # the blind may still check or raise (the logs' "Bk", "Br")
    play(state, "k")
    state.deal_board(cards("2c 7d Jh"))
    assert state.actor == 0


def test_blinds_in_posting_order_and_bad_blinds() -> None:
    state = State(CFG, [1000] * 5, 4, blinds=(5, 10, 10))
    assert state.blind_seats == (0, 1, 2)
    assert [(op.seat, op.amount, op.big) for op in state.operations] == [
        (0, 5, False), (1, 10, False), (2, 10, True)]
    assert state.big_blind_seat == 2
    state.deal_holes({})
    assert state.actor == 3
    assert State(CFG, [100] * 3, 0).blind_seats == (1, 2)  # the default: the config's two
    for bad in ((), (5, 0), (5, "10"), (1, 2, 3, 4)):
        with pytest.raises(IllegalActionError, match="blind"):
            State(CFG, [100] * 3, 0, blinds=bad)  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test


def test_short_big_blind_keeps_the_bet_at_the_full_blind() -> None:
    irc = irc_hand([500, 3, 500])  # the big blind has 3 chips
    assert irc.operations[1] == BlindPosted(1, 3, True, True)
    assert irc.current_bet == 10 and irc.to_call(2) == 10 and irc.to_call(0) == 5
    play(irc, "cc")  # both complete to 10
    assert irc.phase == Phase.BOARD_DEALING and irc.put_in == (10, 3, 10)
    standard = irc_hand([500, 3, 500],
                        variant=dataclasses.replace(IRC_1995, short_blind_lowers_bet=True))
    assert standard.current_bet == 5 and standard.to_call(2) == 5  # the largest posted


def test_short_blinds_heads_up() -> None:
    # The big blind posts 1 chip: the small blind still completes to 10 (hand 797553064).
    state = irc_hand([500, 1])
    assert [op.amount for op in state.operations[:2]] == [5, 1]
    assert state.actor == 0 and state.to_call(0) == 5
    play(state, "c")
    assert state.phase == Phase.BOARD_DEALING and state.put_in == (10, 1)
    # The small blind posts its only chip: the big blind owes nothing and nobody can call.
    state = irc_hand([1, 500])
    assert state.phase == Phase.BOARD_DEALING and state.put_in == (1, 10)
    # A short single blind: the button faces the full 10 (hand 797269435).
    state = irc_hand([7, 500], blinds=(10,))
    assert state.actor == 1 and state.to_call(1) == 10


# --- the cap --------------------------------------------------------------------------------


def test_no_cap_heads_up() -> None:
    state = irc_hand([1000, 1000])
    play(state, "rrrrrr")  # six raises over the blind
    assert state.bets_this_round == 7 and not state.is_capped
    play(state, "c")
    assert state.put_in == (70, 70)
    capped = irc_hand([1000, 1000], variant=dataclasses.replace(IRC_1995, cap_heads_up=True))
    play(capped, "rrr")
    assert capped.is_capped and not capped.can_bet_or_raise()


def test_uncapped_raising_stops_at_all_in() -> None:
    state = irc_hand([75, 1000])
    while state.can_bet_or_raise():
        state.bet_or_raise()
    assert state.stacks[0] == 0 and state.phase == Phase.BOARD_DEALING


def test_cap_lifts_mid_round_when_a_fold_leaves_two() -> None:
    state = irc_hand([1000] * 3)  # seat 2 first pre-flop
    play(state, "rrr")  # seats 2, 0, 1 raise: four bets with the blind
    assert state.actor == 2 and state.is_capped and not state.can_raise()
    state.fold()
    assert state.actor == 0
    assert not state.is_capped and state.can_raise()  # two left: counted at each raise
    play(state, "r")
    assert state.bets_this_round == 5


def test_all_in_players_do_not_count_for_the_cap() -> None:
    state = irc_hand([1000, 1000, 1000, 25])  # seat 3, the button, has 25
    play(state, "cr")  # seat 2 calls 10, seat 3 raises to 20
    play(state, "rr")  # seats 0 and 1 raise: four bets
    assert state.is_capped and state.actor == 2
    play(state, "f")  # seat 2 folds; three are left and seat 3 can still bet
    assert state.actor == 3 and state.is_capped
    op = state.call()
    assert op.all_in  # three live, two able to bet: no cap
    assert state.actor == 0 and not state.is_capped and state.can_raise()


# --- short all-in raises ------------------------------------------------------------------


def _flop_with_short_stack(variant: RuleVariant) -> State:
    # Seats 0, 1 and 3 have 1000, seat 2 has 25; everyone calls pre-flop, leaving seat 2 15.
    state = irc_hand([1000, 1000, 25, 1000], variant=variant)
    play(state, "cccc")
    state.deal_board(cards("2c 7d Jh"))
    return state


def test_short_all_in_raise_reopens_and_does_not_count() -> None:
    state = _flop_with_short_stack(IRC_1995)
    play(state, "bc")  # seat 0 bets 10, seat 1 calls
    op = state.raise_()  # seat 2 raises all-in: 15, short of a full raise to 20
    assert op == BetOrRaised(2, 15, 15, True, False)
    assert state.current_bet == 15 and state.bets_this_round == 1  # not counted
    play(state, "c")  # seat 3 calls 15
    assert state.actor == 0 and state.to_call(0) == 5
    assert state.can_raise()  # seat 0 already acted, but a short all-in re-opens
    assert state.raise_to == 25  # one full bet above the short raise
    play(state, "rr")
    assert state.bets_this_round == 3
    play(state, "r")  # seat 3: the bet and three raises while three can bet
    assert state.bets_this_round == 4 and state.is_capped


def test_short_all_in_raise_under_the_standard_rule() -> None:
    state = _flop_with_short_stack(dataclasses.replace(IRC_1995, short_all_in_counts=True))
    play(state, "bc")
    op = state.raise_()
    assert op.full is False and state.bets_this_round == 2  # counts towards the cap
    play(state, "c")
    assert state.actor == 0 and not state.can_raise()  # does not re-open


def test_short_all_in_opening_bet_is_the_bet() -> None:
    state = irc_hand([1000, 1000, 14, 1000])
    play(state, "cccc")  # seat 2 keeps 4
    state.deal_board(cards("2c 7d Jh"))
    play(state, "kk")
    op = state.bet()
    assert op == BetOrRaised(2, 4, 4, True, True) and state.bets_this_round == 1
    assert state.raise_to == 14


# --- raises nobody can call -------------------------------------------------------------------


def test_raise_over_a_short_all_in_that_nobody_can_call() -> None:
    # Heads-up, seat 1 raises all-in short; seat 0 may still raise, and the round ends
    # there: the chips nobody matched come back to seat 0 as its own pot.
    state = irc_hand([1000, 25], holes={0: "As Ad", 1: "Kc Kd"})
    play(state, "r")  # seat 0 raises to 20
    op = state.raise_()  # seat 1 all-in to 25
    assert op == BetOrRaised(1, 25, 15, True, False)
    assert state.can_raise() and state.raise_to == 35
    state.raise_()
    assert state.phase == Phase.BOARD_DEALING  # nobody is left to answer
    assert state.put_in == (35, 25)
    state.deal_board(cards("2c 7d Jh 3s 4h"))
    assert state.is_over and state.won == (60, 0)
    awarded = [op for op in state.operations if isinstance(op, PotAwarded)]
    assert [(a.amount, a.winners) for a in awarded] == [(50, (0,)), (10, (0,))]
    standard = irc_hand([1000, 25], variant=dataclasses.replace(IRC_1995, raise_needs_caller=True))
    play(standard, "rr")
    assert not standard.can_raise()


def test_player_nobody_can_top_is_passed_over() -> None:
    # The big blind whose only caller went all-in gets no option (hand 798363468).
    state = irc_hand([1000, 1000, 10])  # seat 2, first to act, has exactly the blind
    assert state.call().all_in
    state.fold()  # seat 0, the small blind
    assert state.phase == Phase.BOARD_DEALING  # seat 1 is not asked
    standard = irc_hand([1000, 1000, 10],
                        variant=dataclasses.replace(IRC_1995, raise_needs_caller=True))
    play(standard, "cf")
    assert standard.actor == 1 and Action.BET_RAISE not in standard.legal_actions()


# --- split pots -----------------------------------------------------------------------------


def test_odd_chips_spread_one_each() -> None:
    # Hand 797308196: 35 chips split three ways are 12, 12, 11, not 13, 11, 11.
    holes = {1: "Td Jc", 2: "8d 7d", 3: "Qc 7h"}
    first_gets_all = dataclasses.replace(IRC_1995, odd_chips_spread=False)
    for variant, expect in ((IRC_1995, (0, 12, 12, 11)), (first_gets_all, (0, 13, 11, 11))):
        state = irc_hand([1000] * 4, holes=holes, variant=variant)
        play(state, "ccfk")  # seats 2 and 3 call, the small blind folds, the big checks
        for board in ("4d 4c Ad", "9h", "9s"):
            state.deal_board(cards(board))
            play(state, "kkk")
        assert state.is_over and state.won == expect  # everyone plays the board


def test_pots_won_by_the_same_players_are_split_one_by_one() -> None:
    # Hand 798351788's shape: seats 2 and 3 tie, and each of the pots they share has an
    # odd chip that goes to seat 2, the first from the button.
    def run(variant: RuleVariant) -> tuple[int, ...]:
        state = irc_hand([1000, 10, 1000, 1000, 15], variant=variant,
                         holes={1: "6d 2d", 2: "Qc 3c", 3: "Qh 4h", 4: "5c 5s"})
        play(state, "cccf")  # seats 2, 3, 4 call (4 keeps 5), the small blind folds
        state.deal_board(cards("9h Th Jd"))
        play(state, "bcc")  # seat 2 bets, seat 3 calls, seat 4 calls all-in for 5
        for board in ("Kd", "2s"):
            state.deal_board(cards(board))
            play(state, "kk")
        assert state.put_in == (5, 10, 20, 20, 15)
        return state.won

    # Pots: 45 (seats 1-4), 15 (seats 2-4), 10 (seats 2 and 3).
    assert run(IRC_1995) == (0, 0, 23 + 8 + 5, 22 + 7 + 5, 0)
    assert run(dataclasses.replace(IRC_1995, merge_same_winners=True)) == (0, 0, 35, 35, 0)


# --- leaving and declared all-ins -----------------------------------------------------------


def test_leave_out_of_turn() -> None:
    state = irc_hand([1000] * 4)  # seat 2 to act
    op = state.leave(3)
    assert op == Left(3) and state.operations[-1] == op
    assert 3 in state.folded and state.actor == 2
    play(state, "cc")
    assert state.actor == 1
    state.check()
    assert state.phase == Phase.BOARD_DEALING
    state.deal_board(cards("2c 7d Jh"))
    assert state.actor == 0
    state.leave(1)
    assert state.actor == 0
    state.leave(0)  # seat 2 is the last one in
    assert state.is_over and state.won == (0, 0, 30, 0)
    with pytest.raises(IllegalActionError, match="over"):
        state.leave(2)


def test_leave_ends_the_round_when_nobody_owes_a_move() -> None:
    state = irc_hand([1000] * 3)
    play(state, "cc")  # seats 2 and 0 call; the big blind has the option
    state.leave(1)
    assert state.phase == Phase.BOARD_DEALING and state.put_in == (10, 10, 10)


def test_leave_between_rounds() -> None:
    state = irc_hand([1000] * 3, holes={0: "As Ad", 1: "Kc Kd", 2: "2c 2h"})
    play(state, "ccc")
    state.leave(0)
    state.deal_board(cards("3c 7d Jh"))
    assert state.actor == 1
    for board in ("8s", "9s", None):
        play(state, "kk")
        if board:
            state.deal_board(cards(board))
    assert state.is_over and state.won == (0, 30, 0)


def test_leave_at_the_showdown_gives_up_the_claim() -> None:
    state = State(CFG, [1000] * 3, 2, variant=IRC_1995, auto_show=False)
    state.deal_holes({0: cards("As Ad"), 1: cards("Kc Kd"), 2: cards("2c 2h")})
    play(state, "ccc")
    for board in ("3c 7d Jh", "8s", "9s"):
        state.deal_board(cards(board))
        play(state, "kkk")
    assert state.phase == Phase.SHOWDOWN
    state.leave(0)  # the best hand leaves without showing
    state.show(1)
    state.show(2)
    assert state.won == (0, 30, 0)


def test_last_player_cannot_leave() -> None:
    state = State(CFG, [100] * 3, 2, variant=IRC_1995)
    state.leave(0)
    state.leave(1)
    with pytest.raises(IllegalActionError, match="last player"):
        state.leave(2)
    state.deal_holes({})
    assert state.is_over and state.won == (0, 0, 15)


def test_declared_all_in_plays_for_what_he_put_in() -> None:
    # Hand 797557949's shape: declared all-in after the pre-flop, he wins the main pot when
    # the others fold to a bet, the bettor gets his bet back, and his chips behind return.
    state = irc_hand([1000, 500, 1000], holes={1: "As Ad"})
    play(state, "ccc")
    op = state.declare_all_in(1)
    assert op == DeclaredAllIn(1, 490)
    assert state.stacks == (990, 490, 990) and 1 in state.all_in
    state.deal_board(cards("3c 7d Jh"))
    assert state.actor == 0
    play(state, "bf")  # seat 0 bets, seat 2 folds: nobody is left to bet
    assert state.phase == Phase.BOARD_DEALING
    state.deal_board(cards("8s 9s"))
    assert state.phase == Phase.SHOWDOWN
    state.show(0, cards("2c 4d"))
    assert state.is_over and state.won == (10, 30, 0)
    assert state.stacks == (990, 520, 990) and 1 in state.all_in
    assert isinstance(state.operations[-1], HandEnded)


def test_declared_all_in_in_turn_facing_a_bet() -> None:
    # Hand 797575674's shape: declared all-in instead of calling a raise.
    state = irc_hand([1000] * 3)
    play(state, "cr")  # seat 2 calls, seat 0 raises
    assert state.actor == 1
    state.declare_all_in(1)
    assert state.actor == 2
    play(state, "c")
    assert state.phase == Phase.BOARD_DEALING and state.put_in == (20, 10, 20)
    with pytest.raises(IllegalActionError, match="already"):
        state.declare_all_in(1)


def test_declared_all_in_can_bring_a_run_out() -> None:
    state = irc_hand([1000, 1000])
    play(state, "cc")
    state.declare_all_in(0)
    state.deal_board(cards("3c 7d Jh 8s 9s"))  # no more betting: the rest comes at once
    assert state.phase == Phase.SHOWDOWN


# --- properties under the IRC rules ---------------------------------------------------------


def _random_irc_hand(seed: int, n: int, variant: RuleVariant) -> tuple[State, int]:
    rng = random.Random(seed)
    stacks = [rng.choice((rng.randint(1, 15), rng.randint(1, 150), rng.randint(100, 2000)))
              for _ in range(n)]
    blinds = rng.choice(((5, 10), (10,), (1, 10), (5, 10, 10)))[:n]
    state = State(CFG, stacks, rng.randrange(n), blinds=blinds, variant=variant,
                  deck=Deck(np.random.default_rng(seed)))
    return state, sum(stacks)


variants = st.builds(RuleVariant, *[st.booleans() for _ in dataclasses.fields(RuleVariant)])


@settings(max_examples=examples(400), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12),
       variant=st.one_of(st.just(IRC_1995), variants), data=st.data())
def test_irc_hand_properties(seed: int, n: int, variant: RuleVariant, data: st.DataObject) -> None:
    state, total = _random_irc_hand(seed, n, variant)
    longest = max(state.starting_stacks)
    # Without a cap heads-up a round lasts until someone is all-in: a full bet a raise.
    # Leaving and declaring all-in happen at most once a player; so does showing.
    max_steps = 4 * (n * (CFG.max_bets + 2) + 2 * (longest // CFG.small_bet + 3)) + 3 * n
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps <= max_steps
        if state.phase == Phase.SHOWDOWN:
            seat = state.pending_showdown[0]
            if state.can_muck(seat) and data.draw(st.booleans()):
                state.muck(seat)
            else:
                state.show(seat)
            continue
        assert state.phase == Phase.BETTING  # the deck deals everything else
        # Now and then someone leaves or is declared all-in, in turn or not.
        event = data.draw(st.sampled_from(("act",) * 8 + ("leave", "declare")))
        can = state.can_leave if event == "leave" else state.can_declare_all_in
        seats = [s for s in state.active if can(s)] if event != "act" else []
        if seats:
            seat = data.draw(st.sampled_from(seats))
            (state.leave if event == "leave" else state.declare_all_in)(seat)
        else:
            actor = state.actor
            assert actor is not None and actor in state.active and actor not in state.all_in
            legal = state.legal_actions()
            assert legal and state.can_check_or_call()
            state.act(data.draw(st.sampled_from(legal)))
        assert sum(state.stacks) + (0 if state.is_over else state.pot) == total
        assert all(s >= 0 for s in state.stacks)
    assert sum(state.payoffs) == 0
    assert sum(state.stacks) == total
    assert sum(state.won) == state.pot
    assert state.actor is None and state.legal_actions() == ()
    assert isinstance(state.operations[-1], HandEnded)


@settings(max_examples=examples(200), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12))
def test_irc_copy_replays_identically(seed: int, n: int) -> None:
    state, _ = _random_irc_hand(seed, n, IRC_1995)
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
