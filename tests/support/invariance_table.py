"""The table of every public function that takes data, for the invariance tests.

Each entry says how to call the function on a data set (:class:`Data`) in a given input form,
and which invariances it must keep. A new public function joins the tests by getting a row
here; ``test_api_invariance.py::test_every_public_name_has_a_row`` fails for one that has none.

Invariances (``KEEPS``):

- ``relabel``: renaming and reordering the classes (weights, priors and mixes keyed by label
  follow their class) changes no number.
- ``forms``: every accepted input form gives the same numbers.
- ``order``: shuffling the rows (examples) or the subjects changes nothing.
- ``travel``: the result survives pickle, deepcopy and strict JSON of ``to_dict()``.
- ``untouched``: the caller's inputs are not modified.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

import bacc
from bacc.labels import class_order

ALL = ("relabel", "forms", "order", "travel", "untouched")


@dataclass(frozen=True)
class Data:
    """Examples of a small evaluation: truth, two classifiers, the subject and day of each."""

    y_true: list
    y_pred: list
    y_pred_b: list
    groups: list
    days: list
    classes: tuple  # natural order
    weights: dict  # class label -> weight (sums to 1)

    def relabel(self, mapping: dict) -> Data:
        f = mapping.__getitem__
        return replace(
            self,
            y_true=[f(v) for v in self.y_true],
            y_pred=[f(v) for v in self.y_pred],
            y_pred_b=[f(v) for v in self.y_pred_b],
            classes=class_order(mapping[c] for c in self.classes),
            weights={f(k): w for k, w in self.weights.items()},
        )

    def shuffled(self, rng: np.random.Generator) -> Data:
        idx = rng.permutation(len(self.y_true))
        take = lambda xs: [xs[i] for i in idx]  # noqa: E731
        return replace(
            self, y_true=take(self.y_true), y_pred=take(self.y_pred),
            y_pred_b=take(self.y_pred_b), groups=take(self.groups), days=take(self.days),
        )

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({
            "label": self.y_true, "a": self.y_pred, "b": self.y_pred_b,
            "subject": self.groups,
            "time": pd.Timestamp("2024-01-01") + pd.to_timedelta(self.days, unit="D"),
        })

    def cm(self, pred: str = "a") -> bacc.ConfusionMatrix:
        y = self.y_pred if pred == "a" else self.y_pred_b
        return bacc.ConfusionMatrix.from_predictions(self.y_true, y, labels=self.classes)


def _seq(form: str, values: list):
    """A label sequence in one input form."""
    if form == "list":
        return list(values)
    if form == "tuple":
        return tuple(values)
    if form == "array":
        return np.array(values)
    if form == "object_array":
        return np.array(values, dtype=object)
    if form == "series":
        return pd.Series(values, index=np.arange(len(values))[::-1])  # an index that is no help
    if form == "categorical":
        return pd.Series(pd.Categorical(values))
    raise AssertionError(form)


def _matrix(form: str, cm: bacc.ConfusionMatrix):
    """A labelled confusion matrix in one input form (rows = true class)."""
    if form == "cm":
        return cm
    if form == "frame":
        return pd.DataFrame(np.asarray(cm.counts), index=list(cm.labels), columns=list(cm.labels))
    if form == "frame_shuffled":
        perm = np.random.default_rng(len(cm.labels)).permutation(cm.n_classes)
        labs = [cm.labels[i] for i in perm]
        return pd.DataFrame(np.asarray(cm.counts)[np.ix_(perm, perm)], index=labs, columns=labs)
    raise AssertionError(form)


SEQ_FORMS = ("list", "tuple", "array", "object_array", "series", "categorical")
MATRIX_FORMS = ("cm", "frame", "frame_shuffled")
WEIGHT_FORMS = ("dict", "series", "list_in_class_order")


def _weights(form: str, d: Data):
    if form == "dict":
        return dict(d.weights)
    if form == "series":
        return pd.Series(d.weights).iloc[::-1]
    if form == "list_in_class_order":
        return [d.weights[c] for c in d.classes]
    raise AssertionError(form)


def _tuned_for(form: str, d: Data):
    """A per-class ``tuned_for`` (50 + 100 x the class's weight) in one form."""
    value = {c: 50.0 + 100.0 * w for c, w in d.weights.items()}
    if form == "dict":
        return value
    if form == "series":
        return pd.Series(value).iloc[::-1]
    if form == "list_in_class_order":
        return [value[c] for c in d.classes]
    raise AssertionError(form)


def _scored(d):
    """A two-class problem with a score per example: the class of largest weight (positive)
    against the class of second largest (every other example), and a score made of the row's
    own values (its predictions, day and subject), so it travels with the row."""
    pos, neg = sorted(d.weights, key=d.weights.get, reverse=True)[:2]
    y = [pos if t == pos else neg for t in d.y_true]
    s = [0.5 * (a == pos) + 0.25 * (b == pos) + 0.1 * day + 0.01 * int(g[1:])
         for a, b, day, g in zip(d.y_pred, d.y_pred_b, d.days, d.groups, strict=True)]
    return y, s, pos


def _scores(d, form, then=lambda sc: sc):
    """``bacc.scores`` of :func:`_scored` in one input form, then ``then`` of the curve."""
    y, s, pos = _scored(d)
    if form in ("frame", "polars", "columns"):
        table = pd.DataFrame({"label": y, "score": s})
        if form == "polars":
            table = __import__("polars").from_pandas(table)
        elif form == "columns":
            table = {"label": list(y), "score": list(s)}
        return then(bacc.scores(table, true="label", score="score", positive=pos))
    return then(bacc.scores(_seq(form, y), _seq(form, s), positive=pos))


SCORE_FORMS = ("list", "array", "series", "frame", "polars", "columns")


@dataclass(frozen=True)
class Row:
    """How to call one public function on a data set, and what it must keep.

    ``call(d, form)`` returns the result; ``forms`` lists the input forms to try (the first is
    the reference); ``keeps`` the invariances checked; ``tol`` the absolute tolerance between
    numbers that must agree (0 for exact agreement of deterministic paths; a Monte Carlo error
    where the class order changes which random draws go where); ``slow`` marks rows that are
    tried on fewer data sets.
    """

    call: Callable
    forms: tuple = ("list",)
    keeps: tuple = ALL
    tol: float = 1e-9
    relabel_tol: float | None = None
    slow: bool = False
    note: str = ""
    extra: dict = field(default_factory=dict)


def _ev(d, form):
    if form == "frame":  # a table of predictions, counted by bacc.counts
        return bacc.evaluate(d.frame(), true="label", pred="a", weights=d.weights)
    if form == "polars":
        return bacc.evaluate(__import__("polars").from_pandas(d.frame()), true="label", pred="a",
                             weights=d.weights)
    return bacc.evaluate(_seq(form, d.y_true), _seq(form, d.y_pred), weights=d.weights)


def _compare_paired(d, form):
    if form == "frame":  # two prediction columns of one table: the paired model
        return bacc.compare(d.frame(), true="label", pred=["a", "b"], weights=d.weights)
    return bacc.compare_paired(_seq(form, d.y_true), _seq(form, d.y_pred),
                               _seq(form, d.y_pred_b), weights=d.weights)


def _rank_paired(d, form):
    if form == "frame":  # prediction columns of one table: the paired model
        return bacc.rank(d.frame(), true="label", pred=["a", "b"], weights=d.weights)
    return bacc.rank_paired(_seq(form, d.y_true), {"a": _seq(form, d.y_pred),
                                                   "b": _seq(form, d.y_pred_b)},
                            weights=d.weights)


def _evaluate_many(d, form):
    if form == "stack":
        return bacc.evaluate_many(_stack(d), labels=d.classes, progress=False)
    if form == "frame_by":  # bacc.evaluate of a table with by=, as the command line's --by
        return bacc.evaluate(d.frame(), true="label", pred="a", by="subject", progress=False)
    return bacc.evaluate_many(bacc.counts(d.frame(), true="label", pred="a", by="subject",
                                          progress=False), progress=False)


def _folds(d):
    """One confusion matrix per subject (over every class)."""
    out = []
    for g in class_order(d.groups):
        idx = [i for i, x in enumerate(d.groups) if x == g]
        out.append(bacc.ConfusionMatrix.from_predictions(
            [d.y_true[i] for i in idx], [d.y_pred[i] for i in idx], labels=d.classes))
    return out


def _folds_of(d, pred: str):
    """One confusion matrix per subject (over every class) of prediction column ``pred``."""
    y = d.y_pred if pred == "a" else d.y_pred_b
    out = []
    for g in class_order(d.groups):
        idx = [i for i, x in enumerate(d.groups) if x == g]
        out.append(bacc.ConfusionMatrix.from_predictions(
            [d.y_true[i] for i in idx], [y[i] for i in idx], labels=d.classes))
    return out


def _stack(d):
    return np.stack([np.asarray(f.counts) for f in _folds(d)])


def _long(d):
    rows = []
    for g, f in zip(class_order(d.groups), _folds(d), strict=True):
        for i, t in enumerate(f.labels):
            for j, p in enumerate(f.labels):
                if f.counts[i, j]:
                    rows.append({"group": g, "true": t, "pred": p, "count": int(f.counts[i, j])})
    return pd.DataFrame(rows)


def _across_paired(d, form, fn):
    """``compare_across``/``rank_across`` of the two prediction columns, the subjects as data sets
    (the same examples: the paired model)."""
    if form == "frame":
        return fn(d.frame(), true="label", pred=["a", "b"], across="subject")
    if form == "polars":
        return fn(__import__("polars").from_pandas(d.frame()), true="label", pred=["a", "b"],
                  across="subject")
    if form == "columns":
        return fn({k: list(v) for k, v in d.frame().drop(columns="time").items()}, true="label",
                  pred=["a", "b"], across="subject")
    return fn(_seq(form, d.y_true), {"a": _seq(form, d.y_pred), "b": _seq(form, d.y_pred_b)},
              groups=_seq(form, d.groups))


def _across_independent(d, form):
    """Each classifier's matrices per subject (independent test sets), in one input form."""
    out = {}
    for pred in ("a", "b"):
        if form == "counts":
            out[pred] = bacc.counts(d.frame(), true="label", pred=pred, by="subject",
                                    progress=False)
        else:
            out[pred] = dict(zip(class_order(d.groups), [_matrix(form, f) for f in
                                                         _folds_of(d, pred)], strict=True))
    return out


def _monitor(d, form):
    df = d.frame()
    return bacc.monitor(df, true="label", pred="a", time="time", window="1D", by="subject",
                        baseline="previous", progress=False, n_simulations=200)


ROWS: dict[str, Row] = {
    "evaluate": Row(_ev, forms=(*SEQ_FORMS, "frame", "polars")),
    "evaluate[matrix]": Row(
        lambda d, form: bacc.evaluate(_matrix(form, d.cm()), weights=d.weights), forms=MATRIX_FORMS),
    "evaluate[weights]": Row(
        lambda d, form: bacc.evaluate(d.cm(), weights=_weights(form, d)), forms=WEIGHT_FORMS),
    "ConfusionMatrix": Row(
        lambda d, form: bacc.ConfusionMatrix.from_predictions(_seq(form, d.y_true),
                                                             _seq(form, d.y_pred)),
        forms=SEQ_FORMS),
    "evaluate_many": Row(
        _evaluate_many, forms=("stack", "counts", "frame_by"),
        keeps=("relabel", "forms", "travel", "untouched")),
    "compare": Row(
        lambda d, form: bacc.compare(_matrix(form, d.cm("a")), _matrix(form, d.cm("b")),
                                     weights=d.weights),
        forms=MATRIX_FORMS),
    "compare_paired": Row(_compare_paired, forms=(*SEQ_FORMS, "frame")),
    "rank": Row(
        lambda d, form: bacc.rank([_matrix(form, d.cm("a")), _matrix(form, d.cm("b")),
                                   _matrix(form, d.cm("a"))], names=["a", "b", "c"]),
        forms=MATRIX_FORMS, relabel_tol=0.03, note="P(best) from joint draws"),
    "rank[by]": Row(
        lambda d, form: bacc.rank(d.frame(), true="label", pred="a", by="subject")
        if form == "frame_by" else
        bacc.rank(dict(bacc.counts(d.frame(), true="label", pred="a", by="subject",
                                   progress=False).items())),
        forms=("frame_by", "counts"), relabel_tol=0.03,
        note="a table in long form: the groups of by= ranked as independent test sets"),
    "rank_paired": Row(_rank_paired, forms=(*SEQ_FORMS, "frame"), relabel_tol=0.03,
                       note="P(best) from joint draws"),
    "compare_across": Row(
        lambda d, form: _across_paired(d, form, bacc.compare_across),
        forms=("list", "array", "series", "frame", "polars", "columns"),
        keeps=("relabel", "forms", "order", "travel", "untouched"),
        note="the subjects as data sets, the two columns paired"),
    "compare_across[independent]": Row(
        lambda d, form: (lambda m: bacc.compare_across(m["a"], m["b"]))(_across_independent(d, form)),
        forms=(*MATRIX_FORMS, "counts"), keeps=("relabel", "forms", "order", "travel"),
        note="each classifier's matrices per subject as independent test sets (a stack names its "
             "data sets by position: tests/test_across_inputs.py)"),
    "rank_across": Row(
        lambda d, form: _across_paired(
            d, form, lambda *a, **k: bacc.rank_across(*a, **k, n_draws=20_000)),
        forms=("list", "array", "series", "frame", "polars", "columns"),
        keeps=("relabel", "forms", "order", "travel", "untouched"), relabel_tol=0.03,
        note="P(best) from joint draws"),
    "rank_across[independent]": Row(
        lambda d, form: bacc.rank_across(_across_independent(d, form), n_draws=20_000),
        forms=(*MATRIX_FORMS, "counts"), keeps=("relabel", "forms", "order", "travel"),
        relabel_tol=0.03, note="P(best) from joint draws"),
    "scores": Row(_scores, forms=SCORE_FORMS),
    "scores[one-vs-rest]": Row(
        lambda d, form: bacc.scores(
            _seq(form, d.y_true),
            np.array([[0.5 * (a == c) + 0.25 * (b == c) + 0.1 * day for c in d.classes]
                      for a, b, day in zip(d.y_pred, d.y_pred_b, d.days, strict=True)])),
        forms=("list", "array", "series"), keeps=("forms", "order", "travel", "untouched"),
        note="one score column per class in class order: relabelling reorders the columns"),
    "scores[curve]": Row(lambda d, form: _scores(d, form, lambda sc: sc.curve()),
                         forms=SCORE_FORMS),
    "scores[best_threshold]": Row(
        lambda d, form: _scores(d, form, lambda sc: sc.best_threshold(folds=2, repeats=3)),
        forms=SCORE_FORMS, note="folds dealt from the tallies, by a seeded generator"),
    "scores[threshold_for]": Row(
        lambda d, form: _scores(d, form, lambda sc: sc.threshold_for(recall=0.5)),
        forms=SCORE_FORMS),
    "scores[roc]": Row(lambda d, form: _scores(d, form, lambda sc: sc.roc()), forms=SCORE_FORMS),
    "scores[auc]": Row(
        lambda d, form: _scores(d, form, lambda sc: [sc.auc(m, draws=500) for m in
                                                     ("delong", "delong-logit",
                                                      "bayesian-bootstrap", "band")]),
        forms=SCORE_FORMS),
    "compare_auc": Row(
        lambda d, form: (lambda y, s, pos: bacc.compare_auc(
            _seq(form, y), _seq(form, s), _seq(form, [v % 0.3 for v in s]), positive=pos))(
            *_scored(d)),
        forms=("list", "array", "series")),
    "auc_coverage": Row(
        lambda d, form: bacc.auc_coverage(["delong", "band"], len(d.y_true) // 2 + 1,
                                          len(d.y_true), 0.8, n_simulations=50, random_state=0),
        keeps=("order", "travel", "untouched"),
        note="a simulation design: class sizes and the AUC, no labels"),
    "counts": Row(
        lambda d, form: bacc.counts(d.frame() if form == "pandas" else __import__("polars")
                                    .from_pandas(d.frame()),
                                    true="label", pred="a", by="subject", progress=False),
        forms=("pandas", "polars"), keeps=("relabel", "forms", "order", "travel", "untouched")),
    "counts_from_long": Row(
        lambda d, form: bacc.counts_from_long(_long(d), progress=False),
        keeps=("relabel", "order", "travel", "untouched")),
    "exact_interval": Row(
        lambda d, form: bacc.exact_interval(_matrix(form, d.cm()), weights=d.weights),
        forms=MATRIX_FORMS),
    "anytime_interval": Row(
        lambda d, form: bacc.anytime_interval(_matrix(form, d.cm()), weights=d.weights),
        forms=MATRIX_FORMS),
    "anytime_interval[tuned_for]": Row(
        lambda d, form: bacc.anytime_interval(d.cm(), tuned_for=_tuned_for(form, d)),
        forms=("dict", "series", "list_in_class_order"),
        note="tuned_for per class, keyed by label or in class order"),
    # the sequence depends on the order of arrival; its last look without the running
    # intersection is the interval of the counts, which does not
    "confidence_sequence": Row(
        lambda d, form: bacc.confidence_sequence(
            _seq(form, d.y_true), _seq(form, d.y_pred), weights=d.weights,
            running_intersection=False, looks=[len(d.y_true)]),
        forms=SEQ_FORMS),
    "confidence_sequence[betting]": Row(
        lambda d, form: bacc.confidence_sequence(
            _seq(form, d.y_true), _seq(form, d.y_pred), weights=d.weights, method="betting"),
        forms=SEQ_FORMS, keeps=("relabel", "forms", "travel", "untouched"),
        note="the bets depend on the order of arrival, so rows are not shuffled"),
    "approx_interval": Row(
        lambda d, form: bacc.approx_interval(_matrix(form, d.cm()), weights=d.weights),
        forms=MATRIX_FORMS),
    "class_intervals": Row(
        lambda d, form: bacc.class_intervals(_matrix(form, d.cm())), forms=MATRIX_FORMS),
    "approx_class_intervals": Row(
        lambda d, form: bacc.approx_class_intervals(_matrix(form, d.cm())), forms=MATRIX_FORMS),
    "binomial_test": Row(
        lambda d, form: bacc.binomial_test(_matrix(form, d.cm())), forms=MATRIX_FORMS),
    "fold_sem_interval": Row(
        lambda d, form: bacc.fold_sem_interval(_folds(d), metric="balanced_accuracy",
                                               n_sem=None),
        keeps=("relabel", "order", "travel", "untouched")),
    "posterior_accuracy": Row(
        lambda d, form: bacc.posterior_accuracy(_matrix(form, d.cm())), forms=MATRIX_FORMS),
    "posterior_balanced_accuracy": Row(
        lambda d, form: bacc.posterior_balanced_accuracy(_matrix(form, d.cm()),
                                                         weights=d.weights),
        forms=MATRIX_FORMS),
    "posterior_class_accuracies": Row(
        lambda d, form: bacc.posterior_class_accuracies(_matrix(form, d.cm())),
        forms=MATRIX_FORMS),
    "population": Row(
        lambda d, form: bacc.population(y_true=_seq(form, d.y_true), y_pred=_seq(form, d.y_pred),
                                        groups=_seq(form, d.groups)),
        forms=("list", "array", "series"), slow=True),
    "posterior_metric": Row(
        lambda d, form: bacc.posterior_metric(_matrix(form, d.cm()), "macro_f1", n_draws=4000,
                                              random_state=1),
        forms=MATRIX_FORMS, relabel_tol=0.05, note="Monte Carlo draws per class"),
    "plan_labels": Row(
        lambda d, form: bacc.plan_labels(_matrix(form, d.cm()), lower=0.05,
                                         mix=_weights("dict", d) if form == "cm"
                                         else [d.weights[c] for c in d.classes],
                                         method="simulate", n_simulations=500, random_state=0,
                                         max_labels=5000)
        if len(d.classes) > 2 else
        bacc.plan_labels(_matrix(form, d.cm()), lower=0.05, mix=_weights("dict", d),
                         max_labels=5000),
        forms=MATRIX_FORMS, slow=True, relabel_tol=0.0, keeps=("forms", "travel", "untouched"),
        note="a plan's numbers depend on the class order only through simulation draws"),
    # a simulation: relabelling reorders its random draws (tests/test_sequential.py checks a
    # symmetric design, where relabelling changes nothing)
    "plan_sequential": Row(
        lambda d, form: bacc.plan_sequential(_matrix(form, d.cm()), lower=0.3, max_labels=200,
                                             n_simulations=100, random_state=0),
        forms=MATRIX_FORMS, keeps=("forms", "order", "travel", "untouched"), slow=True),
    "next_label": Row(
        lambda d, form: bacc.next_label(_matrix(form, d.cm())), forms=MATRIX_FORMS),
    "monitor": Row(_monitor, keeps=("relabel", "order", "travel", "untouched"), slow=True),
    "metrics": Row(
        lambda d, form: {name: getattr(bacc.metrics, name)(_matrix(form, d.cm()))
                         for name in ("accuracy", "balanced_accuracy", "macro_f1", "cohen_kappa",
                                      "matthews", "g_mean", "informedness")},
        forms=MATRIX_FORMS),
    "clopper_pearson": Row(
        lambda d, form: bacc.clopper_pearson(sum(t == p for t, p in zip(d.y_true, d.y_pred,
                                                                       strict=True)),
                                             len(d.y_true)),
        keeps=("relabel", "order", "travel")),
    "mcnemar_exact": Row(
        lambda d, form: bacc.compare_paired(d.y_true, d.y_pred, d.y_pred_b).mcnemar,
        keeps=("relabel", "order", "travel")),
    "coverage": Row(
        lambda d, form: bacc.coverage(["union", "wald"], [int(d.y_true.count(c)) for c in
                                                          d.classes], [0.8] * len(d.classes),
                                      n_simulations=400, random_state=0),
        keeps=("order", "travel", "untouched"), slow=True,
        note="a simulation design: class sizes and accuracies, no labels"),
}

#: Public names that take no data (types, errors, modules of names listed above).
NO_DATA = {
    "BaccError", "BaccWarning", "MissingDependencyError",
    # result and distribution types: made by the functions above, travel checked through them
    "BalancedAccuracyPosterior", "BatchEvaluation", "BetaPosterior", "BetaSum", "BinomialTest",
    "ClassInterval", "ClassResult", "Comparison", "CoverageResult", "Evaluation", "Interval",
    "GroupedCounts", "McNemarTest", "MethodCoverage", "PairedDifference", "Population",
    "PosteriorSummary", "Ranking", "LabelPlan", "NextClass", "NextLabel", "MetricPosterior",
    "Monitoring", "ConfidenceSequence", "SequentialPlan", "AcrossComparison", "AcrossRanking",
    "NormalMixture", "ScoreCurve", "OneVsRest", "ThresholdCurve", "ChosenThreshold",
    "GuaranteedThreshold", "RocCurve", "AucInterval", "AucComparison",
}


def flat_numbers(obj, *, skip_keys=("labels", "classes", "class_labels", "names", "label",
                                    "name", "groups", "subjects", "detectors", "group")) -> list:
    """Every number in a result (through ``to_dict()``), in no particular order."""
    if hasattr(obj, "to_dict"):
        obj = obj.to_dict()
    out: list = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                # positions in the class order move with it; the labels are no numbers; the
                # time a computation took is no result
                if k not in skip_keys and not str(k).endswith("index") and k != "seconds":
                    walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)
        elif isinstance(x, np.ndarray):
            walk(x.tolist())
        elif hasattr(x, "to_dict"):
            walk(x.to_dict())
        elif isinstance(x, bool | np.bool_):
            out.append(float(x))
        elif isinstance(x, int | float | np.integer | np.floating):
            out.append(float(x))
        elif hasattr(x, "mean") and hasattr(x, "ppf"):
            walk([x.mean(), x.var(), *np.atleast_1d(x.ppf([0.05, 0.5, 0.95])).tolist()])

    walk(obj)
    return out


def same_numbers(a: list, b: list, tol: float) -> str | None:
    """None when the two multisets of numbers agree within ``tol``, else what differs."""
    if len(a) != len(b):
        return f"{len(a)} numbers against {len(b)}"
    fa = np.array(sorted(a, key=lambda v: (math.isnan(v), v)))
    fb = np.array(sorted(b, key=lambda v: (math.isnan(v), v)))
    nan = np.isnan(fa) | np.isnan(fb)
    if not np.array_equal(np.isnan(fa), np.isnan(fb)):
        return "NaN in different places"
    diff = np.abs(fa[~nan] - fb[~nan])
    if diff.size and diff.max() > tol * np.maximum(1.0, np.abs(fa[~nan])).max():
        i = int(np.argmax(diff))
        return f"{fa[~nan][i]!r} against {fb[~nan][i]!r} (difference {diff[i]:.3g})"
    return None
