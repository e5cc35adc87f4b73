"""The learned re-weighting floor (``floor_on = "learned"``, agent.engine.modeler): each
action's likelihood is the mixture (1 − ε) f(holding) + ε, ε per opponent and action class
the posterior mean of its off-model rate (the share of its shown-down calls or bets/raises
made with holdings the threshold model gave a factor below OFF_MODEL_FACTOR) under a Beta
prior of mean reweight_floor and EPS_PRIOR_STRENGTH pseudo-actions.

Checked against answers worked out independently of the code: Beta posteriors computed
by hand from a hand-built showdown history, the geometry of Papp's step/ramp for players
who bet exactly their top x% or at random, and Bayes' rule computed directly; and through
the real stores (in memory, a real SQLite file) and the real dealer."""
from __future__ import annotations

import numpy as np
import pytest

from agent.config import EngineConfig, TableConfig
from agent.engine.modeler import (
    CALL,
    EPS_PRIOR_STRENGTH,
    RAISE,
    OpponentModeler,
    learned_eps,
    off_model_counts,
    reweight,
    weighted_quantile,
)
from agent.engine.player import PokiPlayer
from agent.models.store import MemoryModelStore
from agent.play.offline.tournament import TournamentSetup, run_tournament
from db import Database

FLOOR = 0.01
N = 1326
STRENGTH = (np.arange(N) + 0.5) / N  # distinct strengths, so "the top x%" is a clean cut


def _modeler(sigma: float = 1e-9) -> OpponentModeler:
    m = OpponentModeler("loki1", sigma=sigma, floor=FLOOR, potential=False, floor_on="learned")
    m.tables = {"v": np.ones(N)}
    m.strengths = lambda board, players: STRENGTH  # type: ignore[method-assign]  # a test double
    return m


def test_prior_is_centred_on_the_floor() -> None:
    assert learned_eps(0, 0, FLOOR) == pytest.approx(FLOOR)
    with pytest.raises(ValueError):
        learned_eps(3, 4, FLOOR)
    with pytest.raises(ValueError):
        learned_eps(-1, 0, FLOOR)


def test_eps_from_a_hand_built_showdown_history_is_the_beta_posterior() -> None:
    """Four shown-down hands of one opponent through the modeler (Loki-1's rule, sigma ~0:
    f = 1 above the action's threshold, 0 below) and the memory store; the off-model
    actions worked out by hand (uniform strengths on (0, 1); after an action the holdings
    below its cut keep weight 0.01, the floor, as ε has not been learned yet):

    * hand 1, holding at strength ~0.95: raise with raise share 0.3 (cut 0.7: on); raise
      with share 0.2: the table left is 0.3 at weight 1 and 0.7 at 0.01 (0.307 in all), its
      0.8-quantile is 0.7 + (0.8·0.307 − 0.007) = 0.939: on — 2 raises, 0 off;
    * hand 2, holding ~0.2: call facing a bet with fold share 0.5 (cut 0.5: off), raise
      with share 0.3 (cut at the table's 0.7-quantile, above 0.5: off) — 1 call 1 off,
      1 raise 1 off;
    * hand 3, holding ~0.6: call, fold share 0.5 (cut 0.5: on); call again (the table's
      median is now 0.5 + (0.5·0.505 − 0.005) = 0.7475: off) — 2 calls, 1 off;
    * hand 4, holding ~0.95: a check (fold share 0): Loki-1's call threshold is the fold
      cut, the weakest holding, so nothing is off — 1 call, 0 off.

    So calls 4 seen, 2 off; raises 3 seen, 1 off: ε_call = (0.01·20 + 2) / (20 + 4),
    ε_raise = (0.01·20 + 1) / (20 + 3)."""
    store = MemoryModelStore()
    history = [
        (0.95, [(RAISE, (0.0, 0.7, 0.3)), (RAISE, (0.0, 0.8, 0.2))]),
        (0.2, [(CALL, (0.5, 0.3, 0.2)), (RAISE, (0.0, 0.7, 0.3))]),
        (0.6, [(CALL, (0.5, 0.3, 0.2)), (CALL, (0.5, 0.3, 0.2))]),
        (0.95, [(CALL, (0.0, 0.5, 0.5))]),
    ]
    for hand, (s, actions) in enumerate(history):
        m = _modeler()
        for action, freq in actions:
            m.observe("v", action, freq, board_mask=0, players=2)
        holding = int(np.searchsorted(STRENGTH, s))
        assert store.add_off_model("v", "local", f"h{hand}", off_model_counts(m.factors["v"], holding))
    n_c, k_c, n_r, k_r = store.off_model("v", "local")
    assert (n_c, k_c, n_r, k_r) == (4, 2, 3, 1)
    s = EPS_PRIOR_STRENGTH
    assert learned_eps(n_c, k_c, FLOOR) == pytest.approx((FLOOR * s + 2) / (s + 4))
    assert learned_eps(n_r, k_r, FLOOR) == pytest.approx((FLOOR * s + 1) / (s + 3))
    # A second seat reporting the same showdown adds nothing; counts that are not counts
    # are refused with the player and hand named.
    assert not store.add_off_model("v", "local", "h0", (2, 0, 0, 0))
    assert store.off_model("v", "local") == (4, 2, 3, 1)
    with pytest.raises(ValueError, match="'v' in h9"):
        store.add_off_model("v", "local", "h9", (1, 2, 0, 0))
    with pytest.raises(ValueError):
        store.add_off_model("v", "local", "h10", (float("nan"), 0, 0, 0))
    assert store.off_model("v", "local") == (4, 2, 3, 1)


