"""The ROC curve with a simultaneous band, and the AUC with labelled intervals.

Every AUC interval says what it is (:data:`AUC_METHODS`): DeLong's (approximate: a normal
approximation that undercovers on small and imbalanced test sets, and collapses to a point when
the classes separate), DeLong's on the logit scale (approximate, stays inside (0, 1)), the
Bayesian bootstrap's credible interval (a posterior), and the band interval (guaranteed: the
areas under the simultaneous ROC band, valid for every score distribution). Their coverage is
measured by :func:`bacc.auc_coverage`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.validate import check_choice, check_confidence, check_int, check_random_state
from ._engine.roc import auc_interval as normal_auc_interval
from ._engine.roc import (
    band_auc_bounds,
    bayesian_bootstrap_auc,
    delong,
    delong_counts,
    difference_interval,
    roc_band,
)
from .errors import BaccError
from .score_inputs import as_scores, positive_class, refuse_scores_as_labels

__all__ = ["roc_curve", "auc_interval", "compare_auc", "RocCurve", "AucInterval",
           "AucComparison", "AUC_METHODS"]


@dataclass(frozen=True)
class AucMethod:
    """One AUC interval method: its kind and what it rests on."""

    name: str
    kind: str  # "approximate", "posterior" or "guaranteed"
    description: str
    reference: str


#: The AUC interval methods of :func:`auc_interval`, each labelled by kind.
AUC_METHODS: dict[str, AucMethod] = {
    m.name: m for m in (
        AucMethod("delong", "approximate",
                  "DeLong's variance of the Mann-Whitney AUC and a normal interval on the AUC "
                  "scale (clipped to [0, 1]); undercovers on small, imbalanced test sets and "
                  "is a single point when the classes separate",
                  "DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44, 837-845"),
        AucMethod("delong-logit", "approximate",
                  "DeLong's variance carried to the logit of the AUC by the delta method; the "
                  "interval stays inside (0, 1)",
                  "Pepe (2003), The Statistical Evaluation of Medical Tests, section 5.2; "
                  "Qin & Hotilovac (2008), Statistical Methods in Medical Research 17, 207-221"),
        AucMethod("bayesian-bootstrap", "posterior",
                  "central credible interval of the AUC under the Bayesian bootstrap "
                  "(Dirichlet weights on the examples of each class)",
                  "Gu, Ghosal & Roy (2008), Statistics in Medicine 27, 5407-5420"),
        AucMethod("band", "guaranteed",
                  "the areas under the lower and upper edges of the simultaneous ROC band: "
                  "holds for every score distribution whenever the band does (conservative)",
                  "Campbell (1994), Statistics in Medicine 13, 499-508"),
    )
}


# --------------------------------------------------------------------------------- ROC curve
@dataclass(frozen=True)
class RocCurve(FrozenArrays):
    """The ROC curve and its simultaneous confidence band (see :func:`bacc.roc.roc_curve`).

    Attributes
    ----------
    fpr, tpr, thresholds : ndarray
        The sample curve at every threshold (scikit-learn's ``roc_curve`` with
        ``drop_intermediate=False``; the first threshold is ``+inf``).
    band_fpr, band_lower, band_upper : ndarray
        The simultaneous band: with probability at least ``confidence`` the true ROC curve lies
        between ``band_lower`` and ``band_upper`` at every false-positive rate ``band_fpr``.
    auc : float
        The sample AUC.
    n_positive, n_negative : int
    positive : object
    confidence : float
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    band_fpr: np.ndarray
    band_lower: np.ndarray
    band_upper: np.ndarray
    auc: float
    n_positive: int
    n_negative: int
    positive: object
    confidence: float

    def to_dict(self) -> dict:
        """Plain dict (strict JSON; the ``+inf`` threshold as null)."""
        out = {}
        for k, v in vars(self).items():
            if isinstance(v, np.ndarray):
                out[k] = [x if math.isfinite(x) else None for x in v.tolist()]
            else:
                out[k] = jsonable(v)
        return out

    def plot(self, **kwargs):
        """The curve with its band (see :func:`bacc.display.scores_plot.plot_roc`)."""
        from .display.scores_plot import plot_roc

        return plot_roc(self, **kwargs)

    def __repr__(self) -> str:
        return (f"<RocCurve: AUC {self.auc:.4f}, {self.n_positive} positive, {self.n_negative} "
                f"negative, simultaneous band at {self.confidence:g}>")

    def _repr_html_(self) -> str:
        from .display.scores_html import roc_html

        return roc_html(self)

    def __str__(self) -> str:
        from .display.scores_text import roc_text

        return roc_text(self)


