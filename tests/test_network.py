"""Billings et al.'s [poki-2002] network on top of the learned predictor (agent.models.network, the hidden layer
of agent.models.learned.LearnedModel, ``poki db fit-predictor --hidden``): the gradient
equals finite differences; a fit recovers a nonlinear rule from seeded synthetic data
that the logistic model cannot fit; early stopping keeps the best checked weights; the
sparse paths of play equal the dense one; stored networks round-trip and a model of an
unknown kind is refused with a clear message."""
from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from agent.game.context import fine_contexts
from agent.models.frequencies import PlayerState
from agent.models.learned import N_FEATURES, DecisionFeatures, LearnedModel, fit, hand_features, stack_pairs
from agent.models.network import MLPShape, fit_network, lbfgs, mlp_init, mlp_logits, mlp_objective, mlp_unpack
from agent.models.store import MemoryModelStore
from db import Database
from db.learned import load_learned, store_learned

from worked_hand import worked_hand


def test_the_gradient_equals_central_finite_differences() -> None:
    rng = np.random.default_rng(404)
    shape = MLPShape(6, 5)
    X = rng.normal(size=(40, 6))
    Y = np.eye(3)[rng.integers(0, 3, size=40)]
    w = rng.normal(0.0, 0.7, size=shape.size)
    loss, g = mlp_objective(w, shape, X, Y, 0.01, 0.03)
    h = 1e-6
    numeric = np.empty_like(w)
    for i in range(len(w)):
        e = np.zeros_like(w)
        e[i] = h
        up = mlp_objective(w + e, shape, X, Y, 0.01, 0.03)[0]
        down = mlp_objective(w - e, shape, X, Y, 0.01, 0.03)[0]
        numeric[i] = (up - down) / (2 * h)
    assert np.max(np.abs(numeric - g)) < 1e-7 * max(1.0, np.max(np.abs(g)))
    # The loss is the mean negative log-likelihood written out directly, plus the penalties.
    W, U, b, V = mlp_unpack(w, shape)
    Z = X @ W.T + np.tanh(X @ U.T + b) @ V.T
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    direct = -np.mean(np.log(P[Y.astype(bool)])) + 0.005 * np.sum(W * W) + 0.015 * (np.sum(U * U) + np.sum(V * V))
    assert loss == pytest.approx(direct, rel=1e-12)


