"""Every model at its closed-form edges: all perfect, all wrong, one trial, a single class.

Each value is derived by hand here (closed forms of Beta integrals), not read from bacc:

- a class with ``k = n`` under a flat prior has posterior ``Beta(n + 1, 1)``: CDF ``x^(n+1)``;
- two all-perfect classes, ``X ~ Beta(a, 1)``, ``Y ~ Beta(b, 1)``: for ``s <= 1``,
  ``P(X + Y <= s) = a s^(a+b) B(a, b + 1)``, so the balanced accuracy ``(X + Y) / 2`` has CDF
  ``a (2t)^(a+b) B(a, b+1)`` for ``t <= 1/2``; all wrong is the mirror image ``t -> 1 - t``;
- a Clopper-Pearson lower bound at ``k = n`` is ``alpha^(1/n)`` and the upper bound is 1; the
  union-bound interval of the balanced accuracy spends ``delta / (2 l)`` on each one-sided
  class bound (Sandler & Dirac 2024).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import beta as beta_fn

import bacc


def _perfect(sizes):
    return np.diag(sizes)


def _all_wrong(sizes):
    l = len(sizes)
    m = np.zeros((l, l), dtype=int)
    for i, n in enumerate(sizes):
        m[i, (i + 1) % l] = n
    return m


@pytest.mark.parametrize("n", [1, 2, 7, 100, 10**6])
def test_accuracy_posterior_at_its_edges(n):
    perfect = bacc.posterior_accuracy([[n, 0], [0, 0]])
    wrong = bacc.posterior_accuracy([[0, n], [0, 0]])
    for x in (0.1, 0.5, 0.9, 0.999):
        assert perfect.cdf(x) == pytest.approx(x ** (n + 1), rel=1e-10, abs=1e-300)
        assert wrong.cdf(x) == pytest.approx(1 - (1 - x) ** (n + 1), rel=1e-10, abs=1e-15)
    assert perfect.mean() == pytest.approx((n + 1) / (n + 2), rel=1e-14)
    assert perfect.ppf(0.5) == pytest.approx(0.5 ** (1 / (n + 1)), rel=1e-10)


@pytest.mark.parametrize("sizes", [(1, 1), (1, 5), (3, 40), (200, 7)])
def test_two_class_balanced_accuracy_at_its_edges(sizes):
    a, b = sizes[0] + 1, sizes[1] + 1
    perfect = bacc.posterior_balanced_accuracy(_perfect(sizes))
    wrong = bacc.posterior_balanced_accuracy(_all_wrong(sizes))
    for t in (0.05, 0.2, 0.35, 0.5):
        closed = a * (2 * t) ** (a + b) * beta_fn(a, b + 1)
        assert perfect.cdf(t) == pytest.approx(closed, rel=1e-8, abs=1e-14)
        assert wrong.sf(1 - t) == pytest.approx(closed, rel=1e-8, abs=1e-14)
    mean = (a / (a + 1) + b / (b + 1)) / 2
    assert perfect.mean() == pytest.approx(mean, rel=1e-12)
    assert wrong.mean() == pytest.approx(1 - mean, rel=1e-12)
    # the same numbers through evaluate and evaluate_many
    ev = bacc.evaluate(_perfect(sizes))
    assert ev.balanced_accuracy.cdf(0.35) == pytest.approx(perfect.cdf(0.35), rel=1e-10)
    many = bacc.evaluate_many(np.stack([_perfect(sizes), _all_wrong(sizes)]), progress=False)
    assert many.mean.tolist() == pytest.approx([mean, 1 - mean], rel=1e-12)


@pytest.mark.parametrize("sizes", [(1, 1), (4, 9, 2), (10, 10, 10, 10)])
def test_exact_union_interval_at_its_edges(sizes):
    l = len(sizes)
    per = 0.05 / (2 * l)
    perfect = bacc.exact_interval(_perfect(sizes))
    lower = sum(per ** (1 / n) for n in sizes) / l
    assert perfect.lower == pytest.approx(lower, rel=1e-12)
    assert perfect.upper == 1.0
    wrong = bacc.exact_interval(_all_wrong(sizes))
    assert wrong.lower == 0.0
    assert wrong.upper == pytest.approx(1 - lower, rel=1e-12)


def test_one_trial_per_class():
    # one example in each of three classes, two right: Beta(2, 1), Beta(2, 1), Beta(1, 2)
    cm = [[1, 0, 0], [0, 1, 0], [1, 0, 0]]
    ev = bacc.evaluate(cm)
    assert ev.balanced_accuracy.mean() == pytest.approx((2 / 3 + 2 / 3 + 1 / 3) / 3, rel=1e-13)
    var = (2 * (2 * 1 / (9 * 4)) + 2 / (9 * 4)) / 9  # Beta(a, b) variance ab / ((a+b)^2 (a+b+1))
    assert ev.balanced_accuracy.var() == pytest.approx(var, rel=1e-10)
    lo = bacc.clopper_pearson(1, 1, confidence=0.9, sides="lower")
    assert lo[0] == pytest.approx(0.1, rel=1e-12)


def test_a_single_class_with_examples():
    # a second class that was only predicted is left out; the balanced accuracy is the
    # first class's accuracy, Beta(k + 1, n - k + 1)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        post = bacc.posterior_balanced_accuracy([[7, 3], [0, 0]])
    for x in (0.3, 0.6, 0.9):
        # Beta(8, 4) CDF by its binomial sum: P(X <= x) = P(Bin(11, x) >= 8)
        closed = sum(math.comb(11, j) * x**j * (1 - x) ** (11 - j) for j in range(8, 12))
        assert post.cdf(x) == pytest.approx(closed, rel=1e-9)


def test_identical_classifiers_compare_at_one_half():
    cm = _perfect((5, 9))
    assert bacc.compare(cm, cm).p_better == pytest.approx(0.5, abs=1e-10)
    y = [0] * 5 + [1] * 9
    assert bacc.compare_paired(y, y, y).p_better == pytest.approx(0.5, abs=1e-10)
