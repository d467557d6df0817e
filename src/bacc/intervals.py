"""Confidence intervals for the accuracy and the balanced accuracy: exact and approximate.

An **exact** bound holds on at least the stated share of test sets, whatever the true accuracies
(Sandler & Dirac 2024, "Constructing a 95% upper confidence bound"); a Bayesian credible interval
(:mod:`bacc.posterior`) answers a different question. An **approximate** interval is what many
papers still report; none is guaranteed to hold on the stated share of test sets
(:func:`bacc.coverage` measures how often each one does). They are here so that a reported
number can be reproduced and put next to an exact one.

Exact methods (``exact_interval(method=...)``):

* **Clopper-Pearson** bounds for one proportion (Sandler & Dirac 2024, definitions of the
  binomial upper and lower confidence bounds), computed as Beta quantiles::

      lower = Beta.ppf(alpha, k, n - k + 1)      (0 when k = 0)
      upper = Beta.isf(alpha, k + 1, n - k)      (1 when k = n)

  with every quantile verified against ``betainc`` (scipy's inverse fails at large counts).
* ``"union"``: average the per-class lower and upper bounds, each one-sided bound at
  ``delta / (2 l)`` (two-sided; ``delta / 4`` for two classes) or ``delta / l`` (one-sided)
  (Sandler & Dirac 2024, "Constructing the bound for balanced accuracy" and appendix A).
* ``"sidak"``: the classes' test examples are independent, so the per-class intervals fail
  independently. A two-sided per-class interval fails with probability at most ``2 alpha``
  (its two failures are disjoint events), so ``prod_i (1 - 2 alpha) >= 1 - delta`` needs
  ``alpha = (1 - (1 - delta)^(1/l)) / 2``; one-sided: ``alpha = 1 - (1 - delta)^(1/l)``.
  (The level ``1 - (1 - delta)^(1/(2l))`` that treats the lower and upper failure of one class as
  independent is *not* valid: for one class it gives 94.9 % coverage at a nominal 95 %.)
* ``"buehler"`` (two classes): the exact confidence bound obtained by inverting the test of the
  balanced accuracy whose statistic is its estimate, with the nuisance parameter maximised over
  (Buehler 1957).

Approximate methods (``approx_interval(method=...)``):

* ``"wald"``: normal approximation ``p_hat +- z sqrt(p_hat (1 - p_hat) / n)`` (Sandler & Dirac
  2024, "Comparison with intervals based on the normal approximation"); for the balanced accuracy
  ``sum w_i p_i +- z sqrt(sum w_i^2 p_i (1 - p_i) / n_i)``. It collapses to a point when a class
  has no errors ("clearly unbelievable") and can leave [0, 1]; it is **not clipped**.
* ``"wilson"``: Wilson score interval (Wilson 1927).
* ``"jeffreys"``: equal-tailed interval of the Beta(k + 1/2, n - k + 1/2) posterior, with the
  lower end 0 when k = 0 and the upper end 1 when k = n (Brown, Cai & DasGupta 2001).
  For the balanced accuracy, ``"wilson"`` and ``"jeffreys"`` average per-class bounds at the
  union-bound level (``delta / (2 l)`` per bound), i.e. the union bound with the exact per-class
  intervals swapped for these approximate ones.
* ``"fold-sem"``: mean of the fold accuracies +- a multiple of their standard error, from a list
  of fold confusion matrices (Brodersen et al. 2010, section II: "may easily lead to error bars
  including values above 100%"). **Not clipped**: ``exceeds_unit_interval`` says when it leaves
  [0, 1].

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in
the case of the binomial. Biometrika 26, 404-413.
Buehler, R. J. (1957). Confidence intervals for the product of two binomial parameters.
JASA 52, 482-493.
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
JASA 22, 209-212.
Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial proportion.
Statistical Science 16, 101-133.
Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced accuracy and
its posterior distribution. Proc. 20th ICPR, 3121-3124.
Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals for balanced
accuracy. Groundlight blog, 16 January 2024.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._engine.bounds.buehler import BUEHLER_MAX_SUPPORT, buehler_bounds
from ._engine.bounds.per_class import (
    KERNELS,
    balanced_wald,
    cp_bounds,
    normal_quantile,
    per_bound_alpha,
    tail_level,
)
from ._engine.helpers.convert import jsonable
from ._engine.helpers.validate import (
    check_confidence,
    check_counts,
    check_method,
    check_metric,
    check_sides,
)
from .confusion import ConfusionMatrix, as_confusion_matrix, balanced_classes
from .errors import BaccError, BaccWarning

__all__ = [
    "APPROX_METHODS",
    "EXACT_METHODS",
    "METHODS",
    "ClassInterval",
    "Interval",
    "IntervalMethod",
    "approx_class_intervals",
    "approx_interval",
    "class_intervals",
    "clopper_pearson",
    "exact_interval",
    "fold_sem_interval",
]

def clopper_pearson(k, n, *, confidence: float = 0.95, sides: str = "two"):
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
    Sandler & Dirac (2024) define the upper bound as the largest ``p`` with
    ``F_{n,p}(k) >= delta`` (``F`` the binomial CDF) and the lower bound likewise from the
    errors ``n - k``. These are the limits of Clopper & Pearson (1934) and equal Beta quantiles,
    ``Beta.ppf(delta, k, n - k + 1)`` and ``Beta.isf(delta, k + 1, n - k)``, computed here by
    CDF-verified quantiles (``bacc._engine.beta``; valid at 10^9 examples, where scipy's
    inverse is not).

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, sections "Exact upper
       confidence bounds based on the binomial CDF", "Lower confidence bounds" and "Central
       confidence intervals".

    Examples
    --------
    >>> import bacc
    >>> lower, upper = bacc.clopper_pearson(80, 100, confidence=0.95, sides="upper")
    >>> lower, round(upper, 3)  # upper = Beta.ppf(0.95, 81, 20)
    (0.0, 0.863)
    """
    c = check_confidence(confidence)
    check_sides(sides)
    k, n = check_counts(k, n)
    lo, hi = cp_bounds(k, n, tail_level(c, sides), sides)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


