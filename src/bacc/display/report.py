"""A self-contained HTML report: tables, credible and exact intervals, pictures.

One file, no network: the pictures are inline SVG drawn by :mod:`bacc.display.plot` (matplotlib)
and the style sheet is inline. One small inline script makes the summary tables sortable and
says above a table when it is wider than the screen and scrolls sideways in its box (a shadow
at the box's edge says it without the script); the page reads fully without it. The summary
tables are whole from 1 160 px; below that they, and below 900 px every results table, show
each row as a card (side by side where they fit) with the headline numbers first (balanced
accuracy, credible and exact intervals, P(> chance), verdict). The pictures, drawn for a narrow
column, keep their text at 11 px or more; on a desktop they sit side by side. Every user-supplied string (labels, names, file
names, titles) goes through :func:`bacc.display.html.escape`.

The report only formats results computed elsewhere (:func:`bacc.evaluate`,
:func:`bacc.exact_interval`, :func:`bacc.fold_sem_interval`, the comparison and
ranking results); it computes nothing itself.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BaccError, MissingDependencyError
from . import numbers as fmt
from . import text as _text
from .html import escape as esc
from .html import table as html_table

__all__ = ["ReportComparison", "ReportEntry", "Section", "render_report", "write_report"]

_FOREST_MAX = 40


@dataclass(frozen=True)
class ReportEntry:
    """One classifier (or group) in a report.

    Attributes
    ----------
    name : str
    evaluation : Evaluation
        Result of :func:`bacc.evaluate`.
    exact : Interval
        Exact interval of the balanced accuracy.
    accuracy_exact : Interval, optional
        Exact (Clopper-Pearson) interval of the accuracy.
    class_exact : sequence of ClassInterval, optional
        Exact interval of each class accuracy (each holding on its own).
    fold_interval : Interval, optional
        Mean of fold accuracies +- 2 SEM (shown as the approximate comparator).
    source : str
        Where the data came from (file, columns, group).
    note : str
        Free text shown under the name.
    warnings : tuple of str
        Messages raised while evaluating (e.g. a class without examples).
    label : str
        Short name for the axes of pictures (default: ``name``).
    metrics : sequence of MetricPosterior
        Posteriors of other metrics (:func:`bacc.posterior_metric`), shown as a table.
    prevalence : float, optional
        The deployment prevalence of those metrics (two classes).
    precision_curve : mapping, optional
        :func:`bacc.metric_posterior.precision_curve` of a two-class entry: drawn as precision
        against prevalence.
    """

    name: str
    evaluation: Any
    exact: Any
    accuracy_exact: Any = None
    class_exact: Sequence[Any] | None = None
    fold_interval: Any = None
    source: str = ""
    note: str = ""
    warnings: tuple[str, ...] = ()
    label: str = ""
    metrics: Sequence[Any] = ()
    prevalence: float | None = None
    precision_curve: Any = None


@dataclass(frozen=True)
class ReportComparison:
    """A comparison of two entries: names and the result of ``bacc.compare`` / ``compare_paired``."""

    name_a: str
    name_b: str
    result: Any
    paired: bool = False


@dataclass(frozen=True)
class Section:
    """A titled group of entries (one data set, one file, one ``--by`` column).

    With ``batch`` (a :class:`bacc.batch.BatchEvaluation` of every group), the summary table
    lists every group from the batch and ``entries`` are the groups shown in detail (those
    that need attention); ``batch_note`` says how they were chosen. With ``monitoring`` (a
    :class:`bacc.Monitoring`) and no entries, the section shows the monitoring: detectors in
    alarm first, with their timelines. With ``across`` (an :class:`bacc.AcrossComparison` or
    :class:`bacc.AcrossRanking`) and no entries, it shows the comparison or ranking across
    data sets (:mod:`bacc.display.across_report`). With ``scores`` (a sequence of
    :class:`bacc.display.scores_report.ScoresEntry`) and no entries, it shows the scores and
    thresholds of a classifier (:mod:`bacc.display.scores_report`).
    """

    title: str
    entries: Sequence[ReportEntry]
    description: str = ""
    comparisons: Sequence[ReportComparison] = ()
    ranking: Any = None
    measures: bool = True
    details: bool = True
    extra_text: Sequence[tuple[str, str]] = field(default_factory=tuple)
    batch: Any = None
    batch_note: str = ""
    population: Any = None
    monitoring: Any = None
    across: Any = None
    scores: Any = None


# ----------------------------------------------------------------------------------------------
_CSS = """
:root { --ink:#1d232a; --muted:#5d6b78; --line:#d9dee3; --bg:#ffffff; --soft:#f4f6f8;
  --green:#1e8449; --orange:#b9600f; --red:#b03a2e; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 16px; }
header.top { border-bottom: 1px solid var(--line); margin-bottom: 8px; }
h1 { font-size: 1.5rem; margin: .3em 0; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 1.6em 0 .4em; padding-top: .4em; border-top: 2px solid var(--ink); overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; margin: 1.2em 0 .3em; overflow-wrap: anywhere; }
p, li, dd, figcaption, summary { overflow-wrap: anywhere; }
p { margin: .4em 0 .8em; }
.muted { color: var(--muted); font-size: .9em; }
.explain { background: var(--soft); border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
.explain dt { font-weight: 600; }
.explain dd { margin: 0 0 .5em 0; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 8px 0 14px; max-width: 100%;
  /* a shadow at an edge past which the table goes on (the page's script also says so in words) */
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 24px 100% no-repeat local,
    linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 24px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.2), rgba(0,0,0,0)) left / 10px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.2), rgba(0,0,0,0)) right / 10px 100% no-repeat scroll; }
