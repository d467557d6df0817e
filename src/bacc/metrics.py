"""Sample statistics of a confusion matrix (point estimates, no uncertainty).

These are the numbers people usually report: accuracy and balanced accuracy (Brodersen et al.
2010), the F-score and Cohen's kappa (Carrillo et al. 2014, section 3.2 and Table 1), balanced
precision (Burkman 2021) and Matthews' correlation (Gorodkin 2004). bacc shows them beside the
posteriors so that the difference is visible.

Conventions:

* ``cm[i, j]`` counts the examples of true class ``i`` predicted as class ``j`` (rows = true
  class, as in scikit-learn; see :class:`bacc.ConfusionMatrix`). Write ``n_i`` for the row sums
  (support), ``p_j`` for the column sums (predictions), ``k_i = cm[i, i]`` and ``n`` for the
  total.
* A ratio whose denominator is 0 is ``nan`` (scikit-learn's ``zero_division=np.nan``), never a
  silent 0 or 1.
* Averages over classes (balanced accuracy, G-mean, informedness, macro F1) leave out the
  classes where the averaged quantity is ``nan``; which classes that are is stated in each
  function.

References
----------
.. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
   accuracy and its posterior distribution. Proc. 20th International Conference on Pattern
   Recognition (ICPR), 3121-3124.
.. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
   evaluation for multiclass classification using the posterior balanced accuracy. ROBOT2013:
   First Iberian Robotics Conference, Advances in Intelligent Systems and Computing 252,
   347-361.
.. [3] Burkman, B. (2021). Report of 28 June 2021, section 2.5: Balanced precision.
.. [4] Gorodkin, J. (2004). Comparing two K-category assignments by a K-category correlation
   coefficient. Computational Biology and Chemistry 28, 367-374.
"""

from __future__ import annotations

import math

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
    "matthews",
    "g_mean",
    "informedness",
]


def _ratio(num, den):
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _int_counts(cm) -> list[list[int]]:
    """The counts as Python integers (sums of products stay exact)."""
    return [[int(x) for x in row] for row in cm.counts.tolist()]


def accuracy(cm) -> float:
    """Sample accuracy: the fraction of examples classified correctly.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        ``k / n``, in ``[0, 1]``.

    Notes
    -----
    .. math:: \\mathrm{acc} = \\frac{\\sum_i k_i}{n}

    With ``C`` correct and ``I`` incorrect predictions this is ``C / (C + I)``, the sample
    accuracy of Brodersen et al. (2010), section II. On an imbalanced test set it rewards a
    classifier that always predicts the majority class.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124, section II.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.accuracy([[42, 3], [6, 4]]), 4)  # 46 / 55
    0.8364
    """
    cm = as_confusion_matrix(cm)
    return cm.total_correct / cm.total


def recall(cm) -> np.ndarray:
    """Per-class accuracy (recall, sensitivity, true-positive rate).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    numpy.ndarray of float, shape (l,)
        ``k_i / n_i``; ``nan`` for a class with no true examples.

    Notes
    -----
    .. math:: r_i = \\frac{k_i}{n_i} = \\frac{TP_i}{TP_i + FN_i}

    Recall does not depend on the class proportions of the test set (Burkman 2021, section
    2.3), which is why the balanced accuracy averages it.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, eq. 3.
    .. [2] Burkman, B. (2021). Report of 28 June 2021, section 2.1.

    Examples
    --------
    >>> from bacc import metrics
    >>> metrics.recall([[42, 3], [6, 4]]).round(4).tolist()  # 42/45, 4/10
    [0.9333, 0.4]
    """
    cm = as_confusion_matrix(cm)
    return _ratio(cm.correct, cm.support)


def balanced_accuracy(cm, *, weights=None) -> float:
    """Sample balanced accuracy: the (weighted) average of the class recalls.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.
    weights : array_like of float, shape (l,), optional
        Class weights ``w_i >= 0`` summing to 1 (default ``1 / l``), as in
        :func:`bacc.posterior_balanced_accuracy`.

    Returns
    -------
    float

    Notes
    -----
    .. math:: \\hat\\lambda = \\sum_{i:\\, n_i > 0} \\tilde w_i \\frac{k_i}{n_i},
              \\qquad \\tilde w_i = \\frac{w_i}{\\sum_{j:\\, n_j > 0} w_j}

    With equal weights this is ``(1/l) sum_i k_i / n_i`` (Carrillo et al. (2014), eq. 3); for
    two classes ``(TPR + TNR) / 2`` (Brodersen et al. (2010), section II; Burkman (2021),
    section 2.4, derives it by rescaling the negatives to as many as the positives). A class
    with no true examples has no recall: it is left out and the weights of the others are
    rescaled, as :func:`sklearn.metrics.balanced_accuracy_score` does (without a warning here).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124, section II.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, eq. 3 and Table 1.
    .. [3] Burkman, B. (2021). Report of 28 June 2021, section 2.4.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.balanced_accuracy([[42, 3], [6, 4]]), 4)  # (42/45 + 4/10) / 2
    0.6667
    >>> round(metrics.balanced_accuracy([[42, 3], [6, 4]], weights=[0.2, 0.8]), 4)
    0.5067
    """
    cm = as_confusion_matrix(cm)
    included, w = balanced_classes(cm, weights, warn=False)
    return float(np.sum(w * recall(cm)[included]))


