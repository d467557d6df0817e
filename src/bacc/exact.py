"""Exact (frequentist) confidence bounds for the accuracy and the balanced accuracy.

A bound here holds on at least the stated share of test sets, whatever the true accuracies
(Sandler & Dirac (2024), "Constructing a 95% upper confidence bound"); a Bayesian credible interval
(:mod:`bacc.posterior`) answers a different question.

* **Clopper-Pearson** bounds for one proportion (Sandler & Dirac (2024), definitions of the binomial upper
  and lower confidence bounds), computed as Beta quantiles (DESIGN.md section 3)::

      lower = Beta.ppf(alpha, k, n - k + 1)      (0 when k = 0)
      upper = Beta.isf(alpha, k + 1, n - k)      (1 when k = n)

  through :func:`bacc._beta.beta_ppf` / :func:`bacc._beta.beta_isf`, which verify every
  quantile against ``betainc``.
* **Balanced accuracy, union bound** (Sandler & Dirac (2024), "Constructing the bound for balanced accuracy"
  and appendix A): average the per-class lower and upper bounds, each one-sided bound at
  ``delta / (2 l)`` (two-sided; ``delta / 4`` for two classes) or ``delta / l`` (one-sided).
* **Šidák**: the classes' test examples are independent, so the per-class intervals fail
  independently. A two-sided per-class interval fails with probability at most ``2 alpha``
  (its two failures are disjoint events), so ``prod_i (1 - 2 alpha) >= 1 - delta`` needs
  ``alpha = (1 - (1 - delta)^(1/l)) / 2``; one-sided: ``alpha = 1 - (1 - delta)^(1/l)``.
  (The level ``1 - (1 - delta)^(1/(2l))`` that treats the lower and upper failure of one class as
  independent is *not* valid: for one class it gives 94.9 % coverage at a nominal 95 %.)
* **Buehler** (two classes): the exact confidence bound obtained by inverting the test of the
  balanced accuracy whose statistic is its estimate, with the nuisance parameter maximised over
  (Buehler 1957). See :func:`_buehler_lower` for the construction and its proof of coverage.
* **Binomial test** of the accuracy against chance (Brodersen et al. (2010), section II: threshold
  ``F^{-1}(1 - alpha)`` of ``Binomial(n, p0)``).

References
----------
Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
Buehler, R. J. (1957). Confidence intervals for the product of two binomial parameters.
JASA 52, 482-493.
Langford, J. (2005). Tutorial on practical prediction theory for classification. JMLR 6.
Sandler, T. & Dirac, L. (2024). Tales from the binomial tail.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special as sc

from ._beta import beta_isf, beta_ppf
from ._validate import check_confidence, check_weights
from .confusion import ConfusionMatrix, _jsonable, as_confusion_matrix
from .errors import BaccError, BaccWarning

__all__ = [
    "EXACT_METHODS",
    "BinomialTest",
    "ClassInterval",
    "ExactInterval",
    "binomial_test",
    "class_intervals",
    "clopper_pearson",
    "exact_interval",
]

#: Methods for the exact interval of the balanced accuracy.
EXACT_METHODS = ("union", "sidak", "buehler")
SIDES = ("two", "lower", "upper")
METRICS = ("balanced_accuracy", "accuracy")

_METHOD_TITLES = {
    "clopper-pearson": "Clopper-Pearson",
    "union": "union bound over per-class Clopper-Pearson bounds, Sandler & Dirac (2024)",
    "sidak": "Šidák bound over per-class Clopper-Pearson bounds",
    "buehler": "Buehler bound: exact test inverted, nuisance maximised",
}

# Buehler bounds sum over every count of both classes; beyond this the cost is not worth it.
_BUEHLER_MAX_SUPPORT = 5_000


# ----------------------------------------------------------------------------------------------
# argument checks shared by exact, approx and coverage
def check_sides(sides: str) -> str:
    """Return ``sides`` if it is one of ``"two"``, ``"lower"``, ``"upper"``, else raise."""
    if not isinstance(sides, str) or sides not in SIDES:
        raise BaccError(f"sides must be 'two', 'lower' or 'upper', got {sides!r}")
    return sides


def check_metric(metric: str) -> str:
    """Return ``metric`` if it is ``"balanced_accuracy"`` or ``"accuracy"``, else raise."""
    if not isinstance(metric, str) or metric not in METRICS:
        raise BaccError(f"metric must be 'balanced_accuracy' or 'accuracy', got {metric!r}")
    return metric


def check_method(method: str, allowed: Sequence[str], what: str) -> str:
    """Return ``method`` if it is in ``allowed``, else raise naming the choices."""
    if not isinstance(method, str) or method not in allowed:
        choices = ", ".join(repr(m) for m in allowed)
        raise BaccError(f"unknown {what} method {method!r}; choose one of {choices}")
    return method


def tail_level(confidence: float, sides: str) -> float:
    """Probability left in each bounded tail: ``delta / 2`` (two-sided) or ``delta``."""
    delta = 1.0 - confidence
    return delta / 2.0 if sides == "two" else delta


def per_bound_alpha(confidence: float, n_classes: int, sides: str, method: str) -> float:
    """Level of each one-sided per-class bound in the union or Šidák construction.

    Union (Sandler & Dirac (2024), union bound): ``delta / (2 l)`` two-sided, ``delta / l`` one-sided.
    Šidák (independent classes): ``(1 - (1 - delta)^(1/l)) / 2`` two-sided,
    ``1 - (1 - delta)^(1/l)`` one-sided.
    """
    delta = 1.0 - confidence
    if method == "union":
        a = delta / n_classes
    elif method == "sidak":
        a = -math.expm1(math.log1p(-delta) / n_classes)
    else:  # pragma: no cover - guarded by callers
        raise BaccError(f"no per-class level for method {method!r}")
    return a / 2.0 if sides == "two" else a


# ----------------------------------------------------------------------------------------------
# Clopper-Pearson
def _cp_lower(k, n, alpha) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound ``Beta.ppf(alpha, k, n - k + 1)``; 0 at k = 0."""
    k, n, alpha = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(alpha, dtype=float)
    )
    out = np.zeros(k.shape, dtype=float)
    m = k > 0
    if m.any():
        out[m] = beta_ppf(alpha[m], k[m], n[m] - k[m] + 1.0)
    return out