p.scroll-hint { margin: 8px 0 -4px; color: var(--muted); font-size: .85em; }
p.scroll-hint[hidden] { display: none; }
.scroll.tall { max-height: 75vh; overflow-y: auto; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; font-size: .9rem; min-width: 100%; }
th, td { padding: 4px 6px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
thead th { background: var(--soft); font-weight: 600; position: sticky; top: 0; white-space: normal;
  vertical-align: bottom; }
/* columns of numbers take the width of their numbers (titles wrap), the name column the rest */
thead th + th { width: 1%; min-width: 4.5em; }
table.sortable thead th { cursor: pointer; }
table.sortable thead th[aria-sort=ascending]::after { content: " \\25B2"; }
table.sortable thead th[aria-sort=descending]::after { content: " \\25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.hl { font-weight: 600; }
td.wrap { white-space: normal; min-width: 9em; text-align: left; }
tbody th { font-weight: 500; white-space: normal; min-width: 12em; max-width: 24em; overflow-wrap: anywhere; }
table.grid td { text-align: center; font-variant-numeric: tabular-nums; border: 1px solid #fff; }
table.grid thead th { text-align: center; min-width: 0; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 340px), 1fr));
  gap: 12px; align-items: start; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px; background: #fff; min-width: 0; }
figure svg { display: block; width: 100%; height: auto; max-width: 460px; margin: 0 auto; }
figcaption { font-size: .85rem; color: var(--muted); padding: 4px 2px 0; }
details { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 10px 0; min-width: 0; }
details > summary { cursor: pointer; font-weight: 600; }
.verdict { font-size: .95rem; }
.good { color: var(--green); font-weight: 600; }
.warn { color: var(--orange); font-weight: 600; }
.bad { color: var(--red); font-weight: 600; }
pre.result { background: var(--soft); padding: 8px; border-radius: 6px; overflow-x: auto; font-size: .8rem; }
footer { margin-top: 2em; border-top: 1px solid var(--line); padding-top: 8px; }
@media (max-width: 900px) {
%(cards)s
  .scroll.tall { max-height: none; overflow: visible; border: 0; }
}
@media (min-width: 901px) and (max-width: 1160px) {
  /* the summary tables of ten columns need about 1 110 px: cards below that */
%(summary_cards)s
}
@media (max-width: 600px) {
  table.grid th, table.grid td { padding: 3px 4px; font-size: .8rem; }
  table.grid tbody th { min-width: 5em; }
  body { font-size: 14px; }
  main { padding: 8px; }
  h1 { font-size: 1.25rem; }
  details { padding: 4px 6px; }
  figure { padding: 2px; }
}
"""

#: Each row of a results table as a card: the row's name, then labelled values, headline
#: numbers first (they are the first columns); cards side by side when there is room.
_CARDS = """
  {t}, {t} tbody, {t} tr {{ display: block; width: 100%; min-width: 0; }}
  {t} tbody {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 300px), 1fr));
    gap: 8px; }}
  {t} thead {{ display: none; }}
  {t} tr {{ border: 1px solid var(--line); border-radius: 6px; margin: 0; padding: 6px 10px; }}
  {t} tbody th {{ display: block; border: 0; padding: 0 0 2px; max-width: none; min-width: 0;
    font-weight: 600; }}
  {t} td {{ display: flex; justify-content: space-between; gap: 12px; border: 0;
    padding: 1px 0; text-align: right; min-width: 0; }}
  {t} td.wrap {{ white-space: normal; }}
  {t} td::before {{ content: attr(data-label); color: var(--muted); text-align: left; font-weight: 400;
    white-space: normal; }}