def _bettor_history(rng: np.random.Generator, hands: int, bets: float, *, exact: bool,
                    sigma: float) -> tuple[float, float]:
    """`hands` shown-down hands of an opponent that bets a share `bets` of the time, either
    exactly with the top `bets` of its (uniform) table or at random whatever it holds; the
    model is told its true raise share. Returns (bets counted, off-model)."""
    store = MemoryModelStore()
    for hand in range(hands):
        holding = int(rng.integers(N))
        if exact:
            # Dealt from its range: only hands that bet are seen betting.
            holding = int(rng.integers(int(np.ceil((1.0 - bets) * N)), N))
        m = _modeler(sigma)
        m.observe("v", RAISE, (0.0, 1.0 - bets, bets), board_mask=0, players=2)
        store.add_off_model("v", "local", str(hand), off_model_counts(m.factors["v"], holding))
    n_c, _, n_r, k_r = store.off_model("v", "local")
    assert n_c == 0 and n_r == hands
    return n_r, k_r


@pytest.mark.parametrize("bets", [0.1, 0.3])
def test_exact_top_x_bettor_drives_eps_to_the_floor(bets: float) -> None:
    """Every bet from the top `bets` of the table: none off-model, so ε is the prior's
    floor (the posterior mean 0.2/(20 + n) falls below it)."""
    n, k = _bettor_history(np.random.default_rng(3), 500, bets, exact=True, sigma=0.1)
    assert k == 0
    assert learned_eps(n, k, FLOOR) == FLOOR


def test_random_bettor_drives_eps_to_its_true_off_model_rate() -> None:
    """An opponent that bets 30% of the time whatever it holds: the model's cut is the 0.7
    quantile μ, Papp's ramp is below 0.1 for strengths under μ − 0.8σ, so with strengths
    uniform on (0, 1) the true off-model share of its bets is 0.7 − 0.08 = 0.62. Over 2,000
    shown bets the learned ε is within 0.04 of it (binomial sd 0.011)."""
    sigma = 0.1
    true_rate = (1.0 - 0.3) - 0.8 * sigma  # μ − σ + 2σ·OFF_MODEL_FACTOR
    assert true_rate == pytest.approx(0.62)
    n, k = _bettor_history(np.random.default_rng(4), 2000, 0.3, exact=False, sigma=sigma)
    assert abs(learned_eps(n, k, FLOOR) - true_rate) < 0.04


