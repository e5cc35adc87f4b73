"""The betting-state cache (agent.game.betting) against the rules state it learns from:
over seeded random limit hands of 2-6 players (folds, raises to the cap, showdowns with
split and odd pots), every point of every betting string, the snapshot each seat is shown
at its turn, and each finished hand's payoffs equal what a tracker fed the same hand
gives. The cache is shared across hands, so many answers come from it, not from a replay."""
from __future__ import annotations

import numpy as np
import pytest

from agent.game.betting import ACT, BOARD, OVER, BettingCache
from agent.game.events import BoardDealt, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Phase
from agent.game.tracker import Tracker
from connectors.acpc.protocol import ACTION_CHAR, NO_STACK
from evaluator_pyx import evaluate_cards


def _hand(n: int, rng: np.random.Generator, hand: int) -> tuple[list, list, list, str]:
    """A random hand played through a tracker: its events, the snapshots of each turn
    (betting, actor, context, events so far), each board to come (betting, cards, events
    so far) and its final betting string."""
    names = tuple(f"p{k}" for k in range(n))
    cards = rng.permutation(52)[: 2 * n + 5].tolist()
    started = HandStarted(hand_id=f"h{hand}", source="t", players=names, stacks=(NO_STACK,) * n, button=n - 1,
                          small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4)
    tracker = Tracker()
    events = [started] + [HoleCards(names[k], (cards[2 * k], cards[2 * k + 1])) for k in range(n)]
    for e in events:
        tracker.apply(e)
    board, dealt, betting, turns, boards = cards[2 * n:], 0, "", [], []
    weights = rng.dirichlet([1.0, 2.0, 1.0])
    while True:
        st = tracker.state
        if st.phase == Phase.BETTING:
            turns.append((betting, st.actor, tracker.snapshot(names[st.actor]), list(events)))
            legal = st.legal_actions()
            action = legal[int(rng.choice(len(legal), p=_norm([weights[int(a)] for a in legal])))]
            event = PlayerActed(names[st.actor], action)
            betting += ACTION_CHAR[action]
        elif st.phase == Phase.BOARD_DEALING:
            count = st.pending_board_count
            boards.append((betting, count, list(events)))
            event = BoardDealt(tuple(board[dealt:dealt + count]))
            dealt += count
            betting += "/"
        else:
            break
        tracker.apply(event)
        events.append(event)
    return events, turns, boards, betting


def _norm(w: list[float]) -> list[float]:
    total = sum(w)
    return [x / total for x in w]


@pytest.mark.parametrize("n, seed", [(2, 1), (3, 2), (4, 3), pytest.param(6, 4, marks=pytest.mark.slow)])
def test_the_cache_answers_as_the_rules_state(n, seed) -> None:
    rng = np.random.default_rng(seed)
    cache = BettingCache()
    names = tuple(f"p{k}" for k in range(n))
    asked = 0
    for hand in range(300):
        events, turns, boards, betting = _hand(n, rng, hand)
        asked += 4 * len(turns) + 1 + len(boards)
        for prefix, actor, ctx, before in turns:
            point = cache.point(prefix, lambda: before)
            assert point.kind == ACT and point.actor == actor and point.legal == ctx.legal_actions
            assert point.put_in == ctx.put_in
            template = cache.turn(prefix, actor, names, lambda: before)
            assert template.build(ctx.hand_id, ctx.board, ctx.hole_cards) == ctx
            assert cache.context(names, prefix, actor, ctx.hand_id, ctx.board, ctx.hole_cards, lambda: before) == ctx
            other = (actor + 1) % n
            assert cache.turn(prefix, other, names, lambda: before) is None
        end = cache.point(betting, lambda: events)
        assert end.kind == OVER
        tracker = Tracker()
        for e in events:
            tracker.apply(e)
        record = tracker.apply(HandEnded())
        holes = {e.player: e.cards for e in events if type(e) is HoleCards}
        board = tuple(c for e in events if type(e) is BoardDealt for c in e.cards)
        values = [evaluate_cards(holes[names[q]] + board) if len(end.live) > 1 and q in end.live else 0
                  for q in range(n)]
        won = end.won(values)
        assert {names[q]: won[q] for q in range(n)} == {r.player: r.won for r in record.results}
        # Before each board the cache says so, and how many cards come.
        for prefix, count, before in boards:
            point = cache.point(prefix, lambda: before)
            assert point.kind == BOARD and point.cards == count
    assert cache.learnt < asked  # answers came from the cache too, not only from replays
