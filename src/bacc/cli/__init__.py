"""The ``bacc`` command: evaluate, compare, rank, coverage, report and demo.

Presentation and I/O only: inputs are read by :mod:`bacc.io`, numbers come from
:func:`bacc.evaluate`, :mod:`bacc.exact`, :mod:`bacc.approx`, :mod:`bacc.coverage` and the
comparison module, and are printed as tables (:mod:`bacc._text`), JSON or CSV, or written as an
HTML report (:mod:`bacc.report`).

Bad input prints one line ``bacc: error: ...`` on standard error and exits with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import importlib.util
import json
import math
import os
import re
import sys
import textwrap
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .. import readers as bio
from ..display import text as _text
from ..errors import BaccError
from ..progress import Progress

__all__ = ["main"]

EXIT_USAGE = 2
_DETAIL_LIMIT = 12


class _UsageError(Exception):
    """An argparse error, re-raised so that main prints it as one line."""


class MissingModuleError(BaccError):
    """A module that a command needs is not part of this installation (yet)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=min(100, _terminal_width()))


def _terminal_width() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 100


# ----------------------------------------------------------------------------------------------
# calls into modules written alongside this one
def _library(module: str, name: str, issue: str) -> Any:
    """``bacc.<module>.<name>``, or a BaccError saying exactly what is missing."""
    try:
        mod = importlib.import_module(f"bacc.{module}")
    except ImportError as exc:
        if exc.name != f"bacc.{module}":
            raise
        raise MissingModuleError(
            f"this installation of bacc has no bacc.{module} module ({issue}); "
            f"{name}() is needed for this command"
        ) from None
    fn = getattr(mod, name, None)
    if fn is None:
        raise MissingModuleError(
            f"bacc.{module} has no {name}() yet ({issue}); it is needed for this command"
        )
    return fn


def compare_independent(ev_a, ev_b, *, rope: float, confidence: float, names: tuple[str, str]):
    """``bacc.compare.compare(a, b, rope=, confidence=, names=)`` (issue 4).

    The evaluations carry their own prior and class weights.
    """
    from ..comparison import compare as fn
    return fn(ev_a, ev_b, rope=rope, confidence=confidence, names=names)


def compare_on_same_examples(y_true, pred_a, pred_b, *, labels, rope: float, confidence: float,
                             prior, weights, names: tuple[str, str]):
    """``bacc.compare.compare_paired(y_true, pred_a, pred_b, ...)`` (issue 4)."""
    from ..comparison import compare_paired as fn
    return fn(list(y_true), list(pred_a), list(pred_b), labels=list(labels), rope=rope,
              confidence=confidence, prior=_dirichlet_prior(prior), weights=weights, names=names)


def _dirichlet_prior(prior) -> float:
    """The Dirichlet concentration of the paired model whose marginals are Beta(a, a).

    Each class accuracy of the paired model is the sum of two of four cells, so a symmetric
    concentration ``c`` per cell gives the marginal ``Beta(k + 2c, n - k + 2c)``: the flat
    prior is ``c = 1/2``, Jeffreys' ``c = 1/4``.
    """
    from .._engine.validate import check_prior

    a, b = check_prior(prior, 1) if not isinstance(prior, list) else (None, None)
    if a is None or a[0] != b[0]:
        raise BaccError(
            "--paired supports one symmetric prior for all classes (flat, jeffreys or 'a,a'); "
            f"got {prior!r}"
        )
    return float(a[0]) / 2.0


def rank_evaluations(named: dict, *, random_state):
    """``bacc.compare.rank(evaluations)`` (issue 4), with the names as keys."""
    from ..comparison import rank as fn
    return fn(named, random_state=random_state)


# ----------------------------------------------------------------------------------------------
# evaluation of the inputs
@dataclass
class Evaluated:
    """One input evaluated: everything the outputs show."""

    item: bio.Item
    evaluation: Any
    exact: Any
    accuracy_exact: Any
    class_exact: Any
    fold_interval: Any
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.item.name


def _stats_options(args) -> dict:
    return {
        "prior": bio.parse_prior(args.prior) if args.prior else (1.0, 1.0),
        "confidence": args.confidence,
        "empty": args.empty,
    }


