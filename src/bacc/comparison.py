"""Compare and rank classifiers by the posterior of their balanced accuracies.

Carrillo et al. (2014), section 4.5, compares two classifiers through the posterior of the difference of their
balanced accuracies, ``delta = lambda_A - lambda_B`` (eq. 14), and ranks several by counting
pairwise wins. The paper approximates ``p(delta)`` with 5 000 Monte Carlo draws and treats
the two posteriors as independent even when both classifiers predicted the same examples. Here:

* :func:`compare` (independent test sets): ``delta`` is a weighted sum of independent Beta
  variables with the second classifier's weights negated, so its distribution, ``P(delta > 0)``
  and its quantiles come from the deterministic engine :class:`bacc.BetaSum`.
* :func:`compare_paired` (one test set): per class the joint outcome of each example (both right,
  only A right, only B right, both wrong) is multinomial, and a Dirichlet posterior over the
  four cells gives the correlated posterior of ``delta`` (:class:`bacc.PairedDifference`,
  also deterministic), with the exact McNemar test as the frequentist counterpart.

Ranking several classifiers is in :mod:`bacc.ranking`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import metrics
from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.validate import (
    check_confidence,
    check_prior,
    check_rope,
    check_sequence,
)
from .confusion import ConfusionMatrix, as_confusion_matrix, balanced_classes, check_label_values
from .distributions import BetaSum, ContinuousDistribution, PairedDifference
from .errors import BaccError
from .evaluation import Evaluation
from .labels import encode
from .posterior import balanced_components
from .significance import McNemarTest, mcnemar_exact

__all__ = [
    "Comparison",
    "compare",
    "compare_paired",
    "compare_paired_counts",
    "dirichlet_from_beta",
    "joint_outcomes",
    "paired_counts",
]



# ----------------------------------------------------------------------------------------------
# results
@dataclass(frozen=True, eq=False)
class Comparison(FrozenArrays):
    """Result of :func:`compare` or :func:`compare_paired`. Frozen; print it or ``to_dict()``.

    Attributes
    ----------
    difference : distribution object
        Posterior of ``delta = lambda_A - lambda_B`` (Carrillo et al. (2014), eq. 14) with the scipy-like
        surface ``pdf, cdf, sf, ppf, isf, mean, var, std, median, mode, interval, rvs``.
    p_better : float
        ``P(lambda_A > lambda_B)`` = ``P(delta > 0)``.
    p_left, p_rope, p_right : float
        ``P(delta < -rope)``, ``P(|delta| <= rope)``, ``P(delta > rope)`` (they sum to 1).
    mean, median, lower, upper : float
        Posterior mean and median of ``delta`` and its central credible interval.
    mean_balanced_accuracy, sample_balanced_accuracy : (float, float)
        Posterior means and sample values of the two balanced accuracies.
    mcnemar : McNemarTest or None
        Exact McNemar test (paired comparisons only).
    """

    names: tuple[str, str]
    paired: bool
    labels: tuple
    confidence: float
    rope: float
    difference: ContinuousDistribution = field(repr=False)
    p_better: float
    p_left: float
    p_rope: float
    p_right: float
    mean: float
    median: float
    lower: float
    upper: float
    sample_difference: float
    mean_balanced_accuracy: tuple[float, float]
    sample_balanced_accuracy: tuple[float, float]
    n_examples: tuple[int, int]
    mcnemar: McNemarTest | None = None

    @property
    def p_worse(self) -> float:
        """``P(lambda_A < lambda_B)`` = ``P(delta < 0)``."""
        return float(self.difference.cdf(0.0))

    def probs(self) -> tuple[float, float, float]:
        """``(p_left, p_rope, p_right)``, as ``baycomp`` reports them."""
        return self.p_left, self.p_rope, self.p_right

    def plot(self, **kwargs):
        """Density of the difference with P(A > B) (see :func:`bacc.display.plot.plot_difference`)."""
        from .display.plot import plot_difference

        return plot_difference(self, **kwargs)

    def to_dict(self) -> dict:
        """Plain JSON-able dict of every number shown by ``print``."""
        return {
            "names": list(self.names),
            "paired": self.paired,
            "labels": [jsonable(x) for x in self.labels],
            "confidence": self.confidence,
            "rope": self.rope,
            "p_better": self.p_better,
            "p_left": self.p_left,
            "p_rope": self.p_rope,
            "p_right": self.p_right,
            "difference": {
                "mean": self.mean,
                "median": self.median,
                "lower": self.lower,
                "upper": self.upper,
                "std": float(self.difference.std()),
            },
            "sample_difference": self.sample_difference,
            "mean_balanced_accuracy": list(self.mean_balanced_accuracy),
            "sample_balanced_accuracy": list(self.sample_balanced_accuracy),
            "n_examples": list(self.n_examples),
            "mcnemar": None if self.mcnemar is None else self.mcnemar.to_dict(),
        }

    def __repr__(self) -> str:
        """One line: the difference's posterior mean and credible interval, P(A > B), the model
        and the examples (``print()`` gives the full table)."""
        from .display.numbers import repr_interval, repr_level, repr_number, repr_probability
        a, b = self.names
        n = (f"n={self.n_examples[0]}" if self.paired or self.n_examples[0] == self.n_examples[1]
             else f"n={self.n_examples[0]} and {self.n_examples[1]}")
        return (
            f"<Comparison: {a} - {b} = {repr_number(self.mean)} "
            f"{repr_interval(self.lower, self.upper)} {repr_level(self.confidence)} credible, "
            f"P({a} > {b}){repr_probability(self.p_better)}, "
            f"{'paired' if self.paired else 'independent'}, {n}>"
        )

    def __str__(self) -> str:
        from .display.text import comparison_text

        return comparison_text(self)

    def _repr_html_(self) -> str:
        from .display.html import comparison_html

        return comparison_html(self)


# ----------------------------------------------------------------------------------------------
# helpers
def _series_names(*cols) -> tuple[str, ...]:
    """The names of named, distinct pandas Series (or other objects with a ``name``, such as
    an :class:`~bacc.Evaluation` given one), else ``A, B, ...``."""
    names = [getattr(c, "name", None) for c in cols]
    if all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names):
        return tuple(names)
    return tuple(chr(ord("A") + i) for i in range(len(cols)))


def check_names(names, n: int, default: Sequence[str]) -> tuple:
    if names is None:
        return tuple(default)
    if isinstance(names, str | bytes):
        raise BaccError("names must be a sequence of names, not a single string")
    out = check_sequence(names, "names")
    if len(out) != n:
        raise BaccError(f"names must have {n} entries, got {len(out)}")
    if len(set(map(str, out))) != n:
        raise BaccError("names must be distinct")
    return out


class ClassifierPosterior:
    """Beta components of one classifier's balanced accuracy, and what is shown about it."""

    def __init__(
        self, obj, *, prior, weights, rows: str, what: str, stacklevel: int = 4
    ) -> None:
        if isinstance(obj, Evaluation):
            if prior is not None or weights is not None:
                raise BaccError(
                    f"{what} is an Evaluation, which carries its own prior and weights; "
                    "pass prior= and weights= to bacc.evaluate, or pass confusion matrices"
                )
            post = obj.balanced_accuracy
            self.cm = obj.confusion
            self.sample = float(obj.sample_balanced_accuracy)
            self.a, self.b, self.w = post.components
            self.labels = tuple(post.labels)
            self.prior_a, self.prior_b = obj.prior_a, obj.prior_b
        else:
            try:
                self.cm = as_confusion_matrix(obj, rows=rows)
            except BaccError as exc:
                raise BaccError(f"{what}: {exc}") from None
            pri = (1.0, 1.0) if prior is None else prior
            self.a, self.b, self.w, self.labels = balanced_components(
                self.cm, pri, weights, stacklevel=stacklevel
            )
            self.prior_a, self.prior_b = check_prior(pri, self.cm.n_classes, classes=self.cm.labels)
            self.sample = float(metrics.balanced_accuracy(self.cm, weights=weights))
        self.mean = float(np.sum(self.w * self.a / (self.a + self.b)))


