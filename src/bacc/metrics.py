"""Sample statistics of a confusion matrix (point estimates, no uncertainty).

These are the numbers people usually report (Carrillo et al. (2014), Table 1; the 2015 blog post on balanced accuracy; Burkman 2021). bacc shows them
beside the posteriors so that the difference is visible. Conventions: rows of the matrix are
true classes; a ratio whose denominator is 0 is ``nan``.
"""

from __future__ import annotations

import numpy as np

from .confusion import as_confusion_matrix, balanced_classes, included_classes

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "recall",
    "specificity",
    "precision",
    "balanced_precision",
    "f1",
    "macro_f1",
    "cohen_kappa",
    "g_mean",
    "informedness",
]


def _ratio(num, den):
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def accuracy(cm) -> float:
    """Sample accuracy ``k / n`` (Brodersen et al. (2010): ``C / n``)."""
    cm = as_confusion_matrix(cm)
    return cm.total_correct / cm.total


def recall(cm) -> np.ndarray:
    """Per-class accuracy (recall, sensitivity) ``k_i / n_i``; ``nan`` for an empty class."""
    cm = as_confusion_matrix(cm)
    return _ratio(cm.correct, cm.support)


def balanced_accuracy(cm, *, weights=None) -> float:
    """Sample balanced accuracy ``sum_i w_i k_i / n_i`` (Carrillo et al. (2014), eq. 3).

    Classes without true examples are left out and the remaining weights rescaled.
    """
    cm = as_confusion_matrix(cm)
    included, w = balanced_classes(cm, weights, warn=False)
    return float(np.sum(w * recall(cm)[included]))


def specificity(cm) -> np.ndarray:
    """Per-class specificity (true-negative rate, one class against the rest)."""
    cm = as_confusion_matrix(cm)
    c = cm.counts.astype(float)
    n = c.sum()
    tp = np.diag(c)
    fp = c.sum(axis=0) - tp
    fn = c.sum(axis=1) - tp
    tn = n - tp - fp - fn
    return _ratio(tn, tn + fp)


def precision(cm) -> np.ndarray:
    """Per-class precision ``k_i / (predicted as i)``; ``nan`` when never predicted."""
    cm = as_confusion_matrix(cm)
    return _ratio(cm.correct, cm.predicted)


def balanced_precision(cm) -> np.ndarray:
    """Prevalence-corrected precision per class (Burkman (2021), section 2.5).

    The precision that would be seen if every class had the same number of true examples:
    ``recall_i / sum_j (C_ji / n_j)`` (column ``i`` of the row-normalised matrix).
    """
    cm = as_confusion_matrix(cm)
    c = cm.counts.astype(float)
    n = cm.support.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(n[:, None] > 0, c / np.where(n[:, None] > 0, n[:, None], 1.0), 0.0)
    rows = included_classes(n)
    return _ratio(np.diag(rates), rates[rows].sum(axis=0))


def f1(cm) -> np.ndarray:
    """Per-class F1 score (harmonic mean of precision and recall)."""
    p = precision(cm)
    r = recall(cm)
    return _ratio(2 * p * r, p + r)


def macro_f1(cm) -> float:
    """Macro-averaged F1 (the F_mu score of Carrillo et al. (2014)), over classes where it is defined."""
    v = f1(cm)
    return float(np.nanmean(v)) if np.any(~np.isnan(v)) else float("nan")


def cohen_kappa(cm) -> float:
    """Cohen's kappa ``(p0 - pe) / (1 - pe)`` with observed and chance agreement (Carrillo et al. (2014), eq. 1)."""
    cm = as_confusion_matrix(cm)
    c = cm.counts.astype(float)
    n = c.sum()
    p0 = np.trace(c) / n
    pe = float(np.sum(c.sum(axis=1) * c.sum(axis=0))) / n**2
    return float((p0 - pe) / (1 - pe)) if pe < 1 else float("nan")


def g_mean(cm) -> float:
    """Geometric mean of the class recalls (classes with examples)."""
    r = recall(cm)
    r = r[~np.isnan(r)]
    return float(np.prod(r) ** (1.0 / r.size))


def informedness(cm) -> float:
    """Bookmaker informedness ``(l * balanced accuracy - 1) / (l - 1)``; Youden's J for two classes."""
    cm = as_confusion_matrix(cm)
    r = recall(cm)
    l_eff = int(np.sum(~np.isnan(r)))
    if l_eff < 2:
        return float("nan")
    return (l_eff * balanced_accuracy(cm) - 1.0) / (l_eff - 1.0)
