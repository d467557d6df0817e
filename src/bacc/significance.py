"""Significance tests: the exact binomial test of the accuracy against chance, and McNemar's
exact test of two classifiers on the same examples.

References
----------
Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced accuracy and
its posterior distribution. Proc. 20th ICPR, 3121-3124 (section II).
McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions
or percentages. Psychometrika 12, 153-157.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from scipy import special as sc

from ._engine.helpers.validate import MAX_COUNT, check_confidence, check_int
from .confusion import as_confusion_matrix, chance_level
from .errors import BaccWarning
from .intervals import exact_interval

__all__ = ["BinomialTest", "McNemarTest", "binomial_test", "mcnemar_exact"]

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
    sample_balanced_accuracy : float
    balanced_lower : float
        Exact one-sided lower confidence bound of the balanced accuracy at ``confidence``.
    balanced_chance : float
        ``1 / l``, ``l`` the classes of the matrix, those without true examples included
        (:func:`bacc.confusion.chance_level`, the one definition).
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
    sample_balanced_accuracy: float
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
            "sample_balanced_accuracy": float(self.sample_balanced_accuracy),
            "balanced_lower": float(self.balanced_lower),
            "balanced_chance": float(self.balanced_chance),
            "balanced_above_chance": bool(self.balanced_above_chance),
            "balanced_method": self.balanced_method,
        }

    def __repr__(self) -> str:
        """One line: the accuracy against chance with its p-value, and the balanced accuracy's
        exact lower bound against chance (``print()`` gives the full table)."""
        from .display.numbers import repr_number
        return (
            f"<BinomialTest: accuracy {repr_number(self.accuracy)} ({self.correct}/{self.total}) "
            f"against chance {self.chance:.3g}, p={self.p_value:.3g}"
            f"{', above' if self.above_chance else ', not above'} chance; balanced accuracy lower "
            f"bound {repr_number(self.balanced_lower)} against {self.balanced_chance:.3g}>"
        )

    def __str__(self) -> str:
        from .display.text import binomial_test_text

        return binomial_test_text(self)

    def _repr_html_(self) -> str:
        from .display.html import binomial_test_html

        return binomial_test_html(self)


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
    *,
    chance: float | None = None,
    confidence: float = 0.95,
    method: str = "union",
    rows: str = "true",
    labels=None,
) -> BinomialTest:
    """Is the classifier above chance? Exact binomial test and exact balanced-accuracy bound.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
    chance : float, optional
        Accuracy of guessing, ``p0`` in (0, 1). Default ``1 / l``, ``l`` the classes of the
        matrix (:func:`bacc.confusion.chance_level`, also the balanced accuracy's chance;
        Brodersen et al. (2010) use ``1/2`` for two classes).
    confidence : float
        ``1 - alpha``.
    method : {"union", "sidak", "buehler"}
        Method of the exact lower bound of the balanced accuracy.

    Returns
    -------
    BinomialTest

    Notes
    -----
    Brodersen et al. (2010), section II: with ``C`` correct out of ``n``, the significance threshold is
    ``F^{-1}(1 - alpha)`` where ``F`` is the CDF of ``Binomial(n, p0)``; ``C > F^{-1}(1 -
    alpha)`` iff ``P(K >= C) <= alpha``. On an imbalanced test set the accuracy can clear this
    threshold by always predicting the majority class (the second flaw named by Brodersen et al. (2010)), which is why the
    exact lower bound of the balanced accuracy is compared with ``1 / l`` as well.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, sections I-II.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, section "Lower confidence
       bounds" and appendix A.

    Examples
    --------
    >>> import bacc
    >>> r = bacc.binomial_test([[40, 10], [15, 35]])  # 75 of 100 correct, chance 1/2
    >>> r.threshold, r.above_chance, r.balanced_above_chance  # P(K >= 59) = 0.044 <= 0.05
    (58, True, True)
    """
    c = check_confidence(confidence)
    cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    b_chance = chance_level(cm)
    if chance is None:
        p0 = b_chance
    else:
        p0 = check_confidence(chance, name="chance")
    alpha = 1.0 - c
    k, n = cm.total_correct, cm.total
    threshold = _binom_quantile(alpha, n, p0)
    p_value = _binom_sf(k - 1, n, p0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaccWarning)
        lower_iv = exact_interval(cm, confidence=c, sides="lower", method=method)
    return BinomialTest(
        correct=k,
        total=n,
        accuracy=k / n,
        chance=p0,
        confidence=c,
        threshold=int(threshold),
        p_value=p_value,
        above_chance=bool(k > threshold),
        sample_balanced_accuracy=lower_iv.estimate,
        balanced_lower=lower_iv.lower,
        balanced_chance=b_chance,
        balanced_above_chance=bool(lower_iv.lower > b_chance),
        balanced_method=method,
    )


@dataclass(frozen=True)
class McNemarTest:
    """Exact McNemar test of equal accuracy for two classifiers on the same examples.

    Under the null hypothesis (equal accuracy) each discordant example (exactly one classifier
    right) is equally likely to favour either, so ``only_a ~ Binomial(only_a + only_b, 1/2)``;
    the two-sided p-value doubles the smaller tail (capped at 1).

    Attributes
    ----------
    only_a, only_b : int
        Examples that only A (only B) classified correctly.
    p_value : float
        Two-sided exact p-value.
    """

    only_a: int
    only_b: int
    p_value: float

    @property
    def discordant(self) -> int:
        """Number of examples on which the classifiers disagree in correctness."""
        return self.only_a + self.only_b

    def __repr__(self) -> str:
        return (f"<McNemarTest: only A right {self.only_a}, only B right {self.only_b}, "
                f"p={self.p_value:.3g} (two-sided, exact)>")

    def __str__(self) -> str:
        from .display.text import mcnemar_text

        return mcnemar_text(self)

    def _repr_html_(self) -> str:
        from .display.html import mcnemar_html

        return mcnemar_html(self)

    def to_dict(self) -> dict:
        """Plain JSON-able dict."""
        return {"only_a": self.only_a, "only_b": self.only_b, "p_value": self.p_value}



def mcnemar_exact(only_a: int, only_b: int) -> McNemarTest:
    """Exact (binomial) McNemar test from the discordant counts.

    ``p = min(1, 2 P(X <= min(only_a, only_b)))`` with ``X ~ Binomial(only_a + only_b, 1/2)``;
    ``p = 1`` when there are no discordant examples.

    Parameters
    ----------
    only_a, only_b : int
        Examples that only classifier A (only B) classified correctly.

    Returns
    -------
    McNemarTest

    Notes
    -----
    McNemar (1947) compares the two discordant counts of a paired 2 x 2 table; this is the exact
    (binomial) form of his test, without the chi-squared approximation.

    References
    ----------
    .. [1] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. Psychometrika 12, 153-157.

    Examples
    --------
    >>> import bacc
    >>> round(bacc.mcnemar_exact(12, 3).p_value, 6)  # 2 * (1 + 15 + 105 + 455) / 2**15
    0.035156
    """
    from scipy import stats

    for name, v in (("only_a", only_a), ("only_b", only_b)):
        check_int(v, name, 0, MAX_COUNT)
    n = int(only_a) + int(only_b)
    if n == 0:
        p = 1.0
    else:
        p = float(min(1.0, 2.0 * stats.binom.cdf(min(only_a, only_b), n, 0.5)))
    return McNemarTest(only_a=int(only_a), only_b=int(only_b), p_value=p)