def same_classes(
    pa: ClassifierPosterior, pb: ClassifierPosterior, na: str, nb: str, *, included: bool = True
) -> None:
    """Both matrices have the same classes; with ``included``, also the same classes with true
    examples (a class left out of one balanced accuracy but not the other would make them
    averages over different classes)."""
    la, lb = pa.cm.labels, pb.cm.labels
    if len(la) != len(lb):
        raise BaccError(
            f"classifier {na} has {len(la)} classes and classifier {nb} has {len(lb)}; "
            "balanced accuracies are comparable only over the same classes"
        )
    if la != lb:
        raise BaccError(
            f"classifier {na} has classes {list(la)!r} and classifier {nb} has {list(lb)!r}; "
            "both must be evaluated on the same classes (in the same order)"
        )
    ia, ib = tuple(pa.labels), tuple(pb.labels)
    if included and ia != ib:
        # a class without true examples is left out of one balanced accuracy but not of the
        # other: they would average different classes
        only = [x for x in la if (x in ia) != (x in ib)]
        raise BaccError(
            f"class {only[0]!r} has true examples for classifier "
            f"{na if only[0] in ia else nb} but none for {nb if only[0] in ia else na}, so "
            "their balanced accuracies average different classes; compare them on test sets "
            "with the same classes"
        )


