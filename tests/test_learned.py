"""The learned predictor (agent.models.learned, db.learned, ``poki db fit-predictor``): the
fit recovers the weights of a known logistic model, the features of hand-built decisions
equal hand-worked values, a decision's features never read its own action or a later
one, the features the database rebuilds are those of models that learned only earlier
hands, stored weights round-trip, the migration upgrades an older file, and the shadow
scorer says when a scored hand lies inside the learned model's fitted range."""
from __future__ import annotations

import json
import math
import sqlite3

import numpy as np
import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from agent.game.context import fine_contexts
from agent.game.prepared import prepare_hand
from agent.models.frequencies import PlayerState
from agent.models.learned import (
    FEATURE_SCHEME,
    N_FEATURES,
    LearnedModel,
    feature_names,
    fit,
    hand_features,
    mean_loglik,
)
from agent.models.prediction import DEFAULT_STRENGTHS, DEFAULT_TRIPLES
from agent.models.store import MemoryModelStore
from agent.play.offline.shadow import ShadowScorer
from db import Database
from db.learned import decisions, load_learned, store_learned

from worked_hand import worked_hand

NAMES = {name: i for i, name in enumerate(feature_names())}


def test_fit_recovers_the_weights_of_a_known_logistic_model() -> None:
    rng = np.random.default_rng(20261124)
    n, p = 40_000, 4
    X = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    # Logits are defined up to a constant per column; the penalised (and the minimum-norm)
    # solution has columns summing to zero, so the true weights are written that way.
    W = np.array([[0.4, -1.0, 0.5, 0.0], [0.2, 0.6, -0.8, 0.7], [-0.6, 0.4, 0.3, -0.7]])
    Z = X @ W.T
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    u = rng.random(n)
    y = (u[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    got = fit(X, y, 1e-6)
    assert got.shape == (3, p)
    got -= got.mean(axis=0, keepdims=True)
    # Standard errors at n = 40,000 are about 0.01 to 0.02.
    assert np.max(np.abs(got - W)) < 0.06
    # Deterministic: the same data give the same weights, bit for bit.
    assert np.array_equal(fit(X, y, 1e-6) - fit(X, y, 1e-6).mean(axis=0, keepdims=True), got)
    # A penalty shrinks the weights.
    assert np.abs(fit(X, y, 1.0)).sum() < 0.5 * np.abs(got).sum()


def test_fit_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        fit(np.ones((3, 2)), np.array([0, 1, 3]), 0.1)
    with pytest.raises(ValueError):
        fit(np.ones((3, 2)), np.array([0, 1]), 0.1)
    with pytest.raises(ValueError):
        fit(np.ones((3, 2)), np.array([0, 1, 2]), -1.0)


def _rows() -> list[tuple]:
    """The worked hand (tests/worked_hand.py, bets 10/20) as prepared action rows."""
    actions, pos, board = worked_hand()
    seat = {"a": 0, "b": 1, "c": 2, "d": 3}
    fines = fine_contexts(actions, pos, board)
    return [(i, seat[a.player], a.round, a.kind, a.amount, a.bets_to_call, a.raises, a.position, a.players_active,
             False, a.context, fine) for i, (a, fine) in enumerate(zip(actions, fines))]


def _features(rows: list[tuple]) -> list[tuple]:
    store = MemoryModelStore()
    states = [PlayerState() for _ in range(4)]
    return hand_features(rows, 4, 10, 20, states, store.population("x"), store.predictor)


def test_features_of_hand_built_decisions_equal_hand_worked_values() -> None:
    feats = _features(_rows())
    assert [(f[0], f[2], f[3]) for f in feats] == [
        (2, 0, 1), (3, 0, 2), (0, 0, 0), (1, 0, 1), (2, 0, 1),
        (1, 1, 1), (2, 1, 2), (3, 1, 1), (1, 1, 0),
        (2, 2, 1), (3, 2, 2), (2, 2, 1)]
    x = feats[1][4]  # d raises pre-flop, facing 1 bet after the blinds (15) and c's call (10)
    assert x[NAMES["ctx1"]] == 1 and x.reshape(-1)[:12].sum() == 1  # pre-flop, 1 bet
    assert x[NAMES["preflop:pot_odds"]] == pytest.approx(10 / 35)
    assert x[NAMES["preflop:log_pot_sb"]] == pytest.approx(math.log1p(2.5) / 3)
    assert x[NAMES["preflop:callers"]] == pytest.approx(0.25)
    assert x[NAMES["preflop:seat_fraction"]] == pytest.approx(1.0)
    assert x[NAMES["preflop:seated"]] == pytest.approx(0.4)
    assert x[NAMES["preflop:table_last=call"]] == 1 and x[NAMES["preflop:own_last=none"]] == 1
    # Fine digits of this decision: 4 players, middle (pre-flop c acts before d, a and b
    # after), no blind, no action yet, first action this round, one bet made, not
    # voluntary, no board.
    for name in ("active=2", "relpos=1", "aggressor=0", "last=0", "acted=0", "raises=1", "voluntary=0",
                 "texture=0"):
        assert x[NAMES[f"ctx1:{name}"]] == 1, name
    assert sum(x[NAMES[f"ctx1:active={v}"]] for v in range(5)) == 1
    # A player never seen: the back-off is the context's default triple (logs of it).
    d = DEFAULT_TRIPLES[1]
    for k, name in enumerate(("fold", "call", "raise")):
        assert x[NAMES[f"ctx1:backoff_logp_{name}"]] == pytest.approx(math.log(d[k]), abs=2e-3)
    assert x[NAMES["preflop:log_hands"]] == 0 and x[NAMES["preflop:looseness"]] == pytest.approx(0.5)
    assert x[NAMES["preflop:aggression"]] == pytest.approx(0.3)
    # Only the groups of this decision's round and context are set.
    assert not any(x[NAMES[n]] for n in NAMES if n.startswith(("flop:", "turn:", "river:", "ctx4:", "ctx0:")))

    x = feats[7][4]  # d calls c's flop bet: pot 65 + 10
    assert x[NAMES["ctx4"]] == 1
    assert x[NAMES["flop:pot_odds"]] == pytest.approx(10 / 85)
    assert x[NAMES["flop:table_last=raise"]] == 1 and x[NAMES["flop:own_last=none"]] == 1
    assert x[NAMES["flop:callers"]] == 0 and x[NAMES["ctx4:aggressor=1"]] == 1  # d raised pre-flop
    x = feats[11][4]  # c calls d's turn bet of 20 after checking: pot 85 + 20
    assert x[NAMES["turn:pot_odds"]] == pytest.approx(20 / 125)
    assert x[NAMES["turn:own_last=call"]] == 1 and x[NAMES["turn:table_last=raise"]] == 1
    assert x[NAMES["ctx7:acted=1"]] == 1 and x[NAMES["ctx7:texture=0"]] == 1


def test_a_decisions_features_never_read_its_own_action_or_a_later_one() -> None:
    rows = _rows()
    feats = _features(rows)
    decisions_at = [i for i, r in enumerate(rows) if r[3] not in ("sb", "bb")]
    for k, i in enumerate(decisions_at):
        # Every action from this decision on replaced by something else.
        changed = rows[:i] + [r[:3] + ("r" if r[3] != "r" else "f", 999) + r[5:] for r in rows[i:]]
        again = _features(changed)
        assert np.array_equal(again[k][4], feats[k][4])


def test_the_database_features_a_decision_from_models_of_earlier_hands_only(tmp_path) -> None:
    hands = list(synthetic_hands(120, seed=31, min_players=3, max_players=7))
    with Database(tmp_path / "f.sqlite", half_life=60.0) as database:
        database.write_hands(hands, "irc")
        with database.snapshot() as conn:
            data = decisions(conn, 60.0, DEFAULT_STRENGTHS)
    # Independently: a store that learns hand by hand, featured before each hand.
    store = MemoryModelStore(60.0)
    expected = []
    for h in hands:
        p = prepare_hand(h, "irc")
        states = [store.state(n, "irc") or PlayerState() for n in p.players]
        expected += [f[4] for f in hand_features(p.actions, len(p.players), h.small_bet, h.big_bet, states,
                                                 store.population("irc"), store.predictor)]
        store.write_hand(h, "irc")
    assert data.X.shape == (len(expected), N_FEATURES)
    assert np.allclose(data.X, np.array(expected), rtol=1e-12, atol=1e-12)
    assert list(data.y) == [c for h in hands for c in (
        {"f": 0, "k": 1, "c": 1, "b": 2, "r": 2}[a.kind] for a in h.actions if a.kind not in ("sb", "bb"))]


def test_stored_weights_round_trip_and_a_foreign_scheme_is_refused(tmp_path) -> None:
    rng = np.random.default_rng(5)
    model = LearnedModel(rng.normal(size=(3, N_FEATURES)), 3e-4, decisions=1234, hands=99,
                         first_started_at=797_000_000.0, last_started_at=797_005_940.5, train_loglik=-0.75)
    path = tmp_path / "w.sqlite"
    with Database(path) as database:
        conn = database.db.conn
        assert load_learned(conn) is None
        with conn:
            store_learned(conn, "default", model)
    with Database(path) as database:
        got = load_learned(database.db.conn)
    assert got is not None and np.array_equal(got.weights, model.weights)
    assert (got.l2, got.decisions, got.hands, got.first_started_at, got.last_started_at, got.scheme) == (
        3e-4, 1234, 99, 797_000_000.0, 797_005_940.5, FEATURE_SCHEME)
    conn = sqlite3.connect(path)
    text = json.loads(conn.execute("SELECT model FROM learned_predictors").fetchone()[0])
    text["scheme"] = "logit-0:7"
    conn.execute("UPDATE learned_predictors SET model = ?", (json.dumps(text),))
    conn.commit()
    conn.close()
    with Database(path) as database, pytest.raises(ValueError, match="feature scheme"):
        load_learned(database.db.conn)
    with pytest.raises(ValueError):
        LearnedModel(np.zeros((3, 5)), 0.1)
    with pytest.raises(ValueError):
        LearnedModel(np.full((3, N_FEATURES), np.nan), 0.1)


def test_the_migration_upgrades_a_file_from_before_it(tmp_path) -> None:
    from sqlite_utils import Database as SUDatabase

    from db import schema

    hands = list(synthetic_hands(60, seed=2))
    path = tmp_path / "old.sqlite"
    with Database(path) as database:
        database.write_hands(hands, "irc")
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE learned_predictors")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm004_learned_predictors'")
    conn.commit()
    conn.close()
    assert schema.pending(SUDatabase(path)) == ["m004_learned_predictors"]
    with Database(path) as database:
        assert database.hand_count() == 60
        assert "m004_learned_predictors" in database.migrations_applied()
        assert load_learned(database.db.conn) is None
        assert database.compare_models() == []


def _fitted_file(tmp_path, hands, until: str | None) -> str:
    path = tmp_path / "fit.sqlite"
    with Database(path) as database:
        database.write_hands(hands, "irc")
    args = ["db", "fit-predictor", "--db", str(path), "--max-iter", "40", "--no-progress", "--json"]
    if until:
        args += ["--until", until]
    assert main(args) == 0
    return str(path)


def test_fit_predictor_stores_a_model_and_the_scorer_reports_its_range(tmp_path, capsys) -> None:
    hands = list(synthetic_hands(240, seed=17, min_players=3, max_players=8))
    # Hands start at 797,000,000 + 60 s × number: 1995-04-04 12:53:20 UTC, then one a minute.
    path = _fitted_file(tmp_path, hands[:160], None)
    out = json.loads(capsys.readouterr().out)
    n = sum(1 for h in hands[:160] for a in h.actions if a.kind not in ("sb", "bb"))
    assert out["decisions"] == n and out["hands"] == 160 and out["first_started_at"] == 797_000_000.0
    # Scored hands after the fitted range: held out. Scored from the stored models.
    with Database(path) as database:
        model = load_learned(database.db.conn)
        scorer = ShadowScorer(seed=database.network_states, known=database.has_hand, learned=model)
        for h in hands:
            scorer.observe(h, "irc")
    report = scorer.report()
    assert report["predictors"][:2] == ["meta", "learned"] and report["hands"] == 80
    assert report["learned"]["scored_hands_inside_fitted_range"] == 0
    assert -1.2 < report["overall"]["learned"]["log_likelihood"] < -0.3
    # The same model scoring the hands it was fitted on says so.
    inside = ShadowScorer(learned=model)
    for h in hands[:50]:
        inside.observe(h, "irc")
    assert inside.report()["learned"]["scored_hands_inside_fitted_range"] == 50


def test_fit_predictor_errors(tmp_path, capsys) -> None:
    path = tmp_path / "empty.sqlite"
    with Database(path):
        pass
    assert main(["db", "fit-predictor", "--db", str(path), "--no-progress"]) == 1
    assert "no hands" in capsys.readouterr().err
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(30, seed=3)), "irc")
    assert main(["db", "fit-predictor", "--db", str(path), "--no-progress", "--l2", "1e-3,1e-2"]) == 2
    assert "validation window" in capsys.readouterr().err
    assert main(["db", "fit-predictor", "--db", str(path), "--no-progress", "--until", "1990-01-01"]) == 1
    assert "no decisions" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["db", "fit-predictor", "--db", str(path), "--l2", "x"])
    assert main(["db", "fit-predictor", "--db", str(tmp_path / "none.sqlite")]) == 1


