"""Anytime-valid intervals (bacc.anytime): the martingale against quadrature, the bounds against
root finding and brute force, coverage under continuous peeking by simulation, and bad input."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import bacc
from bacc._engine.bounds import anytime as engine
from bacc.anytime import anytime_bounds

ALPHA = 0.05
L = math.log(1 / ALPHA)


def _floor(x):
    """The prior parameters' smooth floor at 1/2, in high precision."""
    return x + mp.exp(-2 * x) / 2


def _mixture_quadrature(p0, k, n, c, side):
    """The mixture of likelihood ratios by mpmath quadrature over the prior (50 digits)."""
    mp.mp.dps = 50
    p0, c = mp.mpf(p0), mp.mpf(c)
    a, b = _floor(c * p0), _floor(c * (1 - p0))
    if side == "upper":
        return _mixture_quadrature(1 - p0, n - k, n, c, "lower")
    dens = lambda q: q ** (a - 1) * (1 - q) ** (b - 1) / mp.beta(a, b)  # noqa: E731
    lr = lambda q: (q / p0) ** k * ((1 - q) / (1 - p0)) ** (n - k)  # noqa: E731
    lo = p0 if side == "lower" else mp.mpf(0)
    points = [lo, p0, 1] if side == "two" else [lo, 1]
    num = mp.quad(lambda q: lr(q) * dens(q), sorted(set(points)))
    if side == "lower":
        num /= mp.quad(dens, [lo, 1])
    return float(mp.log(num))


@pytest.mark.parametrize("side", ["two", "lower", "upper"])
@pytest.mark.parametrize("p0,k,n,c", [(0.5, 30, 50, 12.0), (0.9, 95, 100, 40.0),
                                      (0.2, 3, 40, 5.0), (0.97, 60, 60, 125.0),
                                      (0.999, 990, 1000, 300.0), (0.3, 0, 7, 2.5)])
