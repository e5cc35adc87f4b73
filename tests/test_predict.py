"""Shadow scoring (agent.play.offline.shadow): the scores of single predictions, predictions from the
past only, the models equal to the database's as of each hand, and the report."""
from __future__ import annotations

import math

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.game.records import ActionRecord, HandRecord, PlayerResult, SeatRecord
from agent.models.opponent_model import DEFAULT_TRIPLES, predict_triple
from agent.play.offline.shadow import EPSILON, ShadowScorer, _scores, format_report
from db import Database


def test_scores_of_one_prediction() -> None:
    assert _scores((0.7, 0.2, 0.1), 0, EPSILON) == (1.0, pytest.approx(math.log(0.7)))
    assert _scores((0.7, 0.2, 0.1), 2, EPSILON) == (0.0, pytest.approx(math.log(0.1)))
    # A tie between check-or-call and bet-or-raise earns half when one of them is taken.
    hit, ll = _scores((0.0, 0.5, 0.5), 1, EPSILON)
    assert hit == 0.5 and ll == pytest.approx(math.log(0.5 / (1 + EPSILON)))
    # Floored at epsilon and renormalised: an action given no chance costs ln(eps/(1+eps)).
    hit, ll = _scores((0.0, 0.5, 0.5), 0, EPSILON)
    assert hit == 0.0 and ll == pytest.approx(math.log(EPSILON / (1 + EPSILON)))
    assert _scores((1 / 3, 1 / 3, 1 / 3), 2, EPSILON)[0] == pytest.approx(1 / 3)


def heads_up(hand_id: str, move: str) -> HandRecord:
    """Alice (button, small blind) and Bob heads-up: Alice folds ("f") or calls ("c") the
    one bet she faces pre-flop, and Bob takes the pot."""
    seats = (SeatRecord("alice", 1000, 2), SeatRecord("bob", 1000, 1))
    actions = [ActionRecord(0, "alice", "sb", 5, 0, 0, 2, 2), ActionRecord(0, "bob", "bb", 10, 0, 1, 1, 2),
               ActionRecord(0, "alice", move, 5 if move == "c" else 0, 1, 1, 2, 2)]
    alice = 10 if move == "c" else 5
    results = (PlayerResult("alice", alice, 0), PlayerResult("bob", 10, alice + 10))
    return HandRecord(hand_id, "test", None, 5, 10, 10, 20, 4, seats, (), tuple(actions), (), results)


def test_predictions_use_only_earlier_hands() -> None:
    scorer = ShadowScorer(half_life=1000.0, blend=20.0, min_hands=3)
    # Alice folds her small blind every time: her first decision is predicted by the
    # defaults alone (facing 1 bet: fold .5), later ones by a model that learns it.
    scorer.observe(heads_up("h1", "f"), "t")
    first = scorer.report()
    assert first["overall"]["decisions"] == 1
    assert first["overall"]["twelve"]["log_likelihood"] == pytest.approx(math.log(DEFAULT_TRIPLES[1][0]))
    assert first["overall"]["baseline"]["log_likelihood"] == pytest.approx(math.log(1 / 3))
    for k in range(2, 41):
        scorer.observe(heads_up(f"h{k}", "f"), "t")
    report = scorer.report()
    assert report["overall"]["decisions"] == 40 and report["hands"] == 40
    # By the 21st fold the context holds 20 observations: the model is all folds.
    model = scorer.store.get("alice", "t")
    assert predict_triple(model, 1, 20.0)[0] == pytest.approx(1.0, abs=1e-3)
    assert report["overall"]["twelve"]["accuracy"] == 1.0
    # Baseline after n folds: (n + 1) / (n + 3).
    expect = sum(math.log((n + 1) / (n + 3)) for n in range(40)) / 40
    assert report["overall"]["baseline"]["log_likelihood"] == pytest.approx(expect)
    assert report["regulars"]["players"] == 1 and report["regular_players"][0]["player"] == "alice"
    assert report["by_round"]["flop"]["decisions"] == 0
    assert report["by_context"]["preflop, 1 bet"]["decisions"] == 40


def test_the_scorers_models_are_the_databases_as_of_each_hand(tmp_path) -> None:
    hands = list(synthetic_hands(400, seed=21, min_players=3, max_players=8))
    scorer = ShadowScorer(half_life=50.0, blend=20.0)
    with Database(tmp_path / "db.sqlite", half_life=50.0) as database:
        for i, record in enumerate(hands):
            if i % 97 == 0:
                for seat in record.seats:
                    assert scorer.store.get(seat.player, "irc") == database.get(seat.player, "irc")
                    ours, theirs = scorer.store.state(seat.player, "irc"), database.get(seat.player, "irc").state
                    if ours is not None:
                        assert ours.fine.keys() == theirs.fine.keys() and ours.scores == theirs.scores
            scorer.observe(record, "irc")
            database.write_hand(record, "irc")
    report = scorer.report()
    decisions = sum(1 for h in hands for a in h.actions if a.kind in ("f", "k", "c", "b", "r"))
    assert report["overall"]["decisions"] == decisions
    assert sum(t["decisions"] for t in report["by_round"].values()) == decisions
    assert sum(t["decisions"] for t in report["by_context"].values()) == decisions
    text = format_report(report)
    assert "all decisions" in text and "river" in text and "by context:" in text


def test_a_record_the_database_would_refuse_is_not_scored() -> None:
    scorer = ShadowScorer()
    bad = heads_up("", "f")  # no hand id
    scorer.observe(bad, "t")
    assert scorer.rejected == 1 and scorer.report()["overall"]["decisions"] == 0
    with pytest.raises(ValueError, match="epsilon"):
        ShadowScorer(epsilon=0.5)
