"""Thresholds with a guarantee, from the order statistics of the scores: exact and
distribution-free.

Decision rule: ``score >= t`` predicts the positive class. For a new example, recall(t) =
``P(X >= t)`` over positives ``X`` and the false-positive rate fpr(t) = ``P(Y >= t)`` over
negatives ``Y``; both are properties of the score distributions, not of the sample.

* :func:`recall_threshold`: the ``k``-th smallest of ``n`` positive scores, ``X_(k)``, has
  ``recall(X_(k)) = 1 - F(X_(k)-) >= 1 - U_(k)`` where ``U_(k) ~ Beta(k, n - k + 1)`` is the
  ``k``-th smallest of ``n`` uniforms (equality for a continuous ``F``; David & Nagaraja 2003,
  section 2.2 and 7.2, distribution-free tolerance limits). So
  ``P(recall >= r) >= P(U_(k) <= 1 - r) = P(Binom(n, 1 - r) >= k)``; the threshold is the
  largest ``k`` for which this is at least the confidence.
* :func:`fpr_threshold`: just above the ``k``-th smallest of ``n`` negative scores,
  ``fpr = 1 - F(Y_(k)) <= 1 - U_(k)``, so ``P(fpr <= f) >= P(Binom(n, 1 - f) <= k - 1)``; the
  smallest such ``k``. This is the threshold of a risk-controlling prediction set (Bates et
  al. 2021) with the exact binomial (Clopper-Pearson) upper bound of the false-positive rate:
  the bound at the returned threshold is at most ``f`` and above ``f`` one order statistic
  lower.
* :func:`precision_threshold`: precision at a deployment prevalence ``pi``,
  ``pi R / (pi R + (1 - pi) F)``, at least ``p`` with confidence: Learn then Test over
  thresholds at ranks of the positive scores, the recall bounded by its rank and the
  false-positive rate by Clopper-Pearson (see its notes).

With ties (discrete scores) every statement holds conservatively: ``F(F^-1(u)) >= u``.

References
----------
David, H. A. & Nagaraja, H. N. (2003). Order Statistics, 3rd ed. Wiley (sections 2.2, 2.5 and
7.2: distribution-free confidence intervals for quantiles and tolerance limits).
Wilks, S. S. (1941). Determination of sample sizes for setting tolerance limits. Annals of
Mathematical Statistics 12, 91-96.
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in
the case of the binomial. Biometrika 26, 404-413.
Bates, S., Angelopoulos, A., Lei, L., Malik, J. & Jordan, M. I. (2021). Distribution-free,
risk-controlling prediction sets. Journal of the ACM 68(6), 43.
Angelopoulos, A. N., Bates, S., Candès, E. J., Jordan, M. I. & Lei, L. (2021/2022). Learn then
Test: calibrating predictive algorithms to achieve risk control. arXiv:2110.01052.
Massart, P. (1990). The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality. Annals
of Probability 18, 1269-1283.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
from scipy import stats

from ...errors import BaccError
from ..beta import beta_isf, beta_ppf
from ..helpers.validate import check_choice, check_confidence, check_count_limit, check_int
from ..roc import _as_curve, _as_scores, ks_halfwidth

__all__ = [
    "fpr_rank",
    "band_bounds",
    "fpr_threshold",
    "precision_threshold",
    "recall_rank",
    "recall_threshold",
]


# ----------------------------------------------------------------------------------------------
# checks
def _rate(value, name: str, *, low_open: bool, high_open: bool) -> float:
    """A rate in [0, 1] with the ends open as asked, or a BaccError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BaccError(f"{name} must be a number, got {value!r}")
    v = float(value)
    lo_ok = v > 0.0 if low_open else v >= 0.0
    hi_ok = v < 1.0 if high_open else v <= 1.0
    if not (math.isfinite(v) and lo_ok and hi_ok):
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise BaccError(f"{name} must lie in {interval}, got {v!r}")
    return v