def specificity(cm) -> np.ndarray:
    """Per-class specificity (true-negative rate), each class against the rest.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    numpy.ndarray of float, shape (l,)
        ``TN_i / (TN_i + FP_i)``; ``nan`` when every example belongs to class ``i`` (no
        negatives).

    Notes
    -----
    With ``TP_i = k_i``, ``FP_i = p_i - k_i``, ``FN_i = n_i - k_i`` and
    ``TN_i = n - TP_i - FP_i - FN_i``:

    .. math:: s_i = \\frac{TN_i}{TN_i + FP_i} = \\frac{TN_i}{n - n_i}

    For two classes the specificity of one class is the recall of the other.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124, section II.
    .. [2] Burkman, B. (2021). Report of 28 June 2021, section 2.1.

    Examples
    --------
    >>> from bacc import metrics
    >>> metrics.specificity([[42, 3], [6, 4]]).round(4).tolist()  # 4/10, 42/45
    [0.4, 0.9333]
    """
    cm = as_confusion_matrix(cm)
    c = cm.counts.astype(float)
    n = c.sum()
    tp = np.diag(c)
    fp = c.sum(axis=0) - tp
    fn = c.sum(axis=1) - tp
    tn = n - tp - fp - fn
    return _ratio(tn, tn + fp)


def precision(cm) -> np.ndarray:
    """Per-class precision (positive predictive value).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    numpy.ndarray of float, shape (l,)
        ``k_i / p_i``; ``nan`` for a class that is never predicted (scikit-learn's
        ``precision_score(..., average=None, zero_division=np.nan)``).

    Notes
    -----
    .. math:: \\mathrm{prec}_i = \\frac{TP_i}{TP_i + FP_i} = \\frac{k_i}{p_i}

    Unlike recall, precision depends on the class proportions of the test set; see
    :func:`balanced_precision`.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, section 3.2.
    .. [2] Burkman, B. (2021). Report of 28 June 2021, sections 2.1 and 2.3.

    Examples
    --------
    >>> from bacc import metrics
    >>> metrics.precision([[42, 3], [6, 4]]).round(4).tolist()  # 42/48, 4/7
    [0.875, 0.5714]
    """
    cm = as_confusion_matrix(cm)
    return _ratio(cm.correct, cm.predicted)


