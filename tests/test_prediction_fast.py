"""The written-out hot paths of the opponent models against slow references built in this
file from the public pieces: Predictor.advance (counts on C fields, compiled with
frequencies.pxd and prediction.pxd) against blend_triple / backoff_triple /
floored_loglik followed by PlayerState.observe, decision by decision; the fine
contexts of ContextWalker (players numbered, flags in lists, context.pxd) against a
walker written with sets of names; and the count object's views (decayed, lifetime,
row) against hand-worked numbers."""
from __future__ import annotations

import math

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.game.context import FINE_PER_COARSE, ContextWalker, board_texture, order_key
from agent.game.prepared import prepare_hand
from agent.models.frequencies import ContextCounts, Decay, PlayerState
from agent.models.prediction import Predictor, Strengths, backoff_triple, blend_triple, floored_loglik


def test_count_views_and_row() -> None:
    decay = Decay(10.0)
    cc = ContextCounts([1.0, 2.0, 3.0], 5, [1, 2, 3])
    cc.observe(2, 15, decay.factor)  # ten hands later: everything halves, then one raise
    assert cc.decayed == pytest.approx([0.5, 1.0, 2.5])
    assert cc.lifetime == [1, 2, 4]
    assert cc.row() == pytest.approx((0.5, 1.0, 2.5, 15, 1, 2, 4))
    assert cc.decayed_at(25, decay.factor) == pytest.approx((0.25, 0.5, 1.25))
    # The views are copies: changing them leaves the counts alone.
    cc.decayed[0] = 99.0
    assert cc.f == pytest.approx(0.5)
    twin = cc.copy()
    twin.add(0)
    assert (cc.nf, twin.nf) == (1, 2)
    state = PlayerState(3)
    state.scores = [-1.5, -2.5]
    assert state.scores == [-1.5, -2.5] and (state.score_twelve, state.score_backoff) == (-1.5, -2.5)


def _reference_advance(predictor: Predictor, states: list[PlayerState], population: PlayerState,
                       observations: list[tuple[int, int, int, int]]) -> None:
    """One hand, the slow way: predictions through the public functions, then observe."""
    for s in states:
        s.hands += 1
    population.hands += 1
    f, pf = predictor.factor, predictor.pop_factor
    zero = (0.0, 0.0, 0.0)

    def read(cc: ContextCounts | None, now: int, factor: float) -> tuple[float, float, float]:
        return zero if cc is None else cc.decayed_at(now, factor)

    for seat, context, action, fine in observations:
        s = states[seat]
        coarse = read(s.contexts[context], s.hands, f)
        a = blend_triple(coarse, context, predictor.blend)
        b = backoff_triple(read(s.fine.get(fine), s.hands, f), coarse,
                           read(population.fine.get(fine), population.hands, pf),
                           read(population.contexts[context], population.hands, pf), context, predictor.strengths)
        s.add_scores([floored_loglik(a, action, predictor.epsilon), floored_loglik(b, action, predictor.epsilon)], f)
        s.observe(context, action, f, fine)
        population.observe(context, action, pf, fine)


