"""Anytime-valid intervals: honest at every look, with any stopping rule.

An exact interval (Clopper-Pearson, the union bound) holds for a number of examples fixed in
advance. Recomputed after every new label and read each time, it is another chance to be fooled
at each look: a 95 % Clopper-Pearson interval of one accuracy, looked at after every label up to
10 000 labels, excludes the truth at some point in about half of the streams. A **confidence
sequence** holds at every sample size at once: the probability that it *ever* excludes the
truth, over an unbounded stream, is at most ``1 - confidence``, so it may be watched
continuously and the labelling stopped whenever it clears a goal.

bacc's sequences are exact (root finding on the exact martingale; no asymptotic boundary):

* One class's accuracy, or the accuracy: the beta-binomial mixture martingale of Robbins
  (1970), in the form of Howard et al. (2021), section 3.5, with the prior centred on the null
  and tuned for a sample size (``tuned_for``).
* The balanced accuracy of any number of classes: the product of the classes' martingales is
  a martingale of the whole stream whatever order the classes arrive in, so one statement holds
  for every sample size of every class at once; the bounds of the weighted average of the class
  accuracies are the minimum and maximum of that average over the resulting set (not a union of
  per-class intervals, whose split of the error level wastes width).
* From the labels in arrival order, ``confidence_sequence(..., method="betting")``: each class's
  hedged capital process (Waudby-Smith & Ramdas 2024), whose bets adapt to the labels seen
  (their cap of half the capital at risk is lifted to a fractional Kelly share where that is
  larger, near an accuracy of 0 or 1); no tuning, narrowest over the first tens of labels of
  each class, wider than a mixture tuned for a larger size later.

``tuned_for`` is the number of examples per class at which the sequence is tightest. Fixed in
advance (never from the data being bounded), it trades width there against width elsewhere;
away from it the sequence widens slowly (about 7 % at ten times the size, 20-25 % at a tenth).

References
----------
Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm. Annals of
Mathematical Statistics 41, 1397-1409.
Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform, nonparametric,
nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080.
Ville, J. (1939). Étude critique de la notion de collectif. Gauthier-Villars.
Kelly, J. L. (1956). A new interpretation of information rate. Bell System Technical Journal 35,
917-926.
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by betting.
Journal of the Royal Statistical Society, Series B 86, 1-27.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._engine.bounds import anytime as engine
from ._engine.bounds import betting
from ._engine.helpers.convert import jsonable
from ._engine.helpers.validate import (
    check_confidence,
    check_counts,
    check_metric,
    check_sides,
    unmasked,
)
from .confusion import ConfusionMatrix, as_confusion_matrix, balanced_classes
from .errors import BaccError
from .intervals import ClassInterval, Interval
from .labels import encode, per_class

__all__ = [
    "DEFAULT_TUNED_FOR",
    "SEQUENCE_METHODS",
    "ConfidenceSequence",
    "anytime_bounds",
    "anytime_interval",
    "confidence_sequence",
    "fixed_n_bounds",
]

#: Examples per class at which a sequence is tightest unless told otherwise.
DEFAULT_TUNED_FOR = 100
#: The largest ``tuned_for`` accepted.
MAX_TUNED_FOR = 1e15

_METHOD = "anytime"
#: Methods of :func:`confidence_sequence`: the mixture (``"anytime"``, from counts) and the
#: hedged capital (``"betting"``, from the labels in arrival order).
SEQUENCE_METHODS = ("anytime", "betting")


def check_tuned_for(tuned_for, classes=None) -> np.ndarray:
    """``tuned_for`` as a positive float array: one number, or one per class (aligned by label
    when labelled)."""
    if tuned_for is None:
        return np.asarray(float(DEFAULT_TUNED_FOR))
    if isinstance(tuned_for, bool):
        raise BaccError(f"tuned_for must be a number of examples > 0, got {tuned_for!r}")
    if np.ma.isMaskedArray(tuned_for):
        tuned_for = unmasked(tuned_for, "tuned_for")
    items = tuned_for.values() if isinstance(tuned_for, dict) else (
        tuned_for if isinstance(tuned_for, list | tuple) else ())
    if any(isinstance(v, bool | np.bool_) for v in items):
        raise BaccError(f"tuned_for must be numbers of examples > 0, got {tuned_for!r}")
    if classes is not None and not np.isscalar(tuned_for):
        value = per_class(tuned_for, classes, "tuned_for")
        if value.shape != (len(classes),):
            raise BaccError(
                f"tuned_for must be one number or one per class ({len(classes)}), got "
                f"{value.size} values")
    else:
        try:
            value = np.asarray(unmasked(tuned_for, "tuned_for"), dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"tuned_for must be a number of examples > 0, got {tuned_for!r}") from None
    if not np.all(np.isfinite(value)) or np.any(value <= 0):
        raise BaccError(f"tuned_for must be a number of examples > 0, got {tuned_for!r}")
    if np.any(value > MAX_TUNED_FOR):
        raise BaccError(f"tuned_for must be at most {MAX_TUNED_FOR:.0e} examples (a sequence "
                        f"tuned beyond that is flat at every size one can label), got "
                        f"{float(np.max(value)):g}")
    return value


def anytime_bounds(k, n, *, confidence: float = 0.95, sides: str = "two", tuned_for=None):
    """Anytime-valid bounds of one proportion: ``k`` correct out of ``n``, at every ``n``.

    The confidence sequence of a Bernoulli mean from the beta-binomial mixture martingale:
    watched after every example of an unbounded stream, it ever excludes the true proportion
    with probability at most ``1 - confidence``.

    Parameters
    ----------
    k, n : array_like of int
        Correct and total counts (broadcast together), e.g. the running counts of a stream.
    confidence : float
        Probability in (0, 1) that the sequence holds at every sample size at once.
    sides : {"two", "lower", "upper"}
        Two-sided, or a one-sided lower / upper bound (the whole error level on one end).
    tuned_for : float, optional
        Sample size at which the sequence is tightest (default :data:`DEFAULT_TUNED_FOR`).

    Returns
    -------
    lower, upper : numpy.ndarray
        Bounds in [0, 1], of the broadcast shape.

    Raises
    ------
    BaccError
        Counts that are not whole numbers, ``k > n``, a confidence outside (0, 1), or
        ``tuned_for <= 0``.

    See Also
    --------
    anytime_interval : the same for a confusion matrix (accuracy or balanced accuracy).
    bacc.intervals.clopper_pearson : the exact interval for a sample size fixed in advance.

    Notes
    -----
    With prior ``Beta(a, b)``, ``a = max(c p0, 1/2)``, ``b = max(c (1 - p0), 1/2)``,

    .. math:: M_n(p_0) = \\frac{B(a + k, b + n - k)}{B(a, b)\\, p_0^k (1 - p_0)^{n - k}}

    is a nonnegative martingale when ``p0`` is the truth; by Ville's inequality it ever reaches
    ``1 / alpha`` with probability at most ``alpha``. The bounds are the ends of
    ``{p0 : M_n(p0) < 1 / alpha}`` (bisection to 2^-70, from the side where the null is ruled
    out). ``c + 1 = tuned_for / (2 L + log(1 + 2 L))``, ``L = log(1 / alpha)``, the optimal
    precision of the normal mixture (Howard et al. 2021, section 3.5).

    References
    ----------
    .. [1] Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm.
       Annals of Mathematical Statistics 41, 1397-1409, section 3.
    .. [2] Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform,
       nonparametric, nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080,
       section 3.5 (beta-binomial mixture) and eq. (14) (tuning).

    Examples
    --------
    >>> from bacc.anytime import anytime_bounds
    >>> lo, hi = anytime_bounds(90, 100, tuned_for=100)
    >>> bool(lo < 0.9 < hi)
    True
    """
    c = check_confidence(confidence)
    check_sides(sides)
    k, n = check_counts(k, n)
    tuned = check_tuned_for(tuned_for)
    lower, upper = engine.sequence_bounds(k, n, tuned, 1.0 - c, sides)
    return lower, upper


def _weighted(k, n, tuned, w, alpha: float, sides: str):
    """Bounds of the weighted class accuracies; ``k, n`` of shape (..., classes)."""
    if k.shape[-1] == 1:
        return engine.sequence_bounds(k[..., 0], n[..., 0], tuned[..., 0], alpha, sides)
    return engine.weighted_bounds(k, n, tuned, w, alpha, sides)


def anytime_interval(
    cm,
    *,
    confidence: float = 0.95,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    tuned_for=None,
    weights=None,
    empty: str = "drop",
    rows: str = "true",
    labels=None,
) -> Interval:
    """Anytime-valid interval of the balanced accuracy or the accuracy of a confusion matrix.

    The interval is the current value of a confidence sequence: it stays valid if the matrix
    grew one label at a time and was looked at after every label, and if the labelling stops
    because of what was seen (for example, when the lower bound clears a goal).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Anything :func:`bacc.confusion.as_confusion_matrix` accepts (rows = true class unless
        ``rows="predicted"``).
    confidence : float
        Probability in (0, 1) that the sequence holds at every sample size at once.
    metric : {"balanced_accuracy", "accuracy"}
    sides : {"two", "lower", "upper"}
    tuned_for : float or per-class option, optional
        Examples per class (the total for ``metric="accuracy"``) at which the sequence is
        tightest: one number, or one per class (a list in class order, or a mapping / Series
        keyed by label). Default :data:`DEFAULT_TUNED_FOR`. Fix it before the data are seen.
    weights : array_like, optional
        Class weights of the balanced accuracy (default equal).
    empty : {"drop", "keep"}
        A class with no true examples is left out with a warning, or kept (then its accuracy is
        unconstrained and the bounds show it).
    rows, labels
        How to read ``cm`` when it is a plain matrix.

    Returns
    -------
    Interval
        ``method="anytime"``, ``guaranteed=True``; ``per_class`` holds each class's own
        confidence sequence at the same confidence (each valid at every look on its own; for
        reference).

    Raises
    ------
    BaccError
        Invalid confidence, matrix, metric, sides, weights or ``tuned_for``.

    See Also
    --------
    confidence_sequence : the bounds after every label of a stream.
    bacc.exact_interval : exact for a sample size fixed in advance (narrower, but not valid
        under peeking).

    Notes
    -----
    Each class has the mixture martingale of :func:`anytime_bounds`; a new example multiplies
    only its own class's factor, so the product is a martingale of the stream and
    ``{p : prod_i M_i(p_i) < 1 / alpha}`` contains the true class accuracies at every look with
    probability at least ``1 - alpha`` (Ville's inequality). The lower bound is
    ``min sum_i w_i p_i`` over that set, computed by its Lagrange dual (never above the minimum,
    equal to it when the set is convex); the upper bound mirrors it. One-sided bounds use the
    one-sided mixtures (prior truncated to the alternatives on the bounded side).

    References
    ----------
    .. [1] Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform,
       nonparametric, nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080,
       section 3.5.
    .. [2] Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm.
       Annals of Mathematical Statistics 41, 1397-1409.
    .. [3] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124 (the balanced
       accuracy, eq. 12).

    Examples
    --------
    >>> import bacc
    >>> iv = bacc.anytime_interval([[42, 3], [6, 4]])
    >>> iv.method, iv.guaranteed
    ('anytime', True)
    >>> fixed = bacc.exact_interval([[42, 3], [6, 4]])
    >>> iv.lower <= fixed.lower and iv.upper >= fixed.upper
    True
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    if not isinstance(cm, ConfusionMatrix):
        cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    alpha = 1.0 - c
    counts = cm.counts
    k_all, n_all = np.diagonal(counts).astype(float), counts.sum(axis=1).astype(float)
    if metric == "accuracy":
        if tuned_for is not None and not np.isscalar(tuned_for):
            raise BaccError("tuned_for must be one number of examples for metric='accuracy'")
        tuned = check_tuned_for(tuned_for)
        k, n = float(k_all.sum()), float(n_all.sum())
        lo, hi = engine.sequence_bounds(k, n, tuned, alpha, sides)
        est = k / n if n > 0 else math.nan
        lower, upper = float(lo), float(hi)
        if not math.isnan(est):
            lower, upper = min(lower, est), max(upper, est)
        return Interval(lower=lower, upper=upper, estimate=est, confidence=c, sides=sides,
                        method=_METHOD, metric="accuracy", guaranteed=True, per_class=(),
                        per_bound_confidence=None, weights=(), multiplier=math.nan)
    tuned = check_tuned_for(tuned_for, cm.labels)
    inc, w = balanced_classes(cm, weights, empty=empty, stacklevel=2, support=n_all)
    tuned = np.broadcast_to(tuned, k_all.shape)[inc]
    ki, ni = k_all[inc], n_all[inc]
    lower, upper = _weighted(ki[None, :], ni[None, :], tuned[None, :], w, alpha, sides)
    lower, upper = float(lower[0]), float(upper[0])
    estimate = float(np.sum(w * ki / ni)) if ni.all() else math.nan
    if not math.isnan(estimate):
        lower, upper = min(lower, estimate), max(upper, estimate)
    lo_i, hi_i = engine.sequence_bounds(ki, ni, tuned, alpha, sides)
    rows_out = []
    j = 0
    for i, lab in enumerate(cm.labels):
        kk, nn = int(k_all[i]), int(n_all[i])
        if inc[i]:
            lo_c, hi_c = float(lo_i[j]), float(hi_i[j])
            j += 1
        else:
            lo_c, hi_c = 0.0, 1.0
        rows_out.append(ClassInterval(
            label=lab, correct=kk, support=nn, estimate=kk / nn if nn else math.nan,
            lower=lo_c, upper=hi_c, confidence=c, sides=sides, method=_METHOD,
            included=bool(inc[i])))
    return Interval(lower=max(0.0, lower), upper=min(1.0, upper), estimate=estimate,
                    confidence=c, sides=sides, method=_METHOD, metric="balanced_accuracy",
                    guaranteed=True, per_class=tuple(rows_out), per_bound_confidence=None,
                    weights=tuple(w.tolist()), multiplier=math.nan)


@dataclass(frozen=True)
class ConfidenceSequence:
    """The bounds of an anytime-valid confidence sequence after every label of a stream.

    Attributes
    ----------
    n : numpy.ndarray
        Labels seen at each look (1, 2, ..., or the looks asked for).
    lower, upper : numpy.ndarray
        The bounds at each look (with ``running_intersection``, the tightest so far).
    estimate : numpy.ndarray
        The sample accuracy or balanced accuracy at each look (nan until every class has an
        example).
    metric : str
    confidence : float
    sides : str
    tuned_for : tuple of float
        Per class (balanced accuracy) or one number (accuracy); empty for ``"betting"``.
    classes : tuple
        The classes, in order.
    running_intersection : bool
        Whether each look keeps the tightest bounds seen so far (valid, since the whole
        sequence holds at once).
    method : str
        ``"anytime"`` (the mixture) or ``"betting"`` (the hedged capital).
    weights : tuple of float
        Class weights of the balanced accuracy (``(1.0,)`` for the accuracy).
    correct, support : numpy.ndarray
        Correct and total examples of each class at each look (shape looks x classes).
    """

    n: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    estimate: np.ndarray
    metric: str
    confidence: float
    sides: str
    tuned_for: tuple
    classes: tuple
    running_intersection: bool
    method: str = _METHOD
    weights: tuple = field(default=())
    correct: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    support: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def __post_init__(self) -> None:
        for name in ("n", "lower", "upper", "estimate", "correct", "support"):
            arr = np.array(getattr(self, name))
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def final(self) -> Interval:
        """The interval at the last look, as an :class:`bacc.intervals.Interval`."""
        est = float(self.estimate[-1])
        return Interval(lower=float(self.lower[-1]), upper=float(self.upper[-1]), estimate=est,
                        confidence=self.confidence, sides=self.sides, method=self.method,
                        metric=self.metric, guaranteed=True, per_class=(),
                        weights=tuple(self.weights), multiplier=math.nan)

    def __len__(self) -> int:
        return int(self.n.size)

    def to_dict(self) -> dict:
        """JSON-able dictionary (strict JSON: an undefined estimate is None)."""
        def nums(a):
            return [None if not math.isfinite(v) else float(v) for v in a.tolist()]
        return {
            "method": self.method, "metric": self.metric, "confidence": float(self.confidence),
            "sides": self.sides, "tuned_for": [float(t) for t in self.tuned_for],
            "classes": [jsonable(c) for c in self.classes],
            "running_intersection": bool(self.running_intersection),
            "weights": [float(w) for w in self.weights],
            "n": [int(v) for v in self.n.tolist()], "lower": nums(self.lower),
            "upper": nums(self.upper), "estimate": nums(self.estimate),
            "correct": self.correct.astype(int).tolist(),
            "support": self.support.astype(int).tolist(),
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        what = "balanced accuracy" if self.metric == "balanced_accuracy" else "accuracy"
        return (f"<ConfidenceSequence: {what} after {int(self.n[-1])} labels "
                f"{repr_number(float(self.estimate[-1]))} "
                f"{repr_interval(float(self.lower[-1]), float(self.upper[-1]))} "
                f"{repr_level(self.confidence)} at every look>")


def confidence_sequence(
    y_true,
    y_pred,
    *,
    confidence: float = 0.95,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    tuned_for=None,
    weights=None,
    labels=None,
    looks=None,
    times=None,
    running_intersection: bool = True,
    method: str = "anytime",
) -> ConfidenceSequence:
    """The anytime-valid bounds after every label of a stream, in arrival order.

    Parameters
    ----------
    y_true, y_pred : sequence
        True and predicted labels, one per example, in the order the labels arrived.
    confidence : float
        Probability in (0, 1) that the bounds hold at every look at once.
    metric : {"balanced_accuracy", "accuracy"}
    sides : {"two", "lower", "upper"}
    tuned_for : float or per-class option, optional
        As in :func:`anytime_interval`.
    weights : array_like, optional
        Class weights of the balanced accuracy (default equal).
    labels : sequence, optional
        The classes, in order (default: every label seen). A class not yet seen at a look has
        no examples there, and its accuracy is unconstrained.
    looks : array_like of int, optional
        The numbers of labels at which to report (default every label). The running
        intersection is taken over these looks (over every label for ``method="betting"`` with
        one class or ``metric="accuracy"``: valid, and never wider).
    times : sequence, optional
        When each label arrived (numbers, datetimes or date strings), to check the order: the
        sequence is about the labels in the order they came, so times that go back are refused
        (sort the examples by time first).
    running_intersection : bool
        Keep at each look the tightest bounds seen so far (default True): valid, since the
        sequence holds at every look at once.
    method : {"anytime", "betting"}
        ``"anytime"`` (default): each class's beta-binomial mixture, tuned for ``tuned_for``
        examples; it depends only on the counts, so :func:`anytime_interval` gives the same
        bounds from a matrix. ``"betting"``: each class's hedged capital process, whose bets
        adapt to the labels in the order they came (Waudby-Smith & Ramdas 2024; the share of
        the capital at risk may exceed their cap of 1/2 where a fractional Kelly share, Kelly
        1956, is larger, which narrows it near an accuracy of 0 or 1); no tuning,
        narrower than the mixture over the first hundred or so labels of each class and wider
        later. Choose it before the labels are seen (see :ref:`which sequence <anytime-which>`).
        It reads every label, whatever the looks: on a 2-core machine about 25-30 s of CPU per
        million labels for the accuracy and about 2 minutes for the balanced accuracy of two
        classes.

    Returns
    -------
    ConfidenceSequence

    Raises
    ------
    BaccError
        Label sequences of different lengths, empty or with missing values; looks outside
        1..len(y_true) or not increasing; times of another length, missing, or out of order;
        an unknown method, or ``tuned_for`` with ``method="betting"``; and the errors of
        :func:`anytime_interval`.

    See Also
    --------
    anytime_interval : the interval of the counts at one look.

    References
    ----------
    .. [1] Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform,
       nonparametric, nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080
       (section 3.5; running intersections, section 2).
    .. [2] Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables
       by betting. Journal of the Royal Statistical Society, Series B 86, 1-27 (section 4, the
       hedged capital process, eq. 26-27; ``method="betting"``).
    .. [3] Kelly, J. L. (1956). A new interpretation of information rate. Bell System Technical
       Journal 35, 917-926 (the growth-optimal share; ``method="betting"``).

    Examples
    --------
    >>> import bacc
    >>> seq = bacc.confidence_sequence([0, 0, 1, 1, 0, 1] * 20, [0, 0, 1, 0, 0, 1] * 20)
    >>> len(seq), bool(seq.lower[-1] <= seq.estimate[-1] <= seq.upper[-1])
    (120, True)
    >>> bet = bacc.confidence_sequence([0, 0, 1, 1, 0, 1] * 20, [0, 0, 1, 0, 0, 1] * 20,
    ...                                method="betting")
    >>> bet.method, bool(bet.upper[29] - bet.lower[29] < seq.upper[29] - seq.lower[29])
    ('betting', True)
    """
    c = check_confidence(confidence)
    check_metric(metric)
    check_sides(sides)
    if not isinstance(running_intersection, bool | np.bool_):
        raise BaccError(f"running_intersection must be True or False, got "
                        f"{type(running_intersection).__name__}")
    if not isinstance(method, str) or method not in SEQUENCE_METHODS:
        raise BaccError(f"method must be one of {', '.join(map(repr, SEQUENCE_METHODS))}, got "
                        f"{method!r}")
    if method == "betting" and tuned_for is not None:
        raise BaccError("tuned_for is for method='anytime' (the mixture); the betting sequence "
                        "needs no tuning")
    classes, (t, p) = encode({"y_true": y_true, "y_pred": y_pred}, labels=labels)
    total = t.size
    if times is not None:
        _check_order(times, total)
    if looks is None:
        at = np.arange(1, total + 1)
    else:
        try:
            at = np.asarray(unmasked(looks, "looks"))
        except (TypeError, ValueError):
            raise BaccError("looks must be whole numbers of labels, e.g. [100, 200, 500]") from None
        if at.ndim != 1 or at.size == 0 or at.dtype.kind not in "iuf" \
                or not np.all(np.isfinite(at)) or np.any(at != np.round(at)):
            raise BaccError("looks must be whole numbers of labels, e.g. [100, 200, 500]")
        at = at.astype(np.int64)
        if at[0] < 1 or at[-1] > total or np.any(np.diff(at) <= 0):
            raise BaccError(f"looks must increase within 1..{total} (the number of labels)")
    n_classes = len(classes)
    correct = (t == p)
    alpha = 1.0 - c
    onehot = np.zeros((total, n_classes))
    onehot[np.arange(total), t] = 1.0
    n_by_class = np.cumsum(onehot, axis=0)[at - 1]
    k_by_class = np.cumsum(onehot * correct[:, None], axis=0)[at - 1]
    if metric == "accuracy":
        if tuned_for is not None and not np.isscalar(tuned_for):
            raise BaccError("tuned_for must be one number of examples for metric='accuracy'")
        k = np.cumsum(correct)[at - 1].astype(float)
        n = at.astype(float)
        if method == "betting":
            lower, upper = betting.stream_bounds(correct, at, alpha, sides,
                                                 running=bool(running_intersection))
            tuned_out = ()
        else:
            tuned = check_tuned_for(tuned_for)
            lower, upper = engine.sequence_bounds(k, n, tuned, alpha, sides)
            tuned_out = (float(tuned),)
        estimate = k / n
        w = np.ones(1)
    else:
        n, k = n_by_class, k_by_class
        if weights is None:
            w = np.full(n_classes, 1.0 / n_classes)
        else:
            cm = ConfusionMatrix.from_predictions(y_true, y_pred, labels=classes)
            _, w = balanced_classes(cm, weights, empty="keep", warn=False)
        if method == "betting":
            if n_classes == 1:
                lower, upper = betting.stream_bounds(correct, at, alpha, sides,
                                                     running=bool(running_intersection))
            else:
                lower, upper = betting.weighted_stream_bounds(t, correct, at, w, alpha, sides)
            tuned_out = ()
        else:
            tuned = np.broadcast_to(check_tuned_for(tuned_for, classes), (n_classes,))
            tuned_arr = np.asarray(tuned, dtype=float)
            if n_classes == 1:
                lower, upper = engine.sequence_bounds(k[:, 0], n[:, 0], tuned_arr, alpha, sides)
            else:
                lower, upper = engine.weighted_bounds(k, n, np.broadcast_to(tuned_arr, k.shape),
                                                      w, alpha, sides)
            tuned_out = tuple(float(x) for x in tuned)
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = np.where((n > 0).all(axis=1), (w * k / np.maximum(n, 1)).sum(axis=1), np.nan)
    if running_intersection:
        lower = np.maximum.accumulate(lower)
        upper = np.minimum.accumulate(upper)
    # bracket the estimate (rounding) where it is defined
    ok = np.isfinite(estimate)
    lower = np.where(ok, np.minimum(lower, np.where(ok, estimate, 1.0)), lower)
    upper = np.where(ok, np.maximum(upper, np.where(ok, estimate, 0.0)), upper)
    return ConfidenceSequence(
        n=at, lower=lower, upper=upper, estimate=estimate, metric=metric, confidence=c,
        sides=sides, tuned_for=tuned_out, classes=tuple(classes),
        running_intersection=bool(running_intersection), weights=tuple(float(x) for x in w),
        correct=k_by_class, support=n_by_class, method=method)


def _check_order(times, total: int) -> None:
    """Refuse arrival times of the wrong length, missing, or not in order."""
    try:
        import pandas as pd  # optional; parses datetimes and date strings alike
    except ImportError:  # pragma: no cover - pandas is in every extra that has times
        pd = None
    values = times
    if pd is not None and not isinstance(times, np.ndarray):
        import warnings

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # pandas guessing a date format
                values = pd.to_datetime(pd.Series(list(times))) if not all(
                    isinstance(v, int | float | np.number) for v in list(times)) else np.asarray(
                    times, dtype=float)
        except (TypeError, ValueError):
            raise BaccError("times must be numbers, datetimes or dates, one per label") from None
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise BaccError("times must be numbers, datetimes or dates, one per label") from None
    if arr.ndim != 1 or arr.size != total:
        raise BaccError(f"times must give one time per label ({total}), got {arr.size}")
    if arr.dtype.kind == "M":
        bad = np.isnat(arr)
    elif arr.dtype.kind in "iuf":
        bad = ~np.isfinite(arr.astype(float))
    else:
        raise BaccError("times must be numbers, datetimes or dates, one per label")
    if bad.any():
        raise BaccError(f"times has {int(bad.sum())} missing value(s) (the first at position "
                        f"{int(np.flatnonzero(bad)[0])})")
    back = np.flatnonzero(arr[1:] < arr[:-1])
    if back.size:
        raise BaccError(
            f"the labels are out of order: time at position {int(back[0]) + 1} is earlier than "
            "the one before it; a confidence sequence follows the order the labels arrived in, "
            "so sort the examples by time first")


def fixed_n_bounds(seq: ConfidenceSequence, *, method: str = "union"):
    """The exact interval for a fixed sample size, recomputed at every look of a sequence.

    This is what a page refreshed after every label shows when it uses an exact interval: valid
    at any one look fixed in advance, but not at the look someone chose because of what they
    saw. It is here to be put beside the sequence (:func:`bacc.display.plot.plot_sequence`),
    not to be reported under peeking.

    Parameters
    ----------
    seq : ConfidenceSequence
    method : {"union", "sidak"}
        The exact interval of the balanced accuracy (Clopper-Pearson for the accuracy).

    Returns
    -------
    lower, upper : numpy.ndarray
        One pair per look of ``seq``, at its confidence and sides.

    References
    ----------
    .. [1] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024 (the union bound).
    .. [2] Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.

    Examples
    --------
    >>> import bacc
    >>> from bacc.anytime import fixed_n_bounds
    >>> seq = bacc.confidence_sequence([0, 1] * 50, [0, 1, 1, 1] * 25)
    >>> lo, hi = fixed_n_bounds(seq)
    >>> lo.shape == seq.lower.shape and bool((lo <= hi).all())
    True
    """
    from ._engine.bounds.per_class import cp_bounds, per_bound_alpha, tail_level
    from ._engine.helpers.validate import check_choice

    if not isinstance(seq, ConfidenceSequence):
        raise BaccError(f"fixed_n_bounds needs a ConfidenceSequence, got {type(seq).__name__}")
    check_choice(method, ("union", "sidak"), "method")
    k, n = seq.correct.astype(float), seq.support.astype(float)
    if seq.metric == "accuracy":
        return cp_bounds(k.sum(axis=1), n.sum(axis=1), tail_level(seq.confidence, seq.sides),
                         seq.sides)
    w = np.asarray(seq.weights)
    alpha = per_bound_alpha(seq.confidence, k.shape[1], seq.sides, method)
    lo, hi = cp_bounds(k, n, alpha, seq.sides)
    return lo @ w, hi @ w
