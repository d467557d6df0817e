"""Scores and labels as given by a user, checked and tallied (the array input of
:func:`bacc.scores` and :func:`bacc.compare_auc`).

Scores must be numbers, finite, and not the class labels themselves (hard predictions belong to
:func:`bacc.evaluate`); true labels must not be continuous scores (the arguments swapped).
"""

from __future__ import annotations

import numbers

import numpy as np

from .confusion import ConfusionMatrix
from .errors import BaccError
from .labels import class_index, is_missing

__all__ = ["check_threshold", "as_scores", "refuse_labels_as_scores", "refuse_scores_as_labels",
           "tally", "decision_matrix", "positive_class", "ovr_classes", "need_both_classes", "distinct_values"]


def check_threshold(t) -> float:
    if isinstance(t, bool) or not isinstance(t, numbers.Real) or np.isnan(t):
        raise BaccError(f"threshold must be a number, got {t!r}")
    return float(t)


def as_scores(y_score, name: str = "y_score") -> np.ndarray:
    """Scores as a float array: numbers only, finite, not the class labels themselves."""
    if hasattr(y_score, "to_numpy") and not isinstance(y_score, np.ndarray):
        y_score = y_score.to_numpy()
    if np.ma.isMaskedArray(y_score):
        if np.ma.getmaskarray(y_score).any():
            raise BaccError(f"{name} has masked entries; drop those examples first")
        y_score = np.ma.getdata(y_score)
    if isinstance(y_score, str | bytes | dict | set) or not hasattr(y_score, "__len__"):
        raise BaccError(f"{name} must be a sequence of scores, got a {type(y_score).__name__}")
    try:
        arr = np.asarray(y_score)
    except (TypeError, ValueError):
        raise BaccError(f"{name} must be one score per example (or one column per class), got "
                        f"entries of different shapes") from None
    if arr.dtype == object:
        missing = [i for i, v in enumerate(arr.ravel()) if is_missing(v)]
        if missing:
            raise BaccError(f"{name} has {len(missing)} missing score(s) (the first at position "
                            f"{missing[0]}); drop those examples first")
        if any(isinstance(v, str | bytes) for v in arr.ravel()):
            raise BaccError(f"{name} holds texts (class labels?), not scores: give a numeric "
                            "score per example (a probability or a decision value)")
    if arr.dtype.kind in "USO":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise BaccError(f"{name} holds texts (class labels?), not scores: give a numeric "
                            "score per example (a probability or a decision value)") from None
    if arr.dtype.kind == "b":
        raise BaccError(f"{name} holds True/False decisions, not scores: for hard predictions use "
                        "bacc.evaluate(y_true, y_pred)")
    if arr.dtype.kind not in "iuf":
        raise BaccError(f"{name} must hold numbers, got values of type {arr.dtype}")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad.ravel())
        raise BaccError(f"{name} has {idx.size} score(s) that are NaN or infinite (the first at "
                        f"position {idx[0]}); drop or fix those examples first")
    return arr


def refuse_labels_as_scores(values: np.ndarray, classes: tuple, name: str) -> None:
    """Refuse hard predictions given as scores: every score is one of the class labels."""
    distinct = np.unique(values)
    numeric = [c for c in classes if isinstance(c, numbers.Real) and not isinstance(c, bool)]
    if 1 <= distinct.size <= 2 and len(numeric) == len(classes) and set(distinct.tolist()) <= {
            float(c) for c in numeric}:
        raise BaccError(
            f"{name} holds only the class labels ({', '.join(map(repr, distinct.tolist()))}): "
            "these are predicted labels, not scores; use bacc.evaluate(y_true, y_pred) for hard "
            "predictions, or pass a score per example (a probability or a decision value)"
        )


def refuse_scores_as_labels(y_true) -> None:
    """Refuse continuous scores given where the true labels are expected (looks at each distinct
    value once)."""
    from .confusion import check_label_values

    distinct = distinct_values(y_true)
    try:
        check_label_values(distinct, distinct)
    except BaccError as exc:
        raise BaccError(f"{exc}: the true labels come first, bacc.scores(y_true, y_score)") from None


def tally(codes: np.ndarray, values: np.ndarray, ip: int) -> tuple[np.ndarray, ...]:
    """Distinct scores, decreasing, with the positives and the negatives at each."""
    uniq, inverse = np.unique(values, return_inverse=True)
    pos = np.bincount(inverse, weights=(codes == ip), minlength=uniq.size).astype(np.int64)
    tot = np.bincount(inverse, minlength=uniq.size).astype(np.int64)
    return uniq[::-1].copy(), pos[::-1].copy(), (tot - pos)[::-1].copy()


def positive_class(classes: tuple, positive) -> object:
    if positive is None:
        return classes[-1]
    return classes[class_index(positive, classes, "positive")]




def ovr_classes(classes: tuple, i: int) -> tuple:
    """The two classes of one-vs-rest curve ``i``: the rest (a tuple of the other classes)
    first, the class itself second."""
    return (tuple(c for j, c in enumerate(classes) if j != i), classes[i])


def need_both_classes(present: np.ndarray, classes: tuple, several: bool = False) -> None:
    missing = [c for c, k in zip(classes, present, strict=True) if k == 0]
    if missing and not several:
        raise BaccError(
            f"the true labels hold one class only ({', '.join(repr(c) for c, k in zip(classes, present, strict=True) if k)}): "
            f"a score curve needs examples of both classes (no example of {missing[0]!r})")
    if missing:
        raise BaccError(f"no example of class {missing[0]!r} among the true labels: every class "
                        "needs examples for its one-vs-rest curve")


def distinct_values(values) -> list:
    """The distinct values of a label sequence, as plain Python values."""
    arr = values.to_numpy() if hasattr(values, "to_numpy") and not isinstance(
        values, np.ndarray) else values
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "biufU" and not np.ma.isMaskedArray(arr):
        if arr.dtype.kind != "f" or not np.isnan(arr).any():
            return np.unique(arr).tolist()
    try:
        return list(dict.fromkeys(values.tolist() if hasattr(values, "tolist") else values))
    except TypeError:  # unhashable entries: encode names them
        return []


def decision_matrix(classes: tuple, positive, tp: int, fp: int, P: int, N: int) -> ConfusionMatrix:
    """The confusion matrix (classes in order) of decisions with ``tp`` of the ``P`` positives and
    ``fp`` of the ``N`` negatives predicted positive. For a one-vs-rest curve (the other class a
    tuple of classes) the rest is named ``"not <class>"``."""
    ip = classes.index(positive)
    m = np.zeros((2, 2), dtype=np.int64)
    m[ip, ip], m[ip, 1 - ip] = tp, P - tp
    m[1 - ip, ip], m[1 - ip, 1 - ip] = fp, N - fp
    labels = classes
    if isinstance(classes[1 - ip], tuple):
        labels = (f"not {positive}", str(positive))
    return ConfusionMatrix(m, labels=labels)
