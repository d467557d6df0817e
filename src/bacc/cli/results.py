"""The command line's calls into the library: each input evaluated, two compared, several ranked.

Nothing is computed here: :func:`bacc.evaluate`, :func:`bacc.exact_interval`,
:func:`bacc.class_intervals`, :func:`bacc.fold_sem_interval`, :func:`bacc.evaluate_many`,
:func:`bacc.compare`, :func:`bacc.compare_paired` and :func:`bacc.rank` do the statistics; this
module hands them the options and collects what the outputs show.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import BaccError, BaccWarning
from ..progress import Progress
from .inputs import Item, parse_prior, parse_weights

__all__ = [
    "Evaluated",
    "Settings",
    "UndefinedMetric",
    "resolve_paired",
    "shares_examples",
    "batch_summary",
    "compare_items",
    "evaluate_item",
    "evaluate_items",
    "metric_extras",
    "metric_results",
    "rank_results",
]


@dataclass(frozen=True)
class Settings:
    """The statistics options of a command.

    Attributes
    ----------
    prior : str, (float, float) or list of pairs
        Beta prior of each class accuracy (``--prior``; default flat).
    confidence : float
        Mass of credible and coverage of exact intervals (``--confidence``).
    weights : str or None
        The text of ``--weights``, read per input (the classes may differ between inputs).
    exact_method : str
        Exact interval of the balanced accuracy (``--exact-method``).
    tuned_for : float or None
        Examples per class at which an anytime-valid sequence is tightest (``--tuned-for``).
    empty : {"drop", "keep"}
        What to do with a class without true examples (``--empty``).
    rope : float
        Region of practical equivalence of a comparison (``--rope``).
    paired : bool or None
        The classifiers predicted the same examples (``--paired``); None (the default) decides
        from the inputs (:func:`resolve_paired`).
    """

    prior: Any = (1.0, 1.0)
    confidence: float = 0.95
    weights: str | None = None
    exact_method: str = "union"
    tuned_for: float | None = None
    empty: str = "drop"
    rope: float = 0.0
    paired: bool | None = None

    @classmethod
    def from_args(cls, args) -> Settings:
        """The settings of parsed arguments; options a command lacks keep their defaults.

        Raises
        ------
        BaccError
            A prior that cannot be read, or a negative or infinite ``--rope``.
        """
        from .._engine.helpers.validate import check_rope

        rope = getattr(args, "rope", None)
        rope = check_rope(0.0 if rope is None else rope, "--rope")
        # options are checked once, before any input is read (an error names the option, not
        # an input)
        from .._engine.helpers.validate import check_confidence, check_prior

        try:
            check_confidence(args.confidence)
        except BaccError as exc:
            raise BaccError(f"--confidence: {exc}") from None
        tuned_for = getattr(args, "tuned_for", None)
        if tuned_for is not None:
            if getattr(args, "exact_method", "union") != "anytime":
                raise BaccError("--tuned-for is for --exact-method anytime")
            if not (tuned_for > 0) or math.isinf(tuned_for):
                raise BaccError(f"--tuned-for must be a number of examples > 0, got {tuned_for!r}")
        prior = parse_prior(args.prior) if args.prior else (1.0, 1.0)
        if isinstance(prior, str) or np.shape(prior) == (2,):
            try:
                check_prior(prior, 1)
            except BaccError as exc:
                raise BaccError(f"--prior: {exc}") from None
        return cls(
            prior=prior,
            confidence=args.confidence,
            weights=args.weights,
            exact_method=args.exact_method,
            tuned_for=tuned_for,
            empty=args.empty,
            rope=rope,
            paired=getattr(args, "paired", None),
        )


@dataclass
class Evaluated:
    """One input evaluated: everything the outputs show.

    Attributes
    ----------
    item : Item
        The input.
    evaluation : Evaluation
        Posterior summaries (:func:`bacc.evaluate`).
    exact, accuracy_exact : Interval
        Exact intervals of the balanced accuracy and of the accuracy.
    class_exact : list of ClassInterval
        Clopper-Pearson interval of each class accuracy.
    fold_interval : Interval or None
        Mean of the fold accuracies +- 2 SEM, when the input has folds.
    warnings : list of str
        The library's warnings, in option terms.
    """

    item: Item
    evaluation: Any
    exact: Any
    accuracy_exact: Any
    class_exact: Any
    fold_interval: Any
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The input's display name."""
        return self.item.name


