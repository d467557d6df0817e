"""Pictures of the comparisons and rankings across data sets (:mod:`bacc.across`).

matplotlib is optional and imported inside the functions (:mod:`bacc.display.plot`'s
plumbing, colours and font scale). Presentation only: every number drawn is an attribute of
the result or a value of its distribution objects (``pdf``, ``interval``, ``ppf``).

- :func:`plot_across_comparison`: the posterior density of the population difference with the
  region of practical equivalence, the difference on a new data set (dashed), and each data
  set's own and shrunken difference as a forest (marker area by examples).
- :func:`plot_across_ranking`: the ranking that replaces the critical-difference diagram
  (Demšar 2006, section 3.2.4): classifiers by expected rank, each with its rank
  distribution (dot area = probability of each rank), P(best) beside, bars joining the
  classifiers that cannot be told apart, and the classical average ranks with Nemenyi's
  critical difference as a labelled reference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import numbers as fmt
from .plot import (
    BLUE,
    EXACT,
    GREEN,
    GREY,
    INK,
    SMALL,
    TITLE,
    _density,
    _dist_range,
    _finish,
    _new_figure,
    _short,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_across_comparison", "plot_across_ranking"]

#: Tag (matplotlib ``gid``) of the artists that tests and readers of the SVG can find.
GID_FOREST = "across-data-set"
GID_SHRUNKEN = "across-shrunken"
GID_GROUP = "across-group"
GID_CD = "across-critical-difference"
GID_P_BEST = "across-p-best"


def _own_interval(d) -> tuple[float, float, str]:
    """A data set's own interval as the result gives it, and how to call it."""
    return float(d.lower), float(d.upper), "own (this data set alone)"


def plot_across_comparison(result, *, width: float | None = None, title: str | None = None) -> Figure:
    """The comparison of two classifiers across data sets.

    Parameters
    ----------
    result : AcrossComparison
        Of :func:`bacc.compare_across`.
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Top: the posterior density of the population difference (``result.difference``) with
        its central credible interval shaded, the rope band, and the difference on a new data
        set (``result.predictive``, dashed). Bottom: one row per data set (``gid``
        ``"across-data-set"``): its own difference (grey, this data set alone) and its shrunken
        difference under the model (green, with its credible interval, the marker's ``gid``
        ``"across-shrunken"``); marker area grows with the data set's examples.
    """
    w = width or 5.2
    narrow = w < 4.5
    a, b = (_short(n, 14 if narrow else 22) for n in result.names)
    per = list(result.data_set_differences)
    m = len(per)
    fig = _new_figure(w, 2.6 + 0.24 * m + (0.5 if narrow else 0.0))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1.5, max(1.0, 0.24 * m)])
    own = [_own_interval(d) for d in per]
    xs = [result.lower, result.upper, -result.rope, result.rope]
    xs += [v for d, o in zip(per, own, strict=True)
           for v in (o[0], o[1], d.shrunken_lower, d.shrunken_upper)]
    p_lo, p_hi = _dist_range(result.predictive, 1e-3)
    lo, hi = min(min(xs), p_lo), max(max(xs), p_hi)
    pad = 0.04 * max(hi - lo, 1e-6)
    lo, hi = lo - pad, hi + pad
    x, y = _density(result.difference, lo, hi)
    top.plot(x, y, color=GREEN, lw=1.8, label="population difference")
    inside = (x >= result.lower) & (x <= result.upper)
    top.fill_between(x[inside], y[inside], color=GREEN, alpha=0.2, lw=0,
                     label=f"{fmt.percent(result.confidence)} credible interval")
    xp, yp = _density(result.predictive, lo, hi)
    top.plot(xp, yp, color=BLUE, lw=1.4, ls="--", label="on a new data set")
    if result.rope > 0:
        top.axvspan(-result.rope, result.rope, color=GREY, alpha=0.18, lw=0,
                    label=f"practically equal (±{result.rope:g})")
    top.axvline(0.0, color=GREY, lw=1.0, ls="-.")
    top.set_ylim(0, 1.12 * float(np.nanmax(y)))
    top.set_yticks([])
    top.spines[["top", "right", "left"]].set_visible(False)
    n = np.array([d.n_examples for d in per], dtype=float)
    area = 10.0 + 70.0 * np.sqrt(n / max(float(n.max()), 1.0))  # marker area by examples
    ys = np.arange(m)[::-1]
    own_label = own[0][2] if own else "own"
    for k, (yy, d, o) in enumerate(zip(ys, per, own, strict=True)):
        first = k == 0
        bottom.hlines(yy + 0.17, o[0], o[1], color=GREY, lw=1.6, gid=GID_FOREST,
                      label=own_label if first else None)
        bottom.scatter([d.mean], [yy + 0.17], s=area[k], color=GREY, zorder=3)
        bottom.hlines(yy - 0.17, d.shrunken_lower, d.shrunken_upper, color=GREEN, lw=2.2,
                      label="shrunken (under the model)" if first else None)
        bottom.scatter([d.shrunken_mean], [yy - 0.17], s=area[k], color=GREEN, zorder=3,
                       gid=GID_SHRUNKEN)
    bottom.axvline(0.0, color=GREY, lw=1.0, ls="-.")
    if result.rope > 0:
        bottom.axvspan(-result.rope, result.rope, color=GREY, alpha=0.12, lw=0)
    bottom.set_yticks(ys, [f"{_short(d.data_set, 18 if narrow else 30)} ({d.n_examples})"
                           for d in per], fontsize=SMALL)
    bottom.set_ylim(-0.7, m - 0.3)
    bottom.set_xlim(lo, hi)
    bottom.set_xlabel("difference, A - B")
    bottom.spines[["top", "right"]].set_visible(False)
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=1 if narrow else 2)
    probs = (f"P(A better) {fmt.p_phrase(result.p_right)}, P(equal) "
             f"{fmt.p_phrase(result.p_rope)}, P(B better) {fmt.p_phrase(result.p_left)}")
    fig.suptitle((title or f"A = {a} vs B = {b} across {m} data sets "
                                  "(marker area: examples)") + "\n" + probs,
                 fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)


