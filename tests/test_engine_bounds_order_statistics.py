"""Claims of ``bacc._engine.bounds.order_statistics`` (thresholds with a guarantee).

References, independent of the module:

* the ranks: a brute-force search over every ``k`` with ``scipy.stats.binom``, and for small
  ``n`` exact rational binomial sums (``fractions``);
* the false-positive threshold is the risk-controlling one of Bates et al. (2021) with the
  Clopper-Pearson bound (``scipy.stats.beta``): at most the target at the returned threshold,
  above it one order statistic lower;
* the thresholds: ``numpy.sort`` of the scores (repeated by their counts for tallies);
* the guarantees: seeded simulations with continuous (normal) and discrete (Poisson) scores,
  whose recall and false-positive rate at any threshold are known exactly;
* precision at a prevalence: the rule re-implemented here with ``scipy.stats.beta`` and loops
  over thresholds, and a simulation of its guarantee (true recall and false-positive rate of
  binormal scores, rounded or not).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from bacc._engine import roc
from bacc._engine.bounds import order_statistics as ost
from bacc.errors import BaccError

SIZES = [1, 2, 5, 20, 100, 1000]
RECALLS = [0.5, 0.8, 0.9, 0.95, 0.99, 1.0]
CONFIDENCES = [0.5, 0.9, 0.95, 0.99]


def binom_tail_exact(n: int, q: Fraction, k: int) -> Fraction:
    """P(Binom(n, q) >= k), exactly."""
    return sum((Fraction(math.comb(n, i)) * q**i * (1 - q) ** (n - i) for i in range(k, n + 1)),
               Fraction(0))  # fmt: skip


# ------------------------------------------------------------------------------------- ranks


@pytest.mark.parametrize("n", SIZES)
def test_recall_rank_is_the_largest_qualifying_k(n):
    k_all = np.arange(1, n + 1)
    for r in RECALLS:
        for c in CONFIDENCES:
            ok = stats.binom.sf(k_all - 1, n, 1 - r) >= c
            want = int(k_all[ok].max()) if ok.any() else 0
            assert ost.recall_rank(n, r, c) == want, (n, r, c)


@pytest.mark.parametrize("n", SIZES)
def test_fpr_rank_is_the_smallest_qualifying_k(n):
    k_all = np.arange(1, n + 2)
    for f in [0.0, 0.01, 0.05, 0.2, 0.5]:
        for c in CONFIDENCES:
            ok = stats.binom.cdf(k_all - 1, n, 1 - f) >= c
            assert ost.fpr_rank(n, f, c) == int(k_all[ok].min()), (n, f, c)


def test_ranks_asked_again_are_kept_and_unchanged():
    """A simulation or a monitor asks for the ranks of one size again and again: they are kept
    (functools.lru_cache), the same numbers as the brute-force search, and the ranks of an
    int64 size are those of the int."""
    for rank in (ost.recall_rank, ost.fpr_rank):
        rank.cache_clear()
    k_all = np.arange(1, 302)
    want_fpr = int(k_all[stats.binom.cdf(k_all - 1, 300, 0.9) >= 0.95].min())
    ok = stats.binom.sf(k_all[:300] - 1, 300, 0.1) >= 0.95
    want_recall = int(k_all[:300][ok].max())
    for _ in range(3):
        assert ost.fpr_rank(300, 0.1, 0.95) == want_fpr
        assert ost.recall_rank(np.int64(300), 0.9, 0.95) == want_recall
        assert ost.recall_rank(300, 0.9, 0.95) == want_recall
    assert ost.fpr_rank.cache_info().hits == 2 and ost.fpr_rank.cache_info().misses == 1
    assert ost.recall_rank.cache_info().hits == 5 and ost.recall_rank.cache_info().misses == 1


@pytest.mark.parametrize("n", [1, 3, 10, 25, 40])
def test_ranks_by_exact_rational_sums(n):
    for r, c in [(0.9, 0.95), (0.8, 0.9), (0.5, 0.5), (0.95, 0.99)]:
        q = 1 - Fraction(r)
        k = ost.recall_rank(n, r, c)
        if k:
            assert binom_tail_exact(n, q, k) >= Fraction(c)
        if k < n:
            assert binom_tail_exact(n, q, k + 1) < Fraction(c)
        # fpr: P(Binom(n, 1 - f) <= k - 1) = 1 - P(. >= k)
        f = 1 - r
        qf = 1 - Fraction(f)
        kf = ost.fpr_rank(n, f, c)
        if kf <= n:
            assert 1 - binom_tail_exact(n, qf, kf) >= Fraction(c)
        if kf > 1:
            assert 1 - binom_tail_exact(n, qf, kf - 1) < Fraction(c)


def test_fpr_threshold_is_the_clopper_pearson_risk_controlling_threshold():
    """Bates et al. (2021) with the exact binomial upper bound of the false-positive rate: the
    bound at the returned threshold (fp = n - k of n above it) is at most the target, and one
    order statistic lower it is above."""
    rng = np.random.default_rng(0)
    neg = rng.normal(size=300)
    for f, c in [(0.1, 0.95), (0.05, 0.9), (0.3, 0.99)]:
        t, k = ost.fpr_threshold(neg, f, c)
        n = neg.size
        fp = int(np.sum(neg >= t))
        assert fp == n - k
        cp_upper = lambda x, c=c, n=n: stats.beta.isf(1 - c, x + 1, n - x)  # noqa: E731
        assert cp_upper(fp) <= f < cp_upper(fp + 1)


# ------------------------------------------------------------------------------- thresholds


def test_thresholds_are_the_order_statistics():
    rng = np.random.default_rng(1)
    pos = np.round(rng.normal(size=200), 1)
    neg = np.round(rng.normal(size=300), 1)
    t, k = ost.recall_threshold(pos, 0.9, 0.95)
    assert k == ost.recall_rank(200, 0.9, 0.95) and t == np.sort(pos)[k - 1]
    assert np.mean(pos >= t) >= 0.9  # the sample recall is above the target
    t, k = ost.fpr_threshold(neg, 0.1, 0.95)
    assert k == ost.fpr_rank(300, 0.1, 0.95)
    assert t == np.nextafter(np.sort(neg)[k - 1], np.inf) and t > np.sort(neg)[k - 1]
    assert np.sum(neg >= t) == np.sum(neg > np.sort(neg)[k - 1])
    # from tallies: the same as the scores repeated by their counts
    v, cnt = np.unique(pos, return_counts=True)
    order = rng.permutation(v.size)
    assert ost.recall_threshold(v[order], 0.9, 0.95, counts=cnt[order]) == ost.recall_threshold(pos, 0.9, 0.95)
    v, cnt = np.unique(neg, return_counts=True)
    assert ost.fpr_threshold(v[::-1], 0.1, 0.95, counts=cnt[::-1]) == ost.fpr_threshold(neg, 0.1, 0.95)
    # integer and float32 scores
    assert ost.recall_threshold(np.arange(100), 0.9, 0.9)[0] == float(np.sort(np.arange(100))[ost.recall_rank(100, 0.9, 0.9) - 1])
    t32, _ = ost.fpr_threshold(neg.astype(np.float32), 0.1, 0.95)
    assert t32 == np.nextafter(np.sort(neg.astype(np.float32).astype(float))[k - 1], np.inf)


def test_none_possible_and_bad_arguments():
    assert ost.recall_threshold([0.1, 0.2, 0.3], 1.0, 0.9) == (-math.inf, 0)
    assert ost.recall_threshold([0.1, 0.2, 0.3], 0.9, 0.9) == (-math.inf, 0)  # 1 - 0.9^3 < 0.9
    assert ost.recall_threshold([0.1, 0.2, 0.3], 0.5, 0.8)[1] == 1  # 1 - 0.5^3 = 0.875
    assert ost.fpr_threshold([0.1, 0.2, 0.3], 0.0, 0.9) == (math.inf, 4)
    assert ost.fpr_threshold([0.1, 0.2, 0.3], 0.5, 0.9) == (math.inf, 4)  # 1 - 0.5^3 < 0.9
    assert ost.fpr_threshold([0.7] * 50, 0.1, 0.9) == (np.nextafter(0.7, 1.0), ost.fpr_rank(50, 0.1, 0.9))
    for bad in (0.0, 1.1, -0.2, float("nan"), True, "0.9"):
        with pytest.raises(BaccError, match="recall"):
            ost.recall_threshold([0.1, 0.2], bad, 0.9)
    for bad in (1.0, -0.1):
        with pytest.raises(BaccError, match="fpr"):
            ost.fpr_threshold([0.1, 0.2], bad, 0.9)
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(BaccError, match="confidence"):
            ost.recall_threshold([0.1, 0.2], 0.9, bad)
    with pytest.raises(BaccError, match="empty"):
        ost.recall_threshold([], 0.9, 0.9)
    with pytest.raises(BaccError, match="empty"):
        ost.fpr_threshold([0.1], 0.1, 0.9, counts=[0])
    with pytest.raises(BaccError, match="NaN"):
        ost.fpr_threshold([0.1, np.nan], 0.1, 0.9)
    with pytest.raises(BaccError, match="whole"):
        ost.recall_threshold([0.1, 0.2], 0.9, 0.9, counts=[1.5, 2])


# ------------------------------------------------------------------------------- guarantees


def recall_coverage(rng, reps, n, r, c, tied):
    """Share of samples whose threshold has true recall >= r: N(0, 1) or Poisson(3) scores."""
    t = np.empty(reps)
    for i in range(reps):
        x = rng.poisson(3.0, n).astype(float) if tied else rng.normal(size=n)
        t[i] = ost.recall_threshold(x, r, c)[0]
    # the true recall of every threshold at once (-inf: every score kept, recall 1)
    with np.errstate(invalid="ignore"):
        true = stats.poisson.sf(np.ceil(t) - 1, 3.0) if tied else stats.norm.sf(t)
    true = np.where(t == -math.inf, 1.0, true)
    return float(np.mean(true >= r))


def fpr_coverage(rng, reps, n, f, c, tied):
    """Share of samples whose threshold has true false-positive rate <= f: N(0, 1) or Poisson(2)."""
    t = np.empty(reps)
    for i in range(reps):
        y = rng.poisson(2.0, n).astype(float) if tied else rng.normal(size=n)
        t[i] = ost.fpr_threshold(y, f, c)[0]
    # P(Y >= t), t just above an observed score y_k: P(Y > y_k); +inf keeps no score
    with np.errstate(invalid="ignore"):
        true = stats.poisson.sf(np.floor(t), 2.0) if tied else stats.norm.sf(t)
    true = np.where(t == math.inf, 0.0, true)
    return float(np.mean(true <= f))


def test_recall_guarantee_by_simulation():
    rng = np.random.default_rng(2)
    n, r, c, reps = 40, 0.8, 0.9, 3000
    k = ost.recall_rank(n, r, c)
    exact = stats.binom.sf(k - 1, n, 1 - r)  # the coverage for a continuous score, >= c
    got = recall_coverage(rng, reps, n, r, c, tied=False)
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / reps)
    got = recall_coverage(rng, reps, n, r, c, tied=True)
    assert got >= c - 3 * math.sqrt(c * (1 - c) / reps)


def test_fpr_guarantee_by_simulation():
    rng = np.random.default_rng(3)
    n, f, c, reps = 40, 0.2, 0.9, 3000
    k = ost.fpr_rank(n, f, c)
    exact = stats.binom.cdf(k - 1, n, 1 - f)
    got = fpr_coverage(rng, reps, n, f, c, tied=False)
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / reps)
    got = fpr_coverage(rng, reps, n, f, c, tied=True)
    assert got >= c - 3 * math.sqrt(c * (1 - c) / reps)


# ---------------------------------------------------------------------- precision at prevalence


def reference_band_bounds(tp, fp, c):
    """The simultaneous bounds of "band", with scipy's Beta and kstwo laws."""
    P, N = tp[-1], fp[-1]
    q = (1 - c) / 4
    d_p, d_n = stats.kstwo.ppf(1 - q, P), stats.kstwo.ppf(1 - q, N)
    m = P - tp
    a_r = q / ((m + 1.0) * (m + 2.0))
    a_f = q / ((fp + 1.0) * (fp + 2.0))
    r_os = np.where(tp > 0, stats.beta.ppf(a_r, np.maximum(tp, 1), P - tp + 1), 0.0)
    f_os = np.where(fp < N, stats.beta.isf(a_f, fp + 1, np.maximum(N - fp, 1)), 1.0)
    return (np.maximum(np.maximum(tp / P - d_p, 0), r_os),
            np.minimum(np.minimum(fp / N + d_n, 1), f_os))  # fmt: skip


