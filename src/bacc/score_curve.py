"""Scores, not only decisions: the balanced accuracy at every threshold, and the ROC.

Most classifiers output a score, and the balanced accuracy of their decisions depends on the
threshold that turns scores into decisions. :func:`scores` takes the true labels and the scores
(arrays, a table, or files counted where they live) and returns a :class:`ScoreCurve`: the counts
at every threshold, from which it answers the questions people have about scores:

* the balanced accuracy, sensitivity and specificity at every threshold, with posterior and exact
  pointwise and simultaneous bands (:meth:`ScoreCurve.curve`, :mod:`bacc.threshold_curve`);
* the best threshold and what choosing it on the same data costs (:meth:`ScoreCurve.best_threshold`);
* thresholds with a distribution-free guarantee on recall, false-positive rate or precision at a
  deployment prevalence (:meth:`ScoreCurve.threshold_for`, :mod:`bacc.guaranteed_threshold`);
* the ROC curve with a simultaneous band and the AUC with labelled intervals
  (:meth:`ScoreCurve.roc`, :meth:`ScoreCurve.auc`, :mod:`bacc.roc`).

Decision rule: a score at or above the threshold ``t`` predicts the positive class
(``score >= t``), as scikit-learn's ``roc_curve``.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.roc import tallied_counts
from .confusion import ConfusionMatrix
from .errors import BaccError
from .labels import class_index, encode, is_missing

__all__ = ["scores", "scores_from_tallies", "ScoreCurve", "OneVsRest"]


# ----------------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class ScoreCurve(FrozenArrays):
    """The scores of a two-class problem, tallied: every distinct score with its positives and
    negatives (see :func:`scores`).

    Attributes
    ----------
    classes : tuple
        The two classes, in bacc's class order.
    positive : object
        The class a score at or above the threshold predicts.
    values : ndarray of float
        The distinct scores, in decreasing order (with ``binned``, the lower edges of the bins the
        data engine counted; the counts at these thresholds stay exact).
    positives, negatives : ndarray of int
        Examples of the positive and of the other class at each value.
    binned : bool
        Whether the scores were grouped into bins by the data engine (``max_thresholds``).
    name : str or None
        The score's name (a column name, or the key of a mapping).
    """

    classes: tuple
    positive: object
    values: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    binned: bool = False
    name: str | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ counts at thresholds
    @property
    def negative(self) -> object:
        """The other class."""
        return self.classes[1 - self.classes.index(self.positive)]

    @property
    def n_positive(self) -> int:
        """Examples of the positive class."""
        return int(self.positives.sum())

    @property
    def n_negative(self) -> int:
        """Examples of the other class."""
        return int(self.negatives.sum())

    @cached_property
    def _counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t, tp, fp = tallied_counts(self.values, self.positives, self.negatives)
        for a in (t, tp, fp):
            a.flags.writeable = False
        return t, tp, fp

    @property
    def thresholds(self) -> np.ndarray:
        """Every threshold where a decision changes, decreasing: ``+inf`` (nothing predicted
        positive), then every distinct score (``score >= t`` predicts positive)."""
        return self._counts[0]

    @property
    def tp(self) -> np.ndarray:
        """Positives at or above each threshold (true positives)."""
        return self._counts[1]

    @property
    def fp(self) -> np.ndarray:
        """Negatives at or above each threshold (false positives)."""
        return self._counts[2]

    @property
    def sensitivity(self) -> np.ndarray:
        """Sample sensitivity (recall, true-positive rate) at each threshold."""
        return self.tp / self.n_positive

    @property
    def specificity(self) -> np.ndarray:
        """Sample specificity (1 - false-positive rate) at each threshold."""
        return 1.0 - self.fp / self.n_negative

    @property
    def balanced_accuracy(self) -> np.ndarray:
        """Sample balanced accuracy at each threshold."""
        return 0.5 * (self.sensitivity + self.specificity)

    @property
    def sample_auc(self) -> float:
        """The area under the sample ROC curve (Mann-Whitney, ties count one half)."""
        from ._engine.roc import auc

        return float(auc(self.tp, self.fp))

    # ------------------------------------------------------------------------- questions
    def matrix(self, threshold: float) -> ConfusionMatrix:
        """The confusion matrix of the decisions ``score >= threshold`` (classes in order)."""
        t = _check_threshold(threshold)
        j = int(np.searchsorted(-self.thresholds, -t, side="right")) - 1
        tp, fp = int(self.tp[j]), int(self.fp[j])
        P, N = self.n_positive, self.n_negative
        ip = self.classes.index(self.positive)
        m = np.zeros((2, 2), dtype=np.int64)
        m[ip, ip], m[ip, 1 - ip] = tp, P - tp
        m[1 - ip, ip], m[1 - ip, 1 - ip] = fp, N - fp
        labels = self.classes
        if isinstance(self.negative, tuple):  # one-vs-rest: the rest named by its class
            labels = (f"not {self.positive}", str(self.positive))
        return ConfusionMatrix(m, labels=labels)

    def at(self, threshold: float, **kwargs):
        """Everything :func:`bacc.evaluate` says about the decisions ``score >= threshold``."""
        from .evaluation import evaluate

        return evaluate(self.matrix(threshold), **kwargs)

    def curve(self, *, confidence: float = 0.95, points: int | str = 2001, prior=(1.0, 1.0)):
        """The balanced accuracy, sensitivity and specificity at every threshold with their
        bands (see :func:`bacc.threshold_curve.threshold_curve`)."""
        from .threshold_curve import threshold_curve

        return threshold_curve(self, confidence=confidence, points=points, prior=prior)

    def best_threshold(self, *, criterion: str = "mean", honest: str = "crossfit",
                       confidence: float = 0.95, folds: int = 5, repeats: int = 10,
                       test_size: float = 0.5, prior=(1.0, 1.0), random_state=0):
        """The threshold that maximises the balanced accuracy, and what choosing it on the same
        data inflates (see :func:`bacc.threshold_curve.best_threshold`)."""
        from .threshold_curve import best_threshold

        return best_threshold(self, criterion=criterion, honest=honest, confidence=confidence,
                              folds=folds, repeats=repeats, test_size=test_size, prior=prior,
                              random_state=random_state)

    def threshold_for(self, *, recall: float | None = None, fpr: float | None = None,
                      precision: float | None = None, prevalence: float | None = None,
                      confidence: float = 0.95):
        """A threshold with a distribution-free guarantee (see
        :func:`bacc.guaranteed_threshold.threshold_for`)."""
        from .guaranteed_threshold import threshold_for

        return threshold_for(self, recall=recall, fpr=fpr, precision=precision,
                             prevalence=prevalence, confidence=confidence)

    def roc(self, *, confidence: float = 0.95):
        """The ROC curve with its simultaneous band (see :func:`bacc.roc.roc_curve`)."""
        from .roc import roc_curve

        return roc_curve(self, confidence=confidence)

    def auc(self, method: str = "delong", *, confidence: float = 0.95, draws: int = 20_000,
            random_state=0):
        """The AUC with an interval by ``method`` (see :func:`bacc.roc.auc_interval`)."""
        from .roc import auc_interval

        return auc_interval(self, method=method, confidence=confidence, draws=draws,
                            random_state=random_state)

    def plot(self, **kwargs):
        """The threshold curve with its bands and the best threshold, beside the ROC curve with
        its band (see :func:`bacc.display.scores_plot.plot_scores`)."""
        from .display.scores_plot import plot_scores

        return plot_scores(self, **kwargs)

    # ------------------------------------------------------------------------ travelling
    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_counts",)}
        state["_cache"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def to_dict(self) -> dict:
        """Plain dict (strict JSON): the classes, the tallies and the sample summary."""
        return {
            "name": self.name,
            "classes": [jsonable(c) for c in self.classes],
            "positive": jsonable(self.positive),
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
            "binned": self.binned,
            "sample_auc": self.sample_auc,
            "values": self.values.tolist(),
            "positives": self.positives.tolist(),
            "negatives": self.negatives.tolist(),
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, ScoreCurve):
            return NotImplemented
        return (self.classes == other.classes and self.positive == other.positive
                and self.binned == other.binned and self.name == other.name
                and np.array_equal(self.values, other.values)
                and np.array_equal(self.positives, other.positives)
                and np.array_equal(self.negatives, other.negatives))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return (f"<ScoreCurve{label}: {self.n_positive} positive ({jsonable(self.positive)!r}) "
                f"and {self.n_negative} negative, {len(self.values)} distinct scores"
                f"{' (binned)' if self.binned else ''}, sample AUC {self.sample_auc:.4f}>")

    def __str__(self) -> str:
        from .display.scores_text import score_curve_text

        return score_curve_text(self)


class OneVsRest(Mapping):
    """One :class:`ScoreCurve` per class (that class positive, every other negative), from one
    score column per class (probabilities of several classes).

    A read-only mapping ``class -> ScoreCurve``, in class order.
    """

    def __init__(self, curves: Mapping) -> None:
        self._curves = dict(curves)

    def __getitem__(self, key) -> ScoreCurve:
        return self._curves[key]

    def __iter__(self):
        return iter(self._curves)

    def __len__(self) -> int:
        return len(self._curves)

    @property
    def classes(self) -> tuple:
        """The classes, in order."""
        return tuple(self._curves)

    def auc(self, method: str = "delong", *, confidence: float = 0.95, **kwargs) -> dict:
        """Each class's AUC against the rest, by ``method`` (see :meth:`ScoreCurve.auc`)."""
        return {c: cur.auc(method, confidence=confidence, **kwargs)
                for c, cur in self._curves.items()}

    def macro_auc(self) -> float:
        """The unweighted mean of the one-vs-rest sample AUCs (scikit-learn's
        ``roc_auc_score(..., multi_class="ovr", average="macro")``)."""
        return float(np.mean([c.sample_auc for c in self._curves.values()]))

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        return {"classes": [jsonable(c) for c in self._curves],
                "macro_auc": self.macro_auc(),
                "curves": [c.to_dict() for c in self._curves.values()]}

    def __eq__(self, other) -> bool:
        if not isinstance(other, OneVsRest):
            return NotImplemented
        return list(self._curves.items()) == list(other._curves.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{jsonable(c)!r}: {cur.sample_auc:.4f}" for c, cur in self._curves.items())
        return f"<OneVsRest sample AUCs {{{inner}}}, macro {self.macro_auc():.4f}>"


# ------------------------------------------------------------------------------- inputs
def _check_threshold(t) -> float:
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
    if isinstance(y_score, str | bytes):
        raise BaccError(f"{name} must be a sequence of scores, got a {type(y_score).__name__}")
    arr = np.asarray(y_score)
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


def _refuse_labels_as_scores(values: np.ndarray, classes: tuple, name: str) -> None:
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

    distinct = _distinct(y_true)
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


def _from_arrays(y_true, y_score, *, positive, labels, name) -> ScoreCurve | OneVsRest:
    if y_score is None:
        raise BaccError("bacc.scores needs the scores: bacc.scores(y_true, y_score), or a table "
                        "with true= and score= columns")
    if labels is None:
        refuse_scores_as_labels(y_true)
    classes, (codes,) = encode({"y_true": y_true}, labels=labels)
    arr = as_scores(y_score)
    if arr.ndim == 0 or arr.ndim > 2:
        raise BaccError(f"y_score must be one score per example (1-D) or one column per class "
                        f"(2-D), got an array of shape {arr.shape}")
    if arr.shape[0] != codes.size:
        raise BaccError(f"y_true and y_score must have the same length (one score per example), "
                        f"got {codes.size} and {arr.shape[0]}")
    present = np.bincount(codes, minlength=len(classes))
    if int(np.count_nonzero(present)) < 2:
        raise BaccError(
            f"the true labels hold one class only ({classes[int(np.argmax(present))]!r}): a score "
            "curve needs examples of both classes")
    if arr.ndim == 2 and arr.shape[1] != len(classes):
        if arr.shape[1] == 1:
            arr = arr[:, 0]
        else:
            raise BaccError(
                f"y_score has {arr.shape[1]} columns but there are {len(classes)} classes "
                f"({', '.join(map(repr, classes))}): give one column per class, in this order "
                "(or labels=)")
    if arr.ndim == 1:
        if len(classes) != 2:
            raise BaccError(
                f"one score per example needs two classes; y_true has {len(classes)} "
                f"({', '.join(map(repr, classes[:6]))}): give one score column per class "
                "(an array of shape (n, classes)) for one-vs-rest curves")
        _need_both(present, classes)
        pos = positive_class(classes, positive)
        _refuse_labels_as_scores(arr, classes, "y_score")
        return ScoreCurve(classes, pos, *tally(codes, arr, classes.index(pos)), name=name)
    if len(classes) == 2:
        pos = positive_class(classes, positive)
        ip = classes.index(pos)
        _need_both(present, classes)
        return ScoreCurve(classes, pos, *tally(codes, arr[:, ip], ip), name=name)
    if positive is not None:
        raise BaccError("positive= applies to two classes; with one score column per class every "
                        "class is positive in turn (one-vs-rest)")
    _need_both(present, classes, several=True)
    return OneVsRest({c: ScoreCurve(_ovr_classes(classes, i), c, *tally(codes, arr[:, i], i),
                                    name=name)
                      for i, c in enumerate(classes)})


def _ovr_classes(classes: tuple, i: int) -> tuple:
    """The two classes of one-vs-rest curve ``i``: the rest (a tuple of the other classes)
    first, the class itself second."""
    return (tuple(c for j, c in enumerate(classes) if j != i), classes[i])


def _need_both(present: np.ndarray, classes: tuple, several: bool = False) -> None:
    missing = [c for c, k in zip(classes, present, strict=True) if k == 0]
    if missing and not several:
        raise BaccError(
            f"the true labels hold one class only ({', '.join(repr(c) for c, k in zip(classes, present, strict=True) if k)}): "
            f"a score curve needs examples of both classes (no example of {missing[0]!r})")
    if missing:
        raise BaccError(f"no example of class {missing[0]!r} among the true labels: every class "
                        "needs examples for its one-vs-rest curve")


def _distinct(values) -> list:
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


def scores_from_tallies(tally, name: str | None = None) -> ScoreCurve:
    """A :class:`ScoreCurve` from tallies counted by the data engine
    (:func:`bacc.counting.scores.score_tallies`)."""
    values = np.asarray(tally.values, dtype=np.float64)
    order = np.argsort(-values, kind="stable")
    return ScoreCurve(tuple(tally.classes), tally.positive, values[order],
                      np.asarray(tally.positives, dtype=np.int64)[order],
                      np.asarray(tally.negatives, dtype=np.int64)[order],
                      binned=bool(tally.binned), name=name)


def scores(
    y_true=None,
    y_score=None,
    *,
    true: str | None = None,
    score: str | Sequence[str] | None = None,
    positive=None,
    labels=None,
    max_thresholds: int | None = None,
    sep: str | None = None,
    name: str | None = None,
) -> ScoreCurve | OneVsRest:
    """The scores of a classifier, tallied at every threshold.

    Parameters
    ----------
    y_true : sequence, or table
        The true labels (array, list, pandas Series); or a table holding the columns ``true``
        and ``score``: a pandas, polars or dask DataFrame, a mapping of columns, or a file path
        (CSV or Parquet; a glob, a directory or a list of files), counted where the data live.
    y_score : sequence or array of shape (n,) or (n, classes)
        One score per example (higher means more positive: a probability, a decision value), or
        one column per class (probabilities of several classes) for one-vs-rest curves.
    true, score : str
        With a table: the column of the true labels, and the score column (or a list of score
        columns, one per class in the order of ``labels``, for one-vs-rest).
    positive : label, optional
        The class a high score predicts (default: the second of the two classes in bacc's class
        order, e.g. 1 of 0/1, True of False).
    labels : sequence, optional
        The classes, in order (for one-vs-rest, the order of the score columns).
    max_thresholds : int, optional
        Tables and files only: when the scores take more distinct values than this, the data
        engine counts them in this many bins cut at approximate quantiles, so memory stays
        bounded; the counts at the bins' edges stay exact. Default: every distinct score.
    sep : str, optional
        Field separator of text files (default: detected).
    name : str, optional
        The score's name, kept by the result (default: the score column's name).

    Returns
    -------
    ScoreCurve or OneVsRest
        One curve for two classes; a mapping class -> curve for one score column per class.

    Raises
    ------
    BaccError
        Scores with NaN or infinite values, texts or True/False given as scores, scores that are
        only the class labels (hard predictions: use :func:`bacc.evaluate`), continuous scores
        given as the true labels, a single class, more than two classes with one score column,
        or sequences of different lengths.

    See Also
    --------
    bacc.evaluate : the balanced accuracy of hard predictions.

    References
    ----------
    .. [1] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27,
       861-874, algorithm 1 (the counts at every threshold from the sorted scores).

    Examples
    --------
    >>> import bacc
    >>> sc = bacc.scores([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> sc.thresholds.tolist()
    [inf, 0.9, 0.8, 0.4, 0.35, 0.2, 0.1]
    >>> sc.balanced_accuracy.round(3).tolist()
    [0.5, 0.667, 0.833, 0.667, 0.833, 0.667, 0.5]
    >>> round(sc.sample_auc, 4)
    0.8889
    """
    if true is not None or score is not None:
        return _from_table(y_true, y_score, true=true, score=score, positive=positive,
                           labels=labels, max_thresholds=max_thresholds, sep=sep, name=name)
    if max_thresholds is not None:
        raise BaccError("max_thresholds= applies to tables and files counted by the data engine "
                        "(true= and score= columns); arrays are tallied exactly")
    if y_true is None:
        raise BaccError("bacc.scores needs the true labels and the scores: "
                        "bacc.scores(y_true, y_score), or a table with true= and score= columns")
    if _is_table(y_true) and y_score is None:
        raise BaccError("a table needs its columns: bacc.scores(table, true=COLUMN, score=COLUMN)")
    return _from_arrays(y_true, y_score, positive=positive, labels=labels, name=name)


def _is_table(obj) -> bool:
    import os

    from .counting.files import is_file_source

    if isinstance(obj, Mapping) or isinstance(obj, str | os.PathLike) or is_file_source(obj):
        return True
    mod = type(obj).__module__.split(".")[0]
    return mod in ("pandas", "polars", "dask", "pyarrow", "narwhals") and hasattr(obj, "columns")


def _from_table(source, extra, *, true, score, positive, labels, max_thresholds, sep, name):
    from .counting.scores import score_tallies

    if extra is not None:
        raise BaccError("give either y_true and y_score, or a table with true= and score= "
                        "columns, not both")
    if source is None:
        raise BaccError("true= and score= name columns of a table: bacc.scores(table, "
                        "true=COLUMN, score=COLUMN)")
    if true is None or score is None:
        raise BaccError("a table needs both columns: true=COLUMN (the true labels) and "
                        "score=COLUMN (the scores)")
    if max_thresholds is not None:
        from ._engine.helpers.validate import check_int

        max_thresholds = check_int(max_thresholds, "max_thresholds", 2, 2**62)
    got = score_tallies(source, true=true, score=score, positive=positive, labels=labels,
                        max_thresholds=max_thresholds, sep=sep)
    if isinstance(got, Mapping):
        return OneVsRest({c: scores_from_tallies(t, name=name or _col(score, i))
                          for i, (c, t) in enumerate(got.items())})
    return scores_from_tallies(got, name=name or str(score))


def _col(score, i: int) -> str:
    if isinstance(score, Mapping):
        return str(list(score.values())[i])
    return str(list(score)[i])