def _sample(scores, counts, what: str) -> tuple[np.ndarray, np.ndarray | None, int]:
    """Scores (and counts per score) checked; returns (values, counts or None, n)."""
    s = _as_scores(scores, what)
    if s.ndim != 1:
        raise BaccError(f"{what} must be one-dimensional, got shape {s.shape}")
    if counts is None:
        n = s.size
        c = None
    else:
        c = np.asarray(counts)
        if c.shape != s.shape:
            raise BaccError(f"counts must have one value per score ({s.size}), got shape {c.shape}")
        if c.dtype.kind not in "biuf" or (
            c.dtype.kind == "f" and (not np.all(np.isfinite(c)) or np.any(c != np.round(c)))
        ):
            raise BaccError("counts must be whole numbers")
        if np.any(c < 0):
            raise BaccError(f"counts must be >= 0, got {c[c < 0][0].item()!r}")
        check_count_limit(c[None, :], "the counts")
        c = c.astype(np.int64)
        n = int(c.sum())
    if n == 0:
        raise BaccError(f"{what} is empty; a threshold needs at least one score")
    return s, c, n


def _kth_smallest(s: np.ndarray, c: np.ndarray | None, k: int) -> float:
    """The ``k``-th smallest (1-based) of the sample, or of the values repeated by counts."""
    if c is None:
        return float(np.partition(s, k - 1)[k - 1])
    order = np.argsort(s, kind="stable")
    cum = np.cumsum(c[order])
    return float(s[order][np.searchsorted(cum, k, "left")])


# ----------------------------------------------------------------------------------------------
# ranks
#: Ranks depend on three numbers only, and a run that sets thresholds on many test sets of one
#: size (a simulation, a monitor) asks for the same ones again: they are kept.
_RANKS_KEPT = 4096


@functools.lru_cache(maxsize=_RANKS_KEPT)
def recall_rank(n: int, recall: float, confidence: float) -> int:
    """The largest ``k`` in ``1..n`` with ``P(Binom(n, 1 - recall) >= k) >= confidence``, 0 if none.

    Parameters
    ----------
    n : int
        Number of positive scores (>= 1).
    recall : float
        In (0, 1].
    confidence : float
        In (0, 1).

    Returns
    -------
    int
        ``k``: the ``k``-th smallest positive score is a threshold whose recall is at least
        ``recall`` with probability at least ``confidence``. 0: no order statistic qualifies
        (recall 1, or too few positives: ``1 - recall^n < confidence``).
    """
    q = 1.0 - recall
    if q <= 0.0:
        return 0

    def ok(k: int) -> bool:  # P(B >= k) >= confidence, decreasing in k
        return k <= 0 or float(stats.binom.sf(k - 1, n, q)) >= confidence

    k = int(min(max(stats.binom.ppf(1.0 - confidence, n, q), 0), n))
    while k < n and ok(k + 1):
        k += 1
    while k > 0 and not ok(k):
        k -= 1
    return k


@functools.lru_cache(maxsize=_RANKS_KEPT)
def fpr_rank(n: int, fpr: float, confidence: float) -> int:
    """The smallest ``k`` in ``1..n + 1`` with ``P(Binom(n, 1 - fpr) <= k - 1) >= confidence``.

    Parameters
    ----------
    n : int
        Number of negative scores (>= 1).
    fpr : float
        In [0, 1).
    confidence : float
        In (0, 1).

    Returns
    -------
    int
        ``k``: a threshold just above the ``k``-th smallest negative score has a false-positive
        rate at most ``fpr`` with probability at least ``confidence``. ``n + 1``: only a
        threshold above every score qualifies (``(1 - fpr)^n > 1 - confidence``).
    """
    q = 1.0 - fpr

    def ok(k: int) -> bool:  # P(B <= k - 1) >= confidence, increasing in k
        return k > n or float(stats.binom.cdf(k - 1, n, q)) >= confidence

    k = int(min(max(stats.binom.ppf(confidence, n, q) + 1, 1), n + 1))
    while k > 1 and ok(k - 1):
        k -= 1
    while not ok(k):
        k += 1
    return k


# ----------------------------------------------------------------------------------------------
# thresholds
def recall_threshold(scores, recall: float, confidence: float, counts=None) -> tuple[float, int]:
    """The highest threshold whose recall is at least ``recall`` with probability ``confidence``.

    Parameters
    ----------
    scores : array_like of numbers, shape (n,)
        Scores of positive examples (or distinct values, with ``counts``).
    recall : float
        Target recall, in (0, 1].
    confidence : float
        In (0, 1).
    counts : array_like of int, optional
        Positives with each value of ``scores`` (tallies); ``n`` is their sum.

    Returns
    -------
    threshold : float
        ``X_(k)``, the ``k``-th smallest positive score (``k`` of :func:`recall_rank`), or
        ``-inf`` (predict every example positive) when none qualifies.
    k : int
        The rank, 0 with ``-inf``.

    Notes
    -----
    ``P(recall(threshold) >= recall) >= confidence`` for every score distribution, with
    equality in the limit of a continuous one; ties only raise the recall at ``X_(k)``.
    """
    recall = _rate(recall, "recall", low_open=True, high_open=False)
    confidence = check_confidence(confidence)
    s, c, n = _sample(scores, counts, "the positive scores")
    k = recall_rank(n, recall, confidence)
    if k == 0:
        return -math.inf, 0
    return _kth_smallest(s, c, k), k