def roc_curve(curve, *, confidence: float = 0.95) -> RocCurve:
    """The ROC curve of a :class:`bacc.ScoreCurve` with its simultaneous confidence band.

    Parameters
    ----------
    curve : ScoreCurve
    confidence : float
        Probability that the band holds the whole true curve (default 0.95).

    Returns
    -------
    RocCurve

    Notes
    -----
    The band is the set of curves allowed by the Kolmogorov-Smirnov bands of the two classes'
    score distributions, each at ``sqrt(confidence)`` (independent samples given the class
    sizes): exact and distribution-free for continuous scores, conservative with ties
    (Campbell 1994).

    References
    ----------
    .. [1] Campbell, G. (1994). Advances in statistical methodology for the evaluation of
       diagnostic and laboratory tests. Statistics in Medicine 13, 499-508.
    .. [2] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27,
       861-874.

    Examples
    --------
    >>> import bacc
    >>> roc = bacc.scores([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).roc()
    >>> roc.fpr.tolist(), roc.tpr.tolist(), roc.auc
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 0.75)
    """
    c = check_confidence(confidence)
    P, N = curve.n_positive, curve.n_negative
    tp, fp = curve.tp, curve.fp
    bf, blo, bhi = roc_band(tp, fp, c)
    return RocCurve(fpr=fp / N, tpr=tp / P, thresholds=curve.thresholds, band_fpr=bf,
                    band_lower=blo, band_upper=bhi, auc=curve.sample_auc, n_positive=P,
                    n_negative=N, positive=curve.positive, confidence=c)


# ----------------------------------------------------------------------------- AUC interval
@dataclass(frozen=True)
class AucInterval:
    """The AUC with an interval, labelled by kind (see :func:`bacc.roc.auc_interval`).

    Attributes
    ----------
    auc : float
        The sample AUC (Mann-Whitney, ties count one half).
    lower, upper : float
        The interval.
    method : str
        A name of :data:`AUC_METHODS`.
    kind : {"approximate", "posterior", "guaranteed"}
    se : float or None
        DeLong's standard error (DeLong methods), or the posterior sd (Bayesian bootstrap).
    confidence : float
    n_positive, n_negative : int
    """

    auc: float
    lower: float
    upper: float
    method: str
    kind: str
    se: float | None
    confidence: float
    n_positive: int
    n_negative: int

    @property
    def guaranteed(self) -> bool:
        """Whether the interval holds for every score distribution (not an approximation)."""
        return self.kind == "guaranteed"

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        return {**{k: jsonable(v) for k, v in vars(self).items()}, "guaranteed": self.guaranteed}

    def __repr__(self) -> str:
        return (f"<AucInterval {self.method} ({self.kind}): AUC {self.auc:.4f} "
                f"[{self.lower:.4f}, {self.upper:.4f}] at {self.confidence:g}>")

    def _repr_html_(self) -> str:
        from .display.scores_html import auc_interval_html

        return auc_interval_html(self)

    def __str__(self) -> str:
        from .display.scores_text import auc_interval_text

        return auc_interval_text(self)


