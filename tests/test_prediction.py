"""The richer opponent models: fine contexts (agent.game.context) checked on hand-built
hands, the back-off and meta predictors (agent.models.prediction) against hand-worked
Dirichlet arithmetic, the database's fine, population and score tables equal to a
recomputation (also after migrating a file made before them), and the shadow scorer
starting from the models stored in a database."""
from __future__ import annotations

import math
import sqlite3

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.game.context import (
    FINE_PER_COARSE,
    ContextWalker,
    board_texture,
    fine_context,
    fine_context_name,
    fine_contexts,
)
from agent.game.records import ActionRecord, HandRecord, PlayerResult, SeatRecord
from agent.models.frequencies import ContextCounts, Decay, PlayerState
from agent.models.opponent_model import predict_model
from agent.models.prediction import DEFAULT_TRIPLES, Predictor, Strengths, backoff_triple, floored_loglik
from agent.models.store import MemoryModelStore
from agent.play.offline.shadow import ShadowScorer
from db import Database
from evaluator_pyx.cards import parse_cards

from worked_hand import worked_hand


def test_board_texture() -> None:
    assert board_texture(parse_cards("Kc 7d 2h")) == 0  # dry
    assert board_texture(parse_cards("Kc Kd 2h")) == 1  # paired
    assert board_texture(parse_cards("Kc 7c 2c")) == 2  # three of a suit
    assert board_texture(parse_cards("9c 8d 5h")) == 2  # three ranks within five
    assert board_texture(parse_cards("Ac 2d 3h")) == 2  # the ace plays low
    assert board_texture(parse_cards("Ac Kd 7h 2s")) == 0
    assert board_texture(parse_cards("Ac Kd 7h 7s 2c")) == 1


