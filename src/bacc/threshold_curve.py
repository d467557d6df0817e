"""The balanced accuracy at every threshold, with its bands, and the honest best threshold.

:func:`threshold_curve` gives, at every threshold of a :class:`bacc.ScoreCurve`, the sample
sensitivity, specificity and balanced accuracy with three kinds of band:

* the posterior of the balanced accuracy (mean and central credible band), each class's accuracy
  ``Beta(k + a, n - k + b)`` as everywhere in bacc (Brodersen et al. 2010);
* exact pointwise confidence bounds: Clopper-Pearson for sensitivity and specificity, their
  union bound for the balanced accuracy (Sandler & Dirac 2024) -- each holds at one threshold
  fixed in advance;
* a simultaneous band, holding at every threshold at once: the Kolmogorov-Smirnov band of each
  class's score distribution, exact and distribution-free (Campbell 1994).

:func:`best_threshold` picks the threshold that maximises the balanced accuracy and computes,
not asserts, what choosing it on the same data inflates: the same choice made on other folds
(cross-fitting) or on a training part (a held-out split), evaluated on examples it did not see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._engine.bounds.per_class import cp_bounds, per_bound_alpha
from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.validate import (
    check_choice,
    check_confidence,
    check_int,
    check_prior,
    check_random_state,
)
from ._engine.roc import ks_halfwidth
from ._engine.sums.rows import interval_and_tail
from .distributions import BetaSum
from .errors import BaccError
from .score_inputs import decision_matrix

__all__ = ["threshold_curve", "best_threshold", "ThresholdCurve", "ChosenThreshold",
           "CRITERIA"]

#: What :func:`best_threshold` maximises.
CRITERIA = {
    "mean": "the posterior mean of the balanced accuracy",
    "lower": "the lower end of the central credible interval of the balanced accuracy",
    "sample": "the sample balanced accuracy",
}


# ------------------------------------------------------------------------------ the curve
@dataclass(frozen=True)
class ThresholdCurve(FrozenArrays):
    """Balanced accuracy, sensitivity and specificity at thresholds, with bands (see
    :func:`bacc.threshold_curve.threshold_curve`).

    Attributes
    ----------
    thresholds : ndarray
        Thresholds, decreasing (``score >= t`` predicts the positive class); ``+inf`` first.
    sensitivity, specificity, balanced_accuracy : ndarray
        Sample values at each threshold.
    mean, lower, upper : ndarray
        Posterior mean and central credible band of the balanced accuracy.
    exact_lower, exact_upper : ndarray
        Exact pointwise confidence bounds of the balanced accuracy (union of Clopper-Pearson
        bounds of both classes), each valid at one threshold chosen in advance.
    sensitivity_lower, sensitivity_upper, specificity_lower, specificity_upper : ndarray
        Exact pointwise Clopper-Pearson bounds of each class's accuracy.
    band_sensitivity_lower, band_sensitivity_upper, band_specificity_lower,
    band_specificity_upper, band_lower, band_upper : ndarray
        The simultaneous band: with probability at least ``confidence``, the true sensitivity,
        specificity and balanced accuracy lie inside it at every threshold at once.
    best : int
        Index of the threshold with the largest posterior mean.
    n_thresholds : int
        Thresholds of the whole curve (``len(thresholds)`` when every one is shown).
    n_positive, n_negative : int
        Examples of each class.
    positive : object
        The positive class.
    confidence : float
    prior : tuple
        The Beta prior ``(a, b)`` of each class's accuracy, negative class first.
    """

    thresholds: np.ndarray
    sensitivity: np.ndarray
    specificity: np.ndarray
    balanced_accuracy: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    exact_lower: np.ndarray
    exact_upper: np.ndarray
    sensitivity_lower: np.ndarray
    sensitivity_upper: np.ndarray
    specificity_lower: np.ndarray
    specificity_upper: np.ndarray
    band_sensitivity_lower: np.ndarray
    band_sensitivity_upper: np.ndarray
    band_specificity_lower: np.ndarray
    band_specificity_upper: np.ndarray
    band_lower: np.ndarray
    band_upper: np.ndarray
    best: int
    n_thresholds: int
    n_positive: int
    n_negative: int
    positive: object
    confidence: float
    prior: tuple

    @property
    def best_threshold(self) -> float:
        """The threshold with the largest posterior mean of the balanced accuracy."""
        return float(self.thresholds[self.best])

    def to_dict(self) -> dict:
        """Plain dict (strict JSON; the ``+inf`` threshold as null)."""
        out = {}
        for k, v in vars(self).items():
            if isinstance(v, np.ndarray):
                out[k] = [x if math.isfinite(x) else None for x in v.tolist()]
            elif isinstance(v, tuple):
                out[k] = [jsonable(x) for x in v]
            else:
                out[k] = jsonable(v)
        return out

    def to_pandas(self):
        """The curve as a pandas DataFrame, one row per threshold."""
        import pandas as pd

        cols = {k: v for k, v in vars(self).items()
                if isinstance(v, np.ndarray) and v.shape == self.thresholds.shape}
        return pd.DataFrame(cols)

    def plot(self, **kwargs):
        """The curve with its bands (see :func:`bacc.display.scores_plot.plot_threshold_curve`)."""
        from .display.scores_plot import plot_threshold_curve

        return plot_threshold_curve(self, **kwargs)

    def __repr__(self) -> str:
        b = self.best
        return (f"<ThresholdCurve: {len(self.thresholds)} of {self.n_thresholds} thresholds; best "
                f"{self.thresholds[b]:.6g}, balanced accuracy {self.mean[b]:.4f} "
                f"[{self.lower[b]:.4f}, {self.upper[b]:.4f}]>")

    def _repr_html_(self) -> str:
        from .display.scores_html import threshold_curve_html

        return threshold_curve_html(self)

    def __str__(self) -> str:
        from .display.scores_text import threshold_curve_text

        return threshold_curve_text(self)


def _pick(total: np.ndarray, points: int | str, keep: tuple[int, ...]) -> np.ndarray:
    """Indices of the thresholds shown: every one, or ``points`` of them evenly spaced in the
    examples above the threshold, with the ends and ``keep`` always in."""
    m = total.size
    if points == "all" or m <= points:
        return np.arange(m)
    targets = np.linspace(0.0, float(total[-1]), int(points))
    idx = np.searchsorted(total, targets, side="left").clip(0, m - 1)
    return np.unique(np.concatenate([idx, [0, m - 1], np.asarray(keep, dtype=np.int64)]))


def _check_points(points) -> int | str:
    if isinstance(points, str):
        if points != "all":
            raise BaccError(f"points must be a number of thresholds or 'all', got {points!r}")
        return points
    return check_int(points, "points", 2, 10**9)


def _beta_parameters(curve, tp, fp, prior):
    """Beta parameters of both classes' accuracies at each threshold, in class order."""
    pa, pb = check_prior(prior, 2, classes=curve.classes)
    ip = curve.classes.index(curve.positive)
    P, N = curve.n_positive, curve.n_negative
    k = np.empty((tp.size, 2))
    n = np.empty(2)
    k[:, ip], k[:, 1 - ip] = tp, N - fp
    n[ip], n[1 - ip] = P, N
    return k + pa, (n - k) + pb, (tuple(map(float, pa)), tuple(map(float, pb)))