def test_band_bounds_match_scipy():
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.4
    s = np.round(rng.normal(size=400) + 1.2 * y, 1)
    _, tp, fp = roc.threshold_counts(y, s)
    got = ost.band_bounds(tp, fp, 0.9)
    want = reference_band_bounds(tp, fp, 0.9)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-14)
    assert np.all(got[0] <= tp / tp[-1]) and np.all(got[1] >= fp / fp[-1])


def reference_precision_threshold(thr, tp, fp, p, pi, c, method, G=20):
    """The rule, with scipy's Beta law and loops: Bonferroni over the positives' ranks
    ceil(g P / G), or the fixed sequence over every threshold."""
    P, N = int(tp[-1]), int(fp[-1])
    delta = 1 - c

    def lower(k, a):
        return stats.beta.ppf(a, k, P - k + 1) if k > 0 else 0.0

    def upper(f, a):
        return stats.beta.isf(a, f + 1, N - f) if f < N else 1.0

    best = 0
    if method == "band":
        r, f = reference_band_bounds(tp, fp, c)
        for j in range(1, thr.size):
            if pi * (1 - p) * r[j] >= p * (1 - pi) * f[j] and r[j] > 0:
                best = j
        best = int(np.flatnonzero(tp == tp[best])[0]) if best else 0
    elif method == "grid":
        ranks = sorted({math.ceil(g * P / G) for g in range(1, G + 1)})
        a = delta / (2 * len(ranks))
        for k in ranks:
            j = next(i for i in range(thr.size) if tp[i] >= k)
            assert thr[j] == np.sort(scores_of_positives(thr, tp))[::-1][k - 1]
            if pi * (1 - p) * lower(k, a) >= p * (1 - pi) * upper(int(fp[j]), a):
                best = j
    else:
        for j in range(1, thr.size):
            r = lower(int(tp[j]), delta / 2)
            if pi * (1 - p) * r >= p * (1 - pi) * upper(int(fp[j]), delta / 2) and r > 0:
                best = j
            else:
                break
        best = int(np.flatnonzero(tp == tp[best])[0]) if best else 0
    return (math.inf, 0) if best == 0 else (thr[best], best)


