"""The receiver operating characteristic of one score: counts per threshold, the area under the
curve with DeLong's variance, a distribution-free band and the Bayesian bootstrap.

Decision rule: a score at or above the threshold ``t`` predicts the positive class
(``score >= t``). Every function works from the counts per distinct score: one sort of the
scores (``O(n log n)``), then ``O(K)`` work over the ``K`` distinct values; nothing loops over
examples in Python. Ties are exact: equal scores share one threshold, and a positive and a
negative with equal scores count 1/2 towards the area (the trapezoid of the tied segment).

* :func:`threshold_counts` / :func:`tallied_counts`: ``(thresholds, tp, fp)`` from examples or
  from counts per distinct score, as ``sklearn.metrics.roc_curve(drop_intermediate=False)``
  counts them.
* :func:`auc`: the trapezoid area, equal to the Mann-Whitney ``U / (P N)`` with ties 1/2.
* :func:`delong`, :func:`delong_counts`, :func:`delong_tallied`, :func:`delong_test`: DeLong's covariance of correlated
  areas by the placement values (midranks) of Sun & Xu, and the test of two areas;
  :func:`auc_interval`, :func:`difference_interval`: normal intervals on the identity and logit
  scales.
* :func:`ks_halfwidth`, :func:`roc_band`, :func:`band_auc_bounds`: Campbell's fixed-width
  simultaneous band of the curve from two Kolmogorov-Smirnov bands, and the areas under its
  envelopes, an interval of the area that holds whenever the band holds.
* :func:`bayesian_bootstrap_auc`: posterior draws of the area under the Bayesian bootstrap.

References
----------
DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or
more correlated receiver operating characteristic curves: a nonparametric approach.
Biometrics 44, 837-845.
Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
under correlated receiver operating characteristic curves. IEEE Signal Processing Letters 21,
1389-1393.
Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a receiver operating
characteristic (ROC) curve. Radiology 143, 29-36.
Campbell, G. (1994). Advances in statistical methodology for the evaluation of diagnostic and
laboratory tests. Statistics in Medicine 13, 499-508.
Kolmogorov, A. N. (1933). Sulla determinazione empirica di una legge di distribuzione. Giornale
dell'Istituto Italiano degli Attuari 4, 83-91; Marsaglia, G., Tsang, W. W. & Wang, J. (2003).
Evaluating Kolmogorov's distribution. Journal of Statistical Software 8(18).
Gu, J., Ghosal, S. & Roy, A. (2008). Bayesian bootstrap estimation of ROC curve. Statistics in
Medicine 27, 5407-5420.
Rubin, D. B. (1981). The Bayesian bootstrap. Annals of Statistics 9, 130-134.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special as sc
from scipy import stats

from ..errors import BaccError
from .helpers.validate import check_choice, check_confidence, check_count_limit, check_int

__all__ = [
    "auc",
    "auc_interval",
    "band_auc_bounds",
    "bayesian_bootstrap_auc",
    "delong",
    "delong_counts",
    "delong_tallied",
    "delong_test",
    "difference_interval",
    "ks_halfwidth",
    "roc_band",
    "tallied_counts",
    "threshold_counts",
]

#: Largest integer score converted to float64 without rounding (2^53): larger integers could
#: merge distinct scores into one tie.
_EXACT_INT = 2**53
#: Elements of one block of Bayesian bootstrap weights (draws x distinct values): 16 MB each.
_BLOCK = 2_000_000


# ----------------------------------------------------------------------------------------------
# validation
def _as_positive(positive, n: int | None = None) -> np.ndarray:
    """``positive`` as a 1-D bool array (bools, or integers 0 and 1), or a BaccError."""
    arr = np.asarray(positive)
    if arr.ndim != 1:
        raise BaccError(f"positive must be one-dimensional, got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all():
            raise BaccError("positive must be booleans (True for the positive class) or 0/1")
        arr = arr.astype(bool)
    if n is not None and arr.size != n:
        raise BaccError(f"positive has {arr.size} values but the scores have {n}")
    return arr


def _as_scores(score, what: str = "score") -> np.ndarray:
    """Scores as a float64 array (any shape), finite, or a BaccError.

    Integers are exact up to 2^53 in float64; larger ones are refused (they could merge)."""
    arr = np.asarray(score)
    if arr.dtype.kind not in "iuf":
        raise BaccError(f"{what} must be numbers, got dtype {arr.dtype}")
    if arr.dtype.kind in "iu" and arr.size and (
        int(arr.max()) > _EXACT_INT or int(arr.min()) < -_EXACT_INT
    ):
        raise BaccError(
            f"{what} has integers beyond 2^53, which float64 cannot tell apart; rescale them"
        )
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "an infinite value"
        raise BaccError(f"{what} contains {bad}; every score must be a finite number")
    return arr


def _check_both_classes(P, N) -> None:
    if P <= 0 or N <= 0:
        missing = "positive" if P <= 0 else "negative"
        raise BaccError(
            f"there are no {missing} examples; the ROC curve needs examples of both classes"
        )


def _as_curve(tp, fp) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative counts ``(tp, fp)`` as from :func:`threshold_counts`, checked."""
    tp = np.asarray(tp)
    fp = np.asarray(fp)
    if tp.ndim != 1 or tp.shape != fp.shape or tp.size < 2:
        raise BaccError("tp and fp must be 1-D arrays of one length (at least 2), as from threshold_counts")
    if tp.dtype.kind not in "iu" or fp.dtype.kind not in "iu":
        if not (np.all(np.isfinite(tp)) and np.all(np.isfinite(fp))
                and np.all(tp == np.round(tp)) and np.all(fp == np.round(fp))):  # fmt: skip
            raise BaccError("tp and fp must be whole numbers")
    tp = tp.astype(np.int64, copy=False)
    fp = fp.astype(np.int64, copy=False)
    if tp[0] != 0 or fp[0] != 0 or np.any(np.diff(tp) < 0) or np.any(np.diff(fp) < 0):
        raise BaccError("tp and fp must start at 0 and never decrease (counts at thresholds "
                        "in decreasing order, the first +inf)")
    _check_both_classes(int(tp[-1]), int(fp[-1]))
    return tp, fp


