"""Claims of ``bacc._engine.roc`` (counts per threshold, area, DeLong, KS band, Bayesian bootstrap).

References, independent of the module:

* counts, area and balanced accuracy per threshold: scikit-learn (``roc_curve`` with
  ``drop_intermediate=False``, ``roc_auc_score``, ``balanced_accuracy_score``), on random
  data with ties within and between the classes;
* DeLong: the placement values from their definition, every pair of a positive and a negative
  compared (``O(m n)``), the covariance written out;
* the Kolmogorov quantile: the Durbin matrix formula of Marsaglia, Tsang & Wang (2003) in
  mpmath (50 digits) solved by bisection, ``(1 + c) / 2`` for ``n = 1``, and a seeded Monte
  Carlo of ``D_n``;
* the band's envelopes: the ROC curves and areas (scikit-learn, with sample weights) of the two
  extreme pairs of distributions inside the Kolmogorov-Smirnov bands, built here by trimming
  the empirical weights; its coverage by simulation, with and without ties;
* the Bayesian bootstrap: the closed-form mean (the sample area) and variance of the weighted
  Mann-Whitney statistic under Dirichlet(1, ..., 1) weights, and per-example Dirichlet draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bacc._engine import roc
from bacc.errors import BaccError

# ----------------------------------------------------------------------------------- helpers


def tied_data(seed: int, n: int = 400, share: float = 0.4, digits: int = 1):
    """Labels and scores rounded to ``digits`` (ties within and between the classes)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    s = np.round(rng.normal(size=n) + 0.8 * y, digits)
    return y, s


def psi(x, y):
    """Mann-Whitney kernel: 1 if x > y, 1/2 if tied, 0 otherwise (broadcast)."""
    return (x > y) + 0.5 * (x == y)