def auc_interval(curve, *, method: str = "delong", confidence: float = 0.95,
                 draws: int = 20_000, random_state=0) -> AucInterval:
    """The AUC of a :class:`bacc.ScoreCurve` with an interval, labelled by kind.

    Parameters
    ----------
    curve : ScoreCurve
    method : str
        A name of :data:`AUC_METHODS`: ``"delong"`` (default, approximate), ``"delong-logit"``
        (approximate), ``"bayesian-bootstrap"`` (posterior) or ``"band"`` (guaranteed).
    confidence : float
        Coverage or credible mass (default 0.95).
    draws : int
        Posterior draws of the Bayesian bootstrap.
    random_state : int, Generator or None
        Seed of the Bayesian bootstrap (default 0: deterministic).

    Returns
    -------
    AucInterval

    References
    ----------
    .. [1] DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas
       under two or more correlated receiver operating characteristic curves: a nonparametric
       approach. Biometrics 44, 837-845.
    .. [2] Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the
       areas under correlated receiver operating characteristic curves. IEEE Signal Processing
       Letters 21, 1389-1393.
    .. [3] Gu, J., Ghosal, S. & Roy, A. (2008). Bayesian bootstrap estimation of ROC curve.
       Statistics in Medicine 27, 5407-5420.
    .. [4] Campbell, G. (1994). Advances in statistical methodology for the evaluation of
       diagnostic and laboratory tests. Statistics in Medicine 13, 499-508.

    Examples
    --------
    >>> import bacc
    >>> sc = bacc.scores([0, 0, 0, 1, 1, 1], [0.1, 0.5, 0.3, 0.4, 0.8, 0.9])
    >>> iv = sc.auc("band")
    >>> round(iv.auc, 4), iv.kind, iv.guaranteed
    (0.8889, 'guaranteed', True)
    """
    name = check_choice(method, tuple(AUC_METHODS), "method")
    c = check_confidence(confidence)
    P, N = curve.n_positive, curve.n_negative
    a = curve.sample_auc
    se = None
    if name in ("delong", "delong-logit"):
        _, var = delong_counts(curve.tp, curve.fp)
        se = math.sqrt(max(float(var), 0.0))
        lo, hi = normal_auc_interval(a, float(var), c,
                                     "identity" if name == "delong" else "logit")
    elif name == "bayesian-bootstrap":
        n = check_int(draws, "draws", 100, 10**7)
        rng = check_random_state(random_state)
        d = bayesian_bootstrap_auc(curve.tp, curve.fp, n, rng)
        lo, hi = (float(x) for x in np.quantile(d, [(1 - c) / 2, (1 + c) / 2]))
        se = float(np.std(d))
    else:
        lo, hi = band_auc_bounds(curve.tp, curve.fp, c)
    return AucInterval(auc=a, lower=float(lo), upper=float(hi), method=name,
                       kind=AUC_METHODS[name].kind, se=se, confidence=c, n_positive=P,
                       n_negative=N)


# ------------------------------------------------------------------------- two correlated AUCs
@dataclass(frozen=True)
class AucComparison:
    """Two AUCs on the same examples compared by DeLong's test (see :func:`bacc.compare_auc`).

    Attributes
    ----------
    names : tuple of str
    auc_a, auc_b : float
    difference : float
        ``auc_a - auc_b``.
    se : float
        DeLong's standard error of the difference.
    z, p_value : float
        The statistic and its two-sided p-value (approximate: normal).
    lower, upper : float
        DeLong's interval of the difference at ``confidence`` (approximate).
    correlation : float
        Correlation of the two AUC estimates.
    confidence : float
    n_positive, n_negative : int
    positive : object
    """

    names: tuple
    auc_a: float
    auc_b: float
    difference: float
    se: float
    z: float
    p_value: float
    lower: float
    upper: float
    correlation: float
    confidence: float
    n_positive: int
    n_negative: int
    positive: object

    method = "delong"
    kind = "approximate"

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        out = {}
        for k, v in vars(self).items():
            if isinstance(v, tuple):
                out[k] = [jsonable(x) for x in v]
            elif isinstance(v, float) and not math.isfinite(v):
                out[k] = None
            else:
                out[k] = jsonable(v)
        return {**out, "method": self.method, "kind": self.kind}

    def __repr__(self) -> str:
        a, b = self.names
        return (f"<AucComparison {a} - {b}: {self.difference:+.4f} [{self.lower:+.4f}, "
                f"{self.upper:+.4f}], DeLong z = {self.z:.3f}, p = {self.p_value:.3g}>")

    def _repr_html_(self) -> str:
        from .display.scores_html import auc_comparison_html

        return auc_comparison_html(self)

    def __str__(self) -> str:
        from .display.scores_text import auc_comparison_text

        return auc_comparison_text(self)