def test_reweighting_with_eps_is_bayes_with_the_mixture() -> None:
    """A call facing a bet and two bets, ε_call = 0.05 and ε_raise = 0.2: the table after
    them equals prior × Π((1 − ε) f + ε) computed directly, f Papp's step (1 above the
    round's cut, 0 below, ½ at it) — and a holding that fitted none of the three ends at
    0.05 · 0.2² of one that fitted all."""
    rng = np.random.default_rng(12)
    prior = rng.uniform(0.2, 1.0, N)
    m = _modeler()
    m.tables = {"v": prior.copy()}
    m.eps = {"v": (0.05, 0.2)}
    likelihood = np.ones(N)
    w = prior.copy()
    for action, freq, eps in ((CALL, (0.4, 0.4, 0.2), 0.05), (RAISE, (0.0, 0.6, 0.4), 0.2),
                              (RAISE, (0.0, 0.7, 0.3), 0.2)):
        strength = rng.permutation(STRENGTH)  # each round re-ranks the holdings
        m.strengths = lambda board, players, s=strength: s  # type: ignore[method-assign]  # a test double
        cut = weighted_quantile(strength, w, freq[0] if action == CALL else 1.0 - freq[2])
        f = np.where(strength > cut, 1.0, np.where(strength < cut, 0.0, 0.5))
        likelihood *= (1.0 - eps) * f + eps
        m.observe("v", action, freq, board_mask=0, players=2)
        w = prior * likelihood
    got = m.tables["v"]
    np.testing.assert_allclose(got / got.sum(), w / w.sum(), rtol=1e-9)
    assert likelihood.min() / likelihood.max() == pytest.approx(0.05 * 0.2 * 0.2)
    # The same through reweight(): floor is ε when floor_on = "learned".
    one = reweight(prior, STRENGTH, (0.0, 0.6, 0.4), RAISE, "loki1", sigma=1e-9, floor=0.2, floor_on="learned")
    cut = weighted_quantile(STRENGTH, prior, 0.6)
    np.testing.assert_allclose(one[STRENGTH < cut], 0.2 * prior[STRENGTH < cut])
    np.testing.assert_allclose(one[STRENGTH > cut], prior[STRENGTH > cut])


def test_a_player_without_history_reads_the_floor() -> None:
    """No counts yet: the player's ε for every opponent is reweight_floor, so the learned
    rule starts as floor_on = "action" does (compounding, Papp's 0.01)."""
    p = PokiPlayer("me", np.random.default_rng(0), EngineConfig(floor_on="learned"))
    assert p._learned_eps(["a", "b"]) == {"a": (FLOOR, FLOOR), "b": (FLOOR, FLOOR)}


def test_damaged_counts_read_as_the_floor() -> None:
    """A store whose counts are not counts (more off-model actions than actions, a
    negative or a missing number): that opponent reads the floor, the others their own
    ε, and the bad ones are counted; play goes on."""

    class Damaged(MemoryModelStore):
        def off_model(self, nick: str, network: str):
            return {"a": (2.0, 5.0, 0.0, 0.0), "b": (-1.0, 0.0, 0.0, 0.0), "c": (1.0, 0.0)}.get(
                nick, (10.0, 5.0, 4.0, 0.0))

    p = PokiPlayer("me", np.random.default_rng(0), EngineConfig(floor_on="learned"), store=Damaged())
    got = p._learned_eps(["a", "b", "c", "d"])
    assert got["a"] == got["b"] == got["c"] == (FLOOR, FLOOR)
    assert got["d"] == (pytest.approx((FLOOR * EPS_PRIOR_STRENGTH + 5) / (EPS_PRIOR_STRENGTH + 10)), FLOOR)
    assert p.bad_off_model == 3


