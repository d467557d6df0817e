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

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.roc import tallied_counts
from .confusion import ConfusionMatrix
from .errors import BaccError
from .labels import encode
from .score_inputs import (
    as_scores,
    check_threshold,
    decision_matrix,
    need_both_classes,
    ovr_classes,
    positive_class,
    refuse_labels_as_scores,
    refuse_scores_as_labels,
    tally,
)

__all__ = ["from_arrays", "scores_from_tallies", "ScoreCurve", "OneVsRest"]


# ----------------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class ScoreCurve(FrozenArrays):
    """The scores of a two-class problem, tallied: every distinct score with its positives and
    negatives (see :func:`bacc.scores`).

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
        t = check_threshold(threshold)
        j = int(np.searchsorted(-self.thresholds, -t, side="right")) - 1
        return decision_matrix(self.classes, self.positive, int(self.tp[j]), int(self.fp[j]),
                               self.n_positive, self.n_negative)

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

    def _repr_html_(self) -> str:
        from .display.scores_html import score_curve_html

        return score_curve_html(self)

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
def from_arrays(y_true, y_score, *, positive, labels, name) -> ScoreCurve | OneVsRest:
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
        need_both_classes(present, classes)
        pos = positive_class(classes, positive)
        refuse_labels_as_scores(arr, classes, "y_score")
        return ScoreCurve(classes, pos, *tally(codes, arr, classes.index(pos)), name=name)
    if len(classes) == 2:
        pos = positive_class(classes, positive)
        ip = classes.index(pos)
        need_both_classes(present, classes)
        return ScoreCurve(classes, pos, *tally(codes, arr[:, ip], ip), name=name)
    if positive is not None:
        raise BaccError("positive= applies to two classes; with one score column per class every "
                        "class is positive in turn (one-vs-rest)")
    need_both_classes(present, classes, several=True)
    return OneVsRest({c: ScoreCurve(ovr_classes(classes, i), c, *tally(codes, arr[:, i], i),
                                    name=name)
                      for i, c in enumerate(classes)})


def scores_from_tallies(counted, name: str | None = None, *, one_vs_rest: bool = False
                        ) -> ScoreCurve:
    """A :class:`ScoreCurve` from tallies counted by the data engine
    (:func:`bacc.counting.scores.score_tallies`); ``one_vs_rest``: the tally's positive class
    against every other class of ``counted.classes``."""
    values = np.asarray(counted.values, dtype=np.float64)
    order = np.argsort(-values, kind="stable")
    classes = tuple(counted.classes)
    if one_vs_rest:
        classes = ovr_classes(classes, classes.index(counted.positive))
    return ScoreCurve(classes, counted.positive, values[order],
                      np.asarray(counted.positives, dtype=np.int64)[order],
                      np.asarray(counted.negatives, dtype=np.int64)[order],
                      binned=bool(counted.binned), name=name)


