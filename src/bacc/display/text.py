"""Plain-text and HTML tables of results (presentation only: no computation).

The functions here format numbers that the numerical modules computed; the optional ``exact``
arguments are results of :mod:`bacc.exact` (an :class:`~bacc.exact.ExactInterval` for the
balanced accuracy and for the accuracy, and a :class:`~bacc.exact.ClassInterval` per class).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np


def _f(x, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "-"
    return f"{x:.{digits}f}"


def _p(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x >= 0.9999:
        return "> 0.9999"
    if x <= 1e-4:
        return "< 0.0001"
    return f"{x:.4f}"


def _iv(lo, hi, digits: int = 4) -> str:
    return f"[{_f(lo, digits)}, {_f(hi, digits)}]"


def _pct(confidence: float) -> str:
    return f"{confidence * 100:g}%"


def evaluation_rows(ev, exact=None, accuracy_exact=None, class_exact: Sequence | None = None):
    """Header and rows of the summary table (shared by the text and HTML forms).

    Parameters
    ----------
    ev : Evaluation
    exact : ExactInterval, optional
        Exact interval of the balanced accuracy; adds an "exact" column.
    accuracy_exact : ExactInterval, optional
        Exact (Clopper-Pearson) interval of the accuracy.
    class_exact : sequence of ClassInterval, optional
        Exact interval of each class accuracy.

    Returns
    -------
    header, rows, class_header, class_rows : lists of str
    """
    pct = _pct(ev.confidence)
    with_exact = exact is not None
    header = ["", "sample", "mean", "median", "mode", f"{pct} credible"]
    if with_exact:
        header.append(f"{pct} exact")
    rows = []
    for name, sample, s, ex in (
        ("balanced accuracy", ev.sample_balanced_accuracy, ev.balanced_accuracy_summary, exact),
        ("accuracy", ev.sample_accuracy, ev.accuracy_summary, accuracy_exact),
    ):
        row = [name, _f(sample), _f(s.mean), _f(s.median), _f(s.mode), _iv(s.lower, s.upper)]
        if with_exact:
            row.append(_iv(ex.lower, ex.upper) if ex is not None else "-")
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
            _f(c.sample_accuracy),
            _f(c.summary.mean),
            _iv(c.summary.lower, c.summary.upper),
        ]
        if class_exact is not None:
            ci = class_exact[i]
            row.append(_iv(ci.lower, ci.upper) if c.support > 0 else "-")
        class_rows.append(row)
    return header, rows, class_header, class_rows


def align(header: Sequence, rows: Sequence[Sequence], *, left: int = 1) -> list[str]:
    """Lines of a table: the first ``left`` columns left-aligned, the others right-aligned."""
    table = [list(map(str, header)), *[list(map(str, r)) for r in rows]]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    out = []
    for r in table:
        cells = [v.ljust(widths[i]) if i < left else v.rjust(widths[i]) for i, v in enumerate(r)]
        out.append("  ".join(cells).rstrip())
    return out


_align = align  # the earlier private name


def evaluation_table(ev, exact=None, accuracy_exact=None, class_exact=None, fold_interval=None) -> str:
    """Readable terminal table of an :class:`~bacc.evaluation.Evaluation`.

    With ``exact`` (and ``accuracy_exact``, ``class_exact``) the exact frequentist intervals are
    shown beside the credible intervals; with ``fold_interval`` (an approximate interval from
    :func:`bacc.approx.fold_sem_interval`) the conventional mean of fold accuracies +- 2 SEM.
    """
    cm = ev.confusion
    header, rows, ch, crows = evaluation_rows(ev, exact, accuracy_exact, class_exact)
    pct = _pct(ev.confidence)
    lines = [
        f"{cm.n_classes} classes, {cm.total} examples; posterior under a Beta prior "
        f"({pct} central credible intervals)",
        *([f"exact: {pct} confidence intervals (balanced accuracy: {exact.method} bound; "
           "accuracy and classes: Clopper-Pearson)"] if exact is not None else []),
        "",
        *align(header, rows),
    ]
    if fold_interval is not None:
        fi = fold_interval
        warn = "  <- leaves [0, 1]" if fi.exceeds_unit_interval else ""
        lines.append(
            f"approximate: mean of {len(fi.fold_values)} fold accuracies +- {fi.multiplier:g} SEM = "
            f"{_f(fi.estimate)} {_iv(fi.lower, fi.upper)}{warn}"
        )
    lines += [
        "",
        f"P(balanced accuracy > chance {ev.chance:.4g}) {p_phrase(ev.p_above_chance)}",
        "",
        "per class (accuracy = recall):",
        *("  " + line for line in align(ch, crows)),
    ]
    return "\n".join(lines)


def p_phrase(x) -> str:
    """``"= 0.9955"``, ``"> 0.9999"`` or ``"< 0.0001"``: what follows ``P(...)``."""
    t = _p(x)
    return t if t[0] in "<>-" else f"= {t}"


def summary_header(confidence: float, *, compact: bool = False) -> list[str]:
    """Header of the one-row-per-classifier summary table (``compact``: for a terminal)."""
    pct = _pct(confidence)
    if compact:
        return ["name", "n", "accuracy", "bal. acc.", "mean", f"{pct} credible", f"{pct} exact",
                "P(>chance)"]
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
        _f(ev.sample_accuracy),
        _f(ev.sample_balanced_accuracy),
        _f(s.mean),
        _iv(s.lower, s.upper),
        _iv(exact.lower, exact.upper) if exact is not None else "-",
        _p(ev.p_above_chance),
    ]


def summary_table(named: Sequence[tuple[str, object, object]]) -> str:
    """Terminal table with one row per ``(name, Evaluation, ExactInterval or None)``."""
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
            str(g), str(int(n[i])), _f(float(batch.sample_accuracy[i])),
            _f(float(batch.sample_balanced_accuracy[i])), _f(float(batch.mean[i])),
            _iv(float(batch.lower[i]), float(batch.upper[i])),
            _iv(float(batch.exact_lower[i]), float(batch.exact_upper[i])),
            _p(float(batch.p_above_chance[i])),
        ]
        for i, g in enumerate(batch.groups)
    ]
    return "\n".join(align(header, rows))


def _html_table(header, rows, *, numeric_from: int = 1) -> str:
    th = "".join(f'<th scope="col">{html.escape(str(h))}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            (f'<th scope="row">{html.escape(str(v))}</th>' if i == 0 else
             f'<td class="{"num" if i >= numeric_from else ""}">{html.escape(str(v))}</td>')
            for i, v in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


html_table = _html_table


def evaluation_html(ev, exact=None, accuracy_exact=None, class_exact=None) -> str:
    """HTML fragment for notebooks (every string escaped)."""
    header, rows, ch, crows = evaluation_rows(ev, exact, accuracy_exact, class_exact)
    cm = ev.confusion
    return (
        f"<div><p>{cm.n_classes} classes, {cm.total} examples</p>"
        + _html_table(header, rows)
        + f"<p>P(balanced accuracy &gt; chance {ev.chance:.4g}) "
        f"{html.escape(p_phrase(ev.p_above_chance))}</p>"
        + _html_table(ch, crows)
        + "</div>"
    )