def _summaries(diff: ContinuousDistribution, rope: float, confidence: float) -> dict:
    lo, med, hi = (float(v) for v in diff.ppf([(1 - confidence) / 2, 0.5, (1 + confidence) / 2]))
    if rope > 0:
        p_left = float(diff.cdf(-rope))
        p_right = float(diff.sf(rope))
        p_better = float(diff.sf(0.0))
    else:
        # one look-up of the smaller tail; the larger one (>= 1/2) is its complement, exact
        # to rounding
        p_right = p_better = float(diff.sf(0.0))
        p_left = float(diff.cdf(0.0)) if p_right > 0.5 else 1.0 - p_right
    # a single point (rope = 0) has probability 0 under a continuous posterior
    p_rope = max(0.0, 1.0 - p_left - p_right) if rope > 0 else 0.0
    return {
        "p_better": p_better,
        "p_left": p_left,
        "p_rope": p_rope,
        "p_right": p_right,
        "mean": float(diff.mean()),
        "median": med,
        "lower": lo,
        "upper": hi,
    }


def independent_difference(pa, pb) -> BetaSum:
    """``lambda_A - lambda_B`` for independent posteriors: a Beta sum with B's weights negated."""
    return BetaSum(np.r_[pa.a, pb.a], np.r_[pa.b, pb.b], np.r_[pa.w, -pb.w])


