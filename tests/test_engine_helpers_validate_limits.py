"""No silent wrong answer at the edges: the limits bacc enforces, chance, unlike comparisons, and
a CDF that is exactly 0 below the support and never decreases.

The limits live in one place, ``bacc._engine.helpers.validate`` (MAX_COUNT, MIN_PRIOR, MIN_WEIGHT,
MIN/MAX_CONFIDENCE, MAX_SIMULATIONS); every entry point checks through it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

import bacc
from bacc._engine.helpers import validate as V


# ---------------------------------------------------------------------------------------------
# counts
@pytest.mark.parametrize(
    "matrix",
    [
        [[2**63 - 1, 0], [0, 1]],
        np.array([[2**64 - 5, 1], [0, 3]], dtype=np.uint64),
        [[10**16, 0], [0, 1]],
        [[10**18, 0], [0, 1]],
        [[6 * 10**12, 6 * 10**12], [1, 1]],  # each cell allowed, the class is not
    ],
)
def test_counts_beyond_the_limit_are_refused_by_every_entry_point(matrix):
    for call in (
        lambda: bacc.evaluate(matrix),
        lambda: bacc.evaluate_many(np.asarray(matrix)[None], progress=False),
        lambda: bacc.evaluate_many([matrix, [[1, 0], [0, 1]]], progress=False),
        lambda: bacc.exact_interval(matrix),
        lambda: bacc.binomial_test(matrix),
        lambda: bacc.compare(matrix, [[1, 1], [1, 1]]),
    ):
        with pytest.raises(bacc.BaccError, match="10\\^13"):
            call()


def test_uint64_counts_never_wrap_to_negative():
    big = np.array([[[2**64 - 1, 0], [0, 1]]], dtype=np.uint64)
    with pytest.raises(bacc.BaccError):
        bacc.evaluate_many(big, progress=False)


def test_counts_at_the_limit_give_ordered_summaries_centred_on_the_truth():
    n = V.MAX_COUNT
    e = bacc.evaluate([[9 * n // 10, n // 10], [3 * n // 10, 7 * n // 10]])
    s = e.balanced_accuracy_summary
    sd = e.balanced_accuracy.std()
    assert s.lower < s.median < s.upper
    # mean 0.8 (skewness ~ 1e-7: the median is the mean to 1e-7 sd), interval +-1.96 sd
    assert abs(s.median - 0.8) < 1e-3 * sd
    assert (s.upper - s.lower) / sd == pytest.approx(2 * 1.959964, rel=1e-3)
    assert e.p_above_chance == pytest.approx(1.0, abs=1e-12)


def test_direct_distributions_refuse_parameters_beyond_the_limit():
    with pytest.raises(bacc.BaccError, match="2e13"):
        bacc.BetaPosterior(1e100, 2.0)
    with pytest.raises(bacc.BaccError, match="2e13"):
        bacc.BetaSum([1e15, 2.0], [3.0, 4.0], [0.5, 0.5])


# ---------------------------------------------------------------------------------------------
# chance
def _p_above(a0, b0, a1, b1, t):
    """P((X + Y) / 2 > t) for independent Betas, by scipy adaptive quadrature."""
    x, y = stats.beta(a0, b0), stats.beta(a1, b1)
    below = integrate.quad(lambda u: x.cdf(2 * t - u) * y.pdf(u), 0, min(1.0, 2 * t),
                           epsabs=1e-14, epsrel=1e-12)[0]  # fmt: skip
    return 1.0 - below


def test_chance_counts_a_class_without_true_examples():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        e = bacc.evaluate([[0, 0], [1, 99]])
        t = bacc.binomial_test([[0, 0], [1, 99]])
        b = bacc.evaluate_many([[[0, 0], [1, 99]], [[5, 1], [2, 8]]], progress=False)
    # two labels: chance 1/2 for the accuracy and the balanced accuracy alike
    assert e.chance == 0.5
    assert t.chance == t.balanced_chance == 0.5
    # the one class with examples has 99 of 100 right: P(recall > 1/2) under Beta(100, 2)
    assert e.p_above_chance == pytest.approx(stats.beta(100, 2).sf(0.5), abs=1e-12)
    assert b.p_above_chance[0] == pytest.approx(e.p_above_chance, abs=1e-12)
    assert b.p_above_chance[1] == pytest.approx(_p_above(6, 2, 9, 3, 0.5), abs=1e-9)


def test_chance_is_one_over_the_classes_of_the_matrix_everywhere():
    m = [[0, 0, 0], [1, 9, 0], [2, 1, 7]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        e = bacc.evaluate(m)
        t = bacc.binomial_test(m)
        b = bacc.evaluate_many([m], progress=False)
        post = bacc.posterior_balanced_accuracy(m)
    assert e.chance == t.chance == t.balanced_chance == post.chance == pytest.approx(1 / 3)
    expected = _p_above(10, 2, 8, 4, 1 / 3)
    assert e.p_above_chance == pytest.approx(expected, abs=1e-9)
    assert b.p_above_chance[0] == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------------------------------------
# priors, weights, confidence
@pytest.mark.parametrize("prior", [(1e-20, 1e20), (1e100, 1e100), (0.01, 0.01), (0.049, 1.0),
                                   (1.0, 2e13)])
def test_priors_outside_the_range_are_refused_with_the_limit_named(prior):
    with pytest.raises(bacc.BaccError, match="0.05"):
        bacc.evaluate([[3, 1], [1, 3]], prior=prior)
    with pytest.raises(bacc.BaccError, match="0.05"):
        bacc.evaluate_many([[[3, 1], [1, 3]]], prior=prior, progress=False)


@pytest.mark.parametrize("matrix", [[[5, 0], [0, 5]], [[1, 0], [0, 1]], [[50, 0], [0, 1]],
                                    [[5, 0, 0], [0, 5, 0], [0, 0, 5]], [[1000, 0], [0, 1000]]])
def test_the_smallest_prior_still_gives_ordered_monotone_results(matrix):
    e = bacc.evaluate(matrix, prior=(V.MIN_PRIOR, V.MIN_PRIOR))
    s = e.balanced_accuracy_summary
    assert s.lower <= s.median <= s.upper
    cdf = e.balanced_accuracy.cdf(np.linspace(0, 1, 4001))
    assert np.all(np.diff(cdf) >= 0)


def test_tiny_positive_weights_are_refused():
    with pytest.raises(bacc.BaccError, match="1e-12"):
        bacc.evaluate([[3, 1], [1, 3]], weights=[1 - 5e-324, 5e-324])
    # weight 0 leaves a class out and is fine
    e = bacc.evaluate([[3, 1], [1, 3]], weights=[1.0, 0.0])
    assert e.balanced_accuracy_summary.mean == pytest.approx(4 / 6)


@pytest.mark.parametrize("confidence", [1 - 1e-16, 1 - 1e-12, 1e-9, 0.0, 1.0, float("nan")])
def test_confidence_outside_the_range_is_refused(confidence):
    with pytest.raises(bacc.BaccError):
        bacc.evaluate([[3, 1], [1, 3]], confidence=confidence)


def test_the_largest_confidence_gives_an_ordered_finite_interval():
    for m in ([[42, 3], [6, 4]], [[5, 1, 0], [1, 4, 2], [0, 1, 6]]):
        e = bacc.evaluate(m, confidence=V.MAX_CONFIDENCE)
        s = e.balanced_accuracy_summary
        assert np.isfinite([s.lower, s.upper]).all()
        assert 0 <= s.lower < s.median < s.upper <= 1


def test_monte_carlo_sizes_beyond_the_limit_are_refused():
    with pytest.raises(bacc.BaccError, match="100,000,000"):
        bacc.coverage("union", [10, 10], [0.8, 0.8], n_simulations=10**12)
    with pytest.raises(bacc.BaccError, match="100,000,000"):
        bacc.rank([[[5, 1], [1, 5]], [[4, 2], [2, 4]]], n_draws=10**12)


# ---------------------------------------------------------------------------------------------
# comparisons of unlike things
def test_compare_refuses_balanced_accuracies_over_different_classes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        with pytest.raises(bacc.BaccError, match="different classes"):
            bacc.compare([[5, 0], [0, 0]], [[3, 1], [1, 3]])
        with pytest.raises(bacc.BaccError):
            bacc.compare([[5]], [[3, 1], [1, 3]])


# ---------------------------------------------------------------------------------------------
# the CDF
def test_cdf_is_exactly_zero_at_and_below_the_support_and_never_decreases():
    rng = np.random.default_rng(7)
    x = np.linspace(-0.01, 1.01, 6001)
    checked = 0
    while checked < 40:
        m = int(rng.integers(3, 6))
        cm = rng.integers(0, 5, size=(m, m))
        cm[np.arange(m), np.arange(m)] += rng.integers(0, 2, m)
        if np.any(cm.sum(axis=1) == 0):
            continue
        for prior in ("flat", "jeffreys"):
            d = bacc.evaluate(cm, prior=prior).balanced_accuracy
            lo, hi = d.support()
            c = d.cdf(x)
            assert np.all(np.diff(c) >= 0), cm.tolist()
            assert np.all(c[x <= lo] == 0.0) and np.all(c[x >= hi] == 1.0)
            assert d.cdf(lo) == 0.0 and d.sf(lo) == 1.0
            # deep in the tails too
            xs = np.linspace(float(d.ppf(1e-9)), float(d.ppf(1 - 1e-9)), 4001)
            assert np.all(np.diff(d.cdf(xs)) >= 0)
        checked += 1