def test_log_mixture_equals_quadrature(side, p0, k, n, c):
    got = float(engine.log_mixture(p0, k, n, c, side))
    assert got == pytest.approx(_mixture_quadrature(p0, k, n, c, side), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("side", ["two", "lower", "upper"])
def test_mixture_of_fixed_counts_at_every_null_and_at_the_ends(side):
    """The searches' form (counts fixed once, nulls varying): a vector of nulls gives what each
    null gives alone (the counts' precomputed parts line up with every shape), past the
    stable-form size too; at p = 0 and 1 the value is +inf exactly where the data rule the null
    out (a success against p = 0, a failure against p = 1) and otherwise the limit from inside."""
    rng = np.random.default_rng(7)
    n = rng.integers(0, 60, (50, 3)).astype(float)
    k = np.floor(rng.uniform(0, 1, n.shape) * (n + 1)).clip(max=n)
    c = rng.uniform(0.5, 300.0, n.shape)
    for kk, nn in ((k, n), (k * 4e3, n * 4e3)):  # the second pass: n > 1e5 for some
        f = engine.mixture_of(kk, nn, c, side)
        p = rng.uniform(0, 1, n.shape)
        alone = np.array([[float(engine.mixture_of(kk[i, j], nn[i, j], c[i, j], side)(p[i, j]))
                           for j in range(3)] for i in range(50)])
        np.testing.assert_allclose(f(p), alone, rtol=1e-13, atol=0)
        at0, at1 = f(np.zeros(n.shape)), f(np.ones(n.shape))
        assert np.all(np.isposinf(at0[kk > 0])) and np.all(np.isposinf(at1[nn > kk]))
        if side == "two":  # (a one-sided prior truncated to [1, 1] or [0, 0] has no mass)
            assert np.all(np.isfinite(at0[kk == 0])) and np.all(np.isfinite(at1[nn == kk]))
            near0, near1 = f(np.full(n.shape, 1e-13)), f(np.full(n.shape, 1 - 1e-13))
            np.testing.assert_allclose(at0[kk == 0], near0[kk == 0], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(at1[nn == kk], near1[nn == kk], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("side", ["two", "lower"])
@pytest.mark.parametrize("p,c", [(0.5, 10.0), (0.93, 125.0), (0.999, 30.0)])
def test_the_mixture_is_a_martingale_under_its_null(side, p, c):
    """E[M_{n+1} | k, n] = p M(k + 1, n + 1) + (1 - p) M(k, n + 1) = M(k, n), exactly."""
    n = np.arange(0, 60)
    for k in (np.zeros_like(n), n // 2, n):
        now = np.exp(engine.log_mixture(p, k, n, c, side))
        nxt = (p * np.exp(engine.log_mixture(p, k + 1, n + 1, c, side))
               + (1 - p) * np.exp(engine.log_mixture(p, k, n + 1, c, side)))
        np.testing.assert_allclose(nxt, now, rtol=1e-10)


@pytest.mark.parametrize("k,n", [(900, 1000), (0, 10), (10, 10), (3, 50), (999, 1000), (1, 1),
                                 (0, 1), (50, 100), (123456, 200000)])
@pytest.mark.parametrize("tuned", [30, 1000])
def test_bounds_are_the_ends_of_the_set(k, n, tuned):
    c = float(engine.concentration(tuned, ALPHA))
    lo, hi = anytime_bounds(k, n, tuned_for=tuned)
    f = lambda p: float(engine.log_mixture(p, k, n, c)) - L  # noqa: E731
    p_hat = k / n
    if k == 0:
        assert lo == 0.0
    else:
        ref = optimize.brentq(f, 1e-300, p_hat, xtol=1e-15, rtol=1e-15)
        assert lo == pytest.approx(ref, abs=1e-12)
        assert f(lo) >= -1e-9  # from the side where the null is ruled out
    if k == n:
        assert hi == 1.0
    else:
        ref = optimize.brentq(f, max(p_hat, 1e-300), 1 - 1e-16, xtol=1e-15, rtol=1e-15)
        assert hi == pytest.approx(ref, abs=1e-12)


def test_one_sided_bound_is_tighter_and_wider_than_fixed_n():
    for k, n in [(40, 50), (900, 1000), (5, 30)]:
        lo2, _ = anytime_bounds(k, n)
        lo1, hi1 = anytime_bounds(k, n, sides="lower")
        assert hi1 == 1.0 and lo1 > lo2
        # wider than the Clopper-Pearson interval for a sample size fixed in advance
        cp_lo = stats.beta.ppf(ALPHA / 2, k, n - k + 1)
        assert lo2 < cp_lo
        _, hi_u = anytime_bounds(k, n, sides="upper")
        assert 1 - anytime_bounds(n - k, n, sides="lower")[0] == pytest.approx(hi_u, abs=1e-14)


def _brute_two_class(k, n, tuned, w):
    c = engine.concentration(tuned, ALPHA)
    grid = np.linspace(0, 1, 6001)
    f1 = engine.log_mixture(grid[:, None], k[0], n[0], c)
    f2 = engine.log_mixture(grid[None, :], k[1], n[1], c)
    inside = (f1 + f2) < L
    value = w[0] * grid[:, None] + w[1] * grid[None, :]
    return value[inside].min(), value[inside].max()


@pytest.mark.parametrize("k,n,w", [((90, 40), (100, 50), (0.5, 0.5)),
                                   ((9, 400), (10, 500), (0.5, 0.5)),
                                   ((0, 30), (5, 30), (0.5, 0.5)),
                                   ((999, 80), (1000, 100), (0.5, 0.5)),
                                   ((45, 20), (50, 40), (0.7, 0.3))])
def test_balanced_accuracy_bounds_equal_brute_force(k, n, w):
    """The dual's bounds against the set's minimum and maximum on a 6001 x 6001 grid."""
    cm = [[k[0], n[0] - k[0]], [n[1] - k[1], k[1]]]
    iv = bacc.anytime_interval(cm, tuned_for=100, weights=list(w))
    lo, hi = _brute_two_class(np.array(k), np.array(n), 100, np.array(w))
    step = 2e-4
    assert iv.lower == pytest.approx(lo, abs=step) and iv.lower <= lo + 1e-12
    assert iv.upper == pytest.approx(hi, abs=step) and iv.upper >= hi - 1e-12


def test_three_classes_equal_constrained_optimisation():
    k, n = np.array([40.0, 70.0, 15.0]), np.array([50.0, 100.0, 20.0])
    c = engine.concentration(100, ALPHA)
    cons = {"type": "ineq",
            "fun": lambda p: L - float(np.sum(engine.log_mixture(p, k, n, c)))}
    best = min(
        optimize.minimize(lambda p: p.mean(), x0=start, bounds=[(1e-9, 1 - 1e-9)] * 3,
                          constraints=[cons], method="SLSQP", options={"ftol": 1e-14}).fun
        for start in (k / n, k / n - 0.05))
    cm = np.diag(k.astype(int)) + np.array([[0, 10, 0], [30, 0, 0], [5, 0, 0]])
    assert bacc.anytime_interval(cm, tuned_for=100, sides="lower").lower == pytest.approx(
        bacc.anytime_interval(cm, tuned_for=100).lower, abs=1e-12)  # one end of one set
    iv = bacc.anytime_interval(cm, tuned_for=100)
    assert iv.lower == pytest.approx(best, abs=1e-6)


def test_balanced_accuracy_exploits_the_slack_of_the_union_bound():
    """At the tuned size the two-class sequence is at most 1.2 x the fixed-n union-bound width
    (the aim), while each class's own sequence is wider than its Clopper-Pearson interval."""
    for n, acc in [(100, (0.9, 0.8)), (1000, (0.9, 0.8)), (1000, (0.6, 0.95))]:
        k = [round(a * n) for a in acc]
        cm = [[k[0], n - k[0]], [n - k[1], k[1]]]
        seq = bacc.anytime_interval(cm, tuned_for=n)
        fixed = bacc.exact_interval(cm, method="union")
        assert seq.width <= 1.2 * fixed.width
        assert seq.lower < seq.estimate < seq.upper


def _clopper_pearson_critical(p, n):
    """For each n, the largest count k with P(K <= k) <= alpha/2 (-1 if none) and the smallest
    with P(K >= k) <= alpha/2 (n + 1 if none), K ~ Binomial(n, p): the 95 % Clopper-Pearson
    interval excludes p exactly at counts outside (lo, hi). Found from scipy's quantiles and
    checked against its tail probabilities on both sides."""
    a = ALPHA / 2
    lo = stats.binom.ppf(a, n, p).astype(np.int64)
    for _ in range(3):  # the quantile is the smallest k with cdf >= a: step to cdf <= a
        lo = np.where((lo >= 0) & (stats.binom.cdf(lo, n, p) > a), lo - 1, lo)
        lo = np.where((lo + 1 <= n) & (stats.binom.cdf(lo + 1, n, p) <= a), lo + 1, lo)
    hi = stats.binom.isf(a, n, p).astype(np.int64) + 1
    for _ in range(3):
        hi = np.where((hi >= 1) & (stats.binom.sf(hi - 2, n, p) <= a), hi - 1, hi)
        hi = np.where((hi <= n) & (stats.binom.sf(hi - 1, n, p) > a), hi + 1, hi)
    return np.maximum(lo, -1), np.minimum(hi, n + 1)


def test_clopper_pearson_critical_counts_equal_the_tail_tables():
    """The quantile shortcut gives the same critical counts as scanning every tail probability."""
    n = np.arange(1, 801)
    ks = np.arange(0, 801)
    for p in (0.5, 0.9, 0.995, 0.02):
        lo, hi = _clopper_pearson_critical(p, n)
        lower_tail = stats.binom.cdf(ks[None, :], n[:, None], p) <= ALPHA / 2
        upper_tail = stats.binom.sf(ks[None, :] - 1, n[:, None], p) <= ALPHA / 2
        scan_lo = np.array([r.nonzero()[0].max() if r.any() else -1 for r in lower_tail])
        scan_hi = np.array([r.nonzero()[0].min() if r.any() else 801 for r in upper_tail])
        scan_hi = np.minimum(scan_hi, n + 1)
        np.testing.assert_array_equal(lo, scan_lo)
        np.testing.assert_array_equal(hi, scan_hi)


def _critical_counts_by_scan(p, m, c):
    """For ``m`` labels, the largest count at or below ``round(p m)`` at which the sequence
    excludes ``p`` (-1 if none) and the smallest at or above it (``labels + 1`` if none,
    returned as None), from ``log M`` at every count."""
    centre = int(round(p * m))
    out = engine.log_mixture(p, np.arange(m + 1), m, c) >= L
    below = np.nonzero(out[: centre + 1])[0]
    above = np.nonzero(out[centre:])[0]
    return (int(below.max()) if below.size else -1,
            centre + int(above.min()) if above.size else None)


def _critical_counts(p, labels, c):
    """:func:`_critical_counts_by_scan` for every ``m`` up to ``labels`` at once, by bisection.

    ``log M`` is convex in the count (a sum of log-gammas of ``a + k`` and ``b + m - k`` less a
    linear term), so the counts where it is below ``L`` form an interval. Where ``round(p m)``
    is outside it, both critical counts are ``round(p m)`` itself; where inside, the counts
    below it are excluded up to the interval's start and those above from its end on: two
    monotone predicates, each found by bisection over all ``m`` together (about 14 steps
    instead of every count)."""
    m = np.arange(1, labels + 1)
    centre = np.rint(p * m).astype(np.int64)

    def excluded(k):
        return engine.log_mixture(p, k.astype(float), m.astype(float), c) >= L

    at_centre = excluded(centre)
    # below the centre: the last excluded count, in [-1, centre - 1] where the centre is not
    lo, hi = np.full(labels, -1), centre.copy()  # excluded(lo) (or lo = -1), not excluded(hi)
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        ex = excluded(np.maximum(mid, 0))
        lo, hi = np.where(ex, mid, lo), np.where(ex, hi, mid)
    lo_crit = np.where(at_centre, centre, lo)
    # above the centre: the first excluded count, in [centre + 1, m + 1]
    lo2, hi2 = centre.copy(), m + 1  # not excluded(lo2), excluded(hi2) (or hi2 = m + 1)
    while np.any(hi2 - lo2 > 1):
        mid = (lo2 + hi2) // 2
        ex = excluded(np.minimum(mid, m))
        lo2, hi2 = np.where(ex, lo2, mid), np.where(ex, mid, hi2)
    hi_crit = np.where(at_centre, centre, np.where(hi2 > m, labels + 1, hi2))
    return lo_crit, hi_crit


def test_critical_counts_by_bisection_are_those_of_every_count():
    """The bisection of :func:`_critical_counts` against ``log M`` at every count, for the
    first 300 sizes and every 37th beyond, at the accuracies of the long peeking checks."""
    c = engine.concentration(1000, ALPHA)
    sizes = sorted(set(range(1, 301)) | set(range(301, 10_001, 37)))
    for p in (0.5, 0.9, 0.995):
        lo_crit, hi_crit = _critical_counts(p, 10_000, c)
        for m in sizes:
            lo, hi = _critical_counts_by_scan(p, m, c)
            assert (lo_crit[m - 1], hi_crit[m - 1]) == (lo, 10_001 if hi is None else hi), (p, m)


def _crossing_share(p, labels, streams, tuned, seed):
    """Share of streams in which the sequence of one proportion ever excludes p, and the same
    for the 95 % Clopper-Pearson interval recomputed after every label."""
    rng = np.random.default_rng(seed)
    n = np.arange(1, labels + 1)
    c = engine.concentration(tuned, ALPHA)
    # for each n, the counts k at which p is excluded: k <= lo_n or k >= hi_n
    lo_crit, hi_crit = _critical_counts(p, labels, c)
    cp_lo, cp_hi = _clopper_pearson_critical(p, n)
    seq_fail = cp_fail = 0
    for start in range(0, streams, 500):
        size = min(500, streams - start)
        k = np.cumsum(rng.random((size, labels)) < p, axis=1)
        seq_fail += np.any((k <= lo_crit) | (k >= hi_crit), axis=1).sum()
        cp_fail += np.any((k <= cp_lo) | (k >= cp_hi), axis=1).sum()
    return seq_fail / streams, cp_fail / streams


@pytest.mark.parametrize("p", [0.5, 0.9, 0.995])
def test_coverage_under_continuous_peeking(p):
    """Looked at after every label up to 1 000 labels in 4 000 streams, the sequence ever
    excludes the truth in at most alpha of streams (+ 3 Monte Carlo standard errors), while the
    fixed-n Clopper-Pearson interval does far more often."""
    streams = 4000
    seq, cp = _crossing_share(p, 1000, streams, tuned=100, seed=7)
    se = math.sqrt(ALPHA * (1 - ALPHA) / streams)
    assert seq <= ALPHA + 3 * se
    assert cp > 2 * ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.5, 0.9, 0.995])
def test_coverage_under_continuous_peeking_long(p):
    """10 000 streams of 10 000 labels each (the README's experiment)."""
    streams = 10_000
    seq, cp = _crossing_share(p, 10_000, streams, tuned=1000, seed=11)
    se = math.sqrt(ALPHA * (1 - ALPHA) / streams)
    assert seq <= ALPHA + 3 * se
    assert cp > 3 * ALPHA


def _product_crossing(prevalence, acc, labels, streams, tuned, seed):
    """Share of streams where the product martingale at the true accuracies ever reaches
    1/alpha: the event that contains every failure of the balanced-accuracy sequence."""
    rng = np.random.default_rng(seed)
    acc = np.asarray(acc)
    c = engine.concentration(tuned, ALPHA)
    fails = 0
    for _ in range(streams // 200):
        cls = rng.choice(len(prevalence), size=(200, labels), p=prevalence)
        ok = rng.random((200, labels)) < acc[cls]
        total = np.zeros((200, labels))
        for j in range(len(prevalence)):
            nj = np.cumsum(cls == j, axis=1)
            kj = np.cumsum((cls == j) & ok, axis=1)
            total += engine.log_mixture(acc[j], kj, nj, c)
        fails += np.any(total >= L, axis=1).sum()
    return fails / streams


@pytest.mark.parametrize("prevalence,acc", [((0.95, 0.05), (0.97, 0.7)),
                                            ((0.2, 0.2, 0.2, 0.2, 0.2), (0.9, 0.8, 0.6, 0.95, 0.5))])
def test_balanced_accuracy_coverage_under_continuous_peeking(prevalence, acc):
    streams = 2000
    share = _product_crossing(prevalence, acc, 1000, streams, tuned=100, seed=3)
    assert share <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / streams)


def test_sequence_failures_lie_inside_the_martingale_event():
    """On streams of a two-class design, every look where the computed interval excludes the
    true balanced accuracy is one where the product martingale at the truth is >= 1/alpha."""
    rng = np.random.default_rng(5)
    acc = np.array([0.9, 0.6])
    truth = acc.mean()
    c = engine.concentration(100, ALPHA)
    for _ in range(6):
        t = (rng.random(300) < 0.3).astype(int)
        ok = rng.random(300) < acc[t]
        seq = bacc.confidence_sequence(t, np.where(ok, t, 1 - t), running_intersection=False,
                                       tuned_for=100)
        out = (seq.lower > truth) | (seq.upper < truth)
        nj = np.stack([np.cumsum(t == j) for j in (0, 1)], axis=1)
        kj = np.stack([np.cumsum((t == j) & ok) for j in (0, 1)], axis=1)
        mart = sum(engine.log_mixture(acc[j], kj[:, j], nj[:, j], c) for j in (0, 1))
        assert np.all(mart[out] >= L - 1e-9)


def test_sequence_at_the_last_look_equals_the_interval_of_the_counts():
    rng = np.random.default_rng(2)
    t = rng.integers(0, 3, 400)
    p = np.where(rng.random(400) < 0.8, t, (t + 1) % 3)
    seq = bacc.confidence_sequence(t, p, running_intersection=False, looks=[100, 400])
    for look, lo, hi in zip(seq.n, seq.lower, seq.upper, strict=True):
        iv = bacc.anytime_interval(bacc.ConfusionMatrix.from_predictions(t[:look], p[:look]))
        assert (lo, hi) == pytest.approx((iv.lower, iv.upper), abs=1e-12)
    inter = bacc.confidence_sequence(t, p)
    assert np.all(np.diff(inter.lower) >= 0) and np.all(np.diff(inter.upper) <= 0)
    acc = bacc.confidence_sequence(t, p, metric="accuracy")
    lo, hi = anytime_bounds(int((t == p).sum()), 400)
    assert acc.lower[-1] >= lo - 1e-15 and acc.upper[-1] <= hi + 1e-15


def test_closed_form_edges():
    # all perfect: the upper bound is 1 and the lower bound solves M = 1/alpha, in closed form
    # B(a + n, b) / B(a, b) / p^n = 1 / alpha at the root
    for n in (1, 10, 200):
        lo, hi = anytime_bounds(n, n)
        assert hi == 1.0
        c = float(engine.concentration(100, ALPHA))
        a, b = float(_floor(mp.mpf(c * lo))), float(_floor(mp.mpf(c * (1 - lo))))
        from scipy.special import betaln
        assert betaln(a + n, b) - betaln(a, b) - n * math.log(lo) == pytest.approx(L, abs=1e-8)
        lo0, hi0 = anytime_bounds(0, n)  # all wrong: the mirror image
        assert lo0 == 0.0 and hi0 == pytest.approx(1 - lo, abs=1e-14)
    iv = bacc.anytime_interval([[5, 0], [0, 7]])
    assert iv.upper == 1.0 and iv.estimate == 1.0
    iv = bacc.anytime_interval([[0, 5], [7, 0]])
    assert iv.lower == 0.0 and iv.estimate == 0.0
    # a class with no examples is unconstrained: the bound is half the other class's own
    one = bacc.anytime_interval([[1, 0], [0, 0]], empty="keep")
    assert one.upper == 1.0
    assert one.lower == pytest.approx(0.5 * anytime_bounds(1, 1)[0], abs=1e-9)


@pytest.mark.parametrize("p,k,n,c", [(0.9, 900_321, 10**6, 125.0), (0.5, 5 * 10**8 + 40_000, 10**9, 12.0),
                                      (0.999, 10**13 - 10**10 + 3 * 10**6, 10**13, 300.0),
                                      (0.2, 0, 10**6, 40.0), (0.7, 10**7, 10**7, 80.0)])
def test_log_mixture_at_huge_counts_equals_the_closed_form_in_high_precision(p, k, n, c):
    mp.mp.dps = 60
    a, b = _floor(mp.mpf(c) * p), _floor(mp.mpf(c) * (1 - mp.mpf(p)))
    ref = (mp.log(mp.beta(a + k, b + n - k)) - mp.log(mp.beta(a, b))
           - k * mp.log(mp.mpf(p)) - (n - k) * mp.log(1 - mp.mpf(p)))
    got = float(engine.log_mixture(p, k, n, c))
    assert got == pytest.approx(float(ref), rel=1e-8, abs=1e-7)  # 1e13 counts: D to 1e-3


def test_huge_counts_stay_accurate():
    for n in (10**9, 10**13):
        k = int(0.9 * n)
        lo, hi = anytime_bounds(k, n, tuned_for=n)
        half = hi - 0.9
        assert 0 < half < 1e-3 and 0.9 - lo == pytest.approx(half, rel=1e-3)
        assert lo < 0.9 < hi


def test_tuned_for_follows_labels():
    cm = bacc.ConfusionMatrix([[40, 10], [3, 17]], ("a", "b"))
    by_label = bacc.anytime_interval(cm, tuned_for={"b": 30, "a": 500})
    by_order = bacc.anytime_interval(cm, tuned_for=[500, 30])
    assert (by_label.lower, by_label.upper) == (by_order.lower, by_order.upper)
    flipped = bacc.ConfusionMatrix([[17, 3], [10, 40]], ("b", "a"))
    again = bacc.anytime_interval(flipped, tuned_for={"b": 30, "a": 500})
    assert (again.lower, again.upper) == pytest.approx((by_label.lower, by_label.upper), abs=1e-12)


@pytest.mark.parametrize("kwargs,match", [
    ({"confidence": 1.0}, "confidence"), ({"confidence": 0.0}, "confidence"),
    ({"confidence": float("nan")}, "confidence"), ({"tuned_for": 0}, "tuned_for"),
    ({"tuned_for": -5}, "tuned_for"), ({"tuned_for": float("nan")}, "tuned_for"),
    ({"tuned_for": True}, "tuned_for"), ({"tuned_for": 1e300}, "at most"), ({"tuned_for": "many"}, "tuned_for"),
    ({"tuned_for": [10, 20, 30]}, "tuned_for"), ({"tuned_for": {"x": 3, "a": 4}}, "x"),
    ({"sides": "both"}, "sides"), ({"metric": "recall"}, "metric"),
])
def test_bad_input_is_refused(kwargs, match):
    cm = bacc.ConfusionMatrix([[40, 10], [3, 17]], ("a", "b"))
    with pytest.raises(bacc.BaccError, match=match):
        bacc.anytime_interval(cm, **kwargs)


@pytest.mark.parametrize("kwargs,match", [
    ({"looks": [0, 3]}, "looks"), ({"looks": [3, 2]}, "looks"), ({"looks": [2, 99]}, "looks"),
    ({"looks": [1.5]}, "looks"), ({"looks": []}, "looks"), ({"tuned_for": [1, 2, 3]}, "tuned_for"),
    ({"metric": "accuracy", "tuned_for": [1, 2]}, "tuned_for"),
])
def test_bad_stream_input_is_refused(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.confidence_sequence([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], **kwargs)


def test_bad_counts_are_refused():
    for k, n in [(5, 3), (-1, 3), (1.5, 3), (float("nan"), 3)]:
        with pytest.raises(bacc.BaccError):
            anytime_bounds(k, n)
    with pytest.raises(bacc.BaccError, match="missing"):
        bacc.confidence_sequence([0, None, 1], [0, 1, 1])


def test_results_travel_and_print():
    import copy
    import json
    import pickle

    seq = bacc.confidence_sequence(["x", "y", "y", "x"] * 10, ["x", "y", "x", "x"] * 10)
    for obj in (seq, seq.final, bacc.anytime_interval([[42, 3], [6, 4]])):
        json.dumps(obj.to_dict(), allow_nan=False)
        again = pickle.loads(pickle.dumps(obj))
        assert again.to_dict() == obj.to_dict() == copy.deepcopy(obj).to_dict()
    assert "every look" in repr(seq)
    assert "Anytime-valid" in str(bacc.anytime_interval([[42, 3], [6, 4]]))
    assert bacc.intervals.METHODS["anytime"].guaranteed
    with pytest.raises(ValueError):
        seq.lower[0] = 0.5  # frozen arrays


@pytest.mark.parametrize("times,match", [
    (["2026-01-02", "2026-01-01", "2026-01-03", "2026-01-04", "2026-01-05"], "out of order"),
    ([3, 2, 5, 6, 7], "out of order"), ([1, None, 3, 4, 5], "missing"), ([1, 2], "one time"),
    ([object(), 1, 2, 3, 4], "times"),
])
def test_labels_out_of_order_are_refused(times, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.confidence_sequence([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], times=times)


def test_times_in_order_change_nothing():
    y, p = [0, 1, 1, 0, 1] * 4, [0, 1, 0, 0, 1] * 4
    days = pd.date_range("2026-01-01", periods=20, freq="D")
    a = bacc.confidence_sequence(y, p, times=days)
    b = bacc.confidence_sequence(y, p)
    assert a.to_dict() == b.to_dict()
