"""Exact frequentist bounds (bacc.intervals): the claims of Sandler & Dirac (2024), independent implementations,
huge classes, the union / Šidák / Buehler constructions, the binomial test of Brodersen et al. (2010)."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special as sc
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from bacc._engine.bounds.per_class import _cp_certified, per_bound_alpha
from bacc.confusion import ConfusionMatrix
from bacc.errors import BaccError, BaccWarning
from bacc.intervals import (
    Interval,
    class_intervals,
    clopper_pearson,
    exact_interval,
)
from bacc.significance import BinomialTest, binomial_test

# a matrix with 80 correct out of 100 (the example of Sandler & Dirac (2024)), two classes
CM_80_OF_100 = [[50, 10], [10, 30]]


# ----------------------------------------------------------------------------------------------
# the worked example of Sandler & Dirac (2024)
def test_seed004_upper_bound_n100_k80():
    lo, hi = clopper_pearson(80, 100, confidence=0.95, sides="upper")
    assert lo == 0.0
    assert round(hi, 3) == 0.863
    iv = exact_interval(CM_80_OF_100, confidence=0.95, metric="accuracy", sides="upper")
    assert iv.method == "clopper-pearson"
    assert round(iv.upper, 3) == 0.863 and iv.lower == 0.0 and iv.estimate == 0.8


def test_seed004_binomial_cdf_at_80_is_054_for_p080():
    assert round(stats.binom.cdf(80, 100, 0.80), 2) == 0.54


def test_seed004_binomial_cdf_at_80_is_0248_for_p083():
    assert round(stats.binom.cdf(80, 100, 0.83), 3) == 0.248


def test_seed004_binomial_cdf_at_80_is_005_at_the_bound():
    _, hi = clopper_pearson(80, 100, confidence=0.95, sides="upper")
    assert stats.binom.cdf(80, 100, hi) == pytest.approx(0.05, abs=1e-12)
    # and it is the largest such p: slightly above, the CDF drops below delta
    assert stats.binom.cdf(80, 100, hi + 1e-9) < 0.05


def test_seed004_bisection_of_the_binomial_cdf_agrees():
    # the search of Sandler & Dirac (2024) (iterative here), run to 1e-12 instead of 1e-6
    def binomial_upper_bound(n, k, delta):
        low, high = k / n, 1.0
        while high - low > 1e-12:
            mid = (low + high) / 2
            if stats.binom.cdf(k, n, mid) >= delta:
                low = mid
            else:
                high = mid
        return low

    for n, k in [(100, 80), (30, 9), (10, 0), (57, 56)]:
        assert clopper_pearson(k, n, confidence=0.95, sides="upper")[1] == pytest.approx(
            binomial_upper_bound(n, k, 0.05), abs=1e-10
        )


def test_seed004_lower_bound_is_the_upper_bound_on_the_errors():
    lo, _ = clopper_pearson(80, 100, confidence=0.95, sides="lower")
    _, hi_err = clopper_pearson(20, 100, confidence=0.95, sides="upper")
    assert lo == pytest.approx(1.0 - hi_err, abs=1e-14)


def test_seed004_central_interval_uses_half_delta_in_each_tail():
    lo2, hi2 = clopper_pearson(80, 100, confidence=0.95, sides="two")
    lo1, _ = clopper_pearson(80, 100, confidence=0.975, sides="lower")
    _, hi1 = clopper_pearson(80, 100, confidence=0.975, sides="upper")
    assert (lo2, hi2) == (lo1, hi1)


# ----------------------------------------------------------------------------------------------
# independent implementation (statsmodels, test-only dependency)
@pytest.mark.parametrize("n", [1, 2, 5, 17, 100, 1000])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_clopper_pearson_equals_statsmodels_beta_to_1e12(n, confidence):
    k = np.arange(n + 1)
    lo, hi = clopper_pearson(k, np.full(n + 1, n), confidence=confidence)
    sl, su = proportion_confint(k, n, alpha=1 - confidence, method="beta")
    np.testing.assert_allclose(lo, sl, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hi, su, rtol=0, atol=1e-12)


def test_k0_and_kn_give_bounds_0_and_1():
    assert clopper_pearson(0, 10)[0] == 0.0
    assert clopper_pearson(10, 10)[1] == 1.0
    lo, hi = clopper_pearson(0, 10, sides="upper")
    assert lo == 0.0 and hi == pytest.approx(1 - 0.05 ** (1 / 10), abs=1e-14)
    lo, hi = clopper_pearson(10, 10, sides="lower")
    assert hi == 1.0 and lo == pytest.approx(0.05 ** (1 / 10), abs=1e-14)


def test_empty_class_gets_bounds_0_and_1():
    cis = class_intervals(ConfusionMatrix([[5, 1], [0, 0]]))  # class 1 is only predicted
    assert (cis[1].lower, cis[1].upper) == (0.0, 1.0)
    assert not cis[1].included and math.isnan(cis[1].estimate)


# ----------------------------------------------------------------------------------------------
# huge classes: scipy's betaincinv is wrong there; bacc's bounds are checked against betainc
def test_class_with_1e9_examples_999999000_correct():
    n, k = 10**9, 999_999_000
    lo, hi = clopper_pearson(k, n, confidence=0.95)
    assert 0.0 < lo < k / n < hi < 1.0
    # the bounds solve the defining equations (Sandler & Dirac 2024) to high relative accuracy
    assert sc.betainc(k, n - k + 1, lo) == pytest.approx(0.025, rel=1e-8)
    assert sc.betaincc(k + 1, n - k, hi) == pytest.approx(0.025, rel=1e-8)
    # about +- 1.96 binomial standard deviations
    sd = math.sqrt(k / n * (1 - k / n) / n)
    assert (k / n - lo) / sd == pytest.approx(1.96, rel=0.05)
    assert (hi - k / n) / sd == pytest.approx(1.96, rel=0.05)


def test_balanced_accuracy_with_classes_of_1e9_examples():
    cm = [[999_999_000, 1_000], [2_000, 999_998_000]]
    iv = exact_interval(cm)
    assert iv.lower < iv.estimate < iv.upper
    for c in iv.per_class:
        a = 1.0 - iv.per_bound_confidence
        assert sc.betainc(c.correct, c.support - c.correct + 1, c.lower) == pytest.approx(
            a, rel=1e-8
        )
        assert sc.betaincc(c.correct + 1, c.support - c.correct, c.upper) == pytest.approx(
            a, rel=1e-8
        )


# ----------------------------------------------------------------------------------------------
# union bound and Šidák (Sandler & Dirac (2024), "Constructing the bound for balanced accuracy")
def test_seed004_union_bound_two_classes_uses_delta_over_4():
    cm = [[42, 3], [6, 4]]
    iv = exact_interval(cm, confidence=0.95)
    assert iv.method == "union" and iv.per_bound_confidence == pytest.approx(1 - 0.0125)
    lo = [clopper_pearson(k, n, confidence=1 - 2 * 0.0125)[0] for k, n in [(42, 45), (4, 10)]]
    hi = [clopper_pearson(k, n, confidence=1 - 2 * 0.0125)[1] for k, n in [(42, 45), (4, 10)]]
    assert iv.lower == pytest.approx(np.mean(lo), abs=1e-15)
    assert iv.upper == pytest.approx(np.mean(hi), abs=1e-15)
    assert iv.estimate == pytest.approx((42 / 45 + 4 / 10) / 2)


def test_union_bound_levels_for_l_classes():
    assert per_bound_alpha(0.95, 3, "two", "union") == pytest.approx(0.05 / 6)
    assert per_bound_alpha(0.95, 3, "lower", "union") == pytest.approx(0.05 / 3)
    iv = exact_interval([[8, 1, 1], [2, 7, 1], [0, 3, 7]], confidence=0.9, sides="lower")
    assert iv.per_bound_confidence == pytest.approx(1 - 0.1 / 3)
    assert iv.upper == 1.0


def test_sidak_levels_and_one_class_reduces_to_clopper_pearson():
    d = 0.05
    assert per_bound_alpha(0.95, 2, "two", "sidak") == pytest.approx((1 - (1 - d) ** 0.5) / 2)
    assert per_bound_alpha(0.95, 2, "lower", "sidak") == pytest.approx(1 - (1 - d) ** 0.5)
    # one class: a central 95% interval, 2.5% per tail (1 - (1 - d)^(1/(2l)) would give 2.53%,
    # i.e. 94.9% coverage: not valid)
    assert per_bound_alpha(0.95, 1, "two", "sidak") == pytest.approx(0.025)


def test_sidak_is_slightly_tighter_than_union():
    for cm in ([[42, 3], [6, 4]], [[8, 1, 1], [2, 7, 1], [0, 3, 7]]):
        u = exact_interval(cm, method="union")
        s = exact_interval(cm, method="sidak")
        assert u.lower < s.lower < s.estimate < s.upper < u.upper
        assert s.upper - s.lower > 0.99 * (u.upper - u.lower)


def test_interval_contains_estimate_and_is_symmetric_under_relabelling():
    cm = ConfusionMatrix([[42, 3, 1], [6, 4, 2], [1, 1, 9]])
    for method in ("union", "sidak"):
        a = exact_interval(cm, method=method)
        b = exact_interval(cm.relabel([2, 0, 1]), method=method)
        assert a.lower <= a.estimate <= a.upper
        assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), abs=1e-15)


def test_weighted_balanced_accuracy_averages_with_the_weights():
    cm = [[42, 3], [6, 4]]
    iv = exact_interval(cm, weights=[0.8, 0.2])
    lo = [c.lower for c in iv.per_class]
    assert iv.lower == pytest.approx(0.8 * lo[0] + 0.2 * lo[1])
    assert iv.weights == (0.8, 0.2)


def test_empty_class_is_dropped_with_a_warning_or_kept():
    cm = [[5, 1, 0], [2, 6, 0], [0, 0, 0]]
    with pytest.warns(BaccWarning, match="no true examples"):
        iv = exact_interval(cm)
    assert len(iv.weights) == 2 and not iv.per_class[2].included
    kept = exact_interval(cm, empty="keep")
    assert kept.upper > iv.upper and math.isnan(kept.estimate)
    # an evaluation's interval keeps or drops the class as the evaluation did (read from the
    # counts: the evaluation's per-class results, built on first use, stay unbuilt)
    import bacc

    for empty, ref in (("keep", kept), ("drop", iv)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaccWarning)
            ev = bacc.evaluate(cm, empty=empty)
        got = ev.exact_interval()
        assert (got.lower, got.upper, got.weights) == (ref.lower, ref.upper, ref.weights)
        assert "classes" not in vars(ev)
        assert ev.classes[2].included == (empty == "keep") and "classes" in vars(ev)


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(0, 300),
    extra=st.integers(0, 300),
    c1=st.floats(0.5, 0.98),
    c2=st.floats(0.5, 0.98),
)
def test_bounds_lie_in_unit_interval_bracket_the_estimate_and_nest(k, extra, c1, c2):
    n = k + extra
    if n == 0:
        return
    lo1, hi1 = clopper_pearson(k, n, confidence=min(c1, c2))
    lo2, hi2 = clopper_pearson(k, n, confidence=max(c1, c2))
    assert 0.0 <= lo2 and lo1 <= k / n <= hi1 and hi2 <= 1.0
    # nested, up to the rounding of the bounds themselves: confidences 0.5 and 0.5 + 1.1e-16
    # gave lower bounds one unit in the last place out of order (k = 23, n = 242)
    ulp = 4.0 * np.finfo(float).eps
    assert lo2 <= lo1 * (1.0 + ulp) and hi1 <= hi2 * (1.0 + ulp)


# ----------------------------------------------------------------------------------------------
# Buehler: exact test of the balanced accuracy inverted, nuisance maximised
def _binom_pmf_matrix(n, theta):
    return stats.binom.pmf(np.arange(n + 1)[None, :], n, np.asarray(theta)[:, None])


def _buehler_lower_table(n1, n2, confidence, w=(0.5, 0.5)):
    """Buehler lower bounds for every outcome (k1, k2) of a design with n1, n2 examples."""
    from bacc._engine.bounds.buehler import buehler_bounds

    ks = np.array([(a, b) for a in range(n1 + 1) for b in range(n2 + 1)])
    lo, _ = buehler_bounds(ks, np.array([n1, n2]), np.array(w), 1 - confidence, "lower")
    est = w[0] * ks[:, 0] / n1 + w[1] * ks[:, 1] / n2
    return np.minimum(lo, est).reshape(n1 + 1, n2 + 1)


@pytest.mark.parametrize(
    "n1,n2,w", [(4, 6, (0.5, 0.5)), (8, 8, (0.5, 0.5)), (3, 12, (0.5, 0.5)), (5, 7, (0.3, 0.7))]
)
def test_buehler_lower_bound_has_exact_coverage_on_a_grid_of_true_accuracies(n1, n2, w):
    conf = 0.9
    table = _buehler_lower_table(n1, n2, conf, w)
    th = np.linspace(0.0, 1.0, 61)
    p1, p2 = _binom_pmf_matrix(n1, th), _binom_pmf_matrix(n2, th)
    worst = 1.0
    for i, t1 in enumerate(th):
        lam = w[0] * t1 + w[1] * th  # all theta2 at once
        covered = table[None, :, :] <= lam[:, None, None] + 1e-15
        prob = np.einsum("a,jb,jab->j", p1[i], p2, covered)
        worst = min(worst, prob.min())
    assert worst >= conf - 1e-12
    # and it is not needlessly conservative: somewhere coverage is close to nominal
    assert worst < conf + 0.03


def test_buehler_lower_bound_matches_its_definition_by_brute_force():
    # L(t) = inf {lambda(theta) : P_theta(T >= t) >= alpha}; brute force on a fine grid
    n1, n2, k1, k2, alpha = 6, 9, 5, 6, 0.05
    iv = exact_interval([[k1, n1 - k1], [n2 - k2, k2]], confidence=1 - alpha, sides="lower", method="buehler")
    th = np.linspace(0, 1, 2001)
    p1, p2 = _binom_pmf_matrix(n1, th), _binom_pmf_matrix(n2, th)
    a, b = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    event = (a * n2 + b * n1) >= (k1 * n2 + k2 * n1)
    tail = np.einsum("ia,jb,ab->ij", p1, p2, event)  # tail[i, j] = P_(th_i, th_j)(T >= t)
    lam = (th[:, None] + th[None, :]) / 2
    brute = lam[tail >= alpha].min()  # >= the infimum (grid points only)
    assert iv.lower <= brute + 1e-12
    assert iv.lower >= brute - 2e-3  # grid step 5e-4 in each coordinate


def test_buehler_is_tighter_than_union_for_balanced_designs():
    for cm in ([[42, 3], [6, 4]], [[80, 20], [10, 90]], [[9, 1], [2, 8]], [[5, 0], [0, 5]]):
        u = exact_interval(cm, method="union")
        b = exact_interval(cm, method="buehler")
        assert b.upper - b.lower < u.upper - u.lower
        assert b.lower <= b.estimate <= b.upper


def test_buehler_upper_bound_mirrors_the_lower_bound_on_the_errors():
    b = exact_interval([[9, 1], [2, 8]], method="buehler", sides="upper")
    m = exact_interval([[1, 9], [8, 2]], method="buehler", sides="lower")
    assert b.upper == pytest.approx(1 - m.lower, abs=1e-12)


def test_buehler_is_symmetric_under_class_relabelling_and_reduces_to_one_class():
    for m in ([[42, 3], [6, 4]], [[190, 10], [3, 2]], [[17, 3], [20, 30]]):
        cm = ConfusionMatrix(m)
        a = exact_interval(cm, method="buehler")
        b = exact_interval(cm.relabel([1, 0]), method="buehler")
        assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), abs=1e-9)
    # all weight on one class: the Clopper-Pearson bound of that class (certified 1e-6 below)
    iv = exact_interval([[7, 3], [2, 10]], method="buehler", weights=[0, 1], sides="lower")
    cp = clopper_pearson(10, 12, confidence=0.95, sides="lower")[0]
    assert cp - 2e-6 <= iv.lower <= cp


def test_buehler_all_wrong_and_all_right():
    iv = exact_interval([[0, 5], [5, 0]], method="buehler")
    assert iv.lower == 0.0 and 0 < iv.upper < 0.5
    iv = exact_interval([[5, 0], [0, 5]], method="buehler")
    assert iv.upper == 1.0 and 0.5 < iv.lower < 1.0


def test_buehler_needs_two_classes():
    with pytest.raises(BaccError, match="two classes"):
        exact_interval([[5, 1, 0], [1, 5, 0], [0, 1, 5]], method="buehler")
    with pytest.raises(BaccError, match="examples in each class"):
        exact_interval([[6000, 1], [1, 5]], method="buehler")


# ----------------------------------------------------------------------------------------------
# binomial test against chance (Brodersen et al. (2010), section II)
def test_seed000_threshold_is_binomial_quantile():
    r = binomial_test(CM_80_OF_100, chance=0.5, confidence=0.95)
    assert r.threshold == int(stats.binom.ppf(0.95, 100, 0.5)) == 58
    assert r.p_value == pytest.approx(stats.binom.sf(79, 100, 0.5), rel=1e-12)
    assert r.above_chance


@pytest.mark.parametrize("n,p0", [(10, 0.5), (37, 1 / 3), (200, 0.1)])
def test_seed000_above_threshold_iff_p_value_at_most_alpha(n, p0):
    for k in range(n + 1):
        cm = [[k, n - k], [0, 0]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaccWarning)
            r = binomial_test(cm, chance=p0, confidence=0.95)
        assert r.above_chance == (r.p_value <= 0.05)
        assert r.threshold == int(stats.binom.ppf(0.95, n, p0))


def test_binomial_test_majority_predictor_beats_chance_but_balanced_bound_does_not():
    # the second flaw named by Brodersen et al. (2010): always predicting the majority class on an imbalanced set
    r = binomial_test([[90, 0], [10, 0]])
    assert r.above_chance and r.accuracy == 0.9
    assert r.sample_balanced_accuracy == 0.5 and not r.balanced_above_chance
    assert r.balanced_chance == 0.5
    assert "does not clear" in str(r)


def test_binomial_test_default_chance_is_one_over_l():
    r = binomial_test([[10, 1, 1], [1, 10, 1], [1, 1, 10]])
    assert r.chance == pytest.approx(1 / 3) and r.balanced_above_chance
    assert isinstance(r, BinomialTest)
    json.dumps(r.to_dict())


# ----------------------------------------------------------------------------------------------
# results
def test_exact_interval_result_is_frozen_serialisable_and_readable():
    iv = exact_interval([[42, 3], [6, 4]], labels=None)
    assert isinstance(iv, Interval)
    with pytest.raises(AttributeError):
        iv.lower = 0.0  # type: ignore[misc]
    d = json.loads(json.dumps(iv.to_dict()))
    assert d["method"] == "union" and len(d["per_class"]) == 2
    text = str(iv)
    assert "union bound" in text and "95% two-sided" in text and "98.75%" in text
    assert "Buehler" in str(exact_interval([[42, 3], [6, 4]], method="buehler"))


def test_str_shows_enough_digits_for_huge_classes():
    iv = exact_interval([[999_999_000, 1_000], [2_000, 999_998_000]])
    lo_s, hi_s = str(iv).splitlines()[1].split("[")[1].rstrip("]").split(", ")
    assert float(lo_s) < float(hi_s)


def test_per_class_rows_built_on_first_use_equal_the_class_intervals():
    cm = [[42, 3, 0], [6, 4, 1], [2, 2, 9]]
    iv = exact_interval(cm)
    clone = pickle.loads(pickle.dumps(iv))  # before the rows are built: they travel as arrays
    # the same per-bound level (no class left out), under the name of the per-class method
    eager = tuple(
        dataclasses.replace(r, method="clopper-pearson")
        for r in class_intervals(cm, adjust="union")
    )
    for rows in (iv.per_class, clone.per_class):
        assert rows == eager
        assert [type(r.correct) for r in rows] == [int] * 3
    assert iv.per_class is iv.per_class  # built once
    assert dataclasses.replace(iv, lower=0.0).per_class == eager
    # a class left out reports [0, 1], not in the average
    with pytest.warns(BaccWarning):
        left = exact_interval([[5, 1, 0], [1, 5, 0], [0, 0, 0]])
    assert (left.per_class[2].lower, left.per_class[2].upper, left.per_class[2].included) == (
        0.0, 1.0, False)  # fmt: skip
    with pytest.raises(AttributeError):
        _ = iv.per_class_rows


def test_one_evaluation_certificate_accepts_only_bounds_inside_the_bracket():
    # The bounds' certificate evaluates the tail once, at scipy's quantile: where the density
    # is monotone beyond it, a relative residual below half the bracket's width puts the root
    # in the bracket x (1 -+ 1e-12). Every bound it accepts must pass the two-ended test
    # (the tail crosses alpha between the ends), from 1 to 1e13 examples.
    rng = np.random.default_rng(7)
    e = 1e-12
    for top in (1, 3, 6, 9, 13):
        n = np.floor(10 ** rng.uniform(0, top, 4000))
        k = np.minimum(np.floor(rng.random(4000) * (n + 1)), n)
        alpha = float(10 ** rng.uniform(-10, math.log10(0.5)))
        lo, hi = _cp_certified_parts(k, n, alpha)
        for a, b, x, upper in (lo, hi):
            with np.errstate(all="ignore"):
                ends = np.stack([x * (1 - e), np.minimum(x * (1 + e), 1.0)])
                t = sc.betainc(b, a, 1.0 - ends) if upper else sc.betainc(a, b, ends)
            below, above = (t[1], t[0]) if upper else (t[0], t[1])
            crossed = (below <= alpha) & (above >= alpha)
            # the iterated rows are checked by the CDF directly
            tail = sc.betainc(b, a, 1.0 - x) if upper else sc.betainc(a, b, x)
            assert np.all(crossed | (np.abs(np.log(tail / alpha)) < 1e-11))


def _cp_certified_parts(k, n, alpha):
    lo_rows, hi_rows = k > 0, k < n
    al, bl = k[lo_rows], n[lo_rows] - k[lo_rows] + 1.0
    au, bu = k[hi_rows] + 1.0, n[hi_rows] - k[hi_rows]
    xl, xu = _cp_certified(al, bl, au, bu, alpha)
    return (al, bl, xl, False), (au, bu, xu, True)


# ----------------------------------------------------------------------------------------------
# bad input
@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, float("nan"), "0.95", True])
def test_bad_confidence_raises(confidence):
    with pytest.raises(BaccError, match="confidence"):
        exact_interval([[5, 1], [1, 5]], confidence=confidence)
    with pytest.raises(BaccError, match="confidence"):
        clopper_pearson(3, 5, confidence=confidence)


@pytest.mark.parametrize(
    "matrix,match",
    [
        ([[1, 2, 3], [4, 5, 6]], "square"),
        ([[1, -2], [3, 4]], "negative"),
        ([[0, 0], [0, 0]], "no examples"),
        ([[1.5, 2], [3, 4]], "non-integer"),
        ("1,2;3,4", "string"),
    ],
)
def test_bad_matrix_raises(matrix, match):
    with pytest.raises(BaccError, match=match):
        exact_interval(matrix)
    with pytest.raises(BaccError, match=match):
        binomial_test(matrix)


def test_unknown_method_sides_metric_raise_with_the_choices():
    cm = [[5, 1], [1, 5]]
    with pytest.raises(BaccError, match="unknown exact interval method 'wald'.*'union'"):
        exact_interval(cm, method="wald")
    with pytest.raises(BaccError, match="sides must be 'two', 'lower' or 'upper'"):
        exact_interval(cm, sides="both")
    with pytest.raises(BaccError, match="metric must be"):
        exact_interval(cm, metric="f1")
    with pytest.raises(BaccError, match="for metric='accuracy'"):
        exact_interval(cm, method="clopper-pearson")
    with pytest.raises(BaccError, match="adjustment"):
        class_intervals(cm, adjust="holm")
    with pytest.raises(BaccError, match="empty must be"):
        exact_interval(cm, empty="ignore")
    with pytest.raises(BaccError, match="chance"):
        binomial_test(cm, chance=1.0)


def test_clopper_pearson_bad_counts_raise():
    with pytest.raises(BaccError, match="must not exceed"):
        clopper_pearson(6, 5)
    with pytest.raises(BaccError, match=">= 0"):
        clopper_pearson(-1, 5)
    with pytest.raises(BaccError, match="whole numbers"):
        clopper_pearson(2.5, 5)