def balanced_precision(cm) -> np.ndarray:
    """Per-class precision as if every class had the same number of true examples.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    numpy.ndarray of float, shape (l,)
        ``nan`` for a class with no true examples (its rate cannot be rescaled) and for a
        class that is never predicted (as for :func:`precision`).

    Notes
    -----
    Burkman (2021), section 2.5, rescales the actual negatives to as many as the actual
    positives, as for the balanced accuracy (section 2.4):

    .. math:: \\mathrm{BP} = \\frac{TP}{TP + FP \\cdot P/N}
              = \\frac{TP \\cdot N}{TP \\cdot N + FP \\cdot P}
              = \\frac{\\mathrm{TPR}}{\\mathrm{TPR} + \\mathrm{FPR}}

    with ``P = TP + FN`` and ``N = TN + FP``. For ``l`` classes every row of the matrix is
    rescaled to the same size, i.e. precision is computed from the row-normalised matrix
    ``R_ji = cm[j, i] / n_j`` over the classes ``j`` with examples:

    .. math:: \\mathrm{BP}_i = \\frac{R_{ii}}{\\sum_{j:\\, n_j > 0} R_{ji}}

    This equals the precision with sample weights ``1 / n_{y}`` (each class weighing the same).

    References
    ----------
    .. [1] Burkman, B. (2021). Report of 28 June 2021, section 2.5: Balanced precision.

    Examples
    --------
    >>> from bacc import metrics
    >>> bp = metrics.balanced_precision([[42, 3], [6, 4]])
    >>> bp.round(4).tolist()  # class 1: 0.4 / (0.4 + 3/45)
    [0.6087, 0.8571]
    """
    cm = as_confusion_matrix(cm)
    c = cm.counts.astype(float)
    n = cm.support.astype(float)
    rows = included_classes(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(rows[:, None], c / np.where(rows[:, None], n[:, None], 1.0), 0.0)
    out = _ratio(np.diag(rates), rates[rows].sum(axis=0))
    return np.where(rows, out, np.nan)


def f1(cm) -> np.ndarray:
    """Per-class F1 score, the harmonic mean of precision and recall.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    numpy.ndarray of float, shape (l,)
        ``2 TP_i / (2 TP_i + FP_i + FN_i)``. It is defined (possibly 0) for every class that
        occurs among the true or the predicted labels, also when its precision or recall is
        not: a class with examples that is never predicted, or predicted but without examples,
        has F1 = 0. ``nan`` only for a class that occurs nowhere (``n_i + p_i = 0``). This is
        scikit-learn's ``f1_score(..., average=None, zero_division=np.nan)``.

    Notes
    -----
    .. math:: F_{1,i} = \\frac{2\\, \\mathrm{prec}_i\\, r_i}{\\mathrm{prec}_i + r_i}
              = \\frac{2 k_i}{n_i + p_i}

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, section 3.2 and Table 1.

    Examples
    --------
    >>> from bacc import metrics
    >>> metrics.f1([[42, 3], [6, 4]]).round(4).tolist()  # 84/93, 8/17
    [0.9032, 0.4706]
    >>> metrics.f1([[5, 0], [5, 0]]).tolist()  # class 1 is never predicted
    [0.6666666666666666, 0.0]
    """
    cm = as_confusion_matrix(cm)
    return _ratio(2.0 * cm.correct, cm.support + cm.predicted)


def macro_f1(cm) -> float:
    """Macro-averaged F1: the unweighted mean of the per-class F1 scores.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        Mean of :func:`f1` over the classes that occur among the true or the predicted labels
        (a class listed in the matrix but absent from both is skipped). This is
        ``sklearn.metrics.f1_score(y_true, y_pred, average="macro")`` with its default labels.

    Notes
    -----
    .. math:: F_\\mu = \\frac{1}{|L|} \\sum_{i \\in L} F_{1,i},
              \\qquad L = \\{i : n_i + p_i > 0\\}

    The F_mu-score of Carrillo et al. (2014), section 3.2 ("the across-classes average of
    the F-score") and Table 1.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, section 3.2 and Table 1.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.macro_f1([[42, 3], [6, 4]]), 4)  # (84/93 + 8/17) / 2
    0.6869
    """
    v = f1(cm)
    return float(np.nanmean(v)) if np.any(~np.isnan(v)) else float("nan")


def cohen_kappa(cm) -> float:
    """Cohen's kappa: agreement between true and predicted labels beyond chance.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        In ``[-1, 1]``; ``nan`` when chance agreement is 1 (every true and every predicted
        label is the same class), as scikit-learn's ``cohen_kappa_score``.

    Notes
    -----
    .. math:: \\kappa = \\frac{p_0 - p_e}{1 - p_e}, \\qquad
              p_0 = \\frac{1}{n} \\sum_i k_i, \\qquad
              p_e = \\frac{1}{n^2} \\sum_i n_i\\, p_i

    (Carrillo et al. (2014), eqs. 1-2, with ``n_i = C_{i+}`` and ``p_i = C_{+i}``.) Computed
    exactly as ``(n sum_i k_i - sum_i n_i p_i) / (n^2 - sum_i n_i p_i)``.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
       evaluation for multiclass classification using the posterior balanced accuracy.
       ROBOT2013, 347-361, eqs. 1-2 and Table 1.
    .. [2] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement 20, 37-46.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.cohen_kappa([[42, 3], [6, 4]]), 4)
    0.3774
    """
    cm = as_confusion_matrix(cm)
    c = _int_counts(cm)
    l = len(c)
    n = sum(map(sum, c))
    rows = [sum(r) for r in c]
    cols = [sum(c[i][j] for i in range(l)) for j in range(l)]
    diag = sum(c[i][i] for i in range(l))
    chance = sum(r * p for r, p in zip(rows, cols, strict=True))
    den = n * n - chance
    if den == 0:
        return float("nan")
    return (n * diag - chance) / den


def matthews(cm) -> float:
    """Matthews correlation coefficient, multiclass form (Gorodkin's R_K statistic).

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        In ``[-1, 1]``; 1 for a perfect classifier. ``nan`` when all true labels or all
        predicted labels are one class (the denominator is 0). scikit-learn's
        ``matthews_corrcoef`` returns 0.0 in that case.

    Notes
    -----
    With ``c = sum_i k_i`` correct predictions out of ``s = n``:

    .. math:: \\mathrm{MCC} = \\frac{c\\, s - \\sum_i p_i n_i}
              {\\sqrt{\\left(s^2 - \\sum_i p_i^2\\right)\\left(s^2 - \\sum_i n_i^2\\right)}}

    (Gorodkin 2004), the formula of :func:`sklearn.metrics.matthews_corrcoef`; for two classes
    it is Matthews' (1975) ``(TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))``.
    Numerator and the factors of the denominator are computed exactly in integers.

    References
    ----------
    .. [1] Gorodkin, J. (2004). Comparing two K-category assignments by a K-category
       correlation coefficient. Computational Biology and Chemistry 28, 367-374.
    .. [2] Matthews, B. W. (1975). Comparison of the predicted and observed secondary structure
       of T4 phage lysozyme. Biochimica et Biophysica Acta 405, 442-451.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.matthews([[42, 3], [6, 4]]), 4)  # (42*4 - 3*6) / sqrt(48*7*45*10)
    0.3858
    >>> metrics.matthews([[5, 0], [0, 7]])
    1.0
    """
    cm = as_confusion_matrix(cm)
    c = _int_counts(cm)
    l = len(c)
    s = sum(map(sum, c))
    t = [sum(r) for r in c]
    p = [sum(c[i][j] for i in range(l)) for j in range(l)]
    correct = sum(c[i][i] for i in range(l))
    num = correct * s - sum(a * b for a, b in zip(p, t, strict=True))
    var_p = s * s - sum(a * a for a in p)
    var_t = s * s - sum(a * a for a in t)
    if var_p == 0 or var_t == 0:
        return float("nan")
    return num / (math.sqrt(var_p) * math.sqrt(var_t))


def g_mean(cm) -> float:
    """Geometric mean of the class recalls.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        Over the classes with true examples (the classes of the balanced accuracy); 0 when
        one of them has recall 0.

    Notes
    -----
    .. math:: G = \\Bigl(\\prod_{i:\\, n_i > 0} \\frac{k_i}{n_i}\\Bigr)^{1/|\\{i:\\, n_i > 0\\}|}

    For two classes ``sqrt(TPR * TNR)`` (Kubat & Matwin 1997). It is at most the balanced
    accuracy (the arithmetic mean of the same recalls). Burkman (2021), section 2.5, mentions
    another "G-mean", ``sqrt(precision * specificity)``; that is not this statistic.

    References
    ----------
    .. [1] Kubat, M. & Matwin, S. (1997). Addressing the curse of imbalanced training sets:
       one-sided selection. Proc. 14th International Conference on Machine Learning (ICML),
       179-186.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.g_mean([[42, 3], [6, 4]]), 4)  # sqrt(42/45 * 4/10)
    0.611
    """
    r = recall(cm)
    r = r[~np.isnan(r)]
    return float(np.prod(r) ** (1.0 / r.size))


def informedness(cm) -> float:
    """Bookmaker informedness: the balanced accuracy rescaled so that chance is 0.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like, shape (l, l)
        Confusion matrix, rows = true class.

    Returns
    -------
    float
        1 for a perfect classifier, 0 at chance (``1 / l'``), negative below; ``nan`` when
        fewer than two classes have true examples.

    Notes
    -----
    With ``l'`` the number of classes with true examples and ``BA`` the (equally weighted)
    :func:`balanced_accuracy` over them:

    .. math:: J = \\frac{l'\\, \\mathrm{BA} - 1}{l' - 1}

    For two classes this is Youden's ``J = TPR + TNR - 1`` (sensitivity + specificity - 1);
    for ``l`` classes it is the chance-corrected balanced accuracy, as
    ``sklearn.metrics.balanced_accuracy_score(..., adjusted=True)``.

    References
    ----------
    .. [1] Youden, W. J. (1950). Index for rating diagnostic tests. Cancer 3, 32-35.
    .. [2] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124, section II.

    Examples
    --------
    >>> from bacc import metrics
    >>> round(metrics.informedness([[42, 3], [6, 4]]), 4)  # 42/45 + 4/10 - 1
    0.3333
    """
    cm = as_confusion_matrix(cm)
    r = recall(cm)
    l_eff = int(np.sum(~np.isnan(r)))
    if l_eff < 2:
        return float("nan")
    return (l_eff * balanced_accuracy(cm) - 1.0) / (l_eff - 1.0)