SPECS = ("poki(bettor=triples,floor_on=learned)", "call", "raise")


def _setup(path, name: str, seed: int) -> TournamentSetup:
    return TournamentSetup.from_text(SPECS, TableConfig(seats=3), seed, chunk=5, name=name,
                                     db=str(path), half_life=500.0)


def test_counts_live_in_the_sqlite_store_and_carry_over(tmp_path, monkeypatch) -> None:
    """A match with a SQLite file (the real dealer and runner) leaves each opponent's
    off-model counts in it, bounded by the actions that opponent took in the stored
    hands it showed down; a second match's Poki seat starts its first hand with ε read
    from them; reopening the file reads the same counts."""
    path = tmp_path / "models.sqlite"
    first = run_tournament(_setup(path, "warm", 5), 10)
    with Database(path) as db:
        counts = {n: db.off_model(n, "local") for n in first.names}
        conn = db.db.conn
        shown_acts = {}
        for n in first.names:
            # Calls/checks and bets/raises of this player in hands where it showed cards.
            row = conn.execute(
                "SELECT COUNT(*) FROM actions a JOIN showdowns s ON s.hand = a.hand AND s.player = a.player "
                "JOIN aliases al ON al.player = a.player WHERE al.nick = ? AND a.kind IN ('c','k','b','r')",
                (n,)).fetchone()
            shown_acts[n] = row[0]
    caller = next(n for n in first.names if n.startswith("call"))
    poki = next(n for n in first.names if n.startswith("poki"))
    assert counts[poki] == (0.0, 0.0, 0.0, 0.0)  # nobody counts Poki here: no learned seat sees it
    assert counts[caller][0] > 0  # the caller shows down calls
    for n in first.names:
        n_c, k_c, n_r, k_r = counts[n]
        assert 0 <= k_c <= n_c and 0 <= k_r <= n_r
        assert n_c + n_r <= shown_acts[n]

    read: list[dict] = []
    real = PokiPlayer._learned_eps

    def spy(self, opponents):
        out = real(self, opponents)
        read.append(out)
        return out

    monkeypatch.setattr(PokiPlayer, "_learned_eps", spy)
    run_tournament(_setup(path, "measured", 6), 1)
    assert read[0][caller] == (learned_eps(counts[caller][0], counts[caller][1], FLOOR),
                               learned_eps(counts[caller][2], counts[caller][3], FLOOR))
    with Database(path) as db:
        again = db.off_model(caller, "local")
        assert again[0] >= counts[caller][0]
        with pytest.raises(ValueError):
            db.add_off_model(caller, "local", "bad", (1.0, 2.0, 0.0, 0.0))
        assert db.off_model(caller, "local") == again


def test_a_file_from_before_the_counts_gains_their_table(tmp_path) -> None:
    """A database made before migration m005 is brought up to date when opened: its hands
    and models untouched, the off-model table there and empty."""
    import sqlite3

    from sqlite_utils import Database as SUDatabase

    from agent.bench.synthetic import synthetic_hands
    from db import schema

    path = tmp_path / "old.sqlite"
    with Database(path) as database:
        database.write_hands(list(synthetic_hands(40, seed=3)), "irc")
        nick = database.most_seen_players(1)[0][1]
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE off_model")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_off_model'")
    conn.commit()
    conn.close()
    assert schema.pending(SUDatabase(path)) == ["m005_off_model"]
    with Database(path) as database:
        assert database.hand_count() == 40
        assert database.off_model(nick, "irc") == (0.0, 0.0, 0.0, 0.0)
        assert database.add_off_model(nick, "irc", "h", (3, 1, 2, 0))
        assert database.off_model(nick, "irc") == (3.0, 1.0, 2.0, 0.0)
        assert database.compare_models() == []
