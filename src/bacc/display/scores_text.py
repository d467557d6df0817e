"""Plain-text tables of scores and thresholds (:mod:`bacc.score_curve`,
:mod:`bacc.threshold_curve`, :mod:`bacc.guaranteed_threshold`, :mod:`bacc.roc`).

Presentation only: every number is an attribute of a result. A curve is shown as a short table of
about a dozen thresholds around and including the best one (dense near it, sparse far from it:
:func:`pick_rows`); the full curve is in the result (``to_pandas()``, ``to_dict()``). Every AUC
interval says its kind (approximate, posterior or guaranteed) in words. The rows are shared with
the HTML forms (:mod:`bacc.display.scores_html`) and the report (:mod:`bacc.display.scores_report`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import numbers as fmt
from .terminal import WIDTH, visible
from .text import align, wrap

__all__ = [
    "KIND_WORDS",
    "auc_comparison_text",
    "auc_interval_parts",
    "auc_interval_text",
    "auc_key",
    "auc_rows",
    "chosen_threshold_rows",
    "chosen_threshold_text",
    "chosen_threshold_title",
    "guaranteed_threshold_rows",
    "guaranteed_threshold_text",
    "honest_words",
    "paragraphs",
    "pick_rows",
    "roc_rows",
    "roc_text",
    "roc_title",
    "score_curve_rows",
    "score_curve_text",
    "score_curve_title",
    "scores_summary_text",
    "threshold",
    "threshold_curve_key",
    "threshold_curve_rows",
    "threshold_curve_text",
    "threshold_curve_title",
]

#: Rows of a curve's table (about a dozen: the best and five on each side).
ROWS = 12

#: What each kind of AUC interval is, in words.
KIND_WORDS = {
    "approximate": "approximate: a normal approximation, coverage not guaranteed (it falls short "
                   "on small and imbalanced test sets; measure it with bacc.auc_coverage)",
    "posterior": "posterior: a central credible interval of the AUC",
    "guaranteed": "guaranteed: a confidence interval that holds for every distribution of "
                  "scores (conservative)",
}

#: The false-positive rates at which the ROC table reads the curve.
ROC_FPR = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)


# ---------------------------------------------------------------------------------- helpers
def threshold(t) -> str:
    """A threshold as text: six significant digits, ``inf`` (nothing predicted positive) and
    ``-inf`` (everything predicted positive).

    Examples
    --------
    >>> threshold(0.123456789), threshold(float("inf")), threshold(-float("inf"))
    ('0.123457', 'inf', '-inf')
    """
    v = float(t)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return fmt.significant(v, 6)


def _label(x) -> str:
    """A class label as text (a one-vs-rest rest, a tuple of classes, as ``not C``)."""
    return visible(str(x), keep="")


def _others(curve) -> str:
    """The negative class as text: one class, or the rest of one-vs-rest (a tuple)."""
    neg = curve.negative
    if isinstance(neg, tuple):
        return "the rest: " + ", ".join(_label(c) for c in neg)
    return _label(neg)


def _signed(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):+.4f}"


def pick_rows(n: int, best: int, rows: int = ROWS) -> list[int]:
    """Indices of the rows shown of a curve of ``n`` thresholds: every one when there are at
    most ``rows``, otherwise the best and, on each side, steps of 35%, 17.5%, 8.75%, ... of the
    curve (dense near the best, reaching far from it), within the curve.

    Examples
    --------
    >>> pick_rows(5, 2)
    [0, 1, 2, 3, 4]
    >>> pick_rows(100, 50)
    [15, 32, 41, 46, 48, 50, 52, 54, 59, 68, 85]
    """
    if n <= rows:
        return list(range(n))
    steps = sorted({max(1, round(n * 0.35 / 2**j)) for j in range((rows - 1) // 2)})
    idx = {best} | {min(n - 1, max(0, best + s * d)) for s in steps for d in (-1, 1)}
    return sorted(idx)


def paragraphs(lines: Sequence[str]) -> list[str]:
    """Wrapped lines (``bacc.display.text.wrap``: continuations indented) joined back into
    one string per paragraph, for HTML.

    Examples
    --------
    >>> paragraphs(["a b", "  c", "d"])
    ['a b c', 'd']
    """
    out: list[str] = []
    for line in lines:
        if line.startswith(" ") and out:
            out[-1] += " " + line.strip()
        elif line.strip():
            out.append(line.strip())
    return out


def _pct(confidence: float) -> str:
    return fmt.percent(confidence, precise=True)


# ------------------------------------------------------------------------------- ScoreCurve
def score_curve_title(curve) -> list[str]:
    """The lines above a score curve's table: the classes, the decision rule and the AUC."""
    name = f" {_label(curve.name)!s}" if curve.name else ""
    binned = (" (binned by the data engine: the counts at these thresholds stay exact)"
              if curve.binned else "")
    return [
        *wrap(f"Scores{name}: {curve.n_positive} positive ({_label(curve.positive)}) and "
              f"{curve.n_negative} negative ({_others(curve)}) examples, "
              f"{len(curve.values)} distinct scores{binned}"),
        *wrap(f"decision rule: score >= threshold predicts {_label(curve.positive)}; sample AUC "
              f"{fmt.number(curve.sample_auc)} (the share of positive-negative pairs ranked "
              "right, ties count one half)"),
    ]