def plot_across_ranking(result, *, width: float | None = None, title: str | None = None) -> Figure:
    """The ranking of several classifiers across data sets, in place of a critical-difference
    diagram.

    Parameters
    ----------
    result : AcrossRanking
        Of :func:`bacc.rank_across`.
    width : float, optional
        Width in inches (default 5.2; the report uses 3.5).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One axes, x the rank (1 = best), one row per classifier from the best expected rank:
        the probability of each rank as the area of a grey dot
        (``result.rank_probabilities``), the expected rank as a green diamond, the classical
        average rank of the sample balanced accuracies as a cross, P(best) written on the
        right (``gid`` ``"across-p-best"``); left of rank 1 a vertical bar (``gid`` ``"across-group"``) for each group of
        ``result.groups``; above the rows, Nemenyi's critical difference of average ranks from
        rank 1 (``gid`` ``"across-critical-difference"``, named in the legend as "classical
        (Demšar 2006)") when there are three classifiers or more.
    """
    w = width or 5.2
    narrow = w < 4.5
    T = len(result.names)
    order = [int(i) for i in result.order]
    row_of = {result.names[i]: T - 1 - k for k, i in enumerate(order)}  # best at the top
    cd = result.classical.critical_difference
    fig = _new_figure(w, 1.7 + 0.42 * T + (0.5 if narrow else 0.0))
    ax = fig.subplots()
    ranks = np.arange(1, T + 1)
    for k, i in enumerate(order):
        yy = T - 1 - k
        ax.scatter(ranks, np.full(T, yy), s=260.0 * np.asarray(result.rank_probabilities[i]),
                   color=GREY, alpha=0.55, lw=0, label="P(rank): dot area" if k == 0 else None)
        ax.plot([result.expected_rank[i]], [yy], "D", color=GREEN, ms=6,
                label="expected rank" if k == 0 else None)
        ax.plot([result.classical.average_ranks[i]], [yy], "x", color=INK, ms=6,
                label="average rank (classical)" if k == 0 else None)
        ax.annotate(fmt.number(result.p_best[i], 3), xy=(1.0, yy), xycoords=("axes fraction", "data"),
                    xytext=(4, 0), textcoords="offset points", va="center", fontsize=SMALL,
                    annotation_clip=False, gid=GID_P_BEST)
    groups = list(result.groups)
    gx = [0.45 - 0.14 * g for g in range(len(groups))]
    for g, members in enumerate(groups):
        rows = [row_of[n] for n in members]
        ax.plot([gx[g], gx[g]], [min(rows) - 0.2, max(rows) + 0.2], color=EXACT, lw=3,
                solid_capstyle="round", gid=GID_GROUP,
                label="cannot be told apart" if g == 0 else None)
    top = T - 0.4
    if cd is not None:
        y_cd = T - 0.3
        ax.errorbar([1.0 + cd / 2], [y_cd], xerr=[[cd / 2], [cd / 2]], color=INK, lw=1.2,
                    capsize=3, gid=GID_CD,
                    label=f"CD {cd:.2f}: Nemenyi's critical\ndifference, classical (Demšar 2006)")
        ax.annotate("CD", xy=(1.0 + cd, y_cd), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=SMALL)
        top = T + 0.1
    ax.annotate("P(best)", xy=(1.0, top), xycoords=("axes fraction", "data"), xytext=(4, 0),
                textcoords="offset points", va="top", fontsize=SMALL, fontweight="bold",
                annotation_clip=False)
    left = (min(gx) - 0.15) if gx else 0.5
    ax.set_xlim(left, T + 0.5)
    ax.set_ylim(-0.6, top)
    ax.set_xticks(ranks)
    ax.set_yticks([T - 1 - k for k in range(T)],
                  [_short(result.names[i], 14 if narrow else 28) for i in order], fontsize=SMALL)
    ax.set_xlabel("rank (1 = best)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color=GREY, alpha=0.2, lw=0.6)
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=1 if narrow else 2)
    fig.suptitle(title or f"{T} classifiers ranked across {len(result.data_sets)} data sets",
                 fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)