# ----------------------------------------------------------------------------------------------
# results
def strict_json(value):
    """``value`` (a result's ``to_dict()``) with every number finite or None.

    JSON has no NaN or infinity (``json.dumps(..., allow_nan=False)`` refuses them, and many
    readers do too): an undefined number becomes None, recursively through dicts, lists and
    tuples; numpy scalars become plain Python numbers.
    """
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _class_interval(**fields) -> ClassInterval:
    """A :class:`ClassInterval` from fields already of the right types (one per class of an
    exact interval: up to thousands per call). A frozen dataclass sets each field through
    ``object.__setattr__``; filling the instance's dict at once builds the same object several
    times faster."""
    obj = object.__new__(ClassInterval)
    obj.__dict__.update(fields)
    return obj


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
            "label": jsonable(self.label),
            "correct": int(self.correct),
            "support": int(self.support),
            "estimate": None if math.isnan(self.estimate) else float(self.estimate),
            "lower": _finite(self.lower),
            "upper": _finite(self.upper),
            "confidence": float(self.confidence),
            "sides": self.sides,
            "method": self.method,
            "included": bool(self.included),
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        left_out = "" if self.included else ", not in the balanced accuracy"
        return (
            f"<ClassInterval {self.label!r}: accuracy {repr_number(self.estimate)} "
            f"{repr_interval(self.lower, self.upper)} {repr_level(self.confidence)} "
            f"{_SIDES.get(self.sides, self.sides)}, {self.method}, "
            f"{self.correct}/{self.support} correct{left_out}>"
        )

    def _repr_html_(self) -> str:
        from .display.html import class_interval_html

        return class_interval_html(self)


#: How a one-line repr names the sides of an interval.
_SIDES = {"two": "two-sided", "lower": "lower bound", "upper": "upper bound"}


def _finite(x) -> float | None:
    """A float, or None where it is undefined (nan, infinite)."""
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class IntervalMethod:
    """One row of the table of interval methods (:data:`METHODS`); ``anytime``: a confidence
    sequence, valid at every look of a stream and under any stopping rule."""

    name: str
    guaranteed: bool
    metrics: tuple[str, ...]
    title: str
    reference: str
    anytime: bool = False