def scores_of_positives(thr, tp):
    """The positive scores, rebuilt from the counts (each threshold repeated by its positives)."""
    return np.repeat(thr[1:], np.diff(tp))


@pytest.mark.parametrize("seed,digits", [(5, 1), (6, 3)])
def test_precision_threshold_follows_its_rule(seed, digits):
    rng = np.random.default_rng(seed)
    y = rng.random(600) < 0.4
    s = np.round(rng.normal(size=600) + 2.0 * y, digits)
    thr, tp, fp = roc.threshold_counts(y, s)
    found = 0
    for p, pi in [(0.5, 0.2), (0.8, 0.4), (0.9, 0.5), (0.3, 0.05), (0.99, 0.5)]:
        for G in (20, 7):
            got = ost.precision_threshold(thr, tp, fp, p, pi, 0.9, grid=G)
            want = reference_precision_threshold(thr, tp, fp, p, pi, 0.9, "grid", G)
            assert got == want, (p, pi, G)
            found += got[1] > 0
        got = ost.precision_threshold(thr, tp, fp, p, pi, 0.9, method="band")
        assert got == reference_precision_threshold(thr, tp, fp, p, pi, 0.9, "band"), (p, pi)
        found += got[1] > 0
    assert 6 <= found < 15  # some targets reachable, the 0.99 one not