def _cp_upper(k, n, alpha) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound ``Beta.isf(alpha, k + 1, n - k)``; 1 at k = n."""
    k, n, alpha = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(alpha, dtype=float)
    )
    out = np.ones(k.shape, dtype=float)
    m = k < n
    if m.any():
        out[m] = beta_isf(alpha[m], k[m] + 1.0, n[m] - k[m])
    return out


def cp_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson bounds with ``alpha`` in each bounded tail (no validation)."""
    k = np.asarray(k)
    lower = _cp_lower(k, n, alpha) if sides in ("two", "lower") else np.zeros(k.shape)
    upper = _cp_upper(k, n, alpha) if sides in ("two", "upper") else np.ones(k.shape)
    return lower, upper


def _check_counts(k, n) -> tuple[np.ndarray, np.ndarray]:
    try:
        k = np.asarray(k)
        n = np.asarray(n)
        k, n = np.broadcast_arrays(k, n)
    except ValueError:
        raise BaccError("k and n must have broadcastable shapes") from None
    for name, v in (("k", k), ("n", n)):
        if v.dtype.kind not in "biuf":
            raise BaccError(f"{name} must be whole numbers, got dtype {v.dtype}")
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            raise BaccError(f"{name} must be whole numbers")
    if np.any(k < 0):
        raise BaccError(f"k (correct) must be >= 0, got {k[k < 0].ravel()[0]!r}")
    if np.any(k > n):
        raise BaccError("k (correct) must not exceed n (examples)")
    return k.astype(float), n.astype(float)


def clopper_pearson(k, n, confidence: float = 0.95, sides: str = "two"):
    """Clopper-Pearson (exact binomial) confidence bounds for ``k`` successes out of ``n``.

    Parameters
    ----------
    k, n : array_like of int
        Correct predictions and examples (broadcast together). ``n = 0`` gives ``(0, 1)``.
    confidence : float
        Coverage, in (0, 1).
    sides : {"two", "lower", "upper"}
        ``"two"``: central interval, ``(1 - confidence) / 2`` in each tail; ``"lower"`` /
        ``"upper"``: one-sided bound (the other end is 1 / 0).

    Returns
    -------
    lower, upper : float or ndarray

    Notes
    -----
    Seed 004 defines the upper bound as the largest ``p`` with ``F_{n,p}(k) >= delta`` and the
    lower bound from the errors; both equal Beta quantiles (DESIGN.md section 3),
    ``Beta.ppf(delta, k, n - k + 1)`` and ``Beta.isf(delta, k + 1, n - k)``, computed here by
    the CDF-verified :func:`bacc._beta.beta_ppf` (valid at 10^9 examples, where scipy's inverse
    is not).

    Examples
    --------
    >>> from bacc.exact import clopper_pearson
    >>> round(float(clopper_pearson(80, 100, 0.95, sides="upper")[1]), 3)
    0.863
    """
    c = check_confidence(confidence)
    check_sides(sides)
    k, n = _check_counts(k, n)
    lo, hi = cp_bounds(k, n, tail_level(c, sides), sides)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


# ----------------------------------------------------------------------------------------------
# results
def _fmt(x: float, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.{digits}f}"


def _digits(*pairs: tuple[float, float]) -> int:
    """Enough decimals to tell the ends of each interval apart (4 to 12)."""
    d = 4
    for lo, hi in pairs:
        gap = abs(hi - lo)
        if np.isfinite(gap) and gap > 0:
            d = max(d, int(math.ceil(-math.log10(gap))) + 2)
    return min(d, 12)


@dataclass(frozen=True)
class ClassInterval:
    """Confidence interval for one class accuracy (recall of that class).

    ``confidence`` is the coverage of this interval on its own (for the per-class bounds of a
    union or Šidák construction it is the adjusted, higher level).
    """

    label: Any
    correct: int
    support: int
    estimate: float
    lower: float
    upper: float
    confidence: float
    sides: str
    method: str
    included: bool = True

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "label": _jsonable(self.label),
            "correct": int(self.correct),
            "support": int(self.support),
            "estimate": None if math.isnan(self.estimate) else float(self.estimate),
            "lower": float(self.lower),
            "upper": float(self.upper),
            "confidence": float(self.confidence),
            "sides": self.sides,
            "method": self.method,
            "included": bool(self.included),
        }


def _class_table(rows: Sequence[ClassInterval], digits: int) -> list[str]:
    wd = digits + 6
    out = [
        f"  {'class':<12}{'correct':>10}{'support':>10}{'accuracy':>{wd}}"
        f"{'lower':>{wd}}{'upper':>{wd}}"
    ]
    for r in rows:
        mark = "" if r.included else "  (left out: no examples)"
        out.append(
            f"  {str(r.label)[:11]:<12}{r.correct:>10d}{r.support:>10d}"
            f"{_fmt(r.estimate, digits):>{wd}}{_fmt(r.lower, digits):>{wd}}"
            f"{_fmt(r.upper, digits):>{wd}}{mark}"
        )
    return out