#: Every interval method, exact (coverage guaranteed for every truth) or approximate, in the
#: spirit of statsmodels' ``proportion_confint``: :func:`exact_interval` takes the guaranteed
#: ones, :func:`approx_interval` the others, and both return an :class:`Interval`.
METHODS = {
    m.name: m
    for m in (
        IntervalMethod("clopper-pearson", True, ("accuracy",), "Clopper-Pearson",
                       "Clopper & Pearson (1934)"),
        IntervalMethod("union", True, ("balanced_accuracy",),
                       "union bound over per-class Clopper-Pearson bounds",
                       "Sandler & Dirac (2024)"),
        IntervalMethod("sidak", True, ("balanced_accuracy",),
                       "Šidák bound over per-class Clopper-Pearson bounds",
                       "Šidák (1967); independent classes"),
        IntervalMethod("buehler", True, ("balanced_accuracy",),
                       "Buehler bound: exact test inverted, nuisance maximised", "Buehler (1957)"),
        IntervalMethod("anytime", True, ("accuracy", "balanced_accuracy"),
                       "anytime-valid confidence sequence (beta-binomial mixture martingale)",
                       "Robbins (1970); Howard et al. (2021)", anytime=True),
        IntervalMethod("betting", True, ("accuracy", "balanced_accuracy"),
                       "anytime-valid confidence sequence by betting (hedged capital; labels in "
                       "arrival order)", "Waudby-Smith & Ramdas (2024); Kelly (1956)",
                       anytime=True),
        IntervalMethod("wald", False, ("accuracy", "balanced_accuracy"),
                       "Wald / normal approximation", "Sandler & Dirac (2024)"),
        IntervalMethod("wilson", False, ("accuracy", "balanced_accuracy"), "Wilson score",
                       "Wilson (1927)"),
        IntervalMethod("jeffreys", False, ("accuracy", "balanced_accuracy"), "Jeffreys",
                       "Brown, Cai & DasGupta (2001)"),
        IntervalMethod("fold-sem", False, ("accuracy", "balanced_accuracy"),
                       "mean of fold values +- SEM multiple", "Brodersen et al. (2010), section II"),
    )
}


#: Exact methods for the balanced accuracy (:func:`exact_interval`; the ``"anytime"`` method,
#: valid at every look of a stream, is :func:`bacc.anytime_interval`).
EXACT_METHODS = tuple(m for m, v in METHODS.items() if v.guaranteed and v.metrics == ("balanced_accuracy",))
#: Methods of :func:`approx_interval`.
APPROX_METHODS = tuple(m for m, v in METHODS.items() if not v.guaranteed)
#: Approximate per-class methods (:func:`approx_class_intervals`).
CLASS_METHODS = ("wald", "wilson", "jeffreys")