# ----------------------------------------------------------------------------------------------
# public functions
def compare(
    a,
    b,
    *,
    rope: float = 0.0,
    confidence: float = 0.95,
    prior=None,
    weights=None,
    rows: str = "true",
    names: Sequence[str] | None = None,
) -> Comparison:
    """Compare two classifiers evaluated on independent test sets.

    Parameters
    ----------
    a, b : ConfusionMatrix, array_like of shape (l, l), or Evaluation
        The two classifiers' results, over the same classes. Matrices have the true class in
        rows unless ``rows="predicted"``.
    rope : float, optional
        Half-width ``epsilon`` of the region of practical equivalence: the result also gives
        ``P(delta < -epsilon)``, ``P(|delta| <= epsilon)`` and ``P(delta > epsilon)``.
    confidence : float, optional
        Mass of the central credible interval of ``delta`` (default 0.95).
    prior : (float, float) or per-class pairs or {"flat", "jeffreys"}, optional
        Beta prior of each class accuracy for matrix inputs (default flat ``(1, 1)``). An
        :class:`~bacc.Evaluation` carries its own prior and weights.
    weights : array_like, optional
        Class weights of the balanced accuracy (matrix inputs; default ``1/l``).
    rows : {"true", "predicted"}
        Orientation of matrix inputs.
    names : (str, str), optional
        Names used in the printed table (default: the names the two results carry, as
        ``Evaluation.name``, when both have distinct ones; else ``("A", "B")``).

    Returns
    -------
    Comparison
        ``difference`` (the posterior distribution of ``delta``), ``p_better``,
        ``p_left/p_rope/p_right``, mean, median and central interval of ``delta``.

    Raises
    ------
    BaccError
        Different numbers of classes or different labels, ``rope < 0``, invalid matrices.

    See Also
    --------
    compare_paired : both classifiers tested on the same examples.
    rank : several classifiers.

    Notes
    -----
    Carrillo et al. (2014), eq. 14: ``delta = lambda_A - lambda_B`` with ``lambda = sum_i w_i theta_i`` and
    independent ``theta_i ~ Beta(k_i + a, n_i - k_i + b)`` (eqs. 8 and 12). For independent
    test sets ``delta = sum_i w_i theta^A_i - sum_j w_j theta^B_j`` is a weighted sum of
    independent Beta variables with negative weights on B, so its distribution is a
    :class:`bacc.BetaSum` of all ``2 l`` components, and ``P(lambda_A > lambda_B)`` is its upper
    tail at 0 (equal to ``int f_A(x) F_B(x) dx``), computed deterministically by the engine, not
    by the paper's Monte Carlo sampling.

    If both classifiers predicted the same examples their posteriors are correlated; use
    :func:`compare_paired`, which accounts for it.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.5, eqs. 8, 12 and 14.
    .. [2] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III, eq. 7.

    Examples
    --------
    >>> import bacc
    >>> c = bacc.compare([[42, 3], [6, 4]], [[40, 5], [8, 2]], rope=0.01)
    >>> round(c.p_better, 4)  # P(lambda_A > lambda_B)
    0.8599
    >>> round(c.p_left + c.p_rope + c.p_right, 12)
    1.0
    """
    c = check_confidence(confidence)
    r = check_rope(rope)
    nm = check_names(names, 2, _series_names(a, b))
    pa = ClassifierPosterior(a, prior=prior, weights=weights, rows=rows, what=f"classifier {nm[0]}")
    pb = ClassifierPosterior(b, prior=prior, weights=weights, rows=rows, what=f"classifier {nm[1]}")
    same_classes(pa, pb, nm[0], nm[1])
    diff = independent_difference(pa, pb)
    labels = tuple(x for x in pa.cm.labels if x in set(pa.labels) | set(pb.labels))
    return Comparison(
        names=(str(nm[0]), str(nm[1])),
        paired=False,
        labels=labels,
        confidence=c,
        rope=r,
        difference=diff,
        sample_difference=pa.sample - pb.sample,
        mean_balanced_accuracy=(pa.mean, pb.mean),
        sample_balanced_accuracy=(pa.sample, pb.sample),
        n_examples=(pa.cm.total, pb.cm.total),
        mcnemar=None,
        **_summaries(diff, r, c),
    )