def test_precision_sequence_stops_at_the_first_failure():
    rng = np.random.default_rng(7)
    y = rng.random(600) < 0.4
    s = rng.normal(size=600) + 2.0 * y
    thr, tp, fp = roc.threshold_counts(y, s)
    # untied scores: the first threshold has one example and fails; nothing is accepted
    assert ost.precision_threshold(thr, tp, fp, 0.6, 0.3, 0.9, method="sequence") == (math.inf, 0)
    assert ost.precision_threshold(thr, tp, fp, 0.6, 0.3, 0.9)[1] > 0  # the grid finds one
    # 60 positives tied at the top: the sequence starts with evidence, and runs on
    s2 = np.where(np.arange(600) < 60, 10.0, s)
    y2 = np.where(np.arange(600) < 60, True, y)
    thr, tp, fp = roc.threshold_counts(y2, s2)
    for p, pi in [(0.6, 0.3), (0.8, 0.3), (0.5, 0.1)]:
        got = ost.precision_threshold(thr, tp, fp, p, pi, 0.9, method="sequence")
        want = reference_precision_threshold(thr, tp, fp, p, pi, 0.9, "sequence")
        assert got == want
        assert got[1] > 1, (p, pi)  # the sequence went past the tied top
    with pytest.raises(BaccError, match="method"):
        ost.precision_threshold(thr, tp, fp, 0.6, 0.3, 0.9, method="ltt")
    with pytest.raises(BaccError, match="prevalence"):
        ost.precision_threshold(thr, tp, fp, 0.6, 1.0, 0.9)
    with pytest.raises(BaccError, match="thresholds"):
        ost.precision_threshold(thr[1:], tp[1:], fp[1:], 0.6, 0.3, 0.9)


