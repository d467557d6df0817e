"""HTML fragments of results for notebooks (``_repr_html_``) and the report: one table layout,
every string escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence

from . import numbers as fmt
from . import text

__all__ = [
    "batch_html",
    "binomial_test_html",
    "comparison_html",
    "coverage_html",
    "escape",
    "evaluation_html",
    "interval_html",
    "mcnemar_html",
    "ranking_html",
    "table",
]


def escape(value: object) -> str:
    """Any value as HTML text, safe in text and attribute context."""
    return html.escape(str(value), quote=True)


def table(header: Sequence, rows: Sequence[Sequence], *, numeric_from: int = 1) -> str:
    """An HTML table: a header row, then rows whose first cell heads the row; cells from
    column ``numeric_from`` on are numbers (class ``num``: right-aligned by the report's CSS).

    Examples
    --------
    >>> table(["", "p"], [["A > B", "0.97"]])
    '<table><thead><tr><th scope="col"></th><th scope="col">p</th></tr></thead><tbody><tr><th scope="row">A &gt; B</th><td class="num">0.97</td></tr></tbody></table>'
    """
    th = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            (f'<th scope="row">{escape(v)}</th>' if i == 0 else
             f'<td class="{"num" if i >= numeric_from else ""}">{escape(v)}</td>')
            for i, v in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def evaluation_html(ev, exact=None, accuracy_exact=None, class_exact=None) -> str:
    """HTML of an :class:`bacc.Evaluation` (optionally with exact intervals)."""
    header, rows, ch, crows = text.evaluation_rows(ev, exact, accuracy_exact, class_exact)
    cm = ev.confusion
    return (
        f"<div><p>{cm.n_classes} classes, {cm.total} examples</p>"
        + table(header, rows)
        + f"<p>P(balanced accuracy &gt; chance {fmt.significant(ev.chance)}) "
        f"{escape(fmt.p_phrase(ev.p_above_chance))}</p>"
        + table(ch, crows)
        + "</div>"
    )


def comparison_html(c) -> str:
    """HTML of a :class:`bacc.Comparison`."""
    header, rows, probs = text.comparison_rows(c)
    out = f"<div><p>{escape(text.comparison_title(c))}</p>" + table(header, rows)
    out += table(["", "probability"], probs)
    if c.mcnemar is not None:
        out += f"<p>{escape(text.mcnemar_line(c))}</p>"
    return out + "</div>"


def ranking_html(r) -> str:
    """HTML of a :class:`bacc.Ranking`."""
    header, rows, mh, mr = text.ranking_rows(r)
    return (
        f"<div><p>{escape(text.ranking_title(r))}</p>"
        + table(header, rows)
        + table(mh, mr)
        + "</div>"
    )


def interval_html(iv) -> str:
    """HTML of a :class:`bacc.Interval`, exact or approximate.

    Parameters
    ----------
    iv : Interval
        A result of :func:`bacc.exact_interval`, :func:`bacc.approx_interval` or
        :func:`bacc.fold_sem_interval`.

    Returns
    -------
    str
        A ``<div>``: the title, a table of the estimate and the bounds (as many decimals as
        the text form), remarks, and the per-class intervals.
    """
    d = text.interval_digits(iv)
    what = "balanced accuracy" if iv.metric == "balanced_accuracy" else "accuracy"
    out = f"<div><p>{escape(text.interval_title(iv))}</p>" + table(
        ["", "estimate", "lower", "upper"],
        [[what, *(fmt.number(x, d, missing="nan") for x in (iv.estimate, iv.lower, iv.upper))]],
    )
    out += "".join(f"<p>{escape(note)}</p>" for note in text.interval_notes(iv))
    if iv.per_class:
        header, rows = text.interval_class_rows(iv, d)
        out += f"<p>{escape(text.interval_class_caption(iv))}</p>" + table(header, rows)
    return out + "</div>"


def binomial_test_html(t) -> str:
    """HTML of a :class:`bacc.BinomialTest`.

    Parameters
    ----------
    t : BinomialTest
        A result of :func:`bacc.binomial_test`.

    Returns
    -------
    str
        A ``<div>`` with the title and a table of the test's numbers and verdicts.
    """
    header, rows = text.binomial_test_rows(t)
    return f"<div><p>{escape(text.binomial_test_title(t))}</p>" + table(header, rows) + "</div>"


def mcnemar_html(m) -> str:
    """HTML of a :class:`bacc.McNemarTest`.

    Parameters
    ----------
    m : McNemarTest
        A result of :func:`bacc.mcnemar_exact`.

    Returns
    -------
    str
        A ``<div>`` with a one-row table: the discordant counts and the two-sided p-value.
    """
    header, rows = text.mcnemar_rows(m)
    return "<div><p>Exact McNemar test</p>" + table(header, rows) + "</div>"


def coverage_html(r) -> str:
    """HTML of a :class:`bacc.CoverageResult`.

    Parameters
    ----------
    r : CoverageResult
        A result of :func:`bacc.coverage`.

    Returns
    -------
    str
        A ``<div>``: what was simulated, then one table row per method.
    """
    header, rows = text.coverage_rows(r)
    title = "".join(f"<p>{escape(line)}</p>" for line in text.coverage_title(r))
    return f"<div>{title}" + table(header, rows, numeric_from=2) + "</div>"


def batch_html(b, *, limit: int = 40) -> str:
    """HTML of a :class:`bacc.BatchEvaluation`.

    Parameters
    ----------
    b : BatchEvaluation
        A result of :func:`bacc.evaluate_many`.
    limit : int
        Most groups shown; beyond it the first and last ``limit // 2``.

    Returns
    -------
    str
        A ``<div>`` with the number of groups and classes and one table row per group.
    """
    header, rows = text.batch_rows(b, limit=limit)
    return f"<div><p>{escape(text.batch_title(b))}</p>" + table(header, rows) + "</div>"
