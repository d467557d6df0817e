"""Posterior distributions of the accuracy and the balanced accuracy.

Under a Beta prior the posterior of a proportion is Beta (Brodersen et al. (2010), eqs. 1-6; Carrillo et al. (2014)
eqs. 7-11): ``theta ~ Beta(k + a, n - k + b)``. The balanced accuracy is the (weighted) average
of the class accuracies (Carrillo et al. (2014), eq. 12; the cost-weighted form of Brodersen et al. (2010), ``c, 1 - c``), whose
posterior is the distribution of a weighted sum of independent Beta variables
(:class:`bacc.distributions.BetaSum`).
"""

from __future__ import annotations

import functools

import numpy as np

from ._engine.beta import posterior_parameters
from ._engine.helpers.validate import check_prior
from .confusion import ConfusionMatrix, as_confusion_matrix, balanced_classes, chance_level
from .distributions import BetaPosterior, BetaSum

__all__ = [
    "BetaPosterior",
    "BalancedAccuracyPosterior",
    "posterior_accuracy",
    "posterior_class_accuracies",
    "posterior_balanced_accuracy",
    "prior_phrase",
]


class BalancedAccuracyPosterior(BetaSum):
    """Posterior of the (weighted) balanced accuracy ``sum_i w_i theta_i``.

    Attributes
    ----------
    labels : tuple
        Classes that enter the balanced accuracy.
    weights : numpy.ndarray
        Their weights (sum to 1).
    class_posteriors : tuple of BetaPosterior
        The independent class posteriors.

    Notes
    -----
    The distribution of the balanced accuracy under independent Beta posteriors of the class
    accuracies: the convolution of Brodersen et al. (2010), eq. 7, for two classes and its
    multiclass form, Carrillo et al. (2014), eqs. 12-13. Built by
    :func:`posterior_balanced_accuracy`; the methods are those of :class:`bacc.BetaSum`.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III, eq. 7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4, eqs. 12-13.
    """

    def __init__(self, a, b, weights, labels, chance: float | None = None) -> None:
        super().__init__(a, b, weights)
        self._chance = 1.0 / len(labels) if chance is None else float(chance)
        self.labels = tuple(labels)
        self.weights = np.asarray(weights, dtype=float).copy()
        self._ab = (np.array(a, dtype=float), np.array(b, dtype=float))

    @functools.cached_property
    def class_posteriors(self) -> tuple:
        """The independent class posteriors (:class:`BetaPosterior`), built on first use (a
        thousand classes cost milliseconds that the balanced accuracy does not need)."""
        return tuple(BetaPosterior(x, y) for x, y in zip(*self._ab, strict=True))

    @property
    def chance(self) -> float:
        """Chance level ``1 / l``, ``l`` the classes of the confusion matrix, counting those
        with no true examples (see :func:`bacc.confusion.chance_level`, the one definition;
        Carrillo et al. (2014) sec. 4.4). Built directly from components, ``l`` is the number
        of components."""
        return self._chance

    def __repr__(self) -> str:
        return (
            f"BalancedAccuracyPosterior(classes={len(self.labels)}, mean={self.mean():.6g}, "
            f"std={self.std():.3g})"
        )


def _accuracy_prior(prior) -> tuple[float, float]:
    a, b = check_prior(prior, 1)
    return float(a[0]), float(b[0])


def posterior_accuracy(cm, *, prior=(1.0, 1.0), rows: str = "true") -> BetaPosterior:
    """Posterior of the accuracy: ``Beta(k + a, n - k + b)`` (Brodersen et al. (2010), eq. 1; Carrillo et al. (2014) eq. 8).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Confusion matrix (rows = true class unless ``rows="predicted"``).
    prior : (float, float) or {"flat", "jeffreys"}
        Beta prior ``(a, b)``; default flat ``(1, 1)``.

    Returns
    -------
    BetaPosterior

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section II, eqs. 1-6.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.3, eqs. 8-11.

    Examples
    --------
    >>> import bacc
    >>> post = bacc.posterior_accuracy([[42, 3], [6, 4]])  # 46 correct, 9 wrong
    >>> post.args
    (47.0, 10.0)
    >>> round(post.mode(), 4)  # = C / (C + I) under a flat prior (Brodersen et al. (2010), eq. 5)
    0.8364
    """
    cm = as_confusion_matrix(cm, rows=rows)
    a, b = _accuracy_prior(prior)
    k, n = cm.total_correct, cm.total
    return BetaPosterior(*posterior_parameters(k, n, a, b))