def _sides_phrase(confidence: float, sides: str) -> str:
    pct = f"{100 * confidence:.6g}%"
    return {"two": f"{pct} two-sided", "lower": f"{pct} one-sided lower",
            "upper": f"{pct} one-sided upper"}[sides]


@dataclass(frozen=True)
class ExactInterval:
    """An exact confidence interval (frequentist: it holds on >= ``confidence`` of test sets).

    Attributes
    ----------
    lower, upper : float
        The bounds; a one-sided interval has ``upper = 1`` (``sides="lower"``) or ``lower = 0``.
    estimate : float
        Sample accuracy or balanced accuracy (always inside the interval).
    confidence : float
    sides : {"two", "lower", "upper"}
    method : str
        ``"clopper-pearson"`` (accuracy), ``"union"``, ``"sidak"`` or ``"buehler"``.
    metric : {"balanced_accuracy", "accuracy"}
    per_class : tuple of ClassInterval
        Per-class Clopper-Pearson intervals. For union / Šidák these are the bounds that were
        averaged, at the adjusted level ``per_bound_confidence``; for Buehler they are the
        individual per-class intervals at ``confidence``, shown for reference.
    per_bound_confidence : float or None
        ``1 - alpha`` of each one-sided per-class bound that enters the average.
    weights : tuple of float
        Class weights of the balanced accuracy (included classes only; empty for accuracy).
    """

    lower: float
    upper: float
    estimate: float
    confidence: float
    sides: str
    method: str
    metric: str
    per_class: tuple[ClassInterval, ...] = ()
    per_bound_confidence: float | None = None
    weights: tuple[float, ...] = ()

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "kind": "exact",
            "metric": self.metric,
            "method": self.method,
            "sides": self.sides,
            "confidence": float(self.confidence),
            "estimate": float(self.estimate),
            "lower": float(self.lower),
            "upper": float(self.upper),
            "per_bound_confidence": (
                None if self.per_bound_confidence is None else float(self.per_bound_confidence)
            ),
            "weights": [float(w) for w in self.weights],
            "per_class": [c.to_dict() for c in self.per_class],
        }

    def __str__(self) -> str:
        what = "balanced accuracy" if self.metric == "balanced_accuracy" else "accuracy"
        d = _digits((self.lower, self.upper), *[(c.lower, c.upper) for c in self.per_class])
        lines = [
            f"Exact {_sides_phrase(self.confidence, self.sides)} confidence "
            f"{'interval' if self.sides == 'two' else 'bound'} for the "
            f"{what} ({_METHOD_TITLES.get(self.method, self.method)})",
            f"  estimate {_fmt(self.estimate, d)}   interval "
            f"[{_fmt(self.lower, d)}, {_fmt(self.upper, d)}]",
        ]
        if self.per_class:
            if self.per_bound_confidence is not None:
                lines.append(
                    "  per class (Clopper-Pearson, each one-sided bound at "
                    f"{100 * self.per_bound_confidence:.6g}%):"
                )
            else:
                each = 100 * self.per_class[0].confidence
                lines.append(f"  per class (Clopper-Pearson, each at {each:.6g}%, for reference):")
            lines += _class_table(self.per_class, d)
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# per-class data
def _class_arrays(cm: ConfusionMatrix, empty: str, *, warn: bool = True):
    """Return labels, k, n and the mask of classes that enter the balanced accuracy."""
    if empty not in ("drop", "keep"):
        raise BaccError(f"empty must be 'drop' or 'keep', got {empty!r}")
    k = cm.correct.astype(np.int64)
    n = cm.support.astype(np.int64)
    included = (n > 0) if empty == "drop" else np.ones(n.shape, dtype=bool)
    if warn and empty == "drop" and not included.all():
        missing = [cm.labels[i] for i in np.flatnonzero(~included)]
        warnings.warn(
            f"classes {missing!r} have no true examples and are left out of the balanced "
            "accuracy (pass empty='keep' to keep them with bounds [0, 1])",
            BaccWarning,
            stacklevel=3,
        )
    return cm.labels, k, n, included


def _included_weights(weights, cm: ConfusionMatrix, included: np.ndarray) -> np.ndarray:
    """Class weights restricted to the included classes and renormalised."""
    if weights is None:
        m = int(included.sum())
        return np.full(m, 1.0 / m)
    w = check_weights(weights, cm.n_classes)[included]
    s = w.sum()
    if s <= 0:
        raise BaccError("the weights of the classes with examples are all 0")
    return w / s


def _as_cm(cm, rows: str = "true", labels=None) -> ConfusionMatrix:
    return as_confusion_matrix(cm, rows=rows, labels=labels)


# ----------------------------------------------------------------------------------------------
# public: per-class intervals
def class_intervals(
    cm,
    confidence: float = 0.95,
    *,
    sides: str = "two",
    adjust: str | None = None,
    rows: str = "true",
    labels=None,
) -> tuple[ClassInterval, ...]:
    """Clopper-Pearson interval for each class accuracy (recall).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Anything :func:`bacc.confusion.as_confusion_matrix` accepts (rows = true class unless
        ``rows="predicted"``).
    confidence : float
        Coverage of each interval (``adjust=None``) or of all of them together.
    sides : {"two", "lower", "upper"}
    adjust : {None, "union", "sidak"}
        ``None``: each interval holds on its own. ``"union"`` / ``"sidak"``: all ``l`` intervals
        hold simultaneously with probability >= ``confidence`` (Bonferroni / Šidák levels of
        :func:`per_bound_alpha`).

    Returns
    -------
    tuple of ClassInterval
        One per class, in the order of ``cm.labels``; a class with no examples gets [0, 1].

    See Also
    --------
    exact_interval : the interval for the (balanced) accuracy.

    Examples
    --------
    >>> import bacc.exact as ex
    >>> [round(c.upper, 3) for c in ex.class_intervals([[80, 20], [5, 5]], sides="upper")]
    [0.863, 0.778]
    """
    c = check_confidence(confidence)
    check_sides(sides)
    cm = _as_cm(cm, rows, labels)
    labs, k, n, _ = _class_arrays(cm, "keep", warn=False)
    if adjust is None:
        alpha = tail_level(c, sides)
        method = "clopper-pearson"
    else:
        check_method(adjust, ("union", "sidak"), "adjustment")
        alpha = per_bound_alpha(c, cm.n_classes, sides, adjust)
        method = f"clopper-pearson ({adjust})"
    lo, hi = cp_bounds(k, n, alpha, sides)
    each = 1.0 - (2.0 * alpha if sides == "two" else alpha)
    return class_rows(labs, k, n, lo, hi, n > 0, each, sides, method)


