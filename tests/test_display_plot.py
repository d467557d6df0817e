"""Pictures (bacc.plot): each function returns a Figure with the elements it promises."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import bacc  # noqa: E402
from bacc.display import plot  # noqa: E402
from bacc.distributions import BetaSum  # noqa: E402
from bacc.errors import BaccError, MissingDependencyError  # noqa: E402
from bacc.intervals import (  # noqa: E402
    class_intervals,
    exact_interval,
    fold_sem_interval,  # noqa: E402
)

C1 = [[62, 8], [6, 64]]
C2 = [[42, 3], [6, 4]]
C1_FOLDS = [[[14, 0], [0, 14]], [[14, 0], [0, 14]], [[13, 1], [0, 14]], [[11, 3], [2, 12]],
            [[10, 4], [4, 10]]]


def texts(fig: Figure) -> str:
    """Every piece of text drawn in a figure (titles, labels, legends, annotations, ticks)."""
    fig.canvas.draw()
    return "\n".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))


def legend_texts(fig: Figure) -> list[str]:
    out = []
    for ax in fig.axes:
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    for leg in fig.legends:
        out += [t.get_text() for t in leg.get_texts()]
    return out


@pytest.fixture
def ev2():
    return bacc.evaluate(C2)


def test_posterior_density_marks_interval_mean_median_mode_and_chance(ev2):
    fig = plot.plot_posterior(ev2)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    ba, acc = fig.axes
    for ax, s in ((ba, ev2.balanced_accuracy_summary), (acc, ev2.accuracy_summary)):
        # density line + mean, median, mode and chance lines
        assert len(ax.lines) == 5
        xs = {round(float(ln.get_xdata()[0]), 12) for ln in ax.lines[1:]}
        assert {round(s.mean, 12), round(s.median, 12), round(s.mode, 12), 0.5} <= xs
        shaded = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(shaded) == 1
        verts = shaded[0].get_paths()[0].vertices
        assert verts[:, 0].min() == pytest.approx(s.lower, abs=2e-3)
        assert verts[:, 0].max() == pytest.approx(s.upper, abs=2e-3)
        assert ax.get_ylabel() == "density"
    assert acc.get_xlabel() == "value"
    title = " ".join(ba.get_title(loc="left").split())  # titles wrap to the figure's width
    assert "P(> chance 0.5) = 0.9955" in title
    assert "mean 0.666, 95% [0.534, 0.808]" in title
    labels = legend_texts(fig)
    assert {"mean", "median", "mode", "95% credible", "chance 0.5"} <= set(labels)
    # the legend is the figure's, below the axes: it cannot cover the density or chance line
    assert not any(ax.get_legend() for ax in fig.axes) and fig.legends


def test_posterior_density_names_a_far_away_chance_level():
    ev = bacc.evaluate(np.diag([500] * 10) + 1)  # 10 classes, accuracy ~0.98, chance 0.1
    fig = plot.plot_posterior(ev, measures="balanced_accuracy")
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert ax.get_xlim()[0] > 0.5  # the density is not squashed to show chance
    # named in the legend, where no density or axis line can run through the words
    assert "chance 0.1 (left of this range)" in legend_texts(fig)
    assert "<- chance" not in texts(fig) and not ax.texts


def test_population_names_a_far_away_chance_level_in_its_legend():
    pop = bacc.population([[[40, 5], [7, 48]], [[44, 7], [8, 41]], [[18, 2], [15, 65]],
                           [[30, 10], [12, 28]], [[25, 5], [6, 30]]])
    fig = plot.plot_population(pop, width=3.5)
    top = fig.axes[0]
    assert top.get_xlim()[0] > 0.5  # chance 0.5 lies left of the plotted range
    assert "chance 0.5 (left of this range)" in legend_texts(fig)
    assert "<- chance" not in texts(fig) and not top.texts


def test_measures_without_folds_draw_no_empty_entry():
    fig = plot.plot_measures([bacc.evaluate(C1), bacc.evaluate(C2)], names=["C1", "C2"])
    labels = legend_texts(fig)
    assert sorted(labels) == ["chance (1 / classes)", "posterior accuracy", "posterior balanced accuracy"]
    assert "no folds given" in fig.axes[0].get_title(loc="left").replace("\n", " ")


def test_posterior_density_of_a_perfect_classifier_is_finite():
    fig = plot.plot_posterior(bacc.evaluate([[30, 0], [0, 12]], prior="jeffreys"))
    for ax in fig.axes:
        lo, hi = ax.get_ylim()
        assert np.isfinite(hi) and hi > 0
        assert ax.get_xlim()[1] <= 1.0


def test_measures_show_both_flaws_of_seed_000():
    evs = [bacc.evaluate(C1), bacc.evaluate(C2)]
    folds = [fold_sem_interval(C1_FOLDS), None]
    fig = plot.plot_measures(evs, folds, names=["C1", "C2"])
    ax = fig.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 3 + 2  # C1: folds, accuracy, balanced accuracy; C2: no folds
    assert [t.get_text() for t in ax.get_xticklabels()] == ["C1", "C2"]
    # flaw 1: the fold interval passes 100% and is labelled as such, not clipped
    assert folds[0].upper > 1
    assert "101.4% > 100%" in texts(fig)
    assert ax.get_ylim()[1] > folds[0].upper
    # flaw 2: for C2 the accuracy interval is far above chance, the balanced one reaches down to it
    assert evs[1].accuracy_summary.lower > 0.7 and evs[1].balanced_accuracy_summary.lower < 0.55
    labels = legend_texts(fig)
    assert {"mean of folds +- 2 SEM", "posterior accuracy", "posterior balanced accuracy",
            "chance (1 / classes)"} <= set(labels)
    assert ax.get_ylabel() == "accuracy measure"


def test_measures_accept_a_mapping_and_reject_mismatched_lengths():
    fig = plot.plot_measures({"a": bacc.evaluate(C1)})
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["a"]
    with pytest.raises(BaccError):
        plot.plot_measures([bacc.evaluate(C1)], [None, None])
    with pytest.raises(BaccError):
        plot.plot_measures([])


def test_class_accuracies_draw_exact_bounds_as_bars(ev2):
    fig = plot.plot_class_accuracies(ev2)
    ax = fig.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 1 + 2  # balanced accuracy + one per class
    ex = exact_interval(C2)
    ci = class_intervals(C2)
    spans = sorted((round(b.get_x(), 10), round(b.get_x() + b.get_width(), 10)) for b in bars)
    want = sorted((round(lo, 10), round(hi, 10)) for lo, hi in
                  [(ex.lower, ex.upper)] + [(c.lower, c.upper) for c in ci])
    assert spans == want
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["balanced accuracy", "0  (42/45)", "1  (4/10)"]
    assert ax.get_xlabel() == "accuracy (recall of each class)"
    assert "66.7%  [44.9, 88.1]" in texts(fig)
    assert any("Clopper-Pearson" in t for t in legend_texts(fig))


def test_difference_density_states_p_a_better_b():
    # an independent difference lambda_A - lambda_B as a BetaSum with negative weights
    aa, ab, aw = bacc.evaluate(C1).balanced_accuracy.components
    ba, bb, bw = bacc.evaluate(C2).balanced_accuracy.components
    diff = BetaSum(np.r_[aa, ba], np.r_[ab, bb], np.r_[aw, -bw])
    comp = SimpleNamespace(difference=diff, p_better=float(diff.sf(0.0)), rope=0.02, confidence=0.95)
    fig = plot.plot_difference(comp, names=("C1", "C2"))
    ax = fig.axes[0]
    title = ax.get_title(loc="left")
    assert title in (f"P(C1 > C2) = {comp.p_better:.4f}", "P(C1 > C2) > 0.9999")
    assert ax.get_xlabel() == "difference of balanced accuracies, C1 - C2"
    xs = [float(ln.get_xdata()[0]) for ln in ax.lines[1:]]
    assert 0.0 in xs and any(abs(x - diff.mean()) < 1e-12 for x in xs)
    labels = legend_texts(fig)
    assert any(t.startswith("practically equal") for t in labels)
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 1


def test_difference_needs_a_distribution():
    with pytest.raises(BaccError, match="difference"):
        plot.plot_difference(SimpleNamespace(p_better=0.5))


def test_forest_has_one_row_per_classifier():
    mats = {"C1": C1, "C2": C2, "face/place": [[9, 1], [2, 8]]}
    evs = {k: bacc.evaluate(m) for k, m in mats.items()}
    exact = [exact_interval(m) for m in mats.values()]
    fig = plot.plot_forest(evs, exact=exact, sort=True)
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["C1", "face/place", "C2"]  # best posterior mean at the top
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines) == 3
    assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == 3
    assert ax.get_xlabel() == "balanced accuracy"


def test_forest_names_far_chance_instead_of_drawing_it():
    evs = [bacc.evaluate(np.diag([300] * 10) + 2), bacc.evaluate(np.diag([200] * 10) + 5)]
    fig = plot.plot_forest(evs, names=["a", "b"])
    assert fig.axes[0].get_xlim()[0] > 0.5
    assert "chance 0.1: left of this range" in " ".join(fig.get_suptitle().split())


def test_confusion_heatmap_shows_row_shares_and_counts(ev2):
    fig = plot.plot_confusion(ev2)
    ax = fig.axes[0]
    img = [i for i in ax.get_images() if isinstance(i, AxesImage)]
    assert len(img) == 1
    np.testing.assert_allclose(img[0].get_array(), np.array(C2) / np.array([[45], [10]]))
    cells = [t.get_text() for t in ax.texts]
    assert sorted(cells) == sorted(["42", "3", "6", "4"])
    assert ax.get_xlabel() == "predicted class" and ax.get_ylabel() == "true class"
    assert len(fig.axes) == 2  # the colour bar


def test_user_strings_are_shown_literally():
    cm = bacc.ConfusionMatrix(C2, labels=["$x$", "50% <b>"])
    ev = bacc.evaluate(cm)
    for fig in (plot.plot_confusion(ev, title="cost $5"), plot.plot_class_accuracies(ev),
                plot.plot_posterior(ev, title="$$")):
        fig.savefig(__import__("io").BytesIO(), format="png")  # mathtext would fail on '$'
    assert "$x$" in texts(plot.plot_confusion(ev)).replace("\\$", "$")


def test_figure_svg_is_inline_scalable_and_uniquely_identified(ev2):
    svg1 = plot.figure_svg(plot.plot_confusion(ev2), id_prefix="a1", alt='<b>"x"</b>')
    svg2 = plot.figure_svg(plot.plot_confusion(ev2), id_prefix="a2")
    assert svg1.startswith("<svg") and svg1.rstrip().endswith("</svg>")
    head = svg1[: svg1.index(">")]
    assert "viewBox" in head and " width=" not in head and " height=" not in head
    assert 'aria-label="&lt;b&gt;&quot;x&quot;&lt;/b&gt;"' in head
    ids1 = set(re.findall(r'id="([^"]+)"', svg1))
    ids2 = set(re.findall(r'id="([^"]+)"', svg2))
    assert ids1 and all(i.startswith("a1-") for i in ids1)
    assert not ids1 & ids2
    for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', svg1):
        assert ref in ids1
    with pytest.raises(BaccError):
        plot.figure_svg(plot.plot_confusion(ev2), id_prefix="bad id")


def test_missing_matplotlib_says_what_to_install(monkeypatch, ev2):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependencyError, match=r'pip install "bacc\[plot\]"'):
        plot.plot_posterior(ev2)


def test_import_bacc_does_not_import_matplotlib():
    import subprocess

    code = "import bacc, bacc.display.plot, bacc.display.report, bacc.cli, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_titles_keep_an_interval_on_one_line_and_name_windows_in_words():
    from bacc.display.monitoring_text import window_words
    from bacc.display.plot import _wrap

    text = "balanced accuracy: mean 0.666, 95% [0.534, 0.808] P(> chance 0.5) = 0.9955"
    for width in (150, 200, 250, 300, 400):
        lines = _wrap(text, width, 10).split("\n")
        assert any("[0.534,\u00a00.808]" in line for line in lines), lines
    assert [window_words(w) for w in ("7D", "1D", "D", "1W", "3M", "1h", "30min", "Y")] == [
        "7-day", "day", "day", "week", "3-month", "hour", "30-minute", "year"]