class _ClassRows:
    """The ``per_class`` field of :class:`Interval`: the tuple given to the constructor, or,
    when none is given, the rows built from ``class_rows_source`` the first time they are read
    (a dataclass field whose default is a descriptor: the constructor stores through
    ``__set__``, reading goes through ``__get__``)."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return None  # the field's default: no rows given
        rows = obj.__dict__.get(self.name)
        if rows is None:
            source = obj.__dict__.get("class_rows_source")
            rows = () if source is None else _exact_class_rows(*source)
            obj.__dict__[self.name] = rows
        return rows

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.name] = None if value is None else tuple(value)


@dataclass(frozen=True)
class Interval:
    """A confidence interval for the accuracy or the balanced accuracy, exact or approximate.

    ``guaranteed`` says which: an exact interval (Clopper-Pearson, union, Šidák, Buehler) holds
    on at least ``confidence`` of test sets whatever the true accuracies; an approximate one
    (Wald, Wilson, Jeffreys, mean of folds +- SEM) does not (:func:`bacc.coverage` measures how
    often it does).

    Attributes
    ----------
    lower, upper : float
        The bounds; a one-sided interval has ``upper = 1`` (``sides="lower"``) or ``lower = 0``.
        Approximate intervals are not clipped to [0, 1] (``"wald"``, ``"fold-sem"``).
    estimate : float
        Sample accuracy or balanced accuracy (mean of the folds for ``"fold-sem"``).
    confidence : float
        Coverage (exact) or nominal coverage (approximate; for ``"fold-sem"`` with an explicit
        ``n_sem``, the normal-theory coverage of that multiple).
    sides : {"two", "lower", "upper"}
    method : str
        A key of :data:`METHODS`.
    metric : {"balanced_accuracy", "accuracy"}
    guaranteed : bool
        True for exact methods.
    per_class : tuple of ClassInterval
        Per-class intervals. For union / Šidák and the approximate Wilson / Jeffreys
        constructions, the bounds that were averaged (at the adjusted per-bound level); for
        Buehler and Wald the individual per-class intervals at ``confidence``, for reference.
    per_bound_confidence : float or None
        ``1 - alpha`` of each one-sided per-class bound that enters the average (union, Šidák).
    weights : tuple of float
        Class weights of the balanced accuracy (included classes only; empty for accuracy).
    multiplier : float
        ``z`` (or the SEM multiple) of an approximate interval; nan for exact ones.
    fold_values : tuple of float
        Per-fold values (``"fold-sem"`` only).
    """

    lower: float
    upper: float
    estimate: float
    confidence: float
    sides: str
    method: str
    metric: str
    guaranteed: bool
    per_class: tuple[ClassInterval, ...] = _ClassRows()
    per_bound_confidence: float | None = None
    weights: tuple[float, ...] = ()
    multiplier: float = math.nan
    fold_values: tuple[float, ...] = ()
    #: What ``per_class`` is built from on first use when it is not given (the arrays of
    #: :func:`exact_interval`: most callers read the two bounds only, and a hundred per-class
    #: objects cost more than the bounds themselves).
    class_rows_source: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def approximate(self) -> bool:
        """``not guaranteed``."""
        return not self.guaranteed

    @property
    def exceeds_unit_interval(self) -> bool:
        """True when ``lower < 0`` or ``upper > 1`` (possible for approximate methods only:
        "error bars including values above 100%", Brodersen et al. 2010, section II)."""
        return bool(self.lower < 0.0 or self.upper > 1.0)

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    def to_dict(self) -> dict:
        """JSON-able dictionary (strict JSON: an undefined number is None; ``multiplier`` is
        None for an exact interval, which has none, and ``undefined`` says why any other
        number is)."""
        out = strict_json(self._fields_dict())
        why = {}
        if out["estimate"] is None:
            why["estimate"] = "no class with examples enters the estimate"
        for end in ("lower", "upper"):
            if out[end] is None:
                why[end] = "the bound is undefined for these counts"
        if why:
            out["undefined"] = why
        return out

    def _fields_dict(self) -> dict:
        return {
            "kind": "exact" if self.guaranteed else "approximate",
            "guaranteed": bool(self.guaranteed),
            "approximate": not self.guaranteed,
            "metric": self.metric,
            "method": self.method,
            "sides": self.sides,
            "confidence": float(self.confidence),
            "estimate": float(self.estimate),
            "lower": float(self.lower),
            "upper": float(self.upper),
            "exceeds_unit_interval": self.exceeds_unit_interval,
            "per_bound_confidence": (
                None if self.per_bound_confidence is None else float(self.per_bound_confidence)
            ),
            "weights": [float(w) for w in self.weights],
            "multiplier": float(self.multiplier),
            "fold_values": [float(v) for v in self.fold_values],
            "per_class": [c.to_dict() for c in self.per_class],
        }

    def __repr__(self) -> str:
        """One line: the estimate, the bounds, the level, the method and whether the coverage
        is guaranteed (``print()`` gives the full table)."""
        from .display.numbers import repr_interval, repr_level, repr_number
        what = "balanced accuracy" if self.metric == "balanced_accuracy" else "accuracy"
        kind = "exact" if self.guaranteed else "approximate"
        return (
            f"<Interval: {what} {repr_number(self.estimate)} "
            f"{repr_interval(self.lower, self.upper)} {repr_level(self.confidence)} "
            f"{_SIDES.get(self.sides, self.sides)}, {self.method} ({kind})>"
        )

    def __str__(self) -> str:
        from .display.text import interval_text

        return interval_text(self)

    def _repr_html_(self) -> str:
        from .display.html import interval_html

        return interval_html(self)

# ----------------------------------------------------------------------------------------------
# per-class data
def _class_arrays(cm: ConfusionMatrix, empty: str, weights=None, *, warn: bool = True):
    """Labels, k, n, the mask of classes in the balanced accuracy and their weights."""
    included, w = balanced_classes(cm, weights, empty=empty, warn=warn, stacklevel=3)
    return cm.labels, cm.correct.astype(np.int64), cm.support.astype(np.int64), included, w


def _as_cm(cm, rows: str = "true", labels=None) -> ConfusionMatrix:
    return as_confusion_matrix(cm, rows=rows, labels=labels)


# ----------------------------------------------------------------------------------------------
# public: per-class intervals
def class_intervals(
    cm,
    *,
    confidence: float = 0.95,
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
        ``per_bound_alpha``).

    Returns
    -------
    tuple of ClassInterval
        One per class, in the order of ``cm.labels``; a class with no examples gets [0, 1].

    See Also
    --------
    exact_interval : the interval for the (balanced) accuracy.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, appendix A (union bound).
    .. [3] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate
       normal distributions. Journal of the American Statistical Association 62, 626-633.

    Examples
    --------
    >>> import bacc
    >>> [round(c.upper, 3) for c in bacc.class_intervals([[80, 20], [5, 5]], sides="upper")]
    [0.863, 0.778]
    """
    c = check_confidence(confidence)
    check_sides(sides)
    cm = _as_cm(cm, rows, labels)
    labs, k, n, _, _ = _class_arrays(cm, "keep", warn=False)
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
    *,
    confidence: float = 0.95,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    method: str = "union",
    weights=None,
    empty: str = "drop",
    rows: str = "true",
    labels=None,
) -> Interval:
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
    Interval

    Raises
    ------
    BaccError
        Invalid confidence, matrix, metric, sides or method; ``"buehler"`` with other than two
        classes or with more than 5000 examples in a class.

    See Also
    --------
    class_intervals : an exact interval for each class accuracy.
    bacc.binomial_test : is the classifier above chance?
    approx_interval : the approximate intervals many papers report.
    bacc.coverage : how often each method keeps its promise.

    Notes
    -----
    Union bound (Sandler & Dirac 2024): with ``L_i, U_i`` one-sided Clopper-Pearson bounds at level
    ``alpha``, ``P(some L_i > theta_i or some U_i < theta_i) <= 2 l alpha = delta``, and when
    no bound fails, ``sum w_i L_i <= sum w_i theta_i <= sum w_i U_i``. The Šidák level uses the
    independence of the classes (Šidák 1967); ``"buehler"`` is the construction of Buehler
    (1957) for a function of two binomial parameters.

    References
    ----------
    .. [1] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, sections "Confidence bounds for
       balanced accuracy", "Constructing the bound for balanced accuracy" and appendix A.
    .. [2] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [3] Buehler, R. J. (1957). Confidence intervals for the product of two binomial
       parameters. Journal of the American Statistical Association 52, 482-493.
    .. [4] Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate
       normal distributions. Journal of the American Statistical Association 62, 626-633.

    Examples
    --------
    >>> import bacc
    >>> iv = bacc.exact_interval([[42, 3], [6, 4]])
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
    counts = cm.counts
    # plain int64 views and sums of the validated counts: the class arrays, built once
    k, n = np.diagonal(counts), counts.sum(axis=1)
    inc, w = balanced_classes(cm, weights, empty=empty, stacklevel=2, support=n)
    every = bool(inc.all())
    # in floating point once, for the estimate and the bounds alike (exact: counts < 2**53)
    ki, ni = (k, n) if every else (k[inc], n[inc])
    ki, ni = ki.astype(float), ni.astype(float)
    m = ki.size
    if ni.all():
        estimate = float(np.sum(w * (ki / ni)))
    else:
        # a kept class without examples has no estimate; its bounds [0, 1] still enter the
        # average
        estimate = math.nan

    if method in ("union", "sidak"):
        alpha = per_bound_alpha(c, m, sides, method)
        lo_i, hi_i = cp_bounds(ki, ni, alpha, sides)
        lower, upper = float(w @ lo_i), float(w @ hi_i)
        per_conf = 1.0 - alpha
        each = 1.0 - (2.0 * alpha if sides == "two" else alpha)
    else:
        if m != 2:
            raise BaccError(
                f"method 'buehler' is implemented for two classes, got {m}; use 'union' or 'sidak'"
            )
        k_int, n_int = (k, n) if every else (k[inc], n[inc])
        if n_int.max() > BUEHLER_MAX_SUPPORT or n_int.min() == 0:
            raise BaccError(
                f"method 'buehler' needs 1 to {BUEHLER_MAX_SUPPORT} examples in each class "
                f"(got {n_int.tolist()}); use 'union' or 'sidak'"
            )
        lower, upper = buehler_bounds(k_int, n_int, w, tail_level(c, sides), sides)
        per_conf = None
        each = c
        lo_i, hi_i = cp_bounds(ki, ni, tail_level(c, sides), sides)
    if not math.isnan(estimate):
        # Sandler & Dirac (2024) bounds already bracket the estimate; this only guards rounding
        lower, upper = min(lower, estimate), max(upper, estimate)
    lower, upper = max(0.0, lower), min(1.0, upper)
    if not every:
        # a class left out (or kept without examples but not in the average) reports [0, 1]
        lo_i, hi_i = _spread(lo_i, inc, 0.0), _spread(hi_i, inc, 1.0)
    return Interval(
        lower=lower,
        upper=upper,
        estimate=estimate,
        confidence=c,
        sides=sides,
        method=method,
        metric="balanced_accuracy",
        guaranteed=True,
        per_bound_confidence=per_conf,
        weights=tuple(w.tolist()),
        multiplier=math.nan,
        fold_values=(),
        class_rows_source=(cm.labels, k, n, inc, lo_i, hi_i, each, sides),
    )


