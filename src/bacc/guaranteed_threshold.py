"""Thresholds with a guarantee: recall at least r, false-positive rate at most f, or precision at
a deployment prevalence at least p, each with confidence ``1 - alpha``.

A threshold read off a test set's ROC curve at "recall 0.95" has recall 0.95 on that test set
and, for the next examples, about half the time less. :func:`threshold_for` returns the threshold
whose recall (or false-positive rate) meets the goal with probability at least the confidence,
for every distribution of scores: the threshold is an order statistic of one class's scores, and
the share of that class below an order statistic has a known Beta distribution whatever the
scores' distribution (Wilks 1941; David & Nagaraja 2003, section 7.2). The other class's rate at
that threshold is then estimated honestly from examples that did not choose it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._engine.bounds.order_statistics import fpr_threshold, precision_threshold, recall_threshold
from ._engine.bounds.per_class import cp_bounds
from ._engine.helpers.convert import jsonable
from ._engine.helpers.validate import check_confidence
from .errors import BaccError
from .prevalence import check_prevalence

__all__ = ["threshold_for", "check_goal", "GuaranteedThreshold", "TARGETS"]

#: The goals :func:`threshold_for` can guarantee.
TARGETS = ("recall", "fpr", "precision")


@dataclass(frozen=True)
class GuaranteedThreshold:
    """A threshold with a guarantee (see :func:`bacc.guaranteed_threshold.threshold_for`).

    Attributes
    ----------
    threshold : float
        ``score >= threshold`` predicts the positive class. ``-inf``: every example is predicted
        positive (no order statistic of so few positives guarantees the recall); ``+inf``: none
        is (the false-positive rate or precision cannot be guaranteed with these examples).
    target : {"recall", "fpr", "precision"}
    goal : float
        The promised recall (at least), false-positive rate (at most) or precision (at least).
    confidence : float
        The probability, over test sets, that the promise holds for the population.
    achieved : bool
        False when no threshold other than the trivial one (``-inf`` or ``+inf``) can keep the
        promise with this many examples.
    order : int
        The order statistic used (``k``-th smallest score of the class that sets the threshold);
        0 when none.
    prevalence : float
        The deployment prevalence of the positive class used for the alarm rate and precision
        (the test set's unless given).
    sample_recall, sample_fpr : float
        The rates of the decisions on this test set.
    recall, recall_lower, recall_upper : float
        The recall at the threshold: for a recall target, its expected value over test sets and
        the guarantee as lower end; otherwise the flat-prior posterior mean and the exact
        (Clopper-Pearson) interval from the positives, which did not choose the threshold.
    fpr, fpr_lower, fpr_upper : float
        The false-positive rate likewise.
    alarm_rate : float
        The expected share of examples predicted positive at ``prevalence``:
        ``prevalence * recall + (1 - prevalence) * fpr``.
    precision : float
        The precision at ``prevalence`` from ``recall`` and ``fpr`` (NaN when nothing alarms).
    n_positive, n_negative : int
    positive : object
    """

    threshold: float
    target: str
    goal: float
    confidence: float
    achieved: bool
    order: int
    prevalence: float
    sample_recall: float
    sample_fpr: float
    recall: float
    recall_lower: float
    recall_upper: float
    fpr: float
    fpr_lower: float
    fpr_upper: float
    alarm_rate: float
    precision: float
    n_positive: int
    n_negative: int
    positive: object

    @property
    def statement(self) -> str:
        """The guarantee in one sentence."""
        what = {"recall": f"recall >= {self.goal:g}", "fpr": f"false-positive rate <= {self.goal:g}",
                "precision": f"precision >= {self.goal:g} at prevalence {self.prevalence:g}"}
        if not self.achieved:
            return (f"no threshold guarantees {what[self.target]} with confidence "
                    f"{self.confidence:g} from {self.n_positive} positive and {self.n_negative} "
                    "negative examples")
        return (f"score >= {self.threshold:.6g} gives {what[self.target]} with probability at "
                f"least {self.confidence:g}")

    def to_dict(self) -> dict:
        """Plain dict (strict JSON; infinite thresholds and NaN as null)."""
        out = {}
        for k, v in vars(self).items():
            out[k] = None if isinstance(v, float) and not math.isfinite(v) else jsonable(v)
        return {**out, "statement": self.statement}

    def __repr__(self) -> str:
        return (f"<GuaranteedThreshold: {self.statement}; expected alarm rate "
                f"{self.alarm_rate:.4g}>")

    def _repr_html_(self) -> str:
        from .display.scores_html import guaranteed_threshold_html

        return guaranteed_threshold_html(self)

    def __str__(self) -> str:
        from .display.scores_text import guaranteed_threshold_text

        return guaranteed_threshold_text(self)


def check_goal(value, name: str, *, closed_high: bool) -> float:
    """A rate goal in (0, 1] (``closed_high``: recall, precision) or [0, 1) (the false-positive
    rate), or a BaccError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise BaccError(f"{name} must be a number between 0 and 1, got {value!r}")
    v = float(value)
    ok = 0.0 < v <= 1.0 if closed_high else 0.0 <= v < 1.0
    if not ok:
        rng = "in (0, 1]" if closed_high else "in [0, 1)"
        raise BaccError(f"{name} must lie {rng}, got {value!r}")
    return v


def _cp(k: int, n: int, c: float) -> tuple[float, float]:
    lo, hi = cp_bounds(np.array([k]), np.array([n]), (1 - c) / 2, "two")
    return float(lo[0]), float(hi[0])


def _precision(pi: float, rec: float, fpr: float) -> float:
    den = pi * rec + (1 - pi) * fpr
    return pi * rec / den if den > 0 else math.nan


def threshold_for(curve, *, recall: float | None = None, fpr: float | None = None,
                  precision: float | None = None, prevalence: float | None = None,
                  confidence: float = 0.95) -> GuaranteedThreshold:
    """The threshold that keeps a promise with confidence, for every score distribution.

    Parameters
    ----------
    curve : ScoreCurve
        The tallied scores of a calibration (test) set (:func:`bacc.scores`).
    recall : float, optional
        Promise recall (sensitivity) at least ``recall`` in the population: the highest threshold
        that does, from the positives alone.
    fpr : float, optional
        Promise a false-positive rate at most ``fpr``: the lowest threshold that does, from the
        negatives alone.
    precision : float, optional
        Promise precision at least ``precision`` at the deployment ``prevalence``: the lowest
        threshold whose simultaneous bounds of recall and false-positive rate give it (Notes).
    prevalence : float, optional
        Share of positives where the classifier is deployed (default: the test set's), for the
        alarm rate and the precision.
    confidence : float
        Probability that the promise holds (default 0.95).

    Returns
    -------
    GuaranteedThreshold

    Notes
    -----
    Recall: with ``X_(1) <= ... <= X_(n)`` the positives' scores and ``t = X_(k)``, the recall
    ``P(S >= t)`` is at least ``r`` unless ``F(X_(k)-) > 1 - r``, which for continuous scores has
    probability ``P(Binom(n, 1 - r) < k)``; ``k`` is the largest with ``P(Binom(n, 1 - r) >= k)
    >= confidence``. With ties the recall can only be higher. The false-positive rate likewise
    from the negatives' order statistics. Since one class chooses the threshold, the other
    class's rate there is estimated from examples that did not see the choice: its flat-prior
    posterior mean and exact interval. Precision ``pi R / (pi R + (1 - pi) F)`` depends on
    both. Twenty thresholds are set by the positives alone (their ranks at recalls of about
    1/20, 2/20, ..., 1); at each, the recall is bounded below by its rank (exact, as above) and
    the false-positive rate above by Clopper-Pearson from the negatives (given the positives,
    those thresholds are fixed and the negatives above one are binomial); the 40 bounds share
    ``1 - confidence`` (Bonferroni), and the lowest threshold whose bounds give the precision is
    returned: Learn then Test (Angelopoulos et al. 2021), valid for every score distribution
    (:func:`bacc._engine.bounds.order_statistics.precision_threshold`).

    References
    ----------
    .. [1] Wilks, S. S. (1941). Determination of sample sizes for setting tolerance limits.
       Annals of Mathematical Statistics 12, 91-96.
    .. [2] David, H. A. & Nagaraja, H. N. (2003). Order Statistics, 3rd ed. Wiley, section 7.2.
    .. [3] Bates, S., Angelopoulos, A., Lei, L., Malik, J. & Jordan, M. I. (2021).
       Distribution-free, risk-controlling prediction sets. Journal of the ACM 68(6), 43.
    .. [4] Angelopoulos, A. N., Bates, S., Candès, E. J., Jordan, M. I. & Lei, L. (2021). Learn
       then test: calibrating predictive algorithms to achieve risk control. arXiv:2110.01052.
    .. [5] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.

    Examples
    --------
    >>> import numpy as np, bacc
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], [500, 100])
    >>> sc = bacc.scores(y, rng.normal(2.0 * y, 1.0))
    >>> g = sc.threshold_for(recall=0.9, confidence=0.95)
    >>> g.order, g.achieved  # the 5th smallest positive score: P(Binom(100, .1) >= 5) >= .95
    (5, True)
    """
    given = {k: v for k, v in (("recall", recall), ("fpr", fpr), ("precision", precision))
             if v is not None}
    if len(given) != 1:
        raise BaccError("give exactly one goal: recall=, fpr= or precision= (got "
                        f"{', '.join(given) or 'none'})")
    (target, value), = given.items()
    c = check_confidence(confidence)
    P, N = curve.n_positive, curve.n_negative
    pi = P / (P + N) if prevalence is None else check_prevalence(prevalence)
    if target == "recall":
        goal = check_goal(value, "recall", closed_high=True)
    elif target == "fpr":
        goal = check_goal(value, "fpr", closed_high=False)
    else:
        goal = check_goal(value, "precision", closed_high=True)
        if goal == 1.0:
            raise BaccError("precision must lie in (0, 1): a precision of 1 cannot be guaranteed "
                            "from a sample")
    values = np.asarray(curve.values)
    if target == "recall":
        t, k = recall_threshold(values, goal, c, counts=curve.positives)
        achieved = k > 0
    elif target == "fpr":
        t, k = fpr_threshold(values, goal, c, counts=curve.negatives)
        achieved = math.isfinite(t)
    else:
        t, k = precision_threshold(curve.thresholds, curve.tp, curve.fp, goal, pi, c)
        achieved = math.isfinite(t)
    j = int(np.searchsorted(-curve.thresholds, -t, side="right")) - 1
    tp, fp = int(curve.tp[j]), int(curve.fp[j])
    s_rec, s_fpr = tp / P, fp / N
    if target == "recall" and achieved:
        # the recall at the k-th smallest positive score: Beta(n - k + 1, k) for continuous scores
        rec, rec_lo, rec_hi = (P - k + 1) / (P + 1), goal, 1.0
    else:
        rec = (tp + 1) / (P + 2)
        rec_lo, rec_hi = _cp(tp, P, c)
    if target == "fpr" and achieved:
        n_above = N - k
        f_mean = (n_above + 1) / (N + 1)
        f_lo, f_hi = 0.0, goal
    else:
        f_mean = (fp + 1) / (N + 2)
        f_lo, f_hi = _cp(fp, N, c)
    if not math.isfinite(t):  # nothing alarms (+inf) or everything does (-inf): rates known
        rec = f_mean = 0.0 if t > 0 else 1.0
        rec_lo = rec_hi = f_lo = f_hi = rec
    alarm = pi * rec + (1 - pi) * f_mean
    return GuaranteedThreshold(
        threshold=float(t), target=target, goal=goal, confidence=c, achieved=bool(achieved),
        order=int(k) if achieved else 0, prevalence=pi, sample_recall=s_rec, sample_fpr=s_fpr,
        recall=float(rec), recall_lower=float(rec_lo), recall_upper=float(rec_hi),
        fpr=float(f_mean), fpr_lower=float(f_lo), fpr_upper=float(f_hi),
        alarm_rate=float(alarm), precision=float(_precision(pi, rec, f_mean)),
        n_positive=P, n_negative=N, positive=curve.positive,
    )