def fpr_threshold(scores, fpr: float, confidence: float, counts=None) -> tuple[float, int]:
    """The lowest threshold whose false-positive rate is at most ``fpr`` with probability
    ``confidence``.

    Parameters
    ----------
    scores : array_like of numbers, shape (n,)
        Scores of negative examples (or distinct values, with ``counts``).
    fpr : float
        Target false-positive rate, in [0, 1).
    confidence : float
        In (0, 1).
    counts : array_like of int, optional
        Negatives with each value of ``scores`` (tallies); ``n`` is their sum.

    Returns
    -------
    threshold : float
        ``nextafter(Y_(k), +inf)``, the next float64 above the ``k``-th smallest negative score
        (``k`` of :func:`fpr_rank`), so that ``score >= threshold`` means ``score > Y_(k)``;
        ``+inf`` (predict nothing positive) when ``k = n + 1``.
    k : int
        The rank, ``n + 1`` with ``+inf``.

    Notes
    -----
    ``P(fpr(threshold) <= fpr) >= confidence`` for every score distribution. The threshold is
    a float64 just above a score: compare scores in float64 (a float32 comparison rounds it
    back down to ``Y_(k)`` and counts its ties as positive), or use ``score > Y_(k)``.
    """
    fpr = _rate(fpr, "fpr", low_open=False, high_open=True)
    confidence = check_confidence(confidence)
    s, c, n = _sample(scores, counts, "the negative scores")
    k = fpr_rank(n, fpr, confidence)
    if k == n + 1:
        return math.inf, k
    return float(np.nextafter(_kth_smallest(s, c, k), math.inf)), k


# ----------------------------------------------------------------------------------------------
# precision at a prevalence
def _cp_lower(x: np.ndarray, n: int, alpha) -> np.ndarray:
    """Clopper-Pearson lower bounds ``Beta.ppf(alpha, x, n - x + 1)`` (0 at ``x = 0``)."""
    out = np.zeros(x.size)
    live = x > 0
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), x.shape)
    if live.any():
        xl = x[live].astype(float)
        out[live] = beta_ppf(alpha[live], xl, n - xl + 1.0)
    return out


def _cp_upper(x: np.ndarray, n: int, alpha) -> np.ndarray:
    """Clopper-Pearson upper bounds ``Beta.isf(alpha, x + 1, n - x)`` (1 at ``x = n``)."""
    out = np.ones(x.size)
    live = x < n
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), x.shape)
    if live.any():
        xl = x[live].astype(float)
        out[live] = beta_isf(alpha[live], xl + 1.0, n - xl)
    return out


def _tail_weights(i: np.ndarray) -> np.ndarray:
    """``1 / ((i + 1)(i + 2))`` for counts ``i >= 0``: they sum to less than 1 over any range."""
    i = i.astype(float)
    return 1.0 / ((i + 1.0) * (i + 2.0))


def _band_bounds(tp, fp, P: int, N: int, delta: float, d_pos: float, d_neg: float):
    """Recall lower and false-positive-rate upper bounds of ``"band"`` at the counts given."""
    quarter = delta / 4.0
    r_ks = np.maximum(tp / P - d_pos, 0.0)
    f_ks = np.minimum(fp / N + d_neg, 1.0)
    r_os = _cp_lower(tp, P, quarter * _tail_weights(P - tp))
    f_os = _cp_upper(fp, N, quarter * _tail_weights(fp))
    return np.maximum(r_ks, r_os), np.minimum(f_ks, f_os)


