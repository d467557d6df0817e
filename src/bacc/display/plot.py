"""Pictures of bacc results (matplotlib, an optional extra: ``pip install "bacc[plot]"``).

Every function takes results (an :class:`~bacc.evaluation.Evaluation`, an exact interval, a
comparison, ...) and returns a :class:`matplotlib.figure.Figure`; nothing here computes a
statistic that the numerical modules do not already provide. matplotlib is imported inside the
functions, so ``import bacc`` never needs it.

When :mod:`matplotlib.pyplot` is already imported (an interactive session or a notebook), the
figure is created through it, so ``plt.show()`` displays it; otherwise a bare ``Figure`` is made
(no global state), which is what the HTML report uses.

Colours follow Brodersen et al. (2010), Fig. 1: red for the conventional mean of fold accuracies with
+- 2 standard errors, blue for the posterior accuracy, green for the posterior balanced accuracy.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import BaccError, require
from . import numbers as fmt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..confusion import ConfusionMatrix
    from ..evaluation import Evaluation

__all__ = [
    "plot_class_accuracies",
    "plot_confusion",
    "plot_difference",
    "plot_forest",
    "plot_measures",
    "plot_population",
    "plot_posterior",
    "plot_precision_prevalence",
    "plot_sequence",
    "plot_timeline",
    "figure_svg",
]

RED = "#c0392b"  # conventional: mean of folds +- 2 SEM (Brodersen et al. (2010), Fig. 1)
BLUE = "#2471a3"  # posterior accuracy
GREEN = "#1e8449"  # posterior balanced accuracy
GREY = "#7f8c8d"  # chance
EXACT = "#e67e22"  # exact (frequentist) bounds
INK = "#222222"

# One font scale for every figure (points): the smallest text is SMALL. The report draws its
# figures REPORT_WIDTH inches wide and never shows them narrower than about 330 px, so SMALL
# renders at 11 px or more on any screen (8.5 pt * 330 px / (3.5 in * 72 pt/in) = 11.1 px).
SMALL = 8.5  # ticks, legends, notes, numbers in cells
LABEL = 9.0  # axis labels
TITLE = 10.0  # axes titles
REPORT_WIDTH = 3.5  # inches

_MEASURES = {
    "balanced_accuracy": ("balanced accuracy", GREEN),
    "accuracy": ("accuracy", BLUE),
}


# ----------------------------------------------------------------------------------------------
# plumbing
def _mpl():
    """Import matplotlib lazily; without it, a MissingDependencyError naming the extra."""
    matplotlib = require("matplotlib", "plot", "plots")
    from matplotlib.figure import Figure

    return matplotlib, Figure


def _new_figure(width: float, height: float) -> Figure:
    _, Figure = _mpl()
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=(width, height), layout="constrained")
    return Figure(figsize=(width, height), layout="constrained")


def _wrap(text: str, width_pt: float, size: float, bold: bool = False) -> str:
    """``text`` broken into lines that fit ``width_pt`` at ``size`` points (DejaVu Sans: about
    0.6 em a character, 0.66 bold), so that no title runs off a narrow figure."""
    import textwrap

    per = max(8, int(width_pt / (size * (0.66 if bold else 0.6))))
    # an interval "[0.534, 0.808]" is never broken: its space becomes a no-break space
    text = re.sub(r"(\[[^\]\n]{0,40}?,) ([^\]\n]{0,40}?\])", "\\1\u00a0\\2", text)
    return "\n".join(w for line in text.split("\n")
                     for w in (textwrap.wrap(line, per, break_on_hyphens=False) or [""]))


def _finish(fig: Figure) -> Figure:
    """Apply the font scale to every axes of ``fig`` (ticks, axis labels), wrap titles to the
    figure's width, and return it."""
    width_pt = fig.get_figwidth() * 72
    for ax in fig.axes:
        ax.tick_params(labelsize=SMALL)
        ax.xaxis.label.set_size(LABEL)
        ax.yaxis.label.set_size(LABEL)
        for loc in ("left", "center"):
            t = ax.get_title(loc=loc)
            if t:
                obj = ax.title if loc == "center" else getattr(ax, "_left_title", None)
                if obj is None:
                    continue
                bold = obj.get_fontweight() in ("bold", 700)
                # a title starts at the axes' left edge: leave room for the tick labels
                obj.set_text(_wrap(t, 0.78 * width_pt, obj.get_fontsize(), bold))
        lab = ax.xaxis.label
        if lab.get_text():
            lab.set_text(_wrap(lab.get_text(), 0.8 * width_pt, lab.get_fontsize()))
    if getattr(fig, "_suptitle", None) is not None:
        fig._suptitle.set_text(_wrap(fig._suptitle.get_text(), 0.92 * width_pt,
                                     fig._suptitle.get_fontsize()))
    return fig


def close(fig: Figure) -> None:
    """Release a figure made by this module (closes it in pyplot when pyplot manages it)."""
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close(fig)


def _t(text: object) -> str:
    """A user string shown literally (a ``$`` would otherwise start matplotlib mathtext;
    control characters are drawn as escapes, :func:`bacc.display.text.visible`)."""
    from .text import visible

    return visible(str(text), keep="\n").replace("$", r"\$")


def _dist_range(dist, lo_q: float = 1e-4) -> tuple[float, float]:
    """Range holding all but ``2 lo_q`` of the mass, clipped to the support."""
    s_lo, s_hi = dist.support()
    with np.errstate(all="ignore"):
        lo = float(dist.ppf(lo_q))
        hi = float(dist.isf(lo_q))
    pad = 0.08 * max(hi - lo, 1e-12)
    return max(s_lo, lo - pad), min(s_hi, hi + pad)


def _density(dist, lo: float, hi: float, n: int = 600) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(lo, hi, n)
    # stay off the end points, where a density may be infinite (a class without errors)
    eps = 1e-9 * max(hi - lo, 1e-12)
    x = np.clip(x, lo + eps, hi - eps)
    with np.errstate(all="ignore"):
        y = np.asarray(dist.pdf(x), dtype=float)
    y = np.where(np.isfinite(y), y, np.nan)
    return x, y


