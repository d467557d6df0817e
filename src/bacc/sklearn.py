"""scikit-learn workflows: cross-validated evaluation and a posterior-based scorer.

scikit-learn is an optional dependency (``pip install "bacc[sklearn]"``), imported only when a
function here runs, so ``import bacc.sklearn`` always works.

- :func:`evaluate_cv` runs a cross-validation and evaluates the *algorithm* from the confusion
  matrices summed over the folds (Brodersen et al. (2010), section V), and each fold's classifier apart.
- :func:`balanced_accuracy_scorer` is a scorer for ``cross_val_score``, ``GridSearchCV`` and
  friends built on the posterior of the balanced accuracy (its mean, median, or the lower end
  of its credible interval), and :func:`posterior_balanced_accuracy_score` is the same as a
  metric of ``(y_true, y_pred)``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._engine.helpers.convert import FrozenArrays
from ._engine.helpers.validate import check_confidence, check_prior
from .confusion import ConfusionMatrix
from .errors import BaccError, BaccWarning, require
from .evaluation import Evaluation, evaluate

__all__ = [
    "CVEvaluation",
    "balanced_accuracy_scorer",
    "evaluate_cv",
    "posterior_balanced_accuracy_score",
]

_STATISTICS = ("mean", "median", "lower")


def _sklearn(what: str):
    require("sklearn", "sklearn", what)
    import sklearn.base
    import sklearn.metrics
    import sklearn.model_selection

    return sklearn


@dataclass(frozen=True, eq=False)
class CVEvaluation(FrozenArrays):
    """Result of :func:`evaluate_cv`.

    Attributes
    ----------
    evaluation : Evaluation
        The algorithm: :func:`bacc.evaluate` of the confusion matrix summed over the folds
        (Brodersen et al. (2010), section V). This is what to report for the method.
    folds : tuple of Evaluation
        Each fold's classifier, evaluated on its own test fold.
    confusion : ConfusionMatrix
        The summed confusion matrix (``evaluation.confusion``).
    fold_confusions : tuple of ConfusionMatrix
        One per fold, over the same classes.
    labels : tuple
        The classes (every class of ``y``, or ``labels=``).
    fit_time, score_time : ndarray, shape (n_folds,)
        Seconds spent fitting and predicting in each fold (from scikit-learn).

    Every attribute of the algorithm's :class:`bacc.Evaluation` is also an attribute of this
    result: ``res.balanced_accuracy``, ``res.balanced_accuracy_summary``,
    ``res.p_above_chance``, ``res.exact_interval()`` ... are those of ``res.evaluation``.
    """

    evaluation: Evaluation
    folds: tuple
    fold_confusions: tuple
    labels: tuple
    fit_time: np.ndarray
    score_time: np.ndarray

    @property
    def confusion(self) -> ConfusionMatrix:
        """The confusion matrix summed over the folds."""
        return self.evaluation.confusion

    def __getattr__(self, name: str):
        # called only for names this class lacks: the algorithm's evaluation answers them
        if name.startswith("__") or name == "evaluation":
            raise AttributeError(name)
        try:
            evaluation = object.__getattribute__(self, "evaluation")
        except AttributeError:
            raise AttributeError(name) from None
        try:
            return getattr(evaluation, name)
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__!r} object (and its evaluation) has no attribute {name!r}"
            ) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(dir(self.evaluation)))

    @property
    def n_folds(self) -> int:
        """Number of train/test splits."""
        return len(self.folds)

    @property
    def fold_balanced_accuracies(self) -> np.ndarray:
        """Sample balanced accuracy of each fold (what ``cross_val_score`` would average)."""
        return np.array([f.sample_balanced_accuracy for f in self.folds])

    def to_dict(self) -> dict:
        """Plain JSON-able dict: the algorithm's evaluation and the folds' evaluations."""
        return {
            "algorithm": self.evaluation.to_dict(),
            "folds": [f.to_dict() for f in self.folds],
            "fit_time": self.fit_time.tolist(),
            "score_time": self.score_time.tolist(),
        }

    def __str__(self) -> str:
        from .display.text import cv_text

        return cv_text(self)

    def _repr_html_(self) -> str:
        return self.evaluation._repr_html_()


def _fold_cells(labels: tuple) -> Callable:
    """A multi-metric scorer returning every cell of the fold's confusion matrix."""
    from sklearn.metrics import confusion_matrix

    n = len(labels)

    def cells(estimator, X, y) -> dict[str, int]:
        cm = confusion_matrix(y, estimator.predict(X), labels=list(labels))
        return {f"c{i}_{j}": int(cm[i, j]) for i in range(n) for j in range(n)}

    return cells


