"""One naming scheme across the library's printed and plotted results."""

from __future__ import annotations

import numpy as np
import pytest

import bacc

pytest.importorskip("matplotlib").use("Agg")


def test_default_names_are_letters_in_compare_and_rank():
    a, b = [[40, 5], [5, 10]], [[30, 15], [8, 7]]
    assert bacc.compare(a, b).names == ("A", "B")
    assert bacc.rank([a, b, a], n_draws=100).names == ("A", "B", "C")
    y = [0] * 10 + [1] * 10
    assert bacc.compare_paired(y, y, y[::-1]).names == ("A", "B")


def test_compare_paired_takes_names_from_series():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0] * 5, "knn": [0, 1, 0, 0, 1, 1] * 5,
                       "svm": [0, 1, 1, 0, 0, 0] * 5})
    c = bacc.compare_paired(df["y"], df["knn"], df["svm"])
    assert c.names == ("knn", "svm") and "P(knn > svm)" in str(c)
    assert bacc.compare_paired(df["y"], df["knn"], df["svm"], names=("a", "b")).names == ("a", "b")
    # two Series with the same name cannot name the two classifiers
    assert bacc.compare_paired(df["y"], df["knn"], df["knn"].rename("knn")).names == ("A", "B")


def test_print_evaluation_shows_the_exact_column_as_the_cli():
    cm = [[42, 3], [6, 4]]
    ev = bacc.evaluate(cm)
    text = str(ev)
    ex = bacc.exact_interval(cm)
    acc = bacc.exact_interval(cm, metric="accuracy")
    assert "95% exact" in text
    assert f"[{ex.lower:.4f}, {ex.upper:.4f}]" in text and f"[{acc.lower:.4f}, {acc.upper:.4f}]" in text
    for ci in bacc.class_intervals(cm):
        assert f"[{ci.lower:.4f}, {ci.upper:.4f}]" in text
    assert "flat prior Beta(1, 1) per class" in text


def test_print_evaluation_uses_its_weights():
    cm = [[42, 3], [6, 4]]
    ev = bacc.evaluate(cm, weights=[0.7, 0.3])
    ex = bacc.exact_interval(cm, weights=[0.7, 0.3])
    assert ev.exact_interval().lower == pytest.approx(ex.lower, abs=1e-15)
    assert f"[{ex.lower:.4f}, {ex.upper:.4f}]" in str(ev)


def test_p_above_chance_is_labelled_alike_everywhere():
    cm = np.array([[42, 3], [6, 4]])
    many = str(bacc.evaluate_many(np.stack([cm, cm])))
    one = bacc.display.text.summary_table([("a", bacc.evaluate(cm), None)])
    assert "P(> chance)" in many and "P(> chance)" in one
    assert "P(>chance)" not in many + one


def test_difference_plot_shows_the_probability_of_practical_equivalence():
    c = bacc.compare([[40, 5], [5, 10]], [[38, 7], [5, 10]], rope=0.05)
    fig = c.plot()
    title = fig.axes[0].get_title(loc="left")
    assert "P(|A - B| <= 0.05)" in title
    assert f"{c.p_rope:.4f}" in title
    assert "<= " not in bacc.compare([[40, 5], [5, 10]], [[38, 7], [5, 10]]).plot().axes[0].get_title(loc="left")


def test_long_warning_lists_are_cut():
    with pytest.warns(bacc.BaccWarning) as rec:
        bacc.evaluate(np.pad([[5, 1], [2, 4]], ((0, 20), (0, 20))))
    msg = str(rec[0].message)
    assert "(20 classes)" in msg and len(msg) < 250