def dirichlet_from_beta(prior) -> float:
    """The symmetric Dirichlet concentration of the paired model whose marginals are ``Beta(a, a)``.

    In :func:`compare_paired` each class accuracy is the sum of two of the four cells (both right
    plus only-A right, or both right plus only-B right), so a concentration ``c`` per cell gives
    each classifier the marginal posterior ``Beta(k + 2c, n - k + 2c)``: the flat prior
    ``Beta(1, 1)`` is ``c = 1/2``, Jeffreys' ``Beta(1/2, 1/2)`` is ``c = 1/4``.

    Parameters
    ----------
    prior : {"flat", "jeffreys"} or (float, float)
        A symmetric Beta prior ``(a, a)``, the same for every class.

    Returns
    -------
    float
        ``a / 2``.

    Raises
    ------
    BaccError
        An asymmetric prior or one that differs between classes: no Dirichlet over the four
        cells has such marginals for both classifiers.

    Examples
    --------
    >>> from bacc.comparison import dirichlet_from_beta
    >>> dirichlet_from_beta("flat"), dirichlet_from_beta("jeffreys"), dirichlet_from_beta((2, 2))
    (0.5, 0.25, 1.0)
    """
    if isinstance(prior, list) and prior and isinstance(prior[0], (tuple, list)):
        raise BaccError(
            "the paired comparison takes one symmetric prior for all classes (flat, jeffreys or "
            f"(a, a)); got a prior per class: {prior!r}"
        )
    a, b = check_prior(prior, 1)
    if a[0] != b[0]:
        raise BaccError(
            "the paired comparison takes a symmetric Beta prior (a, a) (flat, jeffreys or "
            f"(a, a)); got ({a[0]:g}, {b[0]:g})"
        )
    return float(a[0]) / 2.0


