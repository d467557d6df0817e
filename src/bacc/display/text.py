"""Plain-text tables of results for a terminal (presentation only: no computation).

Every result type's ``__str__`` hands the result to a function here; numbers are formatted by
:mod:`bacc.display.numbers` and HTML is built in :mod:`bacc.display.html` from the same rows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from . import numbers as fmt
from .terminal import WIDTH, terminal_width, visible

__all__ = [
    "align",
    "batch_rows",
    "batch_summary_table",
    "batch_text",
    "batch_title",
    "binomial_test_rows",
    "binomial_test_text",
    "binomial_test_title",
    "comparison_rows",
    "comparison_text",
    "comparison_title",
    "coverage_key",
    "coverage_rows",
    "coverage_text",
    "confusion_text",
    "coverage_title",
    "cv_text",
    "evaluation_rows",
    "evaluation_table",
    "interval_class_caption",
    "interval_class_rows",
    "interval_digits",
    "interval_notes",
    "interval_text",
    "interval_title",
    "mcnemar_line",
    "population_key",
    "population_subject_rows",
    "population_table",
    "population_text_rows",
    "metric_table",
    "mcnemar_rows",
    "mcnemar_text",
    "ranking_rows",
    "ranking_text",
    "ranking_title",
    "summary_header",
    "summary_row",
    "summary_table",
    "terminal_width",
    "visible",
]



def evaluation_rows(ev, exact=None, accuracy_exact=None, class_exact: Sequence | None = None):
    """Header and rows of the summary table (shared by the text and HTML forms).

    Parameters
    ----------
    ev : Evaluation
    exact : Interval, optional
        Exact interval of the balanced accuracy; adds an "exact" column.
    accuracy_exact : Interval, optional
        Exact (Clopper-Pearson) interval of the accuracy.
    class_exact : sequence of ClassInterval, optional
        Exact interval of each class accuracy.

    Returns
    -------
    header, rows, class_header, class_rows : lists of str
    """
    pct = fmt.percent(ev.confidence)
    with_exact = exact is not None
    header = ["", "sample", "mean", "median", "mode", f"{pct} credible"]
    if with_exact:
        header.append(f"{pct} exact")
    rows = []
    for name, sample, s, ex in (
        (_balanced_name(ev), ev.sample_balanced_accuracy, ev.balanced_accuracy_summary, exact),
        ("accuracy", ev.sample_accuracy, ev.accuracy_summary, accuracy_exact),
    ):
        row = [name, fmt.number(sample), fmt.number(s.mean), fmt.number(s.median), fmt.number(s.mode), fmt.interval(s.lower, s.upper)]
        if with_exact:
            row.append(fmt.interval(ex.lower, ex.upper) if ex is not None else "-")
        rows.append(row)
    class_header = ["class", "correct / n", "sample", "mean", f"{pct} credible"]
    if class_exact is not None:
        class_header.append(f"{pct} exact")
    class_rows = []
    for i, c in enumerate(ev.classes):
        mark = "" if c.included else " (not in balanced accuracy)"
        row = [
            f"{c.label}{mark}",
            f"{c.correct} / {c.support}",
            fmt.number(c.sample_accuracy),
            fmt.number(c.summary.mean),
            fmt.interval(c.summary.lower, c.summary.upper),
        ]
        if class_exact is not None:
            ci = class_exact[i]
            row.append(fmt.interval(ci.lower, ci.upper) if c.support > 0 else "-")
        class_rows.append(row)
    return header, rows, class_header, class_rows


def _weighted(ev) -> bool:
    """Whether the balanced accuracy of ``ev`` weights its classes unequally."""
    w = getattr(ev, "weights", None)
    return w is not None and len(set(round(float(x), 12) for x in w if x > 0)) > 1


def _balanced_name(ev) -> str:
    return "weighted balanced accuracy" if _weighted(ev) else "balanced accuracy"


#: The cell of a value that is undefined (a metric on an input where it is 0/0).
UNDEFINED = "\u2014"


def wrap(text: str, width: int = WIDTH, indent: str = "  ") -> list[str]:
    """A line of prose as lines of at most ``width`` characters (continuations indented).

    Examples
    --------
    >>> wrap("a " * 30, width=20)[:2]
    ['a a a a a a a a a a', '  a a a a a a a a a']
    """
    import textwrap

    return textwrap.wrap(text, width=width, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False) or [""]


def align(
    header: Sequence, rows: Sequence[Sequence], *, left: int | Collection[int] = 1,
    width: int | None = WIDTH,
) -> list[str]:
    """Lines of a plain-text table: the one table layout of bacc's terminal output.

    Parameters
    ----------
    header : sequence
        Column titles.
    rows : sequence of sequences
        Cells (any values, shown with ``str``; control characters, new lines and tabs
        written as escapes so that a cell stays one aligned line), one sequence per row, as
        long as ``header``.
    left : int or collection of int
        The first ``left`` columns (an int) or the columns at these indices (a collection) are
        left-aligned, the others right-aligned (numbers).
    width : int or None
        Widest line allowed (default 100 columns). A wider table puts the first column (the
        names) on a line of its own above the other cells of its row.

    Returns
    -------
    list of str
        One line per row, header first; columns are separated by two spaces and trailing
        spaces are removed.

    Examples
    --------
    >>> align(["name", "value"], [["a", "1.0"], ["longer", "22.5"]])
    ['name    value', 'a         1.0', 'longer   22.5']
    """
    lefts = set(range(left)) if isinstance(left, int) else set(left)

    def cell(v: object) -> str:  # one line, control characters shown as escapes
        return visible(str(v), keep="")

    table = [list(map(cell, header)), *[list(map(cell, r)) for r in rows]]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    out = []
    for r in table:
        cells = [v.ljust(widths[i]) if i in lefts else v.rjust(widths[i]) for i, v in enumerate(r)]
        out.append("  ".join(cells).rstrip())
    if width is None or len(header) < 2 or max(map(len, out)) <= width:
        return out
    # too wide: each name on its own line, the other cells below it, indented
    rest = align([""] + list(header[1:]), [[""] + list(r[1:]) for r in table[1:]],
                 left={i for i in lefts if i > 0} | {0}, width=None)
    lines = [rest[0]]
    for r, line in zip(table[1:], rest[1:], strict=True):
        lines += [r[0], line]
    return lines


def evaluation_table(ev, exact=None, accuracy_exact=None, class_exact=None, fold_interval=None,
                     *, classes: bool = True) -> str:
    """Readable terminal table of an :class:`~bacc.evaluation.Evaluation`.

    With ``exact`` (and ``accuracy_exact``, ``class_exact``) the exact frequentist intervals are
    shown beside the credible intervals; with ``fold_interval`` (an approximate interval from
    :func:`bacc.fold_sem_interval`) the conventional mean of fold accuracies +- 2 SEM.
    """
    cm = ev.confusion
    header, rows, ch, crows = evaluation_rows(ev, exact, accuracy_exact, class_exact)
    pct = fmt.percent(ev.confidence)
    from ..posterior import prior_phrase

    lines = [
        f"{cm.n_classes} classes, {cm.total} examples",
        *wrap(f"posterior: {prior_phrase(ev.prior_a, ev.prior_b)}; {pct} central credible "
              "intervals"),
        *(wrap("weighted balanced accuracy: class weights " + ", ".join(
            f"{visible(str(c.label))} {fmt.significant(w)}" for c, w in zip(ev.classes, ev.weights, strict=True))
            + " (cost-weighted, Brodersen et al. 2010)") if _weighted(ev) else []),
        *(wrap(_exact_phrase(exact, pct)) if exact is not None else []),
        "",
        *align(header, rows),
    ]
    if fold_interval is not None:
        fi = fold_interval
        warn = "  <- leaves [0, 1]" if fi.exceeds_unit_interval else ""
        lines += wrap(
            f"approximate: mean of {len(fi.fold_values)} fold accuracies +- {fi.multiplier:g} SEM = "
            f"{fmt.number(fi.estimate)} {fmt.interval(fi.lower, fi.upper)}{warn}"
        )
    lines += [
        "",
        f"P(balanced accuracy > chance {fmt.significant(ev.chance)}) "
        f"{fmt.p_phrase(ev.p_above_chance)}",
    ]
    if classes:
        lines += [
            "",
            "per class (accuracy = recall):",
            *("  " + line for line in align(ch, crows, width=WIDTH - 2)),
        ]
    return "\n".join(lines)


def summary_header(confidence: float, *, compact: bool = False) -> list[str]:
    """Header of the one-row-per-classifier summary table (``compact``: for a terminal)."""
    pct = fmt.percent(confidence)
    if compact:
        return ["name", "n", "acc.", "bal. acc.", "mean", f"{pct} credible", f"{pct} exact",
                "P(> chance)"]
    return [
        "name", "classes", "examples", "accuracy", "balanced accuracy", "posterior mean",
        f"{pct} credible", f"{pct} exact", "P(> chance)",
    ]


def summary_row(name: str, ev, exact=None, *, compact: bool = False) -> list[str]:
    """One row of the summary table (sample values, posterior mean, intervals, P(> chance))."""
    cm = ev.confusion
    s = ev.balanced_accuracy_summary
    return [
        str(name),
        *([] if compact else [str(cm.n_classes)]),
        str(cm.total),
        fmt.number(ev.sample_accuracy),
        fmt.number(ev.sample_balanced_accuracy),
        fmt.number(s.mean),
        fmt.interval(s.lower, s.upper),
        fmt.interval(exact.lower, exact.upper) if exact is not None else "-",
        fmt.probability(ev.p_above_chance),
    ]


def summary_table(named: Sequence[tuple[str, object, object]]) -> str:
    """Terminal table with one row per ``(name, Evaluation, Interval or None)``."""
    if not named:
        return ""
    conf = named[0][1].confidence
    rows = [summary_row(n, ev, ex, compact=True) for n, ev, ex in named]
    return "\n".join(align(summary_header(conf, compact=True), rows))


def batch_summary_table(batch) -> str:
    """Terminal summary of a :class:`bacc.batch.BatchEvaluation` (same columns as
    :func:`summary_table`)."""
    header = summary_header(batch.confidence, compact=True)
    n = batch.support.sum(axis=1)
    rows = [
        [
            str(g), str(int(n[i])), fmt.number(float(batch.sample_accuracy[i])),
            fmt.number(float(batch.sample_balanced_accuracy[i])), fmt.number(float(batch.mean[i])),
            fmt.interval(float(batch.lower[i]), float(batch.upper[i])),
            fmt.interval(float(batch.exact_lower[i]), float(batch.exact_upper[i])),
            fmt.probability(float(batch.p_above_chance[i])),
        ]
        for i, g in enumerate(batch.groups)
    ]
    return "\n".join(align(header, rows))


def confusion_text(cm, width: int = WIDTH) -> str:
    """A confusion matrix as a labelled table: true classes in rows, predicted in columns, the
    row totals at the right; columns that do not fit ``width`` are left out and counted.

    Examples
    --------
    >>> from bacc import ConfusionMatrix
    >>> print(confusion_text(ConfusionMatrix([[42, 3], [6, 4]], labels=["pos", "neg"])))
    2 classes, 55 examples (rows: true class, columns: predicted class)
    true \\ predicted  pos  neg   total
    pos                42    3      45
    neg                 6    4      10
    """

    def short(x) -> str:
        t = str(x)
        return t if len(t) <= 16 else t[:15] + "\u2026"

    labels = [short(x) for x in cm.labels]
    counts = cm.counts
    l = len(labels)
    head = [f"{l} classes, {cm.total} examples (rows: true class, columns: predicted class)"]
    header = ["true \\ predicted", *labels, " total"]
    rows = [[labels[i], *(str(int(v)) for v in counts[i]), str(int(counts[i].sum()))]
            for i in range(l)]
    # the widest count of each column decides its width; keep the columns that fit
    first = max(len(header[0]), *(len(r[0]) for r in rows))
    widths = [max(len(header[j + 1]), *(len(r[j + 1]) for r in rows)) for j in range(l)]
    total_w = max(len(header[-1]), *(len(r[-1]) for r in rows))
    used, keep = first + 2 + total_w + 2, 0
    for w in widths:
        if used + w + 2 > width and keep < l:
            break
        used += w + 2
        keep += 1
    if keep < l:
        header = [*header[: keep + 1], "...", header[-1]]
        rows = [[*r[: keep + 1], "...", r[-1]] for r in rows]
        head.append(f"({l - keep} predicted-class columns left out to fit {width} columns; "
                    "cm.counts holds them all)")
    return "\n".join([*head, *align(header, rows, width=None)])


def metric_table(results, confidence: float, name: str | None = None) -> str:
    """Terminal table of :class:`bacc.MetricPosterior` results: sample value, posterior mean,
    central credible interval, and how each was computed (exact, or Monte Carlo with its
    error).

    A result with a ``reason`` (a metric undefined on this input) gets empty cells
    (``UNDEFINED``, a dash) and a note below the table naming the metric, the input ``name`` and
    the reason.
    """
    pct = fmt.percent(confidence)
    header = ["metric", "sample", "mean", f"{pct} credible", "computed"]
    rows = []
    notes = []
    where = "here" if name is None else f"for {name}"
    for r in results:
        metric = r.metric + ("" if r.label is None else f" ({r.label})")
        reason = getattr(r, "reason", None)
        if reason is not None:  # undefined on this input: empty cells and a note
            rows.append([metric, UNDEFINED, UNDEFINED, UNDEFINED, "undefined"])
            notes += wrap(f"{UNDEFINED} {metric} is undefined {where}: {reason}")
            continue
        how = "exact" if r.exact else f"MC +- {fmt.mc_error(max(r.mc_se.values()))}"
        rows.append([metric, fmt.number(r.sample), fmt.number(r.mean),
                     fmt.interval(r.lower, r.upper), how])
    return "\n".join([*align(header, rows), *notes])


# ----------------------------------------------------------------------------------------------
# comparisons and rankings
def comparison_rows(c, names: tuple[str, str] | None = None):
    """Header and rows of a :class:`bacc.Comparison` (shared with the HTML form); ``names``
    replaces the classifiers' names (short keys for long names)."""
    a, b = names or c.names
    header = ["", "sample", "posterior mean", f"{fmt.percent(c.confidence)} credible"]
    rows = [
        [f"balanced accuracy {a}", fmt.number(c.sample_balanced_accuracy[0]), fmt.number(c.mean_balanced_accuracy[0]), ""],
        [f"balanced accuracy {b}", fmt.number(c.sample_balanced_accuracy[1]), fmt.number(c.mean_balanced_accuracy[1]), ""],
        [f"difference {a} - {b}", fmt.number(c.sample_difference), fmt.number(c.mean), fmt.interval(c.lower, c.upper)],
    ]
    probs = [[f"P({a} > {b})", fmt.probability(c.p_better)]]
    if c.rope > 0:
        r = f"{c.rope:g}"
        probs += [
            [f"P({a} < {b} - {r})", fmt.probability(c.p_left)],
            [f"P(|{a} - {b}| <= {r})", fmt.probability(c.p_rope)],
            [f"P({a} > {b} + {r})", fmt.probability(c.p_right)],
        ]
    return header, rows, probs


