"""The joint summary (quantiles, mode and tail sharing the engine's evaluations) and the
slope of the two-class density used by the Halley steps of the quantile solver."""

from __future__ import annotations

import numpy as np
import pytest

import bacc
from bacc import BetaSum

CASES = [
    ([43, 5], [4, 7], [0.5, 0.5]),  # flat prior, the benchmark's matrix
    ([42.5, 4.5], [3.5, 6.5], [0.5, 0.5]),  # Jeffreys
    ([3, 2], [2, 5], [0.3, 0.7]),  # small counts, unequal weights
    ([9001, 5001], [1000, 5001], [0.5, 0.5]),  # large counts
    ([11, 1], [1, 11], [0.5, 0.5]),  # perfect and all-wrong classes
    ([0.5, 10.5], [10.5, 0.5], [0.5, 0.5]),  # not log-concave: the scanning mode
    ([5, 6, 7], [3, 2, 9], [0.3, 0.3, 0.4]),  # lattice engine
    ([5], [3], [1.0]),  # one class
    ([30, 20], [3, 5], [1.0, -1.0]),  # a difference of two accuracies
]


@pytest.mark.parametrize("a, b, w", CASES)
def test_summary_equals_the_separate_calls(a, b, w):
    c = 0.95
    joint = BetaSum(a, b, w).summary(c, threshold=0.5)
    d = BetaSum(a, b, w)
    lo, med, hi = d.ppf([(1 - c) / 2, 0.5, (1 + c) / 2])
    separate = {"mean": d.mean(), "median": med, "mode": d.mode(), "lower": lo, "upper": hi,
                "p_above": d.p_above(0.5)}  # fmt: skip
    assert set(joint) == set(separate)
    for key, value in separate.items():
        assert joint[key] == pytest.approx(value, abs=1e-14), key


def test_summary_without_threshold_and_outside_the_support():
    d = BetaSum([43, 5], [4, 7], [0.5, 0.5])
    assert "p_above" not in d.summary(0.9)
    assert d.summary(0.9, threshold=-1.0)["p_above"] == 1.0
    assert d.summary(0.9, threshold=2.0)["p_above"] == 0.0
    with pytest.raises(bacc.BaccError):
        d.summary(0.9, threshold="half")
    with pytest.raises(bacc.BaccError):
        d.summary(1.5)


def test_evaluate_uses_the_joint_summary():
    cm = bacc.ConfusionMatrix([[42, 3], [6, 4]])
    ev = bacc.evaluate(cm)
    post = bacc.posterior_balanced_accuracy(cm)
    s = ev.balanced_accuracy_summary
    assert s.median == pytest.approx(float(post.median()), abs=1e-15)
    assert s.mode == pytest.approx(post.mode(), abs=1e-15)
    assert ev.p_above_chance == pytest.approx(post.p_above(0.5), abs=1e-15)


@pytest.mark.parametrize(
    "a, b",
    [([43, 5], [4, 7]), ([42.5, 4.5], [3.5, 6.5]), ([3, 2], [2, 5]), ([2.5, 30], [30, 1.5])],
)
def test_slope_of_the_two_class_density_matches_a_finite_difference(a, b):
    d = BetaSum(a, b, [0.5, 0.5])
    d._prepare()
    x = d.ppf([0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999])
    h = 1e-5 * d.std()
    slope = d._combine(x, ("dpdf",))["dpdf"]
    # central difference, error ~ h^2 f''' (relative ~1e-10 here) plus rounding ~1e-13 / h
    fd = (d.pdf(x + h) - d.pdf(x - h)) / (2 * h)
    assert np.max(np.abs(slope - fd)) < 1e-6 * np.max(np.abs(fd))


def test_slope_is_nan_where_it_would_need_boundary_terms():
    # B (the wider class) is Beta(1, 11): its density does not vanish at 0
    d = BetaSum([11, 1], [1, 11], [0.5, 0.5])
    d._prepare()
    assert np.all(np.isnan(d._combine(np.array([0.3, 0.5]), ("dpdf",))["dpdf"]))