def posterior_class_accuracies(cm, *, prior=(1.0, 1.0), rows: str = "true") -> list[BetaPosterior]:
    """Posterior of each class accuracy (recall): ``Beta(k_i + a_i, n_i - k_i + b_i)``.

    A class without true examples has its prior as posterior.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Confusion matrix (rows = true class unless ``rows="predicted"``).
    prior : (float, float), sequence of pairs, or {"flat", "jeffreys"}
        Beta prior, once for all classes or one pair per class; default flat ``(1, 1)``.

    Returns
    -------
    list of BetaPosterior
        One per class, in the order of the matrix's classes.

    Notes
    -----
    Each class is its own binomial experiment (Brodersen et al. (2010), section III: the
    positive and the negative examples; Carrillo et al. (2014), section 4.4: eq. 8 applied to
    each class in turn).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, sections II-III.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4.

    Examples
    --------
    >>> import bacc
    >>> [p.args for p in bacc.posterior_class_accuracies([[42, 3], [6, 4]])]
    [(43.0, 4.0), (5.0, 7.0)]
    """
    cm = as_confusion_matrix(cm, rows=rows)
    a, b = check_prior(prior, cm.n_classes, classes=cm.labels)
    k, n = cm.correct, cm.support
    return [BetaPosterior(k[i] + a[i], n[i] - k[i] + b[i]) for i in range(cm.n_classes)]


def balanced_components(
    cm: ConfusionMatrix, prior, weights, empty: str = "drop", *, stacklevel: int = 3
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """``(a, b, w, labels)``: the Beta components of the balanced accuracy of ``cm``.

    Classes without examples are dropped with a warning (or kept, ``empty="keep"``), the
    remaining weights renormalised to sum to 1 and zero weights left out (Carrillo et al. (2014), eq. 13).
    Shared by :func:`posterior_balanced_accuracy` and the comparisons, which need the
    components but not the distribution object. ``stacklevel`` is that of :func:`warnings.warn`
    seen from this function: a warning points at the user's line.
    """
    a0, b0 = check_prior(prior, cm.n_classes, classes=cm.labels)
    keep, w_kept = balanced_classes(cm, weights, empty=empty, stacklevel=stacklevel)
    nz = w_kept > 0
    idx = np.flatnonzero(keep)[nz]
    k, n = cm.correct, cm.support
    labels = tuple(cm.labels[i] for i in idx)
    a, b = posterior_parameters(k, n, a0, b0)
    return a[idx].astype(float), b[idx].astype(float), w_kept[nz], labels


def posterior_balanced_accuracy(
    cm, *, prior=(1.0, 1.0), weights=None, empty: str = "drop", rows: str = "true"
) -> BalancedAccuracyPosterior:
    """Posterior of the balanced accuracy (Brodersen et al. (2010), eq. 7; Carrillo et al. (2014) eqs. 12-13).

    ``lambda = sum_i w_i theta_i`` with independent ``theta_i ~ Beta(k_i + a_i, n_i - k_i + b_i)``.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Confusion matrix (rows = true class unless ``rows="predicted"``).
    prior : (float, float), sequence of pairs, or {"flat", "jeffreys"}
        Beta prior, once for all classes or one pair per class.
    weights : array_like, optional
        Class weights summing to 1 (default ``1/l`` each). For two classes, ``(c, 1 - c)`` is
        Brodersen et al. (2010)'s cost-weighted balanced accuracy.
    empty : {"drop", "keep"}
        A class with no true examples is left out with a warning (``"drop"``, as
        scikit-learn does), or kept with its prior as posterior (``"keep"``). When classes are
        dropped, the remaining weights are rescaled to sum to 1.

    Returns
    -------
    BalancedAccuracyPosterior
        Distribution object: ``pdf, cdf, sf, ppf, isf, mean, var, std, median, mode,
        interval, rvs, p_above``.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III, eq. 7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4, eqs. 12-13.

    Examples
    --------
    >>> import bacc
    >>> post = bacc.posterior_balanced_accuracy([[42, 3], [6, 4]])
    >>> round(post.mean(), 4)  # (43/47 + 5/12) / 2
    0.6658
    >>> lo, hi = post.interval(0.95)
    >>> round(lo, 3), round(hi, 3)
    (0.534, 0.808)
    """
    cm = as_confusion_matrix(cm, rows=rows)
    a, b, w, labels = balanced_components(cm, prior, weights, empty)
    return BalancedAccuracyPosterior(a, b, w, list(labels), chance_level(cm))


def prior_phrase(a, b) -> str:
    """The Beta prior of the class accuracies in words: ``"flat prior Beta(1, 1) per class"``.

    Parameters
    ----------
    a, b : float or array_like
        Per-class Beta parameters.

    Examples
    --------
    >>> from bacc.posterior import prior_phrase
    >>> prior_phrase([1, 1], [1, 1]), prior_phrase(0.5, 0.5), prior_phrase([1, 2], [1, 1])
    ('flat prior Beta(1, 1) per class', "Jeffreys' prior Beta(1/2, 1/2) per class", 'Beta priors that differ between classes')
    """
    aa = np.atleast_1d(np.asarray(a, dtype=float))
    bb = np.atleast_1d(np.asarray(b, dtype=float))
    if aa.size == 0 or np.any(aa != aa.flat[0]) or np.any(bb != bb.flat[0]):
        return "Beta priors that differ between classes"
    x, y = float(aa.flat[0]), float(bb.flat[0])
    if x == y == 1:
        return "flat prior Beta(1, 1) per class"
    if x == y == 0.5:
        return "Jeffreys' prior Beta(1/2, 1/2) per class"
    return f"prior Beta({x:g}, {y:g}) per class"