def evaluate_item(item: Item, settings: Settings) -> Evaluated:
    """Evaluate one input with the library; its warnings are kept, in option terms.

    Raises
    ------
    BaccError
        Bad options or a matrix the library refuses; the message starts with the input's name.
    """
    from ..evaluation import evaluate
    from ..intervals import class_intervals, exact_interval, fold_sem_interval

    cm = item.confusion
    c = settings.confidence
    weights = parse_weights(settings.weights, cm.labels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ev = evaluate(cm, prior=settings.prior, confidence=c, weights=weights, empty=settings.empty)
            if settings.exact_method == "anytime":
                # every exact number valid at every look: the balanced accuracy, the accuracy
                # (tuned for the classes' total) and each class's own sequence
                from ..anytime import DEFAULT_TUNED_FOR, anytime_interval

                per_class = settings.tuned_for or DEFAULT_TUNED_FOR
                ex = anytime_interval(cm, confidence=c, weights=weights, empty=settings.empty,
                                      tuned_for=per_class)
                acc_ex = anytime_interval(cm, confidence=c, metric="accuracy",
                                          tuned_for=per_class * len(cm.labels))
                cls_ex = list(anytime_interval(cm, confidence=c, empty="keep",
                                               tuned_for=per_class).per_class)
            else:
                ex = exact_interval(cm, confidence=c, method=settings.exact_method,
                                    weights=weights, empty=settings.empty)
                acc_ex = exact_interval(cm, confidence=c, metric="accuracy")
                cls_ex = class_intervals(cm, confidence=c)
            fi = None
            if item.folds is not None:
                fi = fold_sem_interval(list(item.folds), confidence=c, metric="accuracy")
        except BaccError as exc:
            raise BaccError(f"{item.name}: {exc}") from None
    return Evaluated(item, ev, ex, acc_ex, cls_ex, fi, _messages(caught))


def _messages(caught) -> list[str]:
    """Library warnings as command-line users need them: once each, in terms of options."""
    out: list[str] = []
    seen_empty = False
    for w in caught:
        if not issubclass(w.category, UserWarning):
            continue
        msg = re.sub(r"\(pass empty='keep'[^)]*\)", "(add --empty keep to keep them)", str(w.message))
        if "no true examples" in msg:
            if seen_empty:
                continue
            seen_empty = True
        if msg not in out:
            out.append(msg)
    return out


def evaluate_items(items: Sequence[Item], settings: Settings) -> list[Evaluated]:
    """Evaluate every input, with a progress bar on a terminal when there are many."""
    out = []
    with Progress(len(items), "evaluating", enabled=len(items) > 20) as prog:
        for it in items:
            out.append(evaluate_item(it, settings))
            prog.advance(1, it.name)
    return out


def batch_summary(items: Sequence[Item], settings: Settings):
    """All inputs at once with :func:`bacc.evaluate_many`, when a summary is all that is shown.

    Returns
    -------
    BatchEvaluation or None
        None when the options need the one-by-one path (weights, another exact method, kept
        empty classes, or classes that differ between inputs), or the batch refuses the data.
    """
    if settings.weights is not None or settings.exact_method != "union" or settings.empty != "drop":
        return None
    labels = items[0].confusion.labels
    if any(it.confusion.labels != labels for it in items):
        return None
    import numpy as np

    from ..batch import evaluate_many


    try:
        with warnings.catch_warnings():
            # each input's own evaluation warns of classes left out, naming the input
            warnings.simplefilter("ignore", BaccWarning)
            return evaluate_many(np.stack([it.confusion.counts for it in items]),
                                 groups=[it.name for it in items], labels=labels,
                                 prior=settings.prior, confidence=settings.confidence)
    except BaccError:
        return None


def _same_examples(a: Item, b: Item) -> None:
    if a.y_true is None or b.y_true is None:
        raise BaccError(
            "--paired needs the predictions of both classifiers on the same examples: give "
            "prediction files (or one file with two --pred columns), not confusion matrices"
        )
    if len(a.y_true) != len(b.y_true):
        raise BaccError(
            f"--paired: {a.name} has {len(a.y_true)} examples and {b.name} has {len(b.y_true)}; "
            "a paired comparison needs the same test examples in the same order"
        )
    for i, (x, y) in enumerate(zip(a.y_true, b.y_true, strict=True)):
        if x != y:
            line = a.example_ids[i] if a.example_ids else i + 1
            raise BaccError(
                f"--paired: the true labels differ at example {i + 1} (line {line}: {x!r} vs {y!r}); "
                "a paired comparison needs the same test examples in the same order"
            )


def shares_examples(items: Sequence[Item]) -> bool:
    """The inputs are prediction columns of one file over the same examples (no groups)."""
    first = items[0]
    if first.y_true is None or first.example_ids is None or first.file is None:
        return False
    return all(
        it.file == first.file and it.y_true == first.y_true and it.example_ids == first.example_ids
        for it in items[1:]
    )


def resolve_paired(settings: Settings, items: Sequence[Item]) -> tuple[Settings, str | None]:
    """Settle ``--paired``: given, or paired when the inputs share their examples.

    Returns
    -------
    (Settings, str or None)
        The settings with ``paired`` True or False, and a line telling the user when the choice
        was made for them.
    """
    import dataclasses

    if settings.paired is not None:
        return dataclasses.replace(settings, paired=bool(settings.paired)), None
    if len(items) >= 2 and shares_examples(items):
        return dataclasses.replace(settings, paired=True), (
            "paired: the classifiers predicted the same examples (one file), so their joint "
            "posterior is used; --no-paired treats them as independent"
        )
    return dataclasses.replace(settings, paired=False), None


#: Metrics of the whole matrix in ``--metrics`` tables, and per-class ones for two classes.
WHOLE_METRICS = ("accuracy", "macro_f1", "cohen_kappa", "matthews", "g_mean", "informedness")
CLASS_METRICS = ("precision", "recall", "specificity", "f1", "balanced_precision")


@dataclass(frozen=True)
class UndefinedMetric:
    """A metric of ``--metrics`` that is undefined on one input: an empty cell and a note.

    Attributes
    ----------
    metric : str
        The metric's name (as for :func:`bacc.posterior_metric`).
    label : object or None
        The class of a per-class metric.
    reason : str
        Why it is undefined (the library's message), e.g. no true example of the class.
    confidence : float
        The level of the other metrics' intervals.
    """

    metric: str
    label: Any
    reason: str
    confidence: float

    @property
    def name(self) -> str:
        """``metric`` and, for a per-class metric, ``(label)``."""
        return self.metric + ("" if self.label is None else f" ({self.label})")

    def to_dict(self) -> dict:
        """The JSON of the metric: the keys of a computed one (as
        :meth:`bacc.MetricPosterior.to_dict`), every number null, ``undefined`` saying why for
        each of them and ``reason`` once."""
        from .._engine.helpers.convert import jsonable

        numbers = ("sample", "mean", "median", "lower", "upper")
        return {
            "metric": self.metric, "label": jsonable(self.label), "design": None,
            "prevalence": None, "exact": None, "method": None, "confidence": self.confidence,
            **dict.fromkeys(numbers), "mc_se": None, "reason": self.reason,
            "undefined": dict.fromkeys(numbers, self.reason),
        }


def metric_results(r: Evaluated, settings: Settings, prevalence: float | None) -> list:
    """The posteriors of ``--metrics`` for one evaluated input (:func:`bacc.posterior_metric`):
    the whole-matrix metrics and, for two classes, the second class's per-class metrics (at
    ``prevalence`` when given).

    A metric the library cannot compute on this input (e.g. the recall of a class without
    true examples) becomes an :class:`UndefinedMetric` carrying the reason, with a one-line
    warning naming the input, the metric and the reason; the other metrics are computed.

    Raises
    ------
    BaccError
        ``prevalence`` with more than two classes; named by the input.
    """
    from ..metric_posterior import posterior_metric
    from .output import warn

    cm = r.item.confusion
    if prevalence is not None and cm.n_classes != 2:
        raise BaccError(f"{r.name}: --prevalence is for two classes (the share of the second "
                        f"class, {cm.labels[-1]!r} here); this input has {cm.n_classes}")
    wanted = [(m, None) for m in WHOLE_METRICS]
    if cm.n_classes == 2:
        wanted += [(m, cm.labels[1]) for m in CLASS_METRICS]
    out = []
    for metric, label in wanted:
        try:
            out.append(posterior_metric(cm, metric, label=label, confidence=settings.confidence,
                                        prevalence=prevalence))
        except BaccError as exc:
            undefined = UndefinedMetric(metric, label, str(exc), settings.confidence)
            warn(f"{r.name}: {undefined.name} is left empty: {exc}")
            out.append(undefined)
    return out


def metric_extras(results: Sequence[Evaluated], settings: Settings,
                  prevalence: float | None) -> tuple[dict, dict]:
    """For a report with ``--metrics``: each input's metric posteriors (an
    :class:`UndefinedMetric` where one is undefined), and for two classes its precision
    against prevalence (:func:`bacc.metric_posterior.precision_curve` over prevalences from
    1e-4 to 0.5; left out, with a warning, where it is undefined)."""
    from ..metric_posterior import precision_curve
    from .output import warn

    metrics, curves = {}, {}
    grid = np.geomspace(1e-4, 0.5, 25)
    for r in results:
        metrics[r.name] = metric_results(r, settings, prevalence)
        cm = r.item.confusion
        if cm.n_classes == 2 and (cm.support > 0).all():
            try:
                curves[r.name] = precision_curve(cm, grid, label=cm.labels[1],
                                                 confidence=settings.confidence)
            except BaccError as exc:
                warn(f"{r.name}: the precision against prevalence is left out: {exc}")
    return metrics, curves


def _paired_prior(settings: Settings) -> float:
    """The paired model's concentration per cell for the ``--prior`` given."""
    from ..comparison import dirichlet_from_beta

    try:
        return dirichlet_from_beta(settings.prior)
    except BaccError as exc:
        raise BaccError(f"--paired --prior: {exc}") from None


def compare_items(a: Evaluated, b: Evaluated, settings: Settings):
    """Compare two evaluated inputs: :func:`bacc.compare_paired` with ``paired``, else
    :func:`bacc.compare` (the evaluations carry their prior and weights).

    Raises
    ------
    BaccError
        ``paired`` without the same examples in both inputs, or a prior the paired model
        cannot take (it needs one symmetric prior for all classes).
    """
    from ..comparison import compare, compare_paired

    names = (a.name, b.name)
    if not settings.paired:
        return compare(a.evaluation, b.evaluation, rope=settings.rope,
                       confidence=settings.confidence, names=names)
    _same_examples(a.item, b.item)
    labels = a.item.confusion.labels
    prior = _paired_prior(settings)
    return compare_paired(
        list(a.item.y_true), list(a.item.y_pred), list(b.item.y_pred), labels=list(labels),
        rope=settings.rope, confidence=settings.confidence, prior=prior,
        weights=parse_weights(settings.weights, labels), names=names,
    )


def rank_results(results: Sequence[Evaluated], *, seed: int, settings: Settings | None = None):
    """Rank the evaluated inputs, keyed by their names: :func:`bacc.rank_paired` when
    ``settings.paired``, else :func:`bacc.rank`; a progress bar on a terminal for the exact
    pairwise step when it is long.

    Raises
    ------
    BaccError
        ``paired`` without the same examples in every input.
    """
    from ..ranking import EXACT_PAIRS_INDEPENDENT, EXACT_PAIRS_PAIRED, rank, rank_paired

    T = len(results)
    pairs = T * (T - 1) // 2
    paired = settings is not None and bool(settings.paired)
    limit = EXACT_PAIRS_PAIRED if paired else EXACT_PAIRS_INDEPENDENT
    total = pairs if pairs <= limit else (0 if paired else 2 * T)
    with Progress(max(total, 1), "ranking: pairwise comparisons", enabled=total > 10) as prog:
        def step(done: int, total: int) -> None:
            prog.update(done)

        if not paired:
            return rank({r.name: r.evaluation for r in results}, random_state=seed, progress=step)
        first = results[0]
        for r in results[1:]:
            _same_examples(first.item, r.item)
        labels = first.item.confusion.labels
        prior = _paired_prior(settings)
        return rank_paired(
            list(first.item.y_true), {r.name: list(r.item.y_pred) for r in results},
            labels=list(labels), prior=prior, weights=parse_weights(settings.weights, labels),
            random_state=seed, progress=step,
        )