def comparison_title(c) -> str:
    """First lines of a comparison: what is compared, the design, classes and examples."""
    kind = ("paired: same test examples, joint Dirichlet posterior" if c.paired
            else "independent test sets, independent posteriors")
    n = (
        f"{c.n_examples[0]} examples"
        if c.paired
        else f"{c.n_examples[0]} and {c.n_examples[1]} examples"
    )
    return "\n".join([
        "Comparison of balanced accuracies: posterior of the difference "
        "(Carrillo et al. 2014, eq. 14)",
        *wrap(f"{kind}; {len(c.labels)} classes, {n}"),
    ])


def mcnemar_line(c, names: tuple[str, str] | None = None) -> str:
    """The exact McNemar test of a paired comparison, in one line."""
    m = c.mcnemar
    a, b = names or c.names
    return (
        f"exact McNemar test of the accuracies: two-sided p = {fmt.significant(m.p_value)}; "
        f"examples only {a} got right: {m.only_a}, only {b}: {m.only_b}"
    )


def comparison_text(c) -> str:
    """Terminal table of a :class:`bacc.Comparison`."""
    keys = None
    lines = [comparison_title(c)]
    if len(str(c.names[0])) + len(str(c.names[1])) > 40:
        # long names: keyed A and B, each named once on its own line
        keys = ("A", "B")
        lines += [*wrap(f"A = {c.names[0]}"), *wrap(f"B = {c.names[1]}")]
    header, rows, probs = comparison_rows(c, keys)
    lines += ["", *align(header, rows), ""]
    # "> 0.9999" and "< 0.0001" already carry their relation
    for name, val in probs:
        lines += wrap(f"{name} {val}" if val[0] in "<>" else f"{name} = {val}")
    if c.mcnemar is not None:
        lines += ["", *wrap(mcnemar_line(c, keys))]
    return "\n".join(lines)