def delong_brute(y, scores):
    """DeLong et al. (1988) from the definition: placement values by all pairs."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    X, Y = scores[:, y], scores[:, ~y]
    m, n = X.shape[1], Y.shape[1]
    k = scores.shape[0]
    v10 = np.empty((k, m))
    v01 = np.empty((k, n))
    for r in range(k):
        H = psi(X[r][:, None], Y[r][None, :])  # m x n
        v10[r] = H.mean(axis=1)
        v01[r] = H.mean(axis=0)
    aucs = v10.mean(axis=1)
    s10 = np.array([[np.sum((v10[r] - aucs[r]) * (v10[s] - aucs[s])) / (m - 1) for s in range(k)]
                    for r in range(k)])  # fmt: skip
    s01 = np.array([[np.sum((v01[r] - aucs[r]) * (v01[s] - aucs[s])) / (n - 1) for s in range(k)]
                    for r in range(k)])  # fmt: skip
    return aucs, s10 / m + s01 / n


# ----------------------------------------------------------------------- counts per threshold


@pytest.mark.parametrize("seed,digits", [(0, 1), (1, 0), (2, 3), (3, 8)])
def test_threshold_counts_match_sklearn(seed, digits):
    sk = pytest.importorskip("sklearn.metrics")
    y, s = tied_data(seed, digits=digits)
    thr, tp, fp = roc.threshold_counts(y, s)
    fpr, tpr, thr_sk = sk.roc_curve(y, s, drop_intermediate=False)
    P, N = int(y.sum()), int((~y).sum())
    np.testing.assert_array_equal(thr, thr_sk)
    np.testing.assert_array_equal(tp, np.round(tpr * P).astype(int))
    np.testing.assert_array_equal(fp, np.round(fpr * N).astype(int))
    assert tp.dtype == np.int64 and fp.dtype == np.int64
    assert thr[0] == np.inf and tp[0] == 0 and fp[0] == 0 and tp[-1] == P and fp[-1] == N
    # the definition: counts of scores at or above each threshold
    for j in (1, len(thr) // 2, len(thr) - 1):
        assert tp[j] == np.sum(s[y] >= thr[j]) and fp[j] == np.sum(s[~y] >= thr[j])
    assert roc.auc(tp, fp) == pytest.approx(sk.roc_auc_score(y, s), abs=1e-14)


def test_balanced_accuracy_at_every_threshold_matches_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    y, s = tied_data(4, n=300)
    thr, tp, fp = roc.threshold_counts(y, s)
    P, N = tp[-1], fp[-1]
    ba = (tp / P + (N - fp) / N) / 2.0
    for j in range(1, thr.size):
        assert ba[j] == pytest.approx(sk.balanced_accuracy_score(y, s >= thr[j]), abs=1e-14)


def test_auc_is_the_mann_whitney_statistic():
    y, s = tied_data(5, n=500)
    _, tp, fp = roc.threshold_counts(y, s)
    U = stats.mannwhitneyu(s[y], s[~y], method="asymptotic").statistic  # ties count 1/2
    assert roc.auc(tp, fp) == pytest.approx(U / (y.sum() * (~y).sum()), abs=1e-14)
    assert roc.auc(tp, fp) == pytest.approx(psi(s[y][:, None], s[~y][None, :]).mean(), abs=1e-14)


def test_score_dtypes_and_label_forms_give_the_same_counts():
    y, s = tied_data(6, digits=2)
    base = roc.threshold_counts(y, s)
    as_int = roc.threshold_counts(y.astype(int), np.round(s * 100).astype(np.int64))
    np.testing.assert_array_equal(as_int[1], base[1])
    np.testing.assert_array_equal(as_int[2], base[2])
    np.testing.assert_array_equal(as_int[0][1:], np.round(base[0][1:] * 100))
    # float32 scores: the counts of their exact float64 values (rounding to float32 may merge)
    s32 = s.astype(np.float32)
    got = roc.threshold_counts(y, s32)
    want = roc.threshold_counts(y, s32.astype(np.float64))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert got[0].dtype == np.float64


def test_tallied_counts_equal_the_counts_of_the_examples():
    y, s = tied_data(7, n=600)
    want = roc.threshold_counts(y, s)
    v, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv, weights=y, minlength=v.size).astype(np.int64)
    neg = np.bincount(inv, weights=~y, minlength=v.size).astype(np.int64)
    # unsorted, a value split over two rows, and a value with no examples
    rng = np.random.default_rng(0)
    order = rng.permutation(v.size)
    values = np.concatenate([v[order], v[:1], [123.0]])
    pos2 = np.concatenate([pos[order], [0], [0]])
    neg2 = np.concatenate([neg[order], [0], [0]])
    i0 = int(np.flatnonzero(order == 0)[0])
    pos2[-2], pos2[i0] = pos2[i0], 0  # the first value's positives moved to its second row
    got = roc.tallied_counts(values, pos2, neg2)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert 123.0 not in got[0]


def test_edge_cases_of_the_counts():
    # every score tied: one threshold, the diagonal
    thr, tp, fp = roc.threshold_counts([True, False, True, False, False], [0.3] * 5)
    np.testing.assert_array_equal(thr, [np.inf, 0.3])
    np.testing.assert_array_equal(tp, [0, 2])
    np.testing.assert_array_equal(fp, [0, 3])
    assert roc.auc(tp, fp) == 0.5
    # one positive, one negative
    _, tp, fp = roc.threshold_counts([1, 0], [0.2, 0.9])
    assert roc.auc(tp, fp) == 0.0
    _, tp, fp = roc.threshold_counts([1, 0, 0, 0], [0.5, 0.9, 0.5, 0.1])
    assert roc.auc(tp, fp) == pytest.approx((1 + 0.5) / 3)
    with pytest.raises(BaccError, match="no positive"):
        roc.threshold_counts([False, False], [0.1, 0.2])
    with pytest.raises(BaccError, match="no negative"):
        roc.threshold_counts([True, True], [0.1, 0.2])
    with pytest.raises(BaccError, match="NaN"):
        roc.threshold_counts([True, False], [0.1, np.nan])
    with pytest.raises(BaccError, match="infinite"):
        roc.threshold_counts([True, False], [0.1, np.inf])
    with pytest.raises(BaccError, match="2\\^53"):
        roc.threshold_counts([True, False], np.array([2**60, 1], dtype=np.int64))
    with pytest.raises(BaccError, match="has 3 values"):
        roc.threshold_counts([True, False, True], [0.1, 0.2])
    with pytest.raises(BaccError, match="0/1"):
        roc.threshold_counts([2, 0], [0.1, 0.2])
    with pytest.raises(BaccError, match="no negative"):
        roc.tallied_counts([0.1, 0.2], [3, 1], [0, 0])
    with pytest.raises(BaccError, match=">= 0"):
        roc.tallied_counts([0.1, 0.2], [3, 1], [-1, 2])
    with pytest.raises(BaccError, match="whole"):
        roc.tallied_counts([0.1, 0.2], [3, 1.5], [1, 2])
    with pytest.raises(BaccError, match="start at 0"):
        roc.auc([1, 2], [0, 3])


def test_auc_of_huge_tallies_is_exact_where_integers_are():
    # 2 P N beyond 2^62: float path; the area of a known configuration
    big = 10**12
    # P(X > Y) = 1/4 and P(X = Y) = 1/2: area 1/4 + 1/4
    _, tp, fp = roc.tallied_counts([2.0, 1.0], [big, big], [big, big])
    assert roc.auc(tp, fp) == 0.5
    # P(X > Y) = (3/4)(3/4), P(X = Y) = (3/4)(1/4) + (1/4)(3/4): area 9/16 + 3/16
    _, tp, fp = roc.tallied_counts([2.0, 1.0], [3 * big, big], [big, 3 * big])
    assert roc.auc(tp, fp) == pytest.approx(0.75, abs=1e-15)


# ------------------------------------------------------------------------------------ DeLong


@pytest.mark.parametrize("seed,digits", [(10, 1), (11, 0), (12, 6)])
def test_delong_matches_the_definition(seed, digits):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.random(n) < 0.35
    base = rng.normal(size=n) + y
    scores = np.round(np.stack([base, base + rng.normal(size=n), 0.3 * rng.normal(size=n) + y]), digits)
    aucs, cov = roc.delong(y, scores)
    a_ref, c_ref = delong_brute(y, scores)
    np.testing.assert_allclose(aucs, a_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov, c_ref, rtol=0, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(cov) > -1e-15)
    # one score: the same numbers from the examples, the counts and the tallies
    a1, c1 = roc.delong(y, scores[1])
    assert a1[0] == pytest.approx(a_ref[1], abs=1e-12) and c1[0, 0] == pytest.approx(c_ref[1, 1], abs=1e-12)
    _, tp, fp = roc.threshold_counts(y, scores[1])
    a2, v2 = roc.delong_counts(tp, fp)
    assert a2 == pytest.approx(a_ref[1], abs=1e-12) and v2 == pytest.approx(c_ref[1, 1], abs=1e-12)
    v, inv = np.unique(scores[1], return_inverse=True)
    a3, v3 = roc.delong_tallied(v, np.bincount(inv, weights=y), np.bincount(inv, weights=~y))
    assert a3 == pytest.approx(a_ref[1], abs=1e-12) and v3 == pytest.approx(c_ref[1, 1], abs=1e-12)


def test_delong_test_matches_the_definition():
    rng = np.random.default_rng(20)
    n = 250
    y = rng.random(n) < 0.5
    a = np.round(rng.normal(size=n) + y, 1)
    b = np.round(a + rng.normal(size=n), 1)
    _, c = delong_brute(y, np.stack([a, b]))
    aucs, _ = delong_brute(y, np.stack([a, b]))
    se = math.sqrt(c[0, 0] + c[1, 1] - 2 * c[0, 1])
    z = (aucs[0] - aucs[1]) / se
    diff, se_got, z_got, p = roc.delong_test(y, a, b)
    assert diff == pytest.approx(aucs[0] - aucs[1], abs=1e-12)
    assert se_got == pytest.approx(se, abs=1e-12)
    assert z_got == pytest.approx(z, rel=1e-10)
    assert p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-10)
    # antisymmetric
    d2, s2, z2, p2 = roc.delong_test(y, b, a)
    assert (d2, s2, z2, p2) == pytest.approx((-diff, se_got, -z_got, p), abs=1e-14)


def test_delong_degenerate_cases():
    # separated classes: area 1, variance 0; every score tied: area 1/2, variance 0
    y = np.array([0, 0, 0, 1, 1], dtype=bool)
    aucs, cov = roc.delong(y, np.stack([[1.0, 2, 3, 4, 5], [7.0, 7, 7, 7, 7]]))
    np.testing.assert_array_equal(aucs, [1.0, 0.5])
    np.testing.assert_array_equal(cov, np.zeros((2, 2)))
    assert roc.delong_test(y, [1.0, 2, 3, 4, 5], [1.0, 2, 3, 4, 5]) == (0.0, 0.0, 0.0, 1.0)
    d, se, z, p = roc.delong_test(y, [1.0, 2, 3, 4, 5], [7.0, 7, 7, 7, 7])
    assert (d, se, z, p) == (0.5, 0.0, math.inf, 0.0)
    with pytest.raises(BaccError, match="at least 2 positives"):
        roc.delong([1, 0, 0], [0.3, 0.2, 0.1])
    with pytest.raises(BaccError, match="1 negative"):
        roc.delong_tallied([0.3, 0.2], [2, 3], [1, 0])


def test_intervals_on_both_scales():
    z = stats.norm.isf(0.025)
    lo, hi = roc.auc_interval(0.8, 0.0025, 0.95, scale="identity")
    assert (lo, hi) == pytest.approx((0.8 - z * 0.05, 0.8 + z * 0.05), abs=1e-14)
    assert roc.auc_interval(0.98, 0.0025, 0.95, scale="identity")[1] == 1.0
    # logit: symmetric in log(A / (1 - A)) with se / (A (1 - A))
    lo, hi = roc.auc_interval(0.8, 0.0025, 0.95, scale="logit")
    half = z * 0.05 / 0.16
    expit = lambda t: 1 / (1 + math.exp(-t))  # noqa: E731
    assert (lo, hi) == pytest.approx((expit(math.log(4) - half), expit(math.log(4) + half)), abs=1e-14)
    assert lo < 0.8 < hi and hi < 1.0
    assert roc.auc_interval(1.0, 0.0, 0.95) == (1.0, 1.0)
    assert roc.difference_interval(0.1, 0.05, 0.95) == pytest.approx((0.1 - z * 0.05, 0.1 + z * 0.05))
    assert roc.difference_interval(0.95, 0.1, 0.95)[1] == 1.0
    with pytest.raises(BaccError, match="confidence"):
        roc.auc_interval(0.8, 0.01, 1.0)
    with pytest.raises(BaccError, match="scale"):
        roc.auc_interval(0.8, 0.01, 0.9, scale="log")


# ------------------------------------------------------------------------ Kolmogorov-Smirnov


def kolmogorov_cdf_exact(n: int, d, mp):
    """P(D_n < d) by the Durbin matrix (Marsaglia, Tsang & Wang 2003), in mpmath."""
    nd = n * d
    k = int(mp.floor(nd)) + 1
    h = k - nd
    m = 2 * k - 1
    H = mp.matrix(m, m)
    for i in range(m):
        for j in range(m):
            if i - j + 1 >= 0:
                H[i, j] = 1 / mp.factorial(i - j + 1)
    for i in range(m):
        H[i, 0] -= h ** (i + 1) / mp.factorial(i + 1)
        H[m - 1, i] -= h ** (m - i) / mp.factorial(m - i)
    if 2 * h - 1 > 0:
        H[m - 1, 0] += (2 * h - 1) ** m / mp.factorial(m)
    Hn = H**n
    return Hn[k - 1, k - 1] * mp.factorial(n) / mp.mpf(n) ** n


@pytest.mark.parametrize("n", [2, 3, 7, 15, 30])
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.975])
def test_ks_halfwidth_is_the_exact_kolmogorov_quantile(n, confidence):
    mpmath = pytest.importorskip("mpmath")
    mp = mpmath.mp
    mp.dps = 50
    d = roc.ks_halfwidth(n, confidence)
    lo, hi = mp.mpf(1) / (2 * n), mp.mpf(1)
    for _ in range(60):  # bisection to 1e-18
        mid = (lo + hi) / 2
        if kolmogorov_cdf_exact(n, mid, mp) < confidence:
            lo = mid
        else:
            hi = mid
    assert d == pytest.approx(float(lo), abs=1e-8)


def test_ks_halfwidth_small_and_simulated():
    assert roc.ks_halfwidth(1, 0.9) == pytest.approx(0.95, abs=1e-12)  # D_1 = max(U, 1 - U)
    rng = np.random.default_rng(2024)
    n, reps, c = 40, 20000, 0.9
    u = np.sort(rng.random((reps, n)), axis=1)
    i = np.arange(1, n + 1)
    D = np.maximum((i / n - u).max(axis=1), (u - (i - 1) / n).max(axis=1))
    covered = np.mean(D <= roc.ks_halfwidth(n, c))
    assert abs(covered - c) < 4 * math.sqrt(c * (1 - c) / reps)
    with pytest.raises(BaccError):
        roc.ks_halfwidth(0, 0.9)


# -------------------------------------------------------------------------------------- band


def extreme_pair(y, s, d_pos, d_neg, raise_positives: bool):
    """Scores and sample weights of the extreme pair inside the KS bands: the positives raised
    (``d_pos`` of weight moved from the lowest positives to above every score) and the negatives
    lowered (``d_neg`` from the highest to below every score), or the mirror image."""
    lo, hi = s.min() - 1.0, s.max() + 1.0

    def trim(x, d, from_top):
        x = np.sort(x)[::-1] if from_top else np.sort(x)
        w = np.full(x.size, 1.0 / x.size)
        cum = np.cumsum(w)
        kept = np.clip(cum - d, 0.0, None)
        return x, np.diff(np.concatenate([[0.0], np.minimum(kept, 1.0)]))

    if raise_positives:
        xp, wp = trim(s[y], d_pos, from_top=False)
        xn, wn = trim(s[~y], d_neg, from_top=True)
        xp, wp = np.append(xp, hi), np.append(wp, d_pos)
        xn, wn = np.append(xn, lo), np.append(wn, d_neg)
    else:
        xp, wp = trim(s[y], d_pos, from_top=True)
        xn, wn = trim(s[~y], d_neg, from_top=False)
        xp, wp = np.append(xp, lo), np.append(wp, d_pos)
        xn, wn = np.append(xn, hi), np.append(wn, d_neg)
    labels = np.concatenate([np.ones(xp.size, bool), np.zeros(xn.size, bool)])
    return labels, np.concatenate([xp, xn]), np.concatenate([wp, wn])


def height(xs, ys, x, side):
    """A monotone polyline's height at x: the top (side="up") or bottom ("down") of its points
    with abscissa x (the limit from the right or the left)."""
    if side == "up":
        cand = [ys[i] for i in range(len(xs)) if xs[i] <= x + 1e-15]
        for i in range(len(xs) - 1):
            if xs[i] <= x < xs[i + 1]:
                cand.append(ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i]))
        return max(cand)
    cand = [ys[i] for i in range(len(xs)) if xs[i] >= x - 1e-15]
    for i in range(len(xs) - 1):
        if xs[i] < x <= xs[i + 1]:
            cand.append(ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i]))
    return min(cand)


@pytest.mark.parametrize("seed,digits", [(30, 1), (31, 5)])
def test_band_envelopes_are_the_curves_of_the_extreme_distributions(seed, digits):
    sk = pytest.importorskip("sklearn.metrics")
    y, s = tied_data(seed, n=120, digits=digits)
    _, tp, fp = roc.threshold_counts(y, s)
    c = 0.9
    d_pos = roc.ks_halfwidth(int(y.sum()), math.sqrt(c))
    d_neg = roc.ks_halfwidth(int((~y).sum()), math.sqrt(c))
    fpr, lower, upper = roc.roc_band(tp, fp, c)
    lo_area, hi_area = roc.band_auc_bounds(tp, fp, c)
    assert np.all(np.diff(fpr) >= 0) and fpr[0] == 0 and fpr[-1] == 1
    assert np.all(lower <= upper + 1e-15)
    checks = np.unique(np.concatenate([fpr, np.linspace(0, 1, 101)]))
    for raise_pos, curve, area in ((True, upper, hi_area), (False, lower, lo_area)):
        labels, xs, w = extreme_pair(y, s, d_pos, d_neg, raise_pos)
        ref_f, ref_t, _ = sk.roc_curve(labels, xs, sample_weight=w, drop_intermediate=False)
        assert area == pytest.approx(sk.roc_auc_score(labels, xs, sample_weight=w), abs=1e-12)
        assert area == pytest.approx(np.trapezoid(curve, fpr), abs=1e-12)
        for x in checks:
            for side in ("up", "down"):
                assert height(fpr, curve, x, side) == pytest.approx(height(ref_f, ref_t, x, side), abs=1e-12)
    assert lo_area <= roc.auc(tp, fp) <= hi_area


def heights(xs, ys, x, side):
    """Vectorised :func:`height` (xs nondecreasing): the top of the points at x ("up", the
    last vertex at or before x, or the segment over x) or their bottom ("down")."""
    xs, ys, x = np.asarray(xs), np.asarray(ys), np.asarray(x)
    if side == "up":
        i = np.searchsorted(xs, x, "right") - 1
        j = np.minimum(i + 1, xs.size - 1)
        on = xs[i] == x
        span = np.where(xs[j] > xs[i], xs[j] - xs[i], 1.0)
        return np.where(on, ys[i], ys[i] + (x - xs[i]) / span * (ys[j] - ys[i]))
    j = np.searchsorted(xs, x, "left")
    i = np.maximum(j - 1, 0)
    on = xs[j] == x
    span = np.where(xs[j] > xs[i], xs[j] - xs[i], 1.0)
    return np.where(on, ys[j], ys[i] + (x - xs[i]) / span * (ys[j] - ys[i]))


def test_vectorised_heights_agree_with_the_loop():
    xs = np.array([0.0, 0.0, 0.2, 0.2, 0.5, 1.0, 1.0])
    ys = np.array([0.0, 0.3, 0.4, 0.7, 0.8, 0.9, 1.0])
    for x in (0.0, 0.1, 0.2, 0.35, 0.5, 0.99, 1.0):
        for side in ("up", "down"):
            assert heights(xs, ys, x, side) == pytest.approx(height(xs, ys, x, side), abs=1e-15)


def true_curve_inside(fpr, lower, upper, true_x, true_y) -> bool:
    """Is the true polyline between the envelopes (both limits at every breakpoint)?"""
    pts = np.unique(np.concatenate([fpr, true_x]))
    for side in ("up", "down"):
        t = heights(true_x, true_y, pts, side)
        if np.any(t > heights(fpr, upper, pts, side) + 1e-12):
            return False
        if np.any(t < heights(fpr, lower, pts, side) - 1e-12):
            return False
    return True


@pytest.mark.parametrize("tied", [False, True])
def test_band_and_its_area_cover_the_truth(tied):
    """Positives ~ N(1, 1), negatives ~ N(0, 1), or both rounded to integers (ties, atoms)."""
    rng = np.random.default_rng(40 + tied)
    c, reps, m, n = 0.8, 1000, 12, 15
    grid = np.arange(-6, 8)
    if tied:  # P(round(Z + mu) = g); the true curve's vertices at thresholds g, decreasing
        p_pos = stats.norm.cdf(grid + 0.5 - 1) - stats.norm.cdf(grid - 0.5 - 1)
        p_neg = stats.norm.cdf(grid + 0.5) - stats.norm.cdf(grid - 0.5)
        p_pos, p_neg = p_pos / p_pos.sum(), p_neg / p_neg.sum()  # outside the grid: < 1e-8
        sx = np.minimum(np.concatenate([[0.0], np.cumsum(p_neg[::-1])]), 1.0)
        sy = np.minimum(np.concatenate([[0.0], np.cumsum(p_pos[::-1])]), 1.0)
        sx[-1] = sy[-1] = 1.0
        true_auc = float(np.sum(p_pos[:, None] * p_neg[None, :] * psi(grid[:, None], grid[None, :])))
    else:  # the binormal curve, through 2 001 of its points
        t = np.linspace(9, -9, 2001)
        sx, sy = stats.norm.sf(t), stats.norm.sf(t - 1)
        sx[0], sy[0], sx[-1], sy[-1] = 0.0, 0.0, 1.0, 1.0
        true_auc = float(stats.norm.cdf(1 / math.sqrt(2)))
    assert sy[-1] == pytest.approx(1.0) and sx[-1] == pytest.approx(1.0)
    auc_hits = band_hits = 0
    for _ in range(reps):
        x = rng.normal(1, 1, m)
        yv = rng.normal(0, 1, n)
        if tied:
            x, yv = np.round(x), np.round(yv)
        lab = np.concatenate([np.ones(m, bool), np.zeros(n, bool)])
        _, tp, fp = roc.threshold_counts(lab, np.concatenate([x, yv]))
        lo, hi = roc.band_auc_bounds(tp, fp, c)
        f, lower, upper = roc.roc_band(tp, fp, c)
        inside = true_curve_inside(f, lower, upper, sx, sy)
        auc_in = lo <= true_auc <= hi
        assert auc_in or not inside  # the area's interval holds whenever the band does
        auc_hits += auc_in
        band_hits += inside
    # the band holds with probability >= c (3 standard errors of slack); it is conservative
    assert band_hits / reps >= c - 3 * math.sqrt(c * (1 - c) / reps)


# -------------------------------------------------------------------------- Bayesian bootstrap


def bb_moments(y, s):
    """Closed-form mean and variance of sum_ij p_i q_j psi(X_i, Y_j), p, q ~ Dirichlet(1)."""
    H = psi(s[y][:, None], s[~y][None, :])
    P, N = H.shape
    second = (np.sum(H**2) + np.sum(H.sum(1) ** 2) + np.sum(H.sum(0) ** 2) + H.sum() ** 2) / (
        P * (P + 1) * N * (N + 1)
    )
    mean = H.mean()
    return mean, second - mean**2


def test_bayesian_bootstrap_moments_match_the_closed_form():
    y, s = tied_data(50, n=80, digits=0)  # heavy ties
    _, tp, fp = roc.threshold_counts(y, s)
    draws = roc.bayesian_bootstrap_auc(tp, fp, 40000, np.random.default_rng(1))
    mean, var = bb_moments(y, s)
    assert mean == pytest.approx(roc.auc(tp, fp), abs=1e-14)
    se_mean = math.sqrt(var / draws.size)
    assert abs(draws.mean() - mean) < 4 * se_mean
    # the sample variance's standard error, from the fourth central moment of the draws
    m4 = np.mean((draws - draws.mean()) ** 4)
    se_var = math.sqrt((m4 - var**2) / draws.size)
    assert abs(draws.var(ddof=1) - var) < 4 * se_var
    assert np.all((draws >= 0) & (draws <= 1))


@pytest.mark.parametrize(("n", "share", "digits"), [(60, 0.4, 0), (90, 0.12, 3), (90, 0.85, 1)],
                         ids=["heavy ties", "few positives, untied", "few negatives"])
def test_bayesian_bootstrap_from_counts_is_the_per_example_bootstrap(n, share, digits):
    """Gamma(size) per run of scores is the sum of the run's Exp(1) weights: the same law as
    Dirichlet weights on the examples (two-sample KS on independent seeded draws), with heavy
    ties, and with long runs of one class (few positives or few negatives)."""
    y, s = tied_data(51, n=n, share=share, digits=digits)
    _, tp, fp = roc.threshold_counts(y, s)
    got = roc.bayesian_bootstrap_auc(tp, fp, 6000, np.random.default_rng(2))
    rng = np.random.default_rng(3)
    H = psi(s[y][:, None], s[~y][None, :])
    p = rng.dirichlet(np.ones(H.shape[0]), size=6000)
    q = rng.dirichlet(np.ones(H.shape[1]), size=6000)
    ref = np.einsum("di,ij,dj->d", p, H, q)
    assert stats.ks_2samp(got, ref).pvalue > 1e-3
    if digits:
        return
    # with heavy ties, a wrong law (ties counted as wins) is told apart by the same test
    wrong = np.einsum("di,ij,dj->d", p, (s[y][:, None] >= s[~y][None, :]).astype(float), q)
    assert stats.ks_2samp(got, wrong).pvalue < 1e-6


def test_runs_merge_the_scores_of_one_class_between_the_other_class():
    """Against a plain walk over the scores: a run grows while the class holding the scores
    stays the same, and a score held by both classes is a run of its own."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(1, 12))
        a = rng.integers(0, 3, k) * (rng.random(k) < 0.6)
        b = rng.integers(0, 3, k) * (rng.random(k) < 0.6)
        a[0] += a.sum() == 0
        b[-1] += b.sum() == 0
        runs: list[list[int]] = []
        last = None
        for x, z in zip(a.tolist(), b.tolist(), strict=True):
            kind = (x > 0, z > 0)
            if kind == (False, False):
                continue
            if kind != last or kind == (True, True):
                runs.append([0, 0])
            runs[-1][0] += x
            runs[-1][1] += z
            last = kind
        got_a, got_b = roc._runs(a, b)
        assert np.column_stack([got_a, got_b]).tolist() == runs, (a, b)


def test_bayesian_bootstrap_is_reproducible():
    y, s = tied_data(52, n=100, digits=2)
    _, tp, fp = roc.threshold_counts(y, s)
    a = roc.bayesian_bootstrap_auc(tp, fp, 50, np.random.default_rng(7))
    b = roc.bayesian_bootstrap_auc(tp, fp, 50, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    # separated classes: every draw is 1
    _, tp, fp = roc.threshold_counts([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4])
    sep = roc.bayesian_bootstrap_auc(tp, fp, 5, np.random.default_rng(0))
    np.testing.assert_allclose(sep, 1.0, rtol=0, atol=1e-15)
