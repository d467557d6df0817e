"""HTML fragments of scores and thresholds for notebooks (``_repr_html_``): the rows of
:mod:`bacc.display.scores_text` as tables (:func:`bacc.display.html.table`), every string
escaped.
"""

from __future__ import annotations

from . import scores_text as tx
from .html import escape, table

__all__ = [
    "auc_comparison_html",
    "auc_interval_html",
    "chosen_threshold_html",
    "guaranteed_threshold_html",
    "roc_html",
    "score_curve_html",
    "threshold_curve_html",
]


def _paragraphs(lines) -> str:
    return "".join(f"<p>{escape(p)}</p>" for p in tx.paragraphs(lines))


def score_curve_html(curve) -> str:
    """HTML of a :class:`bacc.ScoreCurve`: its classes, the sample AUC and the sample values at
    a dozen thresholds around the best."""
    header, rows, _ = tx.score_curve_rows(curve)
    return "<div>" + _paragraphs(tx.score_curve_title(curve)) + table(header, rows) + "</div>"


def threshold_curve_html(tc) -> str:
    """HTML of a :class:`bacc.ThresholdCurve`: the best threshold and a dozen thresholds around
    it with the posterior and the bands."""
    header, rows = tx.threshold_curve_rows(tc)
    return ("<div>" + _paragraphs(tx.threshold_curve_title(tc)) + table(header, rows)
            + f"<p>{escape(tx.threshold_curve_key(tc))}</p></div>")


def chosen_threshold_html(ct) -> str:
    """HTML of a :class:`bacc.ChosenThreshold`: in-sample and honest balanced accuracies and
    the optimism."""
    header, rows = tx.chosen_threshold_rows(ct)
    return "<div>" + _paragraphs(tx.chosen_threshold_title(ct)) + table(header, rows) + "</div>"


def guaranteed_threshold_html(g) -> str:
    """HTML of a :class:`bacc.GuaranteedThreshold`: the guarantee and the rates at the
    threshold."""
    header, rows = tx.guaranteed_threshold_rows(g)
    return (f"<div><p><b>{escape(g.statement)}</b></p>" + table(header, rows, numeric_from=2)
            + "</div>")


def roc_html(roc) -> str:
    """HTML of a :class:`bacc.RocCurve`: the AUC and the curve with its band at some
    false-positive rates."""
    header, rows = tx.roc_rows(roc)
    return "<div>" + _paragraphs(tx.roc_title(roc)) + table(header, rows) + "</div>"


def auc_interval_html(iv) -> str:
    """HTML of a :class:`bacc.AucInterval`: its text, the kind spelled out."""
    return "<div>" + "".join(f"<p>{escape(p)}</p>" for p in tx.auc_interval_parts(iv)) + "</div>"


def auc_comparison_html(cmp) -> str:
    """HTML of a :class:`bacc.AucComparison`."""
    return ('<div><pre style="white-space: pre-wrap">' + escape(tx.auc_comparison_text(cmp))
            + "</pre></div>")
