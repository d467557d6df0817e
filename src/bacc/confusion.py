"""Confusion matrices: validated integer counts with class labels.

Convention: ``counts[i, j]`` is the number of examples whose **true** class is ``labels[i]`` and
whose **predicted** class is ``labels[j]`` (rows = true class, as in scikit-learn). The papers
(Brodersen et al. 2010, Carrillo et al. 2014) print matrices the other way round; pass
``rows="predicted"`` to read such a matrix.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._engine.helpers.convert import jsonable
from ._engine.helpers.validate import (
    MAX_CLASSES,
    MAX_COUNT,
    check_choice,
    check_count_limit,
    check_weights,
    unmasked,
)
from .errors import BaccError, BaccWarning
from .labels import check_classes, class_order, encode

__all__ = [
    "ConfusionMatrix",
    "as_confusion_matrix",
    "balanced_classes",
    "chance_level",
    "included_classes",
    "label_order",
    "check_label_values",
]



def _validate_counts(matrix) -> np.ndarray:
    if isinstance(matrix, str | bytes):
        raise BaccError("a confusion matrix must be a square 2-D array of counts, got a string")
    matrix = unmasked(matrix, "the confusion matrix")
    try:
        arr = np.asarray(matrix)
    except (TypeError, ValueError) as exc:
        raise BaccError(f"cannot read the confusion matrix as an array: {exc}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise BaccError(
                "the confusion matrix must contain numbers only (rows of equal length)"
            ) from None
    if arr.dtype.kind not in "biuf":
        raise BaccError(f"the confusion matrix must contain numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise BaccError(
            f"a confusion matrix must be 2-D (classes x classes), got {arr.ndim}-D with shape {arr.shape}"
        )
    if arr.size == 0:
        raise BaccError("the confusion matrix is empty")
    if arr.shape[0] != arr.shape[1]:
        raise BaccError(f"a confusion matrix must be square, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise BaccError(
                f"row {i} of the confusion matrix has a non-finite count ({arr[i, j].item()})"
            )
        frac = arr != np.round(arr)
        if frac.any():
            i, j = np.argwhere(frac)[0]
            raise BaccError(
                f"row {i} of the confusion matrix has a non-integer count ({arr[i, j].item()!r}); "
                "counts must be whole numbers"
            )
    if arr.dtype.kind != "u" and arr.min() < 0:
        i, j = np.argwhere(arr < 0)[0]
        raise BaccError(
            f"row {i} of the confusion matrix has a negative count ({arr[i, j].item()!r})"
        )
    top = arr.max()
    # no class total can pass the limit when l times the largest count does not: the full
    # check (row sums in floating point, the larger part of the cost) only when it might
    if top * float(arr.shape[1]) > MAX_COUNT:
        check_count_limit(arr)
    if top == 0:
        raise BaccError("the confusion matrix has no examples (all counts are 0)")
    return arr.astype(np.int64)


def _check_class_count(n: int) -> None:
    if n > MAX_CLASSES:
        raise BaccError(
            f"{n:,} distinct labels; bacc handles at most {MAX_CLASSES:,} classes (are these "
            "identifiers or scores rather than class labels?)"
        )


def _fraction(v) -> float | None:
    """The value of a number (or of a text that reads as one) when it is not a whole number."""
    if isinstance(v, bool | np.bool_):
        return None
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return None
    if isinstance(v, float | np.floating) and np.isfinite(v) and not float(v).is_integer():
        return float(v)
    return None


def _refuse_scores(seq, name: str) -> None:
    """Refuse continuous scores passed as labels: many distinct non-integer numbers (or texts
    that read as such, from a CSV file)."""
    nums = [f for f in map(_fraction, seq) if f is not None]
    distinct = len(set(nums))
    if distinct > 2 and len(nums) >= 0.5 * len(seq):
        raise BaccError(
            f"{name} looks like continuous scores ({distinct} distinct non-integer values), not "
            "class labels; pass predicted labels, e.g. (score >= threshold), or give the scores to "
            "bacc.scores(y_true, y_score) for the balanced accuracy at every threshold"
        )


def check_label_values(y_true, y_pred) -> None:
    """Refuse what is probably not a pair of class-label columns: continuous scores, or
    predictions that share no label with the truth (used by every counting path)."""
    for name, seq in (("y_true", y_true), ("y_pred", y_pred)):
        for v in seq:
            try:
                hash(v)
            except TypeError:
                text = repr(v)
                raise BaccError(
                    f"{name} holds {type(v).__name__} values (e.g. "
                    f"{text if len(text) <= 30 else text[:27] + '...'}), not single class labels"
                ) from None
        _refuse_scores(seq, name)
    vocab_t, vocab_p = set(y_true), set(y_pred)
    # labels that print alike (1 and "1") are check_one_kind's case, with its own message
    alike = {str(v) for v in vocab_t} & {str(v) for v in vocab_p}
    if vocab_t and vocab_p and not vocab_t & vocab_p and not alike:
        show = lambda v: sorted(map(repr, v))[:4]  # noqa: E731
        raise BaccError(
            f"no predicted label is a true label (true: {', '.join(show(vocab_t))}; "
            f"predicted: {', '.join(show(vocab_p))}): map the predictions to the same "
            "labels (e.g. 1 -> 'fraud'), or pass labels= if that is really meant"
        )


def _validate_labels(labels, n: int) -> tuple:
    if labels is None:
        return tuple(range(n))
    return check_classes(labels, n)


@dataclass(frozen=True, eq=False)
class ConfusionMatrix:
    """Counts of (true class, predicted class) pairs.

    Parameters
    ----------
    counts : array_like of int, shape (l, l)
        ``counts[i, j]`` = number of examples of true class ``labels[i]`` predicted as
        ``labels[j]``. Build from the papers' orientation with
        :meth:`from_matrix` ``(..., rows="predicted")``.
    labels : sequence of hashable, optional
        Class labels, in the order of the rows. Default ``0, 1, ..., l-1``.

    Examples
    --------
    >>> import bacc
    >>> cm = bacc.ConfusionMatrix([[42, 3], [6, 4]], labels=["neg", "pos"])
    >>> cm.correct.tolist(), cm.support.tolist()
    ([42, 4], [45, 10])
    """

    counts: np.ndarray
    labels: tuple = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        counts = _validate_counts(self.counts)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "labels", _validate_labels(self.labels, counts.shape[0]))

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_matrix(cls, matrix, *, rows: str = "true", labels=None) -> ConfusionMatrix:
        """Build from a square matrix whose rows are the true (default) or predicted classes.

        Parameters
        ----------
        matrix : array_like, shape (l, l)
        rows : {"true", "predicted"}
            What the rows of ``matrix`` index. Brodersen et al. (2010) and Carrillo et al.
            (2014) put predictions in rows (``rows="predicted"``); scikit-learn puts the true
            class in rows (``rows="true"``).
        labels : sequence, optional
        """
        check_choice(rows, ("true", "predicted"), "rows")
        counts = _validate_counts(matrix)
        if rows == "predicted":
            counts = counts.T.copy()
        if cls is not ConfusionMatrix:
            return cls(counts, labels)
        # the counts were validated just above (a fresh int64 array): building through
        # __post_init__ would validate them a second time, the larger part of the cost of a
        # small matrix
        obj = object.__new__(cls)
        counts.setflags(write=False)
        object.__setattr__(obj, "counts", counts)
        object.__setattr__(obj, "labels", _validate_labels(labels, counts.shape[0]))
        return obj

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, labels=None) -> ConfusionMatrix:
        """Count ``(y_true, y_pred)`` pairs.

        Every label seen in ``y_true`` or ``y_pred`` is a class of the matrix (a label seen only
        among the predictions is a class with no true examples). ``labels`` fixes the order and
        may add classes never seen; a label outside ``labels`` is an error.
        """
        if labels is not None:
            _check_class_count(len(check_classes(labels)))
        labs, codes = encode(
            {"y_true": y_true, "y_pred": y_pred}, labels=labels,
            refuse=lambda seqs: (check_label_values(*seqs.values()),
                                 _check_class_count(len(set().union(*map(set, seqs.values()))))),
        )
        ti, pi = codes
        n = len(labs)
        counts = np.bincount(ti * n + pi, minlength=n * n).reshape(n, n)
        return cls(counts, labs)

    @classmethod
    def from_folds(cls, folds: Iterable, *, rows: str = "true", labels=None) -> ConfusionMatrix:
        """Sum the confusion matrices of cross-validation folds (Brodersen et al. (2010), section V).

        The sum describes the *algorithm* (the procedure that trains a classifier on each
        training set); a single fold's matrix describes one trained classifier.

        Parameters
        ----------
        folds : iterable of ConfusionMatrix or array_like
            One confusion matrix per fold, all over the same classes.
        rows : {"true", "predicted"}
            What the rows of plain matrices index.
        labels : sequence, optional
            Class labels of plain matrices.

        Returns
        -------
        ConfusionMatrix

        References
        ----------
        .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
           accuracy and its posterior distribution. Proc. 20th International Conference on
           Pattern Recognition (ICPR), 3121-3124, sections II and V.

        Examples
        --------
        >>> import bacc
        >>> cm = bacc.ConfusionMatrix.from_folds([[[14, 0], [0, 14]], [[10, 4], [4, 10]]])
        >>> cm.counts.tolist()
        [[24, 4], [4, 24]]
        """
        mats = []
        for i, f in enumerate(folds):
            if isinstance(f, ConfusionMatrix):
                m = f
            else:
                m = cls.from_matrix(f, rows=rows, labels=labels)
            mats.append((i, m))
        if not mats:
            raise BaccError("from_folds needs at least one fold")
        first = mats[0][1]
        for i, m in mats[1:]:
            if m.labels != first.labels:
                raise BaccError(
                    f"fold {i} has labels {m.labels!r}, fold 0 has {first.labels!r}; folds must share classes"
                )
        total = sum((m.counts.astype(object) for _, m in mats), start=0)
        return cls(np.asarray(total, dtype=np.int64), first.labels)

    # -- derived quantities ------------------------------------------------------------------
    @property
    def n_classes(self) -> int:
        """Number of classes ``l``."""
        return self.counts.shape[0]

    @property
    def correct(self) -> np.ndarray:
        """Correct predictions per true class, ``k_i`` (the diagonal)."""
        return np.diag(self.counts).copy()

    @property
    def support(self) -> np.ndarray:
        """Examples per true class, ``n_i`` (row sums)."""
        return self.counts.sum(axis=1)

    @property
    def predicted(self) -> np.ndarray:
        """Predictions per class (column sums)."""
        return self.counts.sum(axis=0)

    @property
    def total(self) -> int:
        """Number of examples ``n``."""
        return int(self.counts.sum())

    @property
    def total_correct(self) -> int:
        """Number of correct predictions ``k``."""
        return int(np.trace(self.counts))

    def relabel(self, order: Sequence[int]) -> ConfusionMatrix:
        """Return the same matrix with classes permuted: new class ``i`` is old ``order[i]``."""
        order = list(order)
        if sorted(order) != list(range(self.n_classes)):
            raise BaccError(f"order must be a permutation of 0..{self.n_classes - 1}")
        idx = np.asarray(order)
        return ConfusionMatrix(self.counts[np.ix_(idx, idx)], tuple(self.labels[i] for i in order))

    def to_dict(self) -> dict:
        """Plain JSON-able description: labels and counts (rows = true class)."""
        return {"labels": [jsonable(x) for x in self.labels], "counts": self.counts.tolist()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        return self.labels == other.labels and np.array_equal(self.counts, other.counts)

    def __hash__(self) -> int:
        return hash((self.labels, self.counts.tobytes()))

    def __repr__(self) -> str:
        return f"ConfusionMatrix({self.counts.tolist()}, labels={list(self.labels)!r})"

    def __str__(self) -> str:
        """A labelled table: true classes in rows, predicted classes in columns."""
        from .display.text import confusion_text

        return confusion_text(self)


def as_confusion_matrix(obj, *, rows: str = "true", labels=None) -> ConfusionMatrix:
    """Return ``obj`` as a :class:`ConfusionMatrix` (matrices are read with ``rows``).

    A labelled table (a pandas DataFrame, or anything with ``index``, ``columns`` and
    ``to_numpy``) is read with its index as the classes of the rows and its columns as those of
    the columns: they must be the same labels, in any order (the columns are put in the order
    of the index).
    """
    if isinstance(obj, ConfusionMatrix):
        if labels is not None and tuple(labels) != obj.labels:
            raise BaccError("labels= disagrees with the labels of the given ConfusionMatrix")
        return obj
    if hasattr(obj, "counts") and hasattr(obj, "groups") and hasattr(obj, "by"):
        raise BaccError(
            "this is a table of grouped counts (one confusion matrix per group): evaluate each "
            "group with bacc.evaluate_many(counts)"
        )
    if all(hasattr(obj, name) for name in ("index", "columns", "to_numpy")) and labels is None:
        idx, cols = list(obj.index), list(obj.columns)
        if sorted(map(repr, idx)) != sorted(map(repr, cols)):
            raise BaccError(
                f"a labelled confusion matrix needs the same classes in its index and columns, "
                f"got {idx[:5]!r} and {cols[:5]!r}"
            )
        order = [cols.index(lab) for lab in idx]
        values = np.asarray(obj.to_numpy())[:, order]
        return ConfusionMatrix.from_matrix(values, rows=rows, labels=idx)
    return ConfusionMatrix.from_matrix(obj, rows=rows, labels=labels)


def label_order(labels: Iterable) -> tuple:
    """Distinct labels in their natural order (:func:`bacc.labels.class_order`, the one rule).

    Examples
    --------
    >>> label_order(["10", "9", "10", "1"])
    ('1', '9', '10')
    """
    return class_order(labels)


def included_classes(support, empty: str = "drop") -> np.ndarray:
    """Mask of the classes whose accuracy enters the balanced accuracy (vectorised).

    The rule of :func:`balanced_classes` without its weights and warning, for arrays of class
    supports of any shape (the last axis is the class): a class with no true examples is left
    out (``empty="drop"``) or kept (``empty="keep"``).
    """
    check_choice(empty, ("drop", "keep"), "empty")
    support = np.asarray(support)
    return support > 0 if empty == "drop" else np.ones(support.shape, dtype=bool)


def chance_level(cm: ConfusionMatrix) -> float:
    """The chance level of the accuracy and of the balanced accuracy: ``1 / l``, ``l`` the
    number of classes of the matrix (its labels, counting those with no true examples).

    The one definition, used everywhere. A classifier that ignores its input and predicts
    each of the ``l`` labels with probability ``1 / l`` has every class accuracy (recall)
    ``1 / l``, so its balanced accuracy is ``1 / l`` whatever the weights and the class
    imbalance, and so is its accuracy. A class without true examples still counts: the
    classifier chooses among all ``l`` labels (``[[0, 0], [1, 99]]`` has chance 1/2, not 1).

    References
    ----------
    Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
    evaluation for multiclass classification using the posterior balanced accuracy. ROBOT2013,
    347-361, section 4.4.
    """
    return 1.0 / cm.n_classes


def balanced_classes(
    cm: ConfusionMatrix,
    weights=None,
    *,
    empty: str = "drop",
    warn: bool = True,
    stacklevel: int = 2,
    support: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Which classes enter the balanced accuracy, and with what weights: the one rule.

    A class with no true examples (it appears only among the predictions) has no accuracy to
    average. With ``empty="drop"`` (the default, as scikit-learn does) it is left out, with a
    :class:`bacc.BaccWarning`, and the weights of the other classes are rescaled to sum to 1;
    with ``empty="keep"`` every class stays (its posterior is then the prior, its exact bounds
    ``[0, 1]``).

    Parameters
    ----------
    cm : ConfusionMatrix
    weights : array_like, optional
        Class weights (default ``1 / l``); see :func:`bacc.posterior_balanced_accuracy`.
    empty : {"drop", "keep"}
    warn : bool
        Warn when a class is left out.
    stacklevel : int
        As in :func:`warnings.warn`, counted from the caller of this function.
    support : ndarray, optional
        ``cm.support``, when the caller has already summed it (it is not summed again).

    Returns
    -------
    included : ndarray of bool, shape (l,)
    w : ndarray of float, shape (included.sum(),)
        Weights of the included classes, summing to 1 (a weight may be 0).

    Raises
    ------
    BaccError
        ``empty`` is not "drop" or "keep", no class has examples, or the included classes all
        have weight 0.

    References
    ----------
    Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced accuracy
    and its posterior distribution. Proc. 20th ICPR, 3121-3124.
    Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
    evaluation for multiclass classification using the posterior balanced accuracy. ROBOT2013,
    347-361, eq. 12-13.
    """
    support = cm.support if support is None else support
    w = check_weights(weights, cm.n_classes, classes=cm.labels) if weights is not None else None
    check_choice(empty, ("drop", "keep"), "empty")
    has = support > 0
    # ``has`` is the mask of included classes when all have examples or empty="drop"
    included = has
    if not has.all():
        if not has.any():
            raise BaccError("no class has true examples")
        if empty == "keep":
            included = np.ones(support.shape, dtype=bool)
        elif warn:
            missing = [cm.labels[i] for i in np.flatnonzero(~has)]
            shown = repr(missing) if len(missing) <= 8 else (
                f"{missing[:5]!r}"[:-1] + f", ... ({len(missing)} classes)]")
            warnings.warn(
                f"class(es) {shown} have no true examples and are left out of the balanced "
                "accuracy (pass empty='keep' to keep them: posterior = prior, exact bounds "
                "[0, 1])",
                BaccWarning,
                stacklevel=stacklevel + 1,
            )
    if weights is None:
        m = int(included.sum())
        return included, np.full(m, 1.0 / m)
    wi = w[included]
    total = wi.sum()
    if total <= 0:
        raise BaccError("the classes that enter the balanced accuracy all have weight 0")
    return included, wi / total