def _paired_inputs(y_true, score_a, score_b, true, score, positive, labels):
    """Labels and the two score columns, as arrays, from arrays or an in-memory table."""
    from .labels import encode

    names = ("a", "b")
    if true is not None or score is not None:
        if true is None or score is None or score_a is not None or score_b is not None:
            raise BaccError("give y_true, score_a and score_b, or a table with true= and score=[A, "
                            "B] columns")
        cols = list(score.values()) if isinstance(score, Mapping) else list(score) if (
            isinstance(score, Sequence) and not isinstance(score, str)) else [score]
        if len(cols) != 2:
            raise BaccError(f"score= must name two columns (the two classifiers' scores), got "
                            f"{len(cols)}")
        names = tuple(map(str, cols))
        table = y_true
        try:
            got = {c: table[c] for c in [true, *cols]}
        except (KeyError, TypeError, IndexError):
            raise BaccError(f"the table has no column among {[true, *cols]} that can be read; "
                            "give a DataFrame or a mapping of columns") from None
        y_true, score_a, score_b = got[true], got[cols[0]], got[cols[1]]
    elif score_a is None or score_b is None:
        raise BaccError("compare_auc needs the true labels and two scores: "
                        "bacc.compare_auc(y_true, score_a, score_b)")
    if isinstance(score_a, Mapping):
        raise BaccError("give the two scores as two arguments (or a table with score=[A, B])")
    if labels is None:
        refuse_scores_as_labels(y_true)
    classes, (codes,) = encode({"y_true": y_true}, labels=labels)
    if len(classes) != 2:
        if len(classes) == 1:
            raise BaccError(f"the true labels hold one class only ({classes[0]!r}): AUCs need "
                            "examples of both classes")
        raise BaccError(f"compare_auc needs two classes; y_true has {len(classes)}")
    sa, sb = as_scores(score_a, "score_a"), as_scores(score_b, "score_b")
    for nm, s in (("score_a", sa), ("score_b", sb)):
        if s.ndim != 1 or s.size != codes.size:
            raise BaccError(f"{nm} must hold one score per example ({codes.size}), got shape "
                            f"{s.shape}")
    pos = positive_class(classes, positive)
    y = codes == classes.index(pos)
    if y.all() or not y.any():
        raise BaccError("the true labels hold one class only: AUCs need both classes")
    return names, pos, y, sa, sb


def compare_auc(y_true=None, score_a=None, score_b=None, *, true: str | None = None,
                score: Sequence[str] | None = None, positive=None, labels=None,
                confidence: float = 0.95) -> AucComparison:
    """Two classifiers' AUCs on the same examples, compared by DeLong's test.

    Parameters
    ----------
    y_true : sequence, or an in-memory table (pandas or polars DataFrame, mapping of columns)
        The true labels (two classes), or a table with ``true=`` and ``score=[A, B]``.
    score_a, score_b : sequence of float
        Each classifier's score of every example (higher means more positive).
    true, score : str, list of two str
        With a table: the label column and the two score columns.
    positive : label, optional
        The class a high score predicts (default: the second class in bacc's class order).
    labels : sequence, optional
        The two classes, in order.
    confidence : float
        Of the interval of the difference (default 0.95).

    Returns
    -------
    AucComparison

    Notes
    -----
    The two AUCs are U-statistics of the same examples; DeLong et al. (1988) estimate their
    covariance from the placement values of each example (computed by midranks, Sun & Xu 2014),
    and test the difference by its normal approximation. Approximate: on small test sets
    compare its coverage with :func:`bacc.auc_coverage`.

    References
    ----------
    .. [1] DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas
       under two or more correlated receiver operating characteristic curves: a nonparametric
       approach. Biometrics 44, 837-845.
    .. [2] Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the
       areas under correlated receiver operating characteristic curves. IEEE Signal Processing
       Letters 21, 1389-1393.

    Examples
    --------
    >>> import bacc
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> cmp = bacc.compare_auc(y, [.1, .2, .6, .3, .7, .8, .4, .9], [.3, .5, .2, .6, .4, .8, .7, .9])
    >>> cmp.auc_a, cmp.auc_b  # 15 and 14 of the 16 (positive, negative) pairs in order
    (0.9375, 0.875)
    >>> round(cmp.p_value, 3)  # eight examples tell the two apart poorly
    0.752
    """
    c = check_confidence(confidence)
    names, pos, y, sa, sb = _paired_inputs(y_true, score_a, score_b, true, score, positive, labels)
    aucs, cov = delong(y, np.vstack([sa, sb]))
    d = float(aucs[0] - aucs[1])
    var = float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    se = math.sqrt(max(var, 0.0))
    if se > 0:
        z = d / se
        p = float(2 * stats.norm.sf(abs(z)))
    else:
        z, p = (0.0, 1.0) if d == 0 else (math.copysign(math.inf, d), 0.0)
    lo, hi = difference_interval(d, se, c)
    denom = math.sqrt(max(cov[0, 0], 0) * max(cov[1, 1], 0))
    corr = float(cov[0, 1] / denom) if denom > 0 else math.nan
    return AucComparison(names=names, auc_a=float(aucs[0]), auc_b=float(aucs[1]), difference=d,
                         se=se, z=float(z), p_value=p, lower=lo, upper=hi,
                         correlation=corr, confidence=c, n_positive=int(y.sum()),
                         n_negative=int((~y).sum()), positive=pos)