def check_dirichlet_prior(prior) -> np.ndarray:
    if isinstance(prior, str):
        prior = dirichlet_from_beta(prior)
    try:
        arr = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(
            "prior must be 'flat', 'jeffreys', a positive number or 4 positive numbers, "
            f"got {prior!r}"
        ) from None
    if arr.shape == ():
        arr = np.full(4, float(arr))
    if arr.shape != (4,):
        raise BaccError(
            "prior must be one Dirichlet concentration (used for all four cells) or four, "
            f"ordered (both right, only A right, only B right, both wrong); got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise BaccError(f"prior concentrations must be finite and > 0, got {prior!r}")
    return arr


def paired_counts(y_true, y_pred_a, y_pred_b, *, labels=None):
    """Per-class counts of the four joint outcomes, and the two confusion matrices.

    Returns ``(counts, cm_a, cm_b)`` where ``counts[i] = (both right, only A right, only B
    right, both wrong)`` over the examples of true class ``labels[i]``.
    """
    try:
        classes, (ti, ai, bi) = encode(
            {"y_true": y_true, "y_pred_a": y_pred_a, "y_pred_b": y_pred_b}, labels=labels,
            refuse=lambda seqs: (check_label_values(seqs["y_true"], seqs["y_pred_a"]),
                                 check_label_values(seqs["y_true"], seqs["y_pred_b"])),
        )
    except BaccError as exc:
        if "same length" in str(exc):
            raise BaccError(f"{exc}; a paired comparison needs both classifiers' predictions "
                            "of the same examples") from None
        raise
    return joint_outcomes(classes, ti, ai, bi)


def _tally(index: np.ndarray, size: int, n: np.ndarray | None) -> np.ndarray:
    """How often each index occurs (``n[e]`` times for entry ``e`` when counts are given)."""
    if n is None:
        return np.bincount(index, minlength=size)
    return np.bincount(index, weights=n, minlength=size).round().astype(np.int64)


def joint_outcomes(classes, ti, ai, bi, n=None):
    """Per-class counts of the four joint outcomes, and the two confusion matrices, from class
    indices.

    Parameters
    ----------
    classes : tuple
        The classes, in order.
    ti, ai, bi : ndarray of int
        Class index of the true label and of the two predictions, one entry per example, or
        per distinct (true, A, B) triple when ``n`` is given.
    n : ndarray of int, optional
        How many examples each entry stands for (a table of counted triples, as
        :func:`bacc.counting.joint.joint_counts` gives); default one each.

    Returns
    -------
    (counts, cm_a, cm_b)
        As :func:`paired_counts`.
    """
    m = len(classes)
    cm_a = ConfusionMatrix(_tally(ti * m + ai, m * m, n).reshape(m, m), classes)
    cm_b = ConfusionMatrix(_tally(ti * m + bi, m * m, n).reshape(m, m), classes)
    ra = ai == ti
    rb = bi == ti
    cell = np.where(ra & rb, 0, np.where(ra, 1, np.where(rb, 2, 3)))
    counts = _tally(ti * 4 + cell, 4 * m, n).reshape(-1, 4)
    return counts, cm_a, cm_b


def compare_paired(
    y_true,
    y_pred_a,
    y_pred_b,
    *,
    rope: float = 0.0,
    confidence: float = 0.95,
    prior=0.5,
    labels=None,
    weights=None,
    names: Sequence[str] | None = None,
) -> Comparison:
    """Compare two classifiers that predicted the same test examples.

    Parameters
    ----------
    y_true : sequence
        True labels.
    y_pred_a, y_pred_b : sequence
        Predictions of the two classifiers, one per example (same length as ``y_true``).
    rope : float, optional
        Half-width of the region of practical equivalence (see :func:`compare`).
    confidence : float, optional
        Mass of the central credible interval of ``delta``.
    prior : float, 4 floats, or {"flat", "jeffreys"}, optional
        Dirichlet concentration of each cell (both right, only A right, only B right, both
        wrong); ``"flat"`` and ``"jeffreys"`` name the concentration whose marginals are that
        Beta prior (see :func:`dirichlet_from_beta`). The default ``0.5`` makes each classifier's marginal posterior of a class
        accuracy ``Beta(k + 1, n - k + 1)``, exactly the flat-prior posterior of
        :func:`bacc.evaluate` and :func:`compare`, so the paired and independent analyses
        differ only by the correlation.
    labels : sequence, optional
        Class order (and classes never seen).
    weights : array_like, optional
        Class weights of the balanced accuracy (default ``1/l``).
    names : (str, str), optional
        Names used in the printed table (default: the names of the two prediction sequences
        when they are named pandas Series, else ``("A", "B")``).

    Returns
    -------
    Comparison
        As :func:`compare`, with ``paired=True``, the ``difference`` distribution of the
        Dirichlet model and the exact McNemar test (``mcnemar``).

    Raises
    ------
    BaccError
        Inputs of different lengths, labels outside ``labels``, ``rope < 0``.

    Notes
    -----
    In class ``i`` the cells ``(11, 10, 01, 00)`` (both right, only A, only B, both wrong) of
    the ``n_i`` examples are multinomial with probabilities ``p_i ~ Dirichlet(n_i + prior)``
    a posteriori. Then ``theta^A_i = p11 + p10``, ``theta^B_i = p11 + p01`` and
    ``delta = sum_i w_i (p10_i - p01_i)`` (Carrillo et al. (2014), eq. 14, with the correlation of the two
    posteriors). Writing ``S = p10 + p01 ~ Beta(a10 + a01, a11 + a00)`` and
    ``U = p10 / S ~ Beta(a10, a01)`` (independent), each class contributes
    ``S (2 U - 1)``; the distribution of ``delta`` is computed deterministically (see
    :class:`bacc.PairedDifference`). Classes without true examples are left out with a warning.

    The exact McNemar test is the two-sided binomial test of the discordant pairs pooled over
    all examples (McNemar 1947); it tests equal *accuracy*, the frequentist counterpart of
    ``P(delta > 0)`` for balanced classes.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.5, eq. 14.
    .. [2] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. Psychometrika 12, 153-157.

    Examples
    --------
    >>> import bacc
    >>> y = [0] * 30 + [1] * 30
    >>> a = [0] * 27 + [1] * 3 + [1] * 26 + [0] * 4
    >>> b = [0] * 25 + [1] * 5 + [1] * 24 + [0] * 6
    >>> c = bacc.compare_paired(y, a, b)
    >>> round(c.p_better, 3), c.mcnemar.only_a, c.mcnemar.only_b  # A is right on 4 more
    (0.969, 4, 0)
    """
    c = check_confidence(confidence)
    r = check_rope(rope)
    nm = check_names(names, 2, _series_names(y_pred_a, y_pred_b))
    pri = check_dirichlet_prior(prior)
    counts, cm_a, cm_b = paired_counts(y_true, y_pred_a, y_pred_b, labels=labels)
    return _paired_comparison(counts, cm_a, cm_b, r, c, pri, weights, nm, stacklevel=3)


def compare_paired_counts(
    classes,
    codes,
    n,
    *,
    rope: float = 0.0,
    confidence: float = 0.95,
    prior=0.5,
    weights=None,
    names: Sequence[str] = ("A", "B"),
) -> Comparison:
    """:func:`compare_paired` from counted examples: the distinct (true, A, B) triples and how
    many examples show each (what :func:`bacc.counting.joint.joint_counts` counts where the
    data live).

    Parameters
    ----------
    classes : sequence
        The classes, in order.
    codes : array_like of int, shape (m, 3)
        Class index of the true label, A's prediction and B's prediction of each triple.
    n : array_like of int, shape (m,)
        Examples of each triple.
    rope, confidence, prior, weights, names
        As in :func:`compare_paired`.

    Returns
    -------
    Comparison
        The same result as :func:`compare_paired` on the examples written out one by one.

    Examples
    --------
    >>> import bacc
    >>> from bacc.comparison import compare_paired_counts
    >>> c = compare_paired_counts((0, 1), [[0, 0, 0], [0, 0, 1], [1, 1, 1], [1, 0, 1]],
    ...                           [25, 5, 24, 6])
    >>> y = [0] * 30 + [1] * 30
    >>> b = bacc.compare_paired(y, [0] * 30 + [1] * 24 + [0] * 6, [0] * 25 + [1] * 5 + [1] * 30)
    >>> abs(c.p_better - b.p_better) < 1e-12
    True
    """
    c = check_confidence(confidence)
    r = check_rope(rope)
    nm = check_names(names, 2, ("A", "B"))
    pri = check_dirichlet_prior(prior)
    codes = np.asarray(codes, dtype=np.int64).reshape(-1, 3)
    n = np.asarray(n, dtype=np.int64).reshape(-1)
    counts, cm_a, cm_b = joint_outcomes(tuple(classes), codes[:, 0], codes[:, 1], codes[:, 2], n)
    return _paired_comparison(counts, cm_a, cm_b, r, c, pri, weights, nm, stacklevel=3)


def _paired_comparison(counts, cm_a, cm_b, r, c, pri, weights, nm, *, stacklevel: int) -> Comparison:
    """The paired comparison of the per-class joint outcome ``counts`` (:func:`compare_paired`)."""
    keep, w = balanced_classes(cm_a, weights, empty="drop", stacklevel=stacklevel)
    idx = np.flatnonzero(keep)[w > 0]
    w = w[w > 0]
    alpha = counts[idx].astype(float) + pri
    diff = PairedDifference(alpha, w)
    a0 = alpha.sum(axis=1)
    mean_a = float(np.sum(w * (alpha[:, 0] + alpha[:, 1]) / a0))
    mean_b = float(np.sum(w * (alpha[:, 0] + alpha[:, 2]) / a0))
    n = counts[idx].sum(axis=1)
    samp_a = float(np.sum(w * (counts[idx, 0] + counts[idx, 1]) / n))
    samp_b = float(np.sum(w * (counts[idx, 0] + counts[idx, 2]) / n))
    total = counts.sum(axis=0)
    test = mcnemar_exact(int(total[1]), int(total[2]))
    return Comparison(
        names=(str(nm[0]), str(nm[1])),
        paired=True,
        labels=tuple(cm_a.labels[i] for i in idx),
        confidence=c,
        rope=r,
        difference=diff,
        sample_difference=samp_a - samp_b,
        mean_balanced_accuracy=(mean_a, mean_b),
        sample_balanced_accuracy=(samp_a, samp_b),
        n_examples=(cm_a.total, cm_b.total),
        mcnemar=test,
        **_summaries(diff, r, c),
    )