def test_advance_equals_the_public_functions_step_by_step() -> None:
    strengths = Strengths(population=3.0, coarse=7.0, fine=11.0, population_half_life=400.0)
    fast, slow = Predictor(Decay(40.0), strengths), Predictor(Decay(40.0), strengths)
    fast_states: dict[str, PlayerState] = {}
    slow_states: dict[str, PlayerState] = {}
    fast_pop, slow_pop = PlayerState(), PlayerState()
    decisions = 0
    for record in synthetic_hands(400, seed=77, min_players=2, max_players=9, pool=25):
        prepared = prepare_hand(record, "net")
        fast.advance([fast_states.setdefault(n, PlayerState()) for n in prepared.players], fast_pop,
                     prepared.observations)
        _reference_advance(slow, [slow_states.setdefault(n, PlayerState()) for n in prepared.players], slow_pop,
                           list(prepared.observations))
        decisions += len(prepared.observations)
    assert decisions > 3000
    for nick, a in fast_states.items():
        b = slow_states[nick]
        assert a.hands == b.hands
        assert a.scores_at(fast.factor) == pytest.approx(b.scores_at(slow.factor), rel=1e-9, abs=1e-9)
        for ctx in range(12):
            ca, cb = a.contexts[ctx], b.contexts[ctx]
            assert (ca is None) == (cb is None)
            if ca is not None:
                assert ca.lifetime == cb.lifetime
                assert ca.decayed_at(a.hands, fast.factor) == pytest.approx(cb.decayed_at(b.hands, slow.factor))
        assert set(a.fine) == set(b.fine)
        for key, ca in a.fine.items():
            assert ca.lifetime == b.fine[key].lifetime
    assert set(fast_pop.fine) == set(slow_pop.fine) and fast_pop.hands == slow_pop.hands
    for key, ca in fast_pop.fine.items():
        assert ca.decayed_at(fast_pop.hands, fast.pop_factor) == pytest.approx(
            slow_pop.fine[key].decayed_at(slow_pop.hands, slow.pop_factor))
    # The predictions in play read the same counts.
    nick = max(fast_states, key=lambda n: fast_states[n].hands)
    for ctx in range(12):
        fine = ctx * FINE_PER_COARSE + 5
        got = fast.all(fast_states[nick], fast_pop, ctx, fine)
        s = slow_states[nick]
        coarse = s.contexts[ctx].decayed_at(s.hands, slow.factor) if s.contexts[ctx] else (0.0, 0.0, 0.0)
        assert got[0] == pytest.approx(blend_triple(coarse, ctx, slow.blend))
        assert math.isclose(sum(got[1]), 1.0, rel_tol=1e-9) and math.isclose(sum(got[2]), 1.0, rel_tol=1e-9)


class _SetWalker:
    """The fine context worked out with sets and dicts of names, as the definition reads."""

    def __init__(self, positions: dict[str, int], board: list[int]) -> None:
        n = len(positions)
        self.keys = ({p: order_key(x, n, 0) for p, x in positions.items()},
                     {p: order_key(x, n, 1) for p, x in positions.items()})
        self.board, self.round = board, 0
        self.folded: set[str] = set()
        self.acted: set[str] = set()
        self.blinds: set[str] = set()
        self.voluntary: set[str] = set()
        self.last: dict[str, int] = {}
        self.raiser: str | None = None
        self.aggressor: str | None = None

    def enter(self, rnd: int) -> None:
        if rnd != self.round:
            self.aggressor, self.raiser, self.acted, self.round = self.raiser, None, set(), rnd

    def context(self, rnd: int, player: str, btc: int, active: int, raises: int) -> int:
        self.enter(rnd)
        keys = self.keys[0 if rnd == 0 else 1]
        others = [p for p in keys if p != player and p not in self.folded]
        before = sum(1 for p in others if keys[p] < keys[player])
        relpos = 0 if before == 0 else (2 if before == len(others) else 1)
        aggressor = player in self.blinds if rnd == 0 else player == self.aggressor
        texture = board_texture(self.board[:(0, 3, 4, 5)[rnd]]) if rnd else 0
        digits = (min(max(active, 2), 6) - 2, relpos, int(aggressor), self.last.get(player, 0),
                  int(player in self.acted), min(raises, 2), int(player in self.voluntary), texture)
        index = 0
        for d, radix in zip(digits, (5, 3, 2, 3, 2, 3, 2, 3)):
            index = index * radix + d
        return (3 * rnd + min(btc, 2)) * FINE_PER_COARSE + index

    def record(self, rnd: int, player: str, kind: str) -> None:
        self.enter(rnd)
        if kind in ("sb", "bb"):
            self.blinds.add(player)
            return
        self.acted.add(player)
        if kind == "f":
            self.folded.add(player)
        elif kind in ("b", "r"):
            self.raiser, self.last[player] = player, 2
            self.voluntary.add(player)
        else:
            self.last[player] = 1
            if kind == "c":
                self.voluntary.add(player)


def test_walker_equals_a_walker_of_sets() -> None:
    checked = 0
    for record in synthetic_hands(300, seed=5, min_players=2, max_players=10):
        positions = {s.player: s.position for s in record.seats}
        fast, slow = ContextWalker(positions, record.board), _SetWalker(positions, list(record.board))
        for a in record.actions:
            assert fast.context(a.round, a.player, a.bets_to_call, a.players_active, a.raises) == \
                slow.context(a.round, a.player, a.bets_to_call, a.players_active, a.raises)
            fast.record(a.round, a.player, a.kind)
            slow.record(a.round, a.player, a.kind)
            checked += 1
    assert checked > 3000