def test_several_penalties_are_chosen_on_the_validation_window(tmp_path, capsys) -> None:
    hands = list(synthetic_hands(200, seed=23, min_players=3, max_players=8))
    path = tmp_path / "v.sqlite"
    with Database(path) as database:
        database.write_hands(hands, "irc")
    cut = "1995-04-04T14:33"  # hand 100 starts at 14:33:20
    assert main(["db", "fit-predictor", "--db", str(path), "--until", cut, "--validate-since", cut,
                 "--l2", "1e-4,10", "--max-iter", "30", "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    scores = {r["l2"]: r["validation_log_likelihood"] for r in out["tried"]}
    assert out["l2"] == max(scores, key=scores.get)
    assert out["hands"] == 100  # hands 0..99 only
    assert main(["db", "fit-predictor", "--db", str(path), "--until", cut, "--validate-since", "1995-04-04",
                 "--l2", "1e-4,10", "--no-progress"]) == 2
    assert "overlaps" in capsys.readouterr().err


def test_mean_loglik_floors_like_the_scorer() -> None:
    P = np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    y = np.array([1, 2])
    expected = (math.log(0.001 / 1.002) + math.log(0.5)) / 2
    assert mean_loglik(P, y) == pytest.approx(expected)


def test_the_sparse_path_of_play_equals_the_dense_one() -> None:
    rows = _rows()
    feats = _features(rows)
    model = LearnedModel(np.random.default_rng(11).normal(size=(3, N_FEATURES)), 1e-3)
    from agent.models.learned import DecisionFeatures, stack_pairs

    store = MemoryModelStore()
    walker = DecisionFeatures(4, 10, 20)
    split = DecisionFeatures(4, 10, 20)
    k = 0
    for r in rows:
        if r[3] not in ("sb", "bb"):
            pairs = walker.public_pairs(r[1], r[2], r[5], r[10], r[11], r[7])
            pairs += stack_pairs(store.predictor, PlayerState(), store.population("x"), r[10], r[11], r[2])
            assert model.triple_pairs(pairs) == pytest.approx(model.triple(feats[k][4]), rel=1e-12)
            table, own, numeric = split.public_split(r[1], r[2], r[5], r[10], r[11], r[7])
            numeric += stack_pairs(store.predictor, PlayerState(), store.population("x"), r[10], r[11], r[2])
            assert model.triple_split(r[10], r[11], table, own, numeric) == pytest.approx(
                model.triple(feats[k][4]), rel=1e-12)
            assert sum(model.triple_pairs(pairs)) == pytest.approx(1.0)
            k += 1
        walker.record(r[1], r[2], r[3], r[4])
        split.record(r[1], r[2], r[3], r[4])
    assert k == len(feats)


def test_replay_predict_reads_the_stored_model_and_refuses_a_foreign_one(tmp_path) -> None:
    from agent.play.offline.replay import _load_learned
    from db.database import DatabaseError

    path = tmp_path / "r.sqlite"
    with Database(path) as database:
        scorer = ShadowScorer()
        _load_learned(database, scorer)  # none stored: the five predictors as before
        assert scorer.predictors == ("meta", "backoff", "twelve", "baseline", "defaults")
        conn = database.db.conn
        with conn:
            store_learned(conn, "default", LearnedModel(np.zeros((3, N_FEATURES)), 1e-3))
        _load_learned(database, scorer)
        assert scorer.predictors[:2] == ("meta", "learned")
        with conn:
            conn.execute("UPDATE learned_predictors SET model = '{\"scheme\": 1'")
        with pytest.raises(DatabaseError, match="learned_predictors"):
            _load_learned(database, ShadowScorer())


def test_the_three_way_meta_mixes_by_running_log_likelihood_worked_by_hand() -> None:
    scorer = ShadowScorer(half_life=100.0, learned=LearnedModel(np.zeros((3, N_FEATURES)), 1e-3))
    state = PlayerState(10)
    state.score_twelve, state.score_backoff, state.scores_ref = -3.0, -2.0, 10
    a, b, c = (0.2, 0.5, 0.3), (0.1, 0.6, 0.3), (0.3, 0.3, 0.4)
    # First met: the learned score starts from the back-off's, so weights ∝ e^-3, e^-2, e^-2.
    got = scorer._meta3("n", "p", state, a, b, c, 1)
    w = np.exp([-3.0, -2.0, -2.0])
    w /= w.sum()
    assert got == pytest.approx(tuple(w[0] * a[i] + w[1] * b[i] + w[2] * c[i] for i in range(3)), rel=1e-12)
    # The hand is learned: each score takes this decision's log-likelihood, as of hand 11
    # (one hand of decay first, as the counts).
    scorer.store._players[("n", "p")] = PlayerState(11)
    scorer._learn_scores()
    k = 0.5 ** (1 / 100.0)
    s = [-3.0 * k + math.log(0.5), -2.0 * k + math.log(0.6), -2.0 * k + math.log(0.3)]
    assert scorer._learned_scores[("n", "p")] == pytest.approx([*s, 11.0], rel=1e-12)
    state.hands = 11
    got = scorer._meta3("n", "p", state, a, b, c, 1)
    w = np.exp(s)
    w /= w.sum()
    assert got == pytest.approx(tuple(w[0] * a[i] + w[1] * b[i] + w[2] * c[i] for i in range(3)), rel=1e-12)


def test_every_scheme_derived_from_the_fine_radix_follows_it() -> None:
    """agent.game.context's FINE_RADIX is the one source of the fine contexts' numbering:
    the formula (fine_context, written out by hand), the scheme names a database and stored
    weights are checked by (FINE_SCHEME, FEATURE_SCHEME) and the learned predictor's one-hot
    columns (feature_names, fine_columns) all follow it digit by digit, so a change to it
    cannot leave one of them numbering the old way."""
    import itertools
    import math
    import re

    from agent.game.context import (
        FINE_DIGITS,
        FINE_PER_COARSE,
        FINE_RADIX,
        FINE_SCHEME,
        N_CONTEXTS,
        N_FINE_CONTEXTS,
        fine_context,
    )
    from agent.models.learned import FEATURE_SCHEME, feature_names, fine_columns

    assert len(FINE_DIGITS) == len(FINE_RADIX)
    assert FINE_PER_COARSE == math.prod(FINE_RADIX) and N_FINE_CONTEXTS == N_CONTEXTS * FINE_PER_COARSE
    radix_text = "x".join(map(str, FINE_RADIX))
    assert FINE_SCHEME.endswith(":" + radix_text) and FEATURE_SCHEME.endswith(":" + radix_text)
    names = feature_names()
    assert len([n for n in names if re.fullmatch(r"ctx\d+:[a-z]+=\d+", n)]) == N_CONTEXTS * sum(FINE_RADIX)
    players = (2, 3, 4, 5, 6)  # the values of the "active" digit
    for round_, bets in ((0, 0), (1, 1), (3, 2)):
        context = 3 * round_ + bets
        for digits in itertools.product(*(range(radix) for radix in FINE_RADIX)):
            active, relpos, aggressor, last, acted, raises, voluntary, texture = digits
            fine = fine_context(round_, bets, players[active], relpos, bool(aggressor), last, bool(acted), raises,
                                bool(voluntary), texture)
            expected = {f"ctx{context}"} | {f"ctx{context}:{name}={d}" for name, d in zip(FINE_DIGITS, digits)}
            assert {names[c] for c in fine_columns(context, fine)} == expected, digits
