"""Approximate intervals that users still report, labelled as approximate.

None of these is guaranteed to hold on the stated share of test sets; :func:`bacc.coverage`
shows how often each one does. They are here so that a reported number can be reproduced and
put next to an exact one (:mod:`bacc.exact`) or a posterior (:mod:`bacc.posterior`).

* ``"wald"`` — normal approximation ``p_hat +- z sqrt(p_hat (1 - p_hat) / n)`` (Sandler & Dirac (2024),
  "Comparison with intervals based on the normal approximation"); for the balanced accuracy
  ``sum w_i p_i +- z sqrt(sum w_i^2 p_i (1 - p_i) / n_i)``. It collapses to a point when a class
  has no errors (Sandler & Dirac (2024): "clearly unbelievable") and can leave [0, 1]; it is **not clipped**.
* ``"wilson"`` — Wilson score interval (Wilson 1927).
* ``"jeffreys"`` — equal-tailed interval of the Beta(k + 1/2, n - k + 1/2) posterior, with the
  lower end 0 when k = 0 and the upper end 1 when k = n (Brown, Cai & DasGupta 2001).
  For the balanced accuracy, ``"wilson"`` and ``"jeffreys"`` average per-class bounds at the
  union-bound level of Sandler & Dirac (2024) (``delta / (2 l)`` per bound), i.e. the union bound with the
  exact per-class intervals swapped for these approximate ones.
* ``"fold-sem"`` — mean of the fold accuracies +- a multiple of their standard error, from a
  list of fold confusion matrices (Brodersen et al. (2010), section II: "may easily lead to error bars
  including values above 100%"). **Not clipped**: ``exceeds_unit_interval`` says when it leaves
  [0, 1].

References
----------
Wilson, E. B. (1927). JASA 22, 209-212.
Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial proportion.
Statistical Science 16, 101-133.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special as sc

from ._beta import beta_isf, beta_ppf
from ._validate import check_confidence
from .confusion import ConfusionMatrix, as_confusion_matrix
from .errors import BaccError, BaccWarning
from .exact import (
    ClassInterval,
    _class_arrays,
    _class_table,
    _digits,
    _fmt,
    _included_weights,
    _sides_phrase,
    check_method,
    check_metric,
    check_sides,
    class_rows,
    per_bound_alpha,
    tail_level,
)

__all__ = [
    "APPROX_METHODS",
    "ApproxInterval",
    "approx_class_intervals",
    "approx_interval",
    "fold_sem_interval",
]

#: Methods of :func:`approx_interval`.
APPROX_METHODS = ("wald", "wilson", "jeffreys", "fold-sem")
CLASS_METHODS = ("wald", "wilson", "jeffreys")

_TITLES = {
    "wald": "Wald / normal approximation",
    "wilson": "Wilson score",
    "jeffreys": "Jeffreys",
    "fold-sem": "mean of fold values +- SEM multiple",
}


# ----------------------------------------------------------------------------------------------
# per-class kernels (vectorised; alpha = probability in each bounded tail)
def _z(alpha: float) -> float:
    return float(-sc.ndtri(alpha))


def wald_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wald bounds ``p_hat -+ z sqrt(p_hat (1 - p_hat) / n)``; not clipped (nan for n = 0)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        half = _z(alpha) * np.sqrt(p * (1.0 - p) / n)
    lower = p - half if sides in ("two", "lower") else np.zeros(p.shape)
    upper = p + half if sides in ("two", "upper") else np.ones(p.shape)
    return lower, upper


def wilson_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score bounds ``(k + z^2/2 -+ z sqrt(k (n - k) / n + z^2 / 4)) / (n + z^2)``."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = _z(alpha)
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (k + z2 / 2.0) / (n + z2)
        half = z * np.sqrt(k * (n - k) / n + z2 / 4.0) / (n + z2)
    lower = np.clip(centre - half, 0.0, 1.0) if sides in ("two", "lower") else np.zeros(k.shape)
    upper = np.clip(centre + half, 0.0, 1.0) if sides in ("two", "upper") else np.ones(k.shape)
    empty = n == 0
    return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)


def jeffreys_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Jeffreys bounds: Beta(k + 1/2, n - k + 1/2) quantiles, 0 at k = 0 and 1 at k = n."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    lower = np.zeros(k.shape)
    upper = np.ones(k.shape)
    if sides in ("two", "lower"):
        m = k > 0
        if m.any():
            lower[m] = beta_ppf(alpha, k[m] + 0.5, n[m] - k[m] + 0.5)
    if sides in ("two", "upper"):
        m = k < n
        if m.any():
            upper[m] = beta_isf(alpha, k[m] + 0.5, n[m] - k[m] + 0.5)
    return lower, upper


_KERNELS = {"wald": wald_bounds, "wilson": wilson_bounds, "jeffreys": jeffreys_bounds}


def balanced_wald(k, n, w, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval of the balanced accuracy; ``k`` has shape (..., l), ``n`` and ``w`` (l,).

    ``sum w_i p_i -+ z sqrt(sum w_i^2 p_i (1 - p_i) / n_i)``, not clipped.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    p = k / n
    est = p @ w
    half = _z(alpha) * np.sqrt((p * (1.0 - p) / n) @ (w * w))
    lower = est - half if sides in ("two", "lower") else np.zeros(est.shape)
    upper = est + half if sides in ("two", "upper") else np.ones(est.shape)
    return lower, upper


# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ApproxInterval:
    """An approximate interval; it does **not** guarantee its nominal coverage.

    Attributes
    ----------
    lower, upper : float
        Not clipped to [0, 1] for ``"wald"`` and ``"fold-sem"``.
    estimate : float
    confidence : float
        Nominal coverage (for ``"fold-sem"`` with an explicit ``n_sem``, the normal-theory
        coverage of that multiple).
    sides, method, metric : str
    exceeds_unit_interval : bool
        True when ``lower < 0`` or ``upper > 1`` (Brodersen et al. (2010): "error bars including values above
        100%").
    per_class : tuple of ClassInterval
        Per-class intervals that were averaged (``"wilson"``, ``"jeffreys"``) or, for
        ``"wald"``, the per-class Wald intervals at ``confidence`` for reference.
    multiplier : float
        ``z`` (or the SEM multiple) used.
    fold_values : tuple of float
        Per-fold accuracies (``"fold-sem"`` only).
    approximate : bool
        Always True.
    """

    lower: float
    upper: float
    estimate: float
    confidence: float
    sides: str
    method: str
    metric: str
    exceeds_unit_interval: bool
    per_class: tuple[ClassInterval, ...] = ()
    multiplier: float = math.nan
    fold_values: tuple[float, ...] = ()
    approximate: bool = True

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "kind": "approximate",
            "approximate": True,
            "metric": self.metric,
            "method": self.method,
            "sides": self.sides,
            "confidence": float(self.confidence),
            "estimate": float(self.estimate),
            "lower": float(self.lower),
            "upper": float(self.upper),
            "exceeds_unit_interval": bool(self.exceeds_unit_interval),
            "multiplier": float(self.multiplier),
            "fold_values": [float(v) for v in self.fold_values],
            "per_class": [c.to_dict() for c in self.per_class],
        }

    def __str__(self) -> str:
        what = "balanced accuracy" if self.metric == "balanced_accuracy" else "accuracy"
        d = _digits((self.lower, self.upper), *[(c.lower, c.upper) for c in self.per_class])
        lines = [
            f"APPROXIMATE {_sides_phrase(self.confidence, self.sides)} interval for the {what} "
            f"({_TITLES[self.method]}; coverage not guaranteed)",
            f"  estimate {_fmt(self.estimate, d)}   interval [{_fmt(self.lower, d)}, "
            f"{_fmt(self.upper, d)}]",
        ]
        if self.method == "fold-sem":
            lines.append(
                f"  {len(self.fold_values)} folds, mean +- {self.multiplier:.4g} x SEM; "
                "fold values: " + ", ".join(_fmt(v, 4) for v in self.fold_values)
            )
        if self.exceeds_unit_interval:
            lines.append("  WARNING: the interval leaves [0, 1]; accuracies cannot lie there")
        if self.per_class:
            lines.append(f"  per class ({_TITLES[self.per_class[0].method]}):")
            lines += _class_table(self.per_class, d)
        return "\n".join(lines)


def _outside(lower: float, upper: float) -> bool:
    return bool(lower < 0.0 or upper > 1.0)


# ----------------------------------------------------------------------------------------------
def approx_class_intervals(
    cm,
    confidence: float = 0.95,
    *,
    method: str = "wilson",
    sides: str = "two",
    rows: str = "true",
    labels=None,
) -> tuple[ClassInterval, ...]:
    """Approximate interval for each class accuracy: ``"wald"``, ``"wilson"`` or ``"jeffreys"``.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
    confidence : float
        Nominal coverage of each interval.
    method : {"wald", "wilson", "jeffreys"}
    sides : {"two", "lower", "upper"}

    Returns
    -------
    tuple of ClassInterval
        Wald intervals are not clipped; a class without examples gets [0, 1] (nan for Wald).

    See Also
    --------
    bacc.exact.class_intervals : the exact (Clopper-Pearson) counterpart.

    Examples
    --------
    >>> from bacc.approx import approx_class_intervals
    >>> [round(c.lower, 4) for c in approx_class_intervals([[10, 0], [3, 7]], method="wald")]
    [1.0, 0.416]
    """
    c = check_confidence(confidence)
    check_method(method, CLASS_METHODS, "per-class approximate")
    check_sides(sides)
    cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    labs, k, n, _ = _class_arrays(cm, "keep", warn=False)
    return _class_rows(
        labs, k, n, np.ones(k.shape, dtype=bool), c, tail_level(c, sides), sides, method
    )


def _class_rows(labs, k, n, inc, c_each, alpha, sides, method) -> tuple[ClassInterval, ...]:
    lo, hi = _KERNELS[method](k, n, alpha, sides)
    return class_rows(labs, k, n, lo, hi, inc, c_each, sides, method)


def approx_interval(
    cm,
    confidence: float = 0.95,
    *,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    method: str = "wald",
    weights=None,
    empty: str = "drop",
    n_sem: float | None = None,
    rows: str = "true",
    labels=None,
) -> ApproxInterval:
    """Approximate interval for the balanced accuracy or the accuracy (labelled approximate).

    Parameters
    ----------
    cm : ConfusionMatrix, array_like, or sequence of fold matrices
        One confusion matrix; for ``method="fold-sem"`` a sequence of per-fold confusion
        matrices (or ConfusionMatrix objects).
    confidence : float
        Nominal coverage.
    metric : {"balanced_accuracy", "accuracy"}
    sides : {"two", "lower", "upper"}
    method : {"wald", "wilson", "jeffreys", "fold-sem"}
        See the module notes. For the balanced accuracy, ``"wilson"`` and ``"jeffreys"``
        average per-class bounds at the union-bound level ``delta / (2 l)`` (Sandler & Dirac 2024).
    weights : array_like, optional
        Class weights of the balanced accuracy (default equal).
    empty : {"drop", "keep"}
        Classes with no true examples: left out with a warning, or kept (Wald then gives nan).
    n_sem : float, optional
        ``"fold-sem"`` only: the multiple of the standard error (``2.0`` reproduces the usual
        "mean +- 2 SEM"); by default the normal quantile of ``confidence``.

    Returns
    -------
    ApproxInterval
        With ``exceeds_unit_interval`` set when the interval leaves [0, 1] (never clipped).

    See Also
    --------
    bacc.exact.exact_interval : intervals that keep their coverage.
    bacc.coverage.coverage : how often each method keeps its promise.

    Examples
    --------
    >>> from bacc.approx import approx_interval
    >>> iv = approx_interval([[20, 0], [0, 20]], method="wald")
    >>> (iv.lower, iv.upper)  # no errors: the Wald interval collapses to a point
    (1.0, 1.0)
    >>> folds = [[[9, 0], [0, 10]], [[10, 0], [0, 10]], [[8, 1], [1, 9]]]
    >>> iv = approx_interval(folds, metric="accuracy", method="fold-sem", n_sem=2.0)
    >>> iv.exceeds_unit_interval, round(iv.upper, 4)
    (True, 1.0351)
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    check_method(method, APPROX_METHODS, "approximate interval")
    if method == "fold-sem":
        return fold_sem_interval(
            cm, confidence=c, metric=metric, sides=sides, n_sem=n_sem, rows=rows, labels=labels
        )
    if n_sem is not None:
        raise BaccError("n_sem applies to method='fold-sem' only")
    cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    alpha = tail_level(c, sides)
    if metric == "accuracy":
        k, n = cm.total_correct, cm.total
        lo, hi = _KERNELS[method](np.array([k]), np.array([n]), alpha, sides)
        lower, upper = float(lo[0]), float(hi[0])
        return ApproxInterval(
            lower=lower,
            upper=upper,
            estimate=k / n,
            confidence=c,
            sides=sides,
            method=method,
            metric="accuracy",
            exceeds_unit_interval=_outside(lower, upper),
            multiplier=_z(alpha),
        )
    labs, k, n, inc = _class_arrays(cm, empty)
    w = _included_weights(weights, cm, inc)
    ki, ni = k[inc], n[inc]
    m = int(inc.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = float(w @ (ki / ni)) if np.all(ni > 0) else math.nan
    if method == "wald":
        with np.errstate(invalid="ignore", divide="ignore"):
            lo, hi = balanced_wald(ki, ni, w, alpha, sides)
        lower, upper = float(lo), float(hi)
        per = _class_rows(labs, k, n, inc, c, alpha, sides, "wald")
        mult = _z(alpha)
    else:
        a = per_bound_alpha(c, m, sides, "union")
        each = 1.0 - (2.0 * a if sides == "two" else a)
        per = _class_rows(labs, k, n, inc, each, a, sides, method)
        lo_i = np.array([r.lower for r, i in zip(per, inc, strict=True) if i])
        hi_i = np.array([r.upper for r, i in zip(per, inc, strict=True) if i])
        lower, upper = float(w @ lo_i), float(w @ hi_i)
        mult = _z(a)
    return ApproxInterval(
        lower=lower,
        upper=upper,
        estimate=estimate,
        confidence=c,
        sides=sides,
        method=method,
        metric="balanced_accuracy",
        exceeds_unit_interval=_outside(lower, upper),
        per_class=per,
        multiplier=mult,
    )


def _fold_list(folds, rows: str, labels) -> list[ConfusionMatrix]:
    if isinstance(folds, ConfusionMatrix):
        raise BaccError(
            "method 'fold-sem' needs the confusion matrices of the folds (a list), "
            "got one ConfusionMatrix"
        )
    if isinstance(folds, np.ndarray) and folds.ndim != 3:
        raise BaccError(
            "method 'fold-sem' needs a list of fold confusion matrices (a 3-D array), "
            f"got an array of shape {folds.shape}"
        )
    try:
        items = list(folds)
    except TypeError:
        raise BaccError("method 'fold-sem' needs a list of fold confusion matrices") from None
    if items and not isinstance(items[0], ConfusionMatrix) and np.ndim(items[0]) != 2:
        raise BaccError(
            "method 'fold-sem' needs a list of fold confusion matrices (each l x l), "
            "got a single matrix"
        )
    cms = [as_confusion_matrix(f, rows=rows, labels=labels) for f in items]
    if len(cms) < 2:
        raise BaccError(f"method 'fold-sem' needs at least 2 folds, got {len(cms)}")
    first = cms[0]
    for i, f in enumerate(cms[1:], start=1):
        if f.labels != first.labels:
            raise BaccError(f"fold {i} has labels {f.labels!r}, fold 0 has {first.labels!r}")
    return cms


def fold_sem_interval(
    folds,
    confidence: float = 0.95,
    *,
    metric: str = "accuracy",
    sides: str = "two",
    n_sem: float | None = 2.0,
    rows: str = "true",
    labels=None,
) -> ApproxInterval:
    """Mean of the per-fold accuracies +- ``n_sem`` standard errors (Brodersen et al. (2010), section II).

    Parameters
    ----------
    folds : sequence of ConfusionMatrix or array_like
        The confusion matrix of each cross-validation fold (at least 2).
    confidence : float
        Used for the multiplier when ``n_sem`` is None (normal quantile), and recorded.
    metric : {"accuracy", "balanced_accuracy"}
        Per-fold statistic (the balanced accuracy of a fold averages its classes with examples).
    sides : {"two", "lower", "upper"}
    n_sem : float or None
        Multiple of the standard error ``s / sqrt(K)`` (``s``: sample standard deviation of the
        fold values, ``K`` folds). Default 2, the customary "mean +- 2 SEM".

    Returns
    -------
    ApproxInterval
        Not clipped: ``exceeds_unit_interval`` is True when the error bar leaves [0, 1], which
        Brodersen et al. (2010) name as this method's first flaw.

    Examples
    --------
    >>> from bacc.approx import fold_sem_interval
    >>> iv = fold_sem_interval([[[9, 1], [0, 10]], [[10, 0], [0, 10]]])
    >>> round(iv.upper, 4), iv.exceeds_unit_interval
    (1.025, True)
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    cms = _fold_list(folds, rows, labels)
    if n_sem is None:
        mult = _z(tail_level(c, sides))
    else:
        if isinstance(n_sem, bool) or not isinstance(n_sem, (int, float)) or not n_sem > 0:
            raise BaccError(f"n_sem must be a positive number, got {n_sem!r}")
        mult = float(n_sem)
    vals = []
    for f in cms:
        if metric == "accuracy":
            vals.append(f.total_correct / f.total)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BaccWarning)
                _, k, n, inc = _class_arrays(f, "drop", warn=False)
            vals.append(float(np.mean(k[inc] / n[inc])))
    v = np.asarray(vals)
    mean = float(v.mean())
    sem = float(v.std(ddof=1) / math.sqrt(v.size))
    lower = mean - mult * sem if sides in ("two", "lower") else 0.0
    upper = mean + mult * sem if sides in ("two", "upper") else 1.0
    return ApproxInterval(
        lower=lower,
        upper=upper,
        estimate=mean,
        confidence=c,
        sides=sides,
        method="fold-sem",
        metric=metric,
        exceeds_unit_interval=_outside(lower, upper),
        multiplier=mult,
        fold_values=tuple(float(x) for x in v),
    )