def ranking_rows(r):
    """Header and rows of the ranking table and of the matrix of P(row > column)."""
    header = ["classifier", "rank", "wins", "posterior mean", "P(best)", "E[rank]"]
    exact = r.n_draws == 0  # two classifiers: from their pair, no Monte Carlo error
    rows = [
        [
            str(r.names[i]),
            str(r.rank[i]),
            str(r.wins[i]),
            fmt.number(r.mean_balanced_accuracy[i]),
            fmt.number(r.p_best[i]) if exact else
            f"{fmt.number(r.p_best[i])} ± {fmt.number(r.p_best_se[i])}",
            fmt.number(r.expected_rank[i]) if exact else
            f"{fmt.number(r.expected_rank[i])} ± {fmt.number(r.expected_rank_se[i])}",
        ]
        for i in r.order
    ]
    mheader = ["P(row > column)"] + [str(r.names[j]) for j in r.order]
    mrows = [
        [str(r.names[i])] + ["-" if i == j else fmt.probability(r.p_greater[i, j]) for j in r.order]
        for i in r.order
    ]
    return header, rows, mheader, mrows


def ranking_matrix_lines(r, width: int = WIDTH) -> list[str]:
    """The matrix of P(row > column) for a terminal: columns keyed by rank position (#1, #2,
    ...) and cut into blocks of columns that fit ``width``."""
    order = list(r.order)
    names = [f"#{k + 1} {r.names[i]}" for k, i in enumerate(order)]
    first = max(len("P(row > column)"), *map(len, names))
    per = max(1, (width - first) // 10)
    lines: list[str] = []
    for start in range(0, len(order), per):
        cols = order[start : start + per]
        header = ["P(row > column)"] + [f"#{order.index(j) + 1}" for j in cols]
        rows = [
            [names[k]] + ["-" if i == j else fmt.probability(r.p_greater[i, j]) for j in cols]
            for k, i in enumerate(order)
        ]
        if lines:
            lines.append("")
        lines += align(header, rows, width=None)
    return lines


def ranking_title(r) -> str:
    """What a ranking shows and how it was computed, in short lines."""
    pairwise = {
        "exact": "P(row > column): exact, one convolution per pair",
        "quadrature": "P(row > column): one vectorised quadrature of all pairs, checked "
                      "against exact pairs (within 1e-8)",
    }.get(r.pairwise) or ("P(row > column): from the same draws (Monte Carlo error up to "
                          f"{fmt.number(float(np.nanmax(r.p_greater_se)))})")
    lines = [
        f"Ranking of {len(r.names)} classifiers by posterior balanced accuracy "
        f"({len(r.labels)} classes)",
        f"model: {r.model}",
        f"prior: {r.prior}",
        "wins: by the sign of the posterior mean difference (Carrillo et al. 2014, section 4.5)",
        "P(best), E[rank]: from P(row > column) of the two, no draws" if r.n_draws == 0 else
        f"P(best), E[rank]: {r.n_draws} posterior draws, seed {r.random_state!r}, ± Monte Carlo "
        "standard error",
        pairwise,
    ]
    return "\n".join(w for line in lines for w in wrap(line))


def ranking_text(r) -> str:
    """Terminal tables of a :class:`bacc.Ranking`."""
    header, rows, _, _ = ranking_rows(r)
    return "\n".join([ranking_title(r), "", *align(header, rows), "", *ranking_matrix_lines(r)])


# ----------------------------------------------------------------------------------------------
# intervals and tests
_SIDES = {"two": "two-sided", "lower": "one-sided lower", "upper": "one-sided upper"}


def _exact_phrase(exact, pct: str) -> str:
    """The line that says what the exact column of an evaluation is."""
    if exact.method == "anytime":
        return (f"exact: {pct} anytime-valid confidence sequences (valid at every look of a "
                "stream of labels and under any stopping rule; Howard et al. 2021)")
    return (f"exact: {pct} confidence intervals (balanced accuracy: {exact.method} bound; "
            "others: Clopper-Pearson)")


def interval_digits(iv) -> int:
    """Decimals that tell the ends of the interval and of each per-class interval apart."""
    return fmt.digits_for((iv.lower, iv.upper), *[(c.lower, c.upper) for c in iv.per_class])


def interval_title(iv) -> str:
    """First line of an interval: exact or approximate, level, sides, metric and method."""
    from ..intervals import METHODS

    what = "balanced accuracy" if iv.metric == "balanced_accuracy" else "accuracy"
    sides = f"{fmt.percent(iv.confidence, precise=True)} {_SIDES[iv.sides]}"
    method = METHODS[iv.method]
    if method.anytime:
        return (
            f"Anytime-valid {sides} confidence {'interval' if iv.sides == 'two' else 'bound'} "
            f"for the {what}, valid at every look ({method.title}; {method.reference})"
        )
    if iv.guaranteed:
        return (
            f"Exact {sides} confidence {'interval' if iv.sides == 'two' else 'bound'} for the "
            f"{what} ({method.title}; {method.reference})"
        )
    return (
        f"APPROXIMATE {sides} interval for the {what} ({method.title}; coverage not guaranteed)"
    )


def interval_notes(iv) -> list[str]:
    """Remarks under an interval: the fold values of a fold-SEM interval, and a warning when
    the interval leaves [0, 1]."""
    notes = []
    if iv.method == "fold-sem":
        notes.append(
            f"{len(iv.fold_values)} folds, mean +- {fmt.significant(iv.multiplier)} x SEM; "
            "fold values: " + ", ".join(fmt.number(v) for v in iv.fold_values)
        )
    if iv.exceeds_unit_interval:
        notes.append("WARNING: the interval leaves [0, 1]; accuracies cannot lie there")
    return notes


def interval_class_caption(iv) -> str:
    """What the per-class intervals of an interval are (method and level of each)."""
    from ..intervals import METHODS

    each = METHODS[iv.per_class[0].method].title
    if METHODS[iv.method].anytime:
        return (
            f"per class (each class's own sequence at "
            f"{fmt.percent(iv.confidence, precise=True)}, valid at every look, for reference):"
        )
    if iv.per_bound_confidence is not None:
        return (
            f"per class ({each}, each one-sided bound at "
            f"{fmt.percent(iv.per_bound_confidence, precise=True)}):"
        )
    if iv.guaranteed:
        return (
            f"per class ({each}, each at "
            f"{fmt.percent(iv.per_class[0].confidence, precise=True)}, for reference):"
        )
    return f"per class ({each}):"


def interval_class_rows(iv, digits: int | None = None):
    """Header and rows of the per-class intervals (shared by the text and HTML forms)."""
    d = interval_digits(iv) if digits is None else digits
    header = ["class", "correct", "support", "accuracy", "lower", "upper"]
    rows = [
        [
            f"{c.label}{'' if c.included else ' (left out: no examples)'}",
            str(c.correct),
            str(c.support),
            fmt.number(c.estimate, d, missing="nan"),
            fmt.number(c.lower, d, missing="nan"),
            fmt.number(c.upper, d, missing="nan"),
        ]
        for c in iv.per_class
    ]
    return header, rows


def interval_text(iv) -> str:
    """Terminal text of a :class:`bacc.Interval`, exact or approximate.

    Parameters
    ----------
    iv : Interval
        A result of :func:`bacc.exact_interval`, :func:`bacc.approx_interval` or
        :func:`bacc.fold_sem_interval`.

    Returns
    -------
    str
        A title line, the estimate and the interval with enough decimals to tell its ends apart
        (:func:`bacc.display.numbers.digits_for`), remarks, and the per-class intervals.
    """
    d = interval_digits(iv)
    num = lambda x: fmt.number(x, d, missing="nan")  # noqa: E731
    lines = [
        interval_title(iv),
        f"  estimate {num(iv.estimate)}   interval [{num(iv.lower)}, {num(iv.upper)}]",
        *("  " + note for note in interval_notes(iv)),
    ]
    if iv.per_class:
        header, rows = interval_class_rows(iv, d)
        lines.append("  " + interval_class_caption(iv))
        lines += ["    " + line for line in align(header, rows)]
    return "\n".join(lines)


def binomial_test_title(t) -> str:
    """First line of a :class:`bacc.BinomialTest`."""
    pct = fmt.percent(t.confidence, precise=True)
    return f"Exact binomial test of the accuracy against chance (one-sided, {pct})"


def binomial_test_rows(t):
    """Header and rows of a :class:`bacc.BinomialTest` (the HTML form)."""
    pct = fmt.percent(t.confidence, precise=True)
    return ["", "value"], [
        ["accuracy", f"{t.correct}/{t.total} = {fmt.number(t.accuracy)}"],
        ["chance", fmt.number(t.chance)],
        [
            f"threshold F^-1({fmt.significant(t.confidence, 6)}) of Binomial({t.total}, "
            f"{fmt.significant(t.chance)})",
            str(t.threshold),
        ],
        ["p-value", fmt.significant(t.p_value)],
        ["accuracy verdict", "above chance" if t.above_chance else "not significantly above chance"],
        ["balanced accuracy", fmt.number(t.sample_balanced_accuracy)],
        [f"exact {pct} lower bound ({t.balanced_method})", fmt.number(t.balanced_lower)],
        ["balanced chance", fmt.number(t.balanced_chance)],
        [
            "balanced accuracy verdict",
            f"{'clears' if t.balanced_above_chance else 'does not clear'} chance",
        ],
    ]


def binomial_test_text(t) -> str:
    """Terminal text of a :class:`bacc.BinomialTest`.

    Parameters
    ----------
    t : BinomialTest
        A result of :func:`bacc.binomial_test`.

    Returns
    -------
    str
        The accuracy against chance (threshold and p-value) and the exact lower bound of the
        balanced accuracy against its chance level.
    """
    pct = fmt.percent(t.confidence, precise=True)
    verdict = "above chance" if t.above_chance else "not significantly above chance"
    bverdict = "clears" if t.balanced_above_chance else "does not clear"
    return "\n".join(
        [
            binomial_test_title(t),
            f"  accuracy {t.correct}/{t.total} = {fmt.number(t.accuracy)}, chance "
            f"{fmt.number(t.chance)}",
            f"  threshold F^-1({fmt.significant(t.confidence, 6)}) of Binomial({t.total}, "
            f"{fmt.significant(t.chance)}) = {t.threshold}; p-value "
            f"{fmt.significant(t.p_value)}: {verdict}",
            f"  balanced accuracy {fmt.number(t.sample_balanced_accuracy)}: exact {pct} lower "
            f"bound {fmt.number(t.balanced_lower)} ({t.balanced_method}) {bverdict} chance "
            f"{fmt.number(t.balanced_chance)}",
        ]
    )


def mcnemar_rows(m):
    """Header and rows of a :class:`bacc.McNemarTest` (the HTML form)."""
    header = ["", "only A right", "only B right", "two-sided p"]
    return header, [["discordant pairs", str(m.only_a), str(m.only_b), fmt.significant(m.p_value)]]


def mcnemar_text(m) -> str:
    """Terminal text of a :class:`bacc.McNemarTest`.

    Parameters
    ----------
    m : McNemarTest
        A result of :func:`bacc.mcnemar_exact`.

    Returns
    -------
    str
        One line: the discordant counts and the two-sided p-value.
    """
    return (
        f"Exact McNemar test: only A right {m.only_a}, only B right {m.only_b}, "
        f"two-sided p = {fmt.significant(m.p_value)}"
    )


# ----------------------------------------------------------------------------------------------
# simulation, batches, cross-validation
def coverage_title(r) -> list[str]:
    """The two lines above a coverage table: what was simulated."""
    if isinstance(r.prevalence, tuple):
        prev = "(" + ", ".join(fmt.significant(v, 4) for v in r.prevalence) + ")"
    else:
        prev = fmt.significant(r.prevalence or 0.0, 4)
    what = {"balanced_accuracy": "balanced accuracy", "accuracy": "accuracy",
            "auc": "AUC"}.get(r.metric, f"precision at prevalence {prev}")
    if r.metric == "auc":  # a design of scores (bacc.auc_coverage): class sizes, no accuracies
        design = (f"{r.class_sizes[1]} positive and {r.class_sizes[0]} negative examples, "
                  f"{r.n_sim} simulated test sets")
    else:
        design = (f"class sizes {list(r.class_sizes)}, class accuracies "
                  f"{[float(p) for p in r.true_class_accuracies]}, {r.n_sim} simulated test sets")
    return [
        f"Coverage of {fmt.percent(r.confidence, precise=True)} {_SIDES[r.sides]} intervals for "
        f"the {what} when its true value is {fmt.significant(r.true_value, 6)}",
        *wrap(design, WIDTH - 2),
    ]


def coverage_rows(r):
    """Header and rows of a :class:`bacc.CoverageResult`, one row per method (shared by the
    text and HTML forms)."""
    header = ["method", "kind", "coverage", "+- MC error", "mean width", "outside [0,1]", "verdict"]
    rows = [
        [
            m.method,
            "exact" if m.exact else "approx",
            fmt.number(m.coverage),
            fmt.number(m.mc_se),
            fmt.number(m.mean_width),
            fmt.number(m.share_outside),
            (f"keeps {fmt.percent(r.confidence, precise=True)}" if m.keeps_promise(r.confidence)
             else "FALLS SHORT"),
        ]
        for m in r.methods
    ]
    return header, rows


def coverage_text(r) -> str:
    """Terminal table of a :class:`bacc.CoverageResult`.

    Parameters
    ----------
    r : CoverageResult
        A result of :func:`bacc.coverage`.

    Returns
    -------
    str
        What was simulated, then one row per method: coverage with its Monte Carlo standard
        error, mean width, share of intervals outside [0, 1], and whether the method keeps its
        nominal coverage.
    """
    first, *more = coverage_title(r)
    header, rows = coverage_rows(r)
    lines = [*wrap(first), *("  " + line for line in more),
             *("  " + line for line in align(header, rows, left=(0, 1, 6), width=WIDTH - 2)),
             *("  " + line for line in wrap(coverage_key(r), WIDTH - 2))]
    return "\n".join(lines)


def coverage_key(r) -> str:
    """What the columns of a coverage table mean (printed under it)."""
    pct = fmt.percent(r.confidence, precise=True)
    return (f"coverage: share of the simulated test sets whose interval contains the true value "
            f"(promised: at least {pct}); +- MC error: its Monte Carlo standard error; "
            f"keeps {pct}: coverage at least {pct} less 3 MC errors, else FALLS SHORT; "
            "outside [0,1]: share of intervals reaching below 0 or above 1; exact: an interval "
            "built to keep the promise whatever the truth, approx: an approximation.")


def batch_rows(b, *, limit: int = 40):
    """Header and rows of a :class:`bacc.BatchEvaluation`; beyond ``limit`` groups the first and
    last ``limit // 2`` with a row of ``...`` between them."""
    pct = fmt.percent(b.confidence)
    head = ["group", "bal. acc.", "mean", f"{pct} credible", f"{pct} exact", "P(> chance)"]
    n = len(b.groups)
    half = limit // 2
    shown = range(n) if n <= limit else [*range(half), None, *range(n - half, n)]
    rows = [
        ["..."] * len(head) if g is None else [
            str(b.groups[g]),
            fmt.number(float(b.sample_balanced_accuracy[g])),
            fmt.number(float(b.mean[g])),
            fmt.interval(float(b.lower[g]), float(b.upper[g])),
            fmt.interval(float(b.exact_lower[g]), float(b.exact_upper[g])),
            fmt.probability(float(b.p_above_chance[g])),
        ]
        for g in shown
    ]
    return head, rows


def batch_title(b) -> str:
    """First line of a :class:`bacc.BatchEvaluation`: groups and classes."""
    return f"{len(b.groups)} groups, {len(b.labels)} classes"


def batch_text(b, *, limit: int = 40) -> str:
    """Terminal table of a :class:`bacc.BatchEvaluation`.

    Parameters
    ----------
    b : BatchEvaluation
        A result of :func:`bacc.evaluate_many`.
    limit : int
        Most groups shown; beyond it the first and last ``limit // 2``.

    Returns
    -------
    str
        One row per group: sample balanced accuracy, posterior mean, credible and exact
        intervals, and P(> chance).
    """
    head, rows = batch_rows(b, limit=limit)
    return batch_title(b) + "\n" + "\n".join(align(head, rows))


def cv_text(cv) -> str:
    """Terminal text of a cross-validated evaluation (:func:`bacc.sklearn.evaluate_cv`)."""
    ev = cv.evaluation
    s = ev.balanced_accuracy_summary
    pct = fmt.percent(ev.confidence)
    head = (
        f"Cross-validation, {cv.n_folds} folds: the algorithm (confusion matrices summed "
        "over folds)\n"
    )
    header = ["fold", "n", "bal.acc", "mean", f"{pct} credible"]
    rows = [
        [
            str(i),
            str(f.confusion.total),
            fmt.number(f.sample_balanced_accuracy),
            fmt.number(f.balanced_accuracy_summary.mean),
            fmt.interval(f.balanced_accuracy_summary.lower, f.balanced_accuracy_summary.upper),
        ]
        for i, f in enumerate(cv.folds)
    ]
    rows.append(
        ["all", str(ev.confusion.total), fmt.number(ev.sample_balanced_accuracy), fmt.number(s.mean),
         fmt.interval(s.lower, s.upper)]
    )
    lines = ["", *align(header, rows, left=0)]
    return head + evaluation_table(ev) + "\n" + "\n".join(lines)


def population_text_rows(p):
    """Header and rows of the population table (population, new subject, pooled)."""
    header = ["", "mean", "median", "mode", f"{fmt.percent(p.confidence)} credible"]

    def row(name, s):
        return [name, fmt.number(s.mean), fmt.number(s.median), fmt.number(s.mode),
                fmt.interval(s.lower, s.upper)]  # fmt: skip

    what = "accuracy" if len(p.labels) == 1 else "balanced accuracy"
    rows = [row(f"population {what}", p.summary),
            row(f"a new subject's {what}", p.predictive),
            row("all examples pooled (fixed effects)", p.fixed_effects)]  # fmt: skip
    return header, rows


def population_key(p) -> str:
    """What the three rows of the population table are (printed under it)."""
    what = "accuracy" if len(p.labels) == 1 else "balanced accuracy"
    return (f"population: the mean {what} of subjects like these; a new subject's: where the "
            f"{what} of one more subject is expected (wider: subjects differ); pooled: every "
            "example counted as if from one test set, which ignores that subjects differ.")


def population_subject_rows(p, *, limit: int | None = 40):
    """Header and rows of the per-subject table (own and shrunken posteriors)."""
    pct = fmt.percent(p.confidence)
    header = ["subject", "examples", "sample", "own mean", f"own {pct}", "shrunken mean",
              f"shrunken {pct}"]  # fmt: skip
    subjects = p.subjects if limit is None else p.subjects[:limit]
    rows = [[str(s.subject), str(sum(s.support)), fmt.number(s.sample_balanced_accuracy),
             fmt.number(s.independent.mean), fmt.interval(s.independent.lower, s.independent.upper),
             fmt.number(s.shrunken.mean), fmt.interval(s.shrunken.lower, s.shrunken.upper)]
            for s in subjects]  # fmt: skip
    return header, rows


def population_table(p, *, limit: int = 40) -> str:
    """Readable terminal text of a :class:`~bacc.mixed_effects.Population`."""
    what = "accuracy" if len(p.labels) == 1 else "balanced accuracy"
    lines = [
        *wrap(f"mixed-effects ({p.model}) inference on the population {what}: "
              f"{len(p.subject_names)} subjects, {len(p.labels)} "
              f"{'class' if len(p.labels) == 1 else 'classes'}, {int(p.support.sum())} examples"),
        "",
    ]
    header, rows = population_text_rows(p)
    lines += align(header, rows)
    lines += wrap(population_key(p))
    lines += ["", f"P(population {what} > chance {fmt.significant(p.chance)}) "
                  f"{fmt.p_phrase(p.p_above_chance)}",
              f"log evidence: {p.log_evidence:.4f} (of the model: the higher, the better "
              "it explains the counts; compare --model choices)", ""]  # fmt: skip
    lines += wrap(p.verdict)
    ch = ["class", "population accuracy", f"{fmt.percent(p.confidence)} credible",
          "sd between subjects"]  # fmt: skip
    crows = [[str(c.label), fmt.number(c.accuracy.mean),
              fmt.interval(c.accuracy.lower, c.accuracy.upper), fmt.number(c.spread)]
             for c in p.classes]  # fmt: skip
    lines += ["", "per class:", *("  " + line for line in align(ch, crows, width=WIDTH - 2))]
    sh, srows = population_subject_rows(p, limit=limit)
    lines += ["", "per subject (own: this subject alone; shrunken: under the model):",
              *("  " + line for line in align(sh, srows, width=WIDTH - 2))]  # fmt: skip
    if len(p.subject_names) > limit:
        lines.append(f"  ... and {len(p.subject_names) - limit} more subjects")
    for note in p.notes[:5]:
        lines += wrap("note: " + note)
    if len(p.notes) > 5:
        lines.append(f"note: {len(p.notes) - 5} more subjects lack a class")
    return "\n".join(lines)