def _cap_density(ax: Axes, y: np.ndarray) -> None:
    """Keep a density with an infinite spike at an end point readable."""
    finite = y[np.isfinite(y)]
    if finite.size == 0:
        return
    top = float(np.nanmax(finite))
    typical = float(np.nanpercentile(finite, 90))
    if top > 8 * typical > 0:
        ax.set_ylim(0, 8 * typical)
    else:
        ax.set_ylim(0, top * 1.15)


def _chance_line(ax: Axes, chance: float, lo: float, hi: float, *, label: bool = True) -> bool:
    """A line at chance when it lies in ``[lo, hi]`` (True); otherwise nothing is drawn on the
    axes (False): the caller names chance in the legend, where no curve or axis can strike
    the words (:func:`_chance_entry`)."""
    if lo <= chance <= hi:
        ax.axvline(chance, color=GREY, ls="-.", lw=1.2, label=f"chance {fmt.significant(chance, 3)}" if label else None)
        return True
    return False


def _chance_entry(chance: float, lo: float, hi: float, drawn: bool):
    """The legend entry of the chance level: its line style, or, when chance lies outside the
    plotted range, the words saying on which side it is."""
    from matplotlib.lines import Line2D

    text = f"chance {fmt.significant(chance, 3)}"
    if drawn:
        return Line2D([], [], color=GREY, lw=1.2, ls="-.", label=text)
    side = "left" if chance < lo else "right"
    return Line2D([], [], color=GREY, ls="", label=f"{text} ({side} of this range)")


