"""HTML fragments of results for notebooks (``_repr_html_``) and the report: one table layout,
every string escaped."""

from __future__ import annotations

import html
from collections.abc import Sequence

from . import numbers as fmt
from . import text

__all__ = ["comparison_html", "escape", "evaluation_html", "ranking_html", "table"]


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
        + f"<p>P(balanced accuracy &gt; chance {ev.chance:.4g}) "
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
