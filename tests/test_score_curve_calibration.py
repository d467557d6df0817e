"""Long simulations of the promises made about scores (full run only): guaranteed thresholds
over 20 000 test sets in three designs each, the simultaneous ROC band's coverage, and the
coverage of every AUC interval method on three small or imbalanced designs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc.roc import AUC_METHODS
from bacc.score_curve import ScoreCurve, tally

pytestmark = pytest.mark.slow

REPS = 20_000
CUTS = np.array([-0.5, 0.5, 1.5, 2.5])


def _rating_sf(t, mu: float) -> np.ndarray:
    """P(S >= t) at each threshold ``t`` of the rating design (scores 0..4)."""
    edges = np.concatenate([[-np.inf], CUTS, [np.inf]])
    p = np.diff(stats.norm.cdf(edges - mu))
    at_least = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])  # P(S >= j), j = 0..5
    j = np.nan_to_num(np.ceil(np.asarray(t, dtype=float)), nan=5.0)  # no threshold: nothing
    return at_least[np.clip(j, 0, 5).astype(int)]


#: design -> (draw(rng, n, positive?), P(S >= t | positive?) exactly, at an array of thresholds)
DESIGNS = {
    "binormal": (lambda rng, n, c: rng.normal(1.0 * c, 1.0, n),
                 lambda t, c: stats.norm.sf(t - 1.0 * c)),
    "rating (ties)": (lambda rng, n, c: np.searchsorted(CUTS, rng.normal(1.0 * c, 1.0, n))
                      .astype(float),
                      lambda t, c: _rating_sf(t, 1.0 * c)),
    "exponential (skewed)": (lambda rng, n, c: rng.exponential(1.0 + 2.0 * c, n),
                             lambda t, c: np.exp(-np.maximum(t, 0.0) / (1.0 + 2.0 * c))),
}


def _kept(target, goal, conf, design, n_pos, n_neg, seed):
    """Share of REPS test sets whose threshold keeps the promise in the population (the true
    rates at the thresholds are computed together, after the draws)."""
    draw, sf = DESIGNS[design]
    rng = np.random.default_rng(seed)
    codes = np.repeat([0, 1], [n_neg, n_pos])
    chosen = np.empty(REPS)
    for i in range(REPS):
        s = np.concatenate([draw(rng, n_neg, 0), draw(rng, n_pos, 1)])
        chosen[i] = ScoreCurve((0, 1), 1, *tally(codes, s, 1)).threshold_for(
            **{target: goal}, confidence=conf).threshold
    if target == "recall":
        return float(np.mean(sf(chosen, 1) >= goal - 1e-12))
    return float(np.mean(sf(chosen, 0) <= goal + 1e-12))


@pytest.mark.parametrize("design, n_pos, goal, conf", [
    ("binormal", 30, 0.9, 0.9), ("rating (ties)", 200, 0.8, 0.95),
    ("exponential (skewed)", 1000, 0.95, 0.95)])
def test_guaranteed_recall_keeps_its_promise(design, n_pos, goal, conf):
    share = _kept("recall", goal, conf, design, n_pos, 20, seed=n_pos)
    assert share >= conf - 3 * math.sqrt(conf * (1 - conf) / REPS), share


@pytest.mark.parametrize("design, n_neg, goal, conf", [
    ("binormal", 30, 0.2, 0.9), ("rating (ties)", 300, 0.1, 0.95),
    ("exponential (skewed)", 2000, 0.01, 0.95)])
def test_guaranteed_fpr_keeps_its_promise(design, n_neg, goal, conf):
    share = _kept("fpr", goal, conf, design, 20, n_neg, seed=n_neg)
    assert share >= conf - 3 * math.sqrt(conf * (1 - conf) / REPS), share


@pytest.mark.parametrize("n_pos, n_neg", [(15, 150), (60, 60)])
def test_simultaneous_roc_band_holds_the_true_curve(n_pos, n_neg):
    """Binormal: the true ROC, tpr = Phi(mu + Phi^-1(fpr)), inside the band at every point of the
    band's grid and between them (the band is a step function; checked on a fine grid)."""
    rng = np.random.default_rng(n_pos)
    codes = np.repeat([0, 1], [n_neg, n_pos])
    grid = np.linspace(0, 1, 2001)
    true_tpr = stats.norm.sf(stats.norm.isf(grid) - 1.0)
    n_sim, hits = 4000, 0
    for _ in range(n_sim):
        s = np.concatenate([rng.normal(0, 1, n_neg), rng.normal(1.0, 1, n_pos)])
        roc = ScoreCurve((0, 1), 1, *tally(codes, s, 1)).roc()
        j = np.searchsorted(roc.band_fpr, grid, side="right") - 1
        jl = np.searchsorted(roc.band_fpr, grid, side="left").clip(0, roc.band_fpr.size - 1)
        lo = roc.band_lower[j]
        hi = roc.band_upper[jl]
        hits += bool(np.all(true_tpr >= lo - 1e-12) and np.all(true_tpr <= hi + 1e-12))
    cov = hits / n_sim
    assert cov >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_sim), cov


@pytest.mark.parametrize("n_pos, n_neg, auc, dist", [
    (10, 100, 0.9, "binormal"), (30, 300, 0.8, "binormal"), (20, 40, 0.85, "rating")])
def test_auc_interval_coverage_on_small_and_imbalanced_designs(n_pos, n_neg, auc, dist):
    res = bacc.auc_coverage(tuple(AUC_METHODS), n_pos, n_neg, auc, distribution=dist,
                            n_simulations=2000, draws=1000, random_state=n_pos)
    for m in res.methods:
        assert 0.5 < m.coverage <= 1.0
    band = res["band"]
    assert band.coverage >= 0.95 - 3 * band.mc_se
