"""The text tables, figures and report section of the comparisons and rankings across data
sets: tables in 80 columns whatever the names, figures with the expected artists, the report
section, and display that shows the result's numbers without recomputing them."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import bacc
from bacc.display import across_text
from bacc.display.report import Section, render_report

DATA = Path(bacc.__file__).parent / "data" / "across_cv_predictions.csv"
MODELS = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
DISPLAY = Path(bacc.__file__).parent / "display"


@pytest.fixture(scope="module")
def pair():
    return bacc.compare_across(str(DATA), true="true", pred=["naive_bayes", "logistic_regression"],
                               across="dataset")


@pytest.fixture(scope="module")
def four():
    return bacc.rank_across(str(DATA), true="true", pred=MODELS, across="dataset")


@pytest.fixture(scope="module")
def long_names():
    """The same data with 45-character classifier and data set names."""
    import csv

    with DATA.open(newline="") as f:
        rows = list(csv.DictReader(f))
    names = {m: (m + "_with_a_very_long_descriptive_suffix_")[:45] for m in MODELS}
    y = [r["true"] for r in rows]
    groups = [(r["dataset"] + "_" + "z" * 40)[:45] for r in rows]
    predictions = {names[m]: [r[m] for r in rows] for m in MODELS}
    two = dict(list(predictions.items())[:2])
    return (bacc.compare_across(y, two, groups=groups),
            bacc.rank_across(y, predictions, groups=groups, n_draws=20_000))


# ------------------------------------------------------------------------------------- tables
def _fits(text: str, width: int = 80) -> None:
    wide = [line for line in text.splitlines() if len(line) > width]
    assert wide == [], wide[:3]


def test_tables_fit_80_columns(pair, four):
    _fits(str(pair))
    _fits(str(four))


def test_tables_fit_80_columns_with_long_names(long_names):
    comp, rank = long_names
    _fits(str(comp))
    _fits(str(rank))
    text = str(rank)
    # a name too long for its row goes on a line of its own, its numbers below it
    for i in rank.order:
        assert rank.names[i] in text.splitlines()
    # the grid numbers the classifiers: no column is as wide as a name
    head = next(line for line in text.splitlines() if line.startswith("P(row > column"))
    assert head.split()[-4:] == ["#1", "#2", "#3", "#4"]


def test_comparison_table_names_a_and_b_once(pair):
    lines = str(pair).splitlines()
    assert lines[1:3] == [f"A = {pair.names[0]}", f"B = {pair.names[1]}"]
    header = next(line for line in lines if line.startswith("A - B"))
    assert header.split()[-5:] == ["P(B", "better)", "P(rope)", "P(A", "better)"]
    assert pair.names[0] not in header and pair.names[1] not in header


def test_display_shows_the_result_numbers_without_recomputing_them(pair, four):
    """Numbers changed on the result are printed as changed: nothing is derived again."""
    odd = dataclasses.replace(pair, mean=0.4321, lower=-0.1111, upper=0.2222, p_left=0.123,
                              p_rope=0.456, p_right=0.789, spread=0.0007)
    row = next(line for line in str(odd).splitlines() if line.startswith("population "))
    assert row.split() == ["population", "+0.4321", "[-0.1111,", "+0.2222]", "0.123", "0.456",
                           "0.789"]
    assert "between data sets: 0.0007" in str(odd)
    er = np.array([3.5, 1.25, 2.0, 4.0])
    odd = dataclasses.replace(four, expected_rank=er, p_best=np.array([0.01, 0.7, 0.2, 0.09]))
    rows = [line.split() for line in across_text.across_ranking_table(odd).splitlines()
            if line.split() and line.split()[0] in MODELS and len(line.split()) == 7]
    assert [r[0] for r in rows] == [MODELS[i] for i in np.argsort(er)]
    assert [r[1] for r in rows] == ["1.25", "2.00", "3.50", "4.00"]
    assert [r[2] for r in rows] == ["0.700", "0.200", "0.010", "0.090"]


def test_display_modules_do_no_statistics():
    """The across display modules import no statistics (scipy, the engine, the numerics)."""
    for name in ("across_text.py", "across_plot.py", "across_report.py"):
        tree = ast.parse((DISPLAY / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [("." * node.level) + (node.module or "")]
            else:
                continue
            for m in mods:
                assert not m.startswith(("scipy", "..", "bacc")), (name, m)
                assert m in {"__future__", "typing", "collections.abc", "numpy", ".",
                             ".numbers", ".text", ".plot", ".html", ".across_text",
                             ".across_plot", "matplotlib.figure"}, (name, m)


# ------------------------------------------------------------------------------------ figures
@pytest.fixture(scope="module")
def mpl():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    return matplotlib


def _texts(fig) -> list[str]:
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def test_comparison_figure(mpl, pair):
    from bacc.display.across_plot import GID_FOREST, GID_SHRUNKEN, plot_across_comparison

    fig = plot_across_comparison(pair)
    top, bottom = fig.axes
    # one forest row per data set, labelled with its name and examples
    rows = [c for c in bottom.collections if c.get_gid() == GID_FOREST]
    assert len(rows) == len(pair.data_sets) == 12
    labels = [t.get_text() for t in bottom.get_yticklabels()]
    assert labels == [f"{d.data_set} ({d.n_examples})" for d in pair.data_set_differences]
    # marker areas grow with the examples
    shrunken = [c for c in bottom.collections if c.get_gid() == GID_SHRUNKEN]
    assert [float(c.get_offsets()[0][0]) for c in shrunken] == \
        [d.shrunken_mean for d in pair.data_set_differences]
    sizes = [float(c.get_sizes()[0]) for c in shrunken]
    n = [d.n_examples for d in pair.data_set_differences]
    assert np.argmax(sizes) == np.argmax(n) and np.argmin(sizes) == np.argmin(n)
    # the population density (solid) is the result's pdf, the predictive one dashed
    solid, dashed = top.lines[0], top.lines[1]
    x, y = solid.get_data()
    assert np.allclose(y, pair.difference.pdf(x), equal_nan=True)
    assert dashed.get_linestyle() == "--"
    xp, yp = dashed.get_data()
    assert np.allclose(yp, pair.predictive.pdf(xp), equal_nan=True)
    # the rope band spans [-rope, rope]
    band = [p for p in top.patches if p.get_label().startswith("practically equal")]
    assert len(band) == 1
    # a Rectangle from matplotlib 3.9, a Polygon before: its corners in data x either way
    xs = band[0].get_patch_transform().transform(band[0].get_path().vertices)[:, 0]
    assert min(xs) == pytest.approx(-pair.rope) and max(xs) == pytest.approx(pair.rope)
    assert any(f"P(A better) = {pair.p_right:.4f}" in t for t in _texts(fig))


def test_ranking_figure(mpl, four):
    from bacc.display.across_plot import GID_CD, GID_GROUP, plot_across_ranking

    fig = plot_across_ranking(four)
    (ax,) = fig.axes
    bars = [line for line in ax.lines if line.get_gid() == GID_GROUP]
    assert len(bars) == len(four.groups) == 2
    # the rows from the best expected rank, each with P(best) beside
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [four.names[i] for i in four.order]
    assert [t.get_position()[1] for t in ax.get_yticklabels()] == [3, 2, 1, 0]  # best on top
    texts = _texts(fig)
    from matplotlib.text import Text

    from bacc.display.across_plot import GID_P_BEST

    p_best = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == GID_P_BEST]
    assert p_best == [f"{four.p_best[i]:.3f}" for i in four.order]
    assert "P(best)" in texts
    # the expected ranks (diamonds) and the classical average ranks (crosses) where they are
    diamonds = [line for line in ax.lines if line.get_marker() == "D"]
    assert sorted(float(d.get_xdata()[0]) for d in diamonds) == sorted(four.expected_rank)
    crosses = [line for line in ax.lines if line.get_marker() == "x"]
    assert sorted(float(c.get_xdata()[0]) for c in crosses) == sorted(four.classical.average_ranks)
    # each rank distribution: dot areas proportional to the rank probabilities
    dots = [c for c in ax.collections if len(c.get_offsets()) == len(four.names)]
    assert len(dots) == len(four.names)
    for k, i in enumerate(four.order):
        s = dots[k].get_sizes()
        assert np.allclose(s / s.sum(), four.rank_probabilities[i] / four.rank_probabilities[i].sum())
    # Nemenyi's critical difference, labelled as the classical reference
    cd = [c for c in ax.get_children() if getattr(c, "get_gid", lambda: None)() == GID_CD]
    assert cd
    assert any("classical (Demšar 2006)" in t and f"{four.classical.critical_difference:.2f}" in t
               for t in _texts(fig))  # in the legend


def test_ranking_figure_of_two_has_no_critical_difference(mpl):
    res = {"A": {"d1": [[40, 10], [5, 45]], "d2": [[18, 2], [3, 17]], "d3": [[90, 10], [20, 80]]},
           "B": {"d1": [[35, 15], [8, 42]], "d2": [[17, 3], [4, 16]], "d3": [[85, 15], [22, 78]]}}
    r = bacc.rank_across(res, n_draws=5000)
    from bacc.display.across_plot import plot_across_ranking

    fig = plot_across_ranking(r, width=3.5)
    assert not any("Demšar" in t for t in _texts(fig))
    assert "Wilcoxon" in str(r)
    _fits(str(r))


def test_figures_with_long_names_build(mpl, long_names):
    from bacc.display.across_plot import plot_across_comparison, plot_across_ranking

    comp, rank = long_names
    import io

    for fig in (plot_across_comparison(comp, width=3.5), plot_across_ranking(rank, width=3.5)):
        fig.savefig(io.BytesIO(), format="png")
        assert fig.get_figwidth() == 3.5
        # names are cut for the narrow figure, with an ellipsis
        labels = [t.get_text() for t in fig.axes[-1].get_yticklabels()]
        assert all(len(t) <= 40 for t in labels) and any("\u2026" in t for t in labels)


# ------------------------------------------------------------------------------------- report
def test_report_section(pair, four):
    for result in (pair, four):
        page = render_report([Section(title="Across data sets", entries=(), across=result)],
                             pictures=False)
        section = page.split("<h2>Across data sets</h2>")[1]
        assert result.verdict in section
        assert "<dt>Across data sets</dt>" in page
        assert "<svg" not in section
    page = render_report([Section(title="Across data sets", entries=(), across=pair)],
                         pictures=False)
    for d in pair.data_set_differences:
        assert f'<th scope="row">{d.data_set}</th>' in page or f">{d.data_set}<" in page


def test_report_section_with_figures(mpl, four):
    page = render_report([Section(title="Across data sets", entries=(), across=four)])
    section = page.split("<h2>Across data sets</h2>")[1]
    assert section.count("<svg") == 1
    assert 'aria-label="ranking of the classifiers across data sets"' in section