"""
_CSS = (_CSS.replace("%(cards)s", _CARDS.format(t="table.cards"))
        .replace("%(summary_cards)s", _CARDS.format(t="table.summary")))

#: Sorts a ``table.sortable`` by the clicked column (numbers by ``data-v``); without it the
#: table reads the same, in its given order.
_SORT_JS = """
(function () {
  // a table wider than its box scrolls inside it: say so above the box while it does
  var boxes = document.querySelectorAll('.scroll');
  function update(b) {
    b.previousElementSibling.hidden = !(b.scrollWidth > b.clientWidth + 1);
  }
  Array.prototype.forEach.call(boxes, function (b) {
    var h = document.createElement('p');
    h.className = 'scroll-hint';
    h.textContent = 'Wider than the screen: scroll the table sideways for every column \\u2192';
    h.hidden = true;
    b.parentNode.insertBefore(h, b);
    update(b);
  });
  function all() { Array.prototype.forEach.call(boxes, update); }
  if (window.ResizeObserver) {
    var ro = new ResizeObserver(all);
    Array.prototype.forEach.call(boxes, function (b) { ro.observe(b); });
  }
  window.addEventListener('resize', all);
  document.querySelectorAll('details').forEach(function (d) { d.addEventListener('toggle', all); });
})();
document.querySelectorAll('table.sortable').forEach(function (t) {
  var heads = t.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, i) {
    th.tabIndex = 0; th.title = 'sort by this column';
    function sort() {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute('aria-sort') !== 'ascending';
      rows.sort(function (x, y) {
        var a = x.cells[i], b = y.cells[i], va = a.getAttribute('data-v'), vb = b.getAttribute('data-v');
        var d = (va !== null && vb !== null) ? parseFloat(va) - parseFloat(vb)
                                             : a.textContent.localeCompare(b.textContent);
        return up ? d : -d;
      });
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener('click', sort);
    th.addEventListener('keydown', function (e) { if (e.key === 'Enter') { sort(); } });
  });
});
"""

#: P(> chance) at or above which a classifier is "clearly above chance" (when, besides, the
#: exact interval lies above chance), and at or above which it is "probably above chance".
CLEAR, PROBABLE = 0.975, 0.9

#: Terms of "How to read this report": (title, definition as HTML), always shown.
_EXPLAIN_CORE = (
    ("Balanced accuracy",
     "The mean of the accuracies obtained on each class (the recall of each class). Unlike the "
     "accuracy it is not inflated when a classifier favours a large class of an imbalanced test "
     "set: a classifier that guesses scores 1 / (number of classes), whatever the class sizes. "
     "That score is <i>chance</i>."),
    ("Sample value",
     "The value computed directly from the counts of the test set (for a class: correct / "
     "examples). The posterior and the intervals say how far the value on new examples may lie "
     "from it."),
    ("Posterior mean and credible interval (Bayesian)",
     "Given the counts and a flat prior Beta(1, 1) on each class accuracy, the balanced accuracy "
     "lies inside the central credible interval with the stated probability (Brodersen et al. "
     "2010; Carrillo et al. 2014). P(&gt; chance) is the posterior probability that it exceeds "
     "chance; &gt; 0.9999 and &lt; 0.0001 mark values beyond four decimals."),
    ("Exact confidence interval (frequentist)",
     "Built from Clopper-Pearson bounds on each class (combined by a union bound for the "
     "balanced accuracy: <i>union</i> in the column title), so that it contains the true value "
     "on at least the stated share of test sets, whatever that value is. It is wider than the "
     "credible interval: it holds without a prior."),
    ("Verdict",
     f"<b>clearly above chance</b>: P(&gt; chance) at least {CLEAR:g} and the exact interval "
     f"entirely above chance. <b>probably above chance</b>: P(&gt; chance) at least "
     f"{PROBABLE:g}, but below {CLEAR:g} or with an exact interval that still includes chance "
     "(the details then say so). The two intervals answer different questions: the credible "
     "one what these counts make probable under a flat prior, the exact one what holds "
     "whatever the true value; so a classifier can be probably above chance while its exact "
     "interval includes chance. <b>not distinguishable from chance</b>: P(&gt; chance) below "
     f"{PROBABLE:g}."),
    ("Mean of folds &#177; 2 SEM (approximate)",
     "The conventional summary of cross-validation (standard error of the mean of the fold "
     "accuracies); it is shown for comparison only. It can pass 100% (marked <i>leaves [0, "
     "1]</i>) and it cannot see a classifier that exploits class imbalance (Brodersen et al. "
     "2010)."),
)
_EXPLAIN_COMPARE = (
    "Comparisons",
    "P(A &gt; B) is the posterior probability that A has the higher balanced accuracy. "
    "<i>Paired</i>: both classifiers were tested on the same examples, and the posterior uses "
    "which examples each got right. The exact McNemar test asks whether the two accuracies "
    "differ: a small p-value says they do.",
)
_EXPLAIN_RANK = (
    "Ranking",
    "<i>wins</i>: the number of other classifiers whose posterior mean it exceeds. "
    "<i>P(best)</i>: the probability of having the highest balanced accuracy. <i>E[rank]</i>: "
    "the expected rank (1 is best); both are estimated from posterior draws, with their Monte "
    "Carlo error after &#177;. The grid gives P(row &gt; column) for every pair.",
)
_EXPLAIN_POPULATION = (
    "Population (mixed effects)",
    "Each group is a subject drawn from a population. <i>population</i>: the mean over subjects "
    "like these; <i>a new subject's</i>: where one more subject is expected; <i>pooled</i>: "
    "every example counted as if from one test set. <i>own</i>: a subject's posterior from its "
    "own examples alone; <i>shrunken</i>: under the model, pulled towards the population.",
)
_EXPLAIN_METRICS = (
    "Other metrics",
    "Posteriors of other measures (precision, F1, ...). <i>exact</i>: computed without "
    "sampling; <i>Monte Carlo &#177; e</i>: estimated from posterior draws, e being the largest "
    "Monte Carlo standard error of its numbers; &#8212; (undefined): the metric is 0 / 0 on "
    "these counts.",
)


def _explain(sections: Sequence[Section]) -> str:
    """The "How to read this report" list: the core terms, and those of the parts present."""
    terms = list(_EXPLAIN_CORE)
    if any(s.comparisons for s in sections):
        terms.append(_EXPLAIN_COMPARE)
    if any(s.ranking is not None for s in sections):
        terms.append(_EXPLAIN_RANK)
    if any(s.population is not None for s in sections):
        terms.append(_EXPLAIN_POPULATION)
    if any(e.metrics for s in sections for e in s.entries):
        terms.append(_EXPLAIN_METRICS)
    if any(s.across is not None for s in sections):
        from .across_report import EXPLAIN

        terms.append(EXPLAIN)
    if any(s.scores is not None for s in sections):
        from .scores_report import EXPLAIN as SCORES

        terms.append(SCORES)
    if any(s.monitoring is not None for s in sections):
        from . import monitoring_report

        # the monitoring's own words (alarm, baseline, ...), as (title, HTML) pairs
        terms.extend(getattr(monitoring_report, "EXPLAIN", ()))
    return ('<dl class="explain">'
            + "".join(f"<dt>{t}</dt><dd>{d}</dd>" for t, d in terms) + "</dl>")


def _judge(p: float, exact_lower: float | None, chance: float) -> tuple[str, str]:
    """(css class, short verdict) from P(> chance) and the exact lower bound (the rule is
    spelled out in "How to read this report")."""
    exact_above = exact_lower is not None and exact_lower > chance
    if p >= CLEAR and (exact_lower is None or exact_above):
        return "good", "clearly above chance"
    if p >= PROBABLE:
        return "warn", "probably above chance"
    return "bad", "not distinguishable from chance"


def _verdict(ev, exact) -> str:
    """One plain-language sentence about how good the classifier is and how sure we are."""
    s = ev.balanced_accuracy_summary
    pct = fmt.percent(ev.confidence)
    p = ev.p_above_chance
    cls, word = _judge(p, exact.lower if exact is not None else None, ev.chance)
    if cls == "warn" and exact is not None and not exact.lower > ev.chance:
        word += f", but the exact {pct} interval still includes chance"
    text = (
        f"Balanced accuracy {s.mean:.1%} (posterior mean); with {pct} probability between "
        f"{s.lower:.1%} and {s.upper:.1%}."
    )
    if exact is not None:
        text += f" Exact {pct} confidence interval: {exact.lower:.1%} to {exact.upper:.1%}."
    text += f" Chance is {ev.chance:.1%}: the classifier is "
    gap = ev.sample_accuracy - ev.sample_balanced_accuracy
    extra = ""
    if gap > 0.05:
        extra = esc(
            f" The accuracy ({ev.sample_accuracy:.1%}) is well above the balanced accuracy "
            f"({ev.sample_balanced_accuracy:.1%}): the classifier does better on the larger "
            "classes, which the accuracy rewards."
        )
    return (
        f'<p class="verdict">{esc(text)}<span class="{cls}">{esc(word)}</span> '
        f"(P(&gt; chance) {esc(fmt.p_phrase(p))}).{extra}</p>"
    )


class _Figures:
    """Renders figures to inline SVG with page-unique ids; skips pictures if matplotlib is missing."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.counter = itertools.count(1)
        self.missing: str | None = None

    def __call__(self, make, caption: str, alt: str) -> str:
        if not self.enabled:
            return ""
        try:
            from .plot import close, figure_svg

            fig = make()
        except MissingDependencyError as exc:
            self.missing = str(exc)
            self.enabled = False
            return ""
        try:
            svg = figure_svg(fig, id_prefix=f"g{next(self.counter)}", alt=alt)
        finally:
            close(fig)
        return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


