"""The section "Scores and thresholds" of the HTML report (presentation only: no computation).

Rendered by :func:`bacc.display.report.render_report` for a
:class:`bacc.display.report.Section` with ``scores=`` (a sequence of :class:`ScoresEntry`, one
per score: one classifier, or one class against the rest): the balanced accuracy at every
threshold and the ROC curve as figures (:mod:`bacc.display.scores_plot`), the AUC by every
method of :data:`bacc.roc.AUC_METHODS` with its kind, the best threshold with its in-sample and
honest balanced accuracies and the optimism, and a guaranteed threshold when one was asked for;
the tables are those of :mod:`bacc.display.scores_text` (a card per row on a phone).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import numbers as fmt
from . import scores_text as tx
from .html import escape as esc
from .html import table as html_table

__all__ = ["EXPLAIN", "ScoresEntry", "scores_html"]

#: The term of "How to read this report" (title, definition as HTML).
EXPLAIN = (
    "Scores and thresholds",
    "A classifier's scores, before a threshold turns them into decisions (a score at or above "
    "the threshold predicts the positive class). <i>AUC</i>: the share of positive-negative "
    "pairs the scores rank right, with an interval of each kind: <i>approximate</i> (a normal "
    "approximation whose coverage is not guaranteed), <i>posterior</i> (a credible interval) or "
    "<i>guaranteed</i> (holds for every distribution of scores). <i>Best threshold</i>: the one "
    "with the highest balanced accuracy on these examples, which flatters it; <i>honest</i>: "
    "every example decided by a threshold chosen without it (cross-fitting); <i>optimism</i>: "
    "the difference. <i>Simultaneous band</i>: holds at every threshold at once, unlike the "
    "<i>exact pointwise</i> bounds, valid at one threshold fixed in advance. <i>Guaranteed "
    "threshold</i>: keeps its promise (recall, false-positive rate or precision) with the "
    "stated probability for every distribution of scores.",
)


@dataclass(frozen=True)
class ScoresEntry:
    """What the section shows of one score, computed by the caller.

    Attributes
    ----------
    name : str
    curve : ScoreCurve
        Of :func:`bacc.scores`.
    threshold_curve : ThresholdCurve
        ``curve.curve(...)``.
    roc : RocCurve
        ``curve.roc(...)``.
    aucs : sequence of AucInterval
        ``curve.auc(method)`` for the methods shown (every one of :data:`bacc.roc.AUC_METHODS`).
    chosen : ChosenThreshold
        ``curve.best_threshold(...)``.
    guaranteed : GuaranteedThreshold, optional
        ``curve.threshold_for(...)``.
    source : str
        Where the scores came from.
    """

    name: str
    curve: Any
    threshold_curve: Any
    roc: Any
    aucs: Sequence[Any]
    chosen: Any
    guaranteed: Any = None
    source: str = ""


def _scroll(header, rows, headline=(), numeric_from: int = 1) -> str:
    return ('<div class="scroll">' + html_table(header, rows, cls="cards", headline=headline,
                                                 numeric_from=numeric_from) + "</div>")


def _verdict(e: ScoresEntry) -> str:
    """The best threshold in one sentence: in sample, honest, optimism."""
    ct = e.chosen
    return (f"Best threshold {tx.threshold(ct.threshold)}: balanced accuracy "
            f"{fmt.number(ct.in_sample_balanced_accuracy)} on these examples, "
            f"{fmt.number(ct.honest_balanced_accuracy)} honestly ({ct.honest_method}); choosing "
            f"the threshold on the test set adds {ct.optimism:+.4f} (the optimism).")


def _band(e: ScoresEntry):
    """The guaranteed AUC interval among those shown, for the ROC figure."""
    return next((iv for iv in e.aucs if iv.kind == "guaranteed"), None)


def _entry_html(e: ScoresEntry, figs: Callable[..., str], heading: bool) -> str:
    from .plot import REPORT_WIDTH
    from .scores_plot import plot_roc, plot_threshold_curve

    out = []
    if heading:
        out.append(f"<h3>{esc(e.name)}</h3>")
    out.append("<p>" + "<br>".join(esc(p) for p in tx.paragraphs(tx.score_curve_title(e.curve)))
               + "</p>")
    if e.source:
        out.append(f'<p class="muted">{esc(e.source)}</p>')
    out.append(f'<p class="verdict">{esc(_verdict(e))}</p>')
    band = _band(e)
    out.append('<div class="figs">' + figs(
        lambda: plot_threshold_curve(e.threshold_curve, width=REPORT_WIDTH),
        "Balanced accuracy against the threshold: posterior mean (green line) with its credible "
        "band, exact pointwise bounds (orange dashes), the simultaneous band (grey), the sample "
        "values (thin line); the diamond marks the best threshold.",
        f"balanced accuracy at every threshold of {e.name}",
    ) + figs(
        lambda: plot_roc(e.roc, auc=band, width=REPORT_WIDTH),
        "ROC curve of these examples with its simultaneous band; dashed diagonal: chance.",
        f"ROC curve of {e.name}",
    ) + "</div>")
    if e.aucs:
        out.append("<h4>AUC</h4>" + _scroll(*tx.auc_rows(e.aucs), headline=(2, 3),
                                                numeric_from=2))
        out.append(f'<p class="muted">{esc(tx.auc_key(e.aucs))}</p>')
    out.append("<h4>Best threshold</h4>" + _scroll(*tx.chosen_threshold_rows(e.chosen),
                                                   headline=(1,)))
    out.append(f'<p class="muted">honest: each example decided by a threshold chosen without it, '
               f"{esc(tx.honest_words(e.chosen))}; optimism: in sample minus honest.</p>")
    if e.guaranteed is not None:
        g = e.guaranteed
        out.append(f"<h4>Guaranteed threshold</h4><p><b>{esc(g.statement)}</b></p>"
                   + _scroll(*tx.guaranteed_threshold_rows(g), headline=(2,),
                           numeric_from=2))
    header, rows = tx.threshold_curve_rows(e.threshold_curve)
    out.append("<details><summary>The balanced accuracy at a dozen thresholds around the best"
               "</summary>" + _scroll(header, rows, headline=(4, 5))
               + f'<p class="muted">{esc(tx.threshold_curve_key(e.threshold_curve))}</p>'
               "</details>")
    out.append("<details><summary>The ROC curve at some false-positive rates</summary>"
               + _scroll(*tx.roc_rows(e.roc)) + "</details>")
    return "\n".join(out)


def scores_html(entries: Sequence[ScoresEntry] | ScoresEntry, figs: Callable[..., str]) -> str:
    """HTML of the section "Scores and thresholds".

    Parameters
    ----------
    entries : ScoresEntry or sequence of ScoresEntry
        One per score (several: one-vs-rest, each class against the rest, under its own
        heading).
    figs : callable
        ``figs(make, caption, alt)`` renders a figure to ``<figure>`` HTML (the report's).

    Returns
    -------
    str
    """
    if isinstance(entries, ScoresEntry):
        entries = [entries]
    entries = list(entries)
    return "\n".join(_entry_html(e, figs, heading=len(entries) > 1) for e in entries)