def test_fine_contexts_of_a_hand_builtworked_hand() -> None:
    actions, pos, board = worked_hand()
    fines = fine_contexts(actions, pos, board)
    # Coarse contexts are kept as the top level of every fine one.
    assert [f // FINE_PER_COARSE for f in fines] == [a.context for a in actions]
    # fine_context(round, bets to call, active, relpos, aggressor, last, acted, raises, voluntary, texture)
    expect = {
        2: fine_context(0, 1, 4, 0, False, 0, False, 1, False, 0),  # c first pre-flop, no blind
        3: fine_context(0, 1, 4, 1, False, 0, False, 1, False, 0),  # d: a and b still to act
        4: fine_context(0, 2, 4, 1, True, 0, False, 2, False, 0),  # a: small blind, b after
        5: fine_context(0, 1, 3, 2, True, 0, False, 2, False, 0),  # b: last, big blind
        6: fine_context(0, 1, 3, 0, False, 1, True, 2, True, 0),  # c again: first of c, d, b
        7: fine_context(1, 0, 3, 0, False, 1, False, 0, True, 0),  # flop, b first; d was the aggressor
        8: fine_context(1, 0, 3, 1, False, 1, False, 0, True, 0),  # c middle
        9: fine_context(1, 1, 3, 2, True, 2, False, 1, True, 0),  # d: pre-flop raiser, last
        10: fine_context(1, 1, 3, 0, False, 1, True, 1, True, 0),  # b faces c's bet, acted
        11: fine_context(2, 0, 2, 0, True, 2, False, 0, True, 0),  # turn: c bet the flop last
        12: fine_context(2, 0, 2, 2, False, 1, False, 0, True, 0),  # d last to act
        13: fine_context(2, 1, 2, 0, True, 1, True, 1, True, 0),  # c faces d's bet
    }
    for i, fine in expect.items():
        assert fines[i] == fine, (i, fine_context_name(fines[i]), fine_context_name(fine))
    assert "turn, 1 bet / 2 players, first, aggressor" in fine_context_name(fines[13])


def test_a_turn_board_with_a_pair_changes_the_texture() -> None:
    actions, pos, _ = worked_hand()
    fines = fine_contexts(actions, pos, parse_cards("Kc 7d 2h 7s"))
    texture = [f % 3 for f in fines]
    assert texture[7:11] == [0] * 4 and texture[11:] == [1] * 3


def test_backoff_with_nothing_seen_is_the_default_triple() -> None:
    for ctx in range(12):
        got = backoff_triple((0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), ctx)
        assert got == pytest.approx(DEFAULT_TRIPLES[ctx], abs=1e-3)
        assert sum(got) == pytest.approx(1.0)


def test_backoff_is_the_dirichlet_chain_worked_byworked_hand() -> None:
    s = Strengths(population=2.0, coarse=5.0, fine=3.0)
    pop_coarse = (600.0, 300.0, 100.0)
    pop_fine = (10.0, 6.0, 4.0)
    player_coarse = (2.0, 5.0, 3.0)
    player_fine = (0.0, 2.0, 1.0)
    ctx = 4
    # By hand: population coarse with the default triple as one pseudo-count.
    d = DEFAULT_TRIPLES[ctx]
    pc = [(pop_coarse[i] + d[i]) / 1001.0 + 1e-4 for i in range(3)]
    pf = [(pop_fine[i] + 2.0 * pc[i]) / 22.0 for i in range(3)]
    tilt = [(player_coarse[i] + 5.0 * pc[i]) / 15.0 / pc[i] for i in range(3)]
    prior = [pf[i] * tilt[i] for i in range(3)]
    prior = [p / sum(prior) for p in prior]
    expect = [(player_fine[i] + 3.0 * prior[i]) / 6.0 for i in range(3)]
    got = backoff_triple(player_fine, player_coarse, pop_fine, pop_coarse, ctx, s)
    assert got == pytest.approx(tuple(expect), rel=1e-12)
    # Much data in the fine context: the player's own frequencies win.
    got = backoff_triple((900.0, 50.0, 50.0), player_coarse, pop_fine, pop_coarse, ctx, s)
    assert got[0] == pytest.approx(0.9, abs=0.01)
    # A player who folds far more than the population in the coarse context is
    # predicted to fold more than the population in a fine context it never met.
    folder = backoff_triple((0, 0, 0), (90.0, 5.0, 5.0), pop_fine, pop_coarse, ctx, s)
    crowd = backoff_triple((0, 0, 0), (0, 0, 0), pop_fine, pop_coarse, ctx, s)
    assert folder[0] > crowd[0] + 0.2


def test_meta_weights_follow_the_running_scores() -> None:
    predictor = Predictor(Decay(100.0))
    state = PlayerState(10)
    state.scores, state.scores_ref = [-50.0, -40.0], 10
    w = predictor.weights(state)
    assert w[1] == pytest.approx(1 / (1 + math.exp(-10.0))) and sum(w) == pytest.approx(1.0)
    state.scores = [-40.0, -40.0]
    assert predictor.weights(state) == pytest.approx((0.5, 0.5))
    # Scores decay with the player's hands like the counts: 100 hands halve them.
    state.hands = 110
    assert state.scores_at(predictor.factor) == pytest.approx([-20.0, -20.0])


def test_advance_scores_each_decision_before_learning_it() -> None:
    predictor = Predictor(Decay(1e9))
    a, pop = PlayerState(), PlayerState()
    predictor.advance([a], pop, [(0, 1, 0, 1 * FINE_PER_COARSE + 7)])
    # First decision: twelve predicts the default of context 1, back-off nearly so.
    assert a.scores[0] == pytest.approx(floored_loglik(DEFAULT_TRIPLES[1], 0))
    assert a.contexts[1].lifetime == [1, 0, 0] and a.fine[FINE_PER_COARSE + 7].lifetime == [1, 0, 0]
    assert pop.contexts[1].lifetime == [1, 0, 0] and pop.hands == 1 and a.hands == 1


def test_database_models_equal_a_recomputation(tmp_path) -> None:
    hands = list(synthetic_hands(500, seed=31, min_players=2, max_players=9))
    path = tmp_path / "r.sqlite"
    with Database(path, half_life=60.0, strengths=Strengths(population_half_life=300.0)) as database:
        database.write_hands(hands[:200], "net-a", batch_hands=37)
        for h in hands[200:260]:
            database.write_hand(h, "net-b")
        database.write_hands(hands[260:], "net-a", batch_hands=500)
        assert database.compare_models() == []
        stored, pops = database.stored()
        assert set(pops) == {"net-a", "net-b"} and pops["net-a"].hands == 440 and pops["net-b"].hands == 60
        assert any(s.fine for s in stored.values())
        # Recompute rebuilds the same rows.
        before = {t: sorted(sqlite3.connect(path).execute(f"SELECT * FROM {t}").fetchall())
                  for t in ("fine_models", "predictor_scores", "populations", "population_models")}
        database.recompute()
        after = {t: sorted(sqlite3.connect(path).execute(f"SELECT * FROM {t}").fetchall()) for t in before}
        for t in before:
            assert len(before[t]) == len(after[t]) > 0
            for x, y in zip(before[t], after[t]):
                assert [v for v in x if isinstance(v, str)] == [v for v in y if isinstance(v, str)]
                assert [v for v in x if not isinstance(v, str)] == pytest.approx(
                    [v for v in y if not isinstance(v, str)], rel=1e-9, abs=1e-9)
    # A fresh in-memory store fed the same hands gives the same predictions.
    memory = MemoryModelStore(60.0, Strengths(population_half_life=300.0))
    for h in hands[:200] + hands[260:]:
        memory.write_hand(h, "net-a")
    with Database(path, create=False) as database:
        for seat in hands[-1].seats:
            ours, theirs = memory.get(seat.player, "net-a"), database.get(seat.player, "net-a")
            for ctx, fine in ((4, 4 * FINE_PER_COARSE + 5), (0, 17), (9, 9 * FINE_PER_COARSE + 100)):
                for which in ("twelve", "backoff", "meta"):
                    assert predict_model(ours, ctx, fine, memory.predictor, which) == pytest.approx(
                        predict_model(theirs, ctx, fine, database.predictor, which), rel=1e-9)


def test_a_file_from_before_the_fine_contexts_is_migrated_and_rebuilt(tmp_path) -> None:
    from sqlite_utils import Database as SUDatabase

    from db import schema

    hands = list(synthetic_hands(150, seed=4))
    path = tmp_path / "old.sqlite"
    with Database(path, half_life=80.0) as database:
        database.write_hands(hands, "irc")
        fines = [r[0] for r in database.db.conn.execute("SELECT fine_context FROM actions ORDER BY hand, ord")]
        expected, _ = database.stored()
    # Make it a file of m001 only: no fine tables, no fine column, no rebuilt models.
    conn = sqlite3.connect(path)
    for t in ("fine_models", "predictor_scores", "populations", "population_models"):
        conn.execute(f"DROP TABLE {t}")
    conn.execute("ALTER TABLE actions DROP COLUMN fine_context")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm003_fine_contexts'")
    conn.execute("DELETE FROM meta WHERE key = 'fine_models_built'")
    conn.commit()
    conn.close()
    assert schema.pending(SUDatabase(path)) == ["m003_fine_contexts"]
    with Database(path) as database:
        again = [r[0] for r in database.db.conn.execute("SELECT fine_context FROM actions ORDER BY hand, ord")]
        assert again == fines
        assert database.compare_models() == []
        stored, _ = database.stored()
        for pid, state in expected.items():
            assert stored[pid].fine.keys() == state.fine.keys()
            assert stored[pid].scores == pytest.approx(state.scores)


def test_the_scorer_starts_from_the_stored_models(tmp_path) -> None:
    hands = list(synthetic_hands(400, seed=12, min_players=3, max_players=8))
    # Scored from a database that learned the first 250 hands...
    with Database(tmp_path / "s.sqlite", half_life=100.0) as database:
        database.write_hands(hands[:250], "irc")
        from_db = ShadowScorer(half_life=100.0, seed=database.network_states, known=database.has_hand)
        for h in hands:  # the first 250 are known: neither scored nor learned again
            from_db.observe(h, "irc")
    # ... equals scored by a scorer that learned the same hands itself.
    alone = ShadowScorer(half_life=100.0)
    for h in hands[:250]:
        alone.store.write_hand(h, "irc")
    for h in hands[250:]:
        alone.observe(h, "irc")
    a, b = from_db.report(), alone.report()
    assert a["hands_already_stored"] == 250 and a["hands"] == b["hands"] == 150
    for name in ("meta", "backoff", "twelve", "baseline"):
        assert a["overall"][name]["log_likelihood"] == pytest.approx(b["overall"][name]["log_likelihood"], rel=1e-9)
        assert a["overall"][name]["accuracy"] == pytest.approx(b["overall"][name]["accuracy"], rel=1e-9)


def test_walker_rejects_nothing_of_an_unusualworked_hand() -> None:
    # Heads-up: the button posts the small blind and acts first pre-flop, last after.
    pos = {"btn": 2, "bb": 1}
    A = ActionRecord
    actions = [A(0, "btn", "sb", 5, 0, 0, 2, 2), A(0, "bb", "bb", 10, 0, 1, 1, 2),
               A(0, "btn", "c", 5, 1, 1, 2, 2), A(0, "bb", "k", 0, 0, 1, 1, 2),
               A(1, "bb", "k", 0, 0, 0, 1, 2), A(1, "btn", "k", 0, 0, 0, 2, 2)]
    fines = fine_contexts(actions, pos, parse_cards("2c 2d 2h"))
    relpos = [(f % FINE_PER_COARSE) // (FINE_PER_COARSE // 15) % 3 for f in fines]
    assert relpos[2] == 0 and relpos[3] == 2 and relpos[4] == 0 and relpos[5] == 2
    record = HandRecord("hu", "t", None, 5, 10, 10, 20, 4, (SeatRecord("btn", 100, 2), SeatRecord("bb", 100, 1)),
                        parse_cards("2c 2d 2h"), tuple(actions), (),
                        (PlayerResult("btn", 10, 20), PlayerResult("bb", 10, 0)))
    store = MemoryModelStore()
    assert store.write_hand(record, "t").stored == 1
    assert store.state("btn", "t").fine and isinstance(next(iter(store.state("btn", "t").fine.values())), ContextCounts)
    walker = ContextWalker(pos, ())
    walker.record(0, "btn", "sb")
    walker.record(0, "bb", "bb")
    assert walker.context(0, "btn", 1, 2, 1) == fines[2]
    assert ContextWalker(pos, ()).context(0, "btn", 1, 2, 1) != fines[2]  # the blind matters


def test_the_engine_is_told_which_predictor_to_read() -> None:
    import numpy as np

    from agent.config import ConfigError, ModelConfig
    from agent.players import SpecError, create_player

    assert create_player("poki", np.random.default_rng(0)).model_settings.predictor == "meta"
    twelve = create_player("poki(predictor=twelve)", np.random.default_rng(0))
    assert twelve.model_settings.predictor == "twelve"
    with pytest.raises(SpecError):
        create_player("poki(predictor=neural)", np.random.default_rng(0))
    with pytest.raises(ConfigError, match="predictor"):
        ModelConfig(predictor="neural")


@pytest.mark.slow
def test_replay_learns_before_a_cut_and_scores_after_it(tmp_path) -> None:
    """The month's hands split at a date: the learning run stores only hands before it
    (counted against the raw hdb timestamps), the scoring run scores only the rest,
    starting from the stored models."""
    import argparse
    from pathlib import Path

    from agent.cli.replay import _date, _strengths
    from agent.play.offline.replay import ReplayOptions, replay, shared_irc_logs

    assert _date("1995-04-20") == 798336000.0 and _date("1995-04-20T01:00") == 798339600.0
    assert _strengths("1,2,3").fine == 3.0 and _strengths("1,2,3,400").population_half_life == 400.0
    for bad in ("1995-13-01", "yesterday"):
        with pytest.raises(argparse.ArgumentTypeError):
            _date(bad)
    for bad in ("1,2", "1,-2,3", "a,b,c"):
        with pytest.raises(argparse.ArgumentTypeError):
            _strengths(bad)
    data = shared_irc_logs()
    if data is None:
        pytest.skip("the shared IRC logs are not here")
    cut = _date("1995-04-22")
    hdb = next(Path(data).rglob("hdb"))
    stamps = [int(line.split()[0]) for line in hdb.read_text().splitlines() if line.strip()]
    before = sum(1 for t in stamps if t < cut)
    path = tmp_path / "cut.sqlite"
    learned = replay([data], ReplayOptions(db_path=path, until=cut, workers=1))
    # Every later hand that could be read was read and left alone.
    assert len(stamps) - before - 50 < learned.outside <= len(stamps) - before
    assert before - 50 < learned.stored <= before
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT max(started_at) FROM hands").fetchone()[0] < cut
    conn.close()
    scored = replay([data], ReplayOptions(db_path=path, since=cut, predict=True, workers=1))
    report = scored.prediction
    assert report["hands"] == scored.stored and 0 < report["hands"] <= len(stamps) - before
    assert report["overall"]["backoff"]["accuracy"] > report["overall"]["twelve"]["accuracy"]


def test_check_finds_a_fine_context_outside_its_coarse_one(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(30, seed=2)), "irc")
        assert database.check() == []
    conn = sqlite3.connect(path)
    conn.execute("UPDATE actions SET fine_context = fine_context + ? WHERE hand = 3 AND ord = 4", (FINE_PER_COARSE,))
    conn.commit()
    conn.close()
    with Database(path) as database:
        problems = database.check()
        assert any("fine context is not within its coarse context" in p and "(3, 4," in p for p in problems)
        # The models were built from the stored fine contexts, so they disagree too.
        assert any("fine context" in p and "recomputed" in p for p in problems)


def test_the_fine_context_formula_is_the_radix_the_names_read() -> None:
    """fine_context (the one formula: the walker calls it) numbers every combination of
    digits once, in the mixed radix fine_context_name decodes."""
    import itertools

    from agent.game.context import FINE_PER_COARSE, FINE_RADIX, fine_context

    seen = set()
    actives = (2, 3, 4, 5, 6)
    for digits in itertools.product(*(range(radix) for radix in FINE_RADIX)):
        a, relpos, aggr, last, acted, raises, vol, texture = digits
        fine = fine_context(1, 1, actives[a], relpos, bool(aggr), last, bool(acted), raises, bool(vol), texture)
        index = 0
        for digit, radix in zip(digits, FINE_RADIX):
            index = index * radix + digit
        assert fine == 4 * FINE_PER_COARSE + index
        seen.add(fine)
    assert len(seen) == FINE_PER_COARSE
