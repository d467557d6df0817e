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
    "class_interval_html",
    "comparison_html",
    "coverage_html",
    "distribution_html",
    "escape",
    "evaluation_html",
    "interval_html",
    "mcnemar_html",
    "metric_posterior_html",
    "population_html",
    "ranking_html",
    "summary_html",
    "table",
    "text_html",
]


def escape(value: object) -> str:
    """Any value as HTML text, safe in text and attribute context; control and format
    characters other than tabs and new lines are written as escapes (``\\x1b``), as in the
    terminal tables (:func:`bacc.display.text.visible`)."""
    return html.escape(text.visible(str(value), keep="\t\n"), quote=True)


def table(
    header: Sequence,
    rows: Sequence[Sequence],
    *,
    numeric_from: int = 1,
    cls: str = "",
    headline: Sequence[int] = (),
    sort_values: Sequence[Sequence] | None = None,
    cell_class: Sequence[Sequence[str]] | None = None,
) -> str:
    """An HTML table: a header row, then rows whose first cell heads the row; cells from
    column ``numeric_from`` on are numbers (class ``num``: right-aligned by the report's CSS).

    Every cell carries its column title in ``data-label``, so that a narrow screen can show
    each row as a card of labelled values (the report's CSS for ``table.cards``).

    Parameters
    ----------
    header, rows : sequences
        Column titles and rows of cells (shown with ``str``, escaped).
    numeric_from : int
        First numeric column.
    cls : str
        Class of the table (``"cards"``, ``"sortable"``, ...).
    headline : sequence of int
        Columns holding the headline numbers (class ``hl``).
    sort_values : sequence of sequences, optional
        Per row and column a number to sort by (``data-v``), or None.
    cell_class : sequence of sequences of str, optional
        Extra class of each cell.

    Examples
    --------
    >>> table(["", "p"], [["A > B", "0.97"]])
    '<table><thead><tr><th scope="col"></th><th scope="col">p</th></tr></thead><tbody><tr><th scope="row">A &gt; B</th><td class="num" data-label="p">0.97</td></tr></tbody></table>'
    """
    th = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    hl = set(headline)
    lines = []
    for k, r in enumerate(rows):
        cells = []
        for i, v in enumerate(r):
            if i == 0:
                cells.append(f'<th scope="row">{escape(v)}</th>')
                continue
            classes = " ".join(c for c in (
                "num" if i >= numeric_from else "",
                "hl" if i in hl else "",
                cell_class[k][i] if cell_class is not None else "",
            ) if c)
            sv = sort_values[k][i] if sort_values is not None else None
            data_v = "" if sv is None else f' data-v="{float(sv):.12g}"'
            label = header[i] if i < len(header) else ""
            cells.append(f'<td class="{classes}" data-label="{escape(label)}"{data_v}>'
                         f"{escape(v)}</td>")
        lines.append("<tr>" + "".join(cells) + "</tr>")
    attr = f' class="{escape(cls)}"' if cls else ""
    return f"<table{attr}><thead><tr>{th}</tr></thead><tbody>{''.join(lines)}</tbody></table>"


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


def text_html(headline: str, body: str) -> str:
    """HTML of a result whose display is its text: the one-line summary, then the text as it
    prints (``<pre>``, escaped).

    Parameters
    ----------
    headline : str
        The result's one-line ``repr``.
    body : str
        Its ``str``.

    Returns
    -------
    str
        A ``<div>``.
    """
    return (f"<div><p>{escape(headline.strip('<>'))}</p>"
            f'<pre style="white-space: pre-wrap">{escape(body)}</pre></div>')


def distribution_html(d, confidence: float = 0.95) -> str:
    """HTML of a distribution object (:class:`bacc.BetaPosterior`, :class:`bacc.BetaSum`,
    :class:`bacc.PairedDifference`, ...): its one-line description and a table of its mean,
    median, mode, standard deviation and central credible interval.

    Parameters
    ----------
    d : distribution object
        Anything with the surface of :class:`bacc.distributions.ContinuousDistribution`.
    confidence : float
        Mass of the central interval shown.

    Returns
    -------
    str
        A ``<div>``.
    """
    s = d.summary(confidence)
    pct = fmt.percent(confidence)
    header = ["", "mean", "median", "mode", "sd", f"{pct} central interval"]
    row = ["value", fmt.number(s["mean"]), fmt.number(s["median"]), fmt.number(s["mode"]),
           fmt.number(d.std()), fmt.interval(s["lower"], s["upper"])]
    return f"<div><p>{escape(repr(d))}</p>" + table(header, [row]) + "</div>"


def class_interval_html(ci) -> str:
    """HTML of a :class:`bacc.ClassInterval`: one row, the class's accuracy and bounds.

    Parameters
    ----------
    ci : ClassInterval

    Returns
    -------
    str
        A ``<div>``.
    """
    header = ["class", "correct / examples", "accuracy", "lower", "upper", "level", "method"]
    row = [str(ci.label), f"{ci.correct} / {ci.support}", fmt.number(ci.estimate),
           fmt.number(ci.lower), fmt.number(ci.upper), fmt.percent(ci.confidence), ci.method]
    return "<div>" + table(header, [row]) + "</div>"


def population_html(p) -> str:
    """HTML of a :class:`bacc.Population`: the population, new-subject and pooled rows, the
    probability above chance and the verdict.

    Parameters
    ----------
    p : Population

    Returns
    -------
    str
        A ``<div>``.
    """
    header, rows = text.population_text_rows(p)
    what = "accuracy" if len(p.labels) == 1 else "balanced accuracy"
    return (
        f"<div><p>mixed-effects ({escape(p.model)}) inference: {len(p.subject_names)} subjects, "
        f"{len(p.labels)} {'class' if len(p.labels) == 1 else 'classes'}, "
        f"{int(p.support.sum())} examples</p>"
        + table(header, rows)
        + f"<p>P(population {what} &gt; chance {fmt.significant(p.chance)}) "
        f"{escape(fmt.p_phrase(p.p_above_chance))}</p><p>{escape(p.verdict)}</p></div>"
    )


def metric_posterior_html(m) -> str:
    """HTML of a :class:`bacc.MetricPosterior`: the sample value, the posterior mean, median
    and credible interval, the design and the method.

    Parameters
    ----------
    m : MetricPosterior

    Returns
    -------
    str
        A ``<div>``.
    """
    name = m.metric + ("" if m.label is None else f" of class {m.label}")
    header = ["", "sample", "posterior mean", "median", f"{fmt.percent(m.confidence)} interval"]
    row = [name, fmt.number(m.sample), fmt.number(m.mean), fmt.number(m.median),
           fmt.interval(m.lower, m.upper)]
    return (f"<div>{table(header, [row])}<p>{escape(m.design)} design; {escape(m.method)}</p>"
            "</div>")


def summary_html(obj) -> str:
    """HTML of a part of a result (a class's row, a posterior summary, one method's coverage):
    its one-line description.

    Parameters
    ----------
    obj : object
        Anything with a one-line ``repr`` (``<Kind: ...>``).

    Returns
    -------
    str
        A ``<div>`` with one paragraph.
    """
    return f"<div><p>{escape(repr(obj).strip('<>'))}</p></div>"
