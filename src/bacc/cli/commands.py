"""The subcommands of ``bacc``: one function each, taking the parsed arguments, returning the
exit status.

Each reads its inputs (:mod:`.inputs`), asks the library (:mod:`.results`,
:func:`bacc.coverage`) and writes the outcome (:mod:`.output`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..display.files import is_stdout
from ..errors import BaccError
from .demo import demo
from .inputs import load_items, parse_labels, parse_list
from .monitoring import monitor_command
from .output import (
    CSV_COLUMNS,
    DETAIL_LIMIT,
    batch_csv_rows,
    batch_dict,
    check_output_path,
    csv_rows,
    dump_json,
    full_table,
    heading,
    out,
    page_on_stdout,
    pictures_wanted,
    print_batch_summary,
    report_entries,
    report_warnings,
    result_dict,
    summary,
    title,
    warn,
    wrapped,
    write_csv,
)
from .planning import next_label, plan
from .results import (
    Settings,
    batch_summary,
    compare_items,
    evaluate_items,
    metric_extras,
    metric_results,
    rank_results,
    resolve_paired,
)
from .scores import (
    check_score_options,
    score_items,
    score_sections,
    scores_summary,
    threshold_command,
)

__all__ = ["COMMANDS", "compare", "coverage", "evaluate", "population", "rank", "report"]


def _load(args):
    return load_items(
        args.inputs,
        args.matrix or (),
        true=args.true,
        preds=args.pred or (),
        by=args.by,
        fold=args.fold,
        labels=parse_labels(args.labels),
        rows=args.rows,
        sep=args.sep,
    )


def _evaluate_all(args, settings: Settings):
    results = evaluate_items(_load(args), settings)
    report_warnings(results)
    return results


def _left_out(n: int) -> None:
    out()
    out(f"(per-class tables left out for {n} evaluations; add --details to print them)")


def _check_prevalence_option(args) -> None:
    """``--prevalence`` goes with ``--metrics`` and lies in (0, 1): checked before any work."""
    if args.prevalence is None:
        return
    if not args.metrics:
        raise BaccError("--prevalence needs --metrics (it sets the prevalence of those metrics)")
    from ..prevalence import check_prevalence

    try:
        check_prevalence(args.prevalence)
    except BaccError as exc:
        raise BaccError(f"--prevalence: {exc}") from None


def evaluate(args) -> int:
    """``bacc evaluate``: a table per input (a summary for many), JSON or CSV; with ``--score``
    the AUC and the best threshold, or with ``--threshold`` the decisions ``score >= T``
    (:mod:`bacc.cli.scores`)."""
    check_score_options(args, "evaluate")
    if args.score and args.threshold is None:
        return scores_summary(args)
    _check_prevalence_option(args)
    settings = Settings.from_args(args)
    items = score_items(args) if args.score else _load(args)
    many = len(items) > DETAIL_LIMIT
    if many and not args.details:
        # many groups: one vectorised evaluation (bacc.evaluate_many), in every format
        batch = batch_summary(items, settings)
        if batch is not None:
            if args.format == "json":
                dump_json(batch_dict(batch))
            elif args.format == "csv":
                write_csv(CSV_COLUMNS, batch_csv_rows(batch))
            else:
                print_batch_summary(batch)
                _left_out(len(items))
            return 0
    results = evaluate_items(items, settings)
    report_warnings(results)
    if args.format == "json":
        dicts = [result_dict(r) for r in results]
        if args.metrics:
            for d, r in zip(dicts, results, strict=True):
                d["metrics"] = [m.to_dict() for m in metric_results(r, settings, args.prevalence)]
        dump_json(dicts[0] if len(dicts) == 1 else dicts)
        return 0
    if args.format == "csv":
        write_csv(CSV_COLUMNS, [row for r in results for row in csv_rows(r)])
        return 0
    if len(results) == 1:
        out(title(results[0]))
        out(full_table(results[0], classes=args.details is not False))
        _metrics_section(args, results[0], settings)
        return 0
    out(f"{len(results)} evaluations, balanced accuracy ({results[0].exact.method} exact interval):")
    out(summary(results))
    if args.details if args.details is not None else not many:
        for r in results:
            out()
            out(title(r))
            out(full_table(r))
            _metrics_section(args, r, settings)
    else:
        _left_out(len(results))
    return 0


def _metrics_section(args, r, settings) -> None:
    """The ``--metrics`` table of one input (opt-in: the default output stays short)."""
    if not getattr(args, "metrics", False):
        return
    from ..display.text import metric_table

    res = metric_results(r, settings, args.prevalence)
    out()
    at = "" if args.prevalence is None else f" at prevalence {args.prevalence:g}"
    weights = ("the test set's class shares" if args.prevalence is None
               else f"the given prevalence {args.prevalence:g}")
    out(wrapped(f"other metrics{at} (posterior of each class's rates, classes weighted by "
                f"{weights}; computed exactly, or by Monte Carlo: MC +- its standard error):"))
    out(metric_table(res, settings.confidence, r.name))


def compare(args) -> int:
    """``bacc compare``: two classifiers, independent or paired; with ``--across``, across
    data sets (:mod:`bacc.cli.across`)."""
    if args.across is not None:
        from .across import across_compare

        return across_compare(args)
    if args.format == "csv":
        raise BaccError("--format csv: compare writes csv across data sets (--across COLUMN); "
                        "use --format json for one comparison")
    settings = Settings.from_args(args)
    results = _evaluate_all(args, settings)
    if len(results) != 2:
        raise BaccError(
            f"compare needs exactly two classifiers, got {len(results)} "
            f"({', '.join(r.name for r in results[:5])}); use 'bacc rank' for more"
        )
    a, b = results
    settings, note = resolve_paired(settings, [a.item, b.item])
    comp = compare_items(a, b, settings)
    if args.format == "json":
        dump_json({
            "a": a.name, "b": b.name, "paired": settings.paired, "comparison": comp.to_dict(),
            "evaluations": [result_dict(a), result_dict(b)],
        })
        return 0
    out(heading(f"A = {a.name}", a.item.source))
    out(heading(f"B = {b.name}", b.item.source))
    if note:
        out(wrapped(note))
    out()
    out(summary(results))
    out()
    out(str(comp))
    return 0


def rank(args) -> int:
    """``bacc rank``: several classifiers, with the probability of each being best; with
    ``--across``, across data sets (:mod:`bacc.cli.across`)."""
    if args.across is not None:
        from .across import across_rank

        return across_rank(args)
    if args.format == "csv":
        raise BaccError("--format csv: rank writes csv across data sets (--across COLUMN); "
                        "use --format json for one ranking")
    if args.rope is not None:
        raise BaccError("--rope of 'bacc rank' is for --across (ranking across data sets)")
    settings = Settings.from_args(args)
    results = _evaluate_all(args, settings)
    if len(results) < 2:
        raise BaccError(f"rank needs at least two classifiers, got {len(results)}")
    settings, note = resolve_paired(settings, [r.item for r in results])
    ranking = rank_results(results, seed=args.seed, settings=settings)
    if args.format == "json":
        dump_json({"ranking": ranking.to_dict(), "evaluations": [result_dict(r) for r in results]})
        return 0
    out(summary(results))
    out()
    if note:
        out(wrapped(note))
        out()
    out(str(ranking))
    return 0


def _coverage_truth(args) -> tuple[list[int], list[float], str]:
    """Class sizes, class accuracies and a description, from --sizes/--accuracies or a matrix."""
    if args.sizes or args.accuracies:
        if not (args.sizes and args.accuracies):
            raise BaccError("give both --sizes and --accuracies (one value per class), or a confusion matrix")
        if args.inputs or args.matrix:
            raise BaccError("give either --sizes/--accuracies or a confusion matrix, not both")
        sizes = parse_list(args.sizes, "--sizes", int)
        accs = parse_list(args.accuracies, "--accuracies", float)
        return sizes, accs, "true class sizes and accuracies as given"
    if not (args.inputs or args.matrix):
        raise BaccError("coverage needs --sizes and --accuracies, or a confusion matrix (--matrix 42,3;6,4)")
    items = load_items(args.inputs, args.matrix or (), rows=args.rows, sep=args.sep)
    if len(items) != 1:
        raise BaccError(f"coverage takes one confusion matrix, got {len(items)}")
    cm = items[0].confusion
    sizes = [int(n) for n in cm.support]
    accs = [float(k / n) if n else 0.0 for k, n in zip(cm.correct, cm.support, strict=True)]
    return sizes, accs, f"test sets like {items[0].name}: class sizes and accuracies as observed"


def coverage(args) -> int:
    """``bacc coverage``: simulated coverage of interval methods (:func:`bacc.coverage`)."""
    from ..simulation import COVERAGE_METHODS
    from ..simulation import coverage as simulate

    sizes, accs, source = _coverage_truth(args)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise BaccError("--methods: give method names separated by commas")
    unknown = [m for m in methods if m not in COVERAGE_METHODS]
    if unknown:
        raise BaccError(f"--methods: unknown method {unknown[0]!r}; choose from {', '.join(COVERAGE_METHODS)}")
    if args.metric == "accuracy":
        # the exact intervals of the balanced accuracy are Clopper-Pearson for the accuracy
        methods = [m for m in methods if m not in ("union", "sidak", "buehler")] or ["clopper-pearson"]
    if args.metric == "precision":
        methods = ["union"]  # the one interval of the precision at a prevalence
        if len(sizes) != 2:
            raise BaccError("--metric precision: the command line simulates two classes "
                            "(negatives, positives); for more, call bacc.coverage with the "
                            "matrix of true row rates and label=")
    # one call: every method sees the same simulated test sets
    result = simulate(
        methods, sizes, accs, confidence=args.confidence, n_simulations=args.n_sim,
        random_state=args.seed, metric=args.metric, sides=args.sides, progress=True,
        prevalence=args.prevalence,
    )
    if args.format == "json":
        d = result.to_dict()
        d["seed"] = args.seed
        d["source"] = source
        dump_json(d)
        return 0
    if args.format == "csv":
        header = ["method", "exact", "coverage", "mc_se", "mean_width", "share_outside",
                  "miss_low", "miss_high", "keeps_promise"]
        write_csv(header, [
            [m.method, m.exact, m.coverage, m.mc_se, m.mean_width, m.share_outside, m.miss_low,
             m.miss_high, m.keeps_promise(result.confidence)]
            for m in result.methods
        ])
        return 0
    from ..display.text import coverage_title, wrap

    lines = str(result).split("\n")
    n_head = len(wrap(coverage_title(result)[0]))  # the title's lines, then what was simulated
    out("\n".join(lines[:n_head]))
    out(f"  ({source}; seed {args.seed})")
    out("\n".join(lines[n_head:]))
    return 0


#: Beyond this many inputs the report lists every one from one batch evaluation and shows
#: detail for those that need attention.
REPORT_ALL = 50
#: Inputs shown in detail (lowest exact lower bounds) in a report of many, with pictures for ...
REPORT_ATTENTION = 40
#: ... the first this many of them.
REPORT_PICTURES = 3


def report(args) -> int:
    """``bacc report``: a self-contained HTML page; a comparison for two inputs, a ranking for
    three to fifty, and for more a sortable table of all with detail for those needing
    attention."""
    from ..display.report import ReportComparison, Section, render_report, write_report

    _refuse_overwriting_inputs(args.output, args.inputs)
    check_output_path(args.output)
    check_score_options(args, "report")
    if not args.score:
        _check_prevalence_option(args)
    if args.across is not None:
        from .across import check_across

        check_across(args, "report")
    if is_stdout(args.output):
        page_on_stdout()
    settings = Settings.from_args(args)
    srcs = list(dict.fromkeys(args.inputs)) or ["confusion matrices"]
    page_title = args.title or ("bacc report: " + ", ".join(Path(s).name for s in srcs[:3]))
    scores = score_sections(args)
    if scores and not args.pred:  # the scores alone
        page = render_report(scores, title=page_title, pictures=pictures_wanted(args.no_pictures))
        _wrote(write_report(args.output, page))
        return 0
    items = _load(args)
    across = _across_sections(args)
    pop = _population_of(items, "normal-binomial", settings.confidence) if args.population else None
    batch = batch_summary(items, settings) if len(items) > REPORT_ALL else None
    if batch is not None:
        import numpy as np

        worst = np.argsort(batch.exact_lower, kind="stable")[:REPORT_ATTENTION]
        results = evaluate_items([items[i] for i in worst], settings)
        report_warnings(results)
        note = (f"Detail for the {len(results)} of {len(items)} entries with the lowest exact "
                f"lower bounds, lowest first (pictures for the first {REPORT_PICTURES}); every "
                "entry is in the table above.")
        extras = metric_extras(results, settings, args.prevalence) if args.metrics else ({}, {})
        section = Section(title="Results", entries=report_entries(
                              results, metrics=extras[0], prevalence=args.prevalence,
                              curves=extras[1]),
                          batch=batch, batch_note=note, measures=False, population=pop)
        page = render_report([section, *across, *scores], title=page_title,
                             max_detail=REPORT_PICTURES, pictures=pictures_wanted(args.no_pictures))
        _wrote(write_report(args.output, page))
        return 0
    results = evaluate_items(items, settings)
    report_warnings(results)
    settings, note = resolve_paired(settings, [r.item for r in results])
    if note:
        out(wrapped(note))
    comparisons = []
    ranking = None
    if len(results) == 2:
        a, b = results
        try:
            comparisons.append(
                ReportComparison(a.name, b.name, compare_items(a, b, settings), settings.paired)
            )
        except BaccError as exc:
            # the page still shows both; only the comparison of unlike results is left out
            warn(f"{a.name} and {b.name} are not compared: {exc}")
    elif 2 < len(results) <= REPORT_ALL:
        ranking = rank_results(results, seed=args.seed, settings=settings)
    extras = metric_extras(results, settings, args.prevalence) if args.metrics else ({}, {})
    section = Section(title="Results", entries=report_entries(
                          results, metrics=extras[0], prevalence=args.prevalence,
                          curves=extras[1]),
                      comparisons=comparisons, ranking=ranking, measures=len(results) <= 6,
                      population=pop,
                      description=("Each classifier on the examples of every data set pooled; "
                                   "the section below compares them across data sets."
                                   if across else ""))
    page = render_report([section, *across, *scores], title=page_title,
                         pictures=pictures_wanted(args.no_pictures))
    _wrote(write_report(args.output, page))
    return 0


def _across_sections(args) -> list:
    """With ``--across``: the report's section "Across data sets" (a comparison for two
    ``--pred`` columns, a ranking for more); else none."""
    if args.across is None:
        return []
    from ..display.report import Section
    from .across import across_result

    result = across_result(args, seed=args.seed)
    what = "compared" if len(result.names) == 2 else "ranked"
    return [Section(title="Across data sets", entries=(), across=result,
                    description=(f"The classifiers {what} for the population of data sets (the "
                                 f"values of column {args.across}), paired within each data "
                                 "set."))]


def _wrote(path) -> None:
    """Say where the page went (nothing when it went to standard output)."""
    if not is_stdout(path):
        out(f"wrote {path}")


def _population_of(items, model: str, confidence: float):
    """Mixed-effects inference over the loaded items, each one subject."""
    from ..mixed_effects import population as fit

    if len(items) < 2:
        raise BaccError("population inference needs one confusion matrix per subject: give --by "
                        "COL (the subject column) or several matrices")
    matrices = {it.name: it.confusion for it in items}
    if len(matrices) < len(items):
        raise BaccError("two inputs have the same name; name each matrix once (NAME=...)")
    return fit(matrices, model=model, confidence=confidence)


def population(args) -> int:
    """``bacc population``: the population balanced accuracy from one matrix per subject."""
    if args.subjects < 1:
        raise BaccError(f"--subjects must be at least 1, got {args.subjects}")
    from ..display.text import population_table

    pop = _population_of(_load(args), args.model, args.confidence)
    if args.format == "json":
        dump_json(pop.to_dict())
    elif args.format == "csv":
        header = ["entry", "examples", "sample", "mean", "median", "mode", "lower", "upper",
                  "shrunken_mean", "shrunken_lower", "shrunken_upper", "p_above_chance"]
        s = pop.summary
        rows = [["population", int(pop.support.sum()), "", s.mean, s.median, s.mode, s.lower,
                 s.upper, "", "", "", pop.p_above_chance],
                ["new subject", "", "", pop.predictive.mean, pop.predictive.median,
                 pop.predictive.mode, pop.predictive.lower, pop.predictive.upper, "", "", "", ""],
                ["pooled (fixed effects)", int(pop.support.sum()), "", pop.fixed_effects.mean,
                 pop.fixed_effects.median, pop.fixed_effects.mode, pop.fixed_effects.lower,
                 pop.fixed_effects.upper, "", "", "", pop.fixed_effects_p_above_chance]]
        for r in pop.subjects:
            i, sh = r.independent, r.shrunken
            rows.append([r.subject, sum(r.support), r.sample_balanced_accuracy, i.mean, i.median,
                         i.mode, i.lower, i.upper, sh.mean, sh.lower, sh.upper, ""])
        write_csv(header, rows)
    else:
        out(population_table(pop, limit=args.subjects))
    return 0


def _refuse_overwriting_inputs(output, inputs) -> None:
    """Refuse an output path that is one of the inputs (also through a link)."""
    import os

    if is_stdout(output):
        return
    for src in inputs or ():
        if src == "-" or not os.path.exists(src) or not os.path.exists(output):
            continue
        if os.path.samefile(src, output):
            raise BaccError(f"the output {output} is the input {src}: choose another -o path")


#: Subcommand name -> function.
COMMANDS: dict[str, Callable[[Any], int]] = {
    "evaluate": evaluate,
    "compare": compare,
    "rank": rank,
    "coverage": coverage,
    "report": report,
    "population": population,
    "plan": plan,
    "next-label": next_label,
    "monitor": monitor_command,
    "threshold": threshold_command,
    "demo": demo,
}