def _spread(values: np.ndarray, mask: np.ndarray, fill: float) -> np.ndarray:
    """``values`` at the positions of ``mask``, ``fill`` elsewhere."""
    out = np.full(mask.shape, fill)
    out[mask] = values
    return out


def _exact_class_rows(labels, k, n, inc, lo, hi, each, sides) -> tuple[ClassInterval, ...]:
    """The per-class Clopper-Pearson rows of an exact interval (built on first use)."""
    # plain Python numbers first: one conversion per array, not one per element
    k_l, n_l, inc_l = k.tolist(), n.tolist(), inc.tolist()
    lo_l, hi_l = lo.tolist(), hi.tolist()
    return tuple(
        _class_interval(
            label=labels[i],
            correct=k_l[i],
            support=n_l[i],
            estimate=k_l[i] / n_l[i] if n_l[i] > 0 else math.nan,
            lower=lo_l[i],
            upper=hi_l[i],
            confidence=each,
            sides=sides,
            method="clopper-pearson",
            included=inc_l[i],
        )
        for i in range(len(labels))
    )


def _accuracy_interval(cm: ConfusionMatrix, c: float, sides: str) -> Interval:
    k, n = cm.total_correct, cm.total
    lo, hi = cp_bounds(np.array([k]), np.array([n]), tail_level(c, sides), sides)
    return Interval(
        lower=float(lo[0]),
        upper=float(hi[0]),
        estimate=k / n,
        confidence=c,
        sides=sides,
        method="clopper-pearson",
        metric="accuracy",
        guaranteed=True,
    )