def class_rows(labs, k, n, lo, hi, included, confidence, sides, method) -> tuple[ClassInterval, ...]:
    """One :class:`ClassInterval` per class from arrays of counts and bounds."""
    return tuple(
        ClassInterval(
            label=labs[i],
            correct=int(k[i]),
            support=int(n[i]),
            estimate=float(k[i] / n[i]) if n[i] > 0 else math.nan,
            lower=float(lo[i]),
            upper=float(hi[i]),
            confidence=confidence,
            sides=sides,
            method=method,
            included=bool(included[i]),
        )
        for i in range(len(labs))
    )


# ----------------------------------------------------------------------------------------------
# public: interval for accuracy or balanced accuracy
def exact_interval(
    cm,
    confidence: float = 0.95,
    *,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    method: str = "union",
    weights=None,
    empty: str = "drop",
    rows: str = "true",
    labels=None,
) -> ExactInterval:
    """Exact confidence interval for the balanced accuracy or the accuracy.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Anything :func:`bacc.confusion.as_confusion_matrix` accepts (rows = true class unless
        ``rows="predicted"``).
    confidence : float
        Coverage in (0, 1): the interval holds on at least this share of test sets.
    metric : {"balanced_accuracy", "accuracy"}
    sides : {"two", "lower", "upper"}
        Central two-sided interval, or a one-sided lower / upper confidence bound.
    method : {"union", "sidak", "buehler"}
        For the balanced accuracy: ``"union"`` (Sandler & Dirac (2024): average of per-class Clopper-Pearson
        bounds, each at ``delta / (2 l)``, ``delta / l`` one-sided), ``"sidak"`` (same with the
        Šidák level, slightly tighter, valid as classes are independent) or ``"buehler"`` (two
        classes only: exact test of the balanced accuracy inverted with the nuisance parameter
        maximised over; the tightest for similar class sizes, but not uniformly: with very
        unequal sizes the union bound can be narrower). For ``metric="accuracy"`` every method
        is the Clopper-Pearson interval of ``total_correct`` out of ``total`` (one proportion
        needs no multiplicity correction), reported as ``"clopper-pearson"``.
    weights : array_like, optional
        Class weights of the balanced accuracy (default equal). Classes left out (no examples)
        lose their weight and the rest is renormalised.
    empty : {"drop", "keep"}
        A class with no true examples is left out with a :class:`bacc.BaccWarning` (``"drop"``)
        or kept with per-class bounds [0, 1] (``"keep"``).
    rows, labels
        How to read ``cm`` when it is a plain matrix.

    Returns
    -------
    ExactInterval

    Raises
    ------
    BaccError
        Invalid confidence, matrix, metric, sides or method; ``"buehler"`` with other than two
        classes or with more than 5000 examples in a class.

    See Also
    --------
    class_intervals, binomial_test, bacc.approx.approx_interval, bacc.coverage.coverage

    Notes
    -----
    Union bound (Sandler & Dirac 2024): with ``L_i, U_i`` one-sided Clopper-Pearson bounds at level
    ``alpha``, ``P(some L_i > theta_i or some U_i < theta_i) <= 2 l alpha = delta``, and when
    no bound fails, ``sum w_i L_i <= sum w_i theta_i <= sum w_i U_i``.

    Examples
    --------
    >>> import bacc.exact as ex
    >>> iv = ex.exact_interval([[42, 3], [6, 4]])
    >>> iv.method, round(iv.estimate, 4)
    ('union', 0.6667)
    >>> iv.lower < iv.estimate < iv.upper
    True
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    check_method(method, EXACT_METHODS + ("clopper-pearson",), "exact interval")
    cm = _as_cm(cm, rows, labels)
    if metric == "accuracy":
        return _accuracy_interval(cm, c, sides)
    if method == "clopper-pearson":
        raise BaccError(
            "method 'clopper-pearson' is for metric='accuracy'; for the balanced accuracy "
            "choose 'union', 'sidak' or 'buehler'"
        )
    labs, k, n, inc = _class_arrays(cm, empty)
    if not inc.any():  # pragma: no cover - a matrix always has examples
        raise BaccError("no class has examples")
    w = _included_weights(weights, cm, inc)
    ki, ni = k[inc], n[inc]
    m = int(inc.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        p_hat = np.where(ni > 0, ki / np.maximum(ni, 1), np.nan)
    # an empty kept class has estimate nan; its bounds [0, 1] still enter the average
    estimate = float(np.nansum(w * p_hat)) if np.all(ni > 0) else math.nan

    if method in ("union", "sidak"):
        alpha = per_bound_alpha(c, m, sides, method)
        lo_i, hi_i = cp_bounds(ki, ni, alpha, sides)
        lower, upper = float(w @ lo_i), float(w @ hi_i)
        per_conf = 1.0 - alpha
        each = 1.0 - (2.0 * alpha if sides == "two" else alpha)
        per_lo, per_hi = lo_i, hi_i
    else:
        if m != 2:
            raise BaccError(
                f"method 'buehler' is implemented for two classes, got {m}; use 'union' or 'sidak'"
            )
        if ni.max() > _BUEHLER_MAX_SUPPORT or ni.min() == 0:
            raise BaccError(
                f"method 'buehler' needs 1 to {_BUEHLER_MAX_SUPPORT} examples in each class "
                f"(got {ni.tolist()}); use 'union' or 'sidak'"
            )
        lower, upper = buehler_bounds(ki, ni, w, tail_level(c, sides), sides)
        per_conf = None
        each = c
        per_lo, per_hi = cp_bounds(ki, ni, tail_level(c, sides), sides)
    if not math.isnan(estimate):
        # Sandler & Dirac (2024) bounds already bracket the estimate; this only guards rounding
        lower, upper = min(lower, estimate), max(upper, estimate)
    lower, upper = max(0.0, lower), min(1.0, upper)
    per_class = []
    j = 0
    for i in range(cm.n_classes):
        if inc[i]:
            lo_c, hi_c = float(per_lo[j]), float(per_hi[j])
            j += 1
        else:
            lo_c, hi_c = 0.0, 1.0
        per_class.append(
            ClassInterval(
                label=labs[i],
                correct=int(k[i]),
                support=int(n[i]),
                estimate=float(k[i] / n[i]) if n[i] > 0 else math.nan,
                lower=lo_c,
                upper=hi_c,
                confidence=each,
                sides=sides,
                method="clopper-pearson",
                included=bool(inc[i]),
            )
        )
    return ExactInterval(
        lower=lower,
        upper=upper,
        estimate=estimate,
        confidence=c,
        sides=sides,
        method=method,
        metric="balanced_accuracy",
        per_class=tuple(per_class),
        per_bound_confidence=per_conf,
        weights=tuple(float(x) for x in w),
    )


def _accuracy_interval(cm: ConfusionMatrix, c: float, sides: str) -> ExactInterval:
    k, n = cm.total_correct, cm.total
    lo, hi = cp_bounds(np.array([k]), np.array([n]), tail_level(c, sides), sides)
    return ExactInterval(
        lower=float(lo[0]),
        upper=float(hi[0]),
        estimate=k / n,
        confidence=c,
        sides=sides,
        method="clopper-pearson",
        metric="accuracy",
    )


# ----------------------------------------------------------------------------------------------
# Buehler bound for the balanced accuracy of two classes
def _log_binom_coef(n: int) -> np.ndarray:
    j = np.arange(n + 1, dtype=float)
    return sc.gammaln(n + 1.0) - sc.gammaln(j + 1.0) - sc.gammaln(n - j + 1.0)


def _pmf_rows(theta: np.ndarray, n: int, lgc: np.ndarray) -> np.ndarray:
    """Binomial(n, theta_r) pmf for each entry of ``theta``: shape (len(theta), n + 1)."""
    j = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lt = np.log(theta)[:, None]
        l1t = np.log1p(-theta)[:, None]
        out = lgc + j * lt
        out += (n - j) * l1t
        np.exp(out, out=out)
    # theta = 0 or 1 (0 * log 0 is nan above): a point mass
    edge = (theta <= 0.0) | (theta >= 1.0)
    if edge.any():
        out[edge] = 0.0
        e = np.flatnonzero(edge)
        out[e, np.where(theta[e] <= 0.0, 0, n)] = 1.0
    return out


_CHUNK = 1 << 21  # pmf terms per vectorised block


class _TailProb:
    """``G_b(x, y) = P(w1 K1/n1 + w2 K2/n2 >= t_b)``, ``K1 ~ Bin(n1, x)``, ``K2 ~ Bin(n2, y)``.

    One statistic ``t_b`` per observed outcome ``k[b]`` (a batch). The event is
    ``{K2 >= c_b[K1]}`` with ``c_b`` non-increasing, i.e. ``{K1 >= J_b[K2]}`` with
    ``J_b[k2] = #{j : c_b[j] > k2}``; it is an upper set in both counts, so ``G_b`` is
    non-decreasing in ``x`` and in ``y``, and ``G_b(x, y) = sum_k2 pmf2(k2; y) SF1(J_b[k2]; x)``.
    Points are passed flat, with ``b`` naming the outcome of each point.
    """

    def __init__(self, k: np.ndarray, n, w) -> None:
        k = np.atleast_2d(np.asarray(k, dtype=np.int64))
        self.n1, self.n2 = int(n[0]), int(n[1])
        self.w1, self.w2 = float(w[0]), float(w[1])
        self.lgc1, self.lgc2 = _log_binom_coef(self.n1), _log_binom_coef(self.n2)
        j = np.arange(self.n1 + 1, dtype=np.int64)[None, :]
        if self.w1 == self.w2:
            # integers: j/n1 + k2/n2 >= k1/n1 + k2o/n2  <=>  k2 n1 >= k1 n2 + k2o n1 - j n2
            num = k[:, :1] * self.n2 + k[:, 1:] * self.n1 - j * self.n2
            c = -((-num) // self.n1)
        else:
            # float with a tolerance that can only enlarge the event (a larger p-value)
            t = self.w1 * k[:, :1] / self.n1 + self.w2 * k[:, 1:] / self.n2
            c = np.ceil(self.n2 * (t - self.w1 * j / self.n1) / self.w2 - 1e-9).astype(np.int64)
        c = np.minimum.accumulate(np.clip(c, 0, self.n2 + 1), axis=1)
        nb = k.shape[0]
        hist = np.bincount(
            (np.arange(nb)[:, None] * (self.n2 + 2) + c).ravel(), minlength=nb * (self.n2 + 2)
        ).reshape(nb, self.n2 + 2)
        # J[b, k2] = #{j : c[b, j] > k2} = sum of hist[b, v] over v > k2
        self.J = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]

    def _rows(self) -> int:
        return max(1, _CHUNK // (self.n1 + self.n2 + 2))

    def x_part(self, x: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``SF1(J_b[k2]; x)`` per point: shape (len(x), n2 + 1)."""
        p1 = _pmf_rows(x, self.n1, self.lgc1)
        sf1 = np.zeros((x.size, self.n1 + 2))
        sf1[:, : self.n1 + 1] = np.cumsum(p1[:, ::-1], axis=1)[:, ::-1]
        np.minimum(sf1, 1.0, out=sf1)
        return np.take_along_axis(sf1, self.J[b], axis=1)

    def with_x_part(self, xp: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", _pmf_rows(y, self.n2, self.lgc2), xp)

    def __call__(self, x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty(x.size)
        r = self._rows()
        for s in range(0, x.size, r):
            sl = slice(s, s + r)
            out[sl] = self.with_x_part(self.x_part(x[sl], b[sl]), y[sl])
        return out

    def root_y(self, x: np.ndarray, b: np.ndarray, alpha: float, iters: int = 60) -> np.ndarray:
        """Approximately the smallest ``y`` with ``G_b(x, y) >= alpha`` (``inf`` where none).

        Six bisection steps, then Newton steps kept inside the bisection bracket.
        """
        out = np.empty(x.size)
        r = self._rows()
        k2 = np.arange(self.n2 + 1, dtype=float)[None, :]
        for s in range(0, x.size, r):
            xp = self.x_part(x[s : s + r], b[s : s + r])
            g1 = self.with_x_part(xp, np.ones(xp.shape[0]))
            g0 = self.with_x_part(xp, np.zeros(xp.shape[0]))
            res = np.where(g1 < alpha, np.inf, 0.0)
            act = np.flatnonzero((g1 >= alpha) & (g0 < alpha))
            xp = xp[act]
            lo = np.zeros(act.size)
            hi = np.ones(act.size)
            y = np.full(act.size, 0.5)
            for it in range(iters):
                p2 = _pmf_rows(y, self.n2, self.lgc2)
                g = np.einsum("ij,ij->i", p2, xp)
                up = g >= alpha
                hi = np.where(up, y, hi)
                lo = np.where(up, lo, y)
                if it < 6:
                    y = 0.5 * (lo + hi)
                    continue
                with np.errstate(all="ignore"):
                    dg = np.einsum("ij,ij->i", p2 * (k2 - self.n2 * y[:, None]), xp) / (
                        y * (1.0 - y)
                    )
                    yn = y - (g - alpha) / dg
                step_bad = ~np.isfinite(yn) | (yn <= lo) | (yn >= hi)
                yn = np.where(step_bad, 0.5 * (lo + hi), yn)
                done = (np.abs(yn - y) <= 1e-13) | (hi - lo <= 1e-13)
                y = yn
                if done.all():
                    break
            res[act] = y
            out[s : s + r] = res
        return out


def _buehler_candidate(G: _TailProb, alpha: float, idx: np.ndarray) -> np.ndarray:
    """Approximate ``min {w1 x + w2 y : G_b(x, y) >= alpha}`` for each outcome ``b`` in ``idx``,
    on grids refined around the best point (no guarantee; the certificate provides that)."""
    nb = idx.size
    x = np.tile(np.linspace(0.0, 1.0, 129), (nb, 1))
    best = np.full(nb, np.inf)
    width = 1.0
    rows = np.arange(nb)
    for _ in range(4):
        m = x.shape[1]
        y = G.root_y(x.ravel(), np.repeat(idx, m), alpha).reshape(nb, m)
        f = G.w1 * x + G.w2 * y
        i = np.argmin(f, axis=1)
        best = np.minimum(best, f[rows, i])
        width /= 32.0
        xc = x[rows, i]
        x = np.clip(xc[:, None] + np.linspace(-2 * width, 2 * width, 65)[None, :], 0.0, 1.0)
    return best


def _buehler_certify(
    G: _TailProb, alpha: float, level: np.ndarray, idx: np.ndarray, max_ops: float = 3e7
) -> np.ndarray:
    """For each outcome ``idx[i]``: True if every ``(x, y)`` with ``w1 x + w2 y < level[i]``
    has ``G(x, y) < alpha`` (so the Buehler bound is at least ``level[i]``).

    Cover ``x`` by cells ``[a, a + h]``; on a cell the points below the line have
    ``y <= y_a = (level - w1 a) / w2`` and, ``G`` being monotone, ``G <= G(a + h, min(y_a, 1))``.
    Cells where that corner bound is not below ``alpha`` are split in four; a point on the line
    with ``G >= alpha`` (or running out of the budget of ``max_ops`` pmf terms) fails the
    certificate.
    """
    w1, w2 = G.w1, G.w2
    thr = alpha * (1.0 - 1e-9) - 1e-13 * (G.n1 + G.n2)
    nl = level.size
    ok = np.zeros(nl, dtype=bool)
    failed = np.zeros(nl, dtype=bool)
    x_max = np.ones(nl) if w1 == 0 else np.minimum(1.0, np.maximum(level, 0.0) / w1)
    trivial = (x_max <= 0) | (level <= 0)
    ok[trivial] = True
    max_cells = max_ops / (G.n1 + G.n2 + 2)
    start = np.flatnonzero(~trivial)
    own = np.repeat(start, 64)  # position in 0..nl-1 of each cell's outcome
    h = x_max[own] / 64.0
    a = np.tile(np.arange(64.0), start.size) * h
    used = np.zeros(nl)
    pending = np.zeros(nl, dtype=bool)
    pending[start] = True
    while own.size:
        used += np.bincount(own, minlength=nl)
        failed |= pending & ((used > max_cells) | (np.bincount(own, h < 1e-15, nl) > 0))
        keep = ~failed[own]
        own, a, h = own[keep], a[keep], h[keep]
        b_edge = np.minimum(a + h, x_max[own])
        ya = (level[own] - w1 * a) / w2
        need = ya > 0
        bad = np.zeros(own.size, dtype=bool)
        if need.any():
            g = G(b_edge[need], np.minimum(ya[need], 1.0), idx[own[need]])
            bad[need] = g >= thr
        # a point on the line itself with G >= alpha disproves the level
        xm = a[bad] + 0.5 * h[bad]
        ym = (level[own[bad]] - w1 * xm) / w2
        on = (ym >= 0) & (ym <= 1)
        if on.any():
            hit = G(xm[on], ym[on], idx[own[bad][on]]) >= alpha
            failed[own[bad][on][hit]] = True
        still = pending & ~failed
        has_bad = np.zeros(nl, dtype=bool)
        has_bad[own[bad]] = True
        ok |= still & ~has_bad
        pending = still & has_bad
        sel = bad & pending[own]
        h4 = h[sel] / 4.0
        a = (a[sel][:, None] + h4[:, None] * np.arange(4.0)[None, :]).ravel()
        h = np.repeat(h4, 4)
        own = np.repeat(own[sel], 4)
    return ok & ~failed


def _buehler_lower(k: np.ndarray, n, w, alpha: float) -> np.ndarray:
    """Exact lower confidence bounds (level ``1 - alpha``) for ``w1 theta1 + w2 theta2``, one per
    row of ``k`` (shape (B, 2)).

    Construction (Buehler 1957). Let ``T = w1 K1/n1 + w2 K2/n2`` (the estimate) and
    ``G_theta(t) = P_theta(T >= t)``. The bound is ``L(t) = inf {lambda(theta) :
    G_theta(t) >= alpha}``, i.e. the smallest balanced accuracy not rejected by the one-sided
    test that rejects ``lambda <= lambda0`` when ``sup_{lambda(theta) <= lambda0} G_theta(t)
    < alpha`` (nuisance parameter maximised over).

    Coverage: if ``L(T) > lambda(theta)`` then ``G_theta(T) < alpha`` (else ``theta`` itself
    would be admissible), and ``P_theta(G_theta(T) < alpha) <= alpha`` because ``G_theta(T)``
    is the survival function of ``T`` at ``T`` (a valid p-value). So
    ``P(L(T) > lambda) <= alpha`` for every ``theta``.

    Computation: a candidate is found on refined grids, then *certified* by
    :func:`_buehler_certify` (``G`` is monotone in both parameters, so a cell's corner value
    bounds it). The value returned is a certified level ``<= L(t)``, so coverage is kept
    whatever the accuracy of the search. The first certificate tried is ``1e-6`` below the
    candidate (a corner bound is first-order, so each further digit multiplies the cost by
    about three); the bound is thus conservative by about ``1e-6``.
    """
    k = np.atleast_2d(np.asarray(k, dtype=np.int64))
    G = _TailProb(k, n, w)
    nb = k.shape[0]
    out = np.zeros(nb)
    allb = np.arange(nb)
    # t_obs = 0 (every example wrong): G(0, 0) = 1 and nothing can be excluded
    rem = allb[G(np.zeros(nb), np.zeros(nb), allb) < alpha]
    if rem.size == 0:
        return out
    cand = _buehler_candidate(G, alpha, rem)
    for eps in (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3):
        level = cand - eps
        ok = _buehler_certify(G, alpha, level, rem)
        out[rem[ok]] = np.maximum(level[ok], 0.0)
        rem, cand = rem[~ok], cand[~ok]
        if rem.size == 0:
            break
    return out  # outcomes never certified keep 0, always valid


def buehler_bounds(k, n, w, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Buehler lower / upper bounds for two classes, ``alpha`` in each bounded tail.

    ``k`` has shape (2,) or (B, 2); the result has shape () or (B,). The upper bound is
    ``1 - L`` computed on the errors (``n - k``), whose balanced error is ``1 - lambda``.
    """
    k = np.asarray(k, dtype=np.int64)
    single = k.ndim == 1
    k = np.atleast_2d(k)
    n = np.asarray(n, dtype=np.int64)
    w = np.asarray(w, dtype=float)
    # the second class is the root-finding coordinate (its pmf is recomputed at every step):
    # make it the smaller class, unless it carries no weight
    if w[1] == 0 or (n[1] > n[0] and w[0] > 0):
        k, n, w = k[:, ::-1], n[::-1], w[::-1]
    nb = k.shape[0]
    lower = _buehler_lower(k, n, w, alpha) if sides in ("two", "lower") else np.zeros(nb)
    upper = 1.0 - _buehler_lower(n - k, n, w, alpha) if sides in ("two", "upper") else np.ones(nb)
    if single:
        return float(lower[0]), float(upper[0])
    return lower, upper


# ----------------------------------------------------------------------------------------------
# binomial test against chance (Brodersen et al. (2010), section II)
@dataclass(frozen=True)
class BinomialTest:
    """Exact one-sided binomial test of the accuracy against chance, and the exact lower bound
    of the balanced accuracy against ``1 / l``.

    Attributes
    ----------
    correct, total : int
        ``k`` and ``n``.
    accuracy : float
    chance : float
        ``p0`` of the null hypothesis (accuracy = chance).
    confidence : float
        ``1 - alpha``.
    threshold : int
        ``F^{-1}(1 - alpha)`` of ``Binomial(n, p0)`` (Brodersen et al. (2010), section II): the accuracy is
        significantly above chance when ``correct > threshold``.
    p_value : float
        ``P(K >= correct)`` under ``Binomial(n, p0)``.
    above_chance : bool
        ``correct > threshold`` (equivalently ``p_value <= alpha``).
    balanced_accuracy : float
    balanced_lower : float
        Exact one-sided lower confidence bound of the balanced accuracy at ``confidence``.
    balanced_chance : float
        ``1 / l`` over the classes with examples.
    balanced_above_chance : bool
        ``balanced_lower > balanced_chance``.
    balanced_method : str
        Method of the lower bound (see :func:`exact_interval`).
    """

    correct: int
    total: int
    accuracy: float
    chance: float
    confidence: float
    threshold: int
    p_value: float
    above_chance: bool
    balanced_accuracy: float
    balanced_lower: float
    balanced_chance: float
    balanced_above_chance: bool
    balanced_method: str

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "correct": int(self.correct),
            "total": int(self.total),
            "accuracy": float(self.accuracy),
            "chance": float(self.chance),
            "confidence": float(self.confidence),
            "threshold": int(self.threshold),
            "p_value": float(self.p_value),
            "above_chance": bool(self.above_chance),
            "balanced_accuracy": float(self.balanced_accuracy),
            "balanced_lower": float(self.balanced_lower),
            "balanced_chance": float(self.balanced_chance),
            "balanced_above_chance": bool(self.balanced_above_chance),
            "balanced_method": self.balanced_method,
        }

    def __str__(self) -> str:
        pct = f"{100 * self.confidence:.6g}%"
        verdict = "above chance" if self.above_chance else "not significantly above chance"
        bverdict = "clears" if self.balanced_above_chance else "does not clear"
        return "\n".join(
            [
                f"Exact binomial test of the accuracy against chance (one-sided, {pct})",
                f"  accuracy {self.correct}/{self.total} = {self.accuracy:.4f}, chance "
                f"{self.chance:.4f}",
                f"  threshold F^-1({self.confidence:.6g}) of Binomial({self.total}, "
                f"{self.chance:.4g}) = {self.threshold}; p-value {self.p_value:.4g}: {verdict}",
                f"  balanced accuracy {self.balanced_accuracy:.4f}: exact {pct} lower bound "
                f"{self.balanced_lower:.4f} ({self.balanced_method}) {bverdict} chance "
                f"{self.balanced_chance:.4f}",
            ]
        )


def _binom_sf(t: int, n: int, p: float) -> float:
    """``P(K > t)`` for ``K ~ Binomial(n, p)`` via ``I_p(t + 1, n - t)``."""
    if t < 0:
        return 1.0
    if t >= n:
        return 0.0
    return float(sc.betainc(t + 1.0, float(n - t), p))


def _binom_quantile(q_tail: float, n: int, p: float) -> int:
    """Smallest ``t`` in ``0..n`` with ``P(K > t) <= q_tail``, i.e. ``F^{-1}(1 - q_tail)``."""
    lo, hi = -1, n  # sf(lo) > q_tail (sf(-1) = 1), sf(hi) = 0 <= q_tail
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _binom_sf(mid, n, p) <= q_tail:
            hi = mid
        else:
            lo = mid
    return hi


def binomial_test(
    cm,
    chance: float | None = None,
    confidence: float = 0.95,
    *,
    method: str = "union",
    rows: str = "true",
    labels=None,
) -> BinomialTest:
    """Is the classifier above chance? Exact binomial test and exact balanced-accuracy bound.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
    chance : float, optional
        Accuracy of guessing, ``p0`` in (0, 1). Default ``1 / l`` over the classes with examples
        (Brodersen et al. (2010) use ``1/2`` for two classes).
    confidence : float
        ``1 - alpha``.
    method : {"union", "sidak", "buehler"}
        Method of the exact lower bound of the balanced accuracy.

    Returns
    -------
    BinomialTest

    Notes
    -----
    Seed 000, section II: with ``C`` correct out of ``n``, the significance threshold is
    ``F^{-1}(1 - alpha)`` where ``F`` is the CDF of ``Binomial(n, p0)``; ``C > F^{-1}(1 -
    alpha)`` iff ``P(K >= C) <= alpha``. On an imbalanced test set the accuracy can clear this
    threshold by always predicting the majority class (the second flaw named by Brodersen et al. (2010)), which is why the
    exact lower bound of the balanced accuracy is compared with ``1 / l`` as well.

    Examples
    --------
    >>> import bacc.exact as ex
    >>> r = ex.binomial_test([[40, 10], [15, 35]])
    >>> r.threshold, r.above_chance, r.balanced_above_chance
    (58, True, True)
    """
    c = check_confidence(confidence)
    cm = _as_cm(cm, rows, labels)
    m = int(np.count_nonzero(cm.support))
    if chance is None:
        p0 = 1.0 / m if m > 1 else 0.5
    else:
        p0 = check_confidence(chance, name="chance")
    alpha = 1.0 - c
    k, n = cm.total_correct, cm.total
    threshold = _binom_quantile(alpha, n, p0)
    p_value = _binom_sf(k - 1, n, p0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaccWarning)
        lower_iv = exact_interval(cm, c, sides="lower", method=method)
    b_chance = 1.0 / m
    return BinomialTest(
        correct=k,
        total=n,
        accuracy=k / n,
        chance=p0,
        confidence=c,
        threshold=int(threshold),
        p_value=p_value,
        above_chance=bool(k > threshold),
        balanced_accuracy=lower_iv.estimate,
        balanced_lower=lower_iv.lower,
        balanced_chance=b_chance,
        balanced_above_chance=bool(lower_iv.lower > b_chance),
        balanced_method=method,
    )