def _evaluate_item(item: bio.Item, args) -> Evaluated:
    from .. import evaluate
    from ..intervals import class_intervals, exact_interval, fold_sem_interval

    opts = _stats_options(args)
    weights = bio.parse_weights(args.weights, item.confusion.labels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ev = evaluate(item.confusion, prior=opts["prior"], confidence=opts["confidence"],
                          weights=weights, empty=opts["empty"])
            ex = exact_interval(item.confusion, opts["confidence"], method=args.exact_method,
                                weights=weights, empty=opts["empty"])
            acc_ex = exact_interval(item.confusion, opts["confidence"], metric="accuracy")
            cls_ex = class_intervals(item.confusion, opts["confidence"])
            fi = None
            if item.folds is not None:
                fi = fold_sem_interval(list(item.folds), opts["confidence"], metric="accuracy")
        except BaccError as exc:
            raise BaccError(f"{item.name}: {exc}") from None
    return Evaluated(item, ev, ex, acc_ex, cls_ex, fi, _cli_messages(caught))


def _cli_messages(caught) -> list[str]:
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


def _load(args) -> list[bio.Item]:
    labels = None
    if getattr(args, "labels", None):
        labels = [s.strip() for s in args.labels.split(",") if s.strip()]
        if not labels:
            raise BaccError("--labels: give the classes separated by commas, e.g. --labels neg,pos")
    return bio.load_items(
        args.inputs,
        args.matrix or (),
        true=args.true,
        preds=args.pred or (),
        by=args.by,
        fold=args.fold,
        labels=labels,
        rows=args.rows,
        sep=args.sep,
    )


def _evaluate_all(args) -> list[Evaluated]:
    return _evaluate_items(_load(args), args)


def _evaluate_items(items: Sequence[bio.Item], args) -> list[Evaluated]:
    out = []
    with Progress(len(items), "evaluating", enabled=len(items) > 20) as prog:
        for it in items:
            out.append(_evaluate_item(it, args))
            prog.advance(1, it.name)
    _report_warnings(out)
    return out


def _report_warnings(results: Sequence[Evaluated]) -> None:
    flagged = [(r.name, m) for r in results for m in r.warnings]
    for name, msg in flagged[:5]:
        _warn(f"{name}: {msg}" if len(results) > 1 else msg)
    if len(flagged) > 5:
        _warn(f"... and {len(flagged) - 5} more warnings of this kind")


# ----------------------------------------------------------------------------------------------
# output helpers
def _clean(obj):
    """JSON-safe copy: NaN and infinities become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _clean(obj.item())
    return obj


def _dump_json(obj) -> None:
    sys.stdout.write(json.dumps(_clean(obj), indent=2, allow_nan=False) + "\n")


def _result_dict(r: Evaluated) -> dict:
    d = {"name": r.name, "source": r.item.source}
    d.update(r.evaluation.to_dict())
    d["exact"] = {
        "balanced_accuracy": r.exact.to_dict(),
        "accuracy": r.accuracy_exact.to_dict(),
        "classes": [c.to_dict() for c in r.class_exact],
    }
    d["fold_sem"] = r.fold_interval.to_dict() if r.fold_interval is not None else None
    d["warnings"] = list(r.warnings)
    return d


_CSV_COLUMNS = [
    "name", "measure", "class", "correct", "support", "sample", "posterior_mean",
    "posterior_median", "posterior_mode", "credible_lower", "credible_upper", "exact_lower",
    "exact_upper", "exact_method", "p_above_chance", "confidence",
]


def _csv_rows(r: Evaluated) -> list[list]:
    ev = r.evaluation
    cm = ev.confusion
    rows = []
    for measure, sample, s, ex, p in (
        ("balanced_accuracy", ev.sample_balanced_accuracy, ev.balanced_accuracy_summary, r.exact,
         ev.p_above_chance),
        ("accuracy", ev.sample_accuracy, ev.accuracy_summary, r.accuracy_exact, None),
    ):
        rows.append([
            r.name, measure, "", cm.total_correct, cm.total, sample, s.mean, s.median, s.mode,
            s.lower, s.upper, ex.lower, ex.upper, ex.method, p, ev.confidence,
        ])
    for c, ci in zip(ev.classes, r.class_exact, strict=True):
        s = c.summary
        rows.append([
            r.name, "class_accuracy", c.label, c.correct, c.support, c.sample_accuracy, s.mean,
            s.median, s.mode, s.lower, s.upper, ci.lower, ci.upper, "clopper-pearson", None,
            ev.confidence,
        ])
    return rows


def _csv_value(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def _write_csv(header: Sequence[str], rows: Sequence[Sequence]) -> None:
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([_csv_value(v) for v in row])


def _title(r: Evaluated) -> str:
    src = r.item.source
    return f"== {r.name}" + (f"   ({src})" if src and src != r.name else "")


def _full_table(r: Evaluated) -> str:
    return _text.evaluation_table(r.evaluation, r.exact, r.accuracy_exact, r.class_exact,
                                  r.fold_interval)


def _summary(results: Sequence[Evaluated]) -> str:
    return _text.summary_table([(r.name, r.evaluation, r.exact) for r in results])


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _warn(msg: str) -> None:
    sys.stderr.write(f"bacc: warning: {_one_line(msg)}\n")


def _one_line(msg: str) -> str:
    return " ".join(str(msg).split())


# ----------------------------------------------------------------------------------------------
# subcommands
def _batch_summary(items: Sequence[bio.Item], args):
    """All items at once with :func:`bacc.evaluate_many`, when a summary is all that is shown.

    Returns None when the options need the one-by-one path (weights, another exact method,
    kept empty classes, or classes that differ between items).
    """
    if args.weights is not None or args.exact_method != "union" or args.empty != "drop":
        return None
    labels = items[0].confusion.labels
    if any(it.confusion.labels != labels for it in items):
        return None
    import numpy as np

    from ..batch import evaluate_many

    opts = _stats_options(args)
    try:
        return evaluate_many(np.stack([it.confusion.counts for it in items]),
                             groups=[it.name for it in items], labels=labels,
                             prior=opts["prior"], confidence=opts["confidence"])
    except BaccError:
        return None


def _cmd_evaluate(args) -> int:
    items = _load(args)
    many = len(items) > _DETAIL_LIMIT
    if args.format == "table" and many and not args.details:
        batch = _batch_summary(items, args)
        if batch is not None:
            _out(f"{len(items)} evaluations, balanced accuracy (union exact interval):")
            _out(_text.batch_summary_table(batch))
            short = int((batch.n_classes < len(batch.labels)).sum())
            if short:
                _warn(f"{short} of {len(items)} groups lack true examples of some class; those "
                      "classes are left out of their balanced accuracy")
            _out()
            _out(f"(per-class tables left out for {len(items)} evaluations; add --details to print them)")
            return 0
    results = _evaluate_items(items, args)
    if args.format == "json":
        _dump_json(_result_dict(results[0]) if len(results) == 1 else [_result_dict(r) for r in results])
        return 0
    if args.format == "csv":
        _write_csv(_CSV_COLUMNS, [row for r in results for row in _csv_rows(r)])
        return 0
    if len(results) == 1:
        r = results[0]
        _out(_title(r))
        _out(_full_table(r))
        return 0
    _out(f"{len(results)} evaluations, balanced accuracy ({results[0].exact.method} exact interval):")
    _out(_summary(results))
    details = args.details if args.details is not None else not many
    if details:
        for r in results:
            _out()
            _out(_title(r))
            _out(_full_table(r))
    else:
        _out()
        _out(f"(per-class tables left out for {len(results)} evaluations; add --details to print them)")
    return 0


def _same_examples(a: bio.Item, b: bio.Item) -> None:
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


def _comparison(a: Evaluated, b: Evaluated, args):
    opts = _stats_options(args)
    names = (a.name, b.name)
    if args.paired:
        _same_examples(a.item, b.item)
        labels = a.item.confusion.labels
        return compare_on_same_examples(
            a.item.y_true, a.item.y_pred, b.item.y_pred, labels=labels, rope=args.rope,
            confidence=opts["confidence"], prior=opts["prior"],
            weights=bio.parse_weights(args.weights, labels), names=names,
        )
    return compare_independent(a.evaluation, b.evaluation, rope=args.rope,
                               confidence=opts["confidence"], names=names)


def _check_rope(args) -> None:
    if not (args.rope >= 0) or math.isinf(args.rope):
        raise BaccError(f"--rope must be a number >= 0, got {args.rope!r}")


def _cmd_compare(args) -> int:
    _check_rope(args)
    results = _evaluate_all(args)
    if len(results) != 2:
        raise BaccError(
            f"compare needs exactly two classifiers, got {len(results)} "
            f"({', '.join(r.name for r in results[:5])}); use 'bacc rank' for more"
        )
    a, b = results
    comp = _comparison(a, b, args)
    if args.format == "json":
        _dump_json({
            "a": a.name, "b": b.name, "paired": bool(args.paired),
            "comparison": comp.to_dict() if hasattr(comp, "to_dict") else str(comp),
            "evaluations": [_result_dict(a), _result_dict(b)],
        })
        return 0
    _out(f"A = {a.name}   ({a.item.source})")
    _out(f"B = {b.name}   ({b.item.source})")
    _out()
    _out(_summary(results))
    _out()
    _out(str(comp))
    return 0


def _cmd_rank(args) -> int:
    results = _evaluate_all(args)
    if len(results) < 2:
        raise BaccError(f"rank needs at least two classifiers, got {len(results)}")
    ranking = rank_evaluations({r.name: r.evaluation for r in results}, random_state=args.seed)
    if args.format == "json":
        _dump_json({
            "ranking": ranking.to_dict() if hasattr(ranking, "to_dict") else str(ranking),
            "evaluations": [_result_dict(r) for r in results],
        })
        return 0
    _out(_summary(results))
    _out()
    _out(str(ranking))
    return 0


def _cmd_coverage(args) -> int:
    from ..simulation import COVERAGE_METHODS, CoverageResult, coverage

    if args.sizes or args.accuracies:
        if not (args.sizes and args.accuracies):
            raise BaccError("give both --sizes and --accuracies (one value per class), or a confusion matrix")
        if args.inputs or args.matrix:
            raise BaccError("give either --sizes/--accuracies or a confusion matrix, not both")
        sizes = bio.parse_list(args.sizes, "--sizes", int)
        accs = bio.parse_list(args.accuracies, "--accuracies", float)
        source = "given truth"
    else:
        if not (args.inputs or args.matrix):
            raise BaccError("coverage needs --sizes and --accuracies, or a confusion matrix (--matrix 42,3;6,4)")
        items = bio.load_items(args.inputs, args.matrix or (), rows=args.rows, sep=args.sep)
        if len(items) != 1:
            raise BaccError(f"coverage takes one confusion matrix, got {len(items)}")
        cm = items[0].confusion
        sizes = [int(n) for n in cm.support]
        accs = [float(k / n) if n else 0.0 for k, n in zip(cm.correct, cm.support, strict=True)]
        source = f"test sets like {items[0].name}: class sizes and accuracies as observed"
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise BaccError("--methods: give method names separated by commas")
    unknown = [m for m in methods if m not in COVERAGE_METHODS]
    if unknown:
        raise BaccError(f"--methods: unknown method {unknown[0]!r}; choose from {', '.join(COVERAGE_METHODS)}")
    if args.metric == "accuracy":
        methods = [m for m in methods if m not in ("union", "sidak", "buehler")] or ["clopper-pearson"]
    # one seed for all methods: every method sees the same simulated test sets
    seed = args.seed
    parts = []
    with Progress(len(methods), "simulating") as prog:
        for m in methods:
            prog.update(prog.done, m)
            res = coverage([m], sizes, accs, confidence=args.confidence, n_sim=args.n_sim,
                           random_state=seed, metric=args.metric, sides=args.sides)
            parts.append(res)
            prog.advance(1, m)
    first = parts[0]
    result = CoverageResult(
        methods=tuple(p.methods[0] for p in parts),
        class_sizes=first.class_sizes,
        true_class_accuracies=first.true_class_accuracies,
        true_value=first.true_value,
        confidence=first.confidence,
        n_sim=first.n_sim,
        sides=first.sides,
        metric=first.metric,
        weights=first.weights,
    )
    if args.format == "json":
        d = result.to_dict()
        d["seed"] = seed
        d["source"] = source
        _dump_json(d)
        return 0
    if args.format == "csv":
        header = ["method", "exact", "coverage", "mc_se", "mean_width", "share_outside",
                  "miss_low", "miss_high", "keeps_promise"]
        _write_csv(header, [
            [m.method, m.exact, m.coverage, m.mc_se, m.mean_width, m.share_outside, m.miss_low,
             m.miss_high, m.keeps_promise(result.confidence)]
            for m in result.methods
        ])
        return 0
    _out(f"({source}; seed {seed})")
    _out(str(result))
    return 0


def _pictures_wanted(no_pictures: bool) -> bool:
    """Whether to draw pictures; says on stderr when matplotlib is missing."""
    if no_pictures:
        return False
    if importlib.util.find_spec("matplotlib") is None:
        _warn("the report has no pictures: plotting needs matplotlib: pip install bacc[plot]")
        return False
    return True


def _entries(results: Sequence[Evaluated], notes: dict | None = None, short: dict | None = None):
    from ..display.report import ReportEntry

    notes = notes or {}
    short = short or {}
    return [
        ReportEntry(
            name=r.name, evaluation=r.evaluation, exact=r.exact, accuracy_exact=r.accuracy_exact,
            class_exact=r.class_exact, fold_interval=r.fold_interval, source=r.item.source,
            note=notes.get(r.name, ""), warnings=tuple(r.warnings), label=short.get(r.name, ""),
        )
        for r in results
    ]


def _cmd_report(args) -> int:
    from ..display.report import ReportComparison, Section, render_report, write_report

    _check_rope(args)
    results = _evaluate_all(args)
    comparisons = []
    ranking = None
    try:
        if len(results) == 2:
            comparisons.append(ReportComparison(results[0].name, results[1].name,
                                          _comparison(results[0], results[1], args), bool(args.paired)))
        elif 2 < len(results) <= 50:
            ranking = rank_evaluations({r.name: r.evaluation for r in results}, random_state=args.seed)
    except MissingModuleError as exc:
        _warn(f"report written without comparison/ranking: {exc}")
    srcs = list(dict.fromkeys(args.inputs)) or ["confusion matrices"]
    title = args.title or ("bacc report: " + ", ".join(Path(s).name for s in srcs[:3]))
    section = Section(title="Results", entries=_entries(results), comparisons=comparisons,
                      ranking=ranking, measures=len(results) <= 6)
    page = render_report([section], title=title, pictures=_pictures_wanted(args.no_pictures))
    path = write_report(args.output, page)
    _out(f"wrote {path}")
    return 0


# ----------------------------------------------------------------------------------------------
# demo
def _data_path(name: str) -> str:
    return str(resources.files("bacc").joinpath("data", name))


def _demo_args(**kw) -> argparse.Namespace:
    base = dict(prior=None, confidence=0.95, empty="drop", weights=None, exact_method="union",
                rope=0.0, paired=False, seed=0)
    base.update(kw)
    return argparse.Namespace(**base)


def _cmd_demo(args) -> int:
    from .. import ConfusionMatrix
    from ..display.report import ReportComparison, Section, render_report, write_report

    opts = _demo_args(confidence=args.confidence)
    data = json.loads(Path(_data_path("paper_examples.json")).read_text(encoding="utf-8"))
    sections = []

    # 1. the papers' examples
    _out("bacc demo: how good are these classifiers, and how sure can we be?")
    _out(f"(posterior under a flat prior; {100 * args.confidence:g}% credible and exact intervals)")
    _out()
    _out("#" * 78)
    _out("# 1. Confusion matrices from the papers (rows = true class)")
    _out("#" * 78)
    seed_results = []
    notes = {}
    short = {}
    for ex in data["examples"]:
        cm = ConfusionMatrix(ex["counts"], labels=ex["labels"])
        folds = None
        if ex.get("folds"):
            folds = tuple(ConfusionMatrix(f, labels=ex["labels"]) for f in ex["folds"])
        item = bio.Item(ex["name"], cm, "paper_examples.json", folds=folds)
        r = _evaluate_item(item, opts)
        seed_results.append(r)
        short[r.name] = ex.get("short", "")
        notes[r.name] = ex["note"] + (" " + ex["folds_note"] if ex.get("folds_note") else "")
        _out()
        _out(f"== {ex['name']}")
        _out(textwrap.fill(ex["note"], 76, initial_indent="   ", subsequent_indent="   "))
        _out(_full_table(r))
    sections.append(Section(
        title="Examples from the papers",
        description=("Confusion matrices from Brodersen et al. (2010), the 2015 blog post on balanced accuracy and Sandler & Dirac (2024). "
                     "C2 is a biased classifier on an imbalanced test set: its accuracy looks "
                     "good, its balanced accuracy is close to chance."),
        entries=_entries(seed_results, notes, short),
    ))
    _report_warnings(seed_results)

    # 2. real multiclass problems: out-of-fold predictions of scikit-learn models
    real = [
        ("digits_cv_predictions.csv", "Hand-written digits (scikit-learn load_digits), 10 classes",
         ["naive_bayes", "decision_tree", "logistic_regression", "knn"], ("knn", "logistic_regression"),
         ("naive_bayes", "decision_tree")),
        ("wine_cv_predictions.csv", "Wine cultivars (scikit-learn load_wine), 3 classes",
         ["knn_unscaled", "logistic_regression"], ("logistic_regression", "knn_unscaled"), None),
    ]
    for k, (fname, title, models, pair, pair2) in enumerate(real, start=2):
        path = _data_path(fname)
        items = bio.load_items([path], true="true", preds=models, fold="fold")
        items = [bio.Item(it.name, it.confusion, f"{fname}: true vs {it.name}", it.y_true, it.y_pred,
                          it.folds, it.example_ids) for it in items]
        results = [_evaluate_item(it, opts) for it in items]
        _report_warnings(results)
        by = {r.name: r for r in results}
        _out()
        _out("#" * 78)
        _out(f"# {k}. {title}")
        _out(f"#    {len(items[0].y_true)} examples, out-of-fold predictions of 5-fold cross-validation")
        _out("#" * 78)
        _out()
        _out(_summary(results))
        comps = []
        for pr in (pair, pair2):
            if pr is None:
                continue
            a, b = by[pr[0]], by[pr[1]]
            try:
                comp = _comparison(a, b, _demo_args(confidence=args.confidence, paired=True))
            except BaccError as exc:
                _warn(f"comparison left out: {exc}")
                continue
            comps.append(ReportComparison(a.name, b.name, comp, paired=True))
            _out()
            _out(f"-- paired comparison (same test examples): A = {a.name}, B = {b.name}")
            _out(str(comp))
        ranking = None
        if len(results) > 2:
            try:
                ranking = rank_evaluations({r.name: r.evaluation for r in results}, random_state=0)
                _out()
                _out("-- ranking")
                _out(str(ranking))
            except BaccError as exc:
                _warn(f"ranking left out: {exc}")
        if len(results) <= 2:
            for r in results:
                _out()
                _out(_title(r))
                _out(_full_table(r))
        sections.append(Section(
            title=title,
            description=(f"Out-of-fold predictions of simple scikit-learn models, stratified "
                         f"5-fold cross-validation ({fname}, shipped with bacc; see "
                         f"bacc/data/README.md for how it was made)."),
            entries=_entries(results),
            comparisons=comps,
            ranking=ranking,
        ))

    if args.output:
        page = render_report(sections, title="bacc demo: how good are these classifiers?",
                             subtitle="Balanced accuracy with its posterior distribution, exact "
                                      "confidence intervals and comparisons.",
                             pictures=_pictures_wanted(args.no_pictures))
        path = write_report(args.output, page)
        _out()
        _out(f"wrote {path.resolve()}  (open it in a browser)")
    return 0


# ----------------------------------------------------------------------------------------------
# the parser
_INPUT_HELP = """\
inputs:
  Each INPUT is a predictions file (CSV, TSV, JSON lines; with --true and --pred), a
  confusion-matrix file (CSV of counts, optionally with class labels; or JSON), or matrix
  text such as "42,3;6,4" (rows separated by ';', counts by ','; rows = true class unless
  --rows predicted). Name a matrix with "NAME=42,3;6,4".
"""


def _add_inputs(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input")
    g.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="predictions file, confusion-matrix file, or matrix text (see above)")
    g.add_argument("--matrix", action="append", metavar="TEXT",
                   help='a confusion matrix as text, e.g. --matrix "42,3;6,4" (repeatable)')
    g.add_argument("--true", metavar="COL", help="column of the true class in prediction files, e.g. --true label")
    g.add_argument("--pred", action="append", metavar="COL",
                   help="column of the predicted class, e.g. --pred predicted (repeat for several classifiers)")
    g.add_argument("--by", metavar="COL", help="one evaluation per value of this column, e.g. --by detector")
    g.add_argument("--fold", metavar="COL",
                   help="column of the cross-validation fold, e.g. --fold fold (adds the approximate "
                        "mean of fold accuracies +- 2 SEM for comparison)")
    g.add_argument("--labels", metavar="LIST",
                   help="the classes in order, e.g. --labels neg,pos; any other label is an error")
    g.add_argument("--rows", choices=["true", "predicted"], default="true",
                   help="what the rows of a given matrix are (default: true); the papers print "
                        "predictions in rows, e.g. --rows predicted")
    g.add_argument("--sep", metavar="CHAR", help=r"field separator of CSV files (default from the extension), e.g. --sep ';'")


def _add_stats(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("statistics")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="mass of credible and coverage of exact intervals (default 0.95), e.g. --confidence 0.99")
    g.add_argument("--prior", metavar="PRIOR",
                   help="Beta prior of each class accuracy: flat (default), jeffreys, 'a,b', or one "
                        "pair per class 'a,b;a,b', e.g. --prior jeffreys")
    g.add_argument("--weights", metavar="W",
                   help="class weights of the balanced accuracy (sum to 1), in class order or by "
                        "label, e.g. --weights 0.7,0.3 or --weights pos=0.7,neg=0.3")
    g.add_argument("--exact-method", choices=["union", "sidak", "buehler"], default="union",
                   help="exact interval of the balanced accuracy: union (Sandler & Dirac (2024), default), sidak, "
                        "or buehler (two classes), e.g. --exact-method sidak")
    g.add_argument("--empty", choices=["drop", "keep"], default="drop",
                   help="a class with no true examples is left out of the balanced accuracy (drop, "
                        "default) or kept with its prior (keep), e.g. --empty keep")


def _desc(text: str, extra: str = "") -> str:
    """A description paragraph wrapped for the terminal, then preformatted ``extra``."""
    return textwrap.fill(text, min(90, _terminal_width() - 2)) + ("\n\n" + extra if extra else "")


def _epilog(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bacc`` (every option has help and an example)."""
    parser = _Parser(
        prog="bacc",
        description=_desc("How good is a classifier, really? The balanced accuracy with its posterior "
                    "distribution, exact confidence intervals, comparisons and an HTML report."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc demo                                   # example classifiers, writes bacc-demo.html
              bacc evaluate --matrix "42,3;6,4"
              bacc evaluate predictions.csv --true label --pred predicted --by detector
              bacc compare preds.csv --true label --pred model_a --pred model_b --paired
              bacc report preds.csv --true label --pred predicted -o report.html
            Run 'bacc COMMAND --help' for the options of each command.
        """),
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"bacc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser(
        "evaluate", help="posterior and exact intervals of the balanced accuracy",
        description=_desc("Evaluate one or more classifiers: sample accuracy and balanced accuracy, "
                    "their posterior (mean, median, mode, credible interval), exact confidence "
                    "intervals, P(balanced accuracy > chance) and per-class detail.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc evaluate --matrix "42,3;6,4"
              bacc evaluate --matrix "42,6;3,4" --rows predicted      # the papers' orientation
              bacc evaluate confusion.csv --format json
              bacc evaluate preds.csv --true label --pred predicted
              bacc evaluate preds.csv --true label --pred predicted --by detector --format csv
              bacc evaluate preds.jsonl --true y --pred yhat --weights pos=0.7,neg=0.3
            JSON output is one object for one evaluation and a list of objects for several.
        """),
    )
    _add_inputs(p)
    _add_stats(p)
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json, or csv (one row per measure and class), e.g. --format json")
    o.add_argument("--details", action=argparse.BooleanOptionalAction, default=None,
                   help=f"print per-class tables for every evaluation (default: only when there are "
                        f"at most {_DETAIL_LIMIT}), e.g. --no-details")
    p.set_defaults(func=_cmd_evaluate)

    p = sub.add_parser(
        "compare", help="P(A > B) and the posterior of the difference of two classifiers",
        description=_desc("Compare two classifiers: the posterior of the difference of their balanced "
                    "accuracies, P(A > B) and, with --rope, the probability that they are "
                    "practically equal. With --paired the two were tested on the same examples "
                    "and the correlation is used.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc compare --matrix "A=42,3;6,4" --matrix "B=40,5;2,8"
              bacc compare a.csv b.csv --true label --pred predicted
              bacc compare preds.csv --true label --pred model_a --pred model_b --paired --rope 0.01
        """),
    )
    _add_inputs(p)
    _add_stats(p)
    p.add_argument("--paired", action="store_true",
                   help="both classifiers predicted the same test examples (same rows, same order), e.g. --paired")
    p.add_argument("--rope", type=float, default=0.0, metavar="EPS",
                   help="region of practical equivalence |difference| <= EPS (default 0), e.g. --rope 0.01")
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default) or json, e.g. --format json")
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser(
        "rank", help="rank several classifiers with the probability of each being best",
        description=_desc("Rank several classifiers by their balanced accuracy (Carrillo et al. 2014): pairwise "
                    "posterior comparisons, probability of being best, expected rank.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc rank --matrix "A=42,3;6,4" --matrix "B=40,5;2,8" --matrix "C=44,1;5,5"
              bacc rank preds.csv --true label --pred m1 --pred m2 --pred m3
              bacc rank preds.csv --true label --pred predicted --by model --format json
        """),
    )
    _add_inputs(p)
    _add_stats(p)
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the posterior draws used for P(best) and expected ranks (default 0), e.g. --seed 1")
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default) or json, e.g. --format json")
    p.set_defaults(func=_cmd_rank)

    p = sub.add_parser(
        "coverage", help="how often each interval method keeps its promise (simulation)",
        description=_desc("Simulate many test sets from a known truth (class sizes and class "
                    "accuracies) and count how often each interval method contains the true "
                    "balanced accuracy. Give the truth with --sizes and --accuracies, or a "
                    "confusion matrix whose class sizes and observed accuracies are used. A "
                    "progress bar is drawn on standard error when it is a terminal."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc coverage --sizes 20,20 --accuracies 0.99,0.99
              bacc coverage --matrix "42,3;6,4" --methods union,sidak,bayes,wald --n-sim 200000
              bacc coverage --sizes 100 --accuracies 0.8 --metric accuracy --sides upper
        """),
    )
    g = p.add_argument_group("truth")
    g.add_argument("--sizes", metavar="LIST", help="test examples per class, e.g. --sizes 45,10")
    g.add_argument("--accuracies", metavar="LIST", help="true accuracy of each class, e.g. --accuracies 0.9,0.4")
    g.add_argument("inputs", nargs="*", metavar="INPUT", help='or a confusion matrix (file or text "42,3;6,4")')
    g.add_argument("--matrix", action="append", metavar="TEXT", help='a confusion matrix, e.g. --matrix "42,3;6,4"')
    g.add_argument("--rows", choices=["true", "predicted"], default="true",
                   help="what the rows of the matrix are (default true), e.g. --rows predicted")
    g.add_argument("--sep", metavar="CHAR", help="field separator of a matrix CSV file, e.g. --sep ';'")
    g = p.add_argument_group("simulation")
    g.add_argument("--methods", default="union,sidak,bayes,wald,wilson,jeffreys", metavar="LIST",
                   help="interval methods (default union,sidak,bayes,wald,wilson,jeffreys; also "
                        "buehler, clopper-pearson), e.g. --methods union,wald")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="nominal coverage (default 0.95), e.g. --confidence 0.9")
    g.add_argument("--n-sim", type=int, default=20_000, metavar="N",
                   help="simulated test sets (default 20000), e.g. --n-sim 100000")
    g.add_argument("--seed", type=int, default=0, metavar="N",
                   help="random seed (default 0, so runs repeat; printed with the result), e.g. --seed 7")
    g.add_argument("--metric", choices=["balanced_accuracy", "accuracy"], default="balanced_accuracy",
                   help="what the intervals are for (default balanced_accuracy), e.g. --metric accuracy")
    g.add_argument("--sides", choices=["two", "lower", "upper"], default="two",
                   help="two-sided intervals (default) or one-sided bounds, e.g. --sides lower")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json or csv, e.g. --format csv")
    p.set_defaults(func=_cmd_coverage)

    p = sub.add_parser(
        "report", help="write a self-contained HTML report with tables and pictures",
        description=_desc("Write one self-contained HTML file (no network; readable on a phone): a "
                    "summary row per classifier or group, credible and exact intervals, "
                    "per-class detail, pictures; a comparison for two inputs and a ranking for "
                    "more.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc report --matrix "42,3;6,4" -o report.html
              bacc report preds.csv --true label --pred predicted --by detector -o detectors.html
              bacc report preds.csv --true label --pred a --pred b --paired -o ab.html
        """),
    )
    _add_inputs(p)
    _add_stats(p)
    p.add_argument("-o", "--output", default="bacc-report.html", metavar="FILE",
                   help="where to write the report (default bacc-report.html), e.g. -o report.html")
    p.add_argument("--title", metavar="TEXT", help='title of the page, e.g. --title "Detectors, May"')
    p.add_argument("--paired", action="store_true",
                   help="two inputs predicted the same examples: paired comparison, e.g. --paired")
    p.add_argument("--rope", type=float, default=0.0, metavar="EPS",
                   help="region of practical equivalence for the comparison, e.g. --rope 0.01")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the ranking's draws (default 0), e.g. --seed 1")
    p.add_argument("--no-pictures", action="store_true", help="tables only (faster; no matplotlib needed), e.g. --no-pictures")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser(
        "demo", help="evaluate the example classifiers that ship with bacc",
        description=_desc("Evaluate the example classifiers that ship with bacc (the papers' confusion "
                    "matrices and out-of-fold predictions on two scikit-learn data sets), print "
                    "the tables and write an HTML report."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc demo
              bacc demo -o /tmp/demo.html
              bacc demo --no-report
        """),
    )
    p.add_argument("-o", "--output", default="bacc-demo.html", metavar="FILE",
                   help="where to write the report (default bacc-demo.html), e.g. -o demo.html")
    p.add_argument("--no-report", dest="output", action="store_const", const=None,
                   help="print the tables only, e.g. --no-report")
    p.add_argument("--no-pictures", action="store_true", help="report without pictures, e.g. --no-pictures")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="mass / coverage of the intervals (default 0.95), e.g. --confidence 0.9")
    p.set_defaults(func=_cmd_demo)
    return parser


# ----------------------------------------------------------------------------------------------
def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    _warn(str(message))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bacc`` command; return the exit status (2 for bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).
    """
    parser = build_parser()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args = parser.parse_args(argv)
            return int(args.func(args) or 0)
    except _UsageError as exc:
        sys.stderr.write(f"bacc: error: {_one_line(str(exc))}\n")
        return EXIT_USAGE
    except BaccError as exc:
        sys.stderr.write(f"bacc: error: {_one_line(str(exc))}\n")
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (bacc ... | head): stop quietly, as Unix tools do
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("bacc: interrupted\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
