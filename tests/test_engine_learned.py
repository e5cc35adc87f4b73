"""The Poki engine reads the learned predictor (agent.models.learned) when the database it
plays from holds fitted weights: the triple the re-weighting is given for an opponent's
action equals the learned model's prediction computed directly from the hand's features
(agent.models.learned.hand_features, the dense path training uses); the meta-predictor
mixes it in; with no weights stored the back-off is read and a warning is logged once;
an unknown predictor is refused wherever it can be named."""
from __future__ import annotations

import logging
from collections import Counter

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from agent.config import ConfigError, EngineConfig, ModelConfig, TableConfig, load_config
from agent.engine.player import PokiPlayer
from agent.game.prepared import prepare_hand
from agent.models import opponent_model
from agent.models.frequencies import PlayerState
from agent.models.learned import hand_features
from agent.models.store import MemoryModelStore
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import SpecError, create_player
from db import Database

NETWORK = "irc"
STAKES = dict(small_blind=5, big_blind=10, small_bet=10, big_bet=20)


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """Each test sees its own one-time warnings (they are kept once per process)."""
    opponent_model._WARNED.clear()
    yield
    opponent_model._WARNED.clear()


@pytest.fixture(scope="module")
def hands():
    return list(synthetic_hands(160, seed=23, min_players=3, max_players=8))


@pytest.fixture(scope="module")
def regulars(hands) -> list[str]:
    seen = Counter(s.player for h in hands for s in h.seats)
    return [nick for nick, _ in seen.most_common(3)]


def _database(tmp_path, hands, fitted: bool) -> str:
    path = tmp_path / ("fitted.sqlite" if fitted else "plain.sqlite")
    with Database(path) as database:
        database.write_hands(hands, NETWORK)
    if fitted:
        assert main(["db", "fit-predictor", "--db", str(path), "--max-iter", "40", "--no-progress", "--json"]) == 0
    return str(path)


@pytest.fixture(scope="module")
def fitted_path(tmp_path_factory, hands) -> str:
    return _database(tmp_path_factory.mktemp("fitted"), hands, True)


class _Spy(PokiPlayer):
    """Keeps every (opponent, round, triple) the re-weighting is given."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.given: list[tuple[str, int, tuple[float, float, float]]] = []
        observe = self._modeler.observe

        def spy(player, action, triple, mask, active, context=-1):
            self.given.append((player, len(self.given), tuple(triple)))
            return observe(player, action, triple, mask, active, context)

        self._modeler.observe = spy


def _play(hero: PokiPlayer, regulars: list[str], seed: int = 5):
    """One hand at four seats: hero holds aces (so it plays to the river), the three
    regulars are a raiser and two calling stations (they never fold, so every one of
    their actions before hero's last turn is re-weighted for)."""
    others = [create_player("raise", np.random.default_rng(1), name=regulars[0]),
              create_player("call", np.random.default_rng(2), name=regulars[1]),
              create_player("call", np.random.default_rng(3), name=regulars[2])]
    cards = [ev.parse_cards(c) for c in ("As Ah", "7c 2d", "9s 8s", "Kd Jc")]
    deal = Deal(tuple(tuple(c) for c in cards), tuple(ev.parse_cards("Qd 8h 3c 4h 9d")))
    dealer = Dealer(TableConfig(seats=4, **STAKES), source="test")
    return dealer.play_hand([hero, *others], deal, button=3, hand_id=f"engine-learned:{seed}")


def _expected(database: Database, record, model, hero: str) -> list[tuple[str, object, object, object]]:
    """(nick, learned triple, state, coarse context) of every opponent decision of the
    hand, from the dense feature vectors the fit uses and the models as stored."""
    prepared = prepare_hand(record, NETWORK)
    players = prepared.players
    states = [PlayerState() if nick == hero else database.get(nick, NETWORK).state for nick in players]
    population = database.get(players[1], NETWORK).population
    predictor = database.predictor
    out = []
    for seat, context, _rnd, cls, x in hand_features(prepared.actions, len(players), record.small_bet,
                                                    record.big_bet, states, population, predictor):
        if players[seat] == hero or cls == 0:
            continue
        out.append((players[seat], model.triple(x), states[seat], context))
    return out


def test_engine_reads_the_learned_prediction(fitted_path, regulars) -> None:
    with Database(fitted_path, create=False) as database:
        model = database.learned_model()
        assert model is not None
        hero = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples"),
                    model=ModelConfig(predictor="learned"))
        hero.attach_store(database, NETWORK)
        record = _play(hero, regulars)
        expected = _expected(database, record, model, "hero")
        given = hero.given
        assert len(given) >= 4  # pre-flop and after the flop
        assert len(given) <= len(expected)
        differs = 0
        for (nick, _, got), (enick, want, state, context) in zip(given, expected):
            assert nick == enick
            assert got == pytest.approx(want, abs=1e-9)
            twelve = database.predictor.twelve(state, context)
            differs += max(abs(a - b) for a, b in zip(got, twelve)) > 1e-3
        assert differs  # not the frequency tables under another name


