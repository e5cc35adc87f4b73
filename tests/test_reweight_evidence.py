"""Re-weighting as evidence ([poki-2002]: the old weight table is the prior, the new one the
posterior; [loki2-1999] §4: each weight times the probability of the observed action): the
floor bounds what one action says about a holding, so the evidence of several actions
compounds. Checked on hand-built tables against Bayes' rule computed directly, and against
what an opponent who bets exactly its top x% can hold."""
from __future__ import annotations

import numpy as np
import pytest

from agent.engine.modeler import (
    CALL,
    RAISE,
    OpponentModeler,
    apply_action,
    loki1_multipliers,
    reweight,
    weighted_quantile,
)

FLOOR = 0.01
N = 1326
# Distinct strengths 0..1, so "the top x%" of a table is a clean cut.
STRENGTH = (np.arange(N) + 0.5) / N


@pytest.mark.parametrize("rule", ["loki1", "triples"])
@pytest.mark.parametrize("x", [0.1, 0.3])
def test_bet_with_exactly_the_top_x(rule: str, x: float) -> None:
    """An opponent that bets exactly with the top x of its table (and nothing else) bets:
    the table's mass on the rest (below the cut) is at most what Bayes' rule gives when
    each of those holdings bets with probability FLOOR: floor·rest / (floor·rest + top).
    (The one holding at the cut itself gets half, Papp's value at mu.)"""
    rng = np.random.default_rng(7)
    prior = rng.uniform(0.05, 1.0, N)  # whatever earlier actions left
    cut = weighted_quantile(STRENGTH, prior, 1.0 - x)
    freq = (0.0, 1.0 - x, x)
    # A band of width ~0 so the rule's threshold is a step (sigma/width are ramps).
    after = reweight(prior, STRENGTH, freq, RAISE, rule, sigma=1e-9, width=1e-9, mix=0.0, floor=FLOOR)
    below, above = STRENGTH < cut, STRENGTH > cut
    rest, top = prior[below].sum(), prior[above].sum()
    bound = FLOOR * rest / (FLOOR * rest + top)
    rest_share = after[below].sum() / after.sum()
    assert rest_share <= bound * (1 + 1e-9)
    # The rest is multiplied by the floor, not removed, and the top is kept whole.
    np.testing.assert_allclose(after[below], FLOOR * prior[below], rtol=1e-12)
    np.testing.assert_allclose(after[above], prior[above], rtol=1e-12)


def test_three_bets_compound_like_bayes() -> None:
    """Bets on the flop, turn and river by an opponent whose top x% bets each time: the
    posterior from the rule equals prior × Π P(action | holding) computed directly, the
    likelihood of a bet being 1 for a holding above that round's cut, FLOOR below it and
    one half at it (Papp) — so a holding that fits no bet ends at FLOOR³ of one that fits
    all three."""
    rng = np.random.default_rng(11)
    prior = rng.uniform(0.2, 1.0, N)
    w = prior.copy()
    likelihood = np.ones(N)
    for x in (0.5, 0.4, 0.3):
        # Each round re-ranks the holdings (a new card), here a seeded permutation.
        strength = rng.permutation(STRENGTH)
        cut = weighted_quantile(strength, w, 1.0 - x)
        likelihood *= np.where(strength > cut, 1.0, np.where(strength < cut, FLOOR, (1 + FLOOR) / 2))
        w = reweight(w, strength, (0.0, 1.0 - x, x), RAISE, "loki1", sigma=1e-9, floor=FLOOR)
    posterior = prior * likelihood
    np.testing.assert_allclose(w / w.sum(), posterior / posterior.sum(), rtol=1e-9)
    assert likelihood.min() == pytest.approx(FLOOR ** 3)


def test_weight_floor_would_keep_most_mass_on_misfits() -> None:
    """The case the evidence floor is for, worked by hand: 1,000 holdings, 30 of them fit
    every action so far but carry in-band factors (weight 0.2 each: 6 in all); the other
    970 failed an earlier action (0.01 each: 9.7). Now a bet that only the 30 make: a floor
    on the weight would leave the 970 at 0.01 (62% of the table); as evidence, the bet
    takes them to 0.01 × 0.01 (0.097 against 6: 1.6%)."""
    w = np.full(1000, 0.01)
    w[:30] = 0.2
    strength = np.linspace(0.0, 0.5, 1000)
    strength[:30] = np.linspace(0.9, 1.0, 30)
    after = apply_action(w, loki1_multipliers(strength, mu=0.7, sigma=1e-9, floor=FLOOR), FLOOR)
    misfit_share = after[30:].sum() / after.sum()
    assert misfit_share == pytest.approx(970 * 1e-4 / (970 * 1e-4 + 6.0))
    assert misfit_share < 0.02


def test_calls_compound_in_the_modeler() -> None:
    """Through OpponentModeler.observe: two calls facing a bet by an opponent that folds
    half the time there. Each call multiplies the bottom half of the table by the floor;
    the second call's cut is the median of the table the first left (nearly all its
    weight on the top half, so the cut moves up to the top half's middle). A holding
    below both cuts ends at FLOOR² of one above both, where a floor on the weight would
    have left it at FLOOR."""
    m = OpponentModeler("loki1", sigma=1e-9, floor=FLOOR, potential=False)
    m.tables = {"v": np.ones(N)}
    # Stand in for the board's strengths: the same ranking on both calls.
    m.strengths = lambda board, players: STRENGTH  # type: ignore[method-assign]  # a test double
    m.observe("v", CALL, (0.5, 0.3, 0.2), board_mask=0, players=2)
    t = m.tables["v"]
    assert t[STRENGTH < 0.49].max() == pytest.approx(FLOOR * t[STRENGTH > 0.51].min())
    m.observe("v", CALL, (0.5, 0.3, 0.2), board_mask=0, players=2)
    t = m.tables["v"]
    top = t[STRENGTH > 0.76].min()
    assert t[STRENGTH < 0.49].max() == pytest.approx(FLOOR ** 2 * top)
    assert t[(STRENGTH > 0.51) & (STRENGTH < 0.74)].max() == pytest.approx(FLOOR * top)


def test_floor_on_weight_is_the_old_reading() -> None:
    """floor_on="weight" (kept to measure against): weights held at the floor itself, so a
    second failed action leaves a holding where the first put it."""
    w = np.array([1.0, 1.0])
    strength = np.array([0.0, 1.0])
    mult = loki1_multipliers(strength, mu=0.5, sigma=1e-9, floor=FLOOR)
    once = apply_action(w, mult, FLOOR, "weight")
    twice = apply_action(once, mult, FLOOR, "weight")
    assert twice.tolist() == pytest.approx([FLOOR, 1.0])
    assert apply_action(once, mult, FLOOR, "action").tolist() == pytest.approx([FLOOR ** 2, 1.0])
