"""The balanced accuracy at every threshold: posterior, exact and simultaneous bands against
independent computations, and the honest best threshold."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from scipy import integrate, stats

import bacc
from bacc.threshold_curve import CRITERIA


def _data(seed: int, n0: int = 120, n1: int = 40, shift: float = 1.0, decimals: int | None = 1):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n0, n1])
    s = rng.normal(shift * y, 1.0)
    if decimals is not None:
        s = np.round(s, decimals)
    return y, s


def _ba_cdf(x, a1, b1, a2, b2):
    """P((X + Y) / 2 <= x) for independent Betas, by adaptive quadrature (independent of bacc's
    sums of Betas)."""
    f = lambda u: stats.beta.pdf(u, a1, b1) * stats.beta.cdf(2 * x - u, a2, b2)  # noqa: E731
    lo, hi = max(0.0, 2 * x - 1), min(1.0, 2 * x)
    v, _ = integrate.quad(f, lo, hi, epsabs=1e-13, epsrel=1e-12, limit=200)
    # where 2x - u >= 1 the second Beta's CDF is 1
    return v + (stats.beta.cdf(2 * x - 1, a1, b1) if 2 * x > 1 else 0.0)


def test_sample_values_and_posterior_mean_in_closed_form():
    y, s = _data(0)
    sc = bacc.scores(y, s)
    cur = sc.curve(points="all")
    P, N = 40, 120
    assert cur.n_thresholds == len(sc.thresholds) == len(cur.thresholds)
    np.testing.assert_array_equal(cur.thresholds, sc.thresholds)
    np.testing.assert_allclose(cur.balanced_accuracy, sc.balanced_accuracy, atol=1e-15)
    want = 0.5 * ((sc.tp + 1) / (P + 2) + (N - sc.fp + 1) / (N + 2))
    np.testing.assert_allclose(cur.mean, want, rtol=0, atol=1e-14)
    assert cur.best == int(np.argmax(want))


def test_credible_band_against_quadrature():
    y, s = _data(1)
    sc = bacc.scores(y, s)
    cur = sc.curve(points="all", confidence=0.9)
    P, N = 40, 120
    for j in (1, len(cur.thresholds) // 3, cur.best, len(cur.thresholds) - 2):
        tp, fp = int(sc.tp[j]), int(sc.fp[j])
        args = (tp + 1, P - tp + 1, N - fp + 1, fp + 1)
        assert _ba_cdf(cur.lower[j], *args) == pytest.approx(0.05, abs=1e-8)
        assert _ba_cdf(cur.upper[j], *args) == pytest.approx(0.95, abs=1e-8)


def test_exact_pointwise_bounds_are_clopper_pearson():
    y, s = _data(2)
    sc = bacc.scores(y, s)
    cur = sc.curve(points="all")
    P, N = 40, 120
    for j in (1, 5, cur.best, len(cur.thresholds) - 3):
        tp, tn = int(sc.tp[j]), N - int(sc.fp[j])
        lo = stats.beta.ppf(0.025, tp, P - tp + 1) if tp > 0 else 0.0
        hi = stats.beta.isf(0.025, tp + 1, P - tp) if tp < P else 1.0
        assert cur.sensitivity_lower[j] == pytest.approx(lo, abs=1e-10)
        assert cur.sensitivity_upper[j] == pytest.approx(hi, abs=1e-10)
        lo = stats.beta.ppf(0.025, tn, N - tn + 1) if tn > 0 else 0.0
        assert cur.specificity_lower[j] == pytest.approx(lo, abs=1e-10)
        # union bound: each class at 1 - (1 - 0.95) / 2 two-sided
        lo_s = stats.beta.ppf(0.0125, tp, P - tp + 1) if tp > 0 else 0.0
        lo_e = stats.beta.ppf(0.0125, tn, N - tn + 1) if tn > 0 else 0.0
        assert cur.exact_lower[j] == pytest.approx(0.5 * (lo_s + lo_e), abs=1e-10)


def test_simultaneous_band_width_is_the_exact_kolmogorov_quantile():
    y, s = _data(3)
    cur = bacc.scores(y, s).curve(points="all")
    each = math.sqrt(0.95)
    dP, dN = stats.kstwo.ppf(each, 40), stats.kstwo.ppf(each, 120)
    mid = (cur.sensitivity > dP) & (cur.sensitivity < 1 - dP)
    np.testing.assert_allclose((cur.sensitivity - cur.band_sensitivity_lower)[mid], dP, atol=1e-9)
    mid = (cur.specificity > dN) & (cur.specificity < 1 - dN)
    np.testing.assert_allclose((cur.band_specificity_upper - cur.specificity)[mid], dN, atol=1e-9)
    np.testing.assert_allclose(cur.band_lower,
                               0.5 * (cur.band_sensitivity_lower + cur.band_specificity_lower))


def test_simultaneous_band_covers_the_whole_true_curve():
    """Binormal scores: the true sensitivity and specificity at every threshold shown inside the
    band in at least 95 % of test sets (within Monte Carlo error)."""
    rng = np.random.default_rng(4)
    n_sim, hits = 600, 0
    for _ in range(n_sim):
        y = np.repeat([0, 1], [60, 25])
        s = rng.normal(1.0 * y, 1.0)
        cur = bacc.scores(y, s).curve(points="all")
        t = cur.thresholds
        sens = stats.norm.sf(t - 1.0)
        spec = stats.norm.cdf(t)
        ok = (np.all(sens >= cur.band_sensitivity_lower - 1e-12)
              and np.all(sens <= cur.band_sensitivity_upper + 1e-12)
              and np.all(spec >= cur.band_specificity_lower - 1e-12)
              and np.all(spec <= cur.band_specificity_upper + 1e-12))
        hits += ok
    cov = hits / n_sim
    assert cov >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / n_sim)


def test_points_keep_the_ends_and_the_best():
    y, s = _data(5, n0=3000, n1=1000, decimals=None)
    sc = bacc.scores(y, s)
    cur = sc.curve(points=101)
    assert 101 <= len(cur.thresholds) <= 104 and cur.n_thresholds == 4001
    assert cur.thresholds[0] == np.inf and cur.thresholds[-1] == s.min()
    full = sc.curve(points="all")
    assert cur.best_threshold == full.best_threshold
    assert np.all(np.diff(cur.thresholds) < 0)
    with pytest.raises(bacc.BaccError, match="points"):
        sc.curve(points="some")
    with pytest.raises(bacc.BaccError, match="points"):
        sc.curve(points=1)


def test_curve_travels():
    cur = bacc.scores(*_data(6)).curve()
    d = json.loads(json.dumps(cur.to_dict(), allow_nan=False))
    assert d["thresholds"][0] is None and d["n_thresholds"] == cur.n_thresholds
    back = pickle.loads(pickle.dumps(cur))
    np.testing.assert_array_equal(back.lower, cur.lower)


# ------------------------------------------------------------------------ best threshold
@pytest.mark.parametrize("criterion", sorted(CRITERIA))
def test_best_threshold_maximises_its_criterion(criterion):
    y, s = _data(7)
    sc = bacc.scores(y, s)
    best = sc.best_threshold(criterion=criterion, repeats=2)
    cur = sc.curve(points="all")
    value = {"mean": cur.mean, "lower": cur.lower, "sample": cur.balanced_accuracy}[criterion]
    j = int(np.flatnonzero(cur.thresholds == best.threshold)[0])
    assert value[j] == pytest.approx(value.max(), abs=1e-12)
    assert best.in_sample_balanced_accuracy == pytest.approx(cur.balanced_accuracy[j], abs=1e-15)


def test_crossfit_deals_every_example_once_and_is_seeded():
    y, s = _data(8)
    sc = bacc.scores(y, s)
    a = sc.best_threshold(random_state=3, repeats=4)
    b = sc.best_threshold(random_state=3, repeats=4)
    assert a.honest_balanced_accuracy == b.honest_balanced_accuracy
    cm = np.asarray(a.honest.confusion.counts)
    assert cm.sum(axis=1).tolist() == [120, 40]  # every example evaluated once
    assert a.optimism == pytest.approx(a.in_sample_balanced_accuracy - a.honest_balanced_accuracy)


def test_choosing_on_the_test_set_is_optimistic_and_crossfit_is_not():
    """No signal at all: the true balanced accuracy of every threshold is 0.5. Choosing on the
    test set reports more; the cross-fitted estimate is 0.5 on average."""
    rng = np.random.default_rng(9)
    ins, hon = [], []
    for _ in range(60):
        y = np.repeat([0, 1], [40, 40])
        s = rng.normal(size=80)
        best = bacc.scores(y, s).best_threshold(criterion="sample", folds=4, repeats=2,
                                                random_state=rng)
        ins.append(best.in_sample_balanced_accuracy)
        hon.append(best.honest_balanced_accuracy)
    assert np.mean(ins) > 0.55  # the winner's curse: about 0.57 here
    se = np.std(hon, ddof=1) / math.sqrt(len(hon))
    assert abs(np.mean(hon) - 0.5) < 4 * se + 0.005


def test_split_evaluates_the_training_threshold_on_held_out_examples():
    y, s = _data(10)
    sc = bacc.scores(y, s)
    best = sc.best_threshold(honest="split", test_size=0.25, random_state=0)
    cm = np.asarray(best.honest.confusion.counts)
    assert cm.sum(axis=1).tolist() == [30, 10]
    assert best.split_threshold is not None and best.repeats == 1 and best.honest_sd == 0.0


def test_best_threshold_bad_settings():
    sc = bacc.scores(*_data(11))
    for kw, match in [({"criterion": "max"}, "criterion"), ({"honest": "none"}, "honest"),
                      ({"folds": 1}, "folds"), ({"test_size": 1.0}, "test_size"),
                      ({"repeats": 0}, "repeats"), ({"random_state": -1}, "random_state")]:
        with pytest.raises(bacc.BaccError, match=match):
            sc.best_threshold(**kw)
    small = bacc.scores([0, 0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5])
    with pytest.raises(bacc.BaccError, match="folds"):
        small.best_threshold(folds=5)