def band_bounds(tp, fp, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of the recall (below) and the false-positive rate (above) at every threshold, all
    holding together with probability at least ``confidence`` (the ``"band"`` method of
    :func:`precision_threshold`; two verified Beta quantiles per threshold).

    Parameters
    ----------
    tp, fp : array_like of int
        Cumulative counts from :func:`bacc._engine.roc.threshold_counts`.
    confidence : float
        In (0, 1).

    Returns
    -------
    recall_lower, fpr_upper : ndarray, shape (K + 1,)
    """
    tp, fp = _as_curve(tp, fp)
    confidence = check_confidence(confidence)
    P, N = int(tp[-1]), int(fp[-1])
    delta = 1.0 - confidence
    d_pos, d_neg = _ks_parts(P, N, delta)
    return _band_bounds(tp, fp, P, N, delta, d_pos, d_neg)


def _ks_parts(P: int, N: int, delta: float) -> tuple[float, float]:
    """KS half-widths at ``1 - delta / 4`` (two-sided quantiles, used one-sided)."""
    return ks_halfwidth(P, 1.0 - delta / 4.0), ks_halfwidth(N, 1.0 - delta / 4.0)


def precision_threshold(
    thresholds, tp, fp, precision: float, prevalence: float, confidence: float,
    method: str = "grid", grid: int = 20,
) -> tuple[float, int]:  # fmt: skip
    """The lowest threshold whose precision at a deployment prevalence is at least
    ``precision``, with confidence.

    Precision at prevalence ``pi`` is ``pi R / (pi R + (1 - pi) F)`` for the recall ``R`` and
    false-positive rate ``F`` of the threshold; it is at least ``p`` when
    ``pi (1 - p) R >= p (1 - pi) F``, which holds whenever it holds for a lower bound of ``R``
    and an upper bound of ``F``. A threshold is accepted when its bounds pass this test;
    ``delta = 1 - confidence``.

    Parameters
    ----------
    thresholds, tp, fp : array_like
        From :func:`bacc._engine.roc.threshold_counts` (``thresholds[0] = +inf``).
    precision : float
        Target precision ``p``, in (0, 1).
    prevalence : float
        Deployment prevalence ``pi`` of the positive class, in (0, 1).
    confidence : float
        In (0, 1).
    method : {"grid", "band", "sequence"}
        Which thresholds are tested, and how (notes).
    grid : int
        Number of thresholds tested by ``"grid"`` (>= 1).

    Returns
    -------
    threshold : float
        ``thresholds[j]``; ``+inf`` (predict nothing positive) when no threshold is accepted.
    j : int
        Its index (0 with ``+inf``).

    Notes
    -----
    ``"grid"`` (default): Learn then Test (Angelopoulos et al. 2022) with a Bonferroni
    correction over ``G = grid`` thresholds set by the positives alone: the ``k_g``-th largest
    positive scores, ``k_g = ceil(g P / G)``, ``g = 1..G`` (recalls of about ``g / G``). At
    each, the recall is bounded below by its rank, ``R >= Beta.ppf(delta / (2 G), k_g,
    P - k_g + 1)``, exact for any distribution (the recall at the ``k``-th largest of ``P``
    scores is at least ``1 - U_(P - k + 1) ~ Beta(k, P - k + 1)``), and the false-positive rate
    above by Clopper-Pearson at ``delta / (2 G)`` from the negatives at or above it (given the
    positives, the thresholds are fixed and that count is binomial). All ``2 G`` bounds hold
    together with probability at least ``confidence``, so the lowest accepted threshold keeps
    the guarantee. The recall reached is within about ``1 / G`` of the best the bounds allow.

    ``"band"``: both rates bounded at every threshold at once, so any threshold read off the
    bounds keeps the guarantee. Each rate's bound is the tighter of a one-sided
    Kolmogorov-Smirnov band (the two-sided quantile at ``delta / 4``, conservative; Massart
    1990) and a weighted union of exact order-statistic bounds at ``delta / 4``: at a threshold
    with ``tp`` true positives, the Clopper-Pearson lower bound of the recall at
    ``(delta / 4) / ((m + 1)(m + 2))`` with ``m = P - tp`` misses (valid at every such threshold
    at once, the recall there being at least that of the ``tp``-th largest positive score,
    ``1 - U_(P - tp + 1) ~ Beta(tp, P - tp + 1)``); the false-positive rate's upper bound at
    ``(delta / 4) / ((f + 1)(f + 2))`` with ``f = fp``. Tested on binormal scores (positives
    one and a half standard deviations above), it reaches a lower recall than ``"grid"`` from
    500 examples per class on (0.28 against 0.38 at 1 000 per class, precision 0.6 at
    prevalence 0.2), a higher one on small samples (150 per class).

    ``"sequence"``: fixed-sequence testing of every threshold in decreasing order, each by
    Clopper-Pearson bounds of both rates at ``delta / 2``, stopping at the first failure
    (Angelopoulos et al. 2022). Valid for a data-chosen threshold because the counts are
    constant between scores: scanning the distinct scores is the scan of every real threshold,
    whose first false hypothesis is fixed in advance. It has almost no power at the top of the
    sequence: with one true positive the recall bound is about ``delta / (2 P)``, far below any
    useful false-positive bound, so for untied scores it stops at the first threshold and
    returns ``+inf`` unless ``p`` is tiny.
    """
    thr = np.asarray(thresholds, dtype=float)
    tp, fp = _as_curve(tp, fp)
    if thr.shape != tp.shape or thr[0] != math.inf:
        raise BaccError("thresholds must match tp and fp and start with +inf, as from threshold_counts")
    p = _rate(precision, "precision", low_open=True, high_open=True)
    pi = _rate(prevalence, "prevalence", low_open=True, high_open=True)
    confidence = check_confidence(confidence)
    method = check_choice(method, ("grid", "band", "sequence"), "method")
    G = check_int(grid, "grid", 1, 10**6)
    P, N = int(tp[-1]), int(fp[-1])
    delta = 1.0 - confidence
    c_r, c_f = pi * (1.0 - p), p * (1.0 - pi)
    if method == "grid":
        ranks = np.unique(np.ceil(np.arange(1, G + 1) * (P / G)).astype(np.int64).clip(1, P))
        alpha = delta / (2.0 * ranks.size)
        at = np.searchsorted(tp, ranks, "left")  # the threshold of each rank (a positive's score)
        r_lo = _cp_lower(ranks, P, alpha)
        f_hi = _cp_upper(fp[at], N, alpha)
        ok = c_r * r_lo >= c_f * f_hi
        if not ok.any():
            return math.inf, 0
        j = int(at[np.flatnonzero(ok)[-1]])
        return float(thr[j]), j
    # a recall bound is at most tp / P, a false-positive one at least fp / N: where the sample
    # precision fails, the test fails
    possible = c_r * (tp / P) >= c_f * (fp / N)
    possible[0] = False
    if method == "band":
        d_pos, d_neg = _ks_parts(P, N, delta)
        rising = np.flatnonzero(np.diff(tp) > 0) + 1  # the highest threshold of each recall
        r_ks = np.maximum(tp[rising] / P - d_pos, 0.0)
        f_ks = np.minimum(fp[rising] / N + d_neg, 1.0)
        ks_ok = (c_r * r_ks >= c_f * f_ks) & (r_ks > 0.0)
        j = int(rising[ks_ok][-1]) if ks_ok.any() else 0  # accepted by the KS parts alone
        # only thresholds below it whose sample precision reaches p can do better
        todo = rising[(rising > j) & possible[rising]][::-1]  # lowest thresholds first
        for lo, hi in _blocks(0, todo.size):
            idx = todo[lo:hi]
            r_lo, f_hi = _band_bounds(tp[idx], fp[idx], P, N, delta, d_pos, d_neg)
            ok = (c_r * r_lo >= c_f * f_hi) & (r_lo > 0.0)
            if ok.any():
                j = int(idx[np.argmax(ok)])
                break
        return (math.inf, 0) if j == 0 else (float(thr[j]), j)
    stop = np.flatnonzero(~possible[1:])
    end = int(stop[0]) + 1 if stop.size else tp.size  # a failure at or before it
    for lo, hi in _blocks(1, end):
        r_lo = _cp_lower(tp[lo:hi], P, delta / 2.0)
        f_hi = _cp_upper(fp[lo:hi], N, delta / 2.0)
        ok = (c_r * r_lo >= c_f * f_hi) & (r_lo > 0.0)
        if not ok.all():
            end = lo + int(np.argmin(ok))
            break
    j = end - 1
    if j <= 0:
        return math.inf, 0
    j = int(np.searchsorted(tp, tp[j], "left"))  # the highest threshold with this recall
    return float(thr[j]), j


def _blocks(start: int, stop: int, first: int = 64, growth: int = 4):
    """Consecutive ranges ``[lo, hi)`` covering ``[start, stop)``, growing geometrically."""
    lo, size = start, first
    while lo < stop:
        hi = min(stop, lo + size)
        yield lo, hi
        lo, size = hi, size * growth