# ----------------------------------------------------------------------------------------------
# tables
def _summary_header(conf: float, method: str) -> list[str]:
    pct = fmt.percent(conf)
    return ["name", "balanced accuracy (posterior mean)", f"{pct} credible interval",
            f"{pct} exact interval ({'anytime-valid' if method == 'anytime' else method})",
            "P(> chance)", "verdict", "accuracy (sample)",
            "balanced accuracy (sample)", "classes", "examples"]


#: Columns of the summary holding the headline numbers (shown first on a card).
_HEADLINE = (1, 2, 3, 4, 5)


def _summary_cells(name, mean, lower, upper, ex_lo, ex_hi, p, chance, acc, bacc, l, n):
    cls, word = _judge(p, ex_lo, chance)
    cells = [str(name), fmt.number(mean), fmt.interval(lower, upper),
             fmt.interval(ex_lo, ex_hi) if ex_lo is not None else "-", fmt.probability(p), word,
             fmt.number(acc), fmt.number(bacc), str(l), str(n)]
    sort = [None, mean, lower, ex_lo, p, {"bad": 0, "warn": 1, "good": 2}[cls], acc, bacc, l, n]
    classes = ["", "", "", "", "", f"{cls} wrap", "", "", "", ""]
    return cells, sort, classes


def _results_table(header, rows, sorts, classes) -> str:
    sortable = " sortable" if len(rows) > 1 else ""
    tall = " tall" if len(rows) > 15 else ""
    body = html_table(header, rows, cls="cards summary" + sortable, headline=_HEADLINE,
                      sort_values=sorts, cell_class=classes)
    return f'<div class="scroll{tall}">{body}</div>'


def _summary_table(entries: Sequence[ReportEntry]) -> str:
    e0 = entries[0]
    header = _summary_header(e0.evaluation.confidence, e0.exact.method if e0.exact else "union")
    rows, sorts, classes = [], [], []
    for e in entries:
        ev, s, ex = e.evaluation, e.evaluation.balanced_accuracy_summary, e.exact
        c, v, k = _summary_cells(
            e.name, s.mean, s.lower, s.upper, ex.lower if ex else None, ex.upper if ex else None,
            ev.p_above_chance, ev.chance, ev.sample_accuracy, ev.sample_balanced_accuracy,
            ev.confusion.n_classes, ev.confusion.total)
        rows.append(c)
        sorts.append(v)
        classes.append(k)
    return _results_table(header, rows, sorts, classes)