# ----------------------------------------------------------------------------------------------
# counts per threshold
def _tally(positive: np.ndarray, score: np.ndarray, *, inverse: bool = False):
    """Distinct scores in decreasing order with the positives and negatives at each.

    Returns ``values`` (K,), ``a`` (K,) positives, ``b`` (K,) negatives (int64) and, when
    ``inverse``, the index of each example's value (n,). One argsort, then O(n) work; the
    intermediate arrays are released as soon as they are used (about 50 bytes per example at
    the peak besides the inputs).
    """
    n = score.size
    order = np.argsort(score)[::-1]  # decreasing; the order within ties does not matter
    s = score[order]
    pos = positive[order]
    if not inverse:
        del order
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    values = s[starts]
    del s
    a = np.add.reduceat(pos, starts, dtype=np.int64)
    del pos
    b = np.empty_like(a)
    np.subtract(starts[1:], starts[:-1], out=b[:-1])
    b[-1] = n - starts[-1]
    del starts
    b -= a
    if not inverse:
        return values, a, b
    where = np.empty(n, dtype=np.int64)
    where[order] = np.cumsum(first, dtype=np.int64) - 1  # 0..K-1 in decreasing order of value
    return values, a, b, where


def _cumulate(values, a, b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    thresholds = np.empty(values.size + 1)
    thresholds[0] = np.inf
    thresholds[1:] = values
    tp = np.zeros(a.size + 1, dtype=np.int64)
    fp = np.zeros(b.size + 1, dtype=np.int64)
    np.cumsum(a, out=tp[1:])
    np.cumsum(b, out=fp[1:])
    return thresholds, tp, fp


def threshold_counts(positive, score) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True and false positives at every distinct threshold of one score.

    Parameters
    ----------
    positive : array_like of bool, shape (n,)
        True for examples of the positive class (0/1 integers are accepted).
    score : array_like of numbers, shape (n,)
        Finite scores (integers, float32 or float64; converted to float64 exactly). Higher
        scores mean the positive class.

    Returns
    -------
    thresholds : ndarray of float64, shape (K + 1,)
        ``+inf``, then the ``K`` distinct scores in decreasing order.
    tp, fp : ndarray of int64, shape (K + 1,)
        Positives and negatives with ``score >= thresholds[j]``: ``tp[0] = fp[0] = 0``,
        ``tp[-1] = P``, ``fp[-1] = N``. These are the counts behind
        ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``.

    Raises
    ------
    BaccError
        Mismatched lengths, non-finite scores, or no examples of one class.

    Notes
    -----
    One sort of the scores, ``O(n log n)``; ties share one threshold whatever their order.
    """
    s = _as_scores(score)
    if s.ndim != 1:
        raise BaccError(f"score must be one-dimensional, got shape {s.shape}")
    pos = _as_positive(positive, s.size)
    P = int(np.count_nonzero(pos))
    _check_both_classes(P, s.size - P)
    return _cumulate(*_tally(pos, s))


def tallied_counts(values, positives, negatives) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`threshold_counts` from counts per score value, as a data engine gives them.

    Parameters
    ----------
    values : array_like of numbers, shape (m,)
        Score values, in any order; a value may repeat (its counts are added).
    positives, negatives : array_like of whole numbers, shape (m,)
        Positives and negatives with each value. Values whose counts are both 0 are dropped
        (they add no point to the curve).

    Returns
    -------
    thresholds, tp, fp : ndarray
        As :func:`threshold_counts` returns them for the examples these counts describe.

    Raises
    ------
    BaccError
        Mismatched lengths, non-finite values, negative or fractional counts, counts beyond
        10^13, or no examples of one class.
    """
    v, a, b = _merge_tallies(values, positives, negatives)
    return _cumulate(v, a, b)


def _merge_tallies(values, positives, negatives) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct values (decreasing) with summed positive and negative counts, zeros dropped."""
    v = _as_scores(values, "values")
    counts = []
    for name, c in (("positives", positives), ("negatives", negatives)):
        arr = np.asarray(c)
        if arr.dtype.kind not in "biuf":
            raise BaccError(f"{name} must be whole numbers, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
            raise BaccError(f"{name} must be whole numbers")
        if np.any(arr < 0):
            raise BaccError(f"{name} must be >= 0, got {arr[arr < 0].ravel()[0].item()!r}")
        check_count_limit(arr[None, :] if arr.ndim == 1 else arr, f"the {name} counts")
        counts.append(arr.astype(np.int64))
    a, b = counts
    if v.ndim != 1 or a.shape != v.shape or b.shape != v.shape:
        raise BaccError(
            f"values, positives and negatives must be 1-D of one length, got shapes "
            f"{v.shape}, {a.shape}, {b.shape}"
        )
    keep = (a > 0) | (b > 0)
    v, a, b = v[keep], a[keep], b[keep]
    _check_both_classes(int(a.sum()), int(b.sum()))
    order = np.argsort(-v, kind="stable")
    v, a, b = v[order], a[order], b[order]
    first = np.empty(v.size, dtype=bool)
    first[0] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    if first.all():
        return v, a, b
    starts = np.flatnonzero(first)
    return v[starts], np.add.reduceat(a, starts), np.add.reduceat(b, starts)


# ----------------------------------------------------------------------------------------------
# the area and DeLong's variance
def auc(tp, fp) -> float:
    """Area under the ROC curve: the trapezoid rule through every threshold's point.

    Equal to the Mann-Whitney ``U / (P N)``, the probability that a random positive scores above
    a random negative, ties counted 1/2 (Hanley & McNeil 1982).

    Parameters
    ----------
    tp, fp : array_like of int, shape (K + 1,)
        Cumulative counts at thresholds in decreasing order, from :func:`threshold_counts` or
        :func:`tallied_counts`.

    Returns
    -------
    float
        The area, in [0, 1]. Exact (integer arithmetic) while ``2 P N < 2^62``.
    """
    tp, fp = _as_curve(tp, fp)
    P, N = int(tp[-1]), int(fp[-1])
    dfp = np.diff(fp)
    heights = tp[1:] + tp[:-1]
    if 2 * P * N < 2**62:
        return int(np.dot(dfp, heights)) / (2 * P * N)  # exact integers, one rounding
    return float(np.dot(dfp.astype(float), heights.astype(float)) / (2.0 * P * N))


def _placements(a: np.ndarray, b: np.ndarray):
    """Placement values per distinct value (decreasing order) from its counts.

    ``v10[j]``: the share of negatives a positive with value ``j`` beats (ties 1/2);
    ``v01[j]``: the share of positives that beat a negative with value ``j`` (ties 1/2).
    Cumulative counts in float64 are exact (counts below 2^53).
    """
    P, N = float(a.sum()), float(b.sum())
    v10 = np.cumsum(b, dtype=np.float64)  # negatives at or above
    np.subtract(N, v10, out=v10)  # below
    v10 *= 2.0
    v10 += b
    v10 /= 2.0 * N
    v01 = np.cumsum(a, dtype=np.float64)  # positives at or above
    v01 *= 2.0
    v01 -= a  # twice the positives above, plus the tied ones
    v01 /= 2.0 * P
    return v10, v01


def _delong_from_tallies(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    P, N = int(a.sum()), int(b.sum())
    _check_delong_sizes(P, N)
    v10, v01 = _placements(a, b)
    af, bf = a.astype(np.float64), b.astype(np.float64)
    area = float(np.dot(af, v10) / P)
    v10 -= area
    np.square(v10, out=v10)
    v01 -= area
    np.square(v01, out=v01)
    s10 = float(np.dot(af, v10)) / (P - 1)
    s01 = float(np.dot(bf, v01)) / (N - 1)
    return area, s10 / P + s01 / N


def _check_delong_sizes(P: int, N: int) -> None:
    if P < 2 or N < 2:
        raise BaccError(
            f"DeLong's variance needs at least 2 positives and 2 negatives (its per-class "
            f"variances divide by count - 1), got {P} positive(s) and {N} negative(s)"
        )


def delong(positive, scores) -> tuple[np.ndarray, np.ndarray]:
    """Areas under the ROC curves of ``k`` scores of the same examples, and their covariance.

    DeLong et al. (1988): with the placement values ``V10(X_i)`` (the share of negatives a
    positive beats, ties 1/2) and ``V01(Y_j)`` (the share of positives that beat a negative),
    ``AUC_r = mean_i V10_r(X_i)`` and ``cov = S10 / m + S01 / n``, where ``S10`` and ``S01``
    are the sample covariances (divisors ``m - 1`` and ``n - 1``, as in pROC) of the placement
    values of the ``m`` positives and the ``n`` negatives. The placement values come from the
    midranks (Sun & Xu 2014): one sort per score, ``O(k n log n)``.

    Parameters
    ----------
    positive : array_like of bool, shape (n,)
        True for the positive class.
    scores : array_like of numbers, shape (k, n) or (n,)
        One row per score (a 1-D array is one score).

    Returns
    -------
    aucs : ndarray, shape (k,)
        The areas, as :func:`auc` gives them.
    cov : ndarray, shape (k, k)
        DeLong's covariance matrix of the areas. Zero when the classes are separated (every
        placement value 0 or 1) or every score is tied.

    Raises
    ------
    BaccError
        Fewer than 2 positives or 2 negatives, mismatched shapes, non-finite scores.
    """
    s = _as_scores(scores, "scores")
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2:
        raise BaccError(f"scores must be of shape (k, n) or (n,), got {s.shape}")
    pos = _as_positive(positive, s.shape[1])
    P = int(np.count_nonzero(pos))
    N = pos.size - P
    _check_both_classes(P, N)
    _check_delong_sizes(P, N)
    k = s.shape[0]
    if k == 1:
        _, a, b = _tally(pos, s[0])
        area, var = _delong_from_tallies(a, b)
        return np.array([area]), np.array([[var]])
    x10 = np.empty((k, P))
    x01 = np.empty((k, N))
    neg = ~pos
    for r in range(k):  # one sort per score
        _, a, b, where = _tally(pos, s[r], inverse=True)
        v10, v01 = _placements(a, b)
        x10[r] = v10[where[pos]]
        x01[r] = v01[where[neg]]
    aucs = x10.mean(axis=1)
    x10 -= aucs[:, None]
    x01 -= x01.mean(axis=1)[:, None]
    cov = (x10 @ x10.T) / ((P - 1.0) * P) + (x01 @ x01.T) / ((N - 1.0) * N)
    return aucs, cov


def delong_tallied(values, positives, negatives) -> tuple[float, float]:
    """The area and DeLong's variance of one score from its counts per value.

    The same numbers :func:`delong` gives for the examples these counts describe: examples
    with one value share their placement value, so the sums over examples become sums over
    values weighted by the counts.

    Parameters
    ----------
    values, positives, negatives : array_like, shape (m,)
        As :func:`tallied_counts` takes them.

    Returns
    -------
    auc : float
    var : float
        DeLong's variance of the area (divisors ``P - 1`` and ``N - 1``).
    """
    _, a, b = _merge_tallies(values, positives, negatives)
    return _delong_from_tallies(a, b)


def delong_counts(tp, fp) -> tuple[float, float]:
    """The area and DeLong's variance of one score from its counts per threshold.

    What :func:`delong` gives for one score, from the output of :func:`threshold_counts` or
    :func:`tallied_counts` without sorting again: ``O(K)`` for ``K`` distinct scores.

    Parameters
    ----------
    tp, fp : array_like of int
        Cumulative counts at thresholds in decreasing order.

    Returns
    -------
    auc : float
    var : float
        DeLong's variance of the area (divisors ``P - 1`` and ``N - 1``).
    """
    tp, fp = _as_curve(tp, fp)
    return _delong_from_tallies(np.diff(tp), np.diff(fp))


def delong_test(positive, score_a, score_b) -> tuple[float, float, float, float]:
    """DeLong's test of two correlated areas (two scores of the same examples).

    Parameters
    ----------
    positive : array_like of bool, shape (n,)
    score_a, score_b : array_like of numbers, shape (n,)

    Returns
    -------
    difference : float
        ``AUC_a - AUC_b``.
    se : float
        Its standard error, ``sqrt(var_a + var_b - 2 cov_ab)`` (DeLong et al. 1988).
    z : float
        ``difference / se``; 0 when both are 0, ``+-inf`` when only ``se`` is 0.
    p_two_sided : float
        ``2 P(Z > |z|)`` under the standard normal.
    """
    aucs, cov = delong(positive, np.stack([_as_scores(score_a, "score_a"),
                                           _as_scores(score_b, "score_b")]))  # fmt: skip
    difference = float(aucs[0] - aucs[1])
    var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    se = math.sqrt(max(var, 0.0))
    if se > 0.0:
        z = difference / se
    else:
        z = 0.0 if difference == 0.0 else math.copysign(math.inf, difference)
    p = float(2.0 * stats.norm.sf(abs(z)))
    return difference, se, z, min(p, 1.0)


def auc_interval(area: float, var: float, confidence: float, scale: str = "logit") -> tuple[float, float]:
    """Normal confidence interval of an area from its (DeLong) variance.

    Parameters
    ----------
    area : float
        The area, in [0, 1].
    var : float
        Its variance (>= 0).
    confidence : float
        In (0, 1).
    scale : {"logit", "identity"}
        ``"identity"``: ``area +- z se``, clipped to [0, 1]. ``"logit"``: symmetric on
        ``log(A / (1 - A))`` with the delta-method standard error ``se / (A (1 - A))``, mapped
        back; it stays inside (0, 1) and is asymmetric near the ends.

    Returns
    -------
    (lower, upper) : tuple of float
        Both equal to ``area`` when ``var`` is 0 (which DeLong's variance is whenever the area
        is 0 or 1).
    """
    confidence = check_confidence(confidence)
    scale = check_choice(scale, ("logit", "identity"), "scale")
    area, var = float(area), float(var)
    if not (0.0 <= area <= 1.0) or not (var >= 0.0 and math.isfinite(var)):
        raise BaccError(f"area must lie in [0, 1] and var be finite and >= 0, got {area!r}, {var!r}")
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))
    se = math.sqrt(var)
    if se == 0.0 or area in (0.0, 1.0):
        return area, area
    if scale == "identity":
        return max(0.0, area - z * se), min(1.0, area + z * se)
    centre = float(sc.logit(area))
    half = z * se / (area * (1.0 - area))
    return float(sc.expit(centre - half)), float(sc.expit(centre + half))


def difference_interval(difference: float, se: float, confidence: float) -> tuple[float, float]:
    """Normal confidence interval ``difference +- z se`` of a difference of two areas, clipped
    to [-1, 1] (the identity scale, as DeLong et al. 1988)."""
    confidence = check_confidence(confidence)
    difference, se = float(difference), float(se)
    if not (-1.0 <= difference <= 1.0) or not (se >= 0.0 and math.isfinite(se)):
        raise BaccError(f"difference must lie in [-1, 1] and se be finite and >= 0, got {difference!r}, {se!r}")
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))
    return max(-1.0, difference - z * se), min(1.0, difference + z * se)


# ----------------------------------------------------------------------------------------------
# the Kolmogorov-Smirnov band of the curve
def ks_halfwidth(n: int, confidence: float) -> float:
    """Half-width ``d`` of the two-sided Kolmogorov-Smirnov band of an empirical distribution.

    ``P(sup_x |F_n(x) - F(x)| <= d) = confidence`` for a continuous ``F`` (Kolmogorov 1933):
    the exact quantile of ``D_n`` (``scipy.stats.kstwo``, after Marsaglia, Tsang & Wang 2003
    and Simard & L'Ecuyer 2011). For a discontinuous ``F`` (ties) the band holds with
    probability at least ``confidence``, its left limits included.

    Parameters
    ----------
    n : int
        Sample size (>= 1).
    confidence : float
        In (0, 1).

    Returns
    -------
    float
        ``d`` in (0, 1).
    """
    n = check_int(n, "n", 1, 10**13)
    confidence = check_confidence(confidence)
    return _kstwo_ppf(n, confidence)


@functools.lru_cache(maxsize=256)
def _kstwo_ppf(n: int, confidence: float) -> float:
    """``scipy.stats.kstwo.ppf``, remembered (a root search of about a millisecond)."""
    return float(stats.kstwo.ppf(confidence, n))


def _band_halfwidths(P: int, N: int, confidence: float) -> tuple[float, float]:
    """KS half-widths of the positive and negative classes, each at ``sqrt(confidence)``: the
    two samples are independent given the class sizes, so both bands hold with probability at
    least ``confidence``."""
    confidence = check_confidence(confidence)
    each = math.sqrt(confidence)
    return ks_halfwidth(P, each), ks_halfwidth(N, each)


def _envelopes(tp: np.ndarray, fp: np.ndarray, d_pos: float, d_neg: float):
    """Vertices ``(x, y)`` of the lower and upper envelopes (monotone polylines from (0, 0) to
    (1, 1)); see :func:`roc_band`."""
    x = fp / float(fp[-1])
    y = tp / float(tp[-1])
    zero, one = np.zeros(1), np.ones(1)
    ux = np.concatenate((zero, np.maximum(x - d_neg, 0.0), one))
    uy = np.concatenate((zero, np.minimum(y + d_pos, 1.0), one))
    lx = np.concatenate((zero, np.minimum(x + d_neg, 1.0), one))
    ly = np.concatenate((zero, np.maximum(y - d_pos, 0.0), one))
    return (lx, ly), (ux, uy)


def _at(xs: np.ndarray, ys: np.ndarray, grid: np.ndarray, side: str) -> np.ndarray:
    """A monotone polyline's lowest (``side="left"``) or highest (``"right"``) height at each
    grid point (they differ where the polyline is vertical)."""
    if side == "right":
        i = np.searchsorted(xs, grid, "right") - 1
        j = np.minimum(i + 1, xs.size - 1)
        at_vertex = xs[i] == grid
    else:
        j = np.searchsorted(xs, grid, "left")
        i = np.maximum(j - 1, 0)
        at_vertex = xs[j] == grid
    span = xs[j] - xs[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(span > 0, (grid - xs[i]) / span, 0.0)
    inner = ys[i] + t * (ys[j] - ys[i])
    return np.where(at_vertex, ys[j] if side == "left" else ys[i], inner)


def roc_band(tp, fp, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simultaneous, distribution-free band of the ROC curve (Campbell 1994, fixed width).

    The positives' and the negatives' empirical survival functions lie within ``d_P`` and
    ``d_N`` (:func:`ks_halfwidth` of ``P`` and ``N`` at ``sqrt(confidence)`` each) of the true
    ones, everywhere, with probability at least ``confidence`` (the two samples are independent
    given the class sizes). Every pair of distributions inside both bands has its ROC curve
    between two extreme ones:

    * upper envelope: the positives shifted up as far as the band lets them (mass ``d_P``
      above every score, the lowest ``d_P`` removed) and the negatives down (mass ``d_N``
      below every score): vertices ``(max(x_j - d_N, 0), min(y_j + d_P, 1))``;
    * lower envelope, mirrored: vertices ``(min(x_j + d_N, 1), max(y_j - d_P, 0))``;

    with ``(x_j, y_j) = (fp_j / N, tp_j / P)`` the empirical points, each envelope from
    (0, 0) to (1, 1) through its vertices by straight segments. Straight segments are the ROC
    curve of tied scores, so the band holds for the true curve whether or not the scores have
    ties (with ties the KS bands are conservative). The envelopes are the curves of distributions
    (a stochastic-order argument: raising the positives or lowering the negatives raises the
    whole curve), so the band is as narrow as the two KS bands allow.

    Parameters
    ----------
    tp, fp : array_like of int
        Cumulative counts from :func:`threshold_counts` or :func:`tallied_counts`.
    confidence : float
        Simultaneous coverage of the band, in (0, 1).

    Returns
    -------
    fpr : ndarray
        False-positive rates, nondecreasing from 0 to 1; a rate appears twice where an envelope
        rises vertically (first its lower end, then its upper end).
    tpr_lower, tpr_upper : ndarray
        The envelopes at ``fpr``: the polylines ``(fpr, tpr_lower)`` and ``(fpr, tpr_upper)``
        are the envelopes exactly (``numpy.trapezoid(tpr_upper, fpr)`` is the area under the
        upper one), ``tpr_lower <= tpr_upper``.
    """
    tp, fp = _as_curve(tp, fp)
    d_pos, d_neg = _band_halfwidths(int(tp[-1]), int(fp[-1]), confidence)
    (lx, ly), (ux, uy) = _envelopes(tp, fp, d_pos, d_neg)
    grid = np.unique(np.concatenate((lx, ux)))
    lo_l, lo_r = _at(lx, ly, grid, "left"), _at(lx, ly, grid, "right")
    up_l, up_r = _at(ux, uy, grid, "left"), _at(ux, uy, grid, "right")
    jump = (lo_l != lo_r) | (up_l != up_r)
    # each grid point once, twice where an envelope jumps: (left heights, then right heights)
    reps = np.where(jump, 2, 1)
    fpr = np.repeat(grid, reps)
    second = np.zeros(fpr.size, dtype=bool)
    second[np.cumsum(reps)[jump] - 1] = True
    first_idx = np.repeat(np.arange(grid.size), reps)
    tpr_lower = np.where(second, lo_r[first_idx], lo_l[first_idx])
    tpr_upper = np.where(second, up_r[first_idx], up_l[first_idx])
    return fpr, tpr_lower, tpr_upper


def band_auc_bounds(tp, fp, confidence: float) -> tuple[float, float]:
    """The areas under the envelopes of :func:`roc_band`: a guaranteed interval of the area.

    Whenever the band holds (probability at least ``confidence``, for any score distributions,
    ties included), the true area, ``P(X > Y) + P(X = Y) / 2`` for a random positive ``X`` and
    negative ``Y``, lies between them: the area only grows when the positives' distribution is
    raised or the negatives' lowered in stochastic order, and the envelopes are the two extreme
    pairs of distributions inside the band. Wider than DeLong's interval (it holds for every
    distribution at once, without a normal approximation), and never of zero width.

    Parameters
    ----------
    tp, fp : array_like of int
        Cumulative counts from :func:`threshold_counts` or :func:`tallied_counts`.
    confidence : float
        In (0, 1).

    Returns
    -------
    (lower, upper) : tuple of float
        In [0, 1], ``lower <= auc(tp, fp) <= upper``.
    """
    tp, fp = _as_curve(tp, fp)
    d_pos, d_neg = _band_halfwidths(int(tp[-1]), int(fp[-1]), confidence)
    (lx, ly), (ux, uy) = _envelopes(tp, fp, d_pos, d_neg)
    area = lambda x, y: float(np.dot(np.diff(x), y[1:] + y[:-1]) / 2.0)  # noqa: E731
    return max(0.0, area(lx, ly)), min(1.0, area(ux, uy))


# ----------------------------------------------------------------------------------------------
# the Bayesian bootstrap
def bayesian_bootstrap_auc(tp, fp, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Posterior draws of the area under the Bayesian bootstrap (Gu, Ghosal & Roy 2008).

    The positives get Dirichlet(1, ..., 1) weights ``p_i``, the negatives independent
    Dirichlet(1, ..., 1) weights ``q_j`` (Rubin 1981), and each draw is the weighted
    Mann-Whitney area ``sum_ij p_i q_j (1[X_i > Y_j] + 1[X_i = Y_j] / 2)``. Its mean is the
    sample area.

    The area depends on the weights only through their sums over runs: examples of one class
    whose scores follow each other with no score of the other class between them (nor a score
    both classes share) are above and below the same examples of the other class. The sum of
    ``m`` independent Exp(1) weights is one Gamma(m) variable, and sums over disjoint runs are
    independent, so each run gets one Gamma(size) variable (a tied score, held by both classes,
    is a run of its own in each). Those are the same draws in law as a weight per example, with
    far fewer variables: at most ``2 min(P, N) + 1`` runs for ``P`` positives and ``N``
    negatives, and fewer with ties.

    Parameters
    ----------
    tp, fp : array_like of int
        Cumulative counts from :func:`threshold_counts` or :func:`tallied_counts`.
    draws : int
        Number of draws (>= 1).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (draws,)
        The areas, in [0, 1].

    Notes
    -----
    ``O(draws R)`` time for ``R`` runs (``R <= K`` distinct scores), in blocks of about
    2 * 10^6 weights.
    """
    tp, fp = _as_curve(tp, fp)
    draws = check_int(draws, "draws", 1, 10**9)
    a, b = _runs(np.diff(tp), np.diff(fp))
    ia, ib = np.flatnonzero(a), np.flatnonzero(b)
    # for each value with positives: negative values strictly above it, and its own (tie) one
    above = np.searchsorted(ib, ia, "left")
    tie = above < ib.size
    tie[tie] = ib[above[tie]] == ia[tie]
    tie_at = np.flatnonzero(tie)
    out = np.empty(draws)
    block = max(1, _BLOCK // max(ia.size + ib.size, 1))
    for start in range(0, draws, block):
        c = min(block, draws - start)
        wp = _gamma_weights(rng, a[ia], c)  # (values with positives, c)
        wn = _gamma_weights(rng, b[ib], c)
        wp /= wp.sum(axis=0)
        wn /= wn.sum(axis=0)
        cum = np.zeros((ib.size + 1, c))
        np.cumsum(wn, axis=0, out=cum[1:])
        beaten = 1.0 - cum[above]  # negatives' weight at or below each positive value
        beaten[tie_at] -= 0.5 * wn[above[tie_at]]
        out[start : start + c] = np.einsum("ij,ij->j", wp, beaten)
    return np.clip(out, 0.0, 1.0)


def _runs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positives and negatives per run (see :func:`bayesian_bootstrap_auc`) from those per
    distinct score (in score order): consecutive scores held by positives only merge, as do
    those held by negatives only; a score held by both stays on its own."""
    kind = (a > 0).astype(np.int8) + 2 * (b > 0).astype(np.int8)  # 1 pos, 2 neg, 3 both
    keep = kind > 0
    a, b, kind = a[keep], b[keep], kind[keep]
    new = np.ones(kind.size, dtype=bool)
    new[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 3)
    run = np.cumsum(new) - 1
    return (np.bincount(run, a, minlength=run[-1] + 1).astype(np.int64),
            np.bincount(run, b, minlength=run[-1] + 1).astype(np.int64))


def _gamma_weights(rng: np.random.Generator, counts: np.ndarray, c: int) -> np.ndarray:
    """Independent Gamma(count) variables, shape ``(counts.size, c)`` (counts > 0): Exp(1) where
    a count is 1 (untied scores, the common case, drawn faster), Gamma otherwise."""
    w = rng.standard_exponential(size=(counts.size, c))
    tied = np.flatnonzero(counts > 1)
    if tied.size:
        w[tied] = rng.standard_gamma(counts[tied].astype(float)[:, None], size=(tied.size, c))
    return w
