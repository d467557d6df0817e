"""Thresholds with a guarantee: the order-statistic rule against a brute-force search, the
promise kept in simulation, the honest estimate of the other rate, and bad input."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from scipy import stats

import bacc


def _brute_recall_order(n: int, r: float, c: float) -> int:
    """Largest k in 1..n with P(Binom(n, 1 - r) >= k) >= c (0 when none)."""
    best = 0
    for k in range(1, n + 1):
        if stats.binom.sf(k - 1, n, 1 - r) >= c:
            best = k
    return best


def _brute_fpr_order(n: int, f: float, c: float) -> int:
    """Smallest k in 1..n with P(Binom(n, 1 - f) <= k - 1) >= c (n + 1 when none)."""
    for k in range(1, n + 1):
        if stats.binom.cdf(k - 1, n, 1 - f) >= c:
            return k
    return n + 1


@pytest.mark.parametrize("n1, r, c", [(30, 0.8, 0.95), (100, 0.9, 0.95), (57, 0.95, 0.9),
                                      (500, 0.99, 0.99), (10, 0.9, 0.95)])
def test_recall_threshold_is_the_order_statistic_of_the_brute_force_rule(n1, r, c):
    rng = np.random.default_rng(n1)
    y = np.repeat([0, 1], [200, n1])
    s = rng.normal(1.5 * y, 1.0)
    g = bacc.scores(y, s).threshold_for(recall=r, confidence=c)
    k = _brute_recall_order(n1, r, c)
    assert g.order == k and g.achieved == (k > 0)
    pos = np.sort(s[y == 1])
    if k:
        assert g.threshold == pos[k - 1]
        assert g.sample_recall == pytest.approx((n1 - k + 1) / n1)
        assert g.recall == pytest.approx((n1 - k + 1) / (n1 + 1))
    else:
        assert g.threshold == -np.inf and g.recall == 1.0


@pytest.mark.parametrize("n0, f, c", [(300, 0.05, 0.95), (1000, 0.01, 0.9), (40, 0.1, 0.95),
                                      (20, 0.01, 0.95)])
def test_fpr_threshold_is_just_above_the_order_statistic(n0, f, c):
    rng = np.random.default_rng(n0)
    y = np.repeat([0, 1], [n0, 50])
    s = rng.normal(1.5 * y, 1.0)
    g = bacc.scores(y, s).threshold_for(fpr=f, confidence=c)
    k = _brute_fpr_order(n0, f, c)
    neg = np.sort(s[y == 0])
    if k <= n0:
        assert g.achieved and neg[k - 1] < g.threshold <= np.nextafter(neg[k - 1], np.inf)
        assert g.sample_fpr == pytest.approx((n0 - k) / n0)
        # the recall there comes from the positives, which did not choose the threshold
        tp = int(np.sum(s[y == 1] >= g.threshold))
        assert g.recall == pytest.approx((tp + 1) / 52)
        lo = stats.beta.ppf((1 - c) / 2, tp, 50 - tp + 1) if tp else 0.0
        assert g.recall_lower == pytest.approx(lo, abs=1e-10)
    else:
        assert not g.achieved and g.threshold == np.inf and g.alarm_rate == 0.0


def _simulate(target: str, goal: float, c: float, n1: int, n0: int, draw, truth, reps: int,
              seed: int) -> float:
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n0, n1])
    kept = 0
    for _ in range(reps):
        s = np.concatenate([draw(rng, n0, 0), draw(rng, n1, 1)])
        g = bacc.scores(y, s).threshold_for(**{target: goal}, confidence=c)
        rate = truth(g.threshold)
        kept += rate >= goal - 1e-12 if target != "fpr" else rate <= goal + 1e-12
    return kept / reps


def _normal(rng, n, cls):
    return rng.normal(1.0 * cls, 1.0, n)


def _rating(rng, n, cls):  # five ratings: many ties
    return np.searchsorted([-0.5, 0.5, 1.5, 2.5], rng.normal(1.0 * cls, 1.0, n)).astype(float)


def _rating_sf(t, mu):
    """P(rating >= t) for the rating design."""
    edges = np.array([-np.inf, -0.5, 0.5, 1.5, 2.5, np.inf])
    p = np.diff(stats.norm.cdf(edges - mu))
    return float(p[np.arange(5) >= t].sum())


@pytest.mark.parametrize("design", ["continuous", "ties"])
def test_recall_promise_kept_in_quick_simulation(design):
    draw = _normal if design == "continuous" else _rating
    truth = ((lambda t: stats.norm.sf(t - 1.0)) if design == "continuous"
             else (lambda t: _rating_sf(t, 1.0)))
    kept = _simulate("recall", 0.9, 0.9, 30, 50, draw, truth, 1500, 1)
    assert kept >= 0.9 - 3 * math.sqrt(0.09 / 1500)


def test_fpr_promise_kept_in_quick_simulation():
    kept = _simulate("fpr", 0.1, 0.9, 20, 60, _normal, lambda t: stats.norm.sf(t), 1500, 2)
    assert kept >= 0.9 - 3 * math.sqrt(0.09 / 1500)


def test_precision_promise_kept_in_quick_simulation():
    pi = 0.2

    def truth(t):
        rec, fpr = stats.norm.sf(t - 3.0), stats.norm.sf(t)
        return 1.0 if rec == 0 else pi * rec / (pi * rec + (1 - pi) * fpr)

    draw = lambda rng, n, cls: rng.normal(3.0 * cls, 1.0, n)  # noqa: E731
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [2000, 200])
    kept, n, achieved = 0, 600, 0
    for _ in range(n):
        s = np.concatenate([draw(rng, 2000, 0), draw(rng, 200, 1)])
        g = bacc.scores(y, s).threshold_for(precision=0.8, prevalence=pi, confidence=0.9)
        achieved += g.achieved
        kept += (not g.achieved) or truth(g.threshold) >= 0.8
    assert achieved > n / 2
    assert kept / n >= 0.9 - 3 * math.sqrt(0.09 / n)


def test_alarm_rate_and_precision_follow_from_the_rates():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], [400, 100])
    sc = bacc.scores(y, rng.normal(2.0 * y, 1.0))
    g = sc.threshold_for(recall=0.8, prevalence=0.01)
    assert g.prevalence == 0.01
    assert g.alarm_rate == pytest.approx(0.01 * g.recall + 0.99 * g.fpr)
    assert g.precision == pytest.approx(0.01 * g.recall / g.alarm_rate)
    assert sc.threshold_for(recall=0.8).prevalence == pytest.approx(0.2)
    d = json.loads(json.dumps(g.to_dict(), allow_nan=False))
    assert d["statement"].startswith("score >= ")
    assert pickle.loads(pickle.dumps(g)) == g


@pytest.mark.parametrize("kw, match", [
    ({}, "exactly one goal"), ({"recall": 0.9, "fpr": 0.1}, "exactly one goal"),
    ({"recall": 0.0}, "recall"), ({"recall": 1.5}, "recall"), ({"fpr": 1.0}, "fpr"),
    ({"fpr": -0.1}, "fpr"), ({"precision": 0.0}, "precision"), ({"recall": float("nan")}, "recall"),
    ({"recall": 0.9, "confidence": 1.0}, "confidence"),
    ({"precision": 0.9, "prevalence": 0.0}, "prevalence"), ({"recall": "0.9"}, "recall"),
])
def test_bad_goals_are_refused(kw, match):
    sc = bacc.scores([0, 1, 0, 1, 1], [0.1, 0.4, 0.35, 0.8, 0.9])
    with pytest.raises(bacc.BaccError, match=match):
        sc.threshold_for(**kw)