def evaluate_cv(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    cv: Any = 5,
    prior=(1.0, 1.0),
    confidence: float = 0.95,
    random_state: int | None = None,
    labels: Sequence | None = None,
    groups: Any = None,
    n_jobs: int | None = None,
    params: dict | None = None,
) -> CVEvaluation:
    """Cross-validate a classifier and evaluate the algorithm from the summed confusion matrix.

    Parameters
    ----------
    estimator : scikit-learn classifier
        Cloned and fitted once per fold (``fit`` / ``predict``).
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Class labels.
    cv : int, cross-validation splitter or iterable of (train, test) indices
        As in :func:`sklearn.model_selection.cross_validate`; an int ``k`` means stratified
        ``k``-fold (shuffled with ``random_state`` when one is given).
    prior : (float, float) or per-class pairs or {"flat", "jeffreys"}
        Beta prior of each class accuracy (see :func:`bacc.evaluate`).
    confidence : float
        Mass of the credible intervals (default 0.95).
    random_state : int, optional
        Seed of the shuffled stratified split when ``cv`` is an int (default: no shuffling).
    labels : sequence, optional
        The classes in order (default: every class of ``y``, sorted).
    groups : array_like, optional
        Group labels for group-aware splitters.
    n_jobs : int, optional
        Folds fitted in parallel (scikit-learn's ``n_jobs``).
    params : dict, optional
        Fit parameters passed on by scikit-learn.

    Returns
    -------
    CVEvaluation
        ``.evaluation`` for the algorithm (folds summed; its attributes are also the result's,
        e.g. ``.balanced_accuracy``), ``.folds`` per fold.

    See Also
    --------
    bacc.ConfusionMatrix.from_folds, bacc.evaluate

    Notes
    -----
    Brodersen et al. (2010), section V: the posterior of the balanced accuracy of an *algorithm* comes from
    the confusion matrix summed over all cross-validation folds; a single fold's matrix gives
    the posterior of that fold's classifier. Averaging fold accuracies instead supports no
    meaningful interval.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, sections I-II (fold averages) and V (summed folds).
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4.

    Examples
    --------
    Scale the features inside the pipeline (fitted on each training fold only); an unscaled
    logistic regression on these features needs thousands of slow iterations.

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from bacc.sklearn import evaluate_cv
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> res = evaluate_cv(model, X, y, cv=5, random_state=0)
    >>> res.n_folds, res.balanced_accuracy_summary.lower > 0.9  # the algorithm's evaluation
    (5, True)
    """
    sk = _sklearn("evaluate_cv")
    c = check_confidence(confidence)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        raise BaccError(f"y must be one-dimensional class labels, got shape {y_arr.shape}")
    if labels is None:
        labs = tuple(v.item() if isinstance(v, np.generic) else v for v in np.unique(y_arr))
    else:
        labs = tuple(labels)
        unknown = set(np.unique(y_arr).tolist()) - set(labs)
        if unknown:
            raise BaccError(f"y has the class {sorted(unknown, key=str)[0]!r}, which is not in labels")
    if len(labs) < 2:
        raise BaccError(f"y has {len(labs)} class; a classifier needs at least two")
    check_prior(prior, len(labs), classes=labs)
    if isinstance(cv, int | np.integer) and not isinstance(cv, bool) and random_state is not None:
        cv = sk.model_selection.StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    kwargs: dict = {"groups": groups, "n_jobs": n_jobs, "error_score": "raise"}
    if params:
        kwargs["params"] = params
    out = sk.model_selection.cross_validate(
        estimator, X, y_arr, cv=cv, scoring=_fold_cells(labs), **kwargs
    )
    n = len(labs)
    n_folds = len(out["fit_time"])
    mats = np.zeros((n_folds, n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            mats[:, i, j] = np.asarray(out[f"test_c{i}_{j}"], dtype=np.int64)
    fold_cms = tuple(ConfusionMatrix(m, labs) for m in mats)
    total = ConfusionMatrix.from_folds(fold_cms)
    evaluation = evaluate(total, prior=prior, confidence=c)
    with warnings.catch_warnings():
        # a small test fold may lack a class: evaluate says so once per fold, which is noise here
        warnings.simplefilter("ignore", BaccWarning)
        folds = tuple(evaluate(m, prior=prior, confidence=c) for m in fold_cms)
    return CVEvaluation(
        evaluation=evaluation,
        folds=folds,
        fold_confusions=fold_cms,
        labels=labs,
        fit_time=np.asarray(out["fit_time"], dtype=float),
        score_time=np.asarray(out["score_time"], dtype=float),
    )


def posterior_balanced_accuracy_score(
    y_true: Any,
    y_pred: Any,
    *,
    statistic: str = "mean",
    confidence: float = 0.95,
    prior=(1.0, 1.0),
    labels: Sequence | None = None,
) -> float:
    """A summary of the posterior balanced accuracy of ``(y_true, y_pred)`` as one number.

    Parameters
    ----------
    y_true, y_pred : array_like of shape (n_samples,)
    statistic : {"mean", "median", "lower"}
        Posterior mean (default), posterior median, or the lower end of the central
        ``confidence`` credible interval (the number :func:`bacc.evaluate` prints as the
        interval's left end): a cautious score that also rewards more test examples.
    confidence : float
        Mass of the credible interval used by ``"lower"``.
    prior : (float, float) or per-class pairs or {"flat", "jeffreys"}
    labels : sequence, optional
        The classes (default: those seen in ``y_true`` or ``y_pred``).

    Returns
    -------
    float

    Notes
    -----
    Carrillo et al. (2014), eq. 12: ``lambda = (1/l) sum_i theta_i``, ``theta_i ~ Beta(k_i + a, n_i - k_i + b)``.
    Classes without true examples are left out, without a warning (a small fold often lacks
    one; the score is still defined).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III, eq. 7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4, eq. 12.

    Examples
    --------
    >>> from bacc.sklearn import posterior_balanced_accuracy_score
    >>> y_true = [0] * 45 + [1] * 10
    >>> y_pred = [0] * 42 + [1] * 3 + [0] * 6 + [1] * 4
    >>> round(posterior_balanced_accuracy_score(y_true, y_pred), 4)  # (43/47 + 5/12) / 2
    0.6658
    """
    from .posterior import posterior_balanced_accuracy

    if statistic not in _STATISTICS:
        raise BaccError(f"statistic must be one of {', '.join(map(repr, _STATISTICS))}, got {statistic!r}")
    c = check_confidence(confidence)
    yt = np.asarray(y_true).tolist()
    yp = np.asarray(y_pred).tolist()
    cm = ConfusionMatrix.from_predictions(yt, yp, labels=labels)
    pa, pb = check_prior(prior, cm.n_classes, classes=cm.labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaccWarning)
        post = posterior_balanced_accuracy(cm, prior=np.column_stack([pa, pb]))
    if statistic == "mean":
        return float(post.mean())
    if statistic == "median":
        return float(post.median())
    return float(post.ppf((1.0 - c) / 2.0))


def balanced_accuracy_scorer(
    statistic: str = "mean",
    *,
    confidence: float = 0.95,
    prior=(1.0, 1.0),
    labels: Sequence | None = None,
) -> Callable:
    """A scikit-learn scorer ``scorer(estimator, X, y)`` built on the posterior balanced accuracy.

    Use it as ``scoring=`` in ``cross_val_score``, ``cross_validate``, ``GridSearchCV``, ...
    Greater is better.

    Parameters
    ----------
    statistic : {"mean", "median", "lower"}
        What of the posterior to score with (see :func:`posterior_balanced_accuracy_score`).
        ``"lower"`` prefers a model whose balanced accuracy is *surely* high.
    confidence : float
        Mass of the credible interval used by ``"lower"``.
    prior : (float, float) or per-class pairs or {"flat", "jeffreys"}
    labels : sequence, optional
        The classes; give them when a test fold may lack one.

    Returns
    -------
    callable
        A scorer made by :func:`sklearn.metrics.make_scorer` (so it pickles for ``n_jobs`` and
        takes part in metadata routing).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4, eqs. 12-13.

    Examples
    --------
    >>> from sklearn.datasets import load_iris                   # doctest: +SKIP
    >>> from sklearn.model_selection import cross_val_score      # doctest: +SKIP
    >>> from sklearn.tree import DecisionTreeClassifier          # doctest: +SKIP
    >>> from bacc.sklearn import balanced_accuracy_scorer        # doctest: +SKIP
    >>> X, y = load_iris(return_X_y=True)                        # doctest: +SKIP
    >>> cross_val_score(DecisionTreeClassifier(random_state=0), X, y,
    ...                 scoring=balanced_accuracy_scorer("lower"))  # doctest: +SKIP
    """
    if statistic not in _STATISTICS:
        raise BaccError(f"statistic must be one of {', '.join(map(repr, _STATISTICS))}, got {statistic!r}")
    check_confidence(confidence)
    sk = _sklearn("balanced_accuracy_scorer")
    kwargs: dict = {"statistic": statistic, "confidence": confidence, "prior": prior}
    if labels is not None:
        kwargs["labels"] = list(labels)
    return sk.metrics.make_scorer(posterior_balanced_accuracy_score, greater_is_better=True, **kwargs)
