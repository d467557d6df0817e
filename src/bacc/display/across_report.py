"""The section "Across data sets" of the HTML report (presentation only: no computation).

Rendered by :func:`bacc.display.report.render_report` for a
:class:`bacc.display.report.Section` with ``across=`` (an :class:`bacc.AcrossComparison` or
:class:`bacc.AcrossRanking`): the verdict, the tables of :mod:`bacc.display.across_text` (a
card per row on a phone) and the figure of :mod:`bacc.display.across_plot`.
"""

from __future__ import annotations

from collections.abc import Callable

from . import across_text as tx
from .html import escape as esc
from .html import table as html_table

__all__ = ["EXPLAIN", "across_html"]

#: The term of "How to read this report" (title, definition as HTML).
EXPLAIN = (
    "Across data sets",
    "The classifiers compared for the population of data sets, from each data set's confusion "
    "matrices (a random-effects model: a data set of few examples counts for less, and the "
    "difference may vary between data sets). <i>population</i>: the difference in the "
    "population; <i>new data set</i>: on one more data set like these; <i>common effect</i>: "
    "every data set assumed to have the same difference, which is overconfident when they "
    "differ. <i>own</i>: a data set alone; <i>shrunken</i>: under the model. <i>rope</i>: "
    "differences this small count as practically equal. The classical tests (Demšar 2006) are "
    "shown beside for reference.",
)


def _scroll(header, rows, headline) -> str:
    return ('<div class="scroll">' + html_table(header, rows, cls="cards", headline=headline)
            + "</div>")


def across_html(result, figs: Callable[..., str]) -> str:
    """HTML of a comparison or ranking across data sets.

    Parameters
    ----------
    result : AcrossComparison or AcrossRanking
    figs : callable
        ``figs(make, caption, alt)`` renders a figure to ``<figure>`` HTML (the report's).

    Returns
    -------
    str
    """
    from .across_plot import plot_across_comparison, plot_across_ranking
    from .plot import REPORT_WIDTH

    if hasattr(result, "data_set_differences"):
        head = tx.comparison_head(result)
        out = [f"<p><b>{esc(head[0])}</b><br>{esc(head[1])}<br>{esc(head[2])}</p>",
               f'<p class="verdict">{esc(result.verdict)}</p>',
               _scroll(*tx.comparison_rows(result), headline=(1, 2)),
               f'<p class="muted">spread of the difference between data sets: '
               f"{result.spread:.4f} [{result.spread_lower:.4f}, {result.spread_upper:.4f}]</p>"]
        out.append('<div class="figs">' + figs(
            lambda: plot_across_comparison(result, width=REPORT_WIDTH),
            "Top: posterior of the population difference A - B (shaded: credible interval; grey "
            "band: practically equal), dashed: on a new data set. Bottom: each data set alone "
            "(grey) and under the model (green); marker area grows with the examples.",
            f"difference of balanced accuracies across data sets, {result.names[0]} minus "
            f"{result.names[1]}",
        ) + "</div>")
        out.append(f"<details><summary>Per data set ({len(result.data_sets)}): own and shrunken "
                   "differences</summary>" + _scroll(*tx.data_set_rows(result), headline=(4, 5))
                   + "</details>")
        out.append(f"<p>{esc(tx.comparison_classical(result))}</p>")
    else:
        out = [f"<p><b>{esc(tx.ranking_head(result))}</b></p>",
               f'<p class="verdict">{esc(result.verdict)}</p>',
               _scroll(*tx.ranking_rows(result), headline=(1, 2))]
        out.append('<div class="figs">' + figs(
            lambda: plot_across_ranking(result, width=REPORT_WIDTH),
            "Classifiers by expected rank (diamond); dot area: the probability of each rank; "
            "cross: the classical average rank, with Nemenyi's critical difference (CD) above; "
            "bars on the left join classifiers that cannot be told apart.",
            "ranking of the classifiers across data sets",
        ) + "</div>")
        out.append("<p>P(row better than column by more than the rope); the columns are "
                   "numbered as the rows.</p>" + '<div class="scroll">'
                   + html_table(*tx.ranking_grid_rows(result), cls="grid") + "</div>")
        if result.groups:
            out.append("<p>Cannot be told apart: " + esc("; ".join(
                "{" + ", ".join(g) + "}" for g in result.groups)) + "</p>")
        out.append(f"<p>{esc(tx.ranking_classical(result))}</p>")
    for note in result.notes[:20]:
        out.append(f'<p class="muted">note: {esc(note)}</p>')
    return "\n".join(out)