def precision_coverage(rng, reps, m, n, p, pi, c, tied, method="grid"):
    """Binormal scores (positives N(1.5, 1), negatives N(0, 1)), or both rounded to 0.5: the
    share of samples whose threshold has true precision at prevalence pi >= p (no threshold:
    no claim, counted as held), and the share with a threshold."""
    lab = np.concatenate([np.ones(m, bool), np.zeros(n, bool)])
    chosen_t = []
    for _ in range(reps):
        s = np.concatenate([rng.normal(1.5, 1, m), rng.normal(0, 1, n)])
        if tied:
            s = np.round(2 * s) / 2
        thr, tp, fp = roc.threshold_counts(lab, s)
        t, j = ost.precision_threshold(thr, tp, fp, p, pi, c, method=method)
        if j != 0:
            chosen_t.append(t)
    # the true precision of every threshold chosen, at once (no threshold: no claim, held)
    t = np.asarray(chosen_t, dtype=float)
    if tied:  # P(round(2 Z + 2 mu) / 2 >= t) = P(2 Z + 2 mu >= 2 t - 1/2)
        R = stats.norm.sf(2 * t - 0.5, 3.0, 2.0)
        F = stats.norm.sf(2 * t - 0.5, 0.0, 2.0)
    else:
        R, F = stats.norm.sf(t, 1.5, 1), stats.norm.sf(t, 0, 1)
    held = reps - t.size + int(np.sum(pi * R / (pi * R + (1 - pi) * F) >= p))
    return held / reps, t.size / reps


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("method", ["grid", "band"])
def test_precision_guarantee_by_simulation(tied, method):
    rng = np.random.default_rng(8 + tied)
    c, reps = 0.8, 1000
    held, chosen = precision_coverage(rng, reps, 1000, 1000, 0.6, 0.2, c, tied, method)
    assert chosen > 0.6  # the rule finds a threshold most of the time
    assert held >= c - 3 * math.sqrt(c * (1 - c) / reps)


@pytest.mark.parametrize("grid,method", [(1, "grid"), (2, "grid"), (20, "grid"), (20, "band")])
def test_precision_never_reached_is_rarely_claimed(grid, method):
    """Both classes scored alike: precision at prevalence pi is pi at every threshold, so any
    threshold accepted for a target just above pi is an error; they happen at most 1 - c of
    the time (the union bound makes it rarer)."""
    rng = np.random.default_rng(20 + grid)
    c, reps, m = 0.5, 1500, 300
    lab = np.concatenate([np.ones(m, bool), np.zeros(m, bool)])
    errors = 0
    for _ in range(reps):
        thr, tp, fp = roc.threshold_counts(lab, rng.normal(size=2 * m))
        errors += ost.precision_threshold(thr, tp, fp, 0.2 * 1.0001, 0.2, c, method, grid)[1] > 0
    delta = 1 - c
    assert errors / reps <= delta + 3 * math.sqrt(delta * (1 - delta) / reps)
    assert errors > 0  # the claims do get made, and rejected by the truth


@pytest.mark.slow
@pytest.mark.parametrize("tied", [False, True])
def test_guarantees_by_long_simulation(tied):
    rng = np.random.default_rng(10 + tied)
    reps = 20000
    c = 0.9
    se = math.sqrt(c * (1 - c) / reps)
    assert recall_coverage(rng, reps, 30, 0.85, c, tied) >= c - 3 * se
    assert fpr_coverage(rng, reps, 30, 0.15, c, tied) >= c - 3 * se
    held, chosen = precision_coverage(rng, 5000, 1000, 1000, 0.6, 0.2, c, tied)
    assert chosen > 0.5 and held >= c - 3 * math.sqrt(c * (1 - c) / 5000)
