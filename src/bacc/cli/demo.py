"""``bacc demo``: the example classifiers that ship with bacc, as tables and an HTML report.

Three parts: the confusion matrices of the papers (``data/paper_examples.json``), and the
out-of-fold predictions of simple scikit-learn models on two data sets (``data/*.csv``; see
``data/README.md`` for how they were made), with paired comparisons and a ranking.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from importlib import resources
from pathlib import Path

from ..confusion import ConfusionMatrix
from ..errors import BaccError
from .inputs import Item, load_items
from .output import (
    full_table,
    out,
    pictures_wanted,
    report_entries,
    report_warnings,
    summary,
    title,
    warn,
)
from .results import Settings, compare_items, evaluate_item, rank_results

__all__ = ["demo"]

#: The shipped predictions: file, title, models, the pairs to compare (paired), or None.
_REAL = [
    ("digits_cv_predictions.csv", "Hand-written digits (scikit-learn load_digits), 10 classes",
     ["naive_bayes", "decision_tree", "logistic_regression", "knn"], ("knn", "logistic_regression"),
     ("naive_bayes", "decision_tree")),
    ("wine_cv_predictions.csv", "Wine cultivars (scikit-learn load_wine), 3 classes",
     ["knn_unscaled", "logistic_regression"], ("logistic_regression", "knn_unscaled"), None),
]


def _data_path(name: str) -> str:
    return str(resources.files("bacc").joinpath("data", name))


def _banner(text: str, *more: str) -> None:
    out("#" * 78)
    out(f"# {text}")
    for line in more:
        out(f"#    {line}")
    out("#" * 78)


def _paper_section(settings: Settings):
    """The papers' confusion matrices: printed one by one, and their report section."""
    from ..display.report import Section

    data = json.loads(Path(_data_path("paper_examples.json")).read_text(encoding="utf-8"))
    _banner("1. Confusion matrices from the papers (rows = true class)")
    results, notes, short = [], {}, {}
    for ex in data["examples"]:
        cm = ConfusionMatrix(ex["counts"], labels=ex["labels"])
        folds = None
        if ex.get("folds"):
            folds = tuple(ConfusionMatrix(f, labels=ex["labels"]) for f in ex["folds"])
        r = evaluate_item(Item(ex["name"], cm, "paper_examples.json", folds=folds), settings)
        results.append(r)
        short[r.name] = ex.get("short", "")
        notes[r.name] = ex["note"] + (" " + ex["folds_note"] if ex.get("folds_note") else "")
        out()
        out(f"== {ex['name']}")
        out(textwrap.fill(ex["note"], 76, initial_indent="   ", subsequent_indent="   "))
        out(full_table(r))
    report_warnings(results)
    return Section(
        title="Examples from the papers",
        description=("Confusion matrices from Brodersen et al. (2010), the 2015 blog post on "
                     "balanced accuracy and Sandler & Dirac (2024). C2 is a biased classifier on "
                     "an imbalanced test set: its accuracy looks good, its balanced accuracy is "
                     "close to chance."),
        entries=report_entries(results, notes, short),
    )


def _predictions_section(k: int, fname: str, heading: str, models, pairs, settings: Settings):
    """One shipped predictions file: summary, paired comparisons, ranking; its report section."""
    from ..display.report import ReportComparison, Section

    items = load_items([_data_path(fname)], true="true", preds=models, fold="fold")
    items = [dataclasses.replace(it, source=f"{fname}: true vs {it.name}") for it in items]
    results = [evaluate_item(it, settings) for it in items]
    report_warnings(results)
    by = {r.name: r for r in results}
    out()
    _banner(f"{k}. {heading}",
            f"{len(items[0].y_true)} examples, out-of-fold predictions of 5-fold cross-validation")
    out()
    out(summary(results))
    paired = dataclasses.replace(settings, paired=True)
    comps = []
    for pair in pairs:
        if pair is None:
            continue
        a, b = by[pair[0]], by[pair[1]]
        try:
            comp = compare_items(a, b, paired)
        except BaccError as exc:
            warn(f"comparison left out: {exc}")
            continue
        comps.append(ReportComparison(a.name, b.name, comp, paired=True))
        out()
        out(f"-- paired comparison (same test examples): A = {a.name}, B = {b.name}")
        out(str(comp))
    ranking = None
    if len(results) > 2:
        try:
            ranking = rank_results(results, seed=0, settings=paired)
            out()
            out("-- ranking")
            out(str(ranking))
        except BaccError as exc:
            warn(f"ranking left out: {exc}")
    else:
        for r in results:
            out()
            out(title(r))
            out(full_table(r))
    return Section(
        title=heading,
        description=(f"Out-of-fold predictions of simple scikit-learn models, stratified "
                     f"5-fold cross-validation ({fname}, shipped with bacc; see "
                     f"bacc/data/README.md for how it was made)."),
        entries=report_entries(results),
        comparisons=comps,
        ranking=ranking,
    )


def demo(args) -> int:
    """``bacc demo``: print the tables of the shipped examples and write their HTML report."""
    from .._engine.helpers.validate import check_confidence
    from ..display.files import is_stdout
    from ..display.report import render_report, write_report
    from .output import check_output_path, page_on_stdout

    # every option is checked before anything is printed or computed
    try:
        check_confidence(args.confidence)
    except BaccError as exc:
        raise BaccError(f"--confidence: {exc}") from None
    if args.output:
        check_output_path(args.output)
        if is_stdout(args.output):
            page_on_stdout()
    settings = Settings(confidence=args.confidence)
    out("bacc demo: how good are these classifiers, and how sure can we be?")
    out(f"(posterior under a flat prior Beta(1, 1) per class; {100 * args.confidence:g}% credible "
        "and exact intervals)")
    out()
    sections = [_paper_section(settings)]
    for k, (fname, heading, models, pair, pair2) in enumerate(_REAL, start=2):
        sections.append(_predictions_section(k, fname, heading, models, (pair, pair2), settings))
    if args.output:
        page = render_report(sections, title="bacc demo: how good are these classifiers?",
                             subtitle="Balanced accuracy with its posterior distribution, exact "
                                      "confidence intervals and comparisons.",
                             pictures=pictures_wanted(args.no_pictures))
        path = write_report(args.output, page)
        if not is_stdout(path):
            out()
            out(f"wrote {path.resolve()}  (open it in a browser)")
    return 0