def posterior_mean(curve, tp, fp, prior) -> np.ndarray:
    """Posterior mean of the balanced accuracy at each threshold (closed form)."""
    pa, pb = check_prior(prior, 2, classes=curve.classes)
    ip = curve.classes.index(curve.positive)
    P, N = curve.n_positive, curve.n_negative
    sens = (tp + pa[ip]) / (P + pa[ip] + pb[ip])
    spec = (N - fp + pa[1 - ip]) / (N + pa[1 - ip] + pb[1 - ip])
    return 0.5 * (sens + spec)


def credible_band(curve, tp, fp, prior, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Central credible interval of the balanced accuracy at each threshold given."""
    A, B, _ = _beta_parameters(curve, tp, fp, prior)
    q = np.array([(1 - confidence) / 2, (1 + confidence) / 2])
    inc = np.ones(A.shape, dtype=bool)
    lo, hi, _ = interval_and_tail(A, B, inc, 0.5, q, single=BetaSum)
    return lo, hi


def threshold_curve(curve, *, confidence: float = 0.95, points: int | str = 2001,
                    prior=(1.0, 1.0)) -> ThresholdCurve:
    """The balanced accuracy, sensitivity and specificity at every threshold, with bands.

    Parameters
    ----------
    curve : ScoreCurve
        The tallied scores (:func:`bacc.scores`).
    confidence : float
        Mass of the credible band and coverage of the confidence bands (default 0.95).
    points : int or "all"
        How many thresholds to show (default 2001): every threshold when the curve has no more,
        otherwise this many spaced evenly in the examples, always with the best threshold (by
        posterior mean, searched over every threshold). ``"all"`` shows every one.
    prior : (float, float) or per-class pairs
        Beta prior of each class's accuracy (default flat).

    Returns
    -------
    ThresholdCurve

    Notes
    -----
    At threshold ``t`` the positive class's accuracy (sensitivity) has ``tp(t)`` right answers
    of ``P`` and the other class's (specificity) ``N - fp(t)`` of ``N``; the posterior of the
    balanced accuracy is that of the mean of the two Beta posteriors (Brodersen et al. 2010,
    eqs. 5-7). The simultaneous band is each class's exact two-sided Kolmogorov-Smirnov band of
    its score distribution at confidence ``sqrt(confidence)``; the two samples are independent
    given the class sizes, so both hold together with probability ``confidence`` (Campbell 1994),
    for every distribution of scores (conservatively with ties).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, eqs. 5-7.
    .. [2] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [3] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024.
    .. [4] Campbell, G. (1994). Advances in statistical methodology for the evaluation of
       diagnostic and laboratory tests. Statistics in Medicine 13, 499-508.

    Examples
    --------
    >>> import bacc
    >>> sc = bacc.scores([0, 0, 1, 1, 0, 1, 0, 1], [.1, .4, .35, .8, .2, .9, .3, .7])
    >>> cur = sc.curve()
    >>> cur.best_threshold, round(float(cur.mean[cur.best]), 4)  # 3 of 4 positives, no negative
    (0.7, 0.75)
    """
    c = check_confidence(confidence)
    points = _check_points(points)
    tp_all, fp_all = curve.tp, curve.fp
    P, N = curve.n_positive, curve.n_negative
    mean_all = posterior_mean(curve, tp_all, fp_all, prior)
    best_all = int(np.argmax(mean_all))
    idx = _pick(tp_all + fp_all, points, (best_all,))
    tp, fp = tp_all[idx], fp_all[idx]
    sens, spec = tp / P, 1.0 - fp / N
    lo, hi = credible_band(curve, tp, fp, prior, c)
    _, _, pr = _beta_parameters(curve, tp[:1], fp[:1], prior)
    # exact pointwise: Clopper-Pearson of each class, and their union bound for the mean
    s_lo, s_hi = cp_bounds(tp, np.full(tp.shape, P), (1 - c) / 2, "two")
    e_lo, e_hi = cp_bounds(N - fp, np.full(fp.shape, N), (1 - c) / 2, "two")
    alpha_u = per_bound_alpha(c, 2, "two", "union")
    us_lo, us_hi = cp_bounds(tp, np.full(tp.shape, P), alpha_u, "two")
    ue_lo, ue_hi = cp_bounds(N - fp, np.full(fp.shape, N), alpha_u, "two")
    # simultaneous: each class's KS band at sqrt(confidence)
    each = math.sqrt(c)
    dP, dN = ks_halfwidth(P, each), ks_halfwidth(N, each)
    bs_lo, bs_hi = np.clip(sens - dP, 0, 1), np.clip(sens + dP, 0, 1)
    be_lo, be_hi = np.clip(spec - dN, 0, 1), np.clip(spec + dN, 0, 1)
    return ThresholdCurve(
        thresholds=curve.thresholds[idx], sensitivity=sens, specificity=spec,
        balanced_accuracy=0.5 * (sens + spec), mean=mean_all[idx], lower=lo, upper=hi,
        exact_lower=0.5 * (us_lo + ue_lo), exact_upper=0.5 * (us_hi + ue_hi),
        sensitivity_lower=s_lo, sensitivity_upper=s_hi,
        specificity_lower=e_lo, specificity_upper=e_hi,
        band_sensitivity_lower=bs_lo, band_sensitivity_upper=bs_hi,
        band_specificity_lower=be_lo, band_specificity_upper=be_hi,
        band_lower=0.5 * (bs_lo + be_lo), band_upper=0.5 * (bs_hi + be_hi),
        best=int(np.flatnonzero(idx == best_all)[0]), n_thresholds=int(tp_all.size),
        n_positive=P, n_negative=N, positive=curve.positive, confidence=c, prior=pr,
    )


# ------------------------------------------------------------------------- the best one
@dataclass(frozen=True)
class ChosenThreshold:
    """The threshold that maximises the balanced accuracy, and its honest estimate (see
    :func:`bacc.threshold_curve.best_threshold`).

    Attributes
    ----------
    threshold : float
        The threshold chosen on all the data (``score >= threshold`` predicts positive).
    criterion : str
        What was maximised (:data:`CRITERIA`).
    in_sample : Evaluation
        The decisions at ``threshold`` evaluated on the same data: optimistic, since the
        threshold was chosen to make them look good.
    in_sample_balanced_accuracy : float
        Their sample balanced accuracy.
    honest_method : {"crossfit", "split"}
    honest : Evaluation
        Decisions evaluated only on examples that did not choose their threshold: the
        cross-fitted confusion matrix of the first repetition (every example once, its threshold
        chosen on the other folds), or the held-out part of a split.
    honest_balanced_accuracy : float
        The sample balanced accuracy of those decisions (averaged over the repetitions).
    honest_sd : float
        Its standard deviation over the repetitions (0 for one split).
    optimism : float
        ``in_sample_balanced_accuracy - honest_balanced_accuracy``: what choosing the threshold
        on the test set inflates the reported number by.
    split_threshold : float or None
        With ``honest="split"``: the threshold chosen on the training part, the one ``honest``
        evaluates.
    folds, repeats : int
    random_state : object
        The seed given (``None`` when a Generator or nothing was given).
    """

    threshold: float
    criterion: str
    in_sample: object
    in_sample_balanced_accuracy: float
    honest_method: str
    honest: object
    honest_balanced_accuracy: float
    honest_sd: float
    optimism: float
    split_threshold: float | None
    folds: int
    repeats: int
    random_state: object

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        out = {}
        for k, v in vars(self).items():
            if hasattr(v, "to_dict"):
                out[k] = v.to_dict()
            elif isinstance(v, float) and not math.isfinite(v):
                out[k] = None
            else:
                out[k] = jsonable(v)
        return out

    def __repr__(self) -> str:
        return (f"<ChosenThreshold {self.threshold:.6g} ({self.criterion}): in sample "
                f"{self.in_sample_balanced_accuracy:.4f}, honest ({self.honest_method}) "
                f"{self.honest_balanced_accuracy:.4f}, optimism {self.optimism:+.4f}>")

    def _repr_html_(self) -> str:
        from .display.scores_html import chosen_threshold_html

        return chosen_threshold_html(self)

    def __str__(self) -> str:
        from .display.scores_text import chosen_threshold_text

        return chosen_threshold_text(self)


def _choose(curve, pos: np.ndarray, neg: np.ndarray, criterion: str, prior, c: float) -> float:
    """The threshold maximising ``criterion`` on the tallies ``pos``, ``neg`` (per value of
    ``curve.values``); the highest threshold among equals."""
    tp = np.concatenate([[0], np.cumsum(pos)])
    fp = np.concatenate([[0], np.cumsum(neg)])
    thresholds = np.concatenate([[np.inf], curve.values])
    # the thresholds where the tallies change (a value without examples here decides nothing)
    keep = np.concatenate([[True], (pos + neg) > 0])
    tp, fp, thresholds = tp[keep], fp[keep], thresholds[keep]
    P, N = int(tp[-1]), int(fp[-1])
    if P == 0 or N == 0:
        raise BaccError("a fold holds examples of one class only: use fewer folds")
    sub = _Sub(curve.classes, curve.positive, P, N)
    if criterion == "sample":
        score = 0.5 * (tp / P + 1.0 - fp / N)
        return float(thresholds[int(np.argmax(score))])
    mean = posterior_mean(sub, tp, fp, prior)
    if criterion == "mean":
        return float(thresholds[int(np.argmax(mean))])
    order = np.argsort(-mean, kind="stable")
    best, best_lo, start = -1, -np.inf, 0
    while start < order.size and mean[order[start]] > best_lo:
        chunk = order[start:start + 256]
        lo, _ = credible_band(sub, tp[chunk], fp[chunk], prior, c)
        j = int(np.argmax(lo))
        if lo[j] > best_lo:
            best, best_lo = int(chunk[j]), float(lo[j])
        start += 256
    return float(thresholds[best])


@dataclass(frozen=True)
class _Sub:
    """The class sizes of a part of the data, for the posterior of its curve."""

    classes: tuple
    positive: object
    n_positive: int
    n_negative: int


def _decide(curve, pos: np.ndarray, neg: np.ndarray, threshold: float) -> tuple[int, int]:
    """True and false positives of the examples ``pos``, ``neg`` at ``threshold``."""
    above = curve.values >= threshold
    return int(pos[above].sum()), int(neg[above].sum())


def _matrix(curve, tp: int, fp: int, P: int, N: int):
    return decision_matrix(curve.classes, curve.positive, tp, fp, P, N)


def _deal(rng, counts: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    """The examples of ``counts`` (per value) dealt at random into parts of ``sizes``: a
    uniformly random partition (a shuffled list of part labels for moderate sizes; one
    multivariate hypergeometric draw per part beyond)."""
    n = int(counts.sum())
    if n <= 20_000_000:
        k = len(sizes)
        part = rng.permutation(np.repeat(np.arange(k, dtype=np.int64), sizes))
        value = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        tab = np.bincount(value * k + part, minlength=counts.size * k).reshape(counts.size, k)
        return [tab[:, f].copy() for f in range(k)]
    parts, left = [], counts.copy()
    for s in sizes[:-1]:
        got = rng.multivariate_hypergeometric(left, s, method="marginals")
        parts.append(got)
        left = left - got
    parts.append(left)
    return parts


def _sizes(n: int, k: int) -> list[int]:
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def best_threshold(curve, *, criterion: str = "mean", honest: str = "crossfit",
                   confidence: float = 0.95, folds: int = 5, repeats: int = 10,
                   test_size: float = 0.5, prior=(1.0, 1.0), random_state=0) -> ChosenThreshold:
    """The threshold that maximises the balanced accuracy, with what choosing it costs.

    Parameters
    ----------
    curve : ScoreCurve
    criterion : {"mean", "lower", "sample"}
        Maximise the posterior mean of the balanced accuracy (default), the lower end of its
        central credible interval at ``confidence`` (prefers thresholds that are good with
        certainty), or the sample balanced accuracy.
    honest : {"crossfit", "split"}
        How the honest estimate is made. ``"crossfit"``: the examples are dealt into ``folds``
        stratified folds; each fold's decisions use the threshold chosen on the other folds; the
        summed confusion matrix evaluates the procedure "choose the threshold by ``criterion``",
        repeated ``repeats`` times with fresh folds. ``"split"``: one stratified split; the
        threshold chosen on the training part is evaluated on the held-out ``test_size``.
    confidence : float
        For ``criterion="lower"`` and the evaluations (default 0.95).
    folds, repeats : int
        Cross-fitting folds (at least 2) and repetitions.
    test_size : float
        Share of each class held out by ``honest="split"``.
    prior : (float, float) or per-class pairs
        Beta prior of each class's accuracy (default flat).
    random_state : int, Generator or None
        Seed of the folds or the split (default 0: the same answer every time).

    Returns
    -------
    ChosenThreshold

    Notes
    -----
    The threshold that maximises the balanced accuracy on a test set is chosen because the test
    set's noise favours it, so its balanced accuracy on that test set is biased upwards (the
    winner's curse, Varma & Simon 2006). Cross-fitting evaluates the choice the way
    cross-validation evaluates a learning algorithm (Brodersen et al. 2010, section IV: the
    summed confusion matrix of the folds); the data are dealt at the level of the tallies (each
    distinct score's examples dealt by a multivariate hypergeometric draw), which is a uniformly
    random stratified partition of the examples.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section IV.
    .. [2] Varma, S. & Simon, R. (2006). Bias in error estimation when using cross-validation
       for model selection. BMC Bioinformatics 7, 91.

    Examples
    --------
    >>> import numpy as np, bacc
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], [60, 40])
    >>> s = rng.normal(y * 1.0, 1.0)
    >>> best = bacc.scores(y, s).best_threshold()
    >>> bool(best.optimism > 0), best.honest_method
    (True, 'crossfit')
    """
    crit = check_choice(criterion, tuple(CRITERIA), "criterion")
    how = check_choice(honest, ("crossfit", "split"), "honest")
    c = check_confidence(confidence)
    k = check_int(folds, "folds", 2, 1000)
    r = check_int(repeats, "repeats", 1, 10_000)
    if isinstance(test_size, bool) or not isinstance(test_size, int | float) or not (
            0.0 < float(test_size) < 1.0):
        raise BaccError(f"test_size must be a share strictly between 0 and 1, got {test_size!r}")
    seed = random_state if isinstance(random_state, int) else None
    rng = check_random_state(random_state)
    pos, neg = np.asarray(curve.positives), np.asarray(curve.negatives)
    P, N = curve.n_positive, curve.n_negative
    t_all = _choose(curve, pos, neg, crit, prior, c)
    tp0, fp0 = _decide(curve, pos, neg, t_all)
    in_cm = _matrix(curve, tp0, fp0, P, N)
    in_ba = 0.5 * (tp0 / P + 1.0 - fp0 / N)
    from .evaluation import evaluate

    if how == "split":
        n_test_p, n_test_n = round(P * test_size), round(N * test_size)
        if min(n_test_p, n_test_n, P - n_test_p, N - n_test_n) < 1:
            raise BaccError(f"a split with test_size={test_size} leaves a part without examples of "
                            f"a class ({P} positive, {N} negative)")
        tp_te, tp_tr = _deal(rng, pos, [n_test_p, P - n_test_p])
        fn_te, fn_tr = _deal(rng, neg, [n_test_n, N - n_test_n])
        t_tr = _choose(curve, tp_tr, fn_tr, crit, prior, c)
        a, b = _decide(curve, tp_te, fn_te, t_tr)
        honest_cm = _matrix(curve, a, b, n_test_p, n_test_n)
        h_ba, h_sd, split_t, r_used = 0.5 * (a / n_test_p + 1.0 - b / n_test_n), 0.0, t_tr, 1
    else:
        if min(P, N) < k:
            raise BaccError(f"cross-fitting with {k} folds needs at least {k} examples of each "
                            f"class ({P} positive, {N} negative): use fewer folds or "
                            "honest='split'")
        sizes_p, sizes_n = _sizes(P, k), _sizes(N, k)
        bas, first = [], None
        for _ in range(r):
            parts_p, parts_n = _deal(rng, pos, sizes_p), _deal(rng, neg, sizes_n)
            tp_sum = fp_sum = 0
            for f in range(k):
                t_f = _choose(curve, pos - parts_p[f], neg - parts_n[f], crit, prior, c)
                a, b = _decide(curve, parts_p[f], parts_n[f], t_f)
                tp_sum, fp_sum = tp_sum + a, fp_sum + b
            bas.append(0.5 * (tp_sum / P + 1.0 - fp_sum / N))
            if first is None:
                first = (tp_sum, fp_sum)
        honest_cm = _matrix(curve, first[0], first[1], P, N)
        h_ba = float(np.mean(bas))
        h_sd = float(np.std(bas, ddof=1)) if r > 1 else 0.0
        split_t, r_used = None, r
    return ChosenThreshold(
        threshold=t_all, criterion=crit, in_sample=evaluate(in_cm, prior=prior, confidence=c),
        in_sample_balanced_accuracy=float(in_ba), honest_method=how,
        honest=evaluate(honest_cm, prior=prior, confidence=c),
        honest_balanced_accuracy=float(h_ba), honest_sd=h_sd, optimism=float(in_ba - h_ba),
        split_threshold=split_t, folds=k, repeats=r_used, random_state=seed,
    )
