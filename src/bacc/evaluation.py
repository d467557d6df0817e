"""``bacc.evaluate``: everything about one confusion matrix in one frozen result."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from . import metrics
from ._engine import beta as _beta
from ._engine.helpers.convert import FrozenArrays, jsonable, readonly
from ._engine.helpers.validate import check_confidence, check_prior, check_weights
from .confusion import ConfusionMatrix, as_confusion_matrix, chance_level
from .errors import BaccError
from .posterior import (
    BalancedAccuracyPosterior,
    BetaPosterior,
    balanced_components,
    posterior_accuracy,
    posterior_class_accuracies,
)

__all__ = ["PosteriorSummary", "ClassResult", "Evaluation", "evaluate", "summarize"]


@dataclass(frozen=True)
class PosteriorSummary:
    """Point estimates and central credible interval of a posterior distribution."""

    mean: float
    median: float
    mode: float
    lower: float
    upper: float
    confidence: float

    def to_dict(self) -> dict:
        """Plain dict of floats."""
        return {
            "mean": self.mean,
            "median": self.median,
            "mode": self.mode,
            "lower": self.lower,
            "upper": self.upper,
            "confidence": self.confidence,
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        return (f"<PosteriorSummary: mean {repr_number(self.mean)} "
                f"{repr_interval(self.lower, self.upper)} {repr_level(self.confidence)} credible>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


def summarize(dist, confidence: float = 0.95) -> PosteriorSummary:
    """Mean, median, mode and central ``confidence`` interval of a distribution object."""
    return _summary(dist, check_confidence(confidence))[0]


def _summary(dist, c: float, threshold: float | None = None) -> tuple[PosteriorSummary, float | None]:
    """The summary of ``dist`` and ``P(X > threshold)``, from one call of ``dist.summary``
    (which shares the engine's evaluations between the quantiles, the mode and the tail)."""
    s = dist.summary(c, threshold)
    summary = PosteriorSummary(
        mean=float(s["mean"]),
        median=float(s["median"]),
        mode=float(s["mode"]),
        lower=float(s["lower"]),
        upper=float(s["upper"]),
        confidence=c,
    )
    return summary, s.get("p_above")


def _beta_summaries(posts, c: float) -> list[PosteriorSummary]:
    """The summaries of Beta posteriors (one per class), their quantiles from one vectorised
    call: the same numbers as :func:`summarize` gives one by one (every row of the verified
    quantile iteration is solved on its own)."""
    if not posts:
        return []
    a = np.array([p.a for p in posts])[:, None]
    b = np.array([p.b for p in posts])[:, None]
    q = np.array([(1.0 - c) / 2.0, 0.5, (1.0 + c) / 2.0])
    lo, med, hi = np.asarray(_beta.beta_ppf(q[None, :], a, b)).T
    return [
        PosteriorSummary(mean=float(p.mean()), median=float(m), mode=float(p.mode()),
                         lower=float(l_), upper=float(u), confidence=c)
        for p, l_, m, u in zip(posts, lo, med, hi, strict=True)
    ]  # fmt: skip


@dataclass(frozen=True)
class ClassResult:
    """One class: its counts, sample accuracy (recall) and posterior summary."""

    label: object
    correct: int
    support: int
    sample_accuracy: float
    summary: PosteriorSummary
    included: bool

    def to_dict(self) -> dict:
        """Plain JSON-able dict."""
        return {
            "label": jsonable(self.label),
            "correct": self.correct,
            "support": self.support,
            "sample_accuracy": None if np.isnan(self.sample_accuracy) else self.sample_accuracy,
            "included": self.included,
            **{f"posterior_{k}": v for k, v in self.summary.to_dict().items()},
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        s = self.summary
        left_out = "" if self.included else ", not in the balanced accuracy"
        return (f"<ClassResult {self.label!r}: accuracy {repr_number(s.mean)} "
                f"{repr_interval(s.lower, s.upper)} {repr_level(s.confidence)} credible, "
                f"{self.correct}/{self.support} correct{left_out}>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


@dataclass(frozen=True, eq=False)
class Evaluation(FrozenArrays):
    """Result of :func:`evaluate`. Frozen; ``print()`` it, or ``to_dict()`` for JSON."""

    confusion: ConfusionMatrix
    confidence: float
    prior_a: np.ndarray = field(repr=False)
    prior_b: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    sample_accuracy: float
    sample_balanced_accuracy: float
    accuracy: BetaPosterior = field(repr=False)
    balanced_accuracy: BalancedAccuracyPosterior = field(repr=False)
    accuracy_summary: PosteriorSummary
    balanced_accuracy_summary: PosteriorSummary
    chance: float
    p_above_chance: float
    #: What :attr:`classes` is built from: the matrix, the prior, the confidence and the
    #: labels of the classes in the balanced accuracy.
    class_source: tuple = field(repr=False, compare=False)
    #: The classifier's name, when it was given one (``evaluate(..., name=)``, or the
    #: prediction column of a table): :func:`bacc.rank` and :func:`bacc.compare` keep it.
    name: str | None = None

    @functools.cached_property
    def classes(self) -> tuple[ClassResult, ...]:
        """Per-class counts, sample accuracy and posterior summary, built on first use (for
        1000 classes they cost 10-20 ms, a sixth of the whole evaluation, and many callers
        read the balanced accuracy only)."""
        return _class_results(*self.class_source)

    @property
    def prior(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-class Beta prior parameters ``(a, b)``."""
        return self.prior_a, self.prior_b

    def exact_interval(
        self, *, confidence=None, metric: str = "balanced_accuracy", sides: str = "two", **kw
    ):
        """Frequentist exact (Clopper-Pearson / union-bound) interval; see :func:`bacc.exact_interval`.

        The balanced accuracy's interval uses this evaluation's class weights and its classes
        (a class without examples kept or left out as in the evaluation) unless ``weights=`` or
        ``empty=`` say otherwise.
        """
        import warnings

        from .intervals import exact_interval

        c = self.confidence if confidence is None else confidence
        if metric == "balanced_accuracy":
            kw.setdefault("weights", self.weights)
            # a class without examples in the balanced accuracy (read from the counts, so
            # that the per-class results need not be built)
            included = set(self.balanced_accuracy.labels)
            support = self.confusion.support
            kept = any(
                support[i] == 0 and lab in included for i, lab in enumerate(self.confusion.labels)
            )
            kw.setdefault("empty", "keep" if kept else "drop")
        with warnings.catch_warnings():
            # a class left out was already announced by evaluate
            warnings.simplefilter("ignore", UserWarning)
            return exact_interval(self.confusion, confidence=c, metric=metric, sides=sides, **kw)

    def class_intervals(self, *, confidence=None, sides: str = "two"):
        """Exact (Clopper-Pearson) interval of each class accuracy; see
        :func:`bacc.class_intervals`."""
        from .intervals import class_intervals

        c = self.confidence if confidence is None else confidence
        return class_intervals(self.confusion, confidence=c, sides=sides)

    def plot(self, **kwargs):
        """Posterior density of the balanced accuracy (see :func:`bacc.display.plot.plot_posterior`)."""
        from .display.plot import plot_posterior

        return plot_posterior(self, **kwargs)

    def to_dict(self) -> dict:
        """Plain JSON-able dict of every number shown by ``print``."""
        return {
            "confusion_matrix": self.confusion.to_dict(),
            "confidence": self.confidence,
            "prior": {"a": self.prior_a.tolist(), "b": self.prior_b.tolist()},
            "sample_accuracy": self.sample_accuracy,
            "sample_balanced_accuracy": self.sample_balanced_accuracy,
            "accuracy": self.accuracy_summary.to_dict(),
            "balanced_accuracy": self.balanced_accuracy_summary.to_dict(),
            "chance": self.chance,
            "p_above_chance": self.p_above_chance,
            "classes": [c.to_dict() for c in self.classes],
            **({} if self.name is None else {"name": self.name}),
        }

    def __str__(self) -> str:
        """The table the command line prints: posterior summaries beside the exact intervals."""
        from .display.text import evaluation_table

        return evaluation_table(self, self.exact_interval(),
                                self.exact_interval(metric="accuracy"), self.class_intervals())

    def __repr__(self) -> str:
        """One line: the balanced accuracy's posterior mean, credible interval, P(> chance),
        the classes and the examples (``print()`` gives the full table)."""
        from .display.numbers import repr_interval, repr_level, repr_number, repr_probability
        s = self.balanced_accuracy_summary
        named = "" if self.name is None else f" {self.name!r}"
        return (
            f"<Evaluation{named}: balanced accuracy {repr_number(s.mean)} {repr_interval(s.lower, s.upper)} "
            f"{repr_level(self.confidence)} credible, P(>chance){repr_probability(self.p_above_chance)}, "
            f"{self.confusion.n_classes} classes, n={self.confusion.total}>"
        )

    def _repr_html_(self) -> str:
        from .display.html import evaluation_html

        return evaluation_html(self)


def evaluate(
    matrix_or_cm=None,
    y_pred=None,
    *,
    y_true=None,
    prior=(1.0, 1.0),
    confidence: float = 0.95,
    weights=None,
    rows: str = "true",
    labels=None,
    empty: str = "drop",
    name: str | None = None,
) -> Evaluation:
    """Evaluate a classifier from its confusion matrix, or from true and predicted labels.

    Parameters
    ----------
    matrix_or_cm : ConfusionMatrix, array_like of shape (l, l), or labelled table
        Counts; rows are the true classes unless ``rows="predicted"``. A pandas DataFrame
        gives its index and columns as the labels. With ``y_pred``, the true labels instead
        (scikit-learn's order: ``evaluate(y_true, y_pred)``).
    y_pred, y_true : sequence, optional
        Predicted and true labels, counted with
        :meth:`bacc.ConfusionMatrix.from_predictions` (``labels`` fixes the classes).
    prior : (float, float), per-class pairs, or {"flat", "jeffreys"}
        Beta prior of each class accuracy (default flat). The accuracy uses the first pair.
    confidence : float
        Mass of the central credible intervals (default 0.95).
    weights : array_like, optional
        Class weights of the balanced accuracy (sum to 1).
    empty : {"drop", "keep"}
        What to do with classes that have no true examples (see
        :func:`bacc.posterior_balanced_accuracy`).
    name : str, optional
        The classifier's name, kept by the result (``Evaluation.name``) and used by
        :func:`bacc.rank` and :func:`bacc.compare` for a list of evaluations.

    Returns
    -------
    Evaluation
        Sample accuracy and balanced accuracy, the posteriors of both (distribution objects)
        with mean, median, mode and central interval, per-class posteriors, and the posterior
        probability that the balanced accuracy exceeds chance (``1/l``, ``l`` the classes of
        the matrix: :func:`bacc.confusion.chance_level`).

    See Also
    --------
    bacc.posterior_balanced_accuracy : the posterior alone.
    bacc.exact_interval : exact confidence bounds (``Evaluation.exact_interval``).

    Notes
    -----
    Brodersen et al. (2010), sections II-III, and Carrillo et al. (2014), section 4: ``theta_i ~ Beta(k_i + a, n_i - k_i + b)``,
    ``lambda = sum_i w_i theta_i``.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, sections II-III, eqs. 1-7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, sections 4.3-4.4, eqs. 8-13.

    Examples
    --------
    The biased classifier on an imbalanced test set of Brodersen et al. (2010), Fig. 1:

    >>> import bacc
    >>> ev = bacc.evaluate([[42, 3], [6, 4]])
    >>> round(ev.sample_balanced_accuracy, 4)  # (42/45 + 4/10) / 2
    0.6667
    >>> round(ev.balanced_accuracy_summary.mean, 4)  # (43/47 + 5/12) / 2
    0.6658
    >>> ev.p_above_chance > 0.99  # P(lambda > 1/2) = 0.9955
    True
    """
    c = check_confidence(confidence)
    if name is not None and (not isinstance(name, str) or not name):
        raise BaccError(f"name must be a non-empty string, got {name!r}")
    if y_true is not None:
        if matrix_or_cm is not None:
            raise BaccError("give the true labels once: evaluate(y_true, y_pred) or y_true=")
        matrix_or_cm = y_true
    if matrix_or_cm is None:
        raise BaccError("evaluate needs a confusion matrix, or true and predicted labels")
    if y_pred is not None:
        cm = ConfusionMatrix.from_predictions(matrix_or_cm, y_pred, labels=labels)
    elif y_true is not None:
        raise BaccError("y_true= needs y_pred= (the predicted labels)")
    else:
        cm = as_confusion_matrix(matrix_or_cm, rows=rows, labels=labels)
    pa, pb = check_prior(prior, cm.n_classes, classes=cm.labels)
    w = check_weights(weights, cm.n_classes, classes=cm.labels)
    a, b, w_bal, bal_labels = balanced_components(
        cm, np.column_stack([pa, pb]), w, empty, stacklevel=3
    )
    bal = BalancedAccuracyPosterior(a, b, w_bal, list(bal_labels), chance_level(cm))
    acc = posterior_accuracy(cm, prior=(pa[0], pb[0]))
    chance = bal.chance
    bal_summary, p_above = _summary(bal, c, chance)
    return Evaluation(
        confusion=cm,
        confidence=c,
        prior_a=readonly(pa),
        prior_b=readonly(pb),
        weights=readonly(w),
        sample_accuracy=metrics.accuracy(cm),
        sample_balanced_accuracy=metrics.balanced_accuracy(cm, weights=w),
        accuracy=acc,
        balanced_accuracy=bal,
        accuracy_summary=summarize(acc, c),
        balanced_accuracy_summary=bal_summary,
        chance=chance,
        p_above_chance=p_above,
        class_source=(cm, readonly(pa), readonly(pb), c, frozenset(bal.labels)),
        name=name,
    )


def _class_results(cm: ConfusionMatrix, pa: np.ndarray, pb: np.ndarray, c: float,
                   included: frozenset) -> tuple[ClassResult, ...]:
    """Per-class counts, sample accuracy and posterior summary (``Evaluation.classes``)."""
    class_posts = posterior_class_accuracies(cm, prior=np.column_stack([pa, pb]))
    support = cm.support
    correct = cm.correct
    classes = []
    for i, summary in enumerate(_beta_summaries(class_posts, c)):
        n_i = int(support[i])
        classes.append(
            ClassResult(
                label=cm.labels[i],
                correct=int(correct[i]),
                support=n_i,
                sample_accuracy=float(correct[i] / n_i) if n_i else float("nan"),
                summary=summary,
                included=cm.labels[i] in included,
            )
        )
    return tuple(classes)
