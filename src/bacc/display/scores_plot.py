"""Pictures of scores and thresholds: the balanced accuracy at every threshold with its bands,
and the ROC curve with its simultaneous band.

matplotlib is optional and imported inside the functions (:mod:`bacc.display.plot`'s plumbing,
colours and font scale). Presentation only: every number drawn is an attribute of a result
(:class:`bacc.ThresholdCurve`, :class:`bacc.RocCurve`, :class:`bacc.AucInterval`);
:func:`plot_scores` asks a :class:`bacc.ScoreCurve` for them when they are not given.

- :func:`plot_threshold_curve`: the posterior mean of the balanced accuracy against the
  threshold with its credible band (green), the exact pointwise bounds (orange, dashed), the
  simultaneous band (grey), the sample values (thin line) and the best threshold marked.
- :func:`plot_roc`: the sample ROC curve, its simultaneous band and the AUC.
- :func:`plot_scores`: both, side by side (one above the other when narrow).

Every function returns the :class:`matplotlib.figure.Figure`; :func:`plot_threshold_curve` and
:func:`plot_roc` draw into a given ``ax`` instead of a new figure.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from . import numbers as fmt
from .plot import EXACT, GREEN, GREY, INK, SMALL, TITLE, _finish, _new_figure, _t

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_roc", "plot_scores", "plot_threshold_curve"]

#: Tags (matplotlib ``gid``) of the artists that tests and readers of the SVG can find.
GID_BEST = "scores-best-threshold"
GID_CREDIBLE = "scores-credible-band"
GID_EXACT = "scores-exact-band"
GID_SIMULTANEOUS = "scores-simultaneous-band"
GID_ROC = "scores-roc"
GID_ROC_BAND = "scores-roc-band"

BLUE_ROC = "#2471a3"


def _threshold(t: float) -> str:
    from .scores_text import threshold

    return threshold(t)


def _legend(fig, ax, given: bool, ncols: int) -> None:
    """The legend below the figure (a figure of ours), or in the axes (a given ``ax``)."""
    if given:
        ax.legend(fontsize=SMALL, frameon=False, loc="best")
    else:
        fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False, ncols=ncols)


def _axes(ax, width: float, height: float):
    if ax is not None:
        return ax.figure, ax, True
    fig = _new_figure(width, height)
    return fig, fig.subplots(), False


# ---------------------------------------------------------------------------- threshold curve
def _draw_threshold_curve(ax: Axes, tc, *, legend: bool = True) -> None:
    """The curve, its bands and the best threshold on ``ax`` (finite thresholds only)."""
    t = np.asarray(tc.thresholds, dtype=float)
    keep = np.isfinite(t)
    # increasing thresholds; the value at threshold x_i holds on (x_{i-1}, x_i] ("steps-pre")
    x = t[keep][::-1]

    def y(name: str) -> np.ndarray:
        return np.asarray(getattr(tc, name), dtype=float)[keep][::-1]

    pct = fmt.percent(tc.confidence)
    lab = (lambda s: s) if legend else (lambda s: None)  # noqa: E731
    ax.fill_between(x, y("band_lower"), y("band_upper"), step="pre", color=GREY, alpha=0.16,
                    lw=0, gid=GID_SIMULTANEOUS, label=lab(f"{pct} simultaneous band"))
    ax.fill_between(x, y("lower"), y("upper"), step="pre", color=GREEN, alpha=0.28, lw=0,
                    gid=GID_CREDIBLE, label=lab(f"{pct} credible band"))
    ax.plot(x, y("exact_lower"), drawstyle="steps-pre", color=EXACT, lw=1.0, ls="--",
            gid=GID_EXACT, label=lab(f"{pct} exact, pointwise"))
    ax.plot(x, y("exact_upper"), drawstyle="steps-pre", color=EXACT, lw=1.0, ls="--")
    ax.plot(x, y("mean"), drawstyle="steps-pre", color=GREEN, lw=1.6,
            label=lab("posterior mean"))
    ax.plot(x, y("balanced_accuracy"), drawstyle="steps-pre", color=INK, lw=0.6, alpha=0.7,
            label=lab("sample"))
    ax.axhline(0.5, color=GREY, lw=1.0, ls="-.", label=lab("chance 0.5"))
    b = tc.best
    tb = float(tc.thresholds[b])
    if math.isfinite(tb):
        ax.axvline(tb, color=INK, lw=0.8, ls=":")
        ax.errorbar([tb], [tc.mean[b]], yerr=[[tc.mean[b] - tc.lower[b]], [tc.upper[b] - tc.mean[b]]],
                    fmt="D", color=GREEN, mec=INK, ms=5, capsize=3, lw=1.4, gid=GID_BEST,
                    label=lab(f"best {_threshold(tb)}"))
    if x.size:
        lo, hi = float(x[0]), float(x[-1])
        pad = 0.02 * (hi - lo) if hi > lo else 0.5
        ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(f"threshold (score >= threshold predicts {_t(tc.positive)})")
    ax.set_ylabel("balanced accuracy")
    ax.spines[["top", "right"]].set_visible(False)


def _threshold_title(tc) -> str:
    b = tc.best
    return (f"balanced accuracy by threshold; best {_threshold(tc.thresholds[b])}: "
            f"{fmt.number(tc.mean[b], 3)} {fmt.interval(tc.lower[b], tc.upper[b], 3)}")


def plot_threshold_curve(tc, *, ax: Any = None, title: str | None = None,
                         width: float | None = None) -> Figure:
    """The balanced accuracy against the threshold, with its bands and the best threshold.

    Parameters
    ----------
    tc : ThresholdCurve
        Of :meth:`bacc.ScoreCurve.curve`.
    ax : matplotlib Axes, optional
        Draw here (the legend goes inside it) instead of a new figure.
    title : str, optional
    width : float, optional
        Width in inches of a new figure (default 5.2; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, x the threshold (finite thresholds; a step curve: the value at a threshold
        holds down to the next lower one): the posterior mean (green line) with its credible
        band (``gid`` ``"scores-credible-band"``), the exact pointwise bounds (orange dashes,
        ``"scores-exact-band"``), the simultaneous band (grey, ``"scores-simultaneous-band"``),
        the sample balanced accuracy (thin line), chance, and the best threshold with its
        credible interval (``"scores-best-threshold"``).
    """
    w = width or 5.2
    fig, ax, given = _axes(ax, w, 3.9 if w >= 4.5 else 4.3)
    _draw_threshold_curve(ax, tc)
    ax.set_title(_t(title) if title else _threshold_title(tc), fontsize=TITLE, loc="left")
    _legend(fig, ax, given, ncols=2 if w < 4.5 else 3)
    return _finish(fig)


# ---------------------------------------------------------------------------------------- ROC
def _draw_roc(ax: Axes, roc, *, auc=None, legend: bool = True) -> None:
    pct = fmt.percent(roc.confidence)
    lab = (lambda s: s) if legend else (lambda s: None)  # noqa: E731
    ax.fill_between(np.asarray(roc.band_fpr, dtype=float), np.asarray(roc.band_lower, dtype=float),
                    np.asarray(roc.band_upper, dtype=float), color=BLUE_ROC, alpha=0.18, lw=0,
                    step="post", gid=GID_ROC_BAND, label=lab(f"{pct} simultaneous ROC band"))
    ax.plot(np.asarray(roc.fpr, dtype=float), np.asarray(roc.tpr, dtype=float), color=BLUE_ROC,
            lw=1.6, gid=GID_ROC, label=lab(f"sample ROC, AUC {fmt.number(roc.auc, 3)}"))
    ax.plot([0, 1], [0, 1], color=GREY, lw=1.0, ls="-.", label=lab("chance (AUC 0.5)"))
    if auc is not None:
        ax.plot([], [], ls="", label=lab(f"AUC {auc.kind} {fmt.percent(auc.confidence)} "
                                         f"{fmt.interval(auc.lower, auc.upper, 3)}"))
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_box_aspect(1.0)
    ax.set_xlabel("false-positive rate (1 - specificity)")
    ax.set_ylabel("true-positive rate (sensitivity)")
    ax.spines[["top", "right"]].set_visible(False)


def _roc_title(roc, auc=None) -> str:
    head = f"ROC: AUC {fmt.number(roc.auc, 3)}"
    if auc is not None:
        head += f", {auc.kind} {fmt.interval(auc.lower, auc.upper, 3)}"
    return head


def plot_roc(roc, *, auc: Any = None, ax: Any = None, title: str | None = None,
             width: float | None = None) -> Figure:
    """The ROC curve with its simultaneous band and the AUC.

    Parameters
    ----------
    roc : RocCurve
        Of :meth:`bacc.ScoreCurve.roc`.
    auc : AucInterval, optional
        An AUC interval to name in the title and the legend (its kind spelled out).
    ax : matplotlib Axes, optional
        Draw here (the legend goes inside it) instead of a new figure.
    title : str, optional
    width : float, optional
        Width in inches of a new figure (default 4.4; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        One square axes: the sample curve (``gid`` ``"scores-roc"``), the simultaneous band
        (``"scores-roc-band"``) and the chance diagonal.
    """
    w = width or 4.4
    fig, ax, given = _axes(ax, w, w + 1.7)
    _draw_roc(ax, roc, auc=auc)
    ax.set_title(_t(title) if title else _roc_title(roc, auc), fontsize=TITLE, loc="left")
    _legend(fig, ax, given, ncols=1)
    return _finish(fig)


# ------------------------------------------------------------------------------------ both
def plot_scores(curve, *, confidence: float = 0.95, tc: Any = None, roc: Any = None,
                auc: Any = None, title: str | None = None, width: float | None = None) -> Figure:
    """The threshold curve with its bands and the best threshold, beside the ROC curve with its
    simultaneous band and the AUC.

    Parameters
    ----------
    curve : ScoreCurve
        Of :func:`bacc.scores`.
    confidence : float
        Of the bands and the AUC interval computed here (default 0.95).
    tc, roc, auc : ThresholdCurve, RocCurve, AucInterval, optional
        Results already computed (default: ``curve.curve(confidence=...)``,
        ``curve.roc(confidence=...)`` and ``curve.auc("band", confidence=...)``, the guaranteed
        interval).
    title : str, optional
    width : float, optional
        Width in inches (default 9; below 6 the two panels are stacked; the report uses 3.5).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the threshold curve (as :func:`plot_threshold_curve`) and the ROC (as
        :func:`plot_roc`).
    """
    tc = tc if tc is not None else curve.curve(confidence=confidence)
    roc = roc if roc is not None else curve.roc(confidence=confidence)
    auc = auc if auc is not None else curve.auc("band", confidence=confidence)
    w = width or 9.0
    stacked = w < 6.0
    fig = _new_figure(w, (2.3 * w + 1.6) if stacked else 0.5 * w + 0.9)
    if stacked:
        left, right = fig.subplots(2, 1, height_ratios=[1.0, 1.15])
    else:
        left, right = fig.subplots(1, 2, width_ratios=[1.45, 1.0])
    _draw_threshold_curve(left, tc)
    left.set_title(_threshold_title(tc), fontsize=TITLE, loc="left")
    _draw_roc(right, roc, auc=auc)
    right.set_title(_roc_title(roc, auc), fontsize=TITLE, loc="left")
    fig.legend(fontsize=SMALL, loc="outside lower center", frameon=False,
               ncols=1 if stacked else 4)
    name = getattr(curve, "name", None)
    head = title if title else (f"scores {name}" if name else None)
    if head:
        fig.suptitle(_t(head), fontsize=TITLE, x=0.02, ha="left")
    return _finish(fig)