def _batch_table(batch) -> str:
    header = _summary_header(batch.confidence, "union")
    rows, sorts, classes = [], [], []
    chance = 1.0 / len(batch.labels)  # every class of the matrices (confusion.chance_level)
    support = batch.support.sum(axis=1)
    for g, name in enumerate(batch.groups):
        c, v, k = _summary_cells(
            name, float(batch.mean[g]), float(batch.lower[g]), float(batch.upper[g]),
            float(batch.exact_lower[g]), float(batch.exact_upper[g]),
            float(batch.p_above_chance[g]), chance, float(batch.sample_accuracy[g]),
            float(batch.sample_balanced_accuracy[g]), len(batch.labels), int(support[g]))
        rows.append(c)
        sorts.append(v)
        classes.append(k)
    return _results_table(header, rows, sorts, classes)


def _entry_html(e: ReportEntry, figs: _Figures, anchor: str, open_: bool, pictures: bool) -> str:
    from .plot import REPORT_WIDTH

    ev = e.evaluation
    parts = [f'<details id="{esc(anchor)}"{" open" if open_ else ""}>',
             f"<summary>{esc(e.name)}</summary>"]
    if e.source:
        parts.append(f'<p class="muted">source: {esc(e.source)}</p>')
    if e.note:
        parts.append(f"<p>{esc(e.note)}</p>")
    for w in e.warnings:
        parts.append(f'<p class="warn">note: {esc(w)}</p>')
    parts.append(_verdict(ev, e.exact))
    header, rows, ch, crows = _text.evaluation_rows(ev, e.exact, e.accuracy_exact, e.class_exact)
    parts.append('<p class="muted">sample: computed from the counts; mean, median, mode and '
                 "credible interval: of the posterior; exact: the confidence interval.</p>"
                 f'<div class="scroll">{html_table(header, rows, cls="cards")}</div>')
    if e.fold_interval is not None:
        fi = e.fold_interval
        flag = (' <span class="bad">leaves [0, 1]: an accuracy cannot be there</span>'
                if fi.exceeds_unit_interval else "")
        parts.append(
            f"<p>Approximate (for comparison): mean of {len(fi.fold_values)} fold accuracies "
            f"&#177; {fi.multiplier:g} SEM = {fmt.number(fi.estimate)} "
            f"{fmt.interval(fi.lower, fi.upper)}{flag}</p>"
        )
    parts.append("<h3>Per class (accuracy = recall)</h3>"
                 f'<div class="scroll">{html_table(ch, crows, cls="cards")}</div>')
    if e.metrics:
        at = "" if e.prevalence is None else f" at prevalence {e.prevalence:g}"
        mh, mrows = _metric_rows(e.metrics)
        parts.append(f"<h3>Other metrics{esc(at)}</h3>"
                     '<p class="muted">The posterior of each metric (bacc.posterior_metric), '
                     "from the posterior of each class's rates, the classes weighted by "
                     + ("the test set's class shares" if e.prevalence is None
                        else "the prevalence above")
                     + "; computed exactly, or by Monte Carlo with its standard error shown.</p>"
                     f'<div class="scroll">{html_table(mh, mrows, cls="cards", headline=(2, 3))}'
                     "</div>")
        undefined = [r for r in e.metrics if getattr(r, "reason", None) is not None]
        if undefined:
            parts.append('<ul class="muted">' + "".join(
                f"<li>{esc(r.metric.replace('_', ' '))}"
                f"{'' if r.label is None else esc(f' ({r.label})')} is undefined for "
                f"{esc(e.name)}: {esc(r.reason)}</li>" for r in undefined) + "</ul>")
    if pictures:
        w = REPORT_WIDTH
        pics = [
            figs(lambda: _plot().plot_posterior(ev, width=w), "Posterior densities: the shaded "
                 "band is the central credible interval; lines mark mean, median, mode and chance.",
                 f"posterior density of the balanced accuracy and accuracy of {e.name}"),
            figs(lambda: _plot().plot_class_accuracies(ev, e.exact, class_exact=e.class_exact,
                                                       width=w),
                 "Per-class accuracies with exact bounds as bars (as in the detector view of "
                 "Sandler & Dirac 2024); thin lines are credible intervals.",
                 f"per-class accuracies with exact bounds of {e.name}"),
        ]
        if e.precision_curve is not None:
            cm = ev.confusion
            pics.append(figs(
                lambda: _plot().plot_precision_prevalence(
                    e.precision_curve, prevalence=e.prevalence,
                    test_prevalence=float(cm.support[1] / cm.total), width=w),
                f"Precision of class {cm.labels[1]} against the prevalence it will meet: "
                "posterior median, central credible band (green) and exact interval (dashed).",
                f"precision against prevalence of {e.name}"))
        if ev.confusion.n_classes <= 40:
            pics.append(figs(lambda: _plot().plot_confusion(ev, width=w),
                             "Confusion matrix: rows are true classes, colour is the share of the "
                             "row, numbers are counts.", f"confusion matrix of {e.name}"))
        parts.append('<div class="figs">' + "".join(pics) + "</div>")
    parts.append("</details>")
    return "\n".join(parts)