def test_meta_mixes_the_learned_prediction_in(fitted_path, regulars) -> None:
    with Database(fitted_path, create=False) as database:
        model = database.learned_model()
        # A fixed re-weighting floor: with the learned one ("learned", the default) each
        # player would start from the off-model counts the one before it left in the file.
        learned = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples", floor_on="action"),
                       model=ModelConfig(predictor="learned"))
        backoff = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples", floor_on="action"),
                       model=ModelConfig(predictor="backoff"))
        twelve = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples", floor_on="action"),
                      model=ModelConfig(predictor="twelve"))
        meta = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples", floor_on="action"),
                    model=ModelConfig(predictor="meta"))
        for p in (learned, backoff, twelve, meta):
            p.attach_store(database, NETWORK)
            _play(p, regulars)
        assert model is not None and len(meta.given) >= 4
        # The same seeded hand: each saw the same opponent actions.
        assert [g[0] for g in meta.given] == [g[0] for g in learned.given] == [g[0] for g in backoff.given]
        for m, lt, b, t in zip(meta.given, learned.given, backoff.given, twelve.given):
            state = database.get(m[0], NETWORK).state
            w0, w1 = database.predictor.weights(state)  # the two-way meta's weights
            # The learned predictor enters with the back-off's running score.
            want = tuple((w0 * t[2][i] + w1 * (b[2][i] + lt[2][i])) / (w0 + 2 * w1) for i in range(3))
            assert m[2] == pytest.approx(want, abs=1e-9)


def test_no_weights_reads_the_backoff_and_warns_once(tmp_path, hands, regulars, caplog) -> None:
    path = _database(tmp_path, hands, fitted=False)
    with Database(path, create=False) as database, caplog.at_level(logging.WARNING):
        assert database.learned_model() is None
        learned = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples"),
                       model=ModelConfig(predictor="learned"))
        backoff = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples"),
                       model=ModelConfig(predictor="backoff"))
        for p in (learned, backoff):
            p.attach_store(database, NETWORK)
        _play(learned, regulars, seed=5)
        _play(backoff, regulars, seed=5)
        assert len(learned.given) >= 4 and learned.given == backoff.given
        # A second hand (and a second player on the same file) warn no more.
        _play(learned, regulars, seed=6)
        again = PokiPlayer("hero2", np.random.default_rng(0), EngineConfig(bettor="triples"),
                           model=ModelConfig(predictor="learned"))
        again.attach_store(database, NETWORK)
        _play(again, ["x" + r for r in regulars], seed=7)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "learned" in r.getMessage()]
    assert len(warnings) == 1
    assert path in warnings[0].getMessage() and "back-off" in warnings[0].getMessage()


def test_a_store_without_weights_warns_and_reads_the_backoff(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        store = MemoryModelStore()
        player = PokiPlayer("hero", np.random.default_rng(0), EngineConfig(bettor="triples"), store=store,
                            model=ModelConfig(predictor="learned"))
        _play(player, ["a", "b", "c"])
    assert any("memory" in r.getMessage() and "back-off" in r.getMessage() for r in caplog.records)


def test_weights_of_another_scheme_are_not_read(fitted_path, tmp_path, regulars, caplog) -> None:
    import shutil
    import sqlite3

    path = tmp_path / "other.sqlite"
    shutil.copy(fitted_path, path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE learned_predictors SET model = replace(model, 'logit-1', 'logit-0')")
    conn.commit()
    conn.close()
    with Database(path, create=False) as database, caplog.at_level(logging.WARNING):
        with pytest.raises(ValueError, match="feature scheme"):
            database.learned_model()
        player = _Spy("hero", np.random.default_rng(0), EngineConfig(bettor="triples"),
                      model=ModelConfig(predictor="learned"))
        player.attach_store(database, NETWORK)
        _play(player, regulars)  # plays on, from the back-off
        assert player.given
    assert any("feature scheme" in r.getMessage() for r in caplog.records)


def test_an_unknown_predictor_is_refused(tmp_path) -> None:
    assert ModelConfig(predictor="learned").predictor == "learned"
    with pytest.raises(ConfigError, match="model.predictor"):
        ModelConfig(predictor="neural")
    toml = tmp_path / "bad.toml"
    toml.write_text('[model]\npredictor = "neural"\n')
    with pytest.raises(ConfigError, match="neural"):
        load_config(str(toml))
    with pytest.raises(SpecError):
        create_player("poki(predictor=neural)", np.random.default_rng(0))
    assert create_player("poki(predictor=learned)", np.random.default_rng(0)).model_settings.predictor == "learned"
