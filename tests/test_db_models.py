"""The decay arithmetic and the in-memory model store."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.bench.synthetic import synthetic_hands
from agent.game.records import ActionRecord, HandRecord, PlayerResult, RecordError, SeatRecord
from agent.models.frequencies import ContextCounts, Decay, PlayerModel
from agent.models.opponent_model import DEFAULT_TRIPLES, predict_triple
from agent.models.store import MemoryModelStore, ModelStore
from db import Database

from helpers.tiers import examples


def _hand(hand_id: str, players: list[str], acts: list[tuple[str, str, int, int]]) -> HandRecord:
    """A pre-flop hand: blinds by the first two players, then (player, kind, amount,
    bets_to_call) decisions; the last player still in takes the pot."""
    position = {p: i + 1 for i, p in enumerate(players)}
    actions = [
        ActionRecord(0, players[0], "sb", 5, 0, 0, 1, len(players)),
        ActionRecord(0, players[1], "bb", 10, 0, 0, 2, len(players)),
    ]
    put_in = {p: 0 for p in players}
    put_in[players[0]] = 5
    put_in[players[1]] = 10
    active = list(players)
    for who, kind, amount, btc in acts:
        actions.append(ActionRecord(0, who, kind, amount, btc, 1, position[who], len(active)))
        put_in[who] += amount
        if kind == "f":
            active.remove(who)
    winner = active[0]
    pot = sum(put_in.values())
    results = tuple(PlayerResult(p, put_in[p], pot if p == winner else 0) for p in players)
    return HandRecord(
        hand_id, "test", None, 5, 10, 10, 20, 4,
        tuple(SeatRecord(p, 1000, position[p]) for p in players), (), tuple(actions), (), results,
    )


def _folds_around(hand_id: str, players: list[str]) -> HandRecord:
    """Everyone after the blinds folds; the big blind wins. Only blinds and folds."""
    return _hand(hand_id, players, [(p, "f", 0, 1) for p in players[2:] + players[:1]])


def test_count_halves_after_exactly_one_half_life_of_the_players_hands(tmp_path) -> None:
    half_life = 10
    assert Decay(half_life).weight(half_life) == pytest.approx(0.5, abs=1e-15)
    stores = [MemoryModelStore(half_life), Database(tmp_path / "h.sqlite", half_life=half_life)]
    for store in stores:
        # Hand 1: 'c' folds facing one bet: one observation in context 1 (pre-flop, 1 bet).
        store.write_hand(_hand("h0", ["a", "b", "c"], [("c", "f", 0, 1), ("a", "f", 0, 1)]), "net")
        start = store.get("c", "net")
        assert start.decayed[1] == (1.0, 0.0, 0.0)
        # Hands that do not deal 'c' in do not age c's observations.
        for i in range(25):
            store.write_hand(_folds_around(f"x{i}", ["a", "b", "d"]), "net")
        assert store.get("c", "net").decayed[1] == (1.0, 0.0, 0.0)
        # c is dealt into 10 more hands in which c posts the big blind and never decides.
        for i in range(half_life):
            store.write_hand(_folds_around(f"y{i}", ["b", "c", "a"]), "net")
        model = store.get("c", "net")
        assert model.hands == 1 + half_life
        assert model.decayed[1][0] == pytest.approx(0.5, abs=1e-12)
        assert model.lifetime[1] == (1, 0, 0)
        # And to a quarter after another half-life.
        for i in range(half_life):
            store.write_hand(_folds_around(f"z{i}", ["b", "c", "a"]), "net")
        assert store.get("c", "net").decayed[1][0] == pytest.approx(0.25, abs=1e-12)
    stores[1].close()


def test_blinds_are_not_observations() -> None:
    store = MemoryModelStore(100)
    store.write_hand(_folds_around("h", ["a", "b", "c", "d"]), "net")
    b = store.get("b", "net")  # posted the big blind and never acted
    assert b.hands == 1 and b.lifetime_totals == (0,) * 12
    a = store.get("a", "net")  # small blind, then folded facing one bet
    assert a.lifetime[1] == (1, 0, 0) and sum(a.lifetime_totals) == 1


@settings(max_examples=examples(200), deadline=None)
@given(
    half_life=st.floats(min_value=0.5, max_value=5000),
    events=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 2), st.integers(0, 3)), max_size=60),
)
def test_lazy_counts_equal_the_closed_form(half_life: float, events: list[tuple[int, int, int]]) -> None:
    """Each event: the player is dealt `gap` more hands, then makes `n` observations of
    one class. Lazily scaled counts equal sum(0.5 ** ((now - hand_i) / half_life))."""
    decay = Decay(half_life)
    cc = ContextCounts()
    now = 0
    seen: list[tuple[int, int]] = []
    for gap, cls, n in events:
        now += gap
        for _ in range(n):
            cc.observe(cls, now, decay.factor)
            seen.append((now, cls))
    later = now + 7
    got = cc.decayed_at(later, decay.factor)
    for cls in range(3):
        expected = math.fsum(0.5 ** ((later - n_i) / half_life) for n_i, c in seen if c == cls)
        assert got[cls] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert cc.lifetime[cls] == sum(1 for _, c in seen if c == cls)


def test_decay_rejects_nonsense() -> None:
    for bad in (0, -1, float("nan"), float("inf"), "10", True):
        with pytest.raises(ValueError):
            Decay(bad)  # type: ignore[arg-type]  # a wrong call on purpose: the error is the test


def test_triple_blends_defaults_until_enough_observations() -> None:
    empty = PlayerModel.empty("x", "net", 100)
    assert all(predict_triple(empty, c) == DEFAULT_TRIPLES[c] for c in range(12))
    assert empty.frequencies(4) is None
    decayed = [(0.0, 0.0, 0.0)] * 12
    decayed[4] = (0.0, 10.0, 0.0)  # half of the 20 observations the blend waits for
    decayed[7] = (10.0, 30.0, 0.0)
    m = PlayerModel("x", "net", 50, 100.0, tuple(decayed), ((0, 0, 0),) * 12)
    d = DEFAULT_TRIPLES[4]
    assert predict_triple(m, 4, 20) == pytest.approx((0.5 * d[0], 0.5 * d[1] + 0.5, 0.5 * d[2]))
    assert predict_triple(m, 7, 20) == pytest.approx((0.25, 0.75, 0.0))
    assert sum(predict_triple(m, 4)) == pytest.approx(1.0)


def test_memory_store_matches_the_database(tmp_path) -> None:
    hands = list(synthetic_hands(600, seed=11, min_players=2, max_players=10, pool=25))
    memory = MemoryModelStore(37.0)
    for h in hands:
        memory.write_hand(h, "irc")
    assert memory.write_hand(hands[5], "irc").duplicates == 1
    with Database(tmp_path / "m.sqlite", half_life=37.0) as database:
        database.write_hands(hands, "irc", batch_hands=64)
        assert isinstance(database, ModelStore) and isinstance(memory, ModelStore)
        for network, nick in memory.players():
            assert memory.get(nick, network) == database.get(nick, network)


def test_memory_store_rejects_what_the_database_rejects() -> None:
    store = MemoryModelStore()
    good = next(synthetic_hands(1, seed=3))
    bad = replace(good, results=good.results[:-1])
    with pytest.raises(RecordError):
        store.write_hand(bad, "irc")
    report = store.write_hands([bad, good, good], "irc")
    assert (report.stored, report.duplicates, len(report.rejected)) == (1, 1, 1)
    assert store.get("nobody", "irc").hands == 0