# ----------------------------------------------------------------------------------------------
def plot_posterior(
    evaluation: Evaluation,
    *,
    measures: Sequence[str] = ("balanced_accuracy", "accuracy"),
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Posterior density with the central credible interval shaded and the estimates marked.

    Brodersen et al. (2010), Fig. 2 (accuracy and balanced accuracy of the same classifier, one above the
    other on a shared axis) and Carrillo et al. (2014), Fig. 3 (posterior balanced accuracy with its mean and
    95% interval).

    Parameters
    ----------
    evaluation : Evaluation
        Result of :func:`bacc.evaluate`.
    measures : sequence of {"balanced_accuracy", "accuracy"}
        One panel per measure, top to bottom, sharing the x axis.
    title : str, optional
        Figure title (shown literally).
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per measure. Each has the density line, the shaded central interval, vertical
        lines for mean, median and mode, and the chance level (a line, or a note at the edge
        when chance lies far outside the plotted range).

    Examples
    --------
    >>> import bacc
    >>> from bacc.display.plot import plot_posterior
    >>> fig = plot_posterior(bacc.evaluate([[42, 3], [6, 4]]))  # doctest: +SKIP
    """
    if isinstance(measures, str):
        measures = (measures,)
    for m in measures:
        if m not in _MEASURES:
            raise BaccError(f"measures must be 'balanced_accuracy' or 'accuracy', got {m!r}")
    ev = evaluation
    dists = {"balanced_accuracy": ev.balanced_accuracy, "accuracy": ev.accuracy}
    sums = {"balanced_accuracy": ev.balanced_accuracy_summary, "accuracy": ev.accuracy_summary}
    ranges = [_dist_range(dists[m]) for m in measures]
    lo = min(r[0] for r in ranges)
    hi = max(r[1] for r in ranges)
    span = hi - lo
    if lo - 0.5 * span <= ev.chance <= hi + 0.5 * span:  # near enough to show on the axis
        lo, hi = min(lo, ev.chance - 0.03 * span), max(hi, ev.chance + 0.03 * span)
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    w = width or 5.2
    fig = _new_figure(w, 0.9 + 1.9 * len(measures) * max(1.0, 4.0 / w) ** 0.5)
    axes = fig.subplots(len(measures), 1, sharex=True, squeeze=False)[:, 0]
    for ax, m in zip(axes, measures, strict=True):
        name, colour = _MEASURES[m]
        dist, s = dists[m], sums[m]
        x, y = _density(dist, lo, hi)
        ax.plot(x, y, color=colour, lw=1.8)
        inside = (x >= s.lower) & (x <= s.upper)
        ax.fill_between(x, 0, np.nan_to_num(y), where=inside, color=colour, alpha=0.25, lw=0)
        ax.axvline(s.mean, color=INK, lw=1.3, ls="-")
        ax.axvline(s.median, color=INK, lw=1.3, ls="--")
        ax.axvline(s.mode, color=INK, lw=1.3, ls=":")
        drawn = _chance_line(ax, ev.chance, lo, hi, label=False)
        _cap_density(ax, y)
        ax.set_ylabel("density")
        # the numbers go in the title, the legend (line styles only) below the axes: nothing
        # covers the density or the chance line
        head = (f"{name}: mean {fmt.number(s.mean, 3)}, "
                f"{fmt.percent(s.confidence)} {fmt.interval(s.lower, s.upper, 3)}")
        if m == "balanced_accuracy":
            head += f"\nP(> chance {fmt.significant(ev.chance, 3)}) {fmt.p_phrase(ev.p_above_chance)}"
        ax.set_title(head, fontsize=TITLE, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    pct = fmt.percent(sums[measures[0]].confidence)
    handles = [
        Line2D([], [], color=INK, lw=1.3, ls="-", label="mean"),
        Line2D([], [], color=INK, lw=1.3, ls="--", label="median"),
        Line2D([], [], color=INK, lw=1.3, ls=":", label="mode"),
        Patch(color=GREY, alpha=0.35, label=f"{pct} credible"),
        _chance_entry(ev.chance, lo, hi, drawn),
    ]
    # a chance level named in words needs the room of two columns
    fig.legend(handles=handles, fontsize=SMALL, loc="outside lower center", frameon=False,
               ncols=3 if drawn else 2)
    axes[-1].set_xlabel("value")
    axes[-1].set_xlim(lo, hi)
    if title:
        fig.suptitle(_t(title), fontsize=TITLE)
    return _finish(fig)


# ----------------------------------------------------------------------------------------------
def plot_measures(
    evaluations: Sequence[Evaluation] | Mapping[str, Evaluation],
    fold_intervals: Sequence[Any] | None = None,
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Side-by-side comparison of measures (Brodersen et al. (2010), Fig. 1) for one or more classifiers.

    For each classifier, three intervals: the conventional mean of fold accuracies +- 2
    standard errors (red; it can pass 100%, the first flaw named by Brodersen et al. (2010)), the posterior accuracy (blue)
    and the posterior balanced accuracy (green), each with its central credible interval. A
    biased classifier on an imbalanced test set shows a high accuracy while its balanced
    accuracy sits at chance (the second flaw).

    Parameters
    ----------
    evaluations : sequence of Evaluation, or mapping name -> Evaluation
    fold_intervals : sequence of Interval or None, optional
        For each classifier the result of :func:`bacc.fold_sem_interval` (or None when
        there are no folds; the red interval is then left out).
    names : sequence of str, optional
        Names of the classifiers (default ``C1, C2, ...`` or the mapping keys).
    title : str, optional
    width : float, optional
        Width in inches (default from the number of classifiers; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; for each classifier one error bar per available measure, a line at 100%
        and the chance level. Without any fold intervals the default title says that no
        folds were given (the red interval needs the accuracy of each fold); the legend names
        only what is drawn.
    """
    evs, names = _named(evaluations, names)
    folds = list(fold_intervals) if fold_intervals is not None else [None] * len(evs)
    if len(folds) != len(evs):
        raise BaccError(f"fold_intervals has {len(folds)} entries for {len(evs)} evaluations")
    fig_width = width or max(4.4, 1.3 * len(evs) + 1.6)
    fig = _new_figure(fig_width, 4.0)
    ax = fig.subplots()
    bar_step = 0.22  # offset between the bars of one classifier
    seen: set[str] = set()
    ymin = 1.0
    ymax = 0.0
    for i, (ev, fi) in enumerate(zip(evs, folds, strict=True)):
        bars = []
        if fi is not None:
            bars.append(("mean of folds +- 2 SEM", RED, fi.estimate, fi.lower, fi.upper))
        s = ev.accuracy_summary
        bars.append(("posterior accuracy", BLUE, s.mean, s.lower, s.upper))
        s = ev.balanced_accuracy_summary
        bars.append(("posterior balanced accuracy", GREEN, s.mean, s.lower, s.upper))
        offsets = (np.arange(len(bars)) - (len(bars) - 1) / 2) * bar_step
        for off, (lab, col, est, lo, hi) in zip(offsets, bars, strict=True):
            ax.errorbar(
                i + off, est, yerr=[[est - lo], [hi - est]], fmt="o", color=col, ms=6,
                capsize=4, lw=2, label=None if lab in seen else lab,
            )
            seen.add(lab)
            ymin, ymax = min(ymin, lo), max(ymax, hi)
            if hi > 1.0:
                ax.annotate(
                    f"{fmt.number(100 * hi, 1)}% > 100%", xy=(i + off, hi), xytext=(4, 3),
                    textcoords="offset points", fontsize=SMALL, color=col, ha="left",
                )
    span = max(ymax, 1.0) - ymin
    low = max(0.0, ymin - 0.12 * span)
    # a chance level far below the intervals is named, not drawn (it would squash them)
    near = [ev.chance >= low - 0.25 * span for ev in evs]
    low = min([low] + [ev.chance - 0.03 * span for ev, ok in zip(evs, near, strict=True) if ok])
    for i, ev in enumerate(evs):
        if near[i]:
            ax.hlines(ev.chance, i - 0.45, i + 0.45, color=GREY, ls="-.", lw=1.2,
                      label=None if "chance" in seen else "chance (1 / classes)")
            seen.add("chance")
    far = sorted({round(ev.chance, 6) for ev, ok in zip(evs, near, strict=True) if not ok})
    if far:
        ax.annotate(f"chance {', '.join(fmt.significant(c, 3) for c in far)}: below this range",
                    xy=(0.01, 0.01), xycoords="axes fraction", ha="left", va="bottom",
                    fontsize=SMALL, color=GREY)
    ax.axhline(1.0, color=INK, lw=0.8, ls="--")
    ax.text(len(evs) - 0.5, 1.0, "100%", va="bottom", ha="right", fontsize=SMALL, color=INK)
    many = len(evs) > 3 or max(map(len, map(str, names))) * len(evs) > 36
    ax.set_xticks(range(len(evs)), [_t(_short(n, 16)) for n in names],
                  rotation=30 if many else 0, ha="right" if many else "center")
    ax.set_xlim(-0.6, len(evs) - 0.4)
    ax.set_ylim(low, max(1.0 + 0.08 * span, ymax + 0.04 * span))
    ax.set_ylabel("accuracy measure")
    handles, labels = ax.get_legend_handles_labels()
    no_folds = all(f is None for f in folds)
    fig.legend(handles, labels, fontsize=SMALL, loc="outside lower center", frameon=False, ncols=1 if fig_width < 4.5 else 2)
    ax.spines[["top", "right"]].set_visible(False)
    default = ("accuracy and balanced accuracy (no folds given)" if no_folds
               else "three ways to report the same classifier")
    ax.set_title(_t(title) if title else default, fontsize=TITLE, loc="left")
    return _finish(fig)


def _named(evaluations, names) -> tuple[list, list[str]]:
    if isinstance(evaluations, Mapping):
        keys = list(evaluations)
        evs = [evaluations[k] for k in keys]
        names = list(names) if names is not None else [str(k) for k in keys]
    else:
        evs = list(evaluations)
        names = list(names) if names is not None else [f"C{i + 1}" for i in range(len(evs))]
    if not evs:
        raise BaccError("nothing to plot: no evaluations given")
    if len(names) != len(evs):
        raise BaccError(f"{len(names)} names for {len(evs)} evaluations")
    return evs, [str(n) for n in names]


# ----------------------------------------------------------------------------------------------
def plot_class_accuracies(
    evaluation: Evaluation,
    exact: Any | None = None,
    *,
    class_exact: Sequence[Any] | None = None,
    credible: bool = True,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Balanced accuracy and per-class accuracies with exact bounds as bars (Sandler & Dirac (2024), Fig. 1).

    Parameters
    ----------
    evaluation : Evaluation
    exact : Interval, optional
        Exact interval of the balanced accuracy (default ``evaluation.exact_interval()``).
    class_exact : sequence of ClassInterval, optional
        Exact interval of each class accuracy (default
        :meth:`bacc.Evaluation.class_intervals` at the evaluation's confidence, each holding on its
        own).
    credible : bool
        Also draw the posterior credible interval of each row as a thin line.
    title : str, optional
    width : float, optional
        Width in inches (default 5.4; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; one horizontal bar per row (balanced accuracy first, then one per class)
        spanning the exact interval, a marker at the sample value and the number written beside.
    """
    ev = evaluation
    if exact is None:
        exact = ev.exact_interval()
    if class_exact is None:
        class_exact = ev.class_intervals()
    rows = [("balanced accuracy", ev.sample_balanced_accuracy, exact.lower, exact.upper,
             ev.balanced_accuracy_summary, True)]
    for c, ci in zip(ev.classes, class_exact, strict=True):
        rows.append((
            f"{c.label}  ({c.correct}/{c.support})", c.sample_accuracy, ci.lower, ci.upper,
            c.summary, c.support > 0,
        ))
    n = len(rows)
    # a narrow figure writes the sample value beside each bar, a wide one also its interval
    narrow = (width or 5.4) < 4.5
    fig = _new_figure(width or 5.4, 1.9 + 0.34 * n)
    ax = fig.subplots()
    ys = np.arange(n)[::-1]
    for y, (_, est, lo, hi, summ, ok) in zip(ys, rows, strict=True):
        colour = GREEN if y == ys[0] else EXACT
        ax.barh(y, hi - lo, left=lo, height=0.55, color=colour, alpha=0.35 if ok else 0.12, lw=0)
        if credible and ok:
            ax.hlines(y - 0.36, summ.lower, summ.upper, color=INK, lw=1.0)
        if ok and not math.isnan(est):
            ax.plot([est], [y], marker="|", ms=14, mew=2.2, color=colour if y == ys[0] else INK)
            beside = f"{fmt.number(100 * est, 1)}%"
            if not narrow:
                beside += f"  {fmt.interval(100 * lo, 100 * hi, 1)}"
            ax.text(min(hi, 1.0) + 0.01, y, beside, va="center", fontsize=SMALL)
        else:
            ax.text(0.01, y, "no examples", va="center", fontsize=SMALL, color=GREY)
    ax.set_yticks(ys, [_short(r[0], 22 if (width or 5.4) < 4.5 else 40) for r in rows], fontsize=SMALL)
    lo_all = min(r[2] for r in rows if r[5])
    span = max(1.0 - lo_all, 0.02)
    chance_near = ev.chance >= lo_all - 0.3 * span
    left = max(0.0, (min(lo_all, ev.chance) if chance_near else lo_all) - 0.05 * span)
    if chance_near:
        ax.axvline(ev.chance, color=GREY, ls="-.", lw=1.0)
    # room on the right for the numbers written beside the bars
    ax.set_xlim(left, 1.0 + (0.3 if narrow else 0.4) * (1.0 - left))
    ticks = ax.get_xticks()
    ax.set_xticks([t for t in ticks if left - 1e-9 <= t <= 1.0 + 1e-9])
    ax.set_xlabel("accuracy (recall of each class)")
    ax.spines[["top", "right"]].set_visible(False)
    pct = fmt.percent(ev.confidence)
    method = getattr(exact, "method", "union")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(color=GREEN, alpha=0.35, label=f"balanced accuracy: exact {pct} ({method})"
              if method != "anytime" else f"balanced accuracy: anytime-valid {pct}"),
        Patch(color=EXACT, alpha=0.35, label=f"class: exact {pct} (Clopper-Pearson)"
              if method != "anytime" else f"class: anytime-valid {pct}"),
        Line2D([], [], color=INK, marker="|", ls="", ms=9, mew=2, label="sample value"),
        Line2D([], [], color=GREY, ls="-." if chance_near else "",
               label=f"chance {fmt.significant(ev.chance, 3)}" + ("" if chance_near else " (left of this range)")),
    ]
    if credible:
        handles.insert(2, Line2D([], [], color=INK, lw=1, label=f"{pct} credible interval"))
    fig.legend(handles=handles, fontsize=SMALL, loc="outside lower center", frameon=False,
               ncols=1 if (width or 5.4) < 4.5 else 2)
    fig.suptitle(_t(title) if title else "accuracy per class", fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)


def _short(text: object, limit: int = 40) -> str:
    """A label shown literally and cut to ``limit`` characters."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "\u2026"
    return _t(s)


# ----------------------------------------------------------------------------------------------
def _diff_parts(comparison) -> tuple[Any, float, float]:
    """Distribution of the difference, P(A > B) and rope half-width from a comparison result."""
    dist = None
    for attr in ("difference", "delta", "posterior", "distribution"):
        dist = getattr(comparison, attr, None)
        if dist is not None and hasattr(dist, "pdf"):
            break
        dist = None
    if dist is None:
        raise BaccError("plot_difference needs a comparison result with a 'difference' distribution")
    p = getattr(comparison, "p_better", None)
    if p is None:
        p = float(dist.sf(0.0))
    rope = float(getattr(comparison, "rope", 0.0) or 0.0)
    return dist, float(p), rope


def plot_difference(
    comparison,
    *,
    names: Sequence[str] | None = None,
    confidence: float | None = None,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Density of the difference of two balanced accuracies with P(A > B) (Carrillo et al. (2014), Fig. 5).

    Parameters
    ----------
    comparison : result of :func:`bacc.compare` or :func:`bacc.compare_paired`
        Needs ``difference`` (distribution object of ``lambda_A - lambda_B``), ``p_better`` and
        optionally ``rope`` and ``confidence``.
    names : (str, str), optional
        Names of A and B (default the comparison's ``names``, else ``("A", "B")``).
    confidence : float, optional
        Mass of the shaded central interval (default the comparison's, else 0.95).
    title : str, optional
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes: density, shaded central interval, a line at 0, the rope band when
        ``rope > 0``, the posterior mean, and the text ``P(A > B) = ...``.
    """
    dist, p_better, rope = _diff_parts(comparison)
    c = confidence if confidence is not None else getattr(comparison, "confidence", 0.95) or 0.95
    if names is None:
        names = tuple(getattr(comparison, "names", None) or ("A", "B"))
    a_name, b_name = (_short(n, 16 if (width or 5.2) < 4.5 else 24) for n in names)
    lo, hi = _dist_range(dist)
    span = hi - lo
    if lo - 0.5 * span <= 0.0 <= hi + 0.5 * span:
        lo, hi = min(lo, -0.03 * span), max(hi, 0.03 * span)
    if rope > 0:
        lo, hi = min(lo, -1.2 * rope), max(hi, 1.2 * rope)
    x, y = _density(dist, lo, hi)
    il, ih = (float(v) for v in dist.interval(c))
    fig = _new_figure(width or 5.2, 3.8 if (width or 5.2) >= 4.5 else 4.2)
    ax = fig.subplots()
    ax.plot(x, y, color=GREEN, lw=1.8, label=f"posterior of {a_name} - {b_name}")
    ax.fill_between(x, 0, np.nan_to_num(y), where=(x >= il) & (x <= ih), color=GREEN, alpha=0.25,
                    lw=0, label=f"{fmt.percent(c)} interval {fmt.interval(il, ih, 3)}")
    mean = float(dist.mean())
    ax.axvline(mean, color=INK, lw=1.3, label=f"mean {fmt.number(mean, 3)}")
    if lo <= 0.0 <= hi:
        ax.axvline(0.0, color=GREY, lw=1.2, ls="-.", label="no difference")
    if rope > 0:
        ax.axvspan(-rope, rope, color=GREY, alpha=0.15, lw=0, label=f"practically equal (+-{rope:g})")
    _cap_density(ax, y)
    ax.set_xlim(lo, hi)
    ax.set_xlabel(f"difference of balanced accuracies, {a_name} - {b_name}"
                  if len(a_name) + len(b_name) < 24 else "difference of balanced accuracies")
    ax.set_ylabel("density")
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False,
               ncols=1 if (width or 5.2) < 4.5 else 2)
    ax.spines[["top", "right"]].set_visible(False)
    if title:
        fig.suptitle(_t(title), fontsize=TITLE, x=0.02, ha="left")
    head = f"P({a_name} > {b_name}) {fmt.p_phrase(p_better)}"
    p_rope = getattr(comparison, "p_rope", None)
    if rope > 0 and p_rope is not None:
        # the probability of practical equivalence, beside the band it measures
        head += f"\nP(|{a_name} - {b_name}| <= {rope:g}) {fmt.p_phrase(float(p_rope))}"
    ax.set_title(head, fontsize=TITLE, fontweight="bold", loc="left")
    return _finish(fig)


# ----------------------------------------------------------------------------------------------
def plot_forest(
    evaluations: Sequence[Evaluation] | Mapping[str, Evaluation],
    *,
    names: Sequence[str] | None = None,
    exact: Sequence[Any] | None = None,
    sort: bool = False,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Forest plot: the balanced accuracy of many classifiers or groups, one row each.

    Parameters
    ----------
    evaluations : sequence of Evaluation, or mapping name -> Evaluation
    names : sequence of str, optional
    exact : sequence of Interval, optional
        Exact interval per row, drawn as a wide pale bar behind the credible interval.
    sort : bool
        Order rows by posterior mean (best at the top) instead of input order.
    title : str, optional
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes: per row a dot at the posterior mean, a line for the central credible interval,
        a pale bar for the exact interval (when given), and a cross at the sample balanced
        accuracy; a vertical line at chance.
    """
    evs, names = _named(evaluations, names)
    ex = list(exact) if exact is not None else [None] * len(evs)
    if len(ex) != len(evs):
        raise BaccError(f"exact has {len(ex)} entries for {len(evs)} evaluations")
    order = list(range(len(evs)))
    if sort:
        order.sort(key=lambda i: -evs[i].balanced_accuracy_summary.mean)
    n = len(evs)
    w = width or 5.2
    fig = _new_figure(w, (1.5 if w >= 4.5 else 2.0) + 0.3 * n)
    ax = fig.subplots()
    ys = np.arange(n)[::-1]
    lab_done: set[str] = set()

    def once(label: str) -> str | None:
        if label in lab_done:
            return None
        lab_done.add(label)
        return label

    chances = set()
    for y, i in zip(ys, order, strict=True):
        ev = evs[i]
        s = ev.balanced_accuracy_summary
        if ex[i] is not None:
            ax.barh(y, ex[i].upper - ex[i].lower, left=ex[i].lower, height=0.6, color=EXACT,
                    alpha=0.3, lw=0, label=once(f"exact {fmt.percent(ex[i].confidence)} interval"))
        ax.hlines(y, s.lower, s.upper, color=GREEN, lw=2.2,
                  label=once(f"{fmt.percent(s.confidence)} credible interval"))
        ax.plot([s.mean], [y], "o", color=GREEN, ms=5, label=once("posterior mean"))
        ax.plot([ev.sample_balanced_accuracy], [y], "x", color=INK, ms=5, label=once("sample value"))
        chances.add(round(ev.chance, 12))
    xs = [v for i in order for v in (evs[i].balanced_accuracy_summary.lower,
                                     evs[i].balanced_accuracy_summary.upper,
                                     evs[i].sample_balanced_accuracy)]
    xs += [v for e in ex if e is not None for v in (e.lower, e.upper)]
    lo, hi = min(xs), max(xs)
    span = max(hi - lo, 0.02)
    far = []
    for ch in sorted(chances):
        if ch >= lo - 0.3 * span:
            ax.axvline(ch, color=GREY, ls="-.", lw=1.0, label=once("chance"))
            lo = min(lo, ch)
        else:
            far.append(ch)
    ax.set_xlim(max(0.0, lo - 0.05 * span), min(1.0, hi + 0.05 * span) + 0.01 * span)
    note = f"\n(chance {', '.join(fmt.significant(c, 3) for c in far)}: left of this range)" if far else ""
    ax.set_yticks(ys, [_short(names[i], 22 if w < 4.5 else 40) for i in order], fontsize=SMALL)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("balanced accuracy")
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=2 if w < 4.5 else 3)
    ax.spines[["top", "right"]].set_visible(False)
    # a figure title, from the figure's left edge: long names push the axes far to the right
    fig.suptitle((_t(title) if title else "balanced accuracy") + note, fontsize=TITLE, x=0.02,
                 ha="left")
    return _finish(fig)


# ----------------------------------------------------------------------------------------------
def plot_population(pop, *, limit: int = 30, width: float | None = None) -> Figure:
    """The population balanced accuracy and every subject's, under a mixed-effects model.

    Parameters
    ----------
    pop : bacc.mixed_effects.Population
    limit : int
        At most this many subjects are drawn (those with the lowest shrunken means first).
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        Top: the posterior density of the population balanced accuracy with its central
        credible interval shaded and the pooled (fixed-effects) interval as a bar. Bottom: per
        subject, its own posterior interval (grey, this subject alone) and its shrunken one
        (green, under the model), with the sample value as a cross.
    """
    subjects = list(pop.subjects)
    if len(subjects) > limit:
        subjects = sorted(subjects, key=lambda s: s.shrunken.mean)[:limit]
    n = len(subjects)
    w = width or 5.2
    fig = _new_figure(w, 2.4 + 0.26 * n)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1.6, max(1.0, 0.26 * n)])
    what = "accuracy" if len(pop.labels) == 1 else "balanced accuracy"
    s = pop.summary
    xs = [s.lower, s.upper, pop.fixed_effects.lower, pop.fixed_effects.upper]
    xs += [v for r in subjects for v in (r.independent.lower, r.independent.upper,
                                         r.shrunken.lower, r.shrunken.upper)]
    lo, hi = min(xs), max(xs)
    d_lo, d_hi = _dist_range(pop.balanced_accuracy, 1e-3)
    span = max(hi - lo, 0.02)
    lo = max(0.0, min(lo - 0.05 * span, d_lo))
    hi = min(1.0, max(hi + 0.05 * span, d_hi))
    x, y = _density(pop.balanced_accuracy, lo, hi)
    top.plot(x, y, color=GREEN, lw=1.8, label=f"population {what}")
    inside = (x >= s.lower) & (x <= s.upper)
    top.fill_between(x[inside], y[inside], color=GREEN, alpha=0.2,
                     label=f"{fmt.percent(s.confidence)} credible interval")
    f = pop.fixed_effects
    ymax = float(np.nanmax(y))
    top.hlines(-0.08 * ymax, f.lower, f.upper, color=BLUE, lw=3, label="pooled (fixed effects)")
    if not _chance_line(top, pop.chance, lo, hi):
        top.add_line(_chance_entry(pop.chance, lo, hi, False))  # named in the legend only
    top.set_ylim(-0.16 * ymax, 1.12 * ymax)
    top.set_yticks([])
    top.spines[["top", "right", "left"]].set_visible(False)
    ys = np.arange(n)[::-1]
    for yy, r in zip(ys, subjects, strict=True):
        bottom.hlines(yy + 0.15, r.independent.lower, r.independent.upper, color=GREY, lw=1.6,
                      label="own (this subject alone)" if yy == ys[0] else None)
        bottom.hlines(yy - 0.15, r.shrunken.lower, r.shrunken.upper, color=GREEN, lw=2.2,
                      label="shrunken (under the model)" if yy == ys[0] else None)
        bottom.plot([r.shrunken.mean], [yy - 0.15], "o", color=GREEN, ms=4)
        bottom.plot([r.sample_balanced_accuracy], [yy + 0.15], "x", color=INK, ms=4,
                    label="sample value" if yy == ys[0] else None)
    if lo <= pop.chance <= hi:
        bottom.axvline(pop.chance, color=GREY, ls="-.", lw=1.0)
    bottom.set_yticks(ys, [_short(r.subject, 22 if w < 4.5 else 40) for r in subjects],
                      fontsize=SMALL)
    bottom.set_ylim(-0.7, n - 0.3)
    bottom.set_xlim(lo, hi)
    bottom.set_xlabel(what)
    bottom.spines[["top", "right"]].set_visible(False)
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=1 if w < 4.5 else 2)
    more = f" ({n} of {len(pop.subject_names)}: lowest first)" if n < len(pop.subject_names) else ""
    fig.suptitle(f"population and subjects{more}", fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)


def plot_precision_prevalence(
    curve: Mapping[str, Any],
    *,
    prevalence: float | None = None,
    test_prevalence: float | None = None,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Precision against the prevalence it will meet, with its credible band and exact interval.

    Parameters
    ----------
    curve : mapping
        The result of :func:`bacc.metric_posterior.precision_curve`: ``prevalence``,
        ``median``, ``lower``, ``upper``, ``exact_lower``, ``exact_upper``.
    prevalence : float, optional
        A deployment prevalence to mark.
    test_prevalence : float, optional
        The test set's prevalence, to mark.
    title : str, optional
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, logarithmic prevalence: the posterior median, the shaded central credible
        band and the exact (union of Clopper-Pearson) interval as dashed lines.
    """
    x = np.asarray(curve["prevalence"], dtype=float)
    w = width or 5.2
    fig = _new_figure(w, 3.9 if w >= 4.5 else 4.2)
    ax = fig.subplots()
    ax.fill_between(x, curve["lower"], curve["upper"], color=GREEN, alpha=0.25, lw=0,
                    label="credible interval")
    ax.plot(x, curve["median"], color=GREEN, lw=1.8, label="posterior median")
    ax.plot(x, curve["exact_lower"], color=EXACT, lw=1.2, ls="--", label="exact interval")
    ax.plot(x, curve["exact_upper"], color=EXACT, lw=1.2, ls="--")
    if test_prevalence is not None:
        ax.axvline(test_prevalence, color=GREY, lw=1.0, ls=":", label="test set's prevalence")
    if prevalence is not None:
        ax.axvline(prevalence, color=INK, lw=1.2, ls="-.", label=f"prevalence {prevalence:g}")
    ax.set_xscale("log")
    ax.set_xlim(x.min(), x.max())
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("prevalence of the positive class (log scale)")
    ax.set_ylabel("precision")
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=2)
    fig.suptitle(_t(title) if title else "precision at the prevalence it will meet",
                 fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)


def plot_sequence(
    seq,
    *,
    fixed: tuple | None = None,
    truth: float | None = None,
    log_x: bool = True,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """An anytime-valid confidence sequence over the labels of a stream, optionally beside the
    fixed-n exact interval recomputed at every look and the true value.

    Parameters
    ----------
    seq : bacc.ConfidenceSequence
        From :func:`bacc.confidence_sequence`.
    fixed : (lower, upper), optional
        The fixed-n interval at each look of ``seq``
        (:func:`bacc.anytime.fixed_n_bounds`), drawn dashed; the looks where it excludes
        ``truth`` are marked.
    truth : float, optional
        The true value (in a simulation), drawn as a line.
    log_x : bool
        Logarithmic number of labels (default).
    title : str, optional
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes: the sequence as a shaded band, the estimate as a thin line.
    """
    n = np.asarray(seq.n, dtype=float)
    what = "balanced accuracy" if seq.metric == "balanced_accuracy" else "accuracy"
    w = width or 5.2
    fig = _new_figure(w, 3.7 if w >= 4.5 else 4.0)
    ax = fig.subplots()
    level = fmt.percent(seq.confidence, precise=True)
    ax.fill_between(n, seq.lower, seq.upper, color=GREEN, alpha=0.25, lw=0, step="post",
                    label=f"{level} anytime-valid sequence"
                          + (" (betting)" if seq.method == "betting" else ""))
    ax.plot(n, seq.estimate, color=GREEN, lw=0.9, label=f"sample {what}")
    if fixed is not None:
        lo, hi = (np.asarray(v, dtype=float) for v in fixed)
        if lo.shape != n.shape or hi.shape != n.shape:
            raise BaccError("fixed must be (lower, upper) with one value per look of the sequence")
        ax.plot(n, lo, color=EXACT, lw=1.0, ls="--", label=f"{level} fixed-n exact interval")
        ax.plot(n, hi, color=EXACT, lw=1.0, ls="--")
        if truth is not None:
            miss = (lo > truth) | (hi < truth)
            if miss.any():
                ax.plot(n[miss], np.full(int(miss.sum()), truth), "|", color=RED, ms=7,
                        label="fixed-n interval excludes the truth")
    if truth is not None:
        ax.axhline(truth, color=INK, lw=1.0, ls=":", label=f"true {what}")
    if log_x and n.min() > 0:
        ax.set_xscale("log")
    ax.set_xlim(n.min(), n.max())
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("labels seen")
    ax.set_ylabel(what)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=2)
    fig.suptitle(_t(title) if title else f"{what}, valid at every look",
                 fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)


# ----------------------------------------------------------------------------------------------
def plot_confusion(
    confusion: ConfusionMatrix | Evaluation,
    *,
    normalize: bool = True,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Heat map of a confusion matrix (rows = true class, columns = predicted class).

    Parameters
    ----------
    confusion : ConfusionMatrix or Evaluation
    normalize : bool
        Colour by the share of each true class (row); the counts are written in the cells
        (up to 25 classes at the default width; fewer when the cells are too small for text).
    title : str, optional
    width : float, optional
        Width in inches (default from the number of classes; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One image axes plus a colour bar; axis labels "predicted class" and "true class".
    """
    cm = getattr(confusion, "confusion", confusion)
    counts = np.asarray(cm.counts, dtype=float)
    l = counts.shape[0]  # noqa: E741 - the papers' name for the number of classes
    sup = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        shown = np.where(sup > 0, counts / np.where(sup > 0, sup, 1), 0.0) if normalize else counts
    size = min(5.2, max(3.0, 0.28 * l + 2.2)) if width is None else width - 0.9
    fig = _new_figure(size + 0.9, size)
    ax = fig.subplots()
    im = ax.imshow(shown, cmap="Blues", vmin=0, vmax=1 if normalize else None, aspect="equal")
    # a count is written only where a cell is wide enough for it at the SMALL size
    if l <= 25 and (size - 1.0) * 72 / l >= SMALL * 0.62 * len(str(int(counts.max(initial=0)))) + 2:
        hi = np.nanmax(shown) if shown.size else 1
        for i in range(l):
            for j in range(l):
                v = int(counts[i, j])
                ax.text(j, i, f"{v}", ha="center", va="center", fontsize=SMALL,
                        color="white" if shown[i, j] > 0.55 * (1 if normalize else hi) else INK)
    ticks = [_short(x, 20) for x in cm.labels]
    fs = SMALL
    ax.set_xticks(range(l), ticks, fontsize=fs, rotation=45 if max(map(len, ticks)) > 3 else 0,
                  ha="right" if max(map(len, ticks)) > 3 else "center")
    ax.set_yticks(range(l), ticks, fontsize=fs)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label("share of the true class" if normalize else "count", fontsize=SMALL)
    ax.set_title(_t(title) if title else "confusion matrix", fontsize=TITLE, loc="left")
    return _finish(fig)


# ----------------------------------------------------------------------------------------------
def figure_svg(fig: Figure, *, id_prefix: str = "f", alt: str = "") -> str:
    """Render a figure as an inline ``<svg>`` element (no XML prologue, no fixed size).

    Element ids are prefixed with ``id_prefix`` so that several figures can live in one HTML
    page without clashing; width and height are removed so CSS can scale the picture (the
    ``viewBox`` keeps its proportions). Text stays text (searchable, escaped by matplotlib).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    id_prefix : str
        Letters and digits only; unique per figure in a page.
    alt : str
        Accessible description (escaped), placed in ``aria-label`` and ``<title>``.

    Returns
    -------
    str
        ``<svg ...>...</svg>``
    """
    import html
    import io
    import re

    matplotlib, _ = _mpl()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", id_prefix):
        raise BaccError(f"id_prefix must be letters and digits, got {id_prefix!r}")
    from matplotlib.text import Text

    from .text import visible

    for t in fig.findobj(Text):  # labels with control characters are drawn escaped
        shown = t.get_text()
        if shown and not shown.isprintable():
            t.set_text(visible(shown, keep="\t\n"))
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "bacc"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    svg = visible(buf.getvalue(), keep="\t\n")
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if ids:
        pattern = re.compile(r'(\bid="|#)(' + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)) + r')\b')
        svg = pattern.sub(lambda m: f"{m.group(1)}{id_prefix}-{m.group(2)}", svg)
    head_end = svg.index(">")
    head = svg[:head_end]
    head = re.sub(r'\s(width|height)="[^"]*"', "", head)
    label = html.escape(alt, quote=True)
    head += f' role="img" aria-label="{label}" preserveAspectRatio="xMidYMid meet"'
    body = svg[head_end:]
    if alt:
        body = f"><title>{label}</title>" + body[1:]
    return head + body.strip()


# ----------------------------------------------------------------------------------------------
def plot_timeline(
    monitoring: Any,
    detector: Any,
    *,
    title: str | None = None,
    width: float | None = None,
) -> Figure:
    """Timeline of one detector under monitoring: each window's balanced accuracy and alarms.

    Parameters
    ----------
    monitoring : Monitoring
        A result of :func:`bacc.monitor`.
    detector : object
        One of ``monitoring.detectors``.
    title : str, optional
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        Top: per window the exact interval (pale band), the credible interval (green band),
        the posterior mean (green dots), the baseline (grey dashes) and alarming windows (red
        triangles); under ``rule="anytime"`` also its threshold and the anytime upper bound
        pooled since the first watched window (the sequence narrowing). Bottom: ``P(worse)``
        per window with the alarm threshold of the posterior rule.

    Examples
    --------
    >>> import bacc
    >>> m = bacc.monitor("log.parquet", true="label", pred="predicted", time="ts",
    ...                  by="detector")                            # doctest: +SKIP
    >>> fig = plot_timeline(m, m.alarms[0])                        # doctest: +SKIP
    >>> fig.savefig("timeline.png")                                # doctest: +SKIP
    """
    _, _ = _mpl()
    import matplotlib.dates as mdates

    t = monitoring.timeline(detector)
    if len(t) == 0:
        raise BaccError(f"detector {detector!r} has no windows")
    x = t.start.astype("datetime64[us]")
    w = width or 5.2
    fig = _new_figure(w, 3.6 if w >= 4.5 else 3.9)
    ax, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=(2.2, 1.0))
    pct = fmt.percent(t.confidence)
    ax.fill_between(x, t.exact_lower, t.exact_upper, step="mid", color=EXACT, alpha=0.22, lw=0,
                    label=f"exact {pct}")
    ax.fill_between(x, t.lower, t.upper, step="mid", color=GREEN, alpha=0.35, lw=0,
                    label=f"credible {pct}")
    ax.plot(x, t.mean, "o-", color=GREEN, ms=2.5, lw=0.9, label="posterior mean")
    if np.isfinite(t.baseline_mean).any():
        ax.plot(x, t.baseline_mean, "--", color=GREY, lw=1.1, drawstyle="steps-mid", label="baseline")
    if np.isfinite(getattr(t, "anytime_level", math.nan)):
        # the anytime rule: its threshold, and the sequence since the first watched window
        # narrowing as the windows add up
        xs, upper = monitoring.sequence(detector)
        if upper.size:
            ax.plot(xs.astype("datetime64[us]"), upper, color=RED, lw=1.1, drawstyle="steps-post",
                    label="anytime upper bound, pooled")
        ax.plot(x, t.threshold, ":", color=RED, lw=1.0, label="alarm below")
    al = np.flatnonzero(t.alarm)
    if al.size:
        top = np.nanmax(t.exact_upper)
        ax.plot(x[al], np.full(al.size, top), "v", color=RED, ms=5, label="alarm")
        for i in al:
            ax2.axvline(x[i], color=RED, alpha=0.25, lw=2)
    ax.set_ylabel("balanced acc.")
    ax.spines[["top", "right"]].set_visible(False)
    ax2.plot(x, t.p_worse, ".-", color=INK, ms=2.5, lw=0.8)
    ax2.axhline(t.alarm_at, color=RED, ls=":", lw=1.0)
    ax2.set_ylim(-0.03, 1.03)
    ax2.set_ylabel("P(worse)")
    ax2.spines[["top", "right"]].set_visible(False)
    loc = mdates.AutoDateLocator(maxticks=4 if w < 4.5 else 7)
    ax2.xaxis.set_major_locator(loc)
    ax2.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=3)
    from .monitoring_text import detector_name, window_words

    head = (_t(title) if title
            else f"{detector_name(detector)}: balanced accuracy per {window_words(t.window)} window")
    fig.suptitle(head, fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)