def score_curve_rows(curve, rows: int = ROWS) -> tuple[list[str], list[list[str]], int]:
    """Header and rows of the sample values at about a dozen thresholds around the one with the
    highest sample balanced accuracy, and the index of that threshold."""
    ba = np.asarray(curve.balanced_accuracy)
    best = int(np.argmax(ba))
    header = ["threshold", "predicted pos.", "sensitivity", "specificity", "balanced acc."]
    out = []
    for j in pick_rows(len(ba), best, rows):
        out.append([threshold(curve.thresholds[j]) + (" *" if j == best else ""),
                    str(int(curve.tp[j] + curve.fp[j])), fmt.number(curve.sensitivity[j]),
                    fmt.number(curve.specificity[j]), fmt.number(ba[j])])
    return header, out, best


def score_curve_text(curve) -> str:
    """Terminal text of a :class:`bacc.ScoreCurve`: its classes, the sample AUC and the sample
    sensitivity, specificity and balanced accuracy at a dozen thresholds around the best.

    Parameters
    ----------
    curve : ScoreCurve

    Returns
    -------
    str
    """
    header, rows, best = score_curve_rows(curve)
    n = len(curve.thresholds)
    lines = [*score_curve_title(curve), "", *align(header, rows)]
    lines += wrap(f"*: the highest sample balanced accuracy ({fmt.number(curve.balanced_accuracy[best])}"
                  f" at threshold {threshold(curve.thresholds[best])}), optimistic since chosen "
                  "on these examples; predicted pos.: examples at or above the threshold"
                  + (f"; {len(rows)} of {n} thresholds shown" if len(rows) < n else ""))
    lines += wrap("next: .curve() (bands), .best_threshold() (honest estimate), "
                  ".threshold_for(recall=...) (a guarantee), .roc(), .auc(method)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- ThresholdCurve
def threshold_curve_title(tc) -> list[str]:
    """The lines above a threshold curve's table: what is shown and the best threshold."""
    from ..posterior import prior_phrase

    pct = _pct(tc.confidence)
    b = tc.best
    return [
        *wrap(f"Balanced accuracy at every threshold ({tc.n_thresholds} thresholds; score >= "
              f"threshold predicts {_label(tc.positive)}): {tc.n_positive} positive, "
              f"{tc.n_negative} negative examples"),
        *wrap(f"posterior: {prior_phrase(tc.prior[0], tc.prior[1])}; {pct} bands"),
        *wrap(f"best threshold {threshold(tc.thresholds[b])} (largest posterior mean): balanced "
              f"accuracy {fmt.number(tc.mean[b])} {fmt.interval(tc.lower[b], tc.upper[b])} "
              f"({pct} credible); chosen on these examples, so optimistic: "
              ".best_threshold() says by how much"),
    ]


def threshold_curve_rows(tc, rows: int = ROWS) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a threshold curve at about a dozen thresholds around and including
    the best (marked ``*``): sample sensitivity, specificity and balanced accuracy, the
    posterior mean and credible band, the exact pointwise and the simultaneous bands."""
    pct = fmt.percent(tc.confidence)
    header = ["threshold", "sens.", "spec.", "sample", "mean", f"{pct} credible",
              f"{pct} exact", f"{pct} simultaneous"]
    out = []
    for j in pick_rows(len(tc.thresholds), tc.best, rows):
        out.append([
            threshold(tc.thresholds[j]) + (" *" if j == tc.best else ""),
            fmt.number(tc.sensitivity[j]), fmt.number(tc.specificity[j]),
            fmt.number(tc.balanced_accuracy[j]), fmt.number(tc.mean[j]),
            fmt.interval(tc.lower[j], tc.upper[j]),
            fmt.interval(tc.exact_lower[j], tc.exact_upper[j], 3),
            fmt.interval(tc.band_lower[j], tc.band_upper[j], 3),
        ])
    return header, out


def threshold_curve_key(tc) -> str:
    """What the columns of a threshold curve's table are (printed under it)."""
    return ("*: the best threshold; sens., spec., sample: sensitivity, specificity and balanced "
            "accuracy of these examples; mean, credible: the posterior of the balanced accuracy; "
            "exact: Clopper-Pearson union bound, valid at one threshold fixed in advance; "
            "simultaneous: holds at every threshold at once (Kolmogorov-Smirnov bands of both "
            "classes, Campbell 1994)")


def threshold_curve_text(tc) -> str:
    """Terminal text of a :class:`bacc.ThresholdCurve`: the best threshold, then a dozen
    thresholds around it with sample values, posterior and bands.

    Parameters
    ----------
    tc : ThresholdCurve

    Returns
    -------
    str
    """
    header, rows = threshold_curve_rows(tc)
    shown = len(tc.thresholds)
    lines = [*threshold_curve_title(tc), "", *align(header, rows), *wrap(threshold_curve_key(tc))]
    if len(rows) < tc.n_thresholds:
        lines += wrap(f"{len(rows)} of {tc.n_thresholds} thresholds shown"
                      + ("" if shown == tc.n_thresholds else f" ({shown} in the result)")
                      + "; .to_pandas() has every one in the result")
    return "\n".join(lines)


# --------------------------------------------------------------------------- ChosenThreshold
def honest_words(ct) -> str:
    """How the honest estimate of a chosen threshold was made, in words."""
    if ct.honest_method == "split":
        return (f"held out (threshold {threshold(ct.split_threshold)} chosen on the other part "
                "of a stratified split)")
    reps = "repetition" if ct.repeats == 1 else "repetitions, their mean +- sd"
    return f"cross-fitted ({ct.folds} folds, {ct.repeats} {reps})"


def _honest_label(ct) -> str:
    return "honest (held out)" if ct.honest_method == "split" else "honest (cross-fitted)"


def chosen_threshold_title(ct) -> list[str]:
    """The first lines of a chosen threshold: the threshold and what it maximises."""
    from ..threshold_curve import CRITERIA

    return wrap(f"Best threshold {threshold(ct.threshold)}: maximises "
                f"{CRITERIA.get(ct.criterion, ct.criterion)} on these examples")


def chosen_threshold_rows(ct) -> tuple[list[str], list[list[str]]]:
    """Header and rows: the in-sample and honest balanced accuracies, with their posteriors,
    and the optimism."""
    pct = fmt.percent(ct.in_sample.confidence)
    ins, hon = ct.in_sample.balanced_accuracy_summary, ct.honest.balanced_accuracy_summary
    sd = f" +- {fmt.number(ct.honest_sd)}" if ct.repeats > 1 else ""
    header = ["balanced accuracy", "sample", "posterior mean", f"{pct} credible"]
    rows = [
        ["in sample (optimistic)", fmt.number(ct.in_sample_balanced_accuracy),
         fmt.number(ins.mean), fmt.interval(ins.lower, ins.upper)],
        [_honest_label(ct), fmt.number(ct.honest_balanced_accuracy) + sd,
         fmt.number(hon.mean), fmt.interval(hon.lower, hon.upper)],
        ["optimism", _signed(ct.optimism), "", ""],
    ]
    return header, rows


def chosen_threshold_text(ct) -> str:
    """Terminal text of a :class:`bacc.ChosenThreshold`: the threshold, its in-sample and honest
    balanced accuracies and the optimism of choosing it on the test set.

    Parameters
    ----------
    ct : ChosenThreshold

    Returns
    -------
    str
    """
    header, rows = chosen_threshold_rows(ct)
    posterior = ("the first repetition's summed confusion matrix" if ct.honest_method == "crossfit"
                 else "the held-out part")
    lines = [*chosen_threshold_title(ct), "", *align(header, rows)]
    lines += wrap(f"honest: each example decided by a threshold chosen without it, "
                  f"{honest_words(ct)}; its posterior from {posterior}")
    lines += wrap(f"optimism: in sample minus honest, {_signed(ct.optimism)}: what choosing the "
                  "threshold on the test set adds to the reported balanced accuracy; report the "
                  "honest value, or choose the threshold on other data")
    return "\n".join(lines)


# ------------------------------------------------------------------------ GuaranteedThreshold
def _ordinal(k: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``, ...

    Examples
    --------
    >>> [_ordinal(k) for k in (1, 2, 3, 4, 11, 12, 21, 102)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st', '102nd']
    """
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _what(g) -> str:
    return {"recall": "recall", "fpr": "false-positive rate", "precision": "precision"}[g.target]


def guaranteed_threshold_rows(g) -> tuple[list[str], list[list[str]]]:
    """Header and rows: recall, false-positive rate, alarm rate and precision at the threshold,
    each with its interval and what kind of statement it is."""
    pct = fmt.percent(g.confidence)
    header = ["", "kind", "expected", f"{pct} interval", "this test set"]
    rec_kind = "guaranteed" if g.target == "recall" and g.achieved else "exact"
    fpr_kind = "guaranteed" if g.target == "fpr" and g.achieved else "exact"
    at = f"at prevalence {fmt.significant(g.prevalence, 4)}"
    prec = g.target == "precision" and g.achieved
    rows = [
        ["recall", rec_kind, fmt.number(g.recall), fmt.interval(g.recall_lower, g.recall_upper),
         fmt.number(g.sample_recall)],
        ["false-positive rate", fpr_kind, fmt.number(g.fpr),
         fmt.interval(g.fpr_lower, g.fpr_upper), fmt.number(g.sample_fpr)],
        [f"alarm rate {at}", "expected", fmt.number(g.alarm_rate), "", ""],
        [f"precision {at}", "guaranteed" if prec else "expected", fmt.number(g.precision),
         f">= {fmt.significant(g.goal, 4)}" if prec else "", ""],
    ]
    return header, rows


def _decides(g) -> str:
    """What the threshold does, in words."""
    if math.isinf(g.threshold) and g.threshold > 0:
        return "no example is predicted positive (threshold inf)"
    if math.isinf(g.threshold):
        return "every example is predicted positive (threshold -inf)"
    return f"score >= {threshold(g.threshold)} predicts {_label(g.positive)}"


def guaranteed_threshold_text(g) -> str:
    """Terminal text of a :class:`bacc.GuaranteedThreshold`: the guarantee in one sentence, the
    order statistic behind it, and the other rate, the expected alarm rate and the precision.

    Parameters
    ----------
    g : GuaranteedThreshold

    Returns
    -------
    str
    """
    pct = fmt.percent(g.confidence)
    lines = [*wrap(f"Guaranteed threshold: {g.statement}")]
    if g.achieved and g.target in ("recall", "fpr"):
        cls, n = (("positive", g.n_positive) if g.target == "recall"
                  else ("negative", g.n_negative))
        where = "is" if g.target == "recall" else "lies just above"
        lines += wrap(f"  distribution-free: the threshold {where} the {_ordinal(g.order)} "
                      f"smallest of the {n} {cls} scores, an order statistic whose {_what(g)} has "
                      "a known distribution whatever the scores' (Wilks 1941)")
    elif g.achieved:
        lines += wrap("  fixed-sequence test of the precision at every threshold from the highest "
                      "(Learn then Test, Angelopoulos et al. 2021), each by Clopper-Pearson "
                      "bounds of recall and false-positive rate")
    lines += wrap(f"  {_decides(g)}; {g.n_positive} positive, {g.n_negative} negative examples")
    header, rows = guaranteed_threshold_rows(g)
    lines += ["", *align(header, rows, left=2)]
    other = {"recall": "the false-positive rate is estimated from the negatives, which did not "
                       f"choose the threshold ({pct} exact interval)",
             "fpr": "the recall is estimated from the positives, which did not choose the "
                    f"threshold ({pct} exact interval)",
             "precision": "recall and false-positive rate: from the examples that chose the "
                          "threshold, for reference"}[g.target]
    lines += wrap(f"expected: over test sets like this one (a posterior mean for a rate not "
                  f"guaranteed); guaranteed: at least {pct} of test sets keep the promise; "
                  f"exact: Clopper-Pearson interval; {other}; alarm rate: the share of examples "
                  "predicted positive at the prevalence")
    if not g.achieved:
        lines += wrap(f"note: more examples are needed to keep this promise at {pct}; lower the "
                      "goal or the confidence, or label more examples")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ ROC
def roc_title(roc) -> list[str]:
    """The lines above the ROC table."""
    return wrap(f"ROC curve: sample AUC {fmt.number(roc.auc)}, {roc.n_positive} positive and "
                f"{roc.n_negative} negative examples; {_pct(roc.confidence)} simultaneous band "
                "(distribution-free: holds for the whole true curve at once, Campbell 1994)")


def roc_rows(roc) -> tuple[list[str], list[list[str]]]:
    """Header and rows: at some false-positive rates, the sample curve's best true-positive
    rate (and its threshold) and the band."""
    fpr, tpr = np.asarray(roc.fpr), np.asarray(roc.tpr)
    bf, blo, bhi = (np.asarray(a) for a in (roc.band_fpr, roc.band_lower, roc.band_upper))
    pct = fmt.percent(roc.confidence)
    header = ["false-positive rate", "true-positive rate", "threshold", f"{pct} band"]
    rows = []
    for f in ROC_FPR:
        j = int(np.searchsorted(fpr, f, side="right")) - 1  # the last point at or below f
        lo, hi = _band_at(bf, blo, bhi, f)
        rows.append([fmt.number(f, 2), fmt.number(tpr[j]), threshold(roc.thresholds[j]),
                     fmt.interval(lo, hi)])
    return header, rows


def _band_at(bf: np.ndarray, blo: np.ndarray, bhi: np.ndarray, f: float) -> tuple[float, float]:
    """The band's polylines read at the false-positive rate ``f``: where an envelope rises
    vertically at ``f`` (``f`` listed twice), the whole rise is inside the band."""
    at = bf == f
    if at.any():
        return float(blo[at].min()), float(bhi[at].max())
    return float(np.interp(f, bf, blo)), float(np.interp(f, bf, bhi))


def roc_text(roc) -> str:
    """Terminal text of a :class:`bacc.RocCurve`: the AUC, and the curve with its simultaneous
    band at some false-positive rates.

    Parameters
    ----------
    roc : RocCurve

    Returns
    -------
    str
    """
    header, rows = roc_rows(roc)
    lines = [*roc_title(roc), "", *align(header, rows)]
    lines += wrap("true-positive rate: the highest of these examples at a false-positive rate at "
                  "most the one given, reached at the threshold beside it")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------- AUC
def auc_rows(aucs: Sequence) -> tuple[list[str], list[list[str]]]:
    """Header and rows of AUC intervals, one per method, each with its kind."""
    pct = fmt.percent(aucs[0].confidence) if aucs else "95%"
    header = ["method", "kind", "AUC", f"{pct} interval"]
    rows = [[iv.method, iv.kind, fmt.number(iv.auc), fmt.interval(iv.lower, iv.upper)]
            for iv in aucs]
    return header, rows


def auc_key(aucs: Sequence) -> str:
    """What the kinds of the AUC intervals shown are (printed under their table)."""
    kinds = list(dict.fromkeys(iv.kind for iv in aucs))
    return "; ".join(KIND_WORDS.get(k, k) for k in kinds)


def auc_interval_parts(iv) -> list[str]:
    """The sentences of an AUC interval: the interval and its kind, what the kind means, the
    method and its reference, and the sample."""
    from ..roc import AUC_METHODS

    m = AUC_METHODS.get(iv.method)
    pct = _pct(iv.confidence)
    head = {"approximate": f"APPROXIMATE {pct} confidence interval",
            "posterior": f"{pct} credible interval (a posterior)",
            "guaranteed": f"guaranteed {pct} confidence interval"}.get(iv.kind, f"{pct} interval")
    parts = [f"AUC {fmt.number(iv.auc)} {fmt.interval(iv.lower, iv.upper)}: {head}, "
             f"method {iv.method}", KIND_WORDS.get(iv.kind, iv.kind)]
    if m is not None:
        parts.append(f"{m.description} ({m.reference})")
    se = ""
    if iv.se is not None:
        se = ("; posterior sd " if iv.kind == "posterior" else "; standard error ")
        se += fmt.number(iv.se)
    parts.append(f"sample AUC of {iv.n_positive} positive and {iv.n_negative} negative "
                 f"examples (ties count one half){se}")
    return parts


def auc_interval_text(iv) -> str:
    """Terminal text of a :class:`bacc.AucInterval`: the AUC, its interval and what kind of
    interval it is, spelled out.

    Parameters
    ----------
    iv : AucInterval

    Returns
    -------
    str
    """
    first, *rest = auc_interval_parts(iv)
    return "\n".join([*wrap(first), *(x for p in rest for x in wrap("  " + p, WIDTH, "    "))])


def auc_comparison_text(cmp) -> str:
    """Terminal text of a :class:`bacc.AucComparison`: both AUCs, their difference with
    DeLong's interval, the test and the correlation.

    Parameters
    ----------
    cmp : AucComparison

    Returns
    -------
    str
    """
    a, b = (_label(n) for n in cmp.names)
    pct = _pct(cmp.confidence)
    keys = ("A", "B") if len(a) + len(b) > 40 else (a, b)
    lines = wrap(f"AUCs of two classifiers on the same {cmp.n_positive} positive and "
                 f"{cmp.n_negative} negative examples: DeLong's test (approximate: a normal "
                 "approximation, coverage not guaranteed)")
    if keys != (a, b):
        lines += [*wrap(f"A = {a}"), *wrap(f"B = {b}")]
    header = ["", "AUC", f"{pct} interval (approximate)"]
    rows = [[keys[0], fmt.number(cmp.auc_a), ""], [keys[1], fmt.number(cmp.auc_b), ""],
            [f"{keys[0]} - {keys[1]}", _signed(cmp.difference),
             f"[{_signed(cmp.lower)}, {_signed(cmp.upper)}]"]]
    lines += ["", *align(header, rows)]
    corr = "-" if math.isnan(cmp.correlation) else f"{cmp.correlation:.3f}"
    lines += wrap(f"z = {cmp.z:.3f}, two-sided p = {fmt.significant(cmp.p_value)}; standard error "
                  f"of the difference {fmt.number(cmp.se)}; correlation of the two AUCs {corr} "
                  "(DeLong, DeLong & Clarke-Pearson 1988)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- a summary
def scores_summary_text(curve, aucs: Sequence, chosen, *, name: str | None = None) -> str:
    """The summary of a classifier's scores: the AUC by every method given, labelled by kind,
    and the best threshold with its in-sample and honest balanced accuracies and the optimism.

    Parameters
    ----------
    curve : ScoreCurve
    aucs : sequence of AucInterval
    chosen : ChosenThreshold
    name : str, optional
        Shown in the title (default: the curve's name).

    Returns
    -------
    str
    """
    shown = name if name is not None else curve.name
    title = score_curve_title(curve)
    if shown is not None and shown != curve.name:
        title = wrap(f"== {_label(shown)}") + title
    lines = [*title, ""]
    if aucs:
        lines += ["AUC:", *("  " + x for x in align(*auc_rows(aucs), left=2, width=WIDTH - 2))]
        lines += ["  " + x for x in wrap(auc_key(aucs), WIDTH - 2)]
        lines.append("")
    header, rows = chosen_threshold_rows(chosen)
    lines += chosen_threshold_title(chosen)
    lines += ["  " + x for x in align(header, rows, width=WIDTH - 2)]
    posterior = ("the first repetition's summed confusion matrix"
                 if chosen.honest_method == "crossfit" else "the held-out part")
    lines += ["  " + x for x in wrap(f"honest: each example decided by a threshold chosen without "
                                     f"it, {honest_words(chosen)}; its posterior from {posterior}; "
                                     "optimism: in sample minus honest, what choosing the "
                                     "threshold on the test set adds", WIDTH - 2)]
    return "\n".join(lines)
