"""Learned ranges (agent.models.ranges, ``reweight = "learned"``) and the range score of
``poki replay --predict`` (agent.play.offline.range_score).

Checked against answers worked out independently of the code: percentiles and Bayes'
rule computed directly by brute force, the number of two-card holdings a board leaves
(C(52 − k, 2)), the stores compared with counts added by hand (a real SQLite file), and
the real April 1995 logs through the real replay."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agent.config import EngineConfig, TableConfig
from agent.engine.modeler import CALL, RAISE, OpponentModeler
from agent.engine.player import PokiPlayer
from agent.models.ranges import (
    N_BINS,
    N_ROWS,
    NO_RANGE_COUNTS,
    PLAYER_HALF_LIFE,
    POPULATION_HALF_LIFE,
    RangeCounts,
    RangeSettings,
    bins_of,
    densities,
    is_raise_row,
    range_row,
    table_percentiles,
)
from agent.models.store import MemoryModelStore
from agent.play.offline.tournament import TournamentSetup, run_tournament
from db import Database

N = 1326


def test_percentiles_are_the_weighted_share_below_by_brute_force() -> None:
    rng = np.random.default_rng(1)
    strength = rng.integers(0, 40, N) / 40.0  # many ties
    w = rng.uniform(0.0, 2.0, N)
    w[rng.random(N) < 0.2] = 0.0  # dead holdings
    u = table_percentiles(strength, w)
    total = w.sum()
    for h in rng.choice(np.flatnonzero(w > 0), 50, replace=False):
        below = w[(strength < strength[h])].sum()
        equal = w[(strength == strength[h])].sum()
        assert u[h] == pytest.approx((below + 0.5 * equal) / total)
    assert (u[w == 0] == 0).all()
    assert bins_of(np.array([0.0, 0.0999, 0.1, 0.95, 1.0])).tolist() == [0, 0, 1, 9, 9]


def test_no_counts_read_as_no_evidence_and_back_off_is_by_pseudo_counts() -> None:
    flat = densities(NO_RANGE_COUNTS, NO_RANGE_COUNTS)
    np.testing.assert_allclose(flat, np.ones((N_ROWS, N_BINS)))
    pop = np.zeros((N_ROWS, N_BINS))
    pop[0, 9] = 80.0  # the population's rarest calls pre-flop facing no bet: all from the top bin
    own = np.zeros((N_ROWS, N_BINS))
    own[0, 0] = 10.0  # this player's: all from the bottom bin
    d = densities(RangeCounts(own, 10.0), RangeCounts(pop, 80.0), RangeSettings(10.0, 20.0))
    # By hand: population shape (80 + 2) / 100 in bin 9, 2/100 elsewhere (strength 20);
    # the player's (10 + 10·shape) / 20 (strength 10); density = shape × 10 bins.
    pop_shape = np.full(N_BINS, 2.0 / 100.0)
    pop_shape[9] = 82.0 / 100.0
    mine = 10.0 * pop_shape / 20.0
    mine[0] += 10.0 / 20.0
    np.testing.assert_allclose(d[0], mine * N_BINS)
    np.testing.assert_allclose(d.mean(axis=1), 1.0)
    np.testing.assert_allclose(d[1], 1.0)  # rows without counts stay flat


def test_learned_reweighting_is_bayes_with_the_density_of_the_percentile() -> None:
    """Two actions through the modeler with densities: the table after them equals prior
    × density[row][bin of u under the table before each action], computed directly."""
    rng = np.random.default_rng(5)
    dens = np.ones((N_ROWS, N_BINS))
    dens[range_row(4, RAISE, 0.2)] = np.linspace(0.1, 1.9, N_BINS)  # flop, facing none: a bet is strong
    dens[range_row(7, CALL, 0.6)] = np.linspace(1.5, 0.5, N_BINS)  # turn, facing one: a call is weaker
    m = OpponentModeler("learned", potential=False)
    m.new_hand(["v"], 0, densities={"v": dens})
    prior = m.tables["v"].copy()
    w = prior.copy()
    for context, action, freq in ((4, RAISE, (0.0, 0.8, 0.2)), (7, CALL, (0.3, 0.6, 0.1))):
        strength = rng.permutation((np.arange(N) + 0.5) / N)
        m.strengths = lambda board, players, s=strength: s  # type: ignore[method-assign]  # a test double
        order = np.argsort(strength)
        cum = np.cumsum(w[order])
        u = np.empty(N)
        u[order] = (cum - 0.5 * w[order]) / cum[-1]
        w = w * dens[range_row(context, action, freq[action])][np.minimum((u * N_BINS).astype(int), N_BINS - 1)]
        m.observe("v", action, freq, 0, 3, context)
    got = m.tables["v"]
    np.testing.assert_allclose(got / got.sum(), w / w.sum(), rtol=1e-9)
    h = int(np.argmax(w))
    obs = m.range_observations("v", h)
    assert [row for row, _ in obs] == [range_row(4, RAISE, 0.2), range_row(7, CALL, 0.6)]
    assert range_row(4, RAISE, 0.2) != range_row(4, RAISE, 0.6) and range_row(4, RAISE, 0.2) != range_row(4, CALL, 0.2)
    # Flat densities: the table is left as it was.
    m.new_hand(["v"], 0, densities={"v": np.ones((N_ROWS, N_BINS))})
    m.observe("v", RAISE, (0.0, 0.7, 0.3), 0, 3, 4)
    np.testing.assert_allclose(m.tables["v"], prior)


def _stores(tmp_path):
    db = Database(tmp_path / "ranges.sqlite")
    return [MemoryModelStore(), db], db


def test_both_stores_keep_the_same_decayed_counts_once_per_hand(tmp_path) -> None:
    stores, db = _stores(tmp_path)
    try:
        hands = [("h1", "a", [(0, 3), (9, 7)]), ("h2", "a", [(0, 3)]), ("h3", "b", [(23, 9)]),
                 ("h1", "a", [(5, 5)])]  # h1 of a again: a second seat's report, ignored
        for store in stores:
            for hand, nick, obs in hands:
                store.add_range_counts(nick, "irc", hand, obs)
            with pytest.raises(ValueError):
                store.add_range_counts("a", "irc", "h9", [(N_ROWS, 0)])
            with pytest.raises(ValueError):
                store.add_range_counts("a", "irc", "h10", [(0, N_BINS)])
        ka, kp = 0.5 ** (1 / PLAYER_HALF_LIFE), 0.5 ** (1 / POPULATION_HALF_LIFE)
        a_own = np.zeros((N_ROWS, N_BINS))
        a_own[0, 3] = ka + 1.0  # two showdowns: the first aged by one
        a_own[9, 7] = ka
        pop = np.zeros((N_ROWS, N_BINS))
        pop[0, 3] = kp * kp + kp
        pop[9, 7] = kp * kp
        pop[23, 9] = 1.0
        for store in stores:
            own, population = store.range_counts("a", "irc")
            np.testing.assert_allclose(own.counts, a_own)
            assert own.showdowns == pytest.approx(ka + 1.0)
            np.testing.assert_allclose(population.counts, pop)
            assert store.range_counts("nobody", "irc")[0].showdowns == 0.0
            assert store.range_counts("a", "other")[1].showdowns == 0.0
        db.close()
        with Database(tmp_path / "ranges.sqlite") as again:  # kept in the file
            np.testing.assert_allclose(again.range_counts("a", "irc")[0].counts, a_own)
            again.db.conn.execute("UPDATE ranges SET counts = ? WHERE nick = 'b'", (b"\x00" * 5,))
            with pytest.raises(ValueError):
                again.range_counts("b", "irc")
    finally:
        db.close()


def test_range_score_of_a_hand_uniform_is_the_count_of_possible_holdings() -> None:
    """A hand that went to the river with two holdings shown: uniform's score is
    −ln C(52 − k, 2) at each street (k board cards), every model scores both holdings at
    every street, and the showdown is learned: one bin per call, check, bet or raise each
    shown player made (counted here from the record), and its off-model counts."""
    from agent.bench.synthetic import synthetic_hands
    from agent.game.prepared import prepare_hand
    from agent.game.records import ACTION_CLASS
    from agent.play.offline.range_score import RangeScorer

    record = next(r for r in synthetic_hands(400, seed=7) if len(r.board) == 5 and len(r.shown) == 2)
    prepared = prepare_hand(record, "irc")
    store = MemoryModelStore()
    scorer = RangeScorer(store)
    triples = [(0.2, 0.5, 0.3)] * len(prepared.observations)
    scorer.observe(record, prepared, "irc", triples)
    rep = scorer.report()
    assert rep["shown_holdings"] == 2
    expect = [-math.log(math.comb(52 - k, 2)) for k in (0, 3, 4, 5)]
    for street, e in zip(("preflop", "flop", "turn", "river"), expect):
        assert rep["uniform"]["by_street"][street]["log_likelihood"] == pytest.approx(e)
        for m in rep["models"]:
            assert rep[m]["by_street"][street]["count"] == 2
    assert rep["uniform"]["log_likelihood"] == pytest.approx(sum(expect) / 4)
    for s in record.shown:
        acts = [a for a in record.actions if a.player == s.player and a.kind in ("k", "c", "b", "r")]
        own, _ = store.range_counts(s.player, "irc")
        assert own.counts.sum() == len(acts)
        raises = sum(1 for a in acts if ACTION_CLASS[a.kind] == RAISE)
        assert sum(own.counts[r].sum() for r in range(N_ROWS) if is_raise_row(r)) == raises
        off = store.off_model(s.player, "irc")
        assert off.raises == raises and off.calls == len(acts) - raises


@pytest.mark.slow
def test_replay_predict_reports_ranges_on_the_real_logs(tmp_path, capsys) -> None:
    """Half a day of the April 1995 logs through ``poki replay --predict --json``: every model
    has a range score with the same count; uniform's is the mean of −ln C(52 − k, 2) over
    the scored streets (computed here from the counts per street); the file then holds
    learned ranges for the players who showed down."""
    from agent.cli import main
    from tests.shared_data import DATA

    if DATA is None:
        pytest.skip("the shared April 1995 logs are not here")
    path = tmp_path / "day.sqlite"
    rc = main(["replay", str(DATA), "--db", str(path), "--predict", "--json", "--no-progress",
               "--since", "1995-04-10", "--until", "1995-04-10T12:00"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    ranges = out["prediction"]["ranges"]
    assert ranges["shown_holdings"] > 100
    counts = {m: ranges[m]["count"] for m in ranges["models"]}
    assert len(set(counts.values())) == 1 and "uniform" in counts
    by = ranges["uniform"]["by_street"]
    expect = sum(by[s]["count"] * -math.log(math.comb(52 - k, 2))
                 for s, k in zip(("preflop", "flop", "turn", "river"), (0, 3, 4, 5))) / counts["uniform"]
    assert ranges["uniform"]["log_likelihood"] == pytest.approx(expect)
    with Database(path) as db:
        rows = db.db.conn.execute("SELECT COUNT(*), SUM(showdowns) FROM ranges WHERE nick != ''").fetchone()
    assert rows[0] > 10


def test_poki_with_learned_ranges_learns_them_in_the_sqlite_store(tmp_path, monkeypatch) -> None:
    """A match with reweight=learned and a SQLite file (the real dealer and runner): the
    opponents' shown-down holdings leave range counts in the file, at most one per action
    they took in the hands they showed down; the next match's Poki reads them."""
    path = tmp_path / "m.sqlite"
    specs = ("poki(bettor=triples,reweight=learned)", "call", "raise")

    def setup(name, seed):
        return TournamentSetup.from_text(specs, TableConfig(seats=3), seed, chunk=5, name=name, db=str(path),
                                         half_life=500.0)

    first = run_tournament(setup("warm", 5), 10)
    with Database(path) as db:
        conn = db.db.conn
        learned = {}
        for n in first.names:
            own, _ = db.range_counts(n, "local")
            shown = conn.execute(
                "SELECT COUNT(*) FROM actions a JOIN showdowns s ON s.hand = a.hand AND s.player = a.player "
                "JOIN aliases al ON al.player = a.player WHERE al.nick = ? AND a.kind IN ('c','k','b','r')",
                (n,)).fetchone()[0]
            learned[n] = own.counts.sum()
            assert learned[n] <= shown
    caller = next(n for n in first.names if n.startswith("call"))
    assert learned[caller] > 0
    read: list[dict] = []
    real = PokiPlayer._range_densities

    def spy(self, opponents):
        out = real(self, opponents)
        read.append(out)
        return out

    with Database(path) as db:
        stored = densities(*db.range_counts(caller, "local"))
    monkeypatch.setattr(PokiPlayer, "_range_densities", spy)
    run_tournament(setup("measured", 6), 1)
    np.testing.assert_allclose(read[0][caller], stored)
    assert not np.allclose(stored, 1.0)


def test_reweight_learned_is_a_setting_of_the_engine() -> None:
    p = PokiPlayer("me", np.random.default_rng(0), EngineConfig(reweight="learned"))
    assert "re-weighting learned (floor none: ranges learned" in p.describe()
    np.testing.assert_allclose(p._range_densities(["a"])["a"], np.ones((N_ROWS, N_BINS)))


def test_a_file_from_before_the_ranges_gains_their_table(tmp_path) -> None:
    """A database made before migration m008 is brought up to date when opened: its
    hands untouched, the ranges table there and empty."""
    import sqlite3

    from agent.bench.synthetic import synthetic_hands

    path = tmp_path / "old.sqlite"
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(30, seed=4)), "irc")
        hands = database.hand_count()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE ranges")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm008_ranges'")
    conn.commit()
    conn.close()
    with Database(path) as database:
        assert database.hand_count() == hands
        assert "m008_ranges" in database.migrations_applied()
        assert database.range_counts("x", "irc")[0].showdowns == 0.0
        assert database.add_range_counts("x", "irc", "h1", [(3, 4)])
        assert database.range_counts("x", "irc")[0].counts[3, 4] == 1.0
