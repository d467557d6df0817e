"""Approximate intervals (bacc.intervals): the formulas users report, labelled as approximate,
never silently clipped."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from bacc._engine.bounds.per_class import jeffreys_bounds, wald_bounds, wilson_bounds
from bacc.confusion import ConfusionMatrix
from bacc.errors import BaccError
from bacc.intervals import (
    APPROX_METHODS,
    Interval,
    approx_class_intervals,
    approx_interval,
    exact_interval,
    fold_sem_interval,
)


# ----------------------------------------------------------------------------------------------
# agreement with statsmodels' proportion_confint
@pytest.mark.parametrize("n", [1, 7, 50, 1000])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_wald_wilson_jeffreys_equal_statsmodels(n, confidence):
    k = np.arange(n + 1)
    a = (1 - confidence) / 2
    for ours, sm in [(wald_bounds, "normal"), (wilson_bounds, "wilson")]:
        lo, hi = ours(k, n, a, "two")
        sl, su = proportion_confint(k, n, alpha=1 - confidence, method=sm)
        if sm == "normal":  # statsmodels clips the Wald interval; bacc does not
            lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
        np.testing.assert_allclose(lo, sl, atol=1e-12, rtol=0)
        np.testing.assert_allclose(hi, su, atol=1e-12, rtol=0)
    lo, hi = jeffreys_bounds(k, n, a, "two")
    sl, su = proportion_confint(k, n, alpha=1 - confidence, method="jeffreys")
    # interior: identical; at k = 0 / k = n bacc uses Brown, Cai & DasGupta's 0 / 1 ends
    np.testing.assert_allclose(lo[1:], sl[1:], atol=1e-12, rtol=0)
    np.testing.assert_allclose(hi[:-1], su[:-1], atol=1e-12, rtol=0)
    assert lo[0] == 0.0 and hi[-1] == 1.0


# ----------------------------------------------------------------------------------------------
# Sandler & Dirac (2024): the normal approximation collapses when there are no errors
def test_seed004_wald_with_zero_errors_is_a_point_at_one():
    iv = approx_interval([[20, 0], [0, 30]], method="wald", metric="accuracy")
    assert (iv.lower, iv.upper) == (1.0, 1.0)
    iv = approx_interval([[20, 0], [0, 30]], method="wald")
    assert (iv.lower, iv.upper) == (1.0, 1.0)
    # the exact interval does not collapse
    ex = exact_interval([[20, 0], [0, 30]])
    assert ex.lower < 0.95


def test_wald_is_not_clipped_and_says_so():
    iv = approx_interval([[9, 1], [0, 0]], method="wald", metric="accuracy")
    z = 1.959963984540054
    assert iv.upper == pytest.approx(0.9 + z * math.sqrt(0.9 * 0.1 / 10), abs=1e-12)
    assert iv.upper > 1.0 and iv.exceeds_unit_interval
    assert "leaves [0, 1]" in str(iv) and "APPROXIMATE" in str(iv)
    d = json.loads(json.dumps(iv.to_dict()))
    assert d["approximate"] is True and d["exceeds_unit_interval"] is True


def test_balanced_wald_uses_the_delta_method_variance():
    cm = [[42, 3], [6, 4]]
    iv = approx_interval(cm, method="wald")
    p = np.array([42 / 45, 4 / 10])
    se = math.sqrt(np.sum(0.25 * p * (1 - p) / np.array([45, 10])))
    assert iv.estimate == pytest.approx(p.mean())
    assert iv.lower == pytest.approx(p.mean() - 1.959963984540054 * se, abs=1e-12)
    assert iv.upper == pytest.approx(p.mean() + 1.959963984540054 * se, abs=1e-12)


@pytest.mark.parametrize("method", ["wilson", "jeffreys"])
def test_balanced_wilson_and_jeffreys_average_per_class_bounds_at_the_union_level(method):
    cm = [[42, 3], [6, 4]]
    iv = approx_interval(cm, method=method)
    per = approx_class_intervals(cm, confidence=1 - 0.05 / 2, method=method)  # 1.25% per tail
    assert iv.lower == pytest.approx(np.mean([c.lower for c in per]), abs=1e-14)
    assert iv.upper == pytest.approx(np.mean([c.upper for c in per]), abs=1e-14)
    assert not iv.exceeds_unit_interval


def test_one_sided_approximate_bounds():
    iv = approx_interval([[42, 3], [6, 4]], method="wilson", metric="accuracy", sides="lower")
    lo, _ = wilson_bounds(46, 55, 0.05, "two")
    assert iv.upper == 1.0 and iv.lower == pytest.approx(float(lo))


def test_per_class_wald_intervals_are_unclipped():
    per = approx_class_intervals([[10, 0], [3, 7]], method="wald")
    assert (per[0].lower, per[0].upper) == (1.0, 1.0)
    assert per[1].lower == pytest.approx(0.7 - 1.959963984540054 * math.sqrt(0.21 / 10))
    assert all(c.method == "wald" for c in per)


# ----------------------------------------------------------------------------------------------
# Brodersen et al. (2010): mean +- 2 SEM of fold accuracies can exceed 100 %
FOLDS = [[[9, 0], [0, 10]], [[10, 0], [0, 10]], [[8, 1], [1, 9]]]


def test_seed000_fold_sem_interval_exceeds_100_percent_and_is_not_clipped():
    iv = fold_sem_interval(FOLDS)
    vals = np.array([19 / 19, 20 / 20, 17 / 19])
    mean, sem = vals.mean(), vals.std(ddof=1) / math.sqrt(3)
    assert iv.fold_values == pytest.approx(tuple(vals))
    assert iv.estimate == pytest.approx(mean)
    assert iv.upper == pytest.approx(mean + 2 * sem) and iv.upper > 1.0
    assert iv.lower == pytest.approx(mean - 2 * sem)
    assert iv.exceeds_unit_interval and iv.method == "fold-sem" and iv.multiplier == 2.0
    assert "leaves [0, 1]" in str(iv)


def test_fold_sem_through_approx_interval_and_per_fold_balanced_accuracy():
    iv = approx_interval(FOLDS, method="fold-sem", metric="balanced_accuracy", n_sem=2.0)
    vals = [1.0, 1.0, (8 / 9 + 9 / 10) / 2]
    assert iv.fold_values == pytest.approx(tuple(vals))
    iv_z = approx_interval(FOLDS, method="fold-sem", metric="accuracy")
    assert iv_z.multiplier == pytest.approx(1.959963984540054)
    folds_cm = [ConfusionMatrix(f) for f in FOLDS]
    assert fold_sem_interval(folds_cm).upper == fold_sem_interval(FOLDS).upper


def test_fold_sem_needs_folds():
    with pytest.raises(BaccError, match="at least 2 folds"):
        fold_sem_interval([FOLDS[0]])
    with pytest.raises(BaccError, match="single matrix|3-D array"):
        approx_interval(FOLDS[0], method="fold-sem")
    with pytest.raises(BaccError, match="one ConfusionMatrix"):
        approx_interval(ConfusionMatrix(FOLDS[0]), method="fold-sem")
    with pytest.raises(BaccError, match="n_sem must be a positive"):
        fold_sem_interval(FOLDS, n_sem=-1)
    with pytest.raises(BaccError, match="n_sem applies"):
        approx_interval(FOLDS[0], method="wald", n_sem=2)
    with pytest.raises(BaccError, match="labels"):
        fold_sem_interval([ConfusionMatrix(FOLDS[0], labels=["a", "b"]), ConfusionMatrix(FOLDS[1])])


# ----------------------------------------------------------------------------------------------
def test_every_method_is_labelled_approximate():
    for method in APPROX_METHODS:
        arg = FOLDS if method == "fold-sem" else [[42, 3], [6, 4]]
        iv = approx_interval(arg, method=method)
        assert isinstance(iv, Interval) and iv.approximate
        assert iv.to_dict()["kind"] == "approximate"
        assert "coverage not guaranteed" in str(iv)


@pytest.mark.parametrize("confidence", [0, 1, 2, "high"])
def test_bad_confidence_raises(confidence):
    with pytest.raises(BaccError, match="confidence"):
        approx_interval([[5, 1], [1, 5]], confidence=confidence)


def test_unknown_method_and_sides_raise():
    with pytest.raises(BaccError, match="unknown approximate interval method 'agresti'"):
        approx_interval([[5, 1], [1, 5]], method="agresti")
    with pytest.raises(BaccError, match="unknown per-class approximate method"):
        approx_class_intervals([[5, 1], [1, 5]], method="fold-sem")
    with pytest.raises(BaccError, match="sides"):
        approx_interval([[5, 1], [1, 5]], sides="left")
    with pytest.raises(BaccError, match="negative"):
        approx_interval([[5, -1], [1, 5]])