def _xor_data(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Raise when two signs agree, fold when they differ: no linear function of the
    inputs separates it (XOR), a few tanh units do."""
    a = rng.normal(size=n)
    b = rng.normal(size=n)
    X = np.column_stack([np.ones(n), a, b, rng.normal(size=n)])  # bias, the two signs' inputs, noise
    y = np.where(a * b > 0, 2, 0)
    flip = rng.random(n) < 0.05
    y[flip] = 1
    return X, y


def test_a_network_recovers_a_rule_the_logistic_model_cannot_fit() -> None:
    rng = np.random.default_rng(2026)
    X, y = _xor_data(rng, 4000)
    Xs, ys = _xor_data(rng, 1000)
    Xv, yv = _xor_data(rng, 4000)
    linear = fit(X, y, 1e-4)
    lin_acc = np.mean((Xv @ linear.T).argmax(axis=1) == yv)
    w, info = fit_network(X, y, 8, 1e-4, np.random.default_rng(7), linear=linear, stop_X=Xs, stop_y=ys,
                          max_iter=400)
    net_acc = np.mean(mlp_logits(w, MLPShape(4, 8), Xv).argmax(axis=1) == yv)
    assert lin_acc < 0.6  # about chance between raise and fold
    assert net_acc > 0.88  # the rule holds for 95% of the rows
    assert 0 < info["best_iteration"] <= info["iterations"]
    # Seeded: the same Generator seed gives the same weights; another seed other weights.
    again, _ = fit_network(X, y, 8, 1e-4, np.random.default_rng(7), linear=linear, stop_X=Xs, stop_y=ys,
                           max_iter=400)
    assert np.array_equal(w, again)
    other, _ = fit_network(X, y, 8, 1e-4, np.random.default_rng(8), linear=linear, stop_X=Xs, stop_y=ys,
                           max_iter=20)
    assert not np.array_equal(w, other)


def test_early_stopping_keeps_the_best_checked_weights() -> None:
    rng = np.random.default_rng(9)
    # Few rows, many noise inputs, no penalty: the fit overfits, the stopping set sees it.
    n, d = 120, 30
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 3, size=n)
    Xs = rng.normal(size=(2000, d))
    ys = rng.integers(0, 3, size=2000)
    shape = MLPShape(d, 6)
    w, info = fit_network(X, y, 6, 0.0, np.random.default_rng(1), stop_X=Xs, stop_y=ys, max_iter=300,
                          check_every=5, patience=4)
    Z = mlp_logits(w, shape, Xs)
    Z -= Z.max(axis=1, keepdims=True)
    ll = float(np.mean(Z[np.arange(len(ys)), ys] - np.log(np.exp(Z).sum(axis=1))))
    assert ll == pytest.approx(info["stop_log_likelihood"], abs=1e-12)
    # Stopped before the end, and the kept weights score better on the stopping set than
    # the weights of the last iteration run.
    assert info["iterations"] < 300
    Y = np.eye(3)[y]
    last = lbfgs(lambda v: mlp_objective(v, shape, X, Y, 0.0), mlp_init(shape, np.random.default_rng(1)),
                 max_iter=info["iterations"], tol=1e-10)
    Zl = mlp_logits(last, shape, Xs)
    Zl -= Zl.max(axis=1, keepdims=True)
    ll_last = float(np.mean(Zl[np.arange(len(ys)), ys] - np.log(np.exp(Zl).sum(axis=1))))
    assert ll > ll_last


def _network_model(seed: int, hidden: int = 12) -> LearnedModel:
    rng = np.random.default_rng(seed)
    return LearnedModel(rng.normal(size=(3, N_FEATURES)) * 0.3, 1e-3,
                        network=(rng.normal(size=(hidden, N_FEATURES)) * 0.4, rng.normal(size=hidden),
                                 rng.normal(size=(3, hidden))))


def test_the_sparse_paths_of_play_equal_the_dense_one_with_a_hidden_layer() -> None:
    actions, pos, board = worked_hand()
    seat = {"a": 0, "b": 1, "c": 2, "d": 3}
    fines = fine_contexts(actions, pos, board)
    rows = [(i, seat[a.player], a.round, a.kind, a.amount, a.bets_to_call, a.raises, a.position, a.players_active,
             False, a.context, fine) for i, (a, fine) in enumerate(zip(actions, fines))]
    store = MemoryModelStore()
    feats = hand_features(rows, 4, 10, 20, [PlayerState() for _ in range(4)], store.population("x"), store.predictor)
    model = _network_model(3)
    walker = DecisionFeatures(4, 10, 20)
    split = DecisionFeatures(4, 10, 20)
    k = 0
    for r in rows:
        if r[3] not in ("sb", "bb"):
            x = feats[k][4]
            # The dense prediction written out from the weights, independently of the model's code.
            W = model.weights
            U, b, V = model.network
            z = W @ x + V @ np.tanh(U @ x + b)
            p = np.exp(z - z.max())
            p /= p.sum()
            assert model.triple(x) == pytest.approx(tuple(p), rel=1e-10)
            pairs = walker.public_pairs(r[1], r[2], r[5], r[10], r[11], r[7])
            pairs += stack_pairs(store.predictor, PlayerState(), store.population("x"), r[10], r[11], r[2])
            assert model.triple_pairs(pairs) == pytest.approx(tuple(p), rel=1e-10)
            table, own, numeric = split.public_split(r[1], r[2], r[5], r[10], r[11], r[7])
            numeric += stack_pairs(store.predictor, PlayerState(), store.population("x"), r[10], r[11], r[2])
            # Twice: the second read comes from the fine context's kept sums.
            for _ in range(2):
                assert model.triple_split(r[10], r[11], table, own, numeric) == pytest.approx(tuple(p), rel=1e-10)
            k += 1
        walker.record(r[1], r[2], r[3], r[4])
        split.record(r[1], r[2], r[3], r[4])
    assert k == len(feats) > 5


def test_a_stored_network_round_trips_and_an_unknown_kind_is_refused(tmp_path) -> None:
    model = _network_model(5, hidden=4)
    path = tmp_path / "n.sqlite"
    with Database(path) as database:
        conn = database.db.conn
        with conn:
            store_learned(conn, "default", model)
            # A logistic model stored as before networks existed (no "kind" field) still reads.
            old = json.loads(LearnedModel(np.ones((3, N_FEATURES)), 1e-3).to_json())
            del old["kind"]
            conn.execute("INSERT INTO learned_predictors (name, scheme, l2, decisions, hands, fitted_at, model)"
                         " VALUES ('old', ?, 0.001, 0, 0, 0, ?)", (old["scheme"], json.dumps(old)))
    with Database(path) as database:
        got = load_learned(database.db.conn)
        logistic = load_learned(database.db.conn, "old")
    assert got is not None and got.kind == "network" and got.hidden_units == 4
    assert all(np.array_equal(a, b) for a, b in zip(got.network, model.network))
    x = np.random.default_rng(1).normal(size=N_FEATURES)
    assert got.triple(x) == model.triple(x)
    assert logistic is not None and logistic.kind == "logistic" and logistic.network is None
    conn = sqlite3.connect(path)
    text = json.loads(conn.execute("SELECT model FROM learned_predictors WHERE name = 'default'").fetchone()[0])
    text["kind"] = "forest"
    conn.execute("UPDATE learned_predictors SET model = ? WHERE name = 'default'", (json.dumps(text),))
    conn.commit()
    conn.close()
    with Database(path) as database, pytest.raises(ValueError, match="kind 'forest'.*fit it again"):
        load_learned(database.db.conn)
    with pytest.raises(ValueError, match="hidden layer"):
        LearnedModel(np.zeros((3, N_FEATURES)), 0.1, network=(np.zeros((4, 7)), np.zeros(4), np.zeros((3, 4))))
    with pytest.raises(ValueError, match="finite"):
        LearnedModel(np.zeros((3, N_FEATURES)), 0.1,
                     network=(np.full((2, N_FEATURES), np.inf), np.zeros(2), np.zeros((3, 2))))


def test_fit_predictor_fits_a_network_and_the_scorer_reads_it(tmp_path, capsys) -> None:
    from agent.play.offline.shadow import ShadowScorer

    hands = list(synthetic_hands(200, seed=31, min_players=3, max_players=8))
    path = tmp_path / "f.sqlite"
    with Database(path) as database:
        database.write_hands(hands[:150], "irc")
    cut = "1995-04-04T14:33"  # hand 100 starts at 14:33:20
    assert main(["db", "fit-predictor", "--db", str(path), "--until", cut, "--validate-since", cut,
                 "--hidden", "0,4", "--max-iter", "30", "--seed", "3", "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    scores = {r["hidden"]: r["validation_log_likelihood"] for r in out["tried"]}
    assert set(scores) == {0, 4} and out["hidden"] == max(scores, key=scores.get)
    net = next(r for r in out["tried"] if r["hidden"] == 4)
    assert net["seed"] == 3 and 0 <= net["best_iteration"] <= net["iterations"] <= 30
    assert main(["db", "fit-predictor", "--db", str(path), "--hidden", "4", "--max-iter", "20",
                 "--no-progress"]) == 0
    assert "4 hidden units" in capsys.readouterr().out
    with Database(path) as database:
        model = load_learned(database.db.conn)
        assert model is not None and model.hidden_units == 4
        scorer = ShadowScorer(seed=database.network_states, known=database.has_hand, learned=model)
        for h in hands:
            scorer.observe(h, "irc")
    report = scorer.report()
    assert report["hands"] == 50 and report["learned"]["hidden"] == 4
    assert -1.5 < report["overall"]["learned"]["log_likelihood"] < -0.2
    with pytest.raises(SystemExit):
        main(["db", "fit-predictor", "--db", str(path), "--hidden", "-1"])
    with pytest.raises(SystemExit):
        main(["db", "fit-predictor", "--db", str(path), "--holdout", "1.5"])
    assert main(["db", "fit-predictor", "--db", str(path), "--hidden", "0,4", "--no-progress"]) == 2
    assert "validation window" in capsys.readouterr().err


def test_fitting_keeps_numpys_blas_to_the_threads_asked(tmp_path, capsys) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from agent.cli.db_fit import _blas_threads

    def blas_threads() -> list[int]:
        return [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]

    before = blas_threads()
    with _blas_threads(1):
        assert blas_threads() and all(n == 1 for n in blas_threads())
    assert blas_threads() == before
    path = tmp_path / "b.sqlite"
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(20, seed=5)), "irc")
    assert main(["db", "fit-predictor", "--db", str(path), "--blas-threads", "0", "--no-progress"]) == 2
    assert "--blas-threads" in capsys.readouterr().err
