"""The tracker: its snapshot against the rules at every decision of random hands, the
hand record it produces, and the impossible events it refuses."""
from __future__ import annotations

import dataclasses
import random

import pytest

from agent.config import TableConfig
from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
)
from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import Action, Phase, State
from agent.game.context import GameContext
from agent.game.tracker import Tracker, TrackerError
from evaluator_pyx.cards import parse_cards

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy")
CONFIGS = (
    TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
    TableConfig(small_blind=1, big_blind=2, small_bet=2, big_bet=4),
    TableConfig(small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=3),
)


def started(n: int, config: TableConfig, stacks, button: int, hand_id: str = "1") -> HandStarted:
    return HandStarted(
        hand_id=hand_id, source=f"test:{hand_id}", players=NAMES[:n], stacks=tuple(stacks),
        button=button, small_blind=config.small_blind, big_blind=config.big_blind,
        small_bet=config.small_bet, big_bet=config.big_bet, max_bets=config.max_bets)


def random_stacks(rng: random.Random, n: int, config: TableConfig) -> list[int]:
    short = rng.choice((0.0, 0.3, 1.0))
    return [rng.randint(1, 8 * config.big_bet) if rng.random() < short
            else rng.randint(40, 100) * config.big_bet for _ in range(n)]


def play_random_hand(seed: int, n: int) -> dict[str, int]:
    """One random hand through the tracker, a reference State beside it; every snapshot
    is compared with the reference at every decision."""
    rng = random.Random(seed)
    config = rng.choice(CONFIGS)
    stacks = random_stacks(rng, n, config)
    button = rng.randrange(n)
    cards = rng.sample(range(52), 2 * n + 5)
    holes = [tuple(cards[2 * s:2 * s + 2]) for s in range(n)]
    board = cards[2 * n:]
    me = NAMES[rng.randrange(n)]
    tracker = Tracker(me=me)
    ref = State(config, stacks, button)
    tracker.apply(started(n, config, stacks, button, str(seed)))
    known = [rng.random() < 0.8 or NAMES[s] == me for s in range(n)]
    for s in range(n):
        tracker.apply(HoleCards(NAMES[s], holes[s] if known[s] else None))
        ref.deal_hole(s, holes[s])
    put = [0] * n  # chips put in, counted from the history independently of the rules
    for op in ref.operations[:2]:
        put[op.seat] += op.amount
    bet_this_round = [0] * n
    for op in ref.operations[:2]:
        bet_this_round[op.seat] += op.amount
    decisions = 0
    weights = {Action.FOLD: rng.choice((1, 3)), Action.CHECK_CALL: 4,
               Action.BET_RAISE: rng.choice((1, 3))}
    dealt = 0
    while not ref.is_over:
        if ref.phase == Phase.BOARD_DEALING:
            count = ref.pending_board_count
            tracker.apply(BoardDealt(tuple(board[dealt:dealt + count])))
            ref.deal_board(board[dealt:dealt + count])
            dealt += count
            bet_this_round = [0] * n
            continue
        if ref.phase == Phase.SHOWDOWN:
            # Unknown holders show through events; the reference shows them itself.
            for s in ref.pending_showdown:
                tracker.apply(CardsShown(NAMES[s], holes[s]))
                ref.show(s)
            continue
        actor = ref.actor
        ctx = tracker.snapshot()
        assert isinstance(ctx, GameContext)
        assert ctx.actor == NAMES[actor] and ctx.actor_seat == actor
        assert ctx.legal_actions == ref.legal_actions()
        assert ctx.to_call == ref.to_call(actor)
        # Independent of the rules' views: what the actor owes from the chips put in.
        owed = max(bet_this_round) - bet_this_round[actor]
        assert ctx.to_call == min(owed, ctx.stacks[actor])
        assert ctx.bets_to_call == -(-ctx.to_call // ctx.bet_size)
        assert ctx.pot == ref.pot == sum(put)
        assert ctx.put_in == tuple(put)
        assert ctx.stacks == ref.stacks
        assert ctx.round == int(ref.street)
        assert ctx.board == ref.board == tuple(board[:dealt])
        assert ctx.bet_size == (config.small_bet if ctx.round <= 1 else config.big_bet)
        assert ctx.bets_this_round == ref.bets_this_round
        assert ctx.raises_this_round == ref.raises_this_round
        assert ctx.active == tuple(NAMES[s] for s in ref.active)
        assert ctx.hole_cards == holes[NAMES.index(me)]
        assert ctx.positions[button] == n and ctx.positions[(button + 1) % n] == 1
        assert len(ctx.history) == ctx.round + 1
        action = rng.choices(ctx.legal_actions, [weights[a] for a in ctx.legal_actions])[0]
        # Half the time the source names the actor, half the time the tracker infers it.
        who = NAMES[actor] if rng.random() < 0.5 else None
        tracker.apply(PlayerActed(who, action))
        op = ref.act(action)
        amount = getattr(op, "amount", 0)
        put[actor] += amount
        bet_this_round[actor] += amount
        decisions += 1
    record = tracker.apply(HandEnded(won=tuple((NAMES[s], w) for s, w in enumerate(ref.won))))
    record.check()
    assert tuple(r.won - r.put_in for r in record.results) == ref.payoffs
    assert tuple(r.put_in for r in record.results) == tuple(put)
    assert record.board == ref.board
    assert len(record.actions) == decisions + 2
    assert [a.kind for a in record.actions[:2]] == ["sb", "bb"]
    assert {s.player for s in record.seats} == set(NAMES[:n])
    assert sorted(s.position for s in record.seats) == list(range(1, n + 1))
    for a in record.actions[2:]:
        assert a.kind in (FOLD, CHECK, CALL, BET, RAISE)
        assert (a.kind in (CALL, RAISE) or a.bets_to_call == 0) or a.kind == FOLD
    return {"decisions": decisions, "showdown": int(len(record.shown) > 1)}


HANDS = {2: 1500, 3: 1000, 6: 700, 10: 400}


@pytest.mark.parametrize("n", sorted(HANDS))
def test_snapshot_matches_the_rules_at_every_decision(n: int) -> None:
    decisions = showdowns = 0
    for seed in range(HANDS[n]):
        counts = play_random_hand(7919 * n + seed, n)
        decisions += counts["decisions"]
        showdowns += counts["showdown"]
    assert decisions > 3 * HANDS[n]
    assert showdowns > HANDS[n] // 20


def test_record_fields_for_a_known_hand() -> None:
    config = CONFIGS[0]
    t = Tracker(me="alice")
    t.apply(started(3, config, (1000, 1000, 1000), button=2))  # alice sb, bob bb, carol button
    for name, cards in (("alice", "AsKs"), ("bob", None), ("carol", None)):
        t.apply(HoleCards(name, None if cards is None else tuple(parse_cards(cards))))
    ctx = t.snapshot()
    assert ctx.actor == "carol" and ctx.to_call == 10 and ctx.bets_to_call == 1
    assert ctx.bets_this_round == 1 and ctx.raises_this_round == 0
    assert ctx.hole_cards == tuple(parse_cards("AsKs"))
    assert t.snapshot("bob").hole_cards is None
    t.apply(PlayerActed("carol", Action.BET_RAISE, to=20))
    t.apply(PlayerActed("alice", Action.CHECK_CALL, kind=CALL))
    t.apply(PlayerActed("bob", Action.FOLD))
    t.apply(BoardDealt(tuple(parse_cards("2c7d9h"))))
    ctx = t.snapshot()
    assert ctx.history == ((("alice", "sb"), ("bob", "bb"), ("carol", "r"), ("alice", "c"),
                            ("bob", "f")), ())
    assert ctx.actor == "alice" and ctx.pot == 50 and ctx.active == ("alice", "carol")
    t.apply(PlayerActed("alice", Action.CHECK_CALL, kind=CHECK))
    t.apply(PlayerActed("carol", Action.BET_RAISE, kind=BET))
    t.apply(PlayerActed("alice", Action.FOLD))
    assert t.waiting_for == "the result"
    record = t.apply(HandEnded(won=(("carol", 60),)))
    record.check()
    assert record.hand_id == "1" and record.source == "test:1"
    assert [(a.player, a.kind, a.amount, a.bets_to_call, a.raises, a.position,
             a.players_active) for a in record.actions] == [
        ("alice", "sb", 5, 0, 0, 1, 3),
        ("bob", "bb", 10, 0, 0, 2, 3),
        ("carol", "r", 20, 1, 1, 3, 3),
        ("alice", "c", 15, 2, 2, 1, 3),  # ceil(15 / 10)
        ("bob", "f", 0, 1, 2, 2, 3),
        ("alice", "k", 0, 0, 0, 1, 2),
        ("carol", "b", 10, 0, 0, 3, 2),
        ("alice", "f", 0, 1, 1, 1, 2),
    ]
    assert [(r.player, r.put_in, r.won) for r in record.results] == [
        ("alice", 20, 0), ("bob", 10, 0), ("carol", 30, 60)]
    assert record.board == tuple(parse_cards("2c7d9h"))
    assert t.waiting_for == "a new hand"


def test_showdown_with_unknown_cards_settles_from_shows_or_the_reported_result() -> None:
    config = CONFIGS[0]
    for ending in ("show", "muck", "award"):
        t = Tracker()
        t.apply(started(2, config, (1000, 1000), button=0))
        t.apply(HoleCards("alice", None))
        t.apply(HoleCards("bob", None))
        t.apply(PlayerActed("alice", Action.CHECK_CALL))
        t.apply(PlayerActed("bob", Action.CHECK_CALL))
        for street in ("2c7d9h", "Ts", "Jd"):
            t.apply(BoardDealt(tuple(parse_cards(street))))
            t.apply(PlayerActed("bob", Action.CHECK_CALL))
            t.apply(PlayerActed("alice", Action.CHECK_CALL))
        assert t.waiting_for == "the showdown"
        if ending == "award":
            record = t.apply(HandEnded(won=(("alice", 20),)))
            assert record.shown == ()
        else:
            t.apply(CardsShown("bob", tuple(parse_cards("AsAh"))))
            if ending == "muck":
                t.apply(CardsMucked("alice"))
            else:
                t.apply(CardsShown("alice", tuple(parse_cards("KsKh"))))
            record = t.apply(HandEnded(net=(("bob", 10), ("alice", -10))))
            assert record.shown[0].player == "bob"
        record.check()


def expect_error(tracker: Tracker, event, *words: str) -> str:
    with pytest.raises(TrackerError) as info:
        tracker.apply(event)
    message = str(info.value)
    for word in words:
        assert word in message, message
    return message


def fresh(n: int = 3) -> Tracker:
    t = Tracker()
    t.apply(started(n, CONFIGS[0], (1000,) * n, button=n - 1, hand_id="1234"))
    return t


def test_impossible_events_are_refused_with_clear_errors() -> None:
    expect_error(Tracker(), PlayerActed("alice", Action.CHECK_CALL), "before any HandStarted")
    t = fresh()
    message = expect_error(t, HoleCards("zoe", (0, 1)), "unknown player 'zoe'", "test:1234")
    assert "alice, bob, carol" in message
    t.apply(HoleCards("alice", tuple(parse_cards("AsKs"))))
    expect_error(t, HoleCards("alice", tuple(parse_cards("2c3c"))), "alice already has its cards")
    expect_error(t, HoleCards("bob", tuple(parse_cards("As2c"))), "As is already in play")
    expect_error(t, HoleCards("bob", (1, 2, 3)), "needs 2 cards")
    expect_error(t, HoleCards("bob", (51, 99)), "not a card")
    # Pre-flop with three seats: carol (button) acts first.
    expect_error(t, PlayerActed("alice", Action.CHECK_CALL), "action 1", "alice",
                 "carol's turn")
    expect_error(t, PlayerActed("carol", Action.CHECK_CALL, kind=CHECK),
                 "test:1234 action 1: carol cannot check: facing 10 to call")
    expect_error(t, PlayerActed("carol", Action.BET_RAISE, kind=BET), "carol cannot bet")
    expect_error(t, PlayerActed("carol", Action.CHECK_CALL, kind=RAISE), "does not match")
    expect_error(t, PlayerActed("carol", Action.BET_RAISE, to=40), "bets to 40", "20")
    expect_error(t, PlayerActed("carol", 7), "not an action")
    expect_error(t, BoardDealt(tuple(parse_cards("2c7d9h"))), "betting on the pre-flop")
    expect_error(t, HandEnded(), "ended early")
    expect_error(t, CardsShown("carol", (0, 1)), "cannot show cards now")
    # A refused event changes nothing: the hand goes on as if it never came.
    t.apply(PlayerActed("carol", Action.CHECK_CALL))
    t.apply(PlayerActed("alice", Action.CHECK_CALL, kind=CALL))
    expect_error(t, PlayerActed("carol", Action.CHECK_CALL), "bob's turn")
    t.apply(PlayerActed("bob", Action.CHECK_CALL, kind=CHECK))
    expect_error(t, BoardDealt(tuple(parse_cards("2c7d"))), "the flop needs 3 cards, got 2")
    expect_error(t, BoardDealt(tuple(parse_cards("2c7dAs"))), "As is already in play")
    t.apply(BoardDealt(tuple(parse_cards("2c7d9h"))))
    expect_error(t, PlayerActed("alice", Action.CHECK_CALL, kind=CALL),
                 "alice cannot call: there is no bet to call")
    expect_error(t, PlayerActed("alice", Action.FOLD), "alice cannot fold: nothing to call")
    expect_error(t, PlayerActed("alice", Action.BET_RAISE, kind=RAISE), "no bet to raise")
    t.apply(PlayerActed("alice", Action.BET_RAISE, kind=BET))
    t.apply(PlayerActed("bob", Action.FOLD))
    expect_error(t, PlayerActed("bob", Action.CHECK_CALL), "bob", "folded")
    t.apply(PlayerActed("carol", Action.FOLD))
    expect_error(t, PlayerActed(None, Action.CHECK_CALL), "nobody can act now")
    expect_error(t, HandEnded(won=(("alice", 30),)), "test:1234", "disagree",
                 "alice 30 (rules: 40)")
    expect_error(t, HandEnded(won=(("alice", 40), ("alice", 0))), "listed twice")
    expect_error(t, HandEnded(net=(("alice", 30), ("bob", -10), ("carol", -20))),
                 "alice 30 (rules: 20)", "carol -20 (rules: -10)")
    record = t.apply(HandEnded(net=(("alice", 20), ("bob", -10), ("carol", -10))))
    record.check()
    expect_error(t, PlayerActed("alice", Action.CHECK_CALL), "after the hand ended")


def test_bad_hand_starts_are_refused() -> None:
    t = Tracker()
    base = started(3, CONFIGS[0], (1000, 1000, 1000), button=0)
    for change, words in (
        ({"players": ("a", "a", "b")}, "seated twice"),
        ({"stacks": (1000, 1000)}, "need 3 stacks"),
        ({"stacks": (1000, 0, 1000)}, "positive"),
        ({"button": 3}, "button"),
        ({"players": ("a",), "stacks": (10,)}, "2-23 players"),
        ({"small_bet": 0}, "small_bet"),
        ({"hand_id": ""}, "hand id"),
        ({"small_blind": 20}, "exceeds"),
    ):
        fields = {**{f: getattr(base, f) for f in base.__slots__}, **change}
        with pytest.raises(TrackerError) as info:
            t.apply(HandStarted(**fields))
        assert words in str(info.value), (change, str(info.value))
    with pytest.raises(TrackerError, match="not an event"):
        t.apply("STATE:0:cc")  # type: ignore[arg-type]


def test_a_new_hand_abandons_an_unfinished_one() -> None:
    t = fresh()
    t.apply(PlayerActed(None, Action.CHECK_CALL))
    assert t.in_hand
    t.apply(started(2, CONFIGS[0], (1000, 1000), button=0, hand_id="next"))
    assert t.hands_abandoned == 1
    assert t.snapshot().hand_id == "next"


def test_late_show_by_a_winner_without_showdown() -> None:
    t = fresh(2)
    t.apply(PlayerActed(None, Action.FOLD))  # the button folds its small blind
    t.apply(CardsShown("bob", tuple(parse_cards("7c2d"))))
    t.apply(CardsShown("bob", tuple(parse_cards("2d7c"))))  # a repeat
    expect_error(t, CardsShown("bob", tuple(parse_cards("7c3d"))), "already showed 7c 2d")
    expect_error(t, CardsShown("alice", tuple(parse_cards("7c3d"))), "7c is already in play")
    record = t.apply(HandEnded())
    assert [(s.player, s.cards) for s in record.shown] == [("bob", tuple(parse_cards("7c2d")))]


def test_quits_and_declared_all_ins_under_the_irc_rules() -> None:
    from agent.game.events import PlayerAllIn, PlayerLeft
    from agent.game.rules import IRC_1995

    t = Tracker()
    t.apply(HandStarted(
        hand_id="797210868", source="hdb:1", players=("sagerbot", "johnr", "quick", "gunner"),
        stacks=(1740, 1070, 885, 785), button=3, small_blind=5, big_blind=10, small_bet=10,
        big_bet=20, max_bets=4, blinds=(10,), variant=IRC_1995))
    ctx = t.snapshot()
    # One blind of 10 by position 1; position 2 acts first.
    assert ctx.history == ((("sagerbot", "bb"),),) and ctx.actor == "johnr"
    t.apply(PlayerActed("johnr", Action.FOLD))
    t.apply(PlayerLeft("quick"))  # quits out of turn
    assert t.snapshot().active == ("sagerbot", "gunner")
    t.apply(PlayerActed("gunner", Action.CHECK_CALL, kind=CALL))
    t.apply(PlayerActed("sagerbot", Action.CHECK_CALL, kind=CHECK))
    t.apply(BoardDealt(tuple(parse_cards("Qc Ks 8s"))))
    t.apply(PlayerAllIn("gunner"))  # lost connection: all-in for what he put in
    with pytest.raises(TrackerError, match="gunner cannot be declared all-in: it already is"):
        t.apply(PlayerAllIn("gunner"))
    for street in ("Jh", "Tc"):
        t.apply(BoardDealt(tuple(parse_cards(street))))
    t.apply(CardsShown("sagerbot", tuple(parse_cards("Ah Jd"))))
    t.apply(CardsShown("gunner", tuple(parse_cards("9c 9d"))))
    record = t.apply(HandEnded(won=(("sagerbot", 20),)))
    record.check()
    assert [a.kind for a in record.actions] == ["bb", "f", "c", "k"]
    assert {r.player: (r.put_in, r.won) for r in record.results}["sagerbot"] == (10, 20)


def test_a_player_with_known_cards_may_muck_a_beaten_hand() -> None:
    t = Tracker(me="alice")
    t.apply(started(2, CONFIGS[0], (1000, 1000), button=0))
    t.apply(HoleCards("alice", tuple(parse_cards("4c3d"))))
    t.apply(HoleCards("bob", tuple(parse_cards("AsAh"))))
    t.apply(PlayerActed("alice", Action.CHECK_CALL))
    t.apply(PlayerActed("bob", Action.CHECK_CALL))
    for street in ("2c7d9h", "Ts", "Jd"):
        t.apply(BoardDealt(tuple(parse_cards(street))))
        t.apply(PlayerActed("bob", Action.CHECK_CALL))
        t.apply(PlayerActed("alice", Action.CHECK_CALL))
    t.apply(CardsShown("bob", tuple(parse_cards("AhAs"))))
    expect_error(t, CardsShown("alice", tuple(parse_cards("5c3d"))), "was dealt 4c 3d")
    t.apply(CardsMucked("alice"))
    record = t.apply(HandEnded())
    assert [s.player for s in record.shown] == ["bob"]
    assert {r.player: r.won for r in record.results} == {"alice": 0, "bob": 20}


def test_the_snapshot_fills_every_field_by_its_name() -> None:
    """The tracker builds GameContext positionally (the fast way): each field holds what
    its name says, in a state where the numbers all differ."""
    from agent.game.events import BoardDealt, HandStarted, HoleCards, PlayerActed
    from agent.game.rules import Action

    t = Tracker("b")
    t.apply(HandStarted(hand_id="h9", source="s", players=("a", "b", "c"), stacks=(1000, 900, 800), button=2,
                        small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4))
    for p, cards in zip("abc", ((0, 1), (2, 3), (4, 5))):
        t.apply(HoleCards(p, cards))
    for event in (PlayerActed("c", Action.BET_RAISE), PlayerActed("a", Action.CHECK_CALL),
                  PlayerActed("b", Action.CHECK_CALL), BoardDealt((10, 20, 30)),
                  PlayerActed("a", Action.BET_RAISE)):
        t.apply(event)
    ctx = t.snapshot()
    st = t.state
    assert ctx.hand_id == "h9" and ctx.players == ("a", "b", "c") and ctx.button == 2
    assert ctx.positions == (1, 2, 3)
    assert ctx.stacks == st.stacks == (970, 880, 780) and ctx.put_in == (30, 20, 20)
    assert ctx.active == ("a", "b", "c") and ctx.round == 1 and ctx.board == (10, 20, 30)
    assert ctx.pot == 70 and ctx.small_bet == 10 and ctx.big_bet == 20 and ctx.bet_size == 10
    assert ctx.max_bets == 4 and ctx.bets_this_round == 1 and ctx.raises_this_round == 0
    assert ctx.actor == "b" and ctx.actor_seat == 1 and ctx.to_call == 10 and ctx.bets_to_call == 1
    assert ctx.legal_actions == st.legal_actions()
    assert [k for _, k in ctx.history[1]] == ["b"] and len(ctx.actions) == 6
    assert ctx.viewer == "b" and ctx.hole_cards == (2, 3)


def test_a_context_by_position_is_the_same_table_numbered_from_the_button() -> None:
    """by_position renumbers the seats from the first after the button (as the ACPC
    protocol does): every per-seat field follows its player, the rest is unchanged, and a
    context numbered so already is returned as it is."""
    from agent.game.context import by_position
    from agent.game.events import HandStarted, HoleCards, PlayerActed
    from agent.game.rules import Action

    def table(players, stacks, button):
        t = Tracker("b")
        t.apply(HandStarted(hand_id="h", source="s", players=players, stacks=stacks, button=button,
                            small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4))
        for p in players:
            t.apply(HoleCards(p, {"a": (0, 1), "b": (2, 3), "c": (4, 5)}[p]))
        t.apply(PlayerActed(t.snapshot().actor, Action.FOLD))
        return t.snapshot()

    fixed = table(("a", "b", "c"), (1000, 900, 800), 0)  # a on the button: b, c, a by position
    moved = table(("b", "c", "a"), (900, 800, 1000), 2)  # the same table numbered by position
    assert by_position(moved) is moved
    again = by_position(fixed)
    assert again == dataclasses.replace(moved, hand_id=fixed.hand_id)
    assert again.players == ("b", "c", "a") and again.actor == fixed.actor and again.button == 2