def _metric_rows(results) -> tuple[list[str], list[list[str]]]:
    conf = results[0].confidence
    header = ["metric", "sample", "posterior mean", f"{fmt.percent(conf)} credible", "computed"]
    rows = []
    for r in results:
        name = r.metric.replace("_", " ") + ("" if r.label is None else f" ({r.label})")
        if getattr(r, "reason", None) is not None:  # undefined on this entry
            rows.append([name, _text.UNDEFINED, _text.UNDEFINED, _text.UNDEFINED, "undefined"])
            continue
        how = ("exact" if r.exact
               else f"Monte Carlo ± {fmt.mc_error(max(r.mc_se.values()))}")
        rows.append([name, fmt.number(r.sample), fmt.number(r.mean),
                     fmt.interval(r.lower, r.upper), how])
    return header, rows


def _plot():
    from . import plot

    return plot


def _result_text(result: Any) -> str:
    return f'<pre class="result">{esc(result)}</pre>'


def _grid_colour(p: float) -> str:
    """Background of a cell of P(row > column): green for likely better, red for likely worse,
    white at 1/2 (a diverging scale, light enough for dark text)."""
    import math

    if math.isnan(p):
        return "#ffffff"
    t = min(1.0, abs(p - 0.5) * 2)
    base = (30, 132, 73) if p > 0.5 else (176, 58, 46)
    mix = [round(255 + (c - 255) * 0.55 * t) for c in base]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def _ranking_html(r) -> str:
    """A ranking as HTML: how it was computed, a table (cards on a phone) and the grid of
    P(row > column) coloured by probability."""
    lines = _text.ranking_title(r).split("\n")
    out = [f"<p><b>{esc(lines[0])}</b></p>",
           '<p class="muted">' + "<br>".join(esc(x) for x in lines[1:]) + "</p>"]
    header, rows, _, _ = _text.ranking_rows(r)
    order = list(r.order)
    sorts = [[None, float(r.rank[i]), float(r.wins[i]), float(r.mean_balanced_accuracy[i]),
              float(r.p_best[i]), float(r.expected_rank[i])] for i in order]
    out.append('<div class="scroll">' + html_table(header, rows, cls="cards", headline=(1, 3, 4),
                                                   sort_values=sorts) + "</div>")
    head = "".join(f'<th scope="col" title="{esc(r.names[j])}">#{k + 1}</th>'
                   for k, j in enumerate(order))
    body = []
    for k, i in enumerate(order):
        cells = []
        for j in order:
            if i == j:
                cells.append('<td data-label="-">-</td>')
                continue
            p = float(r.p_greater[i, j])
            cells.append(f'<td style="background:{_grid_colour(p)}" '
                         f'title="P({esc(r.names[i])} &gt; {esc(r.names[j])})">'
                         f"{esc(fmt.probability(p))}</td>")
        body.append(f'<tr><th scope="row">#{k + 1} {esc(r.names[i])}</th>{"".join(cells)}</tr>')
    out.append(
        "<p>P(row &gt; column): the probability that the row's balanced accuracy is the higher; "
        "green when the row is likely better, red when the column is; columns are numbered as "
        "the rows.</p>"
        + f'<div class="scroll"><table class="grid"><thead><tr><th scope="col">P(row &gt; column)'
        f"</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )
    return "\n".join(out)


def _comparison_html(c: ReportComparison, figs: _Figures) -> str:
    from .plot import REPORT_WIDTH

    r = c.result
    p = getattr(r, "p_better", None)
    head = f"{c.name_a} vs {c.name_b}" + (" (paired: same test examples)" if c.paired else "")
    out = [f"<h3>{esc(head)}</h3>"]
    if p is not None:
        out.append(
            f"<p>Probability that the balanced accuracy of <b>{esc(c.name_a)}</b> is higher than "
            f"that of <b>{esc(c.name_b)}</b>: P({esc(c.name_a)} &gt; {esc(c.name_b)}) "
            f"<b>{esc(fmt.p_phrase(float(p)))}</b>.</p>"
        )
    if hasattr(r, "difference") and hasattr(r, "names"):
        title = _text.comparison_title(r).split("\n")
        out.append('<p class="muted">' + "<br>".join(esc(x) for x in title) + "</p>")
        header, rows, probs = _text.comparison_rows(r)
        out.append('<div class="scroll">' + html_table(header, rows, cls="cards", headline=(2, 3))
                   + "</div>")
        out.append('<div class="scroll">' + html_table(["", "probability"], probs, cls="cards",
                                                       headline=(1,)) + "</div>")
        if getattr(r, "mcnemar", None) is not None:
            out.append(f"<p>{esc(_text.mcnemar_line(r))}</p>")
    else:
        out.append(_result_text(r))
    out.append('<div class="figs">' + figs(
        lambda: _plot().plot_difference(r, names=(c.name_a, c.name_b), width=REPORT_WIDTH),
        "Posterior of the difference of balanced accuracies (Carrillo et al. (2014), Fig. 5).",
        f"difference of balanced accuracies, {c.name_a} minus {c.name_b}",
    ) + "</div>")
    return "\n".join(out)


def _population_html(pop, figs: _Figures) -> str:
    """The mixed-effects block: population posterior, verdict, classes, subjects, picture."""
    from .plot import REPORT_WIDTH

    what = "accuracy" if len(pop.labels) == 1 else "balanced accuracy"
    out = [f"<h3>Population (mixed effects, {esc(pop.model)} model)</h3>",
           f"<p>Each of the {len(pop.subject_names)} groups is taken as a subject drawn from a "
           f"population (Brodersen et al. 2012, 2013). {esc(_text.population_key(pop))}</p>"]  # fmt: skip
    header, rows = _text.population_text_rows(pop)
    out.append('<div class="scroll">' + html_table(header, rows, cls="cards", headline=(1, 4)) + "</div>")
    out.append(f"<p>P(population {what} &gt; chance {esc(fmt.significant(pop.chance))}) "
               f"<b>{esc(fmt.p_phrase(pop.p_above_chance))}</b>. {esc(pop.verdict)}</p>")  # fmt: skip
    ch = ["class", "population accuracy", f"{fmt.percent(pop.confidence)} credible",
          "sd between subjects"]  # fmt: skip
    crows = [[str(c.label), fmt.number(c.accuracy.mean),
              fmt.interval(c.accuracy.lower, c.accuracy.upper), fmt.number(c.spread)]
             for c in pop.classes]  # fmt: skip
    out.append('<div class="scroll">' + html_table(ch, crows, cls="cards", headline=(1,)) + "</div>")
    out.append('<div class="figs">' + figs(
        lambda: _plot().plot_population(pop, width=REPORT_WIDTH),
        f"Top: posterior of the population {what} (shaded: credible interval; bar: the pooled, "
        "fixed-effects interval). Bottom: each subject alone (grey) and under the model (green).",
        f"population {what} and per-subject intervals",
    ) + "</div>")
    sh, srows = _text.population_subject_rows(pop, limit=None)
    out.append("<details><summary>Every subject</summary>" + '<div class="scroll">'
               + html_table(sh, srows, cls="cards", headline=(3, 5)) + "</div></details>")
    for note in pop.notes[:20]:
        out.append(f'<p class="muted">{esc(note)}</p>')
    return "\n".join(out)


def _section_html(sec: Section, figs: _Figures, index: int, max_detail: int) -> str:
    from .plot import REPORT_WIDTH

    entries = list(sec.entries)
    if sec.monitoring is not None and not entries:  # a section of bacc.monitor's result only
        from .monitoring_report import monitoring_html

        desc = f"<p>{esc(sec.description)}</p>" if sec.description else ""
        return (f'<section id="s{index}"><h2>{esc(sec.title)}</h2>{desc}'
                f"{monitoring_html(sec.monitoring, figs)}</section>")
    if sec.across is not None and not entries:  # a comparison or ranking across data sets
        from .across_report import across_html

        desc = f"<p>{esc(sec.description)}</p>" if sec.description else ""
        return (f'<section id="s{index}"><h2>{esc(sec.title)}</h2>{desc}'
                f"{across_html(sec.across, figs)}</section>")
    if sec.scores is not None and not entries:  # a classifier's scores and thresholds
        from .scores_report import scores_html

        desc = f"<p>{esc(sec.description)}</p>" if sec.description else ""
        return (f'<section id="s{index}"><h2>{esc(sec.title)}</h2>{desc}'
                f"{scores_html(sec.scores, figs)}</section>")
    if not entries:
        raise BaccError(f"report section {sec.title!r} has no entries")
    out = [f'<section id="s{index}"><h2>{esc(sec.title)}</h2>']
    if sec.description:
        out.append(f"<p>{esc(sec.description)}</p>")
    n_all = len(sec.batch.groups) if sec.batch is not None else len(entries)
    table = _batch_table(sec.batch) if sec.batch is not None else _summary_table(entries)
    if n_all > 1:
        table = ('<p class="muted">One row per entry; click a column title to sort'
                 f'{" (every " + str(n_all) + " entries)" if n_all > 15 else ""}.</p>' + table)
    if n_all <= 15:
        out.append(table)
    pics = []
    if len(entries) >= 2:
        shown_f = entries
        caption = ("Balanced accuracy of each classifier: posterior mean (dot), credible interval "
                   "(line), exact interval (pale bar), sample value (cross).")
        if len(entries) > _FOREST_MAX or n_all > len(entries):
            # many groups: show those we know least well or that do worst (lowest exact bound)
            shown_f = sorted(entries, key=lambda e: (e.exact.lower if e.exact is not None else
                                                     e.evaluation.balanced_accuracy_summary.lower))
            shown_f = shown_f[:_FOREST_MAX]
            caption = (f"The {len(shown_f)} of {n_all} entries with the lowest exact lower "
                       "bound. " + caption)
        pics.append(figs(
            lambda: _plot().plot_forest([e.evaluation for e in shown_f],
                                        names=[e.label or e.name for e in shown_f],
                                        exact=[e.exact for e in shown_f], width=REPORT_WIDTH),
            caption,
            f"forest plot of {sec.title}",
        ))
    shown = entries[:6]
    no_folds = all(e.fold_interval is None for e in shown)
    # with folds: the three ways of Brodersen et al. (2010), Fig. 1; without: accuracy beside
    # balanced accuracy, worth a picture only for two or more entries (one entry's two
    # posteriors are in its details)
    if sec.measures and (not no_folds or len(shown) >= 2):
        if no_folds:
            caption = ("Accuracy (blue) and balanced accuracy (green) of each classifier: "
                       "posterior mean and credible interval. A third way, the mean of fold "
                       "accuracies ± 2 SEM (Brodersen et al. (2010), Fig. 1), needs the "
                       "accuracy of each cross-validation fold (a --fold column, or per-fold "
                       "matrices).")
        else:
            caption = ("Three ways to report the same classifier (Brodersen et al. (2010), "
                       "Fig. 1): mean of fold accuracies ± 2 SEM (red), posterior accuracy "
                       "(blue), posterior balanced accuracy (green).")
        pics.append(figs(
            lambda: _plot().plot_measures([e.evaluation for e in shown],
                                          [e.fold_interval for e in shown],
                                          names=[_shorten(e.label or e.name) for e in shown],
                                          width=REPORT_WIDTH),
            caption,
            f"comparison of accuracy measures for {sec.title}",
        ))
    if pics:
        out.append('<div class="figs">' + "".join(pics) + "</div>")
    if n_all > 15:  # many rows: pictures first, then the sortable table
        out.append(table)
    if sec.population is not None:
        out.append(_population_html(sec.population, figs))
    for title, text in sec.extra_text:
        out.append(f"<h3>{esc(title)}</h3>{_result_text(text)}")
    if sec.ranking is not None:
        out.append("<h3>Ranking</h3>" + _ranking_html(sec.ranking))
    for c in sec.comparisons:
        out.append(_comparison_html(c, figs))
    if sec.details:
        out.append("<h3>Details</h3>")
        if sec.batch_note:
            out.append(f"<p>{esc(sec.batch_note)}</p>")
        for i, e in enumerate(entries):
            pictures = i < max_detail
            out.append(_entry_html(e, figs, f"s{index}e{i}", open_=len(entries) <= 2, pictures=pictures))
        if len(entries) > max_detail:
            out.append(f'<p class="muted">Pictures are drawn for the first {max_detail} entries only.</p>')
    out.append("</section>")
    return "\n".join(out)


def _shorten(name: str, limit: int = 18) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def render_report(
    sections: Sequence[Section] | Section,
    *,
    title: str = "bacc report",
    subtitle: str = "",
    pictures: bool = True,
    max_detail: int = 30,
    generated: str | None = None,
) -> str:
    """Render a self-contained HTML page.

    Parameters
    ----------
    sections : Section or sequence of Section
        What to show; each section has a sortable summary table (one row per entry, a card per
        entry on a phone), a forest plot (two or more entries), the comparison of measures,
        comparisons, a ranking and one collapsible block of details per entry (per-class table
        and pictures).
    title, subtitle : str
        Shown at the top (escaped).
    pictures : bool
        Draw pictures (needs matplotlib; without it the report has tables only and says so).
    max_detail : int
        Draw per-entry pictures for at most this many entries per section.
    generated : str, optional
        Time stamp to print (default: now, UTC).

    Returns
    -------
    str
        The whole HTML document.
    """
    from .. import __version__

    if isinstance(sections, Section):
        sections = [sections]
    figs = _Figures(pictures)
    body = [_section_html(s, figs, i, max_detail) for i, s in enumerate(sections)]
    stamp = generated or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    toc = ""
    if len(sections) > 1:
        toc = "<nav><p>" + " · ".join(
            f'<a href="#s{i}">{esc(s.title)}</a>' for i, s in enumerate(sections)
        ) + "</p></nav>"
    missing = ""
    if figs.missing:
        missing = f'<p class="warn">Pictures left out: {esc(figs.missing)}</p>'
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        f'<header class="top"><h1>{esc(title)}</h1>'
        + (f"<p>{esc(subtitle)}</p>" if subtitle else "")
        + f'<p class="muted">bacc {esc(__version__)} · {esc(stamp)}</p></header>',
        missing,
        "<details><summary>How to read this report</summary>" + _explain(sections) + "</details>",
        toc,
        *body,
        '<footer class="muted"><p>Brodersen, Ong, Stephan &amp; Buhmann (2010), The balanced accuracy '
        "and its posterior distribution, ICPR. Carrillo, Brodersen &amp; Castellanos (2014), "
        "Probabilistic performance evaluation for multiclass classification using the posterior "
        "balanced accuracy, ROBOT. Clopper &amp; Pearson (1934), Biometrika 26.</p></footer>",
        "</main>",
        f"<script>{_SORT_JS}</script>",
        "</body></html>",
    ])


def write_report(path: str | Path, html_text: str) -> Path:
    """Write the page to ``path`` (UTF-8) and return the path; errors become BaccError.

    ``-`` writes the page to standard output. A regular file is written to a temporary file
    in the same folder and renamed over ``path`` only when complete: a failed write (full
    disk, size limit, interruption) leaves a previous report intact and no partial one. A new
    file gets the permissions the umask gives, an existing one keeps its mode; a named pipe or
    a character device is written directly, never replaced; a folder, a block device or a
    socket is refused (see :mod:`bacc.display.files`).
    """
    from .files import write_text

    return write_text(path, html_text, "the report")