# ----------------------------------------------------------------------------------------------
# approximate intervals
# ----------------------------------------------------------------------------------------------
# ----------------------------------------------------------------------------------------------
def approx_class_intervals(
    cm,
    *,
    confidence: float = 0.95,
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
    class_intervals : the exact (Clopper-Pearson) counterpart.

    References
    ----------
    .. [1] Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
       proportion. Statistical Science 16, 101-133 (Wald, Wilson and Jeffreys intervals).
    .. [2] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
       inference. Journal of the American Statistical Association 22, 209-212.
    .. [3] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, section "Comparison with
       intervals based on the normal approximation".

    Examples
    --------
    >>> import bacc
    >>> rows = bacc.approx_class_intervals([[10, 0], [3, 7]], method="wald")
    >>> [round(c.lower, 4) for c in rows]  # 1 - 0;  0.7 - 1.96 * sqrt(0.7 * 0.3 / 10)
    [1.0, 0.416]
    """
    c = check_confidence(confidence)
    check_method(method, CLASS_METHODS, "per-class approximate")
    check_sides(sides)
    cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    labs, k, n, _, _ = _class_arrays(cm, "keep", warn=False)
    return _class_rows(
        labs, k, n, np.ones(k.shape, dtype=bool), c, tail_level(c, sides), sides, method
    )


def _class_rows(labs, k, n, inc, c_each, alpha, sides, method) -> tuple[ClassInterval, ...]:
    lo, hi = KERNELS[method](k, n, alpha, sides)
    return class_rows(labs, k, n, lo, hi, inc, c_each, sides, method)


def approx_interval(
    cm,
    *,
    confidence: float = 0.95,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    method: str = "wald",
    weights=None,
    empty: str = "drop",
    n_sem: float | None = None,
    rows: str = "true",
    labels=None,
) -> Interval:
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
    Interval
        With ``exceeds_unit_interval`` set when the interval leaves [0, 1] (never clipped).

    See Also
    --------
    exact_interval : intervals that keep their coverage.
    bacc.coverage : how often each method keeps its promise.

    References
    ----------
    .. [1] Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
       proportion. Statistical Science 16, 101-133 (Wald, Wilson and Jeffreys intervals).
    .. [2] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
       inference. Journal of the American Statistical Association 22, 209-212.
    .. [3] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, section "Comparison with
       intervals based on the normal approximation" and appendix A.
    .. [4] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section II (mean of fold accuracies +- SEM).

    Examples
    --------
    >>> import bacc
    >>> iv = bacc.approx_interval([[20, 0], [0, 20]], method="wald")
    >>> (iv.lower, iv.upper)  # no errors: the Wald interval collapses to a point
    (1.0, 1.0)
    >>> folds = [[[9, 0], [0, 10]], [[10, 0], [0, 10]], [[8, 1], [1, 9]]]
    >>> iv = bacc.approx_interval(folds, metric="accuracy", method="fold-sem", n_sem=2.0)
    >>> iv.exceeds_unit_interval, round(iv.upper, 4)  # fold accuracies 1, 1, 17/19
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
        lo, hi = KERNELS[method](np.array([k]), np.array([n]), alpha, sides)
        lower, upper = float(lo[0]), float(hi[0])
        return Interval(
            lower=lower,
            upper=upper,
            estimate=k / n,
            confidence=c,
            sides=sides,
            method=method,
            metric="accuracy",
            guaranteed=False,
            multiplier=normal_quantile(alpha),
        )
    labs, k, n, inc, w = _class_arrays(cm, empty, weights)
    ki, ni = k[inc], n[inc]
    m = int(inc.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = float(w @ (ki / ni)) if np.all(ni > 0) else math.nan
    if method == "wald":
        with np.errstate(invalid="ignore", divide="ignore"):
            lo, hi = balanced_wald(ki, ni, w, alpha, sides)
        lower, upper = float(lo), float(hi)
        per = _class_rows(labs, k, n, inc, c, alpha, sides, "wald")
        mult = normal_quantile(alpha)
    else:
        a = per_bound_alpha(c, m, sides, "union")
        each = 1.0 - (2.0 * a if sides == "two" else a)
        per = _class_rows(labs, k, n, inc, each, a, sides, method)
        lo_i = np.array([r.lower for r, i in zip(per, inc, strict=True) if i])
        hi_i = np.array([r.upper for r, i in zip(per, inc, strict=True) if i])
        lower, upper = float(w @ lo_i), float(w @ hi_i)
        mult = normal_quantile(a)
    return Interval(
        lower=lower,
        upper=upper,
        estimate=estimate,
        confidence=c,
        sides=sides,
        method=method,
        metric="balanced_accuracy",
        guaranteed=False,
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
    *,
    confidence: float = 0.95,
    metric: str = "accuracy",
    sides: str = "two",
    n_sem: float | None = 2.0,
    rows: str = "true",
    labels=None,
) -> Interval:
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
    Interval
        Not clipped: ``exceeds_unit_interval`` is True when the error bar leaves [0, 1], which
        Brodersen et al. (2010) name as this method's first flaw.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, sections I-II.

    Examples
    --------
    >>> import bacc
    >>> iv = bacc.fold_sem_interval([[[9, 1], [0, 10]], [[10, 0], [0, 10]]])
    >>> round(iv.upper, 4), iv.exceeds_unit_interval  # 0.975 + 2 * 0.025
    (1.025, True)
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    cms = _fold_list(folds, rows, labels)
    if n_sem is None:
        mult = normal_quantile(tail_level(c, sides))
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
                _, k, n, inc, _ = _class_arrays(f, "drop", warn=False)
            vals.append(float(np.mean(k[inc] / n[inc])))
    v = np.asarray(vals)
    mean = float(v.mean())
    sem = float(v.std(ddof=1) / math.sqrt(v.size))
    lower = mean - mult * sem if sides in ("two", "lower") else 0.0
    upper = mean + mult * sem if sides in ("two", "upper") else 1.0
    return Interval(
        lower=lower,
        upper=upper,
        estimate=mean,
        confidence=c,
        sides=sides,
        method="fold-sem",
        metric=metric,
        guaranteed=False,
        multiplier=mult,
        fold_values=tuple(float(x) for x in v),
    )
